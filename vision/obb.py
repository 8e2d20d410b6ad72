"""Oriented-box geometry for the detector: letterbox, ultralytics OBB decoding, rotated NMS, IoU.

Coordinates are continuous pixels with the pixel-edge convention used by the renderer
and :mod:`vision.crops`: pixel ``(i, j)`` covers ``[i, i+1) x [j, j+1)``, so scaling an
image by ``s`` scales every coordinate by exactly ``s``.

The ultralytics OBB ONNX export (``OBB`` head in ``ultralytics/nn/modules/head.py``,
``Detect._inference`` + ``dist2rbox`` in ``ultralytics/utils/tal.py``, no end-to-end
head for YOLO11) returns one float32 tensor of shape ``(1, 4 + nc + 1, N)``: per anchor
``cx, cy, w, h`` in input pixels, ``nc`` sigmoid class scores, then the angle ``theta``
in radians in ``[-pi/4, 3pi/4)``.  Corners follow ``ultralytics.utils.ops.xywhr2xyxyxyxy``:
``w`` runs along ``(cos theta, sin theta)`` and ``h`` along ``(-sin theta, cos theta)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import shapely

__all__ = ["changed_share", "Letterbox", "letterbox", "OBBDecoded", "decode_obb", "xywhr_to_polygon",
           "polygon_to_xywhr", "nms_rotated", "polygon_iou", "PAD_VALUE"]

#: Grey level ultralytics pads letterboxed images with.
PAD_VALUE = 114


@dataclass(frozen=True)
class Letterbox:
    """How an image was placed into a square model input.

    Attributes:
        scale: (sx, sy) input px per source px (equal unless the size was rounded).
        pad: (px, py) offset of the scaled image's top-left corner in the input, px.
        size: side of the square input, px.
    """

    scale: tuple[float, float]
    pad: tuple[float, float]
    size: int

    def to_input(self, pts: np.ndarray) -> np.ndarray:
        """Source px -> model-input px: (..., 2) float -> (..., 2) float32."""
        p = np.asarray(pts, np.float64)
        return (p * self.scale + self.pad).astype(np.float32)

    def to_source(self, pts: np.ndarray) -> np.ndarray:
        """Model-input px -> source px: (..., 2) float -> (..., 2) float32."""
        p = np.asarray(pts, np.float64)
        return ((p - self.pad) / self.scale).astype(np.float32)


def letterbox(img: np.ndarray, size: int, scale: float | None = None, pad_value: int = PAD_VALUE
              ) -> tuple[np.ndarray, Letterbox]:
    """Resize (keeping the aspect ratio) and pad an image into a ``size`` x ``size`` square.

    Same placement as ultralytics ``LetterBox(auto=False, center=True)``: the scaled
    image is centred, padding is ``pad_value`` grey.

    Args:
        img: (H, W, 3) uint8 image (H, W >= 1).
        size: side of the output square, px.
        scale: input px per source px; default fits the whole image
            (``size / max(H, W)``).  The scaled image must fit into ``size``.
        pad_value: grey level of the padding.

    Returns:
        ``(out, box)``: out is (size, size, 3) uint8, ``box`` maps points both ways.

    Raises:
        ValueError: empty image, or a ``scale`` that does not fit.
    """
    h, w = img.shape[:2]
    if h < 1 or w < 1:
        raise ValueError(f"cannot letterbox an empty image of shape {img.shape}")
    r = size / max(h, w) if scale is None else float(scale)
    nw, nh = max(1, int(round(w * r))), max(1, int(round(h * r)))
    if nw > size or nh > size:
        raise ValueError(f"image {w}x{h} px at scale {r:.3f} does not fit into {size} px")
    if (nw, nh) != (w, h):
        interp = cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR
        img = cv2.resize(img, (nw, nh), interpolation=interp)
    left = int(round((size - nw) / 2 - 0.1))
    top = int(round((size - nh) / 2 - 0.1))
    out = np.full((size, size) + img.shape[2:], pad_value, np.uint8)
    out[top:top + nh, left:left + nw] = img
    return out, Letterbox((nw / w, nh / h), (float(left), float(top)), size)


@dataclass(frozen=True)
class OBBDecoded:
    """Candidate boxes above the score threshold, before NMS.

    Attributes:
        xywhr: (M, 5) float32 ``cx, cy, w, h`` (px) and ``theta`` (radians).
        scores: (M,) float32 best class score.
        classes: (M,) int64 class index of the best score.
    """

    xywhr: np.ndarray
    scores: np.ndarray
    classes: np.ndarray


def decode_obb(output: np.ndarray, num_classes: int, conf_threshold: float = 0.25) -> OBBDecoded:
    """Decode a raw ultralytics OBB output tensor.

    Args:
        output: (1, 4 + nc + 1, N) or (4 + nc + 1, N) float array (the ONNX output).
        num_classes: ``nc``.
        conf_threshold: keep anchors whose best class score is at least this.

    Returns:
        :class:`OBBDecoded` with the kept anchors.

    Raises:
        ValueError: the output does not have ``4 + nc + 1`` rows.
    """
    a = np.asarray(output, np.float32)
    if a.ndim == 3:
        if a.shape[0] != 1:
            raise ValueError(f"expected batch 1, got output shape {a.shape}")
        a = a[0]
    rows = 4 + num_classes + 1
    if a.ndim != 2 or a.shape[0] != rows:
        raise ValueError(f"expected an OBB output of shape (1, {rows}, N), got {np.shape(output)}")
    cls = a[4:4 + num_classes]
    best = cls.argmax(0)
    score = cls[best, np.arange(a.shape[1])]
    keep = np.nonzero(score >= conf_threshold)[0]
    xywhr = np.concatenate([a[:4, keep], a[4 + num_classes:, keep]], 0).T
    return OBBDecoded(np.ascontiguousarray(xywhr, np.float32), score[keep].astype(np.float32),
                      best[keep].astype(np.int64))


def xywhr_to_polygon(xywhr: np.ndarray) -> np.ndarray:
    """Rotated boxes to corners, as ``ultralytics.utils.ops.xywhr2xyxyxyxy``.

    Args:
        xywhr: (M, 5) or (5,) float ``cx, cy, w, h, theta`` (px, radians).

    Returns:
        (M, 4, 2) or (4, 2) float32 corners, in order around the box.
    """
    x = np.asarray(xywhr, np.float64)
    single = x.ndim == 1
    x = x.reshape(-1, 5)
    c, s = np.cos(x[:, 4:5]), np.sin(x[:, 4:5])
    v1 = np.concatenate([x[:, 2:3] / 2 * c, x[:, 2:3] / 2 * s], 1)
    v2 = np.concatenate([-x[:, 3:4] / 2 * s, x[:, 3:4] / 2 * c], 1)
    ctr = x[:, :2]
    poly = np.stack([ctr + v1 + v2, ctr + v1 - v2, ctr - v1 - v2, ctr - v1 + v2], 1).astype(np.float32)
    return poly[0] if single else poly


def polygon_to_xywhr(polygon: np.ndarray) -> np.ndarray:
    """Inverse of :func:`xywhr_to_polygon` for a rectangle: (4, 2) -> (5,) float32.

    ``w`` is the length of edge 3->0 (= 2->1), ``h`` of edge 1->0 (= 2->3) and
    ``theta`` the direction of 3->0 (radians, in (-pi, pi]).
    """
    p = np.asarray(polygon, np.float64).reshape(4, 2)
    ctr = p.mean(0)
    e_w = ((p[0] - p[3]) + (p[1] - p[2])) / 2  # along +v1
    e_h = ((p[0] - p[1]) + (p[3] - p[2])) / 2  # along +v2
    return np.array([ctr[0], ctr[1], np.linalg.norm(e_w), np.linalg.norm(e_h),
                     np.arctan2(e_w[1], e_w[0])], np.float32)


def nms_rotated(xywhr: np.ndarray, scores: np.ndarray, iou_threshold: float = 0.5) -> np.ndarray:
    """Class-agnostic rotated non-maximum suppression (``cv2.dnn.NMSBoxesRotated``).

    Args:
        xywhr: (M, 5) float boxes (px, radians).
        scores: (M,) float scores.
        iou_threshold: suppress boxes overlapping a better one by more than this IoU.

    Returns:
        (K,) int64 indices of the kept boxes, best score first.
    """
    if len(scores) == 0:
        return np.zeros((0,), np.int64)
    rects = [((float(b[0]), float(b[1])), (float(max(b[2], 1e-3)), float(max(b[3], 1e-3))),
              float(np.degrees(b[4]))) for b in np.asarray(xywhr)]
    idx = cv2.dnn.NMSBoxesRotated(rects, [float(s) for s in scores], 0.0, float(iou_threshold))
    idx = np.asarray(idx, np.int64).reshape(-1)
    return idx[np.argsort(-np.asarray(scores)[idx], kind="stable")]


def _convex(p: np.ndarray) -> shapely.Polygon | None:
    """Shapely polygon of the convex hull of (N, 2) points; None when its area is 0."""
    q = np.asarray(p, np.float64).reshape(-1, 2)
    if len(q) < 3:
        return None
    g = shapely.convex_hull(shapely.multipoints(q))
    return g if isinstance(g, shapely.Polygon) and g.area > 0 else None


def convex_overlap(a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray]:
    """Intersection of two convex polygons: (area in px^2, (M, 2) float32 outline).

    Either polygon is an (N, 2) array of corners in either winding; a degenerate one (area 0)
    or no overlap gives ``(0.0, (0, 2) array)``. GEOS (shapely) computes it:
    ``cv2.intersectConvexConvex`` (OpenCV 5.0) returns wrong areas when edges are collinear or
    nearly so (opencv/opencv#22812), which is exactly the case of a tile and its box both cut by
    the frame's edge, a part box inside a whole one, or two near-identical boxes.
    """
    pa, pb = _convex(a), _convex(b)
    if pa is None or pb is None:
        return 0.0, np.zeros((0, 2), np.float32)
    inter = pa.intersection(pb)
    if not isinstance(inter, shapely.Polygon) or inter.area <= 0:
        return 0.0, np.zeros((0, 2), np.float32)
    return float(inter.area), np.asarray(inter.exterior.coords[:-1], np.float32)


def pair_overlaps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Intersection areas of K pairs of convex polygons at once, as :func:`convex_overlap`.

    Args:
        a, b: (K, N, 2) corners, px (each polygon in either winding).

    Returns:
        (K,) float64 areas, px^2 (0 for a degenerate polygon or no overlap).
    """
    if len(a) == 0:
        return np.zeros(0, np.float64)
    ga = shapely.convex_hull(shapely.polygons(np.asarray(a, np.float64)))
    gb = shapely.convex_hull(shapely.polygons(np.asarray(b, np.float64)))
    return shapely.area(shapely.intersection(ga, gb)).astype(np.float64)


def _areas(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """(area a, area b, intersection) of two convex polygons, px^2 (0s when either is degenerate)."""
    pa, pb = _convex(a), _convex(b)
    if pa is None or pb is None:
        return (pa.area if pa else 0.0), (pb.area if pb else 0.0), 0.0
    return pa.area, pb.area, float(pa.intersection(pb).area)


def polygon_iou(a: np.ndarray, b: np.ndarray) -> float:
    """IoU of two convex (4, 2) polygons (px); 0 when either is degenerate."""
    aa, ab, inter = _areas(a, b)
    return inter / (aa + ab - inter) if inter > 0 else 0.0


def covered_fraction(a: np.ndarray, region: np.ndarray) -> float:
    """Fraction of convex polygon ``a``'s area inside convex polygon ``region`` (both (4, 2) px);
    0 when either is degenerate.  COCO's overlap with a crowd / ignore region: the detection's
    own area is the denominator, so a box around the visible part of a tile counts as on it."""
    aa, _, inter = _areas(a, region)
    return inter / aa if inter > 0 else 0.0


#: Sample points across a box: 5 along the long axis x 3 across (bilinear in its corners).
_U, _V = (g.ravel() for g in np.meshgrid(np.linspace(0.1, 0.9, 5), np.linspace(0.17, 0.83, 3)))


def changed_share(poly: np.ndarray, mask: np.ndarray) -> float:
    """Share of 15 points spread over the quadrilateral ``poly`` ((4, 2) px, corners in order)
    where ``mask`` ((H, W) bool) is True; points outside the frame count as unchanged."""
    p = np.asarray(poly, np.float64)
    pts = ((1 - _U)[:, None] * ((1 - _V)[:, None] * p[0] + _V[:, None] * p[3])
           + _U[:, None] * ((1 - _V)[:, None] * p[1] + _V[:, None] * p[2]))
    x, y = np.round(pts[:, 0]).astype(int), np.round(pts[:, 1]).astype(int)
    ok = (x >= 0) & (y >= 0) & (x < mask.shape[1]) & (y < mask.shape[0])
    return float(mask[y[ok], x[ok]].sum()) / len(pts)
