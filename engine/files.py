"""Files a user names: the inputs read, the outputs written, the names shown.

Reading (rule sets, scripts, records, profiles, dataset recipes, pictures): only a regular file of
bounded size is read; a folder, a device or a pipe is refused before it is opened, and a file is read
no further than its limit, so ``/dev/zero`` or a FIFO named by mistake says so in one line instead of
filling the memory or waiting forever (helper-150, helper-151). Writing (records, reports, profiles,
pictures): beside the file, then moved over it, so a failure never leaves the earlier file cut short.
Showing: :func:`readable` turns a name's bytes that are not UTF-8 into U+FFFD.
"""

from __future__ import annotations

import io
import json
import os
import re
import secrets
import stat
from pathlib import Path

#: Default cap for the inputs read here, in bytes: far above any record of a long match (a few MB).
DEFAULT_LIMIT = 64 << 20


def _a(noun: str) -> str:
    """``noun`` with its indefinite article: "a record file", "an image"."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


class InputFileError(ValueError):
    """A named input is not a readable regular file within its size limit, or not what it should hold.

    ``str()`` is the whole message (it names the file); ``reason`` is what is wrong, without the name
    ("is a folder", "is not a JSON object"), for callers that name the file their own way.
    """

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def read_input(path: str | os.PathLike[str], kind: str, *, limit: int = DEFAULT_LIMIT,
               shown: str | None = None) -> bytes:
    """The bytes of the regular file ``path`` (links followed), at most ``limit`` bytes.

    ``kind`` names what the file should be in messages ("rule set file", "record"); ``shown`` is the
    name as the user gave it (default: ``str(path)``).

    Raises:
        InputFileError: ``"{shown}: no such {kind}"``, ``"{shown} is a folder, not a(n) {kind}"``,
            ``"{shown} is not a regular file (a device or a pipe), not a(n) {kind}"``,
            ``"{shown} is N bytes: a(n) {kind} is at most {limit}"`` or ``"{shown}: cannot read: ..."``.
    """
    shown = str(path) if shown is None else shown
    path = Path(path)
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            raise InputFileError(f"{shown} is a folder, not {_a(kind)}", "is a folder")
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError(f"{shown} is not a regular file (a device or a pipe), not {_a(kind)}",
                                 "is not a regular file (a device or a pipe)")
        if st.st_size > limit:
            raise InputFileError(f"{shown} is {st.st_size} bytes: {_a(kind)} is at most {limit}",
                                 f"is {st.st_size} bytes (at most {limit})")
        with path.open("rb") as f:
            data = _read_upto(f, limit + 1, st.st_size + 1)
    except FileNotFoundError:
        raise InputFileError(f"{shown}: no such {kind}", "does not exist") from None
    except OSError as exc:
        raise InputFileError(f"{shown}: cannot read: {exc.strerror or exc}",
                             f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise InputFileError(f"{shown} is more than {limit} bytes: {_a(kind)} is at most {limit}",
                             f"is more than {limit} bytes")
    return data


def _read_upto(f: io.BufferedIOBase, most: int, first: int) -> bytes:
    """At most ``most`` bytes of ``f``, read ``first`` bytes first, then 64 KiB at a time: a file that
    grows, or reports no size (/proc), stops at ``most``; ``f.read(most)`` would allocate ``most`` bytes
    up front (helper-158: 1 GiB for every photo)."""
    chunks, size, step = [], 0, max(1, min(first, most))
    while size < most and (chunk := f.read(min(step, most - size))):
        chunks.append(chunk)
        size, step = size + len(chunk), 1 << 16
    return b"".join(chunks)


def read_json_object(path: str | os.PathLike[str], kind: str, *, limit: int = DEFAULT_LIMIT,
                     shown: str | None = None) -> dict:
    """The JSON object in the file ``path`` (UTF-8, a byte-order mark allowed), read by :func:`read_input`.

    Raises:
        InputFileError: as :func:`read_input`, or ``"{shown}: not UTF-8 text"``, ``"{shown}: not valid
            JSON (line L column C: ...)"``, ``"{shown} is not a JSON object"``.
    """
    shown = str(path) if shown is None else shown
    data = read_input(path, kind, limit=limit, shown=shown)
    try:
        obj = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise InputFileError(f"{shown}: not UTF-8 text, not {_a(kind)}", "is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InputFileError(f"{shown}: not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})",
                             "is not valid JSON") from None
    if not isinstance(obj, dict):
        raise InputFileError(f"{shown} is not a JSON object ({_a(kind)} is one)", "is not a JSON object")
    return obj


def readable(text: str) -> str:
    """``text`` with each byte that was not UTF-8 in a file name (a lone surrogate U+DC80..U+DCFF, as
    Python decodes it) as U+FFFD, as a terminal shows it, and any other lone surrogate (a JSON "\\ud800")
    too: text that can be written as UTF-8."""
    text = _OTHER_SURROGATES.sub("\ufffd", text)
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


#: Lone surrogates that no file name's byte makes (surrogateescape uses U+DC80..U+DCFF).
_OTHER_SURROGATES = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` as UTF-8 to ``path`` (:func:`write_bytes_atomic`), encoded before the file is touched
    (helper-151: a record truncated to 0 bytes by an encoding error).

    Returns the path written. Raises:
        UnicodeEncodeError: ``text`` holds a lone surrogate; nothing was written.
        OSError: the file cannot be written; the earlier file is left whole.
    """
    return write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` so that its earlier content is never lost half-way (a full disk, a file
    size limit: helper-154): written to a temporary file beside it and moved over it (a link keeps naming
    the file; its permissions stay; folders above it are created). A device such as ``/dev/stdout`` is
    written directly.

    Returns the path written. Raises:
        OSError: the file cannot be written; the earlier file is left whole.
    """
    target = Path(os.path.realpath(path))
    if target.exists() and not target.is_file():
        with target.open("wb") as f:
            f.write(data)
        return Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies, as to a plain write
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if target.exists():
            os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return Path(path)
