"""engine.files: bounded reads of the inputs a user names, and writes that never lose the earlier file."""

from __future__ import annotations

import json
import os
import stat
import tracemalloc

import pytest

from engine.files import InputFileError, read_input, read_json_object, readable, write_text_atomic


def test_a_regular_file_is_read_whole_up_to_its_limit(tmp_path):
    f = tmp_path / "a.txt"
    f.write_bytes(b"x" * 10)
    assert read_input(f, "note", limit=10) == b"x" * 10
    with pytest.raises(InputFileError, match=rf"^{f} is 10 bytes: a note is at most 9$") as info:
        read_input(f, "note", limit=9)
    assert info.value.reason == "is 10 bytes (at most 9)"


def test_what_is_not_a_regular_file_is_refused_before_it_is_read(tmp_path):
    """helper-151: /dev/zero was read until the memory ran out, a FIFO waited forever."""
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    fifo = tmp_path / "ff"
    os.mkfifo(fifo)
    for path in (zero, fifo):
        with pytest.raises(InputFileError, match="is not a regular file \\(a device or a pipe\\), not a record") as i:
            read_input(path, "record", shown="R")
        assert str(i.value).startswith("R is not") and i.value.reason == "is not a regular file (a device or a pipe)"
    with pytest.raises(InputFileError, match=f"^{tmp_path} is a folder, not a record$"):
        read_input(tmp_path, "record")
    with pytest.raises(InputFileError, match="nowhere.json: no such record$") as info:
        read_input(tmp_path / "nowhere.json", "record")
    assert info.value.reason == "does not exist"


def test_a_file_that_reports_no_size_is_still_bounded():
    """/proc files say 0 bytes; the read stops one byte past the limit."""
    with pytest.raises(InputFileError, match="is more than 5 bytes"):
        read_input("/proc/self/status", "profile file", limit=5)


def test_json_object_problems_are_named(tmp_path):
    f = tmp_path / "recipe.json"
    for text, reason in (("[1, 2]", "is not a JSON object"), ("{", "is not valid JSON"),
                         ("{\"a\": \"\xe9\"}".encode("latin-1"), "is not UTF-8 text")):
        (f.write_bytes if isinstance(text, bytes) else f.write_text)(text)
        with pytest.raises(InputFileError) as info:
            read_json_object(f, "dataset recipe")
        assert info.value.reason == reason and str(f) in str(info.value)
    f.write_bytes(b"\xef\xbb\xbf{\"seed\": 3}")  # a byte-order mark, as Notepad writes one
    assert read_json_object(f, "dataset recipe") == {"seed": 3}


def test_readable_replaces_the_bytes_of_a_name_that_are_not_utf8():
    name = os.fsdecode(b"n\xff.toml")
    assert readable(name) == "n\ufffd.toml"
    assert readable("\ud800x\udfff") == "\ufffdx\ufffd"  # surrogates no file name byte makes (JSON escapes)
    assert readable("mesa é") == "mesa é"


def test_an_atomic_write_that_cannot_encode_leaves_the_earlier_file_whole(tmp_path):
    """helper-151: a record named by a rule set file with a non-UTF-8 name was truncated to 0 bytes."""
    f = tmp_path / "record.json"
    f.write_text('{"kept": true}')
    with pytest.raises(UnicodeEncodeError):
        write_text_atomic(f, "\udcff")
    assert f.read_text() == '{"kept": true}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record.json"]  # no temporary file left


def test_an_atomic_write_keeps_links_and_permissions(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert write_text_atomic(link, json.dumps({"new": 1})) == link
    assert link.is_symlink() and json.loads(target.read_text()) == {"new": 1}
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    deep = tmp_path / "a" / "b" / "c.txt"
    write_text_atomic(deep, "é")
    assert deep.read_bytes() == "é".encode()
    fifo = tmp_path / "pipe"  # not the real /dev/null: the suite runs as root here (helper-158)
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_text_atomic(fifo, "in place")  # a pipe or a device is written to, not replaced by a file
        assert os.read(reader, 100) == b"in place" and stat.S_ISFIFO(fifo.stat().st_mode)
    finally:
        os.close(reader)


def test_a_small_file_read_under_a_large_limit_takes_little_memory(tmp_path):
    """helper-158: ``f.read(limit + 1)`` allocated the whole limit up front: 1 GiB for every photo."""
    f = tmp_path / "photo.jpg"
    f.write_bytes(bytes(range(256)) * 800)  # 200 KiB
    tracemalloc.start()
    try:
        assert read_input(f, "image", limit=1 << 30) == f.read_bytes()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 200 * 1024, peak
