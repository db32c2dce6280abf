"""Pack a folder of classifier crops into a few JPEG sheets, and unpack them again.

A GPU machine lent for minutes takes at most 64 MiB, the repository's own files included. Crops cut by
`kiosk train` (runs/prep/<name>/cls/{train,val}/<class>/<name>.jpg, 64x64, JPEG quality 93) cost about
1.9 KB each as files; laid side by side on sheets of 128 x 128 crops at quality 70 they cost about 580
bytes, so 90 000 crops travel in 52 MB. A crop's edges fall on JPEG's 16-pixel blocks, so its shapes
stay its own; only the colour of its outer two pixels takes a little of its neighbours' (the decoder
smooths colour across blocks). Round trip on phase 17's crops: a median 37.7 dB against the crops as cut,
mean error 2.6 levels inside and 3.3 on the outer two pixels.

    .venv/bin/python scripts/pack_crops.py pack runs/prep/v17c/cls .gpu/crops --quality 70 [--train-max N]
    python3 scripts/pack_crops.py unpack .gpu/crops /tmp/crops      # on the GPU machine, then
    kiosk train --crops /tmp/crops --stage classifier ...           # (docs/detector.md, "Training on a GPU")
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

SIDE = 128  # crops per sheet row and column
INDEX = "index.json.gz"


def list_crops(root: Path) -> list[tuple[str, str, str]]:
    """(split, class, file name) of every crop under root/{train,val}/<class>/, in a fixed order."""
    out = []
    for split in ("train", "val"):
        folder = root / split
        if not folder.is_dir():
            raise SystemExit(f"error: {root} has no {split}/ folder of class folders")
        for cls in sorted(p.name for p in folder.iterdir() if p.is_dir()):
            out += [(split, cls, f.name) for f in sorted((folder / cls).iterdir()) if f.is_file()]
    return out


def tile_of(n: int, size: int) -> tuple[int, int, int]:
    """Sheet number, x and y of crop n on its sheet.

    >>> tile_of(0, 64), tile_of(129, 64), tile_of(128 * 128, 64)
    ((0, 0, 0), (0, 64, 64), (1, 0, 0))
    """
    sheet, at = divmod(n, SIDE * SIDE)
    row, col = divmod(at, SIDE)
    return sheet, col * size, row * size


def pack(root: Path, dest: Path, quality: int, train_max: int | None, seed: int) -> dict:
    items = list_crops(root)
    if train_max is not None:
        train = [it for it in items if it[0] == "train"]
        if len(train) > train_max:
            keep = set(random.Random(seed).sample(range(len(train)), train_max))
            train = [it for i, it in enumerate(train) if i in keep]
        items = train + [it for it in items if it[0] == "val"]
    if not items:
        raise SystemExit(f"error: {root} holds no crops (cut them with kiosk train --cut-only)")
    first = cv2.imread(str(root.joinpath(*items[0])), cv2.IMREAD_COLOR)
    size = first.shape[0]
    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.glob("sheet-*.jpg"):
        old.unlink()
    sheets = -(-len(items) // (SIDE * SIDE))
    for s in range(sheets):
        chunk = items[s * SIDE * SIDE:(s + 1) * SIDE * SIDE]
        rows = -(-len(chunk) // SIDE)
        sheet = np.zeros((rows * size, SIDE * size, 3), np.uint8)
        for i, item in enumerate(chunk):
            im = cv2.imread(str(root.joinpath(*item)), cv2.IMREAD_COLOR)
            if im is None or im.shape[:2] != (size, size):
                raise SystemExit(f"error: {root.joinpath(*item)} is not a {size}x{size} image")
            _, x, y = tile_of(i, size)
            sheet[y:y + size, x:x + size] = im
        cv2.imwrite(str(dest / f"sheet-{s:03d}.jpg"), sheet, [cv2.IMWRITE_JPEG_QUALITY, quality])
    # Empty class folders too: ultralytics takes its class list from the folders.
    classes = {split: sorted(p.name for p in (root / split).iterdir() if p.is_dir()) for split in ("train", "val")}
    index = {"size": size, "side": SIDE, "classes": classes, "items": items}
    with gzip.open(dest / INDEX, "wt") as f:
        json.dump(index, f)
    return {"crops": len(items), "train": sum(it[0] == "train" for it in items), "sheets": sheets,
            "bytes": sum(p.stat().st_size for p in dest.iterdir())}


def _unpack_sheet(args) -> int:
    sheet_path, dest, size, items, start = args
    sheet = cv2.imread(str(sheet_path), cv2.IMREAD_COLOR)
    for i, (split, cls, name) in enumerate(items):
        _, x, y = tile_of(start + i, size)
        cv2.imwrite(str(Path(dest) / split / cls / name), sheet[y:y + size, x:x + size],
                    [cv2.IMWRITE_JPEG_QUALITY, 98])
    return len(items)


def unpack(src: Path, dest: Path, workers: int) -> int:
    if not (src / INDEX).is_file():
        raise SystemExit(f"error: {src} has no {INDEX}: not a folder written by pack")
    with gzip.open(src / INDEX, "rt") as f:
        index = json.load(f)
    size, side, items = index["size"], index["side"], [tuple(it) for it in index["items"]]
    if side != SIDE:
        raise SystemExit(f"error: {src} was packed {side} crops a row; this script reads {SIDE}")
    for split, classes in index["classes"].items():
        for cls in classes:
            (dest / split / cls).mkdir(parents=True, exist_ok=True)
    per = SIDE * SIDE
    jobs = [(src / f"sheet-{s:03d}.jpg", str(dest), size, items[s * per:(s + 1) * per], s * per)
            for s in range(-(-len(items) // per))]
    for job in jobs:
        if not job[0].is_file():
            raise SystemExit(f"error: {job[0]} is missing: pack again")
    if workers <= 1:
        return sum(map(_unpack_sheet, jobs))
    with ProcessPoolExecutor(workers) as pool:
        return sum(pool.map(_unpack_sheet, jobs))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="verb", required=True)
    p = sub.add_parser("pack", help="crops folder -> sheets")
    p.add_argument("crops", type=Path)
    p.add_argument("dest", type=Path)
    p.add_argument("--quality", type=int, default=70)
    p.add_argument("--train-max", type=int, default=None, help="keep this many training crops, drawn by --seed")
    p.add_argument("--seed", type=int, default=0)
    u = sub.add_parser("unpack", help="sheets -> crops folder")
    u.add_argument("src", type=Path)
    u.add_argument("dest", type=Path)
    u.add_argument("--workers", type=int, default=8)
    args = ap.parse_args(argv)
    if args.verb == "pack":
        print(json.dumps(pack(args.crops, args.dest, args.quality, args.train_max, args.seed)))
    else:
        print(f"{unpack(args.src, args.dest, args.workers)} crops unpacked into {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
