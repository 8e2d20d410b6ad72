"""Plays the camera recorded late: a tile it saw off the line of play (held unplaced, e.g. laid against a play the
umpire voided) and sent as a play only after events it read later. :func:`read_after` finds those events
(``service.tables._place_held`` moves the play above them, or raises a ``recorded_late`` alert for the umpire);
:func:`late_moot` says when such an alert no longer holds, so that it closes itself as a flag does once a
correction makes it moot (``TableRuntime._sync_late``)."""

from __future__ import annotations

from engine.events import Draw, Pass, Play, effective


def read_after(log: list, slot: int, frame: int) -> list[tuple[int, object]]:
    """The events in force of a hand's ``log`` (corrections included) recorded right before slot ``slot`` that
    the camera read after ``frame``: (slot, event) in log order, the run ending above at the lead, at an event
    other than a play, pass or draw, or at one without a frame or read at or before ``frame``."""
    in_force = effective(log)
    lead = next((i for i, ev in in_force if isinstance(ev, Play)), None)
    later: list[tuple[int, object]] = []
    for i, ev in reversed([(i, ev) for i, ev in in_force if i < slot]):
        if not isinstance(ev, (Play, Pass, Draw)) or ev.frame is None or ev.frame <= frame or i == lead:
            break
        later.insert(0, (i, ev))
    return later


def late_moot(log: list, tile: list[int], frame: int) -> str:
    """Why a ``recorded_late`` alert about ``tile`` ([a, b], either way round), seen off the line at ``frame``,
    no longer holds in the hand's ``log``: its play is voided or corrected to another tile, or no event recorded
    right before it was read after ``frame`` (moved up, or those events voided); ``""`` while it still holds."""
    key = sorted(tile)
    slot = next((i for i, ev in effective(log) if isinstance(ev, Play) and sorted((ev.tile.a, ev.tile.b)) == key),
                None)
    name = "-".join(str(n) for n in tile)
    if slot is None:
        return f"{name} is no longer played in this hand: nothing is recorded late"
    if not read_after(log, slot, frame):
        return f"{name} (#{slot}) is no longer recorded after an event read later"
    return ""
