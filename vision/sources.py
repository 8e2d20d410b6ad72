"""Frame sources: video files, image folders (time-lapse), USB cameras and network streams.

Every source iterates ``(frame_index, t_seconds, image)`` tuples (:class:`Frame`), with
``image`` an (H, W, 3) uint8 BGR array::

    from vision.sources import open_source
    with open_source("match.mp4") as src:            # or a folder, 0 (camera), "rtsp://..."
        for index, t, image in src:
            ...

* :class:`VideoFileSource`: ``cv2.VideoCapture`` on a file; ``t = index / fps``.
* :class:`ImageFolderSource`: the images of a folder in natural name order
  (``img2`` before ``img10``), one frame each, ``t = index x interval_s``; a folder followed as
  photos arrive is :class:`vision.folder_follow.FollowedFolderSource` (``open_source(..., follow=True)``).
* :class:`LiveSource`: a camera index or an RTSP/HTTP URL. A reader thread keeps only
  the newest frame (a slow consumer skips frames instead of falling behind; the skipped
  ones show as gaps in ``frame_index``); opening and reading have explicit timeouts;
  after a drop (read failure or no frame for ``read_timeout_s``) it reconnects with
  exponential backoff, and the consumer just sees a gap in ``t``, not an exception.
  ``t`` is seconds since the source opened (monotonic clock).

Bad input (a missing, corrupt or truncated video, an empty folder, an unreadable image, a
camera that is not there, a stream that never delivers) raises :class:`SourceError`
with one line that says what and where. An image folder can skip its unreadable images
instead (``on_unreadable``), so one bad photo does not end a time-lapse.
"""

from __future__ import annotations

import functools
import os
import re
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, NamedTuple
from urllib.parse import unquote, urlsplit

import numpy as np

# FFmpeg writes its own complaints ("moov atom not found") to stderr before we can say one clear
# line about a bad file; silence it unless the user asks for its log (read when a capture opens).
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")

__all__ = ["Frame", "SourceError", "FrameSource", "VideoFileSource", "ImageFolderSource", "LiveSource",
           "open_source", "natural_key", "is_stream_url", "file_url_path", "IMAGE_SUFFIXES"]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class SourceError(RuntimeError):
    """A frame source that cannot deliver frames; the message says what and where (one line)."""


#: Frame times are kept to the millisecond (records and feeds show 9.6 s, not 9.600000000000001 s).
T_DECIMALS = 3


class Frame(NamedTuple):
    """One frame: index in the source, time in seconds (to :data:`T_DECIMALS`), (H, W, 3) uint8 BGR image."""

    index: int
    t: float
    image: np.ndarray


class Quiet(NamedTuple):
    """The mark a followed photo folder (:class:`vision.folder_follow.FollowedFolderSource`, when asked: its
    ``marks_quiet``) yields among its frames when no new photo has come for a while: the frames so far are all
    there is for now, so a consumer holding the last one to compare with the next (:class:`vision.photo_scene.OneTable`)
    decides it as a folder's last, and one waiting for a second look at it (a reveal) may take it then."""

    t: float  # the source's time (s) when the quiet spell was marked: the newest photo still held then

#: Photo formats of phones and cameras that OpenCV does not decode (an iPhone's HEIC, raw files): a
#: folder's files of these are listed in their place and each reported, never silently left out
#: (helper-111: a .HEIC among JPEGs was skipped without a word, and the next photo's two moves swapped).
UNDECODED_PHOTO_SUFFIXES = (".heic", ".heif", ".avif", ".dng", ".cr2", ".cr3", ".nef", ".arw")

#: Video file suffixes a folder of photos is often confused with (named in its error).
VIDEO_SUFFIXES = (".mp4", ".mov", ".m4v", ".avi", ".mkv", ".webm")


def is_stream_url(text: str) -> bool:
    """Whether ``text`` has a URL scheme (``rtsp://``, ``http://``, ...) other than ``file://``: a stream,
    not a path."""
    return re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", text) is not None and file_url_path(text) is None


def file_url_path(text: str) -> str | None:
    """The path a ``file://`` URL names, None for any other text: ``file:///x`` and ``file://localhost/x``
    name ``/x``, percent escapes decoded (helper-154). OpenCV opens such a URL as a stream that keeps
    reconnecting (helper-152), so :func:`open_source` refuses it and says the path."""
    return unquote(urlsplit(text).path) if text[:7].lower() == "file://" else None


def natural_key(name: str) -> list:
    """Sort key with digit runs compared as numbers: ``frame2`` < ``frame10``."""
    return [(0, int(tok), "") if tok.isdigit() else (1, 0, tok.lower()) for tok in re.split(r"(\d+)", name) if tok]


class FrameSource:
    """Base class: an iterable of :class:`Frame` and a context manager (``close`` on exit)."""

    live = False

    def __iter__(self) -> Iterator[Frame]:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:
        """Release the device or file (idempotent)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ---- files -----------------------------------------------------------------------------------

#: A jump in a video's frame times longer than this (seconds) is a gap worth telling the umpire:
#: a tile is laid and let go in about a second, and a phone's variable rate stays well below it.
GAP_S = 0.5


class VideoFileSource(FrameSource):
    """Frames of a video file, decoded in order, frame-exact.

    A frame's ``t`` is its presentation time in the file, seconds from the first frame: phones
    record at a variable frame rate, where ``index / fps`` drifts from the picture's real time.
    Files whose backend gives no increasing timestamps get ``index / fps`` (then ``fps`` matters).
    A jump in those times of more than :data:`GAP_S` (frames the file lacks: dropped while
    recording or damaged and skipped by the decoder) is kept in ``outages``, as a live source's
    drops are: moves made meanwhile are only seen afterwards.

    Args:
        path: the video file.
        fps: frames per second for ``t`` when the file gives no frame times (or to override
            them: with ``fps`` given, ``t = index / fps``).
        truncation_tolerance: frames the header may over-count before a short file is an error
            (containers often estimate the count; 2 frames or 1 %, whichever is more, by default).
        capture_factory: ``path -> capture`` with ``isOpened()``, ``read()``, ``get(prop)`` and
            ``release()`` (default: ``cv2.VideoCapture``); tests pass fakes.

    Raises:
        SourceError: the file is missing, not a video OpenCV can decode (a text file it would draw as
            ANSI art too), has no frames, or (while iterating) ends well before the frame count its
            header declares (frames of its gaps, at ``fps``, count as there).
    """

    def __init__(self, path: str | os.PathLike, fps: float | None = None, truncation_tolerance: int | None = None,
                 capture_factory: Callable[[str], object] | None = None):
        import cv2

        from calibration.images import opencv_path

        self.path = Path(path)
        if not self.path.is_file():
            raise SourceError(f"video file {self.path} does not exist")
        # OpenCV takes only UTF-8 names (helper-149: it crashed on others): such a file is opened by a link
        with opencv_path(self.path) as name:
            self._open(cv2, name, fps, truncation_tolerance, capture_factory)

    def _open(self, cv2, name: str, fps: float | None, truncation_tolerance: int | None,
              capture_factory: Callable[[str], object] | None) -> None:
        """Open the capture on ``name`` and read the first frame (see the class doc for the errors)."""
        from calibration.images import renders_text, text_not_video

        self._cap = (capture_factory or cv2.VideoCapture)(name)
        self._file_times = not fps  # the frames' own presentation times (see the class doc)
        self._offset_s = 0.0  # added to index / fps once the file's times are given up
        if not self._cap.isOpened():
            self._cap.release()
            raise SourceError(f"{self.path} is not a video OpenCV can open (corrupt file or unsupported format)")
        if renders_text(self._cap):
            self._cap.release()
            raise SourceError(text_not_video(self.path))
        file_fps = float(self._cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = float(fps) if fps else (file_fps if file_fps > 0 and np.isfinite(file_fps) else 30.0)
        count = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self.declared_frames = count if count > 0 else None
        self.tolerance = truncation_tolerance
        ok, first = self._cap.read()
        if not ok or first is None:
            self._cap.release()
            raise SourceError(f"{self.path} has no readable frames (empty, corrupt or truncated video)")
        self._first: np.ndarray | None = first
        self._t0_ms = self._pos_ms()
        self._used = False
        #: (H, W, C) of the video's frames (from its first frame).
        self.frame_shape: tuple[int, ...] = tuple(first.shape)
        #: ``(t_start, t_end)`` seconds of each gap in the file's frame times longer than GAP_S,
        #: appended before the frame after the gap is yielded.
        self.outages: list[tuple[float, float]] = []

    def __iter__(self) -> Iterator[Frame]:
        if self._used:
            raise SourceError(f"{self.path}: a video source can be iterated once; open it again")
        self._used = True
        index = 0
        image = self._first
        self._first = None
        t = 0.0
        while image is not None:
            yield Frame(index, round(t, T_DECIMALS), image)
            index += 1
            ok, image = self._cap.read()
            if not ok:
                image = None
            else:
                prev, t = t, self._time(index, t)
                if t - prev > max(GAP_S, 3.0 / self.fps):
                    self.outages.append((prev, t))
        self._cap.release()
        n = self.declared_frames
        if n is not None:
            tol = self.tolerance if self.tolerance is not None else max(2, n // 100)
            # a gap's frames may still be counted by the header (capture tools keep empty chunks)
            missing = sum(max(0, round((b - a) * self.fps) - 1) for a, b in self.outages)
            if index + missing < n - tol:
                raise SourceError(f"{self.path} ends at frame {index} of the {n} its header declares "
                                  "(truncated or corrupt video)")

    def _pos_ms(self) -> float | None:
        import cv2

        ms = float(self._cap.get(cv2.CAP_PROP_POS_MSEC))
        return ms if np.isfinite(ms) and ms >= 0 else None

    def _time(self, index: int, prev: float) -> float:
        """Seconds of frame ``index`` (just read) from the first frame; ``index / fps`` when the
        file gives none, or a time not after the previous frame's (then for the rest of the file)."""
        if self._file_times and self._t0_ms is not None:
            ms = self._pos_ms()
            if ms is not None and (ms - self._t0_ms) / 1000.0 > prev:
                return (ms - self._t0_ms) / 1000.0
            self._file_times = False
            self._offset_s = prev - (index - 1) / self.fps  # go on from the last good time
        return index / self.fps + self._offset_s

    def sample(self, n: int) -> Iterator[np.ndarray]:
        """Up to ``n`` frames spread evenly over the video (the first and the last among them), decoded by a
        capture of their own (the iteration's is not moved): (H, W, 3) uint8 BGR. Only the first frame when
        the header declares no frame count; a frame the decoder cannot seek to is left out."""
        import cv2

        from calibration.images import opencv_path

        last = (self.declared_frames or 1) - 1
        with opencv_path(self.path) as name:
            cap = cv2.VideoCapture(name)
        try:
            for i in sorted({round(k * last / max(1, n - 1)) for k in range(n)}):
                cap.set(cv2.CAP_PROP_POS_FRAMES, i)
                ok, image = cap.read()
                if ok and image is not None and image.shape == self.frame_shape:
                    yield image
        finally:
            cap.release()

    def close(self) -> None:
        self._cap.release()


#: A folder's photo whose detail (:func:`image_detail`) is under this share of the folder's median is
#: blurred: demo photos blurred by a Gaussian of sigma 1 / 1.5 / 2 / 2.5 / 3 px (960 x 540) kept
#: 0.48-0.69 / 0.32-0.39 / 0.20-0.21 / 0.12-0.14 / 0.09-0.10 of it, sharp ones 0.57-1.9 (the bench's
#: folders we looked at: draw, nova-block, jersey-partnership); sigma 1.5 still read right, sigma 2 misread the spinner and a line tile and left a false
#: warning (helper-127), sigma 3 split a hand in two (helper-126).
BLURRED_SHARE = 0.25
#: :func:`image_detail` compares the photo's edges at these long sides (px): fine (noise averaged
#: out, pips and edges kept) and coarse (what the photo shows, blur or not).
DETAIL_LONG_SIDES = (320, 80)


def image_detail(image: np.ndarray) -> float | None:
    """How sharp a photo is, whatever it shows: the variance of the Laplacian of its grey image
    area-scaled to :data:`DETAIL_LONG_SIDES` ``[0]`` px long, over the same at ``[1]`` px (blur lowers the
    first, not the second; more tiles raise both). None for a photo with no edges at all (a plain
    surface: nothing to judge by), or one too small to be scaled down to the fine size.

    Args:
        image: (H, W, 3) uint8 BGR or (H, W) uint8 grey.
    """
    import cv2

    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    if max(grey.shape) < 2 * DETAIL_LONG_SIDES[0]:  # scaled down at least 2x, or the noise stays
        return None
    fine, coarse = (float(cv2.Laplacian(cv2.resize(grey, None, fx=n / max(grey.shape), fy=n / max(grey.shape),
                                                   interpolation=cv2.INTER_AREA), cv2.CV_64F).var())
                    for n in DETAIL_LONG_SIDES)
    return fine / coarse if coarse >= 1.0 else None


#: :attr:`ImageFolderSource.rescale`: a photo is of the folder's shape when its width over height is
#: within this share of the folder's.
RESCALE_ASPECT = 0.01


class ImageFolderSource(FrameSource):
    """A folder of images as a time-lapse: one frame per image, natural name order.

    Args:
        folder: the folder.
        interval_s: seconds between frames (``t = index x interval_s``).
        suffixes: image file suffixes taken (case-insensitive).
        on_unreadable: ``(index, t, path, message)`` called for an image that cannot be
            decoded, whose size differs from most of the folder's photos (:attr:`frame_shape`), or
            that is blurred (:meth:`blurred`), which is then skipped (its index is a gap); None
            (default): such an image raises :class:`SourceError`. May be set after construction.

    Attributes:
        transparent: ``{index: share}`` of the photos read so far that had transparent pixels (a PNG's
            alpha channel), with the share (0-1) of each that was: filled with grey
            (:func:`calibration.images.flatten_transparency`).
        rescale: scale a photo of another size than the folder's, but of its shape, to the folder's
            size instead of skipping it (set it when no calibration ties the photos to one camera:
            helper-126's phone photos of three sizes lost 12 of 18). Off by default.

    Raises:
        SourceError: the folder is missing or holds no images; (while iterating, without
            ``on_unreadable``) an image that cannot be decoded or has another size.
    """

    def __init__(self, folder: str | os.PathLike, interval_s: float = 1.0, suffixes: tuple[str, ...] = IMAGE_SUFFIXES,
                 on_unreadable: Callable[[int, float, Path, str], None] | None = None):
        self._settings(folder, interval_s, suffixes, on_unreadable)
        self.files = self._listing()
        from calibration.images import decode_image

        if self.files and all(p.suffix.lower() in UNDECODED_PHOTO_SUFFIXES for p in self.files) and all(
                decode_image(p) is None for p in self.files[:3]):  # JPEGs named .HEIC are read (helper-123)
            kinds = ", ".join(sorted({p.suffix.upper().lstrip(".") for p in self.files}))
            raise SourceError(f"image folder {self.folder} holds only {kinds} photos, which cannot be read here: "
                              "export them as JPEG (on an iPhone: Settings > Camera > Formats > Most Compatible)")
        if not self.files:
            videos = sorted(p.name for p in self.folder.iterdir()
                            if p.suffix.lower() in VIDEO_SUFFIXES and not p.name.startswith("."))
            hint = f"; it holds the video {videos[0]}: give that file, not its folder" if videos else ""
            if (self.folder / "events.jsonl").is_file():  # a review's output: its video is drawn over
                hint = "; it is a review's output folder (events.jsonl): review the footage that review read"
            raise SourceError(f"image folder {self.folder} holds no images ({', '.join(suffixes)}){hint}")

    def _settings(self, folder: str | os.PathLike, interval_s: float, suffixes: tuple[str, ...],
                  on_unreadable: Callable[[int, float, Path, str], None] | None) -> None:
        """The constructor's arguments checked and kept (shared with
        :class:`vision.folder_follow.FollowedFolderSource`)."""
        self.folder = Path(folder)
        self.on_unreadable = on_unreadable
        self.rescale = False
        self.transparent: dict[int, float] = {}
        if not self.folder.is_dir():
            raise SourceError(f"image folder {self.folder} does not exist")
        if not interval_s > 0:
            raise SourceError(f"frame interval must be > 0 s, got {interval_s}")
        self.interval_s = float(interval_s)
        self.suffixes = tuple(suffixes)

    def _listing(self) -> list[Path]:
        """The folder's photo files in natural name order. Hidden files are not photos (macOS writes
        "._IMG_1.jpg" beside each copied one); a broken link is listed, so it is reported as unreadable
        rather than silently left out."""
        return sorted((p for p in self.folder.iterdir()
                       if p.suffix.lower() in self.suffixes + UNDECODED_PHOTO_SUFFIXES and not p.name.startswith(".")
                       and not p.is_dir()),
                      key=lambda p: natural_key(p.name))

    def __len__(self) -> int:
        return len(self.files)

    def reorder(self, order: list[int]) -> None:
        """Give the photos in ``order`` (``order[i]``: the index in name order of the photo read ``i``-th; a
        permutation of ``range(len(self))``), before they are read: :attr:`files` is reordered in place (those
        who hold it see the new order), with what was measured of each photo."""
        if sorted(order) != list(range(len(self.files))):
            raise ValueError(f"not an order of the folder's {len(self.files)} photos: {order}")
        self.files[:] = [self.files[i] for i in order]
        at = {was: i for i, was in enumerate(order)}
        if hasattr(self, "_detail"):
            self._detail = {at[i]: v for i, v in self._detail.items()}
        moved = {at[i]: v for i, v in self.transparent.items()}
        self.transparent.clear()  # in place too: a review holds it
        self.transparent.update(moved)

    @property
    def frame_shape(self) -> tuple[int, ...] | None:
        """(H, W, C) that most of the images that decode have, the earliest of equally common ones
        (None when none decodes): one camera set-up took the folder, and a stray photo of another
        size (helper-113: a resized copy first in the folder) must not decide it. Decodes every
        image once, on the first call (~9 ms a 1080p JPEG)."""
        from calibration.images import decode_image

        if not hasattr(self, "_shape"):
            counts: dict[tuple[int, ...], int] = {}  # insertion order: the earliest wins a tie
            self._detail: dict[int, float] = {}
            for i, path in enumerate(self.files):
                image = decode_image(path)
                if image is not None:
                    counts[tuple(image.shape)] = counts.get(tuple(image.shape), 0) + 1
                    detail = image_detail(image)
                    if detail is not None:
                        self._detail[i] = detail
            self._shape = max(counts, key=counts.__getitem__) if counts else None
            self._detail_median = float(np.median(list(self._detail.values()))) if self._detail else 0.0
        return self._shape

    def blurred(self, index: int) -> float | None:
        """The photo ``index``'s detail (:func:`image_detail`) as a share of the folder's median when
        under :data:`BLURRED_SHARE` (a shaken or out-of-focus shot), else None. One blurred photo read
        only the tile it added clearly: the line seemed cleared with a new lead on it, and a second hand
        began (helper-126)."""
        self.frame_shape  # noqa: B018 - decodes the folder once, measuring each photo's detail
        if index not in self._detail or len(self._detail) < 3:
            return None
        share = self._detail[index] / max(self._detail_median, 1e-9)
        return share if share < BLURRED_SHARE else None

    def sample(self, n: int) -> Iterator[np.ndarray]:
        """Up to ``n`` of the folder's images spread evenly over it (the first and the last among them),
        decoded: (H, W, 3) uint8 BGR, at the folder's size (:attr:`rescale`); those that do not decode,
        or have another size, are left out."""
        from calibration.images import decode_image

        last = len(self.files) - 1
        first = self.frame_shape
        for i in sorted({round(k * last / max(1, n - 1)) for k in range(n)}):
            image = decode_image(self.files[i])
            if image is not None and first is not None and image.shape[:2] != first[:2]:
                image = self._fitted(image)
            if image is not None:
                yield image

    def _fitted(self, image: np.ndarray) -> np.ndarray | None:
        """A photo of another size scaled to the folder's when :attr:`rescale` is on and it has the
        folder's shape (width over height within :data:`RESCALE_ASPECT`), else None."""
        import cv2

        if not self.rescale or not self._same_shape(image):
            return None
        h, w = self.frame_shape[:2]
        return cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA if image.shape[1] > w else cv2.INTER_LINEAR)

    def _same_shape(self, image: np.ndarray) -> bool:
        """Whether ``image``'s width over height is within :data:`RESCALE_ASPECT` of the folder's."""
        h, w = self.frame_shape[:2]
        ih, iw = image.shape[:2]
        return abs(iw / ih - w / h) <= RESCALE_ASPECT * (w / h)

    def _turned(self, image: np.ndarray) -> bool:
        """Whether ``image`` has the folder's shape turned a quarter (its width over height the folder's
        height over width, within :data:`RESCALE_ASPECT`) and the folder's photos are not square: a photo
        taken with the phone held the other way (helper-220: 540x960 in a 960x540 folder was only "another
        size")."""
        h, w = self.frame_shape[:2]
        ih, iw = image.shape[:2]
        return w != h and abs(iw / ih - h / w) <= RESCALE_ASPECT * (h / w)

    def __iter__(self) -> Iterator[Frame]:
        for i, path in enumerate(self.files):
            frame = self._read(i, path, round(i * self.interval_s, T_DECIMALS))
            if frame is not None:
                yield frame

    def _decoded(self, index: int, image: np.ndarray) -> None:
        """Called with each photo decoded by :meth:`_read`, before it is judged (a followed folder counts
        its size and detail here; this one measured them all on the first :attr:`frame_shape`)."""

    def _read(self, i: int, path: Path, t: float) -> Frame | None:
        """Photo ``i`` (``path``) as the frame at ``t``, or None when it is skipped (``on_unreadable``
        told why; without it, :class:`SourceError`)."""
        from calibration.images import decode_image

        # by what the file holds, not its name (helper-123: a JPEG named .HEIC was refused, `detect` read it)
        image = decode_image(path, on_transparent=functools.partial(self.transparent.__setitem__, i))
        if image is not None:
            self._decoded(i, image)
        odd = image is None and path.suffix.lower() in UNDECODED_PHOTO_SUFFIXES
        first = self.frame_shape
        message = None
        if odd:
            message = (f"image {path} is a {path.suffix.upper().lstrip('.')} photo, which cannot be read here: "
                       "export it as JPEG")
        elif image is None and path.exists() and not path.is_file():  # as `detect` says it (helper-154)
            message = f"image {path} is not a regular file (a device or a pipe)"
        elif image is None:
            message = f"image {path} cannot be decoded (corrupt or not an image)"
        elif first is not None and image.shape[:2] != first[:2] and self._fitted(image) is None:
            # positions from another camera set-up, or the phone held the other way (the README warns of those)
            hint = "; without a calibration, photos of its shape are scaled" if self._same_shape(image) else ""
            why = (": it looks turned a quarter (keep N at the top of the photos: turn it back, or leave it out)"
                   if self._turned(image) else f" (one camera, one size{'' if self.rescale else hint})")
            message = (f"image {path} is {image.shape[1]}x{image.shape[0]} px but the folder's photos are "
                       f"{first[1]}x{first[0]} px{why}")
        elif (blur := self.blurred(i)) is not None:
            message = (f"image {path} is blurred (its detail is {blur:.0%} of the folder's photos' median): not "
                       "read, as its tiles cannot be; take it again, or leave it out")
        elif first is not None and image.shape[:2] != first[:2]:
            image = self._fitted(image)
        if message is not None:
            self.transparent.pop(i, None)  # a skipped photo was not read: its transparency is no concern
            if self.on_unreadable is None:
                raise SourceError(message)
            self.on_unreadable(i, t, path, message)
            return None
        return Frame(i, t, image)


# ---- live ----------------------------------------------------------------------------------

def _default_capture(target: int | str, open_timeout_s: float, read_timeout_s: float):
    """A ``cv2.VideoCapture`` for a camera index or URL with OpenCV's own timeouts set where it has them."""
    import cv2

    from calibration.images import quiet_opencv

    # Each backend that fails to open logs WARN/ERROR lines; the caller says one clear line instead.
    with quiet_opencv():
        if isinstance(target, int):
            cap = cv2.VideoCapture(target)
            cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
            return cap
        params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, int(open_timeout_s * 1000),
                  cv2.CAP_PROP_READ_TIMEOUT_MSEC, int(read_timeout_s * 1000)]
        return cv2.VideoCapture(target, cv2.CAP_FFMPEG, params)


#: Seconds of the very same picture, to the bit, after which a live source is frozen (said to the user).
FROZEN_AFTER_S = 10.0


def _same_picture(prev: np.ndarray | None, image: np.ndarray) -> bool:
    """Whether two frames are identical to the bit. A sparse sample first: a live camera's noise
    changes it almost every frame, so the full compare (~1 ms at 1080p) runs only on a frozen one."""
    if prev is None or prev.shape != image.shape:
        return False
    return np.array_equal(prev[::16, ::16], image[::16, ::16]) and np.array_equal(prev, image)


class LiveSource(FrameSource):
    """A camera or network stream read by a background thread that keeps only the newest frame.

    Args:
        target: camera index (int) or stream URL (``rtsp://``, ``http://``, ...).
        open_timeout_s: seconds to wait for the first frame on :meth:`open`.
        read_timeout_s: no frame for this long is a drop (reconnect).
        backoff_s: first reconnect delay; doubled after every failed attempt ...
        max_backoff_s: ... up to this.
        give_up_s: an outage longer than this raises :class:`SourceError` from the iterator
            (None: keep trying for ever).
        capture_factory: ``target -> capture`` with ``isOpened()``, ``read() -> (ok, image)``
            and ``release()`` (default: ``cv2.VideoCapture``); tests pass fakes.

    Attributes:
        reconnects: successful reconnections so far.
        dropped: frames the reader received but the consumer never saw (newer ones replaced them).
        outages: ``(t_start, t_end)`` seconds of each drop the source recovered from.
        picture_changes: frames that differed from the frame before them (the first frame is
            none); 0 means the picture has not moved since :meth:`open` (see :attr:`frozen_s`).
    """

    live = True

    def __init__(self, target: int | str, open_timeout_s: float = 10.0, read_timeout_s: float = 5.0,
                 backoff_s: float = 0.5, max_backoff_s: float = 2.0, give_up_s: float | None = None,
                 capture_factory: Callable[[int | str], object] | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.target = target
        self.open_timeout_s = float(open_timeout_s)
        self.read_timeout_s = float(read_timeout_s)
        self.backoff_s = float(backoff_s)
        self.max_backoff_s = float(max_backoff_s)
        self.give_up_s = give_up_s
        self._factory = capture_factory or (lambda tg: _default_capture(tg, self.open_timeout_s, self.read_timeout_s))
        self._clock = clock
        self._cond = threading.Condition()
        self._latest: Frame | None = None
        self._seq = -1  # index of the newest frame received
        self._closed = False
        self._error: str | None = None
        self._t0: float | None = None
        self._last_frame_at: float | None = None
        self._down_since: float | None = None
        self._same_since: float | None = None  # source time since which every frame is the same to the bit
        self.picture_changes = 0
        self.reconnects = 0
        self.dropped = 0
        self.outages: list[tuple[float, float]] = []
        self._thread: threading.Thread | None = None
        self._connections: list[threading.Thread] = []
        self._generation = 0
        self._consumed = -1  # index of the newest frame the consumer took

    @property
    def name(self) -> str:
        return f"camera {self.target}" if isinstance(self.target, int) else f"stream {self.target}"

    # -- the reader --------------------------------------------------------------------------
    def open(self) -> LiveSource:
        """Start the reader and wait for the first frame.

        Raises:
            SourceError: no camera / stream there, no frame within ``open_timeout_s``, or a URL
                that is not UTF-8 text.
        """
        if self._thread is not None:
            return self
        if isinstance(self.target, str):  # helper-150: a URL with a byte that is not UTF-8 crashed OpenCV
            from calibration.images import opencv_name

            try:
                opencv_name(self.target)
            except ValueError:
                raise SourceError(f"stream {self.target!r}: the URL holds bytes that are not UTF-8 text, which "
                                  "OpenCV cannot open") from None
        self._t0 = self._clock()
        self._thread = threading.Thread(target=self._supervise, name=f"dominocast-{self.name}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + self.open_timeout_s
        with self._cond:
            while self._latest is None and self._error is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            err, got = self._error, self._latest is not None
        if not got:
            self.close()
            raise SourceError(err or f"{self.name} delivered no frame within {self.open_timeout_s:g} s")
        return self

    def _connect(self, gen: int) -> None:
        """One connection (its own daemon thread): open, then read until it fails or is superseded."""
        try:
            cap = self._factory(self.target)
        except Exception as exc:  # noqa: BLE001 - any backend failure is a failed attempt
            self._report_failure(gen, f"{self.name} could not be opened: {exc}")
            return
        try:
            if not cap.isOpened():
                what = ("no camera at that index" if isinstance(self.target, int)
                        else "no connection, or its answer is no video stream")
                self._report_failure(gen, f"{self.name} could not be opened ({what})")
                return
            while True:
                ok, image = cap.read()
                # A stuck capture or encoder repeats its last frame to the bit; a sensor's noise never
                # does. Compared with the newest frame of any connection: a reconnect to a stuck
                # encoder is not a moving picture.
                latest = self._latest
                prev = None if latest is None else latest.image
                same = ok and image is not None and _same_picture(prev, image)
                with self._cond:
                    if gen != self._generation or self._closed:
                        return  # superseded (we were declared dead) or closed
                    if not ok or image is None:
                        self._fail_now(gen)
                        return
                    now = self._clock()
                    self._seq += 1
                    if self._latest is not None and self._latest.index != self._consumed:
                        self.dropped += 1
                    self._latest = Frame(self._seq, round(now - (self._t0 or now), T_DECIMALS), image)
                    if not same or self._same_since is None:
                        self._same_since = self._latest.t
                        self.picture_changes += prev is not None
                    self._last_frame_at = time.monotonic()
                    if self._down_since is not None:
                        self.outages.append((self._down_since - (self._t0 or 0.0), now - (self._t0 or now)))
                        self._down_since = None
                        self.reconnects += 1
                    self._cond.notify_all()
        finally:
            try:
                cap.release()
            except Exception:  # noqa: BLE001
                pass

    def _report_failure(self, gen: int, message: str) -> None:
        with self._cond:
            if gen == self._generation:
                if self._latest is None and self.reconnects == 0 and self._down_since is None:
                    self._error = message  # the very first attempt: tell open()
                self._fail_now(gen)
                self._cond.notify_all()

    def _last_frame_clock(self) -> float:
        """(lock held) The clock time of the newest frame: when the frames stopped coming, not when the
        stall was noticed (``read_timeout_s`` later; helper-83: a 15 s outage was told as 0.5 s)."""
        return (self._t0 or 0.0) + self._latest.t if self._latest is not None else self._clock()

    def _fail_now(self, gen: int) -> None:
        """(lock held) connection ``gen`` is dead: the supervisor reconnects."""
        if gen == self._generation:
            self._generation += 1
            if self._down_since is None and self._latest is not None:
                self._down_since = self._last_frame_clock()
            self._cond.notify_all()

    def _supervise(self) -> None:
        """Keep one live connection: start it, watch for stalls, reconnect with backoff."""
        delay = self.backoff_s
        while True:
            with self._cond:
                if self._closed or self._error is not None:
                    return
                gen = self._generation
                started = time.monotonic()
            conn = threading.Thread(target=self._connect, args=(gen,), daemon=True)
            with self._cond:
                self._connections = [t for t in self._connections if t.is_alive()] + [conn]
            conn.start()
            with self._cond:
                while not self._closed and gen == self._generation:
                    last = self._last_frame_at if self._last_frame_at and self._last_frame_at > started else started
                    limit = self.read_timeout_s if last > started else max(self.read_timeout_s, self.open_timeout_s)
                    left = last + limit - time.monotonic()
                    if left <= 0:
                        self._fail_now(gen)  # stalled: abandon this connection (its thread exits when read returns)
                        break
                    self._cond.wait(min(left, 0.05))
                if self._closed or self._error is not None:
                    return
                healthy = self._last_frame_at is not None and self._last_frame_at > started
                if self._down_since is None and self._latest is not None:
                    self._down_since = self._last_frame_clock()
            if healthy:
                delay = self.backoff_s
            time.sleep(delay)
            if not healthy:
                delay = min(delay * 2, self.max_backoff_s)

    @property
    def down_since_s(self) -> float | None:
        """Source time (s since :meth:`open`) at which the frames stopped coming; None while they flow."""
        with self._cond:
            return None if self._down_since is None else self._down_since - (self._t0 or 0.0)

    @property
    def frozen_s(self) -> tuple[float, float]:
        """``(since_s, seconds)``: the source time (s since :meth:`open`) since which, and for how many
        seconds, every frame received has been the very same picture, to the bit (a stuck capture card
        or encoder; a real sensor's noise always changes some pixel). ``seconds`` is 0.0 while the
        picture changes; ``(0.0, 0.0)`` before the first frame."""
        with self._cond:
            if self._latest is None or self._same_since is None:
                return 0.0, 0.0
            return self._same_since, self._latest.t - self._same_since

    @property
    def frame_shape(self) -> tuple[int, ...] | None:
        """Shape of the newest frame (after :meth:`open`: the first one's), None before any."""
        with self._cond:
            return None if self._latest is None else self._latest.image.shape

    # -- the consumer ---------------------------------------------------------------------------
    def __iter__(self) -> Iterator[Frame]:
        """The newest frame each time the consumer asks (older ones are dropped).

        Raises:
            SourceError: lost for longer than ``give_up_s``, or the frames changed size (a camera
                that came back at another resolution: its calibration no longer holds).
        """
        self.open()
        last = -1
        first_shape = self.frame_shape
        while True:
            with self._cond:
                while not self._closed and (self._latest is None or self._latest.index == last):
                    if self.give_up_s is not None and self._down_since is not None and \
                            self._clock() - self._down_since > self.give_up_s:
                        raise SourceError(f"{self.name} lost for more than {self.give_up_s:g} s")
                    self._cond.wait(0.05)
                if self._closed:
                    return
                frame = self._latest
                last = frame.index
                self._consumed = last
            if frame.image.shape[:2] != first_shape[:2]:
                (h0, w0), (h1, w1) = first_shape[:2], frame.image.shape[:2]
                raise SourceError(f"{self.name} changed its frame size from {w0}x{h0} to {w1}x{h1} px at "
                                  f"{frame.t:.1f} s (a calibration holds for one size)")
            yield frame

    #: How long :meth:`close` waits for the reader threads to release the capture, s.
    JOIN_TIMEOUT_S = 2.0

    def close(self) -> None:
        """Stop reading and wait (up to :data:`JOIN_TIMEOUT_S` per thread) for the reader
        threads to release the capture: a release still running in a daemon thread while
        the interpreter exits aborts the process ("terminate called without an active
        exception", exit 134, after a camera failed to open)."""
        with self._cond:
            self._closed = True
            self._generation += 1
            self._cond.notify_all()
            threads = [t for t in (self._thread, *self._connections) if t is not None]
        for t in threads:
            if t is not threading.current_thread() and t.is_alive():
                t.join(self.JOIN_TIMEOUT_S)


def open_source(spec: str | int | os.PathLike, interval_s: float = 1.0, follow: bool = False,
                **live_kwargs) -> FrameSource:
    """A source from a spec: a video file, an image folder, a camera index (``0`` or ``"0"``) or a URL.

    ``follow``: an image folder is followed as photos arrive (:class:`vision.folder_follow.FollowedFolderSource`)
    instead of read as it is; any other spec than a folder is then refused.

    Raises:
        SourceError: nothing usable at ``spec``.
    """
    if follow:
        if not Path(str(spec)).is_dir():
            raise SourceError(f"{spec} is not a folder: only a folder of photos can be followed")
        from vision.folder_follow import FollowedFolderSource

        return FollowedFolderSource(spec, interval_s)
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
        return LiveSource(int(spec), **live_kwargs)
    text = str(spec)
    if not text.strip():  # Path("") is ".", the current folder
        raise SourceError("the source is empty: give a video file, a folder of photos (. for the current one), "
                          "a camera index or a stream URL")
    if (path := file_url_path(text)) is not None:
        raise SourceError(f"{text}: give the footage as a path, not a file:// URL: {path}")
    if is_stream_url(text):
        from calibration.images import opencv_name

        try:
            opencv_name(text)  # OpenCV's capture crashed the process on such a URL (a JSON "\udcff")
        except ValueError as exc:
            raise SourceError(str(exc)) from None
        return LiveSource(text, **live_kwargs)
    path = Path(text)
    if path.is_dir():
        return ImageFolderSource(path, interval_s)
    if path.is_file():
        return VideoFileSource(path)
    raise SourceError(f"no video file, image folder, camera or URL at {text!r}")
