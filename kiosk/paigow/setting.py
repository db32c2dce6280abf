"""A Pai Gow setting (5-card high, 2-card low), its foul test and "the same setting".

>>> from kiosk.cards import parse_cards
>>> foul_of(parse_cards("Jh Jd Ac Kd 5s"), parse_cards("Js Jc"))  # D-12a: legal
>>> foul_of(parse_cards("Ah Qd 9c 8d 7s"), parse_cards("As Kc"))
'order'
>>> foul_of(parse_cards("Ah Qd 9c 8d"), parse_cards("As Kc 2d"))
'count'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from kiosk.cards import Card
from kiosk.paigow.ranks import Rank, rank2, rank5


@dataclass(frozen=True, slots=True)
class Setting:
    """Seven cards set as a high hand and a low hand (any counts, as laid out)."""

    high: tuple[Card, ...]
    low: tuple[Card, ...]

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.high + self.low

    @property
    def counts_ok(self) -> bool:
        return len(self.high) == 5 and len(self.low) == 2

    def ranks(self) -> tuple[Rank, Rank]:
        """(high rank, low rank); only for a 5 + 2 setting."""
        return rank5(self.high), rank2(self.low)


def foul_of(high: Sequence[Card], low: Sequence[Card]) -> str | None:
    """`count` for anything but 5 + 2 cards, `order` for a low not below the high (D-12a)."""
    if len(high) != 5 or len(low) != 2:
        return "count"
    if rank2(low) >= rank5(high):
        return "order"
    return None


def same_setting(a: Setting, b: Setting) -> bool:
    """D-12k: two 5 + 2 settings are the same when their high and low hands rank equal."""
    return a.counts_ok and b.counts_ok and a.ranks() == b.ranks()
