"""What a camera does to the table: geometry (homography) and picture (light, blur, noise, JPEG).

`CameraParams` is made from the `camera` dict of `render_table`:

- `None` or `{}`: a clean, square-on overhead camera (no distortion at all).
- `{"preset": "random"}`: everything drawn at random from the seed (the training mix).
- any key below overrides (with or without the preset):
  perspective (0..0.2, corner shift as a share of the frame), rotation (degrees, whole
  table, clockwise), zoom (1 = the layout fills the frame), blur (Gaussian sigma px),
  motion_blur (kernel length px), glare (number of glare spots), shadow (number of soft
  shadows), lighting (0..1 strength of the brightness gradient/vignette), noise (sigma),
  jpeg (quality 1..100, 0 = none), colour (0..1 white-balance/colour jitter),
  lowres (0..1: render at lower resolution and scale back), background
  (felt|wood|cloth|texture|auto), felt_colour ([b, g, r]), markings (bool),
  rail (bool), chips (count), hands (count), card_height (px on the frame),
  jitter (0..1 placement messiness), geometry (default|random: card size, row spacing
  and fan step from the default table geometry or drawn from the seed).
No mirror flip exists here on purpose: mirrored glyphs are not in any deck.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import cv2
import numpy as np


@dataclass(frozen=True)
class CameraParams:
    perspective: float = 0.0
    rotation: float = 0.0
    zoom: float = 1.0
    shift: tuple[float, float] = (0.0, 0.0)
    blur: float = 0.0
    motion_blur: int = 0
    glare: int = 0
    shadow: int = 0
    lighting: float = 0.0
    noise: float = 0.0
    jpeg: int = 0
    colour: float = 0.0
    lowres: float = 0.0
    background: str = "felt"
    felt_colour: tuple[int, int, int] | None = (40, 110, 30)
    markings: bool = False
    rail: bool = False
    chips: int = 0
    hands: int = 0
    card_height: float | None = None
    jitter: float = 0.0
    geometry: str = "default"  # "random": card size, row spacing and fan step drawn from the seed

    @classmethod
    def from_dict(cls, camera: dict | None, rng: np.random.Generator) -> "CameraParams":
        camera = dict(camera or {})
        preset = camera.pop("preset", None)
        base = cls.random(rng) if preset == "random" else cls()
        if preset not in (None, "random", "clean"):
            raise ValueError(f"camera preset {preset!r}: use 'random' or 'clean'")
        known = {f.name for f in fields(cls)}
        unknown = set(camera) - known
        if unknown:
            raise ValueError(f"unknown camera setting(s): {', '.join(sorted(unknown))}")
        if "felt_colour" in camera and camera["felt_colour"] is not None:
            camera["felt_colour"] = tuple(camera["felt_colour"])
        if "shift" in camera:
            camera["shift"] = tuple(camera["shift"])
        return replace(base, **camera)

    @classmethod
    def random(cls, rng: np.random.Generator) -> "CameraParams":
        def maybe(p, value, default=0):
            return value if rng.random() < p else default

        return cls(
            perspective=float(maybe(0.7, rng.uniform(0.0, 0.12))),
            rotation=float(maybe(0.7, np.clip(rng.normal(0, 5.0), -12, 12))),
            zoom=float(rng.uniform(0.92, 1.12)),
            shift=(float(rng.normal(0, 0.02)), float(rng.normal(0, 0.02))),
            blur=float(maybe(0.5, rng.uniform(0.3, 1.6))),
            motion_blur=int(maybe(0.15, rng.integers(3, 9))),
            glare=int(maybe(0.4, rng.integers(1, 4))),
            shadow=int(maybe(0.35, rng.integers(1, 3))),
            lighting=float(maybe(0.7, rng.uniform(0.1, 0.5))),
            noise=float(maybe(0.7, rng.uniform(1.0, 9.0))),
            jpeg=int(maybe(0.7, rng.integers(35, 96))),
            colour=float(maybe(0.8, rng.uniform(0.05, 0.35))),
            lowres=float(maybe(0.25, rng.uniform(0.2, 0.5))),
            background="auto",
            felt_colour=None,
            markings=bool(rng.random() < 0.5),
            rail=bool(rng.random() < 0.35),
            chips=int(maybe(0.5, rng.integers(1, 12))),
            hands=int(maybe(0.35, rng.integers(1, 3))),
            card_height=None,
            jitter=float(rng.uniform(0.1, 1.0)),
            geometry="random",
        )


def homography(params: CameraParams, frame_size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """3x3 matrix mapping table-layout pixels to frame pixels (identity for a clean camera)."""
    fw, fh = frame_size
    if params.perspective == 0 and params.rotation == 0 and params.zoom == 1 and params.shift == (0.0, 0.0):
        return np.eye(3)
    # the frame's corners as seen on the table layout
    src = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float64)
    centre = src.mean(axis=0) + np.array(params.shift) * [fw, fh]
    pts = (src - src.mean(axis=0)) / params.zoom
    a = np.deg2rad(params.rotation)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    pts = pts @ rot.T + centre
    if params.perspective > 0:
        pts += rng.uniform(-1, 1, (4, 2)) * params.perspective * np.array([fw, fh]) * 0.5
    dst = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float64)
    return cv2.getPerspectiveTransform(pts.astype(np.float32), dst.astype(np.float32))


def photometric(image: np.ndarray, params: CameraParams, rng: np.random.Generator) -> np.ndarray:
    """Light, shadow, glare, colour, blur, noise, JPEG, in the order a camera would.

    Every smooth field (light gradient, shadows, glare) is made at 1/8 resolution and
    scaled up; the full-resolution work is a few OpenCV passes (about 0.1 s at 1080p).
    """
    h, w = image.shape[:2]
    sh, sw = max(2, h // 8), max(2, w // 8)
    gain = np.ones((sh, sw), np.float32)
    glow = np.zeros((sh, sw), np.float32)
    if params.lighting > 0:
        ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
        ang = rng.uniform(0, 2 * np.pi)
        grad = np.cos(ang) * (xs / sw - 0.5) + np.sin(ang) * (ys / sh - 0.5)
        cx, cy = rng.uniform(0.2, 0.8) * sw, rng.uniform(0.2, 0.8) * sh
        vign = ((xs - cx) / sw) ** 2 + ((ys - cy) / sh) ** 2
        gain *= 1.0 + params.lighting * (grad - rng.uniform(0.3, 1.0) * vign) + rng.uniform(-0.25, 0.15) * params.lighting
    for _ in range(params.shadow):
        mask = np.zeros((sh, sw), np.float32)
        n = int(rng.integers(3, 7))
        c = rng.uniform(0, 1, 2) * [sw, sh]
        pts = (c + rng.normal(0, 1, (n, 2)) * [sw / 7, sh / 5]).astype(np.int32)
        cv2.fillPoly(mask, [cv2.convexHull(pts)], 1.0)
        k = 2 * int(rng.integers(2, 10)) + 1
        gain *= 1.0 - rng.uniform(0.2, 0.5) * cv2.GaussianBlur(mask, (k, k), 0)
    for _ in range(params.glare):
        spot = np.zeros((sh, sw), np.float32)
        c = (int(rng.uniform(0, sw)), int(rng.uniform(0, sh)))
        axes = (max(1, int(rng.uniform(2.5, 20))), max(1, int(rng.uniform(1.5, 10))))
        cv2.ellipse(spot, c, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        k = 2 * int(rng.integers(1, 8)) + 1
        glow += rng.uniform(60, 200) * cv2.GaussianBlur(spot, (k, k), 0)
    channel = np.ones(3, np.float32)
    offset = 0.0
    if params.colour > 0:
        channel = (1.0 + rng.normal(0, params.colour * 0.35, 3)).astype(np.float32)
        offset = float(rng.normal(0, params.colour * 20))
    img = image
    if params.lighting > 0 or params.shadow or params.glare or params.colour > 0:
        g = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
        f = image.astype(np.float32)
        f *= g[:, :, None]
        f *= channel
        if params.glare:
            f += cv2.resize(glow, (w, h), interpolation=cv2.INTER_LINEAR)[:, :, None]
        if offset:
            f += offset
        img = np.clip(f, 0, 255).astype(np.uint8)
    if params.colour > 0:
        gamma = float(np.exp(rng.normal(0, params.colour * 0.5)))
        lut = np.clip(255.0 * (np.arange(256) / 255.0) ** gamma, 0, 255).astype(np.uint8)
        img = cv2.LUT(img, lut)
        if rng.random() < params.colour:  # desaturate a little
            grey = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
            keep = float(rng.uniform(0.3, 1.0))
            img = cv2.addWeighted(img, keep, grey, 1.0 - keep, 0)
    if params.lowres > 0:
        s = 1.0 - params.lowres
        small = cv2.resize(img, (max(1, int(w * s)), max(1, int(h * s))), interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    if params.blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), params.blur)
    if params.motion_blur > 1:
        k = params.motion_blur
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        m = cv2.getRotationMatrix2D(((k - 1) / 2, (k - 1) / 2), rng.uniform(0, 180), 1.0)
        kernel = cv2.warpAffine(kernel, m, (k, k))
        kernel /= max(kernel.sum(), 1e-6)
        img = cv2.filter2D(img, -1, kernel)
    if params.noise > 0:
        # sensor noise after demosaicing is a little correlated: made at half resolution
        cv2.setRNGSeed(int(rng.integers(2**31)))
        half = np.empty((max(1, h // 2), max(1, w // 2), 3), np.float32)
        sigma = params.noise * rng.uniform(0.8, 1.2)
        cv2.randn(half, (0, 0, 0), (sigma, sigma, sigma))
        luma = cv2.cvtColor(half, cv2.COLOR_BGR2GRAY)
        half = cv2.addWeighted(half, 0.5, cv2.cvtColor(luma, cv2.COLOR_GRAY2BGR), 0.8, 0)
        noise = cv2.resize(half, (w, h), interpolation=cv2.INTER_NEAREST)
        img = cv2.add(img.astype(np.float32), noise).clip(0, 255).astype(np.uint8)
    if params.jpeg > 0:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(params.jpeg)])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img
