"""Reusing the detector's index boxes while the table stands still (kiosk/vision/still.py).

The shipped reader on a rendered showdown: a frame with fresh sensor noise reads its cards at
the indices of the frame before (and reads them the same); a card moved, or a region asked for
that was not searched, runs the detector again; the table pipeline does it by default and not
when the config says `motion.reuse_indices: false`.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from kiosk.table.config import load_config
from kiosk.table.hub import Hub
from kiosk.table.runner import TableRunner
from kiosk.table.sources import Frame
from kiosk.vision.still import AS_FOUND, StillIndices, shrink

MODELS = Path(__file__).resolve().parents[1] / "models"


@pytest.fixture(scope="module")
def reader():
    from kiosk.vision.reader import load_reader

    return load_reader(MODELS)


def _noisy(image, seed, sigma=3.0):
    rng = np.random.default_rng(seed)
    return np.clip(image.astype(np.int16) + rng.normal(0, sigma, image.shape), 0, 255).astype(np.uint8)


def _cards(dets):
    return sorted((str(c.card), tuple(round(v) for v in c.box)) for c in dets.cards)


def test_sensor_noise_is_still_a_moved_card_is_not():
    still = StillIndices(levels=8, max_age=5, searches=1)
    felt = np.full((1080, 1920, 3), (38, 105, 32), np.uint8)
    calls = []

    def find(tag):
        return lambda: calls.append(tag) or [tag]

    assert still.indices(felt, "all", 0, 0.0, find("a")) == (["a"], 0)
    assert still.indices(_noisy(felt, 1), "all", 1, 0.2, find("b")) == (["a"], 0)
    assert still.indices(felt, "seat 1", 2, 0.4, find("c")) == (["c"], 2), "another region: search it"
    card = felt.copy()
    card[400:430, 900:922] = 235  # one corner index's worth of white (22 x 30 px)
    assert still.indices(card, "seat 1", 3, 0.6, find("d")) == (["d"], 3)
    assert still.indices(card, "seat 1", 4, 5.7, find("e")) == (["e"], 4), "older than max_age: search again"
    assert still.indices(card, "seat 1", 5, 6.0, find("f")) == (["e"], 4)
    assert still.indices(card, "seat 1", 6, 4.0, find("g")) == (["g"], 6), "time went back (another source)"
    assert calls == ["a", "c", "d", "e", "g"]


def test_after_its_searches_a_still_table_takes_turns_with_their_finds_cut_a_little_off():
    still = StillIndices(levels=8, max_age=5, searches=3)
    felt = np.full((1080, 1920, 3), (38, 105, 32), np.uint8)
    got = [still.indices(_noisy(felt, i), "all", i, 0.2 * i, lambda i=i: [f"found in {i}"]) + (still.cut,)
           for i in range(8)]
    assert [g[:2] for g in got] == [([f"found in {i % 3}"], i % 3) for i in range(8)]
    assert [g[2] for g in got[:3]] == [AS_FOUND] * 3 == [((0.0, 0.0), 1.0)] * 3, "a searched frame is cut where found"
    cuts = [g[2] for g in got[3:]]
    assert len(set(cuts)) == 5 and AS_FOUND not in cuts, cuts


def test_the_comparison_ignores_noise_and_jpeg_and_sees_an_index():
    """The margin the default of 8 grey levels sits in, on a real rendered frame."""
    from kiosk_lab.synth.scenes import render_random
    from kiosk_lab.synth.art import unseen_decks

    scene = render_random("showdown", unseen_decks(str(MODELS))[0], seed=77, size=(1920, 1080))
    base = shrink(scene.image)
    jpeg = cv2.imdecode(cv2.imencode(".jpg", _noisy(scene.image, 5), [cv2.IMWRITE_JPEG_QUALITY, 90])[1], 1)
    assert np.abs(shrink(jpeg) - base).max() <= 4
    x1, y1, x2, y2 = (round(v) for v in scene.scene["cards"][0]["corners"][0])
    covered = scene.image.copy()
    covered[y1:y2, x1:x2] = covered[max(0, y1 - 60), max(0, x1 - 60)]  # the index under something else
    assert np.abs(shrink(covered) - base).max() > 16


@pytest.mark.slow
def test_a_still_frame_reads_its_cards_at_the_indices_found_before(reader, showdown, monkeypatch):
    searched = []
    real_find = reader.find_indices
    # Counts the detector's runs (the real one still runs): how long it took is not a test (CI machines vary).
    monkeypatch.setattr(reader, "find_indices", lambda *a, **k: searched.append(1) or real_find(*a, **k))
    still = StillIndices(searches=1)
    first = reader.read(showdown.image, frame_index=0, timestamp=0.0, still=still)
    again = reader.read(_noisy(showdown.image, 9), frame_index=1, timestamp=0.2, still=still)
    assert first.meta["indices_from"] == 0 and again.meta["indices_from"] == 0
    assert again.meta["indices"] == first.meta["indices"] and again.frame_index == 1
    assert len(searched) == 1, "the still frame was read without the detector"
    same = set(_cards(first)) & set(_cards(again))
    assert len(same) >= 0.9 * len(first.cards), "the same cards, read again from the new frame's pixels"

    # A card taken away: the detector runs again, and the card is gone.
    gone = first.cards[0]
    x1, y1, x2, y2 = (round(v) for v in gone.box)
    taken = showdown.image.copy()
    taken[y1:y2, x1:x2] = np.median(showdown.image[:40, :40].reshape(-1, 3), axis=0).astype(np.uint8)
    after = reader.read(taken, frame_index=2, timestamp=0.4, still=still)
    assert after.meta["indices_from"] == 2 and len(searched) == 2
    assert not any(c.card == gone.card and c.box[0] >= x1 - 5 and c.box[2] <= x2 + 5 for c in after.cards)


@pytest.mark.slow
@pytest.mark.parametrize("reuse", [True, False])
def test_the_pipeline_reuses_indices_unless_the_config_says_not(reader, showdown, tmp_path, reuse):
    path = tmp_path / "table.yaml"
    path.write_text(f"motion:\n  reuse_indices: {str(reuse).lower()}\n")
    cfg = load_config(path)
    frames = [Frame(_noisy(showdown.image, i), i, 0.25 * i, "noisy") for i in range(5)]
    seen = []
    hub = Hub()
    hub.subscribe(lambda e: seen.append(e.data["detections"].meta["indices_from"]) if e.kind == "frame" else None)
    TableRunner(cfg, frames, reader, hub).run_to_end()
    assert seen == ([0, 1, 0, 1, 0] if reuse else [0, 1, 2, 3, 4]), "two searches, then they take turns"


def test_motion_settings_are_validated(tmp_path):
    from kiosk.errors import KioskError

    path = tmp_path / "table.yaml"
    path.write_text("motion:\n  still_levels: -1\n")
    with pytest.raises(KioskError, match=r"line 2: motion.still_levels"):
        load_config(path)
