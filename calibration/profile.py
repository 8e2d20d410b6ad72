"""The per-table calibration profile: a versioned JSON file (pydantic model).

A profile holds what the lens step measured (camera matrix, distortion), what the
table step measured (homography from undistorted image pixels to table millimetres,
table size) and the table set-up (seat edges, tile size).  A lens-only profile (from
``dominocast calibrate lens``) has no homography yet.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import (BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, ValidationError,
                      field_validator, model_validator)

from calibration.errors import CalibrationError
from calibration.geometry import (apply_homography, as_points, distort_pixels, far_outside_image, outside_image_message,
                                  undistort_pixels)
from calibration.rectify import rectify_frame
from calibration.seats import (DEFAULT_SEAT_SPEC, Edge, Seat, nearest_edge, parse_seat_spec, points_on_table,
                              seat_spec)
from engine.files import InputFileError, read_input, write_text_atomic

PROFILE_VERSION = 1
#: A profile file longer than this (bytes) is refused before it is read: ours are a few KB.
MAX_PROFILE_BYTES = 4 << 20
# An indented JSON list holding only numbers (matrix rows, sizes, coefficients), for
# compacting.  The raw newline after "[" cannot occur inside a JSON string.
_NUMBER_LIST = re.compile(r"\[\n\s*((?:-?[0-9][0-9.eE+-]*,?\s*)+)\]")
_DIST_LENGTHS = (4, 5, 8, 12, 14)  # the lengths OpenCV accepts


def _default_seats() -> dict[Seat, Edge]:
    return parse_seat_spec(DEFAULT_SEAT_SPEC)


def _utc_now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


#: Largest table side, mm (a tournament table is about 1 m; 20 m is no table, and sizes far beyond
#: overflowed the fit).
MAX_TABLE_MM = 20_000.0
#: Longest tile, mm (standard tiles are 40-55 mm; jumbo ones about 75).
MAX_TILE_MM = 300.0
#: Shortest tile, mm (travel sets are about 25 mm long): below it the size was given in cm (helper-120:
#: --tile-mm 4.8 2.4 was taken, and `detect` then scaled frames for 10x smaller tiles).
MIN_TILE_MM = 15.0
#: Shortest tile, image px at the table's centre, whose pips can be read: a profile whose table makes its tile
#: shorter is refused when loaded and by `calibrate table` (helper-195: a 160 x 90 px footage's 6.6 px tiles were
#: refused by `calibrate table` but loaded by `review` and `detect`), and `detect --tile-px` takes no less. It lives here,
#: not in service/, because the profile applies it.
MIN_TILE_PX = 8.0


class TileSize(BaseModel):
    """Expected domino tile size in millimetres (face length x width, and thickness)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    length: PositiveFloat = 48.0
    width: PositiveFloat = 24.0
    thickness: PositiveFloat = 8.0

    @model_validator(mode="after")
    def _length_is_long_side(self) -> TileSize:
        if self.width > self.length:
            raise ValueError(f"tile width {self.width} mm is larger than its length {self.length} mm")
        if self.length > MAX_TILE_MM:
            raise ValueError(f"tile length {self.length:g} mm is over {MAX_TILE_MM:g} mm: give it in mm (e.g. 48)")
        if self.length < MIN_TILE_MM:
            raise ValueError(f"tile length {self.length:g} mm is under {MIN_TILE_MM:g} mm: give it in mm (e.g. 48), "
                             "not cm")
        if self.thickness > self.width:
            raise ValueError(f"tile thickness {self.thickness:g} mm is more than its width {self.width:g} mm")
        return self


class ReprojectionErrors(BaseModel):
    """Calibration quality numbers (None where the step has not been run).

    Attributes:
        lens_rms_px: RMS reprojection error of the lens calibration, pixels.
        table_rms_mm: RMS error of the table fit on the table, mm.
        table_max_mm: largest table-fit error, mm.
        table_rms_px: RMS error of the table fit in the image, pixels.
        table_points: number of correspondences in the table fit (4 = exact fit, the
            errors are then 0 and say nothing about accuracy).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    lens_rms_px: float | None = Field(default=None, ge=0)
    table_rms_mm: float | None = Field(default=None, ge=0)
    table_max_mm: float | None = Field(default=None, ge=0)
    table_rms_px: float | None = Field(default=None, ge=0)
    table_points: int | None = Field(default=None, ge=4)


class TableProfile(BaseModel):
    """Calibration of one table and camera (JSON file, ``version: 1``).

    Attributes:
        version: file format version (always 1).
        name: table name.
        created: UTC time the profile was written.
        image_size: ``(width, height)`` of the camera images, pixels.
        camera_matrix: 3x3 intrinsics ``[[fx, 0, cx], [0, fy, cy], [0, 0, 1]]`` in
            pixels, or None (no lens calibration: raw pixels are used as if undistorted).
        dist_coeffs: OpenCV distortion ``(k1, k2, p1, p2[, k3, ...])``, or None.
        homography: 3x3 map from undistorted image pixels to table mm, or None.
        table_size_mm: ``(W, H)`` table size, mm (required with a homography).
        seat_edges: seat letter -> table edge (``"y=0"``, ``"x=W"``, ``"y=H"``, ``"x=0"``).
        tile_size_mm: expected tile size.
        errors: reprojection errors of the calibration steps.

    Construction raises ``pydantic.ValidationError`` (a ValueError) for invalid fields, among them a table
    calibration whose centre lies far outside the image; :meth:`load` and :meth:`from_dict` also refuse a
    table whose tile comes out under :data:`MIN_TILE_PX` at its centre (:meth:`small_tile_problem`).
    """

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    version: Literal[1] = PROFILE_VERSION
    name: str = Field(min_length=1)
    created: datetime = Field(default_factory=_utc_now)
    image_size: tuple[PositiveInt, PositiveInt]
    camera_matrix: list[list[float]] | None = None
    dist_coeffs: list[float] | None = None
    homography: list[list[float]] | None = None
    table_size_mm: tuple[PositiveFloat, PositiveFloat] | None = None
    seat_edges: dict[Seat, Edge] = Field(default_factory=_default_seats)
    tile_size_mm: TileSize = Field(default_factory=TileSize)
    errors: ReprojectionErrors = Field(default_factory=ReprojectionErrors)

    # -- validation ---------------------------------------------------------------

    @field_validator("camera_matrix", "homography")
    @classmethod
    def _three_by_three(cls, value: list[list[float]] | None) -> list[list[float]] | None:
        if value is None:
            return None
        arr = np.asarray(value, dtype=np.float64)
        if arr.shape != (3, 3):
            raise ValueError(f"must be a 3x3 matrix, got shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError("contains NaN or infinite values")
        with np.errstate(over="ignore", invalid="ignore"):
            det = np.linalg.det(arr)
        if not (np.isfinite(det) and det != 0.0):  # e.g. 1e308 entries: every mapping would overflow
            raise ValueError("is singular or out of range")
        return arr.tolist()

    @field_validator("camera_matrix")
    @classmethod
    def _intrinsics_shape(cls, value: list[list[float]] | None) -> list[list[float]] | None:
        if value is None:
            return None
        k = np.asarray(value)
        if not (k[0, 0] > 0 and k[1, 1] > 0 and k[1, 0] == 0 and k[2, 0] == 0 and k[2, 1] == 0
                and k[2, 2] == 1):
            raise ValueError("is not a camera matrix [[fx, 0, cx], [0, fy, cy], [0, 0, 1]] with fx, fy > 0")
        return value

    @field_validator("dist_coeffs")
    @classmethod
    def _dist_length(cls, value: list[float] | None) -> list[float] | None:
        if value is None:
            return None
        if len(value) not in _DIST_LENGTHS:
            raise ValueError(f"must have 4, 5, 8, 12 or 14 coefficients, got {len(value)}")
        if not all(np.isfinite(value)):
            raise ValueError("contains NaN or infinite values")
        return value

    @field_validator("seat_edges")
    @classmethod
    def _one_seat_per_edge(cls, value: dict[Seat, Edge]) -> dict[Seat, Edge]:
        if len(value) != 4 or len(set(value.values())) != 4:
            raise ValueError("must give each of the seats N, E, S, W a different edge")
        parse_seat_spec(seat_spec(value))  # clockwise order; CalibrationError is a ValueError
        return value

    @model_validator(mode="after")
    def _consistent(self) -> TableProfile:
        if (self.camera_matrix is None) != (self.dist_coeffs is None):
            raise ValueError("camera_matrix and dist_coeffs must be given together")
        if self.homography is not None and self.table_size_mm is None:
            raise ValueError("a profile with a homography needs table_size_mm")
        if self.table_size_mm is not None:
            w, h = self.table_size_mm
            if max(w, h) > MAX_TABLE_MM:
                raise ValueError(f"table_size_mm {w:g} x {h:g} mm: a side is over {MAX_TABLE_MM:g} mm")
            if self.tile_size_mm.length > min(w, h):
                raise ValueError(f"a {self.tile_size_mm.length:g} mm tile is longer than the {w:g} x {h:g} mm table "
                                 "is wide")
        if self.homography is not None:
            iw, ih = self.image_size
            corners = np.array([[0, 0, 1], [iw, 0, 1], [iw, ih, 1], [0, ih, 1]], np.float64)
            with np.errstate(over="ignore", invalid="ignore"):
                mapped = corners @ np.asarray(self.homography, np.float64).T
            if not np.isfinite(mapped).all():  # e.g. a 1e308 entry: every mapping overflowed to inf
                raise ValueError("homography maps the image's corners to no finite table point")
            w, h = self.table_size_mm  # type: ignore[misc]
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                centre = self.table_to_image(np.array([w / 2, h / 2]))[0]
            # the recognizer measures the tile's size there: a table centred a whole image away (a typo in a
            # corner, a hand edit) left `detect` and `review` without tiles and without a word (helper-187)
            if far_outside_image(centre, self.image_size).any():
                raise ValueError(f"homography puts the table's centre at {outside_image_message(centre, self.image_size)}; "
                                 "its corners were mistyped or the profile was edited: calibrate the table again")
        return self

    # -- array views --------------------------------------------------------------

    @property
    def K(self) -> np.ndarray | None:  # noqa: N802 - the usual name
        """Camera matrix, ``(3, 3)`` float64 pixels, or None."""
        return None if self.camera_matrix is None else np.asarray(self.camera_matrix, np.float64)

    @property
    def D(self) -> np.ndarray | None:  # noqa: N802
        """Distortion coefficients, ``(K,)`` float64, or None."""
        return None if self.dist_coeffs is None else np.asarray(self.dist_coeffs, np.float64)

    @property
    def H(self) -> np.ndarray:  # noqa: N802
        """Homography undistorted pixels -> table mm, ``(3, 3)`` float64.

        Raises:
            CalibrationError: the profile has no table calibration.
        """
        if self.homography is None or self.table_size_mm is None:
            raise CalibrationError(
                f"profile {self.name!r} has no table calibration; run `dominocast calibrate table`")
        return np.asarray(self.homography, np.float64)

    @property
    def has_lens(self) -> bool:
        """True when the profile has intrinsics (points are undistorted before mapping)."""
        return self.camera_matrix is not None

    # -- mappings -----------------------------------------------------------------

    def image_to_table(self, points_px: np.ndarray) -> np.ndarray:
        """Map camera-image pixels to table millimetres.

        Args:
            points_px: ``(N, 2)`` (or ``(2,)``) float pixel coordinates in the raw
                (distorted) camera image.

        Returns:
            ``(N, 2)`` float32 table coordinates, mm.

        Raises:
            CalibrationError: no table calibration in the profile.
            ValueError: ``points_px`` is not an ``(N, 2)`` array of finite values.
        """
        h = self.H
        pts = as_points(points_px, name="points_px")
        if self.has_lens:
            pts = undistort_pixels(pts, self.K, self.D)
        return apply_homography(h, pts).astype(np.float32)

    def table_to_image(self, points_mm: np.ndarray) -> np.ndarray:
        """Map table millimetres to camera-image pixels (inverse of :meth:`image_to_table`).

        Args:
            points_mm: ``(N, 2)`` (or ``(2,)``) float table coordinates, mm.

        Returns:
            ``(N, 2)`` float32 pixel coordinates in the raw (distorted) camera image.

        Raises:
            CalibrationError: no table calibration in the profile.
            ValueError: ``points_mm`` is not an ``(N, 2)`` array of finite values.
        """
        pts = apply_homography(np.linalg.inv(self.H), as_points(points_mm, name="points_mm"))
        if self.has_lens:
            pts = distort_pixels(pts, self.K, self.D)
        return pts.astype(np.float32)

    def small_tile_problem(self) -> str | None:
        """Why the table is too small in the image for readable pips: its tile comes out under
        :data:`MIN_TILE_PX` at the table's centre (one line, no advice: the caller knows what to check);
        None when it does not, or when the profile has no table calibration."""
        if self.homography is None or self.table_size_mm is None:
            return None
        with np.errstate(all="ignore"):  # a near-degenerate homography: nan, refused as well
            tile_px = self.tile_px_at_centre()
        if tile_px >= MIN_TILE_PX:  # nan is refused too
            return None
        w, h = self.image_size
        return (f"the table is too small in the {w} x {h} px image: a {self.tile_size_mm.length:g} mm tile at its "
                f"centre comes out {tile_px:.2g} px long, under the {MIN_TILE_PX:g} px whose pips can be read")

    def tile_px_at_centre(self) -> float:
        """The tile's long side in image px at the table's centre: the mean of the tile's length laid along the
        table's x and y axes there, mapped into the raw image (what the recognizer looks for).

        Raises:
            CalibrationError: no table calibration in the profile.
        """
        w, h = self.table_size_mm or (0.0, 0.0)  # none: table_to_image raises
        half = self.tile_size_mm.length / 2
        c = np.array([w / 2, h / 2])
        px = self.table_to_image(np.array([c - [half, 0], c + [half, 0], c - [0, half], c + [0, half]])
                                 ).astype(np.float64)
        return float((np.linalg.norm(px[1] - px[0]) + np.linalg.norm(px[3] - px[2])) / 2)

    def seat_of_point(self, point_mm: np.ndarray | tuple[float, float]) -> Seat:
        """Seat letter (N/E/S/W) at the table edge nearest to a ``(2,)`` point in mm.

        Raises:
            CalibrationError: no table size in the profile.
        """
        if self.table_size_mm is None:
            raise CalibrationError(f"profile {self.name!r} has no table size")
        edge = nearest_edge(np.asarray(point_mm, np.float64), self.table_size_mm)
        return next(seat for seat, e in self.seat_edges.items() if e == edge)

    def on_table(self, points_mm: np.ndarray, margin_mm: float = 0.0) -> np.ndarray:
        """Which table points lie on the calibrated table, grown by ``margin_mm`` on every side.

        Args:
            points_mm: ``(N, 2)`` (or ``(2,)``) float table coordinates, mm.
            margin_mm: how far outside the table edges a point still counts, mm (>= 0).

        Returns:
            ``(N,)`` bool.

        Raises:
            CalibrationError: no table size in the profile.
        """
        if self.table_size_mm is None:
            raise CalibrationError(f"profile {self.name!r} has no table size")
        return points_on_table(points_mm, self.table_size_mm, margin_mm)

    def rectify(self, frame: np.ndarray, px_per_mm: float = 1.0) -> np.ndarray:
        """Top-down table image at ``px_per_mm``; see :func:`calibration.rectify.rectify_frame`.

        Raises:
            CalibrationError: no table calibration, bad ``px_per_mm`` or frame size.
        """
        return rectify_frame(frame, self, px_per_mm)

    # -- files --------------------------------------------------------------------

    def to_json(self) -> str:
        """The profile as JSON text: indented, with each list of numbers on one line."""
        text = self.model_dump_json(indent=2)
        return _NUMBER_LIST.sub(lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]",
                                text) + "\n"

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the profile as JSON (atomically; parent directories are created).

        Raises:
            CalibrationError: the file cannot be written.
        """
        p = Path(path)
        try:
            return write_text_atomic(p, self.to_json())
        except OSError as exc:
            raise CalibrationError(f"{p}: cannot write profile ({exc.strerror or exc})") from exc

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> TableProfile:
        """Read a profile written by :meth:`save`.

        Raises:
            CalibrationError: missing or unreadable file, not JSON, a ``version`` other
                than 1, or fields that are missing or invalid, among them a table whose tile comes out
                under :data:`MIN_TILE_PX` at its centre (the message names the file and the first problems).
        """
        p = Path(path)
        try:
            raw = read_input(p, "profile file", limit=MAX_PROFILE_BYTES)
            text = raw.decode("utf-8-sig")  # a byte-order mark, as Notepad writes one, is fine
        except InputFileError as exc:
            raise CalibrationError(str(exc)) from None
        except UnicodeDecodeError:
            if raw.lstrip()[:1] == b"{":  # helper-145: a profile re-saved as Latin-1 was "a picture?"
                raise CalibrationError(f"{p}: not UTF-8: this JSON was saved in another encoding; save it as "
                                       "UTF-8 (as `dominocast calibrate table` writes it)") from None
            raise CalibrationError(f"{p}: not a calibration profile: not a text file (a video or a picture?); "
                                   "a profile is the JSON `dominocast calibrate table` writes") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CalibrationError(
                f"{p}: corrupt profile: not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})"
            ) from None
        return cls.from_dict(data, source=str(p))

    @classmethod
    def from_dict(cls, data: object, *, source: str = "profile") -> TableProfile:
        """Validate a decoded JSON object as a profile.

        Raises:
            CalibrationError: as :meth:`load`.
        """
        if not isinstance(data, dict):
            raise CalibrationError(f"{source}: corrupt profile: expected a JSON object, "
                                   f"got {type(data).__name__}")
        other = _OTHER_FILES.get(str(data.get("format", "")).split("/")[0])
        if other:  # a record has a version 1 too: its fields were listed as the profile's errors (helper-253)
            raise CalibrationError(f"{source}: not a calibration profile: this is {other}")
        if "version" not in data:
            raise CalibrationError(f"{source}: not a calibration profile (no 'version' field)")
        if type(data["version"]) is not int or data["version"] != PROFILE_VERSION:  # true and 1.0 equal 1
            raise CalibrationError(
                f"{source}: unsupported profile version {data['version']!r} "
                f"(this dominocast reads version {PROFILE_VERSION})")
        try:
            profile = cls.model_validate(data)
        except ValidationError as exc:
            raise CalibrationError(f"{source}: invalid profile: {_summarise(exc)}") from None
        # refused as a file, not as a model: a profile made in memory may be any geometry (tests, table_share),
        # but one that `review` or `detect` would read must have readable tiles (helper-195: `calibrate table`
        # refused 6.6 px tiles, a footage's or a hand-edited profile.json with them was read)
        problem = profile.small_tile_problem()
        if problem:
            raise CalibrationError(f"{source}: invalid profile: {problem}: calibrate the table again with the camera "
                                   "closer, or check its corners and size (`dominocast calibrate table`)")
        return profile


#: The other JSON files dominocast writes (their ``format`` before any ``/``), as said when one is given
#: for a profile: a footage folder holds ``ground_truth.json`` beside ``profile.json``.
_OTHER_FILES = {
    "dominocast-record": "a game record (`dominocast record show` reads it)",
    "dominocast-footage": "a footage's ground truth (its calibration is the profile.json beside it)",
}


def _summarise(exc: ValidationError, limit: int = 3) -> str:
    """One line naming the first ``limit`` invalid fields."""
    parts = []
    for err in exc.errors()[:limit]:
        loc = ".".join(str(x) for x in err["loc"]) or "(root)"
        msg = err["msg"].replace("\n", " ").removeprefix("Value error, ")  # pydantic's own prefix (helper-120)
        parts.append(f"{loc}: {msg}")
    more = exc.error_count() - limit
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


def load_profile(path: str | os.PathLike[str]) -> TableProfile:
    """Shorthand for :meth:`TableProfile.load`."""
    return TableProfile.load(path)
