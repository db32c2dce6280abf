"""`scripts/average_classifiers.py`: the shipped classifier is a weighted average of two (models/MODEL_CARD.md)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("average_classifiers", ROOT / "scripts" / "average_classifiers.py")
average_classifiers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(average_classifiers)


def test_each_weight_moves_its_share_of_the_way_and_the_batch_counter_is_left_alone():
    base = {"conv.weight": torch.tensor([0.0, 4.0], dtype=torch.float16),
            "bn.num_batches_tracked": torch.tensor(7)}
    other = {"conv.weight": torch.tensor([8.0, 0.0], dtype=torch.float16),
             "bn.num_batches_tracked": torch.tensor(99)}
    mixed = average_classifiers.average_state(base, other, 0.25)
    assert mixed["conv.weight"].tolist() == [2.0, 3.0]
    assert mixed["conv.weight"].dtype == torch.float16
    assert mixed["bn.num_batches_tracked"].item() == 7


def test_two_different_networks_are_refused_by_name():
    with pytest.raises(SystemExit, match="head.weight"):
        average_classifiers.average_state({"head.weight": torch.zeros(3)}, {"head.weight": torch.zeros(4)}, 0.5)
    with pytest.raises(SystemExit, match="not the same network"):
        average_classifiers.average_state({"a": torch.zeros(1)}, {"b": torch.zeros(1)}, 0.5)


@pytest.mark.slow
def test_a_mixed_folder_reads_a_table_and_says_what_it_was_mixed_from(tmp_path, showdown):
    from kiosk.vision.reader import load_reader

    models = ROOT / "models"
    out = tmp_path / "mixed"
    assert average_classifiers.main([str(models), str(models), "--weight", "0.3", "--out", str(out)]) == 0
    meta = json.loads((out / "reader.json").read_text())
    assert "0.3 x" in meta["notes"]["classifier"]
    assert "int8" not in meta["notes"]  # the INT8 copy of the old classifier must not be read as the new one's
    shipped = torch.load(models / "index-classifier.pt", map_location="cpu", weights_only=False)["model"].state_dict()
    mixed = torch.load(out / "index-classifier.pt", map_location="cpu", weights_only=False)["model"].state_dict()
    for key, value in shipped.items():  # a network averaged with itself is itself
        assert torch.allclose(value.float(), mixed[key].float(), atol=1e-3), key
    readings = load_reader(out, backend="openvino").read(showdown.image)
    assert len(readings) >= 30


def test_a_weight_outside_zero_to_one_and_a_folder_that_is_no_reader_are_refused(tmp_path):
    with pytest.raises(SystemExit, match="not between 0 and 1"):
        average_classifiers.main([str(ROOT / "models"), str(ROOT / "models"), "--weight", "1.5", "--out", str(tmp_path / "x")])
    with pytest.raises(SystemExit, match=f"{tmp_path} has no reader.json"):
        average_classifiers.main([str(ROOT / "models"), str(tmp_path), "--weight", "0.5", "--out", str(tmp_path / "x")])
    assert not (tmp_path / "x").exists()


@pytest.mark.slow
def test_at_weight_one_a_wider_classifier_is_taken_whole_and_read(tmp_path):
    """A yolo11s-cls trained from nothing (kiosk train --cls-model, on a GPU) becomes a reader folder as it is;
    averaged with the shipped yolo11n-cls it is refused by the layer that differs."""
    import numpy as np
    from ultralytics.nn.tasks import ClassificationModel

    from kiosk.vision.reader import load_reader

    models = ROOT / "models"
    checkpoint = torch.load(models / "index-classifier.pt", map_location="cpu", weights_only=False)
    names = checkpoint["model"].names
    wide = ClassificationModel("yolo11s-cls.yaml", nc=len(names), verbose=False)
    wide.names = names
    wide_size = sum(p.numel() for p in wide.parameters())
    (tmp_path / "wide").mkdir()
    (tmp_path / "wide" / "reader.json").write_text((models / "reader.json").read_text())
    torch.save({**checkpoint, "model": wide, "ema": None}, tmp_path / "wide" / "index-classifier.pt")

    with pytest.raises(SystemExit, match="has shape"):
        average_classifiers.main([str(models), str(tmp_path / "wide"), "--weight", "0.5", "--out", str(tmp_path / "x")])
    out = tmp_path / "taken"
    assert average_classifiers.main([str(models), str(tmp_path / "wide"), "--weight", "1.0", "--out", str(out)]) == 0
    said = json.loads((out / "reader.json").read_text())["notes"]["classifier"]
    assert said == f"{tmp_path / 'wide'}/index-classifier.pt taken whole (scripts/average_classifiers.py --weight 1.0)"
    taken = torch.load(out / "index-classifier.pt", map_location="cpu", weights_only=False)["model"]
    assert sum(p.numel() for p in taken.parameters()) == wide_size > 3 * sum(p.numel() for p in checkpoint["model"].parameters())
    probs = load_reader(out, backend="openvino").classify_crops(np.zeros((2, 64, 64, 3), np.uint8))
    assert probs.shape[0] == 2 and probs.shape[-1] == len(names)
