"""Detections made from a rendered scene's ground truth (kiosk_lab.synth scene JSON).

This is test and benchmark *data*, not a stand-in for the detector in the product: it
turns the exact labels of a rendered frame (visible corner indices, card by card) into
the `Detections` a perfect reader would return, optionally with the kinds of noise a
real reader makes (missed cards, a misread with its runner-up, a low confidence), so the
table stages can be tested on known layouts before and besides the real model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kiosk.cards import Card, deck, parse_card
from kiosk.table.hub import Hub
from kiosk.table.runner import TableRunner
from kiosk.table.sources import Frame
from kiosk.vision.detections import CardDetection, Detections
from kiosk_lab.synth import demo
from kiosk_lab.synth.table import TableLayout, render_table


@dataclass(frozen=True)
class Noise:
    drop: float = 0.0  # chance a card is missed in a frame
    misread: float = 0.0  # chance a card is read as another (the truth becomes the runner-up)
    confidence: tuple[float, float] = (0.9, 0.99)  # range of a correct reading's confidence
    # Fixed misreads: true card -> (read as, confidence); the truth is the runner-up.
    swaps: dict = field(default_factory=dict)


def detections_from_scene(
    scene: dict,
    frame_index: int = 0,
    timestamp: float = 0.0,
    source: str = "",
    noise: Noise | None = None,
    rng: np.random.Generator | None = None,
) -> Detections:
    noise = noise or Noise()
    rng = rng or np.random.default_rng(frame_index)
    out = []
    for c in scene["cards"]:
        if not c.get("face_up") or not c.get("corners") or c.get("card") is None:
            continue
        if noise.drop and rng.random() < noise.drop:
            continue
        truth = parse_card(c["card"])
        corners = tuple(tuple(float(v) for v in b) for b in c["corners"])
        # The reader's box is the whole card (estimated from its indices): the polygon's box.
        w, h = scene["size"]
        xs = [p[0] for p in c["polygon"]]
        ys = [p[1] for p in c["polygon"]]
        box = (max(0.0, min(xs)), max(0.0, min(ys)), min(float(w), max(xs)), min(float(h), max(ys)))
        lo, hi = noise.confidence
        conf = float(rng.uniform(lo, hi))
        card, alternatives = truth, ()
        if c["card"] in noise.swaps:
            wrong, wconf = noise.swaps[c["card"]]
            card, conf = parse_card(wrong), float(wconf)
            alternatives = ((truth, round(max(0.0, 1.0 - wconf - 0.05), 3)),)
        elif noise.misread and rng.random() < noise.misread:
            card = _neighbour(truth, rng)
            conf = float(rng.uniform(0.4, 0.7))
            alternatives = ((truth, round(float(rng.uniform(0.2, 1.0 - conf)), 3)),)
        out.append(CardDetection(card, round(conf, 4), box, corners, alternatives))
    w, h = scene["size"]
    return Detections(tuple(out), (int(w), int(h)), frame_index, timestamp, source)


def _neighbour(card: Card, rng: np.random.Generator) -> Card:
    """A plausible misread: same suit, a rank that looks alike (6/9, 8/3, ...) or next to it."""
    look_alike = {6: 9, 9: 6, 8: 3, 3: 8, 5: 6, 7: 2, 2: 7, 13: 12, 12: 13, 11: 10, 10: 11, 14: 4, 4: 14}
    rank = look_alike.get(card.rank, card.rank + 1 if card.rank < 14 else 2)
    suits = {"s": "c", "c": "s", "h": "d", "d": "h"}
    if rng.random() < 0.3:
        return Card(card.rank, suits[card.suit])
    return Card(rank, card.suit)


class SceneReader:
    """A reader over a known sequence of scenes (frame index -> scene JSON)."""

    model_version = "ground-truth"

    def __init__(self, scenes, noise: Noise | None = None, seed: int = 0, by_time_fps: float | None = None):
        self.scenes = scenes  # mapping or callable: frame_index -> scene dict (or None)
        self.noise = noise
        self.seed = seed
        self.by_time_fps = by_time_fps  # look scenes up by the frame's time (a source that skips frames)

    def read(self, image, rois=None, frame_index: int = 0, timestamp: float = 0.0, source: str = "") -> Detections:
        key = round(timestamp * self.by_time_fps) if self.by_time_fps else frame_index
        scene = self.scenes(key) if callable(self.scenes) else self.scenes.get(key)
        if scene is None:
            h, w = image.shape[:2]
            return Detections((), (w, h), frame_index, timestamp, source)
        rng = np.random.default_rng((self.seed, frame_index))
        return detections_from_scene(scene, frame_index, timestamp, source, self.noise, rng)


def shuffled_deck(seed: int) -> list[str]:
    """The 52 cards in a seeded random order (for laying out test hands)."""
    cards = [str(c) for c in deck(52)]
    np.random.default_rng(seed).shuffle(cards)
    return cards


def set_hands(cards: list[str], seats=(1, 2, 3, 4)) -> dict[int, dict[str, tuple[str, ...]]]:
    """Deal 13 cards per seat in order and set them front 3, middle 5, back 5 as dealt."""
    out = {}
    for i, seat in enumerate(seats):
        c = cards[13 * i : 13 * (i + 1)]
        out[seat] = {"front": tuple(c[:3]), "middle": tuple(c[3:8]), "back": tuple(c[8:13])}
    return out


def play(cfg, segments, noise: Noise | None = None, fps: float = 10.0, seed: int = 0, hub=None):
    """Run the table pipeline over rendered scenes held for a number of frames each.

    segments: [(RenderedScene, frames), ...]. Returns (runner, hand verdicts, events but frames).
    """
    timeline = [r for r, count in segments for _ in range(count)]
    reader = SceneReader(lambda i: timeline[i].scene if i < len(timeline) else None, noise, seed)
    frames = (Frame(r.image, i, i / fps, "rendered") for i, r in enumerate(timeline))
    hub = hub or Hub()
    events = []
    hub.subscribe(lambda e: events.append(e) if e.kind != "frame" else None)
    runner = TableRunner(cfg, frames, reader, hub)
    verdicts = runner.run_to_end()
    return runner, verdicts, events


class DemoScenes:
    """The exact scene of every frame of the built-in demo recording (kiosk_lab.synth.demo).

    The recording is rendered deterministically from its ground truth (table.json: seed,
    deck, fps), so each frame's labels can be rendered again: frame index -> scene JSON.
    Also gives, per hand, the frame on which its last seat opened.
    """

    def __init__(self, truth: dict):
        self.truth = truth
        self._demo = demo
        self.hands = demo.demo_hands(truth["seed"])
        self.timeline = demo.demo_timeline(self.hands, truth["fps"])
        self._cache: dict = {}

    def __call__(self, frame_index: int) -> dict | None:
        """The scene of a frame; indices past the end wrap round (the demo loops in `kiosk run`)."""
        hi, _, state = self.timeline[frame_index % len(self.timeline)]
        key = (hi, tuple(sorted(state.items())))
        if key not in self._cache:
            seats = tuple(x for s, (stage, dealt) in sorted(state.items())
                          if (x := self._demo._seat(self.hands[hi], s, stage, dealt)) is not None)
            size = tuple(self.truth["size"])
            rendered = render_table(TableLayout(seats, size), self.truth["deck"], seed=self.truth["seed"] * 100 + hi,
                                    **self._demo.DEMO_RENDER)
            self._cache[key] = rendered.scene
        return self._cache[key]

    def last_opened(self) -> list[int]:
        """Per hand, the frame from which every face-up card of the showdown is on view: the
        moment the last hand was opened (a dead seat's unchanged pile does not count)."""
        out = []
        for hi in range(len(self.hands)):
            frames = [i for i, (h, phase, _) in enumerate(self.timeline) if h == hi and phase in ("open", "hold")]
            last, prev = frames[0], None
            for i in frames:
                scene = self(i)
                face_up = frozenset(c["card"] for c in scene["cards"] if c["face_up"])
                if face_up != prev:
                    last, prev = i, face_up
            out.append(last)
        return out

    def readable(self, hand: int) -> bool:
        """Does the held showdown of this hand (0-based) show an index of every face-up card?"""
        i = max(k for k, (h, phase, _) in enumerate(self.timeline) if h == hand and phase == "hold")
        return all(c["corners"] for c in self(i)["cards"] if c["face_up"])
