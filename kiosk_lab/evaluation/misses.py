"""`kiosk eval SET --misses`: why the reader misses the cards it misses in a generated set.

Each labelled face-up card that the picture's reading (`read_picture`, as `kiosk eval` reads it) does not name is
put down to a stage: no index of the card found by the detector (IoU 0.3 with a labelled index box), or the
classifier's say on the card's best found cut (true card on top and sure from the report line, so lost to the
reading rules after; on top but under it; a runner-up; under 0.05). Also how many of all the labelled cards have an
index found. One deck a picture (the sets' showdowns): a card is missed when no reading names it.
"""

from __future__ import annotations

import collections
import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from kiosk.cards import CLASS_NAMES
from kiosk.errors import KioskError
from kiosk.vision.geometry import iou

FOUND_IOU = 0.3  # a find covers a labelled index box
RUNNER_UP = 0.05  # the true card's share under which it was hardly considered


@dataclass
class MissCauses:
    labelled: int = 0
    with_index: int = 0
    causes: collections.Counter = field(default_factory=collections.Counter)
    by_card: collections.Counter = field(default_factory=collections.Counter)


def cause_of(reader, image: np.ndarray, card: str, found: list) -> str:
    """The stage that lost `card`, from the finds covering its indices (`found`)."""
    if not found:
        return "no index found"
    mass = reader.card_mass(reader.classify(image, found))
    t = CLASS_NAMES.index(card)
    best = mass[int(np.argmax(mass[:, t]))]
    if int(np.argmax(best)) == t:
        line = reader.report_line
        return f"true card on top, sure (>= {line}): lost after" if best[t] >= line else f"true card on top, under {line}"
    return "true card a runner-up" if best[t] >= RUNNER_UP else f"true card under {RUNNER_UP}"


def miss_causes(reader, root: Path, split: str, limit: int | None = None) -> MissCauses:
    scenes = sorted((root / "scenes" / split).glob("*.json"))[:limit]
    if not scenes:
        raise KioskError(f"--misses: {root} has no scenes/{split}/ (it reads a generated set's labelled scenes)")
    out = MissCauses()
    for path in scenes:
        scene = json.loads(path.read_text())
        image = cv2.imread(str(root / "images" / split / scene["image"]))
        if image is None:
            raise KioskError(f"{root / 'images' / split / scene['image']}: not a readable image")
        h, w = image.shape[:2]
        named = {str(c.card) for c in reader.read_picture(image, source=scene["image"]).cards}
        boxes = [b for b, _ in reader.find_indices(image, (0, 0, w, h))]
        for c in scene["cards"]:
            if not c.get("face_up") or not c.get("corners"):
                continue
            out.labelled += 1
            found = [b for b in boxes if any(iou(tuple(k), tuple(b)) >= FOUND_IOU for k in c["corners"])]
            out.with_index += bool(found)
            if c["card"] not in named:
                out.causes[cause_of(reader, image, c["card"], found)] += 1
                out.by_card[c["card"]] += 1
    return out


def print_misses(result: MissCauses, title: str) -> None:
    print(f"{title}: {result.labelled} labelled face-up cards, an index found for {result.with_index} "
          f"({result.with_index / max(result.labelled, 1):.4f})")
    print(f"missed (no reading names the card): {sum(result.causes.values())}")
    for cause, n in result.causes.most_common():
        print(f"  {n:5d}  {cause}")
    print("most missed:", ", ".join(f"{c} {n}" for c, n in result.by_card.most_common(10)) or "none")
