"""The game record: a versioned JSON document of a whole match (see ``docs/record-format.md``).

A :class:`MatchRecord` holds the rule set (its preset name *and* every parameter, so the
record stays readable if the preset changes later), the players, the teams, the event
info, and every hand's raw event log (corrections included) next to a derived summary:
per event its points, flags and open ends; the hand's result and points per side; the
games and standings. The logs are the truth; the summary is informational and
:func:`replay_record` re-derives it.

>>> from engine.ruleset import load_ruleset
>>> from engine.notation import parse_event
>>> rec = record_from_match(load_ruleset("all-fives"), [[parse_event("N 5-5")]])
>>> rec.hands[0].outcomes[0].points
{'N': 10}
>>> from_json(to_json(rec)) == rec
True
"""

from __future__ import annotations

import json
import re
from typing import Literal, get_args

from pydantic import (BaseModel, Field, TypeAdapter, ValidationError, field_serializer, field_validator,
                      model_validator)

from engine.events import AnyEvent, Correction
from engine.hand import HandState
from engine.match import MatchState, replay_match
from engine.ruleset import Ruleset, RulesetError, ruleset_from_params
from engine.seats import seats_for, team_of
from engine.timeline import timeline

FORMAT = "dominocast-record"
VERSION = 1  # the major version this code reads and writes
#: A record file longer than this (bytes) is refused before it is read: a long match's record is a few MB.
MAX_RECORD_BYTES = 64 << 20

_EVENT = TypeAdapter(AnyEvent)
_EVENT_TYPES = ", ".join(t.model_fields["type"].default for t in get_args(get_args(AnyEvent)[0]))


class RecordError(ValueError):
    """A record that cannot be read or built: malformed, wrong format, unsupported version."""


# ---- the document -------------------------------------------------------------------

class RulesInfo(BaseModel):
    """The rule set: the preset it came from and every parameter (``Ruleset.model_dump``)."""

    preset: str
    params: dict


class EventInfo(BaseModel):
    """Where and when the match was played (all optional)."""

    title: str | None = None
    table: str | None = None
    date: str | None = None


class FlagInfo(BaseModel):
    """A flag for the umpire raised by an event (``engine.hand.Flag``)."""

    kind: str
    seat: str | None = None
    message: str = ""
    details: dict = Field(default_factory=dict)


class OutcomeInfo(BaseModel):
    """What one event in force did. ``index`` is its slot in the hand's log; ``points``
    excludes the end-of-hand awards (those are in the hand's ``result``)."""

    index: int
    type: str
    points: dict[str, int] = Field(default_factory=dict)
    flags: list[FlagInfo] = Field(default_factory=list)
    open_ends: dict[str, int] = Field(default_factory=dict)
    ends_total: int = 0
    tile: list[int] | None = None  # a play: the tile as placed [touching half, other half]
    end: str | None = None  # a play: the end it went on ("lead" for the first tile)


class ResultInfo(BaseModel):
    """How a hand ended (``engine.hand.HandResult``): awards per side, pips left per seat."""

    kind: str
    winner: str | None = None
    side: str | None = None
    awards: dict[str, int] = Field(default_factory=dict)
    remaining: dict[str, int] = Field(default_factory=dict)
    capicua: bool = False
    note: str = ""
    next_leader: str | None = None


class HandRecord(BaseModel):
    """One hand: its raw log (the truth) and the summary derived from it."""

    game: int
    number: int  # the hand's number within its game (as ``hand`` in events.jsonl)
    events: list[AnyEvent]
    status: Literal["over", "awaiting_reveal", "in_progress"] = "in_progress"
    outcomes: list[OutcomeInfo] = Field(default_factory=list)
    result: ResultInfo | None = None
    points: dict[str, int] = Field(default_factory=dict)  # the hand's points per side, awards included
    start_t: float | None = None
    end_t: float | None = None

    @field_serializer("events")
    def _ser_events(self, events: list) -> list[dict]:
        return [event_to_dict(ev) for ev in events]

    @field_serializer("outcomes")
    def _ser_outcomes(self, outcomes: list[OutcomeInfo]) -> list[dict]:
        return [o.model_dump(mode="json", exclude_defaults=True) for o in outcomes]  # compact: defaults left out


class GameInfo(BaseModel):
    """One game: how many hands, who won and how, the final score per side (pips per seat)."""

    number: int
    hands: int
    winner: str | None = None
    ended_by: str | None = None
    scores: dict[str, int] = Field(default_factory=dict)
    pips: dict[str, int] = Field(default_factory=dict)


class StandingInfo(BaseModel):
    """One side's standing: games won and total points (or pips, fewest best)."""

    side: str
    games: int
    total: int
    unit: Literal["points", "pips"] = "points"


class WarningKind(BaseModel):
    """What one of a record's warnings is about, for a program to judge it by: ``kind``, a word such as
    ``no_calibration``, ``rules_misfit`` or ``small_tiles`` (letters, digits, ``_``), and ``doubts_score``,
    whether it puts the score in doubt (False for a doubt on some reads only: small tiles, glare away from the
    line of play; or none: no annotated video). Records written before kinds were kept have none: their
    warnings are judged by their words (``service.finality.doubts_score``)."""

    kind: str = Field(pattern=r"^\w+$")
    doubts_score: bool = True


class MatchRecord(BaseModel):
    """A match record, version 1 (see ``docs/record-format.md``)."""

    format: Literal["dominocast-record"] = FORMAT
    version: Literal[1] = VERSION
    rules: RulesInfo
    players: dict[str, str] = Field(default_factory=dict)
    teams: dict[str, list[str]] = Field(default_factory=dict)
    event: EventInfo = Field(default_factory=EventInfo)
    #: what its writer (a review) warned of that puts the record in doubt (a rule set that does not fit the
    #: footage, seats guessed without a calibration ...): every report page of the record shows them
    warnings: list[str] = Field(default_factory=list)
    #: each warning's kind, in the order of ``warnings`` (null: a warning of unknown kind, judged by its words);
    #: empty for a record written before kinds were kept, or with no warning
    warning_kinds: list[WarningKind | None] = Field(default_factory=list)
    hands: list[HandRecord] = Field(default_factory=list)
    games: list[GameInfo] = Field(default_factory=list)
    standings: list[StandingInfo] = Field(default_factory=list)
    over: bool = False

    @field_validator("warnings")
    @classmethod
    def _said(cls, value: list[str]) -> list[str]:
        """Every warning says something: an empty one would put the score in doubt for nothing, and the notation
        refuses its ``[Warning ""]`` (helper-172)."""
        if any(not w.strip() for w in value):
            raise ValueError("a warning is empty: a warning says what puts the record in doubt (leave out one "
                             "that says nothing)")
        return value

    @field_validator("warning_kinds", mode="before")
    @classmethod
    def _null_is_none(cls, value: object) -> object:
        """``"warning_kinds": null`` is left out: every warning judged by its words (helper-262: it was refused as
        "Input should be a valid list" while the message for a wrong length says to leave the field out)."""
        return [] if value is None else value

    @model_validator(mode="after")
    def _one_kind_each(self) -> MatchRecord:
        """``warning_kinds``, when given, has one entry per warning: paired by their place, one too few would
        give every later warning another's kind."""
        if self.warning_kinds and len(self.warning_kinds) != len(self.warnings):
            raise ValueError(f"warning_kinds: {len(self.warning_kinds)} for {len(self.warnings)} warnings: one per "
                             "warning, in order (null for one of unknown kind; leave warning_kinds out to judge "
                             "every warning by its words)")
        return self

    def kinds(self) -> list[WarningKind | None]:
        """One kind per warning, in order: ``warning_kinds``, or None for each of a record that keeps none."""
        return list(self.warning_kinds) or [None] * len(self.warnings)

    @property
    def logs(self) -> list[list]:
        """Every hand's raw event log, in order."""
        return [list(h.events) for h in self.hands]


def event_from_dict(data: object) -> object:
    """An event model from its dict (the inverse of :func:`event_to_dict`).

    Raises:
        pydantic.ValidationError: not an event (unknown ``type``, a bad field); :func:`why_not_an_event`
        says it in one line.
    """
    return _EVENT.validate_python(data)


def why_not_an_event(exc: ValidationError) -> str:
    """The first error of :func:`event_from_dict` in one line for a person: ``play.tile: Field required``,
    ``unknown event type 'bogus' (one of deal, play, ...)`` (pydantic's own words for the type named
    neither the type nor where: helper-124, helper-143, helper-156)."""
    err = exc.errors()[0]
    ctx = err.get("ctx") or {}
    if err["type"] == "union_tag_not_found":
        return f"an event needs its type: one of {_EVENT_TYPES}"
    if err["type"] == "union_tag_invalid":
        return f"unknown event type {ctx.get('tag')!r}: one of {_EVENT_TYPES}"
    where = ".".join(str(p) for p in err["loc"])
    msg = err["msg"].removeprefix("Value error, ")
    return f"{where}: {msg}" if where else msg


def event_to_dict(ev: object) -> dict:
    """An event as a compact JSON-ready dict: ``type`` first, fields at their default left out."""
    out = {"type": ev.type, **ev.model_dump(mode="json", exclude_defaults=True)}
    if isinstance(ev, Correction) and ev.event is not None:
        out["event"] = event_to_dict(ev.event)
    return out


# ---- building and replaying ---------------------------------------------------------

def rules_of(record: MatchRecord) -> Ruleset:
    """The record's rule set, rebuilt from its stored parameters (not from the preset).

    Raises:
        RecordError: the parameters do not validate (the message names the key).
    """
    try:
        return ruleset_from_params(record.rules.params, f"rule set {record.rules.preset!r}")
    except RulesetError as exc:
        raise RecordError(str(exc)) from None


def defaulted_params(record: MatchRecord) -> list[str]:
    """The rule-set parameters a record's ``rules.params`` lacks: its rule set takes the engine's defaults
    for them. A record is written with every parameter, so a missing one was dropped by hand (helper-121: a
    record without ``target`` was replayed to another target, silently) or the record predates it."""
    return [k for k in Ruleset.model_fields if k not in record.rules.params]


def teams_for(rules: Ruleset) -> dict[str, list[str]]:
    """Side -> its seats in turn order ('NS': ['N', 'S'] in partnerships; one seat per side otherwise)."""
    teams: dict[str, list[str]] = {}
    for seat in seats_for(rules.players, rules.play_direction):
        teams.setdefault(team_of(seat, rules.partnership), []).append(seat)
    return teams


def key_order(teams: dict[str, list[str]]) -> list[str]:
    """The sides of ``teams`` (:func:`teams_for`, or a record's ``teams``) in turn order, then their seats
    team by team, each team's seats in turn order (a clockwise partnership's NS, EW, then N, S, E, W; a
    counterclockwise one's NS, EW, then N, S, W, E; one seat a side otherwise: N, E, S, W, or N, W, S, E
    counterclockwise): the order score tables list side- and seat-keyed numbers in. A record read from a file
    may hold them in another order (before helper-215 the engine kept scores in name order, E, N, S, W:
    helper-206, nova-block's tables read "E 0 N 0 S 0 W 0")."""
    return list(dict.fromkeys([*teams, *(seat for seats in teams.values() for seat in seats)]))


def in_turn_order(values: dict, order: list[str]) -> dict:
    """``values`` (side or seat -> number) with the keys of ``order`` (:func:`key_order`) first, in its
    order, then any others as they were; ``values`` as it is when ``order`` is empty or it is no dict."""
    if not order or not isinstance(values, dict):
        return values
    rank = {k: i for i, k in enumerate(order)}
    return dict(sorted(values.items(), key=lambda kv: rank.get(kv[0], len(rank))))


def record_from_match(
    rules: Ruleset, hand_logs: list[list], players: dict[str, str] | None = None, meta: dict | EventInfo | None = None,
    warnings: list[str] | None = None, warning_kinds: list[WarningKind | None] | None = None,
) -> MatchRecord:
    """Replay the hands with :func:`engine.match.replay_match` and build their record.

    Args:
        rules: the rule set the match was played under.
        hand_logs: one event log per hand (event models, or dicts of them), corrections included.
        players: seat -> name (seats must be playing under ``rules``).
        meta: event info: ``title``, ``table``, ``date`` (a dict or :class:`EventInfo`).
        warnings: lines that put the record in doubt (a review's warnings), kept as they are.
        warning_kinds: the kind of each of ``warnings``, in order (None: unknown, judged by its words); none
            given, or all None: the record keeps no kinds.

    Raises:
        RecordError: an event that is not an event, a name for a seat not playing, an unknown meta key,
            ``warning_kinds`` of another length than ``warnings``.
        engine.hand.IllegalEvent: a log that cannot be replayed (the message names hand and event).
    """
    kinds = list(warning_kinds or [])
    if kinds and len(kinds) != len(warnings or []):
        raise RecordError(f"{len(kinds)} warning kinds for {len(warnings or [])} warnings: one per warning")
    logs = [[_as_event(ev, h, i) for i, ev in enumerate(log)] for h, log in enumerate(hand_logs, start=1)]
    seats = seats_for(rules.players, rules.play_direction)
    for seat in players or {}:
        if seat not in seats:
            raise RecordError(f"players: seat {seat!r} is not playing (seats: {', '.join(seats)})")
    if isinstance(meta, dict):
        unknown = set(meta) - set(EventInfo.model_fields)
        if unknown:
            raise RecordError(f"meta: unknown key {sorted(unknown)[0]!r} (keys: title, table, date)")
        meta = EventInfo(**meta)
    match = replay_match(rules, logs)
    return MatchRecord(
        rules=RulesInfo(preset=rules.name, params=rules.model_dump(mode="json")),
        players=dict(players or {}),
        teams=teams_for(rules),
        event=meta or EventInfo(),
        warnings=list(warnings or []),
        warning_kinds=kinds if any(k is not None for k in kinds) else [],
        hands=_hand_records(match, logs),
        games=[GameInfo(number=g.number, hands=len(g.hands), winner=g.winner, ended_by=g.ended_by,
                        scores=dict(g.scores), pips=dict(g.pips))
               for g in match.games if g.hands or g is match.games[0]],  # not the next game, before its first hand
        standings=_standings(match),
        over=match.over,
    )


def replay_record(record: MatchRecord) -> MatchState:
    """Re-derive the match from the record's logs and stored rule parameters.

    Raises:
        RecordError: the stored rule parameters do not validate.
        engine.hand.IllegalEvent: a log that cannot be replayed.
    """
    return replay_match(rules_of(record), record.logs)


def rederive(record: MatchRecord) -> MatchRecord:
    """The record with its derived summary recomputed from the logs (players, event, warnings and their kinds
    kept)."""
    return record_from_match(rules_of(record), record.logs, record.players, record.event, record.warnings,
                             record.warning_kinds)


def with_warning(record: MatchRecord, text: str, kind: WarningKind) -> MatchRecord:
    """``record`` with one more warning, ``text`` of ``kind``, after its own (whose kinds, if it keeps none,
    stay unknown: judged by their words)."""
    return record.model_copy(update={"warnings": [*record.warnings, text], "warning_kinds": [*record.kinds(), kind]})


def hands_without_result(record: MatchRecord) -> list[HandRecord]:
    """The hands of ``record`` that began (an event) and have no result: in play when the record ends,
    awaiting a reveal, or left unfinished when the next hand began (:func:`unfinished_hands`), so their
    end-of-hand points are not counted and the score is not final. A hand its game's end cut short (a target
    reached during play) has no result and is not among them."""
    ended = {g.number for g in record.games if g.ended_by}
    last_of_game = {h.game: h for h in record.hands}
    return [h for h in record.hands
            if h.result is None and h.events and not (h.game in ended and last_of_game[h.game] is h)]


def unfinished_hands(record: MatchRecord) -> list[tuple[HandRecord, HandRecord]]:
    """``(hand, the hand after it)`` for each hand left unfinished: no result (in play, or awaiting a
    reveal) while a later hand of the record began, so its end-of-hand points are not counted (e.g. the
    play that went out voided; the service's ``hand_unfinished`` alert). A hand its game's end cut short
    (a target reached during play) is not unfinished (helper-121: it was said to be)."""
    ended = {g.number for g in record.games if g.ended_by}
    return [(h, nxt) for h, nxt in zip(record.hands, record.hands[1:])
            if h.result is None and not (h.game in ended and nxt.game != h.game)]


def hand_name(hand: HandRecord, record: MatchRecord) -> str:
    """``hand 2``, or ``hand 2 of game 3`` when the record holds several games."""
    return f"hand {hand.number}" + (f" of game {hand.game}" if len(record.games) > 1 else "")


def _as_event(ev: object, hand: int, index: int) -> object:
    try:
        return _EVENT.validate_python(ev)
    except ValidationError as exc:
        raise RecordError(f"hand {hand}, event #{index}: not an event: {why_not_an_event(exc)}") from None


def _standings(match: MatchState) -> list[StandingInfo]:
    unit = "pips" if match.rules.standings == "cumulative_pips" else "points"
    return [StandingInfo(side=s, games=w, total=t, unit=unit) for s, w, t in match.standings()]


def _hand_records(match: MatchState, logs: list[list]) -> list[HandRecord]:
    # points the match did not count (after the game ended during play, past an exact target): the
    # timeline's not_counted flags, so that the record says why its hand points exceed the game's
    uncounted: dict[tuple[int, int, int], list[FlagInfo]] = {}
    for row in timeline(match):
        for f in row.get("flags", []):
            if f["kind"] == "not_counted":
                uncounted.setdefault((row["game"], row["hand"], row["index"]), []).append(
                    FlagInfo(kind=f["kind"], seat=f["seat"], message=f["message"]))
    out: list[HandRecord] = []
    for game in match.games:
        for number, hand in enumerate(game.hands, start=1):
            extra = {i: fl for (g, h, i), fl in uncounted.items() if (g, h) == (game.number, number)}
            out.append(_hand_record(game.number, number, hand, logs[len(out)], extra))
    return out


def _hand_record(game: int, number: int, hand: HandState, log: list,
                 uncounted: dict[int, list[FlagInfo]] | None = None) -> HandRecord:
    res = hand.result
    outcomes = []
    held: dict[str, int] = {}  # the awards of the result in force before the event
    for o in hand.outcomes:
        pts = dict(o.points)
        if o.result is not None:
            # the end-of-hand awards go to the result, not to the event; an event that replaces a result (a
            # bogus play called after the domino folds the hand) takes back the awards it voids there too,
            # so its own points are the penalty's (helper-157: {-30} for lisa-b's -25 after a 5-point domino)
            # and the outcomes plus the final awards sum to the hand's points
            change = {s: o.result.awards.get(s, 0) - held.get(s, 0) for s in o.result.awards | held}
            pts = {s: pts.get(s, 0) - change.get(s, 0) for s in pts | change}
            held = dict(o.result.awards)
        outcomes.append(OutcomeInfo(
            index=o.index, type=o.event.type, points={s: p for s, p in pts.items() if p},
            flags=[FlagInfo(kind=f.kind, seat=f.seat, message=f.message, details=dict(f.details)) for f in o.flags]
            + (uncounted or {}).get(o.index, []),
            open_ends=dict(o.open_ends), ends_total=o.ends_total,
            tile=[o.placement.tile.a, o.placement.tile.b] if o.placement else None,
            end=o.placement.end if o.placement else None,
        ))
    times = [ev.t for ev in log if ev.t is not None]
    return HandRecord(
        game=game, number=number, events=log,
        status="over" if res else "awaiting_reveal" if hand.pending_end else "in_progress",
        outcomes=outcomes,
        result=ResultInfo(kind=res.kind, winner=res.winner_seat, side=res.winner_side, awards=dict(res.awards),
                          remaining=dict(res.remaining), capicua=res.capicua, note=res.note,
                          next_leader=hand.next_lead()[0]) if res else None,
        points=dict(hand.scores),
        start_t=min(times) if times else None,
        end_t=max(times) if times else None,
    )


# ---- JSON ---------------------------------------------------------------------------

def is_event_lines(text: str) -> bool:
    """Whether ``text`` looks like a review's event log (``events.jsonl``: one JSON object per line),
    a file people take for a record or a script."""
    lines = text.lstrip().splitlines()
    return len(lines) > 1 and lines[0].startswith("{") and '"type"' in lines[0] and lines[1].lstrip().startswith("{")


def is_notation(text: str) -> bool:
    """Whether ``text`` opens as a record's text notation (``[Format ...]`` or ``[Rules ...]`` tags first)."""
    return text.lstrip().startswith(("[Format", "[Rules"))


def to_json(record: MatchRecord, indent: int | None = 2) -> str:
    """The record as JSON text: indented, with short objects and lists (an event, a tile) on one
    line; ``indent=None``: all on one line."""
    data = record.model_dump(mode="json")
    if not data["warnings"]:  # only a review's record has any: the others stay as they were written before
        del data["warnings"]
    if not data["warning_kinds"]:  # a record of no warning, or of warnings of unknown kinds
        del data["warning_kinds"]
    if indent is None:
        return json.dumps(data, ensure_ascii=False)
    return _pretty(data, indent, 0) + "\n"


def _pretty(value: object, indent: int, depth: int, width: int = 140) -> str:
    flat = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, (dict, list)) or not value or len(flat) + indent * depth <= width:
        return flat
    pad, inner = " " * (indent * depth), " " * (indent * (depth + 1))
    if isinstance(value, list):
        items = [inner + _pretty(v, indent, depth + 1, width) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {_pretty(v, indent, depth + 1, width)}" for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + pad + "}"


def from_json(text: str) -> MatchRecord:
    """Read a JSON record (the derived summary is taken as stored; see :func:`rederive`).

    Raises:
        RecordError: not JSON, not a dominocast record, a version this reader does not know,
            a malformed field (the message names it) or rule parameters that do not validate.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if _ends_early(text, exc):
            lines = text.rstrip().count("\n") + 1
            raise RecordError(f"not JSON: it ends at line {lines} before the JSON is complete: the file looks cut off "
                              "(an interrupted copy or download?); get the whole record again") from None
        raise RecordError(f"not JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if not isinstance(data, dict):
        kind = {list: "an array", str: "a string", bool: "true or false", type(None): "null"}.get(type(data), "a number")
        raise RecordError(f"not a dominocast record (the JSON is {kind}, a record is an object with "
                          f"\"format\": \"{FORMAT}\")")
    if data.get("format") != FORMAT:
        raise RecordError(f"not a dominocast record (format is {data.get('format')!r}, expected {FORMAT!r})")
    check_version(data.get("version"))
    try:
        record = MatchRecord.model_validate({**data, "version": VERSION})
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        # helper-132: a record holding a field added after this version (a play's seat_by_turn) named only it
        newer = (" (a field this version does not know: was the record written by a newer dominocast? "
                 "upgrade to read it)") if err["type"] == "extra_forbidden" else ""
        where += ": " if where else ""  # a check of the whole record (one warning kind each) names its field itself
        raise RecordError(f"malformed record: {where}{err['msg'].removeprefix('Value error, ')}{newer}") from None
    rules_of(record)
    return record


def _ends_early(text: str, exc: json.JSONDecodeError) -> bool:
    """Whether the JSON failed for want of more text (a cut file), not at a wrong character: a string
    never closed, or nothing after the failing point but the start of a number or literal (``nu``, ``4.``)."""
    return exc.msg.startswith("Unterminated string") or re.fullmatch(r"[\w.+-]*", text[exc.pos:].rstrip()) is not None


def check_version(version: object) -> None:
    """Accept the major version this reader knows (``1``, or ``"1"``/``"1.x"`` as text).

    Raises:
        RecordError: missing, malformed or unsupported version (newer files ask for an upgrade).
    """
    major = version
    if isinstance(version, str):
        head = version.split(".", 1)[0]
        major = int(head) if head.isdigit() else None
    if major == VERSION and not isinstance(major, bool):
        return
    if version is None:
        raise RecordError("the record has no version")
    if isinstance(major, int) and not isinstance(major, bool) and major > VERSION:
        raise RecordError(f"record version {version} is newer than this reader (it reads version {VERSION}); "
                          "upgrade dominocast")
    raise RecordError(f"unsupported record version {version!r} (this reader reads version {VERSION})")
