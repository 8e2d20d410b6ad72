"""Benchmark section: several hands of a match in one video (``dominocast review`` of a session).

Consecutive hands of one rule preset rendered with the held-out appearance (the table is
cleared between hands, :func:`datasets.footage.make_footage` with ``hands``), reviewed with the
shipped models and scored hand by hand as the footage section scores one hand
(:func:`bench.sec_footage.score_hand`): does the review see each new hand (``hand_cleared``),
put every play in the right hand, and score each hand right (the review's running score gained
over the hand = the hand's points)?
"""

from __future__ import annotations

import shutil
import time

from bench.common import BenchConfig, md_table, pct
from bench.sec_footage import (ACC_FPS, ACC_SIZE, SEED0, SMOKE_FPS, SMOKE_SIZE, nonzero, footage, review,
                               score_hand)

TITLE = "A match in one video"

#: The match: preset and hands (jersey-partnership: four seats, passes, no boneyard).
MATCH_RULES, MATCH_HANDS = "jersey-partnership", 3
#: Smoke run: two short block hands, tiny frames.
SMOKE_RULES, SMOKE_HANDS = "block", 2
#: Seed offset from the footage section's (other hands than its one-hand videos).
SEED_OFFSET = 500


def score_match(gt: dict, rows: list[dict]) -> dict:
    """Score a several-hand review against its ground truth.

    Args:
        gt: the footage's ``ground_truth.json``: ``plays`` (each with ``hand``) and ``hands``
            (each with ``scores``, that hand's points per side).
        rows: the review's ``events.jsonl`` rows (each play, flag and notice with ``hand``).

    Returns:
        ``hands`` (one :func:`score_hand` dict per hand, ``score_right`` recomputed as the
        running score's gain over the hand equal to the hand's points), ``cleared`` (``hand_cleared``
        notices), ``hands_seen`` (distinct ``hand`` numbers on the review's plays).
    """
    per = []
    before: dict = {}
    for n, hand in enumerate(gt["hands"], 1):
        ghand = {"plays": [p for p in gt["plays"] if p.get("hand") == n], "hands": [hand]}
        hrows = [r for r in rows if r.get("hand") == n]
        sc = score_hand(ghand, hrows)
        scored = [r["score"] for r in hrows if isinstance(r.get("score"), dict)]
        after = scored[-1] if scored else before
        gain = {k: after.get(k, 0) - before.get(k, 0) for k in set(after) | set(before)}
        sc["score_right"] = nonzero(gain) == nonzero(hand.get("scores"))
        before = after
        per.append(sc)
    return {"hands": per, "cleared": sum(1 for r in rows if r.get("kind") == "hand_cleared"),
            "hands_seen": len({r.get("hand") for r in rows if r.get("type") == "play"})}


def run(cfg: BenchConfig) -> dict:
    """Render (or reuse) the match footage, review it, score it; JSON-able results."""
    from vision.recognize import Recognizer

    rules, hands = (SMOKE_RULES, SMOKE_HANDS) if cfg.smoke else (MATCH_RULES, MATCH_HANDS)
    size, fps = (SMOKE_SIZE, SMOKE_FPS) if cfg.smoke else (ACC_SIZE, ACC_FPS)
    seed = SEED0 + SEED_OFFSET + cfg.seed
    paths, render_s = footage(cfg, rules, seed, size, fps, hands=hands)
    work = cfg.scratch / "match-review"
    t = time.perf_counter()
    rows, gt = review(paths, Recognizer(threads=cfg.threads), work)
    wall = time.perf_counter() - t
    shutil.rmtree(work, ignore_errors=True)
    sc = score_match(gt, rows)
    return {"rules": rules, "n_hands": hands, "seed": seed, "size": f"{size[0]}x{size[1]}", "fps": fps,
            "surface": gt.get("surface"), "tile_style": gt.get("tile_style"), "footage_s": gt["_timing"]["footage_s"],
            "wall_s": round(wall, 1), "render_s": None if render_s is None else round(render_s, 1), **sc}


def render(results: dict) -> str:
    """The section's Markdown: one row per hand, then the hand changes seen."""
    r = results
    out = [f"{r['n_hands']} consecutive hands of `{r['rules']}` in one video ({r['footage_s']:.0f} s, {r['size']} at "
           f"{r['fps']:g} fps, seed {r['seed']}; held-out appearance: {r['surface']} table, {r['tile_style']} tiles; "
           f"one injected mismatched end per hand), reviewed in {r['wall_s']:.0f} s and scored hand by hand as in "
           f"the section above. Score right: the review's running score gained over the hand equals the hand's "
           f"points.\n"]
    rows = []
    for n, h in enumerate(r["hands"], 1):
        rows.append([n, h["gt_plays"], f"{h['found']} ({h['misread']} misread)", h["extra_plays"], h["tile_right"],
                     h["points_right"], f"{h['injected_flagged']}/{h['injected']}", h["uncertain_alerts"],
                     "yes" if h["score_right"] else "no"])
    out.append(md_table(["hand", "plays", "found", "extra plays", "tile right", "points right", "mismatch flagged",
                         "uncertain-read alerts", "score right"], rows))
    n = sum(h["gt_plays"] for h in r["hands"])
    found = sum(h["found"] for h in r["hands"])
    right = sum(h["tile_right"] for h in r["hands"])
    out.append(f"New hands seen (`hand_cleared`): {r['cleared']} of {r['n_hands'] - 1}; plays found {pct(found / n)} "
               f"({found} / {n}), tile right {pct(right / n)}; hands scored right "
               f"{sum(h['score_right'] for h in r['hands'])} / {r['n_hands']}.\n")
    return "\n".join(out)
