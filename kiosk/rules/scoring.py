"""Score a showdown pairwise under a profile (RULES.md §5-§6, D-4 … D-9). Pure, no I/O.

Every two active seats settle on their own: rows compared (D-5 ties score nothing),
scoop, royalties to the row winner only (D-6), the super bonus (D-7), fouls (D-8) and
naturals (D-9). A seat's points are the sum of its pairs' points.

Decisions this module makes where RULES.md leaves room (documented in docs/rules-engine.md):

- D-7: an opponent holding a natural is *not* scooped (the natural collects from the
  seat), so a seat facing a natural never earns the super bonus. A fouled opponent,
  including one fouled by a false declaration (D-4), counts as scooped.
- D-9 with `natural_ranking: capsa`: two naturals of different kinds meet by the
  profile's `natural_order` (strongest first; seed 002 lists them weakest first: three
  straights, three flushes, six pairs, dragon); the stronger collects its own points.
- A declared natural with several kinds possible plays as the kind worth most points
  (then the strongest); `declared_natural: "six_pairs"` verifies that kind only.
- D-4 with `false_natural: play_as_set`: a declared pile that was never set into rows
  cannot play as set and is fouled (`false_natural`).
"""

from __future__ import annotations

from typing import NamedTuple

from kiosk.cards import ROW_SIZES, Card
from kiosk.rules.fouls import check_foul
from kiosk.rules.naturals import NaturalMatch, could_hold_natural, find_naturals, verify_natural
from kiosk.rules.profiles import ScoringProfile
from kiosk.rules.ranking import HandRank, ranked_hand
from kiosk.rules.settlement import pair_order, payment_order
from kiosk.rules.showdown import SeatInput, Showdown



# The results (per row, seat, pair and showdown) are NamedTuples: immutable like the frozen dataclasses
# elsewhere, and two to three times cheaper to build (a showdown makes a few dozen of them). The hottest
# are built with `_build(Type, (every field, in order))`, which skips the generated Python `__new__`.
_build = tuple.__new__


class Row(NamedTuple):
    name: str
    cards: tuple[Card, ...]
    rank: HandRank | None  # None when the row has the wrong number of cards
    royalty: int  # the bonus this row holds under the profile (paid only when it wins, D-6)
    text: str  # "straight flush, 8 high", or "2 cards (needs 3)"
    order: int = -1  # the rank's place in D-1 order (compare these, not the ranks); -1: no rank

    def describe(self) -> str:
        return self.text


class SeatResult(NamedTuple):
    seat: int
    status: str  # "set" | "fouled" | "natural" | "dead"
    points: int  # net over all opponents
    explanation: str
    natural: NaturalMatch | None = None  # the verified, declared natural
    foul: str | None = None  # "count" | "order" | "false_natural"
    foul_rule: str | None = None  # "§3", "D-2", "D-4"
    foul_reason: str | None = None  # reads aloud after "seat N fouled: "
    rows: tuple[Row, ...] = ()  # as set (empty for an unset pile or an empty dead seat)
    royalties: int = 0  # royalty points this seat collected
    super_bonus: bool = False  # D-7
    declared: bool = False


class PairResult(NamedTuple):
    seats: tuple[int, int]
    points: int  # what seats[0] wins from seats[1]
    rule: str  # the rule that settled the pair: "§5", "D-8", "D-9"
    explanation: str
    row_outcomes: tuple[int, int, int] | None = None  # +1 / 0 / -1 per row, seats[0]'s view
    royalties: tuple[int, int] = (0, 0)  # royalty points collected by seats[0], by seats[1]


class ShowdownResult(NamedTuple):
    profile: str
    button: int
    order: tuple[int, ...]  # D-10 payment order of the active seats
    seats: tuple[SeatResult, ...]  # every seat, in seat order
    pairs: tuple[PairResult, ...]  # every pair of active seats, in payment order
    notes: tuple[str, ...] = ()

    def seat(self, number: int) -> SeatResult:
        return next(s for s in self.seats if s.seat == number)

    def pair_points(self) -> dict[tuple[int, int], int]:
        return {p.seats: p.points for p in self.pairs}


class _Seat(NamedTuple):
    """A seat classified before any pair is scored."""

    seat: int
    status: str
    rows: tuple[Row, ...] = ()
    natural: NaturalMatch | None = None
    foul: str | None = None
    foul_rule: str | None = None
    foul_reason: str | None = None
    declared: bool = False


def score_showdown(showdown: Showdown, profile: ScoringProfile | None = None) -> ShowdownResult:
    """Score every pair of active seats; `profile` defaults to the showdown's own."""
    profile = profile or showdown.profile
    notes: list[str] = []
    seats = {s.seat: _classify(s, profile, notes) for s in showdown.seats}
    order = payment_order(tuple([s.seat for s in showdown.active]), showdown.button)
    pair_seats = pair_order(order)
    outcomes: dict[tuple[int, int], tuple[int, int, int]] = {}
    for a, b in pair_seats:
        if seats[a].status == seats[b].status == "set":
            outcomes[(a, b)] = ab = _row_outcomes(seats[a], seats[b])
            outcomes[(b, a)] = (-ab[0], -ab[1], -ab[2])
    supers = _super_bonus_seats(order, seats, outcomes, profile)

    pairs = tuple([
        _score_pair(seats[a], seats[b], outcomes.get((a, b)), supers, profile) for a, b in pair_seats
    ])  # fmt: skip
    by_seat = _pairs_by_seat(pairs)
    results = tuple([
        _seat_result(seats[s.seat], by_seat.get(s.seat, ()), supers, profile, len(order))
        for s in showdown.seats
    ])  # fmt: skip
    return ShowdownResult(profile.name, showdown.button, order, results, pairs, tuple(notes))


# --- classifying a seat ----------------------------------------------------------------


def _classify(seat: SeatInput, profile: ScoringProfile, notes: list[str]) -> _Seat:
    n = seat.seat
    rows = _rows(seat.rows, profile) if seat.rows is not None else ()
    if seat.dead:
        return _Seat(n, "dead", rows)
    if seat.declared:
        match = _declared_natural(seat, profile)
        if match is not None:
            return _Seat(n, "natural", rows, natural=match, declared=True)
        claimed = seat.declared_kind.replace("_", " ") if seat.declared_kind else "a natural"
        count = len(seat.cards)
        why = (
            f"declared {claimed}, but the {count} cards do not hold it"
            if count == 13
            else f"declared {claimed} with {count} cards (a natural needs 13)"
        )
        if profile.false_natural == "play_as_set" and seat.rows is not None:
            notes.append(
                f"D-4: seat {n} {why}; it plays as set (profile setting false_natural: play_as_set)"
            )
        else:
            if profile.false_natural == "play_as_set":
                why += "; no rows were set, so it cannot play as set"
            return _Seat(n, "fouled", rows, None, "false_natural", "D-4", why, declared=True)
    assert seat.rows is not None  # parse_showdown allows a bare pile only when declared
    foul = None if _stands(rows) else check_foul(*seat.rows)
    if not seat.declared and len(seat.cards) == 13 and could_hold_natural(seat.cards):
        undeclared = find_naturals(seat.cards)
        if undeclared:
            kinds = " and ".join(m.kind.label for m in undeclared)
            notes.append(
                f"D-4: seat {n} holds {kinds} but did not declare it; the hand plays as set"
            )
    if foul is not None:
        return _Seat(n, "fouled", rows, None, foul.kind, foul.rule, foul.reason, seat.declared)
    return _build(_Seat, (n, "set", rows, None, None, None, None, seat.declared))


def _rows(rows, profile: ScoringProfile) -> tuple[Row, ...]:
    front, middle, back = rows
    royalties = profile.row_royalties
    return (
        _row("front", front, ROW_SIZES["front"], royalties("front")),
        _row("middle", middle, ROW_SIZES["middle"], royalties("middle")),
        _row("back", back, ROW_SIZES["back"], royalties("back")),
    )


def _row(name: str, cards: tuple[Card, ...], size: int, royalties: tuple[int, ...]) -> Row:
    if len(cards) != size:
        n = len(cards)
        return Row(name, cards, None, 0, f"{n} card{'' if n == 1 else 's'} (needs {size})")
    rank, text, order = ranked_hand(cards)
    return _build(Row, (name, cards, rank, royalties[rank.category], text, order))


def _stands(rows: tuple[Row, ...]) -> bool:
    """Fast path for the common case, from the ranks already computed: right counts and
    D-2 order hold. Anything else goes to `check_foul`, which words the reason."""
    front, middle, back = rows
    return front.order >= 0 and middle.order > front.order and back.order >= middle.order


def _declared_natural(seat: SeatInput, profile: ScoringProfile) -> NaturalMatch | None:
    if len(seat.cards) != 13:
        return None
    if seat.declared_kind is not None:
        return verify_natural(seat.cards, seat.declared_kind)
    matches = find_naturals(seat.cards)
    if not matches:
        return None
    return max(
        matches,
        key=lambda m: (profile.natural_value(m.kind.value), profile.natural_strength(m.kind.value)),
    )


# --- pairs -------------------------------------------------------------------------------


def _row_outcomes(a: _Seat, b: _Seat) -> tuple[int, int, int]:
    """+1 / 0 / -1 per row, from a's side (D-1 by the rows' `order`)."""
    (fa, ma, ba), (fb, mb, bb) = a.rows, b.rows
    return (
        (fa.order > fb.order) - (fa.order < fb.order),
        (ma.order > mb.order) - (ma.order < mb.order),
        (ba.order > bb.order) - (ba.order < bb.order),
    )


def _super_bonus_seats(order, seats, outcomes, profile: ScoringProfile) -> set[int]:
    """D-7: the seats that scoop every opponent (a fouled one counts as scooped; a natural never does)."""
    if profile.super_bonus is None or len(order) - 1 < profile.super_bonus_min_opponents:
        return set()
    return {
        n for n in order
        if seats[n].status == "set" and all(
            seats[m].status == "fouled" or (seats[m].status == "set" and outcomes[(n, m)] == (1, 1, 1))
            for m in order if m != n
        )
    }  # fmt: skip


def _scoop_value(n: int, supers: set[int], profile: ScoringProfile) -> int:
    return profile.super_bonus if n in supers and profile.super_bonus is not None else profile.scoop


def _score_pair(a: _Seat, b: _Seat, outcomes, supers, profile: ScoringProfile) -> PairResult:
    seats = (a.seat, b.seat)
    if a.status == "natural" or b.status == "natural":
        points, text = _natural_pair(a, b, profile)
        return PairResult(seats, points, "D-9", text)
    if a.status == "fouled" and b.status == "fouled":
        return PairResult(seats, 0, "D-8", "both fouled: no payment either way (D-8)")
    if a.status == "fouled" or b.status == "fouled":
        winner, loser = (a, b) if b.status == "fouled" else (b, a)
        scoop = _scoop_value(winner.seat, supers, profile)
        bonus = sum(r.royalty for r in winner.rows)
        what = "super bonus (D-7)" if winner.seat in supers else "scoop"
        text = f"seat {loser.seat} fouled: pays seat {winner.seat} {scoop} ({what})"
        if bonus:
            text += f" plus royalties {bonus} ({_royalty_rows(winner.rows)})"
        sign = 1 if winner is a else -1
        collected = (bonus, 0) if winner is a else (0, bonus)
        return PairResult(seats, sign * (scoop + bonus), "D-8", text + " (D-8)", royalties=collected)
    return _set_pair(a, b, outcomes, supers, profile)


def _set_pair(a: _Seat, b: _Seat, outcomes, supers, profile: ScoringProfile) -> PairResult:
    parts = []
    collected = [0, 0]  # royalties collected by a, by b
    for ra, rb, outcome in zip(a.rows, b.rows, outcomes):
        if outcome == 0:
            parts.append(f"{ra.name} tie ({ra.text} v {rb.text}, D-5)")
            continue
        side, seat, royalty = (0, a.seat, ra.royalty) if outcome > 0 else (1, b.seat, rb.royalty)
        if royalty:
            collected[side] += royalty
            parts.append(f"{ra.name} to seat {seat} ({ra.text} v {rb.text}) + royalty {royalty} (D-6)")
        else:
            parts.append(f"{ra.name} to seat {seat} ({ra.text} v {rb.text})")
    wins, losses = outcomes.count(1), outcomes.count(-1)
    if wins == 3 or losses == 3:
        winner = a.seat if wins == 3 else b.seat
        base = _scoop_value(winner, supers, profile)
        if winner in supers:
            summary = f"seat {winner} scoops: {base} (super bonus, D-7)"
        else:
            summary = f"seat {winner} scoops: {base}"
        base = base if wins == 3 else -base
    else:
        diff = wins - losses
        base = diff * profile.row_point
        if diff and profile.overall_bonus:
            base += profile.overall_bonus * (1 if diff > 0 else -1)
        summary = f"rows {wins}-{losses}" + (f" ({3 - wins - losses} tied)" if wins + losses < 3 else "")
    points = base + collected[0] - collected[1]
    text = f"{parts[0]}; {parts[1]}; {parts[2]}; {summary}; seat {a.seat} {points:+d}"
    return _build(PairResult, ((a.seat, b.seat), points, "§5", text, outcomes, (collected[0], collected[1])))


def _natural_pair(a: _Seat, b: _Seat, profile: ScoringProfile) -> tuple[int, str]:
    if a.status == "natural" and b.status == "natural":
        ka, kb = a.natural.kind, b.natural.kind  # type: ignore[union-attr]
        sign = _natural_winner(a.natural, b.natural, profile)  # type: ignore[arg-type]
        names = f"{ka.label} v {kb.label}"
        if sign == 0:
            return 0, f"two naturals ({names}): push (D-9)"
        winner = a if sign > 0 else b
        value = profile.natural_value(winner.natural.kind.value)  # type: ignore[union-attr]
        how = "ranked, profile capsa" if profile.natural_ranking == "capsa" else "a dragon beats any other natural"
        return sign * value, f"two naturals ({names}): seat {winner.seat} collects {value} ({how}, D-9)"
    winner, loser = (a, b) if a.status == "natural" else (b, a)
    kind = winner.natural.kind  # type: ignore[union-attr]
    value = profile.natural_value(kind.value)
    sign = 1 if winner is a else -1
    return sign * value, f"seat {winner.seat}'s {kind.label} collects {value} from seat {loser.seat} (D-9)"


def _natural_winner(a: NaturalMatch, b: NaturalMatch, profile: ScoringProfile) -> int:
    """+1 when a collects, -1 when b collects, 0 for a push (D-9)."""
    if profile.natural_ranking == "capsa":
        sa, sb = profile.natural_strength(a.kind.value), profile.natural_strength(b.kind.value)
        if sa != sb:
            return 1 if sa > sb else -1
        return (a.strength > b.strength) - (a.strength < b.strength)
    a_dragon, b_dragon = a.kind.value == "dragon", b.kind.value == "dragon"
    return int(a_dragon and not b_dragon) - int(b_dragon and not a_dragon)


# --- seat summaries ------------------------------------------------------------------------


# One pair as one of its seats sees it: (points it wins, the opponent, royalties it collected, rule).
_SeatPair = tuple[int, int, int, str]


def _pairs_by_seat(pairs: tuple[PairResult, ...]) -> dict[int, list[_SeatPair]]:
    """Each seat's pairs, in payment order, from its own side."""
    by_seat: dict[int, list[_SeatPair]] = {}
    for p in pairs:
        a, b = p.seats
        by_seat.setdefault(a, []).append((p.points, b, p.royalties[0], p.rule))
        by_seat.setdefault(b, []).append((-p.points, a, p.royalties[1], p.rule))
    return by_seat


def _seat_result(seat: _Seat, mine, supers, profile: ScoringProfile, players: int) -> SeatResult:
    n = seat.seat
    points = royalties = 0
    for won, _, collected, _ in mine:
        points += won
        royalties += collected
    if seat.status == "dead":
        text = f"seat {n} is dead: no player; its cards count only for the deck check (§5)"
    elif seat.status == "natural":
        value = profile.natural_value(seat.natural.kind.value)  # type: ignore[union-attr]
        text = (
            f"D-9: seat {n} declared a natural, verified: {seat.natural.describe()}; "  # type: ignore[union-attr]
            f"collects {value} from every other active seat, no rows compared"
        )
    elif seat.status == "fouled":
        text = (
            f"seat {n} fouled: {seat.foul_reason} ({seat.foul_rule}); D-8: pays "
            f"{profile.scoop} plus royalties to each seat that set a hand"
        )
        if supers:
            text += f" ({profile.super_bonus} to a seat with the super bonus, D-7)"
        if any(rule == "D-9" for *_, rule in mine):
            text += "; every natural collects from it (D-9)"
    else:
        front, middle, back = seat.rows
        text = f"seat {n} set: {front.name} {front.text}, {middle.name} {middle.text}, {back.name} {back.text}"
        if n in supers:
            text += (
                f"; D-7: scoops all {players - 1} opponents, collects {profile.super_bonus} "
                f"instead of {profile.scoop} from each"
            )
    if seat.status != "dead":
        per = ", ".join([f"{won:+d} v seat {opponent}" for won, opponent, _, _ in mine])
        text += f"; {per}; net {points:+d}"
    return _build(SeatResult, (
        n, seat.status, points, text, seat.natural, seat.foul, seat.foul_rule, seat.foul_reason,
        seat.rows, royalties, n in supers, seat.declared,
    ))  # fmt: skip


def _royalty_rows(rows: tuple[Row, ...]) -> str:
    return ", ".join(f"{r.name} {r.describe()} {r.royalty}" for r in rows if r.royalty)
