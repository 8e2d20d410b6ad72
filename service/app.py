"""The live tournament service: ``create_app(settings)`` builds the FastAPI app.

At creation the database is migrated (``alembic upgrade head``) and every table's state
is folded from its event log; at start-up the tables that were live resume their
workers. See ``docs/service.md`` for the endpoints, auth and the feed protocol.
"""

from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi_offline import FastAPIOffline
from sqlalchemy.exc import IntegrityError
from starlette.exceptions import HTTPException as StarletteHTTPException

from engine.record import RecordError
from service.auth import load_token
from service.db import close, make_engine, sessions, upgrade
from service.feeds import Broker
from service.live import AppendRejected, NotFound, Refused
from service.body_limit import BodyLimit
from service.settings import Settings
from service.sources import WorkerUnavailable
from service.tables import Conflict, Invalid, Registry


def _errors_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        if err.get("type") == "json_invalid":
            parts.append(f"malformed JSON body (at character {err['loc'][-1]}): {err.get('ctx', {}).get('error', err.get('msg'))}")
            continue
        loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        if not loc and err.get("type") == "value_error":  # a check across fields (schemas' model validators)
            parts.append(str(err.get("msg", "invalid")).removeprefix("Value error, "))
            continue
        if not loc:  # the body as a whole: absent, or not a JSON object
            parts.append("the request needs a JSON object as its body (Content-Type: application/json)")
            continue
        # a check of our own (an AfterValidator's ValueError) says its reason without pydantic's prefix
        parts.append(f"{loc}: {str(err.get('msg', 'invalid')).removeprefix('Value error, ')}")
    return "; ".join(parts)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The app for ``settings`` (its database migrated and every table's state rebuilt)."""
    from service import routes_feeds, routes_pages, routes_records, routes_tables, routes_umpire

    settings = settings or Settings()
    token, generated = load_token(settings)
    engine = make_engine(settings)
    upgrade(engine)
    factory = sessions(engine)
    broker = Broker()
    registry = Registry(settings, factory, broker)
    registry.load_all()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if settings.resume_live:
            await registry.resume_live()
        registry.start_watchdog()
        try:
            yield
        finally:
            try:
                await registry.shutdown()
            finally:
                close(engine)

    # /docs and /redoc load Swagger UI and ReDoc from files installed with the package, not a CDN
    app = FastAPIOffline(title="dominocast live service", version="1", lifespan=lifespan)
    app.state.settings = settings
    app.state.token = token
    app.state.token_generated = generated
    app.state.engine = engine
    app.state.factory = factory
    app.state.broker = broker
    app.state.registry = registry

    def error(status: int, message: str) -> JSONResponse:
        return JSONResponse({"detail": message}, status_code=status)

    app.add_middleware(BodyLimit, limit=settings.max_upload_bytes)  # declared or chunked: 413 past it

    @app.exception_handler(RequestValidationError)
    async def _invalid_body(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error(422, _errors_message(exc))

    @app.exception_handler(NotFound)
    async def _not_found(request: Request, exc: NotFound) -> JSONResponse:
        return error(404, str(exc.args[0] if exc.args else exc))

    @app.exception_handler(AppendRejected)
    async def _rejected(request: Request, exc: AppendRejected) -> JSONResponse:
        return error(409, f"the engine refused the event: {exc}")

    @app.exception_handler(Conflict)
    async def _conflict(request: Request, exc: Conflict) -> JSONResponse:
        return error(409, str(exc))

    @app.exception_handler(IntegrityError)
    async def _clash(request: Request, exc: IntegrityError) -> JSONResponse:
        # the stored log changed under this service: another process writes its database (a second
        # service on a database no lock covers, helper-143); nothing of this request was written
        return error(409, "the database changed under this service (another process writes it): nothing was "
                          "written; stop the other writer and restart this service")

    @app.exception_handler(Refused)
    async def _refused(request: Request, exc: Refused) -> JSONResponse:
        return error(409, str(exc))

    @app.exception_handler(Invalid)
    async def _bad(request: Request, exc: Invalid) -> JSONResponse:
        return error(422, str(exc))

    @app.exception_handler(RecordError)
    async def _bad_record(request: Request, exc: RecordError) -> JSONResponse:
        return error(422, str(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):  # noqa: ANN202
        # FastAPI says only this when json.loads fails on a body it got (bad UTF-8, thousands of
        # nested brackets): the request is at fault, and says how
        if exc.status_code == 400 and exc.detail == "There was an error parsing the body":
            return error(422, "the body is not JSON that can be read (invalid UTF-8, or nested too deeply)")
        if exc.status_code == 404 and exc.detail == "Not Found" and routes_pages.wants_page(request):
            return routes_pages.missing_page(request)  # no route here: a browser gets a page, not JSON
        return await http_exception_handler(request, exc)

    @app.exception_handler(WorkerUnavailable)
    async def _unavailable(request: Request, exc: WorkerUnavailable) -> JSONResponse:
        return error(501, str(exc))

    for mod in (routes_tables, routes_umpire, routes_records, routes_feeds, routes_pages):
        app.include_router(mod.router)
    from fastapi.staticfiles import StaticFiles

    app.mount("/static", StaticFiles(directory=routes_pages.STATIC), name="static")
    return app
