"""One frame of the table understood: each read card placed in a seat, row and position.

A snapshot is what one frame says; the stabiliser (stabilizer.py) turns many of them
into a hand. The per-frame integrity notes (RULES §7) are informative only: a card
missed in one frame is not yet a wrong count.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace

import numpy as np

from kiosk.cards import ROWS, Card
from kiosk.same_card import INDEX_REACH, keep_surest, on_index, same_card
from kiosk.table.layout import TableGeometry, rows_by_bands, rows_by_depth
from kiosk.vision.detections import Box, CardDetection, Detections
from kiosk.vision.geometry import box_center, index_size



@dataclass(frozen=True, slots=True)
class PlacedCard:
    card: Card
    confidence: float
    box: Box
    seat: int | None  # None: outside every seat zone
    row: str | None  # front | middle | back (None outside a seat)
    position: int | None  # 0-based, left to right as the player sees the row
    depth: float  # distance from the seat's edge (table coordinates)
    lateral: float  # left-to-right position as the player sees it
    table_xy: tuple[float, float]
    size: float  # the box's smaller side in pixels (a card index's scale)
    alternatives: tuple[tuple[Card, float], ...] = ()
    trust: float = 1.0  # how far the anchor is to be trusted (`anchor_trust`)
    corners: tuple[Box, ...] = ()  # the index boxes read (image pixels)

    def to_json(self) -> dict:
        return {
            "card": str(self.card),
            "confidence": round(float(self.confidence), 4),
            "box": [round(float(v), 1) for v in self.box],
            "seat": self.seat,
            "row": self.row,
            "position": self.position,
        }


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    dead: bool
    front: tuple[PlacedCard, ...] = ()
    middle: tuple[PlacedCard, ...] = ()
    back: tuple[PlacedCard, ...] = ()
    occupancy: float = 0.0  # share of the seat zone covered by something other than felt
    blob: float | None = None  # area (px^2) of the largest covered patch in the zone (None: not measured)

    @property
    def cards(self) -> tuple[PlacedCard, ...]:
        return self.back + self.middle + self.front

    def row(self, name: str) -> tuple[PlacedCard, ...]:
        return getattr(self, name)

    def to_json(self) -> dict:
        return {
            "seat": self.seat,
            "dead": self.dead,
            **{r: [str(c.card) for c in self.row(r)] for r in ROWS},
            "occupancy": round(self.occupancy, 3),
        }


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    frame_index: int
    timestamp: float
    image_size: tuple[int, int]
    seats: tuple[SeatView, ...]
    stray: tuple[PlacedCard, ...] = ()  # read cards outside every seat zone
    integrity: tuple[str, ...] = ()
    felt_occupancy: float = 0.0  # share of the whole felt covered by something other than felt
    card_area: float = 0.0  # a card's area (px^2) judged from this frame's indices (0: none read)
    meta: dict = field(default_factory=dict, compare=False)

    @property
    def cards(self) -> tuple[PlacedCard, ...]:
        return tuple(c for s in self.seats for c in s.cards) + self.stray

    def seat(self, number: int) -> SeatView:
        for s in self.seats:
            if s.seat == number:
                return s
        raise KeyError(number)

    def to_json(self) -> dict:
        return {
            "frame_index": self.frame_index,
            "timestamp": round(self.timestamp, 3),
            "seats": [s.to_json() for s in self.seats],
            "stray": [c.to_json() for c in self.stray],
            "integrity": list(self.integrity),
        }


def anchor(geometry: TableGeometry, det: CardDetection) -> tuple[tuple[float, float], float]:
    """The point that stands for a card, and its scale (the index's size).

    A card prints its index twice, diagonally opposite, and in a fanned row the one that
    shows on every card is its upper-left index as the player sees it: the one deepest
    into the table, since cards face their seat. That index is the card's anchor. When
    only the other index shows (a hand over the card), the anchor is its mirror through
    the card's centre (the reader's box is the whole card); without a whole-card box the
    visible index stands in.
    """
    x1, y1, x2, y2 = det.box
    if not det.corners:
        return det.center, max(4.0, min(x2 - x1, y2 - y1))
    centres = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in det.corners]
    sizes = [max(4.0, min(b[2] - b[0], b[3] - b[1])) for b in det.corners]
    seat = geometry.seat_at(det.center)
    if seat is None:
        return centres[0], sizes[0]
    table = geometry.to_table(centres + [det.center])
    depths = [geometry.depth_lateral(seat, t)[0] for t in table]
    k = max(range(len(centres)), key=lambda i: depths[i])
    if len(centres) == 1 and depths[-1] - depths[0] > 0.5 * sizes[0]:
        # the visible index lies nearer the player than the card's centre: it is the lower one
        cx, cy = det.center
        return (2 * cx - centres[0][0], 2 * cy - centres[0][1]), sizes[0]
    return centres[k], sizes[k]


def _unwedge_anchors(geometry: TableGeometry, cards: list[CardDetection], items: list) -> list:
    """Move an anchor that lands inside another row's run of cards to the card's other index
    when that one fills a gap of its own row.

    The anchor trusts the reader's pairing and which way it says an index faces: an index read
    upside down (mirrored), or paired with a stray reading of another row, throws a card a row
    too deep. In a fanned row the cards' anchors lie a step apart, so a true anchor sits about a
    step from its neighbours (or fills a gap), while a thrown one lands between two of another
    row's, within 0.6 of a step of two of them.
    """
    out = list(items)
    seats = [geometry.seat_at(d.center) for d in cards]
    for seat in set(seats) - {None}:
        members = [i for i, s in enumerate(seats) if s == seat]
        xy = np.asarray([items[i][0] for i in members], np.float64)
        dist = _distances(xy)
        steps = _fan_steps(dist)
        wedged = (steps > 0) & ((dist < 0.6 * steps[:, None]).sum(axis=1) >= 2)
        for m in np.flatnonzero(wedged):
            i = members[m]
            det, (point, size) = cards[i], items[i]
            if not det.corners:
                continue
            step = steps[m]
            others = np.delete(xy, m, axis=0)
            fits = [(_gap_fit(q, others, step), q) for q in
                    (((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in det.corners)
                    if np.hypot(q[0] - point[0], q[1] - point[1]) > 1e-6]
            best = max(fits, default=None)
            if best is not None and best[0] >= 0.75:
                out[i] = (best[1], size)
    return out


def _fan_steps(dist: np.ndarray) -> np.ndarray:
    """For each anchor, the usual distance from one of the others to its nearest neighbour among
    them (a fanned row's step, the anchor itself left out; 0 with fewer than 4 others).
    `dist`: the anchors' distance matrix, infinite on the diagonal.

    >>> [round(float(v), 1) for v in _fan_steps(_distances([(0, 0), (10, 0), (20, 0), (30, 0), (100, 0)]))]
    [10.0, 15.0, 15.0, 10.0, 10.0]
    """
    n = len(dist)
    if n < 5:
        return np.zeros(n)
    order = np.argsort(dist, axis=1)
    nearest, second = order[:, 0], order[:, 1]
    rows = np.arange(n)
    # Leaving anchor i out, anchor j's nearest is its second nearest when its nearest was i.
    nn = np.where(nearest[None, :] == rows[:, None], dist[rows, second][None, :], dist[rows, nearest][None, :])
    return np.median(nn[~np.eye(n, dtype=bool)].reshape(n, n - 1), axis=1)


def _distances(points) -> np.ndarray:
    xy = np.asarray(points, np.float64)
    dist = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    np.fill_diagonal(dist, np.inf)
    return dist


def _gap_fit(point, others, step: float) -> float:
    """Distance to the nearest other anchor, in steps.

    >>> _gap_fit((0.0, 0.0), [(30.0, 0.0), (60.0, 0.0)], 30.0)
    1.0
    """
    return min((float(np.hypot(point[0] - x, point[1] - y)) for x, y in others), default=np.inf) / step


def _without_joker(cards) -> list[CardDetection]:
    out = []
    for d in cards:
        alternatives = tuple((c, p) for c, p in d.alternatives if not c.is_joker)
        if not d.card.is_joker:
            out.append(d if len(alternatives) == len(d.alternatives) else
                       CardDetection(d.card, d.confidence, d.box, d.corners, alternatives))
        elif alternatives:
            (card, conf), rest = alternatives[0], alternatives[1:]
            out.append(CardDetection(card, conf, d.box, d.corners, rest))
    return out


def _one_card_one_reading(cards: list[CardDetection], items: list) -> tuple[list, list]:
    """Each card once (`kiosk.same_card`): two readings of one index, or of one card's two indices
    close together (the reader did not pair them), are one card; keep the surer reading. Close: on
    the image or on the table, within `INDEX_REACH` index lengths (a card's diagonal)."""
    lengths = [_index_length(c) for c in cards]

    def apart(i: int, j: int) -> float:
        (xi, yi), (xj, yj) = cards[i].center, cards[j].center
        (ai, bi), (aj, bj) = items[i][0], items[j][0]
        return min(np.hypot(xi - xj, yi - yj), np.hypot(ai - aj, bi - bj))

    def same(i: int, j: int) -> bool:
        a, b = cards[i], cards[j]
        return same_card(a.card, a.corners, b.card, b.corners, lambda: apart(i, j),
                         INDEX_REACH * max(lengths[i], lengths[j]))

    keep = keep_surest([c.confidence for c in cards], same)
    return [cards[i] for i in keep], [items[i] for i in keep]


def distinct_indices(corners) -> tuple[Box, ...]:
    """A reading's index boxes, each index once (the detector may box one index twice).

    >>> len(distinct_indices(((0, 0, 20, 44), (1, 2, 21, 45), (60, 55, 80, 99))))
    2
    """
    out: list[Box] = []
    for b in corners:
        if not on_index(b, out):
            out.append(b)
    return tuple(out)


TRUST_CARD, TRUST_LONE_INDEX, TRUST_ODD_PAIR = 1.0, 0.6, 0.3
GHOST_CONFIDENCE = 0.5  # below this a reading is too weak to shape the rows, or to stand alone


def shows_its_indices(corners, trust: float, confidence: float) -> bool:
    """Does a reading show which index boxes are one card's? A plausible pair (or four indices)
    read surely enough to be a card (a weak one may pair an index with a neighbour's)."""
    return len(distinct_indices(corners)) in (2, 4) and trust == TRUST_CARD and confidence >= GHOST_CONFIDENCE


def anchor_trust(det: CardDetection) -> float:
    """How far a reading's anchor is to be trusted, as a weight among a card's readings.

    A whole card (its two indices paired, or one index whose facing the reader knew) places
    its anchor surely. One index alone may be the card's lower one, which lies about a row
    nearer the player. Two indices side by side along the card's length are no card's pair
    (the reader paired an index with a neighbour's): the anchor may be the neighbour's. Nor
    are three: a card shows two indices, or four at its corners (seed 1804: a card's pair joined
    with another card's index misread as the same card).

    >>> anchor_trust(CardDetection(Card(9, "d"), 0.9, (0, 0, 20, 44), ((0, 0, 20, 44),)))
    0.6
    >>> pair = lambda dx: CardDetection(Card(9, "d"), 0.9, (0, 0, 80, 100), ((0, 0, 20, 44), (dx, 55, dx + 20, 99)))
    >>> anchor_trust(pair(57)), anchor_trust(pair(-6))   # a true pair sits ~1.3 index lengths aside
    (1.0, 0.3)
    >>> anchor_trust(pair(-57))   # down and to the left: the diagonal a card's two indices never take
    0.3
    >>> anchor_trust(CardDetection(Card(9, "d"), 0.9, (0, 0, 200, 100),
    ...                            ((0, 0, 20, 44), (57, 55, 77, 99), (180, 20, 200, 64))))   # three indices
    0.3
    """
    if len(det.corners) == 1 and all(abs(a - b) < 1.0 for a, b in zip(det.box, det.corners[0])):
        return TRUST_LONE_INDEX
    indices = distinct_indices(det.corners)
    if len(indices) == 2 and not _a_cards_pair(*indices) or len(indices) == 3:
        return TRUST_ODD_PAIR
    if len(indices) == 4 and not _one_cards_four(indices):
        return TRUST_ODD_PAIR
    return TRUST_CARD


def _one_cards_four(indices) -> bool:
    """Could four index boxes be one card's (a deck printing four indices)? They sit at its four
    corners, so one way of pairing them gives two diagonals of one length crossing at their
    midpoints; two cards' pairs read as one card (seed 1317) do not (two pairs of the same shape
    side by side do cross so, but their diagonals differ in length).

    >>> box = lambda x, y: (x, y, x + 20, y + 44)
    >>> _one_cards_four([box(0, 0), box(60, 0), box(0, 100), box(60, 100)])
    True
    >>> _one_cards_four([box(0, 0), box(60, 100), box(150, 60), box(210, 160)])   # two cards' pairs
    False
    >>> _one_cards_four([box(0, 0), box(60, 100), box(180, 30), box(130, 120)])   # crossing nowhere
    False
    """
    c = [box_center(q) for q in indices]
    size = float(np.mean([index_size(q) for q in indices]))
    for (i, j), (k, m) in (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))):
        crossing = math.dist(np.add(c[i], c[j]) / 2, np.add(c[k], c[m]) / 2)
        d1, d2 = math.dist(c[i], c[j]), math.dist(c[k], c[m])
        if crossing <= 0.5 * size and abs(d1 - d2) <= 0.2 * max(d1, d2):
            return True
    return False


def _a_cards_pair(a: Box, b: Box) -> bool:
    """Could two index boxes be one card's (diagonally opposite: well aside across the card)?

    A card's indices sit at its top-left and bottom-right corners, whichever way up it lies:
    upright index boxes (taller than wide) pair down and to the right, or up and to the left;
    a card on its side turns that diagonal over. Two boxes well apart along the other diagonal
    are no card's pair (seed 1692: an index paired with a mark up and to the right of it).
    """
    w = (a[2] - a[0] + b[2] - b[0]) / 2
    h = (a[3] - a[1] + b[3] - b[1]) / 2
    if abs(w - h) < 0.2 * max(w, h):
        return True  # a card turned near 45 degrees: which way is across is not known
    dx = ((b[0] + b[2]) - (a[0] + a[2])) / 2
    dy = ((b[1] + b[3]) - (a[1] + a[3])) / 2
    across = abs(dx) if h > w else abs(dy)
    if across < 0.5 * max(w, h):
        return False
    clear = min(abs(dx), abs(dy)) >= 0.5 * max(w, h)
    return not (clear and (dx * dy > 0) != (h > w))


def _index_length(det: CardDetection) -> float:
    if det.corners:
        return max(max(b[2] - b[0], b[3] - b[1]) for b in det.corners)
    x1, y1, x2, y2 = det.box
    return max(x2 - x1, y2 - y1) / 4.0  # a whole-card box: an index is about a quarter of it


def place_cards(
    geometry: TableGeometry, items: list[tuple[tuple[float, float], float]]
) -> list[tuple[int | None, float, float, tuple[float, float]]]:
    """Seat, depth, lateral and table position of image points (each with its scale)."""
    if not items:
        return []
    table = geometry.to_table([p for p, _ in items])
    out = []
    for (point, _), txy in zip(items, table):
        seat = geometry.seat_at(point, txy)
        if seat is None:
            out.append((None, 0.0, 0.0, (float(txy[0]), float(txy[1]))))
        else:
            depth, lateral = geometry.depth_lateral(seat, txy)
            out.append((seat, depth, lateral, (float(txy[0]), float(txy[1]))))
    return out


def assign_rows(
    geometry: TableGeometry, seat: int, depths: list[float], sizes: list[float], laterals: list[float] | None = None
) -> list[str]:
    """Rows of one seat's cards: their own depth bands, or the seat's fixed bands."""
    sg = geometry.seats[seat]
    if geometry.rows_mode == "bands" and sg.bands is not None:
        return rows_by_bands(depths, geometry.seat_depth_extent(seat), sg.bands)
    min_gap = 0.5 * float(np.median(sizes)) if sizes else None
    return rows_by_depth(depths, laterals, min_gap=min_gap)


def build_snapshot(
    detections: Detections,
    geometry: TableGeometry,
    dead: frozenset[int] | set[int] = frozenset(),
    occupancy: dict[int, float] | None = None,
    felt_occupancy: float = 0.0,
    min_confidence: float = 0.0,
    blobs: dict[int, float] | None = None,
    joker: bool = False,
) -> TableSnapshot:
    """Place every read card of one frame and note what is plainly wrong in it.

    `joker`: the game uses the joker (Pai Gow); in Chinese Poker a joker reading is no card,
    so its runner-up stands instead (or nothing, without one).
    """
    cards = [d for d in (detections.cards if joker else _without_joker(detections.cards))
             if d.confidence >= min_confidence]
    items = _unwedge_anchors(geometry, cards, [anchor(geometry, d) for d in cards])
    cards, items = _one_card_one_reading(cards, items)
    placed_raw = place_cards(geometry, items)
    by_seat: dict[int | None, list[PlacedCard]] = {}
    for det, (point, size), (seat, depth, lateral, txy) in zip(cards, items, placed_raw):
        by_seat.setdefault(seat, []).append(
            PlacedCard(det.card, det.confidence, det.box, seat, None, None, depth, lateral, txy, size, det.alternatives,
                       anchor_trust(det), det.corners)
        )
    seats = []
    for number in sorted(geometry.seats):
        group = by_seat.get(number, [])
        rows = assign_rows(geometry, number, [c.depth for c in group], [c.size for c in group], [c.lateral for c in group])
        by_row: dict[str, list[PlacedCard]] = {r: [] for r in ROWS}
        for card, row in zip(group, rows):
            by_row[row].append(card)
        final = {}
        for row, members in by_row.items():
            members.sort(key=lambda c: c.lateral)
            final[row] = tuple(
                replace(c, row=row, position=i) for i, c in enumerate(members)
            )
        seats.append(SeatView(number, number in dead, occupancy=(occupancy or {}).get(number, 0.0),
                              blob=None if blobs is None else blobs.get(number, 0.0), **final))
    stray = tuple(by_seat.get(None, []))
    # A card's area from its index: a card is about 5 index lengths tall and 0.72 as wide (the
    # reader's box is the whole card only when it knows which way the index faces).
    areas = sorted(18.0 * _index_length(d) ** 2 for d in cards)
    snapshot = TableSnapshot(
        detections.frame_index, detections.timestamp, detections.image_size, tuple(seats), stray,
        felt_occupancy=felt_occupancy, card_area=float(areas[len(areas) // 2]) if areas else 0.0,
    )
    return _with_integrity(snapshot)


def _with_integrity(snapshot: TableSnapshot) -> TableSnapshot:
    notes = []
    counts = Counter(c.card for c in snapshot.cards)
    for card, n in sorted(counts.items()):
        if n > 1:
            where = ", ".join(_where(c) for c in snapshot.cards if c.card == card)
            notes.append(f"duplicate card: {card} at {where}")
    total = len(snapshot.cards)
    if total > 52:
        notes.append(f"wrong card count: {total} cards on the table (a deck has 52)")
    for seat in snapshot.seats:
        n = len(seat.cards)
        if not seat.dead and n > 13:
            notes.append(f"wrong card count: seat {seat.seat} has {n} cards")
    return TableSnapshot(
        snapshot.frame_index, snapshot.timestamp, snapshot.image_size, snapshot.seats, snapshot.stray,
        tuple(notes), snapshot.felt_occupancy, snapshot.card_area, snapshot.meta,
    )


def _where(card: PlacedCard) -> str:
    if card.seat is None:
        return "off the seats"
    return f"seat {card.seat} {card.row} {card.position + 1}"
