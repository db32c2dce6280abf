"""A closer look: the regions where cards lie, read again by the detector at a larger scale.

The detector reads a 1080p frame at full size, where an index is 15-45 px. Some designs'
indices are found only larger: in a fanned row of kde-nicu-ornamental the detector missed
four clear indices in every frame at full size and found them at 1.5x. The closer look packs
the groups of indices already found (a seat's cards), each with a margin, side by side on one
detector input at `zoom`; its finds, with the earlier finds it did not find again, are what it
found. A single picture (`kiosk detect`) adds the cards read there; a table that asks for it
(`motion.closer_look`) makes it the last search of a still table (kiosk.vision.still), so there
it costs a search and no more.

>>> boxes = [(100, 100, 120, 140), (150, 100, 170, 140), (1500, 800, 1520, 840)]
>>> card_groups(boxes, (1920, 1080))  # the first two join: one seat's cards
[(60.0, 60.0, 210.0, 180.0), (1460.0, 760.0, 1560.0, 880.0)]
>>> [(p.at, p.size, p.turned) for p in pack(card_groups(boxes, (1920, 1080)), 1.5, (1088, 1920))]
[((0, 0), (225, 180), False), ((233, 0), (180, 150), True)]
>>> pack(card_groups(boxes, (1920, 1080)), 1.5, (160, 1920)) is None  # too tall for the input
True
>>> turned = pack([(1460.0, 760.0, 1560.0, 880.0)], 2.0, (1088, 1920))[0]
>>> turned.to_frame((20, 40, 60, 80))  # 2x and a quarter turn back: x from y, y from the right edge
(1480.0, 850.0, 1500.0, 870.0)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kiosk.vision.geometry import box_center, centre_inside_any, clip_box, index_size, iou, union_box

# Margin around a group of indices, in index sizes: room for an index missed at the group's edge
# (the four seats' groups of a full table still fit one input at 1.5x).
MARGIN = 1.0
# Groups whose margins touch are one group (one seat's rows, read together).
JOIN = 1.0
GAP = 8  # pixels of grey between packed regions on the detector's input
SAME = 0.3  # IoU at which a closer find is an earlier find's index found again
NEW_SCORE = 0.3  # detector score a closer find needs where no earlier find lay


@dataclass(frozen=True, slots=True)
class Placement:
    """A region of the frame on the detector's input: at `at`, scaled by `zoom`, and turned a
    quarter clockwise when `turned` (a region taller than wide is laid on its side, so the
    regions of the four seats fit one input; the detector reads indices at any rotation)."""

    region: tuple[float, float, float, float]  # frame pixels
    at: tuple[int, int]  # (x, y) of its top-left on the detector input
    zoom: float
    turned: bool = False

    @property
    def size(self) -> tuple[int, int]:
        """(w, h) on the detector's input."""
        w = round((self.region[2] - self.region[0]) * self.zoom)
        h = round((self.region[3] - self.region[1]) * self.zoom)
        return (h, w) if self.turned else (w, h)

    def to_frame(self, box) -> tuple[float, float, float, float]:
        x0, y0 = self.at
        z = self.zoom
        x1, y1, x2, y2 = ((box[0] - x0) / z, (box[1] - y0) / z, (box[2] - x0) / z, (box[3] - y0) / z)
        if self.turned:  # undo the clockwise quarter turn: (x', y') = (h - y, x)
            h = self.region[3] - self.region[1]
            x1, y1, x2, y2 = y1, h - x2, y2, h - x1
        rx, ry = self.region[0], self.region[1]
        return (float(x1 + rx), float(y1 + ry), float(x2 + rx), float(y2 + ry))

    def holds(self, box) -> bool:
        cx, cy = box_center(box)
        (x0, y0), (w, h) = self.at, self.size
        return x0 <= cx < x0 + w and y0 <= cy < y0 + h


def card_groups(boxes, frame_wh: tuple[int, int]) -> list[tuple[float, float, float, float]]:
    """Regions (frame pixels) around groups of nearby index boxes, each with a margin."""
    if not boxes:
        return []
    size = float(np.median([index_size(b) for b in boxes]))
    pad = MARGIN * size
    w, h = frame_wh
    regions = [clip_box(union_box([b], pad), w, h) for b in boxes]
    joined = True
    while joined:
        joined = False
        out: list[tuple[float, float, float, float]] = []
        for r in regions:
            for i, o in enumerate(out):
                if r[0] <= o[2] + JOIN and o[0] <= r[2] + JOIN and r[1] <= o[3] + JOIN and o[1] <= r[3] + JOIN:
                    out[i] = union_box([r, o])
                    joined = True
                    break
            else:
                out.append(r)
        regions = out
    return sorted(regions, key=lambda r: (r[1], r[0]))


def pack(regions, zoom: float, canvas_hw: tuple[int, int]) -> list[Placement] | None:
    """Shelf-pack the regions at `zoom`, each laid wider than tall, onto one detector input;
    None when they do not fit."""
    ch, cw = canvas_hw
    laid = [Placement(tuple(float(v) for v in r), (0, 0), zoom, (r[3] - r[1]) > (r[2] - r[0])) for r in regions]
    placed: list[Placement] = []
    x = y = shelf = 0
    for p in sorted(laid, key=lambda p: -p.size[1]):
        w, h = p.size
        if w > cw or h > ch:
            return None
        if x + w > cw:
            x, y, shelf = 0, y + shelf + GAP, 0
        if y + h > ch:
            return None
        placed.append(Placement(p.region, (x, y), zoom, p.turned))
        x, shelf = x + w + GAP, max(shelf, h)
    return placed


def found_again_or_sure(closer: list[tuple[tuple, float]], found: list[tuple[tuple, float]]) -> list[tuple[tuple, float]]:
    """The closer look's finds that find an earlier find again, or that the detector is sure of
    (score NEW_SCORE or more): a new find it is unsure of is most often a part of an index or a
    picture's detail (24 rendered tables of six unseen designs: 32 such finds read as a card, none
    of them an index the first search had missed).

    >>> found_again_or_sure([((2, 1, 21, 42), 0.15), ((300, 0, 320, 40), 0.15), ((400, 0, 420, 40), 0.6)],
    ...                     [((0, 0, 20, 40), 0.5)])
    [((2, 1, 21, 42), 0.15), ((400, 0, 420, 40), 0.6)]
    """
    return [(c, s) for c, s in closer if s >= NEW_SCORE or any(_same(f, c) for f, _ in found)]


def _same(first, closer) -> bool:
    return iou(first, closer) >= SAME or centre_inside_any(first, [closer])


def not_found_again(found: list[tuple[tuple, float]], closer: list[tuple[tuple, float]]) -> list[tuple[tuple, float]]:
    """The earlier finds the closer look did not find again (none of its boxes overlaps them by
    SAME or holds their centre): kept, so that a closer look never loses an index.

    >>> not_found_again([((0, 0, 20, 40), 0.5), ((100, 0, 120, 40), 0.4)], [((2, 1, 21, 42), 0.6)])
    [((100, 0, 120, 40), 0.4)]
    """
    return [(b, s) for b, s in found if not any(_same(b, c) for c, _ in closer)]
