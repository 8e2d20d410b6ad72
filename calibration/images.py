"""Reading and writing image files with errors that name the file."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import cv2
import numpy as np

from calibration.errors import CalibrationError


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


def decode_image(path: str | os.PathLike[str]) -> np.ndarray | None:
    """An image file as (H, W, 3) uint8 BGR, without OpenCV's log lines; None when it does not decode
    completely: a truncated JPEG (which ``cv2.imread`` would return half grey), a header over
    CV_IO_MAX_IMAGE_PIXELS (where OpenCV raises), a file that cannot be read."""
    try:
        data = np.fromfile(str(path), dtype=np.uint8)  # works with non-ASCII paths too
    except OSError:
        return None
    if not data.size:
        return None
    with quiet_opencv():
        try:
            return cv2.imdecode(data, cv2.IMREAD_COLOR)
        except cv2.error:
            return None


def load_image(path: str | os.PathLike[str], *, gray: bool = False) -> np.ndarray:
    """Read an image file.

    Args:
        path: Image file (any format OpenCV decodes: PNG, JPEG, TIFF, BMP, ...).
        gray: Return a single-channel image.

    Returns:
        ``(H, W)`` uint8 when ``gray`` is true, else ``(H, W, 3)`` uint8 BGR.

    Raises:
        CalibrationError: the file does not exist, cannot be read, or is not an image.
    """
    p = Path(path)
    if not p.exists():
        raise CalibrationError(f"{p}: no such file")
    if p.is_dir():
        raise CalibrationError(f"{p}: is a directory, not an image")
    try:
        data = np.fromfile(str(p), dtype=np.uint8)  # works with non-ASCII paths too
    except OSError as exc:
        raise CalibrationError(f"{p}: cannot read ({exc.strerror or exc})") from exc
    flag = cv2.IMREAD_GRAYSCALE if gray else cv2.IMREAD_COLOR
    with quiet_opencv():
        try:
            image = cv2.imdecode(data, flag) if data.size else None
        except cv2.error as exc:  # raised, not None, e.g. for a header over CV_IO_MAX_IMAGE_PIXELS
            # OpenCV's message is its failed check ("pixels <= CV_IO_MAX_IMAGE_PIXELS"): say it plainly
            raise CalibrationError(f"{p}: OpenCV refuses to decode it ({exc.err or exc}: an image header "
                                   "claiming more pixels than OpenCV allows, or a corrupt one)") from exc
    if image is None:
        raise CalibrationError(f"{p}: not an image, a truncated or corrupt one, or a format OpenCV cannot decode")
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
