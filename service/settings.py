"""Service settings: where the data lives, the database, the token, the limits.

One :class:`Settings` object is handed to :func:`service.app.create_app`; the CLI
(``dominocast serve``) builds it from its options and the environment.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from vision.sources import FROZEN_AFTER_S


@dataclass
class Settings:
    """Everything the service reads at start (all have defaults fit for a venue laptop).

    Attributes:
        data_dir: folder for the SQLite file and the generated token.
        db_url: SQLAlchemy URL; None: ``sqlite:///<data_dir>/dominocast.db`` (WAL mode).
        token: the bearer token for umpire and admin actions; None: ``$DOMINOCAST_TOKEN``,
            else the one stored in ``<data_dir>/token`` (generated at first start).
        keepalive_s: seconds between keep-alive messages on idle feeds.
        silent_after_s: a live table whose source has said nothing for this long raises an alert.
        watch_interval_s: how often the watchdog looks at the live tables.
        lost_after_s: a camera or stream that has delivered no frame for this long raises an alert.
        frozen_after_s: a camera or stream whose picture has not changed at all (to the bit) for this
            long raises an alert: a stuck capture or encoder repeats its last frame, and plays go unseen.
        min_confidence: a play read with a lower confidence raises an "uncertain read" alert.
        max_upload_bytes: the largest request body the service reads (a script or record upload; 413 past it).
        resume_live: restart the workers of tables that were live when the service stopped.
        sqlite_synchronous: SQLite ``synchronous`` pragma (FULL: a commit survives a power cut).
    """

    data_dir: Path = field(default_factory=lambda: Path(os.environ.get("DOMINOCAST_DATA", "data/service")))
    db_url: str | None = None
    token: str | None = None
    keepalive_s: float = 15.0
    silent_after_s: float = 60.0
    lost_after_s: float = 3.0
    frozen_after_s: float = FROZEN_AFTER_S
    watch_interval_s: float = 1.0
    min_confidence: float = 0.6
    max_upload_bytes: int = 2_000_000
    resume_live: bool = True
    sqlite_synchronous: str = "FULL"

    def __post_init__(self) -> None:
        self.data_dir = Path(self.data_dir)

    @property
    def database_url(self) -> str:
        return self.db_url or f"sqlite:///{(self.data_dir / 'dominocast.db').as_posix()}"
