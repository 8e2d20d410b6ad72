"""Tiles washed out by glare, fitted to their pips (vision.glare_pips)."""

import cv2
import numpy as np

from vision.glare_pips import HALF_PATTERNS, fit_tiles, glare_tiles, outline_washed
from vision.obb import polygon_iou

TILE = 48.0  # tile long side, px: lattice unit d = a quarter of the 24 px half = 6 px
D = TILE / 8


def _pip_cells(n: int) -> list[tuple[int, int]]:
    """Hand-listed (along, across) lattice cells of a half's pips about its centre, one orientation."""
    return {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
            4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
            6: [(-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1)]}[n]


def _tile_pips(a: int, b: int, centre: tuple[float, float], angle_deg: float) -> np.ndarray:
    """(K, 2) pixel pip centres of an a|b tile, half a towards -along, long axis at angle_deg."""
    t = np.deg2rad(angle_deg)
    along, across = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    pts = [np.asarray(centre) + D * ((u + off) * along + v * across)
           for n, off in ((a, -2), (b, 2)) for u, v in _pip_cells(n)]
    return np.array(pts)


def _outline(centre, angle_deg) -> np.ndarray:
    t = np.deg2rad(angle_deg)
    along, across = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    return np.array([np.asarray(centre) + 4 * D * su * along + 2 * D * sv * across
                     for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))])




def test_half_patterns_are_the_standard_layouts_in_every_quarter_turn():
    # 1, 4 and 5 look the same turned; 2, 3 and 6 have two orientations each
    by_value = {}
    for cells, n in HALF_PATTERNS.items():
        by_value.setdefault(n, []).append(cells)
        assert len(cells) == n
    assert {n: len(v) for n, v in by_value.items()} == {1: 1, 2: 2, 3: 2, 4: 1, 5: 1, 6: 2}
    assert HALF_PATTERNS[frozenset({(1, -1), (-1, 1)})] == 2
    assert HALF_PATTERNS[frozenset({(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)})] == 6


def test_a_tile_is_fitted_from_its_pips_with_outline_and_values_in_order():
    centre, angle = (300.0, 200.0), 30.0
    tiles = fit_tiles(_tile_pips(5, 3, centre, angle), TILE, (480, 640))
    assert len(tiles) == 1
    t = tiles[0]
    assert polygon_iou(t.polygon_px, _outline(centre, angle)) > 0.97
    # a 5|3 read either way round, with a at corners 0/3
    five_side = np.asarray(centre) + 2 * D * np.array([-np.cos(np.deg2rad(angle)), -np.sin(np.deg2rad(angle))])
    a_side = (t.polygon_px[0] + t.polygon_px[3]) / 2
    b_side = (t.polygon_px[1] + t.polygon_px[2]) / 2
    near_a = np.linalg.norm(a_side - five_side) < np.linalg.norm(b_side - five_side)
    assert t.pips == ((5, 3) if near_a else (3, 5))
    assert t.n_pips == 8


def test_touching_tiles_in_a_line_are_split_where_every_pip_is_held():
    # 1|5 then 5|3 end to end: "5|5" across the join is a valid tile too, but leaves the 1 and the 3 over
    pts = np.vstack([_tile_pips(1, 5, (200.0, 200.0), 0.0), _tile_pips(5, 3, (200.0 + TILE, 200.0), 0.0)])
    tiles = fit_tiles(pts, TILE, (480, 640))
    assert sorted(t.pips for t in tiles) == [(1, 5), (5, 3)]


def test_pips_that_fit_two_ways_give_no_tile():
    # three 5-halves in a row: 5|5 on the left or on the right, each holding 10 of the 15 pips
    pts = np.vstack([_tile_pips(5, 5, (200.0, 200.0), 0.0), _tile_pips(5, 1, (200.0 + TILE, 200.0), 0.0)[:5]])
    assert fit_tiles(pts, TILE, (480, 640)) == []


def test_a_box_already_found_keeps_its_pips():
    pts = _tile_pips(6, 4, (300.0, 200.0), 10.0)
    assert len(fit_tiles(pts, TILE, (480, 640))) == 1
    assert fit_tiles(pts, TILE, (480, 640), _outline((300.0, 200.0), 10.0)[None]) == []


def _washed_frame(outline_grey: int | None, pip_grey: int = 225) -> tuple[np.ndarray, np.ndarray]:
    """A 640x480 frame: a dark table, a glare spot of near-white, and a 4|3 tile in it whose only
    trace is its pips, ``pip_grey`` (25 grey levels below the white; and its outline, when drawn)."""
    frame = np.full((480, 640, 3), 90, np.uint8)
    cv2.circle(frame, (320, 240), 150, (250, 250, 250), -1)
    rng = np.random.default_rng(0)
    frame = np.clip(frame + rng.normal(0, 1.0, frame.shape), 0, 255).astype(np.uint8)
    if outline_grey is not None:
        cv2.polylines(frame, [np.round(_outline((320.0, 240.0), -25.0)).astype(np.int32)], True,
                      (outline_grey,) * 3, 2)
    for x, y in _tile_pips(4, 3, (320.0, 240.0), -25.0):
        cv2.circle(frame, (int(round(x * 16)), int(round(y * 16))), int(0.085 * TILE / 2 * 16), (pip_grey,) * 3,
                   -1, cv2.LINE_AA, 4)
    return frame, _outline((320.0, 240.0), -25.0)


def test_glare_tiles_finds_the_washed_out_tile_and_only_where_its_outline_is_lost():
    frame, truth = _washed_frame(None)
    tiles = glare_tiles(frame, TILE)
    assert len(tiles) == 1 and sorted(tiles[0].pips) == [3, 4]
    assert polygon_iou(tiles[0].polygon_px, truth) > 0.9
    grey = frame.min(axis=2)
    assert outline_washed(grey, truth) == 1.0
    # the same pips inside a visible edge: a white tile the detector should have boxed, not glare
    edged, _ = _washed_frame(120)
    assert glare_tiles(edged, TILE) == []
    # no washed area at all: nothing looked at
    assert glare_tiles(np.full((480, 640, 3), 90, np.uint8), TILE) == []
    # the same dots black, as on white paper or dice (helper-132): glare leaves no pip that dark
    black, _ = _washed_frame(None, pip_grey=20)
    assert glare_tiles(black, TILE) == []


def test_the_recognizer_adds_the_tiles_a_glare_spot_washed_out():
    """Held-out scene 319: a 1|5 and a 5|3 touching end to end under a glare spot that clipped their
    outline; the detector boxes neither, the pip fit finds both, each on its rendered label."""
    from datasets.build import scene_spec
    from datasets.render.scene import render_scene
    from datasets.render.tiles import TILE_LONG_MM
    from vision.observation import FLAG_GLARE_FIT
    from vision.recognize import Recognizer

    spec, _ = scene_spec(319, 0, (1280, 720))
    frame, labels = render_scene(spec)
    tile_px = spec.camera.px_per_mm * TILE_LONG_MM
    want = {tuple(sorted(labels[k]["pips"])): labels[k]["polygon"] for k in (11, 12)}  # the two in the glare
    assert sorted(want) == [(1, 5), (3, 5)] and all(labels[k]["face"] == "up" for k in (11, 12))
    off = Recognizer(glare_fit=False, n_sets=spec.n_sets)(frame, tile_px=tile_px)
    assert not any(polygon_iou(o.polygon_px, p) >= 0.5 for o in off for p in want.values())
    fitted = [o for o in Recognizer(n_sets=spec.n_sets)(frame, tile_px=tile_px) if FLAG_GLARE_FIT in o.flags]
    assert sorted(tuple(sorted(o.pips)) for o in fitted) == sorted(want)
    for o in fitted:
        assert polygon_iou(o.polygon_px, want[tuple(sorted(o.pips))]) > 0.8
        assert o.face == "up" and o.det_score < 0.9


def test_only_washed_areas_that_can_hide_a_tile_with_its_outline_are_looked_at():
    from vision.glare_pips import MIN_WASHED_TILES, washed_regions

    grey = np.full((480, 640), 90, np.uint8)
    cv2.fillPoly(grey, [np.round(_outline((200.0, 200.0), 0.0)).astype(np.int32)], 250)  # a white tile face
    assert washed_regions(grey, TILE) == []
    side = int(np.ceil(np.sqrt(MIN_WASHED_TILES * TILE * TILE / 2))) + 4  # a square spot just big enough
    grey[300:300 + side, 400:400 + side] = 252
    (x0, y0, x1, y1), = washed_regions(grey, TILE)
    assert x0 <= 400 and y0 <= 300 and x1 >= 400 + side and y1 >= 300 + side


def test_a_choice_that_leaves_pips_over_is_not_taken():
    # 0|6 then 6|3 end to end: the blank half has no pips, so "6|6" across the join holds the most (12),
    # but leaves the 3 over; the true 6|3 holds only 9. Nothing is fitted rather than a wrong 6|6.
    a = _tile_pips(1, 6, (200.0, 200.0), 0.0)[1:]  # the 0|6: its left half blank (drop the 1's pip)
    b = _tile_pips(6, 3, (200.0 + TILE, 200.0), 0.0)
    assert fit_tiles(np.vstack([a, b]), TILE, (480, 640)) == []
    # with the blank tile's 6 hidden (under a hand), the 6|3 alone is found
    assert [t.pips for t in fit_tiles(b, TILE, (480, 640))] == [(6, 3)]

