"""A house deck's own card faces (scans or photos, one file a card) as a design the generator renders.

A folder holds one image per card, named by the card (`As.png`, `Th.jpg` or `10h.jpg`, any case), the
joker as `Jk` or `joker`, and the back as `back`. Each image is the card alone, cut to its edge.

>>> card_of_file("10h.jpg"), card_of_file("KS.png"), card_of_file("Joker.png"), card_of_file("back.png")
('Th', 'Ks', 'Jk', 'back')
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from kiosk.cards import CardError, parse_card_name
from kiosk.vision.images import IMAGE_SUFFIXES


def card_of_file(name: str) -> str:
    """The card a file is named for (`Th`, `Jk`), or `back`; ValueError naming the file if neither."""
    stem = Path(name).stem.strip()
    if stem.lower() == "back":
        return "back"
    try:
        return str(parse_card_name(stem))
    except CardError:
        raise ValueError(f"{name}: the name is not a card (As, Th or 10h, Jk or joker) nor back") from None


def read_card_faces(folder: Path) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Each card's image (BGRA) and the back's, read from `folder`; ValueError naming the file at fault."""
    if not folder.is_dir():
        raise ValueError(f"{folder}: no such folder")
    images: dict[str, np.ndarray] = {}
    named: dict[str, str] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        card = card_of_file(path.name)
        if card in named:
            raise ValueError(f"{path.name}: {card} is already {named[card]}")
        img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if img is None or img.ndim != 3 or min(img.shape[:2]) < 32:
            raise ValueError(f"{path.name}: not a readable colour image of a card")
        images[card] = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA) if img.shape[2] == 3 else img
        named[card] = path.name
    back = images.pop("back", None)
    if back is None:
        raise ValueError(f"{folder}: no back image (back.png or back.jpg)")
    if not images:
        raise ValueError(f"{folder}: no card images ({', '.join(sorted(IMAGE_SUFFIXES))} named As, Th or 10h, Jk)")
    return images, back
