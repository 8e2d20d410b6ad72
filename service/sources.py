"""Event sources: what feeds a table's live worker.

A source is an async iterator of :class:`SourceItem` (one engine event each, with where
it goes) plus :meth:`EventSource.stats`. The worker (``service/tables.py``) appends each
item to the table's log and reports the stats as the table status. Kinds today:

* ``scripted``: replays a simulated match or an uploaded script/record, paced by the
  events' ``t`` stamps (or ``interval`` seconds apart), ``speed`` times real time.
* ``manual``: no source at all: events are posted through the API.
* ``vision``: the camera pipeline (``service/vision_source.py``); :func:`open_source`
  uses ``service.vision_source.default_factory`` unless another factory was registered
  with :func:`register_source` (tests inject a recognizer). A missing model file raises
  :class:`WorkerUnavailable`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import AsyncIterator, Callable, Protocol

from engine.events import Correction
from engine.record import event_from_dict
from vision.sources import is_stream_url


class WorkerUnavailable(RuntimeError):
    """A worker kind this build cannot run (yet); the message says what is missing."""


@dataclass
class SourceItem:
    """One event from a source.

    ``new_hand``: True when the event opens the next hand; None lets the service decide
    (the next hand once the current one is over). ``hand``: an explicit hand (corrections).
    ``tag``: the source's own reference, stored with the event (the scripted source uses
    it to resume where it stopped). ``event`` None is a heartbeat: the source is alive.
    ``alert``: a notice for the umpire (``kind``, ``message``, optional ``frame``, ``t``,
    ``tile``, ``seat``, ...): the worker raises it as an alert (category ``vision``).
    ``ref``: the source's own bookkeeping, handed back to it by ``acknowledge`` (not stored).
    """

    event: object | None
    new_hand: bool | None = None
    hand: int | None = None
    tag: str = ""
    alert: dict | None = None
    ref: object = None


def relative_note(spec: str) -> str:
    """Where the service looked for a relative path that is not there, as a note to an error message; ""
    for anything else (helper-118: a table registered from another folder said only "no such profile file";
    helper-174: a rule-set file too). Shared by the video source, the calibration and the rules."""
    text = str(spec).strip()
    if not text or text.isdigit() or is_stream_url(text) or Path(text).expanduser().is_absolute() or Path(text).exists():
        return ""
    return f" (a relative path is read from the service's folder, {Path.cwd()})"


@dataclass
class SourceStats:
    """What the table status shows about its source."""

    #: whether the source delivers: None while it is starting (no frame read yet), False while a camera's
    #: frames have stopped (the overlay: "starting" / "camera signal lost")
    connected: bool | None = False
    fps: float | None = None  # frames per second (camera sources); None for scripted/manual
    last_read: float | None = None  # epoch seconds of the last item
    position: int = 0
    total: int | None = None
    #: a recording (a video file, a photo folder) was read to its end: what it still sends is its last
    #: events, not a lost signal (helper-174: the overlay said "camera signal lost" there)
    ended: bool = False


class EventSource(Protocol):
    """The interface a table worker reads (the vision pipeline implements it later)."""

    kind: str

    def __aiter__(self) -> AsyncIterator[SourceItem]: ...

    def stats(self) -> SourceStats: ...

    def acknowledge(self, item: SourceItem, hand: int, index: int) -> None:
        """Told where the service put an item (match hand, slot in its log)."""

    async def aclose(self) -> None: ...


@dataclass
class ScriptedSource:
    """Replays hand logs (lists of event dicts) from script position ``start`` on.

    ``done`` maps script positions already fed to their (match hand, slot), so the
    script's own corrections are pointed at the right slots even when the umpire's
    events sit in between.
    """

    script: list[list[dict]]
    start: int = 0
    done: dict[int, tuple[int, int]] = field(default_factory=dict)
    speed: float = 1.0
    interval: float = 2.0
    kind: str = "scripted"

    def __post_init__(self) -> None:
        self.items: list[tuple[int, int, object]] = []
        self.offsets: list[int] = []
        for k, hand in enumerate(self.script):
            self.offsets.append(len(self.items))
            self.items += [(k, j, event_from_dict(e)) for j, e in enumerate(hand)]
        self._stats = SourceStats(connected=False, position=self.start, total=len(self.items))

    def stats(self) -> SourceStats:
        return self._stats

    def acknowledge(self, item: SourceItem, hand: int, index: int) -> None:
        self.done[int(item.tag.split(":")[1])] = (hand, index)

    async def aclose(self) -> None:
        self._stats.connected = False

    async def __aiter__(self) -> AsyncIterator[SourceItem]:
        self._stats.connected = True
        prev_t = None
        for p in range(self.start, len(self.items)):
            k, j, ev = self.items[p]
            t = getattr(ev, "t", None)
            gap = (t - prev_t) if (t is not None and prev_t is not None) else self.interval
            prev_t = t if t is not None else prev_t
            await asyncio.sleep(max(0.0, gap) / max(self.speed, 1e-6))
            hand = None
            if isinstance(ev, Correction):
                target = self.done.get(self.offsets[k] + ev.replaces)
                if target is not None:
                    hand, slot = target
                    ev = ev.model_copy(update={"replaces": slot})
            self._stats.position, self._stats.last_read = p + 1, time.time()
            yield SourceItem(ev, new_hand=(j == 0) if hand is None else None, hand=hand, tag=f"script:{p}")
        self._stats.connected = False


SourceFactory = Callable[[dict], EventSource]
_FACTORIES: dict[str, SourceFactory] = {}


def register_source(kind: str, factory: SourceFactory) -> None:
    """Make worker kind ``kind`` available: ``factory(table_info)`` returns its :class:`EventSource`.

    ``table_info`` has the table's ``id``, ``video_source``, ``calibration``, ``rules``
    (preset name or file, as registered), ``ruleset`` (the parameters stored at registration: the
    rules in force), ``players`` and ``worker_config``.
    """
    _FACTORIES[kind] = factory


def open_source(kind: str, table_info: dict) -> EventSource:
    """The source of a registered kind.

    Raises:
        WorkerUnavailable: no source registered for ``kind``; for ``vision``: a model file is missing.
    """
    factory = _FACTORIES.get(kind)
    if factory is None and kind == "vision":
        from service.vision_source import default_factory  # the camera pipeline (models checked at start)

        factory = default_factory
    if factory is None:
        raise WorkerUnavailable(f"no event source for worker kind {kind!r}")
    return factory(table_info)
