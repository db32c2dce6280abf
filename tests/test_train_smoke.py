"""One-epoch smoke training on a tiny generated set: the training path still runs end to end.

Never judges accuracy (one epoch on a handful of scenes reads nothing); it proves that
`kiosk train` cuts tiles and crops, trains both stages with ultralytics, exports ONNX and
OpenVINO, writes reader.json and the figures, and that the result loads and reads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from kiosk.vision.detections import Detections


@pytest.mark.slow
def test_one_epoch_training_writes_a_reader_that_loads_and_reads(tmp_path):
    from kiosk_lab.synth.dataset import build

    build("smoke", {"train": 4, "val": 2, "test": 0}, seed=3, out_root=tmp_path, workers=1,
          mix={"showdown": 1.0}, forced={"val": ["kenney"]}, log=lambda *_: None)
    data = tmp_path / "smoke"
    out = tmp_path / "models"
    cmd = [
        sys.executable, "-m", "kiosk", "train", "--data", str(data), "--out", str(out),
        "--runs", str(tmp_path / "runs"), "--seed", "0", "--workers", "0",
        "--det-epochs", "1", "--det-tiles", "12", "--det-batch", "4", "--det-imgsz", "256",
        "--cls-epochs", "1", "--cls-crops", "600", "--cls-batch", "64", "--cls-imgsz", "32",
        "--recolour", "0.5",
    ]
    out.mkdir()
    # A folder that already holds a reader (continued training): its tuned thresholds stay.
    (out / "reader.json").write_text(json.dumps({"confidence": {"least": 0.42}, "detector": {"conf": 0.07}}))
    env = {k: v for k, v in os.environ.items() if k != "KIOSK_THREADS"}  # every core
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]

    meta = json.loads((out / "reader.json").read_text())
    for stage in ("detector", "classifier"):
        assert set(meta[stage]["files"]) == {"pytorch", "onnx", "openvino"}
        for f in meta[stage]["files"].values():
            assert (out / f).exists(), f
    assert len(meta["classifier"]["names"]) == 53 * 4 + 1  # every card x 4 orientations + background
    assert meta["confidence"]["least"] == 0.42 and meta["detector"]["conf"] == 0.07
    test_decks = json.loads((data / "decks.json").read_text())["test"]
    assert test_decks and meta["eval_decks"] == test_decks  # the designs never trained on
    for fig in ("classifier_confusion.png", "classifier_pr.png", "val_scenes_confusion.png", "train_summary.json"):
        assert (out / "figures" / fig).is_file(), fig
    assert "epoch" in (run.stdout + run.stderr).lower()  # ultralytics' progress was shown
    # ultralytics alone would train with one core fewer than the machine has
    assert run.stdout.count(f"[train] on the CPU with {os.cpu_count()} threads") == 2, run.stdout[-3000:]

    import cv2
    from kiosk.vision.reader import load_reader

    image = cv2.imread(str(next((data / "images" / "val").glob("*.jpg"))))
    for backend in ("pytorch", "onnx", "openvino"):
        dets = load_reader(out, backend=backend).read(image, source="smoke")
        assert isinstance(dets, Detections) and dets.image_size == (image.shape[1], image.shape[0])


def _kiosk_train(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "kiosk", "train", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def test_crops_already_cut_are_refused_with_the_option_at_fault(tmp_path):
    crops = tmp_path / "crops"
    (crops / "train" / "As.0").mkdir(parents=True)
    run = _kiosk_train("--crops", crops, "--stage", "classifier")
    assert run.returncode == 2 and f"--crops {crops}: no val/ folder of class folders" in run.stderr
    assert "Traceback" not in run.stderr
    (crops / "val" / "As.0").mkdir(parents=True)
    run = _kiosk_train("--crops", crops)
    assert run.returncode == 2 and "--crops trains the classifier only: add --stage classifier" in run.stderr
    run = _kiosk_train("--crops", crops, "--stage", "classifier", "--data", tmp_path)
    assert run.returncode == 2 and "--crops and --data exclude each other" in run.stderr
    run = _kiosk_train("--crops", crops, "--stage", "classifier", "--mine", "10")
    assert run.returncode == 2 and "--mine cuts crops from scenes" in run.stderr
    run = _kiosk_train("--stage", "classifier")
    assert run.returncode == 2 and "give --data (a generated data set) or --crops" in run.stderr
    for device, says in (("gpu", "give cpu, or GPU numbers such as 0 or 0,1"), ("7", "GPU(s) here; train with --device cpu")):
        run = _kiosk_train("--crops", crops, "--stage", "classifier", "--device", device)
        assert run.returncode == 2 and f"--device {device}: " in run.stderr and says in run.stderr, run.stderr
    run = _kiosk_train("--crops", crops, "--stage", "classifier", "--cls-model", "yolo11x-cls.yaml")
    assert run.returncode == 2 and "--cls-model: invalid choice: 'yolo11x-cls.yaml'" in run.stderr, run.stderr
    run = _kiosk_train("--crops", crops, "--stage", "classifier", "--cls-model", "yolo11s-cls.yaml", "--resume-from", "models")
    assert run.returncode == 2 and "--cls-model yolo11s-cls.yaml starts the classifier from nothing" in run.stderr
    run = _kiosk_train("--data", tmp_path, "--cut-only")
    assert run.returncode == 2 and "--cut-only cuts the classifier's crops from --data: add --stage classifier" in run.stderr


def _crops_of_the_shipped_classes(root, per_class=1):
    """A crop folder with the shipped classifier's class folders, each holding noise pictures."""
    import cv2
    import numpy as np
    from ultralytics import YOLO

    names = YOLO("models/index-classifier.pt", task="classify").names
    rng = np.random.default_rng(0)
    for split in ("train", "val"):
        for name in names.values():
            folder = root / split / name
            folder.mkdir(parents=True)
            for k in range(per_class):
                cv2.imwrite(str(folder / f"{k}.jpg"), rng.integers(0, 255, (32, 32, 3), dtype=np.uint8))
    return root


def test_the_distillation_loss_follows_the_teachers_as_weighted():
    import torch
    import torch.nn.functional as F

    from kiosk_lab.training.distill import DistillLoss

    torch.manual_seed(0)
    logits = torch.randn(8, 5)
    batch = {"img": torch.zeros(8, 3, 4, 4), "cls": torch.randint(0, 5, (8,))}
    agreeing = lambda img: (None, logits)  # noqa: E731  reads just what the student reads
    other = torch.randn(8, 5) * 3
    disagreeing = lambda img: (None, other)  # noqa: E731
    ce = F.cross_entropy(logits, batch["cls"]).item()
    assert DistillLoss([disagreeing], 0.0, 2.0)(logits, batch)[0].item() == pytest.approx(ce)
    assert DistillLoss([agreeing], 1.0, 2.0)(logits, batch)[0].item() == pytest.approx(0.0, abs=1e-6)
    apart = DistillLoss([disagreeing], 1.0, 2.0)(logits, batch)[0].item()
    assert apart > 0.1
    # two teachers are averaged: half the disagreeing one's pull is less than all of it
    assert 0 < DistillLoss([agreeing, disagreeing], 1.0, 2.0)(logits, batch)[0].item() < apart
    half = DistillLoss([disagreeing], 0.5, 2.0)(logits, batch)[0].item()
    assert half == pytest.approx(0.5 * ce + 0.5 * apart)


def test_teachers_are_refused_with_the_option_at_fault(tmp_path):
    crops = tmp_path / "crops"
    (crops / "train" / "As.0").mkdir(parents=True)
    (crops / "val" / "As.0").mkdir(parents=True)
    run = _kiosk_train("--crops", crops, "--stage", "classifier", "--teacher", tmp_path)
    assert run.returncode == 2 and f"--teacher {tmp_path}: no index-classifier.pt there" in run.stderr, run.stderr
    run = _kiosk_train("--crops", crops, "--stage", "classifier", "--teacher", "models", "--teacher-weight", "1.5")
    assert run.returncode == 2 and "--teacher-weight 1.5: give a share between 0 and 1" in run.stderr
    run = _kiosk_train("--crops", crops, "--stage", "classifier", "--teacher", "models", "--teacher-temperature", "0")
    assert run.returncode == 2 and "--teacher-temperature 0.0: give a temperature above 0" in run.stderr
    run = _kiosk_train("--data", tmp_path, "--teacher", "models")
    assert run.returncode == 2 and "--teacher teaches the classifier: add --stage classifier" in run.stderr
    # a teacher of other classes than the crops' folders, before any training
    run = _kiosk_train("--crops", crops, "--stage", "classifier", "--teacher", "models", "--out", tmp_path / "out",
                       "--runs", tmp_path / "runs", "--no-export", timeout=120)
    assert run.returncode == 2 and "--teacher models: its classifier reads 213 classes, not the 1 class folders" in run.stderr
    assert "Traceback" not in run.stderr and not (tmp_path / "out" / "index-classifier.pt").exists()


@pytest.mark.slow
def test_a_classifier_trains_from_two_teachers(tmp_path):
    """`kiosk train --teacher`: the shipped classifier fine-tuned one epoch while two teachers read every batch."""
    import shutil

    crops = _crops_of_the_shipped_classes(tmp_path / "crops")
    student = tmp_path / "student"
    shutil.copytree("models", student, ignore=shutil.ignore_patterns("figures", "*openvino*"))
    run = _kiosk_train("--crops", crops, "--stage", "classifier", "--cls-epochs", "1", "--cls-batch", "64",
                       "--cls-imgsz", "64", "--out", student, "--resume-from", student, "--runs", tmp_path / "runs",
                       "--teacher", "models", "--teacher", "models", "--teacher-weight", "0.7", "--no-export",
                       "--no-eval", timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "learning from 2 teacher(s) (weight 0.7, temperature 2.0)" in run.stdout
    meta = json.loads((student / "reader.json").read_text())
    assert meta["notes"]["train_config"]["teachers"] == ["models", "models"]
    assert meta["notes"]["train_config"]["teacher_weight"] == 0.7
    from ultralytics import YOLO

    trained = YOLO(str(student / "index-classifier.pt"), task="classify").model.state_dict()
    shipped = YOLO("models/index-classifier.pt", task="classify").model.state_dict()
    assert any((trained[k].float() - shipped[k].float()).abs().max() > 0 for k in shipped if trained[k].is_floating_point())
