"""Dealer actions: the one thing that flows back from the display into the pipeline.

The display builds these from the dealer's taps; the pipeline applies them to the
hand in progress and republishes; the recorder stores each one with its time.
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass, field
from typing import Literal, Mapping

from kiosk.cards import ROWS, CardError, parse_card
from kiosk.errors import KioskError
from kiosk.rules.showdown import MAX_MONEY, MIN_STAKE

ActionKind = Literal[
    "declare_natural",  # seat: the player declared a natural before opening
    "undeclare_natural",
    "move_button",  # seat: the new button seat
    "set_dead",  # seat, value: bool
    "set_stake",  # value: table stake; or pair + value for a per-pair stake
    "set_stack",  # seat, value: starting stack for this hand (None clears)
    "correct_card",  # seat, row, index, before, after, by (floor PIN holder)
    "new_hand",  # the dealer forces the hand to clear
    "wrong_pin",  # recorded only (never applied): a refused floor PIN, with what it tried
]


@dataclass(frozen=True, slots=True)
class DealerAction:
    kind: ActionKind
    seat: int | None = None
    value: object = None
    row: str | None = None
    index: int | None = None
    before: str | None = None  # card text before a correction
    after: str | None = None  # card text after a correction
    by: str | None = None  # who authorised it (floor staff id)
    at: float = 0.0  # unix time
    hand_id: str | None = None
    extra: dict = field(default_factory=dict)


# ---- the dealer's requests, one frozen value per kind, each checked whole before anything is applied ----

Money = int | float


class ActionError(KioskError):
    """A dealer action that cannot be applied; the message names the field and the value."""

    def __init__(self, message: str):
        super().__init__(message, exit_code=1)


def _show(value: object) -> str:
    return reprlib.repr(value)


def seat_number(value: object, seats: int, what: str = "seat") -> int:
    """A whole seat number of this table: 2 or "2", never 1.9, true or [1].

    >>> seat_number("3", 4), seat_number(2, 4)
    (3, 2)
    >>> seat_number(1.9, 4)
    Traceback (most recent call last):
    ...
    kiosk.table.actions.ActionError: seat must be a number from 1 to 4, got 1.9
    """
    number = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and value.strip().isdigit() and len(value.strip()) < 4:
        number = int(value.strip())
    if number is None:
        raise ActionError(f"{what} must be a number from 1 to {seats}, got {_show(value)}")
    if not 1 <= number <= seats:
        raise ActionError(f"there is no seat {_show(number)} (seats are 1 to {seats})")
    return number


def money(value: object, what: str, minimum: float) -> Money:
    """A stake or stack the settlement can represent (the range `kiosk score` takes)."""
    number = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and len(value) < 40:
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if number is None or number != number:
        raise ActionError(f"{what} must be a number, got {_show(value)}")
    if number < 0:
        raise ActionError(f"{what} must be zero or more, got {_show(value)}")
    if number == 0 and minimum > 0:
        raise ActionError(f"{what} must be more than zero")
    if not minimum <= number <= MAX_MONEY:
        raise ActionError(f"{what} must be from {minimum:g} to {MAX_MONEY:,}, got {_show(value)}")
    if isinstance(number, float) and number.is_integer():
        return int(number)
    return number


def _seat_and_value(body: Mapping, seats: int) -> tuple[int, object]:
    """The seat an action is on (checked) and the value it sets (for the action to check)."""
    return seat_number(body.get("seat"), seats), body.get("value")


@dataclass(frozen=True, slots=True)
class SeatAction:
    """declare_natural, undeclare_natural or move_button on one seat."""

    kind: Literal["declare_natural", "undeclare_natural", "move_button"]
    seat: int

    @classmethod
    def parse(cls, body: Mapping, seats: int) -> "SeatAction":
        return cls(body["kind"], seat_number(body.get("seat"), seats))

    def record(self, at: float, hand_id: str | None) -> DealerAction:
        return DealerAction(kind=self.kind, seat=self.seat, at=at, hand_id=hand_id)


@dataclass(frozen=True, slots=True)
class SetDead:
    seat: int
    dead: bool

    @classmethod
    def parse(cls, body: Mapping, seats: int) -> "SetDead":
        seat, value = _seat_and_value(body, seats)
        if not isinstance(value, bool):
            raise ActionError("set_dead needs value true (dead) or false (playing)")
        return cls(seat, value)

    def record(self, at: float, hand_id: str | None) -> DealerAction:
        return DealerAction(kind="set_dead", seat=self.seat, value=self.dead, at=at, hand_id=hand_id)


@dataclass(frozen=True, slots=True)
class SetStack:
    seat: int
    stack: Money | None  # None clears it

    @classmethod
    def parse(cls, body: Mapping, seats: int) -> "SetStack":
        seat, value = _seat_and_value(body, seats)
        stack = None if value in (None, "") else money(value, f"the stack of seat {seat}", 0)
        return cls(seat, stack)

    def record(self, at: float, hand_id: str | None) -> DealerAction:
        return DealerAction(kind="set_stack", seat=self.seat, value=self.stack, at=at, hand_id=hand_id)


@dataclass(frozen=True, slots=True)
class SetStake:
    stake: Money
    pair: tuple[int, int] | None = None  # a per-pair stake between these two seats

    @classmethod
    def parse(cls, body: Mapping, seats: int) -> "SetStake":
        stake = money(body.get("value"), "the stake", MIN_STAKE)
        pair = body.get("pair")
        if pair is None:
            return cls(stake)
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ActionError(f"a pair stake names two seats, got {_show(pair)}")
        a, b = (seat_number(s, seats, "a pair stake's seat") for s in pair)
        if a == b:
            raise ActionError(f"a pair stake names two different seats from 1 to {seats}, got {_show(pair)}")
        return cls(stake, (a, b))

    def record(self, at: float, hand_id: str | None) -> DealerAction:
        extra = {"pair": list(self.pair)} if self.pair else {}
        return DealerAction(kind="set_stake", value=self.stake, at=at, hand_id=hand_id, extra=extra)


@dataclass(frozen=True, slots=True)
class NewHand:
    @classmethod
    def parse(cls, body: Mapping, seats: int) -> "NewHand":
        return cls()

    def record(self, at: float, hand_id: str | None) -> DealerAction:
        return DealerAction(kind="new_hand", at=at, hand_id=hand_id)


CORRECTABLE_ROWS = (*ROWS, "pile")


@dataclass(frozen=True, slots=True)
class CorrectCard:
    """A floor-authorised correction of one card: where it lies (index 0-based), the card the
    display showed there, the card it is, and who authorised it."""

    seat: int
    row: str
    index: int
    before: str
    after: str
    by: str

    @classmethod
    def parse(cls, body: Mapping, seats: int) -> "CorrectCard":
        """
        >>> CorrectCard.parse({"seat": "2", "row": "back", "index": "4", "before": "As", "after": "ah", "by": "f-7"}, 4)
        CorrectCard(seat=2, row='back', index=4, before='As', after='Ah', by='f-7')
        >>> CorrectCard.parse({"seat": 2, "row": "back", "index": 13}, 4)
        Traceback (most recent call last):
        ...
        kiosk.table.actions.ActionError: index must be the card's position in the row (0-12), got 13
        """
        seat = seat_number(body.get("seat"), seats)
        row = body.get("row")
        if row not in CORRECTABLE_ROWS:
            raise ActionError(f"row must be one of {', '.join(CORRECTABLE_ROWS)}, got {_show(row)}")
        index = body.get("index")
        if isinstance(index, str) and index.strip().isdigit() and len(index.strip()) < 3:
            index = int(index)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < 13:
            raise ActionError(f"index must be the card's position in the row (0-12), got {_show(index)}")
        by = str(body.get("by") or "").strip()
        if not by or len(by) > 40:
            raise ActionError("say who authorises the correction (floor staff id, up to 40 characters)")
        try:
            after = str(parse_card(str(body.get("after", ""))))
            before = str(parse_card(str(body.get("before", ""))))
        except CardError as err:
            raise ActionError(str(err)) from None
        return cls(seat, row, index, before, after, by)

    def record(self, at: float, hand_id: str | None) -> DealerAction:
        return DealerAction(kind="correct_card", seat=self.seat, row=self.row, index=self.index, before=self.before,
                            after=self.after, by=self.by, at=at, hand_id=hand_id)


TableAction = SeatAction | SetDead | SetStack | SetStake | NewHand | CorrectCard
# What the dealer's buttons send (`parse_action`); a correction needs the floor's PIN (its own route).
ACTION_TYPES: dict[str, type] = {
    "declare_natural": SeatAction, "undeclare_natural": SeatAction, "move_button": SeatAction,
    "set_dead": SetDead, "set_stack": SetStack, "set_stake": SetStake, "new_hand": NewHand,
}
RECORDED_TYPES: dict[str, type] = {**ACTION_TYPES, "correct_card": CorrectCard}


def parse_action(body: Mapping, seats: int) -> TableAction:
    """The dealer's request (the display's JSON) as its typed value; ActionError names what is wrong.

    >>> parse_action({"kind": "set_stake", "value": "25", "pair": [1, "3"]}, 4)
    SetStake(stake=25, pair=(1, 3))
    >>> parse_action({"kind": ["new_hand"]}, 4)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kiosk.table.actions.ActionError: unknown action ['new_hand'] (actions: declare_natural, ...)
    """
    kind = body.get("kind") if isinstance(body, Mapping) else None
    kind_type = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if kind_type is None:
        raise ActionError(f"unknown action {_show(kind)} (actions: {', '.join(ACTION_TYPES)})")
    return kind_type.parse(body, seats)


def typed_action(action: DealerAction, seats: int) -> TableAction:
    """A recorded (or requested) DealerAction checked whole, as its typed value; ActionError names
    what is wrong, or a kind that is no action to apply (a refused PIN is recorded only).

    >>> typed_action(DealerAction("set_stake", value=10.0, extra={"pair": [1, 2]}), 4)
    SetStake(stake=10, pair=(1, 2))
    >>> typed_action(DealerAction("wrong_pin"), 4)
    Traceback (most recent call last):
    ...
    kiosk.table.actions.ActionError: 'wrong_pin' is no action to apply
    """
    kind_type = RECORDED_TYPES.get(action.kind)
    if kind_type is None:
        raise ActionError(f"{_show(action.kind)} is no action to apply")
    body = {"kind": action.kind, "seat": action.seat, "value": action.value, "row": action.row,
            "index": action.index, "before": action.before, "after": action.after, "by": action.by}
    if action.extra and action.extra.get("pair") is not None:
        body["pair"] = action.extra["pair"]
    return kind_type.parse(body, seats)
