"""Lay out a Chinese Poker table and render it as an overhead camera frame with exact labels.

Default table geometry (the pipeline assumes it): the whole frame is the table seen from
above; seat 1 at the bottom edge, seats clockwise (2 left, 3 top, 4 right). Each seat lays
its rows parallel to its own edge, back row nearest the edge, then middle, then front;
cards face their seat; rows are fanned so that mostly the index corner shows.

>>> layout = TableLayout((SeatLayout(1, front=("As", "Kd", "Qh")), SeatLayout(2, dead=True)))
>>> scene = render_table(layout, "kennard-2c", seed=1).scene
>>> [c["card"] for c in scene["cards"] if c["face_up"]]
['As', 'Kd', 'Qh']
>>> scene["seats"][1]
{'seat': 2, 'dead': True, 'natural_pile': False}

`SeatLayout` fields beyond the contract: `stack` (a squared pile of that many unlabelled
face-down cards, e.g. the deal). Meaning of the flags:
- `dead`: the seat's 13 cards lie in a face-down pile (listed cards, else 13 backs).
- `face_down`: rows (and a `pile`) are laid out as usual but show their backs.
- `pile`: a declared natural: with `face_down` a squared pile, face down, top card
  (`pile[0]`) face up; without it the pile spread by the dealer in one fanned line.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from kiosk.cards import CLASS_NAMES, ROWS
from kiosk_lab.synth import backgrounds, distractors
from kiosk_lab.synth.art import Deck, list_decks, load_deck  # noqa: F401  (list_decks is part of the API)
from kiosk_lab.synth.camera import CameraParams, homography, photometric
from kiosk_lab.synth.canvas import Canvas, project

VISIBLE_MIN = 0.6  # an index is labelled when at least this share of its box is unoccluded and in frame
# ... and this share of its rank half too (`rank_half`): a corner showing its suit but not its rank names no card
RANK_VISIBLE_MIN = 0.6
SEAT_ANGLE = {1: 0.0, 2: 90.0, 3: 180.0, 4: 270.0}  # clockwise turn of a card facing that seat


@dataclass(frozen=True)
class SeatLayout:
    seat: int
    front: tuple[str, ...] = ()
    middle: tuple[str, ...] = ()
    back: tuple[str, ...] = ()
    dead: bool = False
    face_down: bool = False
    pile: tuple[str, ...] = ()
    stack: int = 0

    def __post_init__(self) -> None:
        if self.seat not in SEAT_ANGLE:
            raise ValueError(f"seat {self.seat}: seats are 1 to 4")
        for name in ("front", "middle", "back", "pile"):
            for card in getattr(self, name):
                if card not in CLASS_NAMES:
                    raise ValueError(f"seat {self.seat} {name}: {card!r} is not a card class")


@dataclass(frozen=True)
class TableLayout:
    seats: tuple[SeatLayout, ...]
    size: tuple[int, int] = (1920, 1080)


@dataclass(frozen=True)
class RenderedScene:
    image: np.ndarray
    scene: dict = field(compare=False)


@dataclass(frozen=True)
class Placement:
    """One card on the table layout (layout pixels, before the camera)."""

    card: str | None  # None: an anonymous back
    centre: tuple[float, float]
    angle: float  # clockwise degrees; 0 = upright (faces seat 1)
    height: float  # card height in layout pixels
    face_up: bool
    seat: int | None = None
    row: str | None = None
    position: int | None = None
    labelled: bool = True  # False: drawn, not listed in the scene (anonymous backs)


@dataclass(frozen=True)
class Geometry:
    """Sizes of a layout, in layout pixels."""

    card_height: float
    edge: float  # distance from the table edge to the back row's near side
    row_gap: float  # centre-to-centre distance of rows (in card heights)
    fan_step: float  # centre-to-centre distance of cards in a row (in card widths)
    jitter: float = 0.0

    @classmethod
    def default(cls, size: tuple[int, int], card_height: float | None = None) -> "Geometry":
        h = size[1]
        return cls(card_height=card_height or round(0.118 * h), edge=0.05 * h, row_gap=0.62, fan_step=0.4)

    @classmethod
    def random(cls, size: tuple[int, int], rng: np.random.Generator, jitter: float,
               card_height: float | None = None) -> "Geometry":
        h = size[1]
        return cls(
            card_height=card_height or h * rng.uniform(0.095, 0.15),
            edge=h * rng.uniform(0.01, 0.1),
            row_gap=float(rng.choice([rng.uniform(0.5, 0.75), rng.uniform(0.75, 1.15)], p=[0.7, 0.3])),
            fan_step=float(rng.choice([rng.uniform(0.3, 0.5), rng.uniform(0.5, 1.05)], p=[0.75, 0.25])),
            jitter=jitter,
        )


def seat_point(seat: int, u: float, d: float, size: tuple[int, int]) -> tuple[float, float]:
    """Layout point `u` along seat's edge (to the player's right) and `d` in from its edge."""
    w, h = size
    a = np.deg2rad(SEAT_ANGLE[seat])
    depth = h / 2 if seat in (1, 3) else w / 2
    x, y = u, depth - d
    return (w / 2 + np.cos(a) * x - np.sin(a) * y, h / 2 + np.sin(a) * x + np.cos(a) * y)


def seat_placements(seat: SeatLayout, geo: Geometry, size: tuple[int, int], aspect: float,
                    rng: np.random.Generator, reverse_fan: bool = False) -> list[Placement]:
    """Cards of one seat, in drawing order (later cards on top)."""
    ch = geo.card_height
    cw = ch * aspect
    j = geo.jitter
    base = SEAT_ANGLE[seat.seat]
    seat_shift = rng.normal(0, j * 0.5 * ch)
    d_back = geo.edge + ch / 2 + abs(rng.normal(0, j * 0.1 * ch))
    d_row = {"back": d_back, "middle": d_back + geo.row_gap * ch, "front": d_back + 2 * geo.row_gap * ch}
    out: list[Placement] = []

    def put(card, u, d, angle, face_up, row, position, labelled=True):
        cx, cy = seat_point(seat.seat, u, d, size)
        out.append(Placement(card, (cx, cy), angle % 360.0, ch, face_up, seat.seat, row, position, labelled))

    def squared_pile(cards, d, top_face_up=False, count=None):
        items = list(cards) if cards else [None] * (count or 0)
        u0 = seat_shift + rng.normal(0, j * 0.2 * ch)
        ang0 = base + rng.normal(0, 4 + 8 * j)
        order = list(range(len(items)))[::-1]  # pile[0] is on top: draw it last
        for k in order:
            face_up = top_face_up and k == 0
            put(items[k], u0 + rng.normal(0, 1.0 + 3 * j), d + rng.normal(0, 1.0 + 3 * j),
                ang0 + rng.normal(0, 1.5 + 3 * j), face_up, "pile" if items[k] else None, k,
                labelled=items[k] is not None)

    if seat.dead:
        cards = seat.front + seat.middle + seat.back + seat.pile
        squared_pile(cards, d_row["middle"], count=13)
        return out
    if seat.stack:
        squared_pile((), d_row["middle"] + rng.normal(0, j * 0.3 * ch), count=seat.stack)
    if seat.pile:
        if seat.face_down:
            squared_pile(seat.pile, d_row["middle"], top_face_up=True)
        else:
            step = cw * min(geo.fan_step, 0.4)
            row_angle = rng.normal(0, 2.5 * j)
            n = len(seat.pile)
            for k, card in enumerate(seat.pile):
                u = seat_shift + (k - (n - 1) / 2) * step + rng.normal(0, j * 0.03 * ch)
                d = d_row["middle"] + (k - (n - 1) / 2) * step * np.tan(np.deg2rad(row_angle))
                put(card, u, d, base - row_angle + rng.normal(0, 2 * j), True, "pile", k)
        return out
    for row in ROWS:  # front first: nearer rows lie on top of the farther ones
        cards = getattr(seat, row)
        n = len(cards)
        if not n:
            continue
        step = cw * geo.fan_step * (1.0 + rng.normal(0, 0.08 * j))
        row_angle = rng.normal(0, 3.0 * j)
        u_row = seat_shift + rng.normal(0, j * 0.25 * ch)
        d = d_row[row] + rng.normal(0, j * 0.06 * ch)
        curve = rng.normal(0, 1.5 * j)  # a slight arc in the fan
        order = range(n - 1, -1, -1) if reverse_fan else range(n)
        for k in order:
            t = k - (n - 1) / 2
            u = u_row + t * step + rng.normal(0, j * 0.025 * ch)
            dd = d + t * step * np.tan(np.deg2rad(row_angle)) + rng.normal(0, j * 0.025 * ch) - abs(t) * curve
            put(cards[k], u, dd, base - row_angle + t * curve + rng.normal(0, 2.0 * j), not seat.face_down,
                row, k)
    return out


def layout_placements(layout: TableLayout, geo: Geometry, aspect: float, rng: np.random.Generator,
                      reverse_fan: float = 0.0) -> list[Placement]:
    """Every seat's cards; each seat draws from its own random stream, so changing one seat
    (a stack turned into rows, rows turned face up) leaves the other seats' cards in place."""
    base = int(rng.integers(2**62))
    out = []
    for seat in layout.seats:
        seat_rng = np.random.default_rng([base, seat.seat])
        out += seat_placements(seat, geo, layout.size, aspect, seat_rng, reverse_fan=seat_rng.random() < reverse_fan)
    return out


# ---------------------------------------------------------------------------
# rendering

_SCALED: dict = {}


def _scaled_art(deck: Deck, name: str | None, height: float) -> tuple[np.ndarray, float]:
    """Card art pre-shrunk close to `height` (INTER_AREA keeps glyphs clean); returns (art, scale)."""
    src = deck.back if name is None else deck.cards[name].image
    target = max(8, int(round(height * 1.15)))
    if target >= src.shape[0]:
        return src, 1.0
    key = (deck.id, name, target)
    art = _SCALED.get(key)
    if art is None:
        if len(_SCALED) > 600:
            _SCALED.clear()
        width = max(4, round(src.shape[1] * target / src.shape[0]))
        art = cv2.resize(src, (width, target), interpolation=cv2.INTER_AREA)
        _SCALED[key] = art
    return art, art.shape[0] / src.shape[0]


def card_matrix(p: Placement, art_size: tuple[int, int]) -> np.ndarray:
    """3x3 matrix: original card-art pixels -> layout pixels."""
    aw, ah = art_size
    s = p.height / ah
    a = np.deg2rad(p.angle)
    c, sn = np.cos(a), np.sin(a)
    m = np.array([[c * s, -sn * s, 0.0], [sn * s, c * s, 0.0], [0.0, 0.0, 1.0]])
    offset = m[:2, :2] @ np.array([aw / 2, ah / 2])
    m[0, 2] = p.centre[0] - offset[0]
    m[1, 2] = p.centre[1] - offset[1]
    return m


def rank_half(box, card_height: float) -> tuple[float, float, float, float]:
    """The half of an index box (art pixels) that prints the rank: the half nearer the card's end it
    stands at, since an index reads rank then suit from the card's edge inwards (the bottom index turned).

    >>> rank_half((4, 6, 20, 46), 240), rank_half((135, 194, 151, 234), 240)
    ((4, 6, 20, 26.0), (135, 214.0, 151, 234))
    """
    x1, y1, x2, y2 = box
    middle = (y1 + y2) / 2
    return (x1, y1, x2, middle) if middle < card_height / 2 else (x1, middle, x2, y2)


def _box_corners(box) -> np.ndarray:
    x1, y1, x2, y2 = box
    return np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)


def render_placements(
    placements: list[Placement],
    deck: Deck,
    rng: np.random.Generator,
    params: CameraParams,
    size: tuple[int, int],
    *,
    kind: str,
    seats: list[dict] | None = None,
    card_height: float | None = None,
) -> RenderedScene:
    w, h = size
    # separate streams: the table and camera stay the same whatever cards lie on it
    base = int(rng.integers(2**62))
    table_rng, card_rng, photo_rng = (np.random.default_rng([base, k]) for k in range(3))
    hmat = homography(params, size, table_rng)
    bg = backgrounds.surface(table_rng, (h, w), params.background, colour=params.felt_colour)
    if params.markings:
        backgrounds.print_markings(table_rng, bg)
    if params.rail:
        grow = table_rng.uniform(0.0, 0.05)
        table = np.array([[-grow * w, -grow * h], [(1 + grow) * w, -grow * h], [(1 + grow) * w, (1 + grow) * h],
                          [-grow * w, (1 + grow) * h]])
        backgrounds.rail(table_rng, bg, project(hmat, table))
    canvas = Canvas(bg)
    ch = card_height or (placements[0].height if placements else 0.118 * h)
    if params.chips:
        distractors.add_chips(table_rng, canvas, params.chips, ch)
    random_look = params.jitter > 0
    entries = []
    aw, ah = deck.size
    for owner, p in enumerate(placements):
        name = p.card if p.face_up else None
        if p.face_up and (p.card is None or not deck.has(p.card)):
            raise ValueError(f"deck {deck.id} has no usable art for card {p.card!r}")
        art, s = _scaled_art(deck, name, p.height * _scale_of(hmat))
        m_layout = card_matrix(p, (aw, ah))
        m_frame = hmat @ m_layout
        shrink = np.diag([1 / s, 1 / s, 1.0])
        shade = float(card_rng.uniform(0.88, 1.04)) if random_look else 1.0
        canvas.paste(art, m_frame @ shrink, owner, shadow=0.3 if not random_look else float(card_rng.uniform(0.15, 0.5)),
                     shadow_offset=(1.5, 2.5), shade=shade)
        polygon = project(m_frame, _box_corners((0, 0, aw, ah)))
        quads = []
        if p.face_up:
            quads = [(project(m_frame, _box_corners(b)), project(m_frame, _box_corners(rank_half(b, ah))))
                     for b in deck.cards[p.card].index]
        entries.append((owner, p, polygon, quads))
    if params.hands:
        distractors.add_hands(card_rng, canvas, params.hands, ch, (0, 0, w, h))
    cards = []
    for owner, p, polygon, quads in entries:
        if not p.labelled:
            continue
        corners = []
        for quad, rank in quads:
            if (canvas.visible_fraction(quad, owner) >= VISIBLE_MIN
                    and canvas.visible_fraction(rank, owner) >= RANK_VISIBLE_MIN):
                x1, y1 = quad.min(axis=0)
                x2, y2 = quad.max(axis=0)
                corners.append([round(float(max(0.0, x1)), 1), round(float(max(0.0, y1)), 1),
                                round(float(min(w, x2)), 1), round(float(min(h, y2)), 1)])
        cards.append({
            "card": p.card,
            "polygon": [[round(float(x), 1), round(float(y), 1)] for x, y in polygon],
            "corners": corners,
            "face_up": p.face_up,
            "seat": p.seat,
            "row": p.row,
            "position": p.position,
        })
    image = photometric(canvas.image, params, photo_rng)
    scene = {"image": "", "size": [w, h], "deck": deck.id, "kind": kind, "cards": cards}
    if seats is not None:
        scene["seats"] = seats
    return RenderedScene(image=image, scene=scene)


def _scale_of(hmat: np.ndarray) -> float:
    """Approximate linear scale of the homography near the frame centre."""
    a = hmat[:2, :2] / hmat[2, 2]
    return float(np.sqrt(abs(np.linalg.det(a)))) or 1.0


def seats_json(layout: TableLayout) -> list[dict]:
    return [{"seat": s.seat, "dead": s.dead, "natural_pile": bool(s.pile) and not s.dead} for s in layout.seats]


def render_table(layout: TableLayout, deck: str, seed: int, camera: dict | None = None, *,
                 kind: str = "showdown", reverse_fan: float | None = None) -> RenderedScene:
    """Render `layout` with deck design `deck`. Same inputs, same pixels.

    camera: None for a clean square-on overhead camera; `{"preset": "random"}` for the
    training mix; single settings as listed in `kiosk_lab.synth.camera`.
    reverse_fan: the share of seats fanned right over left, which hides most indices
    under the next row (default 0.1 with a jittered camera, else 0).
    """
    rng = np.random.default_rng(seed)
    params = CameraParams.from_dict(camera, rng)
    d = load_deck(deck)
    aspect = d.size[0] / d.size[1]
    if params.geometry == "random":
        geo = Geometry.random(layout.size, rng, params.jitter, params.card_height)
    else:
        geo = replace(Geometry.default(layout.size, params.card_height), jitter=params.jitter)
    if reverse_fan is None:
        reverse_fan = 0.1 if params.jitter > 0 else 0.0
    placements = layout_placements(layout, geo, aspect, rng, reverse_fan=reverse_fan)
    return render_placements(placements, d, rng, params, layout.size, kind=kind, seats=seats_json(layout),
                             card_height=geo.card_height)
