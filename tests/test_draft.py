"""The stabiliser's steps over a draft hand (kiosk.table.draft), each on a few positions read by hand.

Positions are real slots fed readings frame by frame; the rows are given, not laid out, so each
test pins one step's rule.
"""

from __future__ import annotations

from kiosk.cards import Card, deck, parse_card
from kiosk.table.config import KioskConfig
from kiosk.table.draft import (
    ELIMINATION_NOTE, Draft, Evidence, by_elimination, card_reads, choose_by_deck, integrity_problems, is_ghost,
    kept_for_short_seats,
)
from kiosk.table.slot import Slot
from kiosk.table.snapshot import PlacedCard

SETTINGS = KioskConfig().stabilizer  # need 3 votes, line 0.8 (0.7 with the whole deck), agreement 0.7


def position(sid: int, readings: list[tuple[str, float] | tuple[str, float, str, float]], seat: int = 1) -> Slot:
    """A slot read once a frame: (card, confidence) or (card, confidence, runner-up, its confidence)."""
    x = 40.0 * sid
    sl = None
    for frame, (card, conf, *alt) in enumerate(readings):
        alternatives = ((parse_card(alt[0]), alt[1]),) if alt else ()
        placed = PlacedCard(parse_card(card), conf, (x, 0.0, x + 10, 14.0), seat, "back", sid, 10.0, x, (x, 10.0),
                            10.0, alternatives)
        sl = sl or Slot(sid, placed, 1, 0.0, SETTINGS.window_frames)
        sl.add(placed, frame, float(frame), frame + 1)
    return sl


def draft(*slots: Slot, corrected: dict[int, str] | None = None) -> tuple[Draft, Evidence]:
    ev = Evidence.of(SETTINGS, {sl.id: sl.tally() for sl in slots}, SETTINGS.min_votes, whole_deck=False)
    rows = {sl.id: ("back", k) for k, sl in enumerate(slots)}
    fixed = {sid: parse_card(c) for sid, c in (corrected or {}).items()}
    return Draft(list(slots), rows, {}, fixed), ev


def test_the_surer_position_takes_a_card_both_read_and_the_other_its_next_reading():
    sure = position(1, [("Ks", 0.95)] * 6)
    unsure = position(2, [("Ks", 0.6, "Kc", 0.3)] * 6)
    d, ev = draft(unsure, sure)
    choose_by_deck(d, ev)
    assert [sl.id for sl in d.order] == [1, 2]
    assert d.choice == {1: Card(13, "s"), 2: Card(13, "c")}
    assert d.notes[2] == "read as Ks, which is at {slot1}" and not d.duplicates
    reads = card_reads(d, ev)
    assert reads[2].note == "read as Ks, which is at seat 1 back 2"


def test_two_positions_reading_one_card_strongly_are_a_duplicate_never_settled_by_the_deck():
    d, ev = draft(position(1, [("Ks", 0.95)] * 6), position(2, [("Ks", 0.9)] * 6))
    choose_by_deck(d, ev)
    assert d.duplicates == [(Card(13, "s"), 1, 2)] and d.duplicate_slots == {1, 2}
    assert d.notes == {1: "duplicate card Ks", 2: "duplicate card Ks"}
    reads = card_reads(d, ev)
    assert not reads[1].confident and not reads[2].confident
    assert integrity_problems(d, reads) == ["duplicate card: Ks at seat 1 back 1 and seat 1 back 2"]


def test_a_floor_correction_chooses_first_and_is_confident():
    d, ev = draft(position(1, [("Ks", 0.6, "Kc", 0.35)] * 6), position(2, [("Qs", 0.95)] * 6), corrected={2: "Ks"})
    choose_by_deck(d, ev)
    assert d.order[0].id == 2 and d.owner[Card(13, "s")] == 2 and d.choice[1] == Card(13, "c")
    reads = card_reads(d, ev)
    assert reads[2].confident and reads[2].confidence == 1.0 and reads[2].note == "corrected by floor"
    assert not reads[1].confident and reads[1].note == "read as Ks, which is at seat 1 back 2"


def test_a_correction_to_a_card_another_position_reads_strongly_is_a_duplicate():
    d, ev = draft(position(1, [("Ks", 0.95)] * 6), position(2, [("Qs", 0.95)] * 6), corrected={2: "Ks"})
    choose_by_deck(d, ev)
    assert d.duplicates == [(Card(13, "s"), 2, 1)]


def test_a_faint_reading_is_no_choice_of_a_position():
    # Kc is the runner-up in one frame of six at 0.2: 0.2 / 6 is below the faint line (FAINT = 0.05)
    d, ev = draft(position(1, [("Ks", 0.95)] * 6), position(2, [("Ks", 0.5, "Kc", 0.2)] + [("Ks", 0.5)] * 5))
    choose_by_deck(d, ev)
    assert d.choice[2] is None


def test_a_weak_reading_of_a_card_held_elsewhere_is_a_ghost_unless_its_seat_is_short():
    seat_2 = [position(10 + k, [(str(c), 0.95)] * 6, seat=2) for k, c in enumerate(deck(52)[:12])]
    glint = position(1, [(str(deck(52)[0]), 0.45)] * 6, seat=2)  # a second, weak reading of seat 2's first card
    d, ev = draft(*seat_2, glint)
    choose_by_deck(d, ev)
    assert is_ghost(glint, d, ev) and not any(is_ghost(sl, d, ev) for sl in seat_2)
    # seat 2 holds 12 cards without it, 12 >= open_min_cards: a card weakly read, kept to fill the seat...
    assert d.choice[1] is None and kept_for_short_seats({1}, d, ev, dead=(), open_min_cards=10) == {1}
    # ... but not at a dead seat, nor at a seat too bare to be open
    assert kept_for_short_seats({1}, d, ev, dead={2}, open_min_cards=10) == set()
    assert kept_for_short_seats({1}, d, ev, dead=(), open_min_cards=13) == set()


def test_a_sure_reading_is_never_a_ghost():
    d, ev = draft(position(1, [("Ks", 0.95)] * 6), position(2, [("Ks", 0.9)] * 6))
    choose_by_deck(d, ev)
    assert not is_ghost(d.present[1], d, ev)


def test_the_whole_deck_down_names_its_one_unsure_position_by_elimination():
    cards = deck(52)
    sure = [position(k, [(str(c), 0.95)] * 6) for k, c in enumerate(cards[:51])]
    traced = position(51, [("As", 0.5, str(cards[51]), 0.3)] * 6)  # the last card, a trace runner-up
    d, ev = draft(*sure, traced)
    choose_by_deck(d, ev)
    assert d.choice[51] == cards[51] and not ev.strong(traced, cards[51])  # As is held by a sure position
    by_elimination(d, ev)
    assert d.elimination == {51: cards[51]} and d.choice[51] == cards[51] and d.notes[51] == ELIMINATION_NOTE
    assert card_reads(d, ev)[51].confident


def test_no_elimination_for_a_card_the_position_never_read():
    cards = deck(52)
    sure = [position(k, [(str(c), 0.95)] * 6) for k, c in enumerate(cards[:51])]
    d, ev = draft(*sure, position(51, [("As", 0.5)] * 6))
    choose_by_deck(d, ev)
    by_elimination(d, ev)
    assert d.elimination == {} and d.choice[51] is None


def test_more_positions_than_a_deck_is_an_integrity_problem():
    d, ev = draft(*(position(k, [(str(c), 0.95)] * 4) for k, c in enumerate(deck(52) + deck(52)[:1])))
    choose_by_deck(d, ev)
    problems = integrity_problems(d, card_reads(d, ev))
    assert problems[-1] == "wrong card count: 53 cards on the table (a deck has 52)"
