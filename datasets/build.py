#!/usr/bin/env python3
"""Synthetic card-reader data: fetch deck art, build YOLO data sets, render the demo recording.

    python datasets/build.py                      # a small set: datasets/generated/quick/
    python datasets/build.py fetch                # download + render every deck design into datasets/cache/art/
    python datasets/build.py build --name NAME --train N --val N --test N --seed S [--tile 640]
    python datasets/build.py demo                 # kiosk/data/demo/table.mp4 + table.json
    python datasets/build.py demo --game paigow   # kiosk/data/demo/paigow.mp4 + paigow.json
    python datasets/build.py decks                # designs on this machine, family, licence, split
    python datasets/build.py sheet DECK OUT.png   # contact sheet of a design with its index boxes
    python datasets/build.py bench                # seconds per rendered scene
    python datasets/build.py measure [DECK ...]   # measure index boxes again from the PNGs
    python datasets/build.py art                  # re-render the committed CC0 art in datasets/art/
    python datasets/build.py add-deck NAME FOLDER # a house deck's scanned faces as a design (datasets/cache/art/)

See docs/datasets.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for p in (str(REPO), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)

GENERATED = HERE / "generated"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def cmd_build(args) -> int:
    from kiosk_lab.synth.dataset import build

    forced = {}
    if args.val_decks:
        forced["val"] = args.val_decks.split(",")
    if args.test_decks:
        forced["test"] = args.test_decks.split(",")
    mix = None
    if args.mix:
        mix = {k: float(v) for k, v in (item.split("=") for item in args.mix.split(","))}
    decks = args.decks.split(",") if args.decks else None
    meta = build(args.name, {"train": args.train, "val": args.val, "test": args.test}, args.seed,
                 out_root=Path(args.out), tile=args.tile, overlap=args.tile_overlap, keep_full=args.keep_full,
                 workers=args.workers, mix=mix, decks=decks, forced=forced or None,
                 size=(args.width, args.height), log=log)
    print(json.dumps({"path": str(Path(args.out) / args.name), "totals": meta["totals"], "decks": meta["decks"],
                      "seconds": meta["seconds"]}, indent=1))
    return 0


def cmd_fetch(args) -> int:
    import sources

    made = sources.fetch_all(only=args.only.split(",") if args.only else None)
    print(json.dumps(made, indent=1))
    return 0


def cmd_art(args) -> int:
    import sources

    print(json.dumps(sources.make_committed(), indent=1))
    return 0


def cmd_measure(args) -> int:
    from kiosk_lab.synth.art import list_decks, remeasure

    for deck_id in args.decks or list_decks():
        meta = remeasure(deck_id)
        print(f"{deck_id}: {len(meta['cards'])} cards with an index; skipped: {sorted(meta['skipped']) or '-'}")
    return 0


def cmd_add_deck(args) -> int:
    from kiosk_lab.synth.art import CACHED_ART, INK_LINE, MIN_CARDS, SCAN_INK_LINES, deck_folder, write_deck
    from kiosk_lab.synth.house import read_card_faces

    if not args.name.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"{args.name!r}: a design name is letters, digits, - and _")
    if args.art_height < 64:
        raise ValueError(f"--art-height {args.art_height}: faces under 64 px tall lose their indices")
    root = Path(args.out) if args.out else CACHED_ART
    out = root / args.name
    elsewhere = deck_folder(args.name)
    if elsewhere is not None and elsewhere.resolve() != out.resolve():
        raise ValueError(f"{args.name}: a design of that name is in {elsewhere.parent}; choose another name")
    if out.exists() and not args.replace:
        raise ValueError(f"{out}: a design of that name is there (--replace to write it again)")
    images, back = read_card_faces(Path(args.folder))
    meta = write_deck(out, args.name, images, back, name=args.name, family="house", licence=args.licence,
                      source=f"scanned faces from {Path(args.folder).resolve()}",
                      height=min(args.art_height, next(iter(images.values())).shape[0]),  # shrunk, never enlarged
                      ink_lines=SCAN_INK_LINES)
    found = len(meta["cards"])
    print(f"{args.name}: {found} of {len(images)} cards with a corner index found, written to {out}")
    for card, why in meta["skipped"].items():
        print(f"  {card} is not rendered: {why}")
    if meta.get("ink_line", INK_LINE) != INK_LINE:
        print(f"  ink told from the paper from {meta['ink_line']} off its colour (a JPEG's specks pass {INK_LINE})")
    if found < MIN_CARDS:
        print(f"datasets/build.py add-deck: only {found} cards have an index; a design needs {MIN_CARDS} to be used",
              file=sys.stderr)
        return 2
    if root.resolve() != CACHED_ART.resolve():
        print(f"  the renderer reads it with KIOSK_ART_DIRS={root.resolve()}")
    print(f"  next: datasets/build.py sheet {args.name} sheet.png   (check the magenta index boxes)")
    return 0


def cmd_decks(args) -> int:
    from kiosk_lab.synth.art import deck_info, list_decks
    from kiosk_lab.synth.dataset import split_decks

    decks = list_decks()
    split = split_decks(decks, args.seed)
    where = {d: s for s, ids in split.items() for d in ids}
    for d in decks:
        info = deck_info(d)
        print(f"{d:28s} {info.get('family', d):18s} {info.get('licence', '?'):14s} {where[d]:5s} "
              f"{len(info['cards']):2d} cards  {info.get('source', '')}")
    return 0


def cmd_sheet(args) -> int:
    import cv2
    import numpy as np

    from kiosk.cards import CLASS_NAMES
    from kiosk_lab.synth.art import load_deck

    deck = load_deck(args.deck)
    tiles = []
    for name in CLASS_NAMES:
        if name not in deck.cards:
            continue
        art = deck.cards[name]
        a = art.image[:, :, 3:4] / 255.0
        img = (art.image[:, :, :3] * a + np.array([40, 110, 30]) * (1 - a)).astype(np.uint8)
        for x1, y1, x2, y2 in art.index:
            cv2.rectangle(img, (int(x1), int(y1)), (int(np.ceil(x2)), int(np.ceil(y2))), (255, 0, 255), 1)
        tiles.append(img)
    h = max(t.shape[0] for t in tiles)
    w = max(t.shape[1] for t in tiles)
    tiles = [cv2.copyMakeBorder(t, 0, h - t.shape[0], 0, w - t.shape[1], cv2.BORDER_CONSTANT) for t in tiles]
    while len(tiles) % 13:
        tiles.append(np.zeros_like(tiles[0]))
    sheet = np.vstack([np.hstack(tiles[i:i + 13]) for i in range(0, len(tiles), 13)])
    cv2.imwrite(args.out, cv2.resize(sheet, None, fx=args.scale, fy=args.scale, interpolation=cv2.INTER_AREA))
    print(args.out)
    return 0


def cmd_bench(args) -> int:
    import time

    import numpy as np

    from kiosk_lab.synth.scenes import render_random

    times = {}
    for kind in args.kinds.split(","):
        render_random(kind, args.deck, seed=0)  # warm the art cache
        t, cpu = [], []
        for seed in range(1, args.n + 1):
            start, start_cpu = time.perf_counter(), time.process_time()
            render_random(kind, args.deck, seed=seed)
            t.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        times[kind] = {"mean_s": round(float(np.mean(t)), 3), "max_s": round(float(np.max(t)), 3),
                       "cpu_mean_s": round(float(np.mean(cpu)), 3)}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    print(json.dumps({"deck": args.deck, "scenes_per_kind": args.n, "size": [1920, 1080], "load_average": load,
                      "one_process": times}, indent=1))
    return 0


def cmd_demo(args) -> int:
    if args.game == "paigow":
        from kiosk_lab.synth.paigow_demo import render_paigow_demo

        info = render_paigow_demo(Path(args.out), fps=args.fps, size=(args.width, args.height))
        print(json.dumps(info, indent=1))
        return 0
    from kiosk_lab.synth.demo import render_demo

    info = render_demo(Path(args.out), deck=args.deck, fps=args.fps, size=(args.width, args.height), seed=args.seed)
    print(json.dumps(info, indent=1))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="datasets/build.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command")

    b = sub.add_parser("build", help="render a YOLO data set (split by deck design)")
    b.add_argument("--name", default="quick")
    b.add_argument("--train", type=int, default=40)
    b.add_argument("--val", type=int, default=10)
    b.add_argument("--test", type=int, default=10)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--tile", type=int, default=0, help="cut each frame into overlapping square tiles of this size")
    b.add_argument("--tile-overlap", type=int, default=200, help="overlap of neighbouring tiles, px (default 200)")
    b.add_argument("--keep-full", action="store_true", help="with --tile, also write the full frames")
    b.add_argument("--workers", type=int, default=2)
    b.add_argument("--width", type=int, default=1920)
    b.add_argument("--height", type=int, default=1080)
    b.add_argument("--mix", help="scene kinds and weights, e.g. showdown=0.55,paigow=0.1,pile=0.2,single=0.15")
    b.add_argument("--decks", help="only these design ids (comma-separated); default: every design on this machine")
    b.add_argument("--val-decks", help="force these designs (and their families) into val")
    b.add_argument("--test-decks", help="force these designs (and their families) into test")
    b.add_argument("--out", default=str(GENERATED))
    b.set_defaults(func=cmd_build)

    f = sub.add_parser("fetch", help="download and render every deck design into datasets/cache/art/")
    f.add_argument("--only", help="comma-separated source names")
    f.set_defaults(func=cmd_fetch)

    a = sub.add_parser("art", help="re-render the committed CC0 designs into datasets/art/")
    a.set_defaults(func=cmd_art)

    h = sub.add_parser("add-deck", help="a house deck's scanned faces (As.png ... Jk.png, back.png) as a design")
    h.add_argument("name", help="the design's id, e.g. house-casino")
    h.add_argument("folder", help="one image per card, named As, Th or 10h, Jk or joker, and back")
    h.add_argument("--out", default=None, help="art folder (default: datasets/cache/art, git-ignored)")
    h.add_argument("--licence", default="house deck (not for commit)")
    h.add_argument("--art-height", type=int, default=240, help="px tall the faces are kept at, if taller (default 240)")
    h.add_argument("--replace", action="store_true", help="write over a design of the same name")
    h.set_defaults(func=cmd_add_deck)

    d = sub.add_parser("decks", help="list designs, families, licences and their split")
    d.add_argument("--seed", type=int, default=0)
    d.set_defaults(func=cmd_decks)

    r = sub.add_parser("measure", help="measure the index boxes of designs again from their PNGs")
    r.add_argument("decks", nargs="*")
    r.set_defaults(func=cmd_measure)

    s = sub.add_parser("sheet", help="contact sheet of one design with its measured index boxes")
    s.add_argument("deck")
    s.add_argument("out")
    s.add_argument("--scale", type=float, default=0.5)
    s.set_defaults(func=cmd_sheet)

    t = sub.add_parser("bench", help="time the rendering of random 1920x1080 scenes (one process)")
    t.add_argument("--deck", default="kennard-2c")
    t.add_argument("--kinds", default="showdown,paigow,pile,single")
    t.add_argument("-n", type=int, default=10)
    t.set_defaults(func=cmd_bench)

    m = sub.add_parser("demo", help="render the demo recording (kiosk/data/demo/table.mp4 + table.json)")
    m.add_argument("--out", default=str(REPO / "kiosk" / "data" / "demo"))
    m.add_argument("--deck", default="kennard-2c")
    m.add_argument("--fps", type=float, default=5.0)
    m.add_argument("--width", type=int, default=1920)
    m.add_argument("--height", type=int, default=1080)
    m.add_argument("--seed", type=int, default=7)
    m.add_argument("--game", choices=("chinese-poker", "paigow"), default="chinese-poker",
                   help="paigow: the Pai Gow demo (kiosk/data/demo/paigow.mp4 + paigow.json, deck kenney)")
    m.set_defaults(func=cmd_demo)

    args = parser.parse_args(argv)
    if not args.command:
        args = parser.parse_args(["build", "--name", "quick"] + (argv or []))
    try:
        return int(args.func(args) or 0)
    except (KeyError, ValueError, FileNotFoundError) as err:
        print(f"datasets/build.py {args.command}: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
