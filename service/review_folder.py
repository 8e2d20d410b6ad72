"""The layout of a review's output folder: which files are a review's, and where an earlier review goes.

A folder holds one review: the files of an earlier one (the annotated video, ``record.json``,
``report.html``, ``events.jsonl``, snapshots) move to ``previous/`` when a new one starts
(:func:`keep_previous`), so a new review that fails loses nothing; an unfinished one goes to
``previous/partial/``, and a record corrected by hand is renamed, never replaced. Nothing else in
the folder is touched: it is the user's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from service.video_out import VIDEO_NAMES

#: Snapshot file names a review writes (only these are moved away by the next review).
SNAPSHOT_NAME = re.compile(r"\d{4,}_[a-z_]+\.jpg")
#: Sub-folder of ``--out`` where the files of the review before the present one are kept.
PREVIOUS = "previous"


#: The review's own files at the top of its folder (snapshots: :data:`SNAPSHOT_NAME` in ``snapshots/``).
REVIEW_FILES = (*VIDEO_NAMES, "record.json", "report.html", "events.jsonl")


def review_files(folder: Path) -> list[Path]:
    """The files a review writes that exist in ``folder``; nothing else there is the review's."""
    snaps = folder / "snapshots"
    return ([folder / n for n in REVIEW_FILES if (folder / n).is_file()]
            + (sorted(f for f in snaps.glob("*.jpg") if SNAPSHOT_NAME.fullmatch(f.name) and f.is_file())
               if snaps.is_dir() else []))


def moved_by_review(path: Path, out_dir: Path) -> bool:
    """Whether a new review into ``out_dir`` would move or replace ``path`` (links followed): one of
    its output files, or anything under its ``snapshots/`` or ``previous/`` (:func:`keep_previous`)."""
    p, out = Path(path).resolve(), Path(out_dir).resolve()
    managed = [out / n for n in REVIEW_FILES] + [out / "snapshots", out / PREVIOUS]
    return any(p == m or m in p.parents for m in managed)


def review_output_video(path: Path) -> bool:
    """Whether ``path`` is a review's own annotated video (named as :data:`service.video_out.VIDEO_NAMES`, its
    ``events.jsonl`` beside it): its drawn overlays read as tiles (helper-248: N 0 S 0, 5 plays, 12 flags)."""
    p = Path(path)
    return p.name in VIDEO_NAMES and (p.parent / "events.jsonl").is_file()


#: Sub-folder of ``previous/`` for an unfinished review when ``previous/`` holds a finished one.
PARTIAL = "partial"
#: Notice kinds that mark a review's results as partial (``finish``).
PARTIAL_KINDS = ("interrupted", "source_error")


def finished_review(folder: Path) -> bool:
    """Whether ``folder`` holds a review that ran to the end of its footage: its report was written
    (it is written last) and no notice row says the results are partial."""
    if not (folder / "report.html").is_file():
        return False
    events = folder / "events.jsonl"
    for line in (events.read_text(encoding="utf-8", errors="replace").splitlines() if events.is_file() else []):
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and row.get("type") == "notice" and row.get("kind") in PARTIAL_KINDS:
            return False
    return True


def check_review_folder(out_dir: Path) -> None:
    """Refuse an output folder whose layout a review cannot use, before anything in it is touched.

    Raises:
        ValueError: ``previous``, ``previous/partial`` or a ``snapshots`` in them is not a folder, or
            ``events.jsonl`` (or another name a review writes) is a folder, a device or a pipe in one of them.
    """
    levels = [(out_dir, (PREVIOUS, "snapshots")), (out_dir / PREVIOUS, (PARTIAL, "snapshots")),
              (out_dir / PREVIOUS / PARTIAL, ("snapshots",))]
    for folder, subfolders in levels:
        if not folder.is_dir():
            return  # the level above reported a file of this name, or there is none yet
        for name in subfolders:
            if (folder / name).exists() and not (folder / name).is_dir():
                raise ValueError(f"{folder / name} is a file, but a review keeps a folder of that name there")
        for name in REVIEW_FILES:
            if (folder / name).is_dir():
                raise ValueError(f"{folder / name} is a folder, but a review writes a file of that name there")
            if (folder / name).exists() and not (folder / name).is_file():  # a FIFO there hung it (helper-154)
                raise ValueError(f"{folder / name} is a device or a pipe, but a review writes a file of that name "
                                 "there")


def edited_record(folder: Path) -> bool:
    """Whether ``folder/record.json`` was changed after its review wrote it: a review writes the record
    before its ``report.html``, so a record newer than the report is the user's correction."""
    rec, report = folder / "record.json", folder / "report.html"
    return rec.is_file() and report.is_file() and rec.stat().st_mtime > report.stat().st_mtime


def keep_edited_record(folder: Path) -> Path | None:
    """Rename a corrected ``folder/record.json`` (:func:`edited_record`) to ``record.edited.json``
    (``record.edited-2.json``, ... when taken), a name no review replaces; returns the new path.
    helper-144: a record corrected in place went to ``previous/`` at the next review and was gone
    at the one after, without a word."""
    if not edited_record(folder):
        return None
    dst, n = folder / "record.edited.json", 1
    while dst.exists():
        n += 1
        dst = folder / f"record.edited-{n}.json"
    (folder / "record.json").replace(dst)
    return dst


def keep_previous(out_dir: Path, kept: list[Path] | None = None, dropped: list[Path] | None = None) -> Path | None:
    """Move an earlier review's files in ``out_dir`` (:func:`review_files`) to ``out_dir/previous``.

    A stale annotated video or record must not pass for the new review's, but a new review that
    fails (a broken model file, a full disk) must not lose the earlier one either: it stays in
    ``previous/`` until the next review replaces it (one generation is kept; a record corrected after its
    review is renamed there instead, :func:`keep_edited_record`). An unfinished review
    (interrupted, unreadable footage, killed) always goes to ``previous/partial/`` instead: it never
    pushes a finished one out of ``previous/``, nor sits there looking finished. ``kept`` receives the
    corrected records renamed there (:func:`keep_edited_record`); ``dropped`` the files of the review
    that was in ``previous/`` and is replaced (helper-152: an annotated video went that way unsaid). Only the review's
    own files are moved or replaced: anything else in ``out_dir`` or ``previous/`` is the user's and
    stays. Empty files are dropped. Returns the folder the earlier review went to (None: there was none).
    """
    check_review_folder(out_dir)
    olds = review_files(out_dir)
    if not any(f.stat().st_size for f in olds):
        for f in olds:
            f.unlink()
        return None
    prev = out_dir / PREVIOUS
    if not finished_review(out_dir):  # always apart: an unfinished review never looks like a finished one
        prev = prev / PARTIAL
    if prev.is_dir():
        renamed = keep_edited_record(prev)
        if renamed is not None and kept is not None:
            kept.append(renamed)
        for f in review_files(prev):
            if dropped is not None and f.stat().st_size:
                dropped.append(f)
            f.unlink()
    for f in olds:
        dst = prev / f.relative_to(out_dir)
        dst.parent.mkdir(parents=True, exist_ok=True)
        f.replace(dst)
    return prev
