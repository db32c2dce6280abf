"""The context check: is a found index on a face-up card, judged from what lies around it?

The index classifier sees an index alone and cannot tell an ace printed on a card back
(kde-nicu's backs picture a fan of four aces) from a face-up ace. This small classifier
(`card` / `not`) sees `CONTEXT_PAD` x the index's long side around it, so the card or back the
index sits on. A single picture (`kiosk detect`, `kiosk eval`) drops a reading whose every
corner it calls `not` with at least `stages.context_check.drop` (reader.json); camera frames are not checked.
"""

from __future__ import annotations

import numpy as np

from kiosk.vision.geometry import square_crop

CONTEXT_PAD = 3.5
CONTEXT_SIZE = 64


def context_crop(image: np.ndarray, box, shift=(0.0, 0.0), zoom: float = 1.0, pad: float = CONTEXT_PAD,
                 size: int = CONTEXT_SIZE) -> np.ndarray:
    """The square around an index box the context check reads (BGR, CONTEXT_SIZE px): CONTEXT_PAD x the
    box's long side, so an index 20 px tall brings 70 px of its surroundings.

    >>> felt = np.zeros((400, 400, 3), np.uint8); felt[172:228, 172:228] = 255  # a card 56 px wide
    >>> cut = context_crop(felt, (190, 190, 210, 210))   # a 20 px index in the middle of it
    >>> cut.shape, int(cut[32, 32, 0]), int(cut[1, 1, 0])  # the card in the middle, felt at the edge
    ((64, 64, 3), 255, 0)
    """
    return square_crop(image, box, size, pad=pad, shift=shift, zoom=zoom, shrink_area=True)


class ContextCheck:
    """P(`not` a face-up card's index) for index boxes, read at four quarter turns and averaged."""

    def __init__(self, runner, names: list[str], pad: float = CONTEXT_PAD, size: int = CONTEXT_SIZE):
        self._run = runner
        self._not = names.index("not")
        self.pad, self.size = pad, size

    def not_card(self, image: np.ndarray, boxes) -> np.ndarray:
        if not boxes:
            return np.zeros(0)
        crops = np.stack([context_crop(image, b, pad=self.pad, size=self.size) for b in boxes])
        total = np.zeros(len(crops))
        for t in range(4):
            turned = np.ascontiguousarray(np.rot90(crops, t, axes=(1, 2)))
            total += self._run(turned)[:, self._not]
        return total / 4
