"""The one detections container passed from the card reader to the table stages.

Boxes are (x1, y1, x2, y2) in pixels of the original frame. One `CardDetection`
is one physical card: the reader has already merged the two corner indices of a
card into one entry. Model adapters (ultralytics, ONNX, OpenVINO) live at the edge
(`kiosk/vision/reader.py`) and all return this type.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kiosk.cards import Card

Box = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class CardDetection:
    card: Card
    confidence: float
    box: Box
    # Boxes of the corner indices that were merged into this card (may be empty).
    corners: tuple[Box, ...] = ()
    # The runner-up reading of this card and its confidence, when the reader has one;
    # the stabiliser uses it to resolve duplicates from confidences.
    alternatives: tuple[tuple[Card, float], ...] = ()

    @property
    def center(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box
        return ((x1 + x2) / 2, (y1 + y2) / 2)

    def to_json(self) -> dict:
        return {
            "card": str(self.card),
            "confidence": round(float(self.confidence), 4),
            "box": [round(float(v), 1) for v in self.box],
        }


@dataclass(frozen=True, slots=True)
class Detections:
    """Every card read in one frame."""

    cards: tuple[CardDetection, ...]
    image_size: tuple[int, int]  # (width, height)
    frame_index: int = 0
    timestamp: float = 0.0  # seconds since the source started
    source: str = ""
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self):
        return iter(self.cards)

    def to_json(self) -> dict:
        return {"image": self.source, "cards": [c.to_json() for c in self.cards]}
