"""Turn a generated scene set (datasets/generated/<set>/, see the data contract) into
the two training sets of the two-stage reader:

- detector tiles: the scenes rescaled so an index is ~8-35 px, cut into square tiles,
  one class ("index"), YOLO labels;
- classifier crops: a square around every labelled index (the same cut the reader
  makes), labelled `<card>.<k>` with the index's orientation k (see geometry), turned
  by random quarter turns, plus background crops labelled `bg`.

Everything is drawn from `random.Random(seed)`: the same set and seed give the same files.
"""

from __future__ import annotations

import json
import math
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from kiosk.cards import CLASS_NAMES
from kiosk.errors import KioskError
from kiosk.vision.geometry import box_center, index_size, iou, orientation_of, square_crop

BG = "bg"


@dataclass(frozen=True)
class PrepareConfig:
    tile: int = 416
    scale_range: tuple[float, float] = (0.5, 1.25)  # detector input pixels per scene pixel
    max_det_train: int = 6000
    max_det_val: int = 300
    cls_size: int = 64
    max_cls_train: int = 150_000
    max_cls_val: int = 8_000
    copies: int = 1  # jittered crops per labelled index in the training split
    bg_share: float = 0.12
    recolour: float = 0.0  # share of training crops whose ink is repainted one random colour
    shrink_area: bool = True  # a cut larger than cls_size shrunk as the reader shrinks it (phases 1-8: bilinear)
    seed: int = 0


def load_scene_set(root: Path, split: str) -> list[tuple[Path, dict]]:
    """(image path, scene dict) for every scene of a split."""
    scene_dir = root / "scenes" / split
    image_dir = root / "images" / split
    if not scene_dir.is_dir():
        raise KioskError(f"{root}: no scenes/{split}/ folder (is it a generated data set?)")
    out = []
    for path in sorted(scene_dir.glob("*.json")):
        try:
            scene = json.loads(path.read_text())
        except ValueError:
            continue  # a scene still being written by a running build
        out.append((image_dir / scene["image"], scene))
    return prefer_full(out)


def prefer_full(items: list) -> list:
    """Whole frames when a set holds both whole frames and tiles cut from them."""
    full = [item for item in items if "tile" not in item[1]]
    return full if full else items


def corner_orientations(card: dict) -> list[tuple[tuple[float, float, float, float], int]]:
    """Each visible corner box of a card with its orientation, from the card polygon.

    The polygon runs clockwise from the card's own top-left; an index nearest the top
    edge's corners (0, 1) stands like the card, one nearest the bottom ones (2, 3) is
    turned half round.
    """
    poly = np.asarray(card["polygon"], dtype=np.float64)
    up = poly[0] - poly[3]
    k_card = orientation_of((up[0], up[1]))
    out = []
    for corner in card.get("corners", []):
        cx, cy = box_center(corner)
        nearest = int(np.argmin(((poly - (cx, cy)) ** 2).sum(axis=1)))
        k = k_card if nearest in (0, 1) else (k_card + 2) % 4
        out.append((tuple(float(v) for v in corner), k))
    return out


def _split_budget(items: list, limit: int, rng: random.Random) -> list:
    items = list(items)
    rng.shuffle(items)
    return items[:limit]


def prepare_detector(root: Path, out: Path, cfg: PrepareConfig, progress=print) -> Path:
    """Write detector tiles under `out` and return its data.yaml."""
    rng = random.Random(cfg.seed)
    if out.exists():
        shutil.rmtree(out)
    for split, limit in (("train", cfg.max_det_train), ("val", cfg.max_det_val)):
        (out / "images" / split).mkdir(parents=True)
        (out / "labels" / split).mkdir(parents=True)
        scenes = load_scene_set(root, split)
        rng.shuffle(scenes)
        per_scene = max(1, math.ceil(limit / max(1, len(scenes))))
        written = 0
        for image_path, scene in scenes:
            if written >= limit:
                break
            image = cv2.imread(str(image_path))
            if image is None:
                continue
            boxes = [c for card in scene["cards"] if card.get("face_up", True) for c in card.get("corners", [])]
            lo, hi = cfg.scale_range
            scale = math.exp(rng.uniform(math.log(lo), math.log(hi)))
            small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
            sboxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4) * scale
            h, w = small.shape[:2]
            t = cfg.tile
            xs = list(range(0, max(1, w - t) + 1, int(t * 0.8))) or [0]
            ys = list(range(0, max(1, h - t) + 1, int(t * 0.8))) or [0]
            if xs[-1] + t < w:
                xs.append(w - t)
            if ys[-1] + t < h:
                ys.append(h - t)
            tiles = [(x, y) for y in ys for x in xs]
            rng.shuffle(tiles)
            taken = 0
            for x0, y0 in tiles:
                if taken >= per_scene or written >= limit:
                    break
                crop = small[y0 : y0 + t, x0 : x0 + t]
                th, tw = crop.shape[:2]
                lines = []
                for b in sboxes:
                    cb = (max(b[0] - x0, 0), max(b[1] - y0, 0), min(b[2] - x0, tw), min(b[3] - y0, th))
                    if cb[2] <= cb[0] or cb[3] <= cb[1]:
                        continue
                    if (cb[2] - cb[0]) * (cb[3] - cb[1]) < 0.6 * (b[2] - b[0]) * (b[3] - b[1]):
                        continue
                    lines.append(
                        f"0 {(cb[0] + cb[2]) / 2 / tw:.6f} {(cb[1] + cb[3]) / 2 / th:.6f} "
                        f"{(cb[2] - cb[0]) / tw:.6f} {(cb[3] - cb[1]) / th:.6f}"
                    )
                if not lines and rng.random() > 0.1:
                    continue
                name = f"{image_path.stem}_{x0}_{y0}"
                cv2.imwrite(str(out / "images" / split / f"{name}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
                (out / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
                taken += 1
                written += 1
        progress(f"detector tiles {split}: {written}")
    data_yaml = out / "data.yaml"
    data_yaml.write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: index\n"
    )
    return data_yaml


def _degrade(crop: np.ndarray, rng: random.Random) -> np.ndarray:
    """Camera faults the scenes may not have enough of: blur, noise, JPEG, low resolution."""
    size = crop.shape[0]
    r = rng.random()
    if r < 0.15:
        low = rng.randint(max(16, size // 3), size - 1)
        crop = cv2.resize(cv2.resize(crop, (low, low), interpolation=cv2.INTER_AREA), (size, size))
    if rng.random() < 0.15:
        ksize = rng.choice((3, 5))
        if rng.random() < 0.5:
            crop = cv2.GaussianBlur(crop, (ksize, ksize), 0)
        else:  # motion blur in a random direction
            kernel = np.zeros((ksize, ksize), np.float32)
            kernel[ksize // 2, :] = 1.0 / ksize
            rot = cv2.getRotationMatrix2D((ksize / 2 - 0.5, ksize / 2 - 0.5), rng.uniform(0, 180), 1.0)
            kernel = cv2.warpAffine(kernel, rot, (ksize, ksize))
            kernel /= max(kernel.sum(), 1e-6)
            crop = cv2.filter2D(crop, -1, kernel)
    if rng.random() < 0.2:
        noise = np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(2, 10), crop.shape)
        crop = np.clip(crop.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    return crop


def recolour_ink(crop: np.ndarray, rng: random.Random) -> np.ndarray:
    """Repaint all ink of a crop in one random colour, keeping its shapes.

    Some decks print spades red or hearts green; a reader that knows suits by colour reads
    them wrong. Crops whose red and black ink look alike teach it to read the pip's shape.
    Ink is what is darker than the paper in every channel (red ink is dark in blue and green).

    >>> crop = np.full((8, 8, 3), 240, np.uint8); crop[2:6, 2:6] = (20, 20, 200)  # red ink
    >>> out = recolour_ink(crop, random.Random(3))
    >>> bool((out[0, 0] == crop[0, 0]).all()), bool((out[3, 3] != crop[3, 3]).any())
    (True, True)
    """
    darkest = crop.min(axis=2).astype(np.float32)
    paper = max(float(np.percentile(darkest, 90)), 1.0)
    ink = np.clip(1.0 - darkest / paper, 0.0, 1.0)[..., None]
    hue = rng.randrange(180)
    sat = rng.choice((0, rng.randint(120, 255)))  # sometimes grey: no colour at all
    val = rng.randint(30, 170)
    colour = cv2.cvtColor(np.uint8([[[hue, sat, val]]]), cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
    paper_colour = np.percentile(crop.reshape(-1, 3), 90, axis=0).astype(np.float32)
    out = paper_colour * (1.0 - ink) + colour * ink
    return np.clip(out, 0, 255).astype(np.uint8)


def mine_detector_boxes(reader, root: Path, split: str = "train", limit: int = 600, seed: int = 0) -> dict:
    """Boxes a trained detector finds on a split's scenes, labelled from the scene.

    A find that overlaps a labelled index takes its label (so the classifier learns the
    boxes the detector really draws); one that overlaps none is background (a hard
    negative: pips, court art, chips the detector mistook for an index).
    """
    rng = random.Random(seed + 7)
    scenes = load_scene_set(root, split)
    rng.shuffle(scenes)
    mined: dict[str, list] = {}
    for image_path, scene in scenes[:limit]:
        image = cv2.imread(str(image_path))
        if image is None:
            continue
        h, w = image.shape[:2]
        labelled = [
            (box, card["card"], k)
            for card in scene["cards"]
            if card.get("face_up", True)
            for box, k in corner_orientations(card)
        ]
        face_up = [c for c in scene["cards"] if c.get("face_up", True)]
        found = (label_find(box, labelled, face_up) for box, _score in reader.find_indices(image, (0, 0, w, h)))
        mined[str(image_path)] = [f for f in found if f is not None]
    return mined


def label_find(box, labelled: list, face_up: list):
    """A detector find as a training sample: (box, card, turns) of the index it overlaps, background where it
    overlaps none, or None where it is unsure (partly overlapping, or at a face-up card's unlabelled corner).
    A face-down card has no index, so a find on its back (a printed picture of cards, say) is background.

    >>> idx = ((10, 10, 30, 40), "As", 0)
    >>> down = {"face_up": False, "polygon": [[100, 100], [170, 100], [170, 200], [100, 200]]}
    >>> label_find((11, 10, 30, 41), [idx], [])[1], label_find((102, 102, 122, 132), [idx], [])[1]
    ('As', 'bg')
    >>> label_find((102, 102, 122, 132), [idx], [{**down, "face_up": True}]) is None
    True
    """
    best = max(((iou(box, b), name, k) for b, name, k in labelled), default=(0.0, "", 0))
    if best[0] >= 0.4:
        return box, best[1], best[2]
    if best[0] < 0.05 and not _near_unlabelled_corner(box, face_up):
        return box, BG, 0
    return None


def _near_unlabelled_corner(box, cards) -> bool:
    """Is the box at a card corner whose index was left unlabelled (partly hidden)?

    Such a find may be a readable index; calling it background would teach the
    classifier to reject real indices, so it is left out of the negatives.
    """
    cx, cy = box_center(box)
    size = index_size(box)
    for card in cards:
        poly = np.asarray(card["polygon"], dtype=np.float64)
        if (((poly - (cx, cy)) ** 2).sum(axis=1) ** 0.5).min() < 1.6 * size:
            return True
    return False


def prepare_classifier(root: Path, out: Path, cfg: PrepareConfig, progress=print, mined: dict | None = None) -> Path:
    """Write classifier crops as out/{train,val}/<class>/<name>.jpg and return `out`.

    `mined` (from `mine_detector_boxes`) adds the detector's own boxes on training scenes.
    """
    rng = random.Random(cfg.seed + 1)
    if out.exists():
        shutil.rmtree(out)
    for split, limit in (("train", cfg.max_cls_train), ("val", cfg.max_cls_val)):
        scenes = load_scene_set(root, split)
        rng.shuffle(scenes)
        train = split == "train"
        copies = cfg.copies if train else 1
        written = 0
        counts: dict[str, int] = {}
        for image_path, scene in scenes:
            if written >= limit:
                break
            image = cv2.imread(str(image_path))
            if image is None:
                continue
            labelled = []
            for card in scene["cards"]:
                if not card.get("face_up", True):
                    continue
                for box, k in corner_orientations(card):
                    labelled.append((box, card["card"], k))
            samples = []
            for box, name, k in labelled:
                for _ in range(copies):
                    samples.append((box, name, k))
            if train and mined:
                samples.extend(mined.get(str(image_path), []))
            # Background: index-sized squares that do not hold a labelled index.
            n_bg = int(len(samples) * cfg.bg_share / (1 - cfg.bg_share)) + 1
            sizes = [index_size(b) for b, _, _ in labelled] or [25.0]
            h, w = image.shape[:2]
            all_boxes = [b for b, _, _ in labelled]
            for _ in range(n_bg * 3):
                if n_bg <= 0:
                    break
                s = rng.choice(sizes) * rng.uniform(0.7, 1.6)
                if rng.random() < 0.6 and scene["cards"]:
                    card = rng.choice(scene["cards"])
                    poly = np.asarray(card["polygon"], dtype=np.float64)
                    a, b = rng.random(), rng.random()
                    p = (poly[0] * (1 - a) + poly[1] * a) * (1 - b) + (poly[3] * (1 - a) + poly[2] * a) * b
                    cx, cy = float(p[0]), float(p[1])
                else:
                    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
                cand = (cx - s * 0.3, cy - s / 2, cx + s * 0.3, cy + s / 2)
                if rng.random() < 0.5:
                    cand = (cx - s / 2, cy - s * 0.3, cx + s / 2, cy + s * 0.3)
                if any(iou(cand, b) > 0.05 for b in all_boxes):
                    continue
                samples.append((cand, BG, 0))
                n_bg -= 1
            for box, name, k in samples:
                if train:
                    crop = square_crop(
                        image,
                        box,
                        cfg.cls_size,
                        shift=(rng.gauss(0, 0.05), rng.gauss(0, 0.05)),
                        zoom=rng.uniform(0.88, 1.2),
                        shrink_area=cfg.shrink_area,
                    )
                    if cfg.recolour and rng.random() < cfg.recolour:
                        crop = recolour_ink(crop, rng)
                    crop = _degrade(crop, rng)
                    turns = rng.randrange(4)
                else:
                    crop = square_crop(image, box, cfg.cls_size, shrink_area=cfg.shrink_area)
                    turns = rng.randrange(4)
                crop = np.ascontiguousarray(np.rot90(crop, turns))
                label = BG if name == BG else f"{name}.{(k - turns) % 4}"
                folder = out / split / label
                if label not in counts:
                    folder.mkdir(parents=True, exist_ok=True)
                counts[label] = counts.get(label, 0) + 1
                cv2.imwrite(str(folder / f"{image_path.stem}_{counts[label]}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 93])
                written += 1
        progress(f"classifier crops {split}: {written} in {len(counts)} classes")
    # ultralytics wants the same class folders in train and val.
    # Every label gets a folder so the classifier's class list never depends on the set's size.
    for label in all_classifier_labels():
        (out / "train" / label).mkdir(exist_ok=True)
        (out / "val" / label).mkdir(exist_ok=True)
    return out


def all_classifier_labels() -> list[str]:
    """Every label the classifier knows: 53 cards x 4 orientations, and `bg`."""
    return [f"{c}.{k}" for c in CLASS_NAMES for k in range(4)] + [BG]
