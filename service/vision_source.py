"""The ``vision`` worker: a table's camera (or replayed footage) as a live event source.

:class:`VisionSource` opens the table's ``video_source`` (:func:`vision.sources.open_source`:
a video file, replayed at ``speed`` times real time; an image folder; a camera index or a
stream URL, read newest-frame-first), runs the same pipeline as ``dominocast review``
(:class:`service.review_pipeline.FramePipeline`: motion gate -> recognizer -> tracker) in a
**thread**, and hands the engine events to the table's worker as
:class:`~service.sources.SourceItem`\\ s:

* a ``Deal(hands={}, draws_seen=False)`` first in draw games (the camera cannot count the
  deal or unseen draws), and again when the tracker sees the layout cleared (a new hand);
  a worker restarted mid-match instead goes on with the table's last hand as recorded
  (``table["resume"]``: :meth:`vision.tracking.Tracker.resume`), so the tiles already played
  are not read again as new plays: a camera's times go on from the recorded ones
  (``table["clock_s"]``: :meth:`service.live.TableRuntime.source_clock`), a replayed file
  goes on from the last frame it recorded (``table["resume_frame"]``:
  :meth:`service.live.TableRuntime.source_frame`; that frame primes the motion gate,
  :meth:`vision.motion.MotionGate.prime`, and a photo folder's is looked at again, with its read made
  ahead, as the table recorded; one it recorded nothing from starts over);
* every ``Play`` / ``TakeBack`` with its ``t``, ``frame`` and ``confidence``;
* vision notices (``uncertain_read``, ``bump``, ``moved``, ``tile_missing``, ...) as alerts
  (``SourceItem.alert``; the service opens those the umpire decides and keeps the others, e.g. a
  ``bump`` the tracker followed, as closed ``info`` notes: :mod:`service.alert_levels`), and a
  ``source_outage`` alert for each drop a camera or stream recovered from (moves made meanwhile may
  be out of order).

The latest annotated frame is kept for the MJPEG stream (:meth:`VisionSource.mjpeg`): one
capture loop, any number of viewers.

A source that cannot be opened, a corrupt file or missing models end the worker with a
one-line error in the table status (``state: "error"``); the service goes on.

Worker options (``worker_config``): ``speed`` (file replay pace, times real time; the API takes
> 0, up to 10 000; ``0`` here, for tests: as fast as it goes), ``still_window_s`` (0.5),
``annotate`` (True), ``follow`` (False: a photo folder followed as photos arrive, see below). A photo
that does not decode in an image folder is skipped with an
``unreadable_image`` alert naming the file.

A photo of another table in an image folder (another camera, surface or tiles: a stray photo dropped
among the table's; :mod:`vision.photo_scene`) is skipped the same way, with an ``unreadable_image`` alert
whose message says "shows another table", as ``dominocast review`` skips it
(:class:`vision.photo_scene.OneTableFolder`, shared with :func:`service.review.run_review`); so is a copy of
an earlier or later state of this table, told by the tiles read (:mod:`vision.photo_states`; the wiring is
:func:`service.review_pipeline.one_table_folder`, which both call). A listed folder whose photos' names do
not sort in the order taken is read in the order taken, where the line of play tells it
(:mod:`vision.photo_order`), with a ``photos_reordered`` alert naming the photos moved (a followed folder's
photos are read as they come). The order is found by reading every photo once before the first event (the
review then uses those reads); a table stop meanwhile ends the worker after the photo being read, with nothing
recorded. Frame numbers and times follow the order read (photo ``i`` at ``t = i`` s, paced at ``speed``), so a
restart, which lists and orders the folder again the same way, goes on from the last photo recorded in that
order; the alert is said at the first start only. A table started replayed and restarted followed (or the other
way round) numbers the photos of such a folder otherwise: do not switch mid-match. A photo is
judged by the photo kept before it and the one after it, so the worker holds each photo until its
successor has been read (one photo late): a photo unlike both, while they are alike, is left out. The
first photo is judged by the two after it, the last by the two before it. Holding costs the replay no
time: the folder is listed once when the table starts (:class:`vision.sources.ImageFolderSource`), so the
successor is on disk already and is read ahead, not waited for; the pace goes by each photo's own ``t``.
A followed folder (worker option ``follow``: :class:`vision.folder_follow.FollowedFolderSource`, photos read
as they arrive) is one photo late for real: a photo's events come when the next photo does, or once no new
photo has come for :data:`vision.folder_follow.QUIET_S` seconds (the newest photo is then judged as a folder's
last, by the two before it, and read: helper-243, the final hand never ended on air otherwise). A table stop
first reads what came (:meth:`VisionSource.read_held`, as ``dominocast live``'s Ctrl-C does: the photo held, the
photos written whole before the stop), for :data:`STOP_READ_S` seconds at most. It is read as a camera is (no
pace, never ``ended``, a heartbeat a second while it waits for a photo), but restarted as a replayed folder is
(from the last photo recorded: its photos listed again in name order keep their frame numbers).
Comparing with the previous photos only (no holding) was not chosen: a new hand dealt, or a cleared
table, is as unlike the photo before it as a stray photo is, and only the photo after it tells them
apart (it is like the new table, not like the one before).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import AsyncIterator, Callable

import numpy as np

from engine.events import Deal, Draw, HandEnd, Pass, Play, Reveal, TakeBack
from engine.ruleset import load_ruleset, ruleset_from_params
from service.record_sync import RecordSync
from service.review import outage_message
from service.review_output import draw_frame
from service.review_pipeline import FramePipeline, one_table_folder, quiet_look_t
from service.sources import SourceItem, SourceStats, WorkerUnavailable, register_source, relative_note
from vision.sources import Quiet, SourceError

log = logging.getLogger("dominocast.service")

#: notice kinds that do not become alerts (``hand_cleared`` opens the next hand instead)
QUIET_NOTICES = ("hand_cleared",)
_BOUNDARY = "frame"
#: Seconds a table stop waits for a followed photo folder's worker to read the photos that came (the one held to
#: compare with the next, those written whole before the stop) before it stops the worker all the same: a few
#: photos' reads on a slow CPU.
STOP_READ_S = 20.0



class VisionSource:
    """A table's video as an :class:`~service.sources.EventSource` (see module docstring).

    Args:
        table: the table info ``register_source`` factories get (``id``, ``video_source``,
            ``calibration``, ``rules``, ``worker_config``, ...).
        recognizer_factory: ``profile -> (image -> observations)``; default: the ONNX
            :class:`vision.recognize.Recognizer` (needs ``models/tile_detector.onnx``).
            Tests inject an oracle.
        before_frame: called with each frame's index before it is processed (tests).
        frame_source_factory: ``spec -> FrameSource`` (default :func:`vision.sources.open_source`).
    """

    kind = "vision"

    def __init__(self, table: dict, recognizer_factory: Callable | None = None,
                 before_frame: Callable[[int], None] | None = None,
                 frame_source_factory: Callable | None = None):
        self.table = table
        cfg = dict(table.get("worker_config") or {})
        self.speed = float(cfg.get("speed", 1.0) or 0.0)
        self.still_window_s = float(cfg.get("still_window_s", 0.5))
        self.annotate = bool(cfg.get("annotate", True))
        self.follow = bool(cfg.get("follow", False))
        self.recognizer_factory = recognizer_factory
        self.before_frame = before_frame
        self.frame_source_factory = frame_source_factory
        self._stats = SourceStats(connected=None)  # starting: no frame read yet (not a lost signal)
        spec = str(table.get("video_source") or "")
        if table.get("resume") and table.get("resume_frame") is not None and Path(spec).exists():
            self._stats.position = int(table["resume_frame"])  # a replayed file goes on from there (helper-96)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._frames = None  # the vision.sources.FrameSource while open
        self._frame_cond = threading.Condition()
        self._frame: np.ndarray | None = None  # latest annotated frame (BGR)
        self._frame_seq = 0
        self._jpeg: tuple[int, bytes] | None = None
        self.record = RecordSync(int(table.get("hands_recorded") or 0))  # the umpire's changes to the tracker

    # ---- EventSource -------------------------------------------------------------------
    def stats(self) -> SourceStats:
        """Counters; ``connected`` follows a camera's reader: False while its frames have stopped."""
        frames = self._frames
        if self._stats.connected and getattr(frames, "down_since_s", None) is not None:
            return replace(self._stats, connected=False)
        return self._stats

    def down_since_s(self) -> float | None:
        """Source time (s) since which a camera or stream delivers no frame; None while it does."""
        return getattr(self._frames, "down_since_s", None)

    def frozen(self) -> tuple[float, float]:
        """``(since_s, seconds)`` a camera or stream has delivered the very same picture
        (:attr:`vision.sources.LiveSource.frozen_s`); ``(0.0, 0.0)`` for a replayed file."""
        return getattr(self._frames, "frozen_s", (0.0, 0.0))

    def picture_moved(self) -> bool:
        """Whether a camera or stream has delivered a picture different from the one before it
        since this worker started (True for a replayed file): a table restarted on a camera that
        is still frozen has not moved yet, nor has a worker still opening its source."""
        return self._frames is not None and getattr(self._frames, "picture_changes", 1) > 0

    def acknowledge(self, item: SourceItem, hand: int, index: int) -> None:
        """Note the match hand the camera's event went to (:class:`service.record_sync.RecordSync`)."""
        if item.ref is not None:
            self.record.stored(int(item.ref), hand)

    def rejected(self, item: SourceItem) -> None:
        """The service refused one of our events (a ``desync`` alert): it is settled all the same."""
        if item.ref is not None:
            self.record.refused()

    def sync_record(self, hand: int, log: Callable[[], list]) -> None:
        """The table's record of ``hand`` changed by another source (the umpire: a pass, a penalty, a
        correction): the frame thread hands it, read afresh, to the tracker before a next frame
        (:meth:`service.record_sync.RecordSync.take`). Called from the service's event loop."""
        self.record.changed(hand, log)

    def new_match(self, match: int) -> None:
        """The umpire started another match (database id ``match``) at the table: before its next
        frame the tracker starts a new hand, the new match's first, and the tiles on the table now
        are not its plays until moved (:meth:`vision.tracking.Tracker.start_over`). Called from the
        service's event loop."""
        self.record.new_match()

    def _send(self, put: Callable[[object], None], event: object, tag: str, new_hand: bool | None = None) -> None:
        """(frame thread) hand an engine event to the service, tagged with the camera's hand."""
        put(SourceItem(event, new_hand=new_hand, tag=tag, ref=self.record.sent()))

    def read_held(self) -> bool:
        """A table stop of a followed photo folder: stop following, but read what came first (the photo held to
        compare with the next, and those written whole before the stop: ``close(read_rest=True)``, as
        ``dominocast live``'s Ctrl-C); the frame thread then ends as at a folder's end and the source's items end.
        Returns whether there is such a read to wait for (False: not a followed folder, or not running)."""
        frames = self._frames
        if not getattr(frames, "follows", False) or not self.running:
            return False
        frames.close(read_rest=True)
        return True

    async def aclose(self) -> None:
        self._stop.set()
        frames = self._frames
        if frames is not None and getattr(frames, "live", False):
            frames.close()  # thread-safe for a live reader: its consumer wakes up at once
        # a file source is closed by the frame thread itself (it checks the stop flag every frame)
        if self._thread is not None and self._thread.is_alive():
            await asyncio.to_thread(self._thread.join, 10.0)
        self._stats.connected = False
        with self._frame_cond:
            self._frame_cond.notify_all()

    async def __aiter__(self) -> AsyncIterator[SourceItem]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()

        def put(x: object) -> None:
            if not self._stop.is_set():
                loop.call_soon_threadsafe(queue.put_nowait, x)

        self._thread = threading.Thread(target=self._loop, args=(put,), daemon=True,
                                        name=f"vision-{self.table.get('id')}")
        self._thread.start()
        try:
            while True:
                x = await queue.get()
                if x is None:
                    return
                if isinstance(x, BaseException):
                    raise x
                yield x
        finally:
            self._stop.set()

    # ---- the frame loop (its own thread) ---------------------------------------------------
    def _open(self):
        """(rules, profile, recognize, frame source); raises with a one-line message."""
        from vision.sources import open_source

        spec = (self.table.get("video_source") or "").strip()
        if not spec:
            raise ValueError("the table has no video_source (a video file, image folder, camera index or URL)")
        if self.table.get("ruleset") is not None:  # the table's stored rules: its file may have changed since
            rules = ruleset_from_params(self.table["ruleset"], "stored rule set")
        else:
            rules = load_ruleset(self.table["rules"], **(self.table.get("overrides") or {}))
        profile = None
        if self.table.get("calibration"):
            from calibration.profile import TableProfile

            try:
                profile = TableProfile.load(self.table["calibration"])
            except Exception as exc:  # noqa: BLE001 - any unreadable profile is one line in the status
                path = str(self.table["calibration"])
                said = f"calibration {exc}" if path in str(exc) else f"calibration {path}: {exc}"
                raise ValueError(said + relative_note(path)) from None
        if self.recognizer_factory is not None:
            recognize = self.recognizer_factory(profile)
        else:
            from vision.recognize import Recognizer

            recognizer = Recognizer(threads=2)  # ModelsMissingError says which model is missing
            recognize = recognizer.bind(profile)
        try:
            frames = (self.frame_source_factory or (lambda s: open_source(s, follow=self.follow)))(spec)
        except SourceError as exc:
            raise SourceError(f"{exc}{relative_note(spec)}") from None
        return rules, profile, recognize, frames

    def _loop(self, put: Callable[[object], None]) -> None:
        try:
            rules, profile, recognize, frames = self._open()
            self._frames = frames
            if self._stop.is_set():
                frames.close()
                return
            self._run(rules, profile, recognize, frames, put)
            put(None)
        except BaseException as exc:  # noqa: BLE001 - the worker reports it in the table status
            if not self._stop.is_set():
                log.warning("vision worker of table %s: %s", self.table.get("id"), exc)
                put(exc)
        finally:
            self._stats.connected = False
            if self._frames is not None:
                try:
                    self._frames.close()
                except Exception:  # noqa: BLE001
                    pass

    def _run(self, rules, profile, recognize, frames, put) -> None:  # noqa: ANN001
        live = bool(getattr(frames, "live", False))
        # a followed photo folder (worker.follow) stops rather than ends, but goes on after a restart as a
        # replayed folder does: from the last photo it recorded (its photos are listed again, in name order)
        following = bool(getattr(frames, "follows", False))
        camera = live and not following
        if hasattr(frames, "open"):
            frames.open()  # a camera / stream: wait for its first frame (SourceError otherwise)
        shape = getattr(frames, "frame_shape", None)
        if profile is not None and shape is not None:  # before any event: a refused start records nothing
            from vision.recognize import check_profile

            check_profile(profile, shape)
        folder = None  # a photo folder: its frames with the photos of another table left out
        if getattr(frames, "on_unreadable", False) is None:  # a photo folder: one bad photo is skipped, said
            def skipped(index: int, t: float, path, message: str) -> None:
                put(SourceItem(None, tag=f"vision:{index}", alert={
                    "kind": "unreadable_image", "frame": index, "t": t, "file": str(path),
                    "message": f"{message}; skipped"}))

            frames.on_unreadable = skipped
            if isinstance(getattr(frames, "files", None), list):  # one photo late: see the module's docstring
                def stopped(_read: int) -> None:  # a stop while the folder is read ahead (its order) ends it there
                    if self._stop.is_set():
                        raise InterruptedError("the table stopped")  # not reported: _loop drops it when stopped

                folder, recognize = one_table_folder(frames, skipped, recognize, progress=stopped)
                # read in the order taken (vision.photo_order): said as the review says it, once: a restart going
                # on from the photos recorded reads them in the same order, said when they were read
                resuming = self.table.get("resume") and self.table.get("resume_frame") is not None
                if folder.order_note and not resuming:
                    put(SourceItem(None, tag="vision:order", alert={
                        "kind": "photos_reordered", "frame": None, "t": 0.0, "message": folder.order_note,
                        "order": [Path(p).name for p in frames.files]}))
        if following:  # waiting for the next photo is not a silent source: a heartbeat a second meanwhile
            beat = [time.monotonic()]

            def heartbeat() -> None:
                if time.monotonic() - beat[0] >= 1.0:
                    beat[0] = time.monotonic()
                    put(SourceItem(None))

            frames.on_poll = heartbeat
        self._stats.connected = True
        self._stats.total = None if following else (
            len(frames) if hasattr(frames, "__len__") else getattr(frames, "declared_frames", None))
        pipeline = FramePipeline(rules, recognize, profile, still_window_s=self.still_window_s,
                                 timelapse=hasattr(frames, "interval_s"))
        draw_game = bool(rules.boneyard)
        resume = self.table.get("resume")
        # a replayed file goes on from the last frame it recorded; one it recorded nothing from (the
        # hand typed by hand) starts over
        skip = self.table.get("resume_frame") if resume and not camera else None
        if not camera and skip is None:
            resume = None
        if resume:  # restarted mid-match: go on with the hand recorded, not a new one
            log, context, hand = resume
            pipeline.tracker.resume(log, context)
            self.record.resumed(hand)
        # a file starting over: after hands already recorded its first event opens a new one
        self.record.new_hand = bool(self.table.get("resume")) and not resume
        if camera and not resume and self.table.get("after_match"):  # a new match, nothing recorded yet:
            pipeline.tracker.start_over(0, 0.0, new_hand=False)  # the tiles the camera finds are the last one's
        if draw_game and not resume:  # the camera sees neither the deal nor the draws
            self._send(put, Deal(hands={}, draws_seen=False), "vision:deal", new_hand=self.record.new_hand or None)
            self.record.new_hand = False
        # a camera's clock starts at 0 when it opens: a restarted worker goes on from the recorded times
        clock = float(self.table.get("clock_s") or 0.0) if live else 0.0
        t0 = time.monotonic()
        fps_n, fps_t = 0, time.monotonic()
        told = 0  # the source's recovered drops already reported
        last, last_image = None, None  # (index, t) of the latest frame, and its image
        for frame in (folder if folder is not None else frames):
            if self._stop.is_set():
                return
            if isinstance(frame, Quiet):  # a followed folder with no new photo for a while: its newest photo read
                look = quiet_look_t(pipeline.tracker, round(clock + frame.t, 3), last[1]) if last else None
                if look is not None:  # and looked at again, when a reveal waits for a read (review.run_review too)
                    synced = self.record.take(pipeline.tracker)
                    _, events = pipeline.step(last[0], look, last_image)
                    self._dispatch(synced + events, last[0], put, draw_game)
                    last = (last[0], look)
                continue
            if skip is not None:  # the frames a replayed file already gave, decoded to keep its indices
                if frame.index < skip and hasattr(pipeline.recognize, "forget"):
                    # read ahead to judge its neighbours, never by the pipeline; the last one recorded is (below),
                    # with that read
                    pipeline.recognize.forget(frame.index)
                if frame.index < skip:
                    self._stats.position = frame.index + 1
                    if time.monotonic() - fps_t >= 1.0:
                        fps_t = time.monotonic()
                        put(SourceItem(None))  # a heartbeat: the status shows the position moving
                    continue
                if frame.index == skip and pipeline.gate is not None:
                    # the still frame its last event was read from: the table as recorded, no arm in it
                    pipeline.gate.prime(frame.t, frame.image)
                    self._stats.position = frame.index + 1
                    continue
                skip, t0 = None, time.monotonic() - frame.t / (self.speed or 1.0)  # its pace goes on from here
            if not live and self.speed > 0:  # replayed footage: real-time pace (times speed)
                wait = t0 + frame.t / self.speed - time.monotonic()
                if wait > 0 and self._stop.wait(wait):
                    return
            if self.before_frame is not None:
                self.before_frame(frame.index)
            for start_s, end_s in (getattr(frames, "outages", None) or [])[told:]:
                told += 1
                put(SourceItem(None, tag=f"vision:{frame.index}", alert={  # the frame keys the alert
                    "kind": "source_outage", "frame": frame.index, "t": round(clock + start_s, 3),
                    "t_end": round(clock + end_s, 3), "message": outage_message(clock + start_s, clock + end_s, live)}))
            t = round(clock + frame.t, 3)
            how = self.record.take_start_over(bool(pipeline.tracker.plays))
            if how is not None:
                synced = pipeline.tracker.start_over(frame.index, t, new_hand=how == "new")
            else:
                synced = self.record.take(pipeline.tracker)
            _, events = pipeline.step(frame.index, t, frame.image)
            events = synced + events
            self._stats.position = frame.index + 1
            self._stats.last_read = time.time()
            fps_n += 1
            now = time.monotonic()
            if now - fps_t >= 1.0:
                self._stats.fps, fps_n, fps_t = round(fps_n / (now - fps_t), 1), 0, now
                put(SourceItem(None))  # a heartbeat: the status shows frames read, fps; the camera is alive
            self._dispatch(events, frame.index, put, draw_game)
            if self.annotate:
                shadow = pipeline.tracker.hand.state  # the hand as the camera read it (its open ends)
                table_scores = self.table.get("scores")  # the table's (helper-79: "NS 0" while it stood at 156)
                scores = table_scores() if callable(table_scores) else dict(shadow.scores)
                self._publish_frame(draw_frame(frame.image, pipeline.last_obs, scores, shadow.layout.open_ends(), None))
            last, last_image = (frame.index, t), frame.image
        self._stats.ended = not live  # a file or folder read to its end (a camera's frames end only when closed)
        if last is not None:  # the footage ended (not stopped): hands shown at its end are taken as they lie
            self._dispatch(pipeline.tracker.finish(*last), last[0], put, draw_game)
        put(SourceItem(None))  # the last frame's stats

    def _dispatch(self, events: list, index: int, put, draw_game: bool) -> None:  # noqa: ANN001
        """Send a frame's tracker events to the record (engine events) or the alerts (notices)."""
        for ev in events:
            kind = getattr(ev, "kind", None) if getattr(ev, "type", "") == "vision_notice" else None
            if kind == "hand_cleared":
                self.record.cleared()
                if draw_game:
                    self._send(put, Deal(hands={}, draws_seen=False), f"vision:{index}", new_hand=True)
                    self.record.new_hand = False
            elif kind is not None:
                put(SourceItem(None, tag=f"vision:{index}", alert={**ev.to_json(), "kind": kind}))
            elif isinstance(ev, (Play, Pass, Draw, TakeBack, Reveal, HandEnd)):
                self._send(put, ev, f"vision:{index}", new_hand=True if self.record.new_hand else None)
                self.record.new_hand = False

    # ---- annotated video ---------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """The frame loop is (about to be) running: not stopped, not finished."""
        return not self._stop.is_set() and (self._thread is None or self._thread.is_alive())

    def _publish_frame(self, image: np.ndarray) -> None:
        with self._frame_cond:
            self._frame = image
            self._frame_seq += 1
            self._frame_cond.notify_all()

    def latest_jpeg(self, after: int = 0, timeout: float = 5.0) -> tuple[int, bytes] | None:
        """(sequence, JPEG bytes) of the newest annotated frame newer than ``after`` (blocking, up to
        ``timeout``); None when none came or the source stopped. Each frame is encoded once, whatever
        the number of viewers."""
        import cv2

        deadline = time.monotonic() + timeout
        with self._frame_cond:
            while self._frame_seq <= after and not self._stop.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._frame_cond.wait(left)
            if self._frame is None or self._frame_seq <= after:
                return None
            if self._jpeg is None or self._jpeg[0] != self._frame_seq:
                ok, buf = cv2.imencode(".jpg", self._frame, [cv2.IMWRITE_JPEG_QUALITY, 75])
                if not ok:
                    return None
                self._jpeg = (self._frame_seq, buf.tobytes())
            return self._jpeg

    async def mjpeg(self, max_fps: float = 10.0) -> AsyncIterator[bytes]:
        """``multipart/x-mixed-replace; boundary=frame`` parts of the annotated video, until the source stops."""
        seq = 0
        while self.running:
            got = await asyncio.to_thread(self.latest_jpeg, seq, 2.0)
            if got is None:
                continue
            seq, jpeg = got
            yield (f"--{_BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n").encode() \
                + jpeg + b"\r\n"
            await asyncio.sleep(1.0 / max_fps)


MJPEG_MEDIA_TYPE = f"multipart/x-mixed-replace; boundary={_BOUNDARY}"


def default_factory(table: dict) -> VisionSource:
    """The ``vision`` source with the shipped ONNX models.

    Raises:
        WorkerUnavailable: a model file is missing (the start answers ``501`` and says which).
    """
    from vision.recognize import DEFAULT_DETECTOR, DEFAULT_PIP_READER

    for path, what in ((DEFAULT_DETECTOR, "detector"), (DEFAULT_PIP_READER, "pips")):
        if not path.is_file():
            raise WorkerUnavailable(
                f"the vision worker is not available yet: model file {path} is missing (train it with "
                f"`dominocast train {what}` or copy the released {path.name} into {path.parent})")
    return VisionSource(table)


def register(recognizer_factory: Callable | None = None, **kwargs) -> None:
    """Make the ``vision`` worker kind available (``service.sources.register_source``); tests pass
    ``recognizer_factory`` (``profile -> recognize``) to run it without the models."""
    if recognizer_factory is None and not kwargs:
        register_source("vision", default_factory)
    else:
        register_source("vision", lambda table: VisionSource(table, recognizer_factory=recognizer_factory, **kwargs))
