"""Occlusion and motion gating: read the layout only when nothing is over it.

:class:`MotionGate` looks at every frame (cheaply: a downscaled, blurred grayscale copy)
and decides when the recognizer should read it:

* **motion**: ``cv2.absdiff`` between this frame and the previous one, thresholded,
  cleaned by a morphological opening; changed pixels above ``min_area`` (a fraction of
  the frame) mean something moves;
* **occlusion**: the same difference against the *reference* (the last frame that was
  read); a changed region that touches the image border and reaches into the region of
  interest (the layout) is an arm over the table, even when it holds still. The border
  it touches is the side the arm came from (``entry_side``), for seat attribution;
* **read**: once the scene has been still for ``still_window_s`` seconds (time, not
  frames: the gate works at any frame rate) with no arm over the layout, and something
  changed since the last read (or a read was requested), the frame is read once. The
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

from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["MotionGate", "MotionInfo", "SIDES"]

SIDES = ("top", "right", "bottom", "left")


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
            read (only this region needs a fresh read); None: the whole frame (first read).
        motion_bbox_px: ``(x0, y0, x1, y1)`` of the frame-to-frame change, or None.
        entry_side: image border (``top``/``right``/``bottom``/``left``) the intruding region
            touches the most, or None.
        entry_point_px: (2,) float32 mean of the intruding region's pixels on that border.
        changed_fraction: fraction of the (downscaled) frame that differs from the reference,
            arms (regions touching the border) left out.
        frame_size: ``(width, height)`` px of the frame.
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
    """

    def __init__(self, still_window_s: float = 0.5, work_width_px: int = 320, blur_px: int = 5,
                 diff_threshold: int = 25, min_area: float = 1e-3, border_px: int = 3,
                 lighting_fraction: float = 0.6, max_occluded_s: float = 3.0, pad_px: int = 8):
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
        self._scale = 1.0

    def request_read(self) -> None:
        """Read the next still frame even if nothing changed (e.g. to confirm a take-back)."""
        self._requested = True

    def _small(self, image: np.ndarray) -> np.ndarray:
        if image.ndim == 3:
            gray = cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY if image.shape[2] == 4 else cv2.COLOR_BGR2GRAY)
        else:
            gray = image
        h, w = gray.shape[:2]
        self._scale = w / float(self.work_width_px) if w > self.work_width_px else 1.0
        if self._scale > 1.0:
            gray = cv2.resize(gray, (self.work_width_px, max(1, round(h / self._scale))),
                              interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(gray, (self.blur_px, self.blur_px), 0)

    def _mask(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        diff = cv2.absdiff(a, b)
        _, m = cv2.threshold(diff, self.diff_threshold, 255, cv2.THRESH_BINARY)
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
        size = (int(image.shape[1]), int(image.shape[0]))
        sh, sw = small.shape[:2]
        n = float(sh * sw)
        moving = False
        motion_bbox = None
        if self._prev is not None:
            m = self._mask(small, self._prev)
            if roi_px is not None:  # motion outside the layout (players at their racks) does not count
                m = self._inside(m, roi_px)
            cnt = int(cv2.countNonZero(m))
            if cnt > self.min_area * n:
                moving = True
                x, y, w, h = cv2.boundingRect(m)
                motion_bbox = self._bbox_full(x, y, x + w, y + h, size)
        self._prev = small

        occluded, side, point, changed_bbox, frac = False, None, None, None, 1.0
        intruders = None  # border-touching changed regions: arms (over the layout or not)
        changed_frac = 0.0
        if self._ref is not None:
            ref_mask = self._mask(small, self._ref)
            frac = float(cv2.countNonZero(ref_mask)) / n
            if 0 < frac <= self.lighting_fraction:
                occluded, side, point, intruders = self._intruder(ref_mask, roi_px)
                # what changed on the table itself (tiles), arms left out
                tiles = ref_mask if intruders is None else cv2.bitwise_and(ref_mask, cv2.bitwise_not(intruders))
                changed_frac = float(cv2.countNonZero(tiles)) / n
                if changed_frac > 0:
                    x, y, w, h = cv2.boundingRect(tiles)
                    changed_bbox = self._bbox_full(x, y, x + w, y + h, size)

        if intruders is not None:
            self._arm_in = True
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
                   or changed_frac > self.min_area)
        read = not active and still_for >= self.still_window_s - 1e-6 and changed
        if read:
            if intruders is not None and not override:
                # keep the old reference under arms outside the layout: the reference shows the table
                keep = cv2.dilate(intruders, self._kernel, iterations=2) > 0
                small = np.where(keep, self._ref, small)
            self._ref = small
            self._requested = self._arm_left = False
            if override:
                self._arm_in = False  # the still occluder is now part of the reference
        return MotionInfo(t=float(t), frame=int(frame_index), moving=moving, occluded=occluded,
                          still_for_s=float(still_for), read=bool(read),
                          changed_bbox_px=None if first else changed_bbox, motion_bbox_px=motion_bbox,
                          entry_side=side, entry_point_px=point, changed_fraction=0.0 if first else changed_frac,
                          frame_size=size)

    def _inside(self, mask: np.ndarray, roi_px: tuple[int, int, int, int]) -> np.ndarray:
        """``mask`` with everything outside ``roi_px`` (full-res px) cleared."""
        s = self._scale
        x0, y0 = (max(0, int(v / s)) for v in roi_px[:2])
        x1, y1 = (int(np.ceil(v / s)) for v in roi_px[2:])
        out = np.zeros_like(mask)
        out[y0:y1, x0:x1] = mask[y0:y1, x0:x1]
        return out

    def _intruder(self, mask: np.ndarray, roi_px: tuple[int, int, int, int] | None
                  ) -> tuple[bool, str | None, np.ndarray | None, np.ndarray | None]:
        """Changed regions that touch the border (arms): (one reaches the ROI, its side, a point on
        that border in full-res px, the union mask of all of them or None)."""
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        if n <= 1:
            return False, None, None, None
        h, w = mask.shape
        b = self.border_px
        s = self._scale
        if roi_px is not None:
            rx0, ry0, rx1, ry1 = (v / s for v in roi_px)
        arms, best = [], None
        for i in range(1, n):
            x, y, bw, bh, area = (int(v) for v in stats[i])
            if area < self.min_area * h * w:
                continue
            if not (x < b or y < b or x + bw > w - b or y + bh > h - b):
                continue  # does not touch the border: a tile, not an arm
            arms.append(i)
            if roi_px is not None and (x + bw < rx0 or x > rx1 or y + bh < ry0 or y > ry1):
                continue  # does not reach the layout
            if best is None or area > best[1]:
                best = (i, area)
        if not arms:
            return False, None, None, None
        union = (np.isin(labels, arms).astype(np.uint8)) * 255
        if best is None:
            return False, None, None, union
        comp = labels == best[0]
        strips = {"top": comp[:b, :], "right": comp[:, w - b:], "bottom": comp[h - b:, :], "left": comp[:, :b]}
        counts = {k: int(v.sum()) for k, v in strips.items()}
        side = max(SIDES, key=lambda k: counts[k])
        ys, xs = np.nonzero(strips[side])
        if side == "right":
            xs = xs + (w - b)
        elif side == "bottom":
            ys = ys + (h - b)
        point = np.array([(xs.mean() + 0.5) * s - 0.5, (ys.mean() + 0.5) * s - 0.5], np.float32)
        return True, side, point, union
