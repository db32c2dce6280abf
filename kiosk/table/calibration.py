"""The felt's corners from four ArUco markers (DICT_4X4_50, ids 0-3).

Marker k sits at the felt corner that is seat (k+1)'s left as that player sees it, i.e.
clockwise from seat 1's left seen from above: 0 bottom-left, 1 top-left, 2 top-right,
3 bottom-right. Each corner is the marker's centre (stick the markers on the felt's
corners, or on the rail just outside them).
"""

from __future__ import annotations

import cv2
import numpy as np

from kiosk.errors import KioskError

DICTIONARY = cv2.aruco.DICT_4X4_50
CORNER_NAMES = ("0 (bottom-left, seat 1's left)", "1 (top-left, seat 2's left)",
                "2 (top-right, seat 3's left)", "3 (bottom-right, seat 4's left)")


def find_markers(image: np.ndarray) -> dict[int, tuple[float, float]]:
    """Centre of each ArUco marker (ids 0-3 only) found in the image."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(DICTIONARY), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(grey)
    found: dict[int, tuple[float, float]] = {}
    if ids is None:
        return found
    for quad, marker_id in zip(corners, ids.ravel()):
        if 0 <= int(marker_id) <= 3:
            c = quad.reshape(4, 2).mean(axis=0)
            found[int(marker_id)] = (round(float(c[0]), 1), round(float(c[1]), 1))
    return found


def find_corners(image: np.ndarray, where: str = "the image") -> tuple[tuple[float, float], ...]:
    """The four felt corners [bottom-left, top-left, top-right, bottom-right], or a clear error."""
    found = find_markers(image)
    missing = [CORNER_NAMES[i] for i in range(4) if i not in found]
    if missing:
        raise KioskError(
            f"ArUco marker{'s' if len(missing) > 1 else ''} {', '.join(missing)} not found in {where}"
            f" (found: {', '.join(str(i) for i in sorted(found)) or 'none'}; dictionary DICT_4X4_50)",
            exit_code=1,
        )
    return tuple(found[i] for i in range(4))


def marker_image(marker_id: int, size: int = 120) -> np.ndarray:
    """A printable marker (white border included), for tests and for printing."""
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    inner = cv2.aruco.generateImageMarker(dictionary, marker_id, size)
    return cv2.copyMakeBorder(inner, size // 5, size // 5, size // 5, size // 5, cv2.BORDER_CONSTANT, value=255)
