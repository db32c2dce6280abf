"""Train the two-stage card reader with ultralytics, export it, and write `models/`.

Stage 1: a one-class YOLO detector ("index") on tiles (see prepare.py).
Stage 2: a YOLO classifier over square index crops: 53 cards x 4 orientations + background.
Both start from the model .yaml (no pretrained weights can be fetched here) or from
the weights already in the output folder (`--resume-from`).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from kiosk.errors import KioskError
from kiosk.vision.backends import cpu_threads
from kiosk.vision.finder import DET_INPUT  # the size the detector is exported for: the size it reads at
from kiosk.vision.settings import READER_JSON, merged, parse_settings, write_settings
from kiosk_lab.training.distill import load_teachers, teacher_callback

# No hub access on the kiosk or in CI: never let ultralytics try the network.
os.environ.setdefault("YOLO_OFFLINE", "1")

DETECTOR = "index-detector"
CLASSIFIER = "index-classifier"


@dataclass
class TrainConfig:
    data: Path
    out: Path = Path("models")
    runs: Path = Path("runs")
    stages: tuple[str, ...] = ("detector", "classifier")
    det_epochs: int = 30
    det_hours: float = 0.0  # > 0: ultralytics fits the epochs into this wall-clock time
    det_imgsz: int = 416
    det_batch: int = 16
    det_model: str = "yolo11p-index"
    cls_epochs: int = 10
    cls_hours: float = 0.0
    cls_imgsz: int = 64
    cls_batch: int = 256
    cls_model: str = "yolo11n-cls.yaml"
    resume_from: Path | None = None
    seed: int = 0
    workers: int = 2
    device: str = "cpu"
    max_det_train: int = 6000
    max_cls_train: int = 150_000
    copies: int = 1
    name: str = "reader"
    exports: tuple[str, ...] = ("onnx", "openvino")
    teachers: tuple[str, ...] = ()  # reader folders whose classifiers the classifier also learns from (distill.py)
    teacher_weight: float = 0.5
    teacher_temperature: float = 2.0
    extra: dict = field(default_factory=dict)


def _ultra_common(cfg: TrainConfig) -> dict:
    return dict(
        device=cfg.device,
        workers=cfg.workers,
        seed=cfg.seed,
        deterministic=True,
        amp=False,
        project=str(cfg.runs.resolve()),
        exist_ok=True,
        plots=True,
        verbose=True,
        fliplr=0.0,  # mirrored glyphs exist in no deck
        flipud=0.0,
    )


# The YOLO11 layout at a narrower width than "n": one class of small, high-contrast
# glyphs needs little capacity, and half the compute buys twice the training steps on a
# 2-core CPU (and a faster read).
SCALES = {"yolo11p-index": [0.33, 0.125, 1024]}


def detector_yaml(name: str, runs: Path) -> str:
    """A model .yaml ultralytics can build: a stock name, or one of our narrow scales."""
    if name not in SCALES:
        return name
    from ultralytics.utils import ROOT

    cfg = yaml.safe_load((ROOT / "cfg" / "models" / "11" / "yolo11.yaml").read_text())
    cfg["nc"] = 1
    cfg["scales"] = {"p": SCALES[name]}
    cfg["scale"] = "p"
    path = runs.resolve() / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return str(path)


def _use_every_core(trainer) -> None:
    # ultralytics trains on the CPU with one thread fewer than the machine has cores, which
    # on a 2-core machine halves the compute; its data loading runs in the same process there.
    if trainer.device.type == "cpu":
        import torch

        torch.set_num_threads(cpu_threads())
        print(f"[train] on the CPU with {torch.get_num_threads()} threads", flush=True)


def _fit(model, args: dict, start, hours: float, extra: dict) -> Path:
    """Train one stage (within `hours` when > 0) and return its best weights."""
    # pretrained=False would make ultralytics drop the weights we start from.
    args["pretrained"] = bool(start)
    if hours > 0:
        args["time"] = hours
    args.update(extra)
    model.add_callback("on_pretrain_routine_start", _use_every_core)
    model.train(**args)
    return Path(model.trainer.best if Path(model.trainer.best).is_file() else model.trainer.last)


def train_detector(cfg: TrainConfig, data_yaml: Path) -> Path:
    from ultralytics import YOLO

    start = cfg.resume_from / f"{DETECTOR}.pt" if cfg.resume_from else None
    if start is not None and not start.is_file():
        raise KioskError(f"--resume-from {cfg.resume_from}: no {DETECTOR}.pt there")
    model = YOLO(str(start) if start else detector_yaml(cfg.det_model, cfg.runs), task="detect")
    args = dict(
        data=str(data_yaml),
        epochs=cfg.det_epochs,
        imgsz=cfg.det_imgsz,
        batch=cfg.det_batch,
        name=f"{cfg.name}-det",
        degrees=12.0,  # seats face four ways (in the scenes); this adds the hand's slack
        scale=0.25,
        translate=0.1,
        mosaic=1.0,
        close_mosaic=1 if cfg.det_hours > 0 else max(0, min(3, cfg.det_epochs // 5)),
        hsv_h=0.02,
        hsv_s=0.6,
        hsv_v=0.45,
        # Explicit: ultralytics' "auto" picks by iteration count, and its warm-up of 3 epochs
        # would eat most of a budget of a few epochs.
        optimizer="AdamW",
        lr0=0.002,
        warmup_epochs=0.5,
        patience=100,
        **_ultra_common(cfg),
    )
    return _fit(model, args, start, cfg.det_hours, cfg.extra.get("det", {}))


def train_classifier(cfg: TrainConfig, crops: Path) -> Path:
    from ultralytics import YOLO

    start = cfg.resume_from / f"{CLASSIFIER}.pt" if cfg.resume_from else None
    if start is not None and not start.is_file():
        raise KioskError(f"--resume-from {cfg.resume_from}: no {CLASSIFIER}.pt there")
    model = YOLO(str(start) if start else cfg.cls_model, task="classify")
    args = dict(
        data=str(crops),
        epochs=cfg.cls_epochs,
        imgsz=cfg.cls_imgsz,
        batch=cfg.cls_batch,
        name=f"{cfg.name}-cls",
        scale=0.12,  # RandomResizedCrop keeps >= 88% of the cut: never crop the pip away
        erasing=0.1,
        auto_augment="randaugment",
        hsv_h=0.02,
        hsv_s=0.5,
        hsv_v=0.4,
        # "auto" would give AdamW at lr 0.002*5/(4+213) = 4.6e-5 for 213 classes: far too slow
        # to learn from scratch in a few epochs.
        optimizer="AdamW",
        lr0=0.002,
        warmup_epochs=0.3,
        patience=100,
        **_ultra_common(cfg),
    )
    if cfg.teachers:
        # ultralytics names the classes by the sorted class folders: a teacher of other classes fails before training
        classes = sorted(p.name for p in (Path(crops) / "train").iterdir() if p.is_dir())
        teachers = load_teachers(tuple(Path(t) for t in cfg.teachers), dict(enumerate(classes)))
        model.add_callback("on_train_start", teacher_callback(teachers, cfg.teacher_weight, cfg.teacher_temperature))
    return _fit(model, args, start, cfg.cls_hours, cfg.extra.get("cls", {}))


def export_model(weights: Path, out_dir: Path, stem: str, kind: str, formats, cls_imgsz: int = 64,
                 det_input: tuple[int, int] = DET_INPUT) -> dict:
    """Copy the weights to out_dir/<stem>.pt and export the requested formats beside them."""
    from ultralytics import YOLO

    out_dir.mkdir(parents=True, exist_ok=True)
    pt = out_dir / f"{stem}.pt"
    if weights.resolve() != pt.resolve():
        shutil.copy2(weights, pt)
    files = {"pytorch": pt.name}
    for fmt in formats:
        model = YOLO(str(pt), task="detect" if kind == "detector" else "classify")
        if kind == "detector":
            kw = dict(imgsz=list(det_input), batch=1, dynamic=False)
        else:
            kw = dict(imgsz=cls_imgsz, batch=1, dynamic=True)
        if fmt == "onnx":
            kw["simplify"] = False  # onnxslim is not installed; the plain graph runs as fast here
        produced = Path(model.export(format=fmt, device="cpu", verbose=False, **kw))
        key = "onnx" if fmt == "onnx" else "openvino"
        files[key] = produced.name
    return files


def write_reader_json(out_dir: Path, det_files: dict, cls_files: dict, cls_names: list[str], cfg: TrainConfig) -> Path:
    """reader.json for the networks just trained; a folder's settings (thresholds and stages: tuned, not trained)
    and notes carry over."""
    old = out_dir / READER_JSON
    previous = json.loads(old.read_text()) if old.is_file() else {}
    notes = {"trained": time.strftime("%Y-%m-%d"),
             "train_config": {k: (str(v) if isinstance(v, Path) else v) for k, v in cfg.__dict__.items()}}
    new = {"detector": {"input": list(DET_INPUT)}, "classifier": {"imgsz": cfg.cls_imgsz, "names": cls_names},
           "default_backend": previous.get("default_backend", "onnx"), "notes": notes}
    splits = Path(cfg.data) / "decks.json"
    if splits.is_file():  # the designs never trained on, for the benchmarks that need unseen decks
        test = json.loads(splits.read_text()).get("test")
        if test:
            new["eval_decks"] = list(test)
    data = merged(previous, new)
    data["detector"]["files"], data["classifier"]["files"] = det_files, cls_files  # only the files just made
    return write_settings(out_dir, parse_settings(data, str(old)))
