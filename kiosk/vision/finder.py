"""Stage 1 of the card reader: corner-index boxes in frame pixels (kiosk.vision.reader reads them; also used alone
to mine training crops)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from kiosk.vision.backends import open_runner

MAX_UPSCALE = 1.0  # indices in small pictures are already as large as training saw them
# (h, w) the detector reads a frame at: a 1080p frame at full size. At 2/3 (736x1280) it was 30 ms
# faster but lost the narrow index strips of tight fans (rendered hands: 29 of 60 exact, 37 at full size).
DET_INPUT = (1088, 1920)
MIN_SIDE = 96  # a picture shrunk below this many pixels on its short side holds no readable index


def _nms(found: list[tuple[tuple, float]], iou: float) -> list[tuple[tuple, float]]:
    rects = [[x1, y1, x2 - x1, y2 - y1] for (x1, y1, x2, y2), _ in found]
    keep = cv2.dnn.NMSBoxes(rects, [s for _, s in found], 0.0, iou)
    return [found[i] for i in np.asarray(keep).reshape(-1)]


class IndexFinder:
    """Stage 1: corner-index boxes in frame pixels (also used alone to mine training crops)."""

    def __init__(self, det_runner, input_hw=DET_INPUT, conf_threshold: float = 0.1, nms_iou: float = 0.5):
        self._det = det_runner
        self.input_hw = tuple(input_hw)
        self.conf_threshold = conf_threshold
        self.nms_iou = nms_iou

    def find_indices(self, image: np.ndarray, region: tuple[int, int, int, int],
                     scales: tuple[float, ...] = (1.0,)) -> list[tuple[tuple, float]]:
        """Index boxes (frame pixels) and detector scores inside `region`. `scales` > 1 entries read the
        region also shrunk by those factors (a close-up's indices come down to the sizes the detector
        learned), packed beside the first on the detector's input where they fit; the finds of all
        scales are joined by NMS."""
        x0, y0, x1, y1 = region
        patch = image[y0:y1, x0:x1]
        ph, pw = patch.shape[:2]
        turned = ph > pw  # read portrait pictures on their side: more pixels per index
        if turned:
            patch = cv2.rotate(patch, cv2.ROTATE_90_CLOCKWISE)
        h, w = patch.shape[:2]
        in_h, in_w = self.input_hw
        fit = min(in_w / w, in_h / h, MAX_UPSCALE)
        found = []
        for canvas, placed in self._canvases(patch, [fit / s for s in scales if min(w, h) * fit / s >= MIN_SIDE]):
            for (rx1, ry1, rx2, ry2), score in self._detect(canvas):
                for (px, py, nw, nh), r in placed:
                    cx, cy = (rx1 + rx2) / 2, (ry1 + ry2) / 2
                    if px <= cx < px + nw and py <= cy < py + nh:
                        found.append(((max(0.0, rx1 - px) / r, max(0.0, ry1 - py) / r,
                                       min(nw, rx2 - px) / r, min(nh, ry2 - py) / r), score))
        if len(scales) > 1:
            found = _nms(found, self.nms_iou)
        out = []
        for (bx1, by1, bx2, by2), score in found:
            if turned:  # undo the clockwise quarter turn: (x', y') = (ph - y, x)
                bx1, by1, bx2, by2 = by1, ph - bx2, by2, ph - bx1
            box = (max(0.0, bx1) + x0, max(0.0, by1) + y0, min(float(pw), bx2) + x0, min(float(ph), by2) + y0)
            if box[2] - box[0] >= 2 and box[3] - box[1] >= 2:
                out.append((box, score))
        return out

    def _canvases(self, patch: np.ndarray, ratios: list[float]):
        """(detector input, [((x, y, w, h) placed, ratio)]): the patch at each ratio, side by side in a row
        while the row has room, a new input where it has not."""
        in_h, in_w = self.input_hw
        h, w = patch.shape[:2]
        canvas, placed, x = None, [], 0
        for r in ratios:
            nw, nh = max(1, round(w * r)), max(1, round(h * r))
            if canvas is not None and x + nw > in_w:
                yield canvas, placed
                canvas = None
            if canvas is None:
                canvas, placed, x = np.full((in_h, in_w, 3), 114, dtype=np.uint8), [], 0
            if (nw, nh) == (w, h):
                resized = patch
            else:
                resized = cv2.resize(patch, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
            canvas[:nh, x:x + nw] = resized
            placed.append(((x, 0, nw, nh), r))
            x += nw
        if canvas is not None:
            yield canvas, placed

    def _detect(self, canvas: np.ndarray) -> list[tuple[tuple[float, float, float, float], float]]:
        """Index boxes (x1, y1, x2, y2 on the detector's input) and scores, after NMS."""
        pred = self._det(canvas[None])[0]  # (4 + 1, anchors): cx, cy, w, h, score
        scores = pred[4]
        keep = scores >= self.conf_threshold
        if not keep.any():
            return []
        cx, cy, bw, bh = pred[0][keep], pred[1][keep], pred[2][keep], pred[3][keep]
        scores = scores[keep]
        rects = [[float(a - c / 2), float(b - d / 2), float(c), float(d)] for a, b, c, d in zip(cx, cy, bw, bh)]
        idx = cv2.dnn.NMSBoxes(rects, scores.astype(float).tolist(), self.conf_threshold, self.nms_iou)
        return [((rects[i][0], rects[i][1], rects[i][0] + rects[i][2], rects[i][1] + rects[i][3]), float(scores[i]))
                for i in np.asarray(idx).reshape(-1)]


def load_index_finder(weights: Path, backend: str = "pytorch", input_hw=DET_INPUT) -> IndexFinder:
    return IndexFinder(open_runner(backend, Path(weights)), input_hw)
