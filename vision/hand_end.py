"""The end of a hand as the tracker saw it, and the tiles laid after it.

Once the tracker's judge (:attr:`vision.tracking.Tracker.judge`, the real rules) ends the hand (a domino, a
lock, an end the umpire entered), :class:`HandEndWatch` keeps how it ended (:attr:`HandEndWatch.ended`, the
text the notices quote), reports every face-up tile then laid outside the hand areas as an
``after_hand_end`` notice, never a play (:meth:`HandEndWatch.after_end`), and remembers the reads taken
while the hand stood ended. Should the record void the end (an End pressed by mistake, a redeal penalty
undone: :meth:`vision.tracking.Tracker.sync`), those reads are taken again in order, each one's boneyard
drops first, then its tiles as plays (:meth:`HandEndWatch.replay`). The rules are those of
``docs/tracking.md`` (after the end). Times are seconds; geometry is the tracker's working units.
"""

from __future__ import annotations

import copy
from typing import Callable

from engine.events import Draw
from engine.hand import IllegalEvent
from vision.layout_from_tiles import LineOfPlay, TileGeom
from vision.placements import Notice

__all__ = ["HandEndWatch", "ended_text", "late_draws"]


def ended_text(kind: str, winner: str | None, t: float | None) -> str:
    """How the hand ended, for people: ``"N dominoed at 45.9 s"``, ``"the hand locked at 42.4 s"``,
    ``"redeal at 4.0 s"`` (bare, as it is quoted in brackets after "the hand ended")."""
    at = f" at {t:.1f} s" if t is not None else ""
    return (f"{winner} dominoed{at}" if kind == "domino" and winner else
            f"the hand locked{at}" if kind == "locked" else f"{kind}{at}")


def _end(kind: str, winner: str | None, t: float | None) -> dict:
    """:attr:`HandEndWatch.ended` for an end of ``kind`` won by ``winner`` at ``t`` s."""
    return {"kind": kind, "winner": winner, "t": t, "text": ended_text(kind, winner, t)}


def late_draws(boneyard, judge, frame: int, t: float, seen: int) -> list:  # noqa: ANN001
    """A read taken while the hand stood ended, taken again once the end was voided: its boneyard count
    (``seen`` tiles, :class:`vision.boneyard.BoneyardCounter` ``boneyard``) under the seat to play now in
    the ``judge`` hand, at ``t`` s, ``frame``. Returns its draws (appended to the judge) or a ``rejected``
    notice."""
    st = judge.state
    out: list = []
    for ev in boneyard.step(seen, None if st.over else st.turn, t, frame, True):
        if isinstance(ev, Draw):
            try:
                judge.append(ev)
            except IllegalEvent as exc:
                out.append(Notice("rejected", t, frame, str(exc), seat=ev.seat, details={"event": "draw"}))
                continue
        out.append(ev)
    return out


class HandEndWatch:
    """One hand's end as the tracker's judge took it, and what was laid after it (one per hand).

    Attributes:
        ended: when the judge ended the hand: ``{"kind", "winner", "t" (s), "text"}``; None while it goes on.
        umpires_end: the end came with the record (:meth:`vision.tracking.Tracker.sync`), not from the
            camera's reads: a lock then says nothing of the rule set.
        late_lop: the line of play extended by the tiles placed after the end (so that a tile laid against
            one of them is seen as placed on the layout too); None until the first.
        late_reads: the reads while the hand stood ended, in order: ``(frame, t, boneyard tiles seen or None,
            ids of the tiles reported after the end in it)``; taken again should the end be voided.
    """

    def __init__(self) -> None:
        self.ended: dict | None = None
        self.umpires_end = False
        self.late_lop: LineOfPlay | None = None
        self.late_reads: list[tuple[int, float, int | None, list[int]]] = []

    def note(self, st, was_over: bool, event: object) -> None:  # noqa: ANN001
        """After ``event`` went to the judge (whose state is now ``st``; ``was_over`` before it): keep the end
        it brought, or, when the hands shown settled it otherwise (a line blocked by the last tile of the
        seat that laid it: a domino, not the lock it looked like), say it as the record's result
        (helper-171: "N dominoes" beside "the hand locked at 45.9 s")."""
        if not was_over and st.over and self.ended is None:
            kind, winner = (st.pending_end[0], st.pending_end[1]) if st.pending_end else (
                st.result.kind, st.result.winner_seat)
            self.ended = _end(kind, winner, getattr(event, "t", None))
        elif self.ended is not None and st.result is not None and (
                st.result.kind, st.result.winner_seat) != (self.ended["kind"], self.ended["winner"]):
            self.ended = _end(st.result.kind, st.result.winner_seat, self.ended["t"])

    def reopen(self) -> None:
        """The record is taken in afresh (:meth:`vision.tracking.Tracker.sync`): no end until it brings one;
        a later end copies the line of play as it is then (a fix may un-end the hand)."""
        self.ended = None
        self.late_lop = None

    def read(self, frame: int, t: float, seen: int | None) -> None:
        """A read (``frame``, ``t`` s) taken while the hand stands ended, with the boneyard tiles it counted
        (None: not counted)."""
        self.late_reads.append((frame, t, seen, []))

    def refused(self, plays: list) -> None:
        """The camera's ``plays`` (:class:`vision.tracking.PlayRecord`) that the record refused, its end stored
        while they were on their way: as far as the record goes they came after the end, and should it be
        voided they are plays, first of the tiles laid meanwhile."""
        self.late_reads[:0] = [(pr.frame, pr.t, None, [pr.tile_id]) for pr in plays]

    def after_end(self, frame: int, t: float, pending: list, lop: LineOfPlay, in_hands: Callable[[TileGeom], bool],
                  calibrated: bool, plays: int, votes: dict[str, float]) -> list:
        """New face-up tiles once the judge ended the hand: hand-area tiles are shown hands (the
        reveals); every other one is an ``after_hand_end`` notice for the umpire, never a play.

        A tile placed on the layout after a domino or a lock means the hand went on at the table:
        the rule set may not fit the footage (a hand size, a boneyard), or a play was misread.
        Such tiles extend a copy of the line of play ``lop``, so that a tile laid against one of them
        is recognised as placed on the layout too (``details["touches_end"]``).

        Args:
            frame, t: the read's frame index and time (s).
            pending: the read's new face-up :class:`vision.tracking.TrackedTile` (status set here).
            lop: the hand's line of play (copied at the first such tile).
            in_hands: whether a tile's geometry lies in a hand area (the tracker's, as wide as its reveals).
            calibrated: a table calibration gives the hand areas (uncalibrated, a tile that touches no open
                end is a hand turned up further in than the guessed band).
            plays: the hand's plays so far (a tile's ``unplaced_at``).
            votes: the read's arm votes: the first such tile's seat, should the end be voided.
        """
        if self.late_lop is None:
            self.late_lop = copy.deepcopy(lop)
        lop = self.late_lop
        out: list = []
        rest = []
        for c in pending:
            if in_hands(c.geom):
                c.status = "hand"
            elif c.status != "unplaced":  # reported once
                rest.append(c)
        ended = self.ended or {"kind": None, "winner": None, "t": None, "text": "the hand is over"}
        while rest:
            fits = [(lop.assign(c.geom, c.pips, c.confidence) if lop.lead is not None else None, c) for c in rest]
            fit, c = next(((f, c) for f, c in fits if f is not None), (None, rest[0]))
            rest.remove(c)
            if fit is None and not calibrated:
                # uncalibrated, the hand area is a guess (10 % of the image from its border): a tile shown
                # after the end that touches no open end is a hand turned up further in, by the nearest seat
                c.status = "hand"
                continue
            c.status = "unplaced"
            # should the end be voided, it is a play (:meth:`replay`): by the arm of this read, the first one
            c.unplaced_at, c.votes = plays, ({} if out else dict(votes))
            if self.late_reads and self.late_reads[-1][0] == frame:
                self.late_reads[-1][3].append(c.id)
            tile = c.key if fit is None else tuple(fit.tile)
            if fit is not None:
                try:
                    lop.place(fit, c.geom, c.pips)
                except Exception:  # noqa: BLE001 - only for recognising later tiles; the notice stands
                    pass
            where = f"on {fit.end}" if fit is not None else "touching no open end"
            out.append(Notice("after_hand_end", t, frame,
                              f"tile {tile[0]}-{tile[1]} placed {where} at {t:.1f} s after the hand ended "
                              f"({ended['text']}): not scored; check the rule set and the plays before it",
                              tile=c.key, details={"touches_end": fit is not None,
                                                   "end": fit.end if fit is not None else None,
                                                   "ended_by": ended["kind"], "winner": ended["winner"],
                                                   "ended_t": ended["t"]}))
        return out

    def replay(self, frame: int, t: float, held: list, lay: Callable, draws: Callable[[int, float, int], list]) -> list:
        """The end voided: lay the ``held`` tiles (unplaced :class:`vision.tracking.TrackedTile`) that touch an
        open end. First those laid before the end (against a play the umpire voided, say) at this read
        (``frame``, ``t`` s); then those laid while the hand stood ended, read by read as they were seen
        (:attr:`late_reads`, forgotten here), each read's boneyard drops first (``draws(frame, t, seen)``, as
        the seat to play then draws), each play with its read's time.

        ``lay(frame, t, tiles, events=None)``: the tracker's laying of held tiles by the arms that laid them
        (returns the events; given ``events``, adds to it and returns the tiles left waiting). Returns the
        events (the rest wait, unplaced, as before)."""
        late, self.late_reads = self.late_reads, []
        later = {i for _, _, _, ids in late for i in ids}
        events = lay(frame, t, [c for c in held if c.id not in later])
        waiting: list = []
        for f, lt, seen, ids in late:
            if seen is not None:
                events += draws(f, lt, seen)
            waiting = lay(f, lt, waiting + [c for c in held if c.id in ids], events)
        return events
