"""Skipped turns: the passes a play by an arm implies, and whether the footage shows all the rule set's seats.

The :class:`~vision.tracking.Tracker` hands each frame's arm to :class:`SeatTurns` (:meth:`SeatTurns.see_arm`)
and asks it, at each play it lays, which seats' turns the play went past (:meth:`SeatTurns.skipped_seats`),
the ``Pass`` events for them (:meth:`SeatTurns.passes`: only where a pass is the only way a turn goes by),
whether those seats are in the footage at all (:meth:`SeatTurns.check_seats`, a ``seats_unseen`` notice),
and, once the play is in, their ``pass_inferred`` notices (:meth:`SeatTurns.played`). The rules are those
of ``docs/tracking.md`` (passes, seats unseen). Times are seconds; seats are engine seat names.
"""

from __future__ import annotations

from engine.events import Pass
from vision.motion import MotionInfo
from vision.placements import Notice, seat_of_entry

__all__ = ["SeatTurns"]


class SeatTurns:
    """Which seats' arms the footage showed and when, and the turns that went by without their arm.

    Evidence over the whole footage (not reset by a new hand): the seats whose arms were ever seen
    (:attr:`arm_seats`), the plays each seat made by its arm, the turns of each seat that went by as
    inferred passes, and those that a play by another seat's arm went past at all. Per hand (reset at
    each play and each new hand): each seat's arm visits since the last play (:attr:`visits`), which
    time a pass (its knock).

    Args:
        config: the tracker's :class:`~vision.tracking.TrackerConfig` (``visit_gap_s``, ``infer_passes``,
            ``unseen_seat_turns``).
        profile: the table calibration the arms' entry points are placed by, or None (image px).
    """

    def __init__(self, config, profile=None):  # noqa: ANN001
        self.config = config
        self.profile = profile
        #: seat -> (frame, t s) of its arm's last visit since the last play (one visit: gaps under ``visit_gap_s``)
        self.visits: dict[str, list[tuple[int, float]]] = {}
        #: seats whose arm was ever seen (entering, reaching over the table)
        self.arm_seats: set[str] = set()
        self.entry_plays: dict[str, int] = {}  # plays each seat made by its arm
        self.skips: dict[str, int] = {}  # turns of each seat that went by as inferred passes
        self.turns_by: dict[str, int] = {}  # turns of each seat that a play by another seat's arm went past
        #: seats named by the ``seats_unseen`` notice, until their arm shows
        self.unseen_seats: set[str] = set()
        self.warned = False

    def new_hand(self) -> None:
        """A new hand: the arm visits since the last play are forgotten (the footage's evidence stays)."""
        self.visits = {}

    def see_arm(self, frame: int, t: float, motion: MotionInfo) -> None:
        """Remember when each seat's arm was in view (over the layout or not) since the last play."""
        side, point = motion.arm_side, motion.arm_point_px
        if side is None and motion.occluded:
            side, point = motion.entry_side, motion.entry_point_px
        seat = seat_of_entry(side, point, self.profile)
        if seat is None:
            return
        self.arm_seats.add(seat)
        visit = self.visits.get(seat)
        if visit is None or t - visit[-1][1] > self.config.visit_gap_s:
            self.visits[seat] = visit = []
        if len(visit) < 1000:
            visit.append((frame, t))

    def skipped_seats(self, choice, is_lead: bool, st) -> list[str]:  # noqa: ANN001
        """The seats whose turns a play by ``choice.seat`` (:func:`vision.placements.attribute_seat`) went past
        in turn order, or []: only when the arm decided the seat (not the turn order), after the lead.
        ``st``: the tracker's engine hand state before the play."""
        if (is_lead or choice.uncertain or choice.source != "entry" or st.turn is None or choice.seat == st.turn
                or st.turn not in st.order or choice.seat not in st.order or st.layout.lead is None):
            return []
        order = st.order
        i = order.index(st.turn)
        out = []
        while order[i] != choice.seat:
            out.append(order[i])
            i = (i + 1) % len(order)
        return out

    def passes(self, skipped: list[str], t: float, frame: int, nothing_to_draw: bool) -> list[Pass]:
        """``Pass`` events for the ``skipped`` seats (:meth:`skipped_seats`), or [].

        Only when a pass is the only way a turn goes by (``nothing_to_draw``): rule sets without a boneyard,
        and draw games once the camera saw the boneyard drawn out (a boneyard it cannot count leaves the
        engine's ``out_of_turn`` flag for the umpire). Each pass is timed at the middle of that seat's last
        arm visit since the previous play (its knock); when none was seen, at the knock of the next skipped seat
        that knocked (its turn went by before that one: helper-201, E's pass timed at the play at 16.2 s came
        before N's knock at 11.8 s, out of time order), else at the play (``t`` s, ``frame``).
        """
        if not skipped or not self.config.infer_passes or not nothing_to_draw:
            return []
        out = []
        at = (frame, t)  # the time of the next pass in turn order, from the last skipped seat back
        for seat in reversed(skipped):
            visit = self.visits.get(seat)
            pf, pt = at = visit[len(visit) // 2] if visit else at
            out.append(Pass(seat=seat, t=pt, frame=pf))
        return out[::-1]

    def check_seats(self, choice, skipped: list[str], passes: list[Pass], t: float, frame: int,  # noqa: ANN001
                    order: list[str], rules_name: str, fit) -> tuple[list[Pass], Notice | None]:  # noqa: ANN001
        """Whether the footage shows fewer seats than the rule set: ``(passes to emit, the warning or None)``.

        Conservative: it is decided only at a play by an arm that went past other seats' turns
        (``skipped``, :meth:`skipped_seats`; as ``passes`` when they are inferred, as a play out of turn
        when the boneyard is not followed), when every seat of ``order`` (the rule set's, named
        ``rules_name``) that never showed an arm (not to play, not to knock, not to draw) would have had
        ``unseen_seat_turns`` turns go by so, and at least two other seats each played twice by their arm.
        Then one ``seats_unseen`` notice is raised, with the presets that fit the seats seen
        (``fit``: :meth:`vision.rules_fit.RulesFitWatch.seats_seen`), and no pass is inferred for those
        seats any more (their turns are not invented: the engine flags the plays out of turn) until one
        of their arms is seen.
        """
        if not skipped or self.config.unseen_seat_turns <= 0:
            return passes, None
        if self.unseen_seats:
            self.unseen_seats -= self.arm_seats  # a named seat whose arm showed is playing after all
            return ([] if any(p.seat in self.unseen_seats for p in passes) else passes), None
        if self.warned:
            return passes, None
        unseen = [s for s in order if s not in self.arm_seats]
        if not unseen:
            return passes, None
        skips = {s: self.turns_by.get(s, 0) + skipped.count(s) for s in unseen}
        plays = dict(self.entry_plays)
        if choice.source == "entry":
            plays[choice.seat] = plays.get(choice.seat, 0) + 1
        seen = [s for s in order if s in self.arm_seats]
        players = [s for s in seen if plays.get(s, 0) >= 2]
        if len(players) < 2 or min(skips.values()) < self.config.unseen_seat_turns:
            return passes, None
        self.warned = True
        self.unseen_seats = set(unseen)
        before = sum(self.skips.get(s, 0) for s in unseen)
        n = sum(plays.values())
        who, missing = " and ".join(seen), " and ".join(unseen)
        inferred = any(p.seat in unseen for p in passes) or before
        msg = (f"only {who} seen playing ({n} plays by arm; no arm from {missing} in {t:.1f} s): the footage "
               f"seems to show fewer seats than {rules_name} needs ({len(order)})"
               + (f". Passes for {missing} are no longer inferred" if inferred else "")
               + (f"; the {before} inferred for them before are doubtful" if before else "")
               + f"; check the rule set (--rules); {fit.seats_seen(len(seen))}")
        return [], Notice("seats_unseen", t, frame, msg, details={
            "seen": seen, "unseen": unseen, "needed": len(order), "plays_by_arm": {s: plays.get(s, 0) for s in seen},
            "passes_inferred_before": before})

    def played(self, choice, skipped: list[str], passes: list[Pass], play, t: float, frame: int,  # noqa: ANN001
               photos: bool) -> list:
        """The engine took ``play`` (by ``choice.seat``, at ``t`` s, ``frame``) and the ``passes`` before it: count them
        as evidence, forget the arm visits, and return the passes each followed by its ``pass_inferred``
        notice (``photos``: a folder's photos, where no arm is seen and the tile left that seat's hand,
        helper-88)."""
        if choice.source == "entry":
            self.entry_plays[choice.seat] = self.entry_plays.get(choice.seat, 0) + 1
        for seat in skipped:
            self.turns_by[seat] = self.turns_by.get(seat, 0) + 1
        who = f"{choice.seat} played" if photos else f"{choice.seat}'s arm played"
        out: list = []
        for p in passes:
            self.skips[p.seat] = self.skips.get(p.seat, 0) + 1
            knock = bool(self.visits.get(p.seat))  # else timed at the next knock, or at the play (:meth:`passes`)
            out += [p, Notice("pass_inferred", t, frame,
                              f"{p.seat} passed: {who} {play.tile} on {p.seat}'s turn"
                              + (f" (a tile left {choice.seat}'s hand)" if photos else "")
                              + (f" ({p.seat} knocked at {p.t:.1f} s: its arm reached over the table and "
                                 "laid nothing)" if knock else ""),
                              seat=p.seat, details={"pass_t": p.t, "pass_frame": p.frame, "knock_seen": knock,
                                                    "by": choice.seat, "votes": choice.confidence})]
        self.visits = {}
        return out
