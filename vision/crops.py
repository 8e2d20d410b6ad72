"""Rectified tile crops: the one function both the dataset builder and the runtime use.

Training halves for the pip reader are cut from rendered frames with
:func:`rectified_tile` and :func:`halves`; the live pipeline calls the same
functions on detector polygons, so the reader sees identical geometry.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.obb import PAD_VALUE

__all__ = ["canonical_polygon", "rectified_tile", "halves", "rectified_halves", "grow_polygon", "context_crop",
           "face_colours_lab", "lab_distance", "divider_contrast"]

#: A context crop shows the box grown by this factor about its centre: a quarter-tile-short-side
#: margin on the long sides, so the verifier sees the tile's edges and what lies around them.
CONTEXT_GROW = 1.25
#: Long side of a context crop, px (the crop is half as high).
CONTEXT_LONG_PX = 80


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


def rectified_tile(frame: np.ndarray, polygon_px: np.ndarray, out_long_px: int = 64,
                   fill: int | None = None) -> np.ndarray:
    """Warp a tile's top face to an upright rectangle.

    Args:
        frame: (H, W, 3) uint8 BGR frame.
        polygon_px: (4, 2) float32 top-face corners in frame pixels.  After
            :func:`canonical_polygon`, corner 0 maps to the top-left and corner 1
            to the top-right of the output (edge 0->1 = long axis).
        out_long_px: output long side in pixels (even).
        fill: grey level of parts outside the frame; None repeats the frame's edge pixels.

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
    border = cv2.BORDER_REPLICATE if fill is None else cv2.BORDER_CONSTANT
    return cv2.warpPerspective(img, M, (L, S), flags=cv2.INTER_LINEAR, borderMode=border,
                               borderValue=(fill or 0,) * 3)


def halves(tile: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split a rectified tile (S, 2S, 3) into its two (S, S, 3) halves (left = corner-0 end)."""
    s = tile.shape[0]
    return tile[:, :s].copy(), tile[:, s:2 * s].copy()


def rectified_halves(frame: np.ndarray, polygon_px: np.ndarray, out_long_px: int = 64
                     ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`rectified_tile` followed by :func:`halves`: two (out_long_px//2,)*2 + (3,) uint8 halves."""
    return halves(rectified_tile(frame, polygon_px, out_long_px))


def grow_polygon(polygon_px: np.ndarray, factor: float) -> np.ndarray:
    """(4, 2) polygon scaled by ``factor`` about its centre (corner order kept), float32."""
    p = np.asarray(polygon_px, np.float32).reshape(4, 2)
    c = p.mean(0)
    return (c + (p - c) * np.float32(factor)).astype(np.float32)


def context_crop(frame: np.ndarray, polygon_px: np.ndarray, grow: float = CONTEXT_GROW,
                 out_long_px: int = CONTEXT_LONG_PX) -> np.ndarray:
    """A detected box and its surroundings, rectified: what the tile verifier reads.

    Args:
        frame: (H, W, 3) uint8 BGR frame.
        polygon_px: (4, 2) box corners in frame pixels (any start corner, either winding).
        grow: the box is scaled by this about its centre first (1.25: the box fills the
            middle 80 % x 80 % of the crop).
        out_long_px: crop long side, px.

    Returns:
        (out_long_px // 2, out_long_px, 3) uint8 BGR, the box's long axis horizontal; parts
        outside the frame are grey :data:`vision.obb.PAD_VALUE` (as the detector's padding), so
        that a tile cut by the frame edge does not look smeared.
    """
    return rectified_tile(frame, grow_polygon(canonical_polygon(polygon_px), grow), out_long_px, fill=PAD_VALUE)


#: The face colour is measured inside the box shrunk by this factor: the rim, a contact shadow and
#: the table at a loose box's edge stay out.
FACE_INNER = 0.7
#: Samples per face (rows x columns of a grid over the inner face): pips are a minority of them.
_FACE_GRID = (6, 12)


def face_samples_lab(frame: np.ndarray, polygons_px: np.ndarray) -> np.ndarray:
    """CIELab samples of a grid over each box's inner face (the box shrunk by :data:`FACE_INNER`).

    All boxes are sampled in one ``cv2.remap``: cheap enough for every read.

    Args:
        frame: (H, W, 3) uint8 BGR frame.
        polygons_px: (N, 4, 2) float top-face corners in frame pixels (pixel-edge convention).

    Returns:
        (N, S, 3) uint8 ``(L, a, b)`` in OpenCV's 8-bit Lab scale (L 0-255 for 0-100; a, b offset
        by 128), S = 72 samples per face.
    """
    p = np.asarray(polygons_px, np.float32).reshape(-1, 4, 2)
    rows, cols = _FACE_GRID
    if len(p) == 0:
        return np.zeros((0, rows * cols, 3), np.uint8)
    v, u = np.meshgrid(0.5 + ((np.arange(rows) + 0.5) / rows - 0.5) * FACE_INNER,
                       0.5 + ((np.arange(cols) + 0.5) / cols - 0.5) * FACE_INNER, indexing="ij")
    w = np.stack([(1 - u) * (1 - v), u * (1 - v), u * v, (1 - u) * v], -1).astype(np.float32)  # bilinear weights
    pts = np.einsum("rck,nkd->nrcd", w, p) - 0.5  # (N, rows, cols, 2), pixel centres
    samples = cv2.remap(frame, np.ascontiguousarray(pts[..., 0].reshape(-1, cols)),
                        np.ascontiguousarray(pts[..., 1].reshape(-1, cols)), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)
    return cv2.cvtColor(samples, cv2.COLOR_BGR2LAB).reshape(len(p), rows * cols, 3)


def face_colours_lab(frame: np.ndarray, polygons_px: np.ndarray) -> np.ndarray:
    """The body colour of tiles' top faces: the per-channel median of :func:`face_samples_lab`.

    Pips and the divider are a minority of a face, so the median is the tile's body colour (ivory,
    white, black), whatever its pips.

    Args:
        frame: (H, W, 3) uint8 BGR frame.
        polygons_px: (N, 4, 2) float top-face corners in frame pixels (pixel-edge convention).

    Returns:
        (N, 3) float64 ``(L, a, b)`` in OpenCV's 8-bit Lab scale (L 0-255 for 0-100; a, b offset by 128).
    """
    lab = face_samples_lab(frame, polygons_px)
    return np.median(lab, axis=1) if len(lab) else np.zeros((0, 3))


def lab_distance(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    """CIE76 colour difference of two :func:`face_colours_lab` colours, with L in 0-100 units."""
    dl = (a[0] - b[0]) * 100.0 / 255.0
    return float(np.sqrt(dl * dl + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2))


def divider_contrast(frame: np.ndarray, polygon_px: np.ndarray) -> float:
    """How plainly a face shows its divider, the line across the middle every tile has, in L* (0-100).

    The face is rectified to 32 x 64 px (:func:`rectified_tile`); each column's median lightness over
    the middle half of the rows (pips are spots, the median passes them over, the divider crosses every
    row) is compared with the median of two bands inside the halves (columns 10-23 and 40-53); the
    contrast is the largest difference in the middle columns 26-37, where a box a few px off still has
    its divider. Measured (2026-12-02): real blank tiles (DDD, DomiBot) 42-84, rendered true 0-0 tiles
    at least 16 (one the frame's edge cut: 1), bare marble boxed at an open end 0.1.

    Args:
        frame: (H, W, 3) uint8 BGR frame.
        polygon_px: (4, 2) float top-face corners in frame pixels.

    Returns:
        the contrast in L* units (0 for a plain face).
    """
    face = rectified_tile(frame, polygon_px, 64)
    lightness = cv2.cvtColor(face, cv2.COLOR_BGR2LAB)[8:24, :, 0].astype(np.float32) * (100.0 / 255.0)
    column = np.median(lightness, axis=0)
    body = np.median(np.r_[column[10:24], column[40:54]])
    return float(np.abs(column[26:38] - body).max())
