"""Pai Gow Poker rules (house rules §9): ranks with the joker, fouls, the `foxwoods` house way,
copies, commission and the banker. Each test names the decision it pins."""

from decimal import Decimal

import pytest

from kiosk.cards import parse_cards
from kiosk.paigow.api import score_paigow_json
from kiosk.paigow.houseway import HouseWayError, get_house_way, house_way_from_dict, set_by_house_way
from kiosk.paigow.ranks import describe, rank2, rank5
from kiosk.paigow.setting import foul_of
from kiosk.paigow.scoring import commission_on


def r5(text):
    return rank5(parse_cards(text))


def way(text, house_way="foxwoods"):
    """The house-way setting as (sorted high, sorted low) card texts."""
    hw = get_house_way(house_way) if isinstance(house_way, str) else house_way
    s = set_by_house_way(parse_cards(text), hw)
    return sorted(map(str, s.high)), sorted(map(str, s.low))


def low_of(text, house_way="foxwoods"):
    return way(text, house_way)[1]


# --- D-11: ranks with the joker --------------------------------------------------------------


def test_d11_five_aces_beat_a_royal_flush():
    assert r5("As Ah Ad Ac Jk") > r5("As Ks Qs Js Ts")
    assert describe(r5("As Ah Ad Ac Jk")) == "five aces"


def test_d11_a2345_straight_flush_is_second_only_to_the_royal():
    wheel = r5("Ah 2h 3h 4h 5h")
    assert r5("As Ks Qs Js Ts") > wheel > r5("Ks Qs Js Ts 9s") > r5("6d 5d 4d 3d 2d")
    assert wheel > r5("9c 9d 9h 9s Kd")  # still a straight flush


def test_d11_a2345_straight_is_second_highest_straight():
    wheel = r5("Ah 2d 3h 4c 5s")
    assert r5("Ah Kd Qh Jc Ts") > wheel > r5("Kh Qd Jh Tc 9s")
    assert r5("Kh Qd Jh Tc 9s") > r5("6h 5d 4h 3c 2s")
    assert wheel > r5("As Ah Ad 2c 3s")  # a straight above trips


def test_d11_joker_in_a_flush_is_the_highest_rank_missing():
    assert describe(r5("Kh Qh 9h 5h Jk")) == "flush, ace high"
    assert r5("Ah Kh 9h 5h Jk") == r5("Ad Kd Qd 9d 5d")  # the queen is missing, not a second ace


def test_d11_joker_completes_straights_and_straight_flushes():
    assert r5("Ks Qs Js Ts Jk") == r5("As Ks Qs Js Ts")  # royal
    assert r5("2h 3h 4h 5h Jk") == r5("Ah 2h 3h 4h 5h")  # the wheel flush beats 2-6
    assert r5("9c Tc Jd 7h Jk") == r5("7s 8s 9c Tc Jd")  # the gap filled
    assert r5("Kd Qc Jh 9s Jk") == r5("Kd Qc Jh Ts 9s")


def test_d11_joker_is_an_ace_otherwise_and_in_the_low_hand():
    assert r5("Ad Jk 7c 5h 2s") == r5("Ad Ac 7c 5h 2s")  # pair of aces
    assert r5("Kd Kc Jk 7h 2s") == r5("Kd Kc As 7h 2s")  # ace kicker, not a third king
    assert r5("Ad Ac Ah Jk 2s") == r5("Ad Ac Ah As 2s")  # four aces
    assert rank2(parse_cards("Jk As")) == rank2(parse_cards("Ad As"))
    assert rank2(parse_cards("Jk Ks")) == rank2(parse_cards("Ad Ks"))


# --- D-12a: the foul test ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "high, low, foul",
    [
        ("Jh Jd Ac Kd 5s", "Js Jc", None),  # split four of a kind
        ("Ah Kd 9c 5d 3s", "As Kc", None),  # the longer list ranks higher
        ("Ah Qd 9c 8d 7s", "As Kc", "order"),
        ("9h 9d 5c 4d 3s", "Qs Qc", "order"),
        ("Ah Qd 9c 8d 7s 6c", "As", "count"),
        ("Ah Qd 9c 8d", "As Kc 2d", "count"),
    ],
)
def test_d12a_low_must_rank_below_high(high, low, foul):
    assert foul_of(parse_cards(high), parse_cards(low)) == foul


# --- the house way: D-12b .. D-12k ---------------------------------------------------------------


def test_d12b_aces_full_with_the_joker_is_a_full_house_not_a_straight():
    assert way("Ah Ad Jk Kc Ks Qd Jh") == (["Ad", "Ah", "Jh", "Jk", "Qd"], ["Kc", "Ks"])


def test_d12d_no_pair_second_and_third_highest_low():
    assert low_of("As Kd Qh 9c 7s 4d 2c") == ["Kd", "Qh"]
    assert low_of("Jk Kd Qh 9c 7s 4d 2c") == ["Kd", "Qh"]  # the joker is the single ace


def test_d12d_one_pair_high_two_highest_singles_low():
    assert way("8s 8d Ah Kc 9s 5d 2c") == (["2c", "5d", "8d", "8s", "9s"], ["Ah", "Kc"])


@pytest.mark.parametrize(
    "cards, low",
    [
        ("As Ad 3h 3c Ks 9d 5c", ["3c", "3h"]),  # A-K-Q-J big pair: split
        ("Js Jd 4h 4c As 9d 5c", ["4c", "4h"]),
        ("Ts Td 4h 4c As 9d 5c", ["9d", "As"]),  # T-7 with an ace: keep both high
        ("Ts Td 4h 4c Jk 9d 5c", ["9d", "Jk"]),  # the joker is the ace
        ("7s 7d 4h 4c Ks 9d 5c", ["4c", "4h"]),  # T-7 without an ace: split
        ("6s 6d 3h 3c Ks 9d 5c", ["9d", "Ks"]),  # 6-3 with a king: keep
        ("6s 6d 3h 3c Qs 9d 5c", ["3c", "3h"]),  # 6-3 without: split
    ],
)
def test_d12e_two_pair(cards, low):
    assert low_of(cards) == low


def test_d12e_two_pair_ignores_a_straight():
    # 9-9-8-8 with 5-6-7: a 5-9 straight is there, but two pair rules (T-7 needs an ace: split)
    assert low_of("9s 9d 8h 8c 7s 6d 5c") == ["8c", "8h"]


def test_d12f_three_pair_highest_pair_low():
    assert low_of("Qs Qd 8h 8c 5s 5d Ac") == ["Qd", "Qs"]


def test_d12f_three_aces_one_ace_and_highest_single_low():
    high, low = way("As Ad Ah Kc 9s 5d 2c")
    assert sorted(c[0] for c in low) == ["A", "K"] and len([c for c in high if c[0] == "A"]) == 2
    high, low = way("As Ad Jk Kc 9s 5d 2c")  # the joker is one of the aces
    assert "Kc" in low and len(low) == 2


def test_d12f_three_kings_and_below_trips_high():
    assert low_of("Ks Kd Kh Ac 9s 5d 2c") == ["9s", "Ac"]


def test_d12f_two_sets_of_trips_pair_of_the_higher_set_low():
    high, low = way("Ks Kd Kh 5c 5s 5d 2c")
    assert [c[0] for c in low] == ["K", "K"] and "2c" in high


def test_d12g_full_house_pair_low_the_higher_of_two_pairs():
    assert low_of("9s 9d 9h Qc Qs 4d 2c") == ["Qc", "Qs"]
    assert low_of("9s 9d 9h Qc Qs 4d 4c") == ["Qc", "Qs"]
    assert low_of("Ks Kd Kh 3c 3s Ad 2c") == ["3c", "3s"]  # "pair" is never two of the trips


def test_d12h_flush_high_and_a_pair_low_when_it_fits():
    high, low = way("2h 5h 7h 9h Jh Qs Qd")
    assert low == ["Qd", "Qs"] and describe(r5(" ".join(high))).startswith("flush")


def test_d12h_a_lower_straight_that_frees_better_low_cards():
    assert way("4s 5d 6h 7c 8s 9d Kc") == (["4s", "5d", "6h", "7c", "8s"], ["9d", "Kc"])


def test_d12h_trips_needing_the_joker_for_the_straight():
    assert sorted(c[0] for c in low_of("As Ad Jk 2c 3h 4s 9d")) == ["9", "A"]


def test_d12h_trips_with_a_straight_complete_hand_high_pair_low():
    high, low = way("7s 7d 7h 8c 9s Td Jc")
    assert [c[0] for c in low] == ["7", "7"] and describe(r5(" ".join(high))) == "straight, jack high"


def test_d12h_exception_pair_of_kings_with_an_ace_plays_one_pair():
    assert way("As Kc Kd Qh Jc Td 3c") == (["3c", "Jc", "Kc", "Kd", "Td"], ["As", "Qh"])


def test_d12h_no_exception_for_a_pair_of_nines():
    high, low = way("As 9c 9d Kh Qc Jd Td")
    assert describe(r5(" ".join(high))).startswith("straight")


def test_d12h_straight_with_three_pair_plays_the_three_pair_rule():
    # our decision where D-12h is silent (docs/paigow.md): three pair ignores the straight too
    assert low_of("As Jk 2c 2d 3h 3s 4d") == ["As", "Jk"]


@pytest.mark.parametrize(
    "cards, low_ranks",
    [
        ("Js Jd Jh Jc As 9d 5c", ["J", "J"]),  # A-K-Q-J: split
        ("9s 9d 9h 9c Ks 8d 5c", ["8", "K"]),  # T-7 with a king low: keep
        ("9s 9d 9h 9c Qs 8d 5c", ["9", "9"]),  # T-7 without: split
        ("5s 5d 5h 5c Qs 8d 3c", ["8", "Q"]),  # 6 and below: never split
        ("5s 5d 5h 5c Qs Qd 3c", ["Q", "Q"]),  # with a pair: that pair low
        ("As Ad Ah Ac 3s 3d 3c", ["3", "3"]),  # with trips: two of them low
    ],
)
def test_d12i_four_of_a_kind(cards, low_ranks):
    assert sorted(c[0] for c in low_of(cards)) == sorted(low_ranks)


def test_d12j_five_aces_kings_low_else_two_aces_low():
    assert low_of("As Ad Ah Ac Jk Ks Kd") == ["Kd", "Ks"]
    high, low = way("As Ad Ah Ac Jk Qs Qd")
    assert [c[0] for c in low] == ["A", "A"] and describe(r5(" ".join(high))) == "full house, aces full of queens"


def test_d12k_two_natural_aces_low_and_the_joker_high_for_the_straight():
    high, low = way("As Ad Ah Jk Kc Qd Jh")
    assert "Jk" in high and describe(r5(" ".join(high))) == "straight, ace high (A-K-Q-J-10)"
    assert "Jk" not in low and [c[0] for c in low] == ["A", "A"]


def test_house_way_is_data_a_casino_can_replace():
    never_split = house_way_from_dict({"name": "riverside", "two_pair": [[2, "keep"]]})
    assert low_of("As Ad 3h 3c Ks 9d 5c") == ["3c", "3h"]
    assert low_of("As Ad 3h 3c Ks 9d 5c", never_split) == ["9d", "Ks"]
    with pytest.raises(HouseWayError, match="two_pair"):
        house_way_from_dict({"name": "x", "two_pair": [[2, "sometimes"]]})
    with pytest.raises(HouseWayError, match="unknown house_way"):
        get_house_way("bellagio")


# --- D-12: the banker, copies, outcomes; D-12l warnings; D-13 commission -------------------------

BANKER_HW = {"seat": 0, "high": "Kc Kd 9h 5s 3d".split(), "low": ["Qs", "Jh"]}  # one pair: house way


def table(banker=None, seats=(), **top):
    return score_paigow_json({"game": "paigow", "banker": banker or BANKER_HW, "seats": list(seats), **top})


def seat(n, high, low, bet=25):
    return {"seat": n, "high": high.split(), "low": low.split(), "bet": bet}


def test_d12_copies_go_to_the_banker_and_outcomes():
    r = table(seats=[
        seat(1, "Ks Kh 9c 5c 3h", "Qd Jc"),  # copy both: lose
        seat(2, "As Ah 4c 6d 7h", "Qh Td"),  # high wins, low loses: push
        seat(3, "2s 2h 4d 6c 7c", "Ac Ad"),  # order foul
        seat(4, "8s 8h 8d 6h 7s", "Ts Tc"),  # wins both
    ])  # fmt: skip
    s = {x["seat"]: x for x in r["seats"]}
    assert (s[1]["high"], s[1]["low"], s[1]["outcome"], s[1]["net"]) == ("copy", "copy", "lose", -25)
    assert (s[2]["high"], s[2]["low"], s[2]["outcome"], s[2]["net"]) == ("win", "lose", "push", 0)
    assert (s[3]["status"], s[3]["foul"], s[3]["high"], s[3]["outcome"], s[3]["net"]) == (
        "fouled", "order", None, "lose", -25)
    assert (s[4]["outcome"], s[4]["net"], s[4]["commission"]) == ("win", 23.75, 1.25)
    assert r["banker"]["net"] == 25 + 25 - 25 and r["house_commission"] == 1.25
    assert r["banker"]["follows_house_way"] is True and r["warnings"] == []


def test_d12_dealer_scored_by_the_house_way_and_warned_when_set_otherwise():
    off = {"seat": 0, "high": "Kc 9h 5s 3d Qs".split(), "low": ["Kd", "Jh"]}
    r = table(off, [seat(1, "As Ah 4c 6d 7h", "Kh Td")])
    assert r["banker"]["follows_house_way"] is False
    assert sorted(r["banker"]["scored_as"]["low"]) == ["Jh", "Qs"]
    assert r["seats"][0]["outcome"] == "win"  # against K-K high / Q-J low, not the dealer's layout
    assert any("house way" in w for w in r["warnings"])


def test_d12_player_banker_scored_as_laid_out_unless_it_fouls():
    laid = {"seat": 5, "high": "Kc 9h 5s 3d Qs".split(), "low": ["Kd", "Jh"]}  # legal, off the house way
    r = table(laid, [seat(1, "As Ah 4c 6d 7h", "Kh Td")])
    assert sorted(r["banker"]["scored_as"]["low"]) == ["Jh", "Kd"]
    assert r["seats"][0]["outcome"] == "push" and not any("house way" in w for w in r["warnings"])
    fouled = {"seat": 5, "high": "Kc Kd 9h 5s".split(), "low": ["Qs", "Jh", "3d"]}
    r = table(fouled, [seat(1, "As Ah 4c 6d 7h", "Kh Td")])
    assert sorted(r["banker"]["scored_as"]["low"]) == ["Jh", "Qs"]
    assert r["banker"]["follows_house_way"] is False and "seats" in r


def test_d12l_stack_warning_for_a_player_banker_only():
    bets = [seat(1, "As Ah 4c 6d 7h", "Kh Td", 30), seat(2, "2s 2h 4d 6c 7c", "Ac Ad", 20)]
    short = dict(BANKER_HW, seat=3, stack=49.99)
    assert any("stack" in w for w in table(short, bets)["warnings"])
    assert not any("stack" in w for w in table(dict(short, stack=50), bets)["warnings"])  # equal covers
    assert not any("stack" in w for w in table(dict(short, seat=0), bets)["warnings"])  # the dealer


@pytest.mark.parametrize(
    "top, banker, seats, word",
    [
        ({}, None, [seat(1, "As Ah 4c 6d 7h", "Kh Xd")], "unknown card"),
        ({}, None, [seat(1, "As Ah 4c 6d 7h", "Kh Kc")], "duplicate card"),  # Kc is the banker's
        ({}, None, [seat(1, "As Ah 4c 6d 7h", "Th 10h")], "duplicate card"),
        ({}, None, [{"seat": 1, "high": [], "low": []}], "bet"),
        ({}, None, [seat(1, "As Ah 4c 6d 7h", "Kh Td", 0)], "bet"),
        ({}, None, [seat(1, "As Ah 4c 6d 7h", "Kh Td", "10")], "bet"),
        ({}, {"seat": 0, "high": ["As"], "low": ["Kd"]}, [], "banker"),
        ({}, dict(BANKER_HW, seat=2), [seat(2, "As Ah 4c 6d 7h", "Kh Td")], "banker"),
        ({"house_way": "bellagio"}, None, [], "house_way"),
    ],
)
def test_d12l_input_errors_name_the_problem(top, banker, seats, word):
    r = table(banker, seats, **top)
    assert set(r) == {"game", "error"} and r["game"] == "paigow" and word in r["error"]


def test_d12l_wrong_counts_are_a_foul_not_an_error():
    r = table(seats=[seat(1, "As Ah 4c 6d 7h 8s", "Kh")])
    assert (r["seats"][0]["foul"], r["seats"][0]["net"]) == ("count", -25)


def test_d13_commission_rounds_half_up_exactly_on_the_amount_written():
    assert commission_on(Decimal("10.50"), Decimal("0.05")) == Decimal("0.53")
    assert commission_on(Decimal("2.30"), Decimal("0.05")) == Decimal("0.12")  # floats give 0.11
    r = table(seats=[seat(4, "8s 8h 8d 6h 7s", "Ks Ah", 2.30)])
    assert (r["seats"][0]["net"], r["seats"][0]["commission"]) == (2.18, 0.12)


def test_d13_player_banker_pays_commission_on_a_positive_total_dealer_none():
    losers = [seat(1, "Ks Kh 9c 5c 3h", "Qd Jc", 10.5), seat(2, "2s 2h 4d 6c 7c", "Ac Ad", 20)]
    r = table(dict(BANKER_HW, seat=6), losers)
    assert (r["banker"]["net"], r["house_commission"]) == (28.97, 1.53)  # 30.50 - 1.525 -> 1.53
    r = table(BANKER_HW, losers)
    assert (r["banker"]["net"], r["house_commission"]) == (30.5, 0)
    r = table(dict(BANKER_HW, seat=6), losers, commission=0)
    assert (r["banker"]["net"], r["house_commission"]) == (30.5, 0)


def test_d13_a_losing_player_banker_pays_no_commission():
    r = table(dict(BANKER_HW, seat=6), [seat(4, "8s 8h 8d 6h 7s", "Ks Ah", 20)])
    assert (r["banker"]["net"], r["house_commission"]) == (-20, 1)


def test_d12_the_dealer_may_play_against_a_player_banker_as_seat_0():
    banker = dict(BANKER_HW, seat=4)
    r = table(banker, [seat(0, "As Ah 4c 6d 7h", "Kh Td")])
    assert [s["seat"] for s in r["seats"]] == [0] and r["seats"][0]["outcome"] == "win"
    r = table(BANKER_HW, [seat(0, "As Ah 4c 6d 7h", "Kh Td")])  # the dealer banks: seat 0 cannot play too
    assert "banker" in r["error"]
