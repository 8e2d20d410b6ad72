"""Rule sets as data: one TOML file per preset in ``engine/rulesets/``.

Every point where published domino rules disagree is a named field here (see
``docs/rules.md`` for each preset's values and the seed sentence they come from).
A preset is validated on load; an unknown or badly typed key raises
:class:`RulesetError` naming the key and the file.

>>> rs = load_ruleset("all-fives")
>>> rs.spinner, rs.domino_rounding
('first_double', 'nearest5')
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from engine.files import InputFileError, read_input, readable

RULESET_DIR = Path(__file__).parent / "rulesets"
#: Highest game target a rule set may name (points).
MAX_TARGET = 10_000
#: Most hands per game, or games per match, a rule set may name.
MAX_COUNT = 1_000
#: The most points one bonus or penalty of a rule set may give or take, as one entered by the umpire
#: (the presets' are -50..30): a typo of a few digits would otherwise end the match (helper-146).
MAX_POINTS = 1_000
#: Largest rule set file read (bytes); the presets are about 2 KB.
MAX_RULESET_BYTES = 1 << 20


def _points(default: int | None, low: int = 0) -> object:
    """A rule set's points field: an integer (not true/false, not 1.0) within ``low``..:data:`MAX_POINTS`."""
    return Field(default, ge=low, le=MAX_POINTS, strict=True)


class RulesetError(ValueError):
    """A rule set file is missing, malformed, or has a bad key (the message names it)."""


class Penalty(BaseModel):
    """A fixed penalty the umpire applies for an infraction.

    ``infractor`` points are added to the infractor's side (negative: a deduction);
    ``opponents`` points are added to the opposing side(s).
    """

    model_config = ConfigDict(extra="forbid")
    infractor: int = _points(0, -MAX_POINTS)
    opponents: int = _points(0, -MAX_POINTS)
    ends_hand: bool = False
    redeal: bool = False
    opponents_lead_next: bool = False
    # who leads the next hand: the usual opener (an opponent if opponents_lead_next); the seat to the
    # infractor's right (seed 001); or the usual leader, passed to the next seat if it is the infractor (seed 000)
    next_leader: Literal["usual", "right_of_infractor", "not_infractor"] = "usual"
    # warnings to the table before the points apply, counted per game across all players (seed 003: one
    # for a misplaced first tile, "that will apply to all (4) players"); a warned penalty does nothing else
    warnings: int = Field(0, ge=0)
    source: str = ""

    def describe(self) -> str:
        """What the penalty does, as docs/rules.md's table says it: ``-25 infr.; +25 opp.; ends hand; redeal``."""
        parts = [f"{self.infractor:+d} infr." if self.infractor else "", f"{self.opponents:+d} opp." if self.opponents else "",
                 "ends hand" if self.ends_hand else "", "redeal" if self.redeal else "",
                 "opp. lead" if self.opponents_lead_next else "",
                 self.next_leader.replace("_", " ") if self.next_leader != "usual" else "",
                 f"{self.warnings} warning{'s' if self.warnings != 1 else ''}" if self.warnings else ""]
        return "; ".join(p for p in parts if p) or "no points"


class Ruleset(BaseModel):
    """All parameters of a domino rule set. Field docs name the options seen in published rules."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    title: str
    source: str = Field(description="seed file or published source the values come from")
    game: Literal["draw", "block", "muggins", "none"] = "draw"

    # --- set, seats, deal -------------------------------------------------------
    set_max: int = Field(6, ge=6, le=12, description="double-N set: 6, 9 or 12")
    players: int = Field(4, ge=2, le=4)
    partnership: bool = False
    hand_size: int = Field(7, ge=1)
    play_direction: Literal["clockwise", "counterclockwise"] = "clockwise"

    # --- boneyard ---------------------------------------------------------------
    boneyard: bool = True
    draw_rule: Literal["until_playable", "none", "any_time"] = "until_playable"
    # tiles that may never be drawn, by number of players ("2": 2 means two stay in a 2-player game)
    boneyard_reserve: dict[str, int] = Field(default_factory=dict)

    # --- layout -----------------------------------------------------------------
    spinner: Literal["first_double", "every_double", "none"] = "first_double"
    spinner_arms_open: Literal["immediately", "after_both_sides"] = "after_both_sides"

    # --- scoring during play ----------------------------------------------------
    score_ends: bool = True
    end_score_scale: Literal["total", "fives_divided", "fives_and_threes"] = "total"
    double_at_end_counts: Literal["both", "one"] = "both"
    lone_spinner_counts: Literal["both", "one"] = "both"
    extra_turn: Literal["none", "scoring_or_double"] = "none"
    no_domino_with_scoring_or_double: bool = False

    # --- opening ------------------------------------------------------------------
    first_hand_opener: Literal["double_six", "highest_double_descending", "any"] = "double_six"
    first_hand_no_double: Literal["redeal", "highest_tile"] = "redeal"
    # who opens game 2, 3, ...: as the first game, or the previous game's winner with any tile (seed 002)
    next_game_opener: Literal["first_hand_opener", "previous_winner"] = "first_hand_opener"
    # "lot": nobody is due to lead; whoever plays first leads (pagat All Fives after a block)
    next_hand_opener: Literal["hand_winner", "double_six", "next_seat", "lot"] = "hand_winner"
    after_lock_opener: Literal["hand_winner", "double_six", "same_as_last", "next_seat", "lot"] = "hand_winner"
    after_lock_tie_opener: Literal["same_as_last", "double_six", "next_seat", "lot"] = "same_as_last"

    # --- end of hand --------------------------------------------------------------
    domino_counts: Literal["opponents", "all_others"] = "opponents"
    domino_subtract_partner: bool = False
    domino_rounding: Literal["nearest5", "down5", "up5", "exact"] = "nearest5"
    # going out scores this flat amount instead of the pips (Fives and Threes: 1); None: the pips
    domino_fixed_points: int | None = _points(None)
    # False: a domino made with an exposed (touched, face-up) tile scores nothing (seed 003)
    exposed_tile_domino_scores: bool = True
    # True: a seat that plays another tile while its exposed tile fits is flagged (seeds 001, 003)
    exposed_tile_play_first: bool = False
    lock_winner: Literal["lowest_individual", "lowest_team", "locker_vs_right"] = "lowest_individual"
    lock_tie: Literal["no_score", "split", "split_if_three", "locker", "leading_team"] = "no_score"
    lock_points: Literal["opponents_pips", "all_pips", "difference", "difference_cascade", "none"] = "opponents_pips"
    lock_rounding: Literal["nearest5", "down5", "up5", "exact"] = "nearest5"

    # --- bonuses ------------------------------------------------------------------
    capicua_bonus: int = _points(0)
    # when the last tile (not a double) is a capicua: only when it fits two ends showing different numbers
    # (engine default, as many Latin tables); or whenever it fits both open ends, even ends showing the
    # same number (seed 001: "can be played on either side except a double")
    capicua_ends: Literal["either_side", "different_numbers"] = "different_numbers"
    first_tile_unanswered_bonus: int = _points(0)
    all_pass_bonus: int = _points(0)

    # --- redeal -------------------------------------------------------------------
    redeal_doubles: int | None = Field(None, ge=1,
                                       description="doubles in one hand that force/allow a redeal; None: never")
    redeal_doubles_mode: Literal["mandatory", "option"] = "mandatory"

    # --- game and match -----------------------------------------------------------
    # bounded so that a typo or a hostile override cannot make the overlay read "to 1e+30" (helper-143);
    # the presets play to 61-200 points (docs/rules.md); time limits are seconds or minutes
    target: int | None = Field(200, ge=1, le=MAX_TARGET, strict=True)
    target_exact: bool = False
    target_checked: Literal["end_of_hand", "immediately"] = "end_of_hand"
    time_limit_min: float | None = Field(None, gt=0, le=24 * 60, allow_inf_nan=False)
    hand_in_progress_finishes: bool = True
    # a game ends after this many hands whatever the score (seed 002: one hand); None: play to target
    hands_per_game: int | None = Field(None, ge=1, le=MAX_COUNT)
    # sides tied on top at or over the target play one more hand, or one per player (seed 004)
    target_tie_extra_hands: Literal["one", "per_player"] = "one"
    # False: pass bonuses and penalty points cannot win the game; capicua and hand points can (seed 001)
    penalty_points_can_win: bool = True
    # seconds for a play, and for a play that locks the game; slow_play applies after (seed 003: 20, 40)
    play_time_limit_s: int | None = Field(None, ge=1, le=3600)
    locking_play_time_limit_s: int | None = Field(None, ge=1, le=3600)
    games_per_match: int = Field(1, ge=1, le=MAX_COUNT)
    standings: Literal["points", "cumulative_pips"] = "points"

    # --- penalties the umpire applies (by name: bogus_play, pass_with_play, ...) ----
    penalties: dict[str, Penalty] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> "Ruleset":
        if self.partnership and self.players != 4:
            raise ValueError("partnership needs players = 4")
        if self.hand_size * self.players > (self.set_max + 1) * (self.set_max + 2) // 2:
            raise ValueError("hand_size * players exceeds the number of tiles in the set")
        if not self.boneyard and self.draw_rule != "none":
            raise ValueError("draw_rule must be 'none' when boneyard = false")
        for k in self.boneyard_reserve:
            if k not in {"2", "3", "4"}:
                raise ValueError(f"boneyard_reserve key {k!r} must be a player count 2..4")
        return self

    def reserve(self) -> int:
        """Tiles that stay in the boneyard and may never be drawn, for this player count."""
        return self.boneyard_reserve.get(str(self.players), 0)


def ruleset_quotes(name_or_path: str | Path) -> dict[str, str]:
    """Where each value of a rule set comes from: its TOML file's comment above each key (for a preset,
    the rule text's sentence it follows, or why it is a judgment), by key; ``penalties.NAME`` for a
    penalty's table. The file is the one :func:`load_ruleset` reads for ``name_or_path`` (a file named
    ./all-fives is read, not the preset: helper-151); empty when it cannot be read.
    """
    try:
        content = read_input(ruleset_path(name_or_path), "rule set file", limit=MAX_RULESET_BYTES).decode("utf-8")
    except (RulesetError, InputFileError, UnicodeDecodeError):
        return {}
    out: dict[str, str] = {}
    said: list[str] = []
    for line in content.splitlines():
        text = line.strip()
        if text.startswith("#"):
            said.append(text.lstrip("#").strip())
            continue
        text, inline = _split_comment(text)
        said += [inline] if inline else []  # `target = 150  # our club` (helper-152: it was not shown)
        key = text[1:-1] if text.startswith("[") and text.endswith("]") else text.partition("=")[0].strip()
        key = ".".join(part.strip().strip("\"'") for part in key.split("."))  # "target" = 150 is target
        if key and said and (text.startswith("[") or "=" in text):
            out.setdefault(key, " ".join(said))
        said = []
    return out


def _split_comment(line: str) -> tuple[str, str]:
    """A TOML line's content and its trailing ``# comment`` (a ``#`` inside a quoted string is text)."""
    quote, escaped = None, False
    for i, ch in enumerate(line):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':  # a basic string's escape; a literal ('...') has none
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return line[:i].rstrip(), line[i + 1:].strip()
    return line, ""


#: A preset's ``source`` when it is a tournament rule text: ``seed <file stem> (<title>)``.
SEED_SOURCE = re.compile(r"seed (?P<stem>\d{3}_[0-9a-f]{16}) \((?P<title>.+)\)")


def source_label(source: str) -> str:
    """``source`` as a reader names it: a seed's title first, then its file (helper-165: the list led with
    the id, ``seed 000_708a877065d77bfc``, which names no file a reader can find); other text as is.
    ``dominocast rules`` and ``GET /api/rulesets`` show it; the stored value keeps the id."""
    m = SEED_SOURCE.fullmatch(source)
    return f"{m['title']} (seed file {m['stem']}.txt)" if m else source


def available_presets() -> list[str]:
    """Names of the bundled presets, sorted."""
    return sorted(p.stem for p in RULESET_DIR.glob("*.toml"))


def presets_with(**values: object) -> list[str]:
    """Names of the bundled presets whose fields equal ``values``, sorted: ``presets_with(players=2,
    hand_size=5)`` is ``["muggins"]``. The presets are read on each call (a warning's hint, not a hot path).

    Raises:
        RulesetError: a preset fails to load, or ``values`` names a field no rule set has.
    """
    unknown = set(values) - set(Ruleset.model_fields)
    if unknown:
        raise RulesetError(f"no rule set field {sorted(unknown)[0]!r}")
    presets = [load_ruleset(name) for name in available_presets()]
    return [rs.name for rs in presets if all(getattr(rs, key) == value for key, value in values.items())]


def ruleset_path(name_or_path: str | Path) -> Path:
    """The TOML file :func:`load_ruleset` reads for ``name_or_path``: a bundled preset's for a bare word
    (no folder separator, no suffix) that names a preset, or that names no file here; else the path.
    /etc/passwd is then "not valid TOML", not "unknown rule set" (helper-149), and ./all-fives is a file,
    although Path drops its "./" (helper-150).

    Raises:
        RulesetError: empty (``Path("")`` reads as the current folder: helper-150), or a bare word that
            is neither a preset nor a file here.
    """
    text = str(name_or_path)
    if not text.strip():
        raise RulesetError(f"the rule set is empty: name a preset ({', '.join(available_presets())}) or a TOML file")
    path = Path(text)
    if is_bare_name(text) and ((RULESET_DIR / f"{text}.toml").exists() or not path.exists()):
        name = preset_name(text)
        if name is None:
            near = difflib.get_close_matches(_folded(text), available_presets(), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise RulesetError(f"unknown rule set {text!r}{hint}; presets: {', '.join(available_presets())}")
        path = RULESET_DIR / f"{name}.toml"
    return path


def is_bare_name(text: str) -> bool:
    """Whether ``text`` is a bare word (no folder separator, no suffix), which names a preset unless a file
    here has that name; anything else is a path (:func:`ruleset_path`)."""
    return not Path(text).suffix and "/" not in text and os.sep not in text


def _folded(text: str) -> str:
    """A preset name as typed, folded: outer spaces dropped, lower case, runs of spaces and ``_`` as ``-``."""
    return re.sub(r"[\s_]+", "-", text.strip().casefold())


def preset_name(text: str) -> str | None:
    """The bundled preset a name means, its case, outer spaces and ``_`` for ``-`` forgiven (helper-174:
    ``All-Fives``, `` all-fives`` and ``all_fives`` were unknown rule sets); None when it names none."""
    folded = _folded(text)
    return folded if folded in available_presets() else None


def load_ruleset(name_or_path: str | Path, **overrides: object) -> Ruleset:
    """Load a bundled preset by name, or a TOML file by path, with optional field overrides.

    Raises:
        RulesetError: unknown preset, unreadable TOML, or a key that fails validation
            (the message names the key and the file).
    """
    text = str(name_or_path)
    path = ruleset_path(text)
    data = _read_toml(path, text)
    data.update(overrides)
    data.setdefault("name", readable(path.stem))  # a file name's bytes that are not UTF-8: helper-151
    try:
        return Ruleset.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        if err["loc"] and err["loc"][0] in overrides:  # the caller's value, not the file's
            raise RulesetError(f"override {_key(err)!r}: {err['msg']}") from None
        where = f"rule set {path.stem!r}" if path.parent == RULESET_DIR else text
        raise RulesetError(f"{where}: key {_key(err)!r}: {err['msg']}") from None


def _read_toml(path: Path, shown: str) -> dict:
    """The TOML table in the regular file ``path`` (``shown`` as the user gave it, in messages), at most
    :data:`MAX_RULESET_BYTES` long: a folder, a device or a FIFO is refused before reading (helper-150:
    /dev/zero was read until the memory ran out).

    Raises:
        RulesetError: missing, not a regular file, too large, unreadable, not UTF-8 or not TOML.
    """
    try:
        return tomllib.loads(read_input(path, "rule set file", limit=MAX_RULESET_BYTES, shown=shown).decode("utf-8"))
    except InputFileError as exc:
        raise RulesetError(str(exc)) from None
    except UnicodeDecodeError:
        raise RulesetError(f"{shown}: not UTF-8 text: a rule set file is TOML saved as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        # where, not what: the parser's words quote no content, but a file that is no rule set (any file the
        # caller could name, /etc/passwd) is said to be none, its line and column the only detail (helper-174)
        where = re.search(r"\(at (line \d+, column \d+|end of document)\)", str(exc))
        at = f" at {where[1].replace('end of document', 'the end')}" if where else ""
        raise RulesetError(f"{shown}: not a rule set file (not valid TOML{at})") from None


def ruleset_from_params(params: dict, where: str) -> Ruleset:
    """A rule set rebuilt from its stored parameters (a record's, a service table's), never re-read
    from a preset or file: an edit there must not change what was recorded under it.

    Raises:
        RulesetError: a parameter fails validation (``"{where}: key 'target': ..."``).
    """
    try:
        return Ruleset.model_validate(params)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise RulesetError(f"{where}: key {_key(err)!r}: {err['msg']}") from None


def _key(err: dict) -> str:
    """The dotted name of the parameter a pydantic error is about."""
    return ".".join(str(p) for p in err["loc"]) or "(rule set)"
