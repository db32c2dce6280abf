"""The deck across the table: each card once, and the positions that are no card at all.

A card claimed by two positions goes where the readings favour it most, every position settled at
once (`deck_assignment`); a seat of more than 13 positions holds one that is no card (a court
card's picture, a pip or a card's far index read as a card), which leaves when the rest is the
whole deck; a card read surely once that no counted position shows still counts. Used by the
stabiliser's `read`; functions of the slots, no I/O.
"""

from __future__ import annotations

from collections import Counter

from kiosk.cards import Card, deck
from kiosk.deck_assignment import assign_cards
from kiosk.table.slot import Slot

LAST_CARD = "the deck's one card read nowhere"  # why a position shows the one card the deck has left
FAINT = 0.05  # a card this weakly among a position's readings is no choice of it
SURER = 0.05  # of two positions reading one card, the surer reads it this much more surely a frame
SOLE_SURE = 0.9  # a position read too seldom to count still holds the card the table lacks, read this surely


def sole_reads(slots: dict[int, Slot], present: list[Slot], whole_deck_down: bool) -> list[Slot]:
    """Positions read too seldom to count, each the one reading anywhere of a card that no
    counted position shows, read surely every time (seed 2980: a Qc read once in six frames at
    0.99; the seat's rows had taken a card's far index, read as a second Kc, in its place). Only
    at a table of four live seats (`whole_deck_down`): that card lies somewhere."""
    if not whole_deck_down:
        return []
    counted = {sl.id for sl in present}
    shown = {sl.best() for sl in present}
    others = [sl for sl in slots.values() if sl.id not in counted and sl.seat is not None and sl.tally()]
    once = Counter(sl.best() for sl in others)
    return [sl for sl in others if sl.best() not in shown and once[sl.best()] == 1
            and sl.tally()[0][3] / max(1, sl.tally()[0][2]) >= SOLE_SURE]


def no_cards(slots: dict[int, Slot], present: list[Slot], choice: dict, corrected: dict, duplicates: list,
             seats: tuple[int, ...], frames: int, whole_deck_down: bool
             ) -> tuple[set[int], list[tuple[Card, int, int]]]:
    """A seat's positions beyond 13 that are no cards of this deck (a court card's picture, a pip
    read as an index), which would throw the seat's rows: those the deck left without a card, and
    those whose card a surer reading holds at a seat of 13 (seed 1819: a pip read as 9d, every
    frame, beside a row; the 9d lay at another seat) or reads more surely there, or, anchored
    alike, reads more surely at this seat or another (seeds 2328, 2336). Only when the rest is
    the whole deck, each card once, 13 in each of four seats (`whole_deck_down`; `frames`: the
    stabiliser's frame count). Also a crowded seat's position
    holding a card that a position of a seat of 13, left with none, read first (seeds 2413,
    2703). Returns the positions and, for the last two kinds, (card, the position kept, the one
    left out): still a duplicate for the floor to look at."""
    crowded = crowded_seats(present)
    if not crowded or not whole_deck_down:
        return set(), []
    extra = {sl.id for sl in present if sl.seat in crowded and choice[sl.id] is None and sl.id not in corrected}

    copies = []
    twice = [(card, a, b) for card, a, b in duplicates if choice[a] == card == choice[b]]  # not settled
    for card, a, b in twice:
        for kept, dropped in ((a, b), (b, a)):
            k, d = slots[kept], slots[dropped]
            if d.seat not in crowded or dropped in corrected:
                continue
            # the copy anchored or read less surely than at a seat of 13 (seeds 1819, 2455); or,
            # anchored alike, the one read less surely (seeds 2328, 2336: a card's far index,
            # partly covered, read as a card lying elsewhere)
            less_sure = d.weights(frames).get(card, 0.0) < k.weights(frames).get(card, 0.0) - SURER
            if k.seat not in crowded and (d.trust < k.trust or less_sure) or d.trust == k.trust and less_sure:
                copies.append((card, kept, dropped))
    if len(copies) != len(twice):
        return set(), []
    extra |= {d for _, _, d in copies}
    # A card a crowded seat's position holds that a position of a seat of 13, left with no card,
    # read first: the crowded seat's copy goes (seeds 2413, 2703: a card's lower index, between
    # two rows, read as the card of another seat). Returned as (card, kept, left out) too.
    holder = {choice[sl.id]: sl for sl in present if choice[sl.id] is not None}
    unread = Counter(sl.best() for sl in present if choice[sl.id] is None)
    for k in present:
        d = holder.get(k.best())
        if (choice[k.id] is None and k.seat is not None and k.seat not in crowded and k.id not in corrected
                and unread[k.best()] == 1 and d is not None and d.seat in crowded and d.id not in corrected
                and d.id not in extra):
            copies.append((k.best(), k.id, d.id))
            extra.add(d.id)
    rest = [sl for sl in present if sl.id not in extra]
    shown = {choice[sl.id] for sl in rest} | {card for card, kept, _ in copies if choice[kept] is None}
    per_seat = Counter(sl.seat for sl in rest)
    whole = len(rest) == 52 and len(shown - {None}) == 52 and all(per_seat[n] == 13 for n in seats)
    return (extra, copies) if extra and whole else (set(), [])


def settle_deck(present: list[Slot], tallies: dict, choice: dict, corrected: dict, duplicates: list, notes: dict,
                frames: int) -> dict[int, tuple[Card | None, str]]:
    """Give each position the card of the best whole-deck assignment where that differs from
    the one-at-a-time choice (`choice` and `notes` are changed in place); returns slot id ->
    (card shown, why) for the positions changed."""
    live = [sl for sl in present if sl.id not in corrected]
    conflict = duplicates or any(choice[sl.id] != (tallies[sl.id][0][0] if tallies[sl.id] else None) for sl in live)
    if not conflict:
        return {}
    duplicate_of = {}
    for card, a, b in duplicates:
        duplicate_of[a], duplicate_of[b] = (card, b), (card, a)
    taken = set(corrected.values())
    shown = {choice[sl.id] for sl in present}
    unread = [c for c in deck(52) if c not in taken and c not in shown]
    # A seat of more than 13 holds a position that is no card: there a card read only faintly
    # is no claim (seed 3021: a card's far index, read 5s or 6s, took the 8s it read at 0.04 a
    # frame from the seat of 13 whose position read it at 0.01 beside two cards held elsewhere),
    # unless the position reads a card strongly read elsewhere too: a card misread, whose faint
    # readings may name it (seed 2886: a 6d read as Td).
    crowded = crowded_seats(present)
    weights = {sl.id: {c: w for c, w in sl.weights(frames).items()
                       if w >= FAINT or sl.seat not in crowded or sl.id in duplicate_of}
               for sl in live}
    assigned = assign_cards(weights, [c for c in deck(52) if c not in taken])
    changed: dict[int, tuple[Card | None, str]] = {}
    for sl in live:
        new = assigned[sl.id]
        if new != choice[sl.id] and not (new is None and sl.id in duplicate_of):
            # (a card read strongly twice with no other reading stays shown where it was read)
            last_one = len(present) == 52 and unread == [new]
            changed[sl.id] = (new, LAST_CARD if last_one else "its other reading")
            choice[sl.id] = new
    holder = {choice[sl.id]: sl.id for sl in present if choice[sl.id] is not None}
    for sl in live:
        if sl.id in duplicate_of and sl.id not in changed:
            continue  # "duplicate card ..."
        top = tallies[sl.id][0][0] if tallies[sl.id] else None
        if sl.id in duplicate_of:
            card, other = duplicate_of[sl.id]
            new, why = changed[sl.id]
            notes[sl.id] = f"read as {card}, which is also read at {{slot{other}}}: " + (
                f"by elimination {why}" if why == LAST_CARD else f"shown as {why}")
        elif holder.get(top, sl.id) != sl.id:
            notes[sl.id] = f"read as {top}, which is at {{slot{holder[top]}}}"
        else:
            notes.pop(sl.id, None)
    return changed


def crowded_seats(present: list[Slot]) -> set[int]:
    """Seats holding more than 13 positions: one of them at least is no card."""
    counts = Counter(sl.seat for sl in present)
    return {n for n, k in counts.items() if n is not None and k > 13}
