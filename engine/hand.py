"""One hand as a fold over its append-only event log.

``replay(ruleset, log, context)`` turns the log into a :class:`HandState`: the layout,
the tiles each seat holds (counts always, the tiles themselves when known), the
points of every event, the flags for the umpire and, once over, the
:class:`HandResult`. Nothing is mutated in place between calls: :class:`Hand` appends
an event and replays, so a :class:`~engine.events.Correction` anywhere in the log
recomputes everything after it.

Rule violations (a mismatched end, passing with a legal play, playing out of turn) are
*flags*, not exceptions: the camera records what happened and the umpire decides.
Events that cannot happen on a real table (a tile twice, an unknown seat or end, a
play after the hand is over) raise :class:`IllegalEvent`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace

from engine.events import (Correction, CorrectionError, Deal, Draw, HandEnd, Pass, Penalty, Play, Reveal, TakeBack,
                           effective)
from engine.layout import Layout, LayoutError, Placement
from engine.ruleset import MAX_POINTS, Ruleset
from engine.scoring import lock_awards, play_points, round_points
from engine.seats import next_seat, partner_of, right_of, seats_for, team_of
from engine.tiles import Tile, TileError, full_set, hand_pips
from engine.words import plural


class IllegalEvent(ValueError):
    """An event that cannot happen on a real table; the message says why.

    ``tile``: the tile (its key) when the refusal is about where that tile is (on the table, in a hand):
    :func:`replay` then names the fix that put it there, if a correction did (helper-199).
    """

    def __init__(self, message: str = "", *, tile: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.tile = tile


#: Flags that say what the rules require next, not a suspected infraction: nothing for the umpire to
#: rule on. Seed 004: a player who plays his last tile and "it is a double or a scoring tile ... must
#: draw from the boneyard" (``must_draw``); seed 001's penalty recorded after the hand's end that names
#: who leads the next one (``next_leader``); seed 001's bonuses, on the event that earns one
#: (``all_pass_bonus``, ``first_tile_unanswered_bonus``: a bare "NS+30" on a play of a game that scores no
#: ends said nothing of why, helper-253). Shown as notes, never raised as umpire alerts.
NOTICE_KINDS = frozenset({"must_draw", "next_leader", "all_pass_bonus", "first_tile_unanswered_bonus"})


@dataclass(frozen=True)
class Flag:
    """Something for the umpire: ``kind`` (mismatched_end, pass_with_play, ...), seat, message."""

    kind: str
    seat: str | None
    message: str
    details: dict = field(default_factory=dict)

    @property
    def notice(self) -> bool:
        """A note of what the rules require next (:data:`NOTICE_KINDS`), not a suspected infraction."""
        return self.kind in NOTICE_KINDS


@dataclass(frozen=True)
class HandResult:
    """How a hand ended and what it awarded at the end (points per side, beyond play points)."""

    kind: str  # domino | locked | time | redeal | penalty | umpire
    winner_seat: str | None
    winner_side: str | None
    awards: dict[str, int]
    remaining: dict[str, int]
    capicua: bool = False
    note: str = ""
    next_leader: str | None = None
    next_required_lead: Tile | None = None


@dataclass(frozen=True)
class PendingEnd:
    """A hand the engine ended but cannot score yet (``HandState.pending_end``): its ``kind`` (``locked``,
    ``domino``, ...), the ``winner`` seat when the end names one (who went out; a lock's is decided by the
    pips left, so None unless its ``end`` line names one), and the ``seats`` (turn order) whose tiles must
    still be shown (seed 000: "all players show remaining tiles")."""

    kind: str
    winner: str | None
    seats: tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    """What one event of the log did: points per side, flags, the open ends after it; ``result`` when it
    ended the hand, ``pending`` when it left the hand ended but waiting for tiles shown (the event that ended
    it so, or a reveal after which seats are still awaited)."""

    index: int
    event: object
    points: dict[str, int]
    flags: list[Flag]
    open_ends: dict[str, int]
    ends_total: int
    placement: Placement | None = None
    result: HandResult | None = None
    pending: PendingEnd | None = None


@dataclass(frozen=True)
class HandContext:
    """What the match tells a hand: who leads, which tile must lead, who is ahead."""

    leader: str | None = None
    required_lead: Tile | None = None  # e.g. [6|6] to open a game
    leading_side: str | None = None
    number: int = 1
    # warnings already given this game, by penalty name (``Penalty.warnings``, seed 003)
    warnings: dict[str, int] = field(default_factory=dict)
    # when the game began (seconds), for a time limit that stops the hand in progress (seed 002);
    # None: the first timed event of this hand
    game_start_t: float | None = None


@dataclass
class HandState:
    """The state of a hand after folding its events (see module docstring)."""

    rules: Ruleset
    context: HandContext
    order: list[str]
    layout: Layout
    counts: dict[str, int]
    known: dict[str, list[Tile] | None]
    boneyard: int
    scores: dict[str, int]
    turn: str | None
    outcomes: list[Outcome] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    result: HandResult | None = None
    pending_end: tuple[str, str | None, str | None] | None = None  # kind, winner seat, locker
    pending_capicua: bool = False  # fix: a kapicua domino that waits for reveals keeps its bonus
    revealed: dict[str, list[Tile]] = field(default_factory=dict)
    plays: list[tuple[int, str, Tile, str | None, bool, int]] = field(default_factory=list)
    passes_in_row: int = 0
    # of those, passes not flagged (no legal play or tile to draw known): seed 001's bonuses are for
    # a team that "does not have a domino to play", not for a pass the umpire may penalise (helper-119)
    forced_passes_in_row: int = 0
    last_player: str | None = None
    leader: str | None = None
    responses: list[str] = field(default_factory=list)  # the first answers to the lead
    exposed_by: dict[tuple[int, int], str] = field(default_factory=dict)  # tiles shown during play -> who showed
    exposed_missed: set[tuple[int, int]] = field(default_factory=set)  # exposed tiles whose first chance went by
    # why the hand's domino scores nothing (seed 004: went out with a scoring tile or a double, nothing to draw)
    domino_void: str | None = None
    # False when draws are not seen (a camera in a draw game: Deal(draws_seen=False)): a seat's
    # tile count is then unknown, so no domino is declared by counting.
    counts_known: bool = True
    # True after a deal written without its tiles though draws are counted (``deal hidden``: the public copy
    # of a hand in play, engine.notation): the tiles were known to the full record and left out of this
    # copy, so no pass is judged from it (helper-185: ``record show`` of the copy flagged
    # pass_before_drawing on a pass the full record flagged pass_with_play, a flag the copy hides)
    hands_hidden: bool = False
    drawn: int = 0  # tiles drawn so far in this hand (Draw events)
    last_t: float | None = None  # time of the previous timed event, for the play clock
    first_t: float | None = None  # time of the first timed event
    warnings: dict[str, int] = field(default_factory=dict)  # warnings given this game so far, by penalty
    # who leads the next hand, named by a penalty that did not end this hand (seed 001, looking at tiles)
    penalty_leader: str | None = None
    # the same, named by a penalty called after the hand's end (:meth:`next_lead`; helper-119)
    late_penalty_leader: str | None = None
    doubles_redeal: bool = False  # the deal forced a redeal: the rest of the deal may still be written
    time_cut: bool = False  # the hand was stopped by the game's time limit (hand_in_progress_finishes = false)
    turns_before: list = field(default_factory=list)  # whose turn it was before each play in ``plays``
    at: int = -1  # the log slot of the event being applied
    # tile -> the slot of the event that put it where it is now (laid, dealt, drawn, taken back, exposed, revealed
    # at the end): a refusal about where a tile is names the fix in force at that slot, and only then (helper-199)
    placed_by: dict[tuple[int, int], int] = field(default_factory=dict)
    # tiles a take-back returned to a seat's hand and not laid again -> that seat: known held even when the
    # seat's hand is not (a camera's or a hidden deal), so a draw of one, or a play or reveal of it by
    # another seat, is refused as for a tile of a known hand (helper-199: "N take_back 6-6" then a draw of 6-6)
    taken_back: dict[tuple[int, int], str] = field(default_factory=dict)

    def side(self, seat: str) -> str:
        return team_of(seat, self.rules.partnership)

    @property
    def sides(self) -> list[str]:
        """The scoring sides in turn order (N, E, S, W clockwise; a partnership's NS, EW), the order of the
        hand's scores and awards and so of a game's scores and the standings' ties (helper-215: name order,
        E N S W, put E first in nova-block's record and standings)."""
        return list(dict.fromkeys(self.side(s) for s in self.order))

    @property
    def over(self) -> bool:
        return self.result is not None or self.pending_end is not None

    def next_lead(self) -> tuple[str | None, Tile | None]:
        """Who leads the next hand and the tile it must open with (None: by lot / any tile; both None
        while the hand is not over): the result's, unless a penalty called after the hand's end named
        the leader (seed 001, looking at tiles: "The player to the right of the person at fault starts
        the next hand", whenever the umpire records it)."""
        if self.result is None:
            return None, None
        if self.late_penalty_leader is not None:
            return self.late_penalty_leader, None
        return self.result.next_leader, self.result.next_required_lead

    def awaiting_reveal(self) -> list[str]:
        """The seats (in turn order) whose tiles the pending end of the hand still needs shown: not
        revealed, not dealt in the log, and not known to hold none (the seat that went out; with draws
        unseen a count of 0 is not known: helper-89, S's blocking last tile listed nobody)."""
        out = self.pending_end[1] if self.pending_end and self.pending_end[0] == "domino" else None
        return [s for s in self.order if s != out and s not in self.revealed and self.known[s] is None
                and not (self.counts_known and self.counts[s] == 0)]

    def drawable(self) -> int:
        """Tiles a player may still draw (the rule set's reserve stays in the boneyard)."""
        return max(0, self.boneyard - self.rules.reserve())

    def legal_ends(self, seat: str) -> dict[str, list[Tile]]:
        """For a seat whose hand is known: open end -> its tiles that may be played there.

        Seed 004 (``no_domino_with_scoring_or_double``): a last tile that would score or is a
        double is no legal play once nothing can be drawn ("If the boneyard is already
        exhausted at the time the player would play his last piece, he must skip his turn").
        """
        hand = self.known.get(seat) or []
        # fix (tests/test_engine_seeds.py, muggins skip turn): a pass there was flagged pass_with_play
        last_restricted = (
            self.rules.no_domino_with_scoring_or_double and len(hand) == 1
            and self.drawable() == 0 and self.layout.lead is not None
        )
        out: dict[str, list[Tile]] = {}
        for tile in hand:
            for end in self.layout.can_play(tile):
                if last_restricted and (tile.is_double or self._would_score(tile, end)):
                    continue
                out.setdefault(end, []).append(tile)
        return out

    def _would_score(self, tile: Tile, end: str) -> bool:
        """Whether playing ``tile`` on ``end`` would score (on a copy of the layout)."""
        if not self.rules.score_ends:
            return False
        trial = copy.deepcopy(self.layout)
        trial.place(tile, end)
        return play_points(trial.ends_count(), self.rules.end_score_scale) > 0


def new_state(rules: Ruleset, context: HandContext) -> HandState:
    order = seats_for(rules.players, rules.play_direction)
    total = len(full_set(rules.set_max))
    layout = Layout(
        set_max=rules.set_max,
        spinner=rules.spinner,
        spinner_arms_open=rules.spinner_arms_open,
        double_at_end_counts=rules.double_at_end_counts,
        lone_spinner_counts=rules.lone_spinner_counts,
    )
    st = HandState(
        rules=rules,
        context=context,
        order=order,
        layout=layout,
        counts={s: rules.hand_size for s in order},
        known={s: None for s in order},
        boneyard=total - rules.hand_size * rules.players if rules.boneyard else 0,
        scores={},
        turn=context.leader,
        leader=context.leader,
        warnings=dict(context.warnings),
    )
    st.scores = {side: 0 for side in st.sides}
    return st


def replay(rules: Ruleset, log: list, context: HandContext | None = None) -> HandState:
    """Fold the log (corrections applied) into a :class:`HandState`.

    Raises:
        IllegalEvent: an event that cannot happen (the message names the event number).
    """
    st = new_state(rules, context or HandContext())
    try:
        events = effective(log)
    except CorrectionError as exc:
        raise IllegalEvent(str(exc)) from None
    # the correction in force at a slot: an event it put there is named with it (helper-98: the error
    # named slot #18 only, not the fix on line #22 that put the tile there)
    fixed_by = {ev.replaces: i for i, ev in enumerate(log) if isinstance(ev, Correction)}
    for index, event in events:
        try:
            apply(st, index, event)
        except (IllegalEvent, LayoutError, TileError) as exc:
            how = f", as fixed by #{fixed_by[index]}" if index in fixed_by else ""
            # the fix is named only when the refusal is about where a tile is and a fix put it there, as it
            # still is (helper-199: "the hand is over (put at #2 by fix #3)", and after the tile was taken back)
            put = st.placed_by.get(exc.tile) if getattr(exc, "tile", None) is not None else None
            also = f" (put at #{put} by fix #{fixed_by[put]})" if put in fixed_by else ""
            raise IllegalEvent(f"event #{index} ({getattr(event, 'type', '?')}{how}): {exc}{also}") from None
    return st


# ---- applying one event -----------------------------------------------------------

def apply(st: HandState, index: int, ev: object) -> Outcome:
    """Apply one event to ``st`` in place and return its outcome (also appended to ``st.outcomes``)."""
    for what in ("seat", "winner"):  # a hand end names its winner (or locker) as a play names its seat
        seat = getattr(ev, what, None)
        if seat is not None and seat not in st.order:
            raise IllegalEvent(f"{'seat' if what == 'seat' else 'the winner'} {seat!r} is not playing "
                               f"(seats: {', '.join(st.order)})")
    points: dict[str, int] = {}
    flags: list[Flag] = []
    before = st.result  # the outcome carries the result this event sets (or replaces)
    waited = _pending(st)  # ... and the pending end it sets or changes (helper-221: rows said nothing of it)
    t = getattr(ev, "t", None)
    if t is not None and st.first_t is None:
        st.first_t = t
    st.at = index
    late = _past_time_limit(st, t)
    if late and not st.over:
        _stop_at_time_limit(st, ev, points, flags)
    # after the time cut, table play is not counted (reveals and penalties still are)
    ignored = st.time_cut and (
        isinstance(ev, (Deal, Play, Pass, Draw, TakeBack)) or (isinstance(ev, HandEnd) and ev.kind == "time"))
    # fix (tests/test_engine_seeds.py, seed 001 split deal): a deal written one line per seat goes on
    # after a line with too many doubles forced the redeal
    if st.over and not ignored and not isinstance(ev, (Reveal, Penalty, HandEnd)) and not (
            isinstance(ev, Deal) and st.doubles_redeal):
        how = st.result.kind if st.result is not None else f"{st.pending_end[0]}, awaiting the hands shown"
        raise IllegalEvent(f"the hand is over ({how})")  # helper-115: a redeal's "over" read as a bug
    handler = {
        Deal: _deal, Play: _play, Pass: _pass, Draw: _draw, TakeBack: _take_back,
        Penalty: _penalty, Reveal: _reveal, HandEnd: _hand_end,
    }.get(type(ev))
    if handler is None:
        raise IllegalEvent(f"not a hand event: {ev!r}")
    if ignored:
        placement = None
        if not any(f.kind == "time_limit" for f in flags):
            when = f"at {t:g} s, " if t is not None else ""
            flags.append(Flag("after_time_limit", seat, f"{ev.type} {when}after the time limit: not counted"))
    else:
        placement = handler(st, ev, points, flags)
    if getattr(ev, "t", None) is not None:
        st.last_t = ev.t
    for side, pts in points.items():
        st.scores[side] = st.scores.get(side, 0) + pts
    st.flags.extend(flags)
    pending = _pending(st)
    out = Outcome(
        index, ev, {k: v for k, v in points.items() if v}, flags, st.layout.open_ends(),
        st.layout.ends_count(), placement, st.result if st.result is not None and st.result is not before else None,
        pending if pending != waited else None,
    )
    st.outcomes.append(out)
    return out


def _pending(st: HandState) -> PendingEnd | None:
    """The hand's end waiting for tiles shown, with the seats it waits for now; None when there is none."""
    if st.pending_end is None:
        return None
    return PendingEnd(st.pending_end[0], st.pending_end[1], tuple(st.awaiting_reveal()))


def _time_limit_at(st: HandState) -> float | None:
    """When a time limit stops the hand in progress (seed 002), in event seconds; None: no such limit."""
    rules = st.rules
    if rules.time_limit_min is None or rules.hand_in_progress_finishes:
        return None
    start = st.context.game_start_t if st.context.game_start_t is not None else st.first_t
    return None if start is None else start + rules.time_limit_min * 60


def _past_time_limit(st: HandState, t: float | None) -> bool:
    limit_at = _time_limit_at(st)
    return t is not None and limit_at is not None and t > limit_at


def _stop_at_time_limit(st: HandState, ev: object, points: dict, flags: list[Flag]) -> None:
    """Seed 002: "If the game does not naturally end by that point, then the player with the least
    amount of points on their remaining dominoes wins": the hand ends with the tiles held at the limit;
    the first event after it (and every later play, pass or draw) is not counted."""
    limit_at = _time_limit_at(st)
    st.time_cut = True
    flags.append(Flag(
        "time_limit", None,
        f"the {st.rules.time_limit_min:g}-minute limit passed at {limit_at:g} s: the hand ends with the tiles "
        f"held then; this event at {ev.t:g} s and later plays are not counted",  # type: ignore[attr-defined]
        {"limit_t": limit_at},
    ))
    _finish(st, "time", None, st.last_player, points)


def _tiles(n: int) -> str:
    """``"1 tile"``, ``"3 tiles"``."""
    return plural(n, "tile")


def _check_turn(st: HandState, seat: str, flags: list[Flag], act: str = "played") -> None:
    if st.turn is not None and seat != st.turn:
        flags.append(Flag("out_of_turn", seat, f"{seat} {act} out of turn ({st.turn} was to play)",
                          {"expected": st.turn}))


def _deal(st: HandState, ev: Deal, points: dict, flags: list[Flag]) -> None:
    if st.plays:
        raise IllegalEvent("a deal after the first play")
    # tiles dealt by earlier deal lines of this hand (one line per seat, as in examples/)
    seen: set[tuple[int, int]] = {t.key for hand in st.known.values() if hand for t in hand}
    for seat, tiles in ev.hands.items():
        if seat not in st.order:
            raise IllegalEvent(f"seat {seat!r} is not playing")
        if st.known[seat] is not None:
            raise IllegalEvent(f"{seat} was already dealt ({' '.join(map(str, st.known[seat]))})")
        for t in tiles:
            Tile.parse(t, st.rules.set_max)
            if t.key in seen:
                raise IllegalEvent(f"tile {t} dealt twice", tile=t.key)
            seen.add(t.key)
        if len(tiles) != st.rules.hand_size:
            raise IllegalEvent(f"{seat} was dealt {_tiles(len(tiles))}; the hand size is {st.rules.hand_size}")
        st.known[seat] = list(tiles)
        st.placed_by.update((t.key, st.at) for t in tiles)
    if not ev.draws_seen and st.rules.boneyard:
        st.counts_known = False
    if not ev.hands and ev.draws_seen:
        st.hands_hidden = True
    limit = st.rules.redeal_doubles
    for seat, tiles in ev.hands.items():
        doubles = sum(t.is_double for t in tiles)
        if limit is not None and doubles >= limit:
            flags.append(Flag("too_many_doubles", seat, f"{seat} holds {doubles} doubles", {"doubles": doubles}))
            if st.rules.redeal_doubles_mode == "mandatory" and st.result is None:
                st.doubles_redeal = True
                _set_result(st, HandResult("redeal", None, None, {}, {}, note=f"{seat} holds {doubles} doubles",
                                           next_leader=st.leader, next_required_lead=st.context.required_lead))
    if st.result is None:
        _resolve_opening(st, flags)


def _resolve_opening(st: HandState, flags: list[Flag]) -> None:
    """With every hand known, find who must lead (the holder of the required tile)."""
    req = st.context.required_lead
    if req is None or any(st.known[s] is None for s in st.order):
        return
    holders = {t.key: s for s, hand in st.known.items() for t in hand or []}
    if req.key not in holders and st.rules.first_hand_opener == "highest_double_descending":
        # seed 000 (singles): "go to the next lowest double until one is found"
        doubles = sorted((k for k in holders if k[0] == k[1]), reverse=True)
        if not doubles:
            _set_result(st, HandResult("redeal", None, None, {}, {}, note="no double was dealt",
                                       next_leader=None, next_required_lead=req))
            return
        req = Tile(*doubles[0])
    if req.key in holders:
        st.leader = st.turn = holders[req.key]
        st.context = replace(st.context, leader=st.leader, required_lead=req)


def _play(st: HandState, ev: Play, points: dict, flags: list[Flag]) -> Placement:
    rules = st.rules
    tile = Tile.parse(ev.tile, rules.set_max)
    seat = ev.seat
    for other, hand in st.known.items():
        if other != seat and hand and any(t.key == tile.key for t in hand):
            raise IllegalEvent(f"{tile} is in {other}'s hand, not {seat}'s", tile=tile.key)
    held = _known_holder(st, tile.key)
    if held is not None and held[0] != seat:
        other, how = held
        raise IllegalEvent(f"{tile} is in {other}'s hand, not {seat}'s ({other} {_HOW_IT[how]} at "
                           f"#{st.placed_by[tile.key]})", tile=tile.key)
    if tile.key in st.layout.on_table:  # the layout's refusal, with the tile named for the fix that laid it
        raise IllegalEvent(f"tile {tile} is already on the table", tile=tile.key)
    turn_before = st.turn  # a take-back gives the turn back to whoever had it
    _check_turn(st, seat, flags)
    is_lead = st.layout.lead is None
    before = st.layout.open_ends()
    if is_lead:
        _check_lead(st, seat, tile, flags)
    else:
        _check_exposed_first(st, seat, tile, flags)
    placement = st.layout.place(tile, ev.end, ev.oriented)
    st.placed_by[tile.key] = st.at
    st.taken_back.pop(tile.key, None)
    if not placement.matched:
        flags.append(Flag(
            "mismatched_end", seat,
            f"{seat} played {tile} on {placement.end} showing {placement.end_value}: the ends do not match",
            {"end": placement.end, "end_value": placement.end_value, "tile": [placement.tile.a, placement.tile.b]},
        ))
    if placement.closed_end:
        flags.append(Flag("closed_end", seat, f"{seat} played on {placement.end} before the spinner's sides were covered"))
    pts = 0
    # an illegal play (mismatched, or on an arm not open yet) scores nothing until the umpire rules
    if placement.matched and not placement.closed_end and rules.score_ends:
        pts = play_points(st.layout.ends_count(), rules.end_score_scale)
    side = st.side(seat)
    points[side] = pts
    st.plays.append((len(st.outcomes), seat, placement.tile, placement.end if not is_lead else None, True, pts))
    st.turns_before.append(turn_before)
    _remove_from_hand(st, seat, tile, flags)
    _play_bonuses(st, seat, points, flags)
    st.passes_in_row = st.forced_passes_in_row = 0
    st.last_player = seat
    if st.leader is None:
        st.leader = seat
    again = rules.extra_turn == "scoring_or_double" and (pts > 0 or tile.is_double)
    st.turn = seat if again else next_seat(st.order, seat)
    _check_end_after_play(st, seat, placement, pts, before, flags, points)
    _check_play_clock(st, ev, flags)
    return placement


def _exposed_playable(st: HandState, seat: str) -> list[Tile]:
    """The tiles ``seat`` exposed during the hand, still in hand, that fit an open end now."""
    held = [Tile(*k) for k, s in st.exposed_by.items() if s == seat and k not in st.layout.on_table]
    return [t for t in held if st.layout.can_play(t)]


def _check_exposed_first(st: HandState, seat: str, tile: Tile, flags: list[Flag]) -> None:
    """Seed 001: an exposed tile "must remain face-up on the table and play at first chance"; seed 003:
    "played at the first opp. possible" (``exposed_tile_play_first``)."""
    if not st.rules.exposed_tile_play_first:
        return
    waiting = [t for t in _exposed_playable(st, seat) if t.key != tile.key and t.key not in st.exposed_missed]
    if waiting:  # flagged once: the first chance is gone
        st.exposed_missed.update(t.key for t in waiting)
        shown = " ".join(map(str, waiting))
        flags.append(Flag("exposed_tile_not_played", seat, f"{seat} played {tile} while the exposed {shown} could be "
                          "played: it must be played at the first chance", {"exposed": [[t.a, t.b] for t in waiting]}))


def _check_play_clock(st: HandState, ev: Play, flags: list[Flag]) -> None:
    """Seed 003: "Each play must be made within (20 seconds) and to lock the game within (40 seconds)"."""
    rules = st.rules
    limit = rules.play_time_limit_s
    # the play locked the line: decided or still waiting for the hands shown (helper-122: hands unseen, a lock
    # 30 s after the play before was held to 20 s)
    locked = (st.result is not None and st.result.kind == "locked") or (
        st.pending_end is not None and st.pending_end[0] == "locked")
    if locked and rules.locking_play_time_limit_s:
        limit = rules.locking_play_time_limit_s
    if limit and ev.t is not None and st.last_t is not None and ev.t - st.last_t > limit:
        flags.append(Flag("slow_play", ev.seat, f"{ev.seat} took {ev.t - st.last_t:.0f} s (limit {limit} s)"))


def _check_lead(st: HandState, seat: str, tile: Tile, flags: list[Flag]) -> None:
    req = st.context.required_lead
    if req is None:
        return
    ok = tile.key == req.key
    if not ok and st.rules.first_hand_opener == "highest_double_descending" and any(
        st.known[s] is None for s in st.order
    ):
        ok = tile.is_double  # hands unknown: any double may be the highest one dealt
    if not ok:
        flags.append(Flag("wrong_start", seat, f"the hand must open with {req}, {seat} led {tile}"))


def _holds(seat: str, hand: list[Tile]) -> str:
    """What the record has ``seat`` holding now, said in a ``tile_not_in_hand`` flag: ``"S holds 5-5 6-4"``.
    The tiles left after its plays, with those drawn, not the dealt hand (helper-215: the flag said "not in S's
    dealt hand (5-5 6-4)" of the two tiles S still held)."""
    return f"{seat} holds {' '.join(map(str, hand))}" if hand else f"{seat} holds no tile"


def _remove_from_hand(st: HandState, seat: str, tile: Tile, flags: list[Flag]) -> None:
    st.counts[seat] -= 1
    hand = st.known[seat]
    if hand is not None:
        match = [t for t in hand if t.key == tile.key]
        if match:
            hand.remove(match[0])
        else:  # a misread or a wrong deal line (a tile dealt to another seat is refused in _play)
            flags.append(Flag("tile_not_in_hand", seat, f"{seat} played {tile}, which {seat} does not hold"
                              f" ({_holds(seat, hand)})", {"tile": [tile.a, tile.b]}))
            st.known[seat] = None  # the hand we thought we knew was wrong: stop trusting it
    if st.counts[seat] < 0 and st.counts_known:
        raise IllegalEvent(f"{seat} has no tiles left to play")


def _play_bonuses(st: HandState, seat: str, points: dict, flags: list[Flag]) -> None:
    """Seed 001 bonuses: everyone else passed and the player plays again; the lead unanswered. Each one
    earned adds its points to ``points`` and its notice to ``flags``."""
    rules = st.rules
    side = st.side(seat)
    if rules.all_pass_bonus and st.forced_passes_in_row == len(st.order) - 1 and st.last_player == seat:
        points[side] = points.get(side, 0) + rules.all_pass_bonus
        i = st.order.index(seat)
        others = st.order[i + 1:] + st.order[:i]  # in turn order after the player
        passed = others[0] if len(others) == 1 else f"{', '.join(others[:-1])} and {others[-1]}"
        flags.append(Flag("all_pass_bonus", seat, f"{passed} passed and {seat} plays again: {side} "
                          f"+{rules.all_pass_bonus}", {"bonus": rules.all_pass_bonus}))
    if len(st.plays) >= 2:
        _note_response(st, "play", points, flags)


def _note_response(st: HandState, kind: str, points: dict, flags: list[Flag]) -> None:
    """Seed 001: 30 when the "opposing team does not have a domino to play once the first domino
    of the hand is played": both opponents pass on the first round while the leader's partner
    plays between them ("two consecutive passes ... disqualifies"). Heads-up: the one opponent passes.
    ``kind``: ``play``, ``pass`` (forced), or ``false_pass`` (flagged: the passer had a play; no bonus).
    The bonus earned adds its notice to ``flags``.
    """
    bonus = st.rules.first_tile_unanswered_bonus
    need = ["pass", "play", "pass"] if len(st.order) == 4 else ["pass"]
    if not bonus or st.leader is None or len(st.responses) >= len(need):
        return
    st.responses.append(kind)
    if st.responses == need:
        side = st.side(st.leader)
        points[side] = points.get(side, 0) + bonus
        flags.append(Flag("first_tile_unanswered_bonus", st.leader, f"no opponent of {st.leader} answered the "
                          f"first tile: {side} +{bonus}", {"bonus": bonus}))


def _check_end_after_play(
    st: HandState, seat: str, placement: Placement, pts: int, before: dict[str, int], flags: list[Flag], points: dict
) -> None:
    tile = placement.tile
    if st.counts_known and st.counts[seat] == 0:
        if st.rules.no_domino_with_scoring_or_double and (pts > 0 or tile.is_double) and st.drawable() > 0:
            # seed 004: "A player cannot 'domino' with a scoring tile or a double" -> he draws
            flags.append(Flag("must_draw", seat, f"{seat} cannot go out with a scoring tile or a double: draw"))
            st.turn = seat
            return
        if st.rules.no_domino_with_scoring_or_double and (pts > 0 or tile.is_double):
            # seed 004, nothing left to draw: "he must skip his turn" -- the play should not have happened.
            # Flagged for the umpire (void it and record the pass); the hand ends, but the domino scores
            # nothing, as an illegal play scores nothing (helper-115: it was awarded in full, 110 points)
            flags.append(Flag("no_domino_with_scoring_or_double", seat,
                              f"{seat} went out with a scoring tile or a double and nothing to draw: "
                              "the seed says he must skip his turn; the domino scores nothing"))
            st.domino_void = "went out with a scoring tile or a double: no points"
        # seed 001: "can be played on either side except a double"; with capicua_ends = different_numbers
        # the two ends must also show different numbers (a 2-0 on ends 2|2 is then no capicua)
        fits = [v for v in before.values() if tile.has(v)]
        capicua = not tile.is_double and len(fits) >= 2 and (
            st.rules.capicua_ends == "either_side" or len(set(fits)) >= 2)
        _finish(st, "domino", seat, seat, points, capicua=capicua)
    elif st.layout.is_locked():
        _finish(st, "locked", None, seat, points)


def _pass(st: HandState, ev: Pass, points: dict, flags: list[Flag]) -> None:
    seat = ev.seat
    _check_turn(st, seat, flags, "passed")
    hand, req = st.known[seat], st.context.required_lead
    flagged = len(flags)
    hidden_infraction = False
    if hand is not None and st.layout.lead is not None and st.legal_ends(seat):
        flags.append(Flag("pass_with_play", seat, f"{seat} passed holding a legal play"))
    elif st.layout.lead is not None and (shown := _exposed_playable(st, seat)):  # its face-up tile fits: seen by all
        flags.append(Flag("pass_with_play", seat, f"{seat} passed with the exposed {' '.join(map(str, shown))} playable"))
    elif hand and st.layout.lead is None and (req is None or any(t.key == req.key for t in hand)):
        # before the lead any tile opens the hand, or the required one (e.g. [6|6]) its holder must lay
        flags.append(Flag("pass_with_play", seat, f"{seat} passed holding a lead"
                          f"{f' ({req})' if req is not None else ''}"))
    elif (st.rules.boneyard and st.rules.draw_rule == "until_playable" and st.drawable() > 0 and st.layout.lead
          and (st.counts_known or st.drawn)):
        # draws unseen (a camera, Deal(draws_seen=False)): the boneyard is known only while the camera
        # follows the draws (vision/boneyard.py); with none recorded its count is the deal's, not the table's
        if hand is None and st.hands_hidden:
            # a hidden deal: the full record flagged this pass pass_with_play (left out of the copy) or
            # pass_before_drawing, as the seat held a play or not, which the copy cannot tell: it names
            # neither. Either is an infraction: the pass is not forced, so the score stays the full record's
            hidden_infraction = True
        else:
            flags.append(Flag("pass_before_drawing", seat, f"{seat} passed with {_tiles(st.drawable())} left to draw"))
    forced = not hidden_infraction and not any(f.kind in ("pass_with_play", "pass_before_drawing")
                                               for f in flags[flagged:])
    if st.plays:
        _note_response(st, "pass" if forced else "false_pass", points, flags)
    st.passes_in_row += 1
    st.forced_passes_in_row += forced
    st.turn = next_seat(st.order, seat)
    # a hidden deal's round of passes is no lock: its copy was made while the hand was in play, so the full
    # record, which knows the hands, saw a play left (a pass holding one)
    if (st.passes_in_row >= len(st.order) and st.layout.lead is not None and not st.hands_hidden
            and _play_left(st) is None):
        _finish(st, "locked", None, st.last_player, points)


def _play_left(st: HandState) -> tuple[str | None, str] | None:
    """The play the table knows of after a round of passes, or None: (the seat holding a legal tile,
    ``"W holds 5-4, which fits the E end"``), or (None, ``"3 tiles can still be drawn"``) in a
    draw-until-playable game whose boneyard is followed. Then the passes were infractions (flagged
    ``pass_with_play`` / ``pass_before_drawing`` for the umpire), not a lock, which is a line no one can
    play on (seed 000: "locked game"; seed 002: "chip out or lock"), and a locked hand is scored at once
    (helper-114: a draw game went on air as locked with 14 tiles to draw). A camera's hands and draws
    are unseen: there a round of passes is a lock, as before."""
    for s in st.order:
        if st.known[s] is not None:
            for end, tiles in st.legal_ends(s).items():
                return s, f"{s} holds {tiles[0]}, which fits the {end} end"
    if (st.rules.boneyard and st.rules.draw_rule == "until_playable" and st.drawable() > 0
            and (st.counts_known or bool(st.drawn))):
        return None, f"{_tiles(st.drawable())} can still be drawn"
    return None


def _draw(st: HandState, ev: Draw, points: dict, flags: list[Flag]) -> None:
    seat = ev.seat
    if not st.rules.boneyard:
        raise IllegalEvent(f"rule set {st.rules.name} has no boneyard")
    if ev.count > st.boneyard:
        raise IllegalEvent(f"{seat} draws {ev.count} but the boneyard holds {st.boneyard}")
    if ev.tiles is not None and len(ev.tiles) != ev.count:
        raise IllegalEvent(f"draw of {ev.count} lists {_tiles(len(ev.tiles))}")
    if st.rules.draw_rule == "until_playable" and st.layout.lead is not None:
        _check_turn(st, seat, flags, "drew")  # one draws when unable to play: on one's own turn (helper-89)
    if ev.count > st.drawable():
        flags.append(Flag("boneyard_reserve", seat, f"{seat} drew from the {st.rules.reserve()} tiles that stay"))
    if st.known[seat] is not None and st.layout.lead is not None and st.legal_ends(seat):
        flags.append(Flag("draw_with_play", seat, f"{seat} drew holding a legal play"))
    elif st.rules.draw_rule == "until_playable" and st.layout.lead is not None and ev.tiles:
        # several draws written as one: "draw tiles from the boneyard until he draws a playable tile" (seed
        # 004; seed 000 alike), so a tile that fits, drawn before the last, was a legal play held
        # (helper-115: "S draw 1-0 2-0" on a 1 end said nothing; two draw events flag the second)
        fit = next((t for t in ev.tiles[:-1] if st.layout.can_play(t)), None)
        if fit is not None:
            flags.append(Flag("draw_with_play", seat, f"{seat} drew on after {fit}, which could be played"))
    seen: set[tuple[int, int]] = set()
    for t in ev.tiles or []:  # checked whether or not the seat's hand is known (helper-89: "9-9", "6-6 6-6")
        Tile.parse(t, st.rules.set_max)
        if t.key in seen:
            raise IllegalEvent(f"{t} drawn twice in one draw")
        if (where := _where_known(st, t.key)) is not None:  # though the hand itself may be unknown (helper-199)
            raise IllegalEvent(f"{t} drawn but it is {where}", tile=t.key)
        seen.add(t.key)
    st.placed_by.update((t.key, st.at) for t in ev.tiles or [])
    if ev.tiles is not None and st.known[seat] is not None:
        st.known[seat].extend(ev.tiles)  # type: ignore[union-attr]
    else:
        st.known[seat] = None
    st.boneyard -= ev.count
    st.drawn += ev.count
    st.counts[seat] += ev.count


#: A camera's play read under this confidence (``Play.confidence``; the camera's own ``uncertain_read`` bound,
#: vision's ``TrackerConfig.uncertain_confidence``) may be a misread of a tile never laid: taken back, it does not
#: bind the tile to that seat's hand (:func:`_known_holder`), so the same tile laid later by another seat is no
#: refusal (helper-220 f_mix: a 6-4 read at 0.08 on W, gone from the next photo, refused S's real 6-4 as N's).
#: A play typed in (no confidence) or read surely binds as before: a real take-back.
UNSURE_READ = 0.5


def _take_back(st: HandState, ev: TakeBack, points: dict, flags: list[Flag]) -> None:
    for i in range(len(st.plays) - 1, -1, -1):
        _, seat, tile, _, _, pts = st.plays[i]
        if seat == ev.seat and tile.key == ev.tile.key:
            break
    else:
        raise IllegalEvent(f"{ev.seat} did not play {ev.tile}")
    # a tile another was laid against is not the player's to take back: without it that tile would
    # hang on an end it does not match (helper-97: reached by swapping two plays' tiles)
    if i == 0 and len(st.plays) > 1:  # every later tile hangs from the lead
        raise IllegalEvent(f"{ev.seat} cannot take back {ev.tile}: it led, and {len(st.plays) - 1} "
                           f"{'tile was' if len(st.plays) == 2 else 'tiles were'} laid after it")
    before = st.layout.empty_like()
    matched = [before.place(t, end, oriented).matched for _, _, t, end, oriented, _ in st.plays]
    lay = st.layout.empty_like()
    for k, (_, seat, t, end, oriented, _) in enumerate(st.plays):
        if k == i:
            continue
        if not lay.place(t, end, oriented).matched and matched[k]:
            raise IllegalEvent(f"{ev.seat} cannot take back {ev.tile}: {seat}'s {t} was laid against it")
    # seed 000: "he/she must take it back before the next player play or he/she will be charged with a
    # bogus play" (helper-119: a late take-back read as a timely one)
    later = next((s for _, s, *_ in st.plays[i + 1:] if s != ev.seat), None)
    removed = st.plays.pop(i)
    turn_before = st.turns_before.pop(i)
    st.layout = lay
    points[st.side(ev.seat)] = -removed[5]
    st.counts[ev.seat] += 1
    if st.known[ev.seat] is not None:
        st.known[ev.seat].append(ev.tile)  # type: ignore[union-attr]
    laid = next((o.event for o in st.outcomes if o.index == st.placed_by.get(ev.tile.key)), None)
    if getattr(laid, "confidence", None) is None or laid.confidence >= UNSURE_READ:  # type: ignore[union-attr]
        st.taken_back[ev.tile.key] = ev.seat  # known held, even where the hand is not (helper-199)
    st.placed_by[ev.tile.key] = st.at
    # the turn goes back to whoever had it: the same seat, or the rightful one after an out-of-turn play
    st.turn = turn_before if i == len(st.plays) else ev.seat
    flags.append(Flag("take_back", ev.seat, f"{ev.seat} took back {ev.tile}"))
    if later is not None:
        flags.append(Flag("late_take_back", ev.seat, f"{ev.seat} took back {ev.tile} after {later} had played",
                          {"tile": [ev.tile.a, ev.tile.b], "after": later}))


#: Results a hand reaches by play (a penalty that ends the hand can still fold it afterwards), as said.
_RESULT_NAMES = {"domino": "domino", "locked": "lock", "time": "time call"}
_PLAYED_OUT = tuple(_RESULT_NAMES)


#: The most points one penalty may give or take (the presets' penalties are -50..30 and their game
#: targets 61-200): a typo of a few digits would otherwise end the match. A rule set's own are bounded alike.
MAX_PENALTY_POINTS = MAX_POINTS


def _penalty(st: HandState, ev: Penalty, points: dict, flags: list[Flag]) -> None:
    rules = st.rules
    if ev.name is None and ev.points is None:  # as the service and the notation ask (opponents' points alone: no)
        raise IllegalEvent(f"a penalty on {ev.seat} needs a rule-set penalty name or explicit points")
    for what, value in (("points", ev.points), ("opponents' points", ev.opponents)):
        if value is not None and abs(value) > MAX_PENALTY_POINTS:
            raise IllegalEvent(f"a penalty's {what} must be within +-{MAX_PENALTY_POINTS}, got {value}")
    spec = rules.penalties.get(ev.name) if ev.name else None
    if ev.name and spec is None and ev.points is None:
        names = ", ".join(sorted(rules.penalties)) or "none"
        raise IllegalEvent(f"rule set {rules.name} has no penalty {ev.name!r} (penalties: {names})")
    if spec and spec.warnings and ev.points is None and ev.opponents is None:
        # seed 003: "one warning will be given that will apply to all (4) players. If it happens again
        # there will be a (25) points fine": the table's warnings are counted per game, whoever offends
        given = st.warnings.get(ev.name, 0)  # type: ignore[arg-type]
        if given < spec.warnings:
            st.warnings[ev.name] = given + 1  # type: ignore[index]
            flags.append(Flag("warning", ev.seat, f"{ev.name} by {ev.seat}: warning {given + 1} of {spec.warnings} "
                              "to the table, no points", {"penalty": ev.name, "warning": given + 1}))
            return
    infractor = ev.points if ev.points is not None else (spec.infractor if spec else 0)
    opponents = ev.opponents if ev.opponents is not None else (spec.opponents if spec else 0)
    side = st.side(ev.seat)
    points[side] = points.get(side, 0) + infractor
    for other in st.sides:
        if other != side:
            points[other] = points.get(other, 0) + opponents
    folded = st.result is not None and st.result.kind not in _PLAYED_OUT
    if spec and (spec.ends_hand or spec.redeal) and not folded:
        # seed 000: a bogus play "can be called at any time during that hand ... Once confirmed, all hands
        # are folded": a call confirmed after the hand's end (the umpire came late) folds it all the same,
        # and the domino's or lock's points are taken back
        undone = st.result.awards if st.result is not None else {}
        for side, pts in undone.items():
            points[side] = points.get(side, 0) - pts
        void = f"; the {_RESULT_NAMES[st.result.kind]} is void" if st.result is not None else ""
        st.pending_end = None
        kind = "redeal" if spec.redeal else "penalty"
        # seed 000 names who leads the new deal ("the player that held domino before the bogus play goes
        # first"): no tile is required of him; seed 003's "SALE EL QUE LE TOCABA" keeps the opening tile
        named = spec.next_leader == "not_infractor"
        usual = _redeal_leader(st) if kind == "redeal" and not named else st.leader
        nxt = _penalty_next_leader(st, spec, ev.seat, usual)
        _set_result(st, HandResult(kind, None, None, {}, {}, note=f"{ev.name} by {ev.seat}{void}", next_leader=nxt,
                                   next_required_lead=st.context.required_lead
                                   if kind == "redeal" and not named else None))
    elif spec and (spec.opponents_lead_next or spec.next_leader == "right_of_infractor"):
        # fix (tests/test_engine_seeds.py, seed 001 looking at tiles): the hand goes on, but whoever wins
        # it, "The player to the right of the person at fault starts the next hand."
        nxt = _penalty_next_leader(st, spec, ev.seat, None)
        if st.result is None:
            st.penalty_leader = nxt
        else:  # recorded after the end (helper-119: the next hand's leader stayed the winner)
            st.late_penalty_leader = nxt
            flags.append(Flag("next_leader", nxt, f"{nxt} leads the next hand ({ev.name} by {ev.seat})"))


def _redeal_leader(st: HandState) -> str | None:
    """Who leads a hand dealt again: the same leader. When the hand had to open with a tile (a game's first
    hand, [6|6]) that is its holder, known only from a recorded deal (seed 003: "SALE EL QUE LE TOCABA", the
    one whose turn it was); else none is named and the holder of the tile in the new deal leads
    (helper-122: whoever led, the infractor too, was named and the [6|6] holder flagged out of turn)."""
    if st.context.required_lead is None or all(st.known[s] is not None for s in st.order):
        return st.leader
    return None


def _penalty_next_leader(st: HandState, spec, seat: str, usual: str | None) -> str | None:
    """Who leads the next hand after a penalty on ``seat`` (``Penalty.next_leader``)."""
    if spec.next_leader == "right_of_infractor":  # seed 001: "the player to the right ... starts"
        return right_of(st.order, seat)
    if spec.opponents_lead_next:
        return next_seat(st.order, seat)
    if spec.next_leader == "not_infractor" and usual == seat:  # seed 000: passed to the left
        return next_seat(st.order, seat)
    return usual


#: How a seat is known to hold a tile its hand may not show (:func:`_known_holder`), as the refusals say it.
_HOW = {"take_back": "took back", "exposed": "exposed"}
_HOW_IT = {"take_back": "took it back", "exposed": "exposed it", "deal": "was dealt it", "draw": "drew it"}
#: The event at a tile's ``placed_by`` slot -> how a reveal that leaves the tile out says it came to the seat.
_HOW_HELD = {"deal": "dealt", "draw": "drawn", "take_back": "taken back", "reveal": "exposed"}


def _known_holder(st: HandState, key: tuple[int, int]) -> tuple[str, str] | None:
    """The seat known to hold a tile though its hand may not be known, and how: ``take_back`` (laid, then
    taken back, not laid again: helper-199) or ``exposed`` (shown during play and not laid since: seed 001,
    "the domino must remain face-up on the table and play at first chance"; seed 003 alike). None when
    neither. A set holds each tile once, so no other seat may draw, play or reveal it (helper-205: "N reveal
    5-5" during play, then "S draw 5-5", was accepted)."""
    if key in st.taken_back:
        return st.taken_back[key], "take_back"
    if key in st.exposed_by and key not in st.layout.on_table:
        return st.exposed_by[key], "exposed"
    return None


def _event_at(st: HandState, slot: int | None) -> str:
    """The type of the event applied at log slot ``slot`` (``deal``, ``draw``, ...); "" when none was."""
    return next((getattr(o.event, "type", "") for o in st.outcomes if o.index == slot), "")


def _where_known(st: HandState, key: tuple[int, int]) -> str | None:
    """Where the record knows a tile lies, with the seat and the event that put it there, as a refusal of its
    draw says it: ``"in N's hand: N took it back at #3"`` (:func:`_known_holder`), ``"on the table: N laid it at
    #5"``, ``"in S's hand: S was dealt it at #1"`` (a known hand: dealt or drawn). None when the record does not
    know where it is (the boneyard, or a hand not known). helper-209: the draw of a tile on the table was refused
    as "already on the table or in a hand", though the record knew which and by whom."""
    slot = st.placed_by.get(key)
    if (held := _known_holder(st, key)) is not None:
        seat, how = held
    elif key in st.layout.on_table:
        seat = next(s for _, s, t, *_ in st.plays if t.key == key)
        return f"on the table: {seat} laid it at #{slot}"
    else:
        seat = next((s for s, hand in st.known.items() if hand and any(t.key == key for t in hand)), None)
        if seat is None:
            return None
        how = _event_at(st, slot)
    said = _HOW_IT.get(how)
    return f"in {seat}'s hand" + (f": {seat} {said} at #{slot}" if said and slot is not None else "")


def _held_not_shown(st: HandState, seat: str, tiles: list[Tile]) -> list[tuple[int, int]]:
    """The tiles the record knows ``seat`` holds that ``tiles`` do not show: taken back and not laid again,
    exposed and not laid, or in its known (dealt, drawn) hand."""
    shown = {t.key for t in tiles}
    held = [k for k, s in st.taken_back.items() if s == seat]
    held += [k for k, s in st.exposed_by.items() if s == seat and k not in st.layout.on_table]
    held += [t.key for t in st.known[seat] or []]
    return [k for k in dict.fromkeys(held) if k not in shown]


def _said_held(st: HandState, keys: list[tuple[int, int]]) -> str:
    """Tiles named with the event that gave each to its seat: ``"6-4, taken back at #2; 1-0, dealt at #0"``."""
    return "; ".join(f"{Tile(*k)}, {_HOW_HELD.get(_event_at(st, st.placed_by[k]), 'held')} at #{st.placed_by[k]}"
                     if k in st.placed_by else str(Tile(*k)) for k in keys)


def _counted_with_reveal(st: HandState, seat: str, tiles: list[Tile]) -> list[Tile]:
    """The tiles counted with an end-of-hand reveal beside the ones it shows. None when it shows as many tiles as
    the seat holds, or the count is not known (draws unseen). When it shows fewer, the tiles the record knows
    the seat holds and the reveal leaves out (:func:`_held_not_shown`), if they make up the count exactly:
    the seat holds them (helper-209: "S takeback 6-4", then "S reveal 4-4" of S's 2 tiles was refused with a
    bare count, "S holds 2 tiles, the reveal shows 1"; an umpire counts the 6-4 everyone saw S take back).

    Raises:
        IllegalEvent: any other count; the message names the tiles the record knows the reveal leaves out.
    """
    n = st.counts[seat]
    if not st.counts_known or len(tiles) == n:
        return []
    missing = _held_not_shown(st, seat, tiles)
    if len(tiles) < n and len(tiles) + len(missing) == n:
        return [Tile(*k) for k in missing]
    left = f"; it leaves out {_said_held(st, missing)}" if missing else ""
    raise IllegalEvent(f"{seat} holds {_tiles(n)}, the reveal shows {len(tiles)}{left}")


def _check_reveal_whole(st: HandState, seat: str, tiles: list[Tile], counted: list[Tile], flags: list[Flag]) -> None:
    """Flag an end-of-hand reveal that leaves out a tile the record knows ``seat`` holds (:func:`_held_not_shown`).
    Seed 002: the players "count the spots on their remaining dominoes", every one of them, and that count
    decides the hand. Flagged, not refused, as a play of a tile not in the dealt hand is (``tile_not_in_hand``):
    a misread reveal or a wrong earlier line, the umpire decides, and the recorded reveal stands (helper-205:
    "S takeback 6-4" then a reveal without 6-4 was scored with no word). ``counted``: the tiles left out that
    are counted with the reveal, as it shows fewer tiles than the seat holds (:func:`_counted_with_reveal`)."""
    missing = _held_not_shown(st, seat, tiles)
    if not missing:
        return
    message = f"{seat}'s reveal leaves out {_said_held(st, missing)}"
    details: dict = {"tiles": [list(k) for k in missing]}
    if counted:
        message += (f"; {seat} holds {_tiles(len(tiles) + len(counted))}, the reveal shows {len(tiles)}: "
                    f"{' '.join(map(str, counted))} {'is' if len(counted) == 1 else 'are'} counted as {seat}'s")
        details["counted"] = True
    flags.append(Flag("reveal_leaves_out", seat, message, details))


def _where_undealt(st: HandState, seat: str) -> str:
    """Where a tile that no hand, the table or the record's take-backs and exposures hold lies, said after a flag:
    ``": it is in the boneyard"`` (``": it is among the tiles not dealt"`` in a game without one) when the record
    knows every other seat's tiles and counts the draws; else "" (it may be in a hand the record does not know)."""
    if not st.counts_known or any(st.known[s] is None and s not in st.revealed for s in st.order if s != seat):
        return ""
    return ": it is in the boneyard" if st.rules.boneyard else ": it is among the tiles not dealt"


def _check_shown_in_hand(st: HandState, seat: str, tiles: list[Tile], verb: str, flags: list[Flag]) -> bool:
    """Flag (``tile_not_in_hand``) the tiles ``seat`` shows (``verb``: ``exposed`` during play, ``revealed`` at the
    end) that its known hand does not hold, as a play of such a tile is; whether any were. A tile of another
    seat's known hand is refused before (:func:`_reveal`). helper-209: "N reveal 5-5" of a tile the deal left in
    the boneyard said only "N exposed 5-5"."""
    hand = st.known[seat]
    if hand is None:
        return False
    foreign = [t for t in tiles if all(k.key != t.key for k in hand)]
    if foreign:
        flags.append(Flag("tile_not_in_hand", seat, f"{seat} {verb} {' '.join(map(str, foreign))}, which {seat} "
                          f"does not hold ({_holds(seat, hand)}){_where_undealt(st, seat)}",
                          {"tiles": [[t.a, t.b] for t in foreign]}))
    return bool(foreign)


def _reveal(st: HandState, ev: Reveal, points: dict, flags: list[Flag]) -> None:
    seat = ev.seat
    if not ev.tiles:
        raise IllegalEvent(f"{seat}'s reveal shows no tile")
    seen: set[tuple[int, int]] = set()
    for t in ev.tiles:
        Tile.parse(t, st.rules.set_max)
        if t.key in st.layout.on_table:
            raise IllegalEvent(f"{seat} reveals {t}, which is {_where_known(st, t.key)}", tile=t.key)
        held = _known_holder(st, t.key)
        if held is not None and held[0] != seat:
            raise IllegalEvent(f"{seat} reveals {t}, which {held[0]} {_HOW[held[1]]} at "
                               f"#{st.placed_by[t.key]}", tile=t.key)
        if t.key in seen:
            raise IllegalEvent(f"{seat} reveals {t} twice")
        seen.add(t.key)
        for other in st.order:  # a set holds each tile once: another seat's shown or dealt tile is not this seat's
            if other != seat and any(k.key == t.key for k in (st.revealed.get(other) or [])):
                raise IllegalEvent(f"{seat} reveals {t}, which {other} revealed", tile=t.key)
            if other != seat and any(k.key == t.key for k in (st.known[other] or [])):
                raise IllegalEvent(f"{seat} reveals {t}, which is {_where_known(st, t.key)}", tile=t.key)
    if not st.over:  # shown during play: exposed tiles (seed 003: a touched tile that did not fit)
        if st.counts_known and len(ev.tiles) > st.counts[seat]:
            raise IllegalEvent(f"{seat} holds {_tiles(st.counts[seat])}, the reveal shows {len(ev.tiles)}")
        if all(t.key in st.exposed_by for t in ev.tiles):  # the same tiles seen again: one exposure, one flag
            raise IllegalEvent(f"{seat} exposed {' '.join(map(str, ev.tiles))} already")
        st.placed_by.update((t.key, st.at) for t in ev.tiles if st.exposed_by.get(t.key) != seat)
        st.exposed_by.update((t.key, seat) for t in ev.tiles)
        flags.append(Flag("exposed_tile", ev.seat, f"{ev.seat} exposed " + " ".join(map(str, ev.tiles))))
        if _check_shown_in_hand(st, seat, ev.tiles, "exposed", flags):
            st.known[seat] = None  # as after a play of such a tile: the hand we thought we knew was wrong
        return
    # the count that ends the hand: once per seat, all of its tiles, none for the seat that went out
    kind, winner = st.pending_end[:2] if st.pending_end else (st.result.kind, st.result.winner_seat)
    if kind == "domino" and winner == seat:
        raise IllegalEvent(f"{seat} went out: it holds no tile to reveal")
    if seat in st.revealed:
        raise IllegalEvent(f"{seat} revealed already ({' '.join(map(str, st.revealed[seat]))}): correct that "
                           "reveal instead")
    counted = _counted_with_reveal(st, seat, ev.tiles)
    foreign = _check_shown_in_hand(st, seat, ev.tiles, "revealed", flags)
    _check_reveal_whole(st, seat, ev.tiles, counted, flags)
    if foreign:
        st.known[seat] = None
    st.revealed[ev.seat] = list(ev.tiles) + counted
    st.placed_by.update((t.key, st.at) for t in ev.tiles)
    if st.pending_end is not None:
        kind, winner, locker = st.pending_end
        st.pending_end = None
        _finish(st, kind, winner, locker, points, capicua=st.pending_capicua)
    elif st.result is not None and st.result.kind == "domino" and not st.result.remaining:
        # a flat award (Fives and Threes' one point) ended the hand without the pips left: once every hand is
        # shown they are the result's too, for the review (helper-157: "remaining {}" after the reveal); the
        # award stands, so the result is completed in place, not ended again
        left = _remaining(st, st.result.winner_seat)
        if left is not None:
            st.result.remaining.update(left)


def _hand_end(st: HandState, ev: HandEnd, points: dict, flags: list[Flag]) -> None:
    if st.result is not None:
        raise IllegalEvent(f"the hand already ended ({st.result.kind})")
    if ev.kind in ("redeal", "umpire"):
        _set_result(st, HandResult(ev.kind, None, None, {}, {}, note=ev.reason, next_leader=_redeal_leader(st),
                                   next_required_lead=st.context.required_lead))
        return
    if ev.kind == "domino" and ev.winner is None:
        raise IllegalEvent("a domino needs the winner's seat")
    if st.pending_end is not None:
        kind, winner = st.pending_end[:2]
        # the engine's own end stands (it counted the domino, or saw the line blocked) - except a draw
        # game's blocked line, which may have been the last player's last tile (hands uncounted)
        if not (kind == "locked" and ev.kind == "domino" and not st.counts_known):
            raise IllegalEvent(f"the hand has ended ({kind}{f' by {winner}' if winner else ''}) and awaits the "
                               "reveals: record them, or correct the play that ended it")
    if ev.kind == "domino" and ev.winner in st.order and st.counts_known and st.counts[ev.winner] > 0:
        # helper-93: accepted, then the winner's reveal was refused ("it holds no tile")
        raise IllegalEvent(f"{ev.winner} still holds {_tiles(st.counts[ev.winner])} by the record: a domino is "
                           "going out with the last one; record the plays missing, or end the hand by the "
                           "umpire's decision (kind umpire: end umpire)")
    if ev.kind == "domino" and ev.winner in st.order and not st.counts_known and st.counts[ev.winner] > 0:
        # draws unseen (a camera's deal): unseen draws only add tiles, so the record's count is the
        # fewest the winner can hold; it stands (a play the camera missed), but the umpire is told
        # (helper-108: voiding N's last play left "domino N +5" scored with no word)
        n = st.counts[ev.winner]
        flags.append(Flag("domino_with_tiles_left", ev.winner,
                          f"{ev.winner} went out by the record, which leaves {ev.winner} holding at least "
                          f"{_tiles(n)}: a play missing, or the hand ended otherwise", {"tiles_left": n}))
    if ev.kind == "locked" and st.layout.lead is not None and (found := _play_left(st)):
        # said, not refused: the umpire may have stopped the hand for his own reasons (helper-153: a lock
        # called while W held 5-4 on a 5 end was scored without a word)
        holder, left = found
        flags.append(Flag("locked_with_play", holder or st.last_player, f"the hand was ended as locked, but {left}"))
    st.pending_end = None
    _finish(st, ev.kind, ev.winner, ev.winner or st.last_player, points)


# ---- the end of a hand ---------------------------------------------------------------

def _remaining(st: HandState, out_seat: str | None = None) -> dict[str, int] | None:
    """Remaining pips per seat, or None while a seat's tiles are unknown (``out_seat`` went out)."""
    out = {}
    for s in st.order:
        if s == out_seat:
            out[s] = 0
        elif s in st.revealed:
            out[s] = hand_pips(st.revealed[s])
        elif st.counts_known and st.counts[s] == 0:
            out[s] = 0
        elif st.known[s] is not None:
            out[s] = hand_pips(st.known[s])  # type: ignore[arg-type]
        else:
            return None
    return out


def _finish(st: HandState, kind: str, winner: str | None, locker: str | None,
            points: dict, capicua: bool = False) -> None:
    """End the hand; award the end-of-hand points once every remaining hand is counted."""
    remaining = _remaining(st, winner if kind == "domino" else None)
    rules = st.rules
    # a flat award for going out needs no pips counted (helper-122: Fives and Threes' point waited for the
    # reveals, so a chip-out past the exact target counted, and with no reveal it was lost)
    flat = kind == "domino" and rules.domino_fixed_points is not None and not (
        rules.domino_subtract_partner and rules.partnership)
    if remaining is None and not flat:
        st.pending_end = (kind, winner, locker)
        st.pending_capicua = capicua
        st.flags.append(Flag("awaiting_reveal", None,
                             f"hand over ({kind}): reveal the tiles of {', '.join(st.awaiting_reveal())}"))
        return
    awards = {side: 0 for side in st.sides}
    if kind == "domino":
        assert winner is not None
        side = st.side(winner)
        remaining = remaining if remaining is not None else {}  # a flat award: the pips left unknown
        if rules.domino_counts == "opponents":
            counted = sum(p for s, p in remaining.items() if st.side(s) != side)
            whose = "the opponents' hands"
        else:
            counted = sum(p for s, p in remaining.items() if s != winner)
            whose = "the other hands"
        note = f"{winner} dominoes (went out)" + (f"; {plural(counted, 'pip')} left in {whose}" if remaining else "")
        if rules.standings == "cumulative_pips":
            pass  # seed 002: players are ranked by the pips left in their hands; going out scores no points
        elif rules.domino_fixed_points is not None:  # Fives and Threes (pagat): one point for going out
            awards[side] = rules.domino_fixed_points
        else:
            awards[side] = round_points(counted, rules.domino_rounding)
        if rules.domino_subtract_partner and rules.partnership:
            awards[side] -= round_points(remaining[partner_of(winner)], rules.domino_rounding)
        if capicua and rules.capicua_bonus:
            awards[side] += rules.capicua_bonus
            note += f"; capicua +{rules.capicua_bonus}"
        last = st.plays[-1][2] if st.plays else None
        if not rules.exposed_tile_domino_scores and last is not None and last.key in st.exposed_by:
            awards = {sd: 0 for sd in awards}  # seed 003: "If the player wins with that tile, the points do not count"
            note += "; won with an exposed tile: no points"
        if st.domino_void:
            awards = {sd: 0 for sd in awards}
            note += f"; {st.domino_void}"
        nxt, req = _next_lead_after(st, winner, "domino")
        result = HandResult("domino", winner, side, awards, remaining, capicua, note, nxt, req)
    else:  # locked, or time called
        locker = locker or st.last_player
        lock = lock_awards(
            remaining, {s: st.side(s) for s in st.order},
            winner_rule=rules.lock_winner, points_rule=rules.lock_points, tie_rule=rules.lock_tie,
            rounding=rules.lock_rounding, locker=locker,
            right_of_locker=right_of(st.order, locker) if locker else None,
            leading_side=st.context.leading_side,
        )
        awards.update(lock.awards)
        win_seat = None
        if lock.winner is not None:
            seats = [s for s in st.order if st.side(s) == lock.winner]
            if rules.lock_winner == "locker_vs_right" and locker:
                # fix (tests/test_engine_seeds.py, seed 001): the duel's winner won the hand and leads
                # next ("The lowest score wins the hand"), not a partner outside the duel with fewer pips
                seats = [s for s in seats if s in (locker, right_of(st.order, locker))] or seats
            win_seat = min(seats, key=lambda s: remaining[s])
        nxt, req = _next_lead_after(st, win_seat, "tie" if lock.tie else "locked")
        note = lock.note
        level = [s for s in (seats if lock.winner is not None else []) if remaining[s] == remaining[win_seat]]
        if len(level) > 1 and nxt == win_seat:
            # seed 003 names no partner to lead after a team's lock; docs/rules.md: the umpire decides a tie
            # between partners (helper-122: W was chosen without a word)
            note += (f"; {' and '.join(level)} hold {plural(remaining[win_seat], 'pip')} each: the umpire decides who "
                     f"leads the next hand ({nxt} by default)")
        result = HandResult(kind, win_seat, lock.winner, awards, remaining, False, note, nxt, req)
    for side, pts in awards.items():
        points[side] = points.get(side, 0) + pts
    _set_result(st, result)


def _next_lead_after(st: HandState, winner: str | None, how: str) -> tuple[str | None, Tile | None]:
    """Who leads the next hand and with which tile it must open (None, None: by lot / anyone)."""
    rules = st.rules
    if st.penalty_leader is not None:  # named by a penalty earlier in the hand (seed 001)
        return st.penalty_leader, None
    if how == "domino":
        rule = rules.next_hand_opener
    elif how == "locked":
        rule = rules.after_lock_opener
    else:
        rule = rules.after_lock_tie_opener
    if rule == "hand_winner" and (winner or st.leader):
        return winner or st.leader, None
    if rule == "same_as_last" and st.leader:
        return st.leader, None
    if rule == "next_seat" and st.leader:
        return next_seat(st.order, st.leader), None
    if rule == "lot":
        return None, None
    return None, Tile(rules.set_max, rules.set_max)  # the holder of [6|6] (seed 000 after a lock)


def _set_result(st: HandState, result: HandResult) -> None:
    st.result = result
    st.turn = None


class Hand:
    """A hand being recorded: an append-only log plus its replayed state.

    >>> from engine.ruleset import load_ruleset
    >>> h = Hand(load_ruleset("all-fives"))
    >>> h.append(Play(seat="N", tile="5-5")).points
    {'N': 10}
    """

    def __init__(self, rules: Ruleset, context: HandContext | None = None) -> None:
        self.rules = rules
        self.context = context or HandContext()
        self.log: list = []
        self.state = replay(rules, [], self.context)

    def append(self, event: object) -> Outcome:
        """Append an event (or a :class:`Correction`) and recompute; returns its outcome.

        A correction's outcome is the outcome of the event it put in place (or an empty one
        when it voided the slot). On :class:`IllegalEvent` the log is left as it was.
        """
        log = self.log + [event]
        state = replay(self.rules, log, self.context)
        self.log, self.state = log, state
        if isinstance(event, Correction):
            target = [o for o in state.outcomes if o.index == event.replaces]
            if target:
                return target[0]
            return Outcome(len(log) - 1, event, {}, [], state.layout.open_ends(), state.layout.ends_count())
        return state.outcomes[-1]
