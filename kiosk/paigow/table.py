"""A Pai Gow table as `kiosk score` gives it, parsed into frozen values (D-12l).

Problems that make a table unscorable raise `PaiGowError` naming the slot: an unknown
card, a card twice, a seat without a positive `bet`, a banker without 7 cards, a
player-banker's seat among the seats, an unknown `house_way`. Wrong counts for a player
(6 + 1, 4 + 3) are a foul, found by the scorer.

>>> t = parse_table({"game": "paigow", "banker": {"seat": 0, "high": "As Ks Qs Js Ts".split(),
...     "low": ["Jk", "2d"]}, "seats": [{"seat": 1, "high": [], "low": [], "bet": 25}]})
>>> t.house_way.name, t.commission, [s.seat for s in t.seats]
('foxwoods', Decimal('0.05'), [1])
>>> parse_table({"game": "paigow", "banker": {"seat": 0, "high": ["Xx"], "low": []}, "seats": []})
Traceback (most recent call last):
...
kiosk.paigow.table.PaiGowError: banker high: unknown card 'Xx' (write rank then suit, e.g. As, Td, 10d, or Jk)
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Mapping

from kiosk.cards import Card, CardError, deck, parse_card
from kiosk.errors import KioskError
from kiosk.paigow.houseway import DEFAULT_HOUSE_WAY, HouseWay, HouseWayError, get_house_way
from kiosk.paigow.setting import Setting

DEFAULT_COMMISSION = Decimal("0.05")
_TOP_FIELDS = ("game", "id", "house_way", "commission", "banker", "seats")
_BANKER_FIELDS = ("seat", "high", "low", "stack")
_SEAT_FIELDS = ("seat", "high", "low", "bet", "stack")
_BY_TEXT = {str(c): c for c in deck(53)}


class PaiGowError(KioskError):
    """A table that cannot be scored; the message names the slot and the problem."""

    def __init__(self, message: str):
        super().__init__(message, exit_code=1)


@dataclass(frozen=True, slots=True)
class Banker:
    seat: int  # 0 the dealer, 1-7 a player banking
    laid_out: Setting
    stack: Decimal | None = None

    @property
    def is_dealer(self) -> bool:
        return self.seat == 0


@dataclass(frozen=True, slots=True)
class PlayerSeat:
    seat: int
    laid_out: Setting
    bet: Decimal


@dataclass(frozen=True, slots=True)
class PaiGowTable:
    banker: Banker
    seats: tuple[PlayerSeat, ...]
    house_way: HouseWay
    commission: Decimal
    id: Any = None


def parse_table(obj: Any, ways: Mapping[str, HouseWay] | None = None) -> PaiGowTable:
    if not isinstance(obj, dict):
        raise PaiGowError("a Pai Gow table must be a JSON object")
    _known_fields("table", obj, _TOP_FIELDS)
    try:
        way = get_house_way(obj.get("house_way", DEFAULT_HOUSE_WAY), ways)
    except HouseWayError as err:
        raise PaiGowError(str(err)) from None
    commission = _commission(obj.get("commission", DEFAULT_COMMISSION))
    banker = _banker(obj.get("banker"))
    raw_seats = obj.get("seats", [])
    if not isinstance(raw_seats, list):
        raise PaiGowError("seats must be a list of seat objects")
    seats = tuple(_seat(raw) for raw in raw_seats)
    numbers = [s.seat for s in seats]
    for n in numbers:
        if numbers.count(n) > 1:
            raise PaiGowError(f"seat {n} is listed twice")
        if n == banker.seat:
            raise PaiGowError(f"seat {n} is the banker and cannot also play against the banker")
    _check_duplicates(banker, seats)
    return PaiGowTable(banker, seats, way, commission, obj.get("id"))


def _known_fields(where: str, raw: dict, allowed: tuple[str, ...]) -> None:
    unknown = [k for k in raw if k not in allowed]
    if unknown:
        raise PaiGowError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(allowed)})")


def _commission(value: Any) -> Decimal:
    if isinstance(value, Decimal):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise PaiGowError(f"commission must be a rate from 0 to below 1 (0.05 is 5%), not {value!r}")
    return Decimal(str(value))


def _banker(raw: Any) -> Banker:
    if not isinstance(raw, dict):
        raise PaiGowError("banker: missing (give the banker's seat, high and low)")
    _known_fields("banker", raw, _BANKER_FIELDS)
    seat = raw.get("seat", 0)
    if not _whole(seat) or not 0 <= seat <= 7:
        raise PaiGowError(f"banker seat must be 0 (the dealer) or 1-7 (a player banking), not {seat!r}")
    setting = _setting("banker", raw)
    if len(setting.cards) != 7:
        raise PaiGowError(f"banker: holds {len(setting.cards)} cards, a banker must hold exactly 7")
    stack = raw.get("stack")
    return Banker(seat, setting, None if stack is None else _money("banker stack", stack, False))


def _seat(raw: Any) -> PlayerSeat:
    if not isinstance(raw, dict):
        raise PaiGowError("each seat must be an object with seat, high, low and bet")
    seat = raw.get("seat")
    if not _whole(seat) or not 0 <= seat <= 7:  # 0: the dealer, playing against a player-banker
        raise PaiGowError(f"seat number must be 1-7 (or 0, the dealer, when a player banks), not {seat!r}")
    where = f"seat {seat}"
    _known_fields(where, raw, _SEAT_FIELDS)
    setting = _setting(where, raw)
    if "bet" not in raw:
        raise PaiGowError(f"{where}: no bet (every player seat needs a bet above 0)")
    bet = _money(f"{where}: bet", raw["bet"], True)
    if raw.get("stack") is not None:
        _money(f"{where}: stack", raw["stack"], False)
    return PlayerSeat(seat, setting, bet)


def _setting(where: str, raw: dict) -> Setting:
    for hand in ("high", "low"):
        if hand not in raw:
            raise PaiGowError(f"{where}: missing {hand!r} (give the cards of the high and the low hand)")
    return Setting(_cards(f"{where} high", raw["high"]), _cards(f"{where} low", raw["low"]))


def _cards(where: str, raw: Any) -> tuple[Card, ...]:
    if not isinstance(raw, list):
        raise PaiGowError(f"{where}: cards must be a list such as [\"As\", \"Jk\"], not {raw!r}")
    cards = []
    for item in raw:
        card = _BY_TEXT.get(item) if isinstance(item, str) else None
        if card is None:
            try:
                card = parse_card(item)
            except CardError:
                raise PaiGowError(
                    f"{where}: unknown card {item!r} (write rank then suit, e.g. As, Td, 10d, or Jk)"
                ) from None
        cards.append(card)
    return tuple(cards)


def _check_duplicates(banker: Banker, seats: tuple[PlayerSeat, ...]) -> None:
    seen: dict[Card, str] = {}
    places = [("banker high", banker.laid_out.high), ("banker low", banker.laid_out.low)]
    for s in seats:
        places += [(f"seat {s.seat} high", s.laid_out.high), (f"seat {s.seat} low", s.laid_out.low)]
    for place, cards in places:
        for card in cards:
            if card in seen:
                raise PaiGowError(f"duplicate card {card}: {seen[card]} and {place}")
            seen[card] = place


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _money(where: str, value: Any, positive: bool) -> Decimal:
    """A bet or stack, exactly as written (D-13: decimal, not binary floating point)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise PaiGowError(f"{where} must be a number, not {value!r}")
    if value < 0 or (positive and value == 0) or value == float("inf"):
        raise PaiGowError(f"{where} must be {'above' if positive else 'at least'} 0, not {value!r}")
    return Decimal(str(value))
