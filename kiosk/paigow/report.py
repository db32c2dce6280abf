"""The `kiosk score --text` report of a Pai Gow result dict (works from the dict alone, so a
recorded hand prints the same). Chinese Poker results in the same batch print as before."""

from __future__ import annotations

from typing import Any, Sequence

from kiosk.paigow.api import GAME
from kiosk.rules.report import showdown_report, text_report

WORDS = {"win": "wins", "lose": "loses", "copy": "copy (to the banker)"}


def is_paigow(result: Any) -> bool:
    return isinstance(result, dict) and result.get("game") == GAME


def text_report_any(results: Sequence[dict]) -> str:
    """Every result's report; Chinese Poker ones through the Chinese Poker report."""
    if not any(is_paigow(r) for r in results):
        return text_report(results)
    blocks = [
        table_report(r, f"Table {i}") if is_paigow(r) else showdown_report(r, f"Showdown {i}")
        for i, r in enumerate(results, 1)
    ]
    return "\n\n".join(blocks) + "\n"


def table_report(result: dict, label: str = "Table") -> str:
    if "error" in result:
        return f"{label} (Pai Gow): CANNOT BE SCORED\n  {result['error']}\n  Nothing is paid until the dealer fixes this."
    head = f"{label} (Pai Gow)" + (f" ({result['id']})" if "id" in result else "")
    lines = [head, "=" * len(head)]
    lines.extend(banker_lines(result["banker"]))
    lines.append("")
    for seat in result["seats"]:
        lines.extend(seat_lines(seat))
    lines.append("")
    lines.append(f"House commission: {money_text(result['house_commission'])}")
    for warning in result["warnings"]:
        lines.append(f"  WARNING: {warning}")
    return "\n".join(lines)


def banker_lines(b: dict) -> list[str]:
    who = "dealer" if b["seat"] == 0 else f"seat {b['seat']}"
    hands = b.get("hands") or {}
    lines = [f"Banker ({who}): net {money_text(b['net'], True)}"]
    if b.get("commission"):
        lines[0] += f" after commission {money_text(b['commission'])}"
    lines.append(f"  scored as: {_setting(b['scored_as'])}   {hands.get('high', '')} / {hands.get('low', '')}")
    lines.append(f"  house way: {_setting(b['house_way'])}")
    if "laid_out" in b:
        flag = "follows the house way" if b["follows_house_way"] else "OFF THE HOUSE WAY"
        lines.append(f"  laid out:  {_setting(b['laid_out'])}   {flag}")
    return lines


def seat_lines(s: dict) -> list[str]:
    bet = f"bet {money_text(s['bet'])}" if "bet" in s else ""
    if s["status"] == "fouled":
        why = "wrong card counts" if s["foul"] == "count" else "low hand not below the high (D-12a)"
        head = f"Seat {s['seat']}: FOULED ({why}), loses   {bet}"
    else:
        head = f"Seat {s['seat']}: high {WORDS[s['high']]}, low {WORDS[s['low']]}: {s['outcome'].upper()}   {bet}"
    lines = [head + f"   net {money_text(s['net'], True)}"]
    if s.get("commission"):
        lines[0] += f" (commission {money_text(s['commission'])})"
    if "cards" in s:
        hands = s.get("hands") or {}
        lines.append(f"  {_setting(s['cards'])}   {hands.get('high', '')} / {hands.get('low', '')}".rstrip(" /"))
    return lines


def _setting(setting: dict) -> str:
    return f"{' '.join(setting['high']) or '-'} | {' '.join(setting['low']) or '-'}"


def money_text(value: Any, signed: bool = False) -> str:
    text = f"{value:.2f}" if isinstance(value, float) else f"{value}"
    return ("+" + text) if signed and value > 0 else text
