"""Pub/sub for the live feeds: every message has an id (its row in ``messages``) and a channel.

A message is published only after it was committed, so a client that reconnects with
the last id it saw reads the rest from the database (:func:`backlog`) and then the live
queue, skipping ids it already has: no message is missed or sent twice.

Channels: ``events`` (engine events with the table state after each, worker status,
new matches, hand confirmations) and ``alerts`` (the umpire's queue).

The service ends feeds itself when their table is deleted (:meth:`Broker.close`) and at
shutdown (:meth:`Broker.close_all`): a feed never ends on its own, and one left open would
get a new table's messages under the same id, or hold the shutdown up until it is cancelled.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from service.models import MessageRow

CHANNELS = ("events", "alerts")


def message_dict(row: MessageRow) -> dict:
    """The wire form of a message: id, channel, kind, time and its payload under ``data``."""
    return {"id": row.id, "channel": row.channel, "kind": row.kind, "table": row.table_id,
            "time": row.created_at, "data": row.data}


@dataclass(eq=False)
class Subscription:
    """One connected client's queue (filled from any thread, read on its own event loop)."""

    table_id: str
    channel: str
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(maxsize=5000))
    overflow: bool = False
    #: why the service ended this feed (None while it is open) and the WebSocket close code to send
    closed: str | None = None
    close_code: int = 1001

    def push(self, msg: dict) -> None:
        try:
            self.loop.call_soon_threadsafe(self._put, msg)
        except RuntimeError:  # the client's loop is gone
            self.overflow = True

    def _put(self, msg: dict) -> None:
        try:
            self.queue.put_nowait(msg)
        except asyncio.QueueFull:  # a stuck client: it will reconnect and resume from the database
            self.overflow = True

    def close(self, reason: str, code: int = 1001) -> None:
        """End the feed (from any thread): its reader stops at once, skipping what is still queued
        (every message is in the database: a client resumes with its last id)."""
        self.closed, self.close_code = reason, code
        try:
            self.loop.call_soon_threadsafe(self._wake)
        except RuntimeError:  # the client's loop is gone: nobody reads this feed any more
            pass

    def _wake(self) -> None:
        try:
            self.queue.put_nowait(None)  # None: "look at closed" for a reader waiting on the queue
        except asyncio.QueueFull:  # it is not waiting: it sees the flag after its next message
            pass


class Broker:
    """Subscribers per (table, channel)."""

    def __init__(self) -> None:
        self._subs: dict[tuple[str, str], set[Subscription]] = {}
        self._lock = threading.Lock()
        self._closing: str | None = None  # set by close_all: the service is shutting down

    def subscribe(self, table_id: str, channel: str) -> Subscription:
        """A new feed of a table's channel; one opened during shutdown is closed at once."""
        sub = Subscription(table_id, channel, asyncio.get_running_loop())
        with self._lock:
            closing = self._closing
            if closing is None:
                self._subs.setdefault((table_id, channel), set()).add(sub)
        if closing is not None:
            sub.close(closing)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.get((sub.table_id, sub.channel), set()).discard(sub)

    def publish(self, msgs: list[dict]) -> None:
        for msg in msgs:
            with self._lock:
                subs = list(self._subs.get((msg["table"], msg["channel"]), ()))
            for sub in subs:
                sub.push(msg)

    def close(self, table_id: str, reason: str, code: int = 1001) -> int:
        """End every feed of a table (it was deleted): returns how many were open."""
        with self._lock:
            keys = [k for k in self._subs if k[0] == table_id]
            subs = [sub for k in keys for sub in self._subs.pop(k)]
        for sub in subs:
            sub.close(reason, code)
        return len(subs)

    def close_all(self, reason: str = "the service is shutting down") -> int:
        """End every feed, and the ones opened from now on (shutdown): returns how many were open."""
        with self._lock:
            self._closing = reason
            subs = [sub for group in self._subs.values() for sub in group]
            self._subs.clear()
        for sub in subs:
            sub.close(reason)
        return len(subs)

    def count(self, table_id: str) -> int:
        with self._lock:
            return sum(len(s) for (t, _), s in self._subs.items() if t == table_id)


def backlog(factory: sessionmaker[Session], table_id: str, channel: str, since: int, limit: int = 10000) -> list[dict]:
    """Committed messages of a feed after id ``since``, oldest first."""
    with factory() as s:
        rows = s.scalars(
            select(MessageRow)
            .where(MessageRow.table_id == table_id, MessageRow.channel == channel, MessageRow.id > since)
            .order_by(MessageRow.id).limit(limit)
        ).all()
        return [message_dict(r) for r in rows]
