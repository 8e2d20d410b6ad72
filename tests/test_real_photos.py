"""Tests for datasets/real_photos.py on the real photos (skipped when they are absent)."""

from __future__ import annotations

from collections import Counter

import cv2
import numpy as np
import pytest

from datasets import real_photos as rd
from skip_real_photos import REALDATA_MISSING  # tests/skip_real_photos.py

ROOT = rd.realdata_root()
pytestmark = pytest.mark.skipif(ROOT is None, reason=REALDATA_MISSING)


def test_parse_label():
    assert rd.parse_ddd_label("8H 5\n9H 3\n12") == ((7, 7, 5), (8, 7, 3))
    assert rd.parse_ddd_label("15o 0\r\n14O 6\r\n") == ((14, 14, 0), (13, 14, 6))
    for bad in ("16A 3\n1A 2", "8P 1\n8O 1", "8H 7\n8I 1", "8H 1", "H8 1\n8I 1"):
        with pytest.raises(ValueError):
            rd.parse_ddd_label(bad)


def test_domibot_listing():
    items = rd.load_domibot()
    assert len(items) == 1400
    ids = Counter(ab for _, ab in items)
    assert len(ids) == 28 and set(ids.values()) == {50}
    assert all(0 <= b <= a <= 6 for a, b in ids)
    p, ab = items[0]
    assert p.parent.name == f"{ab[0]}x{ab[1]}" and p.is_file()


def test_ddd_games_and_labels():
    first = rd.load_ddd_game(1)[0]
    assert first.image.name == "1_01.jpg"
    assert first.halves == ((7, 7, 6), (7, 8, 1))  # 1_01.txt: "8H 6", "8I 1"
    for g in rd.DDD_GAMES:
        moves = rd.load_ddd_game(g)
        assert [m.index for m in moves] == list(range(1, 21))
        assert all(m.image.is_file() for m in moves)
        for k, m in enumerate(moves, 1):
            (r1, c1, _), (r2, c2, _) = m.halves
            assert abs(r1 - r2) + abs(c1 - c2) == 1  # the two halves of one tile
            assert len(m.board) == 2 * k
        tiles = Counter(tuple(sorted((a[2], b[2]))) for a, b in (m.halves for m in moves))
        assert max(tiles.values()) <= 2  # each double-six tile twice in a game


def test_grid_quad_geometry():
    img = cv2.imread(str(rd.load_ddd_game(1)[0].image))
    quad = rd.ddd_grid_quad(img)
    sides = np.linalg.norm(np.roll(quad, -1, 0) - quad, axis=1)
    # README: cells about 53 px -> a 15-cell side of about 800 px, nearly square
    assert np.all(np.abs(sides / 15 - 53.7) < 2.0)
    h = rd.ddd_grid_homography(img)
    centre = cv2.perspectiveTransform(quad.mean(0)[None, None], h)[0, 0]
    assert np.allclose(centre, [7.5, 7.5], atol=0.05)
    with pytest.raises(RuntimeError):
        rd.ddd_grid_quad(np.full((600, 600, 3), 128, np.uint8))


@pytest.mark.parametrize("g", rd.DDD_GAMES)
def test_homography_puts_tiles_on_labelled_cells(g):
    res = rd.ddd_check_cells(g, rd.DDD_MOVES)
    assert res["labelled"] == 40
    assert res["labelled_ok"] >= 0.95, res["bad_labelled"]  # measured: 1.0 on all games
    assert res["empty_ok"] >= 0.95, res["bad_empty"]  # measured: 1.0 on all games


def test_check_detects_a_wrong_homography():
    """Control: the same check on a homography off by two cells fails clearly."""
    g, k = 1, rd.DDD_MOVES
    mv = rd.load_ddd_game(g)[k - 1]
    img = cv2.imread(str(mv.image))
    h = rd.ddd_game_homography(g, img)
    shift = np.array([[1, 0, 2], [0, 1, 2], [0, 0, 1]], float) @ h
    ok = [rd.tile_white_fraction(rd.ddd_cell_crop(img, shift, r, c, 48)) >= 0.5
          for (r, c) in mv.board]
    assert np.mean(ok) < 0.6


def test_tile_outlines_match_labels():
    g = 1
    h = rd.ddd_game_homography(g)
    quads = rd.ddd_tile_quads(g)
    offsets = []
    for m in rd.load_ddd_game(g):
        q = quads[m.index]
        if q is None:
            continue
        (r1, c1, _), (r2, c2, _) = m.halves
        centre = cv2.perspectiveTransform(q[None], h)[0].mean(0)
        offsets.append(np.linalg.norm(centre - [(c1 + c2) / 2 + 0.5, (r1 + r2) / 2 + 0.5]))
    assert len(offsets) >= 17  # all but the first tiles (placed on the white logo)
    assert np.median(offsets) < 0.12  # cells


def test_half_crops():
    crops = rd.ddd_half_crops(2, 5)
    board = rd.load_ddd_game(2)[4].board
    assert [p for _, p in crops] == [board[rc] for rc in sorted(board)]
    assert len(crops) == 10
    for crop, _ in crops:
        assert crop.shape == (64, 64, 3) and crop.dtype == np.uint8
        assert rd.tile_white_fraction(crop) > 0.5
    grid = rd.ddd_half_crops(2, 5, size=32, refine=False)
    assert grid[0][0].shape == (32, 32, 3)
    with pytest.raises(ValueError):
        rd.ddd_half_crops(2, 21)
