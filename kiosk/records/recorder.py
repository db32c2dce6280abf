"""The recorder: listens on the hub and writes hands to the store, off the pipeline's thread.

The hub calls `_on_event` in the publisher's (pipeline's) thread, so it only picks what
it needs and enqueues it; one writer thread encodes JPEGs, writes files and commits.

Per hand it keeps a clip of the frames that led to the verdict: by default every frame
the pipeline read (`clip_fps=0`), because a replay can only reach the live verdict from
the same frames (the stabiliser votes over all of them). When a frame event carries the
JPEG the pipeline read (`TableRunner(jpeg_quality=...)`), those bytes are stored as they
are. The clip is bounded (`clip_max_frames`): the first `clip_head_frames` (how the hand
began, with a few frames of empty table before it) and the newest frames up to the
verdict; frames left out (budget, or a writer that fell behind) are counted in the clip's
record (`dropped`) and a replay says so. When the hand is first decided the key frame
(the frame the verdict was decided on), the clip and the verdict are written (files
first, then one transaction); every later revision of the verdict and every dealer
action is its own record.

A crash loses at most what was not yet committed: the hand in progress.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kiosk.records.media import (
    ClipFrame,
    MediaFile,
    pack_clip,
    remove_partial_files,
    safe_name,
    write_atomic,
)
from kiosk.records.retention import prune
from kiosk.records.store import HandStore
from kiosk.table.actions import DealerAction
from kiosk.table.hub import Event, Hub
from kiosk.table.verdict import Verdict
from kiosk.vision.images import encode_jpeg

log = logging.getLogger(__name__)

_STOP = object()
HOLD_SECONDS = 1.0  # longest a verdict waits for the frame it was decided on
JPEG_QUALITY = 90  # of stored frames; a recording kiosk reads its frames at this quality too


def config_json(cfg) -> dict:
    if cfg is None:
        return {}
    if hasattr(cfg, "model_dump"):
        return cfg.model_dump(mode="json")
    return dict(cfg)


def _comparable(verdict: Verdict) -> dict:
    """What makes two publications of a verdict the same (its time aside)."""
    data = verdict.to_json()
    data.pop("decided_at", None)
    return data


@dataclass
class _Hand:
    hand_id: str
    started_at: float
    head: list[ClipFrame] = field(default_factory=list)
    tail: deque = field(default_factory=deque)
    recorded: bool = False
    last: dict | None = None  # the last recorded verdict, comparable form
    key_frame_index: int | None = None
    size: tuple[int, int] | None = None  # (width, height) of the frames
    dropped: int = 0  # frames of this hand read live but not in its clip


class Recorder:
    def __init__(
        self,
        store: HandStore,
        hub: Hub,
        cfg=None,
        media_dir: str | Path | None = None,
        *,
        clip_fps: float = 0.0,
        clip_head_frames: int = 6,
        clip_max_frames: int = 300,
        preroll_frames: int = 3,
        jpeg_quality: int = JPEG_QUALITY,
        max_pending_frames: int = 64,
        retention_every: int = 25,
        start: bool = True,
    ):
        self.store = store
        self.cfg = cfg
        self.config = config_json(cfg)
        self.media_dir = Path(media_dir) if media_dir is not None else store.media_dir
        self.clip_interval = 1.0 / clip_fps if clip_fps > 0 else 0.0
        self.clip_head_frames = clip_head_frames
        self.clip_tail_frames = max(1, clip_max_frames - clip_head_frames)
        self.preroll_frames = preroll_frames
        self.jpeg_quality = jpeg_quality
        self.max_pending_frames = max_pending_frames
        self.retention_every = retention_every
        self.dropped_frames = 0
        self.errors = 0
        self.last_error: str | None = None
        self.hands_recorded = 0
        self._queue: queue.Queue = queue.Queue()
        self._held: list = []  # events waiting for the frame after a verdict
        self._hold_lock = threading.Lock()
        self._pending_frames = 0
        self._pending_lock = threading.Lock()
        # Publisher-thread state: the last few frames (for the key frame) and clip pacing.
        self._recent: deque = deque(maxlen=6)
        self._last_kept: dict = {}
        self._current_hand: str | None = None
        self._last_frame_index: int | None = None
        # Writer-thread state.
        self._hands: dict[str, _Hand] = {}
        self._preroll: deque = deque(maxlen=max(1, preroll_frames))
        self._thread = threading.Thread(target=self._run, name="recorder", daemon=True)
        self._unsubscribe = hub.subscribe(self._on_event)
        if start:
            self._thread.start()

    # -- publisher's thread: pick and enqueue only ------------------------------------------

    def _on_event(self, event: Event) -> None:
        data = event.data
        if event.kind == "frame":
            self._on_frame(data)
        elif event.kind == "phase":
            self._current_hand = data.get("hand_id")
            self._put(("phase", data.get("phase"), data.get("hand_id"), time.time()))
        elif event.kind == "verdict":
            # Held until the next frame: the runner publishes the frame a verdict was decided on
            # right after the verdict, and a replay needs that frame in the clip.
            with self._hold_lock:
                self._held.append(("verdict", data["verdict"], None, time.time()))
        elif event.kind == "action":
            action: DealerAction = data["action"]
            self._put(
                ("action", action, bool(data.get("ok", True)), str(data.get("message", "")),
                 self._last_frame_index, self._current_hand, time.time())
            )

    def _put(self, item) -> None:
        """Enqueue, behind any verdict still waiting for its frame (order is kept)."""
        with self._hold_lock:
            if self._held:
                self._held.append(item)
                return
        self._queue.put(item)

    def _on_frame(self, data: dict) -> None:
        hand_id = data.get("hand_id", self._current_hand)
        index = data.get("frame_index", 0)
        ts = float(data.get("timestamp", 0.0))
        image, jpeg = data.get("image"), data.get("jpeg")
        picture = jpeg if jpeg is not None else image  # the bytes the pipeline read, when it says
        if picture is None:
            return
        size = (int(image.shape[1]), int(image.shape[0])) if isinstance(image, np.ndarray) else None
        self._last_frame_index = index
        with self._hold_lock:
            self._recent.append((index, ts, picture))
            held, self._held = self._held, []
        # The frame right after a verdict is always kept (bypassing pacing and the bound).
        forced = any(item[0] == "verdict" and item[1].hand_id == hand_id for item in held)
        last = self._last_kept.get(hand_id)
        paced_out = last is not None and 0 <= ts - last < self.clip_interval - 1e-6
        if forced or not paced_out:
            with self._pending_lock:
                room = self._pending_frames < self.max_pending_frames
                if room or forced:
                    self._pending_frames += 1
                else:
                    self.dropped_frames += 1
            if room or forced:
                self._last_kept = {hand_id: ts}  # pacing restarts with each hand
                self._queue.put(("frame", hand_id, index, ts, picture, size))
            else:
                self._queue.put(("dropped", hand_id, index))
        self._release(held)

    def _release(self, held: list) -> None:
        with self._hold_lock:
            recent = list(self._recent)
        for item in held:
            if item[0] == "verdict":
                verdict = item[1]
                key = next((p for i, _, p in reversed(recent) if i == verdict.frame_index), None)
                item = ("verdict", verdict, key, item[3])
            self._queue.put(item)

    def _release_stale(self, age: float) -> None:
        """Verdicts whose next frame never came (end of a file, a lost camera, a dealer action)."""
        with self._hold_lock:
            if not self._held or time.time() - self._held[0][-1] < age:
                return
            held, self._held = self._held, []
        self._release(held)

    # -- writer thread ----------------------------------------------------------------------

    def _run(self) -> None:
        try:
            remove_partial_files(self.media_dir)
        except OSError:
            pass
        self._prune()
        while True:
            try:
                item = self._queue.get(timeout=0.25)
            except queue.Empty:
                self._release_stale(HOLD_SECONDS)
                continue
            self._release_stale(HOLD_SECONDS)
            try:
                if item is _STOP:
                    return
                self._handle(item)
            except Exception as err:  # a full disk must not stop the table
                self.errors += 1
                self.last_error = f"{type(err).__name__}: {err}"
                log.exception("recorder failed on %s", item[0] if isinstance(item, tuple) else item)
            finally:
                self._queue.task_done()

    def _handle(self, item) -> None:
        kind = item[0]
        if kind == "frame":
            with self._pending_lock:
                self._pending_frames -= 1
            _, hand_id, index, ts, picture, size = item
            self._frame(hand_id, index, ts, picture, size)
        elif kind == "dropped":
            if item[1] is not None:
                self._hand(item[1], time.time()).dropped += 1
        elif kind == "phase":
            _, phase, hand_id, at = item
            if phase == "cleared":
                self._forget(keep=None)
            elif hand_id is not None:
                hand = self._hand(hand_id, at)
                if phase == "cards_down" and not hand.recorded:
                    hand.started_at = at  # the hand starts when cards hit the felt, not at the last clear
        elif kind == "verdict":
            _, verdict, key, at = item
            self._verdict(verdict, key, at)
        elif kind == "action":
            _, action, ok, message, frame_index, current, at = item
            if action.hand_id is None and current is not None:
                action = DealerAction(**{**_fields(action), "hand_id": current})
            self.store.append_action(action, ok, message, frame_index, created_at=at)

    def _hand(self, hand_id: str, at: float) -> _Hand:
        hand = self._hands.get(hand_id)
        if hand is None:
            self._forget(keep=None, unrecorded_only=True)
            hand = _Hand(hand_id, at, head=list(self._preroll))
            self._preroll.clear()
            self._hands[hand_id] = hand
        return hand

    def _forget(self, keep: str | None, unrecorded_only: bool = False) -> None:
        """Drop hands no longer on the table (their clips too); keep a few recorded ones for revisions."""
        for hid in list(self._hands):
            hand = self._hands[hid]
            if hid == keep or (unrecorded_only and hand.recorded):
                continue
            del self._hands[hid]
        while len(self._hands) > 4:
            self._hands.pop(next(iter(self._hands)))

    def _frame(self, hand_id, index: int, ts: float, picture, size) -> None:
        jpeg = picture if isinstance(picture, (bytes, bytearray)) else encode_jpeg(picture, self.jpeg_quality)
        frame = ClipFrame(int(index), ts, bytes(jpeg))
        if hand_id is None:
            self._preroll.append(frame)
            return
        hand = self._hand(hand_id, time.time())
        if size is not None:
            hand.size = size
        if len(hand.head) < self.clip_head_frames and not hand.recorded:
            hand.head.append(frame)
        else:
            hand.tail.append(frame)
            while len(hand.tail) > self.clip_tail_frames:
                hand.tail.popleft()
                hand.dropped += 1

    def _verdict(self, verdict: Verdict, key, at: float) -> None:
        hand = self._hands.get(verdict.hand_id)
        if hand is None:
            hand = self._hand(verdict.hand_id, at)
        comparable = _comparable(verdict)
        if hand.recorded and comparable == hand.last:
            return  # republished unchanged
        revision = self.store.next_revision(verdict.hand_id)
        folder = self.media_dir / time.strftime("%Y-%m-%d", time.localtime(at)) / safe_name(verdict.hand_id)
        media: list[MediaFile] = []
        if key is not None or not hand.recorded:
            media += self._key_frame(folder, revision, verdict, key, hand)
        # The frames since the previous revision: a replay feeds every revision's clip in order.
        media += self._clip(folder, revision, verdict, hand)
        self.store.append_verdict(
            verdict, config=self.config, started_at=hand.started_at, media=media, created_at=at
        )
        if not hand.recorded:
            self.hands_recorded += 1
            if self.retention_every and self.hands_recorded % self.retention_every == 0:
                self._prune()
        hand.recorded = True
        hand.last = comparable
        hand.head, hand.tail, hand.dropped = [], deque(), 0

    def _key_frame(self, folder: Path, revision: int, verdict: Verdict, key, hand: _Hand) -> list[MediaFile]:
        if key is None:  # not among the last frames: the nearest clip frame at or before it
            frames = [f for f in (*hand.head, *hand.tail) if f.frame_index <= verdict.frame_index]
            if not frames:
                return []
            jpeg, index = frames[-1].jpeg, frames[-1].frame_index
        else:
            jpeg = key if isinstance(key, (bytes, bytearray)) else encode_jpeg(key, self.jpeg_quality)
            index = verdict.frame_index
            if isinstance(key, np.ndarray):
                hand.size = (int(key.shape[1]), int(key.shape[0]))
        if hand.key_frame_index == index:
            return []
        path = folder / f"r{revision}-key-{index}.jpg"
        digest = write_atomic(path, bytes(jpeg))
        hand.key_frame_index = index
        meta = {"width": hand.size[0], "height": hand.size[1]} if hand.size else {}
        return [MediaFile("key_frame", self.store.media_relpath(path), digest, len(jpeg), index, meta)]

    def _clip(self, folder: Path, revision: int, verdict: Verdict, hand: _Hand) -> list[MediaFile]:
        frames = [*hand.head, *hand.tail]
        if not frames:
            return []
        data, manifest = pack_clip(frames)
        path = folder / f"r{revision}-clip.mjpeg"
        digest = write_atomic(path, data)
        meta = {"frames": manifest, "fps": round(1.0 / self.clip_interval, 3) if self.clip_interval else None,
                "dropped": hand.dropped}
        if hand.size:
            meta.update(width=hand.size[0], height=hand.size[1])
        return [MediaFile("clip", self.store.media_relpath(path), digest, len(data), frames[-1].frame_index, meta)]

    def _prune(self) -> None:
        records = getattr(self.cfg, "records", None)
        if records is None:
            return

        try:
            prune(self.store, records.retention_days, records.disk_budget_mb, time.time(),
                  keep_unshipped=getattr(records, "central", None) is not None)
        except Exception as err:
            self.errors += 1
            self.last_error = f"retention: {err}"
            log.exception("retention failed")

    # -- control ----------------------------------------------------------------------------

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait until everything published so far is written (tests, shutdown)."""
        self._release_stale(0.0)
        deadline = time.time() + timeout
        while self._queue.unfinished_tasks:
            if time.time() > deadline:
                return False
            time.sleep(0.01)
        return True

    def close(self, timeout: float = 30.0) -> None:
        self._unsubscribe()
        self._release_stale(0.0)
        if self._thread.is_alive():
            self._queue.put(_STOP)
            self._thread.join(timeout)


def _fields(action: DealerAction) -> dict:
    return {name: getattr(action, name) for name in DealerAction.__dataclass_fields__}
