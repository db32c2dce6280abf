"""The verdict on one hand: what the pipeline publishes to the display and the recorder.

`showdown` is exactly the input format of `kiosk score`; `result` exactly its output.
Everything here is JSON-serialisable through `to_json()` so records and replays
can compare verdicts field by field.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(frozen=True, slots=True)
class CardEvidence:
    """Why the kiosk believes a card is where it says."""

    card: str  # "As"
    seat: int
    row: str  # "front" | "middle" | "back" | "pile" (a natural not yet spread)
    frame_index: int  # the frame the box comes from
    box: tuple[float, float, float, float]
    confidence: float  # combined over the frames that voted
    votes: int = 1  # frames that read this card here


@dataclass(frozen=True, slots=True)
class NeedsCheck:
    """A seat the kiosk will not rule on: the dealer must look (never a foul)."""

    seat: int
    reason: str  # "card at middle 3 read as 8h or 6h (confidence 0.61)"
    card: str | None = None


@dataclass(frozen=True, slots=True)
class Verdict:
    hand_id: str
    table: str
    decided_at: float  # unix time
    frame_index: int  # frame on which the verdict was decided (the key frame)
    showdown: dict  # `kiosk score` input
    result: dict  # `kiosk score` output ({"error": ...} when it could not be scored)
    needs_check: tuple[NeedsCheck, ...] = ()
    evidence: tuple[CardEvidence, ...] = ()
    integrity: tuple[str, ...] = ()  # RULES §7 problems: "duplicate card: 7h at seat 2 and seat 4"
    model_version: str = ""
    config_digest: str = ""
    meta: dict = field(default_factory=dict)

    @property
    def confident(self) -> bool:
        return not self.needs_check and not self.integrity and "error" not in self.result

    def to_json(self) -> dict:
        data = asdict(self)
        data["confident"] = self.confident
        return data
