"""How the card reader's single-frame index reads depend on the camera's resolution.

The same rendered showdowns (the bench's camera, `kiosk bench pipeline --rendered`) at 1920x1080
(a card 110 px tall) and at 3840x2160 (220 px): each index the detector finds is matched to the
labelled index it covers, and its first reading compared with the card. One frame, no table
stages: what the classifier can tell from the pixels it gets.

    .venv/bin/python scripts/index_reads_by_resolution.py --seeds 4142 4183 4190 --base 4000
    .venv/bin/python scripts/index_reads_by_resolution.py --seeds 4142/4000 3763/3600   # SEED/BASE
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kiosk.cards import CLASS_NAMES  # noqa: E402
from kiosk_lab.synth.art import complete_deck as _complete, unseen_decks as _unseen_decks  # noqa: E402
from kiosk_lab.groundtruth import set_hands, shuffled_deck  # noqa: E402
from kiosk_lab.synth.table import SeatLayout, TableLayout, render_table  # noqa: E402
from kiosk.vision.reader import load_reader  # noqa: E402


def overlap(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter + 1e-9)


def index_reads(reader, seed: int, deck: str, scale: int) -> dict:
    """Found, misread and doubtful (< 0.8) indices of one rendered showdown at `scale` x 1080p."""
    camera = {"preset": "random", "perspective": 0.03, "rotation": 3.0, "zoom": 1.0, "shift": [0.0, 0.0],
              "hands": 0, "jitter": 0.3, "motion_blur": 0, "card_height": 110 * scale}
    rng = np.random.default_rng(seed)
    layout = set_hands(shuffled_deck(seed))
    seats = tuple(SeatLayout(s, **rows) for s, rows in layout.items())
    scene = render_table(TableLayout(seats, (1920 * scale, 1080 * scale)), deck, seed, camera, reverse_fan=0.0)
    image = np.clip(scene.image.astype(np.int16) + rng.normal(0, 3, scene.image.shape), 0, 255).astype(np.uint8)
    h, w = image.shape[:2]
    found = reader.find_indices(image, (0, 0, w, h))
    corners = reader.corners_from(found, reader.classify(image, [b for b, _ in found]))
    labelled = [(tuple(box), c["card"]) for c in scene.scene["cards"] if c["face_up"] for box in c["corners"]]
    out = {"labelled": len(labelled), "found": 0, "misread": 0, "doubtful": 0}
    for c in corners:
        box, card = max(labelled, key=lambda t: overlap(c.box, t[0]))
        if overlap(c.box, box) < 0.3:
            continue
        out["found"] += 1
        out["misread"] += CLASS_NAMES[int(np.argmax(c.card_probs))] != card
        out["doubtful"] += bool(c.card_probs.max() < 0.8)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", nargs="+", required=True, help="seeds of the rendered hands (SEED or SEED/BASE)")
    parser.add_argument("--base", type=int, default=0, help="the bench's --seed: hand seed - base picks the deck")
    parser.add_argument("--models", default="models")
    args = parser.parse_args()
    reader = load_reader(args.models)
    decks = [d for d in _unseen_decks(args.models) if _complete(d)]
    for scale, name in ((1, "1920x1080"), (2, "3840x2160")):
        total = {"labelled": 0, "found": 0, "misread": 0, "doubtful": 0}
        for given in args.seeds:
            seed, _, base = given.partition("/")
            seed, base = int(seed), int(base or args.base)
            for k, v in index_reads(reader, seed, decks[(seed - base) % len(decks)], scale).items():
                total[k] += v
        print(f"{name}: {total['labelled']} labelled indices, {total['found']} found, {total['misread']} misread, "
              f"{total['doubtful']} doubtful (first reading under 0.8)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
