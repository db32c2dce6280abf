"""Frame sources through OpenCV: USB camera, RTSP/HTTP stream, video file, folder of images.

`open_source(spec)` gives an iterable of `Frame`s with `.close()`:
- None: the built-in demo recording (kiosk/data/demo/table.mp4);
- an int or a string of digits: a USB camera index;
- a URL (rtsp://, http://, https://, udp://, ...): a network stream;
- a folder: its images in name order, each a frame `interval` seconds after the last;
- an image file: one frame; any other file: a video.

Live sources (cameras, streams) never end on their own: a lost camera is reported
("lost", then "reconnecting") and reopened with a growing pause, and the newest frame
is always the one handed out (a slow reader skips frames instead of lagging behind).
A USB camera is asked for the config's `camera.size` (OpenCV would open most at 640x480);
"connected" says the size it gives.
`realtime=True` paces a file like a camera (skipping frames when the consumer is slow);
`loop=True` starts a file again at its end (the demo plays for ever).
Status changes go to `on_status(status, detail)` (the runner publishes them on the hub) and the
terminal gets one line per change of status; OpenCV's and FFmpeg's own messages on every retry are
silenced for live sources (set OPENCV_LOG_LEVEL / OPENCV_FFMPEG_LOGLEVEL to see them).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import cv2
import numpy as np

from kiosk.errors import KioskError
from kiosk.table.config import DEMO_RECORDING
from kiosk.vision.images import IMAGE_SUFFIXES, PHOTO_SUFFIXES, decode_jpeg, encode_jpeg, load_picture

log = logging.getLogger(__name__)

StatusCallback = Callable[[str, str], None]


@dataclass(frozen=True, slots=True)
class Frame:
    image: np.ndarray  # BGR
    index: int
    timestamp: float  # seconds since the source started
    source: str
    jpeg: bytes | None = None  # when set, `image` is exactly the decoding of these bytes

    def as_jpeg(self, quality: int = 90) -> "Frame":
        """This frame as the recorder stores it: JPEG-encoded once, and the image decoded from it.

        A kiosk that records reads these very pixels live, so a replay of the stored
        frames reads what the table read (JPEG is lossy: raw pixels would read differently).
        """
        if self.jpeg is not None:
            return self
        data = encode_jpeg(self.image, quality)
        return Frame(decode_jpeg(data), self.index, self.timestamp, self.source, data)


class FrameSource:
    """Base: iterate for frames; `close()` stops (from any thread)."""

    live = False

    def __init__(self, name: str, on_status: StatusCallback | None = None):
        self.name = name
        self.on_status = on_status
        self._closed = threading.Event()
        self.last_status: str | None = None

    def status(self, status: str, detail: str = "") -> None:
        if status != self.last_status:  # one line per change, not one per retry
            level = logging.WARNING if status in ("lost", "reconnecting") else logging.INFO
            log.log(level, "source %s: %s %s", self.name, status, detail)
        self.last_status = status
        if self.on_status is not None:
            try:
                self.on_status(status, detail)
            except Exception:  # a broken listener must not stop the camera
                log.exception("source status listener failed")

    def close(self) -> None:
        self._closed.set()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def __iter__(self) -> Iterator[Frame]:
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


VIDEO_STALL_S = 20.0  # a file that decodes nothing for this long is given up (ffmpeg's own timeouts)


def _open_video(path: Path):
    """A video file through ffmpeg, with bounded waits: a damaged file gives up instead of searching for minutes."""
    ms = int(VIDEO_STALL_S * 1000)
    params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms]
    cap = cv2.VideoCapture(str(path), cv2.CAP_FFMPEG, params)
    if not cap.isOpened():  # not something ffmpeg opens: let OpenCV try its other backends
        cap = cv2.VideoCapture(str(path))
    return cap


class VideoFileSource(FrameSource):
    def __init__(self, path: Path, realtime: bool = False, loop: bool = False, on_status=None):
        super().__init__(str(path), on_status)
        self.path = path
        self.realtime = realtime
        self.loop = loop
        self.gave_up: str | None = None  # why the file stopped early, if it did
        started = time.monotonic()
        cap = _open_video(path)
        ok = cap.isOpened() and cap.read()[0]
        self.fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0) if ok else 0.0
        self.frame_count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0) if ok else 0
        cap.release()
        if not ok:
            waited = time.monotonic() - started
            why = f"no decodable frame in {waited:.0f} s" if waited >= VIDEO_STALL_S else "not a video OpenCV can decode"
            raise KioskError(f"cannot read video {path}: {why}", exit_code=2)
        if not 1.0 <= self.fps <= 240.0:
            self.fps = 25.0

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        offset = 0.0  # timestamp offset of the current pass (looping)
        start = time.monotonic()
        self.status("connected", self.name)
        while not self.closed:
            cap = _open_video(self.path)
            n = 0
            last_frame = time.monotonic()
            try:
                while not self.closed:
                    if self.realtime:
                        due = start + offset + n / self.fps
                        late = time.monotonic() - due
                        while late > 1.0 / self.fps and cap.grab():  # skip what a camera would have dropped
                            n += 1
                            due = start + offset + n / self.fps
                            late = time.monotonic() - due
                        if late < 0:
                            time.sleep(-late)
                    ok, image = cap.read()
                    if not ok:
                        if time.monotonic() - last_frame >= VIDEO_STALL_S:
                            self.gave_up = f"no decodable frame for {VIDEO_STALL_S:.0f} s after frame {index}"
                        break
                    last_frame = time.monotonic()
                    yield Frame(image, index, offset + n / self.fps, self.name)
                    index += 1
                    n += 1
            finally:
                cap.release()
            if not self.loop or n == 0:
                break
            offset += n / self.fps
        self.status("ended", self.name)


class ImageFolderSource(FrameSource):
    def __init__(self, path: Path, interval: float = 1.0, realtime: bool = False, loop: bool = False, on_status=None):
        super().__init__(str(path), on_status)
        # photos OpenCV cannot decode (an iPhone's HEIC) are listed too, to be named when skipped
        self.files = sorted(p for p in path.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES and p.is_file())
        if not self.files:
            raise KioskError(f"no images in folder {path} (looked for {', '.join(sorted(IMAGE_SUFFIXES))})")
        self.interval = interval
        self.realtime = realtime
        self.loop = loop
        self.skipped: list[str] = []

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        start = time.monotonic()
        self.status("connected", self.name)
        while not self.closed:
            for path in self.files:
                if self.closed:
                    break
                try:
                    image = load_picture(path)[0]  # the loader `kiosk detect` uses: size limits, named errors
                except (KioskError, cv2.error) as err:
                    self.skipped.append(str(err) if isinstance(err, KioskError) else f"{path}: {err}")
                    self.status("lost", f"cannot read image {self.skipped[-1]}; skipped")
                    continue
                ts = index * self.interval
                if self.realtime:
                    wait = start + ts - time.monotonic()
                    if wait > 0:
                        time.sleep(wait)
                yield Frame(image, index, ts, str(path))
                index += 1
            if not self.loop:
                break
        self.status("ended", self.name)


class ImageFileSource(FrameSource):
    def __init__(self, path: Path, on_status=None):
        super().__init__(str(path), on_status)
        try:
            self.image = load_picture(path)[0]
        except KioskError as err:
            raise KioskError(f"cannot read image {err}", exit_code=2) from None

    def __iter__(self) -> Iterator[Frame]:
        self.status("connected", self.name)
        if not self.closed:
            yield Frame(self.image, 0, 0.0, self.name)
        self.status("ended", self.name)


def quiet_opencv() -> None:
    """Silence OpenCV's multi-line warnings and FFmpeg's messages on every reconnect (unless asked for)."""
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # AV_LOG_QUIET; read when FFmpeg first opens
    if "OPENCV_LOG_LEVEL" not in os.environ:
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)


class LiveSource(FrameSource):
    """A camera or stream: a grabber thread grabs every frame and decodes the newest when the pipeline
    asks (the others are dropped undecoded); lost -> reconnect."""

    live = True

    def __init__(self, target: int | str, on_status=None, retry: tuple[float, float] = (0.5, 5.0),
                 read_timeout: float = 5.0, camera=None):
        super().__init__(f"camera {target}" if isinstance(target, int) else str(target), on_status)
        self.target = target
        self.camera = camera  # config `camera` (size and pixel format asked of a USB camera); None: its own
        self.retry = retry
        self.read_timeout = read_timeout
        self._cond = threading.Condition()
        self._latest: tuple[np.ndarray, float] | None = None
        self._seq = 0
        self._wanted = False  # the pipeline waits for a frame: decode the next one grabbed
        self.grabbed = self.decoded = 0
        self._thread: threading.Thread | None = None
        self._start = time.monotonic()
        self.reconnects = 0

    def _open(self):
        quiet_opencv()
        if isinstance(self.target, int):
            cap = cv2.VideoCapture(self.target)
            if self.camera is not None and self.camera.size and cap.isOpened():
                ask_size(cap, self.camera.size, self.camera.fourcc)
            return cap
        return cv2.VideoCapture(self.target, cv2.CAP_FFMPEG)

    def _connected(self, cap) -> str:
        asked = self.camera.size if self.camera is not None and isinstance(self.target, int) else None
        return f"{self.name} {size_said(capture_size(cap), asked)}".rstrip()

    def _grab_loop(self) -> None:
        pause = self.retry[0]
        first = True
        while not self.closed:
            cap = self._open()
            if not cap.isOpened():
                cap.release()
                self.status("lost" if first else "reconnecting", f"cannot open {self.name}; retrying in {pause:.1f} s")
                first = False
                self._closed.wait(pause)
                pause = min(pause * 2, self.retry[1])
                continue
            self.status("connected", self._connected(cap))
            pause = self.retry[0]
            while not self.closed:
                if not cap.grab():
                    break
                self.grabbed += 1
                ts = time.monotonic() - self._start
                with self._cond:
                    wanted = self._wanted
                if not wanted:  # decoded only when the pipeline waits: a 4K MJPG frame costs tens of ms
                    continue
                ok, image = cap.retrieve()
                if not ok or image is None:
                    break
                self.decoded += 1
                with self._cond:
                    self._latest = (image, ts)
                    self._seq += 1
                    self._wanted = False
                    self._cond.notify_all()
            cap.release()
            if self.closed:
                break
            self.reconnects += 1
            self.status("lost", f"{self.name} stopped sending frames")
            self._closed.wait(pause)
            self.status("reconnecting", self.name)
            first = False
        with self._cond:
            self._cond.notify_all()

    def __iter__(self) -> Iterator[Frame]:
        if self._thread is None:
            self._thread = threading.Thread(target=self._grab_loop, name=f"grab {self.name}", daemon=True)
            self._thread.start()
        seen = 0
        index = 0
        while not self.closed:
            with self._cond:
                while self._seq == seen and not self.closed:
                    self._wanted = True
                    self._cond.wait(0.5)
                if self.closed:
                    break
                seen = self._seq
                image, ts = self._latest
            yield Frame(image, index, ts, self.name)
            index += 1

    def close(self) -> None:
        super().close()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)


def ask_size(cap, size: tuple[int, int], fourcc: str = "MJPG") -> None:
    """Ask an open capture for a resolution and pixel format (it answers with the nearest it has)."""
    cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*fourcc))
    cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
    cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])


def capture_size(cap) -> tuple[int, int] | None:
    """The frame size an open capture gives (None where it does not say)."""
    w, h = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH) or 0), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0)
    return (w, h) if w > 0 and h > 0 else None


def size_said(got: tuple[int, int] | None, asked: tuple[int, int] | None) -> str:
    """How "connected" names the frame size.

    >>> size_said((3840, 2160), (3840, 2160))
    'at 3840x2160'
    >>> size_said((1920, 1080), (3840, 2160))
    'at 1920x1080 (asked 3840x2160: the nearest this camera gives)'
    >>> size_said(None, None)
    ''
    """
    if got is None:
        return ""
    said = f"at {got[0]}x{got[1]}"
    if asked is not None and tuple(asked) != got:
        said += f" (asked {asked[0]}x{asked[1]}: the nearest this camera gives)"
    return said


def open_source(
    spec: int | str | Path | None = None,
    *,
    realtime: bool = False,
    loop: bool = False,
    interval: float = 1.0,
    on_status: StatusCallback | None = None,
    hub=None,
    camera=None,
) -> FrameSource:
    """Open a frame source from what a person would type (see the module doc); `camera`: the
    config's camera section (the size asked of a USB camera)."""
    if hub is not None and on_status is None:
        def on_status(status: str, detail: str) -> None:
            hub.publish("source", status=status, detail=detail)

    if spec is None:
        if not DEMO_RECORDING.exists():
            raise KioskError(
                f"the demo recording {DEMO_RECORDING} is missing (render it: python datasets/build.py demo)"
                ", or give a source (camera index, stream URL, video, folder of images)",
                exit_code=1,
            )
        spec = DEMO_RECORDING
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        return LiveSource(int(spec), on_status=on_status, camera=camera)
    text = str(spec)
    if "://" in text:
        return LiveSource(text, on_status=on_status)
    path = Path(text).expanduser()
    if path.is_dir():
        return ImageFolderSource(path, interval, realtime, loop, on_status)
    if not path.exists():
        raise KioskError(f"no such file or folder: {path}", exit_code=2)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return ImageFileSource(path, on_status)
    return VideoFileSource(path, realtime, loop, on_status)
