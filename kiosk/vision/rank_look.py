"""The rank look: a small second classifier that reads an index's rank alone, on its cut turned upright.

Rank confusions (3/J, 5/6, 6/8, 8/9) are most of the classifier's wrong readings on deck designs it never saw at
1080p (models/MODEL_CARD.md, results, "The rank look"). The look answers one question, on cuts the classifier has
already turned upright, so it need not learn four turns of each of 53 classes. Where the product of its opinion and
the classifier's, among the ranks of the suit read, prefers another rank, the two cards' shares swap: no reading gets
surer, and the suit, the joker and the background stay as the classifier read them.
"""

from __future__ import annotations

import numpy as np

from kiosk.cards import CLASS_NAMES, RANKS, SUITS

# BY_SUIT[s, r]: the class index of rank RANKS[r] in suit SUITS[s]
BY_SUIT = np.array([[CLASS_NAMES.index(f"{r}{s}") for r in RANKS] for s in SUITS])
SUIT_OF = {int(i): s for s in range(len(SUITS)) for i in BY_SUIT[s]}


def swap_ranks(card_probs: np.ndarray, rank_probs: np.ndarray) -> np.ndarray:
    """Card probabilities (n, 53) with each row's first card swapped with the card of the same suit whose rank the
    product of the classifier's shares (in that suit) and the look's `rank_probs` (n, 13, in RANKS order) prefers.
    A row whose first card is the joker is left as read.

    >>> p = np.zeros((2, len(CLASS_NAMES)))
    >>> p[:, CLASS_NAMES.index("3h")], p[:, CLASS_NAMES.index("Jh")], p[:, CLASS_NAMES.index("Jd")] = 0.6, 0.3, 0.05
    >>> look = np.full((2, len(RANKS)), 0.01)
    >>> look[0, RANKS.index("J")] = 0.9  # the look sees a jack: 0.3 * 0.9 beats 0.6 * 0.01
    >>> look[1, RANKS.index("3")] = 0.9
    >>> q = swap_ranks(p, look)
    >>> [[round(float(q[i, CLASS_NAMES.index(c)]), 2) for c in ("3h", "Jh", "Jd")] for i in (0, 1)]
    [[0.3, 0.6, 0.05], [0.6, 0.3, 0.05]]
    """
    out = np.array(card_probs, dtype=np.float64, copy=True)
    look = np.clip(np.asarray(rank_probs, dtype=np.float64), 1e-6, 1.0)
    for i, top in enumerate(np.argmax(out, axis=1)):
        if int(top) not in SUIT_OF:
            continue
        cards = BY_SUIT[SUIT_OF[int(top)]]
        best = cards[int(np.argmax(out[i, cards] * look[i]))]
        if best != top:
            out[i, [top, best]] = out[i, [best, top]]
    return out
