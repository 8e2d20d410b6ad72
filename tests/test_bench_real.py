"""Tests for the real-photo benchmark section (bench/sec_real.py, bench/real_tiles.py).

The scoring tests use hand-made detections in grid units and need no photo; the last tests
run the section's parts on the real photos and skip when ``../shared/realdata`` is absent.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from bench.real_tiles import board_tiles, half_errors, match_detections, most_right, score_review
from datasets.real_photos import realdata_root
from skip_real_photos import REALDATA_MISSING  # tests/skip_real_photos.py


def box(x0: float, y0: float, x1: float, y1: float, half0_at_start: bool = True) -> np.ndarray:
    """Canonical (4, 2) polygon of an axis-aligned box in grid units.

    Edge 0->1 runs along the long side; corners 0/3 are at the start (smaller x for a
    horizontal box, smaller y for a vertical one) unless ``half0_at_start`` is False.
    """
    if x1 - x0 >= y1 - y0:  # horizontal
        p = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
    else:  # vertical: long edge 0->1 along +y
        p = [[x1, y0], [x1, y1], [x0, y1], [x0, y0]]
    p = np.array(p, np.float32)
    return p if half0_at_start else np.roll(p, 2, axis=0)


# Two labelled tiles: horizontal 6|1 at row 7, cols 7-8 (centre (8.0, 7.5)) and vertical
# 5/3 at col 9, rows 6-7 (centre (9.5, 7.0)).
H_TILE = ((7, 7, 6), (7, 8, 1))
V_TILE = ((6, 9, 5), (7, 9, 3))


def test_match_right_and_half_order():
    dets = [(box(7.0, 7.0, 9.0, 8.0), (6, 1)),               # exact, halves in place
            (box(9.05, 6.0, 10.05, 8.0), (5, 3))]             # 0.05 cell off, vertical
    s = match_detections(dets, [H_TILE, V_TILE])
    assert s == {"labelled": 2, "found": 2, "right": 2, "right_unordered": 2, "extra": 0,
                 "extra_off_grid": 0, "fraction": 1.0, "most": True}
    # the same pair read the other way round: half 0 (left end) says 1, but its cell holds 6
    s = match_detections([(box(7.0, 7.0, 9.0, 8.0), (1, 6))], [H_TILE])
    assert (s["found"], s["right"], s["right_unordered"]) == (1, 0, 1)
    # half 0 at the other end of the polygon: (1, 6) is then right
    s = match_detections([(box(7.0, 7.0, 9.0, 8.0, half0_at_start=False), (1, 6))], [H_TILE])
    assert s["right"] == 1


def test_match_distance_orientation_duplicates_and_extras():
    tiles = [H_TILE]
    # centre 0.4 cell away -> matched; 0.5 away -> not (limit 0.45)
    assert match_detections([(box(7.4, 7.0, 9.4, 8.0), (6, 1))], tiles)["found"] == 1
    assert match_detections([(box(7.5, 7.0, 9.5, 8.0), (6, 1))], tiles)["found"] == 0
    # right centre, wrong orientation (vertical box over cols 7.5-8.5) -> not a match
    s = match_detections([(box(7.5, 6.5, 8.5, 8.5), (6, 1))], tiles)
    assert (s["found"], s["extra"]) == (0, 1)
    # two detections on one tile: the nearer is matched, the other is extra; one off the grid
    dets = [(box(7.2, 7.0, 9.2, 8.0), (6, 1)), (box(7.0, 7.0, 9.0, 8.0), (6, 2)),
            (box(-3.0, 2.0, -1.0, 3.0), (2, 2))]
    s = match_detections(dets, tiles)
    assert (s["found"], s["right"], s["extra"], s["extra_off_grid"]) == (1, 0, 2, 1)  # nearest read 6-2
    # a face-down detection can be found but never right
    s = match_detections([(box(7.0, 7.0, 9.0, 8.0), None)], tiles)
    assert (s["found"], s["right"], s["fraction"], s["most"]) == (1, 0, 0.0, False)


def test_one_detection_one_tile():
    # a detection equidistant (0.5) from two side-by-side tiles matches neither at 0.45
    upper, lower = ((6, 7, 1), (6, 8, 2)), ((7, 7, 3), (7, 8, 4))
    s = match_detections([(box(7.0, 6.5, 9.0, 7.5), (1, 2))], [upper, lower])
    assert (s["found"], s["extra"]) == (0, 1)
    # with a looser limit it is matched to one tile only
    s = match_detections([(box(7.0, 6.5, 9.0, 7.5), (1, 2))], [upper, lower], max_dist=0.6)
    assert (s["found"], s["extra"], s["labelled"]) == (1, 0, 2)


def test_most_rule():
    assert most_right(0, 0)                    # nothing labelled: vacuously fine
    assert not most_right(1, 2)                # exactly half is not most
    assert most_right(2, 3) and most_right(11, 20)
    assert not most_right(10, 20)
    s = match_detections([(box(7.0, 7.0, 9.0, 8.0), (6, 1))], [H_TILE, V_TILE])
    assert (s["fraction"], s["most"]) == (0.5, False)


def test_half_errors():
    assert half_errors((6, 4), (6, 4)) == 0
    assert half_errors((6, 4), (4, 6)) == 0
    assert half_errors((6, 4), (6, 3)) == 1
    assert half_errors((6, 4), (0, 0)) == 2


@dataclass
class _Move:
    index: int
    halves: tuple


def test_board_tiles():
    moves = [_Move(2, ((1, 1, 2), (1, 2, 3))), _Move(1, ((0, 0, 1), (0, 1, 1))), _Move(3, ((5, 5, 0), (6, 5, 0)))]
    assert board_tiles(moves, 2) == [((0, 0, 1), (0, 1, 1)), ((1, 1, 2), (1, 2, 3))]
    assert board_tiles(moves, 0) == []


def test_score_review():
    moves = [_Move(1, ((7, 7, 6), (7, 8, 1))), _Move(2, ((7, 5, 5), (7, 6, 6))),
             _Move(3, ((6, 9, 3), (7, 9, 2))), _Move(4, ((8, 9, 4), (9, 9, 4)))]
    rows = [{"type": "baseline", "frame": 0},
            {"type": "placement", "frame": 1, "tile": [6, 5]},   # move 2 at its photo (frame 1)
            {"type": "placement", "frame": 3, "tile": [2, 3]},   # move 3, one photo late
            {"type": "placement", "frame": 3, "tile": [1, 1]},   # matches nothing
            {"type": "placement", "frame": 3, "tile": [5, 6]}]   # a second 5-6: extra
    s = score_review(moves, rows)
    # moves 2..4 scored: 2 at its move, 2 and 3 found, 4 missed; 2 placements unclaimed
    assert s == {"moves": 3, "placements": 4, "at_its_move": 1, "found": 2, "extra": 2}


def test_render_skip_note():
    from bench.sec_real import SKIP_NOTE, render, run
    from bench.common import BenchConfig

    res = run(BenchConfig(smoke=True, realdata=None))
    assert res == {"skipped": SKIP_NOTE}
    assert "skipped: ../shared/realdata absent" in render(res)


ROOT = realdata_root()
needs_real = pytest.mark.skipif(ROOT is None, reason=REALDATA_MISSING)


def test_skip_reason_names_the_override():
    """A user whose photos are elsewhere learns from the skip how to point the tests at them."""
    assert "$DOMINOCAST_REALDATA" in REALDATA_MISSING and "shared/realdata" in REALDATA_MISSING
    assert needs_real.kwargs["reason"] == REALDATA_MISSING


@needs_real
def test_matching_control_on_real_photos():
    """The matcher finds the tiles located by datasets.real_photos (19 of 20 located in game 2)."""
    from bench.sec_real import matching_control

    c = matching_control(ROOT, (2,))
    assert c["located"] >= 18 and c["found"] == c["located"] and c["right"] == c["found"] and c["extra"] == 0


@needs_real
def test_locate_tile_on_a_domibot_photo():
    import cv2

    from bench.real_tiles import locate_tile, rectify_tile
    from datasets.real_photos import load_domibot

    path, _ = load_domibot(ROOT)[0]
    img = cv2.imread(str(path))
    quad = locate_tile(img)
    assert quad is not None and quad.shape == (4, 2) and quad.dtype == np.float32
    assert rectify_tile(img, quad).shape == (64, 128, 3)
