"""`scripts/text_crops.py`: printed words as `bg` cuts for the index classifier (models/MODEL_CARD.md, phase 27)."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("text_crops", ROOT / "scripts" / "text_crops.py")
text_crops = importlib.util.module_from_spec(spec)
spec.loader.exec_module(text_crops)


def test_no_word_is_the_jokers_index_and_none_is_a_lone_rank():
    rng = random.Random(0)
    words = [text_crops.random_text(rng) for _ in range(3000)]
    assert not [w for w in words if "JOKE" in w.upper()]
    assert not [w for w in words if len(w.replace(" ", "")) < 3]  # "10", "A", "K": an index's rank
    assert len(set(words)) > 1000  # serials, prices and made-up words, not a short list


def test_the_cuts_are_the_classifiers_size_in_the_bg_class_and_the_same_for_a_seed(tmp_path):
    assert text_crops.main([str(tmp_path / "a"), "--train", "6", "--val", "2", "--seed", "3"]) == 0
    assert text_crops.main([str(tmp_path / "b"), "--train", "6", "--val", "2", "--seed", "3"]) == 0
    got = sorted(str(p.relative_to(tmp_path / "a")) for p in (tmp_path / "a").rglob("*.jpg"))
    assert got == [f"cls/train/bg/txt_t{i:05d}.jpg" for i in range(6)] + [f"cls/val/bg/txt_v{i:05d}.jpg" for i in range(2)]
    for rel in got:
        a, b = cv2.imread(str(tmp_path / "a" / rel)), cv2.imread(str(tmp_path / "b" / rel))
        assert a.shape == (64, 64, 3)
        assert (a == b).all()
        assert a.std() > 5  # print on it, not a blank


def test_no_fonts_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(text_crops, "FONT_DIRS", (str(tmp_path / "none"),))
    assert text_crops.main([str(tmp_path / "out"), "--train", "1", "--val", "0"]) == 1
    assert "no .ttf/.otf fonts under" in capsys.readouterr().err
