"""Bearer token for umpire and admin actions; optional per-table view keys for feeds and overlays.

The token comes from the settings, else ``$DOMINOCAST_TOKEN``, else ``<data_dir>/token``,
which is generated (and printed once by ``dominocast serve``) at the first start.
A request without credentials gets 401, with wrong ones 403.

Browsers cannot set headers on ``EventSource`` or WebSocket requests, so feeds also take
the token as ``?token=`` and the view key as ``?key=``.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

from fastapi import HTTPException, Request

from engine.files import read_input
from service.settings import Settings


def load_token(settings: Settings) -> tuple[str, bool]:
    """(token, generated now). A generated token is stored in ``<data_dir>/token`` (mode 600).

    Raises:
        engine.files.InputFileError: ``<data_dir>/token`` is a folder, a device or a pipe, or over 4 KiB.
    """
    if settings.token:
        return settings.token, False
    env = os.environ.get("DOMINOCAST_TOKEN")
    if env:
        return env, False
    path = Path(settings.data_dir) / "token"
    if path.exists():
        return read_token(path), False
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(24)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(token + "\n")
    return token, True


def read_token(path: Path) -> str:
    """The token kept in the file ``path``, stripped (undecodable bytes replaced).

    Raises:
        engine.files.InputFileError: ``path`` is a folder, a device or a pipe (a FIFO there hung the
            start), or over 4 KiB.
    """
    return read_input(path, "token file", limit=4096).decode("utf-8", "replace").strip()


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def presented_token(request) -> str | None:  # noqa: ANN001 - Request or WebSocket
    """The token a request presents (header, else ``?token=``), outer spaces dropped in both (helper-114:
    a token pasted with spaces passed in the header and was refused in the console's feed address)."""
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    token = request.query_params.get("token")
    return token.strip() if token is not None else None


def check_token(request, token: str) -> None:  # noqa: ANN001
    """401 without a token, 403 with a wrong one."""
    got = presented_token(request)
    if not got:
        raise HTTPException(401, "this action needs the umpire/admin token: 'Authorization: Bearer TOKEN'",
                            headers={"WWW-Authenticate": "Bearer"})
    if not _same(got, token):
        raise HTTPException(403, "wrong token")


def is_umpire(request) -> bool:  # noqa: ANN001 - Request or WebSocket
    """Whether a request presents the umpire/admin token (header or ``?token=``): what it reads then
    includes the tiles in the players' hands while a hand is in play (``service.views.public_message``)."""
    got = presented_token(request)
    return bool(got) and _same(got, request.app.state.token)


def require_token(request: Request) -> None:
    """FastAPI dependency for umpire and admin routes."""
    check_token(request, request.app.state.token)


def check_view(request, view_key: str | None, token: str) -> None:  # noqa: ANN001
    """Read access to a table: free without a view key; else ``?key=`` (or the token)."""
    if view_key is None:
        return
    got_key = request.query_params.get("key") or request.headers.get("x-view-key")
    got_token = presented_token(request)
    if got_token and _same(got_token, token):
        return
    if got_key and _same(got_key, view_key):
        return
    if not got_key and not got_token:
        raise HTTPException(401, "this table is protected: add key=VIEW_KEY to the address (?key=... or, after "
                                 "other options, &key=...)")
    raise HTTPException(403, "wrong view key" if got_key else "wrong token")  # say which one to fix
