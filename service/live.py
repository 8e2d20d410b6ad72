"""One table's live state: its current match folded from the event log, its alerts, its feeds.

:meth:`TableRuntime.append` is the only way an event enters the log. Under the table's
lock it replays the match with the new event (the engine is the judge: an event that
cannot happen is refused with :class:`AppendRejected`), writes the event, the feed
messages and the alert changes in one transaction, commits, and only then updates
memory and publishes. A crash after the commit loses nothing; before it, nothing was
announced. On start :meth:`TableRuntime.load` folds the log again.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from typing import Any, Callable

from pydantic import ValidationError
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from engine.events import Correction, Deal, Draw, HandEnd, Pass, Penalty, Play, effective
from engine.hand import HandContext, HandState, IllegalEvent, replay
from engine.layout import LayoutError
from engine.match import MatchState, replay_match
from engine.notation import format_event
from engine.record import (MatchRecord, RecordError, event_from_dict, event_to_dict, record_from_match, teams_for,
                           why_not_an_event)
from engine.ruleset import Ruleset
from engine.tiles import TileError
from engine.timeline import timeline
from engine.words import plural
from service.alert_levels import INFO_NOTE
from service.db import get_row, transaction
from service.feeds import Broker, message_dict
from service.late import late_moot
from service.models import AlertRow, EventRow, HandConfirmationRow, MatchRow, MessageRow, TableRow
from service.views import hand_view, public_alerts

#: The ``info`` alerts (camera notes) of the current match an alerts feed's snapshot carries: the latest ones.
NOTES_IN_SNAPSHOT = 100
# a flag kind -> the rule-set penalties confirming it may apply (the first one the rule set has)
PENALTY_FOR = {
    "mismatched_end": ("bogus_play", "mismatched_end"),
    "closed_end": ("bogus_play", "closed_end"),
    "pass_with_play": ("pass_with_play", "bogus_play"),
    "draw_with_play": ("draw_with_play", "bogus_play"),
    "out_of_turn": ("play_out_of_turn", "out_of_turn"),
    "exposed_tile": ("exposed_tile",),
    "late_take_back": ("bogus_play",),  # seed 000: a take-back after the next player played
    "wrong_start": ("wrong_start",),
    "slow_play": ("slow_play",),
}
# Events that open the next hand when the current one is over. Not a pass: nobody passes before the
# lead, so a pass after the hand's end is a mistake (the console's Pass button pressed late), refused.
_NEW_HAND_TYPES = (Deal, Play, Draw)


class AppendRejected(ValueError):
    """The engine refused an event (the message says why); nothing was written."""


class NotFound(LookupError):
    """No such match, hand, event slot or alert (the message names it)."""


def _result_of(hs) -> tuple | None:  # noqa: ANN001 - an engine HandState
    """What a confirmation vouches for: the hand's result (kind, winner, awards) and its points per side
    (a penalty or a fixed tile changes the score sheet the umpire signed: helper-83), None while it goes on."""
    r = hs.result
    return None if r is None else (r.kind, r.winner_seat, tuple(sorted(r.awards.items())),
                                   tuple(sorted(hs.scores.items())))


class Refused(RuntimeError):
    """An action the table's state does not allow, not an event the engine refused (a 409 said as is)."""


@dataclass
class TableConfig:
    """A registered table as the runtime needs it."""

    id: str
    name: str
    rules: Ruleset
    preset: str
    overrides: dict
    players: dict[str, str]
    teams: dict[str, str]
    worker_kind: str
    worker_config: dict
    view_key: str | None
    video_source: str = ""
    calibration: str = ""


def penalty_reason(kind: str, idx: int | None, alert_id: int | None, legacy: bool = False) -> str:
    """The reason of a penalty that confirms a flag: ``"confirmed mismatched_end of event 9 (alert 1)"``.
    The flag's kind and event say which infraction it punishes wherever the record goes (an import, a
    scripted replay: other alert ids); ``alert_id`` None gives the part before `` (alert ...)``.
    ``legacy``: the form written before 2026-12-03, ``of #9``, which the text notation could not hold
    (``#`` starts a comment there: every such penalty became a raw JSON line, helper-152)."""
    what = f"confirmed {kind}" + (f" of {'#' if legacy else 'event '}{idx}" if idx is not None else "")
    return what if alert_id is None else f"{what} (alert {alert_id})"


def without_flag(alert: dict) -> dict:
    """A penalty left on the score by the confirmation of an alert whose flag a change removed (the alert's
    ``details["penalty_left"]``), with a line saying so: what a correction's answer lists in
    ``penalties_without_flag`` (helper-176: the console said only "done")."""
    left = alert["details"]["penalty_left"]
    return {**left, "alert": alert["id"], "kind": alert["kind"],
            "message": f"{left['seat']} {left['penalty']} (hand {left['hand']} #{left['index']}) stays on the score, "
                       f"but its {alert['kind']} flag (alert {alert['id']}) is gone: void it if it no longer applies"}


def alert_dict(row: AlertRow) -> dict:
    return {"id": row.id, "key": row.key, "category": row.category, "kind": row.kind, "match": row.match_id,
            "hand": row.hand, "index": row.idx, "seat": row.seat, "message": row.message, "details": row.details,
            "status": row.status, "severity": row.severity or "action", "created_at": row.created_at,
            "updated_at": row.updated_at, "resolved_by": row.resolved_by, "note": row.note}


def _restate(row: AlertRow, spec: dict) -> None:
    """An alert row says what the log's flag now says (seat, message, details)."""
    row.seat, row.message, row.details = spec["seat"], spec["message"], spec["details"]


class TableRuntime:
    """The live state of one table (see module docstring)."""

    def __init__(self, cfg: TableConfig, factory: sessionmaker[Session], broker: Broker,
                 min_confidence: float = 0.6) -> None:
        self.cfg = cfg
        self.factory = factory
        self.broker = broker
        self.min_confidence = min_confidence
        self.lock = threading.RLock()
        self.match_id: int | None = None
        self.match_number = 0
        self.match_title = ""
        self.logs: list[list] = []
        self.tags: list[list[tuple[str, str]]] = []  # (source, actor) per event, per hand
        self.match: MatchState = replay_match(cfg.rules, [])
        self.confirmed: dict[int, str] = {}
        self.open_alerts: dict[int, dict] = {}
        #: (match id, hand, event index, kind) of the flag alerts the umpire dismissed: not shown as accusations
        self.dismissed: set[tuple] = set()
        #: the same for those confirmed or resolved: off the air, though not withdrawn (helper-104)
        self.settled: set[tuple] = set()
        self.seq = 0
        self.worker: dict = {"kind": cfg.worker_kind, "state": "stopped", "connected": False, "fps": None,
                             "last_read": None, "position": 0, "total": None, "error": None}
        #: the running camera worker (a source with ``kind`` and ``sync_record(hand, read)``,
        #: optionally ``new_match(match)``): told of every event another source (the umpire) adds and of
        #: a new match, so that its tracker goes on from the record (``VisionSource.sync_record``)
        self.record_listener: Any = None

    # ---- loading -------------------------------------------------------------------
    def load(self) -> None:
        """Rebuild the state from the database: the newest match's log, open alerts, last message id."""
        with self.lock, self.factory() as s:
            m = s.scalars(select(MatchRow).where(MatchRow.table_id == self.cfg.id)
                          .order_by(MatchRow.number.desc()).limit(1)).first()
            self.logs, self.tags, self.confirmed = [], [], {}
            if m is not None:
                self.match_id, self.match_number, self.match_title = m.id, m.number, m.title
                rows = s.scalars(select(EventRow).where(EventRow.match_id == m.id)
                                 .order_by(EventRow.hand, EventRow.idx)).all()
                for r in rows:
                    while len(self.logs) < r.hand:
                        self.logs.append([])
                        self.tags.append([])
                    try:
                        self.logs[r.hand - 1].append(event_from_dict(r.body))
                    except ValidationError as exc:  # a body edited or damaged where it is stored: where, and why
                        raise RecordError(f"hand {r.hand}, event #{r.idx} as stored: not an event: "  # helper-172
                                          f"{why_not_an_event(exc)}") from exc  # pydantic's dump: in the log
                    self.tags[r.hand - 1].append((r.source, r.actor))
                self.confirmed = {c.hand: c.by for c in s.scalars(
                    select(HandConfirmationRow).where(HandConfirmationRow.match_id == m.id))}
            self.match = replay_match(self.cfg.rules, self.logs)
            self.open_alerts = {a.id: alert_dict(a) for a in s.scalars(
                select(AlertRow).where(AlertRow.table_id == self.cfg.id, AlertRow.status == "open"))}
            flags = list(s.scalars(select(AlertRow).where(
                AlertRow.table_id == self.cfg.id, AlertRow.status.in_(("dismissed", "confirmed", "resolved")),
                AlertRow.category == "flag", AlertRow.idx.is_not(None))))
            self.dismissed = {(a.match_id, a.hand, a.idx, a.kind) for a in flags if a.status == "dismissed"}
            self.settled = {(a.match_id, a.hand, a.idx, a.kind) for a in flags if a.status != "dismissed"}
            self.seq = s.scalar(select(func.max(MessageRow.id)).where(MessageRow.table_id == self.cfg.id)) or 0

    # ---- views ---------------------------------------------------------------------
    def hand_states(self, match: MatchState | None = None) -> list[tuple[int, int, HandState]]:
        """(game, number in game, state) for every hand of the current match, in order."""
        return [(g.number, n, h) for g in (match or self.match).games for n, h in enumerate(g.hands, 1)]

    def state(self, match: MatchState | None = None, logs: list | None = None) -> dict:
        """The table state the overlay draws (the snapshot's ``state``)."""
        match = match or self.match
        hands = self.hand_states(match)
        cfg = self.cfg
        teams = {side: {"name": cfg.teams.get(side) or " & ".join(cfg.players.get(s, s) for s in seats),
                        "seats": seats, "players": [cfg.players.get(s, s) for s in seats]}
                 for side, seats in teams_for(cfg.rules).items()}
        view = {
            "table": {"id": cfg.id, "name": cfg.name},
            "match": {"id": self.match_id, "number": self.match_number, "title": self.match_title,
                      "over": match.over, "hands": len(hands)},
            "rules": {"preset": cfg.preset, "title": cfg.rules.title, "partnership": cfg.rules.partnership,
                      "players": cfg.rules.players, "target": cfg.rules.target, "standings": cfg.rules.standings,
                      "boneyard": cfg.rules.boneyard, "games_per_match": cfg.rules.games_per_match},
            "players": dict(cfg.players), "teams": teams,
            "game": None, "standings": [{"side": s, "games": w, "total": t} for s, w, t in match.standings()],
            "hand": None, "alerts_open": self.open_here(self.open_alerts), "alerts_open_hidden": 0,
            "worker": dict(self.worker),
        }
        if hands:
            g, n, hs = hands[-1]
            game = match.games[g - 1]
            view["game"] = {"number": g, "scores": dict(game.scores), "winner": game.winner,
                            "ended_by": game.ended_by}
            view["hand"] = {"number": len(hands), "game": g, "in_game": n,
                            "confirmed": len(hands) in self.confirmed,
                            **hand_view(hs, cfg.players, self._flags_of(len(hands), self.dismissed),
                                        self._flags_of(len(hands), self.settled))}
            view["alerts_open_hidden"] = self.open_hidden(self.open_alerts, len(hands))
        elif match.games:
            view["game"] = {"number": 1, "scores": {s: 0 for s in teams}, "winner": None, "ended_by": None}
        return view

    def snapshot(self, channel: str = "events") -> dict:
        """What a feed sends first: the last message id and the state (or the open alerts, and the current match's
        alerts left to check: :meth:`_penalties_left`, :meth:`_camera_notes`)."""
        with self.lock:
            if channel == "alerts":
                alerts = [*self.open_alerts.values(), *self._penalties_left(), *self._camera_notes()]
                return {"id": self.seq, "channel": "alerts", "kind": "snapshot", "table": self.cfg.id,
                        "data": {"alerts": sorted(alerts, key=lambda a: a["id"])}}
            return {"id": self.seq, "channel": "events", "kind": "snapshot", "table": self.cfg.id,
                    "data": {"state": self.state()}}

    def _penalties_left(self) -> list[dict]:
        """The current match's alerts resolved with their penalty left on the score (``details["penalty_left"]``,
        :meth:`_mark_penalty_left`): the console shows them, after a reload too, until the penalty is voided."""
        with self.factory() as s:
            rows = s.scalars(select(AlertRow).where(AlertRow.table_id == self.cfg.id, AlertRow.match_id == self.match_id,
                                                    AlertRow.status == "resolved", AlertRow.category == "flag"))
            return [alert_dict(a) for a in rows if (a.details or {}).get("penalty_left")]

    def _camera_notes(self) -> list[dict]:
        """The current match's latest :data:`NOTES_IN_SNAPSHOT` ``info`` alerts (camera notices the tracker settled,
        :mod:`service.alert_levels`): the console's camera notes, after a reload too."""
        with self.factory() as s:
            rows = s.scalars(select(AlertRow).where(AlertRow.table_id == self.cfg.id, AlertRow.match_id == self.match_id,
                                                    AlertRow.severity == "info")
                             .order_by(AlertRow.id.desc()).limit(NOTES_IN_SNAPSHOT))
            return [alert_dict(a) for a in rows]

    def record(self) -> MatchRecord:
        """The current match's record (engine/record.py)."""
        with self.lock:
            return record_from_match(self.cfg.rules, self.logs, dict(self.cfg.players),
                                     {"title": self.match_title or None, "table": self.cfg.name})

    # ---- writing -------------------------------------------------------------------
    def _message(self, s: Session, channel: str, kind: str, data: dict) -> MessageRow:
        row = MessageRow(table_id=self.cfg.id, channel=channel, kind=kind, data=data, created_at=time.time())
        s.add(row)
        return row

    def _publish(self, rows: list[MessageRow]) -> list[dict]:
        msgs = [message_dict(r) for r in rows]
        if msgs:
            self.seq = max(self.seq, max(m["id"] for m in msgs))
            self.broker.publish(msgs)
        return msgs

    def ensure_match(self, s: Session) -> None:
        if self.match_id is None:
            self._new_match_row(s, "")

    def _new_match_row(self, s: Session, title: str) -> MatchRow:
        row = MatchRow(table_id=self.cfg.id, number=self.match_number + 1, title=title, created_at=time.time(),
                       players=dict(self.cfg.players), ruleset=self.cfg.rules.model_dump(mode="json"))
        s.add(row)
        s.flush()
        self.match_id, self.match_number, self.match_title = row.id, row.number, title
        return row

    def new_match(self, title: str = "", players: dict[str, str] | None = None) -> dict:
        """Close the current match and start the next one (its log starts empty). ``players`` (seat -> name,
        checked by the caller): the new match's, and the table's from then on (None: the table's as they are)."""
        with self.lock:
            old = self.cfg
            if players is not None:
                self.cfg = replace(old, players=dict(players))
            try:
                with transaction(self.factory) as s:
                    if players is not None:
                        s.get(TableRow, self.cfg.id).players = dict(players)
                    self._new_match_row(s, title)
                    self.logs, self.tags, self.confirmed = [], [], {}
                    self.match = replay_match(self.cfg.rules, [])
                    msg = self._message(s, "events", "match", {"match": self.match_id, "state": self.state()})
            except BaseException:
                self.cfg = old  # the table's players as stored
                raise
            self._publish([msg])
            started = getattr(self.record_listener, "new_match", None)
            if started is not None:  # a camera worker: the tiles on the table are the old match's
                started(self.match_id)
            return {"id": self.match_id, "number": self.match_number, "title": title}

    def reconfigure(self, cfg: TableConfig, table: dict) -> dict:
        """Take ``cfg`` as the table's config: ``table`` (TableRow column -> value) is written to the table's row,
        its players and rule set to the current match's too (the match is played with them from now on), and
        the new state is announced on the events feed (``kind`` "table"), so that the overlay and the console
        show the new names at once. The caller checks that the change is allowed (a rule change only before
        the match's first event: it would rescore it). Returns the announced message."""
        with self.lock:
            old = self.cfg
            self.cfg = cfg
            try:
                with transaction(self.factory) as s:
                    row = s.get(TableRow, cfg.id)
                    for column, value in table.items():
                        setattr(row, column, value)
                    if self.match_id is not None:
                        m = s.get(MatchRow, self.match_id)
                        m.players, m.ruleset = dict(cfg.players), cfg.rules.model_dump(mode="json")
                    self.match = replay_match(cfg.rules, self.logs)
                    msg = self._message(s, "events", "table", {"table": {"id": cfg.id, "name": cfg.name},
                                                               "state": self.state()})
            except BaseException:
                self.cfg = old  # nothing was written
                self.match = replay_match(old.rules, self.logs)
                raise
            self.worker["kind"] = cfg.worker_kind
            return self._publish([msg])[0]

    def _target_hand(self, event: object, hand: int | None, new_hand: bool | None) -> int:
        n = len(self.logs)
        if hand is not None:
            if 1 <= hand <= n or (hand == n + 1 and not isinstance(event, Correction)):
                return hand
            raise NotFound(f"hand {hand} does not exist (the match has {plural(n, 'hand')})")
        if isinstance(event, Correction):
            if n == 0:
                raise NotFound("no hand to correct yet")
            return n
        if new_hand is not None:
            return n + 1 if (new_hand or n == 0) else n
        if n == 0:
            return 1
        game, _, last = self.hand_states()[-1]
        # over, or cut short by its game's end (a target reached during play: the next game opens)
        over = last.result is not None or self.match.games[game - 1].ended_by is not None
        if over and isinstance(event, Pass):
            raise AppendRejected(f"hand {n} is over: a pass cannot open the next hand (it opens with the lead "
                                 "or a deal)")
        return n + 1 if over and isinstance(event, _NEW_HAND_TYPES) else n

    def append(self, event: object | list, *, source: str, actor: str = "", hand: int | None = None,
               new_hand: bool | None = None, alert_update: tuple[int, str, str, str] | None = None) -> dict:
        """Append an engine event (or a correction) to the current match and announce it.

        Args:
            event: the event, or a list of events for one hand taken as one change: checked by
                one replay after the last (two corrections that swap two plays' tiles hold a
                tile twice in between) and written in one transaction, all or none.
            hand: the hand (1-based over the match) the event belongs to; None: the current
                hand, or the next one when the current is over and this is a play/pass/draw/deal.
            new_hand: True: start the next hand with this event; False: the current hand.
            alert_update: (alert id, status, by, note) written in the same transaction.

        Returns ``{"hand", "index", "message", "penalties_without_flag"}`` (the published event message;
        for a list, those of its first event, and ``indexes`` / ``messages`` of all; the penalties the change
        left on the score with no flag behind them, :func:`without_flag`).

        Raises:
            AppendRejected: the engine refused the event (nothing was written).
            NotFound: ``hand`` does not exist.
        """
        events = list(event) if isinstance(event, list) else [event]
        with self.lock:
            h = self._target_hand(events[0], hand, new_hand)
            before = _result_of(self.hand_states()[h - 1][2]) if h <= len(self.logs) else None
            logs = [list(x) for x in self.logs]
            if h > len(logs):
                logs.append([])
            logs[h - 1].extend(events)
            try:
                match = replay_match(self.cfg.rules, logs)
            except (IllegalEvent, LayoutError, TileError, IndexError, ValueError) as exc:
                raise AppendRejected(str(exc)) from None
            indexes = list(range(len(logs[h - 1]) - len(events), len(logs[h - 1])))
            hands = self.hand_states(match)
            g, n, _ = hands[h - 1]
            # a confirmed result that this event changes is no longer confirmed: the umpire confirms it anew
            reopened = self.confirmed.pop(h) if h in self.confirmed and _result_of(hands[h - 1][2]) != before else None
            rows = timeline(match)
            try:
                state = self.state(match)
                with transaction(self.factory) as s:
                    for index, ev in zip(indexes, events):
                        self._write_event(s, state, h, index, ev, source, actor, reopened)
                    alert_rows = self._sync_alerts(s, match, logs) + self._sync_late(s, logs, h)
                    if alert_update is not None:
                        alert_rows.append(self._set_alert(s, *alert_update))
                    state["alerts_open"], state["alerts_open_hidden"] = self._count_open(alert_rows, len(hands))
                    self._flags_as_now(state, alert_rows)
                    ev_msgs = []
                    for index, ev in zip(indexes, events):
                        slot = ev.replaces if isinstance(ev, Correction) else index
                        row = next((r for r in rows if r.get("game") == g and r.get("hand") == n
                                    and r.get("index") == slot), None)
                        data = {"hand": h, "game": g, "hand_in_game": n, "index": index, "event": event_to_dict(ev),
                                "text": format_event(ev), "source": source, "actor": actor, "row": row, "state": state}
                        ev_msgs.append(self._message(s, "events", "event", data))
                    msgs = [self._message(s, "alerts", "alert", alert_dict(a)) for a in alert_rows]
                    s.flush()
            except BaseException:
                if reopened is not None:  # nothing was written: the confirmation stands
                    self.confirmed[h] = reopened
                raise
            self.logs, self.match = logs, match
            if len(self.tags) < len(logs):
                self.tags.append([])
            self.tags[h - 1].extend([(source, actor)] * len(events))
            for a in alert_rows:
                self._track(alert_dict(a))
            published = self._publish(ev_msgs + msgs)
            listener = self.record_listener
            if listener is not None and source != listener.kind:
                listener.sync_record(h, lambda: self.hand_log(h))
            out = {"hand": h, "index": indexes[0], "message": published[0],
                   "penalties_without_flag": [without_flag(alert_dict(a)) for a in alert_rows
                                              if a.status == "resolved" and (a.details or {}).get("penalty_left")]}
            if isinstance(event, list):
                out.update(indexes=indexes, messages=published[:len(events)])
            return out

    def _write_event(self, s: Session, state: dict, h: int, index: int, event: object, source: str, actor: str,
                     reopened: str | None) -> None:
        """The event's row (and, when it changed a confirmed result, the confirmation's removal)."""
        self.ensure_match(s)
        state["match"]["id"], state["match"]["number"] = self.match_id, self.match_number
        s.add(EventRow(table_id=self.cfg.id, match_id=self.match_id, hand=h, idx=index,
                       body=event_to_dict(event), source=source, actor=actor, created_at=time.time()))
        if reopened is not None:
            for row in s.scalars(select(HandConfirmationRow).where(HandConfirmationRow.match_id == self.match_id,
                                                                   HandConfirmationRow.hand == h)):
                s.delete(row)

    # ---- alerts --------------------------------------------------------------------
    def open_here(self, opened: dict[int, dict]) -> int:
        """How many of the ``opened`` alerts (id -> alert) concern the current match or no match (the
        camera's): an earlier match's alert left open is the umpire's to settle, not the overlay's to show
        (it kept a confirmed flag of the new match on air)."""
        return sum(a.get("match") in (self.match_id, None) for a in opened.values())

    def open_hidden(self, opened: dict[int, dict], hand: int) -> int:
        """How many of the ``opened`` alerts the public does not see while hand ``hand`` of the current match is
        in play (:func:`service.views.public_alerts`: its seat-knowledge flags): left out of the public's
        ``alerts_open`` (helper-179: the count went up after "S pass" while ``/alerts`` listed nothing)."""
        alerts = list(opened.values())
        return len(alerts) - len(public_alerts(alerts, self.match_id, hand))

    def _count_open(self, changed: list[AlertRow], hand: int) -> tuple[int, int]:
        """:meth:`open_here` and :meth:`open_hidden` (of hand ``hand``) of the open alerts once ``changed``."""
        opened = dict(self.open_alerts)
        for a in changed:
            if a.status == "open":
                opened[a.id] = {"match": a.match_id, "hand": a.hand, "kind": a.kind}
            else:
                opened.pop(a.id, None)
        return self.open_here(opened), self.open_hidden(opened, hand)

    def _flags_as_now(self, state: dict, changed: list[AlertRow]) -> None:
        """The last play's flags in ``state`` (made before the alerts were synced) as the ``changed`` alerts
        now stand: a flag whose alert a correction reopened is on air again (helper-106: it kept the
        ``settled`` of the alert it had before, until the page was reloaded)."""
        hand = state.get("hand") or {}
        lp = hand.get("last_play") or {}
        for a in changed:
            if a.category == "flag" and a.match_id == self.match_id and a.hand == hand.get("number") \
                    and a.idx == lp.get("index"):
                for f in lp.get("flags") or []:
                    if f["kind"] == a.kind:
                        f["dismissed"], f["settled"] = a.status == "dismissed", a.status in ("confirmed", "resolved")

    def _track(self, alert: dict) -> None:
        if alert["status"] == "open":
            self.open_alerts[alert["id"]] = alert
        else:
            self.open_alerts.pop(alert["id"], None)
        if alert["category"] == "flag" and alert["index"] is not None:
            key = (alert["match"], alert["hand"], alert["index"], alert["kind"])
            for keys, statuses in ((self.dismissed, ("dismissed",)), (self.settled, ("confirmed", "resolved"))):
                if alert["status"] in statuses:
                    keys.add(key)
                else:
                    keys.discard(key)

    def _flags_of(self, hand: int, keys: set[tuple]) -> frozenset:
        """(event index, flag kind) of those flag ``keys`` (:attr:`dismissed`, :attr:`settled`) that are of
        hand ``hand`` of the current match."""
        return frozenset((i, k) for m, h, i, k in keys if m == self.match_id and h == hand)

    def suggested_penalty(self, kind: str) -> str | None:
        return next((p for p in PENALTY_FOR.get(kind, (kind,)) if p in self.cfg.rules.penalties), None)

    def _wanted_alerts(self, match: MatchState) -> dict[str, dict]:
        """The flag and uncertain-read alerts the current log calls for, by key."""
        out: dict[str, dict] = {}
        mid = self.match_id
        states = self.hand_states(match)
        for h, (g, _, hs) in enumerate(states, start=1):
            # the next hand began: this one is left in play, unless its game ended during it (a target reached)
            # or it is over and awaits the hands shown (its awaiting_reveal alert says so: helper-198, it also got
            # "is not over ... end it with its result", while its domino stood, its reveal due)
            began = h < len(states)
            cut = began and match.games[g - 1].ended_by is not None and states[h][0] != g
            if hs.result is None and hs.pending_end is None and began and not cut:
                out[f"flag:{mid}:{h}:end:unfinished"] = {
                    "category": "flag", "kind": "hand_unfinished", "hand": h, "idx": None, "seat": None,
                    "message": f"hand {h} is not over but hand {h + 1} began: end it with its result "
                               "(a domino's winner, a lock; its plays so far count)",
                    "details": {}}
            for o in hs.outcomes:
                for f in o.flags:
                    if f.notice:  # what the rules require next: nothing for the umpire to rule on
                        continue
                    key = f"flag:{mid}:{h}:{o.index}:{f.kind}"
                    out[key] = {"category": "flag", "kind": f.kind, "hand": h, "idx": o.index, "seat": f.seat,
                                "message": f.message, "details": {**f.details, "event": format_event(o.event),
                                                                  "penalty": self.suggested_penalty(f.kind)}}
                conf = getattr(o.event, "confidence", None)
                if conf is not None and conf < self.min_confidence:
                    out[f"uncertain:{mid}:{h}:{o.index}"] = {
                        "category": "uncertain", "kind": "uncertain_read", "hand": h, "idx": o.index,
                        "seat": o.event.seat, "message": f"uncertain read: {format_event(o.event)} "
                        f"(confidence {conf:.2f})", "details": {"event": format_event(o.event), "confidence": conf}}
            if hs.pending_end is not None:
                out[f"flag:{mid}:{h}:end:awaiting_reveal"] = {
                    "category": "flag", "kind": "awaiting_reveal", "hand": h, "idx": None, "seat": None,
                    "message": f"hand {h} is over ({hs.pending_end[0]}): reveal the tiles left", "details": {}}
        return out

    def _sync_alerts(self, s: Session, match: MatchState, logs: list[list]) -> list[AlertRow]:
        """Open the alerts the log now calls for; resolve those a correction made moot. ``logs``: the
        hands' logs ``match`` was replayed from (not yet ``self.logs``)."""
        wanted = self._wanted_alerts(match)
        existing = {a.key: a for a in s.scalars(select(AlertRow).where(
            AlertRow.table_id == self.cfg.id, AlertRow.match_id == self.match_id,
            AlertRow.category.in_(("flag", "uncertain"))))}
        now, changed = time.time(), []
        for key, spec in wanted.items():
            row = existing.get(key)
            if row is None:
                row = AlertRow(table_id=self.cfg.id, key=key, match_id=self.match_id, status="open",
                               created_at=now, updated_at=now, resolved_by="", note="", **spec)
                s.add(row)
                changed.append(row)
            elif row.status == "resolved":
                # flagged again; a penalty its confirmation left on the score is said (helper-156)
                row.status, row.updated_at, row.resolved_by = "open", now, ""
                row.note = self._penalty_left(row, logs).removeprefix("; ")
                _restate(row, spec)
                changed.append(row)
            elif row.status == "open" and (pen := self._alert_penalty(row, logs)) and pen[2] and not (
                    (was := self._alert_penalty(row, self.logs)) and was[2]):
                # helper-109: the voided penalty restored; confirming it again would have penalised twice
                # (helper-156: only a restoration, not a penalty in force all along while the alert was open)
                row.status, row.updated_at, row.resolved_by = "confirmed", now, "engine"
                row.note = f"confirmed: its penalty (hand {row.hand} #{pen[0]}: {pen[1].seat} {pen[1].name or pen[1].points}) is in force again"
                changed.append(row)
            elif row.status == "confirmed" and (voided := self._penalty_voided(row, logs)):
                # helper-108: the umpire voided the penalty the confirmation recorded while the flag stands:
                # the infraction is undecided again
                row.status, row.updated_at, row.resolved_by = "open", now, ""
                row.note = f"reopened: it was confirmed{voided}"
                _restate(row, spec)
                changed.append(row)
            elif (row.seat, row.message) != (spec["seat"], spec["message"]):
                # a correction changed whom or what the flag is about (helper-93: a play reassigned from E
                # to S kept E's alert, and confirming it penalised E): the alert says so, and one the
                # umpire had decided is put back before them
                if row.status in ("confirmed", "dismissed"):
                    row.note = f"reopened: it was {row.status} when it said: {row.message}{self._penalty_left(row, logs)}"
                    row.status, row.resolved_by = "open", ""
                _restate(row, spec)
                row.updated_at = now
                changed.append(row)
        for key, row in existing.items():
            if key in wanted or row.status not in ("open", "confirmed", "resolved"):
                continue
            if row.status != "resolved":
                # the flag is gone. helper-94: a penalty its confirmation recorded stays, said; helper-176: one
                # confirmed without a penalty (a rule set with none) stood as a confirmed infraction of a legal play
                why = self._penalty_left(row, logs) or self._penalty_voided(row, logs) or (
                    f"; it was confirmed by {row.resolved_by}" if row.status == "confirmed" else "")
                row.status, row.updated_at, row.resolved_by, row.note = "resolved", now, "engine", f"no longer flagged{why}"
                self._mark_penalty_left(row, logs)
                changed.append(row)
            elif row.resolved_by == "engine" and self._mark_penalty_left(row, logs):
                # the penalty left behind was voided (or restored) since: the note and the console follow
                row.note = f"no longer flagged{self._penalty_left(row, logs) or self._penalty_voided(row, logs)}"
                row.updated_at = now
                changed.append(row)
        s.flush()
        return changed

    def _sync_late(self, s: Session, logs: list[list], hand: int) -> list[AlertRow]:
        """Close the current match's ``recorded_late`` alerts of ``hand`` that the change to ``logs`` made moot
        (:func:`service.late.late_moot`: the play moved up, voided or given another tile; the events read after it
        voided), and reopen one the engine closed that holds again (the move undone), as :meth:`_sync_alerts`
        does for flags. One the umpire dismissed stays dismissed: the order recorded was their call."""
        rows = s.scalars(select(AlertRow).where(AlertRow.table_id == self.cfg.id, AlertRow.match_id == self.match_id,
                                                AlertRow.hand == hand, AlertRow.kind == "recorded_late",
                                                AlertRow.status.in_(("open", "resolved"))))
        now, changed = time.time(), []
        for row in rows:
            d = row.details or {}
            if not isinstance(d.get("tile"), list) or not isinstance(d.get("frame"), int):
                continue
            why = late_moot(logs[hand - 1], d["tile"], d["frame"])
            if row.status == "open" and why:
                row.status, row.resolved_by, row.note = "resolved", "engine", why
            elif row.status == "resolved" and row.resolved_by == "engine" and not why:
                row.status, row.resolved_by, row.note = "open", "", "reopened: recorded late again"
            else:
                continue
            row.updated_at = now
            changed.append(row)
        s.flush()
        return changed

    def _mark_penalty_left(self, row: AlertRow, logs: list[list]) -> bool:
        """Set ``details["penalty_left"]`` (``{"hand", "index", "seat", "penalty"}``) of an alert the engine
        resolved while its confirmation's penalty is on the score, with no flag behind it any more; drop it
        once that penalty is voided. The console keeps such an alert in view with a button to void the
        penalty (helper-176: the note said so only on the review page). True when it changed."""
        pen = self._alert_penalty(row, logs)
        left = {"hand": row.hand, "index": pen[0], "seat": pen[1].seat,
                "penalty": pen[1].name or pen[1].points} if pen and pen[2] else None
        details = dict(row.details or {})
        if details.get("penalty_left") == left:
            return False
        details.pop("penalty_left", None)
        row.details = {**details, "penalty_left": left} if left else details
        return True

    @staticmethod
    def _alert_penalty(row: AlertRow, logs: list[list]) -> tuple[int, Penalty, bool] | None:
        """The penalty a confirmation of the alert ``row`` recorded (:func:`penalty_reason`: its reason
        ends ``(alert ID)``, or names the same flag, kind and event, for the same seat: a record confirmed
        at another table or before an import, helper-114): (log index, the penalty, whether it is in
        force; one in force when there is one), or None when there is none."""
        if row.hand is None or not 0 < row.hand <= len(logs):
            return None
        log, own = logs[row.hand - 1], f"(alert {row.id})"
        flags = tuple(penalty_reason(row.kind, row.idx, None, legacy) + " (alert " for legacy in (False, True)
                      ) if row.idx is not None else ()
        in_force = dict(effective(log))
        given = [i for i, ev in enumerate(log) if isinstance(ev, Penalty) and (
            (ev.reason or "").endswith(own) or flags and ev.seat == row.seat and (ev.reason or "").startswith(flags))]
        now = [i for i in given if isinstance(in_force.get(i), Penalty)]  # a later confirm's, after a void
        return (now[0], in_force[now[0]], True) if now else (given[0], log[given[0]], False) if given else None

    def _penalty_left(self, row: AlertRow, logs: list[list]) -> str:
        """``"; its penalty (hand 1 #4: E play_out_of_turn) stays on the score: void it if it no longer
        applies"`` for an alert whose confirmation recorded a penalty still in force; ``""`` otherwise."""
        pen = self._alert_penalty(row, logs)
        if pen is None or not pen[2]:
            return ""
        i, ev, _ = pen
        return f"; its penalty (hand {row.hand} #{i}: {ev.seat} {ev.name or ev.points}) stays on the score: void it if it no longer applies"

    def penalty_in_force(self, alert_id: int) -> str:
        """``"hand 1 #6: N bogus_play"`` when a penalty for alert ``alert_id`` (:meth:`_alert_penalty`) is in
        force (a restored one counts); ``""`` otherwise, and for an alert of another table."""
        with self.lock, self.factory() as s:
            row = get_row(s, AlertRow, alert_id)
            pen = self._alert_penalty(row, self.logs) if row is not None and row.table_id == self.cfg.id else None
            hand = row.hand if row is not None else None
        return f"hand {hand} #{pen[0]}: {pen[1].seat} {pen[1].name or pen[1].points}" if pen and pen[2] else ""

    def _penalty_voided(self, row: AlertRow, logs: list[list]) -> str:
        """``"; its penalty (hand 1 #4: N bogus_play) was voided"`` for an alert whose confirmation recorded
        a penalty that a correction has since voided (or replaced by another kind of event); ``""`` otherwise."""
        pen = self._alert_penalty(row, logs)
        if pen is None or pen[2]:
            return ""
        i, ev, _ = pen
        return f"; its penalty (hand {row.hand} #{i}: {ev.seat} {ev.name or ev.points}) was voided"

    def _set_alert(self, s: Session, alert_id: int, status: str, by: str, note: str) -> AlertRow:
        row = get_row(s, AlertRow, alert_id)
        if row is None or row.table_id != self.cfg.id:
            raise NotFound(f"alert {alert_id} does not exist at table {self.cfg.id}")
        row.status, row.updated_at, row.resolved_by, row.note = status, time.time(), by, note
        return row

    def get_alert(self, alert_id: int) -> dict:
        with self.factory() as s:
            row = get_row(s, AlertRow, alert_id)
            if row is None or row.table_id != self.cfg.id:
                raise NotFound(f"alert {alert_id} does not exist at table {self.cfg.id}")
            return alert_dict(row)

    def resolve_open(self, about: Callable[[dict], bool], by: str, note: str) -> None:
        """Resolve every open alert ``about`` says a change made moot (a voided pass, a tile now played)."""
        for a in [a for a in self.open_alerts.values() if about(a)]:
            self.update_alert(a["id"], "resolved", by, note)

    def update_alert(self, alert_id: int, status: str, by: str, note: str = "") -> dict:
        """Set an alert's status (confirmed, dismissed, resolved) and announce it."""
        with self.lock:
            with transaction(self.factory) as s:
                row = self._set_alert(s, alert_id, status, by, note)
                msg, out = self._alert_message(s, row)
            out = self._announce_alert(msg, out)
            if out["category"] == "flag" and out["match"] == self.match_id and out["index"] is not None:
                # the overlay marks flagged plays while their alert is not dismissed: redraw it
                with transaction(self.factory) as s:
                    shown = self._message(s, "events", "flags", {"state": self.state()})
                    s.flush()
                self._publish([shown])
            return out

    def raise_alert(self, key: str, category: str, kind: str, message: str, details: dict | None = None,
                    hand: int | None = None, seat: str | None = None, severity: str = "action") -> dict | None:
        """Open an alert unless one with this key exists (deduplicated); returns it when new or reopened.
        ``severity="info"`` (:mod:`service.alert_levels`): stored resolved (by the worker) from the start, for the
        list and the timeline, never open; seen again, it counts ``repeats`` and stays closed."""
        with self.lock:
            with transaction(self.factory) as s:
                row = s.scalars(select(AlertRow).where(AlertRow.table_id == self.cfg.id, AlertRow.key == key)).first()
                now = time.time()
                if row is not None:
                    if row.status != "resolved" or row.severity == "info":
                        row.details = {**row.details, "repeats": row.details.get("repeats", 1) + 1}
                        return None
                    row.status, row.updated_at = "open", now
                else:
                    info = severity == "info"
                    row = AlertRow(table_id=self.cfg.id, key=key, category=category, kind=kind,
                                   match_id=self.match_id, hand=hand, idx=None, seat=seat, message=message,
                                   details=details or {}, status="resolved" if info else "open", severity=severity,
                                   created_at=now, updated_at=now, resolved_by="worker" if info else "",
                                   note=INFO_NOTE if info else "")
                    s.add(row)
                msg, out = self._alert_message(s, row)
            return self._announce_alert(msg, out)

    def _alert_message(self, s, row) -> tuple:
        """The feed message of an alert row (inside the transaction, so it commits with it) and its dict."""
        s.flush()
        return self._message(s, "alerts", "alert", alert_dict(row)), alert_dict(row)

    def _announce_alert(self, msg, out: dict) -> dict:
        """After the commit: track the alert and publish its message; returns the alert."""
        self._track(out)
        self._publish([msg])
        return out

    def resolve_category(self, category: str, by: str, note: str) -> None:
        """Resolve every open alert of a category (e.g. ``silent`` once the source speaks again)."""
        for a in [a for a in self.open_alerts.values() if a["category"] == category]:
            self.update_alert(a["id"], "resolved", by, note)

    # ---- worker status and hand confirmation -------------------------------------------
    def set_worker(self, announce: bool = True, **fields: object) -> None:
        """Update the worker status; a change of state is announced on the events feed."""
        with self.lock:
            changed = "state" in fields and fields["state"] != self.worker.get("state")
            self.worker.update(fields)
            if announce and changed:
                with transaction(self.factory) as s:
                    msg = self._message(s, "events", "worker", {"worker": dict(self.worker), "state": self.state()})
                self._publish([msg])

    def confirm_hand(self, hand: int, by: str, end: HandEnd | None = None) -> dict:
        """Record that the umpire confirmed hand ``hand``'s result (it must be over). ``end`` (a
        hand_end event) ends it first when it is not over yet, only if that makes it over: a 409
        leaves the log as it was.

        Raises:
            NotFound: no such hand.
            AppendRejected: the hand is not over (and ``end`` would not make it so).
        """
        with self.lock:
            hands = self.hand_states()
            if not 1 <= hand <= len(hands):
                raise NotFound(f"hand {hand} does not exist (the match has {plural(len(hands), 'hand')})")
            hs = hands[hand - 1][2]
            if hs.result is None:
                if hs.pending_end is not None:
                    raise AppendRejected(f"hand {hand} has ended ({hs.pending_end[0]}) and {_awaits(hs)}: record "
                                         "the reveals, then confirm")
                if end is None:
                    raise AppendRejected(f"hand {hand} is not over: end it first (a hand_end event)")
                logs = [list(x) for x in self.logs]
                logs[hand - 1].append(end)
                try:
                    after = self.hand_states(replay_match(self.cfg.rules, logs))[hand - 1][2]
                except (IllegalEvent, LayoutError, TileError, IndexError, ValueError) as exc:
                    raise AppendRejected(str(exc)) from None
                if after.result is None:
                    raise AppendRejected(f"hand {hand} would end ({end.kind}) but then {_awaits(after)}: record the "
                                         "reveals first, then confirm with this end")
                self.append(end, source="umpire", actor=by, hand=hand)
                hs = self.hand_states()[hand - 1][2]
            elif end is not None:  # the end it has stands: a different one is a correction, not a confirmation
                raise AppendRejected(f"hand {hand} is over already ({hs.result.kind}): confirm it without an end, "
                                     "or correct its end first")
            if hand in self.confirmed and self.confirmed[hand] != by:  # stored once: a second name was never saved
                raise Refused(f"hand {hand} was confirmed by {self.confirmed[hand]} already")
            if hand not in self.confirmed:  # confirming again changes nothing: no second message
                with transaction(self.factory) as s:
                    s.add(HandConfirmationRow(match_id=self.match_id, hand=hand, by=by, created_at=time.time()))
                    self.confirmed[hand] = by
                    msg = self._message(s, "events", "hand_confirmed", {"hand": hand, "by": by, "state": self.state()})
                self._publish([msg])
            # the camera's "hand over (inferred ...): correct it if ..." is answered: the umpire vouched for this
            # result (helper-176: it stayed in the queue after the confirmation)
            self.resolve_open(lambda a: a["kind"] == "hand_end_inferred" and a["match"] == self.match_id
                              and a["hand"] == hand, by, f"hand {hand}'s result confirmed")
            r = hs.result
            return {"hand": hand, "confirmed_by": by, "result": {"kind": r.kind, "winner": r.winner_seat,
                                                                  "side": r.winner_side, "awards": dict(r.awards)}}

    # ---- helpers for corrections -------------------------------------------------------
    def flags_with(self, hand: int, event: object | list) -> int:
        """How many flags hand ``hand`` would carry with ``event`` (or a list of events, as one change)
        appended to it: a dry run of :meth:`append` (nothing is written); a refused event counts as 10**6."""
        with self.lock:
            logs = [list(x) for x in self.logs]
            logs[hand - 1].extend(event if isinstance(event, list) else [event])
            try:
                match = replay_match(self.cfg.rules, logs)
            except (IllegalEvent, LayoutError, TileError, IndexError, ValueError):
                return 10 ** 6
            return sum(len(o.flags) for o in self.hand_states(match)[hand - 1][2].outcomes)

    def turn_before(self, hand: int, index: int) -> str | None:
        """The seat to play right before slot ``index`` of hand ``hand`` as the record now stands (the
        events in force before it, corrections applied); None when there is none or they do not replay."""
        with self.lock:
            before = [ev for i, ev in effective(self.logs[hand - 1]) if i < index]
            try:
                return replay(self.cfg.rules, before, self.hand_states()[hand - 1][2].context).turn
            except (IllegalEvent, LayoutError, TileError):
                return None

    def camera_events(self, hand: int, after: int) -> list[tuple[int, object]]:
        """The events in force of hand ``hand`` that the camera sent into slots after ``after``: (slot, event)."""
        with self.lock:
            tags = self.tags[hand - 1]
            return [(i, ev) for i, ev in effective(self.logs[hand - 1]) if i > after and tags[i][0] == "vision"]

    def is_lead(self, hand: int, index: int) -> bool:
        """Whether the event in force at slot ``index`` of ``hand`` is the hand's first play."""
        with self.lock:
            first = next((i for i, ev in effective(self.logs[hand - 1]) if isinstance(ev, Play)), None)
            return first == index

    def event_at(self, hand: int, index: int) -> object:
        """The event in force at a slot of a hand (after corrections)."""
        with self.lock:
            if not 1 <= hand <= len(self.logs):
                raise NotFound(f"hand {hand} does not exist (the match has {plural(len(self.logs), 'hand')})")
            log = self.logs[hand - 1]
            if 0 <= index < len(log) and isinstance(log[index], Correction):
                raise NotFound(f"event #{index} of hand {hand} is a correction (of #{log[index].replaces}): "
                               f"correct #{log[index].replaces} itself")
            if not 0 <= index < len(log):
                raise NotFound(f"hand {hand} has no event #{index} to correct")
            for i, ev in effective(log):
                if i == index:
                    return ev
            # the slot is there, holding nothing: a state the action conflicts with (helper-114: a void sent
            # twice got 404, a restore sent twice 422, a swap sent twice 409)
            raise Refused(f"event #{index} of hand {hand} was voided")

    def inferred_passes(self, hand: int, index: int) -> list[tuple[int, Pass]]:
        """The passes (slot, event), still in force, that the camera inferred from the play in slot
        ``index`` of ``hand``; [] when that slot is not a camera's play.

        The tracker infers a skipped seat's pass only with the play that skipped it and sends both
        from one read (``vision/tracking.py``, ``Tracker._emit``): the passes right before the play
        with the same source and tag.
        """
        with self.lock:
            if not 1 <= hand <= len(self.logs):
                return []
            log, tags = self.logs[hand - 1], self.tags[hand - 1]
            if not (0 <= index < len(log) and isinstance(log[index], Play) and tags[index][0] == "vision"):
                return []
            in_force = dict(effective(log))
            out = []
            i = index - 1
            while i >= 0 and isinstance(log[i], Pass) and tags[i] == tags[index]:
                if in_force.get(i) == log[i]:  # not voided or replaced since
                    out.append((i, log[i]))
                i -= 1
            return out[::-1]

    def is_voided(self, hand: int, index: int) -> bool:
        """Whether slot ``index`` of hand ``hand`` holds an event that a correction voided (and none restored)."""
        with self.lock:
            if not 1 <= hand <= len(self.logs):
                return False
            log = self.logs[hand - 1]
            if not 0 <= index < len(log) or isinstance(log[index], Correction):
                return False
            return all(i != index for i, _ in effective(log))

    def hand_log(self, hand: int) -> list:
        """A copy of hand ``hand``'s log (1-based over the match), corrections included; [] when absent."""
        with self.lock:
            return list(self.logs[hand - 1]) if 1 <= hand <= len(self.logs) else []

    def last_hand(self) -> tuple[list, HandContext, int] | None:
        """The current match's last hand as recorded (its log, corrections included, its context and
        its number in the match), for a camera worker that restarts to go on with it; None before the
        first event."""
        with self.lock:
            if not self.logs or not self.logs[-1]:
                return None
            return list(self.logs[-1]), self.hand_states()[-1][2].context, len(self.logs)

    def _source_bodies(self, source: str) -> list[dict]:
        """Bodies of the events ``source`` stored in the current match, newest first."""
        with self.lock, self.factory() as s:
            if self.match_id is None:
                return []
            rows = s.scalars(select(EventRow).where(EventRow.match_id == self.match_id, EventRow.source == source)
                             .order_by(EventRow.hand.desc(), EventRow.idx.desc()))
            return [dict(r.body, _stored=r.created_at) for r in rows]

    def source_clock(self, source: str) -> float | None:
        """Seconds a restarted worker's clock should start from, so that the times of a source's
        events (``t``) go on increasing across the restart: the time of its newest timed event in
        the current match plus the wall-clock seconds since that event was stored; None when the
        source has recorded no timed event in this match."""
        for body in self._source_bodies(source):
            if body.get("t") is not None:
                return round(float(body["t"]) + max(0.0, time.time() - body["_stored"]), 3)
        return None

    def source_frame(self, source: str) -> int | None:
        """The last frame index among the events ``source`` stored in the current match (a replayed
        file restarted goes on after it); None when none carries one."""
        frames = [int(b["frame"]) for b in self._source_bodies(source) if b.get("frame") is not None]
        return max(frames) if frames else None

    def scripted_progress(self) -> tuple[int, dict[tuple[int, int], tuple[int, int]]]:
        """Next script position to feed, and script (hand, item) -> (match hand, slot) fed so far."""
        with self.lock:
            done: dict[int, tuple[int, int]] = {}
            for h, tags in enumerate(self.tags, start=1):
                for i, (source, actor) in enumerate(tags):
                    if source == "scripted" and actor.startswith("script:"):
                        done[int(actor.split(":")[1])] = (h, i)
            return (max(done) + 1 if done else 0), done


def _awaits(hs: HandState) -> str:
    """"awaits the reveal of N, S" for a hand whose end waits for hands to be shown."""
    seats = [s for s in hs.order if s not in hs.revealed and hs.counts[s] and hs.known[s] is None]
    return f"awaits the reveal of {', '.join(seats)}" if seats else "awaits the reveals"


def parse_event(data: object) -> object:
    """An engine event from a request body (raises ValueError with a clear message)."""
    try:
        ev = event_from_dict(data)
    except ValidationError as exc:
        raise ValueError(f"not an event: {why_not_an_event(exc)}") from None
    return checked_event(ev)


def checked_event(ev: object) -> object:
    """``ev`` as the service stores it: a blank penalty ``name`` (an empty form field) is no name.

    Raises:
        ValueError: a penalty (or a correction to one) with neither a name nor points: the engine
            would score it 0 but no record or feed could write it.
    """
    if isinstance(ev, Correction) and ev.event is not None:
        return ev.model_copy(update={"event": checked_event(ev.event)})
    if not isinstance(ev, Penalty):
        return ev
    if ev.name is not None and not ev.name.strip():
        ev = ev.model_copy(update={"name": None})
    if ev.name is None and ev.points is None:
        raise ValueError(f"a penalty needs a rule-set penalty 'name' or explicit 'points' (seat {ev.seat} has "
                         "neither)")
    return ev


__all__ = ["TableRuntime", "TableConfig", "AppendRejected", "NotFound", "Refused", "parse_event", "checked_event", "RecordError"]
