"""Running the lesson server: one uvicorn server per process, N processes on one port.

uvicorn's own ``workers`` share one listening socket, and Linux hands the connections
waiting on a shared socket to whichever process woke last: measured with 50 WebSocket
clients and two workers, one process served 95 % of the frames and the other idled
(``ikchain bench lesson --clients 50 --workers 2``). A page keeps its WebSocket for the
whole lesson, so that imbalance lasts. On Linux each process therefore gets a socket of
its own, bound to the same port with ``SO_REUSEPORT``; the kernel spreads new
connections over such a group by a hash of the client's address and port. The
protocol is stateless, so any process can serve any page. Elsewhere the processes
share one socket, as uvicorn does.

The first process is the one that runs :func:`serve`; the others are spawned, each
compiles (or loads) the kernels and says it is ready before the caller announces the
URL, and each ends with the first (its parent), also when that one is killed.
"""

from __future__ import annotations

import contextlib
import errno
import multiprocessing
import os
import signal
import socket
import sys
from collections.abc import Callable, Iterator
from typing import Any

#: Whether the kernel balances connections over a group of sockets on one port.
BALANCED = sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")
#: Connections a listening socket holds before the server accepts them.
BACKLOG = 2048
#: Seconds a spawned process may take to start (compiling every kernel with an empty
#: numba cache takes about two minutes on a busy 2-core machine).
START_SECONDS = 600.0


def listening_sockets(host: str, port: int, count: int) -> list[socket.socket]:
    """``count`` sockets listening on ``host:port`` (one shared socket where the
    kernel cannot balance, or for one process). ``port`` 0 picks a free port.

    Raises
    ------
    OSError
        When the address cannot be bound (``errno.EADDRINUSE`` for a busy port).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    balanced = BALANCED and count > 1
    if balanced:
        # SO_REUSEPORT would also let this group join another server's group on the
        # port: bind it alone first, so that a busy port is refused as usual.
        with _socket(family, host, port, reuse_port=False) as probe:
            port = probe.getsockname()[1]
    sockets: list[socket.socket] = []
    try:
        for _ in range(count if balanced else 1):
            sockets.append(_socket(family, host, port, reuse_port=balanced))
            port = sockets[0].getsockname()[1]
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def _socket(family: int, host: str, port: int, *, reuse_port: bool) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def serve(sockets: list[socket.socket], workers: int, ready: Callable[[], None]) -> None:
    """Serve the lesson on ``sockets`` (from :func:`listening_sockets`) with
    ``workers`` processes; ``ready()`` is called once every process can answer.

    Returns when the server stops (Ctrl+C, SIGTERM).
    """
    if len(sockets) == 1:
        ready()
        _run(sockets[0], workers)
        return
    with _spawned(sockets[1:]):
        ready()
        _run(sockets[0], 1)


def _run(sock: socket.socket, workers: int) -> None:
    import uvicorn

    from ikchain.web.app import WS_MAX_BYTES

    uvicorn.run(
        "ikchain.web.app:app_from_environment",  # each process builds its own app
        factory=True,
        fd=sock.fileno(),
        workers=workers,
        log_level="warning",
        ws_max_size=WS_MAX_BYTES,
        ws_per_message_deflate=False,
    )


@contextlib.contextmanager
def _spawned(sockets: list[socket.socket]) -> Iterator[None]:
    """One process per socket, started and ready; stopped on the way out."""
    context = multiprocessing.get_context("spawn")
    started: list[tuple[Any, Any]] = []
    try:
        for sock in sockets:
            is_ready = context.Event()
            process = context.Process(
                target=_worker, args=(sock, os.getpid(), is_ready), name="ikchain-lesson"
            )
            process.start()
            started.append((process, is_ready))
        for process, is_ready in started:
            waited = 0.0
            while not is_ready.wait(0.5):
                waited += 0.5
                if not process.is_alive() or waited > START_SECONDS:
                    raise OSError(errno.ECHILD, "a server process did not start")
        for sock in sockets:  # each is its process's now: if that one dies, so does its
            sock.close()  # socket, and the kernel sends new connections to the others
        yield
    finally:
        for process, _ in started:
            if process.is_alive():
                process.terminate()
        for process, _ in started:
            process.join(timeout=20)
            if process.is_alive():
                process.kill()


def _worker(sock: socket.socket, parent: int, is_ready: Any) -> None:
    """A spawned server process: ends with its parent, compiles, serves ``sock``."""
    end_with_parent(parent)
    from ikchain.solvers import compile_kernels

    compile_kernels()  # the first drag must not wait for numba
    is_ready.set()
    _run(sock, 1)


def end_with_parent(parent: int) -> None:
    """Ask Linux for SIGTERM when the parent (process id ``parent``) dies, even by
    SIGKILL; a no-op elsewhere. A server's helper processes call this first, so that
    none outlives its server."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        set_parent_death_signal = 1  # PR_SET_PDEATHSIG, <sys/prctl.h>
        ctypes.CDLL(None, use_errno=True).prctl(set_parent_death_signal, signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before the request took effect
        os.kill(os.getpid(), signal.SIGTERM)
