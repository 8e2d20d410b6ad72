"""Generated frames for the speed benchmarks (``bench/sec_speed.py``, ``bench/sec_scaling.py``).

Two kinds of frame, both rendered with :mod:`datasets.render.scene` and deterministic in
their seed:

* :func:`bench_frame`: a sampled scene (line of play, hands, boneyard, arms, photometric
  effects) picked for about ``n_target`` fully visible tiles: what a live frame looks like.
* :func:`table_frame`: one fixed table whose tile count and frame size are set exactly,
  so that a sweep changes one thing at a time: the ``n``-tile table is the first ``n``
  placements of one ordered list (line of play first, then hands, a boneyard, strays), and
  a bigger frame is the same table seen at a proportionally larger scale.
"""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np

from datasets.render import layouts as Ly
from datasets.render import scene as SC
from datasets.render import tiles as T
from datasets.render.camera import Camera
from datasets.render.effects import EffectParams

#: A label counts as a tile on the table when at least this fraction of it is visible
#: (the threshold of :func:`vision.evaluate.match_scene`).
MIN_VISIBLE = 0.9
#: Tiles of one double-six set.
SET_SIZE = 28
#: Most tiles :func:`table_spec` lays out (two double-six sets).
MAX_TILES = 2 * SET_SIZE


def visible_count(labels: list[dict], min_visible: float = MIN_VISIBLE) -> int:
    """Number of labels (``render_scene`` dicts) at least ``min_visible`` visible."""
    return sum(1 for l in labels if l["visible"] >= min_visible)


def bench_frame(n_target: int = 30, tile_px: float = 85.0, seed: int = 7, size: tuple[int, int] = (1920, 1080),
                tol: int = 4, tries: int = 200) -> tuple[np.ndarray, list[dict], int]:
    """The first sampled ``val`` scene (seeds ``[seed, i]``) with ``n_target`` +- ``tol`` visible tiles.

    Only scenes whose placement count is already within ``tol`` are rendered (rendering is
    the slow part); when none of ``tries`` scenes is within ``tol`` once rendered, the
    closest rendered one is returned.

    Args:
        n_target: wanted number of tiles at least :data:`MIN_VISIBLE` visible.
        tile_px: tile long side in the frame, px (before perspective).
        seed: first seed of every scene tried.
        size: frame (width, height), px.
        tol: accepted difference from ``n_target``, tiles.
        tries: scenes sampled at most.

    Returns:
        ``(frame (H, W, 3) uint8 BGR, labels, i)`` where ``i`` is the scene index.

    Raises:
        RuntimeError: no sampled scene had a placement count within ``tol``.
    """
    w, h = size
    best = None
    for i in range(tries):
        rng = np.random.default_rng([seed, i])
        spec = SC.sample_scene(rng, "val", w, h, (tile_px, tile_px))
        if abs(len(spec.placements) - n_target) > tol:
            continue
        frame, labels = SC.render_scene(spec)
        vis = visible_count(labels)
        if abs(vis - n_target) <= tol:
            return frame, labels, i
        if best is None or abs(vis - n_target) < abs(best[2] - n_target):
            best = (frame, labels, vis, i)
    if best is None:
        raise RuntimeError(f"no scene of {tries} with {n_target} +- {tol} tiles at {tile_px} px in {w}x{h}")
    return best[0], best[1], best[3]


def _inner_box(cam: Camera, margin_mm: float) -> tuple[float, float, float, float]:
    """The largest axis-aligned table rectangle (mm) inside the frame footprint, less ``margin_mm``.

    Valid for an unrolled camera: footprint corners come in frame order TL, TR, BR, BL.
    """
    fp = cam.footprint_mm()
    x0, x1 = max(fp[0, 0], fp[3, 0]), min(fp[1, 0], fp[2, 0])
    y0, y1 = max(fp[0, 1], fp[1, 1]), min(fp[2, 1], fp[3, 1])
    return float(x0 + margin_mm), float(y0 + margin_mm), float(x1 - margin_mm), float(y1 - margin_mm)


def table_spec(n_tiles: int, size: tuple[int, int] = (1920, 1080), tile_px: float = 80.0,
               ref_width: int = 1920, seed: int = 0) -> SC.SceneSpec:
    """A fixed table with exactly ``n_tiles`` tiles, all inside the frame and unoccluded.

    The table (surface, tile style, layout, lighting) depends on ``seed`` only; ``size``
    only changes the scale: tiles are ``tile_px * width / ref_width`` px long, so every
    frame size shows the same table area. Pips are dealt from ``ceil(n_tiles / 28)``
    shuffled double-six sets, so the table is legal for a recognizer with that many sets.
    The camera is slightly tilted, unrolled and distortion-free so that every tile is fully
    in view.

    Args:
        n_tiles: 0 .. :data:`MAX_TILES` tiles on the table.
        size: frame (width, height), px.
        tile_px: tile long side at ``ref_width``, px.
        ref_width: frame width at which tiles are ``tile_px`` long, px.
        seed: the table.

    Raises:
        ValueError: ``n_tiles`` out of range.
        RuntimeError: the layout could not fit :data:`MAX_TILES` tiles (frame aspect too narrow).
    """
    if not 0 <= n_tiles <= MAX_TILES:
        raise ValueError(f"n_tiles must be in 0..{MAX_TILES}, got {n_tiles}")
    w, h = size
    rng = np.random.default_rng([seed, 2024])
    cam = Camera(w=w, h=h, px_per_mm=tile_px * w / ref_width / T.TILE_LONG_MM, height_mm=1000.0,
                 target_mm=(0.0, 0.0), tilt_deg=6.0, tilt_dir_deg=30.0)
    # The layout is computed at the reference scale so that it is identical for every size.
    ref = dataclasses.replace(cam, w=ref_width, h=round(h * ref_width / w), px_per_mm=tile_px / T.TILE_LONG_MM)
    box = _inner_box(ref, margin_mm=20.0)
    board = Ly._Board(*box)  # the layouts' own non-overlap bookkeeping
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    Ly.line_of_play(board, rng, (cx, cy), 3.0, 12)
    Ly.line_of_play(board, rng, (cx - 0.5, cy), 183.0, 8)
    Ly.hand(board, rng, 2, 7, face_up=False)
    Ly.hand(board, rng, 0, 7, face_up=True)
    Ly.boneyard(board, rng, (box[0] + 0.2 * (box[2] - box[0]), box[1] + 0.3 * (box[3] - box[1])), 10)
    for _ in range(20):  # strays until two sets' worth (each call may place fewer than asked)
        if len(board.placed) >= MAX_TILES:
            break
        Ly.scattered(board, rng, MAX_TILES - len(board.placed), 0.6)
    if len(board.placed) < MAX_TILES:
        raise RuntimeError(f"only {len(board.placed)} of {MAX_TILES} tiles fit on a {w}x{h} table")
    deal = [(a, b) for a in range(7) for b in range(a, 7)] * math.ceil(max(n_tiles, 1) / SET_SIZE)
    order = rng.permutation(len(deal))
    placements = [dataclasses.replace(p, a=deal[k][0], b=deal[k][1])
                  for p, k in zip(board.placed[:n_tiles], order)]
    effects = EffectParams(gain=1.0, gradient=(0.6, 0.2, 0.15), temperature=0.05, glare=0, blur_sigma=0.6,
                           motion_px=0.0, noise_sigma=3.0, jpeg_quality=85, seed=int(rng.integers(2**31 - 1)))
    return SC.SceneSpec(camera=cam, surface="wood", style=T.make_style("ivory", rng), placements=placements,
                        effects=effects, seed=int(rng.integers(2**31 - 1)))


def table_frame(n_tiles: int, size: tuple[int, int] = (1920, 1080), tile_px: float = 80.0,
                ref_width: int = 1920, seed: int = 0) -> tuple[np.ndarray, list[dict]]:
    """Render :func:`table_spec`: ``(frame (H, W, 3) uint8 BGR, labels)`` (see ``render_scene``)."""
    return SC.render_scene(table_spec(n_tiles, size, tile_px, ref_width, seed))


def median_tile_px(labels: list[dict]) -> float:
    """Median long side (px) of the tiles at least :data:`MIN_VISIBLE` visible: the "known" scale.

    Raises:
        ValueError: no such tile.
    """
    sides = [l["long_px"] for l in labels if l["visible"] >= MIN_VISIBLE]
    if not sides:
        raise ValueError("no visible tile to take the scale from")
    return float(np.median(sides))


def detector_window(frame: np.ndarray, labels: list[dict], tile_px: float, size: int = 320,
                    target_px: float = 40.0, overlap_px: int = 64) -> tuple[np.ndarray, int]:
    """The detector input window with the most tiles, cut as ``OBBDetector.detect`` cuts them.

    The frame is scaled so tiles are ``target_px`` long, then the ``size``-px window
    (of those ``detect`` would run, see ``vision.detector.window_origins``) holding the
    most visible tile centres is returned; a scaled frame smaller than one window is
    padded at the bottom and right with grey 114, as ``detect`` does.

    Args:
        frame: (H, W, 3) uint8 BGR.
        labels: the frame's labels (``polygon`` (4, 2) px, ``visible``).
        tile_px: tile long side in ``frame``, px (> 0).
        size: detector input side, px.
        target_px: tile long side in the detector input, px.
        overlap_px: window overlap, px (``OBBDetector.overlap_px``).

    Returns:
        ``(window (size, size, 3) uint8 BGR, number of visible tile centres inside it)``.
    """
    from vision.detector import window_origins
    from vision.obb import PAD_VALUE

    H, W = frame.shape[:2]
    s = target_px / tile_px
    nw, nh = max(1, round(W * s)), max(1, round(H * s))
    small = cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    centres = np.array([np.asarray(l["polygon"]).mean(0) for l in labels if l["visible"] >= MIN_VISIBLE])
    centres = centres.reshape(-1, 2) * [nw / W, nh / H]
    best = (-1, 0, 0)
    for y0 in window_origins(nh, size, overlap_px):
        for x0 in window_origins(nw, size, overlap_px):
            inside = ((centres[:, 0] >= x0) & (centres[:, 0] < x0 + size)
                      & (centres[:, 1] >= y0) & (centres[:, 1] < y0 + size))
            if int(inside.sum()) > best[0]:
                best = (int(inside.sum()), x0, y0)
    n, x0, y0 = best
    win = np.full((size, size, 3), PAD_VALUE, np.uint8)
    crop = small[y0:y0 + size, x0:x0 + size]
    win[:crop.shape[0], :crop.shape[1]] = crop
    return win, n
