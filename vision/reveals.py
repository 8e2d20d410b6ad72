"""The end of a hand seen from the camera: the tiles each seat turns face up in front of it.

After a domino or a lock every seat still holding tiles shows them, and their pips are
counted for the score (the seed rule texts award the pips left in the other hands;
``engine.hand._finish``). :class:`RevealWatcher` turns the face-up tiles in a seat's hand
area into :class:`engine.events.Reveal` events:

* when the engine knows the tile counts (block games), a seat's reveal is emitted once all
  its tiles are seen face up (the count it should hold);
* in a draw game the camera cannot count hands (draws from the boneyard are not seen), so
  the engine cannot declare a domino or a lock: face-up tiles shown in front of a seat other
  than the last player after that player's play end the hand once the tiles shown have stayed
  the same for ``settle_s`` seconds (seats turn their hands up one after another), or when the
  footage ends (:meth:`RevealWatcher.step` with ``final``):

  - the last player shows tiles too: nobody could play, a lock;
  - it does not: a domino by the last player, if that player has laid at least a full hand
    (draws only add tiles, so nobody goes out sooner);

  (:class:`~engine.events.HandEnd`, with a ``hand_end_inferred`` notice for the umpire, who
  corrects it if a tile was only exposed), and each seat's reveal is emitted at the first
  still read that shows it;
* a draw game's play that blocks the line (every tile of its open ends laid) is a lock to the
  engine, which cannot count the player's hand: with tiles shown by the others only, settled as
  above, it was that player's last tile - a domino;
* in a block game, tiles shown by two or more seats (still there at the next read) while the
  hand goes on mean nobody could play: the seats' passes are inferred and the engine locks
  the hand (``hand_end_inferred``);
* a seat whose shown tiles change after its reveal gets a ``reveal_changed`` notice (the
  umpire corrects the count), never a silent change of the score.
* tiles shown by the seat that went out (it holds none) get one ``after_hand_end`` notice:
  the hand went on at the table, so the rule set may not fit the footage;
* a shown tile the line of play already holds (a play misread as it) is not counted: one
  ``shown_on_line`` notice for the umpire.
* a face-up tile boxed under :data:`SHOWN_PICTURE_MAX_SCORE` that came into view at a read that also
  made a play (a seat's tile laid uncovered it), or that lay there while a later play was made, is
  a picture of a domino (a game board's printed track under the hand areas), never a reveal: a
  seat turns its hand up after the last play, and the detector boxes a real tile surely.
"""

from __future__ import annotations

from typing import Callable, Protocol

import numpy as np

from engine.events import HandEnd, Pass, Reveal
from engine.hand import Hand, IllegalEvent
from engine.tiles import Tile
from vision.placements import SIDE_TO_SEAT, Notice

__all__ = ["SHOWN_PICTURE_MAX_SCORE", "RevealWatcher", "seat_of_position"]

#: A face-up tile in a hand area boxed under this (the detector's score of the box it was first seen in) and seen
#: before the hand's latest play, or first at a read that made a play, is a picture, not a shown tile
#: (:meth:`RevealWatcher._pictures`), and at a dealt table's first read (``vision.tracking``): a board's printed dominoes
#: box 0.2-0.6, real tiles 0.86-0.96 (fives-and-threes seed 12 on a board: printed 6-5 and 4-3 boxed 0.51, 0.54
#: and 0.42 where N's face-down tiles had hidden them; the tiles N turned up 0.96).
SHOWN_PICTURE_MAX_SCORE = 0.8


class _Shown(Protocol):
    key: tuple[int, int] | None
    geom: object


def seat_of_position(center: np.ndarray, profile=None, image_size: tuple[int, int] | None = None) -> str | None:
    """The seat in front of which a point lies.

    Args:
        center: (2,) float point: table mm with a calibrated ``profile`` (nearest table edge,
            ``TableProfile.seat_of_point``), else image px (nearest image border, north up).
        profile: calibrated :class:`~calibration.profile.TableProfile` or None.
        image_size: (width, height) px, needed without a profile.

    Returns:
        ``N``/``E``/``S``/``W``, or None when neither a profile nor an image size is known.
    """
    if profile is not None and getattr(profile, "table_size_mm", None) is not None:
        return str(profile.seat_of_point(np.asarray(center, np.float64)))
    if image_size is None:
        return None
    w, h = image_size
    x, y = float(center[0]), float(center[1])
    dist = {"top": y, "right": w - x, "bottom": h - y, "left": x}
    return SIDE_TO_SEAT[min(dist, key=dist.get)]


class RevealWatcher:
    """Emits the end-of-hand reveals (and the inferred end of the hand) of one hand.

    Args:
        settle_s: seconds the tiles shown in a draw game must stay the same before the end of the
            hand is inferred from them: the last player's own hand, turned up after the others',
            makes it a lock, not a domino.
        photos: reading a folder of photos: each photo is a still table (no tile is seen carried), so
            tiles shown in one photo are as good as tiles seen still at two reads of footage.
    """

    def __init__(self, settle_s: float = 3.0, photos: bool = False) -> None:
        self.settle_s = settle_s
        self.photos = photos
        self.revealed: dict[str, tuple[tuple[int, int], ...]] = {}
        self._changed: dict[str, tuple[tuple[int, int], ...]] = {}
        self._pending: dict[str, list] | None = None
        self._pending_t = 0.0  # when the tiles pending were first seen as they are
        self._pending_frame = 0  # and at which frame
        # a draw game's inferred end: (frame, t) the tiles that ended it were first seen, for the events
        self._shown_at: tuple[int, float] | None = None
        self._wait = 0.0  # and how long they must stay so
        self._still = False  # seen at two reads in a row
        self._held = False  # some of them not seen at the latest read: wait for the sweep or the tiles
        self._held_t = 0.0  # when that read was
        self._plays_at = 0  # plays in the hand when they were first seen
        self._winner_shown: tuple[tuple[int, int], ...] = ()  # tiles shown by the seat that went out, noticed
        self._on_line_noted: set[tuple[str, tuple[int, int]]] = set()
        # seat -> (plays in the hand, frame index) of the first read that showed its tiles since the last play
        self._first_shown: dict[str, tuple[int, int]] = {}
        self._plays_seen = 0  # plays in the hand at the previous read
        # tracked tile id -> (plays in the hand when first seen, first seen at a read that made a play)
        self._seen: dict[int, tuple[int, bool]] = {}

    def read_due(self, t: float) -> bool:
        """Whether tiles shown wait for a read at time ``t`` (s) to end the hand: at once in a block
        game (a confirming read), once ``settle_s`` has passed in a draw game; and ``settle_s`` after a
        read that missed some of them: on a still table nothing else would read again (helper-89: a
        live hand stayed unended after one read missed the tile shown)."""
        if self._pending is None:
            return False
        if self._held:
            return t >= self._held_t + self.settle_s
        return t >= self._pending_t + self._wait

    @property
    def pending(self) -> bool:
        """Tiles shown wait to end the hand (the footage's end settles them: ``step(final=True)``)."""
        return self._pending is not None

    def step(self, judge: Hand, append: Callable[[object], object], shown: list[_Shown],
             seat_of: Callable[[np.ndarray], str | None], frame: int, t: float,
             ended: str | None = None, final: bool = False, passes_seen: bool = False) -> list:
        """Look at the face-up tiles in the hand areas after a still read.

        Args:
            judge: an engine hand under the real rules (draws unseen in draw games): whether
                the hand is over, its winner, and each seat's tile count when known.
            append: appends an event to the tracker's hands (raises IllegalEvent when refused).
            shown: face-up tiles in hand areas (with ``key`` and ``geom.center``).
            seat_of: point (working units) -> seat.
            frame, t: frame index and time (s) of the read.
            ended: how the hand ended, for people (``"S dominoed at 45.9 s"``).
            final: the footage ended (this is the last read): tiles shown are taken as they lie,
                with no wait for them to settle.
            passes_seen: a draw game whose boneyard the camera saw drawn out (only the reserve
                left): a lock is then every seat passing in turn, recorded as their passes.

        Returns:
            engine events (:class:`HandEnd`, :class:`Pass`, :class:`Reveal`) and :class:`Notice` records.
        """
        st = judge.state
        shown = self._pictures(shown, len(st.plays))
        # seat -> [(tile key, centre, tile length)], sorted by key
        placed: dict[str, list[tuple[tuple[int, int], np.ndarray, float]]] = {}
        on_line: list[tuple[str, tuple[int, int]]] = []  # shown tiles the line of play already holds
        for tr in sorted((tr for tr in shown if tr.key is not None), key=lambda tr: tr.key):
            seat = seat_of(tr.geom.center)
            if seat in st.order and tr.key in st.layout.on_table:
                on_line.append((seat, tr.key))
            elif seat in st.order:
                placed.setdefault(seat, []).append((tr.key, np.asarray(tr.geom.center, float), float(tr.geom.length)))
        for seat in placed:  # which seat turned its tiles up first, for the order of the reveals
            if self._first_shown.get(seat, (None,))[0] != len(st.plays):
                self._first_shown[seat] = (len(st.plays), frame)
        out: list = []
        if not st.over:
            placed = self._infer_end(judge, append, placed, frame, t, out, final, passes_seen=passes_seen)
            if placed is None:
                return out
            frame, t = self._shown_at or (frame, t)
        elif _blocked_by_a_play(st):  # the tile that blocked the line may have been the last player's last
            if self._infer_end(judge, append, placed, frame, t, out, final, blocked=True) is not None:
                frame, t = self._shown_at or (frame, t)
        self._count(judge, append, placed, frame, t, ended, out)
        for seat, key in on_line if judge.state.over else ():
            if (seat, key) not in self._on_line_noted:  # the count is one tile short: said once, to the umpire
                self._on_line_noted.add((seat, key))
                out.append(Notice("shown_on_line", t, frame,
                                  f"{seat} shows {key[0]}-{key[1]}, which the line of play already holds (a misread "
                                  "play?): not counted; the umpire corrects the play or the count",
                                  tile=key, seat=seat))
        return out

    def _pictures(self, shown: list[_Shown], plays: int) -> list[_Shown]:
        """``shown`` less the pictures of dominoes: a tile boxed under :data:`SHOWN_PICTURE_MAX_SCORE` when first seen
        (``det_score``) that came into view at a read that made a play (``plays`` in the hand now; a seat's tile
        laid uncovered it), or that lay there while a later play was made. A game board's printed track runs
        under the hand areas: N's face-down tiles hid printed dominoes until played, and the pictures then taken
        for N's reveal made it 2 or 3 tiles for the 1 N held ("awaiting reveal: tiles of N never shown";
        fives-and-threes seed 12, calibrated). Tiles the tracker gives no id or score are all kept."""
        made_play, self._plays_seen = plays != self._plays_seen, plays
        kept = []
        for tr in shown:
            tid, score = getattr(tr, "id", None), getattr(tr, "det_score", None)
            if tid is None or score is None:
                kept.append(tr)
                continue
            first, with_play = self._seen.setdefault(tid, (plays, made_play))
            if score < SHOWN_PICTURE_MAX_SCORE and (with_play or first != plays):
                continue
            kept.append(tr)
        return kept

    def settle(self, judge: Hand, append: Callable[[object], object], frame: int, t: float,
               ended: str | None = None) -> list:
        """The table is being cleared (frame index, ``t`` s): tiles shown and still waiting to end
        the hand end it now, as they were last seen (the sweep takes them away). Returns the
        events and notices, as :meth:`step`."""
        blocked = judge.state.over and _blocked_by_a_play(judge.state)
        if self._pending is None or (judge.state.over and not blocked):
            return []
        out: list = []
        placed = self._infer_end(judge, append, self._pending, frame, t, out, final=True, blocked=blocked)
        if placed is not None:
            self._count(judge, append, placed, *(self._shown_at or (frame, t)), ended, out)
        return out

    def _count(self, judge: Hand, append: Callable[[object], object], placed: dict, frame: int, t: float,
               ended: str | None, out: list) -> None:
        """Once the hand is over: each seat's shown tiles become its reveal (appended to ``out``)."""
        st = judge.state
        kind, winner = (st.pending_end[0], st.pending_end[1]) if st.pending_end else (st.result.kind, st.result.winner_seat)
        if kind not in ("domino", "locked", "time"):
            return  # a redeal or a penalty: nothing is counted
        went_out = winner if kind == "domino" else None
        for seat in self._reveal_order(st, placed):
            keys = tuple(k for k, _, _ in placed[seat])
            if seat == went_out:
                if keys != self._winner_shown:  # the seat that went out holds no tile: a notice, once
                    self._winner_shown = keys
                    out.append(Notice("after_hand_end", t, frame,
                                      f"{seat} shows {' '.join(f'{a}-{b}' for a, b in keys)} at {t:.1f} s after "
                                      f"going out ({ended or 'the hand ended'}): not counted; check the rule "
                                      "set and the plays", seat=seat, details={"shown": [list(k) for k in keys]}))
                continue
            if seat in self.revealed:
                if keys != self.revealed[seat] and keys != self._changed.get(seat):
                    self._changed[seat] = keys
                    out.append(Notice("reveal_changed", t, frame,
                                      f"{seat} now shows {' '.join(f'{a}-{b}' for a, b in keys)} after revealing "
                                      f"{' '.join(f'{a}-{b}' for a, b in self.revealed[seat])}: the umpire corrects "
                                      "the count", seat=seat))
                continue
            if st.counts_known and len(keys) < st.counts[seat]:
                continue  # not all of its tiles are face up yet
            ev = Reveal(seat=seat, tiles=[Tile(a, b) for a, b in keys], t=t, frame=frame)
            if self._append(append, ev, out, frame, t):
                self.revealed[seat] = keys

    def _reveal_order(self, st, seats: dict[str, list]) -> list[str]:  # noqa: ANN001 - an engine HandState
        """``seats`` in the order they turned their tiles up: by the frame index of the first read that
        showed them since the last play, and those first shown at the same read in turn order from the
        seat after the last player: the rule texts set no order for showing hands, so they come as the
        turns would have gone on (muggins seed 6: N lays 2-2, then N and S pass and the hand is locked;
        S shows its tile 1.9 s before N, both seen at one read, and N's reveal was recorded first)."""
        order = list(st.order)
        after = order.index(st.last_player) + 1 if st.last_player in order else 0

        def key(seat: str) -> tuple[float, int]:
            plays, frame = self._first_shown.get(seat, (None, None))
            first = frame if plays == len(st.plays) else float("inf")
            return first, (order.index(seat) - after) % len(order) if seat in order else len(order)

        return sorted(seats, key=key)

    def _infer_end(self, judge: Hand, append: Callable[[object], object], placed: dict, frame: int, t: float,
                   out: list, final: bool = False, blocked: bool = False, passes_seen: bool = False) -> dict | None:
        """Tiles shown while the judge's hand goes on: end it when the game allows no other reading.

        * draw game: tiles shown by a seat other than the last player, the same for ``settle_s``
          (or at the footage's end): with the last player's own tiles shown too, a lock (nobody
          could play); without, a domino by the last player, who must have laid at least a full
          hand (draws only add tiles);
        * block game (counts known, so a domino is counted, not inferred): tiles shown by two or
          more seats: nobody could play, every seat passed - a locked hand.
        * ``blocked``: a draw game's line that the last play blocked (the engine locked it, not
          knowing the tile was that player's last): tiles shown by the others only, as above, make
          it the last player's domino; its own tiles shown keep the lock.
        * ``passes_seen`` (a draw game's boneyard seen drawn out): a lock is recorded as every
          seat's pass in turn, as in block games, the tiles then awaited as reveals.

        The shown tiles must lie still at two reads in a row (a tile carried face up to the line
        is not a reveal), or be seen in one photo of a folder; ``final`` takes the last read's as they
        lie. Tiles seen still that are then taken away (the table being swept) end the hand as they
        were seen.

        Returns:
            the seats' shown tiles to count when the hand is now over (``placed``, or the tiles
            seen before the sweep), else None.
        """
        st = judge.state
        if st.layout.lead is None or st.last_player is None:
            self._pending = None
            return None
        last = st.last_player
        shown = dict(placed)
        if st.counts_known:
            wait, plausible = 0.0, len(shown) >= 2
        else:
            others = [s for s in placed if s != last]
            full_hand = sum(1 for p in st.plays if p[1] == last) >= judge.rules.hand_size
            wait = self.settle_s
            plausible = bool(others) and (full_hand and last not in placed if blocked else last in placed or full_hand)
        if self._pending is not None and self._plays_at != len(st.plays):
            self._pending = None  # a play since: the hand went on
        if self._pending is not None and self._still and _fewer(shown, self._pending):
            # shown still, then some taken away: the table being swept (settle() when the line of
            # play goes), or a tile not detected at this read; keep what was seen
            self._held, self._held_t = not final, t
            if not final:
                return None
            shown = self._pending
        elif not plausible:
            self._pending = None
            return None
        elif not _same_tiles(shown, self._pending):
            # a photo is a still table: its tiles shown count as seen still (helper-201: the one photo of N's
            # hand shown, then the next hand's lead, lost hand 1's end: "cleared from the table before it ended")
            self._pending, self._pending_t, self._pending_frame, self._wait = shown, t, frame, wait
            self._still = self.photos
            self._plays_at, self._held = len(st.plays), False
            if not final:
                return None  # read again: the tiles must lie where they were
        else:
            self._still, self._held = True, False
            if not final and t < self._pending_t + wait:
                return None  # more seats may still turn their hands up
        seats = ", ".join(sorted(shown))
        self._shown_at = None
        locked_text = (f"hand locked: every seat passed (inferred from the tiles shown by {seats}); correct it "
                       "if a tile was only exposed")
        if st.counts_known:
            self._pending = None
            if not self._passes_to_lock(judge, append, out, frame, t):
                return None
            out.append(Notice("hand_end_inferred", t, frame, locked_text))
            return shown
        # the end and the reveals happened when the tiles were shown, not at the read that settled them
        # (helper-90: the report's link for them jumped to the footage's end)
        self._shown_at = f0, t0 = self._pending_frame, self._pending_t
        self._pending = None
        if passes_seen and not blocked and last in shown and self._passes_to_lock(judge, append, out, f0, t0):
            out.append(Notice("hand_end_inferred", t0, f0, locked_text))
            return shown
        if blocked:
            ev = HandEnd(kind="domino", winner=last, t=t0, frame=f0,
                         reason=f"inferred: tiles shown by {seats}, none by {last}, after {last}'s play blocked the line")
            text = (f"hand over: {last} dominoes with the tile that blocked the line (inferred from the tiles shown "
                    f"by {seats}, none by {last}); correct it if it was a lock")
        elif last in shown:
            ev = HandEnd(kind="locked", t=t0, frame=f0,
                         reason=f"inferred: tiles shown by {seats} after {last}'s play, the last player's among them")
            text = (f"hand locked: nobody could play (inferred from the tiles shown by {seats}, the last "
                    "player among them); correct it if a tile was only exposed")
        else:
            ev = HandEnd(kind="domino", winner=last, t=t0, frame=f0,
                         reason=f"inferred: tiles shown by {seats} after {last}'s play")
            text = (f"hand over: {last} dominoes (inferred from the tiles shown by {seats}); "
                    "correct it if it was a lock or an exposed tile")
        if not self._append(append, ev, out, frame, t):
            return None
        out.append(Notice("hand_end_inferred", t0, f0, text, seat=ev.winner))  # one time for the end
        return shown

    def _passes_to_lock(self, judge: Hand, append: Callable[[object], object], out: list, frame: int,
                        t: float) -> bool:
        """Every seat's pass in turn order until the engine locks the hand; whether it did."""
        for _ in range(len(judge.state.order)):
            st = judge.state  # read again after each pass
            if st.over or st.pending_end is not None:
                break
            if not self._append(append, Pass(seat=st.turn, t=t, frame=frame), out, frame, t):
                break
        return judge.state.over or judge.state.pending_end is not None

    @staticmethod
    def _append(append: Callable[[object], object], ev, out: list, frame: int, t: float) -> bool:
        try:
            append(ev)
        except IllegalEvent as exc:
            out.append(Notice("rejected", t, frame, str(exc), seat=getattr(ev, "seat", None),
                              details={"event": ev.type}))
            return False
        out.append(ev)
        return True


def _blocked_by_a_play(st) -> bool:  # noqa: ANN001 - an engine HandState
    """A draw game's hand locked by the play that blocked the line (hands uncounted), awaiting reveals."""
    return (st.result is None and st.pending_end is not None and st.pending_end[0] == "locked"
            and not st.counts_known and st.passes_in_row == 0)


def _fewer(a: dict[str, list], b: dict[str, list]) -> bool:
    """``a`` holds fewer tiles than ``b``, and none that ``b`` lacks (some of ``b``'s were taken away)."""
    ka = {k for v in a.values() for k, _, _ in v}
    kb = {k for v in b.values() for k, _, _ in v}
    return ka < kb


def _same_tiles(a: dict[str, list] | None, b: dict[str, list] | None, tol: float = 0.25) -> bool:
    """Same seats, same tiles, each within ``tol`` tile lengths of where it was."""
    if a is None or b is None or a.keys() != b.keys():
        return False
    for seat in a:
        if [k for k, _, _ in a[seat]] != [k for k, _, _ in b[seat]]:
            return False
        if any(np.linalg.norm(ca - cb) > tol * la for (_, ca, la), (_, cb, _) in zip(a[seat], b[seat])):
            return False
    return True
