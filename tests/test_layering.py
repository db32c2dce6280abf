"""The runtime (kiosk/) never imports the lab (kiosk_lab/): what `kiosk run` loads holds no training,
synthetic scenes, evaluation or benches. The one place in kiosk/ that names lab modules is the CLI's
command table, by module path, imported only when a lab command runs or the overview is shown."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMAND_TABLE = ROOT / "kiosk" / "cli.py"


def lab_names(path: Path) -> list[str]:
    """Each import of kiosk_lab in a file (at any depth, in functions too), and each string naming a lab
    module (an `importlib.import_module("kiosk_lab...")` in disguise), as `line: text`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = [node.value]
        else:
            continue
        found += [f"{node.lineno}: {n}" for n in names if n == "kiosk_lab" or n.startswith("kiosk_lab.")]
    return found


def test_no_runtime_module_names_the_lab():
    offenders = {str(p.relative_to(ROOT)): lab_names(p) for p in sorted((ROOT / "kiosk").rglob("*.py"))
                 if p != COMMAND_TABLE}
    assert {p: names for p, names in offenders.items() if names} == {}


def test_the_check_finds_an_import_inside_a_function(tmp_path):
    """The scan above would catch a lab import hidden in a function or a lazy import by name."""
    sample = tmp_path / "sample.py"
    sample.write_text("import importlib\n\ndef f():\n    from kiosk_lab.synth import art\n"
                      "    return importlib.import_module('kiosk_lab.bench.rules')\n")
    assert lab_names(sample) == ["4: kiosk_lab.synth", "5: kiosk_lab.bench.rules"]


def test_the_command_table_names_lab_commands_only_as_strings():
    assert [n for n in lab_names(COMMAND_TABLE) if "import" in n] == []
    from kiosk.cli import COMMANDS

    lab = {name for name, module in COMMANDS.items() if module.startswith("kiosk_lab.")}
    assert lab == {"bench", "eval", "train", "quantize"}


RUNTIME = ("kiosk.table.runner", "kiosk.web.app", "kiosk.commands.run", "kiosk.commands.analyze",
           "kiosk.commands.detect", "kiosk.commands.replay", "kiosk.vision.reader", "kiosk.records.replay",
           "kiosk.paigow.runner", "kiosk.records.central")


def test_what_kiosk_run_loads_holds_no_lab_module():
    """In a fresh interpreter: `kiosk run --help` and `kiosk analyze --help` parsed, the runner, the web app and
    the reader imported; no kiosk_lab module is loaded."""
    code = "\n".join([
        "import contextlib, importlib, io, sys",
        "from kiosk.cli import main",
        "for argv in (['run', '--help'], ['analyze', '--help'], ['score', '--help']):",
        "    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit): main(argv)",
        f"for name in {RUNTIME!r}: importlib.import_module(name)",
        "print([m for m in sys.modules if m == 'kiosk_lab' or m.startswith('kiosk_lab.')])",
    ])
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads(run.stdout.strip().splitlines()[-1].replace("'", '"')) == []


# What may be imported inside a function: optional or heavy packages a module needs only on one path (a backend,
# the floor's PostgreSQL, plotting, training). The command modules import inside `run` so that `kiosk --help`
# starts at once (tests/test_cli_startup.py); everything else imports at module level, so a cycle cannot hide.
LAZY_ALLOWED = {"torch", "ultralytics", "onnxruntime", "openvino", "nncf", "psycopg", "PIL", "matplotlib", "skimage"}
COMMAND_FOLDERS = (ROOT / "kiosk" / "commands", ROOT / "kiosk_lab" / "commands")


def _modules() -> dict[str, Path]:
    found = {}
    for root in ("kiosk", "kiosk_lab"):
        for path in sorted((ROOT / root).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def function_imports(path: Path) -> list[str]:
    """`line: module` of each import inside a function of `path` of a module not in LAZY_ALLOWED."""
    found = []
    for fn in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or "."] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{node.lineno}: {n}" for n in names if n.split(".")[0] not in LAZY_ALLOWED]
    return found


def test_imports_inside_functions_are_only_for_optional_heavy_packages():
    offenders = {str(p.relative_to(ROOT)): function_imports(p) for p in _modules().values()
                 if not p.is_relative_to(COMMAND_FOLDERS[0]) and not p.is_relative_to(COMMAND_FOLDERS[1])}
    assert {p: lines for p, lines in offenders.items() if lines} == {}


def test_the_import_check_finds_a_light_import_in_a_method(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("class A:\n    def f(self):\n        import torch\n        from kiosk.records import media\n")
    assert function_imports(sample) == ["4: kiosk.records"]


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Each module -> the project modules it imports (a `from package import name` counts as the submodule
    where there is one)."""
    graph = {}
    for name, path in modules.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                targets |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        graph[name] = {t for t in targets if t in modules and t != name and not name.startswith(t + ".")}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of `graph`: each strongly connected set of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while not comp or comp[-1] != v:
                comp.append(stack.pop())
                on.discard(comp[-1])
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_module_imports_itself_round_a_cycle():
    assert cycles(import_graph(_modules())) == []


def test_the_cycle_check_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
