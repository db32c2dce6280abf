"""`kiosk bench detector`: frame read time of the card reader per export format.

Reads 1920x1080 showdown frames (rendered with kiosk_lab.synth from a committed deck, or
--image files) with each backend (openvino-int8: the INT8 classifier of `kiosk quantize`)
on --threads cores (2, the kiosk's CPU), after a warm-up, and prints median / p90 per backend
side by side. Formats the model folder lacks are exported from its .pt weights into
runs/reader-exports/ first (INT8 models are made by `kiosk quantize`). --set-default writes the
fastest backend into the model folder's reader.json (what `load_reader(backend="auto")` uses).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from kiosk.errors import KioskError
from kiosk.vision.backends import INT8
from kiosk.vision.images import load_image
from kiosk.vision.model_folder import available_backends, model_version
from kiosk.vision.models_dir import MODELS_HELP, default_models_dir
from kiosk.vision.reader import load_reader
from kiosk.vision.settings import read_settings, write_settings
from kiosk_lab.synth.art import list_decks
from kiosk_lab.synth.scenes import render_random
from kiosk_lab.training.train import CLASSIFIER, DETECTOR, export_model


def add_arguments(parser) -> None:
    parser.add_argument("--models", "--model-dir", dest="model_dir", default=default_models_dir(), help=MODELS_HELP)
    parser.add_argument("--backends", default="pytorch,onnx,openvino,openvino-int8", help="comma-separated (default: all four)")
    parser.add_argument("--frames", type=int, default=20, help="timed reads per backend (default 20)")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2, help="CPU threads per backend (default 2, the kiosk's cores)")
    parser.add_argument("--image", action="append", default=[], help="read this image instead of rendered frames")
    parser.add_argument("--set-default", action="store_true", help="make the fastest backend the reader's default")
    parser.add_argument("--json", action="store_true")


def _frames(args) -> list[np.ndarray]:
    if args.image:
        return [load_image(p) for p in args.image]
    decks = list_decks()
    if not decks:
        raise KioskError("no deck art to render frames from: pass --image FILE")
    frames = []
    for seed in range(3):
        scene = render_random("showdown", decks[seed % len(decks)], seed=1000 + seed, size=(1920, 1080))
        frames.append(scene.image)
    return frames


def _model_dir_for(model_dir: Path, backend: str) -> Path:
    """A folder holding the reader in `backend`'s format, exporting it if the folder lacks it."""
    settings = read_settings(model_dir)
    if backend in available_backends(model_dir, settings):
        return model_dir
    if backend == INT8:
        raise KioskError(f"{model_dir}: no INT8 models here (make them with 'kiosk quantize --models {model_dir}')")
    cache = Path("runs") / "reader-exports" / model_version(model_dir, settings)
    if not (cache / "reader.json").is_file():
        # On stderr, with ultralytics' export log: stdout is the table, or the JSON of --json.
        print(f"exporting the reader to {backend} into {cache} ...", file=sys.stderr, flush=True)
        with contextlib.redirect_stdout(sys.stderr):
            _export(model_dir, settings, cache, backend)
    elif backend not in available_backends(cache, read_settings(cache)):
        shutil.rmtree(cache)
        return _model_dir_for(model_dir, backend)
    return cache


def _export(model_dir: Path, settings, cache: Path, backend: str) -> None:
    """The reader's two networks exported to `backend` in `cache`, with a reader.json naming them; the stages'
    networks are not exported: each is read where it lies."""
    cache.mkdir(parents=True, exist_ok=True)
    fmt = "onnx" if backend == "onnx" else "openvino"
    det = export_model(model_dir / settings.detector.files["pytorch"], cache, DETECTOR, "detector", (fmt,),
                       det_input=tuple(settings.detector.input))
    cls = export_model(model_dir / settings.classifier.files["pytorch"], cache, CLASSIFIER, "classifier", (fmt,),
                       settings.classifier.imgsz)
    stages = {name: {"files": {k: str((model_dir / v).resolve()) for k, v in files.items()}}
              for name, files in settings.networks().items() if name not in ("detector", "classifier")}
    new = settings.changed({"stages": stages})
    write_settings(cache, new.model_copy(update={"detector": new.detector.model_copy(update={"files": det}),
                                                 "classifier": new.classifier.model_copy(update={"files": cls})}))


def run(args) -> int:
    os.environ["KIOSK_THREADS"] = str(args.threads)

    model_dir = Path(args.model_dir)
    frames = _frames(args)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    rows = []
    for backend in backends:
        try:
            folder = _model_dir_for(model_dir, backend)
        except KioskError as err:
            if backend != INT8 or len(backends) == 1:
                raise
            print(f"{backend}: skipped, {err}", file=sys.stderr)  # a freshly trained reader has none yet
            continue
        reader = load_reader(folder, backend=backend)
        for i in range(args.warmup):
            reader.read(frames[i % len(frames)])
        times, det_ms, cls_ms, cards = [], [], [], []
        for i in range(args.frames):
            frame = frames[i % len(frames)]
            t0 = time.perf_counter()
            dets = reader.read(frame)
            times.append((time.perf_counter() - t0) * 1000)
            det_ms.append(dets.meta["ms_detect"])
            cls_ms.append(dets.meta["ms_classify"])
            cards.append(len(dets.cards))
        rows.append(
            {
                "backend": backend,
                "median_ms": round(statistics.median(times), 1),
                "p90_ms": round(float(np.percentile(times, 90)), 1),
                "detect_ms": round(statistics.median(det_ms), 1),
                "classify_merge_ms": round(statistics.median(cls_ms), 1),
                "cards_per_frame": round(statistics.mean(cards), 1),
            }
        )
        del reader
    fastest = min(rows, key=lambda r: r["median_ms"])
    h, w = frames[0].shape[:2]
    if args.json:
        print(json.dumps({"frame": [w, h], "threads": args.threads, "frames": args.frames, "rows": rows, "fastest": fastest["backend"]}, indent=2))
    else:
        print(f"card reader, {w}x{h} frames, {args.threads} threads, {args.frames} reads after {args.warmup} warm-up")
        print(f"{'backend':<13} {'median ms':>10} {'p90 ms':>8} {'detect':>8} {'classify':>9} {'cards':>6}")
        for r in rows:
            mark = "  <- fastest" if r is fastest else ""
            print(
                f"{r['backend']:<13} {r['median_ms']:>10.1f} {r['p90_ms']:>8.1f} {r['detect_ms']:>8.1f} "
                f"{r['classify_merge_ms']:>9.1f} {r['cards_per_frame']:>6.1f}{mark}"
            )
        print(f"target: <= 150 ms median -> {'met' if fastest['median_ms'] <= 150 else 'NOT met'} ({fastest['backend']})")
    if args.set_default:
        path = write_settings(model_dir, read_settings(model_dir).model_copy(
            update={"default_backend": fastest["backend"]}))
        print(f"default backend set to {fastest['backend']} in {path}")
    return 0
