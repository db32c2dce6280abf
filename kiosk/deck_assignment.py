"""Each card of the deck at most once: the assignment of cards to positions the readings favour most.

A position (slot) gives some weight to a few cards: at the table its mean confidence for each
over the frames that saw it (kiosk.table.deck_settlement), in a single picture one reading's
confidence and runners-up (kiosk.vision.one_deck). When two positions claim one card, reading
them one at a time (the surest first) can leave the second with a poor guess; here every
position is settled at once, maximising the product of the weights, so a chain of misreads (Th
read at two places, the one that is really 6h, the 6h read at a third place that is really 5h)
unwinds as a whole. A position may also be left without a card, when every card it gave weight
to lies surer elsewhere.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import linear_sum_assignment

from kiosk.cards import Card

NO_CARD = 1e-4  # the weight of leaving a position unread: below any reading it gave weight to
NEVER = 1e-9  # the weight of a card a position never gave any


def assign_cards(weights: dict[int, dict[Card, float]], cards: list[Card],
                 unread: float = NO_CARD) -> dict[int, Card | None]:
    """Slot id -> card (or None), each card at most once, maximising the product of the weights;
    `unread` is the weight of leaving a slot without a card.

    >>> from kiosk.cards import deck, parse_card as c
    >>> def show(a): return {sid: str(card) for sid, card in a.items()}
    >>> show(assign_cards({1: {c("Th"): 0.9}, 2: {c("Th"): 0.8, c("6h"): 0.1}}, list(deck())))
    {1: 'Th', 2: '6h'}

    A chain: the surest reading of slot 3 (6h) is better left to slot 2, whose only other
    reading is taken by slot 1; slot 3's runner-up (5h) is free.

    >>> show(assign_cards({1: {c("Th"): 0.9}, 2: {c("Th"): 0.8, c("6h"): 0.15},
    ...                    3: {c("6h"): 0.5, c("5h"): 0.4}}, list(deck())))
    {1: 'Th', 2: '6h', 3: '5h'}

    Nothing else to give: the weaker claim stays unread.

    >>> show(assign_cards({1: {c("Th"): 0.9}, 2: {c("Th"): 0.8}}, list(deck())))
    {1: 'Th', 2: 'None'}

    Where a slot left without a card weighs next to nothing (a table's positions all hold cards), a
    sure claim with a faint runner-up gives way to a weak rival; where it weighs more, the rival goes unread.

    >>> w = {1: {c("4c"): 0.99, c("4s"): 0.01}, 2: {c("4c"): 0.41}}
    >>> show(assign_cards(w, list(deck()))), show(assign_cards(w, list(deck()), unread=0.01))
    ({1: '4s', 2: '4c'}, {1: '4c', 2: 'None'})
    """
    slots = sorted(weights)
    if not slots:
        return {}
    column = {card: j for j, card in enumerate(cards)}
    n, m = len(slots), len(cards)
    # columns: the cards, then one "no card" column per slot
    score = np.full((n, m + n), math.log(NEVER))
    for i, sid in enumerate(slots):
        for card, w in weights[sid].items():
            j = column.get(card)
            if j is not None and w > 0:
                score[i, j] = math.log(max(w, NEVER))
        score[i, m + i] = math.log(unread)
    rows, cols = linear_sum_assignment(score, maximize=True)
    out: dict[int, Card | None] = {}
    for i, j in zip(rows, cols):
        out[slots[i]] = cards[j] if j < m and score[i, j] > math.log(unread) else None
    return out
