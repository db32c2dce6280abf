"""The built-in demo recording: three Chinese Poker hands at one table, seen from above.

Each hand: empty table, the deal (face-down stacks grow at the four seats), the players set
their rows face down one seat after another, the hands are opened seat by seat, held still,
then swept. Hand 1 has a fouled seat, hand 2 a declared natural laid as a face-down pile (top
card up) and then spread by the dealer, hand 3 a dead seat. The ground truth (`table.json`)
holds each hand's showdown object in `kiosk score` input format and the frame range of every
phase (first and last frame, inclusive).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import cv2
import numpy as np

from kiosk.cards import CLASS_NAMES, parse_cards
from kiosk.rules.ranking import rank_hand
from kiosk_lab.synth.table import SeatLayout, TableLayout, render_table

DEMO_CAMERA = {"lighting": 0.18, "noise": 1.5, "blur": 0.5, "felt_colour": (38, 105, 32), "jitter": 0.3}
# Every seat fans left over right, so each card's index shows (as players lay a readable hand).
DEMO_RENDER = {"camera": DEMO_CAMERA, "kind": "demo", "reverse_fan": 0.0}
SECONDS = {"empty": 1.0, "deal": 2.6, "set": 2.4, "down": 1.0, "open": 4.0, "hold": 8.0, "sweep": 1.6}


def _rank(cards: list[str]):
    return rank_hand(parse_cards(cards))


def set_rows(cards: list[str]) -> tuple[list[str], list[str], list[str]]:
    """A legal set: the best five in the back, the best five of the rest in the middle."""
    back = max(itertools.combinations(cards, 5), key=_rank)
    rest = [c for c in cards if c not in back]
    middle = max(itertools.combinations(rest, 5), key=_rank)
    front = [c for c in rest if c not in middle]
    return front, list(middle), list(back)


def fouled_rows(cards: list[str]) -> tuple[list[str], list[str], list[str]]:
    """A set whose middle beats its back (a foul): the two five-card rows swapped."""
    front, middle, back = set_rows(cards)
    if not _rank(back) > _rank(middle):
        raise ValueError("cannot foul this hand by swapping rows")
    return front, back, middle


def _deal(seed: int) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    cards = list(CLASS_NAMES[:52])
    rng.shuffle(cards)
    return [cards[13 * k: 13 * k + 13] for k in range(4)]


def demo_hands(seed: int = 7) -> list[dict]:
    """The three hands: rows per seat plus the `kiosk score` showdown object."""
    hands = []
    # The button of each hand is where `kiosk run` puts it when no one moves it (config game.button unset:
    # the highest active seat), so the ground truth's payments are the ones the kiosk shows on the demo.
    # hand 1: button 4, seat 2 fouled
    deal = _deal(seed)
    rows = {s + 1: set_rows(deal[s]) for s in range(4)}
    rows[2] = fouled_rows(deal[1])
    hands.append({"button": 4, "rows": rows, "natural": None, "dead": None,
                  "note": "seat 2 fouled: its middle beats its back"})
    # hand 2: button 4, seat 3 declares six pairs (laid as a pile, then spread by the dealer)
    natural = ["2c", "2d", "5h", "5s", "7c", "7h", "9d", "9s", "Jc", "Jh", "Kd", "Ks", "As"]
    rest = [c for c in CLASS_NAMES[:52] if c not in natural]
    np.random.default_rng(seed + 1).shuffle(rest)
    others = [rest[13 * k: 13 * k + 13] for k in range(3)]
    rows = {1: set_rows(others[0]), 2: set_rows(others[1]), 4: set_rows(others[2])}
    hands.append({"button": 4, "rows": rows, "natural": (3, natural), "dead": None,
                  "note": "seat 3 declared a natural (six pairs): face-down pile with the top card up, then spread"})
    # hand 3: button 3 (seat 4 is dead), seat 4 dead (its 13 cards stay in a face-down pile)
    deal = _deal(seed + 2)
    rows = {s + 1: set_rows(deal[s]) for s in range(3)}
    hands.append({"button": 3, "rows": rows, "natural": None, "dead": (4, deal[3]),
                  "note": "seat 4 is dead: dealt, never played"})
    for hand in hands:
        seats = []
        for s in range(1, 5):
            if hand["dead"] and hand["dead"][0] == s:
                seats.append({"seat": s, "dead": True})
            elif hand["natural"] and hand["natural"][0] == s:
                seats.append({"seat": s, "declared_natural": True, "cards": list(hand["natural"][1])})
            else:
                f, m, b = hand["rows"][s]
                seats.append({"seat": s, "front": list(f), "middle": list(m), "back": list(b)})
        hand["showdown"] = {"button": hand["button"], "seats": seats}
    return hands


def _seat(hand: dict, s: int, stage: str, dealt: int = 13) -> SeatLayout | None:
    """Seat `s` at a stage: deal (a stack of `dealt`), down (rows face down), open, spread, gone."""
    if stage == "gone" or (stage == "deal" and dealt == 0):
        return None
    if hand["dead"] and hand["dead"][0] == s:
        return SeatLayout(s, stack=dealt) if stage == "deal" and dealt < 13 else SeatLayout(
            s, dead=True, pile=tuple(hand["dead"][1]))
    if stage == "deal":
        return SeatLayout(s, stack=dealt)
    if hand["natural"] and hand["natural"][0] == s:
        return SeatLayout(s, pile=tuple(hand["natural"][1]), face_down=stage != "spread")
    f, m, b = hand["rows"][s]
    return SeatLayout(s, front=tuple(f), middle=tuple(m), back=tuple(b), face_down=stage == "down")


def demo_timeline(hands: list[dict], fps: float) -> list[tuple[int, str, dict[int, tuple]]]:
    """Per frame: (hand index, phase, {seat: (stage, dealt)})."""
    frames = []

    def n(phase):
        return max(1, round(SECONDS[phase] * fps))

    for hi, hand in enumerate(hands):
        state = {s: ("gone", 0) for s in range(1, 5)}
        for _ in range(n("empty")):
            frames.append((hi, "empty", dict(state)))
        steps = n("deal")
        for k in range(steps):
            dealt = round(13 * (k + 1) / steps)
            state = {s: ("deal", dealt) for s in range(1, 5)}
            frames.append((hi, "deal", dict(state)))
        per = max(1, n("set") // 4)
        for s in range(1, 5):
            state[s] = ("down", 13)
            for _ in range(per):
                frames.append((hi, "set", dict(state)))
        for _ in range(n("down")):
            frames.append((hi, "set", dict(state)))
        per = max(1, n("open") // 4)
        natural_seat = hand["natural"][0] if hand["natural"] else None
        for s in range(1, 5):
            if s != natural_seat:
                state[s] = ("open", 13)
            for _ in range(per):
                frames.append((hi, "open", dict(state)))
        if natural_seat:
            state[natural_seat] = ("spread", 13)
            for _ in range(per):
                frames.append((hi, "open", dict(state)))
        for _ in range(n("hold")):
            frames.append((hi, "hold", dict(state)))
        per = max(1, n("sweep") // 4)
        for s in range(1, 5):
            state[s] = ("gone", 0)
            for _ in range(per):
                frames.append((hi, "sweep", dict(state)))
    return frames


def _writer(path: Path, fps: float, size: tuple[int, int]) -> cv2.VideoWriter:
    for codec in ("mp4v", "avc1"):
        writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*codec), fps, size)
        if writer.isOpened():
            return writer
        writer.release()
    raise RuntimeError(f"OpenCV cannot write {path} (no avc1/mp4v encoder)")


def render_demo(out_dir: Path, deck: str = "kennard-2c", fps: float = 5.0, size=(1920, 1080), seed: int = 7) -> dict:
    out_dir.mkdir(parents=True, exist_ok=True)
    hands = demo_hands(seed)
    timeline = demo_timeline(hands, fps)
    video = out_dir / "table.mp4"
    writer = _writer(video, fps, size)
    cache: dict = {}
    phases: list[dict] = [{"phases": {}} for _ in hands]
    scenes_at: dict[int, dict] = {}
    try:
        for index, (hi, phase, state) in enumerate(timeline):
            key = (hi, tuple(sorted(state.items())))
            if key not in cache:
                cache.clear()
                seats = tuple(x for s, (stage, dealt) in sorted(state.items())
                              if (x := _seat(hands[hi], s, stage, dealt)) is not None)
                rendered = render_table(TableLayout(seats, size), deck, seed=seed * 100 + hi, **DEMO_RENDER)
                cache[key] = rendered
            rendered = cache[key]
            writer.write(rendered.image)
            span = phases[hi]["phases"].setdefault(phase, [index, index])
            span[1] = index
            if phase == "hold" and hi not in scenes_at:
                scenes_at[hi] = dict(rendered.scene, image=f"table.mp4#frame={index}")
    finally:
        writer.release()
    truth = {
        "video": "table.mp4", "fps": fps, "size": list(size), "frames": len(timeline), "deck": deck, "seed": seed,
        "frame_ranges": "first and last frame of each phase, inclusive",
        "hands": [
            {"hand": hi + 1, "note": hand["note"], "showdown": hand["showdown"], **phases[hi],
             "hold_scene": scenes_at.get(hi)}
            for hi, hand in enumerate(hands)
        ],
    }
    (out_dir / "table.json").write_text(json.dumps(truth, indent=1) + "\n")
    cap = cv2.VideoCapture(str(video))
    readable = int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) if cap.isOpened() else 0
    cap.release()
    return {"video": str(video), "frames": len(timeline), "readable_frames": readable,
            "bytes": video.stat().st_size, "hands": [h["note"] for h in hands]}
