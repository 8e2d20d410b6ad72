"""``dominocast review`` (recorded footage) and ``dominocast live`` (a camera, or a folder followed as photos
arrive): frames to a scored record."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from calibration.errors import CalibrationError
from engine.ruleset import RulesetError, load_ruleset
from service.cli_common import (check_positive, check_sets, check_writable, console, err_console, fail, make_folder,
                                path_parser, plural)
from service.review import SourceFailed, run_review
from service.review_folder import PREVIOUS, check_review_folder, moved_by_review, review_files, review_output_video
from service.review_summary import SKIPPED_WHY, ReviewSummary
from service.video_out import VIDEO_NAMES
from vision.folder_follow import FollowedFolderSource
from vision.recognize import ModelsMissingError, Recognizer, check_profile
from vision.sources import (IMAGE_SUFFIXES, ImageFolderSource, LiveSource, SourceError, file_url_path, is_stream_url,
                            open_source)


#: Largest camera index `live` accepts (OpenCV takes a C int; real machines have a few cameras).
MAX_CAMERA_INDEX = 9999


def _setup(rules: str, calibration: Path | None, sets: int = 1):
    try:
        ruleset = None if rules == "none" else load_ruleset(rules)
    except RulesetError as exc:
        raise fail(f"{exc}; or none (placements only, no rules)" if "presets:" in str(exc) else str(exc))
    profile = None
    if calibration is not None:
        from calibration.profile import TableProfile

        try:
            profile = TableProfile.load(calibration)
        except (CalibrationError, OSError, ValueError) as exc:
            raise fail(str(exc) if str(calibration) in str(exc) else f"{calibration}: {exc}")
    try:
        recognizer = Recognizer(threads=2, n_sets=sets)
    except ModelsMissingError as exc:
        raise fail(str(exc))
    except ValueError as exc:  # a model file onnxruntime cannot load
        raise fail(f"cannot load the models: {' '.join(str(exc).split())}") from None
    _check_set(rules, ruleset, recognizer.reader.max_pips)
    return ruleset, profile, recognizer.bind(profile)


def _check_set(rules: str, ruleset, max_pips: int) -> None:  # noqa: ANN001 - a Ruleset or None
    """A rule set whose tiles the pip reader can read (``set_max`` up to its ``max_pips``: 6, models/pip_reader.md
    "Double-six sets only"), else fail in one line (exit 2), as ``--sets`` the rules cannot play is refused: a
    double-twelve game (datasets footage makes them) was reviewed to 7 of its 62 plays with no word why
    (helper-179)."""
    if ruleset is not None and ruleset.set_max > max_pips:
        raise fail(f"--rules {rules}: {ruleset.name} plays a double-{ruleset.set_max} set (set_max = "
                   f"{ruleset.set_max}), but the models read pips 0..{max_pips} only (models/pip_reader.md), so tiles "
                   f"with more pips would be misread or missed and the score would be wrong; only double-{max_pips} "
                   "footage can be reviewed")


#: The lock file a review holds in its output folder (:func:`_hold_output_folder`).
LOCK_NAME = ".review.lock"


def _hold_output_folder(out: Path, src):  # noqa: ANN001, ANN202 - a source; returns the held FileLock
    """Lock ``out`` for this review (``out/.review.lock``, released by the OS when the process ends): two
    reviews into one folder at once mixed their files, one's events moved to previous/partial/ and its
    report among the other's snapshots (helper-124). Fails in one line when another review holds it."""
    from filelock import FileLock, Timeout

    lock = FileLock(out / LOCK_NAME)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        src.close()
        raise fail(f"--out {out} is being written by another review: wait for it to finish, or choose another "
                   "folder") from None
    return lock


def _fix_tile_size(src, recognizer) -> None:  # noqa: ANN001 - ImageFolderSource or VideoFileSource, Recognizer
    """Without a calibration, one tile size for the whole folder or video (one camera set-up), measured on
    up to ``FOLDER_SIZE_PHOTOS`` of its photos or frames spread over it, rather than searched again on each
    (helper-159: a video's frame 8 settled on 461 px for 53 px tiles, and a hand row of face-down tiles
    became one face-up 0|0 lead)."""
    from vision.recognize import FOLDER_SIZE_PHOTOS, folder_tile_px

    images = list(src.sample(FOLDER_SIZE_PHOTOS))
    size = folder_tile_px(recognizer, images)
    if size is not None:
        recognizer.tile_px = size
        what = "photo" if isinstance(src, ImageFolderSource) else "frame"
        err_console.print(f"note: no --calibration: tiles taken as {size:.0f} px long in every {what} (measured on "
                          f"{len(images)} of them)", highlight=False, markup=False, soft_wrap=True)


def _missing_folders(out: Path) -> list[Path]:
    """``out`` and the folders above it that do not exist yet, deepest first: what creating it makes."""
    return [p for p in (out, *out.parents) if not p.exists() and not p.is_symlink()]


def _leave_as_found(created: list[Path], lock=None, lock_file: Path | None = None) -> None:  # noqa: ANN001
    """Undo what a live session stopped before anything came made (helper-249: an empty folder followed, then
    Ctrl-C, left ``.review.lock`` and a new ``--out`` behind): ``lock_file`` (the lock's, when this session made
    it) is removed while still held, then ``lock`` (a FileLock) released, then the folders ``created`` (deepest
    first, :func:`_missing_folders`) removed while empty: a file written in one keeps it and those above."""
    if lock_file is not None:
        lock_file.unlink(missing_ok=True)
    if lock is not None:
        lock.release()
    for folder in created:
        try:
            folder.rmdir()
        except OSError:  # not empty: something of the session's (a photo's error row) or the user's is in it
            return


def _output_folder(out: Path, keep_events: bool, create: bool = True) -> None:
    """Create the output folder (only check it when ``create`` is False), or fail with one line.

    ``keep_events``: refuse a folder that already holds events or a video (a live session cannot
    be recorded again; a review can be re-run from its footage, so it replaces the outputs of an
    earlier review in the folder: ``service.review_folder``).
    """
    if out.exists() and not out.is_dir():
        raise fail(f"--out {out} is a file, not a folder")
    if not out.exists() and (blocked := next((p for p in out.parents if p.exists() and not p.is_dir()), None)):
        raise fail(f"--out {out} lies under {blocked}, which is a file, not a folder")  # said before the slow work
    if (broken := next((p for p in (out, *out.parents) if p.is_symlink() and not p.exists()), None)) is not None:
        raise fail(f"--out {out}: {broken} is a link to {os.readlink(broken)}, which does not exist")  # helper-138
    events = out / "events.jsonl"
    if keep_events and ((events.is_file() and events.stat().st_size) or any((out / v).exists() for v in VIDEO_NAMES)):
        raise fail(f"--out {out} already holds the events or video of an earlier session: choose another folder")
    if out.is_dir():
        try:  # a file named previous/ or snapshots/, a folder named events.jsonl
            check_review_folder(out)
        except ValueError as exc:
            raise fail(str(exc)) from None
    if create:
        make_folder("--out", out)  # which checks that it can be written in
    else:
        check_writable("--out", out)


#: Flags listed one per line under a review's counts (the rest: events.jsonl, report.html).
MAX_FLAG_LINES = 10


def _print_summary(s: ReviewSummary) -> None:
    if not s.free_form:  # --rules none: placements only, nothing is scored
        title = s.heading()  # flags on a final score: the umpire may still rule on them (a penalty)
        t = Table(title=title, min_width=len(title) + 2)  # the title on one line
        t.add_column("side")
        t.add_column(s.score_unit)
        for side, pts in s.score.items():
            t.add_row(side, str(pts))
        console.print(t)
    speed = "" if s.photos or not s.wall_s else f" ({s.footage_s / s.wall_s:.1f}x real time)"
    skipped = f", {plural(len(s.skipped), 'image')} skipped ({SKIPPED_WHY})" if s.skipped else ""
    console.print(f"{'partial: ' * (s.partial and s.free_form)}{s.counts_text()}, {plural(s.flags, 'flag')}, "
                  f"{plural(s.frames, s.seen_unit)} ({s.reads} read){skipped} in {s.wall_s:.1f} s{speed}")
    for line in s.flag_lines[:MAX_FLAG_LINES]:  # for the umpire: what to look at, and when
        console.print(f"  flag {line}", markup=False, highlight=False, soft_wrap=True)
    if len(s.flag_lines) > MAX_FLAG_LINES:
        console.print(f"  ... and {len(s.flag_lines) - MAX_FLAG_LINES} more flags (events.jsonl, report.html)",
                      markup=False, highlight=False)
    for line in s.lines():  # the hand's status and warnings that make the score doubtful
        console.print(line, markup=False, soft_wrap=True)  # one line each in a log, whatever $COLUMNS says
    for name, path in s.files.items():
        console.print(f"{name:>10}: {path}")


def review(
    source: str = typer.Argument(..., help="video file or folder of photos (a time-lapse, one per move)"),
    rules: str = typer.Option(..., "--rules", help="rule-set preset, or 'none' for placements only"),
    calibration: Path = typer.Option(None, "--calibration", parser=path_parser,
                                     help="table calibration profile (JSON)"),
    out: str = typer.Option("review", "--out", help="output folder"),
    interval: float = typer.Option(1.0, "--interval", help="seconds between photos of a folder"),
    no_video: bool = typer.Option(False, "--no-video", help="skip the annotated video"),
    sets: int = typer.Option(1, "--sets", help="complete double-six sets on the table (each tile exists this many "
                             "times); more than 1 with --rules none only: the rule presets play one set"),
) -> None:
    """Review recorded footage: events.jsonl, record.json, annotated.webm and report.html in OUT.

    A photo in the folder that cannot be decoded is skipped: one error line, exit code 2 at the end.

    Ctrl-C stops the review, writes the partial record and report, prints them as a finished review does (the
    score, not final, the flags and warnings so far), and exits 130.
    """
    try:
        _review(source, rules, calibration, _out_path(out), interval, no_video, sets)
    except KeyboardInterrupt:  # before the review started, or while it wrote its files
        err_console.print("interrupted", highlight=False)
        raise typer.Exit(code=130) from None
    except PermissionError as exc:  # an unreadable source folder, a read-only file in --out
        raise fail(f"{exc.filename or source}: permission denied") from None
    except OSError as exc:  # helper-144: the disk filled up during the review (an earlier one stays in previous/)
        kept = Path(out) / PREVIOUS
        earlier = f"; the earlier review is in {kept}" if review_files(kept) else ""  # said (helper-154)
        raise fail(f"{exc.filename or out}: {exc.strerror or exc}; the review stopped (its events so far are in "
                   f"{Path(out) / 'events.jsonl'}){earlier}") from None


def _review(source: str, rules: str, calibration: Path | None, out: Path, interval: float, no_video: bool,
            sets: int = 1) -> None:
    if not source.strip():  # Path("") is the current folder, which was reviewed (helper-151)
        raise fail("the source is empty: `dominocast review` takes a video file or a folder of photos "
                   "(. for the current folder)")
    check_positive("--interval", interval, "seconds")
    check_sets(sets, rules)
    if Path(source).exists() and moved_by_review(Path(source), out):  # helper-64: the input was lost
        raise fail(f"{source} lies among the files a review into --out {out} moves aside or replaces: "
                   "choose another --out, or move the footage out of that folder first")
    if Path(source).is_file() and review_output_video(Path(source)):
        raise fail(f"{source} is a review's annotated video (its events.jsonl lies beside it), drawn over: review "
                   "the footage that review read")
    if Path(source).is_file() and Path(source).suffix.lower() in IMAGE_SUFFIXES:
        raise fail(f"{source} is one photo: `dominocast review` takes a video or a folder of photos (a "
                   f"time-lapse); for the tiles in one photo use `dominocast detect {source}`")
    # before the slow work (the models, a folder's tile size measured on its photos): an --out that
    # cannot be the output folder is said at once, not after it
    _output_folder(out, keep_events=False, create=False)
    ruleset, profile, recognize = _setup(rules, calibration, sets)
    try:
        src = open_source(source, interval_s=interval)
    except SourceError as exc:
        raise fail(str(exc))
    if isinstance(src, LiveSource):
        raise fail(f"{source}: not a video file or folder (use `dominocast live` for cameras and streams)")
    if interval != 1.0 and not hasattr(src, "interval_s"):  # helper-87: taken for a video without a word
        err_console.print(f"warning: --interval spaces a folder's photos; {source} is a video, whose frames keep "
                          "their own times", highlight=False, markup=False, soft_wrap=True)
    shape = getattr(src, "frame_shape", None)
    if profile is not None and shape is not None:
        try:  # before the output folder is touched: an earlier review there stays as it was
            check_profile(profile, shape)
        except (CalibrationError, ValueError) as exc:
            src.close()
            raise fail(f"--calibration {calibration}: {exc}")
    if profile is None and isinstance(src, ImageFolderSource):
        src.rescale = True  # no calibration ties the photos to one camera size: scale those of the folder's shape
    total = len(src) if hasattr(src, "__len__") else getattr(src, "declared_frames", None)
    _output_folder(out, keep_events=False)
    lock = _hold_output_folder(out, src)  # noqa: F841 - held until the process ends
    if profile is None and hasattr(recognize, "recognizer") and hasattr(src, "sample"):
        # after the lock: a refused review says so in one line, before any slow work (helper-166)
        _fix_tile_size(src, recognize.recognizer)

    def on_row(row: dict) -> None:
        if row.get("kind") == "unreadable_image":
            fail(row["message"])  # one line as it happens; the review goes on and exits 2 at the end

    seen = "photos" if isinstance(src, ImageFolderSource) else "frames"
    with Progress(TextColumn("reviewing"), BarColumn(), TextColumn(f"{{task.completed}}/{{task.total}} {seen}"),
                  TimeRemainingColumn(), console=console, transient=True,
                  disable=not console.is_terminal) as bar:  # piped or logged: no bar, and no blank line it leaves
        task = bar.add_task("frames", total=total)
        try:
            summary = run_review(src, ruleset, recognize, out, profile, title=f"Review of {Path(source).name}",
                                 progress=lambda n: bar.update(task, completed=n), annotate=not no_video,
                                 on_row=on_row)
        except (SourceError, ValueError, CalibrationError) as exc:  # e.g. a photo of another size than the profile
            raise fail(f"{exc} (events so far are in {out / 'events.jsonl'})")
        finally:
            src.close()
    if summary.interrupted:
        err_console.print(f"interrupted at {summary.footage_s:.1f} s of footage; {'partial ' * summary.partial}"
                          f"results in {out}",
                          highlight=False, markup=False, soft_wrap=True)
        # what was recorded so far, as a finished review says it: the score (not final), the flags, the warnings
        # and notes (helper-146: where an earlier review went; helper-172: the warnings were not said), the files
        _print_summary(summary)
        raise typer.Exit(code=130)
    _print_summary(summary)
    if summary.skipped:
        raise typer.Exit(code=2)


def live(
    source: str = typer.Argument(..., help="camera index (0, 1, ...), an RTSP/HTTP URL, or a folder of photos "
                                 "followed as they arrive (one per move)"),
    rules: str = typer.Option(..., "--rules", help="rule-set preset, or 'none' for placements only"),
    calibration: Path = typer.Option(None, "--calibration", parser=path_parser,
                                     help="table calibration profile (JSON)"),
    out: str = typer.Option(None, "--out", help="output folder (default: a new live-YYYYMMDD-HHMMSS "
                                                 "for each session: a session is never recorded over)"),
    no_video: bool = typer.Option(False, "--no-video", help="skip the annotated video"),
) -> None:
    """Score a live table: prints each event as it happens (Ctrl-C to stop and write the report).

    A folder is followed: its photos are read, then each new photo once it is written whole (a tethered camera,
    a phone syncing into it); a photo is scored when the next one has come (it is compared with the photos
    around it, to leave out a photo of another table), and Ctrl-C reads the last one before the report.

    Ctrl-C is how a session ends: exit code 0 (2 when a photo was skipped); stopped before any
    photo or frame came, one line says so and no record or report is written. A Ctrl-C before the session
    started, or a second one while the files are written, exits 130.
    """
    try:
        _live(source, rules, calibration, session_folder() if out is None else _out_path(out), no_video)
    except KeyboardInterrupt:  # before the session started: loading the models, opening the camera
        err_console.print("interrupted", highlight=False)
        raise typer.Exit(code=130) from None


def _out_path(out: str) -> Path:
    """``--out`` as a folder path; an empty one is refused (a Path of "" is the current folder, where
    the results would have landed among the user's files)."""
    if not out.strip():
        raise fail("--out is empty: name the output folder (. for the current one)")
    return Path(out)


def session_folder() -> Path:
    """``live-YYYYMMDD-HHMMSS`` (local time), or ``...-2``, ``-3`` when sessions start in the same
    second: the default output folder of a live session, one not there yet."""
    stem = time.strftime("live-%Y%m%d-%H%M%S")
    k = 1
    while (path := Path(stem if k == 1 else f"{stem}-{k}")).exists():
        k += 1
    return path


def _interrupted(message: str) -> typer.Exit:
    """``message`` on stderr in one line; returns the Exit(130) of a Ctrl-C to raise."""
    err_console.print(message, highlight=False, markup=False, soft_wrap=True)
    return typer.Exit(code=130)


def _stopped_empty(what: str, out: Path) -> None:
    """The one plain stdout line of a live session stopped before its first photo or frame (``what``: which did
    not come): nothing went wrong and nothing was watched, so there is no score to print and no record or report
    (helper-220: a ``source_error`` row "nothing could be read" and a 0-0 score table said otherwise). Exit 0."""
    console.print(f"stopped: {what}; nothing was recorded (no record.json or report.html in {out})",
                  highlight=False, markup=False, soft_wrap=True)


def _live(source: str, rules: str, calibration: Path | None, out: Path, no_video: bool) -> None:
    takes = ("`dominocast live` takes a camera index (0, 1, ...), a stream URL (rtsp://..., http://...) or a folder "
             "of photos to follow")
    if not source.strip():
        raise fail(f"the source is empty: {takes}")
    if (path := file_url_path(source)) is not None:  # OpenCV opens it as a stream that keeps "reconnecting"
        raise fail(f"{source} names a file, not a camera or a stream: {takes}; for recorded footage use "
                   f"`dominocast review {path}`")
    if source.isdigit() and int(source) > MAX_CAMERA_INDEX:
        raise fail(f"camera index {source} is out of range (0-{MAX_CAMERA_INDEX}): {takes}")
    if not source.isdigit() and not is_stream_url(source):
        path = Path(source)
        if path.is_dir():
            return _follow(path, rules, calibration, out, no_video)
        if path.is_file() and path.suffix.lower() in IMAGE_SUFFIXES:  # `review` takes no lone photo either
            raise fail(f"{source} is one photo: {takes}; put it in a folder to follow, or read its tiles with "
                       f"`dominocast detect {source}`")
        if path.is_file():
            raise fail(f"{source} is a file: {takes}; for recorded footage use `dominocast review {source}`")
        if not path.exists() and source.startswith("/dev/"):
            raise fail(f"{source}: no such camera device (is the camera plugged in?)")
        if not path.exists():  # an existing non-file (a device such as /dev/video0) is left to FFmpeg
            raise fail(f"{source}: no such folder, and neither a camera index nor a stream URL: {takes}")
    ruleset, profile, recognize = _setup(rules, calibration)
    spec: int | str = int(source) if source.isdigit() else source
    _output_folder(out, keep_events=True, create=False)
    src = LiveSource(spec)
    try:
        src.open()  # a camera or stream that is not there leaves no output folder behind
        if profile is not None:  # nor one whose frames are not the calibrated size
            check_profile(profile, src.frame_shape)
    except SourceError as exc:
        src.close()
        raise fail(str(exc))
    except (CalibrationError, ValueError) as exc:
        src.close()
        raise fail(f"--calibration {calibration}: {exc}")
    created = _missing_folders(out)
    _output_folder(out, keep_events=True)
    watch = _OutageWatch(src)
    try:
        summary = run_review(src, ruleset, recognize, out, profile, title=f"Live: {source}",
                             annotate=not no_video, on_row=lambda row: print(json.dumps(row), flush=True))
    except SourceError as exc:
        raise fail(str(exc))
    except KeyboardInterrupt:  # a second Ctrl-C while record.json and report.html were written
        events = out / "events.jsonl"  # flushed row by row as the session went
        if not events.is_file():
            raise _interrupted("interrupted") from None
        raise _interrupted(f"interrupted while the results were written: the events so far are in {events}; "
                           "record.json and report.html may be missing") from None
    finally:
        watch.stop()
        src.close()
    if summary.empty:
        _leave_as_found(created)
        return _stopped_empty(f"no frame came from {source}", out)
    try:
        if summary.interrupted:
            console.print("stopped")
        _print_summary(summary)
    except KeyboardInterrupt:  # run_review returned: every file is written, only the summary is cut short
        raise _interrupted(f"interrupted; the session's results are written in {out}") from None


def _follow(folder: Path, rules: str, calibration: Path | None, out: Path, no_video: bool) -> None:
    """``dominocast live FOLDER``: the folder's photos, then each new one (:class:`FollowedFolderSource`).

    Without a calibration the tile size is fixed as a review fixes a folder's (:func:`_fix_tile_size`): on the
    photos there at the start, or, in an empty folder, on the first photo that shows tiles enough once it has
    come (the photos before it are read searching the size, as each photo was before sizes were fixed). With
    one, the first photo must be of its size (a one-line error otherwise). There is no outage watch: a folder
    has no frames that stop, only photos not taken yet. The newest photo is scored when the next one comes, or once
    none has for :data:`vision.folder_follow.QUIET_S` seconds (judged as a folder's last). The first Ctrl-C stops
    following; the photos come and not read yet (one written whole just before it too: ``close(read_rest=True)``) and
    the photo kept back to compare with the next are read, then the report written as for a camera (a second Ctrl-C as
    for a camera). A folder removed or unreadable stops it the same way, the results marked partial; the score so far
    is printed, then an error line saying how many photos were read and why it stopped (exit code 2)."""
    import signal
    import threading

    if out.resolve() == folder.resolve():
        raise fail(f"--out {out} is the folder followed: choose another folder for the results")
    ruleset, profile, recognize = _setup(rules, calibration)
    _output_folder(out, keep_events=True, create=False)
    try:
        src = FollowedFolderSource(folder)
    except SourceError as exc:
        raise fail(str(exc))
    if profile is not None and len(src):  # the photos there: a profile of another size leaves no output folder
        from calibration.images import decode_image

        first = decode_image(src.files[0])
        try:
            if first is not None:
                check_profile(profile, first.shape)
        except (CalibrationError, ValueError) as exc:
            raise fail(f"--calibration {calibration}: {exc}")
    recognizer = getattr(recognize, "recognizer", None)
    if profile is None:
        src.rescale = True  # as a review: no calibration ties the photos to one camera size
    created, lock_file = _missing_folders(out), out / LOCK_NAME
    lock_made = not lock_file.exists()
    _output_folder(out, keep_events=True)
    lock = _hold_output_folder(out, src)  # held until the process ends, or released by _leave_as_found
    if profile is None and recognizer is not None and len(src):
        _fix_tile_size(src, recognizer)
    measured = profile is not None or recognizer is None or len(src) > 0

    def on_photo(frame) -> None:  # noqa: ANN001 - a Frame
        nonlocal measured
        if profile is not None and frame.index == 0:
            try:
                check_profile(profile, frame.image.shape)
            except (CalibrationError, ValueError) as exc:
                raise SourceError(f"--calibration {calibration}: {exc}") from None
        if not measured:
            from vision.recognize import folder_tile_px

            size = folder_tile_px(recognizer, [frame.image])
            if size is not None:
                recognizer.tile_px, measured = size, True
                err_console.print(f"note: no --calibration: tiles taken as {size:.0f} px long in every photo "
                                  f"(measured on {src.files[frame.index].name})", highlight=False, markup=False,
                                  soft_wrap=True)

    src.on_photo = on_photo
    err_console.print(f"following {folder}: {plural(len(src), 'photo')} there; each new photo is read once written "
                      f"whole, and scored when the next one comes or none has for {src.quiet_s:g} s (Ctrl-C to stop "
                      "and write the report)",
                      highlight=False, markup=False, soft_wrap=True)
    stopped = []

    def stop(*_) -> None:  # noqa: ANN002 - the first Ctrl-C: stop following, read what came, write the report
        stopped.append(True)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # a second one interrupts
        src.close(read_rest=True)  # a photo written whole just before it is read too

    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, stop) if main else None
    def on_row(row: dict) -> None:
        print(json.dumps(row), flush=True)
        if row.get("kind") == "unreadable_image":
            fail(row["message"])  # one line as it happens, as a review says it; exit code 2 at the end

    try:
        summary = run_review(src, ruleset, recognize, out, profile, title=f"Live: {folder}",
                             annotate=not no_video, on_row=on_row)
    except SourceError as exc:
        read = exc.summary.frames if isinstance(exc, SourceFailed) else 0
        if not read:  # e.g. the first photo of another size than the calibration's
            raise fail(f"{exc} (the events so far are in {out / 'events.jsonl'})")
        _print_summary(exc.summary)  # the folder went: the score so far, as a Ctrl-C prints it, then why it stopped
        raise fail(f"{exc}; the session stopped after {plural(read, 'photo')} read (its results are in {out})")
    except KeyboardInterrupt:  # a second Ctrl-C while the last photos were read or the files written
        events = out / "events.jsonl"
        if not events.is_file():
            raise _interrupted("interrupted") from None
        raise _interrupted(f"interrupted while the results were written: the events so far are in {events}; "
                           "record.json and report.html may be missing") from None
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
        src.close()
    for path in src.unread:  # still being written at the stop
        err_console.print(f"warning: {path} was not written whole when the session stopped: not read",
                          highlight=False, markup=False, soft_wrap=True)
    if summary.empty:
        _leave_as_found(created, lock, lock_file if lock_made else None)
        return _stopped_empty(f"no photo came {'whole ' if src.unread else ''}to {folder}", out)
    try:
        if summary.interrupted or stopped:
            console.print("stopped")
        _print_summary(summary)
    except KeyboardInterrupt:
        raise _interrupted(f"interrupted; the session's results are written in {out}") from None
    if summary.skipped:  # as a review of the folder: the photos skipped were each said in an error line
        raise typer.Exit(code=2)


class _OutageWatch:
    """Says on stderr, while it lasts, that the camera delivers no frame (the review itself hears
    nothing until frames come again, then records the outage as a ``source_outage`` notice), or that
    its picture has been the same to the bit for :data:`vision.sources.FROZEN_AFTER_S` (frozen)."""

    POLL_S = 0.5

    def __init__(self, src: LiveSource):
        import threading

        self._src, self._stop = src, threading.Event()
        self._thread = threading.Thread(target=self._run, name="dominocast-outage-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from vision.sources import FROZEN_AFTER_S

        told = frozen_told = None
        lost = frozen = False  # said, and not yet said to be over
        while not self._stop.wait(self.POLL_S):
            down = getattr(self._src, "down_since_s", None)
            if down is not None and down != told:
                err_console.print(f"the camera delivers no frame since {down:.1f} s: reconnecting (the events so "
                                  "far are kept)", highlight=False)
                told, lost = down, True
            elif down is None and lost:  # helper-66: the lines said when it went, never when it came back
                err_console.print("the camera delivers frames again", highlight=False)
                lost = False
            since, seconds = getattr(self._src, "frozen_s", (0.0, 0.0))
            if seconds >= FROZEN_AFTER_S and since != frozen_told:
                err_console.print(f"the camera's picture has not changed at all since {since:.1f} s: a frozen "
                                  "stream or capture? (plays made meanwhile are not seen)", highlight=False)
                frozen_told, frozen = since, True
            elif seconds == 0.0 and frozen and getattr(self._src, "picture_changes", 1):
                err_console.print("the camera's picture moves again", highlight=False)
                frozen = False

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(2 * self.POLL_S)


def register(app: typer.Typer) -> None:
    app.command()(review)
    app.command()(live)
