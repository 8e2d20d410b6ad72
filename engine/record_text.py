"""The text notation of a whole record: header tags, then each hand as numbered event lines.

    [Format "dominocast-record 1"]
    [Rules "lisa-b-all-fives"]
    [Rule target "150"]
    [Players "N: Ana; S: Bob"]

    Hand 1 (game 1)
    0. deal N 6-6 ... / S 6-3 ...
    1. N 6-6  {+0}
    2. S 6-3 E t=12.5 f=375 c=0.97  {+15}
    3. N 4-1 E  {+0} !mismatched_end
    = domino N +25  (pips: N 0, S 23; hand: N +25, S +15)

An event line is ``INDEX. EVENT [t=..] [f=..] [c=..] [oriented] [seat_by_turn] [by=".."] [why=".."]
{points} !flag ...``: the index is the event's slot in the hand's log (what ``fix``/``void`` refer to),
EVENT is :func:`engine.notation.format_event`, ``c=`` a play's confidence, ``oriented`` a play
whose half order was seen, ``seat_by_turn`` a play whose seat the camera took from the turn order
(it did not see who laid it), ``by=`` and ``why=`` who made a correction and why (JSON strings). An event the notation cannot carry exactly is written
``INDEX. json {...}`` (the event object). Braces, flags and ``=`` lines are derived:
:func:`read_text` ignores them and recomputes every derived part from the logs.
See ``docs/record-format.md``.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal

from pydantic import ValidationError

from engine.events import Correction, Play
from engine.notation import NotationError, format_event, parse_event
from engine.record import (
    FORMAT, VERSION, EventInfo, HandRecord, MatchRecord, RecordError, WarningKind, check_version, event_from_dict,
    event_to_dict, hand_name, in_turn_order, key_order, record_from_match, unfinished_hands,
)
from engine.ruleset import Ruleset, available_presets, load_ruleset

_META_TAGS = {"Event": "title", "Table": "table", "Date": "date"}
# runs of plain characters at once (helper-121: one repetition per character took 1 GB on a 5 MB tag line)
_TAG_RE = re.compile(r'^\[(\w+)(?:\s+([\w.]+))?\s+"((?>[^"\\]+|\\.)*)"\]$', re.ASCII)
_LINE_RE = re.compile(r"^(\d+)\.\s+(.*)$", re.ASCII)
_HAND_RE = re.compile(r"^Hand\s+(\d+)(?:\s+\(game\s+(\d+)\))?$", re.ASCII)
_FLAG_RE = re.compile(r"\s+!(\w+)$", re.ASCII)
_POINTS_RE = re.compile(r"\s+\{[^{}]*\}$")
_ATTR_RE = re.compile(r'\s+(?:(t|f|c)=(-?[0-9.]+)|(oriented|seat_by_turn)|(by|why)=("(?>[^"\\]+|\\.)*"))$',
                      re.ASCII)
#: A play's attributes that are words of their own: present means true.
_PLAY_FLAGS = ("oriented", "seat_by_turn")
#: Longest line read, characters: far above any name or event, far below what a regex can hold.
MAX_LINE_CHARS = 1_000_000


# ---- writing --------------------------------------------------------------------------

def write_text(record: MatchRecord) -> str:
    """The text notation of ``record`` (its derived parts as stored; see :func:`engine.record.rederive`)."""
    lines = [f'[Format "{FORMAT} {VERSION}"]', _tag("Rules", record.rules.preset)]
    lines += [_tag("Rule", _rule_value(v), key) for key, v in _rule_diff(record.rules.preset, record.rules.params)]
    lines += _player_tags(record.players)
    if any(len(seats) > 1 for seats in record.teams.values()):
        lines.append(_tag("Teams", "; ".join(f"{s}: {' '.join(seats)}" for s, seats in record.teams.items())))
    for tag, field in _META_TAGS.items():
        if getattr(record.event, field) is not None:
            lines.append(_tag(tag, getattr(record.event, field)))
    lines += [_tag("Warning", w, _kind_key(k)) for w, k in zip(record.warnings, record.kinds())]
    unfinished = {id(h): nxt for h, nxt in unfinished_hands(record)}
    for h, hand in enumerate(record.hands):
        lines += ["", f"Hand {hand.number} (game {hand.game})"]
        # an outcome is shown on the line whose event is in force in its slot (the latest fix)
        line_of = {i: i for i in range(len(hand.events))}
        line_of.update({ev.replaces: j for j, ev in enumerate(hand.events) if isinstance(ev, Correction)})
        outcomes = {line_of.get(o.index, o.index): o for o in hand.outcomes}
        for i, ev in enumerate(hand.events):
            shown = ev.event if isinstance(ev, Correction) else ev
            lines.append(_event_line(i, ev) + _annotation(shown, outcomes.get(i)))
        lines.append(_result_line(hand, unfinished.get(id(hand)), record))
        game = next((g for g in record.games if g.number == hand.game), None)
        last_of_game = h + 1 == len(record.hands) or record.hands[h + 1].game != hand.game
        if game is not None and game.ended_by and last_of_game:
            pips = bool(record.standings) and record.standings[0].unit == "pips"
            score = ", ".join(f"{s} {v}" for s, v in in_turn_order(game.pips if pips else game.scores, key_order(record.teams)).items())
            lines.append(f"== game {game.number} over ({game.ended_by}): {game.winner or 'tie'}  ({score})")
    if record.standings:
        unit = record.standings[0].unit
        rows = "; ".join(f"{r.side} {r.games} {r.total}" for r in record.standings)
        lines += ["", f"== standings (side, games won, {unit}): {rows}"]
    return "\n".join(lines) + "\n"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")


#: What a backslash escape inside a tag's quotes stands for; any other is an error.
_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "r": "\r"}


def _unescape(text: str) -> str:
    """A tag's value as written between its quotes, its escapes (:data:`_ESCAPES`) replaced.

    Raises:
        RecordError: another escape (helper-172: ``\\q`` was read as ``q``, the backslash lost).
    """
    def one(m: re.Match) -> str:
        if m.group(1) not in _ESCAPES:
            raise RecordError(f"unknown escape \\{m.group(1)} in a tag's value: inside the quotes \\\" \\\\ \\n "
                              "and \\r are the escapes (write \\\\ for a backslash)")
        return _ESCAPES[m.group(1)]

    return re.sub(r"\\(.)", one, text)


#: The key of a ``[Warning]`` tag whose warning leaves the score final ends so: ``[Warning small_tiles.final "..."]``.
FINAL_SUFFIX = ".final"


def _kind_key(kind: WarningKind | None) -> str | None:
    """The key of a warning's ``[Warning]`` tag: its kind, with :data:`FINAL_SUFFIX` when it leaves the score
    final; None (no key) for a warning of unknown kind."""
    return None if kind is None else kind.kind + ("" if kind.doubts_score else FINAL_SUFFIX)


def _tag(name: str, value: str, key: str | None = None) -> str:
    return f'[{name}{" " + key if key else ""} "{_escape(value)}"]'


def _rule_diff(preset: str, params: dict) -> list[tuple[str, object]]:
    """Parameters that differ from the preset as it is now (all of them for an unknown preset)."""
    base = load_ruleset(preset).model_dump(mode="json") if preset in available_presets() else {"name": preset}
    return [(k, v) for k, v in params.items() if k not in base or base[k] != v]


def _rule_value(value: object) -> str:
    """A parameter as tag text: a plain string as itself, anything else (or an ambiguous string) as JSON."""
    if isinstance(value, str) and _decode(value) == value:
        return value
    return json.dumps(value, ensure_ascii=False)


def _decode(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _player_tags(players: dict[str, str]) -> list[str]:
    if not players:
        return []
    plain = all(n and n == n.strip() and not set(n) & set(';:\n\r') for n in players.values())
    if plain:
        return [_tag("Players", "; ".join(f"{s}: {n}" for s, n in players.items()))]
    return [_tag("Player", n, s) for s, n in players.items()]


def _number(x: float) -> str:
    """A float written positionally and exactly (12.5, 0.00001), as ``float()`` reads it back."""
    return format(Decimal(repr(float(x))), "f")


def _event_line(index: int, ev: object) -> str:
    """``INDEX. EVENT [attrs]``, checked by reading it back; the JSON form when that differs."""
    try:
        line = f"{index}. {_event_text(ev)}"
        if "\n" not in line and "\r" not in line and _parse_event_line(line)[:2] == (index, ev):
            return line
    except (NotationError, RecordError, ValueError):
        pass
    return f"{index}. json {json.dumps(event_to_dict(ev), ensure_ascii=False)}"


def _event_text(ev: object) -> str:
    play = ev.event if isinstance(ev, Correction) and isinstance(ev.event, Play) else ev
    bare: dict = {"t": None, "frame": None}
    if isinstance(play, Play):  # a play's attributes (a fix's: its play's) follow the line's stamps
        marks = {"confidence": None, **dict.fromkeys(_PLAY_FLAGS, False)}
        bare.update(marks if play is ev else {"event": play.model_copy(update=marks)})
    text = format_event(ev.model_copy(update=bare))
    if ev.t is not None:
        text += f" t={_number(ev.t)}"
    if ev.frame is not None:
        text += f" f={ev.frame}"
    if isinstance(play, Play):
        text += f" c={_number(play.confidence)}" if play.confidence is not None else ""
        text += "".join(f" {word}" for word in _PLAY_FLAGS if getattr(play, word))
    if isinstance(ev, Correction):  # who corrected and why: JSON string literals
        text += f" by={json.dumps(ev.by, ensure_ascii=False)}" if ev.by else ""
        text += f" why={json.dumps(ev.reason, ensure_ascii=False)}" if ev.reason else ""
    return text


def _points(points: dict[str, int], own: str | None) -> str:
    """``+10`` for points to ``own`` side alone; ``N -25, S +25`` otherwise; ``+0`` for none."""
    if not points:
        return "+0"
    if own is not None and set(points) == {own}:
        return f"{points[own]:+d}"
    return ", ".join(f"{s} {p:+d}" for s, p in points.items())


def _annotation(ev: object, out) -> str:
    """The derived part of an event line: ``  {points} !flag ...``."""
    if out is None:
        return ""
    seat = getattr(ev, "seat", None)
    own = next((s for s in out.points if seat and seat in s), None) if out.points else None
    text = f"  {{{_points(out.points, own)}}}" if out.points or isinstance(ev, Play) else ""
    flags = " ".join(f"!{f.kind}" for f in out.flags)
    return text + (("  " if not text else " ") + flags if flags else "")


def _result_line(hand: HandRecord, next_hand: HandRecord | None, record: MatchRecord) -> str:
    r = hand.result
    if r is None:
        state = "awaiting reveal" if hand.status == "awaiting_reveal" else "in progress"
        if next_hand is not None:  # helper-109: a void of the play that went out left this silently uncounted
            return (f"= unfinished ({state}): {hand_name(next_hand, record)} began before it ended, so its "
                    "end-of-hand points are not counted; end it with its result")
        return f"= {state}"
    awards = {s: p for s, p in r.awards.items() if p}
    head = f"= {r.kind}" + (f" {r.winner}" if r.winner else "") + f" {_points(awards, r.side)}"
    head += " capicua" if r.capicua else ""
    parts = []
    order = key_order(record.teams)  # the seats as they play, a partnership's teams together (N, S, W, E)
    if r.remaining:
        parts.append("pips: " + ", ".join(f"{s} {p}" for s, p in in_turn_order(r.remaining, order).items()))
    parts.append("hand: " + ", ".join(f"{s} {p:+d}" for s, p in in_turn_order(hand.points, order).items()))
    return f"{head}  ({'; '.join(parts)})"


# ---- reading --------------------------------------------------------------------------

def read_text(text: str, warnings: list[str] | None = None) -> MatchRecord:
    """Read the text notation; every derived part is recomputed from the logs.

    Args:
        text: the notation.
        warnings: when given, gets a line for each doubt that does not stop the reading: a file
            written by dominocast that lacks its closing standings line looks cut off (hands or
            events after its last line may be missing).

    Raises:
        RecordError: a malformed or unknown tag, a missing or unsupported format, a bad
            event line or index, rule overrides that do not validate, a log that cannot
            be replayed (the message names the line), or, in a file dominocast wrote (derived parts
            before it), a last line with no line end after it (a file cut off inside that line, which
            may then read as another event).
    """
    tags: dict[str, str] = {}
    rules: dict[str, object] = {}
    players: dict[str, str] = {}
    noted: list[tuple[str, WarningKind | None]] = []  # the [Warning] tags: the record's warnings and their kinds
    # (the ``warnings`` argument is the reader's)
    logs: list[list] = []
    heads: list[tuple[int, str, int, int | None]] = []  # (line, text, hand number, game number) per 'Hand' line
    derived = standings = False  # a derived part seen (the writer's output); its closing standings line
    # lines end at \n, \r\n or \r only: a name may hold U+2028, \v, \x1c ... which splitlines() breaks at
    # (helper-121: such a notation could not be read back)
    lines = re.split(r"\r\n|\n|\r", text)
    # the writer ends every line with a line end: a last line without one may have been cut anywhere,
    # and a cut event line can still read, as another event (f=1857 cut to f=18, penalty -25 to -2)
    cut = len(lines) if lines[-1].strip() and not lines[-1].strip().startswith(("#", "=")) else None
    for n, raw in enumerate(lines, start=1):
        if len(raw) > MAX_LINE_CHARS:
            raise RecordError(f"line {n} is {len(raw):,} characters long (at most {MAX_LINE_CHARS:,})")
        line = raw.strip()
        if line.startswith("="):
            derived = True
            standings = standings or (bool(logs) and line.startswith("== standings"))
        if not line or line.startswith(("#", "=")):
            continue  # blank, comment, or a derived line (results, game ends, standings)
        if n == cut and derived:  # written by dominocast; a hand-written file may lack its last line end
            raise RecordError(_cut_message(n, line))
        try:
            if line.startswith("["):
                if logs:
                    raise RecordError("tags come before the first hand")
                _read_tag(line, tags, rules, players, noted)
            elif hm := _HAND_RE.match(line):
                logs.append([])
                heads.append((n, line, int(hm.group(1)), int(hm.group(2)) if hm.group(2) else None))
            else:
                if not logs and _LINE_RE.match(line):
                    raise RecordError("an event line before the first 'Hand N' line")
                if not logs:
                    raise RecordError(f"{line!r} is not a tag, a 'Hand N' line or a comment")
                index, ev, annotation = _parse_event_line(line)
                if index != len(logs[-1]):
                    raise RecordError(f"event number {index}, expected {len(logs[-1])} (events are numbered from 0)")
                logs[-1].append(ev)
                derived = derived or bool(annotation.strip())
        except ValueError as exc:  # RecordError, NotationError, a bad number
            raise RecordError(f"line {n}: {exc}") from None
    if "Format" not in tags:
        raise RecordError('not a dominocast record: no [Format "dominocast-record 1"] tag')
    record = _build(tags, rules, players, logs, noted)
    _check_heads(heads, record)
    if warnings is not None and derived and logs and not standings:
        # the writer ends every record that has a hand with its standings line: a file cut at a line end
        # reads without error, the end of the game lost (a hand-written file has no derived lines)
        last = record.hands[-1]
        where = (f"after event {len(last.events) - 1} of {hand_name(last, record)}" if last.events
                 else f"at the start of {hand_name(last, record)}")
        warnings.append(f"the record looks cut off (an interrupted copy or download?): it ends {where} without the "
                        "'== standings' line dominocast writes last, so events or hands after that may be missing")
    return record


def _cut_message(n: int, line: str) -> str:
    """The error for a last line with no line end after it: it may be a cut line read as another event."""
    shown = line if len(line) <= 60 else line[:57] + "..."
    return (f"line {n}: the file ends inside this line ({shown!r}, no line end after it): it looks cut off (an "
            "interrupted copy or download?) and the line may be incomplete; compare it with the original "
            "(a whole file ends with a line end)")


def _check_heads(heads: list[tuple[int, str, int, int | None]], record: MatchRecord) -> None:
    """Each 'Hand N (game G)' line names the hand that follows as the replay numbers it (helper-84:
    'Hand 3' then 'Hand 1' were read as hands 1 and 2 without a word). Without '(game G)', N may
    also count the hands over the whole match."""
    for k, ((n, line, number, game), hand) in enumerate(zip(heads, record.hands), start=1):
        if (number == hand.number and game in (None, hand.game)) or (game is None and number == k):
            continue
        moved = game is not None and game != hand.game
        raise RecordError(f"line {n}: {line!r} is hand {hand.number} of game {hand.game} (hands are numbered "
                          "in order within their game" + ("; games end where the scores say: a correction may have "
                                                          "moved a game's end, so renumber the hand lines after it"
                                                          if moved else "") + ")")


def _read_tag(line: str, tags: dict, rules: dict, players: dict, noted: list[tuple[str, WarningKind | None]]) -> None:
    m = _TAG_RE.match(line)
    if not m:
        raise RecordError(f'malformed tag {line!r} (write [Name "value"] or [Rule key "value"])')
    name, key, value = m.group(1), m.group(2), _unescape(m.group(3))
    if (key is not None) != (name in ("Rule", "Player")) and name != "Warning":  # a warning's key: its kind
        raise RecordError(f"tag {name} " + ("takes a key" if key is None else "takes no key"))
    # a second value would silently win (a target of 300 read as 100): said, as an unknown tag is
    if name in ("Format", "Players", "Rules", "Teams", *_META_TAGS) and name in tags:  # helper-121: Format, Players
        raise RecordError(f"[{name}] is given twice")
    if name == "Rule":
        if key in rules:
            raise RecordError(f"[Rule {key}] is given twice")
        rules[key] = _decode(value)
    elif name == "Player":
        _name_seat(players, key, value)
    elif name == "Players":
        tags[name] = value
        for part in filter(None, (p.strip() for p in value.split(";"))):
            seat, sep, who = part.partition(":")
            if not sep:
                raise RecordError(f"Players: {part!r} is not 'SEAT: name'")
            _name_seat(players, seat.strip(), who.strip())
    elif name == "Format":
        fmt, _, version = value.partition(" ")
        if fmt != FORMAT:
            raise RecordError(f"not a dominocast record (format {fmt!r}, expected {FORMAT!r})")
        check_version(version or None)
        tags[name] = value
    elif name in ("Rules", "Teams") or name in _META_TAGS:
        tags[name] = value  # Teams is derived from the rules: informational
    elif name == "Warning":  # one per line of the record's warnings, in order
        if not value.strip():  # helper-172: read as a warning of nothing, which put the score in doubt
            raise RecordError(f"{line} is empty: a warning says what puts the record in doubt (delete the tag "
                              "if there is none)")
        noted.append((value, None if key is None else _read_kind(key)))
    else:
        known = ", ".join(["Format", "Rules", "Rule", "Players", "Player", "Teams", *_META_TAGS, "Warning"])
        raise RecordError(f"unknown tag {name!r} (tags: {known})")


def _read_kind(key: str) -> WarningKind:
    """A ``[Warning]`` tag's key (:func:`_kind_key`) as the warning's kind.

    Raises:
        RecordError: a key that is not a word, with or without :data:`FINAL_SUFFIX`.
    """
    kind = key.removesuffix(FINAL_SUFFIX)
    if not re.fullmatch(r"\w+", kind, re.ASCII):
        raise RecordError(f"[Warning {key}]: a warning's key is its kind, a word (no_calibration), ending in "
                          f"{FINAL_SUFFIX} when it leaves the score final (small_tiles{FINAL_SUFFIX})")
    return WarningKind(kind=kind, doubts_score=kind == key)


def _name_seat(players: dict, seat: str, who: str) -> None:
    if seat in players:
        raise RecordError(f"seat {seat} is named twice ({players[seat]!r} and {who!r})")
    players[seat] = who


def _parse_event_line(line: str) -> tuple[int, object, str]:
    """``INDEX. EVENT ...`` -> (index, event, derived annotation text).

    Raises:
        RecordError / NotationError: not an event line, or an event that does not parse.
    """
    m = _LINE_RE.match(line)
    if not m:
        raise RecordError(f"{line!r} is not a tag, a 'Hand N' line or a numbered event line")
    index, body = int(m.group(1)), m.group(2)
    if body.startswith("json "):
        try:
            obj, end = json.JSONDecoder().raw_decode(body, 5)
            return index, event_from_dict(obj), body[end:]
        except (json.JSONDecodeError, ValueError) as exc:
            raise RecordError(f"event {index}: bad JSON event: {str(exc).splitlines()[0]}") from None
    start = len(body)
    while fm := _FLAG_RE.search(body):
        body = body[: fm.start()]
    body = _POINTS_RE.sub("", body)
    annotation = m.group(2)[len(body):start]
    attrs: dict = {}
    notes: dict = {}  # a correction's by= and why=
    while am := _ATTR_RE.search(body):
        key, value = am.group(1) or am.group(3) or am.group(4), am.group(2) or am.group(5)
        field = {"t": "t", "f": "frame", "c": "confidence", "by": "by", "why": "reason"}.get(key, key)
        if field in attrs or field in notes:
            raise RecordError(f"event {index}: {key}{'=' if value is not None else ''} given twice")
        try:
            if key in ("by", "why"):
                notes[field] = json.loads(value)
            else:
                attrs[field] = True if key in _PLAY_FLAGS else int(value) if key == "f" else float(value)
        except ValueError:
            what = ("a quoted text" if key in ("by", "why") else "a frame index (a whole number >= 0)" if key == "f"
                    else "a number")
            raise RecordError(f"event {index}: {key}={value} is not {what}") from None
        body = body[: am.start()]
    if bad := re.search(r"\s(by|why)\s*=", body):  # not a well-formed by="..." at the line's end
        raise RecordError(f"event {index}: {bad.group(1)}= takes one double-quoted text (a JSON string: \\\" for a "
                          f'quote), after the event, e.g. {bad.group(1)}="umpire Ana"')
    ev = parse_event(body)
    if notes and not isinstance(ev, Correction):
        raise RecordError(f"event {index}: by= and why= apply to fix and void lines only")
    attrs.update(notes)
    play_attrs = {k: attrs.pop(k) for k in ("confidence", *_PLAY_FLAGS) if k in attrs}
    # a fix that puts a play in: c=, oriented and seat_by_turn are that play's (helper-84: refused as "plays only")
    target = ev.event if isinstance(ev, Correction) and isinstance(ev.event, Play) else ev
    if play_attrs and not isinstance(target, Play):
        raise RecordError(f"event {index}: c=, oriented and seat_by_turn apply to plays only")
    try:  # validated like the event's own fields (t >= 0, 0 <= c <= 1, finite)
        if play_attrs:
            played = type(target).model_validate({**target.model_dump(), **play_attrs})
            ev = ev.model_copy(update={"event": played}) if target is not ev else played
        if attrs:
            ev = type(ev).model_validate({**ev.model_dump(), **attrs})
    except ValidationError as exc:
        err = exc.errors()[0]
        field = {"reason": "why=", "by": "by="}.get(str(err["loc"][0]), err["loc"][0])  # as written in the line
        raise RecordError(f"event {index}: {field}: {err['msg']}") from None
    return index, ev, annotation


def _build(tags: dict, rule_tags: dict, players: dict, logs: list[list],
           warnings: list[tuple[str, WarningKind | None]]) -> MatchRecord:
    preset = tags.get("Rules")
    if not preset:
        raise RecordError('no [Rules "PRESET"] tag')
    base = load_ruleset(preset).model_dump(mode="json") if preset in available_presets() else {"name": preset}
    try:
        rules = Ruleset.model_validate({**base, **rule_tags})
    except ValueError as exc:
        err = exc.errors()[0] if hasattr(exc, "errors") else {"loc": (), "msg": str(exc)}
        key = ".".join(str(p) for p in err["loc"]) or "(rule set)"
        if preset not in available_presets() and err.get("type") == "missing":  # a typo more often than a custom set
            raise RecordError(f"unknown rule set {preset!r} (presets: {', '.join(available_presets())}); a rule set "
                              f"of your own needs every parameter as a [Rule key \"value\"] tag (missing: {key})"
                              ) from None
        raise RecordError(f"rule set {preset!r}: key {key!r}: {err['msg']}") from None
    meta = EventInfo(**{f: tags[t] for t, f in _META_TAGS.items() if t in tags})
    try:
        return record_from_match(rules, logs, players, meta, [w for w, _ in warnings], [k for _, k in warnings])
    except RecordError:
        raise
    except ValueError as exc:  # IllegalEvent, a hand after the match is over
        raise RecordError(str(exc)) from None
