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


def scanned_faces(folder: Path, quality: int = 95, design: Path = KENNEY) -> Path:
    """kenney's (or `design`'s) committed faces saved as a user's scans might be: JPEG, names in any case, 10 for T,
    `joker`."""
    folder.mkdir(parents=True)
    for png in design.glob("*.png"):
        stem = png.stem
        name = {"back": "back", "Jk": "joker"}.get(stem) or ("10" + stem[1] if stem[0] == "T" else stem.upper())
        img = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
        flat = (img[:, :, :3] * (img[:, :, 3:] / 255.0) + 255 * (1 - img[:, :, 3:] / 255.0)).astype(np.uint8)
        cv2.imwrite(str(folder / f"{name}.jpg"), flat, [cv2.IMWRITE_JPEG_QUALITY, quality])
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

    from kiosk_lab.synth import art as art_module
    from kiosk_lab.synth.scenes import render_random

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


def test_scans_saved_as_jpeg_are_measured_past_their_ringing(tmp_path):
    """A JPEG rings around the glyphs: specks past the ink line (25 from the paper) cut or join the index's chain of
    blobs, so cards went unmeasured (KDE's ornate decks at quality 92: 31-44 of 53, under the 40 a design needs).
    add-deck measures at several ink lines and keeps the one that measures the most; the committed kennard-4c-big
    saved at quality 60 shows it (47 of 52 at the paper's line alone)."""
    from kiosk_lab.synth.art import INK_LINE, write_deck
    from kiosk_lab.synth.house import read_card_faces

    design = REPO / "datasets" / "art" / "kennard-4c-big"
    faces, art = scanned_faces(tmp_path / "faces", quality=60, design=design), tmp_path / "art"
    images, back = read_card_faces(faces)
    at_one_line = write_deck(tmp_path / "one", "one", images, back, name="one", family="house", licence="", source="",
                             height=min(240, images["As"].shape[0]), ink_lines=(INK_LINE,))
    assert len(at_one_line["cards"]) < 52  # the case: some faces do not measure at the paper's line alone
    done = add_deck("house-jpeg", faces, art=art)
    assert done.returncode == 0, done.stderr
    meta = json.loads((art / "house-jpeg" / "deck.json").read_text())
    assert len(meta["cards"]) == 52 and meta["ink_line"] > INK_LINE, meta["skipped"]
    assert f"ink told from the paper from {meta['ink_line']}" in done.stdout
    # the committed faces' own boxes (measured from the clean PNGs) are what the scans measure
    committed = json.loads((design / "deck.json").read_text())["cards"]
    for card, entry in meta["cards"].items():
        for got, want in zip(entry["index"], committed[card]["index"]):
            assert max(abs(a - b) for a, b in zip(got, want)) < 6, (card, entry["index"], committed[card]["index"])


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
