"""`kiosk bench cli`: how long the commands a person types take, wall clock, as that person waits.

Each command runs as its own process (`python -m kiosk ...`), as typed in a shell, so imports and
the card reader's loading are counted. `--cores N` pins those processes to N CPU cores (the CI
machine has 2). Figures: `kiosk --help` and `kiosk score` on one 4-seat showdown (median of
`--repeats`), `kiosk detect` on three phone photos (the reader's loading included), and
`kiosk analyze` of the demo recording against the recording's own length (real time = 1.0x).
"""

from __future__ import annotations

import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2

from kiosk.errors import KioskError
from kiosk.table.config import DEMO_RECORDING
from kiosk_lab.bench.rules import random_showdown

ROOT = Path(__file__).resolve().parents[2]
PHOTOS = tuple(ROOT / "datasets" / "real" / "real-photos-ranks" / f"IMG_{n}.JPG" for n in (2385, 2386, 2388))
PARTS = ("help", "score", "detect", "analyze")
TARGET_START_S = 0.5


def add_arguments(parser) -> None:
    parser.add_argument("--only", default=",".join(PARTS), help=f"which figures, comma-separated ({', '.join(PARTS)})")
    parser.add_argument("--repeats", type=int, default=5, help="runs of the quick commands; the median is shown")
    parser.add_argument("--cores", type=int, help="pin the commands to this many CPU cores (default: all)")
    parser.add_argument("--photos", nargs="+", type=Path, default=list(PHOTOS), help="photos for kiosk detect")


def _pin(cores: int | None):
    if not cores:
        return None
    chosen = sorted(os.sched_getaffinity(0))[:cores]
    return lambda: os.sched_setaffinity(0, chosen)


def timed(args: list[str], pin) -> float:
    """Wall seconds of `python -m kiosk ARGS` (its output discarded); a failure is an error, not a figure."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "kiosk", *args], cwd=ROOT, env=env, preexec_fn=pin,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if run.returncode not in (0, 1):  # 1: a hand needs a dealer check, still a finished run
        raise KioskError(f"kiosk {' '.join(args[:1])} failed ({run.returncode}): {run.stderr.strip()[-300:]}")
    return wall


def one_showdown(folder: Path) -> Path:
    path = folder / "showdown.json"
    path.write_text(json.dumps(random_showdown(random.Random(7))))
    return path


def machine(cores: int | None) -> str:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
    used = cores or len(os.sched_getaffinity(0))
    return f"{used} of {os.cpu_count()} cores ({model}), load average {os.getloadavg()[0]:.1f}"


def run(args) -> int:
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        raise KioskError(f"--only: no figure '{unknown[0]}' (choose from {', '.join(PARTS)})")
    pin = _pin(args.cores)
    print(f"machine: {machine(args.cores)}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        if "help" in parts:
            walls = [timed(["--help"], pin) for _ in range(args.repeats)]
            print(f"kiosk --help: {statistics.median(walls):.2f} s wall (median of {len(walls)}; "
                  f"target < {TARGET_START_S} s)", flush=True)
        if "score" in parts:
            showdown = one_showdown(Path(tmp))
            walls = [timed(["score", str(showdown)], pin) for _ in range(args.repeats)]
            print(f"kiosk score, one 4-seat showdown: {statistics.median(walls):.2f} s wall (median of {len(walls)}; "
                  f"target < {TARGET_START_S} s)", flush=True)
        if "detect" in parts:
            wall = timed(["detect", *map(str, args.photos), "--no-images"], pin)
            print(f"kiosk detect, {len(args.photos)} photos: {wall:.1f} s wall, the card reader's loading included",
                  flush=True)
        if "analyze" in parts:
            cap = cv2.VideoCapture(str(DEMO_RECORDING))
            frames, fps = int(cap.get(cv2.CAP_PROP_FRAME_COUNT)), cap.get(cv2.CAP_PROP_FPS) or 1.0
            cap.release()
            wall = timed(["analyze", str(DEMO_RECORDING), "--json"], pin)
            length = frames / fps
            print(f"kiosk analyze, the demo recording ({frames} frames, {length:.1f} s): {wall:.1f} s wall, "
                  f"{length / wall:.2f}x real time (target >= 1x)", flush=True)
    return 0
