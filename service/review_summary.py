"""What a review tells its user: :class:`ReviewSummary`, and the wording of its status, warnings and notes.

:class:`service.review.ReviewSession` decides when the score is in doubt (it holds what the footage
showed); the lines that say so, printed under the score by ``dominocast review``, put at the top of
``report.html`` and into ``record.json``, are worded here, as is the report's subtitle. A warning makes
the score doubtful (``ReviewSummary.final`` False), but for the few that doubt some reads only; a note says
what the camera could not follow without doubt on the score. Each warning is a
:class:`service.finality.Warned`: its text with its kind and whether it puts the score in doubt, which the
record keeps beside the text (``warning_kinds``), so that ``record show``, ``record report`` and the service's
review page judge as the summary does (:mod:`service.finality`, the one rule they share).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from calibration.images import percent
from engine.timeline import result_text
from service.finality import (NO_VIDEO, OUT_OF_ORDER_NOTICES, SMALL_TILES_TAIL, Warned,  # noqa: F401 - the review's names
                               doubts_score, record_warnings, score_final, warning_kind)
from service.report import event_counts, plural
from service.review_folder import PARTIAL
from vision.placements import Notice
from vision.recognize import READABLE_TILE_PX, off_table_message

#: Why a folder's images are skipped (said with their count in the summary and the report).
SKIPPED_WHY = "undecodable, another size, blurred, blank, turned, another table, or an earlier or later state of this one"


@dataclass
class ReviewSummary:
    """What a review produced: counts, final score, where the files are, how long it took.

    ``status``: one line on the hand (``hand over: ...``, ``awaiting reveal: ...``, ``unfinished: ...``);
    ``warnings``: lines for the umpire that make the score doubtful (a rule set that does not fit
    the footage: tiles placed after the hand ended, seats never seen or more seats than it has, draws it
    forbids, a lock it forbids); ``final``: the hand is over,
    every point counted, and no warning that puts the score in doubt (:func:`score_final`; one about small tiles
    in the footage leaves it final).
    """

    out_dir: Path
    frames: int = 0
    reads: int = 0
    footage_s: float = 0.0
    wall_s: float = 0.0
    plays: int = 0
    draws: int = 0  # tiles seen drawn from the boneyard (draw games)
    passes: int = 0  # passes inferred from plays that skipped a seat
    #: of those, passes of seats a ``seats_unseen`` warning named, inferred before it (its message calls them doubtful)
    doubtful_passes: int = 0
    placements: int = 0  # rules=None: new tiles on the board (no plays, no score)
    flags: int = 0
    score: dict[str, int] = field(default_factory=dict)
    score_unit: str = "points"  # "pips left" where players are ranked by them (nova-block)
    standings: list = field(default_factory=list)
    files: dict[str, Path] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # one message per image that could not be decoded
    interrupted: bool = False  # stopped by Ctrl-C (KeyboardInterrupt) before the source ended
    partial: bool = False  # interrupted recorded footage: record and report cover only what was watched
    empty: bool = False  # a live session stopped before its first photo or frame: no record.json, no report.html
    status: str = ""
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the camera could not follow, without doubt on the score
    flag_lines: list[str] = field(default_factory=list)  # "t=55.0 s out_of_turn: N played ..." (or a photo's name)
    final: bool = False
    free_form: bool = False  # reviewed with rules=None: placements only
    photos: bool = False  # a folder of photos (a time-lapse): its "footage time" is not real time

    def counts_text(self) -> str:
        """``"16 plays, 3 draws, 1 inferred pass"`` (draws and passes when there are any; ``"5 inferred passes
        (4 of them doubtful)"`` when a ``seats_unseen`` warning doubts some: helper-201 read "5 inferred passes"
        beside "the 4 inferred before are doubtful"), or the placements of a review with no rules."""
        if self.free_form:
            return plural(self.placements, "placement")
        doubtful = f" ({self.doubtful_passes} of them doubtful)" if 0 < self.doubtful_passes < self.passes else (
            " (all doubtful)" if self.passes and self.doubtful_passes >= self.passes else "")
        return event_counts(self.plays, self.draws, self.passes, ("inferred pass", "inferred passes")) + doubtful

    @property
    def seen_unit(self) -> str:
        """What ``frames`` counts: ``"photo"`` for a folder of photos (followed or not), else ``"frame"``."""
        return "photo" if self.photos else "frame"

    def heading(self) -> str:
        """The title of the score printed for this review: ``"Final score"`` (with the flags to review), or
        ``"Score (not final...)"`` saying why when the status does not: the warnings that put the score in
        doubt (:func:`doubts_score`; helper-249: a review without a calibration was headed "Final score" while
        ``record show`` called its score not final), or partial results."""
        if self.partial:  # helper-179: only stderr said "partial"
            return "Score (partial: not final)"
        if self.final or not self.status:
            return "Final score" + (f" ({plural(self.flags, 'flag')} to review)" if self.flags else "")
        doubts = sum(doubts_score(w) for w in self.warnings)
        if doubts and self.status.startswith("hand over"):  # the status says the hand ended: say what is in doubt
            return f"Score (not final: {plural(doubts, 'warning')} below)"
        return "Score (not final)"  # the status line under it says why (unfinished, awaiting a reveal)

    def lines(self) -> list[str]:
        """The status and warnings, one line each, for a summary printed under the score."""
        return (([self.status] if self.status else []) + [f"warning: {w}" for w in self.warnings]
                + [f"note: {n}" for n in self.notes])


def first_names(names: list[str], shown: int = 3) -> str:
    """The first ``shown`` photo names, comma-separated, ``, ...`` when there are more."""
    return ", ".join(names[:shown]) + (", ..." if len(names) > shown else "")


def earlier_review_notes(out_dir: Path, moved: Path, dropped: list[Path], edited: bool, kept: list[Path],
                         videos: list[str]) -> list[str]:
    """What became of the review that was in ``out_dir``: it is now in ``moved``
    (:func:`service.review_folder.keep_previous`); ``dropped``, the files of the one before it, are deleted
    (``videos``: its annotated video's name among them); ``edited``: its record was corrected by hand;
    ``kept``: records corrected earlier, renamed and kept."""
    notes = [f"the earlier review in {out_dir} is now in {moved}"]
    if dropped:  # one generation is kept: say what went (helper-152: a video, unsaid)
        notes.append(f"one earlier review is kept: the one {moved} held before is "
                     "deleted" + (f", its {videos[0]} with it" if videos else ""))
    if edited:  # renamed only when a later review of its kind replaces it there (review_folder.keep_previous)
        unfinished = moved.name == PARTIAL  # helper-201: "the next review renames it", but a finished one never did
        other = moved.parent if unfinished else moved / PARTIAL
        notes.append(f"its record.json was changed after that review wrote it: the corrected "
                     f"record is {moved / 'record.json'} ({'an unfinished' if unfinished else 'a finished'} review "
                     "moved there later renames it record.edited.json there, and keeps it; "
                     f"{'a finished' if unfinished else 'an unfinished'} one goes to {other} and leaves it as it is)")
    for path in kept:
        notes.append(f"the record corrected after the review before that is kept as {path}")
    return notes


def hand_over_status(result) -> str:
    """The status of a hand that ended (``result``: its :class:`engine.hand.HandResult`)."""
    return f"hand over: {result_text(result.kind, result.winner_seat, result.note)}"


def awaiting_reveal_status(ended: str, seats: list[str]) -> str:
    """The status of a hand that ``ended`` whose ``seats`` never showed their tiles."""
    return (f"awaiting reveal: the hand ended ({ended}) but the tiles of "
            f"{', '.join(seats)} were never shown: the end-of-hand points are not "
            "counted and the score is not final")


def unfinished_what(live: bool, partial: bool, photos: bool, footage_s: float) -> str:
    """Why the hand has no end: a live session stopped, a review interrupted at ``footage_s``, photos or
    footage that end first."""
    return ("the session stopped before the hand ended" if live
            else f"the review stopped at {footage_s:.1f} s of footage, before the hand ended" if partial
            else "the photos end before the hand's end was seen (photograph the hands shown at the end of "
                 "each hand: that counts it)" if photos
            else "the footage ended before the hand did")


def late_warning(late: list[Notice], ended: str | None) -> str:
    """The ``after_hand_end`` notices (``late``, tiles placed or reveals after the hand ``ended``) in one line."""
    placed = sum(1 for n in late if "touches_end" in n.details)
    shown = len(late) - placed
    what = " and ".join(x for x in (plural(placed, "tile") + " placed" if placed else "",
                                    plural(shown, "reveal") + " by the seat that went out" if shown else "")
                        if x)
    text = (f"{what} after the hand ended{f' ({ended})' if ended else ''}, from "
            f"{late[0].t:.1f} s, not scored: the rule set may not fit the footage")
    return Warned(text, "after_hand_end")


def muted_turns_warning(n: int) -> str:
    """``n`` plays out of turn order whose flag was left out: the seat it named is not in the footage."""
    text = (f"{plural(n, 'play')} came out of the rule set's turn order because of the seats not "
            f"seen; not flagged (see each play's notes in events.jsonl)")
    return Warned(text, "muted_turns")


def unplaced_warning(n: int, tile: str, where: str, calibrated: bool, arm_photos: bool) -> str:
    """``n`` face-up tiles that touched no open end (the first: ``tile``, ``where`` it was seen: " in NAME",
    " at T s" or ""); without a calibration hands are guessed, and ``arm_photos`` may hold one in a hand."""
    text = (f"{plural(n, 'face-up tile')} touched no open end and {'was' if n == 1 else 'were'} not "
            f"scored (first: {tile}{where}): "
            + ("a misread or a tile set down off the line of play (see its snapshot), a picture of "
               "a tile on the table or mat, or a rule set that does not fit the footage (a spinner?)"
               if n <= 2 else
               "the rule set may not fit the footage (a spinner?), tiles were set down off the "
               "line of play, or the table or mat shows pictures of tiles (see their snapshots)")
            + ("; without a calibration, hands shown outside the hand areas guessed from the "
               "image's borders count here too" if not calibrated else "")
            + ("; a tile held in the hand of a photo with an arm over the table (below)"
               if arm_photos else ""))
    return Warned(text, "unplaced_tile")


def small_tiles_warning(tile_px: float) -> str:
    """Tiles ``tile_px`` long, under :data:`vision.recognize.READABLE_TILE_PX`: a doubt about reads."""
    return Warned(f"tiles are {tile_px:.0f} px long in this footage: below {READABLE_TILE_PX:g} px pips "
                  f"{SMALL_TILES_TAIL}", "small_tiles", doubts=False)


#: A review without a calibration that found plays (helper-85: every seat wrong, and nothing said why).
NO_CALIBRATION_WARNING = Warned("no --calibration: the hand areas, and so the seats of plays and reveals, are "
                                "guessed from the image's borders (`dominocast calibrate table`, "
                                "docs/calibration.md)", "no_calibration")


def seats_by_turn_warning(n: int, plays: int, hint: str) -> str:
    """``n`` of ``plays`` took the seat whose turn it was; ``hint``: the second line, what tells the seats."""
    # helper-132: all 16 seats guessed, the lead's wrong, so every later seat and the score too,
    # and the summary listed 10 of 16 flags without saying so
    # helper-172: "a calibration tells them" was said to a review given one too
    # helper-187: one 420-character line; now two short ones: what was seen, and what to do
    text = (f"{n} of {plural(plays, 'play')} took the seat whose turn it "
            "was (seat_by_turn): a wrong one moves later seats\n  " + hint)
    return Warned(text, "seat_by_turn")


def turned_photos_warning(sides: str, edges: int, seats: str) -> str:
    """The hands lie along the image's ``sides`` (``edges`` of them), where the rule set (seating ``seats``)
    seats no one: the photos look turned."""
    text = (f"the hands lie along the image's {sides} edge{'s' if edges > 1 else ''}, where "
            f"the rule set seats no one (it seats {seats}; N is the image's top): the photos "
            "look turned, so the seats are wrong; turn them so that N sits at the top, or "
            "calibrate the table")
    return Warned(text, "turned_photos")


def camera_moved_warning(moves: int) -> str:
    """A calibrated review's camera moved between ``moves`` photos and the one before."""
    # helper-126: hand-held photos reviewed with a calibration had 9 plays "out of turn"
    text = (f"the camera moved between {plural(moves, 'photo')} and the one before: the "
            "calibration fits one camera position, so the hand areas, and the seats, may be "
            "off; keep the camera still, or review these photos without --calibration")
    return Warned(text, "camera_moved")


def never_read_warning(frames: int, still_window_s: float) -> str:
    """None of ``frames`` was read: the table never stayed still for ``still_window_s``."""
    text = (f"none of the {plural(frames, 'frame')} was read: the table never stayed still "
            f"for {still_window_s:g} s (one photo per move? review the photos as a "
            "folder, `--interval` sets their spacing)")
    return Warned(text, "never_read")


def arm_photos_warning(names: list[str], frames: int, scored: bool) -> str:
    """The photos ``names`` (of ``frames``) show an arm over the table; ``scored``: a rule set gives seats."""
    seats = " and may give them to the wrong seat" if scored else ""
    shows = "shows" if len(names) == 1 else "show"
    text = (f"{len(names)} of {plural(frames, 'photo')} {shows} an arm or hand over the "
            f"table ({first_names(names)}; notices arm_in_photo): photos taken while a player reaches in show moves "
            f"a photo late{seats}; take each photo once the hand has left the table")
    return Warned(text, "arm_in_photo")


def out_of_order_warning(notes: list[tuple[str, str]], live: bool = False) -> str:
    """``notes``: (photo name, tile) of each ``tile_missing`` notice of a tile gone for one photo only (the last
    of an arm in the photo before, back in the next: :meth:`vision.tracking.Tracker._back_after_one_photo`).

    ``live``: a followed folder, read in the order its photos arrive (a review reads them in the order their
    names sort), so the advice names arrival, not names. Photos out of order can move plays and points, so
    the line says the score is not final (the review's summary marks it so).
    """
    lack = "lacks" if len(notes) == 1 else "lack"
    named = first_names([f"{name}: {tile}" for name, tile in notes])
    why = ("the photos may have arrived out of order (one written late?)" if live
           else "the photos may be out of order (do their names sort in the order they were taken?)")
    text = (f"{plural(len(notes), 'photo')} {lack} a tile that the photos before and after show ({named}; "
            f"{OUT_OF_ORDER_NOTICES}): {why} or the tile was missed there; nothing was taken back, and the score is "
            "not final")
    return Warned(text, "tile_missing")


def draws_late_warning(names: list[str]) -> str:
    """The photos ``names`` hold a draw flagged out of turn: a draw and a play in one photo."""
    text = (f"{plural(len(names), 'draw')} flagged out of turn "
            f"({first_names(names)}): a draw and the play after it in one photo are "
            "recorded play first; in a draw game a draw is a move too: take a photo after each draw "
            "as well")
    return Warned(text, "draws_late")


def overexposed_warning(notes: list[Notice], frames: int, names: list[str] | None) -> str:
    """The line on the ``overexposed`` notices: which photos (``names``, theirs; None: footage, said by
    time), and the worst one's share; ``frames``: the photos of the folder."""
    worst = max(notes, key=lambda n: (n.details["hidden_tiles"], n.details["ends_glared"],
                                      n.details.get("hidden_hand_tiles", 0), n.details["clipped"]))
    if names is not None:
        n = len(notes)
        what = f"{n} of {plural(frames, 'photo')} {'is' if n == 1 else 'are'} overexposed"
        where = first_names(names)
    else:
        what, where = "the footage is overexposed", "at " + first_names([f"{ev.t:.1f} s" for ev in notes])
    # glare that hid nothing laid (no tile of the line, no open end, no hand) doubts some reads only
    laid = worst.details["hidden_tiles"] or worst.details["ends_glared"] or worst.details.get("hidden_hand_tiles", 0)
    return Warned(f"{what} ({where}; notices overexposed): in the worst, {worst.message}", "overexposed",
                  doubts=bool(laid))


def off_table_warning(reads: int, off_table: int, sure: int) -> str:
    """In ``reads`` reads, ``off_table`` boxes fell off the calibrated table, ``sure`` of them surely tiles."""
    return Warned(f"in {plural(reads, 'read')}, {off_table_message(off_table, 'the profile')} ({sure} of them "
                  "surely tiles)", "off_table")


def transparent_note(names: list[str], top_share: float, frames: int) -> str:
    """The photos ``names`` (of ``frames``) had transparent pixels, ``top_share`` of one at most."""
    n = len(names)
    return (f"{n} of {plural(frames, 'photo')} {'has' if n == 1 else 'have'} transparent pixels "
            f"({first_names(names)}; up to {percent(top_share)} of a photo): read over plain "
            "grey, where no tile is looked for")


def report_subtitle(s: ReviewSummary, rules_name: str) -> str:
    """The report's line under its title: rules, what was watched, counts, skipped images, status and score."""
    # a folder's photos: their "time" is their index times --interval, not footage (helper-126)
    seen = plural(s.frames, "photo") if s.photos else f"{plural(s.frames, 'frame')}, {s.footage_s:.1f} s of footage"
    subtitle = f"rules {rules_name} · {seen} · {s.counts_text()} · {plural(s.flags, 'flag')}"
    if s.skipped:
        subtitle += f" · {plural(len(s.skipped), 'image')} skipped ({SKIPPED_WHY})"
    scores = ", ".join(f"{k} {v}" for k, v in s.score.items()) + (
        f" ({s.score_unit})" if s.score_unit != "points" else "")
    if s.final:  # the result and the final score where a player looks first (helper-98: "hand over" alone)
        subtitle += f" · {s.status} · final score {scores}"
    elif s.status:  # helper-139: the page never said the score was not final, as the terminal does
        subtitle += f" · {s.status.split(':')[0]} · score (not final) {scores}"
    return subtitle
