"""`scripts/crops_v20c.py`: the crops of phases 20-23 rebuilt on a fresh machine (docs/detector.md)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from kiosk_lab.synth.procedural import JOKER_INDICES, joker_index

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("crops_v20c", ROOT / "scripts" / "crops_v20c.py")
crops_v20c = importlib.util.module_from_spec(spec)
spec.loader.exec_module(crops_v20c)

# What the eighth generation's jokers print, as drawn when runs/prep/v20c was first cut (2026-12-04): the
# crops a rebuild keeps depend on it, so a change to the draw must show here.
STORED_JOKER_INDICES = (
    "word hat star word jk jk hat star jk hat word star jk hat hat hat hat word hat star "
    "jk hat jk hat word star star jk jk jk hat word hat word jk jk jk word hat word").split()


def test_joker_index_is_the_stored_draw():
    assert [joker_index(s) for s in range(360, 400)] == STORED_JOKER_INDICES
    assert set(STORED_JOKER_INDICES) == set(JOKER_INDICES)
    assert joker_index(359) == "word"


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    view, v19c = tmp_path / "view", tmp_path / "prep" / "v19c" / "cls"
    scenes = {("train", "j000001"): "procedural-360", ("train", "j000002"): "procedural-361",
              ("train", "c000003"): "aisleriot-bonded", ("val", "q000004"): "procedural-392"}
    for (split, stem), deck in scenes.items():
        (view / "scenes" / split).mkdir(parents=True, exist_ok=True)
        (view / "scenes" / split / f"{stem}.json").write_text(json.dumps({"deck": deck, "cards": []}))
    for rel in ("train/Jk.0/j000001_1.jpg", "train/Jk.2/j000002_1.jpg", "train/Jk.1/c000003_7.jpg",
                "train/Ks.0/j000002_3.jpg", "val/Jk.0/q000004_1.jpg", "val/Qh.3/q000004_2.jpg"):
        (v19c / rel).parent.mkdir(parents=True, exist_ok=True)
        (v19c / rel).write_bytes(rel.encode())
    return view, v19c


def test_prune_and_repeat_drops_jokers_printing_no_word_and_repeats_the_rest(tmp_path):
    view, v19c = _tree(tmp_path)
    v20c = crops_v20c.prune_and_repeat(v19c, view, tmp_path / "prep" / "v20c" / "cls")
    got = sorted(str(p.relative_to(v20c)) for p in v20c.rglob("*.jpg"))
    # procedural-360 prints the word, 361 a cap, 392 a cap; aisleriot-bonded is no procedural design
    assert got == sorted([
        "train/Jk.0/j000001_1.jpg", "train/Jk.0/j000001_1_x1.jpg", "train/Jk.0/j000001_1_x2.jpg",
        "train/Jk.0/j000001_1_x3.jpg",
        "train/Jk.1/c000003_7.jpg", "train/Jk.1/c000003_7_x1.jpg", "train/Jk.1/c000003_7_x2.jpg",
        "train/Jk.1/c000003_7_x3.jpg",
        "train/Ks.0/j000002_3.jpg", "val/Qh.3/q000004_2.jpg"])
    assert (v20c / "train/Jk.0/j000001_1_x3.jpg").read_bytes() == b"train/Jk.0/j000001_1.jpg"
    assert (v20c / "train/Jk.0/j000001_1.jpg").stat().st_nlink == 5  # v19c's file and four links here: no copies
    assert (v19c / "train/Jk.2/j000002_1.jpg").is_file()  # the cut itself is left whole
    assert not (v20c.parent / "cls.part").exists()
    # run again: the finished folder is kept as it is
    (v20c / "train/Ks.0/j000002_3.jpg").unlink()
    crops_v20c.prune_and_repeat(v19c, view, v20c)
    assert not (v20c / "train/Ks.0/j000002_3.jpg").exists()
