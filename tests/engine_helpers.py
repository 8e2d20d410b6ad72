"""Small helpers for the engine tests: notation lines to events, points and flag kinds of a state."""

from __future__ import annotations

from engine.notation import parse_event


def ev(*lines: str) -> list:
    """Events from notation lines."""
    return [parse_event(line) for line in lines]


def pts(st) -> list[dict]:
    """Points of each event, in order (sides that scored nothing left out)."""
    return [o.points for o in st.outcomes]


def kinds(st) -> list[str]:
    """Kinds of the flags raised, in order."""
    return [f.kind for f in st.flags]
