"""The stable hand: what many frames of one hand say, per seat, row and card position.

The stabiliser (`stabilizer.py`) builds it; the judge turns it into a verdict. Only a confident
seat (13 cards in rows of 3/5/5, every card read confidently, no integrity problem) is scored.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kiosk.cards import Card
from kiosk.table.verdict import NeedsCheck


@dataclass(frozen=True, slots=True)
class CardRead:
    """One card position of the stable hand."""

    slot: int
    seat: int | None
    row: str | None
    position: int | None
    card: Card | None  # None: no reading survived (see note)
    confidence: float
    votes: int  # frames whose top reading is `card`
    seen: int  # frames that saw this position (in the window)
    frame_index: int
    box: tuple[float, float, float, float]
    confident: bool
    candidates: tuple[tuple[Card, float], ...] = ()  # (card, mean confidence), best first
    note: str = ""  # "duplicate of seat 2 back 1", "by elimination", "corrected by floor"

    def where(self) -> str:
        if self.seat is None:
            return "off the seats"
        return f"seat {self.seat} {self.row} {self.position + 1}"

    def with_note(self, note: str) -> "CardRead":
        return replace(self, note=note)


@dataclass(frozen=True, slots=True)
class SeatRead:
    seat: int
    dead: bool
    declared: bool  # a natural is declared (by the dealer, or seen as a pile)
    declared_by: str  # "dealer" | "pile" | ""
    pile: bool  # still a pile (natural not spread yet)
    open: bool  # enough cards read to count as opened
    front: tuple[CardRead, ...] = ()
    middle: tuple[CardRead, ...] = ()
    back: tuple[CardRead, ...] = ()
    confidence: float = 0.0  # the weakest card's confidence
    needs_check: tuple[NeedsCheck, ...] = ()
    integrity: tuple[str, ...] = ()

    @property
    def cards(self) -> tuple[CardRead, ...]:
        return self.back + self.middle + self.front

    def row(self, name: str) -> tuple[CardRead, ...]:
        return getattr(self, name)

    @property
    def confident(self) -> bool:
        return not self.needs_check and not self.integrity


@dataclass(frozen=True, slots=True)
class StableHand:
    seats: tuple[SeatRead, ...]
    stray: tuple[CardRead, ...]
    integrity: tuple[str, ...]
    needs_check: tuple[NeedsCheck, ...]
    frames: int  # frames in this hand so far
    layout_since: float  # timestamp since which the layout has not changed
    key_frame: int  # the latest frame that contributed
    layout_frames: int = 1  # frames read since the layout last changed, that one included

    def seat(self, number: int) -> SeatRead:
        return next(s for s in self.seats if s.seat == number)

    @property
    def active(self) -> tuple[SeatRead, ...]:
        return tuple(s for s in self.seats if not s.dead)

    @property
    def all_open(self) -> bool:
        active = self.active
        return bool(active) and all(s.open for s in active)

    @property
    def any_cards(self) -> bool:
        return bool(self.stray) or any(s.cards or s.pile for s in self.seats)
