"""Request bodies (pydantic): unknown keys and bad values get a 422 with a clear message."""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

Seat = Literal["N", "E", "S", "W"]


def _printable(text: str) -> str:
    """A name shown on the overlay and the pages: no control characters (helper-99: a NUL and a newline
    were stored, and the index showed "ab c")."""
    # control characters (C0, DEL, C1 as NEL) and the Unicode line and paragraph separators (helper-146)
    if any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in text):
        raise ValueError("no control characters (newline, tab, NUL) in a name or title")
    return text


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("a name, not blank (leave the seat or side out to show its letters)")
    return text


#: a display name (player, team, match title): capped like the table's name, as every feed message repeats it; one
#: line of printable text (checked after the length, whose message names the limit)
Name = Annotated[str, Field(max_length=200), AfterValidator(_printable)]
#: a player's or a team's name: shown instead of the seat, so not blank (helper-198: ``{"N": ""}`` and ``{"N": " "}``
#: were stored, and the overlay showed an empty card for N; leave the seat out to show its letter)
PlayerName = Annotated[str, Field(max_length=200), AfterValidator(_printable), AfterValidator(_not_blank)]
#: who made an umpire's action, shown with it on the review page: one line, like a name (helper-143: a NUL
#: and a newline were stored)
Actor = Name


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # NaN passed every bound check


class SimulateSpec(_Body):
    """A seeded simulated match for a scripted table (engine/simulate.py)."""

    seed: int = 0
    hands: int = Field(3, ge=1, le=60)


class WorkerSpec(_Body):
    kind: Literal["scripted", "manual", "vision"] = "manual"
    speed: float = Field(1.0, gt=0, le=10000, description="times real time (scripted)")
    interval: float = Field(2.0, ge=0, le=600, description="seconds between scripted events without t stamps")
    simulate: SimulateSpec | None = None
    follow: bool = Field(False, description="vision: follow a folder of photos as they arrive (not read once)")


#: what a table id may hold (it is a path segment of every table address)
TABLE_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def _table_id(text: str) -> str:
    """A table id, refused in words (helper-174: the index page's Id box showed pydantic's "String should
    match pattern '^[a-z0-9][a-z0-9_-]{0,63}$'")."""
    if not TABLE_ID.fullmatch(text):
        got = f"{len(text)} characters" if len(text) > 64 else repr(text)
        raise ValueError("lower-case letters, digits, - and _ only, 1 to 64 characters, starting with a letter or "
                         f"digit (got {got}; leave it out to have one made from the name)")
    return text


#: a table's name, shown on the overlay: one line, not blank
TableName = Annotated[str, Field(min_length=1, max_length=200, pattern=r"\S"), AfterValidator(_printable)]
#: a video source (camera index, URL, file or folder of photos) or a calibration profile's path
SourcePath = Annotated[str, Field(max_length=2000)]
#: a rule-set preset or TOML file
RulesName = Annotated[str, Field(min_length=1, max_length=200)]


class TableCreate(_Body):
    id: Annotated[str, AfterValidator(_table_id)] | None = Field(None, description="slug; from the name if absent")
    name: TableName = Field(description="shown on the overlay: not blank")
    video_source: SourcePath = ""
    calibration: SourcePath = Field("", description="calibration profile path")
    rules: RulesName = Field("all-fives",
                             description="rule-set preset or TOML file (read once: the table stores every parameter)")
    overrides: dict = Field(default_factory=dict)
    players: dict[Seat, PlayerName] = Field(default_factory=dict)
    teams: dict[str, PlayerName] = Field(default_factory=dict, description="side (N, NS, ...) -> display name")
    worker: WorkerSpec = Field(default_factory=WorkerSpec)
    view_key: str | None = Field(None, min_length=4, max_length=200)
    title: Name = Field("", description="title of the first match")


#: what PATCH /api/tables/{id} changes at any time, the table running or not; every other field only with the table
#: stopped, and rules and overrides only before the current match's first event too (service.tables.Registry.update)
ANYTIME_FIELDS = frozenset({"name", "players", "teams"})


class TablePatch(_Body):
    """A change of a registered table: the fields given replace the stored ones (``players`` and ``teams`` as a
    whole, as at registration; ``rules`` with ``overrides``, which are ``{}`` when left out), validated as
    :class:`TableCreate` validates them. A field given as null is refused (422): leave it out to keep it."""

    # no defaults validated: a null given is a 422 (str expected), a field left out is not in model_fields_set
    name: TableName = Field(None, description="shown on the overlay: not blank")
    players: dict[Seat, PlayerName] = None
    teams: dict[str, PlayerName] = Field(None, description="side (N, NS, ...) -> display name")
    rules: RulesName = Field(None, description="rule-set preset or TOML file")
    overrides: dict = None
    video_source: SourcePath = None
    calibration: SourcePath = Field(None, description="calibration profile path")
    worker: WorkerSpec = None

    @model_validator(mode="after")
    def _something(self) -> TablePatch:
        if not self.model_fields_set:
            raise ValueError(f"nothing to change: give one or more of {', '.join(type(self).model_fields)}")
        return self


class StartBody(_Body):
    speed: float | None = Field(None, gt=0, le=10000)
    follow: bool | None = Field(None, description="vision: follow the folder of photos (kept for later starts)")


class MatchCreate(_Body):
    title: Name = ""
    players: dict[Seat, PlayerName] | None = Field(None, description=(
        "the new match's players (seat -> name), the table's from then on; left out: the table's as they are"))


class EventBody(_Body):
    event: dict
    hand: int | None = Field(None, ge=1)
    new_hand: bool | None = None
    by: Actor = ""

    @model_validator(mode="after")
    def _one_target(self) -> EventBody:
        # the hand number already says which hand; a new_hand beside it was silently ignored
        if self.hand is not None and self.new_hand is not None:
            raise ValueError("give either hand (a hand's number) or new_hand, not both")
        return self


class CorrectionBody(_Body):
    hand: int | None = Field(None, ge=1)
    replaces: int = Field(ge=0)
    event: dict | None = None
    reason: str = Field("", max_length=500)
    by: Actor = ""


class FixTileBody(_Body):
    hand: int | None = Field(None, ge=1)
    index: int = Field(ge=0)
    tile: str | list[int]
    end: str | None = None
    reason: str = Field("misread tile", max_length=500)
    by: Actor = ""


class ReassignBody(_Body):
    hand: int | None = Field(None, ge=1)
    index: int = Field(ge=0)
    seat: Seat
    reason: str = Field("play assigned to another seat", max_length=500)
    by: Actor = ""


class SwapTilesBody(_Body):
    hand: int | None = Field(None, ge=1)
    index: int = Field(ge=0)
    other: int = Field(ge=0)
    seen: list[str | list[int]] | None = Field(None, min_length=2, max_length=2, description=(
        "the tiles the caller saw at index and other: refused (409) when they hold others now (the swap "
        "made already, by another umpire or a retried request, would be undone)"))
    reason: str = Field("tiles recorded the wrong way round", max_length=500)
    by: Actor = ""


class MoveEventBody(_Body):
    hand: int | None = Field(None, ge=1)
    index: int = Field(ge=0, description="the event that happened earlier than recorded")
    before: int = Field(ge=0, description="the event in force right before it, which it goes before (409 when another is)")
    seen: dict | None = Field(None, description=(
        "the event the caller saw at index (its type, seat and tile, as the hand's events list them): refused "
        "(409) when another is there now (the move made already, by another umpire or a retried request, "
        "would be undone)"))
    reason: str = Field("recorded after an event it came before", max_length=500)
    by: Actor = ""


class AlertAction(_Body):
    penalty: str | None = Field(None, max_length=100, description="rule-set penalty to apply (confirm)")
    note: str = Field("", max_length=500)
    by: Actor = ""


class HandConfirm(_Body):
    end: dict | None = Field(None, description="a hand_end event to append first when the hand is not over")
    by: Actor = ""
