"""Crops for the context check: what lies around each index the detector finds, labelled
`card` (a face-up card's index) or `not` (anything else: a picture of cards on a back, court
art, felt, chips).

The index classifier sees an index alone (1.35 x its long side) and cannot tell a pictured ace
on a card back from a printed one; this cut is `CONTEXT_PAD` x the index's long side, so the
check sees the card (or back) the index sits on. Finds are mined with the shipped detector on
a set's training scenes and labelled as `kiosk train --mine` labels them
(`kiosk_lab.training.prepare.label_find`); unsure finds are left out.

    .venv/bin/python scripts/context_crops.py runs/views/v17 runs/prep/ctx --scenes 600 --seed 21
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kiosk.vision.context import CONTEXT_PAD, CONTEXT_SIZE, context_crop  # noqa: E402
from kiosk_lab.evaluation.evaluate import _inside  # noqa: E402
from kiosk.vision.geometry import box_center  # noqa: E402
from kiosk_lab.training.prepare import BG, _degrade, corner_orientations, label_find, load_scene_set  # noqa: E402
from kiosk.vision.reader import load_reader  # noqa: E402


def on_face_down(box, scene) -> bool:
    """Does the box's centre lie on any face-down card (only names the crop's file: `_down`)?"""
    return any(not c.get("face_up", True) and _inside(box_center(box), c["polygon"]) for c in scene["cards"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--scenes", type=int, default=600)
    ap.add_argument("--val-share", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--models", default="models")
    ap.add_argument("--pad", type=float, default=CONTEXT_PAD, help="the cut's side, in index long sides")
    args = ap.parse_args()
    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    for split in ("train", "val"):
        for label in ("card", "not"):
            (out / split / label).mkdir(parents=True)
    reader = load_reader(args.models)
    rng = random.Random(args.seed)
    scenes = load_scene_set(Path(args.data), "train")
    rng.shuffle(scenes)
    counts = {}
    for n, (image_path, scene) in enumerate(scenes[: args.scenes]):
        image = cv2.imread(str(image_path))
        if image is None:
            continue
        h, w = image.shape[:2]
        labelled = [(box, card["card"], k) for card in scene["cards"] if card.get("face_up", True)
                    for box, k in corner_orientations(card)]
        face_up = [c for c in scene["cards"] if c.get("face_up", True)]
        split = "val" if rng.random() < args.val_share else "train"
        for i, (box, _score) in enumerate(reader.find_indices(image, (0, 0, w, h))):
            found = label_find(box, labelled, face_up)
            if found is None:
                continue
            label = "not" if found[1] == BG else "card"
            kind = "down" if label == "not" and on_face_down(box, scene) else label
            if split == "train":
                crop = context_crop(image, box, shift=(rng.gauss(0, 0.04), rng.gauss(0, 0.04)),
                                    zoom=rng.uniform(0.9, 1.15), pad=args.pad)
                crop = _degrade(crop, rng)
            else:
                crop = context_crop(image, box, pad=args.pad)
            crop = np.ascontiguousarray(np.rot90(crop, rng.randrange(4)))
            name = f"{image_path.stem}_{i}_{kind}.jpg"
            cv2.imwrite(str(out / split / label / name), crop, [cv2.IMWRITE_JPEG_QUALITY, 93])
            counts[(split, kind)] = counts.get((split, kind), 0) + 1
        if n % 50 == 0:
            print(n, sorted(counts.items()), flush=True)
    print("crops:", sorted(counts.items()), f"({CONTEXT_SIZE}x{CONTEXT_SIZE}, {args.pad} x the index)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
