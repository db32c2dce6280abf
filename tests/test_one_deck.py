"""A single picture of one deck (kiosk.vision.one_deck): each card at most once, reported from the one-deck line
in a picture of a table."""

from __future__ import annotations

import json
from pathlib import Path

from kiosk.cards import deck, parse_card
from kiosk.vision.detections import CardDetection
from kiosk.vision.one_deck import each_card_once, report_floor


def reading(card: str, confidence: float, x: float, alternatives=()) -> CardDetection:
    return CardDetection(parse_card(card), confidence, (x, 0.0, x + 60.0, 90.0), ((x, 0.0, x + 16.0, 30.0),),
                         tuple((parse_card(c), p) for c, p in alternatives))


def table_of(n_sure: int) -> list[CardDetection]:
    """Sure readings of the first `n_sure` cards of the deck, one weak reading of 5h (runner-up 6h),
    and the deck's 5h and 6h kept out of the sure ones."""
    cards = [str(c) for c in deck(52) if str(c) not in ("5h", "6h")][:n_sure]
    sure = [reading(c, 0.95, 100.0 * i) for i, c in enumerate(cards)]
    return sure + [reading("5h", 0.3, -500.0, [("6h", 0.1)])]


def test_a_picture_of_a_table_keeps_its_weak_readings_unreported():
    """A weak reading no other reading contests stays under the report line: no rule names the cards a
    picture of the whole deck has not read (that rule was measured paying nothing on the real photos)."""
    whole = table_of(48)  # 48 sure + 5h weak: 4 cards of the 52 unread by sure readings
    read = each_card_once(whole, report_floor(whole, 0.5, 0.6))
    assert len(read) == 48 and all(c.confidence >= 0.5 for c in read)


def test_a_weak_reading_of_a_card_read_surely_elsewhere_is_not_named_twice():
    whole = table_of(48)
    taken = whole[:-1] + [reading(str(whole[0].card), 0.3, -500.0, [("6h", 0.1)])]
    read = each_card_once(taken, 0.5)
    assert [str(c.card) for c in read].count(str(whole[0].card)) == 1
    assert all(c.confidence >= 0.5 for c in read)  # it took its runner-up (6h, 0.1), under the line


def test_a_doubtful_reading_offers_no_alternative_the_deck_placed_elsewhere():
    """kiosk detect prints a doubtful reading with its runner-up ("Qh 0.67 (or 8h)"); an 8h read
    surely elsewhere is no alternative for the dealer to consider."""
    read = each_card_once([reading("8h", 0.99, 0.0), reading("Qh", 0.67, 200.0, [("8h", 0.2), ("Qc", 0.1)])], 0.5)
    assert [(str(c.card), [str(k) for k, _ in c.alternatives]) for c in read] == [("8h", []), ("Qh", ["Qc"])]


def test_a_sure_reading_keeps_its_card_against_a_weak_rival_with_the_shipped_weight():
    """docs/detector.md, `one_deck.unread`: leaving the weak rival (on a pictured back, say) unread must
    weigh more than the sure reading's faint runner-up, or the card is read by nobody."""
    shipped = json.loads((Path(__file__).resolve().parents[1] / "models" / "reader.json").read_text())
    sure, rival = reading("4c", 0.99, 0.0, [("4s", 0.01)]), reading("4c", 0.41, 300.0)
    read = each_card_once([sure, rival], 0.5, unread=shipped["stages"]["one_deck"]["unread"])
    assert [(str(c.card), c.confidence) for c in read] == [("4c", 0.99)]
    assert each_card_once([sure, rival], 0.5) == ()  # the table's weight: both fall under the line
