"""Scoring arithmetic: what a play scores, how end-of-hand pips are rounded, lock awards.

Expected values are worked out by hand from the seed texts and pagat.com; each comment
shows the arithmetic.
"""

from __future__ import annotations

import pytest

from engine.scoring import lock_awards, play_points, round_points


# ---- per-play points -----------------------------------------------------------------------

@pytest.mark.parametrize("ends,expected", [
    (5, 5), (10, 10), (15, 15), (20, 20), (25, 25), (30, 30), (35, 35),  # seed 000: 5 .. 35 score
    (0, 0), (4, 0), (7, 0), (12, 0), (33, 0),
])
def test_total_scale_scores_multiples_of_five_only(ends, expected):
    assert play_points(ends, "total") == expected


@pytest.mark.parametrize("ends,expected", [(5, 1), (10, 2), (15, 3), (35, 7), (12, 0), (0, 0)])
def test_fives_divided_scale_scores_one_point_per_five(ends, expected):
    # seed 004 variation: "one point every time ... a multiple of 5": 15 -> 15 / 5 = 3
    assert play_points(ends, "fives_divided") == expected


@pytest.mark.parametrize("ends,expected", [
    (15, 8),   # 15/5 = 3 plus 15/3 = 5: 8 (pagat), not 3 and not 5
    (30, 16),  # 30/5 = 6 plus 30/3 = 10
    (10, 2),   # 10/5
    (9, 3),    # 9/3
    (12, 4),   # 12/3
    (3, 1),
    (7, 0), (11, 0), (0, 0),
])
def test_fives_and_threes_scale(ends, expected):
    assert play_points(ends, "fives_and_threes") == expected


def test_unknown_scale_is_refused():
    with pytest.raises(ValueError, match="end_score_scale"):
        play_points(10, "sevens")


# ---- rounding at the end of a hand ---------------------------------------------------------------

@pytest.mark.parametrize("pips,expected", [
    (22, 20), (23, 25), (52, 50), (53, 55),  # seed 000's four examples
    (1, 0), (2, 0),                           # seed 004: "1 or 2 pips is worth nothing"
    (3, 5), (4, 5), (5, 5), (6, 5), (7, 5),   # "3, 4, 5, 6, and 7 is worth 5 points"
    (8, 10), (9, 10), (10, 10), (11, 10), (12, 10),  # "8, 9, 10, 11, and 12 is worth 10 points"
    (0, 0), (168, 170),
])
def test_nearest_five(pips, expected):
    assert round_points(pips, "nearest5") == expected


def test_other_roundings_and_negative_values():
    assert [round_points(n, "down5") for n in (22, 23, 25, 29)] == [20, 20, 25, 25]
    assert [round_points(n, "up5") for n in (21, 25, 26)] == [25, 25, 30]
    assert round_points(23, "exact") == 23
    # symmetric for deductions: -23 -> -25, -22 -> -20
    assert (round_points(-23, "nearest5"), round_points(-22, "nearest5")) == (-25, -20)
    with pytest.raises(ValueError):
        round_points(5, "nearest3")


# ---- locked hands ------------------------------------------------------------------------------------

SOLO2 = {"N": "N", "S": "S"}
TEAMS = {"N": "NS", "S": "NS", "E": "EW", "W": "EW"}
SOLO3 = {"N": "N", "E": "E", "S": "S"}


def lock(pips, sides, **kw):
    kw.setdefault("tie_rule", "no_score")
    kw.setdefault("rounding", "exact")
    return lock_awards(pips, sides, **kw)


def test_lowest_individual_takes_the_opponents_pips_rounded():
    # seed 000: N 12 < S 23: N wins S's 23 -> nearest 5 = 25
    r = lock({"N": 12, "S": 23}, SOLO2, winner_rule="lowest_individual", points_rule="opponents_pips",
             rounding="nearest5")
    assert (r.winner, r.tie, r.awards) == ("N", False, {"N": 25, "S": 0})


def test_lowest_team_total_wins_even_when_the_lowest_hand_is_on_the_other_side():
    # seed 003: NS = N 7 + S 40 = 47, EW = E 28 + W 15 = 43: EW wins although N holds the fewest;
    # all pips on the table: 47 + 43 = 90
    pips = {"N": 7, "S": 40, "E": 28, "W": 15}
    r = lock(pips, TEAMS, winner_rule="lowest_team", points_rule="all_pips")
    assert (r.winner, r.awards) == ("EW", {"NS": 0, "EW": 90})
    # the same hands under lowest_individual: N's 7 is lowest, NS wins the opponents' 28 + 15 = 43
    r = lock(pips, TEAMS, winner_rule="lowest_individual", points_rule="opponents_pips")
    assert (r.winner, r.awards) == ("NS", {"NS": 43, "EW": 0})


def test_a_locks_note_says_what_its_award_counts_and_its_rounding():
    """helper-253: ``locked S (lowest 6 pips)`` beside ``S+10`` did not say that S scored N's 8 pips, rounded
    up, as a domino's note says the pips left. The note names the pips the award counts, before rounding."""
    # lisa-b: S 6 < N 8; S takes N's 8, nearest 5 -> 10
    r = lock({"N": 8, "S": 6}, SOLO2, winner_rule="lowest_individual", points_rule="opponents_pips",
             rounding="nearest5")
    assert (r.awards, r.note) == ({"N": 0, "S": 10}, "lowest 6 pips; N's 8 pips, rounded to 10")
    # exact: no rounding said; a team's pips by its side's name (NS 7 + 38 = 45 < EW 15 + 40 = 55)
    r = lock({"N": 7, "S": 38, "W": 15, "E": 40}, TEAMS, winner_rule="lowest_team", points_rule="opponents_pips")
    assert (r.awards, r.note) == ({"NS": 55, "EW": 0}, "lowest 45 pips; EW's 55 pips")
    # three hands: N 5 < E 9 < S 20 takes 9 + 20 = 29, rounded down to 25 under down5
    r = lock({"N": 5, "E": 9, "S": 20}, SOLO3, winner_rule="lowest_individual", points_rule="opponents_pips",
             rounding="down5")
    assert r.note == "lowest 5 pips; 29 pips in the other hands (E 9, S 20), rounded to 25" and r.awards["N"] == 25
    # all the pips (5 + 9 + 20 = 34); the difference (N 1 pip, S 8: 8 - 1 = 7); nothing counted: no basis
    r = lock({"N": 5, "E": 9, "S": 20}, SOLO3, winner_rule="lowest_individual", points_rule="all_pips")
    assert (r.awards["N"], r.note) == (34, "lowest 5 pips; all 34 pips left")
    r = lock({"N": 1, "S": 8}, SOLO2, winner_rule="lowest_individual", points_rule="difference")
    assert (r.awards, r.note) == ({"N": 7, "S": 0}, "lowest 1 pip; S's 8 pips less N's 1")
    r = lock({"N": 1, "S": 8}, SOLO2, winner_rule="lowest_individual", points_rule="none")
    assert (r.awards, r.note) == ({"N": 0, "S": 0}, "lowest 1 pip")


def test_locker_plays_against_the_player_to_the_right_only():
    # seed 001: W locks against S (his right): W 15 < S 28 -> EW wins, though N (7) is lowest overall;
    # all pips 7 + 15 + 28 + 40 = 90
    pips = {"N": 7, "W": 15, "S": 28, "E": 40}
    r = lock(pips, TEAMS, winner_rule="locker_vs_right", points_rule="all_pips", locker="W", right_of_locker="S")
    assert (r.winner, r.awards) == ("EW", {"NS": 0, "EW": 90})
    with pytest.raises(ValueError, match="locker"):
        lock(pips, TEAMS, winner_rule="locker_vs_right", points_rule="all_pips")


def test_a_tied_lock_scores_nothing_under_no_score():
    # seed 003: NS 7 + 38 = 45, EW 15 + 30 = 45
    r = lock({"N": 7, "S": 38, "W": 15, "E": 30}, TEAMS, winner_rule="lowest_team", points_rule="all_pips")
    assert (r.winner, r.tie, r.awards) == (None, True, {"NS": 0, "EW": 0})


def test_tie_rules_locker_and_leading_team_pick_a_side_among_the_tied():
    pips = {"N": 10, "S": 10}
    r = lock(pips, SOLO2, winner_rule="lowest_individual", points_rule="opponents_pips",
             tie_rule="locker", locker="S")
    # S locked: S takes N's 10
    assert (r.winner, r.awards) == ("S", {"N": 0, "S": 10})
    r = lock(pips, SOLO2, winner_rule="lowest_individual", points_rule="opponents_pips",
             tie_rule="leading_team", leading_side="N")
    assert (r.winner, r.awards) == ("N", {"N": 10, "S": 0})
    # no leading side known: nobody scores
    r = lock(pips, SOLO2, winner_rule="lowest_individual", points_rule="opponents_pips", tie_rule="leading_team")
    assert (r.winner, r.tie, r.awards) == (None, True, {"N": 0, "S": 0})


def test_three_handed_tie_splits_the_opponents_pips():
    # seed 004: N 5 and E 5 tie, S holds 20: "split evenly between them": 20 / 2 = 10 each
    r = lock({"N": 5, "E": 5, "S": 20}, SOLO3, winner_rule="lowest_individual", points_rule="opponents_pips",
             tie_rule="split", rounding="nearest5")
    assert (r.tie, r.awards) == (True, {"E": 10, "N": 10, "S": 0})


def test_difference_cascade_scores_each_player_against_those_above():
    # seed 004 blocked hand: N 5, E 10, S 22
    # N: (10 - 5) + (22 - 5) = 5 + 17 = 22 -> 20; E: 22 - 10 = 12 -> 10; S: nothing
    r = lock({"N": 5, "E": 10, "S": 22}, SOLO3, winner_rule="lowest_individual",
             points_rule="difference_cascade", rounding="nearest5")
    assert (r.winner, r.awards) == ("N", {"E": 10, "N": 20, "S": 0})
    # two players: the difference 22 - 5 = 17 -> 15
    r = lock({"N": 5, "S": 22}, SOLO2, winner_rule="lowest_individual", points_rule="difference_cascade",
             rounding="nearest5")
    assert r.awards == {"N": 15, "S": 0}


def test_difference_cascade_with_partners_is_player_by_player():
    """helper-119: "Players must play individually, but a common score is kept for partners" (seed 004):
    N 43, E 8, S 6, W 18. S: (8 - 6) + (18 - 6) = 14 -> 15; E: 43 - 8 = 35; W: 43 - 18 = 25; N: none.
    NS 15, EW 35 + 25 = 60 (team totals NS 49 / EW 26 gave EW 25 and NS, the lowest player's, nothing)."""
    r = lock({"N": 43, "E": 8, "S": 6, "W": 18}, TEAMS, winner_rule="lowest_individual",
             points_rule="difference_cascade", rounding="nearest5")
    assert (r.winner, r.awards) == ("NS", {"EW": 60, "NS": 15})


def test_difference_and_none():
    # difference: 22 - 5 = 17, exact
    r = lock({"N": 5, "S": 22}, SOLO2, winner_rule="lowest_individual", points_rule="difference")
    assert r.awards == {"N": 17, "S": 0}
    # none (seed 002 ranks by pips): a winner, no points
    r = lock({"N": 5, "S": 22}, SOLO2, winner_rule="lowest_individual", points_rule="none")
    assert (r.winner, r.awards) == ("N", {"N": 0, "S": 0})
