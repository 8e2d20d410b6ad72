"""Shared CLI plumbing: one-line errors with exit code 2, no traceback."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape

from service.report import plural  # noqa: F401  (re-exported for the CLI modules)

console = Console()
err_console = Console(stderr=True)


def fail(message: str) -> "typer.Exit":
    """Print ``error: message`` on stderr and return an Exit(2) to raise."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code=2)
