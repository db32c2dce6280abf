"""Procedural deck designs: cards drawn from the machine's fonts and parametric suit shapes.

Real designs are few (tens), and an index reader trained on tens of fonts learns those fonts.
Each procedural design draws a random font, index size and layout, ink colours (two or four
colours), suit shapes, pip size and court art, so the reader sees many more ways to print
"rank over suit" than the fetched designs hold. Designs from seed 40 on (`SECOND_GENERATION`) also
draw, from a second random stream so seeds 0-39 stay as they were, the suit beside the rank,
bolder or thinner and slanted type, and backs that show a fan of the design's own cards (a face-down
card must not be read as the cards pictured on it). Designs from seed 80 on (`THIRD_GENERATION`) print
their type in other typefaces than the machine's (often only DejaVu and Liberation): matplotlib's Computer
Modern and STIX text faces, OpenCV's Hershey italics and, where the dataset command fetched it, a
playing-card index face. Designs from seed 120 on (`FOURTH_GENERATION`) go back to the first generation's type
and layouts and change one thing: how the courts are pictured. The first three generations frame the court art
right beside the index, and a reader trained on them learned that a J has a picture next to it: a J whose card
shows plain paper there (a small figure in the middle, as some modern decks print) read as a 3. Half of these
designs draw a small unframed figure in the middle of the card, a quarter a big letter there, a quarter the frame.
Designs from seed 160 on (`FIFTH_GENERATION`) print in one of the text faces of Debian's font packages that the
dataset command fetched (`faces`: grotesques, condensed and slab faces, old-style and modern romans), with the
second generation's layouts and backs and the fourth's courts: the third generation's handful of faces still
left the reader with fewer ways to draw a 6 or a Q than the house's deck may hold.
Designs from seed 280 on (`SIXTH_GENERATION`) are fifth-generation designs whose backs all picture cards, and
picture them other ways (`_sixth_generation_back`): on a plain or shaded field as well as the lattice, with or
without a frame, the fan smaller and anywhere on the back (kde-nicu's backs print four small aces low on a blue
field; a context check trained on the lattice backs alone read those as cards).
Designs from seed 320 on (`SEVENTH_GENERATION`) picture a wider, tighter fan (`_seventh_generation_back`): three
to five cards, often all of one rank, spanning most of the back, on a plain or glossy field often inside a light
rounded margin; laid face down in a row, every strip of such a back shows pictured indices side by side.
Designs from seed 360 on (`EIGHTH_GENERATION`) are seventh-generation designs whose joker prints one of several
indices (`JOKER_INDICES`), as real decks do: JOKER down the side as before, a five-pointed star, a J over a K,
or a jester's cap; every other card is drawn as the seventh generation draws it.
Designs from seed 400 on (`NINTH_GENERATION`) are eighth-generation designs whose backs picture no card: small
creatures in bright inks scattered on light paper (`_ninth_generation_back`), some of them at an index's place and
size. A context check taught only backs that picture cards, lattices and plain fields took such a back's figures
for a face-up court's art beside its index.
The pictures are the generator's output (no third-party art): `make_design(seed)`
gives the same design on any machine with the same fonts; without TrueType fonts it falls back to OpenCV's
Hershey fonts.

>>> design = make_design(3, height=140)
>>> sorted(design.images)[:3], design.images["As"].shape
(['2c', '2d', '2h'], (140, 103, 4))
"""

from __future__ import annotations

import glob
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from kiosk.cards import CLASS_NAMES

FONT_GLOBS = ("/usr/share/fonts/truetype/*/*.ttf", "/usr/share/fonts/truetype/*.ttf", "/usr/share/fonts/TTF/*.ttf")
RANK_TEXT = {"T": "10", "J": "J", "Q": "Q", "K": "K", "A": "A"}
# Pip centres of number cards on a 3-column grid, (column -1..1, row 0..1 from top to bottom).
PIPS = {
    2: [(0, 0), (0, 1)],
    3: [(0, 0), (0, 0.5), (0, 1)],
    4: [(-1, 0), (1, 0), (-1, 1), (1, 1)],
    5: [(-1, 0), (1, 0), (0, 0.5), (-1, 1), (1, 1)],
    6: [(-1, 0), (1, 0), (-1, 0.5), (1, 0.5), (-1, 1), (1, 1)],
    7: [(-1, 0), (1, 0), (0, 0.25), (-1, 0.5), (1, 0.5), (-1, 1), (1, 1)],
    8: [(-1, 0), (1, 0), (0, 0.25), (-1, 0.5), (1, 0.5), (0, 0.75), (-1, 1), (1, 1)],
    9: [(-1, 0), (1, 0), (-1, 1 / 3), (1, 1 / 3), (0, 0.5), (-1, 2 / 3), (1, 2 / 3), (-1, 1), (1, 1)],
    10: [(-1, 0), (1, 0), (0, 1 / 6), (-1, 1 / 3), (1, 1 / 3), (-1, 2 / 3), (1, 2 / 3), (0, 5 / 6), (-1, 1), (1, 1)],
}


SECOND_GENERATION = 40  # designs from this seed on draw the second generation's variety
THIRD_GENERATION = 80  # designs from this seed on draw their typeface from `typefaces()`
FOURTH_GENERATION = 120  # designs from this seed on: first-generation type, courts drawn in one of COURT_STYLES
FIFTH_GENERATION = 160  # designs from this seed on: a typeface from `faces`, second-generation layouts, fourth's courts
SIXTH_GENERATION = 280  # designs from this seed on: the fifth generation with backs that picture cards in more ways
SEVENTH_GENERATION = 320  # designs from this seed on: the fifth generation with backs that picture a wide, tight fan
EIGHTH_GENERATION = 360  # designs from this seed on: the seventh generation with a joker index of one of JOKER_INDICES
NINTH_GENERATION = 400  # designs from this seed on: the eighth generation with backs of creatures on light paper
JOKER_INDICES = ("word", "star", "jk", "hat")  # JOKER down the side (every design before), a star, J over K, a cap
COURT_STYLES = ("frame", "figure", "letter")  # art framed beside the index; a small figure mid-card; a big letter
# Text faces that ship with matplotlib (which ultralytics installs), so every machine has the same ones.
MATPLOTLIB_FACES = ("cmr10", "cmb10", "cmss10", "cmti10", "cmtt10",
                    "STIXGeneral", "STIXGeneralBol", "STIXGeneralItalic", "STIXGeneralBolIta")
HERSHEY_ITALICS = tuple(f"hershey-{cv2.FONT_ITALIC | face}" for face in (0, 2, 3, 4, 6, 7))


@dataclass(frozen=True)
class Design:
    id: str
    font: str  # font file, or "hershey-N"
    images: dict[str, np.ndarray]  # card class -> BGRA
    back: np.ndarray
    index: dict[str, tuple[tuple[float, float, float, float], ...]]  # the corner-index boxes as drawn
    court: str = "frame"  # how the courts are pictured (COURT_STYLES)


@lru_cache(maxsize=1)
def system_fonts() -> tuple[str, ...]:
    """TrueType fonts on this machine, sorted (the same list on the same machine); math fonts left out."""
    found = sorted({p for g in FONT_GLOBS for p in glob.glob(g)})
    return tuple(p for p in found if "Math" not in p)


@lru_cache(maxsize=1)
def typefaces() -> tuple[str, ...]:
    """The third generation's typefaces: matplotlib's text faces found here, then the Hershey italics."""
    try:
        import matplotlib
    except ImportError:
        return HERSHEY_ITALICS
    root = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    return tuple(str(root / f"{n}.ttf") for n in MATPLOTLIB_FACES if (root / f"{n}.ttf").is_file()) + HERSHEY_ITALICS


def _third_generation_font(rng: np.random.Generator, index_fonts: tuple[str, ...]) -> str:
    """A typeface for a third-generation design: a playing-card index face a quarter of the time, if given."""
    if index_fonts and rng.random() < 0.25:
        return str(rng.choice(index_fonts))
    return str(rng.choice(typefaces()))


def _fifth_generation_font(rng: np.random.Generator, faces: tuple[str, ...]) -> str:
    """A typeface for a fifth-generation design: one of `faces`, or a third-generation face without them."""
    return str(rng.choice(faces)) if faces else str(rng.choice(typefaces()))


def _pil():
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:  # pillow comes with ultralytics; without it the Hershey fonts draw the text
        return None
    return Image, ImageDraw, ImageFont


def text_mask(text: str, font: str, height: int, squeeze: float = 1.0) -> np.ndarray:
    """Ink mask (uint8 0/255) of `text`, cropped to its ink and scaled to `height` px tall."""
    pil = _pil()
    if font.startswith("hershey") or pil is None:
        face = int(font.split("-")[1]) if font.startswith("hershey-") else cv2.FONT_HERSHEY_DUPLEX
        canvas = np.zeros((200, 120 * len(text) + 40), np.uint8)
        cv2.putText(canvas, text, (10, 150), face, 4.0, 255, 9, cv2.LINE_AA)
    else:
        Image, ImageDraw, ImageFont = pil
        f = ImageFont.truetype(font, 160)
        img = Image.new("L", (140 * len(text) + 80, 260), 0)
        ImageDraw.Draw(img).text((20, 20), text, fill=255, font=f)
        canvas = np.array(img)
    return _fit_height(canvas, height, squeeze)


def _fit_height(mask: np.ndarray, height: int, squeeze: float = 1.0) -> np.ndarray:
    """`mask` cropped to its ink and scaled to `height` px tall (its width also by `squeeze`)."""
    ys, xs = np.nonzero(mask > 40)
    mask = mask[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]
    h, w = mask.shape
    return cv2.resize(mask, (max(1, round(w * height / h * squeeze)), height), interpolation=cv2.INTER_AREA)


def suit_mask(suit: str, size: int, style: dict) -> np.ndarray:
    """Ink mask of a suit symbol, `size` px tall, in one of a few parametric shapes."""
    s = 200
    m = np.zeros((s, s), np.uint8)
    fat = style["fat"]  # 0.85..1.12: narrower or wider shapes
    if suit == "d":
        w = 0.36 * s * style["diamond"]
        pts = np.array([[s / 2, 4], [s / 2 + w, s / 2], [s / 2, s - 4], [s / 2 - w, s / 2]], np.int32)
        cv2.fillPoly(m, [pts], 255, cv2.LINE_AA)
    elif suit in "hs":
        r = 0.25 * s * fat
        cx1, cx2, cy = s / 2 - r * 0.95, s / 2 + r * 0.95, s * 0.36
        cv2.circle(m, (int(cx1), int(cy)), int(r), 255, -1, cv2.LINE_AA)
        cv2.circle(m, (int(cx2), int(cy)), int(r), 255, -1, cv2.LINE_AA)
        tip = s * (0.97 if suit == "h" else 0.84)
        pts = np.array([[cx1 - r * 0.98, cy + r * 0.25], [cx2 + r * 0.98, cy + r * 0.25], [s / 2, tip]], np.int32)
        cv2.fillPoly(m, [pts], 255, cv2.LINE_AA)
        if suit == "s":
            m = np.ascontiguousarray(m[::-1])  # a spade is an upturned heart on a stem
            m = np.roll(m, -int(0.1 * s), axis=0)
            stem = np.array([[s / 2, s * 0.62], [s / 2 + s * 0.13 * style["stem"], s - 2],
                             [s / 2 - s * 0.13 * style["stem"], s - 2]], np.int32)
            cv2.fillPoly(m, [stem], 255, cv2.LINE_AA)
    else:  # club: three leaves on a stem
        r = int(0.2 * s * fat)
        for cx, cy in ((s / 2, s * 0.28), (s / 2 - r * 1.15, s * 0.55), (s / 2 + r * 1.15, s * 0.55)):
            cv2.circle(m, (int(cx), int(cy)), r, 255, -1, cv2.LINE_AA)
        stem = np.array([[s / 2, s * 0.45], [s / 2 + s * 0.13 * style["stem"], s - 2],
                         [s / 2 - s * 0.13 * style["stem"], s - 2]], np.int32)
        cv2.fillPoly(m, [stem], 255, cv2.LINE_AA)
    return _fit_height(m, size)


def _stamp(card: np.ndarray, mask: np.ndarray, x: int, y: int, colour) -> None:
    """Paint `colour` through `mask` with its top-left at (x, y), clipped to the card."""
    h, w = mask.shape
    H, W = card.shape[:2]
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
    if x1 <= x0 or y1 <= y0:
        return
    a = mask[y0 - y: y1 - y, x0 - x: x1 - x].astype(np.float32)[..., None] / 255.0
    region = card[y0:y1, x0:x1, :3].astype(np.float32)
    card[y0:y1, x0:x1, :3] = (region * (1 - a) + np.array(colour, np.float32) * a).astype(np.uint8)


def _colour(rng: np.random.Generator, *ranges) -> tuple[int, ...]:
    """A BGR colour, each channel drawn from its (low, high) range."""
    return tuple(int(rng.uniform(lo, hi)) for lo, hi in ranges)


def _style(rng: np.random.Generator) -> dict:
    fonts = system_fonts()
    font = str(rng.choice(fonts)) if fonts and rng.random() < 0.9 else f"hershey-{int(rng.choice([0, 2, 3, 4, 6]))}"
    big = rng.random() < 0.25
    red = _colour(rng, (0, 60), (0, 40), (150, 235))
    if rng.random() < 0.8:
        grey = int(rng.uniform(0, 70))
        black = (grey, grey, grey)
    else:  # navy or brown-black ink
        black = _colour(rng, (40, 110), (10, 50), (0, 40))
    colours = {"h": red, "d": red, "s": black, "c": black}
    if rng.random() < 0.2:  # four-colour deck: green clubs, orange or blue diamonds
        colours["c"] = _colour(rng, (0, 60), (100, 160), (0, 50))
        blue = rng.random() < 0.7
        colours["d"] = _colour(rng, (150, 220), (60, 120), (0, 40)) if blue else _colour(rng, (0, 40), (100, 160), (200, 250))
    paper = tuple(int(v) for v in rng.uniform([225, 235, 238], [250, 252, 255]))
    return {
        "font": font,
        "rank_h": rng.uniform(0.14, 0.2) if big else rng.uniform(0.065, 0.12),
        "suit_scale": rng.uniform(0.55, 1.05),
        "gap": rng.uniform(0.02, 0.25),
        "margin_x": rng.uniform(0.03, 0.09),
        "margin_y": rng.uniform(0.025, 0.07),
        "squeeze": rng.uniform(0.75, 1.15),
        "ten_squeeze": rng.uniform(0.55, 0.85),
        "pip": rng.uniform(0.13, 0.21),
        "ace_pip": rng.uniform(0.25, 0.5),
        "fat": rng.uniform(0.85, 1.12),
        "diamond": rng.uniform(0.75, 1.1),
        "stem": rng.uniform(0.6, 1.3),
        "colours": colours,
        "paper": paper,
        "border": rng.random() < 0.5,
        "court_hue": int(rng.integers(0, 180)),
        "centre_index": rng.random() < 0.15,  # big index only, no pips (like jumbo-index decks)
    }


def _second_generation(rng: np.random.Generator | None) -> dict:
    """Index layout, type weight and slant, and the kind of back; all off without a stream (seeds 0-39)."""
    if rng is None:
        return {"side": False, "weight": 0, "slant": 0.0, "picture_back": False}
    return {
        "side": rng.random() < 0.25,  # the suit beside the rank, not under it
        "weight": int(rng.choice([-1, 0, 0, 1, 2])),  # thinner or bolder strokes
        "slant": float(rng.uniform(-0.28, -0.08)) if rng.random() < 0.25 else 0.0,  # italic type
        "picture_back": rng.random() < 0.5,
    }


def _restyle(mask: np.ndarray, st: dict) -> np.ndarray:
    """The rank's ink made bolder or thinner and slanted, as the design's type asks."""
    h = mask.shape[0]
    k = max(1, round(h * 0.05))
    if st["weight"] > 0:
        mask = cv2.dilate(mask, np.ones((k * st["weight"] + 1,) * 2, np.uint8))
    elif st["weight"] < 0 and h >= 20:
        thin = cv2.erode(mask, np.ones((k + 1,) * 2, np.uint8))
        mask = thin if (thin > 40).sum() > 0.4 * (mask > 40).sum() else mask
    if st["slant"]:
        pad = round(abs(st["slant"]) * h) + 2
        wide = cv2.copyMakeBorder(mask, 0, 0, pad, pad, cv2.BORDER_CONSTANT, value=0)
        shear = np.float32([[1, st["slant"], -st["slant"] * h / 2], [0, 1, 0]])
        mask = _fit_height(cv2.warpAffine(wide, shear, (wide.shape[1], h), flags=cv2.INTER_LINEAR), h)
    return mask


def _index_mask(card: str, st: dict, H: int) -> np.ndarray:
    rank, suit = card[0], card[1]
    rh = max(6, round(st["rank_h"] * H))
    text = RANK_TEXT.get(rank, rank)
    r = _restyle(text_mask(text, st["font"], rh, st["squeeze"] * (st["ten_squeeze"] if text == "10" else 1.0)), st)
    gap = round(st["gap"] * rh)
    if st["side"]:
        s = suit_mask(suit, max(5, round(rh * st["suit_scale"] * 0.85)), st)
        out = np.zeros((max(r.shape[0], s.shape[0]), r.shape[1] + gap + s.shape[1]), np.uint8)
        out[: r.shape[0], : r.shape[1]] = r
        y = (r.shape[0] - s.shape[0]) // 2 if s.shape[0] < r.shape[0] else 0
        out[y: y + s.shape[0], r.shape[1] + gap:] = s
        return out
    s = suit_mask(suit, max(5, round(rh * st["suit_scale"])), st)
    w = max(r.shape[1], s.shape[1])
    out = np.zeros((r.shape[0] + gap + s.shape[0], w), np.uint8)
    out[: r.shape[0], (w - r.shape[1]) // 2: (w - r.shape[1]) // 2 + r.shape[1]] = r
    out[r.shape[0] + gap:, (w - s.shape[1]) // 2: (w - s.shape[1]) // 2 + s.shape[1]] = s
    return out


def _court_picture(card: np.ndarray, st: dict, rng: np.random.Generator, letter: str, ink) -> None:
    """A fourth-generation court: a small unframed figure, or a big letter, in the middle of plain paper."""
    H, W = card.shape[:2]
    if st["court"] == "letter":
        m = text_mask(letter, st["font"], round(H * rng.uniform(0.25, 0.4)))
        m = m[:, : round(0.6 * W)]
        _stamp(card, m, (W - m.shape[1]) // 2, (H - m.shape[0]) // 2, ink)
        return
    w, h = round(W * rng.uniform(0.35, 0.55)), round(H * rng.uniform(0.35, 0.55))
    x0, y0 = (W - w) // 2, (H - h) // 2
    art = card[y0: y0 + h, x0: x0 + w]
    hue = (st["court_hue"] + int(rng.integers(-20, 20))) % 180
    for _ in range(int(rng.integers(5, 11))):  # a figure: blobs about the vertical middle
        colour = cv2.cvtColor(np.uint8([[[int((hue + rng.integers(0, 90)) % 180), int(rng.integers(80, 255)),
                                          int(rng.integers(60, 230))]]]), cv2.COLOR_HSV2BGR)[0, 0]
        centre = (int(w / 2 + rng.normal(0, w / 8)), int(rng.uniform(0.15, 0.85) * h))
        axes = (int(rng.integers(3, max(4, w // 4))), int(rng.integers(3, max(4, h // 5))))
        cv2.ellipse(art, centre, axes, float(rng.uniform(0, 180)), 0, 360, (*map(int, colour), 255), -1, cv2.LINE_AA)


def _court_art(card: np.ndarray, box, st: dict, rng: np.random.Generator, letter: str, ink) -> None:
    """Stripes, blobs and a big letter in a frame beside the index (or, in the fourth generation, the design's
    court style): picture-like ink that is not an index."""
    if st["court"] != "frame":
        _court_picture(card, st, rng, letter, ink)
        return
    x0, y0, x1, y1 = box
    art = card[y0:y1, x0:x1]  # a view: drawing stays inside the frame
    w, h = x1 - x0, y1 - y0
    hue = (st["court_hue"] + int(rng.integers(-20, 20))) % 180
    for _ in range(int(rng.integers(6, 14))):
        colour = cv2.cvtColor(np.uint8([[[int((hue + rng.integers(0, 90)) % 180), int(rng.integers(80, 255)),
                                          int(rng.integers(60, 230))]]]), cv2.COLOR_HSV2BGR)[0, 0]
        centre = (int(rng.integers(0, w)), int(rng.integers(0, h // 2)))
        axes = (int(rng.integers(4, max(5, w // 3))), int(rng.integers(4, max(5, h // 5))))
        cv2.ellipse(art, centre, axes, float(rng.uniform(0, 180)), 0, 360, (*map(int, colour), 255), -1, cv2.LINE_AA)
    half = art[: h // 2].copy()
    art[h - half.shape[0]:] = half[::-1, ::-1]  # courts are printed head to foot
    cv2.rectangle(art, (0, 0), (w - 1, h - 1), (*map(int, st["colours"]["s"]), 255), max(1, w // 60))
    if rng.random() < 0.6:
        m = text_mask(letter, st["font"], max(6, h // 5))
        _stamp(art, m, 4, 4, st["colours"]["s"])


def _joker_index(kind: str, st: dict, H: int) -> np.ndarray:
    """Ink mask of an eighth-generation joker's corner index: a star, J over K, or a jester's cap."""
    rh = max(6, round(st["rank_h"] * H))
    if kind == "jk":
        j, k = (_restyle(text_mask(ch, st["font"], rh, st["squeeze"]), st) for ch in "JK")
        w = max(j.shape[1], k.shape[1])
        out = np.zeros((j.shape[0] + k.shape[0] + max(1, round(st["gap"] * rh)), w), np.uint8)
        out[: j.shape[0], (w - j.shape[1]) // 2: (w - j.shape[1]) // 2 + j.shape[1]] = j
        out[-k.shape[0]:, (w - k.shape[1]) // 2: (w - k.shape[1]) // 2 + k.shape[1]] = k
        return out
    s = 200
    m = np.zeros((s, s), np.uint8)
    if kind == "star":
        angles = np.pi / 2 + np.arange(10) * np.pi / 5
        radii = np.where(np.arange(10) % 2 == 0, 0.48 * s, 0.2 * s)
        pts = np.stack([s / 2 + radii * np.cos(angles), s / 2 - radii * np.sin(angles)], axis=1)
        cv2.fillPoly(m, [np.round(pts).astype(np.int32)], 255, cv2.LINE_AA)
    elif kind == "hat":  # a band with three drooping points, a bell on each
        cv2.rectangle(m, (30, 140), (170, 175), 255, -1)
        for tip in ((22, 40), (100, 18), (178, 40)):
            cv2.fillPoly(m, [np.array([(45, 145), tip, (155, 145)], np.int32)], 255, cv2.LINE_AA)
            cv2.circle(m, tip, 14, 255, -1, cv2.LINE_AA)
    else:
        raise ValueError(f"unknown joker index {kind!r} (choose from {', '.join(JOKER_INDICES)})")
    x, y, w, h = cv2.boundingRect(m)  # cropped to its ink, as the index boxes are
    size = round(rh * 1.2)
    return cv2.resize(m[y:y + h, x:x + w], (max(3, round(size * w / h)), size), interpolation=cv2.INTER_AREA)


def draw_card(card: str, st: dict, W: int, H: int, rng: np.random.Generator) -> tuple[np.ndarray, tuple]:
    """The card's picture (BGRA) and its two corner-index boxes, as drawn."""
    img = np.zeros((H, W, 4), np.uint8)
    radius = max(2, round(0.055 * W))
    alpha = np.zeros((H, W), np.uint8)
    cv2.rectangle(alpha, (radius, 0), (W - 1 - radius, H - 1), 255, -1)
    cv2.rectangle(alpha, (0, radius), (W - 1, H - 1 - radius), 255, -1)
    for cx in (radius, W - 1 - radius):
        for cy in (radius, H - 1 - radius):
            cv2.circle(alpha, (cx, cy), radius, 255, -1, cv2.LINE_AA)
    img[..., :3] = st["paper"]
    img[..., 3] = alpha
    if st["border"]:
        cv2.rectangle(img, (2, 2), (W - 3, H - 3), (160, 160, 160, 255), 1)
    colour = st["colours"]["s"] if card == "Jk" else st["colours"][card[1]]
    mx, my = round(st["margin_x"] * W), round(st["margin_y"] * H)
    if card == "Jk" and st.get("joker_index", "word") == "word":
        word = text_mask("J", st["font"], max(6, round(st["rank_h"] * H * 0.6)))
        letters = [text_mask(ch, st["font"], word.shape[0]) for ch in "JOKER"]
        y, width = my, max(m.shape[1] for m in letters)
        for m in letters:  # the joker's corner prints JOKER down the side
            x = mx + (width - m.shape[1]) // 2
            _stamp(img, m, x, y, colour)
            _stamp(img, m[::-1, ::-1], W - x - m.shape[1], H - y - m.shape[0], colour)
            y += m.shape[0] + max(1, m.shape[0] // 6)
        y -= max(1, letters[-1].shape[0] // 6)
        iw, ih = width, y - my
    else:
        index = _joker_index(st["joker_index"], st, H) if card == "Jk" else _index_mask(card, st, H)
        ih, iw = index.shape
        _stamp(img, index, mx, my, colour)
        _stamp(img, index[::-1, ::-1], W - mx - iw, H - my - ih, colour)
    boxes = ((mx, my, mx + iw, my + ih), (W - mx - iw, H - my - ih, W - mx, H - my))
    if card == "Jk":
        _court_art(img, (round(0.3 * W), round(0.2 * H), round(0.8 * W), round(0.8 * H)), st, rng, "?", colour)
        return img, boxes
    rank = card[0]
    column = min(iw, round(0.16 * W)) if st["side"] else iw  # a wide index sits above the pips instead
    left, right = mx + column + round(0.04 * W), W - mx - column - round(0.04 * W)
    top = max(round(0.12 * H), my + ih + round(0.02 * H)) if st["side"] else round(0.12 * H)
    bottom = H - top
    if st["centre_index"] and rank not in "JQK":
        pip = suit_mask(card[1], round(0.35 * H), st)
        _stamp(img, pip, (W - pip.shape[1]) // 2, (H - pip.shape[0]) // 2, colour)
        return img, boxes
    if rank == "A":
        pip = suit_mask(card[1], min(round(st["ace_pip"] * W * 1.3), right - left), st)
        _stamp(img, pip, (W - pip.shape[1]) // 2, (H - pip.shape[0]) // 2, colour)
    elif rank in "JQK":
        _court_art(img, (left, top, right, bottom), st, rng, rank, colour)
    else:
        n = 10 if rank == "T" else int(rank)
        size = max(4, min(round(st["pip"] * W), round((bottom - top) / (4.2 if n < 9 else 5.2)), round((right - left) / 3)))
        pip = suit_mask(card[1], size, st)
        span_x = (right - left - pip.shape[1]) / 2
        for col, row in PIPS[n]:
            cx = W / 2 + col * span_x * 0.85
            cy = top + pip.shape[0] / 2 + row * (bottom - top - pip.shape[0])
            m = pip if row <= 0.5 else pip[::-1, ::-1]
            _stamp(img, m, round(cx - m.shape[1] / 2), round(cy - m.shape[0] / 2), colour)
    return img, boxes


def _sixth_generation_back(back: np.ndarray, images: dict[str, np.ndarray], rng: np.random.Generator) -> None:
    """A fan of two to five of the design's cards, 0.28-0.55 of the card, anywhere on the back, framed or not."""
    _picture_back(back, images, rng, frame=bool(rng.random() < 0.5), count=int(rng.integers(2, 6)),
                  scale=rng.uniform(0.28, 0.55), centre=(rng.uniform(0.35, 0.65), rng.uniform(0.3, 0.72)))


def _seventh_generation_back(back: np.ndarray, images: dict[str, np.ndarray], rng: np.random.Generator) -> None:
    """A glossy or plain field, often in a light rounded margin, and a tight fan of three to five cards (half the
    time all of one rank) 0.42-0.62 of the card, spanning most of its width, below or about the middle."""
    H, W = back.shape[:2]
    field = back[..., :3].astype(np.float32)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    look = rng.random()
    if look < 0.4:  # a highlight in one corner, as a glossy print
        fx, fy = rng.uniform(0.1, 0.9) * W, rng.uniform(0.05, 0.5) * H
        glow = 1.0 - np.hypot(xx - fx, yy - fy) / np.hypot(W, H)
        field = field * (0.55 + 0.75 * glow[..., None])
    elif look < 0.7:  # shaded along a diagonal
        field = field * (1.3 - 0.6 * (xx / W + yy / H)[..., None] / 2)
    back[..., :3] = np.clip(field, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:  # a light margin with rounded corners around the field
        margin = back[..., :3].copy()
        margin[:] = _colour(rng, (195, 245), (220, 252), (230, 255))  # cream to white
        inner = np.zeros((H, W), np.uint8)
        m, r = max(2, round(W * rng.uniform(0.04, 0.09))), max(2, round(W * rng.uniform(0.04, 0.12)))
        cv2.rectangle(inner, (m + r, m), (W - 1 - m - r, H - 1 - m), 255, -1)
        cv2.rectangle(inner, (m, m + r), (W - 1 - m, H - 1 - m - r), 255, -1)
        for cx, cy in ((m + r, m + r), (W - 1 - m - r, m + r), (m + r, H - 1 - m - r), (W - 1 - m - r, H - 1 - m - r)):
            cv2.circle(inner, (cx, cy), r, 255, -1, cv2.LINE_AA)
        a = inner[..., None].astype(np.float32) / 255.0
        back[..., :3] = (back[..., :3] * a + margin * (1 - a)).astype(np.uint8)
    count = int(rng.integers(3, 6))
    rank = str(rng.choice(list("23456789TJQKA")))
    cards = [rank + s for s in rng.permutation(list("cdhs"))[:count]] if rng.random() < 0.5 else None
    _picture_back(back, images, rng, frame=False, count=count, scale=rng.uniform(0.42, 0.62),
                  centre=(rng.uniform(0.42, 0.58), rng.uniform(0.45, 0.68)), cards=cards,
                  spread=rng.uniform(4, 12), step=rng.uniform(0.12, 0.22), outline=bool(rng.random() < 0.5))


def _picture_back(back: np.ndarray, images: dict[str, np.ndarray], rng: np.random.Generator, frame: bool = True,
                  count: int | None = None, scale: float | None = None, centre=(0.5, 0.5), cards=None,
                  spread: float | None = None, step: float = 0.18, outline: bool = False) -> None:
    """A framed fan of three to five of the design's own cards, drawn on the back (as some decks print)."""
    H, W = back.shape[:2]
    if frame:
        x0, y0 = round(0.08 * W), round(0.06 * H)
        cv2.rectangle(back, (x0, y0), (W - 1 - x0, H - 1 - y0), (255, 255, 255, 255), max(1, W // 50))
    if cards is None:
        cards = [str(c) for c in rng.choice(CLASS_NAMES[:52], size=count or int(rng.integers(3, 6)), replace=False)]
    scale = scale or rng.uniform(0.4, 0.55)
    small = [cv2.resize(images[c], None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) for c in cards]
    h, w = small[0].shape[:2]
    centre_x, centre_y = centre
    spread = spread or rng.uniform(10, 22)
    for k, img in enumerate(small):
        angle = (k - (len(small) - 1) / 2) * spread
        centre = (W * centre_x + (k - (len(small) - 1) / 2) * w * step, H * centre_y)
        m = cv2.getRotationMatrix2D((w / 2, h * 1.1), -angle, 1.0)  # fanned about a point below the cards
        m[:, 2] += (centre[0] - w / 2, centre[1] - h / 2)
        warped = cv2.warpAffine(img, m, (W, H), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
        a = warped[..., 3:4].astype(np.float32) / 255.0
        if outline:  # a thin dark edge round each pictured card
            edge = cv2.dilate(warped[..., 3], np.ones((3, 3), np.uint8)).astype(np.float32)[..., None] / 255.0
            back[..., :3] = (back[..., :3] * (1 - 0.7 * edge)).astype(np.uint8)
        back[..., :3] = (back[..., :3] * (1 - a) + warped[..., :3] * a).astype(np.uint8)


def _creature(w: int, h: int, rng: np.random.Generator, hue: int) -> np.ndarray:
    """A BGRA creature of blobs in one bright ink: a body, a head, two to four limbs, often a dark outline."""
    art = np.zeros((h, w, 4), np.uint8)
    ink = cv2.cvtColor(np.uint8([[[hue, int(rng.integers(150, 255)), int(rng.integers(110, 230))]]]), cv2.COLOR_HSV2BGR)[0, 0]
    mask = np.zeros((h, w), np.uint8)
    cx, cy = w // 2, round(h * 0.55)
    cv2.ellipse(mask, (cx, cy), (max(2, w // 5), max(2, h // 4)), float(rng.uniform(-25, 25)), 0, 360, 255, -1, cv2.LINE_AA)
    cv2.circle(mask, (cx + int(rng.integers(-w // 8, w // 8 + 1)), round(h * 0.22)), max(2, min(w, h) // 7), 255, -1, cv2.LINE_AA)
    for _ in range(int(rng.integers(2, 5))):  # arms, legs, a tail or wings
        angle = rng.uniform(0, 2 * np.pi)
        tip = (int(cx + np.cos(angle) * w * 0.45), int(cy + np.sin(angle) * h * 0.42))
        cv2.line(mask, (cx, cy), tip, 255, max(1, min(w, h) // 12), cv2.LINE_AA)
        cv2.circle(mask, tip, max(1, min(w, h) // 14), 255, -1, cv2.LINE_AA)
    shade = rng.uniform(0.55, 0.8)
    art[..., :3] = ink
    art[round(h * 0.55):, :, :3] = (ink * shade).astype(np.uint8)  # a darker half, as printed shading
    art[..., 3] = mask
    if rng.random() < 0.6:  # a dark outline round the figure
        edge = cv2.subtract(cv2.dilate(mask, np.ones((3, 3), np.uint8)), mask)
        art[edge > 0] = (30, 30, 30, 255)
    return art


def _ninth_generation_back(back: np.ndarray, rng: np.random.Generator) -> None:
    """Light paper with three to seven creatures scattered on it, 0.2-0.5 of the card wide, one in four or so small
    and in a corner where an index would be; now and then a glossy highlight."""
    H, W = back.shape[:2]
    back[..., :3] = _colour(rng, (200, 245), (215, 250), (225, 255))
    if rng.random() < 0.4:
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        glow = 1.0 - np.hypot(xx - rng.uniform(0, W), yy - rng.uniform(0, H)) / np.hypot(W, H)
        back[..., :3] = np.clip(back[..., :3] * (0.85 + 0.25 * glow[..., None]), 0, 255).astype(np.uint8)
    hues = rng.permutation([0, 10, 30, 60, 75, 90, 105, 120, 140, 165])
    for k in range(int(rng.integers(3, 8))):
        small = rng.random() < 0.3
        w = round(W * (rng.uniform(0.12, 0.2) if small else rng.uniform(0.2, 0.5)))
        h = round(w * rng.uniform(0.9, 1.4))
        art = _creature(w, h, rng, int(hues[k % len(hues)]))
        if rng.random() < 0.5:
            art = art[:, ::-1]
        if small:  # at a corner, where a face-up card prints its index
            x = round(W * rng.uniform(0.03, 0.1)) if rng.random() < 0.5 else W - w - round(W * rng.uniform(0.03, 0.1))
            y = round(H * rng.uniform(0.03, 0.1)) if rng.random() < 0.5 else H - h - round(H * rng.uniform(0.03, 0.1))
        else:
            x, y = int(rng.integers(-w // 4, max(1, W - 3 * w // 4))), int(rng.integers(-h // 4, max(1, H - 3 * h // 4)))
        x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
        if x1 <= x0 or y1 <= y0:
            continue
        part = art[y0 - y: y1 - y, x0 - x: x1 - x]
        a = part[..., 3:4].astype(np.float32) / 255.0
        back[y0:y1, x0:x1, :3] = (back[y0:y1, x0:x1, :3] * (1 - a) + part[..., :3] * a).astype(np.uint8)


def joker_index(seed: int) -> str:
    """What the joker's corner of design `seed` prints: one of JOKER_INDICES, the word before the eighth generation.

    >>> joker_index(0), joker_index(EIGHTH_GENERATION - 1)
    ('word', 'word')
    """
    if seed < EIGHTH_GENERATION:
        return "word"
    return str(np.random.default_rng([seed, 59]).choice(JOKER_INDICES))


def make_design(seed: int, height: int = 240, index_fonts: tuple[str, ...] = (),
                faces: tuple[str, ...] = ()) -> Design:
    """One procedural design (53 cards and a back), the same for the same seed and fonts.

    `index_fonts` are playing-card index typefaces a third-generation design may print in; `faces` the text
    faces a fifth-generation design may print in.
    """
    rng = np.random.default_rng([seed, 52])
    st = _style(rng)
    fifth = seed >= FIFTH_GENERATION
    extra = np.random.default_rng([seed, 53]) if SECOND_GENERATION <= seed < FOURTH_GENERATION or fifth else None
    st.update(_second_generation(extra))
    fourth = seed >= FOURTH_GENERATION
    st["court"] = str(np.random.default_rng([seed, 55]).choice(COURT_STYLES, p=[0.25, 0.5, 0.25])) if fourth else "frame"
    if THIRD_GENERATION <= seed < FOURTH_GENERATION:
        st["font"] = _third_generation_font(np.random.default_rng([seed, 54]), tuple(index_fonts))
    if fifth:
        st["font"] = _fifth_generation_font(np.random.default_rng([seed, 56]), tuple(faces))
    if (THIRD_GENERATION <= seed < FOURTH_GENERATION or fifth) and st["font"].startswith("hershey"):
        st["weight"] = min(st["weight"], 0)  # already drawn with bold strokes: bolder blots small ranks
    if seed >= EIGHTH_GENERATION:
        st["joker_index"] = joker_index(seed)
    W = round(height * rng.uniform(0.69, 0.74))
    drawn = {card: draw_card(card, st, W, height, rng) for card in CLASS_NAMES}
    images = {card: img for card, (img, _) in drawn.items()}
    back = images["2c"].copy()
    back[..., :3] = cv2.cvtColor(np.uint8([[[st["court_hue"], 200, 140]]]), cv2.COLOR_HSV2BGR)[0, 0]
    sixth = np.random.default_rng([seed, 57]) if SIXTH_GENERATION <= seed < SEVENTH_GENERATION else None
    if seed >= NINTH_GENERATION:
        _ninth_generation_back(back, np.random.default_rng([seed, 60]))
    elif seed >= SEVENTH_GENERATION:
        _seventh_generation_back(back, images, np.random.default_rng([seed, 58]))
    elif sixth is None or sixth.random() < 0.4:
        for k in range(-height, W, max(4, W // 12)):  # a lattice back
            cv2.line(back, (k, 0), (k + height, height), (255, 255, 255, 255), 1, cv2.LINE_AA)
            cv2.line(back, (k + height, 0), (k, height), (255, 255, 255, 255), 1, cv2.LINE_AA)
    elif sixth.random() < 0.5:  # a field shaded from top to bottom
        shade = np.linspace(1.25, 0.7, height, dtype=np.float32)[:, None, None]
        back[..., :3] = np.clip(back[..., :3].astype(np.float32) * shade, 0, 255).astype(np.uint8)
    if sixth is not None:
        _sixth_generation_back(back, images, sixth)
    elif st["picture_back"] and seed < SEVENTH_GENERATION:
        _picture_back(back, images, extra)
    back[..., 3] = images["2c"][..., 3]
    index = {card: tuple(tuple(float(v) for v in b) for b in boxes) for card, (_, boxes) in drawn.items()}
    return Design(f"procedural-{seed:03d}", st["font"], images, back, index, st["court"])
