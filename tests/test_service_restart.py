"""Persistence: a new app on the same SQLite file rebuilds the same state from the log; live tables
resume; a service killed with SIGKILL loses no announced event; the migration matches the models."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from engine.record import event_to_dict
from engine.ruleset import load_ruleset, source_label
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
        # with the token: the events as logged (the public's feed hides the deal of the hand in play)
        with httpx.Client(timeout=10) as c, c.stream("GET", base + "/api/tables/k/feed?since=0", headers=AUTH) as r:
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
        hand = httpx.get(base + "/api/matches/1/hands/1", headers=AUTH).json()
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
        assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == "0005"


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


# ---- the rule set is stored with the table: a restart never re-reads its preset or file --------------
def _play_hand(c, table_id: str, hand: list) -> None:
    post(c, f"/api/tables/{table_id}/start")
    for ev in hand:
        post(c, f"/api/tables/{table_id}/events", {"event": event_to_dict(ev)})


def test_edited_rules_file_does_not_change_a_recorded_match_after_restart(tmp_path):
    """A table registered from a TOML file re-read it at every start: ``score_ends = false`` written into
    the file afterwards changed the scores (and the record's rules) of the match already recorded."""
    toml = tmp_path / "club.toml"
    from engine.ruleset import RULESET_DIR

    original = (RULESET_DIR / "all-fives.toml").read_text(encoding="utf-8")
    toml.write_text(original.replace('name = "all-fives"', 'name = "club"'))
    rules = load_ruleset(toml)
    hand = simulate_match(rules, 0, max_hands=1)[0]
    data = tmp_path / "data"
    with TestClient(app_for(data)) as c:
        table = post(c, "/api/tables", {"id": "club", "name": "club", "rules": str(toml)})
        assert table["ruleset"]["score_ends"] is True and table["ruleset"]["name"] == "club"
        _play_hand(c, "club", hand)
        before = c.get("/api/matches/1").json()
        text_before = c.get("/api/matches/1/record.txt").text
    assert before["hands"][0]["points"] == {"N": 25, "S": 45}  # ends scored: 5 and 0 without them
    toml.write_text(original.replace('name = "all-fives"', 'name = "club"').replace("score_ends = true",
                                                                                  "score_ends = false"))
    assert load_ruleset(toml).score_ends is False
    with TestClient(app_for(data)) as c:
        assert c.get("/api/matches/1").json() == before
        assert c.get("/api/matches/1/record.txt").text == text_before
        assert c.get("/api/tables/club").json()["ruleset"]["score_ends"] is True
        rec = c.get("/api/matches/1/record.json").json()
        assert rec["rules"]["preset"] == "club" and rec["rules"]["params"]["score_ends"] is True
    toml.unlink()  # the file gone altogether: the table still loads, from what it stored
    with TestClient(app_for(data)) as c:
        assert c.get("/api/matches/1").json() == before
        assert [t["id"] for t in c.get("/api/tables").json()] == ["club"]


def test_table_with_a_relative_rules_path_loads_after_a_restart_elsewhere(tmp_path, monkeypatch):
    """``"rules": "engine/rulesets/muggins.toml"`` resolved against the working folder at every start:
    started from another folder, the table vanished from the list (409 on create, 404 on get)."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    monkeypatch.chdir(repo)
    hand = simulate_match(load_ruleset("muggins"), 1, max_hands=1)[0]
    data = tmp_path / "data"
    with TestClient(app_for(data)) as c:
        post(c, "/api/tables", {"id": "x", "name": "X", "rules": "engine/rulesets/muggins.toml"})
        _play_hand(c, "x", hand)
        before = c.get("/api/matches/1").json()
    assert before["rules"] == "muggins" and sum(before["hands"][0]["points"].values()) > 0
    monkeypatch.chdir(tmp_path)
    with TestClient(app_for(data)) as c:
        assert [t["id"] for t in c.get("/api/tables").json()] == ["x"]
        info = c.get("/api/tables/x").json()
        assert info["rules"] == "engine/rulesets/muggins.toml" and info["ruleset"]["name"] == "muggins"
        assert c.get("/api/matches/1").json() == before


def _set_row(data, table_id: str, **values) -> None:
    from service.db import make_engine, sessions, transaction
    from service.models import TableRow
    from service.testing import settings_for

    engine = make_engine(settings_for(data))
    with transaction(sessions(engine)) as s:
        row = s.get(TableRow, table_id)
        for k, v in values.items():
            setattr(row, k, v)
    engine.dispose()


def test_table_of_the_old_schema_stores_its_rule_set_at_the_next_start(tmp_path, monkeypatch):
    """A row without a stored rule set (schema 0001) gets it at the next start, as resolved then."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    monkeypatch.chdir(repo)
    data = tmp_path / "data"
    with TestClient(app_for(data)) as c:
        post(c, "/api/tables", {"id": "old", "name": "Old", "rules": "engine/rulesets/muggins.toml",
                                "overrides": {"target": 150}})
    _set_row(data, "old", ruleset=None)
    with TestClient(app_for(data)) as c:
        stored = c.get("/api/tables/old").json()["ruleset"]
    want = load_ruleset("muggins", target=150).model_dump(mode="json")
    assert stored == {**want, "source": source_label(want["source"])}  # its source as GET /api/rulesets names it
    monkeypatch.chdir(tmp_path)  # stored: the relative path no longer matters
    with TestClient(app_for(data)) as c:
        assert c.get("/api/tables/old").json()["ruleset"] == stored


def test_table_that_cannot_be_loaded_is_listed_with_its_error_and_deletable(tmp_path, monkeypatch):
    """A table whose config cannot be loaded was half-present: missing from the list and 404, yet 409 on
    create and deletable. Now it is listed with state "error" and why; every action says why it refuses."""
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "data"
    with TestClient(app_for(data)) as c:
        post(c, "/api/tables", {"id": "ok", "name": "OK", "rules": RULES})
        post(c, "/api/tables", {"id": "bad", "name": "Bad", "rules": RULES})
    # an old row (no stored rule set) naming a file that is not there from this working folder
    _set_row(data, "bad", ruleset=None, rules="engine/rulesets/muggins.toml", live=True)  # it was running
    with TestClient(app_for(data)) as c:
        tables = {t["id"]: t for t in c.get("/api/tables").json()}
        assert sorted(tables) == ["bad", "ok"]
        assert tables["bad"]["state"] == "error"
        assert "no such rule set file" in tables["bad"]["error"]
        info = c.get("/api/tables/bad").json()
        assert info["status"]["state"] == "error" and info["ruleset"] is None
        assert info["live"] is False  # helper-81: it said true, though no worker can run it
        assert c.get("/api/tables/bad/status").json()["state"] == "error"
        assert c.get("/api/health").json()["unloadable"] == ["bad"]
        r = c.post("/api/tables/bad/events", json={"event": {"type": "pass", "seat": "N"}}, headers=AUTH)
        assert r.status_code == 409 and "cannot be loaded" in r.json()["detail"]
        r = c.post("/api/tables", json={"id": "bad", "name": "Bad", "rules": RULES}, headers=AUTH)
        assert r.status_code == 409
        assert c.delete("/api/tables/bad", headers=AUTH).status_code == 200
        assert [t["id"] for t in c.get("/api/tables").json()] == ["ok"]
        assert c.get("/api/tables/bad").status_code == 404


def test_a_table_row_whose_stored_json_is_damaged_is_listed_as_error_and_the_rest_start(tmp_path, monkeypatch):
    """helper-156: text that is not JSON in one table's column (a hand edit, a torn write) raised
    JSONDecodeError while every row was fetched: the whole service did not start. helper-160: JSON of the
    wrong kind (a list for a mapping) said only "cannot convert dictionary update sequence element #0"."""
    import sqlite3

    monkeypatch.chdir(tmp_path)
    data = tmp_path / "data"
    with TestClient(app_for(data)) as c:
        post(c, "/api/tables", {"id": "ok", "name": "OK", "rules": RULES})
        post(c, "/api/tables", {"id": "bad", "name": "Bad", "rules": RULES})
        post(c, "/api/tables", {"id": "kind", "name": "Kind", "rules": RULES})
    (db,) = data.glob("*.db")
    with sqlite3.connect(db) as con:
        con.execute("UPDATE tables SET players = '{bad' WHERE id = 'bad'")
        con.execute("UPDATE tables SET worker_config = '[1, 2]' WHERE id = 'kind'")
    con.close()
    with TestClient(app_for(data)) as c:
        tables = {t["id"]: t for t in c.get("/api/tables").json()}
        assert (tables["ok"]["state"], tables["bad"]["state"]) == ("stopped", "error")
        with pytest.raises(ValueError) as decoded:  # the decoder's own words, by another route
            json.loads("{bad")
        why = str(decoded.value)
        assert tables["bad"]["error"] == f"the table cannot be loaded: its stored players cannot be read ({why})"
        assert tables["kind"]["error"] == ("the table cannot be loaded: its stored worker_config cannot be read (a JSON "
                                           "object is expected, not a list)")
        assert post(c, "/api/tables/ok/start")["state"] == "running"
        assert c.delete("/api/tables/bad", headers=AUTH).status_code == 200
        assert sorted(t["id"] for t in c.get("/api/tables").json()) == ["kind", "ok"]


def test_the_pages_of_a_table_that_cannot_be_loaded_answer_as_the_api_does(tmp_path, monkeypatch):
    """helper-165: /matches/{id}/review of a match at a table whose stored JSON is damaged answered an
    empty 200 page (its data calls then failed) while /api/matches/{id} answered 409. Every page of such a
    table is an HTML error page with the API's status and reason; the other table's pages are served."""
    import html
    import re
    import sqlite3

    monkeypatch.chdir(tmp_path)
    data = tmp_path / "data"
    with TestClient(app_for(data)) as c:
        post(c, "/api/tables", {"id": "ok", "name": "OK", "rules": RULES})
        post(c, "/api/tables", {"id": "bad", "name": "Bad", "rules": RULES})
        (bad_match,) = [m["id"] for m in c.get("/api/tables/bad/matches").json()]
        (ok_match,) = [m["id"] for m in c.get("/api/tables/ok/matches").json()]
    (db,) = data.glob("*.db")
    with sqlite3.connect(db) as con:
        con.execute("UPDATE tables SET players = '{bad' WHERE id = 'bad'")
    con.close()
    with TestClient(app_for(data)) as c:
        api = c.get(f"/api/matches/{bad_match}")
        assert api.status_code == 409
        why = api.json()["detail"]
        assert why.startswith("table 'bad' cannot be loaded: its stored players cannot be read (")
        for page in (f"/matches/{bad_match}/review", "/tables/bad/overlay", "/tables/bad/umpire"):
            r = c.get(page)
            assert (r.status_code, r.headers["content-type"].split(";")[0]) == (409, "text/html"), page
            assert html.unescape(re.search(r"<p>(.*?)</p>", r.text).group(1)) == why, page
        for page in (f"/matches/{ok_match}/review", "/tables/ok/overlay", "/tables/ok/umpire"):
            assert c.get(page).status_code == 200, page


def test_a_protected_table_that_cannot_be_loaded_tells_why_only_with_its_key(tmp_path, monkeypatch):
    """helper-169: a protected table that cannot be loaded answered 401 at ``/api/tables/{id}`` while its
    pages, its matches and its snapshot answered 409 with the reason to anyone. Now the API and the pages
    answer alike: 401 without the key, 403 with a wrong one (no reason told), and with the key (or the
    token) the pages' 409 says what every action of the API says."""
    import html
    import re
    import sqlite3

    monkeypatch.chdir(tmp_path)
    data = tmp_path / "data"
    with TestClient(app_for(data)) as c:
        post(c, "/api/tables", {"id": "t3", "name": "T3", "rules": RULES, "view_key": "secret-key"})
        (match,) = [m["id"] for m in c.get("/api/tables/t3/matches?key=secret-key").json()]
    (db,) = data.glob("*.db")
    with sqlite3.connect(db) as con:
        con.execute("UPDATE tables SET players = '{bad' WHERE id = 't3'")
    con.close()
    apis = ("/api/tables/t3", "/api/tables/t3/status", "/api/tables/t3/matches", f"/api/matches/{match}",
            "/api/tables/t3/snapshot")
    pages = ("/tables/t3/overlay", "/tables/t3/umpire", f"/matches/{match}/review")

    def page_text(r) -> str:
        return html.unescape(re.search(r"<p>(.*?)</p>", r.text).group(1))

    with TestClient(app_for(data)) as c:
        for query, status in (("", 401), ("?key=wrong-key", 403)):
            (detail,) = {c.get(path + query).json()["detail"] for path in apis}
            assert {c.get(path + query).status_code for path in apis} == {status}
            for page in pages:
                r = c.get(page + query)
                assert (r.status_code, page_text(r)) == (status, detail), page
                assert "cannot be loaded" not in r.text, page
        assert detail == "wrong view key"
        r = c.get("/api/tables/t3/snapshot?channel=alerts&key=secret-key")  # the alerts: the token, not the key
        assert r.status_code == 401 and "cannot be loaded" not in r.text
        why = c.get(f"/api/matches/{match}?key=secret-key").json()["detail"]
        assert why.startswith("table 't3' cannot be loaded: its stored players cannot be read (")
        for path in ("/api/tables/t3/matches", "/api/tables/t3/snapshot", "/api/tables/t3/snapshot?channel=alerts"):
            r = c.get(path, headers=AUTH)
            assert (r.status_code, r.json()["detail"]) == (409, why), path
        for page in pages:
            for r in (c.get(page + "?key=secret-key"), c.get(page, headers=AUTH)):
                assert (r.status_code, page_text(r)) == (409, why), page
        # the table's own description says it with the key, as before (state error, and why)
        status = c.get("/api/tables/t3?key=secret-key").json()["status"]
        assert status["state"] == "error" and status["error"].startswith("the table cannot be loaded: its stored")


def _damaged_protected_table(tmp_path, monkeypatch, body: str) -> Path:
    """A data folder with a protected table "t3" (key "secret-key") whose one stored event has ``body``, and an
    open table "ok"."""
    import sqlite3

    monkeypatch.chdir(tmp_path)
    data = tmp_path / "data"
    with TestClient(app_for(data)) as c:
        post(c, "/api/tables", {"id": "ok", "name": "OK", "rules": RULES})
        post(c, "/api/tables", {"id": "t3", "name": "T3", "rules": RULES, "view_key": "secret-key"})
        post(c, "/api/tables/t3/start")  # a manual table takes events once started
        post(c, "/api/tables/t3/events", {"event": {"type": "pass", "seat": "N"}})
    (db,) = data.glob("*.db")
    with sqlite3.connect(db) as con:
        con.execute("UPDATE events SET body = ? WHERE table_id = 't3'", (body,))
    con.close()
    return data


def test_a_table_whose_stored_event_does_not_validate_says_why_in_one_line(tmp_path, monkeypatch, caplog):
    """helper-172: a stored event that pydantic refuses made the table's error its whole dump (two errors, six
    lines, links to pydantic's site) in the list, the status and the 409 page. It is one line now: where the
    event is and its first error; the service log keeps every line of it."""
    import html
    import logging
    import re

    data = _damaged_protected_table(tmp_path, monkeypatch, '{"type": "play", "seat": "N", "tile": [1, 2, 3], "t": -1}')
    why = "hand 1, event #0 as stored: not an event: play.t: Input should be greater than or equal to 0"
    with caplog.at_level(logging.ERROR, logger="dominocast.service"), TestClient(app_for(data)) as c:
        listed = {t["id"]: t for t in c.get("/api/tables", headers=AUTH).json()}
        assert listed["t3"]["error"] == f"the table cannot be loaded: {why}"
        assert c.get("/api/tables/t3/status", headers=AUTH).json()["error"] == f"the table cannot be loaded: {why}"
        r = c.get("/tables/t3/umpire?key=secret-key")
        assert r.status_code == 409
        assert html.unescape(re.search(r"<p>(.*?)</p>", r.text, re.S).group(1)) == (
            f"table 't3' cannot be loaded: {why} (delete it, or fix it and restart the service)")
    (logged,) = [rec for rec in caplog.records if "cannot be loaded" in rec.getMessage()]
    assert logged.getMessage() == f"table t3 cannot be loaded: {why}"
    detail = logging.Formatter().formatException(logged.exc_info)  # pydantic's every error, in the log only
    assert "2 validation errors" in detail and "play.tile" in detail and "not a tile: [1, 2, 3]" in detail


def test_the_list_tells_why_a_protected_table_cannot_be_loaded_only_with_its_key(tmp_path, monkeypatch):
    """helper-172: `GET /api/tables` without any key listed why a protected table cannot be loaded, which its own
    address tells only with its key (helper-169). Without the key (or with a wrong one) the list says only that
    it is unavailable and protected; with its key or the token, why; an open table's error goes to anyone."""
    data = _damaged_protected_table(tmp_path, monkeypatch, '{"type": "play", "seat": "N", "tile": [9, 1]}')
    _set_row(data, "ok", ruleset={"players": 2})  # an open table that cannot be loaded either
    why = "the table cannot be loaded: hand 1, event #0 (play): tile 9-1 is not in a double-6 set"
    with TestClient(app_for(data)) as c:
        def listed(query: str = "", **kw) -> dict:
            return {t["id"]: (t["state"], t["error"]) for t in c.get("/api/tables" + query, **kw).json()}

        open_why = "the table cannot be loaded: stored rule set: key 'name': Field required"
        protected = ("error", "unavailable; the table is protected: its view key (?key=) or the token tells why")
        for query in ("", "?key=wrong-key", "?token=wrong"):
            assert listed(query) == {"ok": ("error", open_why), "t3": protected}, query
        for answer in (listed("?key=secret-key"), listed(headers=AUTH), listed("?token=test-token")):
            assert answer == {"ok": ("error", open_why), "t3": ("error", why)}
        assert c.get("/api/tables/t3?key=secret-key").json()["status"]["error"] == why  # as its status says


def test_the_401_and_403_pages_of_a_protected_table_say_how_to_pass_the_key_or_token(tmp_path, monkeypatch):
    """helper-172: the 401 page of a protected umpire console whose table cannot be loaded said "add key=VIEW_KEY"
    but not that the umpire's token opens it too (?token=). Its 401 and 403 pages name both addresses, the
    page's other options kept; following either opens the 409 that says why."""
    import html
    import re

    data = _damaged_protected_table(tmp_path, monkeypatch, '{"type": "play", "seat": "N", "tile": [9, 1]}')
    with TestClient(app_for(data)) as c:
        for page, status, hint in (
                ("/tables/t3/umpire", 401, "/tables/t3/umpire?key=VIEW_KEY, or, as the umpire, with the service's "
                                           "token: /tables/t3/umpire?token=TOKEN."),
                ("/tables/t3/overlay?theme=solid&key=wrong", 403, "/tables/t3/overlay?theme=solid&key=VIEW_KEY, or, "
                 "as the umpire, with the service's token: /tables/t3/overlay?theme=solid&token=TOKEN.")):
            r = c.get(page)
            assert r.status_code == status, page
            said = html.unescape(re.search(r"<p class='hint'>(.*?)</p>", r.text).group(1))
            assert said == "Open it with the table's view key: " + hint, page
        for page in ("/tables/t3/umpire?token=test-token", "/tables/t3/overlay?theme=solid&key=secret-key"):
            r = c.get(page)
            assert r.status_code == 409 and "cannot be loaded" in r.text and "class='hint'" not in r.text, page


def test_after_a_clean_stop_the_database_file_alone_holds_everything(tmp_path):
    """helper-156: after a clean stop the newest rows were only in dominocast.db-wal, so a backup that
    copied dominocast.db alone lost them. Read here by sqlite3 from a copy of the one file."""
    import shutil
    import sqlite3

    data = tmp_path / "data"
    with TestClient(app_for(data)) as c:
        post(c, "/api/tables", {"id": "t1", "name": "One", "rules": RULES})
        post(c, "/api/tables/t1/start")  # a manual table takes events once started
        post(c, "/api/tables/t1/events", {"event": {"type": "pass", "seat": "N"}})
    assert sorted(p.name for p in data.glob("*.db*")) == ["dominocast.db"]
    shutil.copy(data / "dominocast.db", tmp_path / "backup.db")
    with sqlite3.connect(tmp_path / "backup.db") as con:
        assert con.execute("SELECT id, name FROM tables").fetchall() == [("t1", "One")]
        assert [json.loads(b) for (b,) in con.execute("SELECT body FROM events")] == [{"type": "pass", "seat": "N"}]
    con.close()


def test_a_failed_table_still_says_why_after_a_restart(tmp_path, monkeypatch):
    """helper-83: after a restart a failed table read 'stopped', error null: the reason was lost."""
    import service.sources as sources
    from service.testing import MissingVideoSource, wait_for

    monkeypatch.setitem(sources._FACTORIES, "vision", MissingVideoSource)
    with TestClient(app_for(tmp_path)) as c:
        assert c.post("/api/tables", headers=AUTH, json={"id": "cam", "name": "Cam", "rules": "all-fives",
                                                         "video_source": "/nope/v.mp4",
                                                         "worker": {"kind": "vision"}}).status_code == 201
        assert c.post("/api/tables/cam/start", headers=AUTH).status_code == 200
        wait_for(lambda: c.get("/api/tables/cam/status").json()["state"] == "error")
    with TestClient(app_for(tmp_path)) as c:
        st = c.get("/api/tables/cam/status").json()
        assert (st["state"], st["error"]) == ("error", "cannot open /nope/v.mp4: no such file")
        assert c.delete("/api/tables/cam", headers=AUTH).status_code in (200, 204)  # not live: deletable


def test_matches_of_schema_0003_take_their_tables_players_and_rules_and_keep_them(tmp_path):
    """Schema 0004 stores each match's players and rule set (helper-246: a table can be changed in place now);
    a match recorded before it takes its table's at the upgrade, so a later change of the table neither renames
    nor rescores it."""
    from alembic import command
    from alembic.config import Config

    from service.db import MIGRATIONS, make_engine
    from service.testing import settings_for

    data = tmp_path / "data"
    with TestClient(app_for(data)) as c:
        post(c, "/api/tables", {"id": "t1", "name": "T", "rules": "lisa-b-all-fives", "players": {"N": "Ana"},
                                "worker": {"kind": "manual"}})
    engine = make_engine(settings_for(data))
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:  # back to the schema before this one: its matches store neither
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0003")
    engine.dispose()
    with TestClient(app_for(data)) as c:  # upgraded at the start
        post(c, "/api/tables/t1/matches", {"players": {"N": "Eve"}})  # asserts its 2xx
        assert c.patch("/api/tables/t1", json={"rules": "all-fives"}, headers=AUTH).status_code == 200
        one, two = c.get("/api/matches/1").json(), c.get("/api/matches/2").json()
    assert (one["players"], one["rules"]) == ({"N": "Ana"}, "lisa-b-all-fives")
    assert (two["players"], two["rules"]) == ({"N": "Eve"}, "all-fives")


def test_alerts_of_schema_0004_are_for_the_umpire_after_the_upgrade(tmp_path):
    """Schema 0005 gives each alert a ``severity`` (service/alert_levels.py); an alert stored before it was one the
    umpire decides: ``action``, still open."""
    from alembic import command
    from alembic.config import Config

    from service.db import MIGRATIONS, make_engine
    from service.testing import settings_for

    data = tmp_path / "data"
    with TestClient(app_for(data)) as c:
        post(c, "/api/tables", {"id": "t1", "name": "T", "rules": "all-fives", "worker": {"kind": "manual"}})
        post(c, "/api/tables/t1/start")
        post(c, "/api/tables/t1/events", {"event": {"type": "play", "seat": "N", "tile": "5-5"}})
        post(c, "/api/tables/t1/events", {"event": {"type": "play", "seat": "S", "tile": "6-4", "end": "E"}})
    engine = make_engine(settings_for(data))
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:  # back to the schema before this one: no severity
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0004")
    engine.dispose()
    with TestClient(app_for(data)) as c:  # upgraded at the start
        alerts = c.get("/api/tables/t1/alerts", headers=AUTH).json()
    assert [(a["kind"], a["status"], a["severity"]) for a in alerts] == [("mismatched_end", "open", "action")]
