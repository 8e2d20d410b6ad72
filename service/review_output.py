"""The files a review writes as the footage is processed: ``events.jsonl``, snapshots, the annotated video.

:class:`ReviewOutputs` opens the folder (an earlier review's files move to ``previous/`` first,
:mod:`service.review_folder`), writes each row as it comes (flushed, so a review that dies midway keeps
what was written), saves the snapshots of rows worth a picture once their frame is drawn, and feeds the
annotated video; :func:`draw_frame` draws that frame (also the live service's picture,
``service/vision_source.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from calibration.images import write_image
from service.review_folder import edited_record, keep_previous
from service.video_out import VideoOut


class ReviewOutputs:
    """The files of a review, written as the footage is processed; those of an earlier review in
    the same folder move to ``previous/`` first (:func:`keep_previous`).

    ``lazy``: the folder is left untouched until :meth:`open` (the session's first frame, or a row written), so a
    live session stopped before anything came leaves it exactly as it was (helper-249: an empty
    ``events.jsonl`` and ``snapshots/`` stayed behind, and an earlier review's files had moved to ``previous/``).
    """

    def __init__(self, out_dir: Path, annotate: bool, on_row: Callable[[dict], None] | None = None,
                 lazy: bool = False, on_open: Callable[[ReviewOutputs], None] | None = None):
        self.dir = out_dir
        self.on_row = on_row
        self.on_open = on_open  # told once the folder is set up (what became of an earlier review: moved, kept)
        self.snap_dir = out_dir / "snapshots"
        self.edited = False  # a record corrected in place, before it moves (set by open)
        self.kept: list[Path] = []  # corrected records of the review before, renamed in previous/ (kept)
        self.dropped: list[Path] = []  # the files of the review that was in previous/, replaced now
        self.moved: Path | None = None  # where an earlier review's files went (set by open)
        self.events = None  # the open events.jsonl; None until open
        self.annotate = annotate
        self.video: VideoOut | None = None
        self.video_error: str | None = None  # why there is no annotated video, when it could not be made
        self.rows: list[dict] = []
        self.snapshots: dict[int, str] = {}
        self._pending: list[tuple[str, np.ndarray]] = []  # snapshots waiting for the redrawn frame
        if not lazy:
            self.open()

    @property
    def opened(self) -> bool:
        """Whether the folder was set up for this review (:meth:`open`)."""
        return self.events is not None

    def open(self) -> None:
        """Set the folder up, once: an earlier review's files to ``previous/``, ``snapshots/``, an empty
        ``events.jsonl``. Raises OSError (a folder that cannot be written in) and ValueError
        (:func:`service.review_folder.check_review_folder`)."""
        if self.opened:
            return
        self.edited = edited_record(self.dir)
        self.moved = keep_previous(self.dir, self.kept, self.dropped)
        self.snap_dir.mkdir(parents=True, exist_ok=True)
        self.events = (self.dir / "events.jsonl").open("w", encoding="utf-8")
        if self.on_open is not None:
            self.on_open(self)

    def emit(self, row: dict, frame: np.ndarray | None) -> None:
        """Write one row; rows worth a picture get a snapshot of ``frame``, saved by
        :meth:`flush_snapshots` once the frame shows the row's own score and open ends."""
        self.open()
        if frame is not None and (row["type"] in ("play", "placement", "flag", "hand_end") or row.get("flags")):
            name = f"snapshots/{len(self.rows):04d}_{row['type']}.jpg"
            self._pending.append((name, frame))
            self.snapshots[len(self.rows)] = name
            row = {**row, "snapshot": name}
        self.rows.append(row)
        self.events.write(json.dumps(row) + "\n")
        self.events.flush()
        if self.on_row is not None:
            self.on_row(row)

    @property
    def pending(self) -> bool:
        """Whether snapshots wait for a drawn frame."""
        return bool(self._pending)

    def flush_snapshots(self, frame: np.ndarray | None = None) -> None:
        """Save the pending snapshots: of ``frame`` (redrawn after the events), else as emitted."""
        for name, emitted in self._pending:
            write_image(self.dir / name, emitted if frame is None else frame, (cv2.IMWRITE_JPEG_QUALITY, 80))
        self._pending = []

    def wants_frame(self, t: float) -> bool:
        """Whether the video takes a frame at footage time ``t`` (s)."""
        return self.annotate and (self.video is None or self.video.wants(t))

    def write_frame(self, frame: np.ndarray, t: float, fps: float) -> None:
        """Add the drawn frame at footage time ``t`` (s) to the video; ``fps``: the footage's rate."""
        if not self.annotate:
            return
        self.open()
        if self.video is None:
            h, w = frame.shape[:2]
            try:
                self.video = VideoOut(self.dir, fps, (w, h))
            except OSError as exc:  # the review goes on without its video, and says so
                self.annotate, self.video_error = False, str(exc)
                return
        self.video.write(frame, t)

    def close(self) -> None:
        """Save the pending snapshots and close the files (nothing to do when never opened)."""
        if not self.opened:
            return
        self.flush_snapshots()
        self.events.close()
        if self.video is not None:
            self.video.release()


#: BGR of the annotated video's banners: a flag's, and the end card's (the hand's result, final).
FLAG_BANNER_BGR, END_CARD_BGR = (0, 0, 200), (0, 110, 0)


def draw_frame(frame: np.ndarray, obs: list, score: dict[str, int], open_ends: dict[str, int],
               banner: str | None, banner_bgr: tuple[int, int, int] = FLAG_BANNER_BGR) -> np.ndarray:
    """The annotated frame: tile polygons with pips, open ends, score, and a banner (a flag's, red;
    the end card's, green)."""
    img = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    scale = max(img.shape[0] / 720.0, 0.5)
    for o in obs:
        poly = np.round(o.polygon_px).astype(np.int32)
        colour = (0, 200, 0) if o.face == "up" else (200, 120, 0)
        if o.flags:
            colour = (0, 165, 255)
        cv2.polylines(img, [poly], True, colour, max(1, int(2 * scale)), cv2.LINE_AA)
        if o.pips is not None:  # outlined in black as the score (helper-116: plain magenta was lost on the pips)
            c = o.polygon_px.mean(0)
            at = (int(c[0]) - int(14 * scale), int(c[1]) + int(5 * scale))
            for bgr, width in (((0, 0, 0), max(2, int(3 * scale))), ((255, 0, 255), max(1, int(scale)))):
                cv2.putText(img, f"{o.pips[0]}|{o.pips[1]}", at, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, bgr, width,
                            cv2.LINE_AA)
    lines = ["  ".join(f"{s} {v}" for s, v in score.items()) or "no score yet",
             "ends  " + "   ".join(f"{k} {v}" for k, v in open_ends.items())]  # the outline fills narrow gaps
    for i, text in enumerate(lines):
        y = int((28 + 26 * i) * scale)
        cv2.putText(img, text, (12, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7 * scale, (0, 0, 0), max(2, int(3 * scale)),
                    cv2.LINE_AA)
        cv2.putText(img, text, (12, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7 * scale, (255, 255, 255), max(1, int(scale)),
                    cv2.LINE_AA)
    if banner:
        h = int(36 * scale)
        cv2.rectangle(img, (0, img.shape[0] - h), (img.shape[1], img.shape[0]), banner_bgr, -1)
        cv2.putText(img, banner, (12, img.shape[0] - int(11 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.65 * scale,
                    (255, 255, 255), max(1, int(scale)), cv2.LINE_AA)
    return img
