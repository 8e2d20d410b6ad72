"""Every scoring rule of each seed, with values computed by hand.

Hands are written in the text notation (``engine/notation.py``), tiles touching-half first.
Each test's comments carry the arithmetic: the open ends after each play (W/E the line,
N/S a spinner's arms) and the sums that score. Where a seed is ambiguous the comment
says which reading the test takes (seed text, then ``shared/docs/rule-variants.md``,
then pagat.com).

Seeds: 000 ``lisa-b-all-fives``, 001 ``bdc-partnership``, 002 ``nova-block``,
003 ``jersey-partnership``, 004 ``muggins``; pagat presets at the end.
"""

from __future__ import annotations

import pytest

from engine.events import Play
from engine.hand import Hand, HandContext, IllegalEvent, replay
from engine.match import replay_match
from engine.ruleset import load_ruleset
from engine.tiles import Tile
from engine_helpers import ev, kinds, pts  # tests/engine_helpers.py


FIRST_HAND = HandContext(required_lead=Tile(6, 6))


# =====================================================================================
# Seed 000: Lisa B. All Fives (lisa-b-all-fives), 2 players N, S, clockwise
# =====================================================================================

LISA = "lisa-b-all-fives"


def test_000_spinner_hand_with_all_four_arms_and_a_double_at_an_arm_end():
    rules = load_ruleset(LISA)
    st = replay(rules, ev(
        "N 6-6",      # lone spinner 6 + 6 = 12: no score
        "S 6-3 E",    # W side of the spinner open 12, E 3: 15 -> S 15
        "N 6-4 W",    # both long sides covered, spinner no longer counts: W 4 + E 3 = 7
        "S 6-1 N",    # N arm opens: 4 + 3 + 1 = 8
        "N 6-2 S",    # all four arms: 4 + 3 + 1 + 2 = 10 -> N 10
        "S 3-3 E",    # [3-3] crosswise at E counts 6: 4 + 6 + 1 + 2 = 13
        "N 1-3 N",    # 4 + 6 + 3 + 2 = 15 -> N 15 (with one half of [3-3] it would be 12: nothing)
    ), FIRST_HAND)
    assert pts(st) == [{}, {"S": 15}, {}, {}, {"N": 10}, {}, {"N": 15}]
    assert st.layout.open_ends() == {"W": 4, "E": 3, "N": 3, "S": 2}
    assert st.scores == {"N": 25, "S": 15}  # N 10 + 15, S 15
    assert kinds(st) == []


# A later hand (N won the last one, "the controller of the domino can start with any tile"):
# 1 N 5-4 (W5 E4: 9)  2 S 4-3 E (5+3 = 8)  3 N 5-2 W (2+3 = 5 -> N 5)  4 S 3-1 E (2+1 = 3)
# 5 N 2-0 W (0+1 = 1)  6 S draws (unseen), S 1-6 E (0+6 = 6)  7 N 0-4 W (4+6 = 10 -> N 10)
# 8 S 6-2 E (4+2 = 6)  9 N 4-1 W (1+2 = 3)  10 S 2-1 E (1+1 = 2)  11 N 1-0 W (0+1 = 1)
# 12 S 0-3 W (3+1 = 4)  13 N 1-5 E (3+5 = 8): N's seventh tile, domino. N's play points: 5 + 10 = 15.
def _lisa_domino_hand(draws: int, revealed: str) -> list:
    return ev(
        "N 5-4", "S 4-3 E", "N 5-2 W", "S 3-1 E", "N 2-0 W", f"S draw {draws}", "S 1-6 E", "N 0-4 W",
        "S 6-2 E", "N 4-1 W", "S 2-1 E", "N 1-0 W", "S 0-3 W", "N 1-5 E", f"S reveal {revealed}",
    )


@pytest.mark.parametrize("draws,revealed,held,award", [
    (2, "6-6 6-4 0-0", 22, 20),                  # 12 + 10 + 0 = 22 -> 20 (seed: "holding 22 ... 20")
    (2, "6-6 6-5 0-0", 23, 25),                  # 12 + 11 + 0 = 23 -> 25
    (6, "6-6 6-5 6-4 5-5 3-2 2-2 0-0", 52, 50),  # 12+11+10+10+5+4+0 = 52 -> 50
    (6, "6-6 6-5 6-4 5-5 3-2 5-0 0-0", 53, 55),  # 12+11+10+10+5+5+0 = 53 -> 55
])
def test_000_domino_takes_the_others_pips_rounded_to_the_nearest_five(draws, revealed, held, award):
    rules = load_ruleset(LISA)
    log = _lisa_domino_hand(draws, revealed)
    before = replay(rules, log[:-1], HandContext(leader="N"))
    # hands unseen: the hand is over but waits for S's tiles
    assert before.result is None and before.pending_end is not None
    assert "awaiting_reveal" in kinds(before)
    st = replay(rules, log, HandContext(leader="N"))
    assert pts(st)[:14] == [{}, {}, {"N": 5}, {}, {}, {}, {}, {"N": 10}, {}, {}, {}, {}, {}, {}]
    res = st.result
    assert (res.kind, res.winner_seat, res.remaining) == ("domino", "N", {"N": 0, "S": held})
    assert res.awards == {"N": award, "S": 0}
    assert st.scores == {"N": 15 + award, "S": 0}
    assert res.next_leader == "N"  # "the controller of the domino can start with any tile"


def test_000_four_players_domino_counts_every_other_hand():
    # seed 000 also plays four (override players = 4, 28 tiles dealt, no boneyard); hands unseen.
    # "all of the points that are being held by the other participating players"
    rules = load_ruleset(LISA, players=4)
    # clockwise N E S W. Ends (W, E, N, S arms) after each play:
    # 1 N 6-6 (lone spinner 12)  2 E 6-5 E (12+5 = 17)  3 S 6-4 W (4+5 = 9)  4 W 6-3 N (4+5+3 = 12)
    # 5 N 6-1 S (4+5+3+1 = 13)  6 E 5-5 E (4+10+3+1 = 18)  7 S 4-4 W (8+10+3+1 = 22)
    # 8 W 3-3 N (8+10+6+1 = 25 -> W 25)  9 N 1-1 S (8+10+6+2 = 26)  10 E pass  11 S pass
    # 12 W 3-2 N (8+10+2+2 = 22)  13 N 1-0 S (8+10+2+0 = 20 -> N 20)  14 E 5-0 E (8+0+2+0 = 10 -> E 10)
    # 15 S pass  16 W 2-2 N (8+0+4+0 = 12)  17 N 0-0 S (8+0+4+0 = 12)  18 E 0-3 E (8+3+4+0 = 15 -> E 15)
    # 19 S pass  20 W 2-0 N (8+3+0+0 = 11)  21 N 0-4 S (8+3+0+4 = 15 -> N 15)
    log = ev(
        "N 6-6", "E 6-5 E", "S 6-4 W", "W 6-3 N", "N 6-1 S", "E 5-5 E", "S 4-4 W", "W 3-3 N",
        "N 1-1 S", "E pass", "S pass", "W 3-2 N", "N 1-0 S", "E 5-0 E", "S pass", "W 2-2 N",
        "N 0-0 S", "E 0-3 E", "S pass", "W 2-0 N", "N 0-4 S",
    )
    st = replay(rules, log, FIRST_HAND)
    assert sum(isinstance(e, Play) and e.seat == "N" for e in log) == 6
    assert st.result is None and st.pending_end is None  # N holds one more tile
    # 22 E pass  23 S pass  24 W pass  25 N 4-2 S (8+3+0+2 = 13): N's seventh tile, domino.
    # Left (the 10 tiles off the table): E 3 tiles, S 5, W 2.
    log += ev("E pass", "S pass", "W pass", "N 4-2 S",
              "E reveal 6-2 2-1 4-1", "S reveal 5-4 5-3 5-2 4-3 6-0", "W reveal 5-1 3-1")
    st = replay(rules, log, FIRST_HAND)
    # E 8+3+5 = 16; S 9+8+7+7+6 = 37; W 6+4 = 10; all others: 16 + 37 + 10 = 63 -> 65
    assert st.result.remaining == {"N": 0, "E": 16, "S": 37, "W": 10}
    assert st.result.awards == {"N": 65, "E": 0, "S": 0, "W": 0}
    # play points: N 20 + 15 = 35, E 10 + 15 = 25, W 25 (no all-pass bonus in seed 000)
    assert st.scores == {"N": 35 + 65, "E": 25, "S": 0, "W": 25}


# The lock line: both ends (and the spinner's arms) end on 6 with all seven 6s on the table.
# 1 N 6-6  2 S 6-5 E  3 N 6-1 W  4 S 5-4 E  5 N 1-0 W  6 S 4-6 E  7 N 0-6 W  8 S 6-3 E  9 N 3-2 E  10 S 2-6 E
LISA_LOCK = ["N 6-6", "S 6-5 E", "N 6-1 W", "S 5-4 E", "N 1-0 W", "S 4-6 E", "N 0-6 W", "S 6-3 E", "N 3-2 E",
             "S 2-6 E"]


def test_000_locked_hand_lowest_pips_win_the_others_and_double_six_leads_next():
    rules = load_ruleset(LISA)
    st = replay(rules, ev(*LISA_LOCK, "N reveal 1-1 2-0", "S reveal 5-5 4-3"), FIRST_HAND)
    # N 2 + 2 = 4, S 10 + 7 = 17: N wins S's 17 -> 15; "No one has domino"
    assert (st.result.kind, st.result.winner_seat) == ("locked", "N")
    assert st.result.remaining == {"N": 4, "S": 17}
    assert st.result.awards == {"N": 15, "S": 0}
    # "In the case of a locked game, double six starts the next hand."
    assert st.result.next_leader is None and st.result.next_required_lead == Tile(6, 6)


def test_000_tied_lock_scores_nothing_and_double_six_still_leads():
    rules = load_ruleset(LISA)
    st = replay(rules, ev(*LISA_LOCK, "N reveal 1-1 2-0", "S reveal 3-1 0-0"), FIRST_HAND)
    # N 2 + 2 = 4, S 4 + 0 = 4: tie, no score (engine default lock_tie = no_score; the seed is silent)
    assert st.result.winner_seat is None and st.result.awards == {"N": 0, "S": 0}
    assert st.result.next_required_lead == Tile(6, 6)


def test_000_locked_hand_next_hand_must_open_with_double_six_in_the_match():
    rules = load_ruleset(LISA)
    first = ev(*LISA_LOCK, "N reveal 1-1 2-0", "S reveal 5-5 4-3")
    # N won the lock, but the next hand is led by [6-6]; a 5-4 lead is a wrong start
    match = replay_match(rules, [first, ev("N 5-4")])
    assert "wrong_start" in kinds(match.games[0].hands[1])
    match = replay_match(rules, [first, ev("S 6-6")])
    assert kinds(match.games[0].hands[1]) == []


def test_000_first_hand_opens_with_the_highest_double_when_double_six_is_asleep():
    rules = load_ruleset(LISA)
    deal = "deal N 6-5 6-4 4-4 3-2 2-1 1-0 5-3 / S 5-5 6-3 6-2 5-4 4-3 3-1 2-0"
    # no [6-6] dealt: "go to the next lowest double": [5-5], held by S
    st = replay(rules, ev(deal), FIRST_HAND)
    assert st.turn == "S"
    st = replay(rules, ev(deal, "N 4-4"), FIRST_HAND)
    assert {"wrong_start", "out_of_turn"} <= set(kinds(st))
    st = replay(rules, ev(deal, "S 5-5"), FIRST_HAND)
    assert kinds(st) == []


def test_000_no_double_dealt_means_fold_and_deal_again():
    rules = load_ruleset(LISA)
    st = replay(rules, ev("deal N 6-5 6-4 6-3 6-2 6-1 6-0 5-4 / S 5-3 5-2 5-1 5-0 4-3 4-2 4-1"), FIRST_HAND)
    assert st.result.kind == "redeal"
    assert st.result.next_required_lead == Tile(6, 6)


def test_000_bogus_play_is_a_flag_then_minus_25_and_a_redeal():
    rules = load_ruleset(LISA)
    log = ev("N 5-4", "S 3-2 E", "N 2-6 E")  # S's [3-2] does not match E (4); the record goes on
    st = replay(rules, log, HandContext(leader="N"))
    flag = next(f for f in st.flags if f.kind == "mismatched_end")
    assert flag.seat == "S" and flag.details["end_value"] == 4 and flag.details["tile"] == [3, 2]
    assert st.layout.open_ends() == {"W": 5, "E": 6}
    # the umpire confirms: S -25, "all hands are folded and tiles are remixed", N (who held domino) leads
    st = replay(rules, log + ev("S penalty bogus_play"), HandContext(leader="N"))
    assert st.scores == {"N": 0, "S": -25}
    assert (st.result.kind, st.result.next_leader) == ("redeal", "N")
    # "The player making the bogus play cannot hold domino": when the leader is the infractor,
    # the next player (to the left, clockwise) leads
    st = replay(rules, ev("N 5-4", "S 4-1 E", "N 3-2 E", "N penalty bogus_play"), HandContext(leader="N"))
    assert (st.scores, st.result.next_leader) == ({"N": -25, "S": 0}, "S")


def test_000_bogus_play_confirmed_after_the_domino_still_folds_the_hand():
    rules = load_ruleset(LISA)
    hand = _lisa_domino_hand(2, "6-6 6-4 0-0")  # N: 15 in plays, then the domino for 20
    st = replay(rules, hand, HandContext(leader="N"))
    assert st.scores == {"N": 35, "S": 0} and st.result.kind == "domino"
    # "This can be called at any time during that hand ... Once confirmed, all hands are folded": the
    # umpire confirms S's call after N went out; the domino is void, the points called in play stand
    st = replay(rules, hand + ev("S penalty bogus_play"), HandContext(leader="N"))
    assert st.scores == {"N": 15, "S": -25}
    assert (st.result.kind, st.result.next_leader, st.result.awards) == ("redeal", "N", {})
    assert st.result.note == "bogus_play by S; the domino is void"
    assert st.outcomes[-1].points == {"N": -20, "S": -25} and st.outcomes[-1].result is st.result
    # the hand is folded once: a second confirmed call costs its points only
    st = replay(rules, hand + ev("S penalty bogus_play", "N penalty bogus_play"), HandContext(leader="N"))
    assert st.scores == {"N": -10, "S": -25} and st.result.note == "bogus_play by S; the domino is void"
    # confirmed while the hand waits for S's reveal: folded, nothing left to wait for
    st = replay(rules, hand[:-1] + ev("S penalty bogus_play"), HandContext(leader="N"))
    assert st.pending_end is None and st.result.kind == "redeal" and st.scores == {"N": 15, "S": -25}
    # the infractor held domino: the lead of the new deal passes to the left
    st = replay(rules, hand + ev("N penalty bogus_play"), HandContext(leader="N"))
    assert (st.scores, st.result.next_leader) == ({"N": -10, "S": 0}, "S")


def test_000_a_voided_domino_never_won_the_game():
    # helper-73: with the target at 30, N's domino (15 in play + 20) ended the game at once, and the
    # bogus play confirmed after it folded the hand but left N the game's winner
    rules = load_ruleset(LISA).model_copy(update={"target": 30})
    hand = _lisa_domino_hand(2, "6-6 6-4 0-0")
    match = replay_match(rules, [hand])
    assert (match.games[0].winner, match.games[0].scores) == ("N", {"N": 35, "S": 0})
    match = replay_match(rules, [hand + ev("S penalty bogus_play")])
    game = match.games[0]
    assert game.ended_by is None and game.scores == {"N": 15, "S": -25}


def test_000_the_deal_after_a_bogus_play_is_led_by_the_named_seat_with_any_tile():
    # helper-73: hand 1 was opened with [5-5] (the 6-6 asleep) and folded for S's bogus play; the new
    # deal is led by N ("the player that held domino before the bogus play goes first"), not with [5-5]
    rules = load_ruleset(LISA)
    deal = "deal N 6-5 6-4 5-5 3-2 2-1 1-0 5-3 / S 4-4 6-3 6-2 5-4 4-3 3-1 2-0"
    first = ev(deal, "N 5-5", "S 5-4 E", "N 4-6 E", "S penalty bogus_play")
    match = replay_match(rules, [first, ev("deal N 6-6 6-5 6-4 3-2 2-1 1-0 5-3 / S 5-5 6-3 6-2 5-4 4-3 3-1 2-0",
                                           "N 6-4")])
    hand2 = match.games[0].hands[1]
    assert hand2.context.leader == "N" and hand2.context.required_lead is None
    assert kinds(hand2) == []


def test_000_drawing_or_passing_with_a_legal_play_is_flagged_and_costs_50():
    rules = load_ruleset(LISA)
    deal = "deal N 5-4 6-6 6-5 3-3 2-2 1-1 0-0 / S 4-1 6-3 6-2 5-3 3-2 3-1 2-0"
    # S holds [4-1] for E (4) and [5-3] for W (5) but draws
    st = replay(rules, ev(deal, "N 5-4", "S draw 6-4"), HandContext(leader="N"))
    assert [f.kind for f in st.flags] == ["draw_with_play"]
    st = replay(rules, ev(deal, "N 5-4", "S draw 6-4", "S penalty draw_with_play"), HandContext(leader="N"))
    assert st.scores == {"N": 0, "S": -50} and st.result.kind == "redeal"
    st = replay(rules, ev(deal, "N 5-4", "S pass", "S penalty pass_with_play"), HandContext(leader="N"))
    assert "pass_with_play" in kinds(st)
    assert st.scores == {"N": 0, "S": -50} and st.result.kind == "redeal"
    # hands unknown: nothing can be said about a legal play; a pass with tiles to draw is noted
    st = replay(rules, ev("N 5-4", "S pass"), HandContext(leader="N"))
    assert "pass_with_play" not in kinds(st) and "pass_before_drawing" in kinds(st)


# =====================================================================================
# Seed 001: BDC partnership (bdc-partnership), 4 players, counterclockwise N W S E
# =====================================================================================

BDC = "bdc-partnership"

# A whole hand (every seat answers every turn), N goes out with a kapicua.
BDC_KAPICUA = [
    "deal N 4-2 5-0 4-1 5-2 6-5 6-6 0-0 / W 2-0 3-2 6-3 1-0 6-4 6-1 4-4 / S 3-0 6-0 5-1 3-3 5-4 1-1 5-3"
    " / E 3-1 6-2 2-1 5-5 2-2 4-0 4-3",
    "N 6-6",    # W6 E6
    "W 6-1 E",  # E1
    "S 1-1 E",  # E1
    "E 1-3 E",  # E3
    "N 6-5 W",  # W5
    "W 3-2 E",  # E2
    "S 5-4 W",  # W4
    "E 2-6 E",  # E6
    "N 4-1 W",  # W1
    "W 6-4 E",  # E4
    "S 1-5 W",  # W5
    "E 4-0 E",  # E0
    "N 0-0 E",  # E0
    "W 0-1 E",  # E1
    "S 5-3 W",  # W3
    "E 3-4 W",  # W4
    "N 4-2 W",  # W2
    "W 2-0 W",  # W0
    "S 0-6 W",  # W6
    "E 1-2 E",  # E2
    "N 2-5 E",  # E5
    "W 6-3 W",  # W3
    "S 3-0 W",  # W0
    "E 5-5 E",  # E5
    "N 0-5 W",  # ends were W0 and E5: [0-5] fits both -> kapicua; N's 7th tile
]


def test_001_kapicua_domino_counts_every_pip_left_plus_30():
    rules = load_ruleset(BDC)
    st = replay(rules, ev(*BDC_KAPICUA), FIRST_HAND)
    assert [f.kind for f in st.flags] == []
    res = st.result
    # left: W [4-4] 8, S [3-3] 6, E [2-2] 4: 8 + 6 + 4 = 18 (all others, the partner's too), + 30 kapicua
    assert (res.kind, res.winner_seat, res.winner_side, res.capicua) == ("domino", "N", "NS", True)
    assert res.remaining == {"N": 0, "W": 8, "S": 6, "E": 4}
    assert res.awards == {"NS": 48, "EW": 0}
    assert res.next_leader == "N"  # "The winner of the hand starts the following games."

# W leads [6-6] (W holds it); the ends after each play are written after it. S goes out with [2-0] on
# ends 2|2: a tile that is not a double and "can be played on either side".
BDC_SAME_ENDS = [
    "deal N 3-3 2-2 6-1 3-2 3-1 6-5 4-4 / W 5-4 6-6 6-3 4-3 6-4 5-0 6-0 / S 0-0 3-0 5-1 6-2 5-3 4-1 2-0"
    " / E 5-2 1-1 1-0 5-5 4-2 2-1 4-0",
    "W 6-6",                                                  # 6|6
    "S 6-2 W", "E 2-1 W", "N 6-1 E", "W pass",                # 2|6, 1|6, 1|1
    "S 4-1 E", "E 1-1 W", "N 4-4 E", "W 5-4 E",               # 1|4, 1|4, 1|4, 1|5
    "S 5-1 E", "E 1-0 E", "N 3-1 W", "W 5-0 E",               # 1|1, 1|0, 3|0, 3|5
    "S 3-0 W", "E 5-5 E", "N 6-5 E", "W 6-3 E",               # 0|5, 0|5, 0|6, 0|3
    "S 0-0 W", "E 4-0 W", "N 3-2 E", "W 4-3 W",               # 0|3, 4|3, 4|2, 3|2
    "S 5-3 W", "E 5-2 W", "N 2-2 W", "W pass",                # 5|2, 2|2, 2|2
    "S 2-0 W",                                                # S's 7th tile on ends 2|2
]


def test_001_kapicua_when_both_ends_show_the_same_number():
    # "the last domino played to win the hand can be played on either side except a double"
    rules = load_ruleset(BDC)
    st = replay(rules, ev(*BDC_SAME_ENDS), FIRST_HAND)
    res = st.result
    # left: N [3-3] 6; W [6-4] 10 + [6-0] 6 = 16; E [4-2] 6: 6 + 16 + 6 = 28, + 30 kapicua = 58
    assert (res.kind, res.winner_seat, res.capicua) == ("domino", "S", True)
    assert res.remaining == {"N": 6, "W": 16, "S": 0, "E": 6}
    assert res.awards == {"NS": 58, "EW": 0}
    # tables that require two different numbers at the ends: no kapicua, the 28 pips only
    rules = load_ruleset(BDC, capicua_ends="different_numbers")
    res = replay(rules, ev(*BDC_SAME_ENDS), FIRST_HAND).result
    assert (res.capicua, res.awards) == (False, {"NS": 28, "EW": 0})
    # the kapicua of BDC_KAPICUA (ends 0|5, [0-5]) counts under both readings
    assert replay(rules, ev(*BDC_KAPICUA), FIRST_HAND).result.awards == {"NS": 48, "EW": 0}


def test_001_first_tile_unanswered_and_all_pass_bonuses():
    # "Opposing team does not have a domino to play once the first domino of the hand is played":
    # read as both opponents knocking on the first round (W, then E after N's partner S played)
    rules = load_ruleset(BDC)
    st = replay(rules, ev(
        "N 6-6",
        "W pass",    # first opponent cannot answer
        "S 6-5 E",   # N's partner plays between them
        "E pass",    # second opponent cannot answer either: NS +30
        "N 5-3 E",
        "W pass", "S pass", "E pass",
        "N 3-2 E",   # "all other players pass and the player is forced to play again": NS +30
    ), FIRST_HAND)
    assert pts(st) == [{}, {}, {}, {"NS": 30}, {}, {}, {}, {}, {"NS": 30}]
    assert st.scores == {"NS": 60, "EW": 0}
    # helper-253: each bonus is named on its event, a notice (a bare NS+30 on a pass said nothing of why)
    named = [(i, f.kind, f.seat, f.message, f.notice) for i, out in enumerate(st.outcomes) for f in out.flags]
    assert named == [(3, "first_tile_unanswered_bonus", "N", "no opponent of N answered the first tile: NS +30", True),
                     (8, "all_pass_bonus", "N", "W, S and E passed and N plays again: NS +30", True)]


def test_001_no_bonus_for_a_pass_with_a_domino_to_play():
    """helper-119: the bonuses are for a team that "does not have a domino to play"; a pass flagged
    pass_with_play (W and E hold a 6) earned NS 30, and 60 once the umpire's penalty was added."""
    rules = load_ruleset(BDC)
    deal = ("deal N 4-1 3-1 4-3 6-1 0-0 5-1 6-6 / W 6-4 5-0 3-3 4-2 6-5 3-2 1-0"
            " / S 5-4 4-4 5-5 2-0 2-1 2-2 6-3 / E 6-0 4-0 3-0 5-2 1-1 6-2 5-3")
    st = replay(rules, ev(deal, "N 6-6", "W pass", "S 6-3 E", "E pass"), FIRST_HAND)
    assert [f.kind for f in st.flags] == ["pass_with_play", "pass_with_play"]
    assert st.scores == {"NS": 0, "EW": 0}
    # ends 6|1 after N's 4-1: W (6-5, 1-0), S (2-1, 6-3) and E (6-0, 6-2) all pass holding plays, N plays
    # again: no "forced to play again" bonus either (E's first pass, ends 6|4, was flagged as well)
    st = replay(rules, ev(deal, "N 6-6", "W 6-4 E", "S 4-4 E", "E pass", "N 4-1 E", "W pass", "S pass", "E pass",
                          "N 6-1 W"), FIRST_HAND)
    assert [f.seat for f in st.flags if f.kind == "pass_with_play"] == ["E", "W", "S", "E"]
    assert st.scores == {"NS": 0, "EW": 0}


def test_001_two_passes_after_the_first_tile_disqualify_the_bonus():
    # "Two consecutive passes after the first domino is played disqualifies the penalty points."
    rules = load_ruleset(BDC)
    st = replay(rules, ev("N 6-6", "W pass", "S pass", "E 6-5 E", "N 5-3 E"), FIRST_HAND)
    assert st.scores == {"NS": 0, "EW": 0}
    # an opponent who answers the lead: no bonus either
    st = replay(rules, ev("N 6-6", "W 6-5 E", "S pass", "E pass", "N 5-3 E"), FIRST_HAND)
    assert st.scores == {"NS": 0, "EW": 0}


BDC_LOCK = ["N 6-6", "W 6-5 E", "S 6-1 W", "E 5-4 E", "N 1-0 W", "W 4-6 E", "S 0-6 W", "E 6-3 E", "N 3-2 E",
            "W 2-6 E"]  # W locks: every 6 is on the table, both ends show 6


def test_001_lock_is_decided_against_the_player_to_the_lockers_right():
    rules = load_ruleset(BDC)
    st = replay(rules, ev(*BDC_LOCK), FIRST_HAND)
    # the lock is seen from the board alone; the tiles are still in the hands
    assert st.result is None and st.pending_end[0] == "locked"
    st = replay(rules, ev(*BDC_LOCK, "N reveal 0-0 1-1 2-0 2-1", "W reveal 3-0 3-1 4-0 2-2",
                          "S reveal 4-1 4-2 3-3 5-0 5-1", "E reveal 4-3 4-4 5-2 5-3 5-5"), FIRST_HAND)
    # N 0+2+2+3 = 7, W 3+4+4+4 = 15, S 5+6+6+5+6 = 28, E 7+8+7+8+10 = 40 (7+15+28+40 = 90)
    # W locked; W sits west facing east, his right is S (and S plays next, counterclockwise).
    # W 15 < S 28: EW win, although N holds the fewest pips; all pips on the table: 90
    assert st.result.remaining == {"N": 7, "W": 15, "S": 28, "E": 40}
    assert (st.result.winner_side, st.result.awards) == ("EW", {"NS": 0, "EW": 90})
    assert st.result.winner_seat == "W"


def test_001_the_player_who_won_the_lock_leads_next_not_his_partner():
    rules = load_ruleset(BDC)
    st = replay(rules, ev(*BDC_LOCK, "E reveal 0-0 1-1 2-0 2-1 3-0", "W reveal 3-1 4-0 2-2 4-1",
                          "N reveal 4-2 3-3 5-0 5-1", "S reveal 4-3 4-4 5-2 5-3 5-5"), FIRST_HAND)
    # E 0+2+2+3+3 = 10, W 4+4+4+5 = 17, N 6+6+5+6 = 23, S 7+8+7+8+10 = 40
    # the duel is W (locker) 17 against S 40: "The lowest score wins the hand": W wins it for EW;
    # "The winner of the hand starts the following games": W, not E (who holds fewer pips but was
    # not in the duel)
    assert (st.result.winner_side, st.result.awards) == ("EW", {"NS": 0, "EW": 90})
    assert st.result.winner_seat == "W" and st.result.next_leader == "W"


def test_001_tied_duel_scores_nothing_and_the_same_player_leads():
    rules = load_ruleset(BDC)
    st = replay(rules, ev(*BDC_LOCK, "W reveal 3-0 3-1 4-0 2-2", "S reveal 0-0 1-1 2-0 2-1 4-4",
                          "N reveal 4-1 4-2 3-3 5-0", "E reveal 5-1 4-3 5-2 5-3 5-5"), FIRST_HAND)
    # W 3+4+4+4 = 15 against S 0+2+2+3+8 = 15: a tie (N 22 and E 38 are not in the duel);
    # the seed is silent: nobody scores (engine default) and the same player leads again
    assert st.result.remaining == {"N": 22, "W": 15, "S": 15, "E": 38}
    assert (st.result.winner_side, st.result.awards) == (None, {"NS": 0, "EW": 0})
    assert st.result.next_leader == "N"


@pytest.mark.parametrize("doubles,redeal", [(5, True), (4, False)])
def test_001_five_doubles_force_a_reshuffle_and_the_last_winner_leads(doubles, redeal):
    rules = load_ruleset(BDC)
    hand = ["0-0", "1-1", "2-2", "3-3", "4-4", "6-5", "6-4"] if doubles == 5 else \
        ["0-0", "1-1", "2-2", "3-3", "5-4", "6-5", "6-4"]
    st = replay(rules, ev("deal N " + " ".join(hand)), HandContext(leader="E"))
    if redeal:
        # "The hand is reshuffled and the last player who won the hand starts the next hand."
        assert (st.result.kind, st.result.next_leader) == ("redeal", "E")
    else:
        assert st.result is None and st.turn == "E"


def test_001_pass_with_a_playable_tile_ends_the_hand_30_to_the_opponents_who_lead_next():
    rules = load_ruleset(BDC)
    deal = BDC_KAPICUA[0]
    # after N 6-6, W 6-1 E the ends are 6 and 1; S holds 1-1, 5-1 and 6-0 but passes
    st = replay(rules, ev(deal, "N 6-6", "W 6-1 E", "S pass", "S penalty pass_with_play"), FIRST_HAND)
    assert "pass_with_play" in kinds(st)
    assert st.scores == {"NS": 0, "EW": 30}
    # "The opposing team gets 30 points and also starts the next hand": E, next to play after S
    assert st.result.kind == "penalty" and st.result.next_leader == "E"


def test_001_play_out_of_turn_gives_30_and_the_hand_goes_on():
    rules = load_ruleset(BDC)
    st = replay(rules, ev("N 6-6", "S 6-5 E", "S penalty play_out_of_turn"), FIRST_HAND)
    assert "out_of_turn" in kinds(st)  # W was to play
    assert st.scores == {"NS": 0, "EW": 30} and st.result is None

def test_001_looking_at_tiles_the_player_to_the_right_of_the_one_at_fault_leads_next():
    # "The opposing team gets 30 points and starts the next hand. The player to the right of the person
    # at fault starts the next hand." W looks; the hand goes on and N goes out with the kapicua.
    rules = load_ruleset(BDC)
    hand1 = ev(*BDC_KAPICUA[:3], "W penalty looking_at_tiles", *BDC_KAPICUA[3:])
    st = replay(rules, hand1, FIRST_HAND)
    # NS +30 for the penalty; N's domino 18 + 30 kapicua = 48: NS 78
    assert st.scores == {"NS": 78, "EW": 0}
    # W sits west facing east: his right is S (NS, the opposing team), not the hand's winner N
    assert (st.result.winner_seat, st.result.next_leader) == ("N", "S")
    match = replay_match(rules, [hand1, ev("S 6-5")])
    assert match.games[0].hands[1].context.leader == "S"
    assert kinds(match.games[0].hands[1]) == []
    # N leading the next hand is out of turn
    match = replay_match(rules, [hand1, ev("N 6-5")])
    assert kinds(match.games[0].hands[1]) == ["out_of_turn"]


def test_001_looking_at_tiles_recorded_after_the_hand_still_names_the_next_leader():
    """helper-119: the same penalty written after N's domino gave NS the 30 but left N to lead."""
    rules = load_ruleset(BDC)
    hand1 = ev(*BDC_KAPICUA, "W penalty looking_at_tiles")
    st = replay(rules, hand1, FIRST_HAND)
    assert st.scores == {"NS": 78, "EW": 0} and st.result.next_leader == "N"  # the domino's, as announced
    assert st.next_lead() == ("S", None)
    assert [(f.kind, f.seat, f.notice) for f in st.outcomes[-1].flags] == [("next_leader", "S", True)]
    match = replay_match(rules, [hand1, ev("S 6-5")])
    assert match.games[0].hands[1].context.leader == "S" and kinds(match.games[0].hands[1]) == []
    assert kinds(replay_match(rules, [hand1, ev("N 6-5")]).games[0].hands[1]) == ["out_of_turn"]


def test_001_five_doubles_in_a_deal_written_one_line_per_seat():
    # "If you have 5 doubles in your hand ... The hand is reshuffled": the same with the deal written
    # one line per seat (as examples/ does) as in one line
    rules = load_ruleset(BDC)
    lines = ["deal N 6-6 6-3 6-4 0-0 1-1 2-2 3-3", "deal W 5-5 5-4 5-3 5-2 5-1 5-0 4-4",
             "deal S 6-5 6-2 6-1 6-0 4-3 4-2 4-1", "deal E 4-0 3-2 3-1 3-0 2-1 2-0 1-0"]
    split = replay(rules, ev(*lines), FIRST_HAND)
    one = replay(rules, ev("deal " + " / ".join(line[5:] for line in lines)), FIRST_HAND)
    for st in (split, one):
        # N holds [0-0] [1-1] [2-2] [3-3] [6-6]; W [5-5] [4-4] only
        assert (st.result.kind, st.result.note) == ("redeal", "N holds 5 doubles")
        assert (st.result.next_leader, st.result.next_required_lead) == (None, Tile(6, 6))
        assert kinds(st) == ["too_many_doubles"]
    assert pts(split) == [{}, {}, {}, {}]
    # the later lines are still checked; nothing is played in a hand that is reshuffled
    with pytest.raises(IllegalEvent, match=r"event #1 \(deal\): tile 6-6 dealt twice"):
        replay(rules, ev(lines[0], "deal W 6-6 5-4 5-3 5-2 5-1 5-0 4-4"), FIRST_HAND)
    with pytest.raises(IllegalEvent, match=r"event #1 \(deal\): N was already dealt"):
        replay(rules, ev(lines[0], "deal N 5-5 5-4 5-3 5-2 5-1 5-0 4-4"), FIRST_HAND)
    with pytest.raises(IllegalEvent, match=r"event #4 \(play\): the hand is over \(redeal\)"):
        replay(rules, ev(*lines, "N 6-6"), FIRST_HAND)


# =====================================================================================
# Seed 002: NOVA block (nova-block), 4 individual players, clockwise N E S W
# =====================================================================================

def _nova_lock(leader: str, reveals: dict[str, str]) -> list:
    """The lock line led by ``leader``: ten tiles, then every seat shows its tiles."""
    order = ["N", "E", "S", "W"]
    i = order.index(leader)
    seats = [order[(i + k) % 4] for k in range(10)]
    tiles = ["6-6", "6-5 E", "6-1 W", "5-4 E", "1-0 W", "4-6 E", "0-6 W", "6-3 E", "3-2 E", "2-6 E"]
    return ev(*(f"{s} {t}" for s, t in zip(seats, tiles)), *(f"{s} reveal {t}" for s, t in reveals.items()))


# 4-tile sets for the leader and the next seat (3 plays each), 5-tile sets for the other two (2 plays)
A4, B4, C5, D5 = "0-0 1-1 2-0 2-1", "3-0 3-1 4-0 2-2", "4-1 4-2 3-3 5-0 5-1", "4-3 4-4 5-2 5-3 5-5"  # 7 15 28 40
F4, G4, E5 = "3-1 4-0 2-2 4-1", "4-2 3-3 5-0 5-1", "0-0 1-1 2-0 2-1 3-0"  # 17 23 10; with D5 (40)


def test_002_five_games_ranked_by_cumulative_pips():
    rules = load_ruleset("nova-block")
    games = [
        _nova_lock("N", {"N": A4, "E": B4, "S": C5, "W": D5}),  # N 7, E 15, S 28, W 40: N wins
        _nova_lock("N", {"N": F4, "E": G4, "S": E5, "W": D5}),  # N 17, E 23, S 10, W 40: S wins
        _nova_lock("S", {"S": A4, "W": B4, "N": C5, "E": D5}),  # S 7, W 15, N 28, E 40: S wins
        _nova_lock("S", {"S": F4, "W": G4, "N": E5, "E": D5}),  # S 17, W 23, N 10, E 40: N wins
        _nova_lock("N", {"N": A4, "E": B4, "S": C5, "W": D5}),  # N 7, E 15, S 28, W 40: N wins
    ]
    match = replay_match(rules, games)
    assert match.over and len(match.games) == 5
    assert [g.winner for g in match.games] == ["N", "S", "S", "N", "N"]
    # N 7+17+28+10+7 = 69, S 28+10+7+17+28 = 90, E 15+23+40+40+15 = 133, W 40+40+15+23+40 = 158
    assert match.standings() == [("N", 3, 69), ("S", 2, 90), ("E", 0, 133), ("W", 0, 158)]
    # no points change hands in this block game
    assert all(h.scores == {"N": 0, "E": 0, "S": 0, "W": 0} for g in match.games for h in g.hands)
    with pytest.raises(ValueError, match="already over"):
        replay_match(rules, games + [games[0]])


def test_002_a_redeal_is_the_same_game_dealt_again():
    """helper-119: "Each tournament will be five games": a misdeal used one up, and the replayed game's
    lead by the previous winner ("may choose to play any tile") was flagged out of turn and wrong start."""
    rules = load_ruleset("nova-block")
    first = _nova_lock("N", {"N": A4, "E": B4, "S": C5, "W": D5})  # N 7: N wins game 1
    redeal = ev("end redeal misdeal")
    replayed = ev("N 3-1")  # game 2, dealt again: N, game 1's winner, leads any tile
    match = replay_match(rules, [first, redeal, replayed])
    assert [len(g.hands) for g in match.games] == [1, 2]
    assert match.games[1].ended_by is None and not match.over
    assert match.games[1].hands[1].flags == []
    # five games still take five played hands, redeals aside
    games = [first, redeal] + [first] * 4
    match = replay_match(rules, games)
    assert match.over and len(match.games) == 5 and [len(g.hands) for g in match.games] == [1, 2, 1, 1, 1]


def test_002_chip_out_ranks_the_others_by_their_spots():
    rules = load_ruleset("nova-block")
    # A short chip-out: N 6-6, then the others knock while N plays out (hands unseen, N holds
    # 6-5 5-4 4-3 3-2 2-1 1-0 after the lead): N's seventh tile ends the game.
    log = ev("N 6-6", "E pass", "S pass", "W pass", "N 6-5 E", "E pass", "S pass", "W pass", "N 5-4 E",
             "E pass", "S pass", "W pass", "N 4-3 E", "E pass", "S pass", "W pass", "N 3-2 E", "E pass",
             "S pass", "W pass", "N 2-1 E", "E pass", "S pass", "W pass", "N 1-0 E",
             "E reveal 6-4 6-3 6-2 6-1 6-0 5-5 5-3",   # 10+9+8+7+6+10+8 = 58
             "S reveal 5-2 5-1 5-0 4-4 4-2 4-1 4-0",   # 7+6+5+8+6+5+4 = 41
             "W reveal 3-3 3-1 3-0 2-2 2-0 1-1 0-0")   # 6+4+3+4+2+2+0 = 21
    match = replay_match(rules, [log])
    res = match.games[0].hands[0].result
    assert (res.kind, res.winner_seat) == ("domino", "N")
    # second, third and fourth place by the spots left: W 21, S 41, E 58
    assert match.standings() == [("N", 1, 0), ("W", 0, 21), ("S", 0, 41), ("E", 0, 58)]
    # players are ranked by spots, so going out scores nothing (the engine's default would give
    # N 58 + 41 + 21 = 120)
    assert res.awards == {"N": 0, "E": 0, "S": 0, "W": 0}
    assert all(not o.points for o in match.games[0].hands[0].outcomes)

# The deal and a game timed every 15 s from t = 0. At 5:00 (S 5-3 at t = 300) nobody is out; W would
# go out at 6:15.
NOVA_DEAL = ["deal N 6-1 5-0 3-0 6-3 0-0 4-0 4-1", "deal E 5-1 2-1 5-5 5-4 4-2 2-0 5-2",
             "deal S 4-4 1-1 6-0 6-6 4-3 3-1 5-3", "deal W 6-5 3-3 1-0 2-2 3-2 6-2 6-4"]
NOVA_TIMED = [
    "S 6-6", "W 6-5 E", "N 6-1 W", "E 5-4 E", "S 3-1 W", "W 3-2 W", "N 4-1 E", "E 4-2 W", "S 4-4 W", "W 6-4 W",
    "N 6-3 W", "E 2-1 E", "S 4-3 W", "W 2-2 E", "N 4-0 W", "E 2-0 W", "S pass", "W 6-2 E", "N pass", "E 5-2 W",
    "S 5-3 W",                                           # t = 300: the limit; still in time
    "W 3-3 W", "N 3-0 W", "E pass", "S 6-0 E", "W 1-0 E",  # t = 315 .. 375: after it
]


def test_002_five_minute_limit_stops_the_game_with_the_tiles_held_then():
    # "For the sake of time, NOVA will impose a 5 minute time limit for each game. If the game does not
    # naturally end by that point, then the player with the least amount of points on their remaining
    # dominoes wins."
    rules = load_ruleset("nova-block")
    log = ev(*NOVA_DEAL) + _timed(NOVA_TIMED, 0, 15)
    match = replay_match(rules, [log])
    hand = match.games[0].hands[0]
    # held at 5:00: N [5-0] [3-0] [0-0] 8; E [5-1] [5-5] 16; S [1-1] [6-0] 8; W [3-3] [1-0] 7
    assert (hand.result.kind, hand.result.winner_seat) == ("time", "W")
    assert hand.result.remaining == {"N": 8, "E": 16, "S": 8, "W": 7}
    # the first event after 5:00 ends it; it and the later plays are kept but not counted
    assert [o.result is not None for o in hand.outcomes].index(True) == 4 + 21
    assert [[f.kind for f in o.flags] for o in hand.outcomes[25:]] == [["time_limit"]] + [["after_time_limit"]] * 4
    assert hand.layout.open_ends() == {"W": 3, "E": 6}  # as after S 5-3
    game = match.games[0]
    assert (game.ended_by, game.winner) == ("time", "W")
    assert match.standings()[:1] == [("W", 1, 7)]
    assert sorted(match.standings()[1:]) == [("E", 0, 16), ("N", 0, 8), ("S", 0, 8)]
    # the umpire's "end time" at 5:00 scores the same
    st = replay_match(rules, [ev(*NOVA_DEAL) + _timed(NOVA_TIMED[:21], 0, 15) + ev("end time")]).games[0]
    assert (st.ended_by, st.winner, st.pips) == ("time", "W", {"N": 8, "E": 16, "S": 8, "W": 7})
    # without times nothing is cut: W goes out with [1-0]
    res = replay_match(rules, [ev(*NOVA_DEAL, *NOVA_TIMED)]).games[0].hands[0].result
    assert (res.kind, res.winner_seat) == ("domino", "W")
    # the next game has its own 5 minutes, from its own first event (W, the winner, leads at 400 s)
    match = replay_match(rules, [log, _timed(["W 6-6", "N 6-1 E"], 400, 200)])
    assert kinds(match.games[1].hands[0]) == [] and match.games[1].ended_by is None


# =====================================================================================
# Seed 003: Jersey partnership (jersey-partnership), 4 players, counterclockwise N W S E
# =====================================================================================

JERSEY = "jersey-partnership"
JERSEY_LOCK = ["N 6-6", "W 6-5 E", "S 6-1 W", "E 5-4 E", "N 1-0 W", "W 4-6 E", "S 0-6 W", "E 6-3 E", "N 3-2 E",
               "W 2-6 E"]


def test_003_locked_game_team_totals_lowest_team_wins_every_pip():
    rules = load_ruleset(JERSEY)
    st = replay(rules, ev(*JERSEY_LOCK, f"N reveal {A4}", f"W reveal {B4}", f"S reveal {D5}",
                          f"E reveal {C5}"), FIRST_HAND)
    # N 7 + S 40 = 47 against W 15 + E 28 = 43: EW win (N's 7 is the lowest hand, but teams count);
    # every pip left: 47 + 43 = 90
    assert (st.result.winner_side, st.result.awards) == ("EW", {"NS": 0, "EW": 90})
    assert st.result.next_leader == "W"  # EW's lower hand, W 15, won it and leads


def test_003_partners_tied_on_pips_after_their_lock_are_left_to_the_umpire():
    """helper-122: "the player that wins that hand will start the next hand" names no partner; W and E (17
    each) won the lock for EW and W was chosen without a word. docs/rules.md: the umpire decides."""
    rules = load_ruleset(JERSEY)
    st = replay(rules, ev(*JERSEY_LOCK, "N reveal 3-0 3-3 4-2 4-3", "W reveal 3-1 4-0 2-2 4-1",
                          "S reveal 4-4 5-0 5-1 5-2 5-3", "E reveal 0-0 1-1 2-0 2-1 5-5"), FIRST_HAND)
    # N 3 + 6 + 6 + 7 = 22, S 8 + 5 + 6 + 7 + 8 = 34: NS 56 against W 17 + E 17 = 34: EW win
    assert (st.result.winner_side, st.result.remaining["W"], st.result.remaining["E"]) == ("EW", 17, 17)
    assert st.result.note.endswith("; W and E hold 17 pips each: the umpire decides who leads the next hand "
                                   "(W by default)")


def test_003_tied_lock_scores_nothing_and_the_same_player_leads_again():
    rules = load_ruleset(JERSEY)
    st = replay(rules, ev(*JERSEY_LOCK, f"N reveal {A4}", f"W reveal {B4}", "S reveal 4-2 4-3 5-2 5-3 5-5",
                          "E reveal 4-1 3-3 5-0 5-1 4-4"), FIRST_HAND)
    # NS 7 + (6+7+7+8+10 = 38) = 45; EW 15 + (5+6+5+6+8 = 30) = 45: "In case of a tie the points
    # won't count. The same player that started will start again." N started.
    assert st.result.winner_side is None and st.result.awards == {"NS": 0, "EW": 0}
    assert st.result.next_leader == "N"


def test_003_five_doubles_give_an_option_to_reshuffle_and_the_same_player_leads():
    rules = load_ruleset(JERSEY)
    deal = "deal S 0-0 1-1 2-2 3-3 4-4 6-5 6-4"
    st = replay(rules, ev(deal), HandContext(leader="W"))
    # an option, not a forced redeal: a flag, and the hand goes on
    assert st.result is None and [f.details for f in st.flags if f.kind == "too_many_doubles"] == [{"doubles": 5}]
    st = replay(rules, ev(deal, "end redeal S takes the option"), HandContext(leader="W"))
    # "SALE LA MISMA PERSONA QUE SALIO ANTERIORMENTE": W led this hand, W leads the new deal
    assert (st.result.kind, st.result.next_leader) == ("redeal", "W")


def test_003_penalties_pass_with_play_wrong_start_slow_play():
    rules = load_ruleset(JERSEY)
    deal = BDC_KAPICUA[0]
    # pass with a playable tile: 25 to the opposition, 25 off the infractor, reshuffle
    st = replay(rules, ev(deal, "N 6-6", "W 6-1 E", "S pass", "S penalty pass_with_play"), FIRST_HAND)
    assert st.scores == {"NS": -25, "EW": 25} and st.result.kind == "redeal"
    # wrong start: N holds [6-6] and must lead; W leads [4-4]: -25 and reshuffle; "SALE EL QUE LE
    # TOCABA": the rightful leader (N) leads the new deal, still with [6-6]
    st = replay(rules, ev(deal, "W 4-4", "W penalty wrong_start"), FIRST_HAND)
    assert {"wrong_start", "out_of_turn"} <= set(kinds(st))
    assert st.scores == {"NS": 0, "EW": -25}
    assert (st.result.kind, st.result.next_leader, st.result.next_required_lead) == ("redeal", "N", Tile(6, 6))
    # helper-122: the deal not recorded (a camera), the rightful leader is unknown: none is named, and the
    # [6-6] holder of the new deal leads it (W, the infractor, was named and E's 6-6 flagged out of turn)
    for first in (ev("W 5-5", "W penalty wrong_start"), ev("N 6-6", "W 6-1 E", "S pass", "S penalty pass_with_play"),
                  ev("W 5-5", "end redeal misdeal")):
        match = replay_match(rules, [first, ev("E 6-6")])
        hand2 = match.games[0].hands[1]
        assert (hand2.context.leader, hand2.context.required_lead) == (None, Tile(6, 6)) and kinds(hand2) == []
    # slow play: a fine of 10 (at most), the hand goes on
    st = replay(rules, ev("N 6-6", "W penalty slow_play"), FIRST_HAND)
    assert st.scores == {"NS": 0, "EW": -10} and st.result is None


def _timed(lines: list[str], start: float, step: float) -> list:
    return ev(*(f"{line} t={start + i * step:g}" for i, line in enumerate(lines)))


def test_003_forty_minutes_the_hand_in_progress_finishes_and_the_leader_wins():
    rules = load_ruleset(JERSEY)
    reveals = [f"N reveal {A4}", f"W reveal {B4}", f"S reveal {C5}", f"E reveal {D5}"]
    # each hand: NS 7 + 28 = 35 against EW 15 + 40 = 55: NS win 90; N (7) leads the next hand
    hand1 = _timed(JERSEY_LOCK + reveals, 0, 60)        # t 0 .. 780 s
    hand2 = _timed(JERSEY_LOCK + reveals, 2300, 20)     # starts at 38:20, ends at 2300 + 13*20 = 2560 s
    match = replay_match(rules, [hand1, hand2])
    game = match.games[0]
    # the hand that crossed 40:00 (2400 s) was played out and counts: NS 90 + 90 = 180 (< 200)
    assert game.scores == {"NS": 180, "EW": 0}
    assert (game.ended_by, game.winner) == ("time", "NS") and match.over
    with pytest.raises(ValueError, match="already over"):
        replay_match(rules, [hand1, hand2, _timed(JERSEY_LOCK, 2600, 10)])
    # a second hand that ends at 2300 + 13 * 5 = 2365 s (< 2400): the game goes on
    match = replay_match(rules, [hand1, _timed(JERSEY_LOCK + reveals, 2300, 5)])
    assert match.games[0].ended_by is None and not match.over
    # helper-122: a hand that begins after 40:00 is not played: the game ended with the hand before it
    # (NS 90), and the match of one game is over
    late = _timed(JERSEY_LOCK + reveals, 2405, 5)
    with pytest.raises(ValueError, match=r"hand 2: the match is already over \(its time ran out before this hand"):
        replay_match(rules, [hand1, late])
    match = replay_match(load_ruleset(JERSEY, games_per_match=2), [hand1, late])
    assert [(g.ended_by, g.winner, g.scores) for g in match.games] == [
        ("time", "NS", {"NS": 90, "EW": 0}), (None, None, {"NS": 90, "EW": 0})]

def test_003_first_tile_warning_applies_to_the_table_then_25():
    # "If the tile is placed incorrectly, one warning will be given that will apply to all (4) players.
    # If it happens again there will be a (25) points fine subtracted from the infractor score."
    rules = load_ruleset(JERSEY)
    st = replay(rules, ev("N 6-6", "N penalty first_tile_orientation", "W penalty first_tile_orientation"),
                FIRST_HAND)
    # N's is the table's one warning (no points); W's, a different player, is fined
    assert pts(st) == [{}, {}, {"EW": -25}]
    assert [(f.kind, f.seat) for f in st.flags] == [("warning", "N")]
    # across hands of the game: warned in hand 1, fined in hand 2
    reveals = [f"N reveal {A4}", f"W reveal {B4}", f"S reveal {C5}", f"E reveal {D5}"]
    hand1 = ev(JERSEY_LOCK[0], "N penalty first_tile_orientation", *JERSEY_LOCK[1:], *reveals)
    hand2 = ev(JERSEY_LOCK[0], "E penalty first_tile_orientation", *JERSEY_LOCK[1:], *reveals)
    game = replay_match(rules, [hand1, hand2]).games[0]
    # each lock: NS 7 + 28 = 35 against EW 15 + 40 = 55: NS 90; E's fine: EW -25
    assert game.scores == {"NS": 180, "EW": -25}
    assert [k for k in kinds(game.hands[0]) if k != "awaiting_reveal"] == ["warning"]
    assert "warning" not in kinds(game.hands[1])


def test_003_target_200_ends_the_game_at_the_end_of_the_hand():
    rules = load_ruleset(JERSEY)
    reveals = [f"N reveal {A4}", f"W reveal {B4}", f"S reveal {C5}", f"E reveal {D5}"]
    hands = [ev(*JERSEY_LOCK, *reveals)] * 3
    match = replay_match(rules, hands)
    # 90, 180, 270: the third hand takes NS past 200
    assert match.games[0].scores == {"NS": 270, "EW": 0}
    assert (match.games[0].ended_by, match.games[0].winner) == ("target", "NS")
    match = replay_match(rules, hands[:2])
    assert match.games[0].ended_by is None


# =====================================================================================
# Seed 004: Muggins (muggins), 2 players N, S, 5 tiles each, no spinner
# =====================================================================================

MUGGINS_HAND = [
    "N 5-5",    # lone double 5 + 5 = 10 -> N 10; a double: N plays again
    "N 5-0 E",  # W side of [5-5] still open 10, E 0: 10 -> N 10; scored: N again
    "N 0-1 E",  # 10 + 1 = 11: nothing; S's turn
    "S 1-4 E",  # 10 + 4 = 14
    "N 5-2 W",  # W 2 + E 4 = 6
    "S 4-3 E",  # 2 + 3 = 5 -> S 5; S again
    "S 3-3 E",  # 2 + [3-3] 6 = 8; a double: S again
    "S 3-2 E",  # 2 + 2 = 4; N's turn
    "N 2-2 W",  # [2-2] 4 + 2 = 6, N's last tile, a double: N cannot domino, must draw
    "N draw",
    "N 2-0 E",  # 4 + 0 = 4: no score, not a double: domino
    "S reveal 6-6",  # S's last tile: 12 -> 10
]


def test_004_scoring_tile_or_double_gives_another_turn():
    rules = load_ruleset("muggins")
    h = Hand(rules, HandContext(leader="N"))
    turns = []
    for e in ev(*MUGGINS_HAND[:8]):
        h.append(e)
        turns.append(h.state.turn)
    assert turns == ["N", "N", "S", "N", "S", "S", "S", "N"]
    assert pts(h.state) == [{"N": 10}, {"N": 10}, {}, {}, {}, {"S": 5}, {}, {}]


def test_004_cannot_domino_with_a_double_or_a_scoring_tile_then_domino_rounded():
    rules = load_ruleset("muggins")
    st = replay(rules, ev(*MUGGINS_HAND[:9]), HandContext(leader="N"))
    assert st.result is None and st.turn == "N" and "must_draw" in kinds(st)
    # what the rules require next, not an infraction: a note for the umpire, never an alert (helper-117)
    assert [f.notice for f in st.flags] == [True]
    st = replay(rules, ev(*MUGGINS_HAND), HandContext(leader="N"))
    # S holds 12 pips: "8, 9, 10, 11, and 12 is worth 10 points"
    assert (st.result.kind, st.result.winner_seat, st.result.awards) == ("domino", "N", {"N": 10, "S": 0})
    assert st.scores == {"N": 10 + 10 + 10, "S": 5}


MUGGINS_SKIP = [
    "deal N 6-6 2-0 6-3 6-1 4-4 / S 6-4 2-2 5-1 2-1 3-2",
    "N 6-3",        # W6 E3: 9
    "S 3-2 E",      # 6 + 2 = 8
    "N 2-0 E",      # 6 + 0 = 6
    "S 6-4 W",      # 4 + 0 = 4
    "N 4-4 W",      # [4-4] 8 + 0 = 8; a double: N again
    "N draw 0-0",   # N holds 6-6 6-1: nothing fits 4 or 0
    "N 0-0 E",      # 8 + 0 = 8; a double: N again
    "N draw 6-0",
    "N 0-6 E",      # 8 + 6 = 14
    "S draw 6-5",   # S holds 2-2 5-1 2-1: nothing fits 4 or 6
    "S 6-5 E",      # 8 + 5 = 13
    "N draw 6-2", "N draw 5-2",
    "N 5-2 E",      # 8 + 2 = 10 -> N 10; N again
    "N 2-6 E",      # 8 + 6 = 14
    "S draw 1-0", "S draw 3-1", "S draw 5-3", "S draw 4-1",
    "S 4-1 W",      # 1 + 6 = 7
    "N 1-6 W",      # 6 + 6 = 12; N keeps [6-6] only
    "S draw 5-4", "S draw 1-1", "S draw 4-2", "S draw 3-0", "S draw 4-3", "S draw 5-5", "S draw 5-0",
    # 16 drawn of 18: "When there are 2 players, the last two tiles in the boneyard may not be drawn."
    "S pass",       # nothing of S's fits 6
]


def test_004_last_tile_a_double_with_nothing_to_draw_skips_the_turn():
    rules = load_ruleset("muggins")
    # N's [6-6] fits, but it is N's last tile and a double and nothing can be drawn: "If the boneyard
    # is already exhausted at the time the player would play his last piece, he must skip his turn"
    st = replay(rules, ev(*MUGGINS_SKIP, "N pass"))
    assert [f.kind for f in st.flags if f.kind != "must_draw"] == []
    # both passed: blocked. N 12, S 4+6+3+1+4+8+9+2+6+3+7+10+5 = 68: N scores 68 - 12 = 56 -> 55
    assert (st.result.kind, st.result.remaining) == ("locked", {"N": 12, "S": 68})
    assert st.result.awards == {"N": 55, "S": 0}
    assert st.scores == {"N": 10 + 55, "S": 0}
    # had N gone out with it, the umpire is told, and the domino scores nothing (helper-115: it was
    # awarded S's 68 pips, 70 points): N keeps the 10 of its earlier plays
    st = replay(rules, ev(*MUGGINS_SKIP, "N 6-6 W"))
    assert "no_domino_with_scoring_or_double" in kinds(st)
    assert (st.result.kind, st.result.winner_seat, st.result.awards) == ("domino", "N", {"N": 0, "S": 0})
    assert st.scores == {"N": 10, "S": 0} and "no points" in st.result.note


def test_004_the_last_tiles_of_the_boneyard_stay():
    rules = load_ruleset("muggins")
    # 28 - 2 x 5 = 18 in the boneyard; 2 players leave 2: 16 may be drawn
    st = replay(rules, ev("N 6-6", "S draw 16"))
    assert "boneyard_reserve" not in kinds(st) and st.drawable() == 0
    st = replay(rules, ev("N 6-6", "S draw 17"))
    assert "boneyard_reserve" in kinds(st)


def test_004_reaching_the_target_during_play_ends_the_game_at_once():
    # target lowered to 20 (the seed's variations play to 150, 200 or 250) to keep the hand short
    rules = load_ruleset("muggins", target=20)
    match = replay_match(rules, [ev(*MUGGINS_HAND)])
    game = match.games[0]
    # N 10 (5-5) + 10 (5-0) = 20 at the second play: "the game ends at that point"
    assert (game.ended_by, game.winner, game.scores) == ("target", "N", {"N": 20, "S": 0})
    # checked at the end of the hand instead, the whole hand counts: N 30, S 5
    rules = load_ruleset("muggins", target=20, target_checked="end_of_hand")
    game = replay_match(rules, [ev(*MUGGINS_HAND)]).games[0]
    assert (game.ended_by, game.winner, game.scores) == ("target", "N", {"N": 30, "S": 5})

# Three players, target 40 (lowered to keep the hands short). Dealt: N [0-0] [1-1] [2-2] [3-3] and a fifth,
# E [6-6] [6-5] [6-4] [5-5] [5-4] (12 + 11 + 10 + 10 + 9 = 52), S five small tiles.
MUGGINS_3 = "deal N 0-0 1-1 2-2 3-3 {n} / E 6-6 6-5 6-4 5-5 5-4 / S {s}"


def test_004_at_the_target_the_highest_score_of_the_tally_wins():
    # "If points are tallied at the end of a hand and more than one player has a score of 200 or more,
    # the player with the highest score wins."
    rules = load_ruleset("muggins", players=3, target=40)
    hand = ev(MUGGINS_3.format(n="0-1", s="2-1 3-0 2-0 4-0 3-1"), "S penalty 20 earlier hands", "N 0-1", "end locked")
    game = replay_match(rules, [hand]).games[0]
    # [0-1] led: 0 + 1 = 1, no score. Blocked: N 0+2+4+6 = 12, S 3+3+2+4+4 = 16, E 52.
    # N: (16 - 12) + (52 - 12) = 44 -> 45; S: 52 - 16 = 36 -> 35; E 0
    assert game.hands[0].outcomes[-1].points == {"N": 45, "S": 35}
    # N 45 and S 20 + 35 = 55 both reach 40 in the same tally: S, the highest, wins
    assert (game.ended_by, game.winner, game.scores) == ("target", "S", {"N": 45, "E": 0, "S": 55})


def test_004_tied_lowest_hands_score_their_difference_to_the_hands_above():
    # "The player with the lowest number of pips scores the difference between his total and that of each
    # of his opponents. Then, the player with the next-lowest number of pips scores the difference ..."
    # The seed's tie sentences ("no score" for two or four, "split evenly" for three) follow its variation
    # where the lowest hand takes the opponents' total (helper-153: four players tied for lowest scored
    # nothing; helper-115: three scored nothing either)
    rules = load_ruleset("muggins", players=3)
    deal = "deal N 6-6 6-5 0-5 0-2 0-0 / E 0-3 1-2 0-4 2-2 1-3 / S 6-4 5-5 4-4 6-3 3-3"
    st = replay(rules, ev(deal, "N 6-6", "end locked"))
    # N 11+5+2+0 = 18, E 3+3+4+4+4 = 18, S 10+10+8+9+6 = 43: N and E each 43 - 18 = 25, S 0 (the split
    # of the variation would give 43 // 2 = 21 -> 20 each)
    assert st.result.remaining == {"N": 18, "E": 18, "S": 43}
    assert st.result.awards == {"N": 25, "E": 25, "S": 0}
    four = load_ruleset("muggins", players=4)
    st = replay(four, ev(deal + " / W 6-2 5-4 5-3 6-1 5-2", "N 6-6", "end locked"))
    # W 8+9+8+7+7 = 39: N (43 - 18) + (39 - 18) = 46 -> 45, E the same, W 43 - 39 = 4 -> 5, S 0
    assert st.result.remaining == {"N": 18, "E": 18, "S": 43, "W": 39}
    assert st.result.awards == {"N": 45, "E": 45, "S": 0, "W": 5}
    # two players tied: the difference between them is 0, so nobody scores
    two = load_ruleset("muggins")
    st = replay(two, ev("deal N 6-5 0-0 1-1 2-2 4-4 / S 1-0 2-0 2-1 3-0 3-2", "N 6-5", "end locked"))
    assert st.result.remaining == {"N": 14, "S": 14} and st.result.awards == {"N": 0, "S": 0}
    # the variation keeps its own tie rules: with three, the tied lowest split the third hand's pips
    variation = load_ruleset("muggins", players=3, lock_points="opponents_pips")
    st = replay(variation, ev(deal, "N 6-6", "end locked"))
    assert st.result.awards == {"N": 20, "E": 20, "S": 0}


def test_004_a_tie_at_the_target_plays_three_more_hands_with_three_players():
    # "In case of a tie, follow these rules: If 2 are playing, play two more hands 3 players, play three
    # more hands 4 players, play four more hands."
    rules = load_ruleset("muggins", players=3, target=40)
    tie = ev(MUGGINS_3.format(n="4-1", s="2-1 3-0 2-0 4-0 1-0"), "S penalty 5 earlier hands", "N 4-1", "end locked")
    # [4-1] led: 4 + 1 = 5 -> N 5. Blocked: N 12, S 3+3+2+4+1 = 13, E 52.
    # N: (13 - 12) + (52 - 12) = 41 -> 40; S: 52 - 13 = 39 -> 40. N 5 + 40 = 45, S 5 + 40 = 45: tied
    # The extra hands: N leads [0-0] (0, no score; N holds 17), or S leads [2-0] (2; S holds 11); blocked,
    # S is lowest either way: S (17 - 13) + (52 - 13) = 43 -> 45 or (17 - 11) + (52 - 11) = 47 -> 45;
    # N 52 - 17 = 35. S wins each, so S leads the next.
    deal = MUGGINS_3.format(n="4-1", s="2-1 3-0 2-0 4-0 1-0")
    extra_n = ev(deal, "N 0-0", "end locked")
    extra_s = ev(deal, "S 2-0", "end locked")
    hands = [tie, extra_n, extra_s, extra_s]
    for played, scores in [(1, {"N": 45, "S": 45}), (2, {"N": 80, "S": 90}), (3, {"N": 115, "S": 135})]:
        game = replay_match(rules, hands[:played]).games[0]
        assert game.ended_by is None, played  # nobody wins in the extra hands, although over 40
        assert {s: game.scores[s] for s in "NS"} == scores
    match = replay_match(rules, hands)
    game = match.games[0]
    # after the third extra hand: N 150, S 180: the highest wins
    assert (game.ended_by, game.winner, game.scores) == ("target", "S", {"N": 150, "E": 0, "S": 180})
    # the extra hands are called locked early (N still holds 2-2 for the 2 end): said, and scored as called
    assert kinds(game.hands[2]) == ["locked_with_play"] and kinds(game.hands[3]) == ["locked_with_play"]


def test_004_partners_domino_subtracts_the_partners_pips():
    # four players as partners (the seed's "partnership if 4 are playing"), clockwise N E S W.
    # No play makes a multiple of 5 and there is no double, so there are no extra turns:
    # ends 7, 8, 4, 6, 7, 3, 4, 6, 8, 9, 6, 8, 11, 7, 1, 4, 6
    rules = load_ruleset("muggins", players=4, partnership=True)
    st = replay(rules, ev(
        "N 6-1", "E 1-2 E", "S 6-2 W", "W 2-4 E", "N 2-3 W", "E 4-0 E", "S 0-1 E", "W 3-5 W", "N 1-3 E",
        "E 5-6 W", "S 3-0 E", "W 0-2 E", "N 2-5 E", "E 5-1 E", "S 6-0 W", "W 1-4 E", "N 4-6 E",
        "E reveal 6-6", "W reveal 5-5", "S reveal 5-0",
    ))
    assert st.scores == {"NS": st.result.awards["NS"], "EW": 0}
    # opponents E 12 + W 10 = 22 -> 20; partner S 5 subtracted: 20 - 5 = 15
    assert (st.result.winner_seat, st.result.winner_side) == ("N", "NS")
    assert st.result.awards == {"NS": 15, "EW": 0}


def test_004_the_partners_pips_are_rounded_on_their_own_before_they_are_subtracted():
    """helper-208's audit: the seed's table turns pips into points ("Only 1 or 2 pips is worth nothing"), the
    partner's as the opponents' (docs/rules.md, seed 004): 13 -> 15 less 2 -> 0 is 15 (not 13, nor 11 -> 10)."""
    rules = load_ruleset("muggins", players=4, partnership=True, hand_size=3)
    st = replay(rules, ev(
        "N 6-3", "E 3-2 E", "S 2-1 E", "W 6-0 W", "N 0-2 W", "E 1-4 E", "S 4-0 E", "W 2-4 W", "N 4-3 W",
        "E reveal 6-2", "S reveal 1-1", "W reveal 5-0",
    ))
    # ends 9, 8, 7, 1, 3, 6, 2, 4, 3: no play scores
    assert pts(st)[:9] == [{}] * 9
    assert st.result.awards == {"NS": 15, "EW": 0}


# =====================================================================================
# pagat presets
# =====================================================================================

def test_fives_and_threes_scores_fives_and_threes():
    rules = load_ruleset("fives-and-threes")
    st = replay(rules, ev(
        "N 6-4",    # 10: 10/5 = 2
        "S 4-3 E",  # 6 + 3 = 9: 9/3 = 3
        "N 6-6 W",  # [6-6] 12 + 3 = 15: 15/5 + 15/3 = 3 + 5 = 8
        "S 3-3 E",  # 12 + 6 = 18: 18/3 = 6
        "N 6-5 W",  # 5 + 6 = 11: nothing
    ))
    assert pts(st) == [{"N": 2}, {"S": 3}, {"N": 8}, {"S": 6}, {}]


def test_fives_and_threes_chip_out_point_needs_no_hands_shown():
    """pagat: the point for going out "is scored at the same time as the normal score for the play"; with
    the hands unseen it waited for S's reveal (helper-122), and over an exact target it then counted."""
    rules = load_ruleset("fives-and-threes", hand_size=2)
    plays = ["N 6-6", "S 6-3 E", "N 3-3 E"]  # [6-6] 12: 4; 12 + 3 = 15: 3 + 5 = 8; 12 + [3-3] 6 = 18: 6
    seen = replay(rules, ev("deal N 6-6 3-3 / S 6-3 1-1", *plays))
    unseen = replay(rules, ev(*plays))
    assert seen.result.awards == unseen.result.awards == {"N": 1, "S": 0}
    assert unseen.pending_end is None and pts(unseen)[-1] == pts(seen)[-1] == {"N": 6 + 1}
    # a locking play is held to the 40 s clock though the hands are not shown yet (seed 003)
    jersey = load_ruleset(JERSEY)
    lock = [f"{e} t={10 * i}" for i, e in enumerate(JERSEY_LOCK[:-1])] + [f"{JERSEY_LOCK[-1]} t={10 * len(JERSEY_LOCK) + 20}"]
    st = replay(jersey, ev(*lock))
    assert st.pending_end is not None and st.pending_end[0] == "locked" and "slow_play" not in kinds(st)


def test_draw_game_lock_lowest_hand_takes_the_opponents_pips_exactly():
    rules = load_ruleset("draw")
    st = replay(rules, ev(*LISA_LOCK, "N reveal 1-1 2-0", "S reveal 5-5 4-3"))
    # no spinner here: the same line locks on 6 and 6. N 4, S 17: N scores 17 exactly
    assert st.result.awards == {"N": 17, "S": 0}


def test_all_fives_pagat_scores_the_lead():
    rules = load_ruleset("all-fives")
    st = replay(rules, ev("N 5-5", "S 5-0 E", "N 0-0 E"))
    # 5 + 5 = 10 -> N 10; 10 + 0 = 10 -> S 10; 10 + [0-0] 0 = 10 -> N 10
    assert pts(st) == [{"N": 10}, {"S": 10}, {"N": 10}]


def test_exact_target_a_score_that_overshoots_does_not_count():
    # all-fives with target 15, exact, checked at once (the pagat "exactly N" variant as overrides)
    hand = ev(
        "N 5-5",    # lone spinner 5 + 5 = 10 -> N 10
        "S 5-0 E",  # open W side of the spinner 10 + E 0 = 10 -> S 10
        "N 0-0 E",  # 10 + [0-0] 0 = 10 -> N would have 20 > 15: does not count
        "S 5-4 W",  # spinner covered: W 4 + E 0 = 4
        "N 5-1 N",  # N arm opens: 4 + 0 + 1 = 5 -> N 10 + 5 = 15, exactly the target
    )
    rules = load_ruleset("all-fives", target=15, target_exact=True, target_checked="immediately")
    game = replay_match(rules, [hand]).games[0]
    assert (game.ended_by, game.winner, game.scores) == ("target", "N", {"N": 15, "S": 10})
    # not exact: N's 20 at the third play ends the game there
    rules = load_ruleset("all-fives", target=15, target_checked="immediately")
    game = replay_match(rules, [hand]).games[0]
    assert (game.ended_by, game.winner, game.scores) == ("target", "N", {"N": 20, "S": 10})


def test_nova_block_later_games_open_with_previous_winner_any_tile():
    # Seed 002: "In subsequent games the winner of the previous game plays first and may choose
    # to play any tile in their hand." Game 1 opens with [6-6]; games 2..5 by the last winner.
    import random

    from engine.match import next_context, replay_match
    from engine.ruleset import load_ruleset
    from engine.simulate import simulate_hand

    rules = load_ruleset("nova-block")
    rng = random.Random(11)
    logs: list[list] = []
    for _ in range(5):
        state = replay_match(rules, logs)
        logs.append(simulate_hand(rules, rng, next_context(rules, state.games, len(logs) + 1)))
    state = replay_match(rules, logs)
    assert state.over and len(state.games) == 5
    first_lead = [next(e for e in log if e.type == "play") for log in logs]
    assert first_lead[0].tile.key == (6, 6)
    for prev_game, lead in zip(state.games, first_lead[1:]):
        assert lead.seat == prev_game.hands[-1].result.winner_seat
    assert not any(f.kind == "wrong_start" for g in state.games for h in g.hands for f in h.flags)
    assert any(not lead.tile.is_double for lead in first_lead[1:])  # "any tile" really happened


def test_004_events_after_the_game_ended_during_play_are_marked_and_not_counted():
    """Lisa B. with target 10, checked immediately ("The game is over when target points are
    reached"): S's 4-3 makes 10 and ends the game; N's 6-3 after it scores 10 on the table but the
    running score leaves it out, with a flag that says why."""
    from engine.timeline import timeline

    rules = load_ruleset("lisa-b-all-fives", target=10)
    hand = ev("deal N 3-3 6-4 6-3 6-2 6-1 6-0 5-4 / S 2-2 5-2 5-1 5-0 4-3 4-2 4-1",
              "N 3-3",    # lone spinner 3 + 3 = 6: nothing
              "S 4-3 E",  # W side of the spinner 3 + E 4 + ... = 10 -> S 10, the target
              "N 6-3 W")  # 6 + 4 = 10 on the table, after the game ended
    rows = [r for r in timeline(replay_match(rules, [hand])) if r["type"] == "play"]
    assert rows[1]["points"] == {"S": 10} and rows[1]["score"] == {"N": 0, "S": 10} and rows[1]["flags"] == []
    assert rows[2]["points"] == {"N": 10} and rows[2]["score"] == {"N": 0, "S": 10}
    assert [f["kind"] for f in rows[2]["flags"]] == ["not_counted"]
    assert "the game was over (S reached 10)" in rows[2]["flags"][0]["message"]


def test_000_a_score_passing_an_exact_target_is_marked_and_not_counted():
    """The pagat "exactly N" variant (target_exact): the running score of the timeline counts what
    the game counts; the overshooting 10 keeps its points for the record, with a flag."""
    from engine.timeline import timeline

    hand = ev("N 5-5", "S 5-0 E", "N 0-0 E", "S 5-4 W", "N 5-1 N")  # as in the test above
    rules = load_ruleset("all-fives", target=15, target_exact=True, target_checked="immediately")
    rows = [r for r in timeline(replay_match(rules, [hand])) if r["type"] == "play"]
    assert [r["score"]["N"] for r in rows] == [10, 10, 10, 10, 15]
    assert rows[2]["points"] == {"N": 10} and [f["kind"] for f in rows[2]["flags"]] == ["not_counted"]
    assert "N would pass the target 15" in rows[2]["flags"][0]["message"]
    assert all(r["flags"] == [] for k, r in enumerate(rows) if k != 2)


def test_004_several_draws_in_one_event_past_a_playable_tile_are_flagged():
    # "he must draw tiles from the boneyard until he draws a playable tile": 1-0 fits the 1 end, so drawing
    # 2-0 after it was drawing with a legal play, as two draw events say (helper-115: one event said nothing)
    rules = load_ruleset("muggins")
    deal = "deal N 6-1 1-2 2-3 3-4 4-4 / S 0-0 2-2 3-3 5-5 4-0"
    one = replay(rules, ev(deal, "N 6-1", "S draw 1-0 2-0", "S 1-0 E"))
    two = replay(rules, ev(deal, "N 6-1", "S draw 1-0", "S draw 2-0", "S 1-0 E"))
    assert kinds(one) == kinds(two) == ["draw_with_play"]
    assert kinds(replay(rules, ev(deal, "N 6-1", "S draw 2-0 1-0", "S 1-0 E"))) == []  # the last one fits: right


def test_an_exposed_tile_must_be_played_at_the_first_chance():
    """helper-119, seed 003: a tile that "doesn't fit ... must be placed on the table faced up and played at
    the first opp. possible"; seed 001: "play at first chance". W exposes 2-0; ends 0|2 after N's 6-2, and
    W plays 3-0: flagged once (later plays past it are the same missed chance)."""
    rules = load_ruleset("jersey-partnership")
    log = ev("deal N 6-6 4-3 6-2 5-5 5-3 3-3 4-4 / W 2-1 4-1 5-1 3-0 6-1 3-1 2-0 / S 6-4 1-0 5-4 2-2 5-0 5-2 6-3"
             " / E 3-2 4-2 0-0 1-1 4-0 6-5 6-0",
             "W reveal 2-0", "N 6-6", "W 6-1 W", "S 1-0 W", "E 0-0 W", "N 6-2 E", "W 3-0 W", "S 5-2 E",
             "E 6-5 E", "N 3-3 W", "W 3-1 W")
    st = replay(rules, log, HandContext(leader="N"))
    (missed,) = [(o.index, f) for o in st.outcomes for f in o.flags if f.kind == "exposed_tile_not_played"]
    assert (missed[0], missed[1].seat, missed[1].details) == (7, "W", {"exposed": [[2, 0]]})  # event 7: W 3-0
    # passing with it playable is passing with a play, though W's hand were unknown
    st = replay(rules, ev("W reveal 2-0", "N 6-6", "W 6-1 W", "S 1-0 W", "E 0-0 W", "N 6-2 E", "W pass"),
                HandContext(leader="N"))
    assert [(f.kind, f.seat) for f in st.outcomes[-1].flags] == [("pass_with_play", "W")]
    # without the rule: nothing
    st = replay(load_ruleset("jersey-partnership", exposed_tile_play_first=False), log, HandContext(leader="N"))
    assert "exposed_tile_not_played" not in kinds(st)


def test_pagat_leads_after_a_blocked_hand():
    """helper-122: pagat's Fives and Threes passes the lead to the left after every hand, a blocked one too
    (N, the lowest hand, was to lead again and S's lead was flagged out of turn); All Fives draws lots."""
    block = ["deal N 6-6 0-0 / S 1-1 2-2", "N 6-6", "S pass", "N pass"]  # no 6 left: blocked at once
    for preset, leader in (("fives-and-threes", "S"), ("all-fives", None)):
        rules = load_ruleset(preset, hand_size=2, boneyard=False, draw_rule="none")
        match = replay_match(rules, [ev(*block), ev("S 5-5")])
        assert match.games[0].hands[0].result.kind == "locked"
        hand2 = match.games[0].hands[1]
        assert (hand2.context.leader, hand2.context.required_lead) == (leader, None) and kinds(hand2) == []
