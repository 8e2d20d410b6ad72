"""``dominocast calibrate``: lens and table calibration, marker sheets (docs/calibration.md)."""

from __future__ import annotations

import hashlib
import math
import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from engine.files import InputFileError, read_json_object, readable
from service.cli_common import (check_distinct_outputs, check_out_file, check_positive, check_replaceable, console,
                                err_console, fail, path_parser)

calibrate_app = typer.Typer(
    help="Calibrate the camera lens and the table plane; print marker sheets.",
    no_args_is_help=True,
)


class BoardKind(str, Enum):
    """Calibration board kinds for ``calibrate lens``."""

    checkerboard = "checkerboard"
    charuco = "charuco"


class Paper(str, Enum):
    """Paper sizes for ``calibrate markers``."""

    A4 = "A4"
    letter = "letter"


def _say(message: str) -> None:
    """One line on stdout, never wrapped or colour-highlighted."""
    console.print(message, markup=False, highlight=False, soft_wrap=True)


def _warn(message: str) -> None:
    """One line on stderr."""
    err_console.print(message, markup=False, highlight=False, soft_wrap=True)


def _fail(message: str) -> typer.Exit:
    """``fail`` with ``message`` on one line (``fail`` shows it literally: helper-120, escaped here as well,
    "venue[red].json" read "venue\\[red].json")."""
    return fail(" ".join(message.split()))


def _msg(exc) -> str:
    """The first problem of a pydantic ValidationError, without pydantic's "Value error, " prefix."""
    return exc.errors()[0]["msg"].removeprefix("Value error, ")


@contextmanager
def _one_line_errors() -> Iterator[None]:
    """Turn calibration, validation and file errors into ``error: ...`` + exit code 2."""
    from pydantic import ValidationError

    from calibration.errors import CalibrationError

    try:
        with warnings.catch_warnings():  # numpy's overflow warnings on absurd points: the error line says it
            warnings.simplefilter("ignore", RuntimeWarning)
            yield
    except CalibrationError as exc:
        raise _fail(str(exc)) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise _fail(f"invalid value{' for ' + where if where else ''}: {_msg(exc)}") from None
    except OSError as exc:
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        raise _fail(f"{where}{exc.strerror or exc}") from None


def _parse_points(text: str, option: str) -> list[tuple[float, float]]:
    """``"x1,y1 x2,y2 ..."`` (spaces or semicolons between points) -> list of pairs."""
    pairs = [p for p in re.split(r"[\s;]+", text.strip()) if p]
    points = []
    for pair in pairs:
        parts = pair.split(",")
        try:
            if len(parts) != 2:
                raise ValueError
            x, y = float(parts[0]), float(parts[1])
            if not (math.isfinite(x) and math.isfinite(y)):  # nan or inf reached the fit and raised there
                raise _fail(f"{option}: {pair!r} is not a finite point")
            points.append((x, y))
        except ValueError:
            raise _fail(f"{option}: cannot read {pair!r}; expected points as \"x1,y1 x2,y2 x3,y3 x4,y4\"") from None
    return points


#: ``calibrate table`` wants a table at least this many tile lengths across its shorter side (a line
#: of play needs room; a profile file only needs the tile to fit).
TILES_ACROSS = 4
#: Table fits (mm RMS over the marker corners or given points) above which the sizes given cannot be the
#: table's: refused (helper-86: --table-mm 600 900 for a 900 x 600 table fitted at 16.6 mm, exit 0); above
#: the second one, warned (a near-square table given the wrong way round: 5.2 mm; a wrong inset: 3.0 mm).
#: Good fits measured 0.3-0.6 mm, 1.3 mm on a blurred, noisy photo.
TABLE_FIT_BAD_MM, TABLE_FIT_WARN_MM = 10.0, 2.0
#: Markers measuring this share off their printed side (table-plane mm, as their centres place them) are
#: warned: a good fit measures them within 0.5 %.
MARKER_SIZE_WARN = 0.02
#: ... and this far off, the printed size given is likely the wrong one: the warning names the measured size
#: (a wrong inset or table size moves the markers' centres, and so their measured side, by a few percent).
MARKER_SIZE_OFF = 0.06
#: A camera looking down on the table sees a millimetre alike along the table's width and height (the demo's
#: and a footage's profiles: within 0.3 %, 3.7 degrees of tilt). The four corners fit any table size exactly,
#: so ``--table-mm 600 1000`` for a 1000 x 600 table was taken without a word, 2.8x apart (helper-253): over
#: this ratio, warned.
POINTS_ASPECT_WARN = 1.15


def _points_scale_warning(profile, table_mm: tuple[float, float]) -> str | None:  # noqa: ANN001 - TableProfile
    """A warning when ``profile`` (fitted on ``--points``) puts unlike px per mm along the table's width and
    height at its centre (ratio over :data:`POINTS_ASPECT_WARN`), with the table's width over height as the
    points show it (each side at its own px/mm) and as given; None otherwise.

    Args:
        profile: the fitted ``TableProfile``.
        table_mm: ``(W, H)`` mm as given.
    """
    import numpy as np

    w, h = table_mm
    step = min(w, h) / 10.0
    centre = np.array([w / 2.0, h / 2.0])
    ends = profile.table_to_image(np.array([centre + (step, 0), centre - (step, 0), centre + (0, step),
                                            centre - (0, step)], np.float32))
    sx = float(np.linalg.norm(ends[0] - ends[1])) / (2 * step)
    sy = float(np.linalg.norm(ends[2] - ends[3])) / (2 * step)
    if min(sx, sy) <= 0 or max(sx, sy) / min(sx, sy) <= POINTS_ASPECT_WARN:
        return None
    return (f"warning: the points put {sx:.2f} px per mm along the table's width and {sy:.2f} along its height, where "
            f"a camera above the table sees both alike: they show a table {w * sx / (h * sy):.2f} times as wide as "
            f"high, --table-mm {w:g} {h:g} one {w / h:.2f} times: check --table-mm (W along the edge from corner 0 to "
            "corner 1, then H) and the order of --points")


def _check_table_mm(table_mm: tuple[float, float]) -> None:
    """``--table-mm`` two finite sizes in (0, ``MAX_TABLE_MM``] mm, else one-line error (exit 2)."""
    from calibration.profile import MAX_TABLE_MM

    w, h = table_mm
    if not (0 < w <= MAX_TABLE_MM and 0 < h <= MAX_TABLE_MM):  # nan fails too
        raise _fail(f"--table-mm must be two sizes of 0-{MAX_TABLE_MM:g} mm (width and height, e.g. "
                    f"--table-mm 1000 600), got {w:g} {h:g}")


def _check_on_table(points_mm, table_mm: tuple[float, float]) -> None:
    """``--points-mm`` must lie on the table (edges included): a point off it means a wrong
    --table-mm or a typo, and the homography would map the table somewhere else."""
    from calibration.seats import points_on_table

    inside = points_on_table(points_mm, table_mm)
    if not inside.all():
        x, y = points_mm[int((~inside).argmax())]
        raise _fail(f"--points-mm: ({x:g},{y:g}) lies off the {table_mm[0]:g} x {table_mm[1]:g} mm table (--table-mm); "
                    "table positions run from (0,0) to (W,H)")


def _fit_line(n_points: int, rms_mm: float | None, max_mm: float | None, rms_px: float | None,
              source: str | None = None) -> str:
    """The table fit's error line for ``calibrate table`` and ``show``: with 4 points the fit is exact, and
    the px figure only measures rounding (helper-187: "0 by construction" then "6792.45 px RMS")."""
    if n_points == 4:
        return ("exact fit through 4 points: the reprojection error is 0 by construction "
                "(give more points with --points-mm to measure it)")
    return (f"reprojection error over {source or f'{n_points} points'}: {rms_mm:.2f} mm RMS (max {max_mm:.2f} mm), "
            f"{rms_px:.2f} px RMS")


def _has_table(path: Path) -> bool:
    """Whether ``path`` is a profile with a table calibration (a homography)."""
    return _has_part(path, "homography")


def _has_lens(path: Path) -> bool:
    """Whether ``path`` is a profile with a lens calibration (a camera matrix)."""
    return _has_part(path, "camera_matrix")


def _has_part(path: Path, key: str) -> bool:
    from calibration.profile import MAX_PROFILE_BYTES

    try:
        return bool(read_json_object(path, "profile file", limit=MAX_PROFILE_BYTES).get(key))
    except InputFileError:  # absent, a device (bounded: helper-151), not JSON: nothing to lose
        return False


def _same_photo(images: list[Path]) -> str | None:
    """"A is given twice" / "A and B are the same photo" for the first repeat among ``images``, or None."""
    seen: dict[bytes, Path] = {}
    for image in images:
        digest = hashlib.sha1(image.read_bytes()).digest()
        if digest in seen:
            first = seen[digest]
            return f"{image} is given twice" if image == first else f"{image} and {first} are the same photo"
        seen[digest] = image
    return None


@calibrate_app.command("markers")
def markers_cmd(
    out: Path = typer.Option(..., "--out", parser=path_parser, help="PNG file to write."),
    checkerboard: bool = typer.Option(False, "--checkerboard",
                                      help="Write a lens-calibration checkerboard page instead."),
    paper: Paper = typer.Option(Paper.A4, "--paper", help="Paper size."),
    dpi: float = typer.Option(300.0, "--dpi", help="Print resolution, dots per inch."),
    marker_mm: float = typer.Option(50.0, "--marker-mm", help="Corner marker side, mm."),
    cols: int = typer.Option(8, "--cols", help="Checkerboard squares across."),
    rows: int = typer.Option(11, "--rows", help="Checkerboard squares down."),
    square_mm: float = typer.Option(20.0, "--square-mm", help="Checkerboard square side, mm."),
) -> None:
    """Write a printable sheet: the four table-corner ArUco markers (ids 0-3), or a checkerboard."""
    from calibration.markers import checkerboard_sheet, marker_sheet, write_png
    from calibration.table import DEFAULT_MARKER_MARGIN_MM

    if not 72 <= dpi <= 1200:  # the library says "dpi", not the option
        raise _fail(f"--dpi must be 72-1200, got {dpi:g}")
    check_out_file("--out", out, "markers.png")  # e.g. under a file: said as such, not "File exists"
    check_replaceable("--out", out, "a picture")
    replaced = out.exists()  # the README allows replacing any picture: say so (helper-187 lost a table photo)
    check_positive("--marker-mm", marker_mm, "mm")
    with _one_line_errors():
        if checkerboard:
            page = checkerboard_sheet(paper=paper.value, dpi=dpi, cols=cols, rows=rows,
                                      square_mm=square_mm)
            what = f"checkerboard {cols} x {rows} squares of {square_mm:g} mm"
        else:
            page = marker_sheet(paper=paper.value, dpi=dpi, marker_mm=marker_mm)
            what = (f"corner markers 0-3, {marker_mm:g} mm (inset "
                    f"{DEFAULT_MARKER_MARGIN_MM + marker_mm / 2:g} mm when cut out and laid in the corners)")
        write_png(out, page, dpi)
    _say(f"{'replaced' if replaced else 'wrote'} {out}: {what}, {paper.value} at {dpi:g} dpi; print at 100%")


@calibrate_app.command("lens")
def lens_cmd(
    images: list[Path] = typer.Argument(..., parser=path_parser, help="Photos of the board (10-20, varied tilts)."),
    out: Path = typer.Option(..., "--out", parser=path_parser, help="Profile JSON to write."),
    board: BoardKind = typer.Option(BoardKind.checkerboard, "--board", help="Board kind."),
    cols: int = typer.Option(8, "--cols", help="Squares across the board (not inner corners)."),
    rows: int = typer.Option(11, "--rows", help="Squares down the board (not inner corners)."),
    square_mm: float = typer.Option(20.0, "--square-mm", help="Square side, mm."),
    marker_mm: Optional[float] = typer.Option(None, "--marker-mm",
                                              help="ChArUco marker side, mm (default 0.7 x square)."),
    dictionary: str = typer.Option("DICT_5X5_100", "--dict", help="ChArUco ArUco dictionary."),
    name: Optional[str] = typer.Option(None, "--name", help="Profile name (default: the --out file name)."),
    free_k3: bool = typer.Option(False, "--free-k3", help="Also fit the k3 radial term."),
) -> None:
    """Calibrate lens intrinsics and distortion; prints the RMS reprojection error."""
    from calibration.lens import BoardSpec, calibrate_lens_files
    from calibration.profile import ReprojectionErrors, TableProfile

    check_out_file("--out", out, "lens.json")
    check_distinct_outputs([("--out", out)], [("one of the photos", i) for i in images])
    check_replaceable("--out", out, "a calibration profile")
    if _has_table(out):  # helper-86: a table's profile was replaced by a lens-only one without a word
        raise _fail(f"--out {out} holds a table calibration: a lens-only profile would replace it; write the lens "
                    "to another file and pass it to `calibrate table --lens`")
    check_positive("--marker-mm", marker_mm, "mm")
    with _one_line_errors():
        spec = BoardSpec(kind=board.value, cols=cols, rows=rows, square_mm=square_mm,
                         marker_mm=marker_mm, dictionary=dictionary)
        result = calibrate_lens_files(images, spec, fix_k3=not free_k3)  # re-encoded copies: refused there
        twice = _same_photo(images)
        if twice:  # the same view twice adds no constraint: three copies gave fx 76 000 px at RMS 0.4 px
            raise _fail(f"{twice}: take each photo from another tilt")
        profile = TableProfile(
            name=name or readable(out.stem), image_size=result.image_size,
            camera_matrix=result.camera_matrix.tolist(), dist_coeffs=result.dist_coeffs.tolist(),
            errors=ReprojectionErrors(lens_rms_px=result.rms_px))
        profile.save(out)
    k = result.camera_matrix
    _say(f"board found in {len(result.used)} of {len(images)} images")
    if result.skipped:
        _warn(f"warning: board not found in {', '.join(result.skipped)}")
    _say(f"fx {k[0, 0]:.1f}  fy {k[1, 1]:.1f}  cx {k[0, 2]:.1f}  cy {k[1, 2]:.1f} px; "
         f"distortion {' '.join(f'{d:.4g}' for d in result.dist_coeffs)}")
    _say(f"RMS reprojection error: {result.rms_px:.3f} px")
    if result.rms_px > 1.0:
        _warn("warning: RMS above 1 px; check --cols/--rows/--square-mm, focus and "
              "that the board is flat")
    _say(f"wrote {out}")


@calibrate_app.command("table")
def table_cmd(
    image: Path = typer.Argument(..., parser=path_parser,
                                 help="Overhead photo of the table, or a video of it (see --frame)."),
    out: Path = typer.Option(..., "--out", parser=path_parser, help="Profile JSON to write."),
    table_mm: tuple[float, float] = typer.Option(..., "--table-mm", metavar="W H",
                                                 help="Table width W and height H, mm (two numbers: --table-mm 1000 600)."),
    lens: Optional[Path] = typer.Option(None, "--lens", parser=path_parser,
                                        help="Profile with lens intrinsics to use."),
    markers: bool = typer.Option(False, "--markers", help="Use the four corner markers (ids 0-3)."),
    points: Optional[str] = typer.Option(
        None, "--points", help='Image points "x1,y1 x2,y2 x3,y3 x4,y4" (pixels).'),
    points_mm: Optional[str] = typer.Option(
        None, "--points-mm", help="Table positions of --points, mm (default: corners (0,0) (W,0) (W,H) (0,H))."),
    seats: str = typer.Option("NESW", "--seats", help="Seats at edges y=0, x=W, y=H, x=0, in order."),
    tile_mm: tuple[float, float] = typer.Option((48.0, 24.0), "--tile-mm", help="Tile length and width, mm."),
    tile_thickness_mm: float = typer.Option(8.0, "--tile-thickness-mm", help="Tile thickness, mm."),
    marker_mm: float = typer.Option(50.0, "--marker-mm", help="Printed corner marker side, mm."),
    marker_inset_mm: Optional[float] = typer.Option(
        None, "--marker-inset-mm",
        help="Distance from each table edge to a marker centre, mm (default: 10 + marker side / 2, as the "
             "sheet of `calibrate markers` says: 35 for 50 mm markers)."),
    name: Optional[str] = typer.Option(None, "--name", help="Table name (default: the --out file name)."),
    frame_index: Optional[int] = typer.Option(
        None, "--frame", metavar="N", help="When IMAGE is a video: fit on its frame N (0 = the first, the default)."),
) -> None:
    """Fit the table-plane homography (pixels -> mm); prints the reprojection error."""
    import numpy as np
    from pydantic import ValidationError

    from calibration.errors import CalibrationError
    from calibration.images import VideoNotPictureError, load_image, read_video_frame
    from calibration.profile import ReprojectionErrors, TableProfile, TileSize
    from calibration.seats import parse_seat_spec
    from calibration.table import DEFAULT_MARKER_MARGIN_MM, calibrate_table_from_markers, calibrate_table_from_points
    from vision.sources import VIDEO_SUFFIXES

    if markers == (points is not None):
        raise _fail("give exactly one of --markers or --points")
    if points_mm is not None and points is None:
        raise _fail("--points-mm needs --points")
    check_out_file("--out", out, "table.json")
    check_distinct_outputs([("--out", out)], [("the photo", image), ("the --lens profile", lens)])
    check_replaceable("--out", out, "a calibration profile")
    if lens is None and _has_lens(out):  # helper-120: the lens of a profile written over was lost without a word
        raise _fail(f"--out {out} holds a lens calibration that this table fit would drop: pass it as --lens {out} "
                    "and write the table to another --out")
    _check_table_mm(table_mm)
    check_positive("--marker-mm", marker_mm, "mm")
    if marker_inset_mm is None:  # helper-86: 60 mm markers lie 40 mm in, and a fixed 35 put every corner 8 mm off
        marker_inset_mm = DEFAULT_MARKER_MARGIN_MM + marker_mm / 2
    check_positive("--marker-inset-mm", marker_inset_mm, "mm")
    if frame_index is not None and frame_index < 0:
        raise _fail(f"--frame must be 0 or more (0 is the video's first frame), got {frame_index}")
    with _one_line_errors():
        seat_edges = parse_seat_spec(seats)
        try:
            tile = TileSize(length=tile_mm[0], width=tile_mm[1], thickness=tile_thickness_mm)
        except ValidationError as exc:
            raise _fail(f"--tile-mm/--tile-thickness-mm: {_msg(exc)}") from None
        if tile.length * TILES_ACROSS > min(table_mm):
            # either size may be the wrong one (helper-86: --table-mm 900 150 was blamed on --tile-mm)
            raise _fail(f"a {tile.length:g} mm tile on a {table_mm[0]:g} x {table_mm[1]:g} mm table is too big: give "
                        "the table's width and height in mm (--table-mm 900 600) and the tile's length and width "
                        "in mm (--tile-mm 48 24)")
        lens_profile = TableProfile.load(lens) if lens is not None else None
        if lens_profile is not None and not lens_profile.has_lens:
            raise _fail(f"{lens}: profile has no lens calibration (run `dominocast calibrate lens`)")
        try:
            frame = load_image(image)
        except VideoNotPictureError:  # footage's frames are what `review` reads with this profile
            frame = None
        except CalibrationError:
            # --frame or the file's name says a video was meant: the video reader's words ("not a video OpenCV
            # can read", "cannot decode frame N") say more than "not an image" (helper-195: a truncated mp4)
            if frame_index is None and image.suffix.lower() not in VIDEO_SUFFIXES:
                raise
            frame = None
        if frame is None:
            frame, frames = read_video_frame(image, frame_index or 0)
            _say(f"{image}: frame {frame_index or 0}" + (f" of {frames}" if frames else "")
                 + f", {frame.shape[1]} x {frame.shape[0]} px"
                 + ("" if frame_index is not None else " (--frame N for another)"))
        elif frame_index is not None:
            raise _fail(f"--frame picks a frame of a video, and {image} is a picture")
        size = (frame.shape[1], frame.shape[0])
        k = d = None
        if lens_profile is not None:
            if tuple(lens_profile.image_size) != size:
                raise _fail(f"{image}: image is {size[0]}x{size[1]} px but {lens} was calibrated at "
                           f"{lens_profile.image_size[0]}x{lens_profile.image_size[1]}")
            k, d = lens_profile.K, lens_profile.D
        if markers:
            fit = calibrate_table_from_markers(frame, table_mm, marker_mm=marker_mm,
                                               inset_mm=marker_inset_mm, camera_matrix=k,
                                               dist_coeffs=d, source=str(image))
        else:
            px = np.array(_parse_points(points or "", "--points"))
            mm = np.array(_parse_points(points_mm, "--points-mm")) if points_mm is not None else None
            if mm is not None:
                _check_on_table(mm, table_mm)
            if mm is None and len(px) != 4:
                raise _fail(f"--points: need the 4 table corners, got {len(px)} points "
                           "(or give --points-mm for other points)")
            fit = calibrate_table_from_points(px, table_mm, points_mm=mm, camera_matrix=k,
                                              dist_coeffs=d, image_size=size)
        if fit.rms_mm > TABLE_FIT_BAD_MM:  # the sizes given do not fit what the photo shows: no profile
            raise _fail(f"the {'markers' if markers else 'points'} do not fit a {table_mm[0]:g} x {table_mm[1]:g} mm "
                        f"table: {fit.rms_mm:.1f} mm RMS (a good fit is under 1 mm); check --table-mm (W along the "
                        "edge from marker 0 to marker 1, then H)"
                        + (" and --marker-inset-mm" if markers else " and --points-mm"))
        profile = TableProfile(
            name=name or readable(out.stem), image_size=size,
            camera_matrix=None if k is None else k.tolist(),
            dist_coeffs=None if d is None else d.tolist(),
            homography=fit.homography.tolist(), table_size_mm=table_mm, seat_edges=seat_edges,
            tile_size_mm=tile,
            errors=ReprojectionErrors(
                lens_rms_px=lens_profile.errors.lens_rms_px if lens_profile else None,
                table_rms_mm=fit.rms_mm, table_max_mm=fit.max_mm, table_rms_px=fit.rms_px,
                table_points=fit.n_points))
        # no pips readable (helper-187's table 1 px across gave 0 px tiles and an empty review), and the profile
        # would be refused on load: said here with the options to check
        problem = profile.small_tile_problem()
        if problem:
            raise _fail(f"{problem}; check {'--table-mm' if markers else '--points (image px) and --table-mm'}, or "
                        "bring the camera closer")
        profile.save(out)
    _say(_fit_line(fit.n_points, fit.rms_mm, fit.max_mm, fit.rms_px, "16 marker corners" if markers else None))
    off = max((abs(s / marker_mm - 1.0) for s in fit.marker_sides_mm), default=0.0) if fit.marker_sides_mm else 0.0
    if off > MARKER_SIZE_WARN:  # helper-120: a 10 mm wrong inset fitted at 1.3 mm RMS, 15 mm off at the edge
        sx, sy = fit.marker_sides_mm
        # helper-145: --marker-mm 45 for a 50 mm print measured 50.1 mm, and the warning named the other options
        size = (f"if they are printed {(sx + sy) / 2:.0f} mm, pass --marker-mm {(sx + sy) / 2:.0f}; else "
                if off > MARKER_SIZE_OFF else "")
        _warn(f"warning: the markers measure {sx:.1f} x {sy:.1f} mm, --marker-mm says {marker_mm:g} mm: {size}if "
              "printed at 100 %, --table-mm or --marker-inset-mm is off and so are positions near the table's edges "
              "(a blurred photo measures them a little small: 2 % at a blur of 2 px)")
    if fit.rms_mm > TABLE_FIT_WARN_MM:
        _warn(f"warning: {fit.rms_mm:.1f} mm RMS is a poor fit (under 1 mm is good): check --table-mm"
              + (" and --marker-inset-mm" if markers else "") + ", or correct the lens (--lens)")
    aspect = None if markers else _points_scale_warning(profile, table_mm)  # markers: their squareness is checked
    if aspect:
        _warn(aspect)
    if lens_profile is None:
        _warn("note: no --lens profile; lens distortion is not corrected")
    _say(f"wrote {out}")


def _edge_in_picture(edge: str, corners_px, image_size: tuple[int, int]) -> str:
    """Where a table edge lies in the camera picture of ``image_size`` (W, H px), from the table's ``(4, 2)``
    corner pixels in :data:`~calibration.seats.EDGES` order (edge i runs from corner i to corner i + 1):
    ``"edge from px (x0,y0) to (x1,y1), the top of the picture"``. The side is the one the edge's middle lies
    towards, seen from the table's centre (the larger of its left/right and up/down offsets): the table's side
    as pictured. An edge with no part in the picture is said to be outside it, and where, as the picture sees
    it: helper-195's table above and left of the picture had its right edge called "the right of the
    picture" at x = -10."""
    import numpy as np

    from calibration.geometry import segment_in_image
    from calibration.seats import EDGES

    i = EDGES.index(edge)
    a, b = corners_px[i], corners_px[(i + 1) % 4]
    middle = (a + b) / 2
    dx, dy = middle - np.mean(corners_px, axis=0)
    side = ("right" if dx > 0 else "left") if abs(dx) > abs(dy) else ("bottom" if dy > 0 else "top")
    where = f"edge from px ({a[0]:.1f},{a[1]:.1f}) to ({b[0]:.1f},{b[1]:.1f})"
    if segment_in_image(a, b, image_size):
        return f"{where}, the {side} of the picture"
    # the whole edge is outside, so its middle is too: name the borders that middle lies beyond
    (x, y), (w, h) = middle, image_size
    beyond = [word for word, out in (("above", y < 0), ("below", y > h), ("left of", x < 0), ("right of", x > w))
              if out]
    return f"{where}, the table's {side} side, outside the picture ({' and '.join(beyond)} it)"


@calibrate_app.command("show")
def show_cmd(profile_path: Path = typer.Argument(..., parser=path_parser, metavar="PROFILE",
                                                 help="Profile JSON.")) -> None:
    """Print a calibration profile."""
    from calibration.profile import TableProfile
    from calibration.seats import SEATS, seat_spec
    from calibration.table import table_corners_mm

    with _one_line_errors():
        p = TableProfile.load(profile_path)
        corners = p.table_to_image(table_corners_mm(p.table_size_mm)) if p.homography else None
    e = p.errors
    lines = [f"profile {p.name!r} (version {p.version}, created {p.created.isoformat()})",
             f"image size: {p.image_size[0]} x {p.image_size[1]} px"]
    if p.has_lens:
        k = p.K
        lines.append(f"lens: fx {k[0, 0]:.1f}  fy {k[1, 1]:.1f}  cx {k[0, 2]:.1f}  cy {k[1, 2]:.1f} px; "
                     f"distortion {' '.join(f'{d:.4g}' for d in p.dist_coeffs)}")
        if e.lens_rms_px is not None:
            lines.append(f"lens RMS reprojection error: {e.lens_rms_px:.3f} px")
    else:
        lines.append("lens: not calibrated (distortion not corrected)")
    if corners is not None:
        w, h = p.table_size_mm
        lines.append(f"table: {w:g} x {h:g} mm; corners (0,0) (W,0) (W,H) (0,H) at px "
                     + " ".join(f"({x:.1f},{y:.1f})" for x, y in corners))
        lines.append("homography (px -> mm): " + "; ".join(" ".join(f"{v:.6g}" for v in row)
                                                        for row in p.homography))
        if e.table_rms_mm is not None:
            lines.append("table fit: " + _fit_line(e.table_points or 0, e.table_rms_mm, e.table_max_mm,
                                                   e.table_rms_px))
    else:
        lines.append("table: not calibrated (run `dominocast calibrate table`)")
    lines.append(f"seats: {seat_spec(p.seat_edges)}")
    for seat, edge in sorted(p.seat_edges.items(), key=lambda kv: SEATS.index(kv[0])):
        lines.append(f"  {seat} at {edge}"
                     + ("" if corners is None else ": " + _edge_in_picture(edge, corners, p.image_size)))
    t = p.tile_size_mm
    lines.append(f"tile: {t.length:g} x {t.width:g} x {t.thickness:g} mm")
    for line in lines:
        _say(line)


def register(app: typer.Typer) -> None:
    """Add the ``calibrate`` sub-command group to the main CLI."""
    app.add_typer(calibrate_app, name="calibrate")
