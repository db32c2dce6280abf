"""The reading stages, in order: those of a camera frame (`FRAME_STAGES`) and those a single picture adds after
reading itself as a frame (`PICTURE_STAGES`).

Each stage is a small function `(look, items, setting) -> items` named in a list with the field of
`ReaderSettings.stages` that tunes it (kiosk/vision/settings.py); it runs where that field is not None, so a stage
is added or removed by one line here and its sub-model there. A frame's stages take the corner indices read at the
boxes found (kiosk.vision.merge.Corner) and end with `MERGE`, which joins them into card readings; a picture's take
card readings. How an index is found and read (picture scales, four turns) are options of the finder and the
classifier (kiosk/vision/reader.py), not list entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from kiosk.vision.detections import Detections
from kiosk.vision.geometry import centre_inside_any
from kiosk.vision.merge import drop_nested, merge_corners
from kiosk.vision.one_deck import each_card_once, report_floor
from kiosk.vision.still import AS_FOUND
from kiosk.vision.turned import detection_back, join_turned, turn_picture, worth_turning


@dataclass
class Look:
    """What the stages of one read share: the reader, the image, and what earlier stages left for later ones."""
    reader: Any  # kiosk.vision.reader.CardReader
    image: np.ndarray
    rois: list | None = None
    cut: tuple = AS_FOUND
    meta: dict = field(default_factory=dict)  # counts and timings reported with the readings
    trust: list | None = None  # the context check's trust in each reading, where it weighs in settling a deck

    @property
    def settings(self):
        return self.reader.settings

    @property
    def size(self) -> tuple[int, int]:
        h, w = self.image.shape[:2]
        return w, h


@dataclass(frozen=True)
class Stage:
    setting: str | None  # its field of ReaderSettings.stages (`kiosk eval --by-stage` turns it off); None: always on
    run: Callable


# -- a camera frame ------------------------------------------------------------------------------------------

def nested(look: Look, corners: list, s) -> list:
    return drop_nested(corners, s.share)


def merge(look: Look, corners: list, _) -> list:
    """The indices of one card joined into one reading; readings under the least confidence are noise."""
    least = look.settings.confidence.least
    faint = look.settings.stages.faint_partners
    merged = merge_corners(corners, look.size, faint_below=least if faint else 0.0,
                           sure_alone=faint.sure if faint else 0.0)
    return [c for c in merged if c.confidence >= least]


MERGE = Stage(None, merge)
FRAME_STAGES: tuple[Stage, ...] = (
    Stage("nested", nested),
    MERGE,
)


def run_stages(stages, look: Look, items, log: Callable = lambda _: None):
    """`items` through the `stages` that are on; `log((stage, items))` after each (tests see one stage's work)."""
    for stage in stages:
        setting = getattr(look.settings.stages, stage.setting) if stage.setting else None
        if stage.setting is None or setting is not None:
            items = stage.run(look, items, setting)
            log((stage.setting, items))
    return items


def frame_cards(look: Look, found: list) -> list:
    """The card readings at the index boxes `found`: each index read (kiosk.vision.reader), then the frame's
    stages."""
    probs = look.reader.classify(look.image, [b for b, _ in found], look.cut)
    return run_stages(FRAME_STAGES, look, look.reader.corners_from(found, probs))


# -- a single picture ----------------------------------------------------------------------------------------

@dataclass
class PictureLook(Look):
    """A single picture's read: its first read as a frame, and the confidence it reports readings from."""
    source: str = ""
    first: Detections | None = None
    floor: float = 0.0


def turned_look(look: PictureLook, cards: tuple, s) -> tuple:
    """The picture read again turned by `s.degrees` where its indices stay large enough (kiosk.vision.turned)."""
    reader, (w, h) = look.reader, look.size
    sure = tuple(c for c in look.first.cards if c.confidence >= look.floor)
    if not worth_turning(sure, w, h, reader.finder.input_hw, s.degrees):
        return cards
    one_deck = look.settings.stages.one_deck is not None
    picture, back = turn_picture(look.image, s.degrees)
    again = reader.read(picture, source=look.source, scales=reader.picture_scales)
    line = max(reader.report_line, s.report)
    found = tuple(detection_back(c, back, w, h) for c in again.cards
                  if (one_deck and not s.sure_only) or c.confidence >= line)
    cards = join_turned(cards, found, floor=reader.report_line)
    look.meta |= {"turned_reads": len(found),
                  "ms_turned": round(again.meta["ms_detect"] + again.meta["ms_classify"], 1)}
    return cards


def context_check(look: PictureLook, cards: tuple, s) -> tuple:
    """The readings the context check does not call off a face-up card at every corner; its trust in each
    (1 - its surest corner's P(`not`)) weighs in settling a deck where `one_deck.trust_context`."""
    boxes = [c.corners or (c.box,) for c in cards]
    p_not = look.reader.networks["context_check"].not_card(look.image, [b for group in boxes for b in group])
    keep, trust, i = [], [], 0
    for card, group in zip(cards, boxes):
        doubt = float(p_not[i : i + len(group)].min())
        if doubt < s.drop:
            keep.append(card)
            trust.append(1.0 - doubt)
        i += len(group)
    one_deck = look.settings.stages.one_deck
    look.trust = trust if one_deck and one_deck.trust_context else None
    return tuple(keep)


def one_deck(look: PictureLook, cards: tuple, s) -> tuple:
    """Each card at most once, the assignment the readings favour most (kiosk.vision.one_deck)."""
    return each_card_once(cards, report_floor(cards, look.floor, look.reader.report_line), unread=s.unread,
                          trust=look.trust)


PICTURE_STAGES: tuple[Stage, ...] = (
    Stage("turned_look", turned_look),
    Stage("context_check", context_check),
    Stage("one_deck", one_deck),
)


def inside(found: list, rois) -> list:
    return found if rois is None else [(b, s) for b, s in found if centre_inside_any(b, rois)]
