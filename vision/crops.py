"""Rectified tile crops: the one function both the dataset builder and the runtime use.

Training halves for the pip reader are cut from rendered frames with
:func:`rectified_tile` and :func:`halves`; the live pipeline calls the same
functions on detector polygons, so the reader sees identical geometry.
"""

from __future__ import annotations

import cv2
import numpy as np

__all__ = ["canonical_polygon", "rectified_tile", "halves", "rectified_halves"]


def canonical_polygon(polygon_px: np.ndarray) -> np.ndarray:
    """Rotate the corner order so that edge 0->1 is a long side.

    Args:
        polygon_px: (4, 2) tile corners in pixels, in order around the tile
            (either winding).

    Returns:
        (4, 2) float32 corners; the same points, starting at a corner whose
        next edge is the longer one.  Polygons already canonical are unchanged.
    """
    p = np.asarray(polygon_px, np.float32).reshape(4, 2)
    e01 = float(np.linalg.norm(p[1] - p[0]))
    e12 = float(np.linalg.norm(p[2] - p[1]))
    if e12 > e01 * 1.05:
        p = np.roll(p, -1, axis=0)
    return p


def rectified_tile(frame: np.ndarray, polygon_px: np.ndarray, out_long_px: int = 64) -> np.ndarray:
    """Warp a tile's top face to an upright rectangle.

    Args:
        frame: (H, W, 3) uint8 BGR frame.
        polygon_px: (4, 2) float32 top-face corners in frame pixels.  After
            :func:`canonical_polygon`, corner 0 maps to the top-left and corner 1
            to the top-right of the output (edge 0->1 = long axis).
        out_long_px: output long side in pixels (even).

    Returns:
        (out_long_px // 2, out_long_px, 3) uint8 BGR; the half nearer corner 0
        is the left half.
    """
    L = int(out_long_px) // 2 * 2
    S = L // 2
    p = canonical_polygon(polygon_px).astype(np.float64)
    long_px = float(np.linalg.norm(p[1] - p[0]))
    img = frame
    # Big tiles: pre-shrink a region around the tile with area averaging to avoid aliasing.
    scale = long_px / L
    if scale > 1.5:
        h, w = frame.shape[:2]
        x0, y0 = np.maximum(np.floor(p.min(0)).astype(int) - 2, 0)
        x1, y1 = np.minimum(np.ceil(p.max(0)).astype(int) + 3, [w, h])
        if x1 > x0 and y1 > y0:
            roi = frame[y0:y1, x0:x1]
            f = 1.0 / scale
            nw, nh = max(1, int(round((x1 - x0) * f))), max(1, int(round((y1 - y0) * f)))
            img = cv2.resize(roi, (nw, nh), interpolation=cv2.INTER_AREA)
            fx, fy = nw / (x1 - x0), nh / (y1 - y0)
            p = (p - [x0, y0]) * [fx, fy]
    # Pixel-centre convention: corners are on pixel edges, so shift by half a pixel.
    src = (p - 0.5).astype(np.float32)
    dst = np.array([[0, 0], [L, 0], [L, S], [0, S]], np.float32) - 0.5
    M = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(img, M, (L, S), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def halves(tile: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split a rectified tile (S, 2S, 3) into its two (S, S, 3) halves (left = corner-0 end)."""
    s = tile.shape[0]
    return tile[:, :s].copy(), tile[:, s:2 * s].copy()


def rectified_halves(frame: np.ndarray, polygon_px: np.ndarray, out_long_px: int = 64
                     ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`rectified_tile` followed by :func:`halves`: two (out_long_px//2,)*2 + (3,) uint8 halves."""
    return halves(rectified_tile(frame, polygon_px, out_long_px))
