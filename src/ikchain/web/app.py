"""The lesson server: routes, the guard in front of them, and where the work runs.
Content comes from :mod:`ikchain.lesson.content`, request handling from
:mod:`ikchain.web.protocol`.

Routes (all in :data:`ROUTES`):

- ``GET /`` — the lesson page, Chinese; ``/?lang=en`` for English (any case).
- ``GET /static/...`` — the page's script and style sheet, shipped in the package.
- ``WebSocket /ws`` — drag frames, replays and motions: one JSON reply per request,
  each sent when it is ready and carrying the request's id (a drag frame is answered
  before a replay sent ahead of it).
- ``POST /api/frame`` — one drag frame over HTTP (the script's fallback).
- ``POST /api/solve`` — the same JSON as ``ikchain solve --json``.
- ``GET /api/health`` — ``{"ok": true, "ready": ...}``: whether the start-up work
  (the compiled kernels, the heavy process) is done; before it the page already works
  on plain-Python kernels, and replays wait (a benchmark or a deployment's health check
  waits for ``ready``).

The guard (:class:`Guard`), before any route: only the Host names the server was
started for (else 400: DNS rebinding), only same-origin browsers (a WebSocket or a
POST whose ``Origin`` is another site gets 403), only JSON bodies (415), and the
security headers (:data:`SECURITY_HEADERS`) on every HTTP answer.

Where the work runs (:class:`ikchain.web.scheduler.Workers`): every request is parsed
and checked here; a light one (one solve whose measured cost is at most about half a
millisecond) is solved right here on the event loop, anything heavier goes to a
separate process; both queues serve the connections in fair order, so a client asking
for the most the caps allow slows itself, not the others' drags. (A thread pool for
the light ones cost a quarter of the server's time per frame in hand-offs and GIL
switches, and bought no parallelism: the solvers hold the GIL.)

A bad request gets a 4xx (or, on the WebSocket, an error reply) with a message; the
connection and the server go on serving.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import html
import json
import logging
import os
import re
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from typing import Any, ClassVar
from urllib.parse import urlsplit

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from ikchain.caps import CAPS, CONNECTION_LIMITS
from ikchain.lesson import precomputed
from ikchain.lesson.content import DEFAULT_LANG, LANGS, forget_rendered, page_context
from ikchain.solvers import compile_kernels
from ikchain.solvers.runner import interpret_while_compiling
from ikchain.web.logs import ACCESS
from ikchain.web.protocol import Reply, RequestError, error_reply, request_id
from ikchain.web.scheduler import (
    HEAVY_NICE,
    HEAVY_PROCESSES,
    HEAVY_QUEUE,
    LIGHT_WORK,
    METER_KEY,
    PENDING_PER_SOCKET,
    Meter,
    Workers,
    freeze_heap,
    limit_solver_threads,
    start_heavy_process,
)

__all__ = [
    "HEAVY_NICE",
    "HEAVY_PROCESSES",
    "HEAVY_QUEUE",
    "LIGHT_WORK",
    "Workers",
    "build_app",
    "limit_solver_threads",
    "start_heavy_process",
]

logger = logging.getLogger("ikchain.web")

#: Host names served unless told otherwise (``ikchain lesson --allowed-host``).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
#: The largest WebSocket message the server reads at all (bigger: the socket closes
#: with 1009); messages up to it but over ``max_body_bytes`` get an error reply. Every
#: unfinished message is held in memory, so this stays small (``ikchain/web/serve.py``
#: also bounds all of them together).
WS_MAX_BYTES = CONNECTION_LIMITS["ws_message_bytes"]

#: Sent with every HTTP answer. No inline script or style anywhere on the page.
SECURITY_HEADERS: dict[str, str] = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}


# -- The page --------------------------------------------------------------------------------


@functools.cache
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("ikchain.web", "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )


@functools.cache
def render_page(lang: str) -> str:
    """The whole page for ``lang``, rendered once per process."""
    return _environment().get_template("page.html").render(**page_context(lang))


def serve_plainly() -> None:
    """Solve with the kernels as plain Python while they compile, the page's costly
    pictures from :mod:`ikchain.lesson.precomputed`, and render the page in each
    language: what the server shows until :func:`render_afresh`."""
    interpret_while_compiling()
    precomputed.serving_ahead(True)
    for lang in LANGS:
        render_page(lang)


def render_afresh() -> None:
    """Once the compiled kernels are in use: render the page again, every picture
    solved now (a test holds it equal to the page :func:`serve_plainly` rendered)."""
    precomputed.serving_ahead(False)
    forget_rendered()
    render_page.cache_clear()
    for lang in LANGS:
        render_page(lang)


def format_lang_error(given: str) -> str:
    """The 400 page for an unknown ``?lang=``: both languages, the value escaped."""
    shown = html.escape(given[:40])
    choices = ", ".join(LANGS)
    return (
        '<!doctype html><html lang="en"><meta charset="utf-8"><title>400</title>'
        f"<p>lang: expected one of {choices}, got “{shown}”.</p>"
        f"<p>lang：应为 {choices} 之一，收到 “{shown}”。</p>"
        '<p><a href="/">中文</a> · <a href="/?lang=en">English</a></p></html>'
    )


async def page(request: Request) -> Response:
    given = request.query_params.get("lang", DEFAULT_LANG)
    lang = given.strip().lower()
    if lang not in LANGS:
        return HTMLResponse(format_lang_error(given), status_code=400)
    return HTMLResponse(await run_in_threadpool(render_page, lang))


# -- Where the work runs: ikchain.web.scheduler ----------------------------------------------


# -- Routes ----------------------------------------------------------------------------------


async def _limited_body(request: Request) -> bytes:
    """The request body, refusing (413) more than the cap without reading it all."""
    limit = CAPS["max_body_bytes"]
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise RequestError(f"request: expected at most {limit} bytes, got {declared}", 413)
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > limit:
            raise RequestError(f"request: expected at most {limit} bytes, got more", 413)
    return bytes(body)


def _json(reply: Reply, scope: Scope | None = None) -> Response:
    if reply.status >= 400 and scope is not None:
        _log_error(scope, reply)
    return Response(reply.text, status_code=reply.status, media_type="application/json")


def _what(scope: Scope) -> str:
    if scope["type"] == "websocket":
        return f"WebSocket {scope.get('path', '')[:80]!r}"
    return f"{scope.get('method', '')} {scope.get('path', '')[:80]!r}"


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "?"


def _log_error(scope: Scope, reply: Reply) -> None:
    """One access-log line per class (where, status) of error reply, rate-limited."""
    try:
        error = str(json.loads(reply.text).get("error", ""))
    except ValueError:
        error = ""
    ACCESS.note(
        f"{scope.get('path', '')[:40]} {reply.status}",
        f"{_what(scope)} from {_client(scope)}: {reply.status} {error[:160]}",
    )


async def _api(request: Request, route: str) -> Response:
    try:
        body = await _limited_body(request)
    except RequestError as error:
        return _json(error_reply(route, str(error), error.status), request.scope)
    except ClientDisconnect:
        return Response(status_code=400)  # nobody is left to read it
    workers: Workers = request.app.state.workers
    meter = _meter(request.scope)  # one flow per HTTP connection: its meter
    reply = await workers.respond(route, body, meter, meter)
    started = time.thread_time()
    try:
        return _json(reply, request.scope)
    finally:
        meter.add(time.thread_time() - started)


def _meter(scope: Scope) -> Meter:
    """The connection's :class:`Meter` (its protocol puts it in the scope; a fresh one
    where none did, as under the test client)."""
    meter = scope.get(METER_KEY)
    if not isinstance(meter, Meter):
        meter = scope[METER_KEY] = Meter()
    return meter


async def api_solve(request: Request) -> Response:
    return await _api(request, "solve")


async def api_frame(request: Request) -> Response:
    return await _api(request, "frame")


async def health(request: Request) -> Response:
    """Whether the server's start-up work is done (:class:`Readiness`)."""
    readiness: Readiness = request.app.state.readiness
    body = json.dumps({"ok": True, "ready": readiness.ready()})
    return Response(body, media_type="application/json", headers={"Cache-Control": "no-store"})


async def frames(websocket: WebSocket) -> None:
    """Each message answered as soon as it is ready, by its id (a drag frame need not
    wait for a replay sent before it); a bad message gets an error reply, no more. At
    most :data:`PENDING_PER_SOCKET` messages are in hand at once: the socket is not
    read further until one is answered."""
    await websocket.accept()
    workers: Workers = websocket.app.state.workers
    meter = _meter(websocket.scope)  # what the socket's protocol spends for it ...
    flow = meter  # ... is charged to its flow: the socket
    slots = asyncio.Semaphore(PENDING_PER_SOCKET)
    answering: set[asyncio.Task[None]] = set()

    async def send(reply: Reply) -> None:
        started = time.thread_time()
        if reply.status >= 400:
            _log_error(websocket.scope, reply)
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await websocket.send_text(reply.text)
        meter.add(time.thread_time() - started)

    async def answer(text: str | bytes, future: asyncio.Future[Reply]) -> None:
        try:
            try:
                reply = await future
            except asyncio.CancelledError:
                raise
            except Exception:  # a bug: keep the connection, log it, say so
                logger.exception("frame failed")
                message = "server: internal error (logged)"
                reply = error_reply("frame", message, 500, request_id(text))
            await send(reply)
        finally:
            slots.release()

    try:
        while True:
            await slots.acquire()
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                text = message.get("bytes") or b""
            future = workers.submit("frame", text, flow, meter)
            if future.done() and not future.cancelled() and future.exception() is None:
                try:  # answered at once (a light frame whose turn it was): no task
                    await send(future.result())
                finally:
                    slots.release()
                continue
            task = asyncio.create_task(answer(text, future))
            answering.add(task)
            task.add_done_callback(answering.discard)
    except WebSocketDisconnect:
        return
    finally:
        workers.forget(flow)
        for task in answering:
            task.cancel()


#: Every route of the server, in one place.
ROUTES = [
    Route("/", page, methods=["GET"]),
    Mount("/static", app=StaticFiles(packages=[("ikchain.web", "static")]), name="static"),
    WebSocketRoute("/ws", frames),
    Route("/api/frame", api_frame, methods=["POST"]),
    Route("/api/solve", api_solve, methods=["POST"]),
    Route("/api/health", health, methods=["GET"]),
]


# -- The guard -------------------------------------------------------------------------------


#: A Host header as a browser sends one: a DNS name (labels of letters, digits,
#: hyphens and underscores; one trailing dot at most), an IPv4 address or a bracketed
#: IPv6 address, and an optional port of at most five digits.
_LABEL = r"[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?"
_HOST_HEADER = re.compile(
    rf"(?:\[[0-9a-f:.]+\]|{_LABEL}(?:\.{_LABEL})*\.?)(?::(?P<port>[0-9]{{1,5}}))?",
    re.IGNORECASE,
)


def host_header_error(host: str) -> str | None:
    """Why ``host`` is no Host header a browser sends (``localhost:evil.com``,
    ``127.0.0.1:8000@evil.com``, ``localhost..``, ``127.0.0.1:99999``), or None."""
    match = _HOST_HEADER.fullmatch(host)
    port = match.group("port") if match else None
    if match is None or (port is not None and not 0 < int(port) <= 65_535):
        return f"host: expected a name or address and an optional port, got {host[:80]!r}"
    return None


def host_name(host: str) -> str:
    """The name part of a Host header or netloc: ``"[::1]:8000"`` → ``"::1"``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        host = host.split(":")[0]
    return host.rstrip(".")


class Guard:
    """ASGI middleware: Host names, same-origin browsers, JSON bodies, security headers."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str]) -> None:
        self.app = app
        self.allowed = frozenset(host_name(name) for name in allowed_hosts)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        headers: dict[str, str] = {}
        for key, value in scope["headers"]:
            name = key.decode("latin-1").lower()
            if name in headers and name in ("host", "origin"):
                status = 400 if name == "host" else 403
                return status, f"{name}: expected one {name.title()} header, got several"
            headers[name] = value.decode("latin-1")
        host = headers.get("host")
        if host is None:
            return 400, "host: expected a Host header, got none"
        malformed = host_header_error(host)
        if malformed is not None:
            return 400, malformed
        if "*" not in self.allowed and host_name(host) not in self.allowed:
            names = ", ".join(sorted(self.allowed))
            return 400, f"host: expected one of {names}, got {host[:80]!r}"
        origin = headers.get("origin")
        post = scope["type"] == "http" and scope.get("method") == "POST"
        if origin is not None and (scope["type"] == "websocket" or post):
            parts = urlsplit(origin)
            if parts.scheme not in ("http", "https") or parts.netloc.lower() != host.lower():
                return 403, f"origin: expected this page's own origin, got {origin[:80]!r}"
        if post:
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                return 415, f"content-type: expected application/json, got {kind or 'none'!r}"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is not None:
            status, message = refusal
            ACCESS.note(
                f"guard {status} {message.split(':')[0]}",
                f"refused {_what(scope)} from {_client(scope)}: {status} {message}",
            )
            response = Response(
                json.dumps({"ok": False, "error": message}),
                status_code=status,
                media_type="application/json",
                headers=SECURITY_HEADERS,
            )
            if scope["type"] == "http" or "websocket.http.response" in scope.get("extensions", {}):
                await response(scope, receive, send)
            else:
                await send({"type": "websocket.close", "code": 1008, "reason": message[:120]})
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + [
                    (name.encode(), value.encode()) for name, value in SECURITY_HEADERS.items()
                ]
            await send(message)

        await self.app(scope, receive, send_with_headers)


#: Also told how far the kernels' compile is (``ikchain lesson`` prints it).
compile_listeners: list[Callable[[int, int, str], None]] = []


def build_app(
    allowed_hosts: Iterable[str] = LOOPBACK_HOSTS,
    *,
    heavy_processes: int = HEAVY_PROCESSES,
    workers: Workers | None = None,
    serve_while_starting: bool = False,
) -> Starlette:
    """The lesson's Starlette application, serving only ``allowed_hosts`` (``"*"``: any),
    its work run by ``workers`` (default: ``Workers(heavy_processes)``).

    ``serve_while_starting``: the start-up work (compiling the kernels, the heavy
    process, the light cap's calibration) runs while the server listens, requests
    waiting for it, instead of before (``ikchain lesson`` with one process: a first
    run's compile then no longer keeps the server from saying where it serves).
    """
    workers = workers or Workers(heavy_processes)

    readiness = Readiness()

    def note(done: int, total: int, name: str) -> None:
        readiness.note(done, total, name)
        for listener in compile_listeners:
            listener(done, total, name)

    async def prepare() -> None:
        if serve_while_starting:  # a page that works at once, on plain Python meanwhile
            workers.warming_up()
            try:
                await run_in_threadpool(serve_plainly)
                readiness.usable.set()
            except precomputed.NotStoredError as missing:  # requests wait for the compile
                precomputed.serving_ahead(False)
                logging.getLogger("ikchain.lesson").warning(
                    "ikchain lesson: the page waits for the compiled solvers: %s", missing
                )
        # the first drag must not wait for numba; the notice page shows how far it got
        await run_in_threadpool(compile_kernels, note)  # then solves compiled
        if serve_while_starting:
            await run_in_threadpool(render_afresh)
            workers.warmed_up()
        workers.start()  # after the compile: the heavy process then loads the kernels
        await run_in_threadpool(workers.costs.calibrate)  # what a light solve costs here
        await workers.started()  # the heavy process too
        freeze_heap()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        readiness.begin(prepare())
        if not serve_while_starting:
            await readiness.wait()
            if readiness.failure is not None:
                raise readiness.failure
        try:
            yield
        finally:
            await readiness.cancel()
            workers.close()

    app = Starlette(routes=ROUTES, lifespan=lifespan)
    app.state.workers = workers
    app.state.readiness = readiness
    app.add_middleware(Ready, readiness=readiness)
    app.add_middleware(Guard, allowed_hosts=tuple(allowed_hosts))  # outermost: first
    return app


class Readiness:
    """Whether the server's start-up work (compiling the kernels, starting the heavy
    process, calibrating the light cap) is done; it runs while the server already
    listens, so that ``ikchain lesson`` says where it serves at once, even while numba
    compiles for the first time."""

    def __init__(self) -> None:
        self.done = asyncio.Event()
        #: Set when requests may be served: at :attr:`done`, or before it while the
        #: kernels compile, once the plain-Python ones serve (``serve_while_starting``).
        self.usable = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.failure: BaseException | None = None
        #: How far the kernels' compile (or load) is: (done, total, the kernel now).
        self.progress: tuple[int, int, str] | None = None

    def note(self, done: int, total: int, name: str) -> None:
        """``compile_kernels``'s progress (called from its thread; one assignment)."""
        self.progress = (done, total, name)

    def begin(self, work: Coroutine[Any, Any, None]) -> None:
        async def run() -> None:
            try:
                await work
            except Exception as error:  # every request then says so, with a 503
                self.failure = error
                logging.getLogger("ikchain.lesson").exception("start-up failed")
            finally:
                self.done.set()
                self.usable.set()

        self.task = asyncio.get_running_loop().create_task(run())

    def ready(self) -> bool:
        """Whether the start-up work is done (True too without a lifespan: none runs)."""
        return self.task is None or self.done.is_set()

    def starting(self) -> bool:
        """Whether requests must still wait for the start-up work (False too without
        a lifespan)."""
        return self.task is not None and not self.usable.is_set()

    async def wait(self) -> None:
        """Until requests may be served (:attr:`usable`)."""
        if self.task is not None:  # no lifespan (an app used without starting it): ready
            await self.usable.wait()

    async def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task


class Ready:
    """ASGI middleware: a request (beyond the static files) waits until the server's
    start-up work is done; if it failed, a 503 (or a WebSocket close) says so. The page
    itself, asked for meanwhile, is a short notice that reloads every two seconds."""

    #: The notice, in the page's languages: (title, text, the progress line).
    STARTING: ClassVar[dict[str, tuple[str, str, str]]] = {
        "zh": (
            "正在准备求解器",
            "第一次运行时要先编译求解器（以后直接从缓存读取）。本页每两秒自动刷新一次。",
            "已完成 {done} / {total} 个求解内核，正在处理：{name}",
        ),
        "en": (
            "Preparing the solvers",
            "On the first run the solvers are compiled first (later runs load them from a "
            "cache). This page reloads itself every two seconds.",
            "{done} of {total} solver kernels ready; now: {name}",
        ),
    }

    def __init__(self, app: ASGIApp, readiness: Readiness) -> None:
        self.app = app
        self.readiness = readiness

    def starting_page(self, scope: Scope) -> Response:
        lang = (
            "en" if "lang=en" in scope.get("query_string", b"").decode("latin-1").lower() else "zh"
        )
        title, text, line = self.STARTING[lang]
        progress = self.readiness.progress
        shown = ""
        if progress is not None and progress[0] < progress[1]:  # kernels still to come
            done, total, name = progress
            words = html.escape(line.format(done=done, total=total, name=name))
            shown = f'<p><progress max="{total}" value="{done}"></progress> {words}</p>'
        body = (
            f'<!doctype html><html lang="{"zh-CN" if lang == "zh" else "en"}"><head>'
            '<meta charset="utf-8"><meta http-equiv="refresh" content="2">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{title}</title></head><body><h1>{title}</h1><p>{text}</p>{shown}"
            "</body></html>"
        )
        return HTMLResponse(body, status_code=503, headers={"Retry-After": "2", **SECURITY_HEADERS})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not scope["path"].startswith("/static/"):
            if scope["type"] == "http" and scope["path"] == "/" and self.readiness.starting():
                # a browser opened at once: a page that says why, and reloads itself
                await self.starting_page(scope)(scope, receive, send)
                return
            await self.readiness.wait()
            failure = self.readiness.failure
            if failure is not None:
                message = f"server: expected the solvers to start, got {type(failure).__name__}"
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1011, "reason": message})
                    return
                response = Response(
                    json.dumps({"ok": False, "error": message}),
                    status_code=503,
                    media_type="application/json",
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def app_from_environment() -> Starlette:
    """``build_app`` configured by ``IKCHAIN_ALLOWED_HOSTS`` (comma-separated) and
    ``IKCHAIN_SERVE_WHILE_STARTING`` ("1": see ``build_app``): the factory each
    ``ikchain lesson`` process imports."""
    names = os.environ.get("IKCHAIN_ALLOWED_HOSTS", "")
    hosts = [name for name in names.split(",") if name] or list(LOOPBACK_HOSTS)
    early = os.environ.get("IKCHAIN_SERVE_WHILE_STARTING") == "1"
    return build_app(hosts, serve_while_starting=early)
