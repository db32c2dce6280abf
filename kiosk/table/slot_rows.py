"""Which row, and where in it, each card position of a seat lies.

The row bands come from each seat's surely read cards; weakly read positions (maybe not cards at
all) join the nearest band afterwards. A seat of 13 whose bands are no 3/5/5 may have one card
moved a row (`layout.refit_rows`): one read only by an index that may belong to another card.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from kiosk.cards import ROW_SIZES, ROWS
from kiosk.table.layout import TableGeometry, refit_rows
from kiosk.table.slot import Slot
from kiosk.table.snapshot import GHOST_CONFIDENCE, TRUST_CARD, assign_rows, distinct_indices
from kiosk.vision.geometry import box_center


def slot_rows(geometry: TableGeometry, present: list[Slot], tallies: dict
              ) -> tuple[dict[int, tuple[str | None, int | None]], dict[int, str]]:
    """Row and position of every slot: the bands come from the surely read cards of each
    seat; weakly read ones (maybe not cards at all) join the nearest band afterwards. A seat
    of 13 whose bands are no 3/5/5 may have one card moved a row (`layout.refit_rows`).
    Returns the rows, and slot id -> row of the cards so moved."""
    rows: dict[int, tuple[str | None, int | None]] = {}
    refitted: dict[int, str] = {}
    by_seat: dict[int | None, list[Slot]] = {}
    for sl in present:
        by_seat.setdefault(sl.seat, []).append(sl)
    offset: list = []  # worked out once, for the first seat that needs it
    for seat, group in by_seat.items():
        if seat is None:
            for sl in group:
                rows[sl.id] = (None, None)
            continue

        def sure(sl: Slot) -> bool:
            t = tallies[sl.id]
            return bool(t) and t[0][3] / max(1, t[0][2]) >= GHOST_CONFIDENCE

        solid = [g for g in group if sure(g)]
        if len(solid) < 3:
            solid = group
        labels = dict(zip((g.id for g in solid), assign_rows(
            geometry, seat, [g.depth for g in solid], [g.size for g in solid], [g.lateral for g in solid]
        )))
        centres = {}
        for row in ROWS:
            depths = [g.depth for g in solid if labels[g.id] == row]
            if depths:
                centres[row] = sum(depths) / len(depths)
        for g in group:
            if g.id not in labels:
                labels[g.id] = min(centres, key=lambda r: abs(centres[r] - g.depth)) if centres else "back"
        lateral = {g.id: g.lateral for g in group}
        moved = None
        counts = Counter(labels[g.id] for g in group)
        if len(group) == 13 and counts != ROW_SIZES:
            if not offset:
                offset.append(_index_offset(geometry, present))
            new, moved, point = refit_rows(
                [labels[g.id] for g in group], [g.depth for g in group], [g.lateral for g in group],
                [_other_points(geometry, g, offset[0]) if counts[labels[g.id]] > ROW_SIZES[labels[g.id]] else []
                 for g in group])  # only a card of a row too full may move
        if moved is not None:
            g = group[moved]
            labels[g.id], lateral[g.id] = new[moved], point[1]
            refitted[g.id] = new[moved]
        for row in ROWS:
            members = sorted((g for g in group if labels[g.id] == row), key=lambda g: lateral[g.id])
            for pos, g in enumerate(members):
                rows[g.id] = (row, pos)
    return rows, refitted



def _other_points(geometry: TableGeometry, sl: Slot, up: tuple[float, float] | None) -> list[tuple[float, float]]:
    """Where a card not read whole may lie, as (depth, lateral): at another index it was read
    from (a pair of two cards' indices is anchored at the deeper one), or at the upper index
    of one it was read from (one index alone may be its lower one). `up`: the step from a
    card's lower index to its upper one; a pair that steps otherwise (by more than 0.3 of it)
    is two cards' indices too (seed 2188: 9d's index paired with one of the row in front)."""
    if sl.seat is None:
        return []
    if sl.trust == TRUST_CARD:
        pair = next((p.corners for p in reversed(sl.places) if len(distinct_indices(p.corners)) == 2), ())
        if up is None or not pair:
            return []
        (d1, l1), (d2, l2) = sorted(_seat_points(geometry, sl.seat, distinct_indices(pair)), reverse=True)
        if math.dist((d1 - d2, l1 - l2), up) <= 0.3 * math.hypot(*up):
            return []  # a card's own pair
    points: list[tuple[float, float]] = []
    for p in _seat_points(geometry, sl.seat, [b for place in sl.places for b in place.corners]):
        if all(math.dist(p, q) > 0.5 * sl.size for q in points + [(sl.depth, sl.lateral)]):
            points.append(p)
    out = list(points)
    if up is not None and sl.trust != TRUST_CARD:
        out += [(d + up[0], lat + up[1]) for d, lat in points + [(sl.depth, sl.lateral)]]
    return out



def _seat_points(geometry: TableGeometry, seat: int, boxes) -> list[tuple[float, float]]:
    """(depth, lateral) of these boxes' centres as the seat sees them."""
    return [geometry.depth_lateral(seat, t) for t in geometry.to_table([box_center(b) for b in boxes])]



def _index_offset(geometry: TableGeometry, present: list[Slot]) -> tuple[float, float] | None:
    """(depth, lateral) from a card's lower index to its upper one as its seat sees it, as
    the cards read whole put them (None with fewer than three)."""
    offsets = []
    for g in present:
        indices = distinct_indices(g.indices)
        if g.seat is None or len(indices) != 2:
            continue
        (d1, l1), (d2, l2) = sorted(_seat_points(geometry, g.seat, indices), reverse=True)
        offsets.append((d1 - d2, l1 - l2))
    if len(offsets) < 3:
        return None
    return tuple(float(v) for v in np.median(offsets, axis=0))
