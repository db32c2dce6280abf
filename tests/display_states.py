"""Every layout state of the dealer display as a verdict, for the layout test in a real browser.

Each scenario is the verdict the pipeline would publish (the rules engine's own result on a
showdown), chosen to put every kind of seat in every position: a natural's 13-card pile, a foul
with the longest reason, a set hand with long hand names, a dead seat and a doubtful card.
"""

from __future__ import annotations

from kiosk.rules.api import score_json
from kiosk.table.verdict import NeedsCheck, Verdict

# Four hands of one deck (no card twice), each one laid out as a natural's pile or in rows.
SIX_PAIRS = ["2c", "2d", "5h", "5s", "7c", "7h", "9d", "9s", "Jh", "Js", "Kc", "Kd", "3h"]
SIX_PAIRS_ROWS = {"front": ["3h", "Kc", "Kd"], "middle": ["2c", "2d", "5h", "5s", "7c"],
                  "back": ["7h", "9d", "9s", "Jh", "Js"]}
DRAGON = ["Ad", "Ks", "Qh", "Jc", "Ts", "9c", "8h", "7d", "6s", "5d", "4h", "3c", "2s"]
DRAGON_ROWS = {"front": ["2s", "3c", "4h"], "middle": ["5d", "6s", "7d", "8h", "9c"],
               "back": ["Ts", "Jc", "Qh", "Ks", "Ad"]}
# back (full house, 4s full of aces) below middle (full house, 6s full of queens): a long reason (D-2)
FOUL = {"front": ["Tc", "Td", "2h"], "middle": ["6c", "6d", "6h", "Qc", "Qd"], "back": ["4c", "4d", "4s", "Ac", "Ah"]}
SET = {"front": ["As", "Kh", "Qs"], "middle": ["3d", "3s", "5c", "7s", "9h"], "back": ["8c", "8d", "8s", "Th", "Jd"]}


def _verdict(name: str, seats: list[dict], checks: tuple[NeedsCheck, ...] = (), integrity=()) -> Verdict:
    showdown = {"button": 4, "stake": 5, "seats": seats}
    result = score_json(showdown)
    assert "error" not in result, result
    if checks:
        result = {"error": f"not scored: seat {checks[0].seat}: {checks[0].reason}"}
    return Verdict(hand_id=f"H-{name}", table="table-1", decided_at=1_700_000_000.0, frame_index=1,
                   showdown=showdown, result=result, needs_check=checks, integrity=tuple(integrity))


def scenarios() -> dict[str, Verdict]:
    """name -> verdict; across them each position holds a natural pile, a foul, a set and a dead seat."""
    natural = lambda n, cards: {"seat": n, "declared_natural": True, "cards": cards}  # noqa: E731
    rows = lambda n, hand: {"seat": n, **hand}  # noqa: E731
    return {
        "natural_bottom": _verdict("natural-bottom", [natural(1, SIX_PAIRS), rows(2, FOUL), rows(3, SET),
                                                       {"seat": 4, "dead": True}]),
        "natural_left_top": _verdict("natural-left-top", [rows(1, SET), natural(2, SIX_PAIRS), natural(3, DRAGON),
                                                          rows(4, FOUL)]),
        "natural_right": _verdict("natural-right", [{"seat": 1, "dead": True}, rows(2, SET), rows(3, FOUL),
                                                    natural(4, DRAGON)]),
        "sets": _verdict("sets", [rows(1, SET), rows(2, SIX_PAIRS_ROWS), rows(3, DRAGON_ROWS), rows(4, FOUL)]),
        "doubtful": _verdict("doubtful", [rows(1, SET), rows(2, FOUL), rows(3, SIX_PAIRS_ROWS), {"seat": 4, "dead": True}],
                             checks=(NeedsCheck(1, "card at middle 3 read as 5c or 6c (confidence 0.61)", "5c"),)),
    }
