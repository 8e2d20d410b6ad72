"""Pub/sub for the live feeds: every message has an id (its row in ``messages``) and a channel.

A message is published only after it was committed, so a client that reconnects with
the last id it saw reads the rest from the database (:func:`backlog`) and then the live
queue, skipping ids it already has: no message is missed or sent twice.

Channels: ``events`` (engine events with the table state after each, worker status,
new matches, hand confirmations) and ``alerts`` (the umpire's queue).
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


class Broker:
    """Subscribers per (table, channel)."""

    def __init__(self) -> None:
        self._subs: dict[tuple[str, str], set[Subscription]] = {}
        self._lock = threading.Lock()

    def subscribe(self, table_id: str, channel: str) -> Subscription:
        sub = Subscription(table_id, channel, asyncio.get_running_loop())
        with self._lock:
            self._subs.setdefault((table_id, channel), set()).add(sub)
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
