"""The ``dominocast`` command line.

Each sub-command lives in its own module (``service/cli_*.py``) as a thin layer over
library functions that the tests call directly; this module only assembles them.

    $ dominocast --help
"""

from __future__ import annotations

import signal
import sys

try:  # these imports take ~0.5 s (OpenCV, numpy): Ctrl-C during them is one line too, not a traceback
    import typer

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


def main() -> None:
    """Console-script entry point.

    Exit status after SIGTERM / SIGHUP: 128 + the signal number (143 / 129), as the shell
    reports a process killed by it; the outputs are those of a Ctrl-C (exit 130).
    """
    _handle_termination_signals()
    try:
        app()
    except KeyboardInterrupt:  # while typer builds the commands, before a command's own handler
        _interrupted()
    except SystemExit as exc:
        if _SIGNALLED and exc.code == 130:
            raise SystemExit(128 + _SIGNALLED[0]) from None
        raise


if __name__ == "__main__":
    main()
