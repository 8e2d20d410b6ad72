"""Vision-level notices and seat attribution for observed plays.

The tracker (:mod:`vision.tracking`) emits engine events (``Play``, ``TakeBack``) and,
next to them, :class:`Notice` records: things the umpire or the scorer may want to look
at that are not engine events (a bumped tile, an uncertain reading, a tile that vanished
from the middle of the layout).

Seat attribution: the arm that placed a tile entered over one table edge. The motion
gate (:mod:`vision.motion`) reports, for each frame of an occlusion, the image border the
intruding region touches (``entry_side``) and a point on it (``entry_point_px``). With a
calibrated :class:`calibration.profile.TableProfile` the point is mapped to the table and
:meth:`~calibration.profile.TableProfile.seat_of_point` names the seat; without one the
image borders are the seats: top = N, right = E, bottom = S, left = W. Votes over the
occlusion are combined with the rule set's turn order as a prior (:func:`attribute_seat`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

__all__ = ["Notice", "SeatChoice", "SIDE_TO_SEAT", "seat_of_entry", "attribute_seat", "NOTICE_KINDS"]

#: Image border -> seat when the camera is not calibrated (north up in the image).
SIDE_TO_SEAT = {"top": "N", "right": "E", "bottom": "S", "left": "W"}

NOTICE_KINDS = (
    "uncertain_read",   # a play emitted with low confidence (reasons in details["reasons"])
    "bump",             # a placed tile moved a few mm / a fraction of its size: not a play
    "moved",            # a placed tile moved further than a bump: not a play
    "reread",           # a tile already played now reads differently (details: old, new)
    "tile_missing",     # a placed tile not seen, but not a take-back (inside an arm, or unconfirmed; a folder's
                        # photo alone lacking an arm's last tile: details out_of_order, back_frame, hand_again)
    "unplaced_tile",    # a new face-up tile outside hand areas that touches no open end
    "unlike_set",       # a new face-up tile unlike the line's tiles, read with one like them: a picture, no play
    "picture_tile",     # a face-up tile touching no open end found to be a picture (a weak box, a tile the line
                        # holds, or one against a picture; details: why, unplaced: it was an unplaced_tile, box_score)
    "rejected",         # the engine refused an event the tracker built (details: error)
    "hand_cleared",     # the layout was cleared after the hand ended: a new hand starts
    "hand_end_inferred",  # a draw game: tiles shown after a play end the hand as a domino (umpire confirms)
    "reveal_changed",   # a seat's shown tiles changed after its reveal was counted
    "shown_on_line",    # a tile shown at the end that the line of play already holds (a misread play?): not counted
    "pass_inferred",    # a Pass emitted because a clearly seen play skipped the seat (details: pass_t, by)
    "after_hand_end",   # a face-up tile placed (or shown by the seat that went out) after the hand ended
    "seats_unseen",     # the footage shows play from fewer seats than the rule set needs (once; details: seen, unseen)
    "rules_misfit",     # the deal, draws, a lock or the seats seen do not fit the rule set (once per parameter;
                        # details: parameter: boneyard, hand_size, set_max, draw_rule, players or play_direction)
    "boneyard_uncounted",  # a draw game whose boneyard the camera cannot count: no draws, no passes inferred (once)
    "resume_unseen",    # a resumed hand's recorded layout is not in view at the first read (once; recorded, found)
    "arm_in_photo",     # a folder's photo differs from the one before by an arm over the table (details: side)
    "overexposed",      # a read picture largely clipped white: tiles there may be missed (review; details: clipped)
    "photos_reordered",  # a folder's photos named out of order, read in the order taken (vision/photo_order.py;
                         # review and replayed folder tables, not the tracker; details: order)
)


@dataclass(frozen=True)
class Notice:
    """A vision-level notice (not an engine event).

    Attributes:
        kind: one of :data:`NOTICE_KINDS`.
        t: seconds (footage clock) of the stable state it was found in.
        frame: frame index of that state.
        message: one line for people.
        tile: the tile concerned, ``(a, b)``, when there is one.
        seat: the seat concerned, when known.
        details: JSON-ready extras (``reasons``, ``displacement``, ``old``/``new`` readings, ...).
    """

    kind: str
    t: float | None
    frame: int | None
    message: str
    tile: tuple[int, int] | None = None
    seat: str | None = None
    details: dict = field(default_factory=dict)
    type: Literal["vision_notice"] = "vision_notice"

    def to_json(self) -> dict:
        """JSON-ready dict (``type``: ``vision_notice``)."""
        return {"type": self.type, "kind": self.kind, "t": self.t, "frame": self.frame, "message": self.message,
                "tile": None if self.tile is None else list(self.tile), "seat": self.seat, **self.details}


@dataclass(frozen=True)
class SeatChoice:
    """Who played: ``seat``, how it was decided (``entry``, ``turn``), a share in [0, 1], flagged or not."""

    seat: str
    source: str
    confidence: float
    uncertain: bool


def seat_of_entry(side: str | None, point_px: np.ndarray | None, profile=None) -> str | None:
    """The seat an arm came from.

    Args:
        side: image border the intruding region touches (``top``/``right``/``bottom``/``left``).
        point_px: (2,) a point of the region on that border, image px.
        profile: a calibrated :class:`~calibration.profile.TableProfile`, or None.

    Returns:
        ``N``/``E``/``S``/``W``, or None when ``side`` is None.
    """
    if side is None:
        return None
    if profile is not None and point_px is not None and getattr(profile, "homography", None) is not None:
        mm = profile.image_to_table(np.asarray(point_px, np.float64).reshape(1, 2))[0]
        return str(profile.seat_of_point(mm))
    return SIDE_TO_SEAT.get(side)


def attribute_seat(votes: dict[str, float], expected: str | None, order: list[str],
                   prior: float = 0.25, min_votes: float = 2.0, margin: float = 0.3) -> SeatChoice:
    """Decide the seat of a play from entry votes and the turn order.

    Args:
        votes: seat -> evidence (frames of the occlusion in which the arm touched that
            seat's edge); seats not in ``order`` are ignored.
        expected: the seat whose turn it is (engine ``HandState.turn``), or None.
        order: playing seats in turn order.
        prior: bonus (in vote shares) for ``expected``.
        min_votes: fewer votes than this in total is no evidence.
        margin: the best score must beat the runner-up by this much to be sure.

    Returns:
        the seat; ``source="entry"`` when the votes decided, ``"turn"`` otherwise;
        ``uncertain`` when there was no clear evidence.
    """
    votes = {s: float(v) for s, v in votes.items() if s in order and v > 0}
    total = sum(votes.values())
    fallback = expected or (order[0] if order else "N")
    if total < min_votes:
        return SeatChoice(fallback, "turn", 0.0, True)
    scores = {s: votes.get(s, 0.0) / total + (prior if s == expected else 0.0) for s in order}
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    best, score = ranked[0]
    runner = ranked[1][1] if len(ranked) > 1 else 0.0
    share = votes.get(best, 0.0) / total
    sure = score - runner >= margin
    if not sure:
        return SeatChoice(fallback, "turn", share, True)
    return SeatChoice(best, "entry" if share > 0 else "turn", share, False)
