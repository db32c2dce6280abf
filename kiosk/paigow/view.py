"""What the Pai Gow dealer display shows, as one JSON-ready dict: a pure function of the verdict.

Each spot's two hands (cards, words, win/lose/copy), its outcome, net and commission; the
banker's laid-out setting beside its house-way setting with a flag when they differ; the
payments in order (seat 1 to 7); warnings; `needs dealer check` on every doubtful card.

>>> s = paigow_page_state(None, "waiting")
>>> s["game"], s["headline"]["text"], s["spots"]
('paigow', 'Waiting for cards', [])
"""

from __future__ import annotations

from typing import Any

from kiosk.paigow.rulings import payment_lines
from kiosk.web.state import PHASE_TEXT, card_view

OUTCOME = {"win": "WINS", "lose": "LOSES", "push": "PUSH"}
HAND_WORD = {"win": "win", "lose": "lose", "copy": "copy"}


def paigow_page_state(verdict: Any, phase: str, *, hand_id: str | None = None, table: str = "table-1",
                      four_colour: bool = False, source: dict | None = None, last_action: dict | None = None,
                      has_frame: bool = False, reading: Any = None) -> dict:
    current = verdict is not None and (hand_id is None or verdict.hand_id == hand_id)
    base = {"game": "paigow", "table": table, "phase": phase, "phase_text": PHASE_TEXT.get(phase, phase),
            "hand_id": hand_id, "source": source, "last_action": last_action, "has_frame": has_frame,
            "four_colour": four_colour, "verdict": None, "banker": None, "spots": [], "payments": [],
            "house_commission": None, "warnings": [], "checks": []}
    if not current:
        spots = [_reading_spot(s, four_colour) for s in getattr(reading, "spots", ()) or ()]
        return {**base, "headline": {"kind": "info", "text": PHASE_TEXT.get(phase, phase)},
                "spots": [s for s in spots if s["seat"] != 0],
                "banker": next((_reading_banker(s) for s in spots if s["seat"] == 0), None)}
    table_in, result = verdict.showdown, verdict.result
    doubtful = {(c.seat, c.card) for c in verdict.needs_check if c.card}
    checks = list(verdict.integrity) + [c.reason for c in verdict.needs_check]
    scored = "error" not in result
    seats = {s["seat"]: s for s in result.get("seats", [])} if scored else {}
    banker_in = table_in.get("banker", {})
    spots = [_spot(s, seats.get(s["seat"]), doubtful, four_colour) for s in table_in.get("seats", [])]
    return {
        **base,
        "verdict": {"hand_id": verdict.hand_id, "frame_index": verdict.frame_index, "confident": verdict.confident},
        "headline": _headline(result, checks),
        "banker": _banker(banker_in, result.get("banker") if scored else None, doubtful, four_colour),
        "spots": spots,
        "payments": payment_lines(result) if scored else [],
        "house_commission": result.get("house_commission") if scored else None,
        "warnings": list(result.get("warnings", [])),
        "checks": checks,
    }


def _cards(texts: list[str], spot: int, doubtful: set, four_colour: bool) -> list[dict]:
    return [card_view(t, four_colour, (spot, t) in doubtful) for t in texts]


def _spot(table_seat: dict, result: dict | None, doubtful: set, four_colour: bool) -> dict:
    n = table_seat["seat"]
    high, low = _cards(table_seat.get("high", []), n, doubtful, four_colour), \
        _cards(table_seat.get("low", []), n, doubtful, four_colour)
    doubt = any(c["doubt"] for c in high + low)
    out = {"seat": n, "bet": table_seat.get("bet"), "high": high, "low": low,
           "status": "check", "badge": "NEEDS CHECK" if doubt else "NOT SCORED", "high_result": None, "low_result": None, "net": None, "commission": None,
           "hands": None, "foul": None}
    if result is None:
        return out
    out.update(status=result["outcome"] if result["status"] == "set" else "fouled",
               badge=OUTCOME[result["outcome"]] if result["status"] == "set" else "FOUL: LOSES",
               high_result=result["high"], low_result=result["low"], net=result["net"],
               commission=result["commission"], hands=result.get("hands"),
               foul={"count": "wrong card counts (5 high + 2 low)",
                     "order": "low hand not below the high hand"}.get(result["foul"]))
    return out


def _reading_spot(spot: Any, four_colour: bool) -> dict:
    """A spot as read so far (before a verdict): its cards, a doubtful one outlined."""
    def cards(row):
        return [card_view(str(c.card), four_colour, not c.confident) for c in row if c.card is not None]

    return {"seat": spot.spot, "bet": None, "high": cards(spot.high), "low": cards(spot.low), "status": "reading",
            "badge": f"{len(spot.cards)} of 7", "high_result": None, "low_result": None, "net": None,
            "commission": None, "hands": None, "foul": None}


def _reading_banker(spot: dict) -> dict:
    return {"seat": 0, "who": "dealer", "laid_out": {"high": spot["high"], "low": spot["low"]}, "house_way": None,
            "follows_house_way": None, "scored_as": None, "net": None, "commission": None, "hands": None}


def _banker(laid: dict, result: dict | None, doubtful: set, four_colour: bool) -> dict:
    n = laid.get("seat", 0)
    out = {"seat": n, "who": "dealer" if n == 0 else f"seat {n}",
           "laid_out": {"high": _cards(laid.get("high", []), n, doubtful, four_colour),
                        "low": _cards(laid.get("low", []), n, doubtful, four_colour)},
           "house_way": None, "follows_house_way": None, "scored_as": None, "net": None,
           "commission": None, "hands": None}
    if result is None:
        return out
    out.update(house_way={k: [card_view(t, four_colour) for t in result["house_way"][k]] for k in ("high", "low")},
               follows_house_way=result["follows_house_way"], net=result["net"],
               commission=result.get("commission"), hands=result.get("hands"),
               scored_as={k: [card_view(t, four_colour) for t in result["scored_as"][k]] for k in ("high", "low")})
    return out


def _headline(result: dict, checks: list[str]) -> dict:
    if checks:
        return {"kind": "check", "text": "NEEDS DEALER CHECK: " + checks[0]}
    if "error" in result:
        return {"kind": "check", "text": result["error"]}
    if not result["banker"]["follows_house_way"]:
        return {"kind": "foul", "text": "Banker not set by the house way: re-set it as shown (scored that way)"
                if result["banker"]["seat"] == 0 else "Verdict"}
    return {"kind": "ok", "text": "Verdict"}
