"""Dealer display (issue 5): the page state, the Flask routes, SSE, CSRF, the floor PIN, `kiosk pin`.

Everything is real: the hub, the Flask app, the rules engine, the config, and the table
pipeline (`TableRunner`) fed rendered frames of a known deal; its reader is the
ground-truth `SceneReader` (a perfect reader from the rendered labels), so these tests
run in seconds. The browser tests (test_web_browser.py) drive `kiosk run` with the real
card reader.
"""

from __future__ import annotations

import io
import json
import re
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from kiosk.cards import parse_card
from kiosk.cli import main as kiosk_main
from kiosk.rules.api import score_json
from kiosk_lab.synth.table import render_table
from table_support import DEAL, EMPTY
from kiosk.table.config import KioskConfig, load_config
from kiosk_lab.groundtruth import SceneReader
from kiosk.table.hub import Hub
from kiosk.table.runner import TableRunner
from kiosk.table.sources import Frame
from kiosk.table.verdict import CardEvidence, NeedsCheck, Verdict
from kiosk.vision.detections import CardDetection, Detections
from kiosk.web.app import create_app
from kiosk.web.security import AttemptLimiter, hash_pin, verify_pin
from kiosk.web.state import page_state

WEB = Path(__file__).resolve().parent.parent / "kiosk" / "web"
PIN = "246813"

# seat 1 sets a strong hand, seat 2 fouls (middle pair of 8s under front pair of queens),
# seat 3 declared and holds a dragon, seat 4 sets a legal hand.
SHOWDOWN = {
    "button": 4, "stake": 5,
    "seats": [
        {"seat": 1, "front": ["As", "Ad", "Kc"], "middle": ["7s", "7h", "7d", "2c", "2d"],
         "back": ["9s", "Ts", "Js", "Qs", "Ks"]},
        {"seat": 2, "front": ["Qh", "Qd", "3c"], "middle": ["8s", "8c", "4h", "5d", "6c"],
         "back": ["Ah", "Kh", "9h", "6h", "2h"]},
        {"seat": 3, "declared_natural": True,
         "cards": ["2s", "3s", "4s", "5s", "6s", "7c", "8d", "9c", "Tc", "Jc", "Qc", "Kd", "Ac"]},
        {"seat": 4, "front": ["4c", "5c", "Td"], "middle": ["3d", "4d", "6d", "9d", "Jd"],
         "back": ["3h", "5h", "8h", "Th", "Jh"]},
    ],
}
# The table the pipeline sees (table_support.DEAL): seats 1 and 2 as above, seat 3 sets its
# dragon as three rows (a legal hand until it is declared), seat 4 is dead and empty.


def make_verdict(showdown=SHOWDOWN, hand_id="H1", needs_check=(), integrity=(), result=None) -> Verdict:
    evidence = tuple(
        CardEvidence(card=c, seat=s["seat"], row=row, frame_index=7, box=(0, 0, 1, 1), confidence=0.97, votes=5)
        for s in showdown["seats"] for row in ("front", "middle", "back", "cards") for c in s.get(row, []))
    return Verdict(hand_id=hand_id, table="table-1", decided_at=time.time(), frame_index=7,
                   showdown=showdown, result=result if result is not None else score_json(showdown),
                   needs_check=tuple(needs_check), evidence=evidence, integrity=tuple(integrity),
                   model_version="test")


class Table:
    """The real pipeline, fed rendered frames: `show(scene, n)` plays n frames, 0.25 s apart."""

    def __init__(self, cfg, hub):
        self.scenes: dict[int, dict] = {}
        self.runner = TableRunner(cfg, None, SceneReader(self.scenes), hub)
        self.index = 0

    def show(self, rendered, frames: int) -> None:
        for _ in range(frames):
            self.scenes[self.index] = rendered.scene
            self.runner.process(Frame(image=rendered.image, index=self.index, timestamp=self.index * 0.25,
                                      source="rendered"))
            self.index += 1


@pytest.fixture(scope="module")
def rendered():
    deck = "kennard-2c"  # committed CC0 art: always here
    return {"deal": render_table(DEAL, deck, seed=5), "empty": render_table(EMPTY, deck, seed=5)}


@pytest.fixture()
def hub():
    return Hub()


@pytest.fixture()
def actions(hub):
    seen = []
    hub.subscribe(lambda e: e.kind == "action" and seen.append(e.data["action"]))
    return seen


@pytest.fixture()
def cfg():
    return KioskConfig.model_validate({
        "game": {"dead": [4], "button": 3, "stake": 5},
        "web": {"floor_pin_hash": hash_pin(PIN, iterations=1000), "pin_attempts_per_minute": 5},
    })


@pytest.fixture()
def table(cfg, hub, rendered):
    t = Table(cfg, hub)
    t.show(rendered["empty"], 3)
    t.show(rendered["deal"], 12)
    assert t.runner.state.phase == "verdict", t.runner.state.phase
    return t


@pytest.fixture()
def app(hub, table, cfg):
    app = create_app(hub, table.runner, cfg, heartbeat=0.2)
    app.testing = True
    yield app
    app.config["KIOSK_LIVE"].close()


@pytest.fixture()
def client(app):
    return app.test_client()


def csrf_of(client) -> str:
    html = client.get("/").get_data(as_text=True)
    return re.search(r'<meta name="csrf-token" content="([^"]+)"', html).group(1)


def seat_of(state, n):
    return next(s for s in state["seats"] if s["seat"] == n)


# ---------------------------------------------------------------- page_state (pure)

def test_fixture_showdown_is_what_the_tests_say_it_is():
    cards = [c for s in SHOWDOWN["seats"] for r in ("front", "middle", "back", "cards") for c in s.get(r, [])]
    assert len(cards) == len(set(cards)) == 52
    assert "error" not in score_json(SHOWDOWN)


def test_page_state_before_any_verdict_waits_and_shows_settings():
    s = page_state(None, "waiting", hand_id="H9",
                   settings={"button": 2, "dead": [4], "stake": 10.0, "stacks": {1: 300.0}, "declared": [3]})
    assert s["headline"] == {"kind": "waiting", "text": "Waiting for cards"}
    assert s["button"] == 2 and s["stake"] == 10
    assert [seat_of(s, n)["badge"]["text"] for n in (1, 2, 3, 4)] == ["WAITING", "WAITING", "NATURAL DECLARED", "DEAD"]
    assert seat_of(s, 1)["stack"] == 300 and seat_of(s, 2)["is_button"]
    assert s["payments"] == [] and s["grid"] is None and not s["pay_held"]


def test_page_state_seats_show_rows_as_read_and_a_status_in_words():
    s = page_state(make_verdict(), "verdict", hand_id="H1")
    s1, s2, s3, s4 = (seat_of(s, n) for n in (1, 2, 3, 4))
    assert [c["text"] for c in s1["rows"][0]["cards"]] == ["As", "Ad", "Kc"]  # front, as read
    assert [r["row"] for r in s1["rows"]] == ["front", "middle", "back"]
    assert s1["badge"]["kind"] == "set" and s1["badge"]["text"] == "SET"
    assert s2["badge"]["text"] == "FOUL"
    assert "middle (pair of 8s) does not beat front (pair of queens)" in s2["badge"]["detail"]
    assert s3["badge"]["text"] == "NATURAL: DRAGON"
    assert len(s3["pile"]) == 13 and all(not r["cards"] for r in s3["rows"])
    assert s4["is_button"] and s4["badge"]["kind"] == "set"
    assert s["headline"]["kind"] == "ok" and s["confident"]


def test_page_state_cards_say_ten_and_use_the_colour_setting():
    s = page_state(make_verdict(), "verdict", four_colour=True)
    front4 = {c["text"]: c for c in seat_of(s, 4)["rows"][0]["cards"]}
    back4 = {c["text"]: c for c in seat_of(s, 4)["rows"][2]["cards"]}
    assert front4["Td"]["rank"] == "10" and front4["Td"]["symbol"] == "\u2666"
    assert front4["Td"]["colour"] == "blue" and front4["4c"]["colour"] == "green"
    assert back4["Th"]["colour"] == "red" and back4["Th"]["symbol"] == "\u2665"
    two = page_state(make_verdict(), "verdict")
    assert {c["colour"] for c in seat_of(two, 4)["rows"][1]["cards"]} == {"red"}
    assert {c["colour"] for c in seat_of(two, 4)["rows"][0]["cards"]} == {"black", "red"}
    assert seat_of(two, 3)["pile"][5]["colour"] == "black"  # 7c


def test_page_state_payments_follow_the_rules_worked_example_with_caps():
    """RULES §8 (D-10) worked example: seats 1-3, button 3, stake 10, stacks 30/50/100."""
    showdown = {"button": 3, "stake": 10, "seats": [{"seat": 1, "stack": 30}, {"seat": 2, "stack": 50},
                                                    {"seat": 3, "stack": 100}, {"seat": 4, "dead": True}]}
    result = {
        "seats": [{"seat": 1, "status": "set", "points": 7}, {"seat": 2, "status": "set", "points": -10},
                  {"seat": 3, "status": "set", "points": 3}, {"seat": 4, "status": "dead", "points": 0}],
        "pairs": [{"seats": [1, 2], "points": 6}, {"seats": [1, 3], "points": 1}, {"seats": [2, 3], "points": -4}],
        "transfers": [{"from": 2, "to": 1, "amount": 30}, {"from": 2, "to": 3, "amount": 20}],
        "shortfalls": [{"from": 2, "to": 1, "amount": 30}, {"from": 3, "to": 1, "amount": 10},
                       {"from": 2, "to": 3, "amount": 20}],
    }
    s = page_state(make_verdict(showdown, result=result), "verdict")
    assert s["payments"] == [
        {"n": 1, "from": 2, "to": 1, "amount": 30, "shortfall": 30},
        {"n": 2, "from": 3, "to": 1, "amount": 0, "shortfall": 10},
        {"n": 3, "from": 2, "to": 3, "amount": 20, "shortfall": 20},
    ]
    assert s["grid"] == {"seats": [1, 2, 3], "matrix": [[None, 6, 1], [-6, None, -4], [-1, 4, None]]}
    assert s["totals"] == [{"seat": 1, "points": 7}, {"seat": 2, "points": -10}, {"seat": 3, "points": 3}]
    assert seat_of(s, 4)["dead"] and seat_of(s, 4)["badge"]["text"] == "DEAD"


def test_page_state_payment_order_runs_clockwise_from_the_button():
    """D-10: button on seat 2 -> order 3, 4, 1, 2."""
    showdown = dict(SHOWDOWN, button=2)
    s = page_state(make_verdict(showdown), "verdict")
    pairs = [(p["from"], p["to"]) for p in s["payments"]]
    order = [3, 4, 1, 2]
    keys = [sorted((order.index(a), order.index(b))) for a, b in pairs]
    assert keys == sorted(keys) and len(keys) == len(set(map(tuple, keys)))


def test_page_state_needs_check_names_the_card_and_holds_payments():
    check = NeedsCheck(seat=4, reason="card at middle 2 read as 4d or 4h (confidence 0.61)", card="4d")
    s = page_state(make_verdict(needs_check=[check]), "verdict")
    s4 = seat_of(s, 4)
    assert s4["badge"]["kind"] == "check" and s4["badge"]["text"] == "NEEDS CHECK"
    assert "4d" in s4["badge"]["detail"] and "middle 2" in s4["badge"]["detail"]
    assert [c["doubt"] for c in s4["rows"][1]["cards"]] == [False, True, False, False, False]
    assert s["pay_held"] and s["payments"] == [] and s["totals"] == []
    assert s["headline"]["kind"] == "check" and "DO NOT PAY" in s["headline"]["text"]
    assert "seat 4" in s["headline"]["text"] and "4d" in s["headline"]["text"]
    assert all(seat["points"] is None for seat in s["seats"])
    # the pipeline does not score such a hand: the check is the reason, said once
    unscored = page_state(make_verdict(needs_check=[check], result={"error": f"not scored: seat 4: {check.reason}"}),
                          "verdict")
    assert unscored["headline"] == s["headline"]
    assert unscored["hold_reasons"] == ["Seat 4: card at middle 2 read as 4d or 4h (confidence 0.61)"]


def test_page_state_integrity_problem_and_unscorable_hand_are_never_scored():
    s = page_state(make_verdict(integrity=["duplicate card: 7h at seat 2 and seat 4"]), "verdict")
    assert s["pay_held"] and s["headline"]["kind"] == "check" and "duplicate card" in s["headline"]["text"]
    bad = page_state(make_verdict(result={"error": "seat 2 front: 'Xx' is not a card"}), "verdict")
    assert bad["headline"]["kind"] == "error" and "seat 2 front" in bad["headline"]["text"]
    assert bad["payments"] == [] and bad["grid"] is None
    assert bad["hold_reasons"] == ["seat 2 front: 'Xx' is not a card"]


def test_page_state_never_shows_the_previous_hands_verdict():
    s = page_state(make_verdict(hand_id="H1"), "cards_down", hand_id="H2")
    assert not s["verdict"] and s["payments"] == [] and s["hand_id"] == "H2"
    assert s["headline"]["kind"] == "waiting"


def test_page_state_marks_short_rows():
    showdown = {"seats": [{"seat": 1, "front": ["As", "Ad"], "middle": ["2c", "3c", "4c", "5c", "6c"],
                           "back": ["7d", "8d", "9d", "Td", "Jd"]}]}
    s = page_state(make_verdict(showdown, result={"error": "x"}), "verdict")
    assert [r["short"] for r in seat_of(s, 1)["rows"]] == [True, False, False]


# ---------------------------------------------------------------- security helpers

def test_pin_hash_is_salted_pbkdf2_and_checks_exactly():
    a, b = hash_pin(PIN, iterations=1000), hash_pin(PIN, iterations=1000)
    assert a != b and a.startswith("pbkdf2_sha256$1000$") and PIN not in a
    assert verify_pin(PIN, a) and verify_pin(PIN, b)
    assert not verify_pin("2469", a) and not verify_pin("", a) and not verify_pin(PIN, None)


def test_attempt_limiter_backs_off_instead_of_locking_out():
    now = [0.0]
    limiter = AttemptLimiter(free=3, base_delay=1, max_delay=8, forget=600, clock=lambda: now[0])
    assert [limiter.begin("a") for _ in range(3)] == [0, 0, 0]  # free, the 3rd sets a 1 s wait
    assert limiter.begin("a") > 30 and limiter.begin("b") == 0  # nobody tries while it is checked
    now[0] = 0.5
    limiter.failed("a")  # the answer: the wait starts now
    assert limiter.begin("a") == 1
    now[0] = 1.5
    assert limiter.begin("a") == 0  # the 4th
    limiter.failed("a")
    assert limiter.begin("a") == 2
    for t in (3.5, 7.5, 15.5):
        now[0] = t
        assert limiter.begin("a") == 0
        limiter.failed("a")
    assert limiter.begin("a") == 8  # never more than max_delay: a delay, not a lockout
    limiter.succeeded("a")  # the right PIN clears the count
    assert limiter.begin("a") == 0 and limiter.attempts_left("a") == 2
    for _ in range(3):
        limiter.begin("c")
        limiter.failed("c")
    now[0] += 600  # quiet for `forget` seconds: the count starts again
    assert limiter.begin("c") == 0 and limiter.attempts_left("c") == 2


# ---------------------------------------------------------------- routes

def test_page_renders_with_csrf_token_and_only_local_assets(client, table):
    resp = client.get("/")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200
    assert re.search(r'<meta name="csrf-token" content="[^"]{20,}"', html)
    assert table.runner.state.hand_id in html  # the initial state is in the page
    for ref in re.findall(r'(?:src|href)="([^"]+)"', html):
        assert ref.startswith("/static/"), ref
        assert client.get(ref).status_code == 200


def test_no_asset_or_template_reaches_for_the_network():
    for path in list((WEB / "static").rglob("*")) + list((WEB / "templates").glob("*.html")):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", text, re.I), path
            assert "@import" not in text and "@font-face" not in text, path


def test_state_shows_the_table_as_the_pipeline_read_it(client, table):
    state = client.get("/state").get_json()
    assert state["hand_id"] == table.runner.state.hand_id and state["phase"] == "verdict"
    s1, s2, s3, s4 = (seat_of(state, n) for n in (1, 2, 3, 4))
    assert [[c["text"] for c in r["cards"]] for r in s1["rows"]] == [
        ["As", "Ad", "Kc"], ["7s", "7h", "7d", "2c", "2d"], ["9s", "Ts", "Js", "Qs", "Ks"]]
    assert (s1["badge"]["text"], s2["badge"]["text"], s3["badge"]["text"], s4["badge"]["text"]) == (
        "SET", "FOUL", "SET", "DEAD")
    assert "middle (pair of 8s) does not beat front (pair of queens)" in s2["badge"]["detail"]
    assert s3["is_button"] and state["stake"] == 5
    # Button on 3, seat 4 dead: order 1, 2, 3 (D-10), stake 5. Seat 2 fouled pays seat 1 the scoop 6
    # plus its royalties 2 (middle full house) + 5 (back straight flush) and seat 3 the scoop 6 (D-8);
    # seat 1 scoops seat 3: 6 + 7 royalties (D-6); no super bonus with 2 opponents (D-7).
    assert [(p["n"], p["from"], p["to"], p["amount"], p["shortfall"]) for p in state["payments"]] == [
        (1, 2, 1, 65, 0), (2, 3, 1, 65, 0), (3, 2, 3, 30, 0)]
    assert state["totals"] == [{"seat": 1, "points": 26}, {"seat": 2, "points": -19}, {"seat": 3, "points": -7}]


def _events(chunks):
    """Parse SSE text into (fields) dicts."""
    out = []
    text = "".join(c.decode() if isinstance(c, bytes) else c for c in chunks)
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        ev = {}
        for line in block.split("\n"):
            key, _, value = line.partition(": ")
            ev[key] = ev.get(key, "") + value if key == "data" else value
        out.append(ev)
    return out


def test_sse_sends_state_with_ids_then_changes_then_heartbeats(app, client, table, rendered):
    resp = client.get("/events", headers={"Last-Event-ID": "old-3"})
    assert resp.mimetype == "text/event-stream"
    assert resp.headers["Cache-Control"] == "no-cache"
    stream = resp.response  # the live generator
    hello, first = _events([next(stream)])[0], _events([next(stream)])[0]
    assert hello["retry"] == "2000" and hello["event"] == "hello"
    assert json.loads(hello["data"])["resumed_from"] == "old-3"
    live = app.config["KIOSK_LIVE"]
    assert first["event"] == "state" and first["id"] == f"{live.boot}-{live.version}"
    hand = json.loads(first["data"])["hand_id"]
    assert hand == table.runner.state.hand_id

    table.show(rendered["empty"], 12)  # the dealer sweeps the cards: 3 s of empty felt
    ids, phases = [first["id"]], []
    while table.runner.state.hand_id == hand or not phases or phases[-1]["hand_id"] == hand:
        ev = _events([next(stream)])[0]
        if ev["event"] == "state":
            ids.append(ev["id"])
            phases.append(json.loads(ev["data"]))
    assert len(set(ids)) == len(ids)
    now = phases[-1]
    assert now["hand_id"] != hand and not now["verdict"] and now["payments"] == []  # never stale
    assert all(seat["card_count"] == 0 for seat in now["seats"])

    t0 = time.monotonic()
    while (beat := _events([next(stream)])[0])["event"] != "heartbeat":
        pass
    assert "id" not in beat and time.monotonic() - t0 < 2
    assert json.loads(beat["data"])["frame_age"] < 60  # the page warns when the camera stalls
    live.close()
    assert _events(list(stream))[-1]["event"] == "bye"


def test_camera_view_outlines_read_cards_without_touching_the_frame(hub, cfg):
    client = create_app(hub, None, cfg).test_client()
    assert client.get("/camera.jpg").status_code == 404
    image = np.zeros((1080, 1920, 3), np.uint8)
    det = CardDetection(card=parse_card("Qh"), confidence=0.97, box=(400.0, 300.0, 600.0, 500.0))
    hub.publish("frame", frame_index=12, timestamp=0.4, image=image, hand_id="H1",
                detections=Detections(cards=(det,), image_size=(1920, 1080), frame_index=12), snapshot=None)
    resp = client.get("/camera.jpg")
    assert resp.status_code == 200 and resp.mimetype == "image/jpeg"
    assert resp.headers["X-Frame-Index"] == "12" and resp.headers["X-Cards"] == "1"
    shown = cv2.imdecode(np.frombuffer(resp.data, np.uint8), cv2.IMREAD_COLOR)
    assert shown.shape == (720, 1280, 3)
    b, g, r = shown[267, 267]  # left edge of the box (x 400, y 300-500), scaled by 2/3
    assert g > 150 and r < 100 and b < 100
    assert shown[600, 100].max() < 30  # outside the box: the black frame
    assert image.max() == 0  # the hub's frame is shared: never drawn on


def test_camera_view_of_the_live_table(client, table):
    resp = client.get("/camera.jpg")
    assert resp.status_code == 200 and resp.headers["X-Cards"] == "39"


def test_post_without_or_with_a_wrong_csrf_token_is_refused_and_changes_nothing(client, table, actions):
    csrf_of(client)
    before = table.runner.state
    for headers in ({}, {"X-CSRF-Token": "not-the-token"}):
        resp = client.post("/action", json={"kind": "declare_natural", "seat": 3}, headers=headers)
        assert resp.status_code == 400 and "CSRF" in resp.get_json()["error"]
        resp = client.post("/correct", json={**CORRECTION, "pin": PIN}, headers=headers)
        assert resp.status_code == 400
    assert actions == [] and table.runner.state == before


def test_declared_natural_is_verified_and_other_actions_reach_the_table(client, table, actions):
    token = csrf_of(client)
    resp = client.post("/action", json={"kind": "declare_natural", "seat": 3}, headers={"X-CSRF-Token": token})
    assert resp.status_code == 200 and resp.get_json() == {"ok": True, "message": "seat 3 declared a natural"}
    state = client.get("/state").get_json()
    assert seat_of(state, 3)["badge"]["text"] == "NATURAL: DRAGON" and seat_of(state, 3)["declared"]
    # seat 2's cards are no natural: a false declaration stays a foul (D-4)
    resp = client.post("/action", json={"kind": "declare_natural", "seat": 2}, headers={"X-CSRF-Token": token})
    assert resp.status_code == 200
    badge = seat_of(client.get("/state").get_json(), 2)["badge"]
    assert badge["text"] == "FOUL" and "do not hold it (D-4)" in badge["detail"]
    for body in ({"kind": "move_button", "seat": 1}, {"kind": "set_stake", "value": "25"},
                 {"kind": "set_stack", "seat": 1, "value": 500}, {"kind": "set_dead", "seat": 2, "value": True}):
        resp = client.post("/action", json=body, headers={"X-CSRF-Token": token})
        assert resp.status_code == 200, resp.get_json()
    assert [(a.kind, a.seat) for a in actions][2:] == [
        ("move_button", 1), ("set_stake", None), ("set_stack", 1), ("set_dead", 2)]
    assert all(a.hand_id == table.runner.state.hand_id and a.at > 0 for a in actions)
    st = table.runner.state
    assert (st.button, st.stake, st.stacks, st.dead, st.declared) == (1, 25, {1: 500}, (2, 4), (2, 3))
    state = client.get("/state").get_json()
    assert state["button"] == 1 and state["stake"] == 25 and seat_of(state, 2)["badge"]["text"] == "DEAD"
    assert seat_of(state, 1)["stack"] == 500
    assert state["last_action"]["kind"] == "set_dead" and state["last_action"]["ok"]
    resp = client.post("/action", json={"kind": "set_stake", "value": 100, "pair": [1, 3]},
                       headers={"X-CSRF-Token": token})
    assert resp.get_json()["message"] == "stake 100 a point between seats 1 and 3"
    state = client.get("/state").get_json()
    assert state["pair_stakes"] == [{"seats": [1, 3], "stake": 100}] and state["stake"] == 25
    resp = client.post("/action", data={"kind": "new_hand", "csrf_token": token})  # a form post works too
    assert resp.status_code == 200 and table.runner.state.hand_id != state["hand_id"]


@pytest.mark.parametrize("body, words", [
    ({"kind": "declare_natural", "seat": 7}, "no seat 7"),
    ({"kind": "move_button", "seat": "x"}, "seat must be a number"),
    ({"kind": "set_dead", "seat": 2, "value": "yes"}, "true (dead) or false"),
    ({"kind": "set_stack", "seat": 2, "value": -5}, "zero or more"),
    ({"kind": "set_stake", "value": 0}, "more than zero"),
    ({"kind": "set_stake", "value": 5, "pair": [1, 1]}, "two different seats"),
    ({"kind": "explode"}, "unknown action"),
])
def test_bad_actions_are_refused_with_a_reason(client, table, actions, body, words):
    before = table.runner.state
    resp = client.post("/action", json=body, headers={"X-CSRF-Token": csrf_of(client)})
    assert resp.status_code == 400 and words in resp.get_json()["error"]
    assert actions == [] and table.runner.state == before


def test_actions_without_a_pipeline_say_so(hub, cfg):
    client = create_app(hub, None, cfg).test_client()
    resp = client.post("/action", json={"kind": "new_hand"}, headers={"X-CSRF-Token": csrf_of(client)})
    assert resp.status_code == 503 and "not running" in resp.get_json()["error"]


# Kc -> Jd: Jd is not on the table (seat 4 is dead and empty), so the hand stays legal.
CORRECTION = {"seat": 1, "row": "front", "index": 2, "before": "Kc", "after": "Jd", "by": "F7"}


def test_wrong_pin_changes_nothing(app, client, table, actions):
    token = csrf_of(client)
    before, page = table.runner.state, client.get("/state").get_json()
    version = app.config["KIOSK_LIVE"].version
    resp = client.post("/correct", json={**CORRECTION, "pin": "1357"}, headers={"X-CSRF-Token": token})
    assert resp.status_code == 403
    assert resp.get_json() == {"error": "wrong PIN: nothing was changed", "attempts_left": 4}
    assert actions == [] and table.runner.state == before and app.config["KIOSK_LIVE"].version == version
    after = client.get("/state").get_json()
    assert after["seats"] == page["seats"] and after["payments"] == page["payments"]


def test_pin_attempts_are_rate_limited_even_for_the_right_pin(client, table, actions):
    token = csrf_of(client)
    for left in (4, 3, 2, 1, 0):
        resp = client.post("/correct", json={**CORRECTION, "pin": "0000"}, headers={"X-CSRF-Token": token})
        assert resp.status_code == 403 and resp.get_json()["attempts_left"] == left
    resp = client.post("/correct", json={**CORRECTION, "pin": PIN}, headers={"X-CSRF-Token": token})
    assert resp.status_code == 429 and int(resp.headers["Retry-After"]) > 0
    assert actions == []


def test_correction_with_the_floor_pin_is_applied_and_recorded(client, table, actions):
    token = csrf_of(client)
    t0 = time.time()
    resp = client.post("/correct", json={**CORRECTION, "pin": PIN}, headers={"X-CSRF-Token": token})
    assert resp.status_code == 200, resp.get_json()
    (action,) = actions
    assert (action.kind, action.seat, action.row, action.index, action.before, action.after, action.by) == (
        "correct_card", 1, "front", 2, "Kc", "Jd", "F7")
    assert t0 <= action.at <= time.time() and action.hand_id == table.runner.state.hand_id
    assert table.runner.state.verdict.showdown["seats"][0]["front"] == ["As", "Ad", "Jd"]
    state = client.get("/state").get_json()
    assert [c["text"] for c in seat_of(state, 1)["rows"][0]["cards"]] == ["As", "Ad", "Jd"]
    assert seat_of(state, 1)["corrections"][0]["before"] == "Kc"
    assert seat_of(state, 1)["badge"]["text"] == "SET"
    # the card has changed: the same correction again is stale and refused
    resp = client.post("/correct", json={**CORRECTION, "pin": PIN}, headers={"X-CSRF-Token": token})
    assert resp.status_code == 409 and "is now Jd, not Kc" in resp.get_json()["error"]


@pytest.mark.parametrize("change, words", [
    ({"after": "Zz"}, "not a card"),
    ({"row": "side"}, "row must be one of"),
    ({"by": ""}, "who authorises"),
    ({"index": 9}, "no card at front 10"),
    ({"after": "Kc"}, "already Kc"),
])
def test_bad_corrections_are_refused_after_the_pin(client, table, actions, change, words):
    resp = client.post("/correct", json={**CORRECTION, "pin": PIN, **change},
                       headers={"X-CSRF-Token": csrf_of(client)})
    assert resp.status_code in (400, 409) and words in resp.get_json()["error"]
    assert actions == []


def test_corrections_need_a_pin_to_be_set(hub, table, actions):
    client = create_app(hub, table.runner, KioskConfig()).test_client()
    resp = client.post("/correct", json={**CORRECTION, "pin": PIN}, headers={"X-CSRF-Token": csrf_of(client)})
    assert resp.status_code == 403 and "kiosk pin" in resp.get_json()["error"]
    assert actions == []


def test_healthz_reports_a_lost_camera(client, hub):
    assert client.get("/healthz").status_code == 200
    hub.publish("source", status="lost", detail="camera 0 unplugged")
    resp = client.get("/healthz")
    assert resp.status_code == 503 and resp.get_json()["source"]["status"] == "lost"
    assert client.get("/state").get_json()["source"]["detail"] == "camera 0 unplugged"


# ---------------------------------------------------------------- kiosk pin

def test_kiosk_pin_stores_only_a_hash_and_keeps_the_rest_of_the_file(tmp_path, monkeypatch, capsys):
    path = tmp_path / "kiosk.yaml"
    path.write_text("# table 7 by the window\ntable:\n  name: t7\nweb:\n  port: 5001  # kiosk 2\n")
    monkeypatch.setattr("sys.stdin", io.StringIO("975310\n"))
    assert kiosk_main(["pin", "--config", str(path), "--stdin"]) == 0
    text = path.read_text()
    assert "975310" not in text and "# table 7 by the window" in text and "port: 5001  # kiosk 2" in text
    cfg = load_config(path)
    assert cfg.table.name == "t7" and cfg.web.port == 5001
    assert verify_pin("975310", cfg.web.floor_pin_hash) and not verify_pin("975311", cfg.web.floor_pin_hash)
    monkeypatch.setattr("sys.stdin", io.StringIO("12345\n"))
    assert kiosk_main(["pin", "--config", str(path), "--stdin"]) == 2
    assert "6 to 12 digits" in capsys.readouterr().err
    assert path.read_text() == text


def test_kiosk_pin_refuses_to_break_a_config(tmp_path, monkeypatch, capsys):
    path = tmp_path / "kiosk.yaml"
    path.write_text("game:\n  button: 9\n")
    monkeypatch.setattr("sys.stdin", io.StringIO("975310\n"))
    assert kiosk_main(["pin", "--config", str(path), "--stdin"]) == 2
    assert "game.button" in capsys.readouterr().err
    assert path.read_text() == "game:\n  button: 9\n"


# ---------------------------------------------------------------- kiosk run: user mistakes

def test_kiosk_run_names_a_bad_config_line(tmp_path, capsys):
    path = tmp_path / "kiosk.yaml"
    path.write_text("web:\n  port: 5000\n  colour: blue\n")
    assert kiosk_main(["run", "--config", str(path), "--no-record"]) == 2
    err = capsys.readouterr().err
    assert "line 3" in err and "web.colour" in err and "Traceback" not in err


def test_kiosk_run_says_when_the_port_is_taken(tmp_path, capsys):
    import socket

    cv2.imwrite(str(tmp_path / "frame.jpg"), np.zeros((90, 160, 3), np.uint8))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = kiosk_main(["run", "--source", str(tmp_path), "--port", str(port), "--no-record"])
    assert code == 1
    err = capsys.readouterr().err
    assert f"port {port} on 127.0.0.1 is already in use" in err and "Traceback" not in err


def test_page_links_the_floor_review_when_recording(hub, tmp_path):
    from kiosk.records.store import HandStore

    html = create_app(hub, None, None, HandStore(tmp_path / "k.sqlite")).test_client().get("/").get_data(True)
    assert 'id="link-review" href="/review/"' in html
    assert "link-review" not in create_app(hub).test_client().get("/").get_data(True)


def test_cards_show_while_being_read_before_the_verdict(cfg, hub, rendered):
    t = Table(cfg, hub)
    app = create_app(hub, t.runner, cfg)
    t.show(rendered["empty"], 3)
    t.show(rendered["deal"], 1)
    state = app.test_client().get("/state").get_json()
    assert not state["verdict"] and state["payments"] == [] and state["headline"]["kind"] == "waiting"
    seat1 = seat_of(state, 1)
    assert seat1["badge"]["text"] == "READING" and seat1["points"] is None
    assert [c["text"] for c in seat1["rows"][2]["cards"]] == ["9s", "Ts", "Js", "Qs", "Ks"]
    app.config["KIOSK_LIVE"].close()


def test_page_says_starting_until_the_pipeline_is_attached(cfg, hub, rendered):
    from kiosk.web.app import attach_runner

    app = create_app(hub, None, cfg)
    client = app.test_client()
    assert client.get("/state").get_json()["phase_text"] == "Starting the kiosk"
    t = Table(cfg, hub)
    attach_runner(app, t.runner)
    state = client.get("/state").get_json()
    assert state["phase"] == "waiting" and state["hand_id"] == t.runner.state.hand_id
    app.config["KIOSK_LIVE"].close()


def test_service_supervision_feeds_the_watchdog_and_exits_when_the_pipeline_dies(cfg, hub):
    import threading

    from kiosk.commands.run import _supervise

    runner = TableRunner(cfg, None, SceneReader({}), hub)  # no source: its thread ends at once
    app = create_app(hub, runner, cfg)
    runner.start()
    runner.join(5)
    told: list[str] = []
    assert _supervise(runner, app, threading.Event(), 0.3, told.append) == 1  # died: systemd restarts it

    hub.publish("source", status="ended", detail="recording ended")  # a finite recording ended normally
    stop = threading.Event()
    threading.Timer(1.5, stop.set).start()
    assert _supervise(runner, app, stop, 0.3, told.append) == 0
    assert told.count("WATCHDOG=1") >= 2
    app.config["KIOSK_LIVE"].close()


def test_systemd_notifications_reach_the_notify_socket(tmp_path, monkeypatch):
    import os
    import socket

    from kiosk.web.service import sd_notify, watchdog_interval

    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert sd_notify("READY=1") is False  # not under systemd: nothing to tell
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        monkeypatch.setenv("NOTIFY_SOCKET", path)
        assert sd_notify("READY=1")
        assert sock.recv(100) == b"READY=1"
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert watchdog_interval() == 15.0
    monkeypatch.setenv("WATCHDOG_PID", "1")
    assert watchdog_interval() is None


def test_floor_confirms_a_card_the_kiosk_was_unsure_of(cfg, hub, rendered, actions):
    from kiosk_lab.groundtruth import Noise

    t = Table(cfg, hub)
    t.runner.reader.noise = Noise(swaps={"Kc": ("Jd", 0.55)})  # read as Jd, unsure, every frame
    t.show(rendered["empty"], 3)
    t.show(rendered["deal"], 12)
    client = create_app(hub, t.runner, cfg).test_client()
    state = client.get("/state").get_json()
    assert state["pay_held"] and seat_of(state, 1)["badge"]["text"] == "NEEDS CHECK"
    token = csrf_of(client)
    resp = client.post("/correct", json={**CORRECTION, "before": "Jd", "after": "Jd", "pin": PIN},
                       headers={"X-CSRF-Token": token})
    assert resp.status_code == 200, resp.get_json()
    assert [(a.kind, a.before, a.after) for a in actions] == [("correct_card", "Jd", "Jd")]
    state = client.get("/state").get_json()
    assert state["confident"] and seat_of(state, 1)["badge"]["text"] == "SET" and state["payments"]
    # a card read with confidence is not "confirmed": nothing to correct
    resp = client.post("/correct", json={**CORRECTION, "before": "Jd", "after": "Jd", "pin": PIN},
                       headers={"X-CSRF-Token": token})
    assert resp.status_code == 400 and "already Jd" in resp.get_json()["error"]
