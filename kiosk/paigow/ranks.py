"""Pai Gow Poker hand ranks with the joker (house rules §9, D-11, D-12a).

A rank is a plain tuple `(category, tiebreak...)`, so Python's tuple order is the house's:
category first, then the tiebreak ranks in order of significance, and where one is a
prefix of the other the longer ranks higher (D-12a, as D-1). The 2-card low hand ranks on
the same scale, which is how "low below high" is tested.

Straights carry one tiebreak value, their strength: A-K-Q-J-T is 15, A-2-3-4-5 is 14
(second highest, §9), then the high card (K-high 13 ... 6-high 6).

>>> from kiosk.cards import parse_cards
>>> describe(rank5(parse_cards("As Ah Ad Ac Jk")))
'five aces'
>>> rank5(parse_cards("5h 4h 3h 2h Ah")) > rank5(parse_cards("Kd Qd Jd Td 9d"))
True
>>> describe(rank5(parse_cards("Kh Qh 9h 5h Jk")))
'flush, ace high'
>>> describe(rank2(parse_cards("Jk As")))
'pair of aces'
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, combinations_with_replacement
from typing import Sequence

from kiosk.cards import Card
from kiosk.rules.ranking import rank_plural, rank_word

HIGH_CARD, PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT = 0, 1, 2, 3, 4
FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH, FIVE_ACES = 5, 6, 7, 8, 9
CATEGORY_NAMES = (
    "high card", "pair", "two pair", "three of a kind", "straight", "flush",
    "full house", "four of a kind", "straight flush", "five aces",
)  # fmt: skip
COMPLETE = (STRAIGHT, FLUSH, STRAIGHT_FLUSH)  # a "complete hand" (D-12h)
ACE = 14
ROYAL, WHEEL = 15, 14  # straight strengths of A-K-Q-J-T and A-2-3-4-5

Rank = tuple  # (category, *tiebreak)


def _windows() -> dict[frozenset[int], int]:
    """Every straight's rank set -> its strength."""
    out = {frozenset(range(top - 4, top + 1)): top for top in range(6, 14)}
    out[frozenset(range(10, 15))] = ROYAL
    out[frozenset((14, 2, 3, 4, 5))] = WHEEL
    return out


_STRAIGHT5 = _windows()
_STRAIGHT4: dict[frozenset[int], int] = {}  # four ranks a joker completes -> best strength
for _ranks, _value in _STRAIGHT5.items():
    for _four in combinations(sorted(_ranks), 4):
        key = frozenset(_four)
        _STRAIGHT4[key] = max(_STRAIGHT4.get(key, 0), _value)


def counted(card: Card) -> int:
    """The rank a card counts as outside straights and flushes: the joker is an ace (D-12b)."""
    return card.rank or ACE


def _rank_ranks(ranks: list[int], flush: bool) -> Rank:
    """Rank five ranks (the joker already an ace), flush or not."""
    counts = Counter(ranks)
    groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
    order = tuple(r for _, r in groups)
    shape = groups[0][0]
    if shape == 5:
        return (FIVE_ACES,)
    straight = _STRAIGHT5.get(frozenset(ranks)) if len(counts) == 5 else None
    if straight and flush:
        return (STRAIGHT_FLUSH, straight)
    if shape == 4:
        return (FOUR_OF_A_KIND, *order)
    if shape == 3 and len(groups) == 2:
        return (FULL_HOUSE, *order)
    if flush:
        return (FLUSH, *order)
    if straight:
        return (STRAIGHT, straight)
    if shape == 3:
        return (THREE_OF_A_KIND, *order)
    if shape == 2:
        return (TWO_PAIR if groups[1][0] == 2 else PAIR, *order)
    return (HIGH_CARD, *order)


def _rank_unsuited(ranks: Sequence[int]) -> Rank:
    """Rank five ranks as if not all of one suit; a 0 is the joker (an ace, or a straight's gap)."""
    others = [r for r in ranks if r]
    if len(others) == 5:
        return _rank_ranks(others, False)
    best = _rank_ranks(others + [ACE], False)
    straight = _STRAIGHT4.get(frozenset(others)) if len(set(others)) == 4 else None
    return max(best, (STRAIGHT, straight)) if straight else best


def _rank_suited(ranks: Sequence[int]) -> Rank:
    """Rank five cards of one suit (a 0 is the joker): a straight flush or a flush (D-11)."""
    others = frozenset(r for r in ranks if r)
    straight = (_STRAIGHT5 if len(others) == 5 else _STRAIGHT4).get(others)
    if straight:
        return (STRAIGHT_FLUSH, straight)
    if len(others) == 4:
        others = others | {next(r for r in range(ACE, 1, -1) if r not in others)}
    return (FLUSH, *sorted(others, reverse=True))


def _table() -> dict[tuple[int, ...], Rank]:
    """Every multiset of five ranks (at most four of one, at most one joker) -> its unsuited rank."""
    out = {}
    for combo in combinations_with_replacement((0, *range(2, 15)), 5):
        counts = Counter(combo)
        if counts[0] <= 1 and max(n for r, n in counts.items() if r) <= 4:
            out[combo] = _rank_unsuited(combo)
    return out


_UNSUITED = _table()


def rank5(cards: Sequence[Card]) -> Rank:
    """Rank a 5-card high hand. The joker plays as an ace, or completes a straight, flush or
    straight flush; in a flush it is the highest rank of that suit missing from the hand (D-11)."""
    ranks = sorted([c.rank for c in cards])
    if len({c.suit for c in cards if c.rank}) == 1:
        return _rank_suited(ranks)
    return _UNSUITED[tuple(ranks)]


def rank2(cards: Sequence[Card]) -> Rank:
    """Rank a 2-card low hand: a pair or high card; the joker is an ace (D-11)."""
    a, b = (counted(c) for c in cards)
    if a == b:
        return (PAIR, a)
    return (HIGH_CARD, a, b) if a > b else (HIGH_CARD, b, a)


def rank_any(cards: Sequence[Card]) -> Rank:
    """`rank5` or `rank2` by size (the foul test compares the two on one scale)."""
    return rank5(cards) if len(cards) == 5 else rank2(cards)


def _straight_words(value: int) -> str:
    if value == ROYAL:
        return "ace high (A-K-Q-J-10)"
    if value == WHEEL:
        return "A-2-3-4-5"
    return f"{rank_word(value)} high"


def describe(rank: Rank) -> str:
    """Words a floor supervisor can read aloud: 'two pair, kings and 4s', 'straight, A-2-3-4-5'."""
    category, t = rank[0], rank[1:]
    if category == FIVE_ACES:
        return "five aces"
    if category in (STRAIGHT, STRAIGHT_FLUSH):
        return f"{CATEGORY_NAMES[category]}, {_straight_words(t[0])}"
    if category == FOUR_OF_A_KIND:
        return f"four of a kind, {rank_plural(t[0])}"
    if category == FULL_HOUSE:
        return f"full house, {rank_plural(t[0])} full of {rank_plural(t[1])}"
    if category == THREE_OF_A_KIND:
        return f"three of a kind, {rank_plural(t[0])}"
    if category == TWO_PAIR:
        return f"two pair, {rank_plural(t[0])} and {rank_plural(t[1])}"
    if category == PAIR:
        return f"pair of {rank_plural(t[0])}"
    if category == FLUSH:
        return f"flush, {rank_word(t[0])} high"
    return f"{rank_word(t[0])} high"
