"""The `kiosk score` contract as one pure function: a showdown dict in, a result dict out.

This is what the table pipeline calls. A showdown that cannot be scored comes back as
`{"error": "..."}` naming the seat and the card; nothing else is caught.

>>> r = score_json({"button": 2, "seats": [
...     {"seat": 1, "front": "As Ad Kc".split(), "middle": "2c 3c 4c 5c 6c".split(),
...      "back": "7d 8d 9d Td Jd".split()},
...     {"seat": 2, "front": "Qs Qd 4h".split(), "middle": "8s 8h Ah Kh 2d".split(),
...      "back": "9s 9h 9c 3d 3h".split()}]})
>>> [(s["seat"], s["status"], s["foul"], s["points"]) for s in r["seats"]]
[(1, 'set', None, 21), (2, 'fouled', 'order', -21)]
>>> r["transfers"]
[{'from': 2, 'to': 1, 'amount': 21}]
>>> score_json({"seats": [{"seat": 1, "front": ["Xx"]}]})
{'error': "seat 1 front: 'Xx' is not a card (write rank then suit, e.g. As, Td, 10d)"}
"""

from __future__ import annotations

from typing import Any, Mapping

from kiosk.cards import RANKS, ROWS, Card
from kiosk.rules.profiles import ScoringProfile
from kiosk.rules.scoring import PairResult, Row, SeatResult, ShowdownResult, score_showdown
from kiosk.rules.settlement import Settlement, settle
from kiosk.rules.showdown import Showdown, ShowdownError, parse_showdown


def score_json(obj: Any, profiles: Mapping[str, ScoringProfile] | None = None) -> dict:
    """Parse, score and settle one showdown; `{"error": ...}` when it cannot be scored."""
    try:
        showdown = parse_showdown(obj, profiles)
    except ShowdownError as err:
        return {"error": str(err)}
    result = score_showdown(showdown)
    settlement = settle_showdown(showdown, result)
    return result_dict(showdown, result, settlement)


def settle_showdown(showdown: Showdown, result: ShowdownResult) -> Settlement:
    active = {s.seat: s.stack for s in showdown.active}
    return settle(
        result.pair_points(),
        result.order,
        showdown.stake,
        {frozenset(ps.seats): ps.stake for ps in showdown.pair_stakes},
        active,
    )


def result_dict(showdown: Showdown, result: ShowdownResult, settlement: Settlement) -> dict:
    notes = [*result.notes, *settlement.notes]
    stacks = {str(s.seat): s.stack for s in showdown.active if s.stack is not None}
    if stacks and not settlement.capped:
        missing = [s.seat for s in showdown.active if s.stack is None]
        notes.append(
            f"§8: no all-in caps: seat{'s' if len(missing) > 1 else ''} "
            f"{', '.join(map(str, missing))} gave no stack (caps apply only when every "
            "active seat has one)"
        )
    out: dict[str, Any] = {} if showdown.id is None else {"id": showdown.id}
    out["profile"] = result.profile
    out["button"] = result.button
    out["order"] = list(result.order)
    out["stake"] = showdown.stake
    out["seats"] = [_seat_dict(s) for s in result.seats]
    out["pairs"] = [_pair_dict(p, showdown) for p in result.pairs]
    out["transfers"] = [{"from": t.payer, "to": t.payee, "amount": t.amount} for t in settlement.transfers]
    out["shortfalls"] = [{"from": t.payer, "to": t.payee, "amount": t.amount} for t in settlement.shortfalls]
    out["capped"] = settlement.capped
    out["stacks"] = stacks
    out["notes"] = notes
    return out


_CARD_TEXT = [""] * 2 + list(RANKS)  # by rank: str(card) is _CARD_TEXT[card.rank] + card.suit


def _cards(cards: tuple[Card, ...]) -> list[str]:
    return [_CARD_TEXT[c.rank] + c.suit for c in cards]  # str(c), without the joker case


def _rows_dict(rows: tuple[Row, ...]) -> dict | None:
    if not rows:
        return None
    return {r.name: {"cards": _cards(r.cards), "hand": r.text, "royalty": r.royalty} for r in rows}


def _seat_dict(s: SeatResult) -> dict:
    natural = s.natural
    return {
        "seat": s.seat,
        "status": s.status,
        "natural": natural.kind.value if natural else None,
        "foul": s.foul,
        "points": s.points,
        "explanation": s.explanation,
        "foul_rule": s.foul_rule,
        "foul_reason": s.foul_reason,
        "declared": s.declared,
        "rows": _rows_dict(s.rows),
        "natural_text": natural.describe() if natural else None,
        "natural_split": (
            {name: _cards(part) for name, part in zip(ROWS, natural.split)}
            if natural and natural.split
            else None
        ),
        "royalties": s.royalties,
        "super_bonus": s.super_bonus,
    }


def _pair_dict(p: PairResult, showdown: Showdown) -> dict:
    return {
        "seats": list(p.seats),
        "points": p.points,
        "stake": showdown.stake_for(*p.seats) if showdown.pair_stakes else showdown.stake,
        "rule": p.rule,
        "explanation": p.explanation,
    }
