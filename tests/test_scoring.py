"""Scoring a showdown by the house rules (RULES.md §3-§6, D-1 … D-10), through `score_json`.

Every expected number here is worked out by hand from RULES.md, not by the engine.
"""

import json
from pathlib import Path

import pytest

from kiosk.rules.api import score_json

FIXTURES = Path(__file__).parent / "fixtures"


def seat(n, front, middle, back, **extra):
    return {"seat": n, "front": front.split(), "middle": middle.split(), "back": back.split(), **extra}


def pile(n, cards, declared=True):
    return {"seat": n, "declared_natural": declared, "cards": cards.split()}


def score(*seats, **top):
    result = score_json({"seats": list(seats), **top})
    assert "error" not in result, result
    return result


def points(result, n):
    return next(s for s in result["seats"] if s["seat"] == n)["points"]


def seat_of(result, n):
    return next(s for s in result["seats"] if s["seat"] == n)


def pair(result, a, b):
    """Points seat a wins from seat b."""
    for p in result["pairs"]:
        if p["seats"] == [a, b]:
            return p["points"]
        if p["seats"] == [b, a]:
            return -p["points"]
    raise KeyError((a, b))


# Worked example (RULES §5, from the seed): seat 1 has a straight flush in the back.
WE_1 = seat(1, "2s 3h 5d", "Ks Kh 4c 7d 9h", "9c Tc Jc Qc Kc")
WE_2 = seat(2, "As 7s 6h", "Qs Qh 8c 2d 3c", "4s 4d 4h 8s 8d")  # wins only the front
WE_1_SCOOP = seat(1, "Ah 5d 3h", "Ks Kh 4c 7d 9h", "9c Tc Jc Qc Kc")
WE_2_SCOOPED = seat(2, "Kd 7s 6h", "Qs Qh 8c 2d 3c", "4s 4d 4h 8s 8d")

# D-7 table: seat 1 scoops seats 2, 3, 4 (royalties: middle full house 2, back straight flush 5).
SUPER_1 = seat(1, "As Ad Kc", "2h 2d 2c 7s 7d", "9h Th Jh Qh Kh")
SUPER_2 = seat(2, "Kd Qd 2s", "3h 3d 5c 6c 8c", "4h 4d 4c 9d Td")
SUPER_3 = seat(3, "Qs Jd 3c", "5h 5d 6h 7c 9c", "6d 6s 8d 8h Jc")
SUPER_4 = seat(4, "3s 4s 5s", "Ah Ac Qc Tc 7h", "Ks Js Ts 9s 8s")
SUPER_4_FOULED = seat(4, "3s 4s 5s", "Ks Js Ts 9s 8s", "Ah Ac Qc Tc 7h")  # flush middle, pair back


def test_worked_example_two_of_three_with_a_back_straight_flush_is_6():
    r = score(WE_1, WE_2)
    assert pair(r, 1, 2) == 1 + 5
    assert (points(r, 1), points(r, 2)) == (6, -6)


def test_worked_example_three_of_three_with_a_back_straight_flush_is_11():
    r = score(WE_1_SCOOP, WE_2_SCOOPED)
    assert pair(r, 1, 2) == 6 + 5
    assert seat_of(r, 1)["royalties"] == 5


def test_D5_equal_rows_score_no_point_either_way():
    a = seat(1, "Ks 7s 4d", "Qs Qd 9c 6h 3s", "Ts Td 5s 5d 2c")
    b = seat(2, "Kh 7h 4c", "Qh Qc 9d 6d 3h", "Th Tc 5h 5c 2d")
    r = score(a, b)
    assert pair(r, 1, 2) == 0
    assert r["transfers"] == [] and r["shortfalls"] == []
    assert "D-5" in r["pairs"][0]["explanation"]
    # one kicker better in the back: one row won, two tied = 1
    b_kicker = seat(2, "Kh 7h 4c", "Qh Qc 9d 6d 3h", "Th Tc 5h 5c Ah")
    assert pair(score(a, b_kicker), 2, 1) == 1


def test_two_wins_and_a_tie_is_2_not_a_scoop():
    a = seat(1, "Ks 7s 4d", "Qs Qd 9c 6h 3s", "Ts Td 5s 5d 2c")
    b = seat(2, "Ac 7h 4c", "Qh Qc 9d 6d 3h", "Th Tc 5h 5c Ah")
    assert pair(score(a, b), 2, 1) == 2


def test_D6_royalty_goes_to_the_row_winner_only_never_to_the_loser():
    # seat 1's quads in the back lose to seat 2's straight flush: only seat 2 collects (5).
    a = seat(1, "Qs Jh 3c", "Ks Kh 6c 7s 8c", "9s 9h 9d 9c 2h")
    b = seat(2, "Js Th 2c", "Qd Qc 3s 4s 5s", "4d 5d 6d 7d 8d")
    r = score(a, b)
    assert pair(r, 1, 2) == 2 - 1 - 5
    assert seat_of(r, 1)["royalties"] == 0 and seat_of(r, 2)["royalties"] == 5


def test_D6_no_royalty_on_a_tied_row():
    # Both middles are 9-high straight flushes, both backs royal flushes: ties, no bonus.
    a = seat(1, "2c 2d 3h", "5h 6h 7h 8h 9h", "Tc Jc Qc Kc Ac")
    b = seat(2, "4c 3d 2h", "5s 6s 7s 8s 9s", "Td Jd Qd Kd Ad")
    r = score(a, b)
    assert pair(r, 1, 2) == 1
    assert seat_of(r, 1)["royalties"] == seat_of(r, 2)["royalties"] == 0


def test_D7_super_bonus_scooping_every_one_of_three_opponents_collects_9_each():
    r = score(SUPER_1, SUPER_2, SUPER_3, SUPER_4)
    for other in (2, 3, 4):
        assert pair(r, 1, other) == 9 + 2 + 5
    assert seat_of(r, 1)["super_bonus"] is True
    assert "D-7" in seat_of(r, 1)["explanation"]
    # the other pairs by hand: 2 beats 3 (front, back), 4 beats 2 and 3 (middle, back)
    assert (pair(r, 2, 3), pair(r, 4, 2), pair(r, 4, 3)) == (1, 1, 1)
    assert [points(r, n) for n in (1, 2, 3, 4)] == [48, -16, -18, -14]


def test_D7_no_super_bonus_with_fewer_than_three_opponents():
    dead_4 = {"seat": 4, "dead": True}
    r = score(SUPER_1, SUPER_2, SUPER_3, dead_4)
    assert pair(r, 1, 2) == pair(r, 1, 3) == 6 + 2 + 5
    assert seat_of(r, 1)["super_bonus"] is False


def test_D7_super_bonus_min_opponents_is_a_profile_setting():
    house = {"name": "house", "base": "mandarin", "super_bonus_min_opponents": 2}
    r = score(SUPER_1, SUPER_2, SUPER_3, {"seat": 4, "dead": True}, profile=house)
    assert pair(r, 1, 2) == pair(r, 1, 3) == 9 + 7


def test_D7_profiles_without_a_super_bonus_pay_the_scoop():
    r = score(SUPER_1, SUPER_2, SUPER_3, SUPER_4, profile="capsa")
    assert pair(r, 1, 4) == 6 + 7
    r = score(SUPER_1, SUPER_2, SUPER_3, SUPER_4, profile="one-six")
    assert pair(r, 1, 4) == 6  # one-six has no royalties either


def test_D7_D8_fouled_opponent_counts_as_scooped_and_pays_the_super_bonus():
    r = score(SUPER_1, SUPER_2, SUPER_3, SUPER_4_FOULED)
    assert seat_of(r, 4)["foul"] == "order"
    assert seat_of(r, 1)["super_bonus"] is True
    assert pair(r, 1, 4) == 9 + 7  # D-8: 9 where the seat earns the super bonus, plus royalties
    assert pair(r, 2, 4) == pair(r, 3, 4) == 6  # no royalties to add
    assert [points(r, n) for n in (1, 2, 3, 4)] == [48, -9, -11, -28]


def test_D7_an_opponent_with_a_natural_is_not_scooped_so_no_super_bonus():
    s2 = seat(2, "Ah 7h 3d", "4d 5d 6d 8d 9d", "2s 9s Ts Qs Ks")
    s3 = seat(3, "Td Qd Kd", "3c 4c 5c 6c 8c", "7c 9c Tc Jc Qc")
    s4 = pile(4, "3s 3h 4s 4h 5s 5h 6s 6h 8s 8h Js Jd Ac")
    r = score(SUPER_1, s2, s3, s4)
    assert seat_of(r, 4)["status"] == "natural" and seat_of(r, 4)["natural"] == "six_pairs"
    assert seat_of(r, 1)["super_bonus"] is False
    assert pair(r, 1, 2) == pair(r, 1, 3) == 6 + 7
    assert pair(r, 4, 1) == 4
    assert points(r, 1) == 13 + 13 - 4


# D-8 fixture: seat 3 is RULES §3's example foul.
FOUL_1 = seat(1, "Jh Js 5c", "7c 8c 9d Td Jd", "2s 3s 4s 5s 6s")  # back straight flush: royalty 5
FOUL_3 = seat(3, "Qs Qd 4c", "8s 8d Ac Kh 2d", "9s 9h 9c 3d 3h")


def test_D8_fouled_seat_pays_the_scoop_plus_the_set_seats_royalties():
    r = score(FOUL_1, FOUL_3)
    s3 = seat_of(r, 3)
    assert (s3["status"], s3["foul"], s3["foul_rule"]) == ("fouled", "order", "D-2")
    assert "seat 3 fouled: middle (pair of 8s) does not beat front (pair of queens)" in s3["explanation"]
    assert "D-8" in s3["explanation"]
    assert pair(r, 1, 3) == 6 + 5
    assert r["transfers"] == [{"from": 3, "to": 1, "amount": 11}]


def test_D8_two_fouled_seats_pay_each_other_nothing():
    short = seat(2, "Ad Kd", "Qh Qc Th Ts 7h", "7d 6d 5d 4d Ah")
    r = score(FOUL_1, short, FOUL_3)
    assert (seat_of(r, 2)["foul"], seat_of(r, 2)["foul_rule"]) == ("count", "§3")
    assert "front has 2 cards, needs 3" in seat_of(r, 2)["explanation"]
    assert pair(r, 2, 3) == 0
    assert pair(r, 1, 2) == pair(r, 1, 3) == 11  # two opponents: no super bonus
    assert [points(r, n) for n in (1, 2, 3)] == [22, -11, -11]


def test_a_short_row_is_a_foul_not_an_error():
    r = score_json({"seats": [FOUL_1, seat(2, "Ad Kd", "Qh Qc Th Ts 7h", "7d 6d 5d 4d Ah")]})
    assert "error" not in r and seat_of(r, 2)["foul"] == "count"


# D-9 fixture: a six-pairs natural, a set hand and a foul.
SIX_PAIRS = "As Ah Ks Kh Qs Qh Js Jh Ts Th 9s 9h 2c"
NAT_2 = seat(2, "8c 7c 2d", "3h 3d 5c 6c 9c", "4h 4d 4c Kd Qd")
NAT_3_FOULED = seat(3, "Ad Ac 5d", "6h 6d 7h 8h Td", "Jc Jd Tc Kc 2h")


def test_D9_natural_collects_from_every_other_active_seat_fouled_or_not():
    r = score(pile(1, SIX_PAIRS), NAT_2, NAT_3_FOULED)
    s1 = seat_of(r, 1)
    assert (s1["status"], s1["natural"], s1["foul"]) == ("natural", "six_pairs", None)
    assert pair(r, 1, 2) == pair(r, 1, 3) == 4
    assert pair(r, 2, 3) == 6  # the set seat still collects from the foul (D-8)
    assert [points(r, n) for n in (1, 2, 3)] == [8, 2, -10]
    assert "seat 3 fouled: middle (pair of 6s) does not beat front (pair of aces)" in seat_of(r, 3)["explanation"]


def test_D9_a_declared_natural_may_be_given_as_rows():
    rows = seat(1, "As Ah 2c", "Jh Ts Th 9s 9h", "Ks Kh Qs Qh Js", declared_natural=True)
    r = score(rows, NAT_2)
    assert seat_of(r, 1)["natural"] == "six_pairs" and pair(r, 1, 2) == 4


DRAGON = "2c 3c 4c 5c 6c 7c 8c 9h Tc Jc Qc Kc Ac"
SIX_PAIRS_B = "As Ad Ks Kd Qs Qd Js Jd Ts Td 9s 9d 2h"
THREE_FLUSHES = "2h 7h 9h 3s 5s 8s Ts Ks 2d 6d Jd Qd Ad"
SIX_PAIRS_C = "3c 3h 4c 4h 5c 5h 6c 6h 8c 8h Jc Jh Kc"


def test_D9_dragon_collects_13_from_another_natural():
    r = score(pile(1, DRAGON), pile(2, SIX_PAIRS_B))
    assert seat_of(r, 1)["natural"] == "dragon"  # also three straights: the dragon is worth more
    assert pair(r, 1, 2) == 13


def test_D9_two_non_dragon_naturals_push_in_mandarin():
    r = score(pile(1, THREE_FLUSHES), pile(2, SIX_PAIRS_C))
    assert seat_of(r, 1)["natural"] == "three_flushes"
    assert pair(r, 1, 2) == 0
    assert r["transfers"] == []


def test_D9_capsa_different_kinds_the_stronger_natural_collects():
    """Seed 002: the strongest natural wins and takes its bonus; six pairs over three flushes."""
    r = score(pile(1, THREE_FLUSHES), pile(2, SIX_PAIRS_C), profile="capsa")
    assert pair(r, 2, 1) == 4


def test_D9_capsa_ranks_equal_kind_naturals_and_an_exact_tie_pushes():
    higher = "As Ah Ks Kh Qs Qh Js Jh Ts Th 9s 9h 2c"
    lower = "Ad Ac Kd Kc Qd Qc Jd Jc Td Tc 8d 8c 2d"  # 8s instead of 9s
    same = "Ad Ac Kd Kc Qd Qc Jd Jc Td Tc 9d 9c 2d"
    assert pair(score(pile(1, higher), pile(2, lower), profile="capsa"), 1, 2) == 4
    assert pair(score(pile(1, higher), pile(2, lower)), 1, 2) == 0  # mandarin: push
    assert pair(score(pile(1, higher), pile(2, same), profile="capsa"), 1, 2) == 0


OPP = seat(2, "Ah Kd 2c", "Ts Td 9s 8s 6c", "Jh Js Jc Qd Qh")


def test_D3_three_straights_accepts_A23_as_the_lowest_front():
    r = score(pile(1, "As 2s 3h 2d 3d 4c 5c 6h 5s 6s 7h 8h 9d"), OPP)
    s1 = seat_of(r, 1)
    assert s1["natural"] == "three_straights"
    assert sorted(card[0] for card in s1["natural_split"]["front"]) == ["2", "3", "A"]
    assert pair(r, 1, 2) == 4


def test_D3_D4_wrap_around_K_A_2_is_no_straight_so_the_declaration_is_false():
    r = score(pile(1, "Kc Ad 2h 3s 4s 5h 6h 7d 3d 4d 5d 6d 7c"), OPP)
    s1 = seat_of(r, 1)
    assert (s1["status"], s1["foul"], s1["foul_rule"]) == ("fouled", "false_natural", "D-4")
    assert pair(r, 2, 1) == 6  # a false declaration is a foul: D-8 applies


def test_D4_false_declaration_with_rows_fouls_by_default():
    declared = dict(WE_1, declared_natural=True)
    r = score(declared, WE_2)
    s1 = seat_of(r, 1)
    assert (s1["status"], s1["foul"]) == ("fouled", "false_natural")
    assert "D-4" in s1["explanation"]
    assert pair(r, 2, 1) == 6


def test_D4_false_declaration_plays_as_set_under_that_setting():
    lenient = {"name": "lenient", "base": "mandarin", "false_natural": "play_as_set"}
    declared = dict(WE_1, declared_natural=True)
    r = score(declared, WE_2, profile=lenient)
    assert seat_of(r, 1)["status"] == "set"
    assert pair(r, 1, 2) == 6  # exactly the worked example
    assert any("D-4" in n and "plays as set" in n for n in r["notes"])
    # a bare pile cannot play as set
    r = score(pile(1, " ".join(WE_1["front"] + WE_1["middle"] + WE_1["back"])), WE_2, profile=lenient)
    assert seat_of(r, 1)["foul"] == "false_natural"


def test_D4_an_undeclared_natural_plays_as_set_and_is_noted():
    undeclared = seat(1, "As Ah 2c", "Jh Ts Th 9s 9h", "Ks Kh Qs Qh Js")  # six pairs, not declared
    r = score(undeclared, NAT_2)
    assert seat_of(r, 1)["status"] == "set" and seat_of(r, 1)["natural"] is None
    # as set: front AA2 beats 872, middle TT99J beats 33, back KKQQJ loses to trips 4
    assert pair(r, 1, 2) == 1
    assert any("seat 1 holds six pairs but did not declare it" in n for n in r["notes"])


def test_D1_front_AAK_below_middle_AAK42_stands():
    r = score(seat(1, "As Ad Kc", "Ah Ac Kd 4c 2h", "3s 3h 3d 7c 7d"), WE_2 | {"front": "Ks 7s 6h".split()})
    assert seat_of(r, 1)["status"] == "set"
    # and front A-K-Q below an offsuit middle A-K-Q-3-2
    r = score(seat(1, "As Kd Qc", "Ah Kc Qd 3s 2h", "5s 5h 5d 7c 7d"), WE_2 | {"front": "Ks 7s 6h".split()})
    assert seat_of(r, 1)["status"] == "set"


def test_D2_back_equal_to_middle_stands():
    r = score(seat(1, "4c 3c 2s", "Ks Qs 9d 7c 5h", "Kh Qh 9c 7d 5s"), seat(2, "Ah Ad 2h", "Jh Jd 8h 8c 6s", "Ts Td Tc 4h 4d"))
    assert seat_of(r, 1)["status"] == "set"
    assert pair(r, 2, 1) == 6  # seat 2 (pair of aces, two pair, full house) scoops


def test_two_four_profile_counts_the_overall_point():
    r = score(WE_1, WE_2, profile="two-four")
    assert pair(r, 1, 2) == 2  # 2 of 3: net 1 + overall 1, no royalties in two-four
    r = score(WE_1_SCOOP, WE_2_SCOOPED, profile="two-four")
    assert pair(r, 1, 2) == 4  # scoop
    a = seat(1, "Ks 7s 4d", "Qs Qd 9c 6h 3s", "Ts Td 5s 5d 2c")
    b = seat(2, "Ac 7h 4c", "Qh Qc 9d 6d 3h", "Th Tc 5h 5c Ah")
    assert pair(score(a, b, profile="two-four"), 2, 1) == 3  # two wins and a tie


def test_one_six_profile_has_no_royalties():
    assert pair(score(WE_1_SCOOP, WE_2_SCOOPED, profile="one-six"), 1, 2) == 6


def test_dead_seats_do_not_play_and_the_button_defaults_to_the_highest_active_seat():
    r = score({"seat": 4, "dead": True, "cards": ["Ah"]}, WE_1, WE_2, {"seat": 3, "dead": True})
    assert r["button"] == 2 and r["order"] == [1, 2]
    assert [p["seats"] for p in r["pairs"]] == [[1, 2]]
    assert seat_of(r, 4)["status"] == "dead" and points(r, 4) == 0
    # a dead seat's cards still count for the deck check
    clash = score_json({"seats": [WE_1, WE_2, {"seat": 4, "dead": True, "cards": ["Kc"]}]})
    assert clash == {"error": "duplicate card Kc: seat 1 back and seat 4"}


SEAT_3 = seat(3, "Ah Kd 2c", "Ts Td 5s 6s 9s", "Jh Jd Js 3d 6d")


def test_D10_pairs_and_transfers_in_payment_order_with_stakes():
    r = score(WE_1, WE_2, SEAT_3, button=1, stake=5)
    assert r["order"] == [2, 3, 1]
    assert [p["seats"] for p in r["pairs"]] == [[2, 3], [2, 1], [3, 1]]


def test_D10_the_rules_worked_example_with_caps_end_to_end():
    """Seats 1-3, button 3, stake 10, stacks 30/50/100; 1 wins 6 from 2 and 1 from 3; 3 wins 4 from 2."""
    result = score_json(json.loads((FIXTURES / "d10_caps.json").read_text()))
    assert [(p["seats"], p["points"]) for p in result["pairs"]] == [([1, 2], 6), ([1, 3], 1), ([2, 3], -4)]
    assert result["transfers"] == [{"from": 2, "to": 1, "amount": 30}, {"from": 2, "to": 3, "amount": 20}]
    assert result["shortfalls"] == [
        {"from": 2, "to": 1, "amount": 30},
        {"from": 3, "to": 1, "amount": 10},
        {"from": 2, "to": 3, "amount": 20},
    ]


def test_per_pair_stakes_from_seed_002():
    r = score(WE_1, WE_2, SEAT_3, stake=10, pair_stakes=[{"seats": [2, 1], "stake": 100}])
    assert {(t["from"], t["to"]): t["amount"] for t in r["transfers"]}[(2, 1)] == 600


@pytest.mark.parametrize(
    "showdown, message",
    [
        ({"seats": [WE_1, seat(2, "As 7s Xx", "Qs Qh 8c 2d 3c", "4s 4d 4h 8s 8d")]}, "seat 2 front: 'Xx' is not a card"),
        ({"seats": [WE_1, seat(2, "As 7s 7d", "Qs Qh 8c 2d 3c", "4s 4d 4h 8s 8d")]}, "duplicate card 7d: seat 1 middle and seat 2 front"),
        ({"seats": [WE_1, seat(2, "As 7s Jk", "Qs Qh 8c 2d 3c", "4s 4d 4h 8s 8d")]}, "seat 2 front: 'Jk' (the joker) is not in a Chinese Poker deck: it is played with the 52 cards, "
         "no joker (the joker is for Pai Gow Poker)"),
        ({"seats": [WE_1, seat(2, "As 7s 6h", "Qs Qh 8c 2d 3c", "4s 4d 4h 8s 8d") | {"middle": "Qs"}]}, "seat 2 middle: cards must be a list"),
        ({"seats": [WE_1, seat(2, "As 7s 6h", "Qs Qh 8c 2d", "4s 4d 4h 8s 8d") | {"middle": ["Qs", 5]}]}, "seat 2 middle: 5 is not a card"),
        ({"seats": [WE_1, WE_2], "profile": "texas"}, "unknown profile 'texas'"),
        ({"seats": [WE_1, WE_2], "button": 7}, "button is on seat 7, which is not one of seats 1, 2"),
        ({"seats": [WE_1, WE_2], "pair_stakes": [{"seats": [1, 5], "stake": 3}]}, "pair_stakes[0]: seat 5 is not one of seats 1, 2"),
        ({"seats": [WE_1, WE_2], "stake": "5"}, "stake must be a number"),
        ({"seats": [WE_1, WE_2 | {"stack": -5}]}, "seat 2: stack must be from 0 to 1,000,000,000,000"),
        ({"seats": [WE_1, WE_2 | {"midle": []}]}, "seat 2: unknown field 'midle'"),
        ({"seats": [WE_1, WE_1 | {"seat": 2}]}, "duplicate card 2s: seat 1 front and seat 2 front"),
        ({"seats": [WE_1, WE_2 | {"seat": 1}]}, "seat 1 appears twice"),
        ({"seats": [WE_1, {"seat": 2}]}, "seat 2: no cards"),
        ({"seats": [WE_1, {"seat": 2, "dead": True}]}, "1 active seat"),
        ({"seats": [WE_1, {"seat": 2, "cards": WE_2["front"]}]}, "'cards' (an unset pile) is only for a declared natural"),
        ({"seats": "all"}, "'seats' must be a non-empty list"),
        ([1, 2], "a showdown must be a JSON object"),
    ],
)
def test_unscorable_showdowns_get_an_error_naming_the_seat_and_card(showdown, message):
    result = score_json(showdown)
    assert set(result) == {"error"}
    assert message in result["error"]


def test_a_seat_that_gives_no_cards_is_an_error_but_empty_rows_are_a_foul():
    """§3 / §7 as docs/rules-engine.md says: no rows and no pile cannot be scored; rows of 0 cards foul."""
    assert score_json({"seats": [WE_1, {"seat": 2}]})["error"].startswith("seat 2: no cards")
    empty = score_json({"seats": [WE_1, {"seat": 2, "front": [], "middle": [], "back": []}]})
    assert [(s["seat"], s["status"], s["foul"]) for s in empty["seats"]] == [(1, "set", None), (2, "fouled", "count")]
    declared = score_json({"seats": [WE_1, {"seat": 2, "declared_natural": True, "front": [], "middle": [], "back": []}]})
    assert declared["seats"][1]["foul"] == "false_natural" and "a natural needs 13" in declared["seats"][1]["foul_reason"]
