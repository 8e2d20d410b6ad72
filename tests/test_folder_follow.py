"""A photo folder followed live (vision/folder_follow.py): the source, `dominocast live FOLDER`, the service's
`worker.follow`."""

from __future__ import annotations

import contextlib

import json
import os
import shutil
import signal
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from vision.folder_follow import QUIET_S, FollowedFolderSource
from vision.sources import ImageFolderSource, SourceError, open_source

from video_frames import video_frames  # tests/video_frames.py

DEMO = Path(__file__).resolve().parent.parent / "examples" / "footage"


def _png(path: Path, level: int, size=(48, 64)) -> bytes:
    """Write a plain PNG of grey ``level``; returns its bytes."""
    data = cv2.imencode(".png", np.full((*size, 3), level, np.uint8))[1].tobytes()
    path.write_bytes(data)
    return data


class _Script:
    """An injected clock and sleep: each sleep advances the clock by its seconds and runs the next step (writes
    into the folder); once the steps are done, the source is closed (the user's Ctrl-C)."""

    def __init__(self, steps):
        self.now, self.steps, self.src = 100.0, list(steps), None

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        if self.steps:
            self.steps.pop(0)()
        else:
            self.src.close()


def _follow(folder: Path, steps, **kwargs) -> tuple[FollowedFolderSource, list]:
    """Iterate a followed ``folder`` through ``steps``; returns the source and its frames as
    (index, t, file name, grey level)."""
    script = _Script(steps)
    src = FollowedFolderSource(folder, clock=script.clock, sleep=script.sleep, **kwargs)
    script.src = src
    return src, [(f.index, f.t, src.files[f.index].name, int(f.image[0, 0, 0])) for f in src]


def test_a_followed_folder_reads_its_photos_then_each_new_one_once_complete(tmp_path):
    _png(tmp_path / "move_10.png", 20)
    _png(tmp_path / "move_2.png", 10)
    whole = cv2.imencode(".png", np.full((48, 64, 3), 30, np.uint8))[1].tobytes()
    late = cv2.imencode(".png", np.full((48, 64, 3), 50, np.uint8))[1].tobytes()

    def half():  # a copy under way: half the file, then the rest a listing later
        (tmp_path / "move_11.png").write_bytes(whole[: len(whole) // 2])

    def rest():
        (tmp_path / "move_11.png").write_bytes(whole)

    def two_at_once():  # found together: natural name order among them
        _png(tmp_path / "move_13.png", 70)
        _png(tmp_path / "move_12.png", 60)
        _png(tmp_path / ".move_12.png", 99)  # hidden: not a photo
        (tmp_path / "notes.txt").write_text("not a photo")

    def again():  # a photo written again under its name is not a new move
        _png(tmp_path / "move_2.png", 90)

    def sorts_first():  # a late photo whose name sorts before those read: read after them
        (tmp_path / "move_1.png").write_bytes(late)

    src, frames = _follow(tmp_path, [half, lambda: None, rest, lambda: None, two_at_once, lambda: None, again,
                                     sorts_first, lambda: None])
    # the photos there first (natural order, a review's times); then each new one at the seconds since the
    # start when it was found whole (0.5 s a listing), at least 1 s (interval_s) after the one before
    assert frames == [(0, 0.0, "move_2.png", 10), (1, 1.0, "move_10.png", 20),
                      (2, 2.0, "move_11.png", 30),  # found whole at 2.0 s (the rest written at 1.5 s)
                      (3, 3.0, "move_12.png", 60), (4, 4.0, "move_13.png", 70),
                      (5, 5.0, "move_1.png", 50)]  # found at 4.5 s
    assert [p.name for p in src.files] == ["move_2.png", "move_10.png", "move_11.png", "move_12.png", "move_13.png",
                                           "move_1.png"]


def test_a_followed_photo_is_timed_by_when_it_was_found(tmp_path):
    steps = [lambda: None] * 9 + [lambda: _png(tmp_path / "a.png", 40)] + [lambda: None] * 5
    src, frames = _follow(tmp_path, steps)
    # written at 5.0 s, the same at the listing 0.5 s later: found whole at 5.5 s
    assert frames == [(0, 5.5, "a.png", 40)]
    assert len(src) == 1


def test_a_truncated_photo_is_waited_for_then_said_to_be_corrupt(tmp_path):
    """A copy that pauses longer than a listing is not read half-written; one that never ends is read once
    unchanged for settle_s, and skipped as corrupt."""
    data = cv2.imencode(".jpg", np.random.default_rng(1).integers(0, 255, (240, 320, 3), np.uint8))[1].tobytes()
    skipped = []
    steps = [lambda: (tmp_path / "cut.jpg").write_bytes(data[:2000])] + [lambda: None] * 3 + [
        lambda: (tmp_path / "cut.jpg").write_bytes(data[:4000])] + [lambda: None] * 6
    src, frames = _follow(tmp_path, steps, settle_s=2.0,
                          on_unreadable=lambda i, t, p, m: skipped.append((i, t, p.name, m)))
    # the first piece stays 1.5 s (three listings) without being read; the second 2 s, then it is read
    assert frames == [] and [s[:3] for s in skipped] == [(0, 4.5, "cut.jpg")]
    assert skipped[0][3].endswith("cannot be decoded (corrupt or not an image)")


def test_a_followed_folders_size_and_detail_are_those_of_the_photos_read_so_far(tmp_path):
    """The first photo is the folder's size (never skipped for being first); one of another size after two is
    skipped; the blur test waits for three photos."""
    skipped = []
    steps = [lambda: _png(tmp_path / "p1.png", 10), lambda: None, lambda: _png(tmp_path / "p2.png", 20),
             lambda: None, lambda: _png(tmp_path / "p3.png", 30, size=(96, 64)), lambda: None]
    src, frames = _follow(tmp_path, steps, on_unreadable=lambda i, t, p, m: skipped.append((i, p.name, m)))
    assert [f[2] for f in frames] == ["p1.png", "p2.png"]
    assert skipped == [(2, "p3.png", f"image {tmp_path / 'p3.png'} is 64x96 px but the folder's photos are 64x48 px "
                                     "(one camera, one size)")]
    assert src.frame_shape == (48, 64, 3) and src.blurred(0) is None


def test_a_followed_folder_removed_is_a_source_error(tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    _png(folder / "a.png", 10)
    src, it = None, None
    script = _Script([lambda: shutil.rmtree(folder)])
    src = FollowedFolderSource(folder, clock=script.clock, sleep=script.sleep)
    script.src = src
    it = iter(src)
    assert next(it).index == 0
    with pytest.raises(SourceError, match=f"^image folder {folder} was removed while it was followed$"):
        next(it)


def test_a_stop_that_reads_the_rest_reads_a_photo_written_whole_just_before_it(tmp_path):
    """helper-216: a photo written whole just before Ctrl-C had not been seen at two listings and was never read.
    Closed with read_rest, the photos listed and not read yet are read, then one last listing's new files that
    decode whole; one still half-written is left in ``unread``."""
    _png(tmp_path / "a.png", 10)
    _png(tmp_path / "b.png", 20)
    whole = cv2.imencode(".png", np.full((48, 64, 3), 40, np.uint8))[1].tobytes()

    def written_then_stop():  # c whole, d a third written, then the stop, before any listing saw them
        _png(tmp_path / "c.png", 30)
        (tmp_path / "d.png").write_bytes(whole[: len(whole) // 3])
        src.close(read_rest=True)

    script = _Script([written_then_stop])
    src = FollowedFolderSource(tmp_path, clock=script.clock, sleep=script.sleep)
    script.src = src
    frames = [(f.index, f.t, src.files[f.index].name, int(f.image[0, 0, 0])) for f in src]
    assert frames == [(0, 0.0, "a.png", 10), (1, 1.0, "b.png", 20), (2, 2.0, "c.png", 30)]
    assert [p.name for p in src.unread] == ["d.png"]


def test_a_stop_that_reads_the_rest_reads_the_photos_listed_and_a_plain_stop_does_not(tmp_path):
    for name, level in (("a.png", 10), ("b.png", 20), ("c.png", 30)):
        _png(tmp_path / name, level)
    for read_rest, names in ((True, ["a.png", "b.png", "c.png"]), (False, ["a.png"])):
        src = FollowedFolderSource(tmp_path, sleep=lambda s: None)
        got = []
        for f in src:
            got.append(src.files[f.index].name)
            src.close(read_rest=read_rest)  # stopped while the first photo is scored
        assert got == names and src.unread == []


def test_a_followed_folder_marks_a_quiet_spell_once_after_a_photo_when_asked(tmp_path):
    """helper-243: the newest photo of a followed folder was held for a next one that never came. With
    marks_quiet, a Quiet mark (the source's time then) is yielded once no new photo has come for quiet_s after one
    was read (here 2 s, listings 0.5 s apart on the fake clock), once per quiet spell; without it, never."""
    from vision.sources import Quiet

    _png(tmp_path / "a.png", 10)
    for marks in (True, False):
        steps = [lambda: None] * 6 + [lambda: _png(tmp_path / "b.png", 20)] + [lambda: None] * 9
        script = _Script(steps)
        src = FollowedFolderSource(tmp_path, clock=script.clock, sleep=script.sleep, quiet_s=2.0)
        src.marks_quiet = marks
        script.src = src
        got = [item if isinstance(item, Quiet) else (src.files[item.index].name, item.t) for item in src]
        # a.png read at 0 s; 2 s of listings later the mark; b.png written at 3.5 s, found whole at 4.0 s and read
        # then; the mark again 2 s after it (6.0 s); none more while nothing comes (the steps end at 8.0 s)
        want = [("a.png", 0.0), Quiet(2.0), ("b.png", 4.0), Quiet(6.0)]
        assert got == (want if marks else [w for w in want if not isinstance(w, Quiet)])
        (tmp_path / "b.png").unlink()


def test_a_followed_folder_ends_at_once_when_closed_from_another_thread(tmp_path):
    """The service stops a table from its event loop: the wait for the next listing ends at once."""
    _png(tmp_path / "a.png", 10)
    src = open_source(tmp_path, follow=True)
    assert isinstance(src, FollowedFolderSource) and src.live and isinstance(src, ImageFolderSource)
    src.poll_s = 60.0  # a listing a minute: only close() can end the wait in time
    got = []
    reader = threading.Thread(target=lambda: got.extend(f.index for f in src))
    reader.start()
    for _ in range(1000):  # the first photo read (10 s at most)
        if got or not reader.is_alive():
            break
        reader.join(0.01)
    src.close()
    reader.join(5.0)
    assert not reader.is_alive() and got == [0]
    video = tmp_path / "x.mp4"
    video.write_bytes(b"\0" * 16)
    with pytest.raises(SourceError, match="only a folder of photos can be followed"):
        open_source(video, follow=True)


# ---- dominocast live FOLDER ------------------------------------------------------------------------

def _demo_frames(indices) -> list[np.ndarray]:
    return video_frames(DEMO / "demo.mp4", indices)


class _Arriving(FollowedFolderSource):
    """The live command's followed folder with the photos of ``plan`` written into it one per listing (the
    first half-written for one listing, as a slow copy leaves it), then the user's Ctrl-C (a real SIGINT)."""

    plan: list[tuple[str, bytes]] = []

    def __init__(self, folder, *args, **kwargs):
        steps = []
        for k, (name, data) in enumerate(self.plan):
            if k == 0:
                steps.append(lambda n=name, d=data: (Path(folder) / n).write_bytes(d[: len(d) // 3]))
            steps.append(lambda n=name, d=data: (Path(folder) / n).write_bytes(d))
            steps.append(lambda: None)  # unchanged at the next listing: complete
        steps.append(lambda: os.kill(os.getpid(), signal.SIGINT))
        self.now = 0.0

        def sleep(seconds):
            self.now += seconds
            if steps:
                steps.pop(0)()

        super().__init__(folder, *args, clock=lambda: self.now, sleep=sleep, **kwargs)


def _records_plays(path: Path) -> list:
    """The record's hands, events without their times."""
    return [[{k: v for k, v in e.items() if k != "t"} for e in hand["events"]] for hand in
            json.loads(path.read_text())["hands"]]


def test_cli_live_follows_a_folder_and_its_ctrl_c_writes_the_record_a_review_of_the_photos_writes(
        tmp_path, monkeypatch):
    """The bundled demo, every 120th frame as a photo arriving in an empty folder (the first one copied slowly),
    scored live with the models, then Ctrl-C: the plays and score are a review's of the same photos."""
    from service import cli_review
    from service.cli import app

    frames = list(range(0, 751, 120))
    plan = [(f"frame_{i:05d}.jpg", cv2.imencode(".jpg", im)[1].tobytes())
            for i, im in zip(frames, _demo_frames(frames))]
    monkeypatch.setattr(_Arriving, "plan", plan)
    monkeypatch.setattr(cli_review, "FollowedFolderSource", _Arriving)
    folder, out = tmp_path / "photos", tmp_path / "live"
    folder.mkdir()
    res = CliRunner().invoke(app, ["live", str(folder), "--rules", "lisa-b-all-fives", "--out", str(out),
                                   "--no-video"])
    assert res.exit_code == 0, res.output
    assert [x for x in res.stderr.splitlines() if x.strip()] == [
        f"following {folder}: 0 photos there; each new photo is read once written whole, and scored when the next "
        f"one comes or none has for {QUIET_S:g} s (Ctrl-C to stop and write the report)",
        "note: no --calibration: tiles taken as 42 px long in every photo (measured on frame_00000.jpg)"]
    lines = res.stdout.splitlines()
    rows = [json.loads(x) for x in lines if x.startswith("{")]
    assert "stopped" in lines and "16 plays, 2 draws, 17 flags, 7 photos (7 read) in" in res.stdout
    plays = [(r["frame"], r["seat"], r["tile"]) for r in rows if r["type"] == "play"]
    assert plays[:3] == [(1, "N", [6, 6]), (1, "S", [6, 2]), (1, "N", [2, 2])] and len(plays) == 16
    assert [r["t"] for r in rows if r["type"] == "play"][0] == 2.5  # photo 1 found whole at 2.5 s (one per listing)
    assert [r["score"] for r in rows if "score" in r][-1] == {"N": 30, "S": 10}
    assert (out / "report.html").is_file()

    review = tmp_path / "review"
    res = CliRunner().invoke(app, ["review", str(folder), "--rules", "lisa-b-all-fives", "--out", str(review),
                                   "--no-video"])
    assert res.exit_code == 0, res.output
    assert _records_plays(out / "record.json") == _records_plays(review / "record.json")


class _ArrivingSettled(_Arriving):
    """:class:`_Arriving` whose files that never decode are read at their second listing (no settle wait)."""

    def __init__(self, folder, *args, **kwargs):
        super().__init__(folder, *args, settle_s=0.0, **kwargs)


def test_cli_live_says_a_photo_it_cannot_decode_in_an_error_line_and_exits_2(tmp_path, monkeypatch):
    """helper-214: a followed folder's undecodable photo was only a JSON row on stdout and the exit code 0;
    ``review`` of the folder says it on stderr as it happens and exits 2 at the end: so does ``live``."""
    from service import cli_review
    from service.cli import app

    jpg = cv2.imencode(".jpg", _demo_frames([0])[0])[1].tobytes()
    monkeypatch.setattr(_ArrivingSettled, "plan", [("a_broken.png", b"not a picture"), ("frame_00000.jpg", jpg)])
    monkeypatch.setattr(cli_review, "FollowedFolderSource", _ArrivingSettled)
    folder, out = tmp_path / "photos", tmp_path / "live"
    folder.mkdir()
    res = CliRunner().invoke(app, ["live", str(folder), "--rules", "lisa-b-all-fives", "--out", str(out),
                                   "--no-video"])
    assert res.exit_code == 2, res.output
    errors = [x for x in res.stderr.splitlines() if x.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith(
        f"error: image {folder / 'a_broken.png'} cannot be decoded (corrupt or not an image)")
    assert "1 image skipped" in res.stdout and (out / "record.json").is_file()


def test_a_followed_folder_removed_reads_the_photos_held_then_says_how_many_were_read(tmp_path):
    """helper-216: the photos held to compare with the next were never read when the folder went, and the notice
    said "nothing could be read". They are read, as at a stop, then the error carries the partial summary."""
    from service.review import SourceFailed, run_review

    folder = tmp_path / "photos"
    folder.mkdir()
    _png(folder / "a.png", 10)
    _png(folder / "b.png", 20)
    script = _Script([lambda: shutil.rmtree(folder)])
    src = FollowedFolderSource(folder, clock=script.clock, sleep=script.sleep)
    script.src = src
    out = tmp_path / "out"
    with pytest.raises(SourceFailed, match=f"^image folder {folder} was removed while it was followed$") as err:
        run_review(src, None, lambda image: [], out, None, annotate=False)
    s = err.value.summary
    assert (s.frames, s.reads, s.partial) == (2, 2, True)
    last = json.loads((out / "events.jsonl").read_text().splitlines()[-1])
    assert (last["kind"], last["message"]) == ("source_error", f"reading stopped after 2 photos (image folder {folder} "
                                                               "was removed while it was followed); the results are "
                                                               "partial")
    assert "(partial: stopped after 2 photos)" in (out / "report.html").read_text()


def test_a_live_source_stopped_before_its_first_frame_writes_no_record_and_no_error_row(tmp_path):
    """helper-220: an empty folder followed, then stopped, wrote a ``source_error`` row "nothing could be read (it
    gave no frame)" and a partial 0-0 record: nothing went wrong, nothing was watched. Recorded footage that gives
    no frame stays a failure (it ended, it was not stopped)."""
    from service.review import run_review

    folder = tmp_path / "photos"
    folder.mkdir()
    script = _Script([])  # stopped at the first wait for a listing
    src = FollowedFolderSource(folder, clock=script.clock, sleep=script.sleep)
    script.src = src
    out = tmp_path / "out"
    s = run_review(src, None, lambda image: [], out, None, annotate=False)
    assert (s.empty, s.partial, s.frames, s.skipped) == (True, False, 0, [])
    assert not out.exists()  # helper-249: nothing at all is written, not even an empty events.jsonl or snapshots/

    class NoFrames:  # recorded footage with no frame (not live)
        def __iter__(self):
            return iter(())

    s = run_review(NoFrames(), None, lambda image: [], tmp_path / "rec", None, annotate=False)
    assert (s.empty, s.partial) == (False, True)
    last = json.loads((tmp_path / "rec" / "events.jsonl").read_text().splitlines()[-1])
    assert (last["kind"], last["message"]) == ("source_error", "nothing could be read (it gave no frame); the "
                                                               "results are partial")


class _StoppedMidCopy(_Arriving):
    """:class:`_Arriving` stopped (a real SIGINT) right after the first third of its first photo is written."""

    def __init__(self, folder, *args, **kwargs):
        super().__init__(folder, *args, **kwargs)
        sleep = self._sleep

        def sleep_then_stop(seconds):
            sleep(seconds)
            os.kill(os.getpid(), signal.SIGINT)

        self._sleep = sleep_then_stop


def _listing(folder: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under ``folder``, by path relative to it."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("being_written", [False, True])
def test_cli_live_on_an_empty_folder_stopped_says_no_photo_came_and_exits_0(tmp_path, monkeypatch, being_written):
    """helper-220: Ctrl-C (a real SIGINT) on a followed folder where no photo came: one plain line on stdout, no
    error row, no score table, no record or report, exit 0 as for any Ctrl-C that ends a session. A photo still
    being written at the stop is named in a warning, and the line says no photo came whole. helper-249: it left
    an empty events.jsonl, snapshots/ and .review.lock in the --out it had made (and its folder above): now none."""
    from engine.ruleset import load_ruleset
    from service import cli_review
    from service.cli import app

    jpg = cv2.imencode(".jpg", np.full((48, 64, 3), 90, np.uint8))[1].tobytes()
    monkeypatch.setattr(cli_review, "_setup", lambda r, c, sets=1: (load_ruleset("all-fives"), None,
                                                                     lambda image: []))
    monkeypatch.setattr(_Arriving, "plan", [("a.jpg", jpg)] if being_written else [])
    monkeypatch.setattr(cli_review, "FollowedFolderSource", _StoppedMidCopy if being_written else _Arriving)
    folder, out = tmp_path / "photos", tmp_path / "sessions" / "live"
    folder.mkdir()
    res = CliRunner().invoke(app, ["live", str(folder), "--rules", "all-fives", "--out", str(out), "--no-video"])
    assert res.exit_code == 0, res.output
    came = f"no photo came whole to {folder}" if being_written else f"no photo came to {folder}"
    assert res.stdout.splitlines() == [f"stopped: {came}; nothing was recorded (no record.json or report.html "
                                       f"in {out})"]
    warned = [f"warning: {folder / 'a.jpg'} was not written whole when the session stopped: not read"]
    assert res.stderr.splitlines()[1:] == (warned if being_written else [])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["photos"]  # neither live/ nor sessions/ above it


def test_cli_live_stopped_before_any_photo_leaves_an_earlier_review_in_its_out_as_it_was(tmp_path, monkeypatch):
    """helper-249: an --out holding an earlier review's record and report (and one in previous/): a session stopped
    before any photo came moved them to previous/, deleting the one there, and left its own empty files. Now every
    file is as it was, and the lock it made is gone (one that was there stays)."""
    from engine.ruleset import load_ruleset
    from service import cli_review
    from service.cli import app

    monkeypatch.setattr(cli_review, "_setup", lambda r, c, sets=1: (load_ruleset("all-fives"), None,
                                                                     lambda image: []))
    monkeypatch.setattr(_Arriving, "plan", [])
    monkeypatch.setattr(cli_review, "FollowedFolderSource", _Arriving)
    folder, out = tmp_path / "photos", tmp_path / "live"
    folder.mkdir()
    (out / "previous").mkdir(parents=True)
    (out / "record.json").write_text('{"earlier": 2}')
    (out / "report.html").write_text("<p>earlier review 2</p>")
    (out / "previous" / "record.json").write_text('{"earlier": 1}')
    (out / "mine.txt").write_text("the user's")
    before = _listing(out)
    res = CliRunner().invoke(app, ["live", str(folder), "--rules", "all-fives", "--out", str(out), "--no-video"])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith(f"stopped: no photo came to {folder}; nothing was recorded")
    assert _listing(out) == before == {"mine.txt": b"the user's", "previous": None,
                                       "previous/record.json": b'{"earlier": 1}', "record.json": b'{"earlier": 2}',
                                       "report.html": b"<p>earlier review 2</p>"}
    (out / ".review.lock").write_bytes(b"")  # a lock file left by an earlier review: not this session's to remove
    res = CliRunner().invoke(app, ["live", str(folder), "--rules", "all-fives", "--out", str(out), "--no-video"])
    assert res.exit_code == 0, res.output
    assert _listing(out) == {**before, ".review.lock": b""}


class _Removed(FollowedFolderSource):
    """The live command's followed folder, removed at its first wait for a listing."""

    def __init__(self, folder, *args, **kwargs):
        super().__init__(folder, *args, sleep=lambda s: shutil.rmtree(folder), **kwargs)


def test_cli_live_on_a_folder_removed_prints_the_score_so_far_and_says_what_was_read(tmp_path, monkeypatch):
    from engine.ruleset import load_ruleset
    from service import cli_review
    from service.cli import app

    monkeypatch.setattr(cli_review, "_setup", lambda r, c, sets=1: (load_ruleset("all-fives"), None,
                                                                     lambda image: []))
    monkeypatch.setattr(cli_review, "FollowedFolderSource", _Removed)
    folder, out = tmp_path / "photos", tmp_path / "live"
    folder.mkdir()
    _png(folder / "a.png", 10)
    res = CliRunner().invoke(app, ["live", str(folder), "--rules", "all-fives", "--out", str(out), "--no-video"])
    assert res.exit_code == 2, res.output
    assert res.stderr.strip().splitlines()[-1] == (
        f"error: image folder {folder} was removed while it was followed; the session stopped after 1 photo read "
        f"(its results are in {out})")
    assert "Score (partial: not final)" in res.stdout and "0 plays, 0 flags, 1 photo (1 read) in" in res.stdout
    assert (out / "record.json").is_file()


def test_cli_live_refuses_to_write_into_the_folder_it_follows(tmp_path, monkeypatch):
    from service.cli import app

    res = CliRunner().invoke(app, ["live", str(tmp_path), "--rules", "all-fives", "--out", str(tmp_path)])
    assert (res.exit_code, res.stderr.strip()) == (
        2, f"error: --out {tmp_path} is the folder followed: choose another folder for the results")


# ---- the service: worker.follow --------------------------------------------------------------------

@contextlib.contextmanager
def _followed_table(tmp_path, monkeypatch, quiet_s: float):
    """A service (TestClient) with vision table ``cam`` started on a followed photo folder holding p1 and p2 (a
    grey level of 10 per photo number), no quiet spell before ``quiet_s`` seconds; yields the client, the folder,
    the grey levels the recognizer was given in order, and a function returning the table's status."""
    import service.sources as sources
    import vision.folder_follow as folder_follow
    from fastapi.testclient import TestClient

    from service.testing import AUTH, app_for
    from service.vision_source import VisionSource

    monkeypatch.setattr(folder_follow, "QUIET_S", quiet_s)
    photos = tmp_path / "photos"
    photos.mkdir()
    for k in (1, 2):
        _png(photos / f"p{k}.png", 10 * k)
    seen = []

    def factory(table):
        return VisionSource(table, recognizer_factory=lambda profile: (lambda image: seen.append(int(image[0, 0, 0]))
                                                                       or []))

    monkeypatch.setitem(sources._FACTORIES, "vision", factory)
    with TestClient(app_for(tmp_path)) as c:
        r = c.post("/api/tables", headers=AUTH, json={
            "id": "cam", "name": "Photo table", "rules": "all-fives", "video_source": str(photos),
            "worker": {"kind": "vision", "follow": True}})
        assert r.status_code == 201, r.text
        assert c.post("/api/tables/cam/start", headers=AUTH, json={}).status_code == 200
        yield c, photos, seen, lambda: c.get("/api/tables/cam/status").json()


def test_a_folder_table_with_worker_follow_reads_photos_as_they_come_and_never_says_ended(tmp_path, monkeypatch):
    """A vision table on a photo folder with ``worker.follow``: the photos there, then each new one; a photo is
    read once the next has come (one photo late: vision/photo_scene.py; no quiet spell here); the status stays
    running, not ``ended``, until the table is stopped, and the stop reads the photo held (helper-243)."""
    from service.testing import AUTH, wait_for

    # never quiet long enough: each photo waits for the next
    with _followed_table(tmp_path, monkeypatch, 600.0) as (c, photos, seen, status):
        wait_for(lambda: status()["connected"] is True)
        _png(photos / "p3.png", 30)  # p1 is judged by the two after it, p2 by p1 and p3: both read now
        st = wait_for(lambda: (s := status())["position"] == 2 and s)
        assert seen == [10, 20]
        _png(photos / "p4.png", 40)
        st = wait_for(lambda: (s := status())["position"] == 3 and s)
        assert seen == [10, 20, 30]
        assert (st["state"], st["ended"], st["position"], st["total"], st["error"]) == ("running", False, 3, None, None)
        assert c.post("/api/tables/cam/stop", headers=AUTH, json={}).status_code == 200
        st = status()
        assert st["ended"] is False and st["state"] == "stopped"
        assert c.get("/api/tables/cam", headers=AUTH).json()["worker"]["follow"] is True
        assert seen == [10, 20, 30, 40]  # p4 waited for a p5; the stop read it (as live's Ctrl-C does)


def test_a_followed_folder_table_reads_its_newest_photo_once_no_new_one_comes(tmp_path, monkeypatch):
    """helper-243: the newest photo of a followed folder waited for a next one, so a match's last photo (the end
    of its final hand) was never read. Once no new photo comes for QUIET_S it is judged as a folder's last and
    read; a photo coming later is read the same way."""
    from service.testing import AUTH, wait_for

    with _followed_table(tmp_path, monkeypatch, 0.3) as (c, photos, seen, status):
        wait_for(lambda: status()["position"] == 2)  # no p3 comes: p2 is read all the same
        assert seen == [10, 20]
        _png(photos / "p3.png", 30)
        st = wait_for(lambda: (s := status())["position"] == 3 and s)
        assert seen == [10, 20, 30] and (st["state"], st["ended"]) == ("running", False)
        assert c.post("/api/tables/cam/stop", headers=AUTH, json={}).status_code == 200
    assert seen == [10, 20, 30]  # nothing held at the stop: no photo read twice


def test_a_video_file_table_with_worker_follow_is_a_status_error(tmp_path):
    from fastapi.testclient import TestClient

    from service.testing import AUTH, app_for, wait_for

    video = tmp_path / "x.mp4"
    video.write_bytes(b"\0" * 16)
    import service.sources as sources  # noqa: F401 - the default vision factory needs the models
    from service.vision_source import VisionSource

    sources._FACTORIES["vision"], before = (lambda table: VisionSource(table, recognizer_factory=lambda p: (
        lambda image: []))), sources._FACTORIES.get("vision")
    try:
        with TestClient(app_for(tmp_path)) as c:
            c.post("/api/tables", headers=AUTH, json={"id": "cam", "name": "T", "video_source": str(video),
                                                       "worker": {"kind": "vision"}})
            c.post("/api/tables/cam/start", headers=AUTH, json={"follow": True})
            st = wait_for(lambda: (s := c.get("/api/tables/cam/status").json())["state"] == "error" and s)
    finally:
        sources._FACTORIES["vision"] = before
    assert st["error"] == f"{video} is not a folder: only a folder of photos can be followed"


def test_cli_live_refuses_a_calibration_of_another_size_than_the_folders_photos(tmp_path, monkeypatch):
    """Photos there: checked before the output folder is made, as a camera's first frame is; in an empty
    folder the first photo to come is checked, and the session stops with one line."""
    from calibration.profile import TableProfile
    from engine.ruleset import load_ruleset
    from service import cli_review
    from service.cli import app

    profile = TableProfile.load(DEMO / "profile.json")  # 960 x 540
    monkeypatch.setattr(cli_review, "_setup", lambda r, c, sets=1: (load_ruleset("all-fives"), profile,
                                                                     lambda image: []))
    folder, out = tmp_path / "photos", tmp_path / "live"
    folder.mkdir()
    _png(folder / "a.png", 10)
    res = CliRunner().invoke(app, ["live", str(folder), "--rules", "all-fives", "--calibration", "p.json",
                                   "--out", str(out)])
    assert (res.exit_code, res.stderr.strip()) == (
        2, f"error: --calibration p.json: frame is 64x48 px but profile {profile.name!r} was calibrated for "
           "960x540 px")
    assert not out.exists()
    (folder / "a.png").unlink()
    monkeypatch.setattr(_Arriving, "plan", [("a.png", cv2.imencode(".png", np.zeros((48, 64, 3), np.uint8))[1]
                                             .tobytes())])
    monkeypatch.setattr(cli_review, "FollowedFolderSource", _Arriving)
    res = CliRunner().invoke(app, ["live", str(folder), "--rules", "all-fives", "--calibration", "p.json",
                                   "--out", str(out)])
    assert res.exit_code == 2 and res.stderr.strip().splitlines()[-1] == (
        f"error: --calibration p.json: frame is 64x48 px but profile {profile.name!r} was calibrated for 960x540 px "
        f"(the events so far are in {out / 'events.jsonl'})")


def _follow_table(footage, tmp_path, monkeypatch, stop_after: int | None) -> tuple[list, list, list, dict, int]:
    """A followed photo folder table (the oracle recognizer) fed a photo after each of the footage's plays; with
    ``stop_after``, the first ``stop_after`` photos are taken, the table is stopped once it has read all but the
    last (held for the next; no quiet spell here), which the stop reads, and started again with the rest taken.
    Returns the photos read (``before_frame``) by the first run and the last one, the plays of hand 1, (hands, desync
    alerts, the last status) and the last
    frame recorded by the first run."""
    import service.sources as sources
    import vision.folder_follow as folder_follow
    from fastapi.testclient import TestClient

    from footage_oracle import Oracle  # tests/footage_oracle.py
    from service.testing import AUTH, app_for, wait_for
    from service.vision_source import VisionSource

    gt = footage["gt"]
    frames = [round((p["t"] + 0.9) * gt["fps"]) for p in gt["plays"]]  # a photo after each play
    images = dict(zip(frames, _frames_of(footage["paths"]["video"], frames)))
    photos = tmp_path / "photos"
    photos.mkdir(parents=True)
    oracle, read = Oracle(gt, footage["profile"]), []

    def before(index):
        read.append(index)
        oracle.progress(frames[index])

    def factory(table):
        return VisionSource(table, recognizer_factory=lambda profile: oracle, before_frame=before)

    def take(k):  # the photo after play k
        cv2.imwrite(str(photos / f"move_{k + 1:02d}.png"), images[frames[k]])

    monkeypatch.setitem(sources._FACTORIES, "vision", factory)
    monkeypatch.setattr(folder_follow, "QUIET_S", 600.0)  # the last photo waits for the next, or the stop
    runs = [stop_after, len(frames)] if stop_after else [len(frames)]
    taken, first_run, last = 0, None, None
    with TestClient(app_for(tmp_path / "data")) as c:
        status = lambda: c.get("/api/tables/cam/status").json()  # noqa: E731
        r = c.post("/api/tables", headers=AUTH, json={
            "id": "cam", "name": "Photo table", "rules": gt["rules"], "video_source": str(photos),
            "calibration": str(footage["paths"]["profile"]), "worker": {"kind": "vision"}})
        assert r.status_code == 201, r.text
        for n in runs:
            for k in range(taken, n):
                take(k)
            taken = n
            read.clear()
            c.post("/api/tables/cam/start", headers=AUTH, json={"follow": True} if first_run is None else {})
            wait_for(lambda: status()["position"] == n - 1, timeout=30)  # the last photo waits for the next
            st = status()
            c.post("/api/tables/cam/stop", headers=AUTH, json={})
            mid = c.get("/api/tables/cam/snapshot").json()["data"]["state"]["match"]["id"]
            events = c.get(f"/api/matches/{mid}/hands/1").json()["events"]
            if first_run is None:
                first_run = list(read)
                last = max(e["frame"] for e in events if e.get("frame") is not None)
        hands = c.get(f"/api/matches/{mid}").json()["hands"]
        desync = [a for a in c.get("/api/tables/cam/alerts?status=open").json() if a["category"] == "desync"]
    plays = [(p["seat"], p["tile"], p.get("end", "lead")) for p in events if p["type"] == "play"]
    return first_run, list(read), plays, {"hands": len(hands), "desync": desync, "status": st}, last


def test_a_followed_folder_table_restarted_goes_on_after_the_last_photo_it_recorded(footage, tmp_path, monkeypatch):
    """A followed folder is read as a camera (never ended) but restarted as a replayed folder: the photos it
    recorded are listed again and skipped, not read as new plays; the photos taken while it was stopped are
    read then. The plays are those of one run on the same photos: every play once, one hand, no desync. A stop
    reads the photo held for the next one first (helper-243)."""
    n = len(footage["gt"]["plays"])
    half = n // 2
    first_run, read, plays, info, last = _follow_table(footage, tmp_path / "two", monkeypatch, half)
    _, one_read, one_plays, one_info, _ = _follow_table(footage, tmp_path / "one", monkeypatch, None)
    assert first_run == list(range(half)) and one_read == list(range(n))  # the held photo read at the stop
    # the photos before the last one recorded were skipped; that one is read again (a photo folder has no
    # motion gate to prime with it: the table as recorded, nothing new in it)
    assert last == half - 1 and read == list(range(last, n))
    assert plays == one_plays and len(plays) == n  # the last photo's too, read at the stop
    assert (info["hands"], info["desync"], info["status"]["ended"], info["status"]["state"]) == (1, [], False,
                                                                                               "running")
    assert (one_info["hands"], one_info["desync"]) == (1, [])


def _frames_of(video, indices) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(video))
    out, i, want = [], 0, set(indices)
    while len(out) < len(want):
        ok, image = cap.read()
        assert ok
        if i in want:
            out.append(image)
        i += 1
    cap.release()
    return out
