"""INT8 copies of the reader's OpenVINO models (NNCF post-training quantization).

On CPUs without AVX-512 (AVX2 only) the FP32 reader takes about 300 ms a 1080p frame, a third of
it in the classifier; its INT8 copy reads the same cuts about 1.5x faster. The INT8 models sit beside
the FP32 ones as the backend `openvino-int8`; `reader.json` records how they were made.

Calibration uses rendered scenes of designs outside the reader's evaluation designs and their families,
and the cuts the reader itself makes on them (false finds included), so the
activation ranges are those of real reading.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from kiosk.errors import KioskError
from kiosk.vision.backends import INT8, to_tensor
from kiosk.vision.geometry import square_crop
from kiosk.vision.reader import load_reader
from kiosk.vision.settings import read_settings, write_settings
from kiosk_lab.synth.art import deck_info, list_decks, unseen_decks
from kiosk_lab.synth.scenes import render_random

PARTS = ("classifier", "detector")
# The detector stays FP32 by default: quantized (even only its backbone) its boxes moved by ~5 px,
# duplicates survived NMS and it found twice as many indices (docs/detector.md).
DEFAULT_PARTS = ("classifier",)
# Layers left in FP32 (patterns over OpenVINO node names): the classifier's first convolution and its
# last layer, where quantization costs the most accuracy; the detector's neck and head.
FP32 = {
    "detector": (r".*model\.(1[1-9]|2[0-3])\..*",),
    "classifier": (r".*model\.0\.conv.*", r".*model\.10\.linear.*"),
}
CALIBRATION_KINDS = ("showdown", "showdown", "pile")
FRAME = (1920, 1080)


def calibration_decks(eval_decks, count: int, seed: int) -> list[str]:
    """Designs to calibrate on: any this machine has outside the reader's evaluation designs
    and their families (and outside the committed unseen design `kenney`)."""
    here = list_decks(procedural=True)
    held_out = set(eval_decks) | {"kenney"}
    families = {deck_info(d).get("family", d) for d in held_out.intersection(here)}
    pool = [d for d in here if d not in held_out and deck_info(d).get("family", d) not in families]
    if not pool:
        raise KioskError("no deck designs to calibrate on: run 'python datasets/build.py fetch' first")
    rng = np.random.default_rng(seed)
    return [str(d) for d in rng.choice(pool, size=min(count, len(pool)), replace=False)]


def calibration_data(reader, decks: list[str], frames: int, seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Network inputs (float NCHW: NNCF quantizes the bare models) for the detector, one letterboxed
    frame each, and for the classifier, batches of 64 cuts."""
    det_inputs, cuts = [], []
    in_h, in_w = reader.finder.input_hw
    for i in range(frames):
        image = render_random(CALIBRATION_KINDS[i % 3], decks[i % len(decks)], seed=seed + i, size=FRAME).image
        canvas = np.full((in_h, in_w, 3), 114, np.uint8)
        canvas[: image.shape[0], : image.shape[1]] = image
        det_inputs.append(to_tensor(canvas[None]))
        found = reader.find_indices(image, (0, 0, image.shape[1], image.shape[0]))
        boxes = [box for box, _ in found]
        for box in boxes[:48]:
            cut = square_crop(image, box, reader.cls_size)
            cuts.append(np.rot90(cut, i % 4, axes=(0, 1)))
    batches = []
    for start in range(0, len(cuts) - 63, 64):
        batches.append(to_tensor(np.stack(cuts[start : start + 64])))
    return det_inputs, batches


def quantize_reader(model_dir: Path, parts=DEFAULT_PARTS, frames: int = 48, seed: int = 5000, designs: int = 12) -> dict:
    """Write INT8 OpenVINO models beside the FP32 ones in `model_dir` and register the backend."""
    import nncf
    import openvino as ov


    model_dir = Path(model_dir)
    settings = read_settings(model_dir)
    reader = load_reader(model_dir, backend="openvino")
    decks = calibration_decks(settings.eval_decks, designs, seed)
    det_inputs, cls_batches = calibration_data(reader, decks, frames, seed)
    core = ov.Core()
    made = {}
    for part in PARTS:
        fp32 = getattr(settings, part).files["openvino"]
        if part not in parts:
            made[part] = fp32
            continue
        xml = next((model_dir / fp32).glob("*.xml"))
        model = core.read_model(str(xml))
        data = det_inputs if part == "detector" else cls_batches
        ignored = nncf.IgnoredScope(patterns=list(FP32[part]), validate=False)
        # Asymmetric activations (MIXED; SiLU outputs are not centred on 0) and the full bias
        # correction: on 888 cuts of five unseen designs the best card then differed from FP32's
        # on 14, against 51 with NNCF's defaults (models/MODEL_CARD.md, "INT8 classifier").
        quantized = nncf.quantize(model, nncf.Dataset(data), subset_size=len(data), ignored_scope=ignored,
                                  preset=nncf.QuantizationPreset.MIXED, fast_bias_correction=False)
        folder = f"{Path(fp32).name.replace('_openvino_model', '')}_int8_openvino_model"
        shutil.rmtree(model_dir / folder, ignore_errors=True)
        (model_dir / folder).mkdir()
        ov.save_model(quantized, str(model_dir / folder / xml.name))
        made[part] = folder
    int8 = {"parts": list(parts), "frames": frames, "seed": seed, "designs": decks,
            "fp32": {part: list(FP32[part]) for part in parts}, "preset": "mixed",
            "bias_correction": "full", "nncf": nncf.__version__}
    changes = {part: {"files": {INT8: made[part]}} for part in PARTS}
    write_settings(model_dir, settings.changed(changes).model_copy(update={"notes": {**settings.notes, "int8": int8}}))
    return int8


def card_masses(fp32, int8, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per card (n, 53), the two readers' classifiers on the cuts at the FP32 detector's finds."""
    boxes = [box for box, _ in fp32.find_indices(image, (0, 0, image.shape[1], image.shape[0]))]
    return fp32.card_mass(fp32.classify(image, boxes)), int8.card_mass(int8.classify(image, boxes))


def agreement(model_dir: Path, frames: int = 15, seed: int = 7000) -> dict:
    """How the INT8 classifier reads against the FP32 one, on the cuts of cards (FP32 card mass
    >= 0.5) in rendered showdowns of designs the reader never trained on."""
    decks = unseen_decks(str(model_dir))
    if not decks:
        raise KioskError("no unseen deck design on this machine to compare the readers on")
    fp32, int8 = load_reader(model_dir, "openvino"), load_reader(model_dir, INT8)
    cuts = differ = 0
    shift = []
    for i in range(frames):
        image = render_random("showdown", decks[i % len(decks)], seed=seed + i, size=FRAME).image
        a, b = card_masses(fp32, int8, image)
        cards = a.sum(axis=1) >= 0.5
        cuts += int(cards.sum())
        differ += int((a.argmax(axis=1) != b.argmax(axis=1))[cards].sum())
        shift.append(np.abs(a - b).sum(axis=1)[cards])
    return {"designs": decks, "frames": frames, "cuts": cuts, "best_card_differs": differ,
            "mean_shift": round(float(np.concatenate(shift).mean()), 4) if cuts else 0.0}
