"""The reading stages reader.json can turn off (each a field of `ReaderSettings.stages`, off where None).

`kiosk eval --by-stage` reads a set once with every stage and once more with each stage off, so a stage's
place is earned by the figures it moves (docs/detector.md, "The reader folder").
"""

from __future__ import annotations

from kiosk.vision.settings import Stages

# A stage's name (as the table prints it) -> the change to reader.json's settings that turns it off.
STAGES_OFF: dict[str, dict] = {name.replace("_", " "): {"stages": {name: None}} for name in Stages.model_fields}


def stage_rows(results: dict) -> list[dict]:
    """One row a stage: its figures with the stage off and what turning it off changes (`all` first: every
    stage on). `results`: stage name (or "all") -> EvalResult.

    A stage pays where turning it off loses precision, recall or clean pictures."""
    base = results["all"]
    rows = []
    for name, r in results.items():
        rows.append({
            "stage off": name, "precision": round(r.precision, 4), "recall": round(r.recall, 4),
            "clean": round(r.clean_share, 4), "median_ms": round(sorted(r.ms)[len(r.ms) // 2], 1) if r.ms else None,
            "d_precision": round(r.precision - base.precision, 4), "d_recall": round(r.recall - base.recall, 4),
            "d_clean": round(r.clean_share - base.clean_share, 4),
        })
    return rows
