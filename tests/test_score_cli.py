"""`kiosk score` and `kiosk bench rules` run as real processes (the console script and `python -m kiosk`)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
KIOSK = Path(sys.executable).parent / "kiosk"
ROOT = Path(__file__).resolve().parents[1]


def kiosk(*args, stdin=None, module=False, timeout=120):
    cmd = [sys.executable, "-m", "kiosk", *args] if module else [str(KIOSK), *args]
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=timeout)


def test_console_script_is_installed():
    assert KIOSK.exists(), "the `kiosk` console script is missing: run `bash scripts/setup --test`"


def test_one_showdown_gives_one_result_object_with_the_contract_keys():
    proc = kiosk("score", str(FIXTURES / "contract_example.json"))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert isinstance(result, dict)
    assert {"seats", "pairs", "transfers", "shortfalls"} <= set(result)
    seats = {s["seat"]: s for s in result["seats"]}
    for s in seats.values():
        assert {"seat", "status", "natural", "foul", "points", "explanation"} <= set(s)
    assert (seats[1]["status"], seats[2]["status"], seats[3]["status"], seats[4]["status"]) == (
        "set", "natural", "fouled", "dead",
    )
    assert seats[2]["natural"] == "six_pairs"
    assert seats[3]["foul"] == "false_natural"
    # seat 1: pays seat 2's natural 4, collects 6 + 15 royalties from the false declaration
    assert [seats[n]["points"] for n in (1, 2, 3, 4)] == [17, 8, -25, 0]
    assert result["pairs"] == [
        {**result["pairs"][0], "seats": [1, 2], "points": -4},
        {**result["pairs"][1], "seats": [1, 3], "points": 21},
        {**result["pairs"][2], "seats": [2, 3], "points": 4},
    ]
    # stakes: 100 a point between seats 1 and 2, 5 otherwise; seat 1 has only 200 to pay 400
    assert result["transfers"] == [
        {"from": 1, "to": 2, "amount": 200},
        {"from": 3, "to": 1, "amount": 105},
        {"from": 3, "to": 2, "amount": 20},
    ]
    assert result["shortfalls"] == [{"from": 1, "to": 2, "amount": 200}]


def test_an_array_from_stdin_keeps_its_order_and_an_unscorable_slot_exits_1():
    good = json.loads((FIXTURES / "d10_caps.json").read_text())
    bad = json.loads(json.dumps(good))
    bad["seats"][1]["middle"][0] = "Qx"
    proc = kiosk("score", "-", stdin=json.dumps([good, bad, good]), module=True)
    assert proc.returncode == 1
    results = json.loads(proc.stdout)
    assert len(results) == 3
    assert results[0] == results[2] and "transfers" in results[0]
    assert results[1] == {"error": "seat 2 middle: 'Qx' is not a card (write rank then suit, e.g. As, Td, 10d)"}
    assert "showdown 2: seat 2 middle: 'Qx' is not a card" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_duplicate_card_names_both_places():
    data = json.loads((FIXTURES / "d10_caps.json").read_text())
    data["seats"][2]["back"][0] = "Qs"
    proc = kiosk("score", "-", stdin=json.dumps(data))
    assert proc.returncode == 1
    assert json.loads(proc.stdout) == {"error": "duplicate card Qs: seat 1 front and seat 3 back"}


def test_malformed_json_says_where_and_exits_2_without_a_traceback(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"seats": [\n  {"seat": 1,\n    "front": ["As" "Kd"]}]}\n')
    proc = kiosk("score", str(path))
    assert proc.returncode == 2
    assert "malformed JSON at line 3, column 20" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_unreadable_file_and_empty_input_exit_2():
    proc = kiosk("score", "/nonexistent/showdown.json")
    assert proc.returncode == 2 and "cannot read showdown file /nonexistent/showdown.json" in proc.stderr
    proc = kiosk("score", "-", stdin="  \n")
    assert proc.returncode == 2 and "stdin is empty" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_usage_error_exits_2():
    proc = kiosk("score")
    assert proc.returncode == 2 and "FILE" in proc.stderr


def test_text_report_reads_like_a_floor_supervisor_would_want():
    proc = kiosk("score", "--text", str(FIXTURES / "contract_example.json"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "button on seat 4" in out and "Payment order (D-10): seats 1, 2, 3" in out
    assert "back:   8h 9h Th Jh Qh  straight flush, queen high   royalty 5" in out
    assert "Seat 2: NATURAL: six pairs" in out and "D-9" in out
    assert "Seat 3: FOULED (D-4 false declaration)" in out
    assert "seat 3 fouled: declared a natural with 0 cards (a natural needs 13) (D-4)" in out
    assert "Seat 4: DEAD" in out
    transfers = out.split("Transfers, in payment order (D-10)")[1]
    assert transfers.index("1. seat 1 pays seat 2 200") < transfers.index("2. seat 3 pays seat 1 105")
    assert "seat 1 owed seat 2 200 more" in out


def test_text_report_of_an_unscorable_showdown_says_so():
    proc = kiosk("score", "--text", "-", stdin='[{"seats": [{"seat": 1, "front": ["As", "Zz"]}]}]')
    assert proc.returncode == 1
    assert "Showdown 1: CANNOT BE SCORED" in proc.stdout and "'Zz' is not a card" in proc.stdout


def test_a_card_rooms_profile_file(tmp_path):
    profiles = tmp_path / "house.json"
    profiles.write_text(json.dumps([{"name": "house", "base": "mandarin", "scoop": 7, "royalties": {}}]))
    data = json.loads((FIXTURES / "contract_example.json").read_text())
    data["profile"] = "house"
    proc = kiosk("score", "--profiles", str(profiles), "-", stdin=json.dumps(data))
    assert proc.returncode == 0, proc.stderr
    pairs = {tuple(p["seats"]): p["points"] for p in json.loads(proc.stdout)["pairs"]}
    assert pairs[(1, 3)] == 7  # the house scoop, no royalties
    profiles.write_text(json.dumps({"name": "house", "base": "mandarin", "scoop": "lots"}))
    proc = kiosk("score", "--profiles", str(profiles), "-", stdin=json.dumps(data))
    assert proc.returncode == 2
    assert "profile 'house': scoop: must be a whole number" in proc.stderr


@pytest.mark.slow
def test_bench_rules_prints_its_figures():
    proc = kiosk("bench", "rules", "--pool", "20", "--seconds", "0.3", "--repeats", "3", "--command-showdowns", "300",
                 timeout=600)  # it starts `kiosk score` four times
    assert proc.returncode == 0, proc.stderr
    assert "kiosk score on a 300-showdown file" in proc.stdout and "start-up" in proc.stdout
    assert "4-seat showdowns, parse + score + settle (score_json):" in proc.stdout
    assert "per CPU-second" in proc.stdout and "per wall-clock second" in proc.stdout
    assert "declared natural, worst case to verify or reject:" in proc.stdout
