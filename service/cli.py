"""The ``dominocast`` command line.

Each sub-command lives in its own module (``service/cli_*.py``) as a thin layer over
library functions that the tests call directly; this module only assembles them.

    $ dominocast --help
"""

from __future__ import annotations

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


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:  # while typer builds the commands, before a command's own handler
        _interrupted()


if __name__ == "__main__":
    main()
