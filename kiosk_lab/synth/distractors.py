"""Things on a real table besides cards: chips, the dealer button, hands and sleeves.

Each is drawn as BGRA art and pasted onto the canvas as an occluder (owner -2), so a
corner index it covers is no longer labelled.
"""

from __future__ import annotations

import cv2
import numpy as np

from kiosk_lab.synth.canvas import OCCLUDER, Canvas

CHIP_COLOURS = [(240, 240, 240), (40, 40, 200), (180, 90, 20), (40, 150, 40), (30, 30, 30),
                (160, 40, 140), (20, 160, 230), (120, 120, 120)]
SKIN = [(140, 170, 220), (110, 145, 200), (90, 120, 170), (60, 90, 140), (40, 65, 100), (160, 190, 235)]
SLEEVES = [(30, 30, 30), (240, 240, 240), (120, 60, 30), (40, 40, 130), (80, 80, 80), (30, 60, 20)]


def chip(rng: np.random.Generator, radius: int) -> np.ndarray:
    size = 2 * radius + 4
    art = np.zeros((size, size, 4), np.uint8)
    c = (size // 2, size // 2)
    colour = CHIP_COLOURS[rng.integers(len(CHIP_COLOURS))]
    stripe = CHIP_COLOURS[rng.integers(len(CHIP_COLOURS))]
    cv2.circle(art, c, radius, (*colour, 255), -1, cv2.LINE_AA)
    n = int(rng.integers(4, 9))
    for k in range(n):
        a0 = 360.0 * k / n
        cv2.ellipse(art, c, (radius - 1, radius - 1), 0, a0, a0 + 180.0 / n / 1.5, (*stripe, 255),
                    max(2, radius // 5))
    cv2.circle(art, c, int(radius * 0.62), (*[int(v * 0.85) for v in colour], 255), max(1, radius // 12),
               cv2.LINE_AA)
    if rng.random() < 0.6:
        cv2.putText(art, str(rng.choice([1, 5, 10, 25, 100, 500])), (c[0] - radius // 2, c[1] + radius // 6),
                    cv2.FONT_HERSHEY_SIMPLEX, radius / 45.0, (*stripe, 255), max(1, radius // 15), cv2.LINE_AA)
    return art


def dealer_button(rng: np.random.Generator, radius: int) -> np.ndarray:
    size = 2 * radius + 4
    art = np.zeros((size, size, 4), np.uint8)
    c = (size // 2, size // 2)
    cv2.circle(art, c, radius, (235, 240, 240, 255), -1, cv2.LINE_AA)
    cv2.circle(art, c, radius - 2, (60, 60, 60, 255), 1, cv2.LINE_AA)
    cv2.putText(art, "DEALER", (c[0] - int(radius * 0.8), c[1] + radius // 8), cv2.FONT_HERSHEY_SIMPLEX,
                radius / 55.0, (20, 20, 20, 255), max(1, radius // 20), cv2.LINE_AA)
    return art


def hand(rng: np.random.Generator, length: int) -> np.ndarray:
    """A forearm in a sleeve ending in a hand, pointing up (+ fingers), as BGRA art."""
    w = int(length * 0.42)
    h = length
    art = np.zeros((h, w, 4), np.uint8)
    skin = np.array(SKIN[rng.integers(len(SKIN))], np.float32)
    sleeve = SLEEVES[rng.integers(len(SLEEVES))]
    palm_c = (w // 2, int(h * 0.28))
    palm_ax = (int(w * 0.3), int(h * 0.13))
    mask = np.zeros((h, w), np.uint8)
    cv2.ellipse(mask, palm_c, palm_ax, 0, 0, 360, 255, -1, cv2.LINE_AA)
    fingers = int(rng.integers(3, 6))
    spread = rng.uniform(0.5, 1.0)
    for k in range(fingers):
        fx = int(w * (0.28 + 0.44 * k / max(1, fingers - 1)))
        flen = int(h * rng.uniform(0.12, 0.2))
        tip = (int(fx + (fx - w / 2) * spread * 0.4), max(2, palm_c[1] - palm_ax[1] - flen))
        cv2.line(mask, (fx, palm_c[1]), tip, 255, max(3, int(w * 0.11)), cv2.LINE_AA)
    thumb_side = 1 if rng.random() < 0.5 else -1
    cv2.line(mask, (w // 2 + thumb_side * palm_ax[0] // 2, palm_c[1] + palm_ax[1] // 2),
             (w // 2 + thumb_side * int(w * 0.45), palm_c[1] - palm_ax[1] // 3), 255, max(3, int(w * 0.12)),
             cv2.LINE_AA)
    cv2.rectangle(mask, (int(w * 0.27), palm_c[1]), (int(w * 0.73), h), 255, -1)  # wrist/forearm
    shading = np.linspace(1.1, 0.8, w, dtype=np.float32)[None, :] * np.ones((h, 1), np.float32)
    colour = skin[None, None, :] * shading[:, :, None]
    art[:, :, :3] = np.clip(colour, 0, 255).astype(np.uint8)
    cuff = int(h * rng.uniform(0.45, 0.6))
    sleeve_mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(sleeve_mask, (int(w * 0.12), cuff), (int(w * 0.88), h), 255, -1)
    art[sleeve_mask > 0, :3] = (np.array(sleeve, np.float32) * shading[sleeve_mask > 0][:, None]).astype(np.uint8)
    art[:, :, 3] = np.maximum(mask, sleeve_mask)
    return art


def _affine(art_shape, centre, angle_deg, scale=1.0) -> np.ndarray:
    h, w = art_shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), -angle_deg, scale)
    m[0, 2] += centre[0] - w / 2
    m[1, 2] += centre[1] - h / 2
    return m


def add_chips(rng: np.random.Generator, canvas: Canvas, count: int, card_height: float) -> None:
    w, h = canvas.size
    for _ in range(count):
        r = int(card_height * rng.uniform(0.17, 0.27))
        art = dealer_button(rng, r) if rng.random() < 0.1 else chip(rng, r)
        centre = (rng.uniform(0, w), rng.uniform(0, h))
        stack = int(rng.integers(1, 4))
        for k in range(stack):
            m = _affine(art.shape, (centre[0] + k * 1.5, centre[1] - k * 2.0), rng.uniform(0, 360))
            canvas.paste(art, m, OCCLUDER, shadow=0.45, shadow_offset=(3, 4))


def add_hands(rng: np.random.Generator, canvas: Canvas, count: int, card_height: float,
              frame: tuple[int, int, int, int]) -> None:
    """Arms reaching in from the frame's edges (frame = visible x1, y1, x2, y2 on the canvas)."""
    fx1, fy1, fx2, fy2 = frame
    for _ in range(count):
        length = int(card_height * rng.uniform(2.2, 3.6))
        art = hand(rng, length)
        edge = int(rng.integers(4))
        reach = rng.uniform(0.15, 0.5) * length
        if edge == 0:  # from the bottom, pointing up
            centre, angle = (rng.uniform(fx1, fx2), fy2 + length / 2 - reach), 0.0
        elif edge == 1:
            centre, angle = (fx1 - length / 2 + reach, rng.uniform(fy1, fy2)), 90.0
        elif edge == 2:
            centre, angle = (rng.uniform(fx1, fx2), fy1 - length / 2 + reach), 180.0
        else:
            centre, angle = (fx2 + length / 2 - reach, rng.uniform(fy1, fy2)), 270.0
        angle += rng.uniform(-35, 35)
        m = _affine(art.shape, centre, angle)
        canvas.paste(art, m, OCCLUDER, shadow=0.55, shadow_offset=(rng.uniform(4, 14), rng.uniform(6, 18)))
