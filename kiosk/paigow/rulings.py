"""A scored Pai Gow table in words with the rule behind each line: for the floor review, the
dispute report and the display (works from the result dict alone, so a record reads the same).

>>> r = {"game": "paigow", "banker": {"seat": 0, "follows_house_way": True, "net": 10, "commission": 0},
...      "seats": [{"seat": 2, "status": "set", "foul": None, "high": "copy", "low": "lose",
...                 "outcome": "lose", "net": -10, "commission": 0}], "house_commission": 0, "warnings": []}
>>> [(rule, text) for rule, _, text, _ in paigow_rulings(r)][:2]
[('D-12', 'banker (dealer): scored as the house way sets its cards; laid out the house way'), ('D-12', 'seat 2: high copy (a copy goes to the banker), low lose: loses 10')]
>>> [p["text"] for p in payment_lines(r)]
['seat 2 pays the banker 10']
"""

from __future__ import annotations

TITLES = {
    "D-11": "the joker is an ace, or completes a straight, flush or straight flush",
    "D-12": "each hand against the banker's; copies go to the banker; both won wins, none won loses",
    "D-12a": "the low hand must rank below the high hand, else the player loses",
    "D-12k": "the house way's setting; the same setting means equal high and equal low",
    "D-12l": "warnings: a player-banker short of the bets; a dealer off the house way",
    "D-13": "a won bet pays even money less commission, rounded half up to the cent",
}
WORD = {"win": "win", "lose": "lose", "copy": "copy (a copy goes to the banker)"}


def money(value) -> str:
    return f"{value:.2f}" if isinstance(value, float) and not float(value).is_integer() else f"{value:g}"


def _seat_line(s: dict) -> tuple[str, str]:
    n = s["seat"]
    if s["status"] == "fouled":
        why = "wrong card counts" if s["foul"] == "count" else "its low hand does not rank below its high"
        return "D-12a", f"seat {n} fouled ({why}): loses {money(-s['net'])}"
    result = {"win": f"wins {money(s['net'])} after {money(s['commission'])} commission",
              "lose": f"loses {money(-s['net'])}", "push": "push"}[s["outcome"]]
    return "D-12", f"seat {n}: high {WORD[s['high']]}, low {WORD[s['low']]}: {result}"


def paigow_rulings(result: dict) -> list[tuple[str, str, str, tuple[int, ...]]]:
    """(rule, title, text, seats) for every ruling, banker first."""
    if "error" in result:
        return []
    b = result["banker"]
    who = "dealer" if b["seat"] == 0 else f"seat {b['seat']}"
    if b["seat"] == 0:
        how = "scored as the house way sets its cards; " + (
            "laid out the house way" if b["follows_house_way"] else "laid out OFF the house way")
    else:
        how = "scored as laid out" if b["scored_as"] == b.get("laid_out", b["scored_as"]) \
            else "its own setting fouled: scored as the house way sets it"
    out = [("D-12", TITLES["D-12"], f"banker ({who}): {how}", (b["seat"],))]
    for s in result["seats"]:
        rule, text = _seat_line(s)
        out.append((rule, TITLES[rule], text, (s["seat"],)))
    if b.get("commission"):
        out.append(("D-13", TITLES["D-13"], f"banker ({who}) pays {money(b['commission'])} commission on its "
                    f"winnings; net {money(b['net'])}", (b["seat"],)))
    for w in result.get("warnings", []):
        out.append(("D-12l", TITLES["D-12l"], w, ()))
    return out


def payment_lines(result: dict) -> list[dict]:
    """Who pays whom, seat 1 to 7, then a player-banker's commission: {seat, outcome, text}."""
    out = []
    for s in sorted(result.get("seats", []), key=lambda s: s["seat"]):
        n = s["seat"]
        if s["outcome"] == "win":
            text = (f"banker pays seat {n} {money(s['net'])} ({money(s['net'] + s['commission'])} "
                    f"less {money(s['commission'])} commission)")
        elif s["outcome"] == "lose":
            text = f"seat {n} pays the banker {money(-s['net'])}"
        else:
            text = f"seat {n}: push, bet returned"
        out.append({"seat": n, "outcome": s["outcome"], "text": text})
    banker = result.get("banker", {})
    if banker.get("commission"):
        out.append({"seat": banker["seat"], "outcome": "commission",
                    "text": f"banker (seat {banker['seat']}) pays {money(banker['commission'])} commission"})
    return out
