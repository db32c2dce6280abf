"""The table pipeline: frames -> detections -> snapshot -> stable hand -> verdict, on the hub.

`TableRunner(cfg, source, reader, hub)` is the same for the live camera (`kiosk run`, in
its own thread: `start()` / `stop()` / `join()`) and for files (`kiosk analyze`, replays:
`run_to_end()`), so a replay goes through the very pipeline the live table does.
Timing (hold, clear) follows the frames' own timestamps, so a file read faster than real
time decides exactly as it would live. A recording kiosk passes `jpeg_quality`: every frame
is then read as the recorder stores it (`Frame.as_jpeg`), so replays read the same pixels.
"""

from __future__ import annotations

import copy
import json
import logging
import threading
import time
from dataclasses import dataclass, replace
from typing import Iterable

import numpy as np

from kiosk.cards import ROWS, CardError, parse_card
from kiosk.errors import KioskError
from kiosk.rules.api import score_json
from kiosk.table.actions import (
    CorrectCard, DealerAction, NewHand, SeatAction, SetDead, SetStack, SetStake, TableAction, typed_action,
)
from kiosk.table.calibration import find_corners
from kiosk.table.config import KioskConfig
from kiosk.table.frame_loop import FrameLoop
from kiosk.table.hub import Hub
from kiosk.table.judge import HandSettings, judge
from kiosk.table.layout import TableGeometry, outside_frame
from kiosk.table.lifecycle import Lifecycle
from kiosk.table.occupancy import FeltModel
from kiosk.table.snapshot import TableSnapshot, build_snapshot
from kiosk.table.sources import Frame
from kiosk.table.stabilizer import Stabilizer
from kiosk.table.stable_hand import StableHand
from kiosk.table.verdict import Verdict
from kiosk.vision.still import StillIndices, shrink

log = logging.getLogger(__name__)

BUSY_OCCUPANCY = 0.02  # a seat zone this much covered has something on it


@dataclass(frozen=True, slots=True)
class TableState:
    phase: str
    hand_id: str
    snapshot: TableSnapshot | None
    verdict: Verdict | None
    button: int | None
    dead: tuple[int, ...]
    stake: float
    stacks: dict
    declared: tuple[int, ...]
    pair_stakes: tuple = ()
    frame_index: int = -1


class TableRunner(FrameLoop):
    def __init__(self, cfg: KioskConfig, source: Iterable[Frame] | None, reader, hub: Hub | None = None,
                 jpeg_quality: int | None = None, sample_still: bool = False):
        self.cfg = cfg
        # A recording analysed offline (`kiosk analyze`): a frame that shows the very table of the last frame
        # read, once that hand's verdict is out and confident, would only confirm it: it is not read. A live
        # table and a replay read every frame.
        self.sample_still = sample_still
        self._read_small = None  # the last frame read, in 8x8-pixel means (kiosk.vision.still.shrink)
        self._cut_seconds, self._last_timestamp = 0.0, None  # the time of the frames not read is cut out
        self.frames_skipped = 0
        self.jpeg_quality = jpeg_quality
        self.source = source
        self.reader = reader
        self.hub = hub or Hub()
        if source is not None and hasattr(source, "on_status") and source.on_status is None:
            source.on_status = lambda status, detail: self.hub.publish("source", status=status, detail=detail)
        game = cfg.game
        self.settings = HandSettings(
            profile=game.profile,
            button=game.button,
            stake=game.stake,
            pair_stakes=tuple((tuple(p.seats), p.stake) for p in game.pair_stakes),
            stacks=tuple(sorted(game.stacks.items())),
            dead=frozenset(game.dead),
        )
        self.model_version = str(getattr(reader, "model_version", "") or "")
        self.digest = cfg.digest()
        self.lifecycle = Lifecycle(cfg.stabilizer.clear_seconds)
        self.geometry: TableGeometry | None = None
        self.felt: FeltModel | None = None
        self.stabilizer: Stabilizer | None = None
        self.corrections: dict = {}
        self._auto_dead: set[int] = set()  # seats seen as a squared face-down pile (dead)
        self._not_dead: set[int] = set()  # ... that the dealer said are playing
        self._dead_pile_since: dict[int, float] = {}
        self._card_area = 0.0
        self._score_memo: tuple[str, dict] | None = None
        self.hand_id = self._new_hand_id()
        self.verdicts: list[Verdict] = []  # the latest verdicts published, in order (capped)
        self._hand_verdicts: dict[str, Verdict] = {}  # the last verdict of each hand, in hand order
        self._collect = False  # run_to_end keeps every hand's; a live table only the recent ones
        self.rois = None  # the reader reads the whole frame (it tiles it as it needs)
        motion = cfg.motion
        self._still = (StillIndices(motion.still_levels, motion.redetect_seconds, motion.still_searches)
                       if motion.reuse_indices and getattr(reader, "takes_still", False) else None)
        self._verdict: Verdict | None = None
        self._snapshot: TableSnapshot | None = None
        self._now = 0.0
        self._frame_index = -1
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None
        self.failing: str | None = None  # the last frame's error while frames keep failing
        self.timings: list[tuple[int, float, bool]] = []  # (frame, seconds from frame in to state out, verdict changed)

    # -- public API --------------------------------------------------------------------
    @property
    def state(self) -> TableState:
        with self._lock:
            s = self.settings
            return TableState(
                phase=self.lifecycle.phase,
                hand_id=self.hand_id,
                snapshot=self._snapshot,
                verdict=self._verdict,
                button=s.button,
                dead=tuple(sorted(self._dead())),
                stake=s.stake,
                stacks=dict(s.stacks),
                declared=tuple(sorted(s.declared)),
                pair_stakes=s.pair_stakes,
                frame_index=self._frame_index,
            )

    def run_to_end(self) -> list[Verdict]:
        """Process every frame of a finite source; the last verdict of each hand, in order."""
        self._collect = True
        self._loop()
        self.finish()
        return list(self._hand_verdicts.values())

    def apply(self, action: DealerAction, typed: TableAction | None = None) -> None:
        """A dealer's action on the hand in progress; republishes the verdict. `typed`: the action as
        the display parsed it; a recorded action (a replay's) is checked whole here."""
        with self._lock:
            try:
                message = self._apply(typed or typed_action(action, self.cfg.table.seats))
                ok = True
            except (ValueError, KioskError, CardError) as err:
                ok, message = False, str(err)
            self.hub.publish("action", action=action, ok=ok, message=message)
            if ok and self.stabilizer is not None and action.kind != "new_hand":
                self._decide(force=self._verdict is not None)

    def process(self, frame: Frame) -> Verdict | None:
        """One frame through every stage; returns the verdict if this frame changed it."""
        t0 = time.perf_counter()
        if self.sample_still:
            # The recording as if the frames not read were cut out of it: the stages see no gap in time
            # (a gap would age the cards' positions as if unseen, which they were not: they lay still).
            last, self._last_timestamp = self._last_timestamp, frame.timestamp
            if self._adds_nothing(frame):
                self._cut_seconds += frame.timestamp - last
                self.frames_skipped += 1
                return None
            if self._cut_seconds:
                frame = replace(frame, timestamp=frame.timestamp - self._cut_seconds)
        if self.jpeg_quality:
            frame = frame.as_jpeg(self.jpeg_quality)
        h, w = frame.image.shape[:2]
        if self.geometry is None or self.geometry.image_size != (w, h):
            self._setup(frame)
        still = {"still": self._still} if self._still is not None else {}
        detections = self.reader.read(frame.image, self.rois, frame.index, frame.timestamp, frame.source, **still)
        occupancy = self.felt.measure(frame.image)
        with self._lock:
            snapshot = build_snapshot(
                detections, self.geometry, self._dead(), occupancy.seats, occupancy.felt,
                self.cfg.stabilizer.min_detection_confidence, occupancy.blobs,
            )
            now = frame.timestamp
            self._now = now
            self._frame_index = frame.index
            if self._layout_replaced(snapshot):
                self._end_hand(final=True)
            self.stabilizer.update(snapshot, occupancy.empty_at)
            self._snapshot = snapshot
            busy = bool(snapshot.cards) or any(
                v > BUSY_OCCUPANCY for s, v in occupancy.seats.items() if s not in self._dead()
            )
            hand = self._read()
            if self._track_dead_piles(hand, occupancy, snapshot, now):
                hand = self._read()
            cards_gone = not snapshot.cards  # the lifecycle times how long it stays so
            before = self._verdict
            for phase in self.lifecycle.step(now, busy=busy, all_open=hand.all_open, cards_gone=cards_gone):
                if phase == "cleared" and self._collect and self._verdict is None:
                    self.finish()  # a file: say what was seen of a hand that never opened fully
                self.hub.publish("phase", phase=phase, hand_id=self.hand_id)
                if phase == "cleared":
                    self._reset_hand()
            if self.lifecycle.phase in ("opened", "verdict"):
                self._decide(hand=hand)
            changed = self._verdict is not before
            self.hub.publish(
                "frame", frame_index=frame.index, timestamp=frame.timestamp, image=frame.image, jpeg=frame.jpeg,
                detections=detections, snapshot=snapshot, hand_id=self.hand_id,
            )
        self.timings.append((frame.index, time.perf_counter() - t0, changed))
        if len(self.timings) > 10000:
            del self.timings[:5000]
        return self._verdict if changed else None

    def finish(self) -> None:
        """End of a finite source: decide the hand in progress with what was seen."""
        with self._lock:
            if self.stabilizer is None:
                return
            hand = self._read(final=True)
            # No verdict yet: say what was seen. A verdict already out: the final read (every
            # frame of the hand counted) replaces it, unless the hand was being swept.
            if (self._verdict is None and any(s.cards for s in hand.active)) or (
                self._verdict is not None and hand.all_open
            ):
                self._publish(hand, final=True)

    # -- internals -----------------------------------------------------------------------
    def _adds_nothing(self, frame: Frame) -> bool:
        """The cards as last read (no 8x8 mean moved more than motion.still_levels) under a confident verdict."""
        small = shrink(frame.image)
        last = self._read_small
        same = (last is not None and small.shape == last.shape
                and int(np.abs(small - last).max()) <= self.cfg.motion.still_levels)
        hand_shown = self._snapshot is not None and bool(self._snapshot.cards)  # a bare felt is read: it clears
        if same and hand_shown and self._verdict is not None and self._verdict.confident \
                and self.lifecycle.phase == "verdict":
            return True
        self._read_small = small
        return False

    def _setup(self, frame: Frame) -> None:
        corners = None
        geo = self.cfg.geometry
        if geo.aruco and geo.corners is None:
            try:
                corners = find_corners(frame.image, f"frame {frame.index} of {frame.source}")
            except KioskError as err:
                log.warning("%s; using the whole frame as the table", err)
                self.hub.publish("source", status="connected", detail=f"calibration: {err}")
        h, w = frame.image.shape[:2]
        misfit = outside_frame(self.cfg, (w, h))
        if misfit:  # seats would be looked for where the felt is not: say so where the installer looks
            log.warning("%s", misfit)
            self.hub.publish("source", status="connected", detail=f"config: {misfit}")
        self.geometry = TableGeometry.from_config(self.cfg, (w, h), corners)
        self.felt = FeltModel(self.geometry)
        self.stabilizer = Stabilizer(self.cfg.stabilizer, self.geometry)

    def _dead(self) -> frozenset[int]:
        return frozenset(self.settings.dead | (self._auto_dead - self._not_dead))

    def _read(self, final: bool = False) -> StableHand:
        s = self.settings
        return self.stabilizer.read(self._dead(), s.declared, s.undeclared, self.corrections, final=final)

    def _track_dead_piles(self, hand: StableHand, occupancy, snapshot: TableSnapshot, now: float) -> bool:
        """A seat whose 13 cards lie squared face down while every other seat is open is dead.

        That is how a hand dealt to an empty seat looks (RULES §5, dead seats); a player's
        set hand face down covers several card areas, a pile about one. Returns whether the
        set of such seats changed. The dealer can always say otherwise (set_dead).
        """
        if snapshot.card_area:
            self._card_area = snapshot.card_area
        card = self._card_area or (0.118 * self.geometry.image_size[1]) ** 2 * 0.72
        before = set(self._auto_dead)
        for seat in hand.seats:
            n = seat.seat
            blob = (occupancy.blobs or {}).get(n, 0.0)
            others_open = all(o.open for o in hand.active if o.seat != n)
            pile = (n not in self.settings.dead and not seat.cards and 0.3 * card <= blob <= 2.5 * card
                    and others_open and len(hand.active) >= 2)
            if pile:
                since = self._dead_pile_since.setdefault(n, now)
                if now - since >= self.cfg.stabilizer.hold_seconds - 1e-6:
                    self._auto_dead.add(n)
            else:
                self._dead_pile_since.pop(n, None)
                if seat.cards or blob < 0.3 * card:
                    self._auto_dead.discard(n)
        return before != self._auto_dead

    def _decide(self, hand: StableHand | None = None, force: bool = False) -> None:
        hand = hand or self._read()
        if not hand.all_open:
            return
        # Held for the time and for enough frames to read each card confidently: a frame that came
        # late (a slow machine, a stalled camera) must not publish a verdict read from two frames,
        # `needs dealer check` for a moment, then confident one frame later.
        st = self.cfg.stabilizer
        held = self._now - hand.layout_since >= st.hold_seconds - 1e-6 and hand.layout_frames >= st.min_votes
        if held or force:
            self._publish(hand)

    def _publish(self, hand: StableHand, final: bool = False) -> None:
        verdict = judge(
            hand, self.settings, hand_id=self.hand_id, table=self.cfg.table.name,
            frame_index=hand.key_frame, model_version=self.model_version, config_digest=self.digest,
            final=final,
            meta={"timestamp": round(self._now, 3), "dead_seen": sorted(self._auto_dead - self._not_dead)},
            score=self._score,
        )
        self._publish_verdict(verdict)

    def _score(self, showdown: dict) -> dict:
        """`kiosk score` of a showdown, remembered: the same read scores the same (rules are pure)."""
        key = json.dumps(showdown, sort_keys=True)
        if self._score_memo is None or self._score_memo[0] != key:
            self._score_memo = (key, score_json(showdown))
        return copy.deepcopy(self._score_memo[1])

    def _layout_replaced(self, snapshot: TableSnapshot) -> bool:
        """A different deal in the very next frame (photos of several hands in one folder)."""
        return self.stabilizer.replaced_by(snapshot)

    def _end_hand(self, final: bool) -> None:
        if final:
            self.finish()
        self.lifecycle.clear()
        self.hub.publish("phase", phase="cleared", hand_id=self.hand_id)
        self._reset_hand()
        self.hub.publish("phase", phase="waiting", hand_id=self.hand_id)

    def _reset_hand(self) -> None:
        self.stabilizer.reset()
        self.corrections = {}
        self._auto_dead, self._not_dead, self._dead_pile_since = set(), set(), {}
        self.settings = replace(self.settings, declared=frozenset(), undeclared=frozenset())
        self._verdict = None
        self.hand_id = self._new_hand_id()

    _hand_seq = 0

    def _new_hand_id(self) -> str:
        TableRunner._hand_seq += 1
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime())
        return f"{self.cfg.table.name}-{stamp}-{TableRunner._hand_seq:04d}"

    def _apply(self, action: TableAction) -> str:
        """Apply one checked action to the table settings (or the hand); returns what it did."""
        s = self.settings
        match action:
            case SeatAction(kind="declare_natural", seat=k):
                self.settings = replace(s, declared=s.declared | {k}, undeclared=s.undeclared - {k})
                return f"seat {k} declared a natural"
            case SeatAction(kind="undeclare_natural", seat=k):
                self.settings = replace(s, declared=s.declared - {k}, undeclared=s.undeclared | {k})
                return f"seat {k} withdrew the natural declaration"
            case SeatAction(kind="move_button", seat=k):
                self.settings = replace(s, button=k)
                return f"button on seat {k}"
            case SetDead(seat=k, dead=dead):
                self.settings = replace(s, dead=frozenset(s.dead | {k} if dead else s.dead - {k}))
                (self._not_dead.discard if dead else self._not_dead.add)(k)
                return f"seat {k} {'dead' if dead else 'playing'}"
            case SetStake(stake=value, pair=None):
                self.settings = replace(s, stake=value)
                return f"table stake {value} a point"
            case SetStake(stake=value, pair=pair):
                rest = tuple(p for p in s.pair_stakes if set(p[0]) != set(pair))
                self.settings = replace(s, pair_stakes=rest + ((pair, value),))
                return f"stake {value} a point between seats {pair[0]} and {pair[1]}"
            case SetStack(seat=k, stack=stack):
                stacks = {n: v for n, v in s.stacks if n != k} | ({} if stack is None else {k: stack})
                self.settings = replace(s, stacks=tuple(sorted(stacks.items())))
                return f"seat {k} stack {'cleared' if stack is None else stack}"
            case CorrectCard():
                return self._correct(action)
            case NewHand():
                self.finish()
                self._end_hand(final=False)
                return "new hand"
        raise ValueError(f"unknown dealer action {action!r}")

    def _correct(self, c: CorrectCard) -> str:
        """The floor's correction of one card of the verdict shown; it overrides the reading."""
        if c.row not in ROWS:
            raise ValueError(f"correct_card: row {c.row!r} (front, middle or back)")
        after = parse_card(c.after)
        if self._verdict is not None:
            seat_cards = next((x for x in self._verdict.showdown["seats"] if x["seat"] == c.seat), {})
            row = seat_cards.get(c.row, [])
            current = row[c.index] if c.index < len(row) else None
            where = f"seat {c.seat} {c.row} {c.index + 1}"
            if current is not None and c.before != current:
                raise ValueError(f"correct_card: {where} reads {current}, not {c.before}")
            # a card no frame saw anything at (named by the deck): only that card can lie there
            unread = any(e.seat == c.seat and e.card == current and e.votes == 0 and e.confidence == 0
                         for e in self._verdict.evidence)
            if unread and str(after) != current:
                raise ValueError(
                    f"correct_card: {where} was not read: the deck leaves only {current} "
                    f"for it; if {after} lies there, the {after} read elsewhere is wrong: correct that card")
        self.corrections[(c.seat, c.row, c.index)] = after
        return f"seat {c.seat} {c.row} {c.index + 1} corrected to {after} by {c.by}"
