// Review of a match: the timeline of plays, the score chart (inline SVG), flags and corrections.
"use strict";
(async () => {
  const match = DC.pathPart("matches");
  const key = DC.params.get("key");
  const q = key ? `?key=${encodeURIComponent(key)}` : "";
  // a protected table's match without ?key=: its organiser's saved token opens it (from the index)
  const token = key ? "" : DC.savedToken();
  const $ = (id) => document.getElementById(id);
  const data = await DC.api(`/api/matches/${match}/timeline${q}`, {token: token || undefined}).catch((e) => {
    throw new Error(token ? `${e.message} (the token saved on this browser; save another on the index page, or `
      + "open this page with ?key=VIEW_KEY)" : e.message);
  });
  $("title").textContent = `${data.table} · match ${match}${data.title ? " · " + data.title : ""} · ${data.rules}${data.over ? " · over" : ""}`;
  for (const [id, ext] of [["json", "json"], ["txt", "txt"]]) {
    const path = `/api/matches/${match}/record.${ext}${q}`;
    if (token) DC.downloadWithToken($(id), path, token, `match-${match}.${ext}`);
    else $(id).href = path;
  }
  // why the score is not final (a hand not finished, a warning that doubts it), as `record show` says it
  $("doubt").innerHTML = data.not_final ? `<div class="alert uncertain"><b>${DC.esc(data.not_final)}</b>`
    + data.warnings.map((w) => `<div class="details">warning: ${DC.esc(w)}</div>`).join("") + "</div>" : "";
  const rows = data.rows.filter((r) => r.type !== "game_end");
  const colors = ["#1f6feb", "#e5484d", "#30a46c", "#f2b632"];
  // score chart: running game score after each event, one line per side, a rule at each new game
  const W = 900, H = 260, P = 34;
  const all = rows.flatMap((r) => Object.values(r.score));
  const maxY = Math.max(data.target || 0, ...all, 10), minY = Math.min(0, ...all);
  const x = (i) => P + (i / Math.max(rows.length - 1, 1)) * (W - 2 * P);
  const y = (v) => H - P - ((v - minY) / (maxY - minY)) * (H - 2 * P);
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="100%" class="chart">`;
  svg += `<line x1="${P}" y1="${y(0)}" x2="${W - P}" y2="${y(0)}" stroke="#999"/><line x1="${P}" y1="${P}" x2="${P}" y2="${H - P}" stroke="#999"/>`;
  svg += `<text x="4" y="${y(maxY) + 4}" font-size="11">${maxY}</text><text x="4" y="${y(0) + 4}" font-size="11">0</text>`;
  // below the 0 label, never on it (helper-114: "0" and "-15" overlapped when the minimum was near 0)
  if (minY < 0) svg += `<text x="4" y="${Math.max(y(minY) + 4, y(0) + 16)}" font-size="11">${minY}</text>`;
  if (data.target) svg += `<line x1="${P}" y1="${y(data.target)}" x2="${W - P}" y2="${y(data.target)}" stroke="#bbb" stroke-dasharray="4 4"/>`;
  rows.forEach((r, i) => { if (i && (r.game !== rows[i - 1].game || r.hand !== rows[i - 1].hand))
    svg += `<line x1="${x(i)}" y1="${P}" x2="${x(i)}" y2="${H - P}" stroke="#eee"/><text x="${x(i) + 2}" y="${P - 4}" font-size="10" fill="#888">g${r.game}h${r.hand}</text>`; });
  // the legend goes under the chart: inside it, it covered the hand labels and the target line
  let legend = "";
  data.sides.forEach((side, k) => {
    const pts = rows.map((r, i) => `${x(i).toFixed(1)},${y(r.score[side] || 0).toFixed(1)}`).join(" ");
    svg += `<polyline fill="none" stroke="${colors[k % 4]}" stroke-width="2" points="${pts}"/>`;
    const label = data.players[side] ? `${data.players[side]} (${side})` : side;
    legend += `<span class="side" style="color:${colors[k % 4]}">${DC.esc(label)} ${rows.length ? rows[rows.length - 1].score[side] || 0 : 0}</span> `;
  });
  rows.forEach((r, i) => { if (r.flags && r.flags.some((f) => !f.notice)) svg += `<circle cx="${x(i)}" cy="${y(0)}" r="4" fill="#e5484d"><title>${DC.esc(r.flags.map((f) => f.message).join("; "))}</title></circle>`; });
  $("chart").innerHTML = svg + `</svg><div class="legend">${legend}</div>`;
  $("timeline").innerHTML = "<tr><th>game</th><th>hand</th><th>#</th><th>event</th><th>points</th><th>score</th></tr>" + data.rows.map((r) => {
    if (r.type === "game_end") return `<tr><td colspan="6"><b>game ${r.game} over (${DC.esc(r.ended_by)}): ${DC.esc(r.winner || "tie")}</b></td></tr>`;
    const pts = Object.entries(r.points).map(([s, p]) => `${s} ${DC.signed(p)}`).join(", ");
    const flags = r.flags.map(DC.flagTag).join(" ");
    const end = r.hand_end ? ` <b>= ${DC.esc(r.hand_end.kind)} ${DC.esc(r.hand_end.winner || "")}</b>` : "";
    return `<tr class="pick" data-hand="${r.match_hand}" data-i="${r.index}" data-tile="${r.tile ? Math.max(...r.tile) + "-" + Math.min(...r.tile) : ""}">`
      + `<td>${r.game}</td><td>${r.hand}</td><td>${r.index}</td><td>${DC.esc(DC.shortTimes(r.text))} ${flags}${end}</td><td>${pts}</td>`
      + `<td>${Object.entries(r.score).map(([s, v]) => `${s} ${v}`).join(" · ")}</td></tr>`;
  }).join("");
  // the line of play after the event clicked (helper-114: no way to see the board at a moment of the game)
  async function showBoard(row) {
    for (const r of document.querySelectorAll("#timeline tr.picked")) r.classList.remove("picked");
    row.classList.add("picked");
    const {hand, i, tile} = row.dataset;
    const b = await DC.api(`/api/matches/${match}/hands/${hand}/board?after=${i}${key ? "&key=" + encodeURIComponent(key) : ""}`,
                           {token: token || undefined});
    $("rboard").innerHTML = DC.layoutSVG(b.layout, {last: tile || null});
    const cells = row.cells;
    $("boardat").textContent = `· game ${cells[0].textContent}, hand ${cells[1].textContent}, after #${i}`;
  }
  $("timeline").addEventListener("click", (ev) => {
    const row = ev.target.closest("tr.pick");
    if (row) showBoard(row).catch((e) => { $("boardat").textContent = `· ${e.message}`; });
  });
  const lastRow = [...document.querySelectorAll("#timeline tr.pick")].pop();
  if (lastRow) showBoard(lastRow).catch(() => {});  // the board as the record ends
  $("flags").innerHTML = data.alerts.length ? data.alerts.map((a) => `<div class="alert ${a.severity === "info" ? "note-info" : a.category}"><span class="kind">${DC.esc(a.kind)}</span>`
    + ` <span class="muted">hand ${a.hand ?? "-"} · ${a.severity === "info" ? "camera note" : DC.esc(a.status) + (a.resolved_by ? " by " + DC.esc(a.resolved_by) : "")}</span><div>${DC.esc(a.message)}</div>`
    + (a.note && a.severity !== "info" ? `<div class="details">${DC.esc(a.note)}</div>` : "") + "</div>").join("") : '<p class="muted">No flag.</p>';
  $("corrections").innerHTML = data.corrections.length ? data.corrections.map((c) =>
    `<div class="alert uncertain">hand ${c.hand} #${c.index}: <b>${DC.esc(DC.shortTimes(c.text))}</b> (was: ${DC.esc(DC.shortTimes(c.was))})`
    + `<div class="details">${DC.esc(c.by)}${c.reason ? " · " + DC.esc(c.reason) : ""}</div></div>`).join("") : '<p class="muted">No correction.</p>';
})().catch((e) => { document.body.insertAdjacentHTML("beforeend", `<p class="page">${DC.esc(e.message)}</p>`); });
