"""``dominocast detect``: recognize the tiles in photos (docs/recognition.md).

    dominocast detect frame.jpg
    dominocast detect a.jpg b.jpg --calibration table1.json --json tiles.json --annotate out.png

Bad inputs (missing or unreadable file, not an image, an image for another camera
size) print one ``error:`` line each and the other images are still processed; the
exit code is then 2.  A corrupt calibration profile or missing model files stop the
command at once (one line, exit code 2).  An image with transparent pixels (read over
plain grey) gets a ``note:`` line, an overexposed one (:mod:`vision.exposure`) a
``warning:`` line, both on stderr; so does an image whose clipped white lies over or beside
tiles it read, however small (their pips may be misread): ``--json`` marks those tiles
``"in_glare": true``.

When the tile size is given (``--tile-px``, or a calibration's tile) and the tiles found measure more
than :data:`vision.recognize.SCALE_OFF_FACTOR` times it (or less than its inverse), one ``note:`` line per
image names the measured size and the option to fix (:meth:`vision.recognize.Recognizer.scale_check`);
a calibration whose table covers under :data:`MIN_TABLE_SHARE` of the frame, or whose tile comes out
longer than the image, gets one ``note:`` line instead (one whose tile comes out under
:data:`calibration.profile.MIN_TILE_PX`, the smallest ``--tile-px`` too, is refused as a profile).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Optional

import numpy as np
import typer
from rich.table import Table

from engine.files import write_text_atomic
from service.cli_common import (check_distinct_outputs, check_out_file, check_positive, check_replaceable, check_sets,
                                console, err_console, fail, path_parser, plural)
from vision.observation import FLAG_DUPLICATE

#: Tiles measured shorter than this (px) may be measured long: the detector boxes a tile with the blur around it,
#: px that count little on a 40 px tile and much on a small one. Small footage frames are blurred by px, not mm
#: (the renderer's blur, its shadows' 1 px floor, the video's compression): median box against the rendered
#: tile, 6.6 px tiles boxed 11.5 px long at 160x90, 7.9 px ones 9.8, 10.4 px ones 11.1, 19.5 px ones 20.0; the
#: same 6.5 px tiles shrunk from a 960x540 frame were boxed 7.1 px. So a measure under it is an upper bound,
#: and the tiles may be under MIN_TILE_PX (helper-195: 6.6 px tiles "measure about 12 px").
BOXED_LONG_PX = 12.0
#: A calibration whose table covers less of the frame than this is noted as wrong: even a 4K frame
#: then shows a 1000 x 600 mm table's 48 mm tiles under 20 px long (a 720p one under 8 px), and a corner
#: typed wrong (helper-187: 99999 for 999) or a profile for another camera leaves 0 %.
MIN_TABLE_SHARE = 0.01
#: What the tile table's columns mean (printed under the tables and in ``--help``) ...
COLUMNS = ("columns: conf = det x the weaker half's reading confidence (face down: det), 0-1; halves = each "
           "half's reading confidence, 0-1; det = the detector's score, 0-1; centre px = image pixels (x right, "
           "y down)")
#: ... and those of a calibrated run.
COLUMNS_MM = ("; centre mm = on the table from its corner (0,0); angle = the long axis, first half to second, in "
              "degrees from the table's x axis (corner (0,0) to (W,0)) towards +y")


class CrossCheck(str, Enum):
    """Which halves the classical counter cross-checks."""

    all = "all"
    uncertain = "uncertain"
    none = "none"


_UP, _DOWN, _FLAG = (60, 200, 60), (200, 140, 40), (40, 40, 230)  # BGR


#: What a ``--models`` folder holds.
DEFAULT_MODEL_NAMES = "tile_detector.onnx, pip_reader.onnx and tile_verifier.onnx"
#: More onnxruntime threads than this only cost memory (each model gets ``--threads``).
MAX_THREADS = 64


def _make_recognizer(models: Optional[Path], threads: int, n_sets: int, cross_check: str):
    """Build the recognizer (tests replace this to run without model files)."""
    from vision.recognize import DEFAULT_DETECTOR, DEFAULT_PIP_READER, DEFAULT_VERIFIER, Recognizer

    det = models / DEFAULT_DETECTOR.name if models else None
    pip = models / DEFAULT_PIP_READER.name if models else None
    ver = models / DEFAULT_VERIFIER.name if models else None
    rec = Recognizer(det, pip, threads=threads, n_sets=n_sets, cross_check=cross_check, verifier_path=ver)
    rec.reader.top_checks = None  # one picture: every sure 6 is counted for a larger set's halves
    return rec


def annotate(frame: np.ndarray, tiles: list) -> np.ndarray:
    """Draw tile polygons and pip values on a copy of a (H, W, 3) uint8 BGR frame.

    Face-up tiles are green, face-down blue, flagged tiles red; each half's value is
    written at the half's centre, face-down tiles get ``?``.
    """
    import cv2

    out = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    for t in tiles:
        p = np.asarray(t.polygon_px, np.float32)
        colour = _FLAG if t.flags and t.flags != ["frame_edge"] else (_UP if t.face == "up" else _DOWN)
        long_px = float(np.linalg.norm(p[1] - p[0]))
        thick = max(1, int(round(long_px / 40)))
        cv2.polylines(out, [np.round(p - 0.5).astype(np.int32)], True, colour, thick, cv2.LINE_AA)
        scale = max(0.35, long_px / 90)
        if t.face == "up" and t.pips is not None:
            centres = [(p[0] + p[3]) * 0.375 + (p[1] + p[2]) * 0.125, (p[0] + p[3]) * 0.125 + (p[1] + p[2]) * 0.375]
            labels = [str(v) for v in t.pips]
        else:
            centres, labels = [p.mean(0)], ["?"]
        for c, s in zip(centres, labels):
            (w, h), _ = cv2.getTextSize(s, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
            org = (int(c[0] - w / 2), int(c[1] + h / 2))
            cv2.putText(out, s, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), thick + 2, cv2.LINE_AA)
            cv2.putText(out, s, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)
    return out


def _table(label: str, tiles: list, calibrated: bool) -> Table:
    t = Table(title=f"{label}: {plural(len(tiles), 'tile')}", title_justify="left")
    cols = ["#", "face", "pips", "conf", "halves", "det", "centre px"]
    cols += ["centre mm", "angle"] if calibrated else []
    for c in cols + ["flags"]:
        t.add_column(c, overflow="fold")  # a narrow terminal or a pipe wraps values, never cuts them
    for i, o in enumerate(tiles, 1):
        c = o.center_px
        row = [str(i), o.face, "-" if o.pips is None else f"{o.pips[0]}|{o.pips[1]}", f"{o.confidence:.2f}",
               "-" if o.half_confidence is None else " ".join(f"{v:.2f}" for v in o.half_confidence),
               f"{o.det_score:.2f}", f"{c[0]:.0f},{c[1]:.0f}"]
        if calibrated:
            row += [f"{o.center_mm[0]:.1f},{o.center_mm[1]:.1f}", f"{o.angle_deg:.1f}"]
        row.append(f"[red]{' '.join(o.flags)}[/]" if o.flags else "")
        t.add_row(*row)
    return t


def _annotate_paths(out: Path, images: list[Path]) -> list[Path]:
    """``--annotate`` file per image: OUT itself for one image, else ``OUT_<stem>``, and
    ``OUT_<stem>-2``, ``-3``... for images of the same name in other folders (none overwritten)."""
    if len(images) == 1:
        return [out]
    used: set[str] = set()
    paths = []
    for image in images:
        tag, k = image.stem, 1
        while tag in used:  # b/img.jpg -> img-2, and c/img-2.jpg then -> img-2-2
            k += 1
            tag = f"{image.stem}-{k}"
        used.add(tag)
        paths.append(out.with_name(f"{out.stem}_{tag}{out.suffix or '.png'}"))
    return paths


def detect(
    images: list[Path] = typer.Argument(..., parser=path_parser, help="Image files (PNG, JPEG, ...)."),
    calibration: Optional[Path] = typer.Option(None, "--calibration", parser=path_parser,
                                               help="Table profile (JSON) for mm output."),
    json_out: Optional[Path] = typer.Option(None, "--json", parser=path_parser,
                                            help="Write the tiles as JSON to this file: a list of tiles "
                                                 "for one image, one {image, tiles} per image for several; in_glare: "
                                                 "read in or by clipped white, its pips may be misread."),
    annotate_out: Optional[Path] = typer.Option(None, "--annotate",
                                                parser=path_parser,
                                                help="Draw tiles on the image (OUT_<stem>.png with several)."),
    models: Optional[Path] = typer.Option(None, "--models", parser=path_parser,
                                          help=f"Folder with {DEFAULT_MODEL_NAMES}."),
    tile_px: Optional[float] = typer.Option(None, "--tile-px",
                                            help="Tile long side in pixels (default: search); a note says "
                                                 "when the tiles found measure far off it."),
    sets: int = typer.Option(1, "--sets", help="Complete double-six sets on the table."),
    threads: int = typer.Option(1, "--threads", help="onnxruntime threads per model."),
    cross_check: CrossCheck = typer.Option(CrossCheck.uncertain, "--cross-check",
                                           help="Halves the classical pip counter checks "
                                                "(uncertain: those the network is < 0.9 sure of)."),
) -> None:
    """Recognize the domino tiles (position, face, pips) in one or more images (``--help``: :data:`_HELP`)."""
    import cv2

    from calibration.errors import CalibrationError
    from calibration.profile import MIN_TILE_PX
    from vision.recognize import ModelsMissingError, off_table_message

    check_sets(sets)
    if not 1 <= threads <= MAX_THREADS:
        raise fail(f"--threads must be 1-{MAX_THREADS}, got {threads}")
    check_positive("--tile-px", tile_px, "pixels")
    if tile_px is not None and tile_px < MIN_TILE_PX:
        raise fail(f"--tile-px must be at least {MIN_TILE_PX:g} (a tile's long side in pixels; pips are unreadable "
                   f"below), got {tile_px:g}")
    if json_out is not None:
        check_out_file("--json", json_out, "tiles.json")
    if annotate_out is not None:
        check_out_file("--annotate", annotate_out, "annotated.png")
    if models is not None and models.exists() and not models.is_dir():
        raise fail(f"--models {models} is not a folder (it holds {DEFAULT_MODEL_NAMES})")
    images = _once_each(images)
    shots = _annotate_paths(annotate_out, images) if annotate_out is not None else []  # OUT_<stem> for several
    check_distinct_outputs([("--json", json_out)] + [("--annotate", p) for p in shots],
                           [("one of the input images", i) for i in images]
                           + [("the --calibration profile", calibration)])
    check_replaceable("--json", json_out, "a tile list of `detect`")
    for shot in shots:
        check_replaceable("--annotate", shot, "a picture")
    # the suffix alone decides, and OpenCV crashed on a name that is not UTF-8 (helper-149)
    if annotate_out is not None and not cv2.haveImageWriter("x" + (annotate_out.suffix or ".x")):
        raise fail(f"--annotate {annotate_out}: OpenCV cannot write this file type (use .png or .jpg)")
    profile = None
    if calibration is not None:
        from calibration.profile import load_profile

        try:
            profile = load_profile(calibration)
        except CalibrationError as exc:
            raise fail(" ".join(str(exc).split())) from None
        if profile.homography is None or profile.table_size_mm is None:  # lens only: no mm, no tile size
            lens = f" --lens {calibration}" if profile.has_lens else ""
            raise fail(f"{calibration}: profile has no table calibration{' (lens only)' if lens else ''}; run "
                       f"`dominocast calibrate table IMAGE{lens} --out TABLE.json ...` and pass that")
    misfit = _calibration_misfit(profile, calibration) if profile is not None else None
    try:
        rec = _make_recognizer(models, threads, sets, cross_check.value)
    except ModelsMissingError as exc:
        raise fail(str(exc)) from None
    except (OSError, ValueError) as exc:  # e.g. a file that is not an ONNX model
        raise fail(f"cannot load the models: {' '.join(str(exc).split())}") from None

    several = len(images) > 1
    records: list[dict] = []
    written: list[Path] = []  # the --annotate pictures written
    earlier = {p for p in shots if p.exists()}  # pictures these replace (check_replaceable let only pictures by)
    # a scale given and not one a broken calibration gives: checked against the tiles found
    given = tile_px or (None if profile is None or misfit else profile.tile_px_at_centre())
    try:
        tally = _detect_each(images, rec, profile, tile_px, records, shots, written,
                             given, "--tile-px" if tile_px else str(calibration))
    except KeyboardInterrupt:  # keep what was done: the JSON of the images read so far
        _write_json(json_out, records, several)
        where = f"; their tiles are in {json_out}" if json_out is not None and records else ""
        err_console.print(f"interrupted after {plural(len(records), 'image')} of {len(images)}{where}",
                          highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(code=130) from None
    if tally.listed:
        console.print(COLUMNS + (COLUMNS_MM if profile is not None else ""), markup=False, highlight=False,
                      soft_wrap=True)
    if misfit:
        console.print(f"note: {misfit}", markup=False, highlight=False, soft_wrap=True)
    for line in tally.scale_notes:
        console.print(f"note: {line}", markup=False, highlight=False, soft_wrap=True)
    empty = tally.empty
    if empty and tile_px is None and profile is None:
        console.print(f"note: no tile found in {plural(empty, 'image')} with the tile size searched; if tiles "
                      "are there, give their length in pixels with --tile-px N (or a --calibration profile)",
                      markup=False, highlight=False)
    elif empty and tile_px is not None:  # helper-86: --tile-px 500 found nothing, and said nothing
        console.print(f"note: no tile found in {plural(empty, 'image')} at --tile-px {tile_px:g}; is that a tile's "
                      "length in pixels in these images? (leave it out to search the size)", markup=False,
                      highlight=False)
    if tally.off_table:
        console.print(f"note: {off_table_message(tally.off_table, str(calibration))}", markup=False,
                      highlight=False, soft_wrap=True)
    if tally.duplicates and sets == 1:  # not those of an image read at a wrong scale: its note says why
        console.print(f"note: {plural(tally.duplicates, 'tile')} read twice in one image (flag duplicate): if the "
                      "table holds more than one set, pass --sets 2; if not, one of the two is not a real tile "
                      "(a printed picture?) or is misread", markup=False, highlight=False)
    if tally.beyond:  # helper-187: a double-twelve 12|9 read 6|6 with no word
        from vision.pip_reader import beyond_set_message

        max_pips = getattr(getattr(rec, "reader", None), "max_pips", 6)
        console.print(f"note: {beyond_set_message(tally.beyond, max_pips)}", markup=False, highlight=False,
                      soft_wrap=True)
    if _write_json(json_out, records, several):  # on stdout after the tables, as `calibrate` says what it wrote
        read = [r["tiles"] for r in records if "error" not in r]
        console.print(f"wrote {plural(sum(map(len, read)), 'tile')} in {plural(len(read), 'image')} to {json_out}",
                      markup=False, highlight=False, soft_wrap=True)
    elif json_out is not None and json_out.is_file():  # a script must not take an earlier run's tiles for these
        err_console.print(f"note: {json_out} was not written (the image could not be read): it still holds "
                          "an earlier run's tiles", markup=False, highlight=False, soft_wrap=True)
    new = [p for p in written if p not in earlier]
    if new:  # helper-148: several images' pictures go to OUT_<stem>, which only --help said
        console.print(f"wrote {plural(len(new), 'annotated picture')}: {', '.join(map(str, new))}",
                      markup=False, highlight=False, soft_wrap=True)
    if replaced := [p for p in written if p in earlier]:  # as `calibrate markers` says it (helper-220)
        console.print(f"replaced {plural(len(replaced), 'picture')} by the annotated "
                      f"{'one' if len(replaced) == 1 else 'ones'}: {', '.join(map(str, replaced))}",
                      markup=False, highlight=False, soft_wrap=True)
    if tally.bad:
        raise typer.Exit(code=2)


_HELP = f"""Recognize the domino tiles (position, face, pips) in one or more images.

Table {COLUMNS}; with --calibration also {COLUMNS_MM[2:]}.

With --tile-px or --calibration, a note says when the tiles found measure far off (over 1.5x) that
tile size (and names their size), or when the calibration's table covers almost none of the picture."""


def _calibration_misfit(profile, calibration: Path) -> str | None:
    """What is wrong with a table-calibrated ``profile`` (loaded from ``calibration``) for its own image
    size, in one line: its table covers under :data:`MIN_TABLE_SHARE` of the frame, or its tile comes out
    longer than the image (the largest ``--tile-px``); None when neither. A tile under
    :data:`calibration.profile.MIN_TILE_PX` never gets here: such a profile is refused on load.
    helper-187: corners typed wrong gave 0 or 6 of 28 tiles and no word."""
    from vision.recognize import table_share

    w, h = profile.image_size
    with np.errstate(all="ignore"):  # a degenerate homography: inf / nan, caught below
        share, px = table_share(profile, (h, w)), profile.tile_px_at_centre()
    if share >= MIN_TABLE_SHARE and px <= max(w, h):
        return None
    return (f"{calibration}: its table covers {100 * share:.1f} % of the {w}x{h} px frame and its "
            f"{profile.tile_size_mm.length:g} mm tile comes out {px:.3g} px long at the table's centre: check the "
            f"calibration (`dominocast calibrate show {calibration}`; redo it with `dominocast calibrate table`)")


def _scale_note(label: str, measured: float, given: float, source: str, profile) -> str:
    """One line: the tiles of image ``label`` measure ``measured`` px, not the ``given`` px of ``source``
    (``--tile-px``, or the calibration's path, whose tile is then named in mm). A measure under
    :data:`BOXED_LONG_PX` is said to be an upper bound (helper-195: 6.6 px tiles "measure about 12 px")."""
    from calibration.profile import MIN_TILE_PX

    small = measured < BOXED_LONG_PX
    bound = "at most about" if small else "about"
    why = (f" (a tile this small may be boxed with the blur around it, and be under the {MIN_TILE_PX:g} px whose "
           "pips can be read: a closer camera or a larger picture reads it)") if small else ""
    if source == "--tile-px":
        return (f"{label}: the tiles in the picture measure {bound} {measured:.0f} px long, not the {given:g} px of "
                f"--tile-px{why}: pass --tile-px {max(measured, MIN_TILE_PX):.0f}, or leave it out to search the size")
    mm = profile.tile_size_mm.length
    return (f"{label}: the tiles in the picture measure {bound} {measured:.0f} px long "
            f"({'at most ' if small else ''}{measured * mm / given:.0f} mm at the table's scale){why}, but "
            f"{source}'s {mm:g} mm tile comes out {given:.0f} px: check its tile size (--tile-mm) and corners, and redo it with "
            "`dominocast calibrate table`")


def _write_json(json_out: Path | None, records: list[dict], several: bool) -> bool:
    """``--json``: the tiles of one image (a list), or one ``{image, tiles}`` per image; True when written.

    One image that could not be read writes nothing: ``[]`` would read as "no tiles"."""
    if json_out is None or (not several and (not records or "error" in records[0])):
        return False
    doc = records if several else (records[0]["tiles"] or [])
    try:
        write_text_atomic(json_out, json.dumps(doc, indent=1) + "\n")  # an earlier list stays whole if this fails
    except OSError as exc:
        raise fail(f"{json_out}: cannot write ({exc.strerror or exc})") from None
    return True


def _once_each(images: list[Path]) -> list[Path]:
    """``images`` without a file given again (the same file by another path too), in order; each
    repeat gets one note line (helper-87: the same photo twice gave two records of it)."""
    seen: set[Path] = set()
    out = []
    for image in images:
        key = image.resolve()
        if key in seen:
            console.print(f"note: {image} is given more than once: read once", markup=False, highlight=False)
            continue
        seen.add(key)
        out.append(image)
    return out


@dataclass
class _Tally:
    """What :func:`_detect_each` counted over the images."""

    bad: int = 0  #: images that failed (one error line each)
    duplicates: int = 0  #: tiles flagged duplicate, in images read at a right scale
    off_table: int = 0  #: boxes dropped off the calibrated table
    empty: int = 0  #: images read with no tile, and no scale note
    listed: int = 0  #: tables printed with at least one tile
    scale_notes: list[str] = field(default_factory=list)  #: one per image read at a wrong scale
    beyond: int = 0  #: tiles with more pips on a half than the models read (a larger set's)


def _detect_each(images: list[Path], rec, profile, tile_px: float | None, records: list[dict],
                 shots: list[Path], written: list[Path], given: float | None = None,
                 source: str = "--tile-px") -> _Tally:
    """Recognize each image, print its table, append its record, write its ``--annotate`` picture
    (each one written is appended to ``written``).

    ``given``: the tile size (px) the images are read at, from ``source`` (``--tile-px`` or the
    calibration's path); when set, the recognizer's ``scale_check`` (none on a test's fake) measures the
    tiles found against it. A bad image is one error line.
    """
    import cv2

    from calibration.errors import CalibrationError
    from calibration.images import load_image, transparency_note, write_image
    from vision.exposure import clipped_mask, glared_reads_message, overexposed, overexposed_message, read_in_glare

    def say(line: str) -> None:  # on stderr with the errors: about the input, not its tiles
        err_console.print(line, highlight=False, markup=False, soft_wrap=True)

    tally = _Tally()
    check = getattr(rec, "scale_check", None) if given else None
    names = Counter(p.name for p in images)
    for k, image in enumerate(images):
        label = image.name if names[image.name] == 1 else str(image)  # same names: say which folder
        try:
            frame = load_image(image, on_transparent=lambda share, path=image: say(
                f"note: {transparency_note(path, share)}"))
            clipped = clipped_mask(frame)  # once: the share, and the tiles read in or by glare
            if (share := overexposed(frame, clipped)) is not None:
                say(f"warning: {image}: {overexposed_message(share)}")
            if tile_px is not None and tile_px > max(frame.shape[:2]):
                raise ValueError(f"--tile-px {tile_px:g} is longer than the image ({frame.shape[1]}x{frame.shape[0]} "
                                 "px): give a tile's long side in this image's pixels")
            tiles = rec(frame, profile, tile_px=tile_px)
            measured = check(frame, tiles, given) if check is not None else None
        except (CalibrationError, ValueError, TypeError) as exc:
            msg = " ".join(str(exc).split())  # OpenCV's messages span lines (a name's own line breaks too)
            fail(msg if " ".join(str(image).split()) in msg else f"{image}: {msg}")
            records.append({"image": str(image), "error": msg, "tiles": None})
            tally.bad += 1
            continue
        tally.off_table += getattr(rec, "last_off_table", 0)
        # a glare too small to overexpose the picture can still wash out a tile's pips (a 4-4 read 2-3)
        glared = [read_in_glare(clipped, t.polygon_px) for t in tiles]
        if any(glared):
            say(f"warning: {image}: {glared_reads_message(sum(glared), len(tiles))}")
        console.print(_table(label, tiles, profile is not None))
        records.append({"image": str(image), "tiles": [t.to_json() | {"in_glare": g} for t, g in zip(tiles, glared)]})
        tally.listed += bool(tiles)
        if measured:
            tally.scale_notes.append(_scale_note(label, measured, given, source, profile))
        else:
            tally.duplicates += sum(FLAG_DUPLICATE in t.flags for t in tiles)
            tally.empty += not tiles
        tally.beyond += sum("pips_beyond_set" in t.flags for t in tiles)  # vision.pip_reader.FLAG_PIPS_BEYOND_SET
        if shots:
            dst = shots[k]
            try:
                dst.parent.mkdir(parents=True, exist_ok=True)
                write_image(dst, annotate(frame, tiles))
                written.append(dst)
            except (OSError, cv2.error) as exc:
                fail(f"{dst}: cannot write ({getattr(exc, 'strerror', None) or ' '.join(str(exc).split())})")
                tally.bad += 1
    return tally


def register(app: typer.Typer) -> None:
    """Add the ``detect`` command to the main CLI."""
    app.command("detect", help=_HELP)(detect)
