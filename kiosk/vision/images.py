"""Reading image files for the reader's commands, with errors that name the file; JPEG in and out of memory."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from kiosk.errors import KioskError

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff", ".jfif"}
# Photos OpenCV does not decode: a folder's are still listed, each with an error that says what to do,
# so that none is passed over without a word.
HEIC = ("an HEIC photo (an iPhone's default format), which cannot be read here: save it as JPEG (an iPhone takes "
        "JPEG photos with Settings > Camera > Formats > Most Compatible)")
RAW = "a camera raw file, which cannot be read here: export it as JPEG from the camera or a photo program"
UNREAD_PHOTOS = {".heic": HEIC, ".heif": HEIC,
                 **{s: RAW for s in (".dng", ".cr2", ".cr3", ".nef", ".arw", ".raf", ".orf", ".rw2")}}
PHOTO_SUFFIXES = IMAGE_SUFFIXES | set(UNREAD_PHOTOS)  # what a folder of photos lists
VIDEO = "a video, not a photo: `kiosk analyze` reads the hands in a recording"
VIDEO_SUFFIXES = {".mp4", ".mov", ".avi", ".mkv", ".webm", ".m4v"}
MAX_PIXELS = 80_000_000  # read at most this many; a larger photo (a 108 or 200 MP phone) is decoded smaller
REDUCED = ((2, cv2.IMREAD_REDUCED_COLOR_2), (4, cv2.IMREAD_REDUCED_COLOR_4), (8, cv2.IMREAD_REDUCED_COLOR_8))
OPENCV_LIMIT = 1 << 30  # OpenCV decodes no image of more pixels (CV_IO_MAX_IMAGE_PIXELS)


def why_unread(path: Path) -> str:
    """What to do with a file OpenCV could not decode, where its suffix tells (else "").

    >>> why_unread(Path("IMG_1.HEIC")).split(",")[0], why_unread(Path("a.jpg"))
    ("an HEIC photo (an iPhone's default format)", '')
    """
    suffix = path.suffix.lower()
    return UNREAD_PHOTOS.get(suffix) or (VIDEO if suffix in VIDEO_SUFFIXES else "")


def load_image(path: str | Path) -> np.ndarray:
    """The picture at `path` as BGR uint8; KioskError naming the file if it cannot be read."""
    return load_picture(path)[0]


def load_picture(path: str | Path) -> tuple[np.ndarray, tuple[float, float]]:
    """The picture at `path` as BGR uint8 and the scale (x, y) from its pixels to the file's: (1, 1), or
    about 2, 4 or 8 where the file holds more than MAX_PIXELS and was decoded at that fraction of its size
    (JPEG decodes so without the full image in memory). KioskError naming the file if it cannot be read."""
    p = Path(path)
    if not p.exists():
        raise KioskError(f"{p}: no such file", exit_code=1)
    if p.is_dir():
        # expand_inputs hands a folder on only when it holds no image it would read
        raise KioskError(f"{p}: a folder with no images in it ({', '.join(sorted(IMAGE_SUFFIXES))})", exit_code=1)
    try:
        data = np.fromfile(str(p), dtype=np.uint8)
    except OSError as err:
        raise KioskError(f"{p}: cannot be read ({err.strerror or err})", exit_code=1) from err
    if data.size == 0:
        raise KioskError(f"{p}: empty file, not an image", exit_code=1)
    size = _stored_size(p)
    if size is not None and size[0] * size[1] > OPENCV_LIMIT:
        raise KioskError(f"{p}: {size[0]}x{size[1]} is too large to read (limit {OPENCV_LIMIT // 1_000_000} "
                         "megapixels)", exit_code=1)
    flag = cv2.IMREAD_COLOR
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        flag = next(fl for f, fl in REDUCED if size[0] * size[1] <= MAX_PIXELS * f * f or f == 8)
    image = cv2.imdecode(data, flag)
    if (image is None or image.size == 0) and why_unread(p):
        raise KioskError(f"{p}: {why_unread(p)}", exit_code=1)
    if image is None or image.size == 0:
        raise KioskError(f"{p}: not an image OpenCV can decode (corrupt or unsupported format)", exit_code=1)
    h, w = image.shape[:2]
    if h * w > MAX_PIXELS:
        raise KioskError(f"{p}: {w}x{h} is too large to read (limit {MAX_PIXELS // 1_000_000} megapixels)", exit_code=1)
    if min(h, w) < 16:
        raise KioskError(f"{p}: {w}x{h} is too small to read (a card needs more than 16 pixels a side)",
                         exit_code=1)
    if flag == cv2.IMREAD_COLOR:
        return image, (1.0, 1.0)
    W, H = size
    if (w > h) != (W > H):  # decoded turned upright by the photo's EXIF orientation
        W, H = H, W
    return image, (W / w, H / h)


def _stored_size(p: Path) -> tuple[int, int] | None:
    """(width, height) from the file's header, without decoding it; None where Pillow cannot tell."""
    from PIL import Image

    limit = Image.MAX_IMAGE_PIXELS
    Image.MAX_IMAGE_PIXELS = None  # only the header is read: no decompression bomb to guard against here
    try:
        with Image.open(p) as im:
            return im.size
    except Exception:  # noqa: BLE001 - any file Pillow does not know is left to OpenCV to judge
        return None
    finally:
        Image.MAX_IMAGE_PIXELS = limit


def expand_inputs(paths: list[str]) -> list[Path]:
    """Files as given; a folder stands for the images directly inside it (sorted), those OpenCV cannot
    decode (UNREAD_PHOTOS) among them, to be named."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(f for f in p.iterdir() if f.suffix.lower() in PHOTO_SUFFIXES)
            out.extend(found if found else [p])
        else:
            out.append(p)
    return out


def encode_jpeg(image: np.ndarray, quality: int = 90, max_width: int | None = None) -> bytes:
    """JPEG bytes of a BGR image (downscaled to `max_width` when wider); the input is not modified."""
    if max_width and image.shape[1] > max_width:
        scale = max_width / image.shape[1]
        image = cv2.resize(image, (max_width, max(1, round(image.shape[0] * scale))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("OpenCV could not encode the frame as JPEG")
    return buf.tobytes()


def decode_jpeg(data: bytes) -> np.ndarray:
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise KioskError("a stored frame is not a readable JPEG (the media file is damaged)", exit_code=1)
    return image
