"""End to end: the demo recording and rendered tables through the whole pipeline.

1. The demo video itself (decoded by OpenCV, frame by frame, as `kiosk run` plays it), with
   the exact labels of each frame (re-rendered from its ground truth): phases, verdicts and
   the time from the last seat opening to the verdict.
2. The real card reader (models/) on rendered tables of unseen deck designs and on the demo.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from kiosk.table.config import DEMO_RECORDING, load_config
from kiosk_lab.groundtruth import DemoScenes, SceneReader
from kiosk.table.hub import Hub
from kiosk.table.runner import TableRunner
from kiosk.table.sources import open_source

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"
TRUTH = DEMO_RECORDING.with_suffix(".json")

needs_demo = pytest.mark.skipif(not DEMO_RECORDING.exists(), reason="the demo recording is not rendered yet")
needs_reader = pytest.mark.skipif(not (MODELS / "reader.json").exists(), reason="no trained card reader in models/ yet")


def seats_only(showdown: dict) -> list:
    return showdown["seats"]


@pytest.fixture(scope="module")
def demo_truth():
    return json.loads(TRUTH.read_text())


@pytest.mark.slow
@needs_demo
def test_demo_recording_hand_by_hand_with_exact_labels(demo_truth):
    scenes = DemoScenes(demo_truth)
    hub = Hub()
    events = []
    hub.subscribe(lambda e: events.append(e) if e.kind in ("phase", "verdict", "source") else None)
    source = open_source(None)  # no argument: the demo, as `kiosk run` plays it
    runner = TableRunner(load_config(None), source, SceneReader(scenes), hub)
    verdicts = runner.run_to_end()
    assert len(verdicts) == len(demo_truth["hands"]) == 3
    opened = scenes.last_opened()
    fps = demo_truth["fps"]
    for k, (v, hand) in enumerate(zip(verdicts, demo_truth["hands"])):
        if scenes.readable(k):
            assert v.confident, (k, v.needs_check, v.integrity)
            assert seats_only(v.showdown) == hand["showdown"]["seats"], hand["note"]
            assert v.result["button"] == hand["showdown"]["button"]  # the truth's payments are the kiosk's
            first = next(e.data["verdict"] for e in events if e.kind == "verdict" and e.data["verdict"].hand_id == v.hand_id)
            assert (first.frame_index - opened[k]) / fps <= 1.0  # the verdict within a second of the last opening
        else:  # cards the recording itself hides can never be read: never a confident verdict
            assert not v.confident
    statuses = [[s["status"] for s in v.result["seats"]] for v in verdicts if "seats" in v.result]
    assert ["set", "fouled", "set", "set"] in statuses  # hand 1: seat 2 fouled
    assert ["set", "set", "set", "dead"] in statuses  # hand 3: seat 4 dead, seen as a face-down pile
    phases = [e.data["phase"] for e in events if e.kind == "phase"]
    assert phases.count("cleared") >= 2 and phases[0] == "cards_down"
    assert [e.data["status"] for e in events if e.kind == "source"] == ["connected", "ended"]


@needs_demo
def test_demo_plays_like_a_camera_for_kiosk_run():
    """What `kiosk run` needs: the demo opened with no argument, paced and looped."""
    source = open_source(None, realtime=True, loop=True)
    frames = []
    for frame in source:
        frames.append(frame)
        if len(frames) == 4:
            source.close()
    assert frames[0].image.shape == (1080, 1920, 3)
    assert frames[3].timestamp == pytest.approx(3 / source.fps)


# -- the real card reader ------------------------------------------------------------------


@pytest.fixture(scope="module")
def reader():
    from kiosk.vision.reader import load_reader

    return load_reader(MODELS)


@pytest.fixture(scope="module")
def rendered_reads(reader):
    """Eight rendered tables of an unseen deck, 5 noisy frames each, through the real reader:
    [(verdict, truth)]."""
    from kiosk_lab.synth.table import SeatLayout, TableLayout, render_table
    from kiosk_lab.synth.art import unseen_decks
    from kiosk_lab.groundtruth import set_hands, shuffled_deck
    from kiosk.table.sources import Frame

    deck = (unseen_decks() or ["kenney"])[0]
    out = []
    for seed in range(77, 85):
        hands = set_hands(shuffled_deck(seed))
        scene = render_table(TableLayout(tuple(SeatLayout(s, **rows) for s, rows in hands.items())), deck, seed,
                             {"noise": 2.0, "blur": 0.4, "lighting": 0.15})
        rng = np.random.default_rng(0)
        frames = [Frame(np.clip(scene.image + rng.normal(0, 2, scene.image.shape), 0, 255).astype(np.uint8), i, i * 0.2, "r")
                  for i in range(5)]
        [v] = TableRunner(load_config(None), frames, reader, Hub()).run_to_end()
        out.append((v, [{"seat": s, **{r: list(c) for r, c in rows.items()}} for s, rows in hands.items()]))
    return out


@pytest.mark.slow
@needs_reader
def test_real_reader_is_never_confidently_wrong_on_a_rendered_table(rendered_reads):
    for v, want in rendered_reads:
        if v.showdown["seats"] != want:
            assert not v.confident and (v.needs_check or v.integrity), "a wrong read must be flagged"
        if v.confident:
            assert v.showdown["seats"] == want


@pytest.mark.slow
@needs_reader
def test_real_reader_reads_most_rendered_tables_exactly(rendered_reads):
    """The shipped reader reads all 8 of these tables exactly, with kenney (the design a fresh clone has)
    and with anglo-poker; the rendered-hands bench, with smaller cards, reads 83% (docs/pipeline.md)."""
    exact = [v.showdown["seats"] == want for v, want in rendered_reads]
    assert sum(exact) >= 6, [(v.needs_check, v.integrity) for (v, _), ok in zip(rendered_reads, exact) if not ok]


@pytest.fixture(scope="module")
def demo_analyzed():
    """`kiosk analyze --json` on the demo recording with the real reader: (exit code, hands)."""
    import contextlib
    import io

    from kiosk.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["analyze", str(DEMO_RECORDING), "--json"])
    return code, json.loads(out.getvalue())


@pytest.mark.slow
@needs_reader
@needs_demo
def test_kiosk_analyze_on_the_demo_is_never_confidently_wrong(demo_analyzed, demo_truth):
    code, hands = demo_analyzed
    assert code in (0, 1) and len(hands) == 3
    for got, want in zip(hands, demo_truth["hands"]):
        if got["showdown"]["seats"] != want["showdown"]["seats"]:
            assert not got["confident"] and got["needs_check"], want["note"]


@pytest.mark.slow
@needs_reader
@needs_demo
def test_kiosk_analyze_reads_the_demo_exactly(demo_analyzed, demo_truth):
    _, hands = demo_analyzed
    scenes = DemoScenes(demo_truth)
    for k, (got, want) in enumerate(zip(hands, demo_truth["hands"])):
        if scenes.readable(k):
            assert got["showdown"]["seats"] == want["showdown"]["seats"], (want["note"], got["needs_check"])
            assert got["confident"], (want["note"], got["needs_check"])


def test_live_runner_thread_on_a_camera_like_stream(tmp_path):
    """start() / stop() / join(): a stream read by its grabber thread, the verdict published live."""
    import time

    from kiosk.table.sources import LiveSource

    from test_stabilizer import expected_showdown, seat, table

    full = table(*(seat(n) for n in (1, 2, 3, 4)))
    path = tmp_path / "cam.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 10, (1920, 1080))
    for _ in range(10):
        writer.write(full.image)
    writer.release()
    hub = Hub()
    got = []
    hub.subscribe(lambda e: got.append(e.data["verdict"]) if e.kind == "verdict" else None)
    source = LiveSource(str(path), retry=(0.05, 0.1))  # the file ends and is reopened: an endless stream
    runner = TableRunner(load_config(None), source, SceneReader(lambda i: full.scene), hub)
    runner.start()
    deadline = time.monotonic() + 20
    while not got and time.monotonic() < deadline:
        time.sleep(0.05)
    assert runner.is_alive()
    runner.stop()
    runner.join(5)
    assert not runner.is_alive() and runner.error is None
    assert got and got[0].showdown == expected_showdown() and got[0].confident
    assert runner.state.phase == "verdict"


@needs_demo
def test_pipeline_benchmark_prints_its_figures(tmp_path, capsys):
    from kiosk.cli import main

    out = tmp_path / "figures.json"
    assert main(["bench", "pipeline", "--truth", "--frames", "60", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "frame -> updated state: median" in text and "hand 1: exact, confident; verdict" in text
    figures = json.loads(out.read_text())
    assert figures["frames"] == 60 and figures["frame_to_state_ms"]["median"] > 0
    assert figures["hands"][0]["seconds_after_last_opened"] <= 1.0


@pytest.mark.slow
@needs_reader
def test_bench_keeps_readings_and_replays_them_without_the_reader(reader, tmp_path):
    """`kiosk bench pipeline --reads FILE`: the first run reads the hands and writes the file; the
    next replays them through the table stages alone, to the same figures; `--floor` drops readings."""
    from kiosk.errors import KioskError
    from kiosk_lab.bench.pipeline import RecordedReads, rendered_accuracy

    class NoReader:
        model_version = reader.model_version

        def read(self, *a, **k):
            raise AssertionError("a recorded hand was read again")

    cfg, path = load_config(None), tmp_path / "reads.json"
    first = rendered_accuracy(cfg, reader, 2, 4, decks=["kenney"], reads=(rec := RecordedReads(path, reader.model_version, 4)))
    rec.save()
    assert first["exact"] >= 1
    again = rendered_accuracy(cfg, NoReader(), 2, 4, decks=["kenney"], reads=RecordedReads(path, reader.model_version, 4))
    keys = ("exact", "exact_in_order", "not_confident", "misses")
    assert {k: again[k] for k in keys} == {k: first[k] for k in keys}
    blind = rendered_accuracy(cfg, NoReader(), 2, 4, decks=["kenney"], reads=RecordedReads(path, reader.model_version, 4),
                              floor=1.01)
    assert blind["exact"] == 0
    with pytest.raises(KioskError, match="4 frames a hand at 1920x1080; this run is .*, 6 frames a hand at 1920x1080"):
        RecordedReads(path, reader.model_version, 6)
    with pytest.raises(KioskError, match="4 frames a hand at 1920x1080; this run is .*, 4 frames a hand at 3840x2160"):
        RecordedReads(path, reader.model_version, 4, (3840, 2160))  # readings of another camera are not replayed


@pytest.mark.slow
@needs_reader
def test_a_4k_camera_reads_through_the_same_stages(reader):
    """`kiosk bench pipeline --rendered-size 3840x2160`: a 4K camera over the same felt, every card
    twice as many pixels tall. The stages hold no pixel sizes of their own: the hand reads exactly."""
    from kiosk_lab.bench.pipeline import rendered_accuracy

    seen = []

    class Seeing:
        model_version, takes_still = reader.model_version, reader.takes_still

        def read(self, image, *args, **kwargs):
            seen.append(image.shape[:2])
            return reader.read(image, *args, **kwargs)

    # seed 1001: every face-up card shows an index (the renders of 1000 and 1002 hide one: left out)
    got = rendered_accuracy(load_config(None), Seeing(), 1, 4, seed=1001, decks=["kenney"], size=(3840, 2160))
    assert set(seen) == {(2160, 3840)} and got["frame_size"] == "3840x2160" and got["hands"] == 1
    assert got["exact"] == 1 and got["confident_wrong"] == 0 and got["not_confident"] == 0


def test_bench_names_what_the_dealer_checks_in_hands_read_exactly_but_not_confidently(capsys):
    """`kiosk bench pipeline --show-misses`: a hand read exactly yet left for the dealer says why
    (here the exact labels with a reader's noise, 3 frames a hand: some cards too seldom read)."""
    import re

    from kiosk_lab.bench.pipeline import rendered_accuracy

    got = rendered_accuracy(load_config(None), None, 6, 3, decks=["kenney"], show_misses=True)
    shown = capsys.readouterr().out
    unsure_misses = sum(1 for m in got["misses"] if m["needs_check"] or m["integrity"])
    blocks = re.findall(r"  unsure: rendered hand \d+ \(seed \d+, kenney\): read exactly((?:\n      check: .+)*)", shown)
    assert len(blocks) == got["not_confident"] - unsure_misses >= 1, shown
    assert all(block.count("check: ") >= 1 for block in blocks), shown
