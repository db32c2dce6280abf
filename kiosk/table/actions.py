"""Dealer actions: the one thing that flows back from the display into the pipeline.

The display builds these from the dealer's taps; the pipeline applies them to the
hand in progress and republishes; the recorder stores each one with its time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

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
