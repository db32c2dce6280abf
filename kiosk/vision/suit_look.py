"""The suit look: a small second classifier that tells clubs from spades, on an index cut turned upright.

Clubs read as spades (and back) are the classifier's most common suit confusion on deck designs it never
saw (models/MODEL_CARD.md, results, "The suit look"). The look answers one question only, so it
is trained on the upright cuts of the black suits alone. Where the product of its opinion and the classifier's
prefers the other suit of the rank, the two suits' shares swap; every other card's share stays as the classifier
read it.
"""

from __future__ import annotations

import numpy as np

from kiosk.cards import CLASS_NAMES, RANKS

CLUBS = np.array([CLASS_NAMES.index(f"{r}c") for r in RANKS])
SPADES = np.array([CLASS_NAMES.index(f"{r}s") for r in RANKS])


def black_mass(card_probs: np.ndarray) -> np.ndarray:
    """Per row of (n, 53) card probabilities: the share of clubs and spades together."""
    return card_probs[:, CLUBS].sum(axis=1) + card_probs[:, SPADES].sum(axis=1)


def share_black_suits(card_probs: np.ndarray, p_clubs: np.ndarray, weight: float = 1.0, sharpen: bool = True
                      ) -> np.ndarray:
    """Card probabilities (n, 53) with each rank's clubs + spades share split anew between the two suits:
    the classifier's split times the look's (`p_clubs`, its P(clubs) per row, to the power `weight`),
    normalised so the rank keeps its black share; with `sharpen` False (the shipped way) the two shares stay as read,
    swapped where that product prefers the other suit, so no reading gets surer. Red cards, the joker and the
    background are untouched.

    >>> p = np.zeros((1, len(CLASS_NAMES)))
    >>> p[0, CLASS_NAMES.index("Tc")], p[0, CLASS_NAMES.index("Ts")], p[0, CLASS_NAMES.index("Th")] = 0.3, 0.6, 0.1
    >>> q = share_black_suits(p, np.array([0.9]))
    >>> [round(float(q[0, CLASS_NAMES.index(c)]), 3) for c in ("Tc", "Ts", "Th")]
    [0.736, 0.164, 0.1]
    >>> q = share_black_suits(p, np.array([0.5]))  # a look that cannot tell changes nothing
    >>> [round(float(q[0, CLASS_NAMES.index(c)]), 3) for c in ("Tc", "Ts", "Th")]
    [0.3, 0.6, 0.1]
    """
    look = np.clip(np.asarray(p_clubs, dtype=np.float64), 1e-6, 1 - 1e-6)[:, None]
    for_clubs, for_spades = look**weight, (1.0 - look) ** weight
    out = np.array(card_probs, dtype=np.float64, copy=True)
    clubs, spades = out[:, CLUBS] * for_clubs, out[:, SPADES] * for_spades
    if not sharpen:  # the two suits' shares as read, swapped where the product prefers the other suit
        swap = (clubs > spades) != (out[:, CLUBS] > out[:, SPADES])
        c, s = out[:, CLUBS], out[:, SPADES]  # copies: indexed by arrays
        out[:, CLUBS], out[:, SPADES] = np.where(swap, s, c), np.where(swap, c, s)
        return out
    total = out[:, CLUBS] + out[:, SPADES]
    scale = np.divide(total, clubs + spades, out=np.zeros_like(total), where=clubs + spades > 0)
    out[:, CLUBS], out[:, SPADES] = clubs * scale, spades * scale
    return out
