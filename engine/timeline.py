"""The scored timeline of a match: one JSON-ready row per event, with points and running score.

The rows are what ``dominocast score --json`` prints and what ``events.jsonl`` holds
(see ``docs/record-format.md``): every row has ``type``, ``game``, ``hand``, ``index``
(event number in the hand's log), ``t`` and ``frame`` (None for scripted events),
``points`` (side -> points scored by this event), ``open_ends``, ``flags`` and
``score`` (the game's running score per side after the event); ``hand_end`` on the row that ends
the hand, ``awaiting_reveal`` on one that ends it but leaves it to be counted from tiles shown.
"""

from __future__ import annotations

from typing import Iterator

from engine.events import Correction
from engine.hand import Outcome
from engine.match import MatchState
from engine.notation import format_event


def outcome_row(out: Outcome) -> dict:
    """The JSON-ready row of one outcome (without game/hand numbers and running score)."""
    ev = out.event
    shown = ev
    if out.placement is not None and out.placement.end == "lead" and getattr(ev, "end", None):
        shown = ev.model_copy(update={"end": None})  # laid as the lead (the play before it voided): no end
    row: dict = {"type": ev.type, "index": out.index, "t": ev.t, "frame": ev.frame, "text": format_event(shown)}
    seat = getattr(ev, "seat", None)
    if seat is not None:
        row["seat"] = seat
    if out.placement is not None:
        p = out.placement
        row["tile"] = [p.tile.a, p.tile.b]
        row["end"] = p.end
        if getattr(ev, "confidence", None) is not None:
            row["confidence"] = ev.confidence
        if getattr(ev, "seat_by_turn", False):  # the camera did not see who laid it: the seat is a guess
            row["seat_by_turn"] = True
    if ev.type == "reveal":
        row["tiles"] = [[t.a, t.b] for t in ev.tiles]
    if ev.type == "draw":
        row["count"] = ev.count
    row["points"] = out.points
    row["open_ends"] = out.open_ends
    row["ends_total"] = out.ends_total
    row["flags"] = [{"kind": f.kind, "seat": f.seat, "message": f.message, **f.details,
                     **({"notice": True} if f.notice else {})} for f in out.flags]
    if out.result is not None:
        r = out.result
        row["hand_end"] = {
            "kind": r.kind, "winner": r.winner_seat, "side": r.winner_side, "awards": r.awards,
            "remaining": r.remaining, "capicua": r.capicua, "note": r.note, "next_leader": r.next_leader,
        }
    if out.pending is not None:  # helper-221: only a stderr warning said the hand ended, waiting for reveals
        p = out.pending
        row["awaiting_reveal"] = {"kind": p.kind, "winner": p.winner, "seats": list(p.seats)}
    return row


def result_text(kind: str, winner: str | None, note: str | None) -> str:
    """How a hand ended, for people: a domino's note names who went out (``N dominoes (went out); 7 pips
    left in the other hands``); otherwise the kind, who won and the note (helper-85: ``lowest 5 pips`` alone
    said neither the lock nor who won it): ``locked, N wins (lowest 19 pips)``."""
    if kind == "domino" and note:
        return note
    return kind + (f", {winner} wins" if winner else "") + (f" ({note})" if note else "")


def awaiting_text(pending: dict) -> str:
    """A row's ``awaiting_reveal`` (the hand ended but is counted only from tiles shown) for people, in the
    words of the engine's ``awaiting_reveal`` flag and the umpire's alert: ``hand over (locked): reveal the
    tiles of N, S`` (a domino names who went out: ``hand over (domino, N wins): ...``)."""
    kind = result_text(pending["kind"], pending.get("winner"), None)
    return f"hand over ({kind}): reveal the tiles of {', '.join(pending['seats'])}"


def ends_text(row: dict, score_ends: bool = True) -> str:
    """A row's open ends for people, ``W:6 E:5 (counts 17)``: with the count the rules score on every row
    when the rule set scores the ends (``score_ends``), never when it does not.

    helper-85 added the count where it is not the ends' sum (a spinner's arm not yet played on shows its 6
    but counts nothing; a double at an end counts both halves); helper-165: shown only then, a reader met
    ``W:6 E:5 (counts 17)`` beside ``W:6 E:4`` and could not tell whether the second counted 10, and a
    block game, which scores no ends, showed a count that counted for nothing."""
    ends = row.get("open_ends") or {}
    text = " ".join(f"{k}:{v}" for k, v in ends.items())
    total = row.get("ends_total")
    if ends and score_ends and total is not None:
        text += f" (counts {total})"
    return text


def score_text(row: dict, by_pips: bool = False) -> str:
    """A row's score column for people, as ``score``'s table and the record report show it: the game's running
    score after the event, ``N 25 S 10`` (the sides in the row's order: turn order once the row went through
    :func:`service.views.rows_in_turn_order`).

    ``by_pips``: the standings count the pips left (``cumulative_pips``, seed 002): no points change hands, so
    an event's row shows nothing (helper-209: the report read "N 0 E 0 S 0 W 0" on every row) and a game's end
    row the pips its hands left each seat, ``pips N 5 E 16 S 2 W 0``."""
    if by_pips:
        return "pips " + _pairs(row.get("pips")) if row.get("type") == "game_end" else ""
    return _pairs(row.get("score"))


def game_over_text(row: dict) -> str:
    """A ``game_end`` row for people: ``game over (target): N`` (how the game ended, its winner or ``tie``)."""
    return f"game over ({row.get('ended_by')}): {row.get('winner') or 'tie'}"


def _pairs(values: dict | None) -> str:
    return " ".join(f"{s} {v}" for s, v in (values or {}).items())


def timeline(match: MatchState) -> Iterator[dict]:
    """Rows for every event of every hand, in order, with the running game score.

    The running score counts what :func:`engine.match.replay_match` counts: a score that would
    overshoot an exact target (``target_exact``, seed 000) and the events after a game ended during
    play (``target_checked = immediately``, seed 004) keep their ``points`` for the record but add
    nothing, and carry a ``not_counted`` flag that says why.
    """
    rules = match.rules
    for game in match.games:
        score: dict[str, int] = {}
        for h, hand in enumerate(game.hands, start=1):
            for side in hand.sides:
                score.setdefault(side, 0)
            for k, out in enumerate(hand.outcomes):
                row = outcome_row(out)
                after_end = game.ended_at is not None and (h, k) > game.ended_at
                for side, pts in out.points.items():
                    if after_end:
                        why = f"the game was over ({game.winner} reached {rules.target})"
                    elif rules.target_exact and rules.target is not None and score.get(side, 0) + pts > rules.target:
                        why = f"{side} would pass the target {rules.target} (it must be reached exactly)"
                    else:
                        score[side] = score.get(side, 0) + pts
                        continue
                    row["flags"].append({"kind": "not_counted", "seat": row.get("seat"),
                                         "message": f"{side}'s {pts} points not counted: {why}"})
                row.update(game=game.number, hand=h, score=dict(score))
                yield row
        if game.ended_by:
            yield {"type": "game_end", "game": game.number, "winner": game.winner, "ended_by": game.ended_by,
                   "score": dict(game.scores), "pips": dict(game.pips)}


def corrections(logs: list[list]) -> Iterator[dict]:
    """Every correction of a match's hand logs, for people: ``hand`` (1-based), ``index`` (its slot),
    ``replaces``, ``text`` (its notation), ``was`` (what the slot held just before it: the latest
    earlier correction of that slot, or ``void``), ``by`` and ``reason``."""
    for h, log in enumerate(logs, start=1):
        for i, ev in enumerate(log):
            if isinstance(ev, Correction):
                yield {"hand": h, "index": i, "replaces": ev.replaces, "text": format_event(ev),
                       "was": _in_force_before(log, i, ev.replaces), "by": ev.by, "reason": ev.reason}


def _in_force_before(log: list, i: int, slot: int) -> str:
    """What slot ``slot`` held just before correction ``i``: the latest earlier correction of it
    (a second fix was shown against the original event), ``void`` when that voided it."""
    held = log[slot]
    for ev in log[slot + 1:i]:
        if isinstance(ev, Correction) and ev.replaces == slot:
            held = ev.event
    return format_event(held) if held is not None else "void"
