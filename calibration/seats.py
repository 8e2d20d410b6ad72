"""Seats (N/E/S/W) and which table edge each one sits at.

Table edges are named in table coordinates (millimetres, origin at the corner with
marker 0, x towards marker 1, y towards marker 3; see docs/calibration.md):

* ``"y=0"`` - the edge from corner 0 to corner 1
* ``"x=W"`` - the edge from corner 1 to corner 2
* ``"y=H"`` - the edge from corner 2 to corner 3
* ``"x=0"`` - the edge from corner 3 to corner 0

A *seat spec* is four letters giving the seat at those edges in that order; the
default ``"NESW"`` puts N at y=0, E at x=W, S at y=H and W at x=0 (north up in the
top-down table image).  The edges above go round clockwise seen from above, and the
engine's seats go N -> E -> S -> W clockwise (``engine.seats``), so a spec must be a
rotation of NESW: ``NESW``, ``ESWN``, ``SWNE`` or ``WNES``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import shapely

from calibration.errors import CalibrationError

Seat = Literal["N", "E", "S", "W"]
Edge = Literal["y=0", "x=W", "y=H", "x=0"]

SEATS: tuple[Seat, ...] = ("N", "E", "S", "W")
EDGES: tuple[Edge, ...] = ("y=0", "x=W", "y=H", "x=0")
DEFAULT_SEAT_SPEC = "NESW"

#: A seat's hand area on a calibrated table: the points less than this many millimetres from the
#: seat's edge and nearer to it than to any other edge. The review counts a face-down tile whose
#: centre lies there as in that seat's hand (``vision.tracking``), and the footage generator keeps
#: its boneyard clear of the playing seats' areas (``datasets.footage_boneyard``).
HAND_ZONE_MM = 110.0


def parse_seat_spec(spec: str) -> dict[Seat, Edge]:
    """Parse a seat spec such as ``"NESW"`` or ``"e,s,w,n"``.

    Args:
        spec: the seats at edges y=0, x=W, y=H, x=0 in that order; one letter each,
            case-insensitive, separators (comma, space, ``-``, ``/``) ignored.

    Returns:
        Mapping seat letter -> edge name, e.g. ``{"N": "y=0", "E": "x=W", ...}``.

    Raises:
        CalibrationError: not the four letters N, E, S, W once each, or not in clockwise
            order (a rotation of NESW).
    """
    letters = [c for c in spec.upper() if c not in " ,-/"]
    if sorted(letters) != sorted(SEATS):
        raise CalibrationError(
            f"bad seat spec {spec!r}: expected the four letters N, E, S, W once each, "
            "giving the seats at edges y=0, x=W, y=H, x=0 in that order (e.g. NESW)")
    rotations = ["".join(SEATS[(i + k) % 4] for i in range(4)) for k in range(4)]
    if "".join(letters) not in rotations:
        raise CalibrationError(
            f"bad seat spec {spec!r}: seats go round clockwise N, E, S, W seen from above, "
            f"so the spec must be one of {', '.join(rotations)}")
    return {letter: edge for letter, edge in zip(letters, EDGES)}  # type: ignore[misc]


def seat_spec(seat_edges: dict[Seat, Edge]) -> str:
    """Inverse of :func:`parse_seat_spec`: ``{"N": "y=0", ...}`` -> ``"NESW"``."""
    by_edge = {edge: seat for seat, edge in seat_edges.items()}
    return "".join(by_edge[edge] for edge in EDGES)


def edge_distances_mm(point_mm: np.ndarray, table_size_mm: tuple[float, float]) -> np.ndarray:
    """Signed distances (mm) from a point to the edges, in :data:`EDGES` order.

    Args:
        point_mm: ``(2,)`` table point ``(x, y)`` in millimetres.
        table_size_mm: ``(W, H)`` in millimetres.

    Returns:
        ``(4,)`` float64: ``[y, W - x, H - y, x]``; positive inside the table, negative
        beyond that edge.
    """
    x, y = (float(v) for v in np.asarray(point_mm, np.float64).reshape(2))
    w, h = table_size_mm
    return np.array([y, w - x, h - y, x], dtype=np.float64)


def points_on_table(points_mm: np.ndarray, table_size_mm: tuple[float, float], margin_mm: float = 0.0) -> np.ndarray:
    """Which table points lie on the table grown by ``margin_mm`` on every side (edges included).

    Args:
        points_mm: ``(N, 2)`` (or ``(2,)``) table points ``(x, y)`` in millimetres.
        table_size_mm: ``(W, H)`` in millimetres.
        margin_mm: how far beyond an edge a point still counts, mm.

    Returns:
        ``(N,)`` bool.
    """
    p = np.asarray(points_mm, np.float64).reshape(-1, 2)
    w, h = table_size_mm
    return (p[:, 0] >= -margin_mm) & (p[:, 0] <= w + margin_mm) & (p[:, 1] >= -margin_mm) & (p[:, 1] <= h + margin_mm)


def nearest_edge(point_mm: np.ndarray, table_size_mm: tuple[float, float]) -> Edge:
    """The edge nearest to a ``(2,)`` table point in mm (the smallest signed distance).

    Points outside the table go to the edge they lie beyond (furthest beyond, at a
    corner).  Ties go to the first edge in :data:`EDGES` order.
    """
    return EDGES[int(np.argmin(edge_distances_mm(point_mm, table_size_mm)))]


def hand_area_edge(point_mm: np.ndarray, table_size_mm: tuple[float, float],
                   depth_mm: float = HAND_ZONE_MM) -> Edge | None:
    """The edge whose hand area holds a table point (see :data:`HAND_ZONE_MM`), or None.

    Args:
        point_mm: ``(2,)`` table point ``(x, y)`` in millimetres.
        table_size_mm: ``(W, H)`` in millimetres.
        depth_mm: how far in from its edge a hand area reaches, mm.

    Returns:
        The :func:`nearest_edge` when the point lies less than ``depth_mm`` inside it (or beyond
        it), else None.
    """
    d = edge_distances_mm(point_mm, table_size_mm)
    k = int(np.argmin(d))
    return EDGES[k] if d[k] < depth_mm else None


def hand_area_polygon(edge: Edge, table_size_mm: tuple[float, float],
                      depth_mm: float = HAND_ZONE_MM) -> shapely.Polygon:
    """The hand area at ``edge`` on the table as a polygon in table millimetres: the table
    points :func:`hand_area_edge` gives to that edge (the polygon's boundary aside).

    A trapezoid along the edge, its sides the corners' 45-degree bisectors; a triangle where the
    table is less than twice ``depth_mm`` across.

    Raises:
        KeyError: ``edge`` is not one of :data:`EDGES`.
    """
    w, h = table_size_mm
    # (u along the edge, v inward) -> table (x, y), with the edge's length and the depth of the table
    to_xy, length, across = {
        "y=0": (lambda u, v: (u, v), w, h),
        "x=W": (lambda u, v: (w - v, u), h, w),
        "y=H": (lambda u, v: (w - u, h - v), w, h),
        "x=0": (lambda u, v: (v, h - u), h, w),
    }[edge]
    m = min(depth_mm, across / 2, length / 2)
    return shapely.Polygon([to_xy(0.0, 0.0), to_xy(length, 0.0), to_xy(length - m, m), to_xy(m, m)])
