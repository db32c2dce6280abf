"""Naturals (RULES.md §4, D-3): each kind, the split named, capsa strength (D-9), and a brute force.

The splits returned are checked by helpers written here, not by the module's code.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from kiosk.cards import Card, deck, parse_cards
from kiosk.rules.naturals import NaturalKind, NaturalMatch, find_naturals, verify_natural
from kiosk.rules.ranking import Category, HandRank, rank_hand

DECK = deck(52)


# --- independent helpers ---------------------------------------------------------------

def one_suit(part) -> bool:
    return len({c.suit for c in part}) == 1


def five_straight_high(part) -> int | None:
    """High card of a 5-card straight (A-2-3-4-5 is 5 high), by trying every start."""
    ranks = sorted(c.rank for c in part)
    for high in range(5, 15):
        wanted = sorted(14 if r == 1 else r for r in range(high - 4, high + 1))
        if ranks == wanted:
            return high
    return None


def three_straight_high(part) -> int | None:
    """D-3: A-2-3 (3 high) up to Q-K-A; K-A-2 is no straight."""
    ranks = sorted(c.rank for c in part)
    for high in range(3, 15):
        wanted = sorted(14 if r == 1 else r for r in range(high - 2, high + 1))
        if ranks == wanted:
            return high
    return None


def part_ok(kind: NaturalKind, part) -> bool:
    if kind is NaturalKind.THREE_FLUSHES:
        return one_suit(part)
    high = three_straight_high(part) if len(part) == 3 else five_straight_high(part)
    return high is not None


def front_key(kind: NaturalKind, front) -> HandRank:
    """The front as the 3-card flush / straight it serves as (A-2-3 the lowest straight, D-3)."""
    if kind is NaturalKind.THREE_FLUSHES:
        return HandRank(Category.FLUSH, tuple(sorted((c.rank for c in front), reverse=True)))
    return HandRank(Category.STRAIGHT, (three_straight_high(front),))


def split_key(kind: NaturalKind, split) -> tuple:
    front, middle, back = split
    return (rank_hand(back), rank_hand(middle), front_key(kind, front))


def assert_valid_split(cards, match: NaturalMatch) -> None:
    assert match.split is not None
    front, middle, back = match.split
    assert (len(front), len(middle), len(back)) == (3, 5, 5)
    assert Counter(front + middle + back) == Counter(cards), "the split must use each card exactly once"
    for part in match.split:
        assert part_ok(match.kind, part), f"{match.kind.label}: {[str(c) for c in part]} is not a valid part"


def brute_force(cards, kind: NaturalKind) -> tuple | None:
    """Best (back, middle, front) key over all 72,072 ways to deal the cards 3/5/5, or None."""
    cards = list(cards)
    index = range(13)
    ok5 = {m: part_ok(kind, [cards[i] for i in m]) for m in combinations(index, 5)}
    best = None
    splits = 0
    for front in combinations(index, 3):
        rest = [i for i in index if i not in front]
        front_valid = part_ok(kind, [cards[i] for i in front])
        for middle in combinations(rest, 5):
            splits += 1
            if not front_valid or not ok5[middle]:
                continue
            back = tuple(i for i in rest if i not in middle)
            if not ok5[back]:
                continue
            split = tuple(tuple(cards[i] for i in part) for part in (front, middle, back))
            key = split_key(kind, split)
            best = key if best is None or key > best else best
    assert splits == 72_072
    return best


def hand(text: str) -> tuple[Card, ...]:
    cards = parse_cards(text)
    assert len(cards) == 13 and len(set(cards)) == 13
    return cards


def kinds(text: str) -> list[str]:
    return [m.kind.value for m in find_naturals(hand(text))]


# --- dragon and six pairs ---------------------------------------------------------------

def test_dragon_is_thirteen_ranks_suits_irrelevant():
    cards = hand("2s 3h 4d 5c 6s 7h 8d 9c Ts Jh Qd Kc Ah")
    match = verify_natural(cards, NaturalKind.DRAGON)
    assert match is not None and match.kind is NaturalKind.DRAGON and match.split is None
    assert match.strength == ()
    assert verify_natural(cards).kind is NaturalKind.DRAGON  # checked first
    assert match.describe() == "dragon: one of each rank, 2s 3h 4d 5c 6s 7h 8d 9c Ts Jh Qd Kc Ah"


def test_twelve_ranks_is_no_dragon():
    assert verify_natural(hand("2s 3h 4d 5c 6s 7h 8d 9c Ts Jh Qd Kc Kh"), NaturalKind.DRAGON) is None


def test_six_pairs():
    cards = hand("As Ad Kc Kh 9s 9d 7c 7h 5s 5d 3c 3h 2d")
    match = verify_natural(cards, NaturalKind.SIX_PAIRS)
    assert match is not None and match.strength == (14, 13, 9, 7, 5, 3)
    assert kinds("As Ad Kc Kh 9s 9d 7c 7h 5s 5d 3c 3h 2d") == ["six_pairs"]
    text = match.describe()
    assert text.startswith("six pairs: aces (Ad As), kings (Kc Kh), 9s (9d 9s)")
    assert text.endswith("odd card 2d")


def test_six_pairs_four_of_a_kind_counts_as_two_pairs():
    """§4: four of a kind counts as two pairs for six pairs."""
    cards = hand("As Ad Ah Ac Ks Kd 9s 9d 7c 7h 5s 5d 2c")
    match = verify_natural(cards, NaturalKind.SIX_PAIRS)
    assert match is not None and match.strength == (14, 14, 13, 9, 7, 5)


def test_five_pairs_and_trips_is_six_pairs_but_five_pairs_and_singles_is_not():
    """§4: sum(count // 2) >= 6: trips hold one pair."""
    assert verify_natural(hand("As Ad Kc Kh 9s 9d 7c 7h 5s 5d 3c 3h 3d"), NaturalKind.SIX_PAIRS) is not None
    assert verify_natural(hand("As Ad Kc Kh 9s 9d 7c 7h 5s 5d 3c 4h 6d"), NaturalKind.SIX_PAIRS) is None


def test_d9_capsa_six_pairs_higher_pairs_win():
    """D-9 (capsa): between two six pairs, the higher pairs win, compared high to low."""
    def strength(text):
        return verify_natural(hand(text), NaturalKind.SIX_PAIRS).strength

    aces_kings = strength("As Ad Kc Kh 9s 9d 7c 7h 5s 5d 3c 3h 2d")
    aces_queens = strength("Ah Ac Qc Qh Js Jd Tc Th 8s 8d 6c 6h 4d")
    assert aces_kings > aces_queens
    assert strength("As Ad Ah Ac 2s 2d 3c 3h 4s 4d 5c 5h 6d") > strength("Ks Kd Qc Qh Js Jd Tc Th 9s 9d 8c 8h 7d")
    same_ranks = strength("Ah Ac Kd Ks 9h 9c 7d 7s 5h 5c 3d 3s 4d")
    assert same_ranks == aces_kings  # an exact tie pushes


# --- three flushes -----------------------------------------------------------------------

@pytest.mark.parametrize(
    "text",
    [
        "2h 7h 9h 3s 5s 8s Ts Ks 2d 6d Jd Qd Ad",  # 3 + 5 + 5
        "2h 3h 5h 6h 8h 9h Th Jh 4s 7s 9s Js Ks",  # 8 + 5
        "2h 3h 5h 6h 8h 9h Th Jh Qh Ah 4s 7s As",  # 10 + 3
        "As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks",  # 13 of one suit
    ],
)
def test_three_flushes_positive_with_a_valid_split(text):
    cards = hand(text)
    match = verify_natural(cards, NaturalKind.THREE_FLUSHES)
    assert match is not None
    assert_valid_split(cards, match)
    assert split_key(NaturalKind.THREE_FLUSHES, match.split) == brute_force(cards, NaturalKind.THREE_FLUSHES)


@pytest.mark.parametrize(
    "text",
    [
        "2h 3h 5h 6h 8h 9h Th Jh Qh 4s 7s 9s Ks",  # 9 + 4
        "2s 5s 9s Ks 3h 8h Jh 4d 7d Qd 6c Tc Kc",  # 4 + 3 + 3 + 3
        "2h 3h 5h 6h 8h 9h 4s 7s 9s Ks 2d 3d 4d",  # 6 + 4 + 3
        "2h 3h 5h 6h 8h 9h Th 3s 5s 8s Ts Ks Qd",  # 7 + 5 + 1
    ],
)
def test_three_flushes_negative(text):
    cards = hand(text)
    assert verify_natural(cards, NaturalKind.THREE_FLUSHES) is None
    assert brute_force(cards, NaturalKind.THREE_FLUSHES) is None


def test_three_flushes_describe_names_the_split():
    match = verify_natural(hand("2h 7h 9h 3s 5s 8s Ts Ks 2d 6d Jd Qd Ad"), NaturalKind.THREE_FLUSHES)
    assert match.describe() == "three flushes: front 2h 7h 9h, middle 3s 5s 8s Ts Ks, back 2d 6d Jd Qd Ad"


def test_straight_flush_serves_as_a_flush():
    """§4: a straight flush serves as a flush; the best split puts it in the back."""
    cards = hand("2h 3h 4h 5h 6h 7h 8h 9h 4s 5s 6s 7s Ks")
    match = verify_natural(cards, NaturalKind.THREE_FLUSHES)
    assert match is not None
    assert_valid_split(cards, match)
    assert match.strength[0] == HandRank(Category.STRAIGHT_FLUSH, (9,))
    assert [str(c) for c in match.split[2]] == ["5h", "6h", "7h", "8h", "9h"]


def test_one_suit_best_split_is_royal_then_nine_high():
    cards = hand("As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks")
    match = verify_natural(cards, NaturalKind.THREE_FLUSHES)
    assert [[str(c) for c in part] for part in match.split] == [
        ["2s", "3s", "4s"], ["5s", "6s", "7s", "8s", "9s"], ["Ts", "Js", "Qs", "Ks", "As"]]


# --- three straights ---------------------------------------------------------------------

def test_d3_ace_two_three_is_a_three_card_straight():
    """D-3: A-2-3 is a 3-card straight (the lowest); here it is the only possible front."""
    cards = hand("Ac 2d 3h 5s 6s 7s 8s 9s 5d 6d 7c 8h 9h")
    match = verify_natural(cards, NaturalKind.THREE_STRAIGHTS)
    assert match is not None
    assert_valid_split(cards, match)
    assert sorted(c.rank for c in match.split[0]) == [2, 3, 14]
    assert match.strength[2] == HandRank(Category.STRAIGHT, (3,))


def test_d3_queen_king_ace_is_a_three_card_straight():
    """D-3: Q-K-A is the highest 3-card straight."""
    cards = hand("Qc Kd Ah 2s 3s 4s 5s 6h 3d 4d 5c 6c 7c")
    match = verify_natural(cards, NaturalKind.THREE_STRAIGHTS)
    assert match is not None
    assert_valid_split(cards, match)
    assert sorted(c.rank for c in match.split[0]) == [12, 13, 14]


def test_d3_king_ace_two_does_not_wrap():
    """D-3: K-A-2 is no straight, so these cards are not three straights."""
    cards = hand("Kc Ad 2h 3s 4s 5s 6s 7h 3d 4d 5c 6c 7c")
    assert verify_natural(cards, NaturalKind.THREE_STRAIGHTS) is None
    assert brute_force(cards, NaturalKind.THREE_STRAIGHTS) is None


def test_wheel_is_a_five_card_straight_for_three_straights():
    """§4 / D-3: A-2-3-4-5 is a 5-card straight."""
    cards = hand("As 2s 3h 4d 5c 8h 9h Tc Jd Qs 6d 7s 8c")
    match = verify_natural(cards, NaturalKind.THREE_STRAIGHTS)
    assert match is not None
    assert_valid_split(cards, match)
    assert split_key(NaturalKind.THREE_STRAIGHTS, match.split) == brute_force(cards, NaturalKind.THREE_STRAIGHTS)


def test_straight_flush_serves_as_a_straight():
    """§4: straight flushes count as straights; the split keeps the straight flush together."""
    cards = hand("2h 3h 4h 5s 6s 7s 8s 9s Td Jd Qd Kd Ad")
    found = {m.kind: m for m in find_naturals(cards)}
    assert NaturalKind.THREE_STRAIGHTS in found and NaturalKind.THREE_FLUSHES in found
    match = found[NaturalKind.THREE_STRAIGHTS]
    assert_valid_split(cards, match)
    assert match.strength[:2] == (HandRank(Category.STRAIGHT_FLUSH, (14,)), HandRank(Category.STRAIGHT_FLUSH, (9,)))


def test_best_split_prefers_a_straight_flush_in_duplicated_ranks():
    """Same rank pattern, but which 7 goes where decides whether the back is a straight flush."""
    cards = hand("3c 4c 5c 3s 4s 5s 6s 7s 3h 4h 5h 6h 7h")
    match = verify_natural(cards, NaturalKind.THREE_STRAIGHTS)
    assert_valid_split(cards, match)
    assert match.strength[0].category == Category.STRAIGHT_FLUSH
    assert match.strength[1].category == Category.STRAIGHT_FLUSH
    assert split_key(NaturalKind.THREE_STRAIGHTS, match.split) == brute_force(cards, NaturalKind.THREE_STRAIGHTS)


def test_three_straights_negative_near_miss():
    cards = hand("3s 4s 5s 3h 4h 5h 6h 7h 3d 4d 5d 6d 9d")
    assert verify_natural(cards, NaturalKind.THREE_STRAIGHTS) is None
    assert brute_force(cards, NaturalKind.THREE_STRAIGHTS) is None


def test_three_straights_describe_lays_the_ace_low_in_a_wheel():
    """The only split is front 7-8-9, middle A-2-3-4-5, back 4-8; the ace is read first in the wheel."""
    match = verify_natural(hand("As 2s 3h 4d 5c 4h 5s 6d 7s 8c 7h 8h 9d"), NaturalKind.THREE_STRAIGHTS)
    assert match.describe() == "three straights: front 7s 8h 9d, middle As 2s 3h 4h 5s, back 4d 5c 6d 7h 8c"


def test_d9_capsa_three_straights_compare_back_then_middle_then_front():
    """D-9 (capsa): three flushes / straights compare back, then middle, then front; exact tie pushes."""
    def strength(text):
        return verify_natural(hand(text), NaturalKind.THREE_STRAIGHTS).strength

    base = strength("Ac 2d 3h 5s 6s 7s 8s 9c 5d 6d 7c 8h 9h")          # back 9, middle 9, front 3
    higher_back = strength("Ac 2d 3h 5s 6s 7s 8s 9c 6d 7c 8h 9h Th")   # back T
    higher_middle = strength("Ac 2d 3h 6s 7s 8s 9s Tc 6d 7c 8h 9h Td")  # back T, middle T
    higher_front = strength("2c 3d 4h 5s 6s 7s 8s 9c 5d 6d 7c 8h 9h")  # front 4 high
    assert higher_back > base
    assert higher_middle > higher_back
    assert higher_front > base  # D-3: A-2-3 is the lowest 3-card straight
    assert strength("Ad 2c 3s 5h 6h 7h 8h 9d 5c 6c 7d 8d 9s") == base  # same ranks, other suits


def test_d9_capsa_three_flushes_compare_back_first():
    """D-9 (capsa): a higher back wins even with a weaker middle and front."""
    def strength(text):
        return verify_natural(hand(text), NaturalKind.THREE_FLUSHES).strength

    assert strength("2h 3h 4h 2s 3s 4s 5s 7s 2d 6d Jd Qd Ad") > strength("Jh Qh Kh 8s Js Qs Ks Ts 2d 6d Jd Qd Kd")


# --- the API ------------------------------------------------------------------------------

def test_find_naturals_lists_every_kind_in_order():
    assert kinds("As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks") == ["dragon", "three_flushes", "three_straights"]
    assert kinds("2s 5s 9s Ks 3h 8h Jh 4d 7d Qd 6c Tc Kc") == []


def test_verify_natural_first_kind_and_by_name():
    cards = hand("2h 7h 9h 3s 5s 8s Ts Ks 2d 6d Jd Qd Ad")
    assert verify_natural(cards).kind is NaturalKind.THREE_FLUSHES
    assert verify_natural(cards, "three_flushes").kind is NaturalKind.THREE_FLUSHES
    assert verify_natural(cards, NaturalKind.SIX_PAIRS) is None
    assert verify_natural(hand("2s 5s 9s Ks 3h 8h Jh 4d 7d Qd 6c Tc Kc")) is None


def test_labels():
    assert [k.label for k in NaturalKind] == ["dragon", "six pairs", "three flushes", "three straights"]


@pytest.mark.parametrize("text", ["2s 3s 4s", "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As Ah"])
def test_wrong_card_count_is_refused(text):
    with pytest.raises(ValueError, match="13 cards"):
        find_naturals(parse_cards(text))
    with pytest.raises(ValueError, match="13 cards"):
        verify_natural(parse_cards(text))


def test_duplicate_card_is_refused():
    with pytest.raises(ValueError, match="Ks appears twice"):
        find_naturals(parse_cards("2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks Ks"))


# --- cross-check against the brute force over all 72,072 splits ----------------------------

def _deal_from(rng, pool, n=13):
    return tuple(rng.sample(pool, n))


def _constructed(rng, kind):
    """Cards built from a random natural of `kind` (three straights or three flushes)."""
    while True:
        if kind is NaturalKind.THREE_STRAIGHTS:
            highs = [rng.randint(3, 14), rng.randint(5, 14), rng.randint(5, 14)]
            parts = []
            for size, high in zip((3, 5, 5), highs):
                parts.append([14 if r == 1 else r for r in range(high - size + 1, high + 1)])
            cards = set()
            for ranks in parts:
                suit = rng.choice("shdc") if rng.random() < 0.3 else None
                for r in ranks:
                    cards.add(Card(r, suit or rng.choice("shdc")))
        else:
            suits = rng.sample("shdc", 3)
            if rng.random() < 0.4:
                suits[1] = suits[0] if rng.random() < 0.5 else suits[2]
            cards = set()
            for size, suit in zip((3, 5, 5), suits):
                cards.update(Card(r, suit) for r in rng.sample(range(2, 15), size))
        if len(cards) == 13:
            return tuple(cards)


def _near_miss(rng, cards):
    cards = list(cards)
    cards[rng.randrange(13)] = rng.choice([c for c in DECK if c not in cards])
    return tuple(cards)


def _cross_check_hands():
    rng = random.Random(20240611)
    hands = []
    for _ in range(60):
        hands.append(_deal_from(rng, list(DECK)))
    two_suits = [c for c in DECK if c.suit in "sh"]
    low_ranks = [c for c in DECK if c.rank <= 8 or c.rank == 14]
    for _ in range(40):
        hands.append(_deal_from(rng, two_suits))
        hands.append(_deal_from(rng, low_ranks))
    for kind in (NaturalKind.THREE_STRAIGHTS, NaturalKind.THREE_FLUSHES):
        for _ in range(50):
            made = _constructed(rng, kind)
            hands.append(made)
            hands.append(_near_miss(rng, made))
    return hands


@pytest.mark.slow
def test_random_hands_match_a_brute_force_over_every_split():
    """Existence and best split (back, middle, front) agree with trying all 72,072 splits."""
    hands = _cross_check_hands()
    positives = Counter()
    for cards in hands:
        found = {m.kind: m for m in find_naturals(cards)}
        counts = Counter(c.rank for c in cards)
        assert (NaturalKind.DRAGON in found) == (sorted(counts) == list(range(2, 15)))
        pairs = sum(1 for r in counts for _ in range(counts[r] // 2))
        assert (NaturalKind.SIX_PAIRS in found) == (pairs >= 6)
        for kind in (NaturalKind.THREE_FLUSHES, NaturalKind.THREE_STRAIGHTS):
            expected = brute_force(cards, kind)
            label = f"{kind.label} for {' '.join(map(str, cards))}"
            if expected is None:
                assert kind not in found, label
                continue
            assert kind in found, label
            match = found[kind]
            assert_valid_split(cards, match)
            assert split_key(kind, match.split) == expected, label
            assert match.strength == expected, label
            assert verify_natural(cards, kind) == match
            positives[kind] += 1
    assert len(hands) == 340
    # the generator must actually exercise both kinds, positive and negative
    assert positives[NaturalKind.THREE_FLUSHES] >= 40 and positives[NaturalKind.THREE_STRAIGHTS] >= 40
