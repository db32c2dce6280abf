"""The hand being read, as a draft that `Stabilizer.read` passes through named steps.

From the positions present (slots with their tallies) to the card each shows:

1. `start_draft`: each position's row, and the floor's corrections that override its reading;
2. `choose_by_deck`: each card once, the strongest positions choosing first;
3. `drop_ghosts`: weak readings whose every candidate lies confidently elsewhere are no cards;
4. `settle`: where readings conflict the deck settles every position at once (`deck_settlement`);
5. `by_elimination`: the whole deck down and one card unaccounted for names the one unsure position;
6. `card_reads` and `integrity_problems`: what the seats are read from, and what stops the hand.

Placing the deck's hidden cards (`kiosk.table.hidden`) and the seats' reads (`seat_read`) follow in
the stabiliser, which holds what they need of earlier frames.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from kiosk.cards import Card, deck
from kiosk.table.config import Stabilizer as StabilizerSettings
from kiosk.table.deck_settlement import FAINT, no_cards, settle_deck
from kiosk.table.layout import TableGeometry
from kiosk.table.slot import Slot
from kiosk.table.slot_rows import slot_rows
from kiosk.table.snapshot import GHOST_CONFIDENCE
from kiosk.table.stable_hand import CardRead

Tally = list[tuple[Card, float, int, float]]  # (card, mass, votes, confidence summed), best first
ELIMINATION_NOTE = "by elimination (the one card of the deck not seen elsewhere)"


@dataclass(frozen=True)
class Evidence:
    """How surely each position reads a card, and the lines a confident reading must pass."""

    tallies: Mapping[int, Tally]
    need: int  # votes a confident card needs
    line: float  # how sure those votes must be
    agreement: float  # the share of a position's frames that must agree

    @classmethod
    def of(cls, settings: StabilizerSettings, tallies: Mapping[int, Tally], need: int, whole_deck: bool) -> Evidence:
        # Less sure where the deck checks every card (with a seat dead and a line of 0.7, a Ks read as
        # Kc at 0.79 in every frame was confidently wrong; with four seats it would have been a
        # duplicate: docs/pipeline.md, the confidence line).
        line = settings.min_confidence
        if whole_deck:
            line = min(settings.min_confidence_whole_deck, settings.min_confidence)
        return cls(tallies, need, line, settings.min_agreement)

    def strength(self, sl: Slot, card: Card) -> tuple[float, int]:
        """The position's confidence in `card` (its mass over the frames that saw it) and its votes."""
        n = max(1, len(sl.obs))
        for c, m, v, _ in self.tallies[sl.id]:
            if c == card:
                return min(1.0, m / n), v
        return 0.0, 0

    def strong(self, sl: Slot, card: Card) -> bool:
        """Read confidently: enough frames agree, they were sure, and no rival comes close."""
        n = max(1, len(sl.obs))
        rows = self.tallies[sl.id]
        mine = next((t for t in rows if t[0] == card), None)
        if mine is None:
            return False
        _, mass, votes, top = mine
        rival = max((t[1] for t in rows if t[0] != card), default=0.0)
        return (
            votes >= self.need
            and votes >= self.agreement * n
            and top / votes >= self.line
            and (mass - rival) / n >= self.line / 2
        )

    def top_share(self, sl: Slot) -> float:
        """The share of the position's frames its first reading holds (0 for a position read as nothing)."""
        t = self.tallies[sl.id]
        return t[0][1] / max(1, len(sl.obs)) if t else 0.0


@dataclass
class Draft:
    """The positions of the hand and the card each shows so far; the steps below refine it."""

    present: list[Slot]
    rows: dict[int, tuple[str | None, int | None]]  # slot id -> (row, position)
    refitted: dict[int, str]  # slot id -> the row a position was moved to
    corrected: dict[int, Card]  # slot id -> the card the floor set
    order: list[Slot] = field(default_factory=list)  # the order positions chose their cards in
    choice: dict[int, Card | None] = field(default_factory=dict)
    owner: dict[Card, int] = field(default_factory=dict)  # card -> the position that shows it
    notes: dict[int, str] = field(default_factory=dict)
    duplicates: list[tuple[Card, int, int]] = field(default_factory=list)  # (card, first holder, second)
    duplicate_slots: set[int] = field(default_factory=set)  # positions in a duplicate when the deck chose
    reassigned: dict[int, tuple[Card | None, str]] = field(default_factory=dict)
    left_out: list[tuple[Card, int, str]] = field(default_factory=list)  # (card, slot kept, where the copy lay)
    given_back: set[int] = field(default_factory=set)  # positions given the card a crowded seat's copy held
    elimination: dict[int, Card] = field(default_factory=dict)

    def without(self, gone: set[int], geometry: TableGeometry, ev: Evidence) -> None:
        """Drop these positions and lay out the rows again."""
        self.present = [sl for sl in self.present if sl.id not in gone]
        self.rows, self.refitted = slot_rows(geometry, self.present, ev.tallies)


def start_draft(geometry: TableGeometry, present: list[Slot], ev: Evidence, corrections: Mapping | None) -> Draft:
    """Each position's row, and the floor's corrections ((seat, row, index) -> card) that override it."""
    rows, refitted = slot_rows(geometry, present, ev.tallies)
    corrected: dict[int, Card] = {}
    for sl in present:
        row, pos = rows[sl.id]
        key = (sl.seat, row, pos)
        if corrections and key in corrections:
            corrected[sl.id] = corrections[key]
    return Draft(list(present), rows, refitted, corrected)


def choose_by_deck(d: Draft, ev: Evidence) -> None:
    """The deck: each card once. Corrections first, then the strongest positions; each takes its
    best reading no other position holds, or a card another holds when both read it strongly (a
    duplicate: an integrity problem, never silently settled)."""
    d.order = sorted(d.present, key=lambda sl: (sl.id not in d.corrected, -ev.top_share(sl), sl.id))
    by_id = {sl.id: sl for sl in d.present}
    for sl in d.order:
        if sl.id in d.corrected:
            card = d.corrected[sl.id]
            d.choice[sl.id] = card
            d.notes[sl.id] = "corrected by floor"
            if card in d.owner:
                d.duplicates.append((card, d.owner[card], sl.id))
            d.owner.setdefault(card, sl.id)
            continue
        chosen = _first_free(sl, d, ev, by_id)
        d.choice[sl.id] = chosen
        if chosen is not None:
            d.owner.setdefault(chosen, sl.id)
    d.duplicate_slots = {a for _, a, _ in d.duplicates} | {b for _, _, b in d.duplicates}
    for card, a, b in d.duplicates:
        d.notes[a] = d.notes[b] = f"duplicate card {card}"


def _first_free(sl: Slot, d: Draft, ev: Evidence, by_id: Mapping[int, Slot]) -> Card | None:
    """The position's best reading that no position chose before it (or holds only as strongly)."""
    for card, mass, _, _ in ev.tallies[sl.id]:
        if mass < FAINT * max(1, len(sl.obs)):
            # read as that only faintly: no choice of this position (seed 1826: stray readings
            # took the Ah, a trace runner-up, from the Ah's own position, read Kh or Ah)
            return None
        if card not in d.owner:
            return card
        holder = by_id[d.owner[card]]
        if ev.strong(sl, card) and (holder.id in d.corrected or ev.strong(holder, card)):
            d.duplicates.append((card, d.owner[card], sl.id))
            return card
        if not d.notes.get(sl.id):
            d.notes[sl.id] = f"read as {card}, which is at {{slot{d.owner[card]}}}"
    return None


def is_ghost(sl: Slot, d: Draft, ev: Evidence) -> bool:
    """A weak reading whose every candidate lies confidently elsewhere is no card: a glint, a chip's
    print, a card's second index read apart. Dropping it can never make a hand confident by
    mistake: a real card dropped leaves its seat a card short (wrong count)."""
    t = ev.tallies[sl.id]
    if sl.id in d.corrected or not t:
        return False
    top_card, _, top_votes, top_mass = t[0]
    lost_it = d.owner.get(top_card) not in (None, sl.id)
    chosen = d.choice[sl.id]
    chosen_conf = ev.strength(sl, chosen)[0] if chosen is not None else 0.0
    return lost_it and top_mass / max(1, top_votes) < GHOST_CONFIDENCE and chosen_conf < GHOST_CONFIDENCE


def drop_ghosts(d: Draft, ev: Evidence, geometry: TableGeometry, dead, open_min_cards: int) -> set[int]:
    """Drop the ghosts (`is_ghost`) but those an open seat needs to hold 13; returns those dropped."""
    ghosts = {sl.id for sl in d.present if is_ghost(sl, d, ev)}
    ghosts -= kept_for_short_seats(ghosts, d, ev, dead, open_min_cards)
    for sl_id in ghosts:
        if d.choice[sl_id] is not None and d.owner.get(d.choice[sl_id]) == sl_id:
            del d.owner[d.choice[sl_id]]
    if ghosts:
        d.without(ghosts, geometry, ev)
    return ghosts


def kept_for_short_seats(ghosts: set[int], d: Draft, ev: Evidence, dead, open_min_cards: int) -> set[int]:
    """Ghosts an (open, live) seat is short without: each is a card, weakly read (the one no other
    position holds it gave weight to, or one the deck settles below), and keeping it fills the seat.
    Short counting the positions that hold a card: one whose every reading lies elsewhere holds none
    (seed 1826). Those that chose a card are kept first; one that chose none is kept too (seed 1390:
    the deck then unwinds a chain of misreads through it)."""
    by_id = {sl.id: sl for sl in d.present}
    kept: set[int] = set()
    for number in {by_id[g].seat for g in ghosts} - {None} - set(dead):
        held = sum(1 for sl in d.present if sl.seat == number and sl.id not in ghosts and d.choice[sl.id] is not None)
        if held < open_min_cards:
            continue
        mine = [g for g in ghosts if by_id[g].seat == number
                and (d.choice[g] is None or d.owner.get(d.choice[g]) == g)]
        mine.sort(key=lambda g: -(ev.strength(by_id[g], d.choice[g])[0] if d.choice[g] is not None else 0.0))
        kept |= set(mine[:max(0, 13 - held)])
    return kept


def settle(d: Draft, ev: Evidence, slots: Mapping[int, Slot], geometry: TableGeometry, frames: int,
           whole_deck: bool) -> None:
    """Where readings conflict, the deck settles every position at once (`deck_assignment`): the
    cards each position shows are the ones its readings favour most with each card once. A position
    shown as other than its own first choice is marked and never confident; a card read strongly
    twice stays an integrity problem (a foreign card would look the same), so nothing is scored
    until the floor looks. Positions that are no cards of this deck leave the hand."""
    d.reassigned = settle_deck(d.present, ev.tallies, d.choice, d.corrected, d.duplicates, d.notes, frames)
    extra, copies = no_cards(slots, d.present, d.choice, d.corrected, d.duplicates, tuple(geometry.seats),
                             frames, whole_deck)
    for card, kept, dropped in copies:
        _leave_out_copy(d, card, kept, dropped, slots[dropped].seat)
    if extra:
        d.without(extra, geometry, ev)
    if d.reassigned:
        here = {sl.id for sl in d.present}
        d.owner = {}
        for sl in d.order:
            if sl.id in here and d.choice[sl.id] is not None:
                d.owner.setdefault(d.choice[sl.id], sl.id)


def _leave_out_copy(d: Draft, card: Card, kept: int, dropped: int, seat: int | None) -> None:
    """A crowded seat's copy of `card` is left out; the position kept shows it when it chose none."""
    row, pos = d.rows[dropped]
    spot = f"seat {seat} {row} {pos + 1}" if row else "off the seats"
    d.left_out.append((card, kept, spot))
    # The copy left out is named by `left_out`, not as a duplicate of a position still shown
    # (seed 5582: the Ad's duplicate, settled by the deck giving its other reader Ah).
    d.duplicates[:] = [x for x in d.duplicates if dropped not in x[1:]]
    if d.choice[kept] is None:
        d.choice[kept] = card
        d.owner[card] = kept
        d.given_back.add(kept)
        d.notes[kept] = f"read as {card}, also read at {spot}, a 14th position there"
        # No position kept shows the card as well: `no_cards` gives a card back only where the
        # positions kept show the whole deck, each card once.


def by_elimination(d: Draft, ev: Evidence) -> None:
    """The whole deck on the table, no duplicate, and exactly one position unsure and one card
    unaccounted for: that position is that card, if any of its readings named it."""
    if len(d.present) != 52 or d.duplicates or d.given_back:
        return
    unsure = [sl for sl in d.present
              if sl.id not in d.corrected and (d.choice[sl.id] is None or not ev.strong(sl, d.choice[sl.id]))]
    unsure_ids = {sl.id for sl in unsure}
    sure_cards = {c for c, sid in d.owner.items() if sid not in unsure_ids}
    missing = [c for c in deck(52) if c not in sure_cards]
    if len(unsure) != 1 or len(missing) != 1:
        return
    sl, card = unsure[0], missing[0]
    if ev.strength(sl, card)[0] <= 0:
        return
    d.elimination[sl.id] = card
    if d.choice[sl.id] is not None and d.owner.get(d.choice[sl.id]) == sl.id:
        del d.owner[d.choice[sl.id]]
    d.choice[sl.id] = card
    d.owner[card] = sl.id
    d.notes[sl.id] = ELIMINATION_NOTE


def card_reads(d: Draft, ev: Evidence) -> dict[int, CardRead]:
    """Each position's read: its card, how sure, the frame and box it was read from, and why not
    confident where it is not; a note's "{slotN}" names that position's place."""
    reads = {sl.id: _card_read(sl, d, ev) for sl in d.present}
    for sid, r in list(reads.items()):
        if "{slot" in r.note:
            other = int(r.note.split("{slot")[1].split("}")[0])
            where = reads[other].where() if other in reads else "another position"
            reads[sid] = r.with_note(r.note.replace(f"{{slot{other}}}", where))
    return reads


def _card_read(sl: Slot, d: Draft, ev: Evidence) -> CardRead:
    card = d.choice[sl.id]
    row, pos = d.rows[sl.id]
    n = max(1, len(sl.obs))
    cands = tuple((c, round(min(1.0, m / n), 4)) for c, m, _, _ in ev.tallies[sl.id][:3])
    if card is None:
        conf, votes, seen = 0.0, 0, sl.obs[-1]
        confident = False
    else:
        conf, votes = ev.strength(sl, card)
        seen = sl.evidence(card) or sl.obs[-1]
        if sl.id in d.corrected:
            conf, confident = 1.0, True
        elif sl.id in d.elimination:
            confident = True
        else:
            doubted = (d.duplicate_slots, d.reassigned, d.refitted, d.given_back)
            confident = ev.strong(sl, card) and not any(sl.id in them for them in doubted)
    note = d.notes.get(sl.id, "")
    if sl.id in d.refitted and not note:
        note = f"read a row off: placed in the {d.refitted[sl.id]} row, where its fan has a gap"
    return CardRead(sl.id, sl.seat, row, pos, card, round(conf, 4), votes, len(sl.obs), seen.frame_index, seen.box,
                    confident, cands, note)


def integrity_problems(d: Draft, reads: Mapping[int, CardRead]) -> list[str]:
    """What stops the hand being scored (RULES §7): a card shown twice, more cards than a deck."""
    out: list[str] = []
    for card, a, b in d.duplicates:
        at = [reads[x].where() + (f" (shown as {d.reassigned[x][0]}, {d.reassigned[x][1]})"
                                  if x in d.reassigned and d.reassigned[x][0] is not None else "") for x in (a, b)]
        out.append(f"duplicate card: {card} at {at[0]} and {at[1]}")
    for card, kept, spot in d.left_out:
        out.append(f"duplicate card: {card} at {reads[kept].where()} and at {spot}, "
                   "a 14th position there: left out of its seat")
    if len(d.present) > 52:
        out.append(f"wrong card count: {len(d.present)} cards on the table (a deck has 52)")
    return out
