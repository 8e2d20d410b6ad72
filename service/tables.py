"""The table registry and the live workers (one per table).

A worker reads its table's :class:`~service.sources.EventSource` and appends each item
through :meth:`TableRuntime.append`; an event the engine refuses becomes a ``desync``
alert. A watchdog raises a ``silent`` alert for a live table whose source has said
nothing for ``settings.silent_after_s``. Stopping the service does not stop a table:
tables that were live are resumed at the next start (``live`` in the database).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import unicodedata
from dataclasses import replace
from pathlib import Path

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from engine.events import Correction, Play
from engine.notation import format_event
from engine.record import event_to_dict, why_not_an_event
from engine.ruleset import (RULESET_DIR, Ruleset, RulesetError, is_bare_name, load_ruleset, ruleset_from_params,
                            ruleset_path, source_label)
from engine.seats import seats_for
from engine.simulate import simulate_match
from engine.words import plural
from service.alert_levels import settled_by, severity
from service.db import transaction
from service.feeds import Broker
from service.late import read_after
from service.live import AppendRejected, NotFound, TableConfig, TableRuntime
from service.models import TableRow, unreadable_columns
from service.reseat import ReadSeats
from service.schemas import ANYTIME_FIELDS, TableCreate, TablePatch, WorkerSpec
from service.settings import Settings
from service.sources import ScriptedSource, SourceItem, WorkerUnavailable, open_source, relative_note
from service.views import in_play
from vision.sources import SourceError, is_stream_url

log = logging.getLogger("dominocast.service")


def absolute_path(spec: str) -> str:
    """A relative path to a file or folder that exists, made absolute at registration (the service may be
    started from another folder later; helper-118: its table then failed on "no such profile file");
    a camera index, a URL, an absolute path or one that does not exist is kept as typed."""
    text = spec.strip()
    if not text or text.isdigit() or is_stream_url(text):
        return spec
    path = Path(text).expanduser()
    return str(path.resolve()) if not path.is_absolute() and path.exists() else spec


class Invalid(ValueError):
    """A request that validates as JSON but not as a table (unknown preset, seat not playing)."""


#: Tries at a free id for a table created without one, when other requests take ids meanwhile.
ID_ATTEMPTS = 20


class Conflict(RuntimeError):
    """A request at odds with the table's state (running, no script, ...)."""


def slug(name: str) -> str:
    """An id from a table's name: accents folded ("Mesa Ñandú" -> "mesa-nandu"), lower case, every run
    of other characters one "-", at most 64 characters; "" when no letter or digit is left (CJK, emoji)."""
    # NFKD splits "ñ" into "n" + a combining tilde (and "①" into "1"): drop the marks, keep the letters
    folded = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    return re.sub(r"[^a-z0-9]+", "-", folded.casefold()).strip("-")[:64].rstrip("-")


def free_id(s: Session, base: str) -> str:
    """``base`` (or "table" when empty) if no table has it, else the first free ``base-2``, ``base-3``, ...
    (cut so the id stays within 64 characters)."""
    base = base or "table"
    n, table_id = 1, base
    while s.get(TableRow, table_id) is not None:
        n += 1
        suffix = f"-{n}"
        table_id = base[:64 - len(suffix)].rstrip("-") + suffix
    return table_id


def resolve_rules(rules: str, overrides: dict | None) -> Ruleset:
    """The rule set a table registers with: preset ``rules`` (or TOML file) with ``overrides`` applied.
    Raises :class:`Invalid` with the rule set's one-line message; a relative path that is not there says
    where it was looked for, as the video source's does (helper-174)."""
    try:
        return load_ruleset(rules, **(overrides or {}))
    except RulesetError as exc:
        raise Invalid(f"rules: {exc}{'' if is_bare_name(rules) else relative_note(rules)}") from None


def rules_label(rules: str) -> str:
    """The ``rules`` a table stores and shows: a preset by its own name (``All-Fives`` as typed is
    ``all-fives``: :func:`engine.ruleset.preset_name`), a file as typed."""
    path = ruleset_path(rules)
    return path.stem if path.parent == RULESET_DIR else rules


def check_names(rules: Ruleset, label: str, players: dict, teams: dict) -> None:
    """Raise :class:`Invalid` for a player's seat or a team's side that does not play under ``rules`` (``label``:
    how the table names them)."""
    seats = seats_for(rules.players, rules.play_direction)
    for seat in players:
        if seat not in seats:
            raise Invalid(f"players: seat {seat!r} is not playing under {label} (seats: {', '.join(seats)})")
    from engine.record import teams_for

    sides = teams_for(rules)
    for side in teams:
        if side not in sides:
            raise Invalid(f"teams: no side {side!r} under {label} (sides: {', '.join(sides)})")


def worker_settings(spec: WorkerSpec, rules: Ruleset) -> tuple[dict, list | None]:
    """(worker config, script) a table stores for ``spec``: the script of a simulated match dealt under ``rules``,
    else None (a scripted table's is uploaded later: PUT .../script)."""
    config = {"speed": spec.speed, "interval": spec.interval}
    if spec.follow:
        config["follow"] = True
    script = None
    if spec.simulate is not None:
        config["simulate"] = spec.simulate.model_dump()
        script = [[event_to_dict(e) for e in hand] for hand in simulate_match(rules, spec.simulate.seed,
                                                                                 spec.simulate.hands)]
    return config, script


def table_config(row: TableRow) -> TableConfig:
    """The runtime's config of a stored table, its rule set from the parameters stored at registration
    (never re-read from the preset or file: that could change the scores of matches already recorded).

    Raises:
        Invalid: no stored rule set, one that does not load, or a stored column that cannot be read."""
    bad = unreadable_columns(row)
    if bad:
        raise Invalid("; ".join(f"its stored {col} cannot be read ({why})" for col, why in bad.items()))
    if row.ruleset is None:
        raise Invalid(f"table {row.id!r} has no stored rule set")
    try:
        rules = ruleset_from_params(row.ruleset, "stored rule set")
    except RulesetError as exc:
        raise Invalid(str(exc)) from None
    return TableConfig(id=row.id, name=row.name, rules=rules, preset=row.rules, overrides=dict(row.overrides or {}),
                       players=dict(row.players or {}), teams=dict(row.teams or {}), worker_kind=row.worker_kind,
                       worker_config=dict(row.worker_config or {}), view_key=row.view_key,
                       video_source=row.video_source, calibration=row.calibration)


def unloadable_reason(exc: BaseException) -> str:
    """Why a table cannot be loaded, in one line for its status and error pages (helper-172: a pydantic
    dump of many lines, with links, was stored as it was): a validation error's first error (its field and
    message), any other error's first line; the service log keeps all of it."""
    if isinstance(exc, ValidationError):
        return why_not_an_event(exc)
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def table_info(row: TableRow, runtime: TableRuntime | None = None, public: bool = False) -> dict:
    """A table as the API shows it (no view key); ``ruleset``: the parameters in force, stored at registration;
    ``public``: as a caller without the token reads it: its status (:func:`status_of`), and a simulated
    table's worker without the seed that deals its hands."""
    # the stored rule set keeps its source's id (``seed 000_...``); shown as GET /api/rulesets names it
    ruleset = row.ruleset if not isinstance(row.ruleset, dict) or not isinstance(row.ruleset.get("source"), str) \
        else {**row.ruleset, "source": source_label(row.ruleset["source"])}
    worker = {"kind": row.worker_kind, **(row.worker_config or {})}
    if public and isinstance(worker.get("simulate"), dict):
        # the seed deals every hand (engine.simulate): whoever knows it knows the hidden hands in play
        worker["simulate"] = {k: v for k, v in worker["simulate"].items() if k != "seed"}
    out = {"id": row.id, "name": row.name, "video_source": row.video_source, "calibration": row.calibration,
           "rules": row.rules, "overrides": row.overrides, "ruleset": ruleset, "players": row.players,
           "teams": row.teams, "worker": worker, "live": row.live,
           "protected": row.view_key is not None, "script_events": sum(len(h) for h in row.script or [])}
    if runtime is not None:
        out["status"] = status_of(runtime, public)
    return out


def status_of(rt: TableRuntime, public: bool = False) -> dict:
    """Source connected, frames per second, last read, current match and hand.

    ``match`` is the match's id (the ``/api/matches/{id}`` routes take it), ``match_number`` its
    number at this table (1, 2, ... as ``new_match`` counts them; helper-87: the id alone read as
    "match 7" at a table on its second match). ``public``: for a caller without the token, whose
    ``alerts_open`` leaves out the alerts hidden while the hand is in play (:meth:`TableRuntime.open_hidden`)."""
    hands = rt.hand_states()
    cur = None
    if hands:
        g, n, hs = hands[-1]
        cur = {"number": len(hands), "game": g, "in_game": n,
               "status": "over" if hs.result else "awaiting_reveal" if hs.pending_end else "in_progress",
               "turn": hs.turn}
    w, here = rt.worker, rt.open_here(rt.open_alerts)
    hidden = rt.open_hidden(rt.open_alerts, cur["number"]) if public and cur and in_play(
        cur["status"], bool(rt.match.games[g - 1].ended_by), rt.match.over) else 0
    return {**w, "silent_for": None if w.get("last_read") is None else round(time.time() - w["last_read"], 1),
            "match": rt.match_id, "match_number": rt.match_number, "hand": cur, "alerts_open": here - hidden,
            "alerts_open_earlier": len(rt.open_alerts) - here,
            "last_id": rt.seq}


class Registry:
    """All tables of this service: their runtimes and worker tasks."""

    def __init__(self, settings: Settings, factory: sessionmaker[Session], broker: Broker) -> None:
        self.settings = settings
        self.factory = factory
        self.broker = broker
        self.runtimes: dict[str, TableRuntime] = {}
        self.tasks: dict[str, asyncio.Task] = {}
        self.sources: dict[str, object] = {}
        #: tables whose stored config or log cannot be loaded (id -> why): listed with state "error",
        #: deletable, and refused with that reason by every other action (see :meth:`get`)
        self.broken: dict[str, str] = {}
        #: table id -> (hand, frame, seats): the read whose play held unplaced :func:`_place_held` moved up; the
        #: events of that read sent after it are judged again by the turn the move left (:meth:`_late_read`)
        self._late_reads: dict[str, tuple[int, int | None, ReadSeats]] = {}
        self._watchdog: asyncio.Task | None = None

    # ---- tables ----------------------------------------------------------------------
    def load_all(self) -> None:
        """Fold every table's log (at start). A table that cannot be loaded goes to :attr:`broken`."""
        with self.factory() as s:
            rows = s.scalars(select(TableRow).order_by(TableRow.created_at)).all()
        for row in rows:
            try:
                if row.ruleset is None:
                    self._store_ruleset(row)
                self._add_runtime(row)
            except Exception as exc:  # one broken table must not keep the others down
                self.broken[row.id] = unloadable_reason(exc)  # what its status and error pages say
                log.error("table %s cannot be loaded: %s", row.id, self.broken[row.id], exc_info=exc)  # all of it

    def _store_ruleset(self, row: TableRow) -> None:
        """Resolve and store the rule set of a table registered before tables had one (schema 0001):
        from then on, as for a table registered now, an edit of its file changes nothing recorded."""
        params = resolve_rules(row.rules, row.overrides).model_dump(mode="json")
        with transaction(self.factory) as s:
            s.get(TableRow, row.id).ruleset = params
        row.ruleset = params

    def _add_runtime(self, row: TableRow) -> TableRuntime:
        rt = TableRuntime(table_config(row), self.factory, self.broker, self.settings.min_confidence)
        rt.load()
        if row.worker_kind == "scripted" and row.script:
            # the log says how far the script went: a table that played it to the end is finished,
            # also after a restart (it said "stopped" at position 0)
            done, total = rt.scripted_progress()[0], sum(len(hand) for hand in row.script)
            rt.set_worker(announce=False, position=done, total=total, state="finished" if done >= total else "stopped")
        elif row.worker_end and not row.live:  # how it ended before the restart (helper-83: a reason lost)
            rt.set_worker(announce=False, state=row.worker_end.get("state", "stopped"),
                          error=row.worker_end.get("error"))
        self.runtimes[row.id] = rt
        return rt

    def row(self, table_id: str) -> TableRow:
        with self.factory() as s:
            row = s.get(TableRow, table_id)
        if row is None:
            raise NotFound(f"no table {table_id!r}")
        return row

    def get(self, table_id: str) -> TableRuntime:
        """The table's runtime. Raises NotFound (no such table), or Conflict (a table that cannot be loaded)."""
        rt = self.runtimes.get(table_id)
        if rt is None:
            if table_id in self.broken:
                raise Conflict(f"table {table_id!r} cannot be loaded: {self.broken[table_id]} (delete it, or "
                               "fix it and restart the service)")
            raise NotFound(f"no table {table_id!r}")
        return rt

    def broken_status(self, row: TableRow) -> dict:
        """The status of a table that cannot be loaded: state ``error`` and why."""
        return {"kind": row.worker_kind, "state": "error", "connected": False,
                "error": f"the table cannot be loaded: {self.broken[row.id]}"}

    def create(self, body: TableCreate) -> TableRow:
        """Register a table (validated against its rule set) and open its first match.

        Without ``body.id`` the id is the name's :func:`slug`, made unique (``table-2``, ...).

        Raises:
            Invalid: unknown rule set, a seat or side that does not play under it.
            Conflict: a table with ``body.id`` exists already.
        """
        rules = resolve_rules(body.rules, body.overrides)
        label = rules_label(body.rules)
        check_names(rules, label, body.players, body.teams)
        config, script = worker_settings(body.worker, rules)
        row = TableRow(id=body.id, name=body.name, video_source=absolute_path(body.video_source),
                       calibration=absolute_path(body.calibration),
                       rules=label, overrides=body.overrides, ruleset=rules.model_dump(mode="json"),
                       players=dict(body.players), teams=body.teams,
                       worker_kind=body.worker.kind, worker_config=config, script=script, view_key=body.view_key,
                       live=False, created_at=time.time())
        for attempt in range(ID_ATTEMPTS):
            try:
                with transaction(self.factory) as s:
                    if body.id is None:  # the user gave no id: any free one will do
                        row.id = free_id(s, slug(body.name))
                    elif s.get(TableRow, body.id) is not None:
                        raise Conflict(f"table {body.id!r} exists already")
                    s.add(row)
                break
            except IntegrityError:  # another request took the id meanwhile
                if body.id is not None or attempt == ID_ATTEMPTS - 1:
                    raise Conflict(f"table {row.id!r} exists already") from None
                # helper-143: six tables of one name created at once, three got 409: take the next free id
        rt = self._add_runtime(row)
        rt.new_match(body.title)
        return row

    def update(self, table_id: str, body: TablePatch) -> TableRow:
        """Change a registered table in place (PATCH /api/tables/{id}): its id, overlay address, view key and
        matches stay. The name, players and teams change at any time, the overlay and console showing them at
        once; the video source, calibration and worker only with the table stopped; the rules (and overrides)
        only with it stopped and before the current match's first event, since the events recorded would be
        scored anew (start a new match first). The current match takes the new players and rules; earlier
        matches keep theirs.

        Raises:
            NotFound: no such table.
            Conflict: the table is live, or its current match has events, for a field that needs it not to be;
                a rule change on a table whose uploaded script was checked under the old rules.
            Invalid: an unknown rule set, or a seat or side that does not play under the rules in force.
        """
        rt = self.get(table_id)
        given = body.model_fields_set
        stopped_only = sorted(given - ANYTIME_FIELDS)
        # no event (an umpire's, on a scripted table) between the checks and the change, and no start: this runs in
        # a worker thread, and a start between the check and the change ran with the settings replaced (helper-251)
        with rt.lock:
            row = self.row(table_id)
            if stopped_only and self.is_live(table_id):
                raise Conflict(f"table {table_id!r} is running: stop it before changing its {', '.join(stopped_only)} "
                               f"(only {', '.join(sorted(ANYTIME_FIELDS))} change while it runs)")
            return self._update(rt, row, body, given)

    def _update(self, rt: TableRuntime, row: TableRow, body: TablePatch, given: set[str]) -> TableRow:
        table_id = row.id
        cfg, table = rt.cfg, {}
        if given & {"rules", "overrides"}:
            if any(rt.logs):
                n = plural(sum(len(h) for h in rt.logs), "event")
                raise Conflict(f"table {table_id!r}: match {rt.match_number} has {n} recorded under "
                               f"{cfg.preset}, which other rules would score anew: start a new match "
                               f"(POST /api/tables/{table_id}/matches), then change the rules")
            preset = body.rules if "rules" in given else row.rules
            overrides = body.overrides if "overrides" in given else {}
            rules = resolve_rules(preset, overrides)
            if row.script and not (row.worker_config or {}).get("simulate"):
                raise Conflict(f"table {table_id!r} holds an uploaded script, checked to replay under {cfg.preset}: "
                               "register a new table for other rules")
            cfg = replace(cfg, rules=rules, preset=rules_label(preset), overrides=dict(overrides))
            table.update(rules=cfg.preset, overrides=cfg.overrides, ruleset=rules.model_dump(mode="json"))
        if "name" in given:
            cfg = replace(cfg, name=body.name)
        if "players" in given:
            cfg = replace(cfg, players=dict(body.players))
        if "teams" in given:
            cfg = replace(cfg, teams=dict(body.teams))
        check_names(cfg.rules, cfg.preset, cfg.players, cfg.teams)
        for column in ("video_source", "calibration"):
            if column in given:
                table[column] = absolute_path(getattr(body, column))
                cfg = replace(cfg, **{column: table[column]})
        if "worker" in given or (given & {"rules", "overrides"} and (row.worker_config or {}).get("simulate")):
            # a simulated match is dealt anew under the rules in force
            spec = body.worker if "worker" in given else WorkerSpec(kind=row.worker_kind, **row.worker_config)
            config, script = worker_settings(spec, cfg.rules)
            if script is not None and script != row.script and any(rt.logs):
                raise Conflict(f"table {table_id!r}: match {rt.match_number} holds events of the match dealt now: "
                               "start a new match, then deal another one")
            if script is not None:  # an uploaded script stays (PUT .../script replaces it)
                table["script"] = script
            cfg = replace(cfg, worker_kind=spec.kind, worker_config=config)
            table.update(worker_kind=spec.kind, worker_config=config)
        table.update(name=cfg.name, players=cfg.players, teams=cfg.teams)
        rt.reconfigure(cfg, table)
        return self.row(table_id)

    def new_match(self, table_id: str, title: str = "", players: dict[str, str] | None = None) -> dict:
        """Start the table's next match (:meth:`TableRuntime.new_match`), with ``players`` (None: the table's).
        Raises NotFound, Conflict (a table that cannot be loaded), Invalid (a seat not playing)."""
        rt = self.get(table_id)
        if players is not None:
            check_names(rt.cfg.rules, rt.cfg.preset, players, {})
        return rt.new_match(title, players)

    def is_live(self, table_id: str) -> bool:
        """Whether the table's worker runs: a worker task not done yet, or a started manual table.
        A stopped, finished or failed (``error``) table is not live."""
        task = self.tasks.get(table_id)
        if task is not None and not task.done():
            return True
        rt = self.runtimes.get(table_id)
        return rt is not None and rt.cfg.worker_kind == "manual" and rt.worker["state"] == "running"

    def live_ids(self) -> list[str]:
        """The ids of the live tables (:meth:`is_live`), sorted."""
        return sorted(t for t in self.runtimes if self.is_live(t))

    async def delete(self, table_id: str) -> None:
        """Remove a table that is not live, with its logs, and end its open feeds.

        Raises:
            NotFound: no such table.
            Conflict: the table is live (stop it first).
        """
        self.row(table_id)
        if self.is_live(table_id):
            raise Conflict(f"table {table_id!r} is live: stop it first")
        if table_id in self.tasks or table_id in self.sources:  # a worker that ended (finished, error)
            await self.stop(table_id, persist=False)
        with transaction(self.factory) as s:
            s.delete(s.get(TableRow, table_id))
        self.runtimes.pop(table_id, None)
        self.broken.pop(table_id, None)
        # a feed left open would get the messages of a new table registered under this id
        self.broker.close(table_id, f"table {table_id!r} was deleted", code=4404)

    def check_scriptable(self, table_id: str) -> TableRuntime:
        """The table's runtime if a script may be uploaded to it now; else NotFound or Conflict
        (see :meth:`set_script`)."""
        rt = self.get(table_id)
        if rt.cfg.worker_kind != "scripted":
            raise Conflict(f"table {table_id!r} is {rt.cfg.worker_kind}: only a scripted table replays a script")
        if self.is_live(table_id):
            raise Conflict(f"table {table_id!r} is running: stop it before uploading a script")
        return rt

    def set_script(self, table_id: str, hands: list[list[dict]]) -> int:
        """Store the script a scripted table replays; its next start begins a new match.

        Raises:
            NotFound: no such table.
            Conflict: the table is not scripted (only a scripted table replays a script), or it is live
                (the new match would take the running one's place: its events would go on out of view).
        """
        rt = self.check_scriptable(table_id)
        with transaction(self.factory) as s:
            row = s.get(TableRow, table_id)
            if row is None:
                raise NotFound(f"no table {table_id!r}")
            row.script = hands
        if any(rt.logs):
            rt.new_match(rt.match_title)
        return sum(len(h) for h in hands)

    def _set_live(self, table_id: str, live: bool, ended: dict | None = None) -> None:
        """Store whether the table is live, and how its worker ended (``{"state", "error"}``; None:
        running, or stopped by hand), which a restart shows again."""
        with transaction(self.factory) as s:
            row = s.get(TableRow, table_id)
            row.live, row.worker_end = live, ended

    # ---- workers -------------------------------------------------------------------------
    async def start(self, table_id: str, speed: float | None = None, follow: bool | None = None) -> dict:
        """Start the table's worker (idempotent); ``speed`` and ``follow`` (a vision table's photo folder followed
        as photos arrive) are kept in its worker config. Raises WorkerUnavailable, Conflict, NotFound."""
        rt = self.get(table_id)
        # under the table's lock, which a PATCH (:meth:`update`, in a worker thread) holds from its "not live" check
        # to its change: the worker starts with the settings before it or after it, never replaced under it
        # (helper-251). Nothing here awaits: the event loop waits at most for that change's commit.
        with rt.lock:
            return self._start(rt, table_id, speed, follow)

    def _start(self, rt: TableRuntime, table_id: str, speed: float | None, follow: bool | None) -> dict:
        row = self.row(table_id)
        if table_id in self.tasks and not self.tasks[table_id].done():
            return status_of(rt)
        cfg = dict(row.worker_config or {})
        if speed is not None or follow is not None:
            cfg.update({k: v for k, v in (("speed", speed), ("follow", follow)) if v is not None})
            with transaction(self.factory) as s:
                s.get(TableRow, table_id).worker_config = cfg
        if row.worker_kind == "manual":
            rt.set_worker(state="running", connected=True, error=None, last_read=time.time())
            self._set_live(table_id, True)
            return status_of(rt)
        if row.worker_kind == "scripted":
            if not row.script:
                raise Conflict(f"table {table_id!r} has no script: upload one (PUT /api/tables/{table_id}/script) "
                               "or register it with worker.simulate")
            start, done = rt.scripted_progress()
            source = ScriptedSource(row.script, start, done, speed=cfg.get("speed", 1.0),
                                    interval=cfg.get("interval", 2.0))
        else:
            info = {"id": row.id, "video_source": row.video_source, "calibration": row.calibration,
                    "rules": row.rules, "overrides": dict(row.overrides or {}),
                    "ruleset": rt.cfg.rules.model_dump(mode="json"), "players": row.players,
                    "worker_config": cfg, "resume": rt.last_hand(), "hands_recorded": len(rt.logs),
                    "clock_s": rt.source_clock(row.worker_kind), "resume_frame": rt.source_frame(row.worker_kind),
                    # the annotated video shows the table's score, umpire's corrections and past hands included
                    "scores": lambda: dict(rt.match.games[-1].scores) if rt.match.games else {},
                    "after_match": rt.match_number > 1 and not rt.logs}
            try:
                source = open_source(row.worker_kind, info)
            except WorkerUnavailable as exc:
                rt.set_worker(announce=False, error=str(exc))  # the status says why it did not start
                raise
        self._set_live(table_id, True)
        st = source.stats()  # its own rate too, not the last run's (helper-83: 8.0 fps at position 0)
        rt.set_worker(state="running", connected=st.connected, error=None, started_at=time.time(),
                      last_read=time.time(), total=st.total, position=st.position, fps=st.fps, ended=st.ended)
        self.sources[table_id] = source
        rt.record_listener = source if hasattr(source, "sync_record") else None
        self.tasks[table_id] = asyncio.create_task(self._run(rt, source), name=f"worker-{table_id}")
        return status_of(rt)

    async def stop(self, table_id: str, persist: bool = True) -> dict:
        """Stop the worker; ``persist``: the table stays stopped after a restart too (and a followed photo folder
        reads the photos that came first: :meth:`service.vision_source.VisionSource.read_held`)."""
        rt = self.get(table_id)
        task = self.tasks.pop(table_id, None)
        source = self.sources.pop(table_id, None)
        if persist and task is not None and getattr(source, "read_held", lambda: False)():
            # a followed photo folder reads what came before it stops (service.vision_source.read_held)
            from service.vision_source import STOP_READ_S

            await asyncio.wait({task}, timeout=STOP_READ_S)
        rt.record_listener = None
        if task is not None:
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        if source is not None:
            await source.aclose()
        if persist:
            self._set_live(table_id, False)
            rt.set_worker(state="stopped", connected=False, error=None)  # a failure the umpire has seen
            self._close_camera_alerts(rt, "the table was stopped")
        return status_of(rt)

    async def _run(self, rt: TableRuntime, source) -> None:  # noqa: ANN001
        kind = source.kind
        try:
            async for item in source:
                self._feed(rt, source, item)
            rt.set_worker(state="finished", connected=False)
            self._set_live(rt.cfg.id, False, {"state": "finished"})
            self._close_camera_alerts(rt, "the source ended")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the table reports it; the service goes on
            if isinstance(exc, (ValueError, OSError, SourceError)):  # bad input (a source, a profile): one line
                log.warning("worker %s of table %s failed: %s", kind, rt.cfg.id, exc)
                error = str(exc)
            else:  # a bug: its traceback is worth the log
                log.exception("worker %s of table %s failed", kind, rt.cfg.id)
                error = f"internal error of the {kind} worker ({type(exc).__name__}: {exc}); the service log has details"
            rt.set_worker(state="error", connected=False, error=error)
            # a failed table is not live: deletable, and not resumed at restart, where its error is shown again
            self._set_live(rt.cfg.id, False, {"state": "error", "error": error})
            self._close_camera_alerts(rt, "the worker stopped on an error (see the table status)")
        finally:
            self._late_reads.pop(rt.cfg.id, None)
            if rt.record_listener is source:
                rt.record_listener = None

    @staticmethod
    def _close_camera_alerts(rt: TableRuntime, why: str) -> None:
        """A camera no one reads any more: its ``camera_lost`` ("reconnecting") and ``camera_frozen``
        alerts no longer hold (helper-66: they stayed open on a stopped or failed table). A service
        shutting down keeps them: the table resumes at its restart."""
        for category in ("silent", "camera"):
            rt.resolve_category(category, "worker", why)

    def _feed(self, rt: TableRuntime, source, item: SourceItem) -> None:  # noqa: ANN001
        stats = source.stats()
        rt.set_worker(announce=False, last_read=time.time(), fps=stats.fps, position=stats.position,
                      total=stats.total, connected=stats.connected, ended=stats.ended)
        if any(a["category"] == "silent" for a in rt.open_alerts.values()):
            rt.resolve_category("silent", "worker", "the source speaks again")
        if item.alert is not None:  # a vision notice (uncertain read, bumped tile, ...): open, or for information
            a = item.alert
            n = len(rt.logs)
            settled = settled_by(a, n or None)
            if settled is not None:  # an earlier notice the tracker has since settled (a picture, a corrected play)
                rt.resolve_open(settled[0], "worker", settled[1])
            # the seat too: two passes inferred at one read are two alerts, not one "seen 2x" naming the first
            rt.raise_alert(f"{source.kind}:{rt.match_id}:{n}:{a.get('kind')}:{a.get('frame')}:{a.get('tile')}"
                           f"{':' + a['seat'] if a.get('seat') else ''}",
                           source.kind, str(a.get("kind") or "notice"), str(a.get("message") or a.get("kind")),
                           {k: v for k, v in a.items() if k not in ("kind", "message", "type")},
                           hand=n or None, seat=a.get("seat"), severity=severity(a))
        if item.event is None:
            return
        item = self._late_read(rt, item)
        try:
            res = rt.append(item.event, source=source.kind, actor=item.tag, hand=item.hand, new_hand=item.new_hand)
            source.acknowledge(item, res["hand"], res["index"])
            if item.new_hand:  # the recorded plays a restart could not find belong to a hand now left
                rt.resolve_open(lambda a: a["kind"] == "resume_unseen", "worker", f"hand {res['hand']} began")
            if isinstance(item.event, Play):  # helper-93: "touches no open end" stayed open once it was played
                seen = _held_read(rt, item.event, res["hand"])  # before its alert goes
                rt.resolve_open(_unplaced(item.event, res["hand"]), "worker",
                                f"{item.event.tile} was recorded as play #{res['index']}")
                if seen is not None and _place_held(rt, source, res["hand"], res["index"], item.event, seen):
                    self._late_reads[rt.cfg.id] = (res["hand"], item.event.frame, ReadSeats())
        except (AppendRejected, NotFound) as exc:
            getattr(source, "rejected", lambda item: None)(item)
            n = len(rt.logs)
            rt.raise_alert(f"desync:{rt.match_id}:{n}:{len(rt.logs[-1]) if n else 0}", "desync", "desync",
                           f"the engine cannot apply {format_event(item.event)}: {exc}",
                           {"event": event_to_dict(item.event), "tag": item.tag}, hand=n or None,
                           seat=getattr(item.event, "seat", None))

    def _late_read(self, rt: TableRuntime, item: SourceItem) -> SourceItem:
        """``item`` as the camera would have sent it had it known the move :func:`_place_held` made: an event of the
        read whose late play was moved up (a draw, the drawer's play) was given its seat by the turn with that play
        last (helper-251: N's draw and 1-0, read with N's late 1-1, recorded S's, out of turn); it goes to the seat
        to play now (:mod:`service.reseat`). The events of the next read are the camera's own again."""
        late = self._late_reads.get(rt.cfg.id)
        if late is None:
            return item
        hand, frame, seats = late
        if item.new_hand or getattr(item.event, "frame", None) != frame or hand != len(rt.logs):
            del self._late_reads[rt.cfg.id]
            return item
        seat = seats.seat(item.event, rt.turn_before(hand, len(rt.hand_log(hand))))
        return item if seat is None else replace(item, event=item.event.model_copy(update={"seat": seat}))

    async def resume_live(self) -> None:
        """Restart the workers of the tables that were live when the service stopped."""
        with self.factory() as s:
            ids = [r.id for r in s.scalars(select(TableRow).where(TableRow.live.is_(True)))]
        for table_id in ids:
            if table_id not in self.runtimes:
                continue
            try:
                await self.start(table_id)
            except (WorkerUnavailable, Conflict) as exc:
                self.runtimes[table_id].set_worker(state="unavailable", error=str(exc))

    async def shutdown(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
        for table_id in list(self.tasks):
            await self.stop(table_id, persist=False)

    def start_watchdog(self) -> None:
        self._watchdog = asyncio.create_task(self._watch(), name="watchdog")

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.settings.watch_interval_s)
            try:
                self.check_silence()
                self.check_cameras()
            except Exception:  # noqa: BLE001
                log.exception("watchdog")

    def check_cameras(self) -> list[dict]:
        """Keep each running table's ``connected`` true to its camera, and raise a ``camera_lost``
        alert (category ``silent``: it resolves when frames come again) when a camera or stream has
        delivered nothing for ``settings.lost_after_s``; the worker itself hears nothing then. A
        camera whose picture has not changed at all for ``settings.frozen_after_s`` raises a
        ``camera_frozen`` alert (category ``camera``), resolved when the picture moves again."""
        raised = []
        for table_id, task in list(self.tasks.items()):
            source, rt = self.sources.get(table_id), self.runtimes.get(table_id)
            if task.done() or source is None or rt is None:  # rt: a table deleted meanwhile
                continue
            stats = source.stats()
            if rt.worker.get("connected") != stats.connected:
                rt.set_worker(announce=False, connected=stats.connected)
            frozen = self._check_frozen(rt, source)
            if frozen:
                raised.append(frozen)
            down = getattr(source, "down_since_s", lambda: None)()  # only a camera or stream has one
            if down is None or stats.last_read is None or time.time() - stats.last_read < self.settings.lost_after_s:
                continue
            alert = rt.raise_alert(f"camera_lost:{int(down)}", "silent", "camera_lost",
                                   f"table {rt.cfg.name}: the camera has delivered no frame for "
                                   f"{time.time() - stats.last_read:.0f} s (reconnecting)",
                                   {"down_since_s": round(down, 1)})
            if alert:
                raised.append(alert)
        return raised

    def _check_frozen(self, rt: TableRuntime, source) -> dict | None:  # noqa: ANN001
        """The ``camera_frozen`` alert of one table's source, when raised now (see :meth:`check_cameras`)."""
        since, frozen = getattr(source, "frozen", lambda: (0.0, 0.0))()  # only a camera or stream has one
        if frozen < self.settings.frozen_after_s:
            moved = getattr(source, "picture_moved", lambda: True)()  # a restart's first frame is no move
            if frozen == 0.0 and moved and any(a["category"] == "camera" for a in rt.open_alerts.values()):
                rt.resolve_category("camera", "worker", "the camera's picture moves again")
            return None
        if any(a["category"] == "camera" for a in rt.open_alerts.values()):
            return None  # still the freeze an open alert tells (a restart on a stuck camera)
        started = rt.worker.get("started_at") or 0  # source times restart with the worker
        return rt.raise_alert(f"camera_frozen:{started:.0f}:{since:.1f}", "camera", "camera_frozen",
                              f"table {rt.cfg.name}: the camera's picture has not changed at all for {frozen:.0f} s "
                              "(a frozen stream or capture?): plays made meanwhile are not seen",
                              {"frozen_for_s": round(frozen, 1)})

    def check_silence(self, now: float | None = None) -> list[dict]:
        """Raise a ``silent`` alert for each running source that has said nothing for too long."""
        now = now or time.time()
        raised = []
        for table_id, task in list(self.tasks.items()):
            rt = self.runtimes.get(table_id)
            if rt is None:  # deleted meanwhile
                continue
            last = rt.worker.get("last_read") or rt.worker.get("started_at") or now
            if task.done() or now - last < self.settings.silent_after_s:
                continue
            alert = rt.raise_alert(f"silent:{int(last)}", "silent", "silent_source",
                                   f"table {rt.cfg.name}: no event from the {rt.worker['kind']} source for "
                                   f"{now - last:.0f} s", {"last_read": last})
            if alert:
                raised.append(alert)
        return raised


def _held_read(rt: TableRuntime, play: Play, hand: int) -> tuple[float | None, int] | None:
    """The read (t s, frame) of the open ``unplaced_tile`` alert of ``play``'s tile in ``hand``, when the camera
    saw that tile before this play's own read (held unplaced: laid against a play the umpire voided); else None."""
    key = sorted((play.tile.a, play.tile.b))
    reads = [(d.get("t"), d["frame"]) for a in rt.open_alerts.values()
             if a["kind"] == "unplaced_tile" and a.get("match") == rt.match_id and a.get("hand") == hand
             and isinstance((d := a.get("details") or {}).get("frame"), int) and sorted(d.get("tile") or ()) == key]
    first = min(reads, key=lambda r: r[1], default=None)
    return first if first is not None and (play.frame is None or first[1] < play.frame) else None


def _place_held(rt: TableRuntime, source, hand: int, index: int, play: Play,  # noqa: ANN001
                seen: tuple[float | None, int]) -> bool:
    """A tile the camera held unplaced since read ``seen`` (t s, frame) and sent as play #``index`` only once the
    umpire undid a void: the events in force recorded right before it that the camera read after ``seen`` (a
    play on another end, a draw) came after it at the table (h243 defect 4: N's 1-1 recorded behind S's 4-4,
    out_of_turn, N 25 S 25 for N 15 S 35). It moves above them, with the time and frame of the read that saw it,
    and they each go one slot down (as ``move-event`` would, in one change), when that leaves the hand with
    fewer flags; otherwise (a tile that lay off the line, then was laid after them) an alert names the move for
    the umpire. The camera's tracker then takes in the record (``sync_record``), as after the umpire's change.
    Returns whether the play was moved."""
    later = read_after(rt.hand_log(hand), index, seen[1])
    if not later:
        return False
    moved = play.model_copy(update={"t": seen[0], "frame": seen[1]})
    order = [moved] + [ev for _, ev in later]
    why = f"the camera saw {play.tile} (read {seen[1]}) before the events recorded ahead of it"
    change = [Correction(replaces=i, event=ev, by="camera", reason=why)
              for i, ev in zip([i for i, _ in later] + [index], order)]
    if rt.flags_with(hand, change) >= rt.flags_with(hand, []):  # the table's order is not clear: the umpire's call
        first = later[0][0]
        rt.raise_alert(f"held:{rt.match_id}:{hand}:{index}", source.kind, "recorded_late",
                       f"{format_event(play)} (#{index}) was seen off the line of play at frame {seen[1]}, before "
                       f"#{first} was read: recorded late (a void undone?); if it was laid before #{first}, move it "
                       "up (the console's \"move up\")",
                       {"index": index, "before": first, "frame": seen[1], "tile": [play.tile.a, play.tile.b]},
                       hand=hand, seat=play.seat)
        return False
    try:
        rt.append(change, source="umpire", actor="camera", hand=hand)
    except (AppendRejected, NotFound):
        return False  # the record moved meanwhile: the events stay where the camera sent them
    return True


def _unplaced(play: Play, hand: int):  # noqa: ANN202 - an alert predicate
    """Whether an alert is an ``unplaced_tile`` or ``after_hand_end`` of ``hand`` about the tile ``play`` laid
    (either way round), or the ``desync`` of the camera's play of it, refused (helper-174: laid after an end
    the umpire voided, the tile is a play once the camera looks at it again)."""
    key = sorted((play.tile.a, play.tile.b))

    def about(a: dict) -> bool:
        d = a.get("details") or {}
        shown = d.get("tile") if a["kind"] != "desync" else (
            (d.get("event") or {}).get("tile") if (d.get("event") or {}).get("type") == "play" else None)
        return (a["kind"] in ("unplaced_tile", "after_hand_end", "desync") and a.get("hand") == hand
                and shown is not None and sorted(shown) == key)

    return about
