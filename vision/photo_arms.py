"""Arms in a folder of photos: a photo taken while a player reaches over the table.

A time-lapse review (one photo per move) reads every photo as a stable state, so a photo taken
while the mover's hand is still over the table (or the next player's already is) shows the move
one photo late, or hides tiles, and the record silently goes wrong (helper-108: photos cut
0.33 s before each move gave every play to the other seat, with no word of an arm).

Two consecutive photos are compared with :class:`vision.motion.MotionGate`'s occlusion test (a
changed region that touches the image border is an arm; most of the frame changed is lighting),
its faint-arm test off and an arm at least :data:`PHOTO_ARM_MIN_AREA` of the frame: photos are
taken seconds apart by hand, and the border of a real board photo drifts a little between shots.
Such a difference says that one of the two photos shows an arm; the one that does differs there
from its other neighbour too (helper-109: naming the later photo of each pair named clean photos
and the previous arm's edge). The first and last photos have one neighbour: what of the
difference the other photo does not explain is theirs.

Measured on generated footage (the demo; block, muggins and bdc-partnership at 960x540; photos
taken 0.33 s before a move comes to rest hold the arm, 0.9 s after it not): with every other
photo early, all 35 arm photos named, and 4 of the clean ones between two arms from the same
edge (where the clean photo is the odd one out); every photo early, 61 of 70 named; only the
first and the last early, both named each time (8); none early, none named.

A hand-held camera moves the whole picture between photos, and the table's edge and the hands along
it then differ at the border: the later photo is shifted back by the whole picture's move (phase
correlation) before they are compared (helper-126's five hand-held demo folders: 5 false arms -> 3, all on
the first photo, which a tilt leaves different; the demo's photos 0.33 s before each play still 14 of
16 named, 0.8 s after none, as before).

A photo zoomed from its neighbours (cropped to its central part, then scaled to the folder's size, as the folder
does for a photo of its shape without a calibration) moves every tile near the border outwards, which no shift
undoes: helper-230's demo photo 12 cropped to its central 80 % was named an arm "reaching in from the left
edge" (the boneyard's column there moved 94 px). When the similarity (scale, turn, shift) fitted to the two
photos' matched features (:func:`vision.photo_scene.matched_points`) scales the picture by more than
:data:`PHOTO_ZOOM`, the photo showing more of the table is brought onto the zoomed one by it instead of the
shift (each pixel compared then shows the table in both, and an arm at the zoomed photo's border still touches
its border).

A photo taken in other light than its neighbours (the lamp dimmed, a shorter exposure, a warmer bulb, one side of
the table darker) differs from them over the whole table, by a share of each level: helper-230's demo photo 5 at
0.5x brightness changed 56 % of the frame (under the gate's 60 % taken for lighting) in one region touching the
border, named an arm "reaching in from the right edge"; a gradient from 0.3x on the left to 1x on the right, 13 %.
The light of the photo after is fitted to the one before's (:func:`_one_light`: each colour's gain, smooth over
the picture, fitted to the pixels that both photos show alike) and the darker one lifted by it before they are
compared: the arm, where the two pictures do not agree, is left out of the fit and stays a difference (a 0.2x
photo's arm is found as the lit one's is, where the gate took the whole change for lighting and saw none).

A lamp's glare in one photo changes the border too; a part of the change a quarter clipped white in one of
the photos compared is light, not an arm (:data:`GLARE_ARM_SHARE`), and is left out.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.motion import MotionGate, border_side
from vision.photo_scene import (SAME_TABLE_POINTS, SCENE_RANSAC_PX, SCENE_WIDTH_PX, SceneFeatures, matched_points,
                                scene_features)

__all__ = ["PHOTO_ARM_MIN_AREA", "PHOTO_ZOOM", "PhotoArms", "arm_over", "arm_regions"]

#: Smallest border-touching change between two photos taken for an arm, as a share of the frame.
#: Measured at 0.02 on generated footage (the demo; block, muggins and bdc-partnership at 960x540),
#: consecutive pairs: photos taken 0.15 or 0.33 s before each tile comes to rest (the arm over the
#: table), 112 of 117 reported; taken 0.8 s after (the arm gone), 0 of 66. The 95 pairs of the real
#: DDD time-lapse photos (no arms): 6 reported at 0.001 (the motion gate's own threshold), 1 at
#: 0.01, none at 0.02. The bench's photo folders (``bench/sec_photos.py``: 9 presets, about 300
#: photos taken 0.8 s after each event): none. A hand just inside the border (1.3-1.5 % of the frame,
#: the demo cut every 60th frame: helper-204's photos 4 and 5) is not named: at 0.015, 122 of 124 early
#: photos of four bench footages were named (118 at 0.02) and none of the DDD pairs, but a hand-held
#: folder's false arms went 1 -> 2 of 267 photos (session 38).
PHOTO_ARM_MIN_AREA = 0.02
#: A border-touching change of which at least this share is clipped white in the photo it is in
#: (:func:`vision.exposure.clipped_mask`) is a glare, not an arm: light, where an arm shades. A glare disc
#: painted over a hand row (11 % of the picture) made a change 22 % of the frame with 50 % of it clipped,
#: named an arm, and the next photo's seat vote reached back over it (a play given to the wrong seat);
#: the arms of the measurements above lie on no clipped white.
GLARE_ARM_SHARE = 0.25
#: ... or a change with a clipped core of at least this share, where the photo holding the core is the
#: lighter one over :data:`GLARE_LIGHTER_SHARE` of it (by :data:`GLARE_LIGHTER_LEVELS` grey levels or more): a
#: glare's halo of light round a small core (helper-141: a disc 1.7 % clipped with a halo of a third of its
#: radius over N's row was named an arm and gave N's 3-1 to S). An arm shades or covers; it does not light the
#: table round a clipped patch.
GLARE_CORE_SHARE = 0.02
GLARE_LIGHTER_SHARE = 0.8
GLARE_LIGHTER_LEVELS = 8
#: Two photos whose fitted similarity scales the picture by more than this share (up or down) are compared
#: at one scale (see the module). The photos of a hand-held phone (``bench.sec_photos.hand_held``'s, the demo's
#: 21 photos): 0.95-1.055; a still camera's 0.999-1.0; a photo cropped to its central 80 % and scaled up 1.25
#: (0.80 back). The demo's photos zoomed 1.08 and 1.10 were named arms too (the first photo, by its one pair).
PHOTO_ZOOM = 0.06
#: Two photos whose fitted light (:func:`_one_light`) differs by more than this (the gain's natural log, about a
#: share) somewhere in the picture are brought to one light before compared. The 95 pairs of the real DDD
#: time-lapse photos: median 0.017, 90th percentile 0.035, 6 over it (at most 0.12); helper-230's demo photos: 0
#: (rendered in one light), 0.36 at 0.7x, 0.24 under a colour cast (B 0.8x, R 1.1x). Under it the photos are
#: compared as taken: 4 % of a white tile's 180 grey levels is 7, under a third of the gate's 25.
LIGHT_STEP = 0.04
#: Pixels darker than this (grey levels, 0-255) in either photo, or clipped (:data:`LIGHT_TOP` or more), tell
#: nothing of the light (a level's rounding is a large share of it; clipped white is no measure): left out of the fit.
LIGHT_FLOOR = 3
LIGHT_TOP = 250
#: The fit keeps this share (0-1) of its pixels, those the fit before explains best, over :data:`LIGHT_ROUNDS`
#: rounds: an arm's pixels, those the light explains worst, are left out while under 40 % of the ones fitted.
LIGHT_KEEP = 0.6
LIGHT_ROUNDS = 3
#: The width (px) the light is fitted at: a smooth gain needs no detail (a 16:9 photo: 160 x 90 pixels).
LIGHT_WIDTH_PX = 160


def arm_regions(before: np.ndarray, after: np.ndarray,
                features: tuple[SceneFeatures, SceneFeatures] | None = None) -> np.ndarray | None:
    """Where two photos differ by arm-sized regions touching the image border.

    Args:
        before, after: (H, W, 3) BGR or (H, W) grey uint8 photos of the same table.
        features: their :func:`vision.photo_scene.scene_features`, when the caller has them (else found here).

    Returns:
        (h, w) bool mask at the motion gate's work size (320 px wide), or None when there is no
        such region or the photos differ in size (not compared).
    """
    if before.shape != after.shape:
        return None
    before, after = _unfilled(before, after)
    before, after = _one_scale(before, after, features) or (before, _steadied(before, after))
    before, after = _one_light(before, after)
    gate = MotionGate(still_window_s=0.0, arm_threshold=0.0, min_area=PHOTO_ARM_MIN_AREA)
    gate.prime(0.0, before)
    arms = gate.update(1, 1.0, after).arms_small
    return None if arms is None else arms > 0


def _unfilled(before: np.ndarray, after: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two photos with each one's filled pixels (exactly the grey :data:`calibration.images.
    TRANSPARENT_FILL` that transparent pixels are read as) taken from the other: no picture there to
    differ (helper-136: one photo's transparent border was named an arm, and it misled the steadying)."""
    from calibration.images import TRANSPARENT_FILL

    def filled(photo: np.ndarray) -> np.ndarray:
        channels = 1 if photo.ndim == 2 else photo.shape[2]
        return cv2.inRange(photo, (TRANSPARENT_FILL,) * channels, (TRANSPARENT_FILL,) * channels) > 0

    in_after, in_before = filled(after), filled(before)
    if in_after.any():
        after = after.copy()
        after[in_after] = before[in_after]
    if in_before.any():
        before = before.copy()
        before[in_before] = after[in_before]
    return before, after


def _steadied(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """``after`` shifted back by how far the whole picture moved since ``before`` (a hand-held camera:
    the table's edge and the hands along it differed at the border, a false arm; helper-126), found by
    phase correlation of the two grey photos; as it is when they agree within a pixel."""
    grey = [cv2.cvtColor(x, cv2.COLOR_BGR2GRAY) if x.ndim == 3 else x for x in (before, after)]
    (dx, dy), _ = cv2.phaseCorrelate(*(np.float32(g) for g in grey))
    if np.hypot(dx, dy) < 1.0:
        return after
    back = np.float32([[1, 0, -dx], [0, 1, -dy]])
    return cv2.warpAffine(after, back, (after.shape[1], after.shape[0]), borderMode=cv2.BORDER_REPLICATE)


def _one_light(before: np.ndarray, after: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two photos (one size, aligned) in one light: the darker one lifted by the gain (each colour's own,
    ``exp(a + b x + c y)`` over the picture) fitted to the two photos' log levels, when it differs from 1 by more
    than :data:`LIGHT_STEP` (in log) somewhere in the picture, both then at the motion gate's work size (what it
    compares); as they are otherwise, or where too few pixels tell the light. The fit keeps the pixels it explains
    best (:data:`LIGHT_KEEP`): an arm or a tile laid is left out of it."""
    gain = _light_gain(before, after)
    if gain is None:
        return before, after
    width = MotionGate().work_width_px
    before, after = _shrunk(before, width), _shrunk(after, width)
    h, w = before.shape[:2]
    # the gain over the picture, per colour: exp(a) * exp(b x) * exp(c y), x and y from -1 to 1
    xs, ys = np.linspace(-1, 1, w, dtype=np.float32), np.linspace(-1, 1, h, dtype=np.float32)
    field = np.stack([np.exp(a + c * ys)[:, None] * np.exp(b * xs)[None, :] for a, b, c in gain], axis=-1)
    if before.ndim == 2:
        field = field[..., 0]
    # lift the darker photo, not dim the lighter: an arm's difference keeps the lit photo's levels
    darker_after = float(np.mean([a for a, _, _ in gain])) < 0  # after = gain * before
    lifted = after / field if darker_after else before * field
    lifted = np.clip(lifted + 0.5, 0, 255).astype(np.uint8)
    return (before, lifted) if darker_after else (lifted, after)


def _shrunk(image: np.ndarray, width: int) -> np.ndarray:
    """``image`` scaled (area mean) to ``width`` px wide, its shape kept; as it is when it is no wider."""
    h, w = image.shape[:2]
    return image if w <= width else cv2.resize(image, (width, max(1, round(h * width / w))),
                                               interpolation=cv2.INTER_AREA)


def _light_gain(before: np.ndarray, after: np.ndarray) -> list[tuple[float, float, float]] | None:
    """Per colour (B, G, R; one for grey photos) the ``(a, b, c)`` of ``log(after / before) = a + b x + c y``
    (x, y from -1 to 1 across and down the picture), fitted by least squares to the pixels it explains best
    (:data:`LIGHT_KEEP`, :data:`LIGHT_ROUNDS` rounds) of the photos at :data:`LIGHT_WIDTH_PX`; None when the
    gain's log is within :data:`LIGHT_STEP` of 0 over the whole picture, or too few pixels tell a colour's light."""
    a, b = (_shrunk(x, LIGHT_WIDTH_PX).astype(np.float32) for x in (before, after))
    size = (a.shape[1], a.shape[0])
    if a.ndim == 2:
        a, b = a[..., None], b[..., None]
    gy, gx = np.mgrid[0:size[1], 0:size[0]].astype(np.float32)
    gx, gy = gx * (2 / max(1, size[0] - 1)) - 1, gy * (2 / max(1, size[1] - 1)) - 1
    corners = np.float32([[1, x, y] for x in (-1, 1) for y in (-1, 1)])
    gain, step = [], 0.0
    for ch in range(a.shape[2]):
        x, y = a[..., ch], b[..., ch]
        told = (x >= LIGHT_FLOOR) & (y >= LIGHT_FLOOR) & (x < LIGHT_TOP) & (y < LIGHT_TOP)
        if told.sum() < 0.05 * told.size:
            return None
        design = np.stack([np.ones(int(told.sum()), np.float32), gx[told], gy[told]], axis=1)
        ratio = np.log(y[told]) - np.log(x[told])
        keep = np.ones(len(ratio), bool)
        for _ in range(LIGHT_ROUNDS):
            fit = np.linalg.lstsq(design[keep], ratio[keep], rcond=None)[0]
            miss = np.abs(design @ fit - ratio)
            keep = miss <= np.quantile(miss, LIGHT_KEEP)
        gain.append(tuple(float(v) for v in fit))
        step = max(step, float(np.abs(corners @ fit).max()))  # the fit is linear: its largest at a corner
    return gain if step > LIGHT_STEP else None


def _one_scale(before: np.ndarray, after: np.ndarray, features: tuple[SceneFeatures, SceneFeatures] | None = None
               ) -> tuple[np.ndarray, np.ndarray] | None:
    """The two photos (one size) in the frame of the one showing less of the table, the other brought onto it
    by the similarity fitted (RANSAC) to their matched features, when it scales the picture by more than
    :data:`PHOTO_ZOOM` (so that each pixel compared shows the table in both, and an arm at the zoomed photo's
    border still touches the border); None when it does not, or under
    :data:`vision.photo_scene.SAME_TABLE_POINTS` points agree on it."""
    a, b = features if features is not None else (scene_features(before), scene_features(after))
    src, dst = matched_points(a, b)
    if len(src) < SAME_TABLE_POINTS:
        return None
    m, inliers = cv2.estimateAffinePartial2D(src, dst, method=cv2.RANSAC, ransacReprojThreshold=SCENE_RANSAC_PX)
    scale = np.hypot(m[0, 0], m[1, 0]) if m is not None else 1.0
    if m is None or int(inliers.sum()) < SAME_TABLE_POINTS or abs(scale - 1) <= PHOTO_ZOOM:
        return None
    m[:, 2] *= before.shape[1] / SCENE_WIDTH_PX  # from the features' width to the photos' pixels
    h, w = before.shape[:2]
    # m takes ``before``'s pixels to ``after``'s: forwards when ``after`` is the zoomed one, else backwards
    flags = cv2.WARP_INVERSE_MAP if scale < 1 else 0
    moved, still = (after, before) if scale < 1 else (before, after)
    brought = cv2.warpAffine(moved, m, (w, h), flags=cv2.INTER_LINEAR | flags)
    reach = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, (w, h), flags=cv2.INTER_NEAREST | flags) > 0
    brought[~reach] = still[~reach]  # an edge pixel's rounding: no picture there to differ
    return (still, brought) if scale < 1 else (brought, still)


class PhotoArms:
    """Which photos of a folder show an arm over the table, each decided once the photo after it
    is seen (:meth:`add`), the last one at :meth:`finish`.

    Decisions are ``(photo index, seconds, border)`` tuples; the border is the image edge
    (``top``/``right``/``bottom``/``left``) the arm reaches in from.
    """

    def __init__(self) -> None:
        self._prev: np.ndarray | None = None  # the last photo
        self._prev_features: SceneFeatures | None = None  # its scene features (:func:`_one_scale`)
        self._taken: list[tuple[int, float]] = []  # (index, t) of the photos so far
        self._pairs: list[np.ndarray | None] = []  # arm regions between photo k-1 and k, for k >= 1
        # each photo's clipped white and grey levels at the arm masks' size (the motion gate's work size)
        self._clipped: list[np.ndarray] = []
        self._grey: list[np.ndarray] = []
        #: photo index -> where it shows the arm ((h, w) bool at :func:`arm_regions`' size), for the photos named
        self.masks: dict[int, np.ndarray] = {}

    def add(self, index: int, t: float, image: np.ndarray, clipped: np.ndarray | None = None
            ) -> list[tuple[int, float, str]]:
        """Take the next photo (frame ``index``, ``t`` s, image as :func:`arm_regions`); returns the
        photos now known to show an arm: the one before it, and at the third photo the first. The
        same image again (a second look at the last photo) is no new photo. ``clipped``: its
        :func:`vision.exposure.clipped_mask` when the caller has it already."""
        if image is self._prev:
            return []
        features = scene_features(image)
        if self._prev is not None:
            self._pairs.append(arm_regions(self._prev, image, (self._prev_features, features)))
        self._prev, self._prev_features = image, features
        self._taken.append((index, t))
        clipped, grey = _work_size(image, clipped)
        self._clipped.append(clipped)
        self._grey.append(grey)
        out = []
        if len(self._pairs) >= 2:
            before, after = self._pairs[-2], self._pairs[-1]
            if len(self._pairs) == 2:  # the first photo: what of its difference the second does not explain
                out += self._decided(0, _left(before, after))
            out += self._decided(len(self._taken) - 2, _both(before, after))
        return out

    def finish(self) -> list[tuple[int, float, str]]:
        """The last photo: what of its difference from the one before that photo does not explain."""
        if not self._pairs:
            return []
        last = self._pairs[-1]
        return self._decided(len(self._taken) - 1, _left(last, self._pairs[-2]) if len(self._pairs) >= 2 else last)

    def _without_glare(self, arm: np.ndarray, k: int) -> np.ndarray:
        """``arm`` ((h, w) bool, photo ``k``'s change) less each connected part of it that is a glare in photo
        ``k`` or a photo beside it: :data:`GLARE_ARM_SHARE` of it clipped white in one of them, or a clipped
        core (:data:`GLARE_CORE_SHARE`) in the photo that is the lighter one over most of it."""
        near = [j for j in (k - 1, k + 1) if 0 <= j < len(self._grey) and self._grey[j].shape == arm.shape]
        if not near or self._grey[k].shape != arm.shape or not arm.any():
            return arm
        n, parts = cv2.connectedComponents(arm.astype(np.uint8), connectivity=8)
        out = arm.copy()
        for label in range(1, n):
            part = parts == label
            size = int(part.sum())
            for j in near:
                core = {x: int((part & self._clipped[x]).sum()) for x in (k, j)}
                lit, dark = (k, j) if core[k] >= core[j] else (j, k)
                step = self._grey[lit][part].astype(np.int16) - self._grey[dark][part]
                lighter = (step >= GLARE_LIGHTER_LEVELS).mean()
                if core[lit] >= GLARE_ARM_SHARE * size or (core[lit] >= GLARE_CORE_SHARE * size
                                                           and lighter >= GLARE_LIGHTER_SHARE):
                    out &= ~part
                    break
        return out

    def _decided(self, k: int, arm: np.ndarray | None) -> list[tuple[int, float, str]]:
        if arm is None or arm.sum() < PHOTO_ARM_MIN_AREA * arm.size:
            return []
        arm = self._without_glare(arm, k)
        if arm.sum() < PHOTO_ARM_MIN_AREA * arm.size:
            return []  # a glare (the photo's overexposed notice says it), not an arm
        self.masks[self._taken[k][0]] = arm
        return [(*self._taken[k], border_side(arm))]


def arm_over(photo: np.ndarray, before: np.ndarray, after: np.ndarray | None = None) -> np.ndarray | None:
    """Where ``photo`` shows an arm over the table, decided as :class:`PhotoArms` decides a folder's photo between
    the photos ``before`` and ``after`` it (None: ``photo`` is the last one; images as :func:`arm_regions`').

    Returns:
        (h, w) bool mask at :func:`arm_regions`' size (320 px wide), or None when ``photo`` shows no arm.
    """
    arms = PhotoArms()
    for k, image in enumerate((before, photo) if after is None else (before, photo, after)):
        arms.add(k, float(k), image)
    if after is None:
        arms.finish()
    return arms.masks.get(1)


def _work_size(image: np.ndarray, clipped: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``image``'s clipped white ((h, w) bool; from ``clipped``, its mask, when given) and grey levels
    ((h, w) uint8) at the motion gate's work size (320 px wide), the size of :func:`arm_regions`' masks."""
    from vision.exposure import clipped_mask

    width = MotionGate().work_width_px
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    clipped = clipped_mask(image) if clipped is None else clipped
    return _shrunk(clipped, width) >= 128, _shrunk(grey, width)


def _both(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    """Where both differences show an arm: the photo between them holds it."""
    return None if a is None or b is None else a & b


def _left(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    """What of difference ``a`` the other difference ``b`` (grown a little) does not cover."""
    if a is None or b is None:
        return a
    return a & ~(cv2.dilate(b.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0)
