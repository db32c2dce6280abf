"""The card reader: frame in, `Detections` out.

Two stages (see docs/detector.md):
1. a one-class YOLO detector finds every corner index on the frame, read at 1920x1088 (finder.py)
   (a 1080p frame at full size, an index is then ~15-45 px);
2. a YOLO classifier reads a square cut around each index from the full-resolution
   frame: 53 cards x 4 orientations, plus "background" to reject false finds,
   at four quarter turns averaged (`classify_turns`).
Then the two indices of one card are merged by geometry (merge.py).

    reader = load_reader("models")
    dets = reader.read(image_bgr)
"""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from kiosk.cards import CLASS_NAMES, RANKS
from kiosk.deck_assignment import NO_CARD
from kiosk.errors import KioskError
from kiosk.vision.negative import negative, on_dark_face
from kiosk.vision.backends import BACKENDS, INT8, open_runner
from kiosk.vision.detections import Detections
from kiosk.vision.finder import IndexFinder
from kiosk.vision.gaps import PROBE_SCORE, gap_boxes
from kiosk.vision.context import CONTEXT_PAD, CONTEXT_SIZE, ContextCheck
from kiosk.vision.geometry import centre_inside_any, square_crop
from kiosk.vision.merge import Corner, drop_nested, drop_twins, merge_corners
from kiosk.vision.model_folder import (READER_JSON, available_backends, context_opener, model_version, read_meta,
                                      look_opener, veto_opener)
from kiosk.vision.one_deck import each_card_once, report_floor
from kiosk.vision.partners import disagreeing_partners
from kiosk.vision.scale import drop_small
from kiosk.vision.turned import detection_back, join_turned, turn_picture, worth_turning
from kiosk.vision.veto import vetoed
from kiosk.vision.whole_deck import cards_left, misjoined, read_left, unclaimed_finds, without_index
from kiosk.vision.still import AS_FOUND, StillIndices
from kiosk.vision.rank_look import swap_ranks
from kiosk.vision.suit_look import black_mass, share_black_suits

CLS_BATCH = 64
JOKER_CLASS = CLASS_NAMES.index("Jk")
SUIT_LOOK_FROM = 0.05  # an index's clubs + spades share from which the suit look reads it


class CardReader:
    takes_still = True  # read() accepts a pipeline's StillIndices

    def __init__(self, model_dir: Path, backend: str, det_runner, cls_runner, meta: dict, open_context=None,
                 open_veto=None, suit_look=None, rank_look=None):
        self.model_dir = Path(model_dir)
        self.backend = backend
        self._cls = cls_runner
        self.meta = meta
        self.finder = IndexFinder(
            det_runner,
            meta["detector"]["input"],
            float(meta.get("det_conf", 0.1)),
            float(meta.get("det_iou", 0.5)),
        )
        self.cls_size = int(meta["classifier"]["imgsz"])
        self.bg_threshold = float(meta.get("bg_threshold", 0.5))
        # Readings below this are noise (a false find the classifier half-rejected), not cards.
        self.min_confidence = float(meta.get("min_confidence", 0.3))
        # A single picture's answer (kiosk detect / eval) needs more than one frame of many: the
        # table pipeline takes every reading above min_confidence and lets the frames vote.
        self.report_confidence = max(self.min_confidence, float(meta.get("report_confidence", self.min_confidence)))
        # Read each cut at this many quarter turns and average: the classes are card x
        # orientation, so a turned cut is the same card in another orientation class.
        self.turns = int(meta.get("classify_turns", 1))
        # A single picture's cuts the classifier is unsure of (top card < recheck_below) are read
        # again at these zooms (the jitter training saw) and the answers averaged. The table
        # pipeline has many frames to vote instead: see docs/detector.md.
        self.zooms = tuple(float(z) for z in meta.get("recheck_zooms", ()))
        self.recheck_below = float(meta.get("recheck_below", 0.0))
        # Look again in the gaps of fanned rows where the row's step says an index is (kiosk.vision.gaps).
        self.probe_gaps = bool(meta.get("probe_gaps", False))
        # A single picture is also read turned by this many degrees (kiosk.vision.turned); 0: not.
        self.turned_look = float(meta.get("turned_look", 0.0))
        # A single picture's indices are also searched with the picture shrunk by these factors: a close-up's
        # indices are several times the size the detector learned (kiosk.vision.finder).
        self.picture_scales = tuple(float(s) for s in meta.get("picture_scales", (1.0,)))
        # ... and read in its negative, taking what it reads on dark faces (kiosk.vision.negative).
        # From this confidence (0: never): on the black deck its readings under 0.8 were keyboard keys read as jokers.
        self.negative_look = float(meta.get("negative_look", 0.0))
        # ... adding only readings sure enough to report (`report_confidence`), in a picture of one deck too: its
        # weak readings took cards from right ones in the settling (docs/detector.md).
        self.turned_sure = bool(meta.get("turned_sure", False))
        # ... and from this confidence (`turned_report`, never under report_confidence): on the 4K test scenes of
        # large indices its readings of 0.6-0.7 were court art and backs read as cards (docs/detector.md).
        self.turned_report = max(self.report_confidence, float(meta.get("turned_report", 0.0)))
        # A closer look reads the cards' regions again at this zoom (kiosk.vision.closer): a single
        # picture's second look, and a still table's last search where the table asks for it; 0: never.
        self.closer_zoom = float(meta.get("closer_zoom", 0.0))
        # A single picture adds a card only the closer look read from this confidence: the closer
        # look also finds the indices printed on pictured backs (sweep: docs/detector.md).
        self.closer_report = max(self.report_confidence, float(meta.get("closer_report_confidence", 0.0)))
        # Cuts larger than the classifier's input are shrunk with an area filter (geometry.square_crop).
        self.shrink_area = bool(meta.get("shrink_area", False))
        # Of two finds one inside the other (an index and its rank alone), only the surer is read.
        self.drop_nested = float(meta.get("drop_nested", 0.0))
        # A card whose index is under this share of the frame's typical index is not read (kiosk.vision.scale).
        self.small_index = float(meta.get("small_index", 0.0))
        # A find too faint to read alone leaves a card whose other indices are at least this sure without it
        # (merge.merge_corners); 0: never.
        self.faint_partners = float(meta.get("faint_partners", 0.0))
        # An index the frame's border may have cut is not judged small (kiosk.vision.scale).
        self.small_edge = bool(meta.get("small_index_edge", False))
        # Of two readings of one card within this many index lengths, only the surer is kept (merge.drop_twins).
        self.twin_reach = float(meta.get("twin_reach", 0.0))
        # A single picture of one deck: each card at most once, readings reported from this
        # confidence (kiosk.vision.one_deck); None: read card by card from report_confidence.
        one_deck = meta.get("one_deck_report")
        self.one_deck_report = None if one_deck is None else max(self.min_confidence, float(one_deck))
        self.whole_deck_left = int(meta.get("whole_deck_left", 0))
        # ... and, where they name all the 52 cards but `left`, finds no reading claims are read among
        # the cards left (kiosk.vision.whole_deck); None: never.
        self.unclaimed = meta.get("unclaimed") if self.one_deck_report is not None else None
        # ... and the weight of leaving a reading without a card when two claim one (one_deck.each_card_once).
        self.one_deck_unread = float(meta.get("one_deck_unread", NO_CARD))
        # A single picture drops a reading whose every corner the context check calls `not` a
        # face-up card's index with this probability (kiosk.vision.context); no check without it.
        # `open_context` opens its network on a single picture's first read: camera frames never need it.
        self._open_context, self._context = open_context, None
        self.context_drop = float((meta.get("context") or {}).get("drop", 1.0))
        # ... and, where two readings claim one card, weighs each claim by its trust in the reading (one_deck).
        self.context_trust = bool((meta.get("context") or {}).get("trust", False))
        # A single picture drops a reading whose every corner a second classifier, taught backs and print as
        # background, calls background with at least `veto.bg` (kiosk.vision.veto); opened on first use.
        self._open_veto, self._veto = open_veto, None
        self.veto_line = float((meta.get("veto") or {}).get("bg", 1.0))
        self.veto_spare = frozenset((meta.get("veto") or {}).get("spare", ()))
        # Two single-index readings at the two corners of one card: the less sure one dropped where the other
        # is sure (kiosk.vision.partners); single pictures only. 0: never.
        self.partner_reach = float((meta.get("partners") or {}).get("reach", 0.0))
        self.partner_sure = float((meta.get("partners") or {}).get("sure", 1.0))
        # Each index read as clubs or spades in part is looked at again, turned upright, by a network that
        # tells the two apart only (kiosk.vision.suit_look); None: not.
        self.suit_look = suit_look
        self.suit_weight = float((meta.get("suit_look") or {}).get("weight", 1.0))
        self.suit_sharpen = bool((meta.get("suit_look") or {}).get("sharpen", True))
        self.suit_clubs = list((meta.get("suit_look") or {}).get("names", ["c", "s"])).index("c")
        # Each index read as a card less sure than `rank_look.below` is looked at again, turned upright, by a
        # network that reads its rank alone (kiosk.vision.rank_look); None: not. Its outputs put in RANKS order.
        self.rank_look = rank_look
        self.rank_below = float((meta.get("rank_look") or {}).get("below", 1.0 + 1e-9))
        rank_names = list((meta.get("rank_look") or {}).get("names", sorted(RANKS)))
        self.rank_order = [rank_names.index(r) for r in RANKS]
        self._build_class_maps(meta["classifier"]["names"])
        self.model_version = model_version(self.model_dir, meta, backend)

    @property
    def context(self) -> ContextCheck | None:
        if self._context is None and self._open_context is not None:
            context = self.meta.get("context") or {}
            self._context = ContextCheck(self._open_context(), list(context.get("names", ("card", "not"))),
                                         float(context.get("pad", CONTEXT_PAD)), int(context.get("imgsz", CONTEXT_SIZE)))
        return self._context

    @context.setter
    def context(self, check: ContextCheck | None) -> None:  # None: no check
        self._context = check
        self._open_context = None

    @property
    def veto(self):
        """The background veto's network (kiosk.vision.veto), opened by the first single picture; None: no veto."""
        if self._veto is None and self._open_veto is not None:
            self._veto = self._open_veto()
        return self._veto

    @veto.setter
    def veto(self, runner) -> None:  # None: no veto
        self._veto = runner
        self._open_veto = None

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

    # -- stage 2 -------------------------------------------------------------------
    def classify(self, image: np.ndarray, boxes: list[tuple], recheck: bool = False, cut=AS_FOUND,
                 runner=None) -> np.ndarray:
        """Class probabilities (n, classes) for square cuts around `boxes` (`cut`: shift and zoom); `runner`:
        another network of the classifier's classes (the veto), else the classifier."""
        if not boxes:
            return np.zeros((0, len(self._card_of)), dtype=np.float32)
        shift, zoom = cut
        probs = self.classify_crops(np.stack([square_crop(image, b, self.cls_size, shift=shift, zoom=zoom,
                                                          shrink_area=self.shrink_area) for b in boxes]), runner)
        if not (recheck and self.zooms):
            return probs
        doubt = np.flatnonzero(self.card_mass(probs).max(axis=1) < self.recheck_below)
        if doubt.size:
            total = probs[doubt].copy()
            for z in self.zooms:
                total += self.classify_crops(np.stack([square_crop(image, boxes[i], self.cls_size, zoom=z,
                                                                   shrink_area=self.shrink_area) for i in doubt]), runner)
            probs[doubt] = total / (1 + len(self.zooms))
        return probs

    def classify_crops(self, crops: np.ndarray, runner=None) -> np.ndarray:
        """Class probabilities (n, classes) of BGR cuts (n, size, size, 3)."""
        run = runner or self._cls
        probs = np.zeros((len(crops), len(self._card_of)), dtype=np.float32)
        for t in range(self.turns):
            turned = np.ascontiguousarray(np.rot90(crops, t, axes=(1, 2))) if t else crops
            outs = np.concatenate([run(turned[i : i + CLS_BATCH]) for i in range(0, len(turned), CLS_BATCH)])
            np.add.at(probs, (slice(None), self._turned[t]), outs)
        return probs / self.turns

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

    def orientations_at(self, image: np.ndarray, boxes: list) -> list[tuple[int, float]]:
        """The orientation of the index at each box, and how sure (a cut read as a doubtful one is)."""
        return self.orientations(self.classify(image, boxes, recheck=True)) if boxes else []

    def corners_from(self, boxes_scores, probs: np.ndarray) -> list[Corner]:
        corners = []
        for (box, score), card_probs, (k, sure) in zip(boxes_scores, self.card_mass(probs), self.orientations(probs)):
            if 1.0 - float(card_probs.sum()) >= self.bg_threshold:
                continue
            corners.append(Corner(box, score, card_probs, k, sure))
        return corners

    def _look_again(self, image: np.ndarray, corners: list[Corner], cut=AS_FOUND) -> list[Corner]:
        """`corners` with their cuts, turned upright, read again: each read in part as clubs or spades by the suit
        look (kiosk.vision.suit_look), which weighs the two suits again, then each read as a card (not the joker)
        less sure than `rank_below` by the rank look (kiosk.vision.rank_look), which may swap its first card for another
        rank of that suit."""
        if not corners or (self.suit_look is None and self.rank_look is None):
            return corners
        probs = np.stack([c.card_probs for c in corners])
        black = np.flatnonzero(black_mass(probs) >= SUIT_LOOK_FROM) if self.suit_look else np.array([], int)
        ranked = (np.flatnonzero((probs.argmax(axis=1) != JOKER_CLASS) & (probs.max(axis=1) < self.rank_below))
                  if self.rank_look else np.array([], int))
        upright = self._upright_cuts(image, corners, np.union1d(black, ranked), cut)
        if black.size:
            looks = self._run(self.suit_look, np.stack([upright[i] for i in black]))
            probs[black] = share_black_suits(probs[black], looks[:, self.suit_clubs], self.suit_weight,
                                             self.suit_sharpen)
        if ranked.size:
            looks = self._run(self.rank_look, np.stack([upright[i] for i in ranked]))
            probs[ranked] = swap_ranks(probs[ranked], looks[:, self.rank_order])
        looked = set(black.tolist()) | set(ranked.tolist())
        return [replace(c, card_probs=probs[i]) if i in looked else c for i, c in enumerate(corners)]

    def _upright_cuts(self, image: np.ndarray, corners: list[Corner], which, cut) -> dict:
        shift, zoom = cut
        return {int(i): np.rot90(square_crop(image, corners[i].box, self.cls_size, shift=shift, zoom=zoom,
                                             shrink_area=self.shrink_area), corners[i].orient) for i in which}

    @staticmethod
    def _run(network, cuts: np.ndarray) -> np.ndarray:
        return np.concatenate([network(cuts[i : i + CLS_BATCH]) for i in range(0, len(cuts), CLS_BATCH)])

    def read_gaps(self, image: np.ndarray, corners: list[Corner], rois=None, recheck: bool = False) -> list[Corner]:
        """Corners read in the gaps of fanned rows (only where the classifier sees a card of the row's orientation)."""
        places = [(box, k) for box, k in gap_boxes(corners) if rois is None or centre_inside_any(box, rois)]
        if not places:
            return []
        probs = self.classify(image, [box for box, _ in places], recheck)
        found = self._look_again(image, self.corners_from([(box, PROBE_SCORE) for box, _ in places], probs))
        want = {tuple(box): k for box, k in places}
        return [c for c in found if c.orient == want[tuple(c.box)]]

    def _closer(self, image: np.ndarray, first: list, rois) -> list:
        near = self.finder.find_closer(image, first, self.closer_zoom)
        return near if rois is None else [(b, s) for b, s in near if centre_inside_any(b, rois)]

    def read_picture(self, image_bgr: np.ndarray, source: str = "", stages: list | None = None) -> Detections:
        """One picture on its own: doubtful cuts read again (`recheck_zooms`), the picture read
        turned as well where that can find more (`turned_look`), readings on no face-up card dropped
        (`context`: kiosk.vision.context), and only the readings sure
        enough to report (`report_confidence`, or with `one_deck_report` each card at most once
        and readings from that confidence: kiosk.vision.one_deck), less those the background veto
        calls background (`veto`: kiosk.vision.veto) and the less sure of two read at the two corners
        of one card (`partners`: kiosk.vision.partners). `stages`, when given, collects
        (stage, readings) after each of them (scripts/reader_stage_losses.py). With `negative_look`, the
        picture's negative is read the same way and its readings on dark faces join (kiosk.vision.negative)."""
        image = _as_bgr(image_bgr, source)
        dets = self._read_one_picture(image, source, stages)
        if not self.negative_look:
            return dets
        dark = self._read_one_picture(negative(image), source, None)
        found = tuple(c for c in dark.cards if c.confidence >= self.negative_look and on_dark_face(image, c))
        return replace(dets, cards=join_turned(dets.cards, found, floor=self.report_confidence))

    def _read_one_picture(self, image: np.ndarray, source: str, stages: list | None) -> Detections:
        log = stages.append if stages is not None else (lambda _: None)
        dets, first_finds = self._read_found(image, source=source, recheck=True, look_closer=True,
                                             scales=self.picture_scales)
        log(("read", dets.cards))
        one_deck = self.one_deck_report is not None
        floor = self.one_deck_report if one_deck else self.report_confidence
        sure = tuple(c for c in dets.cards if c.confidence >= floor)
        # One deck: every reading takes part in settling the deck; the floor applies after.
        cards = dets.cards if one_deck else sure
        h, w = image.shape[:2]
        if self.turned_look and worth_turning(sure, w, h, self.finder.input_hw, self.turned_look):
            picture, back = turn_picture(image, self.turned_look)
            again = self.read(picture, source=source, recheck=True, scales=self.picture_scales)
            found = tuple(detection_back(c, back, w, h) for c in again.cards
                          if (one_deck and not self.turned_sure) or c.confidence >= self.turned_report)
            cards = join_turned(cards, found, floor=self.report_confidence)
            if self.twin_reach:
                cards = tuple(drop_twins(list(cards), self.twin_reach))
            meta = {**dets.meta, "turned_reads": len(found), "ms_turned": round(again.meta["ms_detect"] + again.meta["ms_classify"], 1)}
            dets = replace(dets, meta=meta)
            log(("turned", cards))
        trust = None
        if self.context is not None:
            cards, trust = self._on_cards(image, cards)
            trust = trust if self.context_trust else None
            log(("context", cards))
        if one_deck:
            cards = each_card_once(cards, report_floor(cards, floor, self.report_confidence), self.whole_deck_left,
                                   unread=self.one_deck_unread, trust=trust)
            log(("one_deck", cards))
            if self.unclaimed:
                cards = self._read_unclaimed(image, cards, first_finds)
                log(("unclaimed", cards))
        if self.veto is not None:
            cards, _ = vetoed(cards, partial(self._veto_background, image), self.veto_line, self.veto_spare)
            log(("veto", cards))
        if self.partner_reach:
            cards, _ = disagreeing_partners(cards, partial(self.orientations_at, image), self.partner_reach,
                                            self.partner_sure)
            log(("partners", cards))
        return replace(dets, cards=cards)

    def _veto_background(self, image: np.ndarray, boxes: list) -> np.ndarray:
        """The veto's background share (1 - its card mass) at each index box."""
        return 1.0 - self.card_mass(self.classify(image, boxes, recheck=True, runner=self.veto)).sum(axis=1)

    def _read_unclaimed(self, image: np.ndarray, cards: tuple, found: list) -> tuple:
        """The readings, and where they name all the 52 cards but a few, the indices `found` none of them
        claims (with `misjoined`, also those a neighbour's reading took) read among the cards left
        (kiosk.vision.whole_deck)."""
        left = cards_left(cards)
        if not left or len(left) > int(self.unclaimed["left"]):
            return cards
        free = unclaimed_finds(cards, found)
        mass = self.card_mass(self.classify(image, free, recheck=True))
        given_back, corner_mass = [], []
        if self.unclaimed.get("misjoined"):
            corner_mass = self._corner_mass(image, cards)
            given_back = misjoined(cards, corner_mass, left, sure=self.one_deck_report)
            free += [tuple(cards[i].corners[k]) for i, k in given_back]
            mass = np.concatenate([mass, [corner_mass[i][k] for i, k in given_back]]) if given_back else mass
        if not free:
            return cards
        p_not = self.context.not_card(image, free) if self.context is not None else np.zeros(len(free))
        more = read_left(left, free, mass, p_not, float(self.unclaimed["least"]),
                         float(self.unclaimed.get("context_below", 1.0)))
        taken = {d.box for d in more}
        cards = list(cards)
        for i, k in given_back:
            if tuple(float(v) for v in cards[i].corners[k]) in taken:
                cards[i] = without_index(cards[i], k, corner_mass[i])
        return tuple(sorted(cards + list(more), key=lambda d: -d.confidence))

    def _corner_mass(self, image: np.ndarray, cards) -> list:
        """Per reading of two or more indices, the card mass (k, 53) of each index read alone; else None."""
        boxes = [b for c in cards if len(c.corners) >= 2 for b in c.corners]
        mass = iter(self.card_mass(self.classify(image, boxes, recheck=True)))
        return [np.stack([next(mass) for _ in c.corners]) if len(c.corners) >= 2 else None for c in cards]

    def _on_cards(self, image: np.ndarray, cards) -> tuple[tuple, list[float]]:
        """The readings the context check does not call off a face-up card at every corner, and
        how much it trusts each of them: 1 - its surest corner's P(`not`)."""
        boxes = [c.corners or (c.box,) for c in cards]
        p_not = self.context.not_card(image, [b for group in boxes for b in group])
        keep, trust, i = [], [], 0
        for card, group in zip(cards, boxes):
            doubt = float(p_not[i : i + len(group)].min())
            if doubt < self.context_drop:
                keep.append(card)
                trust.append(1.0 - doubt)
            i += len(group)
        return tuple(keep), trust

    def read(
        self,
        image_bgr: np.ndarray,
        rois: list[tuple[int, int, int, int]] | None = None,
        frame_index: int = 0,
        timestamp: float = 0.0,
        source: str = "",
        recheck: bool = False,
        still: StillIndices | None = None,
        look_closer: bool = False,
        scales: tuple[float, ...] = (1.0,),
    ) -> Detections:
        """`still`: a pipeline's memory of where the indices were (kiosk.vision.still); a frame
        that has not moved since reads its cards at those indices without the detector.
        `look_closer`: the found indices are searched again closer (kiosk.vision.closer): with
        `still`, as the last search of a still table; otherwise at once, and the cards read there
        that the first look did not read are added (a single picture)."""
        return self._read_found(image_bgr, rois, frame_index, timestamp, source, recheck, still, look_closer,
                                scales)[0]

    def _read_found(self, image_bgr, rois=None, frame_index=0, timestamp=0.0, source="", recheck=False, still=None,
                    look_closer=False, scales=(1.0,)) -> tuple[Detections, list]:
        """`read`, and the index boxes the first search found (with their detector scores)."""
        image = _as_bgr(image_bgr, source)
        h, w = image.shape[:2]
        t0 = time.perf_counter()
        closer_on = look_closer and self.closer_zoom > 1.0
        region = (0, 0, w, h)
        clean_rois = None
        if rois:
            clean_rois = [_clip_roi(r, w, h) for r in rois]
            clean_rois = [r for r in clean_rois if r[2] > r[0] and r[3] > r[1]]
            if not clean_rois:
                return Detections((), (w, h), frame_index, timestamp, source, {"backend": self.backend}), []
            region = (
                min(r[0] for r in clean_rois),
                min(r[1] for r in clean_rois),
                max(r[2] for r in clean_rois),
                max(r[3] for r in clean_rois),
            )

        def find():
            found = self.find_indices(image, region, scales)
            if clean_rois is not None:
                found = [(b, s) for b, s in found if centre_inside_any(b, clean_rois)]
            return found

        if still is None:
            found, found_in, cut = find(), frame_index, AS_FOUND
        else:
            closer = (lambda first: self._closer(image, first, clean_rois)) if closer_on else None
            found, found_in = still.indices(image, (region, tuple(clean_rois or ())), frame_index, timestamp, find, closer)
            cut = still.cut
        t1 = time.perf_counter()
        cards, probed = self._cards_at(image, found, clean_rois, recheck, cut)
        added, ms_closer = 0, 0.0
        if closer_on and found and still is None:
            tc = time.perf_counter()
            more, _ = self._cards_at(image, self._closer(image, found, clean_rois), clean_rois, recheck, AS_FOUND)
            more = [c for c in more if c.confidence >= self.closer_report]
            joined = join_turned(tuple(cards), tuple(more), floor=self.report_confidence)
            added, cards = len({id(c) for c in joined} & {id(m) for m in more}), list(joined)
            ms_closer = (time.perf_counter() - tc) * 1000
        if self.small_index:
            cards = drop_small(cards, self.small_index, (w, h) if self.small_edge else None)
        if self.twin_reach:
            cards = drop_twins(cards, self.twin_reach)
        t2 = time.perf_counter()
        meta = {
            "backend": self.backend,
            "model": self.model_version,
            "indices": len(found),
            "indices_from": found_in,
            "gap_reads": probed,
            "ms_detect": round((t1 - t0) * 1000, 1),
            "ms_classify": round((t2 - t1) * 1000 - ms_closer, 1),
        }
        if look_closer and still is None:
            meta |= {"closer_reads": added, "ms_closer": round(ms_closer, 1)}
        return Detections(tuple(cards), (w, h), frame_index, timestamp, source, meta), found

    def _cards_at(self, image: np.ndarray, found: list, rois, recheck: bool, cut) -> tuple[list, int]:
        """The cards read at the index boxes `found` (and in the gaps of their rows), and how many
        indices the gaps added."""
        probs = self.classify(image, [b for b, _ in found], recheck, cut)
        corners = self._look_again(image, self.corners_from(found, probs), cut)
        if self.drop_nested:
            corners = drop_nested(corners, self.drop_nested)
        probed = 0
        if self.probe_gaps:
            extra = self.read_gaps(image, corners, rois, recheck)
            corners += extra
            probed = len(extra)
        h, w = image.shape[:2]
        merged = merge_corners(corners, (w, h), faint_below=self.min_confidence if self.faint_partners else 0.0,
                               sure_alone=self.faint_partners)
        return [c for c in merged if c.confidence >= self.min_confidence], probed


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
    `many_decks`: single pictures may show a card twice (the one-deck rule off, kiosk.vision.one_deck).
    `settings`: reader.json keys read in place of the folder's (a stage turned off, say)."""
    model_dir = Path(model_dir)
    meta = {**read_meta(model_dir), **(settings or {})}
    if many_decks:
        meta = {**meta, "one_deck_report": None}
    have = available_backends(model_dir, meta)
    if not have:
        raise KioskError(f"{model_dir}: the card reader's weights are missing (see {READER_JSON})")
    if backend == "auto":
        preferred = meta.get("default_backend")
        backend = preferred if preferred in have else have[0]
    elif backend not in have:
        if backend not in BACKENDS:
            raise KioskError(f"unknown backend '{backend}' (choose from auto, {', '.join(BACKENDS)})")
        make = (f"make them with 'kiosk quantize --models {model_dir}'" if backend == INT8 else
                f"'kiosk bench detector --models {model_dir} --backends {backend}' exports one into a folder of "
                f"runs/reader-exports/ it names; read with --models that folder")
        raise KioskError(f"{model_dir}: no {backend} export of the reader here (have: {', '.join(have)}); {make}")
    det = open_runner(backend, model_dir / meta["detector"]["files"][backend])
    cls = open_runner(backend, model_dir / meta["classifier"]["files"][backend])
    suit_look, rank_look = (look_opener(model_dir, meta, backend, key) for key in ("suit_look", "rank_look"))
    return CardReader(model_dir, backend, det, cls, meta, context_opener(model_dir, meta, backend),
                      veto_opener(model_dir, meta, backend), suit_look() if suit_look else None,
                      rank_look() if rank_look else None)
