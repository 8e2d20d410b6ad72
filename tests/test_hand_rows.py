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
    assert rows == {"W": (150.0, 7), "E": (128.0, 2)}
    # with the hand down to 4 the cloth's 2 are half of it: the outermost group that holds half wins
    assert hand_rows(np.array(cloth + w[:4], float), L, SIZE)["W"] == (34.0, 2)
    # tiles 31.2 px apart in depth are one group, 32 px apart two
    assert hand_rows(np.array([[100, 300], [131.2, 330]], float), L, SIZE) == {"W": (100.0, 2)}
    assert hand_rows(np.array([[100, 300], [132, 330]], float), L, SIZE) == {}


def test_a_hand_area_reaches_from_outside_its_row_to_inside_it_or_the_band():
    rows = {"W": (150.0, 7)}
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
    assert in_row_area(np.array([140.0, 360]), L, SIZE, {"W": (20.0, 7)}, band)
