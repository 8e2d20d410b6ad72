"""Database access: the engine (SQLite in WAL mode by default, or PostgreSQL), migrations at start.

    engine = make_engine(settings)
    upgrade(engine)            # alembic upgrade head
    with session(engine) as s: ...
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from service.settings import Settings

MIGRATIONS = Path(__file__).parent / "migrations"


def make_engine(settings: Settings) -> Engine:
    """An engine for ``settings.database_url``; SQLite files get WAL, a busy timeout and FKs."""
    url = settings.database_url
    if url.startswith("sqlite"):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
        sync = settings.sqlite_synchronous

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _record) -> None:  # noqa: ANN001
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute(f"PRAGMA synchronous={sync}")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def upgrade(engine: Engine) -> None:
    """Bring the schema to the newest migration (``alembic upgrade head``) and check that the database
    takes writes.

    Raises:
        sqlalchemy.exc.OperationalError: e.g. "attempt to write a readonly database".
    """
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
        # a database already at head is only read so far: a read-only one (file mode, chattr +i, a read-only
        # role) must fail here, in one line, not later while the live tables resume (helper-156)
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = version_num")


def close(engine: Engine) -> None:
    """Close every pooled connection at a clean stop; a SQLite database first moves its write-ahead log
    into the main file (``PRAGMA wal_checkpoint(TRUNCATE)``), so a copy of ``dominocast.db`` alone holds
    everything recorded (helper-156: after a stop the newest events were only in ``dominocast.db-wal``)."""
    if engine.dialect.name == "sqlite":
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()


def sessions(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A session whose work is committed on exit (rolled back on an exception)."""
    with factory() as s:
        with s.begin():
            yield s


#: Largest row id SQLite stores (a signed 64-bit integer); a larger one is no row, not an overflow.
MAX_ROW_ID = 2**63 - 1


def get_row(s, model, row_id: int):  # noqa: ANN001
    """``s.get(model, row_id)``, or None for an id no row can have (negative or past 64 bits: SQLite
    raised OverflowError, a 500)."""
    return s.get(model, row_id) if 0 <= row_id <= MAX_ROW_ID else None
