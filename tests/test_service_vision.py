"""The ``vision`` table worker: replayed footage -> the table's log, feeds and status.

The recognizer is the footage's ground truth (``tests/footage_oracle.py``), so these tests
need no detector model; they check the service side: the frame loop in its thread, pacing,
the append path (log, snapshot, feed), stopping, and clear errors.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import service.sources as sources
from service.testing import AUTH, app_for, wait_for
from service.vision_source import VisionSource

from footage_oracle import Oracle  # tests/footage_oracle.py




@pytest.fixture()
def oracle_vision(footage, monkeypatch):
    """Register a ``vision`` source whose recognizer is the footage's ground truth."""
    oracle = Oracle(footage["gt"], footage["profile"])
    made: list[VisionSource] = []

    def factory(table: dict) -> VisionSource:
        src = VisionSource(table, recognizer_factory=lambda profile: oracle, before_frame=oracle.progress)
        made.append(src)
        return src

    monkeypatch.setitem(sources._FACTORIES, "vision", factory)
    return made


def post(c, path, body=None):
    return c.post(path, json=body if body is not None else {}, headers=AUTH)


def vision_table(c, footage, table_id="cam", speed=16.0, video=None):
    body = {"id": table_id, "name": "Camera table", "rules": "all-fives",
            "video_source": str(video or footage["paths"]["video"]), "calibration": str(footage["paths"]["profile"]),
            "worker": {"kind": "vision", "speed": speed}}
    r = post(c, "/api/tables", body)
    assert r.status_code == 201, r.text


def test_vision_table_scores_replayed_footage(footage, oracle_vision, tmp_path):
    gt = footage["gt"]
    want = gt["plays"]
    with TestClient(app_for(tmp_path)) as c:
        vision_table(c, footage)
        t0 = time.monotonic()
        st = post(c, "/api/tables/cam/start").json()
        assert st["kind"] == "vision" and st["state"] == "running"
        # the frame loop runs in a thread: the service answers while it works
        assert c.get("/api/health").json()["live"] == ["cam"]
        status = wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["state"] in ("finished", "error")
                          and s, timeout=25)
        took = time.monotonic() - t0
        assert status["state"] == "finished", status
        assert status["position"] == gt["n_frames"] and status["total"] == gt["n_frames"] and status["fps"]
        # paced: 53 s of footage at 16x real time takes at least 3.3 s
        assert took >= gt["n_frames"] / 8 / 16 * 0.9
        snap = c.get("/api/tables/cam/snapshot").json()
        mid = snap["data"]["state"]["match"]["id"]
        hand = c.get(f"/api/matches/{mid}/hands/1").json()
        rows = c.get(f"/api/matches/{mid}/timeline").json()["rows"]
    events = hand["events"]
    assert events[0] == {"type": "deal", "draws_seen": False}  # a draw game: the camera sees no deal
    # the draws it saw: tiles leaving the boneyard, by the seat to play (vision/boneyard.py)
    assert [(e["seat"], e.get("count", 1)) for e in events if e["type"] == "draw"] == \
        [(d["seat"], d.get("count", 1)) for d in gt["draws"]]
    plays = [e for e in events if e["type"] == "play"]
    # every play, in order, by the right seat, touching half first, on the right end
    assert [(p["seat"], p["tile"], p.get("end", "lead")) for p in plays] == \
        [(w["seat"], w["tile"], w["end"]) for w in want]
    assert all(p["confidence"] > 0.9 and p["oriented"] for p in plays)
    lat = [p["t"] - w["t"] for p, w in zip(plays, want)]
    assert min(lat) >= 0 and max(lat) <= 2.0
    assert [p["frame"] for p in plays] == sorted(p["frame"] for p in plays)
    # scored as the engine scored the simulated hand; the domino award of a draw game comes with the
    # reveal of the tiles left (the camera cannot count hands), not with the last play
    awards = gt["hands"][0]["result"]["awards"]
    want_pts = [{k: v for k, v in w["points"].items() if v} for w in want]
    want_pts[-1] = {k: v - awards.get(k, 0) for k, v in want_pts[-1].items() if v - awards.get(k, 0)}
    play_rows = [r for r in rows if r["type"] == "play"]
    assert [{k: v for k, v in r["points"].items() if v} for r in play_rows] == want_pts
    # the snapshot (the feed's first message, what the overlay draws) shows the points
    state = snap["data"]["state"]
    assert [(e["type"], e.get("kind", e.get("seat"))) for e in events if e["type"] in ("hand_end", "reveal")] == \
        [("hand_end", "domino")] + [("reveal", r["seat"]) for r in gt["reveals"]]
    assert {k: v for k, v in state["game"]["scores"].items() if v} == \
        {k: v for k, v in gt["hands"][0]["scores"].items() if v}
    assert state["hand"]["status"] == "over" and state["hand"]["result"]["winner"] == want[-1]["seat"]
    assert sum(1 for t in state["hand"]["layout"]["tiles"]) == len(want)


def test_a_replayed_file_never_puts_camera_signal_lost_on_air(footage, oracle_vision, tmp_path):
    """helper-174: from the start to the first frame (``connected`` false) and from the file's end to the
    worker's ``finished`` (its last events: ``connected`` false again) every message of a replayed file's feed
    put "camera signal lost" on air. The overlay's words for each message's worker, as its feed carries them."""
    from pages_js import dc  # tests/pages_js.py
    from service.feeds import backlog

    with TestClient(app_for(tmp_path)) as c:
        vision_table(c, footage, speed=32.0)
        post(c, "/api/tables/cam/start")
        wait_for(lambda: c.get("/api/tables/cam/status").json()["state"] == "finished", timeout=60)
        workers = [m["data"]["state"]["worker"] for m in backlog(c.app.state.factory, "cam", "events", 0)]
    said = dc([("sourceStatus", [w]) for w in workers])
    assert "camera signal lost" not in said
    assert said[1] == "starting" and said[-1] == "recording ended"  # [0]: the match opened, the table stopped
    assert said[said.index("") - 1] == "starting" and "recording ended" in said[said.index(""):-1]


def test_the_annotated_video_shows_the_tables_score(footage, oracle_vision, tmp_path, monkeypatch):
    """helper-79: the MJPEG stream drew the camera's own tally ("NS 0" while the table stood at 156):
    it now draws the table's score, the umpire's penalty included."""
    import service.vision_source as vs

    drawn: list[dict] = []
    real = vs.draw_frame
    monkeypatch.setattr(vs, "draw_frame", lambda image, obs, score, ends, banner: (
        drawn.append(dict(score)), real(image, obs, score, ends, banner))[1])
    with TestClient(app_for(tmp_path)) as c:
        vision_table(c, footage, speed=32.0)
        assert post(c, "/api/tables/cam/events", {"event": {"type": "penalty", "seat": "S", "points": -10}}
                    ).status_code == 201
        post(c, "/api/tables/cam/start")
        wait_for(lambda: c.get("/api/tables/cam/status").json()["state"] == "finished", timeout=60)
        table = c.get("/api/tables/cam/snapshot").json()["data"]["state"]["game"]["scores"]
    hand = footage["gt"]["hands"][0]
    want = {k: v + (-10 if k == "S" else 0) for k, v in hand["scores"].items()}
    assert table == want and drawn[0]["S"] == -10
    # the last frame comes before the footage's end settles the reveal: every play's points, not the award yet
    assert drawn[-1] == {k: v - hand["result"]["awards"].get(k, 0) for k, v in want.items()}


def test_vision_table_stops_its_thread(footage, oracle_vision, tmp_path):
    with TestClient(app_for(tmp_path)) as c:
        vision_table(c, footage, speed=1.0)
        assert post(c, "/api/tables/cam/start").json()["state"] == "running"
        src = oracle_vision[-1]
        wait_for(lambda: c.get("/api/tables/cam/status").json()["position"] > 0, timeout=10)
        # the annotated video: the newest frame, encoded once for every viewer
        seq, jpeg = src.latest_jpeg(0, timeout=5)
        assert seq >= 1 and jpeg[:2] == b"\xff\xd8" and src.latest_jpeg(seq - 1, timeout=1)[1][:2] == b"\xff\xd8"

        async def two_parts(gen):
            parts = [await gen.__anext__(), await gen.__anext__()]
            await gen.aclose()
            return parts

        for part in asyncio.run(two_parts(src.mjpeg(max_fps=20))):  # what the MJPEG endpoint sends
            assert part.startswith(b"--frame\r\nContent-Type: image/jpeg\r\n") and b"\r\n\r\n\xff\xd8" in part
        t0 = time.monotonic()
        assert post(c, "/api/tables/cam/stop").json()["state"] == "stopped"
        assert time.monotonic() - t0 < 5
        assert not src._thread.is_alive()
        pos = c.get("/api/tables/cam/status").json()["position"]
        time.sleep(0.5)
        assert c.get("/api/tables/cam/status").json()["position"] == pos
        assert pos < footage["gt"]["n_frames"]


@pytest.mark.parametrize("bad", ["missing", "corrupt", "empty"])
def test_bad_video_source_is_a_status_error(footage, oracle_vision, tmp_path, bad):
    video = tmp_path / "v.mp4"
    if bad == "corrupt":
        video.write_bytes(b"not a video at all" * 100)
    with TestClient(app_for(tmp_path / "db")) as c:
        if bad == "empty":
            r = post(c, "/api/tables", {"id": "cam", "name": "Cam", "rules": "all-fives", "worker": {"kind": "vision"}})
            assert r.status_code == 201
        else:
            vision_table(c, footage, video=video)
        assert post(c, "/api/tables/cam/start").status_code == 200
        st = wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["state"] == "error" and s, timeout=10)
        assert st["connected"] is False
        assert ("v.mp4" if bad != "empty" else "no video_source") in st["error"]
        assert "\n" not in st["error"]
        assert c.get("/api/health").json()["ok"] is True


def test_relative_paths_are_kept_absolute_and_a_missing_one_says_where_it_was_looked_for(footage, oracle_vision,
                                                                                          tmp_path, monkeypatch):
    """helper-118: a table registered with paths relative to the folder the service ran in failed after a
    restart from another folder with only "no such profile file"."""
    venue = tmp_path / "venue"
    venue.mkdir()
    (venue / "table.json").write_bytes(Path(footage["paths"]["profile"]).read_bytes())
    monkeypatch.chdir(venue)
    with TestClient(app_for(tmp_path / "db")) as c:
        body = {"id": "cam", "name": "Cam", "rules": "all-fives", "video_source": "clip.mp4",
                "calibration": "table.json", "worker": {"kind": "vision"}}
        assert post(c, "/api/tables", body).status_code == 201
        table = c.get("/api/tables/cam").json()
        # the profile exists: stored absolute; the video does not (yet): kept as typed
        assert (table["calibration"], table["video_source"]) == (str(venue / "table.json"), "clip.mp4")
        assert post(c, "/api/tables/cam/start").status_code == 200
        st = wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["state"] == "error" and s, timeout=10)
    assert st["error"].endswith(f"(a relative path is read from the service's folder, {venue})")


def test_a_corrupt_calibration_is_one_status_line_naming_it_once_and_no_traceback(footage, oracle_vision, tmp_path,
                                                                                   caplog):
    prof = tmp_path / "table.json"
    prof.write_text("{not json")
    with TestClient(app_for(tmp_path / "db")) as c:
        body = {"id": "cam", "name": "Cam", "rules": "all-fives", "video_source": str(footage["paths"]["video"]),
                "calibration": str(prof), "worker": {"kind": "vision"}}
        assert post(c, "/api/tables", body).status_code == 201
        assert post(c, "/api/tables/cam/start").status_code == 200
        st = wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["state"] == "error" and s, timeout=10)
    assert st["error"].startswith("calibration ") and st["error"].count(str(prof)) == 1
    assert not [r for r in caplog.records if r.exc_info]  # bad input is a warning line, not a traceback


def test_missing_model_is_a_clear_501(footage, tmp_path, monkeypatch):
    import vision.recognize

    monkeypatch.delitem(sources._FACTORIES, "vision", raising=False)
    monkeypatch.setattr(vision.recognize, "DEFAULT_DETECTOR", tmp_path / "tile_detector.onnx")
    with TestClient(app_for(tmp_path / "db")) as c:
        vision_table(c, footage)
        r = post(c, "/api/tables/cam/start")
        assert r.status_code == 501 and "tile_detector.onnx is missing" in r.json()["detail"]
        st = c.get("/api/tables/cam/status").json()
        assert st["state"] == "stopped" and "tile_detector.onnx is missing" in st["error"]


class _NoticeSource:
    """A source that reports one vision notice and one play."""

    kind = "vision"

    def __init__(self, table: dict):
        from service.sources import SourceStats

        self._stats = SourceStats(connected=True)

    def stats(self):
        return self._stats

    def acknowledge(self, item, hand, index):
        pass

    async def aclose(self):
        pass

    async def __aiter__(self):
        from engine.events import Deal, Play
        from service.sources import SourceItem

        yield SourceItem(Deal(hands={}, draws_seen=False))
        yield SourceItem(None, alert={"type": "vision_notice", "kind": "uncertain_read", "t": 3.0, "frame": 24,
                                      "message": "2 tiles appeared at once", "tile": [6, 3], "seat": "N"})
        yield SourceItem(Play(seat="N", tile=(6, 3), t=3.0, frame=24, confidence=0.5))


def _alerts_after_run(tmp_path, monkeypatch, footage, source, status: str) -> list[dict]:
    """The camera table's alerts (``status``: open / all) once ``source`` has run to its end."""
    monkeypatch.setitem(sources._FACTORIES, "vision", source)
    with TestClient(app_for(tmp_path)) as c:
        vision_table(c, footage)
        post(c, "/api/tables/cam/start")
        wait_for(lambda: c.get("/api/tables/cam/status").json()["state"] == "finished")
        return c.get(f"/api/tables/cam/alerts?status={status}").json()


def test_vision_notices_become_alerts(tmp_path, monkeypatch, footage):
    alerts = _alerts_after_run(tmp_path, monkeypatch, footage, _NoticeSource, "open")
    kinds = sorted((a["category"], a["kind"]) for a in alerts)
    # the notice, and the engine's own alert for a play read with low confidence
    assert kinds == [("uncertain", "uncertain_read"), ("vision", "uncertain_read")]
    notice = next(a for a in alerts if a["category"] == "vision")
    assert notice["message"] == "2 tiles appeared at once" and notice["seat"] == "N" and notice["details"]["frame"] == 24


class _TwoPassesSource(_NoticeSource):
    """One read infers two passes (S and E skipped before N's play): two notices of one frame."""

    async def __aiter__(self):
        from engine.events import Deal
        from service.sources import SourceItem

        yield SourceItem(Deal(hands={}, draws_seen=False))
        for seat in ("S", "E"):
            yield SourceItem(None, alert={"type": "vision_notice", "kind": "pass_inferred", "t": 9.0, "frame": 72,
                                          "message": f"{seat} passed: N's arm played 2-4 on {seat}'s turn", "seat": seat})


def test_two_passes_inferred_at_one_read_are_two_alerts(tmp_path, monkeypatch, footage):
    """helper-79: they were one alert naming S, "seen 2x", with nothing said of E."""
    alerts = _alerts_after_run(tmp_path, monkeypatch, footage, _TwoPassesSource, "open")
    assert sorted((a["kind"], a["seat"], a["message"]) for a in alerts) == [
        ("pass_inferred", "E", "E passed: N's arm played 2-4 on E's turn"),
        ("pass_inferred", "S", "S passed: N's arm played 2-4 on S's turn")]


class _ClearedMeanwhileSource(_NoticeSource):
    """A restarted camera that first cannot find the recorded hand (``resume_unseen``), then sees a
    new hand begin (its first event opens the next match hand)."""

    async def __aiter__(self):
        from engine.events import Deal, Play
        from service.sources import SourceItem

        yield SourceItem(Play(seat="N", tile=(6, 3), t=1.0, frame=8))
        yield SourceItem(None, alert={"type": "vision_notice", "kind": "resume_unseen", "t": 2.0, "frame": 16,
                                      "message": "resumed hand 1: 1 of its 1 recorded plays are not in view"})
        yield SourceItem(Deal(hands={}, draws_seen=False), new_hand=True)


def test_a_new_hand_resolves_the_restarts_unseen_plays_alert(tmp_path, monkeypatch, footage):
    """helper-67: the ``resume_unseen`` alert stayed open after the camera had found a new hand."""
    alerts = _alerts_after_run(tmp_path, monkeypatch, footage, _ClearedMeanwhileSource, "all")
    unseen = [(a["status"], a["note"]) for a in alerts if a["kind"] == "resume_unseen"]
    assert unseen == [("resolved", "hand 2 began")]


class _PlacedLaterSource(_NoticeSource):
    """A tile first seen off the line of play (``unplaced_tile``), then read as a play."""

    async def __aiter__(self):
        from engine.events import Deal, Play
        from service.sources import SourceItem

        yield SourceItem(Deal(hands={}, draws_seen=False))
        yield SourceItem(Play(seat="N", tile=(6, 6), t=1.0, frame=8))
        for tile in ([3, 6], [2, 2]):
            yield SourceItem(None, alert={"type": "vision_notice", "kind": "unplaced_tile", "t": 2.0, "frame": 16,
                                          "message": f"face-up tile {tile} touches no open end", "tile": tile})
        yield SourceItem(Play(seat="S", tile=(6, 3), end="E", t=3.0, frame=24))


def test_a_tile_recorded_as_a_play_resolves_its_unplaced_alert(tmp_path, monkeypatch, footage):
    """helper-93: the unplaced_tile alerts of 0-0, 3-0 and 6-3 stayed open after they were recorded as plays."""
    alerts = _alerts_after_run(tmp_path, monkeypatch, footage, _PlacedLaterSource, "all")
    got = sorted((a["details"]["tile"], a["status"], a["note"]) for a in alerts if a["kind"] == "unplaced_tile")
    assert got == [([2, 2], "open", ""), ([3, 6], "resolved", "6-3 was recorded as play #2")]


class _HeldSource(_NoticeSource):
    """N leads 6-6; a tile ``held`` is seen off the line at frame 16 (laid against a play voided then), ``second``
    is read at frame 24, and the held tile comes in as ``late`` at frame 32 (the void undone)."""

    held, second, late = [6, 3], ("N", (6, 2), "E"), ("S", (6, 3), "W")

    async def __aiter__(self):
        from engine.events import Deal, Play
        from service.sources import SourceItem

        yield SourceItem(Deal(hands={}, draws_seen=False))
        yield SourceItem(Play(seat="N", tile=(6, 6), t=1.0, frame=8))
        yield SourceItem(None, alert={"type": "vision_notice", "kind": "unplaced_tile", "t": 2.0, "frame": 16,
                                      "message": "face-up tile touches no open end", "tile": self.held})
        for (seat, tile, end), t in ((self.second, 3.0), (self.late, 4.0)):
            yield SourceItem(Play(seat=seat, tile=tile, end=end, t=t, frame=int(8 * t)))


class _HeldAgainstTheLaterSource(_HeldSource):
    # 2-3 lies off the line from frame 16, then touches S's 6-2 (read at 24): laid after it after all
    held, second, late = [3, 2], ("S", (6, 2), "E"), ("N", (2, 3), "E")


def _plays_in_force(c) -> list:
    from engine.events import Play, effective
    from engine.record import event_from_dict

    log = [event_from_dict(e) for e in c.get("/api/matches/1/hands/1").json()["events"]]
    return [ev for _, ev in effective(log) if isinstance(ev, Play)]


def test_a_held_tile_sent_late_goes_back_to_its_read_or_the_umpire_is_told(tmp_path, monkeypatch, footage):
    """h243 defect 4, at the service: S's 6-3, seen at frame 16 and sent after N's 6-2 (read at 24), goes above
    it with the time of its read, which leaves no out_of_turn flag (N 6-2 was one). Where the move would leave
    no fewer flags (a 2-3 that lay off the line, then sent against the 6-2 read after it: above it, both ends would be
    mismatched), the record stays as sent and an alert names the move for the umpire to judge."""
    monkeypatch.setitem(sources._FACTORIES, "vision", _HeldSource)
    with TestClient(app_for(tmp_path / "a")) as c:
        vision_table(c, footage)
        post(c, "/api/tables/cam/start")
        wait_for(lambda: c.get("/api/tables/cam/status").json()["state"] == "finished")
        plays = [(e.seat, [e.tile.a, e.tile.b], e.t, e.frame) for e in _plays_in_force(c)]
        assert plays == [("N", [6, 6], 1.0, 8), ("S", [6, 3], 2.0, 16), ("N", [6, 2], 3.0, 24)]
        assert [a["kind"] for a in c.get("/api/tables/cam/alerts").json()] == []
    monkeypatch.setitem(sources._FACTORIES, "vision", _HeldAgainstTheLaterSource)
    with TestClient(app_for(tmp_path / "b")) as c:
        vision_table(c, footage)
        post(c, "/api/tables/cam/start")
        wait_for(lambda: c.get("/api/tables/cam/status").json()["state"] == "finished")
        assert [(e.seat, [e.tile.a, e.tile.b]) for e in _plays_in_force(c)] == [("N", [6, 6]), ("S", [6, 2]), ("N", [2, 3])]
        late = [a for a in c.get("/api/tables/cam/alerts").json() if a["kind"] == "recorded_late"]
        assert [(a["details"]["index"], a["details"]["before"], a["seat"]) for a in late] == [(3, 2, "N")]
        assert late[0]["message"] == ("N 2-3 E t=4.0 f=32 (#3) was seen off the line of play at frame 16, before #2 "
                                      "was read: recorded late (a void undone?); if it was laid before #2, move it up "
                                      "(the console's \"move up\")")


def test_a_recorded_late_alert_closes_itself_once_a_change_makes_it_moot(tmp_path, monkeypatch, footage):
    """helper-251: the recorded_late alert stayed open after the umpire moved the play up (or voided it), while a
    flag closes itself once a correction makes it moot. N 2-3 (#3) was seen off the line at frame 16, before S 6-2
    (#2, read at 24): moved up, nothing is recorded after an event read later (the alert is resolved by the engine);
    moved back, it holds again (reopened); the 2-3 voided, no play is late (resolved again)."""
    monkeypatch.setitem(sources._FACTORIES, "vision", _HeldAgainstTheLaterSource)
    with TestClient(app_for(tmp_path)) as c:
        vision_table(c, footage)
        post(c, "/api/tables/cam/start")
        wait_for(lambda: c.get("/api/tables/cam/status").json()["state"] == "finished")

        def late() -> tuple:
            a = [a for a in c.get("/api/tables/cam/alerts?status=all").json() if a["kind"] == "recorded_late"]
            assert len(a) == 1
            return a[0]["status"], a[0]["resolved_by"], a[0]["note"]

        assert late() == ("open", "", "")
        seen = {"type": "play", "seat": "N", "tile": [2, 3]}
        assert post(c, "/api/tables/cam/move-event", {"index": 3, "before": 2, "seen": seen}).status_code == 201
        assert [(e.seat, [e.tile.a, e.tile.b]) for e in _plays_in_force(c)] == [("N", [6, 6]), ("N", [2, 3]),
                                                                               ("S", [6, 2])]
        assert late() == ("resolved", "engine", "2-3 (#2) is no longer recorded after an event read later")
        assert c.get("/api/tables/cam/status").json()["alerts_open"] == len(
            c.get("/api/tables/cam/alerts").json())  # the count follows the queue
        back = {"type": "play", "seat": "S", "tile": [6, 2]}
        assert post(c, "/api/tables/cam/move-event", {"index": 3, "before": 2, "seen": back}).status_code == 201
        assert late() == ("open", "", "reopened: recorded late again")
        void = {"hand": 1, "replaces": 3, "event": None, "reason": "not played"}
        assert post(c, "/api/tables/cam/corrections", void).status_code == 201
        assert late() == ("resolved", "engine", "2-3 is no longer played in this hand: nothing is recorded late")


class _DroppingStream:
    """A live source of three still frames that recovered from one drop before the last."""

    live = True

    def __init__(self, spec):
        import numpy as np

        self.outages = []
        self.image = np.full((360, 640, 3), 60, np.uint8)

    def __iter__(self):
        from vision.sources import Frame

        for i, t in enumerate((0.0, 0.5, 12.0)):
            if t == 12.0:
                self.outages.append((0.6, 11.9))
            yield Frame(i, t, self.image)

    def close(self):
        pass


def test_a_cameras_drop_is_an_alert_for_the_umpire(footage, tmp_path, monkeypatch):
    def factory(table):
        return VisionSource(table, recognizer_factory=lambda profile: (lambda image: []),
                            frame_source_factory=_DroppingStream)

    monkeypatch.setitem(sources._FACTORIES, "vision", factory)
    with TestClient(app_for(tmp_path)) as c:
        vision_table(c, footage, video="0")
        post(c, "/api/tables/cam/start")
        wait_for(lambda: c.get("/api/tables/cam/status").json()["state"] == "finished")
        alerts = c.get("/api/tables/cam/alerts?status=open").json()
    drop = [a for a in alerts if a["kind"] == "source_outage"]
    assert len(drop) == 1 and drop[0]["category"] == "vision"
    assert drop[0]["message"].startswith("the camera delivered no frames from 0.6 s to 11.9 s (11.3 s)")
    assert (drop[0]["details"]["t"], drop[0]["details"]["t_end"]) == (0.6, 11.9)


class _FakeCamera:
    """A capture that delivers a still 640x360 frame at about 30 fps."""

    def __init__(self, target):
        import numpy as np

        self.image = np.full((360, 640, 3), 60, np.uint8)

    def isOpened(self):
        return True

    def read(self):
        time.sleep(0.03)
        return True, self.image.copy()

    def release(self):
        pass


def _on_camera(monkeypatch, capture) -> list:
    """Register a ``vision`` source reading a fake camera (``capture``) with a recognizer that sees
    nothing; returns the list the sources made are appended to."""
    from vision.sources import LiveSource

    made = []

    def factory(table):
        src = VisionSource(table, recognizer_factory=lambda profile: (lambda image: []),
                           frame_source_factory=lambda spec: LiveSource(spec, capture_factory=capture))
        made.append(src)
        return src

    monkeypatch.setitem(sources._FACTORIES, "vision", factory)
    return made


def test_vision_table_on_a_camera(footage, tmp_path, monkeypatch):
    """A live source (camera index / URL): newest frame first, no pacing, stats, stop."""
    made = _on_camera(monkeypatch, _FakeCamera)
    with TestClient(app_for(tmp_path)) as c:
        vision_table(c, footage, video="0")
        post(c, "/api/tables/cam/start")
        st = wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["fps"] and s, timeout=10)
        assert st["state"] == "running" and st["connected"] is True and st["total"] is None
        assert post(c, "/api/tables/cam/stop").json()["state"] == "stopped"
        assert not made[-1]._thread.is_alive()
        snap = c.get("/api/tables/cam/snapshot").json()
    assert snap["data"]["state"]["hand"]["status"] == "in_progress"  # the camera's deal opened the hand


def test_a_corrupt_photo_in_a_folder_table_is_skipped_with_an_alert(footage, tmp_path, monkeypatch):
    """A photo-folder table stopped with an error at the first photo that did not decode (helper-64),
    while ``review`` skips it. The worker now skips it too, and tells the umpire which file."""
    import cv2

    from vision.sources import open_source

    photos = tmp_path / "photos"
    photos.mkdir()
    with open_source(footage["paths"]["video"]) as frames:
        for f in frames:
            if f.index in (0, 10, 20):
                cv2.imwrite(str(photos / f"img{f.index:02d}.jpg"), f.image)
            if f.index >= 20:
                break
    (photos / "img15.jpg").write_bytes(b"not a jpeg")
    seen = []

    def factory(table):
        return VisionSource(table, recognizer_factory=lambda profile: (lambda image: seen.append(image.shape) or []))

    monkeypatch.setitem(sources._FACTORIES, "vision", factory)
    with TestClient(app_for(tmp_path)) as c:
        vision_table(c, footage, video=photos)
        post(c, "/api/tables/cam/start")
        st = wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["state"] in ("finished", "error") and s)
        alerts = c.get("/api/tables/cam/alerts").json()
    assert st["state"] == "finished" and st["error"] is None and len(seen) >= 3
    assert [(a["kind"], a["details"]["file"], a["details"]["frame"]) for a in alerts] == [
        ("unreadable_image", str(photos / "img15.jpg"), 2)]
    assert alerts[0]["message"] == f"image {photos / 'img15.jpg'} cannot be decoded (corrupt or not an image); skipped"


class _CameraPart:
    """Frames ``start`` .. ``stop`` - 1 of the footage as a camera delivers them (live: no pacing;
    times from 0 at the first frame, as a camera's clock starts when it opens)."""

    live = True

    def __init__(self, path, start, stop):
        from vision.sources import open_source

        self.frames, self.start, self.stop = open_source(path), start, stop

    def __iter__(self):
        t0 = None
        for f in self.frames:
            if f.index >= self.stop:
                return
            if f.index >= self.start:
                t0 = f.t if t0 is None else t0
                yield f._replace(t=round(f.t - t0, 3))

    def close(self):
        self.frames.close()


def _in_two_parts(monkeypatch, footage, part=None, second_from_start=False, cut: int | None = None) -> int:
    """Register a ``vision`` source whose first start reads the footage up to ``cut`` (default: the
    middle between its 8th and 9th plays) and whose second start reads the rest (``second_from_start``: all of it again,
    as a replayed file gives it), through ``part`` (default :class:`_CameraPart`) with the oracle
    recognizer; returns that cut frame."""
    gt = footage["gt"]
    cut = (gt["plays"][7]["frame"] + gt["plays"][8]["frame"]) // 2 if cut is None else cut
    oracle = Oracle(gt, footage["profile"])
    parts = iter([(0, cut), (0 if second_from_start else cut, gt["n_frames"])])
    part = part or _CameraPart

    def factory(table):
        start, stop = next(parts)
        return VisionSource(table, recognizer_factory=lambda profile: oracle, before_frame=oracle.progress,
                            frame_source_factory=lambda spec: part(spec, start, stop))

    monkeypatch.setitem(sources._FACTORIES, "vision", factory)
    return cut


def test_a_camera_table_restarted_mid_hand_goes_on_with_the_recorded_hand(footage, tmp_path, monkeypatch):
    """helper-59: restarting a camera table's worker mid-hand read every tile on the table again as a
    new play (a second lead, mismatched ends, false alerts). Now the worker goes on with the hand
    as recorded: the plays are the footage's, each once, and nothing is flagged."""
    gt = footage["gt"]
    want = [(w["seat"], w["tile"], w["end"]) for w in gt["plays"]]
    _in_two_parts(monkeypatch, footage)  # cut between the 8th and 9th plays

    def run_part(c):
        post(c, "/api/tables/cam/start")
        return wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["state"] in ("finished", "error")
                        and s, timeout=30)

    def recorded(c):
        mid = c.get("/api/tables/cam/snapshot").json()["data"]["state"]["match"]["id"]
        events = c.get(f"/api/matches/{mid}/hands/1").json()["events"]
        times[:] = [p["t"] for p in events if p["type"] == "play"]
        draws[:] = [(d["seat"], d.get("count", 1)) for d in events if d["type"] == "draw"]
        return [(p["seat"], p["tile"], p.get("end", "lead")) for p in events if p["type"] == "play"]

    times: list[float] = []
    draws: list[tuple[str, int]] = []
    with TestClient(app_for(tmp_path)) as c:
        vision_table(c, footage)
        assert run_part(c)["state"] == "finished"
        assert recorded(c) == want[:8]
    with TestClient(app_for(tmp_path)) as c:  # the service restarted: the same data dir
        assert run_part(c)["state"] == "finished"
        assert recorded(c) == want
        # the boneyard is counted on from the record's draws: every draw once, before and after the restart
        assert draws == [(d["seat"], len(d["tiles"])) for d in gt["draws"]]
        alerts = c.get("/api/tables/cam/alerts?status=open").json()
        snap = c.get("/api/tables/cam/snapshot").json()
    # no desync, rejected or mismatched play; the end a draw game always asks the umpire to confirm,
    # and the first play after the restart, whose arm came in before it, is attributed by the turn
    first = want[8]
    assert sorted(a["kind"] for a in alerts) == ["hand_end_inferred", "uncertain_read"], alerts
    seat_by_turn = next(a for a in alerts if a["kind"] == "uncertain_read")
    assert seat_by_turn["message"] == f"uncertain play {first[1][0]}-{first[1][1]} on {first[2]} by {first[0]}: seat_by_turn"
    assert len(snap["data"]["state"]["hand"]["layout"]["tiles"]) == len(want)
    # the new worker's camera clock started at 0; the record's times go on from the stored ones
    # (plays rest about as long apart as in the footage, plus the restart's wall time)
    gap = gt["plays"][8]["t"] - gt["plays"][7]["t"]
    assert times == sorted(times) and times[8] - times[7] >= gap - 1.0, times


class _FreezingCamera(_FakeCamera):
    """A capture whose sensor noise changes every frame for its first 10 reads, then repeats one
    frame to the bit (a stuck capture card or encoder) until ``moving`` is set; about 50 frames a second."""

    moving = False
    warmup = 10  # reads of sensor noise before it sticks
    interval_s = 0.02

    def __init__(self, target):
        import numpy as np

        self.rng = np.random.default_rng(0)
        self.n = 0
        self.stuck = None

    def read(self):
        if self.n:
            time.sleep(_FreezingCamera.interval_s)
        self.n += 1
        if self.n <= _FreezingCamera.warmup or _FreezingCamera.moving:
            return True, self.rng.integers(55, 66, (360, 640, 3), dtype="uint8")
        if self.stuck is None:
            self.stuck = self.rng.integers(55, 66, (360, 640, 3), dtype="uint8")
        return True, self.stuck.copy()


def test_a_frozen_camera_raises_an_alert_until_the_picture_moves_or_the_table_stops(footage, tmp_path, monkeypatch):
    """A stream that repeats its last frame kept ``connected: true`` and said nothing while plays went
    unseen (helper-59): the worker measures how long the picture has been the same to the bit, and the
    watchdog raises ``camera_frozen`` past ``frozen_after_s``. Stopping the table resolves it
    (helper-66: it stayed open on a stopped table); a restart's first frame has nothing to differ
    from, so it is no "moves again" (helper-64); a camera still stuck raises a new alert, and one
    whose picture moves resolves it."""
    made = _on_camera(monkeypatch, _FreezingCamera)
    with TestClient(app_for(tmp_path, frozen_after_s=1.0)) as c:
        vision_table(c, footage, video="0")
        post(c, "/api/tables/cam/start")
        reg = c.app.state.registry
        since, seconds = wait_for(lambda: (f := made[-1].frozen())[1] >= 1.0 and f, timeout=10)
        assert 0 < since < seconds + since
        raised = reg.check_cameras()
        assert [(a["kind"], a["category"]) for a in raised] == [("camera_frozen", "camera")]
        assert raised[0]["message"].startswith("table Camera table: the camera's picture has not changed at all for ")
        post(c, "/api/tables/cam/stop")
        assert c.get("/api/tables/cam/alerts").json() == []  # resolved: no one reads that camera now
        monkeypatch.setattr(_FreezingCamera, "warmup", 0)  # stuck from its first frame on ...
        monkeypatch.setattr(_FreezingCamera, "interval_s", 0.5)  # ... and slow: the start sees one frame
        post(c, "/api/tables/cam/start")
        assert made[-1].frozen()[1] == 0.0 and not made[-1].picture_moved()  # one frame: no move
        assert reg.check_cameras() == []
        wait_for(lambda: made[-1].frozen()[1] >= 1.5, timeout=10)
        assert [a["kind"] for a in reg.check_cameras()] == ["camera_frozen"]
        assert reg.check_cameras() == []  # once per freeze
        monkeypatch.setattr(_FreezingCamera, "moving", True)
        wait_for(lambda: made[-1].frozen()[1] == 0.0, timeout=10)
        assert reg.check_cameras() == []
        alerts = c.get("/api/tables/cam/alerts?status=all").json()
        post(c, "/api/tables/cam/stop")
    assert [(a["kind"], a["status"], a["note"]) for a in alerts] == [
        ("camera_frozen", "resolved", "the table was stopped"),
        ("camera_frozen", "resolved", "the camera's picture moves again")]


class _ListeningSource(_NoticeSource):
    """A camera source that plays one tile, then runs until told to stop, and notes the record
    changes the service hands it."""

    def __init__(self, table: dict):
        super().__init__(table)
        self.synced: list = []
        self.done = asyncio.Event()
        _ListeningSource.made = self

    def sync_record(self, hand, log):
        self.synced.append((hand, [e.type for e in log()]))

    def new_match(self, match):
        self.synced.append(("new match", match))

    async def __aiter__(self):
        from engine.events import Play
        from service.sources import SourceItem

        yield SourceItem(Play(seat="N", tile=(6, 3), t=3.0, frame=24, confidence=0.95))
        await self.done.wait()


def test_the_umpires_events_reach_a_running_camera_worker(tmp_path, monkeypatch, footage):
    """A pass or correction the umpire enters on a camera table goes to its worker (so its tracker
    takes it in, ``Tracker.sync``); the worker's own events do not come back to it."""
    monkeypatch.setitem(sources._FACTORIES, "vision", _ListeningSource)
    with TestClient(app_for(tmp_path)) as c:
        vision_table(c, footage)
        post(c, "/api/tables/cam/start")
        wait_for(lambda: c.get("/api/tables/cam/snapshot").json()["data"]["state"]["hand"]["layout"]["tiles"])
        src = _ListeningSource.made
        assert src.synced == []  # the camera's own play
        r = post(c, "/api/tables/cam/events", {"event": {"type": "pass", "seat": "S"}, "by": "umpire"})
        assert r.status_code == 201, r.text
        assert src.synced == [(1, ["play", "pass"])]
        match = post(c, "/api/tables/cam/matches", {"title": "final"}).json()["id"]
        assert src.synced[-1] == ("new match", match)  # the camera starts over (helper-66)
        post(c, "/api/tables/cam/stop")
        post(c, "/api/tables/cam/events", {"event": {"type": "pass", "seat": "N"}, "by": "umpire"})
        assert len(src.synced) == 2  # a stopped worker hears nothing


class _SyncLog:
    """A tracker stand-in that notes every record ``sync`` hands it."""

    def __init__(self):
        self.logs = []

    def sync(self, log):
        self.logs.append(log)
        return []


def test_a_record_change_reaches_the_tracker_for_its_hand_once_the_cameras_own_events_are_stored():
    """helper-62: a change applied while the camera's latest play was still on its way lost that play
    (and gave false passes later); a change to a hand before the camera had stored anything in it
    (the umpire entering a lead the camera missed) was dropped. helper-63: only the latest change was
    kept, whatever its hand."""
    from engine.events import Play

    src, tracker = VisionSource({"id": "t", "hands_recorded": 0}), _SyncLog()
    record = {1: ["the umpire's lead"]}
    src.sync_record(1, lambda: record[1])
    assert src.record.take(tracker) == [] and tracker.logs == [["the umpire's lead"]]  # hand 1: the first
    sent = []
    src._send(sent.append, Play(seat="E", tile=(5, 2)), "vision:7")  # the camera's play is on its way
    record[1] = ["the umpire's lead", "a pass"]
    src.sync_record(1, lambda: record[1])
    src.record.take(tracker)
    assert tracker.logs == [["the umpire's lead"]]  # waits: the record lacks the play
    record[1] = ["the umpire's lead", "a pass", "E 5-2"]
    src.acknowledge(sent[-1], 1, 2)
    src.record.take(tracker)
    assert tracker.logs[-1] == ["the umpire's lead", "a pass", "E 5-2"]  # read when applied, not when told
    src.record.cleared()  # the camera saw the table cleared: a new hand, not hand 1 any more
    src.sync_record(2, lambda: ["the next hand's lead, by hand"])
    src.sync_record(1, lambda: ["an old hand's change"])  # after it: kept apart, not in its place
    src.record.take(tracker)
    assert tracker.logs[-1] == ["the next hand's lead, by hand"] and len(tracker.logs) == 3
    assert src.record.new_hand is False  # the umpire opened hand 2: the camera's next event goes in it
    src._send(sent.append, Play(seat="S", tile=(2, 2)), "vision:9")
    src.rejected(sent[-1])  # refused by the service: settled all the same
    src.sync_record(2, lambda: ["later"])
    src.record.take(tracker)
    assert tracker.logs[-1] == ["later"] and [i.ref for i in sent] == [0, 1] and sent[0].tag == "vision:7"


def test_a_new_match_at_the_table_starts_the_cameras_hands_from_hand_1():
    """After the umpire started another match, a lead entered by hand in its hand 1 never reached the
    camera's tracker: the camera took its next hand for the old match's next one (helper-64). Told of
    the new match by the service, the frame thread starts over (``Tracker.start_over``), and the
    camera's next hand (opened by the ``hand_cleared`` that follows) is the new match's hand 1."""
    from engine.events import Play

    for stored_in_old_hand in (True, False):
        src, tracker = VisionSource({"id": "t", "hands_recorded": 2}), _SyncLog()
        if stored_in_old_hand:
            sent = []
            src._send(sent.append, Play(seat="E", tile=(5, 2)), "vision:7")
            src.acknowledge(sent[-1], 3, 0)  # the camera's hand went to hand 3 of the old match
        src.sync_record(3, lambda: ["an old match's change"])
        src.new_match(8)  # the old match's waiting change is dropped
        how = src.record.take_start_over(stored_in_old_hand)
        assert how == ("new" if stored_in_old_hand else "keep") and src.record.take_start_over(False) is None
        if how == "new":  # Tracker.start_over's hand_cleared opens the camera's next hand
            src.record.cleared()
        src.sync_record(1, lambda: ["match 8's lead, by hand"])
        src.record.take(tracker)
        assert tracker.logs == [["match 8's lead, by hand"]], stored_in_old_hand
        assert src.record.new_hand is False  # the camera's next event goes into that hand 1


def test_a_camera_started_in_a_new_match_does_not_take_the_last_matchs_layout_for_plays(footage, tmp_path,
                                                                                        monkeypatch):
    """helper-67: stop the camera table, start a new match, start the table again: the 8 tiles of
    the last match's layout still on the table became the new match's hand-1 plays, all at once. They
    are old tiles now: the new match's hand 1 holds the camera's deal and only tiles laid since."""
    gt = footage["gt"]
    _in_two_parts(monkeypatch, footage)
    old = {tuple(sorted(p["tile"])) for p in gt["plays"][:8]}
    with TestClient(app_for(tmp_path)) as c:
        vision_table(c, footage)
        for new_match in (False, True):
            if new_match:
                mid = post(c, "/api/tables/cam/matches", {}).json()["id"]
            post(c, "/api/tables/cam/start")
            wait_for(lambda: c.get("/api/tables/cam/status").json()["state"] in ("finished", "error"), timeout=30)
        events = c.get(f"/api/matches/{mid}/hands/1").json()["events"]
    assert events[0]["type"] == "deal"
    laid = [tuple(sorted(e["tile"])) for e in events if e["type"] == "play"]
    assert laid and not old.intersection(laid), laid


def test_a_new_match_right_after_the_start_keeps_the_deal_on_its_way_as_its_hand_1():
    """helper-67: started, then a new match at once: the camera's deal, still on its way, landed in
    the new match's hand 1, and the start-over opened hand 2 for the plays (hand 1 left unfinished).
    A hand without plays whose events were in flight is already the new match's first."""
    from engine.events import Deal

    src = VisionSource({"id": "t", "hands_recorded": 0})
    sent = []
    src._send(sent.append, Deal(hands={}, draws_seen=False), "vision:deal")
    src.new_match(2)  # before the deal was stored
    src.acknowledge(sent[-1], 1, 0)  # stored in the new match's hand 1
    assert src.record.take_start_over(False) == "keep" and src.record.tracker_hand == 0
    src2 = VisionSource({"id": "t", "hands_recorded": 0})
    src2._send(sent.append, Deal(hands={}, draws_seen=False), "vision:deal")
    src2.acknowledge(sent[-1], 1, 0)  # stored in the old match before it changed
    src2.new_match(2)
    assert src2.record.take_start_over(False) == "new"
    src3 = VisionSource({"id": "t", "hands_recorded": 0})
    src3.new_match(2)  # before the camera's first frame: its deal is not even sent yet (helper-68)
    src3._send(sent.append, Deal(hands={}, draws_seen=False), "vision:deal")
    assert src3.record.take_start_over(False) == "keep"


class _FilePart(_CameraPart):
    """Frames ``start`` .. ``stop`` - 1 of a video file, replayed (not live)."""

    live = False


def test_a_replayed_file_started_again_mid_hand_goes_on_after_the_frames_it_recorded(footage, tmp_path,
                                                                                     monkeypatch):
    """helper-64: stop/start of a table replaying a video file mid-hand added the replay's plays to the
    hand already recorded (mismatched ends, a deal after the first play, desync alerts); then it
    started the file over as a new hand, which recorded the first plays twice (helper-93). Now the
    worker skips the frames it already recorded and goes on with the hand: every play once."""
    gt = footage["gt"]
    want = [(w["seat"], w["tile"], w["end"]) for w in gt["plays"]]
    cut = _in_two_parts(monkeypatch, footage, _FilePart, second_from_start=True)
    read: list[int] = []
    with TestClient(app_for(tmp_path)) as c:
        vision_table(c, footage, speed=10000)
        for run in range(2):
            started = post(c, "/api/tables/cam/start").json()
            if run == 1:  # the status says at once where the file goes on from (helper-96: 0)
                assert started["position"] == last_frame, started
            status = wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["state"] in ("finished", "error")
                              and s, timeout=30)
            assert status["state"] == "finished"
            if run == 0:
                mid = c.get("/api/tables/cam/snapshot").json()["data"]["state"]["match"]["id"]
                first = c.get(f"/api/matches/{mid}/hands/1").json()["events"]
                last_frame = max(e["frame"] for e in first if e.get("frame") is not None)
                monkeypatch.setattr(Oracle, "progress", lambda self, i, _f=Oracle.progress: (read.append(i), _f(self, i)))
        hands = c.get(f"/api/matches/{mid}").json()["hands"]
        events = c.get(f"/api/matches/{mid}/hands/1").json()["events"]
        alerts = c.get("/api/tables/cam/alerts?status=open").json()
    assert len(hands) == 1
    assert [(p["seat"], p["tile"], p.get("end", "lead")) for p in events if p["type"] == "play"] == want
    assert [e["type"] for e in events].count("deal") == 1
    assert [a for a in alerts if a["category"] == "desync"] == []
    # the second run read from the frame after the last one recorded, not from the file's start
    assert last_frame < cut and read[0] == last_frame + 1, (read[:3], last_frame)
    assert status["position"] == gt["n_frames"]


def test_a_replayed_file_restarted_between_the_last_play_and_the_reveal_still_ends_the_hand(footage, tmp_path,
                                                                                            monkeypatch):
    """helper-96: a file table stopped after the hand's last play and started again resumed after that
    play and never ended the hand (no domino, no reveal, no alert). The end is read as in one run."""
    gt = footage["gt"]
    cut = (gt["plays"][-1]["frame"] + gt["reveals"][0]["frame"]) // 2
    _in_two_parts(monkeypatch, footage, _FilePart, second_from_start=True, cut=cut)
    with TestClient(app_for(tmp_path)) as c:
        vision_table(c, footage, speed=10000)
        for _ in range(2):
            post(c, "/api/tables/cam/start")
            assert wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["state"] in ("finished", "error")
                            and s, timeout=30)["state"] == "finished"
        mid = c.get("/api/tables/cam/snapshot").json()["data"]["state"]["match"]["id"]
        hand = c.get(f"/api/matches/{mid}").json()["hands"]
        events = c.get(f"/api/matches/{mid}/hands/1").json()["events"]
    want = gt["reveals"][0]
    assert len(hand) == 1 and hand[0]["status"] != "in_progress", hand
    reveals = [(e["seat"], sorted(map(tuple, e["tiles"]))) for e in events if e["type"] == "reveal"]
    assert reveals == [(want["seat"], sorted(map(tuple, want["tiles"])))]
    assert [e["type"] for e in events].count("play") == len(gt["plays"])


def test_a_start_refused_for_a_profile_of_another_size_records_nothing(footage, oracle_vision, tmp_path):
    """helper-64: the refused start still opened hand 1 with the camera's deal."""
    profile = json.loads(Path(footage["paths"]["profile"]).read_text())
    profile["image_size"] = [960, 540]  # the footage is 640x360
    other = tmp_path / "other.json"
    other.write_text(json.dumps(profile))
    with TestClient(app_for(tmp_path / "svc")) as c:
        body = {"id": "cam", "name": "Camera table", "rules": "all-fives", "video_source": str(footage["paths"]["video"]),
                "calibration": str(other), "worker": {"kind": "vision", "speed": 16}}
        assert post(c, "/api/tables", body).status_code == 201
        post(c, "/api/tables/cam/start")
        st = wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["state"] == "error" and s, timeout=20)
        snap = c.get("/api/tables/cam/snapshot").json()
    assert "but profile" in st["error"] and "960x540" in st["error"]
    assert snap["data"]["state"]["match"]["id"] is None or snap["data"]["state"]["hand"] is None


class _InferredPassesSource(_NoticeSource):
    """At a four-seat table (counterclockwise: N, W, S, E): N leads, then one read sees E's arm lay 6-3
    and infers W's and S's passes
    (sent as the tracker sends them: each pass, its notice, then the play, all tagged with the read)."""

    async def __aiter__(self):
        from engine.events import Deal, Pass, Play
        from service.sources import SourceItem

        yield SourceItem(Deal(hands={}, draws_seen=False), tag="vision:0")
        yield SourceItem(Play(seat="N", tile=(6, 6), t=1.0, frame=8), tag="vision:8")
        for seat in ("W", "S"):
            yield SourceItem(Pass(seat=seat, t=9.0, frame=72), tag="vision:72")
            yield SourceItem(None, tag="vision:72", alert={
                "type": "vision_notice", "kind": "pass_inferred", "t": 9.0, "frame": 72, "seat": seat, "by": "E",
                "pass_t": 9.0, "pass_frame": 72, "message": f"{seat} passed: E's arm played 6-3 on {seat}'s turn"})
        yield SourceItem(Play(seat="E", tile=(6, 3), end="E", t=9.0, frame=72), tag="vision:72")


def _inferred_passes_table(c, footage) -> None:
    r = post(c, "/api/tables", {"id": "cam", "name": "Camera table", "rules": "bdc-partnership",
                                "video_source": str(footage["paths"]["video"]),
                                "calibration": str(footage["paths"]["profile"]), "worker": {"kind": "vision"}})
    assert r.status_code == 201, r.text
    post(c, "/api/tables/cam/start")
    wait_for(lambda: c.get("/api/tables/cam/status").json()["state"] == "finished")


def _in_force(c) -> list[str]:
    from engine.events import effective
    from engine.notation import format_event
    from engine.record import from_json

    log = from_json(c.get("/api/matches/1/record.json").text).logs[0]
    # without the read's time and frame
    return [format_event(ev.model_copy(update={"t": None, "frame": None})) for _, ev in effective(log)]


def test_voiding_a_camera_play_voids_the_passes_inferred_from_it(tmp_path, monkeypatch, footage):
    """The passes were there only because the camera saw that play: voided, it left W and S passing
    for a play nobody made (and E to play next instead of W)."""
    monkeypatch.setitem(sources._FACTORIES, "vision", _InferredPassesSource)
    with TestClient(app_for(tmp_path)) as c:
        _inferred_passes_table(c, footage)
        assert _in_force(c) == ["deal unseen", "N 6-6", "W pass", "S pass", "E 6-3 E"]
        assert len([a for a in c.get("/api/tables/cam/alerts").json() if a["kind"] == "pass_inferred"]) == 2
        r = post(c, "/api/tables/cam/corrections", {"hand": 1, "replaces": 4, "event": None, "reason": "a bump"})
        assert r.status_code == 201, r.text
        assert r.json()["voided_passes"] == [2, 3]
        assert _in_force(c) == ["deal unseen", "N 6-6"]
        assert c.get("/api/tables/cam/status").json()["hand"]["turn"] == "W"
        alerts = c.get("/api/tables/cam/alerts?status=all").json()
        assert sorted((a["seat"], a["status"]) for a in alerts if a["kind"] == "pass_inferred") == [
            ("S", "resolved"), ("W", "resolved")]


class _VoidedMeanwhileSource(_NoticeSource):
    """bdc-partnership (N, W, S, E): N leads 6-6, W lays 6-3 on E; the umpire voids W's play (a wrong
    void) while the camera runs, so the record leaves W to play; S's arm then lays 6-1 on W and the
    tracker infers W's pass, as it does for a skipped seat."""

    voided = None  # set by the test once the void is in

    async def __aiter__(self):
        import asyncio

        from engine.events import Deal, Pass, Play
        from service.sources import SourceItem

        yield SourceItem(Deal(hands={}, draws_seen=False), tag="vision:0")
        yield SourceItem(Play(seat="N", tile=(6, 6), t=1.0, frame=8), tag="vision:8")
        yield SourceItem(Play(seat="W", tile=(6, 3), end="E", t=3.0, frame=24), tag="vision:24")
        while not _VoidedMeanwhileSource.voided.is_set():
            await asyncio.sleep(0.02)
        yield SourceItem(Pass(seat="W", t=6.0, frame=48), tag="vision:48")
        yield SourceItem(None, tag="vision:48", alert={
            "type": "vision_notice", "kind": "pass_inferred", "t": 6.0, "frame": 48, "seat": "W", "by": "S",
            "pass_t": 6.0, "pass_frame": 48, "message": "W passed: S's arm played 6-1 on W's turn"})
        yield SourceItem(Play(seat="S", tile=(6, 1), end="W", t=6.0, frame=48), tag="vision:48")


def test_restoring_a_wrongly_voided_camera_play_voids_the_pass_inferred_meanwhile(tmp_path, monkeypatch, footage):
    """helper-93: a camera play voided by mistake leaves its seat to play; the next play by another seat
    then makes the camera infer that seat's pass. Restoring the play left the pass (W "passed" right
    after its own play: an out-of-turn flag). The restore now voids the passes inferred meanwhile."""
    import threading

    _VoidedMeanwhileSource.voided = threading.Event()
    monkeypatch.setitem(sources._FACTORIES, "vision", _VoidedMeanwhileSource)
    with TestClient(app_for(tmp_path)) as c:
        r = post(c, "/api/tables", {"id": "cam", "name": "Camera table", "rules": "bdc-partnership",
                                    "video_source": str(footage["paths"]["video"]),
                                    "calibration": str(footage["paths"]["profile"]), "worker": {"kind": "vision"}})
        assert r.status_code == 201, r.text
        post(c, "/api/tables/cam/start")
        wait_for(lambda: len(_in_force(c)) == 3)
        play = c.get("/api/matches/1/hands/1").json()["events"][2]
        assert post(c, "/api/tables/cam/corrections", {"hand": 1, "replaces": 2, "event": None}).status_code == 201
        _VoidedMeanwhileSource.voided.set()
        wait_for(lambda: c.get("/api/tables/cam/status").json()["state"] == "finished")
        assert _in_force(c) == ["deal unseen", "N 6-6", "W pass", "S 6-1 W"]
        r = post(c, "/api/tables/cam/corrections", {"hand": 1, "replaces": 2, "event": play, "reason": "restored"})
        assert r.status_code == 201, r.text
        assert r.json()["voided_passes"] == [4]
        assert _in_force(c) == ["deal unseen", "N 6-6", "W 6-3 E", "S 6-1 W"]
        assert c.get("/api/tables/cam/status").json()["hand"]["turn"] == "E"
        alerts = c.get("/api/tables/cam/alerts?status=all").json()
        assert [(a["seat"], a["status"]) for a in alerts if a["kind"] == "pass_inferred"] == [("W", "resolved")]
        assert [a for a in alerts if a["status"] == "open" and a["kind"] in ("out_of_turn", "pass_with_play")] == []


def test_voiding_an_inferred_pass_resolves_its_alert(tmp_path, monkeypatch, footage):
    """helper-89: the umpire voided the camera's "S passed"; its alert stayed open beside the new
    out_of_turn flag."""
    monkeypatch.setitem(sources._FACTORIES, "vision", _InferredPassesSource)
    with TestClient(app_for(tmp_path)) as c:
        _inferred_passes_table(c, footage)
        r = post(c, "/api/tables/cam/corrections", {"hand": 1, "replaces": 3, "event": None, "reason": "S played"})
        assert r.status_code == 201, r.text
        assert _in_force(c) == ["deal unseen", "N 6-6", "W pass", "E 6-3 E"]
        alerts = c.get("/api/tables/cam/alerts?status=all").json()
        assert sorted((a["seat"], a["status"]) for a in alerts if a["kind"] == "pass_inferred") == [
            ("S", "resolved"), ("W", "open")]


def test_moving_a_camera_play_to_a_skipped_seat_voids_that_seats_inferred_pass_and_later_ones(
        tmp_path, monkeypatch, footage):
    """S made the play the camera gave E: W passed before it (stands), S did not pass (voided)."""
    monkeypatch.setitem(sources._FACTORIES, "vision", _InferredPassesSource)
    with TestClient(app_for(tmp_path)) as c:
        _inferred_passes_table(c, footage)
        r = post(c, "/api/tables/cam/reassign", {"hand": 1, "index": 4, "seat": "S"})
        assert r.status_code == 201, r.text
        assert r.json()["voided_passes"] == [3]
        assert _in_force(c) == ["deal unseen", "N 6-6", "W pass", "S 6-3 E"]
        assert c.get("/api/tables/cam/status").json()["hand"]["turn"] == "E"
        alerts = c.get("/api/tables/cam/alerts?status=all").json()
        assert sorted((a["seat"], a["status"]) for a in alerts if a["kind"] == "pass_inferred") == [
            ("S", "resolved"), ("W", "open")]


_DEMO = Path(__file__).resolve().parents[1] / "examples" / "footage"


def _demo_run(data_dir: Path, monkeypatch, void: tuple[int, int] | None = None,
              restore_when=lambda c: True, restore_frame: int | None = None, void_frame: int | None = None,
              umpire: dict | None = None, alerts: list | None = None) -> tuple[list[str], dict, dict | None]:
    """The bundled demo (lisa-b-all-fives, N and S, draws) on a camera table read by its ground truth;
    ``void=(k, n)``: once the camera recorded the hand's play ``k`` (0-based), the umpire voids it
    before the next play (or at frame ``void_frame``), and restores it before play ``n`` (or at frame
    ``restore_frame``), once
    ``restore_when(client)`` holds. With ``umpire`` (an event's JSON: a hand end, a penalty), the umpire
    records that event instead of voiding play ``k``, and voids it instead of restoring. Returns the events
    in force (as ``_in_force``), the scores, and the restore's (the void's) answer; ``alerts`` gets the
    table's alerts at the end, all of them."""
    import threading

    from calibration.profile import TableProfile
    from engine.tiles import Tile

    gt = json.loads((_DEMO / "ground_truth.json").read_text())
    oracle = Oracle(gt, TableProfile.load(_DEMO / "profile.json"))
    plays = gt["plays"]
    def between(i: int) -> int:  # the frame between play i - 1 and play i (after the last: 20 frames after it, before the reveal)
        return (plays[i - 1]["frame"] + plays[i]["frame"]) // 2 if i < len(plays) else plays[-1]["frame"] + 20

    gates = {} if void is None else {  # the frame thread waits there for the umpire
        f: (threading.Event(), threading.Event()) for f in
        (void_frame if void_frame is not None else between(void[0] + 1), restore_frame if restore_frame is not None else between(void[1]))}

    def before_frame(i: int) -> None:
        if i in gates:
            reached, go = gates[i]
            reached.set()
            assert go.wait(30)
        oracle.progress(i)

    monkeypatch.setitem(sources._FACTORIES, "vision", lambda table: VisionSource(
        table, recognizer_factory=lambda profile: oracle, before_frame=before_frame))
    restored = None
    with TestClient(app_for(data_dir)) as c:
        r = post(c, "/api/tables", {"id": "cam", "name": "Camera table", "rules": "lisa-b-all-fives",
                                    "video_source": str(_DEMO / "demo.mp4"), "calibration": str(_DEMO / "profile.json"),
                                    "worker": {"kind": "vision", "speed": 10000}})
        assert r.status_code == 201, r.text
        post(c, "/api/tables/cam/start")
        for n, (reached, go) in enumerate(gates[f] for f in sorted(gates)):
            assert reached.wait(30)
            if n == 0:
                key = Tile(*plays[void[0]]["tile"]).key
                slot = wait_for(lambda: next((i for i, e in enumerate(c.get("/api/matches/1/hands/1").json()["events"])
                                              if e["type"] == "play" and Tile(*e["tile"]).key == key), None))
                play = c.get("/api/matches/1/hands/1").json()["events"][slot]
                if umpire is not None:
                    r = post(c, "/api/tables/cam/events", {"event": umpire, "by": "ump"})
                    slot, play = r.json()["index"], None
                else:
                    r = post(c, "/api/tables/cam/corrections", {"hand": 1, "replaces": slot, "event": None})
                assert r.status_code == 201, r.text
            else:
                wait_for(lambda: restore_when(c))
                restored = post(c, "/api/tables/cam/corrections", {"hand": 1, "replaces": slot, "event": play})
                assert restored.status_code == 201, restored.text
                restored = restored.json()
            go.set()
        wait_for(lambda: c.get("/api/tables/cam/status").json()["state"] == "finished", timeout=60)
        scores = c.get("/api/tables/cam/snapshot").json()["data"]["state"]["game"]["scores"]
        if alerts is not None:
            alerts += c.get("/api/tables/cam/alerts?status=all", headers=AUTH).json()
        return _in_force(c), scores, restored


@pytest.fixture(scope="module")
def demo_unvoided(tmp_path_factory) -> tuple[list[str], dict]:
    """The demo's record and scores as the camera gives them with no umpire's change."""
    with pytest.MonkeyPatch.context() as mp:
        return _demo_run(tmp_path_factory.mktemp("demo"), mp)[:2]


def _open(c, kind: str, tile: tuple[int, int] | None = None) -> list[dict]:
    return [a for a in c.get("/api/tables/cam/alerts").json()
            if a["kind"] == kind and (tile is None or sorted(a["details"].get("tile") or []) == sorted(tile))]


def test_a_camera_play_voided_while_two_plays_were_laid_against_it_and_restored_leaves_the_record_as_without_the_void(
        tmp_path, monkeypatch, demo_unvoided):
    """helper-100: on the demo the umpire voids S's 6-0 by mistake; N's 0-0 and then S's 0-4 are laid
    against it (touching no open end of the record, they wait unplaced); the umpire restores the 6-0 as
    N's arm lays 1-1 on the other end. The read after the restore gave the waiting 0-0 to the arm of that
    read (N's) and the rest by turn: S 0-0, N 0-4, S 30 for 35. Each waiting tile is its own arm's play."""
    events, scores, _ = _demo_run(tmp_path, monkeypatch, void=(6, 9),
                                  restore_when=lambda c: _open(c, "unplaced_tile", (4, 0)))
    assert (events, scores) == demo_unvoided and scores == {"N": 15, "S": 35}


def test_a_camera_play_voided_while_a_draw_and_two_plays_were_made_and_restored_leaves_the_record_as_without_the_void(
        tmp_path, monkeypatch, demo_unvoided):
    """helper-100: on the demo the umpire voids S's 4-4 by mistake (the record leaves S to play); N draws
    (recorded for S, the seat to play), plays 1-0 on E, S lays 4-5 against the 4-4 (unplaced); the
    umpire restores the 4-4 as N's arm lays 5-5. S's 4-5 went to N, the 5-5 to S, and every turn after
    followed one seat off: N 10 S 40 for N 15 S 35. Now the record is the one without the void."""
    events, scores, restored = _demo_run(tmp_path, monkeypatch, void=(10, 13),
                                         restore_when=lambda c: _open(c, "unplaced_tile", (5, 4)))
    assert (events, scores) == demo_unvoided and scores == {"N": 15, "S": 35}
    assert len(restored["reassigned_draws"]) == 1  # N's draw, recorded for S meanwhile


def test_a_draw_made_after_a_tile_laid_against_a_voided_play_keeps_its_seat_when_the_void_is_undone(
        tmp_path, monkeypatch, demo_unvoided):
    """The umpire voids S's 5-3; N lays 3-1 against it (unplaced: a play the record lacks), then S draws
    and lays 6-0 on W; the 5-3 is restored. The restored record's turn at S's draw is not the table's (N's
    3-1 comes in only once the void is undone), so the draw keeps its seat, and each play has its arm's.
    The 3-1, sent after the 6-0, goes back above S's draw and 6-0, where the camera first saw it (h243
    defect 4: it stayed after them, for the umpire to move up)."""
    events, scores, restored = _demo_run(tmp_path, monkeypatch, void=(4, 7),
                                         restore_when=lambda c: "S 6-0 W" in _in_force(c))
    assert restored["reassigned_draws"] == []
    assert (events, scores) == demo_unvoided


def test_a_tile_held_unplaced_while_a_void_stood_is_recorded_at_its_read_once_the_void_is_undone(
        tmp_path, monkeypatch, demo_unvoided):
    """h243 defect 4: the umpire voids N's 2-5 after S's 5-3 and N's 3-1 were recorded; N's 1-1 is laid on
    the E end meanwhile (held unplaced: the record's E end is no longer 1), then S lays 4-4 on W; the 2-5 is
    restored. The 1-1 came in behind the 4-4, which then was out of turn and scored 0 (N 25 S 25 on air);
    now it goes back to the read that saw it, above the 4-4: the record and scores are the camera's
    without the void (N 15 S 35)."""
    gt = json.loads((_DEMO / "ground_truth.json").read_text())["plays"]
    alerts: list = []
    events, scores, _ = _demo_run(tmp_path, monkeypatch, void=(3, 11), void_frame=(gt[5]["frame"] + gt[6]["frame"]) // 2,
                                  restore_when=lambda c: "S 4-4 W" in _in_force(c), alerts=alerts)
    assert (events, scores) == demo_unvoided and scores == {"N": 15, "S": 35}
    assert [a for a in alerts if a["status"] == "open" and a["kind"] in ("out_of_turn", "recorded_late")] == []


def test_the_last_play_voided_until_the_loser_showed_its_tiles_ends_the_hand_once_restored(
        tmp_path, monkeypatch, demo_unvoided):
    """helper-104: the umpire voids N's 5-0, the hand's last play; S turns up its 4-3 meanwhile (no end:
    the record leaves N to play); the 5-0 is restored with the table still. The line changed, but a still
    table is not read again, so the hand stayed open for good (N 10 S 35, S to play, no alert)."""
    last = len(json.loads((_DEMO / "ground_truth.json").read_text())["plays"]) - 1
    events, scores, _ = _demo_run(tmp_path, monkeypatch, void=(last, last + 1), restore_frame=730)
    assert (events, scores) == demo_unvoided and scores == {"N": 15, "S": 35}


def test_a_hand_end_pressed_by_mistake_and_voided_leaves_the_record_as_without_it(tmp_path, monkeypatch, demo_unvoided):
    """helper-174: the umpire pressed End (locked) by mistake after S's 6-0; N's 0-0 and S's 0-4 laid
    meanwhile were after_hand_end notices, and voiding the end left them so for good: every later tile
    touched no open end and the hand never ended (N 0 S 15). Once the end is voided they are plays, and
    their alerts are resolved."""
    alerts: list = []
    events, scores, _ = _demo_run(tmp_path, monkeypatch, void=(6, 9), umpire={"type": "hand_end", "kind": "locked"},
                                  restore_when=lambda c: _open(c, "after_hand_end", (4, 0)), alerts=alerts)
    assert (events, scores) == demo_unvoided and scores == {"N": 15, "S": 35}
    late = [a for a in alerts if a["kind"] == "after_hand_end"]
    assert sorted(sorted(a["details"]["tile"]) for a in late) == [[0, 0], [0, 4]]
    assert all(a["status"] == "resolved" and "was recorded as play" in a["note"] for a in late)
    assert [a for a in alerts if a["status"] == "open" and a["kind"] in ("unplaced_tile", "rules_misfit", "desync")] == []


@pytest.mark.parametrize("umpire,void", [
    ({"type": "penalty", "seat": "S", "name": "bogus_play"}, (6, 9)),  # -25 and a redeal: it ends the hand
    ({"type": "hand_end", "kind": "locked"}, (9, 12)),  # N draws and lays 1-0 while it stands
])
def test_an_end_voided_while_plays_and_draws_were_made_leaves_the_record_as_without_it(
        tmp_path, monkeypatch, demo_unvoided, umpire, void):
    """helper-174: the same for lisa-b's bogus_play penalty (-25, redeal) voided, and for an End that stood
    while N drew a tile and then played: the draw comes in N's turn, before N's 1-0, as at the table."""
    events, scores, _ = _demo_run(tmp_path, monkeypatch, void=void, umpire=umpire)
    assert (events, scores) == demo_unvoided


class _EndedMeanwhileSource(_NoticeSource):
    """N leads 6-6; the umpire ends the hand (``ended``); the camera's play of S's 6-3, on its way, is refused
    (a desync), and the camera says what it saw of the end: the lock misfits the rule set, N's 3-1 was laid
    after it, the end was inferred. Once the umpire voids the end (``voided``) the camera sends S's 6-3 and
    N's 3-1 as plays."""

    ended = voided = None  # threading.Event()s, set by the test

    async def __aiter__(self):
        import asyncio

        from engine.events import Deal, Play
        from service.sources import SourceItem

        yield SourceItem(Deal(hands={}, draws_seen=False), tag="vision:0")
        yield SourceItem(Play(seat="N", tile=(6, 6), t=1.0, frame=8), tag="vision:8")
        while not _EndedMeanwhileSource.ended.is_set():
            await asyncio.sleep(0.02)
        yield SourceItem(Play(seat="S", tile=(6, 3), end="E", t=3.0, frame=24), tag="vision:24")
        for kind, tile, details in (("rules_misfit", None, {"parameter": "draw_rule"}),
                                    ("after_hand_end", [3, 1], {"touches_end": True, "end": "E"}),
                                    ("hand_end_inferred", None, {})):
            yield SourceItem(None, tag="vision:40", alert={"type": "vision_notice", "kind": kind, "t": 5.0, "frame": 40,
                                                           "tile": tile, "message": kind, "details": details})
        while not _EndedMeanwhileSource.voided.is_set():
            await asyncio.sleep(0.02)
        yield SourceItem(Play(seat="S", tile=(6, 3), end="E", t=3.0, frame=24), tag="vision:48")
        yield SourceItem(Play(seat="N", tile=(3, 1), end="E", t=5.0, frame=40), tag="vision:48")


def test_the_alerts_of_an_end_the_umpire_voids_are_resolved(tmp_path, monkeypatch, footage):
    """helper-174: after the void of a misclicked End, its desync, the lock's rules_misfit and the
    after_hand_end alerts stayed open, blaming the rule set for the umpire's click."""
    import threading

    _EndedMeanwhileSource.ended, _EndedMeanwhileSource.voided = threading.Event(), threading.Event()
    monkeypatch.setitem(sources._FACTORIES, "vision", _EndedMeanwhileSource)
    with TestClient(app_for(tmp_path)) as c:
        vision_table(c, footage)
        post(c, "/api/tables/cam/start")
        wait_for(lambda: len(_in_force(c)) == 2)
        end = post(c, "/api/tables/cam/events", {"event": {"type": "hand_end", "kind": "locked"}})
        _EndedMeanwhileSource.ended.set()
        wait_for(lambda: len(c.get("/api/tables/cam/alerts").json()) == 5)
        kinds = {a["kind"]: a for a in c.get("/api/tables/cam/alerts").json()}
        assert set(kinds) == {"awaiting_reveal", "desync", "rules_misfit", "after_hand_end", "hand_end_inferred"}
        assert "the hand is over" in kinds["desync"]["message"]
        r = post(c, "/api/tables/cam/corrections", {"hand": 1, "replaces": end.json()["index"], "event": None})
        assert r.status_code == 201, r.text
        assert [a["kind"] for a in c.get("/api/tables/cam/alerts").json()] == ["after_hand_end"]  # not played yet
        _EndedMeanwhileSource.voided.set()
        wait_for(lambda: c.get("/api/tables/cam/status").json()["state"] == "finished")
        assert _in_force(c) == ["deal unseen", "N 6-6", "S 6-3 E", "N 3-1 E"]
        assert c.get("/api/tables/cam/alerts").json() == []
        notes = {a["kind"]: a["note"] for a in c.get("/api/tables/cam/alerts?status=all").json()}
        assert notes["rules_misfit"] == "#2 voided: the hand is not over"
        assert notes["after_hand_end"] == "3-1 was recorded as play #5"


def test_a_folder_tables_later_state_copy_is_skipped_with_an_alert_and_scored_as_review_scores_it(tmp_path,
                                                                                                   monkeypatch):
    """helper-242: the service followed a photo folder with the image checks only, while ``review`` also
    compares the tiles read (helper-236, vision/photo_states.py). A copy of the photo after N's 5-5 put after the
    8th of the demo's 16 photos (one per play) was scored by the service as new plays; it is now skipped with an
    ``unreadable_image`` alert naming it, and the table's score is the review's and the hand's as played."""
    import cv2

    from calibration.profile import TableProfile
    from engine.ruleset import load_ruleset
    from service.review import run_review
    from test_photo_states import GT, KEYFRAMES, PLAY_FRAMES, _obs  # the demo's photos and their tiles
    from video_frames import video_frames  # tests/video_frames.py
    from vision.sources import open_source

    photos = video_frames(_DEMO / "demo.mp4", PLAY_FRAMES)
    by_picture = {im.tobytes(): [k for k in KEYFRAMES if k["frame"] <= f][-1]["tiles"]
                  for im, f in zip(photos, PLAY_FRAMES)}

    class ByPicture:  # the ground truth's tiles of the photo shown, whatever came before (as the models read)
        reads_alone = True

        def __call__(self, image, **kwargs):
            return _obs(by_picture[image.tobytes()])

    folder = tmp_path / "photos"
    folder.mkdir()
    for i, im in enumerate(photos[:8] + [photos[15]] + photos[8:]):  # PNG: the pictures read back bit for bit
        cv2.imwrite(str(folder / f"move_{i + 1:02d}.png"), im)
    monkeypatch.setitem(sources._FACTORIES, "vision",
                        lambda table: VisionSource(table, recognizer_factory=lambda profile: ByPicture()))
    with TestClient(app_for(tmp_path / "venue")) as c:
        r = post(c, "/api/tables", {"id": "cam", "name": "Photo table", "rules": GT["rules"],
                                    "video_source": str(folder), "calibration": str(_DEMO / "profile.json"),
                                    "worker": {"kind": "vision", "speed": 1000}})
        assert r.status_code == 201, r.text
        post(c, "/api/tables/cam/start")
        st = wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["state"] in ("finished", "error") and s,
                      timeout=60)
        alerts = c.get("/api/tables/cam/alerts").json()
        scores = c.get("/api/tables/cam/snapshot").json()["data"]["state"]["game"]["scores"]
    assert st["state"] == "finished" and st["error"] is None
    skipped = [a for a in alerts if a["kind"] == "unreadable_image"]
    assert [(a["details"]["file"], a["details"]["frame"]) for a in skipped] == [(str(folder / "move_09.png"), 8)]
    assert skipped[0]["message"].startswith(f"image {folder / 'move_09.png'} looks like a copy of a later state of "
                                            "this table: it adds 7 tiles (")
    assert skipped[0]["message"].endswith("; skipped")
    review = run_review(open_source(folder), load_ruleset(GT["rules"]), ByPicture(), tmp_path / "review",
                        TableProfile.load(_DEMO / "profile.json"), annotate=False)
    assert {k: v for k, v in scores.items() if v} == {k: v for k, v in review.score.items() if v} == _hand_score()
    assert len(review.skipped) == 1


def _demo_folder(folder: Path, named: list[int], on_read=None):  # noqa: ANN001, ANN202
    """The demo's 16 photos (one per play: photo ``k`` shows the line once play ``k`` is laid) written to ``folder``
    as PNG (read back bit for bit) in name order ``named`` (``named[i]``: the photo named ``i``-th), and a recognizer
    (``reads_alone``) giving each photo's ground-truth tiles; ``on_read(n)`` is called before its ``n``-th read."""
    import cv2

    from test_photo_states import KEYFRAMES, PLAY_FRAMES, _obs
    from video_frames import video_frames  # tests/video_frames.py

    photos = video_frames(_DEMO / "demo.mp4", PLAY_FRAMES)
    by_picture = {im.tobytes(): [k for k in KEYFRAMES if k["frame"] <= f][-1]["tiles"]
                  for im, f in zip(photos, PLAY_FRAMES)}
    folder.mkdir()
    for i, k in enumerate(named):
        cv2.imwrite(str(folder / f"move_{i:02d}.png"), photos[k])
    reads: list[int] = []

    class ByPicture:  # the ground truth's tiles of the photo shown, whatever came before (as the models read)
        reads_alone = True

        def __call__(self, image, **kwargs):
            reads.append(1)
            if on_read is not None:
                on_read(len(reads))
            return _obs(by_picture[image.tobytes()])

    return ByPicture, reads


_SWAP_5_9 = [0, 1, 2, 3, 4, 9, 6, 7, 8, 5, 10, 11, 12, 13, 14, 15]  # the 6th and 10th photos named the other way


def _photo_table(c, folder: Path, speed: float = 1000) -> None:  # noqa: ANN001
    """Register table ``cam``: a replayed photo folder (the demo's rules and calibration) at ``speed``."""
    from test_photo_states import GT

    r = post(c, "/api/tables", {"id": "cam", "name": "Photo table", "rules": GT["rules"], "video_source": str(folder),
                                "calibration": str(_DEMO / "profile.json"),
                                "worker": {"kind": "vision", "speed": speed}})
    assert r.status_code == 201, r.text


def _played(c) -> list[tuple]:
    """(seat, tile, end, frame, t) of the plays recorded in the table's match's hand 1."""
    events = c.get("/api/matches/1/hands/1").json()["events"]
    return [(e["seat"], tuple(e["tile"]), e.get("end", "lead"), e["frame"], e["t"]) for e in events
            if e["type"] == "play"]


def _hand_score() -> dict:
    """The demo's 16 plays' points as the rules engine scored the simulated hand, less the going-out award (no
    photo shows the tiles left): the seats that scored."""
    from test_photo_states import GT

    want = {"N": 0, "S": 0}
    for p in GT["plays"]:
        for seat, pts in p["points"].items():
            want[seat] += pts
    for seat, award in GT["hands"][0]["result"]["awards"].items():
        want[seat] -= award
    return {k: v for k, v in want.items() if v}


def test_a_folder_tables_photos_named_out_of_order_are_read_in_the_order_taken(tmp_path, monkeypatch):
    """helper-256: the demo's 16 photos (one per play) with the 6th and 10th named the other way round, on a
    replayed photo-folder table: read in the order taken (vision.photo_order, shared with ``review``), one
    ``photos_reordered`` alert naming them, none skipped, and the table's score the hand's as played."""
    ByPicture, _ = _demo_folder(tmp_path / "photos", _SWAP_5_9)
    monkeypatch.setitem(sources._FACTORIES, "vision",
                        lambda table: VisionSource(table, recognizer_factory=lambda profile: ByPicture()))
    with TestClient(app_for(tmp_path / "venue")) as c:
        _photo_table(c, tmp_path / "photos")
        post(c, "/api/tables/cam/start")
        st = wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["state"] in ("finished", "error") and s,
                      timeout=60)
        alerts = c.get("/api/tables/cam/alerts?status=all").json()
        scores = c.get("/api/tables/cam/snapshot").json()["data"]["state"]["game"]["scores"]
    assert st["state"] == "finished" and st["error"] is None
    assert [a["kind"] for a in alerts if a["kind"] in ("unreadable_image", "tile_missing")] == []
    moved = [a for a in alerts if a["kind"] == "photos_reordered"]
    assert len(moved) == 1 and "move_09.png after move_04.png, move_05.png after move_08.png" in moved[0]["message"]
    assert moved[0]["severity"] == "info" and moved[0]["status"] == "resolved"  # a camera note: nothing to decide
    assert {k: v for k, v in scores.items() if v} == _hand_score()


def _demo_photos_run(data_dir: Path, folder: Path, monkeypatch, void: tuple[int, int] | None = None,
                     alerts: list | None = None) -> tuple[list[str], dict, dict | None]:
    """The demo as a folder of photos (one per play, ``test_photo_states.PLAY_FRAMES``, and the last frame) on a camera table, each photo
    read by its ground truth; ``void=(k, n)``: once play ``k`` (0-based) is recorded and before photo ``k + 1`` is
    read, the umpire voids it, and restores it before photo ``n`` is read. Returns the events in force (as
    ``_in_force``), the scores and the restore's answer; ``alerts`` gets the table's alerts at the end, all of them."""
    import threading

    import cv2

    from engine.tiles import Tile
    from test_photo_states import GT, KEYFRAMES, PLAY_FRAMES, _obs
    from video_frames import video_frames

    shots = PLAY_FRAMES + [GT["n_frames"] - 1]  # and the last: S's tiles shown, the hand ends
    photos = video_frames(_DEMO / "demo.mp4", shots)
    by_picture = {im.tobytes(): [k for k in KEYFRAMES if k["frame"] <= f][-1]["tiles"] for im, f in zip(photos, shots)}

    class ByPicture:  # the ground truth's tiles of the photo shown, whatever came before (as the models read)
        reads_alone = True

        def __call__(self, image, **kwargs):
            return _obs(by_picture[image.tobytes()])

    if not folder.exists():
        folder.mkdir()
        for i, im in enumerate(photos):  # PNG: the pictures read back bit for bit
            cv2.imwrite(str(folder / f"move_{i:02d}.png"), im)
    gates = {} if void is None else {f: (threading.Event(), threading.Event()) for f in (void[0] + 1, void[1])}
    restored = None

    def before_frame(i: int) -> None:
        if i in gates:
            reached, go = gates[i]
            reached.set()
            assert go.wait(30)

    monkeypatch.setitem(sources._FACTORIES, "vision", lambda table: VisionSource(
        table, recognizer_factory=lambda profile: ByPicture(), before_frame=before_frame))
    with TestClient(app_for(data_dir)) as c:
        r = post(c, "/api/tables", {"id": "cam", "name": "Photo table", "rules": GT["rules"],
                                    "video_source": str(folder), "calibration": str(_DEMO / "profile.json"),
                                    "worker": {"kind": "vision", "speed": 1000}})
        assert r.status_code == 201, r.text
        post(c, "/api/tables/cam/start")
        for n, (reached, go) in enumerate(gates[f] for f in sorted(gates)):
            assert reached.wait(30)
            if n == 0:
                key = Tile(*GT["plays"][void[0]]["tile"]).key
                slot = wait_for(lambda: next((i for i, e in enumerate(c.get("/api/matches/1/hands/1").json()["events"])
                                              if e["type"] == "play" and Tile(*e["tile"]).key == key), None))
                play = c.get("/api/matches/1/hands/1").json()["events"][slot]
                r = post(c, "/api/tables/cam/corrections", {"hand": 1, "replaces": slot, "event": None})
            else:  # the photo before this one recorded
                last = Tile(*GT["plays"][void[1] - 1]["tile"]).key
                wait_for(lambda: any(e["type"] == "play" and Tile(*e["tile"]).key == last
                                     for e in c.get("/api/matches/1/hands/1").json()["events"]))
                r = restored = post(c, "/api/tables/cam/corrections", {"hand": 1, "replaces": slot, "event": play})
            assert r.status_code == 201, r.text
            go.set()
        wait_for(lambda: c.get("/api/tables/cam/status").json()["state"] == "finished", timeout=60)
        scores = c.get("/api/tables/cam/snapshot").json()["data"]["state"]["game"]["scores"]
        if alerts is not None:
            alerts += c.get("/api/tables/cam/alerts?status=all", headers=AUTH).json()
        return _in_force(c), scores, None if restored is None else restored.json()


@pytest.fixture(scope="module")
def demo_photos(tmp_path_factory) -> tuple[Path, tuple[list[str], dict]]:
    """The demo's photo folder, and its record and scores as the camera gives them with no umpire's change."""
    folder = tmp_path_factory.mktemp("demo_photos") / "photos"
    with pytest.MonkeyPatch.context() as mp:
        return folder, _demo_photos_run(folder.parent / "plain", folder, mp)[:2]


@pytest.mark.parametrize("restore_before", [8, 11, 13])
def test_a_photo_folders_play_voided_and_restored_leaves_the_seats_of_the_reads_meanwhile_as_without_the_void(
        tmp_path, monkeypatch, demo_photos, restore_before):
    """helper-251: a folder of the demo's photos; the umpire voids N's 3-1 once it is recorded, S's draw and 6-0
    are read (one photo: the draw went to N, the seat the void left to play, and the 6-0 with it, the drawer's
    play), then N's 0-0, S's 0-4, N's 1-1 laid against the 3-1 (held unplaced) and S's 4-4; the 3-1 is restored
    before the photo of N's draw and 1-0 (11; or of N's 0-0, 8; or of S's 4-5, 13). The draw went back to S, its
    6-0 stayed N's; the 1-1, sent with the next photo, was moved up above the 4-4, but that photo's draw and 1-0,
    judged by the turn before the move, were S's: 5 open out_of_turn alerts, N 15 S 35 by luck. Now every seat is
    as the camera gives it without the void."""
    folder, unvoided = demo_photos
    assert unvoided[1] == {"N": 15, "S": 35}
    alerts: list = []
    events, scores, restored = _demo_photos_run(tmp_path, folder, monkeypatch, void=(5, restore_before), alerts=alerts)
    assert (events, scores) == unvoided
    # S's draw and 6-0, recorded N's right after the void (slots 8 and 9: deal, 6 plays, the void)
    assert (restored["reassigned_draws"], restored["reassigned_plays"]) == ([8], [9])
    assert [(a["index"], a["message"]) for a in alerts if a["status"] == "open" and a["kind"] == "out_of_turn"] == []


def test_a_photo_folder_table_stopped_while_it_reads_the_folder_ahead_stops_at_once_and_records_nothing(
        tmp_path, monkeypatch):
    """helper-264: a replayed photo-folder table reads its folder once ahead of its first event (the order the
    photos were taken, vision.photo_order). A stop during that read ends the worker after the photo being read (no
    further read, no error, state stopped), with nothing recorded (not even a draw game's deal); started again, it
    reads the folder from its start and records every play once."""
    import threading

    from test_photo_states import GT

    made: list[VisionSource] = []
    reached = threading.Event()

    def on_read(n: int) -> None:  # the 4th photo read ahead: held until the table is stopped
        if n == 4 and len(made) == 1:
            reached.set()
            wait_for(lambda: made[0]._stop.is_set(), timeout=30)

    ByPicture, reads = _demo_folder(tmp_path / "photos", _SWAP_5_9, on_read)
    frames: list[int] = []
    monkeypatch.setitem(sources._FACTORIES, "vision", lambda table: made.append(VisionSource(
        table, recognizer_factory=lambda profile: ByPicture(), before_frame=frames.append)) or made[-1])
    with TestClient(app_for(tmp_path / "venue")) as c:
        _photo_table(c, tmp_path / "photos")
        post(c, "/api/tables/cam/start")
        assert reached.wait(30)
        t0 = time.monotonic()
        st = post(c, "/api/tables/cam/stop").json()
        stop_s = time.monotonic() - t0
        thread_alive = made[0]._thread.is_alive()
        assert (st["state"], st["error"]) == ("stopped", None), st
        time.sleep(0.3)  # a worker that went on would read on meanwhile
        assert (len(reads), frames) == (4, [])  # stopped after the photo being read: none read after, none reviewed
        assert c.get("/api/tables/cam/status").json()["state"] == "stopped"
        assert c.get("/api/tables/cam/alerts?status=all").json() == []
        assert c.get("/api/matches/1/hands/1").status_code == 404 or _played(c) == []
        post(c, "/api/tables/cam/start")
        st = wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["state"] in ("finished", "error") and s,
                      timeout=60)
        played = _played(c)
        events = c.get("/api/matches/1/hands/1").json()["events"]
        scores = c.get("/api/tables/cam/snapshot").json()["data"]["state"]["game"]["scores"]
        alerts = c.get("/api/tables/cam/alerts?status=all").json()
    assert not thread_alive and stop_s < 5, stop_s
    assert st["state"] == "finished" and st["error"] is None
    assert [(s, list(t), e) for s, t, e, _, _ in played] == [(p["seat"], p["tile"], p.get("end", "lead"))
                                                            for p in GT["plays"]]
    assert [e["type"] for e in events].count("deal") == 1
    # as a run never stopped says them: the order, and the demo's 6-6 nudged as photo 4 was taken
    assert [(a["kind"], a["details"]["frame"]) for a in alerts] == [("photos_reordered", None), ("bump", 4)]
    assert {k: v for k, v in scores.items() if v} == _hand_score()


def test_a_photo_folder_table_restarted_mid_hand_goes_on_after_the_photos_it_recorded_in_the_order_taken(
        tmp_path, monkeypatch):
    """helper-264: a restarted replayed folder table goes on from the last photo recorded (``resume_frame``, an
    index in the order read). With the photos named out of order (6th and 10th swapped), its restart reads them in
    the order taken again: the photos before the last one recorded are skipped (not read by the pipeline), that one
    is looked at again with its read made ahead (it read the photo twice: helper-264), and every play is recorded
    once, with the frame of its photo in the order taken and that frame's time."""
    import threading

    from test_photo_states import GT

    made: list[VisionSource] = []
    reached = threading.Event()
    frames: list[tuple[int, int]] = []  # (run, frame index) read by the pipeline

    def before_frame(i: int) -> None:
        frames.append((len(made) - 1, i))
        if i == 8 and len(made) == 1:  # the first run: stopped before the 9th photo in the order taken is read
            reached.set()
            wait_for(lambda: made[0]._stop.is_set(), timeout=30)

    ByPicture, reads = _demo_folder(tmp_path / "photos", _SWAP_5_9)
    monkeypatch.setitem(sources._FACTORIES, "vision", lambda table: made.append(VisionSource(
        table, recognizer_factory=lambda profile: ByPicture(), before_frame=before_frame)) or made[-1])
    with TestClient(app_for(tmp_path / "venue")) as c:
        _photo_table(c, tmp_path / "photos")
        post(c, "/api/tables/cam/start")
        assert reached.wait(30)
        first = wait_for(lambda: len(p := _played(c)) == 8 and p)  # the plays of photos 0-7
        post(c, "/api/tables/cam/stop")
        reads_first = len(reads)
        post(c, "/api/tables/cam/start")
        st = wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["state"] in ("finished", "error") and s,
                      timeout=60)
        played = _played(c)
        events = c.get("/api/matches/1/hands/1").json()["events"]
        hands = c.get("/api/matches/1").json()["hands"]
        scores = c.get("/api/tables/cam/snapshot").json()["data"]["state"]["game"]["scores"]
        alerts = c.get("/api/tables/cam/alerts?status=all").json()
    assert st["state"] == "finished" and st["error"] is None and len(hands) == 1
    # photo k shows play k: read at frame k of the order taken, at t = k s (one photo a second)
    want = [(p["seat"], tuple(p["tile"]), p.get("end", "lead"), k, float(k)) for k, p in enumerate(GT["plays"])]
    assert first == want[:8] and played == want
    assert [e["type"] for e in events].count("deal") == 1
    # from the last photo recorded (the table as recorded, looked at again: no play again), with the read made ahead
    assert [f for run, f in frames if run == 1] == list(range(7, 16))
    assert reads_first == 16 and len(reads) - reads_first == 16  # each run reads each photo once (ahead: its order)
    assert [a for a in alerts if a["kind"] in ("desync", "unreadable_image", "tile_missing")] == []
    assert [a["kind"] for a in alerts].count("photos_reordered") == 1  # said at the first start, not again
    assert {k: v for k, v in scores.items() if v} == _hand_score()


def test_a_photo_folder_tables_reordered_photos_are_paced_and_timed_in_the_order_taken(tmp_path, monkeypatch):
    """helper-264: a replayed folder table's photo ``i`` (in the order read) is at ``t = i`` s (one a second) and
    replayed at ``speed`` times that pace: with the 6th and 10th photos named the other way, the plays' times
    follow the order taken, and the replay of 16 photos at speed 20 takes at least 15 / 20 s."""
    from test_photo_states import GT

    seen: list[tuple[int, float]] = []
    ByPicture, _ = _demo_folder(tmp_path / "photos", _SWAP_5_9)
    monkeypatch.setitem(sources._FACTORIES, "vision", lambda table: VisionSource(
        table, recognizer_factory=lambda profile: ByPicture(),
        before_frame=lambda i: seen.append((i, time.monotonic()))))
    with TestClient(app_for(tmp_path / "venue")) as c:
        _photo_table(c, tmp_path / "photos", speed=20)
        post(c, "/api/tables/cam/start")
        st = wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["state"] in ("finished", "error") and s,
                      timeout=60)
        played = _played(c)
    assert st["state"] == "finished"
    assert played == [(p["seat"], tuple(p["tile"]), p.get("end", "lead"), k, float(k))
                      for k, p in enumerate(GT["plays"])]
    assert [i for i, _ in seen] == list(range(16)) and seen[-1][1] - seen[0][1] >= 15 / 20 - 0.02
