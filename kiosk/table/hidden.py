"""Cards nobody read, named by the deck: with four seats open the whole deck is on the table.

When the cards read leave exactly as many cards of the deck unaccounted for as the short rows
lack, and there is one way to place them (one card, or all of them short in the same row), those
cards are the ones in the short rows: covered, or not read. They go into the showdown marked
`not seen`, with the place to look; RULES §7 leaves a short row to the dealer (a card hidden, or a
foul), so a seat holding one is never confident.

A back row read as Ah Kh . Jh Th, with room for a card between Kh and Jh, and Qh the one card
of the deck not read anywhere:

>>> from kiosk.cards import parse_card, parse_cards
>>> back = [(parse_card(c), x, (x, 0.0, x + 8, 20.0)) for c, x in (("Ah", 0), ("Kh", 10), ("Jh", 30), ("Th", 40))]
>>> place_hidden({(1, "back"): back}, [parse_card("Qh")], {"back": 5})
(HiddenCard(seat=1, row='back', after=2, card=Card('Qh'), box=(20.0, 0.0, 28.0, 20.0)),)

Evenly spread, it goes after the last card; two cards short in two rows leave no one way:

>>> back = back[:2] + [(c, x - 10, (x - 10, 0.0, x - 2, 20.0)) for c, x, _ in back[2:]]
>>> place_hidden({(1, "back"): back}, [parse_card("Qh")], {"back": 5})[0].after
4
>>> place_hidden({(1, "back"): back, (2, "front"): back[:2]}, parse_cards("Qh 2c"), {"back": 5, "front": 3})
()
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kiosk.cards import Card, deck

MOST_HIDDEN = 3  # more cards unseen than this is not a hidden card: the read is too far off
GAP = 1.7  # a step this many times the usual spacing has room for a card


@dataclass(frozen=True, slots=True)
class HiddenCard:
    seat: int
    row: str
    after: int  # how many of the row's cards read lie before it
    card: Card
    box: tuple[float, float, float, float]  # where to look, estimated from its neighbours


Row = list[tuple[Card, float, tuple[float, float, float, float]]]  # (card, lateral, box), in lateral order


def unseen(read: list[Card], active_seats: int) -> tuple[Card, ...]:
    """The deck's cards not read anywhere, when four open seats hold the whole deck; else ().

    >>> every = [c for c in deck(52) if str(c) not in ("Ts", "2c")]
    >>> unseen(every, 4)
    (Card('Ts'), Card('2c'))
    >>> unseen(every, 3)
    ()
    """
    if active_seats * 13 != 52 or len(set(read)) != len(read):
        return ()
    have = set(read)
    return tuple(c for c in deck(52) if c not in have)


def place_hidden(rows: dict[tuple[int, str], Row], missing: list[Card] | tuple[Card, ...],
                 sizes: dict[str, int]) -> tuple[HiddenCard, ...]:
    """Where the `missing` cards lie, when the short rows leave one way to place them; else ().

    `rows`: every row of every open seat (seat, row) -> its cards read. A card goes into the
    widest gap of its row when one has room for a card, else after the row's last card.
    """
    if not missing or len(missing) > MOST_HIDDEN:
        return ()
    short = {key: sizes[key[1]] - len(cards) for key, cards in rows.items()}
    if any(n < 0 for n in short.values()):
        return ()  # a row with too many cards: the rows themselves are in doubt
    short = {key: n for key, n in short.items() if n > 0}
    if sum(short.values()) != len(missing) or (len(missing) > 1 and len(short) > 1):
        return ()
    (seat, row), = short
    cards = rows[(seat, row)]
    if not cards:
        return ()  # a whole row unseen is not a card hidden in it
    laterals = [lat for _, lat, _ in cards]
    boxes = [np.array(box, np.float64) for _, _, box in cards]
    seat_laterals = [[x for _, x, _ in r] for key, r in rows.items() if key[0] == seat]
    steps = [b - a for xs in seat_laterals for a, b in zip(xs, xs[1:])]
    pitch = float(np.median(steps)) if steps else 0.0
    placed: list[Card | None] = [None] * len(cards)  # the row's final order: None for a card read
    for card in sorted(missing):
        gaps = [(b - a, i + 1) for i, (a, b) in enumerate(zip(laterals, laterals[1:]))]
        wide = max(gaps, default=(0.0, 0))
        if pitch > 0 and wide[0] > GAP * pitch:
            at = wide[1]
            lateral = (laterals[at - 1] + laterals[at]) / 2
            box = (boxes[at - 1] + boxes[at]) / 2
        else:
            at = len(laterals)
            lateral = laterals[-1] + pitch
            box = boxes[-1] + (boxes[-1] - boxes[-2] if len(boxes) > 1 else 0.0)
        laterals.insert(at, lateral)
        boxes.insert(at, box)
        placed.insert(at, card)
    return tuple(
        HiddenCard(seat, row, sum(1 for c in placed[:i] if c is None), card, tuple(round(float(v), 1) for v in boxes[i]))
        for i, card in enumerate(placed) if card is not None
    )


def where(hidden: HiddenCard, read: int) -> str:
    """Where to look, by the cards read around it (`read`: the row's cards read).

    >>> where(HiddenCard(2, "back", 2, Card(10, "h"), (0, 0, 1, 1)), 4)
    'between back 2 and back 3'
    >>> where(HiddenCard(2, "front", 2, Card(10, "h"), (0, 0, 1, 1)), 2)
    'after front 2'
    """
    row, n = hidden.row, hidden.after
    if n == 0:
        return f"before {row} 1"
    if n >= read:
        return f"after {row} {n}"
    return f"between {row} {n} and {row} {n + 1}"
