"""What scripts/veto_lines.py and scripts/partner_lines.py share: a set's pictures read once, and the table they
print: each set scored without the rule and at each of its settings (wrong readings, missed cards, clean full
showdowns), and the change over all sets. Imported after the script has put the repository on sys.path."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import cv2

from kiosk_lab.evaluation.evaluate import _scene_items
from kiosk_lab.training.prepare import prefer_full


def read_pictures(reader, root: Path) -> Iterator[tuple]:
    """(scene, image, readings) of each picture of the set's test split, read by `reader` as a single picture."""
    for path, scene in prefer_full(list(_scene_items(root, "test"))):
        image = cv2.imread(str(path))
        yield scene, image, reader.read_picture(image, source=str(path)).cards


def print_changes(sets: Iterable[Path], read: Callable[[Path], list], score: Callable[[list, object], tuple],
                  settings: list, name: Callable[[object], str] = str) -> None:
    """`read(root)`: a set's pictures, read once; `score(pictures, setting)`: (wrong, missed, clean), the setting None
    for no rule."""
    total = {i: [0, 0] for i in range(len(settings))}
    for root in sets:
        pictures = read(root)
        base = score(pictures, None)
        cells = []
        for i, setting in enumerate(settings):
            w, m, c = score(pictures, setting)
            total[i][0] += w - base[0]
            total[i][1] += m - base[1]
            cells.append(f"{name(setting)}: {w - base[0]:+d} wrong {m - base[1]:+d} missed {c} clean")
        print(f"{root.name}: {base[0]} wrong, {base[1]} missed, {base[2]} clean | " + "; ".join(cells), flush=True)
    print("all sets: " + "; ".join(f"{name(settings[i])}: {w:+d} wrong {m:+d} missed" for i, (w, m) in total.items()))
