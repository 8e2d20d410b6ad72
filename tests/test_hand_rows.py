"""Hand areas of uncalibrated photos from the rows of face-down tiles (vision/hand_rows.py)."""

from __future__ import annotations

import numpy as np

from vision.hand_rows import border_distances, hand_rows, in_row_area

SIZE = (1280, 720)  # (width, height) px
L = 52.0  # a tile's length, px


def test_each_point_goes_to_its_nearest_border():
    sides, dist = border_distances(np.array([[640, 30], [1250, 360], [640, 700], [100, 360]]), SIZE)
    assert [("N", "E", "S", "W")[k] for k in sides] == ["N", "E", "S", "W"]
    assert dist.tolist() == [30.0, 30.0, 20.0, 100.0]


def test_a_row_is_the_outermost_group_holding_half_the_fullest_groups_tiles():
    # W: two false boxes on the cloth 34-38 px in, the hand's row at 150-155 px (within 0.6 tile lengths
    # = 31.2 px of one another): the cloth's group holds 2, less than half the hand's 7
    cloth = [[34, 500], [38, 578]]
    w = [[150 + k % 6, 260 + 29 * k] for k in range(7)]
    e = [[1152, 300], [1140, 330]]  # E: 128 and 140 px from the right border; N: one tile only
    rows = hand_rows(np.array(cloth + w + e + [[640, 40]], float), L, SIZE)
    assert rows == {"W": (150.0, 7, 260.0, 434.0), "E": (128.0, 2, 300.0, 330.0)}
    # with the hand down to 4 the cloth's 2 are half of it: the outermost group that holds half wins
    assert hand_rows(np.array(cloth + w[:4], float), L, SIZE)["W"] == (34.0, 2, 500.0, 578.0)
    # tiles 31.2 px apart in depth are one group, 32 px apart two
    assert hand_rows(np.array([[100, 300], [131.2, 330]], float), L, SIZE) == {"W": (100.0, 2, 300.0, 330.0)}
    assert hand_rows(np.array([[100, 300], [132, 330]], float), L, SIZE) == {}


def test_a_hand_area_reaches_from_outside_its_row_to_inside_it_or_the_band():
    rows = {"W": (150.0, 7, 260.0, 434.0)}
    band = 144.0
    out, inner = 150 - 0.75 * L, 150 + 1.3 * L  # 111 and 217.6 px from the left border
    assert not in_row_area(np.array([110.0, 360]), L, SIZE, rows, band)  # on the cloth beyond the row
    assert in_row_area(np.array([112.0, 360]), L, SIZE, rows, band)
    assert in_row_area(np.array([217.0, 360]), L, SIZE, rows, band) and inner > 217
    assert not in_row_area(np.array([218.0, 360]), L, SIZE, rows, band) and out < 112
    # a border without a row keeps the band
    assert in_row_area(np.array([640.0, 143]), L, SIZE, rows, band)
    assert not in_row_area(np.array([640.0, 145]), L, SIZE, rows, band)
    # a row close to the border: the band still reaches further in
    assert in_row_area(np.array([140.0, 360]), L, SIZE, {"W": (20.0, 7, 260.0, 434.0)}, band)


def test_a_hand_area_ends_a_few_tiles_past_its_rows_ends():
    """helper-144: the top tile of a boneyard column by the left border lay nearer the top border than the
    left, inside N's depth: counted in N's hand, 9 tile lengths from it; S drew it and N got S's play."""
    L40, size = 40.0, (960, 540)
    rows = hand_rows(np.array([[461, 48], [508, 49], [532, 49], [498, 488], [521, 489]], float), L40, size)
    assert rows["N"] == (48.0, 3, 461.0, 532.0) and rows["S"] == (51.0, 2, 498.0, 521.0)
    band = 0.2 * 540
    assert not in_row_area(np.array([100.0, 89]), L40, size, rows, band)  # the boneyard column's top tile
    assert in_row_area(np.array([461 - 2.5 * L40, 60]), L40, size, rows, band)  # a drawn tile beside the row
    assert not in_row_area(np.array([461 - 2.5 * L40 - 1, 60]), L40, size, rows, band)
    assert in_row_area(np.array([532 + 2.5 * L40, 60]), L40, size, rows, band)
    assert in_row_area(np.array([429.0, 486]), L40, size, rows, band)  # S's hand after drawing
