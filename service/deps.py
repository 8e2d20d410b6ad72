"""Helpers the routers share: the registry, a table's runtime with its read access checked."""

from __future__ import annotations

from fastapi import Request

from service.auth import check_view
from service.live import TableRuntime
from service.tables import Registry


def registry(request) -> Registry:  # noqa: ANN001 - Request or WebSocket
    return request.app.state.registry


def viewable(request, table_id: str) -> TableRuntime:  # noqa: ANN001
    """The table's runtime, after checking its view key (404 first, then 401/403)."""
    rt = registry(request).get(table_id)
    check_view(request, rt.cfg.view_key, request.app.state.token)
    return rt


def actor(request: Request, by: str) -> str:
    return by or "umpire"
