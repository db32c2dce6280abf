"""The showdown a `kiosk score` input describes, parsed into frozen values.

Problems that make a showdown unscorable (RULES §7: an unknown or duplicate card, more
than 52 cards, a wrong JSON type, an unknown profile or seat) raise `ShowdownError`
naming the seat and the card. A row with the wrong number of cards is *not* an error:
it is a foul (RULES §3), which the scorer reports.

>>> sd = parse_showdown({"seats": [
...     {"seat": 1, "front": ["As", "Ad", "Kc"], "middle": "2c 3c 4c 5c 6c".split(),
...      "back": "7d 8d 9d Td Jd".split()},
...     {"seat": 2, "front": ["Qs"], "middle": [], "back": []}]})
>>> sd.button, sd.stake, sd.profile.name, [s.seat for s in sd.active]
(2, 1, 'mandarin', [1, 2])
>>> parse_showdown({"seats": [{"seat": 1, "front": ["As", "Xx"]}]})  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
...
kiosk.rules.showdown.ShowdownError: seat 1 front: 'Xx' is not a card (write rank then suit, ...)
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Mapping, NamedTuple

from kiosk.cards import ROWS, Card, CardError, deck, parse_card
from kiosk.errors import KioskError
from kiosk.rules.profiles import (
    DEFAULT_PROFILE,
    NATURAL_KINDS,
    ProfileError,
    ScoringProfile,
    get_profile,
    profile_from_dict,
)

Money = int | float
# What settlement can represent exactly (Decimal cents, RULES §8): a stake below a tenth of a
# cent underflows, one above a trillion overflows the points x stake arithmetic.
MIN_STAKE = 0.001
MAX_MONEY = 10**12
MAX_SEAT = 99
_TOP_FIELDS = ("id", "profile", "button", "stake", "pair_stakes", "seats")
_SEAT_FIELDS = ("seat", "dead", "declared_natural", "cards", *ROWS, "stack")
_TOP_FIELD_SET, _SEAT_FIELD_SET = frozenset(_TOP_FIELDS), frozenset(_SEAT_FIELDS)
_SEAT_NUMBER = attrgetter("seat")
_BY_TEXT = {str(c): c for c in deck(52)}  # fast path for the usual spelling ("As", "Td")


class ShowdownError(KioskError):
    """A showdown that cannot be scored; the message names the seat and the card."""

    def __init__(self, message: str):
        super().__init__(message, exit_code=1)


class SeatInput(NamedTuple):  # a NamedTuple: immutable, and cheap to build four times a showdown
    seat: int
    dead: bool = False
    declared: bool = False  # declared a natural before the hands were opened
    declared_kind: str | None = None  # the kind named with the declaration, if any
    rows: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]] | None = None
    cards: tuple[Card, ...] = ()  # every card of the seat (rows joined, or the pile)
    stack: Money | None = None  # chips at the start of the hand; None = uncapped

    @property
    def active(self) -> bool:
        return not self.dead


class PairStake(NamedTuple):
    seats: tuple[int, int]
    stake: Money


@dataclass(frozen=True, slots=True)
class Showdown:
    seats: tuple[SeatInput, ...]  # in seat-number order (clockwise)
    profile: ScoringProfile
    button: int
    stake: Money = 1
    pair_stakes: tuple[PairStake, ...] = ()
    id: str | int | None = None
    active: tuple[SeatInput, ...] = field(init=False, repr=False, compare=False)  # the seats not dead

    def __post_init__(self) -> None:
        object.__setattr__(self, "active", tuple(s for s in self.seats if not s.dead))

    def seat(self, number: int) -> SeatInput:
        for s in self.seats:
            if s.seat == number:
                return s
        raise KeyError(number)

    def stake_for(self, a: int, b: int) -> Money:
        """The money value of one point between seats a and b (a per-pair stake wins)."""
        for ps in self.pair_stakes:
            if set(ps.seats) == {a, b}:
                return ps.stake
        return self.stake


def parse_showdown(
    obj: Any, profiles: Mapping[str, ScoringProfile] | None = None
) -> Showdown:
    """Check and parse one showdown object; `profiles` adds a card room's own profiles."""
    if not isinstance(obj, dict):
        raise ShowdownError(f"a showdown must be a JSON object, not {_kind(obj)}")
    if not _TOP_FIELD_SET.issuperset(obj):
        unknown = [k for k in obj if k not in _TOP_FIELDS]
        raise ShowdownError(
            f"unknown field {_show(unknown[0])} in the showdown (fields: {', '.join(_TOP_FIELDS)})"
        )
    showdown_id = obj.get("id")
    if showdown_id is not None and (
        isinstance(showdown_id, bool) or not isinstance(showdown_id, (str, int))
    ):
        raise ShowdownError(f"id must be text or a whole number, not {_kind(showdown_id)}")
    profile = _profile(obj.get("profile", DEFAULT_PROFILE), profiles)

    raw_seats = obj.get("seats")
    if not isinstance(raw_seats, list) or not raw_seats:
        raise ShowdownError("'seats' must be a non-empty list of seat objects")
    seats = tuple(sorted([_seat(i, raw) for i, raw in enumerate(raw_seats)], key=_SEAT_NUMBER))
    numbers = [s.seat for s in seats]
    for a, b in zip(numbers, numbers[1:]):
        if a == b:
            raise ShowdownError(f"seat {a} appears twice in 'seats'")
    _check_cards(seats)
    active = [s.seat for s in seats if not s.dead]
    if len(active) < 2:
        raise ShowdownError(
            f"{len(active)} active seat{'s' if len(active) != 1 else ''}: "
            "a showdown needs at least two players"
        )

    button = obj.get("button", active[-1])
    if isinstance(button, bool) or not isinstance(button, int):
        raise ShowdownError(f"button must be a seat number, not {_show(button)}")
    if button not in numbers:
        raise ShowdownError(f"button is on seat {_show(button)}, which is not one of seats {_list(numbers)}")
    stake = _money("stake", obj.get("stake", 1), stake=True)

    return Showdown(seats, profile, button, stake, _pair_stakes(obj.get("pair_stakes", []), numbers), showdown_id)


def _pair_stakes(raw_pairs: Any, numbers: list[int]) -> tuple[PairStake, ...]:
    """`pair_stakes`: each a pair of two of the seats `numbers`, at most one stake a pair."""
    if not isinstance(raw_pairs, list):
        raise ShowdownError(f"pair_stakes must be a list, not {_kind(raw_pairs)}")
    pair_stakes: list[PairStake] = []
    for i, raw in enumerate(raw_pairs):
        where = f"pair_stakes[{i}]"
        if not isinstance(raw, dict) or set(raw) != {"seats", "stake"}:
            raise ShowdownError(f"{where} must be {{\"seats\": [a, b], \"stake\": n}}")
        pair = raw["seats"]
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or any(isinstance(n, bool) or not isinstance(n, int) for n in pair)
            or pair[0] == pair[1]
        ):
            raise ShowdownError(f"{where}: seats must be two different seat numbers, not {_show(pair)}")
        for n in pair:
            if n not in numbers:
                raise ShowdownError(f"{where}: seat {_show(n)} is not one of seats {_list(numbers)}")
        if any({*pair} == set(ps.seats) for ps in pair_stakes):
            raise ShowdownError(f"{where}: seats {pair[0]} and {pair[1]} have two stakes")
        pair_stakes.append(PairStake((pair[0], pair[1]), _money(where + ": stake", raw["stake"], stake=True, zero_ok=True)))
    return tuple(pair_stakes)


def _profile(value: Any, profiles: Mapping[str, ScoringProfile] | None) -> ScoringProfile:
    try:
        if isinstance(value, dict):
            return profile_from_dict(value, profiles)
        if not isinstance(value, str):
            raise ShowdownError(
                f"profile must be a profile name or a profile object, not {_kind(value)}"
            )
        return get_profile(value, profiles)
    except ProfileError as err:
        raise ShowdownError(str(err)) from None


def _seat(index: int, raw: Any) -> SeatInput:
    if not isinstance(raw, dict):
        raise ShowdownError(f"seats[{index}] must be a seat object, not {_kind(raw)}")
    number = raw.get("seat")
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= MAX_SEAT:
        raise ShowdownError(
            f"seats[{index}]: 'seat' must be a seat number from 1 to {MAX_SEAT}, not {_show(number)}"
        )
    where = f"seat {number}"
    if not _SEAT_FIELD_SET.issuperset(raw):
        unknown = [k for k in raw if k not in _SEAT_FIELDS]
        raise ShowdownError(
            f"{where}: unknown field {_show(unknown[0])} (fields: {', '.join(_SEAT_FIELDS)})"
        )
    dead = raw.get("dead", False)
    if not isinstance(dead, bool):
        raise ShowdownError(f"{where}: 'dead' must be true or false, not {_show(dead)}")
    declared_raw = raw.get("declared_natural", False)
    if isinstance(declared_raw, bool):
        declared, kind = declared_raw, None
    elif declared_raw in NATURAL_KINDS:
        declared, kind = True, declared_raw
    else:
        raise ShowdownError(
            f"{where}: 'declared_natural' must be true, false or one of "
            f"{', '.join(NATURAL_KINDS)}, not {_show(declared_raw)}"
        )
    if dead and declared:
        raise ShowdownError(f"{where} is dead and cannot declare a natural")

    has_rows = "front" in raw or "middle" in raw or "back" in raw  # ROWS
    rows = None
    if "cards" in raw:
        if has_rows:
            raise ShowdownError(f"{where}: give either 'cards' or front/middle/back, not both")
        if not (declared or dead):
            raise ShowdownError(
                f"{where}: 'cards' (an unset pile) is only for a declared natural or a dead "
                "seat; give front, middle and back"
            )
        cards = _cards(where, raw["cards"])
    elif has_rows:
        # A missing or short row is a foul, found by the scorer; only its cards are checked here.
        rows = (
            _cards(where, raw.get("front", []), "front"),
            _cards(where, raw.get("middle", []), "middle"),
            _cards(where, raw.get("back", []), "back"),
        )
        cards = rows[0] + rows[1] + rows[2]
    elif dead:
        cards = ()
    else:
        raise ShowdownError(
            f"{where}: no cards (give front, middle and back, 'cards' for a declared "
            "natural, or mark the seat dead)"
        )
    stack = raw.get("stack")
    if stack is not None:
        stack = _money(f"{where}: stack", stack)
    return SeatInput(number, dead, declared, kind, rows, cards, stack)  # type: ignore[arg-type]


def _cards(seat: str, raw: Any, row: str | None = None) -> tuple[Card, ...]:
    """The cards of one row (or pile), each the deck's own `Card` object (see `_check_cards`)."""
    if type(raw) is list:
        try:
            return tuple(map(_BY_TEXT.__getitem__, raw))  # the usual spelling of every card
        except (KeyError, TypeError):
            pass
    return _cards_named(f"{seat} {row}" if row else seat, raw)


def _cards_named(where: str, raw: Any) -> tuple[Card, ...]:
    """`_cards` for any other spelling, or an error naming the place and the card."""
    if not isinstance(raw, list):
        raise ShowdownError(f"{where}: cards must be a list such as [\"As\", \"Td\"], not {_kind(raw)}")
    cards = []
    for item in raw:
        card = _BY_TEXT.get(item) if isinstance(item, str) else None
        if card is not None:
            cards.append(card)
            continue
        try:
            card = parse_card(item)
        except CardError as err:  # the joker (Jk) is no hint here: Chinese Poker refuses it, below
            raise ShowdownError(f"{where}: {str(err).replace(', or Jk)', ')')}") from None
        if card.is_joker:
            raise ShowdownError(f"{where}: {_show(item)} (the joker) is not in a Chinese Poker deck: it is played "
                                "with the 52 cards, no joker (the joker is for Pai Gow Poker)")
        cards.append(_BY_TEXT[str(card)])
    return tuple(cards)


def _check_cards(seats: tuple[SeatInput, ...]) -> None:
    """RULES §7: at most 52 cards, and no card twice anywhere on the table."""
    # Every card is the deck's own object (`_cards`): a card twice is one object twice.
    total, distinct = 0, set[int]()
    for s in seats:
        total += len(s.cards)
        distinct.update(map(id, s.cards))
    if total <= 52 and len(distinct) == total:
        return
    seen: dict[tuple[int, str], str] = {}  # keyed by (rank, suit): hashed in C, unlike Card
    for s in seats:
        places = (
            [(f"seat {s.seat} {r}", row) for r, row in zip(ROWS, s.rows)]
            if s.rows is not None
            else [(f"seat {s.seat}", s.cards)]
        )
        for place, cards in places:
            for card in cards:
                key = (card.rank, card.suit)
                if key in seen:
                    raise ShowdownError(f"duplicate card {card}: {seen[key]} and {place}")
                seen[key] = place
    if total > 52:  # cannot happen without a duplicate, kept for the rule's sake
        raise ShowdownError(f"wrong card count: {total} cards on the table (a deck has 52)")


def _money(where: str, value: Any, stake: bool = False, zero_ok: bool = False) -> Money:
    """A stake (0.001 up to a trillion; a pair's may be 0) or a stack (0 up to a trillion): what
    settlement can represent."""
    low = MIN_STAKE if stake else 0
    if (type(value) is int or type(value) is float) and low <= value <= MAX_MONEY:
        return value  # the usual case, before any words are made
    allowed = ("0 or " if stake and zero_ok else "") + f"from {low:g} to {MAX_MONEY:,}"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ShowdownError(f"{where} must be a number {allowed}, not {_show(value)}")
    if zero_ok and value == 0:
        return value
    if not low <= value <= MAX_MONEY:
        raise ShowdownError(f"{where} must be {allowed} (what settlement can represent), not {_show(value)}")
    return value


def _show(value: Any, limit: int = 40) -> str:
    """repr() cut short: a 4,000-digit number or a huge list is named, not printed."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**limit:
        return f"a number with {len(str(abs(value)))} digits"
    return reprlib.repr(value)


def _list(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers))


def _kind(value: Any) -> str:
    return {
        dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null",
        int: "a number", float: "a number",
    }.get(type(value), type(value).__name__)  # fmt: skip
