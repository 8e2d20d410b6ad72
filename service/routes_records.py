"""Matches, games and hands with their records; export as JSON and as the text notation."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response
from sqlalchemy import select

from engine.events import effective
from engine.hand import replay
from engine.match import replay_match
from engine.record import MatchRecord, event_from_dict, record_from_match, to_json
from engine.record_text import write_text
from engine.ruleset import Ruleset, RulesetError, ruleset_from_params
from engine.timeline import corrections, timeline
from service.auth import is_umpire
from service.db import get_row
from service.deps import registry, viewable
from service.finality import score_doubt
from service.live import NotFound, alert_dict
from service.tables import Invalid
from service.models import AlertRow, EventRow, HandConfirmationRow, MatchRow
from service.views import (hide_text, in_turn_order, layout_geometry, public_alerts, public_record, public_row,
                           record_hand_in_play, rows_in_turn_order, side_order)

router = APIRouter(prefix="/api", tags=["records"])


def _logs(s, match_id: int) -> tuple[list[list], list[list[dict]]]:  # noqa: ANN001
    logs: list[list] = []
    meta: list[list[dict]] = []
    for r in s.scalars(select(EventRow).where(EventRow.match_id == match_id).order_by(EventRow.hand, EventRow.idx)):
        while len(logs) < r.hand:
            logs.append([])
            meta.append([])
        logs[r.hand - 1].append(event_from_dict(r.body))
        meta[r.hand - 1].append({"source": r.source, "actor": r.actor, "time": r.created_at})
    return logs, meta


def load_match(request: Request, match_id: int) -> tuple[MatchRow, object, list[list], list[list[dict]]]:
    """(match row, table runtime, hand logs, per-event source info), the table's view key checked."""
    with request.app.state.factory() as s:
        m = get_row(s, MatchRow, match_id)
        if m is None:
            raise NotFound(f"no match {match_id}")
        rt = viewable(request, m.table_id)
        logs, meta = _logs(s, match_id)
    return m, rt, logs, meta


def played_with(m: MatchRow, rt) -> tuple[Ruleset, str, dict[str, str]]:  # noqa: ANN001 - a TableRuntime
    """(rule set, its label, players) match ``m`` was played with: the table's for its current match (kept
    with it: :meth:`service.live.TableRuntime.reconfigure`), stored with an earlier one, so that a table's
    later change (PATCH /api/tables/{id}, a new match's players) neither rescores nor renames it; the
    table's where a match stores none (a row from before schema 0004 of a table with no stored rule set)."""
    if m.id == rt.match_id or not isinstance(m.ruleset, dict):
        rules, label = rt.cfg.rules, rt.cfg.preset
    else:
        try:
            rules = ruleset_from_params(m.ruleset, f"match {m.id}'s stored rule set")
        except RulesetError as exc:
            raise Invalid(str(exc)) from None
        label = rules.name if rules.name != rt.cfg.rules.name else rt.cfg.preset  # a file's rules: as typed
    players = rt.cfg.players if m.id == rt.match_id or not isinstance(m.players, dict) else m.players
    return rules, label, dict(players)


def _full_record(m: MatchRow, rt, logs: list[list]) -> MatchRecord:  # noqa: ANN001
    rules, _, players = played_with(m, rt)
    return record_from_match(rules, logs, players, {"title": m.title or None, "table": rt.cfg.name})


def _hidden(request: Request, m: MatchRow, rt, record: MatchRecord) -> int | None:  # noqa: ANN001
    """The hand of ``record`` whose tiles in hand this caller may not see: the hand in play
    (:func:`service.views.record_hand_in_play`) of the table's current match, for a caller without the
    token; None otherwise (an earlier match's last hand was left, not played on)."""
    return None if is_umpire(request) or m.id != rt.match_id else record_hand_in_play(record)


def _record(request: Request, m: MatchRow, rt, logs: list[list]) -> MatchRecord:  # noqa: ANN001
    """The match's record as this caller may read it (:func:`_hidden`, :func:`service.views.public_record`)."""
    rec = _full_record(m, rt, logs)
    return rec if _hidden(request, m, rt, rec) is None else public_record(rec)


def matches_of(request: Request, table_id: str) -> list[dict]:
    rt = registry(request).get(table_id)
    out = []
    with request.app.state.factory() as s:
        for m in s.scalars(select(MatchRow).where(MatchRow.table_id == table_id).order_by(MatchRow.number)):
            logs, _ = _logs(s, m.id)
            state = replay_match(played_with(m, rt)[0], logs)
            out.append({"id": m.id, "number": m.number, "title": m.title, "created_at": m.created_at,
                        "hands": len(logs), "over": state.over, "current": m.id == rt.match_id})
    return out


def _confirmed(request: Request, match_id: int) -> dict[int, str]:
    with request.app.state.factory() as s:
        return {c.hand: c.by for c in s.scalars(select(HandConfirmationRow).where(HandConfirmationRow.match_id == match_id))}


@router.get("/matches/{match_id}")
def get_match(match_id: int, request: Request) -> dict:
    m, rt, logs, _ = load_match(request, match_id)
    rec = _record(request, m, rt, logs)
    confirmed = _confirmed(request, match_id)
    hands = [{"number": i, "game": h.game, "in_game": h.number, "status": h.status, "events": len(h.events),
              "points": h.points, "result": h.result.model_dump() if h.result else None,
              "confirmed_by": confirmed.get(i)} for i, h in enumerate(rec.hands, start=1)]
    return {"id": m.id, "table": m.table_id, "number": m.number, "title": m.title, "over": rec.over,
            "current": m.id == rt.match_id, "rules": rec.rules.preset, "players": rec.players, "teams": rec.teams,
            "games": [g.model_dump() for g in rec.games], "standings": [s.model_dump() for s in rec.standings],
            "hands": hands}


@router.get("/matches/{match_id}/record.json")
def record_json(match_id: int, request: Request) -> Response:
    m, rt, logs, _ = load_match(request, match_id)
    return Response(to_json(_record(request, m, rt, logs)), media_type="application/json",
                    headers={"Content-Disposition": f'inline; filename="{m.table_id}-match{m.number}.json"'})


@router.get("/matches/{match_id}/record.txt")
def record_text(match_id: int, request: Request) -> PlainTextResponse:
    m, rt, logs, _ = load_match(request, match_id)
    return PlainTextResponse(write_text(_record(request, m, rt, logs)),
                             headers={"Content-Disposition": f'inline; filename="{m.table_id}-match{m.number}.txt"'})


@router.get("/matches/{match_id}/games/{game}")
def get_game(match_id: int, game: int, request: Request) -> dict:
    m, rt, logs, _ = load_match(request, match_id)
    rec = _record(request, m, rt, logs)
    info = next((g for g in rec.games if g.number == game), None)
    if info is None:
        raise NotFound(f"match {match_id} has no game {game} (games: {len(rec.games)})")
    hands = [{"number": i, **h.model_dump(mode="json")} for i, h in enumerate(rec.hands, start=1) if h.game == game]
    return {**info.model_dump(), "match": match_id, "hand_records": hands}


@router.get("/matches/{match_id}/hands/{hand}")
def get_hand(match_id: int, hand: int, request: Request) -> dict:
    m, rt, logs, meta = load_match(request, match_id)
    rec = _record(request, m, rt, logs)
    if not 1 <= hand <= len(rec.hands):
        raise NotFound(f"match {match_id} has no hand {hand} (hands: {len(rec.hands)})")
    return {"number": hand, "match": match_id, **rec.hands[hand - 1].model_dump(mode="json"),
            "sources": meta[hand - 1], "confirmed_by": _confirmed(request, match_id).get(hand)}


@router.get("/matches/{match_id}/hands/{hand}/board")
def get_board(match_id: int, hand: int, request: Request, after: int) -> dict:
    """The line of play of hand ``hand`` (1-based in the match) as it stood after event slot ``after``,
    the record's corrections applied (the review page: a click on a row shows the board then):
    ``layout`` (:func:`service.views.layout_geometry`), ``open_ends``, ``ends_total``."""
    m, rt, logs, _ = load_match(request, match_id)
    if not 1 <= hand <= len(logs):
        raise NotFound(f"match {match_id} has no hand {hand} (hands: {len(logs)})")
    if not 0 <= after < len(logs[hand - 1]):
        raise NotFound(f"hand {hand} has no event #{after} (events: {len(logs[hand - 1])})")
    rules = played_with(m, rt)[0]
    state = replay_match(rules, logs)
    hs = [h for g in state.games for h in g.hands][hand - 1]
    upto = [ev for i, ev in effective(logs[hand - 1]) if i <= after]
    layout = replay(rules, upto, hs.context).layout
    return {"match": match_id, "hand": hand, "after": after, "layout": layout_geometry(layout),
            "open_ends": layout.open_ends(), "ends_total": layout.ends_count()}


@router.get("/matches/{match_id}/timeline")
def get_timeline(match_id: int, request: Request) -> dict:
    """For the review page: every row with its running score, the corrections and the alerts; without the
    token, the hand in play as the public sees it (:func:`_record`); the record's warnings, and
    ``not_final``: why its score is not final (a hand not finished, a warning that doubts it), as
    ``record show`` says it (:func:`service.finality.score_doubt`), or null."""
    m, rt, logs, meta = load_match(request, match_id)
    rules, label, players = played_with(m, rt)
    state = replay_match(rules, logs)
    overall = {}
    n = 0
    for g in state.games:
        for k in range(1, len(g.hands) + 1):
            n += 1
            overall[(g.number, k)] = n
    full = _full_record(m, rt, logs)
    hidden = _hidden(request, m, rt, full)
    record = full if hidden is None else public_record(full)
    rows = []
    for row in rows_in_turn_order(list(timeline(state)), rules):  # the seats as they play
        if row["type"] != "game_end":
            row["match_hand"] = overall[(row["game"], row["hand"])]
            if row["match_hand"] == hidden:
                row = public_row(row)
        rows.append(row)
    fixes = [{**c, "by": c["by"] or meta[c["hand"] - 1][c["index"]]["actor"],
              "time": meta[c["hand"] - 1][c["index"]]["time"]} for c in corrections(logs)]
    fixes = [{**c, "text": hide_text(c["text"]), "was": hide_text(c["was"])} if c["hand"] == hidden else c
             for c in fixes]
    with request.app.state.factory() as s:
        alerts = [alert_dict(a) for a in s.scalars(
            select(AlertRow).where(AlertRow.match_id == match_id).order_by(AlertRow.id))]
    sides = list(in_turn_order(dict.fromkeys(side for g in state.games for side in sorted(g.scores)),
                               side_order(rules)))  # the seats as they play (N E S W; NS, EW)
    return {"match": match_id, "table": m.table_id, "title": m.title, "rules": label, "sides": sides,
            "target": rules.target, "players": players, "rows": rows, "corrections": fixes,
            "alerts": public_alerts(alerts, match_id, hidden), "over": state.over, "warnings": record.warnings,
            "not_final": score_doubt(record, "the warnings below")}
