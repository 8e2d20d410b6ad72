"""The seats of the camera's events recorded under a turn that was not the table's, judged again once the record
is right.

The camera gives a draw to the seat to play (it sees a tile leave the boneyard, not whose arm took it), a play it
could not tell the arm of to the seat to play (``seat_by_turn``), and, in a folder of photos, the play of a photo
where the seat to play drew and its hand shows it played to that drawer (:meth:`vision.tracking.Tracker._plays`).
While a play the umpire voided stood voided, or before a play the camera held unplaced was moved up to the read
that saw it (``service.tables._place_held``), that turn was not the table's: once the record is restored, those
events go to the seat whose turn it is at their place (:func:`reseated`, walked read by read with
:class:`ReadSeats`). A play whose seat the camera saw (an arm, a hand area's loss) keeps it.
"""

from __future__ import annotations

from engine.events import Draw, Play


def reseated(event: object, turn: str | None, drew: tuple[str, str] | None = None) -> str | None:
    """The seat the camera's ``event`` goes to, ``turn`` being the seat to play at its place in the record as it
    now stands; None when it keeps its own (turn unknown, the turn's seat already, or a seat the turn did not give).

    A draw goes to the turn; a play goes to it when the camera gave it by the turn (``seat_by_turn``), or when it is
    the play of the seat that drew right before it in the same read, the draw moved to the turn: ``drew`` is that
    draw's (seat as sent, seat now), and the play's seat as sent is the draw's."""
    if turn is None or getattr(event, "seat", turn) == turn:
        return None
    if isinstance(event, Draw):
        return turn
    if isinstance(event, Play) and (event.seat_by_turn or drew == (event.seat, turn)):
        return turn
    return None


class ReadSeats:
    """:func:`reseated` over the camera's events in record order: remembers the draw of the read (its frame) so
    that the play right after it in the same read follows it."""

    def __init__(self) -> None:
        self._drew: tuple[int | None, str, str] | None = None  # (frame, seat as sent, seat now)

    def seat(self, event: object, turn: str | None) -> str | None:
        """The new seat of ``event`` (see :func:`reseated`), None to keep its own; ``turn``: the seat to play at
        its place in the record as it now stands (None: not known)."""
        frame = getattr(event, "frame", None)
        drew = self._drew[1:] if self._drew is not None and frame is not None and self._drew[0] == frame else None
        seat = reseated(event, turn, drew)
        if isinstance(event, Draw):
            self._drew = (frame, event.seat, seat or event.seat)
        elif isinstance(event, Play):
            self._drew = None  # the drawer lays one tile after its draw
        return seat
