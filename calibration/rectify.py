"""Top-down (rectified) table images.

Output pixel convention: the rectified image is ``round(H * px_per_mm)`` rows by
``round(W * px_per_mm)`` columns and pixel ``(col, row)`` covers the table square whose
centre is ``((col + 0.5) / px_per_mm, (row + 0.5) / px_per_mm)`` mm, so the image spans
exactly ``[0, W] x [0, H]`` mm.  Table mm -> output pixel: ``u = x * px_per_mm - 0.5``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np

from calibration.errors import CalibrationError

if TYPE_CHECKING:
    from calibration.profile import TableProfile


def _check(profile: TableProfile, px_per_mm: float) -> tuple[int, int]:
    if not px_per_mm > 0:
        raise CalibrationError(f"px_per_mm must be > 0, got {px_per_mm}")
    profile.H  # raises CalibrationError when there is no table calibration
    w_mm, h_mm = profile.table_size_mm  # type: ignore[misc]
    size = (max(1, round(w_mm * px_per_mm)), max(1, round(h_mm * px_per_mm)))
    if size[0] * size[1] > 100_000_000:
        raise CalibrationError(f"rectified image {size[0]}x{size[1]} px is too large; lower px_per_mm")
    return size


def mm_to_rectified(px_per_mm: float) -> np.ndarray:
    """``(3, 3)`` float64 affine map from table mm to rectified-image pixels."""
    return np.array([[px_per_mm, 0.0, -0.5], [0.0, px_per_mm, -0.5], [0.0, 0.0, 1.0]])


def rectify_maps(profile: TableProfile, px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-pixel source coordinates for ``cv2.remap`` (from ``cv2.initUndistortRectifyMap``).

    Every rectified pixel's table point goes through the inverse homography to an
    undistorted pixel and then through the lens model to the raw camera pixel.

    Returns:
        ``(map_x, map_y)``, each ``(rows, cols)`` float32: the raw camera-image pixel
        that every rectified pixel samples.

    Raises:
        CalibrationError: no table calibration, or ``px_per_mm`` <= 0.
    """
    size = _check(profile, px_per_mm)
    k = profile.K if profile.has_lens else np.eye(3)
    d = profile.D if profile.has_lens else np.zeros(5)
    # initUndistortRectifyMap sends output pixel p to the normalised ray (newK R)^-1 p;
    # with newK = I and R = A H K that ray is K^-1 H^-1 A^-1 p: output px -> mm ->
    # undistorted px -> normalised coordinates, which it then distorts and maps with K.
    r = mm_to_rectified(px_per_mm) @ profile.H @ k
    map_x, map_y = cv2.initUndistortRectifyMap(k, d, r, np.eye(3), size, cv2.CV_32FC1)
    return map_x, map_y


def rectify_frame(frame: np.ndarray, profile: TableProfile, px_per_mm: float = 1.0, *,
                  interpolation: int = cv2.INTER_LINEAR, border_value: int = 0) -> np.ndarray:
    """Warp a camera frame to a top-down image of the table.

    Without lens distortion this is one ``cv2.warpPerspective``; with distortion the
    undistortion and the perspective warp are folded into one ``cv2.remap`` (one
    interpolation; build the maps once with :func:`rectify_maps` for video).

    Args:
        frame: ``(h, w)`` or ``(h, w, C)`` camera image of the profile's image size.
        profile: profile with a table calibration.
        px_per_mm: output resolution, pixels per millimetre.
        interpolation: OpenCV interpolation flag.
        border_value: fill for table areas outside the camera frame.

    Returns:
        ``(round(H * px_per_mm), round(W * px_per_mm)[, C])`` image of the frame's dtype;
        row 0 is the table's y=0 edge, column 0 its x=0 edge.

    Raises:
        CalibrationError: no table calibration, ``px_per_mm`` <= 0, or a frame whose
            size differs from the calibrated image size.
    """
    size = _check(profile, px_per_mm)
    fw, fh = frame.shape[1], frame.shape[0]
    if (fw, fh) != tuple(profile.image_size):
        raise CalibrationError(
            f"frame is {fw}x{fh} px but profile {profile.name!r} was calibrated at "
            f"{profile.image_size[0]}x{profile.image_size[1]}")
    if not profile.has_lens or not np.any(profile.D):
        m = mm_to_rectified(px_per_mm) @ profile.H
        return cv2.warpPerspective(frame, m, size, flags=interpolation,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=border_value)
    map_x, map_y = rectify_maps(profile, px_per_mm)
    return cv2.remap(frame, map_x, map_y, interpolation, borderMode=cv2.BORDER_CONSTANT,
                     borderValue=border_value)
