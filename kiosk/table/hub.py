"""Publish/subscribe between the pipeline and whatever listens (display, recorder).

The pipeline thread publishes; listeners are called in the publisher's thread and
must return quickly (hand work to their own queue). A failing listener is logged
and never stops the pipeline.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Callable, Literal

log = logging.getLogger(__name__)

EventKind = Literal["frame", "phase", "verdict", "action", "source"]


@dataclass(frozen=True, slots=True)
class Event:
    kind: EventKind
    # frame:   {"frame_index", "timestamp", "image": np.ndarray BGR (read-only), "detections": Detections, "snapshot": TableSnapshot, "hand_id"}
    # phase:   {"phase": "waiting|cards_down|opened|verdict|cleared", "hand_id"}
    # verdict: {"verdict": Verdict}
    # action:  {"action": DealerAction}
    # source:  {"status": "connected|lost|reconnecting|ended", "detail": str}
    data: dict
    seq: int = 0


Listener = Callable[[Event], None]


class Hub:
    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()
        self._seq = 0
        self.latest: dict[str, Event] = {}

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def publish(self, kind: EventKind, **data) -> Event:
        with self._lock:
            self._seq += 1
            event = Event(kind, data, self._seq)
            self.latest[kind] = event
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:  # a broken display must never stop the table
                log.exception("listener %r failed on %s event", listener, kind)
        return event
