"""Verify a declared natural from the 13 cards (RULES.md §4, D-3), and name the split found.

The dealer spreads a natural unset, so the check works from the 13 cards. Rather
than trying all 72,072 ways to deal 13 cards into 3/5/5, three flushes are found
from the suit counts (only 3+5+5, 8+5, 10+3 and 13 can work) and three straights
from the rank counts (12 three-card x 10 x 10 five-card rank patterns), with
suits assigned afterwards so that a straight flush is used where one helps.

>>> from kiosk.cards import parse_cards as p
>>> [m.kind.label for m in find_naturals(p("2h 7h 9h 3s 5s 8s Ts Ks 2d 6d Jd Qd Ad"))]
['three flushes']
>>> verify_natural(p("2h 7h 9h 3s 5s 8s Ts Ks 2d 6d Jd Qd Ad")).describe()
'three flushes: front 2h 7h 9h, middle 3s 5s 8s Ts Ks, back 2d 6d Jd Qd Ad'
>>> verify_natural(p("Ah 2c 3d 4s 5s 6h 7d 8c 9h Tc Jh Qd Kd"), NaturalKind.THREE_STRAIGHTS).describe()
'three straights: front 2c 3d 4s, middle 5s 6h 7d 8c 9h, back Tc Jh Qd Kd Ah'
>>> verify_natural(p("2s 2h 5s 5d 8c 8d Ts Th Qs Qd As Ah 3c"), NaturalKind.THREE_FLUSHES) is None
True
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from enum import Enum
from itertools import permutations
from operator import attrgetter
from typing import Sequence

from kiosk.cards import SUITS, Card, format_cards, parse_cards
from kiosk.rules.ranking import Category, HandRank, rank_hand, rank_plural

Split = tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]


class NaturalKind(str, Enum):
    DRAGON = "dragon"
    SIX_PAIRS = "six_pairs"
    THREE_FLUSHES = "three_flushes"
    THREE_STRAIGHTS = "three_straights"

    @property
    def label(self) -> str:
        return self.value.replace("_", " ")


@dataclass(frozen=True, slots=True)
class NaturalMatch:
    """A natural the 13 cards support.

    `split` is (front 3, middle 5, back 5) for three flushes / three straights,
    else None. `strength` compares two naturals of the same kind (profile
    `capsa`, D-9): pair ranks high to low for six pairs; (back, middle, front)
    for three flushes / straights, each a `HandRank`. The front counts as the
    3-card flush or straight it is (a straight's high card; A-2-3 is the
    lowest, D-3). `cards` holds all 13 cards, sorted.
    """

    kind: NaturalKind
    split: Split | None
    strength: tuple
    cards: tuple[Card, ...] = ()

    def describe(self) -> str:
        """Words a dealer can read aloud while laying the cards out."""
        if self.split is not None:
            front, middle, back = (format_cards(part) for part in self.split)
            return f"{self.kind.label}: front {front}, middle {middle}, back {back}"
        if self.kind is NaturalKind.SIX_PAIRS:
            pairs, odd = _pairs_and_odd(self.cards)
            named = ", ".join(f"{rank_plural(a.rank)} ({a} {b})" for a, b in pairs)
            return f"six pairs: {named}; odd card {format_cards(odd)}"
        if self.kind is NaturalKind.DRAGON:
            return f"dragon: one of each rank, {format_cards(self.cards)}"
        return self.kind.label


def _by_rank(cards: Sequence[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=lambda c: (c.rank, c.suit)))


def _checked(cards: Sequence[Card]) -> tuple[Card, ...]:
    cards = tuple(cards)
    if len(cards) != 13:
        raise ValueError(f"a natural is checked on 13 cards, not {len(cards)}")
    for card in cards:
        if card.is_joker:
            raise ValueError("the joker is not a Chinese Poker card")
    if len(set(cards)) != 13:
        twice = sorted(c for c in set(cards) if cards.count(c) > 1)
        raise ValueError(f"card {twice[0]} appears twice")
    return _by_rank(cards)


# Rank patterns with the straight's high card. D-3: A-2-3 is the lowest 3-card
# straight, Q-K-A the highest, K-A-2 is none; A-2-3-4-5 is the lowest 5-card one.
_THREE = [((14, 2, 3), 3)] + [((lo, lo + 1, lo + 2), lo + 2) for lo in range(2, 13)]
_FIVE = [((14, 2, 3, 4, 5), 5)] + [(tuple(range(lo, lo + 5)), lo + 4) for lo in range(2, 11)]
_FIVE_HIGH = dict(_FIVE)


# --- dragon and six pairs -------------------------------------------------------------

def _dragon(cards: tuple[Card, ...]) -> NaturalMatch | None:
    if len({c.rank for c in cards}) == 13:
        return NaturalMatch(NaturalKind.DRAGON, None, (), cards)
    return None


def _pairs_and_odd(cards: Sequence[Card]) -> tuple[list[tuple[Card, Card]], list[Card]]:
    """Pairs highest first (four of a kind is two pairs), and the cards left over."""
    by_rank: dict[int, list[Card]] = {}
    for card in sorted(cards, key=lambda c: (-c.rank, c.suit)):
        by_rank.setdefault(card.rank, []).append(card)
    pairs, odd = [], []
    for group in by_rank.values():
        for i in range(0, len(group) - 1, 2):
            pairs.append((group[i], group[i + 1]))
        if len(group) % 2:
            odd.append(group[-1])
    return pairs, odd


def _six_pairs(cards: tuple[Card, ...]) -> NaturalMatch | None:
    counts = Counter(c.rank for c in cards)
    if sum(n // 2 for n in counts.values()) < 6:
        return None
    pairs, _ = _pairs_and_odd(cards)
    return NaturalMatch(NaturalKind.SIX_PAIRS, None, tuple(a.rank for a, _ in pairs), cards)


# --- three flushes --------------------------------------------------------------------

def _suited_five(cards: Sequence[Card]) -> HandRank:
    """Rank five cards of one suit (same result as rank_hand, without the counting)."""
    ranks = sorted((c.rank for c in cards), reverse=True)
    if ranks[0] - ranks[4] == 4:
        return HandRank(Category.STRAIGHT_FLUSH, (ranks[0],))
    if ranks == [14, 5, 4, 3, 2]:
        return HandRank(Category.STRAIGHT_FLUSH, (5,))
    return HandRank(Category.FLUSH, tuple(ranks))


def _front_flush(cards: Sequence[Card]) -> HandRank:
    return HandRank(Category.FLUSH, tuple(sorted((c.rank for c in cards), reverse=True)))


def _best_suited_five(cards: Sequence[Card]) -> list[Card]:
    """The best five of 5+ cards of one suit: the highest straight flush, else the top five.
    Each set of ranks ranks differently, so this best five is the only one."""
    by_rank = {c.rank: c for c in cards}
    for ranks, _ in _FIVE[::-1]:  # highest straight first, the wheel last
        if all(r in by_rank for r in ranks):
            return [by_rank[r] for r in ranks]
    return sorted(cards, key=lambda c: c.rank, reverse=True)[:5]


def _flush_split(cards: tuple[Card, ...]) -> tuple[list[Card], list[Card], list[Card]] | None:
    """(front, five, five) maximising (back, middle, front), or None when no suit split works.

    Only suit counts 3+5+5, 5+8, 3+10 and 13 split into one-suit parts. Taking the
    best five first is the best overall: the other parts are then forced or, for
    the 13 and 8 cases, the best five of what is left again."""
    suits: dict[str, list[Card]] = {}
    for card in cards:
        suits.setdefault(card.suit, []).append(card)
    groups = sorted(suits.values(), key=len)
    sizes = [len(g) for g in groups]
    if sizes == [3, 5, 5]:
        return groups[0], groups[1], groups[2]
    if sizes == [5, 8]:
        five = _best_suited_five(groups[1])
        return [c for c in groups[1] if c not in five], five, groups[0]
    if sizes == [3, 10]:
        five = _best_suited_five(groups[1])
        return groups[0], five, [c for c in groups[1] if c not in five]
    if sizes == [13]:
        back = _best_suited_five(groups[0])
        rest = [c for c in groups[0] if c not in back]
        middle = _best_suited_five(rest)
        return [c for c in rest if c not in middle], middle, back
    return None


def _three_flushes(cards: tuple[Card, ...]) -> NaturalMatch | None:
    found = _flush_split(cards)
    if found is None:
        return None
    front, five_a, five_b = found
    rank_a, rank_b = _suited_five(five_a), _suited_five(five_b)
    if rank_a > rank_b:
        five_a, five_b, rank_a, rank_b = five_b, five_a, rank_b, rank_a
    split = (_by_rank(front), _by_rank(five_a), _by_rank(five_b))
    return NaturalMatch(NaturalKind.THREE_FLUSHES, split, (rank_b, rank_a, _front_flush(front)), cards)


# --- three straights ------------------------------------------------------------------

def _code(ranks) -> int:
    """A rank multiset as one integer, 3 bits per rank: sums of codes add the multisets
    (a rank is held at most 4 times, so no digit carries)."""
    return sum(1 << 3 * (r - 2) for r in ranks)


_THREE_CODES = [(_code(ranks), ranks, high) for ranks, high in _THREE]
_FIVE_CODES = [(_code(ranks), ranks) for ranks, _ in _FIVE]


def _all_rank_splits() -> dict[int, list]:
    """Every rank multiset that three straights can make (a few hundred), mapped to its
    (front ranks, five ranks, five ranks) splits: checking a hand is then one look-up."""
    table: dict[int, list] = {}
    for front_code, front, front_high in _THREE_CODES:
        for i, (code_a, five_a) in enumerate(_FIVE_CODES):
            for code_b, five_b in _FIVE_CODES[i:]:  # each pair of fives once
                total = front_code + code_a + code_b
                table.setdefault(total, []).append(((front, front_high), five_a, five_b))
    return table


_SPLITS_BY_CODE = _all_rank_splits()
_RANK_CODE = [0, 0] + [1 << 3 * (r - 2) for r in range(2, 15)]


def _rank_splits(cards: tuple[Card, ...]):
    """Every (front ranks, five ranks, five ranks) whose union is the rank multiset."""
    return _SPLITS_BY_CODE.get(_code(c.rank for c in cards), ())


def _three_straights(cards: tuple[Card, ...]) -> NaturalMatch | None:
    """Best layout over the rank splits. A 5-card straight ranks by (straight flush or
    not, high card), so each candidate is scored from the suits that could make the
    back and the middle straight flushes, and only the best one is laid out."""
    have = set(cards)
    best = None
    for (_, front_high), five_a, five_b in _rank_splits(cards):
        for back_ranks, middle_ranks in ((five_a, five_b), (five_b, five_a))[: 1 if five_a == five_b else 2]:
            back_suits = [s for s in SUITS if all(Card(r, s) in have for r in back_ranks)]
            middle_suits = [s for s in SUITS if all(Card(r, s) in have for r in middle_ranks)]
            shared = bool(set(back_ranks) & set(middle_ranks))
            for back_suit in back_suits + [None]:
                for middle_suit in middle_suits + [None]:
                    if shared and back_suit is not None and back_suit == middle_suit:
                        continue  # both would need the same card
                    key = (
                        back_suit is not None, _FIVE_HIGH[back_ranks],
                        middle_suit is not None, _FIVE_HIGH[middle_ranks], front_high,
                    )
                    if best is None or key > best[0]:
                        best = (key, back_ranks, back_suit, middle_ranks, middle_suit)
    if best is None:
        return None
    _, back_ranks, back_suit, middle_ranks, middle_suit = best
    pool = list(cards)
    parts = {}
    # Straight-flush parts take their cards first; the others take what is left.
    for name, ranks, suit in sorted(
        (("back", back_ranks, back_suit), ("middle", middle_ranks, middle_suit)), key=lambda p: p[2] is None
    ):
        taken = []
        for r in ranks:
            card = Card(r, suit) if suit else next(c for c in pool if c.rank == r)
            pool.remove(card)
            taken.append(card)
        parts[name] = taken
    front, middle, back = (_straight_order(part) for part in (pool, parts["middle"], parts["back"]))
    strength = (rank_hand(back), rank_hand(middle), HandRank(Category.STRAIGHT, (best[0][4],)))
    return NaturalMatch(NaturalKind.THREE_STRAIGHTS, (front, middle, back), strength, cards)


def _straight_order(cards: Sequence[Card]) -> tuple[Card, ...]:
    """Cards in straight order, the ace first when it plays low (A-2-3, A-2-3-4-5)."""
    ranks = {c.rank for c in cards}
    low_ace = 14 in ranks and 2 in ranks
    return tuple(sorted(cards, key=lambda c: (1 if (c.rank == 14 and low_ace) else c.rank, c.suit)))


# --- public API -----------------------------------------------------------------------

_CHECKS = {
    NaturalKind.DRAGON: _dragon,
    NaturalKind.SIX_PAIRS: _six_pairs,
    NaturalKind.THREE_FLUSHES: _three_flushes,
    NaturalKind.THREE_STRAIGHTS: _three_straights,
}


_FLUSH_SHAPES = ([3, 5, 5], [5, 8], [3, 10], [13])
# Suit counts as one integer, 4 bits per suit (a count is at most 13): every count that three
# flushes can split, in any order of the suits.
_SUIT_CODE = {suit: 16**i for i, suit in enumerate(SUITS)}
_FLUSH_SUIT_CODES = frozenset(
    sum(n * 16**i for i, n in enumerate(counts))
    for shape in _FLUSH_SHAPES
    for counts in permutations(shape + [0] * (4 - len(shape)))
)
_ODD_BITS = sum(_RANK_CODE)  # the low bit of every rank's count in a `_code`
_RANK_OF, _CARD_KEY = attrgetter("rank"), attrgetter("rank", "suit")


def could_hold_natural(cards: Sequence[Card]) -> bool:
    """False when none of the four naturals can hold in 13 distinct cards (most set hands), from
    the rank and suit counts alone: built-in loops only. The cards must be checked already
    (13 distinct, no joker, as a parsed showdown's are); True sends them on to `find_naturals`."""
    rank_code = suit_code = 0
    for card in cards:
        rank_code += _RANK_CODE[card.rank]
        suit_code += _SUIT_CODE[card.suit]
    odd_ranks = (rank_code & _ODD_BITS).bit_count()  # ranks held an odd number of times
    if odd_ranks == 13 or odd_ranks == 1:  # a dragon; six pairs (13 cards: at most one odd rank)
        return True
    return rank_code in _SPLITS_BY_CODE or suit_code in _FLUSH_SUIT_CODES  # three straights, flushes


def _may_hold_natural(cards: Sequence[Card]) -> bool:
    """`could_hold_natural`, or True when the cards are not 13 distinct non-jokers (the full
    checks then name the error)."""
    if len(set(map(_CARD_KEY, cards))) != 13 or min(map(_RANK_OF, cards)) < 2:
        return True
    return could_hold_natural(cards)


def find_naturals(cards: Sequence[Card]) -> tuple[NaturalMatch, ...]:
    """Every natural the 13 cards support (dragon, six pairs, three flushes, three
    straights, in that order), each with its best split. ValueError unless 13 distinct cards.

    >>> from kiosk.cards import parse_cards as p
    >>> [m.kind.value for m in find_naturals(p("As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks"))]
    ['dragon', 'three_flushes', 'three_straights']
    """
    if len(cards) == 13 and not _may_hold_natural(cards):
        return ()
    ordered = _checked(cards)
    found = (check(ordered) for check in _CHECKS.values())
    return tuple(match for match in found if match is not None)


def verify_natural(cards: Sequence[Card], kind: NaturalKind | str | None = None) -> NaturalMatch | None:
    """The given natural (or the first that holds, in `find_naturals` order), or None.

    >>> from kiosk.cards import parse_cards as p
    >>> verify_natural(p("As Ad Kc Kh 9s 9d 7c 7h 5s 5d 3c 3h 2d")).describe()
    'six pairs: aces (Ad As), kings (Kc Kh), 9s (9d 9s), 7s (7c 7h), 5s (5d 5s), 3s (3c 3h); odd card 2d'
    """
    ordered = _checked(cards)
    if kind is not None:
        return _CHECKS[NaturalKind(kind)](ordered)
    for check in _CHECKS.values():
        match = check(ordered)
        if match is not None:
            return match
    return None


# Hands that make the checks work hardest: many rank patterns or suit splits to try, or a near miss.
BENCH_HANDS = {
    "three straights, trips of 3-4-5, straight flush options": "3s 4s 5s 3h 4h 5h 6h 7h 3d 4d 5d 6d 7d",
    "three straights, wheel and ace-high, many layouts": "As 2s 3s 4s 5s Ah 2h 3h Td Jd Qd Kd Ad",
    "near three straights (one card off)": "3s 4s 5s 3h 4h 5h 6h 7h 3d 4d 5d 6d 9d",
    "near three straights, pairs everywhere": "2s 3s 4s 2h 3h 4h 5h 6h 5d 6d 7d 8d Kc",
    "three flushes 10+3 suits": "2h 3h 5h 6h 8h 9h Th Jh Qh Ah 4s 7s As",
    "three flushes 8+5 suits, straight flushes": "2h 3h 4h 5h 6h 7h 8h 9h 4s 5s 6s 7s 8s",
    "near three flushes 9+4 suits": "2h 3h 5h 6h 8h 9h Th Jh Qh 4s 7s 9s Ks",
    "dragon (every dragon is also three straights)": "As 2s 3h 4d 5c 6s 7h 8d 9c Ts Jh Qd Kc",
    "one suit (dragon, flushes, straights)": "As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks",
    "near six pairs (five pairs, three odd cards)": "As Ad Kc Kh 9s 9d 7c 7h 5s 5d 3c 4h 6d",
    "nothing: four suits 4-3-3-3": "2s 5s 9s Ks 3h 8h Jh 4d 7d Qd 6c Tc Kc",
}


def bench_naturals(repeats: int = 200) -> dict:
    """Time natural checks on `BENCH_HANDS` (adversarial hands), in milliseconds.

    Each hand goes through find_naturals, verify_natural with no kind, and
    verify_natural for each kind, `repeats` times each. Returns `worst_ms` (the
    slowest mean of one call on one hand), `worst_hand`, `worst_call`,
    `worst_p99_ms` (the slowest 99th percentile of one call on one hand),
    `max_single_ms` (the slowest single call seen: on a shared machine this
    includes scheduler stalls), `repeats`, and `hands` ({hand label: {call: mean ms}}).

    >>> bench_naturals(1)["worst_ms"] > 0
    True
    """
    calls = {"find_naturals": find_naturals, "verify_natural": verify_natural}
    for kind in NaturalKind:
        calls[f"verify_natural({kind.value})"] = lambda cs, k=kind: verify_natural(cs, k)
    hands: dict[str, dict[str, float]] = {}
    worst = (0.0, "", "")
    worst_p99 = 0.0
    max_single = 0.0
    for label, text in BENCH_HANDS.items():
        cards = parse_cards(text)
        hands[label] = {}
        for name, call in calls.items():
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                call(cards)
                times.append((time.perf_counter() - start) * 1000)
            times.sort()
            mean_ms = sum(times) / repeats
            hands[label][name] = mean_ms
            worst_p99 = max(worst_p99, times[min(repeats - 1, int(0.99 * repeats))])
            max_single = max(max_single, times[-1])
            if mean_ms > worst[0]:
                worst = (mean_ms, label, name)
    return {
        "worst_ms": worst[0],
        "worst_hand": worst[1],
        "worst_call": worst[2],
        "worst_p99_ms": worst_p99,
        "max_single_ms": max_single,
        "repeats": repeats,
        "hands": hands,
    }
