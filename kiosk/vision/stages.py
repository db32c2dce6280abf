"""The reading stages of a single picture that reader.json can turn off, each with the settings that do it.

`kiosk eval --by-stage` reads a set once with every stage and once more with each stage off, so a stage's
place is earned by the figures it moves (docs/detector.md, "Stages").
"""

from __future__ import annotations

STAGES_OFF: dict[str, dict] = {
    "picture scales": {"picture_scales": [1]},
    "negative look": {"negative_look": 0.0},
    "four turns": {"classify_turns": 1},
    "recheck zooms": {"recheck_zooms": []},
    "gaps": {"probe_gaps": False},
    "closer look": {"closer_zoom": 0.0},
    "nested": {"drop_nested": 0.0},
    "small index": {"small_index": 0.0},
    "faint partners": {"faint_partners": 0.0},
    "twins": {"twin_reach": 0.0},
    "turned look": {"turned_look": 0.0},
    "context check": {"context": None},
    "one deck": {"one_deck_report": None},
    "whole deck": {"whole_deck_left": 0, "unclaimed": None},
    "veto": {"veto": None},
    "partners": {"partners": None},
    "suit look": {"suit_look": None},
}


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
