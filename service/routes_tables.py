"""Tables: register, list, start/stop the live worker, status, script upload, matches, video."""

from __future__ import annotations

import json

import yaml
from fastapi import APIRouter, Body, Depends, HTTPException, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from engine.match import replay_match
from engine.record import RecordError, event_to_dict, from_json, is_notation, rules_of
from engine.record_text import read_text
from engine.ruleset import Ruleset, RulesetError, available_presets, load_ruleset, source_label
from engine.script import ScriptError, hand_events
from service.auth import check_view, is_umpire, require_token
from service.deps import registry, viewable
from service.live import checked_event
from service.schemas import MatchCreate, StartBody, TableCreate, TablePatch
from service.tables import Invalid, status_of, table_info

router = APIRouter(prefix="/api", tags=["tables"])
admin = [Depends(require_token)]


@router.get("/health")
def health(request: Request) -> dict:
    reg = registry(request)
    return {"ok": True, "tables": len(reg.runtimes) + len(reg.broken), "live": reg.live_ids(),
            "unloadable": sorted(reg.broken)}


@router.get("/rulesets")
def rulesets() -> list[dict]:
    """The presets, their source named as ``dominocast rules`` names it (a seed's title and file)."""
    out = []
    for name in available_presets():
        rs = load_ruleset(name)
        out.append({"name": name, "title": rs.title, "source": source_label(rs.source), "players": rs.players,
                    "partnership": rs.partnership, "target": rs.target, "penalties": sorted(rs.penalties)})
    return out


@router.post("/tables", status_code=201, dependencies=admin)
def create_table(body: TableCreate, request: Request) -> dict:
    reg = registry(request)
    row = reg.create(body)
    return table_info(row, reg.get(row.id))


#: What the list says of a protected table's error to a caller without its key or the token.
PROTECTED_ERROR = "unavailable; the table is protected: its view key (?key=) or the token tells why"


def _told(request: Request, view_key: str | None, error: str | None) -> str | None:
    """A table's ``error`` as the list tells it: to anyone for a table without a view key, else only with its
    key or the token, as its status tells it (helper-172: why a protected table cannot be loaded was listed
    to anyone, while its own address answered 401)."""
    if error is None:
        return None
    try:
        check_view(request, view_key, request.app.state.token)
    except HTTPException:
        return PROTECTED_ERROR
    return error


@router.get("/tables")
def list_tables(request: Request) -> list[dict]:
    reg = registry(request)
    out = []
    for table_id, rt in reg.runtimes.items():
        out.append({"id": table_id, "name": rt.cfg.name, "rules": rt.cfg.preset, "worker": rt.cfg.worker_kind,
                    "state": rt.worker["state"], "error": _told(request, rt.cfg.view_key, rt.worker.get("error")),
                    "protected": rt.cfg.view_key is not None})
    for table_id in list(reg.broken):  # listed, so that the umpire sees it and can delete it
        row = reg.row(table_id)
        st = reg.broken_status(row)
        out.append({"id": table_id, "name": row.name, "rules": row.rules, "worker": row.worker_kind,
                    "state": st["state"], "error": _told(request, row.view_key, st["error"]),
                    "protected": row.view_key is not None})
    return out


def _broken(request: Request, table_id: str) -> tuple | None:
    """(row, status) of a table that cannot be loaded, its view key checked; None for any other id."""
    reg = registry(request)
    if table_id not in reg.broken:
        return None
    row = reg.row(table_id)
    check_view(request, row.view_key, request.app.state.token)
    return row, reg.broken_status(row)


@router.get("/tables/{table_id}")
def get_table(table_id: str, request: Request) -> dict:
    broken = _broken(request, table_id)
    if broken is not None:
        return {**table_info(broken[0]), "live": False, "status": broken[1]}  # its worker cannot run
    rt = viewable(request, table_id)
    return table_info(registry(request).row(table_id), rt, public=not is_umpire(request))


@router.patch("/tables/{table_id}", dependencies=admin)
def update_table(table_id: str, body: TablePatch, request: Request) -> dict:
    """Change a table in place, keeping its id, overlay address and matches (:meth:`Registry.update`): name,
    players and teams at any time; video source, calibration and worker once it is stopped; rules and overrides
    once it is stopped and before its current match's first event (409 otherwise)."""
    reg = registry(request)
    row = reg.update(table_id, body)
    return table_info(row, reg.get(table_id))


@router.delete("/tables/{table_id}", dependencies=admin)
async def delete_table(table_id: str, request: Request) -> dict:
    await registry(request).delete(table_id)
    return {"deleted": table_id}


@router.post("/tables/{table_id}/start", dependencies=admin)
async def start(table_id: str, request: Request, body: StartBody | None = None) -> dict:
    return await registry(request).start(table_id, speed=body.speed if body else None,
                                         follow=body.follow if body else None)


@router.post("/tables/{table_id}/stop", dependencies=admin)
async def stop(table_id: str, request: Request) -> dict:
    return await registry(request).stop(table_id)


@router.get("/tables/{table_id}/status")
def status(table_id: str, request: Request) -> dict:
    broken = _broken(request, table_id)
    if broken is not None:
        return broken[1]
    return status_of(viewable(request, table_id), public=not is_umpire(request))


def parse_upload(text: str) -> tuple[list[list], Ruleset | None]:
    """Hand logs from an uploaded record (JSON or text notation) or script (YAML/JSON ``hands``),
    and the rule set a record was played under (None for a script, which names none)."""
    try:
        return _parse_upload(text)
    except RecursionError:  # thousands of nested brackets (helper-66: a 500)
        raise Invalid("not a record or script: nested too deeply to read") from None


def _parse_upload(text: str) -> tuple[list[list], Ruleset | None]:
    if is_notation(text):
        record = read_text(text)
        return record.logs, rules_of(record)
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise Invalid(f"not a record or script: malformed YAML/JSON: {str(exc).splitlines()[0]}") from None
    if isinstance(data, dict) and data.get("format") == "dominocast-record":
        record = from_json(text)
        return record.logs, rules_of(record)
    if not isinstance(data, dict) or not isinstance(data.get("hands"), list) or not data["hands"]:
        raise Invalid("not a record or script: expected a dominocast record, its text notation, "
                      "or a script with a non-empty 'hands' list")
    try:
        out = [hand_events(hand, f"hands[{h}]") for h, hand in enumerate(data["hands"])]
    except ScriptError as exc:
        raise Invalid(str(exc)) from None
    return out, _script_rules(data)


def _script_rules(data: dict) -> Ruleset | None:
    """The rule set a script names (``rules``: a preset, with its ``overrides``), None when it names none.

    A preset only: a TOML path in an upload would name a file on the server (helper-83: a block script
    on an all-fives table was taken without a word, its ``rules`` ignored).
    """
    name = data.get("rules")
    if name is None:
        return None
    if not isinstance(name, str) or name not in available_presets():
        raise Invalid(f"the script's rules {name!r} is not a preset ({', '.join(available_presets())}): "
                      "name the preset, or leave 'rules' out to play the table's")
    overrides = data.get("overrides") or {}
    if not isinstance(overrides, dict):
        raise Invalid(f"the script's overrides must be a mapping of rule-set fields, got {overrides!r}")
    try:
        return load_ruleset(name, **overrides)
    except RulesetError as exc:
        raise Invalid(f"the script's rules: {exc}") from None


#: Ruleset fields that name or cite a rule set without changing how it plays.
_DESCRIPTIVE = {"name", "title", "source"}


def _unlike(played: Ruleset, table: Ruleset) -> str | None:
    """How a record's rule set differs from the table's in play (None: it does not)."""
    a, b = played.model_dump(exclude=_DESCRIPTIVE), table.model_dump(exclude=_DESCRIPTIVE)
    if a == b:
        return None
    if played.name != table.name:
        return f"the upload was played under {played.name} and this table plays {table.name}"
    key = next(k for k in a if a[k] != b[k])
    return f"the upload was played with {table.name}'s {key} {a[key]!r}, this table's is {b[key]!r}"


@router.put("/tables/{table_id}/script", dependencies=admin)
async def upload_script(table_id: str, request: Request) -> JSONResponse:
    reg = registry(request)
    rt = reg.check_scriptable(table_id)  # 404 / 409 before reading the upload
    raw = await request.body()  # at most Settings.max_upload_bytes (service.body_limit: 413 past it)
    # parsed and replayed in a worker thread: a long upload (thousands of hands) took seconds of CPU on the event
    # loop, and every table's feeds, the overlays and the umpires' requests stood still meanwhile (helper-198)
    hands = await run_in_threadpool(_checked_upload, raw, rt)
    count = reg.set_script(table_id, hands)
    return JSONResponse({"table": table_id, "hands": len(hands), "events": count})


def _checked_upload(raw: bytes, rt) -> list[list[dict]]:  # noqa: ANN001 - a TableRuntime
    """The hands of an upload as a scripted table stores them, checked to replay under ``rt``'s rules.

    Raises:
        Invalid: not UTF-8, not a record or script, played under other rules, or it does not replay.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Invalid("the upload is not UTF-8 text") from None
    try:
        hands, played_under = parse_upload(text)
        unlike = _unlike(played_under, rt.cfg.rules) if played_under is not None else None
        if unlike:  # replayed under other rules it would score otherwise (or not replay): say so, not a symptom
            raise Invalid(f"{unlike}: upload it to a table with those rules")
        logs = [[checked_event(e) for e in hand] for hand in hands]
        replay_match(rt.cfg.rules, logs)
    except RecordError as exc:
        raise Invalid(str(exc)) from None
    except Invalid:  # the upload itself is no record or script: said as such
        raise
    except ValueError as exc:
        raise Invalid(f"the script does not replay under {rt.cfg.preset}: {exc}") from None
    return [[event_to_dict(e) for e in hand] for hand in logs]


@router.get("/tables/{table_id}/matches")
def list_matches(table_id: str, request: Request) -> list[dict]:
    viewable(request, table_id)
    from service.routes_records import matches_of

    return matches_of(request, table_id)


@router.post("/tables/{table_id}/matches", status_code=201, dependencies=admin)
def new_match(table_id: str, request: Request, body: MatchCreate = Body(default_factory=MatchCreate)) -> dict:
    return registry(request).new_match(table_id, body.title, body.players)


@router.get("/tables/{table_id}/video.mjpg")
def video(table_id: str, request: Request):  # noqa: ANN201
    """Annotated MJPEG video of a running vision worker (one capture loop, any number of viewers); 503 otherwise."""
    rt = viewable(request, table_id)
    source = registry(request).sources.get(table_id)
    if source is not None and hasattr(source, "mjpeg") and source.running:
        from fastapi.responses import StreamingResponse

        from service.vision_source import MJPEG_MEDIA_TYPE

        return StreamingResponse(source.mjpeg(), media_type=MJPEG_MEDIA_TYPE,
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
    why = (f"its worker is {rt.cfg.worker_kind!r}" if rt.cfg.worker_kind != "vision"
           else "its vision worker is not running: start it")
    return JSONResponse(
        {"detail": f"annotated video is not available: table {table_id!r} has no video worker running ({why})"},
        status_code=503, headers={"Retry-After": "10"})
