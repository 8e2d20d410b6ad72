"""Tile-level helpers for the real-photo benchmark (``bench/sec_real.py``).

* A classical locator for the DomiBot close-ups (one tile per ~100x100 photo):
  :func:`locate_tile`, :func:`rectify_tile`. It was developed looking only at the first
  :data:`DEV_PER_TILE` photos of each tile folder ("dev"); the others are "held-out".
* Pure scoring, no image work and no real data (unit-tested in ``tests/test_bench_real.py``):
  :func:`half_errors`, :func:`board_tiles`, :func:`match_detections`, :func:`most_right`,
  :func:`score_review`.

Geometry of the DDD board (grid units, ``datasets/real_photos.py``): the printed 15x15 grid
spans [0, 15] x [0, 15], x along the columns, y along the rows; cell (row r, col c),
0-based, has its centre at (c + 0.5, r + 0.5).
"""

from __future__ import annotations

from typing import Iterable, Sequence

import cv2
import numpy as np

__all__ = ["DEV_PER_TILE", "MATCH_MAX_DIST", "MOST_FRACTION", "locate_tile", "rectify_tile",
           "half_errors", "board_tiles", "match_detections", "most_right", "score_review"]

#: The DomiBot locator was tuned on the first this-many photos of each tile folder.
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


# --- scoring (pure) ---------------------------------------------------------------------

#: A detection matches a labelled tile when its centre lies within this many cells of the
#: tile's centre (and its long axis agrees). Located tile centres lie <= 0.2 cell from their
#: labelled cells (docs/real-photos.md); side-by-side tiles are 1 cell apart, so no
#: detection can be within this distance of two tiles.
MATCH_MAX_DIST = 0.45
#: A photo has "most tiles right" when more than this fraction of its labelled tiles is
#: matched by a detection reading both halves right, each at its cell.
MOST_FRACTION = 0.5

Half = tuple[int, int, int]  # (row, col, pips), 0-based cells
Tile = tuple[Half, Half]


def half_errors(truth: tuple[int, int], got: tuple[int, int]) -> int:
    """Halves wrong under the best pairing of the two halves: 0, 1 or 2."""
    a, b = truth
    x, y = got
    return min((a != x) + (b != y), (a != y) + (b != x))


def board_tiles(moves: Sequence, k: int) -> list[Tile]:
    """The labelled tiles on a DDD board after move ``k``: ``[((r1, c1, p1), (r2, c2, p2))]``.

    Args:
        moves: :class:`datasets.real_photos.Move` list of one game (any object with ``index``
            and ``halves``), in any order.
        k: move number (1-based); moves 1..k are on the board.
    """
    return [tuple(m.halves) for m in sorted(moves, key=lambda m: m.index) if m.index <= k]


def _axis_horizontal(poly: np.ndarray) -> bool:
    """Whether a (4, 2) canonical polygon's long axis (edges 0->1 and 3->2) runs along x."""
    d = (poly[1] - poly[0]) + (poly[2] - poly[3])
    return abs(float(d[0])) >= abs(float(d[1]))


def match_detections(dets: Iterable[tuple[np.ndarray, tuple[int, int] | None]], tiles: Sequence[Tile],
                     grid: int = 15, max_dist: float = MATCH_MAX_DIST) -> dict:
    """Match detected tiles to the labelled tiles of one DDD photo and score them.

    A detection and a labelled tile are a candidate pair when the detection's centre lies
    within ``max_dist`` cells of the tile's centre and both long axes run the same way
    (along the rows or along the columns); pairs are taken greedily, nearest first, each
    detection and tile at most once. A matched detection is ``right`` when each half reads
    the pips labelled in the cell it lies over (half 0, at corners 0/3, is compared with
    the nearer of the two cells), ``right_unordered`` when its pair equals the tile's.

    Args:
        dets: ``(polygon, pips)`` per detection; polygon (4, 2) float corners in **grid
            units**, canonical (edge 0->1 a long side, half 0 at corners 0/3); pips
            ``(a, b)`` for halves 0 and 1, or None (face down / not read).
        tiles: the labelled tiles, ``((r1, c1, p1), (r2, c2, p2))`` with 0-based cells.
        grid: grid side in cells (a detection centred outside [0, grid]^2 is off the grid).
        max_dist: largest centre distance of a match, cells.

    Returns:
        ``{"labelled", "found", "right", "right_unordered", "extra", "extra_off_grid",
        "fraction", "most"}``: ``found`` tiles with a matched detection, ``extra``
        detections matching no tile (``extra_off_grid`` of them centred off the grid, e.g.
        the printed dominoes of the board's track), ``fraction`` = right / labelled (1.0
        when nothing is labelled), ``most`` = :func:`most_right`.
    """
    dets = [(np.asarray(p, np.float64).reshape(4, 2), pips) for p, pips in dets]
    centres = [((c1 + c2) / 2 + 0.5, (r1 + r2) / 2 + 0.5) for (r1, c1, _), (r2, c2, _) in tiles]
    pairs = []
    for i, (p, _) in enumerate(dets):
        c, horiz = p.mean(0), _axis_horizontal(p)
        for j, ((r1, _, _), (r2, _, _)) in enumerate(tiles):
            d = float(np.hypot(*(c - centres[j])))
            if d <= max_dist and horiz == (r1 == r2):
                pairs.append((d, i, j))
    used_d, used_t, right, right_u = set(), set(), 0, 0
    for _, i, j in sorted(pairs):
        if i in used_d or j in used_t:
            continue
        used_d.add(i)
        used_t.add(j)
        p, pips = dets[i]
        if pips is None:
            continue
        (r1, c1, p1), (r2, c2, p2) = tiles[j]
        h0 = 0.75 * (p[0] + p[3]) / 2 + 0.25 * (p[1] + p[2]) / 2  # centre of half 0
        near1 = np.hypot(*(h0 - (c1 + 0.5, r1 + 0.5))) <= np.hypot(*(h0 - (c2 + 0.5, r2 + 0.5)))
        want = (p1, p2) if near1 else (p2, p1)
        right += tuple(int(v) for v in pips) == want
        right_u += sorted(int(v) for v in pips) == sorted((p1, p2))
    extra = [i for i in range(len(dets)) if i not in used_d]
    off = sum(not (0 <= dets[i][0].mean(0)[0] <= grid and 0 <= dets[i][0].mean(0)[1] <= grid) for i in extra)
    n = len(tiles)
    return {"labelled": n, "found": len(used_t), "right": right, "right_unordered": right_u,
            "extra": len(extra), "extra_off_grid": int(off), "fraction": right / n if n else 1.0,
            "most": most_right(right, n)}


def most_right(right: int, labelled: int) -> bool:
    """The "most tiles correct" rule: more than :data:`MOST_FRACTION` of the labelled tiles
    read right (a photo with no labelled tile passes)."""
    return labelled == 0 or right > MOST_FRACTION * labelled


def score_review(moves: Sequence, rows: Sequence[dict]) -> dict:
    """Compare a ``review --rules none`` run on one DDD game with its labelled moves.

    The first photo already shows move 1: it is the review's starting board, so
    placements are measured from move 2 on. Photo k is frame k - 1 (frames count from 0).
    A move is ``at_its_move`` when a placement of its frame has its tile (unordered pair),
    ``found`` when any placement not yet claimed by another move has it; ``extra`` counts
    placements left unclaimed.

    Args:
        moves: the game's moves (``index`` 1-based, ``halves`` ``((r, c, pips), (r, c, pips))``),
            sorted by index.
        rows: the review's ``events.jsonl`` rows; placements are ``{"type": "placement",
            "frame": int, "tile": [a, b], ...}``.

    Returns:
        ``{"moves", "placements", "at_its_move", "found", "extra"}`` counts.
    """
    placements = [r for r in rows if r["type"] == "placement"]
    by_frame: dict[int, list[tuple[int, ...]]] = {}
    for r in placements:
        by_frame.setdefault(r["frame"], []).append(tuple(sorted(r["tile"])))
    remaining = [tuple(sorted(r["tile"])) for r in placements]
    out = {"moves": 0, "placements": len(placements), "at_its_move": 0, "found": 0}
    for m in moves[1:]:
        tile = tuple(sorted((m.halves[0][2], m.halves[1][2])))
        out["moves"] += 1
        out["at_its_move"] += tile in by_frame.get(m.index - 1, [])
        if tile in remaining:
            remaining.remove(tile)
            out["found"] += 1
    out["extra"] = len(remaining)
    return out
