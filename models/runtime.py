"""ONNX runtime wrappers for the shipped models (onnxruntime + numpy + OpenCV only, no torch).

* :class:`TileDetector` runs ``tile_detector.onnx`` (YOLO11n-OBB, classes
  tile_up / tile_down) on one scale-normalised window and returns oriented boxes.
* :class:`PipReader` runs ``pip_reader.onnx`` on rectified halves
  (:func:`vision.crops.rectified_halves`) and returns pip probabilities 0..6.
* :class:`TileVerifier` runs ``tile_verifier.onnx`` on context crops of boxes
  (:func:`vision.crops.context_crop`) and returns probabilities of up / down / none.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.obb import polygon_iou

MODELS_DIR = Path(__file__).resolve().parent
DETECTOR_ONNX = MODELS_DIR / "tile_detector.onnx"
PIPS_ONNX = MODELS_DIR / "pip_reader.onnx"
VERIFIER_ONNX = MODELS_DIR / "tile_verifier.onnx"


def _session(path: Path, threads: int = 0, spin: bool = True):
    """:func:`vision.detector.make_session`; ``threads`` 0 = one per CPU core."""
    from vision.detector import make_session

    return make_session(path, threads or (os.cpu_count() or 1), spin)


@dataclass(frozen=True)
class Detection:
    """One detected tile: ``polygon`` (4, 2) float32 px corners, ``cls`` 0 up / 1 down, ``score`` in [0, 1]."""

    polygon: np.ndarray
    cls: int
    score: float


def rotated_nms(polys: list[np.ndarray], scores: np.ndarray, iou: float) -> list[int]:
    """Greedy NMS on oriented boxes; returns kept indices, best score first."""
    order = list(np.argsort(-scores))
    keep: list[int] = []
    for i in order:
        if all(polygon_iou(polys[i], polys[j]) < iou for j in keep):
            keep.append(int(i))
    return keep


class TileDetector:
    """YOLO11n-OBB tile detector on ``imgsz`` square windows.

    The input window must already be scale-normalised (tile long side about
    28-56 px).  Images of another size are letterboxed to ``imgsz``.
    """

    def __init__(self, path: str | Path = DETECTOR_ONNX, threads: int = 0):
        self.sess = _session(Path(path), threads)
        inp = self.sess.get_inputs()[0]
        self.input_name = inp.name
        self.imgsz = int(inp.shape[2])

    def raw(self, img_bgr: np.ndarray) -> np.ndarray:
        """Raw network output for one (imgsz, imgsz, 3) uint8 BGR window: (1, 4 + nc + 1, anchors) float32."""
        x = cv2.cvtColor(img_bgr, cv2.COLOR_BGR2RGB).astype(np.float32).transpose(2, 0, 1)[None] / 255.0
        return self.sess.run(None, {self.input_name: np.ascontiguousarray(x)})[0]

    def detect(self, img_bgr: np.ndarray, conf: float = 0.25, iou: float = 0.7, max_candidates: int = 3000,
               max_det: int = 300) -> list[Detection]:
        """Detect tiles in a (H, W, 3) uint8 BGR window; polygons are in that window's pixels.

        Post-processing mirrors ultralytics (class-aware fast NMS with probabilistic
        IoU): ``conf`` is the minimum class score, ``iou`` the NMS threshold (0.7 as
        ultralytics predict), ``max_candidates`` the most boxes passed to NMS and
        ``max_det`` the most returned.
        """
        h, w = img_bgr.shape[:2]
        r = self.imgsz / max(h, w)
        if (h, w) != (self.imgsz, self.imgsz):
            canvas = np.full((self.imgsz, self.imgsz, 3), 114, np.uint8)
            nh, nw = int(round(h * r)), int(round(w * r))
            canvas[:nh, :nw] = cv2.resize(img_bgr, (nw, nh), interpolation=cv2.INTER_LINEAR)
        else:
            canvas, r = img_bgr, 1.0
        out = self.raw(canvas)[0]  # (4 + nc + 1, A): cx, cy, w, h, class scores..., angle (rad)
        nc = out.shape[0] - 5
        scores_all = out[4:4 + nc]
        cls = scores_all.argmax(0)
        score = scores_all.max(0)
        sel = np.nonzero(score > conf)[0]
        sel = sel[np.argsort(-score[sel], kind="stable")[:max_candidates]]
        xywhr = np.concatenate([out[:4, sel].T, out[4 + nc, sel][:, None]], axis=1).astype(np.float64)
        keep = probiou_nms(xywhr, score[sel], cls[sel], iou)[:max_det]
        dets = []
        for k in keep:
            cx, cy, bw, bh, ang = xywhr[k]
            poly = cv2.boxPoints(((cx, cy), (bw, bh), float(np.degrees(ang)))).astype(np.float32) / r
            dets.append(Detection(poly, int(cls[sel[k]]), float(score[sel[k]])))
        return dets


def probiou(a: np.ndarray, b: np.ndarray, eps: float = 1e-7) -> np.ndarray:
    """Probabilistic IoU (Gaussian Bhattacharyya, as ultralytics) between (N, 5) and (M, 5) xywhr boxes -> (N, M)."""
    def cov(x):
        aa, bb, c = x[:, 2] ** 2 / 12, x[:, 3] ** 2 / 12, x[:, 4]
        cos, sin = np.cos(c), np.sin(c)
        return aa * cos ** 2 + bb * sin ** 2, aa * sin ** 2 + bb * cos ** 2, (aa - bb) * cos * sin

    x1, y1 = a[:, 0:1], a[:, 1:2]
    x2, y2 = b[None, :, 0], b[None, :, 1]
    a1, b1, c1 = (v[:, None] for v in cov(a))
    a2, b2, c2 = (v[None, :] for v in cov(b))
    den = (a1 + a2) * (b1 + b2) - (c1 + c2) ** 2 + eps
    t1 = ((a1 + a2) * (y1 - y2) ** 2 + (b1 + b2) * (x1 - x2) ** 2) / den * 0.25
    t2 = ((c1 + c2) * (x2 - x1) * (y1 - y2)) / den * 0.5
    t3 = np.log(((a1 + a2) * (b1 + b2) - (c1 + c2) ** 2)
                / (4 * np.sqrt(np.clip(a1 * b1 - c1 ** 2, 0, None) * np.clip(a2 * b2 - c2 ** 2, 0, None)) + eps)
                + eps) * 0.5
    bd = np.clip(t1 + t2 + t3, eps, 100.0)
    return 1 - np.sqrt(1.0 - np.exp(-bd) + eps)


def probiou_nms(xywhr: np.ndarray, scores: np.ndarray, classes: np.ndarray, iou: float, agnostic: bool = False,
                max_wh: float = 7680.0) -> np.ndarray:
    """Class-aware fast NMS with probabilistic IoU, matching ultralytics' OBB post-processing.

    Args:
        xywhr: (N, 5) boxes (centre px, size px, angle rad).
        scores: (N,) scores; classes: (N,) class ids.
        iou: suppression threshold.

    Returns:
        kept indices into the inputs, best score first.
    """
    if len(xywhr) == 0:
        return np.zeros((0,), np.int64)
    order = np.argsort(-scores, kind="stable")
    b = xywhr[order].copy()
    if not agnostic:
        b[:, :2] += classes[order][:, None] * max_wh
    m = np.triu(probiou(b, b), k=1)
    return order[(m > iou).sum(0) <= 0]


class PipReader:
    """Pip classifier for rectified halves (classes 0..6).

    Raises:
        FileNotFoundError: missing model file.
        ValueError: not a loadable model, or not one mapping square halves to 7 classes.
    """

    def __init__(self, path: str | Path = PIPS_ONNX, threads: int = 0):
        self.sess = _session(Path(path), threads, spin=False)
        inp, out = self.sess.get_inputs()[0], self.sess.get_outputs()[0]
        if len(inp.shape) != 4 or not isinstance(inp.shape[2], int) or inp.shape[2] != inp.shape[3] or \
                len(out.shape) != 2 or out.shape[1] != 7:
            raise ValueError(f"{path}: not a pip reader (input {inp.shape}, output {out.shape}; "
                             f"expected (N, 3, S, S) -> (N, 7))")
        self.input_name = inp.name
        self.half_px = int(inp.shape[2])

    def probs(self, halves_bgr: np.ndarray) -> np.ndarray:
        """(N, S, S, 3) uint8 BGR halves -> (N, 7) float32 probabilities (resized to 32 px if needed)."""
        return run_bgr(self.sess, self.input_name, resize_batch(halves_bgr, (self.half_px, self.half_px)))

    def read(self, halves_bgr: np.ndarray) -> np.ndarray:
        """(N, S, S, 3) uint8 halves -> (N,) int64 pip counts."""
        return self.probs(halves_bgr).argmax(1)


def run_bgr(sess, input_name: str, x: np.ndarray) -> np.ndarray:
    """Run a classifier on (N, H, W, 3) uint8 BGR images (NCHW float32 in [0, 1]); its first output."""
    t = x.astype(np.float32).transpose(0, 3, 1, 2) / 255.0
    return sess.run(None, {input_name: np.ascontiguousarray(t)})[0]


def resize_batch(imgs: np.ndarray, hw: tuple[int, int]) -> np.ndarray:
    """(N, h, w, 3) uint8 -> (N, H, W, 3) uint8 with ``hw`` = (H, W), area-resized when the size differs."""
    x = np.asarray(imgs)
    if x.ndim == 3:
        x = x[None]
    if x.shape[1:3] == tuple(hw):
        return x
    if len(x) == 0:
        return np.zeros((0, *hw, x.shape[3]), x.dtype)
    return np.stack([cv2.resize(c, (hw[1], hw[0]), interpolation=cv2.INTER_AREA) for c in x])


class TileVerifier:
    """Is there a tile in this box?  ``tile_verifier.onnx`` on context crops (classes up, down, none).

    Args:
        path: the ONNX file (input (N, 3, H, W) float32 BGR in [0, 1], output (N, 3) probabilities).
        threads: onnxruntime threads (0 = one per core).

    Raises:
        FileNotFoundError: missing model file.
        ValueError: not a loadable model, or not one with 3 output classes.
    """

    CLASSES = ("up", "down", "none")

    def __init__(self, path: str | Path = VERIFIER_ONNX, threads: int = 0):
        self.sess = _session(Path(path), threads, spin=False)
        inp = self.sess.get_inputs()[0]
        self.input_name = inp.name
        #: Network input (height, width), px.
        self.input_hw = (int(inp.shape[2]), int(inp.shape[3]))
        classes = self.sess.get_outputs()[0].shape[-1]
        if len(inp.shape) != 4 or classes != len(self.CLASSES):
            raise ValueError(f"{path}: not a tile verifier (input {inp.shape}, {classes} output classes; "
                             f"expected (N, 3, H, W) -> {len(self.CLASSES)} classes)")

    def probs(self, crops_bgr: np.ndarray) -> np.ndarray:
        """(N, h, w, 3) uint8 BGR context crops (any size, area-resized) -> (N, 3) float32 probabilities.

        Raises:
            ValueError: not uint8 BGR crops.
        """
        x = np.asarray(crops_bgr)
        if x.size == 0:
            return np.zeros((0, len(self.CLASSES)), np.float32)
        if x.dtype != np.uint8 or x.ndim not in (3, 4) or x.shape[-1] != 3:
            raise ValueError(f"expected (N, h, w, 3) uint8 BGR crops, got {x.dtype} {x.shape}")
        return run_bgr(self.sess, self.input_name, resize_batch(x, self.input_hw))

    def p_none(self, crops_bgr: np.ndarray) -> np.ndarray:
        """(N,) float32 probability that a box holds no tile."""
        return self.probs(crops_bgr)[:, self.CLASSES.index("none")]


def window_origins(length: int, win: int, stride: int) -> list[int]:
    """Start offsets of windows of size ``win`` covering ``[0, length)`` with at most ``stride`` between them."""
    if length <= win:
        return [0]
    n = int(np.ceil((length - win) / stride)) + 1
    return [int(round(k * (length - win) / (n - 1))) for k in range(n)]


def detect_frame(det: TileDetector, frame_bgr: np.ndarray, tile_long_px: float, target_px: float = 40.0,
                 conf: float = 0.25, iou: float = 0.45) -> list[Detection]:
    """Detect tiles in a full frame of any size.

    The frame is resized so that a tile's long side becomes ``target_px`` (the
    detector was trained on 28-56 px), cut into overlapping ``det.imgsz``
    windows (overlap = 2 tile lengths, so every tile is whole in some window),
    detections touching an inner window border are dropped, the rest are merged
    with rotated NMS and mapped back.

    Args:
        det: the detector.
        frame_bgr: (H, W, 3) uint8 BGR frame.
        tile_long_px: expected tile long side in this frame, pixels (from calibration).
        target_px: tile long side at the detector input, pixels.
        conf, iou: score threshold and NMS IoU.

    Returns:
        detections with polygons in frame pixels.
    """
    f = target_px / float(tile_long_px)
    H, W = frame_bgr.shape[:2]
    nw, nh = max(1, int(round(W * f))), max(1, int(round(H * f)))
    small = cv2.resize(frame_bgr, (nw, nh), interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)
    s = det.imgsz
    if nw < s or nh < s:
        canvas = np.full((max(nh, s), max(nw, s), 3), 114, np.uint8)
        canvas[:nh, :nw] = small
        small = canvas
    ph, pw = small.shape[:2]
    stride = max(32, int(s - 2 * target_px))
    polys, scores, classes = [], [], []
    margin = 2.0
    for y0 in window_origins(ph, s, stride):
        for x0 in window_origins(pw, s, stride):
            for d in det.detect(small[y0:y0 + s, x0:x0 + s], conf=conf, iou=iou):
                p = d.polygon
                # Drop boxes cut by an inner window border; a neighbouring window sees the whole tile.
                if ((x0 > 0 and p[:, 0].min() < margin) or (y0 > 0 and p[:, 1].min() < margin)
                        or (x0 + s < pw and p[:, 0].max() > s - margin) or (y0 + s < ph and p[:, 1].max() > s - margin)):
                    continue
                polys.append(p + np.array([x0, y0], np.float32))
                scores.append(d.score)
                classes.append(d.cls)
    if not polys:
        return []
    keep = rotated_nms(polys, np.asarray(scores), iou)
    return [Detection((polys[i] / f).astype(np.float32), classes[i], float(scores[i])) for i in keep]
