"""The reader's folder (`models/`): which exports it holds, its stages' networks, and the version its readings are
recorded under.

    settings = read_settings(Path("models"))        # kiosk.vision.settings
    model_version(Path("models"), settings)         # "cards-2stage-..."
"""

from __future__ import annotations

import hashlib
from functools import partial
from pathlib import Path

from kiosk.errors import KioskError
from kiosk.vision.backends import BACKENDS, INT8, open_runner
from kiosk.vision.context import ContextCheck
from kiosk.vision.settings import READER_JSON, ReaderSettings

# Each stage with a network: what it is called, and the formats it is opened in, best first, for a reader on
# `backend`: the context check reads single pictures only, so its format costs little.
STAGE_NETWORKS = {
    "context_check": ("the context check", lambda backend: ("openvino" if backend == INT8 else backend, "openvino",
                                                            "pytorch")),
}


def model_version(model_dir: Path, settings: ReaderSettings, backend: str = "") -> str:
    """A short hash of the weights' bytes (each network the reader opens: its PyTorch file, and its INT8 export too
    when read by `openvino-int8`) and of every setting that changes a reading
    (`ReaderSettings.reading_json`)."""
    digest = hashlib.sha256()
    for files in settings.networks().values():
        pt = model_dir / files["pytorch"]
        digest.update(pt.read_bytes() if pt.is_file() else pt.name.encode())
        if backend == INT8 and files.get(INT8):
            for part in sorted((model_dir / files[INT8]).glob("*.bin")):
                digest.update(part.read_bytes())
    digest.update(settings.reading_json().encode())
    return f"cards-2stage-{digest.hexdigest()[:12]}"


def available_backends(model_dir: Path, settings: ReaderSettings) -> list[str]:
    out = []
    for backend in BACKENDS:
        det = settings.detector.files.get(backend)
        cls = settings.classifier.files.get(backend)
        if det and cls and (Path(model_dir) / det).exists() and (Path(model_dir) / cls).exists():
            out.append(backend)
    return out


class Networks:
    """The stages' networks by stage name (`networks["context_check"]`), each opened on its first use: a camera frame never
    opens those only single pictures read. `opened` holds those opened (or put in place, in tests)."""

    def __init__(self, openers: dict):
        self._openers = openers
        self.opened: dict = {}

    def __getitem__(self, name: str):
        if name not in self.opened:
            self.opened[name] = self._openers[name]()
        return self.opened[name]


def network_openers(model_dir: Path, settings: ReaderSettings, backend: str) -> dict:
    """What opens each stage's network (those whose stage is on), in the best format the folder holds for `backend`
    (STAGE_NETWORKS). Their files are looked for now, so a folder without one fails to load, not on first use."""
    openers = {}
    for name, (what, formats) in STAGE_NETWORKS.items():
        stage = getattr(settings.stages, name)
        if stage is None:
            continue
        kind = next((k for k in dict.fromkeys(formats(backend))
                     if stage.files.get(k) and (model_dir / stage.files[k]).exists()), None)
        if kind is None:
            raise KioskError(f"{model_dir}: {what}'s weights are missing "
                             f"({READER_JSON} 'stages.{name}.files': {stage.files})")
        openers[name] = partial(open_runner, kind, model_dir / stage.files[kind])
    if "context_check" in openers:
        check, run = settings.stages.context_check, openers["context_check"]
        openers["context_check"] = lambda: ContextCheck(run(), list(check.names), check.pad, check.imgsz)
    return openers
