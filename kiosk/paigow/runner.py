"""The Pai Gow table pipeline: frames -> detections -> spots -> stable read -> verdict, on the hub.

`PaiGowRunner` has the public face of `kiosk.table.runner.TableRunner` (start/stop/join,
`run_to_end`, `process`, `finish`, `apply`, `state`), so `kiosk run`, the display, the recorder
and replays drive it the same way. Timing follows the frames' own timestamps.
"""

from __future__ import annotations

import threading
import time
from typing import Iterable

from kiosk.paigow.judge import PaiGowSettings, judge_paigow
from kiosk.paigow.reading import PaiGowStabilizer, Seen, TableRead
from kiosk.paigow.spots import SpotZone, default_spots, locate
from kiosk.table.actions import DealerAction
from kiosk.table.config import KioskConfig
from kiosk.table.frame_loop import FrameLoop
from kiosk.table.hub import Hub
from kiosk.table.layout import TableGeometry
from kiosk.table.lifecycle import Lifecycle
from kiosk.table.runner import TableRunner, TableState
from kiosk.table.sources import Frame
from kiosk.table.verdict import Verdict
from kiosk.vision.still import StillIndices



def settings_of(cfg: KioskConfig) -> PaiGowSettings:
    p = cfg.paigow
    return PaiGowSettings(
        house_way=p.house_way_value(), commission=p.commission, banker_seat=p.banker,
        bets=tuple(sorted(p.bets.items())), default_bet=p.default_bet, banker_stack=p.banker_stack,
    )


class PaiGowRunner(FrameLoop):
    THREAD_NAME = "paigow-runner"

    def __init__(self, cfg: KioskConfig, source: Iterable[Frame] | None, reader, hub: Hub | None = None,
                 jpeg_quality: int | None = None):
        self.cfg, self.source, self.reader, self.jpeg_quality = cfg, source, reader, jpeg_quality
        self.hub = hub or Hub()
        if source is not None and hasattr(source, "on_status") and source.on_status is None:
            source.on_status = lambda status, detail: self.hub.publish("source", status=status, detail=detail)
        self.settings = settings_of(cfg)
        self.spots = tuple(default_spots()) if cfg.paigow.spots is None else tuple(
            _zone(z) for z in cfg.paigow.spots)
        self.model_version = str(getattr(reader, "model_version", "") or "")
        self.digest = cfg.digest()
        self.lifecycle = Lifecycle(cfg.stabilizer.clear_seconds)
        self.stabilizer = PaiGowStabilizer(cfg.stabilizer)
        self.geometry: TableGeometry | None = None
        motion = cfg.motion
        self._still = (StillIndices(motion.still_levels, motion.redetect_seconds, motion.still_searches)
                       if motion.reuse_indices and getattr(reader, "takes_still", False) else None)
        self.hand_id = _new_hand_id(cfg.table.name)
        self.verdicts: list[Verdict] = []
        self._hand_verdicts: dict[str, Verdict] = {}
        self._collect = False
        self._verdict: Verdict | None = None
        self._read: TableRead | None = None  # the latest stable read (the display shows it before a verdict)
        self._now, self._frame_index = 0.0, -1
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None
        self.failing: str | None = None  # the last frame's error while frames keep failing
        self.timings: list[tuple[int, float, bool]] = []

    # -- the face TableRunner shows ---------------------------------------------------
    @property
    def state(self) -> TableState:
        with self._lock:
            return TableState(self.lifecycle.phase, self.hand_id, self._read, self._verdict, None, (), 0, {}, (),
                              frame_index=self._frame_index)

    def run_to_end(self) -> list[Verdict]:
        self._collect = True
        self._loop()
        self.finish()
        return list(self._hand_verdicts.values())

    def apply(self, action: DealerAction, typed: object = None) -> None:
        """Only new_hand applies at a Pai Gow table (`typed`, the display's parsed action, is not needed)."""
        with self._lock:
            ok, message = True, "new hand"
            if action.kind == "new_hand":
                self.finish()
                self._end_hand()
            else:
                ok, message = False, f"{action.kind}: not an action of a Pai Gow table (only new_hand)"
            self.hub.publish("action", action=action, ok=ok, message=message)

    def process(self, frame: Frame) -> Verdict | None:
        t0 = time.perf_counter()
        if self.jpeg_quality:
            frame = frame.as_jpeg(self.jpeg_quality)
        h, w = frame.image.shape[:2]
        if self.geometry is None or self.geometry.image_size != (w, h):
            self.geometry = TableGeometry((w, h), [], self.cfg.geometry.corners)
        still = {"still": self._still} if self._still is not None else {}
        detections = self.reader.read(frame.image, None, frame.index, frame.timestamp, frame.source, **still)
        with self._lock:
            now = self._now = frame.timestamp
            self._frame_index = frame.index
            seen = self._placed(detections)
            self.stabilizer.update(seen, now, frame.index)
            read = self._read = self.stabilizer.read()
            before = self._verdict
            for phase in self.lifecycle.step(now, busy=bool(seen), all_open=read.all_open, cards_gone=not seen):
                if phase == "cleared" and self._collect and self._verdict is None:
                    self.finish()
                self.hub.publish("phase", phase=phase, hand_id=self.hand_id)
                if phase == "cleared":
                    self._reset_hand()
            if self.lifecycle.phase in ("opened", "verdict"):
                self._decide(read)
            changed = self._verdict is not before
            self.hub.publish("frame", frame_index=frame.index, timestamp=frame.timestamp, image=frame.image,
                             jpeg=frame.jpeg, detections=detections, snapshot=read, hand_id=self.hand_id)
        self.timings.append((frame.index, time.perf_counter() - t0, changed))
        if len(self.timings) > 10000:
            del self.timings[:5000]
        return self._verdict if changed else None

    def finish(self) -> None:
        with self._lock:
            read = self.stabilizer.read(final=True)
            if (self._verdict is None and read.spots) or (self._verdict is not None and read.all_open):
                self._publish(read, final=True)

    # -- internals -----------------------------------------------------------------------
    def _placed(self, detections) -> list[Seen]:
        """Each confident-enough reading on a spot, with its spot and row."""
        cards = [d for d in detections.cards if d.confidence >= self.cfg.stabilizer.min_detection_confidence]
        if not cards:
            return []
        table = self.geometry.to_table([d.center for d in cards])
        tw, th = self.geometry.table_size
        out = []
        for det, (x, y) in zip(cards, table):
            where = locate(self.spots, (x / tw, y / th))
            if where is not None:
                x1, y1, x2, y2 = det.box
                out.append(Seen(det.card, float(det.confidence), det.alternatives, where[0], where[1],
                                det.center, det.box, max(y2 - y1, x2 - x1)))
        return out

    def _decide(self, read: TableRead) -> None:
        if not read.all_open:
            return
        st = self.cfg.stabilizer
        if self._now - read.layout_since >= st.hold_seconds - 1e-6 and read.layout_frames >= st.min_votes:
            self._publish(read)

    def _publish(self, read: TableRead, final: bool = False) -> None:
        verdict = judge_paigow(
            read, self.settings, hand_id=self.hand_id, table=self.cfg.table.name, frame_index=read.key_frame,
            model_version=self.model_version, config_digest=self.digest, final=final,
            meta={"timestamp": round(self._now, 3)},
        )
        self._publish_verdict(verdict)

    def _end_hand(self) -> None:
        self.lifecycle.clear()
        self.hub.publish("phase", phase="cleared", hand_id=self.hand_id)
        self._reset_hand()
        self.hub.publish("phase", phase="waiting", hand_id=self.hand_id)

    def _reset_hand(self) -> None:
        self.stabilizer.reset()
        self._read = None
        self._verdict = None
        self.hand_id = _new_hand_id(self.cfg.table.name)


_SEQ = [0]


def _new_hand_id(table: str) -> str:
    _SEQ[0] += 1
    return f"{table}-{time.strftime('%Y%m%d-%H%M%S', time.localtime())}-{_SEQ[0]:04d}"


def _zone(z) -> SpotZone:
    return SpotZone(z.spot, tuple(z.box), z.low_side)


def runner_class(cfg: KioskConfig):
    """The pipeline of the game this table deals."""
    if cfg.game.name == "paigow":
        return PaiGowRunner

    return TableRunner

