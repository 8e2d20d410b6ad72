// Stream overlay: rebuilt from the state carried by the snapshot and by every feed message.
// URL: /tables/{id}/overlay?theme=dark|light|solid|chroma&size=1080p|720p|WIDTHxHEIGHT&key=VIEW_KEY
"use strict";
(() => {
  const table = DC.pathPart("tables");
  // a known theme only: a space pasted into OBS's address ("solid ") made classList throw, and nothing drew
  const theme = (DC.params.get("theme") || "").trim().toLowerCase();
  document.body.classList.add("theme-" + (["dark", "light", "solid", "chroma"].includes(theme) ? theme : "dark"));
  const sizes = {"1080p": [1920, 1080], "720p": [1280, 720], "480p": [854, 480], "4k": [3840, 2160]};
  const sz = DC.params.get("size") || "1080p";
  const m = /^(\d+)x(\d+)$/.exec(sz);
  const [w, h] = m ? [+m[1], +m[2]] : (sizes[sz] || sizes["1080p"]);
  const stage = document.getElementById("stage");
  stage.style.setProperty("--w", w + "px");
  stage.style.setProperty("--h", h + "px");
  const $ = (id) => document.getElementById(id);
  let bannerTimer = null;

  function render(state) {
    if (!state) return;
    const game = state.game || {scores: {}};
    const hand = state.hand;
    // the side to play: none once the hand is over (helper-114: the green edge stayed after a time call)
    const turnSide = hand && hand.turn && hand.status === "in_progress"
      ? Object.keys(state.teams).find((s) => state.teams[s].seats.includes(hand.turn)) : null;
    // whose turn, named (the border colour alone is easy to miss on a stream); none once the hand is
    // over or waits for the hands to be shown (helper-89: "▶ Bob to play" under a finished hand)
    const toPlay = turnSide
      ? `<div class="toplay clip">▶ ${DC.esc((state.players || {})[hand.turn] || hand.turn)} to play</div>` : "";
    // seed 002 (nova-block): players are ranked by the pips left in their hands over the match, fewest
    // first; the points are all 0 there (helper-93: the cards read 0 · 0 · 0 · 0 all match long)
    const byPips = state.rules.standings === "cumulative_pips";
    const pips = Object.fromEntries((state.standings || []).map((r) => [r.side, r.total]));
    const value = (side) => byPips ? `${pips[side] ?? 0}<span class="unit">pips</span>` : `${game.scores[side] ?? 0}`;
    // games won so far in a match of several (helper-118: the state had them, the cards did not)
    const won = Object.fromEntries((state.standings || []).map((r) => [r.side, r.games]));
    const games = (side) => (state.rules.games_per_match || 1) > 1
      ? `<div class="games">${won[side] ?? 0} of ${state.rules.games_per_match} games</div>` : "";
    $("scores").innerHTML = Object.keys(state.teams).map((side) =>
      `<div class="team${side === turnSide ? " turn" : ""}" data-side="${DC.esc(side)}"><div class="name clip">${DC.esc(DC.sideLabel(state, side))}</div>`
      + `<div class="score">${value(side)}</div>${games(side)}${side === turnSide ? toPlay : ""}</div>`).join("");
    const status = DC.sourceStatus(state.worker);
    $("status").textContent = status;
    $("status").classList.toggle("hidden", !status);
    const target = byPips ? " · fewest pips wins" : state.rules.target ? ` · to ${state.rules.target}` : "";
    // a draw game's boneyard, where the record counts it (draws entered; helper-93: the state had it, the screen not)
    const bone = hand && state.rules.boneyard && hand.boneyard_known && hand.status === "in_progress"
      ? `<br>boneyard ${hand.boneyard}` : "";
    // the match's title under the table's name (helper-99: "Club final" was in the record only)
    const title = state.match && state.match.title ? `<span class="clip">${DC.esc(state.match.title)}</span>` : "";
    $("meta").innerHTML = `<span class="clip">${DC.esc(state.table.name)}</span>${title}game ${game.number || 1}${hand ? ` · hand ${hand.in_game}` : ""}${target}${bone}`
      + (game.ended_by ? `<br><b>game over: ${DC.esc(DC.sideLabel(state, game.winner))}</b>` : "");
    const lp = hand && hand.last_play;
    $("board").innerHTML = hand ? DC.layoutSVG(hand.layout, {last: lp && lp.tile ? `${Math.max(...lp.tile)}-${Math.min(...lp.tile)}` : null}) : "";
    if (lp) {
      // the play's own points, then the end-of-hand award it brought (``awards``), each side named when
      // not the player's (helper-118: "played 4-4 +3 · domino" for 2 + 1; a penalty's +30 to the opponents)
      const own = Object.fromEntries(Object.entries(lp.points || {}).map(([s, v]) => [s, v - ((lp.awards || {})[s] || 0)]));
      const award = lp.awards ? pointsHTML(state, lp.awards, lp.side) : "";
      $("lastplay").innerHTML = DC.esc(DC.playText(state, lp)) + (lp.type === "hand_end" ? "" : pointsHTML(state, own, lp.side))
        + (hand.result && lp.type !== "hand_end" ? ` · <b>${DC.esc(hand.result.kind)}</b>${award}` : "")  // said once
        + (lp.type === "hand_end" ? awardsText(state, hand.result) : "");
      $("lastplay").classList.remove("hidden");
    } else {
      $("lastplay").classList.add("hidden");
    }
    // on air while its alert waits for the umpire: not once dismissed, confirmed or resolved (helper-104)
    // an infraction before a notice (what the rules require next: no warning sign, no alert colour)
    const open = lp && lp.flags ? lp.flags.filter((f) => !f.dismissed && !f.settled) : [];
    const flag = open.find((f) => !f.notice) || open[0];
    if (flag) showBanner((flag.notice ? "" : "⚠ ") + DC.endsNamed(namedSeat(state, lp, flag)), 0, flag.notice);
    else if (!bannerTimer) $("banner").classList.add("hidden");
  }

  // Points by side, as a viewer reads them: "+10" when they all went to the acting player's side,
  // else each side named ("NS +30"); [] when nothing was scored.
  function pointsParts(state, points, side) {
    const won = Object.entries(points || {}).filter(([, v]) => v);
    if (won.length === 1 && won[0][0] === side) return [DC.signed(won[0][1])];
    return won.map(([s, v]) => `${DC.sideLabel(state, s)} ${DC.signed(v)}`);
  }

  function pointsHTML(state, points, side) {
    return pointsParts(state, points, side).map((p) => `<span class="pts">${DC.esc(p)}</span>`).join("");
  }

  // Who the hand's end gave points to, once the hands shown decided it (helper-114: after a time call the
  // bar said "hand over: time" while a side's score jumped by 30, no winner named).
  function awardsText(state, result) {
    const won = result ? Object.entries(result.awards || {}).filter(([, v]) => v) : [];
    return won.map(([side, v]) => ` · ${DC.esc(DC.sideLabel(state, side))} <span class="pts">${DC.signed(v)}</span>`).join("");
  }

  // A flag's message with its seat named as the last-play line names it (helper-114: "⚠ S played 6-3 ..."
  // under "Bob Lee (S) played ...").
  function namedSeat(state, lp, flag) {
    const seat = flag.seat || lp.seat;
    const who = seat === lp.seat && lp.player ? lp.player : (state.players || {})[seat];
    return seat && who && who !== seat && flag.message.startsWith(seat + " ")
      ? `${who} (${seat})${flag.message.slice(seat.length)}` : flag.message;
  }

  function showBanner(text, ms, notice = false) {
    const b = $("banner");
    b.textContent = text;
    b.classList.toggle("notice", notice);
    b.classList.remove("hidden");
    clearTimeout(bannerTimer);
    bannerTimer = null;
    if (ms) bannerTimer = setTimeout(() => { b.classList.add("hidden"); bannerTimer = null; }, ms);
  }

  let shown = false;  // a board was drawn from this feed (a 404 then means the table was deleted)
  const key = DC.params.get("key");
  const url = `/api/tables/${encodeURIComponent(table)}/feed` + (key ? `?key=${encodeURIComponent(key)}` : "");
  DC.feed(url, (msg) => {
    const data = msg.data || {};
    const lp = data.state && data.state.hand && data.state.hand.last_play;
    if (msg.kind === "event" && data.event && data.event.type === "penalty" && lp && lp.type === "penalty") {
      showBanner([DC.playText(data.state, lp), ...pointsParts(data.state, lp.points, lp.side)].join(" · "), 6000);
    }
    if (data.state) render(data.state);
    document.body.dataset.lastId = msg.id;
    shown = true;
  }, (s, why, status) => {
    const line = DC.overlayConn(s, why, status, shown);
    $("conn").textContent = line.text;
    // the table was deleted: no stale board or score stays on air. "shown" stays true, so the retries' 404s
    // keep saying "table closed"; a table made again under this id comes back with its snapshot
    if (line.closed) {
      for (const id of ["scores", "meta", "board", "lastplay"]) $(id).innerHTML = "";
      for (const id of ["status", "banner", "lastplay"]) $(id).classList.add("hidden");
      clearTimeout(bannerTimer);
      bannerTimer = null;
    }
  });
})();
