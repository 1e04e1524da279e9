"""The lesson server in a background thread, for tests and benchmarks."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def running_server(app: Any = None, limits: Any = None) -> Iterator[str]:
    """The lesson app (``build_app()`` unless given) under uvicorn in a background
    thread on a free loopback port, with the server's protocols and connection limits
    (``limits``, a :class:`ikchain.web.serve.Limits`; the defaults unless given); yields
    its base URL.

    Uvicorn leaves logging alone here (``log_config=None``): its warnings and errors
    reach the root logger, where tests can watch for them.
    """
    import asyncio

    import uvicorn

    from ikchain.web.app import build_app
    from ikchain.web.serve import Limits, lesson_config, serve_socket

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = lesson_config(
        build_app() if app is None else app,
        limits or Limits(),
        log_config=None,
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=asyncio.run, args=(serve_socket(server, sock),), daemon=True)
    thread.start()
    deadline = time.monotonic() + 180  # start-up compiles the kernels (cold cache: slow)
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the lesson server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
