"""From a stable hand to a `Verdict`: the `kiosk score` showdown, its result, the evidence.

The showdown is built from the read whatever its state (so the dealer sees what was
read), but it is scored only when every active seat is confident and the table has no
integrity problem; otherwise the result is `{"error": ...}` saying why (RULES §3, §7:
a doubtful seat is never fouled, a duplicate is never scored through).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from kiosk.cards import ROWS
from kiosk.rules.api import score_json
from kiosk.table.stable_hand import StableHand
from kiosk.table.verdict import CardEvidence, NeedsCheck, Verdict


@dataclass(frozen=True, slots=True)
class HandSettings:
    """The game around the cards: from the config, changed by dealer actions."""

    profile: str = "mandarin"
    button: int | None = None
    stake: float = 1
    pair_stakes: tuple[tuple[tuple[int, int], float], ...] = ()
    stacks: tuple[tuple[int, float], ...] = ()
    dead: frozenset[int] = frozenset()
    declared: frozenset[int] = frozenset()  # declared by the dealer
    undeclared: frozenset[int] = frozenset()  # the dealer withdrew a declaration seen as a pile

    def stack(self, seat: int) -> float | None:
        return dict(self.stacks).get(seat)


def _number(value: float):
    return int(value) if float(value).is_integer() else value


def showdown_of(hand: StableHand, settings: HandSettings) -> dict:
    """The `kiosk score` input for what was read (read cards only; unreadable ones left out)."""
    seats = []
    for seat in hand.seats:
        if seat.dead:
            seats.append({"seat": seat.seat, "dead": True})
            continue
        entry: dict = {"seat": seat.seat}
        if seat.declared:
            entry["declared_natural"] = True
            entry["cards"] = [str(c.card) for c in seat.cards if c.card is not None]
        else:
            for row in ROWS:
                entry[row] = [str(c.card) for c in seat.row(row) if c.card is not None]
        stack = settings.stack(seat.seat)
        if stack is not None:
            entry["stack"] = _number(stack)
        seats.append(entry)
    out: dict = {"profile": settings.profile}
    if settings.button is not None:
        out["button"] = settings.button
    out["stake"] = _number(settings.stake)
    if settings.pair_stakes:
        out["pair_stakes"] = [{"seats": list(p), "stake": _number(s)} for p, s in settings.pair_stakes]
    out["seats"] = seats
    return out


def judge(
    hand: StableHand,
    settings: HandSettings,
    *,
    hand_id: str,
    table: str,
    frame_index: int,
    model_version: str = "",
    config_digest: str = "",
    final: bool = False,
    meta: dict | None = None,
    score=None,
) -> Verdict:
    """`score`: the scorer (default `kiosk.rules.api.score_json`); the runner passes a memo of it."""
    showdown = showdown_of(hand, settings)
    checks = list(hand.needs_check)
    integrity = list(hand.integrity)
    for seat in hand.active:
        if seat.pile:
            checks.append(NeedsCheck(seat.seat, "natural declared, pile not spread yet"))
        elif not seat.open and final:
            n = len(seat.cards)
            checks.append(NeedsCheck(
                seat.seat,
                f"not open: {n} card{'s' if n != 1 else ''} read"
                " (face down or unreadable; or mark the seat dead)",
            ))
    if integrity or checks:
        reasons = integrity + [f"seat {c.seat}: {c.reason}" for c in checks]
        result = {"error": "not scored: " + "; ".join(reasons)}
    else:
        result = (score or score_json)(showdown)
        result, extra = _pile_declarations(hand, result)
        checks.extend(extra)
    evidence = tuple(
        CardEvidence(str(c.card), seat.seat, "pile" if seat.pile else (c.row or "back"), c.frame_index,
                     tuple(round(float(v), 1) for v in c.box), c.confidence, c.votes)
        for seat in hand.seats for c in seat.cards if c.card is not None
    )
    confidence = {str(s.seat): round(s.confidence, 4) for s in hand.active}
    return Verdict(
        hand_id=hand_id,
        table=table,
        decided_at=time.time(),
        frame_index=frame_index,
        showdown=showdown,
        result=result,
        needs_check=tuple(checks),
        evidence=evidence,
        integrity=tuple(integrity),
        model_version=model_version,
        config_digest=config_digest,
        meta={"seat_confidence": confidence, "frames": hand.frames, "final": final, **(meta or {})},
    )


def _pile_declarations(hand: StableHand, result: dict) -> tuple[dict, list[NeedsCheck]]:
    """A declaration the kiosk only inferred from a pile is not enough to foul a player (D-4)."""
    if "error" in result:
        return result, []
    checks = []
    for s in result.get("seats", []):
        seat = next((x for x in hand.seats if x.seat == s["seat"]), None)
        if seat is not None and seat.declared_by == "pile" and s.get("foul") == "false_natural":
            checks.append(NeedsCheck(
                seat.seat,
                "seen as a natural pile but its cards hold no natural:"
                " dealer, confirm or withdraw the declaration",
            ))
    if checks:
        return {"error": "not scored: " + "; ".join(f"seat {c.seat}: {c.reason}" for c in checks)}, checks
    return result, []


def same_verdict(a: Verdict | None, b: Verdict | None) -> bool:
    """Would the dealer see the same thing? Running counts in a reason ("19 of 19 frames",
    a confidence creeping up) do not make a new verdict; a different card or problem does."""
    if a is None or b is None:
        return a is b

    def checks(v: Verdict):
        return tuple((c.seat, c.card, c.reason.split(" (")[0]) for c in v.needs_check)

    return (a.showdown, a.integrity, checks(a)) == (b.showdown, b.integrity, checks(b)) and (
        a.result == b.result or ("error" in a.result and "error" in b.result)
    )
