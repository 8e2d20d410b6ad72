"""``dominocast serve``: the live tournament service (FastAPI + uvicorn)."""

from __future__ import annotations

import errno
from pathlib import Path

import typer

from engine.files import InputFileError, read_json_object
from service.cli_common import console, err_console, fail, folder_option, make_folder


#: Fewest characters of a ``--token`` (a generated one has 32).
MIN_TOKEN = 8


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="address to listen on (0.0.0.0: the whole venue network)"),
    port: int = typer.Option(8000, "--port", help="TCP port"),
    db: str = typer.Option(None, "--db", help="database URL (default: SQLite in WAL mode under --data-dir; "
                                              "postgresql+psycopg://user:pass@host/db works too)"),
    data_dir_text: str = typer.Option("data/service", "--data-dir", help="folder for the database and the token"),
    token: str = typer.Option(None, "--token", envvar="DOMINOCAST_TOKEN", show_envvar=True,
                              help="bearer token for umpire/admin actions (default: generated once, kept in the data dir)"),
) -> None:
    """Serve the tables, feeds, overlay, umpire console and review pages."""
    from service.app import create_app
    from service.server import serve as serve_app
    from service.settings import Settings

    # helper-150: "" served from the current folder
    data_dir = folder_option("--data-dir", data_dir_text, "the database's URL names it")
    if db is not None and not db.strip():  # helper-154: "" served from the default database unsaid
        raise fail("--db is empty: give a database URL (e.g. sqlite:///venue.db), or leave it out for the "
                   "default under --data-dir")
    if not 1 <= port <= 65535:
        raise fail(f"--port must be 1-65535, got {port}")
    if token is not None and len(token.strip()) < MIN_TOKEN:
        raise fail(f"--token (or $DOMINOCAST_TOKEN) must be at least {MIN_TOKEN} characters (a short one anyone at "
                   "the venue could guess lets them correct the record); leave it out to have one generated")
    kept = data_dir / "token"
    if token is None and kept.is_file() and len(_kept_token(kept)) < MIN_TOKEN:
        raise fail(f"the token kept in {kept} is shorter than {MIN_TOKEN} characters (anyone at the venue could guess "
                   "it): delete the file to have one generated, or write a longer one there")
    if (data_dir / "serve.lock").is_file():  # the usual clash, this data dir's service on this port: name it
        _hold_data_dir(data_dir, None, port).release()
    _check_listen(host, port)
    made = [p for p in (data_dir, *data_dir.parents) if not p.exists()]  # folders this start makes
    make_folder("--data-dir", data_dir)
    lock = _hold_data_dir(data_dir, host, port)  # noqa: F841 - held (flock) until the process ends
    try:
        db_lock = _hold_database(db, data_dir, host, port)  # held as the data dir's lock
    except typer.Exit:
        _let_go(lock, data_dir, made)
        raise
    try:
        same_file = _hold_database_file(db_lock)  # its other names (hard links); None until the file exists
    except typer.Exit:
        _let_go(lock, data_dir, made, db_lock)
        raise
    token_file = data_dir / "token"
    had_token = token_file.exists()
    try:
        app = create_app(Settings(data_dir=data_dir, db_url=db, token=token))
    except KeyboardInterrupt:  # a token written just now is still shown: it is printed only once
        if not had_token and token_file.exists():
            _print_token(token_file, _kept_token(token_file))
        if same_file is not None:
            same_file.close()
        err_console.print("interrupted", highlight=False)  # on stderr, as the other commands say it
        raise typer.Exit(code=130) from None
    except Exception as exc:  # noqa: BLE001 - a bad URL or an unreadable data dir: one line
        if not had_token and token_file.exists():  # made for a service that never ran: the next start prints its own
            token_file.unlink()
        _let_go(lock, data_dir, made, db_lock, same_file)
        why = str(getattr(exc, "orig", None) or exc).splitlines()[0]  # SQLAlchemy adds a "Background on..." line
        raise fail(f"cannot start the service: {why}") from None
    if same_file is None and db_lock is not None:  # create_app made the file just now
        same_file = _hold_database_file(db_lock)
    if app.state.token_generated:
        _print_token(token_file, app.state.token)
    console.print(f"dominocast service on http://{_url_host(host)}:{port}/  (docs at /docs)", highlight=False)
    # service.server closes the open feeds at shutdown; the timeout is for any other slow request
    try:
        serve_app(app, host=host, port=port, log_level="info", timeout_graceful_shutdown=5)
    finally:
        _forget_holder(data_dir / "serve.json")
        if db_lock is not None:
            _forget_holder(_note_of(db_lock))
        if same_file is not None:
            same_file.close()


def _kept_token(path: Path) -> str:
    """The token kept at ``path`` (:func:`service.auth.read_token`); the CLI's one-line error when it
    cannot be read."""
    from service.auth import read_token  # FastAPI's import waits until `serve` runs

    try:
        return read_token(path)
    except InputFileError as exc:
        raise fail(str(exc)) from None


def _hold_data_dir(data_dir: Path, host: str | None, port: int):
    """Lock ``data_dir`` for this service (``DIR/serve.lock``, released by the OS when the process
    ends, even on kill -9) and note who holds it in ``DIR/serve.json`` (``host`` None: only check
    that no other service holds it; the caller releases the lock at once and nothing is noted).

    Two services on one data dir would both restart the live tables' workers and write the same
    event slots (a UNIQUE error on the second). Raises the CLI's one-line error when another
    ``dominocast serve`` holds it.
    """
    from filelock import FileLock, Timeout

    lock = FileLock(data_dir / "serve.lock")
    holder = data_dir / "serve.json"
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise fail(f"--data-dir {data_dir} is in use by another dominocast serve{_held_by(holder)}: "
                   "stop it first, or pick another --data-dir") from None
    if host is not None:
        _note_holder(holder, host, port)
    return lock


def _held_by(note: Path) -> str:
    """`` (pid 123, http://127.0.0.1:8000/)``: who holds a lock, from the note its holder wrote beside it; ""
    when there is none, it cannot be read, or it names a process that no longer runs (a dead pid's note is
    stale, the holder has not written its own yet: naming it would mislead)."""
    try:
        who = read_json_object(note, "service note", limit=4096)
        return f" (pid {who['pid']}, http://{who['host']}:{who['port']}/)" if _running(who["pid"]) else ""
    except (InputFileError, KeyError):
        return ""


def _note_holder(note: Path, host: str, port: int) -> None:
    """Write who holds the lock beside it (this process: pid and address), for a second service's refusal."""
    import json
    import os

    note.write_text(json.dumps({"pid": os.getpid(), "host": _url_host(host), "port": port}), encoding="utf-8")


def _running(pid: object) -> bool:
    """Whether a process ``pid`` runs on this machine (signal 0 checks without sending anything)."""
    import os

    if not isinstance(pid, int) or isinstance(pid, bool) or not 0 < pid < 2**31:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _forget_holder(holder: Path) -> None:
    """At a clean stop, remove a holder's note (``DIR/serve.json``, ``FILE.serve.json``) while it still names
    this process, so no note names a dead pid (helper-165). A note another process wrote meanwhile (after
    deleting our lock) is theirs and stays; the lock file stays too: it names no one, and the OS lets go of it
    with the process."""
    import os

    try:
        ours = read_json_object(holder, "service note", limit=4096).get("pid") == os.getpid()
    except InputFileError:
        return
    if ours:
        holder.unlink(missing_ok=True)


def _sqlite_file(database: str | None, query) -> str | None:  # noqa: ANN001 - the URL's query mapping
    """The file an SQLite URL's database names. With ``?uri=true`` it is an SQLite URI
    (``file:/path/x.db?mode=rwc``, https://www.sqlite.org/uri.html): the path is the part after
    ``file:`` (and an empty or ``localhost`` authority) up to its own query; ``mode=memory`` is no file.
    helper-143: the URI spelling of another service's database took no lock and both wrote it."""
    from urllib.parse import parse_qs, unquote, urlsplit

    if not database or str(query.get("uri", "")).lower() not in ("true", "1") or not database.startswith("file:"):
        return database
    parts = urlsplit(database)
    memory = "memory" in (str(query.get("mode", "")), *parse_qs(parts.query).get("mode", []))
    if memory or parts.netloc not in ("", "localhost"):
        return None
    return unquote(parts.path) or None


def _hold_database(db: str | None, data_dir: Path, host: str, port: int):  # noqa: ANN202 - a FileLock or None
    """Lock the service's SQLite file (``--db``, else ``data_dir/dominocast.db``; ``FILE.serve.lock``
    beside it), as the data dir is locked: two services writing one database write the same event slots
    (helper-109: a second service on another data dir shared the first's file; helper-118: one named by
    ``--db`` shared another data dir's own). Other databases are not locked here. Who holds it is noted in
    ``FILE.serve.json``, as ``serve.json`` notes the data dir's holder.

    Raises the CLI's one-line error when another ``dominocast serve`` holds it, naming its pid and address
    (helper-174: the data dir's refusal named them, the database's did not)."""
    from filelock import FileLock, Timeout
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(db) if db else None
    except ArgumentError:
        return None  # create_app says what is wrong with the URL
    name = str(data_dir / "dominocast.db") if url is None else (
        _sqlite_file(url.database, url.query) if url.get_backend_name() == "sqlite" else None)
    if not name or name == ":memory:":
        return None
    path = Path(name).resolve()
    if not path.parent.is_dir():
        return None  # a folder that does not exist: create_app says so
    lock = FileLock(path.parent / f"{path.name}.serve.lock")
    try:
        lock.acquire(timeout=0)
    except Timeout:
        what = f"--db {path}" if db else f"its database {path}"
        raise fail(f"{what} is in use by another dominocast serve{_held_by(_note_of(lock))}: stop it first, or use "
                   "another database") from None
    _note_holder(_note_of(lock), host, port)
    return lock


def _hold_database_file(db_lock):  # noqa: ANN001, ANN202 - a FileLock or None; an open file or None
    """Lock the database file itself (an exclusive ``flock`` on a read-only descriptor) once it exists: its
    other names, hard links that ``FILE.serve.lock`` beside each name cannot see, meet here (a second service
    on a hard link of the first's file wrote the same event slots). None when there is no file yet (it is
    taken once ``create_app`` made it) or no ``db_lock`` (not a local SQLite file). The descriptor stays
    open while the service runs: ``flock`` and SQLite's own POSIX locks do not interact on Linux, but
    closing a descriptor of the file drops the process's POSIX locks on it, so it is closed only at the stop.

    Raises the CLI's one-line error when another ``dominocast serve`` holds the file under another name."""
    import fcntl

    if db_lock is None:
        return None
    path = Path(str(db_lock.lock_file).removesuffix(".serve.lock"))
    try:
        held = path.open("rb")
    except OSError:
        return None  # no file yet, or not a file this user can open: create_app says so
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        held.close()
        raise fail(f"--db {path} is in use by another dominocast serve under another name (a hard link of the "
                   "same file): stop it first, or use another database") from None
    return held


def _note_of(db_lock) -> Path:  # noqa: ANN001 - a FileLock
    """The holder's note beside a database's lock: ``FILE.serve.json`` for ``FILE.serve.lock``."""
    return Path(db_lock.lock_file).with_suffix(".json")


def _let_go(lock, data_dir: Path, made: list[Path], db_lock=None, same_file=None) -> None:  # noqa: ANN001
    """A service that never ran leaves nothing behind: its locks and holder note go, and the
    folders this start made (``made``, innermost first) while they are empty."""
    lock.release()
    if same_file is not None:
        same_file.close()
    for name in ("serve.json", "serve.lock"):
        (data_dir / name).unlink(missing_ok=True)
    if db_lock is not None:
        _forget_holder(_note_of(db_lock))
        db_lock.release()
        if Path(db_lock.lock_file).parent.resolve() == data_dir.resolve():
            Path(db_lock.lock_file).unlink(missing_ok=True)
    for folder in made:
        try:
            folder.rmdir()
        except OSError:
            return  # not empty (a database file the failed start made stays for the user to see)


def _check_listen(host: str, port: int) -> None:
    """Fail in one line when ``host:port`` cannot be listened on (port in use, unknown address),
    before a token is printed or the database is touched."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise fail(f"--host {host}: unknown address ({exc.strerror or exc})") from None
    family, kind, proto, _, addr = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn: a port in TIME_WAIT is free
        try:
            s.bind(addr)
        except OSError as exc:
            hint = ("is --host an address of this machine?" if exc.errno == errno.EADDRNOTAVAIL
                    else "is another program using it? pick another --port")
            raise fail(f"cannot listen on {_url_host(host)}:{port}: {exc.strerror or exc} ({hint})") from None


def _print_token(path: Path, token: str) -> None:
    console.print(f"[bold]umpire/admin token[/] (printed once, kept in {path}): {token}", highlight=False,
                  soft_wrap=True)


def _url_host(host: str) -> str:
    """``host`` as it goes in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
