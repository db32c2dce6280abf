"""Many frames of the same static cards -> one trustworthy read of the hand.

Each physical card position on the felt is a *slot* (`slot.py`). Every frame's readings are
matched to the slots (same card nearby first, then the nearest position); a slot integrates its
last `window_frames` observations into a confidence per card.

Then the deck is enforced across the table: a card claimed by two slots goes to the one
with the stronger evidence, and the other falls back to its next reading (which then must
earn its own confidence); where claims conflict, every slot is settled at once, each card once
(`deck_assignment`). Two slots that both read the same card strongly stay a `duplicate card`
integrity problem and the hand is not scored (the deck's choice is shown, marked). When every
card of the deck is on the table, a single unreadable slot is the one card missing.

Then each position gets its row (`slot_rows.py`) and each seat its read (`seat_read.py`):
confident (13 cards in rows of 3/5/5, every card confident), or `needs dealer check` naming the
doubtful card and its position, or an integrity problem (RULES §7). Only a confident seat is ever
scored, so only a confident seat can be fouled. The result is a `StableHand` (`stable_hand.py`).
"""

from __future__ import annotations

import math

import numpy as np

from kiosk.cards import ROW_SIZES, ROWS, Card
from kiosk.same_card import on_index
from kiosk.table.config import Stabilizer as StabilizerSettings
from kiosk.table.deck_settlement import sole_reads
from kiosk.table.draft import (
    Evidence, by_elimination, card_reads, choose_by_deck, drop_ghosts, integrity_problems, settle, start_draft,
)
from kiosk.table.hidden import HiddenCard, place_hidden, unseen
from kiosk.table.layout import TableGeometry
from kiosk.table.seat_read import read_seat
from kiosk.table.slot import Slot
from kiosk.table.snapshot import (
    GHOST_CONFIDENCE, TRUST_LONE_INDEX, PlacedCard, TableSnapshot, distinct_indices, shows_its_indices,
)
from kiosk.table.stable_hand import CardRead, StableHand

CARD_REACH = 14.0  # a card's diagonal in index widths: 12-14 for the decks measured


class Stabilizer:
    """Accumulates the snapshots of one hand; `read()` gives the stable hand so far."""

    def __init__(self, settings: StabilizerSettings, geometry: TableGeometry):
        self.settings = settings
        self.geometry = geometry
        self.reset()

    def reset(self) -> None:
        self.slots: dict[int, Slot] = {}
        self._next_id = 0
        self.frames = 0
        self.layout_since = 0.0
        self.layout_frame = 0  # the frame count when the layout last changed
        self._signature: tuple = ()
        self.key_frame = -1
        self.pile_since: dict[int, float] = {}
        self.piles_seen: set[int] = set()
        self._card_area = 0.0
        self.last_timestamp = 0.0

    # -- feeding frames ------------------------------------------------------------------
    def update(self, snapshot: TableSnapshot, empty_at=None) -> float:
        """Match this frame's cards to the slots; returns the share of cards that matched."""
        s = self.settings
        self.frames += 1
        now = snapshot.timestamp
        self.last_timestamp = now
        cards = [c for c in snapshot.cards if c.confidence >= s.min_detection_confidence]
        owners = self._owners(cards)
        rest = [i for i in range(len(cards)) if i not in owners]
        matched = {rest[k]: sid for k, sid in self._match([cards[i] for i in rest]).items()}
        hits = 0
        pairs: list[tuple[Slot, tuple]] = []
        for i, card in enumerate(cards):
            if i in owners:  # a known pair's index read alone, or the pair read with a third index
                self.slots[owners[i]].add(card, snapshot.frame_index, now, self.frames,
                                          locates=card.trust == TRUST_LONE_INDEX)
                hits += 1
                continue
            sid = matched.get(i)
            if sid is None:
                slot = Slot(self._next_id, card, self.frames, now, s.window_frames)
                self._next_id += 1
                self.slots[slot.id] = slot
            else:
                slot = self.slots[sid]
                hits += 1
            slot.add(card, snapshot.frame_index, now, self.frames)
            if shows_its_indices(card.corners, card.trust, card.confidence):
                pairs.append((slot, card.corners))
        for slot, corners in pairs:  # once every reading has its slot: a slot read now joins nothing
            self._join_indices(slot, corners, now)
        self.key_frame = snapshot.frame_index
        self._forget(now, empty_at)
        present = self._present()
        for sl in present:
            if sl.seen >= s.min_votes:
                sl.was_present = True
        self._track_piles(now, snapshot)
        signature = tuple(sorted((sl.id, sl.seat) for sl in present if self._settled(sl)))
        if signature != self._signature:
            self._signature = signature
            self.layout_since = now
            self.layout_frame = self.frames
        return hits / len(cards) if cards else 1.0

    def _owners(self, cards: list[PlacedCard]) -> dict[int, int]:
        """Readings of one index alone that lie on an index a whole card's reading paired with
        another (one card, whose two indices another search of a still table read apart); and
        readings of three indices, two of them a known pair read as the same card: that card,
        with a neighbour's index joined to it (seed 1895: anchored at the neighbour's index, it
        took the card's reading away from its place in two frames of six)."""
        out = {}
        paired = [sl for sl in self.slots.values() if sl.indices]
        for i, c in enumerate(cards):
            if c.trust == TRUST_LONE_INDEX:
                sl = next((sl for sl in paired if sl.owns(c.box)), None)
            elif len(indices := distinct_indices(c.corners)) == 3:
                sl = next((sl for sl in paired if sl.best() == c.card and sum(map(sl.owns, indices)) >= 2), None)
            else:
                sl = None
            if sl is not None:
                out[i] = sl.id
        return out

    def _join_indices(self, slot: Slot, corners, now: float) -> None:
        """Slots of an index read alone in other frames, which this frame pairs into `slot`'s
        card, were that card: their readings vote there (seed 1383: a card's lower index read
        alone as 3d took the 3d of another seat; seed 1342: its upper one read as 6c)."""
        for other in list(self.slots.values()):
            if other.id == slot.id or other.trust != TRUST_LONE_INDEX or other.last_seen >= now or not other.obs:
                continue
            if on_index(other.obs[-1].box, corners):
                slot.absorb(other)
                del self.slots[other.id]

    def replaced_by(self, snapshot: TableSnapshot, least: int = 8) -> bool:
        """Does this frame show another deal? Most of its cards are not where the hand's were."""
        cards = [c for c in snapshot.cards if c.confidence >= self.settings.min_detection_confidence]
        if len(cards) < least or len(self._present()) < least:
            return False
        return len(self._match(cards, allow_moved=False)) < 0.25 * len(cards)

    def _match(self, cards: list[PlacedCard], allow_moved: bool = True) -> dict[int, int]:
        """Detection index -> slot id, one to one.

        In order: the same card near its slot (within a card's reach); the same card read
        confidently anywhere else (it was moved: a natural's pile spread, a card pushed back
        into line); then any reading near a slot (a misread of that card, which the votes sort out).
        """
        if not cards or not self.slots:
            return {}
        radius_k = self.settings.match_radius
        slots = list(self.slots.values())
        bests = [sl.best() for sl in slots]
        card_xy = np.array([c.table_xy for c in cards], np.float64)
        slot_xy = np.array([sl.table_xy for sl in slots], np.float64)
        dist = np.hypot(card_xy[:, None, 0] - slot_xy[None, :, 0], card_xy[:, None, 1] - slot_xy[None, :, 1])
        sizes = np.maximum(np.array([c.size for c in cards])[:, None], np.array([sl.size for sl in slots])[None, :])
        radius = radius_k * np.maximum(sizes, 4.0)
        same, near = [], []
        # An index read alone and a whole card's reading of the same card within a card's
        # reach are that one card (the lone one may be its lower index), as one frame's are
        # (`kiosk.same_card`).
        lone_and_whole = np.array([c.trust == TRUST_LONE_INDEX for c in cards])[:, None] != np.array(
            [sl.trust == TRUST_LONE_INDEX for sl in slots])[None, :]
        lone_and_whole &= np.array([c.confidence >= GHOST_CONFIDENCE for c in cards])[:, None]
        reach = np.where(lone_and_whole, np.maximum(2.5 * radius, CARD_REACH * np.maximum(sizes, 4.0)), 2.5 * radius)
        for i, j in zip(*np.nonzero(dist <= reach)):
            d = float(dist[i, j])
            if bests[j] == cards[i].card:
                same.append((d, int(i), slots[j].id))
            elif d <= radius[i, j]:
                near.append((d, int(i), slots[j].id))
        used_det, used_slot, out = set(), set(), {}

        def take(pairs) -> None:
            for _, i, sid in sorted(pairs):
                if i not in used_det and sid not in used_slot:
                    used_det.add(i)
                    used_slot.add(sid)
                    out[i] = sid

        take(same)
        if not allow_moved:
            return out
        moved = []
        for i, c in enumerate(cards):
            if i in used_det or c.confidence < self.settings.min_confidence:
                continue
            for sl, best in zip(slots, bests):
                if sl.id not in used_slot and best == c.card:
                    moved.append((0.0, i, sl.id))
        take(moved)
        take(near)
        return out

    def _forget(self, now: float, empty_at) -> None:
        s = self.settings
        for sid in list(self.slots):
            sl = self.slots[sid]
            unseen = now - sl.last_seen
            young_ghost = sl.seen < s.min_votes and self.frames - sl.first_frame >= 2 * s.min_votes
            if young_ghost and sl.seen * 4 < self.frames - sl.first_frame + 1:
                del self.slots[sid]
            elif unseen > s.forget_seconds and (
                empty_at is None or empty_at(tuple(sl.image_xy)) or unseen > 4 * s.forget_seconds
            ):
                del self.slots[sid]

    def _present(self, final: bool = False) -> list[Slot]:
        """Slots that hold a card: seen often enough, or in most frames since they appeared.

        Once present a slot stays so until it is forgotten (a card a hand covers is still there).
        """
        need = self._min_votes(final)
        out = []
        for sl in self.slots.values():
            if sl.was_present or sl.seen >= need or 2 * sl.seen >= self.frames - sl.first_frame + 1:
                out.append(sl)
        return out

    def _settled(self, sl: Slot) -> bool:
        """Does this slot count in the layout the hold waits on? A card laid down does at once when
        read surely, else once `min_votes` frames read it; a faint reading seen in a frame or two (a
        stray, such as a covered index read as a card) does not restart the hold."""
        if sl.was_present or sl.seen >= self.settings.min_votes:
            return True
        tally = sl.tally()
        return bool(tally) and tally[0][3] / max(1, tally[0][2]) >= self.settings.min_confidence

    def _min_votes(self, final: bool) -> int:
        if final:
            return max(1, min(self.settings.min_votes, math.ceil(self.frames / 2)))
        return self.settings.min_votes

    def _track_piles(self, now: float, snapshot: TableSnapshot) -> None:
        """A seat showing one or two face-up cards close together for a while is a pile.

        Where the felt was measured, the covered patch must also be about one card (a pile),
        not the several card areas of a set hand the reader only half read.
        """
        if snapshot.card_area:
            self._card_area = snapshot.card_area
        card = self._card_area or (0.118 * snapshot.image_size[1]) ** 2 * 0.72
        by_seat: dict[int, list[Slot]] = {}
        for sl in self._present():
            if sl.seat is not None:
                by_seat.setdefault(sl.seat, []).append(sl)
        for seat in self.geometry.seats:
            group = by_seat.get(seat, [])
            compact = 1 <= len(group) <= 2 and (
                len(group) == 1
                or np.hypot(*(group[0].table_xy - group[1].table_xy)) < 3 * max(group[0].size, group[1].size)
            )
            view = next((v for v in snapshot.seats if v.seat == seat), None)
            if view is not None and view.blob and view.blob > 2.5 * card:
                compact = False
            if compact:
                since = self.pile_since.setdefault(seat, now)
                if now - since >= max(self.settings.hold_seconds, 1e-9) or self.frames == 1:
                    self.piles_seen.add(seat)
            else:
                self.pile_since.pop(seat, None)

    # -- reading the hand ----------------------------------------------------------------
    def read(
        self,
        dead: frozenset[int] | set[int] = frozenset(),
        declared: frozenset[int] | set[int] = frozenset(),
        undeclared: frozenset[int] | set[int] = frozenset(),
        corrections: dict | None = None,
        final: bool = False,
    ) -> StableHand:
        """The hand as the frames so far read it: each seat's read (`seat_read`), strays and integrity
        problems. `final`: the hand is over, so positions seen in half its frames count."""
        whole_deck = not dead and len(self.geometry.seats) == 4  # four live seats: the whole deck is down
        present = self._present(final)
        present += sole_reads(self.slots, present, whole_deck)
        ev = Evidence.of(self.settings, {sl.id: sl.tally() for sl in present}, self._min_votes(final), whole_deck)
        draft = start_draft(self.geometry, present, ev, corrections)
        choose_by_deck(draft, ev)
        drop_ghosts(draft, ev, self.geometry, dead, self.settings.open_min_cards)
        settle(draft, ev, self.slots, self.geometry, self.frames, whole_deck)
        by_elimination(draft, ev)
        reads = card_reads(draft, ev)
        integrity = integrity_problems(draft, reads)
        # Hidden cards are named only when the deck is settled: no card still shown twice.
        unsettled = any(a not in draft.reassigned and b not in draft.reassigned for _, a, b in draft.duplicates)
        missing, hidden = self._hidden(reads, dead, declared, undeclared, unsettled)
        by_seat: dict[int | None, list[CardRead]] = {}
        for sl in draft.present:
            by_seat.setdefault(sl.seat, []).append(reads[sl.id])
        seats = []
        laterals = {sid: sl.lateral for sid, sl in self.slots.items()}
        for number in sorted(self.geometry.seats):
            seats.append(read_seat(
                number, by_seat.get(number, []), dead=number in dead,
                declared_by=self._declared_by(number, declared, undeclared),
                open_min_cards=self.settings.open_min_cards, key_frame=self.key_frame, laterals=laterals,
                integrity=integrity, hidden=tuple(h for h in hidden if h.seat == number), missing=missing,
                corrections=corrections))
        return StableHand(
            tuple(seats), tuple(by_seat.get(None, ())), tuple(integrity),
            tuple(c for seat in seats for c in seat.needs_check), self.frames, self.layout_since, self.key_frame,
            self.frames - self.layout_frame + 1
        )

    def _hidden(self, reads: dict[int, CardRead], dead, declared, undeclared, duplicates: bool
                ) -> tuple[tuple[Card, ...], tuple[HiddenCard, ...]]:
        """The deck's cards read nowhere (when the open seats hold the whole deck), and where
        they lie when the short rows leave one way to place them (`kiosk.table.hidden`)."""
        active = [n for n in self.geometry.seats if n not in dead]
        if duplicates or any(self._declared_by(n, declared, undeclared) for n in active):
            return (), ()
        missing = unseen([r.card for r in reads.values() if r.card is not None], len(active))
        if not missing:
            return (), ()
        rows = {(n, row): [] for n in active for row in ROWS}
        for r in sorted(reads.values(), key=lambda r: r.position or 0):
            if r.card is not None and (r.seat, r.row) in rows:
                rows[(r.seat, r.row)].append((r.card, self.slots[r.slot].lateral, r.box))
        return missing, place_hidden(rows, missing, ROW_SIZES)

    def _declared_by(self, number: int, declared, undeclared) -> str:
        if number in declared:
            return "dealer"
        if number in self.piles_seen and number not in undeclared:
            return "pile"
        return ""
