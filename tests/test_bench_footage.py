"""The footage benchmark's scoring (``bench/sec_footage.py``) on small hand-made hands.

Every expected number below is counted by hand from the rows written out in the test.
"""

from __future__ import annotations

import pytest

from bench.sec_footage import latency_stats, match_plays, review_plays, score_hand, summarise


def _gt_play(t, tile, end, points=None, mismatched=False, index=0):
    return {"t": t, "tile": tile, "end": end, "points": points or {}, "mismatched_end": mismatched,
            "index": index, "hand": 1}


def _play(t, tile, end, points=None, flags=(), frame=None):
    return {"type": "play", "t": t, "frame": frame if frame is not None else int(t * 15), "tile": tile,
            "end": end, "points": points or {}, "flags": [{"kind": k} for k in flags]}


def _flag(t, kind, frame=None, tile=None):
    return {"type": "flag", "kind": kind, "t": t, "frame": frame if frame is not None else int(t * 15), "tile": tile}


# A hand of five plays: [6|6] lead, [6|1] on E (5 points to N), [1|1] on E, [3|4] on W (a
# mismatched end: W is 6), [5|5] ends the hand (10 points to S plus a 7-point award).
GT = {
    "plays": [
        _gt_play(2.0, [6, 6], "lead", index=1),
        _gt_play(5.0, [6, 1], "E", {"N": 5, "S": 0}, index=2),
        _gt_play(8.0, [1, 1], "E", index=3),
        _gt_play(11.0, [3, 4], "W", mismatched=True, index=4),
        _gt_play(14.0, [5, 5], "E", {"S": 17}, index=5),
    ],
    "hands": [{"result": {"awards": {"N": 0, "S": 7}}, "scores": {"N": 5, "S": 17}}],
}


def test_matching_by_tile_then_by_time():
    plays = [
        _play(2.9, [6, 6], "lead"),
        _play(6.0, [1, 6], "E"),   # [6|1] read touching half second: matched by tile
        _play(9.0, [1, 2], "E"),   # [1|1] misread as [1|2]: matched by time (between 8.0 and 11.0)
        _play(20.0, [0, 0], "W"),  # after the last rest time, no such tile: matched by time to [5|5]
    ]
    assert match_plays(GT["plays"], plays) == [(0, "tile"), (1, "tile"), (2, "time"), (None, None), (3, "time")]


def test_a_tile_read_before_it_came_to_rest_is_not_its_play():
    # [3|4] read at 5.8 s, long before its rest at 11.0 s: a misread of [6|1] (at rest 5.0 s to 8.0 s)
    plays = [_play(5.8, [3, 4], "E")]
    assert match_plays(GT["plays"], plays) == [(None, None), (0, "time"), (None, None), (None, None), (None, None)]


def test_take_back_retracts_the_latest_play_of_its_tile():
    rows = [_play(3.0, [6, 6], "lead"), _play(6.0, [1, 6], "E"),
            {"type": "take_back", "t": 6.5, "tile": [6, 1]}, _play(7.0, [6, 1], "E")]
    assert [(r["t"], r["tile"]) for r in review_plays(rows)] == [(3.0, [6, 6]), (7.0, [6, 1])]


def test_score_hand_counts_by_hand():
    rows = [
        _play(2.8, [6, 6], "lead"),
        _play(6.0, [6, 1], "E", {"N": 5, "S": 0}),          # right, latency 1.0
        _play(8.6, [1, 1], "W"),                              # wrong end, points right (none)
        _play(12.5, [3, 4], "W", flags=("mismatched_end",)),  # the injected mismatch, flagged
        _flag(12.5, "mismatched_end", frame=int(12.5 * 15), tile=[3, 4]),
        _play(13.0, [2, 2], "E", flags=("mismatched_end",)),  # a play that never happened: a false flag
        _flag(13.0, "mismatched_end"),
        _flag(13.2, "uncertain_read"),
        _play(15.0, [5, 5], "E", {"S": 10}),                  # the award comes with the reveal: right
        _flag(15.5, "out_of_turn"),
        {"type": "hand_end", "t": 16.0, "score": {"N": 5, "S": 17}},
    ]
    s = score_hand(GT, rows)
    assert {k: s[k] for k in ("gt_plays", "found", "misread", "tile_right", "points_right", "extra_plays",
                              "injected", "injected_flagged", "false_mismatch_flags", "uncertain_alerts")} == {
        "gt_plays": 5, "found": 5, "misread": 0, "tile_right": 4, "points_right": 5, "extra_plays": 1,
        "injected": 1, "injected_flagged": 1, "false_mismatch_flags": 1, "uncertain_alerts": 1}
    assert s["latency_s"] == pytest.approx([0.8, 1.0, 0.6, 1.5, 1.0])
    assert s["mismatches"] == [{"tile": [3, 4], "t": 11.0, "status": "flagged"}]
    assert s["other_flags"] == {"out_of_turn": 1}
    assert s["score_right"] is True


def test_draws_and_passes_are_counted_per_seat():
    gt = {**GT, "draws": [{"seat": "N", "tiles": [[5, 4]]}, {"seat": "N", "tiles": [[3, 2]]},
                          {"seat": "S", "tiles": [[6, 2]]}],
          "passes": [{"seat": "N"}, {"seat": "N"}]}
    rows = [{"type": "draw", "seat": "N", "count": 1, "t": 3.0}, {"type": "draw", "seat": "N", "t": 4.0},  # count 1
            {"type": "draw", "seat": "N", "count": 1, "t": 4.5},  # one tile too many for N
            {"type": "draw", "seat": "S", "count": 2, "t": 5.0},  # S drew 1, not 2
            {"type": "pass", "seat": "N", "t": 9.0}, {"type": "pass", "seat": "S", "t": 10.0}]
    s = score_hand(gt, rows)
    # N: 2 wanted, 3 seen -> 2 right; S: 1 wanted, 2 seen -> 1 right; passes: N 1 of 2, S's extra
    assert {k: s[k] for k in ("gt_drawn", "drawn", "drawn_right", "gt_passes", "passes", "passes_right")} == {
        "gt_drawn": 3, "drawn": 5, "drawn_right": 3, "gt_passes": 2, "passes": 2, "passes_right": 1}
    assert s["boneyard_uncounted"] is False
    s = score_hand(gt, [{"type": "vision_notice", "kind": "boneyard_uncounted", "t": 2.0}])
    assert (s["drawn"], s["drawn_right"], s["boneyard_uncounted"]) == (0, 0, True)


def test_points_wrong_and_award_on_the_last_play():
    rows = [_play(6.0, [6, 1], "E", {"N": 10}),   # wrong points
            _play(15.0, [5, 5], "E", {"S": 17}),  # award included with the last play: also right
            {"type": "hand_end", "t": 16.0, "score": {"N": 10, "S": 17}}]
    s = score_hand(GT, rows)
    assert (s["found"], s["points_right"], s["score_right"]) == (2, 1, False)


@pytest.mark.parametrize("rows, status", [
    ([], "missed"),
    ([_play(12.0, [3, 5], "W")], "misread"),
    ([_play(12.0, [4, 3], "W", flags=("uncertain_read",))], "uncertain"),
    ([_play(12.0, [3, 4], "W"), _flag(12.0, "uncertain_read")], "uncertain"),  # a tracker notice, same frame
    ([_play(12.0, [3, 4], "E")], "not_flagged"),
])
def test_why_an_injected_mismatch_was_not_flagged(rows, status):
    s = score_hand(GT, rows)
    assert s["mismatches"] == [{"tile": [3, 4], "t": 11.0, "status": status}]
    assert s["injected_flagged"] == 0 and s["false_mismatch_flags"] == 0


def test_latency_stats():
    assert latency_stats([]) == {"median_s": None, "p95_s": None, "max_s": None, "n": 0}
    # 11 values 0..10: median 5; p95 at position 0.95 * 10 = 9.5 -> 9.5 (linear)
    assert latency_stats([float(x) for x in range(11)]) == {"median_s": 5.0, "p95_s": 9.5, "max_s": 10.0, "n": 11}


def test_summarise_two_hands():
    a = score_hand(GT, [_play(3.0, [6, 6], "lead"), _play(12.0, [3, 4], "W", flags=("mismatched_end",))])
    b = score_hand(GT, [_play(13.0, [2, 2], "E", flags=("mismatched_end",))])
    t = summarise([a, b])
    # a: 2 of 5 found; b: [2|2] at 13.0 lies between [3|4]'s and [5|5]'s rest: a misread of [3|4]
    assert (t["hands"], t["gt_plays"], t["found"], t["misread"], t["tile_right"]) == (2, 10, 3, 1, 2)
    assert (t["found_rate"], t["tile_right_rate"]) == (0.3, 0.2)
    assert (t["injected"], t["injected_flagged"]) == (2, 2)
    # b's flagged [2|2] is matched to the injected [3|4] but is another tile: still its flag
    assert t["statuses"] == {"flagged": 2}
    assert t["false_flags_per_10"] == 0.0
    assert t["latency"]["n"] == 3 and t["latency"]["median_s"] == 1.0
    assert summarise([])["found_rate"] is None


def test_a_match_is_scored_hand_by_hand_with_the_running_scores_gain():
    """Two hands; the review puts hand 2's first play in hand 1 (it missed the clear), and its running
    score after hand 2 is {N: 5, S: 27}: a gain of S 10 over hand 2, its points."""
    from bench.sec_match import score_match

    def row(hand, **kw):
        return {**kw, "hand": hand}

    gt = {"plays": [{**_gt_play(2.0, [6, 6], "lead", index=1), "hand": 1},
                    {**_gt_play(5.0, [6, 1], "E", {"N": 5}, index=2), "hand": 1},
                    {**_gt_play(9.0, [5, 5], "lead", {"S": 10}, index=1), "hand": 2},
                    {**_gt_play(12.0, [5, 0], "E", index=2), "hand": 2}],
          "hands": [{"result": None, "scores": {"N": 5, "S": 17}}, {"result": None, "scores": {"S": 10}}]}
    rows = [row(1, **_play(2.5, [6, 6], "lead"), score={"N": 0, "S": 0}),
            row(1, **_play(5.5, [6, 1], "E", {"N": 5}), score={"N": 5, "S": 0}),
            row(1, type="hand_end", score={"N": 5, "S": 17}),
            row(1, **_play(9.5, [5, 5], "W", {"S": 10}), score={"N": 5, "S": 27}),  # missed the clear
            {"type": "vision_notice", "kind": "hand_cleared", "hand": 2},
            row(2, **_play(12.5, [5, 0], "E"), score={"N": 5, "S": 27})]
    sc = score_match(gt, rows)
    h1, h2 = sc["hands"]
    assert (h1["found"], h1["extra_plays"], h1["tile_right"]) == (2, 1, 2)
    assert (h2["found"], h2["tile_right"]) == (1, 1)  # [5|5] is in hand 1 of the review
    assert h1["score_right"] is False  # gained {N: 5, S: 27}, the hand's points are {N: 5, S: 17}
    assert h2["score_right"] is False  # gained nothing over hand 2; its points are {S: 10}
    assert (sc["cleared"], sc["hands_seen"]) == (1, 2)
    rows[3] = row(2, **_play(9.5, [5, 5], "lead", {"S": 10}), score={"N": 5, "S": 27})  # the clear seen
    sc = score_match(gt, rows)
    assert [h["score_right"] for h in sc["hands"]] == [True, True] and sc["hands"][1]["found"] == 2


def test_a_cameras_correction_stands_for_the_play_it_replaces():
    """helper-224: a play read unsure and corrected by clear reads later (a ``correction`` row replacing its
    ``index`` in the same game and hand) counts as the corrected tile, not as a misread."""
    rows = [{**_play(3.0, [6, 6], "lead"), "game": 1, "hand": 1, "index": 0},
            {**_play(6.0, [2, 1], "E"), "game": 1, "hand": 1, "index": 1, "seat": "N"},
            {**_play(6.0, [2, 1], "E"), "game": 1, "hand": 2, "index": 1, "seat": "N"},  # another hand's slot 1
            {"type": "correction", "t": 8.0, "game": 1, "hand": 1, "index": 2, "replaces": 1, "seat": "N",
             "tile": [3, 1], "end": "E"}]
    assert [(r["t"], r["hand"], r["tile"]) for r in review_plays(rows)] == [(3.0, 1, [6, 6]), (6.0, 1, [3, 1]),
                                                                            (6.0, 2, [2, 1])]


def test_the_footage_cache_key_reads_the_renderers_own_sources_only():
    """The cached footage is rendered again when a file the renderer runs changes, not when another does
    (2026-12-05: a record-format change in engine/ re-rendered every video). The renderer's sources, found from its
    imports: a module it imports inside a function (datasets/render/surfaces.py imports textures.py lazily) is one,
    the record and service modules are not."""
    from bench.sec_footage import REPO, _renderer_sources

    names = {p.relative_to(REPO).as_posix() for p in _renderer_sources()}
    assert {"datasets/footage.py", "datasets/render/textures.py", "engine/simulate.py", "engine/hand.py",
            "engine/rulesets/draw.toml"} <= names
    assert not names & {"engine/record.py", "engine/record_text.py", "service/review.py", "vision/tracking.py"}
