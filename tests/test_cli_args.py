"""One-line errors (exit code 2) for output folders and service options, before any work starts."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest

from typer.testing import CliRunner

from service.cli import app

#: Most rendering processes on this machine (service.cli_common.check_workers: 2 per core).
WORKERS = 2 * (os.cpu_count() or 1)


def _err(*args) -> tuple[int, str]:
    res = CliRunner().invoke(app, [str(a) for a in args])
    return res.exit_code, res.stderr.strip()


def test_datasets_out_that_is_a_file_is_one_line(tmp_path):
    f = tmp_path / "text.jpg"
    f.write_text("x")
    assert _err("datasets", "build", "--out", f, "--scenes", "1") == (2, f"error: --out {f} is a file, not a folder")
    assert _err("datasets", "footage", "--rules", "block", "--out", f) == (
        2, f"error: --out {f} is a file, not a folder")
    under = f / "sub"
    code, msg = _err("datasets", "build", "--out", under, "--scenes", "1")
    assert code == 2 and msg.startswith(f"error: --out {under}: cannot create the folder")


def test_datasets_footage_refuses_bad_numbers_before_creating_the_folder(tmp_path):
    out = tmp_path / "never"
    for fps, word in (("0", ""), ("-2", ""), ("nan", "finite "), ("inf", "finite ")):
        assert _err("datasets", "footage", "--rules", "block", "--out", out, "--fps", fps) == (
            2, f"error: --fps must be a {word}number of frames a second > 0, got {float(fps)}")
    assert _err("datasets", "footage", "--rules", "block", "--out", out, "--hands", "-1") == (
        2, "error: --hands and --mismatch must be at least 0")
    for name in ("../evil", "a/b", "..", ""):  # the video stays inside --out
        assert _err("datasets", "footage", "--rules", "block", "--out", out, "--name", name) == (
            2, f"error: --name must be a plain file stem (no folders), got {name!r}")
    assert not out.exists()


def test_datasets_build_refuses_a_folder_holding_an_earlier_dataset(tmp_path):
    """Building into an earlier build would leave its windows and halves mixed into the new one."""
    out = tmp_path / "ds"
    res = CliRunner().invoke(app, ["datasets", "build", "--out", str(out), "--scenes", "1", "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "build 10 scenes or more to have both" in " ".join(res.stdout.split())  # 1 scene: train only
    images = sorted((out / "detect" / "images").rglob("*.jpg"))
    assert images and (out / "recipe.json").exists()
    mine = out / "notes.txt"
    mine.write_text("kept")
    assert _err("datasets", "build", "--out", out, "--scenes", "2", "--seed", "5") == (
        2, f"error: --out {out} already holds a dataset (recipe.json, detect, pips); choose a new folder or delete it")
    assert sorted((out / "detect" / "images").rglob("*.jpg")) == images and mine.read_text() == "kept"
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "readme.txt").write_text("x")  # other files are no dataset: the build goes ahead
    res = CliRunner().invoke(app, ["datasets", "build", "--out", str(plain), "--scenes", "1", "--workers", "1"])
    assert res.exit_code == 0 and (plain / "recipe.json").exists()


def test_datasets_build_refuses_a_folder_holding_a_footage(tmp_path):
    """helper-195: a build went into a `datasets footage` folder, mixing recipe.json, detect/ and pips/ with its
    video, ground truth and profile (as footage refuses a folder of foreign files, naming them)."""
    out = tmp_path / "ft"
    res = CliRunner().invoke(app, ["datasets", "footage", "--rules", "block", "--out", str(out), "--fps", "4",
                                   "--size", "320x180", "--name", "game"])
    assert res.exit_code == 0, res.output
    before = sorted(p.name for p in out.iterdir())
    assert _err("datasets", "build", "--out", out, "--scenes", "1") == (
        2, f"error: --out {out} holds a footage (game.mp4, ground_truth.json, profile.json), not a dataset: choose a "
           "new folder or move them")
    assert sorted(p.name for p in out.iterdir()) == before == ["game.mp4", "ground_truth.json", "profile.json"]


def test_serve_refuses_bad_ports_and_a_busy_one_before_touching_the_data_dir(tmp_path):
    data = tmp_path / "svc"
    assert _err("serve", "--port", "99999", "--data-dir", data) == (2, "error: --port must be 1-65535, got 99999")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        code, msg = _err("serve", "--port", port, "--data-dir", data)
    assert code == 2 and msg.startswith(f"error: cannot listen on 127.0.0.1:{port}: ")
    assert not data.exists()
    f = tmp_path / "file"
    f.write_text("x")
    with socket.socket() as s:  # a free port: the data dir is checked next
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    assert _err("serve", "--port", free, "--data-dir", f) == (2, f"error: --data-dir {f} is a file, not a folder")
    # helper-150: an empty --data-dir served from the current folder (token and database there)
    for empty in ("", "  "):
        assert _err("serve", "--data-dir", empty) == (2, "error: --data-dir is empty: give a folder (. for the current one)")


def test_serve_refuses_a_data_dir_another_service_holds(tmp_path, monkeypatch):
    """Two services on one data dir would both restart the live tables and write the same event
    slots; the second is refused in one line that names the first, and nothing is written."""
    import json

    from filelock import FileLock

    import service.app

    data = tmp_path / "svc"
    data.mkdir()
    holder = os.getpid()  # this test holds the lock below: its note names a running process
    (data / "serve.json").write_text(json.dumps({"pid": holder, "host": "127.0.0.1", "port": 8753}))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    started = []
    monkeypatch.setattr(service.app, "create_app", lambda settings: started.append(settings))
    with FileLock(data / "serve.lock"):  # the first service
        code, msg = _err("serve", "--port", free, "--data-dir", data)
    assert (code, msg) == (2, f"error: --data-dir {data} is in use by another dominocast serve "
                              f"(pid {holder}, http://127.0.0.1:8753/): stop it first, or pick another --data-dir")
    assert started == [] and not (data / "token").exists()
    assert json.loads((data / "serve.json").read_text())["pid"] == holder  # the holder's note is kept
    # helper-108: on the port the first service listens on too, the data dir is named, not the port
    with socket.socket() as busy, FileLock(data / "serve.lock"):
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        code, msg = _err("serve", "--port", busy.getsockname()[1], "--data-dir", data)
    assert (code, msg) == (2, f"error: --data-dir {data} is in use by another dominocast serve "
                              f"(pid {holder}, http://127.0.0.1:8753/): stop it first, or pick another --data-dir")
    assert json.loads((data / "serve.json").read_text())["pid"] == holder


def _dead_pid() -> int:
    """The pid of a process that has ended (reaped: no process has it until the system reuses it)."""
    import subprocess

    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _serve_while_held(data) -> tuple[int, str]:
    """``serve`` on a free port with ``data``'s lock held, as by another service: (exit code, message)."""
    from filelock import FileLock

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    with FileLock(data / "serve.lock"):
        return _err("serve", "--port", free, "--data-dir", data)


def _held_without_holder(data) -> tuple[int, str]:
    """The refusal that names no holder (its note is missing, unreadable or names a dead process)."""
    return (2, f"error: --data-dir {data} is in use by another dominocast serve: stop it first, "
               "or pick another --data-dir")


def test_a_holders_note_naming_a_dead_process_is_not_shown(tmp_path):
    """helper-165: serve.json stayed after a stop; while the lock is held by a service that has not
    written its own note yet, the refusal named the old, dead pid as the holder."""
    import json

    data = tmp_path / "svc"
    data.mkdir()
    (data / "serve.json").write_text(json.dumps({"pid": _dead_pid(), "host": "127.0.0.1", "port": 8753}))
    assert _serve_while_held(data) == _held_without_holder(data)


def test_a_clean_stop_removes_its_holders_note_and_a_stale_one_is_replaced(tmp_path, monkeypatch):
    """helper-165: after a clean stop serve.json still named the stopped service's pid. It goes at the
    stop, only while it is this process's; a stale note (a dead pid: kill -9) is replaced at the start."""
    import json

    import service.app
    import service.server

    data = tmp_path / "svc"
    data.mkdir()
    (data / "serve.json").write_text(json.dumps({"pid": _dead_pid(), "host": "127.0.0.1", "port": 1}))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    seen = []

    class App:
        class state:  # noqa: N801 - what serve() reads of a real app
            token_generated = False

    def run(app, host, port, **config):  # the service runs: its note names it
        seen.append(json.loads((data / "serve.json").read_text()))

    monkeypatch.setattr(service.app, "create_app", lambda settings: App)
    monkeypatch.setattr(service.server, "serve", run)
    start = ["serve", "--port", str(free), "--data-dir", str(data), "--token", "x" * 12]
    res = CliRunner().invoke(app, start)
    assert res.exit_code == 0, res.output
    assert seen == [{"pid": os.getpid(), "host": "127.0.0.1", "port": free}]
    assert not (data / "serve.json").exists()
    # a note another service wrote meanwhile is not ours to remove
    def taken(app, host, port, **config):
        (data / "serve.json").write_text(json.dumps({"pid": os.getpid() + 1, "host": "h", "port": 2}))

    monkeypatch.setattr(service.server, "serve", taken)
    assert CliRunner().invoke(app, start).exit_code == 0
    assert json.loads((data / "serve.json").read_text())["pid"] == os.getpid() + 1


def test_serve_refuses_a_short_token(tmp_path, monkeypatch):
    """helper-108: `serve --token a` was taken (a view key needs 4 characters)."""
    import service.app

    monkeypatch.setattr(service.app, "create_app", lambda settings: (_ for _ in ()).throw(AssertionError("started")))
    for how in (["--token", "a"], ["--token", " 1234567 "]):
        code, msg = _err("serve", "--port", 8000, "--data-dir", tmp_path / "d", *how)
        assert (code, msg) == (2, "error: --token (or $DOMINOCAST_TOKEN) must be at least 8 characters (a short one "
                                  "anyone at the venue could guess lets them correct the record); leave it out to have "
                                  "one generated")
    monkeypatch.setenv("DOMINOCAST_TOKEN", "abc")
    assert _err("serve", "--port", 8000, "--data-dir", tmp_path / "d")[0] == 2
    assert not (tmp_path / "d").exists()
    # helper-109: a short token written into the data dir's token file was taken
    monkeypatch.delenv("DOMINOCAST_TOKEN")
    kept = tmp_path / "kept"
    kept.mkdir()
    for text in ("abc\n", ""):
        (kept / "token").write_text(text)
        code, msg = _err("serve", "--port", 8000, "--data-dir", kept)
        assert (code, msg) == (2, f"error: the token kept in {kept / 'token'} is shorter than 8 characters (anyone at "
                                  "the venue could guess it): delete the file to have one generated, or write a longer "
                                  "one there")
    assert sorted(p.name for p in kept.iterdir()) == ["token"]
    # helper-158: this check read the token file whole, unbounded (the service reads at most 4 KiB)
    (kept / "token").write_bytes(b"x" * 5000)
    code, msg = _err("serve", "--port", 8000, "--data-dir", kept)
    assert (code, msg) == (2, f"error: {kept / 'token'} is 5000 bytes: a token file is at most 4096")


def test_a_pipe_for_the_holders_note_is_not_waited_on(tmp_path):
    """helper-158: with the data dir held, the second service read serve.json, a FIFO there hung it."""
    import os

    data = tmp_path / "svc"
    data.mkdir()
    os.mkfifo(data / "serve.json")
    assert _serve_while_held(data) == _held_without_holder(data)


def test_serve_interrupted_while_starting_still_shows_a_token_it_just_made(tmp_path, monkeypatch):
    import service.app

    def slow_start(settings):  # the token is written, then Ctrl-C lands before it is printed
        from service.auth import load_token

        load_token(settings)
        raise KeyboardInterrupt

    monkeypatch.setattr(service.app, "create_app", slow_start)
    monkeypatch.delenv("DOMINOCAST_TOKEN", raising=False)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    data = tmp_path / "svc"
    res = CliRunner().invoke(app, ["serve", "--port", str(free), "--data-dir", str(data)])
    assert res.exit_code == 130
    token = (data / "token").read_text().strip()
    assert f"(printed once, kept in {data / 'token'}): {token}" in " ".join(res.stdout.split())


def test_serve_on_a_read_only_database_is_one_line_before_it_serves(tmp_path, monkeypatch):
    """helper-156: a read-only database file (chattr +i) was only found while the live tables resumed,
    after "dominocast service on ..." was printed: a 120-line traceback, exit 3. Read-only here by the
    SQLite URI's mode=ro (the suite runs as root, whom file modes do not stop)."""
    from service.app import create_app
    from service.settings import Settings

    monkeypatch.delenv("DOMINOCAST_TOKEN", raising=False)
    db = tmp_path / "venue.db"
    create_app(Settings(data_dir=tmp_path / "first", db_url=f"sqlite:///{db}"))  # migrated, at head
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    code, msg = _err("serve", "--port", free, "--data-dir", tmp_path / "svc", "--db", f"sqlite:///file:{db}?mode=ro&uri=true")
    assert (code, msg) == (2, "error: cannot start the service: attempt to write a readonly database")


def test_serve_with_a_database_it_cannot_open_is_one_line_and_leaves_no_token(tmp_path, monkeypatch):
    """SQLAlchemy's second "(Background on this error at: ...)" line is dropped; the token made for the
    service that never started is removed, so the next start prints its own (it is printed once)."""
    monkeypatch.delenv("DOMINOCAST_TOKEN", raising=False)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    data = tmp_path / "svc"
    code, msg = _err("serve", "--port", free, "--data-dir", data, "--db", f"sqlite:///{tmp_path}/no/such/dir/x.db")
    assert (code, msg) == (2, "error: cannot start the service: unable to open database file")
    assert not data.exists()  # helper-74: the folder made for it stayed, holding serve.json and serve.lock
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "notes.txt").write_text("mine")
    code, msg = _err("serve", "--port", free, "--data-dir", kept, "--db", "bogus://x")
    assert code == 2 and msg.startswith("error: cannot start the service: ")
    assert sorted(p.name for p in kept.iterdir()) == ["notes.txt"]  # an existing folder keeps its files only


def test_detect_names_the_one_bad_option(tmp_path):
    img = tmp_path / "a.png"
    import cv2
    import numpy as np

    cv2.imwrite(str(img), np.zeros((40, 40, 3), np.uint8))
    for args, msg in ((["--sets", "0"], "--sets must be 1-8 (complete tile sets on the table), got 0"),
                      (["--sets", "9"], "--sets must be 1-8 (complete tile sets on the table), got 9"),
                      (["--threads", "0"], "--threads must be 1-64, got 0"),
                      (["--tile-px", "0"], "--tile-px must be a number of pixels > 0, got 0.0"),
                      (["--tile-px", "nan"], "--tile-px must be a finite number of pixels > 0, got nan"),
                      (["--tile-px", "inf"], "--tile-px must be a finite number of pixels > 0, got inf"),
                      (["--tile-px", "-inf"], "--tile-px must be a finite number of pixels > 0, got -inf"),
                      (["--tile-px", "0.5"], "--tile-px must be at least 8 (a tile's long side in pixels; pips are "
                                             "unreadable below), got 0.5")):
        assert _err("detect", img, *args) == (2, f"error: {msg}"), args


def test_detect_with_nothing_found_says_how_to_give_the_tile_size(tmp_path):
    import cv2
    import numpy as np

    img = tmp_path / "blank.png"
    cv2.imwrite(str(img), np.full((120, 160, 3), 90, np.uint8))
    res = CliRunner().invoke(app, ["detect", str(img)])
    assert res.exit_code == 0, res.output
    assert "note: no tile found in 1 image with the tile size searched" in " ".join(res.stdout.split())
    res = CliRunner().invoke(app, ["detect", str(img), "--tile-px", "40"])  # the size given may be wrong (helper-86)
    assert res.exit_code == 0 and "no tile found in 1 image at --tile-px 40; is that a tile's length in pixels" in \
        " ".join(res.stdout.split())


def test_review_permission_error_is_one_line(tmp_path, monkeypatch):
    from service import cli_review

    def denied(source, **kw):
        raise PermissionError(13, "Permission denied", str(source))

    monkeypatch.setattr(cli_review, "open_source", denied)
    monkeypatch.setattr(cli_review, "_setup", lambda *a: (None, None, lambda image: []))
    photos = tmp_path / "photos"
    photos.mkdir()
    res = CliRunner().invoke(app, ["review", str(photos), "--rules", "none", "--out", str(tmp_path / "out")])
    assert (res.exit_code, res.stderr.strip()) == (2, f"error: {photos}: permission denied"), res.output


def test_review_into_a_folder_it_cannot_write_is_one_line_before_the_work(tmp_path, monkeypatch):
    """helper-144: --out on a read-only mount was a traceback from the folder's lock (EROFS is no
    PermissionError), after the models were loaded. /proc/self is a folder no one, root included, writes in."""
    from service import cli_review

    monkeypatch.setattr(cli_review, "_setup", lambda *a: pytest.fail("the work began"))
    photos = tmp_path / "photos"
    photos.mkdir()
    code, msg = _err("review", photos, "--rules", "none", "--out", "/proc/self")
    assert code == 2 and msg.startswith("error: --out /proc/self: cannot write in /proc/self (") and "\n" not in msg


@pytest.mark.parametrize("command", [["datasets", "footage", "--rules", "block"], ["datasets", "build", "--scenes", "1"]])
def test_datasets_into_a_folder_it_cannot_write_is_one_line(command):
    """helper-144: `datasets footage --out` on a read-only mount was a traceback (its .footage.partial)."""
    code, msg = _err(*command, "--out", "/proc/self")
    assert code == 2 and msg.startswith("error: --out /proc/self: cannot write in /proc/self (") and "\n" not in msg


def test_a_full_disk_during_a_review_is_one_line(tmp_path, monkeypatch):
    """helper-144: the disk filling up during a review was a traceback and exit code 1."""
    import errno

    from service import cli_review

    def full(*a, **kw):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "out" / "events.jsonl"))

    import cv2
    import numpy as np

    monkeypatch.setattr(cli_review, "run_review", full)
    monkeypatch.setattr(cli_review, "_setup", lambda *a: (None, None, lambda image: []))
    photos = tmp_path / "photos"
    photos.mkdir()
    cv2.imwrite(str(photos / "001.png"), np.full((60, 80, 3), 90, np.uint8))
    code, msg = _err("review", photos, "--rules", "none", "--out", tmp_path / "out")
    out = tmp_path / "out"
    assert (code, msg) == (2, f"error: {out / 'events.jsonl'}: No space left on device; the review stopped (its events "
                              f"so far are in {out / 'events.jsonl'})")


def _without_torch(monkeypatch) -> None:
    """Make torch and ultralytics look not installed to ``dominocast train`` (nothing can train)."""
    import importlib.util
    from types import SimpleNamespace

    from service import cli_train

    def find_spec(name, *a):  # torch and ultralytics not installed
        return None if name in ("torch", "ultralytics") else importlib.util.find_spec(name, *a)

    monkeypatch.setattr(cli_train, "importlib", SimpleNamespace(util=SimpleNamespace(find_spec=find_spec)))


def test_train_argument_errors_come_before_the_missing_torch_check(monkeypatch):
    """Without torch a typo is still named (as `train verifier` did): the arguments are checked first."""
    _without_torch(monkeypatch)
    for cmd, args, msg in (("pips", ["--epochs", "0"], "--epochs must be >= 1"),
                           ("pips", ["--epochs", "-3"], "--epochs must be >= 1"),
                           ("detector", ["--epochs", "0"], "--epochs must be >= 1"),
                           ("detector", ["--imgsz", "300"], "--imgsz must be a multiple of 32, at least 64"),
                           ("detector", ["--workers", "0"], f"--workers must be 1-{WORKERS} (2 per CPU core of this "
                                                            "machine), got 0"),
                           ("detector", ["--lr0", "0"], "--lr0 must be a number > 0, got 0.0"),
                           ("verifier", ["--epochs", "0"], "--epochs must be >= 1"),
                           ("pips", [], "torch is not installed: run `make train-deps` first"),
                           ("detector", [], "torch is not installed: run `make train-deps` first"),
                           ("verifier", [], "torch is not installed: run `make train-deps` first")):
        assert _err("train", cmd, *args) == (2, f"error: {msg}"), (cmd, args)


FREEZE = ("--freeze must be 0-23 (YOLO11n-OBB layers 0-10 are the backbone; the head, layer 23, always trains), "
          "got {}")


def test_train_refuses_every_bad_number_in_one_line_and_takes_the_good_ones(monkeypatch):
    """nan and inf got past ``--hours`` and ``--lr0`` (``not nan > 0`` is false only for nan's
    comparison, and inf > 0), and several integers were not checked at all (``--imgsz 0`` and
    ``-32`` are multiples of 32; ``--batch``, ``--scenes``, ``--seed`` of any value; the pip reader's
    ``--imgsz``): each reached the trainer, to fail minutes later in ultralytics or numpy."""
    _without_torch(monkeypatch)
    finite = "must be a finite number"
    imgsz = "--imgsz must be a multiple of 32, at least 64"
    for cmd, args, msg in (("detector", ["--hours", "nan"], f"--hours {finite} of hours > 0, got nan"),
                           ("detector", ["--hours", "inf"], f"--hours {finite} of hours > 0, got inf"),
                           ("detector", ["--hours", "0"], "--hours must be a number of hours > 0, got 0.0"),
                           ("detector", ["--hours", "-1"], "--hours must be a number of hours > 0, got -1.0"),
                           ("detector", ["--lr0", "inf"], f"--lr0 {finite} > 0, got inf"),
                           ("detector", ["--lr0", "nan"], f"--lr0 {finite} > 0, got nan"),
                           ("detector", ["--lr0", "-inf"], f"--lr0 {finite} > 0, got -inf"),
                           ("detector", ["--imgsz", "0"], imgsz),
                           ("detector", ["--imgsz", "-32"], imgsz),
                           ("detector", ["--imgsz", "32"], imgsz),
                           ("detector", ["--scenes", "0"], "--scenes must be 1-1000000, got 0"),
                           ("detector", ["--scenes", "1000001"], "--scenes must be 1-1000000, got 1000001"),
                           ("detector", ["--batch", "0"], "--batch must be >= 1"),
                           ("detector", ["--batch", "-1"], "--batch must be >= 1"),
                           ("detector", ["--windows", "0"], "--windows must be >= 1"),
                           ("detector", ["--workers", "-2"], f"--workers must be 1-{WORKERS} (2 per CPU core of this "
                                                             "machine), got -2"),
                           ("detector", ["--workers", str(WORKERS + 1)],
                            f"--workers must be 1-{WORKERS} (2 per CPU core of this machine), got {WORKERS + 1}"),
                           ("detector", ["--freeze", "-1", "--resume"], FREEZE.format(-1)),
                           ("detector", ["--freeze", "24", "--resume"], FREEZE.format(24)),
                           ("detector", ["--freeze", "10"], "--freeze fine-tunes the shipped detector: add --resume"),
                           ("detector", ["--seed", "-1"], "--seed must be 0-4294967295, got -1"),
                           ("detector", ["--seed", "4294967296"], "--seed must be 0-4294967295, got 4294967296"),
                           ("pips", ["--imgsz", "0"], imgsz),
                           ("pips", ["--imgsz", "100"], imgsz),
                           ("pips", ["--scenes", "0"], "--scenes must be 1-1000000, got 0"),
                           ("pips", ["--seed", "-5"], "--seed must be 0-18446744073709551615, got -5"),
                           ("verifier", ["--scenes", "-10"],
                            "--scenes must be 10-1000000 (the val split is every tenth scene), got -10"),
                           ("verifier", ["--seed", "-1"], "--seed must be 0-18446744073709551615, got -1"),
                           ("verifier", ["--seed", str(2**64)],
                            f"--seed must be 0-18446744073709551615, got {2**64}")):
        res = CliRunner().invoke(app, ["train", cmd, *args])
        assert (res.exit_code, res.stderr.strip()) == (2, f"error: {msg}"), (cmd, args, res.output)
        assert "Traceback" not in res.output and "Usage" not in res.output
    # the values the trainers take pass the checks (here they stop at the missing torch, not at an argument)
    missing = "torch is not installed: run `make train-deps` first"
    for cmd, args in (("detector", ["--freeze", "0", "--lr0", "1e-4", "--hours", "0.25", "--seed", "0",
                                    "--seed", "4294967295", "--imgsz", "64", "--scenes", "1", "--batch", "1",
                                    "--workers", "1", "--windows", "1", "--epochs", "1"]),
                      ("detector", ["--resume", "--freeze", "23", "--imgsz", "640"]),
                      ("pips", ["--imgsz", "416", "--scenes", "1", "--seed", "0", "--epochs", "1"]),
                      ("verifier", ["--scenes", "10", "--seed", "0", "--epochs", "1"]),
                      ("verifier", ["--seed", str(2**64 - 1)])):
        assert _err("train", cmd, *args) == (2, f"error: {missing}"), (cmd, args)


def test_piped_output_is_not_wrapped_at_80_columns():
    """Programs and logs read piped output: a long line stays one line (rich wraps at 80 by default)."""
    import os
    import subprocess
    import sys

    line = "centre mm " + ", ".join(f"{x:.1f}" for x in range(32))  # 186 characters
    code = f"from service.cli_common import console, err_console; console.print({line!r}); err_console.print('x' * 150)"
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert len(line) > 150 and res.stdout.splitlines() == [line] and res.stderr.splitlines() == ["x" * 150]


@pytest.mark.parametrize("argv, line", [
    # click's "(Possible options: --rules)" was alike only in the dashes (helper-105: --bogus, --out)
    (["review", "x.mp4", "--profile", "p.json"], "error: No such option: --profile (see `dominocast review --help`)"),
    (["review", "x.mp4", "--rule", "all-fives"],
     "error: No such option: --rule (Possible options: --rules) (see `dominocast review --help`)"),
    (["review"], "error: Missing argument 'source' (see `dominocast review --help`)"),
    (["review", "x.mp4"], "error: Missing option '--rules' (see `dominocast review --help`)"),
    (["detect", "--tile-px", "abc", "x.jpg"],
     "error: Invalid value for '--tile-px': 'abc' is not a valid float "
     "(see `dominocast detect --help`)"),
    (["nosuch"], "error: No such command 'nosuch' (see `dominocast --help`)"),
    # raised while the sub-command parses, with the group's context: the sub-command is named (helper-48)
    (["review", "x.mp4", "--rules"], "error: Option '--rules' requires an argument (see `dominocast review --help`)"),
    (["train", "detector", "--freeze"],
     "error: Option '--freeze' requires an argument (see `dominocast train detector --help`)"),
    # helper-253: a repeated option was silently the last one (`--points A --points B` fitted B, exit 0)
    (["calibrate", "table", "t.png", "--out", "t.json", "--table-mm", "1000", "600", "--points", "0,0 9,0 9,9 0,9",
      "--points", "1,1 9,1 9,9 1,9"],
     "error: Option '--points' is given twice; give it once (see `dominocast calibrate table --help`)"),
    (["review", "x.mp4", "--rules=block", "--rules", "draw"],
     "error: Option '--rules' is given twice; give it once (see `dominocast review --help`)"),
    (["calibrate", "table", "--table-mm", "1", "2", "t.png", "--table-mm", "3", "4"],
     "error: Option '--table-mm' is given twice; give it once (see `dominocast calibrate table --help`)"),
])
def test_usage_errors_of_the_console_script_are_one_line_exit_2(monkeypatch, capsys, argv, line):
    from service import cli

    monkeypatch.setattr(sys, "argv", ["dominocast", *argv])
    with pytest.raises(SystemExit) as exc:
        cli.main()
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [line]


def test_console_script_lets_a_flag_given_twice_be(monkeypatch, capsys, tmp_path):
    """A flag takes no value, so twice is still one meaning: the command goes on (to its missing photo here)."""
    from service import cli

    photo = tmp_path / "t.png"
    monkeypatch.setattr(sys, "argv", ["dominocast", "calibrate", "table", str(photo), "--markers", "--markers",
                                      "--out", str(tmp_path / "t.json"), "--table-mm", "1000", "600"])
    with pytest.raises(SystemExit) as exc:
        cli.main()
    assert exc.value.code == 2 and capsys.readouterr().err.splitlines() == [f"error: {photo}: no such image file"]


def test_console_script_help_and_bare_group_still_show_help(monkeypatch, capsys):
    from service import cli

    monkeypatch.setattr(sys, "argv", ["dominocast", "review", "--help"])
    cli.main()  # returns: exit status 0
    assert "--rules" in capsys.readouterr().out
    monkeypatch.setattr(sys, "argv", ["dominocast", "datasets"])
    with pytest.raises(SystemExit) as exc:
        cli.main()
    out = capsys.readouterr()
    assert exc.value.code == 2 and "footage" in out.out and out.err == ""  # helper-103: a lone newline there


@pytest.mark.parametrize("device, n, line", [
    ("7", 0, "--device 7: torch sees no CUDA GPU; use auto or cpu"),
    ("0,2", 2, "--device 0,2: torch sees 2 CUDA GPUs (0-1); use auto or cpu, or 0-1"),
    ("1", 1, "--device 1: torch sees 1 CUDA GPU (0); use auto or cpu, or 0"),
])
def test_train_refuses_a_cuda_device_torch_does_not_see(monkeypatch, device, n, line):
    """--device 7 on a machine without it reached ultralytics and failed there with a traceback."""
    torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    from service import cli_train

    monkeypatch.setattr(torch.cuda, "is_available", lambda: n > 0)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: n)
    monkeypatch.setattr(cli_train.importlib.util, "find_spec", lambda mod: object())
    for cmd in ("detector", "pips", "verifier"):
        assert _err("train", cmd, "--device", device) == (2, f"error: {line}"), cmd


def test_train_refuses_a_device_of_non_ascii_digits():
    """'²'.isdigit() is true, and int('²') raised in the device check: a traceback (helper-48)."""
    assert _err("train", "detector", "--device", "²") == (2, "error: --device must be auto, cpu or a CUDA index, "
                                                            "got '²'")


@pytest.mark.parametrize("args, line", [
    (["datasets", "build", "--scenes", "1", "--seed", "-1"], "--seed must be 0-18446744073709551615, got -1"),
    (["datasets", "build", "--scenes", "1", "--width", "-5", "--imgsz", "64"],
     "--width and --height must be at least 64 pixels, got -5x720"),
    (["datasets", "build", "--scenes", "1", "--width", "100000"],
     "--width 100000 --height 720 is larger than a camera's frame: at most 7680x4320"),
    (["datasets", "footage", "--rules", "block", "--seed", "-1"], "--seed must be 0-18446744073709551615, got -1"),
])
def test_datasets_refuse_a_negative_seed_and_huge_frames_in_one_line(tmp_path, args, line):
    """build --seed -1 crashed in a worker process with numpy's "expected non-negative integer"."""
    out = tmp_path / "out"
    assert _err(*args, "--out", out) == (2, f"error: {line}")
    assert not out.exists()


@pytest.mark.parametrize("cmd", [["review", "x.mp4"], ["live", "0"]])
def test_an_empty_out_is_refused_not_the_current_folder(tmp_path, monkeypatch, cmd):
    """``--out ""`` wrote events.jsonl, record.json, report.html and snapshots/ among the files of the
    current folder (helper-47)."""
    monkeypatch.chdir(tmp_path)
    assert _err(*cmd, "--rules", "block", "--out", "") == (
        2, "error: --out is empty: name the output folder (. for the current one)")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [["review"], ["live"], ["score"], ["train", "detector"]])
def test_help_lists_flags_without_a_value_placeholder(command):
    """typer 0.29 printed ``<bool>`` after every flag (``--no-video <bool>``), as if it took a value."""
    res = CliRunner().invoke(app, [*command, "--help"], terminal_width=100)
    assert res.exit_code == 0 and "--help" in res.output
    assert "<bool>" not in res.output and "BOOLEAN" not in res.output


def test_a_file_nested_too_deeply_is_one_line_exit_2(tmp_path):
    """json / yaml recurse once per bracket: 50 000 of them gave a RecursionError traceback (helper-66)."""
    import subprocess

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 50_000 + "]" * 50_000)
    res = subprocess.run([sys.executable, "-m", "service.cli", "score", str(deep)], capture_output=True, text=True)
    assert (res.returncode, res.stderr) == (2, "error: an input file is nested too deeply to read\n")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc, a folder no one can write in")
def test_an_output_file_where_nothing_can_be_written_fails_before_the_work(tmp_path):
    """helper-66: `detect --json /proc/x/y.json` ran the detector and printed its table, then failed."""
    img = tmp_path / "a.png"
    img.write_bytes(b"not read")
    res = CliRunner().invoke(app, ["detect", "--json", "/proc/x/y.json", str(img)])
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr.startswith("error: --json /proc/x/y.json: cannot write in /proc (")


@pytest.mark.parametrize("spelling", ["sqlite:///{}", "sqlite:///file:{}?uri=true", "sqlite:///file://{}?uri=true&cache=shared"])
def test_serve_refuses_a_database_file_another_service_holds(tmp_path, monkeypatch, spelling):
    """helper-109: a second service on another data dir with --db naming the first's SQLite file was taken;
    helper-143: so was it when --db spelled that file as an SQLite URI (``file:...?uri=true``)."""
    from filelock import FileLock

    import service.app

    started = []
    monkeypatch.setattr(service.app, "create_app", lambda settings: started.append(settings) or (_ for _ in ()).throw(
        KeyboardInterrupt))
    monkeypatch.delenv("DOMINOCAST_TOKEN", raising=False)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    shared = tmp_path / "shared" / "venue.db"
    shared.parent.mkdir()
    with FileLock(shared.parent / "venue.db.serve.lock"):  # the first service
        code, msg = _err("serve", "--port", free, "--data-dir", tmp_path / "second", "--db", spelling.format(shared))
    assert (code, msg) == (2, f"error: --db {shared} is in use by another dominocast serve: stop it first, or use "
                              "another database")
    assert started == [] and not (tmp_path / "second").exists()  # nothing of the second is left behind
    # free again: it starts (and is stopped here at once)
    res = CliRunner().invoke(app, ["serve", "--port", str(free), "--data-dir", str(tmp_path / "second"), "--db",
                                   f"sqlite:///{shared}"])
    assert res.exit_code == 130 and len(started) == 1


def test_serve_refuses_a_database_another_data_dirs_service_holds(tmp_path, monkeypatch):
    """helper-118: a service on data dir B with --db naming data dir A's own database started while A's service
    ran; the two wrote the same event slots (A then answered 500). Checked while A's service is starting."""
    import service.app

    monkeypatch.delenv("DOMINOCAST_TOKEN", raising=False)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    first, second = tmp_path / "a", tmp_path / "b"
    seen = []

    def first_running(settings):  # the first service holds its locks here: start the second meanwhile
        monkeypatch.setattr(service.app, "create_app", lambda s: seen.append("second started") or (
            _ for _ in ()).throw(KeyboardInterrupt))
        seen.append(_err("serve", "--port", free, "--data-dir", second, "--db", f"sqlite:///{first / 'dominocast.db'}"))
        raise KeyboardInterrupt

    monkeypatch.setattr(service.app, "create_app", first_running)
    res = CliRunner().invoke(app, ["serve", "--port", str(free), "--data-dir", str(first)])
    assert res.exit_code == 130
    db = (first / "dominocast.db").resolve()
    # helper-174: named as the data dir's refusal names the first service (its pid and address)
    assert seen == [(2, f"error: --db {db} is in use by another dominocast serve (pid {os.getpid()}, "
                        f"http://127.0.0.1:{free}/): stop it first, or use another database")]
    assert not second.exists()


@pytest.mark.parametrize("made_by", ["user", "service"])
def test_serve_refuses_a_hard_link_of_the_database_another_service_holds(tmp_path, monkeypatch, made_by):
    """A second service whose --db is a hard link of the first's SQLite file (another name, so another
    FILE.serve.lock) was taken, and both wrote the same event slots. The database file existed before the first
    service started ("user"), or the first service's start made it ("service")."""
    import sqlite3

    import service.app

    monkeypatch.delenv("DOMINOCAST_TOKEN", raising=False)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    db, link = tmp_path / "venue.db", tmp_path / "other" / "copy.db"
    link.parent.mkdir()
    if made_by == "user":
        sqlite3.connect(db).close()
        os.link(db, link)
    seen = []

    def first_created(settings):  # the first service's database exists from here on
        sqlite3.connect(db).close()
        if made_by == "service":
            os.link(db, link)
        return type("App", (), {"state": type("State", (), {"token_generated": False})})()

    def first_serving(app, **kw):  # the first service runs: start the second meanwhile
        monkeypatch.setattr(service.app, "create_app", lambda s: seen.append("second started") or (
            _ for _ in ()).throw(KeyboardInterrupt))
        seen.append(_err("serve", "--port", free, "--data-dir", tmp_path / "b", "--db", f"sqlite:///{link}"))
        raise KeyboardInterrupt

    monkeypatch.setattr(service.app, "create_app", first_created)
    monkeypatch.setattr("service.server.serve", first_serving)
    res = CliRunner().invoke(app, ["serve", "--port", str(free), "--data-dir", str(tmp_path / "a"), "--db",
                                   f"sqlite:///{db}"])
    assert res.exit_code == 130
    assert seen == [(2, f"error: --db {link.resolve()} is in use by another dominocast serve under another name (a hard "
                        "link of the same file): stop it first, or use another database")]
    assert not (tmp_path / "b").exists()
    # the first service stopped: the link's service starts (and is stopped at once)
    res = CliRunner().invoke(app, ["serve", "--port", str(free), "--data-dir", str(tmp_path / "b"), "--db",
                                   f"sqlite:///{link}"])
    assert res.exit_code == 130 and seen[-1] == "second started"


@pytest.mark.parametrize("kind", ["folder", "video"])
def test_review_out_that_is_a_file_is_refused_before_any_slow_work(tmp_path, monkeypatch, kind):
    """--out naming a file was said only after the models loaded and, for a folder, its tile size was
    measured on its photos (seconds to minutes): it is the first thing checked."""
    import cv2
    import numpy as np

    from service import cli_review

    def slow(*a, **k):
        raise AssertionError("slow work started before --out was checked")

    for name in ("_setup", "open_source", "_fix_tile_size"):
        monkeypatch.setattr(cli_review, name, slow)
    if kind == "folder":
        source = tmp_path / "photos"
        source.mkdir()
        cv2.imwrite(str(source / "move_1.png"), np.full((48, 64, 3), 90, np.uint8))
    else:
        source = Path(__file__).resolve().parent.parent / "examples" / "footage" / "demo.mp4"
    out = tmp_path / "results.txt"
    out.write_text("mine")
    assert _err("review", source, "--rules", "all-fives", "--out", out) == (
        2, f"error: --out {out} is a file, not a folder")
    assert out.read_text() == "mine"
    under = out / "sub" / "review"  # helper-136: a folder under a file was refused only once it was made
    assert _err("review", source, "--rules", "all-fives", "--out", under) == (
        2, f"error: --out {under} lies under {out}, which is a file, not a folder")


def test_review_out_through_a_broken_link_is_refused_at_once(tmp_path, monkeypatch):
    """helper-138: an --out that is (or lies under) a link to nothing failed with "cannot create the folder
    (File exists)" once the slow work was done; it is refused first, saying what the link points to."""
    import cv2
    import numpy as np

    from service import cli_review

    def slow(*a, **k):
        raise AssertionError("slow work started before --out was checked")

    for name in ("_setup", "open_source", "_fix_tile_size"):
        monkeypatch.setattr(cli_review, name, slow)
    source = tmp_path / "photos"
    source.mkdir()
    cv2.imwrite(str(source / "move_1.png"), np.full((48, 64, 3), 90, np.uint8))
    link = tmp_path / "results"
    link.symlink_to(tmp_path / "gone")
    for out in (link, link / "sub"):
        assert _err("review", source, "--rules", "all-fives", "--out", out) == (
            2, f"error: --out {out}: {link} is a link to {tmp_path / 'gone'}, which does not exist")


def test_datasets_refuse_an_empty_or_non_utf8_out_and_name(tmp_path, monkeypatch):
    """helper-149: --out "" built into the current folder; a non-UTF-8 --name crashed OpenCV's video writer
    (exit 139) and a non-UTF-8 --out left a half-built dataset after a traceback."""
    monkeypatch.chdir(tmp_path)
    empty = "error: --out is empty: give a folder (. for the current one)"
    assert _err("datasets", "build", "--out", "", "--scenes", "1") == (2, empty)
    assert _err("datasets", "footage", "--rules", "block", "--out", " ") == (2, empty)
    bad = str(tmp_path / "bad\udcff")  # how Python hands over a file name's byte 0xff
    assert _err("datasets", "build", "--out", bad, "--scenes", "1") == (
        2, f"error: --out {bad!r} is not UTF-8 text: OpenCV and ultralytics cannot write there; choose a name in UTF-8")
    assert _err("datasets", "footage", "--rules", "block", "--out", tmp_path / "ok", "--name", "n\udcff") == (
        2, "error: --name 'n\\udcff' is not UTF-8 text: OpenCV and ultralytics cannot write there; "
           "choose a name in UTF-8")
    assert list(tmp_path.iterdir()) == []


def test_datasets_build_bounds_scenes_and_workers(tmp_path):
    """helper-149: 10**10 scenes ate memory before the first render; 300 workers hung a Ctrl-C."""
    out = tmp_path / "never"
    assert _err("datasets", "build", "--out", out, "--scenes", str(10**10)) == (
        2, f"error: --scenes must be 1-1000000, got {10**10}")
    assert _err("datasets", "build", "--out", out, "--workers", str(WORKERS + 1)) == (
        2, f"error: --workers must be 1-{WORKERS} (2 per CPU core of this machine), got {WORKERS + 1}")
    assert not out.exists()


def test_an_interrupted_build_leaves_no_half_dataset(tmp_path, monkeypatch):
    """helper-149: Ctrl-C mid-build exited 130 in silence, leaving detect/ and pips/ without recipe.json,
    which the next build refused and `train` mixed into its own."""
    import datasets.build as B
    from interrupting import interrupt_at  # tests/interrupting.py

    calls = interrupt_at(monkeypatch, B, "_write_one", 3)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("kept")
    res = CliRunner().invoke(app, ["datasets", "build", "--out", str(mine), "--scenes", "5", "--workers", "1"])
    assert res.exit_code == 130 and calls == [1, 1, 1]  # stopped at the third scene, two written
    assert res.stderr.strip() == f"interrupted: no dataset written; {mine} holds what it held before"
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    calls.clear()
    new = tmp_path / "n1" / "n2" / "new"
    res = CliRunner().invoke(app, ["datasets", "build", "--out", str(new), "--scenes", "5", "--workers", "1"])
    assert (res.exit_code, res.stderr.strip()) == (130, f"interrupted: no dataset written; {new} was not made")
    assert not (tmp_path / "n1").exists()  # helper-150: the folders made above it were left


def test_train_refuses_a_dataset_of_another_recipe_in_one_line(tmp_path, monkeypatch):
    """helper-149: `train detector --imgsz 640` on 320 px windows replaced the shipped detector with a
    model of mAP 0; `train pips` built seed 5 into a half-built seed-0 folder and trained on both."""
    _without_torch(monkeypatch)
    res = CliRunner().invoke(app, ["datasets", "build", "--out", str(tmp_path / "d"), "--scenes", "20",
                                   "--workers", "1", "--imgsz", "320"])
    assert res.exit_code == 0, res.output
    d = tmp_path / "d"
    assert _err("train", "detector", "--data", d, "--imgsz", "640") == (
        2, f"error: --data {d} holds detector windows of 320 px, not --imgsz 640: give --imgsz 320 or build a "
           "dataset of 640 px windows into another folder")
    (d / "recipe.json").unlink()  # as if the build had been killed
    code, msg = _err("train", "pips", "--data", d, "--seed", "5")
    assert code == 2 and msg == (f"error: --data {d} holds part of another dataset (detect, pips; no recipe.json "
                                 "(an interrupted build)): its files would be mixed into this one; delete the folder "
                                 "or give another --data")
    # the folder training would build into by default is checked too
    assert _err("train", "pips", "--scenes", "10", "--seed", "7") == (
        2, "error: torch is not installed: run `make train-deps` first")


def test_train_refuses_an_empty_or_non_utf8_data_folder(tmp_path, monkeypatch):
    """helper-150: `train --data ""` built into the current folder; a non-UTF-8 --data was built for
    minutes, then writing data.yaml crashed."""
    _without_torch(monkeypatch)
    monkeypatch.chdir(tmp_path)
    bad = str(tmp_path / "y\udcff")
    for cmd in ("detector", "pips", "verifier"):
        for empty in ("", "   "):
            assert _err("train", cmd, "--data", empty) == (
                2, "error: --data is empty: give a folder (. for the current one)")
        assert _err("train", cmd, "--data", bad) == (
            2, f"error: --data {bad!r} is not UTF-8 text: OpenCV and ultralytics cannot write there; "
               "choose a name in UTF-8")
    assert list(tmp_path.iterdir()) == []


def test_train_verifier_refuses_a_folder_that_is_not_its_crops(tmp_path, monkeypatch):
    """helper-150: `train verifier --data` on a detector dataset wrote its recipe.json over the dataset's;
    a recipe.json holding [1, 2] or a cut-off '{' ended in a traceback (exit 1)."""
    _without_torch(monkeypatch)
    d = tmp_path / "d"
    d.mkdir()
    (d / "recipe.json").write_text('{"version": 8, "seed": 0, "scenes": 20, "imgsz": 320}')
    tail = ": building the crops there would write over its files; delete it or give another --data"
    assert _err("train", "verifier", "--data", d) == (
        2, f"error: --data {d} holds a dataset that is not verifier crops (its recipe.json names no crop_version)"
           + tail)
    for text, why in (("[1, 2]", "is not a JSON object"), ("{", "is not valid JSON")):
        (d / "recipe.json").write_text(text)
        assert _err("train", "verifier", "--data", d) == (2, f"error: --data {d} holds a recipe.json that {why}" + tail)
    (d / "recipe.json").unlink()
    (d / "train.npz").write_bytes(b"")
    assert _err("train", "verifier", "--data", d) == (
        2, f"error: --data {d} holds verifier crops without recipe.json (an interrupted build)" + tail)
    (d / "recipe.json").write_text('{"scenes": 400, "seed": 3, "crop_version": 3}')
    assert _err("train", "verifier", "--data", d, "--scenes", "4000") == (
        2, f"error: --data {d} holds verifier crops of --scenes 400 --seed 3: give those to train on them, "
           "or another --data")
    # the same recipe passes the folder check and stops at the missing train extra
    assert _err("train", "verifier", "--data", d, "--scenes", "400", "--seed", "3") == (
        2, "error: torch is not installed: run `make train-deps` first")
    assert (d / "recipe.json").read_text() == '{"scenes": 400, "seed": 3, "crop_version": 3}'


def test_an_interrupted_build_inside_train_is_removed_so_the_same_command_runs_again(tmp_path, monkeypatch):
    """helper-150: Ctrl-C while `train pips` built its dataset exited 130 in silence and left the folder
    half-built; the same command then refused it as "part of another dataset"."""
    import datasets.build as B
    import models.train_pips as P
    from interrupting import interrupt_at  # tests/interrupting.py
    from models.common import ensure_dataset
    from service import cli_train

    monkeypatch.setattr(cli_train, "_need_training_deps", lambda *a: None)
    trained = []

    def fake_train(data, scenes, seed, imgsz, epochs, **kw):  # the build is real; the fit is not tested here
        ensure_dataset(data, scenes, seed, imgsz, workers=1, any_windows=True)
        trained.append(data)
        raise KeyboardInterrupt  # Ctrl-C during the fit, once the dataset is whole

    monkeypatch.setattr(P, "train", fake_train)
    calls = interrupt_at(monkeypatch, B, "_write_one", 3)
    data = tmp_path / "n1" / "n2" / "data"
    args = ["train", "pips", "--data", str(data), "--scenes", "20", "--device", "cpu"]
    res = CliRunner().invoke(app, args)
    assert (res.exit_code, res.stderr.strip()) == (
        130, f"interrupted: no model written; the dataset was not finished: {data} was not made")
    assert calls == [1, 1, 1] and trained == [] and list(tmp_path.iterdir()) == []  # n1 and n2 went too
    # calls 4, 5, ... run the real function: the same command builds the whole dataset this time
    res = CliRunner().invoke(app, args)
    assert (res.exit_code, res.stderr.strip()) == (130, f"interrupted: no model written; the dataset {data} is kept")
    assert trained == [data] and (data / "recipe.json").is_file()


@pytest.mark.parametrize("missing, line", [
    (("onnx", "sympy"), "onnx and sympy are not installed: run `make quantize-deps` (or `pip install onnx sympy`) "
                        "first; quantizing needs no torch"),
    (("sympy",), "sympy is not installed: run `make quantize-deps` (or `pip install sympy`) first; quantizing needs "
                 "no torch"),
])
def test_quantize_without_its_modules_names_the_small_install(monkeypatch, missing, line):
    """helper-187: it said `make train-deps` (torch and ultralytics, several GB) for onnx alone; onnxruntime's
    shape inference before quantizing needs sympy too, which only torch brought."""
    import importlib.machinery
    import importlib.util

    real = importlib.util.find_spec

    def find_spec(name, *a):  # the others there, whatever this machine holds
        if name in missing:
            return None
        return importlib.machinery.ModuleSpec(name, None) if name in ("onnx", "sympy") else real(name, *a)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    assert _err("train", "quantize") == (2, f"error: {line}")


def test_the_quantize_extra_and_make_target_install_what_quantize_checks():
    import tomllib

    from service.cli_train import QUANTIZE_MODULES

    root = Path(__file__).resolve().parents[1]
    extra = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]["quantize"]
    assert [req.split(">")[0] for req in extra] == list(QUANTIZE_MODULES)
    assert "\nquantize-deps: $(STAMP_RUNTIME)\n\t$(PY) -m pip install --quiet -e '.[quantize]'\n" in (
        root / "Makefile").read_text()
