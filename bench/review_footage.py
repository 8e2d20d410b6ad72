"""Benchmark of ``dominocast review`` on generated footage against its ground truth.

    .venv/bin/python bench/review_footage.py --hands 5 --appearance test --mismatch 1

For each hand: render footage (``datasets.footage.make_footage``, held-out appearance,
injected mismatched ends), review it with the shipped models, and match the review's plays
to the ground truth's by tile identity. Reports: plays found, tile (touching half and end)
right, points right, injected mismatched ends flagged, false mismatched-end flags, event
latency (event time - time the tile came to rest), review speed (x real time) and peak
memory. Writes ``bench/results/review_footage.json``.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import tempfile
import time
from pathlib import Path

from calibration.profile import TableProfile
from datasets.footage import make_footage
from engine.ruleset import load_ruleset
from service.review import run_review
from vision.recognize import Recognizer
from vision.sources import open_source


def score_hand(gt: dict, rows: list[dict]) -> dict:
    """Compare one hand's ground-truth plays with the review's rows (counts and latencies)."""
    plays = [r for r in rows if r["type"] == "play"]
    flags = [r for r in rows if r["type"] == "flag"]
    used: set[int] = set()
    out = {"gt_plays": 0, "found": 0, "tile_right": 0, "points_right": 0, "injected": 0, "injected_flagged": 0,
           "false_mismatch_flags": 0, "latency_s": []}
    matched_mismatch_frames = set()
    for g in gt["plays"]:
        out["gt_plays"] += 1
        key = sorted(g["tile"])
        cand = [i for i, r in enumerate(plays) if i not in used and sorted(r["tile"]) == key]
        if g["mismatched_end"]:
            out["injected"] += 1
        if not cand:
            continue
        i = cand[0]
        used.add(i)
        r = plays[i]
        out["found"] += 1
        out["latency_s"].append(r["t"] - g["t"])
        if r["tile"] == g["tile"] and r["end"] == g["end"]:
            out["tile_right"] += 1
        if {k: v for k, v in r["points"].items() if v} == {k: v for k, v in g["points"].items() if v}:
            out["points_right"] += 1
        if g["mismatched_end"] and any(f.get("kind") == "mismatched_end" for f in r["flags"]):
            out["injected_flagged"] += 1
            matched_mismatch_frames.add(r["frame"])
    out["false_mismatch_flags"] = sum(1 for f in flags if f.get("kind") == "mismatched_end"
                                      and f.get("frame") not in matched_mismatch_frames)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="lisa-b-all-fives")
    ap.add_argument("--hands", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--appearance", default="test")
    ap.add_argument("--mismatch", type=int, default=1)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--fps", type=float, default=15.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default="bench/results/review_footage.json")
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    recognizer = Recognizer(threads=args.threads)
    totals: dict = {}
    per_hand = []
    footage_s = wall_s = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.hands):
            d = Path(tmp) / f"hand{k}"
            paths = make_footage(args.rules, args.seed + k, d, fps=args.fps, size=(w, h),
                                 appearance=args.appearance, inject_mismatch=args.mismatch)
            gt = json.loads(Path(paths["ground_truth"]).read_text())
            profile = TableProfile.load(paths["profile"])
            src = open_source(paths["video"])
            start = time.perf_counter()
            summary = run_review(src, load_ruleset(args.rules), lambda im: recognizer(im, profile), d / "review",
                                 profile, annotate=False)
            wall = time.perf_counter() - start
            src.close()
            rows = [json.loads(line) for line in (d / "review" / "events.jsonl").read_text().splitlines()]
            res = score_hand(gt, rows)
            res.update(seed=args.seed + k, footage_s=summary.footage_s, wall_s=round(wall, 2))
            per_hand.append(res)
            footage_s += summary.footage_s
            wall_s += wall
            for key, v in res.items():
                if isinstance(v, (int, float)) and key not in ("seed", "footage_s", "wall_s"):
                    totals[key] = totals.get(key, 0) + v
            print(f"hand {k}: {res['found']}/{res['gt_plays']} found, {res['tile_right']} tile right, "
                  f"{res['points_right']} points right, mismatches {res['injected_flagged']}/{res['injected']}, "
                  f"false flags {res['false_mismatch_flags']}, {summary.footage_s:.0f} s in {wall:.0f} s")
    lat = [x for r in per_hand for x in r["latency_s"]]
    n = max(1, totals.get("gt_plays", 0))
    report = {
        "rules": args.rules, "hands": args.hands, "appearance": args.appearance, "size": args.size, "fps": args.fps,
        "plays_found": totals.get("found", 0) / n, "tile_right": totals.get("tile_right", 0) / n,
        "points_right": totals.get("points_right", 0) / n,
        "injected_flagged": f"{totals.get('injected_flagged', 0)}/{totals.get('injected', 0)}",
        "false_flags_per_10_hands": 10 * totals.get("false_mismatch_flags", 0) / max(1, args.hands),
        "latency_median_s": statistics.median(lat) if lat else None,
        "latency_p95_s": sorted(lat)[int(0.95 * (len(lat) - 1))] if lat else None,
        "speed_x_realtime": footage_s / wall_s if wall_s else None,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "per_hand": per_hand,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2))
    for key, v in report.items():
        if key != "per_hand":
            print(f"{key:>26}: {v:.3f}" if isinstance(v, float) else f"{key:>26}: {v}")


if __name__ == "__main__":
    main()
