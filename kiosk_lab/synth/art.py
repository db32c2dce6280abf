"""Deck designs: card art on disk and the measured corner-index boxes of each card.

A design is a folder holding `deck.json` and one PNG (BGRA, transparent outside the
card) per card, named by class (`As.png`, `Th.png`, `Jk.png`) plus `back.png`:

    {"id": "kennard-2c", "name": "...", "family": "kennard", "licence": "CC0-1.0",
     "source": "...", "back": "back.png",
     "cards": {"As": {"file": "As.png", "index": [[x1, y1, x2, y2], ...]}, ...}}

`index` holds the card's corner-index boxes in pixels of its PNG (rank glyph plus the
suit pip under it), measured from the art by `measure_index` when the deck is made.
`family` groups near-duplicate designs so a split by design keeps them together.
Committed CC0/public-domain designs live in `datasets/art/`, fetched ones in
`datasets/cache/art/` (made by `python datasets/build.py fetch`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from kiosk.cards import CLASS_NAMES

REPO_ROOT = Path(__file__).resolve().parents[2]
COMMITTED_ART = REPO_ROOT / "datasets" / "art"
CACHED_ART = REPO_ROOT / "datasets" / "cache" / "art"

Box = tuple[float, float, float, float]
PROCEDURAL_FAMILY = "procedural"
MIN_CARDS = 40  # a design is used when at least this many of its cards have a measured index


@dataclass(frozen=True)
class CardArt:
    name: str
    image: np.ndarray  # BGRA uint8, card outline = alpha
    index: tuple[Box, ...]  # corner-index boxes in pixels of `image`


@dataclass(frozen=True)
class Deck:
    id: str
    family: str
    licence: str
    source: str
    cards: dict[str, CardArt]
    back: np.ndarray
    committed: bool

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the card art."""
        h, w = self.back.shape[:2]
        return w, h

    def has(self, card: str) -> bool:
        return card in self.cards and len(self.cards[card].index) > 0


def art_dirs() -> list[Path]:
    """Where designs are looked for: committed art first, then the fetch cache.

    `KIOSK_ART_DIRS` (os.pathsep-separated) adds folders in front.
    """
    extra = [Path(p) for p in os.environ.get("KIOSK_ART_DIRS", "").split(os.pathsep) if p]
    return extra + [COMMITTED_ART, CACHED_ART]


def _deck_folders() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for root in art_dirs():
        if not root.is_dir():
            continue
        for meta in sorted(root.glob("*/deck.json")):
            found.setdefault(meta.parent.name, meta.parent)
    return found


def deck_folder(deck_id: str) -> Path | None:
    """The folder a design is read from (the first art folder holding it), or None."""
    return _deck_folders().get(deck_id)


def list_decks(committed_only: bool = False, procedural: bool = False) -> list[str]:
    """Design ids available on this machine (committed ones always, fetched when cached),
    leaving out designs with fewer than MIN_CARDS measured cards.

    Procedural designs (`kiosk_lab.synth.procedural`) are listed only with `procedural=True`: a data
    set takes them when named, so the commands of earlier sets keep their lists of designs.
    """
    ids = []
    for deck_id, folder in _deck_folders().items():
        if committed_only and folder.parent != COMMITTED_ART:
            continue
        meta = json.loads((folder / "deck.json").read_text())
        if len(meta["cards"]) < MIN_CARDS:
            continue  # too few cards with a measured index to be a deck worth training on
        if meta.get("family") == PROCEDURAL_FAMILY and not procedural:
            continue
        ids.append(deck_id)
    return sorted(ids)


def deck_info(deck_id: str) -> dict:
    """The deck's `deck.json` (without loading images)."""
    folder = _deck_folders().get(deck_id)
    if folder is None:
        raise KeyError(f"no deck design {deck_id!r} (known: {', '.join(list_decks())})")
    return json.loads((folder / "deck.json").read_text())


def _read_png(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise FileNotFoundError(f"cannot read card art {path}")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGRA)
    elif image.shape[2] == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    return image


@lru_cache(maxsize=48)  # a data set cycles through every design; a deck is ~9 MB
def load_deck(deck_id: str) -> Deck:
    folder = _deck_folders().get(deck_id)
    if folder is None:
        raise KeyError(f"no deck design {deck_id!r} (known: {', '.join(list_decks())})")
    meta = json.loads((folder / "deck.json").read_text())
    cards = {}
    for name, entry in meta["cards"].items():
        if name not in CLASS_NAMES:
            raise ValueError(f"{folder}/deck.json: {name!r} is not a card class")
        boxes = tuple(tuple(float(v) for v in box) for box in entry.get("index", []))
        cards[name] = CardArt(name, _read_png(folder / entry["file"]), boxes)
    return Deck(
        id=meta["id"],
        family=meta.get("family", meta["id"]),
        licence=meta.get("licence", "unknown"),
        source=meta.get("source", ""),
        cards=cards,
        back=_read_png(folder / meta["back"]),
        committed=folder.parent == COMMITTED_ART,
    )


# ---------------------------------------------------------------------------
# Measuring the corner index from the art


INK_LINE = 25  # a pixel is ink where a channel differs from the paper's by more than this
# A face scanned and saved as JPEG rings around its glyphs past 25 (specks that join or cut the index's chain of
# blobs): `add-deck` measures at each of these lines and keeps the one that measures the most cards.
SCAN_INK_LINES = (25, 40, 60, 80)


def ink_mask(image: np.ndarray, line: int = INK_LINE) -> np.ndarray:
    """Pixels of a card that are printed (differ clearly from the card's paper: by more than `line`)."""
    bgr = image[:, :, :3].astype(np.int16)
    alpha = image[:, :, 3]
    h, w = alpha.shape
    # (borders count as background: cards are cropped tight to their outline)
    zero = {"borderType": cv2.BORDER_CONSTANT, "borderValue": 0}
    inside = cv2.erode((alpha > 200).astype(np.uint8), np.ones((3, 3), np.uint8),
                       iterations=max(2, round(0.035 * w)), **zero)
    # The paper colour: the commonest colour of a band just inside the card's edge (a
    # court card's picture can cover most of the card, so a plain median is not enough).
    band = inside - cv2.erode(inside, np.ones((3, 3), np.uint8), iterations=max(2, round(0.04 * w)), **zero)
    pix = bgr[band > 0].reshape(-1, 3)
    if len(pix) == 0:
        pix = bgr[inside > 0].reshape(-1, 3)
    if len(pix) == 0:  # nothing inside the outline (a sliver, not a card)
        return np.zeros((h, w), np.uint8)
    q = (pix // 24).astype(np.int32)
    keys = q[:, 0] * 10000 + q[:, 1] * 100 + q[:, 2]
    values, counts = np.unique(keys, return_counts=True)
    paper = pix[keys == values[np.argmax(counts)]].mean(axis=0)
    diff = np.abs(bgr - paper).max(axis=2)
    ink = ((diff > line) & (inside > 0)).astype(np.uint8)
    # frame lines printed around the picture or along the edge are not glyphs: remove long
    # straight runs so a rank touching such a line stays a blob of its own
    lines = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, max(8, int(0.3 * w))), np.uint8), **zero)
    lines |= cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((max(8, int(0.3 * h)), 1), np.uint8), **zero)
    return ink & (1 - lines)


def _components(mask: np.ndarray) -> list[tuple[int, int, int, int, int]]:
    """(x1, y1, x2, y2, area) of each connected component (x2/y2 exclusive)."""
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        out.append((int(x), int(y), int(x + w), int(y + h), int(area)))
    return out


def _index_in_top_left(image: np.ndarray, max_width: float = 0.33, line: int = INK_LINE) -> Box | None:
    found = _index_parts(image, max_width, line)
    return None if found is None else found[0]


def _index_parts(image: np.ndarray, max_width: float = 0.33, line: int = INK_LINE) -> tuple[Box, bool] | None:
    """The index box in the card's top-left corner, or None when there is none.

    Seed = the rank glyph: the first sizeable ink blob near the top-left corner. Then
    the blobs beside it on the same line (the "0" of "10") and the chain of blobs
    straight below it (the suit pip; J-O-K-E-R written downwards) are added.
    """
    h, w = image.shape[:2]
    mask = ink_mask(image, line)
    comps = [c for c in _components(mask) if c[4] >= max(4, (w * h) // 20000)]
    min_glyph = 0.035 * h
    seeds = [
        c for c in comps
        if c[0] < 0.16 * w and c[1] < 0.14 * h and c[3] - c[1] >= min_glyph
        and c[2] - c[0] < 0.3 * w and c[3] - c[1] < 0.3 * h
    ]
    if not seeds:
        return None
    seed = min(seeds, key=lambda c: c[0] + c[1])
    x1, y1, x2, y2, _ = seed
    glyph_h = y2 - y1
    used = {seed}
    # same line: digits of "10" (similar height, vertically aligned, small gap)
    grew = True
    while grew:
        grew = False
        for c in comps:
            if c in used:
                continue
            ch = c[3] - c[1]
            overlap = min(y2, c[3]) - max(y1, c[1])
            gap = c[0] - x2
            if (0.85 * glyph_h <= ch <= 1.15 * glyph_h and overlap >= 0.6 * ch and abs(c[1] - y1) <= 0.15 * glyph_h
                    and -2 <= gap <= 0.3 * glyph_h):
                x2 = max(x2, c[2])
                y1, y2 = min(y1, c[1]), max(y2, c[3])
                used.add(c)
                grew = True
    # chain downwards: the suit pip (and any more letters of a vertical word)
    col_x1, col_x2 = x1, x2
    max_pip_w = max(1.6 * (col_x2 - col_x1) + 2, 1.1 * glyph_h)
    has_pip = False
    links = 6 if max_width > 0.33 else 1  # a card: rank + one pip; a joker: J-O-K-E-R downwards
    grew = True
    while grew and links > 0:
        grew = False
        links -= 1
        below = [
            c for c in comps
            if c not in used and c[1] >= y2 - 2 and c[1] - y2 <= 0.6 * glyph_h
            and col_x1 - 0.15 * (col_x2 - col_x1) <= (c[0] + c[2]) / 2 <= col_x2 + 0.15 * (col_x2 - col_x1)
            and c[2] - c[0] <= max_pip_w and c[3] - c[1] <= 1.6 * glyph_h
        ]
        if below:
            has_pip = True
            c = min(below, key=lambda c: c[1])
            x1, x2 = min(x1, c[0]), max(x2, c[2])
            y2 = max(y2, c[3])
            used.add(c)
            # pieces of the same pip/letter at that height
            for d in comps:
                if (d not in used and d[1] < c[3] and d[3] > c[1] and d[0] <= c[2] + 1 and d[2] >= c[0] - 1
                        and d[2] - d[0] <= max_pip_w and d[3] - d[1] <= 1.6 * glyph_h):
                    x1, x2, y2 = min(x1, d[0]), max(x2, d[2]), max(y2, d[3])
                    used.add(d)
            grew = True
    if y2 - y1 > 0.55 * h or x2 - x1 > max_width * w:
        return None
    pad = max(1.0, 0.06 * glyph_h)
    return (max(0.0, x1 - pad), max(0.0, y1 - pad), min(float(w), x2 + pad), min(float(h), y2 + pad)), has_pip


def measure_index(image: np.ndarray, max_width: float = 0.33, line: int = INK_LINE) -> tuple[Box, ...]:
    """Corner-index boxes of one card (pixels), found from the art.

    Looks in the top-left corner, and in the bottom-right corner (by measuring the card
    turned 180 degrees). `max_width` (share of the card width) is wider for jokers that
    write JOKER across the corner. Decks that print the index top-right (KDE "oxygen") are
    measured the same way on the card mirrored left-right; the boxes are mapped back,
    the art itself is never mirrored. `line`: how far from the paper's colour ink is (`ink_mask`).
    """
    h, w = image.shape[:2]
    boxes: list[Box] = []
    tl_parts = _index_parts(image, max_width, line)
    br_parts = _index_parts(image[::-1, ::-1], max_width, line)
    # a corner showing the rank without its pip (while the other corner has both) cannot
    # name the card: not an index. Unless it is as tall as the other corner's rank and pip:
    # then the pip touches the rank and was measured as one blob with it (KDE konqi-modern)
    if tl_parts and br_parts and tl_parts[1] != br_parts[1] and not _same_height(tl_parts[0], br_parts[0]):
        if tl_parts[1]:
            br_parts = None
        else:
            tl_parts = None
    tl = tl_parts[0] if tl_parts else None
    br = br_parts[0] if br_parts else None
    if tl is None and br is None:
        tr = _index_in_top_left(image[:, ::-1], max_width, line)
        bl = _index_in_top_left(image[::-1, :], max_width, line)
        if tr is not None:
            boxes.append((w - tr[2], tr[1], w - tr[0], tr[3]))
        if bl is not None:
            boxes.append((bl[0], h - bl[3], bl[2], h - bl[1]))
        return tuple(boxes)
    if tl is not None:
        boxes.append(tl)
    if br is not None:
        boxes.append((w - br[2], h - br[3], w - br[0], h - br[1]))
    ink = ink_mask(image, line)
    if len(boxes) == 1:
        # the other corner's glyphs may touch a pip or the picture, so that they do not measure
        # as an index of their own; the same place turned 180 degrees counts when its ink is the
        # found index's turned (an unlabelled visible index teaches the detector to skip it)
        found = boxes[0]
        turned = (w - found[2], h - found[3], w - found[0], h - found[1])
        if _same_glyphs(ink, found, turned, least=0.6):
            boxes = [found, turned] if tl is not None else [turned, found]
    # some decks (Dondorf) print the index in all four corners: the other two count when
    # they look like the first (same size, same ink), never a pip that happens to sit there
    ref = tl
    if ref is not None:
        tr_parts = _index_parts(image[:, ::-1], max_width, line)
        bl_parts = _index_parts(image[::-1, :], max_width, line)
        extra = []
        if tr_parts is not None and tr_parts[1] == tl_parts[1]:
            tr = tr_parts[0]
            extra.append((w - tr[2], tr[1], w - tr[0], tr[3]))
        if bl_parts is not None and bl_parts[1] == tl_parts[1]:
            bl = bl_parts[0]
            extra.append((bl[0], h - bl[3], bl[2], h - bl[1]))
        for box in extra:
            if _same_glyphs(ink, ref, box):
                boxes.append(box)
    return tuple(boxes)


def _same_height(a: Box, b: Box) -> bool:
    """Two corner boxes of one card about as tall (a rank alone is about half of rank and pip).

    >>> _same_height((2, 2, 40, 80), (5, 4, 40, 80)), _same_height((2, 2, 40, 40), (5, 4, 40, 80))
    (True, False)
    """
    return 0.85 <= (a[3] - a[1]) / (b[3] - b[1]) <= 1.18


def _same_glyphs(ink: np.ndarray, a: Box, b: Box, least: float = 0.75) -> bool:
    if not (_same_height(b, a) and 0.7 <= (b[2] - b[0]) / (a[2] - a[0]) <= 1.43):
        return False

    def crop(box):
        x1, y1, x2, y2 = (int(round(v)) for v in box)
        return cv2.resize(ink[y1:y2, x1:x2].astype(np.float32), (24, 32), interpolation=cv2.INTER_AREA)

    ca, cb = crop(a), crop(b)
    ca, cb = ca - ca.mean(), cb - cb.mean()
    denom = float(np.sqrt((ca * ca).sum() * (cb * cb).sum()))
    # either printed upright in that corner or turned 180 degrees
    return denom > 0 and max(float((ca * cb).sum()), float((ca * cb[::-1, ::-1]).sum())) / denom > least


def drop_outliers(meta: dict) -> dict:
    """Drop index boxes far from the design's usual index height (a mis-measured glyph fragment
    or a box that swallowed a picture); the card is skipped when no box is left."""
    heights = [b[3] - b[1] for c, e in meta["cards"].items() if c != "Jk" for b in e["index"]]
    if len(heights) < 10:
        return meta
    med = float(np.median(heights))
    for card in list(meta["cards"]):
        if card == "Jk":
            continue
        boxes = [b for b in meta["cards"][card]["index"] if 0.75 * med <= b[3] - b[1] <= 1.35 * med]
        if boxes:
            meta["cards"][card]["index"] = boxes
        else:
            del meta["cards"][card]
            meta.setdefault("skipped", {})[card] = f"index height far from the design's {med:.0f} px"
    return meta


def write_deck(
    folder: Path,
    deck_id: str,
    images: dict[str, np.ndarray],
    back: np.ndarray,
    *,
    name: str,
    family: str,
    licence: str,
    source: str,
    height: int | None = None,
    index: dict[str, tuple[Box, ...]] | None = None,
    ink_lines: tuple[int, ...] = (INK_LINE,),
) -> dict:
    """Write a design folder: PNGs (resized to `height` px tall) and deck.json with measured indices.

    `index` gives the boxes of designs that know where they drew their indices (procedural ones,
    at the PNGs' size): used as they are, not measured. Otherwise each card is measured at each of
    `ink_lines` (`ink_mask`) and the line that measures the most cards is kept (the first on a tie;
    written as `ink_line` in deck.json where more than one was tried, for `remeasure`).

    Cards whose index cannot be found (e.g. a joker with no corner index) are listed under
    "skipped" and not used (their PNG is kept so `remeasure` can try again).
    Returns the deck.json content.
    """
    folder.mkdir(parents=True, exist_ok=True)

    def sized(img: np.ndarray) -> np.ndarray:
        if height is None or img.shape[0] == height:
            return img
        width = round(img.shape[1] * height / img.shape[0])
        return cv2.resize(img, (width, height), interpolation=cv2.INTER_AREA)

    meta = {"id": deck_id, "name": name, "family": family, "licence": licence, "source": source,
            "back": "back.png", "cards": {}, "skipped": {}}
    if index:
        meta["index_boxes"] = "drawn"  # known exactly: `remeasure` leaves them
    ref_size, faces = None, {}
    for card in CLASS_NAMES:
        if card not in images:
            continue
        img = sized(images[card])
        if ref_size is None:
            ref_size = img.shape[:2]
        elif img.shape[:2] != ref_size:
            img = cv2.resize(img, (ref_size[1], ref_size[0]), interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(folder / f"{card}.png"), img, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        faces[card] = img
    if index:
        _add_boxes(meta, {card: index[card] for card in faces})
    else:
        best = None
        for line in ink_lines:
            measured = {"cards": {}, "skipped": {}}
            _add_boxes(measured, {card: measure_index(img, 0.55 if card == "Jk" else 0.33, line)
                                  for card, img in faces.items()})
            drop_outliers(measured)
            if best is None or len(measured["cards"]) > len(best[1]["cards"]):
                best = (line, measured)
        meta["cards"], meta["skipped"] = best[1]["cards"], best[1]["skipped"]
        if len(ink_lines) > 1:
            meta["ink_line"] = best[0]
    back = sized(back)
    if ref_size is not None and back.shape[:2] != ref_size:
        back = cv2.resize(back, (ref_size[1], ref_size[0]), interpolation=cv2.INTER_AREA)
    cv2.imwrite(str(folder / "back.png"), back, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    (folder / "deck.json").write_text(json.dumps(meta, indent=1) + "\n")
    load_deck.cache_clear()
    return meta


def _add_boxes(meta: dict, boxes: dict[str, tuple[Box, ...]]) -> None:
    for card, found in boxes.items():
        if found:
            meta["cards"][card] = {"file": f"{card}.png", "index": [[round(v, 1) for v in b] for b in found]}
        else:
            meta["skipped"][card] = "no corner index found"


def remeasure(deck_id: str) -> dict:
    """Measure the index boxes of a design folder again from its PNGs (after the measuring changed)."""
    folder = _deck_folders()[deck_id]
    meta = json.loads((folder / "deck.json").read_text())
    if meta.get("index_boxes") == "drawn":
        return meta
    skipped = meta.setdefault("skipped", {})
    for card in list(meta["cards"]) + [c for c in list(skipped) if (folder / f"{c}.png").exists()]:
        entry = meta["cards"].get(card, {"file": f"{card}.png"})
        boxes = measure_index(_read_png(folder / entry["file"]), 0.55 if card == "Jk" else 0.33,
                              meta.get("ink_line", INK_LINE))
        if boxes:
            meta["cards"][card] = {"file": entry["file"], "index": [[round(v, 1) for v in b] for b in boxes]}
            skipped.pop(card, None)
        else:
            meta["cards"].pop(card, None)
            skipped[card] = "no corner index found"
    meta["cards"] = {c: meta["cards"][c] for c in CLASS_NAMES if c in meta["cards"]}
    drop_outliers(meta)
    (folder / "deck.json").write_text(json.dumps(meta, indent=1) + "\n")
    load_deck.cache_clear()
    return meta


def complete_deck(deck_id: str) -> bool:
    """Does this deck design have usable art for all 52 cards?"""
    try:
        deck = load_deck(deck_id)
    except Exception:  # noqa: BLE001 - an unusable design is simply not used
        return False
    return all(deck.has(c) for c in CLASS_NAMES[:52])


# Committed (CC0) and never trained on by any phase of the shipped reader: the unseen design a
# fresh clone always has, where the reader's own test designs are (L)GPL art fetched on demand.
COMMITTED_UNSEEN = "kenney"


def unseen_decks(models: str = "models") -> list[str]:
    """Deck designs the card reader never trained on that this machine has (its evaluation decks,
    else the committed unseen design, else a data set's test split)."""
    try:
        held_out = json.loads((Path(models) / "reader.json").read_text()).get("eval_decks") or []
    except (OSError, ValueError):
        held_out = []
    here = set(list_decks())
    held_out = [d for d in held_out if d in here] or ([COMMITTED_UNSEEN] if held_out and COMMITTED_UNSEEN in here else [])
    if held_out:
        return held_out
    for path in sorted(Path("datasets/generated").glob("*/decks.json")):
        try:
            test = json.loads(path.read_text()).get("test") or []
        except (OSError, ValueError):
            continue
        if test:
            return list(test)
    return []
