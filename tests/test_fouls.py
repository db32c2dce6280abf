"""Fouls: row counts (RULES.md §3) and row order (D-2), with the reason read aloud."""

from __future__ import annotations

import pytest

from kiosk.cards import parse_cards
from kiosk.rules.fouls import Foul, check_foul


def foul(front: str, middle: str, back: str) -> Foul | None:
    return check_foul(parse_cards(front), parse_cards(middle), parse_cards(back))


def test_rules_example_reason_is_exact():
    """D-2, RULES.md §3 example: 'seat 3 fouled: middle (pair of 8s) does not beat front (pair of queens)'."""
    result = foul("Qs Qd 4c", "8s 8d Ac Kh 2d", "9s 9h 9c 3d 3h")
    assert result == Foul("order", "middle (pair of 8s) does not beat front (pair of queens)", "D-2")


def test_back_below_middle_reason():
    """D-2: the back must rank at least equal to the middle."""
    result = foul("2s 3d 5c", "7s 7d 7c Kh 2d", "Ks Kh 4c 4d 9h")
    assert result == Foul("order", "back (two pair, kings and 4s) is below middle (three of a kind, 7s)", "D-2")


def test_well_set_hand_stands():
    assert foul("2s 3d 5c", "8s 8d Ac Kh 2d", "9s 9h 9c 3d 3h") is None


def test_d2_back_equal_to_middle_stands():
    """D-2: back equal to middle ('superar o igualar') is not a foul."""
    assert foul("2s 3d 5c", "6s 7h 8d 9c Ts", "6h 7d 8c 9s Th") is None
    assert foul("2s 3d 4c", "Ks Kh 4s 4h 9h", "Kd Kc 4d 4c 9s") is None
    assert foul("2s 3d 4c", "Ad Jd 9d 6d 5d", "Ac Jc 9c 6c 5c") is None


def test_d2_back_one_kicker_below_middle_is_fouled():
    """D-2: back must not be below middle, even by the last kicker."""
    result = foul("2s 3d 4c", "Ks Kh 4s 4h 9h", "Kd Kc 4d 4c 8s")
    assert result is not None and result.kind == "order" and result.rule == "D-2"


def test_d2_middle_must_be_strictly_above_front_by_d1():
    """D-2 with D-1: the middle must beat the front; equal-looking tops still decide by the next rank."""
    # Front Q Q 5 vs middle Q Q 4 3 2: the kicker 5 > 4 decides before length.
    result = foul("Qs Qd 5c", "Qh Qc 4d 3h 2s", "As Ah Ad 3c 3s")
    assert result is not None
    assert result.reason == "middle (pair of queens) does not beat front (pair of queens)"
    # Front A K Q vs middle A K J 9 8: foul.
    assert foul("As Kd Qc", "Ah Kc Jd 9h 8s", "2s 2h 2d 3c 3s").reason == "middle (ace high) does not beat front (ace high)"
    # Front trips above middle trips.
    assert foul("7s 7d 7c", "6h 6c 6d As Ks", "2s 3s 4s 5s 6s") is not None


def test_d1_prefix_front_is_below_middle_so_stands():
    """D-1 / D-2: front A A K, middle A A K 4 2: the middle is longer, so it beats the front."""
    assert foul("As Ad Kc", "Ah Ac Kd 4h 2d", "2s 3s 5s 7s 9s") is None
    assert foul("As Kd Qc", "Ah Kc Qd 3h 2s", "2c 3c 5c 7c 9c") is None


def test_front_straight_or_flush_does_not_count():
    """§2: Q-K-A suited in front is only ace high, so a middle pair beats it."""
    assert foul("Qh Kh Ah", "2s 2d 4c 5h 7d", "9s 9h 9c 3d 3h") is None


def test_both_order_breaks_named():
    result = foul("As Ad Kc", "8s 8d 7c 6h 2d", "Ks Qh 9c 5d 3h")
    assert result is not None and result.kind == "order"
    assert result.reason == (
        "middle (pair of 8s) does not beat front (pair of aces); back (king high) is below middle (pair of 8s)"
    )


@pytest.mark.parametrize(
    ("front", "middle", "back", "reason"),
    [
        ("Qs Qd", "8s 8d Ac Kh 2d", "9s 9h 9c 3d 3h", "front has 2 cards, needs 3"),
        ("Qs Qd 4c 5c", "8s 8d Ac Kh 2d", "9s 9h 9c 3d 3h", "front has 4 cards, needs 3"),
        ("Qs Qd 4c", "8s 8d Ac Kh", "9s 9h 9c 3d 3h 5c", "middle has 4 cards, needs 5; back has 6 cards, needs 5"),
        ("Qs Qd 4c", "8s 8d Ac Kh 2d", "9s", "back has 1 card, needs 5"),
        ("", "8s 8d Ac Kh 2d", "9s 9h 9c 3d 3h", "front has 0 cards, needs 3"),
    ],
)
def test_count_fouls(front, middle, back, reason):
    """§3: a row with the wrong number of cards fouls the hand, and says which row."""
    assert foul(front, middle, back) == Foul("count", reason, "§3")
