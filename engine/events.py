"""Engine events: the append-only log a hand is folded from.

Every event may carry ``t`` (seconds from the start of the footage or match clock)
and ``frame`` (video frame index) when it comes from the camera. Tiles are written
``[touching half, other half]`` for plays (see ``docs/record-format.md``).

A :class:`Correction` replaces an earlier event (by its index in the log) with a new
event, or voids it (``event = None``); the log itself is never edited.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer

from engine.tiles import Tile

# A tile in an event: parsed from "6-4" / [6, 4], written back as [6, 4] (order kept).
TileField = Annotated[
    Tile,
    BeforeValidator(lambda v: v if isinstance(v, Tile) else Tile.parse(v)),
    PlainSerializer(lambda t: [t.a, t.b], return_type=list),
]


#: The longest reason an event carries (the service's forms allow 500): a reason goes into every
#: snapshot of the table's feed, so a megabyte there made each one a megabyte.
MAX_NOTE = 500


def _not_bool(v: object) -> object:
    if isinstance(v, bool):  # JSON true is no time or frame (pydantic would read it as 1)
        raise ValueError("a number, not true/false")
    return v


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    # seconds and frame index: never negative; nan and inf are not times (and are not JSON)
    t: Annotated[float | None, BeforeValidator(_not_bool)] = Field(None, ge=0, allow_inf_nan=False)
    frame: Annotated[int | None, BeforeValidator(_not_bool)] = Field(None, ge=0)


class Deal(_Event):
    """The hands dealt (known when the camera or the scorer sees them). Seats absent are unknown."""

    type: Literal["deal"] = "deal"
    hands: dict[str, list[TileField]] = Field(default_factory=dict)
    # False: draws from the boneyard are not recorded (a camera), so tile counts are unknown
    draws_seen: bool = True


class Play(_Event):
    """A tile put on the table by ``seat`` on open end ``end`` (an arm name: E, W, N, S, ...).

    ``tile`` is ordered [touching half, other half] when the orientation was seen; when
    ``oriented`` is false the engine turns it to match the end if it can.
    ``end`` is ignored for the lead (the first tile of the hand).
    ``seat_by_turn`` marks a play the camera gave to the seat whose turn it was because it could not see
    who laid it (no arm, ambiguous hand rows): the seat is a guess for the umpire to check. It does not
    change the score; false (absent from a record) is a seat seen or written down.
    """

    type: Literal["play"] = "play"
    seat: str
    tile: TileField
    end: str | None = None
    oriented: bool = False
    confidence: float | None = Field(None, ge=0, le=1, allow_inf_nan=False)
    seat_by_turn: bool = False


class Pass(_Event):
    """``seat`` knocks: no play this turn."""

    type: Literal["pass"] = "pass"
    seat: str


class Draw(_Event):
    """``seat`` takes ``count`` tiles from the boneyard (``tiles`` when seen)."""

    type: Literal["draw"] = "draw"
    seat: str
    count: int = Field(1, ge=1, strict=True)  # helper-89: true was taken for 1
    tiles: list[TileField] | None = None


class TakeBack(_Event):
    """The last play of ``tile`` was taken back off the table (before the next player played)."""

    type: Literal["take_back"] = "take_back"
    seat: str
    tile: TileField


class Penalty(_Event):
    """An umpire's penalty or fine on ``seat``: a named penalty of the rule set, or explicit points.

    ``name`` looks up ``ruleset.penalties[name]``; ``points`` (to the infractor's side,
    negative for a deduction) and ``opponents`` override or stand alone (fines).
    """

    type: Literal["penalty"] = "penalty"
    seat: str
    name: str | None = None
    points: int | None = None
    opponents: int | None = None
    reason: str = Field("", max_length=MAX_NOTE)


class Reveal(_Event):
    """Tiles a seat shows at the end of the hand (or exposes during it)."""

    type: Literal["reveal"] = "reveal"
    seat: str
    tiles: list[TileField]


class HandEnd(_Event):
    """The umpire ends the hand: ``domino``/``locked`` when not detected, ``redeal``, ``time``."""

    type: Literal["hand_end"] = "hand_end"
    kind: Literal["domino", "locked", "redeal", "time", "umpire"]
    winner: str | None = None
    reason: str = Field("", max_length=MAX_NOTE)


EngineEvent = Annotated[
    Union[Deal, Play, Pass, Draw, TakeBack, Penalty, Reveal, HandEnd],
    Field(discriminator="type"),
]


class Correction(_Event):
    """Replace event number ``replaces`` of the log with ``event`` (or void it when None)."""

    type: Literal["correction"] = "correction"
    replaces: int = Field(ge=0)
    event: EngineEvent | None = None
    by: str = Field("", max_length=200)
    reason: str = Field("", max_length=MAX_NOTE)


AnyEvent = Annotated[
    Union[Deal, Play, Pass, Draw, TakeBack, Penalty, Reveal, HandEnd, Correction],
    Field(discriminator="type"),
]


class CorrectionError(ValueError):
    """A correction that points at itself, a later event, or another correction."""


def effective(log: list) -> list[tuple[int, object]]:
    """The events in force: each corrected slot takes its latest replacement; voided slots drop. A
    replacement with neither time nor frame takes the replaced event's (``t``, ``frame``).

    Returns (log index, event) pairs in log order, corrections themselves excluded.

    Raises:
        CorrectionError: a correction that points at itself, a later event, or another correction.
    """
    slots: dict[int, object] = {}
    for i, ev in enumerate(log):
        if isinstance(ev, Correction):
            if ev.replaces >= i:
                raise CorrectionError(f"correction #{i} replaces #{ev.replaces}, which is not an earlier event")
            if isinstance(log[ev.replaces], Correction):
                raise CorrectionError(f"correction #{i} replaces #{ev.replaces}, which is itself a correction: "
                                      f"correct event #{log[ev.replaces].replaces} instead")
            new = ev.event
            if new is not None and new.t is None and new.frame is None:
                # a fix typed without a time corrects what happened, not when: the slot keeps its moment
                # (helper-98: the fixed play of a reviewed game lost its link to the video)
                was = log[ev.replaces]
                if was.t is not None or was.frame is not None:
                    new = new.model_copy(update={"t": was.t, "frame": was.frame})
            slots[ev.replaces] = new
        else:
            slots[i] = ev
    return [(i, slots[i]) for i in sorted(slots) if slots[i] is not None]
