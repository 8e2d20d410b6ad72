"""Line-of-play geometry: where each tile of an engine hand lies on the table (mm).

Follows the engine's layout (``engine/layout.py``): the lead at the table centre, its
first half facing W; arm ``W`` grows toward -x and ``E`` toward +x; doubles are laid
crosswise; a spinner opens arms ``N``/``S`` (``N2``/``S2``, ... for later spinners) from
its two ends, perpendicular to its line, ``N`` being the side toward -y. Touching
tiles are end to end with a gap of :data:`GAP_MM`. When the next tile would leave the
play area or hit another tile, the arm turns 90 degrees (clockwise first: E turns
toward +y, W toward -y, N toward +x, S toward -x; then the other way), the turning
tile lying crosswise in front of the open end so that its touching half covers it. A
double that turns is laid lengthwise like any tile (never a spinner: spinners stay
crosswise on the line). A short look-ahead keeps arms out of dead ends.

The invariant the vision side relies on: a tile's *contact point* (its touching half's
centre, or the centre of a crosswise double) is within ``TILE_SHORT_MM + GAP_MM`` of
the *anchor* of the end it was played on (the outer half's centre of the previous
tile, the centre of a crosswise double, or the matching half of the lead or spinner).
Tiles never overlap unless the table is full (then ``Planner.fallbacks`` counts them).

Coordinates are table millimetres, x right, y down (``docs/calibration.md``); angles
are degrees, counter-clockwise in the x-right/y-down frame as the renderer uses them
(``TilePlacement.angle_deg``, the direction from half ``a`` to half ``b``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from datasets.render.layouts import TilePlacement
from datasets.render.tiles import TILE_LONG_MM, TILE_SHORT_MM
from vision.obb import convex_overlap

GAP_MM = 0.5  # gap between touching tiles, mm
_L, _S = TILE_LONG_MM, TILE_SHORT_MM


def _rot90(d: np.ndarray) -> np.ndarray:
    """``d`` turned +90 degrees in the x-right/y-down frame (E -> S, S -> W), (2,)."""
    return np.array([-d[1], d[0]])


def _unit(angle_deg: float) -> np.ndarray:
    t = np.deg2rad(angle_deg)
    return np.array([np.cos(t), np.sin(t)])


def _angle(d: np.ndarray) -> float:
    return float(np.rad2deg(np.arctan2(d[1], d[0])))


def overlap_area(p: TilePlacement, q: TilePlacement) -> float:
    """Area (mm^2) of the intersection of two tiles' footprints on the table."""
    return convex_overlap(p.corners_mm(), q.corners_mm())[0]


@dataclass(frozen=True)
class _End:
    """An open end in the frame of tile ``tile`` (u = long axis a->b, v = u turned +90 degrees).

    ``direction``: unit vector the arm grows toward; ``point``: middle of the open edge (mm);
    ``anchor``: the point the next tile's contact point must stay near (mm).
    """

    tile: int
    direction: tuple[float, float]
    point: tuple[float, float]
    anchor: tuple[float, float]


_OUTER_B = ((1.0, 0.0), (_L / 2, 0.0), (_S / 2, 0.0))  # a non-crosswise tile's end past half b
_CROSS = ((0.0, -1.0), (0.0, -_S / 2), (0.0, 0.0))  # a crosswise double's far long side


@dataclass(frozen=True)
class Box:
    """An axis-aligned rectangle on the table, mm."""

    x0: float
    y0: float
    x1: float
    y1: float

    def contains(self, p: TilePlacement) -> bool:
        c = p.corners_mm()
        return bool((c[:, 0] >= self.x0).all() and (c[:, 0] <= self.x1).all()
                    and (c[:, 1] >= self.y0).all() and (c[:, 1] <= self.y1).all())

    def inset(self, mm: float) -> "Box":
        return Box(self.x0 + mm, self.y0 + mm, self.x1 - mm, self.y1 - mm)

    def corners(self) -> np.ndarray:
        """(4, 2) float64 corners, mm, clockwise on the table (y down) from (x0, y0)."""
        return np.array([[self.x0, self.y0], [self.x1, self.y0], [self.x1, self.y1], [self.x0, self.y1]], float)


class Planner:
    """Lays the tiles of one hand as they are played, one call per play.

    Args:
        centre: (x, y) of the lead, mm.
        boxes: the areas a tile may occupy, preferred first (e.g. the play area, then
            the table inside the hand rows); the last one is always tried.
        obstacles: tiles that lie elsewhere on the table (hands, boneyard), avoided until
            :meth:`lift` says one has left.
        keep_out: areas the line keeps out of (the room around a boneyard in the middle of the
            table, ``datasets.footage_boneyard.keep_out``): a tile enters one only where it would
            overlap a tile anywhere else.

    Attributes:
        placements: the line of play so far, in play order (bumps applied).
        contact: each tile's contact point, (2,) mm; ``anchors``: the anchor it was played at.
        fallbacks: tiles that had to be laid overlapping another (table full).
    """

    def __init__(self, centre: tuple[float, float], boxes: list[Box],
                 obstacles: list[TilePlacement] | None = None, keep_out: list[Box] | None = None) -> None:
        self.centre = centre
        self.boxes = boxes
        self.obstacles = list(obstacles or [])
        self.keep_out = list(keep_out or [])
        self.placements: list[TilePlacement] = []
        self.crosswise: list[bool] = []
        self.contact: list[np.ndarray] = []
        self.anchors: list[np.ndarray | None] = []
        self.ends: dict[str, _End] = {}
        self.spinners = 0
        self.fallbacks = 0

    # ---- frames ---------------------------------------------------------------------
    def _world(self, end: _End) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(direction, point, anchor) of an open end in table mm."""
        p = self.placements[end.tile]
        u = _unit(p.angle_deg)
        v = _rot90(u)
        c = np.array([p.x_mm, p.y_mm])
        loc = lambda xy: xy[0] * u + xy[1] * v  # noqa: E731
        return loc(end.direction), c + loc(end.point), c + loc(end.anchor)

    def _add_spinner_arms(self, k: int) -> None:
        """Open ends N/S (suffix as in the engine) at both ends of crosswise tile ``k``."""
        suffix = "" if self.spinners == 0 else str(self.spinners + 1)
        self.spinners += 1
        ends = [_End(k, (s, 0.0), (s * _L / 2, 0.0), (s * _S / 2, 0.0)) for s in (1.0, -1.0)]
        dirs = [self._world(e)[0] for e in ends]
        key = lambda v: (round(float(v[1]), 6), round(float(v[0]), 6))  # noqa: E731 - toward -y, then -x
        north = 0 if key(dirs[0]) < key(dirs[1]) else 1
        self.ends["N" + suffix] = ends[north]
        self.ends["S" + suffix] = ends[1 - north]

    # ---- plays ----------------------------------------------------------------------
    def lead(self, a: int, b: int, spinner: bool = False) -> TilePlacement:
        """Lay the lead [a|b] at the centre, half ``a`` toward W (a double crosswise)."""
        x, y = self.centre
        double = a == b
        p = TilePlacement(x, y, 90.0 if double else 0.0, a, b, True)
        self._append(p, double, np.array([x, y]) if double else np.array([x - _S / 2, y]), None)
        if double:  # crosswise: u = +y, the line runs along -v (E) and +v (W)
            self.ends["E"] = _End(0, (0.0, -1.0), (0.0, -_S / 2), (0.0, 0.0))
            self.ends["W"] = _End(0, (0.0, 1.0), (0.0, _S / 2), (0.0, 0.0))
        else:
            self.ends["E"] = _End(0, *_OUTER_B)
            self.ends["W"] = _End(0, (-1.0, 0.0), (-_L / 2, 0.0), (-_S / 2, 0.0))
        if spinner:
            self._add_spinner_arms(0)
        return p

    def play(self, a: int, b: int, end: str, spinner: bool = False) -> TilePlacement:
        """Lay tile [a (touching) | b] on open end ``end``; returns its pose.

        ``spinner``: the engine made this double a spinner (opens N/S arms at its ends).

        Raises:
            KeyError: ``end`` is not an open end of this layout.
        """
        d, pt, anchor = self._world(self.ends[end])
        double = a == b
        best: tuple[tuple[bool, int, int, int], tuple[TilePlacement, bool, np.ndarray]] | None = None
        for i, cand in enumerate(self._candidates(a, b, d, pt, turns=not (double and spinner))):
            box = next((j for j, bx in enumerate(self.boxes) if bx.contains(cand[0])), None)
            if box is None or not self._free(cand[0]):
                continue
            # out of the keep-out areas; the smallest area; then room to go on (no dead ends); straight in
            # the play area, else turn
            rank = (self._fenced(cand[0]), box, -self._room(cand), 0 if i == 0 and box == 0 else (2 if i == 0 else 1))
            if best is None or rank < best[0]:
                best = (rank, cand)
        if best is None:
            self.fallbacks += 1
            chosen = self._candidates(a, b, d, pt, turns=False)[0]
        else:
            chosen = best[1]
        p, cross, contact = chosen
        k = len(self.placements)
        self._append(p, cross, contact, anchor)
        self.ends[end] = _End(k, *(_CROSS if cross else _OUTER_B))
        if spinner and double:
            self._add_spinner_arms(k)
        return p

    def _candidates(self, a: int, b: int, d: np.ndarray, pt: np.ndarray, turns: bool = True
                    ) -> list[tuple[TilePlacement, bool, np.ndarray]]:
        """(pose, crosswise, contact point) options: straight (a double crosswise), then, when
        ``turns``, the tile turned clockwise and anticlockwise (lengthwise, touching half in front
        of the open end)."""
        if a == b:
            c = pt + d * (GAP_MM + _S / 2)
            out = [(TilePlacement(*c, _angle(d) + 90.0, a, b, True), True, c)]
        else:
            c = pt + d * (GAP_MM + _L / 2)
            out = [(TilePlacement(*c, _angle(d), a, b, True), False, c - d * _S / 2)]
        if turns:
            touch = pt + d * (GAP_MM + _S / 2)
            for turn in (_rot90(d), -_rot90(d)):
                c = touch + turn * _S / 2
                out.append((TilePlacement(*c, _angle(turn), a, b, True), False, touch))
        return out

    def _room(self, cand: tuple[TilePlacement, bool, np.ndarray], ahead: int = 2) -> int:
        """How many plain tiles (up to ``ahead``) could follow ``cand`` straight or turning
        inside the play area (first box) without touching another tile or a keep-out area."""
        p, cross, _ = cand
        u = _unit(p.angle_deg)
        c = np.array([p.x_mm, p.y_mm])
        d = -_rot90(u) if cross else u
        pt = c + d * ((_S if cross else _L) / 2)
        placed = [p]
        for n in range(ahead):
            for q, _, _ in self._candidates(0, 1, d, pt):
                if self.boxes[0].contains(q) and self._free(q, extra=placed) and not self._fenced(q):
                    break
            else:
                return n
            placed.append(q)
            d = _unit(q.angle_deg)
            pt = np.array([q.x_mm, q.y_mm]) + d * _L / 2
        return ahead

    def _free(self, p: TilePlacement, tol_mm2: float = 0.5, extra: list[TilePlacement] | None = None) -> bool:
        for q in self.placements + self.obstacles + (extra or []):
            if (p.x_mm - q.x_mm) ** 2 + (p.y_mm - q.y_mm) ** 2 < (_L + 1) ** 2 and overlap_area(p, q) > tol_mm2:
                return False
        return True

    def _fenced(self, p: TilePlacement, tol_mm2: float = 0.5) -> bool:
        """Whether ``p`` enters a ``keep_out`` area."""
        c = p.corners_mm()
        lo, hi = c.min(axis=0), c.max(axis=0)
        return any(hi[0] > b.x0 and lo[0] < b.x1 and hi[1] > b.y0 and lo[1] < b.y1
                   and convex_overlap(c, b.corners())[0] > tol_mm2 for b in self.keep_out)

    def _append(self, p: TilePlacement, cross: bool, contact: np.ndarray, anchor: np.ndarray | None) -> None:
        self.placements.append(p)
        self.crosswise.append(cross)
        self.contact.append(np.asarray(contact, float))
        self.anchors.append(None if anchor is None else np.asarray(anchor, float))

    def lift(self, p: TilePlacement) -> None:
        """Obstacle ``p`` left its place (a tile drawn from the boneyard, taken from a hand):
        the line may lie where it was, and a ``keep_out`` box centred on it (the room around that
        one tile, :func:`datasets.footage_boneyard.keep_out`) goes with it."""
        self.obstacles = [q for q in self.obstacles if q != p]
        self.keep_out = [b for b in self.keep_out
                         if not (np.isclose((b.x0 + b.x1) / 2, p.x_mm) and np.isclose((b.y0 + b.y1) / 2, p.y_mm))]

    # ---- disturbances ---------------------------------------------------------------
    def bump(self, k: int, dx_mm: float, dy_mm: float, dangle_deg: float) -> TilePlacement | None:
        """Nudge tile ``k`` (shift in mm, turn in degrees) unless it would overlap a tile.

        Later tiles attach to the nudged pose. Returns the new pose, or None (not moved).
        """
        p = self.placements[k]
        q = TilePlacement(p.x_mm + dx_mm, p.y_mm + dy_mm, p.angle_deg + dangle_deg, p.a, p.b, p.face_up)
        others = self.placements[:k] + self.placements[k + 1:] + self.obstacles
        if any(overlap_area(q, o) > 0.5 for o in others):
            return None
        self.placements[k] = q
        return q


def plan_hand(plays: list[tuple[int, int, str, bool]], centre: tuple[float, float], boxes: list[Box],
              obstacles: list[TilePlacement] | None = None) -> Planner:
    """Lay a whole hand: ``plays`` are (touching, other, end, became_spinner), the lead first."""
    planner = Planner(centre, boxes, obstacles)
    for i, (a, b, end, spin) in enumerate(plays):
        if i == 0:
            planner.lead(a, b, spin)
        else:
            planner.play(a, b, end, spin)
    return planner
