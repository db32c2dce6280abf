"""One seat of the stable hand: its rows, whether it is open, and what the dealer must check.

A seat is confident only with 13 cards in rows of 3/5/5, each read confidently. Otherwise each
doubtful card is named with its place (`needs dealer check`), a card the deck says can only lie
here joins its row as `not seen`, and a wrong count is an integrity problem (RULES §7).
"""

from __future__ import annotations

import numpy as np

from kiosk.cards import ROW_SIZES, ROWS, Card
from kiosk.table.hidden import GAP, HiddenCard, where
from kiosk.table.stable_hand import CardRead, SeatRead
from kiosk.table.verdict import NeedsCheck


def read_seat(number: int, group: list[CardRead], *, dead: bool, declared_by: str, open_min_cards: int,
              key_frame: int, laterals: dict[int, float], integrity: list[str], hidden: tuple[HiddenCard, ...] = (),
              missing: tuple[Card, ...] = (), corrections: dict | None = None) -> SeatRead:
    """One seat of the stable hand from its card positions read (`group`). `laterals`: where each
    position lies along its row (slot id -> lateral); `integrity`: the table's problems, to which a
    seat's wrong count is added; `hidden`: the cards read nowhere that can only lie at this seat,
    `missing` all the deck's cards read nowhere."""
    by_row = {r: tuple(sorted((c for c in group if c.row == r), key=lambda c: c.position)) for r in ROWS}
    n = len(group)
    pile = bool(declared_by) and n < open_min_cards and n > 0
    is_open = n >= open_min_cards
    confidence = min((c.confidence for c in group), default=0.0)
    if dead:
        return SeatRead(number, True, False, "", False, False, **by_row, confidence=confidence)
    checks = _doubtful(number, group)
    seat_integrity = [problem for problem in integrity if f"seat {number} " in problem]
    confirmed = _join_hidden(number, by_row, hidden, missing, corrections or {}, key_frame, checks)
    if is_open and n + confirmed != 13:
        seat_integrity.append(f"wrong card count: seat {number} has {n + confirmed} cards")
        integrity.append(seat_integrity[-1])
        if n < 13 and not hidden:
            left = f" (read nowhere: {', '.join(map(str, missing))})" if missing else ""
            checks += [NeedsCheck(number, f"no card read between {gap}: a hidden card?{left}")
                       for gap in _gaps(by_row, laterals)]
    if is_open and n + confirmed == 13 and not declared_by:
        counts = {r: len(by_row[r]) for r in ROWS}
        if any(counts[r] != ROW_SIZES[r] for r in ROWS):
            checks.append(NeedsCheck(
                number,
                f"rows read as front {counts['front']}, middle {counts['middle']}, back {counts['back']}"
                " (3/5/5 expected)",
            ))
    return SeatRead(
        number, False, bool(declared_by), declared_by, pile, is_open, **by_row,
        confidence=confidence, needs_check=tuple(checks), integrity=tuple(seat_integrity),
    )


def _doubtful(number: int, group: list[CardRead]) -> list[NeedsCheck]:
    """Each card not read confidently, in row order, named as read (or its best candidate); a
    duplicate is the table's integrity problem, not the seat's check."""
    checks = []
    for c in sorted(group, key=lambda c: (ROWS.index(c.row) if c.row else 9, c.position or 0)):
        if c.confident or c.note.startswith("duplicate"):
            continue
        named = c.card if c.card else (c.candidates[0][0] if c.candidates else None)
        checks.append(NeedsCheck(number, doubt(c), None if named is None else str(named)))
    return checks


def _join_hidden(number: int, by_row: dict[str, tuple[CardRead, ...]], hidden: tuple[HiddenCard, ...],
                 missing: tuple[Card, ...], corrections: dict, key_frame: int, checks: list[NeedsCheck]) -> int:
    """A card read nowhere that can only lie here joins its row (last: a row is a set) as `not
    seen`, and the dealer is asked to look; once the floor confirms it, it counts as read.
    Returns how many the floor confirmed."""
    confirmed = 0
    for k, h in enumerate(hidden):
        row = by_row[h.row]
        read = sum(1 for c in row if c.card is not None and c.slot >= 0)
        index = sum(1 for c in row if c.card is not None)  # its place in the showdown's row
        ok = corrections.get((number, h.row, index)) == h.card
        confirmed += ok
        if not ok:
            others = [str(c) for c in missing if c != h.card]
            checks.append(NeedsCheck(
                number,
                f"no card read {where(h, read)}: by elimination it is {h.card}, the deck's "
                + (f"cards read nowhere being {h.card} and {', '.join(others)}" if others
                   else "one card read nowhere")
                + " (check it lies there)",
                str(h.card),
            ))
        by_row[h.row] = row + (CardRead(
            -1 - k, number, h.row, index, h.card, 1.0 if ok else 0.0, 0, 0, key_frame, h.box, ok, (),
            "confirmed by floor (not read)" if ok else "not seen: by elimination",
        ),)
    return confirmed


def _gaps(by_row: dict[str, tuple[CardRead, ...]], laterals: dict[int, float]) -> list[str]:
    """Where a short row has room for a card between two it read ("back 2 and back 3").

    A card whose indices are all covered is not read at all, so the row just looks
    short; the spacing of the cards around it says where it lies (a dealer looks there).
    """
    along = {r: [laterals[c.slot] for c in cards if c.slot in laterals] for r, cards in by_row.items()}
    steps = [b - a for xs in along.values() for a, b in zip(xs, xs[1:])]
    if len(steps) < 3:
        return []
    pitch = float(np.median(steps))
    out = []
    for row, xs in along.items():
        if len(xs) < ROW_SIZES[row] and len(xs) == len(by_row[row]):
            out += [f"{row} {i + 1} and {row} {i + 2}" for i, (a, b) in enumerate(zip(xs, xs[1:]))
                    if b - a > GAP * pitch]
    return out


def doubt(c: CardRead) -> str:
    """What the dealer is asked to check about a card not read confidently."""
    where = f"card at {c.row} {c.position + 1}" if c.row else "card"
    others = [str(card) for card, conf in c.candidates if card != c.card and conf > 0.05][:1]
    if c.card is None:
        base = f"{where} unreadable"
        return f"{base} ({c.note})" if c.note else base
    reading = f"read as {c.card}" + (f" or {others[0]}" if others else "")
    detail = f"confidence {c.confidence:.2f}, {c.votes} of {c.seen} frames"
    if c.note and "duplicate" not in c.note:
        detail += f"; {c.note}"
    return f"{where} {reading} ({detail})"
