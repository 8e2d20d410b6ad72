"""The players' hand areas as the tracker sees them, the face-down tiles in them, and the seat votes they give.

:class:`HandAreas` (one per :class:`~vision.tracking.Tracker`, ``tracker.hand_areas``) owns

* where the hand areas lie (:meth:`HandAreas.in_zone`): within ``hand_zone_mm`` of a table edge with a
  calibrated profile; without one, a band of ``hand_zone_frac`` of the image along its borders, or the rows
  of face-down tiles found along them (:meth:`HandAreas.find_rows`, :mod:`vision.hand_rows`), which with
  the last read's face-down tiles by each border also tell photos taken turned (:meth:`HandAreas.off_seats`);
* how many face-down tiles each seat's hand area holds (:meth:`HandAreas.counts`), and which face-down boxes
  are too long for tiles (:meth:`HandAreas.tile_sized`);
* a folder of photos' bookkeeping, where no arm is ever seen and the hand a tile left tells the seat: the
  counts after the last photo and the one before, the hands under glare in this photo and the last, and
  whether the last photo showed an arm; from them the seat votes of a photo
  (:meth:`HandAreas.photo_votes`) and the tiles the hands drew (:meth:`HandAreas.drawn`,
  :meth:`HandAreas.drew_after_play`).

The seat votes themselves stay the tracker's (``Tracker._votes``, shared with the arms' entry votes and
the boneyard's drawer): :class:`HandAreas` returns the votes to add. The rules are those of
``docs/tracking.md`` (photo folders, hand areas). Units: the tracker's working units, table mm with a
calibrated profile, image px without (hand rows and ``row_tile_px`` are always px: uncalibrated only).
"""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from calibration.seats import hand_area_edge
from vision.hand_rows import ROW_MIN_TILES, hand_rows, in_row_area
from vision.layout_from_tiles import TileGeom
from vision.reveals import seat_of_position

__all__ = ["HandAreas", "OVERSIZE_TILES", "PHOTO_HAND_SCALE", "tile_length"]

#: Uncalibrated photos: the hand areas reach this many times the 10 % band into the image (hands
#: lie further in than a video's arms cross: helper-85, S's row at 960x540).
PHOTO_HAND_SCALE = 2.0

#: A face-down box longer than this many tile lengths is no tile: tiles lie flat, and their boxes measure at
#: most 1.16 tile lengths on 11 cached bench footages of all nine presets (calibrated, table mm), while the detector
#: boxes the bands of a veined marble beside a boneyard column at 1.21-1.67 (draw seed 1003: 20 face-down
#: tiles counted apart from the hands for the deal's 14, and no draw followed; :meth:`HandAreas.tile_sized`).
OVERSIZE_TILES = 1.2

_BORDERS = ("N", "E", "S", "W")  # without a calibration, the seats are the image's borders: N the top


def tile_length(lengths: np.ndarray) -> float:
    """A face-down tile's long side in one read (px): the median of the boxes' ``lengths`` ((N,) px, N >= 1)
    no longer than :data:`OVERSIZE_TILES` times the median of them all. The boxes of table texture are longer
    than tiles, and enough of them lift the plain median above a tile's length (hand-held draw seed 1003:
    62.3 px for tiles of 56-59, and a veined-wood box of 69.9 px passed for a tile at 1.12 of it)."""
    lengths = np.asarray(lengths, np.float64).reshape(-1)
    first = float(np.median(lengths))
    return float(np.median(lengths[lengths <= OVERSIZE_TILES * first]))


class HandAreas:
    """The hand areas, their face-down tiles, and a photo folder's seat votes from them (see module docstring).

    Args:
        config: the tracker's :class:`~vision.tracking.TrackerConfig` (``hand_zone_mm``, ``hand_zone_frac``,
            ``hand_vote_min_score``, ``min_seat_votes``, ``still_window_s``); the tracker keeps it current.
        profile: the calibrated profile (table mm), or None (image px).
        image_size: ``(width, height)`` px of the frames, or None until known; the tracker keeps it current.
        order: the playing seats, in turn order (the tracker's judge's; a new hand may change them).

    Attributes:
        rows: uncalibrated: each border's row of face-down tiles (seat -> :func:`vision.hand_rows.hand_rows`'s
            row: px from the border, tiles, px span), those of the fullest hands seen.
        row_tile_px: a face-down tile's length in the rows' read (px).
        down_last: uncalibrated: the face-down tiles the last read showed in each border's hand area (seat ->
            tiles; the detector's sure ones, :meth:`sure`), rows or not: a hand down to one tile is still there.
        hands_last, hands_before: a folder's photos: face-down tiles in each playing seat's hand area after
            the last read and the one before (None: not yet this hand).
        arm_in_last: the last photo read showed an arm over the table (:meth:`arm_in_last_photo`).
        glared, glared_last: a folder's photos: seats whose hand area held tiles hidden by clipped white,
            this read and the last.
        faded_votes: a folder's photo: seat -> votes from a hand's box that faded (:meth:`_vote_faded`), for the
            tracker to add when the photo drew no tile and nothing else voted; empty when none.
    """

    def __init__(self, config, profile, image_size: tuple[int, int] | None,  # noqa: ANN001
                 order: Callable[[], Iterable[str]]):
        self.config = config
        self.profile = profile
        self.image_size = image_size
        self._order = order
        self.rows: dict[str, tuple[float, int, float, float]] = {}
        self.row_tile_px = 0.0
        self.down_last: dict[str, int] = {}
        self.hands_last: dict[str, int] | None = None
        self.hands_before: dict[str, int] | None = None
        self.arm_in_last = False
        self.glared: set[str] = set()
        self.glared_last: set[str] = set()
        self.faded_votes: dict[str, float] = {}
        self._sure_ids: set[int] = set()  # the face-down tiles the detector was sure of at the last photo
        # the counts this photo's votes compared (before, now, seats under glare, since the photo before an arm's)
        self._span: tuple[dict[str, int] | None, dict[str, int], set[str], bool] | None = None

    def new_hand(self) -> None:
        """A new hand: a folder's counts start afresh (the rows and the arm's photo are the table's)."""
        self.hands_last = self.hands_before = None
        self.glared, self.glared_last = set(), set()
        self.faded_votes, self._sure_ids = {}, set()

    @property
    def photos(self) -> bool:
        """Reading a folder of photos (every read a stable state: ``still_window_s`` <= 0), not footage."""
        return self.config.still_window_s <= 0

    @property
    def band_scale(self) -> float:
        """How deep the uncalibrated hand areas reach, in multiples of the video's band: a folder's photos
        show hands further in, face down and shown alike (helper-85; helper-123: shown tiles 72-79 px from
        the border of 720 px photos "touched no open end", and the locked hands were never scored)."""
        return PHOTO_HAND_SCALE if self.photos else 1.0

    # ---- where the hand areas lie ----------------------------------------------------------------
    def in_zone(self, g: TileGeom, uncalibrated_scale: float = 1.0) -> bool:
        """Whether a tile at ``g`` lies in a seat's hand area (``hand_zone_mm`` / ``hand_zone_frac``;
        without calibration the image-border band is ``uncalibrated_scale`` times as deep)."""
        cfg = self.config
        if self.profile is not None and self.profile.table_size_mm is not None:
            return hand_area_edge(g.center, self.profile.table_size_mm, cfg.hand_zone_mm) is not None
        if self.image_size is None:
            return False
        w, h = self.image_size
        band = uncalibrated_scale * cfg.hand_zone_frac * min(w, h)
        if self.rows and uncalibrated_scale > 1.0:  # a folder's hand counts and shown hands
            return in_row_area(g.center, self.row_tile_px, self.image_size, self.rows, band)
        if self.rows and not self.photos:
            # a video's hand rows, along the playing seats' borders only (a boneyard's row by another border
            # is no hand: a play beside it must stay a play). helper-159: N's row and the 3-3 it showed lay
            # 72 px in from the top of a 720 px frame, past the band: the reveal "touched no open end"
            order = self._order()
            rows = {seat: row for seat, row in self.rows.items() if seat in order}
            return in_row_area(g.center, self.row_tile_px, self.image_size, rows, band)
        x, y = g.center
        return min(x, y, w - x, h - y) < band

    def find_rows(self, tiles: Iterable, gone: list) -> None:
        """Uncalibrated photos and video: where each border's row of face-down tiles lies
        (:func:`vision.hand_rows.hand_rows`; ``tiles``: the tracked tiles, ``gone``: those this read no longer
        shows). A row found with as many tiles as the one kept, or more, replaces it: the rows are those of
        the fullest hands (the deal), not of a hand down to its last tiles beside a false box or two."""
        if self.profile is not None or self.image_size is None:
            return
        down = [tr for tr in tiles if tr.face == "down" and tr.status != "layout" and tr not in gone]
        self.down_last = self.counts(self.sure(down), self.band_scale, seats=_BORDERS)
        if len(down) < ROW_MIN_TILES:
            return
        self.row_tile_px = tile_length(np.array([tr.geom.length for tr in down]))
        for tr in down:  # each box measured against this read's tile: a track's size is its reads' majority
            long, reads = tr.long_reads
            tr.long_reads = (long + (tr.geom.length > OVERSIZE_TILES * self.row_tile_px), reads + 1)
        centers = np.array([tr.geom.center for tr in down], np.float64)
        for seat, row in hand_rows(centers, self.row_tile_px, self.image_size).items():
            if row[1] >= self.rows.get(seat, (0.0, 0, 0.0, 0.0))[1]:
                self.rows[seat] = row

    def off_seats(self, hand_size: int) -> list[str]:
        """Uncalibrated photos: the image borders (seat names, ``N`` the top) where the rule set seats no one
        and which hold face-down tiles, when more such borders hold them than playing seats' borders do: the
        photos are turned (a phone held upright over a two-seat table put the hands at the left and right;
        helper-126: 13 of 16 seats wrong, nothing said). Empty when they are not.

        A border holds what its row held at the fullest (:attr:`rows`) or what the last read showed in its
        hand area (:attr:`down_last`), whichever is more: a hand played down to one tile has no row but
        still lies there (helper-209: one photo late in the demo's hand, N and S down to one tile each, the
        boneyard's 12 by the left edge, was said to look turned). A border holding more than ``hand_size``
        tiles, more than a hand is dealt, is the boneyard (14 at a two-seat table) or a hand that drew:
        no sign either way (helper-204: one photo mid-hand, N and S down to 4 tiles and the boneyard's
        14 by the left edge). A turned photo puts the hands, however short, by the unseated borders and
        the boneyard by a seated one or neither (the demo's frames turned a quarter, 240 to 680: warned)."""
        order = self._order()
        held = {seat: max(self.rows.get(seat, (0.0, 0))[1], self.down_last.get(seat, 0)) for seat in _BORDERS}
        hands = [seat for seat, n in held.items() if 0 < n <= hand_size]
        off = sorted(seat for seat in hands if seat not in order)
        return off if len(off) > len(hands) - len(off) else []

    # ---- what lies in them -----------------------------------------------------------------------
    def sure(self, tiles: list) -> list:
        """``tiles`` less the face-down ones whose latest read the detector scored under
        ``TrackerConfig.hand_vote_min_score`` (false boxes on the cloth come and go between photos)."""
        floor = self.config.hand_vote_min_score
        return [tr for tr in tiles if tr.face != "down" or tr.seen_score >= floor]

    def tile_sized(self, tiles: list) -> list:
        """``tiles`` less the face-down boxes longer than :data:`OVERSIZE_TILES` tile lengths (a tile: the
        profile's, table mm, with a calibration; without one :attr:`row_tile_px` of each read the rows were looked
        for in, a box too long when most of those reads measured it so, ``long_reads``; none known yet: ``tiles``
        as they are). Such a box is
        table texture the detector took for a tile back, which the verifier and the back colour check let
        through where the table has the backs' hue (``docs/tracking.md``, the boneyard)."""
        if self.profile is not None and self.profile.table_size_mm is not None:
            length = self.profile.tile_size_mm.length
            return [tr for tr in tiles if tr.face != "down" or tr.geom.length <= OVERSIZE_TILES * length]
        if self.profile is None and self.row_tile_px > 0:
            # without a calibration, a box is as long as most of its reads measured it (:attr:`row_tile_px` of
            # each): a hand-held photo's veined-wood band measures 1.05-1.19 tile lengths now and then, between
            # reads at 1.2-1.45, and was counted in the boneyard in those (draw seed 1003: 15 for 14 at S's plays)
            return [tr for tr in tiles if tr.face != "down" or 2 * tr.long_reads[0] <= tr.long_reads[1]]
        return list(tiles)

    def counts(self, tiles: Iterable, scale: float = PHOTO_HAND_SCALE,
               at: dict[int, TileGeom] | None = None, seats: Iterable[str] | None = None) -> dict[str, int]:
        """Face-down tiles of ``tiles`` (:class:`~vision.tracking.TrackedTile`) in each playing seat's hand area
        (``scale``: a folder's photos use the wider areas); those by an edge no one plays from are the
        boneyard's (``Tracker._step_boneyard``). ``at``: tile id -> the geometry to place it by, instead of its
        own (where a photo showed it); ``seats``: the hand areas counted (None: the playing seats')."""
        counts: dict[str, int] = {}
        order = list(self._order()) if seats is None else list(seats)
        for tr in tiles:
            g = at.get(tr.id, tr.geom) if at is not None else tr.geom
            if tr.face == "down" and tr.status != "layout" and self.in_zone(g, scale):
                seat = seat_of_position(g.center, self.profile, self.image_size)
                if seat in order:
                    counts[seat] = counts.get(seat, 0) + 1
        return counts

    # ---- a folder of photos ----------------------------------------------------------------------
    def arm_in_last_photo(self) -> None:
        """The last photo read showed an arm over the table (a folder of photos: known one photo late,
        :class:`vision.photo_arms.PhotoArms`). The mover's tile was in the hand, not in the hand area nor
        on the table: the next read's seat votes count the hand areas' losses since the photo before
        that one (helper-113: S's 5-3 went to N, whose hand lost the next play's tile at the photo that
        showed 5-3 laid; with both losses no seat stands out and the turn decides)."""
        self.arm_in_last = True

    def hidden(self, in_hands: dict[str, int]) -> None:
        """This read's clipped white hid face-down tiles of the hand areas ``in_hands`` (seat -> tiles): a
        folder's photos doubt those hands' counts, in this photo and the next (:meth:`roll_glare`)."""
        if self.photos:
            self.glared = set(in_hands)

    def roll_glare(self) -> None:
        """A read is done with its glare (after the boneyard's count, before the plays): it becomes the last's."""
        self.glared_last, self.glared = self.glared, set()

    def photo_votes(self, tiles: Iterable, gone: list, new_tiles: list, seen_at: dict[int, TileGeom],
                    first: bool) -> tuple[dict[str, int], dict[str, float]]:
        """A folder's photo (no arm is ever seen, the hand a tile left tells the seat): this photo's hand
        counts and the seat votes to add (seat -> votes). ``tiles``: the tracked tiles, ``gone`` / ``new_tiles``:
        those this read lost / found, ``seen_at``: tile id -> where the last photo showed it, ``first``: the
        first read. Give the counts to :meth:`photo_read` once the read's lost tiles are dealt with. Sets
        :attr:`faded_votes`, the votes to add when this photo drew no tile (:meth:`_vote_faded`)."""
        tiles = list(tiles)
        # the detector's sure boxes only, as for the votes: a box of the table in a gap of a hand's row is no tile
        # drawn (draw seed 1003, veined wood: N's row gap boxed at 0.57 as N drew 2 and played, 3 gained)
        hands = self.counts(self.sure([tr for tr in tiles if tr not in gone]))
        # a hand under glare in this photo or the last: its count is in doubt, and a tile it lost unseen
        # under the glare shows as lost only now, a play of the last photo's, not of this one's
        glared = self.glared | self.glared_last
        self.faded_votes = {}
        if first:
            votes = self._vote_shortest_hand(new_tiles)
            self._span = None
        elif self.arm_in_last and self.hands_before is not None:  # since the photo before the arm's
            votes = self._vote_hand_losses(self.hands_before, hands, glared)
            self._span = (self.hands_before, hands, glared, True)
        else:
            lost, came = self.counts(self.sure(gone), at=seen_at), self.counts(self.sure(new_tiles))
            votes = self._vote_hand_losses(lost, came, glared)
            if all(lost.get(seat, 0) == came.get(seat, 0) for seat in set(lost) | set(came)):
                self.faded_votes = self._vote_faded(tiles, gone, hands, glared)
            self._span = (self.hands_last, hands, glared, False)
        self.arm_in_last = False
        self._sure_ids = {tr.id for tr in self.sure(tiles) if tr.face == "down" and tr not in gone}
        return hands, votes

    def drew_and_played(self, seat: str, drew: int, laid_last: int) -> bool:
        """A folder's photo (after :meth:`photo_votes`): whether ``seat``, which drew ``drew`` tiles from the
        boneyard at this photo, also played: a hand's count change is draws - plays, so a drawer that played
        shows no loss and gives no vote, and another seat's loss in the same photo took its play (helper-223,
        the demo's photos with one out of order: S drew and laid 6-0, N laid 0-0, and N's loss gave N the
        6-0). The change is counted over the span this photo's votes counted (since the last photo, or since
        the one before a photo with an arm); ``laid_last``: ``seat``'s plays recorded at the last photo, which
        a span from the photo before it holds too. False when a count is missing or the hand lay under glare."""
        if self._span is None:
            return False
        since, now, glared, arm = self._span
        if since is None or seat not in since or seat not in now or seat in glared:
            return False
        return drew - (now[seat] - since[seat]) - (laid_last if arm else 0) >= 1

    def photo_read(self, hands: dict[str, int]) -> None:
        """A folder's photo is read (after its lost tiles: a hand cleared there starts the counts afresh from
        this photo): ``hands`` (:meth:`photo_votes`) are the last counts now."""
        self.hands_before, self.hands_last = self.hands_last, hands

    def last_photo_gained(self, seat: str) -> bool:
        """A folder's photos: whether the last photo read showed more face-down tiles in ``seat``'s hand area
        than the photo before it (:attr:`hands_last`, :attr:`hands_before`); False when either count is
        missing or that hand lay under glare in the last photo (its count is in doubt)."""
        before, last = self.hands_before, self.hands_last
        return (before is not None and last is not None and seat in before and seat in last
                and seat not in self.glared_last and last[seat] > before[seat])

    def drawn(self, plays: int, turn: str | None, own: int | None = None) -> tuple[int, int]:
        """A folder's photos: tiles the hands gained from the boneyard since the last photo, as the hand
        areas' face-down tiles show it (:attr:`hands_last` and :attr:`hands_before`): each play takes one from
        a hand, each draw adds one, so gained = the change + ``plays`` (this photo's new face-up tiles laid
        outside the hands). Two counts: all hands', and the drawer's (``turn``, the seat to play) alone with
        ``own`` of this photo's plays its own (None: at most one; 0 when the seat to play drew after another
        seat's play, :meth:`drew_after_play`) (``Tracker._drawn_into_hands``)."""
        if self.hands_before is None or self.hands_last is None:
            return 0, 0
        total = max(0, sum(self.hands_last.values()) - sum(self.hands_before.values()) + plays)
        gain = self._gain(turn, min(plays, 1) if own is None else own)
        return total, 0 if gain is None else max(0, gain)  # a count in doubt: no gain seen

    def drew_after_play(self, turn: str | None, after: str | None, plays: int) -> bool:
        """A folder's photo showing one play (``plays``: its new face-up tiles laid outside the hands): whether
        the seat after ``turn`` (``after``) drew once ``turn`` had played. ``turn``'s gain with that play its own
        is none (its count fell by the tile laid) while ``after``'s hand area holds more face-down tiles than in
        the last photo, with no play of its own (:meth:`drawn`'s count; helper-237, the review's photos with the
        one after N's 3-1 missing: the next showed the 3-1 and S's draw, recorded N's, then N's correct domino
        was flagged ``domino_with_tiles_left``). False when a count is missing or lay under glare."""
        if plays != 1 or turn is None or after is None or after == turn:
            return False
        own, gained = self._gain(turn, 1), self._gain(after, 0)
        return own == 0 and gained is not None and gained >= 1

    def _gain(self, seat: str | None, plays: int) -> int | None:
        """Tiles ``seat`` gained from the boneyard since the last photo: its face-down count's change plus
        ``plays``, its plays in this photo (a hand's change is draws - plays). None when either count is
        missing, or the hand lay under glare in this photo or the last (its count is in doubt)."""
        if (self.hands_before is None or self.hands_last is None or seat not in self.hands_before
                or seat not in self.hands_last or seat in self.glared | self.glared_last):
            return None
        return self.hands_last[seat] - self.hands_before[seat] + plays

    def _vote_shortest_hand(self, tiles: list) -> dict[str, float]:
        """Seat votes from a folder's first photo, which may show the lead laid already (helper-110: the
        README's one photo per move has no photo of the dealt table, and the lead went to the seat the
        turn order names, then the right second play was out of turn): the one seat whose hand area
        holds the fewest face-down tiles, one fewer than the next fewest, laid it (``min_seat_votes``;
        more in a hand area is no objection: a corner tile of the next hand, a false box, as nova-block
        at 1280x720 showed 6, 7, 7 and 9). A tie, or a gap of two or more (a tile missed), decides nothing."""
        counts = self.counts(tiles)
        order = self._order()
        if any(seat not in counts for seat in order):
            return {}  # a hand out of view: the turn decides
        ranked = sorted(order, key=lambda s: counts[s])
        if counts[ranked[1]] == counts[ranked[0]] + 1:
            return {ranked[0]: self.config.min_seat_votes}
        return {}

    def _vote_faded(self, tiles: list, gone: list, hands: dict[str, int], glared: set[str]) -> dict[str, float]:
        """Seat votes from a folder's photo where no hand lost or gained a tile the detector was sure of (each
        seat's gone and new boxes as many): the one seat whose hand holds a box sure at the last photo and
        unsure now (``hand_vote_min_score``), its count of sure boxes fallen (``hands``: this photo's counts),
        and no other seat's fallen. The player's tile left a gap in its row, and the table there boxed weakly
        was matched to the tile's track, so no tile of the hand was gone (hand-held bdc-partnership: S's count
        7 -> 6 as S laid 3-4, its track 0.94 -> 0.46; the turn decided, flagged). Boxes near the floor fade
        in other seats' hands as often as in the player's, so a fade is no vote beside a loss or a gain: only
        where nothing else tells, and only when the photo drew no tile (``Tracker._commit``: a drawer that
        played shows no loss)."""
        if self.hands_last is None:
            return {}
        floor = self.config.hand_vote_min_score
        faded = self.counts([tr for tr in tiles if tr.face == "down" and tr not in gone
                             and tr.id in self._sure_ids and tr.seen_score < floor])
        fell = [seat for seat in set(self.hands_last) | set(hands)
                if hands.get(seat, 0) < self.hands_last.get(seat, 0) and seat not in glared]
        if len(fell) == 1 and faded.get(fell[0], 0) >= 1 and set(faded) <= set(fell):
            return {fell[0]: self.config.min_seat_votes}
        return {}

    def _vote_hand_losses(self, lost: dict[str, int], drawn: dict[str, int],
                          glared: set[str] = frozenset()) -> dict[str, float]:
        """Seat votes from the face-down tiles in the hand areas (a folder of photos: no arm to see).

        A play takes a tile from its player's hand: the one seat whose hand area has fewer face-down
        tiles than in the last read gets ``min_seat_votes`` per tile (enough to decide); none or
        several such seats (a tile the detector missed once, a sweep) give nothing, and the turn
        decides as before. Tiles drawn into a hand count against the losses.

        Args:
            lost, drawn: face-down tiles per seat that left / came into its hand area
                (:meth:`counts` of the tiles gone and new; or the counts before and now).
            glared: seats whose hand area clipped white hid tiles in this photo or the last: no vote
                (a glare over S's hand as S played hid the loss, shown at the next photo, where it gave
                N's play to S; the turn decides instead).
        """
        net = {seat: lost.get(seat, 0) - drawn.get(seat, 0) for seat in set(lost) | set(drawn) if seat not in glared}
        losers = [s for s, n in net.items() if n > 0]
        if len(losers) == 1:
            return {losers[0]: self.config.min_seat_votes * net[losers[0]]}
        return {}
