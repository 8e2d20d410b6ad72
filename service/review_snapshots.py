"""A review's snapshots on the page of its record, corrected or not (``dominocast record report``).

A review names its snapshots by their row in ``events.jsonl`` (``snapshots/0004_play.jpg``); a
corrected record's timeline has other rows (a voided draw is gone, a hand may move to another game),
so the pictures are matched to the record's events by what no correction moves: the row's type and
the frame the event was seen at (a fix typed without a frame keeps the frame of the event it
replaces, :func:`engine.events.effective`).

Frame numbers of two videos overlap, so a picture is only used when its play is in the record's log
(same frame, seat and tile, the event as the camera recorded it, corrections aside): a review of
another game gives none, and :func:`read_review` counts how many agree so that the caller can say so.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from engine.events import Correction, Play
from engine.tiles import Tile
from service.read_flags import UNCERTAIN_TURN
from service.report import relative_link


@dataclass
class ReviewPictures:
    """What a review folder offers a record's page (:func:`read_review`)."""

    #: (row type, frame) -> snapshot files in ``events.jsonl`` order (two plays read in one frame share a key).
    snapshots: dict[tuple[str, int], list[Path]] = field(default_factory=dict)
    #: frame -> the photo's file name, for a review of a photo folder.
    files: dict[int, str] = field(default_factory=dict)
    #: plays of the review with a snapshot, and how many of them are plays of the record's log.
    plays: int = 0
    agree: int = 0
    #: snapshots ``events.jsonl`` names whose file is gone.
    missing: int = 0
    #: placement rows: a review with no rules (``--rules none``), which has no plays to match
    placements: int = 0
    #: the review's flag rows (``type`` ``flag``), in ``events.jsonl`` order: the flags of its events and the
    #: camera's own (a read it doubts, a tile laid after the hand's end, a play the engine refused, a rule set
    #: that does not fit), which its record does not keep
    flag_rows: list[dict] = field(default_factory=list)

    @property
    def flags(self) -> int:
        """The review's own count of flags (its report.html's)."""
        return len(self.flag_rows)


def is_review_folder(folder: Path) -> bool:
    """Whether ``folder`` holds a review's ``events.jsonl`` and ``snapshots/``."""
    return (folder / "events.jsonl").is_file() and (folder / "snapshots").is_dir()


def review_folder_problem(folder: Path) -> str | None:
    """Why ``folder`` is no review's folder, in words (None: it is one)."""
    if not folder.exists():
        return "no such folder"
    if not folder.is_dir():
        return f"a file, not a folder (its folder: {folder.parent})"
    lacks = [n for n, ok in (("events.jsonl", (folder / "events.jsonl").is_file()),
                             ("snapshots/", (folder / "snapshots").is_dir())) if not ok]
    return f"not a review's folder (no {' and no '.join(lacks)} in it)" if lacks else None


def _frame(row: dict) -> int | None:
    f = row.get("frame")
    return f if isinstance(f, int) and not isinstance(f, bool) else None


def _recorded_plays(logs: list[list]) -> set[tuple[int, str, tuple[int, int]]]:
    """(frame, seat, tile key) of every play in the logs as recorded, corrections' plays included."""
    out = set()
    for log in logs:
        for ev in log:
            for e in (ev, ev.event if isinstance(ev, Correction) else None):
                if isinstance(e, Play) and e.frame is not None:
                    out.add((e.frame, e.seat, e.tile.key))
    return out


def _row_play(row: dict) -> tuple[int, str, tuple[int, int]] | None:
    try:
        return (_frame(row), str(row["seat"]), Tile.parse(row["tile"]).key)
    except (KeyError, TypeError, ValueError):
        return None


def read_review(folder: Path, logs: list[list]) -> ReviewPictures:
    """The snapshots of the review in ``folder`` that fit a record whose hand logs are ``logs``.

    A play's snapshot fits when the record's log holds that play (frame, seat, tile); a hand end's
    or a flag's, when the log holds a play of this review. Lines of ``events.jsonl`` that are not
    JSON objects (a review cut off mid-line, garbage) are skipped.

    Raises:
        OSError: ``events.jsonl`` cannot be read.
    """
    recorded = _recorded_plays(logs)
    pics = ReviewPictures()
    others: list[tuple[tuple[str, int], Path]] = []
    with (folder / "events.jsonl").open(encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                row = json.loads(line)
            except (ValueError, RecursionError):  # RecursionError: thousands of nested brackets
                continue
            if not isinstance(row, dict) or not isinstance(row.get("type"), str):
                continue
            if row["type"] == "flag":
                pics.flag_rows.append(row)
            if _frame(row) is None:
                continue
            if isinstance(row.get("file"), str):
                pics.files[_frame(row)] = Path(row["file"]).name
            pics.placements += row["type"] == "placement"
            if not isinstance(row.get("snapshot"), str):
                continue
            path = folder / row["snapshot"]
            if not path.is_file():
                pics.missing += 1
                continue
            key = (row["type"], _frame(row))
            if row["type"] == "play":
                pics.plays += 1
                if _row_play(row) in recorded:
                    pics.agree += 1
                    pics.snapshots.setdefault(key, []).append(path)
            else:
                others.append((key, path))
    if pics.agree:  # a hand end's picture has no tile to check: it comes with the plays
        for key, path in others:
            pics.snapshots.setdefault(key, []).append(path)
    return pics


#: The review's kind for an engine flag it words as a question (:func:`service.read_flags.turn_in_doubt`): the
#: same flag of the same event as the record's.
REVIEW_WORDING = {UNCERTAIN_TURN: "out_of_turn"}


def flags_off_the_record(rows: list[dict], flag_rows: list[dict]) -> list[dict]:
    """The review's ``flag_rows`` (:attr:`ReviewPictures.flag_rows`) that are no flag of the record's events:
    the camera's own, and those of events the record corrected away. A flag row is the flag of an event when
    the record's timeline ``rows`` (worded by :func:`service.read_flags.rows_as_read`, as the review words
    them) hold a flag of its kind (:data:`REVIEW_WORDING`) on an event of its frame; each such flag takes one
    row. Rows are returned as they are, in order."""
    on_events = Counter((_frame(r), f.get("kind")) for r in rows for f in r.get("flags") or [] if not f.get("notice"))
    out = []
    for row in flag_rows:
        key = (_frame(row), REVIEW_WORDING.get(row.get("kind"), row.get("kind")))
        if on_events[key] > 0:
            on_events[key] -= 1
        else:
            out.append(row)
    return out


def attach(rows: list[dict], pics: ReviewPictures, page_dir: Path) -> tuple[list[dict], dict[int, str]]:
    """Give the record's timeline ``rows`` the review's pictures.

    A row gets the snapshot of its type and frame; a hand end's snapshot (the final score) goes to the
    event that ended the hand when the record has no row of its own for it and that event has no
    picture (as the review's page shows it); rows of a photo folder's review get the photo's name.

    Returns:
        the rows (copies where a ``file`` was added) and row position -> snapshot path relative to
        ``page_dir``, URL-quoted, as :func:`service.report.render_report` takes them.
    """
    left = {k: list(v) for k, v in pics.snapshots.items()}
    out: dict[int, str] = {}

    def link(path: Path) -> str:
        return relative_link(path, page_dir)

    for i, row in enumerate(rows):
        key = (row.get("type"), _frame(row))
        if left.get(key):
            out[i] = link(left[key].pop(0))
    for i, row in enumerate(rows):
        key = ("hand_end", _frame(row))
        if "hand_end" in row and left.get(key):
            path = left[key].pop(0)
            out.setdefault(i, link(path))
    named = [({**r, "file": pics.files[_frame(r)]} if _frame(r) in pics.files and "file" not in r else r)
             for r in rows]
    return named, out
