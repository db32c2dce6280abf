"""Sweep the confidence a card only the closer look read needs to be reported (docs/detector.md).

    .venv/bin/python scripts/sweep_closer.py datasets/generated/reader-test-v2 [SPLIT]

Reads every scene once (first look, closer look, turned look as `kiosk detect` does) and prints
precision (every reading counted), recall and clean 52-card showdowns for each floor.
"""

import sys
from pathlib import Path

import cv2

from kiosk_lab.evaluation.evaluate import _scene_items, score_scene
from kiosk_lab.training.prepare import prefer_full
from kiosk.vision.pipeline import Look, cards_at
from kiosk.vision.reader import load_reader
from kiosk.vision.still import AS_FOUND
from kiosk.vision.turned import detection_back, join_turned, turn_picture, worth_turning

FLOORS = (0.6, 0.7, 0.8, 0.9, 1.01)  # 1.01: never (no closer look)

reader = load_reader("models", "auto")
root, split = Path(sys.argv[1]), (sys.argv[2] if len(sys.argv) > 2 else "test")
report = reader.report_line
turn = reader.settings.stages.turned_look
totals = {f: [0, 0, 0, 0, 0] for f in FLOORS}  # labelled, readings, right, clean showdowns, showdowns
for path, scene in prefer_full(list(_scene_items(root, split))):
    image = cv2.imread(str(path))
    h, w = image.shape[:2]
    found = reader.find_indices(image, (0, 0, w, h))
    first = cards_at(Look(reader, image, None, True, AS_FOUND), found)
    closer = cards_at(Look(reader, image, None, True, AS_FOUND), reader.closer_finds(image, found, None))
    turned = None
    for floor in FLOORS:
        joined = join_turned(tuple(first), tuple(c for c in closer if c.confidence >= floor), floor=report)
        cards = tuple(c for c in joined if c.confidence >= report)
        if turn and worth_turning(cards, w, h, reader.finder.input_hw, turn.degrees):
            if turned is None:
                picture, back = turn_picture(image, turn.degrees)
                turned = tuple(detection_back(c, back, w, h) for c in reader.read(picture, recheck=True).cards
                               if c.confidence >= report)
            cards = join_turned(cards, turned)
        labelled, readings, right, *_ = score_scene(scene, cards)
        t = totals[floor]
        t[0], t[1], t[2] = t[0] + labelled, t[1] + readings, t[2] + len(right)
        if scene.get("kind") == "showdown" and sum(c.get("face_up", True) for c in scene["cards"]) >= 52:
            t[3] += len(right) == labelled == readings
            t[4] += 1
for floor, (labelled, readings, right, clean, showdowns) in totals.items():
    print(f"closer-only cards from {floor}: precision {right / max(1, readings):.4f} "
          f"recall {right / max(1, labelled):.4f} clean showdowns {clean}/{showdowns}")
