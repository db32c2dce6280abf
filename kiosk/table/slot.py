"""One physical card position on the felt, followed across frames: a *slot*.

A slot keeps its last `window_frames` observations. Reading it integrates them: each frame gives
its top reading its confidence and the reader's runner-up (`alternatives`) its confidence, so a
slot's confidence for a card is the mean over the frames that saw the slot (a frame that read
something else counts as 0 for it). Where the card lies is where most of its readings put it.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass

import numpy as np

from kiosk.cards import Card
from kiosk.same_card import on_index
from kiosk.table.snapshot import GHOST_CONFIDENCE, PlacedCard, shows_its_indices
from kiosk.vision.geometry import box_center

ALTERNATIVE_WEIGHT = 1.0  # how much a runner-up reading counts relative to a top reading


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
        self.image_xy = np.array(box_center(placed.box), np.float64)
        self.size = placed.size
        self.depth = placed.depth
        self.lateral = placed.lateral
        self.trust = placed.trust
        self.places: deque[PlacedCard] = deque(maxlen=window)  # where the readings put the card
        self.pending: PlacedCard | None = None  # the last reading far from the slot
        self.indices: tuple = ()  # the card's index boxes, as a whole card's reading paired them
        self.obs: deque[Observation] = deque(maxlen=window)
        self._votes = Votes()
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
        self._votes = Votes(self.obs)
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
        self.image_xy = weights @ np.array([box_center(p.box) for p in members], np.float64)
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

    def weights(self, frames: int) -> dict[Card, float]:
        """The slot's weight for each card it read: the confidence given to that card, summed over
        the readings it keeps, a frame (at most 1), over the frames that could have read it: those
        since its oldest reading (`frames`: the stabiliser's frame count now). A card lying there is
        read in most of them; a court card's picture or a covered index read as a card now and then
        is not, and weighs less when it claims a card."""
        span = max(1, len(self.obs), frames - self.obs[0].tick + 1 if self.obs else 1)
        return {c: min(1.0, m / span) for c, m, _, _ in self.tally()}


class Votes:
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
