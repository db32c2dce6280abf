"""Write a YOLO data set of rendered scenes, split by deck design (see docs/datasets.md).

Layout (`datasets/generated/<name>/`): images/, labels/, scenes/ each with train/val/test,
plus data.yaml and decks.json. With `tile`, each rendered frame is cut into overlapping
square tiles; a box is kept in a tile when at least `TILE_KEEP` of its area lies inside
(clipped to the tile), otherwise dropped from that tile (the overlap makes sure every
index is whole in some tile).
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from kiosk.cards import CLASS_NAMES
from kiosk_lab.synth.art import deck_info, list_decks
from kiosk_lab.synth.scenes import DEFAULT_MIX, render_random
from kiosk_lab.synth.table import RANK_VISIBLE_MIN, VISIBLE_MIN

SPLITS = ("train", "val", "test")
TILE_KEEP = 0.6
CLASS_ID = {name: i for i, name in enumerate(CLASS_NAMES)}


def split_decks(decks: list[str], seed: int, val: float = 0.15, test: float = 0.2,
                forced: dict[str, list[str]] | None = None) -> dict[str, list[str]]:
    """Assign whole design families to train/val/test (near-duplicates never straddle a split).

    `forced` maps split -> design ids placed there (their whole family follows); when both
    val and test are forced, every other design is train (adding a design moves nothing).
    """
    families: dict[str, list[str]] = {}
    for d in decks:
        families.setdefault(deck_info(d).get("family", d), []).append(d)
    out = {s: [] for s in SPLITS}
    assigned = set()
    for split, ids in (forced or {}).items():
        for d in ids:
            fam = deck_info(d).get("family", d)
            if fam not in assigned:
                out[split] += families[fam]
                assigned.add(fam)
    rest = sorted(f for f in families if f not in assigned)
    rng = np.random.default_rng(seed)
    rng.shuffle(rest)
    total = len(decks)
    fixed = bool(forced) and "val" in forced and "test" in forced  # both given: the rest is train
    for fam in rest:
        if fixed:
            out["train"] += families[fam]
            continue
        want = {"test": test * total - len(out["test"]), "val": val * total - len(out["val"])}
        if want["test"] >= len(families[fam]) / 2 and want["test"] >= want["val"]:
            split = "test"
        elif want["val"] >= len(families[fam]) / 2:
            split = "val"
        else:
            split = "train"
        out[split] += families[fam]
    # Scarce designs: val before test, and train always keeps at least one family.
    fam_of = {d: deck_info(d).get("family", d) for d in decks}

    def fams(split):
        return sorted({fam_of[d] for d in out[split]}, key=lambda f: (len(families[f]), f))

    for split, donors in (("val", ("train", "test")), ("test", ("train",))):
        if out[split] or (forced and split in forced):
            continue
        for donor in donors:
            keep = 1 if donor == "train" else 0
            if len(fams(donor)) > keep:
                fam = fams(donor)[0]
                out[donor] = [d for d in out[donor] if fam_of[d] != fam]
                out[split] += families[fam]
                break
    for s in SPLITS:
        out[s] = sorted(out[s])
    return out


@dataclass(frozen=True)
class Job:
    root: str
    split: str
    index: int
    seed: int
    deck: str
    kind: str
    size: tuple[int, int]
    tile: int
    overlap: int
    keep_full: bool
    empty_tiles: float
    camera: dict | None = None  # CameraParams settings over the random camera, e.g. {"background": "cork"}


def yolo_lines(boxes: list[tuple[str, list[float]]], w: int, h: int) -> str:
    lines = []
    for card, (x1, y1, x2, y2) in boxes:
        bw, bh = x2 - x1, y2 - y1
        if bw < 1 or bh < 1:
            continue
        lines.append(f"{CLASS_ID[card]} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {bw / w:.6f} {bh / h:.6f}")
    return "\n".join(lines) + ("\n" if lines else "")


def tile_origins(length: int, tile: int, overlap: int) -> list[int]:
    if length <= tile:
        return [0]
    n = math.ceil((length - overlap) / (tile - overlap))
    return [round(k * (length - tile) / (n - 1)) for k in range(n)]


def _write(root: Path, split: str, stem: str, image: np.ndarray, scene: dict, boxes) -> None:
    h, w = image.shape[:2]
    scene = dict(scene, image=f"{stem}.jpg", size=[w, h])
    cv2.imwrite(str(root / "images" / split / f"{stem}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    (root / "labels" / split / f"{stem}.txt").write_text(yolo_lines(boxes, w, h))
    (root / "scenes" / split / f"{stem}.json").write_text(json.dumps(scene, separators=(",", ":")))


def _tile_scene(scene: dict, x0: int, y0: int, t: int) -> tuple[dict, list, int]:
    cards, boxes, dropped = [], [], 0
    for c in scene["cards"]:
        corners = []
        for x1, y1, x2, y2 in c["corners"]:
            cx1, cy1, cx2, cy2 = max(x1, x0), max(y1, y0), min(x2, x0 + t), min(y2, y0 + t)
            area = (x2 - x1) * (y2 - y1)
            inside = max(0.0, cx2 - cx1) * max(0.0, cy2 - cy1)
            if inside <= 0:
                continue
            if area <= 0 or inside / area < TILE_KEEP:
                dropped += 1
                continue
            corners.append([round(cx1 - x0, 1), round(cy1 - y0, 1), round(cx2 - x0, 1), round(cy2 - y0, 1)])
        poly = [[round(x - x0, 1), round(y - y0, 1)] for x, y in c["polygon"]]
        xs, ys = [p[0] for p in poly], [p[1] for p in poly]
        if max(xs) < 0 or max(ys) < 0 or min(xs) > t or min(ys) > t:
            continue
        cards.append(dict(c, polygon=poly, corners=corners))
        boxes += [(c["card"], b) for b in corners]
    out = dict(scene, cards=cards, tile={"x": x0, "y": y0, "size": t, "dropped_cut_boxes": dropped})
    return out, boxes, dropped


def _stem(job: Job) -> str:
    return f"{job.split[:2]}{job.index:06d}"


def _done_marker(job: Job) -> Path:
    return Path(job.root) / "done" / f"{job.split}-{_stem(job)}"


def render_job(job: Job) -> dict:
    cv2.setNumThreads(1)
    marker = _done_marker(job)
    if marker.exists() or (job.keep_full and (Path(job.root) / "scenes" / job.split / f"{_stem(job)}.json").exists()):
        return {"images": 0, "boxes": 0, "dropped": 0, "resumed": 1}
    camera = None if job.camera is None else {"preset": "random", **job.camera}
    rendered = render_random(job.kind, job.deck, job.seed, size=job.size, camera=camera)
    root = Path(job.root)
    stem = _stem(job)
    scene = dict(rendered.scene, seed=job.seed)
    stats = {"images": 0, "boxes": 0, "dropped": 0}
    if job.tile:
        w, h = job.size
        rng = np.random.default_rng(job.seed ^ 0x5EED)
        k = 0
        for y0 in tile_origins(h, job.tile, job.overlap):
            for x0 in tile_origins(w, job.tile, job.overlap):
                t = job.tile
                crop = rendered.image[y0:y0 + t, x0:x0 + t]
                sub, boxes, dropped = _tile_scene(scene, x0, y0, t)
                stats["dropped"] += dropped
                if not boxes and rng.random() >= job.empty_tiles:
                    continue
                if crop.shape[0] < t or crop.shape[1] < t:
                    crop = cv2.copyMakeBorder(crop, 0, t - crop.shape[0], 0, t - crop.shape[1], cv2.BORDER_REPLICATE)
                _write(root, job.split, f"{stem}_t{k}", crop, sub, boxes)
                stats["images"] += 1
                stats["boxes"] += len(boxes)
                k += 1
    if job.keep_full or not job.tile:
        boxes = [(c["card"], b) for c in scene["cards"] for b in c["corners"]]
        _write(root, job.split, stem, rendered.image, scene, boxes)
        stats["images"] += 1
        stats["boxes"] += len(boxes)
    marker.parent.mkdir(exist_ok=True)
    marker.touch()
    return stats


def build(name: str, counts: dict[str, int], seed: int, *, out_root: Path, tile: int = 0, overlap: int = 200,
          keep_full: bool = False, workers: int = 2, mix: dict[str, float] | None = None,
          decks: list[str] | None = None, forced: dict[str, list[str]] | None = None,
          size: tuple[int, int] = (1920, 1080), empty_tiles: float = 0.05, camera: dict | None = None,
          log=print) -> dict:
    """`camera`: settings that every scene's random camera takes (kiosk_lab.synth.camera.CameraParams), e.g.
    {"background": "cork"} for a set on cork; the cards lie as in the same seed's scenes without it (the
    props drawn on the table may differ)."""
    decks = decks or list_decks()
    splits = split_decks(decks, seed, forced=forced)
    if not splits["train"]:
        raise ValueError(f"no deck design for the train split (have {decks})")
    counts = dict(counts)
    for s in SPLITS:
        if counts.get(s, 0) and not splits[s]:
            log(f"warning: no deck design left for the {s} split ({len(decks)} designs); writing no {s} images. "
                "Run `python datasets/build.py fetch` for more designs.")
            counts[s] = 0
    root = out_root / name
    for sub in ("images", "labels", "scenes"):
        for s in SPLITS:
            (root / sub / s).mkdir(parents=True, exist_ok=True)
    mix = mix or DEFAULT_MIX
    kinds, weights = list(mix), np.array(list(mix.values()), float)
    weights /= weights.sum()
    jobs = []
    for si, s in enumerate(SPLITS):
        rng = np.random.default_rng([seed, si])
        for i in range(counts.get(s, 0)):
            jobs.append(Job(str(root), s, i, int(rng.integers(2**62)), splits[s][i % len(splits[s])],
                            str(rng.choice(kinds, p=weights)), size, tile, overlap, keep_full, empty_tiles, camera))
    # val and test are spread through the run, so a set stopped early is still usable;
    # a set built again with the same options resumes (finished scenes are skipped)
    jobs.sort(key=lambda j: (j.index + 0.5) / counts[j.split])
    (root / "decks.json").write_text(json.dumps(splits, indent=1) + "\n")
    names = "\n".join(f"  {i}: {n}" for i, n in enumerate(CLASS_NAMES))
    (root / "data.yaml").write_text(
        f"# written by datasets/build.py; split by deck design (decks.json)\npath: {root.resolve()}\n"
        f"train: images/train\nval: images/val\ntest: images/test\nnames:\n{names}\n")
    totals = {s: {"scenes": counts.get(s, 0), "images": 0, "boxes": 0, "dropped": 0, "resumed": 0} for s in SPLITS}
    start = time.time()
    done = 0
    ctx = mp.get_context("fork")
    with ctx.Pool(workers) if workers > 1 else _Serial() as pool:
        for job, stats in zip(jobs, pool.imap(render_job, jobs, chunksize=4)):
            for k, v in stats.items():
                totals[job.split][k] = totals[job.split].get(k, 0) + v
            done += 1
            if done % 200 == 0 or done == len(jobs):
                log(f"{done}/{len(jobs)} scenes, {time.time() - start:.0f} s")
    for s in SPLITS:  # what is on disk (a resumed build rendered only part of it)
        labels = list((root / "labels" / s).glob("*.txt"))
        totals[s]["images"] = len(labels)
        totals[s]["boxes"] = sum(len(p.read_text().splitlines()) for p in labels)
        totals[s]["full_frames"] = sum(1 for p in labels if "_t" not in p.stem)
    meta = {"name": name, "seed": seed, "counts": counts, "tile": tile, "overlap": overlap, "keep_full": keep_full,
            "mix": mix, "size": list(size), "camera": camera, "decks": splits, "totals": totals,
            "seconds": round(time.time() - start, 1), "visible_min": VISIBLE_MIN,
            "rank_visible_min": RANK_VISIBLE_MIN, "tile_keep": TILE_KEEP}
    (root / "build.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


class _Serial:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    @staticmethod
    def imap(fn, items, chunksize=1):
        return map(fn, items)
