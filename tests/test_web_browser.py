"""Dealer display in a real headless Chromium (Debian's /usr/bin/chromium driven by Playwright).

Two tests:
- the live page against the real table pipeline in this process (its reader is the
  ground-truth `SceneReader` on rendered frames, so every card is known): seats, rows,
  badges, payments, a natural declaration, a wrong and a right floor PIN, the camera
  view, three screen sizes without scrolling, and the lost-connection banner;
- `kiosk run` end to end as a dealer starts it, with the real card reader, on a video of
  a table rendered here: wait for the verdict, act through the page, stop it as systemd
  does (SIGTERM), and find the correction in the record database.

Screenshots go to $KIOSK_ARTIFACTS when set (e.g. tests/artifacts), else pytest's tmp dir.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import cv2
import pytest

from kiosk_lab.synth.table import SeatLayout, TableLayout, render_table
from table_support import DEAL, EMPTY, free_port
from kiosk.table.config import KioskConfig
from kiosk_lab.groundtruth import Noise, SceneReader
from kiosk.table.hub import Hub
from kiosk.table.runner import TableRunner
from kiosk.table.sources import Frame
from kiosk.web.app import create_app
from kiosk.web.security import hash_pin
from kiosk.web.service import start_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent
PIN = "2468"
DECK = "kennard-2c"
# RULES worked through by hand for DEAL (button 3, seat 4 dead, stake 5): see test_web_routes.py.
PAYMENTS = ["1. Seat 2 \u2192 Seat 1 65", "2. Seat 3 \u2192 Seat 1 65", "3. Seat 2 \u2192 Seat 3 30"]
PAYMENTS_AFTER_DRAGON = ["1. Seat 2 \u2192 Seat 1 65", "2. Seat 1 \u2192 Seat 3 65", "3. Seat 2 \u2192 Seat 3 65"]


def open_page(browser, url, width, height, errors):
    # bypass_csp: Playwright's wait_for_function evaluates strings in the page, which the display's
    # Content-Security-Policy forbids; tests/test_display_hardening.py loads the page with it enforced.
    page = browser.new_page(viewport={"width": width, "height": height}, bypass_csp=True)
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(url)
    page.wait_for_selector("#conn[data-state=live]", timeout=15_000)
    return page


def cards(page, seat, row):
    return page.eval_on_selector_all(f'#seat-{seat} .row[data-row="{row}"] .card[data-card]',
                                     "els => els.map(e => e.dataset.card)")


def payments(page):
    return page.eval_on_selector_all(
        "#payments li", "els => els.map(e => e.innerText.replace(/\\s+/g, ' ').trim())")


def badge(page, seat):
    return page.inner_text(f"#seat-{seat} .badge .badge-text")


def assert_fits(page):
    """No scrolling, and the seats and payments inside the window."""
    sizes = page.evaluate("""() => ({sw: document.documentElement.scrollWidth, sh: document.documentElement.scrollHeight,
        w: innerWidth, h: innerHeight,
        boxes: [...document.querySelectorAll('.seat, #payments, #totals, .headline')].map(e => {
            const r = e.getBoundingClientRect(); return [e.id || e.className, r.left, r.top, r.right, r.bottom]; })})""")
    assert sizes["sw"] <= sizes["w"] and sizes["sh"] <= sizes["h"], sizes
    for name, left, top, right, bottom in sizes["boxes"]:
        assert left >= 0 and top >= 0 and right <= sizes["w"] + 0.5 and bottom <= sizes["h"] + 0.5, name


def correct_card(page, seat, row, index, rank, suit, pin, by="F7"):
    page.click(f'#seat-{seat} .card[data-row="{row}"][data-index="{index}"]')
    page.wait_for_selector("#dlg-card[open]")
    page.click(f'#pick-rank button[data-value="{rank}"]')
    page.click(f'#pick-suit button[data-value="{suit}"]')
    page.fill("#card-by", by)
    page.fill("#card-pin", pin)
    page.click("#card-submit")


def declare_natural(page, seat):
    page.click(f"#seat-{seat} .seat-head")
    page.wait_for_selector("#dlg-seat[open]")
    page.click("#act-declare")
    page.wait_for_function("!document.getElementById('dlg-seat').open", timeout=10_000)


def check_table_as_dealt(page):
    assert cards(page, 1, "front") == ["As", "Ad", "Kc"]
    assert cards(page, 1, "middle") == ["7s", "7h", "7d", "2c", "2d"]
    assert cards(page, 2, "back") == ["Ah", "Kh", "9h", "6h", "2h"]
    assert cards(page, 3, "back") == ["Tc", "Jc", "Qc", "Kd", "Ac"]
    assert cards(page, 4, "front") == []
    assert [badge(page, n) for n in (1, 2, 3, 4)] == ["SET", "FOUL", "SET", "DEAD"]
    assert page.get_attribute("#seat-2", "data-status") == "foul"
    assert "does not beat front" in page.inner_text("#seat-2 .seat-detail")
    assert page.is_visible("#seat-3 .btn-disc")
    assert page.inner_text("#seat-1 .card[data-card=As]").split() == ["A", "\u2660"]
    assert payments(page) == PAYMENTS


# ------------------------------------------------------------------ in-process pipeline

class Table:
    def __init__(self, cfg, hub, noise=None):
        self.scenes: dict[int, dict] = {}
        self.runner = TableRunner(cfg, None, SceneReader(self.scenes, noise=noise), hub)
        self.index = 0

    def show(self, rendered, frames):
        for _ in range(frames):
            self.scenes[self.index] = rendered.scene
            self.runner.process(Frame(image=rendered.image, index=self.index, timestamp=self.index * 0.25,
                                      source="rendered"))
            self.index += 1


def test_live_page_shows_the_table_and_takes_the_dealers_actions(browser, shots):
    cfg = KioskConfig.model_validate({"game": {"dead": [4], "button": 3, "stake": 5},
                                      "web": {"floor_pin_hash": hash_pin(PIN, iterations=1000)}})
    hub = Hub()
    table = Table(cfg, hub)
    table.show(render_table(EMPTY, DECK, seed=3), 3)
    table.show(render_table(DEAL, DECK, seed=3), 12)
    assert table.runner.state.phase == "verdict"
    port = free_port()
    app = create_app(hub, table.runner, cfg, heartbeat=1.0, retry_ms=500)
    server, _ = start_server(app, "127.0.0.1", port)
    url = f"http://127.0.0.1:{port}/"
    errors: list[str] = []
    try:
        page = open_page(browser, url, 1280, 800, errors)
        page.wait_for_selector("body[data-phase=verdict]")
        check_table_as_dealt(page)
        assert page.get_attribute("#headline", "data-kind") == "ok"
        assert_fits(page)
        height = page.evaluate("document.querySelector('#seat-1 .card').getBoundingClientRect().height")
        assert height >= 60, f"cards {height}px tall at 1280x800: not readable from 1.5 m"
        page.screenshot(path=str(shots / "live_1280x800.png"))

        declare_natural(page, 3)
        page.wait_for_selector("#seat-3 .badge[data-kind=natural]")
        assert badge(page, 3) == "NATURAL: DRAGON"
        page.wait_for_function(f"[...document.querySelectorAll('#payments li')].map(e => e.innerText.replace(/\\s+/g, ' ').trim()).join('|') === {json.dumps('|'.join(PAYMENTS_AFTER_DRAGON))}")

        correct_card(page, 1, "front", 2, "J", "d", "1111")
        page.wait_for_function("document.getElementById('dlg-card-error').textContent.includes('wrong PIN')")
        assert cards(page, 1, "front") == ["As", "Ad", "Kc"]  # a wrong PIN changes nothing
        page.fill("#card-pin", PIN)
        page.click("#card-submit")
        page.wait_for_selector('#seat-1 .card.corrected[data-card="Jd"]')
        assert cards(page, 1, "front") == ["As", "Ad", "Jd"]
        assert not page.evaluate("document.getElementById('dlg-card').open")
        page.screenshot(path=str(shots / "live_after_actions_1280x800.png"))

        page.click("#btn-camera")
        page.wait_for_function("document.getElementById('camera-img').naturalWidth > 0")
        assert "39 cards read" in page.inner_text("#camera-info")
        page.screenshot(path=str(shots / "camera_1280x800.png"))
        page.click("#dlg-camera [data-close]")

        for width, height in ((1024, 600), (1920, 1080)):
            small = open_page(browser, url, width, height, errors)
            assert_fits(small)
            assert cards(small, 1, "front") == ["As", "Ad", "Jd"]
            small.screenshot(path=str(shots / f"live_{width}x{height}.png"))
            small.close()

        # the camera is connected but no frame has come for a while: the pipeline is stuck, and the page says so
        hub.publish("source", status="connected", detail="camera 0")
        page.wait_for_function("document.getElementById('source-status').textContent.includes('NO CAMERA FRAME FOR')",
                               timeout=15_000)

        # the kiosk goes away: the page says so within a few heartbeats, and greys the table out
        server.shutdown()
        app.config["KIOSK_LIVE"].close()
        page.wait_for_selector("#lost", state="visible", timeout=10_000)
        assert "LOST CONNECTION" in page.inner_text("#lost")
        assert page.evaluate("document.body.classList.contains('stale')")
        page.screenshot(path=str(shots / "lost_1280x800.png"))
        # ... and comes back: the page reconnects by itself (a restarted kiosk: it reloads)
        app = create_app(hub, table.runner, cfg, heartbeat=1.0, retry_ms=500)
        server, _ = start_server(app, "127.0.0.1", port)
        page.wait_for_selector("#lost", state="hidden", timeout=20_000)
        page.wait_for_selector("#conn[data-state=live]", timeout=10_000)
        assert cards(page, 1, "front") == ["As", "Ad", "Jd"]
        assert errors == []
    finally:
        server.shutdown()
        app.config["KIOSK_LIVE"].close()


FULL_TABLE = TableLayout(seats=DEAL.seats[:3] + (
    SeatLayout(4, front=("4c", "5c", "Td"), middle=("3d", "4d", "6d", "9d", "Jd"), back=("3h", "5h", "8h", "Th", "Jh")),))


def test_four_seats_with_all_in_caps_fit_the_smallest_screen(browser, shots):
    """Six payments, shortfalls and a 4x4 grid on 1024x600: every payment line stays in view."""
    cfg = KioskConfig.model_validate({"game": {"button": 4, "stake": 10, "stacks": {1: 100, 2: 40, 3: 300, 4: 30}}})
    hub = Hub()
    table = Table(cfg, hub)
    table.show(render_table(EMPTY, DECK, seed=4), 3)
    table.show(render_table(FULL_TABLE, DECK, seed=4), 12)
    result = table.runner.state.verdict.result
    assert table.runner.state.verdict.confident and result["shortfalls"], result
    app = create_app(hub, table.runner, cfg)
    server, _ = start_server(app, "127.0.0.1", free_port())
    errors: list[str] = []
    try:
        for width, height in ((1024, 600), (1280, 800)):
            page = open_page(browser, f"http://127.0.0.1:{server.server_port}/", width, height, errors)
            page.wait_for_selector("body[data-verdict=yes]")
            lines = page.query_selector_all("#payments li")
            assert len(lines) == len({frozenset((t["from"], t["to"])) for t in result["transfers"] + result["shortfalls"]})
            assert len(page.query_selector_all("#payments .short")) == len(result["shortfalls"])
            assert_fits(page)
            bottom = page.evaluate("document.querySelector('#payments li:last-child').getBoundingClientRect().bottom")
            assert bottom <= height
            assert [badge(page, n) for n in (1, 2, 3, 4)] == ["SET", "FOUL", "SET", "SET"]
            assert [t.inner_text() for t in page.query_selector_all("#totals .pts")] == [
                f"{s['points']:+d}" if s["points"] else "0" for s in result["seats"]]
            page.screenshot(path=str(shots / f"four_seats_{width}x{height}.png"))
            page.close()
        assert errors == []
    finally:
        server.shutdown()
        app.config["KIOSK_LIVE"].close()


def test_a_doubtful_card_holds_the_payments_until_the_floor_corrects_it(browser, shots):
    """The reader takes seat 1's Kc for Jd at 0.55 in every frame: NEEDS CHECK, never a verdict to pay."""
    cfg = KioskConfig.model_validate({"game": {"dead": [4], "button": 3, "stake": 5},
                                      "web": {"floor_pin_hash": hash_pin(PIN, iterations=1000)}})
    hub = Hub()
    table = Table(cfg, hub, noise=Noise(swaps={"Kc": ("Jd", 0.55)}))
    table.show(render_table(EMPTY, DECK, seed=3), 3)
    table.show(render_table(DEAL, DECK, seed=3), 12)
    app = create_app(hub, table.runner, cfg, heartbeat=1.0)
    server, _ = start_server(app, "127.0.0.1", free_port())
    errors: list[str] = []
    try:
        page = open_page(browser, f"http://127.0.0.1:{server.server_port}/", 1280, 800, errors)
        page.wait_for_selector("body[data-verdict=yes]")
        assert page.get_attribute("#headline", "data-kind") == "check"
        assert page.inner_text("#headline-text") == "DO NOT PAY: dealer check seat 1 (card Jd)"
        assert [badge(page, n) for n in (1, 2, 3, 4)] == ["NEEDS CHECK", "READ", "READ", "DEAD"]
        assert "card Jd: card at front 3 read as Jd or Kc" in page.inner_text("#seat-1 .seat-detail")
        assert page.get_attribute('#seat-1 .card[data-index="2"][data-row=front]', "class") == "card doubt"
        assert page.is_visible("#hold") and payments(page) == []
        assert "Seat 1: card at front 3 read as Jd or Kc" in page.inner_text("#hold")
        assert page.inner_text("#totals") == ""
        page.screenshot(path=str(shots / "needs_check_1280x800.png"))

        correct_card(page, 1, "front", 2, "K", "c", PIN)
        page.wait_for_selector("#headline[data-kind=ok]")
        assert badge(page, 1) == "SET" and cards(page, 1, "front") == ["As", "Ad", "Kc"]
        assert payments(page) == PAYMENTS and not page.is_visible("#hold")
        page.screenshot(path=str(shots / "needs_check_corrected_1280x800.png"))
        assert errors == []
    finally:
        server.shutdown()
        app.config["KIOSK_LIVE"].close()


def test_a_misplaced_row_stays_inside_its_seat_and_a_joker_misread_can_be_checked(browser, shots):
    """What a weak read looks like: 8 cards in a front row, a 'joker' in a 52-card game."""
    from kiosk.table.verdict import NeedsCheck, Verdict

    showdown = {"button": 3, "stake": 5, "seats": [
        {"seat": 1, "front": ["As", "Ad", "Kc"], "middle": ["7s", "7h", "7d", "2c", "2d"],
         "back": ["9s", "Ts", "Js", "Qs", "Ks"]},
        {"seat": 2, "front": ["8s", "8c", "Qh", "4h", "Qd", "3c", "5d", "6c"], "middle": ["Ah", "Kh", "9h", "6h", "2h"],
         "back": ["Jk"]},
        {"seat": 3, "front": ["2s", "3s", "4s"], "middle": ["5s", "6s", "7c", "8d", "9c"],
         "back": ["Tc", "Jc", "Qc", "Kd", "Ac"]},
        {"seat": 4, "dead": True}]}
    check = NeedsCheck(seat=2, reason="card at back 1 read as Jk or Kd (confidence 0.36)", card="Jk")
    hub = Hub()
    hub.publish("phase", phase="verdict", hand_id="H7")
    hub.publish("verdict", verdict=Verdict(
        hand_id="H7", table="table-1", decided_at=time.time(), frame_index=3, showdown=showdown,
        result={"error": "not scored: seat 2: card at back 1 read as Jk or Kd"}, needs_check=(check,),
        integrity=("wrong card count: seat 2 has 14 cards",)))
    cfg = KioskConfig.model_validate({"web": {"floor_pin_hash": hash_pin(PIN, iterations=1000)}})
    app = create_app(hub, None, cfg)
    server, _ = start_server(app, "127.0.0.1", free_port())
    errors: list[str] = []
    try:
        page = open_page(browser, f"http://127.0.0.1:{server.server_port}/", 1280, 800, errors)
        assert cards(page, 2, "front") == showdown["seats"][1]["front"]
        inside = page.evaluate("""() => { const seat = document.getElementById('seat-2').getBoundingClientRect();
            return [...document.querySelectorAll('#seat-2 .card')].every(c => { const r = c.getBoundingClientRect();
                return r.left >= seat.left && r.right <= seat.right; }); }""")
        assert inside, "cards drawn outside their seat"
        rows = page.eval_on_selector_all("#seat-2 .row", "els => els.map(e => [e.dataset.row, e.className])")
        assert rows == [["front", "row short over"], ["middle", "row"], ["back", "row short"]]
        page.click('#seat-2 .card.doubt[data-card="Jk"]')
        page.wait_for_selector("#dlg-card[open]")
        assert "read as Jk (unsure)" in page.inner_text("#dlg-card-title")
        page.screenshot(path=str(shots / "misplaced_row_1280x800.png"))
        assert errors == []
    finally:
        server.shutdown()
        app.config["KIOSK_LIVE"].close()


# ------------------------------------------------------------------ kiosk run, end to end

def fix_doubtful_cards(page) -> list[tuple]:
    """The floor confirms or corrects every card the kiosk flags for a check (the card really dealt there)."""
    fixed = []
    for _ in range(13):
        doubt = page.query_selector("button.card.doubt")
        if doubt is None:
            break
        seat, row, index = int(doubt.get_attribute("data-seat")), doubt.get_attribute("data-row"), \
            int(doubt.get_attribute("data-index"))
        read, truth = doubt.get_attribute("data-card"), getattr(DEAL.seats[seat - 1], row)[index]
        correct_card(page, seat, row, index, "10" if truth[0] == "T" else truth[0], truth[1], PIN)
        page.wait_for_function("!document.getElementById('dlg-card').open", timeout=15_000)
        page.wait_for_selector(
            f'#seat-{seat} .card[data-row="{row}"][data-index="{index}"][data-card="{truth}"]:not(.doubt)',
            timeout=15_000)
        fixed.append((seat, row, index, read, truth, "F7"))
    return fixed


def render_video(path: Path, seconds_empty=1.0, seconds_dealt=9.0, fps=5):
    empty, dealt = render_table(EMPTY, DECK, seed=11), render_table(DEAL, DECK, seed=11)
    h, w = dealt.image.shape[:2]
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
    assert out.isOpened()
    for i in range(int((seconds_empty + seconds_dealt) * fps)):
        out.write(empty.image if i < seconds_empty * fps else dealt.image)
    out.release()


def get_json(url):
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.load(resp)


def test_kiosk_run_end_to_end(browser, shots, tmp_path):
    video = tmp_path / "table.mp4"
    render_video(video)
    config = tmp_path / "kiosk.yaml"
    config.write_text(
        "game:\n  button: 3\n  dead: [4]\n  stake: 5\n"
        f"web:\n  floor_pin_hash: \"{hash_pin(PIN, iterations=20_000)}\"\n"
        f"records:\n  media_dir: {tmp_path / 'media'}\n")
    port = free_port()
    db = tmp_path / "records.sqlite"
    log = open(tmp_path / "kiosk.log", "w+")
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiosk", "run", "--config", str(config), "--source", str(video),
         "--port", str(port), "--db", str(db)],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    errors: list[str] = []

    def output():
        log.flush()
        log.seek(0)
        return log.read()[-4000:]

    try:
        deadline = time.monotonic() + 150
        state, ended_at = None, None
        while time.monotonic() < deadline and (ended_at is None or time.monotonic() - ended_at < 15):
            assert proc.poll() is None, f"kiosk run exited with {proc.returncode}:\n{output()}"
            try:
                state = get_json(url + "state")
                # a confident verdict, or the last word once the recording has ended
                ended = state["source"].get("status") == "ended"
                if state["confident"] or (state["verdict"] and ended):
                    break
                if ended and ended_at is None:
                    ended_at = time.monotonic()
            except OSError:
                pass
            time.sleep(0.5)
        assert state and state["verdict"], (
            f"no verdict from the card reader in time (phase {state and state['phase']}, cards read per seat "
            f"{state and [s['card_count'] for s in state['seats']]}); is models/ a trained reader?\n{output()}")
        page = open_page(browser, url, 1280, 800, errors)
        page.wait_for_selector("body[data-verdict=yes]")
        page.screenshot(path=str(shots / "kiosk_run_first_verdict_1280x800.png"))
        # Where the reader was unsure the kiosk asks for a check; the floor corrects each such card.
        doubts = fix_doubtful_cards(page)
        assert page.get_attribute("#headline", "data-kind") == "ok", page.inner_text("#headline")
        check_table_as_dealt(page)
        assert_fits(page)
        page.screenshot(path=str(shots / "kiosk_run_1280x800.png"))

        declare_natural(page, 3)
        page.wait_for_selector("#seat-3 .badge[data-kind=natural]", timeout=15_000)
        correct_card(page, 1, "front", 2, "J", "d", "0000")
        page.wait_for_function("document.getElementById('dlg-card-error').textContent.includes('wrong PIN')")
        assert cards(page, 1, "front") == ["As", "Ad", "Kc"]
        page.fill("#card-pin", PIN)
        page.click("#card-submit")
        page.wait_for_selector('#seat-1 .card.corrected[data-card="Jd"]', timeout=15_000)
        page.wait_for_function(f"[...document.querySelectorAll('#payments li')].map(e => e.innerText.replace(/\\s+/g, ' ').trim()).join('|') === {json.dumps('|'.join(PAYMENTS_AFTER_DRAGON))}")
        page.screenshot(path=str(shots / "kiosk_run_after_actions_1280x800.png"))
        hand_id = page.inner_text("#hand-id")
        page.set_viewport_size({"width": 1024, "height": 600})
        page.screenshot(path=str(shots / "kiosk_run_1024x600.png"))
        assert errors == []
    finally:
        proc.send_signal(signal.SIGTERM)  # what systemd sends; Ctrl-C (SIGINT) has the same handler
        try:
            code = proc.wait(timeout=45)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
            pytest.fail(f"kiosk run did not stop on SIGTERM:\n{output()}")
    assert code == 0, output()

    from kiosk.records.store import HandStore

    record = HandStore(db, create=False).hand(hand_id)
    assert record is not None, f"hand {hand_id} not recorded"
    fixes = [a.action for a in record.actions if a.action.kind == "correct_card"]
    assert [(a.seat, a.row, a.index, a.before, a.after, a.by) for a in fixes] == doubts + [
        (1, "front", 2, "Kc", "Jd", "F7")]
    assert all(a.at > 0 for a in fixes)
    assert record.latest.verdict.showdown["seats"][0]["front"] == ["As", "Ad", "Jd"]

    # Surveillance, later: the hand replayed from its record (frames, actions) gives every verdict
    # the table showed, corrections included.
    replay = subprocess.run([sys.executable, "-m", "kiosk", "replay", hand_id, "--db", str(db)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert replay.returncode == 0 and f"hand {hand_id}: MATCH" in replay.stdout, replay.stdout + replay.stderr
