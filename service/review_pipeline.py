"""One frame at a time, from picture to tracker events: motion gate -> recognizer -> tracker.

:class:`FramePipeline` is shared by a review of recorded footage (:class:`service.review.ReviewSession`)
and the service's live ``vision`` worker (``service/vision_source.py``). It also says what a frame's
picture hides: arms over a folder's photos (``arm_in_photo``) and glare (``overexposed``) notices.
"""

from __future__ import annotations

from typing import Callable

import cv2
import numpy as np

from engine.match import first_context
from engine.ruleset import Ruleset
from vision.exposure import OVEREXPOSED_SHARE, clipped_mask, glare_beside, overexposed_message
from vision.motion import MotionGate
from vision.photo_arms import PhotoArms
from vision.photo_scene import OneTableFolder
from vision.photo_states import PhotoTiles, photo_tiles
from vision.placements import Notice
from vision.tracking import Tracker, TrackerConfig

#: The ``arm_in_photo`` notice of a folder's photo (:class:`vision.photo_arms.PhotoArms`).
ARM_IN_PHOTO = ("this photo shows an arm or hand over the table (reaching in from the {side} edge: it differs there "
                "from the photos before and after it): a photo taken while a player reaches in shows the move a photo "
                "late; take each photo once the hand has left the table")


class FramePipeline:
    """One frame at a time: ``MotionGate`` (read only when still) -> recognizer -> ``Tracker``.

    Shared by :class:`ReviewSession` (recorded footage) and the service's live ``vision``
    worker (``service/vision_source.py``).

    Args:
        rules: the rule set the tracker follows (turn order, spinners).
        recognize: image -> list of TileObservation; one with ``takes_focus``
            (:meth:`vision.recognize.Recognizer.bind`) also gets ``focus``, where the gate saw
            the table change since the last read.
        profile: calibration profile or None.
        still_window_s: seconds the table must be still before a read.
        timelapse: every frame is a stable state: read every frame, no motion gate.
    """

    def __init__(self, rules: Ruleset, recognize: Callable, profile=None, still_window_s: float = 0.5,
                 timelapse: bool = False):
        self.recognize = recognize
        # a photo folder's first photo may show the lead just laid: no setup to leave out
        config = TrackerConfig(still_window_s=0.0 if timelapse else still_window_s,
                               setup_min_score=None if timelapse else TrackerConfig.setup_min_score)
        # the first hand's opener the rule set requires (6-6): a photo folder's first photo may show it laid
        self.tracker = Tracker(rules, first_context(rules), profile=profile, config=config)
        self.gate = None if timelapse else MotionGate(still_window_s=still_window_s)
        self.last_obs: list = []  # the latest observations (what an annotated frame shows)
        self.reads = 0
        # boxes dropped as off the calibrated table in all reads, and those surely tiles (a bound Recognizer says)
        self.off_table = self.off_table_sure = 0
        #: a folder's photos with arms over the table (None for footage: the motion gate waits for arms)
        self.photo_arms = PhotoArms() if timelapse else None
        self._last_photo: int | None = None  # the index of the photo before this one
        #: (H, W) uint8 mask of the last read picture's clipped white (:func:`vision.exposure.clipped_mask`)
        self.clipped: np.ndarray | None = None
        self._glared = False  # the last read was overexposed: footage's next one is the same glare, not said again
        self._exposed: np.ndarray | None = None  # the last picture looked at for glare (a second look is no new one)
        # the tracker asked for a confirming read (a tile gone, a hand shown): that read looks at the other scale
        # than the read before (a recognizer with ``takes_second_look``), as the same still frame at the same
        # scale repeats a miss; a second look's own miss is confirmed at the usual scale
        self._confirming = False
        self._second_look = False  # the last read was a second look

    def step(self, index: int, t: float, image: np.ndarray, each_read: bool = False) -> tuple[list | None, list]:
        """Process one frame; returns (its observations or None when not read, tracker events and notices).
        ``each_read``: every read is a photo of its own (a folder), each overexposed one is said; else a
        glare is said at the first read of each stretch of it."""
        info = self.gate.update(index, t, image, roi_px=self.tracker.roi_px()) if self.gate else None
        if self.tracker.image_size is None:  # photos have no gate to tell it: uncalibrated hand areas need it
            self.tracker.image_size = (image.shape[1], image.shape[0])
        obs = None
        if info is None or info.read:
            focus = info.changed_mask() if info is not None and getattr(self.recognize, "takes_focus", False) else None
            second = self._confirming and not self._second_look and getattr(self.recognize, "takes_second_look", False)
            if second:
                obs = self.recognize(image, focus=focus, second_look=True)
            else:
                obs = self.recognize(image, focus=focus) if focus is not None else self.recognize(image)
            self._confirming, self._second_look = False, second
            self.reads += 1
            self.last_obs = obs
            rec = getattr(self.recognize, "recognizer", None)
            self.off_table += getattr(rec, "last_off_table", 0)
            self.off_table_sure += getattr(rec, "last_off_table_sure", 0)
        # clipped white in a read picture: tiles under it are hidden, not gone (vision.exposure.hidden_by_glare)
        self.clipped = clipped_mask(image) if obs is not None else None
        arms = []
        if self.photo_arms is not None:  # the photo before this one is decided now, before this one is read
            arms = self.photo_arms.add(index, t, image, self.clipped)
            if any(i == self._last_photo for i, _, _ in arms):
                self.tracker.arm_in_last_photo()
            self._last_photo = index
        share = cv2.countNonZero(self.clipped) / self.clipped.size if self.clipped is not None else 0.0
        events = arm_notices(arms) + self.tracker.update(index, t, obs, info, clipped=self.clipped if share else None)
        if self.clipped is not None and image is not self._exposed:
            self._exposed = image
            events = self._exposure(index, t, share, each_read) + events
        if self.tracker.wants_read:
            self._confirming = True  # the gate's next read, or a folder's next photo
            if self.gate is not None:
                self.gate.request_read()
        return obs, events

    def _exposure(self, index: int, t: float, share: float, each_read: bool) -> list[Notice]:
        """An ``overexposed`` notice for a read picture largely clipped white, or whose clipped white hides
        tiles of the line of play or lies at an open end (:mod:`vision.exposure`; helper-136: a glare over one
        end, 24.5 % of the picture, lost plays without a word): each such photo of a folder (``each_read``);
        footage's glare once, at the first read of it (its next reads show the same light). ``share``: 0-1
        of the picture clipped white (:attr:`clipped`)."""
        mask = self.clipped
        hidden = self.tracker.hidden_tiles  # laid tiles not seen, under the glare
        hands = self.tracker.hidden_hand_tiles  # the hands' tiles not seen: a play's seat is the turn's
        ends = sum(glare_beside(mask, p) for p in self.tracker.open_end_polygons()) if share else 0
        glare = share >= OVEREXPOSED_SHARE or hidden > 0 or ends > 0 or hands > 0
        said = self._glared and not each_read
        self._glared = glare
        if not glare or said:
            return []
        return [Notice("overexposed", t, index, overexposed_message(share, hidden, ends, hands),
                       details={"clipped": round(share, 3), "hidden_tiles": hidden, "ends_glared": ends,
                                "hidden_hand_tiles": hands})]


def quiet_look_t(tracker: Tracker, quiet_t: float, last_t: float) -> float | None:
    """The time (s) of a second look at a followed folder's newest photo (read at ``last_t``) when no new photo has
    come by ``quiet_t`` (a :class:`vision.sources.Quiet` mark, on the same clock), or None when nothing waits for a
    read. The table is still as the photo shows it then, as a second photo of it would show: hands turned up at the
    end of a hand (a reveal) wait for such a read (``settle_s`` later in a draw game) and would otherwise wait for
    the next hand's first photo (helper-243: the final hand never ended on air)."""
    t = max(quiet_t, last_t)
    return t if (tracker.wants_read or tracker.reveals.pending) and t > last_t else None


def arm_notices(decided: list[tuple[int, float, str]]) -> list[Notice]:
    """``arm_in_photo`` notices for the photos :class:`vision.photo_arms.PhotoArms` found arms in."""
    return [Notice("arm_in_photo", t, i, ARM_IN_PHOTO.format(side=side), details={"side": side})
            for i, t, side in decided]


def one_table_folder(source, say: Callable[[int, float, object, str], None], recognize: Callable,
                     progress: Callable[[int], None] | None = None) -> tuple[OneTableFolder, Callable]:
    """A photo folder's frames with the photos it should not score left out, and the recognizer to read the rest.

    Shared by the folder review (:func:`service.review.run_review`) and the service's photo-folder tables
    (:class:`service.vision_source.VisionSource`), so both skip the same photos with the same messages.

    Args:
        source: a photo folder (:class:`vision.sources.ImageFolderSource` or a followed one): ``files`` and
            ``on_unreadable``, which the folder takes over.
        say: ``(index, t, path, message)``, told of each photo skipped, in the photos' order: undecodable,
            blurred, of another size, of another table (:class:`vision.photo_scene.OneTableFolder`) and, with a
            recognizer whose reads depend on the picture alone (``reads_alone``), a copy of an earlier or later
            state of this table, told by the tiles read (:mod:`vision.photo_states`).
        recognize: the pipeline's recognizer.
        progress: called with the number of photos read so far while a listed folder is read ahead for its order.

    With such a recognizer a listed folder (not a followed one, whose photos are read as they come) is first put in
    the order its photos were taken (:func:`taken_order_note`; ``folder.order_note``: the line that says which
    photos moved, or None), so both read it in that order.

    Returns:
        ``(folder, recognize)``: iterate ``folder`` for the photos kept (each one photo late: it is decided when
        the next one has been read) and give the pipeline ``recognize``: a :class:`ReadAhead` when the tiles
        are compared, so each photo is read once (the pipeline gets the read made ahead), else the one given.
    """
    ahead = ReadAhead(recognize) if getattr(recognize, "reads_alone", False) else None
    # a followed folder's photos come one by one: they are read in the order they come (its listing is by name)
    order_note = taken_order_note(source, ahead, progress) if ahead is not None and not getattr(
        source, "follows", False) else None
    folder = OneTableFolder(source, say, tiles=ahead.tiles if ahead is not None else None)
    folder.order_note = order_note
    return folder, ahead if ahead is not None else recognize


def taken_order_note(source, ahead: "ReadAhead", progress: Callable[[int], None] | None = None) -> str | None:
    """Put a listed photo folder's photos in the order they were taken: by the time each was taken when every photo
    has one and the line of play agrees (:func:`vision.photo_order.time_order`), else when the line of play tells it
    (:func:`vision.photo_order.taken_order`); the line that says which photos moved, or None (name order kept).

    Reads every photo ahead (``ahead`` holds the reads for the review, each photo read once; ``progress(n)``:
    ``n`` photos read so far) and reorders
    ``source.files`` in place (:meth:`vision.sources.ImageFolderSource.reorder`). When a photo that lacks tiles of
    the photo before it in name order shows an arm over the table that hides them
    (:func:`vision.photo_arms.arm_over`), name order is kept: the arm photo it is, not a photo out of place.
    """
    from vision.capture_time import capture_time
    from vision.photo_order import follows, order_message, taken_order, time_order

    on_unreadable, source.on_unreadable = source.on_unreadable, lambda *skip: None  # said when read for the review
    try:
        frames = []
        for frame in source:
            frames.append((frame.index, ahead.tiles(frame, hold=False)))  # the picture let go
            if progress is not None:
                progress(len(frames))
    finally:
        source.on_unreadable = on_unreadable
    lines, indices = [line for _, line in frames], [i for i, _ in frames]
    order = time_order(lines, [capture_time(source.files[i]) for i in indices])
    by_time = order is not None
    if order is None:
        order = taken_order(lines)
        breaks = [k for k in range(1, len(lines)) if not follows(lines[k - 1], lines[k])] if order else []
        if any(_arm_hides(source, indices[k - 1: k + 2], lines[k - 1], lines[k]) for k in breaks):
            return None  # an arm hides the tiles a photo lacks of the one before it: no photo out of place there
    if order is None or order == list(range(len(order))):
        return None
    names = [source.files[i].name for i in indices]
    new = list(range(len(source.files)))  # the photos the source skips keep their places
    for slot, k in zip(sorted(indices), order):
        new[slot] = indices[k]
    ahead.renumber(new)
    source.reorder(new)
    return order_message(names, order, by_time)


def _arm_hides(source, indices: list[int], before: PhotoTiles, photo: PhotoTiles) -> bool:
    """Whether the photo ``indices[1]`` (between ``indices[0]`` and ``indices[2]``, if any) shows an arm over the
    tiles of ``before`` (the photo before it, in name order) that ``photo`` lacks."""
    from calibration.images import decode_image
    from vision.photo_arms import arm_over
    from vision.photo_states import under_arm

    lost = sorted(before.tiles - photo.tiles)
    if not lost:
        return False
    images = [decode_image(source.files[i]) for i in indices]
    if any(im is None or im.shape != images[1].shape for im in images):
        return False
    arm = arm_over(images[1], images[0], images[2] if len(images) > 2 else None)
    return under_arm(lost, before, arm, images[1].shape[1])


class ReadAhead:
    """A recognizer (``image -> observations``, as :class:`FramePipeline` calls it) that may read a folder's photo
    before the pipeline does: :meth:`tiles` reads a photo once and holds its read, which the pipeline's plain read
    of the same picture then gets (a second look reads anew), with the recognizer's counts of that read
    (``last_off_table``, ``last_off_table_sure``, ``last_tile_px``) as they were. So a photo is read once, and the
    reads are those the pipeline made alone, when the recognizer's reads depend on the picture alone
    (:attr:`vision.recognize.FocusedRecognize.reads_alone`).
    """

    _COUNTS = ("last_off_table", "last_off_table_sure", "last_tile_px")

    def __init__(self, recognize: Callable):
        self.recognize = recognize
        self.takes_focus = getattr(recognize, "takes_focus", False)
        self.takes_second_look = getattr(recognize, "takes_second_look", False)
        self.recognizer = getattr(recognize, "recognizer", None)
        self._held: dict[int, tuple] = {}  # frame index -> (picture, observations, the recognizer's counts)
        self._early: dict[int, tuple] = {}  # frame index -> (observations, counts): read before the review's pass

    def tiles(self, frame, hold: bool = True) -> PhotoTiles:  # noqa: ANN001 - a vision.sources.Frame
        """The face-up tiles read in ``frame`` (:func:`vision.photo_states.photo_tiles`), its read held (with its
        picture; ``hold`` False: without it, until the photo is read again, :func:`taken_order_note`)."""
        if frame.index in self._early:
            obs, counts = self._early.pop(frame.index)
        else:
            obs = self.recognize(frame.image)
            counts = {k: getattr(self.recognizer, k) for k in self._COUNTS if hasattr(self.recognizer, k)}
        if hold:
            self._held[frame.index] = (frame.image, obs, counts)
        else:
            self._early[frame.index] = (obs, counts)
        return photo_tiles(obs)

    def renumber(self, order: list[int]) -> None:
        """The reads made ahead of the pictures, for photos put in a new ``order`` (``order[i]``: the index before
        of the photo now ``i``)."""
        self._early = {i: self._early[was] for i, was in enumerate(order) if was in self._early}

    def forget(self, index: int) -> None:
        """Drop the read held for photo ``index``, one the pipeline will not read (a restarted service table's
        photos already recorded): its picture is not kept until a later photo's read."""
        self._held.pop(index, None)
        self._early.pop(index, None)

    def __call__(self, image: np.ndarray, **kwargs) -> list:
        # a plain read (no focus, no second look): the one held, if any
        if all(v is None or v is False for v in kwargs.values()):
            for index, (held, obs, counts) in list(self._held.items()):
                if held is image:
                    for i in [i for i in self._held if i <= index]:
                        del self._held[i]  # those before it were left out
                    for i in [i for i in self._early if i < index]:
                        del self._early[i]
                    for k, v in counts.items():
                        setattr(self.recognizer, k, v)
                    return obs
        return self.recognize(image, **kwargs)
