"""Occlusion and motion gating: read the layout only when nothing is over it.

:class:`MotionGate` looks at every frame (cheaply: a downscaled, blurred copy) and decides
when the recognizer should read it:

* **motion**: ``cv2.absdiff`` between this frame and the previous one (the largest difference
  over the colour channels: an arm as bright as the cloth still differs in hue), thresholded,
  cleaned by a morphological opening; changed pixels above ``min_area`` (a fraction of
  the frame) mean something moves;
* **occlusion**: the same difference against the *reference* (the last frame that was
  read); a changed region that touches the image border and reaches into the region of
  interest (the layout) is an arm over the table, even when it holds still. The border
  it touches is the side the arm came from (``entry_side``), for seat attribution; an arm
  short of the layout is named too (``arm_side``: a knock, a player at the rack). Changed
  pixels a couple of px apart are one region (an arm crossing the edge of a dark hand row is
  cut there, where the blurred reference passes through its grey), and a faint but
  consistent difference also counts for arms (an arm close to the cloth's colour);
* **read**: once the scene has been still for ``still_window_s`` seconds (time, not
  frames: the gate works at any frame rate) with no arm over the layout, and something
  changed in the region of interest since the last read (or a read was requested), the
  frame is read once (a tile lifted from a hand is not read while the arm carries it). The
  changed region's bounding box (``changed_bbox_px``) says where: the rest of the
  layout did not change, and the tracker keeps those tiles as they were. An arm that came
  into view and left also earns one read (turning a white tile face up changes few pixels);
  an arm resting at the edge does not.

A changed region that covers most of the frame is a lighting change, not an arm; an
"arm" that holds perfectly still for ``max_occluded_s`` is read anyway (a bag or a cup
left on the table must not stop the reads forever).

Coordinates in :class:`MotionInfo` are full-resolution image pixels; times are seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import cv2
import numpy as np

__all__ = ["MotionGate", "MotionInfo", "SIDES", "border_side"]

SIDES = ("top", "right", "bottom", "left")


def border_side(mask: np.ndarray, border_px: int = 3) -> str:
    """The image border (one of :data:`SIDES`) that the non-zero pixels of an (h, w) mask touch most,
    counted in strips ``border_px`` wide (``top`` when none touches)."""
    h, w = mask.shape
    b = border_px
    m = mask != 0
    counts = {"top": int(m[:b, :].sum()), "right": int(m[:, w - b:].sum()), "bottom": int(m[h - b:, :].sum()),
              "left": int(m[:, :b].sum())}
    return max(SIDES, key=lambda k: counts[k])


def _union(a: tuple[int, int, int, int] | None, b: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The bounding box ``(x0, y0, x1, y1)`` of boxes ``a`` (None: none) and ``b``."""
    return b if a is None else (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _read_only(mask: np.ndarray) -> np.ndarray:
    """``mask`` made read-only: it is shared by every reader of one read's masks."""
    mask.flags.writeable = False
    return mask


@dataclass(frozen=True)
class MotionInfo:
    """What the gate saw in one frame.

    Attributes:
        t: frame time, seconds.
        frame: frame index.
        moving: pixels changed since the previous frame (above ``min_area``).
        occluded: an arm (a changed region touching the border) reaches into the layout.
        still_for_s: seconds since the last motion or occlusion (0 while moving).
        read: read this frame (still long enough, and something to read).
        changed_bbox_px: ``(x0, y0, x1, y1)`` full-res px of what changed since the last
            read, with what arms reached over since (a change there may be too faint to see); only
            this region needs a fresh read; None: the whole frame (first read).
        motion_bbox_px: ``(x0, y0, x1, y1)`` of the frame-to-frame change, or None.
        entry_side: image border (``top``/``right``/``bottom``/``left``) the intruding region
            touches the most, or None.
        entry_point_px: (2,) float32 mean of the intruding region's pixels on that border.
        changed_fraction: fraction of the (downscaled) frame that differs from the reference,
            arms (regions touching the border) left out.
        frame_size: ``(width, height)`` px of the frame.
        arm_side: the border the largest arm in view touches, whether it reaches the layout or
            not (an arm knocking in front of its hand, a player at the rack), or None.
        arm_point_px: (2,) float32 mean of that arm's pixels on that border.
        changed_small: (h, w) uint8 mask (255: changed) of what differs from the reference, arms
            left out, at the gate's work size (``work_width_px`` wide); None when nothing
            changed or on the first frame. :meth:`changed_mask` scales it to the frame.
        arms_small: (h, w) uint8 mask (255: an arm) of the arm-sized regions touching the border
            that differ from the reference, at the same work size; None when there is none.
        swept_small: (h, w) uint8 mask (255: an arm) of everywhere ``arms_small`` covered since the
            last read, this frame's included, at the same work size; None when no arm was seen since.
    """

    t: float
    frame: int
    moving: bool
    occluded: bool
    still_for_s: float
    read: bool
    changed_bbox_px: tuple[int, int, int, int] | None
    motion_bbox_px: tuple[int, int, int, int] | None = None
    entry_side: str | None = None
    entry_point_px: np.ndarray | None = None
    changed_fraction: float = 0.0
    frame_size: tuple[int, int] | None = None
    arm_side: str | None = None
    arm_point_px: np.ndarray | None = None
    changed_small: np.ndarray | None = field(default=None, repr=False)
    arms_small: np.ndarray | None = field(default=None, repr=False)
    swept_small: np.ndarray | None = field(default=None, repr=False)

    def changed_mask(self) -> np.ndarray | None:
        """(H, W) bool of the frame, read-only: True where the table changed since the last read (dilated by
        a work pixel against blur), or None when nothing changed / no frame size. Made once per read (the
        recognizer's focus and the tracker's picture checks each ask for it)."""
        return self._changed_full

    def touched_mask(self) -> np.ndarray | None:
        """(H, W) bool of the frame, read-only: True where the table changed since the last read
        (:meth:`changed_mask`) or an arm reached over it since (``swept_small``, not grown: an arm's edge is no
        blur), or None when the read does not say what changed (``changed_small`` is None: nothing changed, the
        first read) or there is no frame size. A tile outside it was not touched by a hand since the last read."""
        return self._touched_full

    @cached_property
    def _changed_full(self) -> np.ndarray | None:
        if self.changed_small is None or self.frame_size is None:
            return None
        return _read_only(self._full(self.changed_small))

    @cached_property
    def _touched_full(self) -> np.ndarray | None:
        changed = self._changed_full
        if changed is None or self.swept_small is None:
            return changed
        return _read_only(changed | self._full(self.swept_small, grow=False))

    def _full(self, small: np.ndarray, grow: bool = True) -> np.ndarray:
        """A work-size uint8 mask as an (H, W) bool of the frame, grown by a work pixel against blur (``grow``)."""
        grown = cv2.dilate(small, np.ones((3, 3), np.uint8)) if grow else small
        return cv2.resize(grown, self.frame_size, interpolation=cv2.INTER_NEAREST) > 0

    @property
    def still(self) -> bool:
        """No motion and no arm over the layout in this frame."""
        return not self.moving and not self.occluded


class MotionGate:
    """Frame differencing on a downscaled grayscale frame; decides when to read.

    Args:
        still_window_s: seconds of stillness before a read (0.4-0.6 s keeps the median
            latency from "tile at rest" to the event under 1 s).
        work_width_px: frames are downscaled to this width (keeps the cost ~1 ms).
        blur_px: Gaussian blur kernel (odd, px at work size) against sensor noise.
        diff_threshold: grey-level difference (0-255) that counts as a change.
        min_area: changed fraction of the frame that counts as motion (1e-3 of a
            320x180 frame is ~58 px, about a quarter of a tile half at typical zoom).
        border_px: width (work px) of the border strip where an arm enters.
        lighting_fraction: a change over more than this fraction is lighting, not an arm.
        max_occluded_s: an occluder that holds still this long is read anyway.
        pad_px: padding (full-res px) around ``changed_bbox_px``.
        link_px: changed pixels this close (work px) belong to one region when looking for arms
            (an arm crossing an edge of the table's picture is cut along a 1-2 px line).
        arm_threshold: mean difference (grey levels, over ``arm_blur_px`` squares) that also counts
            as an arm's: an arm close to the cloth's colour (a brown sleeve on dark wood) differs
            by 5-20 levels, too little for ``diff_threshold`` pixel by pixel but clear on average.
            Only for finding arms, never for what changed on the table. 0: off.
        arm_blur_px: box size (work px) of that average.
    """

    def __init__(self, still_window_s: float = 0.5, work_width_px: int = 320, blur_px: int = 5,
                 diff_threshold: int = 25, min_area: float = 1e-3, border_px: int = 3,
                 lighting_fraction: float = 0.6, max_occluded_s: float = 3.0, pad_px: int = 8,
                 link_px: int = 2, arm_threshold: float = 8.0, arm_blur_px: int = 5):
        if still_window_s < 0:
            raise ValueError("still_window_s must be >= 0")
        self.still_window_s = float(still_window_s)
        self.work_width_px = int(work_width_px)
        self.blur_px = int(blur_px) | 1
        self.diff_threshold = int(diff_threshold)
        self.min_area = float(min_area)
        self.border_px = int(border_px)
        self.lighting_fraction = float(lighting_fraction)
        self.max_occluded_s = float(max_occluded_s)
        self.pad_px = int(pad_px)
        self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
        self.link_px = int(link_px)
        self.arm_threshold = float(arm_threshold)
        self.arm_blur_px = int(arm_blur_px)
        self._link_kernel = (cv2.getStructuringElement(cv2.MORPH_RECT, (2 * self.link_px + 1,) * 2)
                             if self.link_px > 0 else None)
        self.reset()

    def reset(self) -> None:
        """Forget the history: the next still frame is read whole."""
        self._prev: np.ndarray | None = None
        self._ref: np.ndarray | None = None
        self._last_motion_t: float | None = None
        self._occluded_since: float | None = None
        self._requested = False
        self._arm_in = False  # an arm (a border-touching change) is in view
        self._arm_left = False  # ... and has left since the last read
        self._arm_moved_t: float | None = None  # last time an arm in view moved
        self._swept: tuple[int, int, int, int] | None = None  # full-res bbox the arms covered since the last read
        self._swept_small: np.ndarray | None = None  # ... and the work-size mask of it
        self._scale = 1.0

    def prime(self, t: float, image: np.ndarray) -> None:
        """Start from ``image`` (seen at ``t`` s) as the table last read, instead of taking the first
        frame whole as the reference: a replayed file resumed at the frame that was last read, before
        a player may reach in (a first reference with an arm in it makes its absence look like an arm
        at the edge for good, and nothing near it is read again). Asks for a read of the next still frame."""
        small = self._small(image)
        self._prev = self._ref = small
        self._last_motion_t = t
        self._requested = True

    def request_read(self) -> None:
        """Read the next still frame even if nothing changed (e.g. to confirm a take-back)."""
        self._requested = True

    def _small(self, image: np.ndarray) -> np.ndarray:
        """The downscaled, blurred frame: BGR (colour frames) or grey."""
        small = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR) if image.ndim == 3 and image.shape[2] == 4 else image
        h, w = small.shape[:2]
        self._scale = w / float(self.work_width_px) if w > self.work_width_px else 1.0
        if self._scale > 1.0:
            small = cv2.resize(small, (self.work_width_px, max(1, round(h / self._scale))),
                               interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small, (self.blur_px, self.blur_px), 0)

    def _diff(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        # the largest difference over the colour channels: an arm as bright as the cloth (a salmon
        # sleeve on a tan table differs by 17 grey levels) still differs in hue
        diff = cv2.absdiff(a, b)
        if diff.ndim == 3:
            c = cv2.split(diff)
            diff = cv2.max(cv2.max(c[0], c[1]), c[2])
        return diff

    def _mask(self, a: np.ndarray, b: np.ndarray, diff: np.ndarray | None = None) -> np.ndarray:
        diff = self._diff(a, b) if diff is None else diff
        _, m = cv2.threshold(diff, self.diff_threshold, 255, cv2.THRESH_BINARY)
        return cv2.morphologyEx(m, cv2.MORPH_OPEN, self._kernel)

    def _weak_mask(self, diff: np.ndarray) -> np.ndarray:
        """Where the difference is small per pixel but consistent over an area (a low-contrast arm)."""
        k = max(1, self.arm_blur_px)
        _, m = cv2.threshold(cv2.blur(diff, (k, k)), self.arm_threshold, 255, cv2.THRESH_BINARY)
        return cv2.morphologyEx(m, cv2.MORPH_OPEN, self._kernel)

    def _bbox_full(self, x0: int, y0: int, x1: int, y1: int, size: tuple[int, int]) -> tuple[int, int, int, int]:
        s, p = self._scale, self.pad_px
        w, h = size
        return (max(0, int(x0 * s) - p), max(0, int(y0 * s) - p), min(w, int(np.ceil(x1 * s)) + p),
                min(h, int(np.ceil(y1 * s)) + p))

    def update(self, frame_index: int, t: float, image: np.ndarray,
               roi_px: tuple[int, int, int, int] | None = None) -> MotionInfo:
        """Look at one frame.

        Args:
            frame_index: index of the frame in its source.
            t: frame time, seconds (increasing).
            image: (H, W, 3) BGR, (H, W, 4) BGRA or (H, W) grey uint8.
            roi_px: ``(x0, y0, x1, y1)`` full-res px of the layout (e.g.
                :meth:`vision.tracking.Tracker.roi_px`); motion outside it does not delay a
                read, and an arm only occludes when it reaches into it. None: the whole frame.

        Returns:
            a :class:`MotionInfo`; when its ``read`` is True this frame becomes the new
            reference (except under arms outside the layout, where the old one is kept).
        """
        small = self._small(image)
        if self._prev is not None and self._prev.shape != small.shape:
            self.reset()  # the frame size or colour changed: start over
            small = self._small(image)
        size = (int(image.shape[1]), int(image.shape[0]))
        sh, sw = small.shape[:2]
        n = float(sh * sw)
        moving = False
        motion_bbox = None
        full_motion = None  # frame-to-frame change over the whole frame
        if self._prev is not None:
            m = full_motion = self._mask(small, self._prev)
            if roi_px is not None:  # motion outside the layout (players at their racks) does not count
                m = self._inside(m, roi_px)
            cnt = int(cv2.countNonZero(m))
            if cnt > self.min_area * n:
                moving = True
                x, y, w, h = cv2.boundingRect(m)
                motion_bbox = self._bbox_full(x, y, x + w, y + h, size)
        self._prev = small

        occluded, side, point, changed_bbox, frac = False, None, None, None, 1.0
        arm_side, arm_point = None, None
        intruders = None  # border-touching changed regions: arms (over the layout or not)
        at_edge = None  # ... of any size (a finger tip coming into view too)
        changed_frac = roi_changed = 0.0
        changed_small = None
        if self._ref is not None:
            ref_diff = self._diff(small, self._ref)
            ref_mask = self._mask(small, self._ref, ref_diff)
            frac = float(cv2.countNonZero(ref_mask)) / n
            arm_mask = ref_mask
            if self.arm_threshold > 0 and frac <= self.lighting_fraction:
                weak = self._weak_mask(ref_diff)
                if float(cv2.countNonZero(weak)) / n > self.lighting_fraction:
                    frac = max(frac, float(cv2.countNonZero(weak)) / n)  # a faint change everywhere: lighting
                else:
                    arm_mask = cv2.bitwise_or(ref_mask, weak)
            if frac <= self.lighting_fraction and cv2.countNonZero(arm_mask) > 0:
                occluded, side, point, intruders, arm_side, arm_point, at_edge = self._intruder(arm_mask, roi_px)
                # what changed on the table itself (tiles), arms left out
                tiles = ref_mask if at_edge is None else cv2.bitwise_and(ref_mask, cv2.bitwise_not(at_edge))
                changed_frac = float(cv2.countNonZero(tiles)) / n
                # what changed outside the layout's region asks for a read only while the arms in view
                # keep still: a tile lifted from a hand and carried face up must not be read on its
                # way to the layout (a draw or a reveal is read once the arm rests or has gone)
                roi_changed = (changed_frac if roi_px is None or changed_frac == 0
                               else float(cv2.countNonZero(self._inside(tiles, roi_px))) / n)
                if changed_frac > 0:
                    changed_small = tiles
                    x, y, w, h = cv2.boundingRect(tiles)
                    changed_bbox = self._bbox_full(x, y, x + w, y + h, size)

        if intruders is not None and full_motion is not None and cv2.countNonZero(
                cv2.bitwise_and(full_motion, cv2.dilate(intruders, self._kernel, iterations=2))) > self.min_area * n:
            self._arm_moved_t = t
        arms_still = self._arm_moved_t is None or t - self._arm_moved_t >= self.still_window_s - 1e-6
        if intruders is not None:
            self._arm_in = True
            x, y, w, h = cv2.boundingRect(intruders)
            self._swept = _union(self._swept, self._bbox_full(x, y, x + w, y + h, size))
            self._swept_small = (intruders if self._swept_small is None
                                 else cv2.bitwise_or(self._swept_small, intruders))
        elif self._arm_in:
            self._arm_in, self._arm_left = False, True
        override = False
        if occluded and not moving:
            if self._occluded_since is None:
                self._occluded_since = t
            if t - self._occluded_since >= self.max_occluded_s:
                occluded, override = False, True  # an occluder that does not move: read through it
        else:
            self._occluded_since = None
        active = moving or occluded
        if active or self._last_motion_t is None:  # the first frame starts the clock
            self._last_motion_t = t
        still_for = 0.0 if active else t - self._last_motion_t

        first = self._ref is None
        lighting = frac > self.lighting_fraction  # most of the frame changed: the reference is stale
        # An arm that came and went may have changed little in pixels (a white tile turned face up
        # shows only its pips; a knock changes nothing): read once after it, still.
        changed = (first or self._requested or lighting or override or self._arm_left
                   or roi_changed > self.min_area or (arms_still and changed_frac > self.min_area))
        read = not active and still_for >= self.still_window_s - 1e-6 and changed
        if read and changed_bbox is not None and self._swept is not None:
            # what an arm reached over may have changed below the threshold (helper-159: a face-down tile
            # drawn from a boneyard on marble left no difference; the tracker kept it and the draw was
            # given to the seat whose turn it was when a later read went over the boneyard)
            changed_bbox = _union(changed_bbox, self._swept)
        swept_small = self._swept_small
        if read:
            self._swept = self._swept_small = None
            if at_edge is not None and not override:
                # keep the old reference under arms outside the layout (and finger tips coming into
                # view, too small to count as arms): the reference shows the table, never an arm
                keep = cv2.dilate(at_edge, self._kernel, iterations=2) > 0
                if small.ndim == 3:
                    keep = keep[:, :, None]
                small = np.where(keep, self._ref, small)
            self._ref = small
            self._requested = self._arm_left = False
            if override:
                self._arm_in = False  # the still occluder is now part of the reference
        return MotionInfo(t=float(t), frame=int(frame_index), moving=moving, occluded=occluded,
                          still_for_s=float(still_for), read=bool(read),
                          changed_bbox_px=None if first else changed_bbox, motion_bbox_px=motion_bbox,
                          entry_side=side, entry_point_px=point, changed_fraction=0.0 if first else changed_frac,
                          frame_size=size, arm_side=arm_side, arm_point_px=arm_point,
                          changed_small=None if first else changed_small, arms_small=intruders,
                          swept_small=swept_small)

    def _inside(self, mask: np.ndarray, roi_px: tuple[int, int, int, int]) -> np.ndarray:
        """``mask`` with everything outside ``roi_px`` (full-res px) cleared."""
        s = self._scale
        x0, y0 = (max(0, int(v / s)) for v in roi_px[:2])
        x1, y1 = (int(np.ceil(v / s)) for v in roi_px[2:])
        out = np.zeros_like(mask)
        out[y0:y1, x0:x1] = mask[y0:y1, x0:x1]
        return out

    def _intruder(self, mask: np.ndarray, roi_px: tuple[int, int, int, int] | None
                  ) -> tuple[bool, str | None, np.ndarray | None, np.ndarray | None, str | None, np.ndarray | None,
                             np.ndarray | None]:
        """Changed regions that touch the border (arms): (one reaches the ROI, its side, a point on
        that border in full-res px, the union mask of all of them or None, the side and point of the
        largest arm in view whether it reaches the ROI or not, the union mask of all border-touching
        regions whatever their size or None).

        Pieces of change closer than ``link_px`` are one region: an arm matches the reference along
        the line where the reference's grey passes through the arm's own (the edge of a dark hand
        row on a light cloth), and the 1-2 px gap there must not cut it from the border.
        """
        none = (False, None, None, None, None, None, None)
        linked = cv2.dilate(mask, self._link_kernel) if self._link_kernel is not None else mask
        n, labels = cv2.connectedComponents(linked, connectivity=8)
        if n <= 1:
            return none
        labels = np.where(mask > 0, labels, 0)  # the changed pixels only, labelled by linked region
        h, w = mask.shape
        b = self.border_px
        s = self._scale
        area = np.bincount(labels.ravel(), minlength=n)
        edge = np.concatenate([labels[:b].ravel(), labels[h - b:].ravel(), labels[:, :b].ravel(),
                               labels[:, w - b:].ravel()])
        touching = [int(i) for i in np.unique(edge) if i]
        if not touching:
            return none
        at_edge = (np.isin(labels, touching).astype(np.uint8)) * 255
        arms = [i for i in touching if area[i] >= self.min_area * h * w]
        if not arms:
            return False, None, None, None, None, None, at_edge
        if roi_px is not None:
            rx0, ry0, rx1, ry1 = (v / s for v in roi_px)
        best, biggest = None, None
        for i in arms:
            if biggest is None or area[i] > area[biggest]:
                biggest = i
            if roi_px is not None:
                ys, xs = np.nonzero(labels == i)
                if xs.max() < rx0 or xs.min() > rx1 or ys.max() < ry0 or ys.min() > ry1:
                    continue  # does not reach the layout
            if best is None or area[i] > area[best]:
                best = i
        union = (np.isin(labels, arms).astype(np.uint8)) * 255
        arm_side, arm_point = self._side(labels == biggest)
        if best is None:
            return False, None, None, union, arm_side, arm_point, at_edge
        side, point = (arm_side, arm_point) if best == biggest else self._side(labels == best)
        return True, side, point, union, arm_side, arm_point, at_edge

    def _side(self, comp: np.ndarray) -> tuple[str, np.ndarray]:
        """The border a region touches most, and the mean of its pixels there (full-res px)."""
        h, w = comp.shape
        b, s = self.border_px, self._scale
        side = border_side(comp, b)
        strips = {"top": comp[:b, :], "right": comp[:, w - b:], "bottom": comp[h - b:, :], "left": comp[:, :b]}
        ys, xs = np.nonzero(strips[side])
        if side == "right":
            xs = xs + (w - b)
        elif side == "bottom":
            ys = ys + (h - b)
        return side, np.array([(xs.mean() + 0.5) * s - 0.5, (ys.mean() + 0.5) * s - 0.5], np.float32)
