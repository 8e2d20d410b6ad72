"""Where a whole-hand video's undealt tiles may lie: clear of the hands and of the line of play.

The review tells a boneyard tile from a hand's by where it lies: a face-down tile in a playing
seat's hand area (``calibration.seats.HAND_ZONE_MM`` of its edge) is that seat's, and a box first
seen a fraction of a tile from the line of play once a tile was laid there is the table beside
that tile (``vision.tracking``). A boneyard in a hand area is not counted, and the draws from it
are lost (helper-168: with four seats the block in the top-left corner lay in N's and W's hand
areas). :func:`clear_of_hands` checks a
placement (``Script.boneyard_poses`` tries the edges no one plays from first);
:func:`interior_block` is the place left when those have no room (every edge is played from, or
too many tiles): the table's middle, above and below the line of play, which :func:`keep_out`
fences off for the planner.

Table millimetres, x right, y down, seats at the default edges (``docs/footage.md``).
"""

from __future__ import annotations

import shapely

from calibration.seats import DEFAULT_SEAT_SPEC, HAND_ZONE_MM, hand_area_polygon, parse_seat_spec
from datasets.render.layouts import TilePlacement
from datasets.render.line_of_play import Box
from datasets.render.tiles import TILE_LONG_MM, TILE_SHORT_MM

CLEAR_MM = 10.0  # least gap between a boneyard tile and a playing seat's hand area
# the line keeps this far from a fenced boneyard, as players keep the boneyard clear of the line (the
# review counts a boneyard tile nearer the line too, when seen before the tile laid against it)
LINE_CLEAR_MM = TILE_LONG_MM / 2
ROW_STEP_MM = TILE_SHORT_MM + 4.0  # the block's spacing across the tiles' long axes ...
COL_STEP_MM = TILE_LONG_MM + 6.0  # ... and along them

_SEAT_EDGES = parse_seat_spec(DEFAULT_SEAT_SPEC)


def _footprint(p: TilePlacement) -> shapely.Polygon:
    return shapely.Polygon(p.corners_mm())


def clear_of_hands(poses: list[TilePlacement], seats: list[str], table_mm: tuple[float, float]) -> bool:
    """Whether every tile of ``poses`` lies at least :data:`CLEAR_MM` from each playing seat's hand area.

    Args:
        poses: tile poses, table mm.
        seats: the playing seats (N/E/S/W, at the default edges).
        table_mm: (W, H) of the table, mm.
    """
    if not poses or not seats:
        return True
    areas = shapely.union_all([hand_area_polygon(_SEAT_EDGES[s], table_mm) for s in seats])
    return all(shapely.distance(_footprint(p), areas) >= CLEAR_MM for p in poses)


def interior_block(n: int, table_mm: tuple[float, float]) -> list[TilePlacement]:
    """Face-down poses for ``n`` tiles in the middle of the table, clear of every edge's hand area.

    Rows of tiles (long axes along x) lie between the hand areas and the line of play, which runs
    along x through the table's centre: columns of rows fill in from the NE corner toward W and
    from the SW corner toward E, a tile to each in turn. Those corners are the last the line
    reaches, as its arms turn clockwise at the play area's edge (W's up the W side and along the N
    side, E's down the E side and along the S side), and each arm meets half of the tiles.

    Args:
        n: tiles, >= 0.
        table_mm: (W, H) of the table, mm.

    Returns:
        ``n`` poses (angle 0, face down, pips 0-0), each :data:`CLEAR_MM` or more from every hand
        area (:data:`calibration.seats.HAND_ZONE_MM` of any edge) and :data:`LINE_CLEAR_MM` from
        the band of the line of play (one tile length wide, a crosswise double's).

    Raises:
        ValueError: the table has no room for ``n`` such tiles.
    """
    w, h = table_mm
    inset = HAND_ZONE_MM + CLEAR_MM  # from every edge to the nearest tile outline
    band = h / 2 - TILE_LONG_MM / 2 - LINE_CLEAR_MM  # the line's band, grown by the clearance: y of its top
    rows = _fits(band - inset, TILE_SHORT_MM, ROW_STEP_MM)  # as many below it, the table being symmetric
    cols = _fits(w - 2 * inset, TILE_LONG_MM, COL_STEP_MM)
    x_east, x_west = w - inset - TILE_LONG_MM / 2, inset + TILE_LONG_MM / 2
    y_north, y_south = inset + TILE_SHORT_MM / 2, h - inset - TILE_SHORT_MM / 2
    north = [(x_east - c * COL_STEP_MM, y_north + r * ROW_STEP_MM) for c in range(cols) for r in range(rows)]
    south = [(x_west + c * COL_STEP_MM, y_south - r * ROW_STEP_MM) for c in range(cols) for r in range(rows)]
    slots = [xy for pair in zip(north, south) for xy in pair]
    if n > len(slots):
        raise ValueError(f"a {w:g} x {h:g} mm table has room for {len(slots)} boneyard tiles clear of the "
                         f"hand areas and the line of play, not {n}")
    return [TilePlacement(x, y, 0.0, 0, 0, False) for x, y in slots[:n]]


def _fits(span_mm: float, size_mm: float, step_mm: float) -> int:
    """How many items ``size_mm`` long, ``step_mm`` apart, fit in ``span_mm``."""
    return 0 if span_mm < size_mm else int((span_mm - size_mm) // step_mm) + 1


def keep_out(poses: list[TilePlacement]) -> list[Box]:
    """Boxes the line of play keeps out of around a boneyard (``Planner(keep_out=...)``): each
    tile's bounding box grown by :data:`LINE_CLEAR_MM`, mm."""
    out = []
    for p in poses:
        c = p.corners_mm()
        (x0, y0), (x1, y1) = c.min(axis=0) - LINE_CLEAR_MM, c.max(axis=0) + LINE_CLEAR_MM
        out.append(Box(float(x0), float(y0), float(x1), float(y1)))
    return out
