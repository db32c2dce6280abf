"""Score a Pai Gow table against its banker: hands, outcomes, commission, net (D-12, D-13).

Pure: a `PaiGowTable` in, a frozen `PaiGowResult` out. Money is `Decimal`, exact on the
amounts as written; commission is rounded half up to the cent (D-13).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from kiosk.paigow.houseway import set_by_house_way
from kiosk.paigow.ranks import Rank
from kiosk.paigow.setting import Setting, foul_of, same_setting
from kiosk.paigow.table import PaiGowTable, PlayerSeat
from kiosk.rules.settlement import to_cent

ZERO = Decimal(0)


@dataclass(frozen=True, slots=True)
class BankerResult:
    seat: int
    laid_out: Setting
    house_way: Setting
    follows_house_way: bool
    scored_as: Setting
    laid_out_foul: str | None  # why a player-banker's own setting was not used (D-12)
    net: Decimal
    commission: Decimal
    ranks: tuple[Rank, Rank]  # of scored_as: (high, low)


@dataclass(frozen=True, slots=True)
class SeatResult:
    seat: int
    laid_out: Setting
    bet: Decimal
    foul: str | None  # None, "count" or "order" (D-12a)
    high: str | None  # "win" | "lose" | "copy"; None when fouled
    low: str | None
    outcome: str  # "win" | "lose" | "push"
    net: Decimal
    commission: Decimal
    ranks: tuple[Rank, Rank] | None = None  # (high, low) when 5 + 2 cards

    @property
    def status(self) -> str:
        return "fouled" if self.foul else "set"


@dataclass(frozen=True, slots=True)
class PaiGowResult:
    banker: BankerResult
    seats: tuple[SeatResult, ...]
    house_commission: Decimal
    warnings: tuple[str, ...]


def commission_on(amount: Decimal, rate: Decimal) -> Decimal:
    """D-13: amount x rate, rounded half up to the cent (10.50 x 5% = 0.53)."""
    return to_cent(amount * rate)


def compare(player: Rank, banker: Rank) -> str:
    """One hand against the banker's: a copy (equal) goes to the banker (§9)."""
    if player > banker:
        return "win"
    return "copy" if player == banker else "lose"


def score_seat(seat: PlayerSeat, banker_high: Rank, banker_low: Rank, rate: Decimal) -> SeatResult:
    setting, n, bet = seat.laid_out, seat.seat, seat.bet
    if not setting.counts_ok:
        return SeatResult(n, setting, bet, "count", None, None, "lose", -bet, ZERO)
    ranks = setting.ranks()
    if ranks[1] >= ranks[0]:  # D-12a: the low must rank below the high
        return SeatResult(n, setting, bet, "order", None, None, "lose", -bet, ZERO, ranks)
    high, low = compare(ranks[0], banker_high), compare(ranks[1], banker_low)
    wins = (high == "win") + (low == "win")
    if wins == 2:
        commission = commission_on(bet, rate)
        return SeatResult(n, setting, bet, None, high, low, "win", bet - commission, commission, ranks)
    if wins == 0:
        return SeatResult(n, setting, bet, None, high, low, "lose", -bet, ZERO, ranks)
    return SeatResult(n, setting, bet, None, high, low, "push", ZERO, ZERO, ranks)


def score_table(table: PaiGowTable) -> PaiGowResult:
    banker = table.banker
    laid = banker.laid_out
    house = set_by_house_way(laid.cards, table.house_way)
    follows = same_setting(laid, house)
    own_foul = foul_of(laid.high, laid.low)
    # D-12: the dealer is always scored by the house way; a player-banker as laid out unless it fouls.
    scored = house if banker.is_dealer or own_foul else laid
    banker_high, banker_low = scored.ranks()
    seats = tuple(score_seat(s, banker_high, banker_low, table.commission) for s in table.seats)
    total = sum((-s.net - s.commission for s in seats), ZERO)
    banker_commission = ZERO
    if not banker.is_dealer and total > 0:
        banker_commission = commission_on(total, table.commission)
    result = BankerResult(
        banker.seat, laid, house, follows, scored, None if banker.is_dealer else own_foul,
        total - banker_commission, banker_commission, (banker_high, banker_low),
    )  # fmt: skip
    house_commission = sum((s.commission for s in seats), banker_commission)
    return PaiGowResult(result, seats, house_commission, _warnings(table, result))


def _warnings(table: PaiGowTable, banker: BankerResult) -> tuple[str, ...]:
    """D-12l: `stack` when a player-banker cannot cover the bets; `house way` when the dealer
    set the banker's hand otherwise. Other lines avoid both words."""
    out = []
    bets = sum((s.bet for s in table.seats), ZERO)
    stack = table.banker.stack
    if banker.seat != 0 and stack is not None and stack < bets:
        out.append(
            f"banker seat {banker.seat} has a stack of {_text(stack)}, less than the "
            f"{_text(bets)} bet against it: the banker cannot cover every bet"
        )
    if banker.seat == 0 and not banker.follows_house_way:
        out.append("the dealer set the banker's hand off the house way: re-set it as shown")
    if banker.laid_out_foul:
        why = "wrong counts" if banker.laid_out_foul == "count" else "the low hand is not below the high"
        out.append(f"banker seat {banker.seat} set its hand wrongly ({why}): scored as the casino sets it")
    return tuple(out)


def _text(amount: Decimal) -> str:
    return f"{amount:,.2f}".rstrip("0").rstrip(".") if amount != amount.to_integral() else f"{amount:,.0f}"
