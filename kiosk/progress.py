"""A one-line progress bar on a terminal (stderr): done / total, what was found, rate and time left.

Nothing is written when stderr is not a terminal (a pipe, a log, a test), so output that other
tools read stays clean.

>>> import io
>>> out = io.StringIO()
>>> bar = ProgressBar(200, "frames", out=out, force=True, clock=iter([0.0, 2.0, 2.0]).__next__)
>>> bar.update(50, "1 hand found")
>>> out.getvalue().strip()
'[#####...............]  50/200 frames  25%  1 hand found  25.0 frames/s  ETA 0:06'
"""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

WIDTH = 20


class ProgressBar:
    def __init__(self, total: int, unit: str, out: TextIO | None = None, force: bool = False,
                 clock: Callable[[], float] = time.monotonic, every: float = 0.2):
        self.total, self.unit = max(0, int(total)), unit
        self.out = out or sys.stderr
        self.on = force or bool(getattr(self.out, "isatty", lambda: False)())
        self.clock = clock
        self.start = clock()
        self.every = every
        self._last = -1.0
        self._width = 0

    def update(self, done: int, note: str = "", final: bool = False) -> None:
        if not self.on:
            return
        now = self.clock()
        if not final and now - self._last < self.every:
            return
        self._last = now
        rate = done / (now - self.start) if now > self.start else 0.0
        line = self._line(done, note, rate)
        self.out.write("\r" + line.ljust(self._width))
        self._width = len(line)
        self.out.flush()

    def _line(self, done: int, note: str, rate: float) -> str:
        if self.total:
            filled = min(WIDTH, WIDTH * done // self.total)
            left = (self.total - done) / rate if rate > 0 else None
            eta = f"ETA {int(left // 60)}:{int(left % 60):02d}" if left is not None else "ETA -"
            head = f"[{'#' * filled}{'.' * (WIDTH - filled)}] {done:>{len(str(self.total))}}/{self.total} " \
                   f"{self.unit}  {100 * done // self.total}%"
        else:
            eta, head = "", f"{done} {self.unit}"
        parts = [head, note, f"{rate:.1f} {self.unit}/s" if rate else "", eta]
        return "  ".join(p for p in parts if p)

    def close(self, done: int, note: str = "") -> None:
        """The last state, then a new line (the report starts on a line of its own)."""
        if self.on:
            self.update(done, note, final=True)
            self.out.write("\n")
            self.out.flush()
