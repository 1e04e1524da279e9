"""The lesson server: routes only. Content comes from :mod:`ikchain.lesson.content`,
request handling from :mod:`ikchain.web.protocol`.

Routes (all in :data:`ROUTES`):

- ``GET /`` — the lesson page, Chinese; ``/?lang=en`` for English.
- ``GET /static/...`` — the page's script and style sheet, shipped in the package.
- ``WebSocket /ws`` — drag frames: one JSON request in, one JSON reply out.
- ``POST /api/frame`` — one drag frame over HTTP (the script's fallback).
- ``POST /api/solve`` — the same JSON as ``ikchain solve --json``.

A bad request gets a 4xx (or, on the WebSocket, an error reply) with a message; the
connection and the server go on serving.
"""

from __future__ import annotations

import functools
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ikchain.lesson.content import DEFAULT_LANG, LANGS, page_context
from ikchain.web.protocol import CAPS, RequestError, frame_reply, solve_reply


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


async def page(request: Request) -> Response:
    lang = request.query_params.get("lang", DEFAULT_LANG)
    if lang not in LANGS:
        return HTMLResponse(
            f"lang: expected one of {', '.join(LANGS)}, got {lang[:20]!r}", status_code=400
        )
    return HTMLResponse(await run_in_threadpool(render_page, lang))


async def _limited_body(request: Request) -> bytes:
    """The request body, refusing (413) more than the cap without reading it all."""
    limit = CAPS["max_body_bytes"]
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise RequestError(f"request: expected at most {limit} bytes, got {declared}")
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > limit:
            raise RequestError(f"request: expected at most {limit} bytes, got more")
    return bytes(body)


def _error(error: RequestError) -> JSONResponse:
    too_large = str(error).startswith("request: expected at most")
    return JSONResponse({"ok": False, "error": str(error)}, status_code=413 if too_large else 400)


async def api_solve(request: Request) -> Response:
    try:
        body = await _limited_body(request)
        return JSONResponse(await run_in_threadpool(solve_reply, body))
    except RequestError as error:
        return _error(error)


async def api_frame(request: Request) -> Response:
    try:
        body = await _limited_body(request)
    except RequestError as error:
        return _error(error)
    reply: dict[str, Any] = await run_in_threadpool(frame_reply, body)
    return JSONResponse(reply, status_code=200 if reply["ok"] else 400)


async def frames(websocket: WebSocket) -> None:
    """One reply per message, in order; a bad message gets an error reply, no more."""
    await websocket.accept()
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                text = message.get("bytes") or b""
            await websocket.send_json(await run_in_threadpool(frame_reply, text))
    except WebSocketDisconnect:
        return


#: Every route of the server, in one place.
ROUTES = [
    Route("/", page, methods=["GET"]),
    Mount("/static", app=StaticFiles(packages=[("ikchain.web", "static")]), name="static"),
    WebSocketRoute("/ws", frames),
    Route("/api/frame", api_frame, methods=["POST"]),
    Route("/api/solve", api_solve, methods=["POST"]),
]


def build_app() -> Starlette:
    """The lesson's Starlette application."""
    return Starlette(routes=ROUTES)
