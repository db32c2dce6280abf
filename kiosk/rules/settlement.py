"""Settlement (RULES.md §8, D-10): who pays whom, in what order, with all-in caps.

Money is exact. When the stakes and stacks are all whole numbers every amount is an
int. Otherwise every amount is worked in `Decimal` cents: a pair's debt (points x stake)
is rounded half-up to the cent once, before any cap, and stacks are taken to the cent,
so transfers and shortfalls always add up exactly; amounts are then returned as floats
with at most two decimals (what JSON can carry).

Worked example with caps (D-10), seats 1, 2, 3, button 3, stake 10, stacks 30/50/100:

>>> s = settle({(1, 2): 6, (1, 3): 1, (2, 3): -4}, payment_order([1, 2, 3], 3), 10,
...            stacks={1: 30, 2: 50, 3: 100})
>>> [(t.payer, t.payee, t.amount) for t in s.transfers]
[(2, 1, 30), (2, 3, 20)]
>>> [(t.payer, t.payee, t.amount) for t in s.shortfalls]
[(2, 1, 30), (3, 1, 10), (2, 3, 20)]
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from typing import Iterable, Mapping, NamedTuple, Sequence

Money = int | float
CENT = Decimal("0.01")


class Transfer(NamedTuple):  # a NamedTuple: immutable, and cheap to build several times a showdown
    payer: int
    payee: int
    amount: Money


class Settlement(NamedTuple):
    transfers: tuple[Transfer, ...]  # in payment order
    shortfalls: tuple[Transfer, ...]  # what could not be paid, pair by pair, in the same order
    capped: bool  # all-in caps applied (every seat had a starting stack)
    notes: tuple[str, ...] = ()  # e.g. a debt that rounds to nothing at the cent


def to_cent(value: Money | Decimal) -> Decimal:
    """Money as the table pays it: exactly as written, rounded half up to the cent (RULES §8, D-13).

    >>> to_cent(0.125), to_cent(Decimal("10.50") * Decimal("0.05")), to_cent(3)
    (Decimal('0.13'), Decimal('0.53'), Decimal('3.00'))
    """
    return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)


def payment_order(active_seats: Iterable[int], button: int) -> tuple[int, ...]:
    """D-10: active seats clockwise from the first after the button (the button seat last).

    >>> payment_order([1, 2, 3, 4], 4), payment_order([1, 2, 4], 2), payment_order([2, 3], 4)
    ((1, 2, 3, 4), (4, 1, 2), (2, 3))
    """
    seats = sorted(active_seats)
    return tuple([s for s in seats if s > button] + [s for s in seats if s <= button])


def pair_order(order: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """Every pair (order[i], order[j]) with i < j, in lexicographic order (D-10)."""
    return _pair_order(tuple(order))


@lru_cache(maxsize=1024)  # a table has few seat orders, and every showdown asks twice
def _pair_order(order: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    return tuple((order[i], order[j]) for i in range(len(order)) for j in range(i + 1, len(order)))


def settle(
    pair_points: Mapping[tuple[int, int], int],
    order: Sequence[int],
    stake: Money = 1,
    pair_stakes: Mapping[frozenset[int], Money] | None = None,
    stacks: Mapping[int, Money | None] | None = None,
) -> Settlement:
    """Turn pairwise points into transfers in D-10 order.

    `pair_points[(a, b)]` is what a wins from b (either key orientation may be given);
    `pair_stakes` overrides the table `stake` for a pair; `stacks` are starting stacks:
    caps apply only when every seat in `order` has one.
    """
    pair_stakes = pair_stakes or {}
    capped = stacks is not None and all(stacks.get(s) is not None for s in order)
    money_in = [stake, *pair_stakes.values()] + ([stacks[s] for s in order] if capped else [])  # type: ignore[index]
    whole = all(isinstance(v, int) for v in money_in)
    exact = int if whole else to_cent
    out = int if whole else float  # what JSON carries: an int, or a float of whole cents
    zero = exact(0)

    start = {s: exact(stacks[s]) for s in order} if capped else {}  # type: ignore[index]
    net = dict.fromkeys(order, zero)  # received - paid so far
    transfers: list[Transfer] = []
    shortfalls: list[Transfer] = []
    notes: list[str] = []
    for a, b in pair_order(order):
        points = pair_points[(a, b)] if (a, b) in pair_points else -pair_points.get((b, a), 0)
        if points == 0:
            continue
        winner, loser = (a, b) if points > 0 else (b, a)
        pair_stake = pair_stakes.get(frozenset((a, b)), stake) if pair_stakes else stake
        if whole:
            owed = abs(points) * int(pair_stake)
        else:
            owed = to_cent(abs(points) * Decimal(str(pair_stake)))  # rounded once, to the cent
        if not owed:
            notes.append(
                f"§8: seats {a} and {b}: {abs(points)} point{'s' if abs(points) > 1 else ''} "
                f"x stake {pair_stake} rounds to nothing at the cent: no transfer"
            )
            continue
        paid = owed
        if capped:
            chips_now = start[loser] + net[loser]
            room = start[winner] - net[winner]
            paid = max(zero, min(owed, chips_now, room))
        if paid:
            net[loser] -= paid
            net[winner] += paid
            transfers.append(Transfer(loser, winner, out(paid)))
        if paid != owed:
            shortfalls.append(Transfer(loser, winner, out(owed - paid)))
    return Settlement(tuple(transfers), tuple(shortfalls), capped, tuple(notes))
