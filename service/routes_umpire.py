"""Umpire actions (bearer token): events, corrections, alerts, hand confirmation.

Every change is an event appended to the log; a change to an earlier event is an
``engine.events.Correction`` that replaces it, and every score is recomputed.
"""

from __future__ import annotations

import re
from typing import Literal

from fastapi import APIRouter, Depends, Request

from engine.events import Correction, Draw, HandEnd, Pass, Penalty, Play, TakeBack, effective
from engine.notation import format_event
from engine.seats import SEATS, seats_for
from engine.tiles import Tile, TileError
from service.auth import is_umpire, require_token
from service.deps import actor, registry, viewable
from service.live import AppendRejected, NotFound, Refused, parse_event, penalty_reason
from service.reseat import ReadSeats
from service.schemas import (AlertAction, CorrectionBody, EventBody, FixTileBody, HandConfirm, MoveEventBody, ReassignBody,
                             SwapTilesBody)
from service.tables import Conflict, Invalid
from service.views import public_alerts, state_in_play

router = APIRouter(prefix="/api/tables/{table_id}", tags=["umpire"])
umpire = [Depends(require_token)]


def _event(data: object) -> object:
    try:
        return parse_event(data)
    except ValueError as exc:
        raise Invalid(str(exc)) from None


def _current(rt, hand: int | None) -> int:  # noqa: ANN001
    if hand is not None:
        return hand
    if not rt.logs:
        raise NotFound("the match has no hand yet")
    return len(rt.logs)


@router.post("/events", status_code=201, dependencies=umpire)
def post_event(table_id: str, body: EventBody, request: Request) -> dict:
    """An event entered by hand: the source of a manual table, or the umpire's pass/penalty/end."""
    reg = registry(request)
    rt = reg.get(table_id)
    if rt.cfg.worker_kind == "manual" and not reg.is_live(table_id):
        # its events are its source, which runs once started (docs/service.md, step 2): before, the events of a
        # table no one had started were taken (201) while /health and the status said it was not live
        raise Conflict(f"table {table_id!r} is {rt.worker['state']}: start it (POST /api/tables/{table_id}/start) "
                       "before entering its events")
    ev = _event(body.event)
    if isinstance(ev, Correction):  # its checks (a voided slot, nothing to correct, the lead's order) are there
        raise Invalid("event: a correction goes to POST .../corrections (or .../fix-tile, .../reassign)")
    _in_set(ev, rt.cfg.rules.set_max)
    _seats_playing(ev, rt.cfg.rules)
    source = "manual" if rt.cfg.worker_kind == "manual" else "umpire"
    res = rt.append(ev, source=source, actor=actor(request, body.by), hand=body.hand, new_hand=body.new_hand)
    return {"hand": res["hand"], "index": res["index"], "id": res["message"]["id"], "row": res["message"]["data"]["row"]}


def _correct(rt, hand: int, replaces: int, event: object | None, by: str, reason: str) -> dict:  # noqa: ANN001
    corr = Correction(replaces=replaces, event=_at_slot_moment(rt, hand, replaces, event), by=by, reason=reason)
    res = rt.append(corr, source="umpire", actor=by, hand=hand)
    data = res["message"]["data"]
    return {"hand": res["hand"], "index": res["index"], "replaces": replaces, "id": res["message"]["id"],
            "row": data["row"], "scores": (data["state"]["game"] or {}).get("scores"),
            "penalties_without_flag": res["penalties_without_flag"]}


def _at_slot_moment(rt, hand: int, replaces: int, event: object | None) -> object | None:  # noqa: ANN001
    """``event`` without its time and frame when they are those of the slot's own event (``log[replaces]``,
    which ``engine.events.effective`` gives a time-less replacement): the notation then writes the correction
    as a ``fix`` line, not as raw JSON (helper-152: every fix-tile of a camera table was a ``json {...}``
    line). Compared with the slot's event, not the one in force: a moment an earlier correction changed is
    kept (helper-158). The caller holds ``rt.lock``."""
    logs = rt.logs
    if event is None or (event.t is None and event.frame is None) or not (
            1 <= hand <= len(logs) and 0 <= replaces < len(logs[hand - 1])):
        return event
    was = logs[hand - 1][replaces]
    if (event.t, event.frame) == (getattr(was, "t", None), getattr(was, "frame", None)):
        return event.model_copy(update={"t": None, "frame": None})
    return event


@router.post("/corrections", status_code=201, dependencies=umpire)
def correction(table_id: str, body: CorrectionBody, request: Request) -> dict:
    """Replace event ``replaces`` of a hand with ``event`` (or void it when ``event`` is null). A voided
    slot may be given an event again (an umpire's wrong void undone), not voided twice."""
    rt = registry(request).get(table_id)
    ev = _event(body.event) if body.event is not None else None
    if isinstance(ev, Correction):
        raise Invalid("event: a correction replaces an event with an event, not with another correction")
    _in_set(ev, rt.cfg.rules.set_max)
    _seats_playing(ev, rt.cfg.rules)
    with rt.lock:  # checked and replaced in one step, as fix-tile and reassign
        hand = _current(rt, body.hand)
        held = None
        if ev is None or not rt.is_voided(hand, body.replaces):
            held = rt.event_at(hand, body.replaces)  # NotFound: no slot, or voided already
            _changes(rt, held, ev, hand, body.replaces)
        passes = rt.inferred_passes(hand, body.replaces) if ev is None else []
        restoring = ev is not None and held is None  # a voided slot given an event again
        if isinstance(ev, Penalty) and (m := re.search(r"\(alert (\d+)\)$", ev.reason or "")) and (
                given := rt.penalty_in_force(int(m.group(1)))):
            # helper-109: confirmed again after the void, then the old penalty restored: two for one infraction
            raise Conflict(f"alert {m.group(1)}'s penalty ({given}) is on the score already: nothing was changed")
        was_over = _over(rt, hand)
        out = _correct(rt, hand, body.replaces, ev, actor(request, body.by), body.reason)
        # the passes the camera inferred from a play that was not made go with it
        out["voided_passes"] = _void_inferred(rt, hand, passes, held, actor(request, body.by),
                                              f"inferred from play #{body.replaces}, voided")
        if restoring and isinstance(ev, Play):
            out["voided_passes"] += _passes_while_voided(rt, hand, body.replaces, ev.seat, actor(request, body.by))
            out["reassigned_draws"], out["reassigned_plays"] = _seats_while_voided(rt, hand, body.replaces, ev,
                                                                                    actor(request, body.by))
        if ev is None and isinstance(held, Pass):  # helper-89: its "S passed" alert stayed open
            _resolve_pass_alert(rt, hand, held, actor(request, body.by), f"pass #{body.replaces} voided")
        if was_over and not _over(rt, hand):  # helper-174: an End pressed by mistake, a redeal penalty, voided
            _resolve_end_alerts(rt, hand, actor(request, body.by),
                                f"#{body.replaces} {'voided' if ev is None else 'corrected'}: the hand is not over")
        return out


def _over(rt, hand: int) -> bool:  # noqa: ANN001
    """Whether hand ``hand`` of the current match is over (a result, or one waiting for the reveals)."""
    states = rt.hand_states()
    return 1 <= hand <= len(states) and states[hand - 1][2].over


def _resolve_end_alerts(rt, hand: int, by: str, reason: str) -> None:  # noqa: ANN001
    """Resolve the open alerts of ``hand`` that an end a correction undid called for: the camera's inferred
    end (``hand_end_inferred``), the lock's ``rules_misfit`` (draw_rule), and the camera's events the engine
    refused for the hand being over (``desync``). The tiles laid meanwhile (``after_hand_end``) become plays
    at the camera's next read, which resolves their alerts (:func:`service.tables._unplaced`)."""
    def about(a: dict) -> bool:
        if a.get("match") != rt.match_id or a.get("hand") != hand:
            return False
        d = a.get("details") or {}
        return (a["kind"] == "hand_end_inferred"
                or a["kind"] == "rules_misfit" and (d.get("details") or {}).get("parameter") == "draw_rule"
                or a["kind"] == "desync" and "the hand is over" in (a.get("message") or ""))

    rt.resolve_open(about, by, reason)


def _resolve_pass_alert(rt, hand: int, ev: Pass, by: str, reason: str) -> None:  # noqa: ANN001
    """Resolve the open ``pass_inferred`` alert of an inferred pass the umpire voided (the alert names
    the pass by its seat and knock time, ``pass_t``/``pass_frame``)."""
    def about(a: dict) -> bool:
        d = a.get("details") or {}
        return (a["kind"] == "pass_inferred" and a.get("match") == rt.match_id and a.get("hand") == hand
                and a.get("seat") == ev.seat and d.get("pass_frame") == ev.frame and d.get("pass_t") == ev.t)

    rt.resolve_open(about, by, reason)


def _void_inferred(rt, hand: int, passes: list, play: object, by: str, reason: str) -> list[int]:  # noqa: ANN001
    """Void the camera's inferred ``passes`` ((slot, Pass), in order) of ``hand``, last first (each step
    leaves the hand as it stood before that pass), and resolve their ``pass_inferred`` alerts;
    returns the slots voided."""
    for slot, _ in reversed(passes):
        _correct(rt, hand, slot, None, by, reason)
    seats = {p.seat for _, p in passes}

    def about(a: dict) -> bool:
        d = a.get("details") or {}
        return (a["kind"] == "pass_inferred" and a.get("match") == rt.match_id and a.get("hand") == hand
                and a.get("seat") in seats and d.get("by") == getattr(play, "seat", None)
                and d.get("frame") == getattr(play, "frame", None))

    rt.resolve_open(about, by, reason)
    return [slot for slot, _ in passes]


def _last_void(log: list, slot: int) -> int | None:
    """The log index of the latest correction that voided ``slot``; None if none did."""
    return max((k for k, e in enumerate(log) if isinstance(e, Correction) and e.replaces == slot and e.event is None),
               default=None)


def _passes_while_voided(rt, hand: int, slot: int, seat: str, by: str) -> list[int]:  # noqa: ANN001
    """A play restored after a void: the passes the camera inferred for its seat meanwhile go (the void
    left that seat to play, so the next play by another seat made it "pass"); returns their slots."""
    log = rt.hand_log(hand)
    void = _last_void(log, slot)
    if void is None:
        return []
    done: list[int] = []
    for j in range(void + 1, len(log)):
        passes = [(k, p) for k, p in rt.inferred_passes(hand, j) if p.seat == seat and k > void]
        if passes:
            done += _void_inferred(rt, hand, passes, rt.event_at(hand, j), by,
                                   f"inferred while play #{slot} was voided; it is restored")
    return done


def _seats_while_voided(rt, hand: int, slot: int, play: Play, by: str) -> tuple[list[int], list[int]]:  # noqa: ANN001
    """A play restored after a void: the camera's events recorded meanwhile whose seat came from the turn the void
    left (a draw goes to the seat to play: helper-100, N's draw recorded for S; a play seated by the turn, or the
    drawer's play of a photo: helper-251, S's 6-0 read with S's draw stayed N's) go to the seat whose turn it is at
    their place in the restored record (:mod:`service.reseat`), up to the first tile laid against the voided play
    (:func:`_held_since`). Returns the slots of the draws and of the plays re-seated."""
    void = _last_void(rt.hand_log(hand), slot)
    if void is None or play.frame is None:
        return [], []
    held = _held_since(rt, hand, play.frame)
    seats = ReadSeats()
    draws: list[int] = []
    plays: list[int] = []
    for k, ev in rt.camera_events(hand, void):
        if not isinstance(ev, (Draw, Play)):
            continue
        if held is not None and (ev.frame is None or ev.frame > held):
            break
        turn = rt.turn_before(hand, k)  # each change made moves the turn of those after it
        seat = seats.seat(ev, turn)
        if seat is not None:
            _correct(rt, hand, k, ev.model_copy(update={"seat": seat}), by,
                     f"{'drawn' if isinstance(ev, Draw) else 'laid'} while play #{slot} was voided; it is restored: "
                     f"{seat} was to play")
            (draws if isinstance(ev, Draw) else plays).append(k)
    return draws, plays


def _held_since(rt, hand: int, frame: int) -> int | None:  # noqa: ANN001
    """The frame of the first tile the camera holds unplaced (an open ``unplaced_tile`` alert) since
    ``frame``; None if none. Laid against a voided play, such a tile is a play the camera sends only once
    the void is undone, after the events recorded meanwhile: the turn at those after it is not known."""
    frames = [(a.get("details") or {}).get("frame") for a in rt.open_alerts.values()
              if a["kind"] == "unplaced_tile" and a.get("match") == rt.match_id and a.get("hand") == hand]
    return min((f for f in frames if isinstance(f, int) and f > frame), default=None)


def _changes(rt, held: object, event: object | None, hand: int, index: int) -> None:  # noqa: ANN001
    """Refuse a correction that would put back what the slot holds (two umpires restoring one void at
    once, a fix to the tile already there): it would only clutter the log. The lead's ``end`` is not
    compared: the engine ignores it (``engine.events.Play``), so ``"lead"`` or none is the same play
    (helper-156: a lead "corrected" to itself with ``"end": "lead"`` was accepted)."""
    if event is None:
        return
    if isinstance(event, Play) and isinstance(held, Play) and rt.is_lead(hand, index):
        event, held = event.model_copy(update={"end": None}), held.model_copy(update={"end": None})
    if event == held:
        raise Conflict(f"event #{index} of hand {hand} is already {format_event(held)}: nothing to correct")


@router.post("/fix-tile", status_code=201, dependencies=umpire)
def fix_tile(table_id: str, body: FixTileBody, request: Request) -> dict:
    """A misread tile: the play at ``index`` with ``tile`` (and ``end``) instead."""
    rt = registry(request).get(table_id)
    tile = _tile(body.tile, rt.cfg.rules.set_max, "tile")
    with rt.lock:  # read and replace in one step: a void landing in between must not be undone
        hand = _current(rt, body.hand)
        ev = rt.event_at(hand, body.index)
        if not isinstance(ev, Play):
            raise Invalid(f"event #{body.index} of hand {hand} is a {ev.type}, not a play")
        fixed = ev.model_copy(update={"tile": tile, "end": body.end or ev.end, "oriented": False, "confidence": None})
        sure = ev.confidence is None or ev.confidence >= rt.min_confidence
        if tile.key == ev.tile.key and (fixed.end == ev.end or rt.is_lead(hand, body.index)) and sure:
            # the same tile confirms an uncertain read (its alert goes); a sure one it would only
            # strip of its confidence (helper-93)
            _changes(rt, ev, ev, hand, body.index)
        if rt.is_lead(hand, body.index) and not tile.is_double:
            # the lead's first half faces W, so "6-1" and "1-6" are different tables: keep the order the
            # plays after it agree with (typed as read, a fixed lead made every later play mismatched)
            turned = fixed.model_copy(update={"tile": Tile(tile.b, tile.a)})
            fixed = min((fixed, turned), key=lambda e: rt.flags_with(hand, Correction(replaces=body.index, event=e)))
        _changes(rt, ev, fixed, hand, body.index)
        try:
            return _correct(rt, hand, body.index, fixed, actor(request, body.by), body.reason)
        except AppendRejected:
            played = _played_at(rt, hand, tile, body.index)
            if played is None:
                raise
            # the engine's refusal names the play after it, "put at #2 by fix #5": #5 being this refused fix (h243)
            raise Conflict(f"tile {tile} is already played at #{played} of hand {hand}: it cannot be #{body.index} "
                           "too; nothing was changed (two plays' tiles the wrong way round: swap-tiles)") from None


def _played_at(rt, hand: int, tile: Tile, other_than: int) -> int | None:  # noqa: ANN001
    """The slot of the play in force of ``tile`` (either way round) in hand ``hand``, other than ``other_than``;
    None when no other play holds it."""
    return next((i for i, ev in effective(rt.hand_log(hand))
                 if i != other_than and isinstance(ev, Play) and ev.tile.key == tile.key), None)


@router.post("/swap-tiles", status_code=201, dependencies=umpire)
def swap_tiles(table_id: str, body: SwapTilesBody, request: Request) -> dict:
    """Two plays whose tiles were recorded the wrong way round (both laid between two reads of the camera
    and taken in the wrong order): each takes the other's tile and end, seats and times stay. One change:
    in between, two corrections would hold one tile twice, which the engine refuses."""
    rt = registry(request).get(table_id)
    with rt.lock:  # read and replace in one step, as fix-tile
        hand = _current(rt, body.hand)
        if body.index == body.other:
            raise Invalid(f"index and other are both #{body.index}: name two plays to swap")
        a, b = rt.event_at(hand, body.index), rt.event_at(hand, body.other)
        for i, ev in ((body.index, a), (body.other, b)):
            if not isinstance(ev, Play):
                raise Invalid(f"event #{i} of hand {hand} is a {ev.type}, not a play")
        if body.seen is not None:
            seen = [_tile(t, rt.cfg.rules.set_max, "seen") for t in body.seen]
            now = [ev.tile for ev in (a, b)]
            if [t.key for t in seen] != [t.key for t in now]:
                raise Conflict(f"plays #{body.index} and #{body.other} of hand {hand} now hold {now[0]} and {now[1]}, "
                               f"not {seen[0]} and {seen[1]} as seen: swapped already? Nothing was changed")
        if a.tile.key == b.tile.key and a.end == b.end:
            raise Invalid(f"plays #{body.index} and #{body.other} of hand {hand} hold the same tile on the same end: "
                          "nothing to swap")
        by = actor(request, body.by)
        pairs = [_swapped(a, b), _swapped(b, a)]
        # the lead has no end and its first half faces W (fix-tile): try the lead's tile both ways round and
        # the other play on either side, and keep what the plays after them agree with
        lead = [rt.is_lead(hand, body.index), rt.is_lead(hand, body.other)]
        options = [pairs]
        if any(lead):
            k = lead.index(True)
            options = [[_as_lead(pairs[k], flip) if j == k else _on_end(pairs[j], end) for j in range(2)]
                       for flip in (False, True) for end in _ends_beside(pairs[k].end)]  # the later play's end
        def change(evs: list) -> list:  # noqa: E306
            return [Correction(replaces=i, event=e, by=by, reason=body.reason)
                    for i, e in zip((body.index, body.other), evs)]
        best = min(options, key=lambda evs: rt.flags_with(hand, change(evs)))
        return _one_change(rt.append(change(best), source="umpire", actor=by, hand=hand), [body.index, body.other])


def _identity(ev: object) -> dict:
    """What a client sees of an event to name it: its type, seat and tile (as ``/matches/../hands/..`` lists them)."""
    d = {"type": ev.type, "seat": getattr(ev, "seat", None)}
    if isinstance(ev, Play):
        d["tile"] = [ev.tile.a, ev.tile.b]
    return d


def _one_change(res: dict, replaces: list[int]) -> dict:
    """The answer to a change of two slots made as one append (swap-tiles, move-event)."""
    last = res["messages"][-1]["data"]
    return {"hand": res["hand"], "indexes": res["indexes"], "replaces": replaces,
            "ids": [m["id"] for m in res["messages"]], "rows": [m["data"]["row"] for m in res["messages"]],
            "scores": (last["state"]["game"] or {}).get("scores"), "penalties_without_flag": res["penalties_without_flag"]}


@router.post("/move-event", status_code=201, dependencies=umpire)
def move_event(table_id: str, body: MoveEventBody, request: Request) -> dict:
    """The play, pass or draw at ``index`` came before the one recorded right before it (``before``): the
    two change places in the record, each keeping its seat, tile, end and time, as one change (e.g. a
    play the camera recorded late, after a play on another end or a draw)."""
    rt = registry(request).get(table_id)
    with rt.lock:  # read and replace in one step, as swap-tiles
        hand = _current(rt, body.hand)
        a, b = rt.event_at(hand, body.index), rt.event_at(hand, body.before)
        for i, ev in ((body.index, a), (body.before, b)):
            if not isinstance(ev, (Play, Pass, Draw)):
                raise Invalid(f"event #{i} of hand {hand} is a {ev.type}: move-event moves a play, pass or draw "
                              "before another")
        slots = [i for i, _ in effective(rt.hand_log(hand))]
        k = slots.index(body.index)
        if k == 0 or slots[k - 1] != body.before:
            raise Conflict(f"event #{body.before} of hand {hand} is not the event right before #{body.index} now: "
                           "moved already? Nothing was changed")
        if body.seen is not None and any(body.seen.get(k) != v for k, v in _identity(a).items()):
            raise Conflict(f"event #{body.index} of hand {hand} is {format_event(a)} now, not the one seen: moved "
                           "already? Nothing was changed")
        if rt.is_lead(hand, body.before):  # the lead has no end and the play after it needs one
            raise Invalid(f"event #{body.before} of hand {hand} is the lead: to record the other tile as the lead, "
                          "swap the tiles of the two plays (swap-tiles)")
        by = actor(request, body.by)
        res = rt.append([Correction(replaces=body.before, event=a, by=by, reason=body.reason),
                         Correction(replaces=body.index, event=b, by=by, reason=body.reason)],
                        source="umpire", actor=by, hand=hand)
        return _one_change(res, [body.before, body.index])


def _tile(text: str | list[int] | Tile, set_max: int, field: str) -> Tile:
    try:
        return Tile.parse(text, set_max)
    except TileError as exc:
        raise Invalid(f"{field}: {exc}") from None


def _in_set(ev: object | None, set_max: int) -> None:
    """Refuse an event (a play, take-back, draw, reveal or deal) naming a tile outside the table's
    double-``set_max`` set as invalid input (422, as fix-tile's tile), not as an event the engine refused in
    this hand (409): no state of any hand makes ``[9, 5]`` a tile of a double-six set (helper-220).

    Raises:
        Invalid: names the first such tile, e.g. ``event: tile 9-5 is not in a double-6 set``.
    """
    dealt = [t for h in (getattr(ev, "hands", None) or {}).values() for t in h]
    for tile in [getattr(ev, "tile", None), *(getattr(ev, "tiles", None) or []), *dealt]:
        if tile is not None:
            _tile(tile, set_max, "event")


def _seats_playing(ev: object | None, rules) -> None:  # noqa: ANN001
    """Refuse an event naming a seat (its ``seat``, a hand end's ``winner``, a deal's hands) that is no seat, or
    that does not play under the table's rules, as invalid input (422, as a registration's ``players.Q``), not as
    an event the engine refused in this hand (409; h243: ``"seat": "X"`` was a 409).

    Raises:
        Invalid: e.g. ``event.seat: Input should be 'N', 'E', 'S' or 'W'``, or
            ``event.winner: the winner 'E' is not playing (seats: N, S)``.
    """
    seats = seats_for(rules.players, rules.play_direction)
    named = [(f, getattr(ev, f, None)) for f in ("seat", "winner")]
    named += [("hands", s) for s in getattr(ev, "hands", None) or {}]
    for field, seat in named:
        if seat is None:
            continue
        if seat not in SEATS:
            raise Invalid(f"event.{field}: Input should be 'N', 'E', 'S' or 'W'")
        if seat not in seats:
            who = "the winner" if field == "winner" else "seat"
            raise Invalid(f"event.{field}: {who} {seat!r} is not playing (seats: {', '.join(seats)})")


def _swapped(to: Play, frm: Play) -> Play:
    """Play ``to`` (its seat and time) with ``frm``'s tile and end, as the umpire says (no read confidence;
    the engine turns the tile to match the end, the line being laid in another order now)."""
    return to.model_copy(update={"tile": frm.tile, "end": frm.end, "oriented": False, "confidence": None})


def _as_lead(play: Play, flip: bool) -> Play:
    tile = Tile(play.tile.b, play.tile.a) if flip else play.tile
    return play.model_copy(update={"tile": tile, "end": None, "oriented": False})


def _on_end(play: Play, end: str | None) -> Play:
    return play.model_copy(update={"end": end, "oriented": False})


def _ends_beside(end: str | None) -> tuple[str | None, ...]:
    """The ends a tile laid beside the lead may have been on: the recorded one and its opposite."""
    opposite = {"W": "E", "E": "W", "N": "S", "S": "N"}
    return (end, opposite[end]) if end in opposite else (end,)


#: Events the camera attributes to a seat by where and when they happen: what ``reassign`` moves.
_TURN_EVENTS = (Play, Pass, Draw, TakeBack)


def _made_by(ev: Play | Pass | Draw | TakeBack, seat: str) -> Play | Pass | Draw | TakeBack:
    """``ev`` made by ``seat``, as the umpire says: a play's seat is then no guess from the turn order."""
    return ev.model_copy(update={"seat": seat, **({"seat_by_turn": False} if isinstance(ev, Play) else {})})


@router.post("/reassign", status_code=201, dependencies=umpire)
def reassign(table_id: str, body: ReassignBody, request: Request) -> dict:
    """The play (or pass, draw, take-back) at ``index`` was made by ``seat``."""
    rt = registry(request).get(table_id)
    with rt.lock:  # read and replace in one step: a void landing in between must not be undone
        hand = _current(rt, body.hand)
        ev = rt.event_at(hand, body.index)
        if not isinstance(ev, _TURN_EVENTS):  # a reveal's tiles are that seat's hand: moving them is no fix
            raise Invalid(f"event #{body.index} of hand {hand} is a {ev.type}: reassign moves a play, pass, draw "
                          "or take-back to another seat (a correction replaces any other event)")
        if ev.seat == body.seat:  # a correction that changes nothing would only clutter the log
            raise Conflict(f"event #{body.index} of hand {hand} is already {body.seat}'s: nothing to reassign")
        # The camera inferred passes for the seats its play skipped: with the play moved to a seat among
        # them, that seat's pass and those after it were never made (the ones before it stand).
        passes = rt.inferred_passes(hand, body.index)
        seats = [p.seat for _, p in passes]
        gone = passes[seats.index(body.seat):] if body.seat in seats else []
        voided = _void_inferred(rt, hand, gone, ev, actor(request, body.by),
                                f"inferred from play #{body.index}, now {body.seat}'s")
        out = _correct(rt, hand, body.index, _made_by(ev, body.seat), actor(request, body.by), body.reason)
        return {**out, "voided_passes": voided}


@router.get("/alerts")
def alerts(table_id: str, request: Request,
           status: Literal["open", "confirmed", "dismissed", "resolved", "all"] = "open",
           severity: Literal["action", "info", "all"] = "all") -> list[dict]:
    """The umpire's queue (``status``: open, confirmed, dismissed, resolved or all; ``severity``: action, info,
    the camera's notes stored resolved, :mod:`service.alert_levels`, or all); without the token, as the public
    sees it while a hand is in play (:func:`service.views.public_alerts`)."""
    from sqlalchemy import select

    from service.live import alert_dict
    from service.models import AlertRow

    rt = viewable(request, table_id)
    with rt.factory() as s:
        q = select(AlertRow).where(AlertRow.table_id == table_id).order_by(AlertRow.id)
        if status != "all":
            q = q.where(AlertRow.status == status)
        if severity != "all":
            q = q.where(AlertRow.severity == severity)
        found = [alert_dict(a) for a in s.scalars(q)]
    if is_umpire(request):
        return found
    with rt.lock:
        state = rt.state()
    return public_alerts(found, rt.match_id, state["hand"]["number"] if state_in_play(state) else None)


def _must_be_open(alert_id: int, alert: dict) -> None:
    """Refuse (409 :class:`Conflict`) a confirm or dismiss of an ``alert`` that is not open: a camera note
    (``severity`` info, closed from the start) is said to be one, for the umpire never had it to decide
    (helper-262: "alert 3 is resolved already" of a note nobody had resolved)."""
    if alert.get("severity") == "info":
        raise Conflict(f"alert {alert_id} is a camera note ({alert['kind']}), for information: "
                       "nothing to confirm or dismiss")
    if alert["status"] != "open":
        raise Conflict(f"alert {alert_id} is {alert['status']} already")


@router.post("/alerts/{alert_id}/confirm", dependencies=umpire)
def confirm_alert(table_id: str, alert_id: int, request: Request, body: AlertAction | None = None) -> dict:
    """Confirm an alert. A flagged infraction gets the rule set's penalty (or ``penalty``). The body is
    optional (helper-113: a bare POST got 422, even for a missing alert)."""
    body = body or AlertAction()
    rt = registry(request).get(table_id)
    with rt.lock:  # checked and confirmed in one step: a double click gives one penalty, not two
        return _confirm(rt, alert_id, body, actor(request, body.by))


def _confirm(rt, alert_id: int, body: AlertAction, by: str) -> dict:  # noqa: ANN001
    alert = rt.get_alert(alert_id)
    _must_be_open(alert_id, alert)
    if given := rt.penalty_in_force(alert_id):  # a second penalty for one infraction
        raise Conflict(f"alert {alert_id}'s penalty ({given}) is on the score already: nothing was changed")
    # an earlier match's flag can only be acknowledged: no penalty is suggested for a match that is over;
    # an empty penalty is the umpire's "(no penalty)", not a request for the suggestion
    suggest = alert["category"] == "flag" and alert["match"] == rt.match_id
    name = body.penalty if body.penalty is not None else (rt.suggested_penalty(alert["kind"]) if suggest else None)
    if body.penalty and not (alert["seat"] and alert["hand"]):
        raise Invalid(f"alert {alert_id} names no seat: no penalty applies to it")
    if body.penalty and body.penalty not in rt.cfg.rules.penalties:
        names = ", ".join(sorted(rt.cfg.rules.penalties)) or "none"
        raise Invalid(f"penalty: rule set {rt.cfg.preset} has no penalty {body.penalty!r} (penalties: {names})")
    if name and alert["seat"] and alert["hand"]:
        if alert["match"] != rt.match_id:
            raise Conflict(f"alert {alert_id} belongs to an earlier match")
        pen = Penalty(seat=alert["seat"], name=name, reason=penalty_reason(alert["kind"], alert["index"], alert_id))
        res = rt.append(pen, source="umpire", actor=by, hand=alert["hand"],
                        alert_update=(alert_id, "confirmed", by, body.note or f"penalty {name}"))
        return {"alert": rt.get_alert(alert_id), "penalty": name, "hand": res["hand"], "index": res["index"],
                "scores": (res["message"]["data"]["state"]["game"] or {}).get("scores")}
    return {"alert": rt.update_alert(alert_id, "confirmed", by, body.note), "penalty": None}


@router.post("/alerts/{alert_id}/dismiss", dependencies=umpire)
def dismiss_alert(table_id: str, alert_id: int, request: Request, body: AlertAction | None = None) -> dict:
    """Dismiss an alert (a false alarm); the body (``note``, ``by``) is optional."""
    body = body or AlertAction()
    rt = registry(request).get(table_id)
    with rt.lock:
        alert = rt.get_alert(alert_id)
        _must_be_open(alert_id, alert)
        return {"alert": rt.update_alert(alert_id, "dismissed", actor(request, body.by), body.note)}


@router.post("/hands/{hand}/confirm", dependencies=umpire)
def confirm_hand(table_id: str, hand: int, request: Request, body: HandConfirm | None = None) -> dict:
    """Confirm a hand's result; ``end`` (a hand_end event) ends it first when it is not over. The body
    is optional."""
    body = body or HandConfirm()
    rt = registry(request).get(table_id)
    by = actor(request, body.by)
    end = None
    if body.end is not None:
        end = _event({"type": "hand_end", **{k: v for k, v in body.end.items() if k != "type"}})
        assert isinstance(end, HandEnd)
    return rt.confirm_hand(hand, by, end)
