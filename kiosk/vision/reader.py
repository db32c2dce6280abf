"""The card reader: frame in, `Detections` out.

Two networks (see docs/detector.md):
1. a one-class YOLO detector finds every corner index on the frame, read at 1920x1088 (finder.py)
   (a 1080p frame at full size, an index is then ~15-45 px);
2. a YOLO classifier reads a square cut around each index from the full-resolution
   frame: 53 cards x 4 orientations, plus "background" to reject false finds.
Then the stages of kiosk/vision/pipeline.py, as reader.json turns them on (kiosk/vision/settings.py).

    reader = load_reader("models")
    dets = reader.read(image_bgr)
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from kiosk.cards import CLASS_NAMES
from kiosk.errors import KioskError
from kiosk.vision import pipeline
from kiosk.vision.backends import BACKENDS, INT8, open_runner
from kiosk.vision.detections import Detections
from kiosk.vision.finder import IndexFinder
from kiosk.vision.geometry import square_crop
from kiosk.vision.merge import Corner
from kiosk.vision.model_folder import Networks, available_backends, model_version, network_openers
from kiosk.vision.negative import negative, on_dark_face
from kiosk.vision.settings import READER_JSON, ReaderSettings, read_settings
from kiosk.vision.still import AS_FOUND, StillIndices
from kiosk.vision.turned import join_turned

CLS_BATCH = 64


class CardReader:
    takes_still = True  # read() accepts a pipeline's StillIndices

    def __init__(self, model_dir: Path, backend: str, det_runner, cls_runner, settings: ReaderSettings,
                 networks: Networks | None = None):
        self.model_dir = Path(model_dir)
        self.backend = backend
        self._cls = cls_runner
        self.finder = IndexFinder(det_runner, settings.detector.input, settings.detector.conf, settings.detector.iou)
        self.networks = networks or Networks({})  # the stages' networks, each opened on first use
        self._build_class_maps(list(settings.classifier.names))
        self.settings = settings
        self.model_version = model_version(self.model_dir, settings, backend)

    # -- what the settings say, where a line is never under another ------------------------------------------
    @property
    def report_line(self) -> float:
        """A single picture reports readings from this confidence (never under the least one)."""
        return max(self.settings.confidence.least, self.settings.confidence.report)

    @property
    def one_deck_line(self) -> float:
        """A single picture of one deck reports readings from this confidence after settling the deck."""
        return max(self.settings.confidence.least, self.settings.stages.one_deck.report)

    @property
    def picture_scales(self) -> tuple[float, ...]:
        scales = self.settings.stages.picture_scales
        return scales.scales if scales else (1.0,)

    @property
    def cls_size(self) -> int:
        return self.settings.classifier.imgsz

    def _build_class_maps(self, names: list[str]) -> None:
        n = len(names)
        self._card_of = np.full(n, -1, dtype=np.int64)
        self._orient_of = np.zeros(n, dtype=np.int64)
        for i, name in enumerate(names):
            card, _, k = name.rpartition(".")
            if card in CLASS_NAMES:
                self._card_of[i] = CLASS_NAMES.index(card)
                self._orient_of[i] = int(k)
        # _turned[t][i]: the class a cut turned by t quarter turns reads as i stands for unturned.
        index = {(int(c), int(k)): i for i, (c, k) in enumerate(zip(self._card_of, self._orient_of)) if c >= 0}
        self._turned = [np.arange(n) for _ in range(4)]
        for t in range(1, 4):
            for (c, k), i in index.items():
                self._turned[t][i] = index.get((c, (k + t) % 4), i)

    def find_indices(self, image: np.ndarray, region: tuple[int, int, int, int],
                     scales: tuple[float, ...] = (1.0,)) -> list[tuple[tuple, float]]:
        return self.finder.find_indices(image, region, scales)

    # -- reading an index ---------------------------------------------------------------------------------
    def classify(self, image: np.ndarray, boxes: list[tuple], cut=AS_FOUND) -> np.ndarray:
        """Class probabilities (n, classes) for square cuts around `boxes` (`cut`: shift and zoom)."""
        if not boxes:
            return np.zeros((0, len(self._card_of)), dtype=np.float32)
        shift, zoom = cut
        return self.classify_crops(np.stack([self._cut(image, b, shift, zoom) for b in boxes]))

    def _cut(self, image: np.ndarray, box, shift=(0.0, 0.0), zoom: float = 1.0) -> np.ndarray:
        return square_crop(image, box, self.cls_size, shift=shift, zoom=zoom,
                           shrink_area=self.settings.classifier.shrink_area)

    def classify_crops(self, crops: np.ndarray) -> np.ndarray:
        """Class probabilities (n, classes) of BGR cuts (n, size, size, 3), read at four quarter turns and averaged
        where `four_turns` is on (the classes are card x orientation: a turned cut is the same card turned)."""
        run = self._cls
        turns = 4 if self.settings.stages.four_turns else 1
        probs = np.zeros((len(crops), len(self._card_of)), dtype=np.float32)
        for t in range(turns):
            turned = np.ascontiguousarray(np.rot90(crops, t, axes=(1, 2))) if t else crops
            outs = np.concatenate([run(turned[i : i + CLS_BATCH]) for i in range(0, len(turned), CLS_BATCH)])
            np.add.at(probs, (slice(None), self._turned[t]), outs)
        return probs / turns

    def card_mass(self, probs: np.ndarray) -> np.ndarray:
        """Per card (n, 53): the class probabilities summed over the card's four orientations."""
        mass = np.zeros((len(probs), len(CLASS_NAMES)), dtype=np.float64)
        card_mask = self._card_of >= 0
        np.add.at(mass.T, self._card_of[card_mask], probs[:, card_mask].T)
        return mass

    def orientations(self, probs: np.ndarray) -> list[tuple[int, float]]:
        """Per cut: the quarter turns it most likely stands at, and that share of its card mass."""
        card_mask = self._card_of >= 0
        out = []
        for p in probs:
            orient_probs = np.zeros(4)
            np.add.at(orient_probs, self._orient_of[card_mask], p[card_mask])
            k = int(np.argmax(orient_probs))
            out.append((k, float(orient_probs[k] / max(orient_probs.sum(), 1e-9))))
        return out

    def corners_from(self, boxes_scores, probs: np.ndarray) -> list[Corner]:
        corners = []
        for (box, score), card_probs, (k, sure) in zip(boxes_scores, self.card_mass(probs), self.orientations(probs)):
            if 1.0 - float(card_probs.sum()) >= self.settings.classifier.background:
                continue
            corners.append(Corner(box, score, card_probs, k, sure))
        return corners

    def read_picture(self, image_bgr: np.ndarray, source: str = "", stages: list | None = None) -> Detections:
        """One picture on its own: read as a frame is (at the picture scales), then the readings sure enough to
        report (`confidence.report`, or with `one_deck` every reading until the deck is settled) through the
        picture's stages (kiosk.vision.pipeline.PICTURE_STAGES); `stages`, when given, collects (stage, readings)
        after the first read ("read") and after each of them. With `negative_look`, the picture's negative is read the same way and its sure readings on dark faces
        join (kiosk.vision.negative)."""
        image = _as_bgr(image_bgr, source)
        dets = self._read_one_picture(image, source, stages)
        negative_look = self.settings.stages.negative_look
        if negative_look is None:
            return dets
        dark = self._read_one_picture(negative(image), source, None)
        found = tuple(c for c in dark.cards if c.confidence >= negative_look.report and on_dark_face(image, c))
        if self.settings.stages.one_deck is not None:  # each card at most once: the picture's own reading stays
            read = {d.card for d in dets.cards}
            found = tuple(c for c in found if c.card not in read)
        return replace(dets, cards=join_turned(dets.cards, found, floor=self.report_line))

    def _read_one_picture(self, image: np.ndarray, source: str, stages: list | None) -> Detections:
        log = stages.append if stages is not None else (lambda _: None)
        dets = self.read(image, source=source, scales=self.picture_scales)
        log(("read", dets.cards))
        one_deck = self.settings.stages.one_deck is not None
        floor = self.one_deck_line if one_deck else self.report_line
        # One deck: every reading takes part in settling the deck; the floor applies after.
        cards = dets.cards if one_deck else tuple(c for c in dets.cards if c.confidence >= floor)
        look = pipeline.PictureLook(self, image, source=source, first=dets, floor=floor)
        cards = pipeline.run_stages(pipeline.PICTURE_STAGES, look, cards, log)
        return replace(dets, cards=cards, meta={**dets.meta, **look.meta})

    def read(
        self,
        image_bgr: np.ndarray,
        rois: list[tuple[int, int, int, int]] | None = None,
        frame_index: int = 0,
        timestamp: float = 0.0,
        source: str = "",
        still: StillIndices | None = None,
        scales: tuple[float, ...] = (1.0,),
    ) -> Detections:
        """`still`: a pipeline's memory of where the indices were (kiosk.vision.still); a frame
        that has not moved since reads its cards at those indices without the detector. `scales`: the picture
        is searched shrunk by these factors too (single pictures: `picture_scales`)."""
        image = _as_bgr(image_bgr, source)
        h, w = image.shape[:2]
        t0 = time.perf_counter()
        clean_rois = _clean_rois(rois, w, h)
        if clean_rois == []:
            return Detections((), (w, h), frame_index, timestamp, source, {"backend": self.backend})
        region = _bounds(clean_rois) if clean_rois else (0, 0, w, h)

        def find():
            return pipeline.inside(self.find_indices(image, region, scales), clean_rois)

        if still is None:
            found, found_in, cut = find(), frame_index, AS_FOUND
        else:
            found, found_in = still.indices(image, (region, tuple(clean_rois or ())), frame_index, timestamp, find)
            cut = still.cut
        t1 = time.perf_counter()
        look = pipeline.Look(self, image, clean_rois, cut)
        cards = pipeline.frame_cards(look, found)
        t2 = time.perf_counter()
        meta = {
            "backend": self.backend,
            "model": self.model_version,
            "indices": len(found),
            "indices_from": found_in,
            "ms_detect": round((t1 - t0) * 1000, 1),
            "ms_classify": round((t2 - t1) * 1000, 1),
        }
        return Detections(tuple(cards), (w, h), frame_index, timestamp, source, meta)


def _clean_rois(rois, w: int, h: int) -> list | None:
    """The regions of interest clipped to the frame, empty ones left out; None: the whole frame."""
    if not rois:
        return None
    clipped = [_clip_roi(r, w, h) for r in rois]
    return [r for r in clipped if r[2] > r[0] and r[3] > r[1]]


def _bounds(rois: list) -> tuple[int, int, int, int]:
    return min(r[0] for r in rois), min(r[1] for r in rois), max(r[2] for r in rois), max(r[3] for r in rois)


def _as_bgr(image, source: str) -> np.ndarray:
    name = source or "image"
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise KioskError(f"{name}: not an image (expected a BGR array)")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    elif image.shape[2] != 3:
        raise KioskError(f"{name}: {image.shape[2]} colour channels (expected 3)")
    if image.dtype != np.uint8:
        if image.dtype == np.uint16:
            image = (image >> 8).astype(np.uint8)
        else:
            image = np.clip(image, 0, 255).astype(np.uint8)
    return image


def _clip_roi(r, w, h):
    x1, y1, x2, y2 = (int(round(v)) for v in r)
    return (max(0, x1), max(0, y1), min(w, x2), min(h, y2))


def load_reader(model_dir: str | Path = "models", backend: str = "auto", many_decks: bool = False,
                settings: dict | None = None) -> CardReader:
    """Open the committed reader; `backend="auto"` takes the fastest committed export.
    `many_decks`: single pictures may show a card twice (the one-deck stage off, kiosk.vision.one_deck).
    `settings`: changes to reader.json's settings, in its shape (a stage turned off: {"stages": {"turned_look": None}})."""
    model_dir = Path(model_dir)
    meta = read_settings(model_dir)
    if settings:
        meta = meta.changed(settings)
    if many_decks:
        meta = meta.changed({"stages": {"one_deck": None}})
    backend = _backend(model_dir, meta, backend)
    det = open_runner(backend, model_dir / meta.detector.files[backend])
    cls = open_runner(backend, model_dir / meta.classifier.files[backend])
    return CardReader(model_dir, backend, det, cls, meta, Networks(network_openers(model_dir, meta, backend)))


def _backend(model_dir: Path, meta: ReaderSettings, backend: str) -> str:
    """The backend `backend` names (`auto`: reader.json's default where the folder has it), checked."""
    have = available_backends(model_dir, meta)
    if not have:
        raise KioskError(f"{model_dir}: the card reader's weights are missing (see {READER_JSON})")
    if backend == "auto":
        return meta.default_backend if meta.default_backend in have else have[0]
    if backend not in have:
        if backend not in BACKENDS:
            raise KioskError(f"unknown backend '{backend}' (choose from auto, {', '.join(BACKENDS)})")
        make = (f"make them with 'kiosk quantize --models {model_dir}'" if backend == INT8 else
                f"'kiosk bench detector --models {model_dir} --backends {backend}' exports one into a folder of "
                f"runs/reader-exports/ it names; read with --models that folder")
        raise KioskError(f"{model_dir}: no {backend} export of the reader here (have: {', '.join(have)}); {make}")
    return backend
