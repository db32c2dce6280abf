"""Which reader folder a command reads with when none is named (`--models`).

Kept apart from model_folder.py so the command line can name the default without loading the reader's code.
"""

from __future__ import annotations

from pathlib import Path

MODELS_DEFAULT = "./models where it holds a reader, else the kiosk's own models/"
MODELS_HELP = f"reader folder (default: {MODELS_DEFAULT})"


def default_models_dir() -> Path:
    """./models where the command is run from a folder that holds a reader (one trained or copied there),
    else the committed models/ of the kiosk's checkout, so `kiosk detect photo.jpg` works from any folder."""
    here = Path("models")
    beside = Path(__file__).resolve().parents[2] / "models"
    return here if (here / "reader.json").is_file() or not (beside / "reader.json").is_file() else beside
