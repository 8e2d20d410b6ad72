"""A limit on the size of every request body, declared or streamed.

A body whose ``Content-Length`` is over the limit is refused before it is read; a body sent in
chunks (no length declared) is cut off as soon as the bytes received pass it. Either way the
client gets ``413`` and ``{"detail": "upload too large: the limit is N bytes"}``, and the service
never holds more than the limit of one request in memory.
"""

from __future__ import annotations

from fastapi import HTTPException
from fastapi.responses import JSONResponse


def too_large_message(limit: int) -> str:
    """What a client sending a body over ``Settings.max_upload_bytes`` is told (HTTP 413)."""
    return f"upload too large: the limit is {limit} bytes"


class BodyTooLarge(HTTPException):
    """Raised from ``receive`` past the limit. An HTTPException, so that FastAPI's body parsing
    passes it on (it turns other errors into a 400) and the app answers it as a 413."""

    def __init__(self, limit: int) -> None:
        super().__init__(status_code=413, detail=too_large_message(limit))


class BodyLimit:
    """ASGI middleware: request bodies of at most ``limit`` bytes (see the module docstring).

    Args:
        app: the ASGI app it wraps.
        limit: the largest body in bytes (``Settings.max_upload_bytes``).
    """

    def __init__(self, app, limit: int) -> None:  # noqa: ANN001
        self.app = app
        self.limit = int(limit)

    async def __call__(self, scope, receive, send) -> None:  # noqa: ANN001
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length", b"")
        if length.isdigit() and int(length) > self.limit:
            await self._refuse(scope, receive, send)
            return
        received = 0

        async def limited_receive():  # noqa: ANN202
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:  # the app's HTTPException handling answers it (a route reads bodies)
                    raise BodyTooLarge(self.limit)
            return message

        await self.app(scope, limited_receive, send)

    async def _refuse(self, scope, receive, send) -> None:  # noqa: ANN001
        await JSONResponse({"detail": too_large_message(self.limit)}, status_code=413)(scope, receive, send)
