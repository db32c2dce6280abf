"""Average two index classifiers' weights (one fine-tuned from the other) into a new reader folder.

Weight-space interpolation between a model and its own fine-tune (WiSE-FT, Wortsman et al. 2022) often keeps
what the fine-tune learnt and what it forgot; the result reads at the cost of one classifier. The new folder is
a copy of BASE (its detector, reading rules and reader.json) whose classifier is

    (1 - weight) * BASE's classifier + weight * OTHER's classifier

exported to OpenVINO; make its INT8 copy after with `kiosk quantize --models OUT --parts classifier`.
At --weight 1.0 OTHER's classifier is taken whole, so it may be another network (yolo11s-cls trained from
nothing on a GPU, `kiosk train --cls-model`); any other weight needs the same network on both sides.

    .venv/bin/python scripts/average_classifiers.py /tmp/phase10/models models/phase14 --weight 0.7 --out runs/models-soup70

(the shipped classifier, phase 15: models/MODEL_CARD.md says where /tmp/phase10 comes from)
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kiosk_lab.training import train as training  # noqa: E402
from kiosk.vision.settings import READER_JSON, parse_settings, write_settings  # noqa: E402


def average_state(base: dict, other: dict, weight: float) -> dict:
    if base.keys() != other.keys():
        raise SystemExit("error: the two classifiers are not the same network (their layers differ)")
    mixed = {}
    for key, a in base.items():
        b = other[key]
        if a.shape != b.shape:
            raise SystemExit(f"error: layer {key} has shape {tuple(a.shape)} in one and {tuple(b.shape)} in the other")
        if a.is_floating_point():
            mixed[key] = ((1 - weight) * a.float() + weight * b.float()).to(a.dtype)
        else:  # BatchNorm's counter of batches seen
            mixed[key] = a
    return mixed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("base", type=Path, help="reader folder whose detector, rules and classifier start the mix")
    ap.add_argument("other", type=Path, help="reader folder whose classifier is mixed in")
    ap.add_argument("--weight", type=float, required=True, help="share of OTHER's classifier, 0..1")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if not 0.0 <= args.weight <= 1.0:
        raise SystemExit(f"error: --weight {args.weight} is not between 0 and 1")
    stem = training.CLASSIFIER
    for folder in (args.base, args.other):
        for name in (READER_JSON, f"{stem}.pt"):
            if not (folder / name).is_file():
                raise SystemExit(f"error: {folder} has no {name}: give a reader folder such as models")
    import torch

    base_meta = json.loads((args.base / READER_JSON).read_text())
    other_meta = json.loads((args.other / READER_JSON).read_text())
    if base_meta["classifier"]["names"] != other_meta["classifier"]["names"]:
        raise SystemExit("error: the two classifiers name different classes")
    other_ck = torch.load(args.other / f"{stem}.pt", map_location="cpu", weights_only=False)
    if args.weight == 1.0:
        # OTHER's classifier whole, whatever its width: how weights trained elsewhere (a wider one from scratch on
        # a GPU) become a reader folder with BASE's detector and rules.
        checkpoint = other_ck
    else:
        checkpoint = torch.load(args.base / f"{stem}.pt", map_location="cpu", weights_only=False)
        model = checkpoint["model"]
        model.load_state_dict(average_state(model.state_dict(), other_ck["model"].state_dict(), args.weight))
        checkpoint["train_args"] = {**checkpoint.get("train_args", {}),
                                    "name": f"average of {args.base} and {args.other} at {args.weight}"}

    if args.out.exists():
        shutil.rmtree(args.out)
    shutil.copytree(args.base, args.out, ignore=shutil.ignore_patterns(f"{stem}*", "figures", "phase*"))
    torch.save(checkpoint, args.out / f"{stem}.pt")
    files = training.export_model(args.out / f"{stem}.pt", args.out, stem, "classifier", ["openvino"],
                                  base_meta["classifier"].get("imgsz", 64))
    meta = base_meta  # copied into OUT above; only the classifier's entries change
    meta["classifier"]["files"] = files
    notes = meta.setdefault("notes", {})
    notes.pop("int8", None)
    notes["classifier"] = (
        f"{args.other}/{stem}.pt taken whole (scripts/average_classifiers.py --weight 1.0)" if args.weight == 1.0 else
        f"weights averaged: (1 - {args.weight}) x {args.base}/{stem}.pt + {args.weight} x {args.other}/{stem}.pt "
        "(scripts/average_classifiers.py)")
    write_settings(args.out, parse_settings(meta, str(args.base / READER_JSON)))
    print(f"wrote {args.out}: classifier = {1 - args.weight:g} x {args.base} + {args.weight:g} x {args.other}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
