"""The `kiosk score --text` report: a result dict as a floor supervisor reads it.

It works from the result dict alone (what is recorded), so a recorded hand prints the same.
"""

from __future__ import annotations

from typing import Any, Sequence

from kiosk.cards import ROWS

RULE_NAMES = {
    "§3": "§3 row counts",
    "D-2": "D-2 row order",
    "D-4": "D-4 false declaration",
}
NATURAL_LABELS = {
    "dragon": "dragon",
    "six_pairs": "six pairs",
    "three_flushes": "three flushes",
    "three_straights": "three straights",
}


def text_report(results: Sequence[dict], labels: Sequence[str] | None = None) -> str:
    """Every showdown's report, separated by a blank line."""
    blocks = []
    for i, result in enumerate(results):
        label = labels[i] if labels else f"Showdown {i + 1}"
        blocks.append(showdown_report(result, label))
    return "\n\n".join(blocks) + "\n"


def showdown_report(result: dict, label: str = "Showdown") -> str:
    if "error" in result:
        return f"{label}: CANNOT BE SCORED\n  {result['error']}\n  Nothing is paid until the dealer fixes this (§7)."
    head = f"{label}"
    if "id" in result:
        head += f" ({result['id']})"
    head += (
        f" - profile {result['profile']}, button on seat {result['button']}, "
        f"stake {_money(result['stake'])} a point"
    )
    lines = [head, "=" * len(head)]
    lines.append("Payment order (D-10): seats " + ", ".join(map(str, result["order"])))
    lines.append("")
    for seat in result["seats"]:
        lines.extend(_seat_lines(seat))
    lines.append("")
    lines.append("Pairs (points the first seat wins from the second; x stake = money)")
    for pair in result["pairs"]:
        a, b = pair["seats"]
        money = pair["points"] * pair["stake"]
        lines.append(
            f"  seat {a} v seat {b}: {pair['points']:+d} x {_money(pair['stake'])} = {_money(money, signed=True)}"
        )
        lines.append(f"      {pair['explanation']}")
    lines.append("")
    lines.append("Transfers, in payment order (D-10)")
    if result["transfers"]:
        for i, t in enumerate(result["transfers"], 1):
            lines.append(f"  {i}. seat {t['from']} pays seat {t['to']} {_money(t['amount'])}")
    else:
        lines.append("  none: nobody pays anybody")
    if result.get("capped"):
        stacks = ", ".join(f"seat {s} {_money(v)}" for s, v in result.get("stacks", {}).items())
        lines.append(f"  All-in caps applied (§8), starting stacks: {stacks}")
    if result["shortfalls"]:
        lines.append("")
        lines.append("Shortfalls: owed but not paid (all-in caps, §8)")
        for t in result["shortfalls"]:
            lines.append(f"  seat {t['from']} owed seat {t['to']} {_money(t['amount'])} more")
    if result.get("notes"):
        lines.append("")
        lines.append("Notes for the record")
        lines.extend(f"  - {note}" for note in result["notes"])
    return "\n".join(lines)


def _seat_lines(seat: dict) -> list[str]:
    n, status = seat["seat"], seat["status"]
    if status == "dead":
        return [f"Seat {n}: DEAD (no player; cards count only for the deck check)"]
    if status == "natural":
        title = f"NATURAL: {NATURAL_LABELS.get(seat['natural'], seat['natural'])}"
    elif status == "fouled":
        title = f"FOULED ({RULE_NAMES.get(seat['foul_rule'], seat['foul_rule'])})"
    else:
        title = "SET"
        if seat.get("super_bonus"):
            title += ", SUPER BONUS (D-7)"
    lines = [f"Seat {n}: {title}    net {seat['points']:+d} points"]
    rows = seat.get("rows") or {}
    if status == "natural" and seat.get("natural_split"):
        lines.append(f"  lay out as: {seat['natural_text']}")
    elif status == "natural":
        lines.append(f"  {seat['natural_text']}")
    for name in ROWS:
        if name in rows and status != "natural":
            row = rows[name]
            royalty = f"   royalty {row['royalty']}" if row["royalty"] and status == "set" else ""
            cards = " ".join(row["cards"]) or "(no cards)"
            lines.append(f"  {name + ':':<8}{cards:<16}{row['hand']}{royalty}")
    if status == "fouled":
        lines.append(f"  seat {n} fouled: {seat['foul_reason']} ({seat['foul_rule']})")
        lines.append(
            "  D-8: a fouled seat pays every seat that set a hand the scoop plus that seat's "
            "royalties; naturals collect from it (D-9)"
        )
    elif status == "natural":
        lines.append(
            "  D-9: a declared, verified natural collects its points from every other active "
            "seat; no rows are compared"
        )
    if seat.get("royalties"):
        lines.append(f"  royalties collected: {seat['royalties']} (D-6)")
    return lines


def _money(value: Any, signed: bool = False) -> str:
    if isinstance(value, float):
        text = f"{value:+.2f}" if signed else f"{value:.2f}"
    else:
        text = f"{value:+d}" if signed else f"{value}"
    return text
