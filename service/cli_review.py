"""``dominocast review`` (recorded footage) and ``dominocast live`` (a camera): frames to a scored record."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from calibration.errors import CalibrationError
from engine.ruleset import RulesetError, load_ruleset
from service.cli_common import console, fail
from service.review import ReviewSummary, run_review
from vision.recognize import ModelsMissingError, Recognizer
from vision.sources import LiveSource, SourceError, open_source


def _setup(rules: str, calibration: Path | None):
    try:
        ruleset = None if rules == "none" else load_ruleset(rules)
    except RulesetError as exc:
        raise fail(str(exc))
    profile = None
    if calibration is not None:
        from calibration.profile import TableProfile

        try:
            profile = TableProfile.load(calibration)
        except (CalibrationError, OSError, ValueError) as exc:
            raise fail(str(exc) if str(calibration) in str(exc) else f"{calibration}: {exc}")
    try:
        recognizer = Recognizer(threads=2)
    except ModelsMissingError as exc:
        raise fail(str(exc))
    return ruleset, profile, (lambda image: recognizer(image, profile))


def _output_folder(out: Path, keep_events: bool) -> None:
    """Create the output folder, or fail with one line.

    ``keep_events``: refuse a folder that already holds events (a live session's events cannot
    be recorded again; a review can be re-run from its footage, so it may overwrite).
    """
    if out.exists() and not out.is_dir():
        raise fail(f"--out {out} is a file, not a folder")
    events = out / "events.jsonl"
    if keep_events and events.is_file() and events.stat().st_size:
        raise fail(f"--out {out} already holds the events of an earlier session: choose another folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fail(f"--out {out}: cannot create the folder ({exc.strerror or exc})")


def _print_summary(s: ReviewSummary) -> None:
    t = Table(title="Final score")
    t.add_column("side")
    t.add_column("points")
    for side, pts in s.score.items():
        t.add_row(side, str(pts))
    console.print(t)
    speed = s.footage_s / s.wall_s if s.wall_s else 0.0
    console.print(f"{s.plays} plays, {s.flags} flags, {s.frames} frames ({s.reads} read) in {s.wall_s:.1f} s "
                  f"({speed:.1f}x real time)")
    for name, path in s.files.items():
        console.print(f"{name:>10}: {path}")


def review(
    source: str = typer.Argument(..., help="video file or folder of photos (a time-lapse, one per move)"),
    rules: str = typer.Option(..., "--rules", help="rule-set preset, or 'none' for placements only"),
    calibration: Path = typer.Option(None, "--calibration", help="table calibration profile (JSON)"),
    out: Path = typer.Option(Path("review"), "--out", help="output folder"),
    interval: float = typer.Option(1.0, "--interval", help="seconds between photos of a folder"),
    no_video: bool = typer.Option(False, "--no-video", help="skip annotated.mp4"),
) -> None:
    """Review recorded footage: events.jsonl, record.json, annotated.mp4 and report.html in OUT."""
    ruleset, profile, recognize = _setup(rules, calibration)
    try:
        src = open_source(source, interval_s=interval)
    except SourceError as exc:
        raise fail(str(exc))
    if isinstance(src, LiveSource):
        raise fail(f"{source}: not a video file or folder (use `dominocast live` for cameras and streams)")
    total = len(src) if hasattr(src, "__len__") else getattr(src, "declared_frames", None)
    _output_folder(out, keep_events=False)
    with Progress(TextColumn("reviewing"), BarColumn(), TextColumn("{task.completed}/{task.total} frames"),
                  TimeRemainingColumn(), console=console, transient=True) as bar:
        task = bar.add_task("frames", total=total)
        try:
            summary = run_review(src, ruleset, recognize, out, profile, title=f"Review of {Path(source).name}",
                                 progress=lambda n: bar.update(task, completed=n), annotate=not no_video)
        except SourceError as exc:
            raise fail(f"{exc} (events so far are in {out / 'events.jsonl'})")
        finally:
            src.close()
    _print_summary(summary)


def live(
    source: str = typer.Argument(..., help="camera index (0, 1, ...) or an RTSP/HTTP URL"),
    rules: str = typer.Option(..., "--rules", help="rule-set preset, or 'none' for placements only"),
    calibration: Path = typer.Option(None, "--calibration", help="table calibration profile (JSON)"),
    out: Path = typer.Option(Path("live"), "--out", help="output folder"),
    no_video: bool = typer.Option(False, "--no-video", help="skip annotated.mp4"),
) -> None:
    """Score a live table: prints each event as it happens (Ctrl-C to stop and write the report)."""
    ruleset, profile, recognize = _setup(rules, calibration)
    spec: int | str = int(source) if source.isdigit() else source
    _output_folder(out, keep_events=True)
    src = LiveSource(spec)
    try:
        summary = run_review(src, ruleset, recognize, out, profile, title=f"Live: {source}",
                             annotate=not no_video, on_row=lambda row: print(json.dumps(row), flush=True))
    except SourceError as exc:
        raise fail(str(exc))
    except KeyboardInterrupt:
        console.print("stopped")
        return
    finally:
        src.close()
    _print_summary(summary)


def register(app: typer.Typer) -> None:
    app.command()(review)
    app.command()(live)
