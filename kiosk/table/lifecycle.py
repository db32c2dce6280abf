"""The hand's lifecycle: waiting -> cards_down -> opened -> verdict -> cleared -> (next hand).

A pure state machine over what each frame shows. How a phase is judged:
- `busy`: something lies on a seat (read cards, or the felt colour covered: face-down
  rows, a natural's pile, see occupancy.py);
- `all_open`: every active seat shows enough face-up cards (or its natural is spread);
- `held`: the layout of read cards has not changed for `hold_seconds`;
- `cards_gone`: no card is read in this frame; swept = bare felt on the seats for
  `clear_seconds`, or (once opened) no card read for three times that.

>>> lc = Lifecycle(clear_seconds=1.0)
>>> lc.step(0.0, busy=True, all_open=False, cards_gone=False)
['cards_down']
>>> lc.step(1.0, busy=True, all_open=True, cards_gone=False)
['opened']
>>> lc.verdict_published()
['verdict']
>>> lc.step(2.0, busy=False, all_open=False, cards_gone=True)
[]
>>> lc.step(3.1, busy=False, all_open=False, cards_gone=True)
['cleared', 'waiting']
>>> lc.hand_number
2
"""

from __future__ import annotations

PHASES = ("waiting", "cards_down", "opened", "verdict", "cleared")


class Lifecycle:
    def __init__(self, clear_seconds: float = 1.5):
        self.clear_seconds = clear_seconds
        self.phase = "waiting"
        self.hand_number = 1
        self._empty_since: float | None = None
        self._gone_since: float | None = None

    def step(self, now: float, *, busy: bool, all_open: bool, cards_gone: bool) -> list[str]:
        """Advance on one frame; returns the phases entered, in order."""
        entered: list[str] = []

        def go(phase: str) -> None:
            self.phase = phase
            entered.append(phase)

        # Swept: the seats show bare felt for `clear_seconds`; or, once the hand was opened, no card
        # has been read for three times that (chips or a stray object may stay on a seat).
        if not busy:
            self._empty_since = now if self._empty_since is None else self._empty_since
        else:
            self._empty_since = None
        if cards_gone:
            self._gone_since = now if self._gone_since is None else self._gone_since
        else:
            self._gone_since = None
        swept = (self._empty_since is not None and now - self._empty_since >= self.clear_seconds) or (
            self.phase in ("opened", "verdict")
            and self._gone_since is not None
            and now - self._gone_since >= 3 * self.clear_seconds
        )

        if self.phase == "waiting":
            if busy:
                go("cards_down")
        if self.phase == "cards_down":
            if all_open:
                go("opened")
            elif swept:
                self.clear()
                entered += ["cleared", "waiting"]
        elif self.phase == "opened":
            if swept:
                self.clear()
                entered += ["cleared", "waiting"]
            elif not all_open:
                go("cards_down")
        elif self.phase == "verdict":
            if swept:
                self.clear()
                entered += ["cleared", "waiting"]
        return entered

    def verdict_published(self) -> list[str]:
        if self.phase in ("opened", "cards_down"):
            self.phase = "verdict"
            return ["verdict"]
        return []

    def clear(self) -> None:
        """The hand is over (swept, or the dealer started a new hand): the next one begins."""
        self.phase = "waiting"
        self.hand_number += 1
        self._empty_since = None
        self._gone_since = None
