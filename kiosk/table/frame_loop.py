"""The thread that feeds a table's frames to its pipeline, shared by both games' runners
(kiosk.table.runner.TableRunner, kiosk.paigow.runner.PaiGowRunner).

A runner sets `source`, `hub`, `_stop`, `_thread`, `error`, `failing` and `THREAD_NAME`, and has
`process(frame)` and `finish()`; to publish verdicts it also sets `_verdict`, `verdicts`, `_hand_verdicts`,
`_collect`, `lifecycle` and `hand_id`.
"""

from __future__ import annotations

import logging
import threading

from kiosk.table.judge import same_verdict

log = logging.getLogger(__name__)


class FrameLoop:
    THREAD_NAME = "table-runner"

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run_safely, name=self.THREAD_NAME, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        close = getattr(self.source, "close", None)
        if close is not None:
            close()

    @property
    def problem(self) -> str | None:
        """Why the pipeline is not producing verdicts (stopped, or every frame failing); None when well."""
        if self.error is not None:
            return f"the table pipeline stopped: {self.error}"
        if self.failing is not None:
            return f"frames are failing: {self.failing}"
        return None

    def is_alive(self) -> bool:
        """Is the pipeline thread running (started and not finished)?"""
        return self._thread is not None and self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _publish_verdict(self, verdict) -> None:
        """Publish `verdict` unless it says what the last one said; keep the recent ones (all of them while
        `run_to_end` collects) and move the hand's phase on."""
        if same_verdict(verdict, self._verdict):
            return
        self._verdict = verdict
        self.verdicts.append(verdict)
        if len(self.verdicts) > 100:  # a live table runs for days: keep only the recent ones
            del self.verdicts[:50]
        self._hand_verdicts.pop(verdict.hand_id, None)
        self._hand_verdicts[verdict.hand_id] = verdict
        if not self._collect and len(self._hand_verdicts) > 20:
            del self._hand_verdicts[next(iter(self._hand_verdicts))]
        self.hub.publish("verdict", verdict=verdict)
        for phase in self.lifecycle.verdict_published():
            self.hub.publish("phase", phase=phase, hand_id=self.hand_id)

    def _run_safely(self) -> None:
        try:
            self._loop(tolerate=50)
            if not getattr(self.source, "live", False):
                self.finish()
        except Exception as err:  # never let the pipeline die silently
            self.error = err
            log.exception("%s stopped", self.THREAD_NAME)
            self.hub.publish("source", status="lost", detail=f"pipeline error: {err}")

    def _loop(self, tolerate: int = 0) -> None:
        """Every frame of the source; live, a frame that fails is skipped (up to `tolerate` in a row)."""
        if self.source is None:
            return
        failures = 0
        for frame in self.source:
            if self._stop.is_set():
                break
            try:
                self.process(frame)
                failures = 0
                self.failing = None
            except Exception as err:
                failures += 1
                self.failing = f"frame {frame.index}: {type(err).__name__}: {err}"
                if failures > tolerate:
                    raise
                log.warning("frame %s of %s skipped: %s", frame.index, frame.source, err)
