"""Every 5-card hand ordered like an independent evaluator (eval7); every 3-card hand by D-1.

The orders are checked, not the numbers: `rank_hand` must map onto eval7's scores
strictly monotonically (equal HandRanks exactly where eval7 scores are equal).
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, combinations_with_replacement

import pytest

from kiosk.cards import Card, deck
from kiosk.rules.ranking import HandRank, rank_hand

eval7 = pytest.importorskip("eval7")

DECK = deck(52)

# Category numbers on one scale, from eval7's own names: the test never asks
# kiosk which category a 5-card hand is.
EVAL7_CATEGORY = {
    "High Card": 0, "Pair": 1, "Two Pair": 2, "Trips": 3, "Straight": 4,
    "Flush": 5, "Full House": 6, "Quads": 7, "Straight Flush": 8,
}


@pytest.mark.slow
def test_all_2598960_five_card_hands_order_like_eval7():
    e7 = [eval7.Card(str(c)) for c in DECK]
    score_of: dict[HandRank, int] = {}
    hands = 0
    for idx in combinations(range(52), 5):
        hr = rank_hand([DECK[i] for i in idx])
        score = eval7.evaluate([e7[i] for i in idx])
        seen = score_of.setdefault(hr, score)
        assert seen == score, f"{hr} holds hands eval7 scores {seen} and {score}: {[str(DECK[i]) for i in idx]}"
        hands += 1
    assert hands == 2_598_960
    assert len(score_of) == 7462  # the distinct 5-card hand classes of poker
    ordered = sorted(score_of)
    scores = [score_of[hr] for hr in ordered]
    for lower, higher, s_low, s_high in zip(ordered, ordered[1:], scores, scores[1:]):
        assert s_low < s_high, f"{lower} < {higher} but eval7 scores {s_low} >= {s_high}"


def _front_expected(cards) -> tuple:
    """D-1 key of a front written case by case: category number, then the ranks
    that matter padded with zeros (a rank is never 0, so a shorter sequence that
    is a prefix of a longer one compares lower)."""
    ranks = sorted((c.rank for c in cards), reverse=True)
    a, b, c = ranks
    if a == b == c:
        key = (3, a)
    elif a == b:
        key = (1, a, c)
    elif b == c:
        key = (1, b, a)
    else:
        key = (0, a, b, c)
    return key + (0,) * (6 - len(key))


def _five_expected(cards) -> tuple:
    """D-1 key of a 5-card hand, its category named by eval7."""
    category = EVAL7_CATEGORY[eval7.handtype(eval7.evaluate([eval7.Card(str(c)) for c in cards]))]
    counts = Counter(c.rank for c in cards)
    desc = sorted(counts, reverse=True)
    by_count = {n: sorted((r for r in counts if counts[r] == n), reverse=True) for n in (1, 2, 3, 4)}
    if category in (4, 8):
        key = (category, 5 if set(counts) == {14, 2, 3, 4, 5} else max(counts))
    elif category in (0, 5):
        key = (category, *desc)
    elif category == 1:
        key = (category, *by_count[2], *by_count[1])
    elif category == 2:
        key = (category, *by_count[2], *by_count[1])
    elif category == 3:
        key = (category, *by_count[3], *by_count[1])
    elif category == 6:
        key = (category, *by_count[3], *by_count[2])
    else:
        key = (category, *by_count[4], *by_count[1])
    return key + (0,) * (6 - len(key))


def _five_card_classes():
    """One hand per 5-card class: each rank multiset offsuit, and suited when no pair."""
    for ranks in combinations_with_replacement(range(2, 15), 5):
        if max(Counter(ranks).values()) > 4:
            continue
        seen: Counter = Counter()
        hand = []
        for r in ranks:
            hand.append(Card(r, "shdc"[seen[r]] if len(set(ranks)) < 5 else "shdcs"[len(hand)]))
            seen[r] += 1
        yield tuple(hand)
        if len(set(ranks)) == 5:
            yield tuple(Card(r, "h") for r in ranks)


def test_all_22100_three_card_hands_follow_d1():
    """D-1 / §2: fronts rank only as trips, pair, high card; every pair of classes in the expected order."""
    by_key: dict[tuple, HandRank] = {}
    for hand in combinations(DECK, 3):
        key, hr = _front_expected(hand), rank_hand(hand)
        assert by_key.setdefault(key, hr) == hr, f"{hand}: same expected class, different HandRank"
    assert len(by_key) == 13 + 13 * 12 + 286
    assert len(set(by_key.values())) == len(by_key)
    classes = list(by_key.items())
    for key_a, hr_a in classes:
        for key_b, hr_b in classes:
            assert (key_a < key_b) == (hr_a < hr_b), f"{hr_a} vs {hr_b}"


def test_d1_fronts_against_every_five_card_class():
    """D-1: a front and a 5-card hand compare by category, then ranks, and a front
    whose ranks are a prefix of the 5-card hand's ranks is lower (A A K < A A K 4 2)."""
    entries = []
    for hand in combinations(DECK[:13] + DECK[13:26], 3):  # two suits cover every front class
        entries.append((_front_expected(hand), rank_hand(hand), hand))
    classes = list(_five_card_classes())
    assert len(classes) == 7462
    for hand in classes:
        entries.append((_five_expected(hand), rank_hand(hand), hand))
    entries.sort(key=lambda e: e[0])
    for (k1, hr1, h1), (k2, hr2, h2) in zip(entries, entries[1:]):
        if k1 == k2:
            assert hr1 == hr2, f"{h1} and {h2} should tie"
        else:
            assert hr1 < hr2, f"{h1} ({hr1}) should rank below {h2} ({hr2})"


@pytest.mark.slow
def test_the_lookup_ranker_equals_the_direct_ranker_on_every_3_and_5_card_hand():
    """D-1 kept exactly: `rank_hand` (tables) against `rank_hand_direct` (the rules as written) on all
    2,598,960 five-card and 22,100 three-card hands. The direct ranker depends only on the ranks and
    whether all suits match, so it is computed once per such class and every hand is looked up."""
    from kiosk.rules.ranking import rank_hand_direct

    direct: dict[tuple, HandRank] = {}
    for size, total in ((3, 22_100), (5, 2_598_960)):
        hands = 0
        for hand in combinations(DECK, size):
            ranks = tuple(sorted(c.rank for c in hand))
            cls = (ranks, size == 5 and len({c.suit for c in hand}) == 1)
            expected = direct.get(cls)
            if expected is None:
                expected = direct[cls] = rank_hand_direct(hand)
            assert rank_hand(hand) == expected, [str(c) for c in hand]
            hands += 1
        assert hands == total
    assert len(direct) == 455 + 7462  # 455 fronts; 6,175 plain + 1,287 flush five-card classes
