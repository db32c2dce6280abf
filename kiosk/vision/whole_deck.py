"""A picture of the whole deck: an index no reading claims is one of the cards no reading names.

Where the settled readings of one picture (kiosk.vision.one_deck) name all the 52 cards but a few
(`stages.whole_deck.unclaimed.left` in reader.json), the cards left lie in the picture too: face up under others, or
at an index the classifier read too unsure to report. So an index the detector found that no
reported reading claims (it overlaps none of their indices and lies in none of their boxes), and that
the context check takes for a face-up card's (P(`not`) under `unclaimed.context_below`), is read
among the cards left alone; each card at most once (kiosk.deck_assignment), and only where the
classifier gives it at least `unclaimed.least`. Such a reading is reported with the classifier's own
(low) confidence: a dealer or a script still sees how sure it was. With `unclaimed.misjoined` an index
that a neighbour's reading took (`misjoined`) is read among the cards left as well.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from kiosk.cards import CLASS_NAMES, deck
from kiosk.deck_assignment import assign_cards
from kiosk.vision.detections import CardDetection
from kiosk.vision.geometry import centre_inside_any, iou
from kiosk.vision.merge import card_box

CLAIMED_IOU = 0.3  # a find overlapping a reported reading's index this much is that index


def cards_left(cards) -> list:
    """The 52 cards (no joker) no reading names, in deck order."""
    named = {c.card for c in cards}
    return [c for c in deck(52) if c not in named]


def unclaimed_finds(cards, finds) -> list[tuple]:
    """The found index boxes no reading claims: overlapping none of its indices, centred in none of its boxes.

    >>> read = CardDetection.from_record({"card": "Ks", "confidence": 0.9, "box": [0, 0, 60, 90],
    ...                                   "corners": [[0, 0, 16, 30]]})
    >>> unclaimed_finds([read], [((1, 1, 16, 30), 0.8), ((40, 50, 56, 80), 0.5), ((200, 0, 216, 30), 0.7)])
    [(200, 0, 216, 30)]
    """
    claimed = [b for c in cards for b in (c.corners or (c.box,))]
    boxes = [c.box for c in cards]
    return [tuple(box) for box, _ in finds
            if max((iou(tuple(box), tuple(k)) for k in claimed), default=0.0) < CLAIMED_IOU
            and not centre_inside_any(box, boxes)]


def read_left(left, boxes, mass: np.ndarray, p_not, least: float, context_below: float) -> list[CardDetection]:
    """Readings of unclaimed finds (`boxes`, their card mass (n, 53) and the context check's P(`not`)),
    each naming one of the cards `left`, each card at most once, where the classifier gives it at least `least`.

    >>> from kiosk.cards import parse_card as c
    >>> mass = np.zeros((3, len(CLASS_NAMES)))
    >>> mass[0, CLASS_NAMES.index("Ks")], mass[0, CLASS_NAMES.index("Kc")] = 0.6, 0.35   # Ks is read elsewhere
    >>> mass[1, CLASS_NAMES.index("Kc")] = 0.5
    >>> mass[2, CLASS_NAMES.index("9h")] = 0.9                                          # on a pictured back
    >>> boxes = [(0, 0, 16, 30), (100, 0, 116, 30), (200, 0, 216, 30)]
    >>> found = read_left([c("Kc"), c("9h"), c("4d")], boxes, mass, [0.1, 0.1, 0.9], least=0.3, context_below=0.5)
    >>> [(str(d.card), d.confidence, d.box[0]) for d in found]
    [('Kc', 0.5, 100.0)]
    """
    columns = [CLASS_NAMES.index(str(card)) for card in left]
    weights = {}
    for i, (row, doubt) in enumerate(zip(mass, p_not)):
        if doubt < context_below:
            claims = {card: float(row[j]) for card, j in zip(left, columns) if row[j] >= least}
            if claims:
                weights[i] = claims
    out = []
    for i, card in assign_cards(weights, list(left)).items():
        if card is not None:
            box = tuple(float(v) for v in boxes[i])
            out.append(CardDetection(card, weights[i][card], box, (box,)))
    return out


def misjoined(cards, corner_mass, left, sure: float) -> list[tuple[int, int]]:
    """(reading, index) of each index that a reading of two or more indices took from a neighbour: its
    own surest card, read at least `sure`, is one of the cards `left`, while every other index of the
    reading reads the reading's card surest. The merge pairs two indices by geometry and their joint
    reading, so a 10 of clubs' index read Tc 0.64 / Ts 0.22 beside a 10 of spades' lone index reads as
    one Ts, and the Tc goes unnamed. `corner_mass[i]`: the card mass (k, 53) of reading i's k indices, or None.

    >>> from kiosk.cards import parse_card as c
    >>> def row(**p):
    ...     m = np.zeros(len(CLASS_NAMES))
    ...     for name, v in p.items():
    ...         m[CLASS_NAMES.index(name)] = v
    ...     return m
    >>> ts = CardDetection(c("Ts"), 0.99, (0, 0, 100, 60), ((0, 0, 16, 30), (84, 30, 100, 60)))
    >>> misjoined([ts], [np.stack([row(Tc=0.64, Ts=0.22), row(Ts=0.99)])], [c("Tc")], sure=0.5)
    [(0, 0)]
    >>> misjoined([ts], [np.stack([row(Tc=0.64, Ts=0.22), row(Ts=0.99)])], [c("9h")], sure=0.5)  # Tc named
    []
    >>> misjoined([ts], [np.stack([row(Tc=0.48, Ts=0.4), row(Ts=0.99)])], [c("Tc")], sure=0.5)  # Tc unsure
    []
    >>> misjoined([ts], [np.stack([row(Tc=0.64, Ts=0.22), row(Tc=0.5, Ts=0.4)])], [c("Tc")], sure=0.5)
    []
    """
    left_columns = {CLASS_NAMES.index(str(card)) for card in left}
    out = []
    for i, (reading, mass) in enumerate(zip(cards, corner_mass)):
        if mass is None or len(mass) < 2:
            continue
        own = CLASS_NAMES.index(str(reading.card))
        tops = [int(np.argmax(row)) for row in mass]
        for k, top in enumerate(tops):
            if top in left_columns and mass[k][top] >= sure and all(t == own for j, t in enumerate(tops) if j != k):
                out.append((i, k))
    return out


def without_index(reading: CardDetection, k: int, mass: np.ndarray) -> CardDetection:
    """`reading` with its index `k` given back: the box of the indices left (with the merge's margin
    where two or more), the confidence no more than the least of what they read the card alone.

    >>> from kiosk.cards import parse_card as c
    >>> ts = CardDetection(c("Ts"), 0.99, (0, 0, 100, 60), ((0, 0, 16, 30), (84, 30, 100, 60)),
    ...                    turns=((0, 1.0), (2, 0.9)))
    >>> m = np.zeros((2, len(CLASS_NAMES))); m[1, CLASS_NAMES.index("Ts")] = 0.97
    >>> d = without_index(ts, 0, m)
    >>> (str(d.card), d.confidence, d.box, d.corners, d.turns)
    ('Ts', 0.97, (84.0, 30.0, 100.0, 60.0), ((84.0, 30.0, 100.0, 60.0),), ((2, 0.9),))
    """
    rest = [b for j, b in enumerate(reading.corners) if j != k]
    column = CLASS_NAMES.index(str(reading.card))
    conf = min(reading.confidence, min(float(mass[j][column]) for j in range(len(reading.corners)) if j != k))
    box = tuple(float(v) for v in card_box(rest))
    if len(rest) > 1:  # the merge's box was clipped to the frame; stay inside it
        x1, y1, x2, y2 = reading.box
        box = (max(box[0], x1), max(box[1], y1), min(box[2], x2), min(box[3], y2))
    return replace(reading, confidence=round(conf, 4), box=box, corners=tuple(tuple(float(v) for v in b) for b in rest),
                   turns=tuple(t for j, t in enumerate(reading.turns) if j != k))
