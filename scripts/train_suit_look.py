"""Make the suit look (`models/index-suits*`, kiosk/vision/suit_look.py) again, in one command.

The suit look tells clubs from spades on an index cut turned upright. Steps (a step whose output is there is
skipped):

1. `scripts/crops_v20c.py`: phase 20's crops (`runs/prep/v20c/cls`, about 9 minutes);
2. `runs/prep/suit58`: its crops of clubs and spades turned upright by their label's orientation and labelled by
   suit alone (`c`, `s`; 28 107 training and 3 226 validation crops);
3. the shipped classifier fine-tuned on them as a two-class classifier, 12 epochs from seed 58 (about 20 minutes on
   2 cores), and exported to OpenVINO, into `runs/models-suit` (a copy of `models/` with `suit_look` in its
   reader.json);
4. with --install, its weights copied into `models/` as `index-suits.pt` and `index-suits_openvino_model/`, and
   `suit_look` written into `models/reader.json`.

    .venv/bin/python scripts/train_suit_look.py [--install]

after `.venv/bin/python datasets/build.py fetch`.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CROPS = Path("runs/prep/v20c/cls")
UPRIGHT = Path("runs/prep/suit58")
OUT = Path("runs/models-suit")
# How the reader uses the look (reader.json `suit_look`): the two suits' shares swapped where the product of the
# classifier's split and the look's prefers the other suit; sharpening them let backs through (model card).
SETTINGS = {"weight": 1.0, "sharpen": False}


def log(msg: str) -> None:
    print(f"[train_suit_look {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def upright_black(crops: Path, out: Path) -> Path:
    """Each crop of clubs or spades (`<card>.<k>` folders), turned upright, under `c/` or `s/`."""
    if (out / "val").is_dir():
        return out
    tmp = out.with_name(out.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    for split in ("train", "val"):
        n = 0
        for folder in sorted((crops / split).iterdir()):
            card, _, k = folder.name.partition(".")
            if len(card) != 2 or card[1] not in "cs":
                continue
            (tmp / split / card[1]).mkdir(parents=True, exist_ok=True)
            for crop in sorted(folder.glob("*.jpg")):
                upright = np.ascontiguousarray(np.rot90(cv2.imread(str(crop)), int(k)))
                cv2.imwrite(str(tmp / split / card[1] / f"{card}_{crop.stem}.png"), upright)
                n += 1
        log(f"{split}: {n} upright crops of clubs and spades")
    tmp.rename(out)
    return out


def train(data: Path, epochs: int, seed: int) -> Path:
    os.environ.setdefault("YOLO_OFFLINE", "1")
    from ultralytics import YOLO

    model = YOLO("models/index-classifier.pt", task="classify")
    model.train(data=str(data), epochs=epochs, imgsz=64, batch=256, name="suit58", scale=0.12, erasing=0.1,
                auto_augment="randaugment", hsv_h=0.02, hsv_s=0.5, hsv_v=0.4, optimizer="AdamW", lr0=0.001,
                warmup_epochs=0.3, patience=100, device="cpu", workers=2, seed=seed, deterministic=True, amp=False,
                project=str((ROOT / "runs").resolve()), exist_ok=True, plots=True, verbose=True, fliplr=0.0,
                flipud=0.0, pretrained=True)
    return Path(model.trainer.best)


def reader_folder(weights: Path, out: Path) -> None:
    from kiosk.vision.training import export_model

    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree("models", out, ignore=shutil.ignore_patterns("phase14", "figures", "MODEL_CARD.md", "index-suits*"))
    files = export_model(weights, out, "index-suits", "classifier", ["openvino"], cls_imgsz=64)
    with_look(out / "reader.json", files)


def with_look(reader_json: Path, files: dict) -> None:
    """`suit_look` written into a reader.json, with the settings the reader uses it with."""
    meta = json.loads(reader_json.read_text())
    meta["suit_look"] = {"files": files, "names": ["c", "s"], **SETTINGS,
                         "trained": "scripts/train_suit_look.py; models/MODEL_CARD.md, results, 'The suit look'"}
    reader_json.write_text(json.dumps(meta, indent=2) + "\n")


def install(trained: Path) -> None:
    models = Path("models")
    shutil.copy(trained / "index-suits.pt", models / "index-suits.pt")
    shutil.rmtree(models / "index-suits_openvino_model", ignore_errors=True)
    shutil.copytree(trained / "index-suits_openvino_model", models / "index-suits_openvino_model")
    with_look(models / "reader.json", {"pytorch": "index-suits.pt", "openvino": "index-suits_openvino_model"})
    log(f"installed into {models}: index-suits.pt, index-suits_openvino_model/, reader.json 'suit_look'")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=58)
    ap.add_argument("--install", action="store_true", help="copy the look's weights into models/")
    args = ap.parse_args()
    os.chdir(ROOT)
    t0 = time.time()
    if not (CROPS / "val").is_dir():
        subprocess.run([sys.executable, "scripts/crops_v20c.py"], cwd=ROOT, check=True)
    data = upright_black(CROPS, UPRIGHT)
    if not (OUT / "index-suits_openvino_model").is_dir():
        log(f"fine-tuning the shipped classifier as clubs-or-spades, {args.epochs} epochs")
        reader_folder(train(data, args.epochs, args.seed), OUT)
    if args.install:
        install(OUT)
    log(f"done in {time.time() - t0:.0f} s: {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
