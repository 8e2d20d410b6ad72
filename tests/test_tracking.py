"""Tracker, motion gate and seat attribution on synthetic observations (no model, no footage).

Hands come from the engine's simulator and are laid on a virtual table by the test placer
(``tests/table_sim.py``); the tracker sees them as observations in image px, with motion
information as the gate would report it: an arm over the table from the player's edge,
then a still read.
"""

from __future__ import annotations

import dataclasses
import json
import random

import cv2
import numpy as np
import pytest
from table_sim import (IMAGE_SIZE, PX_PER_MM, SEAT_SIDE, TABLE, Laid, PlacementFailed, entry_point, hand_tiles,
                       lay_hand, moved, observe)

from calibration.profile import TableProfile
from engine.events import Correction, Draw, HandEnd, Pass, Play, Reveal, TakeBack
from engine.hand import Hand, HandContext, IllegalEvent, replay
from engine.ruleset import load_ruleset
from engine.tiles import Tile
from engine.simulate import simulate_hand
from vision.motion import MotionGate, MotionInfo
from vision.observation import touches_frame
from vision.placements import Notice, attribute_seat
from vision.tracking import Tracker, TrackerConfig, track_frames

L, HALF = 48.0, 24.0


class Table:
    """Drives a tracker like the live loop: arms over the table, then still reads."""

    def __init__(self, rules, profile=None, to_px=None, seats_side=SEAT_SIDE, config=None):
        self.tr = Tracker(rules, profile=profile, image_size=IMAGE_SIZE, config=config)
        self.t, self.fr = 0.0, 0
        self.on: list[Laid] = []
        self.events: list = []
        self.to_px = to_px
        self.side = seats_side
        self.entry = entry_point

    def arm(self, seat: str, seconds: float = 0.5) -> list:
        out = []
        for _ in range(round(seconds / 0.1)):
            self.t += 0.1
            self.fr += 3
            info = MotionInfo(self.t, self.fr, True, True, 0.0, False, None, entry_side=self.side[seat],
                              entry_point_px=self.entry(seat), frame_size=IMAGE_SIZE)
            out += self.tr.update(self.fr, self.t, None, info)
        self.events += out
        return out

    def knock(self, seat: str, seconds: float = 0.5) -> list:
        """``seat``'s arm comes into view and goes, short of the layout (not an occlusion)."""
        out = []
        for _ in range(round(seconds / 0.1)):
            self.t += 0.1
            self.fr += 3
            info = MotionInfo(self.t, self.fr, False, False, 0.0, False, None, frame_size=IMAGE_SIZE,
                              arm_side=self.side[seat], arm_point_px=self.entry(seat))
            out += self.tr.update(self.fr, self.t, None, info)
        self.events += out
        return out

    def read(self, window: float = 0.5) -> list:
        self.t += window
        self.fr += 15
        info = MotionInfo(self.t, self.fr, False, False, window, True, (0, 0) + IMAGE_SIZE, frame_size=IMAGE_SIZE)
        out = self.tr.update(self.fr, self.t, observe(self.on, self.to_px), info)
        self.events += out
        return out

    def play(self, laid: Laid) -> list:
        self.arm(laid.seat)
        self.on.append(laid)
        return self.read()


def plays(events):
    return [(e.seat, (e.tile.a, e.tile.b), e.end or "lead") for e in events if isinstance(e, Play)]


def notices(events, kind=None):
    return [e for e in events if isinstance(e, Notice) and (kind is None or e.kind == kind)]


def engine_plays(rules, log):
    return [(o.event.seat, (o.placement.tile.a, o.placement.tile.b), o.placement.end)
            for o in replay(rules, log).outcomes if isinstance(o.event, Play)]


def laid_hands(preset, n, seeds=range(40)):
    rules = load_ruleset(preset)
    out = []
    for seed in seeds:
        log = simulate_hand(rules, random.Random(seed))
        try:
            out.append((rules, log, lay_hand(rules, log, seed), seed))
        except PlacementFailed:
            continue
        if len(out) == n:
            break
    return out


def t_(x, y, angle, pips, seat=None):
    """A laid tile at (x, y) mm (table centre ~ (600, 500)), long axis at ``angle`` degrees."""
    a = np.deg2rad(angle)
    return Laid(np.array([x, y], float), np.array([np.cos(a), np.sin(a)]), pips, seat=seat)


# ---- whole hands -------------------------------------------------------------------------------

@pytest.mark.parametrize("preset", ["all-fives", "block", "muggins", "nova-block", "bdc-partnership"])
def test_simulated_hands_give_the_engine_logs_plays(preset):
    for rules, log, laid, seed in laid_hands(preset, 3):
        table = Table(rules)
        table.on = hand_tiles(random.Random(seed))  # face-down tiles in every hand area
        for tile in laid:
            table.play(tile)
        assert plays(table.events) == engine_plays(rules, log), f"{preset} seed {seed}"
        assert not notices(table.events, "seats_unseen"), f"{preset} seed {seed}"
        # the same board: open ends after every play agree with the engine's own log
        ours = Hand(rules.model_copy(update={"hand_size": 28, "boneyard": False}))
        totals = [ours.append(e).ends_total for e in table.events if isinstance(e, Play)]
        want = [o.ends_total for o in replay(rules, log).outcomes if isinstance(o.event, Play)]
        assert totals == want


def test_plays_are_oriented_and_carry_time_frame_and_confidence():
    rules = load_ruleset("nova-block")
    table = Table(rules)
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.play(t_(648, 500, 180, (2, 5), "E"))  # polygon order (2, 5): its 5 touches the lead
    evs = [e for e in table.events if isinstance(e, Play)]
    assert [(e.tile.a, e.tile.b) for e in evs] == [(3, 5), (5, 2)]
    assert all(e.oriented for e in evs)
    assert evs[1].end == "E" and evs[0].end is None
    assert evs[1].t == pytest.approx(table.t) and evs[1].frame == table.fr
    assert 0.8 < evs[1].confidence <= 1.0


def test_a_tile_seen_elsewhere_first_is_oriented_by_where_it_is_laid():
    """fives-and-threes footage, ivory board: a tile read while held, then laid turned, kept the held
    pose's pips order; its far half was taken for the touching one (a false mismatch, a wrong score)."""
    rules = load_ruleset("nova-block")
    table = Table(rules)
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.arm("E")
    table.on.append(t_(470, 420, 0, (2, 5), "E"))  # held over the table: 2 nearer x = 0
    assert plays(table.read()) == [] and notices(table.events, "unplaced_tile")
    table.arm("E")
    table.on[-1] = t_(648, 500, 0, (5, 2), "E")  # laid turned: its 5 touches the lead's 5
    out = table.read()
    assert plays(out) == [("E", (5, 2), "E")] and not notices(out, "uncertain_read")


BLACK, IVORY = (40.0, 128.0, 128.0), (235.0, 126.0, 140.0)  # body colours, OpenCV 8-bit Lab


def test_a_picture_unlike_the_set_read_with_a_real_tile_is_no_play():
    """bdc-partnership footage on a game board: black tiles, ivory dominoes printed on the board. An
    arm laid a tile and uncovered a printed one touching the new end: both were played."""
    rules = load_ruleset("nova-block")
    table = Table(rules)
    for tile in (t_(600, 500, 0, (3, 5), "N"), t_(648, 500, 0, (5, 2), "E")):
        table.play(dataclasses.replace(tile, face_lab=BLACK))
    table.arm("S")
    table.on += [t_(552, 500, 0, (6, 3), "S"), t_(504, 500, 0, (1, 6))]  # a real 6-3 and the picture beside it
    table.on[-2] = dataclasses.replace(table.on[-2], face_lab=(52.0, 130.0, 126.0))  # a little lighter: glare
    table.on[-1] = dataclasses.replace(table.on[-1], face_lab=IVORY)
    out = table.read()
    assert plays(out) == [("S", (3, 6), "W")]
    (unlike,) = notices(out, "unlike_set")
    assert unlike.tile == (6, 1) and unlike.details["colour_difference"] > 70
    # it stays a picture on later reads; a real tile laid against the new end is played
    out = table.play(dataclasses.replace(t_(696, 500, 0, (2, 4), "W"), face_lab=BLACK))
    assert plays(out) == [("W", (2, 4), "E")] and not notices(out, "unlike_set")


def test_a_lone_new_tile_is_never_judged_by_its_colour():
    rules = load_ruleset("nova-block")
    table = Table(rules)
    for tile in (t_(600, 500, 0, (3, 5), "N"), t_(648, 500, 0, (5, 2), "E")):
        table.play(dataclasses.replace(tile, face_lab=BLACK))
    # under a glare spot a black tile reads as light as ivory: alone, it is played by its fit
    out = table.play(dataclasses.replace(t_(552, 500, 0, (6, 3), "S"), face_lab=IVORY))
    assert plays(out) == [("S", (3, 6), "W")] and not notices(out, "unlike_set")


# ---- bumps, take-backs, missed states ----------------------------------------------------------

def _two_tiles(rules):
    table = Table(rules)
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.play(t_(648, 500, 0, (5, 2), "E"))
    return table


def test_a_bumped_tile_is_a_notice_not_a_play():
    table = _two_tiles(load_ruleset("nova-block"))
    table.arm("S")
    table.on[1] = moved(table.on[1], 4.0, 3.0)  # knocked 5 mm
    out = table.read()
    assert plays(out) == [] and not [e for e in out if isinstance(e, TakeBack)]
    (bump,) = notices(out, "bump")
    assert bump.tile == (5, 2) and bump.details["displacement"] == pytest.approx(5.0 * PX_PER_MM, abs=0.1)
    # the end moved with it: the next tile is laid against the bumped position
    out = table.play(t_(700, 503, 0, (2, 6), "S"))
    assert plays(out) == [("S", (2, 6), "E")]


@pytest.mark.parametrize("calibrated", [False, True])
@pytest.mark.parametrize("deg", [10.0, -10.0])
def test_a_bump_notice_says_how_far_and_which_way_the_tile_turned(calibrated, deg):
    """A tile knocked 5 mm and turned ``deg`` (as ``angle_deg``: + from +x towards +y, clockwise on
    screen with y down): the notice said 10 degrees either way (the turn had no sign)."""
    px_to_mm = np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0]).tolist()
    prof = TableProfile(name="t", image_size=IMAGE_SIZE, homography=px_to_mm, table_size_mm=(1200, 1000)) \
        if calibrated else None
    to_px = (lambda mm: mm * PX_PER_MM + 0.5) if calibrated else None  # noqa: E731
    table = Table(load_ruleset("nova-block"), profile=prof, to_px=to_px)
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.play(t_(648, 500, 0, (5, 2), "E"))
    table.arm("S")
    table.on[1] = dataclasses.replace(t_(651, 504, deg, (5, 2)), seat="E")
    (bump,) = notices(table.read(), "bump")
    shift, unit = (5.0, "mm") if calibrated else (5.0 * PX_PER_MM, "px")
    assert bump.details == {"displacement": pytest.approx(shift, abs=0.05),
                            "rotation_deg": pytest.approx(deg, abs=0.05)}
    way = "clockwise" if deg > 0 else "counter-clockwise"
    assert f"bump {shift:.1f} {unit}, turned 10.0 degrees {way}: not a play" in bump.message


def test_a_taken_back_tile_is_confirmed_by_a_second_read():
    table = _two_tiles(load_ruleset("nova-block"))
    table.arm("E")
    table.on.pop()  # E takes [5|2] back
    first = table.read()
    assert not [e for e in first if isinstance(e, TakeBack)]
    assert table.tr.wants_read
    second = table.read(0.3)
    (tb,) = [e for e in second if isinstance(e, TakeBack)]
    assert (tb.seat, tb.tile.key) == ("E", (5, 2))
    assert table.tr.hand.state.layout.open_ends() == {"W": 3, "E": 5}
    assert not table.tr.wants_read


def test_a_tile_replaced_at_once_is_a_take_back_then_a_play():
    table = _two_tiles(load_ruleset("nova-block"))
    table.arm("E")
    table.on[1] = t_(648, 500, 0, (5, 6), "E")  # [5|2] swapped for [5|6] in one go
    out = table.read()
    kinds = [type(e).__name__ for e in out if not isinstance(e, Notice)]
    assert kinds == ["TakeBack", "Play"]
    assert plays(out) == [("E", (5, 6), "E")]


def test_a_tile_taken_back_and_laid_again_with_the_next_play_is_the_taker_s_then_the_next_play_follows():
    """helper-220: E's 5-2 taken back, then one read shows it laid again with S's 2-4 against it (S's arm alone
    seen). The arm's votes gave 5-2 to S, the engine refused it (E holds it), 2-4 touched no open end, and
    that arm was lost for the rest of the hand. Now 5-2 is E's (E took it back), the votes name 2-4's seat,
    both flagged missed_state, and the arm goes on."""
    table = _two_tiles(load_ruleset("nova-block"))
    table.arm("E")
    relaid = table.on.pop()
    table.read()
    tb = [e for e in table.read(0.3) if isinstance(e, TakeBack)]
    assert [(e.seat, e.tile.key) for e in tb] == [("E", (5, 2))]
    table.arm("S")  # E lays it again unseen (only S's arm, as a folder's photos show only N's hand losing a tile)
    table.on += [t_(696, 500, 0, (2, 4), "S"), relaid]
    out = table.read()
    assert plays(out) == [("E", (5, 2), "E"), ("S", (2, 4), "E")]
    assert not notices(out, "rejected") and not notices(out, "unplaced_tile")
    flagged = {n.tile: n.details for n in notices(out, "uncertain_read")}
    assert flagged[(5, 2)]["reasons"] == ["missed_state"] and flagged[(5, 2)]["seat_source"] == "take_back"
    assert flagged[(2, 4)]["reasons"] == ["missed_state"] and flagged[(2, 4)]["seat_source"] == "entry"
    assert plays(table.play(t_(744, 500, 0, (4, 1), "W"))) == [("W", (4, 1), "E")]
    assert table.tr.hand.state.layout.open_ends() == {"W": 3, "E": 1}


def test_a_tile_whose_play_was_refused_is_tried_again_at_later_reads():
    """helper-223: a play the engine refused left its tile out of every later read's candidates, so it was never
    laid, even once the engine would take it. Here S's 2-4 on E is refused twice (one ``rejected`` notice: the
    same refusal is said once), then accepted at the next read, by the turn (no arm seen then: seat_by_turn)."""
    table = _two_tiles(load_ruleset("nova-block"))
    append, refuse = table.tr._append, [True]

    def refusing(event):  # the engine refuses S's 2-4 while ``refuse`` holds
        if isinstance(event, Play) and event.tile.key == (4, 2) and refuse[0]:
            raise IllegalEvent("refused for the test")
        return append(event)

    table.tr._append = refusing
    out = table.play(t_(696, 500, 0, (2, 4), "S")) + table.read()
    assert plays(out) == [] and [n.message for n in notices(out, "rejected")] == ["refused for the test"]
    refuse[0] = False
    out = table.read()
    assert plays(out) == [("S", (2, 4), "E")] and not notices(out, "rejected")
    assert notices(out, "uncertain_read")[0].details["reasons"] == ["seat_by_turn"]
    assert table.tr.hand.state.layout.open_ends() == {"W": 3, "E": 4}
    assert plays(table.read()) == []  # laid once


def test_footage_says_nothing_of_an_arms_end_hidden_for_one_read():
    """Footage: an arm hides a tile for a read or two, and that is no news (a folder's photo lacking it is:
    helper-217, tests/test_review.py). One read without E's 5-2, then it is back: no notice, no take-back."""
    table = _two_tiles(load_ruleset("nova-block"))
    table.arm("S")
    hidden = table.on.pop()
    out = table.read()
    table.on.append(hidden)
    out += table.read(0.3)
    assert notices(out) == [] and not [e for e in out if isinstance(e, TakeBack)]
    assert table.tr.hand.state.layout.open_ends() == {"W": 3, "E": 2}


def test_a_missing_tile_inside_an_arm_is_no_take_back():
    table = _two_tiles(load_ruleset("nova-block"))
    table.play(t_(696, 500, 0, (2, 4), "S"))
    table.arm("W")
    del table.on[1]  # the middle tile is not seen (glare), the arm's end is
    out = table.read() + table.read(0.3)
    assert not [e for e in out if isinstance(e, TakeBack)]
    assert [n.tile for n in notices(out, "tile_missing")] == [(5, 2)]


def test_missed_state_two_tiles_in_a_chain_come_out_in_adjacency_order():
    rules = load_ruleset("nova-block")
    table = Table(rules)
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.arm("E")
    table.arm("S")
    table.on += [t_(696, 500, 0, (2, 4)), t_(648, 500, 0, (5, 2))]  # the outer one listed first
    out = table.read()
    assert plays(out) == [("E", (5, 2), "E"), ("S", (2, 4), "E")]
    flagged = notices(out, "uncertain_read")
    assert len(flagged) == 2 and all("missed_state" in n.details["reasons"] for n in flagged)


def test_missed_state_on_two_arms_gives_both_plays_flagged():
    table = Table(load_ruleset("nova-block"))
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.arm("E")
    table.arm("S")
    table.on += [t_(552, 500, 0, (1, 3)), t_(648, 500, 0, (5, 2))]
    out = table.read()
    assert sorted((p[1], p[2]) for p in plays(out)) == [((3, 1), "W"), ((5, 2), "E")]
    assert sorted(p[0] for p in plays(out)) == ["E", "S"]
    assert all("missed_state" in n.details["reasons"] for n in notices(out, "uncertain_read"))


def test_a_second_new_tile_no_arm_of_the_seat_to_play_laid_is_no_play():
    """helper-84: an arm laying a tile uncovered a board's printed domino beside the other end, read
    with it: it became the next seat's play (then a take-back). Only E's arm came: S laid nothing."""
    table = Table(load_ruleset("nova-block"))
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.arm("E")
    table.on += [t_(552, 500, 0, (1, 3)), t_(648, 500, 0, (5, 2))]
    out = table.read()
    assert len(plays(out)) == 1 and plays(out)[0][0] == "E"
    assert [n.kind for n in notices(out)] == ["unplaced_tile"]


def test_a_picture_uncovered_beside_a_play_entered_by_hand_is_no_play():
    """helper-147: the umpire typed E's 1-3 before the camera read it; the arm laying it uncovered a printed
    5-2 beside the other end. The typed play was found on the table (no event), but with no play of the
    camera's in that read the picture became S's play, out of turn. A recorded play found in a read is that
    read's play: the picture waits as an unplaced tile, as it does without the typed entry."""
    table = Table(load_ruleset("nova-block"))
    table.play(t_(600, 500, 0, (3, 5), "N"))
    assert table.tr.sync([Play(seat="N", tile=[3, 5], end=None), Play(seat="E", tile=[1, 3], end="W")]) == []
    table.arm("E")
    table.on += [t_(552, 500, 0, (1, 3)), t_(648, 500, 0, (5, 2))]
    out = table.read()
    assert plays(out) == [] and not table.tr.record_sync.binder.pending and [n.kind for n in notices(out)] == ["unplaced_tile"]
    assert [(pr.seat, pr.tile.key) for pr in table.tr.plays] == [("N", (5, 3)), ("E", (3, 1))]


# ---- what is not a play -----------------------------------------------------------------------

def test_face_down_tiles_and_hand_area_tiles_are_not_plays():
    table = Table(load_ruleset("nova-block"))
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.arm("W")
    table.on.append(t_(60, 400, 90, (5, 1)))  # face up in W's hand area, 60 mm from the edge
    down = t_(648, 500, 0, (5, 2))
    down.face = "down"  # face down against the E end
    table.on.append(down)
    out = table.read()
    assert plays(out) == []
    assert notices(out, "unplaced_tile") == []  # hand-area tiles are not even reported
    assert {t.status for t in table.tr.tiles.values() if t.face == "up" and t.pips == (5, 1)} == {"hand"}


def test_a_face_up_tile_touching_nothing_outside_hand_areas_is_reported():
    table = Table(load_ruleset("nova-block"))
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.arm("E")
    table.on.append(t_(800, 300, 0, (5, 1)))
    out = table.read()
    assert plays(out) == []
    assert [(n.tile, n.message) for n in notices(out, "unplaced_tile")] == [
        ((5, 1), "face-up tile 5-1 touches no open end")]


def test_a_hand_area_tile_touching_the_layout_is_a_play():
    table = Table(load_ruleset("nova-block"), config=TrackerConfig(hand_zone_frac=0.2))  # 160 px = 200 mm
    table.play(t_(300, 215, 0, (3, 5), "N"))  # lead centre 215 mm from the N edge: outside the hand area
    table.play(t_(348, 215, 0, (5, 2), "E"))
    table.play(t_(384, 203, 90, (4, 2), "S"))  # turns up (its 2 touches): centre 203 mm from the edge
    out = table.play(t_(384, 155, 90, (1, 4), "W"))  # centre 155 mm from the edge: in N's hand area
    assert table.tr.in_hand_zone(table.tr.tiles[max(table.tr.tiles)].geom)
    assert plays(out) == [("W", (4, 1), "E")]


def test_reads_while_something_moves_are_ignored():
    table = _two_tiles(load_ruleset("nova-block"))
    partial = observe(table.on[:1])  # the arm hides [5|2]
    info = MotionInfo(table.t + 0.1, table.fr + 1, True, True, 0.0, False, None, entry_side="right",
                      frame_size=IMAGE_SIZE)
    assert table.tr.update(table.fr + 1, table.t + 0.1, partial, info) == []
    assert not table.tr.wants_read


# ---- seats ------------------------------------------------------------------------------------------

def test_the_entry_edge_names_the_seat_even_out_of_turn():
    table = Table(load_ruleset("nova-block"))
    table.play(t_(600, 500, 0, (3, 5), "N"))
    out = table.play(t_(648, 500, 0, (5, 2), "S"))  # E passed: inferred from S's arm
    assert plays(out) == [("S", (5, 2), "E")]
    assert notices(out, "uncertain_read") == []
    assert [(e.seat, e.t, e.frame) for e in out if isinstance(e, Pass)] == [("E", table.t, table.fr)]


def test_without_entry_evidence_the_turn_order_decides_and_flags_it():
    table = Table(load_ruleset("nova-block"))
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.on.append(t_(648, 500, 0, (5, 2)))
    out = table.read()
    assert plays(out) == [("E", (5, 2), "E")]
    (flag,) = notices(out, "uncertain_read")
    assert "seat_by_turn" in flag.details["reasons"]


def test_a_play_whose_seat_the_turn_order_gave_is_marked_for_the_record():
    """The ``seat_by_turn`` doubt goes on the engine's Play too, so the game record keeps it: the plays
    an arm was seen laying are not marked, the one the turn order gave its seat is."""
    table = Table(load_ruleset("nova-block"))
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.play(t_(648, 500, 0, (5, 2), "S"))  # E passed: inferred from S's arm
    table.on.append(t_(552, 500, 0, (1, 3)))  # no arm seen: W's by turn
    out = table.read()
    assert [(e.seat, e.seat_by_turn) for e in out if isinstance(e, Play)] == [("W", True)]
    assert [(e.seat, e.seat_by_turn) for e in table.tr.hand.log if isinstance(e, Play)] == [
        ("N", False), ("S", False), ("W", True)]


def test_attribute_seat_weighs_votes_against_the_turn():
    order = ["N", "E", "S", "W"]
    assert attribute_seat({"S": 5}, "E", order).seat == "S"
    mixed = attribute_seat({"S": 3, "E": 2}, "E", order)
    assert mixed.seat == "E" and mixed.uncertain
    assert attribute_seat({}, "W", order).source == "turn"
    assert attribute_seat({"E": 6}, "N", ["N", "S"]).seat == "N"  # E is not playing


def test_calibrated_profile_maps_entry_points_to_its_seats():
    # px -> mm is a scale of 1/0.8; the N seat sits at the x=W edge (right of the image)
    h = np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0])
    prof = TableProfile(name="t", image_size=IMAGE_SIZE, homography=h.tolist(), table_size_mm=(1200, 1000),
                        seat_edges={"W": "y=0", "N": "x=W", "E": "y=H", "S": "x=0"})
    table = Table(load_ruleset("nova-block"), profile=prof, to_px=lambda mm: mm * PX_PER_MM + 0.5)
    where = {"N": "E", "E": "S", "S": "W", "W": "N"}  # this table's seat -> image border (table_sim names)
    table.entry = lambda seat: entry_point(where[seat])
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.play(t_(648, 500, 0, (5, 2), "S"))
    assert plays(table.events) == [("N", (3, 5), "lead"), ("S", (5, 2), "E")]
    assert table.tr.tiles[1].geom.length == pytest.approx(48.0, abs=0.5)  # working units are mm


# ---- no motion information -------------------------------------------------------------------

def test_without_motion_info_a_state_must_hold_for_the_still_window():
    rules = load_ruleset("nova-block")
    tr = Tracker(rules, config=TrackerConfig(still_window_s=0.5), image_size=IMAGE_SIZE)
    tiles = [t_(600, 500, 0, (3, 5))]
    times = []
    for i in range(20):
        t = i * 0.1
        if i == 8:
            tiles.append(t_(648, 500, 0, (5, 2)))
        for e in tr.update(i, t, observe(tiles), None):
            if isinstance(e, Play):
                times.append(round(t, 2))
    assert times == [0.5, 1.3]  # 0.5 s after each change


# ---- the motion gate on images ------------------------------------------------------------------

def _canvas():
    return np.full((200, 320, 3), 90, np.uint8)


def _draw_tile(img, x, y):
    cv2.rectangle(img, (x, y), (x + 24, y + 12), (235, 235, 235), -1)


def _draw_arm(img, side, depth):
    if side == "right":
        cv2.rectangle(img, (320 - depth, 80), (319, 120), (60, 110, 170), -1)
    else:
        cv2.rectangle(img, (140, 0), (180, depth), (60, 110, 170), -1)


@pytest.mark.parametrize("fps", [10, 30])
def test_gate_waits_for_a_still_window_in_seconds_not_frames(fps):
    gate = MotionGate(still_window_s=0.5)
    img = _canvas()
    _draw_tile(img, 100, 90)
    reads = [i / fps for i in range(2 * fps) if gate.update(i, i / fps, img).read]
    assert reads == [pytest.approx(0.5, abs=1.0 / fps + 1e-9)]


def test_gate_holds_reads_while_an_arm_is_over_the_table_and_names_its_side():
    gate = MotionGate(still_window_s=0.4)
    base = _canvas()
    _draw_tile(base, 100, 90)
    t, i = 0.0, 0
    for _ in range(6):
        gate.update(i, t, base)
        t, i = t + 0.1, i + 1
    infos = []
    for depth in (60, 120, 180, 180, 180, 180, 180, 180):  # reaches in, then rests still
        img = base.copy()
        _draw_arm(img, "right", depth)
        infos.append(gate.update(i, t, img))
        t, i = t + 0.1, i + 1
    assert not any(m.read for m in infos)
    assert all(m.occluded and m.entry_side == "right" for m in infos)
    assert infos[-1].entry_point_px[0] > 300
    after = base.copy()
    _draw_tile(after, 200, 100)  # the arm left a new tile
    out = []
    for _ in range(8):
        out.append(gate.update(i, t, after))
        t, i = t + 0.1, i + 1
    reads = [m for m in out if m.read]
    assert len(reads) == 1
    x0, y0, x1, y1 = reads[0].changed_bbox_px
    assert x0 <= 200 and x1 >= 224 and y0 <= 100 and y1 >= 112  # the new tile is inside
    assert x0 > 124  # the old tile (100..124) is outside: it needs no fresh read
    mask = reads[0].changed_mask()
    assert mask.shape == (200, 320) and mask[106, 212]  # the new tile's centre changed ...
    assert not mask[96, 112] and not mask[100, 300]  # ... the old tile and where the arm was did not
    assert mask.sum() < 3 * 25 * 13  # about the tile, grown a work pixel


def _with_arm(img, depth, side="top"):
    """A copy of ``img`` with an arm reaching ``depth`` px in from ``side`` (:func:`_draw_arm`)."""
    out = img.copy()
    _draw_arm(out, side, depth)
    return out


def _frames(gate, images, t=0.0, i=0, dt=0.1):
    """Feed ``images`` to ``gate`` one frame each ``dt`` s from frame ``i`` at ``t``: (their MotionInfos, t, i next)."""
    infos = []
    for image in images:
        infos.append(gate.update(i, t, image))
        t, i = t + dt, i + 1
    return infos, t, i


def test_a_reads_changed_region_covers_where_an_arm_reached_though_little_changed_there():
    """helper-159: a face-down tile drawn from a boneyard on marble changed too few grey levels to count;
    the read after the draw covered only the drawing seat's hand, the tracker kept the boneyard tile, and
    the draw went to the seat whose turn it was at a later read. Here a tile 10 levels off the cloth
    (under the 25 that count) goes with an arm from the top (x 140-180, down to y 120) while a bright
    tile is laid at (250, 150): the region holds both, the arm's reach included."""
    gate = MotionGate(still_window_s=0.4)
    base = _canvas()
    cv2.rectangle(base, (148, 60), (172, 72), (100, 100, 100), -1)  # the faint tile
    _, t, i = _frames(gate, [base] * 6 + [_with_arm(base, d) for d in (60, 120, 120, 120)])
    after = _canvas()  # the faint tile taken
    _draw_tile(after, 250, 150)
    infos, t, i = _frames(gate, [after] * 8, t, i)
    reads = [m for m in infos if m.read]
    assert len(reads) == 1
    x0, y0, x1, y1 = reads[0].changed_bbox_px
    assert x0 <= 140 and y0 == 0 and x1 >= 274 and y1 >= 162  # the arm's reach and the new tile


def test_a_reads_touched_mask_holds_where_an_arm_reached_since_the_last_read_and_what_changed():
    """What a hand may have moved (helper-257: the tracker's test whether a picture of a tile was touched): an arm
    from the top (x 140-180, down to y 120) over a tile at (148-172, 100-112) that it leaves as it was, while a
    tile is laid at (250, 150): the read's touched mask holds both tiles, its changed mask the new one only. The
    next read, after a tile laid at (40, 40) with no arm, holds that one only: the arms' sweep starts afresh."""
    gate = MotionGate(still_window_s=0.4)
    base = _canvas()
    _draw_tile(base, 148, 100)
    _draw_tile(base, 30, 150)  # no arm near it, nothing changes there
    _, t, i = _frames(gate, [base] * 6)
    arms, t, i = _frames(gate, [_with_arm(base, d) for d in (60, 120, 120, 120)], t, i)
    assert all(m.swept_small is not None for m in arms)
    after = base.copy()
    _draw_tile(after, 250, 150)

    def read(image):
        nonlocal t, i
        infos, t, i = _frames(gate, [image] * 8, t, i)
        out = [m for m in infos if m.read]
        assert len(out) == 1
        return out[0]

    first = read(after)
    touched, changed = first.touched_mask(), first.changed_mask()
    assert touched.shape == (200, 320) and touched[106, 160] and touched[156, 262] and not touched[156, 42]
    assert touched[10, 160] and not touched[10, 100]  # the arm's way in, not beside it
    assert changed[156, 262] and not changed[106, 160]
    later = after.copy()
    _draw_tile(later, 40, 40)
    second = read(later)
    assert second.swept_small is None
    touched = second.touched_mask()
    assert touched[46, 52] and not touched[106, 160] and not touched[156, 262]


def test_frame_pipeline_hands_what_changed_to_a_recognizer_that_takes_focus():
    from engine.ruleset import load_ruleset
    from service.review import FramePipeline

    class Spy:
        takes_focus = True

        def __init__(self):
            self.focus = []

        def __call__(self, image, focus=None):
            self.focus.append(focus)
            return []

    base, after = _canvas(), _canvas()
    _draw_tile(base, 100, 90)
    _draw_tile(after, 100, 90)
    _draw_tile(after, 200, 100)
    spy, plain = Spy(), []
    pipes = [FramePipeline(load_ruleset("block"), spy, still_window_s=0.3),
             FramePipeline(load_ruleset("block"), lambda im: plain.append(im.shape) or [], still_window_s=0.3)]
    for k in range(20):
        for p in pipes:
            p.step(k, k * 0.1, base if k < 10 else after)
    assert spy.focus[0] is None  # the first read: everything is new
    assert len(spy.focus) == 2 and spy.focus[1][106, 212] and not spy.focus[1][96, 112]
    assert plain == [(200, 320, 3)] * 2  # a plain callable gets the image only


def test_the_read_confirming_a_tile_gone_is_a_second_look():
    """A still table read again at the same scale repeats the detector's miss: jersey-partnership seed 37
    (calibrated) lost the line's 2-6 and 1-2 in two reads of one frame and took both back. The read the
    tracker asks for looks again at another scale (``second_look``); here the first look misses E's 5-2
    and the second sees it: no take-back. Photos: each step is a read."""
    from service.review import FramePipeline

    class TwoLooks:
        takes_focus = takes_second_look = True

        def __init__(self):
            self.on, self.missed, self.looks = [], None, []

        def __call__(self, image, focus=None, second_look=False):
            self.looks.append(second_look)
            return observe([x for x in self.on if second_look or x is not self.missed])

    rec = TwoLooks()
    pipe = FramePipeline(load_ruleset("nova-block"), rec, timelapse=True)
    photo = np.full((IMAGE_SIZE[1], IMAGE_SIZE[0], 3), 90, np.uint8)
    events = []
    rec.on.append(t_(600, 500, 0, (3, 5), "N"))
    events += pipe.step(0, 0.0, photo)[1]
    rec.on.append(t_(648, 500, 0, (5, 2), "E"))
    events += pipe.step(1, 1.0, photo)[1]
    assert [p[1] for p in plays(events)] == [(3, 5), (5, 2)]
    rec.missed = rec.on[1]  # the next photo's first look misses the arm's last tile
    events += pipe.step(2, 2.0, photo)[1]
    assert pipe.tracker.wants_read  # one miss is no take-back: it asks for another read
    events += pipe.step(3, 3.0, photo)[1]
    assert not [e for e in events if isinstance(e, TakeBack)]
    assert rec.looks == [False, False, False, True]
    assert pipe.tracker.hand.state.layout.open_ends() == {"W": 3, "E": 2}


def test_gate_reads_once_after_an_arm_came_and_went_without_a_visible_change():
    """A knock, or a white tile turned face up, changes few pixels: the arm's visit earns one read."""
    gate = MotionGate(still_window_s=0.3)
    img = _canvas()
    _draw_tile(img, 100, 90)
    t, i, reads = 0.0, 0, []
    for k in range(30):
        frame = img.copy()
        if 8 <= k < 12:
            _draw_arm(frame, "right", 40 + 20 * (k - 8))  # comes in and goes back out, leaves nothing
        reads.append(round(t, 1) if gate.update(i, t, frame).read else None)
        t, i = t + 0.1, i + 1
    # the first read (0.3 s in) and one read 0.3 s after the arm left at 1.2 s
    assert [r for r in reads if r is not None] == [0.3, 1.5]


def test_gate_an_arm_resting_at_the_edge_does_not_keep_it_reading():
    gate = MotionGate(still_window_s=0.3)
    img = _canvas()
    _draw_tile(img, 100, 90)
    rest = img.copy()
    _draw_arm(rest, "right", 40)
    reads = [gate.update(k, k * 0.1, img if k < 5 else rest).read for k in range(40)]
    assert sum(reads) <= 2  # the start, and at most once for the arm's arrival; never again


def test_gate_ignores_motion_outside_the_layout_roi():
    gate = MotionGate(still_window_s=0.3)
    img = _canvas()
    reads = []
    for i in range(12):
        frame = img.copy()
        _draw_arm(frame, "top", 20 + (i % 3) * 10)  # a player fidgeting at the top edge
        reads.append(gate.update(i, i * 0.1, frame, roi_px=(80, 80, 240, 180)).read)
    assert any(reads)


def test_gate_a_lighting_change_is_not_an_arm():
    gate = MotionGate(still_window_s=0.3)
    img = _canvas()
    for i in range(5):
        gate.update(i, i * 0.1, img)
    brighter = np.full_like(img, 160)
    infos = [gate.update(5 + i, 0.5 + i * 0.1, brighter) for i in range(6)]
    assert not any(m.occluded for m in infos)
    assert any(m.read for m in infos)


# ---- gate + recognizer + tracker -----------------------------------------------------------------

def test_frames_to_events_latency_under_one_second():
    """Rendered frames, a fake recognizer: each play's event comes < 1 s after the tile is at rest."""
    rules = load_ruleset("nova-block")
    scale = 0.25  # px per mm
    size = (int(1200 * scale), int(1000 * scale))
    script = [("N", t_(600, 500, 0, (3, 5))), ("E", t_(648, 500, 0, (5, 2))), ("S", t_(552, 500, 0, (1, 3))),
              ("W", t_(696, 500, 0, (2, 6)))]
    state = {"tiles": []}

    def frames():
        i, t = 0, 0.0
        for seat, tile in script:
            for k in range(18):  # 1.0 s still, then 0.8 s of an arm in and out
                img = np.full((size[1], size[0], 3), 80, np.uint8)
                for tl in state["tiles"]:
                    poly = (tl.polygon_mm() * scale).astype(np.int32)
                    cv2.fillPoly(img, [poly], (235, 235, 235))
                if 10 <= k < 18:
                    depth = int(size[1] * 0.5 * (1 - abs(k - 14) / 4))
                    side = SEAT_SIDE[seat]
                    w, h = size
                    box = {"top": (w // 2 - 10, 0, w // 2 + 10, depth), "bottom": (w // 2 - 10, h - depth, w // 2 + 10, h),
                           "left": (0, h // 2 - 10, depth, h // 2 + 10),
                           "right": (w - depth, h // 2 - 10, w, h // 2 + 10)}[side]
                    if depth > 0:
                        cv2.rectangle(img, box[:2], (box[2] - 1, box[3] - 1), (50, 100, 160), -1)
                if k == 14:
                    state["tiles"] = state["tiles"] + [tile]
                yield i, t, img
                i, t = i + 1, t + 0.1
        for _ in range(15):
            img = np.full((size[1], size[0], 3), 80, np.uint8)
            for tl in state["tiles"]:
                cv2.fillPoly(img, [(tl.polygon_mm() * scale).astype(np.int32)], (235, 235, 235))
            yield i, t, img
            i, t = i + 1, t + 0.1

    def recognize(image):
        return observe(state["tiles"], lambda mm: mm * scale)

    tracker = Tracker(rules, image_size=size)
    got = []
    for idx, t, events in track_frames(frames(), recognize, tracker, MotionGate(still_window_s=0.5)):
        got += [(t, e) for e in events if isinstance(e, Play)]
    assert [(e.seat, (e.tile.a, e.tile.b)) for _, e in got] == [
        ("N", (3, 5)), ("E", (5, 2)), ("S", (3, 1)), ("W", (2, 6))]
    # each tile is at rest from k = 14 of its block (the arm then withdraws over 0.4 s)
    at_rest = [1.8 * n + 1.4 for n in range(len(script))]
    lat = [t - r for (t, _), r in zip(got, at_rest)]
    assert all(0 < x <= 1.0 for x in lat), lat
    assert float(np.median(lat)) <= 1.0


def test_tiles_keep_their_ids_across_reads():
    table = _two_tiles(load_ruleset("nova-block"))
    ids = {t.pips: t.id for t in table.tr.tiles.values()}
    table.play(t_(552, 500, 0, (1, 3), "S"))
    assert {t.pips: t.id for t in table.tr.tiles.values() if t.pips in ids} == ids
    assert table.tr.state is not None and len(table.tr.state.tiles) == 3


def test_a_missing_inner_tile_does_not_keep_asking_for_reads():
    table = _two_tiles(load_ruleset("nova-block"))
    table.play(t_(696, 500, 0, (2, 4), "S"))
    del table.on[1]
    table.read()
    table.read(0.3)
    assert not table.tr.wants_read  # only a pending take-back asks for a confirming read


def _effective(events):
    """Plays still on the table after the take-backs, in order."""
    out = []
    for e in events:
        if isinstance(e, Play):
            out.append(e)
        elif isinstance(e, TakeBack):
            i = max(k for k, p in enumerate(out) if p.tile.key == e.tile.key and p.seat == e.seat)
            out.pop(i)
    return [(e.seat, (e.tile.a, e.tile.b), e.end or "lead") for e in out]


@pytest.mark.parametrize("preset", ["all-fives", "nova-block", "muggins"])
def test_a_hand_with_occlusions_bumps_a_take_back_and_a_missed_state(preset):
    checked = 0
    for rules, log, laid, seed in laid_hands(preset, 6):
        play_at = [k for k, ev in enumerate(log) if isinstance(ev, Play)]
        # a missed state: two plays next to each other in the log (no pass between), on one arm
        pairs = [i for i in range(1, len(laid) - 1)
                 if play_at[i + 1] == play_at[i] + 1 and laid[i + 1].end == laid[i].end]
        if not pairs or len(laid) < 6:
            continue
        rng = random.Random(seed)
        pair = rng.choice(pairs)
        undo = rng.choice([j for j in range(1, len(laid)) if j not in (pair, pair + 1)])
        bump_after = rng.choice([k for k in range(2, len(laid)) if k not in (pair, pair + 1)])
        table = Table(rules)
        table.on = hand_tiles(rng)
        i = 0
        while i < len(laid):
            if i == pair:  # both arms before one read; the first player's arm longer
                table.arm(laid[i].seat, 0.8)
                table.arm(laid[i + 1].seat, 0.3)
                table.on += [laid[i + 1], laid[i]]
                table.read()
                i += 2
                continue
            table.play(laid[i])
            if i == undo:  # taken back (two reads), then played again
                table.arm(laid[i].seat)
                table.on = [t for t in table.on if t is not laid[i]]
                table.read()
                table.read(0.3)
                table.play(laid[i])
            if i == bump_after:
                table.arm(laid[i].seat, 0.3)
                k = rng.choice([n for n, t in enumerate(table.on) if t.face == "up"])
                table.on[k] = moved(table.on[k], 3.0, -2.0)
                table.read()
            i += 1
        ev = table.events
        assert _effective(ev) == engine_plays(rules, log), f"{preset} seed {seed}"
        (tb,) = [e for e in ev if isinstance(e, TakeBack)]
        assert (tb.seat, tb.tile.key) == (laid[undo].seat, laid[undo].tile.key)
        assert len(notices(ev, "bump")) == 1
        missed = [n for n in notices(ev, "uncertain_read") if "missed_state" in n.details["reasons"]]
        assert [n.tile for n in missed] == [(laid[pair].tile.a, laid[pair].tile.b),
                                            (laid[pair + 1].tile.a, laid[pair + 1].tile.b)]
        checked += 1
    assert checked >= 2


def test_calibrated_perspective_camera_and_pose_noise():
    """A tilted camera (perspective homography) and +-2 mm / +-3 degree pose noise per tile."""
    mm = np.float32([[0, 0], [1200, 0], [1200, 1000], [0, 1000]])
    px = np.float32([[40, 30], [930, 50], [900, 780], [60, 760]])
    h_px_to_mm = cv2.getPerspectiveTransform(px, mm)
    h_mm_to_px = np.linalg.inv(h_px_to_mm)
    prof = TableProfile(name="tilted", image_size=IMAGE_SIZE, homography=h_px_to_mm.tolist(),
                        table_size_mm=(1200, 1000))

    def to_px(points_mm):
        return cv2.perspectiveTransform(np.asarray(points_mm, np.float64).reshape(-1, 1, 2), h_mm_to_px)[:, 0] + 0.5

    checked = 0
    for rules, log, laid, seed in laid_hands("all-fives", 3) + laid_hands("nova-block", 3):
        rng = np.random.default_rng(seed)
        noisy = []
        for t in laid:
            a = np.deg2rad(rng.uniform(-3, 3))
            rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
            noisy.append(Laid(t.center + rng.uniform(-2, 2, 2), rot @ t.axis, t.pips, t.tile, t.seat, t.end))
        table = Table(rules, profile=prof, to_px=to_px)
        table.entry = lambda seat: entry_point(seat)  # image borders; the profile maps them to seats
        for t in noisy:
            table.play(t)
        assert plays(table.events) == engine_plays(rules, log), f"{rules.name} seed {seed}"
        checked += 1
    assert checked == 6


def test_the_recognizers_own_observation_type_is_accepted():
    from vision.observation import TileObservation

    def obs(laid):
        return TileObservation(np.asarray(laid.polygon_mm() * PX_PER_MM, np.float32), "up", 0.9, pips=laid.pips,
                               half_confidence=(0.95, 0.9))

    tr = Tracker(load_ruleset("nova-block"), image_size=IMAGE_SIZE)
    lead, nxt = t_(600, 500, 0, (3, 5)), t_(648, 500, 0, (5, 2))
    still = MotionInfo(1.0, 10, False, False, 0.5, True, None, frame_size=IMAGE_SIZE)
    out = tr.update(10, 1.0, [obs(lead)], still)
    out += tr.update(20, 2.0, [obs(lead), obs(nxt)], MotionInfo(2.0, 20, False, False, 0.5, True, None,
                                                               frame_size=IMAGE_SIZE))
    assert [(e.tile.a, e.tile.b) for e in out if isinstance(e, Play)] == [(3, 5), (5, 2)]
    assert [e.confidence for e in out if isinstance(e, Play)][1] == pytest.approx(0.9 * 0.9, abs=0.01)


@pytest.mark.parametrize("preset", ["all-fives", "nova-block", "draw"])
def test_hands_laid_by_the_renderers_planner_give_the_engine_logs_plays(preset):
    """Cross-check with the footage generator's own placer (datasets/render/line_of_play.py):
    it turns clockwise first, leaves 0.5 mm gaps and was written independently of the tracker."""
    lop_mod = pytest.importorskip("datasets.render.line_of_play")
    rules = load_ruleset(preset)
    checked = 0
    for seed in range(10):
        log = simulate_hand(rules, random.Random(seed))
        outs = [o for o in replay(rules, log).outcomes if isinstance(o.event, Play)]
        spec = [(o.placement.tile.a, o.placement.tile.b, o.placement.end, o.placement.became_spinner) for o in outs]
        planner = lop_mod.plan_hand(spec, (600.0, 500.0), [lop_mod.Box(150, 150, 1050, 850)])
        if planner.fallbacks:
            continue
        table = Table(rules)
        for o, p in zip(outs, planner.placements):
            a = np.deg2rad(p.angle_deg)
            table.play(Laid(np.array([p.x_mm, p.y_mm]), np.array([np.cos(a), np.sin(a)]), (p.a, p.b),
                            seat=o.event.seat))
        assert plays(table.events) == engine_plays(rules, log), f"{preset} seed {seed}"
        assert not notices(table.events, "seats_unseen"), f"{preset} seed {seed}"
        checked += 1
    assert checked >= 5


def test_a_low_confidence_reading_change_on_a_played_tile_is_a_reread_notice_once():
    table = _two_tiles(load_ruleset("nova-block"))
    misread = Laid(table.on[1].center, table.on[1].axis, (5, 3), confidence=0.6)  # same place, one half misread
    table.on[1] = misread
    table.arm("S")
    out = table.read() + table.read(0.3)
    assert plays(out) == [] and not [e for e in out if isinstance(e, TakeBack)]
    (note,) = notices(out, "reread")
    assert note.details["old"] == [5, 2] and note.details["new"] == [5, 3]
    assert note.message == "tile read as 5-2 now reads 5-3"  # as the notation writes tiles (helper-90)


def _mismatches(tracker):
    return [(o.index, o.event.tile.key) for o in tracker.hand.state.outcomes for f in o.flags
            if f.kind == "mismatched_end"]


@pytest.mark.parametrize("fix_reads", [2, 0])
def test_a_play_read_unsure_is_corrected_once_clear_reads_agree_on_a_tile_that_fits(fix_reads):
    """helper-224: the demo's photos read N's 3-1 as 2-1 (0.10) under an arm, a mismatched end, and the next photos
    read it 3-1 at 0.91. The line 3-5 5-2 shows 2 at E; S lays 2-4 there, read 6-4 at 0.3 (0.97 x 0.3)."""
    table = _two_tiles(load_ruleset("nova-block"))
    table.tr.config = dataclasses.replace(table.tr.config, reread_fix_reads=fix_reads)
    assert plays(table.play(dataclasses.replace(t_(696, 500, 0, (6, 4), "S"), confidence=0.3))) == [("S", (6, 4), "E")]
    assert _mismatches(table.tr) == [(2, (6, 4))]  # 6 against the 2 showing at E
    table.on[2] = t_(696, 500, 0, (2, 4))  # read clearly (0.97 x 0.95)
    first = table.read()
    assert not [e for e in first if isinstance(e, Correction)]  # one clear read is not enough
    second = table.read(0.3)
    fixes = [e for e in second if isinstance(e, Correction)]
    if not fix_reads:  # off (the service): the reread notice alone, the play as read
        assert fixes == [] and _mismatches(table.tr) == [(2, (6, 4))]
        return
    (fix,) = fixes
    assert fix.replaces == 2 and (fix.event.seat, fix.event.tile, fix.event.end) == ("S", Tile(2, 4), "E")
    assert fix.event.t is None and fix.by == "camera"  # the fix keeps the play's moment (engine.events.effective)
    (note,) = [n for n in notices(second, "reread") if n.details.get("fixed")]
    assert (note.details["old"], note.details["new"]) == ([6, 4], [2, 4])
    assert _mismatches(table.tr) == [] and table.tr.plays[2].tile == Tile(2, 4)
    out = table.play(t_(744, 500, 0, (4, 6), "N"))  # the line goes on from the 4, as the engine has it
    assert plays(out) == [("N", (4, 6), "E")] and not notices(out, "uncertain_read")


def test_an_unsure_play_that_truly_mismatches_stays_flagged():
    """A bogus 6-1 on the 2 at E, first read 6-4 at 0.3, then read 6-1 clearly: it does not fit the line, so
    the play is not corrected (the umpire sees the reread notice and the mismatched end)."""
    table = _two_tiles(load_ruleset("nova-block"))
    table.tr.config = dataclasses.replace(table.tr.config, reread_fix_reads=2)
    table.play(dataclasses.replace(t_(696, 500, 0, (6, 4), "S"), confidence=0.3))
    table.on[2] = t_(696, 500, 0, (6, 1))
    out = table.read() + table.read(0.3) + table.read(0.3)
    assert not [e for e in out if isinstance(e, Correction)]
    assert [n.details["new"] for n in notices(out, "reread")] == [[6, 1]]
    assert _mismatches(table.tr) == [(2, (6, 4))]


def test_clearing_the_table_starts_a_new_hand():
    table = _two_tiles(load_ruleset("nova-block"))
    table.play(t_(552, 500, 0, (1, 3), "S"))
    table.arm("N")
    table.on = []
    out = table.read()
    assert [n.kind for n in notices(out)] == ["hand_cleared"]
    assert table.tr.hand.log == [] and table.tr.lop.lead is None
    out = table.play(t_(600, 500, 0, (6, 6), "W"))
    assert plays(out) == [("W", (6, 6), "lead")]


def test_a_table_cleared_in_sweeps_is_one_new_hand_without_take_backs():
    """Players sweep the tiles off in handfuls: a read between two sweeps sees half the line gone.
    That is no take-back of the arms' last tiles: once most of the line is gone over
    consecutive reads, the hand is cleared (the gone half counts too)."""
    table = _two_tiles(load_ruleset("nova-block"))
    table.play(t_(696, 500, 0, (2, 4), "S"))
    table.play(t_(552, 500, 0, (1, 3), "W"))
    table.play(t_(744, 500, 0, (4, 6), "N"))
    table.play(t_(504, 500, 0, (6, 1), "E"))  # the line: 6-1 1-3 3-5 5-2 2-4 4-6
    line = list(table.on)
    out = []
    for seat, left in (("N", line[:4]), ("S", line[:2]), ("N", [])):  # both ends' tiles first
        table.arm(seat)
        table.on = left
        out += table.read()
    out += table.read(0.3)
    assert [n.kind for n in notices(out)] == ["hand_cleared"]
    assert not [e for e in out if isinstance(e, TakeBack)]
    assert table.tr.hand.log == [] and table.tr.lop.lead is None


def test_a_weak_face_up_tile_of_the_setup_is_scenery_not_the_lead():
    """A domino printed on a game board (detector 0.26, pips read clearly) was the only face-up tile at
    the first read and became the lead; every real play after it touched no open end."""
    table = Table(load_ruleset("block"))
    printed = dataclasses.replace(t_(400, 300, 0, (1, 5)), det_score=0.26)
    table.on = [printed]
    out = table.read()
    assert plays(out) == [] and not notices(out)
    out = table.play(t_(600, 500, 0, (6, 6), "N"))
    assert plays(out) == [("N", (6, 6), "lead")] and not notices(out, "unplaced_tile")
    out = table.play(t_(648, 500, 0, (6, 2), "S"))
    assert plays(out) == [("S", (6, 2), "E")]
    # moved by a hand, it is a tile after all: from then on it counts (here: laid off the line)
    table.arm("N")
    table.on[0] = moved(printed, 0.0, 40.0)
    out = table.read()
    assert [n.tile for n in notices(out, "unplaced_tile")] == [(5, 1)]


def test_a_weak_face_up_tile_first_boxed_during_play_is_a_picture_not_an_unplaced_tile():
    """helper-186: a domino printed on a game board, missed at the setup, first boxed (0.19-0.20) in the lead's
    read of muggins seed 5 and block seed 3: "1 face-up tile touched no open end" made a correct hand's score
    "not final". A box under ``setup_min_score`` (0.35) touching no open end is judged as at the setup; one
    the detector is sure of (0.97) is still reported, and so is the weak one once someone moves it."""
    table = Table(load_ruleset("block"))
    assert plays(table.play(t_(600, 500, 0, (6, 6), "N"))) == [("N", (6, 6), "lead")]
    printed = dataclasses.replace(t_(400, 300, 0, (1, 5)), det_score=0.2)
    table.on.append(printed)
    out = table.read()
    assert not notices(out, "unplaced_tile")
    (picture,) = notices(out, "picture_tile")
    assert picture.tile == (5, 1) and picture.details == {"why": "weak_box", "unplaced": False, "box_score": 0.2}
    assert picture.message == ("face-up tile 5-1 touching no open end is a picture of a tile, not a play: its box "
                               "scored 0.20, under 0.35, as a game board's printed dominoes do")
    assert plays(table.play(t_(648, 500, 0, (6, 2), "S"))) == [("S", (6, 2), "E")]
    assert not notices(table.events, "unplaced_tile")
    table.arm("N")
    table.on[1] = moved(printed, 0.0, 40.0)  # moved by a hand: a tile after all
    assert [n.tile for n in notices(table.read(), "unplaced_tile")] == [(5, 1)]


def test_a_tile_first_boxed_against_a_picture_is_a_printed_track_not_an_unplaced_tile():
    """helper-254: jersey-partnership seed 5 on a game board: a printed 6-1 first boxed mid-hand (0.55) end to
    end with a printed 4-2 boxed weakly (0.35) in the same read, a printed 6-5 beside a printed 5-6 of the setup,
    touched no open end, and the right hand read "Score (not final)". A new face-up tile touching no open end
    within 1.25 tile lengths of a picture is another of the board's printed dominoes; one farther off, or moved
    by a hand, is still reported."""
    table = Table(load_ruleset("block"))
    assert plays(table.play(t_(600, 500, 0, (6, 6), "N"))) == [("N", (6, 6), "lead")]
    weak = dataclasses.replace(t_(300, 300, 90, (4, 2)), det_score=0.3)
    beside = dataclasses.replace(t_(300, 300 + L + 1, 90, (6, 1)), det_score=0.55)  # end to end: 49 mm apart
    side = dataclasses.replace(t_(300 + HALF, 300, 90, (5, 6)), det_score=0.9)  # side by side, after the 6-1
    table.on += [beside, weak, side]  # the weak one listed after the one against it: judged first all the same
    out = table.read()
    assert not notices(out, "unplaced_tile")
    assert [(n.tile, n.details["why"]) for n in notices(out, "picture_tile")] == [
        ((6, 1), "beside_picture"), ((4, 2), "weak_box"), ((6, 5), "beside_picture")]
    assert notices(out, "picture_tile")[0].message == (
        "face-up tile 6-1 touching no open end is a picture of a tile, not a play: it lies against 4-2, a picture, "
        "as a game board's track of printed dominoes does")
    far = t_(300, 300 + L + 1 + 1.4 * L, 90, (3, 0))  # 1.4 tile lengths from the 6-1, a gap of 0.4: not against it
    table.on.append(far)
    assert [n.tile for n in notices(table.read(), "unplaced_tile")] == [(3, 0)]
    assert plays(table.play(t_(648, 500, 0, (6, 2), "S"))) == [("S", (6, 2), "E")]
    table.arm("W")
    table.on[1] = moved(beside, 10.0, 0.0)  # moved by a hand, still against the 4-2: a tile after all
    assert [n.tile for n in notices(table.read(), "unplaced_tile")] == [(6, 1)]


def _read_seen(table: Table, changed: tuple = (), arm: tuple | None = None) -> list:
    """A still read whose gate, as in footage, says what it saw since the last read: the table changed over the
    boxes of the ``changed`` tiles (Laid, old and new poses) and an arm reached from ``arm`` = (seat, Laid)'s
    edge over that tile (a band 60 px wide). Returns the read's events."""
    w, h = IMAGE_SIZE
    changed_small = np.zeros((h, w), np.uint8)
    for t in changed:
        cv2.fillPoly(changed_small, [np.round(t.polygon_mm() * PX_PER_MM).astype(np.int32)], 255)
    swept = None
    if arm is not None:
        swept = np.zeros((h, w), np.uint8)
        start, tip = (tuple(int(v) for v in p) for p in (entry_point(arm[0]), arm[1].center * PX_PER_MM))
        cv2.line(swept, start, tip, 255, thickness=60)
    table.t += 0.5
    table.fr += 15
    info = MotionInfo(table.t, table.fr, False, False, 0.5, True, (0, 0) + IMAGE_SIZE, frame_size=IMAGE_SIZE,
                      changed_small=changed_small, swept_small=swept)
    out = table.tr.update(table.fr, table.t, observe(table.on), info)
    table.events += out
    return out


def _board_with_printed_0_5(patch=None) -> tuple[Table, object]:
    """A block table whose setup shows a printed 0|5 (boxed 0.26: a picture; its read's crop ``patch``, a
    :class:`vision.tile_turn.TilePatch`, or None), then N's lead 6-6 and S's 6-2, each read with the gate's masks
    (changed under the tile laid, the seat's arm over it)."""
    table = Table(load_ruleset("block"))
    printed = dataclasses.replace(t_(300, 300, 0, (0, 5)), det_score=0.26, patch=patch)
    table.on = [printed]
    assert plays(table.read()) == []
    for laid in (t_(600, 500, 0, (6, 6), "N"), t_(648, 500, 0, (6, 2), "S")):
        table.arm(laid.seat)
        table.on.append(laid)
        _read_seen(table, changed=(laid,), arm=(laid.seat, laid))
    assert plays(table.events) == [("N", (6, 6), "lead"), ("S", (6, 2), "E")]
    return table, printed


def test_a_picture_read_again_turned_with_other_pips_where_no_hand_reached_stays_a_picture():
    """helper-257: jersey-partnership seed 5 on a game board: the printed 0|5 of the setup was read again as 3-0
    (0.15) with its box 2.5 mm off and turned 5.5 degrees, as W's 2-4 was laid over its end; taken for a tile a hand
    moved, no picture rule held it and it touched no open end. Where the gate saw nothing change and no arm reach
    (under half of the old box and of the new one), it is the same picture read again: no notice, still scenery."""
    table, printed = _board_with_printed_0_5()
    misread = dataclasses.replace(t_(302, 301, 12, (0, 3)), det_score=0.26, confidence=0.3)  # turned 12 degrees
    table.arm("N")
    table.on[0] = misread
    nxt = t_(552, 500, 0, (5, 6), "N")
    table.on.append(nxt)
    out = _read_seen(table, changed=(nxt,), arm=("N", nxt))
    assert plays(out) == [("N", (6, 5), "W")] and not notices(out, "unplaced_tile") and not notices(out, "picture_tile")
    (picture,) = [tr for tr in table.tr.tiles.values() if tr.picture]
    assert (picture.scenery, picture.moved, picture.key) == (True, False, (3, 0))
    assert np.allclose(picture.geom.center, misread.center * PX_PER_MM)  # as boxed now: judged from there next
    table.arm("S")
    table.on[0] = printed  # boxed as at first again, 12 degrees back, while S lays the 2-3
    table.on.append(t_(696, 500, 0, (2, 3), "S"))
    out = _read_seen(table, changed=(table.on[-1],), arm=("S", table.on[-1]))
    assert plays(out) == [("S", (2, 3), "E")] and not notices(table.events, "unplaced_tile")
    assert (picture.scenery, picture.moved, picture.key) == (True, False, (5, 0))


def test_a_picture_a_hand_turned_where_it_lay_is_a_moved_tile():
    """The other side of the rule above: a tile taken for a picture (boxed 0.26 at the setup) that a hand turned
    15 degrees where it lay, the arm over it and the table changed under it, is a tile someone moved: no more
    scenery, and reported as touching no open end."""
    table, printed = _board_with_printed_0_5()
    turned = dataclasses.replace(t_(301, 300, -15, (0, 5)), det_score=0.26)
    table.arm("W")
    table.on[0] = turned
    out = _read_seen(table, changed=(printed, turned), arm=("W", turned))
    assert [n.tile for n in notices(out, "unplaced_tile")] == [(5, 0)] and plays(out) == []
    (tile,) = [tr for tr in table.tr.tiles.values() if tr.key == (5, 0)]
    assert (tile.scenery, tile.moved, tile.status) == (False, True, "unplaced")


def _drawn_crops(moved: bool) -> tuple:
    """Crops of a drawn tile (:mod:`test_tile_turn`'s scene) as two reads keep them: the first read's, and the next
    read's, boxed 2 px off and turned 5 degrees, with another tile laid over its far end; ``moved``: the tile itself
    pushed 2 px and turned 5 degrees (its box then as it lies)."""
    from test_tile_turn import _detector_box, _scene

    from vision.tile_turn import tile_patch

    c = np.array([100.3, 80.7])
    first = tile_patch(_scene(0.0, c), _detector_box(c, 0.0, 0.0, (0.0, 0.0)))
    if moved:
        return first, tile_patch(_scene(5.0, c + (2.0, 0.0)), _detector_box(c + (2.0, 0.0), 5.0, 0.0, (0.0, 0.0)))
    frame = _scene(0.0, c)
    frame[66:96, 68:90] = (225, 235, 240)  # a tile laid over its far end
    return first, tile_patch(frame, _detector_box(c, 5.0, 0.0, (2.0, 1.0)))


@pytest.mark.parametrize("moved", [False, True])
def test_a_picture_read_again_under_an_arm_stays_a_picture_while_its_own_pixels_did_not_move(moved):
    """helper-261: nova-block seed 5 on a game board: the printed 0|5 was read again as 3-0, its box 2.5 mm off and
    turned 6 degrees, as E's 2-4 was laid over its end; the arm that laid it had crossed the picture (all of its box
    touched), so it was taken for a tile a hand moved: "face-up tile 3-0 touches no open end", then "6-0" at the
    next read. A printed tile does not move: where the crop of the new read shows the same pixels where it lay as
    the crop kept from its first read (0.81 of its textured pixels, the new tile over its end), it is the same
    picture: no notice. Pushed 2 px and turned 5 degrees by the hand (0.40 of them the same), it is a tile moved."""
    first, again = _drawn_crops(moved)
    table, printed = _board_with_printed_0_5(first)
    misread = dataclasses.replace(t_(302, 301, 12, (0, 3)), det_score=0.26, confidence=0.3, patch=again)
    table.arm("N")
    table.on[0] = misread
    nxt = t_(552, 500, 0, (5, 6), "N")
    table.on.append(nxt)
    out = _read_seen(table, changed=(nxt,), arm=("N", misread))  # N's arm reached over the picture
    assert plays(out) == [("N", (6, 5), "W")] and not notices(out, "picture_tile")
    (tile,) = [tr for tr in table.tr.tiles.values() if tr.key == (3, 0)]
    if moved:
        assert [n.tile for n in notices(out, "unplaced_tile")] == [(3, 0)]
        assert (tile.scenery, tile.moved, tile.status) == (False, True, "unplaced")
    else:
        assert not notices(out, "unplaced_tile")
        assert (tile.scenery, tile.moved, tile.picture) == (True, False, True)
        assert tile.patch is again  # judged from the crop of this read next time


def test_a_tile_first_boxed_where_the_table_did_not_change_is_a_picture_and_another_of_its_pips_no_far_move():
    """helper-261: lisa-b-all-fives and nova-block seed 5 on a game board: a printed 4-2 and 6-1 of a track first
    boxed (0.75, 0.78) at 10.2 s, once N's 4-0 lay end to end with their track, touched no open end: the review's
    warning. On nova-block the printed 6-6 of the setup, misread as 6-1, was moved onto the printed 6-1 first boxed
    (a far move, 4 tile lengths): "face-up tile 6-1 touches no open end". A tile first boxed where the gate saw the
    table change under less than half of its box since the last read was not laid there: it lay there unboxed, a
    picture; a tile does not leave where the table did not change. One laid where the table changed is reported."""
    table, printed = _board_with_printed_0_5()
    table.on[0] = dataclasses.replace(printed, pips=(6, 1), confidence=0.3)  # the picture misread as 6-1
    _read_seen(table)
    (picture,) = [tr for tr in table.tr.tiles.values() if tr.picture]
    assert picture.key == (6, 1) and picture.scenery
    table.on.pop(0)  # not boxed at its place this time
    track = [dataclasses.replace(t_(300, 492, 90, (1, 6)), det_score=0.78),  # 4 tile lengths from the picture
             dataclasses.replace(t_(300, 444, 90, (4, 2)), det_score=0.75)]  # end to end with it
    table.on += track
    nxt = t_(552, 500, 0, (5, 6), "N")
    table.arm("N")
    table.on.append(nxt)
    out = _read_seen(table, changed=(nxt,), arm=("N", nxt))
    assert plays(out) == [("N", (6, 5), "W")] and not notices(out, "unplaced_tile")
    # the weaker box is judged first (as on the footage): the 6-1 then lies against it
    assert [(n.tile, n.details["why"]) for n in notices(out, "picture_tile")] == [((6, 1), "beside_picture"),
                                                                               ((4, 2), "was_there")]
    assert (picture.scenery, picture.moved) == (True, False) and np.allclose(picture.geom.center, (240, 240))
    laid = t_(450, 650, 0, (3, 3))  # set down off the line: the table changed under it
    table.on.append(laid)
    out = _read_seen(table, changed=(laid,), arm=("S", laid))
    assert [n.tile for n in notices(out, "unplaced_tile")] == [(3, 3)] and not notices(out, "picture_tile")


def test_an_unplaced_tile_repeating_a_tile_the_line_holds_is_a_picture():
    """helper-186: a printed 6-4 touched no open end from the lead's read, and the real 6-4 was laid later
    (block seed 3); a printed 4-0 was boxed beside a line that held the laid 4-0 (muggins seed 3). The set
    has each tile once: the one the line holds is the set's. Found later, the ``picture_tile`` notice says
    the ``unplaced_tile`` before it was the picture (``unplaced``); a tile someone moved is not judged so."""
    table = Table(load_ruleset("block"))
    table.play(t_(600, 500, 0, (6, 6), "N"))
    table.on.append(t_(400, 300, 0, (6, 2)))  # strongly boxed (0.97): reported
    assert [n.tile for n in notices(table.read(), "unplaced_tile")] == [(6, 2)]
    out = table.play(t_(648, 500, 0, (6, 2), "S"))
    assert plays(out) == [("S", (6, 2), "E")]
    (picture,) = notices(out, "picture_tile")
    assert picture.tile == (6, 2) and picture.details["why"] == "repeats_line" and picture.details["unplaced"]
    # lead at 1.0 s (arm 0.5 s, read 0.5 s), a read to 1.5 s, the 6-2 laid by 2.5 s
    assert picture.message.endswith(": the line of play holds the set's only 6-2 (laid at 2.5 s)")
    table.on.append(t_(400, 700, 0, (6, 6)))  # a copy of the lead: a picture at once, never unplaced
    out = table.read()
    assert not notices(out, "unplaced_tile") and [n.details["unplaced"] for n in notices(out, "picture_tile")] == [False]
    # moved, then its tile laid: it was a tile someone handled (a misread?), the warning stays
    table.on.append(t_(800, 300, 0, (2, 3)))
    assert [n.tile for n in notices(table.read(), "unplaced_tile")] == [(3, 2)]
    table.arm("S")
    table.on[-1] = moved(table.on[-1], 0.0, 30.0)
    table.read()
    out = table.play(t_(696, 500, 0, (2, 3), "N"))
    assert plays(out) == [("N", (2, 3), "E")] and not notices(out, "picture_tile")


def test_a_printed_domino_that_lay_unplaced_all_hand_is_not_the_next_hands_lead():
    """helper-159: a board's printed 1-5 first boxed after the lead lay touching no open end for the whole
    hand; a read lost it, the line was swept, and the first read of the empty table saw it again: it became
    the next hand's lead and every real play touched no end. A face-up tile that lay unplaced while 3 plays
    were made is part of the table: read again where it lay with its pips, it is scenery."""
    table = Table(load_ruleset("block"))
    printed = t_(400, 300, 0, (1, 5))
    line = [t_(600, 500, 0, (6, 6), "N"), t_(648, 500, 0, (6, 2), "S"), t_(696, 500, 0, (2, 3), "N"),
            t_(744, 500, 0, (3, 4), "S")]
    assert plays(table.play(line[0])) == [("N", (6, 6), "lead")]
    table.on.append(printed)
    assert [n.tile for n in notices(table.read(), "unplaced_tile")] == [(5, 1)]
    for tile in line[1:]:
        table.play(tile)
    assert len(plays(table.events)) == 4
    table.on = [t for t in table.on if t is not printed]  # a read misses it
    table.read()
    table.arm("N")
    table.on = []  # the line swept off
    out = table.read() + table.read()
    assert "hand_cleared" in [n.kind for n in notices(out)]
    table.on = [printed]  # seen again where it lay
    out = table.read()
    assert plays(out) == [] and not notices(out, "unplaced_tile")
    assert plays(table.play(t_(600, 500, 90, (5, 5), "S"))) == [("S", (5, 5), "lead")]
    # a tile of the printed one's pips laid elsewhere is a tile: here the next play, on the 5-5
    assert plays(table.play(t_(600, 548, 90, (5, 1), "N"))) == [("N", (5, 1), "E")]


def test_an_earlier_hands_tile_left_on_the_table_is_no_picture_to_remember():
    """The other side of the rule above: a tile of the last hand still lying on a table cleared while the
    camera was stopped (``cleared_meanwhile``: a restart's record not on the table) is scenery until moved,
    but it is a tile, not a picture: once it is swept off, the next hand's 6-6 laid where it lay is the lead."""
    table = Table(load_ruleset("block"))
    for tile in (t_(600, 500, 90, (6, 6), "N"), t_(624, 500, 0, (6, 4), "S"), t_(672, 500, 0, (4, 1), "N")):
        table.play(tile)
    table.on = table.on[:1]  # the rest swept off
    table.tr.cleared_meanwhile(table.fr, table.t, {(6, 6)})
    assert [tr.scenery for tr in table.tr.tiles.values() if tr.key == (6, 6)] == [True]
    table.arm("S")
    table.on = []
    table.read()
    assert not [tr for tr in table.tr.tiles.values() if tr.key == (6, 6)]
    assert plays(table.play(t_(600, 500, 90, (6, 6), "S"))) == [("S", (6, 6), "lead")]


def test_a_tile_outside_a_reads_changed_region_is_not_moved_onto_a_new_tile_of_its_pips():
    """helper-159: N laid the real 6-4 while the read missed the board's printed 6-4 elsewhere; the printed
    one's track was "moved" onto the real tile (same pips), and once the line was swept the picture came
    back as a new tile. Where nothing changed nothing moved: the real 6-4 is a new tile and a play, the
    printed one stays where it was."""
    table = Table(load_ruleset("block"))
    printed = dataclasses.replace(t_(300, 300, 0, (6, 4)), det_score=0.26)  # scenery at the setup
    table.on = [printed]
    table.read()
    assert plays(table.play(t_(600, 500, 0, (6, 6), "N"))) == [("N", (6, 6), "lead")]
    table.arm("S")
    table.on = [t for t in table.on if t is not printed] + [t_(648, 500, 0, (6, 4), "S")]
    table.t += 0.5
    table.fr += 15
    info = MotionInfo(table.t, table.fr, False, False, 0.5, True, (620, 450, 680, 550), frame_size=IMAGE_SIZE)
    out = table.tr.update(table.fr, table.t, observe(table.on), info)
    assert plays(out) == [("S", (6, 4), "E")]
    fours = sorted((tr.status, tr.scenery) for tr in table.tr.tiles.values() if tr.key == (6, 4))
    assert fours == [("layout", False), ("loose", True)]


def test_a_track_of_printed_tiles_at_the_setup_is_scenery_even_when_boxed_confidently():
    """Ivory tiles on a game board: the board's printed dominoes (a track of touching tiles whose
    halves do not match) were boxed at 0.6-0.9, so the score rule let them through; one became the
    lead and every real play touched no open end (helper-58: 0 of 19 plays)."""
    table = Table(load_ruleset("block"))
    table.on = [t_(400, 300, 0, (1, 5)), t_(448, 300, 0, (3, 2)), t_(496, 300, 0, (6, 4))]  # 5|3, 2|6
    out = table.read()
    assert plays(out) == [] and not notices(out)
    out = table.play(t_(600, 500, 0, (6, 6), "N"))
    assert plays(out) == [("N", (6, 6), "lead")] and not notices(out, "unplaced_tile")
    assert plays(table.play(t_(648, 500, 0, (6, 2), "S"))) == [("S", (6, 2), "E")]


def test_a_line_of_play_at_the_first_read_is_a_hand_in_progress():
    """Footage that starts mid-hand: the tiles on the table chain with matching halves, so they are
    the plays so far (laid in one read: missed_state), and the next play goes on from them."""
    table = Table(load_ruleset("block"))
    table.on = [t_(600, 500, 0, (2, 6)), t_(648, 500, 0, (6, 4))]  # 2-6 then 6-4: 6|6 matches
    out = table.read()
    assert sorted(p[1] for p in plays(out)) == [(2, 6), (6, 4)]
    assert [p[1:] for p in plays(table.play(t_(696, 500, 0, (4, 1), "S")))] == [((4, 1), "E")]


def test_a_stray_tile_does_not_make_a_hand_in_progress_scenery():
    """One loose face-up tile beside a matching line (helper-61): the line is still the hand."""
    table = Table(load_ruleset("block"))
    table.on = [t_(600, 500, 0, (2, 6)), t_(648, 500, 0, (6, 4)), t_(696, 500, 0, (4, 1)), t_(300, 300, 0, (5, 3))]
    out = table.read()
    assert sorted(p[1] for p in plays(out)) == [(2, 6), (4, 1), (6, 4)]


def test_a_line_first_seen_whole_is_rebuilt_from_the_required_lead():
    """helper-204: one photo of the demo's line mid-hand (lisa-b's first hand opens with 6-6, laid crosswise
    between 0-6 and 6-2) was rebuilt from its 0-6 end, read more surely: "S led 0-6", a ``wrong_start``
    the players never made. Every tile chains from either end tile as from the 6-6: the required lead
    decides, and the read's confidence only without one."""
    rules = load_ruleset("lisa-b-all-fives")
    line = [t_(564, 500, 0, (0, 6)), t_(600, 500, 90, (6, 6)), t_(636, 500, 0, (6, 2))]
    line[0].confidence = 0.99
    for context, lead in ((HandContext(required_lead=Tile(6, 6)), (6, 6)), (None, (0, 6))):
        tr = Tracker(rules, context, config=TrackerConfig(still_window_s=0.0, setup_min_score=None),
                     image_size=IMAGE_SIZE)
        events = tr.update(0, 0.0, observe(line), None)
        assert sorted(tuple(sorted(k)) for _, k, _ in plays(events)) == [(0, 6), (2, 6), (6, 6)]
        assert [k for _, k, end in plays(events) if end == "lead"] == [lead]


def test_a_confident_lone_tile_at_the_first_read_is_the_lead_already_played():
    table = Table(load_ruleset("block"))
    table.on = [t_(600, 500, 0, (6, 6))]
    out = table.read()
    assert [p[1:] for p in plays(out)] == [((6, 6), "lead")]


# ---- passes inferred from the next play's arm ----------------------------------------------------

def _passes(events):
    return [(e.seat, round(e.t, 3), e.frame) for e in events if isinstance(e, Pass)]


def test_a_play_by_the_arm_of_a_later_seat_means_the_seats_between_passed():
    """nova-block (N, E, S, W; no boneyard): after N and E, W's arm plays: S passed."""
    table = Table(load_ruleset("nova-block"))
    table.play(t_(600, 500, 0, (3, 5), "N"))  # arm 0.1-0.5 s, read at 1.0 s (frame 30)
    table.play(t_(648, 500, 0, (5, 2), "E"))  # arm 1.1-1.5 s, read at 2.0 s (frame 60)
    table.knock("S")  # S's arm in view at 2.1 ... 2.5 s (frames 63 ... 75), short of the layout
    assert table.read() == []  # 3.0 s: nothing changed on the table; the knock alone is no pass
    out = table.play(t_(552, 500, 0, (1, 3), "W"))  # W's arm 3.1-3.5 s, read at 4.0 s (frame 120)
    # the pass comes first, timed at the middle of S's visit (2.3 s, frame 69), then its notice, then the play
    assert [type(e).__name__ for e in out] == ["Pass", "Notice", "Play"]
    assert _passes(out) == [("S", 2.3, 69)]
    (note,) = notices(out, "pass_inferred")
    assert (note.seat, note.t, note.frame) == ("S", table.t, 120)
    assert note.details["knock_seen"] and note.details["by"] == "W" and note.details["pass_t"] == pytest.approx(2.3)
    assert plays(out) == [("W", (3, 1), "W")]
    st = table.tr.hand.state
    assert st.turn == "N" and not [f for f in st.flags if f.kind == "out_of_turn"]
    assert [type(e).__name__ for e in table.tr.hand.log] == ["Play", "Play", "Pass", "Play"]


def test_tiles_placed_after_the_hand_ended_are_flagged_not_dropped():
    """fives-and-threes with 2-tile hands: S is out after its second play; the table plays on.
    Every later tile is an ``after_hand_end`` notice (once), none is a play; a tile laid against
    a late tile is still seen as placed on the layout."""
    rules = load_ruleset("fives-and-threes").model_copy(update={"hand_size": 2})
    table = Table(rules)
    table.play(t_(600, 500, 0, (3, 5), "S"))
    table.play(t_(648, 500, 0, (5, 2), "N"))
    table.play(t_(552, 500, 0, (1, 3), "S"))  # S's last tile: S dominoes at 3.0 s
    assert table.tr.judge.state.over and table.tr.ended["text"] == "S dominoed at 3.0 s"
    late = table.play(t_(696, 500, 0, (2, 6), "N")) + table.play(t_(744, 500, 0, (6, 4), "N"))
    assert plays(late) == [] and plays(table.events) == [("S", (3, 5), "lead"), ("N", (5, 2), "E"),
                                                         ("S", (3, 1), "W")]
    got = notices(late, "after_hand_end")
    assert [n.message for n in got] == [
        "tile 2-6 placed on E at 4.0 s after the hand ended (S dominoed at 3.0 s): not scored; "
        "check the rule set and the plays before it",
        "tile 6-4 placed on E at 5.0 s after the hand ended (S dominoed at 3.0 s): not scored; "
        "check the rule set and the plays before it"]
    assert [(n.tile, n.details["touches_end"], n.details["ended_by"], n.details["winner"]) for n in got] == [
        ((6, 2), True, "domino", "S"), ((6, 4), True, "domino", "S")]
    assert notices(table.read(), "after_hand_end") == []  # reported once, not at every read


def _s_goes_out():
    """fives-and-threes with hands of 2: S plays 3-5, N 5-2, S 1-3 and is out; N's arm comes in."""
    rules = load_ruleset("fives-and-threes").model_copy(update={"hand_size": 2})
    table = Table(rules)
    table.play(t_(600, 500, 0, (3, 5), "S"))
    table.play(t_(648, 500, 0, (5, 2), "N"))
    table.play(t_(552, 500, 0, (1, 3), "S"))  # S is out
    table.arm("N")
    return rules, table


def test_uncalibrated_a_hand_shown_further_in_than_the_hand_area_is_still_a_reveal():
    """Without calibration the hand area is a guess (10 % of the image's short side from its border);
    after the end, a tile that touches no open end is a hand turned up, by the nearest seat, not an
    ``after_hand_end`` notice (helper-58: 4-seat footage scored 0 instead of 35)."""
    rules, table = _s_goes_out()
    table.on.append(t_(600, 150, 0, (4, 4)))  # 150 px from the top border: the zone is 80 px
    out = table.read() + table.read()
    assert notices(out, "after_hand_end") == []
    assert [(e.seat, [tuple(sorted((t.a, t.b))) for t in e.tiles]) for e in out if isinstance(e, Reveal)] == [
        ("N", [(4, 4)])]


def test_a_hand_first_read_under_an_arm_is_revealed_once_read_clearly():
    """bench footage, bdc-partnership seed 3 on a game board: S's last two tiles were first read at
    0.21 while the arm left; later clear reads did not count, and the score never became final."""
    rules, table = _s_goes_out()
    shown = t_(600, 150, 0, (4, 4))
    table.on.append(dataclasses.replace(shown, confidence=0.22))
    out = table.read()
    assert [e for e in out if isinstance(e, Reveal)] == []  # too unsure to count
    table.on[-1] = shown  # the same tile, read clearly
    out = table.read()
    assert [(e.seat, [tuple(sorted((t.a, t.b))) for t in e.tiles]) for e in out if isinstance(e, Reveal)] == [
        ("N", [(4, 4)])]


def _draw_game_s_played_last():
    """all-fives (a draw game: the camera cannot count hands) with hands of 2: S plays 3-5, N 5-2,
    S 1-3 (a full hand laid: S may be out); then N turns up its 4-4 in front of it."""
    table = Table(load_ruleset("all-fives").model_copy(update={"hand_size": 2}))
    table.play(t_(600, 500, 0, (3, 5), "S"))
    table.play(t_(648, 500, 0, (5, 2), "N"))
    table.play(t_(552, 500, 0, (1, 3), "S"))
    table.arm("N")
    table.on.append(t_(600, 60, 0, (4, 4)))
    return table


def _end(events):
    return [(e.type, e.kind, e.winner) if isinstance(e, HandEnd) else
            (e.type, e.seat, sorted(tuple(sorted((t.a, t.b))) for t in e.tiles)) if isinstance(e, Reveal) else
            e.kind for e in events if isinstance(e, (HandEnd, Reveal, Notice))]


def test_a_draw_games_domino_is_inferred_once_the_hands_shown_settle():
    table = _draw_game_s_played_last()
    out = table.read() + table.read()
    assert _end(out) == [] and not table.tr.wants_read  # S may still turn up tiles: no read asked for yet
    out = table.read(3.0)  # nobody else showed anything for reveal_settle_s
    assert _end(out) == [("hand_end", "domino", "S"), "hand_end_inferred", ("reveal", "N", [(4, 4)])]


def test_a_draw_games_last_player_turning_up_tiles_makes_a_lock():
    """helper-74, muggins seed 7: N showed its hand, S (who played last) a moment later; S had
    been taken for out, and scored a domino for a lock worth nothing."""
    table = _draw_game_s_played_last()
    out = table.read() + table.read()
    table.arm("S")
    table.on.append(t_(600, 940, 0, (6, 6)))
    out += table.read() + table.read() + table.read(3.0)
    assert _end(out) == [("hand_end", "locked", None), "hand_end_inferred",
                         ("reveal", "N", [(4, 4)]), ("reveal", "S", [(6, 6)])]


def test_hands_shown_then_swept_off_with_the_line_end_the_hand_first():
    """Players count and sweep within the settle time: the hands seen still end the hand as seen,
    before the cleared table starts the next one."""
    table = _draw_game_s_played_last()
    out = table.read() + table.read()
    table.arm("N")
    table.on = []
    out += table.read() + table.read()
    assert _end(out) == [("hand_end", "domino", "S"), "hand_end_inferred", ("reveal", "N", [(4, 4)]),
                         "hand_cleared"]


def test_the_footage_end_settles_the_hands_shown():
    table = _draw_game_s_played_last()
    out = table.read()
    assert _end(out) == [] and table.tr.finish(table.fr, table.t + 0.1)[0].kind == "domino"
    assert table.tr.finish(table.fr, table.t + 0.2) == []  # nothing waits any more


def test_the_seat_that_went_out_showing_tiles_is_flagged():
    from vision.reveals import RevealWatcher

    rules = load_ruleset("fives-and-threes").model_copy(update={"hand_size": 1})
    judge = Hand(rules)
    judge.append(Play(seat="N", tile=[3, 5]))  # N is out
    geom = type("G", (), {"center": np.array([500.0, 30.0]), "length": 48.0})()
    shown = [type("T", (), {"key": (4, 3), "geom": geom})()]
    w = RevealWatcher()
    out = w.step(judge, judge.append, shown, lambda c: "N", 7, 9.5, ended="N dominoed at 1.0 s")
    assert [(n.kind, n.seat, n.message) for n in out] == [
        ("after_hand_end", "N", "N shows 4-3 at 9.5 s after going out (N dominoed at 1.0 s): not counted; "
                                "check the rule set and the plays")]
    assert w.step(judge, judge.append, shown, lambda c: "N", 8, 10.0) == []  # once


def test_a_four_seat_preset_on_two_seat_play_warns_once_and_stops_inventing_passes():
    """bdc-partnership (N, W, S, E) on a table where only N and S play: after W and E were skipped
    twice each with no arm ever seen from them, one ``seats_unseen`` notice; no pass after it."""
    table = Table(load_ruleset("bdc-partnership"))
    line = [(600, (3, 5), "N"), (648, (5, 2), "S"), (552, (1, 3), "N"), (696, (2, 6), "S"),
            (504, (0, 1), "N"), (744, (6, 4), "S"), (456, (2, 0), "N")]
    outs = [table.play(t_(x, 500, 0, pips, seat)) for x, pips, seat in line]
    assert [p[0] for p in plays(table.events)] == [seat for _, _, seat in line]
    (warn,) = notices(table.events, "seats_unseen")
    kinds = [type(e).__name__ for e in outs[4]]
    assert warn in outs[4] and outs[4].index(warn) < kinds.index("Play")
    assert warn.details["seen"] == ["N", "S"] and warn.details["unseen"] == ["W", "E"]
    assert warn.details["passes_inferred_before"] == 3 and warn.details["needed"] == 4
    assert warn.message.startswith("only N and S seen playing (5 plays by arm; no arm from W and E")
    # three passes before the warning (W, E, W), none after it
    assert [p[0] for p in _passes(table.events)] == ["W", "E", "W"]
    assert all(_passes(o) == [] for o in outs[4:])
    # the plays stay the arms' seats: the engine flags them out of turn (true under this preset)
    assert [f.kind for f in table.tr.hand.state.outcomes[-1].flags] == ["out_of_turn"]


def test_a_four_seat_draw_rule_set_on_two_seat_play_warns_though_no_pass_is_inferred():
    """helper-171: draw seed 7 (2 seats) reviewed under a 4-seat draw rule file: the boneyard is not
    followed, so no pass is inferred, and the seats were never checked: 19 ``uncertain_turn`` flags and no
    word of the seats. The turns of E and W that went by as plays out of turn count as passes would: one
    ``seats_unseen`` notice, naming the presets for the 2 seats seen."""
    table = Table(load_ruleset("draw", name="draw4", players=4, hand_size=5))
    line = [(600, (3, 5), "N"), (648, (5, 2), "S"), (552, (1, 3), "N"), (696, (2, 6), "S"),
            (504, (0, 1), "N"), (744, (6, 4), "S"), (456, (2, 0), "N")]
    outs = [table.play(t_(x, 500, 0, pips, seat)) for x, pips, seat in line]
    assert [p[0] for p in plays(table.events)] == [seat for _, _, seat in line] and _passes(table.events) == []
    (warn,) = notices(table.events, "seats_unseen")
    assert warn in outs[4]  # E and W each went by twice (at S's 2nd and N's 3rd play), N and S played twice
    assert warn.details == {"seen": ["N", "S"], "unseen": ["E", "W"], "needed": 4, "plays_by_arm": {"N": 3, "S": 2},
                            "passes_inferred_before": 0}
    assert warn.message == (
        "only N and S seen playing (5 plays by arm; no arm from E and W in 5.0 s): the footage seems to show fewer "
        "seats than draw4 needs (4); check the rule set (--rules); presets for 2 seats: all-fives, block, draw, "
        "fives-and-threes, lisa-b-all-fives, muggins")
    assert table.tr.unseen_seats == {"E", "W"} and table.tr.fit.observed.players == 2


def test_a_seat_named_unseen_gets_its_passes_again_once_its_arm_shows():
    table = Table(load_ruleset("bdc-partnership"))
    for x, pips, seat in [(600, (3, 5), "N"), (648, (5, 2), "S"), (552, (1, 3), "N"), (696, (2, 6), "S"),
                          (504, (0, 1), "N")]:
        table.play(t_(x, 500, 0, pips, seat))
    assert table.tr.unseen_seats == {"W", "E"}
    table.play(t_(744, 500, 0, (6, 4), "E"))  # E's arm: E plays after all (W, S skipped: W unseen, no pass)
    table.play(t_(792, 500, 0, (4, 1), "W"))  # W's arm too: N passed in between, inferred again
    assert table.tr.unseen_seats == set() and len(notices(table.events, "seats_unseen")) == 1
    assert [p[0] for p in _passes(table.events)] == ["W", "E", "W", "N"]  # none for W while unseen


def test_a_seat_playing_again_means_everyone_else_passed_in_turn_order():
    table = Table(load_ruleset("nova-block"))
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.play(t_(648, 500, 0, (5, 2), "E"))
    out = table.play(t_(552, 500, 0, (1, 3), "E"))  # no arm seen for S, W, N: timed at the play
    assert _passes(out) == [("S", 3.0, 90), ("W", 3.0, 90), ("N", 3.0, 90)]
    assert [n.details["knock_seen"] for n in notices(out, "pass_inferred")] == [False, False, False]
    assert table.tr.hand.state.turn == "S"


def test_two_player_block_pass_keeps_the_turn_order_for_later_plays():
    """block seed 3 in miniature: S passes, N plays twice in a row; S's next play is in turn again."""
    table = Table(load_ruleset("block"))
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.play(t_(648, 500, 0, (5, 2), "S"))
    table.play(t_(552, 500, 0, (1, 3), "N"))
    out = table.play(t_(696, 500, 0, (2, 6), "N"))  # S passed; read at 4.0 s, frame 120
    assert _passes(out) == [("S", 4.0, 120)] and plays(out) == [("N", (2, 6), "E")]
    out = table.play(t_(744, 500, 0, (6, 4), "S"))
    assert _passes(out) == [] and plays(out) == [("S", (6, 4), "E")]
    assert not [f for f in table.tr.hand.state.flags if f.kind == "out_of_turn"]
    assert table.tr.hand.state.turn == "N"


def test_no_pass_is_inferred_when_the_turn_order_chose_the_seat():
    table = Table(load_ruleset("nova-block"))
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.play(t_(648, 500, 0, (5, 2), "E"))
    table.knock("W")  # W's arm was in view (at the rack), but no arm reached the layout
    table.on.append(t_(552, 500, 0, (1, 3)))
    out = table.read()
    assert plays(out) == [("S", (3, 1), "W")] and _passes(out) == []  # S by turn, flagged
    assert "seat_by_turn" in notices(out, "uncertain_read")[0].details["reasons"]


def test_no_pass_is_inferred_in_a_draw_game_whose_boneyard_is_not_seen():
    """all-fives: a seat may skip only once the boneyard is drawn out; no face-down tiles in view, so
    the camera cannot count it (one notice): the play stays out of turn for the engine to flag."""
    table = Table(load_ruleset("all-fives"))
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.play(t_(648, 500, 0, (5, 2), "S"))
    out = table.play(t_(552, 500, 0, (1, 3), "S"))
    assert plays(out) == [("S", (3, 1), "W")] and _passes(out) == [] and not notices(out, "pass_inferred")
    assert [f.kind for f in table.tr.hand.state.outcomes[-1].flags] == ["out_of_turn"]
    (note,) = notices(table.events, "boneyard_uncounted")
    assert "0 face-down tiles" in note.message and "leaves 14" in note.message
    assert note.message.endswith("(the hand areas are guessed from the image's borders: a table calibration gives "
                                 "them)")  # the Table here has no profile


def _down(x, y, angle):
    tile = t_(x, y, angle, (0, 0))
    tile.face = "down"
    return tile


#: Where the i-th face-down tile of each seat's hand lies at the deal: along its edge (mm, long axis angle).
_HAND_AT = {"N": lambda i: (400 + 30 * i, 40, 90), "S": lambda i: (400 + 30 * i, 960, 90),
            "W": lambda i: (40, 300 + 30 * i, 0), "E": lambda i: (TABLE[0] - 40, 300 + 30 * i, 0)}


def _dealt(table, extra_down: int = 0, hand_size: int | None = None, seats: str = "NS"):
    """The hands of ``seats`` face down along their edges (N, S: y = 40 and 960 mm), the boneyard in a
    column along the W edge (x = 40 mm; empty of a hand unless W is dealt one), as the deal leaves it;
    ``extra_down`` more face-down boxes in mid-table (a surface the detector takes for tile backs);
    ``hand_size`` tiles each (the rule set's when None), the rest of the 28 undealt. Returns (hands by
    seat, boneyard)."""
    n = hand_size or table.tr.rules.hand_size
    hands = {seat: [_down(*_HAND_AT[seat](i)) for i in range(n)] for seat in seats}
    bone = [_down(40, 200 + 28 * i, 0) for i in range(28 - len(seats) * n)]
    table.on += [tile for seat in seats for tile in hands[seat]] + bone
    table.on += [_down(900, 200 + 40 * i, 0) for i in range(extra_down)]
    table.read()
    return hands, bone


def _lift(table, tile):
    """Take ``tile`` off the table (by identity: tiles hold arrays, ``==`` is no test)."""
    del table.on[next(i for i, x in enumerate(table.on) if x is tile)]


def _from_hand(table, hands, laid):
    _lift(table, hands[laid.seat].pop())
    return table.play(laid)


@pytest.mark.parametrize("preset,left", [("draw", 0), ("muggins", 2)])
def test_a_draw_games_boneyard_seen_drawn_out_lets_a_skipped_turn_be_a_pass(preset, left):
    """N draws the boneyard out tile by tile (muggins: "When there are 2 players, the last two tiles in
    the boneyard may not be drawn", seed 004); then S's arm plays twice in a row: N passed."""
    table = Table(load_ruleset(preset))
    hands, bone = _dealt(table)
    expected = len(bone)  # 28 - 2 x hand size: draw 14, muggins 18
    _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))
    _from_hand(table, hands, t_(648, 500, 0, (5, 1), "S"))  # ends 3 and 1: no score (muggins: no extra turn)
    for i in range(expected - left):
        table.arm("N")
        _lift(table, bone.pop())
        tile = _down(400 + 30 * (len(hands["N"]) + i), 40, 90)
        table.on.append(tile)
        table.read()
    _from_hand(table, hands, t_(552, 500, 0, (2, 3), "N"))  # this read confirms the last draw first
    _from_hand(table, hands, t_(696, 500, 0, (1, 6), "S"))
    out = _from_hand(table, hands, t_(504, 500, 0, (4, 2), "S"))
    drawn = [e for e in table.events if isinstance(e, Draw)]
    assert {e.seat for e in drawn} == {"N"} and sum(e.count for e in drawn) == expected - left
    assert _passes(out) and [p[0] for p in _passes(out)] == ["N"] and len(notices(out, "pass_inferred")) == 1
    assert _passes(table.events) == _passes(out)  # no pass while tiles were left to draw
    judge = table.tr.judge.state
    assert judge.boneyard == left and judge.drawable() == 0
    assert not [f for f in judge.flags if f.kind in ("out_of_turn", "pass_before_drawing", "boneyard_reserve")]
    assert not notices(table.events, "boneyard_uncounted")


def test_a_lock_after_the_boneyard_was_seen_drawn_out_is_every_seats_pass():
    """draw: N draws the 14 out, plays 2-3, S plays 1-6 (ends 2 and 6); then both turn their hands up.
    The camera followed the boneyard to empty, so the lock is N's pass then S's, as the footage's
    ground truth records it (muggins seed 1007: the 2 passes before the lock were missing)."""
    table = Table(load_ruleset("draw"))
    hands, bone = _dealt(table)
    _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))
    _from_hand(table, hands, t_(648, 500, 0, (5, 1), "S"))
    for i in range(len(bone)):
        table.arm("N")
        _lift(table, bone.pop())
        table.on.append(_down(400 + 30 * (len(hands["N"]) + i), 40, 90))
        table.read()
    out = _lock_shown(table, hands, bone)
    assert [p[0] for p in _passes(out)] == ["N", "S"]
    assert _end(out) == ["hand_end_inferred", ("reveal", "N", [(0, 0), (4, 4)]), ("reveal", "S", [(1, 1), (5, 5)])]
    judge = table.tr.judge.state
    # the lock counted from the reveals: the lowest hand, N's 8 pips, against S's 12
    assert (judge.result.kind, judge.result.winner_seat, judge.result.remaining) == ("locked", "N", {"N": 8, "S": 12})
    assert not [f for f in judge.flags if f.kind in ("out_of_turn", "pass_before_drawing", "pass_with_play")]
    assert not notices(table.events, "rules_misfit")  # a lock the draw rule allows: nothing left to draw


def _lock_shown(table, hands, bone):
    """N plays 2-3, S 1-6 (ends 2 and 6, after N's 3-5 and S's 5-1); then both turn their hands up (N 4-4
    0-0, S 5-5 1-1): the face-down hands go, the ``bone`` tiles stay, the shown tiles lie still for the
    settle time. Returns the events of the reads after the hands were shown."""
    _from_hand(table, hands, t_(552, 500, 0, (2, 3), "N"))
    _from_hand(table, hands, t_(696, 500, 0, (1, 6), "S"))
    shown = {"N": [(4, 4), (0, 0)], "S": [(5, 5), (1, 1)]}
    table.arm("N")
    table.on = [x for x in table.on if x.face == "up" or any(x is b for b in bone)]
    for seat, y in (("N", 60), ("S", 940)):
        table.on += [t_(560 + 60 * k, y, 0, tile) for k, tile in enumerate(shown[seat])]
    return table.read() + table.read() + table.read(3.0)


def test_a_lock_with_the_boneyard_untouched_misfits_drawing_until_playable():
    """block seed 7 reviewed as draw (pagat Draw Game: "draw until a tile will play or the boneyard is
    empty, then pass"): nobody drew, and the hands shown lock the hand with the 14 undealt tiles still in
    the boneyard. One ``rules_misfit`` notice (details: draw_rule), with the lock's reads."""
    table = Table(load_ruleset("draw"))
    hands, bone = _dealt(table)
    _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))
    _from_hand(table, hands, t_(648, 500, 0, (5, 1), "S"))
    out = _lock_shown(table, hands, bone)
    assert table.tr.judge.state.result.kind == "locked" and not table.tr.judge.state.layout.is_locked()
    (note,) = notices(table.events, "rules_misfit")
    assert note in out and note.details == {"parameter": "draw_rule", "rule": "until_playable", "left": 14,
                                            "reserve": 0}
    # uncalibrated: the hand areas tell the 7 tiles each, not how many seats hold them (not the rule set's 2)
    assert note.message.endswith("; presets without a boneyard dealing 7 tiles: bdc-partnership, block, "
                                 "fives-and-threes, jersey-partnership, nova-block")


def test_a_boneyard_under_a_rule_set_that_deals_every_tile_misfits():
    """draw seed 7 reviewed as jersey-partnership (7 tiles to each of 4 seats, all 28): N's and S's hands
    of 7, the other 14 in a column along the W edge, W's hand area. One ``rules_misfit`` notice at the
    lead's read; the rule set's own deal (7 in each of the 4 hand areas) makes none."""
    table = Table(load_ruleset("jersey-partnership"))
    hands, _ = _dealt(table)
    out = _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))
    (note,) = notices(out, "rules_misfit")
    assert note.details == {"parameter": "boneyard", "rule": False, "apart": 0,
                            "seen": {"N": 7, "W": 14, "S": 7, "E": 0}}
    table = Table(load_ruleset("jersey-partnership"))
    hands, bone = _dealt(table, seats="NESW")
    assert bone == []
    _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))
    _from_hand(table, hands, t_(648, 500, 0, (5, 1), "W"))
    assert not notices(table.events, "rules_misfit")


_FOUR_SEATS = [(600, (3, 5), "N"), (648, (5, 2), "E"), (552, (1, 3), "S"), (696, (2, 6), "W"),
               (504, (0, 1), "N"), (744, (6, 4), "E"), (456, (2, 0), "S")]


def test_arms_from_more_seats_than_the_rule_set_seats_make_one_rules_misfit_notice():
    """A 4-seat game reviewed as draw (N and S): N, E, S, W lay in turn. At S's second play three seats
    have each laid 2 tiles by arm: one ``rules_misfit`` notice (details: players) before the play. The
    plays of E and W still take the seat to play (after N: S; after S: N), N's and S's their arm's."""
    table = Table(load_ruleset("draw"))
    outs = [table.play(t_(x, 500, 0, pips, seat)) for x, pips, seat in _FOUR_SEATS]
    (note,) = notices(table.events, "rules_misfit")
    assert note in outs[6] and outs[6].index(note) < [type(e).__name__ for e in outs[6]].index("Play")
    assert note.details == {"parameter": "players", "rule": 2, "laid_by_arm": {"N": 2, "E": 2, "S": 2, "W": 1}}
    assert [p[0] for p in plays(table.events)] == ["N", "S", "S", "N", "N", "S", "S"]
    for preset, seats in (("draw", "NSNSNSN"), ("nova-block", "NESWNES")):  # the rule set's own seats: none
        table = Table(load_ruleset(preset))
        for (x, pips, _), seat in zip(_FOUR_SEATS, seats):
            table.play(t_(x, 500, 0, pips, seat))
        assert [p[0] for p in plays(table.events)] == list(seats)
        assert not notices(table.events, "rules_misfit")


def test_a_skipped_turn_with_tiles_left_to_draw_is_no_pass():
    """draw: N drew 3 of 14; S's arm plays twice: N should have drawn, so no pass is made up."""
    table = Table(load_ruleset("draw"))
    hands, bone = _dealt(table)
    _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))
    _from_hand(table, hands, t_(648, 500, 0, (5, 1), "S"))
    for i in range(3):
        table.arm("N")
        _lift(table, bone.pop())
        table.on.append(_down(400 + 30 * (len(hands["N"]) + i), 40, 90))
        table.read()
    _from_hand(table, hands, t_(552, 500, 0, (2, 3), "N"))
    out = _from_hand(table, hands, t_(696, 500, 0, (1, 6), "S"))
    out += _from_hand(table, hands, t_(504, 500, 0, (4, 2), "S"))
    assert sum(e.count for e in table.events if isinstance(e, Draw)) == 3 and table.tr.judge.state.boneyard == 11
    assert _passes(out) == [] and [f.kind for f in table.tr.hand.state.outcomes[-1].flags] == ["out_of_turn"]


def test_a_face_down_box_against_the_line_of_play_is_no_boneyard_tile():
    """helper-163, all-fives seed 11 on marble: the detector boxed the table beside S's crosswise double
    as a tile back, from the read that showed the double on; counted in the boneyard, it hid N's draw."""
    table = Table(load_ruleset("draw"))
    hands, bone = _dealt(table)
    _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))  # the lead spans x 576-624 mm
    # S's 5-5 across the E end (x 624-648), and a false box along the line 1 mm past it (0.02 tile lengths)
    table.on.append(_down(673, 500, 0))
    _from_hand(table, hands, t_(636, 500, 90, (5, 5), "S"))
    table.arm("N")  # N draws one tile
    _lift(table, bone.pop())
    table.on.append(_down(400 + 30 * len(hands["N"]), 40, 90))
    table.read()
    table.read()
    assert [(e.seat, e.count) for e in table.events if isinstance(e, Draw)] == [("N", 1)]
    assert table.tr.judge.state.boneyard == 13 == len(bone)


def test_a_face_down_box_first_seen_reads_after_the_tile_it_lies_against_is_no_boneyard_tile():
    """The detector boxes the table beside a laid tile now and then, not only at the read that laid it: a
    box first seen at the read of N's draw, 1 mm past S's crosswise double laid the read before, is left
    out as at that read (counted, it would hide N's draw and the count would never drop)."""
    table = Table(load_ruleset("draw"))
    hands, bone = _dealt(table)
    _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))
    _from_hand(table, hands, t_(636, 500, 90, (5, 5), "S"))  # x 624-648 mm
    table.arm("N")  # N draws one tile; the false box shows from this read on
    _lift(table, bone.pop())
    table.on += [_down(400 + 30 * len(hands["N"]), 40, 90), _down(673, 500, 0)]
    table.read()
    table.read()
    assert [(e.seat, e.count) for e in table.events if isinstance(e, Draw)] == [("N", 1)]
    assert table.tr.judge.state.boneyard == 13 == len(bone)


def test_a_boneyard_tile_the_line_of_play_is_laid_against_stays_in_the_boneyard():
    """A boneyard tile in mid-table, seen face down since the deal, with the lead laid 6 mm from it (0.125
    tile lengths, inside ``LINE_GAP_TILES``): it is still a boneyard tile, so the count holds at 14 and N's
    draw from the W column is the one draw (before: the tile was taken for the table beside the lead, the
    count fell to 13 at the lead's read and a draw went to S, then N's to N)."""
    table = Table(load_ruleset("draw"))
    hands = {seat: [_down(*_HAND_AT[seat](i)) for i in range(7)] for seat in "NS"}
    bone = [_down(40, 200 + 28 * i, 0) for i in range(13)]
    near = _down(580, 530, 0)  # y 518-542 mm, x 556-604 mm: under the lead's W half
    table.on += hands["N"] + hands["S"] + bone + [near]
    table.read()
    _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))  # y 488-512 mm: 6 mm above the boneyard tile
    _from_hand(table, hands, t_(636, 500, 90, (5, 5), "S"))  # crosswise on the E end, 20 mm from it
    assert [e for e in table.events if isinstance(e, Draw)] == []
    table.arm("N")  # N draws one tile from the column
    _lift(table, bone.pop())
    table.on.append(_down(*_HAND_AT["N"](len(hands["N"]))))
    table.read()
    table.read()
    assert [(e.seat, e.count) for e in table.events if isinstance(e, Draw)] == [("N", 1)]
    assert table.tr.judge.state.boneyard == 13 == len(bone) + 1


def test_a_draw_the_umpire_entered_is_not_recorded_again_when_the_camera_sees_it():
    """helper-89: the umpire entered N's draw while the camera followed; the camera then saw the tile
    leave the boneyard and recorded it too (17 draws for 16)."""
    table = Table(load_ruleset("draw"))
    hands, bone = _dealt(table)
    _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))
    _from_hand(table, hands, t_(648, 500, 0, (5, 1), "S"))
    table.tr.sync(list(table.tr.judge.log) + [Draw(seat="N", count=1, t=table.t)])  # the umpire's entry
    for i in range(2):  # N takes two tiles: the first is the umpire's draw, the second a new one
        table.arm("N")
        _lift(table, bone.pop())
        table.on.append(_down(400 + 30 * (len(hands["N"]) + i), 40, 90))
        table.read()
    table.read()
    camera = [(e.seat, e.count) for e in table.events if isinstance(e, Draw)]
    assert camera == [("N", 1)] and table.tr.judge.state.boneyard == 12 == len(bone)


def test_a_draw_begun_while_a_play_was_voided_goes_to_the_seat_the_restored_record_says():
    """helper-100: the umpire voided S's 5-1 (the record then left S to play) and restored it a moment
    later; N's draw, begun meanwhile, was recorded for S. Once the record changes, a drop seen but not
    yet confirmed goes to the seat to play as the record now stands."""
    from engine.events import Correction

    table = Table(load_ruleset("draw"))
    hands, bone = _dealt(table)
    _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))
    _from_hand(table, hands, t_(648, 500, 0, (5, 1), "S"))
    log = list(table.tr.judge.log)
    i = next(k for k, e in enumerate(log) if isinstance(e, Play) and e.seat == "S")
    voided = log + [Correction(replaces=i, event=None)]
    table.tr.sync(voided)
    assert table.tr.judge.state.turn == "S"
    table.arm("N")
    _lift(table, bone.pop())  # N's arm takes a tile: the camera sees the boneyard one short
    table.read()
    table.tr.sync(voided + [Correction(replaces=i, event=log[i])])  # the void undone
    table.on.append(_down(400 + 30 * len(hands["N"]), 40, 90))
    table.read()
    table.read()
    assert [(e.seat, e.count) for e in table.events if isinstance(e, Draw)] == [("N", 1)]


def test_a_boneyard_drop_seen_after_the_drawers_play_goes_to_the_hand_that_took_the_tile():
    """draw: N draws one into its hand, but the boneyard tile it took is still read where it lay (outside
    the read's changed region); N plays, and only S's read sees the boneyard one short. The drop was
    first seen under S's turn, but N's hand area took the tile: the draw is N's. A drop that the seat
    to play's own hand explains stays with that seat."""
    table = Table(load_ruleset("draw"))
    hands, bone = _dealt(table)
    _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))
    _from_hand(table, hands, t_(648, 500, 0, (5, 1), "S"))
    table.arm("N")
    hands["N"].append(_down(400 + 30 * len(hands["N"]), 40, 90))
    table.on.append(hands["N"][-1])
    table.read()  # N's hand one more, the boneyard as it was: no drop seen yet
    _from_hand(table, hands, t_(552, 500, 0, (2, 3), "N"))
    _lift(table, bone.pop())  # now read one short, under S's turn
    _from_hand(table, hands, t_(696, 500, 0, (1, 6), "S"))
    table.read()
    assert [(e.seat, e.count) for e in table.events if isinstance(e, Draw)] == [("N", 1)]
    table.arm("N")  # N's turn: it draws, the drop seen at once
    _lift(table, bone.pop())
    hands["N"].append(_down(400 + 30 * len(hands["N"]), 40, 90))
    table.on.append(hands["N"][-1])
    table.read()
    table.read()
    assert [(e.seat, e.count) for e in table.events if isinstance(e, Draw)] == [("N", 1), ("N", 1)]
    assert table.tr.judge.state.boneyard == 12


def test_draws_seen_under_a_rule_set_without_drawing_make_one_rules_misfit_notice():
    """Draw footage reviewed as block (pagat Block Game: "no drawing; the undealt tiles stay out of play"):
    N takes an undealt tile into its hand. No Draw goes to the hand, but one ``rules_misfit`` notice says
    so, once; a block hand whose undealt tiles stay put gets none."""
    table = Table(load_ruleset("block"))
    hands, bone = _dealt(table)
    _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))
    _from_hand(table, hands, t_(648, 500, 0, (5, 1), "S"))
    assert not notices(table.events, "rules_misfit")
    for _ in range(2):
        table.arm("N")
        _lift(table, bone.pop())
        hands["N"].append(_down(400 + 30 * len(hands["N"]), 40, 90))
        table.on.append(hands["N"][-1])
        table.read()
    _from_hand(table, hands, t_(552, 500, 0, (2, 3), "N"))
    (note,) = notices(table.events, "rules_misfit")
    assert note.seat == "N" and note.details["parameter"] == "boneyard" and note.details["drawn_into_hand"] >= 1
    assert "block has no drawing" in note.message
    assert not [e for e in table.events if isinstance(e, Draw)] and table.tr.boneyard is None
    table = Table(load_ruleset("block"))
    hands, _ = _dealt(table)
    for tile in (t_(600, 500, 0, (3, 5), "N"), t_(648, 500, 0, (5, 1), "S"), t_(552, 500, 0, (2, 3), "N")):
        _from_hand(table, hands, tile)
    assert not notices(table.events, "rules_misfit")


def test_hands_of_another_size_at_the_deal_make_a_rules_misfit_notice():
    """Muggins footage (5 tiles each, 18 undealt) reviewed as draw (7 each): noticed at the lead's read."""
    table = Table(load_ruleset("draw"))
    hands, _ = _dealt(table, hand_size=5)
    out = _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))
    (note,) = notices(out, "rules_misfit")
    assert note.details == {"parameter": "hand_size", "rule": 7, "seen": {"N": 5, "S": 5}}
    table = Table(load_ruleset("muggins"))
    hands, _ = _dealt(table)
    _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))
    assert not notices(table.events, "rules_misfit")


def test_a_photos_draw_is_counted_in_all_hands_and_in_the_drawers_alone():
    """A folder's photos: the hands' gain from the boneyard, all hands' and the drawer's (the seat to play)
    alone. Hand-held all-fives, photo 5: S drew 3 and played one, N's row read one tile more (4 -> 5)."""
    tracker = Tracker(load_ruleset("draw"), image_size=IMAGE_SIZE)
    assert tracker._drawn_into_hands([], "S") == (0, 0)  # no photo before
    tracker.hand_areas.hands_before, tracker.hand_areas.hands_last = {"N": 4, "S": 5}, {"N": 5, "S": 7}
    assert tracker._drawn_into_hands([], "S") == (3, 2)  # no play among the candidates: +1 N, +2 S
    assert tracker._drawn_into_hands([], "E") == (3, 0)  # no hand area seen for the seat to play
    tracker.hand_areas.hands_last = {"N": 3, "S": 5}
    assert tracker._drawn_into_hands([], "N") == (0, 0)  # a loss is no draw


def test_a_draw_games_inferred_domino_on_a_blocked_line_ends_the_trackers_hand():
    """helper-89, draw seed 11: S's 4-5 blocked the line and was its last tile. The judge (draws unseen)
    takes the inferred domino; the tracker's board hand, which counts every tile and so took the
    block for a lock, refused it, and the review waited for S's reveal for ever."""
    from engine.notation import parse_event

    tracker = Tracker(load_ruleset("draw").model_copy(update={"hand_size": 5}), image_size=IMAGE_SIZE)
    for line in ("N 5-0", "S 0-1 E", "N 1-5 E", "S 5-5 W", "N 5-6 W", "S 6-2 W", "N 2-5 W", "S 5-3 E", "N 3-4 E",
                 "S 4-5 E"):
        tracker.record(parse_event(line))
    assert tracker.judge.state.pending_end == ("locked", None, "S")
    tracker.record(Reveal(seat="N", tiles=[[4, 4], [2, 1]]))  # N shows its tiles, S none
    tracker.record(HandEnd(kind="domino", winner="S", reason="inferred"))
    r = tracker.judge.state.result  # draw (pagat): S scores N's 4+4+2+1 = 11
    assert (r.kind, r.winner_seat, r.awards) == ("domino", "S", {"N": 0, "S": 11})


def test_a_lock_the_hands_shown_make_a_domino_is_said_as_that_domino():
    """helper-171: a 4-seat draw game reviewed as draw: N's last tile blocked the line at 45.9 s, the
    hands shown made it a domino, and the summary said "N dominoes" and "(the hand locked at 45.9 s)". The
    end the tracker tells (``ended``, in the after_hand_end notices and the summary) is the judge's result."""
    from engine.notation import parse_event

    tracker = Tracker(load_ruleset("draw").model_copy(update={"hand_size": 5}), image_size=IMAGE_SIZE)
    for line in ("N 5-0", "S 0-1 E", "N 1-5 E", "S 5-5 W", "N 5-6 W", "S 6-2 W", "N 2-5 W", "S 5-3 E", "N 3-4 E"):
        tracker.record(parse_event(line))
    tracker.record(Play(seat="S", tile=[4, 5], end="E", t=45.9))
    assert tracker.ended == {"kind": "locked", "winner": None, "t": 45.9, "text": "the hand locked at 45.9 s"}
    tracker.record(Reveal(seat="N", tiles=[[4, 4], [2, 1]]))  # N shows its tiles, S none
    tracker.record(HandEnd(kind="domino", winner="S", reason="inferred"))
    assert tracker.ended == {"kind": "domino", "winner": "S", "t": 45.9, "text": "S dominoed at 45.9 s"}


def test_face_down_boxes_beyond_the_deals_count_leave_the_boneyard_uncounted():
    """Two face-down boxes on the table besides the 14 the deal leaves: no draws, no passes, one notice."""
    table = Table(load_ruleset("draw"))
    hands, bone = _dealt(table, extra_down=2)
    _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))
    table.arm("N")
    _lift(table, bone.pop())
    table.on.append(_down(700, 40, 90))
    table.read()
    table.read()
    assert not [e for e in table.events if isinstance(e, Draw)]
    (note,) = notices(table.events, "boneyard_uncounted")
    # noticed at the first read after the lead: 14 + 2 - the one N drew
    assert "15 face-down tiles" in note.message and "leaves 14" in note.message


@dataclasses.dataclass
class _Stretched(Laid):
    """A face-down box ``scale`` times a tile's length (its width a tile's): table texture boxed as a tile back."""

    scale: float = 1.0

    def polygon_mm(self) -> np.ndarray:
        c, u = self.center, self.axis * L * self.scale / 2
        v = np.array([-self.axis[1], self.axis[0]]) * HALF / 2
        return np.stack([c - u - v, c + u - v, c + u + v, c - u + v])


def _draw_table(calibrated: bool):
    """A draw game's table, with a calibration (table mm, ``PX_PER_MM``) or without (image px); returns it and its
    mm -> px mapping (None: ``observe``'s default)."""
    px_to_mm = np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0]).tolist()
    prof = TableProfile(name="t", image_size=IMAGE_SIZE, homography=px_to_mm, table_size_mm=TABLE) \
        if calibrated else None
    to_px = (lambda mm: mm * PX_PER_MM + 0.5) if calibrated else None  # noqa: E731
    return Table(load_ruleset("draw"), profile=prof, to_px=to_px), to_px


def _n_draws_one(table, hands, bone) -> None:
    """The dealt ``table`` read, N leads 3-5 and S plays 5-1, N draws a tile from ``bone`` into its hand: the
    boneyard's count was taken and follows that draw, N's."""
    table.read()
    _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))
    _from_hand(table, hands, t_(648, 500, 0, (5, 1), "S"))
    table.arm("N")  # N draws one tile
    _lift(table, bone.pop())
    table.on.append(_down(400 + 30 * len(hands["N"]), 40, 90))
    table.read()
    table.read()
    assert not notices(table.events, "boneyard_uncounted")
    assert [(e.seat, e.count) for e in table.events if isinstance(e, Draw)] == [("N", 1)]
    assert table.tr.judge.state.boneyard == 13 == len(bone)


@pytest.mark.parametrize("calibrated", [False, True])
def test_face_down_boxes_longer_than_a_tile_beside_the_boneyard_leave_its_count_alone(calibrated):
    """draw seed 1003 (bench footage, veined cream marble, calibrated): the detector boxed the bands beside
    the boneyard's column as tile backs 1.2-1.7 tile lengths long, so the camera saw 20 face-down tiles apart
    from the hands for the deal's 14, and none of the 13 draws was followed. Six such boxes, 1.45 tile lengths,
    beside the W column: they are no tiles, so the count is 14 and N's draw is followed; a boneyard tile boxed
    1.15 tile lengths long (the longest a true tile's box measured on the bench footage) still counts."""
    table, _ = _draw_table(calibrated)
    bands = [_Stretched(np.array([100.0, 214.0 + 56 * i]), np.array([1.0, 0.0]), (0, 0), face="down", scale=1.45)
             for i in range(6)]
    hands = {seat: [_down(*_HAND_AT[seat](i)) for i in range(7)] for seat in "NS"}
    bone = [_down(40, 200 + 28 * i, 0) for i in range(14)]  # the W column, as _dealt lays it
    bone[3] = _Stretched(bone[3].center, bone[3].axis, (0, 0), face="down", scale=1.15)
    table.on += hands["N"] + hands["S"] + bone + bands
    _n_draws_one(table, hands, bone)


@pytest.mark.parametrize("calibrated", [False, True])
def test_face_down_boxes_cut_by_the_frames_border_leave_the_boneyards_count_alone(calibrated):
    """draw seed 1003 taken with a phone in the hand (bench photo folders, veined wood, no calibration): the
    detector boxed the wood at the left border of the picture as tile backs (4 to 6 boxes in the first two photos,
    scored 0.40-0.94), the camera saw 18-21 face-down tiles apart from the hands for the deal's 14, and none of the
    13 draws was followed.
    Boxes the frame's border cuts are left out of the boneyard's count (a boneyard tile cut off there would be no
    count to trust either): the count is 14 and N's draw is followed."""
    table, to_px = _draw_table(calibrated)
    # along the left border, their long side across it: x from -14 to 34 mm, cut at 0
    cut = [_down(10, 230 + 60 * i, 0) for i in range(5)]
    assert all(touches_frame(o.polygon_px, IMAGE_SIZE) for o in observe(cut, to_px))
    hands = {seat: [_down(*_HAND_AT[seat](i)) for i in range(7)] for seat in "NS"}
    bone = [_down(80, 200 + 28 * i, 0) for i in range(14)]  # a column 80 mm in from the W edge, all in view
    assert not any(touches_frame(o.polygon_px, IMAGE_SIZE) for o in observe(bone, to_px))
    table.on += hands["N"] + hands["S"] + bone + cut
    _n_draws_one(table, hands, bone)


def test_infer_passes_can_be_turned_off():
    table = Table(load_ruleset("nova-block"), config=TrackerConfig(infer_passes=False))
    table.play(t_(600, 500, 0, (3, 5), "N"))
    out = table.play(t_(648, 500, 0, (5, 2), "S"))
    assert plays(out) == [("S", (5, 2), "E")] and _passes(out) == []


def test_the_review_forwards_inferred_passes_to_its_hand(tmp_path):
    from service.review import ReviewSession

    session = ReviewSession(load_ruleset("nova-block"), lambda im: [], tmp_path, annotate=False)
    image = np.zeros((8, 8, 3), np.uint8)
    # nova-block's first hand opens with 6-6 (the review's hand knows it, as the record's replay does)
    for ev in [Play(seat="N", tile=[6, 6], t=1.0, frame=30), Play(seat="E", tile=[6, 2], end="E", oriented=True),
               Pass(seat="S", t=2.3, frame=69), Play(seat="W", tile=[6, 1], end="W", oriented=True)]:
        session._handle(ev, 0, 0.0, image)
    assert [type(e).__name__ for e in session.hand.log] == ["Play", "Play", "Pass", "Play"]
    assert session.hand.log[2].t == 2.3
    assert not [f for f in session.hand.state.flags if f.kind == "out_of_turn"]
    assert [r["type"] for r in session.out.rows] == ["play", "play", "pass", "play"]


def test_the_review_records_the_cameras_draws_and_judges_a_pass_by_them(tmp_path):
    """draw (14 in the boneyard): the camera's draws go into the review's hand; N's pass after all 14
    is legal, after 3 it is flagged; with none recorded (a boneyard the camera could not count) the
    engine's count is the deal's, so no flag either."""
    from service.review import ReviewSession

    image = np.zeros((8, 8, 3), np.uint8)
    lead, reply = Play(seat="N", tile=[3, 5], t=1.0, frame=30), Play(seat="S", tile=[5, 1], end="E", oriented=True)
    flags = {}
    for drawn in (14, 3, 0):
        session = ReviewSession(load_ruleset("draw"), lambda im: [], tmp_path / str(drawn), annotate=False)
        draws = [Draw(seat="N", count=drawn, t=3.0, frame=90)] if drawn else []
        for ev in [lead, reply, *draws, Pass(seat="N", t=5.0)]:
            session._handle(ev, 0, 0.0, image)
        flags[drawn] = [f.message for f in session.hand.state.flags]
        assert [r["type"] for r in session.out.rows if r["type"] != "flag"] == ["play", "play"] + (
            ["draw"] if drawn else []) + ["pass"]
        assert session.hand.state.boneyard == 14 - drawn
        assert [r["count"] for r in session.out.rows if r["type"] == "draw"] == ([drawn] if drawn else [])
    assert flags == {14: [], 3: ["N passed with 11 tiles left to draw"], 0: []}


# ---- the gate: arms that are hard to see ---------------------------------------------------------

def _still_then(gate, base, frames, t0=0.0, dt=0.1):
    """Feed ``base`` for 0.6 s (one read), then ``frames``; returns the MotionInfo of ``frames``."""
    t, i = t0, 0
    for _ in range(6):
        gate.update(i, t, base)
        t, i = t + dt, i + 1
    out = []
    for img in frames:
        out.append(gate.update(i, t, img, roi_px=(100, 40, 220, 110)))
        t, i = t + dt, i + 1
    return out


def test_gate_an_arm_crossing_a_dark_hand_row_is_one_arm():
    """A mid-grey arm over a dark row of tiles on a light cloth matches the (blurred) reference along
    the row's edges: the difference is cut by 1-2 px lines there. Without linking, the part that
    reaches the layout does not touch the border and is no arm (the cause of ``seat_by_turn`` flags
    on footage); linked, it is the arm from the bottom."""
    base = np.full((180, 320, 3), 170, np.uint8)
    cv2.rectangle(base, (120, 150), (200, 166), (20, 20, 20), -1)  # S's face-down hand row
    cv2.rectangle(base, (150, 70), (174, 82), (235, 235, 235), -1)  # the layout
    arm = base.copy()
    cv2.rectangle(arm, (150, 90), (170, 179), (60, 60, 60), -1)  # from the bottom edge into the ROI
    cut = _still_then(MotionGate(still_window_s=0.3, link_px=0, arm_threshold=0), base, [arm] * 3)
    assert not any(m.occluded for m in cut)  # the old behaviour: no vote for S
    for gate in (MotionGate(still_window_s=0.3, arm_threshold=0), MotionGate(still_window_s=0.3)):
        linked = _still_then(gate, base, [arm] * 3)
        assert all(m.occluded and m.entry_side == "bottom" for m in linked)
        assert not any(m.read for m in linked)


def test_gate_an_arm_of_the_cloths_brightness_is_seen_by_its_colour_or_its_average():
    tan = np.full((180, 320, 3), (126, 177, 221), np.uint8)  # BGR
    salmon = tan.copy()
    cv2.rectangle(salmon, (150, 90), (170, 179), (84, 139, 253), -1)  # grey 167 vs 184: 17 levels
    assert abs(int(cv2.cvtColor(salmon, cv2.COLOR_BGR2GRAY)[120, 160]) - int(cv2.cvtColor(tan, cv2.COLOR_BGR2GRAY)[
        120, 160])) < 25
    infos = _still_then(MotionGate(still_window_s=0.3), tan, [salmon] * 3)
    assert all(m.occluded and m.entry_side == "bottom" for m in infos)
    dark = np.full((180, 320, 3), 60, np.uint8)
    sleeve = dark.copy()
    cv2.rectangle(sleeve, (150, 90), (170, 179), (72, 72, 72), -1)  # 12 levels: below diff_threshold
    assert all(m.occluded for m in _still_then(MotionGate(still_window_s=0.3), dark, [sleeve] * 3))
    assert not any(m.occluded for m in _still_then(MotionGate(still_window_s=0.3, arm_threshold=0), dark, [sleeve] * 3))


def test_gate_names_an_arm_short_of_the_layout_and_reads_a_hand_only_when_the_arm_keeps_still():
    """A tile lifted from a hand: the arm is named (``arm_side``) but does not occlude; the change
    outside the layout's region (the hand's slot) is not read while the arm moves (it may carry the
    tile face up), but once it has gone, or once it rests for the still window."""
    base = np.full((180, 320, 3), 170, np.uint8)
    cv2.rectangle(base, (150, 70), (174, 82), (235, 235, 235), -1)  # the layout
    cv2.rectangle(base, (120, 150), (132, 166), (20, 20, 20), -1)  # a tile in S's hand
    lifted = base.copy()
    cv2.rectangle(lifted, (120, 150), (132, 166), (170, 170, 170), -1)  # ... taken

    def arm(x):
        img = lifted.copy()
        cv2.rectangle(img, (x, 140), (x + 20, 179), (60, 60, 60), -1)  # short of the ROI (y <= 110)
        return img

    moving = [arm(140 + 6 * (k % 3)) for k in range(8)]  # 0.8 s of an arm moving about
    infos = _still_then(MotionGate(still_window_s=0.3), base, moving + [lifted] * 5)
    with_arm, after = infos[:8], infos[8:]
    assert all(m.arm_side == "bottom" and not m.occluded and m.entry_side is None for m in with_arm)
    assert not any(m.read for m in with_arm)
    assert [m.read for m in after] == [True, False, False, False, False]  # once, as soon as it left
    assert after[0].arm_side is None
    resting = _still_then(MotionGate(still_window_s=0.3), base, moving[:3] + [moving[2]] * 6)
    assert [m.read for m in resting] == [False] * 5 + [True, False, False, False]  # 0.3 s after its last move
    assert all(m.arm_side == "bottom" for m in resting)


# ---- a restarted worker goes on with the recorded hand --------------------------------------------

@pytest.mark.parametrize("preset", ["all-fives", "block", "bdc-partnership"])
def test_a_resumed_tracker_reads_the_recorded_layout_as_no_new_plays(preset):
    """A live table's worker restarts mid-hand (helper-59: every tile came back as a new play).
    The second tracker gets the hand as recorded, sees the same table, emits nothing for the
    tiles already played, and the plays after the restart go on from the recorded ends: together
    they are the engine's own log, spinners included."""
    cases = laid_hands(preset, 3)
    assert len(cases) == 3
    for rules, log, laid, seed in cases:
        cut = len(laid) // 2
        before = Table(rules)
        for tile in laid[:cut]:
            before.play(tile)
        record = [e for e in before.events if isinstance(e, (Play, Pass, TakeBack))]
        after = Table(rules)
        after.tr.resume(record)
        after.on = list(laid[:cut])
        after.t, after.fr = before.t, before.fr
        assert plays(after.read()) == [], f"{preset} seed {seed}"
        for tile in laid[cut:]:
            after.play(tile)
        assert plays(before.events + after.events) == engine_plays(rules, log), f"{preset} seed {seed}"
        assert not notices(after.events, "rejected")
        # without the record, the same first read takes the table for a hand to read again
        fresh = Table(rules)
        fresh.on = list(laid[:cut])
        assert len(plays(fresh.read())) == cut


def test_a_resumed_tracker_keeps_a_voided_play_no_play():
    """helper-100: the umpire voided E's 5-2 while the camera ran (its tile stays on the table as no
    play); a restart's first read sent the tile again as a new play, undoing the void. Resumed, the
    tile stays no play, and the next play goes on the end the void left."""
    from engine.events import Correction

    before, record, i = _lead_and_answer((5, 2))
    after = Table(before.tr.rules)
    after.tr.resume(record + [Correction(replaces=i, event=None)])
    after.on = list(before.on)
    after.t, after.fr = before.t, before.fr
    assert plays(after.read()) == [] and plays(after.read()) == []
    assert [p.tile for p in after.tr.plays] == [Tile(3, 5)] and after.tr.judge.state.turn == "E"
    out = after.play(t_(552, 500, 0, (1, 3), "E"))  # E plays again, on W
    assert plays(out) == [("E", (3, 1), "W")]


def test_a_resumed_tracker_uses_the_umpires_corrections_and_passes():
    """The record is the umpire's: a misread tile fixed by a correction, and a pass entered by
    hand, are what the resumed tracker goes on from (the next seat in turn, the fixed tile)."""
    from engine.events import Correction

    rules = load_ruleset("nova-block")  # N, E, S, W; no boneyard
    record = [Play(seat="N", tile=[3, 5], end=None), Play(seat="E", tile=[5, 1], end="E"),
              Correction(replaces=1, event=Play(seat="E", tile=[5, 2], end="E")), Pass(seat="S")]
    table = Table(rules)
    table.tr.resume(record)
    assert table.tr.hand.state.turn == "W"
    table.on = [t_(600, 500, 0, (3, 5)), t_(648, 500, 0, (5, 2))]
    assert table.read() == []
    out = table.play(t_(552, 500, 0, (1, 3), "W"))
    # W's turn after the recorded pass (without it, S would be inferred to pass again); 3 is the W end
    assert plays(out) == [("W", (3, 1), "W")] and [e for e in out if isinstance(e, Pass)] == []


def test_a_resumed_hand_whose_layout_is_hidden_waits_for_it():
    """At the restart an arm hides the layout: one notice, and the recorded tiles are neither
    new plays nor a new lead when they show (the whole layout, at the next still read); the next
    real play is read from them."""
    rules = load_ruleset("block")
    record = [Play(seat="N", tile=[6, 6], end=None), Play(seat="S", tile=[6, 4], end="E")]
    table = Table(rules)
    table.tr.resume(record)
    out = table.read()  # nothing in view
    assert [n.kind for n in notices(out)] == ["resume_unseen"]
    assert notices(out)[0].details == {"recorded": 2, "found": 0}
    assert table.read() == []  # still hidden: waits
    table.on = [t_(600, 500, 90, (6, 6)), t_(636, 500, 0, (6, 4))]  # the double crosswise, 6-4 to its east
    assert plays(table.read()) == [] and not notices(table.events, "unplaced_tile")
    assert [tr.play.tile for tr in table.tr.tiles.values() if tr.play] == [Tile(6, 6), Tile(6, 4)]
    out = table.play(t_(684, 500, 0, (4, 1), "N"))
    assert [p[1:] for p in plays(out)] == [((4, 1), "E")]
    assert len(notices(table.events, "resume_unseen")) == 1


def test_a_table_cleared_while_the_worker_was_stopped_is_a_new_hand_even_with_the_same_lead():
    """helper-66: stopped mid-hand, the table cleared and a new hand led with the same 6-6; the
    restarted camera bound the new hand's tiles to the recorded plays and sent nothing. The first
    read shows none of the layout; then the 6-6 alone, not the layout coming back whole: a new hand."""
    rules = load_ruleset("block")
    record = [Play(seat="N", tile=[6, 6], end=None), Play(seat="S", tile=[6, 4], end="E"),
              Play(seat="N", tile=[4, 1], end="E")]
    table = Table(rules)
    table.tr.resume(record)
    assert [n.kind for n in notices(table.read())] == ["resume_unseen"]  # an empty table
    out = table.play(t_(300, 300, 90, (6, 6), "S"))
    assert [n.kind for n in notices(out)] == ["hand_cleared"] and plays(out) == [("S", (6, 6), "lead")]
    assert table.tr.hand.context.number == 2
    assert plays(table.play(t_(336, 300, 0, (6, 2), "N"))) == [("N", (6, 2), "E")]


def test_a_restart_on_a_new_hand_already_begun_is_that_new_hand():
    """helper-67: restarted after the table was cleared and a new hand begun (5-3 led, 3-2 on it),
    the camera bound those two tiles by their places to the recorded lead and next play (read with
    other pips) and went on with the old hand: nothing was sent for the new hand's plays. Most of the
    record missing and what was bound bound only as misreads is a new hand, its tiles its plays."""
    rules = load_ruleset("block")
    record = [Play(seat="N", tile=[6, 6], end=None), Play(seat="S", tile=[6, 4], end="E"),
              Play(seat="N", tile=[4, 1], end="E"), Play(seat="S", tile=[6, 3], end="W"),
              Play(seat="N", tile=[3, 0], end="W")]
    table = Table(rules)
    table.tr.resume(record)
    table.on = [t_(300, 300, 0, (5, 3)), t_(348, 300, 0, (3, 2))]
    out = table.read()
    assert "hand_cleared" in [n.kind for n in notices(out)] and table.tr.hand.context.number == 2
    assert sorted(p[1] for p in plays(out)) == [(3, 2), (5, 3)]
    assert plays(table.play(t_(396, 300, 0, (2, 2), "N")))[0][1:] == ((2, 2), "E")


def test_a_resumed_hand_that_had_ended_and_was_cleared_starts_the_next_one():
    """The worker restarts after a hand ended and the players cleared the table: the first read
    is the new hand (a ``hand_cleared`` notice), whose lead is a play again."""
    rules, log, laid, seed = laid_hands("block", 1)[0]
    table = Table(rules)
    table.tr.resume([e for e in log if isinstance(e, (Play, Pass))])
    res = replay(rules, log).result
    assert table.tr.judge.state.over and res.next_leader in ("N", "S")
    out = table.read()  # an empty table
    assert [n.kind for n in notices(out)] == ["hand_cleared"]
    assert table.tr.hand.log == [] and table.tr.hand.context.number == 2
    out = table.play(t_(600, 500, 0, (6, 2), res.next_leader))
    assert plays(out) == [(res.next_leader, (6, 2), "lead")]


def test_a_resumed_ended_hand_does_not_reveal_again():
    """Reveals already recorded are not sent again for the same tiles still lying face up."""
    rules, table = _s_goes_out()
    table.on.append(t_(600, 40, 0, (4, 4)))  # N's last tile, shown in its hand area
    table.read()
    table.read()
    record = [e for e in table.events if not isinstance(e, Notice)]
    assert [e.seat for e in record if isinstance(e, Reveal)] == ["N"]
    again = Table(rules)
    again.tr.resume(record)
    again.on = list(table.on)
    out = again.read() + again.read()
    assert [e for e in out if isinstance(e, (Play, Reveal))] == [] and notices(out) == []


# ---- the umpire's changes go back into a running tracker ------------------------------------------

def _record(table):
    """The table's record as the service keeps it: the tracker's engine events, in order."""
    return [e for e in table.events if isinstance(e, (Play, Pass, TakeBack, Reveal))]


def _lead_and_answer(e_tile: tuple[int, int]):
    """nova-block: N leads 3-5, E answers ``e_tile`` on E; returns (table, record, E's slot)."""
    table = Table(load_ruleset("nova-block"))
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.play(t_(648, 500, 0, e_tile, "E"))
    record = _record(table)
    return table, record, next(k for k, e in enumerate(record) if isinstance(e, Play) and e.seat == "E")


def test_a_pass_the_umpire_entered_is_not_inferred_again():
    """nova-block (N, E, S, W; no boneyard): S passed without a knock the camera saw; the umpire
    enters it. Without the sync the tracker still thought it S's turn and, when W's arm played,
    inferred S's pass a second time (the record then held two passes by S)."""
    rules = load_ruleset("nova-block")

    def run(sync):
        table = Table(rules)
        table.play(t_(600, 500, 0, (3, 5), "N"))
        table.play(t_(648, 500, 0, (5, 2), "E"))
        if sync:
            table.tr.sync(_record(table) + [Pass(seat="S")])
        return table.play(t_(552, 500, 0, (1, 3), "W"))

    assert [e.seat for e in run(sync=False) if isinstance(e, Pass)] == ["S"]
    out = run(sync=True)
    assert [e for e in out if isinstance(e, Pass)] == [] and plays(out) == [("W", (3, 1), "W")]


def test_a_tile_the_umpire_fixed_gives_its_end_the_fixed_value():
    """The reader took E's 5-2 for 5-1 (and goes on doing so); the umpire fixes the play. The next
    tile, 2-6 against it, then matches its end: no mismatched end, no uncertain read."""
    from engine.events import Correction

    table, record, i = _lead_and_answer((5, 1))  # really 5-2
    rules = table.tr.rules
    table.tr.sync(record + [Correction(replaces=i, event=Play(seat="E", tile=[5, 2], end="E"))])
    assert table.tr.lop.ends["E"].value == 2 and table.tr.plays[1].tile == Tile(5, 2)
    out = table.play(t_(696, 500, 0, (2, 6), "S"))
    assert plays(out) == [("S", (2, 6), "E")] and notices(out) == []
    assert Hand(rules.model_copy(update={"hand_size": 28})).append(out[0]).flags == []


def test_two_plays_the_umpire_swapped_are_bound_to_the_tiles_that_show_them():
    """The camera took E for the 5-2 (on E) and S for the 3-1 (on W); the umpire swaps the two plays'
    tiles (E laid the 3-1, S the 5-2). The tracker's plays follow the record, and each physical tile
    keeps its own numbers: matched slot by slot, the tile lying on E would have taken the 3-1's pips
    and W's 2-6 against the 5-2 would have been a mismatched end."""
    from engine.events import Correction

    rules = load_ruleset("nova-block")
    table = Table(rules)
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.play(t_(648, 500, 0, (5, 2), "E"))
    table.play(t_(552, 500, 0, (1, 3), "S"))
    record = _record(table)
    i, j = (k for k, e in enumerate(record) if isinstance(e, Play) and e.seat in ("E", "S"))
    a, b = record[i], record[j]
    table.tr.sync(record + [Correction(replaces=i, event=a.model_copy(update={"tile": b.tile, "end": b.end})),
                            Correction(replaces=j, event=b.model_copy(update={"tile": a.tile, "end": a.end}))])
    assert [(p.seat, sorted((p.tile.a, p.tile.b))) for p in table.tr.plays] == [("N", [3, 5]), ("E", [1, 3]),
                                                                                  ("S", [2, 5])]
    assert table.tr.lop.ends["E"].value == 2 and table.tr.lop.ends["W"].value == 1
    out = table.play(t_(696, 500, 0, (2, 6), "W"))
    assert plays(out) == [("W", (2, 6), "E")] and notices(out) == []


def test_a_play_the_umpire_voided_leaves_its_tile_as_no_play():
    """A picture of a domino was read as the lead's neighbour; the umpire voids that play. The tile
    stays on the table as no play, and the next real play goes on the end it had covered."""
    from engine.events import Correction

    table, record, i = _lead_and_answer((5, 4))  # not a play: the umpire voids it
    table.tr.sync(record + [Correction(replaces=i, event=None)])
    assert [p.tile for p in table.tr.plays] == [Tile(3, 5)] and table.tr.hand.state.turn == "E"
    assert set(table.tr.lop.ends) == {"W", "E"} and table.tr.lop.ends["E"].value == 5
    table.on.pop()  # the picture taken away
    table.read()
    table.read()
    out = table.play(t_(648, 500, 0, (5, 6), "E"))
    assert plays(out) == [("E", (5, 6), "E")]
    assert not any(isinstance(e, TakeBack) for e in table.events)


def test_a_play_laid_against_a_voided_one_is_taken_once_the_void_is_undone():
    """helper-79: the umpire voided E's 5-2 by mistake while the camera ran; S's 2-6 laid against it
    touched no open end (unplaced), and restoring the 5-2 never made the 2-6 a play."""
    from engine.events import Correction

    table, record, i = _lead_and_answer((5, 2))
    voided = record + [Correction(replaces=i, event=None)]
    table.tr.sync(voided)
    out = table.play(t_(696, 500, 0, (2, 6), "S"))
    assert plays(out) == [] and [n.tile for n in notices(out, "unplaced_tile")] == [(6, 2)]
    table.tr.sync(voided + [Correction(replaces=i, event=record[i])])  # the void undone
    out = table.read()
    assert plays(out) == [("S", (2, 6), "E")]
    assert [p.tile for p in table.tr.plays] == [Tile(3, 5), Tile(5, 2), Tile(2, 6)]


def test_a_tile_laid_against_a_voided_play_is_its_own_arms_play_when_the_void_is_undone_as_another_is_laid():
    """helper-100: as above, but the umpire undoes the void while W's arm lays 1-3 on the other end. The
    read after it gave the waiting 2-6 to W's arm (and inferred S's pass for it) and the 1-3 to the turn:
    every seat after it one off. The 2-6 is the play of S's arm that laid it, before W's 1-3."""
    from engine.events import Correction

    table, record, i = _lead_and_answer((5, 2))
    voided = record + [Correction(replaces=i, event=None)]
    table.tr.sync(voided)
    assert plays(table.play(t_(696, 500, 0, (2, 6), "S"))) == []  # touches no open end: it waits
    table.arm("W")
    table.on.append(t_(552, 500, 0, (1, 3), "W"))
    table.tr.sync(voided + [Correction(replaces=i, event=record[i])])  # the void undone meanwhile
    out = table.read()
    assert plays(out) == [("S", (2, 6), "E"), ("W", (3, 1), "W")]
    assert not any(isinstance(e, Pass) for e in out) and notices(out, "uncertain_read") == []


def test_tiles_laid_after_an_end_the_umpire_voids_are_plays_by_their_arms():
    """helper-174: the umpire pressed End (locked) by mistake; S's 2-6 and W's 1-3 laid meanwhile were
    after_hand_end notices, and voiding the end left them so: every later tile touched no open end and the
    hand never ended. Once the end is voided they are plays, each by its own arm and with its read's time,
    and the next play follows them."""
    from engine.events import Correction

    table, record, _ = _lead_and_answer((5, 2))
    ended = record + [HandEnd(kind="locked")]
    table.tr.sync(ended)
    late = table.play(t_(696, 500, 0, (2, 6), "S")) + table.play(t_(552, 500, 0, (1, 3), "W"))
    assert plays(late) == [] and len(notices(late, "after_hand_end")) == 2
    laid_at = [n.t for n in notices(late, "after_hand_end")]
    table.tr.sync(ended + [Correction(replaces=len(ended) - 1, event=None)])
    assert table.tr.ended is None and table.tr.wants_read  # read again, even on a still table
    out = table.read()
    assert plays(out) == [("S", (2, 6), "E"), ("W", (3, 1), "W")] and notices(out) == []
    assert [e.t for e in out] == laid_at
    assert plays(table.play(t_(744, 500, 0, (6, 4), "N"))) == [("N", (6, 4), "E")]


def test_a_camera_play_refused_for_an_end_stored_first_is_a_play_once_the_end_is_voided():
    """The umpire's End was stored while the camera's play of S's 2-6 was on its way: the service refused
    the play (desync), and the tracker, bound again to the record, took the tile for no play for good. It
    is a play again once the end is voided, before the tiles laid after it."""
    from engine.events import Correction

    table, record, _ = _lead_and_answer((5, 2))
    assert plays(table.play(t_(696, 500, 0, (2, 6), "S"))) == [("S", (2, 6), "E")]  # refused by the service
    ended = record + [HandEnd(kind="locked")]
    table.tr.sync(ended)
    assert plays(table.play(t_(552, 500, 0, (1, 3), "W"))) == []
    table.tr.sync(ended + [Correction(replaces=len(ended) - 1, event=None)])
    out = table.read()
    assert plays(out) == [("S", (2, 6), "E"), ("W", (3, 1), "W")] and _passes(out) == []
    assert plays(table.play(t_(744, 500, 0, (6, 4), "N"))) == [("N", (6, 4), "E")]


def test_a_draw_made_while_the_hand_stood_ended_comes_before_the_play_after_it_once_the_end_is_voided():
    """draw: the umpire ends the hand (locked) by mistake with 14 tiles in the boneyard; N draws one and
    plays 2-3. The umpire's lock is no sign of a rule set without drawing (no rules_misfit). Voided, the
    end's reads are taken again in order: N's draw, then N's 2-3, each at its own time."""
    from engine.events import Correction

    table = Table(load_ruleset("draw"))
    hands, bone = _dealt(table)
    _from_hand(table, hands, t_(600, 500, 0, (3, 5), "N"))
    _from_hand(table, hands, t_(648, 500, 0, (5, 1), "S"))
    ended = [e for e in table.events if isinstance(e, (Play, Draw))] + [HandEnd(kind="locked")]
    table.tr.sync(ended)
    table.read()
    table.arm("N")
    _lift(table, bone.pop())
    table.on.append(_down(580, 40, 90))
    table.read()
    drawn_at = table.t  # the read that first saw the boneyard one short
    assert plays(_from_hand(table, hands, t_(552, 500, 0, (2, 3), "N"))) == []
    assert notices(table.events, "rules_misfit") == []
    table.tr.sync(ended + [Correction(replaces=len(ended) - 1, event=None)])
    out = table.read()
    assert [(type(e).__name__, e.seat) for e in out] == [("Draw", "N"), ("Play", "N")]
    assert out[0].t == drawn_at and plays(out) == [("N", (3, 2), "W")]
    assert plays(_from_hand(table, hands, t_(696, 500, 0, (1, 6), "S"))) == [("S", (1, 6), "E")]


def test_a_hand_the_umpire_un_ends_and_that_ends_again_reports_late_tiles_on_its_new_line():
    """S's going out was a misread (the umpire voids S's last play); the tiles laid after that false
    end are taken away, S really goes out later with 2-4. A tile laid after the real end must be
    seen against the line as it now is: against the copy of the false end's line it touched no end
    and was taken for N's hand shown (a false reveal; helper-63)."""
    from engine.events import Correction

    rules, table = _s_goes_out()
    late = table.play(t_(696, 500, 0, (2, 6), "N"))  # on E (2) after S's false end
    assert notices(late, "after_hand_end")[0].details["end"] == "E"
    record = _record(table)
    i = max(k for k, e in enumerate(record) if isinstance(e, Play) and e.seat == "S")
    table.tr.sync(record + [Correction(replaces=i, event=None)])
    assert not table.tr.judge.state.over
    table.on = [c for c in table.on if c.pips not in ((1, 3), (2, 6))]  # both taken away
    table.read()
    table.read()
    assert plays(table.play(t_(696, 500, 0, (2, 4), "S"))) == [("S", (2, 4), "E")]  # S is out now
    assert table.tr.judge.state.over
    out = table.play(t_(552, 500, 0, (0, 3), "N"))  # on W (3), where the voided 1-3 had lain
    got = notices(out, "after_hand_end")
    assert [(n.details["touches_end"], n.details["end"]) for n in got] == [(True, "W")]


def test_a_resumed_tile_the_reader_misreads_is_bound_by_where_it_lies():
    """The umpire had fixed E's 5-1 to 5-2 (the reader misreads it); after a restart the table still
    reads 5-1 there. It is the recorded 5-2 by its place, not a new play, and its end shows 2."""
    from engine.events import Correction

    rules = load_ruleset("nova-block")
    record = [Play(seat="N", tile=[3, 5], end=None), Play(seat="E", tile=[5, 1], end="E"),
              Correction(replaces=1, event=Play(seat="E", tile=[5, 2], end="E"))]
    table = Table(rules)
    table.tr.resume(record)
    table.on = [t_(600, 500, 0, (3, 5)), t_(648, 500, 0, (5, 1))]
    assert table.read() == []
    assert [p.tile for p in table.tr.plays] == [Tile(3, 5), Tile(5, 2)] and table.tr.lop.ends["E"].value == 2
    out = table.play(t_(696, 500, 0, (2, 6), "S"))
    assert plays(out) == [("S", (2, 6), "E")] and notices(out) == []


def test_resumed_plays_never_found_are_given_up_after_a_few_reads():
    """A recorded tile that never shows (taken off the table during the outage) must not hold the hand
    for ever: after RESUME_PATIENCE_READS reads it is given up with a notice naming it, and the plays
    made since are read from the ends in view."""
    from vision.record_binding import RESUME_PATIENCE_READS

    rules = load_ruleset("block")  # N, S
    table = Table(rules)
    table.tr.resume([Play(seat="N", tile=[6, 6], end=None), Play(seat="S", tile=[6, 4], end="E")])
    table.on = [t_(600, 500, 90, (6, 6))]
    for _ in range(RESUME_PATIENCE_READS):
        assert notices(table.read(), "resume_unseen") == []
    out = table.read()
    assert [(n.kind, n.details["lost"]) for n in notices(out)] == [("resume_unseen", [[6, 4]])]
    out = table.play(t_(564, 500, 0, (2, 6), "N"))  # 6-2 against the double's west side
    assert plays(out) == [("N", (6, 2), "W")]
    # the given-up tile shows after all (helper-63: it was then a new play, refused, and its arm dead)
    table.on.append(t_(636, 500, 0, (6, 4)))
    assert plays(table.read()) == [] and [p.tile for p in table.tr.plays][-1] == Tile(6, 4)
    assert plays(table.play(t_(684, 500, 0, (4, 1), "S"))) == [("S", (4, 1), "E")]


def test_a_new_match_makes_the_tiles_on_the_table_old_and_starts_hand_1():
    """helper-66: a match started while the camera followed a hand: the old layout went on into the
    new match (a wrong start, mismatched ends, desyncs) and a draw game lost its deal. The tracker
    starts over: the tiles on the table are no plays, even pushed about as they are swept off
    (helper-68: a swept tile became the new match's lead), and the next tile laid is the lead."""
    rules = load_ruleset("block")
    table = Table(rules)
    table.play(t_(600, 500, 0, (3, 5), "N"))
    table.play(t_(648, 500, 0, (5, 2), "S"))
    (note,) = table.tr.start_over(table.fr, table.t)
    assert note.kind == "hand_cleared" and table.tr.hand.log == [] and table.tr.hand.context.number == 1
    assert table.read() == [] and table.read() == []  # the old line lies there: no plays
    table.on[0].center = table.on[0].center + [30.0, 40.0]  # swept: pushed aside
    assert plays(table.read() + table.read()) == []
    table.on = []  # gone
    table.read()
    out = table.play(t_(300, 300, 0, (6, 6), "N"))  # the new hand's lead
    assert plays(out) == [("N", (6, 6), "lead")]
    assert plays(table.play(t_(348, 300, 0, (6, 1), "S"))) == [("S", (6, 1), "E")]


def test_a_camera_started_over_before_its_first_read_takes_what_that_read_shows_for_old():
    """helper-67: stopped, a new match, started again: the old layout at the first read became
    the new match's plays. Started over before any read, the first read's face-up tiles are old."""
    table = Table(load_ruleset("block"))
    assert table.tr.start_over(0, 0.0, new_hand=False) == []
    table.on = [t_(600, 500, 0, (3, 5)), t_(648, 500, 0, (5, 2))]
    assert plays(table.read()) == [] and all(tr.old for tr in table.tr.tiles.values())
    assert plays(table.play(t_(300, 300, 0, (6, 6), "N"))) == [("N", (6, 6), "lead")]


def test_a_double_lead_keeps_the_end_names_the_record_gives_its_sides():
    """helper-63: the umpire entered S's 6-4 on E of the 6-6 lead, and the camera sees it on the
    double's left, the side the picture calls W. The 6-4 was never found (its arm stayed unread);
    now the record's names hold: the 6-4 side is E, the other side W."""
    rules = load_ruleset("block")  # N, S
    table = Table(rules)
    table.tr.resume([Play(seat="N", tile=[6, 6], end=None), Play(seat="S", tile=[6, 4], end="E")])
    table.on = [t_(600, 500, 90, (6, 6)), t_(564, 500, 0, (4, 6))]  # the 6-4 on the picture's left
    out = table.read() + table.read()
    assert plays(out) == [] and notices(out) == [] and not table.tr.record_sync.binder.pending
    assert {k: e.value for k, e in table.tr.lop.ends.items()} == {"W": 6, "E": 4}
    assert plays(table.play(t_(516, 500, 0, (1, 4), "N"))) == [("N", (4, 1), "E")]
    assert plays(table.play(t_(636, 500, 0, (6, 3), "S"))) == [("S", (6, 3), "W")]


def test_a_lead_entered_by_hand_the_other_way_round_keeps_the_records_end_names():
    """helper-62: the umpire typed the lead 5-3 (W shows 5) where the camera sees the 3 on the left.
    The record's W is the half showing 5, so E's 3-1 is found on the record's E end and the next
    plays are named as the record names its ends."""
    rules = load_ruleset("nova-block")
    table = Table(rules)
    table.tr.resume([Play(seat="N", tile=[5, 3], end=None), Play(seat="E", tile=[3, 1], end="E")])
    table.on = [t_(600, 500, 0, (3, 5)), t_(552, 500, 0, (1, 3))]  # 1-3 | 3-5: the 3 on the picture's left
    assert table.read() == [] and not table.tr.record_sync.binder.pending
    assert plays(table.play(t_(648, 500, 0, (5, 6), "S"))) == [("S", (5, 6), "W")]
    out = table.play(t_(504, 500, 0, (2, 1), "W"))
    assert plays(out) == [("W", (1, 2), "E")] and notices(out) == []


def test_a_resumed_play_lying_in_a_hand_area_is_found_by_its_end():
    """A play laid into a hand area (it touched the layout) is found there after a restart too."""
    rules = load_ruleset("nova-block")
    cfg = TrackerConfig(hand_zone_frac=0.2)
    before = Table(rules, config=cfg)
    for tile in (t_(300, 215, 0, (3, 5), "N"), t_(348, 215, 0, (5, 2), "E"), t_(384, 203, 90, (4, 2), "S"),
                 t_(384, 155, 90, (1, 4), "W")):  # the last one in N's hand area, touching the layout
        before.play(tile)
    assert len(plays(before.events)) == 4
    after = Table(rules, config=cfg)
    after.tr.resume(_record(before))
    after.on = list(before.on)
    assert after.read() == [] and not after.tr.record_sync.binder.pending and len(after.tr.plays) == 4
    assert plays(after.play(t_(384, 107, 90, (6, 1), "N"))) == [("N", (1, 6), "E")]


def test_the_tiles_left_of_an_ended_hand_half_cleared_are_not_the_next_hands_plays():
    rules, log, laid, seed = laid_hands("block", 1)[0]
    table = Table(rules)
    table.tr.resume([e for e in log if isinstance(e, (Play, Pass))])
    table.on = list(laid[:2])  # two tiles of the ended hand not swept off yet
    out = table.read()
    assert plays(out) == [] and [n.kind for n in notices(out)] == ["hand_cleared"]
    table.on = []
    table.read()
    assert plays(table.play(t_(600, 500, 0, (6, 2), "N"))) == [("N", (6, 2), "lead")]


def test_a_fixed_lead_then_a_void_keeps_the_lead_bound():
    """helper-62: the umpire fixed the lead's pips (the reader goes on misreading it), then voided a
    play: the rebinding lost the lead, and every later play was held for ever."""
    from engine.events import Correction

    rules = load_ruleset("nova-block")
    table = Table(rules)
    table.play(t_(600, 500, 0, (3, 5), "N"))  # really 3-6
    table.play(t_(648, 500, 0, (5, 4), "E"))  # a picture of a domino, not a play
    record = _record(table) + [Correction(replaces=0, event=Play(seat="N", tile=[3, 6], end=None))]
    assert table.tr.sync(record) == []
    assert table.tr.sync(record + [Correction(replaces=1, event=None)]) == []
    assert [p.tile for p in table.tr.plays] == [Tile(3, 6)] and not table.tr.record_sync.binder.pending
    assert plays(table.play(t_(552, 500, 0, (1, 3), "E"))) == [("E", (3, 1), "W")]


def test_a_resumed_lead_the_reader_misreads_is_the_tile_its_next_plays_lie_around():
    """The reader takes the 6s of the recorded 3-6 lead and 6-2 for 5s: no tile shows the lead's
    pips, but one tile has the recorded next play right at its E end: that tile is the lead."""
    rules = load_ruleset("nova-block")
    table = Table(rules)
    table.tr.resume([Play(seat="N", tile=[3, 6], end=None), Play(seat="E", tile=[6, 2], end="E")])
    table.on = [t_(600, 500, 0, (3, 5)), t_(648, 500, 0, (5, 2)), t_(300, 300, 0, (4, 4))]  # and a stray tile
    out = table.read()
    assert plays(out) == [] and [n.kind for n in notices(out)] == ["unplaced_tile"]
    assert [p.tile for p in table.tr.plays] == [Tile(3, 6), Tile(6, 2)]
    assert plays(table.play(t_(696, 500, 0, (2, 4), "S"))) == [("S", (2, 4), "E")]


def test_a_lead_the_umpire_entered_that_the_camera_cannot_see_is_no_cleared_table():
    """helper-63: the umpire keys in a lead the camera missed; when the camera cannot find it, the
    hand goes on (a notice), it is not taken for a cleared table and a new hand."""
    from vision.record_binding import RESUME_PATIENCE_READS

    rules = load_ruleset("nova-block")
    table = Table(rules)
    assert table.tr.sync([Play(seat="N", tile=[3, 5], end=None)]) == []
    out = []
    for _ in range(RESUME_PATIENCE_READS + 1):
        out += table.read()
    assert [n.kind for n in notices(out)] == ["resume_unseen", "resume_unseen"]  # not in view; then given up
    assert notices(out)[-1].details["lost"] == [[3, 5]] and "hand_cleared" not in [n.kind for n in notices(out)]
    assert table.tr.hand.context.number == 1 and len(table.tr.hand.log) == 1


def test_in_a_folder_of_photos_the_seat_is_the_hand_a_tile_left():
    """helper-84: no arm is seen between photos, so every play went to the seats in turn from N, and
    a hand S led was scored to the wrong players. The seat whose hand area lost a face-down tile played."""
    rules = load_ruleset("block")
    tr = Tracker(rules, config=TrackerConfig(still_window_s=0.0, setup_min_score=None), image_size=IMAGE_SIZE)
    hands = {s: [t for t in hand_tiles(random.Random(3)) if _seat_of(t) == s] for s in "NS"}
    line = [(t_(600, 500, 0, (6, 5)), "S"), (t_(648, 500, 0, (5, 4)), "N"), (t_(696, 500, 0, (4, 3)), "S")]
    events, on = [], []
    for k in range(len(line) + 1):
        if k:
            tile, seat = line[k - 1]
            hands[seat].pop()  # the tile laid left its player's hand
            on.append(tile)
        events += tr.update(k, float(k), observe(hands["N"] + hands["S"] + on), None)
    assert plays(events) == [("S", (6, 5), "lead"), ("N", (5, 4), "E"), ("S", (4, 3), "E")]
    # a hand area that lost nothing (a pass, a photo taken twice) gives no vote: the turn decides
    events = tr.update(9, 9.0, observe(hands["N"] + hands["S"] + on + [t_(744, 500, 0, (3, 2))]), None)
    assert plays(events) == [("N", (3, 2), "E")]
    # on S's turn N's hand loses a tile again: N played on W, so S passed (block: the only way)
    hands["N"].pop()
    on.append(t_(552, 500, 0, (1, 6)))
    events = tr.update(10, 10.0, observe(hands["N"] + hands["S"] + on), None)
    assert plays(events) == [("N", (6, 1), "W")] and [e.seat for e in events if isinstance(e, Pass)] == ["S"]
    # a photo shows no arm: the notice says where the tile came from (helper-88: "N's arm played")
    assert [n.message for n in notices(events, "pass_inferred")] == [
        "S passed: N played 6-1 on S's turn (a tile left N's hand)"]


def _photo_folder_table():
    """A lisa-b-all-fives tracker read one photo at a time (no still window): N's and S's dealt hands, the W
    column's 14 boneyard tiles, the tiles laid (``on``, appended by the test) and ``photo(k)``, the events of the
    ``k``-th photo showing them all."""
    tr = Tracker(load_ruleset("lisa-b-all-fives"), config=TrackerConfig(still_window_s=0.0, setup_min_score=None),
                 image_size=IMAGE_SIZE)
    hands = {seat: [_down(*_HAND_AT[seat](i)) for i in range(7)] for seat in "NS"}
    bone = [_down(40, 200 + 28 * i, 0) for i in range(14)]
    on: list = []

    def photo(k: int) -> list:
        return tr.update(k, float(k), observe(hands["N"] + hands["S"] + bone + on), None)

    return tr, hands, bone, on, photo


def test_in_a_folder_of_photos_a_drawer_that_played_keeps_its_turn_over_anothers_loss():
    """helper-223, the demo's photos with one out of order (f_sw2): one photo showed S's draw, S's 6-0 and N's 0-0
    laid against it. S's hand drew one and laid one (no change, no vote), N's lost one: the read's vote went to
    its first play, N's 6-0 out of turn, then S's 0-0 by the turn. A hand's count change is draws - plays: the
    seat to play drew and shows no gain, so it played; its play comes first, N's loss is the next play's."""
    tr, hands, bone, on, photo = _photo_folder_table()
    events = photo(0)
    for k, (seat, tile) in enumerate([("S", t_(600, 500, 0, (6, 5))), ("N", t_(648, 500, 0, (5, 4)))], 1):
        hands[seat].pop()
        on.append(tile)
        events += photo(k)
    assert plays(events) == [("S", (6, 5), "lead"), ("N", (5, 4), "E")]
    # one photo: S drew a tile from the boneyard into its hand and laid 4-3, N laid 3-2 against it
    bone.pop()
    hands["S"].pop()
    hands["S"].append(_down(*_HAND_AT["S"](7)))
    hands["N"].pop()
    on += [t_(696, 500, 0, (4, 3)), t_(744, 500, 0, (3, 2))]
    events = photo(3)
    assert [(e.seat, e.count) for e in events if isinstance(e, Draw)] == [("S", 1)]
    assert plays(events) == [("S", (4, 3), "E"), ("N", (3, 2), "E")]
    assert not [f for f in tr.judge.state.flags if f.kind == "out_of_turn"]
    # the seats are the hand areas' (entry), not the turn's guess
    assert [n.details["seat_source"] for n in notices(events, "uncertain_read")] == ["entry", "entry"]


def _s_n_s_laid(hands: dict, on: list, photo) -> list:
    """Photos 1 to 3 of a :func:`_photo_folder_table`: S leads 6-5, N plays 5-4, S 4-3, each from its hand; their
    events."""
    events = []
    line = [("S", t_(600, 500, 0, (6, 5))), ("N", t_(648, 500, 0, (5, 4))), ("S", t_(696, 500, 0, (4, 3)))]
    for k, (seat, tile) in enumerate(line, 1):
        hands[seat].pop()
        on.append(tile)
        events += photo(k)
    return events


def test_in_a_folder_of_photos_a_draw_after_the_photos_play_is_the_next_seats():
    """helper-237, the review's photos with the one after N's 3-1 missing: the next photo showed N's 3-1 laid and
    S's draw in S's hand. The draw went to N, the seat to play, before its play, and N's correct domino was flagged
    ``domino_with_tiles_left``. N's hand lost the tile it laid and gained none, S's gained one: S drew after N
    played, so the play comes first, then S's draw under S's turn."""
    tr, hands, bone, on, photo = _photo_folder_table()
    events = photo(0) + _s_n_s_laid(hands, on, photo)
    assert plays(events) == [("S", (6, 5), "lead"), ("N", (5, 4), "E"), ("S", (4, 3), "E")]
    # one photo: N laid 3-2 from its hand, then S drew a tile from the boneyard into its hand
    hands["N"].pop()
    on.append(t_(744, 500, 0, (3, 2)))
    bone.pop()
    hands["S"].append(_down(*_HAND_AT["S"](7)))
    events = photo(4)
    assert [(e.seat, type(e).__name__) for e in events if isinstance(e, (Play, Draw))] == [("N", "Play"), ("S", "Draw")]
    assert [(e.seat, e.count) for e in events if isinstance(e, Draw)] == [("S", 1)]
    hands["S"].pop()
    on.append(t_(792, 500, 0, (2, 1)))
    events = photo(5)
    assert plays(events) == [("S", (2, 1), "E")]
    st = tr.judge.state
    assert st.counts == {"N": 5, "S": 5} and st.boneyard == 13  # 7 - 2 plays; 7 - 3 plays + 1 drawn; 14 - 1
    assert not [f for f in st.flags if f.kind == "out_of_turn"]


def test_in_a_folder_of_photos_a_draw_seen_a_photo_late_does_not_take_the_next_play():
    """Hand-held all-fives (bench): a boneyard drop first seen in one photo is confirmed in the next, where the seat
    to play then drew and played (its hand as it was, one tile laid). The drop is the earlier turn's draw; the play
    is the seat to play's, not the drawer's (it was given to S, flagged ``out_of_turn``, and S's next play too)."""
    tr, hands, bone, on, photo = _photo_folder_table()
    events = photo(0) + _s_n_s_laid(hands, on, photo)
    # N laid 3-2; the boneyard shows one tile fewer, taken into no hand seen (N's draw, its tile unseen)
    hands["N"].pop()
    on.append(t_(744, 500, 0, (3, 2)))
    bone.pop()
    events += photo(4)
    # S drew one and laid 2-1 with it: S's hand as it was, the boneyard one fewer again
    bone.pop()
    on.append(t_(792, 500, 0, (2, 1)))
    events += photo(5)
    assert plays(events) == [("S", (6, 5), "lead"), ("N", (5, 4), "E"), ("S", (4, 3), "E"), ("N", (3, 2), "E"),
                             ("S", (2, 1), "E")]
    # the second drop waits for the next photo to confirm it
    assert [(e.seat, e.frame) for e in events if isinstance(e, Draw)] == [("N", 4)]
    # N's draw, confirmed a photo late, comes after N's play and is flagged for the umpire; no play is
    late = [f.message for f in tr.judge.state.flags if f.kind == "out_of_turn"]
    assert late == ["N drew out of turn (S was to play)"]


def test_in_a_folder_of_photos_a_box_that_raises_the_boneyards_count_is_no_tile():
    """Hand-held all-fives (bench): the table in the gap a drawn tile left in the boneyard's column was boxed at 0.88
    in two photos; in the second N drew a tile and played, the box kept the count at its level, and the drop came a
    photo late, under S's turn: S's draw, out of turn (N's missed). The boneyard never gains a tile, so the box first
    counted in the photo where the count rose above its level is no tile, and the next photo's drop is N's draw."""
    tr, hands, bone, on, photo = _photo_folder_table()
    events = photo(0) + _s_n_s_laid(hands, on, photo)
    gap = _down(40, 200 + 28 * 14, 0)  # the table boxed past the column's end: 15 for the boneyard's 14
    hands["N"].pop()
    on += [t_(744, 500, 0, (3, 2)), gap]
    events += photo(4)
    # S draws one and lays 2-1 with it (its hand as it was); the box is still there
    bone.pop()
    on.append(t_(792, 500, 0, (2, 1)))
    events += photo(5)
    hands["N"].pop()
    on.append(t_(840, 500, 0, (1, 0)))
    events += photo(6)
    assert plays(events)[-3:] == [("N", (3, 2), "E"), ("S", (2, 1), "E"), ("N", (1, 0), "E")]
    assert [(e.seat, e.count, e.frame) for e in events if isinstance(e, Draw)] == [("S", 1, 5)]
    assert [type(e).__name__ for e in events if isinstance(e, (Play, Draw))][-3:] == ["Draw", "Play", "Play"]
    assert not [f for f in tr.judge.state.flags if f.kind == "out_of_turn"]
    assert tr.judge.state.boneyard == 13 and tr.boneyard.level == 13


def _weakly(tiles: list) -> list:
    """Observations of face-down ``tiles`` boxed at 0.46, under ``hand_vote_min_score``: the table in the gap a
    played tile left in its row, as hand-held photos box it now and then."""
    return [dataclasses.replace(o, det_score=0.46) for o in observe(tiles)]


def test_in_a_folder_of_photos_a_hand_whose_sure_box_faded_where_its_tile_was_played():
    """Hand-held bdc-partnership (bench): S laid 3-4 and the table in the gap its tile left was boxed at 0.46 and
    matched S's tile, so no tile of S's hand was gone and the turn decided, flagged. S's count of the boxes the
    detector is sure of fell 7 -> 6, and no other seat's: the faded box's seat played (the hand areas' vote)."""
    tr, hands, bone, on, photo = _photo_folder_table()
    events = photo(0) + _s_n_s_laid(hands, on, photo)
    gap = hands["N"].pop()
    on.append(t_(744, 500, 0, (3, 2)))
    events += tr.update(4, 4.0, observe(hands["N"] + hands["S"] + bone + on) + _weakly([gap]), None)
    last = [e for e in events if isinstance(e, Play)][-1]
    assert (last.seat, (last.tile.a, last.tile.b), last.seat_by_turn) == ("N", (3, 2), False)  # before: True


def test_in_a_folder_of_photos_a_faded_box_tells_a_play_after_a_pass():
    """A block game: N could not play, S laid twice; the second time the gap S's tile left was boxed weakly and
    matched it. The faded box in S's hand, the only hand whose sure count fell, gives S the play and N the pass
    (the turn alone gave it to N)."""
    tr, hands, line = _hand_held_block(calibrated=False)
    line = line[:3] + [(t_(744, 500, 0, (3, 1)), "S")]
    events, on = [], []
    for k in range(len(line) + 1):
        weak = []
        if k:
            tile, seat = line[k - 1]
            gap = hands[seat].pop()
            on.append(tile)
            weak = [gap] if k == 4 else []
        events += tr.update(k, float(k), observe(hands["N"] + hands["S"] + on) + _weakly(weak), None)
    assert plays(events) == [("S", (6, 5), "lead"), ("N", (5, 4), "E"), ("S", (4, 3), "E"), ("S", (3, 1), "E")]
    assert [p[0] for p in _passes(events)] == ["N"]


def test_in_a_folder_of_photos_a_faded_box_is_no_vote_where_the_seat_to_play_drew():
    """N drew a tile and played in one photo (its hand as it was: no loss), while a box of S's hand read weakly:
    S's sure count fell, but a drawer that played shows no loss, so the fade tells nothing and the play is N's."""
    tr, hands, bone, on, photo = _photo_folder_table()
    events = photo(0) + _s_n_s_laid(hands, on, photo)
    bone.pop()
    hands["N"].pop(0)
    hands["N"].append(_down(*_HAND_AT["N"](7)))
    on.append(t_(744, 500, 0, (3, 2)))
    faded = hands["S"][-1]
    events += tr.update(4, 4.0, observe(hands["N"] + hands["S"][:-1] + bone + on) + _weakly([faded]), None)
    assert [(e.seat, e.count) for e in events if isinstance(e, Draw)] == [("N", 1)]
    assert plays(events)[-1] == ("N", (3, 2), "E")
    assert not [f for f in tr.judge.state.flags if f.kind == "out_of_turn"]


def test_the_hand_rows_tile_length_is_that_of_the_boxes_of_a_tiles_size():
    """Hand-held draw seed 1003: the median of a photo's face-down boxes, the veined wood's among them, was 62.3 px
    for tiles of 56-59, and a band boxed 69.9 px long passed for a tile. The boxes over 1.2 times the median are
    left out of a second median."""
    from vision.hand_areas import tile_length

    lengths = np.array([57.0, 57.0, 58.0, 58.0, 66.0, 75.0, 80.0, 85.0, 90.0])
    assert float(np.median(lengths)) == 66.0  # the plain median: a 70 px band within 1.2 of it
    assert tile_length(lengths) == 58.0  # 57, 57, 58, 58, 66 and 75 are within 1.2 x 66 = 79.2
    assert tile_length(np.array([58.0])) == 58.0


def test_a_box_is_as_long_as_most_of_its_reads_measured_it():
    """Hand-held draw seed 1003: a veined-wood band beside the boneyard's column measured 1.2-1.45 tile lengths in
    most photos and 1.05-1.19 in some (S's plays), where it was counted in the boneyard, 15 for 14, and hid S's
    draw. Without a calibration a face-down box is too long for a tile when most of its reads measured it so."""
    from types import SimpleNamespace

    from vision.hand_areas import HandAreas

    areas = HandAreas(TrackerConfig(still_window_s=0.0), None, (1280, 720), lambda: ["N", "S"])

    def box(i: int, x: float, y: float, length: float):
        return SimpleNamespace(id=i, face="down", status="loose", long_reads=(0, 0), seen_score=0.9,
                               geom=SimpleNamespace(center=np.array([x, y]), length=length))

    column = [box(i, 100.0, 150.0 + 33 * i, 58.0) for i in range(14)]
    band = box(99, 180.0, 200.0, 80.0)
    reads = []
    for length in (80.0, 76.0, 66.0, 61.0):  # 1.38, 1.31, 1.14, 1.05 tile lengths
        band.geom.length = length
        areas.find_rows(column + [band], [])
        reads.append(band in areas.tile_sized(column + [band]))
    assert areas.row_tile_px == 58.0 and band.long_reads == (2, 4)
    assert reads == [False, False, False, True]  # 2 of 3 reads long; then 2 of 4: no longer most
    assert all(tile in areas.tile_sized(column) for tile in column)


def test_a_photos_hand_counts_leave_out_boxes_the_detector_is_unsure_of():
    """Draw seed 1003 (bench footage, plays only, veined wood): N drew 2 and played one; the wood in a gap of N's
    row, boxed at 0.57 (under ``hand_vote_min_score``), made N's count 3 -> 5 and the hands 3 gained for the 2
    drawn (one draw of the hand recorded one photo late, for the other seat)."""
    from types import SimpleNamespace

    areas, photo = _photo_hand_areas()
    photo(3, 2, first=True)

    def down(i: int, x: float, y: float, score: float):
        return SimpleNamespace(id=i, face="down", status="hand", seen_score=score, geom=SimpleNamespace(center=(x, y)))

    tiles = [down(i, 300.0 + 30 * i, 10.0, 0.95) for i in range(4)] + [down(4, 420.0, 10.0, 0.57)]
    tiles += [down(5 + i, 300.0 + 30 * i, 530.0, 0.95) for i in range(2)]
    hands, _ = areas.photo_votes(tiles, [], [], {}, first=False)
    assert hands == {"N": 4, "S": 2}
    areas.photo_read(hands)
    assert areas.drawn(1, "N") == (2, 2)  # N 3 -> 4 with its play: 2 drawn


def test_a_tile_laid_by_the_hand_area_of_a_seat_no_one_plays_from_is_a_play():
    """Draw seed 1003: two seats, the line reached the E edge; S's 6-1 laid there counted no play, so S's draw
    with it was taken for a draw alone and waited a photo, after the play (out of turn)."""
    from types import SimpleNamespace

    tracker = Tracker(load_ruleset("draw"), image_size=IMAGE_SIZE)
    w, h = IMAGE_SIZE
    assert list(tracker.judge.state.order) == ["N", "S"]

    def up(x: float, y: float):
        return SimpleNamespace(face="up", status="unplaced", geom=SimpleNamespace(center=np.array([x, y])))

    assert tracker.in_hand_zone(up(w - 5.0, h / 2).geom) and tracker.in_hand_zone(up(w / 2, h - 5.0).geom)
    assert tracker._laid([up(w - 5.0, h / 2)]) == 1  # by E's edge: no hand there
    assert tracker._laid([up(w / 2, h - 5.0)]) == 0  # in S's hand area: a tile shown
    assert tracker._laid([up(w / 2, h / 2), up(w - 5.0, h / 2), up(w / 2, 5.0)]) == 2


def _photo_hand_areas():
    """Two-seat hand areas of a folder's photos (960 x 540, uncalibrated) and a function that reads one photo
    of them with ``n`` face-down tiles in N's hand area and ``s`` in S's (``first``: the folder's first)."""
    from types import SimpleNamespace

    from vision.hand_areas import HandAreas

    areas = HandAreas(TrackerConfig(still_window_s=0.0), None, (960, 540), lambda: ["N", "S"])

    def photo(n: int, s: int, first: bool = False) -> None:
        tiles = [SimpleNamespace(id=i, face="down", status="hand", seen_score=1.0,
                                 geom=SimpleNamespace(center=(300.0 + 30 * i, 10.0 if i < n else 530.0)))
                 for i in range(n + s)]
        hands, _ = areas.photo_votes(tiles, [], [], {}, first=first)
        assert hands == {"N": n, "S": s}
        areas.photo_read(hands)

    return areas, photo


def test_a_photos_drawer_played_when_its_hand_gained_fewer_than_it_drew():
    """A hand's count change over a photo is draws - plays (helper-223): the seat that drew 1 and shows no gain
    played. Counted over the span of the photo's votes: after a photo with an arm, since the photo before it,
    less the seat's plays recorded at the arm's photo; a hand under glare tells nothing."""
    areas, photo = _photo_hand_areas()
    photo(5, 4, first=True)
    photo(4, 4)
    assert areas.drew_and_played("S", 1, laid_last=1)  # S 4 -> 4, 1 drawn: 1 play (no arm: laid_last unused)
    assert not areas.drew_and_played("S", 0, laid_last=0)  # drew nothing
    areas.arm_in_last_photo()
    photo(3, 4)  # since the photo before the arm's (5, 4): N -2, S 0
    assert areas.drew_and_played("S", 1, laid_last=0)  # 1 - 0 - 0 = 1
    assert not areas.drew_and_played("S", 1, laid_last=1)  # its loss was its play at the arm's photo: 1 - 0 - 1 = 0
    assert areas.drew_and_played("N", 1, laid_last=1)  # 1 + 2 - 1 = 2
    assert not areas.drew_and_played("E", 1, laid_last=0)  # no hand area counted for E
    areas.hidden({"S": 2})  # clipped white over S's hand in this photo: its count is in doubt
    photo(3, 4)
    assert not areas.drew_and_played("S", 1, laid_last=0) and areas.drew_and_played("N", 1, laid_last=0)


def test_a_photos_next_seat_drew_after_the_turns_one_play_when_only_its_hand_gained():
    """helper-237: one photo with one play, the seat to play's, and a draw. Its hand's change with the play its
    own is the tiles it drew (-1 + 1 = 0: none); the next seat's change with no play of its own is its draw."""
    areas, photo = _photo_hand_areas()
    photo(5, 4, first=True)
    photo(4, 5)  # N -1, S +1
    assert areas.drew_after_play("N", "S", 1)
    assert areas.drawn(1, "S", own=0) == (1, 1) and areas.drawn(1, "S") == (1, 2)  # all: 0 + 1 play; S: 1 (+ 1)
    assert not areas.drew_after_play("N", "S", 2)  # two plays: S's draw may have come before S's own play
    assert not areas.drew_after_play("S", "N", 1)  # S to play: S's gain 1 + 1 = 2, its own draw
    assert not areas.drew_after_play("N", "E", 1)  # no hand area counted for E
    photo(3, 5)  # N -1, S 0: N played, nobody drew
    assert not areas.drew_after_play("N", "S", 1)
    areas.hidden({"S": 2})  # clipped white over S's hand: its count is in doubt
    photo(2, 6)
    assert not areas.drew_after_play("N", "S", 1)


def _seat_of(t) -> str:
    """The seat whose hand area a :func:`table_sim.hand_tiles` tile lies in."""
    x, y = t.center
    return "N" if y < 100 else "S" if y > 900 else "W" if x < 100 else "E"


def test_in_a_folder_of_photos_printed_dominoes_are_neither_the_lead_nor_plays():
    """helper-84: the first photo (the dealt table on a game board) showed three printed dominoes
    apart: they became the lead and two plays, and every real tile after touched no end. Then printed
    ones first boxed with the real lead: a printed 6-5 with a 4-1 beside it was taken as the lead."""
    rules = load_ruleset("block")
    # as service/review.py tracks a folder: every photo a read, no score rule at the first one
    tr = Tracker(rules, config=TrackerConfig(still_window_s=0.0, setup_min_score=None), image_size=IMAGE_SIZE)
    hands = {s: [t for t in hand_tiles(random.Random(3)) if _seat_of(t) == s] for s in "NS"}
    printed = [t_(300, 250, 0, (3, 0)), t_(450, 250, 0, (5, 0)), t_(900, 250, 90, (2, 6))]
    late = [t_(300, 700, 0, (6, 5)), t_(348, 700, 0, (4, 1))]  # touching, halves that do not match
    for t in printed + late:
        t.confidence = 0.6
    events = tr.update(0, 0.0, observe(hands["N"] + hands["S"] + printed), None)
    assert plays(events) == []
    hands["S"].pop()
    lead = t_(600, 500, 0, (6, 6))
    events = tr.update(1, 1.0, observe(hands["N"] + hands["S"] + printed + late + [lead]), None)
    assert plays(events) == [("S", (6, 6), "lead")]
    hands["N"].pop()
    events = tr.update(2, 2.0, observe(hands["N"] + hands["S"] + printed + late + [lead, t_(648, 500, 0, (6, 2))]),
                       None)
    assert plays(events) == [("N", (6, 2), "E")]


def test_a_folders_first_photo_keeps_the_required_lead_apart_from_a_printed_domino():
    """helper-191: lisa-b's first hand must open with 6-6 (seed 000). A folder's first photo showed the 6-6
    just led and, apart from it, a board's printed domino read 6-4: two tiles with no contact, so both were
    taken for pictures, and the real 6-4 played next became the lead (``wrong_start``). Told the hand's
    context, the tracker keeps the lone 6-6 as the lead; without a required lead both stay pictures."""
    rules = load_ruleset("lisa-b-all-fives")
    lead, printed = t_(600, 500, 90, (6, 6)), t_(300, 250, 0, (6, 4))
    for context, expected in ((HandContext(required_lead=Tile(6, 6)), [("N", (6, 4), "E")]), (None, None)):
        tr = Tracker(rules, context, config=TrackerConfig(still_window_s=0.0, setup_min_score=None),
                     image_size=IMAGE_SIZE)
        hands = {s: [t for t in hand_tiles(random.Random(3)) if _seat_of(t) == s] for s in "NS"}
        hands["S"].pop()  # S led: its hand is the shortest
        first = plays(tr.update(0, 0.0, observe(hands["N"] + hands["S"] + [lead, printed]), None))
        assert first == ([] if expected is None else [("S", (6, 6), "lead")])
        hands["N"].pop()
        # the 6-4 laid against the 6-6's long side, east of it (a crosswise double: 24 + 12 px apart)
        events = tr.update(1, 1.0, observe(hands["N"] + hands["S"] + [lead, printed, t_(636, 500, 0, (6, 4))]),
                           None)
        if expected is None:
            assert [(s, k) for s, k, _ in plays(events)] == [("N", (6, 4))]  # it leads: the 6-6 is a picture
        else:
            assert plays(events) == expected
            assert [x.key for x in tr.tiles.values() if x.scenery] == [(6, 4)]  # only the printed one


def test_a_folders_dealt_table_with_one_printed_domino_has_no_lead():
    """lisa-b-all-fives seed 3 on a board, a photo of every event: the first photo (the dealt table, 28
    tiles face down) boxed only a printed 6-4, scored 0.2; it became the lead (``wrong_start``) and the
    hand recorded 6 of 14 plays. With every tile of the set face down nothing was played: any face-up tile
    is a picture unless boxed as surely as a real tile (0.8), in a folder or footage (helper-201: a printed 0-1
    boxed 0.53 led a video's hand; a lead boxed 0.94 beside one false face-down box on marble stays the lead). A lone weakly boxed tile in a folder that cannot be the lead required is a picture too; boxed like
    a real tile it is a wrong lead, and with no such evidence a lone tile is the lead just laid."""
    cases = (("lisa-b-all-fives", 7, 0.2, False), ("lisa-b-all-fives", 7, 0.6, False),
             ("lisa-b-all-fives", 6, 0.2, False), ("lisa-b-all-fives", 6, 0.6, True),
             ("block", 7, 0.2, False), ("block", 6, 0.2, True), ("block", 7, 0.56, False, 0.35),
             ("block", 6, 0.56, True, 0.35), ("block", 7, 0.94, True), ("block", 7, 0.94, True, 0.35))
    for preset, per_seat, score, leads, *floor in cases:
        rules = load_ruleset(preset)
        context = HandContext(required_lead=Tile(6, 6)) if preset.startswith("lisa") else None
        # a folder (no score rule at the setup) or, with the floor, a camera's setup
        tr = Tracker(rules, context, config=TrackerConfig(still_window_s=0.0, setup_min_score=(floor or [None])[0]),
                     image_size=IMAGE_SIZE)
        down = hand_tiles(random.Random(3), per_seat)  # 7 a seat: the whole double-six set face down
        printed = dataclasses.replace(t_(300, 250, 0, (6, 4)), det_score=score)
        first = [(k, end) for _, k, end in plays(tr.update(0, 0.0, observe(down + [printed]), None))]
        assert first == ([((6, 4), "lead")] if leads else []), (preset, per_seat, score)
        if not leads:  # the 6-6 laid next is the lead, the picture stays scenery
            down.pop()
            events = tr.update(1, 1.0, observe(down + [printed, t_(600, 500, 90, (6, 6))]), None)
            assert [(k, end) for _, k, end in plays(events)] == [((6, 6), "lead")]
            assert [x.key for x in tr.tiles.values() if x.scenery] == [(6, 4)]


def test_a_folders_first_photo_keeps_the_one_real_tile_apart_from_weak_printed_ones():
    """draw seed 3 on a board, one photo per play: the first photo showed the 4-2 just led (boxed 0.94) and,
    apart, a board's printed 6-4 (0.2). Two tiles with no contact: both were taken for pictures and none of
    the 16 plays was recorded right. The one tile boxed like a real tile is the lead; two such tiles apart
    (helper-84's printed dominoes boxed confidently) stay pictures."""
    rules = load_ruleset("draw")
    for printed_score, expected in ((0.2, [((4, 2), "lead")]), (0.6, [])):
        tr = Tracker(rules, config=TrackerConfig(still_window_s=0.0, setup_min_score=None), image_size=IMAGE_SIZE)
        down = hand_tiles(random.Random(3), 7)[:-1]  # the lead left a hand
        printed = dataclasses.replace(t_(300, 250, 0, (6, 4)), det_score=printed_score)
        lead = dataclasses.replace(t_(600, 500, 0, (4, 2)), det_score=0.94)
        events = tr.update(0, 0.0, observe(down + [printed, lead]), None)
        assert [(k, end) for _, k, end in plays(events)] == expected, printed_score
        assert sorted(x.key for x in tr.tiles.values() if x.scenery) == ([(6, 4)] if expected else [(4, 2), (6, 4)])


def test_a_photo_of_the_next_hands_lead_on_a_cleared_table_starts_that_hand_with_it():
    """helper-84: no photo showed the empty table; the next one showed the new lead, a domino that
    was in the last hand's line (taken for that tile moved), and the review's new_hand() with the
    match's context then wiped the lead: every later play of the hand touched no end."""
    rules = load_ruleset("block")
    tr = Tracker(rules, config=TrackerConfig(still_window_s=0.0, setup_min_score=None), image_size=IMAGE_SIZE)
    first = [t_(600, 500, 0, (6, 5)), t_(648, 500, 0, (5, 4)), t_(696, 500, 0, (4, 3)), t_(552, 500, 0, (2, 6))]
    on, events = [], []
    for k, tile in enumerate(first):
        on.append(tile)
        events += tr.update(k, float(k), observe(on), None)
    assert len(plays(events)) == 4
    lead = t_(500, 400, 90, (4, 3))  # the same domino as the line's 4-3, laid elsewhere as the new lead
    events = tr.update(10, 10.0, observe([lead]), None)
    assert "hand_cleared" in [n.kind for n in notices(events)] and plays(events) == [("N", (4, 3), "lead")]
    tr.new_hand(HandContext(number=2, leader="S"))  # as the review does at hand_cleared: the match's context
    events = tr.update(11, 11.0, observe([lead, t_(500, 448, 90, (3, 1))]), None)
    assert plays(events) == [("S", (3, 1), "E")]


def _folder_with_a_line():
    """A block hand read as a folder of photos: four plays, one a photo (reads 0-3). Returns (tracker, line)."""
    tr = Tracker(load_ruleset("block"), config=TrackerConfig(still_window_s=0.0, setup_min_score=None),
                 image_size=IMAGE_SIZE)
    line = [t_(600, 500, 0, (6, 5)), t_(648, 500, 0, (5, 4)), t_(696, 500, 0, (4, 3)), t_(552, 500, 0, (2, 6))]
    events = []
    for k in range(len(line)):
        events += tr.update(k, float(k), observe(line[:k + 1]), None)
    assert len(plays(events)) == 4
    return tr, line


def test_a_tile_shown_in_a_hand_then_laid_as_the_next_lead_starts_the_next_hand():
    """helper-201: N showed its 3-3 at the hand's end; the next photo showed the table cleared and hand 2's
    lead, another 3-3, which was taken for N's tile moved ("touches no open end"); the next photo's play then
    became the lead and hand 2's plays were lost. A shown tile matched far to one off the hand areas, with
    the line gone, is the new lead."""
    tr, line = _folder_with_a_line()
    shown = t_(600, 50, 0, (1, 1))  # in N's hand area
    assert plays(tr.update(4, 4.0, observe([*line, shown]), None)) == []
    events = tr.update(5, 5.0, observe([t_(500, 400, 90, (1, 1))]), None)
    assert "hand_cleared" in [n.kind for n in notices(events)]
    assert [(k, end) for _, k, end in plays(events)] == [((1, 1), "lead")]


def test_in_a_folder_of_photos_one_photo_without_the_line_is_no_cleared_table():
    """helper-123: one blurred photo read no tile; the table was taken for cleared, a new hand started and
    the line's tiles became its plays. A clear comes with the next lead, or lasts past the next photo."""
    tr, line = _folder_with_a_line()
    events = tr.update(4, 4.0, observe([]), None)  # the blurred photo
    events += tr.update(5, 5.0, observe([*line, t_(744, 500, 0, (3, 1))]), None)  # the line again, and a play
    assert "hand_cleared" not in [n.kind for n in notices(events)] and not any(
        isinstance(e, TakeBack) for e in events)
    assert plays(events) == [("N", (3, 1), "E")] and tr.hand.context.number == 1
    # two photos without the line: cleared
    events = tr.update(6, 6.0, observe([]), None) + tr.update(7, 7.0, observe([]), None)
    assert [n.kind for n in notices(events)] == ["hand_cleared"]


def test_in_a_folder_of_photos_a_stale_photo_with_a_tile_face_up_in_a_hand_is_no_cleared_table():
    """helper-220: a copy of an early photo among the later ones (the line's lead alone, and a tile held face up
    in a hand) was taken for the line cleared with the next hand's lead, and the next photo's whole line for a
    second hand's plays. A lead lies off the hand areas: such a photo waits for the next, which shows the line."""
    tr, line = _folder_with_a_line()
    line.append(t_(744, 500, 0, (3, 1)))
    assert plays(tr.update(4, 4.0, observe(line), None)) == [("N", (3, 1), "E")]
    shown = t_(600, 50, 0, (1, 1))  # in N's hand area
    events = tr.update(5, 5.0, observe([line[0], shown]), None)  # the stale photo: 4 of the line's 5 tiles gone
    events += tr.update(6, 6.0, observe([*line, t_(792, 500, 0, (1, 2))]), None)  # the line again, and a play
    assert "hand_cleared" not in [n.kind for n in notices(events)] and tr.hand.context.number == 1
    assert plays(events) == [("S", (1, 2), "E")] and len(tr.plays) == 6
    # the same photo with a tile off the hand areas (the next hand's lead): cleared
    tr, line = _folder_with_a_line()
    tr.update(4, 4.0, observe([*line, t_(744, 500, 0, (3, 1))]), None)
    events = tr.update(5, 5.0, observe([line[0], t_(500, 400, 90, (1, 1))]), None)
    assert "hand_cleared" in [n.kind for n in notices(events)] and plays(events) == [("N", (1, 1), "lead")]


def test_gate_primed_with_the_last_read_frame_reads_a_hand_turned_up_by_an_arm_already_in_view():
    """helper-96: a replayed file resumed just as S reached in to turn up its hand. Its first frame, arm
    and all, became the reference; once the arm had gone, its absence and the tiles turned up looked
    like one arm at the edge for good, so the hand was never read and never ended. Primed with the
    frame last read (no arm), the gate reads the hand once the arm has gone, as in one run."""
    roi = (100, 40, 220, 110)
    base = np.full((180, 320, 3), 170, np.uint8)
    cv2.rectangle(base, (150, 70), (174, 82), (235, 235, 235), -1)  # the layout
    cv2.rectangle(base, (120, 150), (132, 166), (20, 20, 20), -1)  # a face-down tile in S's hand
    shown = base.copy()
    cv2.rectangle(shown, (120, 150), (132, 166), (235, 235, 235), -1)  # ... turned face up
    cv2.circle(shown, (126, 155), 2, (20, 20, 20), -1)

    def arm(x, img):
        img = img.copy()
        cv2.rectangle(img, (x, 140), (x + 20, 179), (60, 60, 60), -1)  # short of the layout
        return img

    frames = [arm(134 + 3 * (k % 3), base) for k in range(4)] + [arm(134, shown)] * 2 + [shown] * 8
    runs = {}
    for primed in (True, False):
        gate = MotionGate(still_window_s=0.3)
        if primed:
            gate.prime(0.0, base)
        runs[primed] = [(k, m.arm_side) for k, m in
                        ((k, gate.update(k + 1, 0.1 * (k + 1), f, roi_px=roi)) for k, f in enumerate(frames)) if m.read]
    # primed: the read it asks for (the arm in view, kept out of the reference), then once the arm
    # has gone (frame 6), the turned tile in view
    assert runs[True] == [(2, "bottom"), (6, None)]
    # the first frame taken whole instead (the arm in it): never read after the arm left
    assert runs[False] and all(k < 6 for k, _ in runs[False]), runs[False]


def _inset_hands(per_seat: int, inset_mm: float) -> dict[str, list[Laid]]:
    """Face-down hands in rows ``inset_mm`` in from each border of the image (a photo framing the table
    with a margin): N/S rows along the top/bottom, W/E rows down the sides."""
    W, H = TABLE
    out: dict[str, list[Laid]] = {}
    for seat in "NESW":
        row = []
        for i in range(per_seat):
            s = (420 if seat in "NS" else 350) + i * 30
            c, ax = {"N": ((s, inset_mm), (0.0, 1.0)), "S": ((s, H - inset_mm), (0.0, 1.0)),
                     "W": ((inset_mm, s), (1.0, 0.0)), "E": ((W - inset_mm, s), (1.0, 0.0))}[seat]
            row.append(Laid(np.array(c, float), np.array(ax), (0, 0), face="down"))
        out[seat] = row
    return out


def test_uncalibrated_photos_find_the_hand_areas_from_the_rows_of_tiles():
    """helper-123, bench bdc-partnership without calibration: the table lay 131 px inside a 1280 x 720
    frame, W's hand 150 px from the border (the hand areas reached 144 px) and false boxes on the cloth
    beyond the table counted in E's and W's hands: E's lead of the first photo went to N by the turn,
    then W, S and E "passed" when N played, and N "dominoed" with tiles in hand. The rows of face-down
    tiles tell how deep the areas reach, and that nothing of a hand lies far beyond its row."""
    rules = load_ruleset("bdc-partnership")
    tr = Tracker(rules, config=TrackerConfig(still_window_s=0.0, setup_min_score=None), image_size=IMAGE_SIZE)
    hands = _inset_hands(4, 230.0)  # 184 px in: the photos' hand areas reach 2 x 10 % x 800 = 160 px
    cloth = [Laid(np.array(c, float), np.array([1.0, 0.0]), (0, 0), face="down") for c in ((30, 480), (1170, 620))]
    hands["E"].pop()  # E led the 6-6: the first photo shows it laid
    on = [t_(600, 500, 0, (6, 6))]
    events = tr.update(0, 0.0, observe([*hands["N"], *hands["E"], *hands["S"], *hands["W"], *cloth, *on]), None)
    hands["N"].pop()
    on.append(t_(648, 500, 0, (6, 4)))
    events += tr.update(1, 1.0, observe([*hands["N"], *hands["E"], *hands["S"], *hands["W"], *cloth, *on]), None)
    assert plays(events) == [("E", (6, 6), "lead"), ("N", (6, 4), "E")]
    assert [e for e in events if isinstance(e, Pass)] == []


def _hand_held_block(calibrated: bool):
    """A block game's tracker for photos (calibrated: the first photo's camera, px = mm x 0.8, tiles
    followed in table mm, their corners in px), N's and S's hands, and six plays in turn (tile, seat)."""
    rules = load_ruleset("block")
    px_to_mm = np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0]).tolist()
    prof = TableProfile(name="t", image_size=IMAGE_SIZE, homography=px_to_mm, table_size_mm=(1200, 1000)) \
        if calibrated else None
    tr = Tracker(rules, profile=prof, config=TrackerConfig(still_window_s=0.0, setup_min_score=None),
                 image_size=IMAGE_SIZE)
    hands = {s: [t for t in hand_tiles(random.Random(3)) if _seat_of(t) == s] for s in "NS"}
    line = [(t_(600, 500, 0, (6, 5)), "S"), (t_(648, 500, 0, (5, 4)), "N"), (t_(696, 500, 0, (4, 3)), "S"),
            (t_(552, 500, 0, (2, 6)), "N"), (t_(744, 500, 0, (3, 1)), "S"), (t_(504, 500, 0, (1, 2)), "N")]
    return tr, hands, line


@pytest.mark.parametrize("calibrated", [False, True])
def test_photos_from_a_hand_held_camera_follow_the_table(calibrated):
    """Between two photos a phone in the hand shifts and turns: every laid tile "bumped" (or, moved
    more than half a tile, was taken for gone and laid anew); bench folders with each photo's corners
    ~15 px off had 50 of 227 plays right and 2 094 bump notices. The face-up tiles seen in both photos
    give the camera's move, and the tracked tiles move with it."""
    tr, hands, line = _hand_held_block(calibrated)
    views = [(0.0, (0.0, 0.0)), (1.0, (6.0, -4.0)), (-1.5, (-8.0, 5.0)), (2.5, (30.0, 22.0)), (-2.0, (-25.0, -18.0)),
             (1.0, (12.0, 30.0)), (0.0, (-30.0, 10.0))]  # degrees, px: a turn about the image centre and a shift
    events, on = [], []
    for k, (deg, shift) in enumerate(views):
        if k:
            tile, seat = line[k - 1]
            hands[seat].pop()
            on.append(tile)
        a, c = np.deg2rad(deg), np.array(IMAGE_SIZE, float) / 2
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        view = lambda mm, rot=rot, c=c, shift=shift: (np.asarray(mm) * PX_PER_MM - c) @ rot.T + c + shift  # noqa: E731
        events += tr.update(k, float(k), observe(hands["N"] + hands["S"] + on, view), None)
    assert plays(events) == [("S", (6, 5), "lead"), ("N", (5, 4), "E"), ("S", (4, 3), "E"), ("N", (6, 2), "W"),
                             ("S", (3, 1), "E"), ("N", (2, 1), "W")]
    assert notices(events, "bump") == [] and notices(events, "moved") == []
    # photos 2-6: the first laid tile gives the move until three do; all moved but the first (no tile laid yet)
    assert tr.camera_moves == 5
    # the corners in the image followed too: the lead lies where the last photo shows it
    lead = next(t for t in tr.tiles.values() if t.key == (6, 5))
    assert np.allclose(lead.polygon_px, observe([line[0][0]], view)[0].polygon_px, atol=0.5)


@pytest.mark.parametrize("floor", [None, 0.0])
def test_in_hand_held_photos_a_weak_box_in_a_hand_row_is_no_tile_leaving_it(floor):
    """Hand-held photos box the cloth in a hand row's gap now and then (the bench's folders: 0.37-0.81,
    where the tile backs score a median of 0.93-0.95), often where the tile just played lay. N's played
    5-4 left such a box at its place, gone in the next photo, where S played 4-3: N's hand "lost" a tile,
    S's (its 4-3's place boxed in turn) none, and the 4-3 went to N, S's turn a pass (bdc-partnership,
    one photo per play: 20 of 23 plays). Weak boxes do not vote; ``hand_vote_min_score=0`` counts them."""
    tr, hands, line = _hand_held_block(calibrated=False)
    if floor is not None:
        tr.config = dataclasses.replace(tr.config, hand_vote_min_score=floor)
    views = [(0.0, (0.0, 0.0)), (1.0, (6.0, -4.0)), (-1.5, (-8.0, 5.0)), (2.5, (30.0, 22.0)), (-2.0, (-25.0, -18.0))]
    events, on = [], []
    for k, (deg, shift) in enumerate(views):
        weak = []
        if k:
            tile, seat = line[k - 1]
            gap = hands[seat].pop()
            on.append(tile)
            if k in (2, 3):  # the played tile's place in its row, boxed weakly in this photo only
                weak = [gap]
        a, c = np.deg2rad(deg), np.array(IMAGE_SIZE, float) / 2
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        view = lambda mm, rot=rot, c=c, shift=shift: (np.asarray(mm) * PX_PER_MM - c) @ rot.T + c + shift  # noqa: E731
        boxes = [dataclasses.replace(o, det_score=0.5) for o in observe(weak, view)]
        events += tr.update(k, float(k), observe(hands["N"] + hands["S"] + on, view) + boxes, None)
    if floor is None:
        assert plays(events) == [("S", (6, 5), "lead"), ("N", (5, 4), "E"), ("S", (4, 3), "E"), ("N", (6, 2), "W")]
        assert _passes(events) == []
    else:  # every box counted: N's weak box gone is N's tile played
        assert ("N", (4, 3), "E") in plays(events)


def _laid_in_turn(hands: dict, line: list):
    """Photo by photo (k = 0..len(line)): k and the tiles of ``line`` laid so far, each taken from its
    seat's hand as it is laid (``hands`` changes as it goes)."""
    on: list = []
    for k in range(len(line) + 1):
        if k:
            tile, seat = line[k - 1]
            hands[seat].pop()
            on.append(tile)
        yield k, list(on)


def _read_off(t: Laid, shift_mm: float, deg: float) -> Laid:
    """``t`` as a photo reads it a little off: ``shift_mm`` along its axis, turned ``deg`` degrees."""
    a = np.deg2rad(deg)
    axis = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) @ t.axis
    return dataclasses.replace(t, center=t.center + shift_mm * t.axis, axis=axis)


@pytest.mark.parametrize("calibrated", [False, True])
def test_photos_from_a_fixed_camera_are_not_followed_by_the_noise_of_the_line(calibrated):
    """The demo cut into a photo every 3 s and reviewed calibrated warned "the camera moved between 4
    photos" with the camera fixed (one of the 4 showed no arm). The laid tiles were read 0.1-2.3 mm off,
    under ``jitter``, but the move fitted to them (a line along one axis, or the lead alone) took a turn
    and scale from that noise that carried the hands 450 mm away 2.7-20 mm. Here each photo reads the
    tile just laid 2 mm and 0.4 degrees off (0.4 degrees turn hands 450 mm away 3 mm): the camera
    stayed put."""
    tr, hands, line = _hand_held_block(calibrated)
    events = []
    for k, on in _laid_in_turn(hands, line):
        seen = on[:-1] + [_read_off(on[-1], 2.0, 0.4)] if on else []
        events += tr.update(k, float(k), observe(hands["N"] + hands["S"] + seen), None)
    assert plays(events) == [("S", (6, 5), "lead"), ("N", (5, 4), "E"), ("S", (4, 3), "E"), ("N", (6, 2), "W"),
                             ("S", (3, 1), "E"), ("N", (2, 1), "W")]
    assert tr.camera_moves == 0
    assert notices(events, "bump") == [] and notices(events, "moved") == []


@pytest.mark.parametrize("calibrated", [False, True])
@pytest.mark.parametrize("deg", [10.0, -10.0])
def test_a_tile_knocked_while_the_camera_moved_is_told_by_its_own_move(calibrated, deg):
    """Photos from a hand-held camera: between two, the camera turned 4 degrees and shifted, and one of
    the four laid tiles was knocked 5 mm and turned ``deg``. Its centre, within the fit's tolerance,
    drew the camera's move with it: the notice said 2.8 px (3.5 mm) and 9.5 / 10.5 degrees."""
    tr, hands, line = _hand_held_block(calibrated)
    line = line[:4]
    views = [(0.0, (0.0, 0.0)), (1.0, (6.0, -4.0)), (-1.5, (-8.0, 5.0)), (2.5, (30.0, 22.0)), (-2.0, (-25.0, -18.0)),
             (4.0, (10.0, 12.0))]  # degrees, px: a turn about the image centre and a shift
    events, on = [], []
    for k, (deg_view, shift) in enumerate(views):
        if 0 < k <= len(line):
            tile, seat = line[k - 1]
            hands[seat].pop()
            on.append(tile)
        if k == len(views) - 1:
            on[1] = t_(651, 504, deg, (5, 4))  # knocked 5 mm on the table
        a, c = np.deg2rad(deg_view), np.array(IMAGE_SIZE, float) / 2
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        view = lambda mm, rot=rot, c=c, shift=shift: (np.asarray(mm) * PX_PER_MM - c) @ rot.T + c + shift  # noqa: E731
        events += tr.update(k, float(k), observe(hands["N"] + hands["S"] + on, view), None)
    assert plays(events) == [("S", (6, 5), "lead"), ("N", (5, 4), "E"), ("S", (4, 3), "E"), ("N", (6, 2), "W")]
    (bump,) = notices(events, "bump")
    shift = 5.0 if calibrated else 5.0 * PX_PER_MM
    assert bump.tile == (5, 4) and bump.details == {"displacement": pytest.approx(shift, abs=0.05),
                                                    "rotation_deg": pytest.approx(deg, abs=0.05)}


def test_uncalibrated_photos_turned_a_quarter_say_so():
    """helper-126: a phone held upright over a two-seat table put the hands at the image's left and right
    (no seat there without a calibration): 13 of 16 seats wrong, nothing said. A boneyard's row along an
    unseated edge is no sign of it, nor when the hands are played down (helper-204: one photo mid-hand)."""
    rules = load_ruleset("block")  # N and S, 7 tiles each
    rows = _inset_hands(7, 60.0)
    cases = {"turned": rows["E"] + rows["W"], "upright": rows["N"] + rows["S"],
             "upright with a boneyard by W": rows["N"] + rows["S"] + rows["W"],
             "mid-hand with a boneyard by W": rows["N"][:3] + rows["S"][:4] + rows["W"],
             "turned with a boneyard by N": rows["E"] + rows["W"] + rows["N"],
             "late with a boneyard by W": rows["N"][:1] + rows["S"][:1] + rows["W"],
             "turned late with a boneyard by N": rows["E"][:1] + rows["W"][:1] + rows["N"]}
    got = {}
    for name, tiles in cases.items():
        tr = Tracker(rules, config=TrackerConfig(still_window_s=0.0, setup_min_score=None), image_size=IMAGE_SIZE)
        tr.update(0, 0.0, observe(tiles), None)
        got[name] = tr.hands_off_seats()
    assert got == {"turned": ["E", "W"], "upright": [], "upright with a boneyard by W": [],
                   "mid-hand with a boneyard by W": [], "turned with a boneyard by N": ["E", "W"],
                   "late with a boneyard by W": [], "turned late with a boneyard by N": ["E", "W"]}


def test_hands_off_seats_count_a_hand_of_one_tile_and_no_boneyard():
    """helper-209: one photo late in the demo's hand (lisa-b-all-fives, N and S, 7 tiles dealt), N and S down to
    one tile each (no row: a row needs 2) and the boneyard's 12 in a row by the left edge, was said to look
    turned. A border holds its row's fullest count or the last read's face-down tiles in its hand area,
    whichever is more; one holding more than a hand is dealt (7) is the boneyard: no sign either way."""
    from vision.hand_areas import HandAreas

    def off(rows: dict[str, int], down_last: dict[str, int]) -> list[str]:
        areas = HandAreas(TrackerConfig(still_window_s=0.0), None, (960, 540), lambda: ["N", "S"])
        areas.rows = {seat: (50.0, n, 100.0, 400.0) for seat, n in rows.items()}
        areas.down_last = down_last
        return areas.off_seats(7)

    # the demo's frame 600: held N 1, S 1, W 12 (> 7: the boneyard) -> 0 unseated borders against 2 seated
    assert off({"W": 12}, {"N": 1, "S": 1, "W": 12}) == []
    # the same turned a quarter clockwise: held E 1, W 1, N 12 (the boneyard) -> 2 unseated against 0
    assert off({"N": 12}, {"N": 12, "E": 1, "W": 1}) == ["E", "W"]
    # frame 680 turned: one hand out of view (N's last tile played), W 1 against none seated
    assert off({"N": 11}, {"N": 11, "W": 1}) == ["W"]
    # upright, N's hand out of view, a boneyard of 5 by W (5 <= 7: counted): W 1 against S 1, a tie
    assert off({}, {"S": 3, "W": 5}) == []
    # a turned folder: rows of the deal E 7, W 6 (the leader's), N 14; the last photo shows the hands face up,
    # the boneyard's 10 by N and a false box by S: E and W (from the rows) against S
    assert off({"E": 7, "W": 6, "N": 14}, {"N": 10, "S": 1}) == ["E", "W"]
    # a hand that drew past the deal (N 9) is no sign either way: S 2 against W 4, a tie
    assert off({}, {"N": 9, "S": 2, "W": 4}) == []


def test_a_play_read_from_pips_under_glare_is_recorded_and_marked_uncertain():
    """The fitted tile's reading (detector score GLARE_SCORE, half confidences GLARE_CONFIDENCE) is under
    the tracker's confidence for a sure play: the play is recorded, with an ``uncertain_read`` notice
    (README, docs/recognition.md step 7c)."""
    from vision.glare_pips import GLARE_CONFIDENCE, GLARE_SCORE

    table = Table(load_ruleset("nova-block"))
    table.play(t_(600, 500, 0, (3, 5), "N"))
    washed = t_(648, 500, 180, (2, 5), "E")
    washed.det_score, washed.confidence = GLARE_SCORE, GLARE_CONFIDENCE
    table.play(washed)
    assert plays(table.events) == [("N", (3, 5), "lead"), ("E", (5, 2), "E")]
    assert [n.details["reasons"] for n in notices(table.events, "uncertain_read")] == [["low_confidence"]]
    assert [round(e.confidence, 2) for e in table.events if isinstance(e, Play)][1] == GLARE_SCORE * GLARE_CONFIDENCE


def test_tiles_under_glare_are_hidden_not_gone():
    """helper-136: two photos with a lamp's glare over the line of play (the laid tiles not read) "cleared"
    the table, and the next photo's line was recorded again as a second hand. Tiles the picture cannot
    show (``unseen``) are kept as they were; without that test the same photos do clear the table."""
    def run(with_glare_test: bool) -> list:
        tr, hands, line = _hand_held_block(False)
        events = []
        for k, on in _laid_in_turn(hands, line):
            events += tr.update(k, float(k), observe(hands["N"] + hands["S"] + on), None)
        mask = np.zeros((IMAGE_SIZE[1], IMAGE_SIZE[0]), np.uint8)
        mask[350:450, 350:650] = 255  # the glare spot over the whole line (image px x 384-614, y 390-410)
        for k in (7, 8):
            events += tr.update(k, float(k), observe(hands["N"] + hands["S"]), None,
                                clipped=mask if with_glare_test else None)
        events += tr.update(9, 9.0, observe(hands["N"] + hands["S"] + on), None)
        return events

    assert len(plays(run(False))) > 6 and notices(run(False), "hand_cleared")  # the failure this guards
    kept = run(True)
    assert notices(kept, "hand_cleared") == [] and len(plays(kept)) == 6


def test_a_glare_over_a_hand_as_it_plays_gives_the_next_play_no_seat_vote():
    """helper-139: a glare over S's hand row in the photo where S played hid S's tiles (kept, not gone);
    in the next photo S's hand showed one tile fewer, and that loss gave N's play of that photo to S (all-fives
    photo folder, a glare disc on photo 9: play 10 wrong, two out-of-turn flags). A hand glared in this photo
    or the last gives no vote: the turn decides."""
    tr, hands, line = _hand_held_block(False)
    mask = np.zeros((IMAGE_SIZE[1], IMAGE_SIZE[0]), np.uint8)
    mask[int(900 * PX_PER_MM):, :] = 255  # S's hand row (y > 900 mm), 10 % of the picture
    events, on = [], []
    for k, (tile, seat) in enumerate(line):
        if k != 3:  # at photo 4 N's hand shows as many tiles as before (N drew one, or a box came and went)
            hands[seat].pop()
        on.append(tile)
        glare = k == 2  # S lays 4-3: its hand is under the glare
        seen = hands["N"] + on if glare else hands["N"] + hands["S"] + on
        events += tr.update(k, float(k), observe(seen), None, clipped=mask if glare else None)
    assert [(seat, sorted(tile)) for seat, tile, _ in plays(events)] == [(seat, sorted(t.pips)) for t, seat in line]
    assert not [e for e in events if getattr(e, "kind", None) == "pass_inferred"]


def test_a_glare_hiding_the_line_is_said_though_most_of_the_photo_is_fine(tmp_path):
    """helper-136: a glare over one end of the line, 24.5 % of the picture (under the overexposed share),
    lost plays without a word. A read whose clipped white hides tiles of the line of play gets an
    ``overexposed`` notice saying how many, and the table is not taken for cleared."""
    from service.review import ReviewSession

    _, hands, line = _hand_held_block(False)
    seen: list = []
    session = ReviewSession(load_ruleset("block"), lambda image: observe(seen), tmp_path / "out", annotate=False,
                            timelapse=True)
    dark = np.full((IMAGE_SIZE[1], IMAGE_SIZE[0], 3), 40, np.uint8)
    for k, on in _laid_in_turn(hands, line):
        seen[:] = hands["N"] + hands["S"] + on
        session.feed(k, float(k), dark, 1.0)
    glared = dark.copy()
    glared[350:450, 350:650] = 255  # over the whole line: 4 % of the picture
    seen[:] = hands["N"] + hands["S"]  # the detector finds none of the line there
    for k in (7, 8):
        session.feed(k, float(k), glared, 1.0)
    seen[:] = hands["N"] + hands["S"] + on
    session.feed(9, 9.0, dark, 1.0)
    summary = session.finish("test")
    rows = [json.loads(x) for x in (tmp_path / "out" / "events.jsonl").read_text().splitlines()]
    said = [(r["frame"], r["hidden_tiles"], r["clipped"]) for r in rows if r.get("kind") == "overexposed"]
    assert said == [(7, 6, 0.039)]  # 100 x 300 of 960 x 800 px; fed as footage: once a stretch
    assert not [r for r in rows if r.get("kind") == "hand_cleared"] and summary.plays == 6
    assert any("it hides 6 tiles of the line of play" in w for w in summary.warnings)


def test_a_glare_hiding_a_hand_is_said_and_the_score_is_not_final(tmp_path):
    """helper-141: a glare hiding S's whole hand row (10 % of the picture) was never mentioned; the seat of the
    play beside it came from the turn without a word. The ``overexposed`` notice counts the hand's hidden
    tiles, and the score is not final."""
    from service.review import ReviewSession

    _, hands, line = _hand_held_block(False)
    seen: list = []
    session = ReviewSession(load_ruleset("block"), lambda image: observe(seen), tmp_path / "out", annotate=False,
                            timelapse=True)
    session.files = [tmp_path / f"p{k}.png" for k in range(len(line) + 1)]  # a folder: each photo said
    dark = np.full((IMAGE_SIZE[1], IMAGE_SIZE[0], 3), 40, np.uint8)
    glared = dark.copy()
    glared[int(900 * PX_PER_MM):] = 255  # S's hand row (y > 900 mm)
    row = 0
    for k, on in _laid_in_turn(hands, line):
        if k == 3:  # S lays 4-3 under the glare: its row as the photo before showed it is hidden
            row = len(hands["S"]) + 1
        seen[:] = hands["N"] + on if k == 3 else hands["N"] + hands["S"] + on
        session.feed(k, float(k), glared if k == 3 else dark, 1.0)
    summary = session.finish("test")
    rows = [json.loads(x) for x in (tmp_path / "out" / "events.jsonl").read_text().splitlines()]
    said = [(r["frame"], r["hidden_hand_tiles"], r["hidden_tiles"]) for r in rows if r.get("kind") == "overexposed"]
    assert row > 1 and said == [(3, row, 0)]
    assert summary.plays == 6 and not summary.final
    assert any(f"hides {row} tiles of the hands" in w and "goes to the seat whose turn it is" in w
               for w in summary.warnings)


@pytest.mark.parametrize("trust_glared_reads", [False, True])
def test_a_tile_read_by_a_glare_is_free_to_go(monkeypatch, trust_glared_reads):
    """helper-138: at a glare's edge N's 2-6 was read 6-1 (it matched the W end, a play); kept "hidden"
    through the next two glared photos, it was still there when the glare lifted, so the real 2-6 touched
    no open end and the 6-1 was never taken back. A read in or by clipped white is not kept through a glare:
    missing for two photos, it is taken back, and the 2-6 is N's play once seen."""
    import vision.tracking as tracking

    if trust_glared_reads:  # the rule of e666367: every tile under a glare kept, however it was read
        monkeypatch.setattr(tracking, "read_in_glare", lambda mask, polygon: False)
    tr, hands, line = _hand_held_block(False)
    events = []
    for k, on in _laid_in_turn(hands, line[:3]):
        events += tr.update(k, float(k), observe(hands["N"] + hands["S"] + on), None)
    hands["N"].pop()
    edge = np.zeros((IMAGE_SIZE[1], IMAGE_SIZE[0]), np.uint8)
    edge[370:430, 465:560] = 255  # a glare's edge by the W end (the 2-6 lies at x 422-461 px, y 390-410)
    misread = t_(552, 500, 0, (6, 1))
    events += tr.update(4, 4.0, observe(hands["N"] + hands["S"] + on + [misread]), None, clipped=edge)
    over = edge.copy()
    over[370:430, 400:560] = 255  # the glare grown over it: the tile not read
    for k in (5, 6):
        events += tr.update(k, float(k), observe(hands["N"] + hands["S"] + on), None, clipped=over)
    events += tr.update(7, 7.0, observe(hands["N"] + hands["S"] + on + [line[3][0]]), None)
    took_back = [(e.frame, (e.tile.a, e.tile.b)) for e in events if isinstance(e, TakeBack)]
    # trusted, it waited for the glare to lift (where a real photo's 4-4 then "touched no open end")
    assert took_back == [(7 if trust_glared_reads else 6, (1, 6))]
    assert plays(events)[-1] == ("N", (6, 2), "W")


def test_a_hand_row_under_glare_does_not_vote():
    """helper-138: a glare over S's row hid its tiles for two photos; kept as hidden (not gone) they still
    counted as S's losses, against N's one real loss, and N's play took its seat from the turn order
    (an unexplained flag). Hidden tiles are in no count: N's play is N's by its hand."""
    tr, hands, line = _hand_held_block(False)
    events = []
    for k, on in _laid_in_turn(hands, line[:3]):
        events += tr.update(k, float(k), observe(hands["N"] + hands["S"] + on), None)
    rows = np.concatenate([o.polygon_px for o in observe(hands["S"])])
    (x0, y0), (x1, y1) = rows.min(0).astype(int) - 5, rows.max(0).astype(int) + 5
    glare = np.zeros((IMAGE_SIZE[1], IMAGE_SIZE[0]), np.uint8)
    glare[max(y0, 0):y1, max(x0, 0):x1] = 255  # over S's whole row, not the line
    hands["N"].pop()  # N lays the 2-6 at W
    events += tr.update(4, 4.0, observe(hands["N"] + on + [line[3][0]]), None, clipped=glare)
    events += tr.update(5, 5.0, observe(hands["N"] + hands["S"] + on + [line[3][0]]), None)
    last = [e for e in events if isinstance(e, Play)][-1]
    assert (last.seat, (last.tile.a, last.tile.b), last.end, last.seat_by_turn) == ("N", (6, 2), "W", False)
    assert tr.hidden_tiles == 0 and not notices(events, "hand_cleared")


def test_new_settings_reach_the_seat_turns():
    """The seat-turn watch (:mod:`vision.pass_inference`) reads the tracker's settings: replacing them
    (as the test above does) must change what it infers, not leave it with the first ones."""
    tr = Tracker(load_ruleset("block"), image_size=IMAGE_SIZE)
    assert tr.turns.config.infer_passes == TrackerConfig().infer_passes
    tr.config = dataclasses.replace(tr.config, infer_passes=not tr.config.infer_passes, visit_gap_s=7.5)
    assert tr.turns.config.infer_passes is (not TrackerConfig().infer_passes)
    assert tr.turns.config.visit_gap_s == 7.5
