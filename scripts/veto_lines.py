"""How the background veto's line reads labelled sets: each picture read once without the veto, then every line.

The reader's single-picture readings are taken without its veto (kiosk/vision/veto.py) and its last rule (two corners
of one card, kiosk/vision/partners.py), the veto reads each reading's corners once, and each line (a reading dropped
where the veto gives the background at least the line at every corner; jokers spared; then that last rule) is scored
as `kiosk eval` scores: wrong readings, missed cards and 52-card showdowns read clean, against no veto. How the
shipped line was chosen (model card, results, "The background veto"):

    .venv/bin/python scripts/veto_lines.py runs/sets/backs9-val-4k runs/sets/backs9-pile-val-4k [more sets] \\
        [--models models] [--lines 0.9 0.8 0.7 0.6 0.5]

The real photos read the same with the veto as without at every line from 0.5 (`kiosk eval
datasets/real/real-photos-ranks` with reader.json's `veto.bg` changed).
"""
from __future__ import annotations

import argparse
import copy
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from kiosk.errors import KioskError  # noqa: E402
from kiosk_lab.evaluation.evaluate import tally as count  # noqa: E402
from kiosk.vision.partners import disagreeing_partners, index_turns  # noqa: E402
from kiosk.vision.pipeline import veto_background  # noqa: E402
from kiosk.vision.reader import load_reader  # noqa: E402
from setting_table import print_changes, read_pictures  # noqa: E402


def tally(pictures, line: float | None, spare: frozenset, partners: tuple[float, float] | None = None
          ) -> tuple[int, int, int]:
    """(wrong, missed, clean full showdowns) of `pictures` [(scene, [(reading, least background share)], orientations)];
    `partners` (reach, sure): the two-corners rule (kiosk/vision/partners.py) after the line, as the reader applies
    it."""
    def kept(readings, orient):
        cards = [c for c, bg in readings if line is None or str(c.card) in spare or bg < line]
        if partners:
            cards = list(disagreeing_partners(cards, lambda boxes: [orient[b] for b in boxes], *partners)[0])
        return cards

    return count((scene, kept(readings, orient)) for scene, readings, orient in pictures)


def read_set(reader, blind, root: Path) -> list:
    """Each picture of the set read by `blind` (the reader without its veto and its partners rule): its readings with
    their least background share, and the orientation of each index the partners rule could ask of."""
    pictures = []
    for scene, image, cards in read_pictures(blind, root):
        boxes = [c.corners or (c.box,) for c in cards]
        share = iter(veto_background(reader, image, [b for group in boxes for b in group]))
        readings = [(c, min(float(next(share)) for _ in group)) for c, group in zip(cards, boxes)]
        pictures.append((scene, readings, index_turns(cards, partial(reader.orientations_at, image))))
    return pictures


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", type=Path, help="generated sets (their test split)")
    ap.add_argument("--models", default="models")
    ap.add_argument("--lines", nargs="+", type=float, default=[0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    args = ap.parse_args(argv)
    try:
        reader = load_reader(args.models)
        veto, rule = reader.settings.stages.veto, reader.settings.stages.partners
        if veto is None:
            raise KioskError(f"{args.models}: this reader has no background veto (reader.json 'stages.veto')")
        blind = copy.copy(reader)
        blind.settings = reader.settings.changed({"stages": {"veto": None, "partners": None}})
        partners = (rule.reach, rule.sure) if rule else None
        print(f"reader {reader.model_version}: wrong readings / missed cards / clean full showdowns, and the change "
              "at each line")
        print_changes(args.sets, lambda root: read_set(reader, blind, root),
                      lambda pictures, line: tally(pictures, line, frozenset(veto.spare), partners), args.lines)
    except KioskError as err:
        print(f"veto_lines: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
