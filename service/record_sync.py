"""Keeping a camera worker's tracker in step with the table's record (the umpire's changes).

The vision worker (:mod:`service.vision_source`) emits engine events from its frame thread; the
service stores them, and the umpire adds passes, penalties and corrections of their own. When the
record of the hand the camera follows changes by someone else's hand, the tracker must take it in
(:meth:`vision.tracking.Tracker.sync`), but only once every event the camera sent is stored (or
refused), else the record it reads would lack the camera's latest play. :class:`RecordSync` does
that bookkeeping, shared by the service's event loop and the frame thread under one lock:

* the camera's hands (0, then 1, 2, ... at each table it saw cleared) and the match hand each went
  to, learnt from the service's acknowledgements (or, for a hand the camera has stored nothing in
  yet, the hand after the last one known: the umpire may open it, entering a lead the camera missed);
  when the umpire starts another match at the table, the camera starts over (the tiles on the
  table are the old match's) and its next hand is the new match's hand 1;
* the events sent and settled (stored or refused);
* the changes waiting, per match hand, each with a function that reads the record afresh.
"""

from __future__ import annotations

import threading
from typing import Callable


class RecordSync:
    """The camera's hands, its events in flight and the record changes waiting (see module docstring).

    Args:
        hands_recorded: hands the match held when the worker started (its first hand is the next).
    """

    def __init__(self, hands_recorded: int = 0):
        self._lock = threading.Lock()
        self.tracker_hand = 0  # (frame thread) the camera's current hand
        self._match_hand: dict[int, int] = {}
        self._waiting: dict[int, Callable[[], list]] = {}  # match hand -> read its record
        self._sent = self._settled = 0
        self._first = (0, int(hands_recorded) + 1)  # (camera hand, match hand) when nothing is known
        self._start_over = False  # another match began: the frame thread starts a new camera hand
        self._hand_in_old_match = True  # when the match changed, the camera's hand had events stored
        #: (frame thread) the camera's next event opens a new match hand (it saw the table cleared)
        self.new_hand = False

    # ---- the frame thread -----------------------------------------------------------------
    def resumed(self, hand: int) -> None:
        """The camera's first hand goes on with match hand ``hand`` (a restart, ``Tracker.resume``)."""
        with self._lock:
            self._match_hand[self.tracker_hand] = hand

    def take_start_over(self, hand_has_plays: bool) -> str | None:
        """Whether another match began since the last call, and how the camera goes on: ``"new"``,
        its next hand (the caller starts one, :meth:`cleared`) is the new match's hand 1; ``"keep"``,
        its current hand has no plays and nothing of it (the deal) was stored when the match began,
        so it goes to the new match: that hand is already the new match's hand 1 (a start and a new
        match at once, helper-67 and helper-68); None: no new match.

        Args:
            hand_has_plays: the camera's current hand has plays.
        """
        with self._lock:
            if not self._start_over:
                return None
            self._start_over = False
            keep = not hand_has_plays and not self._hand_in_old_match
            self._match_hand, self._first = {}, (self.tracker_hand + (0 if keep else 1), 1)
            return "keep" if keep else "new"

    def cleared(self) -> None:
        """The camera saw the table cleared: its next hand, whose first event opens a new match hand."""
        self.tracker_hand += 1
        self.new_hand = True

    def sent(self) -> int:
        """One more event handed to the service; returns the camera hand to tag it with."""
        with self._lock:
            self._sent += 1
        return self.tracker_hand

    def take(self, tracker) -> list:  # noqa: ANN001
        """Apply the waiting change of the camera's hand, once nothing of the camera's is in flight:
        ``tracker.sync(record)``; returns its notices (often none)."""
        with self._lock:
            if not self._waiting or self._sent != self._settled:
                return []  # a play of ours still on its way: the record would lack it
            mine = self._match_hand.get(self.tracker_hand)
            if mine is None:  # nothing of this hand stored yet: the hand after the last one known
                before = self._match_hand.get(self.tracker_hand - 1)
                mine = before + 1 if before is not None else (
                    self._first[1] if self.tracker_hand == self._first[0] else None)
            read = self._waiting.pop(mine, None) if mine is not None else None
            self._waiting = {h: f for h, f in self._waiting.items() if mine is None or h > mine}  # older: done
            if read is None:
                return []
            if self._match_hand.get(self.tracker_hand) is None:
                self._match_hand[self.tracker_hand] = mine
                self.new_hand = False  # the umpire opened this hand: the camera's next event goes in it
        return tracker.sync(read())

    # ---- the service's event loop -----------------------------------------------------------
    def stored(self, tracker_hand: int, hand: int) -> None:
        """An event of camera hand ``tracker_hand`` was stored in match hand ``hand``."""
        with self._lock:
            self._match_hand[int(tracker_hand)] = hand
            self._settled += 1

    def refused(self) -> None:
        """An event the camera sent was refused (a ``desync`` alert): settled all the same."""
        with self._lock:
            self._settled += 1

    def changed(self, hand: int, read: Callable[[], list]) -> None:
        """Match hand ``hand``'s record changed by another source; ``read()`` gives it afresh."""
        with self._lock:
            self._waiting[hand] = read

    def new_match(self) -> None:
        """The umpire started another match at the table (:meth:`take_start_over` acts on it); the
        changes waiting are the last match's."""
        with self._lock:
            self._waiting, self._start_over = {}, True
            self._hand_in_old_match = self.tracker_hand in self._match_hand
