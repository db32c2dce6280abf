"""The rules engine's fast paths, each pinned against the slow reference it stands in for.

- `RankedHand.order` (an int per table entry) must order every 3- and 5-card rank exactly as
  D-1 orders the `HandRank`s themselves (all 7,462 five-card and 455 three-card classes).
- `could_hold_natural` (a pre-check from rank and suit counts) must pass every rank count and
  suit count that a natural can have, counted here from the rules, and agree with the full checks
  (`verify_natural`) on random and near-miss hands.
- A set seat `stands` and its rows compare by those ints exactly as `check_foul` and
  `rank_hand_direct` say.
- Cards are parsed to the deck's own objects, so a card written two ways is still a duplicate.
"""

from __future__ import annotations

import random
from itertools import combinations, combinations_with_replacement, product

import pytest

from kiosk.cards import SUITS, Card, deck, parse_cards
from kiosk.rules.api import score_json
from kiosk.rules.fouls import check_foul
from kiosk.rules.naturals import could_hold_natural, verify_natural
from kiosk.rules.profiles import get_profile
from kiosk.rules.ranking import _FLUSH5, _PLAIN5, _THREE, rank_hand_direct, ranked_hand
from kiosk.rules.scoring import _row_outcomes, _rows, _Seat, _stands, score_showdown
from kiosk.rules.showdown import parse_showdown

DECK = deck(52)


# --- the D-1 order ints ------------------------------------------------------------------


def test_table_order_ints_sort_every_rank_as_d1_does():
    entries = [*_PLAIN5.values(), *_FLUSH5.values(), *_THREE.values()]
    by_rank = sorted({e.rank: e for e in entries}.values(), key=lambda e: e.rank)
    assert len(by_rank) == 7462 + 455
    for lower, higher in zip(by_rank, by_rank[1:]):
        assert lower.rank < higher.rank  # distinct ranks, strictly ordered by HandRank itself
        assert lower.order < higher.order, (lower.rank, higher.rank)
    orders: dict = {}
    for e in entries:  # one int per rank, whichever table holds it
        assert orders.setdefault(e.rank, e.order) == e.order


def test_table_words_are_the_ranks_own():
    for e in [*_PLAIN5.values(), *_FLUSH5.values(), *_THREE.values()]:
        assert e.text == e.rank.describe()


@pytest.mark.parametrize("size", [3, 5])
def test_ranked_hand_matches_the_rules_as_written_on_random_hands(size):
    rng = random.Random(size)
    for _ in range(3000):
        cards = rng.sample(DECK, size)
        assert ranked_hand(cards).rank == rank_hand_direct(cards)


# --- the natural pre-check ---------------------------------------------------------------


def _cards_for(counts: dict[int, int]) -> list[Card]:
    """Cards with these rank counts, suits taken in turn."""
    return [Card(rank, SUITS[i]) for rank, n in counts.items() for i in range(n)]


def _straight_rank_counts() -> list[dict[int, int]]:
    """Every rank count three straights can have: a 3-card straight (A-2-3 … Q-K-A) and two
    5-card ones (A-2-3-4-5 … 10-J-Q-K-A), counted from D-3 here."""
    def run(high, length):
        return [14 if r == 1 else r for r in range(high - length + 1, high + 1)]

    threes = [run(h, 3) for h in range(3, 15)]
    fives = [run(h, 5) for h in range(5, 15)]
    found = []
    for front in threes:
        for a, b in combinations_with_replacement(fives, 2):
            counts: dict[int, int] = {}
            for r in front + a + b:
                counts[r] = counts.get(r, 0) + 1
            if max(counts.values()) <= 4:
                found.append(counts)
    return found


def _six_pair_rank_counts():
    """Every rank count with six pairs and an odd card (four of a kind is two pairs)."""
    ranks = range(2, 15)
    for pairs in product(range(3), repeat=13):
        if sum(pairs) != 6:
            continue
        for odd in ranks:
            counts = {r: 2 * p for r, p in zip(ranks, pairs) if p}
            counts[odd] = counts.get(odd, 0) + 1
            if counts[odd] <= 4:
                yield counts


@pytest.mark.slow
def test_precheck_passes_every_rank_count_of_a_dragon_six_pairs_or_three_straights():
    checked = 0
    for counts in [{r: 1 for r in range(2, 15)}, *_straight_rank_counts(), *_six_pair_rank_counts()]:
        assert sum(counts.values()) == 13
        assert could_hold_natural(_cards_for(counts)), counts
        checked += 1
    assert checked > 100_000


def _rank_natural(cards) -> bool:
    counts: dict[int, int] = {}
    for c in cards:
        counts[c.rank] = counts.get(c.rank, 0) + 1
    pairs = sum(n // 2 for n in counts.values())
    return len(counts) == 13 or pairs >= 6 or counts in _straight_rank_counts()


def test_precheck_passes_every_suit_count_of_three_flushes():
    rng = random.Random(3)
    shapes = 0
    for counts in product(range(14), repeat=4):
        if sum(counts) != 13 or sorted(n for n in counts if n) not in ([3, 5, 5], [5, 8], [3, 10], [13]):
            continue
        while True:  # ranks that hold no dragon, six pairs or straights: only the suits can pass
            cards = [Card(r, s) for s, n in zip(SUITS, counts) for r in rng.sample(range(2, 15), n)]
            if 13 in counts or not _rank_natural(cards):
                break
        assert could_hold_natural(cards), counts
        shapes += 1
    assert shapes == 12 + 12 + 12 + 4


def test_precheck_agrees_with_the_full_checks():
    rng = random.Random(67)
    refused = 0
    for i in range(6000):
        if i % 3 == 0:  # near misses: few ranks or few suits
            ranks, suit = rng.sample(range(2, 15), 7), rng.choice(SUITS)
            pool = [c for c in DECK if c.rank in ranks or c.suit == suit]
            cards = rng.sample(pool, 13) if len(pool) >= 13 else rng.sample(DECK, 13)
        else:
            cards = rng.sample(DECK, 13)
        if not could_hold_natural(cards):
            refused += 1
            assert verify_natural(cards) is None, " ".join(map(str, cards))
    assert refused > 3000  # the pre-check does turn most hands away


# --- rows compared by the ints -------------------------------------------------------------


def _random_rows(rng):
    cards = rng.sample(DECK, 13)
    return tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:])


def test_stands_and_row_outcomes_match_check_foul_and_d1():
    rng = random.Random(1)
    profile = get_profile("mandarin")
    fouled = 0
    for _ in range(4000):
        a, b = _random_rows(rng), _random_rows(rng)
        rows_a, rows_b = _rows(a, profile), _rows(b, profile)
        assert _stands(rows_a) == (check_foul(*a) is None)
        fouled += not _stands(rows_a)
        expected = tuple(
            (rank_hand_direct(x) > rank_hand_direct(y)) - (rank_hand_direct(x) < rank_hand_direct(y))
            for x, y in zip(a, b)
        )
        assert _row_outcomes(_Seat(1, "set", rows_a), _Seat(2, "set", rows_b)) == expected
    assert fouled > 100  # random settings foul often: both answers were exercised


def test_d1_a_middle_whose_tiebreak_extends_the_fronts_ranks_higher_by_the_ints_too():
    front, middle, back = (parse_cards(row) for row in ("As Ad Kc", "Ah Ac Kd 3s 2s", "9s 9h 9c 4d 4h"))
    rows = _rows((front, middle, back), get_profile("mandarin"))
    assert rows[1].order > rows[0].order  # pair of aces, K then 3-2 beats pair of aces, K (D-1)
    assert _stands(rows) and check_foul(front, middle, back) is None


# --- parsing ---------------------------------------------------------------------------------


def test_a_card_written_two_ways_is_still_a_duplicate():
    result = score_json({"seats": [
        {"seat": 1, "front": ["10d", "2c", "3c"], "middle": "4c 5c 6c 7c 8c".split(),
         "back": "9s 9h 9c 4d 4h".split()},
        {"seat": 2, "front": ["Td", "2s", "3s"], "middle": "4s 5s 6s 7s 8s".split(),
         "back": "Qs Qh Qc 5d 5h".split()},
    ]})
    assert result == {"error": "duplicate card Td: seat 1 front and seat 2 front"}


def test_results_built_without_their_constructor_have_every_field():
    rng = random.Random(5)
    for profile in ("mandarin", "two-four", "capsa"):
        for _ in range(60):
            cards = [str(c) for c in rng.sample(DECK, 52)]
            seats = [
                {"seat": n + 1, "front": cards[13 * n : 13 * n + 3], "middle": cards[13 * n + 3 : 13 * n + 8],
                 "back": cards[13 * n + 8 : 13 * n + rng.choice((12, 13))]}
                for n in range(4)
            ]
            result = score_showdown(parse_showdown({"profile": profile, "seats": seats}))
            values = [*result.seats, *result.pairs, *(r for s in result.seats for r in s.rows)]
            for value in values:
                assert len(value) == len(type(value)._fields), value
