"""Static int8 quantization of the tile detector (onnxruntime QDQ, per-channel int8 weights).

    python -m models.quantize                      # models/tile_detector.onnx -> models/tile_detector.int8.onnx
    python -m models.quantize --check data/synth_seed0_scenes1200_img320 --out runs/quantize.json
    dominocast train quantize [--check DATA]       # the same from the CLI

Re-run it after every detector training: the int8 file is derived from the fp32 one and
records the fp32 file's SHA-1 in its metadata (``source_sha1``), so a stale int8 file is
detectable (:func:`is_current`).  Needs onnxruntime, ``onnx`` and ``sympy`` (``make quantize-deps``; no
torch); running the int8 file needs onnxruntime only.

Recipe (models/tile_detector.md, "int8 export"):

* calibration: ``--calib`` (default 160) windows of the *train/val* split the fp32 model
  was trained on (``data.dir`` in ``models/tile_detector.metrics.json``, else ``--data``),
  val first; the held-out test split is never used here;
* ``quant_pre_process`` (shape inference + graph optimisation), then ``quantize_static``
  in QDQ format, uint8 activations and per-channel 7-bit ("reduce_range") int8 weights,
  MinMax ranges: uint8 activations let onnxruntime fuse every Conv+SiLU into QLinear ops
  (with int8 ones it does not and the model runs slower than fp32); full 8-bit weights
  saturate the u8 x s8 kernels of CPUs without VNNI (plain AVX2) and wreck the detector;
* the box decoding after the head's last convolutions (DFL softmax, distance -> box,
  angle, sigmoid scores, final concat) stays float32 (``--keep-fp32 decode``): its
  output mixes pixel coordinates (0-320) and scores (0-1) in one tensor, which no single
  int8 scale represents.  ``last`` also keeps the head's last 1x1 convolutions float32,
  ``head`` the whole head.

``--check DATA`` evaluates fp32 and int8 on ``DATA/detect/images/test`` with
:func:`models.evaluate.evaluate_detector` and times both, interleaved in one process, on
the same windows (:func:`bench_latency`) and on a 1920x1080 frame (:func:`frame_latency`).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import cv2
import numpy as np

from models.common import MODELS_DIR, REPO_ROOT
from vision.detector import file_sha1, to_input

FP32_ONNX = MODELS_DIR / "tile_detector.onnx"
INT8_ONNX = MODELS_DIR / "tile_detector.int8.onnx"
METRICS_JSON = MODELS_DIR / "tile_detector.metrics.json"
KEEP_FP32 = ("none", "decode", "last", "head")

__all__ = ["FP32_ONNX", "INT8_ONNX", "quantize", "is_current", "source_sha1", "calibration_windows",
           "fp32_nodes", "with_dynamic_batch", "bench_latency", "frame_latency", "box_agreement", "check", "main"]


def source_sha1(int8_path: Path = INT8_ONNX) -> str | None:
    """SHA-1 of the fp32 model an int8 file was made from (its ``source_sha1`` metadata), or None.

    Reads the metadata with onnxruntime (no ``onnx`` needed). Raises FileNotFoundError when absent.
    """
    from vision.detector import make_session

    return make_session(int8_path).get_modelmeta().custom_metadata_map.get("source_sha1")


def is_current(int8_path: Path = INT8_ONNX, fp32_path: Path = FP32_ONNX) -> bool:
    """True when ``int8_path`` exists and was quantized from the present ``fp32_path``."""
    from vision.detector import derived_from, make_session

    return Path(int8_path).is_file() and derived_from(make_session(int8_path), fp32_path)


def default_calibration_data() -> Path | None:
    """The dataset the shipped fp32 detector was trained on (``data.dir`` of its metrics file), or None."""
    if not METRICS_JSON.is_file():
        return None
    d = json.loads(METRICS_JSON.read_text()).get("data", {}).get("dir")
    if not d:
        return None
    p = Path(d) if Path(d).is_absolute() else REPO_ROOT / d
    return p if (p / "detect" / "images" / "val").is_dir() else None


def calibration_windows(data: Path, n: int = 160, splits: Sequence[str] = ("val", "train"), seed: int = 0
                        ) -> np.ndarray:
    """``n`` detector windows from ``data/detect/images/<split>``, filling from the splits in order.

    Args:
        data: dataset folder (``datasets/build.py`` layout).
        n: number of windows (>= 1).
        splits: splits to draw from; ``test`` is refused (it is the held-out evaluation split).
        seed: picks the windows within a split when it has more than needed.

    Returns:
        (n', S, S, 3) uint8 BGR, n' = min(n, available).

    Raises:
        ValueError: ``test`` among the splits, or no window found.
    """
    if "test" in splits:
        raise ValueError("calibration must not use the held-out test split")
    rng = np.random.default_rng(seed)
    files: list[Path] = []
    for s in splits:
        fs = sorted((Path(data) / "detect" / "images" / s).glob("*.jpg"))
        need = n - len(files)
        if need <= 0:
            break
        if len(fs) > need:
            fs = [fs[i] for i in sorted(rng.choice(len(fs), need, replace=False))]
        files += fs
    if not files:
        raise ValueError(f"no calibration windows in {data}/detect/images/{{{','.join(splits)}}}")
    return np.stack([cv2.imread(str(f), cv2.IMREAD_COLOR) for f in files])


class _Reader:
    """onnxruntime CalibrationDataReader over uint8 BGR windows (one window per batch)."""

    def __init__(self, input_name: str, windows: np.ndarray):
        self.name, self.windows, self.i = input_name, windows, 0

    def get_next(self) -> dict | None:
        if self.i >= len(self.windows):
            return None
        self.i += 1
        return {self.name: to_input(self.windows[self.i - 1])}

    def rewind(self) -> None:
        self.i = 0


def fp32_nodes(model, keep: str = "decode") -> list[str]:
    """Names of the nodes to leave float32 in a YOLO detection head.

    The head is the module (``/model.<k>/``) producing the graph's first output.  Its
    *last convolutions* are the head Conv nodes not followed by an activation (Sigmoid)
    that are not themselves downstream of another such conv (the DFL conv is).
    Everything downstream of them is the box/score/angle *decoding*.

    Args:
        model: ``onnx.ModelProto``.
        keep: ``"none"``, ``"decode"`` (decoding only), ``"last"`` (decoding + last
            convolutions) or ``"head"`` (every node of the head module).

    Returns:
        node names (possibly empty).

    Raises:
        ValueError: unknown ``keep``, or no head found.
    """
    if keep not in KEEP_FP32:
        raise ValueError(f"keep must be one of {KEEP_FP32}, got {keep!r}")
    if keep == "none":
        return []
    nodes = list(model.graph.node)
    out0 = model.graph.output[0].name
    last = next((n for n in nodes if out0 in n.output), None)
    if last is None or not last.name.startswith("/") or "/" not in last.name[1:]:
        raise ValueError("cannot find the detection head (node names like /model.23/...)")
    prefix = last.name[: last.name.index("/", 1) + 1]
    head = [n for n in nodes if n.name.startswith(prefix)]
    if keep == "head":
        return [n.name for n in head]
    consumers: dict[str, list] = {}
    for n in nodes:
        for t in n.input:
            consumers.setdefault(t, []).append(n)

    def downstream(start: Iterable) -> set[str]:
        seen: set[str] = set()
        todo = [t for n in start for t in n.output]
        while todo:
            for c in consumers.get(todo.pop(), []):
                if c.name not in seen:
                    seen.add(c.name)
                    todo.extend(c.output)
        return seen

    linear = [n for n in head if n.op_type == "Conv"
              and not any(c.op_type == "Sigmoid" for t in n.output for c in consumers.get(t, []))]
    below = downstream(linear)
    final = [n for n in linear if n.name not in below]
    names = downstream(final)
    if keep == "last":
        names |= {n.name for n in final}
    return [n.name for n in nodes if n.name in names]


def quantize(src: Path = FP32_ONNX, dst: Path = INT8_ONNX, data: Path | None = None, n_calib: int = 160,
             keep: str = "decode", method: str = "minmax", per_channel: bool = True, reduce_range: bool = True,
             signed_activations: bool = False) -> dict:
    """Quantize the fp32 detector to int8 QDQ and write ``dst``.

    Args:
        src: fp32 ONNX (static input (1, 3, S, S) float32).
        dst: output path (written atomically: temp file, then rename).
        data: dataset for calibration windows; default :func:`default_calibration_data`.
        n_calib: number of calibration windows (train/val only).
        keep: which head nodes stay float32 (:func:`fp32_nodes`).
        method: ``"minmax"``, ``"percentile"`` (99.999 %) or ``"entropy"`` activation ranges.
        per_channel: per-output-channel weight scales (else per tensor).
        reduce_range: 7-bit weights.  Keep it on: without VNNI (AVX2 CPUs, e.g. the 2-core
            AMD EPYC measured) onnxruntime's u8 x s8 kernels saturate their int16 pair sums
            with full 8-bit weights; measured held-out recall 0.75 instead of 0.97.
        signed_activations: int8 instead of uint8 activations.  Off by default: with int8
            activations onnxruntime's CPU provider leaves every Conv+SiLU float32 (Q/DQ
            around it), which made the model ~1.8x *slower* than fp32 (measured).

    Returns:
        the recipe written into ``dst``'s metadata (``quantization`` key, JSON) plus sizes.

    Raises:
        FileNotFoundError: ``src`` missing.
        ValueError: no calibration data (pass ``data``), bad ``keep`` or ``method``.
    """
    import onnx
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    src, dst = Path(src), Path(dst)
    if not src.is_file():
        raise FileNotFoundError(f"{src}: no such model file")
    methods = {"minmax": CalibrationMethod.MinMax, "percentile": CalibrationMethod.Percentile,
               "entropy": CalibrationMethod.Entropy}
    if method not in methods:
        raise ValueError(f"method must be one of {sorted(methods)}, got {method!r}")
    data = Path(data) if data else default_calibration_data()
    if data is None:
        raise ValueError("no calibration data: pass --data DIR (a dataset with detect/images/val)")
    windows = calibration_windows(data, n_calib)
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre))
        pm = onnx.load(str(pre))
        exclude = fp32_nodes(pm, keep)
        out = Path(tmp) / "int8.onnx"
        quantize_static(str(pre), str(out), _Reader(pm.graph.input[0].name, windows), quant_format=QuantFormat.QDQ,
                        per_channel=per_channel, reduce_range=reduce_range,
                        activation_type=QuantType.QInt8 if signed_activations else QuantType.QUInt8,
                        weight_type=QuantType.QInt8,
                        nodes_to_exclude=exclude, calibrate_method=methods[method],
                        extra_options={"CalibTensorRangeSymmetric": False, "CalibPercentile": 99.999})
        q = onnx.load(str(out))
        recipe = {"format": "QDQ", "activations": "int8" if signed_activations else "uint8",
                  "weights": ("int7" if reduce_range else "int8") + (" per-channel" if per_channel else ""),
                  "method": method, "keep_fp32": keep, "fp32_nodes": len(exclude),
                  "calibration": {"data": str(data.relative_to(REPO_ROOT)) if data.is_relative_to(REPO_ROOT)
                                  else str(data), "windows": int(len(windows)), "splits": "val, then train"}}
        # Keep the source's metadata (names, stride, end2end: read by vision.detector) and record the source.
        meta = {p.key: p.value for p in onnx.load(str(src), load_external_data=False).metadata_props}
        meta.update(source=src.name, source_sha1=file_sha1(src), quantization=json.dumps(recipe))
        del q.metadata_props[:]
        for k, v in meta.items():
            q.metadata_props.add(key=k, value=v)
        part = dst.with_name(dst.name + ".part")
        onnx.save(q, str(part))
        part.replace(dst)
    recipe.update(seconds=round(time.time() - t0, 1), src_bytes=src.stat().st_size, dst_bytes=dst.stat().st_size)
    return recipe


def with_dynamic_batch(model):
    """Copy of an ultralytics ONNX export whose batch dimension is free (several windows per run).

    The export hard-codes batch 1 in its Reshape target shapes; the leading 1 becomes 0
    ("copy from the input"), the graph input/output batch dim becomes ``"N"`` and the
    stale intermediate shapes are dropped.  Works on fp32 and on QDQ models.

    Raises:
        ValueError: a Reshape shape does not start with 1, or its constant is shared with another op.
    """
    import onnx
    from onnx import numpy_helper

    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    inits = {t.name: t for t in g.initializer}
    consts = {n.output[0]: n for n in g.node if n.op_type == "Constant"}
    users: dict[str, set[str]] = {}
    for n in g.node:
        for t in n.input:
            users.setdefault(t, set()).add(n.op_type)
    for n in g.node:
        if n.op_type != "Reshape":
            continue
        name = n.input[1]
        if users[name] != {"Reshape"}:
            raise ValueError(f"{n.name}: shape tensor {name} is shared with other ops")
        if name in inits:
            arr = numpy_helper.to_array(inits[name]).copy()
        elif name in consts:
            arr = numpy_helper.to_array(consts[name].attribute[0].t).copy()
        else:
            raise ValueError(f"{n.name}: shape {name} is not a constant")
        if arr[0] not in (0, 1):
            raise ValueError(f"{n.name}: shape {arr.tolist()} does not start with the batch dim")
        arr[0] = 0
        t = numpy_helper.from_array(arr, name)
        if name in inits:
            inits[name].CopyFrom(t)
        else:
            consts[name].attribute[0].t.CopyFrom(t)
    for v in list(g.input) + list(g.output):
        v.type.tensor_type.shape.dim[0].dim_param = "N"
    del g.value_info[:]
    return m


def bench_latency(models: dict[str, Path | bytes | tuple], windows: np.ndarray, threads: int = 1, rounds: int = 7,
                  batch: int = 1) -> dict[str, dict]:
    """Per-window latency of several model/session set-ups on the same windows, interleaved.

    Each round runs every set-up once over all ``windows``, set-ups in rotating order,
    so load from other processes hits all of them alike: compare medians and minimums.

    Args:
        models: label -> ONNX path or serialized model bytes, or label -> ``(model, settings)``
            where ``settings`` may override ``threads`` and ``batch`` and set any
            ``onnxruntime.SessionOptions`` attribute (e.g. ``graph_optimization_level``,
            ``execution_mode``, ``inter_op_num_threads``) or ``"config:<key>"`` session
            config entry (e.g. ``"config:session.intra_op.allow_spinning": "0"``).
        windows: (N, S, S, 3) uint8 BGR.
        threads: onnxruntime intra-op threads (default for every set-up).
        rounds: timed rounds (after one untimed warm-up round).
        batch: windows per ``session.run``; above 1 the model needs a free batch dim
            (:func:`with_dynamic_batch`).

    Returns:
        label -> ``{"median_ms", "min_ms", "rounds_ms"}``, ms per window.
    """
    import onnxruntime as ort

    sessions, chunks = {}, {}
    x = to_input(windows)
    for k, v in models.items():
        model, settings = v if isinstance(v, tuple) else (v, {})
        settings = dict(settings)
        b = int(settings.pop("batch", batch))
        so = ort.SessionOptions()
        so.intra_op_num_threads, so.inter_op_num_threads = int(settings.pop("threads", threads)), 1
        so.log_severity_level = 3
        for opt, val in settings.items():
            if opt.startswith("config:"):
                so.add_session_config_entry(opt[7:], str(val))
            else:
                setattr(so, opt, val)
        src = model if isinstance(model, bytes) else str(model)
        sessions[k] = ort.InferenceSession(src, sess_options=so, providers=["CPUExecutionProvider"])
        chunks[k] = [x[i:i + b] for i in range(0, len(x), b)]
    times: dict[str, list[float]] = {k: [] for k in sessions}
    keys = list(sessions)
    for r in range(rounds + 1):
        for k in keys[r % len(keys):] + keys[:r % len(keys)]:
            s = sessions[k]
            name = s.get_inputs()[0].name
            t0 = time.perf_counter()
            for c in chunks[k]:
                s.run(None, {name: c})
            if r:
                times[k].append(1000 * (time.perf_counter() - t0) / len(x))
    return {k: {"median_ms": round(float(np.median(v)), 2), "min_ms": round(float(np.min(v)), 2),
                "rounds_ms": [round(t, 2) for t in v]} for k, v in times.items()}


def box_agreement(a, b, windows: np.ndarray, min_score: float = 0.5) -> dict:
    """How well detector ``b`` reproduces detector ``a``'s confident boxes on the same windows.

    Args:
        a, b: :class:`vision.detector.OBBDetector` (same input size).
        windows: (N, S, S, 3) uint8 BGR detector windows.
        min_score: ``a``'s boxes scoring below this are not required (near the threshold a
            box may legitimately appear in one model only).

    Returns:
        ``{"boxes", "matched", "class_agree", "iou_min", "iou_median", "score_diff_max"}``:
        ``a``'s confident boxes, how many have a ``b`` box at rotated IoU >= 0.5, how many
        of those have the same class, the min / median best IoU over all of them (0 when
        unmatched) and the largest score difference of matched pairs.
    """
    from vision.obb import polygon_iou

    ious, cls_ok, dscore = [], 0, [0.0]
    for w in windows:
        pa, sa, ca = a._square_dets(w)
        pb, sb, cb = b._square_dets(w)
        for p, s, c in zip(pa, sa, ca):
            if s < min_score:
                continue
            v = [polygon_iou(p, q) for q in pb]
            j = int(np.argmax(v)) if v else -1
            ious.append(v[j] if v else 0.0)
            if v and v[j] >= 0.5:
                cls_ok += int(cb[j] == c)
                dscore.append(abs(float(sb[j]) - float(s)))
    iou = np.asarray(ious or [1.0])
    return {"boxes": len(ious), "matched": int((iou >= 0.5).sum()) if ious else 0, "class_agree": cls_ok,
            "iou_min": round(float(iou.min()), 4), "iou_median": round(float(np.median(iou)), 4),
            "score_diff_max": round(max(dscore), 4)}


def frame_latency(models: dict[str, Path], threads: int = 1, rounds: int = 5, conf: float = 0.35) -> dict:
    """ms per 1920x1080 frame (~30 tiles) of :meth:`vision.detector.OBBDetector.detect`, interleaved.

    The frame is the one of the speed benchmark (``bench.scenes.bench_frame``: 30 +- 4
    visible tiles, ~85 px long, seed 7), detected at its known tile size: resize, 8
    windows, decoding and NMS included.

    Returns:
        ``{"tiles_visible", "tile_px", "windows", "<label>": {"median_ms", "min_ms",
        "detections"}}``, or ``{"skipped": reason}`` when the benchmark scenes are unavailable.
    """
    try:
        from bench.scenes import bench_frame, median_tile_px, visible_count
    except ImportError as e:  # bench/ is a checkout-only package
        return {"skipped": f"bench.scenes unavailable: {e}"}
    from vision.detector import OBBDetector

    frame, labels, _ = bench_frame(30, 85.0, seed=7, size=(1920, 1080), tol=4)
    tile_px = median_tile_px(labels)
    dets = {k: OBBDetector(p, threads, conf) for k, p in models.items()}
    first = next(iter(dets.values()))
    res: dict = {"tiles_visible": visible_count(labels), "tile_px": round(tile_px, 1), "threads": threads,
                 "windows": first.windows_for(frame.shape, tile_px), "conf": conf}
    times: dict[str, list[float]] = {k: [] for k in dets}
    n: dict[str, int] = {}
    keys = list(dets)
    for r in range(rounds + 1):
        for k in keys[r % len(keys):] + keys[:r % len(keys)]:
            t0 = time.perf_counter()
            n[k] = len(dets[k].detect(frame, tile_px))
            if r:
                times[k].append(1000 * (time.perf_counter() - t0))
    for k, v in times.items():
        res[k] = {"median_ms": round(float(np.median(v)), 1), "min_ms": round(float(np.min(v)), 1), "detections": n[k]}
    return res


def check(fp32: Path, int8: Path, data: Path, conf: float = 0.25, threads: Sequence[int] = (1, 2),
          rounds: int = 7, n_windows: int = 16) -> dict:
    """Accuracy (held-out test split) and latency of fp32 vs int8, in one process.

    Accuracy: :func:`models.evaluate.evaluate_detector` on ``data/detect/images/test`` at
    ``conf`` and at 0.35 (the :class:`vision.recognize.Recognizer` default).  Latency:
    :func:`bench_latency` on the first ``n_windows`` test windows with each thread count,
    and :func:`frame_latency` on a 1920x1080 frame.
    """
    from models.evaluate import evaluate_detector

    res: dict = {"data": str(data), "conf": conf}
    for k, p in (("fp32", fp32), ("int8", int8)):
        res[k] = {"bytes": Path(p).stat().st_size}
        for c in (conf, 0.35):
            r = evaluate_detector(data, "test", p, c)
            res[k][f"conf={c}"] = {key: r[key] for key in ("tile", "tile_up", "tile_down",
                                                           "up_down_accuracy_of_matched", "tile_by_surface")}
    files = sorted((data / "detect" / "images" / "test").glob("*.jpg"))[:n_windows]
    wins = np.stack([cv2.imread(str(f), cv2.IMREAD_COLOR) for f in files])
    res["latency_ms_per_window"] = {f"threads={t}": bench_latency({"fp32": fp32, "int8": int8}, wins, t, rounds)
                                    for t in threads}
    res["latency_ms_per_1080p_frame"] = {f"threads={t}": frame_latency({"fp32": fp32, "int8": int8}, t)
                                         for t in threads}
    return res


def main(argv: list[str] | None = None) -> dict:
    """Command-line entry point (``python -m models.quantize``); prints and returns the report."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", type=Path, default=FP32_ONNX, help="fp32 ONNX (default models/tile_detector.onnx)")
    ap.add_argument("--dst", type=Path, default=INT8_ONNX, help="int8 ONNX (default models/tile_detector.int8.onnx)")
    ap.add_argument("--data", type=Path, default=None,
                    help="calibration dataset (train/val); default: the one the fp32 model was trained on")
    ap.add_argument("--calib", type=int, default=160, help="calibration windows")
    ap.add_argument("--keep-fp32", choices=KEEP_FP32, default="decode", help="head nodes left float32")
    ap.add_argument("--method", choices=("minmax", "percentile", "entropy"), default="minmax")
    ap.add_argument("--per-tensor", action="store_true", help="per-tensor weight scales (default per channel)")
    ap.add_argument("--full-range", action="store_true",
                    help="8-bit weights (only for CPUs with VNNI; saturates on plain AVX2)")
    ap.add_argument("--signed-activations", action="store_true", help="int8 activations (slower on CPU)")
    ap.add_argument("--check", type=Path, default=None, metavar="DATA",
                    help="then evaluate fp32 vs int8 on DATA/detect/images/test and time both")
    ap.add_argument("--out", type=Path, default=None, help="also write the report (JSON) here")
    a = ap.parse_args(argv)
    rep = {"quantize": quantize(a.src, a.dst, a.data, a.calib, a.keep_fp32, a.method, not a.per_tensor,
                                 not a.full_range, a.signed_activations)}
    if a.check:
        rep["check"] = check(a.src, a.dst, a.check)
    text = json.dumps(rep, indent=2)
    print(text)
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(text + "\n")
    return rep


if __name__ == "__main__":
    main()
