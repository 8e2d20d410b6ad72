"""A hand-held camera between two photos: how the table moved in the picture, from the tiles.

A folder of photos taken with a phone in the hand shifts and turns a little between shots, and the
tracker follows tiles by where they lie: every tile of the line of play "bumped", or, moved further
than half a tile, was taken for gone and laid anew. On the bench's photo folders taken hand-held
(as ``bench.sec_photos.hand_held`` takes them: each photo's corners moved by about 15 px, 1.2 % of
1 280; no calibration; a scratch run before this module), 69 of 227 plays were right, with 2 179 bump
and move notices. The face-up tiles tie two photos together: a domino exists once in a set, so a tile
read with the same pips in both is the same tile, and the tiles laid do not move between photos (a
bump moves one, a play adds one). A similarity transform (shift, turn, scale) fitted to them by RANSAC
is the camera's move, or, while fewer than three are laid, one tile's move that the hands' tiles agree
with; the tracked tiles are moved with it before they are matched (``Tracker._follow_camera``).

With it: 217 of 227 plays, 10 of 12 hands right, 46 notices (``docs/tracking.md``). Warping each photo
onto the first by image features was tried first and dropped: ORB matches on a cloth's wavy pattern
locked onto a wrong wave, leaving the line 12-46 px off.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.layout_from_tiles import TileGeom

__all__ = ["MIN_PAIRS", "INLIER_SHARE", "RANSAC_TILES", "agreeing", "camera_move", "moved_geom", "moved_points",
           "one_tile_move", "shift_at", "tile_move", "turn_deg"]

#: Tiles seen in both photos that must agree on the move (a similarity has 4 degrees of freedom:
#: two tiles fit any move exactly, a third checks it).
MIN_PAIRS = 3
#: ... and the share of the tiles paired that must agree (a misread pairs the wrong tiles).
INLIER_SHARE = 0.6
#: RANSAC's tolerance, in tile lengths: a tile agrees when the move puts it within this of where it is.
RANSAC_TILES = 0.15


def camera_move(before: np.ndarray, now: np.ndarray, tile_length: float, turns: np.ndarray | None = None,
                max_turn_deg: float = 8.0) -> tuple[np.ndarray | None, np.ndarray]:
    """The similarity transform that takes the tiles' centres ``before`` to ``now``.

    Args:
        before, now: (N, 2) float centres of the same N tiles in the last photo and this one (image px,
            or table mm with a calibration).
        tile_length: a tile's long side in the same unit (> 0).
        turns: (N,) float, each tile's own turn between the photos (degrees, :func:`turn_deg`), or None.
            A tile that turned more than ``max_turn_deg`` other than the move did was knocked, not
            carried by the camera: the move is fitted again without it, when the others still fit one
            (an outlier by its turn alone).
        max_turn_deg: see ``turns``.

    Returns:
        ``(m, inliers)``: ``m`` (2, 3) float64 (``now = m[:, :2] @ before + m[:, 2]``), or None when fewer
        than :data:`MIN_PAIRS` tiles, or under :data:`INLIER_SHARE` of them, agree; ``inliers`` (N,) bool.
    """
    m, inliers = _fit(before, now, tile_length)
    if m is None or turns is None:
        return m, inliers
    # a knocked tile's centre moves a few mm, within RANSAC_TILES: fitted with the others it drew the
    # move a share of its knock, and its bump notice came short of it in shift and turn
    off = np.abs(_fold(np.asarray(turns, np.float64) - np.degrees(np.arctan2(m[1, 0], m[0, 0])))) > max_turn_deg
    if not (inliers & off).any():
        return m, inliers
    m2, kept = _fit(np.asarray(before)[~off], np.asarray(now)[~off], tile_length)
    if m2 is None:
        return m, inliers
    inliers = np.zeros(len(off), bool)
    inliers[~off] = kept
    return m2, inliers


def _fold(deg: np.ndarray | float) -> np.ndarray | float:
    """Angles folded into [-90, 90): a tile's box looks the same turned half a turn."""
    return (deg + 90.0) % 180.0 - 90.0


def turn_deg(before: TileGeom, now: TileGeom) -> float:
    """How far one tile turned from ``before`` to ``now``: degrees in [-90, 90), signed as
    :class:`vision.observation.TileObservation`'s ``angle_deg`` (+: from +x towards +y, so clockwise
    seen from above, with y down in image px and in table mm alike)."""
    a, b = np.asarray(before.axis, np.float64), np.asarray(now.axis, np.float64)
    return float(_fold(np.degrees(np.arctan2(a[0] * b[1] - a[1] * b[0], np.dot(a, b)))))


def _fit(before: np.ndarray, now: np.ndarray, tile_length: float) -> tuple[np.ndarray | None, np.ndarray]:
    """:func:`camera_move` by the centres alone."""
    src = np.asarray(before, np.float64).reshape(-1, 2)
    dst = np.asarray(now, np.float64).reshape(-1, 2)
    none = np.zeros(len(src), bool)
    if len(src) < MIN_PAIRS:
        return None, none
    m, mask = cv2.estimateAffinePartial2D(src, dst, method=cv2.RANSAC,
                                          ransacReprojThreshold=RANSAC_TILES * tile_length, refineIters=10)
    if m is None or mask is None:
        return None, none
    inliers = mask.ravel().astype(bool)
    if inliers.sum() < max(MIN_PAIRS, INLIER_SHARE * len(src)):
        return None, none
    return m, inliers


def shift_at(before: np.ndarray, now: np.ndarray) -> float:
    """How far the tiles a move was fitted to moved themselves: the median distance from ``before`` (N, 2)
    to ``now`` (N, 2), float, in their unit (0.0 for none).

    The fit's turn and scale come from the tiles' spread, one tile or a line of play along one axis 100-280
    mm long, and take their noise with them: on a fixed camera's photos (the demo cut every 3 s, calibrated)
    tiles 0.1-2.3 mm off, mostly under 1 mm, gave scales of 1.004-1.034 and turns up to 1 degree that
    carried the hands (a median 290-520 mm from the line) 2.7-20 mm, beyond ``jitter``: the camera
    "moved" 4 times. Whether the camera moved is told where it was measured."""
    if not len(before):
        return 0.0
    d = np.asarray(now, np.float64).reshape(-1, 2) - np.asarray(before, np.float64).reshape(-1, 2)
    return float(np.median(np.linalg.norm(d, axis=1)))


def tile_move(before: TileGeom, now: TileGeom) -> np.ndarray:
    """The similarity that takes one tile's pose ``before`` to ``now`` (its shift, its turn of less
    than 90 degrees either way, its change of size): (2, 3) float64, as :func:`camera_move`'s."""
    ang = np.radians(turn_deg(before, now))  # a tile's axis has no sign of its own here
    s = now.length / before.length
    turn = s * np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    return np.hstack([turn, (np.asarray(now.center, np.float64) - turn @ before.center)[:, None]])


def agreeing(before: np.ndarray, now: np.ndarray, m: np.ndarray | None, tolerance: float) -> int:
    """How many of the points ``before`` (N, 2), moved by ``m`` (None: left where they are), land within
    ``tolerance`` of one of ``now`` (M, 2): the tiles that agree with a move."""
    if not len(before) or not len(now):
        return 0
    p = np.asarray(before, np.float64).reshape(-1, 2)
    p = p if m is None else moved_points(p, m)
    q = np.asarray(now, np.float64).reshape(-1, 2)
    return int((np.sqrt(((p[:, None, :] - q[None, :, :]) ** 2).sum(axis=2)).min(axis=1) <= tolerance).sum())


def one_tile_move(pairs: list[tuple[TileGeom, TileGeom, int, int]], before: list[tuple[np.ndarray, str]],
                  now: list[tuple[np.ndarray, str]], tolerance: float, share: float) -> tuple[np.ndarray, int] | None:
    """The camera's move while fewer than :data:`MIN_PAIRS` tiles pair up: the move of one paired tile
    (:func:`tile_move`) that the other tiles agree with.

    Args:
        pairs: per paired tile, (its pose before, its pose now, its index in ``before``, in ``now``).
        before, now: every tile of the last photo and of this one: (centre (2,) float, face ``up``/``down``).
        tolerance: how near a moved tile must land to a tile of its face to agree (same unit as the centres).
        share: the share of the other tiles of ``before`` (and at least :data:`MIN_PAIRS`) that must agree.

    Returns:
        ``(move (2, 3) float64, index into pairs)`` of the pair the most other tiles agree with, when they
        reach ``share`` and are no fewer than those that agree with staying put; else None (a bumped
        lead moves alone; the next hand's lead on a cleared table, the same domino as one of the line's,
        does not drag the old line onto it).
    """
    best: tuple[int, int, np.ndarray, int] | None = None  # (agreeing with the move, with staying put, move, k)
    for k, (g_before, g_now, i, j) in enumerate(pairs):
        move = tile_move(g_before, g_now)
        agree = [0, 0]
        for face in ("up", "down"):
            others = np.array([c for n, (c, f) in enumerate(before) if f == face and n != i])
            seen = np.array([c for n, (c, f) in enumerate(now) if f == face and n != j])
            agree[0] += agreeing(others, seen, move, tolerance)
            agree[1] += agreeing(others, seen, None, tolerance)
        if best is None or agree[0] > best[0]:
            best = (agree[0], agree[1], move, k)
    if best is None or best[0] < best[1] or best[0] < max(MIN_PAIRS, share * (len(before) - 1)):
        return None
    return best[2], best[3]


def moved_points(points: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``points`` (K, 2) float moved by the (2, 3) transform ``m``: (K, 2) float64."""
    p = np.asarray(points, np.float64).reshape(-1, 2)
    return p @ m[:, :2].T + m[:, 2]


def moved_geom(g: TileGeom, m: np.ndarray) -> TileGeom:
    """A tile's geometry moved by the similarity ``m`` (its length and width scaled with it)."""
    turn = m[:, :2]
    axis = turn @ g.axis
    scale = float(np.linalg.norm(axis))
    return TileGeom(moved_points(g.center[None], m)[0], axis / scale, g.length * scale, g.width * scale)
