"""Recognition speed on one 1920x1080 rendered frame with about 30 tiles.

    .venv/bin/python bench/recognize_speed.py [--runs 20] [--threads 2]

Measures (median and fastest wall time over ``--runs`` runs after one warm-up; the
fastest run is the better estimate when other processes share the 2 cores - the
1-minute load average is recorded):

* ``recognize_known_scale_ms``: the live configuration - tile size known (from the
  calibration profile or a fixed camera), detection windows + pip reading + the
  classical cross-check of uncertain halves (the default) + the set constraint;
* ``recognize_check_all_ms``: the same with the classical counter on every half;
* ``recognize_no_cross_check_ms``: the same without the classical counter;
* ``recognize_auto_scale_ms``: tile size unknown (coarse-to-fine search first);
* ``detector_window_ms``: one detector pass on one input square (320 x 320 px);
* ``pip_reading_ms``: pip reading alone (crops + network + cross-check) for the frame's tiles;
* ``peak_rss_mb``: peak resident memory of the process (``resource.getrusage``).

Targets (reported, not gated): <= 150 ms per frame, <= 40 ms for the detector alone.
Writes ``bench/results/recognize_speed.json`` and prints a table.  Models come from
``models/`` (or ``$DOMINOCAST_MODELS``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_FRAME_MS, TARGET_DETECTOR_MS = 150.0, 40.0


def bench_frame(n_target: int = 30, tile_px: float = 85.0, seed: int = 7) -> tuple[np.ndarray, list[dict], int]:
    """Render the first scene (seeds ``[seed, i]``) with ``n_target`` +- 4 fully visible tiles.

    Returns ``(frame (1080, 1920, 3) uint8, labels, i)``.
    """
    from datasets.render import scene as SC

    best = None
    for i in range(200):
        rng = np.random.default_rng([seed, i])
        spec = SC.sample_scene(rng, "val", 1920, 1080, (tile_px, tile_px))
        n = len(spec.placements)
        if abs(n - n_target) <= 4:
            frame, labels = SC.render_scene(spec)
            vis = sum(1 for l in labels if l["visible"] >= 0.9)
            if abs(vis - n_target) <= 4:
                return frame, labels, i
            if best is None or abs(vis - n_target) < abs(best[2] - n_target):
                best = (frame, labels, vis, i)
    if best is None:
        raise RuntimeError("no scene with about the wanted number of tiles")
    return best[0], best[1], best[3]


def _median_ms(fn, runs: int) -> tuple[float, float]:
    fn()  # warm-up
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t) * 1000.0)
    return round(statistics.median(ts), 2), round(min(ts), 2)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2, help="onnxruntime intra-op threads per model")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "recognize_speed.json")
    a = ap.parse_args(argv)

    import cv2
    from rich.console import Console
    from rich.table import Table

    from vision.recognize import DEFAULT_DETECTOR, DEFAULT_PIP_READER, Recognizer

    frame, labels, scene = bench_frame()
    gt_visible = sum(1 for l in labels if l["visible"] >= 0.9)
    tile_px = float(np.median([l["long_px"] for l in labels]))
    rec = Recognizer(threads=a.threads)  # default: cross-check uncertain halves
    rec_nocc = Recognizer(threads=a.threads, cross_check="none")
    rec_all = Recognizer(threads=a.threads, cross_check="all")

    res: dict = {"min_ms": {}}  # medians at the top level, fastest runs under "min_ms"

    def timed(key: str, fn, runs: int) -> None:
        res[key], res["min_ms"][key] = _median_ms(fn, runs)

    timed("recognize_known_scale_ms", lambda: rec(frame, tile_px=tile_px), a.runs)
    timed("recognize_no_cross_check_ms", lambda: rec_nocc(frame, tile_px=tile_px), a.runs)
    timed("recognize_check_all_ms", lambda: rec_all(frame, tile_px=tile_px), max(3, a.runs // 4))
    timed("recognize_auto_scale_ms", lambda: rec(frame), max(3, a.runs // 4))
    sq = cv2.resize(frame, (rec.detector.size, rec.detector.size), interpolation=cv2.INTER_AREA)
    timed("detector_window_ms", lambda: rec.detector.infer(sq), a.runs)
    dets = rec.detector.detect(frame, tile_px)
    n_windows = rec.detector.windows_for(frame.shape, tile_px)
    timed("detector_frame_ms", lambda: rec.detector.detect(frame, tile_px), a.runs)
    from vision.crops import canonical_polygon

    up = np.stack([canonical_polygon(p) for p, c in zip(dets.polygons, dets.classes) if c == 0])
    timed("pip_reading_ms", lambda: rec.reader.read(frame, up), a.runs)
    timed("pip_reading_check_all_ms", lambda: rec_all.reader.read(frame, up), max(3, a.runs // 4))
    timed("pip_reading_no_cross_check_ms", lambda: rec_nocc.reader.read(frame, up), a.runs)
    obs = rec(frame, tile_px=tile_px)
    obs_auto = rec(frame)
    from vision.evaluate import match_scene

    m = match_scene(obs, labels)
    res["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)
    res.update({
        "frame": "1920x1080 rendered (datasets.render.scene, split val, seed [7, %d])" % scene,
        "tile_long_px": round(tile_px, 1), "tiles_visible": gt_visible, "tiles_found": m["found"],
        "tiles_face_up": m["up"], "identity_ok": m["identity_ok"], "detections": len(obs),
        "detections_auto_scale": len(obs_auto), "auto_tile_px": rec.last_tile_px,
        "detector_windows": n_windows, "detector_input_px": rec.detector.size, "runs": a.runs,
        "threads": a.threads, "cpu": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "load_avg_1min": round(os.getloadavg()[0], 2),
        "models": {"detector": DEFAULT_DETECTOR.name, "pip_reader": DEFAULT_PIP_READER.name,
                   "detector_bytes": DEFAULT_DETECTOR.stat().st_size},
        "targets": {"frame_ms": TARGET_FRAME_MS, "detector_ms": TARGET_DETECTOR_MS},
    })
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(res, indent=2) + "\n")

    t = Table(title=f"recognition speed ({a.threads} threads, {a.runs} runs; load {res['load_avg_1min']})")
    t.add_column("what")
    t.add_column("median ms", justify="right")
    t.add_column("min ms", justify="right")
    t.add_column("target", justify="right")
    rows = [("frame, tile size known", "recognize_known_scale_ms", f"<= {TARGET_FRAME_MS:g}"),
            ("frame, classical cross-check of all halves", "recognize_check_all_ms", ""),
            ("frame, no classical cross-check", "recognize_no_cross_check_ms", ""),
            ("frame, tile size searched", "recognize_auto_scale_ms", ""),
            (f"detector, one {rec.detector.size} px input", "detector_window_ms", f"<= {TARGET_DETECTOR_MS:g}"),
            (f"detector, whole frame ({n_windows} windows)", "detector_frame_ms", ""),
            (f"pip reading, {len(up)} face-up tiles", "pip_reading_ms", ""),
            ("pip reading, cross-check all halves", "pip_reading_check_all_ms", ""),
            ("pip reading, no cross-check", "pip_reading_no_cross_check_ms", "")]
    for label, key, target in rows:
        t.add_row(label, str(res[key]), str(res["min_ms"][key]), target)
    t.add_row("peak RSS, MB", str(res["peak_rss_mb"]), "", "")
    t.add_row("tiles found / visible", f"{m['found']} / {gt_visible}", "", "")
    t.add_row("pips right / face-up found", f"{m['identity_ok']} / {m['up']}", "", "")
    Console().print(t)
    print(f"wrote {a.out}")
    return res


if __name__ == "__main__":
    main()
