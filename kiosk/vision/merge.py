"""Merge the corner indices of one card into one reading, by geometry.

A card prints its index twice, at diagonally opposite corners and turned half round
from each other. Seen from one index (in its upright frame, y down) the other sits
below it and to one side: about (3.0, 3.9) index-lengths away for decks with small
indices, (1.3, 1.35) for big-index decks (measured on the generated scenes). So two
indices of one card (a) face opposite ways, (b) sit 1-6.5 index-lengths apart with the
partner "below" each of them, and (c) read the same card. Neighbours in a fanned row
face the same way, and a card read twice far apart is a real duplicate: neither is merged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kiosk.cards import CLASS_NAMES, parse_card
from kiosk.vision.detections import CardDetection
from kiosk.vision.geometry import box_center, clip_box, index_size, inside_share, to_index_frame, union_box

CARDS = tuple(parse_card(n) for n in CLASS_NAMES)

# How far apart the two indices of one card may be, in index-lengths (box long side).
PARTNER_DIST = (1.0, 6.5)
# Seen from one index, the partner lies below it: dy >= this share of the distance
# (slightly negative to allow cards turned ~45 degrees, whose frame is ambiguous).
PARTNER_BELOW = -0.15
SIZE_RATIO = 1.7
ORIENT_SURE = 0.6


@dataclass(frozen=True)
class Corner:
    """One detected index: its box, the detector's score and the classifier's reading."""

    box: tuple[float, float, float, float]
    score: float
    card_probs: np.ndarray  # (53,) over CLASS_NAMES, sums to <= 1 (rest is background)
    orient: int
    orient_conf: float


def _below(a: Corner, b: Corner) -> bool:
    ca, cb = box_center(a.box), box_center(b.box)
    d = (cb[0] - ca[0], cb[1] - ca[1])
    _, dy = to_index_frame(d, a.orient)
    return dy >= PARTNER_BELOW * math.hypot(*d)


def pair_ok(a: Corner, b: Corner) -> bool:
    """Could `a` and `b` be the two indices of one card (geometry and orientation only)?"""
    sa, sb = index_size(a.box), index_size(b.box)
    if max(sa, sb) > SIZE_RATIO * max(min(sa, sb), 1e-6):
        return False
    L = (sa + sb) / 2.0
    ca, cb = box_center(a.box), box_center(b.box)
    dist = math.hypot(cb[0] - ca[0], cb[1] - ca[1]) / max(L, 1e-6)
    if not PARTNER_DIST[0] <= dist <= PARTNER_DIST[1]:
        return False
    sure = a.orient_conf >= ORIENT_SURE and b.orient_conf >= ORIENT_SURE
    if sure:
        return (a.orient - b.orient) % 4 == 2 and _below(a, b) and _below(b, a)
    return _below(a, b) or _below(b, a)


def card_box(index_boxes) -> tuple[float, float, float, float]:
    """A card's box from its indices' boxes: their union, widened by 0.35 of their mean long side where two
    or more. One index alone says little about where the card ends (index sizes differ 2x between decks),
    so its box is the index's own.

    >>> card_box([(0, 0, 10, 20), (90, 100, 100, 120)]), card_box([(5, 5, 15, 25)])
    ((-7.0, -7.0, 107.0, 127.0), (5, 5, 15, 25))
    """
    if len(index_boxes) == 1:
        return tuple(index_boxes[0])
    L = sum(index_size(b) for b in index_boxes) / len(index_boxes)
    return union_box(index_boxes, margin=0.35 * L)


def _group_box(group, corners) -> tuple[float, float, float, float]:
    return card_box([corners[i].box for i in group])


def _join_four_index_cards(groups: list[tuple[int, ...]], corners: list[Corner]) -> list[tuple[int, ...]]:
    """Decks that print four indices show two diagonal pairs per card: join a pair with
    another group of the same reading whose indices all lie inside the pair's card box."""
    groups = list(groups)
    changed = True
    while changed:
        changed = False
        for gi, a in enumerate(groups):
            if len(a) < 2:
                continue
            ca = int(np.argmax(np.prod([corners[i].card_probs for i in a], axis=0)))
            box = _group_box(a, corners)
            for gj, b in enumerate(groups):
                if gj == gi or len(a) + len(b) > 4:
                    continue
                cb = int(np.argmax(np.prod([corners[i].card_probs for i in b], axis=0)))
                if cb != ca:
                    continue
                centres = [box_center(corners[i].box) for i in b]
                if all(box[0] <= x <= box[2] and box[1] <= y <= box[3] for x, y in centres):
                    groups[gi] = a + b
                    del groups[gj]
                    changed = True
                    break
            if changed:
                break
    return groups


def detection_factor(score: float) -> float:
    """How far a detector score lets a reading's confidence go: a faint detection caps it."""
    return min(1.0, 0.6 + score)


def drop_nested(corners: list[Corner], share: float = 0.5) -> list[Corner]:
    """Keep one of two finds where one lies (at least `share` of it) inside the other: the detector
    finds an index and, inside it, its rank alone; NMS keeps both (their IoU is small), and read as
    two indices of two cards they would be one card twice. The surer read stays.

    >>> p = np.zeros(53); p[0] = 0.9
    >>> whole, rank = Corner((0, 0, 20, 40), 0.9, p, 0, 1.0), Corner((2, 2, 18, 20), 0.5, p * 0.8, 0, 1.0)
    >>> drop_nested([rank, whole]) == [whole], len(drop_nested([whole, Corner((30, 0, 50, 40), 0.9, p, 0, 1.0)]))
    (True, 2)
    """
    def sureness(c: Corner) -> float:
        return float(c.card_probs.max()) * detection_factor(c.score)

    order = sorted(range(len(corners)), key=lambda i: -sureness(corners[i]))
    kept: list[int] = []
    for i in order:
        a = corners[i].box
        if not any(max(inside_share(a, corners[k].box), inside_share(corners[k].box, a)) >= share for k in kept):
            kept.append(i)
    return [corners[i] for i in sorted(kept)]


def _normalise(p: np.ndarray) -> np.ndarray:
    s = float(p.sum())
    return p / s if s > 0 else p


def _top(p: np.ndarray, n: int) -> list[int]:
    return [int(i) for i in np.argsort(-p)[:n]]


def merge_corners(corners: list[Corner], image_size: tuple[int, int], n_alternatives: int = 3,
                  faint_below: float = 0.0, sure_alone: float = 0.9) -> list[CardDetection]:
    """One `CardDetection` per physical card, most confident first. `faint_below`: a member read on its
    own under this confidence (too faint to be read as a card) leaves its group where the group is surer
    without it, at least `sure_alone`: a faint find paired with a sure index (a court's art, a
    neighbour's half-hidden corner) must not take the card below the report line. Below `sure_alone`
    a faint partner's doubt stands (a 7h read at 0.73 on a court's art, its faint partner 0.39)."""
    n = len(corners)
    candidates = []
    for i in range(n):
        for j in range(i + 1, n):
            a, b = corners[i], corners[j]
            if not pair_ok(a, b):
                continue
            product = a.card_probs * b.card_probs
            if float(product.sum()) < 1e-4:
                continue
            joint = _normalise(product)
            c = int(np.argmax(joint))
            if c not in _top(a.card_probs, 2) or c not in _top(b.card_probs, 2):
                continue
            candidates.append((float(a.card_probs[c] * b.card_probs[c]), i, j))
    candidates.sort(reverse=True)
    used: set[int] = set()
    groups: list[tuple[int, ...]] = []
    for _, i, j in candidates:
        if i in used or j in used:
            continue
        used.update((i, j))
        groups.append((i, j))
    groups += [(i,) for i in range(n) if i not in used]
    groups = _join_four_index_cards(groups, corners)
    if faint_below:
        groups = _without_faint_partners(groups, corners, faint_below, sure_alone)

    width, height = image_size
    out = []
    for group in groups:
        members = [corners[i] for i in group]
        probs, det_factor = _group_reading(members)
        box = card_box([m.box for m in members])
        order = _top(probs, 1 + n_alternatives)
        best = order[0]
        conf = float(probs[best]) * det_factor
        alternatives = tuple(
            (CARDS[k], round(float(probs[k]) * det_factor, 4)) for k in order[1:] if probs[k] >= 0.005
        )
        out.append(
            CardDetection(
                card=CARDS[best],
                confidence=round(conf, 4),
                box=clip_box(box, width, height),
                corners=tuple(tuple(float(v) for v in m.box) for m in members),
                alternatives=alternatives,
                turns=tuple((int(m.orient), float(m.orient_conf)) for m in members),
            )
        )
    out.sort(key=lambda d: -d.confidence)
    return out


def _group_reading(members: list[Corner]) -> tuple[np.ndarray, float]:
    """The card probabilities of a group of indices read as one card, and the detector's cap on them."""
    if len(members) == 1:
        probs = members[0].card_probs
    else:
        probs = _normalise(np.prod([m.card_probs for m in members], axis=0))
        # Agreement of independent reads is strong evidence, but never stronger
        # than the weakest reader was sure the thing is a card at all.
        probs = probs * min(float(m.card_probs.sum()) for m in members)
    return probs, detection_factor(min(m.score for m in members))


def _confidence(members: list[Corner]) -> float:
    probs, factor = _group_reading(members)
    return float(probs.max()) * factor


def _without_faint_partners(groups: list[tuple[int, ...]], corners: list[Corner], faint: float,
                            sure: float) -> list[tuple[int, ...]]:
    """Each group without its faint members (read alone under `faint`) whose leaving makes it surer and
    at least `sure`, one at a time; each leaver is left on its own. A member that reads a card alone
    never leaves: the card's two indices would read as two cards."""
    out = []
    for group in groups:
        group = list(group)
        while len(group) >= 2:
            now = _confidence([corners[i] for i in group])
            faint_ones = [i for i in group if _confidence([corners[i]]) < faint]
            if not faint_ones:
                break
            gain, leaver = max((_confidence([corners[k] for k in group if k != i]), i) for i in faint_ones)
            if gain <= now or gain < sure:
                break
            group.remove(leaver)
            out.append((leaver,))
        out.append(tuple(group))
    return out
