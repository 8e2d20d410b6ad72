"""``dominocast review``: footage (a video or a time-lapse folder) to a scored game record.

Composes the library pieces: ``vision.sources`` (frames) -> :class:`service.review_pipeline.FramePipeline`
(``vision.motion.MotionGate``: read only when the table is still -> ``vision.recognize.Recognizer``: tiles
-> ``vision.tracking.Tracker``: placements -> engine events) -> :class:`ReviewSession` (``engine.hand.Hand``:
points, flags) -> outputs in ``out_dir`` (:mod:`service.review_output`):

* ``events.jsonl``: one JSON object per line, flushed as each event happens, so a review that
  dies midway keeps everything already written (``docs/record-format.md``);
* ``record.json``: the game record (``engine/record.py``), with the summary's warnings;
* ``annotated.webm``: the footage with detections, open ends, score and flags drawn (VP8, which
  browsers play: ``report.html`` shows it; ``annotated.mp4`` where OpenCV cannot encode VP8);
* ``report.html`` + ``snapshots/``: timeline with snapshots, score chart, flags.

A mismatched end read with confidence below ``confident`` is reported as an
``uncertain_read`` flag for the umpire, never as a mismatched end. Tiles placed after the
hand ended (``after_hand_end``), footage with fewer seats than the rule set
(``seats_unseen``) and draws, a boneyard, hands at the deal, a lock or more seats than the rule set
has (``rules_misfit``, ``vision/rules_fit.py``) are flags too; the summary's ``status`` and
``warnings`` (also at the top of the report; worded in :mod:`service.review_summary`) say when the
score is not final.

A folder holds one review: the files of an earlier one move to ``previous/`` when a new one starts
(:mod:`service.review_folder`), so a new review that fails loses nothing. A photo in a folder that
cannot be decoded, or shows another table (:mod:`vision.photo_scene`), is skipped with an
``unreadable_image`` notice row; a review stopped by
Ctrl-C (``KeyboardInterrupt``) still writes its record and report, marked partial. Rows of a
folder's photos carry ``file``, the photo they come from.

``rules=None`` (``--rules none``, free-form boards): no rule set, so no turns, seats, line of
play or score. The tracker (which follows a line of play) only keeps tiles by identity and place:
of its notices only the geometric ones (``FREE_FORM_NOTICES``) are written, without a seat; every
new physical tile is one ``placement`` row (detections that overlap one already counted, in the
same read or an earlier one, are that tile again).

The names of the modules split off from this one are importable from here as before (the CLI, the
live service, the benches and the tests use them).
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from engine.events import Correction, Deal, Draw, HandEnd, Pass, Play, Reveal, TakeBack, effective
from engine.files import readable, write_text_atomic
from engine.hand import Hand, IllegalEvent
from engine.match import first_context, next_context, replay_match
from engine.notation import format_event
from engine.record import record_from_match, to_json
from engine.ruleset import Ruleset
from engine.tiles import Tile
from engine.timeline import outcome_row, result_text
from service.read_flags import CONFIDENT, as_read, turn_in_doubt
from service.report import plural, write_report
# the folder, output, pipeline and summary names are re-exported: callers import them from service.review
from service.review_folder import (PARTIAL, PARTIAL_KINDS, PREVIOUS, REVIEW_FILES, SNAPSHOT_NAME,  # noqa: F401
                                   check_review_folder, edited_record, finished_review, keep_edited_record,
                                   keep_previous, moved_by_review, review_files)
from service.review_output import END_CARD_BGR, FLAG_BANNER_BGR, ReviewOutputs, draw_frame  # noqa: F401
from service.review_pipeline import (ARM_IN_PHOTO, FramePipeline, ReadAhead, arm_notices,  # noqa: F401
                                     one_table_folder, quiet_look_t)
from service.review_summary import (NO_CALIBRATION_WARNING, NO_VIDEO, SKIPPED_WHY, ReviewSummary, Warned,  # noqa: F401
                                    arm_photos_warning, awaiting_reveal_status, camera_moved_warning,
                                    draws_late_warning, earlier_review_notes, hand_over_status, late_warning,
                                    muted_turns_warning, never_read_warning, off_table_warning, out_of_order_warning,
                                    overexposed_warning, report_subtitle, score_final, seats_by_turn_warning,
                                    small_tiles_warning, transparent_note, turned_photos_warning, unfinished_what,
                                    unplaced_warning, warning_kind)
from service.video_out import VIDEO_NAMES
from service.views import in_turn_order, key_order
from vision.obb import polygon_iou
from vision.pip_reader import FLAG_PIPS_BEYOND_SET, beyond_set_message
from vision.placements import SIDE_TO_SEAT, Notice
from vision.recognize import READABLE_TILE_PX, profile_tile_px
from vision.rules_fit import READ_SET_MAX
from vision.sources import FrameSource, Quiet, SourceError
from vision.tracking import play_slot

FLAG_BANNER_S = 3.0
#: Seconds the annotated video holds its last frame when the footage's end decided something (a hand
#: ended by the hands shown at the very end): the final score on screen.
END_CARD_S = 2.0
#: Tracker notices that are flags for the umpire (rows of type ``flag``, counted, on the banner).
FLAG_NOTICES = ("uncertain_read", "after_hand_end", "seats_unseen", "rules_misfit")
#: Row types that are not engine events; in a scored review they carry ``game`` and ``hand`` too.
NOTE_ROW_TYPES = ("flag", "notice", "vision_notice")
#: Tracker notices written with ``rules=None``: what a tile did, with no turn, seat or line of play.
FREE_FORM_NOTICES = ("bump", "moved", "reread", "tile_missing", "arm_in_photo", "overexposed")
#: Free-form: a detection overlapping a counted tile by this fraction of the smaller outline is that tile.
SAME_TILE_OVERLAP = 0.3
#: Free-form: detections read less confidently than this are not counted as tiles.
FREE_FORM_MIN_CONFIDENCE = 0.3
#: Frame rate of the annotated video of a live camera or stream (its frames come irregularly).
LIVE_VIDEO_FPS = 10.0
#: Sure tiles (``Recognizer.last_off_table_sure``) dropped off the calibrated table over a review that make
#: it doubt the profile: at least this many, and one per read (a tile held up over the edge now and then).
OFF_TABLE_DOUBT_MIN = 3
#: Photos between which the camera moved (``Tracker.camera_moves``) that make a calibrated review warn:
#: the calibration fits the camera where it stood (one move may be a bump, mended by following it).
CAMERA_MOVES_WARN = 2
#: Reads with a tile flagged ``pips_beyond_set`` (a half with more pips than the models read) that make a review
#: warn that the set is larger than double six: held over two reads, as other evidence is (one read: a speck).
BEYOND_READS = 2
#: A review says so when at least this share of its plays (and 2) took their seat from the turn order.
SEATS_BY_TURN_WARN = 0.25
#: Clear reads in a row of another tile that correct a play read unsure (``TrackerConfig.reread_fix_reads``):
#: two, so that one stray read does not rewrite the record (the demo's folder: 3-1 and 6-4 read at 0.91-0.92 in
#: every photo after the one an arm covered them in).
REREAD_FIX_READS = 2


def _open_hand(rules: Ruleset, context) -> Hand:
    """A new engine hand; with a boneyard, an empty deal (the camera cannot count unseen draws)."""
    hand = Hand(rules, context)
    if rules.boneyard:
        hand.append(Deal(hands={}, draws_seen=False))
    return hand


def _played(hand: Hand | None) -> bool:
    """Whether anything but the deal is in ``hand``'s log."""
    return hand is not None and any(not isinstance(e, Deal) for e in hand.log)


class ReviewSession:
    """Turns frames into rows and files; one hand (free-form boards: ``rules=None``).

    Args:
        rules: the rule set, or None for ``--rules none`` (placements and identities only).
        recognize: image -> list of TileObservation (e.g. ``lambda im: recognizer(im, profile)``).
        out_dir: output folder (created).
        profile: calibration profile (table mm) or None.
        confident: read confidence below which a mismatched end is an ``uncertain_read``.
        annotate: write the annotated video (``annotated.webm``, :mod:`service.video_out`).
        still_window_s: seconds the table must be still before a read.
        timelapse: every frame is a stable state (a folder of photos, one per move): read
            every frame, no motion gate.
        live: a camera, stream or followed folder: it stops, it does not end; its output folder is left
            untouched until its first frame (or a photo skipped) comes: stopped before, nothing is written.
    """

    def __init__(self, rules: Ruleset | None, recognize: Callable, out_dir: Path, profile=None,
                 confident: float = CONFIDENT, annotate: bool = True, still_window_s: float = 0.5,
                 timelapse: bool = False, on_row: Callable[[dict], None] | None = None,
                 min_confidence: float = FREE_FORM_MIN_CONFIDENCE, live: bool = False):
        self.rules = rules
        self.min_confidence = min_confidence
        self.recognize = recognize
        self.summary = ReviewSummary(out_dir, free_form=rules is None, photos=timelapse)
        self.out = ReviewOutputs(out_dir, annotate, on_row, lazy=live, on_open=self._earlier_review_said)
        self.confident = confident
        self.pipeline = FramePipeline(rules or _free_form_rules(), recognize, profile,
                                      still_window_s=still_window_s, timelapse=timelapse)
        self.tracker = self.pipeline.tracker
        if rules is not None:  # a play read unsure is corrected by clear reads later (the service's umpire decides)
            self.tracker.config = replace(self.tracker.config, reread_fix_reads=REREAD_FIX_READS)
        self.gate = self.pipeline.gate
        # the first hand as the record's replay opens it: with the opener the rule set requires (helper-111:
        # a wrong lead's wrong_start was in record.json but not in the review's rows and summary)
        self.hand = _open_hand(rules, first_context(rules)) if rules is not None else None
        self.files: list[Path] | None = None  # a folder's photos by frame index: rows carry ``file``
        self.live = live
        self.score: dict[str, int] = dict(self.hand.state.scores) if self.hand else {}
        self._sides = key_order(rules)  # the score's sides as the rows, the summary and the video list them
        self._seen_ids: set[int] = set()
        self._seen_polys: list[np.ndarray] = []
        self._banner: tuple[str, float] | None = None
        self._late: list[Notice] = []  # after_hand_end notices
        self._unplaced: list[Notice] = []  # unplaced_tile notices: face-up tiles off the line of play
        self._arm_photos: list[Notice] = []  # arm_in_photo notices: a folder's photos with arms over the table
        self._overexposed: list[Notice] = []  # overexposed notices: reads of a picture largely clipped white
        self._gap_photos: list[Notice] = []  # tile_missing notices of a folder's photo lacking a tile for it alone
        self._flag_rows: list[dict] = []  # the flag rows, as summary.flag_lines says them (a camera fix resolves some)
        #: ``{index: share}`` of a folder's photos that had transparent pixels, filled with grey (the
        #: source's :attr:`vision.sources.ImageFolderSource.transparent`, filled as it is read)
        self.transparent: dict[int, float] = {}
        self._draws_late: list[str] = []  # a folder's photos whose draw was flagged out of turn (see finish)
        self._muted_turns = 0  # plays whose out_of_turn flag names a seat the footage does not show
        self._seats_by_turn = 0  # plays the camera gave to the seat whose turn it was (Play.seat_by_turn)
        #: reads with a face-up tile whose half showed more pips than the models read, and the most in one read
        self._beyond_reads, self._beyond_tiles = 0, 0
        self._done: list[Hand] = []  # the hands before this one: a cleared table starts the next
        self.game_no, self.hand_no = 1, 1  # the current hand's game, and its number in that game
        self._t = 0.0  # the last frame's time (s): where closing notices point in the video
        self.frame_s = 0.0  # a video file's frame time (s): its length runs to the end of its last frame

    def _earlier_review_said(self, out: ReviewOutputs) -> None:
        """Once the folder is set up: a note on where an earlier review in it went (helper-116: a second `make
        demo` moved the first review without a word)."""
        if out.moved is not None:
            videos = [f.name for f in out.dropped if f.parent == out.moved and f.name in VIDEO_NAMES]
            self.summary.notes += earlier_review_notes(out.dir, out.moved, out.dropped, out.edited, out.kept, videos)

    def feed(self, index: int, t: float, image: np.ndarray, fps: float, again: bool = False) -> None:
        """Process one frame (index, t seconds, BGR or grey image); ``again``: a second look at the
        last photo of a folder, not a frame of its own (not counted, the footage time stays)."""
        self.out.open()  # a live session's folder is set up at its first frame (nothing is written before)
        s = self.summary
        if not again:
            s.frames += 1
            s.footage_s = t + self.frame_s
            self._t = t
        obs, events = self.pipeline.step(index, t, image, each_read=self.files is not None)
        s.reads = self.pipeline.reads
        self._show(index, t, image, fps, obs, events)

    def settle(self, index: int, t: float, image: np.ndarray, fps: float) -> None:
        """The footage ended at frame ``index`` (``t`` s, its image): what waits for more reads is
        decided now (hands shown at the end of a draw game's hand end it: ``Tracker.finish``). What that
        decides is shown at the annotated video's end for :data:`END_CARD_S` (helper-92: a hand ended at
        the last frame never showed its final score in the replay)."""
        decided = lambda: (self._scores(), self.hand is not None and self.hand.state.over)  # noqa: E731
        before = decided()
        last = arm_notices(self.pipeline.photo_arms.finish()) if self.pipeline.photo_arms is not None else []
        self._show(index, t, image, fps, None, last + self.tracker.finish(index, t), video=False)
        if self.out.annotate and decided() != before:
            r = self.hand.state.result if self.hand is not None else None
            # helper-116: the held frame showed the score with no word that the hand was over
            card = f"final: hand over: {result_text(r.kind, r.winner_seat, r.note)}" if r is not None else None
            frame = self._drawn(image, t, card)
            self.out.write_frame(frame, t, fps)  # its slot is filled already: the held slots show this frame
            self.out.write_frame(frame, t + END_CARD_S, fps)

    def _drawn(self, image: np.ndarray, t: float, card: str | None = None) -> np.ndarray:
        """The annotated frame: the tiles read, the score, the open ends, a flag's banner (or the end
        ``card``'s)."""
        banner = self._banner[0] if self._banner and t - self._banner[1] < FLAG_BANNER_S else None
        open_ends = self.hand.state.layout.open_ends() if self.hand else {}
        if card is not None:
            return draw_frame(image, self.pipeline.last_obs, self._scores(), open_ends, card, END_CARD_BGR)
        return draw_frame(image, self.pipeline.last_obs, self._scores(), open_ends, banner)

    def _show(self, index: int, t: float, image: np.ndarray, fps: float, obs: list | None, events: list,
              video: bool = True) -> None:
        """Rows of a frame's events, their snapshots and (``video``) the frame of the annotated video."""
        # Rows are emitted with the raw image as a stand-in: their snapshots are saved from the frame
        # drawn below, after the events, so they show the row's own score and open ends.
        for ev in events:
            self._handle(ev, index, t, image)
        if obs is not None:  # helper-187: double-nine footage reviewed with --rules none gave no word of it
            beyond = sum(FLAG_PIPS_BEYOND_SET in o.flags for o in obs if o.face == "up")
            self._beyond_reads += beyond > 0
            self._beyond_tiles = max(self._beyond_tiles, beyond)
        if self.rules is None and obs is not None:
            self._free_form_placements(index, t, image)
        if not ((video and self.out.wants_frame(t)) or self.out.pending):
            return  # drawing costs ~3 ms a 1080p frame: only for a video frame or a snapshot
        frame = self._drawn(image, t)
        self.out.flush_snapshots(frame)
        if video:
            self.out.write_frame(frame, t, fps)

    # ---- events ---------------------------------------------------------------------------
    def _emit(self, row: dict, frame: np.ndarray | None) -> None:
        """Write a row; the rows of a folder's photo carry ``file`` (the photo's path); flag and notice
        rows of a scored review carry ``game`` and ``hand``, as event rows do."""
        if self.hand is not None and "hand" not in row and row.get("type") in NOTE_ROW_TYPES:
            row = {**row, "game": self.game_no, "hand": self.hand_no}
        i = row.get("frame")
        if self.files is not None and "file" not in row and isinstance(i, int) and 0 <= i < len(self.files):
            row = {**row, "file": str(self.files[i])}
        self.out.emit(row, frame)

    def _handle(self, ev: object, index: int, t: float, frame: np.ndarray) -> None:
        if isinstance(ev, Notice) and ev.kind == "arm_in_photo":
            self._arm_photos.append(ev)
        if isinstance(ev, Notice) and ev.kind == "overexposed":
            self._overexposed.append(ev)
        if isinstance(ev, Notice) and ev.kind == "tile_missing" and ev.details.get("out_of_order"):
            self._gap_photos.append(ev)
        if isinstance(ev, Notice) and self.hand is None:
            # free-form: no turns, seats or line of play, so no flags or notices that follow them
            if ev.kind in FREE_FORM_NOTICES:
                row = ev.to_json()
                row.pop("seat", None)
                self._emit(row, frame)
            return
        if isinstance(ev, Notice):
            if ev.kind == "hand_cleared":
                self._next_hand()
            row = ev.to_json()
            if ev.kind in FLAG_NOTICES:
                row = {**row, "type": "flag"}
                self._flag(row, t)
            if ev.kind == "hand_end_inferred":  # helper-116: said in the report and events, not on the console
                self.summary.notes.append(f"game {self.game_no} hand {self.hand_no}: {ev.message}")
            elif ev.kind in ("seats_unseen", "rules_misfit"):
                self.summary.warnings.append(Warned(ev.message, ev.kind))
                if ev.kind == "seats_unseen":  # the passes its message calls doubtful, in the summary's count too
                    self.summary.doubtful_passes += int(ev.details.get("passes_inferred_before", 0))
            elif ev.kind == "boneyard_uncounted":  # why the plays of a skipped seat are flagged, not passes
                self.summary.notes.append(f"game {self.game_no} hand {self.hand_no}: {ev.message}")
            elif ev.kind == "after_hand_end":
                self._late.append(ev)
            elif ev.kind == "unplaced_tile":
                self._unplaced.append(replace(ev, details={**ev.details, "hand": (self.game_no, self.hand_no)}))
            self._emit(row, frame)
            return
        if self.hand is None:  # free-form: placements come from the tracker's tiles
            return
        if isinstance(ev, Correction):
            self._camera_fix(ev, index, t, frame)
            return
        if not isinstance(ev, (Play, Pass, Draw, TakeBack, Reveal, HandEnd)):
            return
        if ev.t is not None:  # milliseconds are plenty, and keep the notation readable
            ev = ev.model_copy(update={"t": round(ev.t, 3)})
        outcome = self._append(ev, index, t, frame)
        if outcome is None:
            return
        for side, pts in outcome.points.items():
            self.score[side] = self.score.get(side, 0) + pts
        if isinstance(ev, Play):
            self._played_unplaced(ev.tile)
        row = outcome_row(outcome)
        # an inferred pass keeps its own time (the knock), not the read that inferred it
        row.update(t=t if ev.t is None else ev.t, frame=index if ev.frame is None else ev.frame,
                   game=self.game_no, hand=self.hand_no, score=self._scores())
        if isinstance(ev, Pass) and ev.t is not None and ev.t < t:
            # written at the play that showed it, after rows of reads between the two (helper-201: a pass at
            # 11.8 s after an unplaced_tile row at 13.0 s): the row says when it was inferred
            row["inferred_t"] = t
        conf = getattr(ev, "confidence", None)
        flags, muted = [], []
        for f in row["flags"]:
            if f["kind"] == "out_of_turn" and f.get("expected") in self.tracker.unseen_seats:
                muted.append(f)  # the seats_unseen warning covers it: a turn of a seat the footage lacks
                continue
            f = as_read(f, conf, self.confident)
            if f["kind"] == "out_of_turn" and f.get("expected") and self._boneyard_unfollowed():
                f = turn_in_doubt(f)  # a question, not an accusation
            flags.append(f)
        row["flags"] = flags
        if muted:
            row["notes"] = [f["message"] for f in muted]
            self._muted_turns += 1
        if isinstance(ev, Play):
            self.summary.plays += 1
            self._seats_by_turn += ev.seat_by_turn
        elif isinstance(ev, Draw):
            self.summary.draws += ev.count
            if self.files is not None and any(f["kind"] == "out_of_turn" for f in flags):
                self._draws_late.append(self._photo_name(row["frame"]))
        elif isinstance(ev, Pass):
            self.summary.passes += 1
        # every event of the log has its row, an inferred end too, before the points are known (its slot
        # had none: the rows' indices skipped it, and the reveals came after a gap); the review's own
        # ``hand_end`` row, without an index, follows once they are, and has the end's picture, with the
        # final score (helper-91: an inferred end after the reveals carries the award itself)
        pointless_end = isinstance(ev, HandEnd) and not any(outcome.points.values())
        self._emit(row, None if pointless_end else frame)
        # a flag, and the hand's end, are dated as the event they come from (helper-92: an inferred end
        # timed when the tiles were shown had its "hand over" row at the read that settled it, 2.6 s on)
        for f in flags:
            if f.get("notice"):  # what the rules require next (engine.hand.NOTICE_KINDS): a note, no flag
                note = {k: v for k, v in f.items() if k != "notice"}
                self._emit({"type": "notice", "t": row["t"], "frame": row["frame"], "tile": row.get("tile"), **note}, frame)
                continue
            flag_row = {"type": "flag", "t": row["t"], "frame": row["frame"], "tile": row.get("tile"), **f}
            self._flag(flag_row, t)
            self._emit(flag_row, frame)
        if outcome.result is not None:
            r = outcome.result
            self._emit({"type": "hand_end", "kind": r.kind, "t": row["t"], "frame": row["frame"], "game": self.game_no,
                        "hand": self.hand_no, "winner": r.winner_seat,
                        "side": r.winner_side, "points": r.awards, "score": self._scores()}, frame)

    def _append(self, ev: object, index: int, t: float, frame: np.ndarray):  # noqa: ANN202 - an Outcome or None
        """Append ``ev`` to this hand's log; its outcome, or None when the engine refused it (a ``rejected``
        flag row says why, and the review goes on)."""
        try:
            return self.hand.append(ev)
        except IllegalEvent as exc:
            row = {"type": "flag", "kind": "rejected", "t": t, "frame": index, "message": str(exc)}
            self._flag(row, t)
            self._emit(row, frame)
            return None

    def _camera_fix(self, fix: Correction, index: int, t: float, frame: np.ndarray) -> None:
        """The tracker corrected a play it read unsure (:meth:`vision.tracking.Tracker._reread_fix`; ``replaces``
        is a slot of its own hand's log): the same correction of this hand's play (same seat, frame and tile as
        the tracker's), a ``correction`` row (``points``: what it changed, side by side), the score as the log now
        gives it, and the flags raised on that play left out of the summary's flags and marked ``resolved_by``
        on the report page (their rows stay in events.jsonl, as ``record report`` resolves them)."""
        log = self.tracker.hand.log  # the play as the tracker had it before this correction
        upto = next((k for k, ev in enumerate(log) if ev is fix), len(log))
        was = dict(effective(log[:upto])).get(fix.replaces)
        slot = None if was is None else play_slot(self.hand.log, was)
        if slot is None:
            return  # not this hand's play (a record changed meanwhile): the reread notice stands
        fix = fix.model_copy(update={"replaces": slot, "t": None if fix.t is None else round(fix.t, 3)})
        before = dict(self.hand.state.scores)
        outcome = self._append(fix, index, t, frame)
        if outcome is None:
            return
        delta = {side: pts - before.get(side, 0) for side, pts in self.hand.state.scores.items()
                 if pts != before.get(side, 0)}
        for side, pts in delta.items():
            self.score[side] = self.score.get(side, 0) + pts
        text = format_event(fix)
        row = {**outcome_row(outcome), "type": "correction", "index": len(self.hand.log) - 1, "replaces": slot,
               "text": text, "t": t, "frame": index, "points": delta, "by": fix.by, "reason": fix.reason,
               "game": self.game_no, "hand": self.hand_no, "score": self._scores()}
        self._emit(row, frame)

        def on_play(r: dict) -> bool:  # a flag row of the play corrected (as ``record report`` resolves them)
            tile = r.get("tile")
            return (r.get("type") == "flag" and r.get("frame") == was.frame and isinstance(tile, (list, tuple))
                    and tuple(sorted(tile, reverse=True)) == was.tile.key and r.get("seat") in (None, was.seat))

        for r in self.out.rows:
            if on_play(r) and r.get("hand", self.hand_no) == self.hand_no:
                r["resolved_by"] = f"hand {self.hand_no} #{row['index']}: {text}"  # the report page's flag list
        for k in reversed([k for k, r in enumerate(self._flag_rows) if on_play(r)]):
            self._flag_rows.pop(k)
            self.summary.flag_lines.pop(k)
            self.summary.flags -= 1
        self.summary.notes.append(f"game {self.game_no} hand {self.hand_no}: play {slot} ({was.seat} {was.tile} "
                                  f"{was.end}) corrected to {format_event(outcome.event)} by the camera ({fix.reason})")

    def _played_unplaced(self, tile: Tile) -> None:
        """A play of ``tile``: the last ``unplaced_tile`` notice of it in this hand leaves the warning, as the live
        service resolves that alert once the tile is recorded as a play (helper-93): the tile off the line was
        played after all, or was a picture of it, the set having one (helper-186: a board's printed 6-4 and 4-0
        made correct hands' scores "not final"; the rows stay in events.jsonl)."""
        key, here = sorted((tile.a, tile.b)), (self.game_no, self.hand_no)
        found = [i for i, n in enumerate(self._unplaced) if sorted(n.tile or ()) == key and n.details["hand"] == here]
        if found:
            self._unplaced.pop(found[-1])

    def _boneyard_unfollowed(self) -> bool:
        """A draw game whose boneyard the camera does not follow this hand (never counted, or lost)."""
        counter = self.tracker.boneyard
        return bool(self.rules is not None and self.rules.boneyard and (counter is None or not counter.trusted))

    def _next_hand(self) -> None:
        """The table was cleared: the hand so far is done and the next one starts. The match
        (``engine.match``) says who leads it, which game it is in and that game's score so far;
        after the match's last game nothing starts (the tracker flags further plays as rejected)."""
        if self.hand is None or not _played(self.hand):
            return  # nothing was played: the same hand goes on
        match = replay_match(self.rules, [h.log for h in (*self._done, self.hand)])
        if match.over:
            return
        if self.hand.state.result is None:  # cleared before it ended: the match counts nothing for it
            self.summary.warnings.append(Warned(f"game {self.game_no} hand {self.hand_no} was cleared from the "
                                                "table before it ended: its end-of-hand points are not counted",
                                                "hand_cleared"))
        self._done.append(self.hand)
        ctx = next_context(self.rules, match.games, len(self._done) + 1)
        self.hand = _open_hand(self.rules, ctx)
        self.tracker.new_hand(ctx)  # the tracker guessed the context; the match knows it
        game = match.games[-1]
        self.game_no, self.hand_no = game.number, len(game.hands) + 1
        self.score = dict(game.scores)

    def _scores(self) -> dict[str, int]:
        """The running score, its sides in turn order (:func:`service.views.key_order`: N, E, S, W, or NS, EW),
        not the engine's name order."""
        return in_turn_order(dict(self.score), self._sides)

    def skip_unreadable(self, index: int, t: float, path: Path, message: str) -> None:
        """An image of the source that cannot be decoded: an ``unreadable_image`` notice row, no frame."""
        self.summary.skipped.append(message)
        self._emit({"type": "notice", "kind": "unreadable_image", "t": t, "frame": index, "file": str(path),
                       "message": f"{message}; skipped"}, None)

    def photos_reordered(self, message: str, names: list[str]) -> None:
        """A folder's photos read in another order than their names' (``names``, in the order read;
        :func:`service.review_pipeline.taken_order_note`): a ``photos_reordered`` notice row and a summary note."""
        self.summary.notes.append(message)
        self._emit({"type": "notice", "kind": "photos_reordered", "t": 0.0, "frame": None, "message": message,
                    "details": {"order": names}}, None)

    def source_outage(self, start_s: float, end_s: float) -> None:
        """A live source delivered no frames, or a video file has none, from ``start_s`` to
        ``end_s`` (seconds, footage time): a ``source_outage`` notice row and a summary warning
        (moves made meanwhile are read from the table afterwards: their order and seats may be wrong)."""
        message = outage_message(start_s, end_s, self.live)
        self.summary.warnings.append(Warned(message, "source_outage"))
        self._emit({"type": "notice", "kind": "source_outage", "t": round(start_s, 3), "t_end": round(end_s, 3),
                    "frame": None, "message": message}, None)

    def _photo_name(self, index: object) -> str:
        """The file name of a folder's photo ``index``; "" for a video's frame or no index."""
        ok = self.files is not None and isinstance(index, int) and 0 <= index < len(self.files)
        return Path(self.files[index]).name if ok else ""

    def _flag(self, row: dict, t: float) -> None:
        self.summary.flags += 1
        i = row.get("frame")  # a folder's photo is named, not timed (its time is only its index)
        when = self._photo_name(i) or f"t={t:.1f} s"
        self.summary.flag_lines.append(f"{when} {row['kind']}: {row.get('message', '')}")
        self._flag_rows.append(row)
        self._banner = (f"FLAG {row['kind']}: {row.get('message', '')}"[:90], t)

    def _free_form_placements(self, index: int, t: float, frame: np.ndarray) -> None:
        """``--rules none``: every new physical face-up tile on the board is a placement (no rule checks).

        What is on the footage's first read is the starting board (one ``baseline`` row), not
        placements: the review cannot tell when those tiles were put down. A folder's first photo is
        taken after the first move (README: one photo per move), so its tiles are placements
        (helper-123: the lead was left out). One tile is often
        detected more than once (overlapping outlines, maybe with other pips): the detections of a
        read are taken most confident first, and one that overlaps a tile already counted (in this
        read or before, by ``SAME_TILE_OVERLAP`` of the smaller outline) is that tile again, not a
        new one. Detections below ``min_confidence`` (printed artwork, glare) are not counted, and a
        later detection at their place is that same thing again.
        """
        if self.tracker.state is None:
            return
        first = not self._seen_ids
        fresh = [tr for tid, tr in self.tracker.tiles.items()
                 if tid not in self._seen_ids and tr.face == "up" and tr.pips is not None
                 and not self.tracker.in_hand_zone(tr.geom)]  # not tr.status: a tile its shadow hand took for a
        # shown hand (touching no open end after an end it inferred) is on the board all the same (helper-105)
        fresh.sort(key=lambda tr: (-tr.confidence, tr.id))
        self._seen_ids.update(tr.id for tr in fresh)
        self._seen_ids.add(-1)  # the baseline is taken even on an empty table
        tiles = []
        for tr in fresh:
            if any(_overlap(tr.polygon_px, p) > SAME_TILE_OVERLAP for p in self._seen_polys):
                continue  # this tile again: a second detection, or a flickering one read again
            self._seen_polys.append(tr.polygon_px)  # even when not counted: a later read there is the same thing
            if tr.confidence >= self.min_confidence:
                tiles.append(tr)
        if first:  # face-down tiles already there (a boneyard) are not placements when turned up in place
            self._seen_polys += [tr.polygon_px for tr in self.tracker.tiles.values() if tr.face != "up"]
        if first and self.files is None:
            self._emit({"type": "baseline", "t": t, "frame": index, "tiles": [list(tr.pips) for tr in tiles],
                        "message": f"{plural(len(tiles), 'face-up tile')} on the table at the start"}, frame)
            return
        for tr in tiles:
            self.summary.placements += 1
            c = tr.polygon_px.mean(0)
            row = {"type": "placement", "t": t, "frame": index, "tile": list(tr.pips),
                   "text": f"{tr.pips[0]}-{tr.pips[1]} placed at ({c[0]:.0f}, {c[1]:.0f}) px",
                   "center_px": [round(float(c[0]), 1), round(float(c[1]), 1)],
                   "confidence": round(float(tr.confidence), 3)}
            if self.tracker.profile is not None:  # calibrated: where on the table, as a player would measure it
                m = tr.geom.center
                row["center_mm"] = [round(float(m[0]), 1), round(float(m[1]), 1)]
                row["text"] = (f"{tr.pips[0]}-{tr.pips[1]} placed at x {m[0]:.0f} mm, y {m[1]:.0f} mm "
                               "from the table's corner 0")
            self._emit(row, frame)

    # ---- the end ---------------------------------------------------------------------------
    def finish(self, title: str, partial: bool = False, failure: str | None = None) -> ReviewSummary:
        """Close the files, write ``record.json`` and ``report.html``; returns the summary.

        ``partial``: the review was interrupted before the footage ended: an ``interrupted``
        notice row, and the record's title and the report say so. ``failure``: the footage could
        not be read further (a truncated video; the reason): a ``source_error`` notice row, and
        the title and report say the results are partial. A live session stopped before any frame came writes
        neither file (``summary.empty``), nor anything else unless a row was written (a photo skipped): its
        folder is as it was (:class:`ReviewOutputs` ``lazy``).
        """
        s = self.summary
        title = readable(title)  # a source named with bytes that are not UTF-8 (helper-150: record.json failed)
        if self._done and not _played(self.hand):  # a table cleared at the end opened no hand
            self.hand = self._done.pop()
            self.score = dict(replay_match(self.rules, [h.log for h in (*self._done, self.hand)]).games[-1].scores)
        s.partial = partial or failure is not None
        warning = partial_text = None

        def all_lines() -> str:  # the report's warning box: what makes the results partial, then every line
            return "\n".join([*([partial_text] if partial_text else []), *s.lines()])

        if s.partial:
            at = f"{s.footage_s:.1f} s"
            if failure is not None and not s.frames:  # helper-113: an empty review passed for a finished one
                kind, what = "source_error", f"nothing could be read ({failure})"
                title = f"{title} (partial: nothing read)"
                s.warnings.append(Warned(f"{what}: the review is empty and marked unfinished, so it never replaces "
                                         "a finished review kept in previous/", kind))
            elif failure is not None and self.files is not None:  # a folder's photos: counted, not timed
                read = plural(s.frames, "photo") + (f", {len(s.skipped)} skipped" if s.skipped else "")
                kind, what = "source_error", f"reading stopped after {read} ({failure})"
                title = f"{title} (partial: stopped after {read})"
            elif failure is not None:
                kind, what = "source_error", f"the footage could not be read after {at} ({failure})"
                title = f"{title} (partial: footage unreadable after {at})"
            else:
                kind, what = "interrupted", f"the review was interrupted at {at} of footage"
                title = f"{title} (partial: interrupted at {at})"
            warning = partial_text = Warned(f"{what[0].upper()}{what[1:]}: these results are partial.", "partial")
            self._emit({"type": "notice", "kind": kind, "t": self._t, "frame": None,
                        "message": f"{what}; the results are partial"}, None)
        if self.hand is not None and s.frames:  # no frame: nothing was watched; partial: what was seen so far
            self._hand_status()  # helper-179: Ctrl-C's summary left out the hand's status and these warnings
            small = self._tile_px()
            if small is not None and small < READABLE_TILE_PX:  # a doubt about reads, not about the rules
                s.warnings.append(small_tiles_warning(small))
            if self.tracker.profile is None and s.plays:  # helper-85: every seat wrong, and nothing said why
                s.warnings.append(NO_CALIBRATION_WARNING)
            if self._seats_by_turn >= max(2, SEATS_BY_TURN_WARN * s.plays):
                s.warnings.append(seats_by_turn_warning(self._seats_by_turn, s.plays, self._seats_hint()))
            off = self.tracker.hands_off_seats() if self.tracker.profile is None else []
            if off:
                sides = " and ".join(side for side, seat in SIDE_TO_SEAT.items() if seat in off)
                s.warnings.append(turned_photos_warning(sides, len(off), " and ".join(self.tracker.judge.state.order)))
            moves = self.tracker.camera_moves
            if self.tracker.profile is not None and moves >= CAMERA_MOVES_WARN:
                s.warnings.append(camera_moved_warning(moves))
            if s.warnings or not s.final:
                warning = all_lines()
        if s.frames and not (s.reads or s.plays or s.placements) and not s.partial and self.gate is not None:
            # e.g. a video made of one photo per move: no frame repeats long enough for the motion gate
            s.warnings.append(never_read_warning(s.frames, self.gate.still_window_s))
            warning = all_lines()
        if self._arm_photos:  # helper-108: a folder of photos taken with arms over the table, and no word of it
            s.warnings.append(arm_photos_warning([self._photo_name(ev.frame) for ev in self._arm_photos], s.frames,
                                                 scored=self.hand is not None))
        if self._gap_photos:  # helper-217: a photo out of order (a tile gone for it alone) was passed over unsaid
            s.warnings.append(out_of_order_warning([(self._photo_name(ev.frame), str(Tile(*ev.tile)))
                                                    for ev in self._gap_photos], live=self.live))
            # helper-235: photos out of order move plays and points (take-backs, plays laid again by other
            # seats) while the heading said "Final score"
            warning = all_lines()
        if self._draws_late:  # helper-110: a draw and the drawer's play in one photo come in the wrong order
            s.warnings.append(draws_late_warning(self._draws_late))
        if self._beyond_reads >= BEYOND_READS and (self.rules is None or "set_max" not in self.tracker.fit.noticed):
            # a larger set's tiles; under a rule set the deal's count may have said so (rules_misfit set_max): that
            # warning is enough. --rules none drops those notices (its tracker's rules are a stand-in), so not there
            s.warnings.append(Warned(beyond_set_message(self._beyond_tiles, READ_SET_MAX, self._beyond_reads),
                                     FLAG_PIPS_BEYOND_SET))
            warning = all_lines()
        if self._arm_photos or self._draws_late:  # the photos put the record in doubt (doubts_score)
            warning = all_lines()
        if self._overexposed:
            names = [self._photo_name(ev.frame) for ev in self._overexposed] if self.files is not None else None
            s.warnings.append(overexposed_warning(self._overexposed, s.frames, names))
            # glare on the line of play or a hand puts the score in doubt (helper-138's reviews printed wrong "final"
            # scores: a draw or a play given to the wrong seat beside it); elsewhere a doubt about reads only, which
            # the warning's words say (doubts_score)
            warning = all_lines()
        pl = self.pipeline
        if pl.off_table_sure >= max(OFF_TABLE_DOUBT_MIN, pl.reads):
            # helper-145: another table's profile dropped the hands as off the table, and the record came out
            # wrong without a word; texture beyond a table's edge scores less (OFF_TABLE_SURE_SCORE)
            s.warnings.append(off_table_warning(pl.reads, pl.off_table, pl.off_table_sure))
            warning = all_lines()
        if self.transparent:  # how those photos were read: no doubt on what was read
            s.notes.append(transparent_note([self._photo_name(i) for i in sorted(self.transparent)],
                                            max(self.transparent.values()), s.frames))
            warning = all_lines()
        if self.out.video_error:
            s.warnings.append(Warned(f"{NO_VIDEO}{self.out.video_error}", "no_video", doubts=False))
            warning = all_lines()
        # one rule for "final", shared with `record show` and `record report`, which judge the record's warnings
        # by the kinds it keeps beside them
        s.final = score_final(s.final, s.warnings)
        if self.live and not s.frames and not s.partial:  # stopped before its first photo or frame came
            s.empty = True  # nothing was watched: no record of a hand never seen, no report (the caller says so)
            self.out.close()  # open only when a row was written (a photo that could not be decoded)
            return s
        self.out.open()  # a live session that failed before its first frame: its partial results are written
        self.out.close()
        s.files["events"] = self.out.dir / "events.jsonl"
        if self.out.video is not None:
            s.files["annotated"] = self.out.video.path
        if self.hand is not None:
            logs = [h.log for h in (*self._done, self.hand)]
            match = replay_match(self.hand.rules, logs)
            # the warnings go into the record too: `record report` shows them, as this report does (helper-169)
            warned = [*([partial_text] if partial_text else []), *s.warnings]
            record = record_from_match(self.hand.rules, logs, meta={"title": title}, warnings=warned,
                                       warning_kinds=[warning_kind(w) for w in warned])
            path = self.out.dir / "record.json"
            write_text_atomic(path, to_json(record))  # an earlier review's record stays whole if this fails
            s.files["record"] = path
            s.standings = match.standings()
        s.score = self._scores()
        if self.hand is not None and self.hand.rules.standings == "cumulative_pips":
            # seed 002: players are ranked by the pips left in their hands, not by points
            s.score, s.score_unit = {side: pips for side, _, pips in s.standings}, "pips left"
        subtitle = report_subtitle(s, self.rules.name if self.rules else "none")
        video = self.out.video.path.name if self.out.video is not None else None
        unit = "pips" if self.rules is not None and self.rules.standings == "cumulative_pips" else "points"
        s.files["report"] = write_report(self.out.dir / "report.html", title, subtitle, self.out.rows,
                                         self.out.snapshots, s.standings, warning, video, unit=unit,
                                         score_ends=self.rules is not None and self.rules.score_ends)
        return s

    def _tile_px(self) -> float | None:
        """A tile's long side in px: from the calibration profile, else the size the recognizer found."""
        if self.tracker.profile is not None:
            return profile_tile_px(self.tracker.profile)
        return getattr(getattr(self.recognize, "recognizer", self.recognize), "last_tile_px", None)

    def _seats_hint(self) -> str:
        """The second line of the warning on plays that took their seat from the turn order: what tells the seats
        (no calibration), the ``--seats`` to calibrate with when arms came from seats the rule set does not seat
        (:func:`vision.rules_fit.seats_turned`), else what to check."""
        profile = self.tracker.profile
        if profile is None:
            return "check them: a hand shown in the photos, or a calibration, tells them"
        from calibration.seats import seat_spec
        from vision.rules_fit import seats_turned

        turned = seats_turned(self.tracker.fit.laid, list(self.tracker.judge.state.order),
                              seat_spec(profile.seat_edges))
        return turned or ("no arm or hand showed who laid them: check the calibration's seats (`calibrate "
                          "show`) and that arms are in the picture")

    def _hand_status(self) -> None:
        """Set the summary's ``status``, ``warnings`` and ``final``; write the end-of-footage notice row
        (``awaiting_reveal`` or ``hand_in_progress``) when the hand's score is not final."""
        s, st = self.summary, self.hand.state
        ended = self.tracker.ended["text"] if self.tracker.ended else None
        if st.result is not None:
            s.status = hand_over_status(st.result)
            s.final = True
        elif st.pending_end is not None:
            kind, winner, _ = st.pending_end
            ended = ended or (f"{winner} dominoed" if kind == "domino" and winner else f"the hand {kind}")
            s.status = awaiting_reveal_status(ended, st.awaiting_reveal())
            self._emit({"type": "notice", "kind": "awaiting_reveal", "t": self._t, "frame": None,
                           "message": s.status}, None)
        else:
            what = unfinished_what(self.live, s.partial, self.files is not None, s.footage_s)
            s.status = f"unfinished: {what}; the score is not final"
            if not s.partial:  # the interrupted (source_error) notice row says it
                self._emit({"type": "notice", "kind": "hand_in_progress", "t": self._t, "frame": None,
                            "message": what}, None)
        if self._late:
            s.warnings.append(late_warning(self._late, ended))
        if self._muted_turns:
            s.warnings.append(muted_turns_warning(self._muted_turns))
        if self._unplaced:
            n = len(self._unplaced)
            first = self._unplaced[0]
            tile = "-".join(str(v) for v in first.tile) if first.tile else "?"
            # a folder's photo is named, not timed (its time is only its index; helper-136)
            name = self._photo_name(first.frame)
            where = f" in {name}" if name else "" if first.t is None else f" at {first.t:.1f} s"
            s.warnings.append(unplaced_warning(n, tile, where, calibrated=self.tracker.profile is not None,
                                               arm_photos=bool(self._arm_photos)))
        s.final = s.final and not s.partial  # and no warning that doubts it: finish (score_final)


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection of two convex outlines (px) over the smaller one's area, in [0, 1]."""
    iou = polygon_iou(a, b)
    if iou <= 0:
        return 0.0
    aa = abs(cv2.contourArea(np.asarray(a, np.float32).reshape(-1, 2)))
    ab = abs(cv2.contourArea(np.asarray(b, np.float32).reshape(-1, 2)))
    inter = iou * (aa + ab) / (1 + iou)
    return min(1.0, inter / min(aa, ab))


def _free_form_rules() -> Ruleset:
    from engine.ruleset import load_ruleset

    return load_ruleset("block", players=4)


def outage_message(start_s: float, end_s: float, live: bool = True) -> str:
    """The one line that reports a drop of a live source, or a gap in a video file's frames
    (``live`` False, :attr:`vision.sources.VideoFileSource.outages`), seconds from its start."""
    what = ("the camera delivered no frames" if live else "the video has no frames")
    why = "" if live else "; dropped or damaged in the file"
    return (f"{what} from {start_s:.1f} s to {end_s:.1f} s ({end_s - start_s:.1f} s{why}): "
            "moves made meanwhile were read afterwards, their order and seats may be wrong")


def run_review(source: FrameSource, rules: Ruleset | None, recognize: Callable, out_dir: Path,
               profile=None, title: str = "Game review", progress: Callable[[int], None] | None = None,
               skip_unreadable: bool = True, **session_kwargs) -> ReviewSummary:
    """Review a whole source; ``progress(frames_done)`` is called after each frame.

    An image of a folder that cannot be decoded, or shows another table than the photos around it
    (:class:`vision.photo_scene.OneTable`), is skipped (``summary.skipped``, and an
    ``unreadable_image`` notice row) unless ``skip_unreadable`` is False. A live source's
    recovered drops and a video file's gaps (``outages``) become ``source_outage`` notices and warnings. Ctrl-C
    (``KeyboardInterrupt``) stops the review and returns the summary with ``interrupted``
    set; for recorded footage (not a live source) the outputs are then marked ``partial``, as are
    those of a source that gave no frame at all (a folder's every photo undecodable, a video with no frame).
    A live source stopped before its first frame (an empty folder followed, then Ctrl-C) is no failure: the
    summary is ``empty`` and no record or report is written.

    A live source that fails (a followed folder removed) ends as a Ctrl-C stops it: the photo held to compare
    with the next is read and the hands shown count; then the results are written, marked partial.

    Raises:
        SourceFailed: the source cannot be read (a :class:`vision.sources.SourceError`; events already
            written stay), with the summary of the partial results written.
    """
    start = time.perf_counter()
    session_kwargs.setdefault("timelapse", hasattr(source, "interval_s"))
    session = ReviewSession(rules, recognize, out_dir, profile, live=bool(getattr(source, "live", False)),
                            **session_kwargs)
    if getattr(source, "fps", None) and not session.live:
        session.frame_s = 1.0 / source.fps
    if isinstance(getattr(source, "files", None), list):
        session.files = source.files  # a folder of photos: rows say which photo they come from
    if isinstance(getattr(source, "transparent", None), dict):
        session.transparent = source.transparent  # filled as the photos are read: said at the end
    folder = None
    photos = False  # a folder of photos: its frames are those OneTableFolder keeps
    if skip_unreadable and hasattr(source, "on_unreadable") and source.on_unreadable is None:
        source.on_unreadable = session.skip_unreadable
        photos = isinstance(getattr(source, "files", None), list)
    if progress is not None:  # never back: a folder's photos are read ahead first (its order), then reviewed
        shown, told_progress = [0], progress

        def progress(n: int) -> None:
            shown[0] = max(shown[0], n)
            told_progress(shown[0])
    # A camera has no fixed rate here (frames come at the pace of recognition): its video is made at
    # LIVE_VIDEO_FPS in footage time (service.video_out.VideoOut).
    fps = getattr(source, "fps", None) or (1.0 / source.interval_s if hasattr(source, "interval_s")
                                           else LIVE_VIDEO_FPS)
    failure, failed = None, None
    outages = getattr(source, "outages", None)  # a live source's recovered drops, a video file's gaps
    told = 0
    last = None
    try:
        if photos:
            # a folder's photo of another table is skipped as an unreadable one is (vision.photo_scene); a
            # photo is decided when the next one has come, so the source's own skips wait for their turn
            # and, with a recognizer whose reads depend on the picture alone, one of another state of this table
            # by the tiles read (vision.photo_states), each photo read once, a photo ahead of the pipeline; such a
            # folder is first read in the order its photos were taken (vision.photo_order; a Ctrl-C there stops
            # the review as in it)
            folder, session.pipeline.recognize = one_table_folder(source, session.skip_unreadable, recognize,
                                                                  progress=progress)
            if folder.order_note:  # its photos were put in the order they were taken (vision.photo_order)
                session.photos_reordered(folder.order_note, [Path(p).name for p in source.files])
        frames = folder if folder is not None else source
        for frame in frames:
            if isinstance(frame, Quiet):  # a followed folder with no new photo for a while: its newest photo read
                look = quiet_look_t(session.pipeline.tracker, frame.t, last.t) if last is not None else None
                if look is not None:  # and looked at again, when a reveal waits for a read
                    session.feed(last.index, look, last.image, fps, again=True)
                    last = last._replace(t=look)
                continue
            for start_s, end_s in (outages or [])[told:]:
                session.source_outage(start_s, end_s)
                told += 1
            session.feed(frame.index, frame.t, frame.image, fps)
            last = frame
            if progress:
                progress(session.summary.frames)
        end_t = last.t if last is not None else 0.0
        if last is not None and hasattr(source, "interval_s") and session.pipeline.tracker.wants_read:
            # a reveal (or a take-back) waits for a second look, and a folder's last photo is the final
            # table: it is looked at once more, as a copy of it would be
            end_t = last.t + source.interval_s
            session.feed(last.index, end_t, last.image, fps, again=True)
        if last is not None:
            session.settle(last.index, end_t, last.image, fps)
        # no frame: a finished review of nothing would push the last real one out of previous/ (keep_previous);
        # but a live source ends only when stopped, and an empty folder stopped is no failure (helper-220)
        elif session.summary.skipped:
            failure = f"none of its {plural(len(session.summary.skipped), 'image')} could be decoded"
        elif not session.live:
            failure = "it gave no frame"
    except KeyboardInterrupt:
        session.summary.interrupted = True
        _settle_stopped(session, last, fps)
    except SourceError as exc:  # written as partial results, then raised for the caller to report
        failure, failed = str(exc), exc
        _settle_stopped(session, last, fps)
    finally:
        # a Ctrl-C while the files are written waits for them (helper-85: one in the last second cut the
        # video encoder off inside OpenCV, a crash, and left no record.json or report.html), then counts
        with _interrupt_deferred() as late:
            if folder is not None:  # stopped while a photo waited for the next: the skips before it are said
                folder.close()
            summary = session.finish(title, partial=session.summary.interrupted and not getattr(source, "live", False),
                                     failure=failure)
        summary.wall_s = time.perf_counter() - start
    if late:  # the files are whole (the footage was read to its end): not partial, but the user stopped it
        summary.interrupted = True
    if failed is not None:
        raise SourceFailed(str(failed), summary) from failed
    return summary


class SourceFailed(SourceError):
    """:func:`run_review`'s source failed; ``summary`` (a :class:`ReviewSummary`) is that of the partial
    results written, for the caller to print the score so far."""

    def __init__(self, message: str, summary: ReviewSummary):
        super().__init__(message)
        self.summary = summary


def _settle_stopped(session: ReviewSession, last, fps: float) -> None:  # noqa: ANN001 - a Frame or None
    """A live source stopped (Ctrl-C) or failed: it is stopped, not ended, so the hands shown on its last frame
    count (:meth:`ReviewSession.settle`); recorded footage cut short is not settled (its results are partial)."""
    if not session.live or last is None:
        return
    try:
        session.settle(last.index, last.t, last.image, fps)
    except Exception as exc:  # noqa: BLE001 - stopped mid-frame: the rows so far are kept
        session.summary.warnings.append(Warned(f"the hand's end could not be settled at the stop: {exc}",
                                               "settle_failed"))


@contextlib.contextmanager
def _interrupt_deferred():
    """Hold SIGINT (Ctrl-C) off for the block; yields a list that holds True when one came meanwhile.

    In another thread than the main one (signals only reach the main thread) it does nothing.
    """
    came: list[bool] = []
    if threading.current_thread() is not threading.main_thread():
        yield came
        return
    previous = signal.signal(signal.SIGINT, lambda *_: came.append(True))
    try:
        yield came
    finally:
        signal.signal(signal.SIGINT, previous)
