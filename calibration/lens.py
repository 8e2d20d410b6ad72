"""Lens intrinsics and distortion from photos of a checkerboard or ChArUco board.

Board size convention: ``cols`` x ``rows`` counts **squares** (what you count on the
printed board) for both board kinds; a checkerboard of 8 x 11 squares has 7 x 10
inner corners.  ``square_mm`` is the printed side of one square in millimetres.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.images import load_image, to_gray

BoardKind = Literal["checkerboard", "charuco"]
BOARD_KINDS: tuple[BoardKind, ...] = ("checkerboard", "charuco")

#: Detection on images larger than this (longer side, pixels) runs on a downscaled copy
#: and is refined with ``cv2.cornerSubPix`` at full resolution.
_DETECT_MAX_SIDE = 1600
_CB_FLAGS = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_FAST_CHECK
_SUBPIX_CRITERIA = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-3)
_CALIB_CRITERIA = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 100, 1e-12)
_MIN_CHARUCO_CORNERS = 6


#: Fewest squares a board side may have: OpenCV's chessboard finder needs more than 2 inner
#: corners each way (a 3-square side has 2).
MIN_SQUARES = 4
#: Square sides a board may have, mm: finer than 2 mm does not print; coarser than 500 mm is no
#: sheet (and huge sizes overflowed the fit).
SQUARE_MM_RANGE = (2.0, 500.0)


def check_board_size(cols: int, rows: int, square_mm: float) -> None:
    """Raise :class:`CalibrationError` unless a board of ``cols`` x ``rows`` squares of ``square_mm``
    (mm) can be printed and found (:data:`MIN_SQUARES`, :data:`SQUARE_MM_RANGE`)."""
    if cols < MIN_SQUARES or rows < MIN_SQUARES:
        raise CalibrationError(f"board must be at least {MIN_SQUARES} x {MIN_SQUARES} squares, got {cols} x {rows}")
    lo, hi = SQUARE_MM_RANGE
    if not lo <= square_mm <= hi:  # also false for nan
        raise CalibrationError(f"square size must be {lo:g}-{hi:g} mm, got {square_mm:g}")


@dataclass(frozen=True)
class BoardSpec:
    """A calibration board.

    Attributes:
        kind: ``"checkerboard"`` or ``"charuco"``.
        cols: squares across the board (>= :data:`MIN_SQUARES`).
        rows: squares down the board (>= :data:`MIN_SQUARES`).
        square_mm: side of one square, millimetres.
        marker_mm: ChArUco only: side of the ArUco marker inside a white square, mm
            (default 0.7 * ``square_mm``).
        dictionary: ChArUco only: name of the OpenCV predefined ArUco dictionary.
    """

    kind: BoardKind = "checkerboard"
    cols: int = 8
    rows: int = 11
    square_mm: float = 20.0
    marker_mm: float | None = None
    dictionary: str = "DICT_5X5_100"

    def __post_init__(self) -> None:
        if self.kind not in BOARD_KINDS:
            raise CalibrationError(f"unknown board kind {self.kind!r} (use checkerboard or charuco)")
        check_board_size(self.cols, self.rows, self.square_mm)
        if self.kind == "charuco":
            if not 0 < self.charuco_marker_mm < self.square_mm:
                raise CalibrationError(
                    f"ChArUco marker size must be between 0 and the square size "
                    f"({self.square_mm} mm), got {self.charuco_marker_mm}")
            dictionary = aruco_dictionary(self.dictionary)
            needed = (self.cols * self.rows) // 2
            have = dictionary.bytesList.shape[0]
            if needed > have:
                raise CalibrationError(
                    f"a {self.cols} x {self.rows} ChArUco board needs {needed} markers but "
                    f"{self.dictionary} has only {have}")

    @property
    def inner_corners(self) -> tuple[int, int]:
        """Checkerboard inner corners ``(cols - 1, rows - 1)``: OpenCV's ``patternSize``."""
        return self.cols - 1, self.rows - 1

    @property
    def charuco_marker_mm(self) -> float:
        """ChArUco marker side in mm (``marker_mm`` or 0.7 * ``square_mm``)."""
        return float(self.marker_mm) if self.marker_mm is not None else 0.7 * self.square_mm

    def checkerboard_object_points(self) -> np.ndarray:
        """Inner-corner positions on the board plane, ``(N, 3)`` float32 mm, z = 0.

        Row-major with ``cols - 1`` points per row, the order of
        ``cv2.findChessboardCorners``.
        """
        nx, ny = self.inner_corners
        grid = np.mgrid[0:nx, 0:ny].T.reshape(-1, 2).astype(np.float32) * np.float32(self.square_mm)
        return np.c_[grid, np.zeros(len(grid), np.float32)]

    def charuco_board(self) -> cv2.aruco.CharucoBoard:
        """The matching ``cv2.aruco.CharucoBoard`` (lengths in mm)."""
        return cv2.aruco.CharucoBoard((self.cols, self.rows), float(self.square_mm),
                                      self.charuco_marker_mm, aruco_dictionary(self.dictionary))


def aruco_dictionary(name: str) -> cv2.aruco.Dictionary:
    """OpenCV predefined ArUco dictionary by name, e.g. ``"DICT_4X4_50"``.

    Raises:
        CalibrationError: unknown name.
    """
    ident = getattr(cv2.aruco, name.upper(), None) if name.upper().startswith("DICT_") else None
    if not isinstance(ident, int):
        raise CalibrationError(f"unknown ArUco dictionary {name!r} (e.g. DICT_4X4_50, DICT_5X5_100)")
    return cv2.aruco.getPredefinedDictionary(ident)


@dataclass(frozen=True)
class BoardDetection:
    """Board corners found in one image.

    Attributes:
        object_points: ``(N, 3)`` float32 corner positions on the board, mm (z = 0).
        image_points: ``(N, 2)`` float32 corner positions in the image, pixels.
    """

    object_points: np.ndarray
    image_points: np.ndarray


def _subpix_window(points: np.ndarray, nx: int) -> int:
    """Half-size of the cornerSubPix window: about a quarter of the corner spacing."""
    grid = points.reshape(-1, nx, 2)
    spacing = np.linalg.norm(np.diff(grid, axis=1), axis=2).min() if nx > 1 else 20.0
    return int(np.clip(spacing / 4.0, 2, 11))


def detect_board(image: np.ndarray, board: BoardSpec) -> BoardDetection | None:
    """Find the calibration board's corners in one image.

    Checkerboards use ``cv2.findChessboardCorners`` then ``cv2.cornerSubPix``; ChArUco
    boards use ``cv2.aruco.CharucoDetector``.

    Args:
        image: ``(H, W)`` or ``(H, W, 3)`` uint8 image.
        board: the board to look for.

    Returns:
        The detection, or None when the board is not found (ChArUco: fewer than six
        corners, or all of them on one line).
    """
    gray = to_gray(image)
    if board.kind == "charuco":
        return _detect_charuco(gray, board)
    pattern = board.inner_corners
    scale = max(gray.shape) / _DETECT_MAX_SIDE
    if scale > 1.0:
        small = cv2.resize(gray, None, fx=1.0 / scale, fy=1.0 / scale, interpolation=cv2.INTER_AREA)
        found, corners = cv2.findChessboardCorners(small, pattern, flags=_CB_FLAGS)
        if found:  # pixel centres: full = (small + 0.5) * scale - 0.5
            corners = (corners + 0.5) * np.float32(scale) - 0.5
    else:
        found, corners = cv2.findChessboardCorners(gray, pattern, flags=_CB_FLAGS)
    if not found:
        return None
    corners = corners.astype(np.float32).reshape(-1, 1, 2)
    win = _subpix_window(corners.reshape(-1, 2), pattern[0])
    corners = cv2.cornerSubPix(gray, corners, (win, win), (-1, -1), _SUBPIX_CRITERIA)
    return BoardDetection(board.checkerboard_object_points(), corners.reshape(-1, 2))


def _detect_charuco(gray: np.ndarray, board: BoardSpec) -> BoardDetection | None:
    cboard = board.charuco_board()
    detector = cv2.aruco.CharucoDetector(cboard)
    corners, ids, _, _ = detector.detectBoard(gray)
    if ids is None or len(ids) < _MIN_CHARUCO_CORNERS:
        return None
    if cboard.checkCharucoCornersCollinear(ids):
        return None
    obj, img = cboard.matchImagePoints(corners, ids)
    return BoardDetection(obj.reshape(-1, 3).astype(np.float32), img.reshape(-1, 2).astype(np.float32))


def _check_distinct_views(labels: list[str], obj_points: list[np.ndarray], img_points: list[np.ndarray],
                          min_px: float = 1.0) -> None:
    """Refuse two views with the board in the same place (their common corners within ``min_px`` px on
    average): the same view again adds no constraint, and a lens fitted on copies is wrong at a tiny
    error (helper-120: one view re-encoded three times gave fx 948 / fy 919 at 0.05 px; byte-identical
    files were caught before, not re-encoded ones)."""
    seen = [{tuple(np.round(o, 3)): p for o, p in zip(obj.reshape(-1, 3), img.reshape(-1, 2))}
            for obj, img in zip(obj_points, img_points)]
    for i in range(len(seen)):
        for j in range(i + 1, len(seen)):
            common = seen[i].keys() & seen[j].keys()
            if len(common) >= 4 and np.mean([np.linalg.norm(seen[i][k] - seen[j][k]) for k in common]) < min_px:
                same = f"{labels[i]} is given twice" if labels[i] == labels[j] else (
                    f"{labels[i]} and {labels[j]} show the board in the same place")
                raise CalibrationError(f"{same}: take each photo from another tilt")


@dataclass(frozen=True)
class LensCalibration:
    """Result of :func:`calibrate_lens`.

    Attributes:
        camera_matrix: ``(3, 3)`` float64 ``[[fx, 0, cx], [0, fy, cy], [0, 0, 1]]``, pixels.
        dist_coeffs: ``(5,)`` float64 OpenCV distortion ``(k1, k2, p1, p2, k3)``.
        image_size: ``(width, height)`` pixels.
        rms_px: RMS reprojection error over all corners of all used views, pixels.
        per_view_rms_px: ``(V,)`` float64 RMS reprojection error of each used view, pixels.
        std_intrinsics: ``(fx, fy, cx, cy)`` standard deviations, pixels.
        used: names of the views the board was found in, in input order.
        skipped: names of the views the board was not found in.
    """

    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    image_size: tuple[int, int]
    rms_px: float
    per_view_rms_px: np.ndarray
    std_intrinsics: tuple[float, float, float, float]
    used: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def calibrate_lens(images: Sequence[np.ndarray], board: BoardSpec, *,
                   names: Sequence[str] | None = None, fix_k3: bool = True,
                   min_views: int = 3) -> LensCalibration:
    """Estimate camera intrinsics and distortion with ``cv2.calibrateCamera``.

    Args:
        images: views of the board, each ``(H, W)`` or ``(H, W, 3)`` uint8, all the same
            size.  Use 10-20 views that tilt the board by 20-45 degrees in different
            directions and put it near the image corners.
        board: the board in the photos.
        names: a label per image for messages (default ``"image 1"``, ...).
        fix_k3: keep the 6th-order radial term k3 at 0 (recommended unless the lens is a
            wide-angle one and you have many views).
        min_views: fewest views with a detected board to attempt a calibration.

    Returns:
        The calibration, with RMS reprojection error in pixels.

    Raises:
        CalibrationError: no images, images of different sizes, or the board found in
            fewer than ``min_views`` images.
    """
    if not images:
        raise CalibrationError("no calibration images given")
    labels = list(names) if names is not None else [f"image {i + 1}" for i in range(len(images))]
    size = (images[0].shape[1], images[0].shape[0])
    obj_points, img_points, used, skipped = [], [], [], []
    for label, image in zip(labels, images):
        if (image.shape[1], image.shape[0]) != size:
            raise CalibrationError(
                f"{label}: size {image.shape[1]}x{image.shape[0]} differs from the first image "
                f"({size[0]}x{size[1]}); all calibration images must come from the same camera mode")
        found = detect_board(image, board)
        if found is None:
            skipped.append(label)
            continue
        obj_points.append(found.object_points)
        img_points.append(found.image_points.reshape(-1, 1, 2))
        used.append(label)
    _check_distinct_views(used, obj_points, img_points)
    if len(used) < min_views:
        # the hint fits the case (helper-120: two photos with the board found were told to check --cols)
        hint = (f"take at least {min_views} photos of the board, tilted different ways" if not skipped
                else "check --cols/--rows count squares")
        raise CalibrationError(
            f"{board.kind} ({board.cols} x {board.rows} squares) found in {len(used)} of "
            f"{len(labels)} images; need at least {min_views} ({hint})")
    flags = cv2.CALIB_FIX_K3 if fix_k3 else 0
    (rms, k, d, _rv, _tv, std_int, _std_ext, per_view) = cv2.calibrateCameraExtended(
        obj_points, img_points, size, None, None, flags=flags, criteria=_CALIB_CRITERIA)
    dist = np.zeros(5)
    flat = np.asarray(d, np.float64).ravel()
    dist[: min(5, flat.size)] = flat[:5]
    std = np.asarray(std_int, np.float64).ravel()
    return LensCalibration(
        camera_matrix=np.asarray(k, np.float64), dist_coeffs=dist, image_size=size,
        rms_px=float(rms), per_view_rms_px=np.asarray(per_view, np.float64).ravel(),
        std_intrinsics=(float(std[0]), float(std[1]), float(std[2]), float(std[3])),
        used=used, skipped=skipped)


def calibrate_lens_files(paths: Sequence[str | os.PathLike[str]], board: BoardSpec, *,
                         fix_k3: bool = True, min_views: int = 3) -> LensCalibration:
    """:func:`calibrate_lens` on image files; labels are the file names.

    Raises:
        CalibrationError: as :func:`calibrate_lens`, and for missing/unreadable files
            or files that are not images.
    """
    images = [load_image(p, gray=True) for p in paths]
    return calibrate_lens(images, board, names=[str(Path(p)) for p in paths],
                          fix_k3=fix_k3, min_views=min_views)
