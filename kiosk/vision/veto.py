"""The background veto: a single picture's readings looked at again by a classifier taught backs and print.

The index classifier reads kde-konqi-modern's dragons (creatures on light paper, a test design's backs) as 3c
or Kc at 0.6-0.8, and the context check takes them for a face-up card's corner. The same classifier fine-tuned
on the CPU with creature backs and printed words as `bg` (model card, "Phase 27" and "The background veto")
reads them as background, but it reads jokers and 1080p cards weaker than the shipped one, so it does not
replace it: it only vetoes. A reading is dropped where the veto gives the background at least `bg`
(reader.json `stages.veto`) at every one of its corners. Readings of the cards in `spare` are never vetoed: the veto
learnt printed words as background, and many jokers' index is the word JOKER.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from kiosk.vision.detections import CardDetection


def vetoed(cards: Sequence[CardDetection], bg_at: Callable[[list], np.ndarray], line: float,
           spare: frozenset[str] = frozenset()) -> tuple[tuple[CardDetection, ...], tuple[CardDetection, ...]]:
    """(kept, dropped): `bg_at(boxes)` gives the veto's background share at each index box; a reading whose
    every corner reaches `line` is dropped, unless it names a card in `spare`.

    >>> from kiosk.cards import parse_card
    >>> def card(name, *corners): return CardDetection(parse_card(name), 0.8, corners[0], corners=corners)
    >>> dragon = card("3c", (0, 0, 10, 20), (50, 60, 60, 80))
    >>> half = card("Kc", (100, 0, 110, 20), (150, 60, 160, 80))
    >>> word = card("Jk", (200, 0, 210, 20))
    >>> share = {(0, 0, 10, 20): 0.9, (50, 60, 60, 80): 0.7, (100, 0, 110, 20): 0.9, (150, 60, 160, 80): 0.2,
    ...          (200, 0, 210, 20): 0.95}
    >>> kept, dropped = vetoed([dragon, half, word], lambda boxes: np.array([share[b] for b in boxes]), 0.6, frozenset({"Jk"}))
    >>> [str(c.card) for c in kept], [str(c.card) for c in dropped]
    (['Kc', 'Jk'], ['3c'])
    """
    asked = [c for c in cards if str(c.card) not in spare]
    boxes = [tuple(b) for c in asked for b in (c.corners or (c.box,))]
    share = iter(bg_at(boxes) if boxes else ())
    out = set()
    for c in asked:
        if min(float(next(share)) for _ in (c.corners or (c.box,))) >= line:
            out.add(id(c))
    return tuple(c for c in cards if id(c) not in out), tuple(c for c in cards if id(c) in out)
