"""Service endpoints: tables, workers, events, matches/games/hands, records, uploads, pages (TestClient)."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from engine.record import from_json, to_json, record_from_match
from engine.record_text import read_text, write_text
from engine.ruleset import load_ruleset
from engine.simulate import simulate_match
from service.testing import AUTH, MissingVideoSource, app_for, mismatch_script, wait_for

def test_an_event_of_no_known_type_is_named_in_one_clean_message(client):
    """helper-143: "not an event: : Input tag 'bogus' found ..." (an empty location before the colon);
    helper-156: pydantic's words, "Input tag ... found using 'type' does not match any of the expected tags"."""
    manual_table(client, players={})
    post(client, "/api/tables/t1/start")
    types = "deal, play, pass, draw, take_back, penalty, reveal, hand_end, correction"
    for bad, why in (({"type": "bogus", "seat": "S"}, f"unknown event type 'bogus': one of {types}"),
                     ({"seat": "S"}, f"an event needs its type: one of {types}")):
        r = post(client, "/api/tables/t1/corrections", {"replaces": 0, "event": bad})
        assert (r.status_code, r.json()["detail"]) == (422, f"not an event: {why}"), r.text
    r = post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "S"}})
    assert (r.status_code, r.json()["detail"]) == (422, "not an event: play.tile: Field required"), r.text


def test_a_hand_end_naming_a_seat_not_playing_or_a_huge_penalty_is_refused(client):
    """helper-77: ``end domino E`` at a two-seat table was a 500 (or, with no deal, stored, and the
    reveal that completed the count a 500); a penalty of 10^23 points was stored and ended the match."""
    manual_table(client, players={})
    post(client, "/api/tables/t1/start")
    assert post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "N", "tile": "5-5"}}).status_code == 201
    for bad, why in (({"type": "hand_end", "kind": "domino", "winner": "E"}, "the winner 'E' is not playing (seats: N, S)"),
                     ({"type": "hand_end", "kind": "domino", "winner": "<script>"},
                      "event.winner: Input should be 'N', 'E', 'S' or 'W'"),
                     ({"type": "penalty", "seat": "S", "points": 10**23}, "points must be within +-1000, got 1000000"),
                     ({"type": "penalty", "seat": "S", "name": "bogus_play", "opponents": -1001},
                      "opponents' points must be within +-1000, got -1001")):
        r = post(client, "/api/tables/t1/events", {"event": bad})
        assert r.status_code in (409, 422) and why in r.json()["detail"], (bad, r.text)
    r = post(client, "/api/tables/t1/hands/1/confirm", {"end": {"kind": "domino", "winner": "E"}})
    assert r.status_code in (409, 422) and "not playing" in r.json()["detail"], r.text
    assert [e["type"] for e in client.get("/api/matches/1/hands/1").json()["events"]] == ["play"]
    assert post(client, "/api/tables/t1/events", {"event": {"type": "penalty", "seat": "S", "points": -1000}}).status_code == 201
    # read leniently before: [true, false] as 1-0, true as 1 s; a 1.5 MB reason went into every snapshot
    for bad, why in (({"type": "play", "seat": "S", "tile": [True, False], "end": "E"}, "not a tile: [True, False]"),
                     ({"type": "pass", "seat": "S", "t": True}, "a number, not true/false"),
                     ({"type": "penalty", "seat": "S", "points": -5, "reason": "x" * 501}, "at most 500 characters")):
        r = post(client, "/api/tables/t1/events", {"event": bad})
        assert r.status_code == 422 and why in r.text, (bad, r.text)


MANUAL = {"id": "t1", "name": "Table 1", "rules": "lisa-b-all-fives", "players": {"N": "Ana", "S": "Bob"},
          "video_source": "rtsp://cam1/stream", "calibration": "calibration/t1.json", "worker": {"kind": "manual"}}


@pytest.fixture()
def client(tmp_path):
    with TestClient(app_for(tmp_path)) as c:
        yield c


def post(c, path, body=None, **kw):
    return c.post(path, json=body if body is not None else {}, headers=AUTH, **kw)


def manual_table(c, **extra):
    r = post(c, "/api/tables", {**MANUAL, **extra})
    assert r.status_code == 201, r.text
    return r.json()


def test_health_rulesets_and_pages(client):
    assert client.get("/api/health").json()["ok"] is True
    presets = {r["name"]: r for r in client.get("/api/rulesets").json()}
    assert "bogus_play" in presets["lisa-b-all-fives"]["penalties"]
    manual_table(client)
    for path in ("/", "/tables/t1/overlay", "/tables/t1/umpire", "/matches/1/review", "/static/common.js",
                 "/static/overlay.js", "/static/umpire.js", "/static/review.js", "/static/style.css"):
        r = client.get(path)
        assert r.status_code == 200, path
    assert "<svg" not in client.get("/tables/t1/overlay").text  # drawn by the script from the feed
    huge = "99999999999999999999999"  # past SQLite's integers: it overflowed the query (a 500)
    for path in (f"/api/matches/{huge}", f"/api/matches/{huge}/record.json", f"/api/matches/{2**63}/timeline"):
        assert client.get(path, headers=AUTH).status_code == 404, path
    assert client.post(f"/api/tables/t1/alerts/{huge}/confirm", json={}, headers=AUTH).status_code == 404
    for path in ("/matches/999/review", "/matches/abc/review", "/tables/nope/umpire", f"/matches/{huge}/review"):
        r = client.get(path)
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html"), path
    r = client.get("/api/tables/t1/alerts?status=bogus", headers=AUTH)
    assert r.status_code == 422 and "status" in r.json()["detail"]


def test_rulesets_name_each_source_as_the_rules_command_does(client):
    """The API listed no source, and a table's stored rule set gives the seed's id; ``/api/rulesets`` names a
    tournament text by its title and seed file, as ``dominocast rules`` does, and other sources as written."""
    import tomllib

    from engine.ruleset import RULESET_DIR

    presets = {r["name"]: r for r in client.get("/api/rulesets").json()}
    lisa = tomllib.loads((RULESET_DIR / "lisa-b-all-fives.toml").read_text(encoding="utf-8"))
    assert lisa["source"] == "seed 000_708a877065d77bfc (Lisa B. Domino Tournament rules)"
    assert (presets["lisa-b-all-fives"]["title"], presets["lisa-b-all-fives"]["source"]) == (
        lisa["title"], "Lisa B. Domino Tournament rules (seed file 000_708a877065d77bfc.txt)")
    plain = tomllib.loads((RULESET_DIR / "all-fives.toml").read_text(encoding="utf-8"))
    assert presets["all-fives"]["source"] == plain["source"] == "pagat.com All Fives"


def test_register_list_get_status_start_stop_delete(client):
    info = manual_table(client)
    assert info["id"] == "t1" and info["status"]["state"] == "stopped" and info["calibration"] == "calibration/t1.json"
    assert [t["id"] for t in client.get("/api/tables").json()] == ["t1"]
    assert client.get("/api/tables/t1").json()["players"] == {"N": "Ana", "S": "Bob"}
    assert post(client, "/api/tables", MANUAL).status_code == 409  # exists
    st = post(client, "/api/tables/t1/start").json()
    assert st["state"] == "running" and st["connected"] is True
    assert client.get("/api/tables/t1/status").json()["state"] == "running"
    r = client.delete("/api/tables/t1", headers=AUTH)
    assert r.status_code == 409 and "stop it first" in r.json()["detail"]
    assert post(client, "/api/tables/t1/stop").json()["state"] == "stopped"
    assert client.delete("/api/tables/t1", headers=AUTH).json() == {"deleted": "t1"}
    assert client.get("/api/tables/t1").status_code == 404


def test_slug_from_name_and_teams(client):
    r = post(client, "/api/tables", {"name": "Final Table!", "rules": "bdc-partnership",
                                     "players": {"N": "A", "E": "B", "S": "C", "W": "D"},
                                     "teams": {"NS": "Tigres", "EW": "Leones"}})
    assert r.status_code == 201, r.text
    assert r.json()["id"] == "final-table"
    state = client.get("/api/tables/final-table/snapshot").json()["data"]["state"]
    assert state["teams"]["NS"]["name"] == "Tigres" and sorted(state["teams"]["EW"]["players"]) == ["B", "D"]


@pytest.mark.parametrize("body, fragment", [
    ({"name": "x", "rules": "no-such-preset"}, "no-such-preset"),
    ({"name": "x", "rules": "lisa-b-all-fives", "players": {"E": "Eve"}}, "seat 'E' is not playing"),
    ({"name": "x", "rules": "lisa-b-all-fives", "teams": {"NS": "team"}}, "no side 'NS'"),
    ({"name": "x", "rules": "lisa-b-all-fives", "overrides": {"players": 9}}, "players"),
    ({"name": ""}, "name"),
    ({"name": "x", "colour": "red"}, "colour"),
    ({"name": "x", "worker": {"kind": "robot"}}, "worker.kind"),
    ({"name": "x", "players": {"Q": "who"}}, "players"),
    ({"name": "x", "id": "Bad Id"}, "id"),
])
def test_bad_table_bodies_get_422_with_a_message(client, body, fragment):
    r = post(client, "/api/tables", body)
    assert r.status_code == 422, r.text
    assert fragment in r.json()["detail"]


def test_a_bad_table_id_is_refused_in_words(client):
    """helper-174: ``"id": "Mesa-1"`` got pydantic's "String should match pattern '^[a-z0-9][a-z0-9_-]{0,63}$'",
    which the index page's Id box showed as it was."""
    for bad, got in (("Mesa-1", "'Mesa-1'"), ("-x", "'-x'"), ("x" * 65, "65 characters")):
        r = post(client, "/api/tables", {"name": "x", "id": bad})
        assert (r.status_code, r.json()["detail"]) == (422, "id: lower-case letters, digits, - and _ only, 1 to 64 "
                                                            f"characters, starting with a letter or digit (got {got}; "
                                                            "leave it out to have one made from the name)"), r.text
    assert post(client, "/api/tables", {"name": "x", "id": "mesa_1-b"}).status_code == 201


def test_an_address_that_is_no_page_answers_a_browser_with_a_page(client):
    """helper-174: ``/tables/mesa-1``, ``/matches/1`` or ``/health`` typed in a browser showed
    ``{"detail":"Not Found"}``; the page says so and links the pages meant. API clients keep JSON."""
    manual_table(client)
    browser = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
    for path, links in (("/tables/t1", ["/tables/t1/overlay", "/tables/t1/umpire", "/api/tables/t1"]),
                        ("/matches/1", ["/matches/1/review", "/api/matches/1"]), ("/health", ["/api/health"]),
                        ("/tables/nope", []), ("/api", ["/docs"]), ("/static/", [])):
        r = client.get(path, headers=browser)
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html"), path
        assert f"there is no page at {path}" in r.text and "<a href='/'>All tables</a>" in r.text, path
        assert [a for a in links if f"href='{a}'" not in r.text] == [], path
        assert client.get(path).json() == {"detail": "Not Found"}  # no HTML asked for
    for path in ("/tables/nope", "/tables/nope/x", "/matches/99"):  # no such table or match: no API link (its 404)
        r = client.get(path, headers=browser)
        assert r.status_code == 404 and "href='/api/" not in r.text, (path, r.text)
    # helper-179: the links kept no view key (or token), so a protected table's pages failed on its data
    assert post(client, "/api/tables", {"id": "p1", "name": "P", "view_key": "pkey-1234",
                                        "worker": {"kind": "manual"}}).status_code == 201
    r = client.get("/tables/p1?x=1&key=pkey-1234", headers=browser)
    assert [a for a in ("/tables/p1/overlay", "/tables/p1/umpire", "/api/tables/p1")
            if f"href='{a}?key=pkey-1234'" not in r.text] == [], r.text
    assert "href='/docs'" in client.get("/api/x?token=t", headers=browser).text
    r = client.get("/api/matches/9", headers=browser)  # the API's own 404s stay the API's
    assert r.json() == {"detail": "no match 9"}


def test_a_manual_table_takes_events_once_started(client):
    """helper-174: a manual table never started took an event (201) while /api/health did not list it as live;
    the docs' step 2 starts every table. Its events are refused until it is started, and again once stopped."""
    manual_table(client)
    play = {"event": {"type": "play", "seat": "N", "tile": "6-2"}}
    r = post(client, "/api/tables/t1/events", play)
    assert (r.status_code, r.json()["detail"]) == (409, "table 't1' is stopped: start it (POST /api/tables/t1/start) "
                                                        "before entering its events")
    assert client.get("/api/matches/1").json()["hands"] == []  # nothing stored
    post(client, "/api/tables/t1/start")
    assert post(client, "/api/tables/t1/events", play).status_code == 201
    post(client, "/api/tables/t1/stop")
    assert post(client, "/api/tables/t1/events", {"event": {"type": "pass", "seat": "S"}}).status_code == 409
    # a scripted table's source is its script: the umpire's own events are taken, running or not
    assert post(client, "/api/tables", {"id": "s1", "name": "S", "rules": "all-fives",
                                        "worker": {"kind": "scripted"}}).status_code == 201
    assert post(client, "/api/tables/s1/events", play).status_code == 201


def test_a_rule_set_is_found_as_typed_and_shown_as_the_presets_list_shows_it(client, tmp_path, monkeypatch):
    """helper-174: ``All-Fives`` was an unknown rule set; a relative path was refused without saying it is read
    from the service's folder; the table's ``ruleset.source`` named lisa-b by its seed's id where
    ``GET /api/rulesets`` names it by its title and file."""
    r = post(client, "/api/tables", {"id": "a", "name": "A", "rules": " All_Fives"})
    assert r.status_code == 201 and r.json()["rules"] == "all-fives"  # stored by the preset's own name
    monkeypatch.chdir(tmp_path)
    r = post(client, "/api/tables", {"name": "x", "rules": "engine/rulesets/all-fives.toml"})
    assert (r.status_code, r.json()["detail"]) == (422, "rules: engine/rulesets/all-fives.toml: no such rule set file "
                                                        f"(a relative path is read from the service's folder, {tmp_path})")
    listed = {p["name"]: p["source"] for p in client.get("/api/rulesets").json()}
    r = post(client, "/api/tables", {"id": "l", "name": "L", "rules": "lisa-b-all-fives"})
    assert r.json()["ruleset"]["source"] == listed["lisa-b-all-fives"] == client.get("/api/tables/l").json()[
        "ruleset"]["source"]
    assert listed["lisa-b-all-fives"].startswith("Lisa B. Domino Tournament rules (seed file ")


def test_a_hand_that_does_not_exist_is_counted_in_good_english(client):
    """helper-174: "hand 99 does not exist (the match has 1 hands)", from an event and from a confirmation."""
    manual_table(client)
    post(client, "/api/tables/t1/start")
    assert post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "N", "tile": "6-6"}}).status_code == 201
    for path, body in (("events", {"event": {"type": "pass", "seat": "S"}, "hand": 99}), ("hands/99/confirm", {})):
        r = post(client, f"/api/tables/t1/{path}", body)
        assert (r.status_code, r.json()["detail"]) == (404, "hand 99 does not exist (the match has 1 hand)"), path


def test_malformed_json_is_422_not_500(client):
    r = client.post("/api/tables", content=b"{nope", headers={**AUTH, "Content-Type": "application/json"})
    assert r.status_code == 422 and "JSON" in r.json()["detail"]


@pytest.mark.parametrize("content, content_type", [(b"", "application/json"), (b"[1]", "application/json"),
                                                   (b'{"name": "x"}', None), (b'{"name": "x"}', "text/plain")])
def test_a_body_that_is_no_json_object_is_told_so(client, content, content_type):
    """An empty body, a JSON array or a body sent without the JSON content type were answered
    "body: Field required" / "body: Input should be a valid dictionary ..." (helper-64)."""
    headers = {**AUTH, **({"Content-Type": content_type} if content_type else {})}
    r = client.post("/api/tables", content=content, headers=headers)
    assert (r.status_code, r.json()) == (422, {
        "detail": "the request needs a JSON object as its body (Content-Type: application/json)"})


@pytest.mark.parametrize("content", [b'{"event": "\xff\xfe"}', b"[" * 5_000 + b"]" * 5_000])
def test_a_body_json_cannot_read_is_422_with_a_reason(client, content):
    """Invalid UTF-8 or thousands of nested brackets were FastAPI's 400 "There was an error parsing
    the body" (helper-66)."""
    r = client.post("/api/tables", content=content, headers={**AUTH, "Content-Type": "application/json"})
    assert (r.status_code, r.json()) == (422, {
        "detail": "the body is not JSON that can be read (invalid UTF-8, or nested too deeply)"})


def test_a_nan_speed_is_refused_as_not_finite(client):
    """NaN passed every bound check in pydantic and was refused as "less than or equal to 10000"."""
    r = client.post("/api/tables/x/start", content=b'{"speed": NaN}', headers={**AUTH, "Content-Type": "application/json"})
    assert (r.status_code, r.json()) == (422, {"detail": "speed: Input should be a finite number"})


@pytest.mark.parametrize("extra, fragment", [
    ({"t": 1e999}, "t: Input should be a finite number"),
    ({"t": -5}, "t: Input should be greater than or equal to 0"),
    ({"confidence": 7}, "confidence: Input should be less than or equal to 1"),
    ({"frame": -1}, "frame: Input should be greater than or equal to 0"),
])
def test_events_with_times_or_confidences_out_of_range_are_422(client, extra, fragment):
    """They were stored, then sent as ``Infinity`` on the feeds and in record.json (not JSON)."""
    manual_table(client)
    post(client, "/api/tables/t1/start")
    r = client.post("/api/tables/t1/events", headers={**AUTH, "Content-Type": "application/json"},
                    content=json.dumps({"event": {"type": "play", "seat": "N", "tile": "6-4", **extra}}).replace(
                        "Infinity", "1e999"))
    assert r.status_code == 422 and fragment in r.json()["detail"], r.text
    assert client.get("/api/tables/t1/snapshot").json()["data"]["state"]["hand"] is None  # nothing stored
    assert client.get("/api/matches/1/hands/1").status_code == 404


def test_a_tile_outside_the_tables_set_is_invalid_input_not_an_engine_refusal(client):
    """helper-220: a play of [9, 5] at a double-six table answered 409 "the engine refused the event": no
    hand could hold that tile, so it is a bad value (422, as fix-tile's tile), and nothing is stored."""
    manual_table(client)
    post(client, "/api/tables/t1/start")
    assert post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "N", "tile": "5-5"}}).status_code == 201
    for bad, tile in (({"type": "play", "seat": "S", "tile": [9, 5], "end": "E"}, "9-5"),
                      ({"type": "take_back", "seat": "N", "tile": "7-0"}, "7-0"),
                      ({"type": "reveal", "seat": "S", "tiles": ["1-1", "6-7"]}, "6-7"),
                      ({"type": "draw", "seat": "S", "tiles": ["12-3"]}, "12-3"),
                      ({"type": "deal", "hands": {"N": ["0-0", "8-8"]}}, "8-8")):
        r = post(client, "/api/tables/t1/events", {"event": bad, "hand": 1})
        assert (r.status_code, r.json()["detail"]) == (422, f"event: tile {tile} is not in a double-6 set"), r.text
    r = post(client, "/api/tables/t1/corrections", {"replaces": 0, "event": {"type": "play", "seat": "N",
                                                                             "tile": [5, 9]}})
    assert (r.status_code, r.json()["detail"]) == (422, "event: tile 5-9 is not in a double-6 set"), r.text
    assert [e["type"] for e in client.get("/api/matches/1/hands/1").json()["events"]] == ["play"]
    # a tile of the set that cannot be played now is still the engine's to refuse
    r = post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "S", "tile": "5-5", "end": "E"}})
    assert r.status_code == 409 and r.json()["detail"].startswith("the engine refused the event: "), r.text


def test_manual_events_and_records(client):
    manual_table(client)
    post(client, "/api/tables/t1/start")
    logs = simulate_match(load_ruleset("lisa-b-all-fives"), 11, max_hands=1)
    for ev in logs[0]:
        r = post(client, "/api/tables/t1/events", {"event": json.loads(ev.model_dump_json())})
        assert r.status_code == 201, r.text
    rows = client.get("/api/matches/1/timeline").json()["rows"]
    assert len([r for r in rows if r["type"] != "game_end"]) == len(logs[0])
    # illegal: a tile already on the table -> 409 with the engine's reason
    first_play = next(e for e in logs[0] if e.type == "play")
    r = post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "N", "tile": [first_play.tile.a, first_play.tile.b],
                                                         "end": "E"}, "new_hand": False})
    assert r.status_code == 409 and "refused" in r.json()["detail"]
    # bad events -> 422
    for bad in ({"type": "play", "seat": "N"}, {"type": "dance"}, {"type": "penalty", "seat": "N"},
                {"type": "play", "seat": "N", "tile": "9-9-9"}):
        r = post(client, "/api/tables/t1/events", {"event": bad})
        assert r.status_code == 422, (bad, r.text)
        assert r.json()["detail"]
    # records
    expected = record_from_match(load_ruleset("lisa-b-all-fives"), logs, {"N": "Ana", "S": "Bob"},
                                 {"table": "Table 1"})
    rec = from_json(client.get("/api/matches/1/record.json").text)
    assert rec.logs == expected.logs and rec.hands[0].result == expected.hands[0].result
    assert to_json(rec) == to_json(expected)
    txt = client.get("/api/matches/1/record.txt").text
    assert txt == write_text(expected) and read_text(txt).logs == expected.logs
    m = client.get("/api/matches/1").json()
    assert m["hands"][0]["status"] == "over" and m["games"][0]["number"] == 1
    g = client.get("/api/matches/1/games/1").json()
    assert len(g["hand_records"]) == 1
    h = client.get("/api/matches/1/hands/1").json()
    assert len(h["events"]) == len(logs[0]) and h["sources"][0]["source"] == "manual"
    assert client.get("/api/matches/1/hands/9").status_code == 404
    assert client.get("/api/matches/1/games/9").status_code == 404
    assert client.get("/api/matches/99").status_code == 404


def test_matches_new_match_and_list(client):
    manual_table(client, title="Round 1")
    ms = client.get("/api/tables/t1/matches").json()
    assert [(m["number"], m["title"], m["current"]) for m in ms] == [(1, "Round 1", True)]
    r = post(client, "/api/tables/t1/matches", {"title": "Round 2"})
    assert r.status_code == 201 and r.json()["number"] == 2
    ms = client.get("/api/tables/t1/matches").json()
    assert [m["current"] for m in ms] == [False, True]
    assert post(client, "/api/tables/t1/matches", {"title": 5}).status_code == 422
    # the status names the match by its number at the table as well as its id (helper-87)
    st = client.get("/api/tables/t1/status").json()
    assert (st["match"], st["match_number"]) == (ms[-1]["id"], 2)


def test_scripted_worker_runs_a_simulated_match(client):
    r = post(client, "/api/tables", {"id": "s1", "name": "Sim", "rules": "lisa-b-all-fives",
                                     "worker": {"kind": "scripted", "speed": 1000, "interval": 1,
                                                "simulate": {"seed": 2, "hands": 2}}})
    assert r.status_code == 201
    total = r.json()["script_events"]
    post(client, "/api/tables/s1/start")
    st = wait_for(lambda: (s := client.get("/api/tables/s1/status").json())["state"] == "finished" and s)
    assert st["position"] == total and st["hand"]["number"] == 2
    logs = simulate_match(load_ruleset("lisa-b-all-fives"), 2, max_hands=2)
    assert from_json(client.get("/api/matches/1/record.json").text).logs == logs
    # the seed deals every hand, so only the umpire reads it
    assert client.get("/api/tables/s1").json()["worker"]["simulate"] == {"hands": 2}
    assert client.get("/api/tables/s1", headers=AUTH).json()["worker"]["simulate"] == {"seed": 2, "hands": 2}


def test_script_upload_formats_and_limits(tmp_path):
    with TestClient(app_for(tmp_path, max_upload_bytes=20_000)) as c:
        post(c, "/api/tables", {"id": "s1", "name": "S", "rules": "lisa-b-all-fives", "worker": {"kind": "scripted"}})
        r = post(c, "/api/tables/s1/start")
        assert r.status_code == 409 and "no script" in r.json()["detail"]
        rules = load_ruleset("lisa-b-all-fives")
        rec = record_from_match(rules, simulate_match(rules, 4, max_hands=1))
        put = lambda body, ct="application/json": c.put("/api/tables/s1/script", content=body,  # noqa: E731
                                                         headers={**AUTH, "Content-Type": ct})
        r = put(to_json(rec))
        assert r.status_code == 200 and r.json()["hands"] == 1
        assert put(write_text(rec), "text/plain").json()["events"] == len(rec.logs[0])
        # a record of other rules re-scored under the table's, or "the match is already over" (helper-77)
        other = load_ruleset("all-fives")
        r = put(to_json(record_from_match(other, simulate_match(other, 4, max_hands=1))))
        assert (r.status_code, r.json()["detail"]) == (422, "the upload was played under all-fives and this table "
                                                            "plays lisa-b-all-fives: upload it to a table with those rules")
        r = put(to_json(record_from_match(rules.model_copy(update={"target": 100}), rec.logs)))  # other parameters
        assert r.json()["detail"] == ("the upload was played with lisa-b-all-fives's target 100, this table's is "
                                      "200: upload it to a table with those rules")
        yaml_script = "rules: lisa-b-all-fives\nhands:\n  - events:\n    - N 6-6\n    - S 6-4 E\n"
        assert put(yaml_script, "application/yaml").json() == {"table": "s1", "hands": 1, "events": 2}
        # a script naming other rules is refused as a record is (helper-83: `rules: block` was ignored)
        r = put(yaml_script.replace("lisa-b-all-fives", "block"), "application/yaml")
        assert (r.status_code, r.json()["detail"]) == (422, "the upload was played under block and this table "
                                                            "plays lisa-b-all-fives: upload it to a table with those rules")
        r = put(yaml_script.replace("lisa-b-all-fives", "/etc/rules.toml"), "application/yaml")
        assert r.status_code == 422 and "is not a preset" in r.json()["detail"]
        assert put(yaml_script.replace("rules: lisa-b-all-fives\n", ""), "application/yaml").status_code == 200
        assert put("x" * 30_000).status_code == 413
        # any body declared over the limit is refused before it is read (a 3 MB non-JSON body was a 422)
        big = c.post("/api/tables/s1/events", content=b"x" * 30_000, headers={**AUTH, "Content-Type": "application/json"})
        assert (big.status_code, big.json()) == (413, {"detail": "upload too large: the limit is 20000 bytes"})
        r = c.put("/api/tables/s1/script", content=iter([b"x" * 15_000, b"x" * 15_000]), headers=AUTH)  # chunked
        assert r.status_code == 413
        # a JSON body sent in chunks was read whole, whatever its size (helper-64); it stops at the limit
        chunks = iter([b'{"event": {"type": "pass", "seat": "N", "note": "' + b"x" * 15_000, b"x" * 15_000 + b'"}}'])
        big = c.post("/api/tables/s1/events", content=chunks, headers={**AUTH, "Content-Type": "application/json"})
        assert (big.status_code, big.json()) == (413, {"detail": "upload too large: the limit is 20000 bytes"})
        small = c.post("/api/tables/s1/events", content=iter([b'{"event": {"type": "pass",', b' "seat": "N"}}']),
                       headers={**AUTH, "Content-Type": "application/json"})
        assert (small.status_code, small.json()["row"]["text"]) == (201, "N pass")  # under it: read as before
        r = put("just some words")
        assert r.status_code == 422 and "not a record or script" in r.json()["detail"]
        r = put("[" * 5_000 + "]" * 5_000)  # was a 500 (helper-66)
        assert (r.status_code, r.json()["detail"]) == (422, "not a record or script: nested too deeply to read")
        r = put('{"format": "dominocast-record", "version": 9}')
        assert r.status_code == 422 and "newer" in r.json()["detail"]
        r = put("hands:\n  - events:\n    - N 6-6\n    - N 6-6\n")
        assert r.status_code == 422 and "does not replay" in r.json()["detail"]
        r = put("hands:\n  - evnts:\n    - N 6-6\n")  # as `score` says it (helper-225; was "'events' must be a list")
        assert (r.status_code, r.json()["detail"]) == (422, "hands[0]: unknown key 'evnts' (keys: events)")
        assert c.put("/api/tables/s1/script", content=b"\xff\xfe", headers=AUTH).status_code == 422


def test_vision_worker_with_a_missing_camera_says_why(client):
    import time
    from pathlib import Path

    post(client, "/api/tables", {"id": "v1", "name": "Cam", "rules": "all-fives", "video_source": "/dev/video0",
                                 "worker": {"kind": "vision"}})
    r = post(client, "/api/tables/v1/start")
    if not (Path(__file__).resolve().parents[1] / "models" / "tile_detector.onnx").is_file():
        assert r.status_code == 501 and "tile_detector.onnx" in r.json()["detail"]
        assert client.get("/api/tables/v1/status").json()["state"] == "stopped"
        return
    assert r.status_code == 200
    deadline = time.monotonic() + 20
    while client.get("/api/tables/v1/status").json()["state"] != "error" and time.monotonic() < deadline:
        time.sleep(0.1)
    status = client.get("/api/tables/v1/status").json()
    assert status["state"] == "error" and "/dev/video0" in status["error"]


def test_mjpeg_endpoint_is_503_without_a_running_vision_worker(client):
    manual_table(client)
    r = client.get("/api/tables/t1/video.mjpg")
    assert r.status_code == 503 and "no video worker" in r.json()["detail"]


def test_unknown_table_is_404_everywhere(client):
    for path in ("/api/tables/zz", "/api/tables/zz/status", "/api/tables/zz/snapshot", "/api/tables/zz/matches",
                 "/api/tables/zz/alerts", "/api/tables/zz/video.mjpg"):
        assert client.get(path).status_code == 404, path
    for path in ("/api/tables/zz/start", "/api/tables/zz/stop", "/api/tables/zz/matches"):
        assert post(client, path).status_code == 404, path
    assert post(client, "/api/tables/zz/events", {"event": {"type": "pass", "seat": "N"}}).status_code == 404
    for path in ("/tables/zz/overlay", "/tables/zz/umpire"):  # the pages too, as the API (was: 200 and a blank page)
        r = client.get(path)
        assert r.status_code == 404, path
        assert r.headers["content-type"].startswith("text/html") and "no table &#x27;zz&#x27;" in r.text


def test_snapshot_shape_after_a_bad_play(client):
    script, info = mismatch_script()
    post(client, "/api/tables", {**MANUAL, "id": "m1"})
    assert post(client, "/api/tables/m1/start").status_code == 200  # a manual table takes events once started
    for ev in script[0]:
        post(client, "/api/tables/m1/events", {"event": ev})
    state = client.get("/api/tables/m1/snapshot").json()["data"]["state"]
    hand = state["hand"]
    assert hand["last_play"]["flags"][0]["kind"] == "mismatched_end"
    assert any(t["flagged"] for t in hand["layout"]["tiles"])
    assert len(hand["layout"]["tiles"]) == info["index"]  # the deal is not a tile
    assert state["alerts_open"] == 1
    # a new match: the earlier match's flag, still open, is not this match's (the overlay showed a
    # confirmed flag of the new match while it was open); the status still counts it apart
    assert post(client, "/api/tables/m1/matches", {"title": "Round 2"}).status_code == 201
    assert client.get("/api/tables/m1/snapshot").json()["data"]["state"]["alerts_open"] == 0
    st = client.get("/api/tables/m1/status").json()
    assert (st["alerts_open"], st["alerts_open_earlier"]) == (0, 1)
    for ev in script[0]:
        post(client, "/api/tables/m1/events", {"event": ev})
    assert client.get("/api/tables/m1/snapshot").json()["data"]["state"]["alerts_open"] == 1
    assert len([a for a in client.get("/api/tables/m1/alerts", headers=AUTH).json() if a["status"] == "open"]) == 2


def test_serve_command_is_registered():
    from typer.testing import CliRunner

    from service.cli import app

    out = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200", "TERM": "dumb"})
    assert out.exit_code == 0
    for option in ("--host", "--port", "--db", "--data-dir", "DOMINOCAST_TOKEN"):
        assert option in out.output


def test_api_docs_load_nothing_from_the_internet(client):
    """A venue's network may have no internet: /docs must not point at a CDN, and what it loads is served here."""
    import re

    for page in ("/docs", "/redoc"):
        text = client.get(page).text
        assert client.get(page).status_code == 200 and "cdn." not in text and "https://" not in text
        assets = re.findall(r"""(?:src|href)=["']?(/[^"' >]+\.(?:js|css))""", text)
        assert assets, text[:300]
        assert all(client.get(a).status_code == 200 for a in assets)
    icon = client.get("/favicon.ico")  # every page load asked for it and logged a 404 (helper-79)
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml" and b"<svg" in icon.content


def test_a_penalty_with_neither_name_nor_points_is_422_not_500(client):
    """All-fives names no penalty, so the console sent ``name: ""`` with an empty points box: the engine
    scored it 0 and writing it (notation, feed) crashed with a TypeError, a 500."""
    manual_table(client, rules="all-fives", players={})
    post(client, "/api/tables/t1/start")
    for bad in ({"type": "penalty", "seat": "N", "name": ""}, {"type": "penalty", "seat": "N", "name": "  "},
                {"type": "penalty", "seat": "N", "opponents": 5}):
        r = post(client, "/api/tables/t1/events", {"event": bad})
        assert r.status_code == 422, (bad, r.text)
        assert r.json()["detail"] == ("a penalty needs a rule-set penalty 'name' or explicit 'points' "
                                      "(seat N has neither)")
    r = post(client, "/api/tables/t1/corrections", {"replaces": 0, "event": {"type": "penalty", "seat": "N", "name": ""}})
    assert r.status_code == 422  # the event is checked first, as above
    assert client.get("/api/tables/t1/snapshot").json()["data"]["state"]["hand"] is None
    # points with a blank name: a fine, stored without the name
    r = post(client, "/api/tables/t1/events", {"event": {"type": "penalty", "seat": "N", "name": "", "points": -10}})
    assert r.status_code == 201, r.text
    assert client.get("/api/matches/1/hands/1").json()["events"] == [{"type": "penalty", "seat": "N", "points": -10}]
    r = post(client, "/api/tables/t1/corrections", {"replaces": 0, "event": {"type": "penalty", "seat": "S", "name": ""}})
    assert r.status_code == 422 and "seat S has neither" in r.json()["detail"]
    assert client.get("/api/tables/t1/snapshot").json()["data"]["state"]["game"]["scores"] == {"N": -10, "S": 0}


def test_a_script_upload_never_replaces_a_running_match(client):
    """A running manual table took the upload (200) and opened a new match: its hand went out of view."""
    manual_table(client)
    post(client, "/api/tables/t1/start")
    assert post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "N", "tile": "6-6"}}).status_code == 201
    script = "hands:\n  - events:\n    - N 6-6\n"
    r = client.put("/api/tables/t1/script", content=script, headers=AUTH)
    assert r.status_code == 409 and r.json()["detail"] == "table 't1' is manual: only a scripted table replays a script"
    post(client, "/api/tables/t1/stop")
    assert client.put("/api/tables/t1/script", content=script, headers=AUTH).status_code == 409  # stopped: still manual
    assert [m["number"] for m in client.get("/api/tables/t1/matches").json()] == [1]
    r = post(client, "/api/tables/t1/hands/1/confirm", {"end": {"kind": "umpire"}})
    assert r.status_code == 200 and r.json()["result"]["kind"] == "umpire"
    # a scripted table: refused while it runs, taken once it finished (its next start is a new match)
    post(client, "/api/tables", {"id": "s1", "name": "S", "rules": "lisa-b-all-fives",
                                 "worker": {"kind": "scripted", "interval": 600, "simulate": {"seed": 1, "hands": 1}}})
    post(client, "/api/tables/s1/start")
    r = client.put("/api/tables/s1/script", content=script, headers=AUTH)
    assert r.status_code == 409 and r.json()["detail"] == "table 's1' is running: stop it before uploading a script"
    post(client, "/api/tables/s1/stop")
    assert client.put("/api/tables/s1/script", content=script, headers=AUTH).json()["events"] == 1


def test_a_script_upload_is_parsed_and_replayed_off_the_event_loop(client, monkeypatch):
    """helper-198: a script of 6000 redeal hands (42 kB) took 7 s of CPU on the event loop: every table's feeds and
    every other request (``/api/health`` too) stood still until it was replayed. Now a worker thread does it."""
    import asyncio

    import service.routes_tables as routes_tables

    on_loop = []
    real = routes_tables.replay_match

    def replay(rules, logs):  # noqa: ANN001, ANN202
        try:
            asyncio.get_running_loop()
            on_loop.append(True)
        except RuntimeError:  # no loop runs in this thread: a worker thread
            on_loop.append(False)
        return real(rules, logs)

    monkeypatch.setattr(routes_tables, "replay_match", replay)
    post(client, "/api/tables", {"id": "s1", "name": "S", "rules": "all-fives", "worker": {"kind": "scripted"}})
    script = "hands:\n  - &h [{type: hand_end, kind: redeal}]\n" + "  - *h\n" * 20
    r = client.put("/api/tables/s1/script", content=script, headers=AUTH)
    assert r.status_code == 200 and r.json() == {"table": "s1", "hands": 21, "events": 21}, r.text
    assert on_loop == [False]
    r = client.put("/api/tables/s1/script", content=b"\xff", headers=AUTH)  # refusals still said as before
    assert (r.status_code, r.json()["detail"]) == (422, "the upload is not UTF-8 text")


def test_player_and_team_names_are_capped_like_the_others(client):
    r = post(client, "/api/tables", {"name": "x", "rules": "all-fives", "players": {"N": "a" * 100_000}})
    assert r.status_code == 422 and r.json()["detail"] == "players.N: String should have at most 200 characters"
    r = post(client, "/api/tables", {"name": "x", "rules": "all-fives", "teams": {"N": "b" * 201}})
    assert r.status_code == 422 and r.json()["detail"] == "teams.N: String should have at most 200 characters"
    assert client.get("/api/tables").json() == []
    r = post(client, "/api/tables", {"name": "x", "rules": "all-fives", "players": {"N": "a" * 200}})
    assert r.status_code == 201 and r.json()["players"]["N"] == "a" * 200


def test_an_event_slot_another_writer_took_is_a_409_and_nothing_is_lost(client):
    """helper-143: a second service writing the same database took the next event slot; this service's
    append then failed the slot's unique constraint and answered 500. Now a 409 that says why, and
    nothing of the refused request is written."""
    import time

    from service.models import EventRow

    manual_table(client, players={})
    post(client, "/api/tables/t1/start")
    assert post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "N", "tile": "5-5"}}).status_code == 201
    with client.app.state.factory() as s, s.begin():  # the other writer: slot 1 of hand 1
        first = s.query(EventRow).filter_by(table_id="t1").one()
        s.add(EventRow(table_id="t1", match_id=first.match_id, hand=1, idx=1, body={"type": "pass", "seat": "S"},
                       source="manual", actor="", created_at=time.time()))
    r = post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "S", "tile": "5-4", "end": "W"}})
    assert r.status_code == 409 and "another process writes it" in r.json()["detail"], r.text
    # stored: our play and the other writer's pass; the refused play is not
    assert [e["type"] for e in client.get("/api/matches/1/hands/1").json()["events"]] == ["play", "pass"]


def test_a_name_id_taken_meanwhile_takes_the_next_free_one(client, monkeypatch):
    """helper-143 (six tables of one name created at once, three got 409): the id free when looked up is
    taken by another request before this one's insert; a table created without an id takes the next."""
    import service.tables

    real = service.tables.free_id
    calls = []

    def stale(s, base):  # the first look-up answers as if "race" were still free
        calls.append(base)
        return "race" if len(calls) == 1 else real(s, base)

    assert post(client, "/api/tables", {"name": "Race", "rules": "all-fives"}).json()["id"] == "race"
    monkeypatch.setattr(service.tables, "free_id", stale)
    r = post(client, "/api/tables", {"name": "Race", "rules": "all-fives"})
    assert r.status_code == 201 and r.json()["id"] == "race-2" and calls == ["race", "race"]


def test_ids_from_names_keep_their_letters_and_never_collide(client):
    def create(name, **extra):
        r = post(client, "/api/tables", {"name": name, "rules": "all-fives", **extra})
        assert r.status_code == 201, r.text
        return r.json()["id"]

    assert create("Mesa Ñandú Grande") == "mesa-nandu-grande"
    assert create("Mesa Vídeo 3") == "mesa-video-3"
    assert create("Straße ①") == "strasse-1"
    assert [create("决赛桌"), create("🎲🎲"), create("决赛桌")] == ["table", "table-2", "table-3"]
    assert create("Mesa Vídeo 3") == "mesa-video-3-2"  # the name again: a free id, not a 409
    long = create("é" * 70)
    assert long == "e" * 64 and create("é" * 70) == "e" * 62 + "-2"
    r = post(client, "/api/tables", {"id": "table", "name": "Again", "rules": "all-fives"})
    assert r.status_code == 409 and r.json()["detail"] == "table 'table' exists already"  # an explicit id stays
    assert client.get("/api/tables/mesa-nandu-grande").json()["name"] == "Mesa Ñandú Grande"


def test_a_failed_table_is_not_live_and_can_be_stopped_or_deleted(client, monkeypatch):
    import service.sources as sources

    monkeypatch.setitem(sources._FACTORIES, "vision", MissingVideoSource)
    for tid in ("v1", "v2"):
        r = post(client, "/api/tables", {"id": tid, "name": tid, "rules": "all-fives", "video_source": "/nope/v.mp4",
                                         "worker": {"kind": "vision"}})
        assert r.status_code == 201
        assert post(client, f"/api/tables/{tid}/start").status_code == 200
        wait_for(lambda: client.get(f"/api/tables/{tid}/status").json()["state"] == "error")
    st = client.get("/api/tables/v1/status").json()
    assert st["error"] == "cannot open /nope/v.mp4: no such file" and st["connected"] is False
    listed = {t["id"]: (t["state"], t["error"]) for t in client.get("/api/tables").json()}
    assert listed == {"v1": ("error", st["error"]), "v2": ("error", st["error"])}  # the index page shows it
    assert client.get("/api/health").json()["live"] == []
    assert client.get("/api/tables/v1").json()["live"] is False
    assert post(client, "/api/tables/v1/stop").json()["state"] == "stopped"
    assert client.delete("/api/tables/v1", headers=AUTH).json() == {"deleted": "v1"}
    assert client.delete("/api/tables/v2", headers=AUTH).json() == {"deleted": "v2"}  # without a stop
    assert client.app.state.registry.tasks == {} and client.get("/api/tables").json() == []
    # a running table stays undeletable and listed as live, manual ones included
    manual_table(client)
    post(client, "/api/tables/t1/start")
    assert client.get("/api/health").json()["live"] == ["t1"]
    assert client.delete("/api/tables/t1", headers=AUTH).status_code == 409


def test_a_worker_that_fails_on_a_bug_says_so_in_plain_words(client, monkeypatch):
    """Bad input (a missing file, a wrong profile) is said as the message alone; a bug in a worker
    is named as one, pointing at the service log (its traceback is there)."""
    import service.sources as sources

    class Buggy(MissingVideoSource):
        async def __aiter__(self):
            raise KeyError("seat")
            yield  # pragma: no cover - an async generator

    monkeypatch.setitem(sources._FACTORIES, "vision", Buggy)
    assert post(client, "/api/tables", {"id": "b", "name": "b", "rules": "all-fives", "video_source": "/v.mp4",
                                        "worker": {"kind": "vision"}}).status_code == 201
    assert post(client, "/api/tables/b/start").status_code == 200
    st = wait_for(lambda: (s := client.get("/api/tables/b/status").json())["state"] == "error" and s)
    assert st["error"] == "internal error of the vision worker (KeyError: 'seat'); the service log has details"


def test_a_hand_left_in_play_when_the_next_began_is_an_alert_until_ended(client):
    """helper-66: a camera that saw the table cleared before it read the hand's end opened the next
    hand silently, leaving the last one in play for ever (its points still counting)."""
    manual_table(client)
    post(client, "/api/tables/t1/start")
    assert post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "N", "tile": "6-6"}}).status_code == 201
    r = post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "S", "tile": "5-5"}, "new_hand": True})
    assert r.status_code == 201 and r.json()["hand"] == 2
    alerts = client.get("/api/tables/t1/alerts").json()
    assert [(a["kind"], a["hand"], a["message"]) for a in alerts if a["kind"] == "hand_unfinished"] == [
        ("hand_unfinished", 1, "hand 1 is not over but hand 2 began: end it with its result (a domino's winner, "
                               "a lock; its plays so far count)")]
    r = post(client, "/api/tables/t1/events", {"event": {"type": "hand_end", "kind": "umpire"}, "hand": 1})
    assert r.status_code == 201, r.text
    alerts = client.get("/api/tables/t1/alerts?status=all").json()
    assert [(a["status"], a["resolved_by"]) for a in alerts if a["kind"] == "hand_unfinished"] == [("resolved", "engine")]



def test_an_event_naming_its_hand_and_new_hand_is_refused(client):
    """Both say which hand the event goes in; new_hand beside a hand number was silently ignored."""
    manual_table(client)
    post(client, "/api/tables/t1/start")
    assert post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "N", "tile": "6-6"}}).status_code == 201
    r = post(client, "/api/tables/t1/events",
             {"event": {"type": "play", "seat": "S", "tile": "6-5", "end": "E"}, "hand": 1, "new_hand": True})
    assert r.status_code == 422 and "either hand" in r.text and "not both" in r.text
    assert [[str(e.tile) for e in log] for log in from_json(client.get("/api/matches/1/record.json").text).logs] == [
        ["6-6"]]


def test_a_correction_posted_as_an_event_is_refused(client):
    """helper-83: it skipped the corrections' checks (the same void went in twice, unattributed)."""
    manual_table(client)
    post(client, "/api/tables/t1/start")
    assert post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "N", "tile": "6-6"}}).status_code == 201
    r = post(client, "/api/tables/t1/events", {"event": {"type": "correction", "replaces": 0}})
    assert r.status_code == 422 and "POST .../corrections" in r.text
    assert [len(log) for log in from_json(client.get("/api/matches/1/record.json").text).logs] == [1]


def test_the_last_play_of_an_ended_hand_says_how_it_ended(client):
    """helper-83: the overlay printed the hand end's notation ('... inferred: ... t=62.875 f=503')."""
    manual_table(client)
    post(client, "/api/tables/t1/start")
    for ev in ({"type": "deal", "hands": {}, "draws_seen": False},  # as a camera's hand: counts unknown
               {"type": "play", "seat": "N", "tile": "6-6"},
               {"type": "hand_end", "kind": "domino", "winner": "S", "reason": "inferred: tiles shown", "t": 62.875}):
        assert post(client, "/api/tables/t1/events", {"event": ev}).status_code == 201
    lp = client.get("/api/tables/t1/snapshot").json()["data"]["state"]["hand"]["last_play"]
    assert (lp["type"], lp["kind"], lp["winner"], lp["winner_player"]) == ("hand_end", "domino", "S", "Bob")


def test_the_last_play_of_a_draw_carries_its_count(client):
    """helper-89: the overlay said "Bob (S) drew" for three tiles: the view now carries the count."""
    manual_table(client)
    post(client, "/api/tables/t1/start")
    for ev in ({"type": "play", "seat": "N", "tile": "6-6"}, {"type": "draw", "seat": "S", "count": 3}):
        assert post(client, "/api/tables/t1/events", {"event": ev}).status_code == 201
    lp = client.get("/api/tables/t1/snapshot").json()["data"]["state"]["hand"]["last_play"]
    assert (lp["type"], lp["seat"], lp["player"], lp["count"]) == ("draw", "S", "Bob", 3)


def test_a_blank_table_name_is_refused(client):
    """helper-83: '   ' was taken (id table-2), an empty name on the overlay."""
    r = post(client, "/api/tables", {"name": "   ", "rules": "all-fives", "worker": {"kind": "manual"}})
    assert r.status_code == 422 and r.text.startswith('{"detail":"name:')


@pytest.mark.parametrize("field,value", [("players", {"N": ""}), ("players", {"S": "   "}), ("teams", {"N": ""}),
                                         ("teams", {"S": " "})])
def test_a_blank_player_or_team_name_is_refused(client, field, value):
    """helper-198: ``{"players": {"N": ""}}`` was stored, and the overlay and the state named N's side ''
    (a blank card on air); a team's ' ' likewise. Leaving the seat out shows its letter."""
    r = post(client, "/api/tables", {"id": "blank", "name": "B", "rules": "all-fives", field: value})
    assert r.status_code == 422, r.text
    seat = next(iter(value))
    assert r.json()["detail"] == f"{field}.{seat}: a name, not blank (leave the seat or side out to show its letters)"
    assert client.get("/api/tables/blank").status_code == 404


@pytest.mark.parametrize("field,value", [("name", "a\u0000b"), ("name", "Mesa\n2"), ("players", {"N": "Ana\tB"}),
                                         ("teams", {"NS": "x\u007fy"}), ("title", "Final\r"),
                                         # helper-146: Unicode's next line, line and paragraph separators
                                         ("name", "a\u0085b"), ("players", {"S": "a\u2028b"}), ("title", "x\u2029")])
def test_names_with_control_characters_are_refused(client, field, value):
    """helper-99: a name with a NUL and a newline was stored, and the index showed "ab c"."""
    body = {**MANUAL, "id": "ctl", field: value}
    r = post(client, "/api/tables", body)
    assert r.status_code == 422, r.text
    assert "no control characters (newline, tab, NUL) in a name or title" in r.json()["detail"]
    assert client.get("/api/tables/ctl").status_code == 404


def test_an_umpire_name_with_control_characters_is_refused(client):
    """helper-143: ``by`` (who made an action, shown on the review page) took a NUL and a newline."""
    manual_table(client, players={})
    post(client, "/api/tables/t1/start")
    r = post(client, "/api/tables/t1/events", {"event": {"type": "pass", "seat": "S"}, "by": "a\u0000b\nc"})
    assert r.status_code == 422 and "by: " in r.text and "no control characters" in r.text, r.text
    assert post(client, "/api/tables/t1/events", {"event": {"type": "pass", "seat": "S"}, "by": "Ana Pérez"}).status_code == 201
    assert len(client.get("/api/matches/1/hands/1").json()["events"]) == 1  # the refused one was not stored


def test_the_board_after_each_event_of_a_hand(client):
    """The review page's board: the line of play as it stood after a slot, corrections applied."""
    manual_table(client, rules="all-fives")
    post(client, "/api/tables/t1/start")
    for ev in ({"type": "play", "seat": "N", "tile": "6-1"}, {"type": "play", "seat": "S", "tile": "1-4", "end": "E"},
               {"type": "play", "seat": "N", "tile": "6-3", "end": "W"}):
        assert post(client, "/api/tables/t1/events", {"event": ev}).status_code == 201
    board = lambda after: client.get(f"/api/matches/1/hands/1/board?after={after}").json()  # noqa: E731
    keys = lambda b: sorted(t["key"] for t in b["layout"]["tiles"])  # noqa: E731
    assert keys(board(0)) == ["6-1"] and board(0)["open_ends"] == {"W": 6, "E": 1}
    assert keys(board(1)) == ["4-1", "6-1"] and board(1)["ends_total"] == 10  # 6 + 4
    assert keys(board(2)) == ["4-1", "6-1", "6-3"] and board(2)["open_ends"] == {"W": 3, "E": 4}
    # S really laid 1-5: the fix is in the board after #1 (slot 3 is the correction itself)
    assert post(client, "/api/tables/t1/corrections", {"replaces": 1, "event": {"type": "play", "seat": "S",
                                                                                "tile": "1-5", "end": "E"}}).status_code == 201
    assert keys(board(1)) == ["5-1", "6-1"] and board(1)["open_ends"] == {"W": 6, "E": 5}
    for bad in ("/api/matches/1/hands/1/board?after=9", "/api/matches/1/hands/2/board?after=0"):
        assert client.get(bad).status_code == 404


def test_a_hand_awaiting_its_reveals_when_the_next_began_is_not_called_unfinished(client):
    """helper-198: a hand ended (N out, S's tiles to be shown) and then the next hand opened also got a
    hand_unfinished alert, "hand 1 is not over ... end it with its result": it is over (a domino), its reveal is due."""
    post(client, "/api/tables", {"id": "t1", "name": "T1", "rules": "block", "overrides": {"hand_size": 2},
                                 "worker": {"kind": "manual"}})
    assert post(client, "/api/tables/t1/start").status_code == 200
    for ev in ({"type": "play", "seat": "N", "tile": "6-6"}, {"type": "play", "seat": "S", "tile": "6-5", "end": "E"},
               {"type": "play", "seat": "N", "tile": "5-1", "end": "E"}):  # N is out: S's tiles are awaited
        assert post(client, "/api/tables/t1/events", {"event": ev}).status_code == 201
    r = post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "S", "tile": "4-4"}, "new_hand": True})
    assert r.status_code == 201 and r.json()["hand"] == 2
    kinds = [(a["kind"], a["hand"]) for a in client.get("/api/tables/t1/alerts").json()]
    assert ("awaiting_reveal", 1) in kinds and ("hand_unfinished", 1) not in kinds, kinds
    r = post(client, "/api/tables/t1/events", {"event": {"type": "reveal", "seat": "S", "tiles": ["3-2"]}, "hand": 1})
    assert r.status_code == 201, r.text
    assert [a for a in client.get("/api/tables/t1/alerts").json() if a["hand"] == 1] == []


def test_a_draw_of_a_tile_taken_back_is_refused_with_the_engine_reason(client):
    """helper-199: after N played [6|6] and took it back, a draw of [6|6] was stored with no flag, though
    the tile is back in N's hand; the refusal names no fix that never put the tile anywhere."""
    manual_table(client)
    post(client, "/api/tables/t1/start")
    for event in ({"type": "play", "seat": "N", "tile": "6-6"}, {"type": "take_back", "seat": "N", "tile": "6-6"}):
        assert post(client, "/api/tables/t1/events", {"event": event}).status_code == 201
    for seat in "SN":
        r = post(client, "/api/tables/t1/events", {"event": {"type": "draw", "seat": seat, "tiles": ["6-6"]}})
        assert r.status_code == 409, r.text
        assert r.json()["detail"].endswith("event #2 (draw): 6-6 drawn but it is in N's hand: N took it back at #1")
    assert [e["type"] for e in client.get("/api/matches/1/hands/1").json()["events"]] == ["play", "take_back"]
    assert post(client, "/api/tables/t1/events", {"event": {"type": "draw", "seat": "N", "tiles": ["5-5"]}}).status_code == 201


@pytest.mark.parametrize("preset, sides", [("nova-block", ["N", "E", "S", "W"]), ("bdc-partnership", ["NS", "EW"])])
def test_the_review_pages_timeline_lists_the_sides_in_turn_order(client, preset, sides):
    """helper-206: the review page's score columns and chart legend followed the engine's name order
    (nova-block: E N S W; bdc-partnership: EW NS): now the seats as they play, a partnership's NS first."""
    manual_table(client, rules=preset, players={})
    post(client, "/api/tables/t1/start")
    for ev in simulate_match(load_ruleset(preset), 3, max_hands=1)[0]:
        assert post(client, "/api/tables/t1/events", {"event": json.loads(ev.model_dump_json())}).status_code == 201
    data = client.get("/api/matches/1/timeline").json()
    assert data["sides"] == sides
    assert data["rows"] and all(list(r["score"]) == sides for r in data["rows"])
    # the sides' totals are the engine's: the last row's score is the game's, reordered
    final = data["rows"][-1]["score"]
    assert sum(final.values()) == sum(sum(r["points"].values()) for r in data["rows"] if r["type"] != "game_end")


# ---- a registered table changed in place (helper-246: h243 defect 3, PUT/PATCH were 405) ----------------
def _last_message(c, table_id: str) -> tuple[str, dict]:
    """(kind, data) of the newest message the table's events feed announced, as stored for a reconnect."""
    from sqlalchemy import select

    from service.models import MessageRow

    with c.app.state.factory() as s:
        row = s.scalars(select(MessageRow).where(MessageRow.table_id == table_id, MessageRow.channel == "events")
                        .order_by(MessageRow.id.desc()).limit(1)).one()
    return row.kind, row.data


def patch(c, path, body, **kw):
    return c.patch(path, json=body, headers=kw.pop("headers", AUTH), **kw)


def test_players_and_name_change_mid_match_and_the_overlay_is_told(client):
    manual_table(client)
    post(client, "/api/tables/t1/start")
    assert post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "N", "tile": "6-2"}}).status_code == 201
    r = patch(client, "/api/tables/t1", {"players": {"N": "Eve", "S": "Fay"}, "name": "Mesa 1"})
    assert r.status_code == 200, r.text
    assert (r.json()["players"], r.json()["name"]) == ({"N": "Eve", "S": "Fay"}, "Mesa 1")
    kind, data = _last_message(client, "t1")  # what the open overlay and console redraw from
    assert (kind, data["state"]["players"], data["state"]["table"]["name"]) == ("table", {"N": "Eve", "S": "Fay"},
                                                                                 "Mesa 1")
    assert data["state"]["hand"]["last_play"]["player"] == "Eve"  # N's 6-2, now under N's new name
    state = client.get("/api/tables/t1/snapshot").json()["data"]["state"]
    assert state["teams"]["N"]["name"] == "Eve" and state["worker"]["state"] == "running"
    assert client.get("/api/matches/1").json()["players"] == {"N": "Eve", "S": "Fay"}
    # the worker kept running and the match goes on
    assert post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "S", "tile": "2-2",
                                                            "end": "E"}}).status_code == 201


def test_a_new_matchs_players_leave_the_earlier_match_its_own(client):
    manual_table(client)  # Ana and Bob play round 1
    post(client, "/api/tables/t1/start")
    post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "N", "tile": "6-2"}})
    r = post(client, "/api/tables/t1/matches", {"title": "Round 2", "players": {"N": "Eve", "S": "Fay"}})
    assert r.status_code == 201, r.text
    assert client.get("/api/tables/t1").json()["players"] == {"N": "Eve", "S": "Fay"}
    assert client.get("/api/tables/t1/snapshot").json()["data"]["state"]["players"] == {"N": "Eve", "S": "Fay"}
    assert _last_message(client, "t1")[0] == "match"
    assert client.get("/api/matches/2").json()["players"] == {"N": "Eve", "S": "Fay"}
    assert client.get("/api/matches/1").json()["players"] == {"N": "Ana", "S": "Bob"}
    assert client.get("/api/matches/1/timeline").json()["players"] == {"N": "Ana", "S": "Bob"}
    assert '[Players "N: Ana; S: Bob"]' in client.get("/api/matches/1/record.txt").text
    # round 2 renamed later: round 1 keeps its names still
    assert patch(client, "/api/tables/t1", {"players": {"N": "Gil", "S": "Hal"}}).status_code == 200
    assert client.get("/api/matches/1").json()["players"] == {"N": "Ana", "S": "Bob"}
    assert client.get("/api/matches/2").json()["players"] == {"N": "Gil", "S": "Hal"}
    # players are validated as at registration
    r = post(client, "/api/tables/t1/matches", {"players": {"E": "Ivy"}})
    assert (r.status_code, r.json()["detail"]) == (
        422, "players: seat 'E' is not playing under lisa-b-all-fives (seats: N, S)"), r.text
    assert len(client.get("/api/tables/t1/matches").json()) == 2  # no match was opened


@pytest.mark.parametrize("body, fragment", [
    ({}, "nothing to change: give one or more of name, players"),
    ({"players": {"Q": "Eve"}}, "Input should be 'N', 'E', 'S' or 'W'"),
    ({"players": {"N": " "}}, "a name, not blank"),
    ({"players": {"E": "Eve"}}, "players: seat 'E' is not playing under lisa-b-all-fives (seats: N, S)"),
    ({"teams": {"NS": "Us"}}, "teams: no side 'NS' under lisa-b-all-fives"),
    ({"name": " "}, "name: String should match pattern"),
    ({"name": None}, "Input should be a valid string"),
    ({"name": "a\nb"}, "no control characters"),
    ({"rules": "lisa-b-allfives"}, "did you mean 'lisa-b-all-fives'"),
    ({"worker": {"kind": "robot"}}, "worker.kind"),
    ({"view_key": "abcdef"}, "Extra inputs are not permitted"),
])
def test_a_bad_table_change_is_422_and_changes_nothing(client, body, fragment):
    before = manual_table(client)
    r = patch(client, "/api/tables/t1", body)
    assert r.status_code == 422 and fragment in r.text, r.text
    after = client.get("/api/tables/t1", headers=AUTH).json()
    assert {k: after[k] for k in ("name", "players", "teams", "rules", "ruleset", "worker")} == \
        {k: before[k] for k in ("name", "players", "teams", "rules", "ruleset", "worker")}


def test_a_table_change_needs_the_token_and_a_table(client):
    manual_table(client)
    assert patch(client, "/api/tables/t1", {"name": "X"}, headers={}).status_code == 401
    assert patch(client, "/api/tables/t1", {"name": "X"}, headers={"Authorization": "Bearer nope"}).status_code == 403
    assert patch(client, "/api/tables/zz", {"name": "X"}).status_code == 404
    assert client.get("/api/tables/t1").json()["name"] == "Table 1"


def test_rules_source_and_worker_change_only_stopped_and_rules_only_before_the_first_event(client):
    manual_table(client)
    post(client, "/api/tables/t1/start")
    r = patch(client, "/api/tables/t1", {"calibration": "calibration/t2.json", "name": "X"})
    assert (r.status_code, r.json()["detail"]) == (
        409, "table 't1' is running: stop it before changing its calibration (only name, players, teams change "
             "while it runs)"), r.text
    assert client.get("/api/tables/t1").json()["name"] == "Table 1"  # all or nothing
    post(client, "/api/tables/t1/events", {"event": {"type": "play", "seat": "N", "tile": "6-2"}})
    post(client, "/api/tables/t1/stop")
    r = patch(client, "/api/tables/t1", {"rules": "all-fives"})
    assert (r.status_code, r.json()["detail"]) == (
        409, "table 't1': match 1 has 1 event recorded under lisa-b-all-fives, which other rules would score anew: "
             "start a new match (POST /api/tables/t1/matches), then change the rules"), r.text
    # stopped mid-match: the camera and its calibration may change (a moved camera), the worker too
    r = patch(client, "/api/tables/t1", {"video_source": "rtsp://cam9/stream", "worker": {"kind": "vision"}})
    assert r.status_code == 200, r.text
    assert (r.json()["video_source"], r.json()["worker"]["kind"]) == ("rtsp://cam9/stream", "vision")
    # between matches: the rules change; the earlier match is scored under its own still
    assert post(client, "/api/tables/t1/matches", {"title": "Round 2"}).status_code == 201
    r = patch(client, "/api/tables/t1", {"rules": "block", "players": {"N": "Eve", "S": "Fay"}})
    assert r.status_code == 200, r.text
    assert (r.json()["rules"], r.json()["ruleset"]["name"]) == ("block", "block")
    assert client.get("/api/tables/t1/snapshot").json()["data"]["state"]["rules"]["preset"] == "block"
    assert client.get("/api/matches/1").json()["rules"] == "lisa-b-all-fives"
    assert client.get("/api/matches/2").json()["rules"] == "block"
    assert client.get("/api/matches/1/timeline").json()["rules"] == "lisa-b-all-fives"


def test_a_start_while_the_source_changes_starts_on_the_new_source(client, monkeypatch):
    """helper-251: a PATCH runs in a worker thread; a start (on the event loop) that came between its "not live"
    check and its change opened the old video source, and the table ran on it while it said the new one. The
    PATCH is held inside its change here while the start is sent: the start waits for it and opens the new one."""
    import threading

    from service import sources
    from service.live import TableRuntime

    monkeypatch.setitem(sources._FACTORIES, "vision", MissingVideoSource)  # fails at once, naming what it opened
    r = post(client, "/api/tables", {"id": "v1", "name": "V", "rules": "all-fives", "worker": {"kind": "vision"},
                                     "video_source": "/old/cam.mp4"})
    assert r.status_code == 201, r.text
    entered, go, answers = threading.Event(), threading.Event(), {}
    real = TableRuntime.reconfigure

    def held(self, cfg, table):  # noqa: ANN001, ANN202
        entered.set()
        go.wait(10)
        return real(self, cfg, table)

    monkeypatch.setattr(TableRuntime, "reconfigure", held)
    change = threading.Thread(target=lambda: answers.update(
        patch=patch(client, "/api/tables/v1", {"video_source": "/new/cam.mp4"})))
    change.start()
    assert entered.wait(10)  # checked "not live", changing now
    start = threading.Thread(target=lambda: answers.update(start=post(client, "/api/tables/v1/start")))
    start.start()
    start.join(1.0)  # before the fix the start was done by now, on /old/cam.mp4
    go.set()
    change.join(10)
    start.join(10)
    assert (answers["patch"].status_code, answers["start"].status_code) == (200, 200)
    assert client.get("/api/tables/v1").json()["video_source"] == "/new/cam.mp4"
    st = wait_for(lambda: (s := client.get("/api/tables/v1/status").json())["state"] == "error" and s)
    assert st["error"] == "cannot open /new/cam.mp4: no such file"


def test_a_table_change_survives_a_restart(tmp_path):
    with TestClient(app_for(tmp_path)) as c:
        manual_table(c)
        post(c, "/api/tables/t1/start")
        post(c, "/api/tables/t1/events", {"event": {"type": "play", "seat": "N", "tile": "6-2"}})
        assert post(c, "/api/tables/t1/matches", {"players": {"N": "Eve"}}).status_code == 201
        post(c, "/api/tables/t1/stop")
        r = patch(c, "/api/tables/t1", {"name": "Mesa 1", "rules": "all-fives", "calibration": "/x/p.json",
                                        "teams": {"S": "South"}})
        assert r.status_code == 200, r.text
    with TestClient(app_for(tmp_path)) as c:
        t = c.get("/api/tables/t1", headers=AUTH).json()
        assert (t["name"], t["players"], t["teams"], t["rules"], t["ruleset"]["name"], t["calibration"]) == \
            ("Mesa 1", {"N": "Eve"}, {"S": "South"}, "all-fives", "all-fives", "/x/p.json")
        state = c.get("/api/tables/t1/snapshot").json()["data"]["state"]
        assert (state["players"], state["rules"]["preset"], state["teams"]["S"]["name"]) == (
            {"N": "Eve"}, "all-fives", "South")
        assert c.get("/api/matches/1").json()["players"] == {"N": "Ana", "S": "Bob"}
        assert c.get("/api/matches/1").json()["rules"] == "lisa-b-all-fives"


def test_a_simulated_match_is_dealt_anew_under_the_new_rules(client):
    spec = {"id": "s1", "name": "S", "rules": "lisa-b-all-fives", "worker": {"kind": "scripted",
                                                                              "simulate": {"seed": 3, "hands": 1}}}
    assert post(client, "/api/tables", spec).status_code == 201
    r = patch(client, "/api/tables/s1", {"rules": "block"})
    assert r.status_code == 200, r.text
    dealt = simulate_match(load_ruleset("block"), 3, max_hands=1)  # the independent route: the engine's own deal
    assert r.json()["script_events"] == sum(len(h) for h in dealt)
    assert r.json()["worker"]["simulate"] == {"seed": 3, "hands": 1}
    post(client, "/api/tables/s1/start", {"speed": 1000})
    wait_for(lambda: client.get("/api/tables/s1/status").json()["state"] == "finished")
    assert from_json(client.get("/api/matches/1/record.json").text).logs == dealt  # played under block
    # another deal part way through a match would go on from the old one's position
    r = patch(client, "/api/tables/s1", {"worker": {"kind": "scripted", "simulate": {"seed": 4, "hands": 1}}})
    assert (r.status_code, r.json()["detail"]) == (
        409, "table 's1': match 1 holds events of the match dealt now: start a new match, then deal another one"), r.text
