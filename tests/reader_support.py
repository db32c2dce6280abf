"""Helpers for tests that read with a variant of the shipped card reader (models/)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from kiosk.cards import CLASS_NAMES

MODELS = Path(__file__).resolve().parents[1] / "models"


def shipped_reader_with(folder: Path, edit) -> Path:
    """`folder` as the shipped reader (its files linked) with reader.json changed by `edit(meta)` (its dict)."""
    folder.mkdir(parents=True, exist_ok=True)
    for f in MODELS.iterdir():
        if f.name != "reader.json":
            (folder / f.name).symlink_to(f)
    meta = json.loads((MODELS / "reader.json").read_text())
    edit(meta)
    (folder / "reader.json").write_text(json.dumps(meta))
    return folder


def card_probs(**shares) -> np.ndarray:
    """One row of card probabilities (1, 53) with the given cards' shares, e.g. card_probs(Tc=0.3, Ts=0.6)."""
    p = np.zeros((1, len(CLASS_NAMES)))
    for card, v in shares.items():
        p[0, CLASS_NAMES.index(card)] = v
    return p


def shares_of(p: np.ndarray, *cards: str) -> list[float]:
    """The first row's shares of `cards`, rounded to 3 places."""
    return [round(float(p[0, CLASS_NAMES.index(c)]), 3) for c in cards]


def with_settings(reader, changes: dict):
    """A copy of `reader` (its networks shared) reading with its settings changed (reader.json's shape)."""
    import copy

    other = copy.copy(reader)
    other.settings = reader.settings.changed(changes)
    return other
