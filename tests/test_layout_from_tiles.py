"""Line-of-play reconstruction (vision/layout_from_tiles.py) on hand-built geometry, in mm."""

from __future__ import annotations

import random

import numpy as np
import pytest
from table_sim import PlacementFailed, lay_hand

from engine.events import Play
from engine.layout import Layout
from engine.ruleset import load_ruleset
from engine.simulate import simulate_hand
from engine.tiles import Tile
from vision.layout_from_tiles import LineOfPlay, TileGeom, lead_order, spinner_arms_opened
from vision.observation import TileObservation
from vision.tracking import Tracker

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


def test_mismatched_double_crosswise_after_a_crosswise_double_is_placed_and_flagged():
    # fives-and-threes footage: [5|0] lead, [0|0] crosswise on E, then a bogus [5|5] crosswise
    # beyond it; it must attach to E (so the umpire sees the mismatch and later plays attach)
    lop = LineOfPlay()
    lop.set_lead(tile(0, 0, 0), (5, 0))
    zero = tile(36, 0, 90)
    f0 = lop.assign(zero, (0, 0))
    lop.place(f0, zero, (0, 0))
    bogus = tile(60, 0, 90)  # 12 mm beyond the 0-0's long side at x = 48, axis across the line
    fit = lop.assign(bogus, (5, 5))
    assert (fit.end, fit.tile, fit.contact) == ("E", (5, 5), "crosswise")
    assert not fit.pip_match and fit.uncertain
    lop.place(fit, bogus, (5, 5))
    after = lop.assign(tile(96, 0, 0), (5, 6))  # straight off the bogus double's long side
    assert (after.end, after.tile, after.contact) == ("E", (5, 6), "side")


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
                if placement.became_spinner:
                    lop.set_lead(g, t.pips, spinner_arms_opened(board, before))
                continue
            fit = lop.assign(g, t.pips)
            assert fit is not None, f"seed {seed}: {t.tile} on {t.end} not found"
            assert (fit.end, fit.tile) == (t.end, (t.tile.a, t.tile.b)), f"seed {seed}"
            placement = board.place(Tile(*fit.tile), fit.end, True)
            lop.place(fit, g, t.pips, spinner_arms_opened(board, before) if placement.became_spinner else None)
            checked += 1
    assert checked >= 40


# ---- spinner arms (regression: lisa-b-all-fives footage lost every play on a lead spinner's S arm) ----
#
# The lead double 6-6 lies crosswise at the origin (long axis along y): its long sides face W/E
# (x = -12 / +12 mm), its ends face N/S (y = -24 / +24 mm); its halves' centres are at y = -12 / +12.
# A tile straight off an end: touching half centre 12 mm (the end's reach) + 12 mm (its own half
# half-length) beyond the end's half centre, i.e. tile centres at y = +-48, +-96, ...


def _play(lop, g, pips, expect_end, expect_tile, expect_contact=None, spinner=None):
    fit = lop.assign(g, pips)
    assert fit is not None, f"{pips} touches no end"
    assert (fit.end, fit.tile) == (expect_end, expect_tile)
    if expect_contact is not None:
        assert fit.contact == expect_contact
    assert fit.fit > 0.9 and not fit.uncertain, fit
    lop.place(fit, g, pips, spinner)
    return fit


def test_spinner_arms_opened_names_only_the_spinners_perpendicular_arms():
    lay = Layout(6, "first_double", "after_both_sides")
    before = set(lay.arms)
    lay.place(Tile(6, 6), None)  # the lead double opens W, E and the spinner's N, S at once
    assert spinner_arms_opened(lay, before) == ("N", "S")  # not ("N", "E"): W/E are no spinner arms
    lay = Layout(6, "every_double", "immediately")
    lay.place(Tile(3, 5), None)
    before = set(lay.arms)
    lay.place(Tile(5, 5), "E")
    assert spinner_arms_opened(lay, before) == ("N", "S")
    before = set(lay.arms)
    lay.place(Tile(3, 3), "W")
    assert spinner_arms_opened(lay, before) == ("N2", "S2")
    before = set(lay.arms)
    lay.place(Tile(3, 1), "W")
    assert spinner_arms_opened(lay, before) is None


def test_spinner_arms_that_would_overwrite_an_end_are_refused():
    lop = LineOfPlay()
    with pytest.raises(ValueError):
        lop.set_lead(tile(0, 0, 90), (6, 6), spinner_arms=("N", "E"))  # the old tracker's names
    lop.set_lead(tile(0, 0, 0), (3, 5))
    dbl = tile(36, 0, 90)
    fit = lop.assign(dbl, (5, 5))
    with pytest.raises(ValueError):
        lop.place(fit, dbl, (5, 5), ("N", "W"))


@pytest.mark.parametrize("first", ["W", "E"])
def test_lead_spinner_with_tiles_on_its_n_and_s_arms_and_their_continuations(first):
    lop = LineOfPlay()
    lop.set_lead(tile(0, 0, 90), (6, 6), spinner_arms=("N", "S"))
    west, east = (tile(-36, 0, 0), (2, 6), (6, 2)), (tile(36, 0, 0), (6, 3), (6, 3))
    for g, pips, oriented in ((west, east) if first == "W" else (east, west)):
        _play(lop, g, pips, "W" if g is west[0] else "E", oriented, "side")
    assert set(lop.ends) == {"W", "E", "N", "S"}
    assert lop.ends["W"].value == 2 and lop.ends["E"].value == 3  # the sides, untouched by N/S
    assert lop.ends["S"].value == 6 and np.allclose(lop.ends["S"].anchor, [0, 12])
    # S arm: straight down off the double's lower end (half a, the 6, at y = 36)
    _play(lop, tile(0, 48, 90), (6, 1), "S", (6, 1), "straight")
    # ... straight on (half a at y = 84: the previous outer half at 60, + 12 + 12)
    _play(lop, tile(0, 96, 90), (1, 4), "S", (1, 4), "straight")
    # ... an L at the border, clockwise for S (toward -x): touching half in front of the end at
    # (0, 132) (outer half at 108, + 12 + 12), the tile running toward -x, centre (-12, 132)
    _play(lop, tile(-12, 132, 180), (4, 5), "S", (4, 5), "turn")
    # ... and straight on toward -x after the turn: half a at (-48, 132)
    _play(lop, tile(-60, 132, 180), (5, 0), "S", (5, 0), "straight")
    # N arm: straight up off the upper end (half a, the 6, at y = -36)
    _play(lop, tile(0, -48, -90), (6, 4), "N", (6, 4), "straight")
    # ... a double crosswise on it: centre 12 mm beyond the end's edge (y = -72), axis along x
    _play(lop, tile(0, -84, 0), (4, 4), "N", (4, 4), "crosswise")
    # ... and the tile off the double's far long side (y = -96): half a at y = -108
    _play(lop, tile(0, -120, -90), (4, 2), "N", (4, 2), "side")
    # the sides still continue where they were
    _play(lop, tile(-84, 0, 180), (2, 1), "W", (2, 1), "straight")
    _play(lop, tile(72, 0, 90), (3, 3), "E", (3, 3), "crosswise")  # across E: centre 48 + 12 + 12, axis along y
    assert {n: e.value for n, e in lop.ends.items()} == {"W": 1, "E": 3, "N": 2, "S": 0}


def test_spinner_in_an_arm_opens_its_ends_for_n_and_s():
    lop = LineOfPlay()
    lop.set_lead(tile(0, 0, 0), (3, 5))  # W = 3 (half centre -12), E = 5 (half centre +12)
    # 5-5 across the E end: centre 12 + 12 + 12 = 36, axis along y; it becomes the spinner
    _play(lop, tile(36, 0, 90), (5, 5), "E", (5, 5), "crosswise", spinner=("N", "S"))
    assert lop.ends["N"].out[1] < 0 and lop.ends["S"].out[1] > 0
    _play(lop, tile(72, 0, 0), (5, 2), "E", (5, 2), "side")  # off its far long side (x = 48)
    _play(lop, tile(36, -48, -90), (5, 1), "N", (5, 1), "straight")  # its upper end at y = -24
    _play(lop, tile(36, 48, 90), (5, 6), "S", (5, 6), "straight")
    _play(lop, tile(-48, 0, 180), (3, 0), "W", (3, 0), "straight")


def _obs(g: TileGeom, pips) -> TileObservation:
    return TileObservation(g.polygon().astype(np.float32), "up", 0.97, pips=pips, half_confidence=(0.97, 0.97))


def test_tracker_finds_plays_on_a_lead_spinners_s_arm():
    """The tracker named a lead double's spinner arms ("N", "E") (W/E are new arms of the lead
    too), so the S site replaced E and every play on S touched "no open end"."""
    c = np.array([480.0, 400.0])  # image px, the middle of a 960 x 800 image (1 mm = 1 px here)

    def at(x, y, angle):
        return TileGeom.from_pose(c + [x, y], angle, L, W)

    lay = [(at(0, 0, 90), (6, 6), "lead", (6, 6)),
           (at(-36, 0, 0), (2, 6), "W", (6, 2)),  # W first: E stays the double's other side
           (at(0, 48, 90), (6, 1), "S", (6, 1)),
           (at(36, 0, 0), (6, 3), "E", (6, 3)),
           (at(0, 96, 90), (1, 4), "S", (1, 4)),
           (at(0, -48, -90), (6, 5), "N", (6, 5))]
    tr = Tracker(load_ruleset("lisa-b-all-fives"), image_size=(960, 800))
    on, events, t = [], [], 0.0
    for g, pips, _, _ in lay:
        on.append(_obs(g, pips))
        for _ in range(2):  # no motion information: the same tiles for still_window_s commit a read
            t += 0.6
            events += tr.update(int(t * 10), t, list(on))
    got = [((e.tile.a, e.tile.b), e.end or "lead") for e in events if isinstance(e, Play)]
    assert got == [(tile_, end) for _, _, end, tile_ in lay]
    assert not [e for e in events if getattr(e, "kind", None) == "unplaced_tile"]
