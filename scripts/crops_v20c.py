"""Rebuild the classifier crops of phases 20-23 (`runs/prep/v20c/cls`) on a fresh machine, in one command.

The recipe the model card gives in pieces ("Phase 14", "Phase 19") and docs/detector.md ("The next GPU run,
prepared"), as one script, so a session whose machine lost `runs/` (or a GPU session) can start again:

1. the eighth generation's designs (procedural-360..399), drawn in a child process (a build forked in the
   process that drew them once hung);
2. phase 19's ten training sets (datasets/generated/) and its validation sets kenney-val, gen5-val and
   jokers8-val (runs/sets/), seed for seed;
3. the view `runs/views/p19` (each set's scenes linked under a one-letter prefix);
4. the cut: `kiosk train --stage classifier --name v19c --seed 19 --mine 300 --recolour 0.3 --cut-only`, the
   shipped detector mining (`runs/prep/v19c/cls`);
5. `runs/prep/v20c/cls`: v19c's crops as hard links, less the jokers of eighth-generation designs whose joker
   index is no word, each training joker four times (`_x1` .. `_x3`);
6. with --pack, the JPEG sheets a GPU call carries (`scripts/pack_crops.py pack ... .gpu/crops`).

A step whose output is already there is skipped, so the script can be run again after a stop (the cut, 1.6
minutes, is made again whole unless `runs/prep/v20c/cls` is there).
Run it from the repository root after `datasets/build.py fetch`:

    .venv/bin/python scripts/crops_v20c.py [--pack]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "datasets"))

TEST = ["aisleriot-anglo-poker", "aisleriot-atlasnye", "aisleriot-gnomangelo", "aisleriot-gnomangelo-bitmap",
        "aisleriot-ornamental", "kde-konqi-modern", "kde-nicu-ornamental", "kde-nicu-white"]
K4, HD = (3840, 2160), (1920, 1080)
GEN8 = range(360, 392)
GEN8_VAL = range(392, 400)


def proc(seeds) -> list[str]:
    return [f"procedural-{i:03d}" for i in seeds]


def log(msg: str) -> None:
    print(f"[crops_v20c {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def has_scenes(folder: Path, split: str, n: int) -> bool:
    scenes = folder / "scenes" / split
    return scenes.is_dir() and sum(1 for _ in scenes.glob("*.json")) >= n


def draw_eighth_generation() -> None:
    from kiosk_lab.synth.art import list_decks

    missing = [d for d in proc(GEN8) + proc(GEN8_VAL) if d not in list_decks(procedural=True)]
    if not missing:
        return
    log(f"drawing {len(missing)} eighth-generation designs")
    code = ("import sys; sys.path.insert(0, 'datasets'); from sources import procedural; "
            f"procedural(only={missing!r}, count=400)")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def build_sets(workers: int) -> None:
    from kiosk_lab.synth.art import list_decks
    from kiosk_lab.synth.dataset import build

    decks = list_decks(procedural=True)
    real = [d for d in list_decks() if not d.startswith("procedural") and d not in TEST and d != "kenney"]
    if len(real) != 30:
        log(f"warning: {len(real)} real training designs on this machine, phase 19 had 30 "
            "(datasets/build.py fetch; the figures were made with 30)")
    missing = [d for d in TEST + proc(range(240)) if d not in decks]
    if missing:
        sys.exit(f"crops_v20c: designs missing: {', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''}; "
                 "run `.venv/bin/python datasets/build.py fetch` first")
    gen4, gen5 = proc(range(120, 152)), proc(range(160, 232))
    jmix = {"showdown": 0.45, "paigow": 0.35, "pile": 0.1, "single": 0.1}
    plain = {"markings": False, "rail": False}
    generated = Path("datasets/generated")
    for name, train, n, seed, size, mix, camera in (
            ("synth-v9r", real, 300, 93, HD, None, None), ("synth-v14f", gen5, 240, 102, HD, None, None),
            ("synth-v14r4k", real, 180, 91, K4, None, None), ("synth-v14g4k", gen4, 80, 94, K4, None, None),
            ("synth-v14f4k", gen5, 80, 101, K4, None, None), ("synth-v14p4k", proc(range(40)), 60, 92, K4, None, None),
            ("synth-p19j", proc(GEN8), 240, 190, HD, jmix, None), ("synth-p19j4k", proc(GEN8), 100, 191, K4, jmix, None),
            ("synth-p19cork", real + proc(GEN8), 80, 192, HD, None, {"background": "cork", **plain}),
            ("synth-p19card4k", real + proc(GEN8), 60, 193, K4, None, {"background": "cardboard", **plain})):
        if has_scenes(generated / name, "train", n):
            continue
        log(f"rendering {name}: {n} scenes")
        build(name, {"train": n, "val": 0, "test": 0}, seed=seed, out_root=generated, workers=workers,
              decks=train + ["kenney", "kde-nicu-white"], size=size, mix=mix, camera=camera,
              forced={"train": train, "val": ["kenney"], "test": ["kde-nicu-white"]})
    sets = Path("runs/sets")
    for name, designs, n, seed, size, mix, val in (
            ("kenney-val", ["kenney"], 80, 79, HD, {"showdown": 1.0}, "jeux-v2"),
            ("gen5-val", proc(range(232, 240)), 40, 103, HD, {"showdown": 1.0}, "kenney"),
            ("jokers8-val", proc(GEN8_VAL), 40, 195, HD, {"showdown": 0.5, "paigow": 0.5}, "kenney")):
        if has_scenes(sets / name, "test", n):
            continue
        log(f"rendering {name}: {n} scenes")
        build(name, {"train": 0, "val": 0, "test": n}, seed=seed, out_root=sets, workers=workers, mix=mix, size=size,
              decks=designs + ["kennard-2c", val], forced={"test": designs, "train": ["kennard-2c"], "val": [val]})


VIEW = (("datasets/generated/synth-v14r4k", "train", "train", "a"), ("datasets/generated/synth-v14p4k", "train", "train", "b"),
        ("datasets/generated/synth-v9r", "train", "train", "c"), ("datasets/generated/synth-v14g4k", "train", "train", "d"),
        ("datasets/generated/synth-v14f4k", "train", "train", "f"), ("datasets/generated/synth-v14f", "train", "train", "h"),
        ("datasets/generated/synth-p19j", "train", "train", "j"), ("datasets/generated/synth-p19j4k", "train", "train", "m"),
        ("datasets/generated/synth-p19cork", "train", "train", "n"),
        ("datasets/generated/synth-p19card4k", "train", "train", "o"),
        ("runs/sets/kenney-val", "test", "val", "k"), ("runs/sets/gen5-val", "test", "val", "g"),
        ("runs/sets/jokers8-val", "test", "val", "q"))


def make_view(out: Path) -> None:
    if (out / "scenes" / "val").is_dir():
        return
    log(f"linking {out}")
    tmp = out.with_name(out.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    for folder, split, to, prefix in VIEW:
        folder = Path(folder)
        (tmp / "images" / to).mkdir(parents=True, exist_ok=True)
        (tmp / "scenes" / to).mkdir(parents=True, exist_ok=True)
        for f in sorted((folder / "scenes" / split).glob("*.json")):
            scene = json.loads(f.read_text())
            image, scene["image"] = scene["image"], prefix + scene["image"]
            os.symlink((folder / "images" / split / image).resolve(), tmp / "images" / to / scene["image"])
            (tmp / "scenes" / to / (prefix + f.name)).write_text(json.dumps(scene))
    tmp.rename(out)


def cut(view: Path, workers: int) -> Path:
    """Phase 19's cut, always made whole (1.6 minutes): a cut stopped half-way must not pass for one."""
    crops = Path("runs/prep/v19c/cls")
    log("cutting the crops (the shipped detector mines 300 scenes)")
    subprocess.run([sys.executable, "-m", "kiosk", "train", "--data", str(view), "--out", "runs/models-cut19",
                    "--resume-from", "models", "--stage", "classifier", "--name", "v19c", "--seed", "19",
                    "--cls-crops", "120000", "--mine", "300", "--recolour", "0.3", "--workers", str(workers),
                    "--cut-only"], check=True)
    return crops


def word_joker(deck: str) -> bool:
    """Whether a design's joker prints the word JOKER (every design before the eighth generation does)."""
    from kiosk_lab.synth.procedural import joker_index

    return not deck.startswith("procedural-") or joker_index(int(deck.split("-")[1])) == "word"


def prune_and_repeat(v19c: Path, view: Path, v20c: Path) -> Path:
    """v19c's crops as hard links less the jokers whose design's index is no word; training jokers four times."""
    if v20c.is_dir():
        return v20c
    tmp = v20c.with_name(v20c.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-al", str(v19c), str(tmp)], check=True)
    dropped = {"train": 0, "val": 0}
    for split in dropped:
        for crop in sorted(tmp.glob(f"{split}/Jk.*/*.jpg")):
            stem = crop.stem.rsplit("_", 1)[0]  # a crop is <scene stem>_<n>.jpg
            deck = json.loads((view / "scenes" / split / f"{stem}.json").read_text())["deck"]
            if not word_joker(deck):
                crop.unlink()
                dropped[split] += 1
    jokers = sorted(tmp.glob("train/Jk.*/*.jpg"))
    for f in jokers:
        for k in (1, 2, 3):
            os.link(f, f.with_name(f"{f.stem}_x{k}.jpg"))
    tmp.rename(v20c)
    log(f"{v20c}: dropped {dropped['train']} training and {dropped['val']} validation jokers whose index is no word; "
        f"{len(jokers)} training jokers now four times")
    return v20c


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--pack", action="store_true", help="also lay the crops on JPEG sheets in .gpu/crops")
    args = ap.parse_args()
    os.chdir(ROOT)
    t0 = time.time()
    draw_eighth_generation()
    build_sets(args.workers)
    view = Path("runs/views/p19")
    make_view(view)
    v20c = Path("runs/prep/v20c/cls")
    if not v20c.is_dir():
        prune_and_repeat(cut(view, args.workers), view, v20c)
    if args.pack and not Path(".gpu/crops").is_dir():
        subprocess.run([sys.executable, "scripts/pack_crops.py", "pack", str(v20c), ".gpu/crops", "--quality", "70",
                        "--train-max", "84000", "--seed", "20"], check=True)
    for split in ("train", "val"):
        n = sum(1 for _ in v20c.glob(f"{split}/*/*.jpg"))
        j = sum(1 for _ in v20c.glob(f"{split}/Jk.*/*.jpg"))
        log(f"{split}: {n} crops, {j} of them jokers")
    log(f"done in {time.time() - t0:.0f} s; train with --crops {v20c}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
