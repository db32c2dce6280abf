"""Search for the card indices only while the table moves.

The detector is most of a frame's time (on a 2-core AVX2 CPU ~145 of ~225 ms), and cards on
the felt lie still far more often than they move: in the demo recording 3 frames in 4 show
the same table as the one before. A frame that differs from the frame the indices were found
in by no more than `levels` grey levels anywhere (compared in 8x8-pixel means, which sensor
noise and JPEG do not reach, while a card moved, turned or covered changes by tens of levels)
is a still frame.

The detector searches the first `searches` frames of a still table; the frames after them take
turns with those searches' finds (frame k the finds of search k mod `searches`), as if each had
searched itself: the detector finds an index in one frame and misses it, or finds a stray one, in
the next, and the stabiliser's votes over frames sort that out. Each frame's cuts are classified
from its own pixels, and a frame that reuses finds cuts them a little off or larger in turn
(`CUT_JITTER`), as the detector's own boxes wander, so the frames of a still table do not all vote
on the very same cut. After `max_age` seconds the detector searches again however still the table.

>>> import numpy as np
>>> still = StillIndices(levels=8, max_age=5, searches=2)
>>> table = np.full((1080, 1920, 3), 60, np.uint8)
>>> still.indices(table, "whole", 0, 0.0, lambda: ["A"])
(['A'], 0)
>>> noisy = (table + np.random.default_rng(0).normal(0, 2, table.shape)).clip(0, 255).astype(np.uint8)
>>> still.indices(noisy, "whole", 1, 0.2, lambda: ["B"])  # still: searched again (two searches)
(['B'], 1)
>>> [still.indices(noisy, "whole", i, 0.2 * i, lambda: ["never"]) for i in (2, 3, 4)]  # then they take turns
[(['A'], 0), (['B'], 1), (['A'], 0)]
>>> still.cut  # the third frame that reused finds cuts them 3% of a cut's side to the left
((-0.03, 0.0), 1.0)
>>> moved = table.copy(); moved[500:600, 900:980] = 230  # a card laid down
>>> still.indices(moved, "whole", 5, 1.0, lambda: ["C"])
(['C'], 5)
"""

from __future__ import annotations

from typing import Callable, Hashable

import cv2
import numpy as np

CELL = 8  # pixels a side of the means compared
AS_FOUND = ((0.0, 0.0), 1.0)  # (shift, zoom) of a cut where the index was found
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
    """One camera's memory of where the indices were found (one per pipeline, not shared)."""

    def __init__(self, levels: float = 8.0, max_age: float = 5.0, searches: int = 2):
        self.levels = float(levels)
        self.max_age = float(max_age)
        self.searches = max(1, int(searches))
        self._small: np.ndarray | None = None  # the frame compared with: the first search's
        self._key: Hashable = None
        self._since = 0.0
        self._found: list[tuple[int, list]] = []  # (frame, finds) of each search of the still table
        self._reused = 0

    def indices(self, image: np.ndarray, key: Hashable, frame_index: int, timestamp: float,
                find: Callable[[], list]) -> tuple[list, int]:
        """The index boxes for this frame and the frame they were found in (`find()` when it is not still
        or not searched often enough yet).

        `key` names what was searched (the region of the frame): another key always searches again.
        """
        small = shrink(image)
        age = timestamp - self._since
        still = (self._small is not None and key == self._key and small.shape == self._small.shape
                 and 0 <= age <= self.max_age and int(np.abs(small - self._small).max()) <= self.levels)
        if still and len(self._found) >= self.searches:
            frame, found = self._found[self._reused % len(self._found)]
            self._reused += 1
            return found, frame
        if not still:  # compared from now on with this frame, and aged from it
            self._small, self._key, self._since, self._found = small, key, timestamp, []
        self._reused = 0
        found = find()
        self._found.append((frame_index, found))
        return found, frame_index

    @property
    def cut(self) -> tuple[tuple[float, float], float]:
        """(shift, zoom) to cut the last frame's indices at: as found when searched, off in turn when reused."""
        dx, dy, zoom = CUT_JITTER[self._reused % len(CUT_JITTER)]
        return (dx, dy), zoom
