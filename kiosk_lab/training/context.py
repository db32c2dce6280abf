"""`kiosk train --stage context`: cut the context check's crops and train it into a reader folder.

The index classifier sees an index alone (1.35 x its long side) and cannot tell a pictured ace on a card back from
a printed one. The context check (kiosk/vision/context.py) sees `--context-pad` x the index's long side, so the card
or back the index sits on. Its crops are the reader's own finds on a set's training scenes, labelled as
`kiosk train --mine` labels them (`prepare.label_find`): `card` (a face-up card's index) or `not` (anything else:
a picture of cards on a back, court art, felt); unsure finds are left out. The check trains on a view of the crops
(hard links): at most `MAX_CARD` `card` crops and each training `not` crop `OVERSAMPLE` times (they are about a
fourteenth of the finds). It is written into `--out` as `context-check.pt`, its OpenVINO export, and reader.json's
`stages.context_check` (files, class names, the cut's pad, the drop line).
"""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

import cv2
import numpy as np

from kiosk.errors import KioskError
from kiosk.vision.context import CONTEXT_PAD, CONTEXT_SIZE, context_crop
from kiosk.vision.geometry import box_center, inside_polygon
from kiosk.vision.reader import load_reader
from kiosk.vision.settings import read_settings, write_settings
from kiosk_lab.training.prepare import BG, _degrade, corner_orientations, label_find, load_scene_set
from kiosk_lab.training.train import CLASSIFIER, TrainConfig, export_model, train_classifier

STEM = "context-check"
LABELS = ("card", "not")
MAX_CARD = 30_000  # `card` crops trained on (a tenth of it in val), drawn by seed
OVERSAMPLE = 4  # each training `not` crop this many times
VAL_SHARE = 0.1  # scenes whose crops go to val
DEFAULT_DROP = 0.9  # the drop line where the reader folder has none yet


def on_face_down(box, scene) -> bool:
    """Does the box's centre lie on any face-down card of the rendered scene?"""
    return any(not c.get("face_up", True) and inside_polygon(box_center(box), c["polygon"]) for c in scene["cards"])


def cut_context_crops(data: Path, out: Path, models: Path, scenes: int, seed: int, pad: float) -> dict:
    """Crops around the finds of the reader in `models` on `scenes` of the set's training scenes, into
    out/{train,val}/{card,not}; counts by (split, kind), `down` for a `not` on a face-down card."""
    shutil.rmtree(out, ignore_errors=True)
    for split in ("train", "val"):
        for label in LABELS:
            (out / split / label).mkdir(parents=True)
    reader = load_reader(models)
    rng = random.Random(seed)
    items = load_scene_set(data, "train")
    rng.shuffle(items)
    counts: dict = {}
    for n, (image_path, scene) in enumerate(items[:scenes]):
        image = cv2.imread(str(image_path))
        if image is None:
            continue
        split = "val" if rng.random() < VAL_SHARE else "train"
        for i, box in enumerate(_labelled_finds(reader, image, scene)):
            label = "not" if box[1] == BG else "card"
            kind = "down" if label == "not" and on_face_down(box[0], scene) else label
            crop = _context_cut(image, box[0], split == "train", pad, rng)
            cv2.imwrite(str(out / split / label / f"{image_path.stem}_{i}_{kind}.jpg"), crop,
                        [cv2.IMWRITE_JPEG_QUALITY, 93])
            counts[(split, kind)] = counts.get((split, kind), 0) + 1
        if n % 50 == 0:
            print(f"[train] context crops after {n + 1} scenes: {sorted(counts.items())}", flush=True)
    return counts


def _labelled_finds(reader, image: np.ndarray, scene: dict) -> list[tuple]:
    """(box, label) of each index the reader finds that `label_find` can label (unsure finds left out)."""
    h, w = image.shape[:2]
    labelled = [(box, card["card"], k) for card in scene["cards"] if card.get("face_up", True)
                for box, k in corner_orientations(card)]
    face_up = [c for c in scene["cards"] if c.get("face_up", True)]
    finds = []
    for box, _score in reader.find_indices(image, (0, 0, w, h)):
        found = label_find(box, labelled, face_up)
        if found is not None:
            finds.append((box, found[1]))
    return finds


def _context_cut(image: np.ndarray, box, jitter: bool, pad: float, rng: random.Random) -> np.ndarray:
    """The check's cut of one find, turned a random quarter; jittered and degraded for training."""
    if jitter:
        crop = _degrade(context_crop(image, box, shift=(rng.gauss(0, 0.04), rng.gauss(0, 0.04)),
                                     zoom=rng.uniform(0.9, 1.15), pad=pad), rng)
    else:
        crop = context_crop(image, box, pad=pad)
    return np.ascontiguousarray(np.rot90(crop, rng.randrange(4)))


def make_view(crops: Path, seed: int) -> Path:
    """Hard links of `crops` beside it (`<crops>-view`): `card` crops capped, training `not` crops repeated."""
    view = crops.with_name(crops.name + "-view")
    shutil.rmtree(view, ignore_errors=True)
    rng = random.Random(seed)
    for split in ("train", "val"):
        for label in LABELS:
            (view / split / label).mkdir(parents=True)
            files = sorted((crops / split / label).glob("*.jpg"))
            if label == "card":
                files = sorted(rng.sample(files, min(MAX_CARD if split == "train" else MAX_CARD // 10, len(files))))
            copies = OVERSAMPLE if (split, label) == ("train", "not") else 1
            for f in files:
                for i in range(copies):
                    os.link(f, view / split / label / (f.name if i == 0 else f"{f.stem}_copy{i}.jpg"))
    for label in LABELS:  # ultralytics wants every class in val: an empty one borrows from train
        val = view / "val" / label
        if not any(val.iterdir()):
            for f in sorted((view / "train" / label).glob("*.jpg"))[:20]:
                os.link(f, val / f.name)
    return view


def train_context(args) -> int:
    """`kiosk train --stage context`: crops from --data (or --crops), the check trained and added to --out."""
    out, t0 = args.out, time.time()
    if args.context_pad is None:
        args.context_pad = CONTEXT_PAD
    if args.resume_from is not None and not (args.resume_from / f"{STEM}.pt").is_file():
        raise KioskError(f"--resume-from {args.resume_from}: no {STEM}.pt there to start the check from")
    if not (out / "reader.json").is_file():
        raise KioskError(f"--out {out}: not a reader folder (no reader.json); the check is added to one, e.g. models")
    crops = args.crops
    if crops is None:
        if args.data is None or not (args.data / "scenes").is_dir():
            raise KioskError("--stage context cuts its crops from --data (a generated set with scenes/), "
                             "or trains on --crops already cut")
        crops = args.runs / "prep" / args.name / "context"
        print(f"[train] cutting context crops from {args.data} with the reader in {out} ...", flush=True)
        counts = cut_context_crops(args.data, crops, out, args.context_scenes, args.seed, args.context_pad)
        print(f"[train] context crops: {sorted(counts.items())} ({CONTEXT_SIZE}x{CONTEXT_SIZE}, "
              f"{args.context_pad} x the index)", flush=True)
        if args.cut_only:
            print(f"[train] crops cut into {crops}; train them with --stage context --crops {crops}", flush=True)
            return 0
    elif not all((crops / split / label).is_dir() for split in ("train", "val") for label in LABELS):
        raise KioskError(f"--crops {crops}: no train/ and val/ folders of card/ and not/ crops")
    _train_into(out, make_view(crops, args.seed), args)
    print(f"[train] context check written to {out} ({time.time() - t0:.0f} s)", flush=True)
    return 0


def _train_into(out: Path, view: Path, args) -> None:
    start = None
    if args.resume_from is not None:  # train_classifier starts from <folder>/index-classifier.pt
        start = view.with_name(view.name + "-start")
        shutil.rmtree(start, ignore_errors=True)
        start.mkdir()
        shutil.copy2(args.resume_from / f"{STEM}.pt", start / f"{CLASSIFIER}.pt")
    cfg = TrainConfig(data=view, out=out, runs=args.runs, stages=("classifier",), cls_epochs=args.cls_epochs,
                      cls_hours=args.cls_hours, cls_imgsz=CONTEXT_SIZE, seed=args.seed, workers=args.workers,
                      device=args.device, name=f"{args.name}-context", resume_from=start,
                      extra={"cls": {"lr0": args.cls_lr0}})
    files = export_model(train_classifier(cfg, view), out, STEM, "classifier", ("openvino",), cls_imgsz=CONTEXT_SIZE)
    settings = read_settings(out)
    before = settings.stages.context_check
    drop = args.context_drop if args.context_drop is not None else (before.drop if before else DEFAULT_DROP)
    check = {"files": files, "names": list(LABELS), "imgsz": CONTEXT_SIZE, "pad": args.context_pad, "drop": drop}
    write_settings(out, settings.with_stage("context_check", check))
    shutil.rmtree(out / f"{STEM}_onnx", ignore_errors=True)
    print(f"[train] context check: {files}, drop line {drop}", flush=True)
