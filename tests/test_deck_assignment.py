"""The deck's assignment against brute force: every way to give small tables distinct cards."""

from __future__ import annotations

import itertools
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from kiosk.cards import parse_cards
from kiosk.deck_assignment import NEVER, NO_CARD, assign_cards

POOL = parse_cards("Th 6h 5h 2c As")


def value(assignment: dict, weights: dict) -> float:
    total = 0.0
    for sid, card in assignment.items():
        w = NO_CARD if card is None else weights[sid].get(card, 0.0)
        total += math.log(w if w > 0 else NEVER)
    return total


def brute_force(weights: dict) -> float:
    slots = sorted(weights)
    best = -math.inf
    options = list(POOL) + [None] * len(slots)
    for pick in itertools.permutations(options, len(slots)):
        best = max(best, value(dict(zip(slots, pick)), weights))
    return best


tables = st.dictionaries(
    st.integers(0, 99),
    st.dictionaries(st.sampled_from(POOL), st.floats(0.001, 1.0), max_size=3),
    min_size=1, max_size=5,
)


@settings(max_examples=150, deadline=None)
@given(tables)
def test_no_assignment_of_distinct_cards_is_better(weights):
    got = assign_cards(weights, list(POOL))
    assert set(got) == set(weights)
    cards = [c for c in got.values() if c is not None]
    assert len(cards) == len(set(cards))  # each card once
    assert all(weights[sid].get(c, 0) > 0 for sid, c in got.items() if c is not None)  # only cards it read
    assert math.isclose(value(got, weights), brute_force(weights), rel_tol=1e-9, abs_tol=1e-9)


def test_a_position_left_unread_only_when_all_its_readings_lie_surer_elsewhere():
    th, six, five = POOL[:3]
    weights = {1: {th: 0.9}, 2: {th: 0.8, six: 0.15}, 3: {six: 0.5, five: 0.4}, 4: {th: 0.3}}
    assert assign_cards(weights, list(POOL)) == {1: th, 2: six, 3: five, 4: None}
