"""A classical tile finder and reader: the baseline a newcomer would write (no learning).

    from bench.baseline import detect_classical
    tiles = detect_classical(frame, tile_px=85.0)   # list of dicts, see below

Pipeline: grey frame -> binary masks of light regions and of dark regions (global Otsu,
and an adaptive threshold over a few tile lengths when the tile size is known), each also
with its Canny edges removed (cuts tiles that touch apart) -> a small opening -> outer contours ->
``cv2.minAreaRect`` kept when it is about 2:1, fills its rectangle and has a tile's size ->
duplicates from the several masks removed -> each rectangle rectified and split into
halves whose pips are counted by :func:`vision.pips_classical.count_tile`.  A tile with no
pips and no divider line across its middle is face down.

Its constants are round first guesses, not fitted to the benchmark data (the Canny cut
was added after seeing touching tiles merge on a few generated frames); it exists so the
benchmark can show what the learned models buy over it.  Touching tiles in a line often stay one long region and
are lost; textured tables give false regions.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.crops import canonical_polygon, rectified_tile
from vision.obb import polygon_iou
from vision.pips_classical import count_tile

__all__ = ["detect_classical"]

#: Accepted long / short side ratio of a tile's rectangle (a domino is 2:1).
ASPECT = (1.6, 2.5)
#: Minimum fraction of its minAreaRect a region must fill.
MIN_FILL = 0.8
#: Accepted long side as a fraction of ``tile_px`` when the tile size is known.
SIZE_TOL = (0.75, 1.35)
#: Rectified tile long side for the pip counter, px (64 px halves = its working size).
CROP_PX = 128
#: Grey-level step across the middle of a tile that marks a divider line (face up).
DIVIDER_STEP = 18.0


def _masks(grey: np.ndarray, tile_px: float | None) -> list[np.ndarray]:
    """Binary (H, W) uint8 masks of candidate tile regions, light-on-dark and dark-on-light."""
    blur = cv2.GaussianBlur(grey, (5, 5), 0)
    _, light = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    out = [light, 255 - light]
    if tile_px:  # a local threshold follows uneven lighting; its window must exceed a tile
        block = int(3 * tile_px) | 1
        ad = cv2.adaptiveThreshold(blur, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -10)
        ad_dark = cv2.adaptiveThreshold(blur, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 10)
        out += [ad, ad_dark]
    k = max(3, int(0.06 * tile_px) | 1) if tile_px else 3
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    # Touching tiles merge into one region; the edges between them cut it apart.
    edges = cv2.dilate(cv2.Canny(blur, 30, 90), np.ones((3, 3), np.uint8))
    out += [m & ~edges for m in out]
    return [cv2.morphologyEx(m, cv2.MORPH_OPEN, disc) for m in out]


def _rectangles(mask: np.ndarray, tile_px: float | None) -> list[tuple[tuple, float]]:
    """Tile-like minAreaRects of a mask's outer contours, with a shape score in (0, 1]."""
    h, w = mask.shape
    if tile_px:
        lo, hi = SIZE_TOL[0] * tile_px, SIZE_TOL[1] * tile_px
    else:
        lo, hi = max(12.0, 0.02 * min(h, w)), 0.6 * min(h, w)
    min_area = 0.5 * (lo * lo / 2)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < min_area:
            continue
        rect = cv2.minAreaRect(c)
        short, long_ = sorted(rect[1])
        if short <= 0 or not lo <= long_ <= hi:
            continue
        aspect, fill = long_ / short, area / (long_ * short)
        if not ASPECT[0] <= aspect <= ASPECT[1] or fill < MIN_FILL:
            continue
        out.append((rect, float(fill * np.exp(-abs(np.log(aspect / 2.0))))))
    return out


def _dedupe(cands: list[tuple[tuple, float]], iou: float = 0.5) -> list[tuple[np.ndarray, float]]:
    """Greedy suppression of overlapping rectangles (the masks find the same tile twice)."""
    keep: list[tuple[np.ndarray, float]] = []
    for rect, score in sorted(cands, key=lambda c: -c[1]):
        poly = canonical_polygon(cv2.boxPoints(rect))
        if all(polygon_iou(poly, k) < iou for k, _ in keep):
            keep.append((poly, score))
    return keep


def _has_divider(tile: np.ndarray) -> bool:
    """True when a (S, 2S, 3) rectified tile has a line across its middle (a face-up tile)."""
    g = cv2.cvtColor(tile, cv2.COLOR_BGR2GRAY).astype(np.float32)
    s = g.shape[0]
    cols = np.median(g[s // 5:-s // 5], axis=0)  # column profile, away from the long edges
    mid = cols[s - s // 16:s + s // 16 + 1]
    face = np.median(cols[s // 4:3 * s // 4])
    return float(np.abs(mid - face).max()) >= DIVIDER_STEP


def detect_classical(frame: np.ndarray, tile_px: float | None = None) -> list[dict]:
    """Find and read domino tiles with thresholds, contours and a blob counter only.

    Args:
        frame: (H, W, 3) uint8 BGR or (H, W) uint8 grey image.
        tile_px: expected tile long side in ``frame`` pixels (e.g. from calibration);
            rectangles outside 0.75-1.35 x this are dropped. None: any size from
            max(12 px, 2 % of the short image side) to 60 % of it.

    Returns:
        one dict per tile, best score first:
        ``polygon`` (4, 2) float32 corners in image pixels, in order around the tile,
        edge 0->1 a long side (:func:`vision.crops.canonical_polygon`);
        ``pips`` ``(a, b)`` ints, ``a`` the half at corners 0/3, or None when face down;
        ``face`` ``"up"`` or ``"down"``; ``score`` float in (0, 1] (how tile-like the
        shape is: rectangle fill x closeness of the aspect to 2:1).

    Raises:
        ValueError: ``frame`` is not a 2-D or 3-channel uint8 array, or ``tile_px`` <= 0.
    """
    frame = np.asarray(frame)
    if frame.dtype != np.uint8 or not (frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] == 3)):
        raise ValueError(f"frame must be (H, W) or (H, W, 3) uint8, got {frame.shape} {frame.dtype}")
    if tile_px is not None and not tile_px > 0:
        raise ValueError(f"tile_px must be > 0, got {tile_px}")
    bgr = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR) if frame.ndim == 2 else frame
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    cands = [r for m in _masks(grey, tile_px) for r in _rectangles(m, tile_px)]
    out = []
    for poly, score in _dedupe(cands):
        tile = rectified_tile(bgr, poly, CROP_PX)
        a, b = count_tile(tile)
        up = a.pips + b.pips > 0 or _has_divider(tile)
        out.append({"polygon": poly, "pips": (a.pips, b.pips) if up else None,
                    "face": "up" if up else "down", "score": score})
    return out
