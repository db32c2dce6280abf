"""`kiosk analyze` / `kiosk replay` on unusable input (issue 67): the loader `kiosk detect` uses,
the bad file named and the rest read, exit 2 for input with nothing usable, bounded time."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from kiosk.cli import main
from kiosk.errors import KioskError
from kiosk.table.sources import open_source

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "kiosk" / "data" / "demo" / "table.mp4"


def over_opencv_limit_png(path: Path) -> None:
    """A valid PNG header claiming 40000x40000 (1.6 gigapixels, over OpenCV's decode limit)."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", 40000, 40000, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 100))
                     + chunk(b"IEND", b""))


def test_a_folder_with_bad_photos_names_each_and_reads_the_rest(tmp_path):
    cv2.imwrite(str(tmp_path / "a.jpg"), np.full((120, 160, 3), 90, np.uint8))
    over_opencv_limit_png(tmp_path / "b_huge.png")
    (tmp_path / "c_text.jpg").write_text("not a photo")
    (tmp_path / "d_empty.jpg").write_bytes(b"")
    cv2.imwrite(str(tmp_path / "e_tiny.png"), np.zeros((1, 1, 3), np.uint8))
    cv2.imwrite(str(tmp_path / "f.jpg"), np.full((120, 160, 3), 90, np.uint8))
    source = open_source(tmp_path)
    frames = [Path(f.source).name for f in source]
    assert frames == ["a.jpg", "f.jpg"]
    reasons = dict(s.split(": ", 1) for s in (x.replace(str(tmp_path) + "/", "") for x in source.skipped))
    assert "too large to read" in reasons["b_huge.png"]
    assert "not an image" in reasons["c_text.jpg"] and "empty file" in reasons["d_empty.jpg"]
    assert "1x1 is too small to read" in reasons["e_tiny.png"]


@pytest.mark.parametrize("name, content, words", [
    ("empty.jpg", b"", "empty file"),
    ("text.jpg", b"hello, this is text", "not an image"),
    ("text.mp4", b"hello, this is text", "cannot read video"),
    ("truncated.mp4", None, "cannot read video"),
    ("tiny.png", "1x1", "1x1 is too small to read"),
])
def test_unusable_input_exits_2_with_one_line(tmp_path, capsys, name, content, words):
    path = tmp_path / name
    if content is None:
        path.write_bytes(DEMO.read_bytes()[:3000])
    elif content == "1x1":
        cv2.imwrite(str(path), np.zeros((1, 1, 3), np.uint8))
    else:
        path.write_bytes(content)
    assert main(["analyze", str(path), "--detections", str(path)]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and "no hand found" not in err


def test_a_folder_with_nothing_readable_exits_2(tmp_path, capsys):
    (tmp_path / "a.jpg").write_text("text")
    (tmp_path / "b.png").write_bytes(b"")
    dets = tmp_path / "d.json"
    dets.write_text("[]")
    assert main(["analyze", str(tmp_path), "--detections", str(dets)]) == 2
    assert "none of its 2 images could be read" in capsys.readouterr().err


def test_a_bit_flipped_video_ends_in_bounded_time(tmp_path):
    data = bytearray(DEMO.read_bytes())
    rng = np.random.default_rng(7)
    start = data.find(b"mdat") + 8
    for k in rng.integers(start, len(data) - 100_000, 400):
        data[int(k)] ^= 1 << int(rng.integers(0, 8))
    path = tmp_path / "flipped.mp4"
    path.write_bytes(bytes(data))
    t0 = time.monotonic()
    try:
        frames = sum(1 for _ in open_source(path))
    except KioskError as err:
        frames, message = 0, str(err)
        assert err.exit_code == 2 and "cannot read video" in message
    assert time.monotonic() - t0 < 60
    assert frames >= 0


def test_replay_of_an_unusable_video_exits_2(tmp_path):
    path = tmp_path / "text.mp4"
    path.write_text("not a video")
    proc = subprocess.run([sys.executable, "-m", "kiosk", "replay", str(path), "--db", str(tmp_path / "no.sqlite")],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 2 and "cannot read video" in proc.stderr and "Traceback" not in proc.stderr
