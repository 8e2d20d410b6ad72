"""End-of-hand reveals from the camera (vision/reveals.py): counted pips become the domino award."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from engine.events import Deal, HandEnd, Pass, Play, Reveal
from engine.hand import Hand
from engine.notation import parse_event
from engine.ruleset import load_ruleset
from vision.placements import Notice
from vision.reveals import RevealWatcher, seat_of_position


def _shown(*tiles_at):
    """Face-up tiles as the tracker holds them: key (high, low) and a centre (x, y)."""
    return [SimpleNamespace(key=(max(a, b), min(a, b)), geom=SimpleNamespace(center=np.array(c, float), length=10.0))
            for (a, b), c in tiles_at]


def _seat(center):  # N sits at y = 0, S at y = 100 (only these two seats play)
    return "S" if center[1] > 50 else "N"


def _kinds(events):
    return [e.kind if isinstance(e, Notice) else e.type for e in events]


def test_block_game_reveals_when_every_tile_is_face_up():
    # Block rules with 3-tile hands: N leads 6-6, S plays 6-5, N 5-4, S passes, N 4-3 and is out.
    rules = load_ruleset("block").model_copy(update={"hand_size": 3})
    judge = Hand(rules)
    for ev in (Play(seat="N", tile=[6, 6]), Play(seat="S", tile=[6, 5], end="E"), Play(seat="N", tile=[5, 4], end="E"),
               Pass(seat="S"), Play(seat="N", tile=[4, 3], end="E")):
        judge.append(ev)
    assert judge.state.over and judge.state.result is None  # S's two tiles are not counted yet
    w = RevealWatcher()
    # one of S's two tiles is face up: wait for the other
    assert w.step(judge, judge.append, _shown(((3, 2), (10, 95))), _seat, 40, 4.0) == []
    out = w.step(judge, judge.append, _shown(((3, 2), (10, 95)), ((1, 0), (30, 95))), _seat, 50, 5.0)
    assert _kinds(out) == ["reveal"] and out[0].seat == "S"
    assert sorted((t.a, t.b) for t in out[0].tiles) == [(1, 0), (3, 2)]
    r = judge.state.result
    # pagat block: the winner scores the pips left in the opponents' hands, exactly: 3 + 2 + 1 + 0 = 6
    assert (r.kind, r.winner_seat, r.awards["N"]) == ("domino", "N", 6)
    # the winner's own side is never revealed; a later change is a notice, not a new count
    out = w.step(judge, judge.append, _shown(((3, 2), (10, 95))), _seat, 60, 6.0)
    assert _kinds(out) == ["reveal_changed"] and judge.state.result.awards["N"] == 6


def test_block_game_tiles_shown_by_both_seats_lock_the_hand():
    # 3-tile hands: N leads 6-6, S plays 6-5; then both show their last two tiles (nobody can play)
    rules = load_ruleset("block").model_copy(update={"hand_size": 3})
    judge = Hand(rules)
    judge.append(Play(seat="N", tile=[6, 6]))
    judge.append(Play(seat="S", tile=[6, 5], end="E"))
    w = RevealWatcher()
    shown = _shown(((1, 0), (10, 5)), ((2, 1), (30, 5)), ((3, 3), (10, 95)), ((2, 0), (30, 95)))
    assert w.step(judge, judge.append, shown, _seat, 40, 4.0) == [] and w.read_due(4.0)  # a block game: at once
    out = w.step(judge, judge.append, shown, _seat, 41, 4.5)
    assert _kinds(out) == ["pass", "pass", "hand_end_inferred", "reveal", "reveal"]
    assert [e.seat for e in out if e.type == "pass"] == ["N", "S"]  # N was to play
    r = judge.state.result
    # pagat block: the lowest hand (N: 1+0+2+1 = 4 against S: 3+3+2+0 = 8) scores the opponents' 8 pips
    assert (r.kind, r.winner_seat, r.remaining, r.awards["N"]) == ("locked", "N", {"N": 4, "S": 8}, 8)


def _draw_hand_s_played_last():
    """All Fives with 1-tile hands (so S is out with one play): N leads 6-4, S plays 4-3."""
    judge = Hand(load_ruleset("all-fives").model_copy(update={"hand_size": 1}))
    judge.append(Deal(hands={}, draws_seen=False))  # the camera sees no draws: tile counts unknown
    judge.append(Play(seat="N", tile=[6, 4]))
    judge.append(Play(seat="S", tile=[4, 3], end="E"))
    return judge


N_SHOWS = (((5, 5), (10, 10)), ((2, 1), (30, 10)))  # in front of N, who did not play last: 13 pips
S_SHOWS = (((6, 6), (10, 95)), ((6, 5), (30, 95)))  # in front of S, the last player: 23 pips


def test_draw_game_infers_the_domino_once_the_hands_shown_settle():
    judge = _draw_hand_s_played_last()
    w = RevealWatcher(settle_s=3.0)
    shown = _shown(*N_SHOWS)
    assert w.step(judge, judge.append, shown, _seat, 30, 3.0) == [] and w.pending
    assert not w.read_due(5.9) and w.read_due(6.0)  # no read is asked for while S may still show tiles
    assert w.step(judge, judge.append, shown, _seat, 31, 3.5) == [] and not judge.state.over  # too soon
    out = w.step(judge, judge.append, shown, _seat, 60, 6.0)
    assert _kinds(out) == ["hand_end", "hand_end_inferred", "reveal"]
    assert isinstance(out[0], HandEnd) and (out[0].kind, out[0].winner) == ("domino", "S")
    assert isinstance(out[2], Reveal) and out[2].seat == "N" and not w.pending
    # the end, its notice and the reveal are timed when N's tiles were first shown (3.0 s, frame 30), not
    # at the read that settled them (helper-90: the report's link jumped 3 s late; helper-92: the notice
    # gave the end a second time)
    assert [(e.t, e.frame) for e in out] == [(3.0, 30), (3.0, 30), (3.0, 30)]
    # all fives (pagat): the opponents' 13 pips, rounded to the nearest 5 -> 15
    r = judge.state.result
    assert (r.winner_seat, r.remaining["N"], r.awards["S"]) == ("S", 13, 15)


def test_draw_game_last_player_showing_tiles_too_is_a_lock_not_a_domino():
    # helper-74's case: N turns its hand up, then S (who played last) a moment later
    judge = _draw_hand_s_played_last()
    w = RevealWatcher(settle_s=3.0)
    assert w.step(judge, judge.append, _shown(*N_SHOWS), _seat, 30, 3.0) == []
    both = _shown(*N_SHOWS, *S_SHOWS)
    assert w.step(judge, judge.append, both, _seat, 45, 4.5) == []  # the tiles shown changed: wait again
    assert w.step(judge, judge.append, both, _seat, 60, 6.0) == [] and not judge.state.over
    out = w.step(judge, judge.append, both, _seat, 75, 7.5)
    assert _kinds(out) == ["hand_end", "hand_end_inferred", "reveal", "reveal"]
    assert (out[0].kind, out[0].winner) == ("locked", None)
    assert sorted(e.seat for e in out[2:]) == ["N", "S"]
    # all fives lock (pagat): the lowest hand, N with 13 pips against S's 23, scores the opponents'
    # 23 pips rounded to the nearest 5 -> 25 (a domino would have given S 15)
    r = judge.state.result
    assert (r.kind, r.winner_side, r.remaining, r.awards) == ("locked", "N", {"N": 13, "S": 23}, {"N": 25, "S": 0})


def test_reveals_seen_at_one_read_come_in_turn_order_from_the_seat_after_the_last_player():
    """muggins seed 6: the hand locked after N's last play, S showed its tile 1.9 s before N, and one read
    saw both; the reveals were recorded N first (by the seats' names)."""
    # all fives, 2-tile hands: N leads 6-4, S plays 4-3, N 3-2 (N's full hand laid, N the last player)
    judge = Hand(load_ruleset("all-fives").model_copy(update={"hand_size": 2}))
    judge.append(Deal(hands={}, draws_seen=False))
    for ev in (Play(seat="N", tile=[6, 4]), Play(seat="S", tile=[4, 3], end="E"), Play(seat="N", tile=[3, 2], end="E")):
        judge.append(ev)
    w = RevealWatcher(settle_s=3.0)
    both = _shown(*N_SHOWS, *S_SHOWS)
    assert w.step(judge, judge.append, both, _seat, 30, 3.0) == []
    out = w.step(judge, judge.append, both, _seat, 60, 6.0)
    assert _kinds(out) == ["hand_end", "hand_end_inferred", "reveal", "reveal"] and out[0].kind == "locked"
    assert [e.seat for e in out[2:]] == ["S", "N"]  # the turn after N's play was S's


def test_a_seat_whose_tiles_were_seen_first_reveals_first():
    # S (the last player) shows its tiles at one read, N at the next: S's reveal comes first, although
    # the turn after S's play would have been N's
    judge = _draw_hand_s_played_last()
    w = RevealWatcher(settle_s=3.0)
    assert w.step(judge, judge.append, _shown(*S_SHOWS), _seat, 30, 3.0) == []
    both = _shown(*N_SHOWS, *S_SHOWS)
    assert w.step(judge, judge.append, both, _seat, 45, 4.5) == []
    assert w.step(judge, judge.append, both, _seat, 60, 6.0) == []
    out = w.step(judge, judge.append, both, _seat, 75, 7.5)
    assert _kinds(out) == ["hand_end", "hand_end_inferred", "reveal", "reveal"] and out[0].kind == "locked"
    assert [e.seat for e in out[2:]] == ["S", "N"]


def test_the_footage_end_settles_the_hands_shown_at_once():
    judge = _draw_hand_s_played_last()
    w = RevealWatcher(settle_s=3.0)
    assert w.step(judge, judge.append, _shown(*N_SHOWS), _seat, 30, 3.0) == []
    out = w.step(judge, judge.append, _shown(*N_SHOWS), _seat, 30, 3.0, final=True)
    assert _kinds(out) == ["hand_end", "hand_end_inferred", "reveal"] and out[0].winner == "S"


def _draw_line_blocked_by_s():
    """draw (pagat), 5-tile hands: ten plays leave both ends on 5 with all seven 5s laid - the line is
    blocked by S's 4-5, which the engine locks (it cannot count S's hand)."""
    judge = Hand(load_ruleset("draw").model_copy(update={"hand_size": 5}))
    judge.append(Deal(hands={}, draws_seen=False))
    for line in ("N 5-0", "S 0-1 E", "N 1-5 E", "S 5-5 W", "N 5-6 W", "S 6-2 W", "N 2-5 W", "S 5-3 E", "N 3-4 E",
                 "S 4-5 E"):
        judge.append(parse_event(line))
    assert judge.state.pending_end == ("locked", None, "S")
    return judge


N_BLOCKED = (((4, 4), (10, 10)), ((2, 1), (30, 10)))  # tiles not on that line
S_BLOCKED = (((6, 6), (10, 95)), ((3, 3), (30, 95)))


def test_a_draw_games_blocking_last_tile_is_a_domino_when_only_the_others_show_tiles():
    # helper-76, draw seed 11: S went out with the 5-5 that blocked the line; only N showed tiles, the
    # engine's lock waited for S's reveal forever and the hand was cleared unscored
    judge = _draw_line_blocked_by_s()
    w = RevealWatcher(settle_s=3.0)
    out = w.step(judge, judge.append, _shown(*N_BLOCKED), _seat, 30, 3.0)
    assert _kinds(out) == ["reveal"] and judge.state.result is None  # counted, the end still waits
    assert w.step(judge, judge.append, _shown(*N_BLOCKED), _seat, 31, 3.5) == []
    out = w.step(judge, judge.append, _shown(*N_BLOCKED), _seat, 60, 6.0)
    assert _kinds(out) == ["hand_end", "hand_end_inferred"] and (out[0].kind, out[0].winner) == ("domino", "S")
    # draw (pagat): the winner scores the pips left in the opponents' hands: N's 4+4+2+1 = 11
    r = judge.state.result
    assert (r.kind, r.winner_seat, r.awards) == ("domino", "S", {"N": 0, "S": 11})


def test_a_blocked_line_with_draws_unseen_awaits_every_hand_not_shown():
    """helper-89: S laid 5 tiles of a 5-tile hand, but draws are unseen, so S may hold more: the lock
    waits for S's tiles too (the review said "the tiles of  were never shown")."""
    judge = _draw_line_blocked_by_s()
    assert judge.state.awaiting_reveal() == ["N", "S"]
    assert [f.message for f in judge.state.flags if f.kind == "awaiting_reveal"] == [
        "hand over (locked): reveal the tiles of N, S"]
    judge.append(Reveal(seat="N", tiles=[[4, 4], [2, 1]]))
    assert judge.state.awaiting_reveal() == ["S"] and judge.state.result is None


def test_a_draw_games_blocked_line_stays_locked_when_the_last_player_shows_tiles():
    judge = _draw_line_blocked_by_s()
    w = RevealWatcher(settle_s=3.0)
    both = _shown(*N_BLOCKED, *S_BLOCKED)
    out = w.step(judge, judge.append, both, _seat, 30, 3.0) + w.step(judge, judge.append, both, _seat, 60, 6.0)
    assert _kinds(out) == ["reveal", "reveal"]
    r = judge.state.result  # draw (pagat) lock: the lowest hand, N 11 against S 6+6+3+3 = 18, scores S's 18
    assert (r.kind, r.remaining, r.awards) == ("locked", {"N": 11, "S": 18}, {"N": 18, "S": 0})


def test_no_domino_before_the_last_player_laid_a_full_hand():
    judge = Hand(load_ruleset("all-fives"))  # 7-tile hands
    judge.append(Deal(hands={}, draws_seen=False))
    judge.append(Play(seat="N", tile=[6, 4]))
    w = RevealWatcher()
    shown = _shown(((5, 5), (10, 95)))  # S shows a tile after N's first play: not a reveal
    assert w.step(judge, judge.append, shown, _seat, 30, 3.0) == []
    assert w.step(judge, judge.append, shown, _seat, 31, 3.5) == [] and not judge.state.over


def test_a_tile_that_moved_between_the_reads_is_carried_not_revealed():
    rules = load_ruleset("all-fives").model_copy(update={"hand_size": 1})
    judge = Hand(rules)
    judge.append(Deal(hands={}, draws_seen=False))
    judge.append(Play(seat="N", tile=[6, 4]))
    w = RevealWatcher()
    assert w.step(judge, judge.append, _shown(((3, 3), (50, 95))), _seat, 10, 1.0) == []
    # 4 units = 0.4 tile lengths further: moved, so the first read is not confirmed
    assert w.step(judge, judge.append, _shown(((3, 3), (50, 91))), _seat, 12, 1.5) == [] and not judge.state.over
    assert w.step(judge, judge.append, _shown(((3, 3), (50, 91))), _seat, 14, 2.0) == []  # it lies still...
    out = w.step(judge, judge.append, _shown(((3, 3), (50, 91))), _seat, 45, 4.5)  # ...settle_s since it moved
    assert _kinds(out) == ["hand_end", "hand_end_inferred", "reveal"]


def test_tiles_shown_then_missed_at_one_read_are_read_again_and_end_the_hand():
    """helper-89 (live, a still table): one read missed N's tiles; no read was asked for again, so the
    hand never ended."""
    judge = _draw_hand_s_played_last()
    w = RevealWatcher(settle_s=3.0)
    shown = _shown(*N_SHOWS)
    assert w.step(judge, judge.append, shown, _seat, 30, 3.0) == []
    assert w.step(judge, judge.append, shown, _seat, 35, 3.5) == []  # still: settling
    assert w.step(judge, judge.append, [], _seat, 60, 6.0) == [] and not judge.state.over  # missed at this read
    assert not w.read_due(8.9) and w.read_due(9.0)  # asked for again settle_s later
    out = w.step(judge, judge.append, shown, _seat, 90, 9.0)  # back: still the same tiles, settled
    assert _kinds(out) == ["hand_end", "hand_end_inferred", "reveal"] and (out[0].kind, out[0].winner) == ("domino", "S")


def test_a_tile_held_up_for_one_read_does_not_end_the_hand():
    rules = load_ruleset("all-fives").model_copy(update={"hand_size": 1})
    judge = Hand(rules)
    judge.append(Deal(hands={}, draws_seen=False))
    judge.append(Play(seat="N", tile=[6, 4]))
    w = RevealWatcher()
    assert w.step(judge, judge.append, _shown(((3, 3), (50, 90))), _seat, 10, 1.0) == [] and w.pending
    assert w.step(judge, judge.append, [], _seat, 12, 1.5) == [] and not w.pending
    assert not judge.state.over


def test_seat_of_position_without_calibration_uses_the_nearest_image_border():
    size = (640, 360)
    assert [seat_of_position(np.array(p), None, size) for p in ((320, 5), (630, 180), (320, 350), (4, 180))] == \
        ["N", "E", "S", "W"]
    assert seat_of_position(np.array((1, 1)), None, None) is None


def test_a_shown_tile_the_line_already_holds_is_not_counted_and_said_once():
    """helper-76, draw seed 6: a misread play left a 3-2 in the line, and S's real 3-2 shown at the end
    was dropped from its reveal without a word."""
    judge = _draw_hand_s_played_last()  # the line: 6-4 4-3
    w = RevealWatcher(settle_s=3.0)
    shown = _shown(((5, 5), (10, 10)), ((4, 3), (30, 10)))  # N shows 5-5 and a 4-3 the line holds
    assert w.step(judge, judge.append, shown, _seat, 30, 3.0) == []  # the hand goes on: nothing said yet
    out = w.step(judge, judge.append, shown, _seat, 60, 6.0)
    assert _kinds(out) == ["hand_end", "hand_end_inferred", "reveal", "shown_on_line"]
    assert [(t.a, t.b) for t in out[2].tiles] == [(5, 5)] and (out[3].seat, out[3].tile) == ("N", (4, 3))
    assert "N shows 4-3, which the line of play already holds" in out[3].message
    assert w.step(judge, judge.append, shown, _seat, 61, 6.5) == []  # once


def test_a_hand_shown_in_one_photo_ends_the_hand_when_the_table_is_cleared():
    """helper-201: a folder of photos, one per move and one of the hands shown (README): N's tiles shown in one
    photo, then the next hand's table. Footage needs the tiles still at two reads (a tile carried face up is no
    reveal), so the one photo's were dropped when they left, and the hand was "cleared before it ended". A photo
    is a still table: the sweep's settle() ends the hand as that photo showed it."""
    for photos, ends in ((True, True), (False, False)):
        judge = _draw_hand_s_played_last()
        w = RevealWatcher(settle_s=3.0, photos=photos)
        assert w.step(judge, judge.append, _shown(*N_SHOWS), _seat, 17, 17.0) == []
        assert w.step(judge, judge.append, [], _seat, 18, 18.0) == []  # the next photo: the tiles are gone
        out = w.settle(judge, judge.append, 19, 19.0)  # the line of play is gone too: the table was cleared
        assert judge.state.over is ends
        if ends:
            assert _kinds(out) == ["hand_end", "hand_end_inferred", "reveal"]
            assert (out[0].kind, out[0].winner, out[0].frame) == ("domino", "S", 17)
            # all fives: N's 13 pips left, to the nearest 5 -> 15 for S
            assert judge.state.result.awards["S"] == 15


def _tracked(tile_id, tiles_at, det_score):
    """A face-up tile as the tracker holds it, with its id and the detector's score of its first box."""
    (shown,) = _shown(tiles_at)
    shown.id, shown.det_score = tile_id, det_score
    return shown


def test_printed_dominoes_uncovered_in_a_hand_area_are_no_reveal():
    """fives-and-threes seed 12 on a game board, calibrated: N's face-down tiles hid printed dominoes, which
    came into view, weakly boxed (0.4-0.55), as N played; N's real tile turned up at the end made 2 and 3
    tiles for the 1 N held ("N holds 1 tile, the reveal shows 2"), and the record awaited N's reveal."""
    rules = load_ruleset("block").model_copy(update={"hand_size": 3})
    judge = Hand(rules)
    w = RevealWatcher()
    old = _tracked(1, ((5, 5), (50, 5)), 0.51)  # a picture in N's area at the dealt table, before any play
    assert w.step(judge, judge.append, [old], _seat, 10, 1.0) == []
    judge.append(Play(seat="N", tile=[6, 6]))
    # N's lead uncovered a second picture: first seen at the read of a play
    uncovered = _tracked(2, ((4, 3), (70, 5)), 0.54)
    assert w.step(judge, judge.append, [old, uncovered], _seat, 20, 2.0) == []
    judge.append(Play(seat="S", tile=[6, 5], end="E"))
    assert w.step(judge, judge.append, [old, uncovered], _seat, 30, 3.0) == []
    # nobody can play: both seats turn their two tiles up; S's 2-0 boxed weakly, but shown after the last play
    hands = [_tracked(3, ((1, 0), (10, 5)), 0.95), _tracked(4, ((2, 1), (30, 5)), 0.93),
             _tracked(5, ((3, 3), (10, 95)), 0.94), _tracked(6, ((2, 0), (30, 95)), 0.6)]
    shown = [old, uncovered] + hands
    assert w.step(judge, judge.append, shown, _seat, 40, 4.0) == []
    out = w.step(judge, judge.append, shown, _seat, 41, 4.5)
    assert _kinds(out) == ["pass", "pass", "hand_end_inferred", "reveal", "reveal"]
    assert {e.seat: sorted((t.a, t.b) for t in e.tiles) for e in out if e.type == "reveal"} == {
        "N": [(1, 0), (2, 1)], "S": [(2, 0), (3, 3)]}
    assert judge.state.result.remaining == {"N": 4, "S": 8}
