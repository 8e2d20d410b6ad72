// dominocast pages: shared helpers (no build step). Draws the layout the service sends as geometry.
"use strict";
const DC = (() => {
  const params = new URLSearchParams(location.search);
  const pathPart = (name) => { const p = location.pathname.split("/"); const i = p.indexOf(name); return i >= 0 ? decodeURIComponent(p[i + 1] || "") : ""; };
  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
  // pip centres in a unit half-square, for 0..9 (3x3 grid); larger values are written as numbers
  const G = 0.27;
  const PIPS = {0: [], 1: [[0, 0]], 2: [[-G, -G], [G, G]], 3: [[-G, -G], [0, 0], [G, G]],
    4: [[-G, -G], [G, -G], [-G, G], [G, G]], 5: [[-G, -G], [G, -G], [0, 0], [-G, G], [G, G]],
    6: [[-G, -G], [G, -G], [-G, 0], [G, 0], [-G, G], [G, G]],
    7: [[-G, -G], [G, -G], [-G, 0], [0, 0], [G, 0], [-G, G], [G, G]],
    8: [[-G, -G], [0, -G], [G, -G], [-G, 0], [G, 0], [-G, G], [0, G], [G, G]],
    9: [[-G, -G], [0, -G], [G, -G], [-G, 0], [0, 0], [G, 0], [-G, G], [0, G], [G, G]]};

  function half(cx, cy, v) {
    if (v > 9) return `<text x="${cx}" y="${cy + 0.16}" class="pipnum">${v}</text>`;
    return PIPS[v].map(([dx, dy]) => `<circle cx="${cx + dx}" cy="${cy + dy}" r="0.085" class="pip"/>`).join("");
  }

  // layout: {tiles, ends, box}; opts: {last: "6-4", width, height}
  function layoutSVG(layout, opts = {}) {
    const [x0, y0, x1, y1] = layout.box;
    const tiles = layout.tiles.map((t) => {
      const cls = ["tile", t.key === opts.last ? "last" : "", t.flagged ? "flagged" : ""].join(" ");
      const [[ax, ay], [bx, by]] = t.halves;
      const mx = (ax + bx) / 2, my = (ay + by) / 2;
      const divider = t.w > t.h ? `<line x1="${mx}" y1="${t.y + 0.1}" x2="${mx}" y2="${t.y + t.h - 0.1}" class="divider"/>`
                                : `<line x1="${t.x + 0.1}" y1="${my}" x2="${t.x + t.w - 0.1}" y2="${my}" class="divider"/>`;
      return `<g class="${cls}" data-key="${t.key}"><rect x="${t.x + 0.03}" y="${t.y + 0.03}" width="${t.w - 0.06}" height="${t.h - 0.06}" rx="0.14"/>`
        + divider + half(ax, ay, t.halves[0][2]) + half(bx, by, t.halves[1][2]) + "</g>";
    }).join("");
    const ends = (layout.ends || []).map((e) =>
      `<g class="end"><circle cx="${e.x}" cy="${e.y}" r="0.32"/><text x="${e.x}" y="${e.y + 0.13}">${e.value}</text></g>`).join("");
    return `<svg class="layout" xmlns="http://www.w3.org/2000/svg" viewBox="${x0} ${y0} ${x1 - x0} ${y1 - y0}" preserveAspectRatio="xMidYMid meet">${tiles}${ends}</svg>`;
  }

  // Event text for people: the notation writes times exactly (t=10.583333333333332, so a record
  // reads back the same); one decimal is what an umpire reads.
  const shortTimes = (text) => String(text ?? "").replace(/\bt=(\d+\.\d{2,})/g, (m, v) => `t=${(+v).toFixed(1)}`);
  const sumPoints = (pts) => Object.values(pts || {}).reduce((a, b) => a + b, 0);
  const signed = (n) => (n > 0 ? "+" : n < 0 ? "−" : "") + Math.abs(n);

  // Why the server refused a feed: {status, detail} for a 4xx (no or wrong key/token, no such
  // table), null when it is down or failing (a retry may work). EventSource tells no status, so
  // the URL is fetched once more and the stream aborted at once if it opens.
  async function refusal(u) {
    const ctl = new AbortController();
    try {
      const res = await fetch(u, {signal: ctl.signal, headers: {Accept: "text/event-stream"}});
      if (res.ok || res.status >= 500) return null;
      let detail = res.statusText;
      try { detail = (await res.json()).detail || detail; } catch (e) { /* not JSON */ }
      return {status: res.status, detail: String(detail)};
    } catch (e) { return null; } finally { ctl.abort(); }
  }

  // The overlay's connection line for a feed state (see feed): {text, closed}. A table deleted while it was
  // on air (its feed now 404 after a board was shown) is "table closed", its board to be cleared: the server's
  // "feed refused: no table 'x'" went on air (h243); an address never shown a table keeps the reason.
  function overlayConn(state, detail, status, shown) {
    if (state === "live") return {text: "", closed: false};
    if (state === "refused" && status === 404 && shown) return {text: "table closed", closed: true};
    return {text: state === "refused" ? `feed refused: ${detail}` : state, closed: false};
  }

  // A feed that survives reconnects: EventSource resends Last-Event-ID by itself; if the
  // stream is closed for good we reopen it (a fresh snapshot). onMessage(msg) for every message;
  // onState("live" | "reconnecting" | "refused", detail, status): "refused" with the server's reason
  // and status (401/403/404), retried every 10 s (a key, a token or the table may come).
  function feed(url, onMessage, onState) {
    let es = null, lastId = null, timer = null, closed = false;
    const kinds = ["snapshot", "event", "match", "table", "worker", "hand_confirmed", "flags", "alert"];
    function open() {
      if (closed) return;
      const u = new URL(url, location.href);
      if (lastId !== null) u.searchParams.set("since", lastId);
      es = new EventSource(u);
      es.onopen = () => onState && onState("live");
      es.onerror = async () => {
        if (es.readyState !== EventSource.CLOSED) { onState && onState("reconnecting"); return; }
        clearTimeout(timer);
        const why = await refusal(u);
        if (closed) return;
        if (onState) onState(why ? "refused" : "reconnecting", why && why.detail, why && why.status);
        timer = setTimeout(open, why ? 10000 : 3000);
      };
      for (const k of kinds) es.addEventListener(k, (ev) => {
        const msg = JSON.parse(ev.data);
        if (msg.kind !== "snapshot" || lastId === null || msg.id >= lastId) lastId = msg.id;
        onMessage(msg);
      });
    }
    open();
    return { close: () => { closed = true; clearTimeout(timer); if (es) es.close(); }, get lastId() { return lastId; } };
  }

  async function api(path, opts = {}) {
    const headers = Object.assign({"Content-Type": "application/json"}, opts.headers || {});
    if (opts.token) headers["Authorization"] = "Bearer " + opts.token;
    const res = await fetch(path, {method: opts.method || "GET", headers, body: opts.body ? JSON.stringify(opts.body) : undefined});
    const text = await res.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (e) { data = text; }
    if (!res.ok) throw new Error((data && data.detail) || res.statusText);
    return data;
  }

  // The umpire/admin token: #token=... in the address, else the one saved on this browser (index, console).
  function savedToken() {
    return (new URLSearchParams(location.hash.slice(1)).get("token") || localStorage.getItem("dominocast-token") || "").trim();
  }

  // A link that fetches with the token and saves what it gets: a plain link cannot send it, and a
  // token in the address would stay in the history (a protected table's record, opened by its organiser).
  function downloadWithToken(link, path, token, name) {
    link.href = path;
    link.onclick = async (ev) => {
      ev.preventDefault();
      const res = await fetch(path, {headers: {Authorization: "Bearer " + token}});
      if (!res.ok) { link.title = `refused (${res.status})`; return; }
      const a = document.createElement("a");
      a.href = URL.createObjectURL(await res.blob());
      a.download = name;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    };
  }

  // A camera table whose score on air is not live, in a word for its tag; tables fed by hand (manual,
  // scripted) show nothing. helper-174: "camera signal lost" went on air at every start (no frame read yet:
  // `connected` is null) and at the end of a replayed file (read to its end: `ended`), nothing being wrong.
  function sourceStatus(worker) {
    if (!worker || worker.kind !== "vision") return "";
    if (worker.state === "running") {
      if (worker.ended) return "recording ended";
      if (worker.connected === null) return "starting";
      return worker.connected === false ? "camera signal lost" : "";
    }
    return {stopped: "camera paused", finished: "recording ended", error: "camera offline",
            unavailable: "camera offline"}[worker.state] || "";
  }

  // Where a tile went, as viewers read it: an end letter alone reads as a seat (helper-174: "Bob Lee (S)
  // played 0-6 on S", the S being the spinner's south arm). The line's two ends are W and E; a spinner's
  // arms N and S (N2, S2 for a second spinner).
  function endText(end) {
    return /^[WE]$/.test(end) ? `the ${end} end` : `the ${end} arm`;
  }

  // A flag's message (the engine's words) with its end named as playText names it: "S played 6-2 on the W end
  // showing 3", "S played on the N arm before the spinner's sides were covered".
  function endsNamed(message) {
    return String(message ?? "").replace(/\bon ([WE]|[NS]\d*) (?=showing |before )/g, (m, end) => `on ${endText(end)} `);
  }

  function sideLabel(state, side) { return (state.teams && state.teams[side] && state.teams[side].name) || side; }

  function playText(state, lp) {
    if (!lp) return "";
    // a long name is shortened so that what was played still shows on one line (helper-99)
    const name = lp.player && lp.player.length > 40 ? lp.player.slice(0, 39) + "…" : lp.player;
    const who = name && name !== lp.seat ? `${name} (${lp.seat})` : (lp.seat || "");
    if (lp.type === "play") return `${who} played ${lp.tile[0]}-${lp.tile[1]}` + (lp.end && lp.end !== "lead" ? ` on ${endText(lp.end)}` : " (lead)");
    if (lp.type === "pass") return `${who} passed`;
    if (lp.type === "draw") return `${who} drew ${lp.count > 1 ? lp.count + " tiles" : "a tile"}`;
    if (lp.type === "penalty") return `${who}: penalty` + (lp.penalty ? ` ${lp.penalty.replace(/_/g, " ")}` : "");
    if (lp.type === "hand_end") {
      const winner = lp.winner ? (lp.winner_player && lp.winner_player !== lp.winner ? `${lp.winner_player} (${lp.winner})` : lp.winner) : "";
      if (lp.kind === "domino") return `hand over: ${winner} dominoes`;
      if (lp.kind === "lock") return "hand over: locked";
      return `hand over: ${lp.kind.replace(/_/g, " ")}` + (winner ? ` (${winner})` : "");
    }
    return lp.text;
  }

  // An event's flag as a tag: a notice (what the rules require next, e.g. must_draw) is no accusation
  function flagTag(f) {
    return f.notice ? `<span class="notetag">${esc(f.kind)}</span>` : `<span class="flagtag">!${esc(f.kind)}</span>`;
  }

  return { params, pathPart, esc, layoutSVG, sumPoints, signed, shortTimes, feed, overlayConn, api, savedToken, downloadWithToken,
           sideLabel, playText, endText, endsNamed, sourceStatus, flagTag };
})();
