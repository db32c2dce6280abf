"""How the rule for two readings at the two corners of one card reads labelled sets, at each reach and line.

Each picture is read once without the rule (kiosk/vision/partners.py), the orientation of each reading's indices
read once, and each (reach, sure) scored as `kiosk eval` scores: wrong readings, missed cards and 52-card showdowns
read clean, against no rule. How the shipped values were chosen (model card, results, "Two corners of one card"):

    .venv/bin/python scripts/partner_lines.py runs/sets/val2-4k runs/sets/kenney-val [more sets] \\
        [--models models] [--reach 0.5 0.75 1.0 1.25] [--sure 0 0.9 0.95]
"""
from __future__ import annotations

import argparse
import copy
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from kiosk.errors import KioskError  # noqa: E402
from kiosk_lab.evaluation.evaluate import tally  # noqa: E402
from kiosk.vision.partners import disagreeing_partners  # noqa: E402
from kiosk.vision.reader import load_reader  # noqa: E402
from setting_table import print_changes, read_pictures  # noqa: E402


def read_set(reader, root: Path) -> list:
    """[(scene, readings without the rule, {index box: orientation})] of the set's test split."""
    blind = copy.copy(reader)
    blind.settings = reader.settings.changed({"stages": {"partners": None}})
    pictures = []
    for scene, image, cards in read_pictures(blind, root):
        boxes = [tuple(b) for c in cards for b in c.corners]
        pictures.append((scene, cards, dict(zip(boxes, reader.orientations_at(image, boxes)))))
    return pictures


def with_rule(pictures, reach: float, sure: float) -> list:
    """[(scene, readings)] with the rule at `reach` and `sure` (reach 0: without it)."""
    if not reach:
        return [(scene, cards) for scene, cards, _ in pictures]
    return [(scene, disagreeing_partners(cards, lambda boxes, t=turns: [t[b] for b in boxes], reach, sure)[0])
            for scene, cards, turns in pictures]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", type=Path, help="generated sets (their test split)")
    ap.add_argument("--models", default="models")
    ap.add_argument("--reach", nargs="+", type=float, default=[0.5, 0.75, 1.0, 1.25])
    ap.add_argument("--sure", nargs="+", type=float, default=[0.0, 0.9, 0.95])
    args = ap.parse_args(argv)
    grid = [(r, s) for r in args.reach for s in args.sure]
    try:
        reader = load_reader(args.models)
        print(f"reader {reader.model_version}: wrong readings / missed cards / clean full showdowns without the rule, "
              "and the change at each reach/sure")
        print_changes(args.sets, partial(read_set, reader),
                      lambda pictures, key: tally(with_rule(pictures, *(key or (0.0, 0.0)))), grid,
                      lambda key: f"{key[0]}/{key[1]}")
    except KioskError as err:
        print(f"partner_lines: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
