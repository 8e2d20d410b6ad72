"""Helpers the routers share: the registry, a table's runtime with its read access checked."""

from __future__ import annotations

from fastapi import Request

from service.auth import check_token, check_view
from service.live import TableRuntime
from service.tables import Registry


def registry(request) -> Registry:  # noqa: ANN001 - Request or WebSocket
    return request.app.state.registry


def viewable(request, table_id: str, umpire: bool = False) -> TableRuntime:  # noqa: ANN001
    """The table's runtime, once the caller may read it: 404 for no such table, then 401/403 (its view key;
    the token with ``umpire``, as the alerts channel asks), then 409 for a table that cannot be loaded, so
    that why it cannot is told only to those who may read the table (as ``GET /api/tables/{id}`` does)."""
    reg = registry(request)
    view_key = reg.row(table_id).view_key if table_id in reg.broken else reg.get(table_id).cfg.view_key
    if umpire:
        check_token(request, request.app.state.token)
    else:
        check_view(request, view_key, request.app.state.token)
    return reg.get(table_id)


def actor(request: Request, by: str) -> str:
    return by or "umpire"
