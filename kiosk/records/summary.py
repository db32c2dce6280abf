"""What the floor searches hands by, read from a verdict's showdown and result (pure).

>>> s = summarize({"seats": [{"seat": 1}, {"seat": 2}, {"seat": 3, "dead": True}]},
...               {"seats": [{"seat": 1, "status": "set"}, {"seat": 2, "status": "fouled"}],
...                "transfers": [{"from": 2, "to": 1, "amount": 6}]})
>>> s.seats, s.fouled, s.naturals, s.total_paid, s.largest_payment
((1, 2), (2,), (), 6.0, 6.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from kiosk.records.report import rule_lines


@dataclass(frozen=True, slots=True)
class HandSummary:
    seats: tuple[int, ...]  # active seats
    fouled: tuple[int, ...]
    naturals: tuple[int, ...]
    total_paid: float
    largest_payment: float


def summarize(showdown: dict, result: dict) -> HandSummary:
    seat_results = result.get("seats") if isinstance(result, dict) else None
    if isinstance(seat_results, list) and seat_results:
        seats = [s.get("seat") for s in seat_results if isinstance(s, dict) and s.get("status") != "dead"]
    else:
        seats = [
            s.get("seat") for s in (showdown.get("seats") or [])
            if isinstance(s, dict) and not s.get("dead")
        ]
    seat_results = seat_results if isinstance(seat_results, list) else []
    fouled = [s.get("seat") for s in seat_results if isinstance(s, dict) and s.get("status") == "fouled"]
    naturals = [s.get("seat") for s in seat_results if isinstance(s, dict) and s.get("status") == "natural"]
    amounts = [
        float(t.get("amount") or 0)
        for t in (result.get("transfers") or [] if isinstance(result, dict) else [])
        if isinstance(t, dict)
    ]
    if isinstance(result, dict) and result.get("game") == "paigow":  # each player's settlement with the banker
        amounts = [abs(float(s.get("net") or 0)) for s in seat_results if isinstance(s, dict) and s.get("net")]
    return HandSummary(
        seats=tuple(sorted(int(s) for s in seats if isinstance(s, int))),
        fouled=tuple(sorted(int(s) for s in fouled if isinstance(s, int))),
        naturals=tuple(sorted(int(s) for s in naturals if isinstance(s, int))),
        total_paid=float(sum(amounts)),
        largest_payment=float(max(amounts, default=0.0)),
    )


def seat_list_text(seats: tuple[int, ...]) -> str:
    """Seats as stored for LIKE search: ',1,3,' ('' when none)."""
    return "," + ",".join(map(str, seats)) + "," if seats else ""


def verdict_text(result: dict, needs_check: list) -> str:
    """The words the floor searches a verdict by: every ruling with its rule (as the hand page shows them),
    each needs-check reason, and the error of a hand not scored."""
    parts = [f"{line.rule} {line.text}".strip() for line in rule_lines(result)]
    parts += [str(n.get("reason", "")) for n in needs_check or [] if isinstance(n, dict)]
    if isinstance(result, dict) and result.get("error"):
        parts.append(str(result["error"]))
    return "\n".join(p for p in parts if p)
