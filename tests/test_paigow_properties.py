"""Properties of Pai Gow Poker: the house way always gives a legal setting of the same seven
cards, whatever order they come in (D-12, D-12k); every joker-free 5-card hand ranks in
eval7's order with A-2-3-4-5 moved to second-highest straight (D-11)."""

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kiosk.cards import deck
from kiosk.paigow.api import score_paigow_json
from kiosk.paigow.houseway import FOXWOODS, set_by_house_way
from kiosk.paigow.ranks import rank5
from kiosk.paigow.setting import foul_of, same_setting

DECK53 = deck(53)
seven_cards = st.lists(st.sampled_from(DECK53), min_size=7, max_size=7, unique=True)


@settings(max_examples=1500, deadline=None)
@given(seven_cards, st.randoms(use_true_random=False))
def test_house_way_is_legal_and_invariant_to_card_order(cards, rnd):
    setting = set_by_house_way(cards, FOXWOODS)
    assert len(setting.high) == 5 and len(setting.low) == 2
    assert Counter(setting.high + setting.low) == Counter(cards)
    assert foul_of(setting.high, setting.low) is None  # D-12a: never a foul
    shuffled = list(cards)
    rnd.shuffle(shuffled)
    assert same_setting(set_by_house_way(shuffled, FOXWOODS), setting)  # D-12k


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(DECK53), min_size=14, max_size=14, unique=True), st.integers(1, 7))
def test_dealer_banker_collects_what_players_lose_and_pays_what_they_win(cards, banker_seat):
    """D-12, D-13: banker net + players' nets + commissions is zero to the cent."""
    hw = set_by_house_way(cards[7:], FOXWOODS)
    table = {
        "game": "paigow",
        "banker": {"seat": 0, "high": [str(c) for c in cards[2:7]], "low": [str(c) for c in cards[:2]]},
        "seats": [{"seat": banker_seat, "high": [str(c) for c in hw.high], "low": [str(c) for c in hw.low],
                   "bet": 10.35}],
    }  # fmt: skip
    r = score_paigow_json(table)
    total = r["banker"]["net"] + sum(s["net"] for s in r["seats"]) + r["house_commission"]
    assert abs(total) < 1e-9
    assert r["seats"][0]["foul"] is None  # a house-way setting never fouls


eval7 = pytest.importorskip("eval7")


@pytest.mark.slow
def test_every_joker_free_five_card_hand_orders_like_eval7_with_the_wheel_second():
    """D-11: rank5 maps onto eval7's scores strictly monotonically, once eval7's lowest
    straight (A-2-3-4-5, and its straight flush) is moved above the K-high one."""
    cards = deck(52)
    e7 = [eval7.Card(str(c)) for c in cards]
    wheel = {14, 2, 3, 4, 5}
    score_of: dict[tuple, tuple] = {}
    for idx in combinations(range(52), 5):
        hand = [cards[i] for i in idx]
        score = eval7.evaluate([e7[i] for i in idx])
        kind = eval7.handtype(score)
        if kind in ("Straight", "Straight Flush") and {c.rank for c in hand} == wheel:
            key = (score, 1)  # placed just below the A-high straight: see below
        else:
            key = (score, 0)
        seen = score_of.setdefault(rank5(hand), key)
        assert seen == key, [str(c) for c in hand]
    assert len(score_of) == 7462
    by_rank = sorted(score_of, key=lambda r: r)
    keys = [score_of[r] for r in by_rank]

    def expected_position(key):
        score, is_wheel = key
        if not is_wheel:
            return (score, 0)
        a_high = max(s for s, _ in keys if eval7.handtype(s) == eval7.handtype(score))
        return (a_high, -1)  # second highest of its kind

    positions = [expected_position(k) for k in keys]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
