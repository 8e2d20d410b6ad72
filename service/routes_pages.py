"""HTML pages (plain HTML + vanilla JS, no build step): overlay, umpire console, review, index."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

STATIC = Path(__file__).parent / "static"
router = APIRouter(tags=["pages"])


def _page(name: str) -> FileResponse:
    return FileResponse(STATIC / name, media_type="text/html", headers={"Cache-Control": "no-cache"})


@router.get("/", include_in_schema=False)
def index() -> FileResponse:
    return _page("index.html")


@router.get("/tables/{table_id}/overlay", include_in_schema=False)
def overlay(table_id: str) -> FileResponse:
    """Stream overlay for an OBS browser source: ?theme=dark|light|solid&size=1080p|720p|WxH&key=VIEW_KEY."""
    return _page("overlay.html")


@router.get("/tables/{table_id}/umpire", include_in_schema=False)
def umpire(table_id: str) -> FileResponse:
    return _page("umpire.html")


@router.get("/matches/{match_id}/review", include_in_schema=False)
def review(match_id: int) -> FileResponse:
    return _page("review.html")

