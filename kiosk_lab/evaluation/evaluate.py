"""Score the card reader on a labelled set: generated scenes or real photos (Pascal VOC).

Generated scenes (datasets/generated/<set>/scenes/<split>/*.json): a reading matches the
card whose labelled corner boxes its own corners overlap (IoU >= 0.3, one-to-one); a reading left
over that names a labelled card left over and lies on it, on top (read from its art or from a cut
wider than the index), matches it too: it is counted (`right_by_place`), and the figures by index
boxes only are printed beside.
Precision = correct readings / readings, recall = correct readings / face-up cards with a
visible index; a card split into two readings costs precision; a scene is "clean" when every
card is read right and nothing else is read. A card whose every index is under 60% visible is
not labelled (the data contract); a reading that names such a card correctly, once, where it
lies, is right but not asked for: it is counted apart (`unlabelled_right`), neither for nor
against the reader (the strict precision, which counts it wrong, is printed beside).

Photos with Pascal VOC labels (whole-card boxes): a labelled card is read by the most confident
reading whose index lies inside its box. Labelled by rank (data/real-photos-ranks: `nine` ... `ace`,
no suits), only the rank is scored; labelled by card (`Ks`, `Th`, `10h`, `Jk`: a house deck labelled
in any VOC tool), the whole card is.
"""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from kiosk.cards import CLASS_NAMES, CardError, parse_card_name
from kiosk.errors import KioskError
from kiosk.vision.geometry import box_center, inside_polygon, iou
from kiosk.vision.images import IMAGE_SUFFIXES
from kiosk_lab.training.corner_set import corner_items
from kiosk_lab.training.prepare import prefer_full

VOC_RANKS = {"nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}


@dataclass
class EvalResult:
    kind: str  # "scenes" | "real-ranks" | "real-cards"
    source: str
    images: int = 0
    labelled: int = 0  # cards the set says are readable
    readings: int = 0
    correct: int = 0
    clean_images: int = 0
    clean_full_showdowns: int = 0
    full_showdowns: int = 0
    clean_deck_showdowns: int = 0
    deck_showdowns: int = 0  # the full showdowns a Chinese Poker table deals: no joker in them
    confusions: Counter = field(default_factory=Counter)  # (true, read) -> count
    missed: Counter = field(default_factory=Counter)  # true -> count
    extra: Counter = field(default_factory=Counter)  # read -> count
    extra_places: Counter = field(default_factory=Counter)  # extra_place -> count
    correct_by: Counter = field(default_factory=Counter)  # true -> correctly read count
    unlabelled_right: int = 0  # right readings of cards with no labelled index (not in `readings`)
    right_by_place: int = 0  # right readings matched by the card they lie on, not by an index box
    ms: list = field(default_factory=list)
    failures: list = field(default_factory=list)  # (image, what went wrong)
    by_deck: dict = field(default_factory=dict)  # deck design -> [labelled, readings, correct]

    @property
    def precision(self) -> float:
        return self.correct / self.readings if self.readings else 1.0

    @property
    def strict_precision(self) -> float:
        """Precision counting readings of cards with no labelled index as wrong."""
        n = self.readings + self.unlabelled_right
        return self.correct / n if n else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.labelled if self.labelled else 1.0

    @property
    def by_index_boxes(self) -> tuple[float, float]:
        """(precision, recall) were readings matched by index boxes only."""
        right = self.correct - self.right_by_place
        return (right / self.readings if self.readings else 1.0, right / self.labelled if self.labelled else 1.0)

    @property
    def clean_share(self) -> float:
        return self.clean_images / self.images if self.images else 0.0

    @property
    def clean_showdown_share(self) -> float:
        return self.clean_full_showdowns / self.full_showdowns if self.full_showdowns else float("nan")

    @property
    def clean_deck_showdown_share(self) -> float:
        return self.clean_deck_showdowns / self.deck_showdowns if self.deck_showdowns else float("nan")

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "source": self.source,
            "images": self.images,
            "labelled": self.labelled,
            "readings": self.readings,
            "correct": self.correct,
            "precision": round(self.precision, 5),
            "unlabelled_right": self.unlabelled_right,
            "strict_precision": round(self.strict_precision, 5),
            "recall": round(self.recall, 5),
            "right_by_place": self.right_by_place,
            "by_index_boxes": dict(zip(("precision", "recall"), (round(v, 5) for v in self.by_index_boxes))),
            "clean_share": round(self.clean_share, 4),
            "full_showdowns": self.full_showdowns,
            "clean_full_showdown_share": None if not self.full_showdowns else round(self.clean_showdown_share, 4),
            "deck_showdowns": self.deck_showdowns,
            "clean_deck_showdown_share": None if not self.deck_showdowns else round(self.clean_deck_showdown_share, 4),
            "median_ms": round(float(np.median(self.ms)), 1) if self.ms else None,
            "top_confusions": [
                {"true": t, "read": r, "count": n, "kind": confusion_kind(t, r)} for (t, r), n in self.confusions.most_common(15)
            ],
            "confusion_kinds": dict(self.confusion_kinds()),
            "missed": self.missed.most_common(10),
            "extra": self.extra.most_common(10),
            "extra_places": dict(self.extra_places.most_common()),
            "pictures_with_errors": [{"image": image, "errors": what} for image, what in self.failures],
            "by_deck": {
                deck: {"labelled": n, "precision": round(c / r, 4) if r else None, "recall": round(c / n, 4) if n else None}
                for deck, (n, r, c) in sorted(self.by_deck.items())
            },
        }

    def confusion_kinds(self) -> Counter:
        kinds = Counter()
        for (t, r), n in self.confusions.items():
            kinds[confusion_kind(t, r)] += n
        return kinds


def confusion_kind(true: str, read: str) -> str:
    """Name a misreading: '6/9', 'suit s/c', 'rank 8/3', ...

    >>> confusion_kind("6s", "9s"), confusion_kind("Kh", "Kd"), confusion_kind("8c", "3c")
    ('6/9', 'suit same colour d/h', 'rank 3/8')
    """
    if len(true) == 1 or len(read) == 1:  # real photos: rank only
        pair = "/".join(sorted((true, read)))
        return "6/9" if pair == "6/9" else f"rank {pair}"
    if true == "Jk" or read == "Jk":
        return "joker"
    tr, ts, rr, rs = true[0], true[1], read[0], read[1]
    if tr != rr and ts != rs:
        return "rank and suit"
    if tr != rr:
        pair = "/".join(sorted((tr, rr)))
        return "6/9" if pair == "6/9" else f"rank {pair}"
    same_colour = {ts, rs} in ({"h", "d"}, {"s", "c"})
    pair = "/".join(sorted((ts, rs)))
    return f"suit same colour {pair}" if same_colour else f"suit {pair}"


# -- generated scenes ------------------------------------------------------------------


def _scene_items(root: Path, split: str):
    scene_dir = root / "scenes" / split
    if not scene_dir.is_dir():
        raise KioskError(f"{root}: no scenes/{split}/ (a generated set has scenes/<split>/*.json)")
    for path in sorted(scene_dir.glob("*.json")):
        try:
            scene = json.loads(path.read_text())
        except ValueError as err:
            raise KioskError(f"{path}: not valid JSON ({err})") from err
        yield root / "images" / split / scene["image"], scene


def is_full_showdown(scene: dict) -> bool:
    """A showdown whose 52 cards all lie face up: the scenes the clean-showdown figure counts."""
    return scene.get("kind") == "showdown" and sum(c.get("face_up", True) for c in scene["cards"]) >= 52


def is_deck_showdown(scene: dict) -> bool:
    """A full showdown of the 52-card deck Chinese Poker is dealt from: the generator swaps the joker in
    for a card in a quarter of its showdowns (to show the reader jokers), which no such table deals.

    >>> deal = [{"card": f"{r}{s}"} for r in "23456789TJQKA" for s in "cdhs"]
    >>> is_full_showdown({"kind": "showdown", "cards": deal}), is_deck_showdown({"kind": "showdown", "cards": deal})
    (True, True)
    >>> swapped = [{"card": "Jk"}] + deal[1:]
    >>> is_full_showdown({"kind": "showdown", "cards": swapped}), is_deck_showdown({"kind": "showdown", "cards": swapped})
    (True, False)
    """
    return is_full_showdown(scene) and not any(c["card"] == "Jk" for c in scene["cards"])


def score_scene(scene: dict, cards, places: Counter | None = None,
                by_place: list | None = None) -> tuple[int, int, list, list, list, list, int]:
    """(labelled, readings, cards read right, confusions, missed, extra, unlabelled right) for one scene.

    `readings` leaves out the `unlabelled right` ones: readings matching no labelled index
    that name a face-up card with no labelled index, lying under the reading, read once.
    `places`, when given, counts where each extra reading lies (`extra_place`); `by_place`, when
    given, collects the right readings matched by the card they lie on rather than by an index box.
    """
    truth = [c for c in scene["cards"] if c.get("face_up", True) and c.get("corners")]
    pairs = []
    for pi, det in enumerate(cards):
        for ti, card in enumerate(truth):
            best = max((iou(a, b) for a in det.corners or (det.box,) for b in card["corners"]), default=0.0)
            if best >= 0.3:
                pairs.append((str(det.card) == card["card"], best, pi, ti))
    pairs.sort(reverse=True)  # a reading matches a label of its own card first, as detection benchmarks match by class
    used_p, used_t = set(), set()
    right, confusions = [], []
    for _, _, pi, ti in pairs:
        if pi in used_p or ti in used_t:
            continue
        used_p.add(pi)
        used_t.add(ti)
        t, r = truth[ti]["card"], str(cards[pi].card)
        if t == r:
            right.append(t)
        else:
            confusions.append((t, r))
    left = {truth[ti]["card"]: ti for ti in range(len(truth)) if ti not in used_t}
    for pi in sorted(set(range(len(cards))) - used_p, key=lambda i: -cards[i].confidence):
        ti = left.get(str(cards[pi].card))
        if ti is not None and _top_card(scene, cards[pi].box) is truth[ti]:
            used_p.add(pi)
            used_t.add(ti)
            del left[truth[ti]["card"]]
            right.append(truth[ti]["card"])
            if by_place is not None:
                by_place.append(truth[ti]["card"])
    missed = [truth[i]["card"] for i in range(len(truth)) if i not in used_t]
    unlabelled = {c["card"]: c for c in scene["cards"] if c.get("face_up", True) and not c.get("corners")}
    extra, bonus = [], 0
    for i in range(len(cards)):
        if i in used_p:
            continue
        name = str(cards[i].card)
        under = unlabelled.get(name)
        if under is not None and inside_polygon(box_center(cards[i].box), under["polygon"]):
            del unlabelled[name]  # a second reading of it is an error again
            bonus += 1
        else:
            extra.append(name)
            if places is not None:
                places[extra_place(scene, name, cards[i].box)] += 1
    return len(truth), len(cards) - bonus, right, confusions, missed, extra, bonus


def _top_card(scene: dict, box) -> dict | None:
    """The card on top at the box's centre (scene cards are listed in the order they were laid)."""
    under = [c for c in scene["cards"] if inside_polygon(box_center(box), c["polygon"])]
    return under[-1] if under else None


def extra_place(scene: dict, name: str, box) -> str:
    """Where a reading that matches no labelled index lies: on the card it names (read twice, or at an
    index too covered to be labelled), on a face-down card (a back that pictures cards), on another
    face-up card, or on no card at all (felt, chips, the deck's stub)."""
    under = [c for c in scene["cards"] if inside_polygon(box_center(box), c["polygon"])]
    if not under:
        return "no card (felt, props, the stub)"
    if any(c.get("face_up", True) and c["card"] == name for c in under):
        return "the card it names"
    if not under[-1].get("face_up", True):  # scene cards are listed in the order they were laid
        return "a face-down card"
    return "another face-up card"


def _read_all(reader, items, result: EvalResult, progress=None):
    """Read each (image path, labels) item, timing the reader: yields (path, labels, detections).
    An unreadable image is a failure of the set; progress counts each image once it is scored."""
    for n, (image_path, labels) in enumerate(items):
        image = cv2.imread(str(image_path))
        if image is None:
            result.failures.append((str(image_path), "unreadable image"))
            continue
        t0 = time.perf_counter()
        dets = reader.read_picture(image, source=str(image_path))
        result.ms.append((time.perf_counter() - t0) * 1000)
        yield image_path, labels, dets
        if progress:
            progress(n + 1, len(items))


def evaluate_scenes(reader, root: Path, split: str = "test", limit: int | None = None, progress=None) -> EvalResult:
    result = EvalResult("scenes", f"{root} [{split}]")

    items = prefer_full(list(_scene_items(root, split)))
    if limit:
        items = items[:limit]
    if not items:
        raise KioskError(f"{root}: scenes/{split}/ is empty")
    for image_path, scene, dets in _read_all(reader, items, result, progress):
        places, by_place = Counter(), []
        labelled, readings, right, confusions, missed, extra, bonus = score_scene(scene, dets.cards, places, by_place)
        result.extra_places.update(places)
        result.right_by_place += len(by_place)
        correct = len(right)
        result.unlabelled_right += bonus
        result.correct_by.update(right)
        result.images += 1
        result.labelled += labelled
        result.readings += readings
        result.correct += correct
        tally = result.by_deck.setdefault(scene.get("deck", "?"), [0, 0, 0])
        tally[0], tally[1], tally[2] = tally[0] + labelled, tally[1] + readings, tally[2] + correct
        result.confusions.update(confusions)
        result.missed.update(missed)
        result.extra.update(extra)
        clean = correct == labelled == readings
        result.clean_images += clean
        if is_full_showdown(scene):
            result.full_showdowns += 1
            result.clean_full_showdowns += clean
            if is_deck_showdown(scene):
                result.deck_showdowns += 1
                result.clean_deck_showdowns += clean
        if not clean:
            result.failures.append((image_path.name, _scene_errors(scene, correct, labelled, readings, missed, confusions, places)))
    return result


def _missed_and_misread(missed, confusions) -> list[str]:
    return (["missed " + " ".join(missed)] if missed else []) + [f"{t} read as {r}" for t, r in confusions]


def _scene_errors(scene, correct, labelled, readings, missed, confusions, places) -> str:
    """One line naming what went wrong in a scene, for finding the pictures behind the figures.

    >>> _scene_errors({"deck": "kenney", "kind": "showdown"}, 50, 52, 51, ["Jc", "Ac"], [("Qd", "Qh")],
    ...               Counter({"a face-down card": 1}))
    'kenney showdown: 50/52 right, 51 read; missed Jc Ac; Qd read as Qh; extra on a face-down card 1'
    """
    parts = [f"{scene.get('deck', '?')} {scene.get('kind', 'scene')}: {correct}/{labelled} right, {readings} read"]
    parts += _missed_and_misread(missed, confusions)
    if places:
        parts.append("extra on " + ", ".join(f"{where} {n}" for where, n in places.most_common()))
    return "; ".join(parts)


# -- real photos (Pascal VOC, ranks only) -------------------------------------------------


def match_ranks(boxes, reads) -> tuple[list, list]:
    """Each labelled whole card takes at most one reading whose index lies on it (5% margin), and
    each reading reads at most one card: first, surest first, the readings of a card's own rank,
    then a card still without one takes the surest reading left on it (a misread). Overlapping
    cards put one card's index on the other's box; without this a reading counted for both.

    boxes: [(rank, (x1, y1, x2, y2))]; reads: [(rank, confidence, index centres)]. Returns the
    reading each card took (index or None) and, per reading, the first card it lies on (or None).

    >>> king, queen = ("K", (0, 0, 100, 140)), ("Q", (60, 0, 160, 140))  # the queen over the king
    >>> match_ranks([king, queen], [("Q", 0.95, [(70, 10)]), ("K", 0.78, [(5, 10)])])
    ([1, 0], [0, 0])
    >>> match_ranks([king], [("Q", 0.9, [(5, 10)]), ("Jk", 0.8, [(500, 500)])])
    ([0], [0, None])
    """
    on = []
    for _, _, pts in reads:
        hits = []
        for k, (_, (x1, y1, x2, y2)) in enumerate(boxes):
            mx, my = (x2 - x1) * 0.05, (y2 - y1) * 0.05
            if any(x1 - mx <= px <= x2 + mx and y1 - my <= py <= y2 + my for px, py in pts):
                hits.append(k)
        on.append(hits)
    took: list = [None] * len(boxes)
    surest = sorted(range(len(reads)), key=lambda i: -reads[i][1])
    for own_rank in (True, False):
        for i in surest:
            if i in took:
                continue
            k = next((k for k in on[i] if took[k] is None and (boxes[k][0] == reads[i][0]) == own_rank), None)
            if k is not None:
                took[k] = i
    return took, [hits[0] if hits else None for hits in on]


def _photo_errors(correct, labelled, readings, missed, confusions, doubles, extras) -> str:
    """One line naming what went wrong in a photo labelled by rank (whole-card boxes).

    >>> _photo_errors(1, 3, 4, ["K"], [("Q", "9")], [("A", "Jk")], ["Kh"])
    '1/3 right, 4 read; missed K; Q read as 9; A read a second time as Jk; extra Kh on no labelled card'
    """
    parts = [f"{correct}/{labelled} right, {readings} read"] + _missed_and_misread(missed, confusions)
    parts += [f"{t} read a second time as {r}" for t, r in doubles]
    if extras:
        parts.append("extra " + " ".join(extras) + " on no labelled card")
    return "; ".join(parts)


def voc_label(name: str) -> tuple[str, str] | None:
    """What a VOC object's name labels: a rank (the real-photos set's words) or a whole card.

    >>> voc_label("King"), voc_label("10h"), voc_label("JK"), voc_label("joker"), voc_label("chip")
    (('rank', 'K'), ('card', 'Th'), ('card', 'Jk'), ('card', 'Jk'), None)
    """
    text = name.strip()
    if text.lower() in VOC_RANKS:
        return "rank", VOC_RANKS[text.lower()]
    try:
        return "card", str(parse_card_name(text))
    except CardError:
        return None


def _voc_items(root: Path):
    """(image, [(rank or card, box)], "rank" | "card") per labelled photo; a label that names neither is refused."""
    for xml_path in sorted(root.glob("*.xml")):
        try:
            tree = ET.parse(xml_path).getroot()
        except ET.ParseError as exc:
            raise KioskError(f"{xml_path}: not a readable Pascal VOC file ({exc})") from None
        name = tree.findtext("filename") or ""
        image_path = root / name
        if not image_path.is_file():
            stem = xml_path.with_suffix("")
            image_path = next((p for p in root.glob(stem.name + ".*") if p.suffix.lower() in IMAGE_SUFFIXES), image_path)
        boxes, kinds = [], set()
        for n, obj in enumerate(tree.findall("object"), 1):
            text = obj.findtext("name") or ""
            label = voc_label(text)
            if label is None:
                raise KioskError(f"{xml_path}: object {n} is labelled {text!r}: name a rank (nine, ten, jack, "
                                 "queen, king, ace) or a card (Ks, Th, 10h, Jk or joker)")
            bb = obj.find("bndbox")
            try:
                box = tuple(float(bb.findtext(k)) for k in ("xmin", "ymin", "xmax", "ymax"))
            except (AttributeError, TypeError, ValueError):
                raise KioskError(f"{xml_path}: object {n} ({text}) has no bndbox with xmin, ymin, xmax, ymax") from None
            kinds.add(label[0])
            boxes.append((label[1], box))
        yield image_path, boxes, kinds


def evaluate_photos(reader, root: Path, limit: int | None = None, progress=None) -> EvalResult:
    """Photos with VOC labels, scored by rank ("real-ranks") or, labelled by card, by card ("real-cards")."""
    labelled = list(_voc_items(root))
    if not labelled:
        raise KioskError(f"{root}: no Pascal VOC .xml labels here")
    kinds = set().union(*(k for _, _, k in labelled))
    if len(kinds) > 1:
        first = {kind: next(p.name for p, _, k in labelled if kind in k) for kind in kinds}
        raise KioskError(f"{root}: some labels name ranks ({first['rank']}) and some cards ({first['card']}): "
                         "label every photo of a set the same way")
    by_card = kinds == {"card"}
    result = EvalResult("real-cards" if by_card else "real-ranks", str(root))
    items = [(path, boxes) for path, boxes, _ in labelled]
    if limit:
        items = items[:limit]
    for image_path, boxes, dets in _read_all(reader, items, result, progress):
        result.images += 1
        result.labelled += len(boxes)
        reads = [(str(d.card) if by_card else d.card.rank_char or "Jk", d.confidence,
                  [box_center(c) for c in d.corners] or [d.center]) for d in dets.cards]
        took, inside = match_ranks(boxes, reads)
        correct, missed, confusions = 0, [], []
        for (truth, _), i in zip(boxes, took):  # truth: a rank, or a card where labelled by card
            if i is None:
                result.missed[truth] += 1
                missed.append(truth)
            elif reads[i][0] == truth:
                correct += 1
                result.correct_by[truth] += 1
            else:
                result.confusions[(truth, reads[i][0])] += 1
                confusions.append((truth, reads[i][0]))
        # A reading no card took: read a second time where a labelled card lies, or on no card.
        left = [i for i in range(len(reads)) if i not in took]
        doubles = [(boxes[inside[i]][0], str(dets.cards[i].card)) for i in left if inside[i] is not None]
        extras = [str(dets.cards[i].card) for i in left if inside[i] is None]
        result.extra.update(extras)
        result.readings += len(reads)
        result.correct += correct
        clean = correct == len(boxes) == len(reads)
        result.clean_images += clean
        if not clean:
            result.failures.append((image_path.name, _photo_errors(correct, len(boxes), len(reads), missed,
                                                                   confusions, doubles, extras)))
    return result


def evaluate_corners(reader, root: Path, split: str = "test", limit: int | None = None,
                     progress=None) -> EvalResult:
    """Photos with every corner index boxed (YOLO labels, real-photos-corners): each photo's set of cards
    read against the set its boxes name (the two corners of a card are one card)."""
    result = EvalResult("real-corners", f"{root} [{split}]")
    items = list(corner_items(root, split))[:limit]
    for image_path, boxes, dets in _read_all(reader, items, result, progress):
        truth = {card for card, _ in boxes}
        reads = sorted(dets.cards, key=lambda d: -d.confidence)
        left = set(truth)
        wrong = []
        for d in reads:
            if str(d.card) in left:
                left.discard(str(d.card))
            else:
                wrong.append(d)
        correct = len(truth) - len(left)
        _tally_corner_errors(result, boxes, left, wrong)
        result.images += 1
        result.labelled += len(truth)
        result.readings += len(reads)
        result.correct += correct
        for card in truth - left:
            result.correct_by[card] += 1
        clean = not left and not wrong
        result.clean_images += clean
        if not clean:
            result.failures.append((image_path.name, f"{correct}/{len(truth)} right, {len(reads)} read; "
                                    f"missed {' '.join(sorted(left)) or '-'}; "
                                    f"wrong {' '.join(str(d.card) for d in wrong) or '-'}"))
    return result


def _tally_corner_errors(result: EvalResult, boxes, missed: set, wrong: list) -> None:
    """A wrong reading lying on a missed card's corner is a confusion; the others are misses and extras."""
    for d in wrong:
        points = [box_center(c) for c in d.corners] or [d.center]
        on = [card for card, (x1, y1, x2, y2) in boxes
              if card in missed and any(x1 <= x <= x2 and y1 <= y <= y2 for x, y in points)]
        if on:
            result.confusions[(on[0], str(d.card))] += 1
            missed = missed - {on[0]}
        else:
            result.extra[str(d.card)] += 1
    for card in missed:
        result.missed[card] += 1


def detect_set_kind(path: Path) -> str:
    if (path / "scenes").is_dir():
        return "scenes"
    if any(path.glob("*.xml")):
        return "photos"
    if (path / "labels").is_dir() and (path / "split.csv").is_file():
        return "corners"
    raise KioskError(
        f"{path}: not a labelled set I know (a generated set with scenes/, or Pascal VOC .xml beside images)"
    )


# -- figures ---------------------------------------------------------------------------


def confusion_matrix(result: EvalResult, classes: list[str]) -> np.ndarray:
    """Rows: true class, columns: read class + a last column 'missed'; diagonal from correct counts."""
    index = {c: i for i, c in enumerate(classes)}
    m = np.zeros((len(classes), len(classes) + 1), dtype=np.int64)
    for (t, r), n in result.confusions.items():
        if t in index and r in index:
            m[index[t], index[r]] += n
    for t, n in result.missed.items():
        if t in index:
            m[index[t], -1] += n
    return m


def plot_confusion(result: EvalResult, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    classes = ["9", "T", "J", "Q", "K", "A"] if result.kind == "real-ranks" else list(CLASS_NAMES)
    m = confusion_matrix(result, classes).astype(float)
    if result.correct_by:
        for c, n in result.correct_by.items():
            if c in classes:
                m[classes.index(c), classes.index(c)] += n
    rows = m.sum(axis=1, keepdims=True)
    norm = np.divide(m, rows, out=np.zeros_like(m), where=rows > 0)
    fig, ax = plt.subplots(figsize=(14, 12) if len(classes) > 10 else (7, 6))
    im = ax.imshow(norm, cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(len(classes) + 1), classes + ["missed"], rotation=90, fontsize=7)
    ax.set_yticks(range(len(classes)), classes, fontsize=7)
    ax.set_xlabel("read as")
    ax.set_ylabel("true card")
    ax.set_title(f"Card reader confusion (row-normalised) - {result.source}", fontsize=9)
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
