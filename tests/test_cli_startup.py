"""The command line starts at once: only the named command's module is imported, each command says what it is."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kiosk.cli import COMMANDS, build_parser, main

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("numpy", "cv2", "scipy", "torch", "ultralytics", "flask", "pydantic", "onnxruntime", "openvino")
LOADED = "import sys; print(sorted({m.split('.')[0] for m in sys.modules} & set(%r)))" % (HEAVY,)


def loaded_after(code: str) -> list[str]:
    """The heavy packages a fresh interpreter has imported after running `code`."""
    run = subprocess.run([sys.executable, "-c", code + "\n" + LOADED], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1].replace("'", '"'))


def test_the_overview_imports_no_heavy_package():
    """`kiosk --help` builds every command's parser: module level and register() of each stay light."""
    assert loaded_after("from kiosk.cli import build_parser; build_parser([]).format_help()") == []


def test_kiosk_score_imports_no_heavy_package(tmp_path):
    showdown = tmp_path / "one.json"
    showdown.write_text(json.dumps({"button": 2, "seats": [
        {"seat": 1, "front": ["As", "Ad", "Kc"], "middle": ["2c", "3c", "4c", "5c", "6c"],
         "back": ["7d", "8d", "9d", "Td", "Jd"]},
        {"seat": 2, "front": ["Qs", "Qd", "4h"], "middle": ["8s", "8h", "Ah", "Kh", "2d"],
         "back": ["9s", "9h", "9c", "3d", "3h"]}]}))
    code = (f"import io, contextlib; from kiosk.cli import main\nout = io.StringIO()\n"
            f"with contextlib.redirect_stdout(out): assert main(['score', {str(showdown)!r}]) == 0\n"
            "assert '\"amount\": 21' in out.getvalue() or '\"amount\":21' in out.getvalue(), out.getvalue()")
    assert loaded_after(code) == []


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_help_and_a_description(name, capsys):
    with pytest.raises(SystemExit) as done:
        main([name, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    description = text.split("\n\n")[1]
    assert not description.lstrip().startswith(("positional", "options")), f"kiosk {name} --help has no description"
    commands = next(a for a in build_parser([])._actions if a.dest == "command")
    helps = {c.dest: c.help for c in commands._choices_actions}
    assert len(helps.get(name) or "") > 10, f"{name} has no help line in the overview"


def test_detect_help_names_its_default_output_folder(capsys):
    with pytest.raises(SystemExit):
        main(["detect", "--help"])
    assert "default: runs/detect" in " ".join(capsys.readouterr().out.split())


def test_a_bench_targets_arguments_load_when_it_is_named(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "rules", "--help"])
    assert "--seconds" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        main(["bench", "nonsense"])
    assert done.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_kiosk_bench_cli_prints_the_start_up_figures(capsys):
    """The figures of docs/benchmarks.md come from `kiosk bench cli` (here the quick ones, one run each)."""
    assert main(["bench", "cli", "--only", "help,score", "--repeats", "1", "--cores", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("machine: ") and " cores (" in lines[0]
    assert re.fullmatch(r"kiosk --help: \d+\.\d\d s wall \(median of 1; target < 0\.5 s\)", lines[1]), lines
    assert re.fullmatch(r"kiosk score, one 4-seat showdown: \d+\.\d\d s wall \(median of 1; target < 0\.5 s\)",
                        lines[2]), lines
    assert main(["bench", "cli", "--only", "nonsense"]) == 2
    assert "--only: no figure 'nonsense'" in capsys.readouterr().err
