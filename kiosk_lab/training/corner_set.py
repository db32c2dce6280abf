"""Real photos with every corner index boxed (YOLO labels beside the images, a split.csv naming each photo's
split): datasets/real/real-photos-corners. Read by `kiosk eval` and cut for training by `kiosk train --real`."""

from __future__ import annotations

from pathlib import Path

import cv2
import yaml

from kiosk.cards import parse_card_name
from kiosk.errors import KioskError

CORNER_SPLITS = ("test", "train", "unseen", "all")


def corner_card(name: str) -> str | None:
    """The card a real-photos-corners class names (None for a card's back).

    >>> corner_card("10C"), corner_card("QS"), corner_card("RED JOKER"), corner_card("BACK")
    ('Tc', 'Qs', 'Jk', None)
    """
    if name == "BACK":
        return None
    if name.endswith("JOKER"):
        return "Jk"
    return str(parse_card_name(name[:-1] + name[-1].lower()))


BACK = "back"


def corner_items(root: Path, split: str, backs: bool = False):
    """(image, [(card, box in pixels)]) for each photo of `split` (split.csv beside the images); with `backs`,
    the face-down cards too, as (BACK, box)."""
    if split not in CORNER_SPLITS:
        raise KioskError(f"{root}: no split {split!r} in a set of corner-labelled photos "
                         f"(choose from {', '.join(CORNER_SPLITS)})")
    classes = yaml.safe_load((root / "data.yaml").read_text())["names"]
    splits = dict(line.split(",") for line in (root / "split.csv").read_text().split()[1:])
    for name, its_split in sorted(splits.items()):
        if split != "all" and its_split != split:
            continue
        image = root / "images" / name
        height, width = cv2.imread(str(image)).shape[:2]
        boxes = []
        for line in (root / "labels" / name).with_suffix(".txt").read_text().splitlines():
            k, *numbers = line.split()
            card = corner_card(classes[int(k)]) or (BACK if backs else None)
            if card:
                boxes.append((card, yolo_box([float(v) for v in numbers], width, height)))
        yield image, boxes


def yolo_box(numbers: list[float], width: int, height: int) -> tuple[float, float, float, float]:
    """A YOLO label's box in pixels: centre and size, or the bounds of a polygon's points.

    >>> yolo_box([0.5, 0.5, 0.2, 0.25], 100, 200), yolo_box([0.1, 0.1, 0.3, 0.1, 0.3, 0.4], 100, 100)
    ((40.0, 75.0, 60.0, 125.0), (10.0, 10.0, 30.0, 40.0))
    """
    if len(numbers) == 4:
        x, y, w, h = numbers
        return ((x - w / 2) * width, (y - h / 2) * height, (x + w / 2) * width, (y + h / 2) * height)
    xs, ys = numbers[0::2], numbers[1::2]
    return (min(xs) * width, min(ys) * height, max(xs) * width, max(ys) * height)
