"""The tracker and the record of the hand: resuming a recorded hand, and taking in the umpire's changes.

A live table's record is changed by others while the camera runs (a pass or a penalty entered by the
umpire, a play re-assigned, fixed, voided or entered by hand), and a camera worker that restarts mid-hand
continues a hand already recorded. :class:`RecordSync` rebuilds the :class:`~vision.tracking.Tracker`'s
engine hands from the record (:func:`engine.events.effective`: corrections applied) and binds the tiles on
the table to the recorded plays (:class:`vision.record_binding.RecordBinder`); it keeps what that leaves
for the next reads: the recorded plays still looked for, the tiles of voided plays (no plays until moved),
and whether the next read must look again at the tiles that touched no open end. The rules are those of
``docs/tracking.md`` (a hand resumed, the umpire's changes). Units: the tracker's.
"""

from __future__ import annotations

from engine.events import Correction, Deal, Draw, Play, Reveal, effective
from engine.hand import HandContext, IllegalEvent
from engine.tiles import Tile
from vision.boneyard import BoneyardCounter
from vision.layout_from_tiles import LineOfPlay
from vision.record_binding import RecordBinder, RecordedPlay, placed_pips, recorded_plays

__all__ = ["RecordSync", "voided_tiles", "swapped"]


def voided_tiles(log: list) -> set[tuple[int, int]]:
    """Keys of the tiles of plays in ``log`` (corrections included) that no play in force holds."""
    played = [ev for ev in log if isinstance(ev, Play)]
    played += [ev.event for ev in log if isinstance(ev, Correction) and isinstance(ev.event, Play)]
    held = {ev.tile.key for _, ev in effective(log) if isinstance(ev, Play)}
    return {ev.tile.key for ev in played} - held


def swapped(plays: list, recorded: list) -> bool:
    """Whether the record holds the tracker's tiles (``plays``: :class:`vision.tracking.PlayRecord`) in another
    order (the umpire swapped two plays' tiles): then each recorded play is bound to the tile that shows it,
    not to the play in its slot."""
    mine, theirs = [pr.tile.key for pr in plays], [r[1].key for r in recorded]
    return mine != theirs and sorted(mine) == sorted(theirs)


class RecordSync:
    """What the record of the hand leaves for the tracker's next reads (one per tracker).

    Attributes:
        binder: a recorded hand's plays still looked for on the table (:meth:`resume`, :meth:`sync`), or None.
        voided: (:meth:`resume`) keys of the tiles of plays the umpire voided: no new plays.
        synced: the record changed with tiles shown: read again, even if the table is still.
        recheck: after an umpire's change of the line: look at the unplaced tiles again at the next read.
        bound_now: recorded plays the binder found on the table in the read being taken.
    """

    def __init__(self) -> None:
        self.binder: RecordBinder | None = None
        self.voided: set[tuple[int, int]] = set()
        self.synced = False
        self.recheck = False
        self.bound_now = 0

    def new_hand(self) -> None:
        """A new hand: no recorded plays to look for, no voided tiles."""
        self.binder = None
        self.voided = set()

    @property
    def pending(self) -> bool:
        """Recorded plays are still looked for on the table (they are no new plays; no lead is chosen)."""
        return self.binder is not None and bool(self.binder.pending)

    def step(self, tr, frame: int, t: float, first: bool) -> list:  # noqa: ANN001
        """A committed read (``frame``, ``t`` s; ``first``: the tracker's first) of tracker ``tr``: bind the
        recorded plays its tiles show (:meth:`vision.record_binding.RecordBinder.step`); sets
        :attr:`bound_now`. Returns the binder's notices."""
        known = len(tr.plays)
        events = self.binder.step(tr, frame, t, first=first) if self.pending else []
        # plays of the record (one entered by hand) found on the table in this read: this read's plays too
        self.bound_now = len(tr.plays) - known
        return events

    def take_in(self, tr, log: list) -> list[RecordedPlay]:  # noqa: ANN001
        """Append a recorded hand's events in force to tracker ``tr``'s (fresh) hands; returns its plays
        still on the table, in order."""
        for _, ev in effective(log):
            if isinstance(ev, Draw):  # the judge counts the boneyard (the camera's draws, recorded)
                try:
                    tr.judge.append(ev)
                except IllegalEvent:
                    pass
                continue
            if isinstance(ev, Deal):
                continue
            try:
                tr.record(ev)
            except IllegalEvent:
                continue  # the record's own engine accepted it under the real rules; the board is what matters
            if isinstance(ev, Reveal):
                tr.reveals.revealed[ev.seat] = tuple(sorted(Tile.parse(x).key for x in ev.tiles))
        return recorded_plays(tr.hand.state)

    def resume(self, tr, log: list, context: HandContext | None = None) -> None:  # noqa: ANN001
        """Tracker ``tr`` continues a hand already recorded: see :meth:`vision.tracking.Tracker.resume`."""
        if tr.state is not None:
            raise RuntimeError("resume() must come before the first read")
        tr.new_hand(context)
        self.binder = RecordBinder(self.take_in(tr, log))
        # a voided play's tile still lies there: as while the camera ran (sync), it is no play until moved
        # (helper-100: a restart sent it again as a new play, undoing the void)
        self.voided = voided_tiles(log)
        if tr.boneyard is not None:  # the record's draws are in the judge: its boneyard is the one to find
            tr.boneyard = BoneyardCounter(tr.judge.state.boneyard, resumed=True)

    def sync(self, tr, log: list) -> list:  # noqa: ANN001
        """Tracker ``tr`` takes in the record after someone else changed it: see
        :meth:`vision.tracking.Tracker.sync`. Returns notices."""
        plays = tr.plays
        was_over = tr.judge.state.over
        # a still table is not read: tiles shown in a hand area may end the hand now (Tracker.wants_read)
        self.synced = any(c.face == "up" and c.status == "hand" for c in tr.tiles.values())
        tr.hand, tr.judge = tr.engine_hands(tr.hand.context)
        end = tr.hand_end
        end.reopen()
        recorded = self.take_in(tr, log)
        # an end the record brought (the umpire's End, a redeal penalty), not one the camera saw: a lock says
        # nothing of the rule set (Tracker._check_lock_fit)
        end.umpires_end = end.ended is not None and (end.umpires_end or not was_over)
        if was_over and not tr.judge.state.over:
            # the umpire voided the end (an End pressed by mistake, a redeal penalty undone): the tiles laid
            # meanwhile (``after_hand_end``) are looked at again at the next read and become plays, as those
            # laid against a voided play do once it is restored; read now, even on a still table
            self.recheck = True
            self.synced = self.synced or any(c.face == "up" and c.status == "unplaced" for c in tr.tiles.values())
        if tr.boneyard is not None:
            tr.retarget_boneyard()
        if len(recorded) == len(plays) and not swapped(plays, recorded):
            recs = list(tr.lop.records)
            for i, (pr, (seat, tile, end_name, spinner)) in enumerate(zip(plays, recorded)):  # the same plays
                pr.seat, pr.end = seat, end_name or "lead"
                if (pr.tile.a, pr.tile.b) != (tile.a, tile.b) and i < len(recs):
                    self.recheck = True  # a fixed tile shows other numbers at its end
                    r = recs[i]
                    # a tile fixed into a double may have become a spinner (its arms open), or stopped being one
                    recs[i] = type(r)(r.end, r.geom, placed_pips(tile, r.touching), r.touching, r.contact, spinner)
                pr.tile = tile
            tr.lop.rebuild(recs)
            return []
        self.recheck = True  # a tile laid against a voided (or now restored) play touched no open end
        for c in tr.tiles.values():  # bind again: a play voided or entered by hand
            if c.status == "layout":
                c.status, c.play, c.scenery = "loose", None, True  # until a recorded play claims it
        tr.lop, tr.plays = LineOfPlay(), []
        # the lead cannot have moved: a fix of its pips leaves it the tile it was
        self.binder = RecordBinder(recorded, syncing=True,
                                   lead_id=plays[0].tile_id if plays and plays[0].end == "lead" else None)
        out = self.binder.step(tr, tr.state.frame if tr.state else 0, tr.state.t if tr.state else 0.0,
                               first=False, prefer=frozenset(pr.tile_id for pr in plays))
        if tr.judge.state.over:
            # plays of the camera's that the record lacks and no one voided: refused, the end was stored while
            # they were on their way (the umpire's End). As far as the record goes they came after the end:
            # should it be voided, they are plays, first of the tiles laid meanwhile (HandEndWatch.replay)
            voided = voided_tiles(log)
            lost = [pr for pr in plays if pr.tile_id in tr.tiles and tr.tiles[pr.tile_id].status != "layout"
                    and tr.tiles[pr.tile_id].key not in voided]
            for pr in lost:
                c = tr.tiles[pr.tile_id]
                c.status, c.scenery, c.unplaced_at = "unplaced", False, len(tr.plays)
            tr.hand_end.refused(lost)  # the binder may have started a new hand (a table cleared meanwhile)
        return out
