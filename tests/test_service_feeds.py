"""Feeds on a real server (uvicorn in a thread): SSE and WebSocket, snapshot first, resume after
reconnect with Last-Event-ID / ?since= with no missed or duplicated message, keep-alives."""

from __future__ import annotations

import json
import random
import threading
import time

import httpx
import pytest

from service.testing import AUTH, app_for, live_server

websockets = pytest.importorskip("websockets.sync.client")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    app = app_for(tmp_path_factory.mktemp("feeds"), keepalive_s=0.3)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            for tid in ("f1", "f2", "f3"):
                r = c.post("/api/tables", json={"id": tid, "name": tid, "rules": "all-fives", "worker": {"kind": "manual"}})
                assert c.post(f"/api/tables/{tid}/start").status_code == 200  # a manual table takes events once started
                assert r.status_code == 201
        yield base, app


def penalty(base: str, table: str, n: int = 1) -> list[int]:
    """Post ``n`` one-point penalties (always legal): returns their message ids."""
    ids = []
    with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
        for _ in range(n):
            r = c.post(f"/api/tables/{table}/events", json={"event": {"type": "penalty", "seat": "N", "points": 1}})
            assert r.status_code == 201, r.text
            ids.append(r.json()["id"])
    return ids


def sse(base: str, path: str, n: int, headers: dict | None = None, keepalives: list | None = None,
        first: threading.Event | None = None) -> list[dict]:
    """The first ``n`` messages of an SSE stream (then the connection is dropped)."""
    out: list[dict] = []
    data: list[str] = []
    deadline = time.monotonic() + 20  # keep-alives come every 0.3 s, so this is checked often
    with httpx.Client(timeout=10) as c, c.stream("GET", base + path, headers=headers or {}) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            if line.startswith(":") and keepalives is not None:
                keepalives.append(line)
            elif line.startswith("data:"):
                data.append(line[5:].strip())
            elif line == "" and data:
                out.append(json.loads("\n".join(data)))
                data = []
                if first is not None:
                    first.set()  # subscribed: the snapshot came
            if len(out) >= n and (keepalives is None or keepalives):
                break
            assert time.monotonic() < deadline, f"got {len(out)} of {n} messages from {path}"
    return out


def test_sse_snapshot_then_events_and_keepalive(server):
    base, _ = server
    ids = penalty(base, "f1", 2)
    ka: list = []
    msgs = sse(base, "/api/tables/f1/feed", 1, keepalives=ka)
    snap = msgs[0]
    assert snap["kind"] == "snapshot" and snap["id"] == ids[-1]
    assert snap["data"]["state"]["game"]["scores"]["N"] == 2
    assert ka and ka[0] == ": keep-alive"
    # live events after the snapshot
    got: list = []
    ready = threading.Event()
    t = threading.Thread(target=lambda: got.extend(sse(base, "/api/tables/f1/feed", 3, first=ready)))
    t.start()
    assert ready.wait(10)
    new = penalty(base, "f1", 2)
    t.join(10)
    assert [m["kind"] for m in got] == ["snapshot", "event", "event"]
    assert [m["id"] for m in got[1:]] == new
    assert got[2]["data"]["state"]["game"]["scores"]["N"] == 4 and got[2]["data"]["row"]["points"] == {"N": 1}


def test_sse_resume_with_last_event_id_and_since(server):
    base, _ = server
    first = sse(base, "/api/tables/f2/feed", 1)[0]
    missed = penalty(base, "f2", 3)
    again = sse(base, "/api/tables/f2/feed", 3, headers={"Last-Event-ID": str(first["id"])})
    assert [m["id"] for m in again] == missed and all(m["kind"] == "event" for m in again)
    by_query = sse(base, f"/api/tables/f2/feed?since={missed[0]}", 2)
    assert [m["id"] for m in by_query] == missed[1:]
    r = httpx.get(base + "/api/tables/f2/feed", headers={"Last-Event-ID": "abc"})
    assert r.status_code == 422
    # ids past SQLite's integers broke the stream with an OverflowError (helper-47): a 422 now
    big = 2**63
    for path, headers in ((f"/api/tables/f2/feed?since={big}", {}), ("/api/tables/f2/feed", {"Last-Event-ID": str(big)}),
                          ("/api/tables/f2/feed?since=-1", {}), ("/api/tables/f2/feed?since=abc", {})):
        r = httpx.get(base + path, headers=headers)
        assert r.status_code == 422 and "message id" in r.json()["detail"], (path, r.text)
    # an id past the table's last message (a client of a reset database) gets the snapshot, not silence
    ahead = sse(base, f"/api/tables/f2/feed?since={missed[-1] + 1000}", 1)[0]
    assert ahead["kind"] == "snapshot" and ahead["id"] == missed[-1]


def test_reconnecting_clients_miss_nothing_while_events_flow(server):
    """A poster adds 40 events while an SSE client and a WS client keep dropping and resuming."""
    base, app = server
    start = sse(base, "/api/tables/f3/feed", 1)[0]["id"]
    total = 40
    poster = threading.Thread(target=lambda: penalty(base, "f3", total))
    poster.start()
    rng = random.Random(7)
    seen_sse: list[int] = []
    last = start
    while len(seen_sse) < total:
        want = min(rng.randint(1, 5), total - len(seen_sse))
        batch = sse(base, "/api/tables/f3/feed", want, headers={"Last-Event-ID": str(last)})
        seen_sse += [m["id"] for m in batch]
        last = batch[-1]["id"]
    seen_ws: list[int] = []
    last = start
    ws_base = base.replace("http", "ws")
    while len(seen_ws) < total:
        # max_queue=None: the client keeps reading while it closes (else unread messages stall its close)
        with websockets.connect(f"{ws_base}/api/tables/f3/ws?since={last}", max_queue=None) as ws:
            for _ in range(rng.randint(1, 7)):
                msg = json.loads(ws.recv(timeout=10))
                if msg["kind"] == "keepalive":
                    continue
                seen_ws.append(msg["id"])
                last = msg["id"]
                if len(seen_ws) == total:
                    break
    poster.join(20)
    from service.feeds import backlog

    stored = [m["id"] for m in backlog(app.state.factory, "f3", "events", start)]
    assert len(stored) == total
    assert seen_sse == stored and seen_ws == stored  # in order, none missed, none twice


def test_websocket_snapshot_keepalive_and_errors(server):
    base, _ = server
    ws_base = base.replace("http", "ws")
    with websockets.connect(f"{ws_base}/api/tables/f1/ws") as ws:
        snap = json.loads(ws.recv(timeout=10))
        assert snap["kind"] == "snapshot" and "state" in snap["data"]
        assert json.loads(ws.recv(timeout=10)) == {"kind": "keepalive"}
    with websockets.connect(f"{ws_base}/api/tables/nope/ws") as ws:
        assert json.loads(ws.recv(timeout=10))["status"] == 404
    with websockets.connect(f"{ws_base}/api/tables/f1/ws?channel=alerts") as ws:
        assert json.loads(ws.recv(timeout=10))["status"] == 401
    with websockets.connect(f"{ws_base}/api/tables/f1/ws?channel=alerts&token=test-token") as ws:
        assert json.loads(ws.recv(timeout=10))["kind"] == "snapshot"
    with websockets.connect(f"{ws_base}/api/tables/f1/ws?channel=bogus") as ws:
        assert json.loads(ws.recv(timeout=10))["status"] == 422
    for since in ("99999999999999999999", "abc"):  # an error message too, not a refused handshake or a crash
        with websockets.connect(f"{ws_base}/api/tables/f1/ws?since={since}") as ws:
            err = json.loads(ws.recv(timeout=10))
            assert err["status"] == 422 and "message id" in err["detail"]


def test_alerts_channel(server):
    base, _ = server
    with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
        c.post("/api/tables", json={"id": "a1", "name": "a1", "rules": "all-fives"})
        assert c.post("/api/tables/a1/start").status_code == 200  # a manual table takes events once started
        c.post("/api/tables/a1/events", json={"event": {"type": "play", "seat": "N", "tile": "5-5"}})
    assert httpx.get(base + "/api/tables/a1/alerts/feed").status_code == 401
    assert httpx.get(base + "/api/tables/a1/alerts/feed?token=wrong").status_code == 403
    got: list = []
    ready = threading.Event()
    t = threading.Thread(target=lambda: got.extend(sse(base, "/api/tables/a1/alerts/feed?token=test-token", 2,
                                                       first=ready)))
    t.start()
    assert ready.wait(10)
    with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:  # S plays out of turn... N again: flagged
        c.post("/api/tables/a1/events", json={"event": {"type": "play", "seat": "N", "tile": "5-0", "end": "E"}})
    t.join(10)
    assert got[0]["kind"] == "snapshot" and got[0]["data"]["alerts"] == []
    assert got[1]["kind"] == "alert" and got[1]["data"]["kind"] == "out_of_turn"
    snap = httpx.get(base + "/api/tables/a1/snapshot?channel=alerts", headers=AUTH).json()
    assert [a["kind"] for a in snap["data"]["alerts"]] == ["out_of_turn"]


def test_deleting_a_table_ends_its_feeds(server):
    """Feeds of a deleted table stayed open and then carried the messages of a new table with its id."""
    base, app = server
    with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
        assert c.post("/api/tables", json={"id": "d1", "name": "d1", "rules": "all-fives"}).status_code == 201
    got: list = []
    lines: list = []
    ready = threading.Event()

    def read() -> None:
        with httpx.Client(timeout=10) as c, c.stream("GET", base + "/api/tables/d1/feed") as r:
            for line in r.iter_lines():  # ends when the server ends the stream
                lines.append(line)
                if line.startswith("data:"):
                    got.append(json.loads(line[5:]))
                    ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert ready.wait(10)
    from websockets.exceptions import ConnectionClosed

    with websockets.connect(f"{base.replace('http', 'ws')}/api/tables/d1/ws", max_queue=None) as ws:
        assert json.loads(ws.recv(timeout=10))["kind"] == "snapshot"
        assert app.state.broker.count("d1") == 2
        assert httpx.delete(base + "/api/tables/d1", headers=AUTH).json() == {"deleted": "d1"}
        reader.join(5)
        assert not reader.is_alive(), "the SSE feed of a deleted table is still open"
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                assert json.loads(ws.recv(timeout=5))["kind"] == "keepalive"
    assert closed.value.rcvd.code == 4404 and closed.value.rcvd.reason == "table 'd1' was deleted"
    assert app.state.broker.count("d1") == 0
    # a new table under the same id: its messages reach only its own feeds
    with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
        assert c.post("/api/tables", json={"id": "d1", "name": "new", "rules": "all-fives"}).status_code == 201
        assert c.post("/api/tables/d1/start").status_code == 200  # a manual table takes events once started
    penalty(base, "d1", 1)
    assert [m["kind"] for m in got] == ["snapshot"] and got[0]["data"]["state"]["table"]["name"] == "d1"
    assert httpx.get(base + "/api/tables/d1/snapshot").json()["data"]["state"]["game"]["scores"]["N"] == 1


def test_the_log_hides_tokens_and_view_keys():
    """Feeds take the bearer token and the view key in the query; uvicorn's access log wrote them
    out (helper-61)."""
    import logging

    from service.server import _HideSecrets

    record = logging.LogRecord("uvicorn.access", logging.INFO, "", 0, '%s - "%s %s HTTP/%s" %d',
                               ("10.0.0.2:5120", "GET", "/api/tables/t/feed?token=s3cret&since=4&key=k3y", "1.1", 200),
                               None)
    assert _HideSecrets().filter(record)
    assert record.getMessage() == '10.0.0.2:5120 - "GET /api/tables/t/feed?token=***&since=4&key=*** HTTP/1.1" 200'
    # helper-143: uvicorn's WebSocket lines (logger uvicorn.error) have the path second
    ws = logging.LogRecord("uvicorn.error", logging.INFO, "", 0, '%s - "WebSocket %s" [accepted]',
                           ("10.0.0.2:5121", "/api/tables/t/ws?channel=alerts&token=s3cret"), None)
    assert _HideSecrets().filter(ws)
    assert ws.getMessage() == '10.0.0.2:5121 - "WebSocket /api/tables/t/ws?channel=alerts&token=***" [accepted]'
