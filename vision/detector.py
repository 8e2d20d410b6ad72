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

import ast
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.obb import (PAD_VALUE, decode_obb, letterbox, nms_rotated, pair_overlaps, polygon_to_xywhr,
                       xywhr_to_polygon)

__all__ = ["Detections", "OBBDetector", "TARGET_TILE_PX", "ACCEPT_SCORE", "MIN_SUPPORT",
           "window_origins", "make_session", "file_sha1", "derived_from",
           "suppress_contained",
           "to_input", "downscale", "MAX_INPUT_PX"]

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
#: The tile-size search (:meth:`OBBDetector.detect_auto`) tries at least this many sizes.
MIN_CANDIDATES = 4
#: The size search counts a box towards a tile size's support from this score
#: (:meth:`Detections.confident`) ...
ACCEPT_SCORE = 0.5
#: ... and trusts a size once this many boxes support it.
MIN_SUPPORT = 3
#: Long / short side of a box the size search counts as a tile (a double-six tile is 2:1;
#: perspective and box noise stay within this).  At half the true size the detector boxes
#: each tile *half* as a tile, squarish (DomiBot close-ups: 21 x 24 px boxes at 25 px, two
#: per tile, out-voting the one right box at 50 px).
TILE_ASPECT = (1.5, 2.7)
#: Longest side of one input of a dynamic-shape detector, px: a scaled frame longer than
#: this is cut into overlapping windows of at most this side (bounds memory; a 1080p frame
#: with tiles scaled to 40 px is about 980 x 550 px, one input).
MAX_INPUT_PX = 1280


#: :func:`suppress_contained`: a box scoring this or more is sure, and a weaker box with more
#: than :data:`MAX_INSIDE_SURE_BOX` of its area inside it is dropped.  Tiles never overlap:
#: on rendered frames (val 60, held-out 120) the true tiles' boxes have at most 0.15 of their
#: area inside a sure box, the weak boxes straddling two tiles 0.40-0.52.
SURE_BOX_SCORE = 0.9
#: Most boxes of a frame the merge (rotated NMS) looks at, best first, and most it returns: a table holds at
#: most a few sets (two double-twelves: 182 tiles); a photo of a dotted surface gave 35 000 boxes, and the
#: overlap test of every pair asked for 9 GiB (as ultralytics' ``max_nms`` and ``max_det``).
MAX_NMS_BOXES = 5000
MAX_DETECTIONS = 500
MAX_INSIDE_SURE_BOX = 0.3

#: :func:`downscale` may enlarge by up to this factor after its integer step (a tile ~3 %
#: softer than a plain area resize would give) to use OpenCV's fast integer area path.
MAX_UPSCALE = 1.06


def _resize(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``cv2.resize`` to ``size`` (w, h): area averaging to shrink, bilinear to enlarge; no copy when equal."""
    h, w = img.shape[:2]
    if (w, h) == tuple(size):
        return img
    return cv2.resize(img, size, interpolation=cv2.INTER_AREA if size[0] * size[1] < w * h else cv2.INTER_LINEAR)


def downscale(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Resize an image to ``size`` = (w, h) px like an area resize, but fast.

    OpenCV's area resize is ~20x slower at a non-integer factor (1920x1080 -> 992x544:
    12-55 ms on this 2-core machine under load, ~2 ms this way) than at an integer one.  So the image is first shrunk by the
    largest integer factor ``k`` that divides both sides and leaves it at most
    :data:`MAX_UPSCALE` smaller than ``size`` (area averaging of k x k blocks, exact), then
    resized the rest of the way (area to shrink, bilinear to enlarge).  Without such a
    ``k`` (e.g. a factor between 1/2 and 1/1.06) it is a plain area resize.

    Args:
        img: (H, W, C) or (H, W) uint8.
        size: output (width, height), px.

    Returns:
        (h, w[, C]) uint8; ``img`` itself when the size is unchanged.
    """
    h, w = img.shape[:2]
    nw, nh = size
    k = int(min(w / nw, h / nh) * MAX_UPSCALE)
    while k >= 2 and (w % k or h % k):
        k -= 1
    if k >= 2:
        img = cv2.resize(img, (w // k, h // k), interpolation=cv2.INTER_AREA)
    return _resize(img, (nw, nh))


def _meta_imgsz(meta: dict) -> int:
    """Training input side from ultralytics export metadata (``imgsz`` "[320, 320]"), default 320."""
    try:
        v = ast.literal_eval(meta.get("imgsz", "320"))
        return int(max(v) if isinstance(v, (list, tuple)) else v)
    except (ValueError, SyntaxError, TypeError):
        return 320


def file_sha1(path: str | Path) -> str:
    """SHA-1 (hex) of a file's bytes: how a derived model file names the model it was made from."""
    import hashlib

    return hashlib.sha1(Path(path).read_bytes()).hexdigest()


def derived_from(session, source: str | Path) -> bool:
    """Whether a loaded model was made from ``source`` as it is now.

    ``session``: an onnxruntime session of a derived file (the int8 detector,
    ``models/quantize.py``; the dynamic-size export, ``models/export_dynamic.py``), whose
    ``source_sha1`` metadata names its source. False when ``source`` is missing or changed
    (a retraining): the derived file is stale.
    """
    src = session.get_modelmeta().custom_metadata_map.get("source_sha1")
    return src is not None and Path(source).is_file() and src == file_sha1(source)


def make_session(path: str | Path, threads: int = 1, spin: bool = True):
    """An onnxruntime CPU session with ``threads`` intra-op threads (1 inter-op thread).

    ``spin=False`` lets idle threads sleep at once: a small model run between runs of a big
    one (the pip reader after the detector, every frame) must not spin, or its threads take
    the cores from the detector's next run (1080p frame: 137-156 -> 94-104 ms median,
    docs/recognition.md).

    Raises:
        FileNotFoundError: the model file is missing.
        ValueError: ``threads < 1``; the file is not a model onnxruntime can load (empty,
            truncated, not ONNX).
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
    if not spin:
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(p), sess_options=so, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own RuntimeError subclasses
        first = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        raise ValueError(f"{p}: not a model onnxruntime can load ({first.strip()})") from None


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

    def _sides(self) -> tuple[np.ndarray, np.ndarray]:
        """(M,) long and (M,) short side of each polygon, px."""
        p = self.polygons
        e1 = np.linalg.norm(p[:, 1] - p[:, 0], axis=1)
        e2 = np.linalg.norm(p[:, 2] - p[:, 1], axis=1)
        return np.maximum(e1, e2), np.minimum(e1, e2)

    def long_sides(self) -> np.ndarray:
        """(M,) float32 long side of each polygon, px."""
        return self._sides()[0].astype(np.float32)

    def aspects(self) -> np.ndarray:
        """(M,) float32 long side / short side of each polygon (inf for a degenerate one)."""
        long, short = self._sides()
        with np.errstate(divide="ignore"):
            return (long / short).astype(np.float32)

    def tile_shaped(self) -> np.ndarray:
        """(M,) bool: the box's aspect is within :data:`TILE_ASPECT`."""
        a = self.aspects()
        return (a >= TILE_ASPECT[0]) & (a <= TILE_ASPECT[1])

    def confident(self, accept_score: float) -> np.ndarray:
        """(M,) bool: boxes the size search counts, scoring >= ``accept_score`` and tile-shaped."""
        return (self.scores >= accept_score) & self.tile_shaped()

    def without_straddling(self) -> Detections:
        """These detections less the weak boxes lying partly inside a sure one
        (:func:`suppress_contained` with the scores), order kept.

        For the frame's final detections at its tile size, not inside the size search: at
        half the true size a tile's half is boxed as a sure "tile" and the weak box of the
        whole tile around it would go.
        """
        keep = suppress_contained(self.polygons, np.arange(len(self)), scores=self.scores)
        return Detections(self.polygons[keep], self.scores[keep], self.classes[keep], self.tile_px)


def window_origins(length: int, size: int, overlap: int = 64) -> list[int]:
    """Start offsets (px) of ``size``-px windows covering ``length`` px with >= ``overlap`` px overlap."""
    if length <= size:
        return [0]
    n = math.ceil((length - overlap) / (size - overlap))
    return [int(round(v)) for v in np.linspace(0, length - size, n)]


#: A coarser candidate at least this many times a finer one's size may hold its boxes as parts.
PARTS_RATIO = 1.6
#: A finer candidate is parts of a coarser one's tiles when at least this fraction of its
#: confident boxes has its centre inside a confident box of the coarser one.
PARTS_INSIDE = 0.6


def parts_of(fine: Detections, coarse: Detections, accept_score: float = 0.5) -> bool:
    """Whether ``fine``'s confident boxes are parts of ``coarse``'s confident tiles.

    At a fraction of the true size the detector boxes parts of a tile as tiles: each half
    at half the size (DomiBot close-ups; a crowded rendered table: 69 boxes at T = 45 px
    against 34 real tiles at 90 px), pips and the plain face as "face-down tiles" far below
    it (a close-up upscaled to 1000 px: 4 confident ~26 px boxes at T = 31 px inside the
    one ~350 px tile, against its 1 box at T = 500 px), out-voting the right size.  They are told by where they lie: at least
    :data:`PARTS_INSIDE` of the fine boxes scoring >= ``accept_score`` have their centre
    inside a coarse one, two or
    more per coarse box on average (>= 1.5 over the coarse boxes holding any).  Real tiles
    under a few coarse false boxes (a group of tiles boxed as one) fail the first test.

    Args:
        fine, coarse: detections of one frame at two candidate sizes, frame px.
        accept_score: the confidence a box needs to count.
    """
    # Any shape counts here: squarish half boxes lie inside the tiles too (held-out DomiBot: one
    # tile fewer when only tile-shaped boxes count).
    f = fine.polygons[fine.scores >= accept_score]
    c = coarse.polygons[coarse.scores >= accept_score]
    if len(f) == 0 or len(c) == 0:
        return False
    holder = np.full(len(f), -1)
    for k, ctr in enumerate(f.mean(1)):
        for j, poly in enumerate(c):
            if cv2.pointPolygonTest(poly.astype(np.float32), (float(ctr[0]), float(ctr[1])), False) >= 0:
                holder[k] = j
                break
    inside = holder >= 0
    if inside.sum() < PARTS_INSIDE * len(f):
        return False
    return inside.sum() >= 1.5 * len(np.unique(holder[inside]))


#: Score a box needs to count in the size search's second pass, when no size had a box
#: scoring ``accept_score`` (the recognizer's ``read_threshold``).
WEAK_ACCEPT = 0.2
#: A face-up box at least this sure, at a coarser size, outranks a candidate of face-down boxes only.
FACE_OVER_BACKS = 0.8


def only_backs_below_a_face(fine: Detections, coarse: Detections, accept_score: float = 0.5) -> bool:
    """Whether ``fine``'s counted boxes are all face down while ``coarse`` has a face-up box
    scoring >= :data:`FACE_OVER_BACKS`.

    Far below the true size a smooth or blurred surface is boxed as plain "face-down tiles"
    (a close-up blown up to 800 px on dark cloth: 91 of them at T = 25 px, scoring up to 0.94,
    against its one tile read face up at 0.86-0.92 at 400-566 px).  Face-down look-alikes
    need no pips; a face-up box needs them, so the sure face-up box at the coarser size wins.
    """
    conf = fine.confident(accept_score)
    if not conf.any() or (fine.classes[conf] == 0).any():
        return False
    return bool(((coarse.classes == 0) & (coarse.scores >= FACE_OVER_BACKS) & coarse.tile_shaped()).any())


def suppress_contained(polys: np.ndarray, order: np.ndarray, max_inside: float = 0.6,
                       scores: np.ndarray | None = None, sure_score: float = SURE_BOX_SCORE,
                       max_inside_sure: float = MAX_INSIDE_SURE_BOX) -> np.ndarray:
    """Drop boxes lying mostly inside a better one (tiles lie flat and never overlap).

    A tile cut by a window edge in one window and seen whole in the next gives a part
    box inside the whole one; their IoU can stay under the NMS threshold.  With ``scores``,
    a box scoring below ``sure_score`` goes already when ``max_inside_sure`` of it lies
    inside a kept box scoring ``sure_score`` or more: a weak box straddling two touching
    tiles (one half of each, about half of it inside the sure tile's box) reads a tile
    that is not there, and its IoU with either tile stays under the NMS threshold.

    Args:
        polys: (M, 4, 2) float32 polygons, px.
        order: (K,) indices into ``polys``, best first (the NMS output).
        max_inside: drop a box when more than this fraction of its area is inside a kept one.
        scores: (M,) float32 detector scores, or None (no sure-box rule).
        sure_score: score from which a kept box is sure.
        max_inside_sure: drop a box scoring below ``sure_score`` when more than this fraction
            of its area is inside a kept sure box.

    Returns:
        (K',) int64 kept indices, still best first.
    """
    kept: list[int] = []
    order = [int(i) for i in order]
    sub = polys[order]  # only the boxes ranked: pairs of every box would be (M, M)
    ctr = sub.mean(1)
    size = np.linalg.norm(sub[:, 1] - sub[:, 0], axis=1) + np.linalg.norm(sub[:, 2] - sub[:, 1], axis=1)
    sure = (np.zeros(len(polys), bool) if scores is None else np.asarray(scores) >= sure_score)
    # Overlaps of every pair close enough to touch, in one vectorised call.
    close = np.linalg.norm(ctr[:, None] - ctr[None], axis=2) <= (size[:, None] + size[None]) / 2
    near = [(i, order[m]) for n, i in enumerate(order) for m in range(n) if close[n, m]]
    inter = dict(zip(near, pair_overlaps(polys[[i for i, _ in near]], polys[[j for _, j in near]]))) if near else {}
    for i in order:
        a = abs(cv2.contourArea(polys[i]))
        limit = {j: max_inside_sure if sure[j] and not sure[i] else max_inside for j in kept}
        if not any(a > 0 and inter.get((i, j), 0.0) / a > limit[j] for j in kept):
            kept.append(i)
    return np.asarray(kept, np.int64)


class OBBDetector:
    """ONNX YOLO-OBB tile detector (load once, call per frame).

    Args:
        path: the ``.onnx`` file (static input (1, 3, S, S), output (1, 4 + nc + 1, N)).
        threads: onnxruntime intra-op threads.
        conf_threshold: minimum class score of a detection.
        iou_threshold: rotated-NMS IoU threshold.
        target_px: tile long side in the detector input that frames are scaled to, px.
        fast_resize: shrink frames with :func:`downscale` (integer area step first) instead
            of one plain area resize.

    Raises:
        FileNotFoundError: missing model file.
        ValueError: the model's input or output shape is not a square-image OBB model.
    """

    def __init__(self, path: str | Path, threads: int = 1, conf_threshold: float = 0.25,
                 iou_threshold: float = 0.5, target_px: float = TARGET_TILE_PX, fast_resize: bool = True):
        self.path = Path(path)
        self.session = make_session(path, threads)
        inp = self.session.get_inputs()[0]
        out = self.session.get_outputs()[0]
        shape = list(inp.shape)
        meta = self.session.get_modelmeta().custom_metadata_map
        if meta.get("end2end", "False") == "True":
            raise ValueError(f"{self.path}: end-to-end (NMS-free) exports are not supported; export with end2end=False")
        if len(shape) != 4:
            raise ValueError(f"{self.path}: expected an image input (1, 3, H, W), got {shape}")
        #: True for a model exported with dynamic height and width (``models/export_dynamic.py``):
        #: :meth:`detect` then runs one input over the whole scaled frame (split only above
        #: :data:`MAX_INPUT_PX`) instead of ``size`` x ``size`` windows.
        self.dynamic = not all(isinstance(v, int) for v in shape[2:])
        #: Input side the network was trained at (the window side of a static model), px.
        self.size = _meta_imgsz(meta) if self.dynamic else int(shape[2])
        if not self.dynamic and shape[2] != shape[3]:
            raise ValueError(f"{self.path}: expected a static square input (1, 3, S, S), got {shape}")
        #: The network's largest stride: dynamic input sides must be multiples of it, px.
        self.stride = int(meta.get("stride", 32))
        self.input_name = inp.name
        if len(out.shape) != 3:  # e.g. a classifier such as the pip reader: (N, classes)
            raise ValueError(f"{self.path}: expected an OBB output (1, 4 + nc + 1, N), got {out.shape}")
        rows = out.shape[1]
        if not isinstance(rows, int):  # dynamic exports name the row count: count the classes instead
            names = meta.get("names", "")
            try:
                rows = 5 + len(ast.literal_eval(names))
            except (ValueError, SyntaxError, TypeError):
                rows = int(self.session.run(None, {self.input_name: np.zeros((1, 3, self.size, self.size),
                                                                              np.float32)})[0].shape[1])
        if rows < 6:
            raise ValueError(f"{self.path}: expected an OBB output (1, 4 + nc + 1, N), got {out.shape}")
        self.num_classes = rows - 5
        self.names = meta.get("names", "")
        self.conf_threshold = conf_threshold
        self.iou_threshold = iou_threshold
        self.target_px = float(target_px)
        #: Overlap of neighbouring windows, detector input px.
        self.overlap_px = int(round(WINDOW_OVERLAP * self.target_px))
        #: Shrink frames with :func:`downscale` (fast) rather than a plain area resize.
        self.fast_resize = fast_resize
        #: Longest input side of a dynamic model, px (a multiple of ``stride``).
        self.max_input_px = max(self.size, MAX_INPUT_PX // self.stride * self.stride)

    # -- one input square ----------------------------------------------------------------

    def infer(self, square: np.ndarray) -> np.ndarray:
        """Run the network on one uint8 BGR input; returns the raw (4 + nc + 1, N) float32 output.

        Args:
            square: (S, S, 3) for a static model; (h, w, 3) with ``h`` and ``w`` multiples
                of :attr:`stride` for a dynamic one.
        """
        if self.dynamic:
            ok = (square.ndim == 3 and square.shape[2] == 3 and square.shape[0] % self.stride == 0
                  and square.shape[1] % self.stride == 0 and min(square.shape[:2]) > 0)
            want = f"(h, w, 3) uint8 image, h and w multiples of {self.stride}"
        else:
            ok = square.shape == (self.size, self.size, 3)
            want = f"({self.size}, {self.size}, 3) uint8 image"
        if not ok or square.dtype != np.uint8:
            raise ValueError(f"expected a {want}, got {square.shape} {square.dtype}")
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

    def scaled_size(self, frame_shape: tuple[int, ...], tile_px: float) -> tuple[int, int]:
        """(width, height) px of a frame of ``frame_shape`` (H, W, ...) scaled so tiles of ``tile_px`` px are ``target_px``.

        For a dynamic model whose scaled frame is at least ``size`` px both ways, each side
        is rounded to a multiple of :attr:`stride` (the scale may differ by a few percent
        between x and y; :meth:`detect` maps boxes back per axis).
        """
        H, W = frame_shape[:2]
        s = float(np.clip(self.target_px / tile_px, MIN_SCALE, MAX_SCALE))
        nw, nh = max(1, int(round(W * s))), max(1, int(round(H * s)))
        if self.dynamic and min(nw, nh) >= self.size:
            # Each side to the nearest multiple of the stride (<= 16 px off: tiles stay within
            # ~3 % of target_px) so the input needs no grey padding, which the network never
            # saw next to tiles cut by the frame edge in training.
            r = self.stride
            nw, nh = max(r, int(round(nw / r)) * r), max(r, int(round(nh / r)) * r)
        return nw, nh

    def input_size(self, scaled: tuple[int, int]) -> tuple[int, int]:
        """(width, height) px of one detector input for a scaled frame of ``scaled`` (width, height) px.

        ``(size, size)`` for a static model; for a dynamic one the scaled frame rounded up
        to a multiple of :attr:`stride`, at most :attr:`max_input_px` per side.
        """
        if not self.dynamic:
            return self.size, self.size
        r = self.stride
        return tuple(min(self.max_input_px, -(-v // r) * r) for v in scaled)  # type: ignore[return-value]

    def windows(self, frame_shape: tuple[int, ...], tile_px: float) -> list[tuple[int, int, int, int]]:
        """The detector inputs :meth:`detect` runs: ``(x0, y0, w, h)`` in scaled-frame px.

        Windows overlap by :attr:`overlap_px`; the last row and column may run past the
        scaled frame (padded grey).  One window when the scaled frame fits one input.
        """
        nw, nh = self.scaled_size(frame_shape, tile_px)
        iw, ih = self.input_size((nw, nh))
        return [(x0, y0, iw, ih) for y0 in window_origins(nh, ih, self.overlap_px)
                for x0 in window_origins(nw, iw, self.overlap_px)]

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
        nw, nh = self.scaled_size(frame.shape, tile_px)
        small = downscale(frame, (nw, nh)) if self.fast_resize else _resize(frame, (nw, nh))
        fx, fy = nw / W, nh / H
        S = self.size
        if not self.dynamic and nw <= S and nh <= S:  # the whole scaled frame fits: letterbox it (pad only)
            sq, box = letterbox(small, S, scale=1.0)
            polys, scores, classes = self._square_dets(sq)
            polys = box.to_source(polys).reshape(-1, 4, 2)
        else:
            all_p, all_s, all_c = [], [], []
            for x0, y0, iw, ih in self.windows(frame.shape, tile_px):
                win = small[y0:y0 + ih, x0:x0 + iw]
                if win.shape[:2] != (ih, iw):
                    sq = np.full((ih, iw, 3), PAD_VALUE, np.uint8)
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
                    if x0 + iw < nw:
                        cut |= p[:, :, 0].max(1) > iw - m
                    if y0 + ih < nh:
                        cut |= p[:, :, 1].max(1) > ih - m
                    all_p.append(p[~cut] + np.array([x0, y0], np.float32))
                    all_s.append(sc[~cut])
                    all_c.append(c[~cut])
            if not all_p:
                return Detections.empty(tile_px)
            polys, scores, classes = np.concatenate(all_p), np.concatenate(all_s), np.concatenate(all_c)
        polys = (polys / np.array([fx, fy], np.float32)).astype(np.float32)
        if len(scores) == 0:
            return Detections.empty(tile_px)
        if len(scores) > MAX_NMS_BOXES:
            top = np.argsort(-scores, kind="stable")[:MAX_NMS_BOXES]
            polys, scores, classes = polys[top], scores[top], classes[top]
        xywhr = np.stack([polygon_to_xywhr(p) for p in polys])
        keep = nms_rotated(xywhr, scores, self.iou_threshold)[:MAX_DETECTIONS]
        keep = suppress_contained(polys, keep)
        return Detections(polys[keep], scores[keep], classes[keep], float(tile_px))

    def windows_for(self, frame_shape: tuple[int, ...], tile_px: float) -> int:
        """Number of detector inputs :meth:`detect` runs for this frame size and tile size."""
        nw, nh = self.scaled_size(frame_shape, tile_px)
        if not self.dynamic and nw <= self.size and nh <= self.size:
            return 1
        return len(self.windows(frame_shape, tile_px))

    def input_cost(self, frame_shape: tuple[int, ...], tile_px: float) -> float:
        """Detector work for this frame and tile size, in ``size`` x ``size`` windows (input pixels / size²).

        Equals :meth:`windows_for` for a static model; for a dynamic one the inputs' total
        area (one 992 x 544 input for a 1080p frame with 79 px tiles: 5.3).
        """
        if not self.dynamic:
            return float(self.windows_for(frame_shape, tile_px))
        return sum(w * h for _, _, w, h in self.windows(frame_shape, tile_px)) / float(self.size * self.size)

    def detect_auto(self, frame: np.ndarray, min_tile_px: float = 24.0, accept_score: float = ACCEPT_SCORE,
                    min_support: int = MIN_SUPPORT, max_windows: int = 24) -> Detections:
        """Detect tiles of unknown size: try tile sizes coarse to fine, keep the best, refine.

        Candidate tile lengths ``T`` are first ``min(H, W)`` and ``min(H, W) / sqrt(2)``
        (a close-up's tile, searched on the padded frame: :meth:`detect_padded`), then
        ``min(H, W) / 2`` halving down to ``min_tile_px``.  The support of a candidate is
        the number of detections scoring >= ``accept_score`` whose box is tile-shaped
        (:meth:`Detections.confident`; :data:`TILE_ASPECT`: at half the true size each tile's
        halves are boxed as squarish "tiles" and would out-vote it).  At coarse scales a
        group of tiles (a hand of four side by
        side is 2:1 too) can look like one big tile, so a candidate never wins early: the
        search goes on until the support stays below the best one's for two candidates in a
        row (the peak is passed: tiles whose size falls between two candidates' ranges make
        a single dip, DDD photos: 384 px 3 boxes, 192 px 2, 96 px 4) or, once the best support is ``min_support`` or more, the next candidate
        would need more than ``max_windows`` detector windows (:meth:`input_cost`: input
        pixels in ``size`` x ``size`` windows for a dynamic model).  The median long side of
        the best candidate's confident detections is the tile size; the frame is
        detected again at that size unless it is within 15 % of ``T`` (at most twice,
        re-estimating each time: sizes are measured best near the target scale); when that
        re-detection finds no confident box, the candidate with the next most support is
        refined instead (and when none survives, the best candidate's own boxes are kept).

        Costs a few passes over coarse (cheap) scales before the final one; pass
        ``tile_px`` to :meth:`detect` when the size is known (calibration profile).

        Returns:
            :class:`Detections` (``tile_px`` set to the estimate), empty when nothing is found.
        """
        H, W = frame.shape[:2]
        t = min(H, W) / 2.0
        # Halve T, or step finer on small frames so that at least MIN_CANDIDATES sizes are
        # tried (a 100 px close-up: 50, 42, 35, 30, 25 px rather than 50 and 25).
        octaves = math.log2(t / min_tile_px) if t > min_tile_px else 1.0
        step = 2.0 ** (1.0 / max(1, math.ceil((MIN_CANDIDATES - 1) / max(octaves, 1e-6))))
        # First the tiles longer than half the frame (a close-up), on the padded frame.
        sizes = [min(H, W), min(H, W) / math.sqrt(2.0)]
        while t >= min_tile_px:
            sizes.append(t)
            t /= step
        tried: list[tuple[int, float, float, Detections]] = []  # support, T, estimate, detections
        best: tuple[int, float, float, Detections] | None = None
        below = 0  # candidates in a row with less support than the best
        for t in sizes:
            if best is not None and best[0] >= min_support and self.input_cost(frame.shape, t) > max_windows:
                break
            d = self._detect_sized(frame, t)
            good = d.confident(accept_score)
            support = int(good.sum())
            if support:
                tried.append((support, t, float(np.median(d.long_sides()[good])), d))
            if support and (best is None or support > best[0]):
                best, below = tried[-1], 0
            elif best is not None and best[0] >= min_support and support < best[0]:
                below += 1
                if below == 2:
                    break  # past the peak; one dip alone is a size between two candidates' ranges
        # Most support first (the coarser on ties, as found), skipping a candidate whose boxes
        # are parts of a coarser candidate's tiles (:func:`parts_of`); a candidate whose re-detection at
        # its own size estimate finds nothing confident was not tiles (DDD photos: 3 boxes of
        # 210-260 px at 384 px are board pictures; at 232 px nothing) and the next one is tried.
        # If no candidate survives, the best one's own boxes stand (a lone tile can score
        # at one scale only: DomiBot close-ups, 0.83 at 50 px, nothing at its 34 px estimate).
        # (Pooling the support of candidates with agreeing size estimates was tried: DomiBot
        # +2 tiles, but DDD photos then settled on scales that box the printed dominoes, 279
        # -> 407 extra detections.)
        for support, t, est, d in sorted(tried, key=lambda c: -c[0]):
            coarser = [p[3] for p in tried if p[2] >= PARTS_RATIO * est]
            if any(parts_of(d, c, accept_score) for c in coarser):
                continue  # parts of a coarser candidate's tiles
            if any(only_backs_below_a_face(d, c, accept_score) for c in coarser):
                continue  # texture read as face-down tiles, far below a clear face-up tile
            refined = self._refine(frame, t, est, d, accept_score)
            if refined is not None:
                return refined
        if best is None:
            if accept_score > WEAK_ACCEPT and self.conf_threshold <= WEAK_ACCEPT:
                # Nothing confident at any size (a cream tile on a cream ground under diffuse
                # light scores 0.2-0.3): search again counting weak boxes; the recognizer keeps
                # a weak box only when the pip reader vouches for it.
                return self.detect_auto(frame, min_tile_px, WEAK_ACCEPT, min_support, max_windows)
            return Detections.empty()
        best[3].tile_px = best[1]
        return best[3]

    def _detect_sized(self, frame: np.ndarray, tile_px: float) -> Detections:
        """:meth:`detect`, on the frame padded with its own border when tiles of ``tile_px``
        would be longer than half the frame (:meth:`detect_padded`)."""
        if tile_px > min(frame.shape[:2]) / 2.0:
            return self.detect_padded(frame, tile_px)
        return self.detect(frame, tile_px)

    def detect_padded(self, frame: np.ndarray, tile_px: float) -> Detections:
        """:meth:`detect` on the frame widened by half its short side on every side with its
        own edge pixels (``cv2.BORDER_REPLICATE``); boxes centred in that margin are dropped.

        A tile that fills most of a close-up touches the frame edges, and the detector,
        trained on tiles with table around them, misses it (DomiBot close-ups whose tile is
        over 40 % of the 100 px frame: found with the margin, not without).  Grey padding
        (the letterbox) did not help.

        Args:
            frame: (H, W, 3) uint8 BGR.
            tile_px: expected tile long side in ``frame`` px (> 0).

        Returns:
            :class:`Detections` in ``frame`` px.
        """
        H, W = frame.shape[:2]
        p = int(round(min(H, W) / 2.0))
        d = self.detect(cv2.copyMakeBorder(frame, p, p, p, p, cv2.BORDER_REPLICATE), tile_px)
        polys = d.polygons - np.float32(p)
        c = polys.mean(1) if len(polys) else np.zeros((0, 2), np.float32)
        keep = (c[:, 0] >= 0) & (c[:, 0] < W) & (c[:, 1] >= 0) & (c[:, 1] < H)
        return Detections(polys[keep], d.scores[keep], d.classes[keep], d.tile_px)

    def _refine(self, frame: np.ndarray, t: float, est: float, d: Detections, accept_score: float
                ) -> Detections | None:
        """Fixed-point refinement of a size-search candidate (:meth:`detect_auto`).

        Re-detects at the size estimate ``est`` (px) unless it is within 15 % of the
        candidate's ``t`` (at most twice, re-estimating each time: sizes are measured best
        near the target scale). Returns the detections with ``tile_px`` set, or None when a
        re-detection has no box scoring >= ``accept_score``.
        """
        # (Keeping the candidate's own boxes when a re-detection finds fewer was tried: size
        # estimates within 15 % on 30 rendered frames 29 -> 22, DDD 76 -> 70 photos.)
        for _ in range(2):
            if abs(math.log(est / t)) <= math.log(1.15):
                break
            d, t = self._detect_sized(frame, est), est
            good = d.confident(accept_score)
            if not good.any():
                return None
            est = float(np.median(d.long_sides()[good]))
        d.tile_px = t
        return d
