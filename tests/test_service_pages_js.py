"""What the overlay says, from the pages' shared JavaScript run under node (no browser needed)."""

from __future__ import annotations

from pages_js import dc  # tests/pages_js.py


def test_a_play_names_its_end_as_an_end_or_an_arm_not_as_a_seat():
    """helper-174: "Bob Lee (S) played 0-6 on S" on air: the S was the spinner's south arm, read as Bob's seat."""
    play = {"type": "play", "seat": "S", "player": "Bob Lee", "tile": [0, 6]}
    assert dc([("playText", [{}, {**play, "end": end}]) for end in ("S", "N", "E", "W", "N2", "lead")]) == [
        "Bob Lee (S) played 0-6 on the S arm", "Bob Lee (S) played 0-6 on the N arm",
        "Bob Lee (S) played 0-6 on the E end", "Bob Lee (S) played 0-6 on the W end",
        "Bob Lee (S) played 0-6 on the N2 arm", "Bob Lee (S) played 0-6 (lead)"]
    # the banner of a flag names the end alike (the engine's message says "on S")
    assert dc([("endsNamed", [m]) for m in (
        "Bob Lee (S) played 6-2 on W showing 3: the ends do not match",
        "S played on N before the spinner's sides were covered", "N played out of turn (S was to play)")]) == [
        "Bob Lee (S) played 6-2 on the W end showing 3: the ends do not match",
        "S played on the N arm before the spinner's sides were covered", "N played out of turn (S was to play)"]


def test_the_camera_tag_says_starting_and_recording_ended_not_signal_lost():
    """helper-174: "camera signal lost" went on air at every start (before the first frame) and at the end of a
    replayed file (before "recording ended"), nothing being wrong."""
    cam = {"kind": "vision", "state": "running"}
    assert dc([("sourceStatus", [w]) for w in (
        {**cam, "connected": None}, {**cam, "connected": True}, {**cam, "connected": False},
        {**cam, "connected": False, "ended": True}, {**cam, "state": "finished", "connected": False},
        {**cam, "state": "stopped"}, {**cam, "kind": "manual", "connected": False})]) == [
        "starting", "", "camera signal lost", "recording ended", "recording ended", "camera paused", ""]


def test_a_table_deleted_on_air_clears_the_overlay_to_table_closed():
    """h243: once a table was deleted, its open overlay kept the board and said "feed refused: no table 'x'" on
    air. After a board was shown a 404 is "table closed" (the page clears); an address never shown a table, or
    a key refused, keeps the server's reason (the umpire console always does)."""
    assert dc([("overlayConn", a) for a in (
        ["refused", "no table 'mesa-1'", 404, True], ["refused", "no table 'mesa-1'", 404, False],
        ["refused", "wrong view key", 403, True], ["reconnecting", None, None, True], ["live", None, None, True])]) == [
        {"text": "table closed", "closed": True}, {"text": "feed refused: no table 'mesa-1'", "closed": False},
        {"text": "feed refused: wrong view key", "closed": False}, {"text": "reconnecting", "closed": False},
        {"text": "", "closed": False}]
