"""Following the boneyard of a draw game from the face-down tiles the camera sees.

In a draw game a seat that cannot play draws from the boneyard and may pass only once nothing
is left to draw (the rule set's reserve stays: seed 004, "the last two tiles in the boneyard may
not be drawn"). The camera cannot see which tiles are drawn, but it can count the face-down
tiles that lie apart from the players' hand areas. :class:`BoneyardCounter` turns that count,
read by read, into :class:`engine.events.Draw` events, so the engine knows when the boneyard is
drawn out and the tracker may take a skipped turn for a pass, as in block games.

The count is trusted only when a read before the lead shows exactly the number of tiles the deal
leaves in the boneyard (so a camera started mid-hand, a table the camera sees only in part, or a
surface that makes it box tiles that are not there, gives no draws at all: passes are then not
inferred and the engine's ``out_of_turn`` flags stay for the umpire). A lower count must hold for
two reads in a row before its draws are emitted (one read missing a tile is no draw); each draw
goes to the seat whose turn it was when the lower count was first seen (in a draw game only the
seat to play draws).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.events import Draw
from engine.words import plural
from vision.placements import Notice

__all__ = ["BoneyardCounter", "RESUME_SLACK"]

#: Tiles fewer than the record's boneyard that the first read after a restart may show: draws
#: made while no worker watched, or not yet confirmed by the one before.
RESUME_SLACK = 2


@dataclass
class BoneyardCounter:
    """Draws from the count of boneyard tiles at each committed read of one hand.

    Attributes:
        expected: tiles the deal leaves in the boneyard (``HandState.boneyard`` of a fresh hand:
            the set's tiles minus ``hand_size`` x players).
        level: the confirmed count (tiles), None until a read before the lead shows ``expected``.
        lost: the count stopped making sense (two reads in a row with 2 or more tiles more than
            confirmed): no more draws this hand.
        noticed: the one ``boneyard_uncounted`` notice of the hand was given.
        resumed: a hand taken up from its record mid-hand (``Tracker.resume``): ``expected`` is the
            record's boneyard (the deal's less the draws recorded), and the first read takes it up
            although the lead is down, when it shows that many tiles or up to :data:`RESUME_SLACK`
            fewer (those are draws, once the next read confirms them).
    """

    expected: int
    level: int | None = None
    lost: bool = False
    noticed: bool = False
    resumed: bool = False
    _prev: int | None = None  # the count of the previous read taken into account
    _first: dict[int, tuple[str, float, int]] = field(default_factory=dict)  # count -> (turn, t, frame) first seen

    @property
    def trusted(self) -> bool:
        """Whether the draws emitted so far follow the table (a confirmed count, never lost)."""
        return self.level is not None and not self.lost

    def retarget(self, turn: str | None) -> None:
        """The record changed (``Tracker.sync``): a drop seen but not yet confirmed goes to ``turn``, the
        seat to play as the record now stands (helper-100: a draw begun while the umpire's void left the
        other seat to play was recorded for that seat once the void was undone)."""
        if turn is not None:
            self._first = {k: (turn, t, f) for k, (_, t, f) in self._first.items()}

    def step(self, seen: int, turn: str | None, t: float, frame: int, started: bool,
             drawn: tuple[int, ...] = (), played: bool = False) -> list:
        """Take one committed read.

        Args:
            seen: face-down tiles apart from the playing seats' hand areas in this read.
            turn: the seat to play before this read's plays (None: no draw can be attributed now,
                before the lead or after the hand ended; the read is then ignored).
            t: the read's time, seconds; frame: its frame index.
            started: the lead is on the table: a count not confirmed by then never is (draws may
                have been made; noticed once).
            drawn: counts of the tiles the hands are seen to have gained from the boneyard in this read
                (a folder's photos, :meth:`vision.tracking.Tracker`: all hands', the drawer's alone): a drop
                of exactly one of them needs no second read, so the draw comes before the play made with it.
            played: this read shows a play too (a folder's photo): when both counts in ``drawn`` agree on two or
                more tiles and the boneyard shows one fewer gone, the hands are believed, as the draw must come
                before that play; without a play, waiting a read costs nothing and the boneyard decides.

        Returns:
            :class:`engine.events.Draw` events (seat, count, the time the lower count was first
            seen) and at most one ``boneyard_uncounted`` :class:`~vision.placements.Notice`.
        """
        if self.lost:
            return []
        if self.level is None:
            resumed, self.resumed = self.resumed, False
            if seen == self.expected and not started:  # after the lead, draws may already have been made
                self.level, self._prev = seen, seen
                return []
            if resumed and self.expected - RESUME_SLACK <= seen <= self.expected:
                # a restart mid-hand: the record's count stands; a tile or two fewer are draws the worker
                # before the restart had not confirmed yet (helper-89), confirmed by the next read as any
                self.level = self.expected
            else:
                if started and not self.noticed:
                    self.noticed = True
                    source = "the record leaves" if resumed else "the deal leaves"
                    return [self._notice(t, frame, f"the boneyard is not counted: the camera sees "
                                         f"{plural(seen, 'face-down tile')} apart from the hands, {source} "
                                         f"{self.expected}; draws are not followed and passes are not "
                                         "inferred this hand")]
                return []
        if turn is None:
            self._prev = None  # no confirmation across a read that was not taken into account
            return []
        level = self.level
        for k in range(seen, level):
            self._first.setdefault(k, (turn, t, frame))
        prev, self._prev = self._prev, seen
        if level - seen > 0 and level - seen in drawn:
            # the tiles are in the hands: no detector slip
            prev = seen
        elif played and len(set(drawn)) == 1 and drawn[0] >= 2 and level - seen == drawn[0] - 1:
            # all hands' gain and the drawer's agree on the tiles drawn, the boneyard shows one fewer gone: a
            # tile counted there twice or a false box (hand-held muggins: N drew 2 and played, the boneyard
            # read 15 for 14, and the draws came a photo late, after the play, the next seat's with them).
            # Only with a play: in a photo of the draw alone a hand read one tile more (all-fives, N drew 1)
            seen = prev = self._prev = level - drawn[0]
            self._first.setdefault(seen, (turn, t, frame))
        if prev is None:
            return []
        if min(seen, prev) >= level + 2:
            return self._lose(t, frame, f"the boneyard count rose to {min(seen, prev)} (it was {level}): draws "
                              f"are no longer followed this hand")
        new = max(seen, prev)
        if new >= level:
            self._first = {k: v for k, v in self._first.items() if seen <= k < level}
            return []
        draws: list[Draw] = []
        for k in range(level - 1, new - 1, -1):  # one tile per count level, oldest first
            seat, t0, f0 = self._first[k]
            if draws and draws[-1].seat == seat:
                draws[-1] = draws[-1].model_copy(update={"count": draws[-1].count + 1})
            else:
                draws.append(Draw(seat=seat, count=1, t=t0, frame=f0))
        self.level = new
        self._first = {k: v for k, v in self._first.items() if k < new}
        return draws

    def _lose(self, t: float, frame: int, message: str) -> list:
        self.lost = True
        if self.noticed:
            return []
        self.noticed = True
        return [self._notice(t, frame, message)]

    @staticmethod
    def _notice(t: float, frame: int, message: str) -> Notice:
        return Notice("boneyard_uncounted", t, frame, message)
