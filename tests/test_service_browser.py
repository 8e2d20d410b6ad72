"""A real browser (Chromium through Playwright) on the overlay and the umpire console.

The service runs in a thread on 127.0.0.1 (random port), fed by a scripted source: a hand
with a play on an end it does not match. The overlay shows the plays with their points and
a banner for the flagged one; the umpire confirms the alert in the console (the rule set's
bogus_play penalty applies) and the overlay updates. Screenshots go to tmp (to docs/ with DOMINOCAST_DOC_SHOTS=1).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import httpx
import pytest

from service.testing import AUTH, TOKEN, MissingVideoSource, app_for, live_server, mismatch_script, wait_for

CHROMIUM = os.environ.get("DOMINOCAST_CHROMIUM", "/usr/bin/chromium")
#: Screenshots refresh the docs' pictures only when asked (DOMINOCAST_DOC_SHOTS=1): a test run must
#: not leave tracked files changed.
DOCS = Path(__file__).resolve().parents[1] / "docs"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")
if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install -y chromium; .ci/run does it)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def test_overlay_and_umpire_console(tmp_path, browser):
    shots = DOCS if os.environ.get("DOMINOCAST_DOC_SHOTS") == "1" else tmp_path
    script, info = mismatch_script(seed=8, plays=6)
    seat = info["seat"]
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            r = c.post("/api/tables", json={
                "id": "final", "name": "Final table", "rules": "lisa-b-all-fives",
                "players": {"N": "Ana Ruiz", "S": "Bob Lee"}, "title": "Club final",
                "worker": {"kind": "scripted", "interval": 0.6}})
            assert r.status_code == 201, r.text
            assert c.put("/api/tables/final/script", json={"hands": script}).status_code == 200

            overlay = browser.new_page(viewport={"width": 1280, "height": 720})
            overlay.goto(f"{base}/tables/final/overlay?theme=solid&size=1280x720")
            overlay.wait_for_selector("#scores .team")  # drawn from the snapshot before any play
            assert c.post("/api/tables/final/start").status_code == 200

            # a play appears with its points
            overlay.wait_for_function("document.querySelector('#lastplay .pts')?.textContent === '+10'", timeout=15000)
            assert "played" in overlay.inner_text("#lastplay")
            # the seat to play is named in its side's card; a scripted table shows no source status
            assert overlay.locator(".toplay").count() == 1 and overlay.locator(".team.turn .toplay").count() == 1
            assert overlay.inner_text(".toplay") in ("▶ Ana Ruiz to play", "▶ Bob Lee to play")
            assert overlay.locator("#status.hidden").count() == 1
            # the bad play: flagged tile and banner
            overlay.wait_for_selector("#banner:not(.hidden)", timeout=15000)
            assert "do not match" in overlay.inner_text("#banner")
            name = {"N": "Ana Ruiz", "S": "Bob Lee"}[seat]  # named as the last-play line names seats (helper-114)
            assert overlay.inner_text("#banner").startswith(f"⚠ {name} ({seat}) ")
            assert overlay.locator("g.tile.flagged").count() == 1
            overlay.screenshot(path=str(shots / "overlay.png"))
            score_before = int(overlay.inner_text(f"#scores .team[data-side='{seat}'] .score"))

            umpire = browser.new_page(viewport={"width": 1280, "height": 800})
            umpire.goto(f"{base}/tables/final/umpire#token={TOKEN}")
            umpire.wait_for_selector(".alert .confirm", timeout=15000)
            assert "mismatched_end" in umpire.inner_text("#alerts")
            # the suggested penalty is chosen once the rule set's penalties have loaded
            umpire.wait_for_function("document.querySelector('.alert .pensel')?.value === 'bogus_play'", timeout=15000)
            umpire.wait_for_selector("#log tr:nth-child(3)")
            umpire.screenshot(path=str(shots / "umpire.png"), full_page=True)
            umpire.click(".alert .confirm")
            umpire.wait_for_function("!document.querySelector('.alert .confirm')", timeout=15000)

            # the overlay updates: the penalty, the new score, the banner gone
            overlay.wait_for_function(
                f"document.querySelector(\"#scores .team[data-side='{seat}'] .score\").textContent === '{score_before - 25}'",
                timeout=15000)
            assert "penalty" in overlay.inner_text("#lastplay") and "−25" in overlay.inner_text("#lastplay")
            assert overlay.locator(".team.turn").count() == 0  # bogus_play redeals: the hand is over, no side to play
            overlay.screenshot(path=str(shots / "overlay-penalty.png"))

            # a page refresh rebuilds the same picture from the snapshot
            overlay.reload()
            overlay.wait_for_function(
                f"document.querySelector(\"#scores .team[data-side='{seat}'] .score\")?.textContent === '{score_before - 25}'",
                timeout=15000)

            review = browser.new_page(viewport={"width": 1280, "height": 900})
            review.goto(f"{base}/matches/1/review")
            review.wait_for_selector("#chart svg polyline")
            # the legend (player, final score) sits under the chart, not over its hand labels
            legend = review.inner_text("#chart .legend")
            assert f"Ana Ruiz (N) {score_before - 25}" in legend and "Bob Lee (S)" in legend
            assert review.locator("#chart svg text", has_text="Ruiz").count() == 0
            assert "bogus_play" in review.inner_text("#timeline")
            assert "confirmed" in review.inner_text("#flags")
            # the board as the record ends, and after the lead once its row is clicked
            review.wait_for_selector("#rboard svg g.tile")
            lead = review.locator("#timeline tr.pick:not([data-tile=''])").first  # the first play: the lead
            lead.click()
            review.wait_for_function("document.querySelectorAll('#rboard svg g.tile').length === 1", timeout=15000)
            assert review.locator("#timeline tr.picked").count() == 1
            assert review.inner_text("#boardat").startswith("· game 1, hand 1, after #")
            review.screenshot(path=str(shots / "review.png"), full_page=True)
            for page in (overlay, umpire, review):
                page.close()


def test_index_admin_adds_and_starts_a_table(tmp_path, browser):
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, timeout=10) as c:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{base}/")
            page.wait_for_selector("#t-rules option[value='lisa-b-all-fives']", state="attached")
            page.wait_for_selector("#tables th")
            page.fill("#token", TOKEN)
            page.click("#savetoken")
            page.fill("#t-id", "mesa-2")
            page.fill("#t-name", "Mesa dos")
            page.select_option("#t-rules", "lisa-b-all-fives")
            page.select_option("#t-worker", "manual")
            page.fill(".t-player[data-seat='N']", "Ana Ruiz")
            page.fill(".t-player[data-seat='S']", "Bob Lee")
            page.click("#t-create")
            row = "#tables tr[data-id='mesa-2']"
            page.wait_for_selector(row, timeout=10000)
            assert "Mesa dos" in page.inner_text(row)
            assert page.inner_text("#adminerr") == ""
            info = c.get("/api/tables/mesa-2").json()
            assert info["rules"] == "lisa-b-all-fives" and info["worker"]["kind"] == "manual"
            assert info["players"] == {"N": "Ana Ruiz", "S": "Bob Lee"}
            # the form is cleared for the next table, its rules and kind kept (helper-114)
            assert [page.input_value(f) for f in ("#t-id", "#t-name", ".t-player[data-seat='N']")] == ["", "", ""]
            assert page.input_value("#t-rules") == "lisa-b-all-fives"

            page.click(f"{row} button[data-act='start']")
            page.wait_for_function(
                "document.querySelector(\"#tables tr[data-id='mesa-2'] .state\")?.textContent === 'running'",
                timeout=10000)
            assert c.get("/api/tables/mesa-2/status").json()["state"] == "running"
            assert page.inner_text("#tableserr") == ""

            # the same id again: the API's 409 detail in the error line
            page.fill("#t-id", "mesa-2")
            page.fill("#t-name", "Mesa dos")
            page.click("#t-create")
            page.wait_for_function("document.getElementById('adminerr').textContent !== ''", timeout=10000)
            assert "exists already" in page.inner_text("#adminerr")

            page.click(f"{row} button[data-act='stop']")
            page.wait_for_function(
                "document.querySelector(\"#tables tr[data-id='mesa-2'] .state\")?.textContent !== 'running'",
                timeout=10000)
            assert c.get("/api/tables/mesa-2/status").json()["state"] != "running"

            # a camera table: its calibration profile and a view key are set from the card too
            page.fill("#t-id", "cam-1")
            page.fill("#t-name", "Camera table")
            page.select_option("#t-worker", "vision")
            page.fill("#t-video", "rtsp://10.0.0.7/stream")
            page.fill("#t-calib", "/srv/dominocast/cam-1.json")
            page.fill("#t-key", "overlay-secret")
            page.click("#t-create")
            page.wait_for_selector("#tables tr[data-id='cam-1']", timeout=10000)
            info = c.get("/api/tables/cam-1", headers=AUTH).json()
            assert (info["video_source"], info["calibration"], info["protected"]) == (
                "rtsp://10.0.0.7/stream", "/srv/dominocast/cam-1.json", True)
            page.close()


def test_umpire_console_on_a_protected_table(tmp_path, browser):
    """The console's table feed went without key or token: a table with a view key stayed blank (401,
    retried forever, no message). And on a rule set without named penalties its Penalty button sent
    ``name: ""`` with an empty points box (a 500 then): it asks for the points now."""
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            r = c.post("/api/tables", json={"id": "p", "name": "Protected table", "rules": "all-fives",
                                            "view_key": "secret-key", "worker": {"kind": "manual"}})
            assert r.status_code == 201, r.text
            assert c.post("/api/tables/p/start").status_code == 200  # a manual table takes events once started
            assert c.post("/api/tables/p/events", json={"event": {"type": "play", "seat": "N", "tile": "5-5"}}
                          ).status_code == 201
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{base}/tables/p/umpire#token={TOKEN}")
            page.wait_for_function("document.getElementById('tname').textContent === 'Protected table'",
                                   timeout=15000)
            page.wait_for_function("document.getElementById('score').textContent.startsWith('N 10 ')", timeout=15000)
            assert page.inner_text("#feederr") == ""
            # no named penalty and no points: the console asks for points and posts nothing
            page.wait_for_selector("#penalty option", state="attached")
            assert page.inner_text("#penalty") == "(none: enter points)"
            page.click("#pen")
            page.wait_for_selector("#toast:not(.hidden)")
            assert page.inner_text("#toast") == "enter the points: this rule set names no penalty"
            assert [e["type"] for e in c.get("/api/matches/1/hands/1").json()["events"]] == ["play"]
            # a penalty scores at once: the console asks first; cancelled, nothing is posted
            asked: list = []
            page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
            page.fill("#pts", "-10")
            page.click("#pen")
            page.wait_for_timeout(300)
            assert asked == ["−10 points for N?"]
            assert [e["type"] for e in c.get("/api/matches/1/hands/1").json()["events"]] == ["play"]
            page.once("dialog", lambda d: d.accept())
            page.click("#pen")
            page.wait_for_function("document.getElementById('score').textContent.startsWith('N 0 ')", timeout=15000)
            assert c.get("/api/matches/1/hands/1").json()["events"][-1] == {
                "type": "penalty", "seat": "N", "points": -10, "reason": "umpire"}
            assert page.input_value("#pts") == ""  # not reused by the next click
            # a double click on Pass sends one pass (helper-83: two, the second out of turn)
            page.select_option("#seat", "S")
            page.dblclick("#pass")
            page.wait_for_function("document.getElementById('toast').textContent === 'done'", timeout=15000)
            page.wait_for_timeout(500)
            assert [e["type"] for e in c.get("/api/matches/1/hands/1").json()["events"]].count("pass") == 1
            # event times for people: one decimal (the notation keeps them exact)
            assert page.evaluate("DC.shortTimes('S 6-1 E t=10.583333333333332 f=127')") == "S 6-1 E t=10.6 f=127"
            assert page.evaluate("DC.shortTimes('N 5-5 t=4.2 f=126')") == "N 5-5 t=4.2 f=126"
            # a draw says how many tiles (helper-89: "Bob (S) drew" for three)
            assert page.evaluate("DC.playText({}, {type: 'draw', seat: 'S', player: 'Bob', count: 3})") == \
                "Bob (S) drew 3 tiles"
            assert page.evaluate("DC.playText({}, {type: 'draw', seat: 'S', player: 'S', count: 1})") == "S drew a tile"
            page.close()

            # a wrong token: the refusal is on the page, not an endless silent retry
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{base}/tables/p/umpire#token=wrong")
            page.wait_for_function("document.getElementById('feederr').textContent !== ''", timeout=15000)
            assert page.inner_text("#feederr") == "the table feed was refused: wrong token"
            assert page.inner_text("#tname") == ""
            # helper-118: the alerts panel said "No open alert." under the refused alerts feed
            page.wait_for_function("document.getElementById('alerts').textContent.includes('cannot be shown')",
                                   timeout=15000)
            assert page.inner_text("#alerts") == ("The alerts cannot be shown: wrong token. Enter the umpire token "
                                                  "above.")
            page.close()


def test_index_lists_a_protected_tables_matches_to_its_organiser(tmp_path, browser):
    """A protected table's row on the index had no review link, even for the organiser holding the token,
    and its overlay link opened a refusal without saying why."""
    import json

    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            assert c.post("/api/tables", json={"id": "p", "name": "Protected table", "rules": "all-fives",
                                               "view_key": "secret-key", "worker": {"kind": "manual"}}).status_code == 201
            assert c.post("/api/tables/p/start").status_code == 200  # a manual table takes events once started
            assert c.post("/api/tables/p/events", json={"event": {"type": "play", "seat": "N", "tile": "5-5"}}
                          ).status_code == 201
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{base}/")  # no token yet: no review link, the overlay says what it needs
            row = "#tables tr[data-id='p']"
            page.wait_for_selector(row)
            assert "review" not in page.inner_text(row) and "(needs &key=)" in page.inner_text(row)
            page.fill("#token", TOKEN)
            page.click("#savetoken")
            page.wait_for_selector(f"{row} a[href='/matches/1/review']", timeout=10000)
            page.click(f"{row} a[href='/matches/1/review']")
            page.wait_for_function("document.getElementById('title').textContent.startsWith('p · match 1')",
                                   timeout=15000)
            assert "N 5-5" in page.inner_text("#timeline")
            with page.expect_download() as dl:
                page.click("#json")
            saved = json.loads(Path(dl.value.path()).read_text())
            assert saved["hands"][0]["events"][0]["tile"] == [5, 5]
            page.close()
            # a token given in the address is kept for the review pages (helper-104: refused); a wrong one is said
            fresh = browser.new_context()
            page = fresh.new_page()
            page.goto(f"{base}/#token={TOKEN}")
            page.wait_for_selector(f"{row} a[href='/matches/1/review']", timeout=10000)
            page.click(f"{row} a[href='/matches/1/review']")
            page.wait_for_function("document.getElementById('title').textContent.startsWith('p · match 1')",
                                   timeout=15000)
            page.goto(f"{base}/#token=wrong")
            page.wait_for_function(f"document.querySelector(\"{row}\")?.innerText.includes('wrong token')",
                                   timeout=10000)
            fresh.close()


def test_index_shows_why_a_table_failed(tmp_path, browser, monkeypatch):
    import service.sources as sources

    monkeypatch.setitem(sources._FACTORIES, "vision", MissingVideoSource)
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            assert c.post("/api/tables", json={"id": "cam", "name": "Cam", "rules": "all-fives",
                                               "video_source": "/nope/v.mp4", "worker": {"kind": "vision"}}
                          ).status_code == 201
            assert c.post("/api/tables/cam/start").status_code == 200
            wait_for(lambda: c.get("/api/tables/cam/status").json()["state"] == "error")
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{base}/")
            row = "#tables tr[data-id='cam']"
            page.wait_for_selector(f"{row} .error", timeout=10000)
            assert page.inner_text(f"{row} .state") == "error"
            assert page.inner_text(f"{row} .error") == "cannot open /nope/v.mp4: no such file"
            page.close()
            # the stream overlay says the camera is off: its score is no longer live
            overlay = browser.new_page(viewport={"width": 1280, "height": 720})
            overlay.goto(f"{base}/tables/cam/overlay?size=720p")
            overlay.wait_for_selector("#status:not(.hidden)", timeout=10000)
            assert overlay.inner_text("#status") == "camera offline"
            overlay.close()


def _manual_table(c, table_id: str, name: str, rules: str, events: list[dict]) -> None:
    """Register a manual table (the umpire enters what happens) and post ``events`` to it."""
    assert c.post("/api/tables", json={"id": table_id, "name": name, "rules": rules,
                                       "worker": {"kind": "manual"}}).status_code == 201
    assert c.post(f"/api/tables/{table_id}/start").status_code == 200  # a manual table takes events once started
    for ev in events:
        assert c.post(f"/api/tables/{table_id}/events", json={"event": ev}).status_code == 201


def _match_scores(c) -> dict:
    """The first game's scores of match 1."""
    return c.get("/api/matches/1").json()["games"][0]["scores"]


def _umpire_console(browser, base: str, table_id: str, ready: str):
    """A table's umpire console (with the token), once the element ``ready`` (a selector) shows."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{base}/tables/{table_id}/umpire#token={TOKEN}")
    page.wait_for_selector(ready, timeout=15000)
    return page


def _click_and_accept(page, selector: str) -> list[str]:
    """Click ``selector`` and accept the confirm dialog it opens; returns the dialog's text (in a list)."""
    asked: list[str] = []
    page.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    page.click(selector)
    return asked


def test_umpire_fixes_a_tile_of_an_earlier_hand(tmp_path, browser):
    """The hand log showed only the hand in play: once the next hand began, a misread in the last one
    could not be fixed from the console. Its menu picks an earlier hand."""
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            _manual_table(c, "m", "Two hands", "all-fives", [{"type": "play", "seat": "N", "tile": "6-4"},
                                                             {"type": "play", "seat": "S", "tile": "4-1", "end": "E"}])
            assert c.post("/api/tables/m/hands/1/confirm", json={"end": {"kind": "umpire"}}).status_code == 200
            assert c.post("/api/tables/m/events", json={"event": {"type": "play", "seat": "S", "tile": "3-3"}}
                          ).json()["hand"] == 2
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{base}/tables/m/umpire#token={TOKEN}")
            page.wait_for_function("document.querySelector('#log') && document.querySelector('#log').innerText.includes('3-3')",
                                   timeout=15000)
            page.select_option("#handsel", "1")
            page.wait_for_function("document.querySelector('#log').innerText.includes('4-1')", timeout=15000)
            page.once("dialog", lambda d: d.accept("4-0"))  # S really played 4-0: 6 + 0 = 6, and N's 10 stays
            page.click("#log button[data-act='fix'][data-i='1']")
            wait_for(lambda: c.get("/api/matches/1/hands/1").json()["events"][-1].get("type") == "correction")
            fix = c.get("/api/matches/1/hands/1").json()["events"][-1]
            assert (fix["replaces"], fix["event"]["tile"]) == (1, [4, 0])
            assert len(c.get("/api/matches/1/hands/2").json()["events"]) == 1  # the hand in play is untouched
            page.close()


def test_umpire_restores_a_voided_play_from_the_console(tmp_path, browser):
    """A slot replaced by a correction had no tools left: an umpire's wrong void (or fix) could not be
    undone from the console. A voided slot now has "restore"; a corrected one keeps its tools."""
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            _manual_table(c, "v", "Void", "all-fives", [{"type": "play", "seat": "N", "tile": "5-5"},
                                                        {"type": "play", "seat": "S", "tile": "5-0", "end": "E"}])
            scores = lambda: c.get("/api/matches/1").json()["games"][0]["scores"]  # noqa: E731
            assert scores() == {"N": 10, "S": 10}  # S's 5-0 makes 10 + 0
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{base}/tables/v/umpire#token={TOKEN}")
            page.wait_for_selector("#log button[data-act='void'][data-i='1']", timeout=15000)
            shown = page.inner_text("#score")
            page.once("dialog", lambda d: d.accept())
            page.click("#log button[data-act='void'][data-i='1']")
            wait_for(lambda: scores() == {"N": 10, "S": 0})
            page.wait_for_selector("#log button[data-act='restore'][data-i='1']", timeout=15000)
            assert page.inner_text("#score") != shown
            asked = []
            page.once("dialog", lambda d: (asked.append(d.message), d.accept()))
            page.click("#log button[data-act='restore'][data-i='1']")
            wait_for(lambda: scores() == {"N": 10, "S": 10})
            assert asked == ["Restore event #1 of hand #1?"]
            restore = c.get("/api/matches/1/hands/1").json()["events"][-1]
            assert (restore["replaces"], restore["event"]) == (1, {"type": "play", "seat": "S", "tile": [5, 0], "end": "E"})
            # the restored slot keeps its tools, and the console's score is back to what it showed
            page.wait_for_selector("#log button[data-act='fix'][data-i='1']", timeout=15000)
            page.wait_for_function(f"document.querySelector('#score').innerText === {shown!r}", timeout=15000)
            assert page.query_selector("#log button[data-act='restore']") is None
            page.close()


def test_umpire_enters_a_reveal_and_confirms_the_hand_picked_in_the_log(tmp_path, browser):
    """helper-79: a hand the camera left awaiting a reveal could only be finished through the API, and
    End / Confirm acted on the current hand whatever hand the log showed."""
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            _manual_table(c, "r", "Reveal", "all-fives", [  # N's lead 6 + 4 -> 10; then 6 + 1
                {"type": "deal", "hands": {}, "draws_seen": False}, {"type": "play", "seat": "N", "tile": "6-4"},
                {"type": "play", "seat": "S", "tile": "4-1", "end": "E"}])
            hand1 = lambda: c.get("/api/matches/1/hands/1").json()  # noqa: E731
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{base}/tables/r/umpire#token={TOKEN}")
            page.wait_for_function("document.querySelector('#enterfor').innerText === 'for hand #1'", timeout=15000)
            page.select_option("#endkind", "domino")
            page.select_option("#winner", "S")
            # the camera cannot count a draw game's hands: S's domino awaits N's tiles; End asks first (helper-174)
            assert _click_and_accept(page, "#endhand") == [
                "End hand #1 now (S dominoes)? Plays after it are not scored unless the end is voided."]
            wait_for(lambda: hand1()["events"][-1].get("type") == "hand_end")
            page.select_option("#seat", "N")
            page.fill("#tiles", "3-3 2-1")
            page.click("#reveal")
            # all fives (pagat): S scores N's 3 + 3 + 2 + 1 = 9 pips, rounded to the nearest 5 -> 10
            wait_for(lambda: c.get("/api/matches/1").json()["games"][0]["scores"] == {"N": 10, "S": 10})
            assert hand1()["events"][-1] == {"type": "reveal", "seat": "N", "tiles": [[3, 3], [2, 1]]}
            page.wait_for_function("document.querySelector('#tiles').value === ''", timeout=15000)  # cleared once done
            # the next hand begins; the umpire picks hand 1 in the log and confirms it, not hand 2
            assert c.post("/api/tables/r/events", json={"event": {"type": "play", "seat": "S", "tile": "5-5"}},
                          ).json()["hand"] == 2
            page.wait_for_function("document.querySelector('#handsel').options.length === 3", timeout=15000)
            page.select_option("#handsel", "1")
            page.wait_for_function("document.querySelector('#enterfor').innerText === "
                                   "'for hand #1 (picked in the log)'", timeout=15000)
            page.click("#confirmhand")
            wait_for(lambda: hand1()["confirmed_by"] == "umpire")
            assert c.get("/api/matches/1/hands/2").json()["confirmed_by"] is None
            page.close()


def test_an_earlier_matchs_alert_is_labelled_and_offers_no_penalty(tmp_path, browser):
    """helper-79: after a new match, the last match's open alerts sat in the queue as "hand 1", and
    confirming one with its penalty was refused ("belongs to an earlier match")."""
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            _manual_table(c, "e", "Evening", "lisa-b-all-fives", [  # S's 3-2 on a 6: mismatched
                {"type": "play", "seat": "N", "tile": "6-6"},
                {"type": "play", "seat": "S", "tile": "3-2", "end": "E", "oriented": True}])
            first = c.get("/api/tables/e/alerts").json()
            assert [a["kind"] for a in first] == ["mismatched_end"]
            assert c.post("/api/tables/e/matches", json={"title": "Evening, match 2"}).status_code == 201
            r = c.post(f"/api/tables/e/alerts/{first[0]['id']}/confirm", json={"penalty": "bogus_play"})
            assert (r.status_code, r.json()["detail"]) == (409, f"alert {first[0]['id']} belongs to an earlier match")
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{base}/tables/e/umpire#token={TOKEN}")
            page.wait_for_function("document.querySelector('#alerts').innerText.includes('an earlier match')", timeout=15000)
            box = page.inner_text(f".alert[data-id='{first[0]['id']}']")
            assert f"#{first[0]['id']} · an earlier match · hand 1" in box
            assert page.query_selector(f".alert[data-id='{first[0]['id']}'] .pensel") is None
            page.click(f".alert[data-id='{first[0]['id']}'] .confirm")  # acknowledged, no penalty
            done = wait_for(lambda: c.get("/api/tables/e/alerts?status=confirmed").json())
            assert [a["id"] for a in done] == [first[0]["id"]]
            assert len(c.get(f"/api/matches/{first[0]['match']}/hands/1").json()["events"]) == 2  # no penalty added
            page.close()


def test_report_time_links_seek_the_video_on_the_page(tmp_path, browser):
    """helper-72: a time link opened the bare video file and left the report."""
    import cv2
    import numpy as np

    from service.report import write_report

    vw = cv2.VideoWriter(str(tmp_path / "annotated.webm"), cv2.VideoWriter_fourcc(*"VP80"), 10, (64, 48))
    for k in range(50):  # 5 s
        vw.write(np.full((48, 64, 3), k * 5, np.uint8))
    vw.release()
    rows = [{"type": "play", "t": 3.2, "text": "N 6-6", "game": 1, "hand": 1, "points": {}, "score": {"N": 0}}]
    page_path = write_report(tmp_path / "report.html", "review", "", rows, {}, [("N", 0, 0)], video="annotated.webm")
    page = browser.new_page()
    try:
        page.goto(page_path.as_uri())
        page.wait_for_function("document.querySelector('video.replay').readyState >= 1")
        page.click("a.seek")
        page.wait_for_function("Math.abs(document.querySelector('video.replay').currentTime - 3.2) < 0.3")
        assert page.url == page_path.as_uri()  # still the report
    finally:
        page.close()


def test_a_report_whose_video_is_missing_says_so(tmp_path, browser):
    """helper-145: the report opened without its video beside it showed a blank player, and the time links
    did nothing, without a word."""
    from service.report import write_report

    rows = [{"type": "play", "t": 3.2, "text": "N 6-6", "game": 1, "hand": 1, "points": {}, "score": {"N": 0}}]
    page_path = write_report(tmp_path / "report.html", "review", "", rows, {}, [("N", 0, 0)], video="annotated.webm")
    page = browser.new_page()
    try:
        page.goto(page_path.as_uri())
        page.wait_for_selector("p.novideo", timeout=10000)
        assert page.inner_text("p.novideo") == ("The video annotated.webm cannot be played here: keep it in the folder "
                                                "of this page (the times below seek it).")
        assert page.locator("p.novideo").count() == 1
    finally:
        page.close()


def test_a_dismissed_flag_leaves_the_overlay(tmp_path, browser):
    """helper-83: the umpire dismissed a mismatched end (a misread), yet the stream kept the red tile and
    the banner accusing the player while any other alert was open. Also a theme pasted with a space."""
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            _manual_table(c, "m3", "Mesa 3", "all-fives", [
                {"type": "play", "seat": "N", "tile": "5-5"},
                {"type": "pass", "seat": "N"},  # out of turn: an alert that stays open
                {"type": "play", "seat": "S", "tile": "6-4", "end": "E"}])
            overlay = browser.new_page(viewport={"width": 1280, "height": 720})
            overlay.goto(f"{base}/tables/m3/overlay?theme=solid%20&size=720p")
            overlay.wait_for_selector("#banner:not(.hidden)", timeout=10000)
            assert "do not match" in overlay.inner_text("#banner")
            assert overlay.locator("g.tile.flagged").count() == 1
            assert overlay.evaluate("document.body.classList.contains('theme-solid')")
            alerts = c.get("/api/tables/m3/alerts").json()
            flag = next(a for a in alerts if a["kind"] == "mismatched_end")
            assert any(a["kind"] != "mismatched_end" for a in alerts)  # another alert stays open
            assert c.post(f"/api/tables/m3/alerts/{flag['id']}/dismiss", json={"note": "misread"}).status_code == 200
            overlay.wait_for_selector("#banner.hidden", state="attached", timeout=10000)
            assert overlay.locator("g.tile.flagged").count() == 0
            overlay.reload()  # and so from the snapshot
            overlay.wait_for_selector("#scores .team")
            overlay.wait_for_selector("#lastplay:not(.hidden)")
            assert overlay.locator("#banner.hidden").count() == 1 and overlay.locator("g.tile.flagged").count() == 0
            # helper-104: a flag the umpire confirmed (no penalty) stayed on air while any other alert was open
            assert c.post("/api/tables/m3/events", json={"event": {"type": "play", "seat": "N", "tile": "3-2",
                                                                   "end": "W"}}).status_code == 201
            overlay.wait_for_selector("#banner:not(.hidden)", timeout=10000)
            flag = next(a for a in c.get("/api/tables/m3/alerts").json() if a["kind"] == "mismatched_end")
            assert c.post(f"/api/tables/m3/alerts/{flag['id']}/confirm", json={"penalty": ""}).status_code == 200
            assert c.get("/api/tables/m3/status").json()["alerts_open"] >= 1  # the pass's alert stays open
            overlay.wait_for_selector("#banner.hidden", state="attached", timeout=10000)
            overlay.reload()
            overlay.wait_for_selector("#lastplay:not(.hidden)")
            assert overlay.locator("#banner.hidden").count() == 1
            assert overlay.locator("g.tile.flagged").count() == 1  # the confirmed bogus play stays marked
            # helper-106: a flag whose alert a correction reopens is on air again at once, not after a reload
            assert c.post("/api/tables/m3/events", json={"event": {"type": "play", "seat": "S", "tile": "6-1",
                                                                   "end": "E"}}).status_code == 201
            overlay.wait_for_selector("#banner:not(.hidden)", timeout=10000)
            assert c.post("/api/tables/m3/fix-tile", json={"index": 4, "tile": "4-1", "end": "E"}).status_code == 201
            overlay.wait_for_selector("#banner.hidden", state="attached", timeout=10000)  # its alert resolved
            assert c.post("/api/tables/m3/fix-tile", json={"index": 4, "tile": "6-1", "end": "E"}).status_code == 201
            overlay.wait_for_selector("#banner:not(.hidden)", timeout=10000)  # reopened
            assert "S played 6-1 on the E end showing" in overlay.inner_text("#banner")
            overlay.close()


def test_overlay_of_a_game_ranked_by_pips_and_a_status_tag_clear_of_the_cards(tmp_path, browser):
    """helper-93: nova-block (seed 002: players ranked by the pips left in their hands, fewest first)
    showed 0 · 0 · 0 · 0 and "to 200" all match long; the red camera tag covered the 4th card."""
    from engine.match import replay_match
    from engine.record import event_to_dict
    from engine.ruleset import load_ruleset
    from engine.simulate import simulate_match

    rules = load_ruleset("nova-block")
    log = simulate_match(rules, 3, max_hands=1)[0]
    want = {side: total for side, _, total in replay_match(rules, [log]).standings()}
    assert sum(want.values()) > 0  # someone was left holding tiles
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            _manual_table(c, "nova", "Nova", "nova-block", [event_to_dict(ev) for ev in log])
            overlay = browser.new_page(viewport={"width": 1280, "height": 720})
            overlay.goto(f"{base}/tables/nova/overlay?size=720p")
            overlay.wait_for_selector("#scores .team .unit")
            shown = {t.get_attribute("data-side"): t.query_selector(".score").inner_text()
                     for t in overlay.query_selector_all("#scores .team")}
            assert shown == {side: f"{v}pips" for side, v in want.items()}
            assert "fewest pips wins" in overlay.inner_text("#meta") and "to 200" not in overlay.inner_text("#meta")
            # a status tag (shown here by hand, as a vision table's would be) lies clear of every card
            overlay.evaluate("() => { const s = document.getElementById('status'); s.textContent = 'camera signal lost';"
                             " s.classList.remove('hidden'); }")
            tag = overlay.locator("#status").bounding_box()
            for card in overlay.query_selector_all("#scores .team"):
                b = card.bounding_box()
                assert tag["x"] >= b["x"] + b["width"] or tag["y"] >= b["y"] + b["height"]
            overlay.close()


def test_overlay_shows_the_boneyard_where_the_record_counts_it(tmp_path, browser):
    """helper-93: the state had the boneyard, the screen not. Shown when draws are entered (the record
    counts it: 14 - 1 drawn = 13); not for a camera's hand (deal unseen), whose count follows only the draws
    it saw."""
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            _manual_table(c, "d", "Draw", "draw", [{"type": "play", "seat": "N", "tile": "6-6"},
                                                    {"type": "draw", "seat": "S", "count": 1}])
            _manual_table(c, "cam", "Cam", "draw", [{"type": "deal", "hands": {}, "draws_seen": False},
                                                     {"type": "play", "seat": "N", "tile": "6-6"}])
            overlay = browser.new_page(viewport={"width": 1280, "height": 720})
            for table, want in (("d", True), ("cam", False)):
                overlay.goto(f"{base}/tables/{table}/overlay?size=720p")
                overlay.wait_for_selector("#lastplay:not(.hidden)")
                assert ("boneyard 13" in overlay.inner_text("#meta")) is want
                assert ("boneyard" in overlay.inner_text("#meta")) is want
            overlay.close()


def test_a_table_deleted_on_air_clears_its_overlay_and_the_console_says_why(tmp_path, browser):
    """h243: once a table was deleted, its overlay kept the last board and score and said "feed refused: no table
    'd'" on air. It clears to "table closed"; the umpire console keeps the server's reason."""
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            _manual_table(c, "d", "Doomed", "all-fives", [{"type": "play", "seat": "N", "tile": "5-5"}])
            overlay = browser.new_page(viewport={"width": 1280, "height": 720})
            overlay.goto(f"{base}/tables/d/overlay?size=720p")
            overlay.wait_for_selector("#lastplay:not(.hidden)")
            ump = browser.new_page()
            ump.goto(f"{base}/tables/d/umpire#token={TOKEN}")
            ump.wait_for_selector("#feederr", state="attached")
            assert c.post("/api/tables/d/stop").status_code == 200
            assert c.delete("/api/tables/d").status_code in (200, 204)
            overlay.wait_for_function("document.getElementById('conn').textContent === 'table closed'", timeout=15000)
            assert overlay.inner_text("#scores") == "" and overlay.inner_text("#board") == ""
            assert overlay.locator("#lastplay.hidden").count() == 1
            ump.wait_for_function("document.getElementById('feederr').textContent.includes(\"no table 'd'\")",
                                  timeout=15000)
            overlay.close()
            ump.close()


def test_umpire_swaps_two_plays_recorded_the_wrong_way_round_from_the_console(tmp_path, browser):
    """N led 6-1; S laid 1-4 on E (6 + 4 = 10), N 6-3 on W. Recorded the wrong way round, nobody
    scored. "swap with next" on S's play exchanges the two tiles in one change: S 10."""
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            _manual_table(c, "w", "Swap", "all-fives", [{"type": "play", "seat": "N", "tile": "6-1"},
                                                        {"type": "play", "seat": "S", "tile": "6-3", "end": "W"},
                                                        {"type": "play", "seat": "N", "tile": "1-4", "end": "E"}])
            scores = lambda: _match_scores(c)  # noqa: E731
            assert scores() == {"N": 0, "S": 0}
            page = _umpire_console(browser, base, "w", "#log button[data-act='swap'][data-i='1']")
            assert page.query_selector("#log button[data-act='swap'][data-i='2']") is None  # no play after it
            asked = _click_and_accept(page, "#log button[data-act='swap'][data-i='1']")
            wait_for(lambda: scores() == {"N": 0, "S": 10})
            assert asked == ["Swap the tiles of plays #1 and #2 of hand #1 (seats stay)?"]
            page.wait_for_function("document.querySelectorAll('#log tr.corrected').length === 2", timeout=15000)
            # swapped back (undone): the two slots hold what they first held, no longer marked corrected
            page.once("dialog", lambda d: d.accept())
            page.click("#log button[data-act='swap'][data-i='1']")
            wait_for(lambda: scores() == {"N": 0, "S": 0})
            page.wait_for_function("document.querySelectorAll('#log tr.corrected').length === 0", timeout=15000)
            page.close()


def test_umpire_moves_a_play_recorded_late_up_from_the_console(tmp_path, browser):
    """N led 6-1; S 1-4 on E (10), N 6-3 on W, S 4-2 on E (3 + 2 = 5). Recorded with the last two the other
    way round: S 10, N 5 and an out-of-turn flag. "move up" on N's play puts it first: S 15, N 0."""
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            _manual_table(c, "m", "Move", "all-fives", [{"type": "play", "seat": "N", "tile": "6-1"},
                                                        {"type": "play", "seat": "S", "tile": "1-4", "end": "E"},
                                                        {"type": "play", "seat": "S", "tile": "4-2", "end": "E"},
                                                        {"type": "play", "seat": "N", "tile": "6-3", "end": "W"}])
            assert _match_scores(c) == {"N": 5, "S": 10}
            page = _umpire_console(browser, base, "m", "#log button[data-act='up'][data-i='3']")
            # the lead stays first, and the play after it cannot go above it
            assert [page.query_selector(f"#log button[data-act='up'][data-i='{i}']") for i in (0, 1)] == [None, None]
            asked = _click_and_accept(page, "#log button[data-act='up'][data-i='3']")
            wait_for(lambda: _match_scores(c) == {"N": 0, "S": 15})
            assert asked == ["Move event #3 of hand #1 before #2: it came first at the table (seats, tiles and times "
                             "stay)?"]
            page.wait_for_function("document.querySelectorAll('#log tr.corrected').length === 2", timeout=15000)
            # helper-114: each row reads as the event now in force, with its points; the first one as "was"
            rows = page.eval_on_selector_all("#log tr.corrected", "rs => rs.map(r => [...r.cells].slice(0, 3)"
                                             ".map(c => c.innerText.trim()))")
            assert rows == [["2", "play N 6-3 W was play S 4-2 E", ""], ["3", "play S 4-2 E was play N 6-3 W", "S +5"]]
            page.close()


@pytest.mark.parametrize("size,w,h", [("720p", 1280, 720), ("1080p", 1920, 1080)])
def test_overlay_clips_long_names_and_keeps_its_panels_apart(tmp_path, browser, size, w, h):
    """helper-99: names of 200 characters (the most the API takes) widened the score cards and the
    last-play bar past the frame (a page 5723 px wide at 720p) and over the table's title card."""
    long = "W" * 200
    spaced = "Maximiliano-Alejandro de la Santísima Trinidad " * 4
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            assert c.post("/api/tables", json={"id": "lg", "name": long, "rules": "all-fives", "title": "Club final",
                                               "players": {"N": long, "S": spaced[:200]},
                                               "worker": {"kind": "manual"}}).status_code == 201
            assert c.post("/api/tables/lg/start").status_code == 200  # a manual table takes events once started
            assert c.post("/api/tables/lg/events", json={"event": {"type": "play", "seat": "N",
                                                                    "tile": [5, 5]}}).status_code == 201
            page = browser.new_page(viewport={"width": w, "height": h})
            page.goto(f"{base}/tables/lg/overlay?size={size}")
            page.wait_for_selector("#lastplay:not(.hidden)")
            assert page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]") \
                == [w, h]
            boxes = {sel: page.locator(sel).bounding_box() for sel in ("#meta", "#lastplay")}
            cards = [card.bounding_box() for card in page.query_selector_all("#scores .team")]
            for b in list(boxes.values()) + cards:  # inside the frame
                assert b["x"] >= 0 and b["x"] + b["width"] <= w and b["y"] + b["height"] <= h, b
            meta = boxes["#meta"]
            assert page.inner_text("#meta").splitlines()[1] == "Club final"  # the match's title, under the table's
            assert all(cb["x"] + cb["width"] <= meta["x"] for cb in cards), (cards, meta)  # clear of the title card
            assert all(cb["height"] < 0.2 * h for cb in cards), cards  # one line of name each, not three
            # the name is shortened, what was played still shows whole
            assert page.inner_text("#lastplay").endswith("(N) played 5-5 (lead)+10")
            assert page.evaluate("() => { const e = document.getElementById('lastplay');"
                                 " return e.scrollWidth <= e.clientWidth; }")
            page.close()
            index = browser.new_page(viewport={"width": 1400, "height": 900})  # the organiser's list of tables
            index.goto(f"{base}/")
            index.wait_for_selector("tr[data-id='lg']")
            assert index.evaluate("() => document.documentElement.scrollWidth") <= 1400
            index.close()


def test_overlay_names_who_a_time_call_gave_points_to(tmp_path, browser):
    """helper-114: after a time call and the hands shown the bar read "hand over: time" while a side's
    score jumped, no winner named. It names each side the hand's end gave points to."""
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            assert c.post("/api/tables", json={"id": "tc", "name": "Time", "rules": "block", "overrides": {"hand_size": 2},
                                               "players": {"N": "Ana Ruiz", "S": "Bob Lee"},
                                               "worker": {"kind": "manual"}}).status_code == 201
            assert c.post("/api/tables/tc/start").status_code == 200  # a manual table takes events once started
            for ev in ({"type": "play", "seat": "N", "tile": "6-6"}, {"type": "play", "seat": "S", "tile": "6-5", "end": "E"},
                       {"type": "hand_end", "kind": "time"}, {"type": "reveal", "seat": "N", "tiles": ["1-1"]},
                       {"type": "reveal", "seat": "S", "tiles": ["6-4"]}):
                assert c.post("/api/tables/tc/events", json={"event": ev}).status_code == 201
            result = c.get("/api/tables/tc/snapshot").json()["data"]["state"]["hand"]["result"]
            won = [(s, v) for s, v in result["awards"].items() if v]
            assert result["kind"] == "time" and len(won) == 1  # the fewest pips (N: 2 against 10)
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(f"{base}/tables/tc/overlay?size=1280x720")
            page.wait_for_selector("#lastplay:not(.hidden)")
            side, pts = won[0]
            name = {"N": "Ana Ruiz", "S": "Bob Lee"}[side]
            assert page.inner_text("#lastplay").replace("\n", " ") == f"hand over: time · {name} +{pts}"
            assert page.locator(".team.turn").count() == 0
            page.close()


def test_overlay_names_the_side_points_go_to_and_says_a_domino_apart(tmp_path, browser):
    """helper-118: a penalty's +30 to the opponents read "Wes (W): penalty exposed tile +30"; a going-out play
    worth 5 with a domino worth 10 read "+15 · domino"; a match of several games never showed games won."""
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            assert c.post("/api/tables", json={"id": "pen", "name": "Pen", "rules": "bdc-partnership",
                                               "players": {"N": "Ana", "W": "Wes", "S": "Sam", "E": "Eli"},
                                               "worker": {"kind": "manual"}}).status_code == 201
            assert c.post("/api/tables/pen/start").status_code == 200  # a manual table takes events once started
            for ev in ({"type": "play", "seat": "N", "tile": "6-6"},
                       {"type": "penalty", "seat": "W", "name": "exposed_tile"}):
                assert c.post("/api/tables/pen/events", json={"event": ev}).status_code == 201
            state = c.get("/api/tables/pen/snapshot").json()["data"]["state"]
            assert state["hand"]["last_play"]["points"] == {"NS": 30}  # seed 001: to the opposing team
            ns = state["teams"]["NS"]["name"]
            assert c.post("/api/tables", json={"id": "dom", "name": "Dom", "rules": "all-fives",
                                               "overrides": {"hand_size": 2, "games_per_match": 3},
                                               "players": {"N": "Ana", "S": "Bob"},
                                               "worker": {"kind": "manual"}}).status_code == 201
            assert c.post("/api/tables/dom/start").status_code == 200  # a manual table takes events once started
            # N 5-5: 10; S 5-0 on E: the spinner's open side still counts both halves, 10 + 0; N 0-0 on E:
            # 10 + 0 = 10 again, and N goes out: S's 6-6 (12) -> 10
            for ev in ({"type": "deal", "hands": {"N": ["5-5", "0-0"], "S": ["5-0", "6-6"]}},
                       {"type": "play", "seat": "N", "tile": "5-5"}, {"type": "play", "seat": "S", "tile": "5-0", "end": "E"},
                       {"type": "play", "seat": "N", "tile": "0-0", "end": "E"}):
                assert c.post("/api/tables/dom/events", json={"event": ev}).status_code == 201
            lp = c.get("/api/tables/dom/snapshot").json()["data"]["state"]["hand"]["last_play"]
            assert (lp["points"], lp["awards"]) == ({"N": 20}, {"N": 10})
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(f"{base}/tables/pen/overlay?size=1280x720")
        page.wait_for_selector("#lastplay:not(.hidden)")
        assert page.inner_text("#lastplay").replace("\n", " ") == f"Wes (W): penalty exposed tile{ns} +30"
        assert page.locator(".games").count() == 0  # one game a match: nothing to count
        page.goto(f"{base}/tables/dom/overlay?size=1280x720")
        page.wait_for_selector("#lastplay:not(.hidden)")
        assert page.inner_text("#lastplay").replace("\n", " ") == "Ana (N) played 0-0 on the E end+10 · domino+10"
        assert page.locator(".games").all_inner_texts() == ["0 of 3 games", "0 of 3 games"]
        page.close()


def test_an_open_overlay_shows_the_players_a_table_change_names(tmp_path, browser):
    """helper-246 (h243 defect 3): round 2's overlay showed round 1's names; a table changed in place
    (PATCH, a new match's players) is redrawn on the open overlay, with no reload and the same address."""
    with live_server(app_for(tmp_path, keepalive_s=2)) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            assert c.post("/api/tables", json={"id": "m3", "name": "Mesa 3", "rules": "lisa-b-all-fives",
                                               "players": {"N": "Ana", "S": "Bob"},
                                               "worker": {"kind": "manual"}}).status_code == 201
            overlay = browser.new_page(viewport={"width": 1280, "height": 720})
            overlay.goto(f"{base}/tables/m3/overlay?theme=solid&size=1280x720")
            overlay.wait_for_function("document.querySelector('#scores')?.innerText.includes('Ana')", timeout=15000)
            assert c.patch("/api/tables/m3", json={"players": {"N": "Eve", "S": "Bob"}}).status_code == 200
            overlay.wait_for_function("document.querySelector('#scores')?.innerText.includes('Eve')", timeout=15000)
            assert "Ana" not in overlay.inner_text("#scores")
            assert c.post("/api/tables/m3/matches", json={"title": "Round 2",
                                                          "players": {"N": "Gil", "S": "Hal"}}).status_code == 201
            overlay.wait_for_function("document.querySelector('#scores')?.innerText.includes('Hal')", timeout=15000)
            assert "Gil" in overlay.inner_text("#scores") and "Eve" not in overlay.inner_text("#scores")


def test_camera_notes_stay_out_of_the_umpires_queue(tmp_path, browser, monkeypatch):
    """helper-260: each camera notice was an open alert, a tile knocked and followed ("bump: not a play") or a
    pass seen knocked too, each to be dismissed. They are camera notes now, listed apart with their time; the
    queue holds what the umpire decides (here a pass inferred with no knock seen, a laid tile gone)."""
    import service.sources as sources
    from test_service_notices import _ManyNoticesSource  # tests/test_service_notices.py

    monkeypatch.setitem(sources._FACTORIES, "vision", _ManyNoticesSource)
    app = app_for(tmp_path, keepalive_s=2)
    with live_server(app) as base:
        with httpx.Client(base_url=base, headers=AUTH, timeout=10) as c:
            r = c.post("/api/tables", json={"id": "cam", "name": "Camera table", "rules": "lisa-b-all-fives",
                                            "video_source": str(tmp_path / "table.mp4"),
                                            "worker": {"kind": "vision", "speed": 1}})
            assert r.status_code == 201, r.text
            assert c.post("/api/tables/cam/start").status_code == 200
            wait_for(lambda: c.get("/api/tables/cam/status").json()["state"] == "finished")
            page = _umpire_console(browser, base, "cam", "#notes .alert")
            page.wait_for_function("document.querySelectorAll('#alerts .alert').length === 2", timeout=15000)
            assert [k.inner_text() for k in page.query_selector_all("#alerts .alert .kind")] == [
                "pass_inferred", "tile_missing"]
            assert page.inner_text("#nalerts") == "(2 open)"
            assert [k.inner_text() for k in page.query_selector_all("#notes .alert .kind")] == [
                "reread", "picture_tile", "pass_inferred", "bump"]  # newest first
            assert "at 2.0 s" in page.inner_text("#notes .alert:last-child") and \
                "seen 2×" in page.inner_text("#notes .alert:last-child")
            assert page.query_selector("#notes button") is None
            page.close()
