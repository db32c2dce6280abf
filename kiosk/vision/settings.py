"""How a reader folder's networks are read: `reader.json`, typed (`ReaderSettings`).

Two networks read every picture and frame (the index detector, the index classifier); the stages between them and
a card list are `stages`, one sub-model each, in the order kiosk/vision/pipeline.py runs them. A stage that is off
is `null` (or absent) in reader.json: `kiosk eval --by-stage` turns each one off so (kiosk/vision/stages.py).
What changes no reading (the default backend, the designs held out of training, how each part was trained) sits
apart: `default_backend`, `eval_decks`, `notes`.

    settings = read_settings(Path("models"))
    settings.stages.nested.share  # 0.5
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kiosk.errors import KioskError

READER_JSON = "reader.json"


class Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Detector(Part):
    """The one-class index detector (kiosk.vision.finder): its files by backend, input (h, w), thresholds."""
    files: dict[str, str]
    input: tuple[int, int]
    conf: float = 0.1
    iou: float = 0.5


class Classifier(Part):
    """The index classifier: card x orientation classes plus `bg`; a cut whose background share reaches
    `background` is no index. `shrink_area`: cuts larger than its input are shrunk with an area filter."""
    files: dict[str, str]
    imgsz: int
    names: tuple[str, ...]
    background: float = 0.5
    shrink_area: bool = False


class Confidence(Part):
    """`least`: readings below are noise, never cards (camera frames too: the table's frames vote above it).
    `report`: a single picture reports readings from this confidence (never under `least`)."""
    least: float = 0.3
    report: float = 0.3


class PictureScales(Part):
    """A single picture's indices are also searched with the picture shrunk by these factors (finder)."""
    scales: tuple[float, ...]


class NegativeLook(Part):
    """A single picture is read in its negative too, and its readings from `report` on dark faces join
    (kiosk.vision.negative): a deck printed light on dark faces reads there like any other."""
    report: float


class FourTurns(Part):
    """Each cut read at four quarter turns and the answers averaged (the classes are card x orientation)."""


class Nested(Part):
    """Of two finds one inside the other by this share (an index and its rank alone), only the surer is read."""
    share: float


class FaintPartners(Part):
    """A find too faint to read alone leaves a card whose other indices are at least `sure` without it."""
    sure: float


class TurnedLook(Part):
    """A single picture also read turned by `degrees` (kiosk.vision.turned), adding readings from `report`
    (never under the picture's report line); `sure_only`: in a picture of one deck too."""
    degrees: float
    sure_only: bool
    report: float


class ContextCheck(Part):
    """A single picture drops a reading whose every corner this network calls `not` a face-up card's index with
    at least `drop` (kiosk.vision.context)."""
    files: dict[str, str]
    names: tuple[str, ...]
    imgsz: int
    pad: float
    drop: float


class OneDeck(Part):
    """A single picture shows one deck: each card at most once, readings reported from `report` (never under the
    least confidence), `unread` the weight of leaving a reading without a card; `trust_context`: two claims on a
    card weighed by the context check's trust in each (kiosk.vision.one_deck)."""
    report: float
    unread: float
    trust_context: bool


class Stages(Part):
    """Every reading stage, in the order the pipeline runs them (kiosk/vision/pipeline.py); None: off."""
    picture_scales: PictureScales | None = None
    negative_look: NegativeLook | None = None
    four_turns: FourTurns | None = None
    nested: Nested | None = None
    faint_partners: FaintPartners | None = None
    turned_look: TurnedLook | None = None
    context_check: ContextCheck | None = None
    one_deck: OneDeck | None = None


# What changes no reading, so no model version: which backend `auto` opens, the designs held out of training,
# and how each part was made.
NOT_READING = frozenset({"default_backend", "eval_decks", "notes"})


class ReaderSettings(Part):
    detector: Detector
    classifier: Classifier
    confidence: Confidence = Confidence()
    stages: Stages = Stages()
    default_backend: str = "onnx"
    eval_decks: tuple[str, ...] = ()
    notes: dict[str, Any] = Field(default_factory=dict)

    def networks(self) -> dict[str, dict[str, str]]:
        """Each network this reader opens (the detector, the classifier, those of the stages that are on): files."""
        nets = {"detector": self.detector.files, "classifier": self.classifier.files}
        for name in Stages.model_fields:
            files = getattr(getattr(self.stages, name), "files", None)
            if files:
                nets[name] = files
        return nets

    def reading_json(self) -> str:
        """Every setting that changes a reading, as canonical JSON: all but NOT_READING, and the networks' files
        left out (their bytes are hashed instead: kiosk.vision.model_folder.model_version)."""
        return json.dumps(_without_files(self.model_dump(mode="json", exclude=set(NOT_READING))), sort_keys=True,
                          separators=(",", ":"))

    def changed(self, changes: dict) -> "ReaderSettings":
        """These settings with `changes` (reader.json's shape, nested dicts merged; None turns a stage off)."""
        return ReaderSettings.model_validate(merged(self.model_dump(mode="json"), changes))

    def with_stage(self, name: str, value: dict | None) -> "ReaderSettings":
        """These settings with the stage `name` replaced whole by `value` (reader.json's shape; None: off)."""
        data = self.model_dump(mode="json")
        data["stages"][name] = value
        return ReaderSettings.model_validate(data)

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), indent=2) + "\n"


def _without_files(value):
    if isinstance(value, dict):
        return {k: _without_files(v) for k, v in value.items() if k != "files"}
    return value


def merged(base: dict, changes: dict) -> dict:
    out = dict(base)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


def parse_settings(data: Any, where: str) -> ReaderSettings:
    """`data` (reader.json's content) as settings; a bad key or value is a KioskError naming it and `where`."""
    try:
        return ReaderSettings.model_validate(data)
    except ValidationError as err:
        problems = "; ".join(f"'{'.'.join(str(p) for p in e['loc']) or '(top)'}': {_message(e)}"
                             for e in err.errors())
        raise KioskError(f"{where}: {problems}") from None


def _message(error: dict) -> str:
    if error["type"] == "extra_forbidden":
        return "unknown key"
    if error["type"] == "missing":
        return "missing"
    got = repr(error.get("input"))
    return f"{error['msg']} (got {got if len(got) <= 60 else got[:57] + '...'})"


def read_settings(model_dir: Path) -> ReaderSettings:
    path = Path(model_dir) / READER_JSON
    if not path.is_file():
        raise KioskError(
            f"{model_dir}: no trained card reader here (missing {READER_JSON}); "
            "train one with 'kiosk train' or use the committed models/ folder"
        )
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise KioskError(f"{path}: unreadable ({err})") from err
    return parse_settings(data, str(path))


def write_settings(model_dir: Path, settings: ReaderSettings) -> Path:
    path = Path(model_dir) / READER_JSON
    path.write_text(settings.to_json())
    return path
