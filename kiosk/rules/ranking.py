"""Rank 5-card and 3-card Chinese Poker hands on one scale (RULES.md §2, D-1).

A `HandRank` is (category, tiebreak ranks in order of significance). Python's tuple
order is exactly D-1: category first, then element by element, and where one
tiebreak is a prefix of the other the longer one ranks higher.

>>> from kiosk.cards import parse_cards
>>> rank_hand(parse_cards("As Ad Kc")) < rank_hand(parse_cards("As Ad Kc 4h 2d"))
True
>>> rank_hand(parse_cards("5c 4d 3h 2s Ac")).describe()
'straight, 5 high'
>>> rank_hand(parse_cards("Qs Qd 4c")).describe()
'pair of queens'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import IntEnum
from itertools import combinations, combinations_with_replacement
from typing import NamedTuple, Sequence

from kiosk.cards import Card


class Category(IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")


def rank_word(rank: int) -> str:
    """The word for a rank in explanations.

    >>> rank_word(10), rank_word(12)
    ('10', 'queen')
    """
    return {11: "jack", 12: "queen", 13: "king", 14: "ace"}.get(rank, str(rank))


def rank_plural(rank: int) -> str:
    return rank_word(rank) + "s"


@dataclass(frozen=True, order=True, slots=True)
class HandRank:
    """Comparable rank of a 3- or 5-card hand; see the module doc for the order."""

    category: Category
    tiebreak: tuple[int, ...]

    def describe(self) -> str:
        """Words a floor supervisor can read aloud, e.g. 'full house, 9s full of 4s'."""
        c, t = self.category, self.tiebreak
        if c == Category.STRAIGHT_FLUSH:
            return f"straight flush, {rank_word(t[0])} high"
        if c == Category.FOUR_OF_A_KIND:
            return f"four of a kind, {rank_plural(t[0])}"
        if c == Category.FULL_HOUSE:
            return f"full house, {rank_plural(t[0])} full of {rank_plural(t[1])}"
        if c == Category.FLUSH:
            return f"flush, {rank_word(t[0])} high"
        if c == Category.STRAIGHT:
            return f"straight, {rank_word(t[0])} high"
        if c == Category.THREE_OF_A_KIND:
            return f"three of a kind, {rank_plural(t[0])}"
        if c == Category.TWO_PAIR:
            return f"two pair, {rank_plural(t[0])} and {rank_plural(t[1])}"
        if c == Category.PAIR:
            return f"pair of {rank_plural(t[0])}"
        return f"{rank_word(t[0])} high"


def _straight_high(ranks: Sequence[int]) -> int | None:
    """High card of a 5-card straight (5 for A-2-3-4-5), or None."""
    distinct = sorted(set(ranks), reverse=True)
    if len(distinct) != 5:
        return None
    if distinct[0] - distinct[4] == 4:
        return distinct[0]
    if distinct == [14, 5, 4, 3, 2]:
        return 5
    return None


def rank_hand_direct(cards: Sequence[Card]) -> HandRank:
    """Rank a 5-card hand, or a 3-card front hand (no straights or flushes there), from the
    rules as written. `rank_hand` answers the same from tables built with this function."""
    if len(cards) not in (3, 5):
        raise ValueError(f"a hand has 3 or 5 cards, not {len(cards)}")
    ranks = [c.rank for c in cards]
    counts = Counter(ranks)
    # Groups by (count, rank), biggest set first: the tiebreak order of D-1.
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    ordered = tuple(r for r, _ in groups)
    shape = tuple(n for _, n in groups)
    if len(cards) == 5:
        flush = len({c.suit for c in cards}) == 1
        high = _straight_high(ranks)
        if high is not None and flush:
            return HandRank(Category.STRAIGHT_FLUSH, (high,))
        if shape == (4, 1):
            return HandRank(Category.FOUR_OF_A_KIND, ordered)
        if shape == (3, 2):
            return HandRank(Category.FULL_HOUSE, ordered)
        if flush:
            return HandRank(Category.FLUSH, ordered)
        if high is not None:
            return HandRank(Category.STRAIGHT, (high,))
    if shape[0] == 3:
        return HandRank(Category.THREE_OF_A_KIND, ordered)
    if shape[:2] == (2, 2):
        return HandRank(Category.TWO_PAIR, ordered)
    if shape[0] == 2:
        return HandRank(Category.PAIR, ordered)
    return HandRank(Category.HIGH_CARD, ordered)


# --- the look-up tables `rank_hand` answers from -----------------------------------------------
# A hand's rank depends only on its multiset of ranks and, for five cards, whether all suits
# match. The multiset is keyed by adding 8**(rank-2) per card (at most 4 of a rank, so no carry):
# one addition per card instead of counting and sorting. Built once from `rank_hand_direct`
# (about 9,000 hands, a few milliseconds), so the tables cannot drift from the rules.

_RANK_KEY = [0, 0] + [8 ** (r - 2) for r in range(2, 15)]


class RankedHand(NamedTuple):
    """One table entry: the rank, its `describe()` words, and `order`, the rank's place in D-1
    among every 3- and 5-card rank (compare two `order`s where the `HandRank`s would be compared)."""

    rank: HandRank
    text: str
    order: int


def _build_tables() -> tuple[dict[int, RankedHand], ...]:
    plain5: dict[int, HandRank] = {}
    flush5: dict[int, HandRank] = {}
    three: dict[int, HandRank] = {}
    offsuit = "shdc"
    for size, table in ((5, plain5), (3, three)):
        for ranks in combinations_with_replacement(range(2, 15), size):
            if max(ranks.count(r) for r in ranks) > 4:
                continue
            # suits in turn: equal ranks (adjacent) differ, and five cards never share one suit
            cards = [Card(r, offsuit[i % 4]) for i, r in enumerate(ranks)]
            table[sum(_RANK_KEY[r] for r in ranks)] = rank_hand_direct(cards)
    for ranks in combinations(range(2, 15), 5):  # a flush has five different ranks
        flush5[sum(_RANK_KEY[r] for r in ranks)] = rank_hand_direct([Card(r, "h") for r in ranks])
    tables = (plain5, flush5, three)
    order = {rank: i for i, rank in enumerate(sorted({r for t in tables for r in t.values()}))}
    return tuple({k: RankedHand(r, r.describe(), order[r]) for k, r in t.items()} for t in tables)


_PLAIN5, _FLUSH5, _THREE = _build_tables()


def rank_hand(cards: Sequence[Card]) -> HandRank:
    """Rank a 5-card hand, or a 3-card front hand (no straights or flushes there): D-1 exactly,
    from tables (checked on every 3- and 5-card hand against `rank_hand_direct` by the tests)."""
    return ranked_hand(cards).rank


def rank_hand_text(cards: Sequence[Card]) -> tuple[HandRank, str]:
    """The rank and its `describe()` words, both from the tables."""
    return ranked_hand(cards)[:2]


def ranked_hand(cards: Sequence[Card]) -> RankedHand:
    """The rank, its words and its place in D-1 order, from the tables."""
    key = _RANK_KEY
    if len(cards) == 5:
        a, b, c, d, e = cards
        k = key[a.rank] + key[b.rank] + key[c.rank] + key[d.rank] + key[e.rank]
        if a.suit == b.suit == c.suit == d.suit == e.suit:
            return _FLUSH5[k]
        return _PLAIN5[k]
    if len(cards) == 3:
        a, b, c = cards
        return _THREE[key[a.rank] + key[b.rank] + key[c.rank]]
    raise ValueError(f"a hand has 3 or 5 cards, not {len(cards)}")
