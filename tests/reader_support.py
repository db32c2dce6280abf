"""Helpers for tests that read with a variant of the shipped card reader (models/)."""

from __future__ import annotations

import json
from pathlib import Path

MODELS = Path(__file__).resolve().parents[1] / "models"


def shipped_reader_with(folder: Path, edit) -> Path:
    """`folder` as the shipped reader (its files linked) with reader.json changed by `edit(meta)`."""
    folder.mkdir(parents=True, exist_ok=True)
    for f in MODELS.iterdir():
        if f.name != "reader.json":
            (folder / f.name).symlink_to(f)
    meta = json.loads((MODELS / "reader.json").read_text())
    edit(meta)
    (folder / "reader.json").write_text(json.dumps(meta))
    return folder
