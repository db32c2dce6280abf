"""Why the card reader misses the cards it misses in a labelled set of single pictures.

For each labelled face-up card that the picture's reading (`read_picture`, as `kiosk eval` reads it) does not
name, the cause by stage: no index of the card found by the detector (IoU 0.3 with a labelled index box), or the
classifier's say on the card's best found cut (true card on top and sure from the report line, 0.6, so lost to the
reading rules after; on top but under it; a runner-up; under 0.05). Also how many of all the labelled cards have an index found.
One deck a picture (the test sets' showdowns): a card is missed when no reading names it.

    .venv/bin/python scripts/reader_miss_causes.py datasets/generated/reader-test-v2 [--models M]
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kiosk.cards import CLASS_NAMES  # noqa: E402
from kiosk.vision.geometry import iou  # noqa: E402
from kiosk.vision.reader import load_reader  # noqa: E402


def cause_of(reader, image, card: str, found: list) -> str:
    if not found:
        return "no index found"
    mass = reader.card_mass(reader.classify(image, found))
    t = CLASS_NAMES.index(card)
    best = mass[int(np.argmax(mass[:, t]))]
    if int(np.argmax(best)) == t:
        line = reader.report_line
        return f"true card on top, sure (>= {line}): lost after" if best[t] >= line else f"true card on top, under {line}"
    return "true card a runner-up" if best[t] >= 0.05 else "true card under 0.05"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("set", type=Path)
    ap.add_argument("--split", default="test")
    ap.add_argument("--models", default="models")
    args = ap.parse_args()
    reader = load_reader(args.models)
    causes, by_card = collections.Counter(), collections.Counter()
    labelled = with_index = 0
    for f in sorted((args.set / "scenes" / args.split).glob("*.json")):
        scene = json.loads(f.read_text())
        image = cv2.imread(str(args.set / "images" / args.split / scene["image"]))
        h, w = image.shape[:2]
        named = {str(c.card) for c in reader.read_picture(image, source=scene["image"]).cards}
        boxes = [b for b, _ in reader.find_indices(image, (0, 0, w, h))]
        for c in scene["cards"]:
            if not c.get("face_up") or not c.get("corners"):
                continue
            labelled += 1
            found = [b for b in boxes if any(iou(tuple(k), tuple(b)) >= 0.3 for k in c["corners"])]
            with_index += bool(found)
            if c["card"] not in named:
                causes[cause_of(reader, image, c["card"], found)] += 1
                by_card[c["card"]] += 1
    print(f"{args.set.name} [{args.split}], reader {reader.model_version}: {labelled} labelled face-up cards, "
          f"an index found for {with_index} ({with_index / max(labelled, 1):.4f})")
    print(f"missed (no reading names the card): {sum(causes.values())}")
    for cause, n in causes.most_common():
        print(f"  {n:5d}  {cause}")
    print("most missed:", ", ".join(f"{c} {n}" for c, n in by_card.most_common(10)))


if __name__ == "__main__":
    main()
