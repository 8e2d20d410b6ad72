"""Line-of-play reconstruction (vision/layout_from_tiles.py) on hand-built geometry, in mm."""

from __future__ import annotations

import random

import numpy as np
import pytest
from table_sim import PlacementFailed, lay_hand

from engine.layout import Layout
from engine.ruleset import load_ruleset
from engine.simulate import simulate_hand
from engine.tiles import Tile
from vision.layout_from_tiles import LineOfPlay, TileGeom, lead_order

L, W = 48.0, 24.0


def tile(cx, cy, angle_deg):
    """A 48 x 24 mm tile centred at (cx, cy) mm, long axis at ``angle_deg`` (half a at -axis)."""
    return TileGeom.from_pose(np.array([cx, cy]), angle_deg, L, W)


def test_polygon_round_trip_keeps_centre_axis_and_size():
    g = tile(100, 50, 30)
    back = TileGeom.from_polygon(g.polygon())
    assert np.allclose(back.center, [100, 50])
    assert np.allclose(back.axis, g.axis)
    assert back.length == pytest.approx(L) and back.width == pytest.approx(W)


def test_lead_first_half_is_the_one_on_the_left():
    assert lead_order(tile(0, 0, 0)) == (0, 1)      # half a at x = -12
    assert lead_order(tile(0, 0, 180)) == (1, 0)    # half a at x = +12
    assert lead_order(tile(0, 0, 90)) == (0, 1)     # vertical: half a on top (smaller y)
    lop = LineOfPlay()
    assert lop.set_lead(tile(0, 0, 180), (3, 5)) == (5, 3)


def test_straight_play_on_each_side_of_the_lead():
    lop = LineOfPlay()
    lop.set_lead(tile(0, 0, 0), (3, 5))          # W = 3 (left), E = 5 (right)
    right = lop.assign(tile(48, 0, 180), (2, 5))  # its half b (5) touches, on the left
    assert (right.end, right.touching, right.tile) == ("E", 1, (5, 2))
    assert right.fit > 0.95 and not right.uncertain
    left = lop.assign(tile(-48, 0, 0), (1, 3))
    assert (left.end, left.tile) == ("W", (3, 1))


def test_turn_at_the_border_then_straight_on():
    lop = LineOfPlay()
    lop.set_lead(tile(0, 0, 0), (3, 5))
    # L-turn: touching half just beyond the E end, tile running down (+y)
    turn = tile(36, 12, 90)
    fit = lop.assign(turn, (5, 6))
    assert (fit.end, fit.tile, fit.contact) == ("E", (5, 6), "turn")
    lop.place(fit, turn, (5, 6))
    nxt = lop.assign(tile(36, 60, 90), (6, 1))  # continues downwards
    assert (nxt.end, nxt.tile, nxt.contact) == ("E", (6, 1), "straight")


def test_crosswise_double_at_an_end_and_the_tile_after_it():
    lop = LineOfPlay()
    lop.set_lead(tile(0, 0, 0), (3, 5))
    dbl = tile(36, 0, 90)  # across the E end: centre 12 + 12 + 12 mm from the lead's centre
    fit = lop.assign(dbl, (5, 5))
    assert (fit.end, fit.tile, fit.contact) == ("E", (5, 5), "crosswise")
    lop.place(fit, dbl, (5, 5))
    after = lop.assign(tile(72, 0, 0), (5, 4))  # straight off the double's long side
    assert (after.end, after.tile, after.contact) == ("E", (5, 4), "side")


def test_lone_double_lead_takes_its_axis_from_the_first_tile_and_opens_spinner_arms():
    lop = LineOfPlay()
    lop.set_lead(tile(0, 0, 90), (6, 6), spinner_arms=("N", "S"))  # crosswise, long sides face W/E
    first = tile(-36, 0, 0)
    fit = lop.assign(first, (2, 6))
    assert (fit.end, fit.tile) == ("W", (6, 2))
    lop.place(fit, first, (2, 6))
    assert set(lop.ends) == {"W", "E", "N", "S"}
    north = lop.assign(tile(0, -36, 90), (4, 6))  # off the top end of the double
    assert (north.end, north.tile) == ("N", (6, 4))
    south = lop.assign(tile(0, 36, 90), (6, 1))
    assert (south.end, south.tile) == ("S", (6, 1))
    east = lop.assign(tile(36, 0, 0), (6, 3))
    assert (east.end, east.tile) == ("E", (6, 3))


def test_tile_far_from_every_end_touches_none():
    lop = LineOfPlay()
    lop.set_lead(tile(0, 0, 0), (3, 5))
    assert lop.assign(tile(200, 150, 0), (5, 1)) is None


def test_pips_that_do_not_match_the_end_are_kept_but_flagged():
    lop = LineOfPlay()
    lop.set_lead(tile(0, 0, 0), (3, 5))
    fit = lop.assign(tile(48, 0, 0), (4, 1), read_confidence=0.9)
    assert fit.end == "E" and not fit.pip_match and fit.uncertain
    # a clean contact read with confidence: a confident mismatched end, reported downstream as one
    assert fit.confidence == pytest.approx(fit.fit * 0.9) and fit.confidence > 0.8


def test_confidence_is_fit_times_reading_confidence():
    lop = LineOfPlay()
    lop.set_lead(tile(0, 0, 0), (3, 5))
    fit = lop.assign(tile(50, 2, 3), (5, 1), read_confidence=0.8)
    assert 0.5 < fit.fit < 1.0
    assert fit.confidence == pytest.approx(fit.fit * 0.8)


def test_take_back_restores_the_previous_end():
    lop = LineOfPlay()
    lop.set_lead(tile(0, 0, 0), (3, 5))
    g = tile(48, 0, 0)
    lop.place(lop.assign(g, (5, 2)), g, (5, 2))
    assert lop.ends["E"].value == 2
    lop.without(1)
    assert lop.ends["E"].value == 5
    assert np.allclose(lop.ends["E"].anchor, [12, 0])


@pytest.mark.parametrize("preset", ["all-fives", "block", "muggins"])
def test_reconstruction_matches_engine_on_simulated_hands(preset):
    """Every play of simulated hands, laid by the independent test placer, is found on its end."""
    rules = load_ruleset(preset)
    checked = 0
    for seed in range(12):
        log = simulate_hand(rules, random.Random(seed))
        try:
            laid = lay_hand(rules, log, seed)
        except PlacementFailed:
            continue
        board = Layout(rules.set_max, rules.spinner, rules.spinner_arms_open)
        lop = LineOfPlay()
        for t in laid:
            g = TileGeom.from_polygon(t.polygon_mm())
            before = set(board.arms)
            if t.end is None:
                w, e = lop.set_lead(g, t.pips)
                assert (w, e) == (t.tile.a, t.tile.b)
                placement = board.place(Tile(w, e), None, True)
                new = sorted(set(board.arms) - before, key=lambda n: (n[0] != "N", n))
                if placement.became_spinner:
                    lop.set_lead(g, t.pips, (new[0], new[1]))
                continue
            fit = lop.assign(g, t.pips)
            assert fit is not None, f"seed {seed}: {t.tile} on {t.end} not found"
            assert (fit.end, fit.tile) == (t.end, (t.tile.a, t.tile.b)), f"seed {seed}"
            placement = board.place(Tile(*fit.tile), fit.end, True)
            new = sorted(set(board.arms) - before, key=lambda n: (n[0] != "N", n))
            lop.place(fit, g, t.pips, (new[0], new[1]) if placement.became_spinner else None)
            checked += 1
    assert checked >= 40
