"""The known traps of other engines (``shared/docs/rule-variants.md``, last paragraph), one test
each, and the record-keeping traps: corrections, take-backs, impossible events.

Expected values are computed by hand in the comments (ends W/E, spinner arms N/S).
"""

from __future__ import annotations

import re

import pytest

from engine.events import Correction, Play
from engine.hand import Hand, HandContext, IllegalEvent, PendingEnd, replay
from engine.notation import parse_event
from engine.ruleset import load_ruleset
from engine.tiles import Tile
from engine_helpers import ev, kinds, pts  # tests/engine_helpers.py


# ---- trap 1: a double at an arm end scored as one half ----------------------------------------

def test_trap_double_at_an_arm_end_counts_both_halves():
    rules = load_ruleset("all-fives")  # pagat: doubles "count as the total of their pips ... at the end"
    st = replay(rules, ev(
        "N 3-2",    # 3 + 2 = 5 -> N 5
        "S 2-2 E",  # 3 + [2-2] 4 = 7: nothing (one half would make 3 + 2 = 5 and score)
        "N 3-3 W",  # [3-3] 6 + [2-2] 4 = 10 -> N 10 (one half each: 3 + 2 = 5)
    ))
    assert pts(st) == [{"N": 5}, {}, {"N": 10}]
    assert [o.ends_total for o in st.outcomes] == [5, 7, 10]


# ---- trap 2: the spinner still counted after both long sides are covered ---------------------

def test_trap_spinner_stops_counting_once_both_long_sides_are_covered():
    rules = load_ruleset("lisa-b-all-fives")
    st = replay(rules, ev(
        "N 6-6",    # lone spinner: 12
        "S 6-3 E",  # open W side of the spinner 12 + E 3 = 15 -> S 15
        "N 6-2 W",  # W 2 + E 3 = 5 -> N 5 (counting the spinner as well: 2 + 3 + 12 = 17, nothing)
        "S 6-4 N",  # N arm started: 2 + 3 + 4 = 9
    ), HandContext(required_lead=Tile(6, 6)))
    assert [o.ends_total for o in st.outcomes] == [12, 15, 5, 9]
    assert pts(st) == [{}, {"S": 15}, {"N": 5}, {}]


# ---- trap 3: a team that went out scored as losing because the partner holds many pips -------

JERSEY_341 = [
    "deal N 2-0 6-5 4-2 5-1 5-0 6-3 5-4 / W 0-0 6-4 6-0 3-0 2-2 4-1 6-1 / S 4-3 3-1 4-0 4-4 5-5 1-1 3-2"
    " / E 5-2 6-2 1-0 2-1 6-6 3-3 5-3",
    "E 6-6", "N 6-5 W", "W 6-1 E", "S 1-1 E", "E 1-2 E", "N 5-4 W", "W 4-6 W", "S 2-3 E", "E 3-5 E",
    "N 5-0 E", "W 0-0 E", "S 0-4 E", "E 6-2 W", "N 4-2 E", "W 2-2 E",
    "S pass",   # ends 2 and 2: S holds 4-3 3-1 4-4 5-5
    "E 2-5 E", "N 2-0 W", "W 0-3 W", "S 3-1 W", "E 1-0 W", "N 5-1 E", "W 0-6 W",
    "S pass",   # ends 6 and 1: S holds 4-3 4-4 5-5
    "E pass",   # E holds 3-3
    "N 6-3 W",  # N's seventh tile: domino
]


def test_trap_the_side_that_went_out_wins_whatever_the_partner_holds():
    rules = load_ruleset("jersey-partnership")
    st = replay(rules, ev(*JERSEY_341), HandContext(required_lead=Tile(6, 6)))
    assert kinds(st) == []
    res = st.result
    # left: W [4-1] 5, S [4-3][4-4][5-5] 7 + 8 + 10 = 25, E [3-3] 6. NS hold 25 > EW 11, yet N went out:
    # NS win every pip left (all others, partner included): 5 + 25 + 6 = 36
    assert res.remaining == {"N": 0, "W": 5, "S": 25, "E": 6}
    assert (res.kind, res.winner_seat, res.winner_side) == ("domino", "N", "NS")
    assert res.awards == {"NS": 36, "EW": 0}
    assert res.next_leader == "N"


# ---- trap 4: a tied lock awarded to one side -----------------------------------------------------

LOCK_4 = ["N 6-6", "W 6-5 E", "S 6-1 W", "E 5-4 E", "N 1-0 W", "W 4-6 E", "S 0-6 W", "E 6-3 E", "N 3-2 E",
          "W 2-6 E"]
LOCK_2 = ["N 6-6", "S 6-5 E", "N 6-1 W", "S 5-4 E", "N 1-0 W", "S 4-6 E", "N 0-6 W", "S 6-3 E", "N 3-2 E",
          "S 2-6 E"]


def test_trap_a_tied_lock_is_not_given_to_either_side():
    rules = load_ruleset("jersey-partnership")
    st = replay(rules, ev(*LOCK_4, "N reveal 0-0 1-1 2-0 2-1", "W reveal 3-0 3-1 4-0 2-2",
                          "S reveal 4-2 4-3 5-2 5-3 5-5", "E reveal 4-1 3-3 5-0 5-1 4-4"))
    # NS 7 + 38 = 45, EW 15 + 30 = 45
    assert (st.result.winner_side, st.result.awards) == (None, {"NS": 0, "EW": 0})
    assert st.scores == {"NS": 0, "EW": 0}
    rules = load_ruleset("draw")
    st = replay(rules, ev(*LOCK_2, "N reveal 1-1 2-0", "S reveal 3-1 0-0"))
    # N 2 + 2 = 4, S 4 + 0 = 4
    assert (st.result.winner_seat, st.result.awards) == (None, {"N": 0, "S": 0})


# ---- trap 5: a capicua awarded for a winning double ----------------------------------------------

# bdc-partnership with two tiles a hand (hand_size = 2) so that N goes out on the second round;
# counterclockwise N W S E. W, S and E each keep one tile: W 6-6 12, S 6-5 11, E 0-0 0 = 23.
REVEALS = ["W reveal 6-6", "S reveal 6-5", "E reveal 0-0"]


@pytest.mark.parametrize("lines,capicua,award", [
    # W5 E2; E4; W3; E1; then [1-3] fits both ends (3 and 1): kapicua, 23 + 30 = 53
    (["N 5-2", "W 2-4 E", "S 5-3 W", "E 4-1 E", "N 1-3 E"], True, 53),
    # ... E3 instead: both ends 3 and N goes out with [3-3]: "except a double": 23
    (["N 5-2", "W 2-4 E", "S 5-3 W", "E 4-3 E", "N 3-3 E"], False, 23),
])
def test_trap_no_capicua_for_a_double(lines, capicua, award):
    rules = load_ruleset("bdc-partnership", hand_size=2)
    st = replay(rules, ev(*lines, *REVEALS))
    assert (st.result.kind, st.result.capicua) == ("domino", capicua)
    assert st.result.awards == {"NS": award, "EW": 0}


def test_trap_no_capicua_for_double_blank():
    rules = load_ruleset("bdc-partnership", hand_size=2)
    # W5 E2; W [2-0] E0; S [5-0] W0; E knocks; N goes out with [0-0] on ends 0 and 0
    st = replay(rules, ev("N 5-2", "W 2-0 E", "S 5-0 W", "E pass", "N 0-0 E",
                          "W reveal 6-6", "S reveal 6-5", "E reveal 6-4 4-4"))
    # 12 + 11 + (10 + 8) = 41, no bonus ("no bonus for winning with a double-blank domino")
    assert (st.result.capicua, st.result.awards) == (False, {"NS": 41, "EW": 0})


# ---- trap 6: a 15 in Fives-and-Threes scored as 5 ------------------------------------------------

def test_trap_fifteen_in_fives_and_threes_is_eight():
    rules = load_ruleset("fives-and-threes")
    st = replay(rules, ev(
        "N 6-6",    # lone double 12: 12/3 = 4
        "S 6-3 E",  # [6-6] open on W 12 + 3 = 15: 15/5 = 3 plus 15/3 = 5 -> 8
    ))
    assert pts(st) == [{"N": 4}, {"S": 8}]


# ---- trap 7: the same tile accepted twice, or in both orientations at once ------------------------

@pytest.mark.parametrize("second", ["S 4-6 E", "S 6-4 W", "S 6-4 E"])
def test_trap_the_same_tile_cannot_be_played_twice_in_any_orientation(second):
    rules = load_ruleset("all-fives")
    h = Hand(rules)
    h.append(parse_event("N 6-4"))
    with pytest.raises(IllegalEvent, match=r"event #1 .*already on the table"):
        h.append(parse_event(second))
    assert len(h.log) == 1  # the bad event is not recorded
    assert h.state.layout.open_ends() == {"W": 6, "E": 4}


def test_trap_a_tile_cannot_be_dealt_twice_or_drawn_from_the_table_or_a_hand():
    rules = load_ruleset("all-fives")
    with pytest.raises(IllegalEvent, match="dealt twice"):
        replay(rules, ev("deal N 6-4 5-5 3-3 2-2 1-1 0-0 6-6 / S 4-6 6-5 6-3 6-2 6-1 6-0 5-4"))
    deal = "deal N 6-4 5-5 3-3 2-2 1-1 0-0 6-6 / S 6-5 6-3 6-2 6-1 6-0 5-4 5-3"
    # helper-209: the refusal says where the tile is, and who put it there (it said "already on the table or
    # in a hand")
    with pytest.raises(IllegalEvent, match=re.escape("event #2 (draw): 4-6 drawn but it is on the table: N laid it "
                                                     "at #1")):
        replay(rules, ev(deal, "N 6-4", "S draw 4-6"))
    with pytest.raises(IllegalEvent, match=re.escape("event #2 (draw): 5-5 drawn but it is in N's hand: N was dealt "
                                                     "it at #0")):
        replay(rules, ev(deal, "N 6-4", "S draw 5-5"))
    with pytest.raises(IllegalEvent, match=re.escape("event #3 (draw): 4-4 drawn but it is in S's hand: S drew it "
                                                     "at #2")):
        replay(rules, ev(deal, "N 6-4", "S draw 4-4", "N draw 4-4"))
    with pytest.raises(IllegalEvent, match="in N's hand"):
        replay(rules, ev(deal, "N 6-4", "S 3-3 E"))


# ---- trap 8: two equal open ends updating the wrong arm --------------------------------------------

def test_trap_equal_open_ends_update_the_named_arm():
    rules = load_ruleset("all-fives")
    st = replay(rules, ev(
        "N 2-5",    # W2 E5: 7
        "S 5-1 E",  # W2 E1: 3
        "N 1-2 E",  # W2 E2: 4 -- two equal ends
        "S 2-6 W",  # W6 E2: 8
        "N 2-3 E",  # W6 E3: 9 (if W's play had moved E, this would not match)
        "S 6-4 W",  # W4 E3: 7
    ))
    assert [o.open_ends for o in st.outcomes][2:] == [{"W": 2, "E": 2}, {"W": 6, "E": 2}, {"W": 6, "E": 3},
                                                      {"W": 4, "E": 3}]
    assert kinds(st) == []
    assert st.layout.chains()["E"] == [Tile(5, 1), Tile(1, 2), Tile(2, 3)]


# ---- record keeping: corrections, take-backs, flags ---------------------------------------------------

def test_correction_replaces_an_earlier_event_and_everything_after_is_recomputed():
    rules = load_ruleset("all-fives")
    h = Hand(rules)
    h.append(parse_event("N 6-4"))     # 10 -> N 10
    h.append(parse_event("S 4-2 E"))   # 6 + 2 = 8
    assert h.state.scores == {"N": 10, "S": 0}
    out = h.append(parse_event("fix 0 N 3-4"))
    # the lead was [3-4]: 7, nothing; S's [4-2] on E now makes 3 + 2 = 5 -> S 5
    assert out.index == 0 and out.points == {}
    assert h.state.scores == {"N": 0, "S": 5}
    assert [o.points for o in h.state.outcomes] == [{}, {"S": 5}]
    # nothing is deleted: the log keeps the original lead and the correction
    assert len(h.log) == 3 and h.log[0].tile == Tile(6, 4) and isinstance(h.log[2], Correction)
    # a second correction of the same slot wins; voiding S's play gives the turn back to S
    h.append(parse_event("fix 0 N 6-4"))
    h.append(parse_event("void 1"))
    assert h.state.scores == {"N": 10, "S": 0} and h.state.turn == "S" and len(h.log) == 5


def test_a_correction_that_cannot_happen_is_refused_and_not_recorded():
    rules = load_ruleset("all-fives")
    h = Hand(rules)
    for line in ("N 6-4", "S 4-2 E", "N 2-2 E"):  # 10 -> N 10; 6 + 2 = 8; 6 + [2-2] 4 = 10 -> N 10
        h.append(parse_event(line))
    # then [2-2] would be played twice: the error names the fix that put it there (helper-98)
    with pytest.raises(IllegalEvent, match=re.escape("event #2 (play): tile 2-2 is already on the table "
                                                     "(put at #0 by fix #3)")):
        h.append(parse_event("fix 0 N 2-2"))
    with pytest.raises(IllegalEvent, match=re.escape("event #2 (play, as fixed by #3): tile 4-2 is already on")):
        h.append(parse_event("fix 2 N 4-2 E"))
    with pytest.raises(IllegalEvent, match="not an earlier event"):
        h.append(Correction(replaces=5, event=None))  # no event 5 before it
    assert len(h.log) == 3 and h.state.scores == {"N": 20, "S": 0}


def test_take_back_restores_the_board_and_the_points():
    rules = load_ruleset("lisa-b-all-fives")
    st = replay(rules, ev(
        "N 6-4",         # 10 -> N 10
        "S 6-1 W",       # 1 + 4 = 5 -> S 5
        "S takeback 6-1",  # S -5
        "S 4-1 E",       # 6 + 1 = 7
    ), HandContext(leader="N"))
    assert pts(st) == [{"N": 10}, {"S": 5}, {"S": -5}, {}]
    assert st.scores == {"N": 10, "S": 0}
    assert st.layout.open_ends() == {"W": 6, "E": 1}
    assert "take_back" in kinds(st) and "out_of_turn" not in kinds(st)


def test_a_tile_another_was_laid_against_cannot_be_taken_back():
    """helper-97: S took back 5-1 after N had laid 1-3 against it; the 1-3 then hung on E (5) and the
    line showed E 1, a line that cannot exist. Refused, as is taking back a lead others followed; a
    tile on the other end, nothing laid against it, still can be."""
    rules = load_ruleset("all-fives")
    h = Hand(rules)
    for line in ("N 5-5", "S 5-1 E", "N 1-3 E"):
        h.append(parse_event(line))
    with pytest.raises(IllegalEvent, match="S cannot take back 5-1: N's 1-3 was laid against it"):
        h.append(parse_event("S takeback 5-1"))
    with pytest.raises(IllegalEvent, match="N cannot take back 5-5: it led, and 2 tiles were laid after it"):
        h.append(parse_event("N takeback 5-5"))
    assert len(h.log) == 3 and h.state.layout.open_ends() == {"W": 5, "E": 3}
    st = replay(rules, ev("N 5-5", "S 5-1 E", "N 5-3 W", "S takeback 5-1"), HandContext(leader="N"))
    assert st.layout.open_ends() == {"W": 3, "E": 5}  # 5-1 hung alone on E


def test_a_mismatched_tile_taken_back_in_time_is_no_bogus_play_on_the_board():
    # seed 000: "he/she must take it back before the next player play"
    rules = load_ruleset("lisa-b-all-fives")
    st = replay(rules, ev("N 5-4", "S 3-2 E", "S takeback 3-2", "S 4-3 E"), HandContext(leader="N"))
    # the mismatch stays on record as a flag, the board is W5 E3 (5 + 3 = 8)
    assert [f.kind for f in st.flags] == ["mismatched_end", "take_back"]
    assert st.layout.open_ends() == {"W": 5, "E": 3} and st.turn == "N"


def test_a_take_back_after_the_next_player_played_is_flagged_late():
    """helper-119, seed 000: "... before the next player play or he/she will be charged with a bogus play":
    N's mismatched 5-0 taken back after S's 6-2 read exactly as a timely take-back."""
    rules = load_ruleset("lisa-b-all-fives")
    st = replay(rules, ev("N 6-6", "S 6-3 E", "N 5-0 E", "S 6-2 W", "N takeback 5-0", "N 3-2 E"),
                HandContext(leader="N"))
    (late,) = [f for f in st.flags if f.kind == "late_take_back"]
    assert (late.seat, late.details) == ("N", {"tile": [5, 0], "after": "S"})
    assert {k: v for k, v in st.layout.open_ends().items() if k in "WE"} == {"W": 2, "E": 2}


def test_mismatched_end_is_a_flag_with_both_values_and_the_record_goes_on():
    rules = load_ruleset("all-fives")
    st = replay(rules, ev("N 6-4", "S 3-2 E", "N 2-1 E", "S 6-5 W"))
    flag = next(f for f in st.flags if f.kind == "mismatched_end")
    # E showed 4; [3|2] has neither half 4
    assert flag.details == {"end": "E", "end_value": 4, "tile": [3, 2]}
    assert "4" in flag.message and "3-2" in flag.message
    # S's mismatched play scores nothing; the record continues on the 2 it left: W5 E1 = 6
    assert pts(st) == [{"N": 10}, {}, {}, {}]
    assert st.layout.open_ends() == {"W": 5, "E": 1} and len(st.outcomes) == 4


def test_lock_is_seen_from_the_board_alone():
    rules = load_ruleset("bdc-partnership")
    h = Hand(rules)
    for line in LOCK_4[:-1]:
        h.append(parse_event(line))
        assert not h.state.over
    h.append(parse_event(LOCK_4[-1]))
    # nobody's tiles are known; every 6 is on the table and both ends show 6
    assert h.state.pending_end == ("locked", None, "W")
    assert "awaiting_reveal" in kinds(h.state)
    with pytest.raises(IllegalEvent, match="hand is over"):
        h.append(parse_event("S 5-5 E"))


def test_pass_and_draw_with_a_legal_play_are_flagged_only_when_the_hand_is_known():
    rules = load_ruleset("all-fives")
    deal = "deal N 5-4 6-6 6-5 3-3 2-2 1-1 0-0 / S 4-1 6-3 6-2 5-3 3-2 3-1 2-0"
    st = replay(rules, ev(deal, "N 5-4", "S pass"))
    assert "pass_with_play" in kinds(st)
    st = replay(rules, ev(deal, "N 5-4", "S draw 6-4"))
    assert "draw_with_play" in kinds(st)
    # playing a fitting tile instead raises nothing
    st = replay(rules, ev(deal, "N 5-4", "S 4-1 E"))
    assert kinds(st) == []
    # S's hand unknown (only N's dealt): no judgement on S's pass beyond the boneyard still to draw
    st = replay(rules, ev("deal N 5-4 6-6 6-5 3-3 2-2 1-1 0-0", "N 5-4", "S pass"))
    assert "pass_with_play" not in kinds(st) and "pass_before_drawing" in kinds(st)


def test_draws_unseen_a_pass_is_judged_against_the_boneyard_only_once_draws_are_followed():
    """A camera's hand (Deal(draws_seen=False)): with no draw recorded the engine's boneyard is the
    deal's 14, not the table's, so a pass is not flagged; after the camera's draws (vision/boneyard.py)
    the count is the table's: 13 left is flagged, none left is not."""
    from engine.events import Deal, Draw

    rules = load_ruleset("all-fives")
    camera = [Deal(hands={}, draws_seen=False)] + ev("N 5-4")
    assert "pass_before_drawing" not in kinds(replay(rules, camera + ev("S pass")))
    st = replay(rules, camera + [Draw(seat="S", count=1)] + ev("S pass"))
    assert [f.message for f in st.flags if f.kind == "pass_before_drawing"] == ["S passed with 13 tiles left to draw"]
    st = replay(rules, camera + [Draw(seat="S", count=14)] + ev("S pass"))
    assert "pass_before_drawing" not in kinds(st) and st.boneyard == 0 and st.drawn == 14


def test_unseen_draws_no_domino_by_counting_until_the_umpire_says():
    # A camera in a draw game sees no draws ("deal unseen"): N's 7th tile on the table is no proof
    # that N is out (N may have drawn). The hand goes on until the umpire enters the domino.
    from engine.hand import HandContext, replay
    from engine.notation import parse_event
    from engine.ruleset import load_ruleset

    rules = load_ruleset("all-fives")
    lines = ["deal unseen", "N 5-4", "S 4-3 E", "N 5-2 W", "S 3-1 E", "N 2-0 W", "S 1-6 E", "N 0-4 W",
             "S 6-2 E", "N 4-1 W", "S 2-1 E", "N 1-0 W", "S 0-3 W", "N 1-5 E"]
    log = [parse_event(x) for x in lines]
    st = replay(rules, log, HandContext(leader="N"))
    assert st.result is None and st.pending_end is None  # 7 tiles by N, hand not over
    same_without_marker = replay(rules, log[1:], HandContext(leader="N"))
    assert same_without_marker.pending_end is not None  # counting says N is out
    st = replay(rules, log + [parse_event("end domino N"), parse_event("S reveal 6-6 6-4")],
                HandContext(leader="N"))
    # S holds 12 + 10 = 22 -> 20 (nearest 5)
    assert st.result.kind == "domino" and st.result.awards == {"N": 20, "S": 0}


# ---- record keeping: a tile the deal did not give, and the turn after an out-of-turn take-back ---

def test_a_tile_not_in_the_dealt_hand_is_flagged():
    rules = load_ruleset("lisa-b-all-fives")
    st = replay(rules, ev("deal N 5-5 5-3 5-2 5-1 5-0 6-5 3-1 / S 4-4 5-4 4-2 4-1 4-0 6-4 3-2",
                          "N 5-5", "S 5-4 E",
                          "N 6-0 W"))  # 6-0 is in the boneyard: a misread or a wrong deal line
    assert [f.kind for f in st.outcomes[-1].flags] == ["mismatched_end", "tile_not_in_hand"]
    msg = st.outcomes[-1].flags[-1].message
    # the six tiles N still holds, not the seven dealt (helper-215: 5-5, laid at #1, was not named but the
    # text said "dealt hand")
    assert msg == "N played 6-0, which N does not hold (N holds 5-3 5-2 5-1 5-0 6-5 3-1)"


def _per_event(st) -> list[list[str]]:
    return [[f.kind for f in o.flags] for o in st.outcomes]


def test_taking_back_an_out_of_turn_lead_gives_the_lead_back():
    """5-5 is the highest double dealt, so N leads (Lisa B.); S led 4-4 and took it back: N's 5-5
    is then in turn (it was flagged out_of_turn: the turn went to S, who took back), and S answers."""
    rules = load_ruleset("lisa-b-all-fives")
    st = replay(rules, ev("deal N 5-5 5-3 5-2 5-1 5-0 6-5 3-1 / S 4-4 5-4 4-2 4-1 4-0 6-4 3-2",
                          "S 4-4", "S takeback 4-4", "N 5-5", "S 5-4 E"))
    assert _per_event(st)[2:] == [["take_back"], [], []]
    # taking back one's own tile in turn keeps the turn with that player
    st = replay(rules, ev("deal N 5-5 5-3 5-2 5-1 5-0 6-5 3-1 / S 4-4 5-4 4-2 4-1 4-0 6-4 3-2",
                          "N 5-5", "S 5-4 E", "S takeback 5-4", "S 4-4 E"))
    assert _per_event(st)[2:] == [[], ["take_back"], ["mismatched_end"]]  # E shows 5 again; no out_of_turn


def test_a_play_on_an_arm_not_open_yet_is_flagged_and_scores_nothing():
    """Lisa B.: the spinner's arms open once both long sides are covered; S 6-3 on the N arm right
    after the lead would make 6 + 6 + 3 = 15 if it counted."""
    st = replay(load_ruleset("lisa-b-all-fives"), ev("N 6-6", "S 6-3 N"))
    assert _per_event(st)[1] == ["closed_end"]
    assert pts(st) == [{}, {}]


def test_a_tile_on_an_arm_not_open_yet_counts_only_once_the_arm_opens():
    """Lisa B. (helper-220's closed2.yaml, played on): N's 6-5 on the closed N arm is no open end, so
    S's 6-3 on E counts the spinner's uncovered W side 6 + 6 and E 3 = 15, not 15 + 5 = 20. Once N
    covers W the arm opens, and the 5 counts with the other ends from then on."""
    st = replay(load_ruleset("lisa-b-all-fives"), ev(
        "deal N 6-4 5-4 5-0 4-2 3-2 5-3 6-5 / S 2-1 6-6 1-0 4-4 3-1 6-3 4-1",
        "S 6-6",    # lone spinner: 6 + 6 = 12, nothing
        "N 6-5 N",  # closed arm: flagged, no points; the count stays the lone spinner's 12
        "S 6-3 E",  # W side 6 + 6 = 12, E 3: 15 -> S 15
        "N 6-4 W",  # both long sides covered, N opens: W 4 + E 3 + N 5 = 12, nothing
        "S 3-1 E",  # W 4 + E 1 + N 5 = 10 -> S 10 (without the N arm's 5 it would be 5)
    ))
    assert _per_event(st)[2] == ["closed_end"]
    assert [o.ends_total for o in st.outcomes[1:]] == [12, 12, 15, 12, 10]
    assert [o.open_ends for o in st.outcomes[2:4]] == [{"W": 6, "E": 6}, {"W": 6, "E": 3}]
    assert st.outcomes[4].open_ends == {"W": 4, "E": 3, "N": 5, "S": 6}
    assert pts(st)[1:] == [{}, {}, {"S": 15}, {}, {"S": 10}]


def test_a_play_of_a_tile_not_in_the_hand_is_flagged_and_scores_as_laid():
    """docs/rules.md (the seeds are silent): the flag asks the umpire to correct the record; the play,
    fitting its end, scores: 6-3 on E of the lead [6-6] counts W side 6 + 6 and E 3 = 15 (helper-220's s2.yaml)."""
    st = replay(load_ruleset("lisa-b-all-fives"), ev(
        "deal N 6-4 5-4 5-0 4-2 3-2 5-3 6-5 / S 2-1 6-6 1-0 4-4 3-1 3-3 4-1", "S 6-6", "N 6-3 E"))
    assert _per_event(st)[2] == ["tile_not_in_hand"]
    assert pts(st)[1:] == [{}, {"N": 15}]


# ---- impossible events that used to crash the writers (helper-77) ----------------------------

@pytest.mark.parametrize("line, message", [
    ("end domino E", "the winner 'E' is not playing (seats: N, S)"),  # a 2-seat game
    ("end domino Q", "the winner 'Q' is not playing (seats: N, S)"),
    ("S penalty 99999999999999999999999 x", "a penalty's points must be within +-1000, got 99999999999999999999999"),
])
def test_a_hand_end_by_no_seat_or_a_huge_penalty_is_refused(line, message):
    with pytest.raises(IllegalEvent, match=message.replace("+", r"\+").replace("(", r"\(").replace(")", r"\)")):
        replay(load_ruleset("lisa-b-all-fives"), ev("N 5-5", line))


def test_a_penalty_needs_a_name_or_points():
    from engine.events import Penalty

    with pytest.raises(IllegalEvent, match="a penalty on S needs a rule-set penalty name or explicit points"):
        replay(load_ruleset("lisa-b-all-fives"), ev("N 5-5") + [Penalty(seat="S", opponents=5)])
    st = replay(load_ruleset("lisa-b-all-fives"), ev("N 5-5", "S penalty -1000 the largest fine"))
    assert st.scores == {"N": 10, "S": -1000}


def test_passing_instead_of_leading_is_a_pass_with_play():
    """helper-77: N held the 6-6 that must open (bdc-partnership) and passed: no flag, so no penalty
    was offered; the same for the leader of lisa-b, where any tile opens."""
    rules = load_ruleset("lisa-b-all-fives")  # 2 seats, 7 tiles each, any tile leads
    deal = "deal N 5-3 5-2 6-2 5-5 0-0 5-1 4-4 / S 6-4 5-0 6-3 2-1 4-1 6-1 1-1"
    st = replay(rules, ev(deal, "N pass"), HandContext(leader="N"))
    assert [(f.kind, f.seat, f.message) for f in st.outcomes[-1].flags] == [
        ("pass_with_play", "N", "N passed holding a lead")]
    bdc = load_ruleset("bdc-partnership")
    need = Tile(6, 6)
    hands = "deal N 6-6 6-5 6-4 6-3 6-2 6-1 6-0 / E 5-5 5-4 5-3 5-2 5-1 5-0 4-4 / " \
            "S 4-3 4-2 4-1 4-0 3-3 3-2 3-1 / W 3-0 2-2 2-1 2-0 1-1 1-0 0-0"
    st = replay(bdc, ev(hands, "N pass", "W pass"), HandContext(leader="N", required_lead=need))  # N, W, S, E
    assert [[(f.kind, f.seat, f.message) for f in o.flags] for o in st.outcomes[1:]] == [
        [("pass_with_play", "N", "N passed holding a lead (6-6)")],
        []]  # W cannot open: the 6-6 is N's


def test_a_play_that_became_the_lead_after_a_void_reads_as_the_lead():
    # helper-77: "S 5-0 E" stayed in the timeline's text with end "lead" once N's 5-5 was voided
    from engine.match import replay_match
    from engine.timeline import timeline

    st = replay_match(load_ruleset("all-fives"), [ev("N 5-5", "S 5-0 E", "void 0")])
    assert [(r["text"], r["end"], r["points"]) for r in timeline(st)] == [("S 5-0", "lead", {"S": 5})]


@pytest.mark.parametrize("reveal, message", [
    ("S reveal 6-4 6-4", "S reveals 6-4 twice"),  # helper-81: counted twice, N +20
    ("S reveal 6-4 5-3", "S holds 1 tile, the reveal shows 2"),
    ("N reveal 6-2", "N went out: it holds no tile to reveal"),
])
def test_a_reveal_must_be_the_seats_tiles(reveal, message):
    """block, 2-tile hands: N 6-6, S 6-5 E, N 5-1 E and N is out; S holds one tile."""
    rules = load_ruleset("block").model_copy(update={"hand_size": 2})
    with pytest.raises(IllegalEvent, match=message):
        replay(rules, ev("N 6-6", "S 6-5 E", "N 5-1 E", reveal))


def test_a_seat_reveals_once_and_not_anothers_tiles():
    from engine.events import Reveal

    rules = load_ruleset("block").model_copy(update={"hand_size": 2})
    st = replay(rules, ev("N 6-6", "S 6-5 E", "N 5-1 E", "S reveal 6-4"))
    assert (st.result.kind, st.result.awards) == ("domino", {"N": 10, "S": 0})  # block (pagat): S's 10 pips
    with pytest.raises(IllegalEvent, match=r"S revealed already \(6-4\): correct that reveal instead"):
        replay(rules, ev("N 6-6", "S 6-5 E", "N 5-1 E", "S reveal 6-4", "S reveal 4-6"))
    draw = load_ruleset("all-fives")  # hands uncounted: a lock's reveals
    with pytest.raises(IllegalEvent, match="S reveals 3-3, which N revealed"):
        replay(draw, ev("deal unseen", "N 6-6", "end locked", "N reveal 3-3", "S reveal 3-3 2-2"))
    with pytest.raises(IllegalEvent, match="S's reveal shows no tile"):
        replay(draw, ev("deal unseen", "N 6-6", "end locked") + [Reveal(seat="S", tiles=[])])


def test_an_end_entered_over_the_engines_own_end_is_refused():
    """helper-81: N went out by count (block); an umpire's "end domino S" was taken, S led next and
    nobody scored. A draw game's blocked line may still be the last player's domino."""
    rules = load_ruleset("block").model_copy(update={"hand_size": 2})
    with pytest.raises(IllegalEvent, match=r"the hand has ended \(domino by N\) and awaits the reveals"):
        replay(rules, ev("N 6-6", "S 6-5 E", "N 5-1 E", "end domino S"))
    draw = load_ruleset("draw").model_copy(update={"hand_size": 5})
    blocked = ev("deal unseen", "N 5-0", "S 0-1 E", "N 1-5 E", "S 5-5 W", "N 5-6 W", "S 6-2 W", "N 2-5 W",
                 "S 5-3 E", "N 3-4 E", "S 4-5 E")  # both ends 5, all seven 5s laid: locked by the engine
    assert replay(draw, blocked).pending_end == ("locked", None, "S")
    st = replay(draw, blocked + ev("end domino S", "N reveal 6-6"))
    assert (st.result.kind, st.result.winner_seat, st.result.awards) == ("domino", "S", {"N": 0, "S": 12})


# helper-215: no hands in the log (a manual or hidden deal); the last play leaves both ends on 6 with all seven
# 6s on the table. A spinner 6-6 (all-fives) shows 6 on its N and S arms too, which no tile fits either.
BOARD_LOCK = ["N 6-6", "S 6-5 E", "N 5-4 E", "S 4-6 E", "N 6-3 W", "S 3-2 W", "N 2-6 W", "S 6-1 E", "N 1-0 E",
              "S 0-6 E"]
# the same ends, 6|6, with 6-6 still out: whoever holds it plays on (in a line, both ends can show a number
# with one of its tiles off the table only when that tile is the double: 6 halves of 6 on the table, 2 at the ends)
BOARD_OPEN = ["N 6-5", "S 5-4 E", "N 4-6 E", "S 6-3 W", "N 3-2 W", "S 2-6 W", "N 6-1 E", "S 1-0 E", "N 0-6 E"]


@pytest.mark.parametrize("preset, award", [("block", 18), ("draw", 18), ("all-fives", 20)])
def test_the_board_alone_locks_a_hand_whose_tiles_are_unknown(preset, award):
    """Seed 000: "A game is locked when players have tiles but have no legal play"; then "all players show
    remaining tiles". With no hand known the board decides it: the hand ends as locked at the play (in a draw
    game no tile left to draw fits either) and is scored once the hands are shown, as the preset scores a lock.
    N shows 0-0 1-1 (2 pips), S 5-5 4-4 (18): the lowest hand wins the opponent's pips (pagat: block, draw exact;
    all-fives rounds to the nearest 5: 18 -> 20)."""
    rules = load_ruleset(preset)
    for deal in ([], ["deal hidden"], ["deal unseen"]):
        st = replay(rules, ev(*deal, *BOARD_LOCK))
        assert st.layout.open_ends() == ({"W": 6, "E": 6, "N": 6, "S": 6} if rules.spinner != "none"
                                         else {"W": 6, "E": 6})
        assert (st.result, st.pending_end, st.awaiting_reveal()) == (None, ("locked", None, "S"), ["N", "S"])
        with pytest.raises(IllegalEvent, match=r"the hand is over \(locked, awaiting the hands shown\)"):
            replay(rules, ev(*deal, *BOARD_LOCK, "N pass"))
        st = replay(rules, ev(*deal, *BOARD_LOCK, "N reveal 0-0 1-1", "S reveal 5-5 4-4"))
        assert (st.result.kind, st.result.winner_seat, st.result.remaining) == ("locked", "N", {"N": 2, "S": 18})
        assert st.result.awards == {"N": award, "S": 0}


def test_the_outcome_that_ends_a_hand_awaiting_reveals_says_so():
    """helper-221: the play that locked the line (BOARD_LOCK, no hand known) carried neither a result nor any
    word of the end, so the timeline's rows (``score --json``, events.jsonl) could not tell. Its outcome now
    carries the pending end and the seats awaited; N's reveal leaves S awaited (said again, S alone); S's
    reveal counts the hand (a result, no pending). The same, streamed event by event as the live service does."""
    block = load_ruleset("block")
    st = replay(block, ev(*BOARD_LOCK, "N reveal 0-0 1-1", "S reveal 5-5 4-4"))
    assert [o.pending for o in st.outcomes] == [None] * 9 + [PendingEnd("locked", None, ("N", "S")),
                                                           PendingEnd("locked", None, ("S",)), None]
    assert [o.result is not None for o in st.outcomes] == [False] * 11 + [True]
    hand = Hand(block)
    outs = [hand.append(parse_event(line)) for line in BOARD_LOCK]
    assert [o.pending for o in outs[:-1]] == [None] * 9 and outs[-1].pending == PendingEnd("locked", None, ("N", "S"))
    # a domino that waits for the loser's tiles names who went out: draw, 2 tiles each, N's deal no longer
    # trusted after N exposed 3-3 (as in test_a_reveal_of_a_tile_not_in_the_known_hand_is_flagged)
    draw = load_ruleset("draw").model_copy(update={"hand_size": 2})
    st = replay(draw, ev("deal N 1-0 2-0 / S 6-6 6-5", "S 6-6", "N reveal 3-3", "N draw 6-1", "N 6-1 E", "S 6-5 W"))
    assert [o.pending for o in st.outcomes] == [None] * 5 + [PendingEnd("domino", "S", ("N",))]


@pytest.mark.parametrize("preset", ["block", "draw", "all-fives"])
def test_matching_ends_with_a_tile_of_their_number_out_are_no_lock(preset):
    """The twin of the test above: ends 6|6 but 6-6 not laid, so the hand goes on; laying it locks."""
    rules = load_ruleset(preset)
    st = replay(rules, ev(*BOARD_OPEN))
    assert st.layout.open_ends() == {"W": 6, "E": 6}
    assert (st.result, st.pending_end, st.turn) == (None, None, "S")
    st = replay(rules, ev(*BOARD_OPEN, "S 6-6 E"))
    assert st.pending_end == ("locked", None, "S")


def test_an_exposure_shows_no_more_tiles_than_the_seat_holds_and_is_counted_once():
    """helper-83: N, holding 6 tiles, 'exposed' 8; the same exposure twice made two flags."""
    rules = load_ruleset("all-fives")
    start = [parse_event(x) for x in ("N 5-5", "S 5-4 E")]
    with pytest.raises(IllegalEvent, match="N holds 6 tiles, the reveal shows 8"):
        replay(rules, start + [parse_event("N reveal 0-0 0-1 0-2 0-3 0-4 0-5 0-6 1-1")])
    st = replay(rules, start + [parse_event("N reveal 0-0 0-1")])
    assert [f.kind for o in st.outcomes for f in o.flags] == ["exposed_tile"]
    with pytest.raises(IllegalEvent, match="N exposed 0-1 0-0 already"):
        replay(rules, start + [parse_event("N reveal 0-0 0-1"), parse_event("N reveal 0-1 0-0")])
    # a further tile is a new exposure
    st = replay(rules, start + [parse_event("N reveal 0-0 0-1"), parse_event("N reveal 0-1 0-2")])
    assert [f.kind for o in st.outcomes for f in o.flags] == ["exposed_tile", "exposed_tile"]


def test_a_pass_out_of_turn_says_passed():
    """helper-83: the alert for S's pass on N's turn read 'S played out of turn'."""
    st = replay(load_ruleset("all-fives"), [parse_event(x) for x in ("N 5-5", "N pass")])
    assert [f.message for o in st.outcomes for f in o.flags if f.kind == "out_of_turn"] == [
        "N passed out of turn (S was to play)"]


def test_drawn_tiles_are_checked_when_the_hand_is_not_known():
    """helper-89: with the seat's hand unknown, "9-9" (double-six set) and "6-6 6-6" were taken."""
    import pydantic

    from engine.events import Deal, Draw

    rules = load_ruleset("all-fives")
    camera = [Deal(hands={}, draws_seen=False)] + ev("N 5-4")
    for tiles, message in ((["9-9"], "9"), (["6-6", "6-6"], "6-6 drawn twice in one draw"),
                           (["5-4"], "5-4 drawn but it is on the table: N laid it at #1")):
        with pytest.raises(IllegalEvent, match=message):
            replay(rules, camera + [Draw(seat="S", count=len(tiles), tiles=tiles)])
    st = replay(rules, camera + [Draw(seat="S", count=2, tiles=["6-6", "0-0"])])
    assert st.boneyard == 12 and st.known["S"] is None  # the rest of S's hand is still unknown
    with pytest.raises(pydantic.ValidationError):
        Draw.model_validate({"seat": "S", "count": True})


def test_a_draw_out_of_turn_is_flagged():
    """pagat (draw): "a player who cannot play draws" - on his turn; helper-89 moved a draw to N on S's
    turn without a word."""
    rules = load_ruleset("draw")
    st = replay(rules, ev("N 5-4", "N draw 1"))
    assert [f.message for f in st.flags] == ["N drew out of turn (S was to play)"]
    assert kinds(replay(rules, ev("N 5-4", "S draw 1", "S draw 1"))) == []


def test_a_domino_for_a_seat_that_still_holds_tiles_is_refused():
    """helper-93: "end domino N" was taken while N held 3 tiles by count; N's reveal was then refused
    ("N went out: it holds no tile") and the hand could not be counted. Draws only add tiles, so a
    count above 0 stands even when draws went unrecorded; a camera's hand (deal unseen) has no count."""
    rules = load_ruleset("block").model_copy(update={"hand_size": 3})
    with pytest.raises(IllegalEvent, match="N still holds 2 tiles by the record: a domino is going out"):
        replay(rules, ev("N 6-6", "S 6-5 E", "end domino N"))
    draw = load_ruleset("draw")
    st = replay(draw, ev("deal unseen", "N 6-6", "S 6-5 E", "end domino N", "S reveal 3-3"))
    assert (st.result.kind, st.result.winner_seat) == ("domino", "N")
    # helper-108: it stands, but the umpire is told: N was dealt 7 and laid 1, unseen draws only add
    told = [f for f in st.flags if f.kind == "domino_with_tiles_left"]
    assert [(f.seat, f.details) for f in told] == [("N", {"tiles_left": 6})]
    assert told[0].message.startswith("N went out by the record, which leaves N holding at least 6 tiles")
    three = draw.model_copy(update={"hand_size": 3})  # N laid all 3 it was dealt: a domino as recorded
    st = replay(three, ev("deal unseen", "N 6-6", "S 6-5 E", "N 5-5 E", "S 5-4 E", "N 4-4 E", "end domino N",
                          "S reveal 3-3"))
    assert st.result.winner_seat == "N" and "domino_with_tiles_left" not in kinds(st)


def test_a_fix_typed_without_a_time_keeps_the_moment_of_the_event_it_replaces():
    """helper-98: a reviewed game's play fixed in notation ("fix 1 S 4-2 E") lost its time, so the
    report's row no longer linked to the moment in the video. A fix with its own time keeps that."""
    from engine.events import Play, effective
    from engine.timeline import outcome_row

    log = [Play(seat="N", tile="6-4", t=3.0, frame=30), Play(seat="S", tile="4-1", end="E", t=8.5, frame=85),
           Correction(replaces=1, event=Play(seat="S", tile="4-2", end="E")),
           Correction(replaces=0, event=Play(seat="N", tile="6-4", t=2.0))]
    now = dict(effective(log))
    assert (now[1].tile, now[1].t, now[1].frame) == (Tile(4, 2), 8.5, 85)
    assert (now[0].t, now[0].frame) == (2.0, None)  # its own time stands
    h = Hand(load_ruleset("all-fives"))
    for e in log:
        h.append(e)
    assert [(r["index"], r["t"], r["frame"]) for r in map(outcome_row, h.state.outcomes)] == [(0, 2.0, None),
                                                                                              (1, 8.5, 85)]


# ---- a round of passes is a lock only when no play is left ----------------------------------

def test_a_round_of_passes_with_a_play_left_is_no_lock():
    """helper-114: in a draw game, N 6-6 then S and N passing (S holds 6-5, 14 tiles to draw) was
    scored as a locked hand at once. The passes are the umpire's flags; the hand goes on."""
    draw = load_ruleset("lisa-b-all-fives")
    deal = "deal N 6-6 1-1 1-2 1-3 1-4 1-5 1-0 / S 2-2 2-3 2-4 2-5 2-0 3-3 6-5"
    st = replay(draw, ev(deal, "N 6-6", "S pass", "N pass"), HandContext(required_lead=Tile(6, 6)))
    assert st.result is None and st.turn == "S"
    assert kinds(st) == ["pass_with_play", "pass_before_drawing"]  # S held 6-5; N had 14 tiles to draw
    # a camera's hand (nothing known: hands and draws unseen): a round of passes is the lock it was
    st = replay(draw, ev("deal unseen", "N 6-6", "S pass", "N pass"), HandContext(required_lead=Tile(6, 6)))
    assert st.pending_end == ("locked", None, "N")  # scored once the hands are shown


def test_a_round_of_passes_with_no_play_left_locks_a_block_hand():
    block = load_ruleset("block")
    deal = "deal N 5-5 6-6 4-4 3-3 2-2 1-1 0-0 / S 6-4 6-3 6-2 6-1 6-0 4-3 4-2"  # no other 5 anywhere in hand
    st = replay(block, ev(deal, "N 5-5", "S pass", "N pass"), HandContext())
    assert kinds(st) == [] and st.result is not None and st.result.kind == "locked"
    # but S holding 5-0 and passing leaves a play: flagged, not locked
    deal = "deal N 5-5 6-6 4-4 3-3 2-2 1-1 0-0 / S 6-4 6-3 6-2 6-1 5-0 4-3 4-2"
    st = replay(block, ev(deal, "N 5-5", "S pass", "N pass"), HandContext())
    assert kinds(st) == ["pass_with_play"] and st.result is None


def test_a_hand_called_locked_while_a_play_is_left_is_flagged_for_the_umpire():
    """helper-153: `end locked` with W holding 5-4 on a 5 end was scored as a lock without a word. It is
    scored as called (the umpire may have stopped it), with a flag naming the play left."""
    from engine.hand import replay
    from engine.notation import parse_event
    from engine.ruleset import load_ruleset

    rules = load_ruleset("jersey-partnership")
    deal = ("deal N 6-6 6-5 6-4 6-3 6-2 6-1 6-0 / E 5-5 5-3 5-2 5-1 5-0 4-4 4-3 / S 4-2 4-1 4-0 3-3 3-2 3-1 3-0 / "
            "W 5-4 2-2 2-1 2-0 1-1 1-0 0-0")
    st = replay(rules, [parse_event(e) for e in (deal, "N 6-6", "end locked")])
    flags = [(f.kind, f.seat, f.message) for o in st.outcomes for f in o.flags]
    # ends 6|6: N's own 6-5 (N comes first in the order) fits the W end
    assert flags == [("locked_with_play", "N", "the hand was ended as locked, but N holds 6-5, which fits the W end")]
    assert st.result.kind == "locked"
    # a camera's hand (deal unseen): no hand is known, so nothing says a play was left
    st = replay(rules, [parse_event(e) for e in ("deal unseen", "N 6-6", "end locked")])
    assert [f.kind for o in st.outcomes for f in o.flags] == [] and st.pending_end[0] == "locked"


def test_a_huge_pip_count_is_refused_in_a_short_message():
    """helper-152: a JSON tile [1e308, 6] was told back as a 309-digit tile."""
    import pytest

    from engine.tiles import Tile, TileError

    with pytest.raises(TileError, match=r"^not a tile: a pip count of 1e\+308 \(a set runs 0 to 6\)$"):
        Tile.parse([1e308, 6], 6)
    assert Tile.parse([6.0, 4], 6) == Tile(6, 4)


def test_a_tile_of_pip_strings_parses_and_of_words_is_refused_as_a_tile_error():
    """helper-158: the pip-count bound ran before the values were numbers: ["6", "4"] (6-4 before it) and
    ["x", 4] raised a bare TypeError, which the service answered with a 500."""
    import pytest

    from engine.record import event_from_dict
    from engine.tiles import Tile, TileError

    assert Tile.parse(["6", "4"], 6) == Tile(6, 4)
    assert event_from_dict({"type": "play", "seat": "N", "tile": ["6", "6"]}).tile == Tile(6, 6)
    for bad in (["x", 4], [None, 4], [float("inf"), 4], [[6], 4]):
        with pytest.raises(TileError, match=r"^not a tile: \[.*\] \(two pip counts, e\.g\. \[6, 4\]\)$"):
            Tile.parse(bad, 6)
    with pytest.raises(TileError, match=r"a pip count of 5000 "):
        Tile.parse(["5000", 4], 6)


# ---- a hidden deal (the public copy of a hand in play) judges no pass ----------------------

def test_a_hidden_deal_judges_no_pass_and_ends_no_hand_by_a_round_of_passes():
    """helper-185: the public copy of a hand in play (``deal hidden``: dealt but not listed, draws counted)
    was judged again when read: N passed holding the 6-6 just drawn (``pass_with_play`` in the full record,
    left out of the copy) and the copy flagged ``pass_before_drawing``, which the full record does not have.
    The copy cannot tell the two apart: it flags neither, and the pass stays unforced, as in the full record."""
    draw = load_ruleset("draw")
    plays = ["N 4-0", "S 6-0 E", "N 4-4 W", "S 6-2 E", "N 5-2 E", "S 6-4 W"]  # draw, seed 0 (engine.simulate)
    full = replay(draw, ev("deal N 2-0 4-4 4-0 5-2 2-2 0-0 3-1 / S 6-0 5-4 5-3 6-2 6-4 2-1 1-1", *plays,
                           "N draw 6-6", "N pass"))
    copy = replay(draw, ev("deal hidden", *plays, "N draw 1", "N pass"))
    assert kinds(full) == ["pass_with_play"] and kinds(copy) == []
    assert full.forced_passes_in_row == copy.forced_passes_in_row == 0 and copy.passes_in_row == 1
    assert full.boneyard == copy.boneyard == 13 and copy.drawable() == 13
    # not hidden, only unknown (a deal listing N alone): S's pass is judged against the boneyard as before
    partial = replay(draw, ev("deal N 2-0 4-4 4-0 5-2 2-2 0-0 3-1", *plays[:1], "S pass"))
    assert kinds(partial) == ["pass_before_drawing"]
    # block: S holds 6-4 and N 6-5 on 6|6; both pass. The full record flags both passes and plays on; the copy,
    # made while the hand was in play, was scored locked (awaiting the hands shown) on its round of passes
    block = load_ruleset("block")
    full = replay(block, ev("deal N 6-6 6-5 1-1 1-2 1-3 1-4 1-0 / S 2-2 2-3 2-4 2-5 2-0 3-3 6-4", "N 6-6", "S pass",
                            "N pass"))
    copy = replay(block, ev("deal hidden", "N 6-6", "S pass", "N pass"))
    assert kinds(full) == ["pass_with_play", "pass_with_play"] and full.pending_end is None and full.result is None
    assert kinds(copy) == [] and copy.pending_end is None and copy.result is None and copy.turn == "S"
    # a camera's hand (hands and draws unseen) is not hidden: its round of passes is the lock it was
    assert replay(block, ev("deal unseen", "N 6-6", "S pass", "N pass")).pending_end == ("locked", None, "N")


def _refusal(h: Hand, line: str) -> str:
    """The engine's reason for refusing ``line``; the log is left as it was."""
    before = len(h.log)
    with pytest.raises(IllegalEvent) as exc:
        h.append(parse_event(line))
    assert len(h.log) == before
    return str(exc.value)


def test_a_refusal_names_a_fix_only_where_the_tile_still_lies_where_the_fix_put_it():
    """helper-199: "(put at #1 by fix #2)" was added to every refusal of an event whose tile a fix had once
    laid: to "the hand is over", and after the tile had been taken back. It now comes only with a refusal
    about where the tile is (on the table, in a hand), while it lies where the fix put it."""
    rules = load_ruleset("all-fives")
    h = Hand(rules)
    for line in ("N 6-4", "S 3-2 E", "fix 1 S 4-2 E"):  # slot 1 is now S's [4|2], put there by fix #2
        h.append(parse_event(line))
    # the fix is the reason: [4|2] lies at #1 because of it (a draw of it was refused with no word of the fix)
    assert _refusal(h, "N 4-2 W") == "event #3 (play): tile 4-2 is already on the table (put at #1 by fix #2)"
    assert _refusal(h, "N draw 4-2") == ("event #3 (draw): 4-2 drawn but it is on the table: S laid it at #1 "
                                         "(put at #1 by fix #2)")
    h.append(parse_event("S takeback 4-2"))  # #3: back in S's hand, no longer where the fix put it
    assert _refusal(h, "S takeback 4-2") == "event #4 (take_back): S did not play 4-2"  # was "... (put at #1 by fix #2)"
    assert _refusal(h, "N draw 4-2") == "event #4 (draw): 4-2 drawn but it is in S's hand: S took it back at #3"
    h.append(parse_event("S 4-2 E"))  # #4: laid again, by no fix
    assert _refusal(h, "N 4-2 W") == "event #5 (play): tile 4-2 is already on the table"
    # a refusal about something else says nothing of the fix
    h2 = Hand(rules)
    for line in ("N 6-4", "S 3-2 E", "fix 1 S 4-2 E", "end umpire"):
        h2.append(parse_event(line))
    assert _refusal(h2, "S 4-2 E") == "event #4 (play): the hand is over (umpire)"  # was "... (put at #1 by fix #2)"


def test_a_tile_taken_back_cannot_be_drawn_or_laid_by_another_seat():
    """helper-199: after "N 6-6" and "N takeback 6-6" a draw of [6|6] (by N or anyone) was accepted with no
    flag, though the take-back put it in N's hand. The seat's hand is not known (no deal: a camera's table),
    but that tile is: a draw of it is refused as the draw of a tile of a known hand is, and so is another
    seat's play or reveal of it. N may lay it again; then it is on the table."""
    rules = load_ruleset("draw")  # N and S, a boneyard
    h = Hand(rules)
    h.append(parse_event("N 6-6"))
    h.append(parse_event("N takeback 6-6"))
    assert h.state.known == {"N": None, "S": None} and h.state.counts == {"N": 7, "S": 7}
    for seat in "NS":
        assert _refusal(h, f"{seat} draw 6-6") == "event #2 (draw): 6-6 drawn but it is in N's hand: N took it back at #1"
    assert _refusal(h, "S draw 5-5 6-6") == "event #2 (draw): 6-6 drawn but it is in N's hand: N took it back at #1"
    assert _refusal(h, "S 6-6") == "event #2 (play): 6-6 is in N's hand, not S's (N took it back at #1)"
    assert _refusal(h, "S reveal 6-6") == "event #2 (reveal): S reveals 6-6, which N took back at #1"
    assert h.state.boneyard == 14 and h.state.counts == {"N": 7, "S": 7}
    h.append(parse_event("S draw 5-5"))  # another tile is drawn as before
    assert h.state.boneyard == 13 and h.state.counts == {"N": 7, "S": 8}
    h.append(parse_event("N 6-6"))  # laid again by N: no longer in a hand, on the table
    assert _refusal(h, "S draw 6-6") == "event #4 (draw): 6-6 drawn but it is on the table: N laid it at #3"
    # a dealt hand that became unknown (an unseen draw) still holds the tile it took back
    deal = "deal N 6-6 6-5 6-4 6-3 6-2 6-1 6-0 / S 5-5 5-4 5-3 5-2 5-1 5-0 4-4"
    h = Hand(rules)
    for line in (deal, "N 6-6", "N takeback 6-6", "N draw 1"):
        h.append(parse_event(line))
    assert h.state.known["N"] is None
    assert _refusal(h, "S draw 6-6") == "event #4 (draw): 6-6 drawn but it is in N's hand: N took it back at #2"
    # voiding the take-back puts the tile back on the table: the draw is refused as a tile on the table
    h.append(parse_event("void 2"))
    assert _refusal(h, "S draw 6-6") == "event #5 (draw): 6-6 drawn but it is on the table: N laid it at #1"


def test_a_camera_play_read_unsure_and_taken_back_does_not_bind_the_tile_to_that_seat():
    """helper-220 f_mix: the camera read a 6-4 at 0.08 on W, the next photo lacked it (a take-back), and S's
    real 6-4 laid later was refused as "in N's hand". A play read under UNSURE_READ may be a misread: its
    take-back holds no tile for the seat, so another seat may lay it; a play read surely, or typed in (no
    confidence), binds it as before (a real take-back)."""
    rules = load_ruleset("draw")  # N and S; no spinner: 6-6 has ends W 6, E 6
    for confidence, bound in ((0.08, False), (0.49, False), (0.5, True), (0.92, True), (None, True)):
        h = Hand(rules)
        h.append(parse_event("N 6-6"))
        h.append(Play(seat="S", tile=[6, 5], end="E", confidence=confidence))
        h.append(parse_event("S takeback 6-5"))
        h.append(parse_event("S 6-4 E"))  # S's turn again: S plays another tile
        assert h.state.taken_back == ({(6, 5): "S"} if bound else {}), confidence
        if bound:
            assert _refusal(h, "N 6-5 W") == "event #4 (play): 6-5 is in S's hand, not N's (S took it back at #2)"
        else:
            out = h.append(parse_event("N 6-5 W"))  # N's turn, W shows 6: a clean play
            assert [f.kind for f in out.flags] == [] and h.state.layout.open_ends() == {"W": 5, "E": 4}


def test_a_reveal_that_leaves_out_a_tile_taken_back_is_flagged():
    """helper-205: "S takeback 6-4", then S's reveal at the end without 6-4 (and no play of it since) was scored
    with no word. The take-back put 6-4 in S's hand; seed 000 counts "the remaining dominoes" of each hand, so
    the reveal is flagged for the umpire (``reveal_leaves_out``), not refused: the recorded reveal stands, as a
    play of a tile the deal did not give is flagged (``tile_not_in_hand``). Hands unseen (no deal line)."""
    rules = load_ruleset("block")  # N and S, no boneyard
    lines = ["N 6-6",           # #0 ends 6|6
             "S 6-4 E",         # #1 ends 6|4
             "S takeback 6-4",  # #2 back in S's hand: ends 6|6, S to play again
             "S 6-5 E",         # #3 ends 6|5
             "N 5-5 E",         # #4 ends 6|5 (a double on E)
             "S pass", "N pass"]  # #5 #6 a round of passes, hands unknown: locked, awaiting the reveals
    reveals = ["N reveal 1-1 1-2 1-3 1-4 1-0",       # #7 N holds 7 - 2 = 5 tiles: 2+3+4+5+1 = 15
               "S reveal 2-2 2-3 2-4 2-5 2-0 3-3"]   # #8 S holds 7 - 1 = 6: 4+5+6+7+2+6 = 30, no 6-4
    st = replay(rules, ev(*lines, *reveals))
    (flag,) = [f for f in st.flags if f.kind == "reveal_leaves_out"]
    assert (flag.seat, flag.message) == ("S", "S's reveal leaves out 6-4, taken back at #2")
    assert flag.details == {"tiles": [[6, 4]]}
    assert st.outcomes[8].flags == [flag] and st.outcomes[7].flags == []
    assert st.result.kind == "locked" and st.result.remaining == {"N": 15, "S": 30}  # scored as revealed
    # a reveal showing 6-4 says nothing: 4+5+6+7+2+10 = 34
    st = replay(rules, ev(*lines, reveals[0], "S reveal 2-2 2-3 2-4 2-5 2-0 6-4"))
    assert "reveal_leaves_out" not in kinds(st) and st.result.remaining == {"N": 15, "S": 34}
    # laid again after the take-back: no longer in S's hand, nothing to flag
    again = ["N 6-6", "S 6-4 E", "S takeback 6-4", "S 6-4 E", "N 4-4 E", "S pass", "N pass"]
    st = replay(rules, ev(*again, *reveals))
    assert "reveal_leaves_out" not in kinds(st) and st.result.remaining == {"N": 15, "S": 30}


def test_a_reveal_that_leaves_out_an_exposed_or_dealt_tile_is_flagged():
    """helper-205: the same for the other tiles the record knows a seat holds: one it exposed during play and
    has not laid (seed 001: it "must remain face-up on the table"), and one of its dealt hand; each named with
    the event that put it there. Several are named in one flag."""
    rules = load_ruleset("block")
    st = replay(rules, ev("N 6-6", "N reveal 1-1", "S 6-5 E", "N 5-5 E", "S pass", "N pass",
                          "N reveal 1-2 1-3 1-4 1-0 0-0",     # #6 five tiles, 1-1 left out
                          "S reveal 2-2 2-3 2-4 2-5 2-0 3-3"))
    (flag,) = [f for f in st.flags if f.kind == "reveal_leaves_out"]
    assert (flag.seat, flag.message) == ("N", "N's reveal leaves out 1-1, exposed at #1")
    assert st.outcomes[6].flags == [flag]
    # a dealt hand: N's reveal shows 0-0 for 1-0 and 2-2 for 1-1 (dealt at #0)
    deal = "deal N 6-6 5-5 1-1 1-2 1-3 1-4 1-0 / S 6-5 2-2 2-3 2-4 3-4 2-0 3-3"  # no 5 in S's hand
    st = replay(rules, ev(deal, "N 6-6", "S 6-5 E", "N 5-5 E", "S pass", "N pass",
                          "N reveal 0-0 1-2 1-3 1-4 4-4"))
    (flag,) = [f for f in st.flags if f.kind == "reveal_leaves_out"]
    assert flag.message == "N's reveal leaves out 1-1, dealt at #0; 1-0, dealt at #0"
    assert flag.details == {"tiles": [[1, 1], [1, 0]]}
    assert st.result.remaining == {"N": 15, "S": 30}  # locked from the dealt hands before the reveal, as it stands


def test_a_short_reveal_that_leaves_out_a_tile_taken_back_counts_it():
    """helper-209: "S takeback 6-4", then S's reveal at the end without 6-4 and one tile short was refused with a
    bare count ("S holds 6 tiles, the reveal shows 5"), though docs/rules.md promised a flag. S holds 6-4 by the
    record and the reveal is short by exactly it: flagged ``reveal_leaves_out`` and 6-4 is counted with the
    tiles shown, as an umpire counts a tile everyone saw taken back. Any other count is refused, naming it."""
    rules = load_ruleset("block")  # N and S, no boneyard; hands unseen
    lines = ["N 6-6", "S 6-4 E", "S takeback 6-4", "S 6-5 E", "N 5-5 E", "S pass", "N pass",
             "N reveal 1-1 1-2 1-3 1-4 1-0"]  # #7 N: 2+3+4+5+1 = 15 pips
    st = replay(rules, ev(*lines, "S reveal 2-2 2-3 2-4 2-5 2-0"))  # #8 5 of S's 6 tiles: 4+5+6+7+2 = 24
    (flag,) = st.outcomes[8].flags
    assert (flag.kind, flag.seat, flag.message) == (
        "reveal_leaves_out", "S", "S's reveal leaves out 6-4, taken back at #2; S holds 6 tiles, the reveal shows 5: "
        "6-4 is counted as S's")
    assert flag.details == {"tiles": [[6, 4]], "counted": True}
    # S's pips: 24 + 10 (6-4) = 34; N holds the fewest (15) and takes S's 34 (block, pagat)
    assert (st.result.kind, st.result.remaining, st.result.awards) == ("locked", {"N": 15, "S": 34},
                                                                       {"N": 34, "S": 0})
    assert st.revealed["S"][-1] == Tile(6, 4)
    # two tiles short: 6-4 does not make up the count, so it is refused, with the tile named
    with pytest.raises(IllegalEvent, match=re.escape("event #8 (reveal): S holds 6 tiles, the reveal shows 4; it "
                                                     "leaves out 6-4, taken back at #2")):
        replay(rules, ev(*lines, "S reveal 2-2 2-3 2-4 2-5"))
    # nothing known left out: the bare count, as before
    with pytest.raises(IllegalEvent, match=re.escape("event #8 (reveal): S holds 6 tiles, the reveal shows 5")):
        replay(rules, ev(*lines, "S reveal 2-2 2-3 2-4 2-5 6-4"))


def test_a_reveal_of_a_tile_not_in_the_known_hand_is_flagged():
    """helper-209: with the deal known, "N reveal 5-5" of a tile the deal left in the boneyard said only "N exposed
    5-5" (a play of it is ``tile_not_in_hand``); at the end, "S reveal ... 1-1" of a tile never dealt to S said
    nothing of 1-1. Both are flagged ``tile_not_in_hand`` now, naming where the tile lies when every other hand
    is known, and the hand is no longer trusted, as after such a play: its tiles are counted from the reveal."""
    # during play: N (1-0 2-0 dealt) exposes 3-3, which is in the boneyard (both hands known, draws counted)
    draw = load_ruleset("draw").model_copy(update={"hand_size": 2})  # 28 - 4 = 24 in the boneyard
    lines = ["deal N 1-0 2-0 / S 6-6 6-5",  # #0
             "S 6-6",                        # #1 ends 6|6
             "N reveal 3-3",                 # #2 exposed: not N's by the deal
             "N draw 6-1", "N 6-1 E",        # #3 #4 ends 6|1
             "S 6-5 W"]                      # #5 S goes out
    st = replay(draw, ev(*lines))
    assert [(f.kind, f.message) for f in st.outcomes[2].flags] == [
        ("exposed_tile", "N exposed 3-3"),
        ("tile_not_in_hand", "N exposed 3-3, which N does not hold (N holds 1-0 2-0): it is in the boneyard")]
    assert st.outcomes[2].flags[1].details == {"tiles": [[3, 3]]}
    # N's dealt hand is no longer trusted: the domino waits for N's reveal (it was scored S +3 from 1-0 2-0)
    assert st.known["N"] is None and st.result is None and st.pending_end == ("domino", "S", "S")
    st = replay(draw, ev(*lines, "N reveal 1-0 3-3"))  # N's 2 tiles: 1 + 6 = 7 pips, S takes them
    assert (st.result.remaining, st.result.awards) == ({"N": 7, "S": 0}, {"N": 0, "S": 7})
    assert st.outcomes[6].flags == []
    # the same tile in S's dealt hand is refused, as before
    with pytest.raises(IllegalEvent, match=re.escape("event #2 (reveal): N reveals 6-5, which is in S's hand: S was "
                                                     "dealt it at #0")):
        replay(draw, ev(*lines[:2], "N reveal 6-5"))
    # a tile on the table: who laid it and when, as a draw's refusal says it (helper-214)
    with pytest.raises(IllegalEvent, match=re.escape("event #2 (reveal): N reveals 6-6, which is on the table: S "
                                                     "laid it at #1")):
        replay(draw, ev(*lines[:2], "N reveal 6-6"))

    # at the end, both hands known: the lock is scored from them at once; S's reveal shows 3-3 for its 2-2
    block = load_ruleset("block").model_copy(update={"hand_size": 2})  # no boneyard: 24 tiles not dealt
    lines = ["deal N 6-6 1-0 / S 6-5 2-2", "N 6-6", "S 6-5 E", "N pass", "S pass"]  # locked: N 1 pip, S 4
    st = replay(block, ev(*lines, "N reveal 1-0", "S reveal 3-3"))
    assert [(f.kind, f.message) for f in st.outcomes[6].flags] == [
        ("tile_not_in_hand", "S revealed 3-3, which S does not hold (S holds 2-2): it is among the tiles not dealt"),
        ("reveal_leaves_out", "S's reveal leaves out 2-2, dealt at #0")]
    assert st.outcomes[5].flags == []
    # scored at the lock from the dealt hands (N +4, S's 2-2); the reveal leaves that score as it was
    assert (st.result.kind, st.result.remaining, st.result.awards) == ("locked", {"N": 1, "S": 4}, {"N": 4, "S": 0})
    assert st.outcomes[4].points == {"N": 4} and all(not o.points for o in st.outcomes[5:])

    # the hand awaits S's reveal (S's hand unseen): N's reveal of 3-0 for its dealt 1-0 is flagged, no place
    # named (3-0 may be S's), and counted as shown: N 3 pips, S 4 (2-2), N +4
    lines = ["deal N 6-6 1-0", "N 6-6", "S 6-5 E", "N pass", "S pass"]
    st = replay(block, ev(*lines, "N reveal 3-0", "S reveal 2-2"))
    assert [(f.kind, f.message) for f in st.outcomes[5].flags] == [
        ("tile_not_in_hand", "N revealed 3-0, which N does not hold (N holds 1-0)"),
        ("reveal_leaves_out", "N's reveal leaves out 1-0, dealt at #0")]
    assert (st.result.kind, st.result.remaining, st.result.awards) == ("locked", {"N": 3, "S": 4}, {"N": 4, "S": 0})


def test_a_tile_exposed_during_play_cannot_be_drawn_or_laid_by_another_seat():
    """helper-205: after "N reveal 6-5" during play (an exposed tile: seed 001, it "must remain face-up on the
    table and play at first chance") a draw of 6-5, by anyone, was accepted: the tile is known to be in N's
    hand though N's hand is not known. Refused as the draw of a tile taken back is, and so are another seat's
    play and reveal of it; once N lays it, it is on the table."""
    rules = load_ruleset("draw")  # N and S, 28 - 14 = 14 in the boneyard
    h = Hand(rules)
    h.append(parse_event("N 6-6"))     # #0
    h.append(parse_event("N reveal 6-5"))  # #1 exposed (shown during play)
    assert [f.kind for f in h.state.outcomes[-1].flags] == ["exposed_tile"]
    for seat in "NS":
        assert _refusal(h, f"{seat} draw 6-5") == "event #2 (draw): 6-5 drawn but it is in N's hand: N exposed it at #1"
    assert _refusal(h, "S draw 4-4 6-5") == "event #2 (draw): 6-5 drawn but it is in N's hand: N exposed it at #1"
    assert _refusal(h, "S 6-5 W") == "event #2 (play): 6-5 is in N's hand, not S's (N exposed it at #1)"
    assert _refusal(h, "S reveal 6-5 4-4") == "event #2 (reveal): S reveals 6-5, which N exposed at #1"
    assert h.state.boneyard == 14 and h.state.counts == {"N": 6, "S": 7}
    h.append(parse_event("S draw 4-4"))  # #2 another tile is drawn as before
    h.append(parse_event("S pass"))      # #3
    h.append(parse_event("N 6-5 W"))     # #4 laid: on the table now
    assert _refusal(h, "S draw 6-5") == "event #5 (draw): 6-5 drawn but it is on the table: N laid it at #4"
    h.append(parse_event("N takeback 6-5"))  # #5 back in N's hand by the take-back
    assert _refusal(h, "S draw 6-5") == "event #6 (draw): 6-5 drawn but it is in N's hand: N took it back at #5"
    # the exposure voided: nothing says where 6-5 is, and it may be drawn
    h = Hand(rules)
    for line in ("N 6-6", "N reveal 6-5", "void 1"):
        h.append(parse_event(line))
    h.append(parse_event("S draw 6-5"))
    assert h.state.boneyard == 13 and h.state.counts == {"N": 6, "S": 8}
