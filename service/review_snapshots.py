"""A review's snapshots on the page of its record, corrected or not (``dominocast record report``).

A review names its snapshots by their row in ``events.jsonl`` (``snapshots/0004_play.jpg``); a
corrected record's timeline has other rows (a voided play is gone, a fix keeps its slot), so the
pictures are matched to the record's events by what does not move under a correction: the game,
the hand, the row's type and the frame the event was seen at (a fix typed without a frame keeps the
frame of the event it replaces, :func:`engine.events.effective`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

#: What pins a snapshot to an event: (game, hand, row type, frame number).
Key = tuple[object, object, str, int]


def _key(row: dict) -> Key | None:
    frame = row.get("frame")
    if not isinstance(frame, int) or isinstance(frame, bool) or not isinstance(row.get("type"), str):
        return None
    return (row.get("game"), row.get("hand"), row["type"], frame)


def is_review_folder(folder: Path) -> bool:
    """Whether ``folder`` holds a review's ``events.jsonl`` and ``snapshots/``."""
    return (folder / "events.jsonl").is_file() and (folder / "snapshots").is_dir()


def review_snapshots(folder: Path) -> dict[Key, list[Path]]:
    """The snapshots a review in ``folder`` wrote that are still there, by :data:`Key`.

    Returns:
        key -> snapshot files, in the order of ``events.jsonl`` (two plays seen in one frame
        have one key); ``{}`` when ``folder`` holds no ``events.jsonl``. Lines that are not JSON
        objects (a review cut off mid-line) are skipped.

    Raises:
        OSError: ``events.jsonl`` cannot be read.
    """
    events = folder / "events.jsonl"
    if not events.is_file():
        return {}
    found: dict[Key, list[Path]] = {}
    with events.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if not isinstance(row, dict) or not isinstance(row.get("snapshot"), str):
                continue
            key = _key(row)
            path = folder / row["snapshot"]
            if key is not None and path.is_file():
                found.setdefault(key, []).append(path)
    return found


def snapshots_for(rows: list[dict], found: dict[Key, list[Path]], page_dir: Path) -> dict[int, str]:
    """Give the record's timeline ``rows`` the review's snapshots (:func:`review_snapshots`).

    Returns:
        row position -> the snapshot's path relative to ``page_dir`` (URL-quoted), as
        :func:`service.report.render_report` takes them; rows with no snapshot of their
        game, hand, type and frame are left out.
    """
    left = {k: list(v) for k, v in found.items()}
    out: dict[int, str] = {}
    for i, row in enumerate(rows):
        key = _key(row)
        if key is not None and left.get(key):
            path = left[key].pop(0)
            out[i] = quote(os.path.relpath(os.path.abspath(path), os.path.abspath(page_dir)))
    return out
