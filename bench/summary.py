"""The "targets at a glance" table of ``docs/benchmarks.md``: each issue target, its figure, met or not.

Reads the sections' stored results (the same JSON the detailed tables come from); a figure a
section did not measure (skipped, failed, not run) is left out.
"""

from __future__ import annotations

from typing import Callable

from bench.common import md_table


def _get(stored: dict, section: str, *path):
    r = (stored.get(section) or {}).get("results")
    for k in path:
        if not isinstance(r, dict) or k not in r:
            return None
        r = r[k]
    return r


def _rows(stored: dict) -> list[tuple[str, object, str, Callable[[float], bool]]]:
    """(what, figure, target text, test) for every target the suite measures."""
    g = lambda *p: _get(stored, *p)  # noqa: E731
    svc = g("service", "runs")
    p99 = max((r.get("latency_publish") or {}).get("p99_ms") or 0 for r in svc) if isinstance(svc, list) and svc else None
    return [
        ("held-out synthetic: tile detection recall (conf 0.25)", g("synthetic", "detector", "0.25", "tile", "recall"),
         ">= 0.995", lambda v: v >= 0.995),
        ("held-out synthetic: tile detection precision (conf 0.25)",
         g("synthetic", "detector", "0.25", "tile", "precision"), ">= 0.995", lambda v: v >= 0.995),
        ("held-out synthetic: tiles found, whole pipeline (detector, verifier, set-back colour, glare fit)",
         g("synthetic", "pipeline", "models", "recall"), ">= 0.995", lambda v: v >= 0.995),
        ("held-out synthetic: precision, whole pipeline (detector, verifier, set-back colour, glare fit)",
         g("synthetic", "pipeline", "models", "precision"), ">= 0.995", lambda v: v >= 0.995),
        ("held-out synthetic: tile identity, whole pipeline", g("synthetic", "pipeline", "models", "identity"),
         ">= 0.995", lambda v: v >= 0.995),
        ("real DDD: per-half pips, learned reader", g("real", "ddd_halves", "tile_outline", "learned_accuracy"),
         ">= 0.98", lambda v: v >= 0.98),
        ("real DomiBot: tile identity, held-out, `detect` path",
         g("real", "domibot", "recognizer", "held_out", "accuracy"), ">= 0.97", lambda v: v >= 0.97),
        ("real DDD: photos where `detect` gets most tiles right (of 100)", g("real", "ddd_detect", "rec", "photos_most"),
         "> 50", lambda v: v > 50),
        ("footage: plays found", g("footage", "total", "found_rate"), ">= 0.99", lambda v: v >= 0.99),
        ("footage: tile right", g("footage", "total", "tile_right_rate"), ">= 0.99", lambda v: v >= 0.99),
        ("footage: points right", g("footage", "total", "points_right_rate"), ">= 0.99", lambda v: v >= 0.99),
        ("footage: injected mismatched ends not flagged", None if g("footage", "total", "injected") is None else
         g("footage", "total", "injected") - g("footage", "total", "injected_flagged"), "0", lambda v: v == 0),
        ("footage: false mismatch flags per 10 hands", g("footage", "total", "false_flags_per_10"), "<= 1",
         lambda v: v <= 1),
        ("footage: event latency median, s", g("footage", "total", "latency", "median_s"), "<= 1.0", lambda v: v <= 1.0),
        ("footage: event latency p95, s", g("footage", "total", "latency", "p95_s"), "<= 2.0", lambda v: v <= 2.0),
        ("review speed, 1920x1080 at 30 fps, x real time", g("footage", "speed", "speed_x"), ">= 3", lambda v: v >= 3),
        ("detector, one input, median ms", g("speed", "detector", "onnxruntime", "median_ms"), "<= 40",
         lambda v: v <= 40),
        ("recognition, 1080p frame with ~30 tiles, median ms",
         g("speed", "recognize", "known", "frame", "median_ms"), "<= 150", lambda v: v <= 150),
        ("service fan-out p99 latency, ms (bench size)", p99 or None, "< 100", lambda v: v < 100),
    ]


def render_summary(stored: dict) -> str:
    """The Markdown table; rows whose figure is missing are left out."""
    rows = []
    for what, v, target, ok in _rows(stored):
        if v is None:
            continue
        shown = f"{v:.3f}" if isinstance(v, float) and v < 10 else (f"{v:.1f}" if isinstance(v, float) else str(v))
        rows.append([what, shown, target, "met" if ok(v) else "**not met**"])
    if not rows:
        return ""
    return ("## Targets at a glance\n\nEach target from the issues with the figure measured below "
            "(details and conditions in the sections). DDD (a board game's time-lapse photos) and DomiBot "
            "(close-ups of single tiles) are the real photo sets; footage is generated hands of every preset "
            "in a table look training never saw, one injected mismatched end each; the service runs at the "
            "bench size (4 tables x 10 clients).\n\n" + md_table(["what", "measured", "target", "verdict"], rows))
