"""Properties over random showdowns: zero-sum points, antisymmetric pairs, conserved chips,
and the all-in caps of RULES §8 (no seat wins more than its starting stack or pays more
than it has)."""

import random
from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kiosk.cards import Card, deck
from kiosk.rules.api import score_json
from kiosk_lab.bench.rules import set_hand
from kiosk.rules.fouls import check_foul
from kiosk.rules.profiles import BUILT_IN
from kiosk.rules.profiles import get_profile
from kiosk.rules.scoring import _rows, _stands

PROFILES = sorted(BUILT_IN)


def _six_pairs(pool: list[Card], rng: random.Random) -> list[Card] | None:
    by_rank: dict[int, list[Card]] = {}
    for c in pool:
        by_rank.setdefault(c.rank, []).append(c)
    ranks = [r for r, cs in by_rank.items() if len(cs) >= 2]
    if len(ranks) < 6:
        return None
    hand = [c for r in rng.sample(ranks, 6) for c in rng.sample(by_rank[r], 2)]
    hand.append(rng.choice([c for c in pool if c not in hand]))
    return hand


def random_showdown(rng: random.Random) -> dict:
    pool = list(deck())
    rng.shuffle(pool)
    seats = []
    kinds = [rng.choice(["set", "set", "set", "shuffled", "dead", "natural", "false", "short"]) for _ in range(4)]
    if sum(k != "dead" for k in kinds) < 2:
        kinds[:2] = ["set", "set"]
    for n, kind in enumerate(kinds, 1):
        hand = _six_pairs(pool, rng) if kind == "natural" else None
        if hand is None:
            hand = pool[:13]
            kind = "set" if kind == "natural" else kind
        pool = [c for c in pool if c not in hand]
        text = [str(c) for c in hand]
        seat: dict = {"seat": n}
        if kind == "dead":
            seat.update(dead=True, cards=text)
        elif kind in ("natural", "false"):
            seat.update(declared_natural=True, cards=text)
        elif kind == "shuffled":  # random rows: usually a foul
            seat.update(front=text[:3], middle=text[3:8], back=text[8:])
        else:
            front, middle, back = set_hand(hand)
            if kind == "short":
                front, middle = front + middle[:1], middle[1:]
            seat.update(front=[str(c) for c in front], middle=[str(c) for c in middle], back=[str(c) for c in back])
        if rng.random() < 0.8:
            seat["stack"] = rng.choice([0, 5, 20, 50, 120, 400, 2.5, 33.33])
        seats.append(seat)
    showdown = {
        "profile": rng.choice(PROFILES),
        "button": rng.randint(1, 4),
        "stake": rng.choice([1, 5, 10, 0.25, 2.5]),
        "seats": seats,
    }
    if rng.random() < 0.3:
        active = [s["seat"] for s in seats if not s.get("dead")]
        showdown["pair_stakes"] = [{"seats": active[:2], "stake": rng.choice([0, 3, 100, 0.5])}]
    return showdown


def _money(value) -> Decimal:
    return Decimal(str(value))


def _stake(showdown, a, b):
    for ps in showdown.get("pair_stakes", []):
        if set(ps["seats"]) == {a, b}:
            return ps["stake"]
    return showdown["stake"]


def _relabel(showdown: dict) -> tuple[dict, dict]:
    """The same table numbered the other way round (seat n -> 5 - n)."""
    mapping = {n: 5 - n for n in range(1, 5)}
    flipped = dict(showdown)
    flipped["seats"] = [dict(s, seat=mapping[s["seat"]]) for s in showdown["seats"]]
    flipped["button"] = mapping[showdown["button"]]
    if "pair_stakes" in showdown:
        flipped["pair_stakes"] = [
            {"seats": [mapping[n] for n in ps["seats"]], "stake": ps["stake"]}
            for ps in showdown["pair_stakes"]
        ]
    return flipped, mapping


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_points_are_zero_sum_and_seat_points_are_the_sum_of_their_pairs(rng):
    showdown = random_showdown(rng)
    result = score_json(showdown)
    assert "error" not in result, result
    assert sum(s["points"] for s in result["seats"]) == 0
    for s in result["seats"]:
        mine = [
            p["points"] if p["seats"][0] == s["seat"] else -p["points"]
            for p in result["pairs"]
            if s["seat"] in p["seats"]
        ]
        assert s["points"] == sum(mine)
        if s["status"] == "dead":
            assert mine == [] and s["points"] == 0
    active = [s["seat"] for s in result["seats"] if s["status"] != "dead"]
    assert len(result["pairs"]) == len(active) * (len(active) - 1) // 2


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_pair_points_are_antisymmetric_when_the_table_is_numbered_the_other_way(rng):
    showdown = random_showdown(rng)
    result = score_json(showdown)
    flipped, mapping = _relabel(showdown)
    other = score_json(flipped)
    theirs = {tuple(p["seats"]): p["points"] for p in other["pairs"]}
    for p in result["pairs"]:
        a, b = (mapping[n] for n in p["seats"])
        # the payment order runs the other way, so the pair is listed as (b, a) there
        if (b, a) in theirs:
            assert theirs[(b, a)] == -p["points"]
        else:
            assert theirs[(a, b)] == p["points"]
    for s in result["seats"]:
        twin = next(t for t in other["seats"] if t["seat"] == mapping[s["seat"]])
        assert (twin["points"], twin["status"], twin["foul"], twin["natural"]) == (
            s["points"], s["status"], s["foul"], s["natural"],
        )


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_settlement_conserves_chips_and_respects_the_all_in_caps(rng):
    showdown = random_showdown(rng)
    result = score_json(showdown)
    seats = {s["seat"]: s for s in showdown["seats"] if not s.get("dead")}
    capped = all("stack" in s for s in seats.values())
    assert result["capped"] == capped
    net = {n: Decimal(0) for n in seats}
    order_index = {n: i for i, n in enumerate(result["order"])}
    pairs_in_order = [(a, b) for a in result["order"] for b in result["order"] if order_index[a] < order_index[b]]
    moved: dict[tuple[int, int], Decimal] = {}
    last = -1
    for t in result["transfers"]:
        amount = _money(t["amount"])
        assert amount > 0
        payer, payee = t["from"], t["to"]
        key = tuple(sorted((payer, payee), key=order_index.get))
        index = pairs_in_order.index(key)
        assert index > last  # D-10: transfers in pair order
        last = index
        if capped:
            # pays only chips it has now, never past what the payee may still win
            assert amount <= _money(seats[payer]["stack"]) + net[payer]
            assert amount <= _money(seats[payee]["stack"]) - net[payee]
        net[payer] -= amount
        net[payee] += amount
        moved[(payer, payee)] = amount
    assert sum(net.values()) == 0  # chips are conserved
    if capped:
        for n, s in seats.items():
            assert -net[n] <= _money(s["stack"])  # never pays more than it had
            assert net[n] <= _money(s["stack"])  # never wins more than its starting stack
    # transfer + shortfall on each pair is exactly the points times the stake (to the cent)
    short = {(t["from"], t["to"]): _money(t["amount"]) for t in result["shortfalls"]}
    for p in result["pairs"]:
        a, b = p["seats"]
        winner, loser = (a, b) if p["points"] > 0 else (b, a)
        owed = (abs(p["points"]) * _money(_stake(showdown, a, b))).quantize(Decimal("0.01"))
        paid = moved.get((loser, winner), Decimal(0)) + short.get((loser, winner), Decimal(0))
        assert paid == owed
        if not capped:
            assert (loser, winner) not in short


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False))
def test_the_scorers_fast_path_agrees_with_check_foul(rng):
    """scoring._stands skips check_foul for hands that stand; it must never hide a foul."""
    cards = rng.sample(deck(), 13)
    cut_a, cut_b = (3, 8) if rng.random() < 0.9 else sorted(rng.sample(range(1, 13), 2))
    rows = (tuple(cards[:cut_a]), tuple(cards[cut_a:cut_b]), tuple(cards[cut_b:]))
    if rng.random() < 0.5:
        rows = tuple(tuple(r) for r in set_hand(cards))
    assert _stands(_rows(rows, get_profile("mandarin"))) == (check_foul(*rows) is None)
