"""One table, one scale: every card on the felt lies the same distance from the overhead camera and
the house deck prints every index the same size, so an index far smaller than the others is not a
card's index. It is one printed on something: the four aces pictured on a back (kde-nicu-ornamental
and -white picture them at a third of the real size), a card drawn on a chip, a sleeve, the felt.
"""

from __future__ import annotations

import numpy as np

from kiosk.vision.detections import CardDetection
from kiosk.vision.geometry import index_size

# The typical index: this quantile of the read indices' sizes. Above the median, so that a frame
# whose face-down cards show many pictured indices still measures the real ones.
TYPICAL_QUANTILE = 0.75
# An index's short side is 0.4-0.6 of its long one: what a border cutting it across leaves of it along the border.
SHORT_SIDE = 0.3
# Fewer readings than this say too little about the table's scale (a close photo of three cards).
LEAST_READINGS = 8


def card_index_size(card: CardDetection) -> float:
    """The longer side of the card's largest index box: about the index's height at any turn
    (an index about 0.4 as wide as tall measures 0.99-1.08 of its height turned by 0-90 degrees)."""
    return max(index_size(b) for b in card.corners or (card.box,))


def drop_small(cards: tuple[CardDetection, ...] | list[CardDetection], share: float,
               frame: tuple[int, int] | None = None) -> list[CardDetection]:
    """The cards whose index is at least `share` of the typical index of the frame. Given the
    `frame` (width, height), an index that lies closer to the frame's border than it falls short
    of the typical size is kept: the border may have cut it, so its size says nothing.

    >>> from kiosk.cards import parse_card
    >>> real = [CardDetection(parse_card(c), 0.9, (0, 0, 20, 50)) for c in "2c 3c 4c 5c 6c 7c 8c 9c".split()]
    >>> pictured = CardDetection(parse_card("As"), 0.99, (100, 100, 107, 117))
    >>> kept = drop_small(real + [pictured], 0.5)
    >>> len(kept), pictured in kept
    (8, False)
    >>> len(drop_small(real[:3] + [pictured], 0.5))  # too few readings to know the table's scale
    4
    """
    cards = list(cards)
    if share <= 0 or len(cards) < LEAST_READINGS:
        return cards
    typical = float(np.quantile([card_index_size(c) for c in cards], TYPICAL_QUANTILE))
    return [c for c in cards if card_index_size(c) >= share * typical
            or (frame is not None and _maybe_cut(c, typical, frame))]


def _maybe_cut(card: CardDetection, typical: float, frame: tuple[int, int]) -> bool:
    """Could the frame's border have cut this card's largest index short of the typical size? Only
    across: along the border it cut, an index keeps at least its short side (0.4-0.6 of its long)."""
    w, h = frame
    shortfall = typical - card_index_size(card)
    x1, y1, x2, y2 = max(card.corners or (card.box,), key=index_size)
    along = SHORT_SIDE * typical
    return ((min(x1, w - x2) < shortfall and y2 - y1 >= along)
            or (min(y1, h - y2) < shortfall and x2 - x1 >= along))
