"""Speed, side by side: the detector through three runtimes, and whole-frame recognition.

One generated 1920x1080 frame with about 30 tiles (:func:`bench.scenes.bench_frame`):

* the detector network on one 320x320 input (the detector window of that frame holding
  the most tiles, tiles scaled to 40 px as in live use) through onnxruntime on
  ``models/tile_detector.onnx`` (what we ship), ultralytics + torch on the checkpoint it
  was exported from (``models/checkpoints/tile_detector.pt``, when ultralytics is
  installed) and OpenCV DNN on the same ONNX file. Each runtime runs in its own process
  (its peak RSS is its own) and its raw output is compared with onnxruntime's;
* :class:`vision.recognize.Recognizer` on the whole frame: tile size known (calibrated),
  classical cross-check off / on every half, tile size searched (uncalibrated), and pip
  reading alone; each configuration in its own process.

Run with ``python -m bench --only speed``. Smoke mode uses a 640x360 frame with about 10
tiles, one run without warm-up, and one process for all Recognizer configurations.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np

from bench.common import BenchConfig, in_child, md_table, timed

TITLE = "Speed, side by side"

#: Targets from the issues, ms.
TARGET_DETECTOR_MS = 40.0
TARGET_FRAME_MS = 150.0
#: The checkpoint the shipped ONNX detector is exported from.
CHECKPOINT = "checkpoints/tile_detector.pt"
#: Boxes of two runtimes agree when they have the same class and no corner further apart than this, px.
#: (Stricter than an IoU of 0.5: runtimes of the same network should give the same boxes.)
AGREE_PX = 1.0
#: Detector score threshold for the box comparison (the Recognizer's default).
CONF = 0.35

#: Runtimes in table order: key -> label.
RUNTIMES = {"onnxruntime": "onnxruntime (shipped)", "torch": "ultralytics + torch (.pt)",
            "opencv": "OpenCV DNN (same ONNX)"}
#: Recognizer configurations in table order: key -> label.
MODES = {
    "known": "frame, tile size known (calibrated)",
    "none": "frame, tile size known, no classical cross-check",
    "all": "frame, tile size known, classical cross-check of every half",
    "auto": "frame, tile size searched (uncalibrated)",
}


# -- the detector through three runtimes (each function runs in its own child process) -------

def _to_nchw(square: np.ndarray) -> np.ndarray:
    """(S, S, 3) uint8 BGR -> (1, 3, S, S) float32 RGB in [0, 1], as ``OBBDetector.infer`` does."""
    return np.ascontiguousarray(square[:, :, ::-1].transpose(2, 0, 1))[None].astype(np.float32) / 255.0


def _detector_onnxruntime(model: str, square: np.ndarray, threads: int, runs: int, warmup: int = 1) -> dict:
    """Time ``OBBDetector.infer`` (preprocessing + session run) on one input.

    Returns ``{"time": timed(...), "raw": (4 + nc + 1, N) float32}``.
    """
    from vision.detector import OBBDetector

    det = OBBDetector(model, threads)
    return {"time": timed(lambda: det.infer(square), runs, warmup), "raw": det.infer(square)}


def _detector_torch(checkpoint: str, square: np.ndarray, threads: int, runs: int, warmup: int = 1) -> dict:
    """Time the checkpoint's network (fused, eval, inference mode) on one input with torch.

    Only the forward pass and the same preprocessing are timed, as for onnxruntime
    (``YOLO.predict`` would add its own pre/post-processing). Returns ``{"time", "raw",
    "date"}`` where ``date`` is when the checkpoint was saved.
    """
    import torch
    from ultralytics import YOLO

    torch.set_num_threads(threads)
    y = YOLO(checkpoint)
    net = y.model.float().eval().fuse(verbose=False)  # the ONNX export is fused too

    def run() -> np.ndarray:
        with torch.inference_mode():
            out = net(torch.from_numpy(_to_nchw(square)))
        return (out[0] if isinstance(out, (tuple, list)) else out)[0].numpy()

    return {"time": timed(run, runs, warmup), "raw": run(), "date": (y.ckpt or {}).get("date")}


def _detector_opencv(model: str, square: np.ndarray, threads: int, runs: int, warmup: int = 1) -> dict:
    """Time OpenCV DNN (``readNetFromONNX``, default engine, CPU) on one input (``blobFromImage`` included).

    Raises:
        cv2.error: OpenCV cannot load or run the model (reported as the row's result).
    """
    import cv2

    cv2.setNumThreads(threads)
    net = cv2.dnn.readNetFromONNX(model)  # OpenCV's default engine and CPU backend

    def run() -> np.ndarray:
        net.setInput(cv2.dnn.blobFromImage(square, 1.0 / 255.0, swapRB=True))
        return np.array(net.forward()[0])  # copy: the output buffer is reused

    return {"time": timed(run, runs, warmup), "raw": run()}


def _boxes(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Raw (4 + nc + 1, N) output -> (polygons (K, 4, 2), classes (K,)) after score threshold and NMS."""
    from vision.obb import decode_obb, nms_rotated, xywhr_to_polygon

    d = decode_obb(raw, raw.shape[0] - 5, CONF)
    keep = nms_rotated(d.xywhr, d.scores, 0.5)
    return xywhr_to_polygon(d.xywhr[keep]).reshape(-1, 4, 2), d.classes[keep]


def corner_distance(p: np.ndarray, q: np.ndarray) -> float:
    """Largest corner distance (px) between two (4, 2) boxes, over the ways their corners can pair up.

    The same rectangle can be listed from any corner and in either direction (a box whose
    angle wrapped swaps ``w`` and ``h``), so the best of the 8 pairings is taken.
    """
    p, q = np.asarray(p, np.float64), np.asarray(q, np.float64)
    return float(min(np.linalg.norm(p - np.roll(r, k, axis=0), axis=1).max()
                     for r in (q, q[::-1]) for k in range(4)))


def agreement(raw: np.ndarray, ref: np.ndarray) -> dict:
    """How closely one runtime's raw detector output matches the reference (onnxruntime).

    Args:
        raw, ref: (4 + nc + 1, N) float32 raw outputs (rows: cx, cy, w, h in input px,
            nc class scores, angle in radians).

    Returns:
        ``max_box_px`` (max abs difference of cx, cy, w, h), ``max_score`` (of the class
        scores), ``boxes_ref`` (reference boxes after threshold + NMS) and ``boxes_matched``
        (how many of them the other output has with the same class and corners within
        :data:`AGREE_PX`, one-to-one).

    Raises:
        ValueError: the shapes differ.
    """
    if raw.shape != ref.shape:
        raise ValueError(f"output shape {raw.shape} differs from onnxruntime's {ref.shape}")
    pr, cr = _boxes(ref)
    po, co = _boxes(raw)
    used: set[int] = set()
    matched = 0
    for p, c in zip(pr, cr):
        cand = [(corner_distance(p, q), j) for j, (q, d) in enumerate(zip(po, co)) if d == c and j not in used]
        dist, j = min(cand, default=(np.inf, -1))
        if dist <= AGREE_PX:
            used.add(j)
            matched += 1
    return {"max_box_px": float(np.abs(raw[:4] - ref[:4]).max()),
            "max_score": float(np.abs(raw[4:-1] - ref[4:-1]).max()),
            "boxes_ref": int(len(pr)), "boxes_matched": matched}


def one_line_error(message: str, limit: int = 300) -> str:
    """The first lines of an ``in_child`` error (before its traceback) joined into one line."""
    head = message.split("\nTraceback", 1)[0]
    line = " ".join(s.strip() for s in head.splitlines() if s.strip())
    return line if len(line) <= limit else line[:limit - 3] + "..."


# -- whole-frame recognition (one child per configuration; one for all of them in smoke) ---

def _recognize(frame: np.ndarray, labels: list[dict], tile_px: float, mode: str, threads: int, runs: int,
               warmup: int = 1) -> dict:
    """Time ``Recognizer`` on ``frame`` in one configuration (see :data:`MODES`).

    ``known`` also times the detector over the whole frame and pip reading alone on the
    face-up tiles it found. Returns timings (``timed`` dicts), ``windows`` (detector
    windows at the known scale), ``detections`` and the ``match_scene`` counts.
    """
    from vision.crops import canonical_polygon
    from vision.evaluate import match_scene
    from vision.recognize import Recognizer

    cross = {"none": "none", "all": "all"}.get(mode, "uncertain")
    rec = Recognizer(threads=threads, cross_check=cross)
    size = None if mode == "auto" else tile_px
    last: dict = {}

    def call() -> None:
        last["obs"] = rec(frame, tile_px=size)  # kept for scoring: no extra (slow) call afterwards

    out: dict = {"frame": timed(call, runs, warmup)}
    obs = last["obs"]
    m = match_scene(obs, labels)
    out.update(detections=len(obs), found=m["found"], visible=m["gt"], up=m["up"], pips_ok=m["identity_ok"],
               windows=rec.detector.windows_for(frame.shape, tile_px), tile_px_used=rec.last_tile_px)
    if mode == "known":
        out["detector_frame"] = timed(lambda: rec.detector.detect(frame, tile_px), runs, warmup)
        dets = rec.detector.detect(frame, tile_px)
        up = [canonical_polygon(p) for p, c in zip(dets.polygons, dets.classes) if c == 0]
        if up:
            polys = np.stack(up)
            out["pip_reading"] = timed(lambda: rec.reader.read(frame, polys), runs, warmup)
        out["pip_tiles"] = len(up)
    return out


def _recognize_modes(frame: np.ndarray, labels: list[dict], tile_px: float, modes: dict[str, int], threads: int,
                     warmup: int = 1) -> dict:
    """:func:`_recognize` for each ``mode -> runs`` of ``modes``, in this process, in order."""
    return {m: _recognize(frame, labels, tile_px, m, threads, runs, warmup) for m, runs in modes.items()}


# -- the section ------------------------------------------------------------------------

def run(cfg: BenchConfig) -> dict:
    """Measure both tables; see the module docstring. Returns JSON-able results."""
    from bench.scenes import bench_frame, detector_window, median_tile_px, visible_count
    from vision.detector import OBBDetector
    from vision.recognize import DEFAULT_DETECTOR

    if cfg.smoke:
        size, n_target, tile_target, tol = (640, 360), 8, 60.0, 4
    else:
        size, n_target, tile_target, tol = (1920, 1080), 30, 85.0, 4
    frame, labels, scene = bench_frame(n_target, tile_target, seed=7, size=size, tol=tol)
    tile_px = median_tile_px(labels)
    model = str(DEFAULT_DETECTOR)
    det = OBBDetector(model, 1)  # only for its input size and window overlap
    square, in_window = detector_window(frame, labels, tile_px, det.size, det.target_px, det.overlap_px)
    del det
    res: dict = {
        "frame": {"size": list(size), "scene": f"datasets.render.scene val split, seed [7, {scene}]",
                  "tiles_visible": visible_count(labels), "tile_px": round(tile_px, 1)},
        "window": {"size": int(square.shape[0]), "tiles": in_window},
        "threads": cfg.threads, "runs": cfg.runs, "warmup": 0 if cfg.smoke else 1, "smoke": cfg.smoke,
        "targets": {"detector_ms": TARGET_DETECTOR_MS, "frame_ms": TARGET_FRAME_MS},
        "detector": {}, "recognize": {},
    }

    warmup = res["warmup"]  # none in smoke: its numbers mean nothing, and warm-ups of slow calls cost
    # Detector: onnxruntime first (the reference output), then the others.
    ckpt = DEFAULT_DETECTOR.parent / CHECKPOINT
    jobs = {"onnxruntime": (_detector_onnxruntime, model), "torch": (_detector_torch, str(ckpt)),
            "opencv": (_detector_opencv, model)}
    ref = None
    for key, (fn, path) in jobs.items():
        row: dict = {}
        if key == "torch" and not all(importlib.util.find_spec(m) for m in ("torch", "ultralytics")):
            row["skipped"] = "not installed (make train-deps)"
        elif key == "torch" and not ckpt.is_file():
            row["skipped"] = f"no checkpoint {CHECKPOINT}"
        else:
            try:
                out, rss = in_child(fn, path, square, cfg.threads, cfg.runs, warmup, timeout_s=600)
            except RuntimeError as e:
                row["error"] = one_line_error(str(e))
            else:
                row.update(out["time"], peak_rss_mb=rss)
                if out.get("date"):
                    row["checkpoint_date"] = out["date"]
                if key == "onnxruntime":
                    ref = out["raw"]
                elif ref is not None:
                    try:
                        row["agreement"] = agreement(out["raw"], ref)
                    except ValueError as e:
                        row["agreement_error"] = str(e)
        res["detector"][key] = row
    if "torch" in res["detector"] and os.path.exists(ckpt) and os.path.exists(model):
        # A retrained checkpoint not yet exported would disagree for a reason other than the runtime.
        res["checkpoint_newer_than_onnx"] = os.path.getmtime(ckpt) > os.path.getmtime(model) + 120

    slow_runs = cfg.runs if cfg.smoke else max(3, cfg.runs // 3)  # the slow configurations take ~0.5-1.5 s
    runs = {m: slow_runs if m in ("all", "auto") else cfg.runs for m in MODES}
    # Own process per configuration for its own peak RSS; smoke saves the process starts.
    groups = [runs] if cfg.smoke else [{m: r} for m, r in runs.items()]
    for g in groups:
        try:
            outs, rss = in_child(_recognize_modes, frame, labels, tile_px, g, cfg.threads, warmup, timeout_s=1200)
            for out in outs.values():
                out["peak_rss_mb"] = rss
        except RuntimeError as e:
            outs = {m: {"error": one_line_error(str(e))} for m in g}
        res["recognize"].update(outs)
    return res


def runs_text(r: dict) -> str:
    """``"10 timed runs after a warm-up"`` from results with ``runs`` and (optional) ``warmup``."""
    n, w = r["runs"], r.get("warmup", 1)
    return f"{n} timed run{'s' if n != 1 else ''}" + (" after a warm-up" if w else " without warm-up")


def _ms(t: dict | None) -> tuple[str, str]:
    return ("", "") if not t else (f"{t['median_ms']:.1f}", f"{t['min_ms']:.1f}")


def _met(t: dict | None, target: float) -> str:
    """Target cell: the issues' targets are medians; the fastest run is noted (the machine is shared)."""
    if not t:
        return f"<= {target:g} ms"
    if t["median_ms"] <= target:
        return f"<= {target:g} ms (met)"
    return f"<= {target:g} ms (not met; fastest run {'within' if t['min_ms'] <= target else 'above'})"


def render(results: dict) -> str:
    """Markdown: the detector table and the whole-frame table (see the module docstring)."""
    r = results
    fr, win = r["frame"], r["window"]
    out = [
        f"One generated {fr['size'][0]}x{fr['size'][1]} frame ({fr['scene']}) with {fr['tiles_visible']} fully "
        f"visible tiles, tile long side {fr['tile_px']} px; {r['threads']} threads per model, {runs_text(r)} "
        "(median and fastest). "
        + ("Smoke run: the Recognizer rows shared one process. " if r.get("smoke") else
           "Each row ran in its own process: its peak RSS includes the interpreter, the libraries and the models.")
        + "\n",
        "### Detector, one input\n",
        f"The {win['size']}x{win['size']} detector window of that frame with the most tiles ({win['tiles']} tile "
        "centres; the frame scaled so tiles are 40 px long, as in live use). Agreement is with onnxruntime's raw "
        f"output: largest difference of a box coordinate (px) and of a class score, and how many of onnxruntime's "
        f"boxes (score >= {CONF}, after NMS) the runtime also finds (same class, corners within {AGREE_PX:g} px).\n",
    ]
    rows = []
    for key, label in RUNTIMES.items():
        d = r["detector"].get(key, {})
        if "skipped" in d or "error" in d:
            msg = d.get("skipped") or f"failed: `{d['error']}`"
            rows.append([label, msg, "", "", "", f"<= {TARGET_DETECTOR_MS:g} ms" if key == "onnxruntime" else ""])
            continue
        med, fast = _ms(d)
        if key == "onnxruntime":
            agree = "reference"
        elif "agreement" in d:
            a = d["agreement"]
            agree = (f"box {a['max_box_px']:.2g} px, score {a['max_score']:.2g}; "
                     f"{a['boxes_matched']}/{a['boxes_ref']} boxes")
        else:
            agree = d.get("agreement_error", "n/a")
        rows.append([label, med, fast, d["peak_rss_mb"], agree,
                     _met(d, TARGET_DETECTOR_MS) if key == "onnxruntime" else ""])
    out.append(md_table(["runtime", "median ms", "fastest ms", "peak RSS MiB", "agreement with onnxruntime",
                         "target"], rows))
    ort = r["detector"].get("onnxruntime", {})
    rel = [f"{RUNTIMES[k].split(' (')[0]} {d['min_ms'] / ort['min_ms']:.2g}x the time, "
           f"{d['peak_rss_mb'] - ort['peak_rss_mb']:+.0f} MiB" for k, d in r["detector"].items()
           if k != "onnxruntime" and "min_ms" in d and "min_ms" in ort]
    if rel:
        out.append("Relative to onnxruntime (fastest runs, peak RSS): " + "; ".join(rel) + ".\n")
    if r.get("checkpoint_newer_than_onnx"):
        out.append("**Note:** the checkpoint is newer than the ONNX file (retrained, not exported yet), so "
                   "torch's output differs for that reason too.\n")

    rec = r["recognize"]
    known = rec.get("known", {})
    out.append("### Whole-frame recognition\n")
    out.append("`vision.recognize.Recognizer` on the frame: detector windows (tiles scaled to 40 px), rotated NMS, "
               "pip reading, the classical cross-check (by default of the halves the network is < 0.9 sure of) and "
               "the set constraint. \"Tile size known\" is the live configuration with a calibration profile; "
               "\"searched\" runs the coarse-to-fine scale search first. The last rows split the known-size frame "
               "into the detector over the whole frame and pip reading alone.\n")
    rows = []
    for mode, label in MODES.items():
        d = rec.get(mode, {})
        if "error" in d:
            rows.append([label, f"failed: `{d['error']}`", "", "", "", "", "", ""])
            continue
        med, fast = _ms(d.get("frame"))
        rows.append([label, med, fast, d["frame"]["runs"], d["peak_rss_mb"], f"{d['found']}/{d['visible']}",
                     f"{d['pips_ok']}/{d['up']}", _met(d.get("frame"), TARGET_FRAME_MS) if mode == "known" else ""])
    if "detector_frame" in known:
        med, fast = _ms(known["detector_frame"])
        rows.append([f"detector alone, whole frame ({known['windows']} windows)", med, fast,
                     known["detector_frame"]["runs"], "", "", "", ""])
    if "pip_reading" in known:
        med, fast = _ms(known["pip_reading"])
        rows.append([f"pip reading alone, {known['pip_tiles']} face-up tiles", med, fast,
                     known["pip_reading"]["runs"], "", "", "", ""])
    out.append(md_table(["what", "median ms", "fastest ms", "runs", "peak RSS MiB", "tiles found / visible",
                         "pips right / face-up found", "target"], rows))
    auto = rec.get("auto", {})
    if auto.get("tile_px_used"):
        out.append(f"The scale search settled on a tile long side of {auto['tile_px_used']:.1f} px "
                   f"(labels: {fr['tile_px']} px).\n")
    return "\n".join(out)
