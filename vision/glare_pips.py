"""Face-up tiles washed out by glare, found from their pips alone.

Under a strong glare spot a light tile's face and the table around it clip to nearly the same
white: the detector sees no outline and misses the tile, yet the pips, dark or coloured, still
show a few grey levels below the white. The standard layouts (:data:`vision.pips_classical.LAYOUTS`,
pips at 1/4, 1/2 and 3/4 of the half's side) put every pip of a tile on one lattice: in units of
``d`` = a quarter of the half's side, a tile's pips lie on the integer points ``x`` in
``{-3, -2, -1, 1, 2, 3}``, ``y`` in ``{-1, 0, 1}`` around its centre, the middle column (the divider)
empty, and no pip of any other tile lies within one unit of its outline (``|x| <= 4, |y| <= 2``).
So the pips a glare spot leaves fix the tile: its centre, its direction and both values.

Steps (:func:`glare_tiles`):

1. Washed area: areas of at least :data:`MIN_WASHED_TILES` tile areas at :data:`WASHED_GREY` or
   more (found on a small copy); within them, pixels whose local background (a grey closing wider
   than a pip) is that white. Frames without such an area stop here (the usual case, cheap).
2. Pips there: blobs of a pip's size (:data:`PIP_AREA` times the layout's pip area) in the
   per-channel black-hat (background minus pixel; coloured pips darken one channel) at
   :data:`MIN_CONTRAST` or more, outside the boxes already found.
3. Lattice: blobs chained at up to :data:`LINK` ``d`` form groups. Per group the direction is the
   mean of the layout pairs' directions (axis and diagonal steps) modulo 90 degrees, ``d`` comes
   from their lengths and the origin from the circular mean of the fractional lattice coordinates;
   then a similarity is fitted to the lattice points the blobs snap to. Blobs more than
   :data:`SNAP_TOLERANCE` from a lattice point are dropped; a group with fewer than
   :data:`MIN_ON_LATTICE` of them on it is left.
4. Tiles: every centre and direction (along either lattice axis) whose points make two standard
   halves of 1 to 6 pips, with no point on the divider or the ring around the outline, at least
   :data:`MIN_PIPS` pips, pips no darker than glare leaves them (:data:`MAX_PIP_CONTRAST`) and not on
   a box already found, is a fit. Of a group's fits, the choice
   of fits with outlines apart that holds the most pips is kept, when it is the only one and
   leaves at most :data:`MAX_LEFT_OVER` pips over (in a line of touching tiles any two
   neighbouring halves make a tile; only the outline, which the glare took, or the whole line's
   pips tell them apart; a blank half has no pips to tell).
5. Only tiles whose outline is lost too: at least :data:`MIN_RING_WASHED` of a ring just outside
   the fitted box washed white in every channel. Where an edge shows (white tiles on a dark table,
   a board's printed white dominoes) the detector had its chance; pips on a lattice there are no
   sign of glare.

Only sets up to double-six (the 3 x 3 lattice); tiles with a blank half are not fitted (the blank
half could lie on either side). Rule source: the standard pip layouts, as the pip reader's.

Measured on rendered frames (generator recipe 8, tile size known): the bench's 40 held-out frames,
3 of the 4 washed-out tiles the detector misses found and read right, no false tile; 180 other
val / held-out frames, none fitted; 1 800 frames of scenes 1 200-2 999, 6 tiles found right and
1 wrong (a 4|2 whose 4 lost two pips in the white, read 2|2); real photos (DDD, DomiBot): none
fitted; time (median): 2 ms per held-out 720p frame, 2 ms per 1080p frame without a washed area
(the recognizer's ~120), ~3 ms per 2040 x 1536 DDD photo.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.obb import covered_fraction
from vision.pips_classical import LAYOUTS

__all__ = ["GlareTile", "glare_tiles", "washed_regions", "washed_pips", "fit_tiles", "outline_washed",
           "HALF_PATTERNS", "WASHED_GREY", "MIN_PIPS", "MIN_WASHED_TILES", "GLARE_SCORE", "GLARE_CONFIDENCE"]

#: ``det_score`` of a fitted tile: there is no detector box; below every sure box, as it should rank.
GLARE_SCORE = 0.5
#: Half confidence of a fitted tile: the recognizer's "confident" level (the lattice fixes the values,
#: but a pip lost in the white turns a 4 into a 2: 1 of 7 fits wrong on 1 800 rendered frames). With
#: :data:`GLARE_SCORE` the reading's confidence is 0.45, under the tracker's 0.5 for an
#: ``uncertain_read`` notice; a later reading of the tile by the detector replaces it.
GLARE_CONFIDENCE = 0.9

#: Background grey (0-255) from which an area counts as washed out by glare (for the ring of step 5,
#: every colour channel: glare is white light, a cream cloth is not washed).
WASHED_GREY = 235
#: Smallest black-hat contrast (grey levels) of a pip in a washed area. The noise there (the maximum
#: over three channels of a black-hat) is mostly 0-6 levels with a tail past 20; noise blobs that pass
#: are left to the lattice. On the 7 rendered frames looked at (5 with a washed-out tile, 2 with a
#: board's white printed dominoes) 13-17 all give the same fits; a noise-scaled threshold did not.
MIN_CONTRAST = 15.0
#: Largest median contrast (grey levels) of a fitted tile's pips: glare takes most of it (pips of the
#: tiles it washed out: medians 33-55 on 8 rendered frames), while black dots on white paper or dice on a
#: white table keep theirs (180-193; helper-132 found both fitted as tiles).
MAX_PIP_CONTRAST = 120.0
#: Blob area range, as multiples of a layout pip's area (pip radius 0.085 of the half's side).
PIP_AREA = (0.2, 4.0)
#: Largest distance of a pip from its lattice point, lattice units.
SNAP_TOLERANCE = 0.3
#: Pips chained at up to this many lattice units form a group (a 2's pips are 2.83 apart).
LINK = 3.2
#: Share of a group's blobs that must lie on its lattice (the others are dropped as noise).
MIN_ON_LATTICE = 0.75
#: Most pips of a group (on its lattice) the chosen tiles may leave over: one stray blob, or a pip of a
#: tile past the group's edge. A 6|6 taken from a 6|0 and its neighbour's 6 left 3 over (rendered frames).
MAX_LEFT_OVER = 1
#: Most blobs in a group: a glare spot hides a few tiles; thousands of blobs are a speckled surface
#: (terrazzo, linen in white light), whose pairwise distances would also cost seconds.
MAX_GROUP = 64
#: Fewest pips that make a tile (3 pips fit too many lattice placements by chance).
MIN_PIPS = 4
#: Largest share of a fitted tile's area that may lie on a box the detector found.
MAX_OVERLAP = 0.15
#: A fitted tile's outline must be lost in the white: at least this share of a ring just outside it
#: washed (a white tile or a printed picture of one whose edge still shows is the detector's to box).
MIN_RING_WASHED = 0.5
#: The ring's size, as a factor on the fitted box about its centre.
RING_GROWTH = 1.12
#: Frames with larger tiles are shrunk to this tile length (px) first (pips stay 8 px wide).
WORK_TILE_PX = 96.0
#: Washed areas are looked for on a copy shrunk to this tile length (px).
COARSE_TILE_PX = 16.0
#: A washed area must cover this many tile areas to hide a tile and its outline (the ring of step 5
#: alone is 1.25).
MIN_WASHED_TILES = 1.25
#: Most tile fits searched in one group of pips (the choice is exhaustive).
MAX_FITS = 16
#: Pip radius as a fraction of the half's side in the standard layouts (0-6).
_PIP_RADIUS = 0.085


def _half_patterns() -> dict[frozenset, int]:
    """Occupied 3 x 3 lattice cells ``(u, v)`` in {-1, 0, 1}^2 of each layout 1..6, all quarter turns."""
    out: dict[frozenset, int] = {}
    for n in range(1, 7):
        cells = [(int(round((x - 0.5) / 0.25)), int(round((y - 0.5) / 0.25))) for x, y in LAYOUTS[n]]
        for _ in range(4):
            out[frozenset(cells)] = n
            cells = [(-v, u) for u, v in cells]
    return out


#: Standard halves 1..6 as sets of occupied lattice cells (any quarter turn) -> pips.
HALF_PATTERNS: dict[frozenset, int] = _half_patterns()


@dataclass(frozen=True)
class GlareTile:
    """A tile fitted to its pips.

    Attributes:
        polygon_px: (4, 2) float32 top-face corners in frame px, edge 0->1 a long side.
        pips: ``(a, b)``, ``a`` the half at corners 0/3 (the recognizer's convention).
        n_pips: pips the tile explains.
    """

    polygon_px: np.ndarray
    pips: tuple[int, int]
    n_pips: int


def _odd(x: float) -> int:
    return max(3, int(round(x)) | 1)


def washed_regions(grey: np.ndarray, tile_px: float) -> list[tuple[int, int, int, int]]:
    """Boxes ``(x0, y0, x1, y1)`` (px, end exclusive) round the washed areas big enough to hide a
    tile with its outline (:data:`MIN_WASHED_TILES` tile areas), found on a copy shrunk so that a
    tile is :data:`COARSE_TILE_PX` long (cheap on large photos; a white tile face alone is too small).

    Args:
        grey: (H, W) uint8 grey frame.
        tile_px: tile long side in frame px.
    """
    f = min(1.0, COARSE_TILE_PX / float(tile_px))
    small = cv2.resize(grey, (max(1, round(grey.shape[1] * f)), max(1, round(grey.shape[0] * f))),
                       interpolation=cv2.INTER_AREA) if f < 1 else grey
    small = cv2.morphologyEx(small, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))  # pips are specks here
    n, _, stats, _ = cv2.connectedComponentsWithStats((small >= WASHED_GREY).astype(np.uint8), connectivity=8)
    big = stats[1:][stats[1:, cv2.CC_STAT_AREA] >= MIN_WASHED_TILES * (tile_px * f) ** 2 / 2]
    pad = tile_px
    h, w = grey.shape
    return [(max(0, int(x / f - pad)), max(0, int(y / f - pad)), min(w, int((x + bw) / f + pad) + 1),
             min(h, int((y + bh) / f + pad) + 1)) for x, y, bw, bh, _ in big]


def washed_pips(bgr: np.ndarray, tile_px: float, boxes_px: np.ndarray | None = None,
                regions: list[tuple[int, int, int, int]] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Pip centres in the frame's washed-out areas (:func:`washed_regions`), with their contrast.

    Args:
        bgr: (H, W, 3) uint8 BGR frame.
        tile_px: tile long side in frame px (pip size and lattice spacing follow from it).
        boxes_px: (N, 4, 2) float boxes already found; pips inside them are left out.
        regions: the washed regions of ``bgr`` when already known (:func:`washed_regions`).

    Returns:
        ``(centres, contrast)``: (K, 2) float64 pip centres ``(x, y)`` in frame px (pixel-edge
        convention) and (K,) float64 each blob's strongest black-hat (grey levels); empty when no
        washed area could hide a tile.
    """
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    out, peaks = [np.zeros((0, 2))], [np.zeros(0)]
    for x0, y0, x1, y1 in washed_regions(grey, tile_px) if regions is None else regions:
        c, k = _pips_in(bgr[y0:y1, x0:x1], grey[y0:y1, x0:x1], tile_px,
                        None if boxes_px is None else np.asarray(boxes_px, np.float64) - (x0, y0))
        out.append(c + (x0, y0))
        peaks.append(k)
    return np.concatenate(out), np.concatenate(peaks)


def _pips_in(bgr: np.ndarray, grey: np.ndarray, tile_px: float, boxes_px: np.ndarray | None
             ) -> tuple[np.ndarray, np.ndarray]:
    """Pip centres (K, 2) in one washed region's crop (crop px, pixel-edge convention) and each one's
    strongest black-hat (K,)."""
    half = tile_px / 2.0
    k = cv2.getStructuringElement(cv2.MORPH_RECT, (_odd(0.4 * half),) * 2)  # wider than a pip (separable: fast)
    washed = cv2.morphologyEx(grey, cv2.MORPH_CLOSE, k) >= WASHED_GREY
    hat = np.max([cv2.morphologyEx(bgr[:, :, c], cv2.MORPH_BLACKHAT, k) for c in range(3)], 0).astype(np.float32)
    mask = ((hat >= MIN_CONTRAST) & washed).astype(np.uint8)
    if boxes_px is not None and len(boxes_px):
        cv2.fillPoly(mask, [np.round(b).astype(np.int32) for b in boxes_px.reshape(-1, 4, 2)], 0)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    pip_area = np.pi * (_PIP_RADIUS * half) ** 2
    area = stats[1:, cv2.CC_STAT_AREA]
    ok = (area >= max(2.0, PIP_AREA[0] * pip_area)) & (area <= PIP_AREA[1] * pip_area)
    peak = np.zeros(n)
    np.maximum.at(peak, labels.ravel(), hat.ravel())
    return cents[1:][ok] + 0.5, peak[1:][ok]  # component centroids are pixel centres


def _groups(pts: np.ndarray, link: float, shape: tuple[int, int]) -> list[np.ndarray]:
    """Index arrays of the groups of points chained at distance <= ``link`` (discs of radius
    ``link / 2`` drawn and labelled by OpenCV; ``shape`` (H, W) is the frame's)."""
    canvas = np.zeros(shape, np.uint8)
    r = max(1, int(round(link / 2)))
    for x, y in pts:
        cv2.circle(canvas, (int(x), int(y)), r, 255, -1)
    _, lab = cv2.connectedComponents(canvas, connectivity=8)
    ids = lab[np.clip(pts[:, 1].astype(int), 0, shape[0] - 1), np.clip(pts[:, 0].astype(int), 0, shape[1] - 1)]
    return [np.flatnonzero(ids == g) for g in np.unique(ids)]


#: Pip-pair distances of the layouts (lattice units) and the turn from the pair's direction to a
#: lattice axis: axis pairs (1, 2) and diagonal pairs (sqrt 2, 2 sqrt 2, as in the layouts 2, 3, 5).
_PAIR_STEPS = ((1.0, 0.0), (2.0, 0.0), (np.sqrt(2), np.pi / 4), (2 * np.sqrt(2), np.pi / 4))
#: A pair counts for a step when its length is within this fraction of it.
_PAIR_TOLERANCE = 0.15


def _lattice(pts: np.ndarray, d_nominal: float) -> tuple[float, float, np.ndarray] | None:
    """(angle rad, spacing px, origin (2,) px) of the pip lattice of a group, None without two pip
    pairs at a layout step (:data:`_PAIR_STEPS` times ``d_nominal``, +-15 %, perspective included)."""
    iu = np.triu_indices(len(pts), 1)
    diff = (pts[None] - pts[:, None])[iu]  # (P, 2), each pair once
    dist = np.linalg.norm(diff, axis=1)
    direction = np.arctan2(diff[:, 1], diff[:, 0])
    ang, unit = [], []
    for step, turn in _PAIR_STEPS:
        sel = np.abs(dist / (step * d_nominal) - 1) <= _PAIR_TOLERANCE
        ang += list(direction[sel] - turn)
        unit += list(dist[sel] / step)
    if len(ang) < 2:
        return None
    theta = float(np.angle(np.exp(4j * np.asarray(ang)).mean())) / 4  # directions modulo 90 degrees
    d = float(np.median(unit))
    q = _to_lattice(pts, theta, d, np.zeros(2))
    origin_frac = np.angle(np.exp(2j * np.pi * q).mean(0)) / (2 * np.pi)  # circular mean per axis
    return theta, d, _from_lattice(origin_frac[None], theta, d, np.zeros(2))[0]


def _to_lattice(pts: np.ndarray, theta: float, d: float, origin: np.ndarray) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return ((pts - origin) @ np.array([[c, -s], [s, c]])) / d


def _from_lattice(q: np.ndarray, theta: float, d: float, origin: np.ndarray) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return (q * d) @ np.array([[c, s], [-s, c]]) + origin


def _read(points: set, cx: int, cy: int, vertical: bool) -> tuple[int, int, int] | None:
    """(a, b, pips) of the tile centred at lattice point (cx, cy), None when its points are not two
    standard halves (1-6 pips each), a point lies on the divider or on the ring round the outline."""
    halves: tuple[list, list] = ([], [])
    for x, y in points:
        u, v = (y - cy, x - cx) if vertical else (x - cx, y - cy)  # u along the long axis
        if abs(u) > 4 or abs(v) > 2:
            continue
        if abs(u) == 4 or abs(v) == 2 or u == 0:
            return None  # no pip of this or any other tile lies there
        halves[u > 0].append((u + 2 if u < 0 else u - 2, v))
    a, b = HALF_PATTERNS.get(frozenset(halves[0])), HALF_PATTERNS.get(frozenset(halves[1]))
    if a is None or b is None:
        return None
    return a, b, len(halves[0]) + len(halves[1])


def fit_tiles(pts: np.ndarray, tile_px: float, shape: tuple[int, int],
              boxes_px: np.ndarray | None = None, contrast: np.ndarray | None = None) -> list[GlareTile]:
    """Tiles whose pips are these points (steps 3 and 4 of the module doc).

    Args:
        pts: (K, 2) float pip centres in frame px.
        tile_px: tile long side in frame px (the lattice spacing is about ``tile_px / 8``).
        shape: (H, W) of the frame.
        boxes_px: (N, 4, 2) float boxes already found: a fitted tile may not overlap them by more
            than :data:`MAX_OVERLAP` of its area.
        contrast: (K,) float each pip's black-hat (:func:`washed_pips`), or None: a tile whose pips'
            median is above :data:`MAX_PIP_CONTRAST` is not fitted.

    Returns:
        The tiles fitted: per group of pips, the one choice of fits that holds the most pips.
    """
    d_nom = tile_px / 8.0
    boxes = [] if boxes_px is None else list(np.asarray(boxes_px, np.float64).reshape(-1, 4, 2))
    out: list[GlareTile] = []
    for g in _groups(pts, LINK * d_nom, shape):
        if not MIN_PIPS <= len(g) <= MAX_GROUP:
            continue
        lat = _lattice(pts[g], d_nom)
        if lat is None or not 0.75 * d_nom <= lat[1] <= 1.3 * d_nom:
            continue
        lat = _refined(pts[g], *lat)
        q = _to_lattice(pts[g], *lat)
        snap = np.round(q)
        on = np.abs(q - snap).max(1) <= SNAP_TOLERANCE
        if on.mean() < MIN_ON_LATTICE:
            continue  # tiles at several angles, or noise: leave the group
        points = {(int(x), int(y)) for x, y in snap[on]}
        dark = {} if contrast is None else {(int(x), int(y)): float(c) for (x, y), c in zip(snap[on], contrast[g][on])}
        fits = []
        for key in {_centre(x, y, du, dv, vertical) for x, y in points for vertical in (False, True)
                    for du in (-3, -2, -1, 1, 2, 3) for dv in (-1, 0, 1)}:
            r = _read(points, *key)
            if r is None or r[2] < MIN_PIPS:
                continue
            poly = _outline(*key, *lat)
            if any(covered_fraction(poly, b) > MAX_OVERLAP for b in boxes):
                continue
            if dark and np.median([dark[q] for q in _members(points, *key)]) > MAX_PIP_CONTRAST:
                continue  # pips as dark as in plain light: dots on white paper, dice, not glare
            fits.append((key, r, poly))
        members = [_members(points, *k) for k, _, _ in fits]
        best = _best_choice([k for k, _, _ in fits], members)
        if len(points) - sum(len(members[k]) for k in best) > MAX_LEFT_OVER:
            continue  # pips the tiles do not hold: a blank half or pips lost in the white misled the fit
        out += [GlareTile(fits[k][2], fits[k][1][:2], fits[k][1][2]) for k in best]
    return out


def _apart(a: tuple[int, int, bool], b: tuple[int, int, bool]) -> bool:
    """Whether the outlines of two fits (lattice centre, vertical) at most touch."""
    ha, hb = ((2, 4) if a[2] else (4, 2)), ((2, 4) if b[2] else (4, 2))  # half extents (x, y)
    return abs(a[0] - b[0]) >= ha[0] + hb[0] or abs(a[1] - b[1]) >= ha[1] + hb[1]


def _best_choice(keys: list, members: list[set]) -> list[int]:
    """Indices of the fits to keep: the choice of fits with outlines apart that holds the most
    pips, when exactly one choice does (else none: the group is ambiguous). At most
    :data:`MAX_FITS` fits are searched (more: none kept)."""
    if not keys or len(keys) > MAX_FITS:
        return []
    best: list = [0, [], 0]  # pips held, choice, how many choices hold that many

    def walk(start: int, chosen: list[int], held: int) -> None:
        if held > best[0]:
            best[:] = [held, list(chosen), 1]
        elif held == best[0] and chosen:
            best[2] += 1
        for k in range(start, len(keys)):
            if all(_apart(keys[k], keys[c]) and not members[k] & members[c] for c in chosen):
                walk(k + 1, chosen + [k], held + len(members[k]))

    walk(0, [], 0)
    return best[1] if best[2] == 1 else []


def _refined(pts: np.ndarray, theta: float, d: float, origin: np.ndarray) -> tuple[float, float, np.ndarray]:
    """The lattice re-fitted (a similarity, least squares) to the lattice points the pips snap to."""
    for _ in range(2):
        snap = np.round(_to_lattice(pts, theta, d, origin))
        m, _ = cv2.estimateAffinePartial2D(snap.astype(np.float32), pts.astype(np.float32), method=cv2.LMEDS)
        if m is None:
            break
        theta, d, origin = (float(np.arctan2(m[1, 0], m[0, 0])), float(np.hypot(m[0, 0], m[1, 0])),
                            m[:, 2].astype(float))
    return theta, d, origin


def _centre(x: int, y: int, du: int, dv: int, vertical: bool) -> tuple[int, int, bool]:
    """(cx, cy, vertical) of the tile on which lattice point (x, y) is at (du along, dv across)."""
    return (x - dv, y - du, vertical) if vertical else (x - du, y - dv, vertical)


def _outline(cx: int, cy: int, vertical: bool, theta: float, d: float, origin: np.ndarray) -> np.ndarray:
    """(4, 2) float32 frame-px corners of the tile centred at lattice (cx, cy), edge 0->1 long,
    corners 0/3 at the first half (``a``)."""
    corners = [(-4, -2), (4, -2), (4, 2), (-4, 2)]  # (along, across), lattice units
    q = np.array([(cx + v, cy + u) if vertical else (cx + u, cy + v) for u, v in corners], float)
    return _from_lattice(q, theta, d, origin).astype(np.float32)


def _members(points: set, cx: int, cy: int, vertical: bool) -> set:
    lx, ly = (1, 3) if vertical else (3, 1)
    return {(x, y) for x, y in points if abs(x - cx) <= lx and abs(y - cy) <= ly}


def outline_washed(grey: np.ndarray, polygon_px: np.ndarray) -> float:
    """Share of a ring just outside a box (the box grown by :data:`RING_GROWTH`, 64 samples, those in
    the frame) that is washed white (at least :data:`WASHED_GREY`), on a (H, W) uint8 image (the
    frame's per-pixel minimum over channels); 0.0 when no sample is in the frame."""
    p = np.asarray(polygon_px, np.float64).reshape(4, 2)
    c = p.mean(0)
    ring = c + (p - c) * RING_GROWTH
    t = np.linspace(0, 1, 16, endpoint=False)[:, None]
    pts = np.concatenate([ring[k] + t * (ring[(k + 1) % 4] - ring[k]) for k in range(4)])
    h, w = grey.shape
    inside = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
    if not inside.any():
        return 0.0
    xy = pts[inside].astype(int)
    return float((grey[xy[:, 1], xy[:, 0]] >= WASHED_GREY).mean())


def glare_tiles(bgr: np.ndarray, tile_px: float, boxes_px: np.ndarray | None = None) -> list[GlareTile]:
    """Face-up tiles in washed-out areas of a frame, from their pips (the module doc's steps).

    Args:
        bgr: (H, W, 3) uint8 BGR frame.
        tile_px: tile long side in frame px.
        boxes_px: (N, 4, 2) float boxes already found (their pips are not looked at again).

    Returns:
        :class:`GlareTile` list, empty for most frames (no washed area, or no pips in it).
    """
    regions = washed_regions(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), tile_px)
    if not regions:
        return []  # most frames: a few ms on a small copy
    s = min(1.0, WORK_TILE_PX / float(tile_px))  # pips of a few px are enough: large frames get small
    if s < 1.0:
        bgr = cv2.resize(bgr, (max(1, round(bgr.shape[1] * s)), max(1, round(bgr.shape[0] * s))),
                         interpolation=cv2.INTER_AREA)
        boxes_px = None if boxes_px is None else np.asarray(boxes_px, np.float64) * s
        regions = [(int(x0 * s), int(y0 * s), int(np.ceil(x1 * s)), int(np.ceil(y1 * s))) for x0, y0, x1, y1 in regions]
    pts, contrast = washed_pips(bgr, tile_px * s, boxes_px, regions)
    if len(pts) < MIN_PIPS:
        return []
    fits = fit_tiles(pts, tile_px * s, bgr.shape[:2], boxes_px, contrast)
    if not fits:
        return []
    b, g, r = cv2.split(bgr)
    least = cv2.GaussianBlur(cv2.min(cv2.min(b, g), r), (0, 0), 1.0)  # every channel: glare is white light
    return [GlareTile((t.polygon_px / s).astype(np.float32), t.pips, t.n_pips) for t in fits
            if outline_washed(least, t.polygon_px) >= MIN_RING_WASHED]
