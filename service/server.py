"""uvicorn for the service: open feeds end as soon as a shutdown begins.

A feed (SSE or WebSocket) never ends by itself. uvicorn stops accepting connections at
Ctrl-C, then waits ``timeout_graceful_shutdown`` seconds for the running requests and
cancels the ones left, each with an "Exception in ASGI application" traceback; only then
does the app's lifespan hear of the shutdown, too late to end them. :class:`Server` closes
every feed (``Broker.close_all``) first, so they finish like any response and the shutdown
takes a moment. Clients reconnect and resume from their last message id.
"""

from __future__ import annotations

import logging
import re
import socket

import uvicorn


class _HideSecrets(logging.Filter):
    """Log lines without the bearer token or view key: feeds take them in the query (``?token=``,
    ``?key=``: EventSource and browsers' WebSocket send no header), and a log is no place for them.
    Every string argument is masked: the access log has the path third, uvicorn's WebSocket lines
    (``uvicorn.error``) second (helper-143: those wrote the token out)."""

    SECRET = re.compile(r"\b(token|key)=[^&\s\"]*")

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(self.SECRET.sub(r"\1=***", a) if isinstance(a, str) else a for a in record.args)
        if isinstance(record.msg, str):
            record.msg = self.SECRET.sub(r"\1=***", record.msg)
        return True


class Server(uvicorn.Server):
    """``uvicorn.Server`` that ends the app's feeds before its own shutdown (see module docstring)."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        broker = getattr(getattr(self.config.app, "state", None), "broker", None)
        if broker is not None:
            broker.close_all("the service is shutting down")
        await super().shutdown(sockets)


def serve(app, host: str, port: int, **config: object) -> None:  # noqa: ANN001
    """``uvicorn.run(app, host=host, port=port, **config)`` with :class:`Server` (one process, no
    reload); returns at shutdown. Exits with status 3, as uvicorn does, when the server did not start."""
    server = Server(uvicorn.Config(app, host=host, port=port, **config))
    for name in ("uvicorn.access", "uvicorn.error"):  # configured by Config above
        logging.getLogger(name).addFilter(_HideSecrets())
    try:
        server.run()
    except KeyboardInterrupt:  # a second Ctrl-C: uvicorn exits at once
        pass
    if not server.started:
        raise SystemExit(3)
