"""Many frames of the same static cards -> one trustworthy read of the hand.

Each physical card position on the felt is a *slot*. Every frame's readings are matched
to the slots (same card nearby first, then the nearest position); a slot keeps its last
`window_frames` observations. Reading a slot integrates them: each frame gives its top
reading its confidence and the reader's runner-up (`alternatives`) its confidence, so a
slot's confidence for a card is the mean over the frames that saw the slot (a frame that
read something else counts as 0 for it).

Then the deck is enforced across the table: a card claimed by two slots goes to the one
with the stronger evidence, and the other falls back to its next reading (which then must
earn its own confidence); where claims conflict, every slot is settled at once, each card once
(`deck_assignment`). Two slots that both read the same card strongly stay a `duplicate card`
integrity problem and the hand is not scored (the deck's choice is shown, marked). When every
card of the deck is on the table, a single unreadable slot is the one card missing.

Per seat: confident (13 cards in rows of 3/5/5, every card confident), or `needs dealer
check` naming the doubtful card and its position, or an integrity problem (RULES §7).
Only a confident seat is ever scored, so only a confident seat can be fouled.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from dataclasses import dataclass

import numpy as np

from kiosk.cards import Card, deck
from kiosk.table.config import Stabilizer as StabilizerSettings
from kiosk.table.deck_assignment import assign_cards
from kiosk.table.hidden import GAP, HiddenCard, place_hidden, unseen, where
from kiosk.table.layout import ROW_SIZES, ROWS, TableGeometry, refit_rows
from kiosk.table.snapshot import (
    GHOST_CONFIDENCE, TRUST_CARD, TRUST_LONE_INDEX, PlacedCard, TableSnapshot, assign_rows, distinct_indices, on_index,
    shows_its_indices,
)
from kiosk.table.verdict import NeedsCheck
from kiosk.vision.geometry import box_center

ALTERNATIVE_WEIGHT = 1.0  # how much a runner-up reading counts relative to a top reading
LAST_CARD = "the deck's one card read nowhere"  # why a position shows the one card the deck has left
CARD_REACH = 14.0  # a card's diagonal in index widths: 12-14 for the decks measured
FAINT = 0.05  # a card this weakly among a position's readings is no choice of it
SURER = 0.05  # of two positions reading one card, the surer reads it this much more surely a frame
SOLE_SURE = 0.9  # a position read too seldom to count still holds the card the table lacks, read this surely


@dataclass(slots=True)
class Observation:
    frame_index: int
    timestamp: float
    card: Card
    confidence: float
    alternatives: tuple[tuple[Card, float], ...]
    box: tuple[float, float, float, float]
    tick: int  # the stabiliser's frame count when it was made (frames may be dropped: indices jump)


class Slot:
    """One physical card position, followed across frames."""

    __slots__ = ("id", "seat", "table_xy", "image_xy", "size", "depth", "lateral", "trust", "places", "pending",
                 "indices", "obs", "first_frame", "seen", "last_seen", "first_seen", "was_present", "_votes", "_tally")

    def __init__(self, sid: int, placed: PlacedCard, frame_number: int, timestamp: float, window: int):
        self.id = sid
        self.seat = placed.seat
        self.table_xy = np.array(placed.table_xy, np.float64)
        self.image_xy = np.array(_center(placed.box), np.float64)
        self.size = placed.size
        self.depth = placed.depth
        self.lateral = placed.lateral
        self.trust = placed.trust
        self.places: deque[PlacedCard] = deque(maxlen=window)  # where the readings put the card
        self.pending: PlacedCard | None = None  # the last reading far from the slot
        self.indices: tuple = ()  # the card's index boxes, as a whole card's reading paired them
        self.obs: deque[Observation] = deque(maxlen=window)
        self._votes = _Votes()
        self.first_frame = frame_number
        self.first_seen = timestamp
        self.seen = 0
        self.last_seen = timestamp
        self.was_present = False
        self._tally: list | None = None

    def add(self, placed: PlacedCard, frame_index: int, timestamp: float, tick: int, locates: bool = True) -> None:
        """One more reading of the card; `locates` False: a vote only, its anchor says nothing of
        where the card lies."""
        if locates and self._place(placed) and shows_its_indices(placed.corners, placed.trust, placed.confidence):
            self.indices = placed.corners
        if not self.seen or timestamp != self.last_seen:
            self.seen += 1
        if len(self.obs) == self.obs.maxlen:
            self._votes.add(self.obs[0], -1)  # about to leave the window
        o = Observation(frame_index, timestamp, placed.card, placed.confidence, placed.alternatives, placed.box, tick)
        self.obs.append(o)
        self._votes.add(o)
        self.last_seen = timestamp
        self._tally = None

    def absorb(self, other: "Slot") -> None:
        """Another slot was one of this card's indices read alone: its readings vote here."""
        merged = sorted(list(self.obs) + list(other.obs), key=lambda o: o.frame_index)
        self.obs = deque(merged, maxlen=self.obs.maxlen)
        self._votes = _Votes(self.obs)
        self.seen = max(self.seen, other.seen)
        self.first_frame = min(self.first_frame, other.first_frame)
        self.first_seen = min(self.first_seen, other.first_seen)
        self.was_present = self.was_present or other.was_present
        self._tally = None

    def owns(self, box) -> bool:
        """Is this box one of the card's indices (as a whole card's reading paired them)?"""
        return on_index(box, self.indices)

    def _place(self, placed: PlacedCard) -> bool:
        """Where the card lies: where most of its readings put it, weighed by how far each
        anchor is trusted (`anchor_trust`). False: the reading lies elsewhere than the card.

        Readings of a still card may disagree: in some of the detector's searches a card is
        found by its lower index alone, or its index is paired with a neighbour's, and those
        readings come and go. A card moved is seen at its new place frame after frame: two
        sure readings in a row far from the slot move it there at once (a weak one far off says
        nothing of where the card lies).
        """
        far = 3 * max(self.size, placed.size)
        if self.places and np.hypot(*(self.table_xy - np.array(placed.table_xy))) > far:
            if placed.confidence < GHOST_CONFIDENCE:
                return False
            if self.pending is not None and np.hypot(
                *(np.array(self.pending.table_xy) - np.array(placed.table_xy))
            ) <= far:
                self.places.clear()  # the card moved: where it was no longer counts,
                self.indices = ()  # nor where its indices were
                self.places.append(self.pending)
            self.pending = placed
        else:
            self.pending = None
        self.places.append(placed)
        xy = np.array([p.table_xy for p in self.places], np.float64)
        trust = np.array([p.trust for p in self.places], np.float64)
        sizes = np.array([p.size for p in self.places], np.float64)
        near = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1]) <= 1.5 * np.maximum(
            sizes[:, None], sizes[None, :])
        support = near @ trust
        best = len(support) - 1 - int(np.argmax(support[::-1]))  # the latest of the best supported
        members = [p for p, m in zip(self.places, near[best]) if m]
        weights = np.array([p.trust for p in members], np.float64)
        weights /= weights.sum()
        self.table_xy = weights @ np.array([p.table_xy for p in members], np.float64)
        self.image_xy = weights @ np.array([_center(p.box) for p in members], np.float64)
        self.size = float(weights @ np.array([p.size for p in members]))
        self.depth = float(weights @ np.array([p.depth for p in members]))
        self.lateral = float(weights @ np.array([p.lateral for p in members]))
        self.trust = max(p.trust for p in members)
        if self.places[best].seat is not None:
            self.seat = self.places[best].seat
        return bool(np.hypot(*(self.table_xy - np.array(placed.table_xy))) <= far)

    def tally(self) -> list[tuple[Card, float, int, float]]:
        """(card, mass, top votes, top mass) best first.

        mass / len(obs) is the card's mean confidence over the frames that saw the slot
        (runner-up readings included); top mass / top votes the mean confidence of the
        frames whose first reading it was.
        """
        if self._tally is None:
            self._tally = self._votes.ranked()
        return self._tally

    def best(self) -> Card | None:
        t = self.tally()
        return t[0][0] if t else None

    def evidence(self, card: Card) -> Observation | None:
        """The most confident frame that read this card here."""
        best = None
        for o in self.obs:
            if o.card == card and (best is None or o.confidence > best.confidence):
                best = o
        return best


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


class _Votes:
    """A slot's running tally of the observations in its window: per card the confidence given to
    it (mass, runner-up readings included), and the votes and mass of the frames that read it first.
    Kept as observations come and go, so a frame costs the slot one observation, not its window."""

    __slots__ = ("mass", "top", "votes", "refs")

    def __init__(self, observations=()):
        self.mass: dict[Card, float] = {}
        self.top: dict[Card, float] = {}
        self.votes: Counter[Card] = Counter()
        self.refs: Counter[Card] = Counter()  # observations giving the card any weight
        for o in observations:
            self.add(o)

    def add(self, o: Observation, sign: int = 1) -> None:
        """Count an observation in (sign 1) or out (sign -1)."""
        self._put(o.card, o.confidence, sign, first=True)
        for alt, conf in o.alternatives:
            if alt != o.card:
                self._put(alt, ALTERNATIVE_WEIGHT * conf, sign, first=False)

    def _put(self, card: Card, weight: float, sign: int, first: bool) -> None:
        self.refs[card] += sign
        if not self.refs[card]:  # no observation left for it: drop it whole, not a rounding residue
            for table in (self.mass, self.top, self.votes, self.refs):
                table.pop(card, None)
            return
        self.mass[card] = self.mass.get(card, 0.0) + sign * weight
        if first:
            self.votes[card] += sign
            if self.votes[card]:
                self.top[card] = self.top.get(card, 0.0) + sign * weight
            else:
                self.votes.pop(card)
                self.top.pop(card, None)

    def ranked(self) -> list[tuple[Card, float, int, float]]:
        """(card, mass, top votes, top mass), best first (masses equal to within 1e-9 count as a tie)."""
        return sorted(((c, m, self.votes[c], self.top.get(c, 0.0)) for c, m in self.mass.items()),
                      key=lambda t: (-round(t[1], 9), -t[2], str(t[0])))


def _center(box) -> tuple[float, float]:
    return ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


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
        signature = tuple(sorted((sl.id, sl.seat) for sl in present))
        if signature != self._signature:
            self._signature = signature
            self.layout_since = now
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
        # (`snapshot._one_card_one_reading`).
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

    def _sole_reads(self, present: list[Slot], dead) -> list[Slot]:
        """Positions read too seldom to count, each the one reading anywhere of a card that no
        counted position shows, read surely every time (seed 2980: a Qc read once in six frames at
        0.99; the seat's rows had taken a card's far index, read as a second Kc, in its place). Only
        at a table of four live seats, where the whole deck is down: that card lies somewhere."""
        if dead or len(self.geometry.seats) != 4:
            return []
        counted = {sl.id for sl in present}
        shown = {sl.best() for sl in present}
        others = [sl for sl in self.slots.values() if sl.id not in counted and sl.seat is not None and sl.tally()]
        once = Counter(sl.best() for sl in others)
        return [sl for sl in others if sl.best() not in shown and once[sl.best()] == 1
                and sl.tally()[0][3] / max(1, sl.tally()[0][2]) >= SOLE_SURE]

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
        s = self.settings
        need = self._min_votes(final)
        present = self._present(final)
        present += self._sole_reads(present, dead)
        tallies = {sl.id: sl.tally() for sl in present}
        rows, refitted = self._rows(present, tallies)  # refitted: positions moved a row (slot id -> row)
        # Corrections by the floor (seat, row, index) -> card text: they override the reading.
        corrected: dict[int, Card] = {}
        for sl in present:
            row, pos = rows[sl.id]
            key = (sl.seat, row, pos)
            if corrections and key in corrections:
                corrected[sl.id] = corrections[key]

        def strength(sl: Slot, card: Card) -> tuple[float, int]:
            n = max(1, len(sl.obs))
            for c, m, v, _ in tallies[sl.id]:
                if c == card:
                    return min(1.0, m / n), v
            return 0.0, 0

        def strong(sl: Slot, card: Card) -> bool:
            """Read confidently: enough frames agree, they were sure, and no rival comes close."""
            n = max(1, len(sl.obs))
            rows = tallies[sl.id]
            mine = next((t for t in rows if t[0] == card), None)
            if mine is None:
                return False
            _, mass, votes, top = mine
            rival = max((t[1] for t in rows if t[0] != card), default=0.0)
            return (
                votes >= need
                and votes >= s.min_agreement * n
                and top / votes >= s.min_confidence
                and (mass - rival) / n >= s.min_confidence / 2
            )

        # The deck: each card once. Strongest slots choose first.
        order = sorted(
            present,
            key=lambda sl: (sl.id not in corrected, -(tallies[sl.id][0][1] / max(1, len(sl.obs))) if tallies[sl.id] else 0.0, sl.id),
        )
        owner: dict[Card, int] = {}
        choice: dict[int, Card | None] = {}
        notes: dict[int, str] = {}
        duplicates: list[tuple[Card, int, int]] = []
        for sl in order:
            if sl.id in corrected:
                card = corrected[sl.id]
                choice[sl.id] = card
                notes[sl.id] = "corrected by floor"
                if card in owner:
                    duplicates.append((card, owner[card], sl.id))
                owner.setdefault(card, sl.id)
                continue
            chosen = None
            for card, mass, votes, _ in tallies[sl.id]:
                if mass < FAINT * max(1, len(sl.obs)):
                    # read as that only faintly: no choice of this position (seed 1826: stray readings
                    # took the Ah, a trace runner-up, from the Ah's own position, read Kh or Ah)
                    break
                if card not in owner:
                    chosen = card
                    break
                holder = self.slots[owner[card]]
                if strong(sl, card) and (holder.id in corrected or strong(holder, card)):
                    duplicates.append((card, owner[card], sl.id))
                    chosen = card
                    break
                if not notes.get(sl.id):
                    notes[sl.id] = f"read as {card}, which is at {{slot{owner[card]}}}"
            choice[sl.id] = chosen
            if chosen is not None:
                owner.setdefault(chosen, sl.id)
        duplicate_slots = {a for _, a, _ in duplicates} | {b for _, _, b in duplicates}
        for card, a, b in duplicates:
            notes[a] = notes[b] = f"duplicate card {card}"

        # A weak reading whose every candidate lies confidently elsewhere is no card: a glint, a
        # chip's print, a card's second index read apart. Dropping it can never make a hand
        # confident by mistake: a real card dropped leaves its seat a card short (wrong count).
        def ghost(sl: Slot) -> bool:
            t = tallies[sl.id]
            if sl.id in corrected or not t:
                return False
            top_card, _, top_votes, top_mass = t[0]
            lost_it = owner.get(top_card) not in (None, sl.id)
            chosen = choice[sl.id]
            chosen_conf = strength(sl, chosen)[0] if chosen is not None else 0.0
            return lost_it and top_mass / max(1, top_votes) < GHOST_CONFIDENCE and chosen_conf < GHOST_CONFIDENCE

        ghosts = {sl.id for sl in present if ghost(sl)}
        # ... unless its (open, live) seat is short without it: then it is a card, weakly read (the one
        # no other position holds it gave weight to, or one the deck settles below), and keeping it
        # fills the seat. Short counting the positions that hold a card: one whose every reading lies
        # elsewhere holds none (seed 1826). Those that chose a card are kept first; one that chose none
        # is kept too (seed 1390: the deck then unwinds a chain of misreads through it).
        for number in {self.slots[g].seat for g in ghosts} - {None} - set(dead):
            held = sum(1 for sl in present if sl.seat == number and sl.id not in ghosts and choice[sl.id] is not None)
            if held < s.open_min_cards:
                continue
            mine = [g for g in ghosts if self.slots[g].seat == number
                    and (choice[g] is None or owner.get(choice[g]) == g)]
            mine.sort(key=lambda g: -(strength(self.slots[g], choice[g])[0] if choice[g] is not None else 0.0))
            ghosts -= set(mine[:max(0, 13 - held)])
        for sl_id in ghosts:
            if choice[sl_id] is not None and owner.get(choice[sl_id]) == sl_id:
                del owner[choice[sl_id]]
        if ghosts:
            present = [sl for sl in present if sl.id not in ghosts]
            rows, refitted = self._rows(present, tallies)

        # Where readings conflict, the deck settles every position at once (`deck_assignment`):
        # the cards each position shows are the ones its readings favour most with each card once.
        # A position shown as other than its own first choice is marked and never confident; a
        # card read strongly twice stays an integrity problem (a foreign card would look the same),
        # so nothing is scored until the floor looks.
        reassigned = self._settle_deck(present, tallies, choice, corrected, duplicates, notes)
        extra, copies = self._no_cards(present, choice, corrected, duplicates, dead)
        left_out = []  # (card, the slot kept, where the copy left out was read)
        given_back = set()  # positions given the card a crowded seat's copy held
        for card, kept, dropped in copies:
            row, pos = rows[dropped]
            spot = f"seat {self.slots[dropped].seat} {row} {pos + 1}" if row else "off the seats"
            left_out.append((card, kept, spot))
            if choice[kept] is None:
                choice[kept] = card
                owner[card] = kept
                given_back.add(kept)
                notes[kept] = f"read as {card}, also read at {spot}, a 14th position there"
            else:
                duplicates.remove(next(d for d in duplicates if d[0] == card and dropped in d[1:]))
        if extra:
            present = [sl for sl in present if sl.id not in extra]
            rows, refitted = self._rows(present, tallies)
        by_seat = {}
        for sl in present:
            by_seat.setdefault(sl.seat, []).append(sl)
        if reassigned:
            here = {sl.id for sl in present}
            owner = {}
            for sl in order:
                if sl.id in here and choice[sl.id] is not None:
                    owner.setdefault(choice[sl.id], sl.id)

        # Elimination: the whole deck on the table and exactly one card unaccounted for.
        elimination: dict[int, Card] = {}
        if len(present) == 52 and not duplicates and not given_back:
            unsure = [sl for sl in present if sl.id not in corrected and (choice[sl.id] is None or not strong(sl, choice[sl.id]))]
            unsure_ids = {sl.id for sl in unsure}
            sure_cards = {c for c, sid in owner.items() if sid not in unsure_ids}
            missing = [c for c in deck(52) if c not in sure_cards]
            if len(unsure) == 1 and len(missing) == 1:
                sl, card = unsure[0], missing[0]
                if strength(sl, card)[0] > 0:
                    elimination[sl.id] = card
                    if choice[sl.id] is not None and owner.get(choice[sl.id]) == sl.id:
                        del owner[choice[sl.id]]
                    choice[sl.id] = card
                    owner[card] = sl.id
                    notes[sl.id] = "by elimination (the one card of the deck not seen elsewhere)"

        reads: dict[int, CardRead] = {}
        for sl in present:
            card = choice[sl.id]
            row, pos = rows[sl.id]
            n = max(1, len(sl.obs))
            cands = tuple((c, round(min(1.0, m / n), 4)) for c, m, _, _ in tallies[sl.id][:3])
            if card is None:
                conf, votes, ev = 0.0, 0, sl.obs[-1]
                confident = False
            else:
                conf, votes = strength(sl, card)
                ev = sl.evidence(card) or sl.obs[-1]
                if sl.id in corrected:
                    conf, confident = 1.0, True
                elif sl.id in elimination:
                    confident = True
                else:
                    confident = (strong(sl, card) and sl.id not in duplicate_slots and sl.id not in reassigned
                                 and sl.id not in refitted and sl.id not in given_back)
            if sl.id in refitted and not notes.get(sl.id):
                notes[sl.id] = f"read a row off: placed in the {refitted[sl.id]} row, where its fan has a gap"
            reads[sl.id] = CardRead(
                sl.id, sl.seat, row, pos, card, round(conf, 4), votes, len(sl.obs), ev.frame_index, ev.box,
                confident, cands, notes.get(sl.id, ""),
            )
        # Resolve "{slotN}" placeholders in notes now that every position is known.
        for sid, r in list(reads.items()):
            if "{slot" in r.note:
                other = int(r.note.split("{slot")[1].split("}")[0])
                where = reads[other].where() if other in reads else "another position"
                reads[sid] = _replace_note(r, r.note.replace(f"{{slot{other}}}", where))

        integrity: list[str] = []
        for card, a, b in duplicates:
            at = [reads[x].where() + (f" (shown as {reassigned[x][0]}, {reassigned[x][1]})"
                                      if x in reassigned and reassigned[x][0] is not None else "") for x in (a, b)]
            integrity.append(f"duplicate card: {card} at {at[0]} and {at[1]}")
        for card, kept, spot in left_out:
            integrity.append(f"duplicate card: {card} at {reads[kept].where()} and at {spot}, "
                             "a 14th position there: left out of its seat")
        if len(present) > 52:
            integrity.append(f"wrong card count: {len(present)} cards on the table (a deck has 52)")

        # Hidden cards are named only when the deck is settled: no card still shown twice.
        unsettled = any(a not in reassigned and b not in reassigned for _, a, b in duplicates)
        missing, hidden = self._hidden(reads, dead, declared, undeclared, unsettled)
        seats = []
        all_checks: list[NeedsCheck] = []
        for number in sorted(self.geometry.seats):
            group = [reads[sl.id] for sl in by_seat.get(number, [])]
            mine = tuple(h for h in hidden if h.seat == number)
            seat = self._seat_read(number, group, number in dead, declared, undeclared, integrity, mine, missing,
                                   corrections)
            seats.append(seat)
            all_checks.extend(seat.needs_check)
        stray = tuple(reads[sl.id] for sl in by_seat.get(None, []))
        return StableHand(
            tuple(seats), stray, tuple(integrity), tuple(all_checks), self.frames, self.layout_since, self.key_frame
        )

    def _no_cards(self, present: list[Slot], choice: dict, corrected: dict, duplicates: list, dead
                  ) -> tuple[set[int], list[tuple[Card, int, int]]]:
        """A seat's positions beyond 13 that are no cards of this deck (a court card's picture, a pip
        read as an index), which would throw the seat's rows: those the deck left without a card, and
        those whose card a surer reading holds at a seat of 13 (seed 1819: a pip read as 9d, every
        frame, beside a row; the 9d lay at another seat) or reads more surely there, or, anchored
        alike, reads more surely at this seat or another (seeds 2328, 2336). Only when the rest is
        the whole deck, each card once, 13 in each of four seats. Also a crowded seat's position
        holding a card that a position of a seat of 13, left with none, read first (seeds 2413,
        2703). Returns the positions and, for the last two kinds, (card, the position kept, the one
        left out): still a duplicate for the floor to look at."""
        crowded = _crowded_seats(present)
        if not crowded or dead or len(self.geometry.seats) != 4:
            return set(), []
        extra = {sl.id for sl in present if sl.seat in crowded and choice[sl.id] is None and sl.id not in corrected}

        copies = []
        twice = [(card, a, b) for card, a, b in duplicates if choice[a] == card == choice[b]]  # not settled
        for card, a, b in twice:
            for kept, dropped in ((a, b), (b, a)):
                k, d = self.slots[kept], self.slots[dropped]
                if d.seat not in crowded or dropped in corrected:
                    continue
                # the copy anchored or read less surely than at a seat of 13 (seeds 1819, 2455); or,
                # anchored alike, the one read less surely (seeds 2328, 2336: a card's far index,
                # partly covered, read as a card lying elsewhere)
                less_sure = self._weights(d).get(card, 0.0) < self._weights(k).get(card, 0.0) - SURER
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
        whole = len(rest) == 52 and len(shown - {None}) == 52 and all(per_seat[n] == 13 for n in self.geometry.seats)
        return (extra, copies) if extra and whole else (set(), [])

    def _settle_deck(self, present: list[Slot], tallies: dict, choice: dict, corrected: dict, duplicates: list,
                     notes: dict) -> dict[int, tuple[Card | None, str]]:
        """Give each position the card of the best whole-deck assignment where that differs from
        the one-at-a-time choice; returns slot id -> (card shown, why) for the positions changed."""
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
        crowded = _crowded_seats(present)
        weights = {sl.id: {c: w for c, w in self._weights(sl).items()
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

    def _weights(self, sl: Slot) -> dict[Card, float]:
        """A position's weight for each card it read: the confidence given to that card, summed over
        the readings it keeps, a frame (at most 1), over the frames that could have read it: those
        since its oldest reading. A card lying there is read in most of them; a court card's picture
        or a covered index read as a card now and then is not, and weighs less when it claims a card."""
        frames = max(1, len(sl.obs), self.frames - sl.obs[0].tick + 1 if sl.obs else 1)
        return {c: min(1.0, m / frames) for c, m, _, _ in sl.tally()}

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

    def _rows(self, present: list[Slot], tallies: dict
              ) -> tuple[dict[int, tuple[str | None, int | None]], dict[int, str]]:
        """Row and position of every slot: the bands come from the surely read cards of each
        seat; weakly read ones (maybe not cards at all) join the nearest band afterwards. A seat
        of 13 whose bands are no 3/5/5 may have one card moved a row (`layout.refit_rows`).
        Returns the rows, and slot id -> row of the cards so moved."""
        rows: dict[int, tuple[str | None, int | None]] = {}
        refitted: dict[int, str] = {}
        by_seat: dict[int | None, list[Slot]] = {}
        for sl in present:
            by_seat.setdefault(sl.seat, []).append(sl)
        offset: list = []  # worked out once, for the first seat that needs it
        for seat, group in by_seat.items():
            if seat is None:
                for sl in group:
                    rows[sl.id] = (None, None)
                continue

            def sure(sl: Slot) -> bool:
                t = tallies[sl.id]
                return bool(t) and t[0][3] / max(1, t[0][2]) >= GHOST_CONFIDENCE

            solid = [g for g in group if sure(g)]
            if len(solid) < 3:
                solid = group
            labels = dict(zip((g.id for g in solid), assign_rows(
                self.geometry, seat, [g.depth for g in solid], [g.size for g in solid], [g.lateral for g in solid]
            )))
            centres = {}
            for row in ROWS:
                depths = [g.depth for g in solid if labels[g.id] == row]
                if depths:
                    centres[row] = sum(depths) / len(depths)
            for g in group:
                if g.id not in labels:
                    labels[g.id] = min(centres, key=lambda r: abs(centres[r] - g.depth)) if centres else "back"
            lateral = {g.id: g.lateral for g in group}
            moved = None
            counts = Counter(labels[g.id] for g in group)
            if len(group) == 13 and counts != ROW_SIZES:
                if not offset:
                    offset.append(self._index_offset(present))
                new, moved, point = refit_rows(
                    [labels[g.id] for g in group], [g.depth for g in group], [g.lateral for g in group],
                    [self._other_points(g, offset[0]) if counts[labels[g.id]] > ROW_SIZES[labels[g.id]] else []
                     for g in group])  # only a card of a row too full may move
            if moved is not None:
                g = group[moved]
                labels[g.id], lateral[g.id] = new[moved], point[1]
                refitted[g.id] = new[moved]
            for row in ROWS:
                members = sorted((g for g in group if labels[g.id] == row), key=lambda g: lateral[g.id])
                for pos, g in enumerate(members):
                    rows[g.id] = (row, pos)
        return rows, refitted

    def _other_points(self, sl: Slot, up: tuple[float, float] | None) -> list[tuple[float, float]]:
        """Where a card not read whole may lie, as (depth, lateral): at another index it was read
        from (a pair of two cards' indices is anchored at the deeper one), or at the upper index
        of one it was read from (one index alone may be its lower one). `up`: the step from a
        card's lower index to its upper one; a pair that steps otherwise (by more than 0.3 of it)
        is two cards' indices too (seed 2188: 9d's index paired with one of the row in front)."""
        if sl.seat is None:
            return []
        if sl.trust == TRUST_CARD:
            pair = next((p.corners for p in reversed(sl.places) if len(distinct_indices(p.corners)) == 2), ())
            if up is None or not pair:
                return []
            (d1, l1), (d2, l2) = sorted(self._seat_points(sl.seat, distinct_indices(pair)), reverse=True)
            if math.dist((d1 - d2, l1 - l2), up) <= 0.3 * math.hypot(*up):
                return []  # a card's own pair
        points: list[tuple[float, float]] = []
        for p in self._seat_points(sl.seat, [b for place in sl.places for b in place.corners]):
            if all(math.dist(p, q) > 0.5 * sl.size for q in points + [(sl.depth, sl.lateral)]):
                points.append(p)
        out = list(points)
        if up is not None and sl.trust != TRUST_CARD:
            out += [(d + up[0], lat + up[1]) for d, lat in points + [(sl.depth, sl.lateral)]]
        return out

    def _seat_points(self, seat: int, boxes) -> list[tuple[float, float]]:
        """(depth, lateral) of these boxes' centres as the seat sees them."""
        return [self.geometry.depth_lateral(seat, t) for t in self.geometry.to_table([box_center(b) for b in boxes])]

    def _index_offset(self, present: list[Slot]) -> tuple[float, float] | None:
        """(depth, lateral) from a card's lower index to its upper one as its seat sees it, as
        the cards read whole put them (None with fewer than three)."""
        offsets = []
        for g in present:
            indices = distinct_indices(g.indices)
            if g.seat is None or len(indices) != 2:
                continue
            (d1, l1), (d2, l2) = sorted(self._seat_points(g.seat, indices), reverse=True)
            offsets.append((d1 - d2, l1 - l2))
        if len(offsets) < 3:
            return None
        return tuple(float(v) for v in np.median(offsets, axis=0))

    def _seat_read(self, number, group, dead, declared, undeclared, integrity, hidden=(), missing=(),
                   corrections=None) -> SeatRead:
        s = self.settings
        by_row = {r: tuple(sorted((c for c in group if c.row == r), key=lambda c: c.position)) for r in ROWS}
        declared_by = self._declared_by(number, declared, undeclared)
        n = len(group)
        pile = bool(declared_by) and n < s.open_min_cards and n > 0
        is_open = n >= s.open_min_cards
        confidence = min((c.confidence for c in group), default=0.0)
        checks: list[NeedsCheck] = []
        seat_integrity: list[str] = []
        if dead:
            return SeatRead(number, True, False, "", False, False, **by_row, confidence=confidence)
        for c in sorted(group, key=lambda c: (ROWS.index(c.row) if c.row else 9, c.position or 0)):
            if c.confident or c.note.startswith("duplicate"):
                continue
            checks.append(NeedsCheck(number, _doubt(c), str(c.card) if c.card else (str(c.candidates[0][0]) if c.candidates else None)))
        for problem in integrity:
            if f"seat {number} " in problem:
                seat_integrity.append(problem)
        # A card read nowhere that can only lie here joins its row (last: a row is a set) as `not
        # seen`, and the dealer is asked to look; once the floor confirms it, it counts as read.
        confirmed = 0
        for k, h in enumerate(hidden):
            row = by_row[h.row]
            read = sum(1 for c in row if c.card is not None and c.slot >= 0)
            index = sum(1 for c in row if c.card is not None)  # its place in the showdown's row
            ok = (corrections or {}).get((number, h.row, index)) == h.card
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
                -1 - k, number, h.row, index, h.card, 1.0 if ok else 0.0, 0, 0, self.key_frame, h.box, ok, (),
                "confirmed by floor (not read)" if ok else "not seen: by elimination",
            ),)
        if is_open and n + confirmed != 13:
            seat_integrity.append(f"wrong card count: seat {number} has {n + confirmed} cards")
            integrity.append(seat_integrity[-1])
            if n < 13 and not hidden:
                left = f" (read nowhere: {', '.join(map(str, missing))})" if missing else ""
                checks += [NeedsCheck(number, f"no card read between {gap}: a hidden card?{left}")
                           for gap in self._gaps(by_row)]
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


    def _gaps(self, by_row: dict[str, tuple[CardRead, ...]]) -> list[str]:
        """Where a short row has room for a card between two it read ("back 2 and back 3").

        A card whose indices are all covered is not read at all, so the row just looks
        short; the spacing of the cards around it says where it lies (a dealer looks there).
        """
        laterals = {r: [self.slots[c.slot].lateral for c in cards if c.slot in self.slots] for r, cards in by_row.items()}
        steps = [b - a for xs in laterals.values() for a, b in zip(xs, xs[1:])]
        if len(steps) < 3:
            return []
        pitch = float(np.median(steps))
        out = []
        for row, xs in laterals.items():
            if len(xs) < ROW_SIZES[row] and len(xs) == len(by_row[row]):
                out += [f"{row} {i + 1} and {row} {i + 2}" for i, (a, b) in enumerate(zip(xs, xs[1:]))
                        if b - a > GAP * pitch]
        return out


def _replace_note(r: CardRead, note: str) -> CardRead:
    return CardRead(r.slot, r.seat, r.row, r.position, r.card, r.confidence, r.votes, r.seen, r.frame_index,
                    r.box, r.confident, r.candidates, note)


def _doubt(c: CardRead) -> str:
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


def _crowded_seats(present: list[Slot]) -> set[int]:
    """Seats holding more than 13 positions: one of them at least is no card."""
    counts = Counter(sl.seat for sl in present)
    return {n for n, k in counts.items() if n is not None and k > 13}
