"""``dominocast score`` and ``dominocast rules``: the umpire's re-scoring tool over the engine."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from engine.hand import IllegalEvent
from engine.match import replay_match
from engine.record import RecordError, record_from_match
from engine.ruleset import (SEED_SOURCE, Ruleset, RulesetError, available_presets, load_ruleset, ruleset_quotes,
                            source_label)
from engine.script import ScriptError, load_script
from engine.timeline import awaiting_text, ends_text, game_over_text, result_text, score_text, timeline
from service.cli_common import (check_distinct_outputs, check_out_file, check_replaceable, console, err_console, fail,
                                path_parser)
from service.cli_record import write_outputs
from service.views import rows_in_turn_order


def score(
    script: Path = typer.Argument(..., parser=path_parser, help="hand or match script (.yaml, .yml or .json)"),
    rules: str = typer.Option(None, "--rules", help="rule-set preset (overrides the script's)"),
    as_json: bool = typer.Option(False, "--json", help="print JSON lines instead of a table"),
    record: Path = typer.Option(None, "--record", parser=path_parser,
                                help="also write the match record (JSON) to this file"),
    notation: Path = typer.Option(None, "--notation", parser=path_parser,
                                  help="also write the record's text notation to this file"),
) -> None:
    """Score a scripted hand or match: every event with its points, open ends, flags and the running score."""
    for option, path, example in (("--record", record, "record.json"), ("--notation", notation, "record.txt")):
        if path is not None:
            check_out_file(option, path, example)
    check_distinct_outputs([("--record", record), ("--notation", notation)], [("the script", script)])
    check_replaceable("--record", record, "a dominocast JSON record")
    check_replaceable("--notation", notation, "a dominocast notation")
    try:
        sc = load_script(script, rules)
        match = replay_match(sc.rules, sc.hands)
    except (ScriptError, IllegalEvent, ValueError) as exc:
        raise fail(f"{script}: {exc}" if str(script) not in str(exc) else str(exc))
    if record is not None or notation is not None:
        try:
            rec = record_from_match(sc.rules, sc.hands, sc.players, {"title": sc.title} if sc.title else None)
        except RecordError as exc:  # e.g. a player named for a seat that is not playing
            raise fail(f"{script}: {exc}")
        try:
            write_outputs(rec, record, notation)
        except RecordError as exc:
            raise fail(str(exc))
    for warning in unfinished_hands(match):  # on stderr: --json's stdout stays rows only
        err_console.print(f"warning: {warning}", highlight=False)
    rows = rows_in_turn_order(list(timeline(match)), sc.rules)  # the seats as they play, not E N S W
    if as_json:
        for row in rows:
            print(json.dumps(row))
        return
    table = Table(title=f"{sc.rules.title} ({sc.rules.name})", show_lines=False)
    for col in ("g.h", "#", "event", "points", "open ends", "flags", "score"):
        table.add_column(col, overflow="fold")
    by_pips = sc.rules.standings == "cumulative_pips"  # seed 002: ranked by the pips left, no running score
    for row in rows:
        if row["type"] == "game_end":
            table.add_row(str(row["game"]), "", f"[bold]{escape(game_over_text(row))}[/]", "", "", "",
                          score_text(row, by_pips))
            continue
        pts = " ".join(f"{s}+{p}" if p >= 0 else f"{s}{p}" for s, p in row["points"].items())
        # a notice (what the rules require next) is no accusation: not in red (helper-117)
        flags = "; ".join(f"[yellow]{f['kind']}[/]" if f.get("notice") else f"[red]{f['kind']}[/]"
                          for f in row["flags"])
        text = row["text"]
        if "hand_end" in row:
            he = row["hand_end"]
            text += f"  [bold]→ {he['kind']}{' ' + he['winner'] if he['winner'] else ''}[/] ({he['note']})"
        elif "awaiting_reveal" in row:  # ended, but its end-of-hand points wait for the tiles shown
            text += f"  [bold]→ {escape(awaiting_text(row['awaiting_reveal']))}[/]"
        table.add_row(f"{row['game']}.{row['hand']}", str(row["index"]), text, pts, ends_text(row, sc.rules.score_ends),
                      flags, score_text(row, by_pips))
    console.print(table)
    for colour, kind, line in flag_notes(rows):
        console.print(f"  [{colour}]{kind}[/]: {escape(line)}", highlight=False)
    _print_standings(match, sc.players)


def flag_notes(rows: list[dict]) -> list[tuple[str, str, str]]:
    """What the flags of ``rows`` (timeline rows) say, for the lines under ``score``'s table: ``(colour, kind,
    text)``, ``text`` being ``1.1 #19: N's reveal leaves out 4-0, exposed at #2``.

    helper-116: the table names a flag's kind only ("must_draw" stood alone; its message only in --json), so each
    kind is said with its message. A notice (yellow: what the rules require next, every hand alike) is said once
    per kind. A flag (red: an accusation the umpire rules on) is said once per kind and seat, as its message names
    that seat's tile (helper-209: S's "reveal leaves out 6-4, taken back at #4" was hidden under N's "leaves out
    4-0"); the ones left out of a kind are counted on a line of their own (``--json`` holds each message)."""
    said: dict[str, list[tuple[str, str]]] = {}  # kind -> its lines' (colour, text), in the order first seen
    seen: set[tuple[str, str | None]] = set()
    left: dict[str, int] = {}  # kind -> how many of it were not said
    for row in rows:
        for f in row.get("flags") or []:
            kind, notice = f["kind"], bool(f.get("notice"))
            key = (kind, None if notice else f.get("seat"))
            if key in seen:
                left[kind] = left.get(kind, 0) + (not notice)
                continue
            seen.add(key)
            said.setdefault(kind, []).append(("yellow" if notice else "red",
                                             f"{row['game']}.{row['hand']} #{row['index']}: {f['message']}"))
    out: list[tuple[str, str, str]] = []
    for kind, lines in said.items():
        out += [(colour, kind, text) for colour, text in lines]
        if left.get(kind):
            n = left[kind]
            out.append(("red", kind, f"{n} more by the same {'seat' if len(lines) == 1 else 'seats'} (the table "
                                     f"marks {'its row' if n == 1 else 'their rows'}; --json has "
                                     f"{'its message' if n == 1 else 'their messages'})"))
    return out


def unfinished_hands(match) -> list[str]:  # noqa: ANN001 - engine.match.MatchState
    """One line per hand that has no end (no domino, lock or ``end`` line) although a later hand
    follows it: a script missing its end line, scored as it stands; and one per hand, the last too, that
    the engine ended but cannot score until seats show their tiles (``HandState.pending_end``: e.g. a line
    locked from the board alone with no hand known, seed 000: "all players show remaining tiles")."""
    # a game can end during play (target_checked = immediately): its last hand needs no end line
    hands = [(g.number, n, h) for g in match.games for n, h in enumerate(g.hands, start=1)
             if not (g.ended_by and n == len(g.hands))]
    last = match.games[-1].hands[-1] if match.games[-1].hands else None
    out = []
    for g, n, h in hands:
        if h.pending_end is not None:  # helper-215: it was said to have "no end", or nothing when last
            kind, winner, _ = h.pending_end
            out.append(f"hand {n} of game {g} ended ({result_text(kind, winner, None)}) but the tiles of "
                       f"{', '.join(h.awaiting_reveal())} are not shown (no reveal line): its end-of-hand points "
                       "are not counted")
        elif h.result is None and h is not last:
            out.append(f"hand {n} of game {g} has no end (no domino, lock or 'end' line) but another hand follows "
                       "it: scored as it stands")
    return out


def _print_standings(match, players: dict[str, str]) -> None:
    unit = "pips" if match.rules.standings == "cumulative_pips" else "points"
    t = Table(title="Standings")
    t.add_column("side")
    t.add_column("games won")
    t.add_column(unit)
    for side, won, total in match.standings():
        name = " & ".join(players.get(s, s) for s in (side if len(side) == 2 else [side]))
        t.add_row(f"{side} ({name})" if players else side, str(won), str(total))
    console.print(t)


#: Where the seed rule texts lie, said once under the list.
SEEDS_FOLDER = "../shared/seeds/, beside the repository"
SEEDS_CAPTION = f"seed files: {SEEDS_FOLDER}"


def rules(preset: str = typer.Argument(None, help="preset to show; omit to list them")) -> None:
    """List rule-set presets, or show one preset's parameters."""
    if preset is None:
        t = Table(title="Rule-set presets", caption=SEEDS_CAPTION)
        t.add_column("preset")
        t.add_column("title")
        t.add_column("source")
        for name in available_presets():
            rs = load_ruleset(name)
            t.add_row(name, rs.title, escape(source_label(rs.source)))
        console.print(t)
        return
    try:
        rs = load_ruleset(preset)
    except RulesetError as exc:
        raise fail(str(exc))
    # the sentence of the rule text each value follows (the file's comments; helper-122: none was shown,
    # and a penalty's warnings, leader and source were left out)
    quotes = ruleset_quotes(preset)
    t = Table(title=f"{rs.title} ({rs.name})")
    t.add_column("parameter")
    t.add_column("value")
    t.add_column("from")
    for key in Ruleset.model_fields:
        if key == "source":  # as it reads; a table's stored ruleset keeps the value with the seed's id
            t.add_row(key, escape(source_label(rs.source)), SEEDS_FOLDER if SEED_SOURCE.fullmatch(rs.source) else "")
        elif key != "penalties":
            t.add_row(key, escape(str(getattr(rs, key))), escape(quotes.get(key, "")))
    for name, spec in rs.penalties.items():
        t.add_row(f"penalty {name}", escape(spec.describe()), escape(quotes.get(f"penalties.{name}", spec.source)))
    if not rs.penalties:
        t.add_row("penalties", "none", "")
    console.print(t)


def register(app: typer.Typer) -> None:
    app.command()(score)
    app.command()(rules)
