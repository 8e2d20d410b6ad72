"""Persistence: a new app on the same SQLite file rebuilds the same state from the log; live tables
resume; a service killed with SIGKILL loses no announced event; the migration matches the models."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from engine.record import event_to_dict
from engine.ruleset import load_ruleset
from engine.simulate import simulate_match
from service.testing import AUTH, app_for, free_port, mismatch_script, wait_for

RULES = "lisa-b-all-fives"


def post(c, path, body=None):
    r = c.post(path, json=body if body is not None else {}, headers=AUTH)
    assert r.status_code in (200, 201), r.text
    return r.json()


def comparable(state: dict) -> dict:
    return {k: v for k, v in state.items() if k != "worker"}


def test_restart_in_the_middle_of_a_hand_rebuilds_the_same_state(tmp_path):
    script, info = mismatch_script()
    full = simulate_match(load_ruleset(RULES), 5, max_hands=1)[0]
    with TestClient(app_for(tmp_path)) as c:
        post(c, "/api/tables", {"id": "t", "name": "T", "rules": RULES, "players": {"N": "Ana", "S": "Bob"}})
        post(c, "/api/tables/t/start")
        for ev in script[0]:
            post(c, "/api/tables/t/events", {"event": ev})
        alert = c.get("/api/tables/t/alerts").json()[0]
        post(c, "/api/tables/t/corrections", {"replaces": info["index"], "event": None, "by": "U"})
        before = c.get("/api/tables/t/snapshot").json()
        alerts_before = c.get("/api/tables/t/alerts?status=all").json()
        record_before = c.get("/api/matches/1/record.json").text
    with TestClient(app_for(tmp_path)) as c:  # the same file: a new process would see the same
        after = c.get("/api/tables/t/snapshot").json()
        from service.feeds import backlog

        since = backlog(c.app.state.factory, "t", "events", before["id"])
        assert [m["kind"] for m in since] == ["worker"]  # only the resume was announced since
        assert after["id"] == since[-1]["id"]
        assert comparable(after["data"]["state"]) == comparable(before["data"]["state"])
        assert c.get("/api/tables/t/alerts?status=all").json() == alerts_before
        assert c.get("/api/matches/1/record.json").text == record_before
        assert c.get("/api/tables/t/status").json()["state"] == "running"  # a live manual table resumes
        assert alert["status"] == "open"
        # the hand goes on where it stopped: the rest of the simulated hand lands after the void
        for ev in full[info["index"]:]:
            post(c, "/api/tables/t/events", {"event": event_to_dict(ev), "new_hand": False})
        hand = c.get("/api/matches/1/hands/1").json()
        assert hand["status"] == "over" and hand["result"]["winner"] in ("N", "S")


def test_live_scripted_table_resumes_after_restart(tmp_path):
    spec = {"id": "s", "name": "S", "rules": RULES,
            "worker": {"kind": "scripted", "interval": 0.03, "simulate": {"seed": 9, "hands": 2}}}
    with TestClient(app_for(tmp_path)) as c:
        total = post(c, "/api/tables", spec)["script_events"]
        post(c, "/api/tables/s/start")
        wait_for(lambda: c.get("/api/tables/s/status").json()["position"] >= 12)
    with TestClient(app_for(tmp_path)) as c:  # shutdown left the table live: it resumes
        st = c.get("/api/tables/s/status").json()
        assert st["state"] in ("running", "finished") and 12 <= st["position"] <= total
        wait_for(lambda: c.get("/api/tables/s/status").json()["state"] == "finished", timeout=20)
        rec = c.get("/api/matches/1/record.json").json()
    expected = simulate_match(load_ruleset(RULES), 9, max_hands=2)
    assert [h["events"] for h in rec["hands"]] == [[event_to_dict(e) for e in hand] for hand in expected]
    with TestClient(app_for(tmp_path)) as c:  # played to the end: still finished after a restart
        st = c.get("/api/tables/s/status").json()
        assert (st["state"], st["position"], st["total"]) == ("finished", total, total)


def _wait_up(base: str, proc: subprocess.Popen) -> None:
    deadline = time.time() + 30
    while time.time() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else "exited"
        try:
            if httpx.get(base + "/api/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError("the service did not come up")


def test_sigkill_loses_no_announced_event(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "service.testing", str(tmp_path), str(port)]
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    announced: list[dict] = []
    try:
        _wait_up(base, proc)
        spec = {"id": "k", "name": "K", "rules": RULES,
                "worker": {"kind": "scripted", "interval": 0.02, "simulate": {"seed": 4, "hands": 2}}}
        assert httpx.post(base + "/api/tables", json=spec, headers=AUTH).status_code == 201
        assert httpx.post(base + "/api/tables/k/start", headers=AUTH).status_code == 200
        with httpx.Client(timeout=10) as c, c.stream("GET", base + "/api/tables/k/feed?since=0") as r:
            for line in r.iter_lines():
                if line.startswith("data:"):
                    msg = json.loads(line[5:])
                    if msg["kind"] == "event":
                        announced.append(msg)
                    if len(announced) >= 15:
                        break
        os.kill(proc.pid, signal.SIGKILL)  # mid-match, no shutdown at all
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        _wait_up(base, proc)
        hand = httpx.get(base + "/api/matches/1/hands/1").json()
        for msg in announced:  # every announced event is in the log, in its slot
            d = msg["data"]
            if d["hand"] == 1:
                assert hand["events"][d["index"]] == d["event"]
        wait_for(lambda: httpx.get(base + "/api/tables/k/status").json()["state"] == "finished", timeout=30)
        rec = httpx.get(base + "/api/matches/1/record.json").json()
        ids = [m["id"] for m in announced]
        resumed = []
        with httpx.Client(timeout=10) as c, c.stream("GET", base + f"/api/tables/k/feed?since={ids[0] - 1}") as r:
            for line in r.iter_lines():
                if line.startswith("data:"):
                    resumed.append(json.loads(line[5:])["id"])
                    if len(resumed) >= len(ids):
                        break
        assert resumed[:len(ids)] == ids  # a client resuming after the crash sees the same ids
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    expected = simulate_match(load_ruleset(RULES), 4, max_hands=2)
    assert [h["events"] for h in rec["hands"]] == [[event_to_dict(e) for e in hand] for hand in expected]


def test_migration_matches_the_models_and_uses_wal(tmp_path):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from service.db import make_engine, upgrade
    from service.models import Base
    from service.testing import settings_for

    engine = make_engine(settings_for(tmp_path))
    upgrade(engine)
    upgrade(engine)  # idempotent: at head
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == "0001"


def test_ctrl_c_with_open_feeds_ends_them_cleanly_at_once(tmp_path):
    """Open feeds held a Ctrl-C up until uvicorn cancelled them (5 s in ``serve``, forever here), with an
    "Exception in ASGI application" traceback each. Now they end first and the service stops at once."""
    import threading

    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, "-m", "service.testing", str(tmp_path), str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONWARNINGS": "ignore"})
    ended: dict[str, float] = {}  # path -> when its stream ended
    try:
        _wait_up(base, proc)
        assert httpx.post(base + "/api/tables", json={"id": "c", "name": "C", "rules": RULES},
                          headers=AUTH).status_code == 201
        ready = threading.Barrier(3)

        def sse(path: str) -> None:
            with httpx.Client(timeout=30) as c, c.stream("GET", base + path) as r:
                ready.wait(10)
                for _ in r.iter_lines():  # until the server ends the stream
                    pass
            ended[path] = time.monotonic()

        readers = [threading.Thread(target=sse, args=(p,), daemon=True)
                   for p in ("/api/tables/c/feed", "/api/tables/c/alerts/feed?token=test-token")]
        for t in readers:
            t.start()
        with connect(f"ws://127.0.0.1:{port}/api/tables/c/ws", max_queue=None) as ws:
            assert json.loads(ws.recv(timeout=10))["kind"] == "snapshot"
            ready.wait(10)
            t0 = time.monotonic()
            proc.send_signal(signal.SIGINT)
            for t in readers:
                t.join(5)
            assert proc.wait(10) == 0
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    ws.recv(timeout=5)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    err = proc.stderr.read().decode()
    assert sorted(ended) == ["/api/tables/c/alerts/feed?token=test-token", "/api/tables/c/feed"]
    took = max(ended.values()) - t0
    assert took < 2, f"the feeds ended {took:.1f} s after the signal"
    assert closed.value.rcvd.code in (1001, 1012)  # going away (the feed), or service restart (uvicorn)
    assert "Traceback" not in err and "Exception in ASGI application" not in err, err
