"""`kiosk score` on hostile and careless input (issue 67): a clear answer, never a traceback.

Each case was a traceback, a lost output or a silent wrong answer before; they run the real
command as a process.
"""

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kiosk.rules.api import score_json

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).resolve().parents[1]
GOOD = json.loads((FIXTURES / "d10_caps.json").read_text())


def kiosk_score(*args, stdin=None):
    cmd = [sys.executable, "-m", "kiosk", "score", *args]
    return subprocess.run(cmd, input=stdin, capture_output=True, cwd=ROOT, timeout=120)


def with_(**changes):
    showdown = copy.deepcopy(GOOD)
    showdown.update(changes)
    return showdown


def no_traceback(proc):
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()[-2000:]


@pytest.mark.parametrize(
    "showdown, field",
    [
        (with_(stake=1e26), "stake"),
        (with_(stake=1e-300), "stake"),
        (with_(pair_stakes=[{"seats": [1, 2], "stake": 1e27}]), "pair_stakes[0]: stake"),
        ({**GOOD, "seats": [{**GOOD["seats"][0], "stack": 1e30}, *GOOD["seats"][1:]]}, "seat 1: stack"),
        (with_(stake=float("inf")), "stake"),
        (with_(stake=int("9" * 4300)), "stake"),
    ],
)
def test_amounts_settlement_cannot_represent_are_refused_naming_field_and_range(showdown, field):
    result = score_json(showdown)
    assert set(result) == {"error"}
    assert result["error"].startswith(f"{field} must be ")
    assert "1,000,000,000,000" in result["error"]
    assert len(result["error"]) < 200  # a 4,300-digit number is named, not printed


def test_a_debt_that_rounds_to_nothing_is_said_in_the_notes():
    showdown = with_(stake=0.001)
    for seat in showdown["seats"]:
        seat.pop("stack")
    result = score_json(showdown)
    # seat 2 owes seat 1 6 points x 0.001 = 0.006 -> 0.01; 1 point and 4 points round to 0.00
    assert result["transfers"] == [{"from": 2, "to": 1, "amount": 0.01}]
    rounded = [n for n in result["notes"] if "rounds to nothing" in n]
    assert len(rounded) == 2 and "seats 1 and 3: 1 point x stake 0.001" in rounded[0]


def test_one_bad_showdown_in_an_array_is_answered_in_its_slot_and_the_others_are_scored():
    proc = kiosk_score("-", stdin=json.dumps([GOOD, with_(stake=1e27), GOOD]).encode())
    no_traceback(proc)
    assert proc.returncode == 1
    results = json.loads(proc.stdout)
    assert [("error" in r) for r in results] == [False, True, False]
    assert results[0]["transfers"] == results[2]["transfers"] == [
        {"from": 2, "to": 1, "amount": 30}, {"from": 2, "to": 3, "amount": 20}]
    assert b"showdown 2: stake must be from" in proc.stderr


def test_a_utf8_bom_is_accepted_from_a_file_and_from_stdin(tmp_path):
    path = tmp_path / "windows.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(GOOD).encode())
    for proc in (kiosk_score(str(path)), kiosk_score("-", stdin=path.read_bytes())):
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["transfers"][0] == {"from": 2, "to": 1, "amount": 30}


@pytest.mark.parametrize(
    "text, message",
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('[{"stake": ' + "9" * 5000 + "}]", "more than 4,300 digits"),
        ('{"stake": ' + "9" * 5000 + "}", "more than 4,300 digits"),
        ('{"a": ' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
    ],
)
def test_deep_nesting_and_huge_numbers_exit_2_with_one_line(text, message):
    proc = kiosk_score("-", stdin=text.encode())
    no_traceback(proc)
    assert proc.returncode == 2
    assert message in proc.stderr.decode()


def test_malformed_json_after_scored_showdowns_keeps_them_and_the_output_stays_json():
    text = "[" + json.dumps(GOOD) + ",\n" + json.dumps(GOOD)[:-5] + "]"
    proc = kiosk_score("-", stdin=text.encode())
    no_traceback(proc)
    assert proc.returncode == 2
    results = json.loads(proc.stdout)
    assert results[0]["transfers"][0]["amount"] == 30
    assert "malformed JSON at line 2" in results[1]["error"]


def test_compact_output_is_one_result_a_line_and_pretty_indents():
    stdin = json.dumps([GOOD, GOOD]).encode()
    compact = kiosk_score("-", stdin=stdin).stdout.decode()
    pretty = kiosk_score("-", "--pretty", stdin=stdin).stdout.decode()
    assert len(compact.splitlines()) == 2
    assert json.loads(compact) == json.loads(pretty)
    assert '\n    "profile": "d10-example"' in pretty


def _peak_rss_kb(path, jobs):
    import resource

    script = ("import resource, subprocess, sys; subprocess.run([sys.executable, '-m', 'kiosk', 'score', sys.argv[1], "
              "'--jobs', sys.argv[2]], stdout=subprocess.DEVNULL, check=False); "
              "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", script, str(path), str(jobs)], capture_output=True, text=True,
                         cwd=ROOT, timeout=900)
    return int(out.stdout.strip())


@pytest.mark.slow
def test_memory_stays_flat_in_the_input_size_and_parallel_output_is_the_same(tmp_path):
    one = json.dumps(GOOD)
    for n in (1_000, 12_000):
        (tmp_path / f"{n}.json").write_text("[" + ",\n".join([one] * n) + "]")
    small, big = _peak_rss_kb(tmp_path / "1000.json", 1), _peak_rss_kb(tmp_path / "12000.json", 1)
    assert big - small < 20_000, (small, big)  # 12x the input (about 8 MB more), not 12x the memory
    serial = kiosk_score(str(tmp_path / "1000.json"), "--jobs", "1").stdout
    parallel = kiosk_score(str(tmp_path / "1000.json"), "--jobs", "2").stdout
    assert serial == parallel and len(json.loads(serial)) == 1000
