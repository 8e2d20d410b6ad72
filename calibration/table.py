"""Table-plane homography: undistorted image pixels -> table millimetres.

Table coordinates (millimetres): origin at the table corner with marker 0, x along the
edge towards marker 1, y along the edge towards marker 3.  Seen from above, 0 -> 1 ->
2 -> 3 runs clockwise: in the top-down table image x points right and y points down,
like image pixels.  Corner markers (ArUco ``DICT_4X4_50``):

====  ============  ===============
 id   table corner   marker centre
====  ============  ===============
 0    (0, 0)        (i, i)
 1    (W, 0)        (W - i, i)
 2    (W, H)        (W - i, H - i)
 3    (0, H)        (i, H - i)
====  ============  ===============

where ``i`` is the marker inset: the distance from each of the two table edges to the
marker centre (35 mm for the printed sheet: a 50 mm marker with a 10 mm white margin
cut out and laid flush in the corner).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.geometry import (apply_homography, as_points, check_homography, distort_pixels, far_outside_image,
                                  homography_w, jacobian_sign, outside_image_message, spread_ratio,
                                  undistort_pixels)
from calibration.images import to_gray

MARKER_DICTIONARY = "DICT_4X4_50"
CORNER_IDS: tuple[int, ...] = (0, 1, 2, 3)
#: Human-readable corner of each marker id.
CORNER_LABELS: dict[int, str] = {
    0: "corner (0, 0): table origin",
    1: "corner (W, 0): along x from 0",
    2: "corner (W, H): opposite 0",
    3: "corner (0, H): along y from 0",
}
DEFAULT_MARKER_MM = 50.0
DEFAULT_MARKER_MARGIN_MM = 10.0
DEFAULT_MARKER_INSET_MM = DEFAULT_MARKER_MARGIN_MM + DEFAULT_MARKER_MM / 2.0
#: A detected marker whose side (measured through the centre homography) differs from
#: the stated size by more than this fraction is reported as a size mismatch.
_MARKER_SIZE_TOLERANCE = 0.15
#: Width / height of the markers as placed, off 1 by more than this: the table size given is wrong (a 900 mm
#: table given as 850 mm: 0.94; measured markers on good fits: within 0.01).
_MARKER_ASPECT_TOLERANCE = 0.03
# Canonical corner offsets of a marker in table axes: (-,-), (+,-), (+,+), (-,+),
# the clockwise order ArUco reports corners in for an unrotated marker.
_MARKER_CORNER_SIGNS = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64)


def table_corners_mm(table_size_mm: tuple[float, float]) -> np.ndarray:
    """Table corners ``[(0, 0), (W, 0), (W, H), (0, H)]`` as ``(4, 2)`` float64 mm."""
    w, h = table_size_mm
    return np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]], dtype=np.float64)


def marker_centres_mm(table_size_mm: tuple[float, float],
                      inset_mm: float = DEFAULT_MARKER_INSET_MM) -> np.ndarray:
    """Centres of corner markers 0..3, ``(4, 2)`` float64 table mm (row i = marker id i).

    Raises:
        CalibrationError: the table is not larger than two insets in each direction.
    """
    w, h = table_size_mm
    if not (w > 2 * inset_mm and h > 2 * inset_mm and inset_mm >= 0):
        raise CalibrationError(
            f"table {w} x {h} mm is too small for markers inset {inset_mm} mm from the edges")
    i = inset_mm
    return np.array([[i, i], [w - i, i], [w - i, h - i], [i, h - i]], dtype=np.float64)


def _marker_detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, MARKER_DICTIONARY))
    return cv2.aruco.ArucoDetector(dictionary, params)


def detect_corner_markers(image: np.ndarray, *, source: str = "image") -> dict[int, np.ndarray]:
    """Find the four table-corner ArUco markers (``DICT_4X4_50``, ids 0..3).

    Args:
        image: ``(H, W)`` or ``(H, W, 3)`` uint8 camera image.
        source: name for messages (e.g. the file name).

    Returns:
        ``{id: (4, 2) float64 corner pixels}`` for ids 0..3, corners in ArUco order
        (clockwise from the marker's own top-left corner).  Other ids are ignored.

    Raises:
        CalibrationError: any of ids 0..3 missing, or one of them seen twice.
    """
    corners, ids, _ = _marker_detector().detectMarkers(to_gray(image))
    found: dict[int, np.ndarray] = {}
    for quad, ident in zip(corners or (), [] if ids is None else ids.ravel()):
        ident = int(ident)
        if ident not in CORNER_IDS:
            continue
        if ident in found:
            raise CalibrationError(f"{source}: corner marker {ident} appears more than once")
        found[ident] = quad.reshape(4, 2).astype(np.float64)
    missing = [i for i in CORNER_IDS if i not in found]
    if missing and not found and _mirrored_markers(image):  # a mirrored marker is no valid code at all
        raise CalibrationError(f"{source}: the markers are seen mirrored: the camera image is flipped (turn off the "
                               "camera's mirror or selfie view)")
    if missing:
        seen = sorted(found)
        raise CalibrationError(
            f"{source}: corner markers {missing} not found ({MARKER_DICTIONARY} ids 0-3; "
            f"found {seen if seen else 'none'}); all four must be visible and unobstructed")
    return found


def _mirrored_markers(image: np.ndarray) -> bool:
    """Whether the corner markers are found in the image flipped left to right (helper-120: a mirrored
    camera image said only "corner markers [0, 1, 2, 3] not found", though the docs promise a message)."""
    corners, ids, _ = _marker_detector().detectMarkers(cv2.flip(to_gray(image), 1))
    return ids is not None and len(set(int(i) for i in ids.ravel()) & set(CORNER_IDS)) >= 2


@dataclass(frozen=True)
class TableFit:
    """A fitted table homography and its reprojection errors.

    Attributes:
        homography: ``(3, 3)`` float64 map from *undistorted* image pixels to table mm
            (raw pixels when no intrinsics were used), normalised so ``H[2, 2] == 1``.
        points_px: ``(N, 2)`` float64 observed image points used, pixels.
        points_mm: ``(N, 2)`` float64 their table positions, mm.
        rms_mm: RMS distance between ``points_mm`` and the mapped ``points_px``, mm.
        max_mm: largest such distance, mm.
        rms_px: RMS distance between ``points_px`` and the back-projected ``points_mm``
            (through the distortion model when given), pixels.
        marker_sides_mm: markers only: their mean side along the table's width and height as the
            marker centres place them, mm (the printed side when the sizes given are the table's).
    """

    homography: np.ndarray
    points_px: np.ndarray
    points_mm: np.ndarray
    rms_mm: float
    max_mm: float
    rms_px: float
    marker_sides_mm: tuple[float, float] | None = None

    @property
    def n_points(self) -> int:
        """Number of point correspondences (4 means an exact fit: the errors are 0)."""
        return len(self.points_px)


def _check_spread(px: np.ndarray, mm: np.ndarray, source: str) -> None:
    """Refuse point pairs no homography can be fitted to: ``px`` ((N, 2) image px) and ``mm`` ((N, 2) table
    mm) of unequal counts, fewer than 4, a point given twice, all on (nearly) one line, or, with exactly 4,
    three of them on one line (no quadrilateral: the 4 correspondences then do not fix a homography).

    Raises:
        CalibrationError: one line naming the points at fault.
    """
    if len(px) != len(mm):
        raise CalibrationError(f"{source}: {len(px)} image points but {len(mm)} table points")
    if len(px) < 4:
        raise CalibrationError(f"{source}: need at least 4 points, got {len(px)}")
    for pts, what, line_share in ((px, "image", 0.01), (mm, "table", 0.05)):
        d = np.linalg.norm(pts[:, None] - pts[None], axis=2) + np.eye(len(pts)) * 1e9
        i = int(np.unravel_index(int(np.argmin(d)), d.shape)[0])
        same = [k + 1 for k in np.flatnonzero(d[i] < 1e-6)] + [i + 1]
        if len(same) > 1:  # helper-86: a repeated point was told as a folded table; helper-220: all 4 the same
            # point, as "the corners leave none of the table in the image"
            names = ", ".join(map(str, sorted(same)[:-1])) + f" and {max(same)}"
            raise CalibrationError(f"{source}: {'all ' if len(same) == len(pts) else ''}{what} points {names} are "
                                   "the same point")
        if spread_ratio(pts) < line_share:
            raise CalibrationError(f"{source}: {what} points lie (nearly) on one line")
        if len(pts) == 4:  # helper-220: three corners on one line fitted a 768 mm RMS "table of another size"
            for trio in ((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)):
                if spread_ratio(pts[list(trio)]) < line_share:
                    a, b, c = (k + 1 for k in trio)
                    raise CalibrationError(f"{source}: {what} points {a}, {b} and {c} lie (nearly) on one line: "
                                           "4 points must make a quadrilateral (the table's corners, in order)")


def fit_table_homography(points_px: np.ndarray, points_mm: np.ndarray, *,
                         camera_matrix: np.ndarray | None = None,
                         dist_coeffs: np.ndarray | None = None,
                         source: str = "table points") -> TableFit:
    """Fit the image -> table homography with ``cv2.findHomography`` (least squares).

    Image points are undistorted first when ``camera_matrix`` is given.  With exactly
    four points the fit is exact and both errors are (numerically) zero.

    Args:
        points_px: ``(N, 2)`` float image points, pixels, N >= 4.
        points_mm: ``(N, 2)`` float matching table points, mm.
        camera_matrix: optional ``(3, 3)`` float64 intrinsics, pixels.
        dist_coeffs: optional ``(K,)`` float64 distortion (needs ``camera_matrix``).
        source: name for messages.

    Returns:
        The fit with its reprojection errors in mm and pixels.

    Raises:
        CalibrationError: fewer than 4 points, mismatched counts, a point twice, points on one line
            (or three of exactly four: no quadrilateral),
            points in an order that mirrors the table (clockwise vs anticlockwise) or
            folds it, or a failed fit.
    """
    px = as_points(points_px, name=f"{source}: image points")
    mm = as_points(points_mm, name=f"{source}: table points")
    _check_spread(px, mm, source)
    if camera_matrix is not None:
        dist = np.zeros(5) if dist_coeffs is None else np.asarray(dist_coeffs, np.float64)
        und = undistort_pixels(px, camera_matrix, dist)
    else:
        und = px
    h, _ = cv2.findHomography(und, mm, 0)
    h = check_homography(h, source)
    w = homography_w(h, und)
    if not (np.all(w > 0) or np.all(w < 0)):
        raise CalibrationError(
            f"{source}: the points fold the table over itself; list them in the same "
            "order as their table positions")
    if jacobian_sign(h, und.mean(axis=0)) < 0:
        raise CalibrationError(
            f"{source}: the points mirror the table: image and table points must go round "
            "in the same direction (corners 0,1,2,3 are clockwise seen from above), or the "
            "camera image is mirrored")
    mapped = apply_homography(h, und)
    err_mm = np.linalg.norm(mapped - mm, axis=1)
    back = apply_homography(np.linalg.inv(h), mm)
    if camera_matrix is not None:
        back = distort_pixels(back, camera_matrix, dist)
    err_px = np.linalg.norm(back - px, axis=1)
    return TableFit(homography=h, points_px=px, points_mm=mm,
                    rms_mm=float(np.sqrt(np.mean(err_mm**2))), max_mm=float(err_mm.max()),
                    rms_px=float(np.sqrt(np.mean(err_px**2))))


def _diagonal_intersection(quad: np.ndarray) -> np.ndarray:
    """Intersection of the diagonals of a ``(4, 2)`` quad: the projected square centre."""
    p = np.c_[quad, np.ones(4)]
    x = np.cross(np.cross(p[0], p[2]), np.cross(p[1], p[3]))
    if abs(x[2]) < 1e-12:
        return quad.mean(axis=0)
    return x[:2] / x[2]


def calibrate_table_from_markers(image: np.ndarray, table_size_mm: tuple[float, float], *,
                                 marker_mm: float = DEFAULT_MARKER_MM,
                                 inset_mm: float = DEFAULT_MARKER_INSET_MM,
                                 camera_matrix: np.ndarray | None = None,
                                 dist_coeffs: np.ndarray | None = None,
                                 source: str = "image") -> TableFit:
    """Fit the table homography from the four corner markers in one image.

    The marker centres (intersection of each marker's diagonals, after undistortion)
    give an exact first homography; it fixes how each marker is turned, so all 16
    marker corners can be matched to their table positions (centre +- ``marker_mm``/2
    along each axis, whatever way round the marker lies) for the final least-squares fit.

    Args:
        image: ``(H, W)`` or ``(H, W, 3)`` uint8 camera image.
        table_size_mm: ``(W, H)`` table size, mm.
        marker_mm: printed marker side (black square), mm.
        inset_mm: distance from each table edge to the marker centre, mm.
        camera_matrix: optional ``(3, 3)`` float64 intrinsics, pixels.
        dist_coeffs: optional ``(K,)`` float64 distortion.
        source: name for messages (e.g. the file name).

    Returns:
        The fit over the 16 marker corners (errors in mm and pixels).

    Raises:
        CalibrationError: markers missing or duplicated, placed at the wrong corners,
            of a size that does not match ``marker_mm`` (by more than 15%), or a table
            too small for the inset.
    """
    if not 0 < marker_mm < 2 * inset_mm:
        raise CalibrationError(
            f"marker size {marker_mm} mm does not fit {inset_mm} mm from the table edges")
    centres_mm = marker_centres_mm(table_size_mm, inset_mm)
    quads = detect_corner_markers(image, source=source)
    dist = None
    if camera_matrix is not None:
        dist = np.zeros(5) if dist_coeffs is None else np.asarray(dist_coeffs, np.float64)
        quads_u = {i: undistort_pixels(q, camera_matrix, dist) for i, q in quads.items()}
    else:
        quads_u = quads
    centres_px = np.array([_diagonal_intersection(quads_u[i]) for i in CORNER_IDS])
    try:
        first = fit_table_homography(centres_px, centres_mm, source=f"{source}: marker centres")
    except CalibrationError as exc:  # said for the markers, not for --points (helper-120)
        if "fold" not in str(exc) and "mirror" not in str(exc):
            raise
        raise CalibrationError(
            f"{source}: the corner markers are not in their places: seen from above, 0, 1, 2 and 3 go clockwise "
            "round the table, 0 where --table-mm's width starts and 1 at its other end (as the sheet says); "
            + ("two of them look swapped" if "fold" in str(exc) else "they go round anticlockwise")) from None
    sides = _marker_sides(first.homography, [quads_u[i] for i in CORNER_IDS])
    _check_square_markers(sides, table_size_mm, marker_mm, inset_mm, source, lens=camera_matrix is not None)
    px, mm = [], []
    for i in CORNER_IDS:
        seen_mm = apply_homography(first.homography, quads_u[i])
        side = float(np.mean(np.linalg.norm(np.roll(seen_mm, -1, axis=0) - seen_mm, axis=1)))
        if abs(side / marker_mm - 1.0) > _MARKER_SIZE_TOLERANCE:
            raise CalibrationError(
                f"{source}: marker {i} measures about {side:.0f} mm but the marker size is "
                f"{marker_mm:g} mm; pass the printed size (--marker-mm) and inset (--marker-inset-mm)")
        expected = centres_mm[i] + _MARKER_CORNER_SIGNS * (marker_mm / 2.0)
        turn = min(range(4), key=lambda k: float(np.sum((seen_mm - np.roll(expected, -k, axis=0))**2)))
        px.append(quads[i])
        mm.append(np.roll(expected, -turn, axis=0))
    fit = fit_table_homography(np.concatenate(px), np.concatenate(mm), camera_matrix=camera_matrix,
                               dist_coeffs=dist, source=f"{source}: marker corners")
    return replace(fit, marker_sides_mm=sides)


def _marker_sides(homography: np.ndarray, quads: list[np.ndarray]) -> tuple[float, float]:
    """Mean length of the square markers' sides running along the table's width and along its height, mm,
    as ``homography`` (from their centres) maps their ``(4, 2)`` corners (whole side lengths: a marker laid
    a little turned measures its printed side all the same)."""
    along: tuple[list[float], list[float]] = ([], [])
    for quad in quads:
        q = apply_homography(homography, quad)
        for edge in np.roll(q, -1, axis=0) - q:
            along[int(abs(edge[1]) > abs(edge[0]))].append(float(np.hypot(*edge)))
    return float(np.mean(along[0])), float(np.mean(along[1]))


#: Both marker sides this share off the printed size given, the same way: the error names that size as a
#: suspect too (a swapped table size makes one side short and the other long).
_MARKER_SIZE_SUSPECT = 0.15


def _check_square_markers(sides: tuple[float, float], table_size_mm: tuple[float, float], marker_mm: float,
                          inset_mm: float, source: str, lens: bool) -> None:
    """The printed markers are square, so they come out square when the table size given is the table's.
    A homography absorbs a wrong size as a tilt: the fit's error stays small while the far edge is tens
    of mm off (helper-120: 900 x 600 given as 850 x 600, 1.6 mm RMS reported, 52 mm off; a swapped
    size was blamed on the marker size). An uncorrected wide-angle lens bends them too (``lens``: the
    picture was undistorted). Raises with the size the markers suggest."""
    sx, sy = sides
    if abs(sx / sy - 1.0) <= _MARKER_ASPECT_TOLERANCE:
        return
    # the centres are (size - 2 inset) apart: the markers' scale on each axis says how far they truly are
    w, h = table_size_mm
    guess = [(v - 2 * inset_mm) * marker_mm / s + 2 * inset_mm for v, s in ((w, sx), (h, sy))]
    # both sides far from the printed size given: that size may be the wrong one (helper-146: --marker-mm 100
    # for 50 mm markers, an inset derived from it, and only the table size blamed)
    off = (sx / marker_mm - 1.0, sy / marker_mm - 1.0)
    size = (f"; or --marker-mm is not their printed size (they measure about {(sx + sy) / 2:.0f} mm, given "
            f"{marker_mm:g})" if off[0] * off[1] > 0 and min(map(abs, off)) > _MARKER_SIZE_SUSPECT else "")
    raise CalibrationError(
        f"{source}: the square markers come out {sx:.0f} x {sy:.0f} mm on a {w:g} x {h:g} mm table: the table size "
        f"or the inset given is not the table's (with markers {inset_mm:g} mm in, they suggest a table of about "
        f"{guess[0]:.0f} x {guess[1]:.0f} mm); check --table-mm (W along the edge from marker 0 to marker 1, then "
        "H) and --marker-inset-mm" + ("" if lens else ", or correct the lens's distortion (--lens)") + size)


def _overlaps_image(points_px: np.ndarray, image_size: tuple[int, int]) -> bool:
    """Whether the convex hull of ``points_px`` ((N, 2) px) covers any of the image of ``image_size`` (W, H px)."""
    w, h = image_size
    hull = cv2.convexHull(np.asarray(points_px, np.float32).reshape(-1, 1, 2))
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32).reshape(-1, 1, 2)
    return float(cv2.intersectConvexConvex(hull, frame)[0]) > 0


def calibrate_table_from_points(points_px: np.ndarray, table_size_mm: tuple[float, float], *,
                                points_mm: np.ndarray | None = None,
                                camera_matrix: np.ndarray | None = None,
                                dist_coeffs: np.ndarray | None = None,
                                image_size: tuple[int, int] | None = None,
                                source: str = "--points") -> TableFit:
    """Fit the table homography from image points picked by hand.

    Args:
        points_px: ``(N, 2)`` float image points, pixels (as seen in the raw image).
        table_size_mm: ``(W, H)`` table size, mm.
        points_mm: ``(N, 2)`` float table positions of the points, mm; default the
            table corners ``(0, 0), (W, 0), (W, H), (0, H)`` (then N must be 4).
        camera_matrix: optional ``(3, 3)`` float64 intrinsics, pixels.
        dist_coeffs: optional ``(K,)`` float64 distortion.
        image_size: ``(width, height)`` of the image the points were picked in, px; when given, a
            point further outside it than :data:`~calibration.geometry.IMAGE_MARGIN_SHARE` of its size
            is refused.
        source: name for messages.

    Returns:
        The fit (with 4 points the fit is exact and its errors are 0).

    Raises:
        CalibrationError: a point far outside the image (``image_size`` given), a table size that is not
            positive, or see :func:`fit_table_homography`.
    """
    w, h = table_size_mm
    if not (w > 0 and h > 0):
        raise CalibrationError(f"table size must be positive, got {w} x {h} mm")
    mm = table_corners_mm(table_size_mm) if points_mm is None else points_mm
    if image_size is not None:
        px = as_points(points_px, name=f"{source}: image points")
        far = far_outside_image(px, image_size)
        if far.any():  # checked before the fit: such a fit is exact, and said nothing was wrong (helper-187)
            i = int(far.argmax())
            raise CalibrationError(f"{source}: point {i + 1} is at {outside_image_message(px[i], image_size)}; a typo?")
        # a repeated point, or three on one line, before the overlap: 4 times one point "left none of the table"
        _check_spread(px, as_points(mm, name=f"{source}: table points"), source)
        if points_mm is None and not _overlaps_image(px, image_size):  # corners each just out of view, all one side
            raise CalibrationError(f"{source}: the table's corners leave none of the table in the {image_size[0]} x "
                                   f"{image_size[1]} px image (x runs from 0 to {image_size[0]} left to right, y from "
                                   f"0 to {image_size[1]} top to bottom): pick the corners of the table it shows")
    return fit_table_homography(points_px, mm, camera_matrix=camera_matrix,
                                dist_coeffs=dist_coeffs, source=source)
