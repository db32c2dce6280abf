"""The house way: how the dealer must set the banker's seven cards (§9, D-12b..D-12k).

A house way is data (`HouseWay`): the choices a casino publishes where house ways differ
(two pair, four of a kind, three aces, five aces, the one-pair exception to the straight
rule). `foxwoods` is built in; a casino enters its own as a dict (`house_way_from_dict`,
starting from a built-in with `base`) and picks it by name. `set_by_house_way` applies
the fixed order of D-12b with the table's choices.

>>> from kiosk.cards import parse_cards, format_cards
>>> s = set_by_house_way(parse_cards("As Ks Qd Jc 9h 7d 3c"))   # D-12d: no pair
>>> format_cards(s.high), format_cards(s.low)
('As Jc 9h 7d 3c', 'Ks Qd')
>>> s = set_by_house_way(parse_cards("Ah Kc Kd Qs Jh Th 3c"))   # D-12h exception
>>> format_cards(s.high), format_cards(s.low)
('Kc Kd Jh Th 3c', 'Ah Qs')
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields, replace
from itertools import combinations
from typing import Any, Mapping, Sequence

from kiosk.cards import Card
from kiosk.paigow.ranks import ACE, COMPLETE, rank2, rank5
from kiosk.paigow.setting import Setting

POLICIES = ("split", "keep", "keep_if_ace", "keep_if_king")
KING = 13


class HouseWayError(ValueError):
    """A house way definition or name that is not one."""


@dataclass(frozen=True, slots=True)
class HouseWay:
    """A casino's house way. A policy table is ((lowest rank, policy), ...), highest first:
    the first entry whose rank the pair (or four) reaches decides. Policies: `split`,
    `keep` (both pairs / the four high), `keep_if_ace` (keep when an ace can go low),
    `keep_if_king` (keep when a king or better can go low)."""

    name: str
    two_pair: tuple[tuple[int, str], ...]
    four_of_a_kind: tuple[tuple[int, str], ...]
    three_aces_split: bool  # trips of aces: one ace and the highest single low (D-12f)
    five_aces_kings_low: bool  # five aces with a pair of kings: the kings low (D-12j)
    pair_exception: tuple[int, ...]  # one pair of these ranks + an ace beats a straight (D-12h)


FOXWOODS = HouseWay(
    name="foxwoods",
    two_pair=((11, "split"), (7, "keep_if_ace"), (2, "keep_if_king")),
    four_of_a_kind=((11, "split"), (7, "keep_if_king"), (2, "keep")),
    three_aces_split=True,
    five_aces_kings_low=True,
    pair_exception=(10, 11, 12, 13),
)
HOUSE_WAYS: dict[str, HouseWay] = {"foxwoods": FOXWOODS}
DEFAULT_HOUSE_WAY = "foxwoods"

_LOWS = tuple(combinations(range(7), 2))
_HIGHS = tuple(tuple(i for i in range(7) if i not in low) for low in _LOWS)


def _setting(cards: Sequence[Card], k: int) -> Setting:
    return Setting(tuple(cards[i] for i in _HIGHS[k]), tuple(cards[i] for i in _LOWS[k]))


def _with_low(cards: Sequence[Card], counted: list[int], low: tuple[int, int]) -> Setting:
    """D-12k: of the settings whose low holds these ranks, the best high, then the best low."""
    want = tuple(sorted(low))
    matches = [
        k for k, (i, j) in enumerate(_LOWS)
        if (counted[i], counted[j]) == want or (counted[j], counted[i]) == want
    ]  # fmt: skip
    if len(matches) == 1:
        return _setting(cards, matches[0])
    return max((_setting(cards, k) for k in matches), key=lambda s: (rank5(s.high), rank2(s.low)))


def _best_complete(cards: Sequence[Card]) -> Setting | None:
    """D-12h: of the settings whose high hand is complete, the best low, then the best high."""
    best, best_key = None, None
    for k in range(len(_LOWS)):
        s = _setting(cards, k)
        high = rank5(s.high)
        if high[0] in COMPLETE:
            key = (rank2(s.low), high)
            if best_key is None or key > best_key:
                best, best_key = s, key
    return best


def _has_complete(cards: Sequence[Card]) -> bool:
    """Do some 5 of the 7 make a straight, flush or straight flush (the joker helping)?"""
    jokers = sum(1 for c in cards if not c.rank)
    suits = Counter(c.suit for c in cards if c.rank)
    if suits and max(suits.values()) + jokers >= 5:
        return True
    ranks = {c.rank for c in cards if c.rank}
    if ACE in ranks:
        ranks.add(1)
    return any(len(ranks.intersection(range(top - 4, top + 1))) + jokers >= 5 for top in range(5, 15))


def _policy(table: tuple[tuple[int, str], ...], rank: int) -> str:
    return next((p for lowest, p in table if rank >= lowest), "split")


def _keep(policy: str, singles: list[int]) -> bool:
    if policy == "keep_if_ace":
        return ACE in singles
    if policy == "keep_if_king":
        return bool(singles) and singles[0] >= KING
    return policy == "keep"


def set_by_house_way(cards: Sequence[Card], way: HouseWay = FOXWOODS) -> Setting:
    """The house-way setting of seven cards (D-12b: the first rule that applies is used)."""
    if len(cards) != 7:
        raise ValueError(f"the house way sets 7 cards, not {len(cards)}")
    counted = [c.rank or ACE for c in cards]
    counts = Counter(counted)
    by_count: dict[int, list[int]] = {1: [], 2: [], 3: [], 4: [], 5: []}
    for r, n in sorted(counts.items(), reverse=True):
        by_count[n].append(r)
    singles, pairs, trips = by_count[1], by_count[2], by_count[3]
    low = _rule_low(cards, counts, by_count, way)
    if low is None:  # straight, flush or straight flush (D-12h)
        return _complete_setting(cards, counted, pairs, singles, way)
    return _with_low(cards, counted, low)


def _rule_low(cards, counts, by_count, way: HouseWay) -> tuple[int, int] | None:
    """The ranks the house way puts low, or None for the straight/flush rule."""
    singles, pairs, trips, fours = by_count[1], by_count[2], by_count[3], by_count[4]
    if by_count[5]:  # D-12j
        return (KING, KING) if way.five_aces_kings_low and pairs == [KING] else (ACE, ACE)
    if fours:  # D-12i
        if pairs or trips:
            other = (pairs + trips)[0]
            return (other, other)
        quad = fours[0]
        if _keep(_policy(way.four_of_a_kind, quad), singles):
            return (singles[0], singles[1])
        return (quad, quad)
    if len(trips) == 2:  # D-12f
        return (trips[0], trips[0])
    if trips and pairs:  # D-12g
        return (pairs[0], pairs[0])
    if len(pairs) < 2 and _has_complete(cards):
        return None
    if len(pairs) == 3:  # D-12f; also with a straight or flush
        return (pairs[0], pairs[0])
    if trips:  # D-12f
        if trips[0] == ACE and way.three_aces_split:
            return (ACE, singles[0])
        return (singles[0], singles[1])
    if len(pairs) == 2:  # D-12e, a straight or flush ignored
        if _keep(_policy(way.two_pair, pairs[0]), singles):
            return (singles[0], singles[1])
        return (pairs[1], pairs[1])
    if pairs:  # D-12d
        return (singles[0], singles[1])
    return (singles[1], singles[2])  # D-12d: no pair


def _complete_setting(cards, counted, pairs, singles, way: HouseWay) -> Setting:
    best = _best_complete(cards)
    assert best is not None  # _has_complete said some five make one
    if len(pairs) == 1 and pairs[0] in way.pair_exception and ACE in singles:
        rest = [r for r in singles if r != ACE]
        one_pair = _with_low(cards, counted, (ACE, rest[0]))
        if rank2(one_pair.low) > rank2(best.low):
            return one_pair
    return best


def get_house_way(value: Any, ways: Mapping[str, HouseWay] | None = None) -> HouseWay:
    """A house way by name, or one defined inline as a dict."""
    known = {**HOUSE_WAYS, **(ways or {})}
    if isinstance(value, Mapping):
        return house_way_from_dict(value, known)
    if isinstance(value, str) and value in known:
        return known[value]
    raise HouseWayError(f"unknown house_way {value!r} (known: {', '.join(sorted(known))})")


def house_way_from_dict(raw: Mapping[str, Any], ways: Mapping[str, HouseWay] | None = None) -> HouseWay:
    """A casino's own house way: `name`, optional `base` (default foxwoods) and the fields to change."""
    known = {**HOUSE_WAYS, **(ways or {})}
    allowed = {f.name for f in fields(HouseWay)} | {"base"}
    unknown = sorted(set(raw) - allowed)
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise HouseWayError("a house way needs a 'name'")
    if unknown:
        raise HouseWayError(f"house way {name!r}: unknown field {unknown[0]!r}")
    base_name = raw.get("base", DEFAULT_HOUSE_WAY)
    if base_name not in known:
        raise HouseWayError(f"house way {name!r}: unknown base {base_name!r}")
    changes: dict[str, Any] = {"name": name}
    for key in ("two_pair", "four_of_a_kind"):
        if key in raw:
            changes[key] = _policy_table(name, key, raw[key])
    for key in ("three_aces_split", "five_aces_kings_low"):
        if key in raw:
            if not isinstance(raw[key], bool):
                raise HouseWayError(f"house way {name!r}: {key} must be true or false")
            changes[key] = raw[key]
    if "pair_exception" in raw:
        ranks = raw["pair_exception"]
        if not isinstance(ranks, list) or not all(_is_rank(r) for r in ranks):
            raise HouseWayError(f"house way {name!r}: pair_exception must be a list of ranks 2-14")
        changes["pair_exception"] = tuple(ranks)
    return replace(known[base_name], **changes)


def house_way_to_dict(way: HouseWay) -> dict:
    """A house way as JSON (every field: `house_way_from_dict` gives it back, whatever its base)."""
    return {
        "name": way.name, "two_pair": [list(r) for r in way.two_pair],
        "four_of_a_kind": [list(r) for r in way.four_of_a_kind], "three_aces_split": way.three_aces_split,
        "five_aces_kings_low": way.five_aces_kings_low, "pair_exception": list(way.pair_exception),
    }


def _is_rank(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 2 <= value <= 14


def _policy_table(name: str, key: str, raw: Any) -> tuple[tuple[int, str], ...]:
    """[[lowest rank, policy], ...] -> a table, highest rank first."""
    if not isinstance(raw, list) or not raw:
        raise HouseWayError(f"house way {name!r}: {key} must be a list of [lowest rank, policy]")
    rows = []
    for row in raw:
        if not (isinstance(row, list) and len(row) == 2 and _is_rank(row[0]) and row[1] in POLICIES):
            raise HouseWayError(
                f"house way {name!r}: {key} row {row!r} must be [rank 2-14, one of {', '.join(POLICIES)}]"
            )
        rows.append((row[0], row[1]))
    return tuple(sorted(rows, reverse=True))
