"""JSON views of engine states for the feeds and pages: the layout as geometry, a hand, a play.

The overlay, the umpire console and the review page draw what these return; they hold
no domino logic of their own.
"""

from __future__ import annotations

import re

from engine.events import Correction, Deal, Draw
from engine.hand import HandState
from engine.layout import Layout
from engine.notation import NotationError, format_event, parse_event
from engine.record import (MatchRecord, WarningKind, event_from_dict, event_to_dict, in_turn_order, teams_for,
                           with_warning)
from engine.record import key_order as teams_key_order
from engine.ruleset import Ruleset

_DIRS = {"W": (-1, 0), "E": (1, 0)}


def side_order(rules: Ruleset | None) -> list[str]:
    """The sides of ``rules`` as score tables list them: in turn order (N, E, S, W clockwise; the seats of
    a 2- or 3-player game as they play), a partnership's teams in the order their first seat plays (NS, EW:
    :func:`engine.record.teams_for`). Records written before helper-215 keep their scores in name order (E, N, S,
    W: helper-206, nova-block's tables read "E 0 N 0 S 0 W 0"). Empty for no rules."""
    return list(teams_for(rules)) if rules is not None else []


def key_order(rules: Ruleset | None) -> list[str]:
    """:func:`engine.record.key_order` of ``rules``' teams: the order of side- and seat-keyed tables
    (N, E, S, W; a partnership's NS, EW, then its seats team by team: N, S, W, E counterclockwise). Empty for no
    rules."""
    return teams_key_order(teams_for(rules)) if rules is not None else []


#: The row keys (and ``hand_end`` keys) holding side- or seat-keyed numbers that tables list.
_SIDE_KEYED = ("score", "points", "pips")
_END_KEYED = ("awards", "remaining")


def rows_in_turn_order(rows: list[dict], rules: Ruleset | None) -> list[dict]:
    """Timeline rows (:func:`engine.timeline.timeline`) with their scores, points and pips (and a hand end's
    awards and pips left) in turn order (:func:`side_order`), for the tables of the CLI, the record report and
    the review pages; the rows are changed in place and returned."""
    order = key_order(rules)
    if not order:
        return rows
    for row in rows:
        for key in _SIDE_KEYED:
            if isinstance(row.get(key), dict):
                row[key] = in_turn_order(row[key], order)
        end = row.get("hand_end")
        if isinstance(end, dict):
            for key in _END_KEYED:
                if isinstance(end.get(key), dict):
                    end[key] = in_turn_order(end[key], order)
    return rows


def _tile_item(a: int, b: int, cx: float, cy: float, d: tuple[int, int], arm: str) -> dict:
    """A tile centred at (cx, cy) laid along direction d (doubles crosswise); a is the inner half."""
    double = a == b
    horizontal = d[0] != 0
    if double:  # crosswise: one unit along the arm, two across it
        w, h = (1, 2) if horizontal else (2, 1)
        px, py = (0, 0.5) if horizontal else (0.5, 0)
        halves = [[cx - px, cy - py, a], [cx + px, cy + py, b]]
    else:
        w, h = (2, 1) if horizontal else (1, 2)
        halves = [[cx - d[0] * 0.5, cy - d[1] * 0.5, a], [cx + d[0] * 0.5, cy + d[1] * 0.5, b]]
    return {"x": cx - w / 2, "y": cy - h / 2, "w": w, "h": h, "halves": halves, "tile": [a, b],
            "key": f"{max(a, b)}-{min(a, b)}", "arm": arm, "double": double}


def layout_geometry(layout: Layout) -> dict:
    """Tiles and open ends in half-tile units (a tile is 2 x 1), lead at the origin.

    Returns ``{"tiles": [...], "ends": [...], "box": [x0, y0, x1, y1]}``: each tile with its
    rectangle, its two halves (centre and pips) and its arm; each open end with the point
    just past it and its value.
    """
    tiles: list[dict] = []
    ends: list[dict] = []
    if layout.lead is None:
        return {"tiles": [], "ends": [], "box": [-2, -2, 2, 2]}
    lead = layout.lead
    if lead.is_double:
        tiles.append(_tile_item(lead.a, lead.b, 0, 0, (1, 0), "lead"))
        starts = {"W": (-0.5, 0.0), "E": (0.5, 0.0)}
    else:
        tiles.append({**_tile_item(lead.a, lead.b, 0, 0, (1, 0), "lead")})
        starts = {"W": (-1.0, 0.0), "E": (1.0, 0.0)}
    centres: dict[str, list[tuple[float, float]]] = {}
    dirs: dict[str, tuple[int, int]] = dict(_DIRS)
    open_ends = layout.open_ends()

    def walk(name: str, start: tuple[float, float], d: tuple[int, int]) -> None:
        x, y = start
        centres[name] = []
        for t in layout.arms[name].tiles:
            step = 1 if t.is_double else 2
            cx, cy = x + d[0] * step / 2, y + d[1] * step / 2
            tiles.append(_tile_item(t.a, t.b, cx, cy, d, name))
            centres[name].append((cx, cy))
            x, y = x + d[0] * step, y + d[1] * step
        if name in open_ends:
            ends.append({"arm": name, "value": open_ends[name], "x": x + d[0] * 0.6, "y": y + d[1] * 0.6})

    for name in ("W", "E"):
        walk(name, starts[name], _DIRS[name])
    for k, sp in enumerate(layout.spinners):
        suffix = "" if k == 0 else str(k + 1)
        if sp.arm is None:
            cx, cy, line = 0.0, 0.0, (1, 0)
        else:
            cx, cy = centres[sp.arm][sp.position]
            line = dirs[sp.arm]
        perp = [(0, -1), (0, 1)] if line[0] != 0 else [(-1, 0), (1, 0)]
        for side, d in zip(("N", "S"), perp):
            name = side + suffix
            if name in layout.arms:
                dirs[name] = d
                walk(name, (cx + d[0], cy + d[1]), d)
    xs = [t["x"] for t in tiles] + [t["x"] + t["w"] for t in tiles] + [e["x"] for e in ends]
    ys = [t["y"] for t in tiles] + [t["y"] + t["h"] for t in tiles] + [e["y"] for e in ends]
    return {"tiles": tiles, "ends": ends, "box": [min(xs) - 1, min(ys) - 1, max(xs) + 1, max(ys) + 1]}


def play_view(out, players: dict[str, str], side_of, dismissed: frozenset = frozenset(),  # noqa: ANN001
              settled: frozenset = frozenset()) -> dict:
    """The last play (or pass/draw/penalty, hand end) for the overlay: who, what, points, flags.

    ``dismissed``: (event index, flag kind) pairs whose alert the umpire dismissed: such a flag is
    sent with ``dismissed: true`` (the overlay shows no accusation the umpire has rejected);
    ``settled``: those whose alert the umpire confirmed or that was resolved: ``settled: true``
    (the overlay's banner is for flags still waiting for the umpire).
    """
    ev = out.event
    seat = getattr(ev, "seat", None)
    view = {"index": out.index, "type": ev.type, "text": format_event(ev), "seat": seat,
            "player": players.get(seat, seat) if seat else None, "side": side_of(seat) if seat else None,
            "points": dict(out.points),
            "flags": [{"kind": f.kind, "message": f.message, "dismissed": (out.index, f.kind) in dismissed,
                       "settled": (out.index, f.kind) in settled, "notice": f.notice} for f in out.flags]}
    if ev.type == "draw":  # helper-89: "Bob (S) drew" for a draw of 3 tiles
        view["count"] = ev.count
    if ev.type == "hand_end":  # the overlay words it; the text carries the reason and the read's stamps
        view["kind"], view["winner"] = ev.kind, ev.winner
        view["winner_player"] = players.get(ev.winner, ev.winner) if ev.winner else None
    if out.placement is not None:
        view["tile"] = [out.placement.tile.a, out.placement.tile.b]
        view["end"] = out.placement.end
    if getattr(ev, "confidence", None) is not None:
        view["confidence"] = ev.confidence
    if ev.type == "penalty":
        view["penalty"] = ev.name
    if out.result is not None and any(out.result.awards.values()):
        # the hand's end-of-hand award, included in ``points``: the overlay says it apart from the play's
        # own (helper-118: "played 4-4 +3 · domino" for a play worth 2 and a domino worth 1)
        view["awards"] = {k: v for k, v in out.result.awards.items() if v}
    return view


def hand_view(hs: HandState, players: dict[str, str], dismissed: frozenset = frozenset(),
              settled: frozenset = frozenset()) -> dict:
    """The current hand: layout geometry, turn, tiles left, points, result, last play.

    ``dismissed``: (event index, flag kind) pairs whose alert the umpire dismissed: their tiles are
    not marked flagged; ``settled``: those confirmed or resolved (:func:`play_view`).
    """
    geo = layout_geometry(hs.layout)
    flagged = {o.placement.tile.key for o in hs.outcomes
               if o.placement is not None and any(f.kind == "mismatched_end" and (o.index, f.kind) not in dismissed
                                                  for f in o.flags)}
    for t in geo["tiles"]:
        t["flagged"] = tuple(sorted(t["tile"], reverse=True)) in flagged
    plays = [o for o in hs.outcomes if o.event.type in ("play", "pass", "draw", "penalty", "take_back", "hand_end")]
    res = hs.result
    return {
        "status": "over" if res else "awaiting_reveal" if hs.pending_end else "in_progress",
        "turn": hs.turn,
        "layout": geo,
        "open_ends": hs.layout.open_ends(),
        "ends_total": hs.layout.ends_count(),
        "counts": dict(hs.counts),
        "boneyard": hs.boneyard,
        # a camera's hand (deal unseen) counts the boneyard only from the draws it saw: not for the screen
        "boneyard_known": hs.counts_known,
        "points": dict(hs.scores),
        "last_play": play_view(plays[-1], players, hs.side, dismissed, settled) if plays else None,
        "result": None if res is None else {
            "kind": res.kind, "winner": res.winner_seat, "side": res.winner_side, "awards": dict(res.awards),
            "remaining": dict(res.remaining), "capicua": res.capicua, "note": res.note},
    }


# ---- what the public sees of a hand in play ----------------------------------------------------
# A scorer's tablet or a replayed record lists the tiles dealt, and may list those drawn: while the hand is
# played they are the players' secret (helper-174: anyone on the venue network read both hands mid-hand
# through the feed, the hand API, the record exports and the review page). Every output path that a
# caller without the token reads goes through these functions; the umpire's token sees everything, and
# everyone sees everything once the hand is over (the review).

#: Flags judged from the tiles a seat holds (dealt or drawn), whose wording or mere presence tells what is in
#: a hidden hand: "N passed holding a legal play", "N played 5-3, which N does not hold (N holds 6-6 4-1 ...)",
#: "N holds 5 doubles", "N drew on after 4-1, which could be played"; and "N passed with 3 tiles left to draw",
#: given only to a seat holding no play (one holding a play gets ``pass_with_play``), so that its presence or
#: absence would tell which (helper-185). Kept from the public while the hand is in play (the umpire's alerts
#: channel has them at once).
HAND_FLAGS = frozenset({"tile_not_in_hand", "too_many_doubles", "pass_with_play", "draw_with_play",
                        "pass_before_drawing"})

#: How a deal whose tiles are hidden reads in a feed's ``text`` and the review's timeline.
HIDDEN_DEAL = "deal (the tiles are hidden until the hand is over)"


def in_play(status: str | None, game_over: bool, match_over: bool) -> bool:
    """Whether a hand's tiles are still hidden: it is being played (``status`` ``in_progress``: not over,
    nor ended and awaiting the reveals, when the tiles are turned up), and neither its game nor its match
    ended meanwhile (a target reached during play cuts it short)."""
    return status == "in_progress" and not game_over and not match_over


def state_in_play(state: dict) -> bool:
    """:func:`in_play` for the hand of a table state (``TableRuntime.state``: the match's last hand)."""
    hand = state.get("hand") or {}
    return in_play(hand.get("status"), bool((state.get("game") or {}).get("ended_by")),
                   bool((state.get("match") or {}).get("over")))


def record_hand_in_play(record: MatchRecord) -> int | None:
    """The number (over the match) of the record's hand in play, :func:`in_play`; None when none is.
    Only the last hand can be: a later hand began after any other."""
    if not record.hands:
        return None
    last = record.hands[-1]
    game = next((g for g in record.games if g.number == last.game), None)
    return len(record.hands) if in_play(last.status, bool(game and game.ended_by), record.over) else None


def hide_event(ev: object) -> object:
    """``ev`` as the public sees it while its hand is in play: a deal without its tiles (``hands: {}``), a
    draw without the tiles drawn (its ``count`` stays), a correction to either likewise; any other event
    as it is (plays, passes and reveals are face up on the table)."""
    if isinstance(ev, Correction) and ev.event is not None:
        hidden = hide_event(ev.event)
        return ev if hidden is ev.event else ev.model_copy(update={"event": hidden})
    if isinstance(ev, Deal) and ev.hands:
        return ev.model_copy(update={"hands": {}})
    if isinstance(ev, Draw) and ev.tiles is not None:
        return ev.model_copy(update={"tiles": None})
    return ev


def _hidden_text(ev: object) -> str:
    """The notation line of an event :func:`hide_event` changed. A deal left with no tiles says in words that
    they are hidden until the hand is over (its notation line, ``deal hidden``, is the record's)."""
    inner = ev.event if isinstance(ev, Correction) else ev
    if isinstance(inner, Deal):
        return (f"fix {ev.replaces} " if isinstance(ev, Correction) else "") + HIDDEN_DEAL
    return format_event(ev)


#: a tile in a line of notation, and a deal or draw line: masked in a line that does not read back
_TILE = re.compile(r"\b\d+-\d+\b")
_DEAL_OR_DRAW = re.compile(r"\b(deal|draw)\b")


def hide_text(text: str) -> str:
    """An event's notation line (:func:`engine.notation.format_event`) as :func:`hide_event` shows it. A line
    that does not read back as an event, and is a deal or a draw, has its tiles masked (``?-?``)."""
    try:
        ev = parse_event(text)
    except (NotationError, ValueError):
        return _TILE.sub("?-?", text) if _DEAL_OR_DRAW.search(text) else text
    hidden = hide_event(ev)
    return text if hidden is ev else _hidden_text(hidden)


def public_flags(flags: list) -> list:
    """``flags`` (dicts or :class:`engine.record.FlagInfo`, with a ``kind``) without the :data:`HAND_FLAGS`."""
    return [f for f in flags if (f["kind"] if isinstance(f, dict) else f.kind) not in HAND_FLAGS]


def public_row(row: dict) -> dict:
    """A timeline row (``engine.timeline``) of a hand in play as the public sees it."""
    return {**row, "text": hide_text(row.get("text", "")), "flags": public_flags(row.get("flags") or [])}


def public_state(state: dict) -> dict:
    """A table state (``TableRuntime.state``) as the public sees it: the last play of a hand in play with
    its text hidden (:func:`hide_text`: a draw's tiles) and without :data:`HAND_FLAGS`, and the open alerts
    counted without those (``alerts_open_hidden``: what :func:`public_alerts` leaves out). The tiles left
    per seat (``hand.counts``) are what the public knows of the hands."""
    if not state_in_play(state):
        return state
    out = {**state, "alerts_open": state.get("alerts_open", 0) - state.get("alerts_open_hidden", 0),
           "alerts_open_hidden": 0}
    hand = state["hand"]
    lp = hand.get("last_play")
    if lp:
        out["hand"] = {**hand, "last_play": {**lp, "text": hide_text(lp.get("text", "")),
                                             "flags": public_flags(lp.get("flags") or [])}}
    return out


def public_message(msg: dict) -> dict:
    """An events-channel message (a snapshot too) as the public sees it: its state by :func:`public_state`,
    and an event of the hand in play by :func:`hide_event` (``event``, ``text``, ``row``). What was hidden
    when the message was sent stays hidden in it (a resumed feed replays it so); once the hand is over the
    record, the hand API and the review show it all."""
    data = msg.get("data")
    state = data.get("state") if isinstance(data, dict) else None
    if not isinstance(state, dict) or not state_in_play(state):
        return msg
    out = {**data, "state": public_state(state)}
    if msg.get("kind") == "event" and data.get("hand") == state["hand"].get("number") and data.get("event"):
        ev = hide_event(event_from_dict(data["event"]))
        out["event"] = event_to_dict(ev)
        out["text"] = hide_text(data.get("text") or "")
        if data.get("row"):
            out["row"] = public_row(data["row"])
    return {**msg, "data": out}


def public_record(record: MatchRecord) -> MatchRecord:
    """``record`` as the public sees it: the hand in play (:func:`record_hand_in_play`) with its events
    hidden (:func:`hide_event`) and without :data:`HAND_FLAGS`, and a warning that says so, which the text
    notation keeps (``[Warning "..."]``) and the record's readers show. A record with nothing to hide is
    returned as it is."""
    n = record_hand_in_play(record)
    if n is None:
        return record
    hand = record.hands[n - 1]
    events = [hide_event(ev) for ev in hand.events]
    outcomes = [o.model_copy(update={"flags": public_flags(o.flags)}) for o in hand.outcomes]
    if all(a is b for a, b in zip(events, hand.events)) and outcomes == hand.outcomes:
        return record
    hands = list(record.hands)
    hands[n - 1] = hand.model_copy(update={"events": events, "outcomes": outcomes})
    said = (f"hand {n} was in play when this copy was made: the tiles in the players' hands (the deal, the "
            "tiles drawn) are left out; the umpire's token, or the record once the hand is over, has them")
    # its hand is in play, so no score of it is final: a warning that doubts it (as its words did before kinds)
    return with_warning(record.model_copy(update={"hands": hands}), said, WarningKind(kind="hand_in_play_hidden"))


def public_alerts(alerts: list[dict], match_id: int | None, hand: int | None) -> list[dict]:
    """Alerts as the public sees them (``GET .../alerts``, the review) while hand ``hand`` of match
    ``match_id`` is in play: its :data:`HAND_FLAGS` left out, and the event each names hidden."""
    if hand is None:
        return alerts
    out = []
    for a in alerts:
        if a.get("match") == match_id and a.get("hand") == hand:
            if a.get("kind") in HAND_FLAGS:
                continue
            said = (a.get("details") or {}).get("event")
            if isinstance(said, str):
                a = {**a, "details": {**a["details"], "event": hide_text(said)}}
        out.append(a)
    return out
