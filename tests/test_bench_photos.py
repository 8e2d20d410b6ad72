"""The photo-folder benchmark's pieces (``bench/sec_photos.py``): which frames become photos, and the
in-order comparison of a record with the ground truth."""

from __future__ import annotations

from bench.sec_photos import photo_frames, score_draws, score_folder
from engine.match import replay_match
from engine.notation import parse_event
from engine.record import record_from_match, to_json
from engine.ruleset import load_ruleset


def test_photos_are_the_first_frame_each_event_after_the_arm_left_and_the_last():
    gt = {"fps": 10.0, "n_frames": 100,
          "hands": [{"events": [{"type": "deal", "frame": 0}, {"type": "play", "frame": 20},
                                {"type": "play", "frame": 95}]}]}
    assert photo_frames(gt) == [0, 28, 99]  # 0.8 s = 8 frames after each event; none past the last frame


def _gt_and_record(lines: list[str], gt_plays: list[tuple[str, list[int], str | None]]) -> tuple[dict, str]:
    rules = load_ruleset("block")
    log = [parse_event(x) for x in lines]
    hand = replay_match(rules, [log]).games[0].hands[0]
    gt = {"hands": [{"events": [{"type": "play", "seat": s, "tile": t, "end": e} for s, t, e in gt_plays],
                     "result": None if hand.result is None else {"kind": hand.result.kind,
                                                                 "winner": hand.result.winner_seat},
                     "scores": dict(hand.scores)}]}
    return gt, to_json(record_from_match(rules, [log]))


def test_a_folder_record_is_compared_play_by_play_in_order():
    rules_lines = ["N 6-6", "S 6-5 E", "S takeback 6-5", "S 6-4 E", "N 4-4 E"]
    want = [("N", [6, 6], None), ("S", [4, 6], "E"), ("N", [4, 4], "E")]
    gt, rec = _gt_and_record(rules_lines, want)
    assert score_folder(gt, rec) == {"plays": 3, "plays_right": 3, "seats_right": 3, "extra_plays": 0,
                                     "hands": 1, "hands_right": 0}  # the hand goes on: no result to match
    gt["hands"][0]["events"][1]["seat"] = "N"  # the ground truth's S play given to N: one seat, one play wrong
    sc = score_folder(gt, rec)
    assert (sc["plays_right"], sc["seats_right"]) == (2, 2)


def test_a_hand_is_right_with_its_result_and_points():
    gt, rec = _gt_and_record(["N 6-6", "S 6-5 E", "end umpire"], [("N", [6, 6], None), ("S", [6, 5], "E")])
    assert score_folder(gt, rec)["hands_right"] == 1
    gt["hands"][0]["scores"] = {"N": 5, "S": 0}
    assert score_folder(gt, rec)["hands_right"] == 0
    gt, rec = _gt_and_record(["N 6-6", "S 6-5 E", "end umpire"], [("N", [6, 6], None), ("S", [6, 5], "E")])
    gt["hands"][0]["result"]["kind"] = "locked"
    assert score_folder(gt, rec)["hands_right"] == 0


def test_one_photo_per_play_leaves_out_the_dealt_table_draws_and_passes_not_the_hands_shown():
    gt = {"fps": 10.0, "n_frames": 100,
          "hands": [{"events": [{"type": "deal", "frame": 0}, {"type": "play", "frame": 20},
                                {"type": "draw", "frame": 30}, {"type": "pass", "frame": 40},
                                {"type": "play", "frame": 50}, {"type": "reveal", "frame": 70}]}]}
    assert photo_frames(gt) == [0, 28, 38, 48, 58, 78, 99]
    assert photo_frames(gt, plays_only=True) == [28, 58, 78, 99]  # the hands shown at the end: a photo too


def test_draws_are_right_per_hand_and_seat():
    """Ground truth: hand 1 N drew 2 (one event of two tiles) and S 1; hand 2 S drew 1. The review gave hand 1's
    S draw to N and counted hand 2's draw in game 2's first hand, the match's second."""
    gt = {"hands": [{"events": [{"type": "draw", "seat": "N", "tiles": [[1, 0], [2, 0]]},
                                {"type": "draw", "seat": "S", "tiles": [[3, 0]]}]},
                    {"events": [{"type": "draw", "seat": "S", "tiles": [[4, 0]]}]}]}
    rows = [{"type": "play", "game": 1, "hand": 1}, {"type": "draw", "seat": "N", "count": 2, "game": 1, "hand": 1},
            {"type": "draw", "seat": "N", "count": 1, "game": 1, "hand": 1}, {"type": "flag"},
            {"type": "draw", "seat": "S", "count": 1, "game": 2, "hand": 1}]
    # hand 1: N min(2, 3) + S min(1, 0); hand 2: S min(1, 1)
    assert score_draws(gt, rows) == {"gt_drawn": 4, "drawn": 4, "drawn_right": 3}
