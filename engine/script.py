"""Hand scripts: a match written by hand (YAML or JSON) for ``dominocast score``.

    rules: lisa-b-all-fives        # preset name or path to a TOML file
    overrides: {players: 4}        # optional rule-set fields
    players: {N: Ana, S: Bob}      # optional names per seat
    hands:
      - events:                    # notation lines (engine/notation.py) or event objects
          - deal N 6-6 5-5 ... / S 4-4 ...
          - N 6-6
          - S 6-4 E

The engine is the judge: game breaks, leaders and points all come from the rule set.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import ValidationError

from engine.files import InputFileError, read_input, readable
from engine.notation import NotationError, parse_event
from engine.record import event_from_dict, is_event_lines, is_notation, why_not_an_event
from engine.ruleset import Ruleset, RulesetError, load_ruleset
from engine.seats import seats_for

#: A script longer than this (bytes) is refused before it is read: a match of many hands is a few hundred KB.
MAX_SCRIPT_BYTES = 16 << 20


class ScriptError(ValueError):
    """A script that cannot be read; the message names the file and the location in it."""


@dataclass
class Script:
    """A parsed script: the rule set, player names and one event list per hand."""

    rules: Ruleset
    players: dict[str, str] = field(default_factory=dict)
    hands: list[list] = field(default_factory=list)
    title: str | None = None


def parse_item(item: object, where: str) -> object:
    """One event of a script: a notation string or an event object (dict).

    Raises:
        ScriptError: with ``where`` in the message.
    """
    try:
        if isinstance(item, str):
            return parse_event(item)
        if isinstance(item, dict):
            return event_from_dict(item)
    except NotationError as exc:
        raise ScriptError(f"{where}: {exc}") from None
    except ValidationError as exc:
        raise ScriptError(f"{where}: {why_not_an_event(exc)}") from None
    except ValueError as exc:
        raise ScriptError(f"{where}: {exc}") from None
    raise ScriptError(f"{where}: an event is a notation line or an object, not {type(item).__name__}")


def hand_events(hand: object, where: str) -> list:
    """The events of one entry of a script's ``hands``: ``{events: [...]}`` or a bare list of events.

    Raises:
        ScriptError: a key other than ``events`` (named, as a top-level typo is), ``events`` not a list,
            or a bad event (``where.events[i]`` in the message).
    """
    events = hand
    if isinstance(hand, dict):
        unknown = sorted(map(str, set(hand) - {"events"}))
        if unknown:  # helper-220: 'evnts' read as "'events' must be a list"
            raise ScriptError(f"{where}: unknown key {unknown[0]!r} (keys: events)")
        events = hand.get("events")
    if not isinstance(events, list):
        raise ScriptError(f"{where}: 'events' must be a list")
    return [parse_item(item, f"{where}.events[{i}]") for i, item in enumerate(events)]


def load_script(path: str | Path, rules: str | None = None) -> Script:
    """Read a YAML or JSON script; ``rules`` (a preset name) overrides the script's own.

    Raises:
        ScriptError: unreadable file, malformed YAML/JSON, bad structure or event, unknown preset.
    """
    path = Path(path)
    try:
        text = read_input(path, "script file", limit=MAX_SCRIPT_BYTES).decode("utf-8")
    except UnicodeDecodeError:
        raise ScriptError(f"{path}: not a text file (a video or a picture?): a script is YAML or JSON") from None
    except InputFileError as exc:
        raise ScriptError(str(exc)) from None
    if is_notation(text):
        raise ScriptError(f"{path} is a game record in text notation, not a script: `dominocast record show {path}` "
                          "prints it (its scores are in it)")
    if is_event_lines(text):
        raise ScriptError(f"{path} is a review's event log (one row per line), not a script: its record is "
                          "record.json beside it")
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        # fix (tests/test_cli_score.py): say where: the YAML error's first line has no position
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        what = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ScriptError(f"{path}: malformed {'JSON' if path.suffix == '.json' else 'YAML'}: {where}{what}") from None
    if not isinstance(data, dict):
        raise ScriptError(f"{path}: a script is a mapping with 'rules' and 'hands'")
    if str(data.get("format", "")).startswith("dominocast-record"):
        raise ScriptError(f"{path} is a game record, not a script: `dominocast record show {path}` prints it "
                          "(its scores are in it)")
    if str(data.get("format", "")).startswith("dominocast-footage"):  # beside its video: "unknown key 'appearance'"
        raise ScriptError(f"{path} is the ground truth of a rendered footage, not a script: `dominocast review` its "
                          "video for a record of it")
    unknown = set(data) - {"rules", "overrides", "players", "hands", "title"}
    if unknown:
        raise ScriptError(f"{path}: unknown key {sorted(unknown)[0]!r} (keys: rules, overrides, players, hands)")
    preset = data.get("rules") if rules is None else rules  # --rules "" is refused, not ignored (helper-151)
    if preset is None:  # "" goes on to load_ruleset, which says it is empty
        raise ScriptError(f"{path}: no rule set: add 'rules: PRESET' or pass --rules")
    if not isinstance(preset, str):
        raise ScriptError(f"{path}: 'rules' is a preset name or a TOML file, got {preset!r}")
    overrides = data.get("overrides") or {}
    if not isinstance(overrides, dict) or not all(isinstance(k, str) for k in overrides):
        raise ScriptError(f"{path}: 'overrides' is a mapping of rule-set fields, got {overrides!r}")
    try:
        ruleset = load_ruleset(preset, **overrides)
    except RulesetError as exc:
        raise ScriptError(f"{path}: {exc}") from None
    hands = data.get("hands")
    if not isinstance(hands, list) or not hands:
        raise ScriptError(f"{path}: 'hands' must be a non-empty list")
    out = [hand_events(hand, f"{path}: hands[{h}]") for h, hand in enumerate(hands)]
    players = data.get("players") or {}
    if not isinstance(players, dict) or not all(isinstance(v, (str, int, float)) for v in players.values()):
        raise ScriptError(f"{path}: 'players' maps seats to names (N: Ana), got {players!r}")
    seats = seats_for(ruleset.players, ruleset.play_direction)
    stray = [str(k) for k in players if str(k) not in seats]
    if stray:  # as a record refuses it (engine.record.record_from_match): a name for nobody is a typo
        raise ScriptError(f"{path}: players: seat {stray[0]!r} is not playing (seats: {', '.join(seats)})")
    title = data.get("title")
    if title is not None and not isinstance(title, str):
        raise ScriptError(f"{path}: 'title' is text, got {title!r}")
    # a JSON "\ud800" escape makes a lone surrogate, which no file can hold: shown as U+FFFD (helper-154)
    return Script(ruleset, {str(k): readable(str(v)) for k, v in players.items()}, out,
                  None if title is None else readable(title))
