"""A folder's photo of another table: one photo that shares nothing with the photos around it.

A folder of photos of one table reviewed with a stray photo of another table among them (another
camera, surface and tiles: helper-201's lisa-b-all-fives folder with one frame of an all-fives
footage as its 9th photo) was read as that table: the line seemed cleared, the stray photo's tiles
were a hand of their own, all scored, and the real line came back as a third hand laid in one photo
(29 plays, N 40 S 25, for 14 plays, N 20 S 0), with warnings that hands were "cleared from the table".

Two photos of one table share most of what they show: the surface, the table's edge, the tiles that
stay. ORB features of the two (grey, :data:`SCENE_WIDTH_PX` wide, contrast-equalized by CLAHE), matched
both ways and fitted by one homography (RANSAC), agree at many points: a hand-held phone's shake, a
tilt, an arm or a lamp change moves or hides some of them, not all. Two photos of different tables agree
at a handful, by chance. A photo is another table's (:class:`OneTable`) only when it shares fewer than
:data:`SAME_TABLE_POINTS` points with both its neighbours (the folder's previous photo kept and the next
one) while those two share at least that many with each other: a table cleared between hands, or a new
hand dealt, changes the table for good (the photo after it is like it, not like the one before), and is
never one photo alone that is unlike the two around it. The first photo is judged by the two after it,
the last by the two before it; a photo with under :data:`MIN_SCENE_POINTS` features (a plain surface,
empty) is not judged by them (nothing to judge by). Two stray photos in a row are alike, and not caught.

A photo that shows nothing at all (:func:`no_table`: a blank picture of one colour, black, a lens cap) among
photos of a table (a photo kept before it, or the next one, has :data:`MIN_SCENE_POINTS` features or more) is
left out, wherever it lies (the first and the last photo too): helper-230's 960x540 felt-green picture between
two photos was read as this table with every tile gone (its colours are the felt's). It has
under :data:`SAME_TABLE_POINTS` features (so it could match no photo) and no local contrast
(:data:`NO_TABLE_CONTRAST`). Measured (features; contrast): the blank picture 0; 0.0, one black 0; 0.0, one of
the felt's colour darkened to half at its corners 0; 2.5, grey noise of sigma 2-8 on black or the felt 0-24;
0.7-1.6 (sigma 8 on the felt: 217 features, kept). Real photos: the demo's first frame (its 28 tiles in
the hands, no line) 485; 76, dimmed to 0.2x 44; 15, to 0.1x (mean grey 3.4 of 255, every tile still found by
the detector) 3; 7.6, to 0.05x (mean 1.9) 0; 4.0; a cleared table (the frame median-blurred, 31 px: the
surface without its tiles) 70-114; 35-72; the frames of helper-201's six footages 416 or more.

Measured (640 px, 1500 features; points shared): photos next to each other, and one apart, in 11 folders
(the every-event, the one-per-play hand-held (``bench.sec_photos.hand_held``) and the arm-over-the-table
photos of all-fives seed 1, draw seed 2 and lisa-b-all-fives seed 3, and helper-201's multi-hand folders
with an empty table's photo): 92 at the least (a plain pale cloth, hand-held, one photo apart), the empty
table 261; one photo of them lit at 0.45x, with a left-to-right 0.4-1.3x gradient or a warm cast: 147 or
more; one overexposed (1.6x + 20, the pale cloth clipped white): 34. Photos of different tables: 10-17
between folders of different surfaces; 45-68 between two renders with the same tile set and camera on a
dark surface (those are not caught, as they look alike); helper-201's stray photo: 10 and 11.

A stale photo of this table (helper-220: a copy of an early photo among the last ones, read as the line
cleared and the next photo's line as a second hand) shares points with both neighbours, but far fewer than
they share with each other: it is left out too (:data:`STALE_SHARE`, :func:`earlier_state_message`), when it
has both neighbours and their colours (a change of light shares fewer points too, and changes the colours).
A copy of a later photo, or a stale copy first, last or twice in a row, shares too many points to tell: given
the tiles read in each photo, :class:`OneTable` tells those by the tiles (:mod:`vision.photo_states`).
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Iterable, Iterator, NamedTuple

import cv2
import numpy as np

from vision.photo_states import (PhotoTiles, earlier_state, later_first, later_state, state_message, tile_list,
                                 under_arm)
from vision.sources import Quiet, SourceError

__all__ = ["EXPOSURE_RATIO", "MIN_SCENE_POINTS", "NO_TABLE_CONTRAST", "SAME_COLOURS", "SAME_TABLE_POINTS",
           "SCENE_WIDTH_PX", "STALE_SHARE", "OneTable", "SceneFeatures", "OneTableFolder", "earlier_state_message",
           "matched_points", "no_table", "no_table_message", "other_table_message", "same_colours", "scene_features",
           "shared_points"]

#: Photos are compared at this width (px), whatever their size.
SCENE_WIDTH_PX = 640
#: ORB features found in each photo, at most.
SCENE_FEATURES = 1500
#: A matched point agrees with the homography within this (px at :data:`SCENE_WIDTH_PX`).
SCENE_RANSAC_PX = 3.0
#: Two photos sharing at least this many points show one table (see the module's measurements).
SAME_TABLE_POINTS = 25
#: A photo with fewer features is not judged.
MIN_SCENE_POINTS = 100
#: ... and one is another table's only when under this share of its colours are those of each neighbour
#: (:func:`same_colours`): a cleared table of a smooth cloth, whose features are the noise CLAHE raises,
#: shares no points with the photos around it, but its cloth's colours. Photos of one table next to each
#: other in the folders measured: 0.86 at the least; helper-201's stray photo 0.03. A light changed
#: (dimmed, overexposed, a warm cast) changes the colours (0.0-0.85), not the points shared.
SAME_COLOURS = 0.5
#: The colours are counted at this width (px).
COLOUR_WIDTH_PX = 160
#: A photo with under :data:`SAME_TABLE_POINTS` features shows no table (:func:`no_table`) when its local
#: contrast is under this (grey levels: the 99.5th percentile of how far a pixel lies from its surroundings'
#: mean, a Gaussian of sigma 4 px, at :data:`COLOUR_WIDTH_PX` wide, where a sensor's noise averages out):
#: a blank or black picture 0-2.5, the demo's frame dimmed to 0.05x 4.0 (see the module's measurements).
NO_TABLE_CONTRAST = 3.0
#: A photo of this table between two that share ``between`` points is an earlier (or later) state of it
#: (:func:`earlier_state_message`) when it shares under this share of ``between`` with each of them, its
#: colours theirs. helper-222, the demo's 32 photos: photos next to each other 0.90 at the least (an arm's
#: photo), one of them dimmed to 0.45x 0.75, overexposed 0.83 (colours 0.41); a copy of photo k put
#: between photos 25 and 26: k = 0-6 (the line's first 1-4 tiles of 16: read, the line "cleared" and a
#: second hand of the 16 tiles laid at once) 0.16-0.20, k = 8 0.33, k = 12 0.43, k = 24 0.91.
STALE_SHARE = 0.35
#: ... but a photo exposed over this factor darker or brighter than both photos around it (its mean grey,
#: :class:`SceneFeatures`) may lose ORB points to its exposure, not to its tiles: a dim photo's few grey levels
#: keep fewer features (helper-238, W/P's photo 10, 1021 features: dimmed to 0.2x 322, sharing 216 of the 774
#: its neighbours share, 0.28; to 0.1x 144, sharing 89, 0.11: left out as a stale copy). For it, ``between``
#: is scaled by its features over the fewer of theirs (:meth:`OneTable._odd`): 216 of 774 x 322 / 954
#: (0.83), 89 of 774 x 144 / 954 (0.76); the tiles read still tell a stale copy (:mod:`vision.photo_states`).
#: A stale copy is taken in the same light (W/P's photos: mean grey 44.0-44.3).
EXPOSURE_RATIO = 2.5
#: A photo matching the one beside it only turned more than this (degrees) is said to look turned and left
#: out (helper-232: one turned 180 degrees swapped N and S, its 4-5 scored for N): a phone held by an umpire
#: at a seat turns a few degrees between shots, not an eighth of a turn.
TURNED_DEG = 45.0

_CLAHE = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8))


class SceneFeatures(NamedTuple):
    """One photo's ORB features: (N, 2) float32 points (px at :data:`SCENE_WIDTH_PX`), (N, 32) uint8
    descriptors; its colours: a (18, 8) float32 hue-saturation histogram summing to 1 (None: not taken);
    its local contrast (grey levels, :data:`NO_TABLE_CONTRAST`; None: not taken); and its mean grey
    (0-255, :data:`EXPOSURE_RATIO`; None: not taken)."""
    points: np.ndarray
    descriptors: np.ndarray | None
    colours: np.ndarray | None = None
    contrast: float | None = None
    brightness: float | None = None


def scene_features(image: np.ndarray) -> SceneFeatures:
    """The ORB features of a (H, W, 3) BGR or (H, W) grey uint8 photo, scaled to :data:`SCENE_WIDTH_PX` wide."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    s = SCENE_WIDTH_PX / grey.shape[1]
    grey = _CLAHE.apply(cv2.resize(grey, None, fx=s, fy=s, interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR))
    keypoints, descriptors = cv2.ORB_create(nfeatures=SCENE_FEATURES).detectAndCompute(grey, None)
    colours = None
    s = COLOUR_WIDTH_PX / image.shape[1]
    small = cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    if image.ndim == 3:
        colours = cv2.calcHist([cv2.cvtColor(small, cv2.COLOR_BGR2HSV)], [0, 1], None, [18, 8], [0, 180, 0, 256])
        colours /= max(float(colours.sum()), 1.0)
        small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    small = small.astype(np.float32)
    contrast = float(np.percentile(np.abs(small - cv2.GaussianBlur(small, (0, 0), 4)), 99.5))
    return SceneFeatures(np.float32([k.pt for k in keypoints]).reshape(-1, 2), descriptors, colours, contrast,
                         float(small.mean()))


def no_table(features: SceneFeatures) -> bool:
    """Whether a photo's features (:func:`scene_features`) show nothing to match: under
    :data:`SAME_TABLE_POINTS` ORB points and a local contrast (when taken) under :data:`NO_TABLE_CONTRAST`
    (a blank picture, a black one, a lens cap; a dimmed photo keeps its tiles' contrast)."""
    return (len(features.points) < SAME_TABLE_POINTS and features.contrast is not None
            and features.contrast < NO_TABLE_CONTRAST)


def same_colours(a: SceneFeatures, b: SceneFeatures) -> float:
    """The share (0-1) of two photos' colours in common (their hue-saturation histograms' intersection);
    1.0 when either has none."""
    if a.colours is None or b.colours is None:
        return 1.0
    return float(np.minimum(a.colours, b.colours).sum())


def shared_points(a: SceneFeatures, b: SceneFeatures) -> int:
    """How many of two photos' features match (both ways) and agree on one homography (RANSAC): the
    points they share. 0 when either has under 8."""
    return shared_match(a, b)[0]


def shared_match(a: SceneFeatures, b: SceneFeatures) -> tuple[int, float]:
    """:func:`shared_points` and how far the picture turned from ``a`` to ``b`` on that homography
    (degrees in (-180, 180], its top-left 2x2 part's turn; 0.0 when they share no points)."""
    src, dst = matched_points(a, b)
    if len(src) < 8:
        return 0, 0.0
    h, mask = cv2.findHomography(src, dst, cv2.RANSAC, SCENE_RANSAC_PX)
    if mask is None or h is None:
        return 0, 0.0
    return int(mask.sum()), float(np.degrees(np.arctan2(h[1, 0] - h[0, 1], h[0, 0] + h[1, 1])))


def matched_points(a: SceneFeatures, b: SceneFeatures) -> tuple[np.ndarray, np.ndarray]:
    """Two photos' features matched both ways: (N, 2) float32 points of ``a`` and the (N, 2) points of ``b``
    they match (px at :data:`SCENE_WIDTH_PX`); none when either has under 8 features."""
    none = np.zeros((0, 2), np.float32)
    if a.descriptors is None or b.descriptors is None or len(a.points) < 8 or len(b.points) < 8:
        return none, none
    matches = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True).match(a.descriptors, b.descriptors)
    return (a.points[[m.queryIdx for m in matches]].reshape(-1, 2),
            b.points[[m.trainIdx for m in matches]].reshape(-1, 2))


def other_table_message(name: str, shared: tuple[int, int], between: int, where: str = "before and after") -> str:
    """The line that says a photo shows another table (``name``: its path or file name)."""
    return (f"image {name} shows another table: it shares {shared[0]} and {shared[1]} points with the photos "
            f"{where} it, which share {between} with each other (another camera, surface or tiles): not read; "
            "leave it out")


def no_table_message(name: str, features: SceneFeatures) -> str:
    """The line that says a photo shows no table (:func:`no_table`; ``name``: its path or file name)."""
    return (f"image {name} shows no table: a plain picture, {len(features.points)} image features, too few to "
            "match it with any photo (blank, black, or taken with the lens covered): not read; leave it out")


def earlier_state_message(name: str, shared: tuple[int, int], between: int) -> str:
    """The line that says a photo shows another state of its table than the photos around it agree on (``name``:
    its path or file name)."""
    return (f"image {name} shows the table as the photos before and after it do not: it shares {shared[0]} and "
            f"{shared[1]} points with them, which share {between} with each other (a copy of an earlier photo, "
            "or photos out of order): not read; leave it out or put it in its place")


class OneTable:
    """Leaves out a folder's photos of another table, or of an earlier (or later) state of this one, or of no
    table (see the module), one frame late.

    Iterate ``OneTable(frames, on_other)``: the frames of ``frames`` (``(index, t, image)``, in order),
    but those of another table, for each of which ``on_other(frame, message)`` is called instead, in the
    frames' order. Each frame is decided once the next one has come (the first one, the next two), or
    the frames have ended; frames that fail (:class:`vision.sources.SourceError`: a followed folder removed)
    have ended too: the frames held are decided and yielded first, then the error is raised (a followed
    folder's last photo was never read when its folder went). ``before(index)``, when given, is called before each frame is yielded or said
    to be another table's: what happened to the frames before it may be said then, in order.

    A :class:`vision.sources.Quiet` mark among the frames (a followed folder with no new photo for a while:
    :mod:`vision.folder_follow`) decides the frames held as if the frames had ended (the last by the two before
    it), then ``before(None)`` is called (every frame so far decided) and the mark is yielded (its consumer may
    look at the last frame again); then the frames go on: the next one is judged against those kept, as usual.

    ``tiles``, when given (``frame -> PhotoTiles``: its face-up tiles read, :func:`vision.photo_states.photo_tiles`),
    also leaves out a frame of a later or earlier state of this table than the frames around it agree on, by the
    tiles read (:mod:`vision.photo_states`: what the image points cannot tell); the first frame is then decided
    once the next three have come.
    """

    def __init__(self, frames: Iterable, on_other: Callable[[object, str], None],
                 before: Callable[[int | None], None] | None = None, name: Callable[[int], str] = str,
                 tiles: Callable[[object], PhotoTiles] | None = None):
        self.frames = frames
        self.on_other = on_other
        self.before = before
        self.name = name  # a frame's index -> the name said in the message
        self.tiles = tiles
        self._lines: dict[int, PhotoTiles] = {}  # the tiles read of the frames still compared
        self._earlier: list[PhotoTiles] = []  # those of the frames kept, in order
        self._features: dict[int, SceneFeatures] = {}
        self._shared: dict[tuple[int, int], int] = {}
        self._turns: dict[tuple[int, int], float] = {}  # (earlier, later) -> the picture's turn, degrees
        self.left_out: list[int] = []  # the indices of the frames of another table

    def _f(self, frame) -> SceneFeatures:
        if frame.index not in self._features:
            self._features[frame.index] = scene_features(frame.image)
        return self._features[frame.index]

    def _share(self, a, b) -> int:
        key = (min(a.index, b.index), max(a.index, b.index))
        if key not in self._shared:
            early, late = (a, b) if a.index < b.index else (b, a)  # the turn is from the earlier photo
            self._shared[key], self._turns[key] = shared_match(self._f(early), self._f(late))
        return self._shared[key]

    def _turned(self, x, one) -> str | None:
        """The message when ``x`` matches ``one`` (a photo kept beside it) only turned more than
        ``TURNED_DEG``: a phone held upside down (a hand-held shot turns a few degrees; a quarter turn
        changes the shape, :class:`vision.sources.PhotoFolder` says so)."""
        if len(self._f(x).points) < MIN_SCENE_POINTS or self._share(x, one) < SAME_TABLE_POINTS:
            return None
        turn = abs(self._turns[(min(x.index, one.index), max(x.index, one.index))])
        if turn <= TURNED_DEG:
            return None
        return (f"image {self.name(x.index)} looks turned {turn:.0f} degrees from the photo "
                f"{'before' if one.index < x.index else 'after'} it (keep N at the top of the photos: "
                "turn it back, or leave it out)")

    def _odd(self, x, one, two, where: str) -> str | None:
        """The message when ``x`` shares nothing with ``one`` and ``two``, which share with each other."""
        if len(self._f(x).points) < MIN_SCENE_POINTS:
            return None
        shared = (self._share(x, one), self._share(x, two))
        colours = [same_colours(self._f(x), self._f(y)) for y in (one, two)]
        if max(shared) >= SAME_TABLE_POINTS:
            if where != "before and after" or min(colours) < SAME_COLOURS:
                return None  # a light changed shares fewer points, and changes the colours
            # this table, but the two around it agree on what it lacks: an earlier state (a stale copy), which
            # the tracker took for the line cleared and the next photo's line for a new hand (helper-220)
            if max(shared) >= STALE_SHARE * min(len(self._f(y).points) for y in (one, two)):
                return None  # they cannot share enough to make it one: not matched (most photos)
            between = self._share(one, two)
            if self._exposed_otherwise(x, one, two):  # the points its exposure lost are not its tiles'
                n = len(self._f(x).points)
                between *= min(1.0, n / min(len(self._f(y).points) for y in (one, two)))
            stale = max(shared) < STALE_SHARE * between
            return earlier_state_message(self.name(x.index), shared, between) if stale else None
        if max(colours) >= SAME_COLOURS:
            return None  # its surface's colours: the same table, cleared or seen otherwise
        between = self._share(one, two)
        return other_table_message(self.name(x.index), shared, between, where) if between >= SAME_TABLE_POINTS else None

    def _exposed_otherwise(self, x, one, two) -> bool:
        """Whether ``x``'s mean grey lies over :data:`EXPOSURE_RATIO` times below, or above, both ``one``'s and
        ``two``'s (a dimmed or brighter shot); False when one is not taken or is black."""
        grey = [self._f(y).brightness for y in (x, one, two)]
        if any(g is None or g <= 0 for g in grey):
            return False
        return all(grey[0] * EXPOSURE_RATIO < g for g in grey[1:]) or all(grey[0] > g * EXPOSURE_RATIO
                                                                         for g in grey[1:])

    def _line(self, frame) -> PhotoTiles:
        if frame.index not in self._lines:
            self._lines[frame.index] = self.tiles(frame)
        return self._lines[frame.index]

    def _arm_hides(self, x, before, after, lost: list, seen: PhotoTiles) -> bool:
        """Whether ``x`` shows an arm over the table (:func:`vision.photo_arms.arm_over`, with the frames ``before``
        and ``after`` it; None: the last) that covers each of the ``lost`` tiles where ``seen`` shows them."""
        from vision.photo_arms import arm_over  # photo_arms builds on this module's scene features

        arm = arm_over(x.image, before.image, after.image if after is not None else None)
        return under_arm(lost, seen, arm, x.image.shape[1])

    def _state(self, x, kept, pending) -> str | None:
        """The message when the tiles read in ``x`` show a later or earlier state of the table than the frames
        ``kept`` before it and ``pending`` after it agree on (:mod:`vision.photo_states`)."""
        name, line = self.name(x.index), self._line(x)
        if kept:
            before, after = self._line(kept[-1]), self._line(pending[0]) if pending else None
            gone = later_state(line, before, after) if after is not None else None
            if gone:
                return state_message(name, True, f"it adds {tile_list(gone)} to the line of the photo before it, "
                                                  "and the photo after it lacks them")
            lost = earlier_state(line, before, after, self._earlier[:-1])
            if lost and self._arm_hides(x, kept[-1], pending[0] if pending else None, lost, before):
                lost = None  # an arm over the newest tiles: the arm photo it is (PhotoArms says so), no copy
            if lost:
                return state_message(name, False, f"it lacks {tile_list(lost)} of the photo before it, and shows "
                                                   "the line of an earlier one")
        elif pending:
            gone = later_first(line, [self._line(f) for f in pending])
            if gone:
                return state_message(name, True, f"the photo after it lacks {tile_list(gone)} of its line, and the "
                                                  "tiles laid after lie where it shows them")
        return None

    def __iter__(self) -> Iterator:
        kept: deque = deque(maxlen=2)  # the last two frames kept (the latest last)
        pending: deque = deque()
        ended = False
        failure: SourceError | None = None
        quiet: Quiet | None = None  # a mark came: the frames held are decided as at the end, then it is yielded
        it = iter(self.frames)
        while True:
            while not ended and not quiet and len(pending) < (2 if kept else 3 if self.tiles is None else 4):
                try:
                    frame = next(it)
                except StopIteration:
                    ended = True
                except SourceError as exc:  # raised once the frames held are decided, as at the end
                    ended, failure = True, exc
                else:
                    if isinstance(frame, Quiet):
                        quiet = frame
                    else:
                        pending.append(frame)
            if not pending:
                if quiet:
                    if self.before is not None:
                        self.before(None)
                    mark, quiet = quiet, None
                    yield mark
                    continue
                if failure is not None:
                    raise failure
                return
            x = pending.popleft()
            message = None
            blank = no_table(self._f(x))
            # a blank picture next is no neighbour of a table's photo (a folder of blank pictures keeps its own)
            ahead = list(pending) if blank else [f for f in pending if not no_table(self._f(f))]
            if blank and any(len(self._f(y).points) >= MIN_SCENE_POINTS for y in [*kept, *ahead[:1]]):
                message = no_table_message(self.name(x.index), self._f(x))  # among photos of a table
            elif kept or ahead:
                message = self._turned(x, kept[-1] if kept else ahead[0])
            if message is None:
                if kept and ahead:
                    message = self._odd(x, kept[-1], ahead[0], "before and after")
                elif kept and len(kept) == 2:  # the last photo
                    message = self._odd(x, kept[-1], kept[-2], "before")
                elif not kept and len(ahead) >= 2:  # the first photo
                    message = self._odd(x, ahead[0], ahead[1], "after")
            if message is None and self.tiles is not None:
                message = self._state(x, kept, ahead)  # a blank picture ahead is no neighbour either
            if self.before is not None:
                self.before(x.index)
            if message is not None:
                self.left_out.append(x.index)
                self.on_other(x, message)
                continue
            kept.append(x)
            if self.tiles is not None:
                self._earlier.append(self._line(x))
            for i in [i for i in self._features if i not in {f.index for f in (*kept, *pending)}]:
                del self._features[i]  # only the frames still compared keep theirs
            for i in [i for i in self._lines if i not in {f.index for f in (*kept, *pending)}]:
                del self._lines[i]
            yield x


class OneTableFolder:
    """A photo folder's frames (:class:`vision.sources.ImageFolderSource`), its photos of another table left
    out (:class:`OneTable`), and every photo skipped said in the photos' order.

    Iterate it for the frames kept (and a followed folder's :class:`vision.sources.Quiet` marks).
    ``say(index, t, path, message)`` is told of each photo skipped: those the source skips itself (undecodable,
    another size, blurred: its ``on_unreadable``, which this takes over) and those of another table. A photo is
    decided once the next one has been read, so the source's
    own skips are held until the photos before them are decided (a followed folder's newest photo until the
    next comes, or none comes for :data:`vision.folder_follow.QUIET_S` seconds): the folder review
    (:func:`service.review.run_review`) and the live service's photo-folder tables
    (:class:`service.vision_source.VisionSource`) say them the same way. :meth:`close` (a stop before the
    folder's end) says the skips still held and hands ``on_unreadable`` back to ``say``.
    ``tiles``: as :class:`OneTable`'s (the folder review passes the reads it makes a photo ahead).
    """

    def __init__(self, source, say: Callable[[int, float, object, str], None],
                 tiles: Callable[[object], PhotoTiles] | None = None):
        self.source = source
        self.say = say
        self.held: list[tuple] = []  # the source's own skips (index, t, path, message), not said yet
        source.on_unreadable = lambda *skip: self.held.append(skip)
        if hasattr(source, "marks_quiet"):  # a followed folder: its held photo is read once no new photo comes
            source.marks_quiet = True
        self.one = OneTable(source, lambda frame, message: say(frame.index, frame.t, source.files[frame.index],
                                                               message),
                            before=self._say_held, name=lambda index: str(source.files[index]), tiles=tiles)

    @property
    def left_out(self) -> list[int]:
        """The indices of the photos of another table left out so far."""
        return self.one.left_out

    def _say_held(self, before: int | None = None) -> None:
        """Say the held skips of the photos before the photo ``before`` (all of them when None), in order."""
        while self.held and (before is None or self.held[0][0] < before):
            self.say(*self.held.pop(0))

    def __iter__(self) -> Iterator:
        yield from self.one
        self._say_held()  # the folder's last photos skipped by the source

    def close(self) -> None:
        """Stopped while a photo waited for the next: the skips before it are said; the source says its
        own skips itself again."""
        self._say_held()
        self.source.on_unreadable = self.say
