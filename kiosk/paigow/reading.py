"""The Pai Gow stabiliser: many frames of one hand -> a stable read of every spot, each card once.

A card position (a *place*) is followed across frames by where it lies in the image; its reading
is the card most of its frames read, with their mean confidence (a frame that read something
else counts 0 for it, the reader's runner-up counts its own confidence). A card is confident
when at least `min_votes` frames read it, their mean confidence reaches `min_confidence` and
`min_agreement` of the frames that saw the place read it. Anything less is `needs dealer check`
naming the card and the place; a card read at two places is a table-integrity problem (a
deck holds each card once): the kiosk never scores through either.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from kiosk.cards import Card
from kiosk.paigow.spots import ROWS
from kiosk.table.verdict import NeedsCheck


@dataclass(frozen=True, slots=True)
class Seen:
    """One card reading of one frame, placed on a spot."""

    card: Card
    confidence: float
    alternatives: tuple[tuple[Card, float], ...]
    spot: int
    row: str
    image_xy: tuple[float, float]
    box: tuple[float, float, float, float]
    size: float  # the card box's height in pixels (the matching radius scales with it)


@dataclass(frozen=True, slots=True)
class CardRead:
    card: Card | None
    spot: int
    row: str
    x: float  # left to right in the image: the order within a row
    confidence: float
    votes: int
    seen: int
    frame_index: int
    box: tuple[float, float, float, float]
    confident: bool
    candidates: tuple[tuple[Card, float], ...] = ()

    def where(self) -> str:
        return f"{'banker' if self.spot == 0 else f'seat {self.spot}'} {self.row}"


@dataclass(frozen=True, slots=True)
class SpotRead:
    spot: int
    high: tuple[CardRead, ...]
    low: tuple[CardRead, ...]

    @property
    def cards(self) -> tuple[CardRead, ...]:
        return self.high + self.low

    @property
    def complete(self) -> bool:
        """Seven cards laid out (any split: a wrong split is the player's foul)."""
        return len(self.cards) == 7


@dataclass(frozen=True, slots=True)
class TableRead:
    spots: tuple[SpotRead, ...]  # spots with cards, banker first
    needs_check: tuple[NeedsCheck, ...]
    integrity: tuple[str, ...]
    frames: int
    layout_since: float
    layout_frames: int
    key_frame: int

    @property
    def seats(self) -> tuple[SpotRead, ...]:
        """The spots, under the name the display counts cards by (kiosk/web/live.py)."""
        return self.spots

    def spot(self, number: int) -> SpotRead | None:
        return next((s for s in self.spots if s.spot == number), None)

    @property
    def all_open(self) -> bool:
        banker = self.spot(0)
        return banker is not None and len(self.spots) >= 2 and all(s.complete for s in self.spots)


class Place:
    """One card position followed across frames."""

    def __init__(self, seen: Seen, tick: int, now: float, frame_index: int, window: int):
        self.spot, self.row = seen.spot, seen.row
        self.xy = seen.image_xy
        self.size = seen.size
        self.obs: deque[tuple[int, Seen | None]] = deque(maxlen=window)  # (frame index, reading or None)
        self.last_seen = now
        self.add(seen, frame_index)

    def add(self, seen: Seen | None, frame_index: int) -> None:
        self.obs.append((frame_index, seen))
        if seen is not None:
            self.xy, self.size, self.spot, self.row = seen.image_xy, seen.size, seen.spot, seen.row

    def tally(self) -> tuple[dict[Card, float], dict[Card, int], int]:
        scores: dict[Card, float] = {}
        votes: dict[Card, int] = {}
        seen = 0
        for _, s in self.obs:
            if s is None:
                continue
            seen += 1
            scores[s.card] = scores.get(s.card, 0.0) + s.confidence
            votes[s.card] = votes.get(s.card, 0) + 1
            for alt, p in s.alternatives:
                scores[alt] = scores.get(alt, 0.0) + p
        return scores, votes, seen


class PaiGowStabilizer:
    def __init__(self, settings) -> None:
        self.s = settings  # the config's `stabilizer` section
        self.reset()

    def reset(self) -> None:
        self.places: list[Place] = []
        self.frames = 0
        self.layout: tuple = ()
        self.layout_since = 0.0
        self.layout_frames = 0
        self.key_frame = -1

    def update(self, seen: list[Seen], now: float, frame_index: int) -> None:
        self.frames += 1
        self.key_frame = frame_index
        free = list(self.places)
        for item in sorted(seen, key=lambda x: -x.confidence):
            place = min(free, key=lambda p: _dist(p.xy, item.image_xy), default=None)
            if place is not None and _dist(place.xy, item.image_xy) <= self.s.match_radius * 0.5 * item.size:
                free.remove(place)
                place.add(item, frame_index)
                place.last_seen = now
            else:
                self.places.append(Place(item, self.frames, now, frame_index, self.s.window_frames))
        for place in free:
            place.add(None, frame_index)
        self.places = [p for p in self.places if now - p.last_seen < self.s.forget_seconds]
        layout = tuple(sorted((p.spot, p.row, str(_top(p))) for p in self._present(now)))
        if layout != self.layout:
            self.layout, self.layout_since, self.layout_frames = layout, now, 0
        self.layout_frames += 1
        self._now = now

    def _present(self, now: float) -> list[Place]:
        """Places seen in the latest frame, or recently enough that a passing hand hid them."""
        return [p for p in self.places if p.obs and (p.obs[-1][1] is not None or now - p.last_seen < 0.5)]

    def read(self, final: bool = False) -> TableRead:
        now = getattr(self, "_now", 0.0)
        reads = [self._read_place(p, final) for p in self._present(now)]
        checks = [NeedsCheck(r.spot, _doubt(r), str(r.card) if r.card else None) for r in reads if not r.confident]
        integrity = _duplicates(reads)
        spots = []
        for number in sorted({r.spot for r in reads}):
            rows = {row: tuple(sorted((r for r in reads if r.spot == number and r.row == row), key=lambda r: r.x))
                    for row in ROWS}
            spots.append(SpotRead(number, rows["high"], rows["low"]))
        return TableRead(tuple(spots), tuple(checks), tuple(integrity), self.frames, self.layout_since,
                         self.layout_frames, self.key_frame)

    def _read_place(self, place: Place, final: bool) -> CardRead:
        scores, votes, seen = place.tally()
        card = max(scores, key=lambda c: (scores[c], votes.get(c, 0)))
        confidence = scores[card] / max(seen, 1)
        n = votes.get(card, 0)
        need = min(self.s.min_votes, seen) if final else self.s.min_votes
        confident = (n >= need and confidence >= self.s.min_confidence and n / max(seen, 1) >= self.s.min_agreement)
        last = next(s for _, s in reversed(place.obs) if s is not None)
        frame = next(f for f, s in reversed(place.obs) if s is not None)
        ranked = sorted(((c, round(v / max(seen, 1), 3)) for c, v in scores.items()), key=lambda cv: -cv[1])
        return CardRead(card, place.spot, place.row, place.xy[0], round(confidence, 4), n, seen, frame,
                        last.box, confident, tuple(ranked[:3]))


def _top(place: Place):
    scores, votes, _ = place.tally()
    return max(scores, key=lambda c: (scores[c], votes.get(c, 0))) if scores else None


def _dist(a, b) -> float:
    return ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5


def _doubt(r: CardRead) -> str:
    others = " or ".join(str(c) for c, _ in r.candidates[1:2])
    also = f" or {others}" if others else ""
    return (f"card at {r.where()} read as {r.card}{also} (confidence {r.confidence:.2f}, "
            f"{r.votes} of {r.seen} frames)")


def _duplicates(reads: list[CardRead]) -> list[str]:
    """A deck holds each card once: the same card at two places is never scored through."""
    where: dict[Card, CardRead] = {}
    out = []
    for r in sorted(reads, key=lambda r: (r.spot, r.row, r.x)):
        if r.card is None:
            continue
        if r.card in where:
            out.append(f"duplicate card {r.card}: {where[r.card].where()} and {r.where()}")
        else:
            where[r.card] = r
    return out
