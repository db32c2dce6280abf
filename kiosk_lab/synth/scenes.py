"""Random scenes for training data: showdowns, Pai Gow hands, loose piles and single cards."""

from __future__ import annotations

import numpy as np

from kiosk.cards import CLASS_NAMES
from kiosk_lab.synth.art import Deck, load_deck
from kiosk_lab.synth.camera import CameraParams
from kiosk_lab.synth.table import (
    Geometry,
    Placement,
    RenderedScene,
    SeatLayout,
    TableLayout,
    layout_placements,
    render_placements,
    seats_json,
)

KINDS = ("showdown", "paigow", "pile", "single")
DEFAULT_MIX = {"showdown": 0.55, "paigow": 0.1, "pile": 0.2, "single": 0.15}


def _shuffled(rng: np.random.Generator, deck: Deck, joker_p: float) -> list[str]:
    cards = [c for c in CLASS_NAMES[:52] if deck.has(c)]
    rng.shuffle(cards)
    if deck.has("Jk") and rng.random() < joker_p:
        cards[int(rng.integers(len(cards)))] = "Jk"
    return cards


def random_showdown(rng: np.random.Generator, deck: Deck, size=(1920, 1080)) -> TableLayout:
    cards = _shuffled(rng, deck, joker_p=0.25)
    seats = []
    for s in range(4):
        hand = tuple(cards[13 * s: 13 * s + 13])
        roll = rng.random()
        if roll < 0.07:
            seats.append(SeatLayout(s + 1, dead=True))
        elif roll < 0.10:
            seats.append(SeatLayout(s + 1, pile=hand, face_down=True))
        elif roll < 0.16:
            seats.append(SeatLayout(s + 1, pile=hand))
        elif roll < 0.22:
            seats.append(SeatLayout(s + 1, front=hand[:3], middle=hand[3:8], back=hand[8:], face_down=True))
        elif roll < 0.30:
            continue  # nobody there, nothing on the table
        else:
            seats.append(SeatLayout(s + 1, front=hand[:3], middle=hand[3:8], back=hand[8:],
                                    stack=int(rng.integers(3, 14)) if rng.random() < 0.03 else 0))
    if not seats:
        seats.append(SeatLayout(1, front=tuple(cards[:3]), middle=tuple(cards[3:8]), back=tuple(cards[8:13])))
    return TableLayout(tuple(seats), size)


def random_paigow(rng: np.random.Generator, deck: Deck, size=(1920, 1080)) -> TableLayout:
    cards = [c for c in CLASS_NAMES if deck.has(c)]
    rng.shuffle(cards)
    seats = []
    for s in range(4):
        if rng.random() < 0.15:
            continue
        hand = tuple(cards[7 * s: 7 * s + 7])
        seats.append(SeatLayout(s + 1, front=hand[:2], back=hand[2:], face_down=rng.random() < 0.05))
    if not seats:
        seats.append(SeatLayout(1, front=tuple(cards[:2]), back=tuple(cards[2:7])))
    return TableLayout(tuple(seats), size)


def random_pile(rng: np.random.Generator, deck: Deck, size, card_height: float) -> list[Placement]:
    cards = _shuffled(rng, deck, joker_p=0.5)[: int(rng.integers(4, 30))]
    w, h = size
    clusters = [(rng.uniform(0.15, 0.85) * w, rng.uniform(0.15, 0.85) * h) for _ in range(int(rng.integers(1, 4)))]
    spread = rng.uniform(0.5, 2.5) * card_height
    out = []
    for k, card in enumerate(cards):
        cx, cy = clusters[k % len(clusters)]
        out.append(Placement(card, (cx + rng.normal(0, spread), cy + rng.normal(0, spread)), rng.uniform(0, 360),
                             card_height * rng.uniform(0.97, 1.03), bool(rng.random() < 0.85), row="pile",
                             position=k))
    return out


def random_single(rng: np.random.Generator, deck: Deck, size, card_height: float) -> list[Placement]:
    n = int(rng.integers(1, 9))
    cards = _shuffled(rng, deck, joker_p=0.5)[:n]
    w, h = size
    height = card_height * rng.uniform(0.8, 2.4)
    out = []
    for card in cards:
        angle = float(rng.choice([0, 90, 180, 270]) + rng.normal(0, 8)) if rng.random() < 0.6 else rng.uniform(0, 360)
        out.append(Placement(card, (rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h), angle, height,
                             bool(rng.random() < 0.93)))
    return out


def render_random(kind: str, deck_id: str, seed: int, size=(1920, 1080), camera: dict | None = None) -> RenderedScene:
    """One random training scene of `kind` with deck `deck_id` (the camera mix unless given)."""
    rng = np.random.default_rng(seed)
    deck = load_deck(deck_id)
    params = CameraParams.from_dict(camera if camera is not None else {"preset": "random"}, rng)
    aspect = deck.size[0] / deck.size[1]
    jitter = params.jitter or 0.3
    geo = Geometry.random(size, rng, jitter, params.card_height)
    if kind in ("showdown", "paigow"):
        layout = random_showdown(rng, deck, size) if kind == "showdown" else random_paigow(rng, deck, size)
        placements = layout_placements(layout, geo, aspect, rng, reverse_fan=0.1)
        return render_placements(placements, deck, rng, params, size, kind=kind, seats=seats_json(layout),
                                 card_height=geo.card_height)
    if kind == "pile":
        placements = random_pile(rng, deck, size, geo.card_height)
    elif kind == "single":
        placements = random_single(rng, deck, size, geo.card_height)
    else:
        raise ValueError(f"unknown scene kind {kind!r} (use {', '.join(KINDS)})")
    return render_placements(placements, deck, rng, params, size, kind=kind, card_height=geo.card_height)
