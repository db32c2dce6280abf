"""`kiosk score` with Pai Gow tables and `kiosk bench rules --game paigow`, as real processes."""

import json

from tests.test_score_cli import FIXTURES, kiosk

PAIGOW = json.loads((FIXTURES / "paigow_example.json").read_text())
CHINESE = json.loads((FIXTURES / "contract_example.json").read_text())


def test_one_paigow_table_gives_the_contract_fields():
    proc = kiosk("score", str(FIXTURES / "paigow_example.json"))
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert r["game"] == "paigow" and r["warnings"] == []
    assert {"seat", "house_way", "follows_house_way", "scored_as", "net"} <= set(r["banker"])
    got = [(s["seat"], s["status"], s["foul"], s["high"], s["low"], s["outcome"], s["net"], s["commission"])
           for s in r["seats"]]  # fmt: skip
    assert got == [
        (1, "set", None, "copy", "copy", "lose", -25, 0),
        (2, "set", None, "win", "lose", "push", 0, 0),
        (3, "fouled", "order", None, None, "lose", -25, 0),
        (4, "set", None, "win", "win", "win", 9.97, 0.53),  # D-13: 10.50 x 5% = 0.525 -> 0.53
    ]
    assert (r["banker"]["net"], r["house_commission"]) == (39.5, 0.53)


def test_a_batch_mixes_games_and_an_error_stays_in_its_slot():
    bad = dict(PAIGOW, seats=[dict(PAIGOW["seats"][0], bet=-5)])
    batch = [PAIGOW, CHINESE, bad, dict(PAIGOW, banker=dict(PAIGOW["banker"], low=["Qs"]))]
    proc = kiosk("score", "-", stdin=json.dumps(batch))
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert out[0]["game"] == "paigow" and len(out[0]["seats"]) == 4
    alone = json.loads(kiosk("score", str(FIXTURES / "contract_example.json")).stdout)
    assert out[1] == alone  # Chinese Poker without `game` exactly as before
    assert out[2] == {"game": "paigow", "error": out[2]["error"]} and "bet" in out[2]["error"]
    assert "banker" in out[3]["error"] and "7" in out[3]["error"]
    assert "showdown 3" in proc.stderr and "showdown 4" in proc.stderr


def test_text_report_shows_the_banker_and_each_seat():
    proc = kiosk("score", "--text", str(FIXTURES / "paigow_example.json"))
    assert proc.returncode == 0, proc.stderr
    assert "Banker (dealer)" in proc.stdout and "follows the house way" in proc.stdout
    assert "Seat 3: FOULED" in proc.stdout and "commission 0.53" in proc.stdout


def test_bench_rules_paigow_prints_its_figures():
    proc = kiosk("bench", "rules", "--game", "paigow", "--pool", "20", "--seconds", "0.3")
    assert proc.returncode == 0, proc.stderr
    assert "house-way settings" in proc.stdout and "per CPU-second" in proc.stdout
    assert "two worker processes" in proc.stdout and "0 unscorable" in proc.stdout
