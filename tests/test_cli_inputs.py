"""What the CLI does with odd inputs (helper-151): devices, pipes, empty names, names that are not UTF-8
or hold a line break, and an output that cannot be written. One line, exit code 2, nothing lost."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.ruleset import RULESET_DIR
from service.cli import app

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "all-fives.yaml"


def _run(*args) -> tuple[int, str]:
    res = CliRunner().invoke(app, [a if isinstance(a, str) else os.fsdecode(a) for a in args])
    return res.exit_code, res.stderr.strip()


def test_a_rule_set_file_named_with_bytes_that_are_not_utf8_names_its_rule_set_readably(tmp_path):
    """The rule set's default name is the file's stem: it was written as a lone surrogate, the record
    failed to encode (a traceback, exit 1) after the earlier record had been truncated to 0 bytes."""
    rules = tmp_path / os.fsdecode(b"n\xff.toml")
    rules.write_text("".join(line for line in (RULESET_DIR / "all-fives.toml").read_text().splitlines(True)
                             if not line.startswith("name")))
    record = tmp_path / "rec.json"
    assert _run("score", EXAMPLE, "--rules", str(rules), "--record", str(record))[0] == 0
    assert json.loads(record.read_text())["rules"]["params"]["name"] == "n\ufffd"


def test_a_record_that_cannot_be_encoded_leaves_the_earlier_one_whole(tmp_path):
    from engine.record import RecordError
    from service.cli_record import load_record, write_outputs

    record = tmp_path / "rec.json"
    assert _run("score", EXAMPLE, "--record", str(record))[0] == 0
    before = record.read_bytes()
    rec = load_record(record)
    rec.players["N"] = "\ud800"  # text no file can hold (scripts' names are made readable before this)
    with pytest.raises(RecordError, match="not written: the record holds text that is not UTF-8"):
        write_outputs(rec, record, None)
    assert record.read_bytes() == before


def test_a_player_named_by_a_lone_surrogate_is_written_readably(tmp_path):
    """helper-154: a JSON script's "\ud800" player name ended the score table in a traceback (exit 1)."""
    bad = tmp_path / "bad.json"
    bad.write_text('{"rules": "all-fives", "players": {"N": "\\ud800"}, "hands": [["N 6-4"]]}')
    record = tmp_path / "rec.json"
    res = CliRunner().invoke(app, ["score", str(bad), "--record", str(record)])
    assert res.exit_code == 0, res.output
    assert "N (\ufffd)" in res.stdout
    assert json.loads(record.read_text(encoding="utf-8"))["players"]["N"] == "\ufffd"


def test_an_empty_rules_option_is_refused_not_ignored(tmp_path):
    """--rules "" fell back on the script's own rules without a word."""
    code, err = _run("score", EXAMPLE, "--rules", "")
    assert code == 2 and "the rule set is empty: name a preset (all-fives, " in err


@pytest.mark.parametrize("argv, kind", [
    (("score", "{zero}"), "script file"),
    (("score", "{fifo}"), "script file"),
    (("record", "show", "{zero}"), "record file"),
    (("record", "show", "{fifo}"), "record file"),
    (("record", "report", "{zero}", "--out", "{tmp}/r.html"), "record file"),
    (("calibrate", "show", "{zero}"), "profile file"),
    (("score", str(EXAMPLE), "--rules", "{fifo}"), "rule set file"),
])
def test_a_device_or_a_pipe_is_refused_before_it_is_read(tmp_path, argv, kind):
    """/dev/zero was read until the memory ran out; a FIFO waited forever."""
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    fifo = tmp_path / "ff"
    os.mkfifo(fifo)
    args = [a.format(zero=zero, fifo=fifo, tmp=tmp_path) for a in argv]
    code, err = _run(*args)
    assert code == 2 and err.endswith(f"is not a regular file (a device or a pipe), not a {kind}"), err


def test_review_and_detect_refuse_a_calibration_that_is_a_device(tmp_path):
    code, err = _run("detect", str(EXAMPLE), "--calibration", "/dev/zero")
    assert (code, err) == (2, "error: /dev/zero is not a regular file (a device or a pipe), not a profile file")
    code, err = _run("review", str(EXAMPLE.parent / "footage" / "demo.mp4"), "--rules", "all-fives", "--calibration", "/dev/zero",
                     "--out", str(tmp_path / "r"))
    assert (code, err) == (2, "error: /dev/zero is not a regular file (a device or a pipe), not a profile file")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("argv", [("score", ""), ("record", "show", ""), ("detect", ""), ("calibrate", "show", ""),
                                  ("calibrate", "lens", "", "--out", "l.json"), ("detect", "x.png", "--json", "")])
def test_an_empty_file_name_is_refused_not_read_as_the_current_folder(argv):
    """Path("") is "."; `detect ""` said ". is a directory"."""
    code, err = _run(*argv)
    assert code == 2 and "is empty: give a name (. is the current folder)" in err


def test_review_of_an_empty_source_is_refused(tmp_path):
    """`review ""` reviewed the current folder's photos."""
    code, err = _run("review", "", "--rules", "all-fives", "--out", str(tmp_path / "r"))
    assert (code, err) == (2, "error: the source is empty: `dominocast review` takes a video file or a folder of "
                              "photos (. for the current folder)")
    assert not (tmp_path / "r").exists()


def test_an_error_about_a_name_with_a_line_break_stays_one_line():
    code, err = _run("score", str(EXAMPLE), "--rules", "x\ny.toml")
    assert code == 2 and err.splitlines() == [f"error: {EXAMPLE}: x\\ny.toml: no such rule set file"]


def test_rules_of_a_file_shows_that_files_comments_not_the_presets(tmp_path, monkeypatch):
    """`dominocast rules ./all-fives` showed the preset's comments beside the file's values."""
    text = (RULESET_DIR / "all-fives.toml").read_text()
    assert "\ntarget = 200\n" in text
    (tmp_path / "all-fives").write_text(text.replace("\ntarget = 200\n", "\n# our club plays to 150\ntarget = 150\n"))
    monkeypatch.chdir(tmp_path)
    mine = CliRunner().invoke(app, ["rules", "./all-fives"], env={"COLUMNS": "400"})
    preset = CliRunner().invoke(app, ["rules", "all-fives"], env={"COLUMNS": "400"})
    row = next(line for line in mine.stdout.splitlines() if line.split("│")[1:2] == [" target" + " " * 27])
    assert row.split("│")[2].strip() == "150" and "our club" in " ".join(mine.stdout.split())
    assert "our club" not in preset.stdout


def test_misleading_messages_now_say_what_the_input_is(tmp_path):
    code, err = _run("record", "report", str(EXAMPLE), "--out", str(tmp_path / "r.html"), "--video", "/dev/zero")
    assert code == 2 and err.endswith("--video /dev/zero: not a regular file (a device or a pipe), not a video file")
    code, err = _run("serve", "--data-dir", "/dev/zero")
    assert (code, err) == (2, "error: --data-dir /dev/zero is a device or a pipe, not a folder")
    # an argument that cannot be right is said before a missing train extra (onnx is absent here or not)
    code, err = _run("train", "quantize", "--calib", "0")
    assert code == 2 and err.startswith("error: --calib must be >= 1")


def test_a_dataset_folder_whose_recipe_is_a_pipe_or_the_verifiers_is_named(tmp_path):
    from models.common import dataset_problem

    d = tmp_path / "d"
    d.mkdir()
    os.mkfifo(d / "recipe.json")
    assert dataset_problem(d, 10, 0, 320) == (
        f"{d} holds part of another dataset (recipe.json; a recipe.json that is not a regular file (a device or a "
        "pipe)): its files would be mixed into this one; delete the folder or give another --data")
    (d / "recipe.json").unlink()
    (d / "recipe.json").write_text('{"scenes": 400, "seed": 3, "crop_version": 3}')
    assert dataset_problem(d, 10, 0, 320) == (
        f"{d} holds the tile verifier's crops (`dominocast train verifier` trains on them), not a detector and "
        "pip dataset: give another --data")


def test_a_dataset_image_that_cannot_be_written_fails_the_build(tmp_path):
    """cv2.imwrite returned False unseen (a full disk, a file-size limit): the build said "wrote"."""
    from datasets import build as B

    out = tmp_path / "ds"
    blocked = out / "detect" / "images" / "train" / "s000002_0.jpg"  # seed 5: scene 2 is the first with windows
    blocked.mkdir(parents=True)  # a folder where that window goes
    with pytest.raises(IsADirectoryError):
        B.build(out, 3, seed=5, imgsz=192, workers=1, frame_size=(640, 360))
    assert not (out / "recipe.json").exists()  # written last: the folder reads as an unfinished build
    shutil.rmtree(out)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_standard_output_that_cannot_be_written_is_one_error_line(tmp_path):
    """helper-152: `dominocast rules > /dev/full` ended in a traceback (exit 1); a command's work (here a
    record written with --record) still finishes."""
    import subprocess
    import sys

    record = tmp_path / "rec.json"
    with open("/dev/full", "w") as full:
        res = subprocess.run([sys.executable, "-c", "from service.cli import main; main()", "score", str(EXAMPLE),
                              "--record", str(record)], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert res.returncode == 2
    assert res.stderr == "error: standard output: No space left on device; what was printed there is incomplete\n"
    assert json.loads(record.read_text())["format"] == "dominocast-record"


def test_live_refuses_a_file_url(tmp_path):
    """helper-152: `live file:///.../demo.mp4` ran as a stream that kept reconnecting, and wrote an empty
    record."""
    video = tmp_path / "clip.mp4"
    video.write_bytes(b"")
    code, err = _run("live", f"file://{video}", "--rules", "all-fives", "--out", str(tmp_path / "l"))
    assert code == 2 and err.startswith(f"error: file://{video} names a file, not a camera or a stream: ")
    assert err.endswith(f"for recorded footage use `dominocast review {video}`") and not (tmp_path / "l").exists()
    # helper-154: file://localhost/... named the wrong path; `review` of the URL sent it back to `live`
    code, err = _run("live", "file://localhost/tmp/a%20b.mp4", "--rules", "all-fives", "--out", str(tmp_path / "l"))
    assert code == 2 and err.endswith("for recorded footage use `dominocast review /tmp/a b.mp4`")
    code, err = _run("review", f"file://{video}", "--rules", "all-fives", "--out", str(tmp_path / "r"))
    assert (code, err) == (2, f"error: file://{video}: give the footage as a path, not a file:// URL: {video}")
    assert _run("serve", "--db", "")[1].startswith("error: --db is empty: give a database URL")


def test_a_pipe_among_a_folders_photos_is_not_waited_on(tmp_path):
    """helper-152: a FIFO named 05.jpg hung the review of its folder."""
    from calibration.images import decode_image

    os.mkfifo(tmp_path / "05.jpg")
    assert decode_image(tmp_path / "05.jpg") is None


def test_a_rule_set_files_inline_comments_are_its_quotes(tmp_path):
    """helper-152: `target = 150  # CLUB: shorter games` showed the comment above the line instead."""
    from engine.ruleset import ruleset_quotes

    f = tmp_path / "club.toml"
    f.write_text('# the club\'s own rules\ntitle = "Club # 1"  # named for the room\n'
                 "# above\ntarget = 150  # CLUB: shorter games\nplayers = 4\n\"hand_size\" = 5 # quoted key\n"
                 "[penalties.'bogus_play']  # a quoted table\n")
    assert ruleset_quotes(str(f)) == {"title": "the club's own rules named for the room",
                                      "target": "above CLUB: shorter games", "hand_size": "quoted key",
                                      "penalties.bogus_play": "a quoted table"}


def test_a_record_holding_a_lone_surrogate_is_shown_not_a_traceback(tmp_path):
    """helper-154: `record show` of a record whose player is "\\ud800" (a JSON escape) ended in a traceback:
    the output streams write such text as U+FFFD, a file name's undecodable byte as that byte."""
    import subprocess
    import sys

    record = tmp_path / "rec.json"
    assert _run("score", EXAMPLE, "--record", str(record))[0] == 0
    data = json.loads(record.read_text())
    data["players"]["N"] = "\ud800"
    record.write_text(json.dumps(data))  # ensure_ascii: the file holds the escape "\ud800"
    res = subprocess.run([sys.executable, "-c", "from service.cli import main; main()", "record", "show", str(record)],
                         capture_output=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "\ufffd".encode() in res.stdout


def test_outputs_that_cannot_be_written_leave_the_earlier_files_whole(tmp_path):
    """helper-154: under a file-size limit `calibrate markers --out m.png` and `detect --json` cut the
    earlier sheet and tile list to 1 KiB; they are written beside and moved over now."""
    import resource
    import subprocess
    import sys

    sheet = tmp_path / "m.png"
    assert _run("calibrate", "markers", "--out", str(sheet))[0] == 0
    before = sheet.read_bytes()
    assert len(before) > 4096

    def small_files():  # in the child: a 1 KiB file-size limit, and no SIGXFSZ (Python ignores it too)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    res = subprocess.run([sys.executable, "-c", "from service.cli import main; main()", "calibrate", "markers",
                          "--out", str(sheet)], capture_output=True, text=True, timeout=120, preexec_fn=small_files)
    assert res.returncode == 2 and res.stderr.strip() == f"error: {sheet}: cannot write (File too large)"
    assert sheet.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["m.png"]


def test_a_pipe_among_a_reviews_output_names_is_refused_not_waited_on(tmp_path):
    """helper-154: a FIFO named events.jsonl in --out hung the review; one given as `record report --out`
    hung even with a reader, as the check for a review's page read from it first."""
    from service.cli_common import is_review_page
    from service.review import check_review_folder

    os.mkfifo(tmp_path / "events.jsonl")
    with pytest.raises(ValueError, match="events.jsonl is a device or a pipe, but a review writes a file of that"):
        check_review_folder(tmp_path)
    assert is_review_page(tmp_path / "events.jsonl") is False  # returns at once: nothing opened


def test_a_reviews_own_annotated_video_is_refused_as_footage(tmp_path):
    """helper-248: an output folder's hint named its annotated.webm, and reviewing that video read the drawn
    overlays as tiles (N 0 S 0, 5 plays, 12 flags, exit 0). Beside its events.jsonl it is refused, one line."""
    out = tmp_path / "review"
    out.mkdir()
    shutil.copy(Path(__file__).resolve().parent.parent / "examples" / "footage" / "demo.mp4", out / "annotated.webm")
    (out / "events.jsonl").write_text("")
    code, err = _run("review", out / "annotated.webm", "--rules", "lisa-b-all-fives", "--out", tmp_path / "o",
                     "--no-video")
    assert code == 2 and err == (f"error: {out / 'annotated.webm'} is a review's annotated video (its events.jsonl "
                                 "lies beside it), drawn over: review the footage that review read")
    assert not (tmp_path / "o").exists()
    from service.review_folder import review_output_video

    assert review_output_video(out / "annotated.webm")
    (out / "events.jsonl").unlink()  # a video of that name alone is footage like any other
    assert not review_output_video(out / "annotated.webm")
