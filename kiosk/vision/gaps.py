"""Indices the detector missed inside a fanned row: look again where the row's step says one is.

In a fanned row the visible indices repeat at one step: same orientation, same size, the next
one a fixed vector further. Where an index has a neighbour one step to one side, nothing one step
to the other side and an index again two (or three) steps that way, the places between are cut
like any found index and handed to the classifier. A place the classifier calls background stays
empty; one it reads as a card joins the corners with a faint detector score, which caps that
card's confidence below the table's doubtful line: a filled gap always asks the dealer to look.
"""

from __future__ import annotations

import math

from kiosk.vision.geometry import box_center, index_size
from kiosk.vision.merge import ORIENT_SURE  # only indices whose orientation is sure set a row's step

PROBE_SCORE = 0.19  # the detector score given to a probed place (merge caps confidence at 0.6 + score)
SIZE_MATCH = 1.3  # neighbours in a row are within this size ratio
STEP_RANGE = (0.45, 2.6)  # a row's step, in index lengths
NEAR = 0.35  # "an index is there": within this share of the step
MAX_MISSING = 2  # at most this many indices missing in a run


def _near(point, centres, radius) -> bool:
    return any(math.hypot(x - point[0], y - point[1]) <= radius for x, y in centres)


def gap_boxes(corners) -> list[tuple[tuple[float, float, float, float], int]]:
    """Boxes (and orientation) of the places in fanned rows where an index should be and none was found.

    >>> from types import SimpleNamespace as C
    >>> row = [C(box=(x, 0, x + 10, 20), orient=0, orient_conf=0.9) for x in (0, 12, 36, 48)]
    >>> gap_boxes(row)
    [((24.0, 0.0, 34.0, 20.0), 0)]
    >>> gap_boxes(row[:2] + row[3:])  # two steps missing between 12 and 48
    [((24.0, 0.0, 34.0, 20.0), 0), ((36.0, 0.0, 46.0, 20.0), 0)]
    >>> gap_boxes(row[:2])  # past the end of a row is no gap
    []
    >>> gap_boxes([C(box=(x, 0, x + 10, 20), orient=0, orient_conf=0.9) for x in (0, 12, 30)])  # not a step apart
    []
    """
    sure = [c for c in corners if c.orient_conf >= ORIENT_SURE]
    out: list[tuple[tuple[float, float, float, float], int]] = []
    probed: list[tuple[float, float]] = []
    for a in sure:
        size = index_size(a.box)
        mates = [b for b in sure if b is not a and b.orient == a.orient
                 and max(size, index_size(b.box)) <= SIZE_MATCH * min(size, index_size(b.box))]
        if not mates:
            continue
        ca = box_center(a.box)
        centres = [box_center(b.box) for b in mates]
        dists = [math.hypot(x - ca[0], y - ca[1]) for x, y in centres]
        step = min(dists)
        if not STEP_RANGE[0] * size <= step <= STEP_RANGE[1] * size:
            continue
        nb = centres[dists.index(step)]
        v = (ca[0] - nb[0], ca[1] - nb[1])  # one step away from the neighbour, past `a`
        radius = NEAR * step
        for missing in range(1, MAX_MISSING + 1):
            if _near((ca[0] + missing * v[0], ca[1] + missing * v[1]), centres, radius):
                break  # no gap this far
            beyond = (ca[0] + (missing + 1) * v[0], ca[1] + (missing + 1) * v[1])
            if not _near(beyond, centres, radius):
                continue
            for k in range(1, missing + 1):
                p = (ca[0] + k * v[0], ca[1] + k * v[1])
                if _near(p, probed, radius):
                    continue
                probed.append(p)
                dx, dy = p[0] - ca[0], p[1] - ca[1]
                x1, y1, x2, y2 = a.box
                out.append(((x1 + dx, y1 + dy, x2 + dx, y2 + dy), a.orient))
            break
    return out
