"""Where each Pai Gow card lies: which spot (0 the banker's, 1-7 the players') and which row.

Coordinates are fractions of the felt seen from above (0,0 top-left, 1,1 bottom-right), after
the felt's homography when its corners are configured. Each spot is a box split in two bands:
the 2-card low row in the band on `low_side`, the 5-card high row in the other. The default
geometry (like Chinese Poker's, the whole frame the felt): the banker at the top centre, its
high row nearer the dealer; seat 1 on the right (the dealer's left), seats 2-6 along the bottom
from right to left, seat 7 on the left; each player's low row nearer the dealer.

>>> spots = default_spots()
>>> locate(spots, (0.5, 0.10)), locate(spots, (0.5, 0.25)), locate(spots, (0.88, 0.58))
((0, 'high'), (0, 'low'), (1, 'high'))
>>> locate(spots, (0.5, 0.50)) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

ROWS = ("high", "low")
ROW_SIZES = {"high": 5, "low": 2}
LOW_BAND = 0.45  # share of a spot's height the low row's band takes


@dataclass(frozen=True, slots=True)
class SpotZone:
    spot: int  # 0: the banker's spot (the dealer's, or where a player banks); 1-7: players
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 as fractions of the felt
    low_side: str = "top"  # the band of the 2-card low row: "top" or "bottom"

    def row_at(self, x: float, y: float) -> str | None:
        x0, y0, x1, y1 = self.box
        if not (x0 <= x <= x1 and y0 <= y <= y1):
            return None
        cut = y0 + LOW_BAND * (y1 - y0) if self.low_side == "top" else y1 - LOW_BAND * (y1 - y0)
        upper = "low" if self.low_side == "top" else "high"
        lower = "high" if upper == "low" else "low"
        return upper if y < cut else lower


def default_spots() -> tuple[SpotZone, ...]:
    bottom = [(2, 0.80), (3, 0.60), (4, 0.40), (5, 0.20), (6, 0.00)]
    return (
        SpotZone(0, (0.36, 0.02, 0.64, 0.34), "bottom"),
        SpotZone(1, (0.78, 0.36, 0.99, 0.66)),
        *(SpotZone(n, (x + 0.01, 0.68, x + 0.19, 0.99)) for n, x in bottom),
        SpotZone(7, (0.01, 0.36, 0.22, 0.66)),
    )


def locate(spots: Sequence[SpotZone], point: tuple[float, float]) -> tuple[int, str] | None:
    """(spot, row) of a card whose centre lies at `point` (felt fractions); None off every spot."""
    for zone in spots:
        row = zone.row_at(*point)
        if row is not None:
            return zone.spot, row
    return None
