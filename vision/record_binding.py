"""Binding a recorded hand's plays to the tiles on the table (``Tracker.resume`` and ``Tracker.sync``).

A live table's camera worker that restarts mid-hand, or whose hand the umpire changed (a play
fixed, voided or entered by hand), must not read the tiles already recorded as new plays. The
tracker takes the record's events in force into its engine hands, and a :class:`RecordBinder`
then looks, at each read, for the face-up tile that shows each recorded play:

* a tile with the play's pips that fits the end the play went to (in play order: a play is found
  once the end it went to is in view; a tile in a hand area that fits its end counts too);
* the lead: the tile with its pips, its ends named as the record names them (a lead entered by
  hand the other way round from the picture keeps the record's W and E);
* a tile the reader misreads (the record holds the umpire's fix): one with other pips lying right
  at the play's end (fit >= :data:`MISREAD_FIT`); a misread lead is the tile around which most of
  the next recorded plays lie, or, after a sync, the tile that was the lead.

Until a recorded play is found, tiles with its pips are held (never new plays) and no lead is
chosen. After :data:`RESUME_PATIENCE_READS` reads the plays still missing are named to the umpire
(a ``resume_unseen`` notice, details ``lost``) and still bound if they show later. A restart whose
first read finds too little of the record (:data:`RESUME_SEEN_SHARE` of an ended hand, or not
even the lead after the patience) was a table cleared meanwhile: a new hand; so is a first read
showing none of the layout followed by a few of its tiles without the rest (a new hand laid since,
even with the same lead: a layout an arm hid comes back whole).

Units: the tracker's (table mm when calibrated, image px otherwise).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from engine.tiles import Tile
from vision.layout_from_tiles import LineOfPlay, lead_order, spinner_arms_opened
from vision.placements import Notice

if TYPE_CHECKING:
    from vision.tracking import TrackedTile, Tracker

#: A restart whose first read finds fewer than this share of an ended hand's recorded plays: the
#: table was cleared meanwhile.
RESUME_SEEN_SHARE = 0.5
#: Reads after which the recorded plays still not found are named to the umpire, so that the
#: camera follows the ends in view.
RESUME_PATIENCE_READS = 4
#: Geometric fit at a recorded play's end above which a tile with other pips is that play, misread
#: (the record holds the umpire's fix; the reader goes on with its own reading).
MISREAD_FIT = 0.5


class RecordedPlay(NamedTuple):
    """A play of the record still on the table."""

    seat: str
    tile: Tile  # oriented as the engine has it: [touching | other], the lead [W | E]
    end: str | None  # None for the lead
    spinner: tuple[str, str] | None  # the arms it opened as a spinner


def recorded_plays(state) -> list[RecordedPlay]:  # noqa: ANN001
    """The plays of an engine :class:`~engine.hand.HandState` still on the table, in order, with the
    spinner arms each opened (the layout laid again play by play)."""
    out = []
    lay = state.layout.empty_like()
    for _, seat, tile, end, oriented, _ in state.plays:
        before = set(lay.arms)
        placed = lay.place(tile, end, oriented)
        out.append(RecordedPlay(seat, tile, end, spinner_arms_opened(lay, before) if placed.became_spinner else None))
    return out


def placed_pips(tile: Tile, k: int) -> tuple[int, int]:
    """``tile``'s pips in polygon order when its half ``k`` (0 or 1) shows ``tile.a``."""
    return (tile.a, tile.b) if k == 0 else (tile.b, tile.a)


class RecordBinder:
    """The recorded plays not yet found on the table, and how long they have been looked for.

    Args:
        plays: the record's plays still on the table, in play order (:func:`recorded_plays`).
        syncing: the record changed while the camera ran (``Tracker.sync``): a lead it cannot see
            is named, never taken for a cleared table.
        lead_id: (sync) the tracked tile that was the lead before the record changed.
    """

    def __init__(self, plays: list[RecordedPlay], syncing: bool = False, lead_id: int | None = None):
        self.pending = list(plays)
        self.syncing = syncing
        self.lead_id = lead_id
        self.reads = 0
        self.lost: list[RecordedPlay] = []  # named to the umpire; still bound if they show
        self.told = False
        self.hidden = False  # (resume) the restart's first read found none of the recorded plays

    def held_keys(self) -> set[tuple[int, int]]:
        """Keys of the tiles that are no new plays while their recorded play is looked for."""
        return {p.tile.key for p in self.pending}

    def step(self, tr: Tracker, frame: int, t: float, first: bool, prefer: frozenset[int] = frozenset()) -> list:
        """Bind what the tracker's tiles now show; returns notices (``resume_unseen``, ``hand_cleared``).

        Args:
            tr: the tracker (its tiles, line of play and plays are updated).
            frame, t: the read's frame index and time (s).
            first: the tracker's first committed read.
            prefer: ids of tiles bound before (sync): tried first for their plays.
        """
        recorded = len(self.pending) + len(tr.plays)
        keys = self.held_keys() | {pr.tile.key for pr in tr.plays}
        if self.hidden and self._laid_since(tr, recorded):
            return tr.cleared_meanwhile(frame, t, set())  # the tiles in view are the new hand's
        self.reads += 1
        give_up = self.reads > RESUME_PATIENCE_READS
        order = sorted(tr.tiles.values(), key=lambda c: c.id not in prefer)
        lost: list[Tile] = []
        for rec in list(self.pending):
            c = next((c for c in order if self._fits(tr, c, rec)), None)
            if c is None and rec.end is not None:  # the reader may misread it: other pips right at that end
                c = next((c for c in order if self._fits(tr, c, rec, misread=True)), None)
            if c is None and rec.end is None:
                c = self._misread_lead(tr, order, rec)
            if c is None:  # a play on another arm may still be found; the ones touching it wait
                if give_up and rec not in self.lost:
                    self.lost.append(rec)
                    lost.append(rec.tile)
                continue
            self.pending.remove(rec)
            tr.bind_recorded(c, rec, frame, t)
        if lost and tr.lop.lead is None and not self.syncing:  # not even the lead: the layout was cleared
            return tr.cleared_meanwhile(frame, t, keys)
        if lost:
            return [Notice("resume_unseen", t, frame,
                           f"hand {tr.hand.context.number}: recorded plays {' '.join(map(str, lost))} not found on "
                           f"the table after {RESUME_PATIENCE_READS} reads; the camera follows the ends in view "
                           "(the plays against those tiles wait until they show)",
                           details={"recorded": recorded, "found": len(tr.plays), "lost": [[x.a, x.b] for x in lost]})]
        if not first or not self.pending or len(tr.plays) >= RESUME_SEEN_SHARE * recorded:
            return []
        if not self.syncing and any(tr.tiles[pr.tile_id].key != pr.tile.key for pr in tr.plays
                                    if pr.tile_id in tr.tiles):
            # most of the layout missing and what was bound only by its place, read with other pips:
            # a new hand laid while the worker was stopped (the table cleared meanwhile), not the record's
            return tr.cleared_meanwhile(frame, t, set())
        self.hidden = not tr.plays and not self.syncing
        if tr.judge.state.over:  # the ended hand's tiles are gone: the table was cleared meanwhile
            return tr.cleared_meanwhile(frame, t, keys)
        if self.told:
            return []
        self.told = True
        return [Notice("resume_unseen", t, frame,
                       f"resumed hand {tr.hand.context.number}: {len(self.pending)} of its {recorded} recorded "
                       "plays are not in view; tiles with their pips are not read as new plays until they are",
                       details={"recorded": recorded, "found": len(tr.plays)})]

    def _laid_since(self, tr: Tracker, recorded: int) -> bool:
        """After a first read that showed none of the recorded layout: whether the tiles now in view
        are a new hand laid since (the table was cleared while the worker was stopped), not the
        recorded layout coming back into view. A layout an arm hid comes back whole at the next still
        read; a new hand comes tile by tile, so a few recorded tiles (the same lead, say) without the
        rest of the layout are a new hand. Once the layout is back, binding goes on as usual."""
        shown = {c.key for c in tr.tiles.values() if c.face == "up" and c.status != "layout"
                 and not tr.in_hand_zone(c.geom)}
        seen = sum(p.tile.key in shown for p in self.pending)
        if seen == 0:
            return False  # nothing yet: go on waiting
        self.hidden = False
        return not (seen >= RESUME_SEEN_SHARE * recorded and (seen >= 2 or recorded == 1))

    @staticmethod
    def _fits(tr: Tracker, c: TrackedTile, rec: RecordedPlay, misread: bool = False) -> bool:
        """Whether tracked tile ``c`` shows ``rec`` at its end; lays it in the tracker's line of play
        (with the record's pips) if so. ``misread``: ``c`` reads as another tile but lies at that end
        with a fit of :data:`MISREAD_FIT` or more (the lead: :meth:`_misread_lead`)."""
        tile = rec.tile
        if c.face != "up" or c.status == "layout" or (c.key != tile.key) != misread:
            return False
        if rec.end is None:
            if tr.lop.lead is not None or misread or tr.in_hand_zone(c.geom):
                return False
            # the record names the ends: W is the half showing the record's first value
            west = None if tile.a == tile.b else 0 if c.pips == (tile.a, tile.b) else 1
            tr.lop.set_lead(c.geom, c.pips, rec.spinner, west=west)
            return True
        # The first play against a lone double lead names the site it touches: the record's name
        # (a play entered by hand may call E the side the picture calls W); not for a misread tile,
        # which may be any tile laid at either side.
        named = tr.lop.lone_double and rec.end in ("W", "E") and not misread
        fit = tr.lop.assign(c.geom, c.pips, c.confidence, arms={"W", "E"} if named else {rec.end})
        if fit is None or (misread and fit.fit < MISREAD_FIT):
            return False
        fit = replace(fit, end=rec.end) if named else fit
        tr.lop.place(fit, c.geom, placed_pips(tile, fit.touching), rec.spinner)  # the record: [touching | other]
        return True

    def _misread_lead(self, tr: Tracker, order: list[TrackedTile], rec: RecordedPlay) -> TrackedTile | None:
        """The tile that is the recorded lead, read with other pips: after a sync, the tile that was the
        lead; else, of the unbound face-up tiles outside hand areas, the one from which most of the next
        recorded plays are found (at least one; on a restart with none recorded, the only such tile).
        Laid as the lead if found."""
        cands = [c for c in order if c.face == "up" and c.status != "layout" and c.key != rec.tile.key
                 and not tr.in_hand_zone(c.geom)]
        rest = self.pending[1:]
        best = next(((len(rest) + 1, c) for c in cands if c.id == self.lead_id), None)
        for c in cands if best is None else []:
            lop = LineOfPlay()
            lop.set_lead(c.geom, placed_pips(rec.tile, lead_order(c.geom)[0]), rec.spinner)
            n, used = 0, {c.id}
            for nxt in rest:  # found by its pips, or misread too but right at its end
                fits = ((d, lop.assign(d.geom, d.pips, 1.0, arms={nxt.end})) for d in cands if d.id not in used)
                d, fit = next(((d, f) for d, f in fits if f is not None and (d.key == nxt.tile.key or f.fit >= MISREAD_FIT)),
                              (None, None))
                if d is None:
                    break
                lop.place(fit, d.geom, d.pips, nxt.spinner)
                used.add(d.id)
                n += 1
            if best is None or n > best[0]:
                best = (n, c)
        if best is None or (best[0] == 0 and (rest or len(cands) != 1 or self.syncing)):
            return None
        c = best[1]
        tr.lop.set_lead(c.geom, placed_pips(rec.tile, lead_order(c.geom)[0]), rec.spinner)
        return c
