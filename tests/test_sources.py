"""Frame sources through OpenCV, and `kiosk calibrate` with real ArUco markers."""

from __future__ import annotations

import re
import threading
import time

import cv2
import numpy as np
import pytest
import yaml

from kiosk.cli import main
from kiosk.errors import KioskError
from kiosk.vision.images import why_unread
from kiosk.table.calibration import find_corners, marker_image
from kiosk.table.config import load_config
from kiosk.table.hub import Hub
from kiosk.table.sources import ImageFolderSource, LiveSource, VideoFileSource, open_source


def write_video(path, frames=12, fps=10, size=(320, 180)):
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
    assert writer.isOpened()
    for i in range(frames):
        img = np.full((size[1], size[0], 3), (40, 110, 30), np.uint8)
        cv2.putText(img, str(i), (20, 120), cv2.FONT_HERSHEY_SIMPLEX, 3, (255, 255, 255), 5)
        writer.write(img)
    writer.release()
    return path


def test_video_file_frames_with_timestamps(tmp_path):
    src = open_source(write_video(tmp_path / "hand.mp4"))
    assert isinstance(src, VideoFileSource)
    frames = list(src)
    assert [f.index for f in frames] == list(range(12))
    assert frames[5].timestamp == pytest.approx(0.5) and frames[0].image.shape == (180, 320, 3)
    assert src.last_status == "ended"


def test_video_loops_and_paces_like_a_camera(tmp_path):
    src = open_source(write_video(tmp_path / "hand.mp4", frames=5, fps=20), realtime=True, loop=True)
    t0 = time.monotonic()
    frames = []
    for f in src:
        frames.append(f)
        if len(frames) == 12:
            src.close()
    elapsed = time.monotonic() - t0
    assert [f.index for f in frames] == list(range(12))
    stamps = [f.timestamp for f in frames]
    assert stamps == sorted(stamps) and stamps[-1] >= 11 / 20 - 1e-9  # time runs on across loops
    # (a busy machine makes it drop frames as a camera would: later stamps, never earlier)
    assert elapsed >= 0.45  # paced at 20 fps, not read as fast as possible


def test_folder_of_photos_in_name_order_and_unreadable_ones_skipped(tmp_path):
    for name in ("b.png", "a.jpg", "c.png"):
        cv2.imwrite(str(tmp_path / name), np.zeros((20, 30, 3), np.uint8))
    (tmp_path / "broken.jpg").write_bytes(b"not a jpeg")
    (tmp_path / "IMG_3000.HEIC").write_bytes(b"\x00\x00\x00\x18ftypheic")  # an iPhone's: named, not passed over
    (tmp_path / "notes.txt").write_text("ignored")
    events = []
    hub = Hub()
    hub.subscribe(events.append)
    src = open_source(tmp_path, interval=2.0, hub=hub)
    assert isinstance(src, ImageFolderSource)
    frames = list(src)
    assert [f.source.rsplit("/", 1)[1] for f in frames] == ["a.jpg", "b.png", "c.png"]
    assert [f.timestamp for f in frames] == [0.0, 2.0, 4.0]
    assert src.skipped[0] == str(tmp_path / "IMG_3000.HEIC") + ": " + why_unread(tmp_path / "IMG_3000.HEIC")
    assert "save it as JPEG" in src.skipped[0]
    assert src.skipped[1:] == [f"{tmp_path / 'broken.jpg'}: not an image OpenCV can decode (corrupt or unsupported format)"]
    assert any(e.data["status"] == "lost" and "broken.jpg" in e.data["detail"] for e in events)


def test_a_jfif_photo_is_read_as_a_photo_alone_and_in_a_folder(tmp_path):
    # JFIF is JPEG under another name (browsers save photos so); before, a lone .jfif was opened as a video
    ok, buf = cv2.imencode(".jpg", np.full((20, 30, 3), 200, np.uint8))
    (tmp_path / "table.jfif").write_bytes(buf.tobytes())
    src = open_source(tmp_path / "table.jfif")
    assert not isinstance(src, VideoFileSource)
    frames = list(src)
    assert len(frames) == 1 and frames[0].image.shape == (20, 30, 3)
    assert [f.source.rsplit("/", 1)[1] for f in open_source(tmp_path)] == ["table.jfif"]


def test_bad_paths_are_clear_errors(tmp_path):
    with pytest.raises(KioskError, match="no such file or folder"):
        open_source(tmp_path / "nope.mp4")
    (tmp_path / "fake.mp4").write_bytes(b"\x00" * 100)
    with pytest.raises(KioskError, match="cannot read video .*fake.mp4"):
        open_source(tmp_path / "fake.mp4")
    (tmp_path / "fake.png").write_bytes(b"\x00" * 100)
    with pytest.raises(KioskError, match="cannot read image .*fake.png"):
        open_source(tmp_path / "fake.png")
    (tmp_path / "empty").mkdir()
    with pytest.raises(KioskError, match="no images in folder"):
        open_source(tmp_path / "empty")


def test_lost_camera_is_reported_and_retried_never_a_crash():
    events = []
    src = open_source(97, on_status=lambda s, d: events.append(s))  # no camera 97 on any machine
    assert isinstance(src, LiveSource) and src.live
    src.retry = (0.05, 0.1)
    got = []
    reader = threading.Thread(target=lambda: got.extend(src), daemon=True)
    reader.start()
    time.sleep(0.6)
    src.close()
    reader.join(3)
    assert not reader.is_alive() and got == []
    assert events[0] == "lost" and events.count("reconnecting") >= 2


LOST_CAMERA_SCRIPT = """
import logging, socket, threading, time
from kiosk.table.sources import LiveSource
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
with socket.socket() as s:
    s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]  # nothing listens there once closed
for target in (97, f"rtsp://127.0.0.1:{port}/table"):
    src = LiveSource(target, retry=(0.05, 0.1))
    threading.Thread(target=lambda: list(src), daemon=True).start()
    time.sleep(0.8)
    src.close()
"""


def test_a_lost_camera_says_one_line_per_change_not_opencvs_warnings_on_every_retry():
    """The terminal of `kiosk run` with the camera gone: `lost`, then `reconnecting`, nothing else."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", LOST_CAMERA_SCRIPT], capture_output=True, text=True, timeout=60,
                         env={k: v for k, v in __import__("os").environ.items() if not k.startswith("OPENCV_")})
    lines = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()]
    assert run.returncode == 0, run.stderr
    said = [re.match(r"(WARNING kiosk\.table\.sources: source .+?): (lost|reconnecting) ", line) for line in lines]
    assert all(said), lines  # nothing but the kiosk's own lines
    assert [m.group(2) for m in said] == ["lost", "reconnecting"] * 2, lines


def test_stream_that_stops_is_reconnected(tmp_path):
    """A stream that ends (here: a video file opened as a live source) is reopened and keeps going."""
    path = write_video(tmp_path / "cam.mp4", frames=6)
    events, details = [], []
    src = LiveSource(str(path), on_status=lambda s, d: (events.append(s), details.append(d)), retry=(0.05, 0.1))
    frames = []
    for f in src:
        frames.append(f)
        if src.reconnects >= 2 and len(frames) >= 3:
            break
    src.close()
    assert src.reconnects >= 2
    assert "lost" in events and "reconnecting" in events and events.count("connected") >= 2
    assert [f.index for f in frames] == list(range(len(frames)))  # the runner sees one unbroken sequence
    assert details[events.index("connected")] == f"{path} at 320x180"  # the installer sees what the camera gives


def test_a_live_source_decodes_only_the_frames_the_pipeline_takes(tmp_path):
    """A 4K camera sends 30 frames a second and the pipeline takes about 10: the frames it does not
    take are grabbed and dropped undecoded (decoding a 4K MJPG frame costs tens of ms of a 2-core CPU)."""
    src = LiveSource(str(write_video(tmp_path / "cam.mp4", frames=60)), retry=(0.05, 0.1))
    taken = []
    for f in src:
        taken.append(f)
        time.sleep(0.3)  # a slow pipeline: the grabber runs through the stream meanwhile
        if len(taken) == 3:
            break
    src.close()
    assert src.grabbed > 10 * src.decoded and src.decoded <= len(taken) + 1, (src.grabbed, src.decoded)
    assert [f.index for f in taken] == [0, 1, 2]


def felt_with_markers(missing=()):
    img = np.full((1080, 1920, 3), (40, 110, 30), np.uint8)
    spots = {0: (150, 850), 1: (200, 100), 2: (1650, 80), 3: (1700, 880)}  # top-left of each marker
    for marker_id, (x, y) in spots.items():
        if marker_id in missing:
            continue
        m = cv2.cvtColor(marker_image(marker_id, 100), cv2.COLOR_GRAY2BGR)
        img[y:y + m.shape[0], x:x + m.shape[1]] = m
    return img


def test_find_corners_from_aruco_markers():
    corners = find_corners(felt_with_markers())
    expected = [(220, 920), (270, 170), (1720, 150), (1770, 950)]  # marker centres, clockwise from seat 1's left
    for (x, y), (ex, ey) in zip(corners, expected):
        assert abs(x - ex) < 2 and abs(y - ey) < 2
    with pytest.raises(KioskError, match=r"ArUco markers 1 \(top-left.*3 \(bottom-right.* not found"):
        find_corners(felt_with_markers(missing=(1, 3)))


def test_kiosk_calibrate_writes_the_corners_into_the_config(tmp_path, capsys):
    photo = tmp_path / "felt.png"
    cv2.imwrite(str(photo), felt_with_markers())
    config = tmp_path / "table.yaml"
    config.write_text("# table nine\ntable:\n  name: t9\ngame:\n  stake: 5  # a point\n")
    assert main(["calibrate", str(photo), "--out", str(config)]) == 0
    cfg = load_config(config)
    assert cfg.table.name == "t9" and cfg.game.stake == 5  # the rest of the file is kept ...
    assert "# table nine" in config.read_text() and "# a point" in config.read_text()  # ... comments too
    assert [tuple(round(v) for v in c) for c in cfg.geometry.corners] == [(220, 920), (270, 170), (1720, 150), (1770, 950)]
    cv2.imwrite(str(photo), felt_with_markers(missing=(2,)))
    assert main(["calibrate", str(photo)]) == 1
    assert "ArUco marker 2 (top-right, seat 3's left) not found" in capsys.readouterr().err
    assert yaml.safe_load(config.read_text())["geometry"]["corners"][2] == list(cfg.geometry.corners[2])  # unchanged


def test_geometry_of_another_camera_size_is_reported_on_the_first_frame():
    """Corners clicked on 4K frames while the camera gives 1080p: the kiosk says so where the
    installer looks (the source status on the display, and the log), naming the key."""
    from kiosk.table.config import KioskConfig
    from kiosk.table.runner import TableRunner
    from kiosk.table.sources import Frame
    from kiosk.vision.detections import Detections

    class BareFelt:  # what the reader gives on a felt with no cards
        model_version, takes_still = "none", False

        def read(self, image, *args, frame_index=0, timestamp=0.0, source="", **kwargs):
            return Detections((), (image.shape[1], image.shape[0]), frame_index, timestamp, source, {})

    corners = [[120, 2080], [160, 80], [3700, 60], [3760, 2100]]
    felt = np.full((1080, 1920, 3), (40, 110, 30), np.uint8)
    said = []
    for corner_list in (corners, [[x / 2, y / 2] for x, y in corners]):
        hub = Hub()
        hub.subscribe(lambda e: said.append(e.data.get("detail")) if e.kind == "source" else None)
        cfg = KioskConfig.model_validate({"geometry": {"corners": corner_list}})
        TableRunner(cfg, None, BareFelt(), hub).process(Frame(felt, 0, 0.0, "camera 0"))
    assert said == ["config: geometry.corners reach (3760, 2100), outside this 1920x1080 frame: "
                    "calibrated at another camera size? (config camera.size)"]  # the 1080p corners: nothing said
