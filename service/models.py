"""The service's tables (SQLAlchemy 2.x ORM). The Alembic migrations in ``migrations/`` create them.

The event log is the truth: ``events`` is append-only (one row per engine event,
corrections included, numbered per hand as the engine numbers its log); every derived
state is a fold of it. ``messages`` holds what the feeds announced, in order, so a
client that reconnects with ``Last-Event-ID`` / ``?since=`` gets exactly what it missed.
"""

from __future__ import annotations

from sqlalchemy import JSON, Boolean, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator


class Unreadable(str):
    """The stored text of a JSON column that does not parse, or holds another kind of JSON (``error``: why),
    read in place of a value so that one damaged row cannot stop every query over its table (helper-156: the
    service did not start)."""

    error: str = ""


class StoredJSON(TypeDecorator):
    """A JSON column (same DDL as ``JSON``) whose unparsable stored text, or a value that is not a
    ``shape`` (``dict`` or ``list``; null passes), reads as :class:`Unreadable` instead of raising
    ``json.JSONDecodeError`` while the rows are fetched, or a ``TypeError`` wherever it is used."""

    impl = JSON
    cache_ok = True
    _KINDS = {dict: "object", list: "list", str: "string", int: "number", float: "number", bool: "boolean"}

    def __init__(self, shape: type) -> None:
        super().__init__()
        self.shape = shape

    def result_processor(self, dialect, coltype):  # noqa: ANN001, ANN201 - SQLAlchemy's hook
        inner = super().result_processor(dialect, coltype)
        if inner is None:
            return None

        def process(value):  # noqa: ANN001, ANN202
            try:
                got = inner(value)
            except ValueError as exc:  # json.JSONDecodeError
                why = str(exc)
            else:
                if got is None or isinstance(got, self.shape):
                    return got
                why = f"a JSON {self._KINDS[self.shape]} is expected, not a {self._KINDS.get(type(got), 'value')}"
            out = Unreadable(value)
            out.error = why
            return out

        return process


def unreadable_columns(row: Base) -> dict[str, str]:
    """Column name -> why, for every :class:`StoredJSON` column of ``row`` that cannot be read (not JSON, or
    not the JSON it holds)."""
    return {c.key: getattr(row, c.key).error for c in row.__table__.columns
            if isinstance(getattr(row, c.key, None), Unreadable)}


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    """A registered table: its camera, calibration, rule set, players and worker."""

    __tablename__ = "tables"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    video_source: Mapped[str] = mapped_column(Text, default="")
    calibration: Mapped[str] = mapped_column(Text, default="")
    rules: Mapped[str] = mapped_column(String(200))  # as registered: a preset name or a TOML path
    overrides: Mapped[dict] = mapped_column(StoredJSON(dict), default=dict)
    # every parameter of the rule set (overrides applied), resolved once at registration: a restart, another
    # working folder or an edited TOML file must not change a match already recorded; None only on rows of
    # schema 0001 until the first start stores them
    ruleset: Mapped[dict | None] = mapped_column(StoredJSON(dict), nullable=True)
    players: Mapped[dict] = mapped_column(StoredJSON(dict), default=dict)
    teams: Mapped[dict] = mapped_column(StoredJSON(dict), default=dict)
    worker_kind: Mapped[str] = mapped_column(String(32))
    worker_config: Mapped[dict] = mapped_column(StoredJSON(dict), default=dict)
    script: Mapped[list | None] = mapped_column(StoredJSON(list), nullable=True)
    view_key: Mapped[str | None] = mapped_column(String(200), nullable=True)
    live: Mapped[bool] = mapped_column(Boolean, default=False)
    # how the worker last ended, shown again after a restart: {"state": "finished"} or {"state": "error",
    # "error": why}; None while it runs or after an umpire's stop
    worker_end: Mapped[dict | None] = mapped_column(StoredJSON(dict), nullable=True)
    created_at: Mapped[float] = mapped_column(Float)


class MatchRow(Base):
    """A match played at a table (the table's newest match is its current one)."""

    __tablename__ = "matches"
    __table_args__ = {"sqlite_autoincrement": True}  # ids are never reused, even after a delete
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(String(200), default="")
    # the table's players and rule set parameters when the match was played: a later change of the table's
    # (PATCH /api/tables/{id}, a new match's players) must not rename or rescore a match already recorded;
    # None only on rows older than schema 0004 whose table had no stored rule set (the table's then apply)
    players: Mapped[dict | None] = mapped_column(StoredJSON(dict), nullable=True)
    ruleset: Mapped[dict | None] = mapped_column(StoredJSON(dict), nullable=True)
    created_at: Mapped[float] = mapped_column(Float)


class EventRow(Base):
    """One engine event of a hand's append-only log (``idx``: its slot, as corrections refer to it)."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("match_id", "hand", "idx", name="uq_events_slot"), {"sqlite_autoincrement": True})
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    hand: Mapped[int] = mapped_column(Integer)  # 1-based over the match
    idx: Mapped[int] = mapped_column(Integer)
    body: Mapped[dict] = mapped_column(JSON)
    source: Mapped[str] = mapped_column(String(32))  # scripted | manual | umpire | vision
    actor: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[float] = mapped_column(Float)


class MessageRow(Base):
    """A message a feed announced (committed before it was published)."""

    __tablename__ = "messages"
    __table_args__ = (Index("ix_messages_feed", "table_id", "channel", "id"), {"sqlite_autoincrement": True})
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"))
    channel: Mapped[str] = mapped_column(String(16))  # events | alerts
    kind: Mapped[str] = mapped_column(String(32))
    data: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[float] = mapped_column(Float)


class AlertRow(Base):
    """An alert for the umpire, deduplicated by ``key`` per table."""

    __tablename__ = "alerts"
    __table_args__ = (UniqueConstraint("table_id", "key", name="uq_alerts_key"), {"sqlite_autoincrement": True})
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    key: Mapped[str] = mapped_column(String(200))
    category: Mapped[str] = mapped_column(String(16))  # flag | uncertain | desync | silent
    kind: Mapped[str] = mapped_column(String(64))
    match_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    hand: Mapped[int | None] = mapped_column(Integer, nullable=True)
    idx: Mapped[int | None] = mapped_column(Integer, nullable=True)
    seat: Mapped[str | None] = mapped_column(String(4), nullable=True)
    message: Mapped[str] = mapped_column(Text, default="")
    details: Mapped[dict] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(16), default="open")  # open | confirmed | dismissed | resolved
    # action: for the umpire to decide | info: a camera notice the tracker settled, stored resolved
    # (service/alert_levels.py)
    severity: Mapped[str] = mapped_column(String(8), default="action", server_default="action")
    created_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)
    resolved_by: Mapped[str] = mapped_column(String(200), default="")
    note: Mapped[str] = mapped_column(Text, default="")


class HandConfirmationRow(Base):
    """The umpire confirmed a hand's result."""

    __tablename__ = "hand_confirmations"
    __table_args__ = (UniqueConstraint("match_id", "hand", name="uq_confirm_hand"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    hand: Mapped[int] = mapped_column(Integer)
    by: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[float] = mapped_column(Float)
