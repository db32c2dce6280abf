"""Geometry shared by training and reading: index crops, orientations, card boxes.

The same `square_crop` cuts classifier inputs from training scenes and from live
frames, so the classifier sees at run time exactly what it was trained on.

Orientation `k` of a corner index is how many quarter turns counter-clockwise
(`np.rot90(crop, k)`) make it upright: 0 = upright, 1 = its top points right,
2 = upside down, 3 = its top points left.

>>> orientation_of((0.0, -1.0)), orientation_of((1.0, 0.0)), orientation_of((0.0, 1.0))
(0, 1, 2)
>>> to_index_frame((10.0, 0.0), 1)  # a point to the right of an index whose top points right
(0.0, -10.0)
"""

from __future__ import annotations

import math

import cv2
import numpy as np

# Side of the square cut around an index box, relative to the box's long side.
CROP_PAD = 1.35

# Card proportions in units of the index's long side (rank glyph + suit pip),
# measured on the training decks: card width and height, and how far the
# index's own centre sits from the card's top-left corner.
CARD_W = 3.4
CARD_H = 4.8
INDEX_CX = 0.42
INDEX_CY = 0.62


def orientation_of(up: tuple[float, float]) -> int:
    """Quarter turns for an index whose "up" points along `up` (image coords, y down)."""
    ux, uy = up
    return int(round(math.atan2(ux, -uy) / (math.pi / 2))) % 4


def to_index_frame(vec: tuple[float, float], k: int) -> tuple[float, float]:
    """Express an image-space vector in the upright frame of an index of orientation `k`."""
    x, y = vec
    for _ in range(k % 4):
        x, y = y, -x  # a quarter turn counter-clockwise in image coordinates
    return (float(x) + 0.0, float(y) + 0.0)


def from_index_frame(vec: tuple[float, float], k: int) -> tuple[float, float]:
    """Inverse of `to_index_frame`."""
    x, y = vec
    for _ in range(k % 4):
        x, y = -y, x
    return (float(x) + 0.0, float(y) + 0.0)


def index_size(box) -> float:
    x1, y1, x2, y2 = box
    return float(max(x2 - x1, y2 - y1))


def box_center(box) -> tuple[float, float]:
    x1, y1, x2, y2 = box
    return ((x1 + x2) / 2.0, (y1 + y2) / 2.0)


def centre_inside_any(box, boxes) -> bool:
    """Does the centre of `box` lie inside any of `boxes`?

    >>> centre_inside_any((0, 0, 10, 10), [(20, 20, 30, 30), (4, 4, 8, 8)])
    True
    """
    cx, cy = box_center(box)
    return any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] for b in boxes)


def inside_polygon(point, polygon) -> bool:
    """Does the point lie inside the polygon (or on its edge)?

    >>> inside_polygon((5, 5), [(0, 0), (10, 0), (10, 10), (0, 10)]), inside_polygon((15, 5), [(0, 0), (10, 0), (10, 10)])
    (True, False)
    """
    return cv2.pointPolygonTest(np.asarray(polygon, np.float32), (float(point[0]), float(point[1])), False) >= 0


def square_crop(
    image: np.ndarray,
    box,
    size: int,
    pad: float = CROP_PAD,
    shift: tuple[float, float] = (0.0, 0.0),
    zoom: float = 1.0,
    shrink_area: bool = False,
) -> np.ndarray:
    """Cut a `size` x `size` square centred on `box`, side `pad` x its long side.

    `shift` (fractions of the side) and `zoom` jitter the cut for training.
    Pixels outside the image repeat the border. `shrink_area`: a cut larger than `size` (an index
    of a 4K frame, or of a close photo) is cut at the image's own scale and then shrunk with an
    area filter; otherwise it is resampled bilinearly, which aliases fine print.

    >>> lines = np.zeros((200, 200, 3), np.uint8); lines[:, ::2] = 255  # stripes 1 px wide, shrunk 3x
    >>> bilinear = square_crop(lines, (0, 0, 200, 200), 64, pad=1.0)
    >>> area = square_crop(lines, (0, 0, 200, 200), 64, pad=1.0, shrink_area=True)
    >>> round(float(bilinear.std())), round(float(area.std())), round(float(area.mean()))  # grey, nearly
    (75, 23, 128)
    """
    if shrink_area:
        side = max(index_size(box), 2.0) * pad * zoom
        if side > size:
            n = int(math.ceil(side))
            full = square_crop(image, box, n, pad, shift, zoom)
            return cv2.resize(full, (size, size), interpolation=cv2.INTER_AREA)
    cx, cy = box_center(box)
    side = max(index_size(box), 2.0) * pad * zoom
    cx += shift[0] * side
    cy += shift[1] * side
    s = size / side
    matrix = np.array([[s, 0.0, size / 2.0 - s * cx], [0.0, s, size / 2.0 - s * cy]], dtype=np.float32)
    interp = cv2.INTER_AREA if s < 1.0 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, matrix, (size, size), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def card_box_from_index(box, k: int) -> tuple[float, float, float, float]:
    """Estimate the whole card's box from one index, assuming it is the card's top-left index.

    Cards of decks that print the index top-right land one card width off; the
    reader only uses this when a card shows a single index.
    """
    cx, cy = box_center(box)
    L = index_size(box)
    # Card corners in the index's upright frame, relative to the index centre.
    corners = [
        (-INDEX_CX * L, -INDEX_CY * L),
        ((CARD_W - INDEX_CX) * L, -INDEX_CY * L),
        ((CARD_W - INDEX_CX) * L, (CARD_H - INDEX_CY) * L),
        (-INDEX_CX * L, (CARD_H - INDEX_CY) * L),
    ]
    pts = [from_index_frame(c, k) for c in corners]
    xs = [cx + p[0] for p in pts]
    ys = [cy + p[1] for p in pts]
    return (min(xs), min(ys), max(xs), max(ys))


def union_box(boxes, margin: float = 0.0) -> tuple[float, float, float, float]:
    x1 = min(b[0] for b in boxes)
    y1 = min(b[1] for b in boxes)
    x2 = max(b[2] for b in boxes)
    y2 = max(b[3] for b in boxes)
    return (x1 - margin, y1 - margin, x2 + margin, y2 + margin)


def clip_box(box, width: int, height: int) -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = box
    return (
        float(min(max(x1, 0.0), width)),
        float(min(max(y1, 0.0), height)),
        float(min(max(x2, 0.0), width)),
        float(min(max(y2, 0.0), height)),
    )


def inside_share(a, b) -> float:
    """The share of box `a`'s area that lies inside box `b`.

    >>> inside_share((2, 2, 4, 4), (0, 0, 10, 10)), inside_share((0, 0, 10, 10), (2, 2, 4, 4))
    (1.0, 0.04)
    """
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    area = (a[2] - a[0]) * (a[3] - a[1])
    return ix * iy / area if area > 0 else 0.0


def iou(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    if inter <= 0:
        return 0.0
    area = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / area if area > 0 else 0.0
