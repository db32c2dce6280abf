"""Settlement (RULES.md §8, D-10): order clockwise from the button, caps, shortfalls, money."""

from kiosk.rules.settlement import pair_order, payment_order, settle


def flows(transfers):
    return [(t.payer, t.payee, t.amount) for t in transfers]


def test_D10_worked_example_order_four_seats_button_on_4():
    order = payment_order([1, 2, 3, 4], button=4)
    assert order == (1, 2, 3, 4)
    assert pair_order(order) == ((1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4))


def test_D10_order_starts_after_the_button_and_the_button_seat_pays_last():
    assert payment_order([1, 2, 3, 4], button=2) == (3, 4, 1, 2)
    assert pair_order((3, 4, 1, 2))[:3] == ((3, 4), (3, 1), (3, 2))


def test_D10_button_on_a_dead_seat_order_skips_it():
    # seat 3 dead (not in the active list), button on it: seat 4 pays first
    assert payment_order([1, 2, 4], button=3) == (4, 1, 2)


def test_D10_worked_example_with_caps():
    """RULES §8: seats 1-3, button 3, stake 10, stacks 30/50/100."""
    s = settle(
        {(1, 2): 6, (1, 3): 1, (3, 2): 4},
        payment_order([1, 2, 3], 3),
        10,
        stacks={1: 30, 2: 50, 3: 100},
    )
    assert s.capped
    assert flows(s.transfers) == [(2, 1, 30), (2, 3, 20)]
    # (1,3): nothing paid, so not listed as a transfer; the whole 10 is a shortfall
    assert flows(s.shortfalls) == [(2, 1, 30), (3, 1, 10), (2, 3, 20)]


def test_D10_transfers_follow_pair_order_and_are_paid_in_full_without_stacks():
    s = settle({(1, 2): -3, (1, 3): 2, (2, 3): 0}, (1, 2, 3), 5)
    assert flows(s.transfers) == [(1, 2, 15), (3, 1, 10)]
    assert s.shortfalls == () and not s.capped


def test_caps_apply_only_when_every_seat_has_a_stack():
    s = settle({(1, 2): 10}, (1, 2), 10, stacks={1: 5, 2: None})
    assert not s.capped
    assert flows(s.transfers) == [(2, 1, 100)]


def test_seed_002_per_pair_stakes_a_and_b_play_for_100_others_for_10():
    s = settle(
        {(1, 2): 2, (1, 3): 1, (2, 3): 1},
        (1, 2, 3),
        10,
        pair_stakes={frozenset((1, 2)): 100},
    )
    assert flows(s.transfers) == [(2, 1, 200), (3, 1, 10), (3, 2, 10)]


def test_a_payer_pays_with_chips_received_earlier_in_the_order():
    s = settle({(1, 2): -4, (2, 3): -5}, (1, 2, 3), 10, stacks={1: 100, 2: 10, 3: 100})
    # seat 2 can win only its stack of 10: 30 of the 40 is a shortfall; then it holds 20
    assert flows(s.transfers) == [(1, 2, 10), (2, 3, 20)]
    assert flows(s.shortfalls) == [(1, 2, 30), (2, 3, 30)]


def test_money_is_int_with_int_inputs_and_exact_cents_otherwise():
    s = settle({(1, 2): 3}, (1, 2), 5)
    assert s.transfers[0].amount == 15 and isinstance(s.transfers[0].amount, int)
    s = settle({(1, 2): 3, (1, 3): 7}, (1, 2, 3), 0.1)
    assert [t.amount for t in s.transfers] == [0.3, 0.7]  # not 0.30000000000000004
    s = settle({(1, 2): 3}, (1, 2), 0.125)  # 0.375 rounds half up to the cent, once
    assert s.transfers[0].amount == 0.38


def test_fractional_stacks_conserve_to_the_cent():
    s = settle({(1, 2): 7, (3, 2): 5}, (1, 2, 3), 2.5, stacks={1: 100, 2: 20.05, 3: 100})
    assert flows(s.transfers) == [(2, 1, 17.5), (2, 3, 2.55)]
    assert flows(s.shortfalls) == [(2, 3, 9.95)]
