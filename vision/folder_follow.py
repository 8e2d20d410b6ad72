"""A folder of photos followed live: the photos there, then each new one as it is complete.

An umpire or a streamer who takes one photo per move with a tethered camera, or a phone that syncs
into a folder, wants the score as the photos arrive, not once the match is over::

    from vision.folder_follow import FollowedFolderSource
    with FollowedFolderSource("table-3") as src:     # ends only when closed (Ctrl-C, a table stop)
        for index, t, image in src:
            ...

:class:`FollowedFolderSource` is an :class:`vision.sources.ImageFolderSource` whose list of photos
grows. It reads the photos already in the folder as they are (natural name order, as a folder review
does), then lists the folder every :data:`POLL_S` seconds. A new file is read once it is complete: its
size (not 0) and modification time the same at two listings in a row, one poll apart, and it decodes
whole (:func:`calibration.images.decode_image`: a truncated JPEG does not), so a JPEG still being copied
or synced is not read half-written and skipped as corrupt, even from a copy that pauses longer than a
poll; a file that does not decode is read (and said to be corrupt) once unchanged for :data:`SETTLE_S`.
The new files complete at one listing are read in natural name order among themselves; a file that sorts
before one already read is read after it (its index is the order of arrival). A file already read is never
read again (a photo written again under its name is not a new move); hidden files, folders and other
suffixes are left out, as a folder's are. Each photo is judged as a folder's (undecodable, another size,
blurred: ``on_unreadable`` or :class:`vision.sources.SourceError`), the folder's size and detail median
being those of the photos read so far (:attr:`frame_shape`, :meth:`blurred`).

``t`` (seconds): a photo already in the folder when the source started is ``index x interval_s``, as
in a folder review; a new photo is the seconds since the source started when it was found complete,
but never less than the photo before it plus ``interval_s`` (so times only increase, one photo apart
at least, and a followed folder's first photos keep a review's times).

It ends only when closed (:meth:`close`, thread-safe: a listing wait wakes up at once); a folder that
is removed or becomes unreadable while followed raises :class:`vision.sources.SourceError` with one line.
A photo is judged against the photos around it (:class:`vision.photo_scene.OneTable`), so a consumer holds the
newest one until the next comes; the last photo of a match would wait for ever (helper-243: a followed service
table's final hand never ended on air). With :attr:`FollowedFolderSource.marks_quiet` set (the consumer takes the
mark: :class:`vision.photo_scene.OneTableFolder` sets it), once no new photo has come for :data:`QUIET_S` seconds
after the last one read, the source yields a :class:`vision.sources.Quiet` mark once: the held photo is then decided
as a folder's last (against the photos before it) and read, and looked at again if a reveal waits for a read (the
table is still as it shows); a photo coming later is judged against it as usual.

Closed with ``read_rest`` (``dominocast live``'s Ctrl-C), it first reads the photos listed and not read yet,
then lists the folder once more and reads the new files that decode whole at once (a photo written just before
the stop was left unread: it had not been seen at two listings yet); those that do not (still being written)
are left in :attr:`unread`.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from vision.sources import (BLURRED_SHARE, IMAGE_SUFFIXES, T_DECIMALS, Frame, ImageFolderSource, Quiet,
                            SourceError, image_detail)

__all__ = ["FollowedFolderSource", "POLL_S", "QUIET_S", "SETTLE_S"]

#: Seconds between two listings of a followed folder.
POLL_S = 0.5
#: Seconds a new file that does not decode yet stays unchanged before it is read all the same (and said to
#: be corrupt): a copy or a sync that pauses longer than a poll mid-file is waited for.
SETTLE_S = 5.0
#: Seconds with no new photo after the last one read before the source yields its quiet mark (see the module):
#: longer than two listings (:data:`POLL_S` apart: a photo being written is not yet a new photo) and than the
#: reveal settle time of a draw game (``vision.tracking.TrackerConfig.reveal_settle_s``, 3 s: the second look then
#: ends the hand), and longer than most moves take, so most photos are still judged by the photo after them too (a
#: stale copy, a copy of a later photo); the last photo of a hand is read within this time, without a stop.
QUIET_S = 20.0


class FollowedFolderSource(ImageFolderSource):
    """A folder of photos followed as photos arrive (see the module).

    Args:
        folder: the folder (it may be empty).
        interval_s: the least seconds between two photos' ``t`` (and a photo's ``t`` among those there
            at the start, ``index x interval_s``).
        suffixes, on_unreadable: as :class:`vision.sources.ImageFolderSource`'s.
        poll_s: seconds between listings.
        settle_s: seconds a new file that does not decode must stay unchanged before it is read (and said
            to be corrupt).
        quiet_s: seconds with no new photo before the quiet mark (:data:`QUIET_S` when None).
        clock: seconds, monotonic (``t``); tests pass a fake.
        sleep: ``seconds -> None`` waits between listings; default: a wait that :meth:`close` ends at once.
            Tests pass one that writes files.

    Attributes:
        files: the photos listed so far, by frame index (grows while iterated).
        unread: the new files not whole at the last listing of a ``close(read_rest=True)``: not read.
        on_photo: called with each frame before it is yielded (``dominocast live`` measures the tile size on
            the first photos), or None.
        on_poll: called after each wait for the next listing, or None (the service's worker says it is alive
            while no photo comes: a move may take minutes).
        marks_quiet: False (default) or True: a :class:`vision.sources.Quiet` mark is yielded among the frames once
            ``quiet_s`` have passed with no new photo after one was read (see the module).
    """

    live = True  # it stops, it does not end
    follows = True

    def __init__(self, folder: str | os.PathLike, interval_s: float = 1.0, suffixes: tuple[str, ...] = IMAGE_SUFFIXES,
                 on_unreadable: Callable[[int, float, Path, str], None] | None = None, poll_s: float = POLL_S,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] | None = None,
                 settle_s: float = SETTLE_S, quiet_s: float | None = None):
        self._settings(folder, interval_s, suffixes, on_unreadable)
        self.poll_s = float(poll_s)
        self._clock = clock
        self._closed = threading.Event()
        self._sleep = sleep or self._closed.wait
        self._t0 = clock()
        self.files = self._list()  # the photos there now: read first, as they are
        self._taken = {p.name for p in self.files}
        self._there = len(self.files)
        self.settle_s = float(settle_s)
        self.quiet_s = float(QUIET_S if quiet_s is None else quiet_s)
        self.marks_quiet = False
        self._last: dict[str, tuple] = {}  # name -> (signature, unchanged since) of the files not taken yet
        self._used = False
        self._read_rest = False
        self.unread: list[Path] = []
        self.on_photo: Callable[[Frame], None] | None = None
        self.on_poll: Callable[[], None] | None = None
        # the folder's size and detail, from the photos read so far
        self._counts: dict[tuple[int, ...], int] = {}
        self._detail: dict[int, float] = {}

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def close(self, read_rest: bool = False) -> None:
        """Stop following: the iteration ends at its next listing, or at once while it waits (a table stop).
        ``read_rest``: it ends once the photos listed, and those whole at one last listing, are read (the user's
        stop: what came is read)."""
        self._read_rest = self._read_rest or read_rest
        self._closed.set()

    def _list(self) -> list[Path]:
        try:
            if not self.folder.is_dir():
                raise FileNotFoundError
            return self._listing()
        except FileNotFoundError:
            raise SourceError(f"image folder {self.folder} was removed while it was followed") from None
        except OSError as exc:
            raise SourceError(f"image folder {self.folder} cannot be read while it is followed: "
                              f"{exc.strerror or exc}") from None

    # ---- the folder's size and detail, photo by photo -------------------------------------------
    @property
    def frame_shape(self) -> tuple[int, ...] | None:
        """(H, W, C) that most of the photos decoded so far have, the earliest of equally common ones (None
        before any): a photo is judged by those read before it and itself, so the first is never skipped
        for its size."""
        return max(self._counts, key=self._counts.__getitem__) if self._counts else None

    def _decoded(self, index: int, image: np.ndarray) -> None:
        self._counts[tuple(image.shape)] = self._counts.get(tuple(image.shape), 0) + 1
        detail = image_detail(image)
        if detail is not None:
            self._detail[index] = detail

    def blurred(self, index: int) -> float | None:
        """As :meth:`vision.sources.ImageFolderSource.blurred`, against the median of the photos read so far
        (this one among them): none of the first two photos is judged (three at least are needed)."""
        if index not in self._detail or len(self._detail) < 3:
            return None
        share = self._detail[index] / max(float(np.median(list(self._detail.values()))), 1e-9)
        return share if share < BLURRED_SHARE else None

    # ---- following ---------------------------------------------------------------------------
    @staticmethod
    def _signature(path: Path) -> tuple | None:
        """(size, mtime_ns, regular file) of ``path`` (of the link itself when it is broken); None when gone."""
        try:
            st = path.stat()
        except OSError:
            try:
                st = path.lstat()
            except OSError:
                return None
        return st.st_size, st.st_mtime_ns, stat.S_ISREG(st.st_mode)

    def _poll(self, last: bool = False) -> list[Path]:
        """List the folder once: the new files complete since the listing before (natural name order).
        ``last``: the listing at a stop, with no next one to wait for: the new files that decode whole now
        (the others go to :attr:`unread`)."""
        from calibration.images import decode_image

        ready, seen = [], {}
        now = self._clock()
        for path in self._list():
            if path.name in self._taken:
                continue
            sig = self._signature(path)
            if sig is None:
                continue
            size, _, regular = sig
            if last:
                (ready if regular and size > 0 and decode_image(path) is not None else self.unread).append(path)
                continue
            before = self._last.get(path.name)
            since = before[1] if before is not None and before[0] == sig else now
            # the same at two listings (an empty file is waited for), and whole: it decodes, or it has not
            # changed for SETTLE_S (a copy that paused mid-file, then is read and said to be corrupt)
            if before is not None and before[0] == sig and (not regular or size > 0 and (
                    now - since >= self.settle_s or decode_image(path) is not None)):
                ready.append(path)
            else:
                seen[path.name] = (sig, since)
        self._last = seen
        self._taken.update(p.name for p in ready)
        return ready  # _listing sorted them

    def __len__(self) -> int:
        return len(self.files)

    def __iter__(self) -> Iterator[Frame]:
        if self._used:
            raise SourceError(f"{self.folder}: a followed folder can be iterated once; open it again")
        self._used = True
        i, last_t, listed_last = 0, None, False
        read_at = None  # the clock when the last photo was read, until the quiet mark for it is yielded
        while True:
            while i < len(self.files):
                if self._closed.is_set() and not self._read_rest:
                    return
                if i < self._there:
                    t = round(i * self.interval_s, T_DECIMALS)
                else:
                    found = self._clock() - self._t0
                    t = round(max(found, last_t + self.interval_s if last_t is not None else 0.0), T_DECIMALS)
                last_t = t
                frame = self._read(i, self.files[i], t)
                i += 1
                read_at = self._clock()  # a photo skipped counts too: its skip is said once the ones before are decided
                if frame is not None:
                    if self.on_photo is not None:
                        self.on_photo(frame)
                    yield frame
            if self._closed.is_set():
                if not self._read_rest or listed_last:
                    return
                self.files.extend(self._poll(last=True))  # then read, as the photos listed were
                listed_last = True
                continue
            self._sleep(self.poll_s)
            if self._closed.is_set():
                continue  # the photos listed and not read yet, and a last listing, when read_rest
            if self.on_poll is not None:
                self.on_poll()
            self.files.extend(self._poll())
            if self.marks_quiet and read_at is not None and i == len(self.files) and \
                    self._clock() - read_at >= self.quiet_s:
                read_at = None
                yield Quiet(round(self._clock() - self._t0, T_DECIMALS))
