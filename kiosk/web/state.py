"""What the dealer display shows, as one JSON-ready dict: a pure function of the verdict.

`page_state` takes the latest `Verdict` (or None), the phase of the hand and the table
settings, and returns everything the page draws: the seats with their rows of cards and
a status badge, the pairwise points grid, each seat's total and the payments in the
order they are made (D-10), with shortfalls. No I/O here; `kiosk/web/live.py` feeds it
from the hub.

>>> s = page_state(None, "waiting")
>>> s["headline"]["text"], [seat["badge"]["text"] for seat in s["seats"]]
('Waiting for cards', ['WAITING', 'WAITING', 'WAITING', 'WAITING'])
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from kiosk.cards import ROW_SIZES, ROWS, SUIT_SYMBOLS, CardError, parse_card

DEFAULT_POSITIONS = {1: "bottom", 2: "left", 3: "top", 4: "right"}
NATURAL_NAMES = {
    "dragon": "Dragon",
    "six_pairs": "Six pairs",
    "three_flushes": "Three flushes",
    "three_straights": "Three straights",
}
FOUL_NAMES = {
    "count": "wrong card count",
    "order": "rows out of order",
    "false_natural": "false natural declaration",
}
PHASE_TEXT = {
    "starting": "Starting the kiosk",
    "waiting": "Waiting for cards",
    "cards_down": "Cards down: waiting for hands to open",
    "opened": "Hands open: reading the cards",
    "verdict": "Verdict",
    "cleared": "Table cleared: waiting for the next hand",
}
TWO_COLOUR = {"s": "black", "h": "red", "d": "red", "c": "black"}
FOUR_COLOUR = {"s": "black", "h": "red", "d": "blue", "c": "green"}


def card_view(text: str, four_colour: bool = False, doubt: bool = False) -> dict:
    """How one card is drawn: rank as a dealer says it ('10', not 'T'), the suit symbol, a colour.

    >>> card_view("Td", four_colour=True)["rank"], card_view("Td", four_colour=True)["colour"]
    ('10', 'blue')
    >>> card_view("Xz")["unreadable"]
    True
    """
    try:
        card = parse_card(text)
    except CardError:
        return {"text": str(text), "rank": "?", "suit": "", "symbol": "?", "colour": "unknown",
                "doubt": True, "unreadable": True}
    if card.is_joker:
        return {"text": "Jk", "rank": "JK", "suit": "", "symbol": "\u2605", "colour": "black",
                "doubt": doubt, "unreadable": False}
    rank = "10" if card.rank_char == "T" else card.rank_char
    colours = FOUR_COLOUR if four_colour else TWO_COLOUR
    return {"text": str(card), "rank": rank, "suit": card.suit, "symbol": SUIT_SYMBOLS[card.suit],
            "colour": colours[card.suit], "doubt": doubt, "unreadable": False}


def _num(value):
    """5.0 -> 5 (stakes and stacks come from YAML and JSON as floats)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def payment_order(active: Iterable[int], button: int | None) -> list[tuple[int, int]]:
    """D-10: the pairs of active seats in the order they settle, clockwise from the button.

    >>> payment_order([1, 2, 3, 4], 4)
    [(1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)]
    >>> payment_order([1, 2, 4], 1)
    [(2, 4), (2, 1), (4, 1)]
    """
    seats = sorted(active)
    if not seats:
        return []
    if button is None:
        button = seats[-1]
    order = [s for s in seats if s > button] + [s for s in seats if s <= button]
    return [(order[i], order[j]) for i in range(len(order)) for j in range(i + 1, len(order))]


def _badge(kind: str, text: str, detail: str = "") -> dict:
    # kind picks colour AND shape/icon in the CSS; text says it in words.
    icons = {"set": "\u2714", "foul": "\u2716", "natural": "\u2605", "dead": "\u2014",
             "check": "\u26a0", "waiting": "\u2026", "declared": "\u2605", "error": "\u26a0"}
    return {"kind": kind, "icon": icons.get(kind, ""), "text": text, "detail": detail}


def _seat_badge(seat: int, shown: Mapping, result_seat: Mapping | None, checks: list,
                dead: bool, declared: bool, scored: bool, held: bool = False) -> dict:
    if dead:
        return _badge("dead", "DEAD", "no player: cards count for the deck check only")
    if checks:
        first = checks[0]
        what = f"card {first['card']}" if first.get("card") else "this seat"
        return _badge("check", "NEEDS CHECK", f"{what}: {first['reason']}")
    if result_seat is not None and scored:
        status = result_seat.get("status")
        explanation = result_seat.get("explanation") or ""
        if status == "fouled":
            why = result_seat.get("foul_reason") or FOUL_NAMES.get(result_seat.get("foul") or "", "foul")
            rule = result_seat.get("foul_rule")
            return _badge("foul", "FOUL", f"{why} ({rule})" if rule else why)
        if status == "natural":
            name = NATURAL_NAMES.get(result_seat.get("natural") or "", "natural")
            text = result_seat.get("natural_text") or explanation or name
            return _badge("natural", f"NATURAL: {name.upper()}", f"verified {text}")
        if status == "dead":
            return _badge("dead", "DEAD", explanation)
        if status == "set":
            hands = result_seat.get("rows") or {}
            names = [f"{r[0].upper()}: {hands[r]['hand']}" for r in ROWS
                     if isinstance(hands.get(r), Mapping) and hands[r].get("hand")]
            return _badge("set", "SET", " \u00b7 ".join(names) or explanation)
    if declared:
        return _badge("declared", "NATURAL DECLARED", "verified when the pile is spread")
    if any(shown.get(r) for r in (*ROWS, "cards")):
        if held:
            return _badge("waiting", "READ", "not scored until the table check is resolved")
        return _badge("waiting", "READING", "")
    return _badge("waiting", "WAITING", "")


def _seat_rows(shown: Mapping, four_colour: bool, doubtful: set[str]) -> tuple[list[dict], list[dict]]:
    rows = []
    has_rows = any(shown.get(r) for r in ROWS)
    for row in ROWS:
        cards = [str(c) for c in shown.get(row) or ()]
        rows.append({
            "row": row,
            "expected": ROW_SIZES[row],
            "cards": [card_view(c, four_colour, c in doubtful) for c in cards],
            # a row with the wrong number of cards is marked on the page (RULES §3)
            "short": has_rows and len(cards) != ROW_SIZES[row],
        })
    pile = [card_view(str(c), four_colour, str(c) in doubtful) for c in shown.get("cards") or ()]
    return rows, pile


@dataclass(frozen=True)
class _Shown:
    """What the page takes from the verdict (none: all empty): the showdown read, its result, and
    what holds the payments."""

    verdict: Any
    showdown: dict
    result: dict
    error: Any
    integrity: list
    checks: list[dict]
    scored: bool
    confident: bool
    seats: dict[int, dict]  # seat -> its showdown entry
    results: dict[int, dict]  # seat -> its result entry
    evidence: dict

    @classmethod
    def of(cls, verdict: Any, hand_id: str | None) -> _Shown:
        if verdict is not None and hand_id is not None and verdict.hand_id != hand_id:
            verdict = None  # another hand's verdict is never shown (never stale)
        if verdict is None:
            return cls(None, {}, {}, None, [], [], False, False, {}, {}, {})
        showdown, result = dict(verdict.showdown), dict(verdict.result)
        error = result.get("error")
        return cls(
            verdict, showdown, result, error, list(verdict.integrity),
            [{"seat": n.seat, "reason": n.reason, "card": n.card} for n in verdict.needs_check],
            not error and "seats" in result, bool(verdict.confident),
            {int(s["seat"]): s for s in showdown.get("seats", []) if "seat" in s},
            {int(s["seat"]): s for s in result.get("seats", []) if "seat" in s},
            {(ev.seat, ev.card): ev for ev in verdict.evidence},
        )


@dataclass(frozen=True)
class _Settings:
    """The table's settings as the page shows them: the verdict's where there is one."""

    button: int | None
    stake: Any
    dead: set[int]
    declared: set[int]
    stacks: dict[int, Any]

    @classmethod
    def of(cls, shown: _Shown, settings: Mapping[str, Any]) -> _Settings:
        return cls(
            shown.result.get("button", shown.showdown.get("button", settings.get("button"))),
            _num(shown.showdown.get("stake", settings.get("stake", 1))),
            set(settings.get("dead") or ()), set(settings.get("declared") or ()),
            {int(k): _num(v) for k, v in (settings.get("stacks") or {}).items()},
        )


def page_state(
    verdict: Any,
    phase: str,
    *,
    hand_id: str | None = None,
    table: str = "table-1",
    seats: int = 4,
    positions: Mapping[int, str] | None = None,
    settings: Mapping[str, Any] | None = None,
    live_rows: Mapping[int, Mapping[str, list]] | None = None,
    source: Mapping[str, Any] | None = None,
    last_action: Mapping[str, Any] | None = None,
    corrections: Iterable[Mapping[str, Any]] = (),
    four_colour: bool = False,
    has_frame: bool = False,
    pin_set: bool = False,
) -> dict:
    """Everything the live page shows. `verdict` is a `kiosk.table.verdict.Verdict` or None.

    `settings` are the table's settings for the hand in progress (button, dead, stake,
    stacks, declared), used before a verdict exists; a verdict shows what it was decided
    with. A verdict of another hand than `hand_id` is not shown (never stale).
    """
    positions = {**DEFAULT_POSITIONS, **(positions or {})}
    settings = dict(settings or {})
    shown = _Shown.of(verdict, hand_id)
    table_settings = _Settings.of(shown, settings)
    corrections = list(corrections)
    seat_views = [
        _seat_view(n, shown, table_settings, (live_rows or {}).get(n), positions.get(n, "bottom"), four_colour,
                   [c for c in corrections if c.get("seat") == n])
        for n in range(1, seats + 1)
    ]
    active = [s["seat"] for s in seat_views if not s["dead"]]
    payments = _payments(shown.result, active, table_settings.button) if shown.scored else []
    verdict = shown.verdict
    return {
        "table": table,
        "hand_id": verdict.hand_id if verdict is not None else hand_id,
        "phase": phase,
        "phase_text": PHASE_TEXT.get(phase, phase),
        **_holds(shown, phase, payments),
        "button": table_settings.button,
        "stake": table_settings.stake,
        "pair_stakes": [{"seats": list(p["seats"]), "stake": _num(p["stake"])}
                        for p in shown.showdown.get("pair_stakes", settings.get("pair_stakes", []))],
        "seats": seat_views,
        "grid": _grid(shown.result, active) if shown.scored else None,
        "totals": [{"seat": s["seat"], "points": (shown.results.get(s["seat"]) or {}).get("points")}
                   for s in seat_views if not s["dead"]] if shown.scored and shown.confident else [],
        "payments": payments if shown.confident else [],
        "decided_at": verdict.decided_at if verdict is not None else None,
        "frame_index": verdict.frame_index if verdict is not None else None,
        "model_version": verdict.model_version if verdict is not None else "",
        "source": dict(source or {"status": "starting", "detail": ""}),
        "last_action": dict(last_action) if last_action else None,
        "four_colour": four_colour,
        "has_frame": has_frame,
        "pin_set": pin_set,
    }


def _holds(shown: _Shown, phase: str, payments: list[dict]) -> dict:
    """Whether there is a verdict, whether it is paid, and what holds it."""
    held = shown.verdict is not None and not shown.confident
    return {
        "verdict": shown.verdict is not None,
        "confident": shown.confident,
        "pay_held": held,
        "hold_reasons": _hold_reasons(shown.error, shown.integrity, shown.checks) if held else [],
        "headline": _headline(shown.verdict, phase, shown.error, shown.integrity, shown.checks, payments,
                              shown.scored),
        "error": shown.error,
        "integrity": shown.integrity,
        "needs_check": shown.checks,
    }


def _seat_view(n: int, shown: _Shown, settings: _Settings, live: Mapping[str, list] | None, position: str,
               four_colour: bool, corrections: list) -> dict:
    """One seat as the page draws it: its rows (the verdict's, else those read so far), badge and points."""
    decided = n in shown.seats
    seat = shown.seats[n] if decided else {r: list(v) for r, v in (live or {}).items()}
    dead = bool(seat.get("dead")) if decided else n in settings.dead
    declared = bool(seat.get("declared_natural")) if decided else n in settings.declared
    seat_checks = [c for c in shown.checks if c["seat"] == n]
    rows, pile = _seat_rows(seat, four_colour, {c["card"] for c in seat_checks if c.get("card")})
    result_seat = shown.results.get(n)
    confidences = [ev.confidence for (s, _), ev in shown.evidence.items() if s == n]
    return {
        "seat": n,
        "position": position,
        "is_button": settings.button == n,
        "dead": dead,
        "declared": declared,
        "stack": _num(seat.get("stack", settings.stacks.get(n))) if decided else settings.stacks.get(n),
        "badge": _seat_badge(n, seat, result_seat, seat_checks, dead, declared, shown.scored,
                             held=shown.verdict is not None and not shown.scored),
        "rows": rows,
        "pile": pile,
        "card_count": sum(len(r["cards"]) for r in rows) + len(pile),
        "points": result_seat.get("points") if (result_seat and shown.scored and shown.confident and not dead)
        else None,
        "explanation": (result_seat or {}).get("explanation", ""),
        "row_hands": {r: v.get("hand") for r, v in ((result_seat or {}).get("rows") or {}).items()
                      if isinstance(v, Mapping)},
        "checks": seat_checks,
        "min_confidence": round(min(confidences), 3) if confidences else None,
        "corrections": corrections,
    }


def _grid(result: Mapping, active: list[int]) -> dict:
    """matrix[i][j] = points seat active[i] wins from seat active[j] (None on the diagonal)."""
    index = {seat: i for i, seat in enumerate(active)}
    matrix: list[list[int | None]] = [[None if i == j else 0 for j in active] for i in active]
    for pair in result.get("pairs", []):
        a, b = (int(x) for x in pair["seats"])
        if a in index and b in index:
            matrix[index[a]][index[b]] = pair["points"]
            matrix[index[b]][index[a]] = -pair["points"]
    return {"seats": active, "matrix": matrix}


def _payments(result: Mapping, active: list[int], button: int | None) -> list[dict]:
    """Transfers and shortfalls merged into one list in payment order (D-10)."""
    if "order" in result:  # the rules engine's own payment order (active seats from the button)
        seats = list(result["order"])
        pairs = [(seats[i], seats[j]) for i in range(len(seats)) for j in range(i + 1, len(seats))]
    else:
        pairs = payment_order(active, button)
    order = {frozenset(p): i for i, p in enumerate(pairs)}
    lines: dict[frozenset, dict] = {}
    for t in result.get("transfers", []):
        key = frozenset((t["from"], t["to"]))
        lines[key] = {"from": t["from"], "to": t["to"], "amount": _num(t["amount"]), "shortfall": 0}
    for s in result.get("shortfalls", []):
        key = frozenset((s["from"], s["to"]))
        line = lines.setdefault(key, {"from": s["from"], "to": s["to"], "amount": 0, "shortfall": 0})
        line["shortfall"] = _num(line["shortfall"] + s["amount"])
    ordered = sorted(lines.items(), key=lambda kv: order.get(kv[0], len(order)))
    return [{"n": i + 1, **line} for i, (_, line) in enumerate(ordered)]


def _hold_reasons(error, integrity, checks) -> list[str]:
    """Why payments are held, each once: the checks and integrity problems say it best."""
    reasons = [f"Seat {c['seat']}: {c['reason']}" for c in checks] + list(integrity)
    return reasons or ([_strip_not_scored(error)] if error else [])


def _strip_not_scored(error: str) -> str:
    return re.sub(r"^not scored:\s*", "", str(error), flags=re.I)


def _headline(verdict, phase, error, integrity, checks, payments, scored) -> dict:
    if verdict is None:
        return {"kind": "waiting", "text": PHASE_TEXT.get(phase, phase)}
    if checks:  # the pipeline does not score a hand it cannot read with confidence
        seats = sorted({c["seat"] for c in checks})
        cards = [c["card"] for c in checks if c.get("card")]
        what = f" (card {', '.join(cards)})" if cards else ""
        return {"kind": "check", "text": "DO NOT PAY: dealer check seat "
                + ", ".join(str(s) for s in seats) + what}
    if integrity:
        return {"kind": "check", "text": "DO NOT PAY: table check: " + "; ".join(integrity)}
    if error:
        return {"kind": "error", "text": f"NOT SCORED: {_strip_not_scored(error)}"}
    if not scored:
        return {"kind": "waiting", "text": PHASE_TEXT.get(phase, phase)}
    if not payments:
        return {"kind": "ok", "text": "VERDICT: no payments, all even"}
    return {"kind": "ok", "text": "VERDICT: pay in the order shown"}
