"""Dealer actions: one frozen value per action, checked whole once; a record reads back as the same value."""

from __future__ import annotations

import pytest

from kiosk.table.actions import (
    ActionError, CorrectCard, DealerAction, NewHand, SeatAction, SetDead, SetStack, SetStake, parse_action,
    typed_action,
)
from kiosk.table.hub import Hub
from kiosk.web.app import create_app

ACTIONS = [
    SeatAction("declare_natural", 2), SeatAction("move_button", 4), SetDead(3, True), SetDead(3, False),
    SetStack(1, 250), SetStack(1, None), SetStake(25), SetStake(2.5, (1, 3)), NewHand(),
    CorrectCard(2, "back", 4, "As", "Ah", "floor-7"),
]


@pytest.mark.parametrize("action", ACTIONS, ids=repr)
def test_a_recorded_action_reads_back_as_the_value_that_made_it(action):
    assert typed_action(action.record(at=1.0, hand_id="h-1"), 4) == action


def test_a_correction_is_no_dealer_button_it_needs_the_floor_route():
    body = {"kind": "correct_card", "seat": 2, "row": "back", "index": 4, "before": "As", "after": "Ah", "by": "f"}
    with pytest.raises(ActionError, match="unknown action 'correct_card'"):
        parse_action(body, 4)
    assert CorrectCard.parse(body, 4) == CorrectCard(2, "back", 4, "As", "Ah", "f")


@pytest.mark.parametrize(("change", "message"), [
    ({"seat": 5}, "there is no seat 5 (seats are 1 to 4)"),
    ({"row": "side"}, "row must be one of front, middle, back, pile, got 'side'"),
    ({"index": "x"}, "index must be the card's position in the row (0-12), got 'x'"),
    ({"by": " "}, "say who authorises the correction"),
    ({"after": "Zz"}, "Zz"),
])
def test_a_correction_names_its_wrong_field(change, message):
    body = {"seat": 2, "row": "back", "index": 4, "before": "As", "after": "Ah", "by": "floor-7"} | change
    with pytest.raises(ActionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        CorrectCard.parse(body, 4)


def test_a_refused_pin_is_recorded_only_never_applied():
    with pytest.raises(ActionError, match="'wrong_pin' is no action to apply"):
        typed_action(DealerAction("wrong_pin", by="x"), 4)


def test_the_display_takes_the_validated_config_only():
    with pytest.raises(TypeError, match="create_app takes a KioskConfig"):
        create_app(Hub(), None, {"table": {"seats": 4}})
