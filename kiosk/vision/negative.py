"""The negative look of a single picture: a deck printed light on dark faces (gold or silver on black) is read
in the picture's negative, where its indices are dark ink on light paper like every deck the reader learnt.

Only readings whose index lies on a dark face are taken from the negative: elsewhere the negative of a white
card is a dark card, and its readings add nothing but what the negative invents.
"""

from __future__ import annotations

import numpy as np

from kiosk.vision.detections import CardDetection

DARK_FACE = 100  # a face whose index cut has a median grey under this is dark (paper is about 200 and up)


def negative(image: np.ndarray) -> np.ndarray:
    return 255 - image


def on_dark_face(image: np.ndarray, det: CardDetection) -> bool:
    """Is every index of this reading cut from a dark face (median grey of the index box under DARK_FACE)?

    >>> picture = np.full((100, 100, 3), 230, np.uint8); picture[:, 50:] = 20
    >>> rec = lambda x: CardDetection.from_record({"card": "7h", "confidence": 0.9, "box": [x, 0, x + 30, 40],
    ...                                            "corners": [[x, 0, x + 10, 20]]})
    >>> on_dark_face(picture, rec(60)), on_dark_face(picture, rec(5))
    (True, False)
    """
    grey = image.mean(axis=2) if image.ndim == 3 else image
    h, w = grey.shape[:2]
    for x1, y1, x2, y2 in det.corners or (det.box,):
        cut = grey[max(0, int(y1)):min(h, int(y2) + 1), max(0, int(x1)):min(w, int(x2) + 1)]
        if cut.size == 0 or float(np.median(cut)) >= DARK_FACE:
            return False
    return True
