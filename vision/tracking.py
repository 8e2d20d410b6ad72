"""Tracking: stable board states from successive recognitions, and the plays between them.

:class:`Tracker` is pure logic: it consumes ``(frame_index, t, observations, motion)``
for every frame (``observations`` is None for frames that were not read) and emits

* engine events: :class:`engine.events.Play` (``oriented=True``, ``t``, ``frame``,
  ``confidence``; ``seat_by_turn`` when no arm or hand row showed who laid it and the turn order
  gave its seat), :class:`engine.events.TakeBack`, and at the end of a hand
  :class:`engine.events.Reveal` (and, in draw games, an inferred :class:`engine.events.HandEnd`);
* :class:`engine.events.Pass` for the seats a confidently seen play skipped (block games, and
  draw games once the boneyard is seen drawn out: a pass is then the only way a turn goes by),
  each with a ``pass_inferred`` notice;
* :class:`engine.events.Draw` in draw games, from the count of face-down tiles apart from the
  hands (:mod:`vision.boneyard`);
* :class:`vision.placements.Notice` records (``uncertain_read``, ``bump``, ``moved``,
  ``reread``, ``tile_missing``, ``unplaced_tile``, ``rejected``, ``hand_cleared``,
  ``pass_inferred``, ``boneyard_uncounted``, ...).

A read is *committed* as a new :class:`BoardState` when the scene is still: the motion
gate says so (``motion.read``, or still for ``still_window_s``), or, without motion
information, when the same tiles have been seen for ``still_window_s`` seconds. The new
state is matched to the previous one tile by tile; the difference is what happened:

* a tile seen again within ``bump_max`` tile lengths keeps its id; if it moved more than
  ``jitter`` it was bumped (a notice, never a play);
* a new face-up tile that touches an open end (:mod:`vision.layout_from_tiles`) is a
  play; several at once (a missed state) are laid in the order the layout's adjacency
  allows and all flagged uncertain;
* the last tile of an arm that is gone for ``takeback_reads`` reads (or whose place is
  taken by another tile) was taken back; other missing tiles are only noticed;
* face-down tiles and tiles in the players' hand areas (within ``hand_zone_mm`` of a
  table edge, or ``hand_zone_frac`` of the image, and touching no open end) are never plays;
  after a domino or a lock the face-up tiles in the hand areas are the seats' reveals
  (:mod:`vision.reveals`), counted for the score; any other new face-up tile then is an
  ``after_hand_end`` notice (the hand went on at the table: a rule set that does not fit).

The seat of a play comes from the edge the arm entered by during the occlusion before
it (:func:`vision.placements.attribute_seat`), with the turn order as a prior. When that
seat is clearly not the one whose turn it was, the seats in between passed: in rule sets
without a boneyard (or with one seen drawn out) the tracker emits their ``Pass`` before the
play (timed at the seat's last arm visit since the previous play, a knock, when one was seen). When the seats
whose turns keep going by (as passes, or plays out of turn) never showed an arm at all while others
play, the footage holds fewer seats than the rule set: one ``seats_unseen`` notice, and no more
passes are invented for them (:meth:`vision.pass_inference.SeatTurns.check_seats`). Arms that clearly laid tiles from more
seats than the rule set has, or that keep going the other way round the table, like a deal, draws or a
lock it does not allow, make a ``rules_misfit`` notice (:mod:`vision.rules_fit`).

The tracker keeps its own engine :class:`~engine.hand.Hand` (``tracker.hand``) with every
event it emitted, to know the open ends, spinners and whose turn it is. Events that do
not come from the camera (passes, deals, corrections) go in through :meth:`Tracker.record`.
Units: table mm with a calibrated profile, image px without; seconds for times.

:class:`Tracker` follows the board and turns its differences into events; it composes collaborators
with one job each:

* :class:`vision.pass_inference.SeatTurns` (``tracker.turns``): the arms seen, the seats a play skipped,
  their ``Pass`` events and ``pass_inferred`` notices, and the ``seats_unseen`` check;
* :class:`vision.hand_end.HandEndWatch` (``tracker.hand_end``, one per hand): how the hand ended
  (``tracker.ended``), the ``after_hand_end`` tiles, and their reads taken again once the end is voided;
* :class:`vision.record_sync.RecordSync` (``tracker.record_sync``): :meth:`Tracker.resume` and
  :meth:`Tracker.sync`, the recorded plays still looked for on the table
  (:class:`vision.record_binding.RecordBinder`) and the voided plays' tiles;
* :class:`vision.hand_areas.HandAreas` (``tracker.hand_areas``): where the hand areas lie (the uncalibrated
  hands' rows, :meth:`Tracker.hands_off_seats`), the face-down tiles in each, and a folder of photos' seat
  votes and draws from them (:meth:`Tracker.arm_in_last_photo`); the votes themselves stay the tracker's;
* :class:`vision.boneyard.BoneyardCounter`, :class:`vision.reveals.RevealWatcher` and
  :class:`vision.rules_fit.RulesFitWatch`: the draws, the hands shown, and whether the rule set fits.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import numpy as np
import shapely

from calibration.seats import HAND_ZONE_MM
from engine.events import Correction, Deal, Draw, HandEnd, Play, Reveal, TakeBack, effective
from engine.hand import Hand, HandContext, IllegalEvent, replay
from engine.ruleset import Ruleset
from engine.seats import SEATS, next_seat
from engine.tiles import Tile, full_set
from vision.boneyard import BoneyardCounter
from vision.crops import lab_distance
from vision.exposure import hidden_by_glare, read_in_glare
from vision.camera_follow import (MIN_PAIRS, camera_move, moved_geom, moved_points, one_tile_move, shift_at,
                                  tile_move, turn_deg)
from vision.hand_areas import HandAreas
from vision.layout_from_tiles import EndFit, LineOfPlay, TileGeom, lead_order, spinner_arms_opened
from vision.motion import MotionGate, MotionInfo
from vision.obb import changed_share
from vision.observation import touches_frame
from vision.placements import Notice, SeatChoice, attribute_seat, seat_of_entry
from vision.hand_end import HandEndWatch, late_draws
from vision.pass_inference import SeatTurns
from vision.record_binding import RecordedPlay
from vision.record_sync import RecordSync
from vision.reveals import SHOWN_PICTURE_MAX_SCORE, RevealWatcher, seat_of_position
from vision.rules_fit import RulesFitWatch
from vision.tile_turn import registered_turn_deg, still_share

__all__ = ["Tracker", "TrackerConfig", "TrackedTile", "BoardState", "PlayRecord", "track_frames"]

#: Share of the line's tiles gone (over consecutive reads) that is a cleared table: a new hand.
CLEARED_SHARE = 0.8
#: Share gone (and at least 3 tiles) that is a table being swept: no take-backs meanwhile.
SWEEPING_SHARE = 0.5
#: Plays made while a face-up tile lay touching no open end that make it part of the table (``Tracker._fixture``).
FIXTURE_PLAYS = 3
#: Such a tile read again this close to where it lay (tile lengths; a box wanders a few px between reads)
#: with its pips is the same one.
FIXTURE_SPOT_TILES = 0.3
#: A new face-up tile touching no open end whose centre lies this close to a picture's (tile lengths: a tile
#: end to end with it is 1 away, side by side 0.5) is another of a game board's printed dominoes.
PICTURE_TRACK_TILES = 1.25
#: A picture of a tile seen again at its place (within ``reread_radius``) with its box turned or shifted past
#: the noise, or read with other pips, is that picture read again, not a tile a hand moved, when under this
#: share of its box, before and after, the table changed or an arm reached since the last read
#: (:meth:`vision.motion.MotionInfo.touched_mask`): a hand that moves a tile covers it. jersey-partnership
#: seed 5 on a game board: a printed 0|5 read again as 3-0, 2.5 mm off and turned 5.5 degrees, as W's 2-4 was
#: laid over its 5 end: 0.13 of it touched; where a tile was laid or taken, 1.0.
PICTURE_TOUCHED_SHARE = 0.5
#: ... or when at least this share of the textured pixels round its old box (pips, edges, print) show the same
#: grey in the new frame as in the crop kept from when it was boxed there (:func:`vision.tile_turn.still_share`):
#: a printed tile does not move, whatever arm passed over it. nova-block and lisa-b-all-fives seed 5 on a game
#: board: the printed 0|5, read again 2.5 mm off and turned 5-6 degrees after the arm laying a real tile crossed
#: it (all of its box touched): 0.80-0.81 still, the new tile over a little of it; the printed 6-6 read as 6-1
#: under the lead's arm: 1.0. The same pictures compared 2.5 mm apart: 0.19-0.36.
PICTURE_STILL_SHARE = 0.6
#: Under this share of a tile's box changed since the last read (:meth:`vision.motion.MotionInfo.changed_mask`,
#: arms left out) means no tile was laid there or taken from there since: a tile laid or taken changes all of its
#: box (1.0 where each real tile was laid in the footages below). helper-261, lisa-b-all-fives and nova-block seed
#: 5 on a game board: a printed 6-1 first boxed (0.78) at 10.2 s, once N's 4-0 lay end to end with the track it
#: is printed in, 0.13 and 0.0 changed; the printed 4-2 beside it, 0.2.
UNCHANGED_SHARE = 0.5
#: Photos from a hand-held camera: once the tracked tiles are moved with the camera
#: (``Tracker._follow_camera``, a shift, turn and scale), a tile off by at most this many tile lengths
#: is where the camera's tilt put it, not bumped (bench folders, corners shifted ~15 px:
#: residuals of 2.5-9 px, up to 21 px at the frame's edge, with 52 px tiles).
CAMERA_RESIDUAL_TILES = 0.25
#: ... and a move taken from one laid tile must bring this share of the other tracked tiles (the hands')
#: to within that of a tile of their face in the photo (:func:`vision.camera_follow.one_tile_move`).
FOLLOW_SHARE = 0.5
#: A face-down box within this many tile lengths (of the tile it lies by) of the line of play, first seen no
#: earlier than that tile, is no boneyard tile: the detector boxes the table beside a laid tile now and then,
#: once the tile is there. all-fives seed 11, test look (marble): boxes 0.00 and 0.10 tile lengths from a
#: crosswise double and a tile just laid hid 2 draws; in 14 generated draw-game footages no boneyard tile came
#: nearer than 0.36 to a face-up tile outside the hand areas (uncalibrated; 1.09 calibrated). A boneyard tile
#: seen before the tile laid against it stays counted (helper-219: one 5 mm from the lead was left out, and
#: its loss recorded as a draw by S).
LINE_GAP_TILES = 0.2
#: At the first read, with every tile of the set seen face down (the dealt table), a face-up tile boxed under this
#: is a picture (a board's printed domino: 0.2-0.6); a real tile just laid is boxed 0.9-0.95 (the photo bench's
#: first photos), and a false face-down box on marble (0.55-0.85) can make a table with a lead look dealt. The
#: reveals' picture rule uses the same bound (:data:`vision.reveals.SHOWN_PICTURE_MAX_SCORE`).
DEALT_PICTURE_MAX_SCORE = SHOWN_PICTURE_MAX_SCORE


@dataclass(frozen=True)
class TrackerConfig:
    """Thresholds (lengths are fractions of the tile's long side, so they hold in mm and px).

    Attributes:
        still_window_s: seconds the same tiles must be seen before a read is committed
            when no motion information is given (with a gate, the gate's window rules).
        jitter: moves below this are noise (0.05 x 48 mm = 2.4 mm).
        bump_max: a tile seen again within this distance is the same tile; beyond
            ``jitter`` it was bumped (0.5 x 48 mm = 24 mm).
        angle_jitter_deg: rotations below this are noise.
        reread_radius: a tile at the same place (within this) with other pips is the same
            tile read differently ...
        swap_confidence: ... unless both readings are at least this confident: then it is
            another tile (the first was taken back and this one played in its place).
        hand_zone_mm: tiles closer than this to a table edge are in a hand area (calibrated;
            ``calibration.seats.hand_area_edge``).
        hand_zone_frac: ... closer than this fraction of the image's short side to its
            border (uncalibrated).
        takeback_reads: consecutive reads the last tile of an arm must be missing for a take-back.
        uncertain_confidence: plays below this confidence get an ``uncertain_read`` notice.
        seat_prior: weight of the turn order against the entry votes (vote shares).
        min_seat_votes: entry frames needed to trust the entry side.
        infer_passes: when a play's arm clearly comes from a seat other than the one whose turn it
            is, emit ``Pass`` events for the seats it skipped (rule sets without a boneyard, or
            draw games once the camera saw the boneyard drawn out).
        visit_gap_s: an arm of the same seat seen again within this is the same visit (knock timing).
        unseen_seat_turns: the footage shows fewer seats than the rule set needs when every seat that
            never showed an arm had this many turns go by (as inferred passes, or as plays out of turn
            where the boneyard is not followed), while at least two
            other seats each played twice by their arm (a ``seats_unseen`` notice, once; see
            ``docs/tracking.md``); 0 turns the check off.
        setup_min_score: a face-up tile already there at the tracker's first read (the table as
            set up, before any arm) with a detector score under this is part of the scene, never
            a play, until it is moved: a domino printed on a game board scores 0.2-0.35 and the pip
            reader vouches for it, and as the only face-up tile it became the lead. None: off (a
            folder of photos, whose first may show the lead just laid).
        set_colour_max_de: new face-up tiles read together, one of them the colour of the line of
            play's tiles and another further than this from it (CIE76 colour difference of the faces'
            body colour, :func:`vision.crops.lab_distance`), make the unlike one a picture (a game
            board's printed track an arm had covered), not a play: a set's tiles share one body
            colour. Real tiles of rendered footage differ from their line by at most 7-59 per hand (64
            for one an arm half covered); printed ivory tiles beside black ones by 87-89. None: off.
        reveal_settle_s: seconds the hands shown at the end of a draw game's hand must stay the
            same before the end is inferred from them (:class:`~vision.reveals.RevealWatcher`): the
            seats turn their tiles up one after another, and the last player's own, shown last,
            make it a lock instead of a domino. The footage's end settles at once
            (:meth:`Tracker.finish`). Rendered footage turns one hand up every 1.75-2.1 s (16 gaps
            between reveals in 11 generated hands).
        hand_vote_min_score: a folder's photos: face-down boxes the detector scored under this are left
            out of the hand areas' losses and gains that vote for a play's seat (a box read in one photo
            and not the next is no tile leaving a hand). Hand-held photos box the cloth in a hand row's
            gaps, or beside it, at 0.37-0.81 now and then (the same tile backs matched in the fixed
            camera's photos: a median of 0.93-0.95); 0 counts every box.
    """

    still_window_s: float = 0.5
    jitter: float = 0.05
    bump_max: float = 0.5
    angle_jitter_deg: float = 8.0
    reread_radius: float = 0.15
    hand_zone_mm: float = HAND_ZONE_MM
    hand_zone_frac: float = 0.1
    takeback_reads: int = 2
    swap_confidence: float = 0.8
    uncertain_confidence: float = 0.5
    seat_prior: float = 0.25
    min_seat_votes: float = 2.0
    infer_passes: bool = True
    visit_gap_s: float = 0.5
    unseen_seat_turns: int = 2
    setup_min_score: float | None = 0.35
    set_colour_max_de: float | None = 70.0
    reveal_settle_s: float = 3.0
    hand_vote_min_score: float = 0.75
    reread_fix_reads: int = 0


@dataclass
class PlayRecord:
    """One play the tracker emitted (still on the table)."""

    seat: str
    tile: Tile  # oriented [touching | other] (the lead: [W | E])
    end: str  # "lead" for the first tile
    tile_id: int
    t: float
    frame: int


@dataclass
class TrackedTile:
    """A tile with a stable id across reads.

    Attributes:
        id: stable id (never reused within a tracker).
        face: ``"up"`` or ``"down"``.
        pips: ``(a, b)`` in polygon order, None when face down.
        geom: geometry in working units (table mm when calibrated, image px otherwise).
        polygon_px: (4, 2) float32 image corners of the last accepted pose.
        confidence: reading confidence in [0, 1].
        status: ``layout`` (played), ``loose`` (face down / not evaluated), ``hand`` (in a
            hand area) or ``unplaced`` (face up, outside hand areas, touching no end).
        play: the :class:`PlayRecord` when ``status == "layout"``.
        missing: consecutive committed reads in which it was not seen.
    """

    id: int
    face: str
    pips: tuple[int, int] | None
    geom: TileGeom
    polygon_px: np.ndarray
    confidence: float
    status: str = "loose"
    play: PlayRecord | None = None
    missing: int = 0
    #: ``(frame, t)`` of the first read of the present run of ``missing`` reads (None: seen at the last read)
    missing_at: tuple[int, float] | None = None
    noted: tuple[int, int] | None = None  # the last other reading a ``reread`` notice reported
    #: (``layout``) the other tile read clearly at the latest reads, and how many reads in a row (``_reread_fix``)
    reread_run: tuple[tuple[int, int], int] | None = None
    scenery: bool = False  # part of the table as set up (``TrackerConfig.setup_min_score``): no play
    #: scenery for looking like a picture (a weak box at the setup, a board's printed track, unlike the set's
    #: colour), not for being an earlier hand's tile left on the table
    picture: bool = False
    #: (``unplaced``) the hand's play count when it was first found touching no open end
    unplaced_at: int | None = None
    #: the last match's layout when another match began (``Tracker.start_over``): never a play, even
    #: moved (the layout is swept off tile by tile), until it is gone
    old: bool = False
    #: body colour of the face when first seen (:attr:`vision.observation.TileObservation.face_lab`)
    face_lab: tuple[float, float, float] | None = None
    #: (``unplaced``) the arm votes of the read that found it touching no open end (or laid it after the hand
    #: ended): the seat that laid it, should it become a play later (laid against a play the umpire voided, once
    #: the void is undone; the end voided); (``layout``) those it was laid by
    votes: dict[str, float] | None = None
    #: the engine's refusal of its play (``Tracker._emit``), while it is not laid: tried again at each later read,
    #: as a new tile touching an open end is, and said again only when the refusal changes
    refused: str | None = None
    #: the confidence of its latest read (a face-down tile's: the detector's score)
    seen_score: float = 1.0
    #: the detector's score of the box it was first seen in (a board's printed domino: 0.2-0.35)
    det_score: float = 1.0
    #: someone moved it since it was first seen: a tile, never a picture
    moved: bool = False
    #: the frame index of the committed read that first saw it (:meth:`Tracker._beside_line`: a face-down tile seen
    #: before the laid tile next to it is a real tile, not the table the detector boxed beside that tile)
    first_frame: int = 0
    #: its latest read lay in or by clipped white (:func:`vision.exposure.read_in_glare`): not kept through a glare
    read_in_glare: bool = False
    #: the picture of the read ``geom`` is from (:attr:`vision.observation.TileObservation.patch`): a bump's turn
    #: is registered against it; None when not kept, or after the tiles were moved with the camera
    patch: object | None = field(default=None, repr=False, compare=False)
    #: uncalibrated, face down: reads that measured its box over ``OVERSIZE_TILES`` tile lengths, and reads that
    #: measured it (:meth:`vision.hand_areas.HandAreas.find_rows`); table texture when most did
    long_reads: tuple[int, int] = (0, 0)
    #: a box that raised the boneyard's count above its confirmed level (``Tracker._surplus``): not counted there
    no_tile: bool = False

    @property
    def key(self) -> tuple[int, int] | None:
        return None if self.pips is None else (max(self.pips), min(self.pips))


@dataclass(frozen=True)
class BoardState:
    """A committed (stable) state: time (s), frame index and the tracked tiles by id."""

    t: float
    frame: int
    tiles: dict[int, TrackedTile]


@dataclass
class _Obs:
    obs: object
    geom: TileGeom
    face: str
    pips: tuple[int, int] | None
    confidence: float

    @property
    def key(self) -> tuple[int, int] | None:
        return None if self.pips is None else (max(self.pips), min(self.pips))


class Tracker:
    """Observations -> engine events (see module docstring).

    Args:
        rules: the rule set (turn order, spinner rules).
        context: the hand's context (leader, required lead).
        profile: a table-calibrated :class:`~calibration.profile.TableProfile`, or None
            (image px; then ``image_size`` or the motion info's ``frame_size`` gives the
            image border for hand areas and seats).
        config: thresholds.
        image_size: ``(width, height)`` px of the frames (uncalibrated hand areas).
    """

    def __init__(self, rules: Ruleset, context: HandContext | None = None, profile=None,
                 config: TrackerConfig | None = None, image_size: tuple[int, int] | None = None):
        self.rules = rules
        # The camera sees neither the deal nor draws: the tracker's hand does not count tiles in
        # hands (nobody "runs out"), so only the board (open ends, spinners, locks) and the turn
        # order matter to it. Scoring is the caller's hand's job, under the real rules; the
        # tracker's ``judge`` hand (real rules, draws unseen) only decides when the hand is over
        # (a domino by count in block games, a lock) and how many tiles each seat must reveal.
        self._shadow_rules = rules.model_copy(update={"hand_size": len(full_set(rules.set_max)), "boneyard": False})
        self.profile = profile if profile is not None and getattr(profile, "homography", None) is not None else None
        self.config = config or TrackerConfig()
        #: the hand areas, their face-down tiles and a folder's seat votes from them
        self.hand_areas = HandAreas(self.config, self.profile, image_size, lambda: self.judge.state.order)
        self.tiles: dict[int, TrackedTile] = {}
        self.state: BoardState | None = None
        self._next_id = 1
        self._votes: dict[str, float] = {}
        self.camera_moves = 0  # photos between which the camera was seen to move (_follow_camera)
        self._arm_frames: set[int] = set()  # reads of photos with an arm over the table (arm_in_last_photo)
        # (key, centre, length) of face-up tiles that were part of the table, not of a hand, when a read lost
        # them (Tracker._fixture): read there again with those pips, they are that again, not a play
        self._fixture_spots: list[tuple[tuple[int, int], np.ndarray, float]] = []
        self._cand: tuple[float, list[_Obs]] | None = None
        self._cand_done = False
        #: the arms seen and the turns that went by: inferred passes, seats the footage lacks (whole footage)
        self.turns = SeatTurns(self.config, self.profile)
        self._old_layout_at_start = False  # (start_over before any read) the first read's tiles are old
        self._now = 0.0  # the latest frame's time, s
        #: what the record of the hand (resume, sync) leaves for the next reads
        self.record_sync = RecordSync()
        self._opened_at: int | None = None  # the read at which the tracker itself opened the hand (hand_cleared)
        self._clipped: np.ndarray | None = None  # this read's clipped white (update's ``clipped``)
        self._motion: MotionInfo | None = None  # the gate's look at this read's frame (update's ``motion``)
        #: laid tiles the last read did not see where its clipped white hides them (glare)
        self.hidden_tiles = 0
        #: face-down tiles of the hand areas the last read did not see where its clipped white hides them
        self.hidden_hand_tiles = 0
        self._read_frame: int | None = None  # the frame of the latest committed read
        #: what the footage shows of the rule set's deal and drawing (``rules_misfit`` notices, once each)
        self.fit = RulesFitWatch(rules)
        self.new_hand(context)

    # ---- public -------------------------------------------------------------------------
    def new_hand(self, context: HandContext | None = None) -> None:
        """Start a new hand: a fresh engine hand and line of play (tiles keep their ids).

        Called with the match's ``context`` right after the tracker's own ``hand_cleared``, when
        that read also saw the new hand's first plays (a folder of photos: no photo of the empty
        table), the plays stand: the hand is given the context instead of being started again
        (helper-84: hand 2's lead was wiped, and every later play touched no end).
        """
        if context is not None and self._opened_at is not None and self._opened_at == self._read_frame and self.plays:
            if self._recontext(context):
                return
        self._opened_at = None
        self.hand, self.judge = self.engine_hands(context)
        self.reveals = RevealWatcher(self.config.reveal_settle_s, photos=self.config.still_window_s <= 0)
        self.boneyard = BoneyardCounter(self.judge.state.boneyard) if self.rules.boneyard else None
        self.fit.new_hand()
        # a video's hands when the boneyard's count last changed, and each seat's plays then (_drawer)
        self._yard_mark: tuple[dict[str, int], Counter] | None = None
        self._yard_marked = False  # the mark is taken at the read after the count changed
        self._yard_hands: dict[str, int] | None = None  # the hands at the last read
        self._yard_ids: set[int] = set()  # the tiles the boneyard's count took at the last read (_undealt_view)
        self.hand_areas.new_hand()
        self.hand_end = HandEndWatch()  # the hand's end (:attr:`ended`) and the tiles laid after it
        self.turns.new_hand()
        self.lop = LineOfPlay()
        self.plays: list[PlayRecord] = []
        self.record_sync.new_hand()
        for tr in self.tiles.values():
            if tr.status == "layout":
                tr.status, tr.play = "loose", None

    def _recontext(self, context: HandContext) -> bool:
        """Replay this hand's events so far under ``context``; False (nothing changed) when they do not replay."""
        try:
            hand, judge = Hand(self._shadow_rules, context), Hand(self.rules, context)
            for ev in self.hand.log:
                hand.append(ev)
            for ev in self.judge.log:
                judge.append(ev)
        except IllegalEvent:
            return False
        self.hand, self.judge = hand, judge
        return True

    def engine_hands(self, context: HandContext | None) -> tuple[Hand, Hand]:
        """Fresh engine hands for ``context``: the tracker's own (board and turns only, every tile in hand)
        and the judge (the real rules; in draw games a deal with the draws unseen)."""
        hand, judge = Hand(self._shadow_rules, context), Hand(self.rules, context)
        if self.rules.boneyard:
            judge.append(Deal(hands={}, draws_seen=False))
        return hand, judge

    @property
    def config(self) -> TrackerConfig:
        """The tracker's settings; setting them reaches the collaborators that read them too."""
        return self._config

    @config.setter
    def config(self, value: TrackerConfig) -> None:
        self._config = value
        if getattr(self, "turns", None) is not None:  # not yet built during __init__
            self.turns.config = value
        if getattr(self, "hand_areas", None) is not None:
            self.hand_areas.config = value

    @property
    def image_size(self) -> tuple[int, int] | None:
        """``(width, height)`` px of the frames (uncalibrated hand areas and seats), or None until known;
        setting it reaches the hand areas (:attr:`vision.hand_areas.HandAreas.image_size`)."""
        return self.hand_areas.image_size

    @image_size.setter
    def image_size(self, value: tuple[int, int] | None) -> None:
        self.hand_areas.image_size = value

    @property
    def ended(self) -> dict | None:
        """When the judge ended the hand: ``{"kind", "winner", "t" (s), "text"}``; None while it goes on
        (:attr:`vision.hand_end.HandEndWatch.ended`)."""
        return self.hand_end.ended

    @ended.setter
    def ended(self, value: dict | None) -> None:
        self.hand_end.ended = value

    @property
    def unseen_seats(self) -> set[str]:
        """Seats named by the ``seats_unseen`` notice, until their arm shows
        (:attr:`vision.pass_inference.SeatTurns.unseen_seats`)."""
        return self.turns.unseen_seats

    @unseen_seats.setter
    def unseen_seats(self, value: set[str]) -> None:
        self.turns.unseen_seats = value

    def resume(self, log: list, context: HandContext | None = None) -> None:
        """Continue a hand already recorded (a live table whose worker restarted mid-hand).

        The hand's events (corrections applied, :func:`engine.events.effective`) go into the
        tracker's hands, so the turn order, the open ends and the reveals already counted are
        the record's; the tiles on the table are then bound to the recorded plays at the reads and
        emit nothing (:class:`vision.record_binding.RecordBinder`: misread tiles, the lead's end
        names, tiles never found, a table cleared meanwhile).

        Args:
            log: the hand's engine events in log order (corrections included).
            context: the hand's context (leader, required lead, number), as the match gives it.

        Raises:
            RuntimeError: called after the first committed read.
            engine.events.CorrectionError: a malformed correction in ``log``.
        """
        self.record_sync.resume(self, log, context)

    def sync(self, log: list) -> list:
        """Take in the record of the hand in play after someone else changed it while the camera
        runs: a pass or a penalty entered by the umpire, a play re-assigned, fixed, voided or entered
        by hand. The tracker's hands are rebuilt from the record (corrections applied), so the turn
        it attributes seats and infers passes by, and the open ends, are the record's.

        The tiles on the table stay bound to their plays: with as many plays in the record as the
        tracker laid, play by play in order (a fixed tile gets the record's pips in the line of
        play; the reader may go on misreading it); otherwise (a play voided or entered by hand, or
        two plays' tiles swapped) the recorded plays are bound again to the tiles that show them, as :meth:`resume` does, and a
        tile whose play was voided stays on the table as no play. After a change of the line (a
        play voided, restored or fixed), the next read looks again at the tiles that touched no
        open end: laid against a voided play, they are plays once it is restored (each by the arm
        that laid it, before that read's own: :meth:`_lay_held`). So are the tiles laid while an end
        stood that the record no longer holds (the umpire's End voided, a redeal penalty undone), and
        the draws seen then, read by read; a play of the camera's the record lacks while its hand is over
        (refused: the End was stored first) is one of them.

        Args:
            log: the hand's engine events in log order (corrections included), as recorded.

        Returns:
            notices (a recorded play not found on the table, ...), often none.

        Raises:
            engine.events.CorrectionError: a malformed correction in ``log``.
        """
        return self.record_sync.sync(self, log)

    def record(self, event: object) -> object | None:
        """Append an event that does not come from the camera (a pass, a correction, a penalty)
        to the tracker's hand, so that its turn order stays right. Returns the engine outcome;
        deals and draws are ignored (None): the tracker's hand does not count hands' tiles, and
        its judge counts the boneyard from the camera's own draws (:mod:`vision.boneyard`).

        Raises:
            IllegalEvent: the engine refused it.
        """
        if isinstance(event, (Deal, Draw)):
            return None
        return self._append(event)

    def _append(self, event: object) -> object:
        """Append to the tracker's hand (raises IllegalEvent) and keep the judge in step. A reveal goes
        to the judge only (raises IllegalEvent): the tracker's hand counts no tiles in hands, so it
        could not check one, and the board does not change. An end of the hand is the judge's to
        take (raises IllegalEvent); the tracker's hand follows if it can: counting every tile, it
        takes a draw game's blocked line for a lock no inferred domino may end (helper-89, draw seed
        11: S's blocking 5-5 was its last tile, and the hand waited for S's reveal for ever)."""
        was_over = self.judge.state.over
        if isinstance(event, (Reveal, HandEnd)):
            out = self.judge.append(event)
            if isinstance(event, HandEnd):
                try:
                    self.hand.append(event)
                except IllegalEvent:
                    pass
        else:
            out = self.hand.append(event)
            try:
                self.judge.append(event)
            except IllegalEvent:
                pass  # the judge only decides the end of the hand: a misread seat must not stop tracking
        self.hand_end.note(self.judge.state, was_over, event)
        return out

    def retarget_boneyard(self) -> None:
        """The record's plays changed (:meth:`sync`): the boneyard's drops go to the seat to play now, and the
        hands' gains since its count last changed start afresh (:meth:`_drawer`)."""
        st = self.judge.state
        self.boneyard.retarget(st.turn if st.layout.lead is not None and not st.over else None)
        self._yard_marked = False

    @property
    def wants_read(self) -> bool:
        """True while a take-back or an end-of-hand reveal waits for a confirming read, or the record changed
        with tiles shown in a hand area since the latest read (ask the gate for one). A restored last play
        with the loser's tiles already shown on a still table was never read again: the hand stayed open
        (helper-104)."""
        return self.record_sync.synced or self.reveals.read_due(self._now) or any(
            tr.status == "layout" and 0 < tr.missing < self.config.takeback_reads and tr.play is not None
            and self._is_arm_end(tr.play) for tr in self.tiles.values())

    def roi_px(self, grow: float = 1.5) -> tuple[int, int, int, int] | None:
        """``(x0, y0, x1, y1)`` image px around the layout, grown by ``grow`` tile lengths; None before the lead."""
        polys = [tr.polygon_px for tr in self.tiles.values() if tr.status == "layout"]
        if not polys:
            return None
        p = np.concatenate(polys).reshape(-1, 2)
        size = float(np.median([np.linalg.norm(q[1] - q[0]) for q in polys]))
        lo, hi = p.min(0) - grow * size, p.max(0) + grow * size
        return int(max(lo[0], 0)), int(max(lo[1], 0)), int(hi[0]) + 1, int(hi[1]) + 1

    def update(self, frame_index: int, t: float, observations: list | None,
               motion: MotionInfo | None = None, clipped: np.ndarray | None = None) -> list:
        """Consume one frame; returns the events and notices it produced (often none).

        Args:
            frame_index: frame index.
            t: frame time, seconds.
            observations: the recognizer's :class:`~vision.observation.TileObservation`
                list for this frame, or None when the frame was not read.
            motion: the gate's :class:`~vision.motion.MotionInfo` for this frame, or None.
            clipped: (H, W) uint8 mask of this frame's clipped white (:func:`vision.exposure.clipped_mask`),
                or None when nothing is clipped. A tile not read that it hides
                (:func:`vision.exposure.hidden_by_glare`) is kept as it was instead of counted missing (two
                glared photos "cleared" the table and the whole line was recorded again as a second hand,
                helper-136), unless its own last read was in or by a glare (:func:`vision.exposure.
                read_in_glare`: such a read may be wrong and must be free to go, helper-138).
        """
        self._now = t
        self._clipped, self._motion = clipped, motion
        if observations is not None:
            self.hidden_tiles = self.hidden_hand_tiles = 0
        if motion is not None:
            if motion.frame_size is not None and self.image_size is None:
                self.image_size = motion.frame_size
            if motion.occluded and motion.entry_side is not None:
                seat = seat_of_entry(motion.entry_side, motion.entry_point_px, self.profile)
                if seat is not None:
                    self._votes[seat] = self._votes.get(seat, 0.0) + 1.0
                    self.turns.arm_seats.add(seat)
            self.turns.see_arm(frame_index, t, motion)
        if observations is None:
            return []
        obs = [o for o in (self._wrap(x) for x in observations) if o is not None]
        if motion is not None:
            if not (motion.read or (motion.still and motion.still_for_s >= self.config.still_window_s)):
                return []
            region = motion.changed_bbox_px
        else:
            region = None
            if self.photos:  # every frame a stable state (photos): each one is a look,
                return self._commit(frame_index, t, obs, region)  # also a copy of the last (a confirming read)
            if self._cand is None or not self._same(self._cand[1], obs):
                self._cand, self._cand_done = (t, obs), False
                if self.config.still_window_s > 0:
                    return []
            if self._cand_done or t - self._cand[0] < self.config.still_window_s:
                return []
            self._cand_done = True
        return self._commit(frame_index, t, obs, region)

    # ---- observations ---------------------------------------------------------------------
    def _wrap(self, o) -> _Obs | None:
        face = getattr(o, "face", "up")
        pips = getattr(o, "pips", None)
        if face == "up" and pips is None:
            return None  # unreadable face-up tile: nothing to track by
        poly = np.asarray(o.polygon_px, np.float64).reshape(4, 2)
        if self.profile is not None:
            poly = self.profile.image_to_table(poly - 0.5).astype(np.float64)
        conf = float(getattr(o, "confidence", 1.0))
        return _Obs(o, TileGeom.from_polygon(poly), face, None if pips is None else (int(pips[0]), int(pips[1])), conf)

    def _same(self, a: list[_Obs], b: list[_Obs]) -> bool:
        """Whether two reads show the same tiles at the same places (within ``jitter``)."""
        if len(a) != len(b):
            return False
        used: set[int] = set()
        for x in a:
            best = None
            for j, y in enumerate(b):
                if j in used or x.face != y.face or x.key != y.key:
                    continue
                d = float(np.linalg.norm(x.geom.center - y.geom.center)) / x.geom.length
                if d <= self.config.jitter and (best is None or d < best[0]):
                    best = (d, j)
            if best is None:
                return False
            used.add(best[1])
        return True

    @property
    def photos(self) -> bool:
        """Reading a folder of photos (every read a stable state: ``still_window_s`` <= 0), not footage
        (:attr:`vision.hand_areas.HandAreas.photos`)."""
        return self.hand_areas.photos

    def in_hand_zone(self, g: TileGeom, uncalibrated_scale: float = 1.0) -> bool:
        """Whether a tile at ``g`` lies in a seat's hand area (:meth:`vision.hand_areas.HandAreas.in_zone`)."""
        return self.hand_areas.in_zone(g, uncalibrated_scale)

    # ---- matching ---------------------------------------------------------------------------
    def _match(self, obs: list[_Obs], region: tuple[int, int, int, int] | None = None
               ) -> tuple[list[tuple[TrackedTile, _Obs, str]], list[TrackedTile], list[_Obs]]:
        """Pair tracked tiles with observations: (pairs with how they matched, gone, new). ``region``: the
        read's changed region (full-res px; None: all of it); a tile wholly outside it did not move."""
        cfg = self.config
        cands = []
        for tr in self.tiles.values():
            for j, o in enumerate(obs):
                if tr.face != o.face:
                    continue
                d = float(np.linalg.norm(tr.geom.center - o.geom.center)) / tr.geom.length
                if tr.key == o.key and d <= cfg.bump_max:
                    cands.append((d, tr.id, j, "near"))
                elif (tr.face == "up" and d <= cfg.reread_radius and abs(float(np.dot(tr.geom.axis, o.geom.axis))) > 0.9
                      and min(tr.confidence, o.confidence) < cfg.swap_confidence):
                    cands.append((1.0 + d, tr.id, j, "reread"))
        cands.sort(key=lambda c: c[0])
        pairs, used_t, used_o = [], set(), set()
        for _, tid, j, how in cands:
            if tid in used_t or j in used_o:
                continue
            used_t.add(tid)
            used_o.add(j)
            pairs.append((self.tiles[tid], obs[j], how))
        # far moves: the same face-up tile (same pips) somewhere else. Not one where nothing changed: a tile
        # taken away leaves a change where it lay (helper-159: a board's printed 6-4, missed by the read of
        # N's real 6-4, was "moved" onto it; once the line was swept it was seen again as the next lead)
        for tr in self.tiles.values():
            if tr.id in used_t or tr.face != "up" or (region is not None and not _overlaps(tr.polygon_px, region)):
                continue
            if self._unchanged(tr.polygon_px):  # still where it lay: another tile of its pips (a picture's)
                continue
            far = [(float(np.linalg.norm(tr.geom.center - o.geom.center)), j) for j, o in enumerate(obs)
                   if j not in used_o and o.face == "up" and o.key == tr.key]
            if far:
                _, j = min(far)
                used_t.add(tr.id)
                used_o.add(j)
                pairs.append((tr, obs[j], "far"))
        gone = [tr for tr in self.tiles.values() if tr.id not in used_t]
        new = [o for j, o in enumerate(obs) if j not in used_o]
        return pairs, gone, new

    # ---- one committed read -----------------------------------------------------------------------
    def _commit(self, frame: int, t: float, obs: list[_Obs], region) -> list:
        cfg = self.config
        events: list = []
        self._read_frame = frame
        # where the last photo showed each tile: a hand-held camera's fitted move (a shift, turn and scale
        # fitted to the line of play) is off by up to 40 px at the far hand rows, and a tile gone from
        # there, moved out of its hand area, no longer counted as a loss while the new ones counted
        seen_at = {tid: tr.geom for tid, tr in self.tiles.items()}
        moved_camera = self.photos and self._follow_camera(obs)
        pairs, gone, new = self._match(obs, region)
        gone = self._not_hidden(gone)
        pairs, gone, new = self._cleared_with_a_lead(pairs, gone, new)
        candidates: list[TrackedTile] = []
        moved_layout = False

        for tr, o, how in pairs:
            if self.photos and 0 < tr.missing < cfg.takeback_reads and tr.status == "layout" and tr.play is not None \
                    and self._is_arm_end(tr.play):
                events.append(self._back_after_one_photo(tr))
            tr.missing, tr.missing_at = 0, None
            tr.seen_score = o.confidence
            if how != "reread":
                tr.reread_run = None  # read as itself again: the other reading's run is broken
            tr.read_in_glare = self._read_in_glare(o.obs.polygon_px)
            if how != "reread" and tr.status != "layout" and o.confidence > tr.confidence:
                # first read while an arm or its shadow still crossed it (a hand shown at the end stayed
                # too unsure to count): the better read stands, and the colour seen with it
                tr.confidence = o.confidence
                tr.face_lab = getattr(o.obs, "face_lab", None) or tr.face_lab
            disp = float(np.linalg.norm(tr.geom.center - o.geom.center))
            rel = disp / tr.geom.length
            turn = turn_deg(tr.geom, o.geom)  # signed: the notice says which way it was knocked
            patch = getattr(o.obs, "patch", None)
            if how == "reread" and tr.pips is not None and o.pips is not None:
                if tr.status == "layout" and tr.noted != o.pips:
                    tr.noted = o.pips  # once per new reading, not on every read
                    events.append(Notice("reread", t, frame, f"tile read as {Tile(*tr.pips)} now reads {Tile(*o.pips)}",
                                         tile=tr.key, seat=tr.play.seat if tr.play else None,
                                         details={"old": list(tr.pips), "new": list(o.pips),
                                                  "old_confidence": tr.confidence, "new_confidence": o.confidence}))
                if tr.status == "layout":
                    events += self._reread_fix(tr, o, t, frame)
                else:
                    tr.pips, tr.confidence = o.pips, o.confidence
                    candidates.append(tr)
            turned_a_little = abs(turn) <= cfg.angle_jitter_deg
            if rel <= cfg.jitter and turned_a_little:
                continue
            if self._picture_read_again(tr, o, how, rel):
                # the picture as boxed now: a box the detector keeps turned is not judged again at each read
                tr.geom, tr.polygon_px, tr.patch = o.geom, np.asarray(o.obs.polygon_px, np.float32), patch
                continue
            if moved_camera and how == "near" and rel <= CAMERA_RESIDUAL_TILES and turned_a_little:
                # the camera's move fitted as a shift and turn leaves a tilt's few px: no bump, no play
                tr.geom, tr.polygon_px, tr.patch = o.geom, np.asarray(o.obs.polygon_px, np.float32), patch
                moved_layout = moved_layout or tr.status == "layout"
                continue
            kind = "bump" if how != "far" else "moved"
            if tr.status == "layout" and tr.patch is not None and patch is not None:
                # helper-165: the boxes' turn errs by 1-2 degrees, as much as a knock turns a tile
                registered = registered_turn_deg(tr.patch, patch, turn)
                turn = turn if registered is None else registered
            tr.geom, tr.polygon_px, tr.patch = o.geom, np.asarray(o.obs.polygon_px, np.float32), patch
            if o.pips is not None and o.key == tr.key:
                # pips are in polygon order: a tile read while held, then laid turned, kept the held
                # pose's order, and its far half was taken for the one touching the open end
                tr.pips = o.pips
            if tr.status == "layout":
                side = "clockwise" if turn > 0 else "counter-clockwise"
                turned = f", turned {abs(turn):.1f} degrees {side}" if round(turn, 1) else ""
                events.append(Notice(kind, t, frame, f"placed tile {Tile(*tr.key)} {kind} {disp:.1f} "
                                     f"{'mm' if self.profile is not None else 'px'}{turned}: not a play",
                                     tile=tr.key, details={"displacement": round(disp, 2),
                                                           "rotation_deg": round(turn, 1)}))
                moved_layout = True
            elif tr.face == "up":
                tr.scenery, tr.moved = False, True  # a tile someone moved is a tile, not a picture
                candidates.append(tr)  # a loose tile that moved may have been played
        if moved_layout:
            self._rebuild_geometry()

        new_tiles = []
        setup = self.state is None  # the first committed read
        for o in new:
            tr = TrackedTile(self._next_id, o.face, o.pips, o.geom, np.asarray(o.obs.polygon_px, np.float32),
                             o.confidence, seen_score=o.confidence, read_in_glare=self._read_in_glare(o.obs.polygon_px),
                             det_score=float(getattr(o.obs, "det_score", 1.0)), first_frame=frame)
            tr.scenery = (setup and cfg.setup_min_score is not None and tr.face == "up" and not self.in_hand_zone(tr.geom)
                          and tr.det_score < cfg.setup_min_score)
            tr.picture = tr.scenery
            if setup and tr.face == "up" and tr.key in self.record_sync.voided:
                tr.scenery = True
            if tr.face == "up" and self._at_fixture_spot(tr):
                tr.scenery = True
            tr.old = self.state is None and self._old_layout_at_start and tr.face == "up"
            tr.face_lab = getattr(o.obs, "face_lab", None)
            tr.patch = getattr(o.obs, "patch", None)
            self._next_id += 1
            self.tiles[tr.id] = tr
            new_tiles.append(tr)
            if tr.face == "up":
                candidates.append(tr)
        events += self.record_sync.step(self, frame, t, first=self.state is None)
        if setup:
            self._setup_scenery(new_tiles)

        self.hand_areas.find_rows(self.tiles.values(), gone)
        if self.photos:  # no arm is ever seen, the hand a tile left tells the seat
            hands, votes = self.hand_areas.photo_votes(self.tiles.values(), gone, new_tiles, seen_at,
                                                       first=self.state is None)
            for seat, n in votes.items():
                self._votes[seat] = self._votes.get(seat, 0.0) + n
        events += self._gone(frame, t, gone, new_tiles, region)
        if self.photos:  # after _gone: a hand cleared here starts the counts afresh from this photo
            self.hand_areas.photo_read(hands)
        self.record_sync.synced = False
        if self.record_sync.recheck:  # the umpire changed the line: tiles that touched no open end may touch one now
            self.record_sync.recheck = False
            held = sorted((tr for tr in self.tiles.values() if tr.status == "unplaced" and tr.face == "up"
                           and tr not in candidates), key=lambda tr: tr.id)
            events += self._lay_held(frame, t, held)  # laid before this read's draws and plays
            candidates += held
        # before the plays: draws come under the turn they were made in (a photo's draw made after its play: after)
        view = self._undealt_view(candidates)  # one view for both: a draw moves no tile
        if self.judge.state.over and self.lop.lead is not None:
            counted = self.boneyard is not None and self.boneyard.trusted
            self.hand_end.read(frame, t, view[0] if counted else None)
        drew_after = self._drawn_after_play(candidates)
        if drew_after is None:
            yard = self._step_boneyard(frame, t, candidates, view)
            events += yard
            if self.photos and not self._votes and not any(isinstance(ev, Draw) for ev in yard):
                # a hand's box faded, and nothing else tells who played (a drawer's play shows no loss)
                self._votes = dict(self.hand_areas.faded_votes)
        events += self._check_rules_fit(frame, t, candidates, view)
        self.hand_areas.roll_glare()
        # a tile whose play the engine refused is tried again, after this read's draws (it counts in no hand):
        # the line or the hands may since allow it (helper-223: a refused tile was never judged again)
        refused = sorted((tr for tr in self.tiles.values() if tr.refused is not None and tr.status != "layout"
                          and tr.face == "up" and tr not in candidates), key=lambda tr: tr.id)
        events += self._plays(frame, t, candidates + refused)
        if drew_after is not None:
            events += self._step_boneyard(frame, t, candidates, view, drew_after)
        events += self._step_reveals(frame, t)
        events += self._check_lock_fit(frame, t)
        self._votes = {}
        self.state = BoardState(t, frame, {k: copy.copy(v) for k, v in self.tiles.items()})
        return events

    def finish(self, frame: int, t: float) -> list:
        """The footage ended (a video's or a photo folder's last frame at ``t`` s): what waits for
        more reads is decided on the last read - hands shown in a draw game end the hand now.
        Returns the events and notices (often none)."""
        self._now = t
        if not self.reveals.pending:
            return []
        return self._step_reveals(frame, t, final=True) + self._check_lock_fit(frame, t)

    def _step_reveals(self, frame: int, t: float, final: bool = False) -> list:
        """The face-up tiles in the hand areas after a read: reveals, maybe the inferred end of the hand."""
        shown = [tr for tr in self.tiles.values() if tr.face == "up" and tr.status == "hand"
                 and tr.confidence >= self.config.uncertain_confidence]
        return self.reveals.step(self.judge, self._append, shown,
                                 lambda c: seat_of_position(c, self.profile, self.image_size), frame, t,
                                 ended=self.ended["text"] if self.ended else None, final=final,
                                 passes_seen=self.rules.boneyard and self._nothing_to_draw())

    def _laid(self, candidates: list[TrackedTile]) -> int:
        """How many of this read's new face-up ``candidates`` lie outside the playing seats' hand areas (plays,
        not reveals: a tile laid at the end of a line reaching the hand area of a seat no one plays from is a
        play; draw seed 1003, two seats: S's 6-1 by the E edge counted no play, and S's draw waited a photo)."""
        order = self.judge.state.order
        return sum(1 for c in candidates if c.face == "up" and c.status != "layout"
                   and not (self.in_hand_zone(c.geom)
                            and seat_of_position(c.geom.center, self.profile, self.image_size) in order))

    def _drawn_into_hands(self, candidates: list[TrackedTile], turn: str | None,
                          own: int | None = None) -> tuple[int, int]:
        """A folder's photos: tiles the hands gained from the boneyard since the last photo, as the hand
        areas' face-down tiles show it (the counts the hand areas kept for this photo and the one before):
        each play takes one from a hand, each draw adds one, so gained = the change + the new face-up
        ``candidates`` laid outside the hands. A tile the detector missed in the boneyard reaches no hand,
        so a drop it causes still waits for the next photo (helper-110: a draw and the drawer's play in one
        photo were recorded play first, the draw out of turn). Two counts: all hands', and the drawer's
        (``turn``, the seat to play) alone with at most one play of this photo, its own: a hand-held photo
        miscounts other hands by a tile now and then (all-fives: S drew 3 and played, N's row read one
        more, 4 gained in all), and the draw waited a photo and came out of turn
        (:meth:`vision.hand_areas.HandAreas.drawn`; ``own``: the drawer's plays among them, None: at most one)."""
        return self.hand_areas.drawn(self._laid(candidates), turn, own)

    def _drawn_after_play(self, candidates: list[TrackedTile]) -> tuple[str, tuple[int, int]] | None:
        """A folder's photo with one play, the seat to play's, whose hand gained no tile while the next seat's
        did (:meth:`vision.hand_areas.HandAreas.drew_after_play`): the next seat drew once the turn came to
        it, so :meth:`_commit` takes the boneyard's count after the photo's plays, under that seat's turn.
        Returns that seat and the hands' gains for it (:meth:`_drawn_into_hands`, the play not its own), else
        None (the count comes before the plays, as ever). Counted before the read's glare rolls over."""
        st = self.judge.state
        if not self.photos or self.boneyard is None or st.layout.lead is None or st.over or st.turn is None:
            return None
        after = next_seat(st.order, st.turn)
        if not self.hand_areas.drew_after_play(st.turn, after, self._laid(candidates)):
            return None
        return after, self._drawn_into_hands(candidates, after, own=0)

    def _step_boneyard(self, frame: int, t: float, candidates: list[TrackedTile],
                       view: tuple[int, dict[str, int], dict[str, int]],
                       drew_after: tuple[str, tuple[int, int]] | None = None) -> list:
        """A draw game: count the face-down tiles apart from the playing seats' hand areas
        (:class:`vision.boneyard.BoneyardCounter`); its ``Draw`` events go to the judge, whose
        boneyard then tells :meth:`vision.pass_inference.SeatTurns.passes` when nothing is left to draw. ``candidates``: this
        read's new face-up tiles (a folder's photos weigh the hands' gain with them); ``view``:
        :meth:`_undealt_view` of this read; ``drew_after``: taken after the photo's plays, the seat that drew
        then and the hands' gains for it (:meth:`_drawn_after_play`)."""
        if self.boneyard is None:
            return []
        st = self.judge.state
        seen, hands, _ = view
        started = st.layout.lead is not None
        # draws the record holds that the camera has not seen drop yet (an umpire entered them): the
        # camera's next drops are those draws, not more (helper-89: one draw recorded twice)
        credit = max(0, self.boneyard.level - st.boneyard) if self.boneyard.trusted else 0
        out = []
        turn = st.turn if started and not st.over else None
        if drew_after is None:
            drawn = self._drawn_into_hands(candidates, turn) if self.photos else ()
            played = self.photos and self._laid(candidates) > 0
        else:  # after the play, the gains counted before it (its glare has rolled over); if the turn did not
            # come to that seat (the play refused), the drop waits for the next photo
            drawn, played = (drew_after[1] if turn == drew_after[0] else ()), False
        # a video's drop goes to the hand that took the tile, which is not always the seat to play now
        drawer = turn if self.photos else self._drawer(turn, hands, candidates)
        level = self.boneyard.level
        for ev in self.boneyard.step(seen, drawer, t, frame, started, drawn, played=played):
            if isinstance(ev, Draw):
                take = min(credit, ev.count)
                credit -= take
                if take == ev.count:
                    continue
                ev = ev.model_copy(update={"count": ev.count - take})
                try:
                    self.judge.append(ev)
                except IllegalEvent as exc:
                    out.append(Notice("rejected", t, frame, str(exc), seat=ev.seat, details={"event": "draw"}))
                    continue
            elif self.profile is None:  # helper-90: a hand row just past the guessed band counted as boneyard
                ev = Notice(ev.kind, ev.t, ev.frame, ev.message + " (the hand areas are guessed from the image's "
                            "borders: a table calibration gives them)")
            out.append(ev)
        self._yard_marked = self._yard_marked and self.boneyard.level == level
        self._yard_hands = hands
        drew = [ev for ev in out if isinstance(ev, Draw)]
        if drew:
            self.fit.drew()
        if any(drawn) and len(drew) == 1 and drew[0].frame == frame and not self._votes and drew_after is None:
            # a photo: the tile went into a hand and no hand is short of one, so the drawer played it (each
            # other seat's hand is as it was): its play is the drawer's, not the turn's guess. Only a drop first
            # seen in this photo: one seen a photo before was that turn's draw, and this photo's gain another
            # (hand-held all-fives: S's draw seen late, then N drew and played 0-2, which went to S)
            self._votes[drew[0].seat] = self.config.min_seat_votes
        return out

    def _beside_line(self, down: list[TrackedTile], candidates: list[TrackedTile]) -> set[int]:
        """Ids of the face-down tiles ``down`` that lie against the line of play: their outline within
        ``LINE_GAP_TILES`` tile lengths (working units: mm calibrated, px otherwise) of a laid tile's, or
        of one of this read's new face-up ``candidates`` outside the hand areas (laid now, its play comes
        after the boneyard's count), and first seen no earlier than that tile. Such a box is the table
        beside a tile, not the boneyard: the detector boxes it once the tile is there. A face-down tile
        seen at a read before the tile next to it was is a real tile the line was laid against (a
        boneyard tile within a few mm of the line stays counted: face-down tiles are never played)."""
        line = [tr for tr in self.tiles.values() if tr.status == "layout"]
        line += [c for c in candidates if c.face == "up" and c.status != "layout" and not c.scenery
                 and not self.in_hand_zone(c.geom)]
        if not down or not line:
            return set()
        gap = shapely.distance(shapely.polygons([tr.geom.polygon() for tr in down])[:, None],
                               shapely.polygons([tr.geom.polygon() for tr in line])[None, :])
        later = (np.array([tr.first_frame for tr in down])[:, None]
                 >= np.array([tr.first_frame for tr in line])[None, :])
        near = ((gap < LINE_GAP_TILES * np.array([tr.geom.length for tr in line])) & later).any(axis=1)
        return {tr.id for tr, n in zip(down, near) if n}

    def _drawer(self, turn: str | None, hands: dict[str, int], candidates: list[TrackedTile]) -> str | None:
        """The seat a boneyard drop first seen in this read goes to (a video): the seat to play, unless
        its hand area gained no tile since the boneyard's count last changed while exactly one other
        seat's did. Then the drop was seen late, after the drawer played and the turn moved on (a
        boneyard tile outside a read's changed region is not read again: ``docs/tracking.md``, the
        boneyard's known limits), and went to the next seat.

        A seat's gain is its face-down tiles now less then, plus the tiles it played since (the judge's
        plays; this read's new tiles laid outside the hands count for the seat to play, which may lay a
        tile drawn in this read). Every playing seat's hand must be seen then and now: a camera that
        does not see the hands (or an empty hand area) gives no gains. ``hands``: this read's face-down
        tiles in each playing seat's hand area."""
        played = Counter(seat for _, seat, *_ in self.judge.state.plays)
        if not self._yard_marked and self._yard_hands is not None:
            # the count as confirmed at the read before: its hands, and every play that read made
            self._yard_mark, self._yard_marked = (self._yard_hands, played), True
        if turn is None or self._yard_mark is None:
            return turn
        then, played_then = self._yard_mark
        order = self.judge.state.order
        if not all(then.get(s) and hands.get(s) for s in order):
            return turn  # a hand not in view (then or now): its gain says nothing
        laid = min(self._laid(candidates), 1)
        gain = {s: hands.get(s, 0) - then.get(s, 0) + played[s] - played_then[s] + (laid if s == turn else 0)
                for s in order}
        if gain.get(turn, 0) >= 1:
            return turn
        others = [s for s, g in gain.items() if s != turn and g >= 1]
        return others[0] if len(others) == 1 else turn

    def _check_rules_fit(self, frame: int, t: float, candidates: list[TrackedTile],
                         view: tuple[int, dict[str, int], dict[str, int]]) -> list:
        """Whether the deal and the undealt tiles seen fit the rule set (:mod:`vision.rules_fit`): a
        ``rules_misfit`` notice, once per parameter, when they clearly do not (draws under a rule set
        without drawing, another hand size). ``candidates``: this read's new face-up tiles; ``view``:
        :meth:`_undealt_view` of this read."""
        st = self.judge.state
        seen, hands, edges = view
        started = st.layout.lead is not None
        turn = st.turn if started and not st.over else None
        # the four hand areas only where a calibration gives them: a guessed band can miss a hand lying further
        # in (a 4-seat draw game uncalibrated: E's and W's 5 tiles counted apart, the deal "2 hands of 5")
        edges = edges if self.profile is not None else None
        return self.fit.step(seen, hands, list(st.order), turn, started, self._laid(candidates), t, frame, edges)

    def _check_lock_fit(self, frame: int, t: float) -> list:
        """Once the judge ended the hand locked: whether a lock fits the draws the rule set asks for
        (:func:`vision.rules_fit.lock_misfit`: under draw-until-playable, no lock with tiles left to draw),
        by the boneyard the camera followed (none when it could not count it)."""
        if (self.ended is None or self.ended["kind"] != "locked" or self.hand_end.umpires_end
                or self.boneyard is None or not self.boneyard.trusted):
            return []  # the umpire's lock is no evidence of the footage's
        return self.fit.locked(self.boneyard.level, self.judge.state.layout.is_locked(), self.ended["t"], t, frame)

    def _undealt_view(self, candidates: list[TrackedTile]) -> tuple[int, dict[str, int], dict[str, int]]:
        """The face-down tiles of this read, leaving out boxes against the line of play (:meth:`_beside_line`)
        and boxes longer than a tile (:meth:`vision.hand_areas.HandAreas.tile_sized`):
        how many lie apart from the playing seats' hand areas (the boneyard, or the undealt tiles; boxes cut by
        the frame's border left out, :func:`vision.observation.touches_frame`, and those that raised its count
        above its level, :meth:`_surplus`), how
        many in each of their hand areas, and how many in each of the four hand areas, the rule set's
        seats or not (the deal seen: :func:`vision.rules_fit.deal_observed`). ``candidates``: this read's
        new face-up tiles."""
        # boxes far longer than a tile are table texture: a veined marble's bands beside the boneyard
        down = [tr for tr in self.tiles.values() if tr.face == "down" and tr.status != "layout"]
        down = self.hand_areas.tile_sized(down)
        beside = self._beside_line(down, candidates)
        down = [tr for tr in down if tr.id not in beside]
        edges = self.hand_areas.counts(down, self.hand_areas.band_scale, seats=SEATS)
        hands = {seat: n for seat, n in edges.items() if seat in self.judge.state.order}
        # the boneyard leaves out boxes cut by the frame's border: there the detector boxes the table's texture
        # as tile backs (hand-held photos of veined wood: 4 to 6 such boxes at the left border, scored 0.40-0.94,
        # the count never matched the deal and no draw was followed); a boneyard tile cut off there is no count
        # to trust either
        inner = down if self.image_size is None else [tr for tr in down
                                                      if not touches_frame(tr.polygon_px, self.image_size)]
        scale = self.hand_areas.band_scale
        yard = [tr for tr in inner if not tr.no_tile and not self.hand_areas.counts([tr], scale)]
        self._surplus(yard)
        yard = [tr for tr in yard if not tr.no_tile]
        self._yard_ids = {tr.id for tr in yard}
        return len(yard), hands, edges

    def _surplus(self, yard: list[TrackedTile]) -> None:
        """A folder's photos: mark :attr:`TrackedTile.no_tile` the boxes of the boneyard's count ``yard`` (this read's
        face-down tiles apart from the hands) that the last read's count did not take, when they are exactly as
        many as the count stands above its confirmed level. The boneyard never gains a tile during a hand, so such
        a box is no tile: the table boxed in the gap a drawn tile left, or texture measured a tile's size in this
        photo. Hand-held all-fives: a gap in the boneyard's column, boxed at 0.88 in two photos, hid N's draw,
        whose drop came a photo late, under S's turn. A tile found again after a read that missed it does not
        raise the count above its level, and a camera move that matched none of the tiles makes them all new:
        more than the rise, no mark."""
        if not self.photos or self.boneyard is None or not self.boneyard.trusted:
            return
        fresh = [tr for tr in yard if tr.id not in self._yard_ids]
        if fresh and len(fresh) == len(yard) - self.boneyard.level:
            for tr in fresh:
                tr.no_tile = True

    def _nothing_to_draw(self) -> bool:
        """No boneyard in the rule set, or the camera followed every draw and only the reserve is left."""
        if not self.rules.boneyard:
            return True
        return self.boneyard is not None and self.boneyard.trusted and self.judge.state.drawable() == 0

    def _follow_camera(self, obs: list[_Obs]) -> bool:
        """A folder's photos from a hand-held camera: move the tracked tiles as the table moved in the
        picture since the last photo, so that they are matched where they lie now. The move is fitted
        to the face-up tiles read with the same pips in both photos (each domino once in the tracked
        tiles and in the read; :func:`vision.camera_follow.camera_move`), or, with fewer than three,
        taken from one of them (its shift and turn: :func:`vision.camera_follow.tile_move`), the one with
        which most of the other tiles, the hands' too, land on a tile of their face in this photo, and
        only when ``FOLLOW_SHARE`` of them do so, and no fewer than staying put
        (:func:`vision.camera_follow.agreeing`). A move within ``jitter`` is noise, left alone: at the
        tiles it was taken from (their own shift, :func:`vision.camera_follow.shift_at`) and over the
        tracked tiles. Returns whether the tiles were moved."""
        def once(items):
            seen: dict = {}
            for x in items:
                if x.face == "up" and x.key is not None:
                    seen[x.key] = None if x.key in seen else x
            return {k: v for k, v in seen.items() if v is not None}

        tracked, read = once(self.tiles.values()), once(obs)
        keys = [k for k in tracked if k in read]
        if not keys:
            return False
        length = float(np.median([tracked[k].geom.length for k in keys]))
        before = np.array([tracked[k].geom.center for k in keys])
        m, inliers = camera_move(before, np.array([read[k].geom.center for k in keys]), length,
                                 turns=np.array([turn_deg(tracked[k].geom, read[k].geom) for k in keys]),
                                 max_turn_deg=self.config.angle_jitter_deg)
        every = np.array([tr.geom.center for tr in self.tiles.values()])
        if m is not None:
            on = [k for k, ok in zip(keys, inliers) if ok]
        else:  # one or two laid tiles: the move of one, if the other tiles (the hands') agree with it
            tiles = list(self.tiles.values())
            at = {id(x): n for n, x in enumerate(tiles)}
            seen = {id(x): n for n, x in enumerate(obs)}
            pairs = [(tracked[k].geom, read[k].geom, at[id(tracked[k])], seen[id(read[k])]) for k in keys]
            found = one_tile_move(pairs, [(tr.geom.center, tr.face) for tr in tiles],
                                  [(o.geom.center, o.face) for o in obs], CAMERA_RESIDUAL_TILES * length, FOLLOW_SHARE)
            if found is None:
                return False
            m, on = found[0], [keys[found[1]]]
        noise = self.config.jitter * length
        fitted = [(tracked[k].geom.center, read[k].geom.center) for k in on]
        if shift_at(np.array([b for b, _ in fitted]), np.array([n for _, n in fitted])) <= noise:
            # the tiles stayed put: the fit's turn and scale, drawn by their noise (a fixed camera's
            # photos: scales of 1.004-1.034 from tiles 0.1-2.3 mm off) would move the far hands 3-20 mm
            return False
        if float(np.median(np.linalg.norm(moved_points(every, m) - every, axis=1))) <= noise:
            return False
        m_px = m  # uncalibrated, geoms are image px; calibrated, table mm: the image corners get their own move
        if self.profile is not None:
            px_before = [TileGeom.from_polygon(tracked[k].polygon_px) for k in on]
            px_now = [TileGeom.from_polygon(read[k].obs.polygon_px) for k in on]
            m_px = (camera_move(np.array([g.center for g in px_before]), np.array([g.center for g in px_now]),
                                float(np.median([g.length for g in px_before])))[0] if len(on) >= MIN_PAIRS
                    else tile_move(px_before[0], px_now[0]))
        for tr in self.tiles.values():
            tr.geom = moved_geom(tr.geom, m)
            tr.patch = None  # a picture from before the camera moved: a turn registered on it is the camera's
            if m_px is not None:
                tr.polygon_px = moved_points(tr.polygon_px, m_px).astype(np.float32)
        self.camera_moves += 1
        self._rebuild_geometry()
        return True

    def _rebuild_geometry(self) -> None:
        """Rebuild the line of play from the plays' current tile geometry (after bumps)."""
        recs = list(self.lop.records)
        for i, pr in enumerate(self.plays):
            tr = self.tiles.get(pr.tile_id)
            if tr is not None and i < len(recs):
                r = recs[i]
                pips, touching = r.pips, r.touching
                if tr.pips is not None and r.pips[0] != r.pips[1] and tuple(tr.pips) == tuple(reversed(r.pips)):
                    pips, touching = tr.pips, 1 - r.touching  # the bumped tile's corners came turned
                recs[i] = type(r)(r.end, tr.geom, pips, touching, r.contact, r.spinner_arms)
        self.lop.rebuild(recs)

    def _read_in_glare(self, polygon_px: np.ndarray) -> bool:
        return self._clipped is not None and read_in_glare(self._clipped, polygon_px)

    def _not_hidden(self, gone: list[TrackedTile]) -> list[TrackedTile]:
        """``gone`` less the tiles this read's clipped white hides (:func:`vision.exposure.hidden_by_glare`):
        not seen, not gone, for every count (missing reads, the hands' losses, a cleared table), unless their
        own last read was in or by a glare. Sets :attr:`hidden_tiles` (the laid ones) and
        :attr:`hidden_hand_tiles` (the hand areas' face-down ones)."""
        if self._clipped is None:
            return gone
        hidden = {tr.id for tr in gone if not tr.read_in_glare and hidden_by_glare(self._clipped, tr.polygon_px)}
        self.hidden_tiles = sum(1 for tr in gone if tr.id in hidden and tr.status == "layout")
        in_hands = self.hand_areas.counts([tr for tr in gone if tr.id in hidden], self.hand_areas.band_scale)
        self.hidden_hand_tiles = sum(in_hands.values())
        self.hand_areas.hidden(in_hands)
        return [tr for tr in gone if tr.id not in hidden]

    def open_end_polygons(self) -> list[np.ndarray]:
        """The (4, 2) float32 image-px outlines of the laid tiles at an open end of the line (nothing laid
        against them since): where the next plays go."""
        return [tr.polygon_px for tr in self.tiles.values()
                if tr.status == "layout" and tr.play in self.plays and self._is_arm_end(tr.play)]

    def _is_arm_end(self, pr: PlayRecord) -> bool:
        """Whether nothing was laid against ``pr`` after it (only such a tile can be taken back)."""
        i = self.plays.index(pr)
        if pr.end == "lead":
            return len(self.plays) == 1
        rec = self.lop.records[i] if i < len(self.lop.records) else None
        arms = {pr.end} | set(rec.spinner_arms or ()) if rec is not None else {pr.end}
        return all(q.end not in arms for q in self.plays[i + 1:])

    def _reread_fix(self, tr: TrackedTile, o: _Obs, t: float, frame: int) -> list:
        """A played tile ``tr`` read again (``o``) with other pips at its place: correct its play when its own
        read was unsure (under ``uncertain_confidence``, or in a photo with an arm over the table) and the last
        ``reread_fix_reads`` reads in a row read one other tile, each at least ``swap_confidence``, that fits
        the line (helper-224: the demo's folder recorded N 2-1 and S 2-4, read under an arm at 0.10 and 0.03,
        flagged mismatched ends, while the next 20 photos read 3-1 and 6-4 at 0.91-0.92).

        The touching half is the new read's half at the place of the old touching half (the tile's geometry
        decides, not the pips). It fits when, with the correction, no event of the hand has a flag it did not
        have and the play matches its end: a confident mismatch read so again stays flagged. A lead, or a
        double read as a non-double or the other way round (a spinner's arms), is left to the umpire.

        Returns: ``[Correction, reread notice]`` (the correction's ``replaces`` is the slot in
        :attr:`hand`'s log: the caller maps it to its own log), or nothing.
        """
        cfg, pr = self.config, tr.play
        if cfg.reread_fix_reads <= 0 or pr is None or pr.end == "lead" or pr not in self.plays:
            return []
        slot = play_slot(self.hand.log, pr)
        if slot is None:
            return []
        old = dict(effective(self.hand.log))[slot]
        arm = pr.frame in self._arm_frames
        unsure = arm or (old.confidence is not None and old.confidence < cfg.uncertain_confidence)
        if not unsure or o.confidence < cfg.swap_confidence:
            tr.reread_run = None
            return []
        run = tr.reread_run
        n = run[1] + 1 if run is not None and run[0] == o.key else 1
        tr.reread_run = (o.key, n)
        if n < cfg.reread_fix_reads:
            return []
        i = self.plays.index(pr)
        rec = self.lop.records[i]
        # the new read's pips in the order of the laid tile's geometry (its corners may have come turned)
        pips = o.pips if float(np.dot(o.geom.axis, rec.geom.axis)) >= 0 else (o.pips[1], o.pips[0])
        tile = Tile(pips[rec.touching], pips[1 - rec.touching])
        if (tile.a == tile.b) != (pr.tile.a == pr.tile.b):
            return []
        # no time of its own: the fix keeps the play's moment (engine.events.effective), and the notation a `fix` line
        play = Play(**{**old.model_dump(), "tile": [tile.a, tile.b], "confidence": round(o.confidence, 4),
                       "t": None, "frame": None})
        reason = (f"reread: {pr.tile} read at {old.confidence if old.confidence is not None else '?'}"
                  f"{' with an arm over the table' if arm else ''}; "
                  f"{Tile(*o.key)} at {o.confidence:.2f} in {n} reads since")
        fix = Correction(replaces=slot, event=play, by="camera", reason=reason[:500], t=t, frame=frame)
        try:
            before = replay(self.hand.rules, self.hand.log, self.hand.context)
            after = replay(self.hand.rules, self.hand.log + [fix], self.hand.context)
        except IllegalEvent:
            return []
        flags = lambda st: Counter((out.index, f.kind) for out in st.outcomes for f in out.flags)  # noqa: E731
        if flags(after) - flags(before) or (slot, "mismatched_end") in flags(after):
            return []
        self.hand.append(fix)
        judged = play_slot(self.judge.log, pr)
        if judged is not None:
            try:
                self.judge.append(fix.model_copy(update={"replaces": judged}))
            except IllegalEvent:
                pass  # the judge only decides the end of the hand
        recs = list(self.lop.records)
        recs[i] = type(rec)(rec.end, rec.geom, tuple(pips), rec.touching, rec.contact, rec.spinner_arms)
        self.lop.rebuild(recs)
        was = pr.tile
        pr.tile, tr.pips, tr.confidence, tr.noted, tr.reread_run = tile, tuple(pips), o.confidence, None, None
        return [fix, Notice("reread", t, frame, f"placed tile read as {was} now reads {tile} in {n} clear reads: "
                            f"play corrected to {pr.seat} {tile} {pr.end}", tile=tile.key, seat=pr.seat,
                            details={"old": [was.a, was.b], "new": [tile.a, tile.b], "old_confidence": old.confidence,
                                     "new_confidence": o.confidence, "fixed": True, "reads": n,
                                     "play_frame": pr.frame})]

    def _back_after_one_photo(self, tr: TrackedTile) -> Notice:
        """A folder's photo lacked ``tr``, the last tile of an arm in the photo before, and this one shows it
        again: a ``tile_missing`` notice dated at the photo that lacked it (details: ``back_frame``, the photo
        that shows it again; ``out_of_order``; ``hand_again``, below). One photo is one read taken after a
        move, so a tile gone for one photo and back (no take-back: that needs ``takeback_reads`` reads) means
        photos out of order (names sorting wrong, a photo taken before the play) or a tile the detector
        missed there; footage is not asked (an arm hides a tile for a read or two). When the seat that laid
        it had a face-down tile more in that photo (``hand_again``: the tile back in the hand, an earlier
        state), this read's seat votes count the hand areas' losses since the photo before it, as after an
        arm's photo (helper-217: N's hand there still held 3-1, and S's next play, 6-0, went to N)."""
        assert tr.play is not None and tr.missing_at is not None
        gap_frame, gap_t = tr.missing_at
        seat = tr.play.seat
        again = self.hand_areas.last_photo_gained(seat)
        if again:
            self.hand_areas.arm_in_last_photo()
            why = f" and {seat}'s hand holds a tile more here: the photos may be out of order"
        else:
            why = ": missed here, or the photos are out of order"
        return Notice("tile_missing", gap_t, gap_frame,
                      f"placed tile {Tile(*tr.key)} is not seen in this photo, but is in the photos before and after "
                      f"it{why}; nothing is taken back", tile=tr.key, seat=seat,
                      details={"back_frame": self._read_frame, "out_of_order": True, "hand_again": again})

    def _cleared_with_a_lead(self, pairs: list, gone: list[TrackedTile], new: list[_Obs]) -> tuple[list, list, list]:
        """A read that sees the line cleared and the next hand's lead at once (photos: no photo of
        the empty table): a line tile matched "far" to a tile elsewhere is the new lead that happens
        to be the same domino (helper-84: hand 2's lead 4-3 was "moved placed tile (4,3): not a
        play", and every later play of that hand was lost). Such pairs become a gone tile and a new
        one when, with them, most of the line is away (:data:`CLEARED_SHARE`). So does a tile shown in a hand
        area at the end matched "far" to one off the hand areas (helper-201: N's 3-3 shown, then hand 2's lead
        3-3 was taken for it moved, "touches no open end", and hand 2's plays were lost)."""
        far = [(tr, o, how) for tr, o, how in pairs if how == "far" and (
            tr.status == "layout" or (tr.status == "hand" and tr.face == "up" and not self.in_hand_zone(o.geom)))]
        if not far or len(self.plays) < 3:
            return pairs, gone, new
        away = {tr.id for tr in self.tiles.values() if tr.status == "layout" and tr.missing}
        away |= {tr.id for tr in gone if tr.status == "layout"} | {tr.id for tr, _, _ in far if tr.status == "layout"}
        if len(away) < CLEARED_SHARE * len(self.plays):
            return pairs, gone, new
        return ([p for p in pairs if p not in far], gone + [tr for tr, _, _ in far], new + [o for _, o, _ in far])

    def hands_off_seats(self) -> list[str]:
        """Uncalibrated photos: the image borders (seat names) along which the hands lie while the rule set seats
        no one there: the photos are turned (:meth:`vision.hand_areas.HandAreas.off_seats`)."""
        return self.hand_areas.off_seats(self.rules.hand_size)

    def arm_in_last_photo(self) -> None:
        """The last photo read showed an arm over the table: the next read's seat votes count the hand areas'
        losses since the photo before that one (:meth:`vision.hand_areas.HandAreas.arm_in_last_photo`), and a
        play read in it is an unsure read (:meth:`_reread_fix`)."""
        self.hand_areas.arm_in_last_photo()
        if self._read_frame is not None:
            self._arm_frames.add(self._read_frame)

    def _gone(self, frame: int, t: float, gone: list[TrackedTile], new_tiles: list[TrackedTile], region) -> list:
        cfg = self.config
        events: list = []
        layout_gone = [tr for tr in gone if tr.status == "layout" and (region is None or _overlaps(tr.polygon_px, region))]
        for tr in gone:
            if region is not None and not _overlaps(tr.polygon_px, region):
                continue  # outside the part of the frame that changed: not re-read, keep it
            if tr.status != "layout":
                if self._fixture(tr) and not self._at_fixture_spot(tr):
                    self._fixture_spots.append((tr.key, tr.geom.center.copy(), tr.geom.length))
                del self.tiles[tr.id]
                continue
            tr.missing += 1
            if tr.missing == 1:
                tr.missing_at = (frame, t)
        # most of the layout gone is a cleared table (a take-back removes one tile): a new hand; the
        # caller may call new_hand() again with the match's context for it. Counted over reads: players
        # sweep the tiles off in handfuls, and a read between two sweeps must not take the ends back.
        away = [tr for tr in self.tiles.values() if tr.status == "layout" and tr.missing]
        # a folder's photo: the next hand's lead comes with the clear (no photo of the empty table), or the
        # next photo still lacks the line; one photo without it and nothing new is an unreadable photo
        # (helper-123: one blurred photo "cleared" the table and the hand's 7 plays were recorded again). A lead
        # lies off the hand areas: a stale copy of an early photo showing a tile face up in a hand was taken
        # for the line cleared and the next photo's whole line for a second hand (helper-220)
        photo_unsure = (self.photos and not any(n.face == "up" and not self.in_hand_zone(n.geom) for n in new_tiles)
                        and max((tr.missing for tr in away), default=0) < 2)
        if len(self.plays) >= 3 and len(away) >= CLEARED_SHARE * len(self.plays) and not photo_unsure:
            # hands shown and waiting to end the hand end it as they were seen, before the sweep
            events = self.reveals.settle(self.judge, self._append, frame, t,
                                         ended=self.ended["text"] if self.ended else None)
            for tr in away:
                self.tiles.pop(tr.id, None)
            self.new_hand(self._next_context())
            self._opened_at = frame
            return [*events, Notice("hand_cleared", t, frame, "the layout was cleared: a new hand starts")]
        if len(self.plays) >= 3 and len(away) >= max(3, SWEEPING_SHARE * len(self.plays)):
            return events  # being swept off: no take-backs or missing-tile notices meanwhile
        for tr in sorted((x for x in layout_gone if x.missing), key=lambda x: -self.plays.index(x.play)):
            pr = tr.play
            assert pr is not None
            replaced = any(
                float(np.linalg.norm(n.geom.center - tr.geom.center)) < 0.5 * tr.geom.length for n in new_tiles)
            if not self._is_arm_end(pr):
                if tr.missing == cfg.takeback_reads:
                    events.append(Notice("tile_missing", t, frame, f"placed tile {Tile(*tr.key)} is not seen",
                                         tile=tr.key, seat=pr.seat))
                continue
            if tr.missing < cfg.takeback_reads and not replaced:
                continue
            ev = TakeBack(seat=pr.seat, tile=pr.tile, t=t, frame=frame)
            try:
                self._append(ev)
            except IllegalEvent as exc:
                events.append(Notice("rejected", t, frame, str(exc), tile=tr.key, seat=pr.seat,
                                     details={"event": "take_back"}))
                continue
            i = self.plays.index(pr)
            self.plays.pop(i)
            if i == 0:
                self.lop = LineOfPlay()
            else:
                self.lop.without(i)
            del self.tiles[tr.id]
            events.append(ev)
        return events

    # ---- plays ---------------------------------------------------------------------------------
    def _plays(self, frame: int, t: float, candidates: list[TrackedTile]) -> list:
        """Lay the candidates that touch the layout, in the order adjacency allows; notice the rest."""
        pending = [c for c in candidates if c.face == "up" and c.status != "layout" and c.id in self.tiles
                   and not c.scenery and not c.old]
        if self.record_sync.pending:  # recorded tiles are no new plays; no lead: wait
            held = self.record_sync.binder.held_keys()
            pending = [] if self.lop.lead is None else [c for c in pending if c.key not in held]
        notices: list = self._unlike_the_set(pending, frame, t)
        pending = [c for c in pending if not c.scenery]
        if not pending:
            return notices
        if self.judge.state.over:  # after a domino or a lock, face-up tiles are shown hands, not plays
            return notices + self.hand_end.after_end(
                frame, t, pending, self.lop, lambda g: self.in_hand_zone(g, self.hand_areas.band_scale),
                self.profile is not None, len(self.plays), self._votes)
        done: list[tuple[Play, list[str], str]] = []
        if self.lop.lead is None:
            lead = self._choose_lead(pending)
            if lead is not None:
                pending.remove(lead)
                kw, ke = lead_order(lead.geom)
                fit = EndFit("lead", kw, (lead.pips[kw], lead.pips[ke]), 1.0, True, lead.confidence, False, "lead")
                self._emit(frame, t, lead, fit, done, notices, self._votes)
        # Arms seen since the last play: in footage with arms, a second tile of one read that no arm of the
        # seat to play laid is a picture the first arm uncovered (helper-84: a board's printed 4-2 beside
        # the W end became N's play, then a take-back), not a play; it waits as an unplaced tile.
        arms = set(self.turns.visits) | set(self._votes)
        video = self.config.still_window_s > 0 and bool(self.turns.arm_seats)
        # one at a time, best contact first, so that a tile touching a new tile comes after it; the read's votes
        # go to its first play not laid again by the seat that took it back (that seat is known, _emit). A photo
        # where the seat to play drew and its hand shows it played: that play is the drawer's, by the turn, and
        # the other seats' losses go to the play after it (a drawer's draw hides its own loss)
        drawer = self._drawer_played(frame) if self.photos else None

        def votes_left() -> dict[str, float]:
            own = [ev.seat for ev, _, source, _ in done if source != "take_back"]
            if drawer is None or (own and own[0] != drawer) or (not own and self.hand.state.turn != drawer):
                return {} if own else self._votes
            if not own:
                return {drawer: self.config.min_seat_votes}
            return {s: v for s, v in self._votes.items() if s != drawer} if len(own) == 1 else {}

        while self.lop.lead is not None and pending:
            # a recorded play found in this read counts as its play (helper-147: N 4-0 entered by hand, then
            # the printed 4-2 the arm uncovered beside it was laid as N's play, out of turn)
            if (done or self.record_sync.bound_now) and video and self.hand.state.turn not in arms:
                break
            best = None
            for c in pending:
                f = self.lop.assign(c.geom, c.pips, c.confidence)
                score = None if f is None else f.fit * (1.0 if f.pip_match else 0.35)
                if score is not None and (best is None or score > best[0]):
                    best = (score, c, f)
            if best is None:
                break
            pending.remove(best[1])
            self._emit(frame, t, best[1], best[2], done, notices, votes_left())
        events = self._announce(frame, t, done, missed=len(done) > 1) + notices
        loose = [c for c in pending if not self.in_hand_zone(c.geom, self.hand_areas.band_scale)]
        # weakest box first: a printed track's picture is known before the tile boxed beside it is judged
        pictures = {c.id: self._picture(c, frame, t) for c in sorted(loose, key=lambda c: c.det_score)
                    if c.status != "unplaced"}
        for c in pending:
            if c not in loose:
                c.status = "hand"
            else:
                if c.status != "unplaced":
                    picture = pictures[c.id]
                    if picture is not None:
                        events.append(picture)
                        continue
                    c.unplaced_at = len(self.plays)
                    events.append(Notice("unplaced_tile", t, frame, f"face-up tile {Tile(*c.key)} touches no open end",
                                         tile=c.key))
                    c.votes = dict(votes_left())  # else a play of this read had the arm
                c.status = "unplaced"
        # a tile found touching no open end before, whose tile the line now holds: the set's one is the laid one
        for tr in [tr for tr in self.tiles.values() if tr.status == "unplaced" and not tr.scenery]:
            picture = self._picture(tr, frame, t)
            events += [] if picture is None else [picture]
        return events

    def _drawer_played(self, frame: int) -> str | None:
        """A folder's photo: the seat to play when it drew at this read (``frame``) and its hand area shows it
        played as well (:meth:`vision.hand_areas.HandAreas.drew_and_played`), else None."""
        turn = self.hand.state.turn
        drew = sum(ev.count for ev in self.judge.log if isinstance(ev, Draw) and ev.frame == frame and ev.seat == turn)
        if turn is None or not drew:
            return None
        last = self.state.frame if self.state is not None else None
        laid_last = sum(1 for pr in self.plays if pr.seat == turn and pr.frame == last)
        return turn if self.hand_areas.drew_and_played(turn, drew, laid_last) else None

    def _picture(self, c: TrackedTile, frame: int, t: float) -> Notice | None:
        """Whether face-up tile ``c``, outside the hand areas and touching no open end, is a picture of a
        tile (a domino printed on a game board), never moved: its box scored under ``setup_min_score``, as
        the board's printed dominoes at the setup do (muggins seed 5: a printed 3-0 first boxed, at 0.19,
        in the lead's read), the line of play holds its tile, which the set has once (muggins seed 3:
        a printed 4-0 beside the laid one), it lies against a picture (:meth:`_picture_beside`), or it was first
        boxed at this read where the table did not change since the last one (:meth:`_unchanged`: it lay there
        unboxed; helper-261, a printed 4-2 first boxed at 0.75 once a play lay end to end with its track). Marks
        it scenery until moved (:meth:`_fixture`: never a later play, nor the next hand's lead) and returns a ``picture_tile`` notice, instead of an ``unplaced_tile``
        one (``details["unplaced"]``: found after that notice, whose tile's play took it out of the review's
        warning), else None. helper-186: on a game board 4 of 12 2-seat hands, right, read "Score (not
        final)" for "1 face-up tile touched no open end"."""
        if c.moved or c.key is None or c.face != "up":
            return None
        floor = self.config.setup_min_score  # None (a folder of photos): no score rule, as at the setup
        laid = next((tr.play for tr in self.tiles.values() if tr.status == "layout" and tr.key == c.key
                     and tr.play is not None), None)
        if laid is not None:
            why, kind = (f"the line of play holds the set's only {Tile(*c.key)} (laid at {laid.t:.1f} s)",
                         "repeats_line")
        elif floor is not None and c.det_score < floor and c.status != "unplaced":
            why, kind = (f"its box scored {c.det_score:.2f}, under {floor:g}, as a game board's printed dominoes do",
                         "weak_box")
        elif c.status != "unplaced" and (beside := self._picture_beside(c)) is not None:
            why, kind = (f"it lies against {Tile(*beside.key)}, a picture, as a game board's track of printed "
                         "dominoes does"), "beside_picture"
        elif c.status != "unplaced" and c.first_frame == frame and self.state is not None \
                and self._unchanged(c.polygon_px):
            why, kind = ("it was first boxed where the table did not change since the last read: it lay there "
                         "unboxed, as a game board's printed dominoes do"), "was_there"
        else:
            return None
        unplaced, c.scenery, c.picture = c.status == "unplaced", True, True
        return Notice("picture_tile", t, frame, f"face-up tile {Tile(*c.key)} touching no open end is a picture of a "
                      f"tile, not a play: {why}", tile=c.key,
                      details={"why": kind, "unplaced": unplaced, "box_score": round(c.det_score, 3)})

    def _picture_read_again(self, tr: TrackedTile, o: _Obs, how: str, rel: float) -> bool:
        """Whether tracked tile ``tr``, a picture of a tile (scenery, never moved), matched to read ``o`` at its
        place (``how`` ``near`` or ``reread``, ``rel`` tile lengths off, within ``reread_radius``) with its box
        turned or shifted past the noise, is that picture read again and not a tile a hand moved. It is when the
        gate saw what changed and where arms reached since the last read, and under
        :data:`PICTURE_TOUCHED_SHARE` of the old box and of the new one was touched; or, an arm over it or no
        gate (photos), when its own pixels did not move: :data:`PICTURE_STILL_SHARE` of the textured pixels of
        the crop kept where it lay are the same in the new read's crop. Else False: a move.
        helper-257: on jersey-partnership seed 5's game board a printed 0|5, read again as 3-0 with its box
        2.5 mm off and turned once W's 2-4 lay over its end, was taken for a tile moved: no picture rule held
        it, and it touched no open end. helper-261: the same on nova-block seed 5, where the arm laying the 2-4
        had crossed it."""
        if (not (tr.picture and tr.scenery) or tr.moved or tr.face != "up" or how == "far"
                or rel > self.config.reread_radius):
            return False
        touched = self._motion.touched_mask() if self._motion is not None else None
        if touched is not None and max(changed_share(tr.polygon_px, touched),
                                       changed_share(o.obs.polygon_px, touched)) < PICTURE_TOUCHED_SHARE:
            return True
        patch = getattr(o.obs, "patch", None)
        if tr.patch is None or patch is None:
            return False
        still = still_share(tr.patch, patch)
        return still is not None and still >= PICTURE_STILL_SHARE

    def _unchanged(self, polygon_px: np.ndarray) -> bool:
        """Whether the gate saw the table change under less than :data:`UNCHANGED_SHARE` of the box
        ``polygon_px`` ((4, 2) frame px) since the last read, arms left out: no tile was laid or taken there.
        False when this read has no change mask (photos, the first read, no gate)."""
        changed = self._motion.changed_mask() if self._motion is not None else None
        return changed is not None and changed_share(polygon_px, changed) < UNCHANGED_SHARE

    def _picture_beside(self, c: TrackedTile) -> TrackedTile | None:
        """The nearest tile taken for a picture (scenery, never moved since) whose centre lies within
        :data:`PICTURE_TRACK_TILES` tile lengths of face-up tile ``c``'s, else None. A game board prints its
        dominoes in touching tracks, end to end or side by side, and the detector first boxes some of them
        during play: helper-254, jersey-partnership seed 5 on a game board,
        a printed 6-1 first boxed at 10.2 s (0.55, against a printed 4-2 boxed 0.35 in the same read), a 6-5
        beside a printed 5-6 and a 6-0 misread on a printed 0-3 touched no open end, and the hand, right, read
        "Score (not final)"."""
        near = [(float(np.linalg.norm(tr.geom.center - c.geom.center)), tr.id, tr) for tr in self.tiles.values()
                if tr is not c and tr.picture and tr.scenery and tr.face == "up" and tr.key is not None]
        near = [n for n in near if n[0] <= PICTURE_TRACK_TILES * c.geom.length]
        return min(near)[2] if near else None

    def _announce(self, frame: int, t: float, done: list, missed: bool) -> list:
        """The events of the plays ``_emit`` laid (``done``): the passes before each, the play, and an
        ``uncertain_read`` notice for those with doubts (``missed``: laid together, a state was missed)."""
        events: list = []
        for ev, reasons, source, before in done:
            events += before
            events.append(ev)
            if missed:
                reasons = reasons + ["missed_state"]
            if reasons:
                tile = (ev.tile.a, ev.tile.b)
                events.append(Notice("uncertain_read", t, frame,
                                     f"uncertain play {ev.tile} on {ev.end or 'lead'} by {ev.seat}: "
                                     + ", ".join(reasons), tile=tile, seat=ev.seat,
                                     details={"reasons": reasons, "confidence": ev.confidence,
                                              "end": ev.end or "lead", "seat_source": source}))
        return events

    def _lay_held(self, frame: int, t: float, held: list[TrackedTile]) -> list:
        """Lay the ``held`` tiles (unplaced, unmoved: laid against a play the umpire voided, say) that touch
        an open end now that the umpire changed the line (the void undone): in the order they came, each by
        the arm seen then (:attr:`TrackedTile.votes`), before this read's draws and new tiles, which came
        after them. Taken with this read's arm, a held tile went to the seat that laid the new one, the new
        one to the seat after it, and every turn after that followed one seat off (helper-100, the demo:
        N 10 S 40 for N 15 S 35). Returns the events (the rest wait, unplaced, as before).

        The tiles laid while the hand stood ended (the umpire's end voided: an End pressed by mistake, a
        redeal penalty undone) come after the others, read by read as they were seen
        (:meth:`vision.hand_end.HandEndWatch.replay`), each read's boneyard drops first as draws of the seat to
        play then, each play with its read's time."""
        busy = self.record_sync.pending  # recorded plays not found yet: wait for them
        if self.lop.lead is None or self.judge.state.over or busy:
            return []
        held = [c for c in held if not c.scenery and not c.old]
        return self.hand_end.replay(frame, t, held, self._lay,
                                    lambda f, lt, seen: late_draws(self.boneyard, self.judge, f, lt, seen))

    def _lay(self, frame: int, t: float, held: list[TrackedTile], events: list | None = None) -> list:
        """Lay those of ``held`` that touch an open end, one at a time (see :meth:`_lay_held`). Returns the
        events, or, given ``events``, adds them to it and returns the tiles left waiting."""
        done: list = []
        notices: list = []
        held = list(held)
        visits = self.turns.visits  # the arms seen since the last play are this read's, not the held tiles'
        while True:
            fits = ((c, self.lop.assign(c.geom, c.pips, c.confidence)) for c in held)
            c, fit = next(((c, f) for c, f in fits if f is not None), (None, None))
            if c is None:
                self.turns.visits = visits
                out = self._announce(frame, t, done, missed=False) + notices
                if events is None:
                    return out
                events += out
                return held
            held.remove(c)
            self._emit(frame, t, c, fit, done, notices, c.votes or {})

    def _unlike_the_set(self, pending: list[TrackedTile], frame: int, t: float) -> list:
        """Mark as scenery the new face-up tiles unlike the line's tiles (``set_colour_max_de``) when
        one read with them is like them; returns an ``unlike_set`` notice for each."""
        limit = self.config.set_colour_max_de
        # judged during play, outside hand areas (shown hands are the set's tiles; a picture uncovered
        # after the end is no play anyway)
        pending = [c for c in pending if not self.in_hand_zone(c.geom)]
        if limit is None or len(pending) < 2 or self.judge.state.over:
            return []  # a lone new tile is always judged by its fit: glare can lighten a real tile
        line = [tr.face_lab for tr in self.tiles.values() if tr.status == "layout" and tr.face_lab is not None]
        if len(line) < 2:
            return []
        ref = tuple(float(v) for v in np.median(np.array(line), axis=0))
        far = [(c, lab_distance(c.face_lab, ref)) for c in pending if c.face_lab is not None]
        sure = self.config.uncertain_confidence  # an arm over a tile spoils its read and its colour alike
        if not any(d <= limit / 2 and c.confidence >= sure for c, d in far):
            return []  # nothing new clearly looks like the set: no sign which of them is the picture
        notices = []
        for c, d in far:
            if d > limit:
                c.scenery = c.picture = True  # until someone moves it, as a board's printed tiles at the setup
                notices.append(Notice("unlike_set", t, frame,
                                      f"face-up tile {Tile(*c.key)} looks unlike the tiles of the line of play (colour "
                                      f"difference {d:.0f}; a printed picture?): not a play", tile=c.key,
                                      details={"colour_difference": round(d, 1)}))
        return notices

    def _next_context(self) -> HandContext:
        """The context of the hand after this one, as far as the tracker knows it."""
        leader, required = self.judge.state.next_lead()
        return HandContext(leader, required, number=self.hand.context.number + 1)

    def bind_recorded(self, c: TrackedTile, rec: RecordedPlay, frame: int, t: float) -> None:
        """Tracked tile ``c`` shows recorded play ``rec`` (already laid in the line of play): a play
        of the tracker's, emitted by no one (:class:`vision.record_binding.RecordBinder`)."""
        pr = PlayRecord(rec.seat, rec.tile, rec.end or "lead", c.id, t, frame)
        self.plays.append(pr)
        c.status, c.play, c.scenery = "layout", pr, False

    def start_over(self, frame: int, t: float, new_hand: bool = True) -> list:
        """Another match began at the table (the umpire's choice; its hands are numbered from 1):
        every face-up tile on the table now (the old match's layout, often not cleared yet; before
        the first read, the tiles that read shows) is ``old``: never the new match's play, even when
        it moves as the layout is swept off, until it is gone.

        Args:
            frame, t: the frame index and time (s) of the notice.
            new_hand: start a new hand with no context (False: the hand in progress has no plays and
                is already the new match's first).

        Returns:
            with ``new_hand``, a ``hand_cleared`` notice (the caller opens the new hand, as after a
            cleared layout); else nothing.
        """
        if self.state is None:
            self._old_layout_at_start = True
        for tr in self.tiles.values():
            tr.old = tr.old or tr.face == "up"
        if not new_hand:
            return []
        self.new_hand(None)
        return [Notice("hand_cleared", t, frame, "another match began: a new hand starts; the tiles on "
                       "the table now are none of its plays")]

    def cleared_meanwhile(self, frame: int, t: float, keys: set[tuple[int, int]]) -> list:
        """The recorded layout is not on the table: a new hand. Tiles of the old hand still lying
        there (a table half cleared) are scenery until moved, not the new hand's plays."""
        self.new_hand(self._next_context())
        for tr in self.tiles.values():
            if tr.face == "up" and tr.key in keys:
                tr.scenery = True
        return [Notice("hand_cleared", t, frame, "the layout was cleared: a new hand starts")]

    def _setup_scenery(self, tiles: list[TrackedTile]) -> None:
        """Face-up tiles already on the table at the first read: a hand in progress unless most of
        their contacts do not match, which is a game board's printed dominoes (tracks of touching
        tiles whose halves do not match), scenery until moved. Boxed confidently (ivory tiles on a
        board) they became the lead and every real play touched no end. Contacts, not one chain:
        a spinner's arms or a stray tile must not turn a real layout into scenery. A single tile
        keeps the score rule (``setup_min_score``). A folder of photos has no score rule (its first
        photo may show the lead just laid), so there several tiles with no matching contact at all are
        scenery too: neither one lead nor a line in progress (helper-84: a board's printed 3-0, 5-0
        and 2-6, apart, became the lead and two plays)."""
        shown = [tr for tr in tiles if tr.face == "up" and not self.in_hand_zone(tr.geom) and tr.pips is not None
                 and tr.status != "layout"]
        if not self.plays and sum(t.face == "down" for t in tiles) >= len(full_set(self.rules.set_max)):
            # every tile of the set lies face down: the dealt table, nothing played; a face-up tile not boxed as
            # surely as a real tile is a picture (helper-201: a board's printed 0-1, boxed 0.53 beside 28 face-down
            # tiles, led fives-and-threes seed 12's hand and none of its plays touched an open end). A sure box
            # stays: a false face-down box on marble (0.55-0.85) makes 27 tiles and a lead just laid look dealt
            for tr in shown:
                if tr.det_score < DEALT_PICTURE_MAX_SCORE:
                    tr.scenery = tr.picture = True
            # all of them stay in the contacts below: a board's printed track, boxed 0.6-0.9 (ivory), is told by them
        if len(shown) == 1 and self._dealt_picture(shown[0]):
            shown[0].scenery = shown[0].picture = True
        if len(shown) < 2:
            return
        matched = mismatched = 0
        touching: set[int] = set()  # ids of the tiles in contact with another shown tile
        for i, a in enumerate(shown):
            lop = LineOfPlay()
            lop.set_lead(a.geom, a.pips)
            for b in shown[i + 1:]:
                fit = lop.assign(b.geom, b.pips)
                if fit is not None:
                    matched, mismatched = matched + fit.pip_match, mismatched + (not fit.pip_match)
                    touching |= {a.id, b.id}
        if mismatched > matched or (self.config.setup_min_score is None and matched == 0):
            lead = self._lead_shown(shown, touching)
            for tr in shown:
                if tr is not lead:
                    tr.scenery = tr.picture = True

    def _dealt_picture(self, tr: TrackedTile) -> bool:
        """A folder's first photo (no score rule at the setup) shows one face-up tile, boxed under the
        score a camera's setup leaves out (``TrackerConfig.setup_min_score``'s default, 0.35: a board's
        printed domino scores 0.2-0.35, a real tile 0.5-0.95), and the rule set requires another lead (6-6
        in a first hand of lisa-b): a picture. A real wrong lead boxed confidently stays a play
        (``wrong_start``). lisa-b-all-fives seed 3 on a board, a photo of every event: the dealt table's
        printed 6-4 (scored 0.2) became the lead and the hand recorded 6 of its 14 plays."""
        floor = TrackerConfig.setup_min_score
        if self.config.setup_min_score is not None or self.plays or tr.det_score >= floor:
            return False
        req = self.judge.state.context.required_lead
        return req is not None and tr.key != req.key

    def _lead_shown(self, shown: list[TrackedTile], touching: set[int]) -> TrackedTile | None:
        """Of the face-up tiles of the first read taken for pictures (:meth:`_setup_scenery`), the one that
        is the hand's lead already laid, nothing played yet, touching none of the others (a board's printed
        dominoes lie in touching tracks): the one tile shown that the hand must open with (the context's
        ``required_lead``: 6-6 in a first hand of lisa-b, seed 000), else the one tile boxed like a real tile
        (at ``TrackerConfig.setup_min_score``'s default, 0.35, or more) among printed ones boxed under it.
        helper-191: a folder's first photo showed the 6-6 led and a board's printed domino read 6-4, apart;
        both were taken for pictures, the 6-4 played next became the lead (``wrong_start``) and 7 of the 14
        plays touched no open end. draw seed 3 on a board, one photo per play: the 4-2 led (boxed 0.94)
        beside a printed 6-4 (0.2) went the same way, and none of the 16 plays was recorded right."""
        if self.plays:
            return None
        apart = [tr for tr in shown if tr.id not in touching]
        req = self.judge.state.context.required_lead
        if req is not None:
            found = [tr for tr in apart if tr.key == req.key]
            if found:
                return found[0] if len(found) == 1 else None
        strong = [tr for tr in shown if tr.det_score >= TrackerConfig.setup_min_score]
        return strong[0] if len(strong) == 1 and strong[0].id not in touching else None

    def _fixture(self, tr: TrackedTile) -> bool:
        """A face-up tile that is part of the table, not of the hand: a picture (a printed domino), or one
        that lay touching no open end while :data:`FIXTURE_PLAYS` plays were made. helper-159: a board's
        printed 6-4, first boxed with the lead, lay so for a whole hand; lost by a read, it was seen again
        once the line was swept and became the next hand's lead, and every real play touched no end."""
        if tr.face != "up" or tr.status == "layout" or tr.key is None:
            return False
        return (tr.scenery and tr.picture) or (tr.status == "unplaced" and tr.unplaced_at is not None
                                               and len(self.plays) - tr.unplaced_at >= FIXTURE_PLAYS)

    def _at_fixture_spot(self, tr: TrackedTile) -> bool:
        """Whether ``tr`` is read with the pips of a :meth:`_fixture` a read lost, within
        :data:`FIXTURE_SPOT_TILES` tile lengths of where it lay."""
        return tr.key is not None and any(
            key == tr.key and float(np.linalg.norm(tr.geom.center - c)) < FIXTURE_SPOT_TILES * length
            for key, c, length in self._fixture_spots)

    def _choose_lead(self, pending: list[TrackedTile]) -> TrackedTile | None:
        """The lead among new face-up tiles outside hand areas: the one most others chain from with
        matching pips (a board's printed dominoes boxed beside the real lead touch with halves that do
        not match: helper-84, a printed 6-5 and 4-1 chosen over the real 6-6), then the tile the hand
        must open with (the context's ``required_lead``: a line first seen whole chains as far from
        either end tile as from its middle; helper-204, one photo of the demo's line rebuilt from its
        0-6 end: "S led 0-6", a ``wrong_start`` the players never made), then the surest read."""
        options = [c for c in pending if not self.in_hand_zone(c.geom)]
        if len(options) <= 1:
            return options[0] if options else None
        req = self.judge.state.context.required_lead
        best = None
        for c in options:
            lop = LineOfPlay()
            lop.set_lead(c.geom, c.pips)
            rest = [o for o in options if o is not c]
            n, progress = 0, True
            while progress and rest:
                progress = False
                for o in rest:
                    f = lop.assign(o.geom, o.pips)
                    if f is not None and f.pip_match:
                        lop.place(f, o.geom, o.pips)
                        rest.remove(o)
                        n, progress = n + 1, True
                        break
            score = (n, req is not None and c.key == req.key, c.confidence)
            if best is None or score > best[0]:
                best = (score, c)
        return best[1]

    def _emit(self, frame: int, t: float, tr: TrackedTile, fit: EndFit, done: list, notices: list,
              votes: dict[str, float]) -> None:
        """Build the Play for ``tr`` at ``fit``, append it to the hand and lay it in the line of play.

        ``votes``: the entry votes of the arm that laid it (a read's arm for its first play only: one arm
        lays one tile). A tile the tracker's hand knows a seat took back (``HandState.taken_back``) is laid by
        that seat, whatever the votes (seat source ``take_back``). Appends ``(play, reasons it is uncertain,
        seat source, events before it)`` to ``done`` (the events before it: inferred ``Pass`` events and their
        notices), or a ``rejected`` notice to ``notices`` when the engine refuses it (once per refusal: the tile
        keeps it in ``TrackedTile.refused`` and is tried again at later reads, :meth:`update`).
        """
        st = self.hand.state
        holder = st.taken_back.get(tr.key) if tr.key is not None else None
        if holder is not None:
            # a tile taken back is in that seat's hand (the set holds it once): only it can lay it again. The
            # read's hand losses are the next play's (helper-220: the re-laid 6-0 went to N, whose 0-0 laid
            # with it had lost a tile, was refused, and the W arm was lost for the rest of the hand)
            choice = SeatChoice(holder, "take_back", 1.0, False)
        else:
            choice = attribute_seat(votes, st.turn, st.order, self.config.seat_prior, self.config.min_seat_votes)
        is_lead = fit.end == "lead"
        conf = float(fit.confidence)
        ev = Play(seat=choice.seat, tile=list(fit.tile), end=None if is_lead else fit.end, oriented=True,
                  confidence=round(conf, 4), seat_by_turn=choice.uncertain, t=t, frame=frame)
        skipped = self.turns.skipped_seats(choice, is_lead, st)
        passes = self.turns.passes(skipped, t, frame, self._nothing_to_draw())
        passes, warning = self.turns.check_seats(choice, skipped, passes, t, frame, st.order, self.rules.name, self.fit)
        # the arm among all four edges, the rule set's seats or not: more seats than it has is a misfit
        arm = attribute_seat(votes, None, list(SEATS), 0.0, self.config.min_seat_votes)
        misfit = self.fit.laid_by(None if arm.uncertain or arm.source != "entry" else arm.seat, st.order, t, frame)
        if passes:
            try:  # the passes go in only with the play they explain
                replay(self.hand.rules, self.hand.log + passes + [ev], self.hand.context)
            except IllegalEvent:
                passes = []
        for p in passes:
            self._append(p)
        before = set(st.layout.arms)
        try:
            out = self._append(ev)
        except IllegalEvent as exc:
            if tr.refused != str(exc):  # tried again at each read (update): a refusal is said once
                notices.append(Notice("rejected", t, frame, str(exc), tile=tr.key, seat=choice.seat,
                                      details={"event": "play", "end": fit.end}))
                notices[:0] = ([warning] if warning is not None else []) + misfit
            tr.refused = str(exc)
            return
        tr.refused = None
        pre: list = ([warning] if warning is not None else []) + misfit
        pre += self.turns.played(choice, skipped, passes, ev, t, frame, self.photos)
        spinner = None
        if out.placement is not None and out.placement.became_spinner:
            spinner = spinner_arms_opened(self.hand.state.layout, before)
        if is_lead:
            self.lop.set_lead(tr.geom, tr.pips, spinner)
        else:
            self.lop.place(fit, tr.geom, tr.pips, spinner)
        pr = PlayRecord(choice.seat, Tile(*fit.tile), fit.end, tr.id, t, frame)
        self.plays.append(pr)
        tr.status, tr.play, tr.votes = "layout", pr, dict(votes)  # votes: laid again by them (sync)
        reasons = []
        if fit.fit < 0.5:
            reasons.append("weak_contact")
        if not fit.pip_match and conf < self.config.uncertain_confidence:
            reasons.append("pips_do_not_match_end")  # a confident mismatch is the engine's flag, not ours
        if not is_lead and fit.runner_up > 0.7 * fit.fit * (1.0 if fit.pip_match else 0.35):
            reasons.append("ambiguous_end")
        if conf < self.config.uncertain_confidence:
            reasons.append("low_confidence")
        if choice.uncertain:
            reasons.append("seat_by_turn")
        done.append((ev, reasons, choice.source, pre))


def play_slot(log: list, pr: PlayRecord | Play) -> int | None:
    """The slot of ``log`` (corrections applied) holding the play ``pr`` (a tracker's record, or a play event
    of another log) recorded: same seat, frame and tile; None when there is none."""
    return next((i for i, ev in effective(log) if isinstance(ev, Play) and ev.seat == pr.seat
                 and ev.frame == pr.frame and ev.tile.key == pr.tile.key), None)


def _overlaps(polygon_px: np.ndarray, box: tuple[int, int, int, int]) -> bool:
    """Whether a (4, 2) px polygon's bounding box meets ``box`` = (x0, y0, x1, y1)."""
    p = np.asarray(polygon_px).reshape(-1, 2)
    x0, y0, x1, y1 = box
    return not (p[:, 0].max() < x0 or p[:, 0].min() > x1 or p[:, 1].max() < y0 or p[:, 1].min() > y1)


def track_frames(frames: Iterable[tuple[int, float, np.ndarray]], recognize: Callable[[np.ndarray], list],
                 tracker: Tracker, gate: MotionGate | None = None) -> Iterator[tuple[int, float, list]]:
    """Run gate -> recognizer -> tracker over frames; yields ``(frame_index, t, events)`` when events happen
    (after the last frame, those of :meth:`Tracker.finish`).

    Args:
        frames: ``(frame_index, t_seconds, image)`` (a :mod:`vision.sources` source).
        recognize: image -> list of :class:`~vision.observation.TileObservation`
            (e.g. ``lambda im: recognizer(im, profile)``); only called on frames the gate reads.
        tracker: the tracker.
        gate: the motion gate (default: one with the tracker's ``still_window_s``).
    """
    gate = gate or MotionGate(still_window_s=tracker.config.still_window_s)
    last = None
    for idx, t, image in frames:
        info = gate.update(idx, t, image, roi_px=tracker.roi_px())
        obs = recognize(image) if info.read else None
        events = tracker.update(idx, t, obs, info)
        if tracker.wants_read:
            gate.request_read()
        if events:
            yield idx, t, events
        last = (idx, t)
    if last is not None and (events := tracker.finish(*last)):  # the end settles what waits for reads
        yield last[0], last[1], events

