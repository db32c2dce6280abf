"""Pai Gow at the table: config, spots, the stabiliser and judge through PaiGowRunner, records,
replay and review. Frames are rendered tables (kiosk_lab.synth.paigow_demo); the reader is the
ground truth of each rendered scene (`SceneReader`), with noise where a test needs doubt."""

from __future__ import annotations

import pytest

from kiosk.errors import KioskError
from kiosk.paigow.api import score_paigow_json
from kiosk.paigow.runner import PaiGowRunner, runner_class
from kiosk_lab.synth.paigow_demo import demo_tables, render_spots
from kiosk.table.config import KioskConfig, for_game, load_config
from kiosk_lab.groundtruth import Noise, SceneReader
from kiosk.table.hub import Hub
from kiosk.table.runner import TableRunner
from kiosk.table.sources import Frame

FPS = 10.0
BETS = {"bets": {1: 25, 2: 10, 3: 50, 4: 10, 5: 20, 6: 15, 7: 30}}


def cfg_of(**paigow) -> KioskConfig:
    return KioskConfig.model_validate({"game": {"name": "paigow"}, "paigow": {**BETS, **paigow}})


@pytest.fixture(scope="module")
def joker_hand():
    """Demo hand 3: the joker in seat 7's straight; its table object and a rendered frame."""
    t = demo_tables()[2]
    return t, render_spots(t["spots"]), render_spots({})


def play(cfg, segments, noise=None, hub=None):
    """Rendered scenes each held for a number of frames, through PaiGowRunner; its verdicts."""
    frames, scenes = [], {}
    for rendered, count in segments:
        for _ in range(count):
            scenes[len(frames)] = rendered.scene
            frames.append(rendered.image)
    source = [Frame(img, i, i / FPS, "rendered") for i, img in enumerate(frames)]
    runner = PaiGowRunner(cfg, source, SceneReader(scenes, noise), hub)
    return runner.run_to_end()


def test_the_game_is_chosen_per_table_and_validated(tmp_path):
    assert runner_class(load_config(None)) is TableRunner
    assert runner_class(cfg_of()) is PaiGowRunner
    path = tmp_path / "t.yaml"
    path.write_text("game:\n  name: paigow\npaigow:\n  house_way: bellagio\n")
    with pytest.raises(KioskError, match="line 4: paigow.house_way: unknown house_way 'bellagio'"):
        load_config(path)
    path.write_text("paigow:\n  bets: {9: 10}\n")
    with pytest.raises(KioskError, match="paigow.bets"):
        load_config(path)
    path.write_text("paigow:\n  house_ways:\n    - {name: riverside, two_pair: [[2, often]]}\n")
    with pytest.raises(KioskError, match="house_ways.0: house way 'riverside'"):
        load_config(path)
    demo = for_game(load_config(None), "paigow")
    assert demo.source.endswith("paigow.mp4") and demo.paigow.bets[3] == 50


def test_a_rendered_table_is_read_and_scored_as_kiosk_score_scores_it(joker_hand):
    truth, table, empty = joker_hand
    verdicts = play(cfg_of(), [(empty, 3), (table, 12), (empty, 12)])
    assert len(verdicts) == 1
    v = verdicts[0]
    assert v.confident and v.showdown == truth["table"]
    assert v.result == score_paigow_json(truth["table"])
    assert {(e.seat, e.row) for e in v.evidence if e.card == "Jk"} == {(7, "high")}
    seven = next(s for s in v.result["seats"] if s["seat"] == 7)
    assert (seven["outcome"], seven["net"], seven["commission"]) == ("win", 28.5, 1.5)


def test_a_doubtful_card_needs_a_dealer_check_and_is_never_scored(joker_hand):
    truth, table, empty = joker_hand
    verdicts = play(cfg_of(), [(empty, 3), (table, 12), (empty, 12)], noise=Noise(swaps={"Jk": ("Js", 0.55)}))
    v = verdicts[-1]
    assert not v.confident and "error" in v.result and v.result["game"] == "paigow"
    assert any(c.seat == 7 and c.card == "Js" and "seat 7 high" in c.reason for c in v.needs_check)


def test_a_card_read_at_two_places_is_never_scored_through():
    spots = {0: (["Kc", "Kd", "9h", "5s", "3d"], ["Qs", "Jh"]),
             1: (["As", "Ah", "4c", "6d", "7h"], ["Qh", "Kd"])}  # Kd twice
    v = play(cfg_of(), [(render_spots(spots), 12)])[-1]
    assert v.integrity == ("duplicate card Kd: banker high and seat 1 low",)
    assert v.result["error"].startswith("not scored: duplicate card Kd")


def test_a_spot_without_a_bet_or_short_of_cards_is_checked_not_scored():
    spots = {0: (["Kc", "Kd", "9h", "5s", "3d"], ["Qs", "Jh"]), 5: (["As", "Ah", "4c", "6d"], ["Qh", "Td"])}
    v = play(cfg_of(bets={}), [(render_spots(spots), 10)])[-1]
    reasons = [c.reason for c in v.needs_check]
    assert "seat 5: 6 cards read, 7 expected" in reasons and "seat 5: no bet (config paigow.bets)" in reasons


def test_a_player_banker_banks_on_its_own_spot_with_its_stack_checked():
    spots = {3: (["Kc", "Kd", "9h", "5s", "3d"], ["Qs", "Jh"]), 1: (["As", "Ah", "4c", "6d", "7h"], ["Qh", "Td"]),
             2: (["2s", "2h", "4d", "6c", "7c"], ["Ac", "Ad"])}
    v = play(cfg_of(banker=3, banker_stack=30), [(render_spots(spots), 12)])[-1]
    assert v.showdown["banker"] == {"seat": 3, "high": ["Kc", "Kd", "9h", "5s", "3d"], "low": ["Qs", "Jh"],
                                    "stack": 30}
    assert [s["seat"] for s in v.showdown["seats"]] == [1, 2]
    assert any("stack" in w for w in v.result["warnings"])  # 30 < 25 + 10


class ImageSceneReader:
    """Readings of a known rendered scene chosen by what the (decoded) image looks like, so a
    replay depends on the recorded frames themselves."""

    model_version = "scene-by-image"

    def __init__(self, rendered):
        import cv2

        self._cv2 = cv2
        self.scenes = [(self._thumb(r.image), r.scene) for r in rendered]

    def _thumb(self, image):
        grey = self._cv2.cvtColor(image, self._cv2.COLOR_BGR2GRAY)
        return self._cv2.resize(grey, (64, 36), interpolation=self._cv2.INTER_AREA).astype(float)

    def read(self, image, rois=None, frame_index=0, timestamp=0.0, source=""):
        import numpy as np

        from kiosk_lab.groundtruth import detections_from_scene

        t = self._thumb(image)
        _, scene = min(self.scenes, key=lambda s: float(((s[0] - t) ** 2).mean()))
        return detections_from_scene(scene, frame_index, timestamp, source, None, np.random.default_rng(frame_index))


def test_a_pai_gow_hand_is_recorded_replayed_and_reviewed(tmp_path, joker_hand):
    from kiosk.records.recorder import Recorder
    from kiosk.records.replay import replay_hand
    from kiosk.records.store import HandStore
    from kiosk.web.app import create_app

    truth, table, empty = joker_hand
    cfg = cfg_of()
    store = HandStore(tmp_path / "kiosk.sqlite")
    hub = Hub()
    rec = Recorder(store, hub, cfg, tmp_path / "media", clip_fps=FPS, clip_max_frames=60, max_pending_frames=200)
    runner = PaiGowRunner(cfg, None, ImageSceneReader([empty, table]), hub)
    for i, r in enumerate([empty] * 5 + [table] * 15 + [empty] * 20):
        runner.process(Frame(r.image, i, i / FPS, "live"))
    runner.finish()
    assert rec.flush()
    rec.close()
    [hand_id] = store.hand_ids()
    assert store.hand(hand_id).first.verdict == runner.verdicts[0]

    replay = replay_hand(store, hand_id, ImageSceneReader([empty, table]))
    assert replay.match, [str(d) for c in replay.checks for d in c.differences]

    client = create_app(Hub(), None, cfg, store).test_client()
    page = client.get(f"/review/hands/{hand_id}").get_data(as_text=True)
    assert "banker pays seat 7 28.50 (30 less 1.50 commission)" in page
    assert "seat 4: high lose, low win: push" in page and "Banker" in page
    listing = client.get("/review/").get_data(as_text=True)
    assert hand_id in listing
    assert client.get(f"/review/hands/{hand_id}/report.pdf").status_code == 200
    store.close()


def test_the_display_shows_the_cards_as_read_before_the_verdict_then_the_verdict(joker_hand):
    from kiosk.web.live import LiveState

    truth, table, empty = joker_hand
    players_only = render_spots({s: v for s, v in truth["spots"].items() if s != 0})
    hub = Hub()
    cfg = cfg_of()
    live = LiveState(hub, None, cfg)
    runner = PaiGowRunner(cfg, None, ImageSceneReader([empty, players_only, table]), hub)
    live.attach(runner)
    for i, r in enumerate([players_only] * 8):
        runner.process(Frame(r.image, i, i / FPS, "live"))
    state = live.state()
    assert state["verdict"] is None and state["banker"] is None  # the banker has not opened: no verdict
    assert {s["seat"]: s["badge"] for s in state["spots"]} == {2: "7 of 7", 4: "7 of 7", 7: "7 of 7"}
    seven = next(s for s in state["spots"] if s["seat"] == 7)
    assert [c["text"] for c in seven["high"]] == truth["table"]["seats"][2]["high"]
    for i, r in enumerate([table] * 10, start=8):
        runner.process(Frame(r.image, i, i / FPS, "live"))
    state = live.state()
    assert state["verdict"]["confident"] and state["headline"] == {"kind": "ok", "text": "Verdict"}
    assert state["banker"]["follows_house_way"] is True
    assert [p["text"] for p in state["payments"]] == [
        "banker pays seat 2 9.50 (10 less 0.50 commission)", "seat 4: push, bet returned",
        "banker pays seat 7 28.50 (30 less 1.50 commission)"]
    assert state["house_commission"] == 2
    live.close()
