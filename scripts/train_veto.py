"""Make the background veto (`models/index-veto*`, kiosk/vision/veto.py) again, in one command.

The veto is phase 27 of the model card made again: the shipped index classifier fine-tuned on the CPU for
45 minutes on phase 20's crops, the ninth generation's creature backs mined by the shipped detector, and
printed words, all three teaching `bg`. Steps (a step whose output is there is skipped):

1. `scripts/crops_v20c.py`: phase 20's crops (`runs/prep/v20c/cls`, about 9 minutes);
2. the ninth generation's designs (procedural-400..447, in a child process) and its four training sets
   (`synth-v49b4k`, `synth-v49b`, `synth-v49c4k`, `synth-v49c`: 700 scenes of showdowns and piles), seed for seed;
3. the view `runs/views/n50` and its cut with the shipped detector mining all 700 scenes (`runs/prep/n50/cls`);
4. `runs/prep/n52m/cls`: phase 20's crops, the cut's training crops (as `n50_NAME`) and 3 000 + 300 printed
   words (`scripts/text_crops.py`), as hard links;
5. the fine-tune (`kiosk train --crops ... --cls-hours 0.75 --seed 52 --cls-lr0 0.0003`) into
   `runs/models-n52`, quantized to INT8 (`kiosk quantize --parts classifier`);
6. with --install, its weights copied into `models/` as `index-veto.pt` and `index-veto_int8_openvino_model/`.

    .venv/bin/python scripts/train_veto.py [--install]

after `.venv/bin/python datasets/build.py fetch`; about 75 minutes on 2 cores.
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

K4, HD = (3840, 2160), (1920, 1080)
NINTH = [f"procedural-{s:03d}" for s in range(400, 440)]
NINTH_HELD_OUT = [f"procedural-{s:03d}" for s in range(440, 448)]
# name, scenes, seed, size, mix: rounds 6 and 7 of the context check (model card).
SETS = (("synth-v49b4k", 140, 161, K4, {"showdown": 0.6, "pile": 0.4}),
        ("synth-v49b", 160, 162, HD, {"showdown": 0.6, "pile": 0.4}),
        ("synth-v49c4k", 200, 163, K4, {"showdown": 0.5, "pile": 0.5}),
        ("synth-v49c", 200, 164, HD, {"showdown": 0.5, "pile": 0.5}))
OUT = Path("runs/models-n52")


def log(msg: str) -> None:
    print(f"[train_veto {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def run(*args: str) -> None:
    subprocess.run(list(args), cwd=ROOT, check=True)


def ninth_generation() -> None:
    from kiosk_lab.synth.art import list_decks
    from kiosk_lab.synth.dataset import build

    missing = [d for d in NINTH + NINTH_HELD_OUT if d not in list_decks(procedural=True)]
    if missing:
        log(f"drawing {len(missing)} ninth-generation designs")
        code = ("import sys; sys.path.insert(0, 'datasets'); from sources import procedural; "
                f"procedural(only={missing!r}, count=448)")
        run(sys.executable, "-c", code)
    for name, n, seed, size, mix in SETS:
        if (Path("datasets/generated") / name / "done").exists():
            continue
        log(f"rendering {name}: {n} scenes")
        build(name, {"train": n, "val": 0, "test": 0}, seed=seed, out_root=Path("datasets/generated"), workers=2,
              mix=mix, size=size, decks=NINTH + ["kenney", "kde-nicu-white"],
              forced={"train": NINTH, "val": ["kenney"], "test": ["kde-nicu-white"]})


def view(out: Path) -> None:
    """The four sets' training scenes under one-letter prefixes; 20 of phase 19's validation scenes (the cutter
    wants some; the crops' validation is phase 20's)."""
    if (out / "scenes" / "val").is_dir():
        return
    tmp = out.with_name(out.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    for sub in ("images/train", "scenes/train", "images/val", "scenes/val"):
        (tmp / sub).mkdir(parents=True)
    for prefix, (name, *_) in zip("abcd", SETS):
        src = Path("datasets/generated") / name
        for img in sorted((src / "images/train").glob("*.jpg")):
            os.symlink(img.resolve(), tmp / "images/train" / f"{prefix}{img.name}")
            scene = json.loads((src / "scenes/train" / f"{img.stem}.json").read_text())
            scene["image"] = f"{prefix}{img.name}"
            (tmp / "scenes/train" / f"{prefix}{img.stem}.json").write_text(json.dumps(scene))
    p19 = Path("runs/views/p19")
    for img in sorted((p19 / "images/val").iterdir())[:20]:
        os.symlink(img.resolve(), tmp / "images/val" / img.name)
        shutil.copy(p19 / "scenes/val" / f"{img.stem}.json", tmp / "scenes/val" / f"{img.stem}.json")
    tmp.rename(out)


def fresh_reader_folder(out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree("models", out, ignore=shutil.ignore_patterns("phase14", "figures", "MODEL_CARD.md", "index-veto*"))


def merged_crops(v20c: Path, mined: Path, words: Path, out: Path) -> Path:
    if out.is_dir():
        return out
    tmp = out.with_name(out.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.parent.mkdir(parents=True, exist_ok=True)
    run("cp", "-al", str(v20c), str(tmp))
    for crop in sorted(mined.glob("train/*/*.jpg")):
        (tmp / "train" / crop.parent.name).mkdir(exist_ok=True)
        os.link(crop, tmp / "train" / crop.parent.name / f"n50_{crop.name}")
    for split in ("train", "val"):
        for crop in sorted((words / split / "bg").glob("*.jpg")):
            os.link(crop, tmp / split / "bg" / crop.name)
    for cache in tmp.glob("*.cache"):
        cache.unlink()
    tmp.rename(out)
    return out


def install(trained: Path) -> None:
    models = Path("models")
    shutil.copy(trained / "index-classifier.pt", models / "index-veto.pt")
    target = models / "index-veto_int8_openvino_model"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir()
    for f in (trained / "index-classifier_int8_openvino_model").iterdir():
        if f.suffix in (".xml", ".bin"):
            shutil.copy(f, target / f"index-veto{f.suffix}")
    log(f"installed into {models}: index-veto.pt, {target.name}/ (reader.json 'stages.veto' names them)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--install", action="store_true", help="copy the veto's weights into models/")
    args = ap.parse_args()
    os.chdir(ROOT)
    t0 = time.time()
    run(sys.executable, "scripts/crops_v20c.py")
    ninth_generation()
    n50 = Path("runs/views/n50")
    view(n50)
    mined = Path("runs/prep/n50/cls")
    if not (mined / "train").is_dir():
        fresh_reader_folder(Path("runs/models-n50"))
        run(sys.executable, "-m", "kiosk", "train", "--data", str(n50), "--out", "runs/models-n50", "--resume-from",
            "runs/models-n50", "--stage", "classifier", "--name", "n50", "--seed", "50", "--cls-crops", "25000",
            "--mine", "700", "--recolour", "0.3", "--cut-only")
    words = Path("runs/prep/text27/cls")
    if not words.is_dir():
        run(sys.executable, "scripts/text_crops.py", str(words.parent), "--train", "3000", "--val", "300", "--seed", "27")
    crops = merged_crops(Path("runs/prep/v20c/cls"), mined, words, Path("runs/prep/n52m/cls"))
    if not (OUT / "index-classifier_int8_openvino_model").is_dir():
        fresh_reader_folder(OUT)
        log("fine-tuning the shipped classifier for 45 minutes")
        run(sys.executable, "-m", "kiosk", "train", "--crops", str(crops), "--stage", "classifier", "--device", "cpu",
            "--workers", "2", "--cls-batch", "512", "--cls-hours", "0.75", "--seed", "52", "--out", str(OUT),
            "--resume-from", str(OUT), "--cls-lr0", "0.0003", "--name", "n52t", "--no-eval")
        run(sys.executable, "-m", "kiosk", "quantize", "--models", str(OUT), "--parts", "classifier")
    if args.install:
        install(OUT)
    log(f"done in {time.time() - t0:.0f} s: {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
