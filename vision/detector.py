"""The tile detector: ultralytics YOLO-OBB exported to ONNX, run with onnxruntime.

The detector was trained on scale-normalised windows (``datasets/build.py``): the tile
long side is 28-56 px inside a square input of ``size`` px (320 for the shipped model).
A frame of any size is therefore resized so that tiles are about
``target_px`` (default :data:`TARGET_TILE_PX`) long, cut into overlapping ``size`` x ``size`` windows (a
frame smaller than one window is letterboxed), and the boxes are mapped back to frame
pixels and merged with rotated NMS.  The tile size in the frame comes from the caller
(calibration profile or a known camera) or is searched for coarse-to-fine by
:meth:`OBBDetector.detect_auto`.

Input preprocessing matches ultralytics: BGR -> RGB, /255, NCHW float32, padding grey 114.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.obb import PAD_VALUE, decode_obb, letterbox, nms_rotated, polygon_to_xywhr, xywhr_to_polygon

__all__ = ["Detections", "OBBDetector", "TARGET_TILE_PX", "window_origins", "make_session", "suppress_contained",
           "to_input"]

#: Default tile long side in the detector input, px (training range 28-56 px; measured best
#: for the shipped model, docs/recognition.md).
TARGET_TILE_PX = 40.0
#: Overlap of neighbouring windows as a multiple of ``target_px`` (> the longest tile
#: at scale: perspective and size errors ~1.3x).
WINDOW_OVERLAP = 1.6
#: Smallest and largest scale factor applied to the frame.
MIN_SCALE, MAX_SCALE = 1.0 / 64, 3.0
#: Boxes whose long side (detector input px) is outside this range are dropped: far
#: outside the trained 28-56 px they are not tiles at this scale (e.g. a whole tiny
#: frame letterboxed into grey looks like one big tile).
SIZE_RANGE_PX = (14.0, 100.0)


def make_session(path: str | Path, threads: int = 1):
    """An onnxruntime CPU session with ``threads`` intra-op threads (1 inter-op thread).

    Raises:
        FileNotFoundError: the model file is missing.
        ValueError: ``threads < 1``.
    """
    import onnxruntime as ort

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such model file")
    if threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    so = ort.SessionOptions()
    so.intra_op_num_threads = int(threads)
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.log_severity_level = 3
    return ort.InferenceSession(str(p), sess_options=so, providers=["CPUExecutionProvider"])


def to_input(squares: np.ndarray) -> np.ndarray:
    """Network input from uint8 BGR squares, as ultralytics: RGB, /255, NCHW.

    Args:
        squares: (S, S, 3) or (N, S, S, 3) uint8 BGR.

    Returns:
        (1 or N, 3, S, S) float32 C-contiguous, values in [0, 1].
    """
    x = squares[None] if squares.ndim == 3 else squares
    return np.ascontiguousarray(x[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / np.float32(255.0)


@dataclass
class Detections:
    """Tiles found in one frame, in frame pixels (pixel-edge coordinates).

    Attributes:
        polygons: (M, 4, 2) float32 corners, in order around each box.
        scores: (M,) float32 class scores in [0, 1], best first.
        classes: (M,) int64 class indices (0 = tile_up, 1 = tile_down).
        tile_px: the tile long side (frame px) the frame was scaled for, or None.
    """

    polygons: np.ndarray
    scores: np.ndarray
    classes: np.ndarray
    tile_px: float | None = None

    @staticmethod
    def empty(tile_px: float | None = None) -> Detections:
        """No detections."""
        return Detections(np.zeros((0, 4, 2), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64), tile_px)

    def __len__(self) -> int:
        return len(self.scores)

    def long_sides(self) -> np.ndarray:
        """(M,) float32 long side of each polygon, px."""
        p = self.polygons
        e1 = np.linalg.norm(p[:, 1] - p[:, 0], axis=1)
        e2 = np.linalg.norm(p[:, 2] - p[:, 1], axis=1)
        return np.maximum(e1, e2).astype(np.float32)


def window_origins(length: int, size: int, overlap: int = 64) -> list[int]:
    """Start offsets (px) of ``size``-px windows covering ``length`` px with >= ``overlap`` px overlap."""
    if length <= size:
        return [0]
    n = math.ceil((length - overlap) / (size - overlap))
    return [int(round(v)) for v in np.linspace(0, length - size, n)]


def suppress_contained(polys: np.ndarray, order: np.ndarray, max_inside: float = 0.6) -> np.ndarray:
    """Drop boxes lying mostly inside a better one (tiles never overlap).

    A tile cut by a window edge in one window and seen whole in the next gives a part
    box inside the whole one; their IoU can stay under the NMS threshold.

    Args:
        polys: (M, 4, 2) float32 polygons, px.
        order: (K,) indices into ``polys``, best first (the NMS output).
        max_inside: drop a box when more than this fraction of its area is inside a kept one.

    Returns:
        (K',) int64 kept indices, still best first.
    """
    kept: list[int] = []
    ctr = polys.mean(1)
    size = np.linalg.norm(polys[:, 1] - polys[:, 0], axis=1) + np.linalg.norm(polys[:, 2] - polys[:, 1], axis=1)
    for i in order:
        a = abs(cv2.contourArea(polys[i]))
        drop = False
        for j in kept:
            if np.linalg.norm(ctr[i] - ctr[j]) > (size[i] + size[j]) / 2:
                continue
            pi, pj = polys[i], polys[j]
            if cv2.contourArea(pi, oriented=True) < 0:
                pi = pi[::-1].copy()
            if cv2.contourArea(pj, oriented=True) < 0:
                pj = pj[::-1].copy()
            inter, _ = cv2.intersectConvexConvex(pi, pj)
            if a > 0 and inter / a > max_inside:
                drop = True
                break
        if not drop:
            kept.append(int(i))
    return np.asarray(kept, np.int64)


class OBBDetector:
    """ONNX YOLO-OBB tile detector (load once, call per frame).

    Args:
        path: the ``.onnx`` file (static input (1, 3, S, S), output (1, 4 + nc + 1, N)).
        threads: onnxruntime intra-op threads.
        conf_threshold: minimum class score of a detection.
        iou_threshold: rotated-NMS IoU threshold.
        target_px: tile long side in the detector input that frames are scaled to, px.

    Raises:
        FileNotFoundError: missing model file.
        ValueError: the model's input or output shape is not a square-image OBB model.
    """

    def __init__(self, path: str | Path, threads: int = 1, conf_threshold: float = 0.25,
                 iou_threshold: float = 0.5, target_px: float = TARGET_TILE_PX):
        self.path = Path(path)
        self.session = make_session(path, threads)
        inp = self.session.get_inputs()[0]
        out = self.session.get_outputs()[0]
        shape = list(inp.shape)
        if len(shape) != 4 or not all(isinstance(v, int) for v in shape[2:]) or shape[2] != shape[3]:
            raise ValueError(f"{self.path}: expected a static square input (1, 3, S, S), got {shape}")
        self.size = int(shape[2])
        self.input_name = inp.name
        rows = out.shape[1]
        if not isinstance(rows, int) or rows < 6:
            raise ValueError(f"{self.path}: expected an OBB output (1, 4 + nc + 1, N), got {out.shape}")
        self.num_classes = rows - 5
        meta = self.session.get_modelmeta().custom_metadata_map
        if meta.get("end2end", "False") == "True":
            raise ValueError(f"{self.path}: end-to-end (NMS-free) exports are not supported; export with end2end=False")
        self.names = meta.get("names", "")
        self.conf_threshold = conf_threshold
        self.iou_threshold = iou_threshold
        self.target_px = float(target_px)
        #: Overlap of neighbouring windows, detector input px.
        self.overlap_px = int(round(WINDOW_OVERLAP * self.target_px))

    # -- one input square ----------------------------------------------------------------

    def infer(self, square: np.ndarray) -> np.ndarray:
        """Run the network on one (S, S, 3) uint8 BGR input; returns the raw (4 + nc + 1, N) float32 output."""
        if square.shape != (self.size, self.size, 3) or square.dtype != np.uint8:
            raise ValueError(f"expected a ({self.size}, {self.size}, 3) uint8 image, got {square.shape} {square.dtype}")
        return self.session.run(None, {self.input_name: to_input(square)})[0][0]

    def _square_dets(self, square: np.ndarray, size_filter: bool = True
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(polygons (K, 4, 2), scores (K,), classes (K,)) in input px after per-window NMS."""
        d = decode_obb(self.infer(square), self.num_classes, self.conf_threshold)
        if size_filter:
            long_side = np.maximum(d.xywhr[:, 2], d.xywhr[:, 3])
            ok = (long_side >= SIZE_RANGE_PX[0]) & (long_side <= SIZE_RANGE_PX[1])
            d = type(d)(d.xywhr[ok], d.scores[ok], d.classes[ok])
        keep = nms_rotated(d.xywhr, d.scores, self.iou_threshold)
        return xywhr_to_polygon(d.xywhr[keep]).reshape(-1, 4, 2), d.scores[keep], d.classes[keep]

    def detect_letterbox(self, image: np.ndarray) -> Detections:
        """Letterbox a whole (H, W, 3) uint8 BGR image into one input and detect (no windows).

        Tiles are found only when they come out 20-70 px long at that scale.
        """
        sq, box = letterbox(image, self.size)
        polys, scores, classes = self._square_dets(sq, size_filter=False)
        return Detections(box.to_source(polys).reshape(-1, 4, 2), scores, classes)

    # -- a whole frame at a given scale ----------------------------------------------------

    def detect(self, frame: np.ndarray, tile_px: float) -> Detections:
        """Detect tiles in a frame whose tiles are about ``tile_px`` px long.

        Args:
            frame: (H, W, 3) uint8 BGR.
            tile_px: expected tile long side in ``frame`` px (> 0).

        Returns:
            :class:`Detections` in frame px, merged over windows, best first.
        """
        if not tile_px > 0:
            raise ValueError(f"tile_px must be > 0, got {tile_px}")
        H, W = frame.shape[:2]
        s = float(np.clip(self.target_px / tile_px, MIN_SCALE, MAX_SCALE))
        nw, nh = max(1, int(round(W * s))), max(1, int(round(H * s)))
        if (nw, nh) != (W, H):
            small = cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
        else:
            small = frame
        fx, fy = nw / W, nh / H
        S = self.size
        if nw <= S and nh <= S:  # the whole scaled frame fits: letterbox it (pad only)
            sq, box = letterbox(small, S, scale=1.0)
            polys, scores, classes = self._square_dets(sq)
            polys = box.to_source(polys).reshape(-1, 4, 2)
        else:
            all_p, all_s, all_c = [], [], []
            xs, ys = window_origins(nw, S, self.overlap_px), window_origins(nh, S, self.overlap_px)
            for y0 in ys:
                for x0 in xs:
                    win = small[y0:y0 + S, x0:x0 + S]
                    if win.shape[:2] != (S, S):
                        sq = np.full((S, S, 3), PAD_VALUE, np.uint8)
                        sq[:win.shape[0], :win.shape[1]] = win
                    else:
                        sq = np.ascontiguousarray(win)
                    p, sc, c = self._square_dets(sq)
                    if len(sc):
                        # Drop boxes cut by an inner window edge: the neighbour window sees them whole.
                        m = 3.0
                        cut = np.zeros(len(sc), bool)
                        if x0 > 0:
                            cut |= p[:, :, 0].min(1) < m
                        if y0 > 0:
                            cut |= p[:, :, 1].min(1) < m
                        if x0 + S < nw:
                            cut |= p[:, :, 0].max(1) > S - m
                        if y0 + S < nh:
                            cut |= p[:, :, 1].max(1) > S - m
                        all_p.append(p[~cut] + np.array([x0, y0], np.float32))
                        all_s.append(sc[~cut])
                        all_c.append(c[~cut])
            if not all_p:
                return Detections.empty(tile_px)
            polys, scores, classes = np.concatenate(all_p), np.concatenate(all_s), np.concatenate(all_c)
        polys = (polys / np.array([fx, fy], np.float32)).astype(np.float32)
        if len(scores) == 0:
            return Detections.empty(tile_px)
        xywhr = np.stack([polygon_to_xywhr(p) for p in polys])
        keep = nms_rotated(xywhr, scores, self.iou_threshold)
        keep = suppress_contained(polys, keep)
        return Detections(polys[keep], scores[keep], classes[keep], float(tile_px))

    def windows_for(self, frame_shape: tuple[int, ...], tile_px: float) -> int:
        """Number of detector windows :meth:`detect` runs for this frame size and tile size."""
        H, W = frame_shape[:2]
        s = float(np.clip(self.target_px / tile_px, MIN_SCALE, MAX_SCALE))
        ov = self.overlap_px
        return (len(window_origins(max(1, round(W * s)), self.size, ov))
                * len(window_origins(max(1, round(H * s)), self.size, ov)))

    def detect_auto(self, frame: np.ndarray, min_tile_px: float = 24.0, accept_score: float = 0.5,
                    min_support: int = 3, max_windows: int = 24) -> Detections:
        """Detect tiles of unknown size: try tile sizes coarse to fine, keep the best, refine.

        Candidate tile lengths ``T`` start at ``min(H, W) / 2`` and halve down to
        ``min_tile_px``.  The support of a candidate is the number of detections scoring
        >= ``accept_score``.  At coarse scales a group of tiles (a hand of four side by
        side is 2:1 too) can look like one big tile, so a candidate never wins early: the
        search goes on until the support drops below the best one's (the peak is
        passed) or, once the best support is ``min_support`` or more, the next candidate
        would need more than ``max_windows`` detector windows.  The median long side of
        the best candidate's confident detections is the tile size; the frame is
        detected again at that size unless it is within 15 % of ``T`` (at most twice,
        re-estimating each time: sizes are measured best near the target scale).

        Costs a few passes over coarse (cheap) scales before the final one; pass
        ``tile_px`` to :meth:`detect` when the size is known (calibration profile).

        Returns:
            :class:`Detections` (``tile_px`` set to the estimate), empty when nothing is found.
        """
        H, W = frame.shape[:2]
        t = min(H, W) / 2.0
        best: tuple[int, float, float, Detections] | None = None  # support, T, estimate, detections
        while t >= min_tile_px:
            if best is not None and best[0] >= min_support and self.windows_for(frame.shape, t) > max_windows:
                break
            d = self.detect(frame, t)
            good = d.scores >= accept_score
            support = int(good.sum())
            if support and (best is None or support > best[0]):
                best = (support, t, float(np.median(d.long_sides()[good])), d)
            elif best is not None and best[0] >= min_support and support < best[0]:
                break  # past the peak
            t /= 2.0
        if best is None:
            return Detections.empty()
        _, t, est, d = best
        for _ in range(2):  # fixed-point refinement: the size estimate is best near the target scale
            if abs(math.log(est / t)) <= math.log(1.15):
                break
            d, t = self.detect(frame, est), est
            good = d.scores >= accept_score
            if not good.any():
                break
            est = float(np.median(d.long_sides()[good]))
        d.tile_px = t
        return d
