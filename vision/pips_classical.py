"""Classical (non-learned) pip counter for one rectified domino half.

The counter is a baseline and a cross-check for the learned models: it needs no training
data, so it can be measured honestly on real photographs.

Pipeline for one half (all image work is OpenCV; only the domino knowledge is hand-written):

1. Resize the half to a square working canvas of ``WORK_SIZE`` px so that every size
   parameter below is a fixed fraction of the half's side.
2. Convert to CIE Lab; the face colour is the median of the central half of the crop.
   Large regions of another hue reaching the crop border (table, board) are painted in
   the face colour, then a large median filter gives the local face colour (it follows
   shading; pips cover at most ~20 % of a half, so the median ignores them).
3. Contrast map = lightness difference in the pip direction (dark pips on a light face,
   light pips on a dark face) or 1.5 x the chroma difference (coloured pips).
4. Threshold with Otsu, clamped below by an absolute minimum contrast so that a blank
   half stays blank; connected components.
5. Round, pip-sized components inside the crop are pips; their median area is the
   reference pip. Everything else (components touching the crop border, elongated or
   too large ones) is opened with a disc of ~1.2 reference radii -- which detaches a pip
   from the divider line, the tile edge or a table strip -- and the parts are judged
   again: round and pip-sized -> pip; 2-3 pips in area -> merged pips, split with
   k-means; cut by the border -> kept only if most of a pip is inside; in a crop corner
   -> never a pip.
6. A round blob at the middle of an edge (where no standard layout has a pip) or a
   brass-coloured one near it is the centre pin, not a pip; ``divider`` names the edge
   when it is known (:func:`count_tile` passes it).

Public API: :class:`BlobCount`, :func:`count`, :func:`count_tile`, :data:`LAYOUTS`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations

import cv2
import numpy as np

__all__ = ["BlobCount", "LAYOUTS", "WORK_SIZE", "count", "count_tile"]

#: Side of the square working canvas, px. Every size rule below is relative to it.
WORK_SIZE = 64

# --- domino knowledge (fractions of the half's side) ---------------------------------
#: Pip radius range for sets up to double-six (a 6-layout fills the half with pips of
#: diameter ~0.15-0.25 side).
_R_MIN_6, _R_MAX = 0.045, 0.17
#: Smaller pips allowed for double-nine / double-twelve faces (3 columns of 4 pips).
_R_MIN_12 = 0.032
#: A pip centre is never closer than this to an edge of the half (standard layouts put
#: the outer pips near 0.2-0.25 of the side); a round blob closer than this at the middle
#: of an edge is the brass centre pin (or a pip of the neighbouring half).
_PIN_EDGE_DIST = 0.12
_PIN_MID_BAND = 0.15
#: A pip cut by the crop border is kept only if its estimated centre is inside the crop
#: by at least this much (layouts put pip centres >= ~0.2 of the side from the edge).
_CUT_MIN_EDGE = 0.06
#: Lab distance (lightness weighted 0.3: shading changes lightness, a table changes hue)
#: beyond which a border region is margin, not face, when estimating the face colour.
_FACE_DIST = 25.0
#: Absolute minimum contrast (Lab units on OpenCV's 0-255 scale) for a pip.
_MIN_CONTRAST = 22.0

_A, _M, _Z = 0.25, 0.5, 0.75
_T1, _T2 = 0.2, 0.8
#: Standard pip layouts in unit-square coordinates (x right, y down), one orientation;
#: the counter also tries the 90-degree rotation and mirror images. 7-12 follow the
#: usual double-twelve designs (3 columns).
LAYOUTS: dict[int, np.ndarray] = {
    0: np.zeros((0, 2), np.float32),
    1: np.array([[_M, _M]], np.float32),
    2: np.array([[_A, _A], [_Z, _Z]], np.float32),
    3: np.array([[_A, _A], [_M, _M], [_Z, _Z]], np.float32),
    4: np.array([[_A, _A], [_Z, _A], [_A, _Z], [_Z, _Z]], np.float32),
    5: np.array([[_A, _A], [_Z, _A], [_M, _M], [_A, _Z], [_Z, _Z]], np.float32),
    6: np.array([[_A, _A], [_A, _M], [_A, _Z], [_Z, _A], [_Z, _M], [_Z, _Z]], np.float32),
    7: np.array([[_T1, _T1], [_T1, _M], [_T1, _T2], [_M, _M],
                 [_T2, _T1], [_T2, _M], [_T2, _T2]], np.float32),
    8: np.array([[_T1, _T1], [_T1, _M], [_T1, _T2], [_M, _T1], [_M, _T2],
                 [_T2, _T1], [_T2, _M], [_T2, _T2]], np.float32),
    9: np.array([[x, y] for x in (_T1, _M, _T2) for y in (_T1, _M, _T2)], np.float32),
    10: np.array([[x, y] for x in (_T1, _T2) for y in (0.17, 0.39, 0.61, 0.83)]
                 + [[_M, 0.3], [_M, 0.7]], np.float32),
    11: np.array([[x, y] for x in (_T1, _T2) for y in (0.17, 0.39, 0.61, 0.83)]
                 + [[_M, 0.17], [_M, _M], [_M, 0.83]], np.float32),
    12: np.array([[x, y] for x in (_T1, _M, _T2) for y in (0.17, 0.39, 0.61, 0.83)],
                 np.float32),
}


@dataclass(frozen=True)
class BlobCount:
    """Result of counting the pips of one half.

    Attributes:
        pips: number of pips found, 0..max_pips.
        confidence: heuristic score in [0, 1] (contrast margin, size consistency and fit
            to the standard layout); low values flag crops worth a second look.
        blobs: (N, 3) float32 array of ``[x, y, r]`` per pip, in pixels of the input
            crop (x right, y down, radius as the equivalent-area circle).
        found: the pips found before the count was cut to ``max_pips``: more than ``max_pips`` is a half
            of a larger set than the one assumed (a double-twelve 9 read with ``max_pips`` 6), which no
            reading in 0..max_pips can be right about (None: not said).
    """

    pips: int
    confidence: float
    blobs: np.ndarray = field(repr=False)
    found: int | None = None


def _as_bgr(img: np.ndarray, name: str) -> np.ndarray:
    if not isinstance(img, np.ndarray):
        raise TypeError(f"{name} must be a numpy array, got {type(img).__name__}")
    if img.dtype != np.uint8:
        raise TypeError(f"{name} must be uint8, got {img.dtype}")
    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.ndim == 3 and img.shape[2] == 3:
        return img
    raise ValueError(f"{name} must have shape (H, W) or (H, W, 3), got {img.shape}")


_PERMS = {n: np.array(list(permutations(range(n))), np.int64) for n in range(1, 7)}


def _layout_fit(pts: np.ndarray, n: int) -> float:
    """Score in [0, 1]: how well unit-square points match the standard n layout."""
    if n not in LAYOUTS or n == 0 or len(pts) != n:
        return 0.5
    best = np.inf
    ref0 = LAYOUTS[n] - 0.5
    p = pts - pts.mean(0)
    for ref in (ref0, ref0[:, ::-1], ref0 * [1, -1], ref0[:, ::-1] * [1, -1]):
        r = ref - ref.mean(0)
        if n <= 6:  # exact assignment over all permutations, vectorised
            perms = _PERMS[n]
            d = np.sum((p[None] - r[perms]) ** 2, axis=2).mean(1)
            best = min(best, float(d.min()))
        else:  # greedy nearest assignment is enough for a confidence score
            d2 = np.sum((p[:, None] - r[None]) ** 2, 2)
            used, tot = set(), 0.0
            for i in np.argsort(d2.min(1)):
                j = min((j for j in range(n) if j not in used), key=lambda j: d2[i, j])
                used.add(j)
                tot += d2[i, j]
            best = min(best, tot / n)
    return float(np.exp(-np.sqrt(best) / 0.08))


def _contrast_map(bgr: np.ndarray) -> tuple[np.ndarray, bool]:
    """(S, S) float32 contrast of each pixel against the local face colour; light_face.

    The face colour is the median of the crop's central half; large regions of another
    hue that reach the crop border (table, board) are painted in it before the local
    median filter, so the local estimate follows the shading of the face only.
    """
    s = bgr.shape[0]
    lab = cv2.cvtColor(cv2.GaussianBlur(bgr, (3, 3), 0.8), cv2.COLOR_BGR2LAB)
    c = s // 4
    ref = np.median(lab[c:s - c, c:s - c].reshape(-1, 3), axis=0)
    diff = (lab.astype(np.float32) - ref) * [0.3, 1.0, 1.0]  # shading changes L, not hue
    far = (np.linalg.norm(diff, axis=2) > _FACE_DIST).astype(np.uint8)
    # only large regions reaching the crop border are margin (table, tile edge); pips,
    # even cut ones, stay: the median filter ignores them anyway
    n, lab_far, st, _ = cv2.connectedComponentsWithStats(far)
    border = np.unique(np.concatenate([lab_far[0], lab_far[-1], lab_far[:, 0], lab_far[:, -1]]))
    a_big = 2 * np.pi * (_R_MAX * s) ** 2
    big = [i for i in border if i > 0 and st[i, cv2.CC_STAT_AREA] > a_big]
    margin = np.isin(lab_far, big)
    clean = lab.copy()
    clean[margin] = ref.astype(np.uint8)
    k = int(0.45 * s) | 1
    bg = cv2.merge([cv2.medianBlur(ch, k) for ch in cv2.split(clean)])
    lab_f = lab.astype(np.float32)
    bg_f = bg.astype(np.float32)
    d_l = lab_f[..., 0] - bg_f[..., 0]
    d_ab = np.sqrt(np.sum((lab_f[..., 1:] - bg_f[..., 1:]) ** 2, axis=2))
    light_face = float(ref[0]) >= 110.0
    d_pol = np.maximum(-d_l if light_face else d_l, 0.0)
    return np.maximum(d_pol, 1.5 * d_ab), light_face


def _is_brass(bgr_pixels: np.ndarray) -> bool:
    """True if the mean colour of (N, 3) uint8 BGR pixels looks like brass / gold."""
    hsv = cv2.cvtColor(bgr_pixels.reshape(-1, 1, 3), cv2.COLOR_BGR2HSV).reshape(-1, 3)
    h, sat, val = (float(np.median(hsv[:, i])) for i in range(3))
    return 12 <= h <= 35 and sat >= 70 and val >= 90


_EDGES = ("left", "right", "top", "bottom")


def _edge_dists(cx: float, cy: float, s: int) -> dict[str, float]:
    """Distance (px) of a point to each edge of the s x s canvas."""
    return {"left": cx, "right": s - 1 - cx, "top": cy, "bottom": s - 1 - cy}


def _is_pin(cx: float, cy: float, pix: np.ndarray, s: int, divider: str | None) -> bool:
    """A round blob at the middle of an edge (where no layout has a pip) is the pin."""
    d = _edge_dists(cx, cy, s)
    edges = (divider,) if divider else _EDGES
    for e in edges:
        along = abs((cy if e in ("left", "right") else cx) - s / 2) / s
        if along < _PIN_MID_BAND and d[e] / s < _PIN_EDGE_DIST:
            return True
        if along < _PIN_MID_BAND and d[e] / s < 0.2 and _is_brass(pix):
            return True
    return False


def _disc(d: int) -> np.ndarray:
    d = max(3, int(d) | 1)
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d))


def _find_pips(img: np.ndarray, contrast: np.ndarray, mask: np.ndarray, max_pips: int,
               divider: str | None) -> list[tuple[float, float, float, float]]:
    """Turn the thresholded mask into pips: list of (x, y, r, peak contrast), work px.

    Pass 1 keeps the round, pip-sized components inside the crop and takes their median
    area as the reference pip. Pass 2 looks again at everything else (components cut by
    the crop border, or merged with a line or another pip): each is opened with a disc
    about 1.2 reference radii wide, which detaches pips from thin lines, and its parts
    are judged with the reference size: a round part is a pip, a part of 2-3 pips is
    split, a part cut by the border is kept only if most of a pip is inside.
    """
    s = mask.shape[0]
    r_min = (_R_MIN_12 if max_pips > 6 else _R_MIN_6) * s
    a_min, a_max = np.pi * r_min**2 * 0.8, np.pi * (_R_MAX * s) ** 2
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    inner: list[tuple[float, float, float, float]] = []
    rest: list[int] = []
    for i in range(1, n):
        x0, y0, bw, bh, area = stats[i]
        if area < a_min:
            continue
        at_x, at_y = x0 == 0 or x0 + bw == s, y0 == 0 or y0 + bh == s
        aspect = max(bw, bh) / max(1, min(bw, bh))
        if at_x or at_y or area > a_max or aspect > 1.7 or area / (bw * bh) < 0.5:
            rest.append(i)
            continue
        cx, cy = cents[i]
        if not _is_pin(cx, cy, img[labels == i], s, divider):
            inner.append((cx, cy, float(np.sqrt(area / np.pi)),
                          float(contrast[labels == i].max())))

    ref_area = (float(np.median([np.pi * b[2] ** 2 for b in inner])) if inner
                else np.pi * (0.1 * s) ** 2)
    ref_r = float(np.sqrt(ref_area / np.pi))
    out = list(inner)
    for i in rest:
        out.extend(_parts((labels == i).astype(np.uint8), 1.2, img, contrast, ref_area,
                          divider, bool(inner)))
    return out


def _parts(comp: np.ndarray, width: float, img, contrast, ref_area, divider, have_ref):
    """Open one component with a disc ``width`` reference radii wide and judge its parts;
    a large part that yields no pip is opened once more with a wider disc (a pip pressed
    against a thick divider line or table strip)."""
    s = comp.shape[0]
    ref_r = float(np.sqrt(ref_area / np.pi))
    opened = cv2.morphologyEx(comp, cv2.MORPH_OPEN, _disc(width * ref_r))
    m, plab, pst, pcent = cv2.connectedComponentsWithStats(opened, connectivity=8)
    out = []
    for j in range(1, m):
        sel = plab == j
        pips = _judge_part(pst[j], pcent[j], sel, img, contrast, s, ref_area, ref_r,
                           divider, have_ref)
        if not pips and width < 1.5 and pst[j, cv2.CC_STAT_AREA] > 1.4 * ref_area:
            pips = _parts(sel.astype(np.uint8), 1.7, img, contrast, ref_area, divider,
                          have_ref)
        out.extend(pips)
    return out


def _judge_part(st, cent, sel, img, contrast, s, ref_area, ref_r, divider, have_ref):
    """Pips (0-3 tuples) in one part of a non-round component; see :func:`_find_pips`."""
    x0, y0, bw, bh, area = st
    if area < 0.4 * ref_area:
        return []
    at_x, at_y = x0 == 0 or x0 + bw == s, y0 == 0 or y0 + bh == s
    if at_x and at_y:
        return []  # in a crop corner: table or rounded tile corner, never a pip
    peak = float(contrast[sel].max())
    if at_x or at_y:
        # cut by the crop border (the crop is offset on the tile): keep it if most of a
        # pip is inside; slivers of a neighbour's pip, the tile edge or table are dropped
        if area > 1.4 * ref_area:
            return []
        depth = min(bw if at_x else 2 * ref_r, bh if at_y else 2 * ref_r)
        extent = max(bh if at_x else 0, bw if at_y else 0)
        if depth < 1.1 * ref_r or extent > 2.6 * ref_r:
            return []
        cx = (x0 + bw - ref_r if x0 == 0 else x0 + ref_r) if at_x else cent[0]
        cy = (y0 + bh - ref_r if y0 == 0 else y0 + ref_r) if at_y else cent[1]
        if min(_edge_dists(cx, cy, s).values()) < _CUT_MIN_EDGE * s:
            return []  # more of it outside than inside: a neighbour's pip
        if _is_pin(cx, cy, img[sel], s, divider):
            return []
        return [(cx, cy, ref_r, peak)]
    aspect = max(bw, bh) / max(1, min(bw, bh))
    fill = area / (bw * bh)
    if area <= 1.6 * ref_area and aspect <= 1.7 and fill >= 0.5:
        cx, cy = cent
        if _is_pin(cx, cy, img[sel], s, divider):
            return []
        return [(cx, cy, float(np.sqrt(area / np.pi)), peak)]
    k = int(round(area / ref_area))
    if have_ref and 2 <= k <= 3 and max(bw, bh) <= (k + 0.5) * 2 * ref_r and fill >= 0.35:
        ys, xs = np.nonzero(sel)  # merged pips: split with k-means on the pixels
        pts = np.stack([xs, ys], 1).astype(np.float32)
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.1)
        _, _, ctr = cv2.kmeans(pts, k, None, crit, 3, cv2.KMEANS_PP_CENTERS)
        return [(float(x), float(y), ref_r, peak) for x, y in ctr]
    return []


def count(half: np.ndarray, max_pips: int = 6, divider: str | None = None) -> BlobCount:
    """Count the pips on one rectified domino half.

    Args:
        half: (H, W, 3) uint8 BGR or (H, W) uint8 grey crop of one half, roughly square
            (aspect 0.6-1.6), the face filling the crop; a small margin may show the tile
            border, the divider line or the table. H, W >= 6 px.
        max_pips: largest pip count of the set's halves (6 for double-six, 9, 12).
        divider: the crop edge where the tile's centre divider (and pin) lies:
            ``"left"``, ``"right"``, ``"top"``, ``"bottom"``, or ``None`` if unknown
            (then a round blob at the middle of any edge is taken for the pin).

    Returns:
        :class:`BlobCount` with ``pips`` in 0..max_pips and blob positions / radii in
        pixels of ``half``.

    Raises:
        TypeError: ``half`` is not a uint8 numpy array.
        ValueError: bad shape, crop smaller than 6 px or far from square, or
            ``max_pips`` outside 1..12, or an unknown ``divider``.
    """
    bgr = _as_bgr(half, "half")
    h, w = bgr.shape[:2]
    if min(h, w) < 6:
        raise ValueError(f"half is too small: {h}x{w} px (need >= 6 px)")
    if not 0.6 <= w / h <= 1.6:
        raise ValueError(f"half must be roughly square, got {h}x{w} px")
    if not 1 <= max_pips <= 12:
        raise ValueError(f"max_pips must be in 1..12, got {max_pips}")
    if divider is not None and divider not in _EDGES:
        raise ValueError(f"divider must be one of {_EDGES} or None, got {divider!r}")

    s = WORK_SIZE
    interp = cv2.INTER_AREA if min(h, w) > s else cv2.INTER_CUBIC
    img = cv2.resize(bgr, (s, s), interpolation=interp)
    contrast, _ = _contrast_map(img)

    c8 = np.clip(contrast * 2.0, 0, 255).astype(np.uint8)  # Otsu wants uint8
    otsu, _ = cv2.threshold(c8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    thr = max(otsu / 2.0, _MIN_CONTRAST)
    mask = (contrast > thr).astype(np.uint8)
    # a small opening removes speckle and hairlines
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _disc(3))
    singles = _find_pips(img, contrast, mask, max_pips, divider)

    singles.sort(key=lambda b: -b[3])
    found = len(singles)
    over = found > max_pips
    singles = singles[:max_pips]
    n = len(singles)
    sx, sy = w / s, h / s
    blobs = np.array([[b[0] * sx, b[1] * sy, b[2] * np.sqrt(sx * sy)] for b in singles],
                     np.float32).reshape(-1, 3)

    if n == 0:
        c = s // 5
        inner = float(contrast[c:s - c, c:s - c].max())
        conf = float(np.clip(1.0 - inner / (2.0 * thr), 0.0, 1.0))
        return BlobCount(0, conf, blobs, found)
    peaks = np.array([b[3] for b in singles])
    radii = np.array([b[2] for b in singles])
    c_con = float(np.clip((np.median(peaks) - thr) / thr, 0.0, 1.0))
    c_size = float(1.0 - np.clip(radii.std() / radii.mean() / 0.35, 0.0, 1.0))
    pts = np.array([[b[0] / s, b[1] / s] for b in singles], np.float32)
    c_lay = _layout_fit(pts, n)
    conf = 0.4 * c_con + 0.3 * c_size + 0.3 * c_lay
    if over:
        conf *= 0.5
    return BlobCount(n, float(np.clip(conf, 0.0, 1.0)), blobs, found)


def count_tile(tile_crop: np.ndarray, max_pips: int = 6) -> tuple[BlobCount, BlobCount]:
    """Count both halves of a rectified tile crop.

    Args:
        tile_crop: (H, 2H, 3) or (2H, H, 3) uint8 BGR (or 2-D grey) crop of one tile,
            face filling the crop; the long axis is split in the middle.
        max_pips: as in :func:`count`.

    Returns:
        ``(first, second)``: left then right half for a landscape crop, top then bottom
        for a portrait crop; blob coordinates are in pixels of ``tile_crop``.

    Raises:
        TypeError / ValueError: as :func:`count`; also if the aspect ratio is not
        between 1.5 and 2.5.
    """
    bgr = _as_bgr(tile_crop, "tile_crop")
    h, w = bgr.shape[:2]
    portrait = h > w
    long_, short = (h, w) if portrait else (w, h)
    if not 1.5 <= long_ / max(short, 1) <= 2.5:
        raise ValueError(f"tile_crop must be about twice as long as wide, got {h}x{w}")
    m = long_ // 2
    if portrait:
        parts = (bgr[:m], bgr[m:])
        offs = ((0, 0), (0, m))
        divs = ("bottom", "top")
    else:
        parts = (bgr[:, :m], bgr[:, m:])
        offs = ((0, 0), (m, 0))
        divs = ("right", "left")
    out = []
    for part, (dx, dy), div in zip(parts, offs, divs):
        bc = count(np.ascontiguousarray(part), max_pips=max_pips, divider=div)
        b = bc.blobs.copy()
        b[:, 0] += dx
        b[:, 1] += dy
        out.append(BlobCount(bc.pips, bc.confidence, b, bc.found))
    return out[0], out[1]
