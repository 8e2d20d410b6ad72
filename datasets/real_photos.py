"""Loaders for the real photographs in ``<repo>/../shared/realdata`` (evaluation only).

The photos have no licence: they are used only to *measure* the recognisers. Nothing here
copies them (or crops of them) anywhere; crops are produced in memory.

* :func:`realdata_root` -- where the data lives, or ``None`` (tests then skip).
* :func:`load_domibot` -- single-tile close-ups, identity from the folder name.
* :func:`load_ddd_game` -- the "Double Double Dominoes" time-lapse, one :class:`Move`
  per photo with the two labelled cells and the board state after the move.
* :func:`ddd_grid_homography` / :func:`ddd_game_homography` -- image px -> grid units for
  the printed 15x15 grid (cell (r, c) centre at (c + 0.5, r + 0.5)).
* :func:`ddd_half_crops` -- rectified square crop of each labelled half.
* :func:`ddd_check_cells` -- validation of the homography on one photo.

Geometry: see ``docs/real-photos.md``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

__all__ = [
    "DDD_GRID", "DDD_GAMES", "DDD_MOVES", "Move", "realdata_root", "load_domibot",
    "parse_ddd_label", "load_ddd_game", "ddd_grid_quad", "ddd_grid_homography",
    "ddd_game_homography", "ddd_cell_crop", "ddd_tile_quads", "ddd_half_crops",
    "tile_white_fraction",
    "ddd_check_cells",
]

#: The printed grid is DDD_GRID x DDD_GRID cells, rows 1-15, columns A-O.
DDD_GRID = 15
DDD_GAMES = (1, 2, 3, 4, 5)
DDD_MOVES = 20
_DDD_DIR = "ddd-train"
_DOMIBOT_DIR = Path("DomiBotUPM__DomiBot") / "vision" / "dataset_fichas"
#: The tiles' top faces stand above the board, so in the photo they lie slightly further
#: from the image centre than the printed cells under them: by this fraction of the
#: distance (least-squares fit of the located tiles' offsets, 0.004 in x, 0.006 in y;
#: see docs/real-photos.md). Used by :func:`ddd_cell_crop`.
DDD_LIFT = 0.005


def realdata_root() -> Path | None:
    """Directory of the real photos, or ``None`` if absent.

    ``$DOMINOCAST_REALDATA`` overrides the default ``<repo>/../shared/realdata``.

    Returns:
        The existing directory, or ``None`` when it does not exist (callers skip).
    """
    env = os.environ.get("DOMINOCAST_REALDATA")
    root = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared" / "realdata"
    return root if root.is_dir() else None


def _root(root: Path | None) -> Path:
    r = root if root is not None else realdata_root()
    if r is None or not Path(r).is_dir():
        raise FileNotFoundError("real data not found (expected <repo>/../shared/realdata)")
    return Path(r)


# --- DomiBot ------------------------------------------------------------------------

def load_domibot(root: Path | None = None) -> list[tuple[Path, tuple[int, int]]]:
    """List the DomiBot single-tile photos with their identity.

    Args:
        root: real-data root; default :func:`realdata_root`.

    Returns:
        Sorted list of ``(path, (a, b))`` with ``a >= b`` pip counts taken from the folder
        name ``AxB`` (``6x4`` -> ``(6, 4)``); photos are ~100x100 (some 75x100) BGR JPEGs.

    Raises:
        FileNotFoundError: the data directory is missing.
    """
    base = _root(root) / _DOMIBOT_DIR
    if not base.is_dir():
        raise FileNotFoundError(f"missing {base}")
    out = []
    for d in sorted(base.iterdir()):
        m = re.fullmatch(r"(\d+)x(\d+)", d.name)
        if not (d.is_dir() and m):
            continue
        a, b = sorted((int(m.group(1)), int(m.group(2))), reverse=True)
        for f in sorted(d.iterdir()):
            if f.suffix.lower() in (".jpg", ".jpeg", ".png"):
                out.append((f, (a, b)))
    return out


# --- Double Double Dominoes labels ----------------------------------------------------

@dataclass(frozen=True)
class Move:
    """One photo of a DDD game.

    Attributes:
        game: game number 1-5.
        index: move number 1-20 (the photo is taken after this move).
        image: path of the 1536x2040 JPEG.
        halves: the two halves placed by this move, ``(row, col, pips)`` with 0-based
            row/col (row 0 = printed row 1, col 0 = column A).
        board: board state after this move, ``{(row, col): pips}`` (union of moves 1..k).
    """

    game: int
    index: int
    image: Path
    halves: tuple[tuple[int, int, int], tuple[int, int, int]]
    board: dict[tuple[int, int], int]


def parse_ddd_label(text: str) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """Parse a ``G_MM.txt`` label.

    Args:
        text: file content; first two lines ``ROWCOL PIPS`` (``8H 5``: row 8, column H,
            5 pips), the third line (score) is ignored.

    Returns:
        Two ``(row, col, pips)`` tuples, 0-based row and column.

    Raises:
        ValueError: malformed line, cell outside the 15x15 grid or pips outside 0-6.
    """
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2:
        raise ValueError(f"expected 2 half lines, got {lines!r}")
    out = []
    for ln in lines[:2]:
        m = re.fullmatch(r"(\d{1,2})\s*([A-Oa-o])\s+(\d+)", ln)
        if not m:
            raise ValueError(f"bad label line {ln!r}")
        r, c, p = int(m.group(1)) - 1, ord(m.group(2).upper()) - ord("A"), int(m.group(3))
        if not (0 <= r < DDD_GRID and 0 <= c < DDD_GRID and 0 <= p <= 6):
            raise ValueError(f"label out of range {ln!r}")
        out.append((r, c, p))
    return out[0], out[1]


def load_ddd_game(g: int, root: Path | None = None) -> list[Move]:
    """Load the 20 moves of DDD game ``g``.

    Args:
        g: game number (1-5).
        root: real-data root; default :func:`realdata_root`.

    Returns:
        List of :class:`Move` sorted by move index; ``board`` of move k holds moves 1..k.

    Raises:
        FileNotFoundError: data or game missing.
        ValueError: a malformed label, or a cell labelled twice.
    """
    base = _root(root) / _DDD_DIR
    files = sorted(base.glob(f"{g}_[0-9][0-9].txt"))
    if not files:
        raise FileNotFoundError(f"no labels for DDD game {g} in {base}")
    board: dict[tuple[int, int], int] = {}
    moves = []
    for f in files:
        k = int(f.stem.split("_")[1])
        halves = parse_ddd_label(f.read_text())
        for r, c, p in halves:
            if (r, c) in board:
                raise ValueError(f"{f.name}: cell {(r, c)} already occupied")
            board[(r, c)] = p
        moves.append(Move(g, k, f.with_suffix(".jpg"), halves, dict(board)))
    return moves


# --- grid geometry ----------------------------------------------------------------------

def _order_corners(pts: np.ndarray) -> np.ndarray:
    """(4, 2) points -> TL, TR, BR, BL (image y down)."""
    c = pts.mean(0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    p = pts[np.argsort(ang)]  # clockwise on screen starting near -pi (left)
    start = int(np.argmin(p.sum(1)))
    return np.roll(p, -start, axis=0).astype(np.float32)


def _teal_mask(image: np.ndarray) -> np.ndarray:
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    m = cv2.inRange(hsv, (80, 80, 50), (110, 255, 255))
    m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    return cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((31, 31), np.uint8))


def ddd_grid_quad(image: np.ndarray) -> np.ndarray:
    """Find the printed 15x15 grid (the teal play area) in a DDD photo.

    The grid area is the largest teal region; its outline's convex hull is reduced to
    four corners, then each side is re-fitted (robust line fit on the outline points
    lying on it, so tiles covering part of an edge do not bend it) and the corners are
    the intersections of adjacent sides.

    Args:
        image: (H, W, 3) uint8 BGR photo.

    Returns:
        (4, 2) float32 corners TL, TR, BR, BL of the grid in image pixels.

    Raises:
        ValueError: not a BGR uint8 image.
        RuntimeError: no plausible grid found.
    """
    if not (isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.ndim == 3
            and image.shape[2] == 3):
        raise ValueError("image must be (H, W, 3) uint8 BGR")
    mask = _teal_mask(image)
    n, lab, st, _ = cv2.connectedComponentsWithStats(mask)
    if n < 2:
        raise RuntimeError("no teal grid area found")
    i = 1 + int(np.argmax(st[1:, cv2.CC_STAT_AREA]))
    if st[i, cv2.CC_STAT_AREA] < 0.05 * mask.size:
        raise RuntimeError("teal area too small for a DDD grid")
    cs, _ = cv2.findContours((lab == i).astype(np.uint8), cv2.RETR_EXTERNAL,
                             cv2.CHAIN_APPROX_NONE)
    cont = max(cs, key=cv2.contourArea).reshape(-1, 2).astype(np.float32)
    hull = cv2.convexHull(cont)
    approx = None
    for eps in (0.01, 0.02, 0.03, 0.05, 0.08):
        a = cv2.approxPolyDP(hull, eps * cv2.arcLength(hull, True), True).reshape(-1, 2)
        if len(a) == 4:
            approx = a
            break
    if approx is None:
        approx = cv2.boxPoints(cv2.minAreaRect(hull))
    corners = _order_corners(np.asarray(approx, np.float32))
    lines = []
    for j in range(4):
        p, q = corners[j], corners[(j + 1) % 4]
        d = q - p
        length = float(np.hypot(*d))
        u = d / length
        nrm = np.array([-u[1], u[0]])
        t = (cont - p) @ u
        dist = np.abs((cont - p) @ nrm)
        sel = cont[(dist < 4.0) & (t > 0.1 * length) & (t < 0.9 * length)]
        if len(sel) >= 20:
            vx, vy, x0, y0 = cv2.fitLine(sel, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
            lines.append((np.array([x0, y0]), np.array([vx, vy])))
        else:
            lines.append((p, u))
    out = []
    for j in range(4):
        (p1, d1), (p2, d2) = lines[j - 1], lines[j]
        a = np.array([d1, -d2]).T
        if abs(np.linalg.det(a)) < 1e-6:
            raise RuntimeError("degenerate grid outline")
        s = np.linalg.solve(a, p2 - p1)
        out.append(p1 + s[0] * d1)
    quad = np.array(out, np.float32)
    sides = np.hypot(*(np.roll(quad, -1, 0) - quad).T)
    if sides.min() < 0.6 * sides.max() or sides.min() < 150:
        raise RuntimeError(f"implausible grid quadrilateral {quad.tolist()}")
    return quad


def _grid_dst() -> np.ndarray:
    g = float(DDD_GRID)
    return np.array([[0, 0], [g, 0], [g, g], [0, g]], np.float32)


def ddd_grid_homography(image: np.ndarray) -> np.ndarray:
    """Homography from image pixels to grid units for one DDD photo.

    Args:
        image: (H, W, 3) uint8 BGR photo.

    Returns:
        (3, 3) float64 ``H`` with ``H @ [x, y, 1]`` ~ ``[u, v, 1]``: u = column coordinate,
        v = row coordinate in cells; the centre of cell (row r, col c), both 0-based, is
        at (c + 0.5, r + 0.5); the grid spans [0, 15] x [0, 15].

    Raises:
        ValueError, RuntimeError: as :func:`ddd_grid_quad`.
    """
    quad = ddd_grid_quad(image)
    h, _ = cv2.findHomography(quad, _grid_dst())
    return h


@lru_cache(maxsize=8)
def _game_quad(g: int, root: str) -> np.ndarray:
    moves = load_ddd_game(g, Path(root))
    img = cv2.imread(str(moves[0].image))
    if img is None:
        raise FileNotFoundError(moves[0].image)
    return ddd_grid_quad(img)


def ddd_game_homography(g: int, image: np.ndarray | None = None, tol_px: float = 6.0,
                        root: Path | None = None) -> np.ndarray:
    """Homography image px -> grid units for a photo of game ``g``.

    The phone is fixed, so the grid is found once on the game's first photo (one tile on
    the board, the grid outline is clear). If ``image`` is given, the grid is detected
    again on it and used instead when every corner lies within ``tol_px`` of the game's
    corners (a small drift of the phone); a detection spoiled by tiles covering the grid
    edge moves a corner further and is ignored.

    Args:
        g: game number.
        image: optional (H, W, 3) uint8 BGR photo of that game to refine on.
        tol_px: largest accepted corner shift, pixels.
        root: real-data root; default :func:`realdata_root`.

    Returns:
        (3, 3) float64 homography, as :func:`ddd_grid_homography`.

    Raises:
        FileNotFoundError: data missing; RuntimeError: no grid in the first photo.
    """
    quad = _game_quad(g, str(_root(root)))
    if image is not None:
        try:
            q2 = ddd_grid_quad(image)
            if float(np.abs(q2 - quad).max()) <= tol_px:
                quad = q2
        except RuntimeError:
            pass
    h, _ = cv2.findHomography(quad, _grid_dst())
    return h


def ddd_cell_crop(image: np.ndarray, h_img2grid: np.ndarray, row: int, col: int,
                  size: int = 64, margin: float = 0.0, lift: float = DDD_LIFT) -> np.ndarray:
    """Rectified square crop of one grid cell.

    Args:
        image: (H, W, 3) uint8 BGR photo.
        h_img2grid: (3, 3) homography image px -> grid units.
        row, col: 0-based cell.
        size: output side, pixels.
        margin: extra border around the cell, in cells (0.1 = 10 % of a cell per side).
        lift: the tile top faces are above the board: the crop is taken from the board
            image scaled by ``1 + lift`` about the image centre (0 = the printed cell).

    Returns:
        (size, size, 3) uint8 BGR crop, x along columns, y along rows.

    Raises:
        ValueError: row/col outside the grid or size < 4.
    """
    if not (0 <= row < DDD_GRID and 0 <= col < DDD_GRID):
        raise ValueError(f"cell {(row, col)} outside the {DDD_GRID}x{DDD_GRID} grid")
    if size < 4:
        raise ValueError("size must be >= 4")
    hh, ww = image.shape[:2]
    cx, cy = ww / 2.0, hh / 2.0
    s = 1.0 + lift
    # top-plane image = board image scaled by s about the image centre
    lift_m = np.array([[s, 0, cx * (1 - s)], [0, s, cy * (1 - s)], [0, 0, 1]])
    grid2img = lift_m @ np.linalg.inv(h_img2grid)
    k = size / (1.0 + 2 * margin)
    # output px -> grid units
    out2grid = np.array([[1 / k, 0, col - margin], [0, 1 / k, row - margin], [0, 0, 1]])
    m = grid2img @ out2grid
    return cv2.warpPerspective(image, m, (size, size),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def _read(path: Path) -> np.ndarray:
    img = cv2.imread(str(path))
    if img is None:
        raise FileNotFoundError(path)
    return img


def _white_mask(image: np.ndarray) -> np.ndarray:
    """(H, W) bool: bright, nearly grey or bluish pixels (tile faces in these photos)."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV).astype(np.int16)
    hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    return (val >= 190) & (sat <= 120) & ((sat < 40) | ((hue >= 60) & (hue <= 130)))


def _tile_quad(img: np.ndarray, prev: np.ndarray | None, h: np.ndarray,
               halves: tuple[tuple[int, int, int], ...]) -> np.ndarray | None:
    """Image corners of the tile placed by a move, or None if not found cleanly.

    The tile is what became white between the previous photo and this one (the phone is
    fixed), inside the two labelled cells grown by half a cell.
    """
    (r1, c1, _), (r2, c2, _) = halves
    u0, u1 = min(c1, c2) - 0.5, max(c1, c2) + 1.5
    v0, v1 = min(r1, r2) - 0.5, max(r1, r2) + 1.5
    roi_g = np.array([[u0, v0], [u1, v0], [u1, v1], [u0, v1]], np.float32)
    roi = cv2.perspectiveTransform(roi_g[None], np.linalg.inv(h))[0]
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, roi.astype(np.int32), 1)
    x, y, bw, bh = cv2.boundingRect(roi.astype(np.int32))
    x, y = max(x, 0), max(y, 0)
    sub = img[y:y + bh, x:x + bw]
    m = _white_mask(sub) & (mask[y:y + bh, x:x + bw] > 0)
    if prev is not None:
        d = cv2.absdiff(cv2.GaussianBlur(sub, (5, 5), 0),
                        cv2.GaussianBlur(prev[y:y + bh, x:x + bw], (5, 5), 0)).max(2)
        m &= d > 40
    m = m.astype(np.uint8)
    cell_area = cv2.contourArea(roi) / ((u1 - u0) * (v1 - v0))  # px^2 per cell here
    # keep the white components that hold a solid core (a tile half does; the printed
    # logo's thin white letters and slivers of shadowed neighbours do not)
    k = max(3, int(0.25 * np.sqrt(cell_area))) | 1
    core = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    n, lab = cv2.connectedComponents(m)
    ids = np.setdiff1d(np.unique(lab[core > 0]), [0])
    keep = np.isin(lab, ids).astype(np.uint8)
    pts = cv2.findNonZero(keep)
    if pts is None:
        return None
    rect = cv2.minAreaRect(pts)
    side = np.sqrt(cell_area)
    a, b = sorted(rect[1])
    if not (0.8 * side <= a <= 1.2 * side and 1.7 * side <= b <= 2.3 * side):
        return None
    quad = cv2.boxPoints(rect).astype(np.float32) + np.float32([x, y])
    # sanity: centre near the labelled tile's centre, long axis along the labelled pair
    g = cv2.perspectiveTransform(quad[None], h)[0]
    want = np.array([(c1 + c2) / 2 + 0.5, (r1 + r2) / 2 + 0.5])
    ext = g.max(0) - g.min(0)
    if np.abs(g.mean(0) - want).max() > 0.35 or (ext[0] > ext[1]) != (c1 != c2):
        return None
    return quad


def ddd_tile_quads(g: int, root: Path | None = None) -> dict[int, np.ndarray | None]:
    """Locate each tile of game ``g`` in the photo of the move that placed it.

    The new tile is found as the pixels that turned tile-white between photo k-1 and
    photo k (photo 1: white pixels) near its labelled cells; its outline is the
    ``cv2.minAreaRect`` of those pixels, accepted only if about 1 x 2 cells.

    Returns:
        ``{move index: (4, 2) float32 image corners (cv2.boxPoints order) or None}``.

    Raises:
        FileNotFoundError: data missing.
    """
    moves = load_ddd_game(g, root)
    h = ddd_game_homography(g, root=root)
    out: dict[int, np.ndarray | None] = {}
    prev = None
    for mv in moves:
        img = _read(mv.image)
        out[mv.index] = _tile_quad(img, prev, h, mv.halves)
        prev = img
    return out


def _half_quads(quad: np.ndarray, h: np.ndarray, halves) -> list[np.ndarray]:
    """Split a tile quad into two half quads, each ordered TL, TR, BR, BL in grid axes."""
    g = cv2.perspectiveTransform(quad[None], h)[0]
    order = _order_corners(g)
    idx = [int(np.argmin(np.linalg.norm(g - p, axis=1))) for p in order]
    q, gq = quad[idx], g[idx]  # TL, TR, BR, BL in grid orientation
    horiz = np.linalg.norm(gq[1] - gq[0]) > np.linalg.norm(gq[3] - gq[0])
    if horiz:  # left half, right half
        mt, mb = (q[0] + q[1]) / 2, (q[3] + q[2]) / 2
        parts = [np.array([q[0], mt, mb, q[3]]), np.array([mt, q[1], q[2], mb])]
    else:  # top half, bottom half
        ml, mr = (q[0] + q[3]) / 2, (q[1] + q[2]) / 2
        parts = [np.array([q[0], q[1], mr, ml]), np.array([ml, mr, q[2], q[3]])]
    centres = cv2.perspectiveTransform(np.array([p.mean(0) for p in parts])[None], h)[0]
    out = []
    for r, c, _ in halves:
        j = int(np.argmin(np.linalg.norm(centres - [c + 0.5, r + 0.5], axis=1)))
        out.append(parts[j].astype(np.float32))
    return out


def ddd_half_crops(g: int, k: int, size: int = 64, margin: float = 0.0,
                   refine: bool = True, root: Path | None = None
                   ) -> list[tuple[np.ndarray, int]]:
    """Rectified crops of every labelled half on the board after move ``k`` of game ``g``.

    Args:
        g: game number; k: move number (1-20); size: crop side in pixels.
        margin: extra border around the half, as a fraction of its side per edge.
        refine: crop each half from its tile's outline found by :func:`ddd_tile_quads`
            (falls back to the grid cell when the outline was not found); ``False``
            crops the printed grid cell (:func:`ddd_cell_crop` with ``DDD_LIFT``).
        root: real-data root.

    Returns:
        List of ``((size, size, 3) uint8 BGR crop, pips)`` in board order (row, col),
        x along the grid columns, y along the rows. Crops live in memory only (the
        photos carry no licence).

    Raises:
        FileNotFoundError: data or photo missing; ValueError: k not in the game.
    """
    moves = load_ddd_game(g, root)
    by_k = {m.index: m for m in moves}
    if k not in by_k:
        raise ValueError(f"game {g} has no move {k}")
    img = _read(by_k[k].image)
    h = ddd_game_homography(g, img, root=root)
    quads = _tile_quads_cached(g, str(_root(root))) if refine else {}
    half_quad: dict[tuple[int, int], np.ndarray] = {}
    for mv in moves[:k]:
        q = quads.get(mv.index)
        if q is not None:
            for (r, c, _), hq in zip(mv.halves, _half_quads(q, h, mv.halves)):
                half_quad[(r, c)] = hq
    out = []
    for (r, c), p in sorted(by_k[k].board.items()):
        q = half_quad.get((r, c))
        if q is None:
            out.append((ddd_cell_crop(img, h, r, c, size, margin), p))
            continue
        k_px = size / (1.0 + 2 * margin)
        d = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32) * k_px + margin * k_px
        m = cv2.getPerspectiveTransform(q, d)
        out.append((cv2.warpPerspective(img, m, (size, size), flags=cv2.INTER_LINEAR,
                                        borderMode=cv2.BORDER_REPLICATE), p))
    return out


@lru_cache(maxsize=8)
def _tile_quads_cached(g: int, root: str) -> dict[int, np.ndarray | None]:
    return ddd_tile_quads(g, Path(root))


def tile_white_fraction(crop: np.ndarray) -> float:
    """Fraction of the central 60 % of a cell crop that looks like a white tile face.

    A pixel is "tile white" when it is bright and nearly grey or bluish (HSV V >= 190,
    S <= 120, and S < 40 or hue 60-130 on OpenCV's 0-180 scale): the tiles in these
    photos take a cyan cast from the board, while the printed board is teal (S ~200),
    the printed stars are saturated or yellow (hue ~25) and the track is brown. Pips are
    dark, so a 6-pip half still scores ~0.65; the white "Double" logo letters ~0.4.

    Args:
        crop: (S, S, 3) uint8 BGR cell crop, S >= 5.

    Returns:
        Fraction in [0, 1].
    """
    s = crop.shape[0]
    a, b = int(0.2 * s), int(0.8 * s)
    return float(_white_mask(crop[a:b, a:b]).mean())


def ddd_check_cells(g: int, k: int, thresh: float = 0.5, root: Path | None = None) -> dict:
    """Validate the grid homography on the photo after move ``k`` of game ``g``.

    Every labelled cell should show a tile half (:func:`tile_white_fraction` >= thresh);
    every cell never played in the game should look like the printed board (< thresh).

    Returns:
        dict with ``labelled`` (number of labelled cells), ``labelled_ok`` (fraction that
        look like a tile), ``empty`` (cells never played), ``empty_ok`` (fraction that do
        not look like a tile), ``bad_labelled`` (list of (row, col)), ``bad_empty``.

    Raises:
        FileNotFoundError, ValueError: as :func:`ddd_half_crops`.
    """
    moves = load_ddd_game(g, root)
    mv = {m.index: m for m in moves}.get(k)
    if mv is None:
        raise ValueError(f"game {g} has no move {k}")
    ever = set(moves[-1].board)
    img = cv2.imread(str(mv.image))
    if img is None:
        raise FileNotFoundError(mv.image)
    h = ddd_game_homography(g, img, root=root)
    bad_l, bad_e, n_e = [], [], 0
    for r in range(DDD_GRID):
        for c in range(DDD_GRID):
            f = tile_white_fraction(ddd_cell_crop(img, h, r, c, 48))
            if (r, c) in mv.board:
                if f < thresh:
                    bad_l.append((r, c))
            elif (r, c) not in ever:
                n_e += 1
                if f >= thresh:
                    bad_e.append((r, c))
    n_l = len(mv.board)
    return {
        "labelled": n_l, "labelled_ok": 1 - len(bad_l) / n_l if n_l else 1.0,
        "empty": n_e, "empty_ok": 1 - len(bad_e) / n_e if n_e else 1.0,
        "bad_labelled": bad_l, "bad_empty": bad_e,
    }
