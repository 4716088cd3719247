"""`graphmem serve`: the facade's verbs over HTTP and JSON, behind keys scoped to owners.

One resource per owner, one route per verb, named as the verb is everywhere else
(`POST /v1/owners/{owner}/recall` is `GraphMem.recall`); `/openapi.json` describes every
request and response with the models the Python API returns. The app runs the verbs through
`AsyncGraphMem`, so its event loop never waits on the store or the model.

Keys: a request names its key as `Authorization: Bearer <secret>` (graphmem.keys). A key may
touch only its owners: any other owner gets 403, the same whether or not that owner has a
memory. Admin keys may touch every owner and manage keys. With no key in the store the server
is open, which `serve` allows on a loopback address only, until the first key is made. Who
reaches the app at all is the Gate's to decide, from the headers alone (graphmem.gate).

Errors are JSON, `{"error": {"code", "message", "field"?, "request_id"}}`: 400 bad input (the
facade's message names the field) or two keys, 401 no or unknown key, 403 another owner's
memory, 404 unknown key, 408 a body too slow, 409 conflict, 413 a body over `max_body` bytes or
a batch over `max_messages`, 415 not JSON, 421 a Host not this server's, 422 a request that
does not fit its schema, 429 over the key's rate or requests in flight (`Retry-After`), 503
store unreachable (`Retry-After`), 502 model endpoint failed. Every response carries
`X-Request-Id`, which the server's log line of the request carries too. The MCP tools are
served at /mcp behind the same gate (graphmem.mcp_server.http_app). The gate and what every
answer carries are graphmem.gate's; the socket, uvicorn and the process's signals are
graphmem.serving's; the verbs themselves are the facade's.
"""

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from http import HTTPStatus
from pathlib import Path
from typing import Annotated, Any

from graphmem.errors import ConfigurationError

try:
    from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse, StreamingResponse
    from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
    from fastapi.staticfiles import StaticFiles
    from fastapi_offline import FastAPIOffline
    from starlette.exceptions import HTTPException as StarletteHTTPException
except ModuleNotFoundError as missing:
    raise ConfigurationError(
        f"graphmem serve needs FastAPI and uvicorn ({missing}): pip install 'graphmem[server]'"
    ) from None

from graphmem import __version__
from graphmem.aio import AsyncGraphMem
from graphmem.config import Settings
from graphmem.contract import (
    STATUSES,
    ErrorAnswer,
    EventEntry,
    Forgotten,
    GraphCounts,
    Health,
    ImpressionEntry,
    KeyInfo,
    KeyRequest,
    Lesson,
    Limit,
    MessageRef,
    NewKey,
    NodeNeighbourhood,
    NodeWanted,
    Observation,
    ObserveMany,
    ObserveOne,
    OwnerGraph,
    Profile,
    Recall,
    RecallQuestion,
    Records,
    ServedRequest,
    SleepReport,
    TimelinePage,
    TimelineWanted,
    TurnsWanted,
    When,
    error_answer,
    export_records,
    status_of,
)
from graphmem.errors import GraphMemError, InvalidInputError
from graphmem.gate import (
    CONSOLE_PATH,
    DOCS_ASSETS,
    REQUESTS_KEPT,
    Answers,
    Gate,
    Hosts,
    KeyChecks,
    Limits,
    Perimeter,
    RequestLog,
)
from graphmem.keys import ApiKey
from graphmem.mcp_server import http_app
from graphmem.model import Memory, Turn
from graphmem.serving import opened, run

log = logging.getLogger("graphmem.server")

CONSOLE_FILES = Path(__file__).parent / "console"
"""The console's page, script and style, inside the package (it works offline)."""
RETRY_AFTER_SECONDS = 5
"""What `Retry-After` says when the store cannot be reached."""


def refusal(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> HTTPException:
    """An HTTP refusal of the app's own (authentication, permission, limits, not found)."""
    return HTTPException(status, {"code": code, "message": message}, headers)


def _request_id(request: Request) -> str:
    """The request's id (the Answers middleware set it)."""
    return str(request.scope.get("state", {}).get("request_id", ""))


def _without_embeddings(memories: list[Memory]) -> list[Memory]:
    """Memories as an HTTP answer carries them: without their embeddings."""
    return [memory.model_copy(update={"embedding": None}) for memory in memories]


def _observation(observation: Observation) -> Observation:
    """An observation as an HTTP answer carries it: memories without embeddings."""
    return observation.model_copy(
        update={
            "memories": _without_embeddings(observation.memories),
            "conjectures": _without_embeddings(observation.conjectures),
        }
    )


# The dependencies are coroutines, though none of them waits on the store itself: FastAPI runs a
# plain function in a thread of its own, a hop between threads for a few lines of Python.
async def _memory(request: Request) -> AsyncGraphMem:
    """The memory the app serves."""
    memory: AsyncGraphMem = request.app.state.memory
    return memory


Served = Annotated[AsyncGraphMem, Depends(_memory)]


BEARER = HTTPBearer(auto_error=False, description="a key: graphmem keys create, or POST /v1/keys")
"""Declares the bearer scheme in /openapi.json, so that /docs asks for a key to try a route with."""


async def _caller(
    request: Request, _declared: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)]
) -> ApiKey | None:
    """The request's key, which the gate checked (None on an open server)."""
    key: ApiKey | None = request.scope["state"]["key"]
    return key


Caller = Annotated[ApiKey | None, Depends(_caller)]


async def _permitted(owner: str, key: Caller) -> str:
    """The owner of the route, if the request's key may touch it; 403 otherwise."""
    if key is not None and not key.permits(owner):
        raise refusal(403, "forbidden", "this key may not touch this owner")
    return owner


Owner = Annotated[str, Depends(_permitted)]


async def _admin(key: Caller) -> None:
    """Nothing, if the key is an admin key (or the server is open); 403 otherwise."""
    if key is not None and not key.admin:
        raise refusal(403, "forbidden", "only an admin key manages keys")


Admin = Depends(_admin)

service = APIRouter(tags=["service"])
owners = APIRouter(prefix="/v1/owners", tags=["memory"])
keys = APIRouter(prefix="/v1/keys", tags=["keys"], dependencies=[Admin])
requests_log = APIRouter(prefix="/v1/requests", tags=["service"], dependencies=[Admin])


@service.get("/healthz")
async def alive() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


@service.get("/readyz")
async def ready(request: Request) -> dict[str, str]:
    """The store answers (503 otherwise)."""
    checks: KeyChecks = request.app.state.checks
    await checks.ready()
    return {"status": "ready"}


@owners.get("")
async def list_owners(memory: Served, key: Caller) -> list[str]:
    """The owners with a memory that this key may touch."""
    return [owner for owner in await memory.owners() if key is None or key.permits(owner)]


@owners.post("/{owner}/observe")
async def observe(owner: Owner, body: ObserveOne, memory: Served) -> Observation:
    """GraphMem.observe: store a message and derive its memory."""
    observed = await memory.observe(
        owner,
        body.text,
        message_id=body.message_id,
        at=body.at,
        speaker=body.speaker,
        session=body.session,
        readmit_forgotten=body.readmit_forgotten,
    )
    return _observation(observed)


@owners.post("/{owner}/observe_many")
async def observe_many(
    owner: Owner, body: ObserveMany, memory: Served, request: Request
) -> list[Observation]:
    """GraphMem.observe_many: store messages in one transaction, then derive them.

    413 when the messages are more than the server takes in one request (serve --max-messages).
    """
    most = request.app.state.limits.max_messages
    if len(body.messages) > most:
        raise refusal(
            413,
            "too_many_messages",
            f"messages: {len(body.messages)} in one request, at most {most} (serve"
            " --max-messages): send them in several",
        )
    items = [message.model_dump() for message in body.messages]
    observed = await memory.observe_many(owner, items, readmit_forgotten=body.readmit_forgotten)
    return [_observation(item) for item in observed]


@owners.post("/{owner}/recall")
async def recall(owner: Owner, body: RecallQuestion, memory: Served) -> Recall:
    """GraphMem.recall: the related-context subgraph, with its text for a prompt (`rendered`)."""
    # Turns go as data, which the facade checks (QueryTurn objects it would take as they are).
    query: str | list[dict[str, Any]] = (
        body.query if isinstance(body.query, str) else [turn.model_dump() for turn in body.query]
    )
    options = {name: getattr(body, name) for name in RecallQuestion.model_fields if name != "query"}
    return await memory.recall(owner, query, **options)


@owners.post("/{owner}/consolidate")
async def consolidate(owner: Owner, body: When, memory: Served) -> SleepReport:
    """GraphMem.consolidate: the sleep job for this owner."""
    return await memory.consolidate(owner, at=body.at)


@owners.post("/{owner}/complete_pending")
async def complete_pending(owner: Owner, body: Limit, memory: Served) -> int:
    """GraphMem.complete_pending: derive pending turns' memories; how many."""
    return await memory.complete_pending(owner, limit=body.limit)


@owners.post("/{owner}/learn")
async def learn(owner: Owner, body: Lesson, memory: Served) -> dict[str, str]:
    """GraphMem.learn: teach that a cause leads to an effect."""
    await memory.learn(owner, body.cause, body.effect, body.sufficiency, at=body.at)
    return {"status": "learnt"}


@owners.post("/{owner}/retier")
async def retier(owner: Owner, body: When, memory: Served) -> int:
    """GraphMem.retier: sink faded memories to their tiers; how many moved."""
    return await memory.retier(owner, at=body.at)


@owners.post("/{owner}/forget_message")
async def forget_message(owner: Owner, body: MessageRef, memory: Served) -> Forgotten:
    """GraphMem.forget_message: forget a message and what derives only from it.

    `found` is false when the owner has no such message (nothing changes), as on every face.
    """
    return await memory.forget_message(owner, body.message_id)


@owners.get("/{owner}/turns")
async def turns(
    owner: Owner, memory: Served, wanted: Annotated[TurnsWanted, Query()]
) -> list[Turn]:
    """GraphMem.turns: the turns of one session in the order received."""
    return await memory.turns(owner, session=wanted.session, last=wanted.last)


@owners.get("/{owner}/timeline")
async def timeline(
    owner: Owner, memory: Served, wanted: Annotated[TimelineWanted, Query()]
) -> TimelinePage:
    """GraphMem.timeline: a page of the owner's memories, newest first; `next` reads on."""
    return await memory.timeline(owner, **wanted.model_dump())


@owners.get("/{owner}/neighbourhood")
async def neighbourhood(
    owner: Owner, memory: Served, wanted: Annotated[NodeWanted, Query()]
) -> NodeNeighbourhood:
    """GraphMem.neighbourhood: a node, every node one edge away and those edges."""
    return await memory.neighbourhood(owner, wanted.node_id, label=wanted.label)


@owners.post("/{owner}/forget")
async def forget(owner: Owner, memory: Served) -> GraphCounts:
    """GraphMem.forget: delete everything of this owner."""
    return await memory.forget(owner)


@owners.get("/{owner}/health")
async def health(owner: Owner, memory: Served, when: Annotated[When, Query()]) -> Health:
    """GraphMem.health: what needs attention in this owner's memory."""
    return await memory.health(owner, at=when.at)


@owners.get("/{owner}/profile")
async def profile(owner: Owner, memory: Served, when: Annotated[When, Query()]) -> Profile:
    """GraphMem.profile: who the user is now, as the memory believes (no model call)."""
    return await memory.profile(owner, at=when.at)


@owners.get("/{owner}/events")
async def events(owner: Owner, memory: Served, when: Annotated[When, Query()]) -> list[EventEntry]:
    """GraphMem.events: every event of the owner, open or closed, latest update first."""
    return await memory.events(owner, at=when.at)


@owners.get("/{owner}/impressions")
async def impressions(
    owner: Owner, memory: Served, when: Annotated[When, Query()]
) -> list[ImpressionEntry]:
    """GraphMem.impressions: every impression of the owner, its belief now, strongest first."""
    return await memory.impressions(owner, at=when.at)


@owners.get("/{owner}/statistics")
async def statistics(owner: Owner, memory: Served) -> GraphCounts:
    """GraphMem.statistics: the owner's nodes and edges counted."""
    return await memory.statistics(owner)


@owners.get(
    "/{owner}/export",
    response_class=StreamingResponse,
    responses={200: {"content": {"application/x-ndjson": {}}}},
)
async def export(owner: Owner, memory: Served) -> StreamingResponse:
    """GraphMem.export: the export file's lines, a header then one JSON record a line.

    `graphmem import` reads it as it is; its records are what `load` takes.
    """
    graph = await memory.export(owner)

    async def lines() -> AsyncIterator[bytes]:
        for record in export_records(owner, graph):
            yield (json.dumps(record, ensure_ascii=False) + "\n").encode()

    return StreamingResponse(lines(), media_type="application/x-ndjson")


@owners.post("/{owner}/load")
async def load(owner: Owner, body: Records, memory: Served) -> GraphCounts:
    """GraphMem.load: add exported records to the owner's memory."""
    try:
        graph = OwnerGraph.from_records(body.records)
    except OverflowError as error:  # a time that is past datetime's range once in UTC
        raise InvalidInputError(f"records: a time out of range ({error})") from None
    return await memory.load(owner, graph)


@keys.post("")
async def create_key(body: KeyRequest, memory: Served) -> NewKey:
    """A new key (admin only); its secret is in this answer and nowhere else."""
    return await memory.create_key(
        owners=body.owners, owner_prefix=body.owner_prefix, admin=body.admin
    )


@keys.get("")
async def list_keys(memory: Served) -> list[KeyInfo]:
    """Every key, without its secret or its hash (admin only)."""
    return await memory.list_keys()


@requests_log.get("")
async def request_log(
    request: Request, limit: Annotated[int, Query(ge=1, le=REQUESTS_KEPT)] = 100
) -> list[ServedRequest]:
    """The latest requests this server answered, newest first (admin only): no body, no key.

    It keeps the latest thousand since it started: route, owner, status, milliseconds, id.
    """
    log: RequestLog = request.app.state.requests
    return log.latest(limit)


@keys.post(
    "/{key_id}/revoke", responses={404: {"model": ErrorAnswer, "description": "no such key"}}
)
async def revoke_key(key_id: str, memory: Served) -> KeyInfo:
    """Revoke a key (admin only; 404 if there is no such key)."""
    revoked = await memory.revoke_key(key_id)
    if revoked is None:
        raise refusal(404, "not_found", f"no key {key_id!r}")
    return revoked


async def _refused(request: Request, error: Exception) -> JSONResponse:
    """The JSON answer of a refusal of the app's own."""
    assert isinstance(error, StarletteHTTPException)
    detail: dict[str, Any] = error.detail if isinstance(error.detail, dict) else {}
    phrase = HTTPStatus(error.status_code).phrase.lower().replace(" ", "_")
    code = str(detail.get("code", phrase))
    message = str(detail.get("message", error.detail))
    body = error_answer(code, message, _request_id(request))
    return JSONResponse(body, status_code=error.status_code, headers=error.headers)


async def _unfit(request: Request, error: Exception) -> JSONResponse:
    """The JSON answer of a request that does not fit its schema: the first problem, its field."""
    assert isinstance(error, RequestValidationError)
    problems = error.errors() or [{"loc": (), "msg": "invalid request"}]
    first = max(problems, key=lambda problem: len(problem["loc"]))  # a union's: its deepest
    if first.get("type") == "json_invalid":  # its place: ("body", the offset of the mistake)
        position = first["loc"][-1]
        problem = first.get("ctx", {}).get("error", "")
        message = f"the body is not JSON at position {position}: {problem}".removesuffix(": ")
        body = error_answer("not_json", message, _request_id(request))
        return JSONResponse(body, status_code=422)
    where = ".".join(str(part) for part in first["loc"][1:] if not _union_member(part))
    message = f"{where or 'body'}: {str(first['msg']).removeprefix('Value error, ')}"
    body = error_answer("unfit_request", message, _request_id(request), where or None)
    return JSONResponse(body, status_code=422)


def _union_member(part: object) -> bool:
    """Whether a part of an error's place is a union's member (`Weights`, `str`), not a field."""
    return isinstance(part, str) and (part[:1].isupper() or "[" in part or part in TYPE_NAMES)


TYPE_NAMES = {"str", "int", "float", "bool", "list", "dict", "none"}
"""The names pydantic gives the plain members of a union in an error's place."""


async def _failed(request: Request, error: Exception) -> JSONResponse:
    """The JSON answer of a GraphMemError (the contract's STATUSES say which status)."""
    assert isinstance(error, GraphMemError)
    status, _error, code, _meaning = status_of(error)
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)} if status == 503 else {}
    if status >= 500:
        log.warning("%s: %s", _request_id(request), error)
    body = error_answer(code, str(error), _request_id(request))
    return JSONResponse(body, status_code=status, headers=headers)


def create_app(
    memory: AsyncGraphMem,
    limits: Limits,
    *,
    open_access: bool,
    host: str = "127.0.0.1",
    perimeter: Perimeter = Perimeter(),  # noqa: B008 (frozen: one default is safe to share)
) -> FastAPI:
    """The app: every verb a route, and the MCP tools at /mcp, behind keys unless `open_access`.

    `open_access` is for a store with no key (the first key made closes it); `host` is where the
    app listens, whose address (and the perimeter's names) the Host header must name.
    """
    checks = KeyChecks(memory.memory, open_access=open_access)
    tools = http_app(memory.memory, max_messages=limits.max_messages)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with tools.router.lifespan_context(tools):  # the MCP sessions' task group
            yield
        checks.close()

    app = FastAPIOffline(
        lifespan=lifespan,
        title="graphmem",
        version=__version__,
        description="Long-term memory for conversational agents: the facade's verbs over HTTP."
        " Send `Authorization: Bearer <key>` (Authorize, above, to try a route here); a key"
        " touches only its owners.",
        responses={
            row.status: {"model": ErrorAnswer, "description": row.meaning} for row in STATUSES
        },
        redoc_url=None,
        static_url=DOCS_ASSETS,
        favicon_url=f"{DOCS_ASSETS}/favicon.png",
    )
    app.state.memory = memory
    app.state.checks = checks
    app.state.limits = limits
    app.state.requests = RequestLog()
    for router in (service, owners, keys, requests_log):
        app.include_router(router)
    app.mount(CONSOLE_PATH, StaticFiles(directory=CONSOLE_FILES, html=True), name="console")
    app.router.routes.extend(tools.routes)  # POST /mcp, as `graphmem mcp --transport http` has
    # Starlette's, of which FastAPI's is a kind: the router's 404 and 405, the body parser's 400.
    app.add_exception_handler(StarletteHTTPException, _refused)
    app.add_exception_handler(RequestValidationError, _unfit)
    app.add_exception_handler(GraphMemError, _failed)
    hosts = Hosts(host, perimeter.allowed_hosts)
    app.add_middleware(
        Gate,
        checks=checks,
        limits=limits,
        hosts=hosts,
        trusted_proxies=perimeter.trusted_proxies,
    )
    app.add_middleware(
        Answers, requests=app.state.requests
    )  # outermost: every answer, a refusal included, has its id
    return app


def serve(
    settings: Settings,
    *,
    host: str,
    port: int,
    limits: Limits,
    workers: int,
    perimeter: Perimeter = Perimeter(),  # noqa: B008 (frozen: one default is safe to share)
) -> None:
    """Serve the memory the settings name until the process is stopped.

    With no live key in the store the server is open, which only a loopback host may be:
    ConfigurationError otherwise, as for a port in use.
    """
    with opened(settings, host=host, port=port) as (memory, listener, open_access):
        served = AsyncGraphMem(memory, workers=workers)
        app = create_app(served, limits, open_access=open_access, host=host, perimeter=perimeter)
        run(app, listener, host=host, port=port, header_timeout=limits.header_timeout)
