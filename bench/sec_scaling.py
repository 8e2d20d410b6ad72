"""Scaling: the calibrated Recognizer as the table fills up and as the frame grows.

The frames are one fixed generated table (:func:`bench.scenes.table_frame`: a line of play,
two hands, a boneyard and strays; every tile fully in view) so that each sweep changes one
thing:

* tiles: 1, 10, 28 and 56 tiles (56 = two double-six sets; the Recognizer is told how many
  sets) in a 1920x1080 frame, tiles 80 px long;
* frame size: the 28-tile table at 1280x720, 1920x1080 and 3840x2160, tiles 53, 80 and 160 px
  long (the same view at a proportionally larger scale).

The tile size is known (as with a calibration profile), so the detector always sees tiles
40 px long: a bigger frame costs its downscaling and the pip-reading crops, not more
windows. The detector alone is timed too: the rest of a frame (pip reading, cross-check,
set constraint) is the part that grows with the tiles. Each configuration runs in its own
process (its peak RSS includes its frame). Smoke mode: one configuration per sweep at
640x360 / 960x540 with 10 tiles, one run without warm-up.
"""

from __future__ import annotations

import math

import numpy as np

from bench.common import BenchConfig, in_child, md_table, timed
from bench.sec_speed import one_line_error, runs_text

TITLE = "Scaling with tiles and frame size"

#: Tile counts of the tiles sweep, at :data:`REF_SIZE`.
TILE_COUNTS = (1, 10, 28, 56)
#: Frame sizes (width, height) of the frame-size sweep, with :data:`FRAME_SWEEP_TILES` tiles.
FRAME_SIZES = ((1280, 720), (1920, 1080), (3840, 2160))
FRAME_SWEEP_TILES = 28
#: Frame size of the tiles sweep; tiles are :data:`REF_TILE_PX` long at its width.
REF_SIZE = (1920, 1080)
REF_TILE_PX = 80.0
#: Target per frame from the issue, ms (for the 1080p frame).
TARGET_FRAME_MS = 150.0


def configurations(smoke: bool) -> list[dict]:
    """The configurations to measure: ``{"tiles", "size": [w, h], "sweeps": [...]}``.

    A configuration in both sweeps (28 tiles at 1920x1080) is measured once.
    """
    if smoke:
        return [{"tiles": 10, "size": [640, 360], "sweeps": ["tiles"]},
                {"tiles": 10, "size": [960, 540], "sweeps": ["frame"]}]
    out: dict[tuple, dict] = {}
    for n in TILE_COUNTS:
        out.setdefault((n, REF_SIZE), {"tiles": n, "size": list(REF_SIZE), "sweeps": []})["sweeps"].append("tiles")
    for size in FRAME_SIZES:
        out.setdefault((FRAME_SWEEP_TILES, size), {"tiles": FRAME_SWEEP_TILES, "size": list(size),
                                                   "sweeps": []})["sweeps"].append("frame")
    return list(out.values())


def _measure(frame: np.ndarray, labels: list[dict], tile_px: float, n_sets: int, threads: int, runs: int,
             warmup: int = 1) -> dict:
    """Time ``Recognizer(n_sets=n_sets)(frame, tile_px=tile_px)`` and its detector alone (``runs`` after ``warmup``).

    Args:
        frame: (H, W, 3) uint8 BGR.
        labels: its ``render_scene`` labels (for the ``match_scene`` counts).
        tile_px: tile long side in ``frame``, px (the known scale).

    Returns:
        ``time`` and ``detector`` (``timed`` dicts, ms), ``windows`` (detector windows), and the counts
        ``found``, ``visible``, ``up``, ``pips_ok``, ``false_pos`` of the last call.
    """
    from vision.evaluate import match_scene
    from vision.recognize import Recognizer

    rec = Recognizer(threads=threads, n_sets=n_sets)
    last: dict = {}

    def call() -> None:
        last["obs"] = rec(frame, tile_px=tile_px)

    t = timed(call, runs, warmup)
    m = match_scene(last["obs"], labels)
    # The detector's share: the rest (pip reading, cross-check, set constraint) is what grows with tiles.
    d = timed(lambda: rec.detector.detect(frame, tile_px), runs, warmup)
    return {"time": t, "detector": d, "windows": rec.detector.windows_for(frame.shape, tile_px), "found": m["found"],
            "visible": m["gt"], "up": m["up"], "pips_ok": m["identity_ok"], "false_pos": m["false_pos"]}


def slope(xs: list[float], ys: list[float]) -> float | None:
    """Least-squares slope of ``ys`` against ``xs`` (None with fewer than two distinct ``xs``)."""
    if len(set(xs)) < 2:
        return None
    return float(np.polyfit(np.asarray(xs, float), np.asarray(ys, float), 1)[0])


def run(cfg: BenchConfig) -> dict:
    """Render and measure every configuration; see the module docstring."""
    from bench.scenes import SET_SIZE, median_tile_px, table_frame, visible_count

    rows = []
    for c in configurations(cfg.smoke):
        w, h = c["size"]
        # Rendered here, not in the measuring child, so that rendering's memory is not counted.
        frame, labels = table_frame(c["tiles"], (w, h), REF_TILE_PX, REF_SIZE[0], seed=cfg.seed)
        tile_px = median_tile_px(labels)
        n_sets = max(1, math.ceil(c["tiles"] / SET_SIZE))
        row = dict(c, tile_px=round(tile_px, 1), n_sets=n_sets, tiles_visible=visible_count(labels))
        try:
            out, rss = in_child(_measure, frame, labels, tile_px, n_sets, cfg.threads, cfg.runs,
                                0 if cfg.smoke else 1, timeout_s=1200)
            row.update(out, peak_rss_mb=rss)
        except RuntimeError as e:
            row["error"] = one_line_error(str(e))
        del frame
        rows.append(row)
    return {"configurations": rows, "threads": cfg.threads, "runs": cfg.runs, "warmup": 0 if cfg.smoke else 1,
            "seed": cfg.seed,
            "ref_tile_px": REF_TILE_PX, "target_frame_ms": TARGET_FRAME_MS}


def _table(rows: list[dict], first: str, first_of) -> str:
    body = []
    for r in rows:
        if "error" in r:
            body.append([first_of(r), f"failed: `{r['error']}`", "", "", "", "", "", "", ""])
            continue
        t = r["time"]
        d = r.get("detector", {}).get("min_ms")
        body.append([first_of(r), f"{t['median_ms']:.1f}", f"{t['min_ms']:.1f}", "" if d is None else f"{d:.1f}",
                     r["peak_rss_mb"], r["tile_px"], r["windows"], f"{r['found']}/{r['visible']}",
                     f"{r['pips_ok']}/{r['up']}"])
    return md_table([first, "median ms", "fastest ms", "detector alone, fastest ms", "peak RSS MiB", "tile px",
                     "detector windows", "tiles found / on table", "pips right / face-up found"], body)


def render(results: dict) -> str:
    """Markdown: one table per sweep and the fitted cost per tile / per megapixel."""
    rows = results["configurations"]
    out = [
        "`vision.recognize.Recognizer` with the tile size known, on one generated table (line of play, two "
        f"hands, a boneyard, strays; every tile fully in view), {results['threads']} threads per model, "
        f"{runs_text(results)} (median and fastest). Each configuration ran in its own process; its peak RSS "
        "includes the frame and both models. With a known tile size the detector works on a frame scaled so "
        "tiles are 40 px long, so the number of detector windows depends on the table area, not on the frame "
        f"size. Target: <= {results['target_frame_ms']:g} ms per 1080p frame.\n",
    ]
    tiles = sorted((r for r in rows if "tiles" in r["sweeps"]), key=lambda r: r["tiles"])
    if tiles:
        w, h = tiles[0]["size"]
        out.append(f"### Tiles on the table ({w}x{h})\n")
        if any(r.get("n_sets", 1) > 1 for r in tiles):
            out.append("More than 28 tiles are two double-six sets (the Recognizer gets `n_sets=2`).\n")
        out.append(_table(tiles, "tiles", lambda r: r["tiles"]))
        ok = [r for r in tiles if "time" in r]
        s = slope([r["tiles"] for r in ok], [r["time"]["min_ms"] for r in ok])
        rest = None
        if all("detector" in r for r in ok):
            rest = slope([r["tiles"] for r in ok], [r["time"]["min_ms"] - r["detector"]["min_ms"] for r in ok])
        if s is not None:
            out.append(f"Fitted cost per extra tile (least squares on the fastest runs): {s:.2f} ms per frame"
                       + ("" if rest is None else f", {rest:.2f} ms of it outside the detector") + ".\n")
    frames = sorted((r for r in rows if "frame" in r["sweeps"]), key=lambda r: r["size"][0] * r["size"][1])
    if frames:
        out.append(f"### Frame size ({frames[0]['tiles']} tiles)\n")
        out.append(_table(frames, "frame", lambda r: f"{r['size'][0]}x{r['size'][1]}"))
        ok = [r for r in frames if "time" in r]
        s = slope([r["size"][0] * r["size"][1] / 1e6 for r in ok], [r["time"]["min_ms"] for r in ok])
        if s is not None:
            out.append(f"Fitted cost per extra megapixel (least squares on the fastest runs): {s:.1f} ms.\n")
    return "\n".join(out)
