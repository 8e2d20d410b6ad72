"""Measure the classical pip counter (vision/pips_classical.py) on real photographs.

    .venv/bin/python bench/real_pips_classical.py [--root PATH] [--out JSON]
        [--workers 2] [--domibot-every N]

(a) DDD: per-half accuracy of ``count`` on ``ddd_half_crops`` of the last photo of every
    game (each half once), with the tile-outline crops (default) and with the plain
    grid-cell crops.
(b) DomiBot: each ~100x100 photo holds one tile; it is located classically (see
    :func:`locate_tile`), rectified to (H, 2H), split, counted; the score is tile
    identity (unordered pair equality). The locator was developed looking only at the
    first 10 photos of each tile folder ("dev"); the other 40 are reported separately
    ("held-out").

Prints a table and writes ``bench/results/real_pips_classical.json``. The photos carry
no licence: nothing derived from them (crops, images) is written, only numbers.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from datasets import real_photos as realdata  # noqa: E402
from vision.pips_classical import count, count_tile  # noqa: E402

DEV_PER_TILE = 10


# --- DomiBot: classical single-tile locator ------------------------------------------

def _tile_features(mask: np.ndarray, lab: np.ndarray, grad: np.ndarray,
                   grad_ref: float) -> tuple[float, tuple] | None:
    """Score in [0, 1] of how much a region looks like a whole domino, and its minAreaRect.

    ``mask`` (H, W) uint8 0/1 marks the region. A domino's outline (holes filled)
    fills its minimum-area rectangle with aspect ~2; its face is uniform apart from the
    pips; the outline runs along strong edges; the inside differs in colour from a ring
    just outside (a patch of face between pips fails this); it lies rather near the
    photo centre. Returns None for regions failing the cheap shape checks.
    """
    h, w = mask.shape
    cs, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cs:
        return None
    cnt = max(cs, key=cv2.contourArea)
    rect = cv2.minAreaRect(cnt)
    (cx, cy), (rw, rh), ang = rect
    short, long_ = sorted((rw, rh))
    if short < 6 or not 1.3 <= long_ / short <= 3.2:
        return None
    fill = cv2.contourArea(cnt) / (rw * rh)
    if fill < 0.6:
        return None
    pad = max(2.0, 0.25 * short)
    x, y, bw, bh = cv2.boundingRect(cnt)
    p = int(pad) + 2
    x0, y0, x1, y1 = max(0, x - p), max(0, y - p), min(w, x + bw + p), min(h, y + bh + p)
    filled = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(filled, [cnt - [x0, y0]], -1, 1, thickness=cv2.FILLED)
    outer = np.zeros_like(filled)
    box = cv2.boxPoints(((cx - x0, cy - y0), (rw + 2 * pad, rh + 2 * pad), ang))
    cv2.fillConvexPoly(outer, box.astype(np.int32), 1)
    sub = lab[y0:y1, x0:x1]
    ring = (outer > 0) & (filled == 0)
    if ring.sum() < 10:
        return None
    face = sub[filled > 0]
    light = face[face[:, 0] >= np.percentile(face[:, 0], 25)]  # drop the pips
    s_uni = float(np.exp(-float(np.mean(light.std(0))) / 10.0))
    c = cnt.reshape(-1, 2)
    s_edge = min(1.0, float(np.mean(grad[c[:, 1], c[:, 0]])) / grad_ref)
    around = sub[ring]
    around = around[around[:, 0] >= np.percentile(around[:, 0], 40)]  # pips around a
    d = float(np.linalg.norm(np.median(light, 0) - np.median(around, 0)))  # strip of face
    s_con = min(1.0, d / 30.0)
    s_aspect = float(np.exp(-abs(np.log(long_ / short / 2.0)) / 0.2))
    s_size = 1.0 if 0.01 <= rw * rh / (h * w) <= 0.6 else 0.2
    centre = np.hypot((cx - w / 2) / w, (cy - h / 2) / h)
    s_big = min(1.0, (rw * rh / (h * w) / 0.1) ** 0.25)  # prefer the whole tile to a part
    score = (min(1.0, fill / 0.9) ** 2 * s_aspect * s_size * s_uni * s_edge * s_con * s_big
             * np.exp(-centre / 0.5))
    return float(score), rect


def _threshold_regions(lab: np.ndarray):
    """Yield (H, W) uint8 masks: components above a ladder of thresholds.

    Channels: lightness, "whiteness" (lightness minus chroma: ivory, not wood) and Lab b
    (ivory is yellower than white paper). At some level the tile, brighter or more
    ivory than its immediate surroundings, separates from the table whatever the
    lighting gradient (vignetting): a poor man's MSER.
    """
    h, w = lab.shape[:2]
    chroma = np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)
    white = np.clip(lab[..., 0] - 2 * chroma, 0, 255)
    l8 = np.clip(lab[..., 0], 0, 255).astype(np.uint8)
    edges = cv2.Canny(l8, 20, 50) > 0  # a tile's outline: cut it off the table there
    k = max(3, int(0.04 * min(h, w)) | 1)
    k_close = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    for ch in (lab[..., 0], white, lab[..., 2]):
        for t in np.unique(np.percentile(ch, np.arange(30, 99.5, 3)).astype(np.int32)):
            above = (ch > t).astype(np.uint8)
            bridged = cv2.morphologyEx(above, cv2.MORPH_CLOSE, k_close)  # over the divider
            for m in (above, bridged, above & ~edges):
                n, cc, st, _ = cv2.connectedComponentsWithStats(m.astype(np.uint8))
                for i in range(1, n):
                    if 0.004 * h * w <= st[i, cv2.CC_STAT_AREA] <= 0.7 * h * w:
                        yield (cc == i).astype(np.uint8)


def _grabcut_region(img: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray | None:
    """(H, W) uint8 mask of the largest GrabCut foreground inside ``box`` (x, y, w, h).

    GrabCut runs on the box grown by a quarter (the local table is the background
    model), which is also much faster than the whole photo.
    """
    h, w = img.shape[:2]
    x, y, bw, bh = box
    g = max(4, int(0.25 * max(bw, bh)))
    x0, y0, x1, y1 = max(0, x - g), max(0, y - g), min(w, x + bw + g), min(h, y + bh + g)
    sub = np.ascontiguousarray(img[y0:y1, x0:x1])
    rect = (max(1, x - x0), max(1, y - y0),
            min(bw, x1 - x0 - 1 - max(1, x - x0)), min(bh, y1 - y0 - 1 - max(1, y - y0)))
    if rect[2] < 6 or rect[3] < 6:
        return None
    gc = np.zeros(sub.shape[:2], np.uint8)
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    try:
        cv2.grabCut(sub, gc, rect, bgd, fgd, 3, cv2.GC_INIT_WITH_RECT)
    except cv2.error:
        return None
    m = ((gc == cv2.GC_FGD) | (gc == cv2.GC_PR_FGD)).astype(np.uint8)
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, cc, st, _ = cv2.connectedComponentsWithStats(m)
    if n < 2:
        return None
    out = np.zeros((h, w), np.uint8)
    out[y0:y1, x0:x1] = cc == 1 + int(np.argmax(st[1:, cv2.CC_STAT_AREA]))
    return out


def locate_tile(img: np.ndarray) -> np.ndarray | None:
    """Find the single tile in a close-up photo.

    Candidate regions come from a threshold ladder (:func:`_threshold_regions`) and
    from GrabCut seeded with a centred box and with the best threshold candidates; the
    region that looks most like a domino (:func:`_tile_features`) wins.

    Args:
        img: (H, W, 3) uint8 BGR photo with one tile.

    Returns:
        (4, 2) float32 corners (``cv2.boxPoints`` of the best rectangle) in image pixels,
        or ``None`` if no region looks like a 1:2 rectangle.
    """
    h, w = img.shape[:2]
    lab = cv2.cvtColor(cv2.GaussianBlur(img, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    grad = cv2.magnitude(cv2.Sobel(lab[..., 0], cv2.CV_32F, 1, 0),
                         cv2.Sobel(lab[..., 0], cv2.CV_32F, 0, 1))
    grad = cv2.dilate(grad, np.ones((3, 3), np.uint8))  # tolerate a 1 px outline offset
    grad_ref = max(float(np.percentile(grad, 90)), 1.0)
    scored = []
    for m in _threshold_regions(lab):
        f = _tile_features(m, lab, grad, grad_ref)
        if f is not None:
            scored.append(f)
    scored.sort(key=lambda f: -f[0])
    seeds = [(w // 10, h // 10, w - 2 * (w // 10), h - 2 * (h // 10))]
    for j, (_, rect) in enumerate(scored[:2]):  # around the best candidates
        x, y, bw, bh = cv2.boundingRect(cv2.boxPoints(rect).astype(np.int32))
        for grow in ((0.2, 0.7) if j == 0 else (0.7,)):
            px = py = int(grow * max(bw, bh)) + 2
            x0, y0 = max(1, x - px), max(1, y - py)
            seeds.append((x0, y0, min(w - 1, x + bw + px) - x0, min(h - 1, y + bh + py) - y0))
    for box in seeds:
        m = _grabcut_region(img, box)
        f = _tile_features(m, lab, grad, grad_ref) if m is not None else None
        if f is not None:
            scored.append(f)
    if not scored:
        return None
    best = max(scored, key=lambda f: f[0])
    if best[0] < 0.01:
        return None
    return cv2.boxPoints(best[1]).astype(np.float32)


def rectify_tile(img: np.ndarray, quad: np.ndarray, short_px: int = 64) -> np.ndarray:
    """Warp a tile quad (4, 2) to a landscape (short_px, 2*short_px, 3) uint8 crop."""
    q = quad.astype(np.float32)
    if np.linalg.norm(q[1] - q[0]) < np.linalg.norm(q[2] - q[1]):
        q = np.roll(q, -1, axis=0)  # make q0->q1 the long side
    dst = np.float32([[0, 0], [2 * short_px, 0], [2 * short_px, short_px], [0, short_px]])
    m = cv2.getPerspectiveTransform(q, dst)
    return cv2.warpPerspective(img, m, (2 * short_px, short_px), flags=cv2.INTER_CUBIC,
                               borderMode=cv2.BORDER_REPLICATE)


# --- benches -------------------------------------------------------------------------

def bench_ddd(root: Path) -> dict:
    """Per-half accuracy on the last photo of each game, tile-outline and grid crops."""
    res = {}
    for refine in (True, False):
        ok = n = 0
        conf_m: Counter = Counter()
        per_game = {}
        for g in realdata.DDD_GAMES:
            k = realdata.DDD_MOVES
            crops = realdata.ddd_half_crops(g, k, size=64, refine=refine, root=root)
            got = [count(c).pips for c, _ in crops]
            gk = sum(x == p for x, (_, p) in zip(got, crops))
            conf_m.update(f"{p}->{x}" for x, (_, p) in zip(got, crops))
            per_game[g] = {"n": len(crops), "correct": int(gk)}
            ok += gk
            n += len(crops)
        errors = {k: v for k, v in sorted(conf_m.items()) if k.split("->")[0] != k.split("->")[1]}
        res["tile_outline" if refine else "grid_cell"] = {
            "halves": n, "correct": int(ok), "accuracy": ok / n, "per_game": per_game,
            "errors": errors,
        }
    checks = [realdata.ddd_check_cells(g, realdata.DDD_MOVES, root=root)
              for g in realdata.DDD_GAMES]
    res["homography_check_last_move"] = {
        "labelled": sum(c["labelled"] for c in checks),
        "labelled_ok": float(np.mean([c["labelled_ok"] for c in checks])),
        "empty": sum(c["empty"] for c in checks),
        "empty_ok": float(np.mean([c["empty_ok"] for c in checks])),
    }
    return res


def _read_tile(path: str) -> tuple[int, int] | None:
    """Pips (larger first) read from one DomiBot photo, or None if no tile was found."""
    cv2.setNumThreads(1)
    img = cv2.imread(path)
    quad = locate_tile(img) if img is not None else None
    if quad is None:
        return None
    x, y = count_tile(rectify_tile(img, quad))
    return max(x.pips, y.pips), min(x.pips, y.pips)


def bench_domibot(root: Path, workers: int = 2, every: int = 1) -> dict:
    """Tile-identity accuracy on the DomiBot close-ups, dev and held-out splits.

    ``every`` > 1 measures only every n-th photo of each tile folder (quick runs).
    """
    seen_all: Counter = Counter()
    items = []
    for path, ab in realdata.load_domibot(root):
        if seen_all[ab] % every == 0:
            items.append((path, ab))
        seen_all[ab] += 1
    if workers > 1:
        with mp.get_context("spawn").Pool(workers) as pool:
            reads = pool.map(_read_tile, [str(p) for p, _ in items], chunksize=25)
    else:
        reads = [_read_tile(str(p)) for p, _ in items]
    seen: Counter = Counter()
    stats = {s: Counter() for s in ("dev", "held_out")}
    wrong: Counter = Counter()
    for (_, truth), got in zip(items, reads):
        split = "dev" if seen[truth] * every < DEV_PER_TILE else "held_out"
        seen[truth] += 1
        st = stats[split]
        st["n"] += 1
        if got is None:
            st["not_located"] += 1
            st["half_errors"] += 2
            continue
        if got == truth:
            st["correct"] += 1
        else:
            wrong[f"{truth[0]}x{truth[1]}->{got[0]}x{got[1]}"] += 1
        st["half_errors"] += _half_errors(truth, got)
    out = {}
    for s, st in stats.items():
        n = st["n"]
        out[s] = {"photos": n, "correct": st["correct"], "accuracy": st["correct"] / n,
                  "not_located": st["not_located"],
                  "half_accuracy": 1 - st["half_errors"] / (2 * n)}
    n_all = sum(st["n"] for st in stats.values())
    c_all = sum(st["correct"] for st in stats.values())
    out["all"] = {"photos": n_all, "correct": c_all, "accuracy": c_all / n_all}
    out["most_common_errors"] = dict(wrong.most_common(12))
    return out


def _half_errors(truth: tuple[int, int], got: tuple[int, int]) -> int:
    """Halves wrong under the best pairing of the two halves: 0, 1 or 2."""
    a, b = truth
    x, y = got
    return min((a != x) + (b != y), (a != y) + (b != x))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=None, help="real-data root")
    ap.add_argument("--workers", type=int, default=2, help="processes for DomiBot")
    ap.add_argument("--domibot-every", type=int, default=1,
                    help="measure every n-th DomiBot photo per tile (quick run)")
    ap.add_argument("--out", type=Path,
                    default=REPO / "bench" / "results" / "real_pips_classical.json")
    args = ap.parse_args(argv)
    root = args.root or realdata.realdata_root()
    if root is None:
        print("real data not found (<repo>/../shared/realdata): nothing to measure")
        return 2
    cv2.setNumThreads(1)
    t0 = time.time()
    ddd = bench_ddd(root)
    t1 = time.time()
    domi = bench_domibot(root, workers=args.workers, every=max(1, args.domibot_every))
    t2 = time.time()
    res = {"ddd": ddd, "domibot": domi, "domibot_every": args.domibot_every,
           "seconds": {"ddd": round(t1 - t0, 1), "domibot": round(t2 - t1, 1)}}
    print(f"{'dataset':<28}{'unit':<8}{'n':>6}{'correct':>9}{'accuracy':>10}")
    for name in ("tile_outline", "grid_cell"):
        r = ddd[name]
        print(f"{'DDD ' + name + ' crops':<28}{'half':<8}{r['halves']:>6}{r['correct']:>9}"
              f"{r['accuracy']:>10.3f}")
    for s in ("dev", "held_out", "all"):
        r = domi[s]
        print(f"{'DomiBot ' + s:<28}{'tile':<8}{r['photos']:>6}{r['correct']:>9}"
              f"{r['accuracy']:>10.3f}")
    hc = ddd["homography_check_last_move"]
    print(f"DDD grid check (move 20): labelled cells look like tiles {hc['labelled_ok']:.3f} "
          f"of {hc['labelled']}; never-played cells look like board {hc['empty_ok']:.3f} "
          f"of {hc['empty']}")
    print(f"DomiBot not located: dev {domi['dev']['not_located']}, held-out "
          f"{domi['held_out']['not_located']}; half accuracy (best pairing) dev "
          f"{domi['dev']['half_accuracy']:.3f}, held-out {domi['held_out']['half_accuracy']:.3f}")
    print(f"time: DDD {res['seconds']['ddd']} s, DomiBot {res['seconds']['domibot']} s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2, sort_keys=True) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
