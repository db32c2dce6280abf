"""Replay: a recorded hand's frames back through the same TableRunner give the recorded verdicts (issue 6).

The table is rendered (kiosk_lab.synth), run live through TableRunner with the Recorder on its
hub, then replayed from the record alone. The reader here recognises which rendered scene
a frame shows *from the decoded image* (nearest thumbnail) and returns that scene's exact
readings, so the replay depends on the recorded frames themselves, not on frame numbers.
"""

from __future__ import annotations

import subprocess
import sys

import cv2
import numpy as np
import pytest

from kiosk.records.recorder import Recorder
from kiosk.records.replay import format_report, replay_hand
from kiosk.records.store import HandStore
from kiosk_lab.synth.table import SeatLayout, TableLayout, render_table
from kiosk.table.actions import DealerAction
from kiosk.table.config import load_config
from kiosk_lab.groundtruth import detections_from_scene, set_hands, shuffled_deck
from kiosk.table.hub import Hub
from kiosk.table.runner import TableRunner
from kiosk.table.sources import Frame

FPS = 10.0


class ImageSceneReader:
    """Readings of a known rendered scene, chosen by what the image looks like."""

    model_version = "scene-by-image"

    def __init__(self, rendered):
        self.scenes = [(self._thumb(r.image), r.scene) for r in rendered]

    @staticmethod
    def _thumb(image):
        return cv2.resize(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (64, 36), interpolation=cv2.INTER_AREA).astype(float)

    def read(self, image, rois=None, frame_index=0, timestamp=0.0, source=""):
        t = self._thumb(image)
        _, scene = min(self.scenes, key=lambda s: float(((s[0] - t) ** 2).mean()))
        return detections_from_scene(scene, frame_index, timestamp, source, None, np.random.default_rng(frame_index))


@pytest.fixture(scope="module")
def table():
    hands = set_hands(shuffled_deck(11))
    showdown = render_table(TableLayout(tuple(SeatLayout(s, **rows) for s, rows in hands.items())), "kennard-2c", 11)
    empty = render_table(TableLayout(tuple(SeatLayout(s) for s in (1, 2, 3, 4))), "kennard-2c", 11)
    return empty, showdown


def play_live(tmp_path, table, correct_after: int | None = None, **clip):
    """The live table: empty felt, the showdown held, (a floor correction), the felt cleared."""
    empty, showdown = table
    cfg = load_config(None)
    store = HandStore(tmp_path / "kiosk.sqlite")
    hub = Hub()
    clip = {"clip_fps": FPS, "clip_max_frames": 60, "max_pending_frames": 200, **clip}
    rec = Recorder(store, hub, cfg, tmp_path / "media", **clip)
    reader = ImageSceneReader([empty, showdown])
    runner = TableRunner(cfg, None, reader, hub)
    timeline = [empty] * 8 + [showdown] * 30 + [empty] * 25
    for i, r in enumerate(timeline):
        runner.process(Frame(r.image, i, i / FPS, "live"))
        if correct_after is not None and i == correct_after:
            v = runner.state.verdict
            assert v is not None, "the hand should be decided before the correction"
            seat1 = next(s for s in v.showdown["seats"] if s["seat"] == 1)
            before = seat1["front"][0]
            # Every card is dealt, so any correction makes a duplicate: the kiosk must then stop
            # scoring (RULES §7), a revision the replay must reproduce all the same.
            after = next(s for s in v.showdown["seats"] if s["seat"] == 2)["front"][0]
            runner.apply(DealerAction("correct_card", seat=1, row="front", index=0, before=before, after=after,
                                      by="floor-4", at=1.7e9, hand_id=v.hand_id))
    runner.finish()
    assert rec.flush()
    rec.close()
    return store, reader, runner


def test_recorded_hand_replays_to_the_same_verdict(tmp_path, table):
    store, reader, runner = play_live(tmp_path, table)
    assert len(runner.verdicts) == 1
    live = runner.verdicts[0]
    [hand_id] = store.hand_ids()
    hand = store.hand(hand_id)
    assert hand.first.verdict == live
    clip = next(m for m in hand.first.media if m.role == "clip")
    indices = [f["frame_index"] for f in clip.meta["frames"]]
    assert indices[0] == 0 and indices == sorted(indices)
    assert indices[-1] > live.frame_index - 1  # up to the frame the verdict was decided on
    store.close()

    replay = replay_hand(HandStore(tmp_path / "kiosk.sqlite"), hand_id, ImageSceneReader(table))
    assert replay.match, [str(d) for c in replay.checks for d in c.differences]
    assert [c.revision for c in replay.checks] == [0]
    assert replay.frames == len(indices)


def test_replay_says_when_the_clip_lacks_frames_the_table_read(tmp_path, table):
    """Over the clip budget the middle of the hand is left out: the record counts it, the replay says so."""
    store, reader, runner = play_live(tmp_path, table, clip_fps=0, clip_head_frames=3, clip_max_frames=8)
    [hand_id] = store.hand_ids()
    clip = next(m for m in store.hand(hand_id).first.media if m.role == "clip")
    assert len(clip.meta["frames"]) == 8
    decided = store.hand(hand_id).first.verdict.frame_index
    assert clip.meta["dropped"] == decided + 1 - 8
    replay = replay_hand(store, hand_id, ImageSceneReader(table))
    assert any(f"lacks {decided + 1 - 8} frames the kiosk read live" in n for n in replay.notes), replay.notes
    assert f"note: the clip lacks {decided + 1 - 8} frames" in format_report([replay])


def test_replay_reproduces_a_floor_correction_revision(tmp_path, table):
    store, reader, runner = play_live(tmp_path, table, correct_after=30)
    [hand_id] = store.hand_ids()
    hand = store.hand(hand_id)
    assert [r.revision for r in hand.revisions] == [0, 1]
    assert [a.action.kind for a in hand.actions] == ["correct_card"]
    assert hand.revisions[1].verdict == runner.verdicts[1]
    assert "error" in hand.revisions[1].verdict.result and hand.revisions[1].verdict.integrity
    replay = replay_hand(store, hand_id, ImageSceneReader(table))
    assert replay.match, [str(d) for c in replay.checks for d in c.differences]
    assert [c.revision for c in replay.checks] == [0, 1]


def test_changed_rule_replay_shows_its_differences(tmp_path, table):
    store, reader, runner = play_live(tmp_path, table)
    [hand_id] = store.hand_ids()
    recorded = store.hand(hand_id).first.verdict
    replay = replay_hand(store, hand_id, ImageSceneReader(table), profile="two-four")
    assert not replay.match
    [check] = replay.checks
    paths = [d.path for d in check.differences]
    assert "showdown.profile" in paths and "result.profile" in paths
    # The cards read are the same; only what the rules make of them differs.
    assert not [p for p in paths if p.startswith("showdown.seats") or p.startswith("needs_check")]
    # two-four scores a scoop 4, not 6: points move, and the report says by how much.
    points = {d.path: (d.recorded, d.replayed) for d in check.differences
              if d.path.startswith("result.seats[") and d.path.endswith("].points")}
    assert points, paths
    for path, (before, after) in points.items():
        seat = int(path.split("[")[1].split("]")[0])
        assert before == recorded.result["seats"][seat]["points"]
        assert after == check.replayed.result["seats"][seat]["points"]
    assert any("two-four" in n for n in replay.notes)


def test_replay_refuses_frames_the_record_does_not_vouch_for(tmp_path, table):
    from kiosk.errors import KioskError

    store, reader, runner = play_live(tmp_path, table)
    [hand_id] = store.hand_ids()
    clip = next(m for m in store.hand(hand_id).first.media if m.role == "clip")
    path = store.media_abspath(clip.path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(KioskError, match=r"the clip of record \d+ was altered"):
        replay_hand(store, hand_id, ImageSceneReader(table))


def test_replay_of_a_missing_hand_is_a_clear_error(tmp_path):
    HandStore(tmp_path / "kiosk.sqlite").close()
    proc = subprocess.run(
        [sys.executable, "-m", "kiosk", "replay", "no-such-hand", "--db", str(tmp_path / "kiosk.sqlite")],
        capture_output=True, text=True,
    )
    assert proc.returncode == 2
    assert "no recorded hand 'no-such-hand'" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_replay_with_the_real_reader_matches_the_live_verdict(tmp_path):
    """The shipped card reader, live at a camera's 5 fps as `kiosk run` sets it up (reading the
    JPEG the recorder keeps), then on the recorder's own clip with its default settings:
    surveillance must get the verdict the table got, borderline readings included."""
    from table_support import DEAL, EMPTY

    from kiosk.vision.reader import load_reader

    reader = load_reader("models")
    empty, deal = render_table(EMPTY, "kennard-2c", 5), render_table(DEAL, "kennard-2c", 5)
    cfg = load_config(None)
    store = HandStore(tmp_path / "kiosk.sqlite")
    hub = Hub()
    rec = Recorder(store, hub, cfg, tmp_path / "media")
    runner = TableRunner(cfg, None, reader, hub, jpeg_quality=rec.jpeg_quality)
    for i, r in enumerate([empty] * 3 + [deal] * 12 + [empty] * 8):
        runner.process(Frame(r.image, i, i / 5.0, "live"))
    runner.finish()
    assert rec.flush()
    rec.close()
    [hand_id] = store.hand_ids()
    clip = store.hand(hand_id).first.media
    [indices] = [[f["frame_index"] for f in m.meta["frames"]] for m in clip if m.role == "clip"]
    decided = store.hand(hand_id).first.verdict.frame_index
    assert indices == list(range(decided + 1)), indices  # every frame up to the verdict, none paced out
    replay = replay_hand(store, hand_id, reader)
    assert replay.match, [str(d) for c in replay.checks for d in c.differences]
    assert replay.notes == (), replay.notes


@pytest.mark.slow
def test_the_second_hand_of_a_live_table_replays_to_its_verdict(tmp_path):
    """Two hands at a live table with the shipped reader: live, the second hand began with the
    pipeline's memory of the first (where a still table's indices were: kiosk/vision/still.py);
    its replay starts from its own clip alone and must reach the verdict the table got."""
    from table_support import DEAL, EMPTY

    from kiosk.vision.reader import load_reader

    reader = load_reader("models")
    second = TableLayout(tuple(SeatLayout(s, **rows) for s, rows in set_hands(shuffled_deck(12)).items()))
    empty, deal, deal2 = (render_table(t, "kennard-2c", 5) for t in (EMPTY, DEAL, second))
    cfg = load_config(None)
    store = HandStore(tmp_path / "kiosk.sqlite")
    hub = Hub()
    rec = Recorder(store, hub, cfg, tmp_path / "media")
    runner = TableRunner(cfg, None, reader, hub, jpeg_quality=rec.jpeg_quality)
    for i, r in enumerate([empty] * 3 + [deal] * 10 + [empty] * 8 + [deal2] * 10 + [empty] * 8):
        runner.process(Frame(r.image, i, i / 5.0, "live"))
    runner.finish()
    assert rec.flush()
    rec.close()
    hands = [h for h in store.hand_ids() if store.hand(h).first.verdict.showdown["seats"]]
    assert len(hands) == 2, hands
    last = store.hand(hands[-1]).first.verdict
    assert last.frame_index > 21 and len([c for s in last.showdown["seats"] for r in ("front", "middle", "back")
                                          for c in s.get(r, [])]) >= 40
    replay = replay_hand(store, hands[-1], reader)
    assert replay.match, [str(d) for c in replay.checks for d in c.differences]


@pytest.mark.slow
def test_kiosk_replay_of_a_video_matches_what_the_recording_kiosk_read(tmp_path, capsys):
    """A table filmed to a file, read by a recording kiosk (as `kiosk run` sets it up) with the
    shipped reader; hours later `kiosk replay VIDEO` runs the file through the pipeline again."""
    from table_support import DEAL, EMPTY

    from kiosk.cli import main
    from kiosk.table.sources import open_source
    from kiosk.vision.reader import load_reader

    empty, deal = render_table(EMPTY, "kennard-2c", 5), render_table(DEAL, "kennard-2c", 5)
    video = tmp_path / "table.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 5, (1920, 1080))
    for r in [empty] * 3 + [deal] * 12 + [empty] * 8:
        writer.write(r.image)
    writer.release()
    cfg = load_config(None).model_copy(update={"source": str(video)})
    store = HandStore(tmp_path / "kiosk.sqlite")
    hub = Hub()
    rec = Recorder(store, hub, cfg, tmp_path / "media")
    source = open_source(video, realtime=False, loop=False)
    TableRunner(cfg, source, load_reader("models"), hub, jpeg_quality=rec.jpeg_quality).run_to_end()
    assert rec.flush()
    rec.close()
    [hand_id] = store.hand_ids()
    store.close()

    code = main(["replay", str(video), "--db", str(tmp_path / "kiosk.sqlite")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"hand {hand_id}: MATCH" in out and "1 of 1 hands match the record" in out
