"""The one detections container passed from the card reader to the table stages.

Boxes are (x1, y1, x2, y2) in pixels of the original frame. One `CardDetection`
is one physical card: the reader has already merged the two corner indices of a
card into one entry. Model adapters (ultralytics, ONNX, OpenVINO) live at the edge
(`kiosk/vision/reader.py`) and all return this type.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from kiosk.cards import Card, parse_card

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
    # Each corner's orientation (quarter turns) and how sure the classifier was of it, beside `corners`,
    # where the reading came from the merge (empty where a rule made the reading from boxes alone).
    turns: tuple[tuple[int, float], ...] = ()

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

    def to_record(self) -> dict:
        """Everything the table stages use, for a file of readings (`from_record` reads it back)."""
        return {**self.to_json(), "confidence": float(self.confidence), "box": [float(v) for v in self.box],
                "corners": [[float(v) for v in b] for b in self.corners],
                "alternatives": [[str(c), float(p)] for c, p in self.alternatives],
                "turns": [[int(k), float(p)] for k, p in self.turns]}

    @staticmethod
    def from_record(d: dict) -> CardDetection:
        """
        >>> c = CardDetection(parse_card("Th"), 0.7, (1, 2, 3, 4), ((1, 2, 2, 3),), ((parse_card("6h"), 0.2),),
        ...                   ((2, 0.9),))
        >>> CardDetection.from_record(c.to_record()) == c
        True
        """
        return CardDetection(parse_card(d["card"]), d["confidence"], tuple(d["box"]),
                             tuple(tuple(b) for b in d.get("corners", ())),
                             tuple((parse_card(c), p) for c, p in d.get("alternatives", ())),
                             tuple((int(k), float(p)) for k, p in d.get("turns", ())))


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

    def to_record(self) -> dict:
        return {"cards": [c.to_record() for c in self.cards], "image_size": list(self.image_size),
                "frame_index": self.frame_index, "timestamp": self.timestamp, "source": self.source}

    def scaled(self, sx: float, sy: float, image_size: tuple[int, int]) -> Detections:
        """The readings in the pixels of an image `sx`, `sy` times as large (a photo read at a fraction of its size).

        >>> d = Detections((CardDetection(parse_card("Ks"), 0.9, (10, 20, 30, 40), ((10, 20, 15, 28),)),), (600, 400))
        >>> big = d.scaled(2.0, 2.0, (1200, 800))
        >>> big.cards[0].box, big.cards[0].corners, big.image_size
        ((20.0, 40.0, 60.0, 80.0), ((20.0, 40.0, 30.0, 56.0),), (1200, 800))
        """
        def box(b):
            return (b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy)

        cards = tuple(replace(c, box=box(c.box), corners=tuple(box(b) for b in c.corners)) for c in self.cards)
        return replace(self, cards=cards, image_size=tuple(image_size))

    @staticmethod
    def from_record(d: dict) -> Detections:
        return Detections(tuple(CardDetection.from_record(c) for c in d["cards"]), tuple(d["image_size"]),
                          d["frame_index"], d["timestamp"], d["source"])
