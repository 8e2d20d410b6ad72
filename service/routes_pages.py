"""HTML pages (plain HTML + vanilla JS, no build step): overlay, umpire console, review, index."""

from __future__ import annotations

import html
from pathlib import Path
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Match

from service.db import get_row
from service.deps import registry, viewable
from service.live import NotFound
from service.tables import Conflict

STATIC = Path(__file__).parent / "static"
router = APIRouter(tags=["pages"])


def _page(name: str) -> FileResponse:
    return FileResponse(STATIC / name, media_type="text/html", headers={"Cache-Control": "no-cache"})


#: The title of an error page, by status (other statuses: a table that cannot be loaded, 409).
_TITLES = {404: "Not found", 401: "Table protected", 403: "Table protected"}


def _not_found(text: str, status: int = 404, hint: str | None = None,
               links: list[tuple[str, str]] = ()) -> HTMLResponse:
    """An error page: ``text`` (the API's reason), then ``hint`` (what to do) when given, then ``links``
    ((address, label): the pages meant, most likely) and the list of all tables."""
    title = _TITLES.get(status, "Table unavailable")
    told = f"<p>{html.escape(text)}</p>" + (f"<p class='hint'>{html.escape(hint)}</p>" if hint else "")
    told += "".join(f"<p><a href='{html.escape(href)}'>{html.escape(label)}</a></p>" for href, label in links)
    return HTMLResponse(f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
                        f"</head><body><h1>{status}</h1>{told}<p><a href='/'>All tables</a></p>"
                        "</body></html>", status_code=status)


def wants_page(request: Request) -> bool:
    """Whether a request comes from a browser's address bar (it accepts HTML): what it gets for an address
    that is no page is a page, not the API's JSON (helper-174: ``/tables/mesa-1`` showed
    ``{"detail":"Not Found"}``). ``fetch``, EventSource and API clients do not ask for HTML."""
    return "text/html" in request.headers.get("accept", "")


def missing_page(request: Request) -> HTMLResponse:
    """The 404 page for an address that is no page, with links to the pages it likely meant: a table's
    overlay and umpire console for ``/tables/ID...``, a match's review for ``/matches/N...``."""
    parts = [p for p in request.url.path.split("/") if p]
    links: list[tuple[str, str]] = []
    if len(parts) >= 2 and parts[0] == "tables" and parts[1] in registry(request).runtimes:
        tid = parts[1]
        links = [(f"/tables/{tid}/overlay", f"the overlay of table {tid}"),
                 (f"/tables/{tid}/umpire", f"the umpire console of table {tid}")]
    elif len(parts) >= 2 and parts[0] == "matches" and parts[1].isascii() and parts[1].isdecimal():
        from service.models import MatchRow

        with request.app.state.factory() as s:
            if get_row(s, MatchRow, int(parts[1])) is not None:
                links = [(f"/matches/{parts[1]}/review", f"the review of match {parts[1]}")]
    api = f"/api{request.url.path}"  # /health, /tables/ID, /matches/N: the API's answer is one /api/ away
    docs = request.url.path == "/api" or request.url.path.startswith("/api/")
    # a table or match that does not exist has no API answer either, only the API's 404
    named = len(parts) >= 2 and parts[0] in ("tables", "matches")
    if not docs and (links or not named) and any(route.matches({"type": "http", "path": api, "method": "GET"})[0] == Match.FULL
                        for route in request.app.routes):
        links.append((api, f"the API's answer at {api}"))
    # the view key or token the browser came with opens a protected table's pages too (helper-179: dropped)
    kept = urlencode([(k, v) for k, v in request.query_params.multi_items() if k in ("key", "token")])
    links = [(f"{href}?{kept}" if kept else href, label) for href, label in links]
    if docs:
        links.append(("/docs", "the API's documentation"))
    return _not_found(f"there is no page at {request.url.path}", links=links)


def _key_hint(request: Request) -> str:
    """How to open a protected table's page: its address with the view key, or with the umpire's token
    (helper-172: the 401 page of a table that cannot be loaded named neither; a browser sends no header)."""
    kept = [(k, v) for k, v in request.query_params.multi_items() if k not in ("key", "token")]
    address = f"{request.url.path}?{urlencode(kept) + '&' if kept else ''}"
    return (f"Open it with the table's view key: {address}key=VIEW_KEY, or, as the umpire, with the service's "
            f"token: {address}token=TOKEN.")


def _unavailable(request: Request, table_id: str) -> HTMLResponse | None:
    """The error page the API's answer for ``table_id`` calls for: a 404 page when the table does not exist,
    a 409 page with the API's reason when it cannot be loaded; None when it is there. A protected table's
    pages are served without its key (their data calls send it), but why it cannot be loaded is told as the
    API tells it: with the key (``?key=``) or the token, else the API's 401/403 page (helper-169)."""
    reg = registry(request)
    try:
        if table_id in reg.broken:
            viewable(request, table_id)  # 401/403, else the 409 of a table that cannot be loaded
        reg.get(table_id)
    except NotFound as exc:
        return _not_found(str(exc) or f"table {table_id} does not exist")
    except Conflict as exc:
        return _not_found(str(exc), status=409)
    except HTTPException as exc:  # the view key's 401/403
        return _not_found(str(exc.detail), status=exc.status_code, hint=_key_hint(request))
    return None


def _table_page(request: Request, table_id: str, name: str) -> Response:
    """A table's page, or the error page the API answers with for that table (:func:`_unavailable`)."""
    return _unavailable(request, table_id) or _page(name)


@router.get("/", include_in_schema=False)
def index() -> FileResponse:
    return _page("index.html")


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> FileResponse:
    """The pages' icon (a domino), where browsers ask for it: every page load logged a 404 before."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml",
                        headers={"Cache-Control": "max-age=86400"})


@router.get("/tables/{table_id}/overlay", include_in_schema=False)
def overlay(table_id: str, request: Request) -> Response:
    """Stream overlay for an OBS browser source: ?theme=dark|light|solid&size=1080p|720p|WxH&key=VIEW_KEY."""
    return _table_page(request, table_id, "overlay.html")


@router.get("/tables/{table_id}/umpire", include_in_schema=False)
def umpire(table_id: str, request: Request) -> Response:
    return _table_page(request, table_id, "umpire.html")


@router.get("/matches/{match_id}/review", include_in_schema=False)
def review(match_id: str, request: Request) -> Response:
    """A match's review page, or a 404 page for a match that does not exist (or an id that is none), or
    its table's error page (:func:`_unavailable`): helper-165, a match at a table that cannot be loaded got
    an empty 200 page while ``/api/matches/{id}`` answered 409."""
    from service.models import MatchRow

    if not (match_id.isascii() and match_id.isdecimal()):
        return _not_found(f"no match {match_id}")
    with request.app.state.factory() as s:
        m = get_row(s, MatchRow, int(match_id))
        if m is None:
            return _not_found(f"no match {match_id}")
        table_id = m.table_id
    return _unavailable(request, table_id) or _page("review.html")

