"""``dominocast record``: read game records (JSON or text notation); see docs/record-format.md."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from engine.record import MatchRecord, RecordError, from_json, rederive, to_json
from engine.record_text import read_text, write_text
from service.cli_common import fail

record_app = typer.Typer(help="Game records: the JSON record and the text notation.", no_args_is_help=True)


#: JSON text: an object, or an array (``[]``, ``[{...``; a JSON record is an object, and from_json says
#: so); a notation file opens with tags such as ``[Event "..."]``.
_JSON_START = re.compile(r"\s*(\{|\[\s*(\{|\]|$))")


def load_record(path: Path) -> MatchRecord:
    """Read a JSON record (text starting with ``{``) or a text notation file.

    Raises:
        RecordError: unreadable file, or a record that does not read (the message names the file).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return from_json(text) if _JSON_START.match(text) else read_text(text)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None


def write_outputs(record: MatchRecord, json_path: Path | None, text_path: Path | None) -> None:
    """Write the record as JSON and/or as text notation (missing folders above a file are created).

    Raises:
        RecordError: a file that cannot be written (the message names it).
    """
    for path, render in ((json_path, to_json), (text_path, write_text)):
        if path is None:
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render(record), encoding="utf-8")
        except OSError as exc:
            raise RecordError(f"{path}: cannot write: {exc.strerror or exc}") from None


@record_app.command("show")
def show(
    file: Path = typer.Argument(..., help="a JSON record or a text notation file"),
    as_json: bool = typer.Option(False, "--json", help="print the JSON record instead of the notation"),
) -> None:
    """Print a record (JSON or text notation) as text notation, its scores recomputed from the logs."""
    try:
        record = rederive(load_record(file))
    except (RecordError, ValueError) as exc:  # ValueError: a log the engine cannot replay
        raise fail(str(exc) if str(file) in str(exc) else f"{file}: {exc}")
    print(to_json(record) if as_json else write_text(record), end="")


def register(app: typer.Typer) -> None:
    """Add the ``record`` sub-command group to the main CLI."""
    app.add_typer(record_app, name="record")
