"""Footage generator: the undealt tiles lie clear of the playing seats' hand areas and of the line of play."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from calibration.seats import EDGES, hand_area_edge, hand_area_polygon
from datasets.footage_boneyard import interior_block
from datasets.footage_script import Script
from datasets.render.layouts import TilePlacement
from datasets.render.line_of_play import Box, Planner
from engine.tiles import full_set
from vision.tracking import TrackerConfig

SEAT_AT = ("N", "E", "S", "W")  # the seats at EDGES y=0, x=W, y=H, x=0 (the footage's seat spec)


def _in_a_hand_area(points: np.ndarray, table: tuple[float, float], seats: list[str]) -> np.ndarray:
    """The review's rule, written out: a point less than ``hand_zone_mm`` from its nearest edge lies in
    the hand area of the seat at that edge, which counts when the seat plays."""
    w, h = table
    x, y = points[:, 0], points[:, 1]
    dist = np.stack([y, w - x, h - y, x], axis=1)
    nearest = dist.argmin(axis=1)
    playing = np.array([s in seats for s in SEAT_AT])
    return (dist.min(axis=1) < TrackerConfig().hand_zone_mm) & playing[nearest]


def _footprint_samples(p: TilePlacement, margin_mm: float) -> np.ndarray:
    """A 9 x 5 grid over the tile grown by ``margin_mm`` on every side, table mm."""
    t = np.deg2rad(p.angle_deg)
    u, v = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    along = np.linspace(-24.0 - margin_mm, 24.0 + margin_mm, 9)  # a 48 x 24 mm tile
    across = np.linspace(-12.0 - margin_mm, 12.0 + margin_mm, 5)
    return np.array([[p.x_mm, p.y_mm] + a * u + b * v for a in along for b in across])


def _dealt_table(seats: list[str], set_max: int, hand_size: int, table: tuple[float, float]) -> Script:
    tiles = [t.key for t in full_set(set_max)]
    hands = {s: tiles[i * hand_size:(i + 1) * hand_size] for i, s in enumerate(seats)}
    script = Script(table, 15.0, np.random.default_rng(0), {s: (0, 0, 0) for s in seats})
    script.deal(hands, tiles[len(seats) * hand_size:])
    return script


@pytest.mark.parametrize("seats, set_max, hand_size, table", [
    (["N", "S"], 9, 7, (1000.0, 600.0)),  # 41 undealt: the W column's third column reached N's and S's areas
    (["N", "E", "S"], 9, 7, (1000.0, 600.0)),  # 34 undealt, the same
    (["N", "E", "S", "W"], 6, 5, (1000.0, 600.0)),  # helper-168's draw4: 8 undealt in the NW corner
    (["N", "E", "S", "W"], 9, 7, (1000.0, 600.0)),
    (["N", "E", "S", "W"], 6, 3, (800.0, 800.0)),
])
def test_the_boneyard_lies_outside_every_playing_seats_hand_area(seats, set_max, hand_size, table):
    script = _dealt_table(seats, set_max, hand_size, table)
    yard = [p for p, where in script.tiles.values() if where == "boneyard"]
    assert len(yard) == (set_max + 1) * (set_max + 2) // 2 - len(seats) * hand_size
    for p in yard:
        pts = _footprint_samples(p, margin_mm=5.0)
        assert not _in_a_hand_area(pts, table, seats).any(), (p.x_mm, p.y_mm)
        assert (pts >= 0).all() and (pts <= table).all(), (p.x_mm, p.y_mm)


def test_the_line_of_play_goes_round_a_fenced_off_boneyard():
    # the E arm runs along y = 300 from x = 524; a fence from x = 700 stands in its way
    table = Box(0.0, 0.0, 1000.0, 600.0)
    fence = Box(700.0, 250.0, 800.0, 350.0)
    planner = Planner((500.0, 300.0), [table.inset(75.0), table.inset(62.0)], keep_out=[fence])
    planner.lead(0, 1)
    for a in range(1, 9):
        planner.play(a % 7, (a + 1) % 7, "E")
    fenced = shapely.box(fence.x0, fence.y0, fence.x1, fence.y1)
    assert all(shapely.Polygon(p.corners_mm()).intersection(fenced).area < 0.01 for p in planner.placements)
    assert planner.fallbacks == 0
    assert max(p.x_mm for p in planner.placements) < 700.0  # it turned before the fence


def test_a_fence_gives_way_where_a_tile_would_otherwise_overlap_another():
    # the whole table fenced off: the line is laid as without a fence, nothing overlapping
    table = Box(0.0, 0.0, 1000.0, 600.0)
    boxes = [table.inset(75.0), table.inset(62.0)]
    fenced, free = Planner((500.0, 300.0), boxes, keep_out=[table]), Planner((500.0, 300.0), boxes)
    for planner in (fenced, free):
        planner.lead(0, 1)
        for a in range(1, 6):
            planner.play(a, a + 1, "E")
    assert fenced.fallbacks == 0
    assert fenced.placements == free.placements
    assert [p.x_mm for p in fenced.placements] == [500.0] + [524.0 + 0.5 * k + 48.0 * (k - 0.5) for k in range(1, 6)]


def test_the_hand_area_polygon_holds_the_points_the_review_gives_to_its_edge():
    # a trapezoid per edge; a narrow table's W and E areas meet (even grids: no point on a tie)
    for table in [(1000.0, 600.0), (150.0, 600.0)]:
        w, h = table
        xs, ys = np.meshgrid(np.linspace(0.5, w - 0.5, 60), np.linspace(0.7, h - 0.7, 52))
        for x, y in zip(xs.ravel(), ys.ravel()):
            edge = hand_area_edge(np.array([x, y]), table)
            for e in EDGES:
                inside = hand_area_polygon(e, table).contains(shapely.Point(x, y))
                assert inside == (edge == e), (table, x, y, e, edge)


def test_a_table_without_room_for_the_boneyard_says_so():
    # 400 x 300: 120 mm in from each edge leaves no row above the line of play's band
    with pytest.raises(ValueError, match="room for 0 boneyard tiles"):
        interior_block(8, (400.0, 300.0))
