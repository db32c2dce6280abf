"""Where the card reader loses the right readings it made: a labelled set read stage by stage.

`read_picture` reads a single picture in stages (the first read, the turned look, the context check, settling
one deck, the background veto, two corners of one card: kiosk.vision.reader). A right reading lost at a stage and
not named right at the end is counted for that stage; each is listed with its picture and card. The first read's
own rules (report lines, small indices, twins) are not split up: `scripts/reader_miss_causes.py` says which cards no cut of the classifier read.

    .venv/bin/python scripts/reader_stage_losses.py runs/sets/backs7-val-4k [more sets] [--models M]
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kiosk.errors import KioskError  # noqa: E402
from kiosk_lab.evaluation.evaluate import _scene_items, score_scene  # noqa: E402
from kiosk.vision.reader import load_reader  # noqa: E402


def lost_at(scene: dict, stages: list) -> list[tuple[str, str]]:
    """(stage, card) for each right reading a stage lost that the last stage does not name right either."""
    right = [collections.Counter(score_scene(scene, list(cards))[2]) for _, cards in stages]
    final = right[-1]
    return [(stages[k][0], card) for k in range(1, len(stages))
            for card, n in (right[k - 1] - right[k]).items() if final[card] < 1 for _ in range(n)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+", type=Path)
    ap.add_argument("--split", default="test")
    ap.add_argument("--models", default="models")
    args = ap.parse_args()
    reader = load_reader(args.models)
    tally, lines = collections.Counter(), []
    for root in args.sets:
        for image_path, scene in _scene_items(root, args.split):
            image = cv2.imread(str(image_path))
            stages: list = []
            reader.read_picture(image, source=scene["image"], stages=stages)
            for stage, card in lost_at(scene, stages):
                tally[(root.name, stage)] += 1
                lines.append(f"  {root.name} {scene['image']} {card}: lost at {stage}")
    print(f"reader {reader.model_version}: right readings lost on the way, by set and stage")
    for (name, stage), n in sorted(tally.items()):
        print(f"{n:5d}  {name}  {stage}")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KioskError as err:
        raise SystemExit(f"reader_stage_losses: {err}")
