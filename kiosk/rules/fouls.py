"""Is a set hand fouled? Row counts (RULES.md §3) and row order (D-2), with a reason to read aloud.

>>> from kiosk.cards import parse_cards as p
>>> check_foul(p("Qs Qd 4c"), p("8s 8d Ac Kh 2d"), p("9s 9h 9c 3d 3h")).reason
'middle (pair of 8s) does not beat front (pair of queens)'
>>> check_foul(p("2s 3d 4c"), p("8s 8d Ac Kh 2d"), p("9s 9h 9c 3d 3h")) is None
True
>>> check_foul(p("2s 3d"), p("8s 8d Ac Kh 2d"), p("9s 9h 9c 3d 3h")).reason
'front has 2 cards, needs 3'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from kiosk.cards import ROW_SIZES, Card
from kiosk.rules.ranking import rank_hand


@dataclass(frozen=True, slots=True)
class Foul:
    """Why a set hand is fouled.

    `kind` is "count" or "order"; `reason` reads aloud after "seat N fouled: ";
    `rule` names the rule broken ("§3" for counts, "D-2" for order).
    """

    kind: str
    reason: str
    rule: str


def check_foul(front: Sequence[Card], middle: Sequence[Card], back: Sequence[Card]) -> Foul | None:
    """The foul in a set hand, or None when it stands.

    D-2: the back must rank at least equal to the middle (a tie stands), and the
    middle strictly above the front (compared by D-1). Wrong row counts are
    reported first, every short or long row named.
    """
    rows = (front, middle, back)
    wrong = [
        f"{name} has {len(row)} card{'' if len(row) == 1 else 's'}, needs {size}"
        for (name, size), row in zip(ROW_SIZES.items(), rows)
        if len(row) != size
    ]
    if wrong:
        return Foul("count", "; ".join(wrong), "§3")
    f, m, b = (rank_hand(row) for row in rows)
    broken = []
    if not m > f:
        broken.append(f"middle ({m.describe()}) does not beat front ({f.describe()})")
    if b < m:
        broken.append(f"back ({b.describe()}) is below middle ({m.describe()})")
    if broken:
        return Foul("order", "; ".join(broken), "D-2")
    return None
