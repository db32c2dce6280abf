"""Draw a reader's detections on a frame (for `kiosk detect` and debugging)."""

from __future__ import annotations

import cv2
import numpy as np

from kiosk.vision.detections import Detections

DOUBTFUL = 0.8
SURE_COLOUR = (60, 200, 60)
DOUBT_COLOUR = (0, 160, 255)


def annotate(image: np.ndarray, dets: Detections) -> np.ndarray:
    out = image.copy()
    h, w = out.shape[:2]
    thick = max(1, round(max(h, w) / 900))
    scale = max(0.4, max(h, w) / 2200)
    for det in dets.cards:
        colour = SURE_COLOUR if det.confidence >= DOUBTFUL else DOUBT_COLOUR
        x1, y1, x2, y2 = (int(round(v)) for v in det.box)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, thick)
        for c in det.corners:
            cx1, cy1, cx2, cy2 = (int(round(v)) for v in c)
            cv2.rectangle(out, (cx1, cy1), (cx2, cy2), colour, 1)
        label = f"{det.card} {det.confidence:.2f}"
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        ty = max(th + 2, y1 - 2)
        cv2.rectangle(out, (x1, ty - th - 2), (x1 + tw + 2, ty + base), colour, -1)
        cv2.putText(out, label, (x1 + 1, ty - 1), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thick, cv2.LINE_AA)
    return out
