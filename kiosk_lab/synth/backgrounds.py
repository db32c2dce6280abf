"""Procedural table surfaces: felt, wood, cloth, cork and cardboard, plus printed felt lines and logos.

All made from numpy noise at reduced resolution and scaled up (fast); scikit-image's
CC0 sample textures are blended in when scikit-image is installed.
"""

from __future__ import annotations

import cv2
import numpy as np

FELT_COLOURS = [  # BGR
    (40, 110, 30), (35, 95, 20), (60, 120, 40), (30, 80, 25), (80, 110, 20),  # greens
    (110, 70, 20), (120, 80, 30), (90, 50, 15),  # blues
    (35, 35, 120), (40, 30, 90), (30, 25, 70),  # reds / burgundy
    (60, 60, 60), (35, 35, 35), (90, 85, 80), (70, 40, 70),  # grey, black, purple
    (60, 90, 100), (40, 60, 40),  # odd tints
]
SURFACES = ("felt", "wood", "cloth", "texture", "cork", "cardboard")
PRINT_COLOURS = [(60, 200, 230), (235, 235, 235), (80, 180, 220), (40, 150, 210), (200, 200, 120)]
WORDS = ["CHINESE POKER", "DEALER", "PAI GOW POKER", "BANKER", "PLAYER", "NO MORE BETS",
         "13 CARD", "FRONT", "MIDDLE", "BACK", "HOUSE", "GRAND CASINO", "ROYALTIES"]


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    """Low-frequency noise in [-1, 1] of `shape` (h, w), with about `cells` (gy, gx) blobs."""
    small = rng.uniform(-1, 1, (max(2, cells[0]), max(2, cells[1]))).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def grain(rng: np.random.Generator, shape: tuple[int, int], sigma: float, scale: int = 2) -> np.ndarray:
    h, w = shape
    small = rng.normal(0, sigma, ((h + scale - 1) // scale, (w + scale - 1) // scale)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def felt(rng: np.random.Generator, shape: tuple[int, int], colour=None) -> np.ndarray:
    h, w = shape
    if colour is not None:
        base = np.array(colour, np.float32)
    else:
        base = np.array(FELT_COLOURS[rng.integers(len(FELT_COLOURS))], np.float32)
        base *= rng.uniform(0.75, 1.25, 3).astype(np.float32) ** 0.5
    shade = 1.0 + 0.07 * smooth_noise(rng, shape, (4, 7)) + 0.03 * smooth_noise(rng, shape, (20, 35))
    img = base[None, None, :] * shade[:, :, None]
    img += grain(rng, shape, rng.uniform(2, 7))[:, :, None]
    return img


def wood(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Planks: fine grain lines along the plank, warped by slow noise, seams between planks."""
    h, w = shape
    sh, sw = max(8, h // 2), max(8, w // 2)
    red = rng.uniform(60, 130)
    green = red * rng.uniform(0.5, 0.75)
    dark = np.array([green * rng.uniform(0.45, 0.8), green, red], np.float32)
    light = dark * rng.uniform(1.3, 1.9)
    ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
    warp = smooth_noise(rng, (sh, sw), (4, 3)) * rng.uniform(8, 30) + smooth_noise(rng, (sh, sw), (12, 8)) * 3
    period = rng.uniform(3, 9)
    grain_lines = 0.5 + 0.5 * np.sin((xs + warp) * (2 * np.pi / period))
    grain_lines = grain_lines ** rng.uniform(1.0, 3.0)
    plank = max(20, int(rng.uniform(0.08, 0.25) * sw))
    plank_id = (xs // plank).astype(np.int32)
    tint = rng.uniform(0.8, 1.15, plank_id.max() + 1).astype(np.float32)[plank_id]
    t = (0.35 + 0.4 * grain_lines + 0.25 * smooth_noise(rng, (sh, sw), (3, 10))) * tint
    img = dark[None, None, :] + (light - dark)[None, None, :] * t[:, :, None]
    seam = (xs % plank) < 1.2
    img[seam] *= 0.55
    if rng.random() < 0.5:  # planks across the frame instead of down it
        img = cv2.resize(np.ascontiguousarray(img.transpose(1, 0, 2)), (sw, sh), interpolation=cv2.INTER_LINEAR)
    img = cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)
    img += grain(rng, shape, 3)[:, :, None]
    return img


def cloth(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    img = felt(rng, shape)
    period = rng.uniform(3, 8)
    ys, xs = np.ogrid[0:h, 0:w]
    weave = (np.sin(xs * (2 * np.pi / period)) * np.sin(ys * (2 * np.pi / period))).astype(np.float32)
    img *= (1.0 + rng.uniform(0.03, 0.1) * weave)[:, :, None]
    if rng.random() < 0.4:  # checked / striped cloth
        stripe = ((xs // int(rng.integers(20, 80))) % 2).astype(np.float32)
        img *= (1.0 - 0.15 * stripe)[:, :, None]
    return img


def cork(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """A cork board: tan granules of a few shades, packed tight, with dark pores between them."""
    h, w = shape
    base = np.array([rng.uniform(70, 110), 0, rng.uniform(150, 200)], np.float32)  # B, G, R
    base[1] = base[2] * rng.uniform(0.6, 0.72)
    scale = int(rng.integers(2, 5))  # granule size in pixels at full resolution, about
    sh, sw = max(8, h // scale), max(8, w // scale)
    granules = rng.normal(0, 1, (sh, sw)).astype(np.float32)
    granules = cv2.GaussianBlur(granules, (0, 0), 0.8)
    shade = 1.0 + 0.18 * granules / max(float(granules.std()), 1e-6)
    pores = rng.random((sh, sw)) < rng.uniform(0.01, 0.04)
    shade[pores] *= rng.uniform(0.35, 0.6)
    shade = cv2.resize(shade, (w, h), interpolation=cv2.INTER_LINEAR)
    shade *= 1.0 + 0.06 * smooth_noise(rng, shape, (3, 5))
    return base[None, None, :] * shade[:, :, None] + grain(rng, shape, 3)[:, :, None]


def cardboard(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Brown cardboard: a flat kraft colour, faint fibres, the corrugation showing through as soft stripes,
    and now and then a crease."""
    h, w = shape
    red = rng.uniform(150, 200)
    base = np.array([red * rng.uniform(0.45, 0.6), red * rng.uniform(0.68, 0.8), red], np.float32)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    across = xs if rng.random() < 0.5 else ys
    period = rng.uniform(0.006, 0.012) * max(h, w)
    flutes = 1.0 + rng.uniform(0.01, 0.035) * np.sin(across * (2 * np.pi / period))
    fibres = rng.normal(0, 1, (h // 2 + 1, w // 2 + 1)).astype(np.float32)
    fibres = cv2.GaussianBlur(fibres, (0, 0), sigmaX=0.6, sigmaY=2.5)  # drawn out along the sheet
    fibres = cv2.resize(fibres, (w, h), interpolation=cv2.INTER_LINEAR)
    shade = flutes * (1.0 + 0.04 * fibres / max(float(fibres.std()), 1e-6))
    shade *= 1.0 + 0.08 * smooth_noise(rng, shape, (3, 4))
    for _ in range(int(rng.integers(0, 3))):  # a crease: a thin dark line with a light edge
        lines = shade if rng.random() < 0.5 else shade.T  # across or along (a view: shade itself is creased)
        n = lines.shape[0]
        at = int(rng.integers(n // 8, n - n // 8))
        lines[at:at + 2] *= 0.8
        lines[at + 2:at + 4] *= 1.05
    return base[None, None, :] * shade[:, :, None] + grain(rng, shape, 2.5)[:, :, None]


def skimage_texture(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray | None:
    try:
        from skimage import data as skdata  # CC0 sample textures shipped in the wheel
    except ImportError:
        return None
    name = ["brick", "grass", "gravel", "rough_wall"][rng.integers(4)]
    try:
        tex = getattr(skdata, name)()
    except Exception:
        return None
    tex = tex.astype(np.float32)
    if tex.ndim == 2:
        tex = np.repeat(tex[:, :, None], 3, axis=2)
    tex = cv2.resize(tex, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)
    return tex


def surface(rng: np.random.Generator, shape: tuple[int, int], kind: str = "auto", colour=None) -> np.ndarray:
    """A table surface (BGR uint8) of `shape` (h, w). kind: felt, wood, cloth, texture, cork, cardboard or auto
    (cork and cardboard only when asked for: the sets made before them keep their surfaces).

    `colour` (BGR) fixes the felt's colour."""
    if kind == "auto":
        kind = rng.choice(["felt", "felt", "felt", "felt", "wood", "cloth", "texture"])
    if kind not in SURFACES:
        raise ValueError(f"unknown table surface {kind!r} (choose from auto, {', '.join(SURFACES)})")
    if kind == "wood":
        img = wood(rng, shape)
    elif kind == "cork":
        img = cork(rng, shape)
    elif kind == "cardboard":
        img = cardboard(rng, shape)
    elif kind == "cloth":
        img = cloth(rng, shape)
    elif kind == "texture":
        tex = skimage_texture(rng, shape)
        img = felt(rng, shape)
        if tex is not None:
            img = 0.6 * img + 0.4 * tex * (img.mean() / max(tex.mean(), 1))
    else:
        img = felt(rng, shape, colour)
    return np.clip(img, 0, 255).astype(np.uint8)


def _rotated_text(rng: np.random.Generator, text: str, height: int, colour) -> np.ndarray:
    font = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX,
            cv2.FONT_HERSHEY_COMPLEX][rng.integers(4)]
    scale = height / 22.0
    thick = max(1, int(height / 12))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    patch = np.zeros((th + base + 4, tw + 4), np.uint8)
    cv2.putText(patch, text, (2, th + 2), font, scale, 255, thick, cv2.LINE_AA)
    return patch


def print_markings(rng: np.random.Generator, img: np.ndarray, count: int | None = None) -> None:
    """Printed felt lines, betting circles, words and a logo, drawn in place."""
    h, w = img.shape[:2]
    ink = np.zeros((h, w), np.uint8)
    n = int(rng.integers(1, 6)) if count is None else count
    colour = np.array(PRINT_COLOURS[rng.integers(len(PRINT_COLOURS))], np.float32)
    for _ in range(n):
        kind = rng.integers(4)
        thick = int(rng.integers(2, 7))
        if kind == 0:  # big arc / ellipse line
            c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
            axes = (int(rng.uniform(0.2, 0.8) * w), int(rng.uniform(0.2, 0.8) * h))
            cv2.ellipse(ink, c, axes, rng.uniform(0, 180), 0, 360, 255, thick, cv2.LINE_AA)
        elif kind == 1:  # betting circles
            r = int(rng.uniform(25, 70))
            for _ in range(int(rng.integers(1, 5))):
                cv2.circle(ink, (int(rng.uniform(0, w)), int(rng.uniform(0, h))), r, 255, thick, cv2.LINE_AA)
        elif kind == 2:  # words, turned to face a random edge
            text = WORDS[rng.integers(len(WORDS))]
            patch = _rotated_text(rng, text, int(rng.uniform(18, 60)), 255)
            patch = np.rot90(patch, int(rng.integers(4))).copy()
            ph, pw = patch.shape
            if ph < h and pw < w:
                y, x = int(rng.integers(0, h - ph)), int(rng.integers(0, w - pw))
                ink[y:y + ph, x:x + pw] = np.maximum(ink[y:y + ph, x:x + pw], patch)
        else:  # a simple logo: concentric rings and a star of lines
            c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
            r = int(rng.uniform(40, 120))
            cv2.circle(ink, c, r, 255, thick, cv2.LINE_AA)
            cv2.circle(ink, c, int(r * 0.8), 255, max(1, thick // 2), cv2.LINE_AA)
            for a in np.linspace(0, np.pi, int(rng.integers(3, 7)), endpoint=False):
                dx, dy = int(r * 0.7 * np.cos(a)), int(r * 0.7 * np.sin(a))
                cv2.line(ink, (c[0] - dx, c[1] - dy), (c[0] + dx, c[1] + dy), 255, thick, cv2.LINE_AA)
    x, y, bw, bh = cv2.boundingRect(ink)
    if bw == 0 or bh == 0:
        return
    roi = img[y:y + bh, x:x + bw].astype(np.float32)
    a = ink[y:y + bh, x:x + bw].astype(np.float32)[:, :, None] * (rng.uniform(0.35, 0.8) / 255.0)
    img[y:y + bh, x:x + bw] = np.clip(roi * (1 - a) + colour * a, 0, 255).astype(np.uint8)


def rail(rng: np.random.Generator, img: np.ndarray, table: np.ndarray) -> None:
    """A padded rail outside the table polygon `table` ((4, 2) frame pixels), drawn in place."""
    h, w = img.shape[:2]
    mask = np.ones((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(table).astype(np.int32)], 0)
    if not mask.any():
        return
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    width = rng.uniform(30, 90)
    profile = np.clip(dist / width, 0, 1)
    bump = np.sin(profile * np.pi * 0.9 + 0.2).astype(np.float32)
    colour = np.array([(25, 30, 40), (20, 20, 20), (30, 45, 70), (60, 60, 60), (15, 25, 60)][rng.integers(5)],
                      np.float32)
    leather = colour[None, None, :] * (0.5 + 0.9 * bump)[:, :, None]
    leather += grain(rng, (h, w), 3)[:, :, None]
    m = (mask > 0)[:, :, None]
    img[:] = np.where(m, np.clip(leather, 0, 255).astype(np.uint8), img)
