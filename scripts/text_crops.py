"""Printed words cut as the reader cuts an index, for the index classifier's `bg` class (phase 27).

On the real photos the classifier read a joker on printed words: a price tag, the maker's line and
serial on an ace of spades ("1317-X1617H", "BICYCLE 808"). Many jokers' indices are the word JOKER,
and the generated scenes carry no other print, so a word looked like a joker. These cuts show it
words that are not: serials, makers' lines, prices, everyday words (never JOKER), in the fonts on
this machine, dark or red on paper, cut at the reader's pad (kiosk.vision.geometry.CROP_PAD) around
the whole word (a piece of one could be an index's rank), with the jitter, blur and JPEG of a camera.

    .venv/bin/python scripts/text_crops.py runs/prep/text --train 3000 --val 300 --seed 27

writes DIR/cls/{train,val}/bg/txt_*.jpg; merge them into a crops folder with hard links (cp -al).
"""

from __future__ import annotations

import argparse
import random
import string
import sys
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from kiosk.vision.geometry import CROP_PAD, square_crop  # noqa: E402

FONT_DIRS = ("/usr/share/fonts", "/usr/share/texmf/fonts/opentype", "/usr/share/texlive/texmf-dist/fonts/opentype")
WORDS = ("BICYCLE", "PLAYING CARDS", "MADE IN U.S.A.", "THE UNITED STATES", "CARD COMPANY", "CASINO", "ROYAL",
         "POKER SIZE", "REGULAR INDEX", "Let's Toast", "PRICE", "SALE", "TABLE", "Gold", "Rider", "Club", "Queen's",
         "Las Vegas", "Macau", "Lucky", "STANDARD", "WIDE", "PLASTIC", "LINEN", "Made in China", "Air-Cushion",
         "Finish", "Bridge", "Deluxe", "CLASSIC", "No.", "SERIES", "Stock", "Lot", "Batch", "EXP", "QTY", "BEST",
         "Thank you", "Welcome", "Tea", "Coffee", "Sugar", "Milk", "Chips", "Snack", "Mint", "Paper", "Shop",
         "Hello", "world", "Spot it!", "Game", "Night", "Family", "Fun", "Kids", "Home", "Garden")
BANNED = ("JOKER", "JOKE")  # the jokers' own index


def random_text(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.3:  # a serial: digits, a dash, letters
        def part(n):
            return "".join(rng.choice(string.digits + string.ascii_uppercase * (rng.random() < 0.5)) for _ in range(n))
        text = part(rng.randint(2, 5)) + rng.choice(("-", " ", "", "/", ".")) + part(rng.randint(2, 6))
    elif kind < 0.45:  # a price or a number
        text = rng.choice(("$", "", "", "EUR ", "No. ")) + f"{rng.randint(1, 999)}" + rng.choice((".99", ".50", "", ",00"))
    elif kind < 0.85:  # words
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 2)))
    else:  # made-up words
        text = "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(4, 9)))
        text = text.capitalize() if rng.random() < 0.5 else text.upper()
    if len(text.replace(" ", "")) < 3 or any(b in text.upper() for b in BANNED):
        return random_text(rng)
    return text


def fonts() -> list[Path]:
    # Wider than kiosk_lab.synth.procedural.system_fonts (TrueType only, the generated cards' own type): the
    # OpenType faces too, since tags and boxes are printed in any type.
    found = sorted({p for d in FONT_DIRS for pattern in ("*.ttf", "*.otf") for p in Path(d).rglob(pattern)})
    return [p for p in found if "math" not in p.name.lower()]


def paper(rng: random.Random, h: int, w: int) -> np.ndarray:
    base = np.array([rng.randint(200, 255), rng.randint(200, 255), rng.randint(200, 255)], np.float32)
    base = np.minimum(base, base.min() + rng.randint(0, 25))  # near white, a little tinted
    noise = np.random.default_rng(rng.randrange(2**32)).normal(0, rng.uniform(1, 8), (h, w, 1))
    return np.clip(base + noise, 0, 255).astype(np.uint8)


def ink(rng: random.Random) -> tuple[int, int, int]:
    if rng.random() < 0.2:
        return (rng.randint(150, 220), rng.randint(0, 40), rng.randint(0, 40))  # red (RGB)
    v = rng.randint(0, 90)
    return (v, v, min(255, v + rng.randint(0, 60)))  # black, grey or navy


def one_cut(rng: random.Random, font_files: list[Path], size: int = 64) -> np.ndarray:
    text = random_text(rng)
    font = ImageFont.truetype(str(rng.choice(font_files)), rng.randint(14, 56))
    x0, y0, x1, y1 = font.getbbox(text)
    tw, th = x1 - x0, y1 - y0
    margin = int(max(tw, th) * 1.2) + 8
    canvas = Image.fromarray(paper(rng, th + 2 * margin, tw + 2 * margin))
    draw = ImageDraw.Draw(canvas)
    draw.text((margin - x0, margin - y0), text, font=font, fill=ink(rng))
    if rng.random() < 0.3:  # a second line of print close by
        draw.text((margin - x0 + rng.randint(-tw // 3, tw // 3), margin - y0 + int(th * rng.uniform(1.3, 1.8)) * rng.choice((-1, 1))),
                  random_text(rng), font=font, fill=ink(rng))
    image = cv2.cvtColor(np.asarray(canvas), cv2.COLOR_RGB2BGR)
    left, right = (margin + x + rng.uniform(-0.1, 0.1) * tw for x in (0, tw))  # the finder's box, a little off
    top, bottom = (margin + y + rng.uniform(-0.1, 0.1) * th for y in (0, th))
    box = [left, top, right, bottom]
    cut = square_crop(image, box, size, pad=CROP_PAD, shift=(rng.uniform(-0.08, 0.08), rng.uniform(-0.08, 0.08)),
                      zoom=rng.uniform(0.9, 1.25), shrink_area=True)
    cut = np.ascontiguousarray(np.rot90(cut, rng.randrange(4)))
    if rng.random() < 0.4:
        cut = cv2.GaussianBlur(cut, (0, 0), rng.uniform(0.4, 1.2))
    gain, lift = rng.uniform(0.6, 1.15), rng.uniform(-30, 20)
    cut = np.clip(cut.astype(np.float32) * gain + lift, 0, 255).astype(np.uint8)
    _, jpeg = cv2.imencode(".jpg", cut, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(45, 95)])
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path)
    p.add_argument("--train", type=int, default=3000)
    p.add_argument("--val", type=int, default=300)
    p.add_argument("--seed", type=int, default=27)
    args = p.parse_args(argv)
    font_files = fonts()
    if not font_files:
        print(f"text_crops: no .ttf/.otf fonts under {', '.join(FONT_DIRS)}", file=sys.stderr)
        return 1
    rng = random.Random(args.seed)
    for split, n in (("train", args.train), ("val", args.val)):
        folder = args.out / "cls" / split / "bg"
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(n):
            cv2.imwrite(str(folder / f"txt_{split[0]}{i:05d}.jpg"), one_cut(rng, font_files))
    print(f"text_crops: {args.train} + {args.val} cuts of print in {args.out}/cls ({len(font_files)} fonts)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
