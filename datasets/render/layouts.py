"""Tile placements in table millimetres: line of play, spinner, scattered, hands, boneyard.

A placement is the tile's centre on the table (mm), the direction of its long
axis (degrees, counter-clockwise from +x in table coordinates with y down shown
as-is), its pips ``(a, b)`` (``a`` at the end pointing to -long-axis, i.e. the
end of corners 0/3) and its face.  Placements never overlap.  Tiles are dealt from
complete sets (:class:`Deck`), as on a real table: a tile appears twice only when a
crowded scene needed a second set.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import cv2
import numpy as np

from datasets.render.tiles import TILE_LONG_MM, TILE_SHORT_MM


@dataclass(frozen=True)
class TilePlacement:
    """One tile on the table.

    Attributes:
        x_mm, y_mm: centre of the tile on the table, millimetres.
        angle_deg: direction of the long axis (from half ``a`` to half ``b``), degrees.
        a, b: pips on the two halves (``a`` is the half at corners 0/3).
        face_up: True when the pips are visible.
        long_mm, short_mm: tile size in millimetres.
    """

    x_mm: float
    y_mm: float
    angle_deg: float
    a: int
    b: int
    face_up: bool
    long_mm: float = TILE_LONG_MM
    short_mm: float = TILE_SHORT_MM

    def corners_mm(self) -> np.ndarray:
        """Top-face corners on the table plane, (4, 2) float64 mm.

        Order: 0 = (-L/2, -S/2), 1 = (+L/2, -S/2), 2 = (+L/2, +S/2), 3 = (-L/2, +S/2)
        in the tile frame, so edge 0->1 runs along the long axis from half ``a`` to ``b``.
        """
        t = np.deg2rad(self.angle_deg)
        u = np.array([np.cos(t), np.sin(t)])
        v = np.array([-np.sin(t), np.cos(t)])
        hl, hs = self.long_mm / 2, self.short_mm / 2
        c = np.array([self.x_mm, self.y_mm])
        return np.stack([c - hl * u - hs * v, c + hl * u - hs * v, c + hl * u + hs * v, c - hl * u + hs * v])


@dataclass(frozen=True)
class Occluder:
    """A hand or arm over the table: a polygon in table millimetres and a BGR colour.

    ``polygon_mm`` is (N, 2) float64; ``height_mm`` is its height above the table.
    """

    polygon_mm: np.ndarray
    colour: tuple[int, int, int]
    height_mm: float = 40.0


class Deck:
    """Tiles dealt from complete sets: each tile ``(a, b)``, ``0 <= a <= b <= max_pips``, once
    per set.  A further set is opened only when no open set has the wanted tile left, so a
    scene's tiles repeat no more than the number of sets on its table (:attr:`sets`), what
    the recognizer's set constraint assumes (``vision.set_constraint``, ``--sets``).

    Args:
        max_pips: highest pip value (6 = double-six, 28 tiles a set).
    """

    def __init__(self, max_pips: int = 6):
        self.max_pips = max_pips
        self.sets = 0
        self.left: list[tuple[int, int]] = []
        self._open()

    def _open(self) -> None:
        self.sets += 1
        self.left += [(a, b) for a in range(self.max_pips + 1) for b in range(a, self.max_pips + 1)]

    def draw(self, rng: np.random.Generator, end: int | None = None, double: bool = False) -> tuple[int, int]:
        """Take a random tile left in the deck.

        Args:
            rng: random generator.
            end: when given, the tile has this many pips on one half, returned first (it
                touches an open end of that value).
            double: prefer a double (taken when one with ``end`` is left).

        Returns:
            ``(a, b)`` pips, ``a == end`` when ``end`` is given, else in random order.
        """
        cands = [k for k, t in enumerate(self.left) if end is None or end in t]
        doubles = [k for k in cands if self.left[k][0] == self.left[k][1]]
        if double and doubles:
            cands = doubles
        if not cands:
            self._open()
            return self.draw(rng, end, double)
        a, b = self.left.pop(cands[int(rng.integers(len(cands)))])
        swap = b == end if end is not None else bool(rng.random() < 0.5)
        return (b, a) if swap else (a, b)

    def put_back(self, tile: tuple[int, int]) -> None:
        """Return a drawn tile that found no room on the table."""
        self.left.append((min(tile), max(tile)))


class _Board:
    """Non-overlap bookkeeping for placements inside a rectangle (mm), and the deck they come from."""

    def __init__(self, x0: float, y0: float, x1: float, y1: float, max_pips: int = 6):
        self.box = (x0, y0, x1, y1)
        self.placed: list[TilePlacement] = []
        self.deck = Deck(max_pips)

    def inside(self, p: TilePlacement, margin: float = 0.0) -> bool:
        c = p.corners_mm()
        x0, y0, x1, y1 = self.box
        return bool((c[:, 0] >= x0 + margin).all() and (c[:, 0] <= x1 - margin).all()
                    and (c[:, 1] >= y0 + margin).all() and (c[:, 1] <= y1 - margin).all())

    def free(self, p: TilePlacement, gap: float = 0.5) -> bool:
        # Shrink slightly so touching tiles are allowed.
        rp = ((p.x_mm, p.y_mm), (p.long_mm - gap, p.short_mm - gap), p.angle_deg)
        for q in self.placed:
            if (p.x_mm - q.x_mm) ** 2 + (p.y_mm - q.y_mm) ** 2 > (p.long_mm + q.long_mm) ** 2:
                continue
            rq = ((q.x_mm, q.y_mm), (q.long_mm - gap, q.short_mm - gap), q.angle_deg)
            kind, _ = cv2.rotatedRectangleIntersection(rp, rq)
            if kind != cv2.INTERSECT_NONE:
                return False
        return True

    def try_add(self, p: TilePlacement) -> bool:
        if self.inside(p) and self.free(p):
            self.placed.append(p)
            return True
        return False


def line_of_play(board: _Board, rng: np.random.Generator, start: tuple[float, float], angle_deg: float,
                 n: int, max_pips: int = 6, first_value: int | None = None, margin: float = 15.0) -> int:
    """Lay a line of play of up to ``n`` touching tiles from ``start`` along ``angle_deg``.

    Doubles are laid crosswise.  When the next tile would leave the board
    (``margin`` mm from its edge) the line turns 90 degrees.  Matching ends carry
    equal pips.  Returns the number of tiles placed.
    """
    x, y = start
    ang = angle_deg
    value = int(rng.integers(0, max_pips + 1)) if first_value is None else first_value
    placed = 0
    turns = 0
    last: TilePlacement | None = None
    while placed < n and turns < 4:
        nxt, other = board.deck.draw(rng, value, double=rng.random() < 0.15)  # nxt touches the open end
        double = nxt == other
        t = np.deg2rad(ang)
        d = np.array([np.cos(t), np.sin(t)])
        ext = TILE_SHORT_MM if double else TILE_LONG_MM
        cx, cy = np.array([x, y]) + d * ext / 2
        p = TilePlacement(float(cx), float(cy), ang + (90.0 if double else 0.0) + rng.normal(0, 1.0),
                          nxt, other, True)
        if board.inside(p, margin) and board.free(p):
            board.placed.append(p)
            placed += 1
            last = p
            x, y = np.array([x, y]) + d * (ext + rng.uniform(0, 1.0))
            value = other
            continue
        board.deck.put_back((nxt, other))
        if last is None:
            break
        # Turn at the border: continue perpendicular from the side of the last tile.
        turn = 90.0 if rng.random() < 0.5 else -90.0
        t2 = np.deg2rad(ang + turn)
        d2 = np.array([np.cos(t2), np.sin(t2)])
        lext = TILE_SHORT_MM if abs(((last.angle_deg - ang + 45) % 180) - 45) > 45 else TILE_LONG_MM
        c = np.array([last.x_mm, last.y_mm])
        base = c + d * (lext / 2 - TILE_SHORT_MM / 2)
        base = base + d2 * (TILE_SHORT_MM / 2 + 0.5)
        # Try the chosen turn, then the other side.
        ok = False
        end, far = board.deck.draw(rng, value)
        for tr in (turn, -turn):
            t2 = np.deg2rad(ang + tr)
            d2 = np.array([np.cos(t2), np.sin(t2)])
            side = (TILE_SHORT_MM if lext == TILE_LONG_MM else TILE_LONG_MM) / 2
            b = c + d * (lext / 2 - TILE_SHORT_MM / 2) + d2 * (side + 0.5)
            q = TilePlacement(float(b[0] + d2[0] * TILE_LONG_MM / 2), float(b[1] + d2[1] * TILE_LONG_MM / 2),
                              ang + tr, end, far, True)
            if board.inside(q, margin) and board.free(q):
                board.placed.append(q)
                placed += 1
                last = q
                ang = ang + tr
                x, y = b + d2 * (TILE_LONG_MM + 0.5)
                value = q.b
                ok = True
                break
        turns += 1
        if not ok:
            board.deck.put_back((end, far))
            break
    return placed


def spinner(board: _Board, rng: np.random.Generator, centre: tuple[float, float], angle_deg: float,
            arm_len: tuple[int, int] = (1, 5), max_pips: int = 6) -> int:
    """A spinner (a double laid crosswise) with four arms of play. Returns tiles placed."""
    v, _ = board.deck.draw(rng, int(rng.integers(0, max_pips + 1)), double=True)  # a fresh deck: the double
    sp = TilePlacement(centre[0], centre[1], angle_deg + 90.0, v, v, True)
    if not board.try_add(sp):
        board.deck.put_back((v, v))
        return 0
    count = 1
    for k in range(4):
        ang = angle_deg + 90.0 * k
        t = np.deg2rad(ang)
        d = np.array([np.cos(t), np.sin(t)])
        # Arms along angle_deg leave from the double's long sides, the others from its ends.
        half = TILE_SHORT_MM / 2 if k % 2 == 0 else TILE_LONG_MM / 2
        start = np.array(centre) + d * (half + 0.5)
        count += line_of_play(board, rng, (float(start[0]), float(start[1])), ang,
                              int(rng.integers(arm_len[0], arm_len[1] + 1)), max_pips, first_value=v)
    return count


def scattered(board: _Board, rng: np.random.Generator, n: int, p_up: float, max_pips: int = 6,
              region: tuple[float, float, float, float] | None = None) -> int:
    """Up to ``n`` tiles at random positions and angles (face up with probability ``p_up``)."""
    x0, y0, x1, y1 = region or board.box
    count = 0
    for _ in range(n * 6):
        if count >= n:
            break
        a, b = board.deck.draw(rng)
        p = TilePlacement(float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1)), float(rng.uniform(0, 360)),
                          a, b, bool(rng.random() < p_up))
        if board.try_add(p):
            count += 1
        else:
            board.deck.put_back((a, b))
    return count


def boneyard(board: _Board, rng: np.random.Generator, centre: tuple[float, float], n: int,
             max_pips: int = 6) -> int:
    """A loose cluster of ``n`` face-down tiles around ``centre`` (mm)."""
    r = 35.0 + 9.0 * np.sqrt(n)
    region = (centre[0] - r, centre[1] - r, centre[0] + r, centre[1] + r)
    return scattered(board, rng, n, 0.0, max_pips, region)


def hand(board: _Board, rng: np.random.Generator, edge: int, n: int, face_up: bool, max_pips: int = 6,
         standing_gap: float = 2.0) -> int:
    """A hand of ``n`` tiles side by side in front of the seat at table ``edge`` (0 top, 1 right, 2 bottom, 3 left).

    Long axes point toward the seat; revealed hands are face up.
    """
    x0, y0, x1, y1 = board.box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    inset = TILE_LONG_MM / 2 + rng.uniform(8, 40)
    if edge == 0:
        origin, along, ang = np.array([cx, y0 + inset]), np.array([1.0, 0.0]), 90.0
    elif edge == 2:
        origin, along, ang = np.array([cx, y1 - inset]), np.array([1.0, 0.0]), -90.0
    elif edge == 1:
        origin, along, ang = np.array([x1 - inset, cy]), np.array([0.0, 1.0]), 0.0
    else:
        origin, along, ang = np.array([x0 + inset, cy]), np.array([0.0, 1.0]), 180.0
    origin = origin + along * rng.uniform(-0.25, 0.25) * (x1 - x0 if edge in (0, 2) else y1 - y0)
    step = TILE_SHORT_MM + standing_gap + rng.uniform(0, 3)
    count = 0
    rot = rng.normal(0, 3)
    for i in range(n):
        c = origin + along * (i - (n - 1) / 2) * step
        a, b = board.deck.draw(rng)
        if board.try_add(TilePlacement(float(c[0]), float(c[1]), ang + rot + rng.normal(0, 1.5), a, b, face_up)):
            count += 1
        else:
            board.deck.put_back((a, b))
    return count


def arm_occluder(rng: np.random.Generator, box: tuple[float, float, float, float],
                 target: tuple[float, float]) -> Occluder:
    """A skin-coloured arm+hand polygon reaching from a table edge toward ``target`` (mm)."""
    x0, y0, x1, y1 = box
    edge = int(rng.integers(4))
    if edge == 0:
        root = np.array([rng.uniform(x0, x1), y0 - 200])
    elif edge == 1:
        root = np.array([x1 + 200, rng.uniform(y0, y1)])
    elif edge == 2:
        root = np.array([rng.uniform(x0, x1), y1 + 200])
    else:
        root = np.array([x0 - 200, rng.uniform(y0, y1)])
    tip = np.asarray(target, float) + rng.normal(0, 30, 2)
    d = tip - root
    d /= np.linalg.norm(d) + 1e-9
    n = np.array([-d[1], d[0]])
    w = rng.uniform(35, 55)
    palm = tip - d * 40
    pts = [root + n * w * 1.2, palm + n * w, tip + n * w * 0.6, tip + d * 35, tip - n * w * 0.6, palm - n * w,
           root - n * w * 1.2]
    poly = np.array(pts, np.float64)
    skin = [(80, 120, 190), (100, 150, 220), (60, 90, 140), (40, 60, 95), (120, 170, 230)][rng.integers(5)]
    skin = tuple(int(np.clip(c + rng.integers(-15, 16), 0, 255)) for c in skin)
    return Occluder(poly, skin, float(rng.uniform(30, 80)))


def sets_used(placements: list[TilePlacement]) -> int:
    """Complete sets a table's tiles need: the most copies of any one tile (0 for no tile)."""
    counts = Counter((min(p.a, p.b), max(p.a, p.b)) for p in placements)
    return max(counts.values(), default=0)


def sample_layout(rng: np.random.Generator, box: tuple[float, float, float, float], max_pips: int = 6
                  ) -> list[TilePlacement]:
    """A plausible table: a line of play or spinner, maybe hands, a boneyard and stray tiles.

    ``box`` is the usable table area (x0, y0, x1, y1) in mm.
    """
    board = _Board(*box, max_pips=max_pips)
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    w, h = x1 - x0, y1 - y0
    centre = (cx + rng.uniform(-0.2, 0.2) * w, cy + rng.uniform(-0.2, 0.2) * h)
    ang = float(rng.choice([0.0, 90.0, 180.0, 270.0]) + rng.normal(0, 8))
    if rng.random() < 0.4:
        spinner(board, rng, centre, ang, (1, 6), max_pips)
    else:
        line_of_play(board, rng, centre, ang, int(rng.integers(3, 20)), max_pips)
        if rng.random() < 0.7:
            line_of_play(board, rng, centre, ang + 180.0, int(rng.integers(1, 12)), max_pips)
    for edge in range(4):
        if rng.random() < 0.4:
            hand(board, rng, edge, int(rng.integers(3, 8)), bool(rng.random() < 0.4), max_pips)
    for _ in range(int(rng.integers(0, 3))):
        bc = (float(rng.uniform(x0 + 0.1 * w, x1 - 0.1 * w)), float(rng.uniform(y0 + 0.1 * h, y1 - 0.1 * h)))
        boneyard(board, rng, bc, int(rng.integers(3, 15)), max_pips)
    # Stray tiles, denser on small tables so windows are rarely empty.
    area_tiles = (w * h) / (TILE_LONG_MM * TILE_SHORT_MM)
    scattered(board, rng, int(rng.integers(0, max(2, int(area_tiles * 0.04)) + 1)), 0.6, max_pips)
    return board.placed
