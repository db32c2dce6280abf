"""scripts/train_look.py: the crops the suit look is taught, turned upright and labelled by its answer alone."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]


def _crop(path: Path, k: int) -> np.ndarray:
    """A crop whose upright form has a white top-left corner, written turned k quarter turns (as the classifier's
    `<card>.<k>` folders hold them); returns the upright form."""
    up = np.zeros((8, 8, 3), np.uint8)
    up[:3, :3] = 255
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), np.rot90(up, -k))
    return up


def test_each_look_is_taught_its_own_answer_on_upright_crops(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    import train_look

    crops = tmp_path / "v20c"
    up = _crop(crops / "train" / "3c.1" / "a.jpg", 1)
    _crop(crops / "train" / "Ks.2" / "b.jpg", 2)
    _crop(crops / "train" / "Th.0" / "c.jpg", 0)
    _crop(crops / "train" / "Jk.3" / "d.jpg", 3)
    _crop(crops / "train" / "bg" / "e.jpg", 0)
    _crop(crops / "val" / "2s.3" / "f.jpg", 3)
    made = {}
    for which, look in train_look.LOOKS.items():
        look = train_look.Look(**{**look.__dict__, "upright": tmp_path / which})
        out = train_look.upright(look, crops)
        made[which] = sorted(str(p.relative_to(out)) for p in out.rglob("*.png"))
        turned = cv2.imread(str(next(out.rglob("3c*.png"))))
        assert turned[1, 1].min() > 200 and turned[6, 6].max() < 50  # upright again: white top left
        assert turned.shape == up.shape
    assert made["suits"] == ["train/c/3c_a.png", "train/s/Ks_b.png", "val/s/2s_f.png"]


def test_a_look_is_written_into_reader_json_with_how_the_reader_uses_it(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    import train_look

    reader_json = tmp_path / "reader.json"
    reader_json.write_text(json.dumps({"detector": {}}))
    files = {"pytorch": "index-suits.pt"}
    train_look.with_look(train_look.LOOKS["suits"], reader_json, files, ["c", "s"])
    meta = json.loads(reader_json.read_text())
    look = meta["stages"]["suit_look"]
    assert look["sharpen"] is False and look["names"] == ["c", "s"] and look["files"] == files
    assert "train_look.py suits" in meta["notes"]["suit_look"]
