"""The Pai Gow part of the `kiosk score` contract: one table dict in, one result dict out.

>>> r = score_paigow_json({"game": "paigow",
...     "banker": {"seat": 0, "high": "As Ks Qs Js Ts".split(), "low": ["Jk", "2d"]},
...     "seats": [{"seat": 1, "high": "9h 9d 5c 4c 3s".split(), "low": ["Qh", "Jd"], "bet": 25}]})
>>> r["banker"]["follows_house_way"], r["banker"]["net"], r["house_commission"]
(True, 25, 0)
>>> {k: r["seats"][0][k] for k in ("status", "high", "low", "outcome", "net", "commission")}
{'status': 'set', 'high': 'lose', 'low': 'lose', 'outcome': 'lose', 'net': -25, 'commission': 0}
>>> score_paigow_json({"game": "paigow", "banker": {"seat": 0, "high": [], "low": []}})
{'game': 'paigow', 'error': 'banker: holds 0 cards, a banker must hold exactly 7'}
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Mapping

from kiosk.cards import Card
from kiosk.paigow.houseway import HouseWay
from kiosk.paigow.ranks import describe
from kiosk.paigow.scoring import BankerResult, PaiGowResult, SeatResult, score_table
from kiosk.paigow.setting import Setting
from kiosk.paigow.table import PaiGowError, parse_table

GAME = "paigow"


def score_paigow_json(obj: Any, ways: Mapping[str, HouseWay] | None = None) -> dict:
    """Parse and score one Pai Gow table; `{"game": "paigow", "error": ...}` when it cannot be."""
    try:
        table = parse_table(obj, ways)
    except PaiGowError as err:
        return {"game": GAME, "error": str(err)}
    return result_dict(score_table(table), table.id)


def result_dict(result: PaiGowResult, table_id: Any = None) -> dict:
    out: dict[str, Any] = {"game": GAME}
    if table_id is not None:
        out["id"] = table_id
    out.update(
        banker=_banker_dict(result.banker),
        seats=[_seat_dict(s) for s in result.seats],
        house_commission=money(result.house_commission),
        warnings=list(result.warnings),
    )
    return out


def money(value: Decimal) -> int | float:
    """A JSON number to the cent: an int when whole (`-25`), else at most two decimals."""
    return int(value) if value == value.to_integral_value() else float(value)


def cards_out(cards: tuple[Card, ...]) -> list[str]:
    return [str(c) for c in cards]


def setting_dict(setting: Setting) -> dict:
    return {"high": cards_out(setting.high), "low": cards_out(setting.low)}


def hands_text(ranks: tuple | None) -> dict | None:
    """Each hand in words (extra key for the display and the report); None for wrong counts."""
    if ranks is None:
        return None
    return {"high": describe(ranks[0]), "low": describe(ranks[1])}


def _banker_dict(b: BankerResult) -> dict:
    return {
        "seat": b.seat,
        "house_way": setting_dict(b.house_way),
        "follows_house_way": b.follows_house_way,
        "scored_as": setting_dict(b.scored_as),
        "net": money(b.net),
        "commission": money(b.commission),
        "laid_out": setting_dict(b.laid_out),
        "hands": hands_text(b.ranks),
    }


def _seat_dict(s: SeatResult) -> dict:
    return {
        "seat": s.seat,
        "status": s.status,
        "foul": s.foul,
        "high": s.high,
        "low": s.low,
        "outcome": s.outcome,
        "net": money(s.net),
        "commission": money(s.commission),
        "bet": money(s.bet),
        "cards": setting_dict(s.laid_out),
        "hands": hands_text(s.ranks),
    }


def score_game_json(obj: dict, ways: Mapping[str, HouseWay] | None = None) -> dict:
    """A `kiosk score` input that names its `game`: Pai Gow, or an error for any other game."""
    if obj.get("game") == GAME:
        return score_paigow_json(obj, ways)
    return {"error": f"unknown game {obj.get('game')!r} (known: {GAME!r}; leave 'game' out for Chinese Poker)"}
