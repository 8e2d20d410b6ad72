// service/static/umpire.js under node (tests/js/minidom.js for the DOM), fed by hand: what the umpire
// chose survives the redraws that the feeds' messages cause. Run: node tests/js/umpire_console.js SCENARIO
// (tests/test_umpire_console_js.py runs each); exits 1 with the failed check's message.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");
const assert = require("assert/strict");
const {document, loadPage} = require("./minidom.js");

const STATIC = path.join(__dirname, "..", "..", "service", "static");
const tick = () => new Promise((r) => setImmediate(r));

// the page with its scripts, the feeds and the API answered by the scenario
function page({answers = {}, hand1 = null, table = null} = {}) {
  loadPage(fs.readFileSync(path.join(STATIC, "umpire.html"), "utf8"));
  const feeds = {}, posts = [], gets = {};
  Object.assign(globalThis, {
    document,
    location: {pathname: "/tables/t/umpire", search: "", hash: "#token=tok", href: "http://x/tables/t/umpire#token=tok"},
    localStorage: {getItem: () => null, setItem() {}},
    prompt: () => answers.prompt, confirm: () => true,
  });
  vm.runInThisContext(fs.readFileSync(path.join(STATIC, "common.js"), "utf8"), {filename: "common.js"});
  const DC = vm.runInThisContext("DC");
  DC.feed = (url, onMessage) => { feeds[url.includes("/alerts/") ? "alerts" : "events"] = onMessage; return {close() {}}; };
  DC.api = async (url, opts = {}) => {
    if (opts.method && opts.method !== "GET") {  // an answer may be a function of the body (it may throw: refused)
      posts.push(opts.method === "POST" ? {url, body: opts.body} : {url, method: opts.method, body: opts.body, token: opts.token});
      const a = answers[url];
      return typeof a === "function" ? a(opts.body) : a || {};
    }
    if (url === "/api/tables/t") {
      gets.table = (gets.table || 0) + 1;
      return table || {rules: "lisa-b-all-fives", ruleset: {penalties: {bogus_play: {}, pass_with_play: {}}},
                       name: "T", players: {}, worker: {kind: "manual"}};
    }
    if (url === "/api/rulesets") return [{name: "all-fives"}, {name: "block"}, {name: "lisa-b-all-fives"}];
    if (url.startsWith("/api/matches/1/hands/")) return hand1 || {events: [{type: "play", seat: "S", tile: [6, 6]}], outcomes: []};
    throw new Error(`unexpected GET ${url}`);
  };
  vm.runInThisContext(fs.readFileSync(path.join(STATIC, "umpire.js"), "utf8"), {filename: "umpire.js"});
  const $ = (id) => document.getElementById(id);
  return {feeds, posts, gets, $, alertBox: (id) => document.querySelector(`.alert[data-id="${id}"]`)};
}

function state(hands, hand = null) {
  return {table: {id: "t", name: "T"}, match: {id: 1, number: 1, hands}, teams: {N: {seats: ["N"]}, S: {seats: ["S"]}},
          game: {number: 1, scores: {N: 0, S: 0}}, hand, worker: {kind: "manual", state: "running"}};
}

const flag = (id, extra = {}) => ({id, key: `flag:1:1:${id}:mismatched_end`, category: "flag", kind: "mismatched_end",
  match: 1, hand: 1, index: id, seat: "S", message: `S played 4-4 on E showing 6 (${id})`,
  details: {penalty: "bogus_play", event: "S 4-4 E"}, status: "open", note: "", ...extra});

const scenarios = {
  // helper-176: every alerts message rebuilt the list, and each menu went back to the suggested penalty
  async penalty_pick_survives_redraws() {
    const p = page();
    p.feeds.events({kind: "snapshot", data: {state: state(1)}});
    p.feeds.alerts({kind: "snapshot", data: {alerts: [flag(3)]}});
    await tick();  // the rule set's penalties
    const sel = p.alertBox(3).querySelector(".pensel");
    assert.equal(sel.value, "bogus_play", "the suggested penalty is chosen first");
    sel.value = "";  // the umpire picks "(no penalty)"
    sel.focus();
    await sel.dispatch("change");
    p.feeds.alerts({kind: "alert", data: flag(4)});  // another alert comes
    assert.equal(p.alertBox(3).querySelector(".pensel"), sel, "an unchanged alert's box is left as it is");
    assert.equal(sel.value, "");
    assert.equal(document.activeElement, sel, "the menu keeps the focus");
    assert.deepEqual(p.$("alerts").children.map((e) => e.dataset.id), ["3", "4"]);
    // the alert itself changes (seen again): drawn anew, with the umpire's pick and the focus
    p.feeds.alerts({kind: "alert", data: flag(3, {details: {penalty: "bogus_play", event: "S 4-4 E", repeats: 2}})});
    const again = p.alertBox(3).querySelector(".pensel");
    assert.notEqual(again, sel);
    assert.equal(again.value, "", "the pick survives the alert's redraw");
    assert.equal(document.activeElement, again, "the focus goes to the new menu");
    assert.deepEqual(p.$("alerts").children.map((e) => e.dataset.id), ["3", "4"]);
    await again.parentNode.querySelector(".confirm").dispatch("click");
    assert.deepEqual(p.posts.map((x) => [x.url, x.body.penalty]), [["/api/tables/t/alerts/3/confirm", ""]]);
    // decided: the box goes, and the list says so once none is left
    p.feeds.alerts({kind: "alert", data: flag(3, {status: "confirmed"})});
    p.feeds.alerts({kind: "alert", data: flag(4, {status: "dismissed"})});
    assert.equal(p.$("alerts").textContent, "No open alert.");
    p.feeds.alerts({kind: "alert", data: flag(5)});
    assert.deepEqual(p.$("alerts").children.map((e) => e.dataset.id), ["5"]);
  },

  // helper-176: the hand menu was rebuilt on every events message, closing it under the umpire's hand
  async hand_menu_is_rebuilt_only_when_its_hands_change() {
    const p = page();
    p.feeds.events({kind: "snapshot", data: {state: state(2)}});
    const menu = p.$("handsel"), sets = menu.innerHTMLSets;
    for (let i = 0; i < 3; i++) p.feeds.events({kind: "event", data: {state: state(2)}});
    await tick();
    assert.equal(menu.innerHTMLSets, sets, "the same hands: the menu is left as it is");
    p.feeds.events({kind: "event", data: {state: state(3)}});
    assert.equal(menu.innerHTMLSets, sets + 1);
    assert.deepEqual(menu.options.map((o) => o.value), ["", "1", "2", "3"]);
  },

  // helper-176: a fix that took away a confirmed flag said "done", its penalty left on the score unsaid
  async a_penalty_left_without_its_flag_is_said_and_can_be_voided() {
    const message = "S bogus_play (hand 1 #4) stays on the score, but its mismatched_end flag (alert 3) is gone: ...";
    const p = page({answers: {prompt: "5-5", "/api/tables/t/fix-tile": {penalties_without_flag: [{message}]}}});
    const hand = {number: 1, game: 1, in_game: 1, status: "in play", layout: {box: [0, 0, 1, 1], tiles: [], ends: []}};
    p.feeds.events({kind: "snapshot", data: {state: state(1, hand)}});
    p.feeds.alerts({kind: "snapshot", data: {alerts: []}});
    await tick(); await tick();
    await p.$("log").querySelector('button[data-act="fix"]').dispatch("click");
    assert.equal(p.$("toast").textContent, message);
    // the alert resolved with its penalty left stays in the list, to be voided
    const left = {hand: 1, index: 4, seat: "S", penalty: "bogus_play"};
    p.feeds.alerts({kind: "alert", data: flag(3, {status: "resolved", details: {penalty_left: left},
                                                   note: "no longer flagged; its penalty ... stays on the score"})});
    const box = p.alertBox(3);
    assert.ok(box && box.classList.contains("attention"), "shown, as needing attention");
    assert.equal(box.querySelector(".confirm"), null);
    assert.equal(p.$("nalerts").textContent, "(1 to check)");
    await box.querySelector(".voidpen").dispatch("click");
    assert.deepEqual(p.posts.at(-1), {url: "/api/tables/t/corrections", body: {
      hand: 1, replaces: 4, event: null, by: "umpire", reason: "its mismatched_end flag is gone (alert 3)"}});
    p.feeds.alerts({kind: "alert", data: flag(3, {status: "resolved", details: {}})});  // voided
    assert.equal(p.alertBox(3), null);
  },

  // helper-198: the log wrote a hand end, a penalty or a reveal as "hand_end", "penalty S", "reveal S", and compared
  // only type, seat, tile and end: an end corrected from locked to domino (or a penalty's points, a reveal's tiles)
  // read as the event first recorded, not corrected, with no "was"
  async corrected_ends_penalties_and_reveals_read_as_corrected() {
    const events = [
      {type: "play", seat: "N", tile: [6, 6]},
      {type: "hand_end", kind: "locked"},
      {type: "penalty", seat: "S", points: -10},
      {type: "reveal", seat: "S", tiles: [[3, 2]]},
      {type: "correction", replaces: 1, event: {type: "hand_end", kind: "domino", winner: "N"}, by: "A"},
      {type: "correction", replaces: 2, event: {type: "penalty", seat: "S", points: -5}, by: "A"},
      {type: "correction", replaces: 3, event: {type: "reveal", seat: "S", tiles: [[3, 1]]}, by: "A"},
      {type: "correction", replaces: 0, event: {type: "play", seat: "N", tile: [6, 6], confidence: 0.9}, by: "A"},
    ];
    const p = page({hand1: {events, outcomes: []}});
    const hand = {number: 1, game: 1, in_game: 1, status: "over", layout: {box: [0, 0, 1, 1], tiles: [], ends: []}};
    p.feeds.events({kind: "snapshot", data: {state: state(1, hand)}});
    await tick(); await tick();
    const rows = p.$("log").querySelectorAll("tr").slice(1);
    const cell = (i) => rows[i].children[1].textContent.replace(/\s+/g, " ").trim();
    assert.equal(cell(1), "hand_end domino N was hand_end locked");
    assert.equal(cell(2), "penalty S −5 was penalty S −10");
    assert.equal(cell(3), "reveal S 3-1 was reveal S 3-2");
    assert.ok(rows[1].classList.contains("corrected") && rows[3].classList.contains("corrected"));
    // a slot put back as it was (only the camera's read confidence differs) is not shown as corrected
    assert.equal(cell(0), "play N 6-6");
    assert.ok(!rows[0].classList.contains("corrected"));
    assert.equal(cell(4), "fix #1: hand_end domino N (A)");
  },

  // helper-251: PATCH /api/tables/{id} had no form on the console. It shows the table as read, sends only the fields
  // changed (a running table refuses a video source given, even unchanged), with the console's token
  async table_settings_send_only_what_changed() {
    const info = {name: "Mesa 1", rules: "lisa-b-all-fives", ruleset: {players: 2, penalties: {bogus_play: {}}},
                  players: {N: "Ana", S: "Bo"}, worker: {kind: "vision", speed: 1, interval: 2, follow: true},
                  video_source: "/cam/a", calibration: "/p.json"};
    let answer = info;
    const p = page({table: info, answers: {"/api/tables/t": (body) => answer(body)}});
    p.feeds.events({kind: "snapshot", data: {state: state(0)}});
    for (let i = 0; i < 4; i++) await tick();
    const seatShown = (s) => !p.$("edittable").querySelector(`label[data-seat="${s}"]`).classList.contains("hidden");
    assert.deepEqual([p.$("e-name").value, p.$("e-rules").value, p.$("e-worker").value, p.$("e-video").value,
                      p.$("e-calib").value], ["Mesa 1", "lisa-b-all-fives", "vision", "/cam/a", "/p.json"]);
    assert.deepEqual(["N", "E", "S", "W"].map(seatShown), [true, false, true, false], "two players sit N and S");
    assert.deepEqual(p.$("e-rules").options.map((o) => o.value), ["all-fives", "block", "lisa-b-all-fives"]);
    await p.$("edittable").dispatch("submit");
    assert.deepEqual(p.posts, [], "nothing changed: nothing sent");
    assert.equal(p.$("toast").textContent, "nothing changed");
    // renamed, and S's player: only those go, with the token
    p.$("e-name").value = "Mesa Uno";
    p.$("edittable").querySelector('.e-player[data-seat="S"]').value = "Bea";
    await p.$("e-name").dispatch("input");
    const saved = {...info, name: "Mesa Uno", players: {N: "Ana", S: "Bea"}};
    answer = () => saved;
    await p.$("edittable").dispatch("submit");
    assert.deepEqual(p.posts, [{url: "/api/tables/t", method: "PATCH", token: "tok",
                                body: {name: "Mesa Uno", players: {N: "Ana", S: "Bea"}}}]);
    assert.equal(p.$("toast").textContent, "table saved: name, players");
    // the worker changed: its pace and folder-following kept; the source fields go with a vision worker only
    p.$("e-worker").value = "manual";
    await p.$("e-worker").dispatch("change");
    assert.equal(p.$("e-video").disabled, true);
    answer = () => { throw new Error("table 't' is running: stop it before changing its worker"); };
    await p.$("edittable").dispatch("submit");
    assert.deepEqual(p.posts.at(-1).body, {worker: {speed: 1, interval: 2, follow: true, kind: "manual"}});
    assert.equal(p.$("toast").textContent, "table 't' is running: stop it before changing its worker");
    assert.equal(p.$("e-worker").value, "manual", "a refused change stays in the form");
    // a change made elsewhere is read again, unless the form is being edited
    const read = p.gets.table;
    p.feeds.events({kind: "table", data: {state: state(0)}});
    await tick();
    assert.equal(p.gets.table, read, "being edited: not overwritten");
    p.$("e-worker").value = "vision";
    answer = () => saved;
    p.$("e-name").value = "Mesa 2";
    await p.$("edittable").dispatch("submit");
    assert.deepEqual(p.posts.at(-1).body, {name: "Mesa 2"});
    p.feeds.events({kind: "table", data: {state: state(0)}});
    for (let i = 0; i < 4; i++) await tick();
    assert.equal(p.gets.table, read + 1);
    assert.equal(p.$("e-name").value, "Mesa 1", "the form shows the table as read");
  },

  // helper-260: a tile the camera saw knocked and followed ("bump: not a play") waited in the queue to be
  // dismissed; the camera's notes (severity "info", stored resolved) are listed apart, newest first, with the
  // footage time, and never counted open
  async camera_notes_are_listed_apart_from_the_queue() {
    const p = page();
    p.feeds.events({kind: "snapshot", data: {state: state(1)}});
    const note = (id, kind, t, extra = {}) => ({id, key: `vision:1:1:${kind}:${id}`, category: "vision", kind, match: 1,
      hand: 1, index: null, seat: null, message: `${kind} ${id}`, details: {t, frame: t * 8}, status: "resolved",
      severity: "info", resolved_by: "worker", note: "for information", created_at: 1765000000, ...extra});
    p.feeds.alerts({kind: "snapshot", data: {alerts: [flag(3), note(4, "bump", 13.25)]}});
    await tick();
    assert.deepEqual(p.$("alerts").children.map((e) => e.dataset.id), ["3"], "the queue holds the flag only");
    assert.equal(p.$("nalerts").textContent, "(1 open)");
    const notes = () => p.$("notes").querySelectorAll(".alert").map((e) => e.dataset.note);
    assert.deepEqual(notes(), ["4"]);
    assert.match(p.$("notes").textContent, /bump hand 1 · at 13\.3 s · .*bump 4/);
    assert.equal(p.$("notes").querySelector("button"), null, "nothing to confirm or dismiss");
    p.feeds.alerts({kind: "alert", data: note(6, "pass_inferred", 20, {seat: "E"})});
    p.feeds.alerts({kind: "alert", data: note(4, "bump", 13.25, {details: {t: 13.25, frame: 106, repeats: 2}})});
    assert.deepEqual(notes(), ["6", "4"], "newest first");
    assert.equal(p.$("nnotes").textContent, "(2)");
    assert.match(p.$("notes").textContent, /seen 2×/);
    assert.equal(p.$("nalerts").textContent, "(1 open)");
    // another match's notes are not this one's
    p.feeds.events({kind: "match", data: {state: {...state(0), match: {id: 2, number: 2, hands: 0}}}});
    await tick();
    assert.equal(p.$("notes").textContent, "No camera note.");
  },
};

const name = process.argv[2];
if (!scenarios[name]) { console.error(`scenarios: ${Object.keys(scenarios).join(", ")}`); process.exit(2); }
// exits at once: the toast's timer would keep node up for seconds
scenarios[name]().then(() => { console.log(`ok ${name}`); process.exit(0); }, (e) => { console.error(e.stack || e); process.exit(1); });
