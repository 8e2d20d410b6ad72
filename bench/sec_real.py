"""Benchmark section: the recognizers on real photographs (evaluation only).

The photos in ``../shared/realdata`` (``datasets/real_photos.py``) carry no licence: they are
only measured. Nothing derived from them enters the repository; failures are listed by file
name, and pictures of them (full runs only) go under ``cfg.scratch`` (git-ignored).

Measurements:

1. DDD halves: the learned pip reader (``models/pip_reader.onnx``, network only) and the
   classical blob counter (``vision.pips_classical.count``) on the same rectified half crops
   (``ddd_half_crops``, last photo of each game), cut from each tile's outline and from the
   printed grid cell.
2. DomiBot single tiles: the learned reader and the classical counter on the tile found by
   the classical locator (``bench.real_tiles.locate_tile``), and the whole product path
   (``vision.recognize.Recognizer``, tile size searched) on each photo; tile identity.
3. ``dominocast detect`` on each DDD photo: Recognizer detections (and the classical
   baseline ``bench.baseline.detect_classical``) matched to the labelled tiles through the
   grid homography (``bench.real_tiles.match_detections``).
4. ``review --rules none`` on each DDD game's 20 photos as a time-lapse.
"""

from __future__ import annotations

import copy
import hashlib
import json
import multiprocessing as mp
import os
import statistics
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from bench.common import BenchConfig, md_table, pct
from bench.real_tiles import (DEV_PER_TILE, MOST_FRACTION, board_tiles, half_errors, locate_tile,
                              match_detections, rectify_tile, score_review)
from datasets import real_photos as rd

TITLE = "Real photos (evaluation only; `../shared/realdata`, never trained on)"

SKIP_NOTE = "skipped: ../shared/realdata absent"
#: Full runs read every DOMIBOT_STRIDE-th photo of each DomiBot tile folder (0, 5, ..., 45):
#: all 1400 take ~15-20 min on 2 shared cores (locator ~0.5-0.9 s, Recognizer ~0.3 s per photo).
DOMIBOT_STRIDE = 5
#: Each DDD game uses two double-six sets (every tile appears twice).
DDD_SETS = 2
#: Failure pictures written under ``cfg.scratch`` (full runs): the worst DDD photos.
N_PICTURES = 3

TARGET_HALF = 0.98
TARGET_IDENTITY = 0.97


# --- workers (module level: they run in a spawned pool) --------------------------------

_W: dict = {}


def _init_worker(threads: int) -> None:
    """Load the models once per worker process."""
    from models.runtime import PipReader
    from vision.recognize import Recognizer

    cv2.setNumThreads(1)
    _W["pip"] = PipReader(threads=threads)
    _W["rec1"] = Recognizer(threads=threads, n_sets=1)
    _W["rec_ddd"] = Recognizer(threads=threads, n_sets=DDD_SETS)


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000.0, 1)


def _domibot_one(path: str) -> dict:
    """Read one DomiBot photo three ways; pairs are ``[larger, smaller]`` or None.

    Returns:
        ``{"located", "classical", "learned", "rec_n", "rec_pips", "ms": {...}}``: the
        classical locator's tile read by the counter and by the network, and the
        Recognizer's detections (count, best face-up tile's pair).
    """
    from vision.crops import canonical_polygon, rectified_halves
    from vision.pips_classical import count_tile

    img = cv2.imread(path)
    out: dict = {"located": False, "classical": None, "learned": None, "ms": {}}
    t0 = time.perf_counter()
    quad = locate_tile(img)
    out["ms"]["locate"] = _ms(t0)
    if quad is not None:
        out["located"] = True
        t0 = time.perf_counter()
        a, b = count_tile(rectify_tile(img, quad))
        out["ms"]["classical"] = _ms(t0)
        out["classical"] = sorted((a.pips, b.pips), reverse=True)
        t0 = time.perf_counter()
        halves = np.stack(rectified_halves(img, canonical_polygon(quad), 2 * _W["pip"].half_px))
        out["learned"] = sorted((int(v) for v in _W["pip"].read(halves)), reverse=True)
        out["ms"]["learned"] = _ms(t0)
    t0 = time.perf_counter()
    obs = _W["rec1"](img)  # tile size unknown: searched, as `dominocast detect` without --tile-px
    out["ms"]["recognizer"] = _ms(t0)
    up = [o for o in obs if o.face == "up" and o.pips is not None]
    out["rec_n"] = len(obs)
    out["rec_pips"] = sorted(up[0].pips, reverse=True) if up else None
    return out


def frame_key(image: np.ndarray) -> str:
    """Content key of a (H, W, 3) uint8 frame (links the review's frames to photos read before)."""
    return f"{image.shape}:" + hashlib.blake2b(np.ascontiguousarray(image).data, digest_size=16).hexdigest()


def _to_grid(poly_px: np.ndarray, h: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """(4, 2) tile-top corners (px, pixel-edge convention) -> grid units on the board plane.

    Tile tops stand above the board: undo ``DDD_LIFT`` (scale about the image centre) first.
    """
    c = np.array([shape[1] / 2.0, shape[0] / 2.0])
    p = c + (np.asarray(poly_px, np.float64).reshape(4, 2) - 0.5 - c) / (1.0 + rd.DDD_LIFT)
    return cv2.perspectiveTransform(p[None].astype(np.float64), h)[0]


def _ddd_one(args: tuple[str, int, int, str, bool]) -> dict:
    """Recognizer (and the classical baseline) on one DDD photo, scored against its labels.

    Returns:
        ``{"photo", "game", "move", "key", "obs", "rec": score, "classical": score | error}``;
        ``obs`` are the Recognizer's :class:`TileObservation` list (for the review and the
        failure pictures), a score is :func:`match_detections`' dict plus ``ms`` and ``n``.
    """
    path, g, k, root, with_classical = args
    img = cv2.imread(path)
    moves = rd.load_ddd_game(g, Path(root))
    tiles = board_tiles(moves, k)
    h = rd.ddd_game_homography(g, img, root=Path(root))
    out: dict = {"photo": Path(path).name, "game": g, "move": k, "key": frame_key(img)}
    t0 = time.perf_counter()
    obs = _W["rec_ddd"](img)
    ms = _ms(t0)
    out["obs"] = obs
    dets = [(_to_grid(o.polygon_px, h, img.shape), o.pips if o.face == "up" else None) for o in obs]
    out["rec"] = {**match_detections(dets, tiles), "ms": ms, "n": len(obs), "tile_px": _W["rec_ddd"].last_tile_px}
    if with_classical:
        try:
            from bench.baseline import detect_classical

            t0 = time.perf_counter()
            found = detect_classical(img, tile_px=None)
            ms = _ms(t0)
            dets = [(_to_grid(d["polygon"], h, img.shape), d["pips"] if d["face"] == "up" else None) for d in found]
            out["classical"] = {**match_detections(dets, tiles), "ms": ms, "n": len(found)}
        except Exception as e:  # the baseline is another module: report, keep measuring
            out["classical"] = {"error": f"{type(e).__name__}: {e}"}
    return out


def _map(fn, items: list, workers: int, threads: int) -> list:
    """``fn`` over ``items`` in ``workers`` spawned processes (in this one when workers == 1)."""
    if workers <= 1 or len(items) <= 1:
        if not _W:
            _init_worker(threads)
        return [fn(x) for x in items]
    with mp.get_context("spawn").Pool(workers, initializer=_init_worker, initargs=(1,)) as pool:
        return pool.map(fn, items, chunksize=1)


# --- measurements ------------------------------------------------------------------------

def _cell_name(r: int, c: int) -> str:
    return f"{r + 1}{chr(ord('A') + c)}"


def measure_ddd_halves(root: Path, cfg: BenchConfig) -> dict:
    """Per-half accuracy and time of the learned reader and the classical counter.

    Half crops: 64x64 BGR from :func:`datasets.real_photos.ddd_half_crops` of the last
    photo of each game (smoke: game 1 only); the network resizes them to its 32 px input
    (it was trained with 90-degree rotations, so the grid-aligned crops need no turning).
    """
    from models.runtime import PipReader
    from vision.pips_classical import count

    reader = PipReader(threads=cfg.threads)
    games = rd.DDD_GAMES[:1] if cfg.smoke else rd.DDD_GAMES
    k = rd.DDD_MOVES
    reader.read(np.zeros((40, 64, 64, 3), np.uint8))  # warm-up: the first run allocates
    res: dict = {"games": list(games), "move": k, "threads": cfg.threads}
    for variant, refine in (("tile_outline", True), ("grid_cell", False)):
        n = 0
        ok = {"learned": 0, "classical": 0}
        secs = {"learned": 0.0, "classical": 0.0}
        errors: dict[str, list[str]] = {"learned": [], "classical": []}
        for g in games:
            crops = rd.ddd_half_crops(g, k, size=64, refine=refine, root=root)
            cells = sorted(rd.load_ddd_game(g, root)[k - 1].board)  # the crops' order
            x = np.stack([c for c, _ in crops])
            truth = [p for _, p in crops]
            t0 = time.perf_counter()
            got_l = [int(v) for v in reader.read(x)]  # one batch per photo, as the product reads a frame
            secs["learned"] += time.perf_counter() - t0
            t0 = time.perf_counter()
            got_c = [count(c).pips for c in x]
            secs["classical"] += time.perf_counter() - t0
            n += len(truth)
            for name, got in (("learned", got_l), ("classical", got_c)):
                for (r, c), want, v in zip(cells, truth, got):
                    ok[name] += v == want
                    if v != want:
                        errors[name].append(f"{g}_{k:02d}.jpg {_cell_name(r, c)}: {want}->{v}")
        res[variant] = {"halves": n, **{f"{m}_correct": int(ok[m]) for m in ok},
                        **{f"{m}_accuracy": ok[m] / n for m in ok},
                        **{f"{m}_ms_per_half": round(1000 * secs[m] / n, 3) for m in secs},
                        "errors": errors}
    checks = [rd.ddd_check_cells(g, k, root=root) for g in games]
    res["grid_check"] = {"labelled": sum(c["labelled"] for c in checks),
                         "labelled_ok": float(np.mean([c["labelled_ok"] for c in checks])),
                         "empty": sum(c["empty"] for c in checks),
                         "empty_ok": float(np.mean([c["empty_ok"] for c in checks]))}
    return res


def measure_domibot(root: Path, cfg: BenchConfig, workers: int) -> dict:
    """Tile identity on DomiBot close-ups: learned / classical on the located tile, Recognizer.

    Split: "dev" = the first :data:`DEV_PER_TILE` photos of each tile folder (the locator
    was developed on them), "held_out" = the rest. Full runs take every
    :data:`DOMIBOT_STRIDE`-th photo per folder; smoke runs two photos.
    """
    items = rd.load_domibot(root)
    idx: Counter = Counter()
    chosen = []
    for path, ab in items:
        i = idx[ab]
        idx[ab] += 1
        if i % DOMIBOT_STRIDE == 0:
            chosen.append((path, ab, "dev" if i < DEV_PER_TILE else "held_out"))
    if cfg.smoke:
        chosen = [chosen[0], chosen[2]]  # one dev, one held-out photo of the first tile
    reads = _map(_domibot_one, [str(p) for p, _, _ in chosen], workers, cfg.threads)
    methods = ("learned", "classical", "recognizer")
    stats = {m: {s: Counter() for s in ("dev", "held_out")} for m in methods}
    wrong: dict[str, list[str]] = {m: [] for m in methods}
    times: dict[str, list[float]] = {"locate": [], "classical": [], "learned": [], "recognizer": []}
    both_wrong: Counter = Counter()  # located tile misread by both readers: the outline is the suspect
    for (path, truth, split), r in zip(chosen, reads):
        if r["located"]:
            both_wrong[split] += tuple(r["learned"]) != truth and tuple(r["classical"]) != truth
        for key, v in r["ms"].items():
            times[key].append(v)
        got = {"learned": r["learned"], "classical": r["classical"], "recognizer": r["rec_pips"]}
        for m in methods:
            st = stats[m][split]
            st["n"] += 1
            g = tuple(got[m]) if got[m] is not None else None
            st["found"] += g is not None
            st["correct"] += g == truth
            st["half_errors"] += 2 if g is None else half_errors(truth, g)
            if m == "recognizer":
                st["extra"] += max(0, r["rec_n"] - 1)
            if g != truth:
                wrong[m].append(f"{path.parent.name}/{path.name}: {truth[0]}-{truth[1]} -> "
                                + ("none" if g is None else f"{g[0]}-{g[1]}"))
    out: dict = {"stride": 1 if cfg.smoke else DOMIBOT_STRIDE, "photos": len(chosen), "workers": workers,
                 "threads": 1 if workers > 1 else cfg.threads,
                 "total_photos": len(items)}
    for m in methods:
        out[m] = {}
        for s, st in stats[m].items():
            n = st["n"]
            out[m][s] = {"photos": n, "found": st["found"], "correct": st["correct"],
                         "accuracy": st["correct"] / n if n else None,
                         "half_accuracy": 1 - st["half_errors"] / (2 * n) if n else None,
                         **({"extra": st["extra"]} if m == "recognizer" else {})}
        out[m]["wrong"] = wrong[m]
    out["ms_median"] = {k: round(statistics.median(v), 1) if v else None for k, v in times.items()}
    out["both_wrong"] = {s: both_wrong[s] for s in ("dev", "held_out")}
    return out


def _summary(rows: list[dict]) -> dict:
    """Totals over per-photo scores (rows with an ``error`` are counted apart)."""
    ok = [r for r in rows if "error" not in r]
    if not ok:
        return {"photos": 0, "errors": len(rows), "error": rows[0]["error"] if rows else None}
    tot = {k: sum(r[k] for r in ok) for k in ("labelled", "found", "right", "right_unordered", "extra",
                                              "extra_off_grid")}
    return {"photos": len(ok), "errors": len(rows) - len(ok), "photos_most": sum(r["most"] for r in ok),
            "median_fraction": float(statistics.median(r["fraction"] for r in ok)), **tot,
            "ms_median": round(statistics.median(r["ms"] for r in ok), 1)}


def matching_control(root: Path, games: tuple[int, ...]) -> dict:
    """The matcher fed with known-good detections: can it find tiles that are there?

    Detections = the tile outlines located by :func:`datasets.real_photos.ddd_tile_quads`
    (from the photo of each tile's move, 94 of 100 located) with the labelled pips, scored on
    the last photo of each game (tiles nudged since then stay in place only approximately).

    Returns:
        ``{"located", "found", "right", "extra"}`` summed over ``games``.
    """
    from vision.crops import canonical_polygon

    tot = Counter()
    for g in games:
        moves = rd.load_ddd_game(g, root)
        img = cv2.imread(str(moves[-1].image))
        h = rd.ddd_game_homography(g, img, root=root)
        quads = rd.ddd_tile_quads(g, root)
        dets = []
        for mv in moves:
            if quads.get(mv.index) is None:
                continue
            gp = _to_grid(canonical_polygon(quads[mv.index]), h, img.shape)
            h0 = 0.75 * (gp[0] + gp[3]) / 2 + 0.25 * (gp[1] + gp[2]) / 2
            (r1, c1, p1), (r2, c2, p2) = mv.halves
            near1 = np.hypot(*(h0 - (c1 + 0.5, r1 + 0.5))) <= np.hypot(*(h0 - (c2 + 0.5, r2 + 0.5)))
            dets.append((gp, (p1, p2) if near1 else (p2, p1)))
        s = match_detections(dets, board_tiles(moves, rd.DDD_MOVES))
        tot.update(located=len(dets), found=s["found"], right=s["right"], extra=s["extra"])
    return dict(tot)


def measure_ddd_detect(root: Path, cfg: BenchConfig, workers: int) -> tuple[dict, dict]:
    """Recognizer and classical baseline on each DDD photo (smoke: photos 1 and 2 of game 1).

    Returns:
        ``(results, memo)``: results with per-photo rows and summaries; memo maps
        :func:`frame_key` -> the Recognizer's observations, for :func:`measure_review`.
    """
    jobs = []
    for g in rd.DDD_GAMES[:1] if cfg.smoke else rd.DDD_GAMES:
        for mv in rd.load_ddd_game(g, root)[:2 if cfg.smoke else None]:
            jobs.append((str(mv.image), g, mv.index, str(root), True))
    rows = _map(_ddd_one, jobs, workers, cfg.threads)
    memo = {r["key"]: r.pop("obs") for r in rows}
    per_photo = [{"photo": r["photo"], "rec": r["rec"], "classical": r["classical"]} for r in rows]
    res = {"photos": len(rows), "sets": DDD_SETS, "workers": workers, "most_fraction": MOST_FRACTION,
           "threads": 1 if workers > 1 else cfg.threads,
           "per_photo": per_photo,
           "rec": _summary([r["rec"] for r in rows]),
           "classical": _summary([r["classical"] for r in rows]),
           "control": matching_control(root, rd.DDD_GAMES[:1] if cfg.smoke else rd.DDD_GAMES)}
    return res, memo


class _MemoRecognizer:
    """Recognizer for the review that reuses observations already computed for a frame."""

    def __init__(self, memo: dict, threads: int):
        self.memo, self.threads, self.rec = memo, threads, None
        self.hits = self.misses = 0

    def __call__(self, image: np.ndarray) -> list:
        obs = self.memo.get(frame_key(image))
        if obs is not None:
            self.hits += 1
            return copy.deepcopy(obs)  # the tracker may update observations in place
        self.misses += 1
        if self.rec is None:
            from vision.recognize import Recognizer

            self.rec = Recognizer(threads=self.threads, n_sets=DDD_SETS)
        return self.rec(image)


def measure_review(root: Path, cfg: BenchConfig, memo: dict) -> dict:
    """``review --rules none`` on each DDD game's photos as a time-lapse folder (symlinks only).

    Smoke: the first two photos of game 1 (one scored move).
    """
    from service.review import run_review
    from vision.sources import open_source

    rec = _MemoRecognizer(memo, cfg.threads)
    per_game = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for g in rd.DDD_GAMES[:1] if cfg.smoke else rd.DDD_GAMES:
            moves = rd.load_ddd_game(g, root)[:2 if cfg.smoke else None]
            folder = Path(tmp) / f"game{g}"
            folder.mkdir()
            for m in moves:  # symlinks: the photos are never copied
                (folder / m.image.name).symlink_to(m.image)
            run_review(open_source(folder), None, rec, folder / "review", None, annotate=False)
            rows = [json.loads(x) for x in (folder / "review" / "events.jsonl").read_text().splitlines()]
            per_game.append({"game": g, **score_review(moves, rows)})
    tot = {k: sum(r[k] for r in per_game) for k in ("moves", "placements", "found", "at_its_move", "extra")}
    n = tot["moves"]
    return {**tot, "found_rate": tot["found"] / n if n else None,
            "at_its_move_rate": tot["at_its_move"] / n if n else None, "per_game": per_game,
            "recognizer_reused": rec.hits, "recognizer_run": rec.misses,
            "tracking_s": round(time.perf_counter() - t0, 1)}


def _pictures(root: Path, cfg: BenchConfig, det: dict, memo: dict) -> list[str]:
    """Annotated copies of the worst DDD photos under ``cfg.scratch`` (never committed)."""
    from service.cli_detect import annotate

    rows = sorted(det["per_photo"], key=lambda r: (r["rec"]["fraction"], -r["rec"]["extra"]))[:N_PICTURES]
    out_dir = Path(cfg.scratch) / "real"
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for r in rows:
        img = cv2.imread(str(root / "ddd-train" / r["photo"]))
        obs = memo.get(frame_key(img))
        if obs is None:
            continue
        p = out_dir / f"detect_{Path(r['photo']).stem}.jpg"
        cv2.imwrite(str(p), annotate(img, obs))
        written.append(str(p))
    return written


def _guard(fn, *args):
    """Run one measurement; a failure is reported in the results, the others still run."""
    t0 = time.perf_counter()
    try:
        out = fn(*args)
    except Exception as e:
        traceback.print_exc()
        return {"error": f"{type(e).__name__}: {e}", "wall_s": round(time.perf_counter() - t0, 1)}
    if isinstance(out, tuple):
        res, extra = out
        res["wall_s"] = round(time.perf_counter() - t0, 1)
        return res, extra
    out["wall_s"] = round(time.perf_counter() - t0, 1)
    return out


def run(cfg: BenchConfig) -> dict:
    """Measure everything on ``cfg.realdata``; ``{"skipped": ...}`` when it is absent."""
    if cfg.realdata is None or not Path(cfg.realdata).is_dir():
        return {"skipped": SKIP_NOTE}
    root = Path(cfg.realdata)
    cv2.setNumThreads(1)
    workers = 1 if cfg.smoke else min(2, os.cpu_count() or 1)
    out: dict = {"smoke": cfg.smoke}
    print("[real] DDD halves", file=sys.stderr, flush=True)
    out["ddd_halves"] = _guard(measure_ddd_halves, root, cfg)
    print("[real] DomiBot", file=sys.stderr, flush=True)
    out["domibot"] = _guard(measure_domibot, root, cfg, workers)
    print("[real] DDD detect", file=sys.stderr, flush=True)
    r = _guard(measure_ddd_detect, root, cfg, workers)
    out["ddd_detect"], memo = r if isinstance(r, tuple) else (r, {})
    print("[real] DDD review", file=sys.stderr, flush=True)
    out["review"] = _guard(measure_review, root, cfg, memo)
    if not cfg.smoke and "error" not in out["ddd_detect"]:
        try:
            out["pictures"] = _pictures(root, cfg, out["ddd_detect"], memo)
        except Exception as e:
            out["pictures"] = [f"not written: {type(e).__name__}: {e}"]
    return out


# --- rendering ---------------------------------------------------------------------------

def _err(r: dict) -> str | None:
    return f"**Not measured:** `{r['error']}`\n" if "error" in r else None


def _render_halves(r: dict) -> str:
    out = ["### DDD halves: learned pip reader vs classical blob counter\n",
           f"Every labelled half on the last photo (move {r['move']}) of game(s) "
           f"{', '.join(map(str, r['games']))}, each half once, as a 64x64 rectified crop "
           "(`datasets.real_photos.ddd_half_crops`); both readers get the same crops. The learned reader "
           "is the network alone (`models/pip_reader.onnx`, one batch per photo), the classical one "
           f"`vision.pips_classical.count`. Time per half: the network with {r.get('threads', 2)} onnxruntime "
           "thread(s), the counter on one core.\n"]
    rows = []
    variants = (("tile_outline", "cut from each tile's outline"), ("grid_cell", "cut from the printed grid cell"))
    for variant, what in variants:
        v = r[variant]
        rows.append([f"halves {what}", v["halves"], f"**{pct(v['learned_accuracy'])}** ({v['learned_correct']})",
                     f"**{pct(v['classical_accuracy'])}** ({v['classical_correct']})",
                     f"{v['learned_ms_per_half']:.2f} / {v['classical_ms_per_half']:.1f}", f">= {TARGET_HALF}"])
    out.append(md_table(["crops", "halves", "learned", "classical", "ms per half (learned / classical)", "target"],
                        rows))
    gc = r["grid_check"]
    out.append(f"\nGrid homography check on the same photos: {pct(gc['labelled_ok'])} of {gc['labelled']} labelled "
               f"cells look like a tile half, {pct(gc['empty_ok'])} of {gc['empty']} never-played cells look like "
               "the board. The classical counter's rules were written looking at DDD failures "
               "(`docs/real-photos.md`), so its figure is optimistic; the network never saw a real photo.\n")
    return "\n".join(out)


def _render_domibot(r: dict) -> str:
    sub = (f"every {r['stride']}th photo of each tile folder ({r['photos']} of {r['total_photos']}; "
           "the full set takes ~15-20 min on 2 shared cores)" if r["stride"] > 1 else f"{r['photos']} photos")
    out = ["### DomiBot single tiles: tile identity\n",
           f"One double-six tile per ~100x100 close-up; {sub}. \"Dev\" = the first {DEV_PER_TILE} photos of each "
           "folder (the classical tile locator of the bench, `bench.real_tiles.locate_tile`, was developed on "
           "them), \"held-out\" = the others. The learned reader and the classical counter read the tile that "
           "locator finds; the Recognizer is the product path (`dominocast detect` with the tile size searched), "
           "scored on its best face-up tile. Identity = unordered pair; halves = best pairing. Not a blind "
           "figure for the Recognizer: the tile-size search rules of 2026-11-30 (`docs/recognition.md`) were "
           "written looking at its failures in both splits (and kept only when DDD and the rendered frames did "
           "not get worse); no weights were fitted to these photos.\n"]
    labels = {"learned": "learned reader on the located tile", "classical": "classical counter on the located tile",
              "recognizer": "Recognizer (detector + reader), tile size searched"}
    rows = []
    for m, what in labels.items():
        for s in ("dev", "held_out"):
            v = r[m][s]
            if not v["photos"]:
                continue
            acc = pct(v["accuracy"])
            rows.append([what, s.replace("_", "-"), v["photos"], v["found"],
                         f"**{acc}**" if s == "held_out" else acc, pct(v["half_accuracy"]),
                         v.get("extra", ""), f">= {TARGET_IDENTITY}"])
    out.append(md_table(["method", "split", "photos", "tile found", "identity", "halves", "extra detections",
                         "target"], rows))
    ms = r["ms_median"]
    out.append(f"\nMedian time per photo ({r['workers']} photo(s) at a time, {r.get('threads', 1)} thread(s) each): "
               f"locator "
               f"{ms['locate']} ms, then classical {ms['classical']} ms / learned {ms['learned']} ms; Recognizer "
               f"{ms['recognizer']} ms.")
    bw = r.get("both_wrong")
    if bw:
        out.append(f" Both readers are wrong on the same located tile in {bw['dev']} dev and {bw['held_out']} "
                   "held-out photos: there the locator's outline (wood tables, tiny tiles) is the likelier cause.")
    out.append("\n")
    return "\n".join(out)


def _render_detect(r: dict) -> str:
    out = ["### `dominocast detect` on each DDD photo\n",
           f"Each of the {r['photos']} photos (game G, move MM: `G_MM.jpg`) with the tiles of moves 1..MM on the "
           f"board, recognized with `--sets {r['sets']}` and the tile size searched (no calibration). Detections "
           "are mapped to the printed grid by the photo's homography (tile height corrected) and matched to "
           "the labelled tiles: centre within 0.45 cell of the tile's centre and long axis along the same grid "
           "direction, one detection per tile. **Right** = both halves read right, each at its cell. A photo "
           f"has **most tiles right** when more than {MOST_FRACTION:.0%} of its labelled tiles are right. Extra = "
           "detections matching no labelled tile (off grid: mostly the dominoes printed on the board's track). "
           "Issue target: correct tiles on most photos (> 50 %).\n"]
    rows = []
    for key, what in (("rec", "Recognizer (learned)"), ("classical", "classical baseline (`bench/baseline.py`)")):
        s = r[key]
        if not s.get("photos"):
            rows.append([what, 0, "n/a", "", "", "", "", "", f"not measured: {s.get('error')}"])
            continue
        rows.append([what, s["photos"], f"**{s['photos_most']}** / {s['photos']}", pct(s["median_fraction"], 2),
                     s["labelled"], s["found"], f"{s['right']} ({s['right_unordered']} as a pair)",
                     f"{s['extra']} ({s['extra_off_grid']} off grid)", f"{s['ms_median'] / 1000:.2f}"])
    c = r.get("control")
    if c:
        out.append(f"Control of the matching: fed the tile outlines located by `datasets.real_photos.ddd_tile_quads` "
                   f"({c['located']} tiles) with their labels, on the last photo of each game, it finds {c['found']} "
                   f"and scores {c['right']} right, {c['extra']} extra. Times: {r['workers']} photo(s) at a time, "
                   f"{r.get('threads', 1)} onnxruntime thread(s) each (clean timings: the speed section).\n")
    out.append(md_table(["method", "photos", "photos with most tiles right", "median fraction right",
                         "labelled tiles", "found", "right", "extra", "s per photo (median)"], rows))
    per = []
    for p in r["per_photo"]:
        c = p["classical"]
        cl = "error" if "error" in c else f"{c['found']} / {c['right']} / {c['extra']}"
        q = p["rec"]
        per.append([p["photo"], q["labelled"], q["found"], q["right"], q["extra"], "yes" if q["most"] else "no", cl])
    out.append("\n<details><summary>Per photo</summary>\n")
    out.append(md_table(["photo", "labelled", "found", "right", "extra", "most right",
                         "classical: found / right / extra"], per))
    out.append("</details>\n")
    return "\n".join(out)


def _render_review(r: dict) -> str:
    out = ["### `review --rules none` on the DDD time-lapse\n",
           "Each game's photos reviewed as a time-lapse folder (placements only, 2 sets, no calibration). The "
           "first photo is the starting board, so moves 2..20 are scored: the move's tile (unordered) among "
           "the placements of its photo, or among all placements of the game.\n"]
    n = r["moves"]
    out.append(md_table(["what", "measured", "target"], [
        ["placement at its move with the right tile",
         f"**{pct(r['at_its_move_rate'])}** ({r['at_its_move']} / {n})", ""],
        ["the move's tile among all placements of the game", f"{pct(r['found_rate'])} ({r['found']} / {n})", ""],
        ["extra placements (match no move)", f"{r['extra']} of {r['placements']}", ""],
    ]))
    return "\n".join(out)


def _render_failures(res: dict) -> str:
    out = ["### Failures (by file name; the photos are not copied)\n"]
    d = res.get("ddd_detect", {})
    if "per_photo" in d:
        worst = sorted(d["per_photo"], key=lambda p: (p["rec"]["fraction"], -p["rec"]["extra"]))[:8]
        out.append("- Recognizer, worst DDD photos (right / labelled, extra): " + ", ".join(
            f"`{p['photo']}` {p['rec']['right']}/{p['rec']['labelled']}, {p['rec']['extra']}" for p in worst))
    h = res.get("ddd_halves", {})
    if "tile_outline" in h:
        for m in ("learned", "classical"):
            e = h["tile_outline"]["errors"][m]
            out.append(f"- DDD halves misread by the {m} reader (tile-outline crops, truth->read): "
                       + (", ".join(f"`{x}`" for x in e[:12]) + (" ..." if len(e) > 12 else "") if e else "none"))
    b = res.get("domibot", {})
    if "recognizer" in b:
        for m in ("recognizer", "learned"):
            e = b[m]["wrong"]
            c = Counter(x.split(": ")[1] for x in e)
            out.append(f"- DomiBot, {m}: {len(e)} wrong; most frequent "
                       + ", ".join(f"{k} ({v})" for k, v in c.most_common(6)))
    if res.get("pictures"):
        out.append(f"- Annotated pictures of the worst DDD photos (local only, not committed): "
                   + ", ".join(f"`{Path(p).name}`" for p in res["pictures"]) + " under the scratch folder.")
    return "\n".join(out) + "\n"


def render(results: dict) -> str:
    """Markdown for the section (a one-line note when the real photos were absent)."""
    if "skipped" in results:
        return (f"**{results['skipped']}**: nothing measured here (the photos are not distributed with the "
                "project; see `docs/real-photos.md`).\n")
    parts = ["Real photographs from public repositories without a licence, used only to measure "
             "(`docs/real-photos.md`); nothing was trained or tuned on them except where said.\n"]
    for key, fn in (("ddd_halves", _render_halves), ("domibot", _render_domibot), ("ddd_detect", _render_detect),
                    ("review", _render_review)):
        r = results.get(key, {"error": "missing"})
        parts.append(_err(r) or fn(r))
    parts.append(_render_failures(results))
    return "\n".join(parts)
