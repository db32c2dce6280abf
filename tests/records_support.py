"""Verdicts and frames for the records tests, scored by the real rules engine."""

from __future__ import annotations

import time

import cv2
import numpy as np

from kiosk.rules.api import score_json
from kiosk.table.actions import DealerAction
from kiosk.table.verdict import CardEvidence, NeedsCheck, Verdict

SEATS = {
    # seat 1: a plain set hand; seat 2: fouled (middle pair of 8s under front pair of queens, D-2);
    # seat 3: set (full house in the middle: a royalty, D-6); seat 4 is dead.
    1: {"front": "2s 3d 5c", "middle": "8c 8h Jd Js 4c", "back": "Ah Kh 9h 6h 2h"},
    2: {"front": "Qs Qd 4h", "middle": "8s 8d Ac Kc 2d", "back": "9s 9c 9d 3h 3c"},
    3: {"front": "Tc Th 7s", "middle": "6c 6d 6s 5d 5s", "back": "7d 7c 7h Td Ts"},
}


def showdown(button: int = 4, stake: float = 1, foul_seat2: bool = True, profile: str = "mandarin") -> dict:
    seats = []
    for seat in (1, 2, 3):
        rows = SEATS[seat]
        seats.append({"seat": seat, **{row: rows[row].split() for row in ("front", "middle", "back")}})
    if not foul_seat2:
        seats[1] = {"seat": 2, "front": "4h 3h Qd".split(), "middle": "8s 8d Ac Kc 2d".split(),
                    "back": "9s 9c 9d 3c Qs".split()}
    seats.append({"seat": 4, "dead": True})
    return {"profile": profile, "button": button, "stake": stake, "seats": seats}


def evidence_for(sd: dict, frame_index: int = 40) -> tuple[CardEvidence, ...]:
    out = []
    for s in sd["seats"]:
        for r, row in enumerate(("front", "middle", "back")):
            for i, card in enumerate(s.get(row, [])):
                x = 100 + 60 * i + 400 * (s["seat"] - 1)
                y = 100 + 90 * r
                out.append(CardEvidence(card, s["seat"], row, frame_index, (x, y, x + 50, y + 80), 0.97, 5))
    return tuple(out)


def make_verdict(hand_id: str = "table-1-0001", *, decided_at: float | None = None, frame_index: int = 40,
                 needs_check: bool = False, **kw) -> Verdict:
    sd = showdown(**kw)
    return Verdict(
        hand_id=hand_id,
        table="table-1",
        decided_at=time.time() if decided_at is None else decided_at,
        frame_index=frame_index,
        showdown=sd,
        result=score_json(sd),
        needs_check=(NeedsCheck(3, "card at middle 3 read as 8h or 6h (confidence 0.61)", "6h"),) if needs_check else (),
        evidence=evidence_for(sd, frame_index),
        model_version="test-model-1",
        config_digest="cfg0001",
        meta={"source": "test"},
    )


def correction(hand_id: str, before: str = "6d", after: str = "6h", at: float | None = None) -> DealerAction:
    return DealerAction("correct_card", seat=3, row="middle", index=1, before=before, after=after,
                        by="floor-7", at=time.time() if at is None else at, hand_id=hand_id)


def frame_image(i: int, size: tuple[int, int] = (320, 180)) -> np.ndarray:
    """A small synthetic frame whose content depends on `i`."""
    w, h = size
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = (30, 90, 30)
    cv2.putText(img, f"frame {i}", (10, h // 2), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2)
    cv2.rectangle(img, (5 + (i * 7) % (w - 40), 5), (35 + (i * 7) % (w - 40), 35), (0, 0, 255), -1)
    return img
