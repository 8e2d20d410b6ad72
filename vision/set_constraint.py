"""Set-aware decoding of pip readings: a double-six set holds every tile once.

Given per-half class probabilities for the face-up tiles of one frame, readings are
checked against the number of sets on the table:

1. A tile read *confidently* (both half confidences >= ``confident``) keeps its
   reading.  When more confident readings claim a tile than the sets hold, every one
   of them is kept as read and flagged :data:`~vision.observation.FLAG_DUPLICATE` -
   a real anomaly (a second set, a misread the models are sure about) is never hidden.
2. The other (uncertain) readings are assigned jointly to the tile copies still free,
   maximising the summed log-probability (Hungarian assignment; scipy's
   ``linear_sum_assignment`` when installed, else the same algorithm in numpy).  A
   reading whose best tile is free keeps it.  One moved to another tile gets
   :data:`~vision.observation.FLAG_SET_RESOLVED`, its changed halves' confidences
   become ``min(probability of the new value, cap)``, and the raw reading is kept.
   With no free copy left (or only implausible ones, joint probability below
   ``min_alternative``) the reading is kept and flagged ``FLAG_OVER_SET`` /
   ``FLAG_DUPLICATE``.

Pure numpy; no model needed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.observation import FLAG_DUPLICATE, FLAG_OVER_SET, FLAG_SET_RESOLVED

__all__ = ["Resolution", "resolve_readings", "set_tiles", "linear_sum_assignment", "MAX_SETS", "pictures_of_held_tiles",
           "PICTURE_MAX_SCORE", "HOLDER_MIN_SCORE"]

#: Most complete sets a table may hold (``n_sets``): tournament tables use one, some games two
#: (Double Double Dominoes); the assignment grows with the sets (a 20-photo review took
#: ~7 s with 1 set, 40 s with 10 000, and had not ended after 5 min with 100 000).
MAX_SETS = 8

#: A face-up box scoring below this whose tile the table already holds ``n_sets`` times in boxes
#: scoring :data:`HOLDER_MIN_SCORE` or more is taken for a picture of a tile (the printed dominoes
#: of a game board), not for a second copy. Rendered val frames (60, bench seed 0): false boxes
#: 30 -> 26, no tile lost (the weak duplicates scored 0.22-0.40 and lay on no tile; true copies in a
#: two-set scene scored 0.87 or more).
PICTURE_MAX_SCORE = 0.5
#: Detector score of a box sure enough to hold its tile against a weak box reading the same.
HOLDER_MIN_SCORE = 0.9
_BIG = 1e6  # cost of "no tile" (dummy column)
_EPS = 1e-9


def set_tiles(max_pips: int = 6) -> list[tuple[int, int]]:
    """The tiles ``(low, high)`` of a double-``max_pips`` set, in a fixed order (28 for double-six)."""
    return [(i, j) for i in range(max_pips + 1) for j in range(i, max_pips + 1)]


@dataclass
class Resolution:
    """Decoded reading of one face-up tile.

    Attributes:
        pips: ``(a, b)`` proposed reading, in half order.
        half_confidence: ``(conf_a, conf_b)`` after the constraint, in [0, 1].
        raw_pips: per-half argmax reading before the constraint.
        flags: ``FLAG_SET_RESOLVED``, ``FLAG_DUPLICATE`` and/or ``FLAG_OVER_SET``.
    """

    pips: tuple[int, int]
    half_confidence: tuple[float, float]
    raw_pips: tuple[int, int]
    flags: list[str] = field(default_factory=list)


def _hungarian(cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Minimum-cost assignment of every row of an (n, m) matrix, n <= m (shortest augmenting paths)."""
    n, m = cost.shape
    INF = np.inf
    u = np.zeros(n + 1)
    v = np.zeros(m + 1)
    p = np.zeros(m + 1, np.int64)  # p[j] = row (1-based) matched to column j; column 0 is virtual
    way = np.zeros(m + 1, np.int64)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = np.full(m + 1, INF)
        used = np.zeros(m + 1, bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            cur = cost[i0 - 1] - u[i0] - v[1:]
            free = ~used[1:]
            upd = free & (cur < minv[1:])
            minv[1:][upd] = cur[upd]
            way[1:][upd] = j0
            cand = np.where(free, minv[1:], INF)
            j1 = int(np.argmin(cand)) + 1
            delta = cand[j1 - 1]
            used_idx = np.nonzero(used)[0]
            u[p[used_idx]] += delta
            v[used_idx] -= delta
            minv[1:][free] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    rows, cols = [], []
    for j in range(1, m + 1):
        if p[j]:
            rows.append(p[j] - 1)
            cols.append(j - 1)
    order = np.argsort(rows)
    return np.asarray(rows, np.int64)[order], np.asarray(cols, np.int64)[order]


def linear_sum_assignment(cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Minimum-cost assignment of every row of an (n, m) float cost matrix, n <= m.

    Uses ``scipy.optimize.linear_sum_assignment`` when scipy is installed.

    Returns:
        ``(rows, cols)``: (n,) int64 each, rows in increasing order.
    """
    cost = np.asarray(cost, np.float64)
    if cost.ndim != 2 or cost.shape[0] > cost.shape[1]:
        raise ValueError(f"need an (n, m) cost matrix with n <= m, got {cost.shape}")
    if cost.shape[0] == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    try:
        from scipy.optimize import linear_sum_assignment as lsa
    except ImportError:
        return _hungarian(cost)
    r, c = lsa(cost)
    return r.astype(np.int64), c.astype(np.int64)


def _best_orientation(pa: np.ndarray, pb: np.ndarray, tile: tuple[int, int]) -> tuple[tuple[int, int], float]:
    x, y = tile
    p1, p2 = float(pa[x] * pb[y]), float(pa[y] * pb[x])
    return ((x, y), p1) if p1 >= p2 else ((y, x), p2)


def resolve_readings(half_probs: np.ndarray, half_conf: np.ndarray | None = None, n_sets: int = 1,
                     confident: float = 0.9, cap: float = 0.5, min_alternative: float = 0.005
                     ) -> list[Resolution]:
    """Decode the face-up tiles of one frame under the set constraint (see module doc).

    Args:
        half_probs: (M, 2, C) float per-half class probabilities (C = max pips + 1;
            rows need not sum exactly to 1).
        half_conf: (M, 2) float per-half confidences in [0, 1]; default the max
            probability of each half.  Lower values (e.g. after a failed cross-check)
            make a reading uncertain.
        n_sets: number of complete sets on the table (each tile exists ``n_sets`` times).
        confident: a reading with both half confidences >= this is never changed.
        cap: upper bound of the confidence of a half changed by the constraint.
        min_alternative: a moved reading must have at least this joint probability,
            else the raw reading is kept and flagged.

    Returns:
        one :class:`Resolution` per row of ``half_probs``, in the same order.

    Raises:
        ValueError: bad shapes or ``n_sets < 1``.
    """
    P = np.asarray(half_probs, np.float64)
    if P.ndim != 3 or P.shape[1] != 2 or P.shape[2] < 2:
        raise ValueError(f"half_probs must have shape (M, 2, C), got {P.shape}")
    if n_sets < 1:
        raise ValueError(f"n_sets must be >= 1, got {n_sets}")
    M, _, C = P.shape
    conf = P.max(2) if half_conf is None else np.asarray(half_conf, np.float64)
    if conf.shape != (M, 2):
        raise ValueError(f"half_conf must have shape ({M}, 2), got {conf.shape}")
    raw = P.argmax(2)
    tiles = set_tiles(C - 1)
    index = {t: k for k, t in enumerate(tiles)}
    out = [Resolution((int(raw[i, 0]), int(raw[i, 1])), (float(conf[i, 0]), float(conf[i, 1])),
                      (int(raw[i, 0]), int(raw[i, 1]))) for i in range(M)]
    key = [index[(min(o.raw_pips), max(o.raw_pips))] for o in out]

    sure = [i for i in range(M) if conf[i].min() >= confident]
    unsure = [i for i in range(M) if conf[i].min() < confident]
    capacity = np.full(len(tiles), n_sets, np.int64)
    for i in sure:
        capacity[key[i]] -= 1
    for i in sure:
        if capacity[key[i]] < 0:
            out[i].flags.append(FLAG_DUPLICATE)
    capacity = np.maximum(capacity, 0)
    if not unsure:
        return out

    slots = np.repeat(np.arange(len(tiles)), capacity)  # one column per free copy
    n = len(unsure)
    cost = np.full((n, len(slots) + n), _BIG)  # + one "no tile" column per row
    for r, i in enumerate(unsure):
        pa, pb = P[i, 0], P[i, 1]
        for c, t in enumerate(slots):
            _, p = _best_orientation(pa, pb, tiles[t])
            cost[r, c] = -np.log(p + _EPS)
    rows, cols = linear_sum_assignment(cost)
    for r, c in zip(rows, cols):
        i = unsure[r]
        o = out[i]
        if c >= len(slots):
            o.flags.append(FLAG_OVER_SET)  # only when there are fewer free copies than readings
            continue
        t = tiles[slots[c]]
        if t == (min(o.raw_pips), max(o.raw_pips)):
            continue
        (a, b), p = _best_orientation(P[i, 0], P[i, 1], t)
        if p < min_alternative:
            o.flags.append(FLAG_DUPLICATE)
            continue
        new_conf = tuple(float(conf[i, k]) if v == o.raw_pips[k] else float(min(P[i, k, v], cap))
                         for k, v in enumerate((a, b)))
        o.pips = (a, b)
        o.half_confidence = new_conf  # type: ignore[assignment]
        o.flags.append(FLAG_SET_RESOLVED)
    return out


def pictures_of_held_tiles(pips: list[tuple[int, int]], scores: np.ndarray, sure_reading: np.ndarray,
                           n_sets: int = 1) -> np.ndarray:
    """Which face-up boxes read a tile the table already holds ``n_sets`` times in surer boxes.

    A set holds each tile once, so a weak box (score < :data:`PICTURE_MAX_SCORE`) reading a tile
    that ``n_sets`` boxes scoring >= :data:`HOLDER_MIN_SCORE` with confident readings already
    show is a picture of that tile (a game board's printed domino) or a box on part of another
    tile; a confident duplicate between sure boxes stays (a real anomaly, :func:`resolve_readings`).

    Args:
        pips: M readings ``(a, b)`` (order ignored); ``(-1, -1)`` for an unread tile.
        scores: (M,) float detector scores in [0, 1].
        sure_reading: (M,) bool, both halves read confidently.
        n_sets: complete sets on the table.

    Returns:
        (M,) bool, True for the boxes taken for pictures.

    Raises:
        ValueError: lengths differ or ``n_sets < 1``.
    """
    scores = np.asarray(scores, np.float64)
    sure_reading = np.asarray(sure_reading, bool)
    if not len(pips) == len(scores) == len(sure_reading):
        raise ValueError(f"pips, scores and sure_reading differ in length: {len(pips)}, {len(scores)}, {len(sure_reading)}")
    if n_sets < 1:
        raise ValueError(f"n_sets must be >= 1, got {n_sets}")
    keys = [(min(p), max(p)) for p in pips]
    held: dict[tuple[int, int], int] = {}
    for k, s, r in zip(keys, scores, sure_reading):
        if r and s >= HOLDER_MIN_SCORE and min(k) >= 0:
            held[k] = held.get(k, 0) + 1
    return np.array([bool(s < PICTURE_MAX_SCORE and min(k) >= 0 and held.get(k, 0) >= n_sets)
                     for k, s in zip(keys, scores)], bool)
