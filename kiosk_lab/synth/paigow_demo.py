"""The Pai Gow demo recording: three hands at one table with the joker, seen from above.

Each hand: empty table, the players' spots opened one after another (high row of 5, low row
of 2, on the default spot geometry of `kiosk/paigow/spots.py`), the banker's last, held
still, then swept. Hand 1: a player's low hand above its high (a foul), a copy; hand 2: the
dealer sets the banker's hand off the house way (the kiosk flags it and scores the house
way); hand 3: the joker in play and a player winning both hands (commission). The ground
truth (`paigow.json`) holds each hand's `kiosk score` table object and the frame range of
every phase; its `config` is the demo table's `paigow` settings (the bets).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from kiosk.cards import parse_cards
from kiosk.paigow.houseway import set_by_house_way
from kiosk.paigow.spots import LOW_BAND, default_spots
from kiosk_lab.synth.art import load_deck
from kiosk_lab.synth.camera import CameraParams
from kiosk_lab.synth.demo import DEMO_CAMERA, _writer
from kiosk_lab.synth.table import Placement, render_placements

DECK = "kenney"  # a design whose joker prints the word JOKER: the shipped reader reads it `Jk`
BETS = {1: 25, 2: 10, 3: 50, 4: 10, 5: 20, 6: 15, 7: 30}
SECONDS = {"empty": 1.0, "open": 1.2, "hold": 6.0, "sweep": 1.2}
# Each hand: banker's cards (7) and each player's (7), as dealt; how each is laid out.
HANDS = [
    {"note": "seat 2 fouled (its low above its high); seat 4 copies the banker's low",
     "banker": "Kc Kd 9h 5s 3d Qs Jh",
     "players": {1: "As Ah 4c 6d 7h Qh Td", 2: "2s 2h 4d 6c 7c Ac Ad", 4: "Ks Kh 9c 5c 3h Qd Jc",
                 6: "8s 8h 8d 6h 7s Ts Tc"},
     "foul": {2: ("2s 2h 4d 6c 7c", "Ac Ad")}},
    {"note": "the dealer set the banker off the house way: flagged, scored as the house way sets it",
     "banker": "Ac Kd Qd 9s 6h 4c 2s", "banker_laid": ("Ac Qd 9s 6h 4c", "Kd 2s"),
     "players": {1: "Jh Jd 5c 5d 9c 3h 2d", 3: "Ah Kh 8s 8c 7d 4s 3s", 5: "Qs Qh Tc 9d 6d 6c 2h"}},
    {"note": "the joker: seat 7 makes a straight with it and wins both hands (5% commission)",
     "banker": "Td Tc 8h 7c 4d 3c 2c",
     "players": {7: "Jk 9h Jc Qc Kd 5h 5s", 2: "As Ad Kc Qh 6s 4h 3d", 4: "9c 9d 7s 7h Ks Js 2d"}},
]


def _split(cards: str) -> tuple[list[str], list[str]]:
    s = set_by_house_way(parse_cards(cards))
    return [str(c) for c in s.high], [str(c) for c in s.low]


def demo_tables() -> list[dict]:
    """Each hand's layout {spot: (high, low)} and its `kiosk score` table object."""
    out = []
    for hand in HANDS:
        banker = tuple(map(list, (p.split() for p in hand["banker_laid"]))) if "banker_laid" in hand \
            else _split(hand["banker"])
        spots = {0: banker}
        for seat, cards in hand["players"].items():
            laid = hand.get("foul", {}).get(seat)
            spots[seat] = tuple(p.split() for p in laid) if laid else _split(cards)
        table = {"game": "paigow", "house_way": "foxwoods", "commission": 0.05,
                 "banker": {"seat": 0, "high": banker[0], "low": banker[1]},
                 "seats": [{"seat": s, "high": spots[s][0], "low": spots[s][1], "bet": BETS[s]}
                           for s in sorted(hand["players"])]}
        out.append({"note": hand["note"], "spots": spots, "table": table})
    return out


def spot_placements(spots: dict, size: tuple[int, int], card_height: float, aspect: float,
                    rng: np.random.Generator) -> list[Placement]:
    """Cards upright, each row fanned left over right (every index shows) in its band of the spot."""
    w, h = size
    zones = {z.spot: z for z in default_spots()}
    out = []
    for spot, (high, low) in sorted(spots.items()):
        x0, y0, x1, y1 = zones[spot].box
        cut = y0 + LOW_BAND * (y1 - y0) if zones[spot].low_side == "top" else y1 - LOW_BAND * (y1 - y0)
        upper, lower = ((low, "low"), (high, "high")) if zones[spot].low_side == "top" else \
            ((high, "high"), (low, "low"))
        for (cards, row), (top, bottom) in ((upper, (y0, cut)), (lower, (cut, y1))):
            step = card_height * aspect * 0.42
            for k, card in enumerate(cards):
                cx = (x0 + x1) / 2 * w + (k - (len(cards) - 1) / 2) * step + rng.normal(0, 1.5)
                cy = (top + bottom) / 2 * h + rng.normal(0, 1.5)
                out.append(Placement(card, (cx, cy), float(rng.normal(0, 1.0)) % 360, card_height, True,
                                     spot, row, k))
    return out


def render_spots(spots: dict, seed: int = 11, size=(1920, 1080), deck: str = DECK):
    """One frame of a Pai Gow table: {spot: (high, low)} laid out on the default geometry."""
    d = load_deck(deck)
    rng = np.random.default_rng([seed, len(spots)])
    params = CameraParams.from_dict(DEMO_CAMERA, rng)
    height = round(0.118 * size[1])
    placements = spot_placements(spots, size, height, d.size[0] / d.size[1], np.random.default_rng([seed, 1]))
    return render_placements(placements, d, rng, params, size, kind="paigow", card_height=height)


def demo_timeline(tables: list[dict], fps: float) -> list[tuple[int, str, tuple[int, ...]]]:
    """Per frame: (hand index, phase, spots open)."""
    frames = []

    def n(phase):
        return max(1, round(SECONDS[phase] * fps))

    for hi, t in enumerate(tables):
        frames += [(hi, "empty", ())] * n("empty")
        order = [s for s in sorted(t["spots"]) if s] + [0]
        for k in range(1, len(order) + 1):
            frames += [(hi, "open", tuple(order[:k]))] * n("open")
        frames += [(hi, "hold", tuple(order))] * n("hold")
        frames += [(hi, "sweep", ())] * n("sweep")
    return frames


def render_paigow_demo(out_dir: Path, fps: float = 5.0, size=(1920, 1080), seed: int = 11) -> dict:
    out_dir.mkdir(parents=True, exist_ok=True)
    tables = demo_tables()
    deck = load_deck(DECK)
    aspect = deck.size[0] / deck.size[1]
    card_height = round(0.118 * size[1])
    video = out_dir / "paigow.mp4"
    writer = _writer(video, fps, size)
    phases: list[dict] = [{} for _ in tables]
    hold_at: dict[int, int] = {}
    cache: dict = {}
    try:
        for index, (hi, phase, open_spots) in enumerate(demo_timeline(tables, fps)):
            key = (hi, open_spots)
            if key not in cache:
                cache.clear()
                spots = {s: tables[hi]["spots"][s] for s in open_spots}
                rng = np.random.default_rng([seed, hi])
                params = CameraParams.from_dict(DEMO_CAMERA, rng)
                placements = spot_placements(spots, size, card_height, aspect, np.random.default_rng([seed, hi, 1]))
                cache[key] = render_placements(placements, deck, rng, params, size, kind="paigow-demo",
                                               card_height=card_height).image
            writer.write(cache[key])
            span = phases[hi].setdefault(phase, [index, index])
            span[1] = index
            if phase == "hold":
                hold_at.setdefault(hi, index)
    finally:
        writer.release()
    truth = {
        "video": video.name, "fps": fps, "size": list(size), "deck": DECK, "seed": seed,
        "frames": sum(1 for _ in demo_timeline(tables, fps)),
        "frame_ranges": "first and last frame of each phase, inclusive",
        "config": {"game": {"name": "paigow"}, "paigow": {"bets": {str(k): v for k, v in BETS.items()}}},
        "hands": [{"hand": i + 1, "note": t["note"], "table": t["table"], "phases": phases[i]}
                  for i, t in enumerate(tables)],
    }
    (out_dir / "paigow.json").write_text(json.dumps(truth, indent=1) + "\n")
    return {"video": str(video), "frames": truth["frames"], "bytes": video.stat().st_size,
            "hands": [t["note"] for t in tables]}
