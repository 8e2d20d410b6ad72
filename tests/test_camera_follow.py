"""The camera's move between two photos, from the tiles seen in both (vision/camera_follow.py)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.camera_follow import (agreeing, camera_move, moved_geom, moved_points, one_tile_move, shift_at, tile_move,
                                  turn_deg)
from vision.layout_from_tiles import TileGeom


def _similarity(turn_deg: float, scale: float, shift: tuple[float, float]) -> np.ndarray:
    a = np.deg2rad(turn_deg)
    c, s = scale * np.cos(a), scale * np.sin(a)
    return np.array([[c, -s, shift[0]], [s, c, shift[1]]])


def test_the_move_of_the_tiles_is_found_and_a_misread_left_out():
    before = np.array([[600, 500], [648, 500], [696, 500], [552, 500], [552, 548], [300, 200]], float)
    m = _similarity(2.0, 1.01, (14.0, -9.0))
    now = moved_points(before, m)
    now[5] += (80.0, 0.0)  # a misread pairs two different tiles: not the camera's move
    got, inliers = camera_move(before, now, 52.0)
    assert inliers.tolist() == [True] * 5 + [False]
    assert np.allclose(got, m, atol=1e-3)  # the fit's refinement stops within 1e-3 px
    # (600, 500) by hand: 1.01 x (cos 2 deg x 600 - sin 2 deg x 500) + 14 = 602.01 ...
    x = 1.01 * (np.cos(np.deg2rad(2)) * 600 - np.sin(np.deg2rad(2)) * 500) + 14
    assert abs(moved_points(before[:1], got)[0, 0] - x) < 1e-3 and abs(x - 602.01) < 0.01


def test_too_few_tiles_or_too_few_agreeing_say_nothing():
    before = np.array([[600, 500], [648, 500]], float)
    assert camera_move(before, before + 10, 52.0)[0] is None  # two tiles fit any move
    before = np.array([[600, 500], [700, 500], [650, 600], [300, 200], [900, 700]], float)
    now = before.copy()
    now[3] += (60.0, 0.0)
    now[4] += (0.0, -60.0)  # two tiles moved each its own way, three stayed: 3 of 5 agree (0.6)
    m, inliers = camera_move(before, now, 52.0)
    assert inliers.tolist() == [True, True, True, False, False] and np.allclose(m, _similarity(0, 1, (0, 0)), atol=1e-6)
    now[2] += (0.0, 60.0)  # now no three agree
    assert camera_move(before, now, 52.0)[0] is None


def test_a_tile_moves_turns_and_scales_with_the_camera():
    g = TileGeom(np.array([100.0, 50.0]), np.array([1.0, 0.0]), 48.0, 24.0)
    moved = moved_geom(g, _similarity(90.0, 1.5, (10.0, 0.0)))
    assert np.allclose(moved.center, [10 - 75, 150]) and np.allclose(moved.axis, [0, 1])
    assert np.isclose(moved.length, 72.0) and np.isclose(moved.width, 36.0)


def test_one_tile_gives_its_move_and_the_hands_check_it():
    before = TileGeom(np.array([600.0, 500.0]), np.array([1.0, 0.0]), 48.0, 24.0)
    # the tile came back read the other way round (axis reversed), turned 3 degrees, 2 % larger, shifted
    a = np.deg2rad(3.0)
    now = TileGeom(np.array([620.0, 488.0]), -np.array([np.cos(a), np.sin(a)]), 48.96, 24.48)
    m = tile_move(before, now)
    assert np.allclose(m[:, :2], 1.02 * np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]))
    assert np.allclose(moved_points(before.center[None], m), [[620.0, 488.0]])
    hands = np.array([[100.0, 50.0], [130.0, 50.0], [160.0, 50.0], [100.0, 950.0]])
    seen = moved_points(hands, m)
    seen[3] += (0.0, 40.0)  # one hand tile not where the move puts it
    assert agreeing(hands, seen, m, 10.0) == 3
    # left in place, each lies nearest to a moved point 58.5, 47.3, 45.8 and 16.5 px away (the last one
    # moved by (-13.3, -30.3) px, then 40 px down: (-13.3, 9.7) from where it was)
    assert agreeing(hands, seen, None, 10.0) == 0 and agreeing(hands, seen, None, 20.0) == 1


def test_one_laid_tile_moves_the_camera_only_when_the_others_agree():
    lead = TileGeom(np.array([600.0, 500.0]), np.array([1.0, 0.0]), 48.0, 24.0)
    shifted = TileGeom(np.array([618.0, 488.0]), np.array([1.0, 0.0]), 48.0, 24.0)
    hands = [np.array([300.0 + 30 * k, 50.0]) for k in range(6)]
    before = [(lead.center, "up")] + [(c, "down") for c in hands]
    # the camera moved by (18, -12): every hand tile moved with the lead; 6 of 6 others agree
    now = [(shifted.center, "up")] + [(c + (18.0, -12.0), "down") for c in hands]
    move, k = one_tile_move([(lead, shifted, 0, 0)], before, now, 12.0, 0.5)
    assert k == 0 and np.allclose(move, [[1, 0, 18], [0, 1, -12]])
    # the lead alone moved (a bump): the hands stayed, staying put agrees better
    assert one_tile_move([(lead, shifted, 0, 0)], before, [(shifted.center, "up")] + before[1:], 12.0, 0.5) is None
    # the next hand's lead, the same domino, on a cleared table: nothing else to agree
    assert one_tile_move([(lead, shifted, 0, 0)], before, [(shifted.center, "up")], 12.0, 0.5) is None


def test_a_tile_turned_other_than_the_camera_is_left_out_of_its_move():
    """A knocked tile's centre moves within the fit's tolerance: its own turn tells it from the camera's."""
    before = np.array([[600, 500], [648, 500], [696, 500], [552, 500]], float)
    m = _similarity(4.0, 1.0, (10.0, 12.0))
    now = moved_points(before, m)
    now[1] += (3.0, 4.0)  # knocked 5 px and turned 10 degrees more than the camera
    turns = np.array([4.0, 14.0, 4.0, 4.0])
    assert not np.allclose(camera_move(before, now, 52.0)[0], m, atol=1e-2)  # by the centres: drawn off
    got, inliers = camera_move(before, now, 52.0, turns=turns, max_turn_deg=8.0)
    assert inliers.tolist() == [True, False, True, True] and np.allclose(got, m, atol=1e-3)


def test_a_tiles_turn_is_signed_as_its_angle():
    """+: from +x towards +y (clockwise on screen, y down), folded into [-90, 90): a box has no head."""
    g = TileGeom(np.array([0.0, 0.0]), np.array([1.0, 0.0]), 48.0, 24.0)
    for deg, got in ((10.0, 10.0), (-10.0, -10.0), (190.0, 10.0), (170.0, -10.0)):
        a = np.deg2rad(deg)
        assert turn_deg(g, TileGeom(g.center, np.array([np.cos(a), np.sin(a)]), 48.0, 24.0)) == pytest.approx(got)


def test_a_line_read_with_noise_fits_a_scale_but_its_tiles_stayed_put():
    """The demo's photos, camera fixed: a line of tiles along x, one read 2.3 mm off at its end. The fit
    takes a scale from it that carries a hand 450 mm from the line millimetres away; the tiles themselves
    moved 0.3 mm (the median), under ``jitter`` (2.4 mm at 48 mm tiles)."""
    before = np.array([[552, 500], [600, 500], [648, 500], [696, 500], [744, 500]], float)
    now = before + [[0.3, 0.0], [-0.2, 0.0], [0.3, 0.0], [-0.3, 0.0], [2.3, 0.0]]
    m, inliers = camera_move(before, now, 48.0)
    assert inliers.all() and m[0, 0] == pytest.approx(1.008, abs=5e-4)  # a scale of 0.8 % from 2.3 mm
    hand = np.array([[600.0, 50.0]])
    assert np.linalg.norm(moved_points(hand, m) - hand) == pytest.approx(3.66, abs=0.02)  # beyond jitter there
    assert shift_at(before, now) == pytest.approx(0.3)
    assert shift_at(before[:0], now[:0]) == 0.0
