"""Find the card indices once while the table stands still.

The detector is most of a frame's time (on a 2-core AVX2 CPU ~145 of ~225 ms), and cards on
the felt lie still far more often than they move: in the demo recording 3 frames in 4 show
the same table as the one before. A frame that differs from the frame the indices were found
in by no more than `levels` grey levels anywhere (compared in 8x8-pixel means, which sensor
noise and JPEG do not reach, while a card moved, turned or covered changes by tens of levels)
takes those index boxes instead of running the detector.

The detector still searches the first `searches` frames of a still table, and the cards are
read at every index any of them found (where several found one index, at the surest box): one search misses an index now and then that the next
frame's noise lets it find (on 200 rendered hands, reusing a single search lost 2 that every
frame's own search had read exactly). Only *where* the indices are is reused: every frame's cuts
are still classified from its own pixels, so each frame still casts its own vote on every card
for the stabiliser. After `max_age` seconds the detector runs again whatever the frames look like.

>>> import numpy as np
>>> still = StillIndices(levels=8, max_age=5, searches=2)
>>> table = np.full((1080, 1920, 3), 60, np.uint8)
>>> still.indices(table, "whole", 0, 0.0, lambda: [((10, 10, 40, 50), 0.9)])
([((10, 10, 40, 50), 0.9)], 0)
>>> noisy = (table + np.random.default_rng(0).normal(0, 2, table.shape)).clip(0, 255).astype(np.uint8)
>>> still.indices(noisy, "whole", 1, 0.2, lambda: [((11, 10, 41, 50), 0.95), ((90, 10, 120, 50), 0.4)])
([((11, 10, 41, 50), 0.95), ((90, 10, 120, 50), 0.4)], 1)
>>> len(still.indices(noisy, "whole", 2, 0.4, lambda: [])[0])  # searched twice: reused from frame 1
2
>>> moved = table.copy(); moved[500:600, 900:980] = 230  # a card laid down
>>> still.indices(moved, "whole", 3, 0.6, lambda: [])
([], 3)
"""

from __future__ import annotations

from typing import Callable, Hashable

import cv2
import numpy as np

CELL = 8  # pixels a side of the means compared
# How the k-th frame read at reused indices cuts them (shift as a fraction of the cut's side, zoom):
# a pixel or two off, or a little larger or smaller, as the detector's own boxes wander from frame to
# frame; so that the frames of a still table vote on different cuts, not all on the very same one.
CUT_JITTER = ((0.0, 0.0, 1.0), (0.03, 0.0, 1.0), (0.0, 0.03, 1.0), (-0.03, 0.0, 1.0), (0.0, -0.03, 1.0),
              (0.0, 0.0, 1.05), (0.0, 0.0, 0.95))


def shrink(image: np.ndarray) -> np.ndarray:
    """The frame's grey levels in means of CELL x CELL pixels."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    h, w = grey.shape[:2]
    small = cv2.resize(grey, (max(1, w // CELL), max(1, h // CELL)), interpolation=cv2.INTER_AREA)
    return small.astype(np.int16)


class StillIndices:
    """One camera's memory of where the indices were last found (one per pipeline, not shared)."""

    def __init__(self, levels: float = 8.0, max_age: float = 5.0, searches: int = 3, same_iou: float = 0.5):
        self.levels = float(levels)
        self.max_age = float(max_age)
        self.searches = max(1, int(searches))
        self.same_iou = same_iou  # two finds overlapping this much are one index
        self._searched = 0
        self._reused = 0
        self._small: np.ndarray | None = None
        self._key: Hashable = None
        self._found: list = []
        self._finds: list = []  # every find of the searches of this still table
        self._frame = -1
        self._since = 0.0

    def indices(self, image: np.ndarray, key: Hashable, frame_index: int, timestamp: float,
                find: Callable[[], list]) -> tuple[list, int]:
        """The index boxes for this frame and the frame they were found in (`find()` when it moved).

        `key` names what was searched (the region of the frame): another key always searches again.
        """
        small = shrink(image)
        age = timestamp - self._since
        still = (self._small is not None and key == self._key and small.shape == self._small.shape
                 and 0 <= age <= self.max_age and int(np.abs(small - self._small).max()) <= self.levels)
        if still and self._searched >= self.searches:
            self._reused += 1
            return self._found, self._frame
        self._reused = 0
        found = find()
        if still:  # another search of the same still table: pool its finds with the earlier ones
            self._finds = self._finds + list(found)
            self._found = _best_boxes(self._finds, self.same_iou)
            self._searched += 1
        else:  # compared from now on with this frame, and aged from it
            self._small, self._key, self._since, self._searched = small, key, timestamp, 1
            self._finds, self._found = list(found), list(found)
        self._frame = frame_index
        return self._found, frame_index

    @property
    def cut(self) -> tuple[tuple[float, float], float]:
        """(shift, zoom) to cut this frame's indices at: as found on a frame searched, jittered when reused."""
        dx, dy, zoom = CUT_JITTER[self._reused % len(CUT_JITTER)]
        return (dx, dy), zoom



def _best_boxes(finds: list, same_iou: float) -> list:
    """Of finds overlapping by `same_iou` or more (one index found by several searches), the surest;
    in the order found."""
    order = sorted(range(len(finds)), key=lambda i: -finds[i][1])
    kept: list[int] = []
    for i in order:
        if all(_iou(finds[i][0], finds[j][0]) < same_iou for j in kept):
            kept.append(i)
    return [finds[i] for i in sorted(kept)]


def _iou(a, b) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)
