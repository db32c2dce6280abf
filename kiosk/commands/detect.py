"""`kiosk detect IMAGE... [--json]`: read the cards in pictures.

With --json it prints the contract other tools call:
    [{"image": "path", "cards": [{"card": "Ks", "confidence": 0.98, "box": [x1, y1, x2, y2]}]}]
(boxes in pixels of the original image, one entry per physical card, the joker as "Jk").
A picture that cannot be read gets {"image": ..., "cards": [], "error": "..."}, a line on
stderr naming it, and the exit code 1; the other pictures are still read.
Without --json it writes annotated copies into --out and prints a readable list.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kiosk.errors import KioskError
from kiosk.vision.models_dir import MODELS_HELP, default_models_dir

DOUBTFUL = 0.8


def register(subparsers) -> None:
    p = subparsers.add_parser("detect", help="read the cards in images (--json for other tools)", description=__doc__)
    p.add_argument("images", nargs="+", metavar="IMAGE", help="image files (a folder stands for the images in it)")
    p.add_argument("--json", action="store_true", help="print JSON only (the contract other tools call)")
    p.add_argument("--models", "--model-dir", dest="model_dir", default=default_models_dir(), help=MODELS_HELP)
    p.add_argument("--backend", default="auto", help="auto (the default in reader.json), openvino-int8, openvino, onnx or pytorch")
    p.add_argument("--many-decks", action="store_true",
                   help="the pictures may show a card more than once (by default a picture holds one deck)")
    p.add_argument("--out", type=Path, default=Path("runs/detect"), help="where annotated images go (without --json; default: %(default)s)")
    p.add_argument("--no-images", action="store_true", help="do not write annotated images")
    p.set_defaults(func=run)


def run(args) -> int:
    from kiosk.vision.images import expand_inputs, load_picture
    from kiosk.vision.reader import load_reader

    reader = load_reader(args.model_dir, backend=args.backend, many_decks=args.many_decks)
    results, failed, written = [], 0, set()
    for path in expand_inputs(args.images):
        try:
            image, (sx, sy) = load_picture(path)
            read = reader.read_picture(image, source=str(path))
        except KioskError as err:
            failed += 1
            print(f"kiosk detect: {err}", file=sys.stderr)
            results.append({"image": str(path), "cards": [], "error": str(err)})
            continue
        h, w = image.shape[:2]
        # a photo over the pixel limit was read smaller: its boxes are given in the file's own pixels
        dets = read if (sx, sy) == (1.0, 1.0) else read.scaled(sx, sy, (round(w * sx), round(h * sy)))
        entry = dets.to_json()
        entry["image"] = str(path)
        results.append(entry)
        if not args.json:
            _print_readable(path, dets, None if read is dets else (w, h))
            if not args.no_images:
                from kiosk.vision.draw import annotate
                import cv2

                args.out.mkdir(parents=True, exist_ok=True)
                target = _annotated_name(args.out, path, written)
                cv2.imwrite(str(target), annotate(image, read))
                print(f"  annotated: {target}")
    if args.json:
        json.dump(results, sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif failed:
        print(f"{failed} of {len(results)} images could not be read", file=sys.stderr)
    return 1 if failed else 0


def _annotated_name(out: Path, path: Path, written: set) -> Path:
    """`out/<stem>.detected.jpg`, or `<stem>-2`, `-3` ... where a picture of this run already took the name
    (a/IMG_1.jpg and b/IMG_1.jpg, photo.jpg and photo.png).

    >>> seen = set()
    >>> [_annotated_name(Path("o"), Path(p), seen).name for p in ("a/IMG_1.jpg", "b/IMG_1.jpg", "IMG_1.png", "x.jpg")]
    ['IMG_1.detected.jpg', 'IMG_1-2.detected.jpg', 'IMG_1-3.detected.jpg', 'x.detected.jpg']
    """
    target, n = out / f"{path.stem}.detected.jpg", 1
    while target in written:
        n += 1
        target = out / f"{path.stem}-{n}.detected.jpg"
    written.add(target)
    return target


def _print_readable(path: Path, dets, read_at: tuple[int, int] | None = None) -> None:
    sure = [d for d in dets.cards if d.confidence >= DOUBTFUL]
    doubtful = [d for d in dets.cards if d.confidence < DOUBTFUL]
    w, h = dets.image_size
    print(f"{path} ({w}x{h}): {len(dets.cards)} card(s), {dets.meta.get('ms_detect', 0) + dets.meta.get('ms_classify', 0):.0f} ms")
    if read_at is not None:
        from kiosk.vision.images import MAX_PIXELS

        print(f"  read at {read_at[0]}x{read_at[1]} (over {MAX_PIXELS // 1_000_000} megapixels); boxes in the file's pixels")
    if sure:
        print("  read:     " + "  ".join(f"{d.card} {d.confidence:.2f}" for d in _reading_order(sure)))
    if doubtful:
        print(
            "  doubtful: "
            + "  ".join(
                f"{d.card} {d.confidence:.2f}" + (f" (or {d.alternatives[0][0]})" if d.alternatives else "")
                for d in _reading_order(doubtful)
            )
        )
    if not dets.cards:
        print("  no cards found")


def _reading_order(cards):
    return sorted(cards, key=lambda d: (round(d.center[1] / 80), d.center[0]))
