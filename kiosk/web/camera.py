"""The camera view on demand: the latest frame with the read cards outlined and labelled."""

from __future__ import annotations

from typing import Iterable

import cv2
import numpy as np

OK_COLOUR = (60, 200, 60)  # BGR
DOUBT_COLOUR = (0, 170, 255)
CHECK_COLOUR = (40, 40, 230)


def annotate(image: np.ndarray, detections: Iterable, doubtful: set[str] = frozenset(),
             min_confidence: float = 0.8, max_width: int = 1280) -> np.ndarray:
    """A scaled copy of `image` with one outlined, labelled box per detected card.

    Green: read with confidence; orange: below `min_confidence`; red: a card the verdict
    asks the dealer to check. The input image is never modified (the hub shares it).
    """
    height, width = image.shape[:2]
    scale = min(1.0, max_width / float(width))
    out = cv2.resize(image, (round(width * scale), round(height * scale)),
                     interpolation=cv2.INTER_AREA) if scale < 1.0 else image.copy()
    thickness = max(2, round(3 * scale))
    font_scale = max(0.45, 0.75 * scale)
    for det in detections:
        text = str(det.card)
        if text in doubtful:
            colour = CHECK_COLOUR
        elif det.confidence < min_confidence:
            colour = DOUBT_COLOUR
        else:
            colour = OK_COLOUR
        x1, y1, x2, y2 = (int(round(v * scale)) for v in det.box)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, thickness)
        # fanned cards overlap: keep labels short, the confidence only where it matters
        label = text if det.confidence >= min_confidence else f"{text} {det.confidence:.2f}"
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font_scale, 2)
        ty = y1 - 4 if y1 - th - base - 4 >= 0 else y2 + th + 4
        cv2.rectangle(out, (x1, ty - th - base), (x1 + tw + 4, ty + base), colour, -1)
        cv2.putText(out, label, (x1 + 2, ty), cv2.FONT_HERSHEY_SIMPLEX, font_scale, (0, 0, 0), 2,
                    cv2.LINE_AA)
    return out


def camera_jpeg(image: np.ndarray, detections: Iterable, doubtful: set[str] = frozenset(),
                min_confidence: float = 0.8, quality: int = 80) -> bytes:
    annotated = annotate(image, detections, doubtful, min_confidence)
    ok, buf = cv2.imencode(".jpg", annotated, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("could not encode the camera frame as JPEG")
    return buf.tobytes()
