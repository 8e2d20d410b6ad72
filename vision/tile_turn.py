"""How far a tile turned between two reads, registered from its pixels.

A knocked tile (a ``bump`` notice, :mod:`vision.tracking`) turns 1-3 degrees (the generated footage's
``bumps[].turn_deg``). The detector's boxes give that turn only to 1-2 degrees (a 40 px tile turned 2
degrees moves its ends by under a pixel). helper-165: the demo's 6-6, turned 1.94 degrees anticlockwise,
was said to have turned 0.5; all-fives seed 11's 4-1 (``test`` look), turned 1.46 clockwise, 0.6
anticlockwise. Each read therefore keeps a small grey patch round every face-up tile (:func:`tile_patch`);
the turn is the rotation that carries the first read's tile onto the second read's picture
(:func:`registered_turn_deg`: OpenCV's ECC, a Euclidean warp started from the boxes' shift and turn, over
the first read's tile: its face and long sides, not its ends, where the tiles in line lie; unsmoothed,
which registered these small pictures best).

Measured (2026-12-04) on twelve knocks in generated footage (the demo; all-fives seed 11, both looks; draw
seeds 1, 6, 8, 16; muggins seed 6; ``dominocast datasets footage``), each tile read before and after it:
registered, within 0.3 degrees of ``turn_deg`` (0.15 RMS), every sign right; the boxes' turn 2.5 off at
worst (1.3 RMS), one sign wrong.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

#: The patch reaches this many tile lengths beyond the tile's centre (half a tile, plus room for a knock).
PATCH_REACH = 0.85
#: The part of the first read registered: the box scaled about its centre by these factors, along the tile
#: (its ends left out: the tiles in line lie there) and across it (its long sides, the longest straight
#: edges, taken in with a little of the table beside them).
REGISTER_ALONG, REGISTER_ACROSS = 0.85, 1.3
#: Below this correlation the registration found another picture (a tile turned over, a hand over it).
MIN_CORRELATION = 0.9
#: ... and a registered turn further than this from the boxes' (degrees) is not the same turn.
AGREES_DEG = 3.0
#: :func:`still_share` judges the box scaled about its centre by this (its edges and a little table beside them),
STILL_GROW = 1.15
#: over its pixels whose grey changes by more than this per pixel (Sobel, grey levels / px: pips, edges, print),
TEXTURE_GRADIENT = 6.0
#: each one still when its grey differs by at most this (grey levels) in the later frame.
STILL_GREY = 12


@dataclass(frozen=True)
class TilePatch:
    """A grey crop of a frame round one tile.

    Attributes:
        grey: (h, w) uint8 crop.
        origin: (2,) float64 frame px (pixel centres) of the crop's pixel (0, 0).
        polygon: (4, 2) float64 the tile's box in frame px, pixel centres, edge 0->1 a long side.
    """

    grey: np.ndarray
    origin: np.ndarray
    polygon: np.ndarray


def tile_patch(frame: np.ndarray, polygon_px: np.ndarray) -> TilePatch | None:
    """The patch of ``frame`` round the tile boxed by ``polygon_px`` ((4, 2), pixel-edge coordinates,
    edge 0->1 a long side); None when the tile is not wholly in the frame."""
    p = np.asarray(polygon_px, np.float64).reshape(4, 2) - 0.5
    c = p.mean(0)
    length = 0.5 * (np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[3]))
    r = int(math.ceil(length * PATCH_REACH))
    x0, y0 = int(round(c[0])) - r, int(round(c[1])) - r
    h, w = frame.shape[:2]
    if r < 4 or x0 < 0 or y0 < 0 or x0 + 2 * r + 1 > w or y0 + 2 * r + 1 > h:
        return None
    crop = frame[y0:y0 + 2 * r + 1, x0:x0 + 2 * r + 1]
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop.copy()
    return TilePatch(grey, np.array([x0, y0], np.float64), p)


def registered_turn_deg(before: TilePatch, after: TilePatch, box_turn: float) -> float | None:
    """The tile's turn from ``before`` to ``after`` in degrees, signed as
    :func:`vision.camera_follow.turn_deg` (+: clockwise on screen, y down), registered from the pixels;
    ``box_turn`` is the boxes' turn, where the search starts.

    Returns None when the registration fails, correlates under :data:`MIN_CORRELATION` or ends further
    than :data:`AGREES_DEG` from ``box_turn`` (the caller keeps the boxes' turn).
    """
    p = before.polygon
    c0, c1 = p.mean(0), after.polygon.mean(0)
    along = ((p[1] - p[0]) + (p[2] - p[3])) * REGISTER_ALONG / 4  # half the registered length, as a vector
    across = ((p[3] - p[0]) + (p[2] - p[1])) * REGISTER_ACROSS / 4
    part = np.stack([c0 - along - across, c0 + along - across, c0 + along + across, c0 - along + across])
    mask = np.zeros(before.grey.shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round((part - before.origin) * 16).astype(np.int32), 1, shift=4)
    # the warp takes a pixel of `after` (the template) to where it lay in `before`: the turn undone
    t = math.radians(-box_turn)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    shift = (c0 - before.origin) - rot @ (c1 - after.origin)
    warp = np.hstack([rot, shift[:, None]]).astype(np.float32)
    try:
        cc, warp = cv2.findTransformECC(after.grey, before.grey, warp, cv2.MOTION_EUCLIDEAN,
                                        (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 100, 1e-5), mask, 1)
    except cv2.error:  # no texture to register, or it did not converge
        return None
    turn = -math.degrees(math.atan2(float(warp[1, 0]), float(warp[0, 0])))
    if cc < MIN_CORRELATION or abs(turn - box_turn) > AGREES_DEG:
        return None
    return turn


def still_share(before: TilePatch, after: TilePatch) -> float | None:
    """The share of the textured pixels round the tile in ``before`` (its box grown by :data:`STILL_GROW`;
    pixels whose grey gradient is over :data:`TEXTURE_GRADIENT`: pips, edges, printed lines) that show the
    same grey (within :data:`STILL_GREY`) at the same frame pixel in ``after``, a later frame's patch.

    A tile that did not move keeps nearly all of them (what was laid over part of it aside), whatever the
    detector's boxes say; one pushed 2 px or turned a few degrees, or taken away, keeps few, since its pips
    and edges lie elsewhere. Returns a value in [0, 1], or None when ``before`` shows no texture there or a
    tenth of those pixels lie outside ``after``.
    """
    p = before.polygon
    c = p.mean(0)
    mask = np.zeros(before.grey.shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round((c + (p - c) * STILL_GROW - before.origin) * 16).astype(np.int32), 1, shift=4)
    g = before.grey.astype(np.float32)
    grad = np.hypot(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)) / 8
    ys, xs = np.nonzero((mask > 0) & (grad > TEXTURE_GRADIENT))
    off = np.round(before.origin - after.origin).astype(int)  # both origins are whole frame pixels
    ax, ay = xs + off[0], ys + off[1]
    h, w = after.grey.shape
    inside = (ax >= 0) & (ay >= 0) & (ax < w) & (ay < h)
    if not len(xs) or inside.sum() < 0.9 * len(xs):
        return None
    diff = np.abs(after.grey[ay[inside], ax[inside]].astype(np.int16) - before.grey[ys[inside], xs[inside]])
    return float(np.mean(diff <= STILL_GREY))
