"""``dominocast review`` end to end on generated footage, with an oracle recognizer.

The recognizer is replaced by the footage's own ground truth (the tiles of the latest
keyframe), so these tests check the rest of the pipeline, independently of the models:
motion gate -> tracker -> engine -> events.jsonl / record.json / report.html / annotated.mp4.
"""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from engine.record import from_json, replay_record
from engine.ruleset import load_ruleset
from service.review import run_review
from vision.sources import open_source

from footage_oracle import Oracle as _Oracle  # tests/footage_oracle.py




def test_review_matches_ground_truth(footage, tmp_path):
    gt, profile = footage["gt"], footage["profile"]
    oracle = _Oracle(gt, profile)
    src = open_source(footage["paths"]["video"])
    summary = run_review(src, load_ruleset("all-fives"), oracle, tmp_path, profile, progress=oracle.progress)
    rows = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    plays = [r for r in rows if r["type"] == "play"]
    want = gt["plays"]
    # every play found, in order, by the right seat, touching half first, on the right end
    assert [(p["seat"], p["tile"], p["end"]) for p in plays] == [(w["seat"], w["tile"], w["end"]) for w in want]
    # and scored as the engine scored the simulated hand; in a draw game the camera cannot count
    # hands, so the domino award comes with the reveal of the tiles left, not with the last play
    result = gt["hands"][0]["result"]
    awards = result["awards"]
    want_pts = [{k: v for k, v in w["points"].items() if v} for w in want]
    want_pts[-1] = {k: v - awards.get(k, 0) for k, v in want_pts[-1].items() if v - awards.get(k, 0)}
    assert [{k: v for k, v in p["points"].items() if v} for p in plays] == want_pts
    reveals = [r for r in rows if r["type"] == "reveal"]
    assert [(r["seat"], sorted(map(sorted, r["tiles"]))) for r in reveals] == [
        (w["seat"], sorted(map(sorted, w["tiles"]))) for w in gt["reveals"]]
    assert any(r.get("kind") == "hand_end_inferred" and r["seat"] == result["winner"] for r in rows)
    end = [r for r in rows if r["type"] == "hand_end"]
    assert len(end) == 1 and end[0]["kind"] == "domino" and end[0]["winner"] == result["winner"]
    assert end[0]["points"] == awards and end[0]["score"] == gt["hands"][0]["scores"]
    assert not any(r.get("kind") == "hand_in_progress" for r in rows)
    # an event comes after the tile is at rest, and within two seconds of it
    lat = [p["t"] - w["t"] for p, w in zip(plays, want)]
    assert min(lat) >= 0 and max(lat) <= 2.0
    assert all({"type", "t", "frame"} <= r.keys() for r in rows)
    # the record replays to the running score the rows announced
    record = from_json((tmp_path / "record.json").read_text())
    state = replay_record(record)
    assert state.games[0].scores == end[0]["score"]
    assert summary.plays == len(want)
    # the report names every play; the annotated video has every frame
    html = (tmp_path / "report.html").read_text()
    assert html.count("<tr") >= len(want) + 1
    cap = cv2.VideoCapture(str(tmp_path / "annotated.mp4"))
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == gt["n_frames"]
    cap.release()


def test_review_timelapse_folder_free_form(footage, tmp_path):
    """``--rules none`` on a folder of photos: one new tile per photo is a placement, in order."""
    gt = footage["gt"]
    rests = [k for k in gt["keyframes"] if k["reason"] != "periodic"]
    cap = cv2.VideoCapture(str(footage["paths"]["video"]))
    folder = tmp_path / "photos"
    folder.mkdir()
    for i, k in enumerate(rests[:6]):
        cap.set(cv2.CAP_PROP_POS_FRAMES, k["frame"])
        ok, img = cap.read()
        assert ok
        cv2.imwrite(str(folder / f"move_{i + 1}.png"), img)
    cap.release()
    oracle = _Oracle(gt, footage["profile"])
    frames = [k["frame"] for k in rests[:6]]
    oracle.frame = frames[0]
    src = open_source(folder)
    run_review(src, None, oracle, tmp_path / "out", None, progress=lambda n: setattr(
        oracle, "frame", frames[min(n, len(frames) - 1)]))
    rows = [json.loads(line) for line in (tmp_path / "out" / "events.jsonl").read_text().splitlines()]
    # the first photo is the starting board (its tile is not a placement); then one placement a photo
    baseline = [r for r in rows if r["type"] == "baseline"]
    assert len(baseline) == 1 and baseline[0]["frame"] == 0
    assert [sorted(t) for t in baseline[0]["tiles"]] == [sorted(gt["plays"][0]["tile"])]
    placed = [(r["frame"], sorted(r["tile"])) for r in rows if r["type"] == "placement"]
    assert placed == [(i, sorted(p["tile"])) for i, p in enumerate(gt["plays"][1:len(frames)], start=1)]


def test_cli_review_bad_input(tmp_path):
    from service.cli import app

    runner = CliRunner()
    empty = tmp_path / "empty"
    empty.mkdir()
    for args in (["review", str(tmp_path / "missing.mp4"), "--rules", "all-fives"],
                 ["review", str(empty), "--rules", "all-fives"],
                 ["review", str(empty), "--rules", "no-such-rules"]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, (args, res.output)
        assert "Traceback" not in res.output


def test_cli_review_of_a_truncated_video_says_one_line(footage, tmp_path):
    """FFmpeg's own log ("moov atom not found") must not come before our one clear line."""
    import subprocess
    import sys

    data = footage["paths"]["video"].read_bytes()
    bad = tmp_path / "cut.mp4"
    bad.write_bytes(data[: len(data) // 3])  # the index (moov atom) sits at the end: cut off
    res = subprocess.run([sys.executable, "-c", "from service.cli import main; main()", "review", str(bad),
                          "--rules", "all-fives", "--out", str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert (res.stdout + res.stderr).strip().splitlines() == [f"error: {bad} is not a video OpenCV can open "
                                                              "(corrupt file or unsupported format)"]


def test_cli_out_folder_errors_and_live_keeps_earlier_events(tmp_path):
    from service.cli import app

    runner = CliRunner()
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    res = runner.invoke(app, ["review", str(a_file), "--rules", "all-fives", "--out", str(a_file)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    earlier = tmp_path / "live"
    earlier.mkdir()
    (earlier / "events.jsonl").write_text('{"type": "play"}\n')
    res = runner.invoke(app, ["live", "7", "--rules", "all-fives", "--out", str(earlier)])
    assert res.exit_code == 2 and "already holds the events" in res.output
    assert (earlier / "events.jsonl").read_text() == '{"type": "play"}\n'  # nothing recorded is lost


def test_snapshots_show_the_frame_redrawn_after_their_events(tmp_path):
    """A play's snapshot is taken from the frame drawn with that play's score, not the one before."""
    from service.review import _Outputs

    out = _Outputs(tmp_path, annotate=False)
    before = np.zeros((40, 60, 3), np.uint8)  # drawn with the old score
    after = np.full((40, 60, 3), 255, np.uint8)  # redrawn once the play is scored
    out.emit({"type": "play", "t": 1.0, "frame": 12}, before)
    out.flush_snapshots(after)
    out.close()
    row = json.loads((tmp_path / "events.jsonl").read_text())
    assert cv2.imread(str(tmp_path / row["snapshot"])).mean() > 250


def test_report_shows_the_award_once():
    from service.report import render_report

    rows = [{"type": "reveal", "t": 9.0, "frame": 90, "text": "S reveal 4-3", "points": {"N": 5}},
            {"type": "hand_end", "kind": "domino", "t": 9.0, "frame": 90, "winner": "N", "points": {"N": 5, "S": 0}}]
    page = render_report("t", "s", rows, {}, [])
    assert page.count('<span class="pts">N +5</span>') == 1  # on the reveal that completed the count
    assert "awarded above: N +5, S +0" in page
