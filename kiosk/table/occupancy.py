"""What covers the felt: a cheap colour test that sees face-down cards, piles and hands.

The reader only sees face-up indices, so "cards down" (set hands lying face down, a
natural's pile) and "cleared" (the felt swept) are judged here: the felt is the
dominant colour of the frame, and a seat zone is occupied where a downscaled frame
differs from it. Face-up and face-down cards, chips and the dealer's hands all count;
that is enough to tell an empty seat from one with cards on it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from kiosk.table.layout import TableGeometry

GRID_WIDTH = 192  # the frame is judged at this width (1920 -> 10x smaller)


@dataclass(frozen=True, slots=True)
class Occupancy:
    seats: dict  # seat -> share of its zone covered by something other than felt
    felt: float  # share of the whole felt covered
    mask: np.ndarray  # bool grid, True where not felt
    scale: float  # grid pixels per image pixel
    blobs: dict = None  # seat -> area (image px^2) of the largest covered patch in its zone

    def empty_at(self, image_xy: tuple[float, float]) -> bool:
        """Is the felt visible at this image point (nothing lying or held there)?"""
        x = int(image_xy[0] * self.scale)
        y = int(image_xy[1] * self.scale)
        h, w = self.mask.shape
        x0, x1 = max(0, x - 1), min(w, x + 2)
        y0, y1 = max(0, y - 1), min(h, y + 2)
        if x0 >= x1 or y0 >= y1:
            return True
        return not self.mask[y0:y1, x0:x1].any()


class FeltModel:
    """Per-seat occupancy of frames of one geometry (the zone grid is computed once)."""

    def __init__(self, geometry: TableGeometry, threshold: float = 28.0):
        self.geometry = geometry
        self.threshold = threshold
        w, h = geometry.image_size
        self.scale = GRID_WIDTH / float(w)
        self.grid = (GRID_WIDTH, max(1, int(round(h * self.scale))))
        self.labels = self._seat_labels()
        self._felt: np.ndarray | None = None

    def _seat_labels(self) -> np.ndarray:
        gw, gh = self.grid
        ys, xs = np.mgrid[0:gh, 0:gw]
        points = np.stack([(xs + 0.5) / self.scale, (ys + 0.5) / self.scale], -1).reshape(-1, 2)
        labels = np.zeros(len(points), np.int16)
        table = self.geometry.to_table(points)
        if any(s.zone is not None for s in self.geometry.seats.values()):
            canvas = np.zeros((gh, gw), np.int16)
            for seat in self.geometry.seats.values():
                if seat.zone is not None:
                    poly = np.round(seat.zone * self.scale).astype(np.int32)
                    cv2.fillPoly(canvas, [poly], int(seat.seat))
            return canvas
        tw, th = self.geometry.table_size
        u, v = table[:, 0] / tw, table[:, 1] / th
        inside = (u >= 0) & (u <= 1) & (v >= 0) & (v <= 1)
        edges = np.stack([1 - v, u, v, 1 - u], 1)  # bottom, left, top, right
        nearest = np.argmin(edges, 1)
        facing_to_seat = {s.facing: s.seat for s in self.geometry.seats.values()}
        for i, facing in enumerate(("bottom", "left", "top", "right")):
            if facing in facing_to_seat:
                labels[(nearest == i) & inside] = facing_to_seat[facing]
        return labels.reshape(gh, gw)

    def measure(self, image: np.ndarray) -> Occupancy:
        step = max(1, image.shape[1] // (GRID_WIDTH * 2))  # decimate first: INTER_AREA on 1080p is slow
        small = cv2.resize(image[::step, ::step], self.grid, interpolation=cv2.INTER_AREA)
        lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
        felt = np.median(lab.reshape(-1, 3), axis=0)
        # The felt colour drifts slowly (light, exposure); follow it without jumping to a
        # frame that happens to be mostly cards.
        self._felt = felt if self._felt is None else 0.9 * self._felt + 0.1 * felt
        distance = np.linalg.norm(lab - self._felt, axis=2)
        mask = distance > self.threshold
        mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)).astype(bool)
        seats, blobs = {}, {}
        for seat in self.geometry.seats:
            zone = self.labels == seat
            total = int(zone.sum())
            covered = mask & zone
            seats[seat] = float(covered.sum()) / total if total else 0.0
            blobs[seat] = 0.0
            if seats[seat] > 0:
                n, _, stats, _ = cv2.connectedComponentsWithStats(covered.astype(np.uint8), connectivity=8)
                if n > 1:
                    blobs[seat] = float(stats[1:, cv2.CC_STAT_AREA].max()) / (self.scale * self.scale)
        on_felt = self.labels > 0
        felt_share = float(mask[on_felt].sum()) / max(1, int(on_felt.sum()))
        return Occupancy(seats, felt_share, mask, self.scale, blobs)
