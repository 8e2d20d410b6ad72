"""The annotated video of a review, in a format a browser plays.

OpenCV's pip wheels encode no H.264, and the MPEG-4 part 2 (``mp4v``) they do encode plays in
VLC but not in browsers, so ``report.html`` could not show it. VP8 in WebM plays in every
current browser and the wheels' FFmpeg encodes it; where it does not (another OpenCV build),
the video falls back to ``mp4v`` in MP4 rather than being lost.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import cv2

#: (suffix, fourcc) tried in order.
FORMATS = ((".webm", "VP80"), (".mp4", "mp4v"))
#: Every name the annotated video has had (a new review moves all of them away).
VIDEO_NAMES = tuple(f"annotated{suffix}" for suffix, _ in FORMATS)


@contextlib.contextmanager
def _quiet_fd2():
    """Silence file descriptor 2 for a moment: OpenCV prints a harmless notice about WebM codec
    tags there with ``fprintf`` (not through its logger, so its log level cannot hide it)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def open_video(folder: Path, fps: float, size: tuple[int, int], stem: str = "annotated"
               ) -> tuple[cv2.VideoWriter, Path]:
    """Open a video writer in ``folder``: ``STEM.webm`` (VP8), else ``STEM.mp4`` (mp4v).

    Args:
        folder: existing output folder.
        fps: frames per second of the footage (> 0).
        size: (width, height) of the frames, pixels.

    Returns:
        (opened writer, path of the file it writes).

    Raises:
        OSError: no format could be opened (an unwritable folder).
    """
    for suffix, fourcc in FORMATS:
        path = folder / f"{stem}{suffix}"
        with _quiet_fd2():
            writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), fps, size)
        if writer.isOpened():
            return writer, path
        writer.release()
        path.unlink(missing_ok=True)
    raise OSError(f"cannot write a video in {folder}")
