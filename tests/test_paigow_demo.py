"""The Pai Gow demo recording with the shipped card reader: every hand read exactly (the joker
`Jk` included) and scored as `kiosk score` scores its table; `kiosk run --game paigow` shows them
on the dealer display in a real headless Chromium."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from kiosk.paigow.api import score_paigow_json
from kiosk.paigow.runner import PaiGowRunner
from kiosk.table.config import PAIGOW_DEMO, for_game, load_config
from kiosk.table.sources import open_source
from kiosk.vision.reader import load_reader
from table_support import CHROMIUM, CHROMIUM_ARGS, free_port

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parent.parent
TRUTH = json.loads(PAIGOW_DEMO.with_suffix(".json").read_text())


def test_the_shipped_reader_reads_every_demo_hand_exactly_the_joker_included():
    cfg = for_game(load_config(None), "paigow")
    source = open_source(str(PAIGOW_DEMO), realtime=False, loop=False)
    try:
        verdicts = PaiGowRunner(cfg, source, load_reader()).run_to_end()
    finally:
        source.close()
    assert len(verdicts) == len(TRUTH["hands"]) == 3
    for v, hand in zip(verdicts, TRUTH["hands"]):
        assert v.confident, (hand["note"], [c.reason for c in v.needs_check], v.integrity)
        assert v.showdown == hand["table"], hand["note"]
        assert v.result == score_paigow_json(hand["table"])
    assert [e.card for e in verdicts[2].evidence].count("Jk") == 1
    assert verdicts[1].result["banker"]["follows_house_way"] is False


def _state(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/state", timeout=5) as r:
        return json.loads(r.read())


@pytest.mark.browser
def test_kiosk_run_game_paigow_shows_the_demo_hands_scored(tmp_path):
    from playwright.sync_api import sync_playwright

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kiosk", "run", "--game", "paigow", "--no-record",
                             "--port", str(port)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline, state = time.time() + 150, None
        while time.time() < deadline:
            time.sleep(1)
            try:
                state = _state(port)
            except OSError:
                continue
            if state["banker"] and state["banker"]["follows_house_way"] is False:  # demo hand 2
                break
        assert state and state["banker"]["follows_house_way"] is False, state
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_selector("#conn[data-state=live]", timeout=15_000)
            page.wait_for_selector("#house-way-flag[data-follows=false]", timeout=30_000)
            assert "NOT THE HOUSE WAY" in page.inner_text("#house-way-flag")
            assert page.inner_text("#spot-3 .badge") == "WINS"
            assert "banker pays seat 3 47.50 (50 less 2.50 commission)" in page.inner_text("#payments")
            page.screenshot(path=str(tmp_path / "paigow.png"))
            browser.close()
            assert not errors
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_kiosk_analyze_reads_a_pai_gow_photo(tmp_path):
    import cv2

    hand = TRUTH["hands"][2]
    cap = cv2.VideoCapture(str(PAIGOW_DEMO))
    cap.set(cv2.CAP_PROP_POS_FRAMES, hand["phases"]["hold"][0])
    ok, image = cap.read()
    cap.release()
    assert ok
    cv2.imwrite(str(tmp_path / "table.png"), image)
    proc = subprocess.run([sys.executable, "-m", "kiosk", "analyze", str(tmp_path / "table.png"), "--game", "paigow",
                           "--json"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr  # a hand the kiosk will not rule on (no bets) exits 1
    [read] = json.loads(proc.stdout)
    bets = {s["seat"]: s["bet"] for s in hand["table"]["seats"]}
    assert read["result"]["error"].startswith("not scored:")  # no bets configured: the dealer must say
    assert all(f"seat {n}: no bet" in read["result"]["error"] for n in bets)
    assert {s["seat"]: (s["high"], s["low"]) for s in read["showdown"]["seats"]} == {
        s["seat"]: (s["high"], s["low"]) for s in hand["table"]["seats"]}
