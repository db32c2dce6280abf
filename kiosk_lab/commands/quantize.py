"""`kiosk quantize`: INT8 copies of the card reader's OpenVINO models, for CPUs without AVX-512.

    kiosk quantize [--models models] [--parts classifier] [--frames 48] [--seed 5000] [--check 15]

Post-training quantization with NNCF (`pip install -e ".[dataset]"`), calibrated on rendered
scenes of designs outside the reader's evaluation designs (`python datasets/build.py fetch` first). Writes
`*_int8_openvino_model/` beside the FP32 models and adds the backend `openvino-int8` to
`reader.json`, then prints how often the INT8 classifier's best card differs from the FP32 one's
on rendered showdowns of unseen designs (`--check`). Compare them further with `kiosk bench detector`
and `kiosk eval --backend openvino-int8`.
See docs/detector.md.
"""

from __future__ import annotations

from pathlib import Path

from kiosk.vision.models_dir import MODELS_DEFAULT, default_models_dir


def register(subparsers) -> None:
    p = subparsers.add_parser("quantize", help="INT8 copies of the card reader's OpenVINO models", description=__doc__)
    p.add_argument("--models", "--model-dir", dest="model_dir", type=Path, default=default_models_dir(),
                   help=f"reader folder to add the INT8 models to (default: {MODELS_DEFAULT})")
    p.add_argument("--parts", default="classifier",
                   help="comma-separated: classifier, detector (default: classifier; an INT8 detector "
                        "finds twice as many false indices, docs/detector.md)")
    p.add_argument("--frames", type=int, default=48, help="rendered calibration frames (default: 48)")
    p.add_argument("--designs", type=int, default=12, help="designs to render them with, outside the evaluation designs (default: 12)")
    p.add_argument("--seed", type=int, default=5000)
    p.add_argument("--check", type=int, default=15, metavar="FRAMES",
                   help="then compare INT8 with FP32 on this many showdowns of unseen designs (0: skip)")
    p.set_defaults(func=run)


def run(args) -> int:
    from kiosk.errors import KioskError
    from kiosk_lab.training.quantize import PARTS, agreement, quantize_reader

    parts = tuple(p.strip() for p in args.parts.split(",") if p.strip())
    unknown = [p for p in parts if p not in PARTS]
    if unknown or not parts:
        raise KioskError(f"--parts: unknown part {', '.join(unknown) or '(none)'} (choose from {', '.join(PARTS)})")
    if args.frames < 4:
        raise KioskError(f"--frames {args.frames}: at least 4 calibration frames")
    try:
        import nncf  # noqa: F401
    except ImportError as err:
        raise KioskError('quantizing needs NNCF: pip install -e ".[dataset]"') from err
    made = quantize_reader(args.model_dir, parts, args.frames, args.seed, args.designs)
    print(f"INT8 {', '.join(made['parts'])} written to {args.model_dir} (backend openvino-int8), "
          f"calibrated on {args.frames} frames of {len(made['designs'])} designs outside the evaluation designs")
    if args.check and "classifier" in parts:  # the check compares the classifiers
        seen = agreement(args.model_dir, args.check)
        print(f"against FP32, on {seen['cuts']} cuts of cards in {seen['frames']} showdowns of unseen designs "
              f"({', '.join(seen['designs'])}): the best card differs on {seen['best_card_differs']}, "
              f"probabilities move by {seen['mean_shift']} on average (sum over the 53 cards)")
    return 0
