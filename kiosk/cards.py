"""Playing cards: a frozen `Card`, parse and format helpers, and the decks.

>>> parse_card("As")
Card('As')
>>> parse_card("10d") == parse_card("Td")
True
>>> str(parse_card("Jk"))
'Jk'
>>> [str(c) for c in parse_cards("Kh 10c 2s")]
['Kh', 'Tc', '2s']
>>> len(deck(52)), len(deck(53))
(52, 53)
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass
from types import MappingProxyType
from typing import Iterable

RANKS = "23456789TJQKA"
SUITS = "shdc"
SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
SUIT_SYMBOLS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}
RANK_NAMES = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
    9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace",
}
RANK_PLURALS = {r: (n + "es" if n == "six" else n + "s") for r, n in RANK_NAMES.items()}
JOKER_TEXT = "Jk"
# A Chinese Poker hand's three rows, front to back, and how many cards each holds (RULES §3).
ROW_SIZES = MappingProxyType({"front": 3, "middle": 5, "back": 5})
ROWS = tuple(ROW_SIZES)


class CardError(ValueError):
    """A card written in a way that is not a card."""


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One card. `rank` is 2..14 (ace high); the joker has rank 0 and suit ''."""

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if self.rank == 0 and self.suit == "":
            return
        if not 2 <= self.rank <= 14 or self.suit not in SUITS:
            raise CardError(f"not a card: rank {self.rank!r}, suit {self.suit!r}")

    @property
    def is_joker(self) -> bool:
        return self.rank == 0

    @property
    def rank_char(self) -> str:
        return "" if self.is_joker else RANKS[self.rank - 2]

    @property
    def is_red(self) -> bool:
        return self.suit in "hd" and not self.is_joker

    def __str__(self) -> str:
        return JOKER_TEXT if self.is_joker else self.rank_char + self.suit

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


JOKER = Card(0, "")


def parse_card(text: str) -> Card:
    """Parse one card: rank then suit (`As`, `Td`, `10d`), or the joker `Jk`.

    >>> parse_card("qh")
    Card('Qh')
    >>> parse_card("1s")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ...
    kiosk.cards.CardError: '1s' is not a card (write rank then suit, e.g. As, Td, 10d, or Jk)
    """
    if not isinstance(text, str):
        raise CardError(f"{reprlib.repr(text)} is not a card (expected text such as 'As')")
    raw = text.strip()
    if raw.lower() == JOKER_TEXT.lower():
        return JOKER
    body = raw[:-1].upper()
    suit = raw[-1:].lower()
    if body == "10":
        body = "T"
    if len(body) == 1 and body in RANKS and suit in SUITS:
        return Card(RANKS.index(body) + 2, suit)
    raise CardError(f"{reprlib.repr(text)} is not a card (write rank then suit, e.g. As, Td, 10d, or Jk)")


def parse_card_name(text: str) -> Card:
    """`parse_card`, or the word `joker` as people write it in a label or a file name.

    >>> parse_card_name("Joker"), parse_card_name("10h")
    (Card('Jk'), Card('Th'))
    """
    if isinstance(text, str) and text.strip().lower() == "joker":
        return JOKER
    return parse_card(text)


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse cards from a space/comma separated string or an iterable of strings."""
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return tuple(parse_card(item) for item in items)


def format_cards(cards: Iterable[Card]) -> str:
    """Format cards as text.

    >>> format_cards(parse_cards("As Kd"))
    'As Kd'
    """
    return " ".join(str(c) for c in cards)


def deck(size: int = 52) -> tuple[Card, ...]:
    """The 52-card deck, or 53 with the Pai Gow joker."""
    if size not in (52, 53):
        raise ValueError("a deck has 52 cards, or 53 with the joker")
    cards = tuple(Card(r, s) for s in SUITS for r in range(2, 15))
    return cards + ((JOKER,) if size == 53 else ())


# The 53 detector classes, in a fixed order shared by datasets, training and reading.
CLASS_NAMES: tuple[str, ...] = tuple(str(c) for c in deck(53))
