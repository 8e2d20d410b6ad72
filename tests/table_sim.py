"""Synthetic tables for the tracker tests: engine-simulated hands laid out in table geometry.

:func:`lay_hand` replays a hand's log through the engine and puts every play on a
virtual table (mm, origin top-left, x right, y down, N seat at y=0): the lead in the
middle (its W half on the left; a double crosswise), each tile straight on from its
arm's end, turning 90 degrees where the table border (or another tile) is in the way,
doubles across the line, spinner arms N (up) and S (down). The placer is written from
the physical rules, independently of :mod:`vision.layout_from_tiles`.

:class:`Scene` turns a list of laid tiles (plus hand tiles at the edges) into
observations (duck-typed like :class:`vision.observation.TileObservation`) in image
pixels: ``px = mm x PX_PER_MM``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

import numpy as np

from engine.events import Play
from engine.hand import replay
from engine.tiles import Tile

TILE_L, TILE_W = 48.0, 24.0
TABLE = (1200.0, 1000.0)  # mm
MARGIN = 160.0  # the layout stays this far from the table edge (hand areas beyond)
PX_PER_MM = 0.8
IMAGE_SIZE = (int(TABLE[0] * PX_PER_MM), int(TABLE[1] * PX_PER_MM))  # (960, 800) px


class PlacementFailed(RuntimeError):
    """The simple placer found no free spot (the test picks another seed)."""


@dataclass
class Laid:
    """A tile on the virtual table.

    ``pips`` are in polygon order (half a at ``center - axis L/2``); ``tile`` is the
    engine's oriented tile ([touching | outer], the lead [W | E]); ``seat``/``end`` as
    in the engine log (``end`` None for the lead).
    """

    center: np.ndarray
    axis: np.ndarray
    pips: tuple[int, int]
    tile: Tile | None = None
    seat: str | None = None
    end: str | None = None
    face: str = "up"
    confidence: float = 0.95
    det_score: float = 0.97  # the detector's score (a domino printed on a board: 0.2-0.35)
    face_lab: tuple[float, float, float] | None = None  # the face's body colour, OpenCV 8-bit Lab
    patch: object | None = None  # the picture round it (vision.tile_turn.TilePatch), as the recognizer keeps it

    def polygon_mm(self) -> np.ndarray:
        u = self.axis * TILE_L / 2
        v = np.array([-self.axis[1], self.axis[0]]) * TILE_W / 2
        c = self.center
        return np.stack([c - u - v, c + u - v, c + u + v, c - u + v])

    def half_centers(self) -> np.ndarray:
        return np.stack([self.center - self.axis * TILE_L / 4, self.center + self.axis * TILE_L / 4])


@dataclass
class Obs:
    """A duck-typed TileObservation (image px; no table pose: the tracker maps polygons itself)."""

    polygon_px: np.ndarray
    face: str
    det_score: float
    pips: tuple[int, int] | None
    half_confidence: tuple[float, float] | None
    center_mm: np.ndarray | None = None
    angle_deg: float | None = None
    flags: list = field(default_factory=list)
    face_lab: tuple[float, float, float] | None = None
    patch: object | None = None

    @property
    def confidence(self) -> float:
        if self.half_confidence is None:
            return self.det_score
        return self.det_score * min(self.half_confidence)


def _perp(v):
    return np.array([-v[1], v[0]])


@dataclass
class _End:
    anchor: np.ndarray
    out: np.ndarray
    reach: float  # anchor -> contact edge along out
    side: bool = False  # the long side of a crosswise double: straight on only


def _free(cand: Laid, laid: list[Laid], touched: Laid | None) -> bool:
    """Inside the layout area and clear of every tile but the one it touches (half-square clearance)."""
    poly = cand.polygon_mm()
    if poly[:, 0].min() < MARGIN or poly[:, 1].min() < MARGIN or poly[:, 0].max() > TABLE[0] - MARGIN \
            or poly[:, 1].max() > TABLE[1] - MARGIN:
        return False
    hc = cand.half_centers()
    for other in laid:
        if other is touched:
            continue
        d = np.linalg.norm(hc[:, None, :] - other.half_centers()[None, :, :], axis=2)
        if d.min() < 1.45 * TILE_L / 2:
            return False
    return True


def _oriented(center, direction, touching: int, outer: int, rng: random.Random) -> Laid:
    """A tile whose touching half is at ``center - direction L/4``; the polygon order is random."""
    if rng.random() < 0.5:
        return Laid(np.asarray(center, float), np.asarray(direction, float), (touching, outer))
    return Laid(np.asarray(center, float), -np.asarray(direction, float), (outer, touching))


def lay_hand(rules, log: list, seed: int = 0) -> list[Laid]:
    """Lay every play of ``log`` (replayed under ``rules``) on the virtual table, in order.

    Raises:
        PlacementFailed: some tile found no free spot.
    """
    rng = random.Random(seed)
    st = replay(rules, log)
    plays = [o for o in st.outcomes if isinstance(o.event, Play)]
    laid: list[Laid] = []
    ends: dict[str, _End] = {}
    last: dict[str, Laid] = {}
    cx, cy = TABLE[0] / 2 + rng.uniform(-60, 60), TABLE[1] / 2 + rng.uniform(-60, 60)
    h = TILE_L / 2
    spinners = 0
    for out in plays:
        p = out.placement
        tile = p.tile
        seat = out.event.seat
        if p.end == "lead":
            c = np.array([cx, cy])
            if tile.is_double:  # crosswise: axis along y
                lt = Laid(c, np.array([0.0, 1.0]) * (1 if rng.random() < 0.5 else -1), (tile.a, tile.b))
                ends["W"] = _End(c.copy(), np.array([-1.0, 0.0]), TILE_W / 2, True)
                ends["E"] = _End(c.copy(), np.array([1.0, 0.0]), TILE_W / 2, True)
                if p.became_spinner:
                    spinners += 1
                    ends["N"] = _End(c + np.array([0, -h / 2]), np.array([0.0, -1.0]), h / 2)
                    ends["S"] = _End(c + np.array([0, h / 2]), np.array([0.0, 1.0]), h / 2)
            else:  # W half (tile.a) on the left
                lt = _oriented(c + np.array([h / 2, 0]), np.array([1.0, 0.0]), tile.a, tile.b, rng)
                ends["W"] = _End(c + np.array([-h / 2, 0]), np.array([-1.0, 0.0]), h / 2)
                ends["E"] = _End(c + np.array([h / 2, 0]), np.array([1.0, 0.0]), h / 2)
                lt.center = c
            lt.tile, lt.seat, lt.end = tile, seat, None
            laid.append(lt)
            for name in ends:
                last[name] = lt
            continue
        e = ends[p.end]
        touched = last[p.end]
        o = e.out
        placed = None
        if tile.is_double:  # crosswise, centre beyond the end
            c = e.anchor + o * (e.reach + TILE_W / 2)
            cand = Laid(c, _perp(o) * (1 if rng.random() < 0.5 else -1), (tile.a, tile.b))
            if _free(cand, laid, touched):
                placed = cand
                new_end = _End(c.copy(), o.copy(), TILE_W / 2, True)
        else:
            q = e.anchor + o * (e.reach + h / 2)  # touching half centre, straight on
            options = [o]
            if not e.side:  # turns only off a tile's end, not off a double's side
                turns = [_perp(o), -_perp(o)]
                rng.shuffle(turns)
                options += turns
            for d in options:
                cand = _oriented(q + d * h / 2, d, tile.a, tile.b, rng)
                if _free(cand, laid, touched):
                    placed = cand
                    new_end = _End(q + d * h, d.copy(), h / 2)
                    break
        if placed is None:
            raise PlacementFailed(f"no room for {tile} on {p.end}")
        placed.tile, placed.seat, placed.end = tile, seat, p.end
        laid.append(placed)
        ends[p.end] = new_end
        last[p.end] = placed
        if p.became_spinner:
            # spinner arms come off the double's ends: N the one facing smaller y; the engine
            # names a layout's spinners' arms N/S, N2/S2, ... in order
            suf = "" if spinners == 0 else str(spinners + 1)
            spinners += 1
            outs = [-placed.axis, placed.axis]
            n_first = 0 if (outs[0][1] < outs[1][1] - 0.2 or (abs(outs[0][1] - outs[1][1]) < 0.2
                                                              and outs[0][0] <= outs[1][0])) else 1
            for name, k in ((f"N{suf}", n_first), (f"S{suf}", 1 - n_first)):
                ends[name] = _End(placed.center + outs[k] * h / 2, outs[k], h / 2)
                last[name] = placed
    return laid


def hand_tiles(rng: random.Random, per_seat: int = 4) -> list[Laid]:
    """Face-down tiles in each seat's hand area (within 80 mm of its edge)."""
    out = []
    W, H = TABLE
    for seat in "NESW":
        for i in range(per_seat):
            s = 300 + i * 60 + rng.uniform(-5, 5)
            if seat == "N":
                c, ax = (s, 50), (0.0, 1.0)
            elif seat == "S":
                c, ax = (s, H - 50), (0.0, 1.0)
            elif seat == "W":
                c, ax = (50, s), (1.0, 0.0)
            else:
                c, ax = (W - 50, s), (1.0, 0.0)
            out.append(Laid(np.array(c, float), np.array(ax), (0, 0), face="down"))
    return out


def observe(tiles: list[Laid], to_px=None) -> list[Obs]:
    """Observations of ``tiles``: polygons in image px (``to_px``: (N, 2) mm -> px; default x PX_PER_MM)."""
    to_px = to_px or (lambda mm: mm * PX_PER_MM)
    out = []
    for t in tiles:
        poly = np.asarray(to_px(t.polygon_mm()), np.float32)
        if t.face == "down":
            out.append(Obs(poly, "down", 0.9, None, None))
        else:
            out.append(Obs(poly, "up", t.det_score, t.pips, (t.confidence, t.confidence), face_lab=t.face_lab,
                           patch=t.patch))
    return out


def moved(t: Laid, dx: float, dy: float) -> Laid:
    """A copy of ``t`` moved by (dx, dy) mm."""
    return replace(t, center=t.center + np.array([dx, dy]))


SEAT_SIDE = {"N": "top", "E": "right", "S": "bottom", "W": "left"}


def entry_point(seat: str) -> np.ndarray:
    """(2,) image px on the border of ``seat``'s edge, where an arm from there enters."""
    w, h = IMAGE_SIZE
    return np.array({"N": (w / 2, 1), "S": (w / 2, h - 2), "W": (1, h / 2), "E": (w - 2, h / 2)}[seat], np.float32)

