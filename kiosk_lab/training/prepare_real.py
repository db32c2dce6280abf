"""Real photos in the reader's training (`kiosk train --real DIR`): the train split of a set of corner-labelled
photos (kiosk_lab.training.corner_set) as detector images and classifier crops, beside the synthetic ones.

Photo-level augmentation keeps the card legible: shadow bands, colour casts, blur, sensor noise, JPEG, and
scale, down to indices of about 12 px. Never mirrored.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import cv2
import numpy as np

from kiosk.vision.geometry import index_size, iou, square_crop
from kiosk_lab.training.corner_set import BACK, corner_items
from kiosk_lab.training.prepare import BG, PrepareConfig, _degrade

INDEX_PX = (12.0, 60.0)  # index heights the detector learns from a real photo (log-uniform)
CROP_COPIES = 12  # jittered crops per real corner
BG_PER_PHOTO = 6  # background crops per photo: pips, court art, backs, the table


def photo_augment(image: np.ndarray, rng: random.Random) -> np.ndarray:
    """A shadow band, a colour cast and the camera's faults on a whole photo."""
    out = image.astype(np.float32)
    h, w = out.shape[:2]
    if rng.random() < 0.4:  # a hand's or sleeve's shadow: a soft band across the picture
        angle, offset, width = rng.uniform(0, math.pi), rng.uniform(-0.5, 0.5), rng.uniform(0.1, 0.5)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        d = ((xx / w - 0.5) * math.cos(angle) + (yy / h - 0.5) * math.sin(angle) - offset) / width
        out *= (1.0 - rng.uniform(0.3, 0.6) * np.exp(-d * d))[..., None]
    if rng.random() < 0.5:
        out *= np.array([rng.uniform(0.8, 1.2) for _ in range(3)], np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (3, 3), 0)
    if rng.random() < 0.3:
        noise = np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(2, 8), out.shape)
        out = np.clip(out.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        ok, jpeg = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(40, 90)])
        out = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    return out


def add_detector_photos(root: Path, out: Path, cfg: PrepareConfig, copies: int = 3, progress=print) -> int:
    """Write each train photo `copies` times into out/images/train (labels beside), shrunk so its indices are
    INDEX_PX tall, on a tile of the detector's training size (the photo's edge colour around it)."""
    rng = random.Random(cfg.seed + 7)
    written = 0
    for image_path, boxes in corner_items(root, "train"):
        image = cv2.imread(str(image_path))
        corners = [box for card, box in boxes]
        if not corners:
            continue
        typical = float(np.median([index_size(b) for b in corners]))
        for n in range(copies):
            want = math.exp(rng.uniform(*(math.log(v) for v in INDEX_PX)))
            scale = min(want / typical, cfg.tile / max(image.shape[:2]))
            small = cv2.resize(photo_augment(image, rng), None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
            tile, (x0, y0) = _on_tile(small, cfg.tile, rng)
            lines = [_yolo_line(b, scale, x0, y0, cfg.tile) for b in corners]
            name = f"real_{image_path.stem}_{n}"
            cv2.imwrite(str(out / "images" / "train" / f"{name}.jpg"), tile, [cv2.IMWRITE_JPEG_QUALITY, 92])
            (out / "labels" / "train" / f"{name}.txt").write_text("\n".join(lines) + "\n")
            written += 1
    progress(f"detector tiles from real photos: {written}")
    return written


def _on_tile(small: np.ndarray, side: int, rng: random.Random) -> tuple[np.ndarray, tuple[int, int]]:
    h, w = small.shape[:2]
    edge = np.concatenate([small[0], small[-1], small[:, 0], small[:, -1]]).mean(axis=0)
    tile = np.empty((side, side, 3), np.uint8)
    tile[:] = np.clip(edge, 0, 255).astype(np.uint8)
    x0, y0 = rng.randint(0, side - w), rng.randint(0, side - h)
    tile[y0:y0 + h, x0:x0 + w] = small
    return tile, (x0, y0)


def _yolo_line(box, scale: float, x0: int, y0: int, side: int) -> str:
    x1, y1, x2, y2 = (v * scale for v in box)
    x1, x2, y1, y2 = x1 + x0, x2 + x0, y1 + y0, y2 + y0
    return f"0 {(x1 + x2) / 2 / side:.6f} {(y1 + y2) / 2 / side:.6f} {(x2 - x1) / side:.6f} {(y2 - y1) / side:.6f}"


def add_classifier_crops(root: Path, out: Path, cfg: PrepareConfig, orient, progress=print) -> int:
    """Write crops of each train photo's corners into out/train/<card>.<orientation>/ and background crops
    into out/train/bg/. `orient(image, box, card)`: the orientation (0-3) of that card's index in the box
    (the classifier being fine-tuned tells it: the labels give the card, not its turn)."""
    rng = random.Random(cfg.seed + 11)
    written = 0
    for image_path, boxes in corner_items(root, "train", backs=True):
        image = cv2.imread(str(image_path))
        faces = [(card, box) for card, box in boxes if card != BACK]
        for i, (card, box) in enumerate(faces):
            k = orient(image, box, card)
            for n in range(CROP_COPIES):
                written += _write_crop(image, box, f"{card}.{k}", out, f"{image_path.stem}_{i}_{n}", cfg, rng)
        for n, box in enumerate(_background_boxes(image, boxes, rng)):
            written += _write_crop(image, box, BG, out, f"{image_path.stem}_bg{n}", cfg, rng)
    progress(f"classifier crops from real photos: {written}")
    return written


def _write_crop(image, box, label: str, out: Path, name: str, cfg: PrepareConfig, rng: random.Random) -> int:
    crop = square_crop(image, box, cfg.cls_size, shift=(rng.gauss(0, 0.05), rng.gauss(0, 0.05)),
                       zoom=rng.uniform(0.88, 1.2), shrink_area=cfg.shrink_area)
    crop = photo_augment(crop, rng)
    if rng.random() < 0.3:  # as small as a 12-20 px index of a webcam frame
        low = rng.randint(12, 24)
        crop = cv2.resize(cv2.resize(crop, (low, low), interpolation=cv2.INTER_AREA), crop.shape[:2][::-1])
    crop = _degrade(crop, rng)
    turns = rng.randrange(4)
    crop = np.ascontiguousarray(np.rot90(crop, turns))
    if label != BG:
        card, k = label.rsplit(".", 1)
        label = f"{card}.{(int(k) - turns) % 4}"
    folder = out / "train" / label
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / f"{name}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 93])
    return 1


def _background_boxes(image: np.ndarray, boxes: list, rng: random.Random) -> list:
    """Index-sized boxes on the photo that hold no labelled index: pips, court art, backs and the table."""
    corners = [b for card, b in boxes if card != BACK]
    sizes = [index_size(b) for b in corners] or [40.0]
    h, w = image.shape[:2]
    found = []
    for _ in range(BG_PER_PHOTO * 5):
        if len(found) >= BG_PER_PHOTO:
            break
        s = rng.choice(sizes) * rng.uniform(0.6, 1.6)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        cand = (cx - s * 0.3, cy - s / 2, cx + s * 0.3, cy + s / 2)
        if not any(iou(cand, b) > 0.02 for b in corners):
            found.append(cand)
    return found
