"""A picture of one deck shows each card at most once.

A single picture read on its own (`kiosk detect`, `kiosk eval`) settles its readings the way the
table settles its positions (kiosk.deck_assignment): where two readings name one card, the
assignment the readings favour most as a whole stands, and a reading that loses its card takes
its runner-up or nothing. Since a misread now has to beat every other reading of its card, a
reading no other reading contests is reported from a lower confidence (`stages.one_deck.report`
in reader.json) than a picture read card by card (`confidence.report`), in a picture of a table
(`TABLE_READINGS` sure readings or more): a photo of a few cards has too few others to contest a
misread. A picture of several decks is read with the rule off (`kiosk detect --many-decks`).
"""

from __future__ import annotations

from dataclasses import replace

from kiosk.cards import deck
from kiosk.deck_assignment import NO_CARD, assign_cards
from kiosk.vision.detections import CardDetection

ONE_DECK = deck(53)  # the Pai Gow joker at most once too
TABLE_READINGS = 8  # a picture with this many sure readings shows a table: enough others to contest a misread


def report_floor(cards, one_deck_report: float, report_confidence: float) -> float:
    """From which confidence a picture of one deck reports its settled readings: `one_deck_report`
    where `TABLE_READINGS` readings or more are sure enough to report anyway, else `report_confidence`.

    >>> rec = lambda p: CardDetection.from_record({"card": "Th", "confidence": p, "box": [0, 0, 60, 90]})
    >>> report_floor([rec(0.9)] * 8, 0.5, 0.6), report_floor([rec(0.9)] * 7 + [rec(0.55)] * 5, 0.5, 0.6)
    (0.5, 0.6)
    """
    sure = sum(c.confidence >= report_confidence for c in cards)
    return one_deck_report if sure >= TABLE_READINGS else report_confidence


def each_card_once(cards, floor: float, n_alternatives: int = 3, unread: float = NO_CARD,
                   trust: list[float] | None = None) -> tuple[CardDetection, ...]:
    """The readings with each card at most once (their runners-up where a surer reading took
    their card), those of at least `floor`, surest first.

    >>> rec = lambda card, p, x, alt=(): CardDetection.from_record({"card": card, "confidence": p,
    ...     "box": [x, 0, x + 60, 90], "corners": [[x, 0, x + 16, 30]], "alternatives": alt})
    >>> read = each_card_once([rec("Th", 0.9, 0), rec("Th", 0.7, 200, [["6h", 0.2]]), rec("5c", 0.45, 400)], 0.4)
    >>> [(str(c.card), c.confidence) for c in read]
    [('Th', 0.9), ('5c', 0.45)]

    The second Th's runner-up (6h, 0.2) stays under the floor; from 0.15 it is reported instead.

    >>> [(str(c.card), c.confidence, c.box[0]) for c in each_card_once(read[:1] + (rec("Th", 0.7, 200, [["6h", 0.2]]),), 0.15)]
    [('Th', 0.9, 0), ('6h', 0.2, 200)]

    `unread` weighs leaving a reading without a card (kiosk.deck_assignment). A reading may be no card at
    all (a pictured back, a pip): where leaving it unread weighs as much as a faint runner-up, a sure
    reading keeps its card against a weak rival instead of taking its 0.01 runner-up.

    >>> pair = [rec("4c", 0.99, 0, [["4s", 0.01]]), rec("4c", 0.41, 300)]
    >>> [(str(c.card), c.confidence) for c in each_card_once(pair, 0.4)]
    [('4c', 0.41)]
    >>> [(str(c.card), c.confidence) for c in each_card_once(pair, 0.4, unread=0.01)]
    [('4c', 0.99)]

    `trust` (one per reading, 0-1: the context check's belief that it lies on a face-up card) weighs
    each reading's claims in the settling, not the confidence reported: of two sure readings of one
    card, the one on a back that pictures cards gives way.

    >>> down, up = rec("7h", 1.0, 0), rec("7h", 0.998, 200)
    >>> [(str(c.card), c.box[0]) for c in each_card_once([down, up], 0.5, unread=0.01)]
    [('7h', 0)]
    >>> [(str(c.card), c.confidence, c.box[0]) for c in each_card_once([down, up], 0.5, unread=0.01, trust=[0.6, 1.0])]
    [('7h', 0.998, 200)]
    """
    cards = list(cards)
    weights = {i: {**dict(c.alternatives), c.card: c.confidence} for i, c in enumerate(cards)}
    claims = weights if trust is None else \
        {i: {k: p * trust[i] for k, p in w.items()} for i, w in weights.items()}
    assigned = assign_cards(claims, list(ONE_DECK), unread)
    settled = []
    for i, c in enumerate(cards):
        card = assigned.get(i)
        if card is None:
            continue
        if card != c.card:
            rest = sorted(((k, p) for k, p in weights[i].items() if k != card), key=lambda kp: -kp[1])
            c = replace(c, card=card, confidence=weights[i][card], alternatives=tuple(rest[:n_alternatives]))
        settled.append(c)
    out = [c for c in settled if c.confidence >= floor]
    named = {c.card for c in out}
    # A runner-up another reading names is no alternative: the deck has settled that card there.
    out = [replace(c, alternatives=tuple((k, p) for k, p in c.alternatives if k not in named)) for c in out]
    out.sort(key=lambda d: -d.confidence)
    return tuple(out)
