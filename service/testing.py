"""Helpers for the service tests and demos: apps on a temp dir, a live server thread, scripts.

Not used by the service itself.
"""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from engine.events import Play
from engine.hand import replay
from engine.match import next_context, replay_match
from engine.record import event_to_dict
from engine.ruleset import load_ruleset
from engine.simulate import simulate_match
from service.app import create_app
from service.settings import Settings

TOKEN = "test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def settings_for(data_dir: Path, **kw: object) -> Settings:
    """Fast settings for tests: known token, SQLite without fsync per commit, short keep-alive."""
    base = {"token": TOKEN, "sqlite_synchronous": "NORMAL", "keepalive_s": 15.0, "watch_interval_s": 3600.0}
    base.update(kw)
    return Settings(data_dir=data_dir, **base)  # type: ignore[arg-type]


def app_for(data_dir: Path, **kw: object):  # noqa: ANN201
    return create_app(settings_for(data_dir, **kw))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def live_server(app) -> Iterator[str]:  # noqa: ANN001
    """Run ``app`` with uvicorn in a thread on 127.0.0.1 (random port); yields the base URL."""
    import uvicorn

    from service.server import Server

    port = free_port()
    server = Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on",
                                   ws="websockets-sansio"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not server.started:
        if time.time() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def mismatch_script(preset: str = "lisa-b-all-fives", seed: int = 5, plays: int = 4) -> tuple[list[list[dict]], dict]:
    """A one-hand script: a simulated deal and ``plays`` plays, then a tile on an end it does not match.

    Returns (script, info) with the bad play's seat, tile, end and slot.
    """
    rules = load_ruleset(preset)
    log = simulate_match(rules, seed, max_hands=1)[0]
    prefix = [log[0]]
    for ev in log[1:]:
        if sum(isinstance(e, Play) for e in prefix) >= plays:
            break
        prefix.append(ev)
    st = replay(rules, prefix, next_context(rules, replay_match(rules, []).games, 1))
    seat = st.turn
    for tile in st.known[seat] or []:
        for end, value in st.layout.open_ends().items():
            if not tile.has(value):
                bad = Play(seat=seat, tile=tile, end=end)
                script = [[event_to_dict(e) for e in prefix + [bad]]]
                return script, {"seat": seat, "tile": [tile.a, tile.b], "end": end, "index": len(prefix)}
    raise RuntimeError("no mismatching tile found; try another seed")


class MissingVideoSource:
    """A ``vision`` event source whose ``video_source`` does not exist: it fails at once, as
    :func:`vision.sources.open_source` does on a missing file (register it with ``register_source``)."""

    kind = "vision"

    def __init__(self, table: dict) -> None:
        from service.sources import SourceStats

        self.path = table["video_source"]
        self._stats = SourceStats()

    def stats(self):  # noqa: ANN201
        return self._stats

    def acknowledge(self, item, hand: int, index: int) -> None:  # noqa: ANN001
        pass

    async def aclose(self) -> None:
        pass

    async def __aiter__(self):  # noqa: ANN204
        from vision.sources import SourceError

        raise SourceError(f"cannot open {self.path}: no such file")
        yield  # an async generator, as a source is


def wait_for(predicate, timeout: float = 10.0, step: float = 0.02):  # noqa: ANN001, ANN201
    """Poll ``predicate`` until it returns something truthy (returned), or fail after ``timeout``."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        out = predicate()
        if out:
            return out
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout} s waiting for {getattr(predicate, '__name__', predicate)}")


def _serve_main() -> None:  # pragma: no cover - run by tests in a subprocess
    """``python -m service.testing DATA_DIR PORT``: the service with the test token (for kill tests)."""
    import sys

    from service.server import serve

    app = create_app(settings_for(Path(sys.argv[1]), sqlite_synchronous="FULL"))
    serve(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")


if __name__ == "__main__":  # pragma: no cover
    _serve_main()
