"""The INT8 backend (`kiosk quantize`, kiosk_lab/training/quantize.py): it must read what the FP32 reader reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from kiosk.cli import main
from kiosk.errors import KioskError

MODELS = Path(__file__).resolve().parents[1] / "models"


def _agreement(int8, fp32, image) -> tuple[float, int]:
    """Share of the detector's finds whose best card the two classifiers agree on, and how many finds."""
    from kiosk_lab.training.quantize import card_masses

    a, b = card_masses(fp32, int8, image)
    return float(np.mean(a.argmax(axis=1) == b.argmax(axis=1))), len(a)


def test_the_shipped_int8_classifier_reads_the_cuts_as_the_fp32_one_does(showdown):
    from kiosk.vision.reader import load_reader

    fp32 = load_reader(MODELS, backend="openvino")
    int8 = load_reader(MODELS, backend="openvino-int8")
    share, finds = _agreement(int8, fp32, showdown.image)
    assert finds >= 30
    assert share >= 0.95, f"the INT8 classifier agrees with the FP32 one on only {share:.0%} of {finds} cuts"


def test_int8_readings_are_another_model_version():
    """A recorded hand names the reader that decided it; INT8 weights read differently."""
    from kiosk.vision.reader import load_reader

    assert load_reader(MODELS, backend="openvino").model_version != load_reader(MODELS, backend="openvino-int8").model_version


def test_quantize_names_an_unknown_part(capsys):
    assert main(["quantize", "--parts", "classifier,head"]) != 0
    err = capsys.readouterr().err
    assert "--parts" in err and "head" in err and "Traceback" not in err


def test_the_benchmark_says_how_to_make_missing_int8_models(tmp_path):
    from kiosk_lab.bench.detector import _model_dir_for

    folder = tmp_path / "fp32-only"
    shutil.copytree(MODELS, folder, ignore=shutil.ignore_patterns("*int8*", "figures"))
    with pytest.raises(KioskError, match="kiosk quantize"):
        _model_dir_for(folder, "openvino-int8")


def test_the_benchmark_of_a_reader_without_int8_models_times_the_others(tmp_path, capsys):
    """A freshly trained reader has no INT8 models yet: `kiosk bench detector` says so and goes on."""
    folder = tmp_path / "fp32-only"
    shutil.copytree(MODELS, folder, ignore=shutil.ignore_patterns("*int8*", "figures"))
    args = ["bench", "detector", "--models", str(folder), "--backends", "openvino,openvino-int8",
            "--frames", "1", "--warmup", "0", "--json"]
    assert main(args) == 0
    out = capsys.readouterr()
    assert "openvino-int8: skipped" in out.err and "kiosk quantize" in out.err
    assert [row["backend"] for row in json.loads(out.out)["rows"]] == ["openvino"]
    assert main(args[:5] + ["openvino-int8"] + args[6:]) != 0  # asked for INT8 alone: an error, not an empty table
    assert "kiosk quantize" in capsys.readouterr().err


@pytest.mark.slow
def test_quantize_writes_an_int8_backend_that_reads_a_showdown(tmp_path, showdown):
    """The recipe itself, on a few calibration frames: the new backend loads, is the same reading as
    FP32 on nearly every cut, and the FP32 models are untouched."""
    from kiosk_lab.training.quantize import agreement, quantize_reader
    from kiosk.vision.reader import load_reader
    from kiosk.vision.settings import read_settings

    folder = tmp_path / "reader"
    shutil.copytree(MODELS, folder, ignore=shutil.ignore_patterns("*int8*", "figures"))
    fp32_bin = next((folder / "index-classifier_openvino_model").glob("*.bin")).read_bytes()
    made = quantize_reader(folder, frames=4, designs=2, seed=7)
    meta = read_settings(folder)
    assert made["parts"] == ["classifier"] and len(made["designs"]) == 2 and meta.notes["int8"] == made
    assert not set(made["designs"]) & set(meta.eval_decks)
    assert meta.classifier.files["openvino-int8"] != meta.classifier.files["openvino"]
    assert meta.detector.files["openvino-int8"] == meta.detector.files["openvino"]
    assert next((folder / "index-classifier_openvino_model").glob("*.bin")).read_bytes() == fp32_bin
    share, finds = _agreement(load_reader(folder, "openvino-int8"), load_reader(folder, "openvino"), showdown.image)
    assert finds >= 30 and share >= 0.9, share
    seen = agreement(folder, frames=2)
    assert seen["cuts"] >= 30 and seen["best_card_differs"] <= 0.1 * seen["cuts"], seen


@pytest.mark.slow
def test_the_benchmark_exports_the_two_stages_and_reads_the_other_networks_where_they_lie(tmp_path, monkeypatch,
                                                                                          capsys):
    """`kiosk bench detector --backends onnx` exports the detector and the classifier into runs/reader-exports/;
    the context check is not exported but read from the reader's folder,
    so the exported reader loads and reads the frames."""
    monkeypatch.chdir(tmp_path)
    args = ["bench", "detector", "--models", str(MODELS), "--backends", "onnx", "--frames", "1", "--warmup", "0",
            "--json"]
    assert main(args) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [row["backend"] for row in rows] == ["onnx"]
    exported = json.loads(next((tmp_path / "runs" / "reader-exports").glob("*/reader.json")).read_text())
    for side in ("context_check",):
        assert all(Path(f).is_absolute() and Path(f).exists() for f in exported["stages"][side]["files"].values()), side
