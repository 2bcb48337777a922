"""The ASGI app of ``mapgen serve``: the table helper, the studio, and a JSON API over ``service``.

Safe by default: request bodies are capped and validated (a bad one gets a 4xx with a one-line
message, never a traceback). Each kind of work has its own pool, so no request waits behind work of
another kind: checks that call no solver (validate, parse, the chapter list, a shipped map) in threads of
the server process; drawing (render without a solve) in worker processes; quick solver questions (the
table's quick answer, repair) in a third pool, hints (an explanation takes a second or more) in a fourth
and slow ones (solve counts, generate, the table's full count, render with forced cells or a heat map) in
a fifth, all in worker processes (``pools``) at a lower OS priority, every solver call with a time limit:
CPU-bound Python there never holds the server's GIL, so validations are answered while every solver
worker is busy. Identical requests in flight share one computation and recent answers are kept
(``answers``: they are deterministic; not an estimate from another state's sampler draws: ``draws``, the
pool of draws per briefing that the quick worker of a map keeps). Playtest and deduce run as jobs in processes
of their own (``jobs``).
Every API response carries ``X-Mapgen-Exit``: the exit code the same CLI command would give.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from mapgen.errors import TIMEOUT
from mapgen.inputs import Unreadable, parse_json
from mapgen.web import service
from mapgen.web.answers import Answers, request_key
from mapgen.web.jobs import Jobs, JobsFull
from mapgen.web.pools import ProcessPool, StickyPool
from mapgen.web.rules import SHIPPED, ServedRules
from mapgen.web.service import ApiError

STATIC = Path(__file__).parent / "static"
MAX_BODY = 64 * 1024  # a map file is a few hundred bytes; a profile a few kilobytes
DISCARD_BODY = 16 * 1024 * 1024  # a larger body is read (and dropped) up to this before the 413 answer
#: endpoints answered with GET: a POST to one is a 405 (not "no such endpoint"; a POST to /api/maps was a 404)
GET_ONLY = ("chapters", "maps")
#: endpoints with a route of their own that answer POST only (a GET of one is a 405 too)
POST_ROUTES = ("render", "deduce", "playtest")
CSP = (
    "default-src 'self'; img-src 'self' blob: data:; style-src 'self' 'unsafe-inline'; script-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)

#: which pool answers which endpoint (a table request with ``count: "full"`` goes with the slow ones)
CHECKS = {"validate": service.do_validate, "parse": service.do_parse}
QUICK = {
    "hint": service.do_hint,
    "table": service.do_table,
    "repair": service.do_repair,
}
SLOW = {"solve": service.do_solve, "generate": service.do_generate}
#: OS priority (nice, added to the server's) of each pool's worker processes: the server (checks) first,
#: then the table's quick answers and hints (a player waits on each tap), then drawing (a download), then
#: the slow ones (nice 10, as the slow threads had). Moderate steps (the kernel gives nice 0 about 1.25 times
#: the CPU of nice 1, 3 times nice 5's): larger ones starved the solvers behind any other busy program
#: (answers ran out of time in tests/test_load.py beside one busy process). Measured with
#: ``python -m bench serve``'s load (50 clients, another busy process beside): with drawing at 2 and the
#: quick answers and hints at 5, table p99 1.41-1.44 s and hint 1.29-1.50 s; as here, 0.64-0.74 s and
#: 1.14-1.44 s (render's p99 1.9-2.0 s became 2.3-2.4 s). On a quiet machine, before and after: hint p99
#: 1.87-2.16 s -> 0.87-1.01 s, table 1.08-1.34 s -> 0.60-0.92 s, validate 64-68 ms -> 49-54 ms.
NICE = {"quick": 2, "hints": 2, "draw": 7, "slow": 10}
#: pools whose questions about one map go to one worker (``StickyPool``): its sessions and circuits are warm
STICKY = ("quick", "hints")
#: endpoints whose answers are shared and kept (deterministic); generate makes a new map when asked twice
SHARED = ("hint", "table", "repair", "solve", "render")


def map_key(body: dict) -> int:
    """Which map a request is about, as a number for a sticky pool: a hash of the map text's lines before its
    terrain (chapter, number, Peak, start, the briefing's pattern), so that every state of one map, and the
    map itself, give the same number; a shipped map's name otherwise. Only where work runs depends on it."""
    text = body.get("map")
    head = text.split("terrain", 1)[0] if isinstance(text, str) else str(body.get("name", ""))
    return zlib.crc32(head.encode("utf-8", "replace"))


#: Retry-After of a 503, in seconds (RFC 9110: when a client may ask again). A full job line: 20 jobs wait behind
#: two running, each up to minutes (deduce's default limit is 120 s), so a client asking sooner than a minute finds
#: the line still full; the message says "try again in a minute" alike.
RETRY_JOBS_FULL = 60
#: The server stopping under a request: a restart (``mapgen serve`` again, or its supervisor) takes a few seconds.
RETRY_STOPPING = 10


def _json(payload, status: int = 200, exit: int = 0, retry_after: int | None = None) -> JSONResponse:
    headers = {"X-Mapgen-Exit": str(exit)}
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    return JSONResponse(payload, status_code=status, headers=headers)


def _error(message: str, status: int, exit: int = 2, retry_after: int | None = None, **extra) -> JSONResponse:
    return _json({"error": message, **extra}, status, exit, retry_after)


def cut(text: str, most: int = 200) -> str:
    """A path or id of a request as its messages name it: at most ``most`` characters (a 20,000-character path came
    back whole), as every other message is cut."""
    return text if len(text) <= most else text[:most] + "…"


def _not_allowed(request: Request, allow: str) -> JSONResponse:
    """The 405 of a method an endpoint does not answer, worded as the CLI would: ``/api/solve answers POST, not
    GET``."""
    order = ("GET", "POST", "PUT", "PATCH", "DELETE")  # Starlette's Allow comes from a set: its order varies
    given = {m.strip() for m in allow.split(",")} - {"", "HEAD"}
    methods = sorted(given, key=lambda m: (order.index(m) if m in order else len(order), m))
    return JSONResponse(
        {"error": f"{cut(request.url.path)} answers {' or '.join(methods) or 'nothing'}, not {request.method}"},
        status_code=405,
        headers={"Allow": allow, "X-Mapgen-Exit": "2"},
    )


async def read_body(request: Request) -> dict:
    """The JSON object of a request body, at most MAX_BODY bytes, sent as application/json.

    Requiring the JSON content type keeps other web sites out: a page elsewhere can only send a
    cross-site "simple" request (a form, text/plain), never application/json without the browser
    asking first, and this app answers no such question (no CORS).
    """
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise ApiError(f"send the body as application/json, not {kind or 'no content type'}", status=415)
    declared = request.headers.get("content-length")
    too_large = ApiError(f"request body too large (at most {MAX_BODY // 1024} KiB)", status=413)
    if declared is not None and not declared.isdigit():
        raise too_large
    if declared is not None and int(declared) > MAX_BODY:
        await _discard(request)
        raise too_large
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            await _discard(request)
            raise too_large
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        raise ApiError("empty request body: send a JSON object")
    try:
        body = parse_json(raw)  # the reader of every input: nesting at most mapgen.inputs.MAX_DEPTH
    except Unreadable as e:
        problem = str(e)
        said = f"request body {problem}" if problem.startswith("is ") else f"request body: {problem}"  # not UTF-8
        raise ApiError("request body is not JSON" if problem.startswith("not") else said) from None
    if not isinstance(body, dict):
        raise ApiError(f"request body must be a JSON object, not {service.json_kind(body)}")
    return body


async def _discard(request: Request) -> None:
    """Read and drop the rest of a body too large to use, up to DISCARD_BODY bytes, so that the client, still
    sending, gets the 413 answer instead of a connection reset (a server that answers and closes unread)."""
    drained = 0
    with contextlib.suppress(Exception):  # the client went away: nothing left to answer
        async for chunk in request.stream():
            drained += len(chunk)
            if drained > DISCARD_BODY:
                break


async def _connected(request: Request) -> bool:
    return not await request.is_disconnected()


def _keep(answer) -> bool:
    """Whether an answer may be given again: not one that says a background compile or sampler run is still
    under way (the next ask is better once it lands), nor odds estimated from an earlier state's draws (a run
    for this state follows: ``draws``), nor one kept in part because its time ran out (exit 3: a hint whose odds
    or best guess did not come, a render's ``(..., code)`` drawn with "?"), the load's doing, not the state's."""
    if isinstance(answer, tuple) and (answer[0] == TIMEOUT or (len(answer) == 5 and answer[4] == TIMEOUT)):
        return False
    if not (isinstance(answer, tuple) and isinstance(answer[1], dict)):
        return True
    v = answer[1]
    pooled = isinstance(v.get("sampler"), dict) and not v["sampler"].get("own", True)
    return not ("compiling" in v or "sampling" in v or pooled)


def _yield_to_quick() -> None:
    """Run a slow-pool thread at a lower priority (Linux: per thread), so that on a busy machine the
    CPU goes to quick questions (a hint, a tap) before long counts."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):  # not Linux, or not allowed: equal priority, still separate pools
        pass


def create_app(
    *,
    quick_workers: int = 2,
    slow_workers: int = 2,
    check_workers: int = 2,
    draw_workers: int = 2,
    hint_workers: int = 2,
    job_workers: int = 2,
    processes: bool = True,
    answers: int = 256,
    warm: bool = False,
    allowed_hosts: list[str] | None = None,
    rules: ServedRules = SHIPPED,
) -> Starlette:
    """The web app; each app has its own pools (checks; drawing, quick, hint and slow work), answers and job line.

    ``processes``: drawing and solver work in worker processes (``pools``); False runs them in threads of
    this process instead (tests that patch the solver in this process). ``answers``: how many recent
    answers are kept (0: none; identical requests in flight still share one). ``warm``: start the worker
    processes with the app rather than on the first requests. ``allowed_hosts``: the Host headers answered
    (``mapgen serve`` on loopback passes the loopback names, so a web page that points its own name at
    127.0.0.1 reaches nothing); None answers any. ``rules``: the chapters served under house rules (``mapgen serve
    --rules``), handed to every call of ``service`` (in threads and worker processes alike), so that every
    answer about a map of such a chapter follows them; the others keep their shipped rules.
    """
    checks = ThreadPoolExecutor(check_workers, thread_name_prefix="mapgen-check")
    sizes = {"checks": check_workers, "draw": draw_workers, "quick": quick_workers, "hints": hint_workers}
    sizes["slow"] = slow_workers
    pools: dict = {"checks": checks}
    for kind in ("draw", "quick", "hints", "slow"):
        if processes:
            sticky = kind in STICKY and sizes[kind] > 1
            pools[kind] = (StickyPool if sticky else ProcessPool)(sizes[kind], NICE[kind], name=f"mapgen-{kind}")
        else:
            start = _yield_to_quick if kind == "slow" else None
            pools[kind] = ThreadPoolExecutor(sizes[kind], thread_name_prefix=f"mapgen-{kind}", initializer=start)
    draw, quick, hints, slow = pools["draw"], pools["quick"], pools["hints"], pools["slow"]
    jobs = Jobs(job_workers)
    kept = Answers(answers)

    gates = {id(pools[k]): asyncio.Semaphore(sizes[k]) for k in pools}

    async def work(pool, fn, *args, wanted=None, key=None):
        # Wait for a free worker here rather than in the pool's queue, so that a request whose client has
        # gone (a tap superseded by the next one) is dropped before it costs any solver time.
        async with gates[id(pool)]:
            if wanted is not None and not await wanted():
                raise ApiError("the client went away", status=499)
            try:
                sticky = key is not None and isinstance(pool, StickyPool)
                return await asyncio.wrap_future(
                    pool.submit_keyed(key, fn, *args) if sticky else pool.submit(fn, *args)
                )
            except BrokenProcessPool:  # the worker died under it (killed, out of memory): one line, a 500
                raise ApiError(
                    "a worker process ended before its answer; please try again", exit=1, status=500
                ) from None

    async def run(pool, fn, *args, request: Request | None = None):
        wanted = None if request is None else (lambda: _connected(request))
        try:
            return await work(pool, fn, *args, wanted=wanted)
        except asyncio.CancelledError:  # the server stops (Ctrl+C) while this runs: a short answer, no log
            raise ApiError("the server is stopping", status=503) from None

    async def answer(name: str, pool, fn, body: dict, request: Request):
        """``fn(body, rules)`` in ``pool``, shared with identical requests (in flight or recent) where it may be; in a
        sticky pool, on the worker of the body's map (``map_key``)."""
        if name not in SHARED:
            return await run(pool, fn, body, rules, request=request)
        key = map_key(body)
        try:
            return await kept.get(
                request_key(name, body),
                lambda wanted: work(pool, fn, body, rules, wanted=wanted, key=key),
                keep=_keep,
                client=request,
            )
        except asyncio.CancelledError:  # as in run: the shared work itself just ends (cancelled)
            raise ApiError("the server is stopping", status=503) from None

    def page(name: str):
        async def handler(request: Request):
            return FileResponse(STATIC / name, headers={"Content-Security-Policy": CSP, "Cache-Control": "no-cache"})

        return handler

    async def chapters(request: Request):
        code, payload = await run(checks, service.do_chapters, None, rules)
        return _json(payload, exit=code)

    async def shipped_list(request: Request):
        code, payload = await run(checks, service.do_maps, None, rules)
        return _json(payload, exit=code)

    async def shipped(request: Request):
        name = request.path_params["name"]
        try:
            code, payload = await run(checks, service.do_parse, {"name": name}, rules)
        except ApiError as e:  # the path names no shipped map: a resource that is not there (a body's name is a 400)
            if e.status == 400:
                raise ApiError(str(e), exit=e.exit, status=404, **e.extra) from None
            raise
        return _json(payload, exit=code)

    async def api(request: Request):
        name = request.path_params["name"]
        if name in GET_ONLY:
            await _discard(request)
            return _not_allowed(request, "GET, HEAD")
        if name not in CHECKS and name not in QUICK and name not in SLOW and name not in POST_ROUTES:
            await _discard(request)
            raise ApiError(f"no API endpoint /api/{cut(name)}", status=404)
        if request.method != "POST":  # a GET (or PUT, ...) of a POST endpoint: 405, not "no such endpoint"
            await _discard(request)
            return _not_allowed(request, "POST")
        body = await read_body(request)
        service.check_fields(name, body)
        if name in CHECKS:  # a millisecond of Python: at once, not in a thread that waits for the loop's GIL
            code, payload = CHECKS[name](body, rules)
        elif name == "hint":  # an explanation costs a second or more: the table's quick answers never wait for one
            code, payload = await answer(name, hints, QUICK[name], body, request)
        elif name in QUICK and not (name == "table" and body.get("count") != "quick"):
            code, payload = await answer(name, quick, QUICK[name], body, request)
        elif name in QUICK:  # the table helper's full count: with the slow questions
            code, payload = await answer(name, slow, QUICK[name], body, request)
        else:
            code, payload = await answer(name, slow, SLOW[name], body, request)
        return _json(payload, exit=code)

    async def render(request: Request):
        body = await read_body(request)
        service.check_fields("render", body)
        solves = bool(body.get("forced") or body.get("heat"))  # forced cells or a heat map: a solver runs first
        data, media, filename, note, code = await answer(
            "render", slow if solves else draw, service.do_render, body, request
        )
        headers = {"Content-Disposition": f'attachment; filename="{filename}"', "X-Mapgen-Exit": str(code)}
        if note is not None:  # characters the font cannot draw (CJK in a name): a header is Latin-1, so URL-encoded
            headers["X-Mapgen-Note"] = quote(note)
        return Response(data, media_type=media, headers=headers)

    async def start_job(request: Request):
        kind = request.url.path.rsplit("/", 1)[1]
        body = await read_body(request)
        service.check_fields(kind, body)
        args = service.deduce_args(body, rules) if kind == "deduce" else service.playtest_args(body, rules)
        limit = args["time_limit"] + 30 if kind == "deduce" else None
        try:
            job = jobs.submit(kind, args, limit)
        except JobsFull as e:
            return _error(str(e), 503, retry_after=RETRY_JOBS_FULL)
        return _json(job.to_json(), 202)

    def _job(request: Request):
        job = jobs.get(request.path_params["id"])
        if job is None:
            raise ApiError(f"no job {cut(request.path_params['id'])!r}", status=404)
        return job

    async def job_status(request: Request):
        job = _job(request)
        return _json(job.to_json(), exit=job.exit_code())

    async def job_cancel(request: Request):
        _job(request)
        return _json(jobs.cancel(request.path_params["id"]).to_json())

    async def job_route(request: Request):
        return await (job_cancel if request.method == "DELETE" else job_status)(request)

    async def job_plot(request: Request):
        job = _job(request)
        if job.plot is None:
            raise ApiError(f"job {job.id} has no chart (status {job.status})", status=404)
        return Response(job.plot, media_type="image/png")

    async def job_puzzle(request: Request):
        job = _job(request)
        if job.puzzle is None:
            why = "a playtest" if job.kind != "deduce" else f"status {job.status}"
            raise ApiError(f"job {job.id} has no puzzle ({why})", status=404)
        name = f"{job.args['stem']}-puzzle.toml"  # named after the map deduced, as /api/render names its pictures
        headers = {"Content-Disposition": f'attachment; filename="{name}"', "X-Mapgen-Exit": str(job.exit_code())}
        note = service.puzzle_note(job.args["text"])  # numbered by its answer's seed: deduce --puzzle's note
        if note is not None:
            headers["X-Mapgen-Note"] = quote(note)
        return Response(job.puzzle.encode("utf-8"), media_type="application/toml", headers=headers)

    async def on_api_error(request: Request, exc: ApiError):
        # a 503 is the server stopping under the request (``run``, ``answer``): ask again once it is back
        return _json(exc.to_json(), exc.status, exc.exit, RETRY_STOPPING if exc.status == 503 else None)

    async def on_http(request: Request, exc: HTTPException):
        if exc.status_code == 405:
            return _not_allowed(request, (exc.headers or {}).get("Allow", ""))
        if exc.status_code == 404 and exc.detail == "Not Found":
            where = "API endpoint" if request.url.path.startswith("/api/") else "page or file"
            return _error(f"no {where} {cut(request.url.path)}", 404)
        return _error(str(exc.detail), exc.status_code)

    async def on_crash(request: Request, exc: Exception):
        # A bug: one line, never a traceback page. The server log keeps the details.
        return _error(f"an internal error ({type(exc).__name__}); please report it", 500, 1)

    @asynccontextmanager
    async def lifespan(app):
        if warm:
            for pool in pools.values():
                if isinstance(pool, (ProcessPool, StickyPool)):
                    pool.warm()
        try:
            yield
        finally:
            jobs.shutdown()
            for pool in pools.values():
                if isinstance(pool, (ProcessPool, StickyPool)):
                    pool.shutdown(cancel_futures=True)
                else:
                    pool.shutdown(wait=False, cancel_futures=True)

    routes = [
        Route("/", page("index.html")),
        Route("/helper", page("helper.html")),
        Route("/studio", page("studio.html")),
        Route("/api/chapters", chapters),
        Route("/api/maps", shipped_list),
        Route("/api/maps/{name}", shipped),
        Route("/api/render", render, methods=["POST"]),
        Route("/api/deduce", start_job, methods=["POST"]),
        Route("/api/playtest", start_job, methods=["POST"]),
        Route("/api/jobs/{id}", job_route, methods=["GET", "DELETE"]),  # one route: a 405 allows both
        Route("/api/jobs/{id}/plot.png", job_plot),
        Route("/api/jobs/{id}/puzzle.toml", job_puzzle),
        # every method: an unknown name is a 404 and a GET of a POST endpoint a 405 that says so (an OPTIONS was
        # refused by this route's own list: "/api/solve answers GET or POST or PUT or PATCH or DELETE")
        Route("/api/{name:str}", api, methods=["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={ApiError: on_api_error, HTTPException: on_http, Exception: on_crash},
        lifespan=lifespan,
    )
    app.state.jobs = jobs
    app.state.answers = kept
    app.state.pools = pools
    app.state.rules = rules
    if allowed_hosts is not None:
        app.add_middleware(HostCheck, allowed=allowed_hosts)
    app.add_middleware(ApiSlash)
    return app


class ApiSlash:
    """Answers an API path with a trailing slash as the path without it (``/api/maps/`` as ``/api/maps``,
    ``/api/validate/`` as ``/api/validate``), for every method, rather than redirecting: a redirect loses a
    POST's body in some clients and led ``/api/maps/`` to a 404."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path.startswith("/api/") and path.endswith("/") and path.strip("/") != "api":
            scope = {**scope, "path": path.rstrip("/"), "raw_path": scope.get("raw_path", b"").rstrip(b"/")}
        await self.app(scope, receive, send)


def host_name(header: str) -> str:
    """The name in a Host header, without its port: ``localhost:8000`` -> ``localhost``, ``[::1]:8000`` -> ``[::1]``."""
    if header.startswith("["):
        return header.split("]", 1)[0] + "]"
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class HostCheck:
    """Answers only requests addressed to one of ``allowed`` (a page on another site whose name was pointed at
    127.0.0.1, DNS rebinding, reaches nothing); any other gets the API's one-line ``{"error"}`` with
    ``X-Mapgen-Exit``, as every other refusal does (starlette's TrustedHostMiddleware answers in plain text)."""

    def __init__(self, app, allowed: list[str]):
        self.app = app
        self.allowed = frozenset(allowed)

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            host = Headers(scope=scope).get("host", "")
            if host_name(host) not in self.allowed:
                names = ", ".join(sorted(self.allowed))
                problem = f"requests addressed to {host[:100]!r} are not answered here (only {names})"
                await _error(problem, 400)(scope, receive, send)
                return
        await self.app(scope, receive, send)
