"""The corner-labelled real photos (datasets/real/real-photos-corners): their fixed split, `kiosk eval` on them,
and cutting them into training data (`kiosk train --real`)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import cv2
import pytest

from kiosk_lab.training.corner_set import BACK, corner_items
from kiosk_lab.training.prepare import PrepareConfig
from kiosk_lab.training.prepare_real import INDEX_PX, add_classifier_crops, add_detector_photos

REPO = Path(__file__).resolve().parents[1]
CORNERS = REPO / "datasets" / "real" / "real-photos-corners"


def test_the_split_holds_the_black_deck_out_and_keeps_each_shoot_block_on_one_side():
    split = dict(line.split(",") for line in (CORNERS / "split.csv").read_text().split()[1:])
    assert Counter(split.values()) == {"train": 330, "test": 108, "unseen": 138}
    assert {name for name, s in split.items() if s == "unseen"} == {
        name for name in split if not name.startswith("IMG_2022")}
    # Photos taken seconds apart show the same cards: a block of ten consecutive photos never straddles the split.
    shoot = sorted(name for name in split if name.startswith("IMG_2022"))
    for start in range(0, len(shoot), 10):
        assert len({split[name] for name in shoot[start:start + 10]}) == 1
    assert len(split) == len(list((CORNERS / "images").glob("*.jpg")))


def test_corner_labels_name_cards_in_pixels_and_backs_only_when_asked():
    (image, boxes), = [item for item in corner_items(CORNERS, "train") if item[0].name.startswith("IMG_20220921_193915")]
    assert [card for card, _ in boxes] == ["5c", "5c"]
    height, width = cv2.imread(str(image)).shape[:2]
    assert all(0 <= x1 < x2 <= width and 0 <= y1 < y2 <= height for _, (x1, y1, x2, y2) in boxes)
    with_backs = [card for _, boxes in corner_items(CORNERS, "unseen", backs=True) for card, _ in boxes]
    without = [card for _, boxes in corner_items(CORNERS, "unseen") for card, _ in boxes]
    assert BACK in with_backs and BACK not in without


@pytest.fixture()
def small_set(tmp_path):
    """Three train photos and one test photo of the real set, in a set of their own."""
    root = tmp_path / "corners"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    shutil.copy(CORNERS / "data.yaml", root)
    names = {"IMG_20220921_193915_jpg.jpg": "train", "IMG_20220921_194905_jpg.jpg": "train",
             "IMG_20220921_200633_jpg.jpg": "train", "IMG_20220921_194050_jpg.jpg": "test"}
    for name in names:
        shutil.copy(CORNERS / "images" / name, root / "images")
        shutil.copy((CORNERS / "labels" / name).with_suffix(".txt"), root / "labels")
    (root / "split.csv").write_text("image,split\n" + "".join(f"{n},{s}\n" for n, s in names.items()))
    return root


def test_real_photos_become_detector_tiles_with_indices_of_the_learned_size(small_set, tmp_path):
    out = tmp_path / "det"
    (out / "images" / "train").mkdir(parents=True)
    (out / "labels" / "train").mkdir(parents=True)
    cfg = PrepareConfig(tile=416)
    assert add_detector_photos(small_set, out, cfg, copies=2, progress=lambda _: None) == 6  # the test photo stays out
    for label in (out / "labels" / "train").glob("*.txt"):
        tile = cv2.imread(str((out / "images" / "train" / label.name).with_suffix(".jpg")))
        assert tile.shape[:2] == (416, 416)
        for line in label.read_text().splitlines():
            _, x, y, w, h = (float(v) for v in line.split())
            assert 0 <= x - w / 2 and x + w / 2 <= 1 and 0 <= y - h / 2 and y + h / 2 <= 1
            assert max(w, h) * 416 <= INDEX_PX[1] * 2.5  # no index far beyond what the detector learns


def test_real_photos_become_classifier_crops_named_by_card_and_turn(small_set, tmp_path):
    turns = []

    def orient(image, box, card):
        turns.append(card)
        return 1

    written = add_classifier_crops(small_set, tmp_path / "cls", PrepareConfig(), orient, progress=lambda _: None)
    folders = Counter(p.parent.name for p in (tmp_path / "cls" / "train").rglob("*.jpg"))
    assert sum(folders.values()) == written
    assert sorted(turns) == sorted(["5c", "5c", "4s", "7h", "2d", "8s", "Jc", "Jh", "Ah", "5s", "8d", "Js"])
    assert "Ad" not in {name.split(".")[0] for name in folders}  # the test photo's card
    assert folders["bg"] > 0 and all(name == "bg" or name.split(".")[1] in "0123" for name in folders)
    assert cv2.imread(str(next((tmp_path / "cls" / "train").rglob("*.jpg")))).shape[:2] == (64, 64)


def _kiosk(*args):
    return subprocess.run([sys.executable, "-m", "kiosk", *args], capture_output=True, text=True, timeout=900, cwd=REPO)


@pytest.mark.slow
@pytest.mark.parametrize("split, limit, recall, precision", [("test", 24, 0.85, 0.9), ("unseen", 16, 0.6, 0.85)])
def test_the_shipped_reader_reads_real_photos_never_trained_on(split, limit, recall, precision, tmp_path):
    """The held-out IMG_2022* photos and the black deck no training saw: the CI gate for the committed weights on
    real photos (thresholds under the model card's figures on the whole splits, for the few photos read here)."""
    run = _kiosk("eval", str(CORNERS), "--split", split, "--limit", str(limit), "--min-recall", str(recall),
                 "--min-precision", str(precision), "--out", str(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads((tmp_path / "eval.json").read_text())
    assert figures["kind"] == "real-corners" and figures["images"] == limit


@pytest.mark.slow
def test_a_close_up_is_read_at_a_smaller_scale_and_a_black_card_in_the_negative():
    """Two stages that pay on real photos: a close-up whose index is about 110 px is read only where the picture
    is also searched shrunk (picture_scales), a gold-on-black card only in the picture's negative."""
    from kiosk.vision.reader import load_reader

    close_up = cv2.imread(str(CORNERS / "images" / "IMG_20220921_194050_jpg.jpg"))  # the ace of diamonds
    black = cv2.imread(str(CORNERS / "images" / "IMG_7712_JPG.jpg"))  # 7d 6c 7h Qs 9d, gold on black
    reader = load_reader(REPO / "models")
    assert "Ad" in {str(c.card) for c in reader.read_picture(close_up).cards}
    assert {"7h", "6c", "Qs"} <= {str(c.card) for c in reader.read_picture(black).cards}
    one_scale = load_reader(REPO / "models", settings={"stages": {"picture_scales": None}})
    assert "Ad" not in {str(c.card) for c in one_scale.read_picture(close_up).cards}
    positive = load_reader(REPO / "models", settings={"stages": {"negative_look": None}})
    assert not {"7h", "6c", "Qs"} & {str(c.card) for c in positive.read_picture(black).cards}
