"""Scoring profiles (RULES.md §6): the four built-ins as data, and a card room's own."""

import pytest

from kiosk.rules.profiles import (
    BUILT_IN,
    ProfileError,
    get_profile,
    profile_from_dict,
    profiles_from_json,
)
from kiosk.rules.ranking import Category


def test_builtin_profiles_hold_the_numbers_of_rules_section_6():
    m = get_profile("mandarin")
    assert (m.row_point, m.overall_bonus, m.scoop, m.super_bonus) == (1, 0, 6, 9)
    assert m.super_bonus_min_opponents == 3  # D-7
    assert m.false_natural == "foul"  # D-4
    assert m.natural_ranking == "push"  # D-9
    assert dict(m.natural_points) == {
        "dragon": 13, "six_pairs": 4, "three_flushes": 4, "three_straights": 4,
    }
    table = {(row, cat): pts for row, cat, pts in m.royalties}
    assert table == {
        ("back", Category.STRAIGHT_FLUSH): 5,
        ("back", Category.FOUR_OF_A_KIND): 4,
        ("middle", Category.STRAIGHT_FLUSH): 10,
        ("middle", Category.FOUR_OF_A_KIND): 8,
        ("middle", Category.FULL_HOUSE): 2,
        ("front", Category.THREE_OF_A_KIND): 3,
    }
    one_six = get_profile("one-six")
    assert (one_six.scoop, one_six.super_bonus, one_six.royalties) == (6, None, ())
    two_four = get_profile("two-four")
    assert (two_four.overall_bonus, two_four.scoop, two_four.super_bonus) == (1, 4, None)
    assert two_four.royalties == ()
    capsa = get_profile("capsa")
    assert capsa.natural_ranking == "capsa" and capsa.super_bonus is None
    assert capsa.royalties == m.royalties
    assert set(BUILT_IN) == {"mandarin", "one-six", "two-four", "capsa"}


def test_royalty_lookup_is_zero_for_hands_without_a_bonus():
    m = get_profile("mandarin")
    assert m.royalty("back", Category.FULL_HOUSE) == 0
    assert m.royalty("front", Category.PAIR) == 0
    assert m.royalty("middle", Category.FULL_HOUSE) == 2


def test_a_card_room_defines_its_own_table_from_a_base():
    p = profile_from_dict(
        {
            "name": "riverside",
            "base": "mandarin",
            "scoop": 5,
            "royalties": {"back": {"four_of_a_kind": 6}, "front": {"pair": 1}},
            "natural_points": {"dragon": 26},
            "false_natural": "play_as_set",
        }
    )
    assert p.name == "riverside" and p.scoop == 5 and p.super_bonus == 9
    assert p.royalty("back", Category.FOUR_OF_A_KIND) == 6
    assert p.royalty("back", Category.STRAIGHT_FLUSH) == 0  # the table was replaced, not merged
    assert p.royalty("front", Category.PAIR) == 1
    assert p.natural_value("dragon") == 26 and p.natural_value("six_pairs") == 4  # merged
    assert p.false_natural == "play_as_set"


def test_profile_round_trips_through_its_dict():
    for p in BUILT_IN.values():
        assert profile_from_dict(p.to_dict()) == p


def test_profiles_from_json_lets_a_later_profile_build_on_an_earlier_one():
    found = profiles_from_json(
        [{"name": "house", "base": "capsa", "scoop": 7}, {"name": "house-2", "base": "house"}]
    )
    assert found["house-2"].scoop == 7 and found["house-2"].natural_ranking == "capsa"


@pytest.mark.parametrize(
    "data, message",
    [
        ({"name": "x", "base": "mandarin", "scoop": "six"}, "profile 'x': scoop: must be a whole number"),
        ({"name": "x", "base": "mandarin", "scoop": -1}, "scoop: must be from 0 to 1000"),
        ({"name": "x", "base": "mandarin", "scoop": True}, "scoop: must be a whole number"),
        ({"name": "x", "base": "mandarin", "skoop": 6}, "unknown field 'skoop'"),
        ({"name": "x", "base": "texas"}, "base: unknown profile 'texas'"),
        ({"name": "x", "base": "mandarin", "royalties": {"top": {}}}, "unknown row 'top'"),
        ({"name": "x", "base": "mandarin", "royalties": {"front": {"flush": 2}}}, "cannot hold a flush"),
        ({"name": "x", "base": "mandarin", "royalties": {"back": {"quads": 2}}}, "unknown hand 'quads'"),
        ({"name": "x", "base": "mandarin", "natural_points": {"seven_pairs": 2}}, "unknown natural 'seven_pairs'"),
        ({"name": "x", "scoop": 6}, "natural_points: no points for dragon"),
        ({"name": "x", "base": "mandarin", "natural_ranking": "ranked"}, "must be one of push, capsa"),
        ({"name": "x", "base": "mandarin", "false_natural": "ignore"}, "must be one of foul, play_as_set"),
        ({"name": "x", "base": "mandarin", "natural_order": ["dragon"]}, "natural_order: must list each"),
        ({"name": "x", "base": "mandarin", "super_bonus_min_opponents": 0}, "must be from 1 to 1000"),
        ({"base": "mandarin"}, "needs a 'name'"),
        (["mandarin"], "must be a JSON object"),
    ],
)
def test_bad_profile_definitions_get_a_clear_error(data, message):
    with pytest.raises(ProfileError) as err:
        profile_from_dict(data)
    assert message in str(err.value)


def test_unknown_profile_name_lists_the_known_ones():
    with pytest.raises(ProfileError, match="unknown profile 'texas' .*capsa, mandarin, one-six, two-four"):
        get_profile("texas")
