"""The display's view of the table: follows the hub and says when something changed.

A `LiveState` subscribes to the hub; its listener only stores references and bumps a
version number (listeners run in the pipeline's thread and must return at once).
Server-sent-event streams wait on that version; `state()` builds the page dict with
`kiosk.web.state.page_state`.
"""

from __future__ import annotations

import secrets
import threading
import time
from typing import Any

from kiosk.cards import ROWS
from kiosk.paigow.view import paigow_page_state
from kiosk.table.config import KioskConfig
from kiosk.table.hub import Event, Hub
from kiosk.web.state import page_state


class LiveState:
    def __init__(self, hub: Hub, runner: Any = None, cfg: KioskConfig | None = None) -> None:
        self.hub = hub
        self.runner = runner
        self.cfg = cfg or KioskConfig()
        self.boot = secrets.token_hex(4)  # changes on restart: the page reloads itself
        self._cond = threading.Condition()
        self.version = 0
        self.closed = False
        self.phase = "starting"
        self.hand_id: str | None = None
        self.verdict = None
        self.source: dict | None = None
        self.last_action: dict | None = None
        self.corrections: list[dict] = []
        self.frame: dict | None = None  # latest "frame" event data (image shared, never modified)
        self.frame_at: float | None = None  # wall time of the latest frame
        self._seen: tuple = ()
        self._seen_at = 0.0
        for kind in ("source", "phase", "verdict", "action", "frame"):
            if kind in hub.latest:
                self._on_event(hub.latest[kind], bump=False)
        self._unsubscribe = hub.subscribe(self._on_event)

    # -- hub listener (pipeline thread: store and notify only) --
    def _on_event(self, event: Event, bump: bool = True) -> None:
        data = event.data
        if event.kind == "frame":
            first = self.frame is None
            self.frame = data
            self.frame_at = time.time()
            # Before a verdict the page shows the cards as they are being read: a new
            # state when the count per seat changes, at most twice a second.
            seen = _card_counts(data.get("snapshot"))
            now = time.monotonic()
            changed = not self._has_verdict() and seen != self._seen and now - self._seen_at >= 0.5
            if changed:
                self._seen, self._seen_at = seen, now
            if (first or changed) and bump:
                self._bump()
            return
        if event.kind == "phase":
            new_hand = data.get("hand_id")
            if new_hand != self.hand_id:
                self.corrections = []
            self.phase = data.get("phase", self.phase)
            self.hand_id = new_hand
        elif event.kind == "verdict":
            verdict = data.get("verdict")
            self.verdict = verdict
            if verdict is not None and self.hand_id is None:
                self.hand_id = verdict.hand_id
        elif event.kind == "action":
            action = data.get("action")
            ok = bool(data.get("ok", True))
            self.last_action = {
                "kind": getattr(action, "kind", "?"),
                "seat": getattr(action, "seat", None),
                "ok": ok,
                "message": data.get("message", ""),
                "at": getattr(action, "at", 0.0) or time.time(),
                "seq": event.seq,
            }
            if ok and getattr(action, "kind", "") == "correct_card":
                self.corrections.append({
                    "seat": action.seat, "row": action.row, "index": action.index,
                    "before": action.before, "after": action.after, "by": action.by, "at": action.at,
                })
        elif event.kind == "source":
            self.source = {"status": data.get("status", "?"), "detail": data.get("detail", ""),
                           "at": time.time()}
        if bump:
            self._bump()

    def attach(self, runner: Any) -> None:
        """The pipeline is up: take its phase and hand (it announces only changes)."""
        self.runner = runner
        state = getattr(runner, "state", None)
        if state is not None:
            self.phase = getattr(state, "phase", self.phase)
            self.hand_id = getattr(state, "hand_id", self.hand_id)
        self._bump()

    def _has_verdict(self) -> bool:
        """A verdict on the hand in progress (not the previous hand's)."""
        verdict = self.verdict
        return verdict is not None and (self.hand_id is None or verdict.hand_id == self.hand_id)

    def _bump(self) -> None:
        with self._cond:
            self.version += 1
            self._cond.notify_all()

    def wait(self, since: int, timeout: float) -> int:
        """Block until the version differs from `since` (or `timeout`); return the version."""
        with self._cond:
            self._cond.wait_for(lambda: self.version != since or self.closed, timeout)
            return self.version

    def close(self) -> None:
        self._unsubscribe()
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    # -- reading --
    @property
    def event_id(self) -> str:
        return f"{self.boot}-{self.version}"

    def settings(self) -> dict:
        """The table settings for the hand in progress, from the runner when there is one."""
        state = getattr(self.runner, "state", None) if self.runner is not None else None
        if state is None:
            game = self.cfg.game
            return {"button": game.button, "dead": list(game.dead), "stake": game.stake,
                    "stacks": dict(game.stacks or {}), "declared": [],
                    "pair_stakes": [{"seats": list(p.seats), "stake": p.stake} for p in game.pair_stakes]}
        return {
            "button": getattr(state, "button", None),
            "dead": list(getattr(state, "dead", ()) or ()),
            "stake": getattr(state, "stake", 1),
            "stacks": dict(getattr(state, "stacks", {}) or {}),
            "declared": list(getattr(state, "declared", ()) or ()),
            "pair_stakes": [{"seats": list(seats), "stake": stake}
                            for seats, stake in (getattr(state, "pair_stakes", ()) or ())],
        }

    def live_rows(self) -> dict[int, dict[str, list]]:
        """Cards seen on the table right now (before a verdict), per seat and row."""
        state = getattr(self.runner, "state", None) if self.runner is not None else None
        snapshot = getattr(state, "snapshot", None)
        return snapshot_rows(snapshot)

    def frame_age(self) -> float | None:
        """Seconds since the latest camera frame (None before the first)."""
        return None if self.frame_at is None else round(max(0.0, time.time() - self.frame_at), 1)

    def state(self) -> dict:
        cfg = self.cfg
        web = cfg.web
        if is_paigow(cfg):
            return paigow_page_state(
                self.verdict, self.phase, hand_id=self.hand_id, table=cfg.table.name,
                four_colour=web.four_colour, source=self.source,
                last_action=self.last_action, has_frame=self.frame is not None,
                reading=None if self._has_verdict() else getattr(getattr(self.runner, "state", None), "snapshot", None),
            ) | {"version": self.version, "event_id": self.event_id, "frame_age": self.frame_age()}
        return page_state(
            self.verdict,
            self.phase,
            hand_id=self.hand_id,
            table=cfg.table.name,
            seats=cfg.table.seats,
            positions=seat_positions(cfg),
            settings=self.settings(),
            live_rows=None if self._has_verdict() else self.live_rows(),
            source=self.source,
            last_action=self.last_action,
            corrections=list(self.corrections),
            four_colour=web.four_colour,
            has_frame=self.frame is not None,
            pin_set=bool(web.floor_pin_hash),
        ) | {"version": self.version, "event_id": self.event_id, "frame_age": self.frame_age()}


def is_paigow(cfg: KioskConfig) -> bool:
    """Does this table deal Pai Gow Poker (config `game.name`)?"""
    return cfg.game.name == "paigow"


def seat_positions(cfg: KioskConfig) -> dict[int, str]:
    """Where each seat is drawn: its `facing` from the geometry config (the default where none is set)."""
    return {seat.seat: seat.facing for seat in cfg.geometry.seats or () if seat.facing}


def snapshot_rows(snapshot: Any) -> dict[int, dict[str, list]]:
    """Seat -> row -> card texts from a TableSnapshot, read defensively (it is the pipeline's type)."""
    if snapshot is None:
        return {}
    seats = getattr(snapshot, "seats", None)
    if seats is None and hasattr(snapshot, "to_json"):
        seats = snapshot.to_json().get("seats")
    out: dict[int, dict[str, list]] = {}
    for seat in (seats.values() if isinstance(seats, dict) else seats or ()):
        get = seat.get if isinstance(seat, dict) else (lambda k, s=seat: getattr(s, k, None))
        number = get("seat")
        if number is None:
            continue
        rows = {}
        for row in ROWS:  # anything else on a snapshot seat is ignored
            cards = get(row)
            if cards:
                rows[row] = [str(getattr(c, "card", c)) for c in cards]
        out[int(number)] = rows
    return out


def _card_counts(snapshot: Any) -> tuple:
    seats = getattr(snapshot, "seats", None) or ()
    return tuple(len(getattr(seat, "cards", ()) or ()) for seat in seats)
