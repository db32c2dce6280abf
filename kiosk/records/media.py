"""Key frames and showdown clips on disk, written so a crash never leaves a half file referenced.

A file is written under a temporary name, fsynced, renamed into place and its folder
fsynced; only then does the store reference it (with its sha256, so a swapped image
breaks the hash chain).

A clip is a plain MJPEG stream (JPEG images back to back; `ffplay -f mjpeg clip.mjpeg`
plays it) plus a manifest kept in the record: for each frame its index, its timestamp
in the source and its byte range, so a replay feeds the very frames back through the
pipeline with their original timing.

>>> import numpy as np, tempfile
>>> from kiosk.vision.images import encode_jpeg
>>> folder = Path(tempfile.mkdtemp())
>>> frames = [ClipFrame(i, i / 5, encode_jpeg(np.full((8, 8, 3), 40 * i, np.uint8))) for i in range(3)]
>>> data, manifest = pack_clip(frames)
>>> written = write_atomic(folder / "clip.mjpeg", data)
>>> [(f.frame_index, f.timestamp, f.image.shape) for f in read_clip(folder / "clip.mjpeg", manifest)]
[(0, 0.0, (8, 8, 3)), (1, 0.2, (8, 8, 3)), (2, 0.4, (8, 8, 3))]
"""

from __future__ import annotations

import ctypes
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from kiosk.errors import KioskError
from kiosk.records.chain import bytes_sha256
from kiosk.records.private import private_dir
from kiosk.vision.images import decode_jpeg

TMP_SUFFIX = ".part"


@dataclass(frozen=True, slots=True)
class ClipFrame:
    frame_index: int
    timestamp: float  # seconds in the source, as the pipeline saw it
    jpeg: bytes


@dataclass(frozen=True, slots=True)
class DecodedFrame:
    frame_index: int
    timestamp: float
    image: np.ndarray
    jpeg: bytes


@dataclass(frozen=True, slots=True)
class MediaFile:
    """A file a record references. `path` is relative to the database's folder when inside it."""

    role: str  # "key_frame" | "clip"
    path: str
    sha256: str
    bytes: int
    frame_index: int | None = None
    meta: dict | None = None  # the clip manifest, image size, ...


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes) -> str:
    """Write `data` to `path` durably (temp name, fsync, rename, fsync folder); returns its sha256."""
    path = Path(path)
    if not path.parent.is_dir():
        private_dir(path.parent)
    tmp = path.with_name(path.name + TMP_SUFFIX)
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)
    return bytes_sha256(data)


def write_unsynced(path: Path, data: bytes) -> None:
    """Write `data` to `path` under a temporary name and rename it; the caller syncs (`sync_filesystem`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + TMP_SUFFIX)
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def sync_filesystem(folder: Path) -> None:
    """Flush every file written on `folder`'s filesystem to disk: one syncfs(2) for a batch of files
    instead of two fsyncs each (os.sync() where syncfs is not available)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(folder, os.O_RDONLY)
    except (OSError, AttributeError):
        os.sync()
        return
    try:
        if libc.syncfs(fd) != 0:
            os.sync()
    finally:
        os.close(fd)


def pack_clip(frames: Sequence[ClipFrame]) -> tuple[bytes, list[dict]]:
    """The MJPEG bytes of a clip and its manifest (one entry per frame)."""
    manifest, parts, offset = [], [], 0
    for f in frames:
        manifest.append(
            {"frame_index": int(f.frame_index), "timestamp": round(float(f.timestamp), 6),
             "offset": offset, "length": len(f.jpeg)}
        )
        parts.append(f.jpeg)
        offset += len(f.jpeg)
    return b"".join(parts), manifest


def read_clip(path: Path, manifest: Sequence[dict]) -> Iterator[DecodedFrame]:
    """The frames of a stored clip, decoded, in recorded order."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise KioskError(f"cannot read the clip {path}: {err.strerror or err}", exit_code=1) from None
    for entry in manifest:
        chunk = data[entry["offset"]: entry["offset"] + entry["length"]]
        yield DecodedFrame(int(entry["frame_index"]), float(entry["timestamp"]), decode_jpeg(chunk), chunk)


def safe_name(text: str) -> str:
    """A file-name-safe form of a hand id."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)[:80] or "hand"


def remove_partial_files(media_dir: Path) -> int:
    """Delete temp files a crash left behind (never referenced by any record)."""
    removed = 0
    media_dir = Path(media_dir)
    if not media_dir.is_dir():
        return 0
    for tmp in media_dir.rglob("*" + TMP_SUFFIX):
        try:
            tmp.unlink()
            removed += 1
        except OSError:
            pass
    return removed
