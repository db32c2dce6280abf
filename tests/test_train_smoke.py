"""One-epoch smoke training on a tiny generated set: the training path still runs end to end.

Never judges accuracy (one epoch on a handful of scenes reads nothing); it proves that
`kiosk train` cuts tiles and crops, trains both stages with ultralytics, exports ONNX and
OpenVINO, writes reader.json and the figures, and that the result loads and reads.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kiosk.vision.detections import Detections


@pytest.mark.slow
def test_one_epoch_training_writes_a_reader_that_loads_and_reads(tmp_path):
    from kiosk.synth.dataset import build

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
    (out / "reader.json").write_text(json.dumps({"min_confidence": 0.42, "det_conf": 0.07}))
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]

    meta = json.loads((out / "reader.json").read_text())
    for stage in ("detector", "classifier"):
        assert set(meta[stage]["files"]) == {"pytorch", "onnx", "openvino"}
        for f in meta[stage]["files"].values():
            assert (out / f).exists(), f
    assert len(meta["classifier"]["names"]) == 53 * 4 + 1  # every card x 4 orientations + background
    assert meta["min_confidence"] == 0.42 and meta["det_conf"] == 0.07
    test_decks = json.loads((data / "decks.json").read_text())["test"]
    assert test_decks and meta["eval_decks"] == test_decks  # the designs never trained on
    for fig in ("classifier_confusion.png", "classifier_pr.png", "val_scenes_confusion.png", "train_summary.json"):
        assert (out / "figures" / fig).is_file(), fig
    assert "epoch" in (run.stdout + run.stderr).lower()  # ultralytics' progress was shown

    import cv2
    from kiosk.vision.reader import load_reader

    image = cv2.imread(str(next((data / "images" / "val").glob("*.jpg"))))
    for backend in ("pytorch", "onnx", "openvino"):
        dets = load_reader(out, backend=backend).read(image, source="smoke")
        assert isinstance(dets, Detections) and dets.image_size == (image.shape[1], image.shape[0])
