// Umpire console: the alert queue (its own feed) and the corrections; every action is an event.
"use strict";
(() => {
  const table = DC.pathPart("tables");
  const T = encodeURIComponent(table);
  const $ = (id) => document.getElementById(id);
  let token = DC.savedToken();
  $("token").value = token;
  $("by").value = localStorage.getItem("dominocast-umpire") || "";
  // alertsBlocked: why no alert can be shown (the token missing or refused), said where the alerts would be
  let state = null, rules = null, alertsFeed = null, eventsFeed = null, alertsBlocked = null;
  let pinned = null, shown = null;  // the hand picked in the log's menu (null: the current one), the hand shown
  let handMenu = "";  // the options #handsel holds: rebuilt on every event, an open menu closed (helper-176)
  let logSeq = 0, logHand = null;  // the latest log request, and the hand whose log the table holds (its buttons act on it)
  const alerts = new Map();

  function toast(text, bad, ms = 4000) {
    const t = $("toast"); t.textContent = text; t.style.background = bad ? "#b42318" : "#222";
    t.classList.remove("hidden"); clearTimeout(toast.timer); toast.timer = setTimeout(() => t.classList.add("hidden"), ms);
  }
  const by = () => $("by").value || "umpire";
  // the events /reassign moves to another seat (service/routes_umpire.py _TURN_EVENTS)
  const TURN_EVENTS = new Set(["play", "pass", "draw", "take_back"]);
  // a refused action is said in the toast (not an uncaught error of the page); its result is then null
  // One action at a time: a double click sent the same pass twice, the second one out of turn.
  let sending = false;
  async function act(path, body, method = "POST") {
    if (sending) { toast("the last action is still being sent", true); return null; }
    sending = true;
    try {
      const out = await DC.api(`/api/tables/${T}${path}`, {method, body, token});
      // a change that took away a confirmed flag leaves its penalty on the score: said, not "done" (helper-176;
      // the alert stays in the list with a button to void that penalty)
      const left = (out && out.penalties_without_flag) || [];
      if (left.length) toast(left.map((p) => p.message).join(" · "), true, 12000);
      else toast("done");
      return out;
    } catch (e) { toast(e.message, true); return null; } finally { sending = false; }
  }

  // an alert the engine resolved while its confirmation's penalty stays on the score with no flag behind it
  // (service/live.py _mark_penalty_left): kept in view, with a button to void that penalty (helper-176)
  const penaltyLeft = (a) => (a.status === "resolved" && a.details && a.details.penalty_left) || null;
  // The umpire's penalty pick per alert id, and each alert's box with the HTML it was drawn from: a redraw on
  // every alerts message reset each menu to the suggested penalty and closed an open one (helper-176). A box
  // whose alert looks the same is left as it is; one drawn anew keeps the pick and the focus.
  const picked = new Map(), drawn = new Map();

  function alertHTML(a, current) {
    const left = penaltyLeft(a);
    // an earlier match's alert: said so (its "hand 1" is not this match's), and no penalty can apply to it
    const earlier = current != null && a.match != null && a.match !== current;
    const opts = ['<option value="">(no penalty)</option>'].concat((rules ? rules.penalties : []).map((p) =>
      `<option>${DC.esc(p)}</option>`)).join("");
    const tools = left ? '<button class="primary voidpen">Void penalty</button>'
      : (a.category === "flag" && a.seat && !earlier ? `<select class="pensel">${opts}</select>` : "")
        + '<button class="primary confirm">Confirm</button><button class="dismiss">Dismiss</button>';
    return `<div class="alert ${a.category}${left ? " attention" : ""}" data-id="${a.id}"><div><span class="kind">${DC.esc(a.kind)}</span>`
      + ` <span class="muted">#${a.id}${earlier ? " · an earlier match" : ""} · hand ${a.hand ?? "-"}${a.index != null ? " · event " + a.index : ""}${a.seat ? " · " + a.seat : ""}`
      + `${left ? " · no longer flagged, its penalty stays" : ""}</span></div>`
      + `<div>${left ? "was: " : ""}${DC.esc(DC.shortTimes(a.message))}</div><div class="details">${DC.esc(a.details && a.details.event ? "event: " + DC.shortTimes(a.details.event) : "")}`
      + `${a.details && a.details.repeats ? " · seen " + a.details.repeats + "×" : ""}</div>`
      // why it is back before the umpire (helper-114: "reopened: ... its penalty ... was voided" was unseen)
      + (a.note ? `<div class="details note">${DC.esc(a.note)}</div>` : "")
      + `<div class="row">${tools}</div></div>`;
  }

  function renderAlerts() {
    const current = state && state.match ? state.match.id : null;
    const listed = [...alerts.values()].filter((a) => a.status === "open" || (penaltyLeft(a) && a.match === current))
      .sort((a, b) => a.id - b.id);
    const open = listed.filter((a) => a.status === "open").length;
    const counts = [open ? `${open} open` : "", listed.length > open ? `${listed.length - open} to check` : ""].filter(Boolean);
    $("nalerts").textContent = counts.length ? `(${counts.join(", ")})` : "";
    const ids = new Set(listed.map((a) => a.id)), box = $("alerts");
    for (const id of picked.keys()) if (!ids.has(id)) picked.delete(id);
    for (const [id, d] of drawn) if (!ids.has(id)) { d.el.remove(); drawn.delete(id); }
    if (!listed.length) {
      box.innerHTML = alertsBlocked ? `<p class="bad">${DC.esc(alertsBlocked)}</p>` : '<p class="muted">No open alert.</p>';
      return;
    }
    for (const el of [...box.children]) if (!el.dataset.id) el.remove();  // "No open alert." and the like
    let next = box.firstElementChild;  // the boxes go in the order of the alerts' ids; one in place is not moved
    for (const a of listed) {
      const html = alertHTML(a, current), was = drawn.get(a.id);
      let el = was && was.el;
      if (!was || was.html !== html) {
        const tmp = document.createElement("div");
        tmp.innerHTML = html;
        const fresh = tmp.firstElementChild, sel = fresh.querySelector(".pensel");
        const pen = picked.has(a.id) ? picked.get(a.id) : (a.details && a.details.penalty) || "";
        if (sel && [...sel.options].some((o) => o.value === pen)) sel.value = pen;
        if (el) {
          const focus = document.activeElement, cls = el.contains(focus) && focus !== el ? focus.classList[0] : null;
          if (el === next) next = fresh;
          el.replaceWith(fresh);
          const again = cls && fresh.querySelector("." + cls);
          if (again) again.focus();
        }
        el = fresh;
        drawn.set(a.id, {el, html});
      }
      if (el !== next) box.insertBefore(el, next);
      else next = el.nextElementSibling;
    }
  }

  // the camera's notices it settled itself (severity "info", stored resolved: service/alert_levels.py): the
  // current match's, newest first, with the footage time and the clock time, never in the queue above
  const NOTES_SHOWN = 100;
  function renderNotes() {
    const current = state && state.match ? state.match.id : null;
    const notes = [...alerts.values()].filter((a) => a.severity === "info" && (current == null || a.match === current))
      .sort((a, b) => b.id - a.id);
    $("nnotes").textContent = notes.length ? `(${notes.length})` : "";
    $("notes").innerHTML = notes.length ? notes.slice(0, NOTES_SHOWN).map((a) => {
      const d = a.details || {}, at = typeof d.t === "number" ? ` · at ${d.t.toFixed(1)} s` : "";
      const clock = a.created_at ? " · " + new Date(a.created_at * 1000).toLocaleTimeString() : "";
      return `<div class="alert note-info" data-note="${a.id}"><span class="kind">${DC.esc(a.kind)}</span>`
        + ` <span class="muted">hand ${a.hand ?? "-"}${a.seat ? " · " + a.seat : ""}${at}${clock}${d.repeats ? " · seen " + d.repeats + "×" : ""}</span>`
        + `<div>${DC.esc(DC.shortTimes(a.message))}</div></div>`;
    }).join("") : '<p class="muted">No camera note.</p>';
  }

  $("alerts").addEventListener("change", (ev) => {
    const box = ev.target.closest(".alert");
    if (box && ev.target.classList.contains("pensel")) picked.set(+box.dataset.id, ev.target.value);
  });

  $("alerts").addEventListener("click", async (ev) => {
    const box = ev.target.closest(".alert"); if (!box) return;
    const id = box.dataset.id;
    if (ev.target.classList.contains("confirm")) {
      const sel = box.querySelector(".pensel");
      const body = {by: by()};
      if (sel) body.penalty = sel.value;  // "" is "(no penalty)": sent, or the server applies its suggestion
      const out = await act(`/alerts/${id}/confirm`, body);
      if (out && out.alert) { alerts.set(out.alert.id, out.alert); renderAlerts(); }
    } else if (ev.target.classList.contains("dismiss")) {
      const out = await act(`/alerts/${id}/dismiss`, {by: by()});
      if (out && out.alert) { alerts.set(out.alert.id, out.alert); renderAlerts(); }
    } else if (ev.target.classList.contains("voidpen")) {
      // the alert leaves the list when its message (the penalty no longer left) comes on the feed
      const a = alerts.get(+id), left = a && penaltyLeft(a);
      if (left && confirm(`Void ${left.seat}'s penalty ${left.penalty} (event #${left.index} of hand #${left.hand})?`))
        await act("/corrections", {hand: left.hand, replaces: left.index, event: null, by: by(),
                                   reason: `its ${a.kind} flag is gone (alert ${a.id})`});
    }
  });

  async function renderState(st) {
    const newMatch = !state || !state.match || !st.match || state.match.id !== st.match.id;
    state = st;
    if (newMatch) { renderAlerts(); renderNotes(); }  // which alerts are an earlier match's depends on it
    $("tname").textContent = st.table.name;
    const game = st.game || {scores: {}};
    // each side's label cut to a line (helper-114: 200-character names made the header five lines deep)
    $("score").innerHTML = Object.keys(st.teams).map((s) =>
      `<span class="side"><span class="clip">${DC.esc(DC.sideLabel(st, s))}</span> ${game.scores[s] ?? 0}</span>`).join(" · ");
    const hand = st.hand;
    $("handinfo").textContent = hand ? `game ${hand.game} · hand ${hand.in_game} (#${hand.number}) · ${hand.status}`
      + (hand.turn ? ` · ${hand.turn} to play` : "") + (hand.confirmed ? " · confirmed" : "") : "no hand yet";
    $("miniboard").innerHTML = hand ? DC.layoutSVG(hand.layout) : "";
    const seats = Object.values(st.teams).flatMap((t) => t.seats);
    if ($("seat").options.length !== seats.length) {
      $("seat").innerHTML = seats.map((s) => `<option>${s}</option>`).join("");
      $("winner").innerHTML = '<option value="">-</option>' + seats.map((s) => `<option>${s}</option>`).join("");
    }
    // the log follows the hand in play unless an earlier hand is picked (its tiles can be fixed too)
    const n = st.match.hands || 0;
    if (pinned !== null && pinned > n) pinned = null;
    const menu = '<option value="">current hand</option>'
      + Array.from({length: n}, (_, i) => `<option value="${i + 1}" ${pinned === i + 1 ? "selected" : ""}>hand #${i + 1}</option>`).join("");
    if (menu !== handMenu) { $("handsel").innerHTML = menu; handMenu = menu; }
    shown = pinned ?? (hand ? hand.number : null);
    // the entries below act on the hand the log shows: say which, so an earlier hand is never ended by mistake
    $("enterfor").textContent = shown ? `for hand #${shown}${pinned !== null ? " (picked in the log)" : ""}` : "";
    const seq = ++logSeq;
    if (shown && st.match.id) {
      const want = shown, h = await DC.api(`/api/matches/${st.match.id}/hands/${want}` + viewKey("?"), {token});
      if (seq !== logSeq) return;  // a newer state asked for the log meanwhile: a slow reply must not overwrite it
      logHand = want;
      renderLog(h);
    } else { logHand = null; $("log").innerHTML = ""; }
  }
  $("handsel").onchange = () => { pinned = $("handsel").value ? +$("handsel").value : null; if (state) renderState(state); };
  const viewKey = (sep) => (DC.params.get("key") ? `${sep}key=${encodeURIComponent(DC.params.get("key"))}` : "");

  // what a voided slot held before its void, by slot: its "restore" button puts that back
  let restorable = new Map();

  function renderLog(h) {
    // each slot as it now stands (a later correction of a slot replaces an earlier one), so that a fixed
    // slot can be fixed again and a wrong void undone; the API corrects the event in force
    const now = new Map(), beforeVoid = new Map();
    h.events.forEach((e) => {
      if (e.type !== "correction") return;
      const held = now.has(e.replaces) ? now.get(e.replaces) : h.events[e.replaces];
      if (!e.event && held) beforeVoid.set(e.replaces, held);
      now.set(e.replaces, e.event || null);
    });
    restorable = beforeVoid;
    logNow = {h, now};
    const outs = new Map(h.outcomes.map((o) => [o.index, o]));
    $("log").innerHTML = "<tr><th>#</th><th>event</th><th>points</th><th></th></tr>" + h.events.map((e, i) => {
      const o = outs.get(i);
      const flags = o && o.flags ? o.flags.map(DC.flagTag).join(" ") : "";
      const pts = o && o.points ? Object.entries(o.points).map(([s, p]) => `${s} ${DC.signed(p)}`).join(", ") : "";
      const cur = now.has(i) ? now.get(i) : e;
      // a corrected slot reads as the event in force (its points and flags are that event's; helper-114:
      // the first event stood struck through beside points it never scored), the first one as "was"
      const changed = now.has(i) && !same(now.get(i), e);
      const text = e.type === "correction" ? `fix #${e.replaces}: ${e.event ? evText(e.event) : "void"} ${e.by ? "(" + e.by + ")" : ""}`
        : changed ? (cur ? evText(cur) : "voided") : evText(e);
      const was = changed ? ` <span class="was">was ${DC.esc(evText(e))}</span>` : "";
      let tools = "";
      if (e.type === "correction") { /* a correction is changed by correcting its slot again */ }
      else if (!cur) tools = beforeVoid.has(i) ? `<button data-act="restore" data-i="${i}">restore</button>` : "";
      else tools = (cur.type === "play" ? `<button data-act="fix" data-i="${i}">fix tile</button>` : "")
        + (cur.type === "play" && nextPlay(h, now, i) !== null
          ? `<button data-act="swap" data-i="${i}" title="the tiles of this play and the next one were recorded the wrong way round">swap with next</button>` : "")
        + (movable(h, now, i) !== null
          ? `<button data-act="up" data-i="${i}" title="this event came before the one above it at the table (recorded late)">move up</button>` : "")
        + (TURN_EVENTS.has(cur.type) ? `<button data-act="seat" data-i="${i}">seat</button>` : "")
        + `<button data-act="void" data-i="${i}">void</button>`;
      return `<tr class="${changed ? (cur ? "corrected" : "corrected voided") : ""}"><td>${i}</td><td>${DC.esc(text)}${was} ${flags}</td><td>${pts}</td><td>${tools}</td></tr>`;
    }).join("");
  }

  // what an event says, with what an umpire may correct in it (helper-198: a hand end corrected from locked to
  // domino, a penalty's points or a reveal's tiles read "hand_end", "penalty S", "reveal S" before and after)
  const tiles = (ts) => (ts || []).map((t) => t.join("-")).join(" ");
  const evText = (e) => [e.type, e.seat, e.tile ? e.tile.join("-") : "", e.end,
    e.type === "hand_end" ? `${e.kind}${e.winner ? " " + e.winner : ""}` : "",
    e.type === "penalty" ? [e.name, e.points != null ? DC.signed(e.points) : ""].filter(Boolean).join(" ") : "",
    e.type === "draw" ? (e.tiles ? tiles(e.tiles) : e.count > 1 ? `${e.count} tiles` : "") : "",
    e.type === "reveal" ? tiles(e.tiles) : ""].filter(Boolean).join(" ");

  // a slot corrected back to what it first held (a swap undone) is not shown as corrected: every field counts but
  // the camera's (time, frame, read confidence, orientation seen, seat by turn), which a correction does not keep
  const CAMERA = new Set(["t", "frame", "confidence", "oriented", "seat_by_turn"]);
  const core = (e) => JSON.stringify(Object.keys(e).filter((k) => !CAMERA.has(k) && e[k] != null).sort().map((k) => [k, e[k]]));
  const same = (a, b) => !!a && !!b && core(a) === core(b);

  // the next slot whose event in force is a play (a swap exchanges the tiles and ends of two plays)
  function nextPlay(h, now, i) {
    for (let j = i + 1; j < h.events.length; j++) {
      if (h.events[j].type === "correction") continue;
      const cur = now.has(j) ? now.get(j) : h.events[j];
      if (cur && cur.type === "play") return j;
    }
    return null;
  }
  let logNow = null;

  // the slot of the event in force right before slot i when both are plays, passes or draws and that one is
  // not the lead (move-event exchanges their places in the record); null otherwise
  const ORDERED = new Set(["play", "pass", "draw"]);
  function movable(h, now, i) {
    const at = (k) => (now.has(k) ? now.get(k) : h.events[k]);
    const slots = h.events.map((e, k) => k).filter((k) => h.events[k].type !== "correction" && at(k));
    const p = slots.indexOf(i);
    if (p < 1 || !ORDERED.has(at(i).type) || !ORDERED.has(at(slots[p - 1]).type)) return null;
    const lead = slots.find((k) => at(k).type === "play");
    return slots[p - 1] === lead ? null : slots[p - 1];
  }

  // a play voided while the camera follows the hand: its tile stays on the table as no play, so tiles laid
  // against it touch no open end (unplaced_tile alerts) until the void is undone (docs/tracking.md)
  function voidWarning(hand) {
    const w = state && state.worker, live = state && state.hand && state.hand.number === hand;
    return w && w.kind === "vision" && w.state === "running" && live
      ? " The camera follows this hand: until the void is undone, tiles laid against this one are not taken for plays." : "";
  }

  $("log").addEventListener("click", async (ev) => {
    const b = ev.target.closest("button"); if (!b || !logHand) return;
    const i = +b.dataset.i, hand = logHand;
    if (b.dataset.act === "fix") {
      const tile = prompt("The tile that was really played (e.g. 6-4):"); if (!tile) return;
      await act("/fix-tile", {hand, index: i, tile, by: by()});
    } else if (b.dataset.act === "swap" && logNow) {
      const j = nextPlay(logNow.h, logNow.now, i);
      const held = (k) => (logNow.now.has(k) ? logNow.now.get(k) : logNow.h.events[k]).tile;
      // the tiles seen: a second umpire's (or a retried) swap of the same plays is refused, not undone
      if (j !== null && confirm(`Swap the tiles of plays #${i} and #${j} of hand #${hand} (seats stay)?`))
        await act("/swap-tiles", {hand, index: i, other: j, seen: [held(i), held(j)], by: by()});
    } else if (b.dataset.act === "up" && logNow) {
      const j = movable(logNow.h, logNow.now, i);
      const cur = logNow.now.has(i) ? logNow.now.get(i) : logNow.h.events[i];
      // the event seen: a second umpire's (or a retried) move of the same event is refused, not undone
      if (j !== null && confirm(`Move event #${i} of hand #${hand} before #${j}: it came first at the table (seats, tiles and times stay)?`))
        await act("/move-event", {hand, index: i, before: j, seen: {type: cur.type, seat: cur.seat, tile: cur.tile}, by: by()});
    } else if (b.dataset.act === "seat") {
      const seat = prompt("The seat that made this play (N, E, S, W):"); if (!seat) return;
      await act("/reassign", {hand, index: i, seat: seat.toUpperCase(), by: by()});
    } else if (b.dataset.act === "void" && confirm(`Void event #${i} of hand #${hand}?` + voidWarning(hand))) {
      await act("/corrections", {hand, replaces: i, event: null, by: by(), reason: "voided by the umpire"});
    } else if (b.dataset.act === "restore" && restorable.has(i) && confirm(`Restore event #${i} of hand #${hand}?`)) {
      await act("/corrections", {hand, replaces: i, event: restorable.get(i), by: by(), reason: "restored by the umpire"});
    }
  });

  $("pass").onclick = () => act("/events", {event: {type: "pass", seat: $("seat").value}, hand: shown ?? undefined,
                                            by: by()});
  $("pen").onclick = () => {
    const ev = {type: "penalty", seat: $("seat").value, reason: "umpire"};
    const pts = $("pts").value.trim();
    if (pts) {
      if (!/^[+-]?\d+$/.test(pts)) return toast("points: a whole number, e.g. -10", true);
      ev.points = parseInt(pts, 10);
    } else if ($("penalty").value) ev.name = $("penalty").value;
    else return toast("enter the points: this rule set names no penalty", true);  // the API would refuse a bare penalty
    // a penalty scores at once (bogus_play also redeals): ask, and clear the points so they are not reused
    const what = ev.points !== undefined ? `${DC.signed(ev.points)} points` : `penalty ${ev.name}`;
    if (!confirm(`${what} for ${ev.seat}?`)) return;
    $("pts").value = "";
    return act("/events", {event: ev, hand: shown ?? undefined, by: by()});
  };
  $("endhand").onclick = () => {
    // it ends the hand at once, and the tiles laid after it are not scored unless it is voided: ask, as Penalty
    // does (helper-174: a misclicked End at a camera table)
    const ev = {type: "hand_end", kind: $("endkind").value, winner: $("winner").value || null};
    const what = ev.kind === "domino" && ev.winner ? `${ev.winner} dominoes` : ev.kind;
    if (!confirm(`End ${shown ? `hand #${shown}` : "the hand"} now (${what})? Plays after it are not scored unless the end is voided.`)) return;
    return act("/events", {event: ev, hand: shown ?? undefined, by: by()});
  };
  $("confirmhand").onclick = () => shown && act(`/hands/${shown}/confirm`, {by: by()});
  // the tiles a seat shows at the end of a hand the camera did not count (a hand left awaiting its reveals)
  $("reveal").onclick = () => {
    const tiles = $("tiles").value.trim().split(/[\s,]+/).filter(Boolean);
    if (!tiles.length) return toast("tiles: e.g. 6-6 5-4 (none: the seat shows no tile)", true);
    return act("/events", {event: {type: "reveal", seat: $("seat").value, tiles}, hand: shown ?? undefined, by: by()})
      .then((out) => { if (out) $("tiles").value = ""; });
  };

  // the events feed of a protected table needs its view key (?key= in the address) or the token:
  // EventSource sets no header, so both go in the query (the API takes either)
  function feedAuth() {
    const q = new URLSearchParams();
    if (DC.params.get("key")) q.set("key", DC.params.get("key"));
    if (token) q.set("token", token);
    return q.toString() ? "?" + q : "";
  }

  function connectEvents() {
    if (eventsFeed) eventsFeed.close();
    eventsFeed = DC.feed(`/api/tables/${T}/feed` + feedAuth(), (msg) => {
      $("feederr").textContent = "";
      if (msg.kind === "table") settingsChanged();
      if (msg.data && msg.data.state) renderState(msg.data.state);
    }, (s, why) => {
      $("conn").textContent = s === "live" ? "" : s;
      if (s === "live") $("feederr").textContent = "";
      else if (s === "refused") $("feederr").textContent = `the table feed was refused: ${why}`
        + (token ? "" : " (enter the token above)");
    });
  }

  const loadRules = async () => takeTable(await DC.api(`/api/tables/${T}` + viewKey("?"), {token: token || undefined}));

  // the table as GET or PATCH /api/tables/{id} answers: its penalties and its settings form
  async function takeTable(info) {
    const filled = fillSettings(info);
    // the rule set stored with the table: a table registered from a TOML file has no preset to look up
    rules = info.ruleset ? {penalties: Object.keys(info.ruleset.penalties || {}).sort()}
      : (await presets()).find((r) => r.name === info.rules) || {penalties: []};
    $("penalty").innerHTML = rules.penalties.length ? rules.penalties.map((p) => `<option>${DC.esc(p)}</option>`).join("")
      : '<option value="">(none: enter points)</option>';
    renderAlerts();  // the alerts may have come first: their penalty choices need the rule set
    await filled;
  }

  // The table's settings (PATCH /api/tables/{id}): the form shows the table as last read; Save sends only the
  // fields changed, so that a name changed while the table runs is not refused for its unchanged video source.
  let presetList = null, settings = null, edited = false;
  const presets = async () => presetList || (presetList = await DC.api("/api/rulesets"));
  const players = () => Object.fromEntries([...document.querySelectorAll(".e-player")]
    .filter((i) => !i.closest("label").classList.contains("hidden") && i.value.trim()).map((i) => [i.dataset.seat, i.value.trim()]));
  const sameMap = (a, b) => JSON.stringify(Object.entries(a || {}).sort()) === JSON.stringify(Object.entries(b || {}).sort());

  function showSourceFields() {
    for (const f of ["e-video", "e-calib"]) $(f).disabled = $("e-worker").value !== "vision";
  }

  async function fillSettings(info) {
    settings = info; edited = false;
    const names = (await presets()).map((r) => r.name);
    // a table registered from a TOML file keeps it: listed, so that an unchanged form does not change it
    $("e-rules").innerHTML = (names.includes(info.rules) ? names : [info.rules, ...names])
      .map((n) => `<option value="${DC.esc(n)}" ${n === info.rules ? "selected" : ""}>${DC.esc(n)}</option>`).join("");
    $("e-name").value = info.name;
    $("e-worker").value = info.worker.kind;
    $("e-video").value = info.video_source || "";
    $("e-calib").value = info.calibration || "";
    const seats = new Set(seatsOf(info.ruleset));
    for (const inp of document.querySelectorAll(".e-player")) {
      inp.value = (info.players || {})[inp.dataset.seat] || "";
      inp.closest("label").classList.toggle("hidden", seats.size > 0 && !seats.has(inp.dataset.seat));
    }
    showSourceFields();
  }
  // the seats playing under a stored rule set (engine/seats.py: two players sit N and S, three N, E and S)
  const seatsOf = (rs) => (!rs ? [] : rs.players === 2 ? ["N", "S"] : rs.players === 3 ? ["N", "E", "S"] : ["N", "E", "S", "W"]);

  // what the form changes: {} when nothing
  function settingsChange() {
    const info = settings, body = {};
    if ($("e-name").value.trim() !== info.name) body.name = $("e-name").value.trim();
    if (!sameMap(players(), info.players)) body.players = players();
    if ($("e-rules").value !== info.rules) body.rules = $("e-rules").value;
    if ($("e-worker").value !== info.worker.kind) {
      // the worker's pace and folder-following stay; a simulated deal belongs to a scripted table
      const {kind, simulate, ...kept} = info.worker;
      body.worker = {...kept, kind: $("e-worker").value};
    }
    if ($("e-worker").value === "vision") {
      if ($("e-video").value.trim() !== (info.video_source || "")) body.video_source = $("e-video").value.trim();
      if ($("e-calib").value.trim() !== (info.calibration || "")) body.calibration = $("e-calib").value.trim();
    }
    return body;
  }

  $("e-worker").onchange = showSourceFields;
  for (const type of ["input", "change"]) $("edittable").addEventListener(type, () => { edited = true; });
  $("edittable").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!settings) return toast("the table's settings are not loaded yet", true);
    const body = settingsChange();
    if (!Object.keys(body).length) return toast("nothing changed");
    const out = await act("", body, "PATCH");
    if (out) { await takeTable(out); toast(`table saved: ${Object.keys(body).join(", ")}`); }
  });
  // changed elsewhere (another umpire, the API): read again, unless this umpire is editing the form
  function settingsChanged() {
    if (!edited) loadRules().catch(() => {});
  }

  // helper-118: "No open alert." under a refused feed; only a small tag in the corner said otherwise
  function blockAlerts(why) { alertsBlocked = why; renderAlerts(); }

  function connectAlerts() {
    if (alertsFeed) alertsFeed.close();
    alerts.clear();
    alertsFeed = DC.feed(`/api/tables/${T}/alerts/feed?token=${encodeURIComponent(token)}`, (msg) => {
      if (msg.kind === "snapshot") { alerts.clear(); for (const a of msg.data.alerts) alerts.set(a.id, a); }
      else if (msg.kind === "alert") alerts.set(msg.data.id, msg.data);
      alertsBlocked = null;
      renderAlerts();
      renderNotes();
      $("authstate").textContent = "";
    }, (s, why) => {
      $("conn").textContent = s === "live" ? "" : s;
      if (s === "refused") {
        $("authstate").textContent = `alerts refused: ${why}`;
        blockAlerts(`The alerts cannot be shown: ${why}. Enter the umpire token above.`);
      } else if (s !== "live" && !token) $("authstate").textContent = "enter the token";
    });
  }

  $("savetoken").onclick = () => {
    token = $("token").value.trim(); localStorage.setItem("dominocast-token", token);
    localStorage.setItem("dominocast-umpire", $("by").value);
    connectEvents();
    connectAlerts();
    // the settings as the token reads them (a simulated table's seed, which an edit of its worker keeps)
    loadRules().catch((e) => toast(e.message, true));
  };

  connectEvents();  // first: a refused feed says so even when the table's details cannot be read
  if (token) connectAlerts();
  else { $("authstate").textContent = "enter the token"; blockAlerts("Enter the umpire token above to see the alerts."); }
  loadRules().catch((e) => toast(e.message, true));
})();
