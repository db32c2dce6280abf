"""From a stable Pai Gow read to a `Verdict`: the `kiosk score` table, its result, the evidence.

The table object is built from whatever was read (so the dealer sees it), but scored only when
every card is confident, each card lies once and every spot holds seven cards; otherwise the
result is `{"game": "paigow", "error": "not scored: ..."}` saying why. A doubtful card never
makes a foul.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from kiosk.paigow.api import GAME, score_paigow_json
from kiosk.paigow.reading import TableRead
from kiosk.table.judge import _number as number  # 5.0 -> 5, as the Chinese Poker table sends it
from kiosk.table.verdict import CardEvidence, NeedsCheck, Verdict


@dataclass(frozen=True, slots=True)
class PaiGowSettings:
    """The game around the cards, from the config (`paigow` section)."""

    house_way: Any = "foxwoods"  # a built-in's name, or a casino's own definition (dict, sent inline)
    commission: float = 0.05
    banker_seat: int = 0  # 0: the dealer banks (spot 0); 1-7: that seat banks, on its own spot
    bets: tuple[tuple[int, float], ...] = ()
    default_bet: float | None = None
    banker_stack: float | None = None

    def bet(self, seat: int) -> float | None:
        return dict(self.bets).get(seat, self.default_bet)


def table_of(read: TableRead, settings: PaiGowSettings) -> dict:
    """The `kiosk score` input for what was read."""
    banker_spot = read.spot(settings.banker_seat)
    banker: dict = {"seat": settings.banker_seat,
                    "high": [str(c.card) for c in banker_spot.high] if banker_spot else [],
                    "low": [str(c.card) for c in banker_spot.low] if banker_spot else []}
    if settings.banker_stack is not None:
        banker["stack"] = number(settings.banker_stack)
    seats = []
    for spot in read.spots:
        if spot.spot in (0, settings.banker_seat):
            continue
        entry: dict = {"seat": spot.spot, "high": [str(c.card) for c in spot.high],
                       "low": [str(c.card) for c in spot.low]}
        bet = settings.bet(spot.spot)
        if bet is not None:
            entry["bet"] = number(bet)
        seats.append(entry)
    out: dict = {"game": GAME, "house_way": settings.house_way, "commission": settings.commission}
    return {**out, "banker": banker, "seats": seats}


def _checks(read: TableRead, settings: PaiGowSettings, final: bool) -> tuple[list[NeedsCheck], list[str]]:
    checks, integrity = list(read.needs_check), list(read.integrity)
    if settings.banker_seat and read.spot(0) is not None:
        integrity.append(f"cards on the dealer's spot while seat {settings.banker_seat} banks")
    if read.spot(settings.banker_seat) is None:
        checks.append(NeedsCheck(settings.banker_seat, "no banker hand read"))
    for spot in read.spots:
        who = "banker" if spot.spot == settings.banker_seat else f"seat {spot.spot}"
        if not spot.complete and (final or spot.spot == settings.banker_seat):
            checks.append(NeedsCheck(spot.spot, f"{who}: {len(spot.cards)} cards read, 7 expected"))
        if spot.spot not in (0, settings.banker_seat) and settings.bet(spot.spot) is None:
            checks.append(NeedsCheck(spot.spot, f"{who}: no bet (config paigow.bets)"))
    return checks, integrity


def judge_paigow(read: TableRead, settings: PaiGowSettings, *, hand_id: str, table: str, frame_index: int,
                 model_version: str = "", config_digest: str = "", final: bool = False,
                 meta: dict | None = None) -> Verdict:
    showdown = table_of(read, settings)
    checks, integrity = _checks(read, settings, final)
    if checks or integrity:
        reasons = integrity + [c.reason for c in checks]  # each names its place
        result = {"game": GAME, "error": "not scored: " + "; ".join(reasons)}
    else:
        result = score_paigow_json(showdown)
    evidence = tuple(
        CardEvidence(str(c.card), spot.spot, c.row, c.frame_index, tuple(round(float(v), 1) for v in c.box),
                     c.confidence, c.votes)
        for spot in read.spots for c in spot.cards if c.card is not None
    )
    return Verdict(
        hand_id=hand_id, table=table, decided_at=time.time(), frame_index=frame_index, showdown=showdown,
        result=result, needs_check=tuple(checks), evidence=evidence, integrity=tuple(integrity),
        model_version=model_version, config_digest=config_digest,
        meta={"game": GAME, "frames": read.frames, "final": final, **(meta or {})},
    )


def paigow_config_of(table: dict, base: dict) -> dict:
    """The config's `paigow` section a recorded table object was played under (for a replay)."""
    out = dict(base)
    banker = table.get("banker") or {}
    out.update(banker=banker.get("seat", 0), banker_stack=banker.get("stack"),
               commission=table.get("commission", 0.05),
               bets={int(s["seat"]): s["bet"] for s in table.get("seats", []) if s.get("bet") is not None})
    way = table.get("house_way", "foxwoods")
    if isinstance(way, dict):
        out["house_ways"] = [w for w in out.get("house_ways") or [] if w.get("name") != way.get("name")] + [way]
        way = way["name"]
    out["house_way"] = way
    return out
