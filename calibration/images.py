"""Reading and writing image files with errors that name the file."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from calibration.errors import CalibrationError
from engine.files import InputFileError, read_input, write_bytes_atomic


@contextlib.contextmanager
def quiet_opencv():
    """Silence OpenCV for a block: its own log (WARN/ERROR lines for a truncated file, a backend that
    fails to open) and file descriptor 2, where libjpeg, libpng and FFmpeg print notices directly
    ("Premature end of JPEG file"). The caller says one clear line instead."""
    log = cv2.utils.logging
    level = log.getLogLevel()
    log.setLogLevel(log.LOG_LEVEL_SILENT)
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        log.setLogLevel(level)


def opencv_name(path: str | os.PathLike) -> str:
    """``path`` as the text OpenCV's video reader and writers take.

    Raises:
        ValueError: a name with bytes that are not UTF-8 (Python holds them as lone surrogates):
            handed to OpenCV it crashed the whole process, a venue service included (helper-149).
    """
    text = os.fspath(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{text!r}: the name is not UTF-8 text, which OpenCV cannot open or write; "
                         "rename it") from None
    return text


@contextlib.contextmanager
def opencv_path(path: str | os.PathLike):
    """The name OpenCV's video reader or writer opens for ``path``, for the block's length: ``path`` itself
    when it is UTF-8 text, else a symbolic link with a UTF-8 name to it (its target may not exist yet: a
    writer creates it through the link) in a temporary folder removed after the block. FFmpeg keeps the
    file it opened, so the block need only last until the capture or writer is open.

    Yields:
        str: the name to hand to ``cv2.VideoCapture`` / ``cv2.VideoWriter``.
    """
    try:
        name = opencv_name(path)
    except ValueError:
        name = None
    if name is not None:
        yield name
        return
    import shutil
    import tempfile

    path = Path(path).absolute()
    suffix = path.suffix if path.suffix.isascii() and path.suffix.isprintable() else ""
    folder = Path(tempfile.mkdtemp(prefix="dominocast-video-"))
    try:
        link = folder / f"video{suffix}"
        link.symlink_to(path)
        yield str(link)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def write_image(path: str | os.PathLike, image: np.ndarray, params: tuple[int, ...] = ()) -> None:
    """Write ``image`` ((H, W) or (H, W, 3) uint8 BGR) to ``path``, in the format its suffix names
    (encoded by OpenCV, written by Python: any file name works, see :func:`opencv_name`).

    Raises:
        OSError: the file cannot be written, or OpenCV has no encoder for its suffix.
    """
    suffix = Path(path).suffix
    try:
        ok, buf = cv2.imencode(suffix, image, list(params))
    except cv2.error:
        ok = False
    if not ok:
        raise OSError(f"OpenCV cannot write {suffix or 'a file without suffix'} pictures")
    write_bytes_atomic(path, buf.tobytes())  # an earlier picture stays whole if this fails (helper-154)


#: An image file longer than this (bytes) is refused before it is read: a 100-megapixel TIFF is 300 MB.
MAX_IMAGE_BYTES = 1 << 30
#: First bytes of a JPEG file: a format without transparency, so it is decoded once, not twice.
JPEG_MAGIC = b"\xff\xd8\xff"
#: First bytes of a PNG file, whose header says whether it can hold transparency.
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _may_hold_alpha(data: np.ndarray) -> bool:
    """Whether an encoded image (uint8 bytes) can hold transparent pixels: never a JPEG; a PNG only with
    an alpha channel (IHDR colour type 4 or 6, the byte at offset 25) or a ``tRNS`` chunk before its image
    data; other formats (TIFF, WebP, ...) are decoded to see. An opaque photo is so decoded once, not twice."""
    head = bytes(data[:8])
    if head.startswith(JPEG_MAGIC):
        return False
    if head != PNG_MAGIC:
        return True
    raw = data.tobytes()
    before_pixels = raw[:raw.find(b"IDAT")] if b"IDAT" in raw else raw
    return len(raw) > 25 and raw[25] in (4, 6) or b"tRNS" in before_pixels


def _imdecode(data: np.ndarray, flag: int) -> tuple[np.ndarray | None, float]:
    """``cv2.imdecode(data, flag)`` with transparent pixels filled (:func:`flatten_transparency`), and the
    share of the image that was transparent (0.0 for an opaque one). Raises ``cv2.error`` as imdecode does.

    ``IMREAD_COLOR`` and ``IMREAD_GRAYSCALE`` drop an alpha channel and keep the colour a transparent
    pixel happens to hold (mostly black): a tile cut out onto a transparent background was looked for on
    a black table. Only ``IMREAD_UNCHANGED`` keeps the alpha, so a file that may hold one
    (:func:`_may_hold_alpha`) is decoded again."""
    image = cv2.imdecode(data, flag)
    if image is None or not _may_hold_alpha(data):
        return image, 0.0
    full = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    if full is None or full.ndim != 3 or full.shape[2] != 4:
        return image, 0.0
    alpha = full[..., 3]
    if alpha.dtype != np.uint8:  # 16-bit (or float) PNG and TIFF: as 0-255, as the colours were read
        top = np.iinfo(alpha.dtype).max if alpha.dtype.kind in "ui" else 1.0
        alpha = cv2.convertScaleAbs(alpha, alpha=255.0 / top)
    if alpha.min() == 255:  # an alpha channel opaque everywhere (many editors save one) changes nothing
        return image, 0.0
    # IMREAD_UNCHANGED does not turn the picture by its EXIF orientation, the other flags do: the alpha is
    # turned as the colours were (a transparent PNG was left on its side where an opaque one was turned)
    turned = _turned_like_png(data, alpha)
    if turned is None or turned.shape != image.shape[:2]:  # not a PNG: the colours taken unturned, as the alpha
        return flatten_transparency(cv2.imdecode(data, flag | cv2.IMREAD_IGNORE_ORIENTATION), alpha)
    return flatten_transparency(image, turned)


def _turned_like_png(data: np.ndarray, alpha: np.ndarray) -> np.ndarray | None:
    """``alpha`` ((H, W) uint8, as IMREAD_UNCHANGED decodes it, unturned) turned as OpenCV turns the colours
    of the PNG ``data`` (uint8 bytes) by its EXIF orientation: the alpha itself when the PNG has no ``eXIf``
    chunk; else encoded as a grey PNG with that chunk and decoded by OpenCV, so that it is turned (flips
    too) exactly as the colours were. None when ``data`` is not a PNG."""
    raw = data.tobytes()
    if not raw.startswith(PNG_MAGIC):
        return None
    pos = len(PNG_MAGIC)
    while pos + 8 <= len(raw):  # chunks: 4-byte length, 4-byte type, data, 4-byte CRC
        length = int.from_bytes(raw[pos:pos + 4], "big")
        if raw[pos + 4:pos + 8] == b"eXIf":
            grey = cv2.imencode(".png", alpha, [cv2.IMWRITE_PNG_COMPRESSION, 1])[1].tobytes()
            head = len(PNG_MAGIC) + 25  # OpenCV writes IHDR (13 bytes of data) first
            exif = np.frombuffer(grey[:head] + raw[pos:pos + 12 + length] + grey[head:], np.uint8)
            return cv2.imdecode(exif, cv2.IMREAD_GRAYSCALE)
        pos += 12 + length
    return alpha


#: Grey (8-bit level) that transparent pixels are filled with: the detector's letterbox padding
#: (:data:`vision.obb.PAD_VALUE`; a test holds them equal, calibration does not import vision).
TRANSPARENT_FILL = 114


def flatten_transparency(image: np.ndarray, alpha: np.ndarray) -> tuple[np.ndarray, float]:
    """``image`` over plain grey :data:`TRANSPARENT_FILL` (114), weighted by ``alpha``, and the share of
    its pixels (0-1) that are half transparent or more (alpha 128 or less: helper-138's photos at alpha 250
    everywhere were said to be "100% transparent"; such a faint alpha changes the picture by 2 % and is not said).

    That grey is what the detector's letterbox pads its input with: it was trained to see there neither a
    table nor a tile, so a cut-out's transparent surroundings are looked at as no picture at all, where
    black would be a dark table and white a glare.

    Args:
        image: (H, W, 3) or (H, W) uint8.
        alpha: (H, W) uint8, 255 opaque, 0 transparent.
    """
    weight = alpha.astype(np.float32) / 255.0
    grey = np.full_like(image, TRANSPARENT_FILL)
    flat = cv2.blendLinear(image, grey, weight, 1.0 - weight)
    return flat, np.count_nonzero(alpha <= 128) / alpha.size


def percent(share: float) -> str:
    """A share (0-1) as a whole percentage, "under 1%" for a few pixels rather than "0%"."""
    return "under 1%" if 0 < share < 0.005 else f"{share:.0%}"


def transparency_note(path: str | os.PathLike[str], share: float) -> str:
    """The one line that says a photo's transparent part was filled with grey (``share``: 0-1 of its pixels)."""
    return (f"{path}: {percent(share)} of it is transparent: filled with plain grey, where no tile is looked for "
            "(tiles are read in its opaque part only)")


def decode_image(path: str | os.PathLike[str],
                 on_transparent: Callable[[float], None] | None = None) -> np.ndarray | None:
    """An image file as (H, W, 3) uint8 BGR, without OpenCV's log lines; None when it does not decode
    completely: a truncated JPEG (which ``cv2.imread`` would return half grey), a header over
    CV_IO_MAX_IMAGE_PIXELS (where OpenCV raises), a file that cannot be read, a device or a pipe.

    Transparent pixels (a PNG's alpha channel) are filled with grey (:func:`flatten_transparency`);
    ``on_transparent(share)`` is then called with the share (0-1) of the image that was transparent."""
    try:  # a FIFO among a folder's photos hung the review (helper-152); any file name works
        data = np.frombuffer(read_input(path, "image file", limit=MAX_IMAGE_BYTES), dtype=np.uint8)
    except InputFileError:
        return None
    if not data.size:
        return None
    with quiet_opencv():
        try:
            image, share = _imdecode(data, cv2.IMREAD_COLOR)
        except cv2.error:
            return None
    if share and on_transparent is not None:
        on_transparent(share)
    return image


#: FOURCCs (lower case) of FFmpeg's text "video" decoders: its ``tty`` demuxer draws a ``.txt``, ``.asc`` or
#: ``.nfo`` file as ANSI art, so a record's notation (``match.txt``) was taken for footage: calibrated on,
#: reviewed, called "a video" by ``detect`` (helper-253).
TEXT_RENDER_FOURCCS = frozenset({"ansi"})


def renders_text(cap: object) -> bool:
    """Whether an open ``cv2.VideoCapture`` (or a fake with ``get(prop)``) is FFmpeg drawing a text file as
    ANSI art rather than decoding footage: its FOURCC is one of :data:`TEXT_RENDER_FOURCCS`."""
    code = int(cap.get(cv2.CAP_PROP_FOURCC) or 0) & 0xFFFFFFFF  # -1 (unknown) from some backends
    return code.to_bytes(4, "little").decode("ascii", "replace").lower() in TEXT_RENDER_FOURCCS


def text_not_video(path: str | os.PathLike[str]) -> str:
    """The one line said when :func:`renders_text` holds for ``path``."""
    return (f"{path} is a text file, not a video (OpenCV's FFmpeg reader would draw its text as a picture): "
            "give the footage, or a picture of the table")


class VideoNotPictureError(CalibrationError):
    """A video file was given where a picture is expected (its message says how to take a frame)."""


def _is_video(path: Path) -> bool:
    """Whether FFmpeg (through OpenCV) opens ``path`` and decodes two frames of it: FFmpeg reads a picture,
    a truncated JPEG too, as a one-frame video."""
    try:
        with quiet_opencv(), opencv_path(path) as name:
            cap = cv2.VideoCapture(name, cv2.CAP_FFMPEG)
            try:
                return bool(cap.isOpened() and not renders_text(cap) and cap.read()[0] and cap.read()[0])
            finally:
                cap.release()
    except (OSError, cv2.error):
        return False


def _video_error(path: Path) -> VideoNotPictureError:
    """The error for a video given as a picture, with the README's one-liner that saves a frame of it."""
    return VideoNotPictureError(
        f"{path} is a video, not a picture: save one of its frames as a picture, e.g. the first with "
        f"python -c \"import cv2; c = cv2.VideoCapture({str(path)!r}); "
        "cv2.imwrite('frame.png', c.read()[1])\" (`dominocast calibrate table` takes the video itself: --frame N)")


def read_video_frame(path: str | os.PathLike[str], index: int = 0) -> tuple[np.ndarray, int]:
    """Frame ``index`` (0 = the first) of a video file, as OpenCV's FFmpeg reader decodes it, the reader
    ``review`` reads footage with.

    Returns:
        ``((H, W, 3) uint8 BGR frame, the number of frames the video's header declares; 0 when unknown)``.

    Raises:
        CalibrationError: ``index`` is negative, the file is missing or no video OpenCV decodes (a text file
            FFmpeg would draw as ANSI art included: :func:`renders_text`), it
            has no frame ``index`` (the message gives the frames it declares), or frame ``index`` is one it
            declares but cannot be decoded (a truncated or damaged video).
    """
    p = Path(path)
    if index < 0:
        raise CalibrationError(f"frame {index}: frames count from 0")
    if not p.is_file():  # FFmpeg says nothing useful about a missing file, and may wait on a pipe
        raise CalibrationError(f"{p}: no such video" if not p.exists() else f"{p} is not a video file")
    with quiet_opencv(), opencv_path(p) as name:  # any file name: a non-UTF-8 one is linked to
        cap = cv2.VideoCapture(name, cv2.CAP_FFMPEG)
        try:
            if not cap.isOpened():
                raise CalibrationError(f"{p}: not a video OpenCV can read (or a corrupt one)")
            if renders_text(cap):
                raise CalibrationError(text_not_video(p))
            count = max(0, int(cap.get(cv2.CAP_PROP_FRAME_COUNT)))
            if index:
                cap.set(cv2.CAP_PROP_POS_FRAMES, index)  # seeks as review's frame numbers count
            ok, frame = cap.read()
        finally:
            cap.release()
    if not ok or frame is None:
        if 0 < index < count:  # helper-195: "has no frame 15: its 20 frames are 0-19" on a damaged video
            raise CalibrationError(f"{p}: frame {index} of its {count} frames cannot be decoded: the video is "
                                   "truncated or corrupt (or holds fewer frames than it declares)")
        if index:
            raise CalibrationError(f"{p} has no frame {index}: "
                                   + (f"its {count} frames are 0-{count - 1}" if count else "it declares no frame count"))
        raise CalibrationError(f"{p}: not a video OpenCV can read (or a corrupt one)")
    return frame, count


def load_image(path: str | os.PathLike[str], *, gray: bool = False,
               on_transparent: Callable[[float], None] | None = None) -> np.ndarray:
    """Read an image file.

    Args:
        path: Image file (any format OpenCV decodes: PNG, JPEG, TIFF, BMP, ...).
        gray: Return a single-channel image.
        on_transparent: called with the share (0-1) of the image's pixels that were transparent, when
            any were; they are filled with grey (:func:`flatten_transparency`).

    Returns:
        ``(H, W)`` uint8 when ``gray`` is true, else ``(H, W, 3)`` uint8 BGR, turned upright by the file's
        EXIF orientation as OpenCV turns it (a transparent PNG's too).

    Raises:
        VideoNotPictureError: the file is a video (a CalibrationError whose message says how to take a frame).
        CalibrationError: the file does not exist, cannot be read, or is not an image.
    """
    p = Path(path)
    try:  # a FIFO named as a photo waited forever (helper-151); any file name works, non-UTF-8 ones too
        data = np.frombuffer(read_input(p, "image file", limit=MAX_IMAGE_BYTES), dtype=np.uint8)
    except InputFileError as exc:
        if p.is_file() and _is_video(p):  # over the picture size limit, as footage often is
            raise _video_error(p) from None
        raise CalibrationError(str(exc)) from None
    flag = cv2.IMREAD_GRAYSCALE if gray else cv2.IMREAD_COLOR
    with quiet_opencv():
        try:
            image, share = _imdecode(data, flag) if data.size else (None, 0.0)
        except cv2.error as exc:  # raised, not None, e.g. for a header over CV_IO_MAX_IMAGE_PIXELS
            # OpenCV's message is its failed check ("pixels <= CV_IO_MAX_IMAGE_PIXELS"): say it plainly
            raise CalibrationError(f"{p}: OpenCV refuses to decode it ({exc.err or exc}: an image header "
                                   "claiming more pixels than OpenCV allows, or a corrupt one)") from exc
    if image is None:
        if data.size and _is_video(p):  # helper-187: footage was called "truncated or corrupt"
            raise _video_error(p)
        raise CalibrationError(f"{p}: not an image, a truncated or corrupt one, or a format OpenCV cannot decode")
    if share and on_transparent is not None:
        on_transparent(share)
    return image


def to_gray(image: np.ndarray) -> np.ndarray:
    """Convert ``(H, W)``, ``(H, W, 3)`` BGR or ``(H, W, 4)`` BGRA uint8 to ``(H, W)`` uint8."""
    if image.ndim == 2:
        return image
    if image.ndim == 3 and image.shape[2] == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY)
    raise CalibrationError(f"unsupported image shape {image.shape}")
