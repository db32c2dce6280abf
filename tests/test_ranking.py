"""Hand ranking (RULES.md §2, D-1): categories, straights, fronts, and the words read aloud."""

from __future__ import annotations

import pytest

from kiosk.cards import parse_cards
from kiosk.rules.ranking import Category, HandRank, rank_hand, rank_plural, rank_word


def rank(text: str) -> HandRank:
    return rank_hand(parse_cards(text))


# One hand per category, listed from high to low.
BY_CATEGORY = [
    ("9h Th Jh Qh Kh", Category.STRAIGHT_FLUSH),
    ("7s 7h 7d 7c 2s", Category.FOUR_OF_A_KIND),
    ("9s 9h 9d 4c 4s", Category.FULL_HOUSE),
    ("2d 6d 9d Jd Kd", Category.FLUSH),
    ("6s 7h 8d 9c Ts", Category.STRAIGHT),
    ("7s 7h 7d Kc 2s", Category.THREE_OF_A_KIND),
    ("Ks Kh 4d 4c 9s", Category.TWO_PAIR),
    ("8s 8h Ad Kc 2s", Category.PAIR),
    ("As Jh 9d 6c 3s", Category.HIGH_CARD),
]


@pytest.mark.parametrize(("text", "category"), BY_CATEGORY)
def test_every_category_is_recognised(text, category):
    assert rank(text).category == category


def test_categories_rank_in_order_even_against_the_best_hand_below():
    """§2: the worst hand of a category beats the best hand of the category below."""
    worst_of = ["Ah 2h 3h 4h 5h", "2s 2h 2d 2c 3s", "2s 2h 2d 3c 3s", "2d 3d 4d 5d 7d", "As 2h 3d 4c 5s",
                "2s 2h 2d 3c 4s", "3s 3h 2d 2c 4s", "2s 2h 3d 4c 5s", "2s 3h 4d 5c 7s"]
    best_of = ["As Ks Qs Js Ts", "As Ah Ad Ac Ks", "As Ah Ad Kc Ks", "Ad Kd Qd Jd 9d", "As Kh Qd Jc Ts",
               "As Ah Ad Kc Qs", "As Ah Kd Kc Qs", "As Ah Kd Qc Js", "As Kh Qd Jc 9s"]
    for higher_worst, lower_best in zip(worst_of, best_of[1:]):
        assert rank(higher_worst) > rank(lower_best), (higher_worst, lower_best)


def test_wheel_is_the_lowest_straight():
    """§2: A-2-3-4-5 is always the lowest straight."""
    wheel = rank("As 2h 3d 4c 5s")
    assert wheel.category == Category.STRAIGHT
    assert wheel < rank("2s 3h 4d 5c 6s")
    assert wheel > rank("As Ah Ad Kc Qs")  # still a straight, above any three of a kind


def test_steel_wheel_is_the_lowest_straight_flush_and_royal_the_highest():
    """§2: A-2-3-4-5 suited is the lowest straight flush; a royal is simply the highest."""
    steel = rank("Ah 2h 3h 4h 5h")
    assert steel.category == Category.STRAIGHT_FLUSH
    assert steel < rank("2c 3c 4c 5c 6c")
    assert steel > rank("As Ah Ad Ac Ks")
    royal = rank("Ts Js Qs Ks As")
    assert royal.category == Category.STRAIGHT_FLUSH
    assert royal > rank("9d Td Jd Qd Kd")
    assert royal == rank("Th Jh Qh Kh Ah")


def test_no_wrap_around_straight():
    assert rank("Qs Kh Ad 2c 3s").category == Category.HIGH_CARD


def test_ties_break_on_ranks():
    assert rank("Ks Kh 4d 4c 9s") > rank("Ks Kh 4d 4c 8s")
    assert rank("Ks Kh 4d 4c 9s") == rank("Kd Kc 4s 4h 9h")
    assert rank("9s 9h 9d 2c 2s") > rank("8s 8h 8d Ac As")
    assert rank("2d 6d 9d Jd Kd") < rank("2c 7c 9c Jc Kc")
    assert rank("8s 8h Ad Kc 3s") > rank("8d 8c Ah Kd 2s")


def test_d1_front_pair_with_same_kicker_is_below_middle():
    """D-1: front A A K < middle A A K 4 2 (a prefix ranks lower)."""
    assert rank("As Ad Kc") < rank("Ah Ac Kd 4h 2d")


def test_d1_front_high_cards_below_offsuit_middle_with_same_top():
    """D-1: front A K Q < middle A K Q 3 2 offsuit (no straight, no flush)."""
    assert rank("As Kd Qc") < rank("Ah Kc Qd 3h 2s")


def test_d1_front_above_middle_when_a_rank_differs_first():
    """D-1: element by element before length: front Q Q 5 > middle Q Q 4 3 2, front A K Q > A K J 9 8."""
    assert rank("Qs Qd 5c") > rank("Qh Qc 4d 3h 2s")
    assert rank("As Kd Qc") > rank("Ah Kc Jd 9h 8s")
    assert rank("7s 7d 7c") > rank("6h 6c 6d As Ks")
    assert rank("7s 7d 7c") > rank("Ah Ac Kd Kh Qs")
    assert rank("7s 7d 7c") < rank("2h 3c 4d 5h 6s")


def test_three_card_hands_have_no_straights_or_flushes():
    """§2: in the front, straights and flushes do not count."""
    assert rank("Qh Kh Ah").category == Category.HIGH_CARD
    assert rank("2s 3s 4s").category == Category.HIGH_CARD
    assert rank("As 2d 3c").category == Category.HIGH_CARD
    assert rank("Qh Kh Ah") < rank("2s 2d 3c")


def test_hand_sizes_other_than_3_or_5_are_refused():
    with pytest.raises(ValueError, match="3 or 5 cards"):
        rank("As Kd Qc Jh")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Ts Js Qs Ks As", "straight flush, ace high"),
        ("Ah 2h 3h 4h 5h", "straight flush, 5 high"),
        ("7s 7h 7d 7c 2s", "four of a kind, 7s"),
        ("9s 9h 9d 4c 4s", "full house, 9s full of 4s"),
        ("2d 6d 9d Jd Kd", "flush, king high"),
        ("5c 4d 3h 2s Ac", "straight, 5 high"),
        ("6s 7h 8d 9c Ts", "straight, 10 high"),
        ("7s 7h 7d Kc 2s", "three of a kind, 7s"),
        ("Ks Kh 4d 4c 9s", "two pair, kings and 4s"),
        ("8s 8h Ad Kc 2s", "pair of 8s"),
        ("Qs Qd 4c", "pair of queens"),
        ("Js Jd Jc", "three of a kind, jacks"),
        ("As Jh 9d 6c 3s", "ace high"),
        ("9s 4d 2c", "9 high"),
    ],
)
def test_describe_reads_aloud(text, words):
    assert rank(text).describe() == words


def test_rank_words():
    assert [rank_word(r) for r in (2, 9, 10, 11, 12, 13, 14)] == ["2", "9", "10", "jack", "queen", "king", "ace"]
    assert rank_plural(6) == "6s" and rank_plural(14) == "aces"
