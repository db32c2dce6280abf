"""Two readings at the two corners of one card: the surer one stands.

A card's two indices sit at a fixed offset from each other, the same for every card of a deck: seen from one
index (in its upright frame, index-lengths) the other lies at about (3.0, 3.9) for small-index decks, (1.3, 1.35)
for big ones (kiosk.vision.merge). The picture's cards read at both corners show this deck's offset. Where two
readings of one index each, facing opposite ways, sit at that offset from each other (within `reach`
index-lengths, seen from both), they are the two indices of one card read as two cards, at least one of them
wrong: merging could not join them because neither reading names the other's card (a court's second index
read as another court, a 6 as a 5). The less sure one is dropped where the other is sure (`sure`); where both
are in doubt both stand (model card, results, "Two corners of one card").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from statistics import median

from kiosk.vision.detections import CardDetection
from kiosk.vision.geometry import box_center, index_size, to_index_frame
from kiosk.vision.merge import ORIENT_SURE, SIZE_RATIO

# The picture's offset is trusted from this many cards read at both corners with sure orientations.
LEAST_PAIRS = 2

Orient = tuple[int, float]  # (quarter turns, how sure)


def offset(a: tuple, b: tuple, k: int) -> tuple[float, float]:
    """Where index box `b` lies seen from index box `a` of orientation `k`: in `a`'s upright frame, in mean
    index-lengths.

    >>> offset((0, 0, 10, 20), (30, 40, 40, 60), 0), offset((30, 40, 40, 60), (0, 0, 10, 20), 2)
    ((1.5, 2.0), (1.5, 2.0))
    """
    length = (index_size(a) + index_size(b)) / 2
    (ax, ay), (bx, by) = box_center(a), box_center(b)
    dx, dy = to_index_frame((bx - ax, by - ay), k)
    return dx / length, dy / length


def deck_offset(cards: Sequence[CardDetection], orient: dict[tuple, Orient]) -> tuple[float, float] | None:
    """The median offset between the two indices of the cards read at exactly two, each seen from the
    other; None from fewer than LEAST_PAIRS such cards with sure orientations."""
    seen = []
    for c in cards:
        if len(c.corners) != 2:
            continue
        (a, ka), (b, kb) = ((tuple(box), orient[tuple(box)]) for box in c.corners)
        if min(ka[1], kb[1]) >= ORIENT_SURE:
            seen += [offset(a, b, ka[0]), offset(b, a, kb[0])]
    if len(seen) < 2 * LEAST_PAIRS:
        return None
    return median(x for x, _ in seen), median(y for _, y in seen)


def one_card(a: tuple, ka: Orient, b: tuple, kb: Orient, deck: tuple[float, float], reach: float) -> bool:
    """Are index boxes `a` and `b` (with their orientations) the two indices of one card of this deck?"""
    if min(ka[1], kb[1]) < ORIENT_SURE or (ka[0] - kb[0]) % 4 != 2:
        return False
    sa, sb = index_size(a), index_size(b)
    if max(sa, sb) > SIZE_RATIO * max(min(sa, sb), 1e-6):
        return False
    return max(math.dist(offset(a, b, ka[0]), deck), math.dist(offset(b, a, kb[0]), deck)) < reach


def index_turns(cards: Sequence[CardDetection], orient_at: Callable[[list], list[Orient]]) -> dict[tuple, Orient]:
    """Each index box of the readings of one or two indices: its orientation and how sure, the reading's `turns`, or
    where it has none (a rule made it from boxes alone), `orient_at(boxes)`."""
    orient = {}
    for c in cards:
        if len(c.corners) in (1, 2) and len(c.turns) == len(c.corners):
            orient.update(zip((tuple(b) for b in c.corners), c.turns))
    unknown = [tuple(b) for c in cards if len(c.corners) in (1, 2) for b in c.corners if tuple(b) not in orient]
    orient.update(zip(unknown, orient_at(unknown)) if unknown else ())
    return orient


def disagreeing_partners(cards: Sequence[CardDetection], orient_at: Callable[[list], list[Orient]], reach: float,
                         sure: float) -> tuple[tuple[CardDetection, ...], tuple[CardDetection, ...]]:
    """(kept, dropped); each index's orientation as `index_turns` gives it.

    >>> from kiosk.cards import parse_card
    >>> def card(name, conf, *corners): return CardDetection(parse_card(name), conf, corners[0], corners=corners)
    >>> # two cards read at both corners (the partner 20 right, 30 down, turned half round), a 6h read at one
    >>> # corner and a 5h where the 6h's other corner is; a 7c and an 8c at that offset facing the same way
    >>> both = [card("Kd", 0.99, (0, 0, 10, 20), (20, 30, 30, 50)), card("Qs", 0.99, (100, 0, 110, 20), (120, 30, 130, 50))]
    >>> six, five = card("6h", 0.99, (200, 0, 210, 20)), card("5h", 0.62, (220, 30, 230, 50))
    >>> seven, eight = card("7c", 0.99, (300, 0, 310, 20)), card("8c", 0.62, (320, 30, 330, 50))
    >>> turns = {(20, 30, 30, 50): 2, (120, 30, 130, 50): 2, (220, 30, 230, 50): 2}
    >>> at = lambda boxes: [(turns.get(b, 0), 0.95) for b in boxes]
    >>> kept, dropped = disagreeing_partners(both + [six, five, seven, eight], at, 0.75, 0.95)
    >>> [str(c.card) for c in dropped]
    ['5h']
    >>> len(disagreeing_partners(both + [card("6h", 0.9, (200, 0, 210, 20)), five], at, 0.75, 0.95)[1])  # both in doubt
    0
    >>> # a reading's own turns stand: here `at` says the 5h stands upright, the 5h's turns say half round
    >>> upright = lambda boxes: [(turns.get(b, 0) if b != five.corners[0] else 0, 0.95) for b in boxes]
    >>> five_turned = CardDetection(five.card, 0.62, five.box, five.corners, turns=((2, 0.99),))
    >>> [len(disagreeing_partners(both + [six, f], upright, 0.75, 0.95)[1]) for f in (five, five_turned)]
    [0, 1]
    """
    orient = index_turns(cards, orient_at)
    deck = deck_offset(cards, orient)
    if deck is None:
        return tuple(cards), ()
    single = [c for c in cards if len(c.corners) == 1]
    out = set()
    for i, a in enumerate(single):
        for b in single[i + 1:]:
            ba, bb = tuple(a.corners[0]), tuple(b.corners[0])
            if a.card == b.card or not one_card(ba, orient[ba], bb, orient[bb], deck, reach):
                continue
            weak, strong = sorted((a, b), key=lambda c: c.confidence)
            if strong.confidence >= sure:
                out.add(id(weak))
    return tuple(c for c in cards if id(c) not in out), tuple(c for c in cards if id(c) in out)
