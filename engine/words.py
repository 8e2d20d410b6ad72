"""Counts in words for the messages people read (flags, notes, summaries)."""

from __future__ import annotations

__all__ = ["plural"]


def plural(n: int, noun: str, plural_noun: str | None = None) -> str:
    """``"1 tile"``, ``"2 tiles"``, ``plural(1, "pip")``: ``"1 pip"``: a count with its noun in the right number."""
    return f"{n} {noun if n == 1 else plural_noun or noun + 's'}"
