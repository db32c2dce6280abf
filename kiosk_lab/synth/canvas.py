"""A drawing surface that remembers which object is on top at every pixel.

Cards and occluders are pasted with an affine transform inside their own bounding
box only (fast). `owner` holds, per pixel, the id of the topmost card (>= 0), -2 for
an occluder (hand, chip) and -1 for the table, so the visible share of each corner
index is measured exactly after everything is drawn.
"""

from __future__ import annotations

import cv2
import numpy as np

TABLE = -1
OCCLUDER = -2


def project(matrix: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply a 3x3 homography to (n, 2) points."""
    pts = np.asarray(pts, np.float64)
    hom = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(matrix, np.float64).T
    return hom[:, :2] / hom[:, 2:3]


def _warp(art: np.ndarray, m: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    border = (0, 0, 0, 0) if art.ndim == 3 else 0
    if abs(m[2, 0]) < 1e-12 and abs(m[2, 1]) < 1e-12:
        return cv2.warpAffine(art, (m[:2] / m[2, 2]).astype(np.float64), size, flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=border)
    return cv2.warpPerspective(art, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                               borderValue=border)


class Canvas:
    def __init__(self, background: np.ndarray):
        self.image = background  # BGR uint8, drawn into in place
        h, w = background.shape[:2]
        self.owner = np.full((h, w), TABLE, np.int32)

    @property
    def size(self) -> tuple[int, int]:
        return self.image.shape[1], self.image.shape[0]

    def _roi(self, corners: np.ndarray, pad: int = 2) -> tuple[int, int, int, int] | None:
        w, h = self.size
        x1 = max(0, int(np.floor(corners[:, 0].min())) - pad)
        y1 = max(0, int(np.floor(corners[:, 1].min())) - pad)
        x2 = min(w, int(np.ceil(corners[:, 0].max())) + pad)
        y2 = min(h, int(np.ceil(corners[:, 1].max())) + pad)
        if x2 <= x1 or y2 <= y1:
            return None
        return x1, y1, x2, y2

    def paste(
        self,
        art: np.ndarray,
        matrix: np.ndarray,  # 2x3 affine or 3x3 homography, art pixels -> canvas pixels
        owner: int,
        *,
        shadow: float = 0.0,
        shadow_offset: tuple[float, float] = (2.0, 3.0),
        shade: float = 1.0,
    ) -> None:
        """Paste BGRA `art` through `matrix` (art pixels -> canvas pixels)."""
        ah, aw = art.shape[:2]
        matrix = np.asarray(matrix, np.float64)
        if matrix.shape == (2, 3):
            matrix = np.vstack([matrix, [0.0, 0.0, 1.0]])
        corners = np.array([[0, 0], [aw, 0], [aw, ah], [0, ah]], np.float64)
        placed = project(matrix, corners)
        sx, sy = shadow_offset
        spread = 4 + int(abs(sx) + abs(sy))
        roi = self._roi(np.vstack([placed, placed + [sx, sy]]), pad=spread)
        if roi is None:
            return
        x1, y1, x2, y2 = roi
        m = np.array([[1, 0, -x1], [0, 1, -y1], [0, 0, 1]], np.float64) @ matrix
        size = (x2 - x1, y2 - y1)
        warped = _warp(art, m, size)
        alpha = warped[:, :, 3].astype(np.float32) * (1.0 / 255.0)
        region = self.image[y1:y2, x1:x2].astype(np.float32)
        if shadow > 0:
            ms = np.array([[1, 0, sx], [0, 1, sy], [0, 0, 1]], np.float64) @ m
            sh = _warp(art[:, :, 3], ms, size).astype(np.float32)
            k = 2 * (spread // 2) + 1
            sh = cv2.GaussianBlur(sh, (k, k), 0) * (shadow / 255.0)
            region *= (1.0 - sh)[:, :, None]
        colour = warped[:, :, :3].astype(np.float32)
        if shade != 1.0:
            colour *= shade
        a3 = alpha[:, :, None]
        region = colour * a3 + region * (1.0 - a3)
        self.image[y1:y2, x1:x2] = np.clip(region, 0, 255).astype(np.uint8)
        self.owner[y1:y2, x1:x2][alpha > 0.5] = owner

    def visible_fraction(self, quad: np.ndarray, owner: int) -> float:
        """Share of the quad's area (canvas pixels) where `owner` is on top.

        Parts of the quad outside the canvas count as hidden.
        """
        roi = self._roi(quad, pad=1)
        area = float(cv2.contourArea(quad.astype(np.float32)))
        if roi is None or area < 1:
            return 0.0
        x1, y1, x2, y2 = roi
        mask = np.zeros((y2 - y1, x2 - x1), np.uint8)
        pts = np.round((quad - [x1, y1]) * 4).astype(np.int32)
        cv2.fillConvexPoly(mask, pts, 1, lineType=cv2.LINE_8, shift=2)
        total = int(mask.sum())
        if total == 0:
            return 0.0
        mine = int(((self.owner[y1:y2, x1:x2] == owner) & (mask > 0)).sum())
        return min(1.0, mine / max(total, area))
