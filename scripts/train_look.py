"""Make the reader's suit look (`models/index-suits*`) again, in one command.

A look is a small classifier that reads an index cut turned upright and answers one question: clubs or spades (the
suit look, kiosk/vision/suit_look.py). Steps (a step whose output is there is skipped):

1. `scripts/crops_v20c.py`: phase 20's crops (`runs/prep/v20c/cls`, about 9 minutes);
2. its crops turned upright by their label's orientation and labelled by the look's answer alone:
   the clubs and spades, `c`, `s` (runs/prep/suit58: 28 107 training and 3 226 validation crops);
3. the shipped classifier fine-tuned on them (12 epochs from seed 58, about 20 minutes on 2 cores), the best epoch
   exported to OpenVINO, into `runs/models-suit` (a copy of `models/` with the look in its reader.json);
4. with --install, its weights copied into `models/` and the look written into `models/reader.json`.

    .venv/bin/python scripts/train_look.py suits [--install]

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
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CROPS = Path("runs/prep/v20c/cls")


@dataclass(frozen=True)
class Look:
    key: str  # its stage in reader.json (`stages`)
    stem: str  # its weights' name in models/
    upright: Path
    out: Path
    epochs: int
    seed: int
    settings: dict  # how the reader uses it, written beside its files

    def answer(self, card: str) -> str | None:
        """What the look is taught a crop of `card` is (None: not taught it)."""
        return card[1] if card[1] in "cs" else None

    def name(self, card: str, k: str, stem: str) -> str:
        # as the shipped look's crops were named: the order of the files is the order training draws them in
        return f"{card}_{stem}.png"


LOOKS = {
    # the two suits' shares swapped where the product of the classifier's split and the look's prefers the other
    # suit; sharpening them let backs through (model card)
    "suits": Look("suit_look", "index-suits", Path("runs/prep/suit58"), Path("runs/models-suit"), 12, 58,
                  {"weight": 1.0, "sharpen": False}),
}


def log(msg: str) -> None:
    print(f"[train_look {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def upright(look: Look, crops: Path) -> Path:
    """Each crop the look is taught (`<card>.<k>` folders), turned upright, under its answer."""
    out = look.upright
    if (out / "val").is_dir():
        return out
    tmp = out.with_name(out.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    for split in ("train", "val"):
        n = 0
        for folder in sorted((crops / split).iterdir()):
            card, _, k = folder.name.partition(".")
            answer = look.answer(card) if len(card) == 2 and card != "bg" else None
            if answer is None:
                continue
            (tmp / split / answer).mkdir(parents=True, exist_ok=True)
            for crop in sorted(folder.glob("*.jpg")):
                turned = np.ascontiguousarray(np.rot90(cv2.imread(str(crop)), int(k)))
                cv2.imwrite(str(tmp / split / answer / look.name(card, k, crop.stem)), turned)
                n += 1
        log(f"{split}: {n} upright crops")
    tmp.rename(out)
    return out


def train(data: Path, epochs: int, seed: int) -> Path:
    os.environ.setdefault("YOLO_OFFLINE", "1")
    from ultralytics import YOLO

    model = YOLO("models/index-classifier.pt", task="classify")
    model.train(data=str(data), epochs=epochs, imgsz=64, batch=256, name=data.name, scale=0.12, erasing=0.1,
                auto_augment="randaugment", hsv_h=0.02, hsv_s=0.5, hsv_v=0.4, optimizer="AdamW", lr0=0.001,
                warmup_epochs=0.3, patience=100, device="cpu", workers=2, seed=seed, deterministic=True, amp=False,
                project=str((ROOT / "runs").resolve()), exist_ok=True, plots=True, verbose=True, fliplr=0.0,
                flipud=0.0, pretrained=True)
    return Path(model.trainer.best)


def reader_folder(look: Look, weights: Path) -> None:
    from kiosk_lab.training.train import export_model

    shutil.rmtree(look.out, ignore_errors=True)
    shutil.copytree("models", look.out,
                    ignore=shutil.ignore_patterns("phase14", "figures", "MODEL_CARD.md", f"{look.stem}*"))
    files = export_model(weights, look.out, look.stem, "classifier", ["openvino"], cls_imgsz=64)
    with_look(look, look.out / "reader.json", files, _names(weights))


def _names(weights: Path) -> list[str]:
    import torch

    names = torch.load(weights, map_location="cpu", weights_only=False)["model"].names
    return [names[i] for i in range(len(names))]


def with_look(look: Look, reader_json: Path, files: dict, names: list[str]) -> None:
    """The look written into a reader.json (`stages`), with the settings the reader uses it with."""
    meta = json.loads(reader_json.read_text())
    meta.setdefault("stages", {})[look.key] = {"files": files, "names": names, **look.settings}
    meta.setdefault("notes", {})[look.key] = (f"{time.strftime('%Y-%m-%d')}: scripts/train_look.py "
                                              f"{look.stem.removeprefix('index-')}")
    reader_json.write_text(json.dumps(meta, indent=2) + "\n")


def install(look: Look) -> None:
    models = Path("models")
    shutil.copy(look.out / f"{look.stem}.pt", models / f"{look.stem}.pt")
    shutil.rmtree(models / f"{look.stem}_openvino_model", ignore_errors=True)
    shutil.copytree(look.out / f"{look.stem}_openvino_model", models / f"{look.stem}_openvino_model")
    files = {"pytorch": f"{look.stem}.pt", "openvino": f"{look.stem}_openvino_model"}
    names = json.loads((look.out / "reader.json").read_text())["stages"][look.key]["names"]
    with_look(look, models / "reader.json", files, names)
    log(f"installed into {models}: {look.stem}.pt, {look.stem}_openvino_model/, reader.json 'stages.{look.key}'")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("look", choices=sorted(LOOKS), help="which look to make")
    ap.add_argument("--epochs", type=int, help="default: the shipped look's")
    ap.add_argument("--seed", type=int, help="default: the shipped look's")
    ap.add_argument("--install", action="store_true", help="copy the look's weights into models/")
    args = ap.parse_args()
    look = LOOKS[args.look]
    os.chdir(ROOT)
    t0 = time.time()
    if not (CROPS / "val").is_dir():
        subprocess.run([sys.executable, "scripts/crops_v20c.py"], cwd=ROOT, check=True)
    data = upright(look, CROPS)
    if not (look.out / f"{look.stem}_openvino_model").is_dir():
        epochs = args.epochs or look.epochs
        log(f"fine-tuning the shipped classifier as the {look.key.replace('_', ' ')}, {epochs} epochs")
        reader_folder(look, train(data, epochs, args.seed if args.seed is not None else look.seed))
    if args.install:
        install(look)
    log(f"done in {time.time() - t0:.0f} s: {look.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
