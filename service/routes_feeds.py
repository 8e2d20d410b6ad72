"""Live feeds per table: Server-Sent Events and a WebSocket, with a snapshot first and resume.

    GET /api/tables/{id}/feed              events channel (SSE); ?since=ID or Last-Event-ID resumes
    GET /api/tables/{id}/alerts/feed       alerts channel (SSE, needs the token)
    WS  /api/tables/{id}/ws?channel=events|alerts&since=ID
    GET /api/tables/{id}/snapshot          the state, as the first feed message

A message: ``{"id", "channel", "kind", "table", "time", "data"}``; ids increase per table.
Without ``since`` the first message is ``kind: "snapshot"`` (its ``id`` is the last
message id the state includes); with it, every message after that id, then live ones.
Idle feeds get a keep-alive every ``settings.keepalive_s`` (15 s): an SSE comment, or
``{"kind": "keepalive"}`` on the WebSocket. Deleting a table ends its feeds (a WebSocket is
closed with code 4404), and so does a shutdown (1001); an SSE stream just ends.
"""

from __future__ import annotations

import asyncio
import json
from typing import AsyncIterator, Literal

from fastapi import APIRouter, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import StreamingResponse

from service.auth import is_umpire
from service.db import MAX_ROW_ID
from service.deps import viewable
from service.feeds import backlog
from service.live import NotFound, TableRuntime
from service.tables import Conflict
from service.views import public_message

router = APIRouter(prefix="/api/tables/{table_id}", tags=["feeds"])


async def messages(app, rt: TableRuntime, channel: str, since: int | None,  # noqa: ANN001
                   sub, umpire: bool = False) -> AsyncIterator[dict | None]:  # noqa: ANN001
    """Snapshot (or the backlog after ``since``), then live messages; None is a keep-alive.
    Ends when the service closes the feed (``sub.closed``: its table was deleted, or shutdown).

    A ``since`` past the table's last message (a client of a database since reset or replaced)
    gets the snapshot: waiting for ids to catch up would leave it blank. Without ``umpire`` (a caller
    without the token) every message is as the public sees it (:func:`service.views.public_message`)."""
    shown = (lambda m: m) if umpire else public_message
    broker = app.state.broker
    keepalive = app.state.settings.keepalive_s
    try:
        if since is None or since > rt.seq:
            snap = rt.snapshot(channel)
            last = snap["id"]
            yield shown(snap)
        else:
            last = since
            while True:
                batch = await asyncio.to_thread(backlog, app.state.factory, rt.cfg.id, channel, last)
                for m in batch:
                    last = m["id"]
                    yield shown(m)
                if len(batch) < 10000:
                    break
        while not sub.overflow and sub.closed is None:
            try:
                msg = await asyncio.wait_for(sub.queue.get(), keepalive)
            except asyncio.TimeoutError:
                yield None
                continue
            if msg is None:  # the service closed the feed (table deleted, shutdown): sub.closed says why
                break
            if msg["id"] > last:
                last = msg["id"]
                yield shown(msg)
    finally:
        broker.unsubscribe(sub)



def _message_id(what: str, value: str | int | None) -> int | None:
    """A resume id (``since`` / ``Last-Event-ID``) as an int in 0..MAX_ROW_ID (message ids are SQLite
    row ids: a larger one cannot exist and overflowed the query), else a 422."""
    if value is None or value == "":
        return None
    try:
        n = int(value)
    except ValueError:
        raise HTTPException(422, f"{what}: not a message id: {value!r}") from None
    if not 0 <= n <= MAX_ROW_ID:
        raise HTTPException(422, f"{what}: a message id is 0-{MAX_ROW_ID}, got {n}")
    return n


def _since(request, since: str | None) -> int | None:  # noqa: ANN001
    header = request.headers.get("last-event-id")
    if header:
        return _message_id("Last-Event-ID", header)
    return _message_id("since", since)


def _sse(request: Request, table_id: str, channel: str, since: str | None) -> StreamingResponse:
    rt = viewable(request, table_id, umpire=channel == "alerts")
    start = _since(request, since)
    umpire = is_umpire(request)
    sub = request.app.state.broker.subscribe(table_id, channel)

    async def body() -> AsyncIterator[str]:
        yield "retry: 2000\n\n"
        async for m in messages(request.app, rt, channel, start, sub, umpire):
            if m is None:
                yield ": keep-alive\n\n"
            else:
                yield f"id: {m['id']}\nevent: {m['kind']}\ndata: {json.dumps(m, separators=(',', ':'))}\n\n"

    return StreamingResponse(body(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@router.get("/feed")
async def feed(table_id: str, request: Request, since: str | None = None,
               channel: Literal["events", "alerts"] = "events") -> StreamingResponse:
    return _sse(request, table_id, channel, since)


@router.get("/alerts/feed")
async def alerts_feed(table_id: str, request: Request, since: str | None = None) -> StreamingResponse:
    return _sse(request, table_id, "alerts", since)


@router.get("/snapshot")
def snapshot(table_id: str, request: Request, channel: Literal["events", "alerts"] = "events") -> dict:
    snap = viewable(request, table_id, umpire=channel == "alerts").snapshot(channel)
    return snap if is_umpire(request) else public_message(snap)


@router.websocket("/ws")
async def ws(websocket: WebSocket, table_id: str, since: str | None = None, channel: str = "events") -> None:
    await websocket.accept()
    try:  # errors are protocol messages (a bad query parameter too, not a refused handshake)
        if channel not in ("events", "alerts"):
            raise HTTPException(422, f"channel: 'events' or 'alerts', not {channel!r}")
        start = _message_id("since", since)
        rt = viewable(websocket, table_id, umpire=channel == "alerts")
    except (HTTPException, NotFound, Conflict) as exc:  # Conflict: a table that cannot be loaded
        code = exc.status_code if isinstance(exc, HTTPException) else 404 if isinstance(exc, NotFound) else 409
        detail = exc.detail if isinstance(exc, HTTPException) else str(exc)
        await websocket.send_json({"kind": "error", "status": code, "detail": detail})
        await websocket.close(code=4000 + code, reason=str(detail)[:120])
        return
    umpire = is_umpire(websocket)
    sub = websocket.app.state.broker.subscribe(table_id, channel)

    async def pump() -> None:
        async for m in messages(websocket.app, rt, channel, start, sub, umpire):
            await websocket.send_json(m if m is not None else {"kind": "keepalive"})

    async def listen() -> None:  # answers the client's close at once (clients send nothing else)
        while (await websocket.receive())["type"] != "websocket.disconnect":
            pass

    tasks = [asyncio.create_task(pump()), asyncio.create_task(listen())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for t in tasks:
            t.cancel()
        for t in tasks:
            try:
                await t
            except (asyncio.CancelledError, WebSocketDisconnect, RuntimeError):
                pass
        broker_sub_cleanup(websocket, sub)
    if sub.closed is not None:  # closed by the service: tell the client why (4404: table deleted, 1001: shutdown)
        try:
            await websocket.close(code=sub.close_code, reason=sub.closed[:120])
        except (RuntimeError, WebSocketDisconnect):  # the client left meanwhile
            pass


def broker_sub_cleanup(websocket: WebSocket, sub) -> None:  # noqa: ANN001
    websocket.app.state.broker.unsubscribe(sub)
