"""The reader's folder (`models/`): its `reader.json`, which exports it holds, and the version its readings are
recorded under (the weights and how they are read, hashed).

    meta = read_meta(Path("models"))
    model_version(Path("models"), meta)  # "cards-2stage-..."
"""

from __future__ import annotations

import hashlib
import json
from functools import partial
from pathlib import Path

from kiosk.deck_assignment import NO_CARD
from kiosk.errors import KioskError
from kiosk.vision.backends import BACKENDS, INT8, open_runner

READER_JSON = "reader.json"


def model_version(model_dir: Path, meta: dict, backend: str = "") -> str:
    digest = hashlib.sha256()
    for key in ("detector", "classifier"):
        pt = model_dir / meta[key]["files"]["pytorch"]
        digest.update(pt.read_bytes() if pt.is_file() else pt.name.encode())
        if backend == INT8:  # quantized weights read differently from the FP32 ones
            for part in sorted((model_dir / meta[key]["files"][INT8]).glob("*.bin")):
                digest.update(part.read_bytes())
    # How the weights are read changes the readings as much as the weights do.
    reading = {k: meta.get(k) for k in ("det_conf", "det_iou", "bg_threshold", "min_confidence", "classify_turns")}
    if meta.get("report_confidence", 0.6) != 0.6:  # hashed since it left 0.6, so older versions keep their names
        reading["report_confidence"] = meta["report_confidence"]
    if meta.get("probe_gaps"):
        reading["probe_gaps"] = True
    if meta.get("recheck_zooms"):
        reading["recheck"] = [meta["recheck_zooms"], meta.get("recheck_below", 0.0)]
    if meta.get("turned_look"):
        reading["turned_look"] = meta["turned_look"]
        if meta.get("turned_sure"):
            reading["turned_sure"] = True
        if meta.get("turned_report"):
            reading["turned_report"] = meta["turned_report"]
    if list(meta.get("picture_scales", [1])) != [1]:
        reading["picture_scales"] = list(meta["picture_scales"])
    if meta.get("negative_look"):
        reading["negative_look"] = meta["negative_look"]
    if meta.get("closer_zoom"):
        reading["closer"] = [meta["closer_zoom"], meta.get("closer_report_confidence", 0.0)]
    if meta.get("shrink_area"):
        reading["shrink_area"] = True
    if meta.get("drop_nested"):
        reading["drop_nested"] = meta["drop_nested"]
    if meta.get("small_index"):
        reading["small_index"] = meta["small_index"]
    if meta.get("twin_reach"):
        reading["twin_reach"] = meta["twin_reach"]
    if meta.get("faint_partners"):
        reading["faint_partners"] = meta["faint_partners"]
    if meta.get("small_index_edge") and meta.get("small_index"):
        reading["small_index_edge"] = True
    if meta.get("one_deck_report") is not None:
        reading["one_deck_report"] = meta["one_deck_report"]
        if meta.get("whole_deck_left"):
            reading["whole_deck_left"] = meta["whole_deck_left"]
        if meta.get("one_deck_unread", NO_CARD) != NO_CARD:
            reading["one_deck_unread"] = meta["one_deck_unread"]
        if meta.get("unclaimed"):
            reading["unclaimed"] = meta["unclaimed"]
    if meta.get("context"):
        reading["context"] = [meta["context"].get(k) for k in ("drop", "pad", "imgsz")]
        if meta["context"].get("trust") and meta.get("one_deck_report") is not None:  # it weighs in settling a deck
            reading["context"].append("trust")
        pt = model_dir / (meta["context"].get("files") or {}).get("pytorch", "-")
        digest.update(pt.read_bytes() if pt.is_file() else pt.name.encode())
    if meta.get("veto"):
        reading["veto"] = [meta["veto"].get("bg"), sorted(meta["veto"].get("spare", ()))]
        pt = model_dir / (meta["veto"].get("files") or {}).get("pytorch", "-")
        digest.update(pt.read_bytes() if pt.is_file() else pt.name.encode())
    if meta.get("suit_look"):
        reading["suit_look"] = [meta["suit_look"].get("weight", 1.0), meta["suit_look"].get("sharpen", True)]
        pt = model_dir / (meta["suit_look"].get("files") or {}).get("pytorch", "-")
        digest.update(pt.read_bytes() if pt.is_file() else pt.name.encode())
    if meta.get("rank_look"):
        reading["rank_look"] = [meta["rank_look"].get("names"), meta["rank_look"].get("below")]
        pt = model_dir / (meta["rank_look"].get("files") or {}).get("pytorch", "-")
        digest.update(pt.read_bytes() if pt.is_file() else pt.name.encode())
    if meta.get("partners"):
        reading["partners"] = [meta["partners"].get("reach"), meta["partners"].get("sure")]
    reading["input"] = meta["detector"].get("input")
    digest.update(json.dumps(reading, sort_keys=True).encode())
    return f"cards-2stage-{digest.hexdigest()[:12]}"


def read_meta(model_dir: Path) -> dict:
    path = Path(model_dir) / READER_JSON
    if not path.is_file():
        raise KioskError(
            f"{model_dir}: no trained card reader here (missing {READER_JSON}); "
            "train one with 'kiosk train' or use the committed models/ folder"
        )
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise KioskError(f"{path}: unreadable ({err})") from err


def available_backends(model_dir: Path, meta: dict) -> list[str]:
    out = []
    for backend in BACKENDS:
        det = meta["detector"]["files"].get(backend)
        cls = meta["classifier"]["files"].get(backend)
        if det and cls and (Path(model_dir) / det).exists() and (Path(model_dir) / cls).exists():
            out.append(backend)
    return out


def veto_opener(model_dir: Path, meta: dict, backend: str):
    """What opens the background veto's network (None without one): in `backend`'s format where it has that
    export, else PyTorch's (it reads single pictures only). Looked for now, as the context check's is."""
    return _opener(model_dir, meta, "veto", (backend, "pytorch"), "the background veto")


def context_opener(model_dir: Path, meta: dict, backend: str):
    """What opens the context check's network (None without one): in `backend`'s format where it has that
    export, else OpenVINO's or PyTorch's (it reads single pictures only, so its format costs little). Its
    file is looked for now, so a reader without it fails to load rather than on its first picture."""
    return _opener(model_dir, meta, "context", ("openvino" if backend == INT8 else backend, "openvino", "pytorch"),
                   "the context check")


LOOKS = {"suit_look": "the suit look", "rank_look": "the rank look"}


def look_opener(model_dir: Path, meta: dict, backend: str, key: str):
    """What opens the network of a look (`key`: suit_look or rank_look; kiosk.vision.suit_look, rank_look), None
    without one: in `backend`'s format, else OpenVINO's or PyTorch's. It reads camera frames too, so a fast format
    matters."""
    return _opener(model_dir, meta, key, (backend, "openvino", "pytorch"), LOOKS[key])


def _opener(model_dir: Path, meta: dict, key: str, kinds: tuple, what: str):
    files = (meta.get(key) or {}).get("files")
    if not files:
        return None
    for kind in dict.fromkeys(kinds):
        if files.get(kind) and (model_dir / files[kind]).exists():
            return partial(open_runner, kind, model_dir / files[kind])
    raise KioskError(f"{model_dir}: {what}'s weights are missing ({READER_JSON} '{key}': {files})")
