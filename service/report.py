"""``report.html`` of a reviewed game: the timeline of plays with snapshots, the score chart, the flags.

One self-contained HTML file (inline CSS and SVG, one small inline script, no network) that
opens from disk; snapshots and the annotated video are files beside it, referenced by relative
path. Each event's time seeks the video on the page to that moment (the video stays in view at
the top while the timeline scrolls); without scripts the link opens the video there (a media
fragment, ``annotated.webm#t=12.5``).
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path
from urllib.parse import quote

from engine.files import readable, write_text_atomic
from engine.notation import without_stamps
from engine.timeline import awaiting_text, ends_text, game_over_text, result_text, score_text
from engine.words import plural

_CSS = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#222;max-width:1100px}
h1{margin-bottom:.2rem} .sub{color:#666;margin-top:0}
table{border-collapse:collapse;width:100%} td,th{border-bottom:1px solid #ddd;padding:.35rem;text-align:left;vertical-align:top}
tr.flag{background:#fff1f0} .pts{font-weight:600;color:#0a6} .neg{color:#c00}
img.snap{width:220px;border-radius:4px} .flagtxt{color:#c00;font-size:.9em} .notetxt{color:#8a6d00;font-size:.9em}
.legend span{margin-right:1rem} svg{background:#fafafa;border:1px solid #eee}
video.replay{width:100%;max-height:40vh;background:#000;border-radius:4px;position:sticky;top:0;z-index:1}
.warn{background:#fff4e5;border-left:4px solid #e67e00;padding:.5rem .8rem;font-weight:600;white-space:pre-line}
.kind{font-size:.8em;color:#555;background:#eee;border-radius:3px;padding:0 .3em;margin-right:.3em}
.inferred{color:#555;font-size:.9em} .guess{color:#8a6d00;font-size:.9em} .src{color:#666;font-size:.9em}
"""
#: The how and the what-to-correct of an inferred end's notice (vision/reveals.py), its result being
#: said on the row it is folded under.
_INFERRED = re.compile(r"\((inferred from [^)]*)\); (.*)$")
_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
#: What the mark of a play the camera gave to the seat whose turn it was means (its tooltip).
SEAT_BY_TURN_TIP = "the camera did not see who laid this tile: the seat is the one whose turn it was"


def event_counts(plays: int, draws: int, passes: int, pass_noun: tuple[str, str] = ("pass", "passes")) -> str:
    """``"16 plays, 3 draws, 1 pass"``: draws and passes only when there are any."""
    counts = [plural(plays, "play")]
    if draws:
        counts.append(plural(draws, "draw"))
    if passes:
        counts.append(plural(passes, *pass_noun))
    return ", ".join(counts)


def score_chart_svg(rows: list[dict], width: int = 900, height: int = 260) -> str:
    """An inline SVG line chart of each side's running score over the events of ``rows``.

    ``rows`` are timeline rows (``engine/timeline.py``) with a ``score`` dict; x is the row
    number (hands restart at the game boundary), y the points. The lines and the legend list the sides in
    the order the rows' scores do: turn order once the rows went through
    :func:`service.views.rows_in_turn_order` (NS before EW; not alphabetical: helper-209, "EW 24 NS 75").
    """
    series: dict[str, list[int]] = {}
    scored = [r for r in rows if "score" in r and r.get("type") != "game_end"]
    for r in scored:
        for side in r["score"]:
            series.setdefault(side, [])
    for r in scored:
        for side, pts in series.items():
            pts.append(r["score"].get(side, pts[-1] if pts else 0))
    if not scored:
        return "<p>No scored events.</p>"
    top = max(1, max(max(v) for v in series.values()))
    low = min(0, min(min(v) for v in series.values()))
    n = max(1, len(scored) - 1)
    pad = 30

    def xy(i: int, v: int) -> str:
        x = pad + (width - 2 * pad) * i / n
        y = height - pad - (height - 2 * pad) * (v - low) / (top - low)
        return f"{x:.1f},{y:.1f}"

    parts = [f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="score chart">',
             f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="#999"/>',
             f'<text x="4" y="{pad}" font-size="11">{top}</text>',
             f'<text x="4" y="{height - pad}" font-size="11">{low}</text>']
    legend = []
    for k, (side, values) in enumerate(series.items()):
        colour = _COLOURS[k % len(_COLOURS)]
        pts = " ".join(xy(i, v) for i, v in enumerate(values))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{pts}"/>')
        legend.append(f'<span style="color:{colour}">■ {html.escape(side)} {values[-1]}</span>')
    parts.append("</svg>")
    return '<div class="legend">' + "".join(legend) + "</div>" + "".join(parts)


#: Videos a browser's ``<video>`` element plays (containers; the review writes ``annotated.webm``).
PLAYABLE_VIDEO_SUFFIXES = (".webm", ".mp4", ".m4v", ".mov", ".ogv", ".ogg", ".mkv")

#: The video element's ``onerror``: a warning under it (its text in ``data-missing``), once.
_NO_VIDEO_JS = ("if (!this.nextElementSibling || !this.nextElementSibling.classList.contains('novideo')) "
                "this.insertAdjacentElement('afterend', Object.assign(document.createElement('p'), "
                "{className: 'warn novideo', textContent: this.dataset.missing}))")

#: A time link seeks the page's video instead of leaving the report for the bare video file.
_SEEK_JS = """<script>
document.addEventListener("click", (e) => {
  const a = e.target.closest("a.seek"), v = document.querySelector("video.replay");
  if (!a || !v) return;
  e.preventDefault();
  v.currentTime = Number(a.dataset.t);
  v.play().catch(() => {});
});
</script>"""


def _row_html(row: dict, snapshot: str | None, video: str | None = None, score_ends: bool = True,
              by_pips: bool = False) -> str:
    if row.get("type") == "game_end":  # as `score` says it: how the game ended, and its pips in a pips game
        return (f"<tr class=\"game-end\"><td>{row.get('game', '')}</td><td></td>"
                f"<td><b>{html.escape(game_over_text(row))}</b></td><td></td><td></td>"
                f"<td>{html.escape(score_text(row, by_pips))}</td><td></td></tr>")
    flags = row.get("flags") or []
    # The review's own ``hand_end`` row repeats the award the scoring event's row already carries:
    # say it in words, not again in the points column (it would read as a second award).
    summary = _is_summary(row)
    pts = "" if summary else " ".join(
        f'<span class="pts{" neg" if p < 0 else ""}">{html.escape(s)} {p:+d}</span>'
        for s, p in (row.get("points") or {}).items()
    )
    t = row.get("t")
    when = f"{t:.1f} s" if isinstance(t, (int, float)) else ""
    if when and video:
        when = f'<a class="seek" data-t="{t:.2f}" href="{html.escape(video)}#t={t:.2f}" title="watch from here">{when}</a>'
    if row.get("file"):  # a folder's photo: its name is what the user knows it by
        when += f'<br><span class="file">{html.escape(Path(str(row["file"])).name)}</span>'
    if row.get("text"):
        text = html.escape(without_stamps(row["text"]))
        if row.get("seat_by_turn"):
            text += f' <span class="guess" title="{SEAT_BY_TURN_TIP}">(seat by turn)</span>'
    elif row.get("message"):  # a notice or a flag: what it is, in words, then what it says (helper-92:
        # "vision_notice bump placed tile ...")
        what = str(row.get("kind") or row["type"]).replace("_", " ")
        text = f'<span class="kind">{html.escape(what)}</span> {html.escape(str(row["message"]))}'
    else:
        text = html.escape(" ".join(str(x) for x in (row["type"], row.get("kind")) if x))
    if summary:
        awards = ", ".join(f"{html.escape(k)} {v:+d}" for k, v in (row.get("points") or {}).items())
        text = (f"<b>hand over: {html.escape(str(row.get('kind', '')))} {html.escape(row.get('winner') or '')}</b>"
                f" (awarded above: {awards})")
    if "hand_end" in row:
        he = row["hand_end"]
        said = result_text(he["kind"], he.get("winner"), he.get("note"))  # as the terminal says it (helper-95)
        text += f"<br><b>hand over</b>: {html.escape(said)}"
    elif "awaiting_reveal" in row:  # ended, its end-of-hand points waiting for the tiles shown (as `score` says it)
        text += f"<br><b>{html.escape(awaiting_text(row['awaiting_reveal']))}</b>"
    for note in row.get("_inferred") or ():  # how the end was inferred, and what to correct
        m = _INFERRED.search(note)  # "hand over: N dominoes (inferred from ...); correct it if ...": said above
        text += f'<div class="inferred">{html.escape(f"{m[1]}; {m[2]}" if m else note)}</div>'
    # a notice (what the rules require next) is said without the flag mark
    flag_txt = "".join(f'<div class="{"notetxt" if f.get("notice") else "flagtxt"}">{"" if f.get("notice") else "⚑ "}'
                       f'{html.escape(f["kind"])}: {html.escape(f["message"])}</div>' for f in flags)
    flags = [f for f in flags if not f.get("notice")]
    ends = html.escape(ends_text(row, score_ends))
    img = f'<img class="snap" src="{html.escape(snapshot)}" alt="frame {row.get("frame")}">' if snapshot else ""
    score = html.escape(score_text(row, by_pips))
    cls = ' class="flag"' if flags else ""
    where = f"{row['game']}.{row['hand']}" if "game" in row and "hand" in row else ""
    return (f"<tr{cls}><td>{where}</td><td>{when}</td>"
            f"<td>{text}{flag_txt}</td><td>{pts}</td><td>{ends}</td><td>{score}</td><td>{img}</td></tr>")


#: Where a flag on a record's page comes from, when its review's flags are listed beside the record's own.
RECORDED_FLAG = "on the recorded event"
REVIEW_FLAG = "only in the review's events.jsonl"

#: The generator named in the head of a record's page (``record report``): a file to write over.
RECORD_PAGE = "dominocast record"
#: The generator named in the head of a page with the review's snapshots.
REVIEW_PAGE = "dominocast review"


def time_order(rows: list[dict]) -> list[int]:
    """Positions of ``rows`` in the order the timeline shows them.

    The hand's log events (rows with an ``index``) keep their log order; the other rows (notices, a
    hand's summary) move to their time among them, within each run of rows of one hand. A draw is
    timed when the tile was first seen gone but written a read later, after that read's notices;
    without this a bump at 20.0 s was listed above the draw at 19.9 s. Equal times keep the
    written order; an untimed row keeps the time of the row above it.
    """
    order: list[int] = []
    start = 0
    while start < len(rows):
        end = start
        hand = (rows[start].get("game"), rows[start].get("hand"))
        while end < len(rows) and (rows[end].get("game"), rows[end].get("hand")) == hand:
            end += 1
        keys, t = {}, float("-inf")
        for i in range(start, end):
            ti = rows[i].get("t")
            t = float(ti) if isinstance(ti, (int, float)) else t
            keys[i] = (t, i)
        events = [i for i in range(start, end) if "index" in rows[i]]
        others = sorted((i for i in range(start, end) if "index" not in rows[i]), key=keys.__getitem__)
        a = b = 0
        while a < len(events) or b < len(others):
            if b == len(others) or (a < len(events) and keys[events[a]] <= keys[others[b]]):
                order.append(events[a])
                a += 1
            else:
                order.append(others[b])
                b += 1
        start = end
    return order


def _is_summary(row: dict) -> bool:
    """The review's own ``hand_end`` row (after the event that ended the hand, which carries the result);
    an umpire's ``end domino`` event is a hand_end too, but a row of the log, with its index."""
    return row.get("type") == "hand_end" and "hand_end" not in row and "index" not in row


def _timeline_rows(rows: list[dict], snapshots: dict[int, str], video: str | None,
                   score_ends: bool = True, by_pips: bool = False) -> list[str]:
    """The timeline's ``<tr>`` rows in :func:`time_order`. A review's summary row right after the event
    that ended the hand is not shown again (helper-92: "hand over" twice in a row); its snapshot, the
    final score, goes to that event's row. A game's end row says how the game ended, after its last hand,
    as ``score``'s table does (``by_pips``: the score column holds the game's pips, and nothing on the
    events' rows: :func:`engine.timeline.score_text`)."""
    # the inferred end's notice goes under the event that ended its hand (helper-94: said again on a row of its own)
    ended = {(r.get("game"), r.get("hand")): i for i, r in enumerate(rows) if "hand_end" in r}
    inferred: dict[int, list[str]] = {}  # the ending row's position -> the notices folded under it
    folded: set[int] = set()
    for i, r in enumerate(rows):
        j = ended.get((r.get("game"), r.get("hand")))
        if r.get("kind") == "hand_end_inferred" and "index" not in r and j is not None:
            inferred.setdefault(j, []).append(str(r.get("message", "")))
            folded.add(i)
    out: list[tuple[dict, str | None]] = []
    for i in time_order(rows):
        row = rows[i]
        if i in folded:
            continue
        if i in inferred:
            row = {**row, "_inferred": inferred[i]}
        if _is_summary(row) and out and "hand_end" in out[-1][0] and (
                (out[-1][0].get("game"), out[-1][0].get("hand")) == (row.get("game"), row.get("hand"))):
            out[-1] = (out[-1][0], out[-1][1] or snapshots.get(i))
            continue
        out.append((row, snapshots.get(i)))
    return [_row_html(row, snap, video, score_ends, by_pips) for row, snap in out]


def _flag_when(row: dict) -> str:
    """When a flag's row happened: a folder's photo by its name, as the terminal's summary names it
    (helper-109), else the footage time."""
    if row.get("file"):
        return html.escape(Path(str(row["file"])).name)
    if row.get("t") is None and "hand" in row and "index" in row:  # a scored script: its event (helper-121: "0.0 s")
        return f"{row.get('game', 1)}.{row['hand']} #{row['index']}"
    return f"{row.get('t', 0) or 0:.1f} s"


def render_report(title: str, subtitle: str, rows: list[dict], snapshots: dict[int, str],
                  standings: list[tuple[str, int, int]], warning: str | None = None,
                  video: str | None = None, corrections: list[dict] | None = None,
                  generator: str | None = None, unit: str = "points", score_ends: bool = True,
                  review_flags: list[dict] | None = None, flags_note: str | None = None) -> str:
    """The report's HTML text.

    Args:
        rows: timeline rows in order; ``snapshots`` maps a row's position in ``rows`` to a
            relative image path shown beside it.
        standings: (side, games won, points or pips) best first.
        unit: ``points``, or ``pips`` where the standings count the pips left (seed 002): no score chart then,
            as no points change hands (helper-121: the page said "points" over pips, and drew zeros), and the
            timeline's score column is empty but on a game's end row, which holds its pips (helper-209).
        score_ends: the rule set scores the open ends: each row's count is shown with them
            (:func:`engine.timeline.ends_text`).
        warning: shown in a box under the title (e.g. that the review was interrupted).
        video: relative path of the annotated video: shown under the title, and each event's
            time links to its moment in it.
        corrections: the match's corrections (:func:`engine.timeline.corrections`), listed with
            what each replaced, when there are any.
        generator: the page's ``generator`` meta: :data:`REVIEW_PAGE` (the default when there are
            snapshots: `record report` will not write over it) or :data:`RECORD_PAGE`.
        review_flags: a record's page: its review's flag rows (``events.jsonl``) that are no flag of the
            record's events (:func:`service.review_snapshots.flags_off_the_record`), listed after those, each
            flag then marked with where it comes from (:data:`RECORDED_FLAG`, :data:`REVIEW_FLAG`); one with
            ``resolved_by`` (:func:`service.cli_record.resolved_flags`) names the correction that resolved it, and
            the heading counts them.
        flags_note: one line under the flags' heading (e.g. that no review's flags could be read).
    """
    body = [f"<h1>{html.escape(title)}</h1><p class='sub'>{html.escape(subtitle)}</p>"]
    if warning:
        body.append(f"<p class='warn'>{html.escape(warning)}</p>")
    if video:
        # an inline handler: a missing file's error may come before any script at the page's end runs
        # (helper-145: with the video not beside the page, a blank player and dead time links, no word)
        missing = (f"The video {video} cannot be played here: keep it in the folder of this page (the times below "
                   "seek it).")
        body.append(f'<video class="replay" controls preload="metadata" src="{html.escape(video)}" '
                    f'data-missing="{html.escape(missing)}" onerror="{html.escape(_NO_VIDEO_JS)}"></video>')
    if standings or any("score" in r for r in rows):  # a review with no rules (placements) scores nothing
        if unit == "points":
            body += ["<h2>Score</h2>", score_chart_svg(rows)]
        body.append(f"<h2>Standings</h2><table><tr><th>side</th><th>games won</th><th>{html.escape(unit)}</th></tr>")
        body += [f"<tr><td>{html.escape(s)}</td><td>{w}</td><td>{p}</td></tr>" for s, w, p in standings]
        body.append("</table>")
    # flags are either rows of their own (review) or listed on the event they concern (score); a record's page
    # names where each comes from once a review's flags are beside its own
    flags: list[tuple[dict, dict, str]] = [(r, r, "") for r in rows if r.get("type") == "flag"]
    if not flags:
        mark = RECORDED_FLAG if review_flags else ""
        flags = [(r, f, mark) for r in rows for f in r.get("flags") or [] if not f.get("notice")]
        flags += [(r, r, REVIEW_FLAG) for r in review_flags or []]
    resolved = sum(bool(f.get("resolved_by")) for _, f, _ in flags)  # a review's flag a correction answered
    body.append(f"<h2>Flags ({len(flags)}" + (f", {resolved} of them resolved by a correction" if resolved else "")
                + ")</h2>")
    if flags_note:
        body.append(f"<p class='sub'>{html.escape(flags_note)}</p>")
    body.append("<ul>")
    # a review's own page names no source: "(resolved by ...)" alone
    flags = [(r, f, "; ".join(x for x in (src, f"resolved by {f['resolved_by']}") if x) if f.get("resolved_by")
              else src) for r, f, src in flags]
    body += [f"<li>{_flag_when(r)} — {html.escape(f['kind'])}: {html.escape(f.get('message', ''))}"
             + (f' <span class="src">({html.escape(src)})</span>' if src else "") + "</li>" for r, f, src in flags]
    body.append("</ul>")
    if corrections:  # the timeline shows each slot as corrected: what it held before is said here
        body.append(f"<h2>Corrections ({len(corrections)})</h2><ul>")
        # ``where``: the hand as the timeline names it (helper-121: "hand 3" was hand 1 of game 3)
        body += [f"<li>{html.escape(c.get('where') or 'hand ' + str(c['hand']))} #{c['index']}: "
                 f"{html.escape(c['text'])} (was {html.escape(c['was'])})"
                 f"{html.escape(' by ' + c['by'] if c.get('by') else '')}"
                 f"{html.escape(': ' + c['reason'] if c.get('reason') else '')}</li>" for c in corrections]
        body.append("</ul>")
    body.append("<h2>Timeline</h2><table><tr><th>hand</th><th>time</th><th>event</th><th>points</th>"
                "<th>open ends</th><th>score</th><th>snapshot</th></tr>")
    body += _timeline_rows(rows, snapshots, video, score_ends, unit == "pips")
    body.append("</table>")
    # a review's page holds its snapshots: `record report` is told not to write over it (cli_common)
    meta = f"<meta name='generator' content='{generator or (REVIEW_PAGE if snapshots else RECORD_PAGE)}'>"
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'>{meta}<title>{html.escape(title)}</title>"
            f"<style>{_CSS}</style></head><body>{''.join(body)}{_SEEK_JS if video else ''}</body></html>")


def write_report(path: Path, title: str, subtitle: str, rows: list[dict], snapshots: dict[int, str],
                 standings: list[tuple[str, int, int]], warning: str | None = None, video: str | None = None,
                 corrections: list[dict] | None = None, generator: str | None = None, unit: str = "points",
                 score_ends: bool = True, review_flags: list[dict] | None = None,
                 flags_note: str | None = None) -> Path:
    """Write :func:`render_report` to ``path`` (UTF-8) and return it. A name with bytes that are not UTF-8
    (a folder or photo named so, held by Python as lone surrogates) shows U+FFFD for each such byte
    (helper-150: the review ended in an encoding error after all its work)."""
    page = render_report(title, subtitle, rows, snapshots, standings, warning, video, corrections, generator, unit,
                         score_ends, review_flags, flags_note)
    write_text_atomic(path, readable(page))
    return path


def relative_link(path: Path, page_dir: Path) -> str:
    """The URL of the file ``path`` from a page in ``page_dir``: relative, percent-encoded from the
    name's bytes, so that a name with bytes that are not UTF-8 links to its file (helper-150: quote()
    raised on it)."""
    return quote(os.fsencode(os.path.relpath(os.path.abspath(path), os.path.abspath(page_dir))))
