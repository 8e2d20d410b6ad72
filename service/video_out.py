"""The annotated video of a review, in a format a browser plays.

OpenCV's pip wheels encode no H.264, and the MPEG-4 part 2 (``mp4v``) they do encode plays in
VLC but not in browsers, so ``report.html`` could not show it. VP8 in WebM plays in every
current browser and the wheels' FFmpeg encodes it; where it does not (another OpenCV build),
the video falls back to ``mp4v`` in MP4 rather than being lost.

VP8 costs ~20 ms a 960x540 frame on one core here (``mp4v`` ~3 ms), so :class:`VideoOut`
encodes on a thread of its own (the review's reading, drawing and recognition run beside it),
at most 10 frames a second and 1280 px wide.
"""

from __future__ import annotations

import math
import queue
import threading
from pathlib import Path

import cv2
import numpy as np

from calibration.images import opencv_path, quiet_opencv

#: (suffix, fourcc) tried in order.
FORMATS = ((".webm", "VP80"), (".mp4", "mp4v"))
#: Every name the annotated video has had (a new review moves all of them away).
VIDEO_NAMES = tuple(f"annotated{suffix}" for suffix, _ in FORMATS)


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
        OSError: no format could be opened (an unwritable folder, a frame rate OpenCV refuses such as
            one photo an hour).
    """
    for suffix, fourcc in FORMATS:
        path = folder / f"{stem}{suffix}"
        # a folder named in other bytes than UTF-8 is written through a link (helper-149: OpenCV crashed)
        with opencv_path(path) as name, quiet_opencv():  # quiet: a harmless notice about WebM codec tags
            writer = cv2.VideoWriter(name, cv2.VideoWriter_fourcc(*fourcc), fps, size)
        if writer.isOpened():
            return writer, path
        writer.release()
        path.unlink(missing_ok=True)
    raise OSError(f"OpenCV cannot write a {size[0]}x{size[1]} video at {fps:g} fps in {folder}")


#: The annotated video is for watching a review, not for measuring: at most this many frames a
#: second and this many pixels wide (VP8 at 1920x1080 costs ~4x a 960x540 frame; at 1280 px and
#: 15 fps a 1080p review ran at 1.1x real time, 3.7x without the video).
MAX_FPS = 10.0
MAX_WIDTH = 1280


class VideoOut:
    """The annotated video (:func:`open_video`), encoded by a background thread, in footage time.

    The video runs at ``min(fps, max_fps)`` frames a second. Each frame comes with
    its footage time ``t``; video frame n shows the newest frame at or before ``n / rate`` seconds,
    so a moment ``t`` of the footage is at ``t`` in the video (the report links events there) even
    when frames arrive irregularly: a live camera read at the pace of recognition, a photo folder
    with a skipped photo. Frames wider than ``max_width`` are shrunk (aspect kept). Video frames
    are queued (at most ``queue_frames``: :meth:`write` waits when the encoder is behind, so none
    is dropped and memory stays bounded). The caller must not change a frame after handing it over.

    Attributes:
        path: the file being written.
        fps: its frame rate, frames per second.
        size: its (width, height), pixels.
        error: the exception the encoder stopped on, or None.
    """

    def __init__(self, folder: Path, fps: float, size: tuple[int, int], stem: str = "annotated",
                 queue_frames: int = 8, max_fps: float = MAX_FPS, max_width: int = MAX_WIDTH):
        self.fps = min(float(fps), float(max_fps))
        w, h = size
        self.size = (w, h) if w <= max_width else (max_width, max(2, round(h * max_width / w / 2) * 2))
        self._writer, self.path = open_video(folder, self.fps, self.size, stem)
        self.error: Exception | None = None
        self._written = 0  # video frames queued so far
        self._last: np.ndarray | None = None
        self._queue: queue.Queue[np.ndarray | None] = queue.Queue(maxsize=queue_frames)
        self._thread = threading.Thread(target=self._encode, name="video-encoder", daemon=True)
        self._thread.start()

    def _encode(self) -> None:
        while (frame := self._queue.get()) is not None:
            if self.error is None:
                try:
                    if frame.shape[1] != self.size[0]:
                        frame = cv2.resize(frame, self.size, interpolation=cv2.INTER_AREA)
                    self._writer.write(frame)
                except Exception as exc:  # noqa: BLE001 - kept for write(); the queue must keep draining
                    self.error = exc

    def _due(self, t: float) -> int:
        """Video frames that cover footage times 0..t."""
        return math.floor(max(t, 0.0) * self.fps + 1e-6) + 1

    def wants(self, t: float) -> bool:
        """Whether a frame at ``t`` would be encoded (drawing one that would not is wasted work)."""
        return self._written < self._due(t)

    def write(self, frame: np.ndarray, t: float) -> None:
        """Hand over the footage's frame at ``t`` seconds ((H, W, 3) uint8 BGR, the size given at
        opening; ``t`` not decreasing). Video slots up to ``t`` not yet filled show the previous
        frame; this one fills the slot at ``t`` (or is dropped when that slot is already filled).

        Raises:
            OSError: the encoder failed on an earlier frame (its error is the cause).
        """
        if self.error is not None:
            raise OSError(f"cannot write {self.path}: {self.error}") from self.error
        due = self._due(t)
        while self._written < due - 1:
            self._queue.put(self._last if self._last is not None else frame)
            self._written += 1
        if self._written < due:
            self._queue.put(frame)
            self._written += 1
        self._last = frame

    def release(self) -> None:
        """Encode what is queued and close the file (idempotent).

        Raises:
            KeyboardInterrupt: one came while the queue was encoded (at most ``queue_frames`` frames):
                re-raised once the file is complete, since a process that exits while the encoder
                thread is inside OpenCV aborts and leaves a cut-off file.
        """
        interrupted, sent = False, False
        while True:  # a Ctrl-C anywhere in here (the put waits on a full queue) is held until the end
            try:
                if not sent and self._thread.is_alive():
                    self._queue.put(None)
                    sent = True
                while self._thread.is_alive():
                    self._thread.join()
                break
            except KeyboardInterrupt:
                interrupted = True
        self._writer.release()
        if interrupted:
            raise KeyboardInterrupt
