"""Benchmark section: generated footage of whole hands to a scored record (``dominocast review``).

1. Accuracy: one hand of every rule preset (``engine/rulesets/*.toml``) rendered with the
   held-out appearance (surfaces and tile styles training never saw) at 1280x720, 15 fps,
   with one injected mismatched end per hand (:func:`datasets.footage.make_footage`),
   reviewed with the shipped models (:func:`service.review.run_review`) and scored against
   the footage's ground truth (:func:`score_hand`): plays found, tile and points right,
   injected mismatched ends flagged (and, when not, whether the play was missed, misread,
   only flagged as an uncertain read, or read right but not flagged), false mismatched-end
   flags, uncertain-read alerts, latency from the tile at rest to its event.
2. Speed: one short hand at 1920x1080, 30 fps, reviewed in its own process (peak memory its
   own); speed = seconds of footage / seconds of review (model loading excluded).
3. Game boards: hands on printed game boards (dominoes printed round the board, pictures an arm
   uncovers as it lays a tile), a training surface, so a regression check of the tracker on
   pictures of tiles rather than a held-out figure (:data:`BOARD_CASES`).

Rendered footage is cached under ``cfg.scratch/footage``, keyed by its arguments and a hash
of the generator's and the engine's sources (same arguments and code, same frames), so a
rerun only reviews. Latencies are in footage time (event frame - rest frame), so they do
not depend on the machine's load; review speed does.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import statistics
import time
from collections import Counter
from modulefinder import ModuleFinder
from pathlib import Path

import numpy as np

from bench.common import REPO, BenchConfig, in_child, md_table, pct
from vision.sources import FrameSource

TITLE = "Footage to a scored record"

#: Accuracy footage: (width, height) px and frames per second.
ACC_SIZE, ACC_FPS = (1280, 720), 15.0
#: Speed footage: the issue's target camera.
SPEED_SIZE, SPEED_FPS = (1920, 1080), 30.0
#: Speed footage preset: a two-player block hand is among the shortest (~35 s of footage).
SPEED_RULES = "block"
#: Smoke run: one tiny hand, used for both parts, of which only the first seconds are reviewed
#: (each read costs about as much as at full size: the recogniser rescales to its tile size).
SMOKE_RULES, SMOKE_SIZE, SMOKE_FPS, SMOKE_LIMIT_S = "block", (384, 216), 5.0, 7.0
#: Seeds: ``SEED0 + cfg.seed + k`` for the k-th preset (sorted names).
SEED0 = 1000
#: Stop starting new accuracy hands after this many seconds, so the speed part still runs and
#: the section stays under ~15 minutes on a loaded 2-core machine (skipped presets are listed).
BUDGET_S = 720.0
#: A review event may come at most this long before the ground truth's rest frame (s).
EARLY_S = 0.5
TARGETS = {"found": 0.99, "tile_right": 0.99, "points_right": 0.99, "false_flags_per_10": 1.0,
           "latency_median_s": 1.0, "latency_p95_s": 2.0, "speed_x": 3.0}
#: Game-board hands (rules, seed, size, fps; training appearance): seeds whose draw is a printed board,
#: black tiles among ivory pictures and ivory among ivory. Until 2026-12-01 the first two were reviewed
#: wrong (a picture played with a real tile; a tile read while held laid turned).
BOARD_CASES = (("bdc-partnership", 3, (960, 540), 8.0), ("fives-and-threes", 5, (1280, 720), 8.0),
               ("all-fives", 3, (960, 540), 8.0), ("draw", 9, (960, 540), 8.0))
#: The footage renderer: it and the project's modules it imports, at any depth (``_code_digest``), with the rule
#: presets it reads, decide the rendered footage and its ground truth (the cache key). A change elsewhere, even in
#: ``engine/`` (the record format, 2026-12-05: every cached video rendered again for nothing), keeps the cache.
_RENDERER = "datasets/footage.py"
_DATA = ("engine/rulesets/*.toml",)


# --- scoring (pure) ------------------------------------------------------------------

def _key(tile) -> tuple[int, int]:
    """A tile's identity regardless of orientation: ``[6, 1]`` and ``[1, 6]`` -> ``(1, 6)``."""
    return tuple(sorted(tile))


def nonzero(points: dict | None) -> dict:
    """``points`` without its zero entries (side -> points; None -> {})."""
    return {k: v for k, v in (points or {}).items() if v}


def review_plays(rows: list[dict]) -> list[dict]:
    """The play rows of a review that still stand: a ``take_back`` row retracts the latest
    standing play of its tile (the engine took it back), so that play is not a read; a camera's
    ``correction`` row of a play (a tile read unsure, read again clearly: ``replaces`` its ``index``
    in the same game and hand) stands for it with the corrected seat, tile and end.

    Args:
        rows: ``events.jsonl`` rows in order (dicts with at least ``type``).

    Returns:
        The standing ``type == "play"`` rows, in order.
    """
    plays: list[dict | None] = []
    for r in rows:
        if r.get("type") == "play":
            plays.append(r)
        elif r.get("type") == "correction" and r.get("tile") is not None:
            for i, q in enumerate(plays):
                if q is not None and (q.get("game"), q.get("hand"), q.get("index")) == (
                        r.get("game"), r.get("hand"), r.get("replaces")):
                    plays[i] = {**q, **{k: r[k] for k in ("seat", "tile", "end", "confidence") if k in r}}
        elif r.get("type") == "take_back" and r.get("tile") is not None:
            for i in range(len(plays) - 1, -1, -1):
                if plays[i] is not None and _key(plays[i]["tile"]) == _key(r["tile"]):
                    plays[i] = None
                    break
    return [p for p in plays if p is not None]


def match_plays(gt_plays: list[dict], plays: list[dict],
                early_s: float = EARLY_S) -> list[tuple[int | None, str | None]]:
    """Match ground-truth plays (one hand) to review plays.

    Two passes. By identity: each ground-truth play (in order) takes the earliest unused
    review play of the same tile (either orientation) at ``t >= t_gt - early_s``; a tile is
    played once per hand, so this is unambiguous. By time, for those left: the earliest
    unused review play between ``t_gt - early_s`` and the next ground-truth play's rest time
    (the end of the footage for the last) is that play read as another tile (a misread).

    Args:
        gt_plays: ground-truth plays, ``{"tile": [a, b], "t": s}`` at least, sorted by ``t``.
        plays: review play rows, ``{"tile": [a, b], "t": s}`` at least, in order.
        early_s: how far (s) a review event may precede the rest time (rounding of frame times).

    Returns:
        One ``(index into plays or None, "tile" | "time" | None)`` per ground-truth play.
    """
    used: set[int] = set()
    out: list[tuple[int | None, str | None]] = [(None, None)] * len(gt_plays)
    for gi, g in enumerate(gt_plays):
        cand = [i for i, r in enumerate(plays)
                if i not in used and _key(r["tile"]) == _key(g["tile"]) and r["t"] >= g["t"] - early_s]
        if cand:
            i = min(cand, key=lambda i: plays[i]["t"])
            used.add(i)
            out[gi] = (i, "tile")
    for gi, g in enumerate(gt_plays):
        if out[gi][0] is not None:
            continue
        until = gt_plays[gi + 1]["t"] if gi + 1 < len(gt_plays) else float("inf")
        cand = [i for i, r in enumerate(plays) if i not in used and g["t"] - early_s <= r["t"] < until]
        if cand:
            i = min(cand, key=lambda i: plays[i]["t"])
            used.add(i)
            out[gi] = (i, "time")
    return out


def _flag_kinds(row: dict) -> set[str]:
    return {f.get("kind") for f in row.get("flags") or []}


def _by_seat(rows: list[dict], size) -> Counter:
    """Seat -> the sum of ``size(row)`` over ``rows`` (tiles drawn, or passes)."""
    out: Counter = Counter()
    for r in rows:
        out[r["seat"]] += size(r)
    return out


def score_hand(gt: dict, rows: list[dict], early_s: float = EARLY_S) -> dict:
    """Score one hand's review against its ground truth.

    Args:
        gt: the footage's ``ground_truth.json`` (one hand): ``plays`` (each with ``tile``,
            ``end``, ``t``, ``points``, ``mismatched_end``) and ``hands[0]`` (``result``
            with ``awards``, ``scores``).
        rows: the review's ``events.jsonl`` rows.
        early_s: see :func:`match_plays`.

    Returns:
        Counts: ``gt_plays``, ``found`` (a review play matched, by tile or by time),
        ``misread`` (matched by time only: another tile was read), ``tile_right`` (same tile,
        touching half first, same end), ``points_right`` (the play's non-zero points equal;
        the hand-ending play may leave the end-of-hand award to the reveal, where the camera
        scores it), ``extra_plays`` (review plays matched to nothing), ``injected``,
        ``injected_flagged``, ``false_mismatch_flags`` (review plays flagged ``mismatched_end``
        that are not an injected one), ``uncertain_alerts`` (``flag`` rows of kind
        ``uncertain_read``), ``other_flags`` (kind -> count, flag rows of other kinds),
        ``score_right`` (the last announced score equals the hand's, non-zero parts);
        ``latency_s``: event time - rest time (s) of every found play; ``mismatches``: per
        injected mismatch ``{"tile", "t", "status"}`` with status ``flagged`` | ``missed`` (no
        play) | ``misread`` (another tile read) | ``uncertain`` (read, flagged only as an
        uncertain read) | ``not_flagged`` (read, no flag: e.g. on the wrong end).
        Draw games: ``gt_drawn`` / ``drawn`` (tiles drawn by the ground truth / the review's ``draw``
        rows), ``drawn_right`` (per seat, the smaller of the two, summed), ``gt_passes`` / ``passes``
        (pass rows) / ``passes_right`` (likewise per seat), ``boneyard_uncounted`` (the review's
        notice that it could not count the boneyard: no draws followed).
    """
    gt_plays = sorted(gt["plays"], key=lambda g: g["t"])
    plays = review_plays(rows)
    match = match_plays(gt_plays, plays, early_s)
    hand = (gt.get("hands") or [{}])[0]
    awards = nonzero(((hand.get("result") or {}).get("awards")))
    last_index = max((g.get("index", 0) for g in gt_plays), default=None)
    uncertain_rows = [r for r in rows if r.get("type") == "flag" and r.get("kind") == "uncertain_read"]
    out = {"gt_plays": len(gt_plays), "found": 0, "misread": 0, "tile_right": 0, "points_right": 0,
           "extra_plays": len(plays) - sum(1 for i, _ in match if i is not None),
           "injected": 0, "injected_flagged": 0, "false_mismatch_flags": 0,
           "uncertain_alerts": len(uncertain_rows),
           "other_flags": dict(Counter(r.get("kind") for r in rows if r.get("type") == "flag"
                                       and r.get("kind") not in ("uncertain_read", "mismatched_end"))),
           "latency_s": [], "mismatches": []}
    injected_rows: set[int] = set()
    for g, (i, how) in zip(gt_plays, match):
        r = plays[i] if i is not None else None
        if r is not None:
            out["found"] += 1
            out["misread"] += how == "time"
            out["latency_s"].append(round(r["t"] - g["t"], 4))
            if how == "tile" and list(r["tile"]) == list(g["tile"]) and r.get("end") == g["end"]:
                out["tile_right"] += 1
            want = nonzero(g["points"])
            ok = [want]
            if g.get("index", 0) == last_index and awards:
                ok.append(nonzero({k: v - awards.get(k, 0) for k, v in want.items()}))
            out["points_right"] += nonzero(r.get("points")) in ok
        if not g.get("mismatched_end"):
            continue
        out["injected"] += 1
        if r is None:
            status = "missed"
        elif "mismatched_end" in _flag_kinds(r):
            status = "flagged"
            injected_rows.add(i)
        elif how == "time":
            status = "misread"
        elif "uncertain_read" in _flag_kinds(r) or any(u.get("frame") == r.get("frame") for u in uncertain_rows):
            status = "uncertain"
        else:
            status = "not_flagged"
        out["injected_flagged"] += status == "flagged"
        out["mismatches"].append({"tile": list(g["tile"]), "t": g["t"], "status": status})
    out["false_mismatch_flags"] = sum(1 for i, r in enumerate(plays)
                                      if i not in injected_rows and "mismatched_end" in _flag_kinds(r))
    tiles_drawn = lambda g: len(g.get("tiles") or [None])  # noqa: E731
    for key, kind, gt_rows, gt_size, size in (
            ("drawn", "draw", gt.get("draws") or [], tiles_drawn, lambda r: r.get("count", 1)),
            ("passes", "pass", gt.get("passes") or [], lambda g: 1, lambda r: 1)):
        want = _by_seat(gt_rows, gt_size)
        got = _by_seat([r for r in rows if r.get("type") == kind], size)
        out[f"gt_{key}"], out[key] = sum(want.values()), sum(got.values())
        out[f"{key}_right"] = sum(min(n, got[seat]) for seat, n in want.items())
    out["boneyard_uncounted"] = any(r.get("kind") == "boneyard_uncounted" for r in rows)
    scored = [r["score"] for r in rows if isinstance(r.get("score"), dict)]
    out["score_right"] = bool(scored) and nonzero(scored[-1]) == nonzero(hand.get("scores"))
    return out


def latency_stats(lat: list[float]) -> dict:
    """Median and 95th percentile (linear interpolation) of latencies in s; None when empty."""
    if not lat:
        return {"median_s": None, "p95_s": None, "max_s": None, "n": 0}
    return {"median_s": round(float(statistics.median(lat)), 3), "p95_s": round(float(np.percentile(lat, 95)), 3),
            "max_s": round(float(max(lat)), 3), "n": len(lat)}


def summarise(hands: list[dict]) -> dict:
    """Totals and rates over hands scored by :func:`score_hand`.

    Returns:
        ``hands``, summed counts, rates ``found_rate``, ``tile_right_rate``, ``points_right_rate``
        (over ground-truth plays; None without any), ``false_flags_per_10`` (false mismatched-end
        flags per 10 hands), ``latency`` (:func:`latency_stats`), mismatch ``statuses``
        (status -> count) and ``scores_right`` (hands whose final score is right).
    """
    keys = ("gt_plays", "found", "misread", "tile_right", "points_right", "extra_plays", "injected",
            "injected_flagged", "false_mismatch_flags", "uncertain_alerts", "gt_drawn", "drawn", "drawn_right",
            "gt_passes", "passes", "passes_right", "boneyard_uncounted")
    tot = {k: sum(h.get(k, 0) for h in hands) for k in keys}  # results stored before draws were scored lack them
    n = tot["gt_plays"]
    other: Counter = Counter()
    for h in hands:
        other.update(h["other_flags"])
    return {"hands": len(hands), **tot,
            **{f"{k}_rate": (round(tot[k] / n, 4) if n else None) for k in ("found", "tile_right", "points_right")},
            "false_flags_per_10": round(10 * tot["false_mismatch_flags"] / len(hands), 2) if hands else None,
            "latency": latency_stats([x for h in hands for x in h["latency_s"]]),
            "statuses": dict(Counter(m["status"] for h in hands for m in h["mismatches"])),
            "other_flags": dict(other), "scores_right": sum(bool(h["score_right"]) for h in hands)}


# --- footage and review --------------------------------------------------------------

def _renderer_sources() -> list[Path]:
    """The files that decide the rendered footage: :data:`_RENDERER`, the project's modules it imports at any depth
    (imports inside functions too: ``modulefinder`` reads the byte code; only the repository is searched) and
    :data:`_DATA`."""
    finder = ModuleFinder(path=[str(REPO)])
    finder.run_script(str(REPO / _RENDERER))
    found = {Path(m.__file__).resolve() for m in finder.modules.values() if m.__file__}
    return sorted(found | {p.resolve() for pattern in _DATA for p in REPO.glob(pattern)})


def _code_digest() -> str:
    """10 hex digits over the files that decide the footage (:func:`_renderer_sources`)."""
    h = hashlib.sha1()
    for p in _renderer_sources():
        h.update(p.relative_to(REPO).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:10]


def footage(cfg: BenchConfig, rules: str, seed: int, size: tuple[int, int], fps: float,
            hands: int = 1, appearance: str = "test") -> tuple[dict, float | None]:
    """Rendered footage (held-out appearance unless ``appearance="train"``, one injected mismatch
    per hand; ``hands`` consecutive hands of a match), from the cache when there.

    Returns:
        (``make_footage``'s paths ``{"video", "ground_truth", "profile"}``, render seconds or
        None when cached). Older cached versions of the same footage are removed.
    """
    from datasets.footage import make_footage

    look = "" if appearance == "test" else f"{appearance}-"
    stem = f"{rules}-s{seed}-{size[0]}x{size[1]}-{fps:g}fps-{hands}h-{look}"  # the digest follows
    root = cfg.scratch / "footage"
    d = root / (stem + _code_digest())
    paths = {"video": d / "footage.mp4", "ground_truth": d / "ground_truth.json", "profile": d / "profile.json"}
    if all(p.is_file() for p in paths.values()):
        return paths, None
    for old in root.glob(stem + "*"):  # stale: rendered by other code
        shutil.rmtree(old, ignore_errors=True)
    t = time.perf_counter()
    # make_footage moves its three files in together: an interrupted render leaves none of them
    make_footage(rules, seed, d, fps=fps, size=size, appearance=appearance, inject_mismatch=1, hands=hands)
    return paths, time.perf_counter() - t


class _FirstSeconds(FrameSource):
    """The frames of ``source`` with ``t < limit_s`` (a smoke run reviews only the start)."""

    def __init__(self, source, limit_s: float):
        self.source, self.limit_s, self.fps = source, limit_s, source.fps

    def __iter__(self):
        for frame in self.source:
            if frame.t >= self.limit_s:
                return
            yield frame

    def close(self) -> None:
        self.source.close()


def footage_rules(gt: dict):
    """The rule set footage was rendered under: its stored parameters (``rule_params``), or, for footage
    rendered before they were stored, the preset its ``rules`` names."""
    from engine.ruleset import load_ruleset, ruleset_from_params

    if "rule_params" in gt:
        return ruleset_from_params(gt["rule_params"], "the ground truth's rule_params")
    return load_ruleset(gt["rules"])


def review(paths: dict, recognizer, out_dir: Path, limit_s: float | None = None,
           annotate: bool = False) -> tuple[list[dict], dict]:
    """Review one footage with ``recognizer``; returns (events rows, ground truth) and times it.

    Args:
        paths: ``make_footage``'s paths (``video``, ``ground_truth``, ``profile``).
        recognizer: a :class:`vision.recognize.Recognizer` (image, profile -> observations).
        out_dir: the review's output folder (replaced).
        limit_s: review only the footage before this time (s); the ground truth then keeps
            only the plays at rest 2 s before it.
        annotate: also write the annotated video, as ``dominocast review`` does by default.

    Returns:
        (``events.jsonl`` rows, the ground truth with ``_timing`` added: ``{"footage_s",
        "wall_s", "frames", "reads"}``, seconds of footage and of review).
    """
    from calibration.profile import TableProfile
    from service.review import run_review
    from vision.sources import open_source

    gt = json.loads(Path(paths["ground_truth"]).read_text())
    profile = TableProfile.load(paths["profile"])
    shutil.rmtree(out_dir, ignore_errors=True)
    src = open_source(paths["video"])
    if limit_s is not None:
        src = _FirstSeconds(src, limit_s)
        gt["plays"] = [p for p in gt["plays"] if p["t"] <= limit_s - 2.0]
    try:
        t = time.perf_counter()
        s = run_review(src, footage_rules(gt), recognizer.bind(profile), out_dir, profile,
                       annotate=annotate)
        wall = time.perf_counter() - t
    finally:
        src.close()
    rows = [json.loads(line) for line in (out_dir / "events.jsonl").read_text().splitlines() if line.strip()]
    gt["_timing"] = {"footage_s": round(s.footage_s, 2), "wall_s": round(wall, 2), "frames": s.frames,
                     "reads": s.reads}
    return rows, gt


def _speed_child(paths: dict, threads: int, out_dir: str, limit_s: float | None = None,
                 annotate: bool = False) -> dict:
    """Child-process body of the speed part: load the models, review, score (picklable dict)."""
    from vision.recognize import Recognizer

    t = time.perf_counter()
    recognizer = Recognizer(threads=threads)
    load_s = time.perf_counter() - t
    rows, gt = review(paths, recognizer, Path(out_dir), limit_s, annotate)
    sc = score_hand(gt, rows)
    tm = gt["_timing"]
    return {**tm, "load_s": round(load_s, 2),
            "speed_x": round(tm["footage_s"] / tm["wall_s"], 2) if tm["wall_s"] else None,
            "found": sc["found"], "gt_plays": sc["gt_plays"]}


def run(cfg: BenchConfig) -> dict:
    """Both parts; see the module docstring. Returns JSON-able results (``render`` reads them)."""
    from engine.ruleset import available_presets
    from vision.recognize import Recognizer

    start = time.perf_counter()
    presets = [SMOKE_RULES] if cfg.smoke else available_presets()
    size, fps = (SMOKE_SIZE, SMOKE_FPS) if cfg.smoke else (ACC_SIZE, ACC_FPS)
    recognizer = Recognizer(threads=cfg.threads)
    work = cfg.scratch / "footage-review"
    per: dict[str, dict] = {}
    skipped: list[str] = []
    for k, rules in enumerate(presets):
        if time.perf_counter() - start > BUDGET_S:
            skipped.append(rules)
            continue
        seed = SEED0 + cfg.seed + k
        paths, render_s = footage(cfg, rules, seed, size, fps)
        rows, gt = review(paths, recognizer, work / rules, SMOKE_LIMIT_S if cfg.smoke else None)
        sc = score_hand(gt, rows)
        tm = gt["_timing"]
        sc.update(rules=rules, seed=seed, render_s=None if render_s is None else round(render_s, 1), **tm,
                  surface=gt.get("surface"), tile_style=gt.get("tile_style"),
                  speed_x=round(tm["footage_s"] / tm["wall_s"], 2) if tm["wall_s"] else None,
                  players=len(gt["hands"][0]["events"][0].get("hands", {})) if gt.get("hands") else None)
        per[rules] = sc
        print(f"[footage] {rules}: {sc['found']}/{sc['gt_plays']} found, {sc['tile_right']} tile right, "
              f"{sc['points_right']} points right, mismatch {[m['status'] for m in sc['mismatches']]}, "
              f"{tm['footage_s']:.0f} s of footage reviewed in {tm['wall_s']:.0f} s", flush=True)
    if cfg.smoke:  # the same tiny footage; still through a child process
        spaths, srender = footage(cfg, SMOKE_RULES, SEED0 + cfg.seed, SMOKE_SIZE, SMOKE_FPS)
    else:
        spaths, srender = footage(cfg, SPEED_RULES, SEED0 + cfg.seed, SPEED_SIZE, SPEED_FPS)
    sz = SMOKE_SIZE if cfg.smoke else SPEED_SIZE
    runs = {}
    for annotate in (False, True):  # the pipeline alone, then with the CLI's default annotated video
        sp, rss = in_child(_speed_child, {k: str(v) for k, v in spaths.items()}, cfg.threads,
                           str(work / "speed"), SMOKE_LIMIT_S if cfg.smoke else None, annotate, timeout_s=1800)
        sp.update(rules=SMOKE_RULES if cfg.smoke else SPEED_RULES, size=f"{sz[0]}x{sz[1]}",
                  fps=SMOKE_FPS if cfg.smoke else SPEED_FPS, peak_rss_mb=rss,
                  render_s=None if srender is None else round(srender, 1))
        runs[annotate] = sp
    speed = {**runs[False], "annotated": runs[True]}
    boards = {} if cfg.smoke else _boards(cfg, recognizer, work / "boards")
    shutil.rmtree(work, ignore_errors=True)  # review outputs; the footage stays cached
    return {"size": f"{size[0]}x{size[1]}", "fps": fps, "appearance": "test", "inject_mismatch": 1,
            "per_preset": per, "skipped": skipped, "total": summarise(list(per.values())), "speed": speed,
            "targets": TARGETS, "boards": boards}


def _boards(cfg: BenchConfig, recognizer, work: Path) -> dict[str, dict]:
    """Part 3: each of :data:`BOARD_CASES` reviewed and scored as the presets are."""
    out = {}
    for rules, seed, size, fps in BOARD_CASES:
        paths, _ = footage(cfg, rules, seed, size, fps, appearance="train")
        rows, gt = review(paths, recognizer, work / f"{rules}-{seed}")
        sc = score_hand(gt, rows)
        out[f"{rules} s{seed}"] = {"rules": rules, "seed": seed, "size": f"{size[0]}x{size[1]}", "fps": fps,
                                   "surface": gt.get("surface"), "tile_style": gt.get("tile_style"),
                                   **{k: sc[k] for k in ("gt_plays", "found", "misread", "extra_plays", "tile_right",
                                                         "points_right", "score_right")}}
        print(f"[footage] board {rules} s{seed}: {sc['found']}/{sc['gt_plays']} found, {sc['tile_right']} tile right, "
              f"score {'right' if sc['score_right'] else 'wrong'}", flush=True)
    return out


# --- rendering -----------------------------------------------------------------------

def _fmt_s(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f} s"


def render(results: dict) -> str:
    """The section's Markdown: per-preset accuracy table, totals against targets, speed."""
    per, tot, sp, tg = results["per_preset"], results["total"], results["speed"], results["targets"]
    out = [f"One hand of each rule preset, held-out appearance (surfaces and tile styles training never "
           f"saw), {results['size']} at {results['fps']:g} fps, one injected mismatched end per hand, reviewed "
           f"with the shipped models (`service.review.run_review`) and matched to the footage's ground truth: a "
           f"play is found when the review has a play of its tile (or, failing that, any play before the next "
           f"one comes to rest: a misread); extra plays are review plays matched to no play. Points right: the "
           f"play's points as the ground truth's (block games score no play points: there a found play has them "
           f"right). Latency is in footage time: event frame - frame the tile came to rest.\n"]
    looks = sorted({f"{h['surface']} table, {h['tile_style']} tiles" for h in per.values() if h.get("surface")})
    if looks:
        out.append(f"Held-out appearance drawn: {'; '.join(looks)}.\n")
    rows = []
    for name, h in per.items():
        lat = latency_stats(h["latency_s"])
        rows.append([f"`{name}`", h["gt_plays"], f"{h['found']} ({h['misread']} misread)", h["extra_plays"],
                     h["tile_right"],
                     h["points_right"], f"{h['injected_flagged']}/{h['injected']}", h["false_mismatch_flags"],
                     h["uncertain_alerts"], _fmt_s(lat["median_s"]), _fmt_s(lat["p95_s"]),
                     "yes" if h["score_right"] else "no", f"{h['speed_x']}x"])
    out.append(md_table(["preset", "plays", "found", "extra plays", "tile right", "points right", "mismatch flagged",
                         "false mismatch flags", "uncertain-read alerts", "latency median", "latency p95",
                         "final score right", "review speed"], rows))
    if results.get("skipped"):
        out.append(f"Not measured (time budget of the section): {', '.join(results['skipped'])}.\n")
    lat = tot["latency"]
    n = tot["gt_plays"]
    out.append(f"### In total ({tot['hands']} hand{'s' * (tot['hands'] != 1)}, {n} plays)\n")
    out.append(md_table(["what", "measured", "target"], [
        ["plays found", f"{pct(tot['found_rate'])} ({tot['found']} / {n}, {tot['misread']} of them misread)",
         f">= {tg['found']}"],
        ["tile (touching half and end) right", f"{pct(tot['tile_right_rate'])} ({tot['tile_right']} / {n})",
         f">= {tg['tile_right']}"],
        ["points right", f"{pct(tot['points_right_rate'])} ({tot['points_right']} / {n})", f">= {tg['points_right']}"],
        ["injected mismatched ends flagged `mismatched_end`", f"{tot['injected_flagged']} / {tot['injected']}",
         "every one"],
        ["false mismatched-end flags per 10 hands", tot["false_flags_per_10"], f"<= {tg['false_flags_per_10']:g}"],
        ["uncertain-read alerts (umpire checks)", f"{tot['uncertain_alerts']} in {tot['hands']} hands", ""],
        ["other flags", ", ".join(f"{k} {v}" for k, v in sorted(tot["other_flags"].items())) or "none", ""],
        ["tiles drawn from the boneyard, followed by the right seat (draw games)",
         f"{tot['drawn_right']} / {tot['gt_drawn']} ({tot['drawn'] - tot['drawn_right']} extra; "
         f"{tot['boneyard_uncounted']} hand{'s' * (tot['boneyard_uncounted'] != 1)} with the boneyard not counted)", ""],
        ["passes recorded, right seat", f"{tot['passes_right']} / {tot['gt_passes']} "
         f"({tot['passes'] - tot['passes_right']} extra)", ""],
        ["latency, tile at rest to event: median / p95", f"{_fmt_s(lat['median_s'])} / {_fmt_s(lat['p95_s'])}",
         f"<= {tg['latency_median_s']:g} s / <= {tg['latency_p95_s']:g} s"],
        ["plays in the review matched to no play", tot["extra_plays"], ""],
        ["hands whose final score is right", f"{tot['scores_right']} / {tot['hands']}", ""],
    ]))
    missed = [(name, m) for name, h in per.items() for m in h["mismatches"] if m["status"] != "flagged"]
    if missed:
        why = {"missed": "no play found for it", "misread": "another tile was read",
               "uncertain": "read, but flagged only as an uncertain read",
               "not_flagged": "its tile was read, but not flagged (e.g. placed on a matching end)"}
        out.append("Injected mismatched ends not flagged: " + "; ".join(
            f"`{name}` [{m['tile'][0]}|{m['tile'][1]}] at {m['t']:.1f} s: {why.get(m['status'], m['status'])}"
            for name, m in missed) + ".\n")
    out.append("### Review speed\n")
    rows = [[f"`{sp['rules']}` hand, {sp['size']} at {sp['fps']:g} fps, {sp['footage_s']:.1f} s ({sp['frames']} frames)",
             f"{sp['wall_s']:.1f} s, {sp['reads']} reads, {sp['found']}/{sp['gt_plays']} plays found",
             f"**{sp['speed_x']}x** real time", f">= {tg['speed_x']:g}x", f"{sp['peak_rss_mb']:.0f} MB"]]
    if "annotated" in sp:  # results stored before the annotated run was measured have no second row
        a = sp["annotated"]
        rows.append(["the same, writing the annotated video (`review`'s default: VP8, at most 1280 px wide and 10 fps)",
                     f"{a['wall_s']:.1f} s, {a['found']}/{a['gt_plays']} plays found", f"{a['speed_x']}x real time",
                     "", f"{a['peak_rss_mb']:.0f} MB"])
    out.append(md_table(["footage", "review", "speed", "target", "peak RSS"], rows))
    out.append(f"Reviewed in a process of its own (peak RSS: models and decoding included; model loading, "
               f"{sp['load_s']:.1f} s, not counted in the speed). The per-preset speeds above are at "
               f"{results['size']}, {results['fps']:g} fps. Speeds depend on the machine's load (above); "
               f"the accuracy figures do not (every frame is processed, latencies are in footage time).\n")
    boards = results.get("boards") or {}
    if boards:
        out.append("### Game boards with printed dominoes\n")
        out.append("Hands on printed game boards, whose pictures of dominoes an arm uncovers as it lays a tile "
                   "(`BOARD_CASES`; a training surface, so a regression check of the tracker, not a held-out "
                   "figure), one injected mismatched end per hand, scored as above.\n")
        out.append(md_table(["hand", "footage", "look", "plays", "found", "extra plays", "tile right", "points right",
                             "final score right"],
                            [[f"`{b['rules']}` seed {b['seed']}", f"{b['size']} at {b['fps']:g} fps",
                              f"{b['surface']}, {b['tile_style']} tiles", b["gt_plays"],
                              f"{b['found']} ({b['misread']} misread)", b["extra_plays"], b["tile_right"],
                              b["points_right"], "yes" if b["score_right"] else "no"] for b in boards.values()]))
    return "\n".join(out)
