"""A single picture read a second time, turned by 45 degrees.

Cards at a table lie square to their seat's edge, and the detector learnt indices turned by a
few degrees around the four quarter turns. A photo a user hands `kiosk detect` holds cards at
any angle: an index turned 30-60 degrees is often not found at all (real photos: 19 of 527
cards missed, most of them turned about 45 degrees). Read turned by 45 degrees, such a card
lies square again; the turned reading adds the cards found where the picture read none
(`join_turned`).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from kiosk.same_card import INDEX_REACH, same_card
from kiosk.vision.detections import Box, CardDetection
from kiosk.vision.geometry import index_size

TURN_DEGREES = 45.0
# The turned picture is read only if its indices stay at least this large in the detector's
# input (training drew indices of 15-45 px): a 1080p table frame turned would shrink them to half.
MIN_TURNED_INDEX_PX = 18.0


def turned_scale(width: int, height: int, input_hw: tuple[int, int], degrees: float = TURN_DEGREES) -> float:
    """The scale the detector reads a picture turned by `degrees` at (letterboxed, never enlarged).

    >>> round(turned_scale(504, 378, (1088, 1920)), 3)   # a small photo: read at full size
    1.0
    >>> round(turned_scale(1920, 1080, (1088, 1920)), 3)  # a 1080p frame: at half size
    0.513
    """
    side_w, side_h = _turned_size(width, height, degrees)
    long_in, short_in = max(input_hw), min(input_hw)
    return min(1.0, long_in / max(side_w, side_h), short_in / min(side_w, side_h))


def worth_turning(cards: tuple[CardDetection, ...], width: int, height: int, input_hw: tuple[int, int],
                  degrees: float = TURN_DEGREES) -> bool:
    """Is a turned look worth it: the indices found so far (or, with none found, the picture's
    own scale) would still be large enough for the detector to find turned?

    >>> worth_turning((), 504, 378, (1088, 1920))
    True
    >>> card = CardDetection.from_record({"card": "9d", "confidence": 0.9, "box": [0, 0, 60, 90],
    ...                                   "corners": [[0, 0, 16, 30]]})
    >>> worth_turning((card,), 1920, 1080, (1088, 1920))   # a 30 px index read at half size
    False
    """
    scale = turned_scale(width, height, input_hw, degrees)
    sizes = [index_size(b) for c in cards for b in c.corners]
    if not sizes:
        return scale >= MIN_TURNED_INDEX_PX / 45.0  # nothing found: worth a look unless shrunk past training
    return float(np.median(sizes)) * scale >= MIN_TURNED_INDEX_PX


def turn_picture(image: np.ndarray, degrees: float = TURN_DEGREES) -> tuple[np.ndarray, np.ndarray]:
    """The picture turned counter-clockwise by `degrees` on a canvas that holds all of it (the
    border repeated), and the 2x3 matrix taking the turned picture's points back to the picture's."""
    h, w = image.shape[:2]
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    nw, nh = _turned_size(w, h, degrees)
    matrix[0, 2] += nw / 2 - w / 2
    matrix[1, 2] += nh / 2 - h / 2
    turned = cv2.warpAffine(image, matrix, (nw, nh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return turned, cv2.invertAffineTransform(matrix)


def box_back(box: Box, back: np.ndarray, width: int, height: int) -> Box:
    """A turned picture's box as the picture's box holding it (clipped to the picture).

    >>> back = np.array([[0.0, -1.0, 100.0], [1.0, 0.0, 0.0]])   # a quarter turn
    >>> box_back((10, 20, 30, 60), back, 200, 200)
    (40.0, 10.0, 80.0, 30.0)
    """
    x1, y1, x2, y2 = box
    pts = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], dtype=float) @ back[:, :2].T + back[:, 2]
    return (max(0.0, float(pts[:, 0].min())), max(0.0, float(pts[:, 1].min())),
            min(float(width), float(pts[:, 0].max())), min(float(height), float(pts[:, 1].max())))


def detection_back(det: CardDetection, back: np.ndarray, width: int, height: int) -> CardDetection:
    # Its corners' turns are left behind: turned by an eighth, an index stands at no quarter turn of the picture.
    return CardDetection(det.card, det.confidence, box_back(det.box, back, width, height),
                         tuple(box_back(b, back, width, height) for b in det.corners), det.alternatives)


def join_turned(cards: tuple[CardDetection, ...], turned: tuple[CardDetection, ...],
                floor: float = 0.0) -> tuple[CardDetection, ...]:
    """The picture's readings with those of the turned picture (already in the picture's pixels)
    of cards the picture did not read. A card read both ways keeps its upright reading: a
    card lying square is read best square (on the 1080p test scenes a surer turned reading replacing
    it read 27 fewer cards right; on the real photos it changed nothing). A reading under `floor`
    (too unsure to report) gives way to the other look's reading of that card.

    >>> rec = lambda card, p, x: CardDetection.from_record({"card": card, "confidence": p,
    ...     "box": [x, 0, x + 60, 90], "corners": [[x, 0, x + 16, 30]]})
    >>> [str(c.card) for c in join_turned((rec("9d", 0.7, 0),), (rec("9h", 0.9, 4), rec("Ks", 0.8, 300)))]
    ['9d', 'Ks']
    >>> far_corner = rec("9d", 0.8, 40)   # the same card's other index, inside its card box
    >>> len(join_turned((rec("9d", 0.7, 0),), (far_corner,)))
    1
    >>> [(str(c.card), c.confidence) for c in join_turned((rec("9d", 0.4, 0),), (rec("9h", 0.9, 4),), floor=0.6)]
    [('9h', 0.9)]
    """
    kept = [c for c in cards if c.confidence >= floor]
    out = kept + [t for t in turned if not any(_same_card(c, t) for c in kept)]
    out += [c for c in cards if c.confidence < floor and not any(_same_card(c, t) for t in out)]
    return tuple(out)


def _same_card(a: CardDetection, b: CardDetection) -> bool:
    """Are two readings one card (`kiosk.same_card`): one index read by both, or the same card's two indices
    within its reach?"""
    a_indices, b_indices = a.corners or (a.box,), b.corners or (b.box,)
    size = max(index_size(x) for x in (*a_indices, *b_indices))
    return same_card(a.card, a_indices, b.card, b_indices, apart=lambda: math.dist(a.center, b.center),
                     reach=INDEX_REACH * size)


def _turned_size(width: int, height: int, degrees: float) -> tuple[int, int]:
    c, s = abs(math.cos(math.radians(degrees))), abs(math.sin(math.radians(degrees)))
    return int(width * c + height * s + 0.5), int(width * s + height * c + 0.5)
