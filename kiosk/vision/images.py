"""Reading image files for the reader's commands, with errors that name the file."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from kiosk.errors import KioskError

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff", ".jfif"}
MAX_PIXELS = 80_000_000


def load_image(path: str | Path) -> np.ndarray:
    """The picture at `path` as BGR uint8; KioskError naming the file if it cannot be read."""
    p = Path(path)
    if not p.exists():
        raise KioskError(f"{p}: no such file", exit_code=1)
    if p.is_dir():
        # expand_inputs hands a folder on only when it holds no image it would read
        raise KioskError(f"{p}: a folder with no images in it ({', '.join(sorted(IMAGE_SUFFIXES))})", exit_code=1)
    try:
        data = np.fromfile(str(p), dtype=np.uint8)
    except OSError as err:
        raise KioskError(f"{p}: cannot be read ({err.strerror or err})", exit_code=1) from err
    if data.size == 0:
        raise KioskError(f"{p}: empty file, not an image", exit_code=1)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise KioskError(f"{p}: not an image OpenCV can decode (corrupt or unsupported format)", exit_code=1)
    h, w = image.shape[:2]
    if h * w > MAX_PIXELS:
        raise KioskError(f"{p}: {w}x{h} is too large to read (limit {MAX_PIXELS // 1_000_000} megapixels)", exit_code=1)
    if min(h, w) < 16:
        raise KioskError(f"{p}: {w}x{h} is too small to hold a readable card", exit_code=1)
    return image


def expand_inputs(paths: list[str]) -> list[Path]:
    """Files as given; a folder stands for the images directly inside it (sorted)."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(f for f in p.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
            out.extend(found if found else [p])
        else:
            out.append(p)
    return out
