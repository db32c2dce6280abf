"""The context check (kiosk/vision/context.py): a single picture's readings on card backs that picture
cards are dropped, the face-up cards' readings are kept."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from reader_support import shipped_reader_with, with_settings

MODELS = Path(__file__).resolve().parents[1] / "models"


@pytest.fixture(scope="module")
def reader():
    from kiosk.vision.reader import load_reader

    return load_reader(MODELS)


@pytest.fixture(scope="module")
def kenney_showdown():
    from kiosk_lab.synth.scenes import render_random

    return render_random("showdown", "kenney", seed=4242, size=(1920, 1080))


def _three_backs(scene, image: np.ndarray, back: np.ndarray) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """Three face-down cards with `back` laid side by side on free felt at the scene's card size."""
    import cv2

    polygons = [np.asarray(c["polygon"], np.float32) for c in scene["cards"]]
    card_height = float(np.median([max(cv2.minAreaRect(p)[1]) for p in polygons]))
    f = card_height / back.shape[0]
    back = cv2.resize(back, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    h, w = back.shape[:2]
    covered = np.zeros(image.shape[:2], np.uint8)
    for p in polygons:
        cv2.fillPoly(covered, [p.astype(np.int32)], 255)
    free = cv2.erode(255 - covered, np.ones((h + 20, 3 * w + 40), np.uint8))
    ys, xs = np.nonzero(free)
    y0, x0 = int(ys[len(ys) // 2]) - h // 2, int(xs[len(xs) // 2]) - (3 * w + 20) // 2
    out = image.copy()
    alpha = back[..., 3:4] / 255.0
    for k in range(3):
        x = x0 + k * (w + 10)
        out[y0:y0 + h, x:x + w] = (out[y0:y0 + h, x:x + w] * (1 - alpha) + back[..., :3] * alpha).astype(np.uint8)
    return out, (x0, y0, x0 + 3 * w + 20, y0 + h)


def test_the_shipped_reader_has_a_context_check_for_single_pictures(reader):
    meta = json.loads((MODELS / "reader.json").read_text())
    check = meta["stages"]["context_check"]
    assert check["names"] == ["card", "not"]
    assert reader.settings.stages.context_check.drop == check["drop"] and reader.networks["context_check"] is not None


def test_the_check_is_opened_by_the_first_single_picture_never_by_camera_frames(kenney_showdown):
    """Only single pictures are read by the context check."""
    from kiosk.vision.reader import load_reader

    fresh = load_reader(MODELS)  # the table's start-up (kiosk run, replay) does not pay for opening them
    fresh.read(kenney_showdown.image)
    assert "context_check" not in fresh.networks.opened
    fresh.read_picture(kenney_showdown.image)
    assert "context_check" in fresh.networks.opened


def test_a_reader_without_a_context_check_still_loads_and_is_another_version(tmp_path, reader):
    from kiosk.vision.reader import load_reader

    plain = load_reader(shipped_reader_with(tmp_path, lambda meta: meta["stages"].pop("context_check")))
    assert plain.settings.stages.context_check is None
    assert plain.model_version != reader.model_version  # the shipped reader, loaded once for the module


def test_the_checks_trust_weighing_in_on_one_deck_is_part_of_the_version_only_where_a_deck_is_settled(tmp_path, reader):
    """`one_deck.trust_context`: where two readings claim one card, each claim counts as much as the check trusts the
    reading (kiosk.vision.one_deck). It changes single pictures of one deck, so their version; with
    --many-decks nothing is settled, and the name stays."""
    from kiosk.vision.reader import load_reader

    assert json.loads((MODELS / "reader.json").read_text())["stages"]["one_deck"]["trust_context"] is True
    shipped_reader_with(tmp_path, lambda meta: meta["stages"]["one_deck"].update(trust_context=False))
    untrusting, shipped = load_reader(tmp_path), reader
    assert shipped.settings.stages.one_deck.trust_context and not untrusting.settings.stages.one_deck.trust_context
    assert untrusting.model_version != shipped.model_version
    assert load_reader(tmp_path, many_decks=True).model_version == load_reader(MODELS, many_decks=True).model_version


@pytest.mark.slow
def test_readings_on_backs_that_picture_cards_are_dropped_and_face_up_cards_kept(reader, kenney_showdown):
    """Procedural designs 50, 58 and 60 print a fan of their own cards on the back (as kde-nicu's
    backs print four aces). Read without the check, three such face-down cards beside a kenney
    showdown give readings of cards; the check drops most of them, and nothing of the showdown."""
    from kiosk_lab.synth.procedural import make_design

    blind = with_settings(reader, {"stages": {"context_check": None}})
    on_backs = {"without": 0, "with": 0}
    for seed in (50, 58, 60):
        picture, (x1, y1, x2, y2) = _three_backs(kenney_showdown.scene, kenney_showdown.image,
                                                 make_design(seed, height=240).back)
        for name, r in (("without", blind), ("with", reader)):
            on_backs[name] += sum(x1 <= c.center[0] <= x2 and y1 <= c.center[1] <= y2
                                  for c in r.read_picture(picture).cards)
    assert on_backs["without"] >= 4, on_backs
    assert on_backs["with"] <= on_backs["without"] // 2, on_backs
    plain = sorted(str(c.card) for c in blind.read_picture(kenney_showdown.image).cards)
    checked = sorted(str(c.card) for c in reader.read_picture(kenney_showdown.image).cards)
    assert checked == plain and len(plain) >= 30


@pytest.mark.slow
def test_face_down_rows_of_held_out_seventh_generation_backs_lose_their_readings(reader, procedural_art,
                                                                                   monkeypatch):
    """Procedural designs 352-359 (the seventh generation's backs: a wide, tight fan, as kde-nicu's four aces) were
    held out of the check's training. A 4K table with two seats face up and two face down in rows: read without the
    check, the backs' strips give readings of cards (20 on designs 352-359, 8 on these three); the check drops
    most of them, and the face-up seats read all their 26 cards (the round-2 check, `f921f69697a4`, dropped none)."""
    from kiosk.cards import CLASS_NAMES
    from kiosk_lab.synth.procedural import make_design
    from kiosk_lab.synth.table import SeatLayout, TableLayout, render_table

    from kiosk_lab.training.context import on_face_down

    seeds = (353, 357, 358)
    for seed in seeds:
        procedural_art(make_design(seed))
    blind = with_settings(reader, {"stages": {"context_check": None}})
    hands = [tuple(CLASS_NAMES[k * 13:(k + 1) * 13]) for k in range(4)]
    seats = tuple(SeatLayout(s + 1, front=h[:3], middle=h[3:8], back=h[8:], face_down=s in (1, 3))
                  for s, h in enumerate(hands))
    face_up = sorted(hands[0] + hands[2])
    on_backs = {"without": 0, "with": 0}
    for seed in seeds:
        table = render_table(TableLayout(seats, size=(3840, 2160)), f"procedural-{seed}", 7)
        for name, r in (("without", blind), ("with", reader)):
            cards = r.read_picture(table.image).cards
            on_backs[name] += sum(on_face_down(c.box, table.scene) for c in cards)
            if name == "with":
                assert sorted(str(c.card) for c in cards if not on_face_down(c.box, table.scene)) == face_up
    assert on_backs["without"] >= 5, on_backs
    assert on_backs["with"] <= on_backs["without"] // 2, on_backs


@pytest.mark.slow
def test_the_context_check_is_cut_and_trained_by_kiosk_train_and_read_by_the_reader(tmp_path):
    """The training path of the check (`kiosk train --stage context`): crops cut from a tiny set, then one epoch,
    the weights and reader.json entry written, and the reader loads and uses them. Never judges accuracy."""
    import subprocess
    import sys

    import cv2

    from kiosk_lab.synth.dataset import build
    from kiosk.vision.reader import load_reader

    build("ctx", {"train": 3, "val": 1, "test": 0}, seed=7, out_root=tmp_path, workers=1,
          mix={"showdown": 1.0}, forced={"val": ["kenney"]}, log=lambda *_: None)
    root = Path(__file__).resolve().parents[1]
    runs, out = tmp_path / "runs", tmp_path / "models"
    crops = runs / "prep" / "ctx" / "context"
    out.mkdir()
    for f in MODELS.iterdir():  # the shipped reader, but its own reader.json (rewritten by the training)
        if f.name == "reader.json":
            meta = json.loads(f.read_text())
            # an earlier check (read where it lies: the training writes its own files here) and its line, kept
            earlier = meta["stages"]["context_check"]
            earlier.update(drop=0.85, files={k: str(MODELS / v) for k, v in earlier["files"].items()})
            (out / f.name).write_text(json.dumps(meta))
        elif not f.name.startswith("context-check"):
            (out / f.name).symlink_to(f)
    env = {**os.environ, "PYTHONPATH": str(root)}
    common = ["--stage", "context", "--out", str(out), "--runs", str(runs), "--name", "ctx", "--context-pad", "5.0"]
    # a wider look than the shipped check's (model card, "The context check with a look at the whole card")
    for extra in (["--data", str(tmp_path / "ctx"), "--context-scenes", "3", "--cut-only"],
                  ["--crops", str(crops), "--cls-hours", "0", "--cls-epochs", "1", "--workers", "0"]):
        run = subprocess.run([sys.executable, "-m", "kiosk", "train", *common, *extra], capture_output=True,
                             text=True, timeout=600, cwd=tmp_path, env=env)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        if "--cut-only" in extra:
            assert "(64x64, 5.0 x the index)" in run.stdout, run.stdout[-500:]
            assert not (out / "context-check.pt").exists()
    assert len(list((crops / "train" / "card").glob("*.jpg"))) > 20  # a few dozen face-up cuts from three scenes
    meta = json.loads((out / "reader.json").read_text())
    check = meta["stages"]["context_check"]
    assert check["names"] == ["card", "not"] and check["drop"] == 0.85
    assert meta["stages"]["one_deck"]["trust_context"] is True and check["pad"] == 5.0
    assert all((out / f).exists() for f in check["files"].values())
    reader = load_reader(out)
    assert reader.networks["context_check"] is not None and reader.networks["context_check"].pad == 5.0
    image = cv2.imread(str(next((tmp_path / "ctx" / "images" / "val").glob("*.jpg"))))
    assert reader.read_picture(image, source="ctx").image_size == (image.shape[1], image.shape[0])


@pytest.mark.slow
@pytest.mark.parametrize("photo, cards, extra", [("IMG_2446.JPG", ["Ah"], "3d"), ("IMG_2552.JPG", ["Ac"], "Jk"),
                                                 ("IMG_2569.JPG", ["Jd", "Jh", "As", "Jc"], "Jk")])
def test_real_photos_lose_a_reading_of_no_card_and_keep_their_cards(reader, photo, cards, extra):
    """Real photos (datasets/real/real-photos-ranks) where the index classifier reads a second card in an ace's
    art or beside the cards: the check drops that reading, and only that one. (The extra readings are the turned
    look's, under 0.7, which since `baf3bbcccc6c` (`turned_report`) it no longer adds: read here from the report
    line, as before, so that the check is what is tested.)"""
    from kiosk.vision.images import load_image

    image = load_image(MODELS.parent / "datasets" / "real" / "real-photos-ranks" / photo)
    reader = with_settings(reader, {"stages": {"turned_look": {"report": reader.report_line}}})
    blind = with_settings(reader, {"stages": {"context_check": None}})
    assert sorted(str(c.card) for c in blind.read_picture(image).cards) == sorted(cards + [extra])
    assert sorted(str(c.card) for c in reader.read_picture(image).cards) == sorted(cards)
