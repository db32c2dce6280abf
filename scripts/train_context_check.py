"""Train the context check (kiosk/vision/context.py) on crops cut by scripts/context_crops.py
and add it to a reader folder: `context-check.pt`, its OpenVINO export, and reader.json's
`stages.context_check` (files, class names, the drop line).

    .venv/bin/python scripts/train_context_check.py runs/prep/ctx runs/models-ctx --hours 0.25 --seed 21
    .venv/bin/python scripts/train_context_check.py runs/prep/ctx runs/prep/ctx18 OUT ...   # several crop folders

Trains on a view of the crops (hard links in `<first crops folder>-view`): at most `--max-card` `card` crops
per split (drawn by seed) and each training `not` crop `--oversample` times (they are about a
fourteenth of the finds).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kiosk.vision.context import CONTEXT_PAD, CONTEXT_SIZE  # noqa: E402
from kiosk.vision.settings import read_settings, write_settings  # noqa: E402
from kiosk_lab.training.train import CLASSIFIER, TrainConfig, export_model, train_classifier  # noqa: E402

STEM = "context-check"


def make_view(folders: list[Path], max_card: int, oversample: int, seed: int) -> Path:
    view = folders[0].with_name(folders[0].name + "-view")
    shutil.rmtree(view, ignore_errors=True)
    rng = random.Random(seed)
    for split in ("train", "val"):
        for label in ("card", "not"):
            (view / split / label).mkdir(parents=True)
            files = sorted((n, f) for n, crops in enumerate(folders) for f in (crops / split / label).glob("*.jpg"))
            if label == "card":
                files = sorted(rng.sample(files, min(max_card if split == "train" else max_card // 10, len(files))))
            for n, f in files:  # the folder's number first: two sets may both hold a tr000000
                os.link(f, view / split / label / f"{n}_{f.name}")
                for i in range(1, oversample if (split, label) == ("train", "not") else 1):
                    os.link(f, view / split / label / f"{n}_{f.stem}_copy{i}.jpg")
    for label in ("card", "not"):  # ultralytics wants every class in val: an empty one borrows from train
        val = view / "val" / label
        if not any(val.iterdir()):
            for f in sorted((view / "train" / label).glob("*.jpg"))[:20]:
                os.link(f, val / f.name)
    return view


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("crops", nargs="+", help="folders cut by scripts/context_crops.py")
    ap.add_argument("out", help="a reader folder (models/ or a copy) to add the check to")
    ap.add_argument("--hours", type=float, default=0.25)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--oversample", type=int, default=4)
    ap.add_argument("--max-card", type=int, default=30000)
    ap.add_argument("--drop", type=float,
                    help="the drop line (default: the one already in OUT's reader.json, else 0.9)")
    ap.add_argument("--start", help="context-check weights to train on from (default: from nothing)")
    ap.add_argument("--lr0", type=float, default=0.002)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--pad", type=float, default=CONTEXT_PAD,
                    help="the cut's side in index long sides: the --pad the crops were cut with")
    args = ap.parse_args()
    out = Path(args.out)
    crops = make_view([Path(c) for c in args.crops], args.max_card, args.oversample, args.seed)
    start = None
    if args.start:  # train_classifier starts from <folder>/index-classifier.pt
        start = crops.with_name(crops.name + "-start")
        shutil.rmtree(start, ignore_errors=True)
        start.mkdir()
        shutil.copy2(args.start, start / f"{CLASSIFIER}.pt")
    cfg = TrainConfig(data=crops, out=out, stages=("classifier",), cls_epochs=args.epochs, cls_hours=args.hours,
                      cls_imgsz=CONTEXT_SIZE, seed=args.seed, workers=args.workers, name="context", resume_from=start,
                      extra={"cls": {"lr0": args.lr0}})
    best = train_classifier(cfg, crops)
    files = export_model(best, out, STEM, "classifier", ("openvino",), cls_imgsz=CONTEXT_SIZE)
    settings = read_settings(out)
    before = settings.stages.context_check
    if args.drop is None:
        args.drop = before.drop if before else 0.9
    check = {"files": files, "names": ["card", "not"], "imgsz": CONTEXT_SIZE, "pad": args.pad, "drop": args.drop}
    write_settings(out, settings.with_stage("context_check", check))
    shutil.rmtree(out / f"{STEM}_onnx", ignore_errors=True)
    print("context check:", files, "drop", args.drop)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
