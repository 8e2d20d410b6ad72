"""Point mappings shared by the lens, table and profile modules (all OpenCV).

Pixel convention (OpenCV's): integer pixel coordinates are pixel *centres*; the
top-left pixel's centre is (0, 0), x grows to the right and y downwards.

"Undistorted pixels" are coordinates in the ideal pinhole image that has the same
camera matrix as the real camera but no lens distortion.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.errors import CalibrationError

# Fixed-point iterations for undistortion: OpenCV's default (5) leaves errors of
# several tenths of a pixel near the corners of wide-angle images.
_UNDISTORT_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-9)


def as_points(points: np.ndarray | list, *, name: str = "points") -> np.ndarray:
    """Return ``points`` as a contiguous ``(N, 2)`` float64 array.

    Accepts ``(N, 2)``, ``(N, 1, 2)`` or a single ``(2,)`` point.

    Raises:
        ValueError: the array cannot be read as 2-D points, or holds NaN/inf.
    """
    arr = np.asarray(points, dtype=np.float64)
    if arr.ndim == 1 and arr.shape == (2,):
        arr = arr[None, :]
    elif arr.ndim == 3 and arr.shape[1:] == (1, 2):
        arr = arr[:, 0, :]
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name}: expected an (N, 2) array, got shape {np.shape(points)}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: contains NaN or infinite values")
    return np.ascontiguousarray(arr)


def undistort_pixels(points_px: np.ndarray, camera_matrix: np.ndarray,
                     dist_coeffs: np.ndarray) -> np.ndarray:
    """Map observed (distorted) pixel coordinates to undistorted pixel coordinates.

    Args:
        points_px: ``(N, 2)`` float pixel coordinates in the camera image.
        camera_matrix: ``(3, 3)`` float64 intrinsics (pixels).
        dist_coeffs: ``(K,)`` float64 OpenCV distortion coefficients
            (k1, k2, p1, p2[, k3[, ...]]).

    Returns:
        ``(N, 2)`` float64 pixel coordinates in the ideal pinhole image with the same
        camera matrix.
    """
    pts = as_points(points_px)
    if len(pts) == 0:
        return pts
    k = np.asarray(camera_matrix, np.float64)
    out = cv2.undistortPoints(pts.reshape(-1, 1, 2), k, np.asarray(dist_coeffs, np.float64),
                              R=None, P=k, criteria=_UNDISTORT_CRITERIA)
    return out.reshape(-1, 2).astype(np.float64)


def distort_pixels(points_px: np.ndarray, camera_matrix: np.ndarray,
                   dist_coeffs: np.ndarray) -> np.ndarray:
    """Inverse of :func:`undistort_pixels`: ideal pinhole pixels -> observed pixels.

    Args:
        points_px: ``(N, 2)`` float undistorted pixel coordinates.
        camera_matrix: ``(3, 3)`` float64 intrinsics (pixels).
        dist_coeffs: ``(K,)`` float64 OpenCV distortion coefficients.

    Returns:
        ``(N, 2)`` float64 pixel coordinates as the real (distorting) lens images them.
    """
    pts = as_points(points_px)
    if len(pts) == 0:
        return pts
    k = np.asarray(camera_matrix, np.float64)
    # Undistorted pixels -> normalised image coordinates (x, y, 1) -> projectPoints.
    rays = np.empty((len(pts), 1, 3), np.float64)
    rays[:, 0, 0] = (pts[:, 0] - k[0, 2] - k[0, 1] * (pts[:, 1] - k[1, 2]) / k[1, 1]) / k[0, 0]
    rays[:, 0, 1] = (pts[:, 1] - k[1, 2]) / k[1, 1]
    rays[:, 0, 2] = 1.0
    zero = np.zeros(3)
    out, _ = cv2.projectPoints(rays, zero, zero, k, np.asarray(dist_coeffs, np.float64))
    return out.reshape(-1, 2).astype(np.float64)


def apply_homography(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a ``(3, 3)`` homography to ``(N, 2)`` points; returns ``(N, 2)`` float64."""
    pts = as_points(points)
    if len(pts) == 0:
        return pts
    out = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), np.asarray(homography, np.float64))
    return out.reshape(-1, 2).astype(np.float64)


def homography_w(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Projective depth ``w = (H @ [x, y, 1])[2]`` of each ``(N, 2)`` point; ``(N,)`` float64.

    A homography that maps a region consistently (no point sent through infinity) has
    the same sign of ``w`` at every point of that region.
    """
    pts = as_points(points)
    return np.c_[pts, np.ones(len(pts))] @ np.asarray(homography, np.float64)[2]


def jacobian_sign(homography: np.ndarray, point: np.ndarray) -> float:
    """Sign (+1 / -1) of the Jacobian determinant of the homography at a ``(2,)`` point.

    For a 2-D homography ``det J = det(H) / w**3``; a negative value means the mapping
    mirrors the plane there (e.g. corners listed in the wrong rotational order).
    """
    h = np.asarray(homography, np.float64)
    w = float(homography_w(h, point)[0])
    return float(np.sign(np.linalg.det(h) / w**3))


def check_homography(homography: np.ndarray | None, what: str) -> np.ndarray:
    """Validate a homography returned by OpenCV; returns it normalised to ``H[2, 2] == 1``.

    Raises:
        CalibrationError: ``homography`` is None, not finite or (near-)singular.
    """
    if homography is None or homography.shape != (3, 3) or not np.all(np.isfinite(homography)):
        raise CalibrationError(f"{what}: could not fit a homography (degenerate points?)")
    h = homography.astype(np.float64)
    if abs(h[2, 2]) > 1e-12:
        h = h / h[2, 2]
    if np.linalg.det(h) == 0.0 or not np.all(np.isfinite(np.linalg.pinv(h))):
        raise CalibrationError(f"{what}: the fitted homography is singular (collinear points?)")
    return h


def spread_ratio(points: np.ndarray) -> float:
    """How far ``(N, 2)`` points are from lying on one line, in ``[0, 1]``.

    The ratio of the smaller to the larger singular value of the centred points:
    0 for collinear (or coincident) points, 1 for an isotropic spread such as a square.
    """
    pts = as_points(points)
    if len(pts) < 2:
        return 0.0
    s = np.linalg.svd(pts - pts.mean(axis=0), compute_uv=False)
    return float(s[1] / s[0]) if s[0] > 0 else 0.0


#: How far outside the image a table point may lie, as a share of the image's width (left and right) and
#: height (above and below): a corner just out of view is estimated a little outside, but one a whole
#: image away is a typo (helper-187: 99999 for 999 was fitted, and `detect` then found 6 of 28 tiles).
IMAGE_MARGIN_SHARE = 0.5


def far_outside_image(points_px: np.ndarray, image_size: tuple[int, int],
                      share: float = IMAGE_MARGIN_SHARE) -> np.ndarray:
    """Which image points lie further outside the image than ``share`` of its size.

    Args:
        points_px: ``(N, 2)`` (or ``(2,)``) float pixel coordinates (NaN or inf count as outside).
        image_size: ``(width, height)`` of the image, px.
        share: allowed distance beyond the left/right edges as a share of the width, beyond the
            top/bottom edges as a share of the height.

    Returns:
        ``(N,)`` bool, True for a point beyond the margin.
    """
    p = np.asarray(points_px, np.float64).reshape(-1, 2)
    w, h = image_size
    inside = ((p[:, 0] >= -share * w) & (p[:, 0] <= (1 + share) * w)
              & (p[:, 1] >= -share * h) & (p[:, 1] <= (1 + share) * h))  # NaN compares False: outside
    return ~inside


def outside_image_message(point_px: np.ndarray, image_size: tuple[int, int],
                          share: float = IMAGE_MARGIN_SHARE) -> str:
    """Why ``point_px`` ((2,) px, one that :func:`far_outside_image` flags) is refused: ``"(x,y) px, far outside
    the W x H px image (...)"``, with the margin taken in px; the caller says which point it is."""
    x, y = (float(v) for v in np.asarray(point_px, np.float64).reshape(2))
    w, h = image_size
    return (f"({x:.6g},{y:.6g}) px, far outside the {w} x {h} px image (at most {share * w:.0f} px left or right "
            f"of it and {share * h:.0f} px above or below it is taken: a corner just out of view); x runs from 0 "
            f"to {w} left to right, y from 0 to {h} top to bottom")


def segment_in_image(a_px: np.ndarray, b_px: np.ndarray, image_size: tuple[int, int]) -> bool:
    """Whether any part of the segment from ``a_px`` to ``b_px`` ((2,) px each) lies in the image of
    ``image_size`` (W, H px: x from 0 to W, y from 0 to H, edges included), clipped Liang-Barsky style:
    the segment's parameter range [0, 1] is narrowed by each of the four borders in turn.

    Raises:
        ValueError: a point is not two finite numbers.
    """
    a, b = as_points(a_px, name="a_px")[0], as_points(b_px, name="b_px")[0]
    d = b - a
    lo, hi = 0.0, 1.0
    w, h = image_size
    # each border as (p, q): the segment point a + t d is inside it when t * p <= q
    for p, q in ((-d[0], a[0]), (d[0], w - a[0]), (-d[1], a[1]), (d[1], h - a[1])):
        if p == 0:
            if q < 0:  # parallel to this border and outside it
                return False
        elif p < 0:
            lo = max(lo, q / p)
        else:
            hi = min(hi, q / p)
    return lo <= hi
