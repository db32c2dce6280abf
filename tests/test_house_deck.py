"""`datasets/build.py add-deck`: a house deck's scanned faces become a design the generator renders."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
KENNEY = REPO / "datasets" / "art" / "kenney"


def scanned_faces(folder: Path) -> Path:
    """kenney's committed faces saved as a user's scans might be: JPEG, names in any case, 10 for T, `joker`."""
    folder.mkdir(parents=True)
    for png in KENNEY.glob("*.png"):
        stem = png.stem
        name = {"back": "back", "Jk": "joker"}.get(stem) or ("10" + stem[1] if stem[0] == "T" else stem.upper())
        img = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
        flat = (img[:, :, :3] * (img[:, :, 3:] / 255.0) + 255 * (1 - img[:, :, 3:] / 255.0)).astype(np.uint8)
        cv2.imwrite(str(folder / f"{name}.jpg"), flat, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return folder


def add_deck(*args, art: Path, options=()) -> subprocess.CompletedProcess:
    env = dict(os.environ, KIOSK_ART_DIRS=str(art))
    return subprocess.run([sys.executable, str(REPO / "datasets" / "build.py"), "add-deck", *map(str, args),
                           "--out", str(art), *options], capture_output=True, text=True, env=env, cwd=REPO)


def test_scanned_faces_become_a_design_the_generator_renders(tmp_path, monkeypatch):
    faces, art = scanned_faces(tmp_path / "faces"), tmp_path / "art"
    done = add_deck("house-test", faces, art=art)
    assert done.returncode == 0, done.stderr
    meta = json.loads((art / "house-test" / "deck.json").read_text())
    # the index is measured on each face; one that measures far from the others is left out, and said so
    assert meta["family"] == "house" and len(meta["cards"]) >= 50 and "Jk" in meta["cards"]
    assert f"{len(meta['cards'])} of 53 cards with a corner index found" in done.stdout
    assert all(f"{card} is not rendered" in done.stdout for card in meta["skipped"])

    from kiosk.synth import art as art_module
    from kiosk.synth.scenes import render_random

    monkeypatch.setenv("KIOSK_ART_DIRS", str(art))
    art_module.load_deck.cache_clear()
    try:
        assert "house-test" in art_module.list_decks()
        rendered = render_random("showdown", "house-test", seed=3, size=(960, 540))
    finally:
        art_module.load_deck.cache_clear()
    labelled = [c["card"] for c in rendered.scene["cards"] if c.get("card")]
    assert len(labelled) >= 13 and set(labelled) <= set(meta["cards"])
    assert rendered.image.shape == (540, 960, 3)


def test_a_design_is_not_written_over_nor_shadowed(tmp_path):
    faces, art = scanned_faces(tmp_path / "faces"), tmp_path / "art"
    assert add_deck("house-test", faces, art=art).returncode == 0
    again = add_deck("house-test", faces, art=art)
    assert again.returncode == 2 and "--replace" in again.stderr
    taken = add_deck("kenney", faces, art=art)  # the committed design would win: refused
    assert taken.returncode == 2 and "kenney: a design of that name is in" in taken.stderr
    assert not (art / "kenney").exists()
    tiny = add_deck("house-tiny", faces, art=art, options=("--art-height", "0"))
    assert tiny.returncode == 2 and "--art-height 0" in tiny.stderr and not (art / "house-tiny").exists()


@pytest.mark.parametrize("spoil, message", [
    (lambda f: (f / "AS.jpg").rename(f / "Zz.jpg"), "Zz.jpg: the name is not a card"),
    (lambda f: (f / "back.jpg").unlink(), "no back image"),
    (lambda f: (f / "KD.jpg").write_bytes(b"not a picture"), "KD.jpg: not a readable colour image"),
    (lambda f: shutil.copy(f / "AS.jpg", f / "as.png"), "as.png: As is already AS.jpg"),
    (lambda f: shutil.rmtree(f), "no such folder"),
])
def test_bad_faces_are_named_and_nothing_is_written(tmp_path, spoil, message):
    faces, art = scanned_faces(tmp_path / "faces"), tmp_path / "art"
    spoil(faces)
    done = add_deck("house-test", faces, art=art)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not (art / "house-test").exists()
