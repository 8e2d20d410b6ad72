"""Shared CLI plumbing: one-line errors with exit code 2, no traceback."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from service.report import REVIEW_PAGE, plural  # noqa: F401  (plural re-exported for the CLI modules)

# Piped or redirected output is read by programs and logs: rich would wrap it at 80 columns and
# split numbers across lines, so it gets a wide line unless COLUMNS says otherwise.
_PIPED_WIDTH = None if os.environ.get("COLUMNS") else 200
console = Console(width=None if sys.stdout.isatty() else _PIPED_WIDTH)
err_console = Console(stderr=True, width=None if sys.stderr.isatty() else _PIPED_WIDTH)


def one_line(text: str) -> str:
    """``text`` with its line breaks written as ``\\n`` / ``\\r``: an error stays one line when a name in
    it holds one (helper-151: --rules $'x\\ny.toml')."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def fail(message: str) -> "typer.Exit":
    """Print ``error: message`` on stderr, on one line (:func:`one_line`), and return an Exit(2) to raise."""
    err_console.print(f"[bold red]error:[/] {escape(one_line(message))}", highlight=False, soft_wrap=True)
    return typer.Exit(code=2)


def make_folder(option: str, path: Path) -> None:
    """Create the output folder ``path`` given with ``option``, or fail in one line (exit code 2):
    a file of that name, a parent that is a file, a folder that cannot be created or written in."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise fail(f"{option} {path} is {'a file' if path.is_file() else 'a device or a pipe'}, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fail(f"{option} {path}: cannot create the folder ({exc.strerror or exc})") from None
    check_writable(option, path)


def check_out_file(option: str, path: Path, example: str) -> None:
    """Fail with one line (exit 2; call it before the work) when ``path`` cannot be an output file:
    a folder, or under a file; missing folders above it are fine (the writer creates them).
    ``example`` is a file name suggested inside a folder given by mistake."""
    if path.is_dir():
        raise fail(f"{option} {path} is a folder, not a file (give a file name, e.g. {path / example})")
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if parent.exists() and not parent.is_dir():
        raise fail(f"{option} {path}: {parent} is a file, not a folder")
    check_writable(option, path, parent)


def check_writable(option: str, path: Path, folder: Path | None = None) -> None:
    """Fail with one line (exit 2) unless a file can be made in ``folder`` (default: ``path``, or the
    nearest folder above it that exists): said before the work, not as a traceback after it
    (helper-66: /proc/x/y.json; helper-144: a review into a read-only mount)."""
    if folder is None:
        folder = Path(path)
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise fail(f"{option} {path}: cannot write in {folder} ({exc.strerror or exc})") from None


#: What an earlier output of each kind starts with (its first 4 KiB): ``check_replaceable``.
#: First bytes of the picture files OpenCV writes: PNG, JPEG, BMP, TIFF (both byte orders), PPM/PGM/PBM,
#: JPEG 2000 (WebP: "RIFF", a size, "WEBP").
IMAGE_SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"BM", b"II*\x00", b"MM\x00*", b"\x00\x00\x00\x0cjP  ",
                    *(f"P{d}{ws}".encode() for d in "123456" for ws in " \t\r\n"))
OUTPUT_KINDS = {
    # one of ours (helper-90: any HTML page was written over): the generator its head names
    # (helper-121: any page, script or notes merely quoting our markers was written over)
    "a report page": lambda head: head.lstrip().lower().startswith((b"<!doctype html", b"<html"))
    and b"<meta name='generator' content='dominocast " in head,
    # JSON and notation apart: a notation written over a JSON record (or back) loses what only it held
    "a dominocast JSON record": lambda head: head.lstrip().startswith(b"{")
    and re.search(rb'^\s*\{\s*"format"\s*:\s*"dominocast-record"', head) is not None,
    # a notation opens with its tags: [Format "dominocast-record 1"] (older ones: [Rules "..."])
    "a dominocast notation": lambda head: head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(
        (b'[Format "dominocast-record', b'[Rules "')),
    "a tile list of `detect`": lambda head: head.lstrip().startswith(b"[]") or head.lstrip().startswith(b"[") and any(
        m in head for m in (b'"polygon"', b'"image"', b'"tiles"')),
    "a calibration profile": lambda head: b'"image_size"' in head,
    # helper-113: notes saved as .png were replaced; only a picture may be (what it shows does not matter)
    "a picture": lambda head: head.startswith(IMAGE_SIGNATURES) or head[:4] == b"RIFF" and head[8:12] == b"WEBP",
}


def is_review_page(path: Path) -> bool:
    """Whether ``path`` is a review's report page, which links its snapshots (``service.report.REVIEW_PAGE``;
    one written before pages named their generator: by its title, "Review of ...")."""
    try:
        if not path.is_file():  # a FIFO is not opened: that waited for a writer (helper-154)
            return False
        with path.open("rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return f"content='{REVIEW_PAGE}'".encode() in head or (
        b"<meta name='generator'" not in head and head.lstrip().lower().startswith(b"<!doctype html")
        and b"<title>Review of " in head)


def check_replaceable(option: str, path: Path | None, kind: str) -> None:
    """Fail in one line (exit 2; call it before the work) when ``path`` is an existing, non-empty file
    that is not an earlier output of ``kind`` (a key of :data:`OUTPUT_KINDS`): a video or a ground truth
    given by mistake would be replaced (helper-74: a 5.7 MB video became a 5 KB page)."""
    if path is None:
        return
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return
        with path.open("rb") as f:
            head = f.read(4096)
    except OSError:
        return  # unreadable: the write says why
    if not OUTPUT_KINDS[kind](head):
        raise fail(f"{option} {path} exists and is not {kind}: it would be overwritten; choose another file "
                   "(or remove it first)")


def _file_key(path: Path) -> tuple:
    """What makes two paths one file: device and inode when it exists (links, hard links too), else
    the resolved path."""
    try:
        st = path.stat()
        return ("inode", st.st_dev, st.st_ino)
    except OSError:
        return ("path", path.resolve())


def check_distinct_outputs(outputs: list[tuple[str, Path | None]], inputs: list[tuple[str, Path | None]]) -> None:
    """Fail in one line (exit 2; call it before the work) when an output file (``(option, path)``,
    None: not given) is one of the inputs (``(what, path)``; links and hard links followed) or
    another output: the input would be overwritten, or one output written over the other."""
    ins = {_file_key(Path(p)): what for what, p in inputs if p is not None and Path(p).is_file()}
    seen: dict[tuple, str] = {}
    for opt, p in outputs:
        if p is None:
            continue
        key = _file_key(Path(p))
        if key in ins:
            raise fail(f"{opt} {p} is {ins[key]}: it would be overwritten; choose another file")
        if key in seen:
            raise fail(f"{opt} and {seen[key]} name the same file {p}: one would be written over the other")
        seen[key] = opt


def check_sets(sets: int, rules: str | None = None) -> None:
    """``--sets`` within 1..:data:`vision.set_constraint.MAX_SETS`, and 1 with a rule preset (``rules``, the
    ``--rules`` given; None or ``none``: placements only), else fail in one line (exit 2)."""
    from vision.set_constraint import MAX_SETS

    if not 1 <= sets <= MAX_SETS:
        raise fail(f"--sets must be 1-{MAX_SETS} (complete tile sets on the table), got {sets}")
    if sets > 1 and rules not in (None, "none"):  # helper-125: each second copy played was "rejected"
        raise fail(f"--sets {sets} with --rules {rules}: the rules engine plays one set (each tile once), so a "
                   "second copy of a tile would be rejected as an illegal play, and no rule preset plays with "
                   f"several sets; --rules none records placements with several sets, and `dominocast detect "
                   f"--sets {sets}` reads pictures")


def check_positive(option: str, value: float | None, unit: str = "") -> None:
    """A finite number > 0 for ``option`` (None: not given), else fail in one line (exit 2);
    ``unit`` (e.g. "seconds") is named in the message."""
    import math

    if value is not None and not (math.isfinite(value) and value > 0):
        finite = "" if math.isfinite(value) else "finite "  # "a number > 0, got inf" reads as if inf were fine
        raise fail(f"{option} must be a {finite}number{' of ' + unit if unit else ''} > 0, got {value}")


#: Largest seed the generator takes anywhere (numpy's SeedSequence takes any size; torch and
#: ultralytics callers pass their own, smaller limit).
MAX_SEED = 2**64 - 1


#: Most rendered scenes of one build (a million 720p scenes are ~150 GB of windows and halves); the
#: job list is made before rendering starts (helper-149: 10**10 scenes ate 3.5 GB in 16 s, then MemoryError).
MAX_SCENES = 1_000_000
#: Processes per CPU core a build or a trainer may start: rendering is CPU-bound, and hundreds of
#: workers hung a Ctrl-C and left orphans (helper-149: --workers 300 and 100000).
WORKERS_PER_CORE = 2


def check_scenes(scenes: int, low: int = 1, why: str = "") -> None:
    """``--scenes`` within ``low``..:data:`MAX_SCENES`, else fail in one line (exit 2)."""
    if not low <= scenes <= MAX_SCENES:
        raise fail(f"--scenes must be {low}-{MAX_SCENES}{why}, got {scenes}")


def check_workers(workers: int, option: str = "--workers") -> None:
    """1 .. :data:`WORKERS_PER_CORE` x this machine's cores processes, else fail in one line (exit 2)."""
    top = WORKERS_PER_CORE * (os.cpu_count() or 1)
    if not 1 <= workers <= top:
        raise fail(f"{option} must be 1-{top} ({WORKERS_PER_CORE} per CPU core of this machine), got {workers}")


#: Why a name must be UTF-8 text, for most outputs: OpenCV's video writer crashed the process on a name
#: with other bytes and ultralytics' data.yaml could not be written (helper-149).
OPENCV_WHY = "OpenCV and ultralytics cannot write there"


def check_utf8(option: str, text: str | Path, why: str = OPENCV_WHY) -> None:
    """A path or name that is UTF-8 text, else fail in one line (exit 2) saying ``why`` it must be."""
    try:
        str(text).encode("utf-8")
    except UnicodeEncodeError:
        raise fail(f"{option} {text!r} is not UTF-8 text: {why}; choose a name in UTF-8") from None


def folder_option(option: str, text: str, why: str = OPENCV_WHY) -> Path:
    """An output folder typed as text: refused when empty (``--out ""`` wrote into the current folder,
    helper-149: a Path option reads it as ".") or not UTF-8 (:func:`check_utf8`, ``why``)."""
    if not text.strip():
        raise fail(f"{option} is empty: give a folder (. for the current one)")
    check_utf8(option, text, why)
    return Path(text)


def path_parser(text: str) -> Path:
    """Typer ``parser=`` for a file or folder argument or option: an empty name is refused, one line, exit 2
    (``Path("")`` is ".", the current folder: helper-151, `review ""` reviewed it and `detect ""` said
    ". is a directory")."""
    if not text.strip():
        raise typer.BadParameter("is empty: give a name (. is the current folder)")
    return Path(text)


path_parser.__name__ = "path"  # what --help shows as the type, "<path>", as for any other Path parameter


def first_missing(path: Path) -> Path | None:
    """The topmost folder of ``path`` (itself included) that does not exist yet, or None when it exists:
    what a command that makes ``path`` must remove again if it is interrupted."""
    path, top = Path(path), None
    while not path.exists():
        top = path
        if path.parent == path:
            break
        path = path.parent
    return top


def undo_partial(out: Path, parts: tuple[str, ...], made: Path | None) -> str:
    """Remove the ``parts`` (files or folders) an unfinished build wrote into ``out``, and the folders made
    for it (``made``: :func:`first_missing` before the build) once empty, so that the same command can
    build there again (helper-150: Ctrl-C in ``train`` left a half-built folder that the next run refused;
    an interrupted ``--out n1/n2/n3`` left n1/n2). Returns what ``out`` holds now, for the message."""
    import shutil

    out = Path(out)
    for part in parts:
        p = out / part
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        elif p.exists() or p.is_symlink():
            p.unlink()
    if made is not None:
        folder = out
        while folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            if folder == made or folder.parent == folder:
                break
            folder = folder.parent
    return f"{out} was not made" if not out.exists() else f"{out} holds what it held before"


def check_seed(seed: int, top: int = MAX_SEED) -> None:
    """``--seed`` within 0..``top``, else fail in one line (exit 2): the dataset generator takes no
    negative seed (numpy's SeedSequence only says "expected non-negative integer")."""
    if not 0 <= seed <= top:
        raise fail(f"--seed must be 0-{top}, got {seed}")
