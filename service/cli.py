"""The ``dominocast`` command line.

Each sub-command lives in its own module (``service/cli_*.py``) as a thin layer over
library functions that the tests call directly; this module only assembles them.

    $ dominocast --help
"""

from __future__ import annotations

import codecs
import os
import signal
import sys

try:  # these imports take ~0.5 s (OpenCV, numpy): Ctrl-C during them is one line too, not a traceback
    import typer

    try:  # typer vendors its own click (its exceptions are not click's)
        from typer._click import exceptions as click_errors
    except ImportError:  # pragma: no cover - a typer that uses click itself
        from click import exceptions as click_errors

    from service import cli_datasets, cli_engine, cli_train
    from service import cli_calibrate
    from service import cli_detect
    from service import cli_record
    from service import cli_review
    from service import cli_serve
except KeyboardInterrupt:
    sys.stderr.write("interrupted\n")
    raise SystemExit(130) from None

app = typer.Typer(
    name="dominocast",
    help="Camera table capture, live scoring and game records for dominoes.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

cli_engine.register(app)
cli_datasets.register(app)
cli_train.register(app)
cli_calibrate.register(app)
cli_detect.register(app)
cli_record.register(app)
cli_review.register(app)
cli_serve.register(app)


def _interrupted() -> None:
    sys.stderr.write("interrupted\n")
    raise SystemExit(130)


#: Termination signals received (SIGTERM from ``kill`` / ``timeout`` / a process manager,
#: SIGHUP from a closed terminal).
_SIGNALLED: list[int] = []


def _stop_like_ctrl_c(signum: int, _frame) -> None:
    """SIGTERM / SIGHUP take the commands' Ctrl-C path, which keeps what was recorded (a
    review writes its record and report marked partial); by default they killed the process
    with the earlier outputs already removed and the new ones half written."""
    _SIGNALLED.append(signum)
    raise KeyboardInterrupt


def _handle_termination_signals() -> None:
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)  # no SIGHUP on Windows
        if sig is not None:
            signal.signal(sig, _stop_like_ctrl_c)


class _ReaderGoneStdout:
    """``sys.stdout`` that outlives its reader.

    ``dominocast review clip.mp4 | head -3`` closes the pipe after three events; each write after
    that raised BrokenPipeError, which rich turned into a silent exit 1 and a review into a lost
    record. Output the reader no longer takes goes to the null device instead, and the command
    finishes its work (files written, exit status its own).


    A stream that cannot be written (``> /dev/full``, a full disk: helper-152's traceback) is treated
    the same way, and :attr:`failure` says why, for one error line and exit code 2 at the end.
    """

    def __init__(self, stream) -> None:  # noqa: ANN001 - a text stream
        self._stream = stream
        self.failure: str | None = None

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            self._lost(exc)
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            self._lost(exc)

    def _lost(self, exc: OSError) -> None:
        if not isinstance(exc, BrokenPipeError) and self.failure is None:
            self.failure = exc.strerror or str(exc)
        self._to_null()

    def _to_null(self) -> None:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, self._stream.fileno())  # the stream's pending bytes drain there too
        os.close(null)

    def __getattr__(self, name: str):  # noqa: ANN204 - isatty, fileno, encoding... of the stream
        return getattr(self._stream, name)


def _own_bytes_or_replaced(exc: UnicodeError) -> tuple[bytes, int]:
    """Codec error handler for the output streams: a file name's byte that is not UTF-8 (a lone surrogate
    U+DC80..U+DCFF, as Python decodes it) is written as that byte; any other lone surrogate (a JSON
    "\\ud800" in a player's name: helper-154's traceback after the table) as U+FFFD."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    bad = exc.object[exc.start:exc.end]
    mark = "\ufffd".encode(exc.encoding, "replace")
    return b"".join(bytes([ord(c) - 0xDC00]) if 0xDC80 <= ord(c) <= 0xDCFF else mark for c in bad), exc.end


_OWN_BYTES_OR_REPLACED = "dominocast-own-bytes-or-replaced"
codecs.register_error(_OWN_BYTES_OR_REPLACED, _own_bytes_or_replaced)


def main() -> None:
    """Console-script entry point: :func:`_main`, then one error line and exit code 2 (when the command's
    own was 0) if standard output could not be written (``> /dev/full``: helper-152's traceback)."""
    try:
        _main()
        code = 0
    except SystemExit as exc:
        code = exc.code
    out = sys.stdout
    if isinstance(out, _ReaderGoneStdout):
        out.flush()
        if out.failure is not None:
            sys.stderr.write(f"error: standard output: {out.failure}; what was printed there is incomplete\n")
            code = code or 2
            out.failure = None
    if code:
        raise SystemExit(code)


def _main() -> None:
    """The CLI itself.

    A usage error (unknown option, missing argument, bad value) is one line on stderr, exit 2.
    A reader that stops reading (``| head``) ends nothing early (:class:`_ReaderGoneStdout`).

    Exit status after SIGTERM / SIGHUP: 128 + the signal number (143 / 129), as the shell
    reports a process killed by it; the outputs are those of a Ctrl-C (exit 130).
    """
    _handle_termination_signals()
    for stream in (sys.stdout, sys.stderr):  # a file name not in UTF-8 is printed as its own bytes, not a crash
        if callable(getattr(stream, "reconfigure", None)):  # (helper-145: `wrote mesa\xfe.json` after the work)
            stream.reconfigure(errors=_OWN_BYTES_OR_REPLACED)
    if not isinstance(sys.stdout, _ReaderGoneStdout):  # main() called again in one process (tests)
        sys.stdout = _ReaderGoneStdout(sys.stdout)
    try:  # usage errors come here as exceptions, not as typer's framed box
        _refuse_repeated_options(sys.argv[1:])
        code = app(prog_name="dominocast", standalone_mode=False)
    except click_errors.NoArgsIsHelpError as exc:  # bare `dominocast` or `dominocast datasets`
        help_text = exc.format_message()  # rich's help has printed itself already: this is "" then
        if help_text.strip():
            sys.stderr.write(help_text + "\n")
        raise SystemExit(exc.exit_code) from None
    except click_errors.UsageError as exc:
        raise SystemExit(_usage_error(exc)) from None
    except click_errors.ClickException as exc:
        sys.stderr.write(f"error: {exc.format_message()}\n")
        raise SystemExit(exc.exit_code) from None
    except (KeyboardInterrupt, typer.Abort):  # before a command's own handler
        _interrupted()
    except RecursionError:  # json / yaml on a file of 50 000 nested brackets (helper-66)
        sys.stderr.write("error: an input file is nested too deeply to read\n")
        raise SystemExit(2) from None
    except SystemExit as exc:
        if _SIGNALLED and exc.code == 130:
            raise SystemExit(128 + _SIGNALLED[0]) from None
        raise
    if _SIGNALLED and code == 130:
        raise SystemExit(128 + _SIGNALLED[0])
    if isinstance(code, int) and code:
        raise SystemExit(code)


def _usage_error(exc: click_errors.UsageError) -> int:
    """Write a usage error as one line (the command's --help names the options); returns 2."""
    path = exc.ctx.command_path if exc.ctx is not None else "dominocast"
    if path == "dominocast":  # errors raised while the sub-command parses carry the group's context
        path = _command_path(sys.argv[1:])
    message = _close_options_only(exc, " ".join(exc.format_message().split()).rstrip("."))
    sys.stderr.write(f"error: {message} (see `{path} --help`)\n")
    return 2


def _close_options_only(exc: click_errors.UsageError, message: str) -> str:
    """Drop click's "(Possible options: ...)" when none is like the option typed once its dashes are
    set aside (helper-105: --bogus got "Possible options: --out", alike only in "--")."""
    import difflib

    typed = getattr(exc, "option_name", None)
    possible = getattr(exc, "possibilities", None)
    if not typed or not possible:
        return message
    close = difflib.get_close_matches(typed.lstrip("-"), [p.lstrip("-") for p in possible], cutoff=0.6)
    if close:
        return message
    return message.split(" (Possible options:")[0].split(" (Possible option:")[0]


def _refuse_repeated_options(argv: list[str]) -> None:
    """Raise a usage error for an option that takes a value given twice to one command: click keeps the last
    silently (helper-253: ``calibrate table --points A --points B`` fitted B, exit 0). Options meant to be
    repeated (``multiple``), counters and flags are let be; a line click cannot parse is left to click.

    Raises:
        click UsageError: "Option '--points' is given twice; give it once".
    """
    cmd, rest = typer.main.get_command(app), list(argv)
    while rest and rest[0] in getattr(cmd, "commands", {}):
        cmd = cmd.commands[rest.pop(0)]
    ctx = cmd.context_class(cmd, info_name=cmd.name, resilient_parsing=True)
    _, _, order = cmd.make_parser(ctx).parse_args(args=rest)  # each option once per time given
    seen: set[str] = set()
    for param in order:
        if param.param_type_name != "option" or param.multiple or getattr(param, "count", False) \
                or getattr(param, "is_flag", False):
            continue
        if param.name in seen:
            raise click_errors.UsageError(f"Option '{max(param.opts, key=len)}' is given twice; give it once")
        seen.add(param.name)


def _command_path(argv: list[str]) -> str:
    """``dominocast review`` for ``review x.mp4 --rules``: the leading words that name commands."""
    cmd, words = typer.main.get_command(app), ["dominocast"]
    for word in argv:
        sub = getattr(cmd, "commands", {}).get(word)
        if sub is None:
            break
        cmd, words = sub, words + [word]
    return " ".join(words)


if __name__ == "__main__":
    main()
