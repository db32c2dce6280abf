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

from dataclasses import dataclass

from kiosk.cards import ROW_SIZES, ROWS, Card
from kiosk.rules.fouls import check_foul
from kiosk.rules.naturals import NaturalMatch, find_naturals, verify_natural
from kiosk.rules.profiles import ScoringProfile
from kiosk.rules.ranking import HandRank, rank_hand_text
from kiosk.rules.settlement import pair_order, payment_order
from kiosk.rules.showdown import SeatInput, Showdown



@dataclass(frozen=True, slots=True)
class Row:
    name: str
    cards: tuple[Card, ...]
    rank: HandRank | None  # None when the row has the wrong number of cards
    royalty: int  # the bonus this row holds under the profile (paid only when it wins, D-6)
    text: str  # "straight flush, 8 high", or "2 cards (needs 3)"

    def describe(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class SeatResult:
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


@dataclass(frozen=True, slots=True)
class PairResult:
    seats: tuple[int, int]
    points: int  # what seats[0] wins from seats[1]
    rule: str  # the rule that settled the pair: "§5", "D-8", "D-9"
    explanation: str
    row_outcomes: tuple[int, int, int] | None = None  # +1 / 0 / -1 per row, seats[0]'s view
    royalties: tuple[int, int] = (0, 0)  # royalty points collected by seats[0], by seats[1]


@dataclass(frozen=True, slots=True)
class ShowdownResult:
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


@dataclass(frozen=True, slots=True)
class _Seat:
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
    order = payment_order((s.seat for s in showdown.active), showdown.button)
    outcomes: dict[tuple[int, int], tuple[int, int, int]] = {}
    for a, b in pair_order(order):
        if seats[a].status == seats[b].status == "set":
            outcomes[(a, b)] = ab = _row_outcomes(seats[a], seats[b])
            outcomes[(b, a)] = (-ab[0], -ab[1], -ab[2])
    supers = {n for n in order if _earns_super_bonus(n, order, seats, outcomes, profile)}

    pairs = tuple(
        _score_pair(seats[a], seats[b], outcomes.get((a, b)), supers, profile)
        for a, b in pair_order(order)
    )
    results = tuple(
        _seat_result(seats[s.seat], pairs, supers, profile, len(order)) for s in showdown.seats
    )
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
    if not seat.declared and len(seat.cards) == 13:
        undeclared = find_naturals(seat.cards)
        if undeclared:
            kinds = " and ".join(m.kind.label for m in undeclared)
            notes.append(
                f"D-4: seat {n} holds {kinds} but did not declare it; the hand plays as set"
            )
    if foul is not None:
        return _Seat(n, "fouled", rows, None, foul.kind, foul.rule, foul.reason, seat.declared)
    return _Seat(n, "set", rows, declared=seat.declared)


def _rows(rows, profile: ScoringProfile) -> tuple[Row, ...]:
    out = []
    for name, cards in zip(ROWS, rows):
        if len(cards) == ROW_SIZES[name]:
            rank, text = rank_hand_text(cards)
            out.append(Row(name, cards, rank, profile.royalty(name, rank.category), text))
        else:
            n = len(cards)
            text = f"{n} card{'' if n == 1 else 's'} (needs {ROW_SIZES[name]})"
            out.append(Row(name, cards, None, 0, text))
    return tuple(out)


def _stands(rows: tuple[Row, ...]) -> bool:
    """Fast path for the common case, from the ranks already computed: right counts and
    D-2 order hold. Anything else goes to `check_foul`, which words the reason."""
    front, middle, back = (r.rank for r in rows)
    return (
        front is not None and middle is not None and back is not None
        and middle > front and back >= middle
    )  # fmt: skip


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
    return tuple(  # type: ignore[return-value]
        (ra.rank > rb.rank) - (ra.rank < rb.rank) for ra, rb in zip(a.rows, b.rows)
    )


def _earns_super_bonus(n, order, seats, outcomes, profile: ScoringProfile) -> bool:
    """D-7: scoops every opponent (a fouled one counts as scooped; a natural never does)."""
    if profile.super_bonus is None or seats[n].status != "set":
        return False
    opponents = [m for m in order if m != n]
    if len(opponents) < profile.super_bonus_min_opponents:
        return False
    return all(
        seats[m].status == "fouled"
        or (seats[m].status == "set" and outcomes[(n, m)] == (1, 1, 1))
        for m in opponents
    )


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
    collected = [0, 0]
    for ra, rb, outcome in zip(a.rows, b.rows, outcomes):
        versus = f"{ra.describe()} v {rb.describe()}"
        if outcome == 0:
            parts.append(f"{ra.name} tie ({versus}, D-5)")
            continue
        winner, row = (a, ra) if outcome > 0 else (b, rb)
        text = f"{ra.name} to seat {winner.seat} ({versus})"
        if row.royalty:
            collected[0 if outcome > 0 else 1] += row.royalty
            text += f" + royalty {row.royalty} (D-6)"
        parts.append(text)
    wins, losses = outcomes.count(1), outcomes.count(-1)
    if wins == 3 or losses == 3:
        winner = a if wins == 3 else b
        base = _scoop_value(winner.seat, supers, profile)
        if winner.seat in supers:
            summary = f"seat {winner.seat} scoops: {base} (super bonus, D-7)"
        else:
            summary = f"seat {winner.seat} scoops: {base}"
        base = base if wins == 3 else -base
    else:
        diff = wins - losses
        base = diff * profile.row_point
        if diff and profile.overall_bonus:
            base += profile.overall_bonus * (1 if diff > 0 else -1)
        summary = f"rows {wins}-{losses}" + (f" ({3 - wins - losses} tied)" if wins + losses < 3 else "")
    points = base + collected[0] - collected[1]
    text = "; ".join(parts) + f"; {summary}; seat {a.seat} {_signed(points)}"
    return PairResult((a.seat, b.seat), points, "§5", text, outcomes, (collected[0], collected[1]))


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


def _seat_result(seat: _Seat, pairs, supers, profile: ScoringProfile, players: int) -> SeatResult:
    n = seat.seat
    mine = [(p, p.points if p.seats[0] == n else -p.points) for p in pairs if n in p.seats]
    points = sum(pts for _, pts in mine)
    royalties = sum(p.royalties[0 if p.seats[0] == n else 1] for p, _ in mine)
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
        if any(p.rule == "D-9" for p, _ in mine):
            text += "; every natural collects from it (D-9)"
    else:
        text = f"seat {n} set: " + ", ".join(f"{r.name} {r.describe()}" for r in seat.rows)
        if n in supers:
            text += (
                f"; D-7: scoops all {players - 1} opponents, collects {profile.super_bonus} "
                f"instead of {profile.scoop} from each"
            )
    if seat.status != "dead":
        per = ", ".join(f"{_signed(pts)} v seat {p.seats[1] if p.seats[0] == n else p.seats[0]}" for p, pts in mine)
        text += f"; {per}; net {_signed(points)}"
    return SeatResult(
        n, seat.status, points, text, seat.natural, seat.foul, seat.foul_rule, seat.foul_reason,
        seat.rows, royalties, n in supers, seat.declared,
    )  # fmt: skip


def _royalty_rows(rows: tuple[Row, ...]) -> str:
    return ", ".join(f"{r.name} {r.describe()} {r.royalty}" for r in rows if r.royalty)


def _signed(points: int) -> str:
    return f"{points:+d}"
