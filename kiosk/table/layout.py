"""Where each card lies: seat, row and position, whatever way the seat faces.

Table coordinates: the felt mapped to a rectangle (through the homography of its four
corners when they are configured; the frame itself otherwise), seen from above with
seat 1's edge at the bottom. For every seat we measure two things in those coordinates:
`depth`, the distance from the seat's own edge towards the centre, and `lateral`, the
position left to right as the player sees it. Rows are the three bands of depth of a
seat's cards (back nearest the edge, then middle, front nearest the centre); the band
positions come from the cards themselves, so a layout shifted on the felt still reads.

>>> geo = TableGeometry.default((1920, 1080))
>>> geo.seat_at((960, 1000)), geo.seat_at((100, 540)), geo.seat_at((960, 60)), geo.seat_at((1850, 540))
(1, 2, 3, 4)
>>> geo.depth_lateral(3, geo.to_table([(900.0, 50.0)])[0])   # seat 3 sits at the top, upside down
(50.0, 1020.0)
>>> rows_by_depth([10, 12, 11, 60, 61, 59, 58, 62, 110, 111, 109, 112, 108], range(13))
['back', 'back', 'back', 'middle', 'middle', 'middle', 'middle', 'middle', 'front', 'front', 'front', 'front', 'front']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from kiosk.cards import ROW_SIZES, ROWS
from kiosk.table.config import DEFAULT_FACING, KioskConfig


@dataclass(frozen=True)
class SeatGeometry:
    seat: int
    facing: str  # the table edge the seat sits at: bottom | left | top | right
    zone: np.ndarray | None  # polygon in image pixels; None = default zone (diagonal split)
    bands: tuple[float, float] | None = None


def outside_frame(cfg: KioskConfig, image_size: tuple[int, int], slack: float = 0.05) -> str | None:
    """What of the configured geometry lies outside frames of this size (more than `slack` of it
    beyond an edge): pixels of another camera size, most likely. None when it fits.

    >>> from kiosk.table.config import KioskConfig
    >>> cfg = KioskConfig.model_validate({"geometry": {"corners": [[120, 2080], [160, 80], [3700, 60], [3760, 2100]]}})
    >>> outside_frame(cfg, (3840, 2160)) is None
    True
    >>> outside_frame(cfg, (1920, 1080))
    'geometry.corners reach (3760, 2100), outside this 1920x1080 frame: calibrated at another camera size? (config camera.size)'
    """
    w, h = image_size
    named = [("geometry.corners", cfg.geometry.corners or ())]
    named += [(f"geometry.seats (seat {z.seat})", z.zone) for z in cfg.geometry.seats or ()]
    for key, points in named:
        far = [(x, y) for x, y in points if not (-slack * w <= x <= (1 + slack) * w and -slack * h <= y <= (1 + slack) * h)]
        if far:
            x, y = max(far, key=lambda p: max(p[0] / w, p[1] / h, -p[0] / w, -p[1] / h))
            return (f"{key} reach ({x:g}, {y:g}), outside this {w}x{h} frame: calibrated at another camera size? "
                    "(config camera.size)")
    return None


class TableGeometry:
    """Image pixels -> table coordinates -> seat, depth and lateral position."""

    def __init__(
        self,
        image_size: tuple[int, int],
        seats: Sequence[SeatGeometry],
        corners: Sequence[tuple[float, float]] | None = None,
        rows_mode: str = "cluster",
    ):
        self.image_size = image_size
        self.seats = {s.seat: s for s in seats}
        self.rows_mode = rows_mode
        if corners is None:
            self.table_size = (float(image_size[0]), float(image_size[1]))
            self.homography = None
        else:
            c = np.asarray(corners, np.float64)  # bottom-left, top-left, top-right, bottom-right
            width = (np.linalg.norm(c[2] - c[1]) + np.linalg.norm(c[3] - c[0])) / 2
            height = (np.linalg.norm(c[0] - c[1]) + np.linalg.norm(c[3] - c[2])) / 2
            self.table_size = (float(width), float(height))
            target = np.array([[0, height], [0, 0], [width, 0], [width, height]], np.float64)
            self.homography = cv2.getPerspectiveTransform(c.astype(np.float32), target.astype(np.float32))

    @classmethod
    def default(cls, image_size: tuple[int, int]) -> "TableGeometry":
        return cls(image_size, [SeatGeometry(s, f, None) for s, f in DEFAULT_FACING.items()])

    @classmethod
    def from_config(
        cls, cfg: KioskConfig, image_size: tuple[int, int], corners=None
    ) -> "TableGeometry":
        """`corners` (found by ArUco on the first frame) override the configured ones."""
        geo = cfg.geometry
        if geo.seats is None:
            seats = [SeatGeometry(s, f, None) for s, f in DEFAULT_FACING.items()]
        else:
            seats = [
                SeatGeometry(z.seat, z.facing, np.asarray(z.zone, np.float32), z.bands) for z in geo.seats
            ]
        return cls(image_size, seats, corners if corners is not None else geo.corners, geo.rows)

    # -- coordinates -------------------------------------------------------------------
    def to_table(self, points: Sequence[tuple[float, float]]) -> np.ndarray:
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        if self.homography is None or len(pts) == 0:
            return pts
        return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self.homography).reshape(-1, 2)

    def on_felt(self, table_xy: np.ndarray, margin: float = 0.03) -> bool:
        w, h = self.table_size
        x, y = table_xy
        return -margin * w <= x <= (1 + margin) * w and -margin * h <= y <= (1 + margin) * h

    def seat_at(self, image_xy: tuple[float, float], table_xy: np.ndarray | None = None) -> int | None:
        """The seat whose zone holds this image point (None: outside every zone)."""
        if table_xy is None:
            table_xy = self.to_table([image_xy])[0]
        if any(s.zone is not None for s in self.seats.values()):
            for seat in self.seats.values():
                if seat.zone is not None and cv2.pointPolygonTest(
                    seat.zone.reshape(-1, 1, 2), (float(image_xy[0]), float(image_xy[1])), False
                ) >= 0:
                    return seat.seat
            return None
        if not self.on_felt(table_xy):
            return None
        # Default zones: the felt split by its diagonals; the nearest edge (relative to the
        # felt's size) owns the point.
        w, h = self.table_size
        u, v = table_xy[0] / w, table_xy[1] / h
        edge = min((1 - v, "bottom"), (u, "left"), (v, "top"), (1 - u, "right"))[1]
        return next(s.seat for s in self.seats.values() if s.facing == edge)

    def depth_lateral(self, seat: int, table_xy: np.ndarray) -> tuple[float, float]:
        """Distance from the seat's edge, and left-to-right position as that player sees it."""
        w, h = self.table_size
        x, y = float(table_xy[0]), float(table_xy[1])
        facing = self.seats[seat].facing
        if facing == "bottom":
            return h - y, x
        if facing == "top":
            return y, w - x
        if facing == "left":
            return x, y
        return w - x, h - y  # right

    def seat_depth_extent(self, seat: int) -> float:
        """How deep a seat's zone reaches into the table (for fixed row bands)."""
        w, h = self.table_size
        facing = self.seats[seat].facing
        full = h if facing in ("bottom", "top") else w
        return full / 2

    def zone_boxes(self) -> list[tuple[int, int, int, int]]:
        """Bounding box of each configured zone in image pixels (empty for default zones)."""
        out = []
        for seat in self.seats.values():
            if seat.zone is not None:
                x, y, w, h = cv2.boundingRect(seat.zone.astype(np.float32))
                out.append((x, y, x + w, y + h))
        return out


def rows_by_depth(
    depths: Sequence[float], laterals: Sequence[float] | None = None, min_gap: float | None = None
) -> list[str]:
    """Row of each card from its depth: the cards' own three bands (back nearest the edge).

    With `laterals`, the depth axis may be turned a little (a camera not square to the
    felt, a seat laying its rows askew): the turn that gives the cleanest bands is used.
    Splits at the two widest gaps between sorted depths when both stand out from the
    spread inside rows; with fewer clear bands the rows are provisional (the seat is then
    never read as a confident set hand, see the stabiliser).
    """
    n = len(depths)
    if n == 0:
        return []
    d0 = np.asarray(depths, np.float64)
    if laterals is None or n < 4:
        return _rows_1d(d0, min_gap)[0]
    lat = np.asarray(laterals, np.float64) - float(np.mean(laterals))
    best = None

    def consider(deg: float):
        nonlocal best
        t = np.deg2rad(deg)
        labels, (cuts, ratio) = _rows_1d(d0 * np.cos(t) + lat * np.sin(t), min_gap)
        key = (cuts, ratio * (1.0 - 0.01 * abs(deg)))  # the most bands, then the cleanest; square-on on ties
        if best is None or key > best[0]:
            best = (key, labels, deg)

    for deg in np.arange(-15.0, 15.01, 3.0):  # coarse, then around the best
        consider(float(deg))
    centre = best[2]
    for deg in (centre - 2, centre - 1, centre + 1, centre + 2):
        if -15.0 <= deg <= 15.0:
            consider(deg)
    return best[1]


def _rows_1d(values: np.ndarray, min_gap: float | None) -> tuple[list[str], tuple[int, float]]:
    n = len(values)
    order = np.argsort(values, kind="stable")
    d = values[order]
    quality = (0, 0.0)
    if n == 1:
        labels_sorted = ["back"]
    else:
        gaps = np.diff(d)
        widest = np.argsort(gaps, kind="stable")[::-1]
        inner = np.sort(gaps)[: max(1, n - 3)]  # the gaps inside rows
        noise = float(inner[len(inner) // 2]) if len(inner) else 0.0
        spread = float(d[-1] - d[0])
        threshold = max(4.0 * noise, 0.15 * spread, min_gap or 0.0, 1e-6)
        cuts = sorted(int(i) for i in widest[:2] if gaps[i] > threshold)
        if len(cuts) == 2 and n > 3:
            cuts = _past_a_stray(cuts, [int(i) for i in widest[2:3] if gaps[i] > threshold], n)
        if len(cuts) == 2:
            bands = ["back", "middle", "front"]
        elif len(cuts) == 1:
            far = n - 1 - cuts[0]
            bands = ["back", "front"] if far <= 3 else ["back", "middle"]
        else:
            bands = ["back"]
        labels_sorted = []
        band = 0
        for i in range(n):
            labels_sorted.append(bands[band])
            if band < len(cuts) and i == cuts[band]:
                band += 1
        if cuts:
            edges = [0] + [c + 1 for c in cuts] + [n]
            within = max(float(d[b - 1] - d[a]) for a, b in zip(edges, edges[1:]))
            quality = (len(cuts), min(float(gaps[c]) for c in cuts) / (within + 1.0))
    labels = [""] * n
    for rank, idx in enumerate(order):
        labels[idx] = labels_sorted[rank]
    return labels, quality


def _past_a_stray(cuts: list[int], third: list[int], n: int) -> list[int]:
    """A lone reading beyond a seat's outer row (a stray find at its edge) and a band of 6+ cards:
    rows hold at most 5, so cut that band at the next widest gap instead and let the lone
    reading join its neighbour (the stabiliser then judges it as a 14th card).

    >>> _past_a_stray([0, 10], [5], 14)   # 1 | 10 | 3 -> 6 | 5 | 3
    [5, 10]
    >>> _past_a_stray([9, 12], [4], 14)   # 10 | 3 | 1 -> 5 | 5 | 4
    [4, 9]
    >>> _past_a_stray([2, 7], [5], 13)    # 3 | 5 | 5 stays
    [2, 7]
    """
    edges = [-1, cuts[0], cuts[1], n - 1]
    sizes = [b - a for a, b in zip(edges, edges[1:])]
    if not third or max(sizes) <= 5:
        return cuts
    inside = next((i for i in range(3) if edges[i] < third[0] <= edges[i + 1] - 1), None)
    if inside is None or sizes[inside] <= 5:
        return cuts
    if sizes[0] == 1:
        return sorted([cuts[1], third[0]])
    if sizes[2] == 1:
        return sorted([cuts[0], third[0]])
    return cuts


def rows_by_bands(depths: Sequence[float], extent: float, bands: tuple[float, float]) -> list[str]:
    """Rows from fixed bands (fractions of the seat's depth extent)."""
    out = []
    for d in depths:
        f = d / extent if extent else 0.0
        out.append("back" if f < bands[0] else "middle" if f < bands[1] else "front")
    return out


def refit_rows(
    labels: Sequence[str], depths: Sequence[float], laterals: Sequence[float],
    other_points: Sequence[Sequence[tuple[float, float]]] = (), margin: float = 0.5,
) -> tuple[list[str], int | None, tuple[float, float] | None]:
    """A set hand of 13 whose depth bands are no 3/5/5 (a card read a row off): move the one card
    whose move to another row makes 3/5/5 fanned rows, each a step apart, with its row's depth.

    `other_points`: for each card, other (depth, lateral) points that may stand for it (its other
    index, when only one was read). Returns the labels, the card moved (None: no move clearly
    fits better than a move of another card or to another row, by `margin` in fan steps, or none
    fits about as well as the rows as read) and the point it then stands at.

    >>> labels = ["back"] * 6 + ["middle"] * 4 + ["front"] * 3          # the back's last card is
    >>> depths = [10, 11, 10, 12, 11, 12, 70, 71, 70, 72, 130, 131, 130]  # the middle's lower index
    >>> laterals = [0, 50, 100, 150, 200, 270, 25, 75, 125, 175, 50, 100, 150]
    >>> other = [[]] * 5 + [[(72, 220)]] + [[]] * 7
    >>> new, moved, point = refit_rows(labels, depths, laterals, other)
    >>> moved, point, new[5]
    (5, (72.0, 220.0), 'middle')
    >>> refit_rows(labels, depths, laterals)[1] is None   # as it lies, no card fits the middle
    True
    """
    now, moves = refit_moves(labels, depths, laterals, other_points)
    if not moves or moves[0][0] > now + margin:
        return list(labels), None, None
    best, i, there, p = moves[0]
    rival = next((c for c, j, row, _ in moves if (j, row) != (i, there)), None)  # another card or row
    if rival is not None and rival < best + margin:
        return list(labels), None, None
    out = list(labels)
    out[i] = there
    return out, i, (float(p[0]), float(p[1]))


def refit_moves(labels, depths, laterals, other_points=()) -> tuple[float, list]:
    """The cost of the rows as read and of each move to 3/5/5, cheapest first: (cost, card, row,
    point). Cost: each row's gaps off one fan step, and each card's depth off its row's, in steps."""
    n = len(labels)
    counts = {r: list(labels).count(r) for r in ROWS}
    if n != 13 or counts == ROW_SIZES:
        return 0.0, []
    diffs = [d for row in ROWS for d in np.diff(sorted(x for lab, x in zip(labels, laterals) if lab == row))]
    step = float(np.median(diffs)) if len(diffs) >= 4 else 0.0
    if step <= 0:
        return 0.0, []

    def cost(labs, deps, lats) -> float:
        total = 0.0
        for row in ROWS:
            members = [i for i in range(n) if labs[i] == row]
            total += sum(abs(d / step - 1.0) for d in np.diff(sorted(lats[i] for i in members)))
            if members:
                centre = float(np.median([deps[i] for i in members]))
                total += sum(abs(deps[i] - centre) for i in members) / step
        return total

    moves = []
    for i in range(n):
        here = labels[i]
        if counts[here] <= ROW_SIZES[here]:
            continue
        for there in ROWS:
            if dict(counts, **{here: counts[here] - 1, there: counts[there] + 1}) != ROW_SIZES:
                continue
            for p in [(depths[i], laterals[i])] + list(other_points[i] if i < len(other_points) else ()):
                labs, deps, lats = list(labels), list(depths), list(laterals)
                labs[i], deps[i], lats[i] = there, p[0], p[1]
                moves.append((cost(labs, deps, lats), i, there, p))
    moves.sort(key=lambda m: m[0])
    return cost(list(labels), list(depths), list(laterals)), moves
