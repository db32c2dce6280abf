"""One physical card read twice: the one "same card" rule, and the each-card-once policy over readings.

A card shows two indices (opposite corners). The reader may read one index twice (two boxes
alike, or one boxing a part of the other), or read the two indices apart as two readings of the
same card. Both are one card: `same_card` says so, and `keep_surest` keeps one reading per card,
the surest. Only box geometry and card labels: any stage (the reader's merges, the table snapshot,
the stabiliser's slots) can use it.

>>> a, b = (0, 0, 20, 44), (1, 2, 21, 45)
>>> on_index(a, [b]), same_index([a], [(60, 55, 80, 99)])
(True, False)
>>> same_card("Ks", [a], "Kc", [b], apart=0.0, reach=100.0)  # one index read two ways
True
>>> same_card("Ks", [a], "Ks", [(200, 300, 220, 344)], apart=90.0, reach=100.0)  # its two indices
True
>>> same_card("Ks", [a], "Ks", [(200, 300, 220, 344)], apart=120.0, reach=100.0)  # a second Ks: too far
False
>>> keep_surest([0.6, 0.9, 0.7], lambda i, j: {i, j} == {0, 1})
[1, 2]
"""

from __future__ import annotations

from typing import Callable, Hashable, Sequence

from kiosk.vision.geometry import inside_share, iou

Box = tuple[float, float, float, float]

SAME_INDEX_IOU = 0.4  # two index boxes this alike are one index
PART_OF_INDEX = 0.9  # an index box this much inside another of the same frame is a part of that index
INDEX_REACH = 5.0  # a card's two indices lie at most about this many index lengths apart (its diagonal)


def on_index(box: Box, indices: Sequence[Box]) -> bool:
    """Is `box` one of these index boxes (overlapping one by 40% or more)?"""
    return any(iou(box, b) >= SAME_INDEX_IOU for b in indices)


def same_index(a: Sequence[Box], b: Sequence[Box]) -> bool:
    """Do two readings (their index boxes) share an index? Alike, or one boxing a part of the other
    (seed 3537: the lower half of a Ks's index read as Kc, beside the whole index read as Ks: two
    indices of two cards never lie one inside the other)."""
    return any(on_index(p, b) for p in a) or any(
        max(inside_share(p, q), inside_share(q, p)) >= PART_OF_INDEX for p in a for q in b)


def same_card(a_card: Hashable, a_corners: Sequence[Box], b_card: Hashable, b_corners: Sequence[Box],
              apart: float | Callable[[], float], reach: float) -> bool:
    """Are two readings one physical card? They share an index (one index read twice, perhaps two
    ways), or they name the same card at most `reach` apart (its two indices, not paired by the
    reader; `reach`: `INDEX_REACH` index lengths). A genuine second copy of a card that close goes
    unseen, but its seat is then a card short: a `wrong card count`, never a quiet score. `apart`
    may be a function: the distance is then measured only for two readings of one card."""
    if same_index(a_corners, b_corners):
        return True
    return a_card == b_card and (apart() if callable(apart) else apart) <= reach


def keep_surest(confidences: Sequence[float], same: Callable[[int, int], bool]) -> list[int]:
    """Each card once: the indices of the readings kept, in their order, when the surest reading of
    each card is kept and every reading `same(kept, other)` calls the same card is dropped."""
    order = sorted(range(len(confidences)), key=lambda i: -confidences[i])
    dropped: set[int] = set()
    for pos, i in enumerate(order):
        if i in dropped:
            continue
        for j in order[pos + 1:]:
            if j not in dropped and same(i, j):
                dropped.add(j)
    return [i for i in range(len(confidences)) if i not in dropped]
