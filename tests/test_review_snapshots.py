"""A review's snapshots on its record's page (service.review_snapshots) and how a camera read's flag is
worded there (service.read_flags): matched by type and frame, checked against the record's plays."""

from __future__ import annotations

import json

from engine.events import Correction, Pass, Play
from service.read_flags import as_read, rows_as_read
from service.review_snapshots import attach, flags_off_the_record, read_review, review_folder_problem


def _review(folder, rows, garbage=()):
    (folder / "snapshots").mkdir(parents=True)
    lines = []
    for r in rows:
        if "snapshot" in r and not r.pop("_gone", False):
            (folder / r["snapshot"]).write_bytes(b"\xff\xd8")
        lines.append(json.dumps(r))
    (folder / "events.jsonl").write_text("\n".join([*lines, *garbage]) + "\n")
    return folder


def _rows():
    return [{"type": "play", "frame": 10, "seat": "S", "tile": [6, 6], "snapshot": "snapshots/0000_play.jpg"},
            {"type": "play", "frame": 20, "seat": "N", "tile": [6, 2], "snapshot": "snapshots/0001_play.jpg"},
            {"type": "pass", "frame": 30, "seat": "S", "file": "photos/img_0003.png"},
            {"type": "hand_end", "frame": 30, "snapshot": "snapshots/0003_hand_end.jpg"}]


LOG = [Play(seat="S", tile="6-6", frame=10), Play(seat="N", tile="2-6", frame=20), Pass(seat="S", frame=30)]


def test_pictures_go_to_the_events_of_their_frame_whatever_the_rows_game_and_hand(tmp_path):
    folder = _review(tmp_path / "rv", _rows(), garbage=["[" * 5000, '{"type": "play", "frame": 4', "\x00\xff"])
    pics = read_review(folder, [LOG])
    assert (pics.plays, pics.agree, pics.missing) == (2, 2, 0)  # the garbage lines are skipped
    # the record moved the hand to game 2 (a correction of the target): no picture moves with it
    rows = [{"type": "play", "frame": 10, "game": 2, "hand": 1}, {"type": "play", "frame": 20, "game": 2, "hand": 1},
            {"type": "pass", "frame": 30, "game": 2, "hand": 1, "hand_end": {"kind": "locked"}}]
    named, snaps = attach(rows, pics, tmp_path / "pages")
    # the engine ended the hand on the pass, which has no picture: the hand end's (the final score) goes there
    assert snaps == {0: "../rv/snapshots/0000_play.jpg", 1: "../rv/snapshots/0001_play.jpg",
                     2: "../rv/snapshots/0003_hand_end.jpg"}
    assert [r.get("file") for r in named] == [None, None, "img_0003.png"] and "file" not in rows[2]


def test_an_ending_play_keeps_its_own_picture_and_a_record_end_row_takes_the_hand_ends(tmp_path):
    pics = read_review(_review(tmp_path / "rv", _rows()), [LOG])
    rows = [{"type": "play", "frame": 10}, {"type": "play", "frame": 20, "hand_end": {"kind": "domino"}}]
    assert attach(rows, pics, tmp_path / "rv")[1] == {0: "snapshots/0000_play.jpg", 1: "snapshots/0001_play.jpg"}
    rows.append({"type": "hand_end", "frame": 30})  # an umpire's or an inferred end in the log
    assert attach(rows, pics, tmp_path / "rv")[1][2] == "snapshots/0003_hand_end.jpg"


def test_a_fixed_play_keeps_the_misreads_picture_and_another_games_review_gives_none(tmp_path):
    folder = _review(tmp_path / "rv", _rows())
    fixed = [*LOG, Correction(replaces=1, event=Play(seat="N", tile="6-3"))]
    pics = read_review(folder, [fixed])
    assert pics.agree == 2 and attach([{"type": "play", "frame": 20}], pics, folder)[1] == {0: "snapshots/0001_play.jpg"}
    # another game: same frame numbers, other plays
    other = [Play(seat="N", tile="4-3", frame=10), Play(seat="S", tile="3-3", frame=20)]
    pics = read_review(folder, [other])
    assert (pics.plays, pics.agree, pics.snapshots) == (2, 0, {})


def test_missing_snapshot_files_are_counted(tmp_path):
    rows = _rows()
    rows[1]["_gone"] = True
    pics = read_review(_review(tmp_path / "rv", rows), [LOG])
    assert (pics.plays, pics.agree, pics.missing) == (1, 1, 1)


def test_what_is_no_review_folder_is_said(tmp_path):
    (tmp_path / "rv").mkdir()
    (tmp_path / "rv" / "events.jsonl").write_text("")
    assert review_folder_problem(tmp_path / "rv") == "not a review's folder (no snapshots/ in it)"
    assert review_folder_problem(tmp_path / "nope") == "no such folder"
    assert review_folder_problem(tmp_path / "rv" / "events.jsonl") == f"a file, not a folder (its folder: {tmp_path / 'rv'})"
    (tmp_path / "rv" / "snapshots").mkdir()
    assert review_folder_problem(tmp_path / "rv") is None


def test_a_mismatched_end_on_an_unsure_read_is_a_question():
    flag = {"kind": "mismatched_end", "message": "S played 0-4 on E showing 1: the ends do not match"}
    assert as_read(flag, 0.10) == {"kind": "uncertain_read", "message": "uncertain read of a possible mismatched "
                                   "end: S played 0-4 on E showing 1: the ends do not match (confidence 0.10)"}
    assert as_read(flag, 0.8) is flag and as_read(flag, None) is flag  # confident, or typed by a person
    assert as_read({"kind": "out_of_turn", "message": "x"}, 0.1)["kind"] == "out_of_turn"
    rows = rows_as_read([{"type": "play", "confidence": 0.5, "flags": [flag]}, {"type": "pass", "flags": []}])
    assert [f["kind"] for f in rows[0]["flags"]] == ["uncertain_read"] and flag["kind"] == "mismatched_end"


def test_a_review_with_no_rules_offers_placements_and_no_play(tmp_path):
    """helper-106: `record report --review` of a `--rules none` review was taken without a word."""
    rows = [{"type": "placement", "frame": 10, "tile": [6, 6], "snapshot": "snapshots/0001_placement.jpg"}]
    pics = read_review(_review(tmp_path / "rv", rows), [LOG])
    assert (pics.plays, pics.agree, pics.placements, pics.snapshots) == (0, 0, 1, {})


def test_the_reviews_flags_off_the_record_are_those_no_event_of_the_record_carries(tmp_path):
    """helper-185: `record report` listed the flags of the record's events only. The review's flag rows that
    are the flag of a recorded event (same frame, same kind; the review's ``uncertain_turn`` is its wording of
    an ``out_of_turn``) are those; the others (the camera's own, a flag of an event corrected away) are not."""
    flag_rows = [{"type": "flag", "frame": 20, "kind": "mismatched_end", "message": "N played 6-2 ..."},
                 {"type": "flag", "frame": 30, "kind": "uncertain_turn", "message": "S passed out of turn ..."},
                 {"type": "flag", "frame": 30, "kind": "uncertain_turn", "message": "a second one"},
                 {"type": "flag", "frame": 40, "kind": "after_hand_end", "message": "tile 4-4 placed ..."},
                 {"type": "flag", "frame": 41, "kind": "rejected", "message": "event #3 ..."}]
    rows = [{"type": "play", "frame": 10, "flags": []},
            {"type": "play", "frame": 20, "flags": [{"kind": "mismatched_end", "message": "N played 6-2 ..."}]},
            {"type": "pass", "frame": 30, "flags": [{"kind": "out_of_turn", "message": "S passed ..."},
                                                    {"kind": "next_leader", "notice": True, "message": "a note"}]},
            {"type": "play", "frame": 40, "flags": [{"kind": "mismatched_end", "message": "elsewhere"}]}]
    assert flags_off_the_record(rows, flag_rows) == flag_rows[2:]  # one out_of_turn on frame 30 takes one row
    assert flags_off_the_record([], flag_rows) == flag_rows and flags_off_the_record(rows, []) == []
    rows_ = [*_rows(), *flag_rows]
    pics = read_review(_review(tmp_path / "rv", rows_), [LOG])
    assert pics.flag_rows == flag_rows and pics.flags == 5
