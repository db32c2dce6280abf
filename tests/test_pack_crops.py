"""`scripts/pack_crops.py`: classifier crops travel to a lent GPU machine on JPEG sheets (docs/detector.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import cv2
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("pack_crops", ROOT / "scripts" / "pack_crops.py")
pack_crops = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pack_crops)


def _crops(root: Path, per_class: dict[str, int]) -> None:
    rng = np.random.default_rng(0)
    for split in ("train", "val"):
        for cls, n in per_class.items():
            (root / split / cls).mkdir(parents=True)
            for i in range(n if split == "train" else 1 if n else 0):
                # flat colour per crop, far apart: a neighbour's pixels would show
                im = np.full((64, 64, 3), rng.integers(0, 256, 3), np.uint8)
                cv2.putText(im, cls[:2], (8, 44), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (255, 255, 255), 2)
                cv2.imwrite(str(root / split / cls / f"s{i}.jpg"), im, [cv2.IMWRITE_JPEG_QUALITY, 95])


def test_every_crop_comes_back_in_its_class_with_its_own_pixels_and_empty_classes_kept(tmp_path):
    src, sheets, back = tmp_path / "cut", tmp_path / "sheets", tmp_path / "back"
    _crops(src, {"As.0": 150, "Kh.2": 30, "bg": 20, "Jk.1": 0})  # 200 train crops: two rows of a sheet and more
    info = pack_crops.pack(src, sheets, quality=70, train_max=None, seed=0)
    assert info["crops"] == 203 and info["train"] == 200 and info["sheets"] == 1
    assert pack_crops.unpack(sheets, back, workers=1) == 203
    for split in ("train", "val"):
        assert sorted(p.name for p in (back / split).iterdir()) == ["As.0", "Jk.1", "Kh.2", "bg"]
    for path in src.rglob("*.jpg"):
        a, b = cv2.imread(str(path)).astype(int), cv2.imread(str(back / path.relative_to(src))).astype(int)
        # JPEG's loss (a neighbour's colour creeps into the outer pixels), not a neighbour's crop: the flat
        # colours of two crops lie about 85 levels apart
        assert np.abs(a - b).mean() < 8, path
        assert np.abs(a - b)[2:-2, 2:-2].mean() < 7, path


def test_train_max_keeps_that_many_training_crops_and_every_validation_crop(tmp_path):
    src = tmp_path / "cut"
    _crops(src, {"As.0": 40, "Kh.2": 40})
    info = pack_crops.pack(src, tmp_path / "sheets", quality=70, train_max=25, seed=3)
    assert info["train"] == 25 and info["crops"] == 27
    again = pack_crops.pack(src, tmp_path / "again", quality=70, train_max=25, seed=3)
    assert again == info  # the same seed draws the same crops


def test_an_empty_folder_and_a_folder_pack_did_not_write_are_refused_by_name(tmp_path):
    (tmp_path / "cut" / "train").mkdir(parents=True)
    (tmp_path / "cut" / "val").mkdir()
    with pytest.raises(SystemExit, match=f"{tmp_path / 'cut'} holds no crops"):
        pack_crops.pack(tmp_path / "cut", tmp_path / "sheets", quality=70, train_max=None, seed=0)
    with pytest.raises(SystemExit, match="has no index.json.gz: not a folder written by pack"):
        pack_crops.unpack(tmp_path / "cut", tmp_path / "back", workers=1)
    with pytest.raises(SystemExit, match="has no train/ folder of class folders"):
        pack_crops.list_crops(tmp_path / "nothing")
