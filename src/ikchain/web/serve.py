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

Every process serves through :func:`serve_socket`: uvicorn's server on the socket
object itself (uvicorn's ``fd=`` would wrap it as a Unix socket, and asyncio would
leave TCP_NODELAY off, so every answer after the first on a keep-alive connection
waited ~44 ms for the client's delayed ACK), with the connection limits of
:class:`Limits` (``caps.CONNECTION_LIMITS``): caps on the connections per client
address and in all, header, body, send and idle timeouts, a budget for unfinished
WebSocket messages, and a bounded graceful shutdown. Refusals and timeouts are logged
one line at a time, at most one line per kind every ten seconds.

The first process is the one that runs :func:`serve`; the others are spawned, each
compiles (or loads) the kernels and says it is ready before the caller announces the
URL, and each ends with the first (its parent), also when that one is killed.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import errno
import json
import logging
import multiprocessing
import os
import socket
import sys
import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState

from ikchain.caps import CONNECTION_LIMITS
from ikchain.web.logs import log_to_stderr
from ikchain.web.processes import end_with_parent
from ikchain.web.scheduler import METER_KEY, Meter

#: Whether the kernel balances connections over a group of sockets on one port.
BALANCED = sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")
#: Connections a listening socket holds before the server accepts them.
BACKLOG = 2048
#: Seconds a spawned process may take to start (compiling every kernel with an empty
#: numba cache takes about two minutes on a busy 2-core machine).
START_SECONDS = 600.0

logger = logging.getLogger("ikchain.web")


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


def _socket(
    family: int, host: str, port: int, *, reuse_port: bool, listen: bool = True
) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        if listen:  # else the server that serves it listens (asyncio's create_server)
            sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def serve(
    sockets: list[socket.socket],
    workers: int,
    ready: Callable[[], None],
    limits: Limits | None = None,
) -> None:
    """Serve the lesson on ``sockets`` (from :func:`listening_sockets`) with
    ``workers`` processes, each held to ``limits`` (default: :class:`Limits`());
    ``ready()`` is called once every process can answer.

    Returns when the server stops (Ctrl+C, SIGTERM).
    """
    limits = limits or Limits()
    if workers == 1:
        ready()
        _run(sockets[0], limits)
        return
    # One socket each where the kernel balances; else every process shares the one.
    others = sockets[1:] if len(sockets) > 1 else [sockets[0]] * (workers - 1)
    with _spawned(others, limits, close=len(sockets) > 1):
        ready()
        _run(sockets[0], limits)


def _run(sock: socket.socket, limits: Limits) -> None:
    log_to_stderr()  # the access log and the refusals, rate-limited
    config = lesson_config(
        "ikchain.web.app:app_from_environment",  # each process builds its own app
        limits,
        factory=True,
        log_level="warning",
    )
    asyncio.run(serve_socket(uvicorn.Server(config), sock))


#: A server process that dies is started again after at least this long (s) since
#: its start, so that one failing at start-up does not spin.
RESTART_AFTER_SECONDS = 5.0


@dataclasses.dataclass
class _Slot:
    """One spawned server process and the socket it serves."""

    socket: socket.socket | None  # the parent's copy, until the process is ready
    process: Any
    ready: Any
    started: float


@contextlib.contextmanager
def _spawned(sockets: list[socket.socket], limits: Limits, *, close: bool) -> Iterator[None]:
    """One process per socket, started and ready; stopped on the way out. With
    ``close``, the sockets are the processes' alone once they are ready. A process
    that dies is replaced (one log line): on a socket of its own bound to the same
    port, which listens only once the new process serves, so no connection waits on
    it while that one starts."""
    context = multiprocessing.get_context("spawn")
    address = sockets[0].getsockname()[:2]
    family = sockets[0].family
    shared = sockets[0]

    def start(sock: socket.socket) -> _Slot:
        is_ready = context.Event()
        process = context.Process(
            target=_worker, args=(sock, os.getpid(), is_ready, limits), name="ikchain-lesson"
        )
        process.start()
        return _Slot(sock, process, is_ready, time.monotonic())

    def restart(slot: _Slot) -> _Slot:
        if not close:
            return start(shared)
        return start(_socket(family, address[0], address[1], reuse_port=True, listen=False))

    slots: list[_Slot] = []
    stop = threading.Event()
    watcher = threading.Thread(target=_watch, args=(slots, stop, restart, close), daemon=True)
    try:
        for sock in sockets:
            slots.append(start(sock))
        for slot in slots:
            waited = 0.0
            while not slot.ready.wait(0.5):
                waited += 0.5
                if not slot.process.is_alive() or waited > START_SECONDS:
                    raise OSError(errno.ECHILD, "a server process did not start")
        if close:  # each is its process's now: if that one dies, so does its socket,
            for slot in slots:  # and the kernel sends new connections to the others
                _close_copy(slot)
        watcher.start()
        yield
    finally:
        stop.set()
        if watcher.is_alive():
            watcher.join(timeout=5)
        for slot in slots:
            if slot.process.is_alive():
                slot.process.terminate()
        for slot in slots:
            slot.process.join(timeout=20)
            if slot.process.is_alive():
                slot.process.kill()
            if close:
                _close_copy(slot)


def _close_copy(slot: _Slot) -> None:
    if slot.socket is not None:
        slot.socket.close()
        slot.socket = None


def _watch(
    slots: list[_Slot],
    stop: threading.Event,
    restart: Callable[[_Slot], _Slot],
    close: bool,
) -> None:
    """Every half second: replace a server process that died (one log line each), and
    let go of a new one's socket once it serves."""
    while not stop.wait(0.5):
        for index, slot in enumerate(slots):
            if close and slot.socket is not None and slot.ready.is_set():
                _close_copy(slot)
            if slot.process.is_alive() or stop.is_set():
                continue
            if time.monotonic() - slot.started < RESTART_AFTER_SECONDS:
                continue  # it died young: wait before trying again
            logger.error(
                "ikchain lesson: a server process (pid %s) ended with exit code %s; "
                "starting a new one",
                slot.process.pid,
                slot.process.exitcode,
            )
            if close:
                _close_copy(slot)
            try:
                slots[index] = restart(slot)
            except OSError as error:
                logger.error("ikchain lesson: could not start a server process: %s", error)
                slot.started = time.monotonic()


def _worker(sock: socket.socket, parent: int, is_ready: Any, limits: Limits) -> None:
    """A spawned server process: ends with its parent, compiles, serves ``sock``."""
    end_with_parent(parent)
    from ikchain.solvers import compile_kernels

    compile_kernels()  # the first drag must not wait for numba
    is_ready.set()
    _run(sock, limits)


# -- Connection limits -----------------------------------------------------------------------


#: A connection on which nothing happened for this long (no request or message, no
#: answer under way) counts as *idle*: when a cap is reached, the connection idle
#: longest (of the same address, for the per-address cap) is closed to make room for
#: the newcomer, so that no client holding idle connections locks the others out. A
#: page's connection sends its first request within milliseconds; the second of grace
#: keeps a flood of new connections from closing each other before they speak.
IDLE_AFTER_SECONDS = 1.0


@dataclasses.dataclass(frozen=True)
class Limits:
    """What one server process lets its connections hold; the defaults are
    ``caps.CONNECTION_LIMITS`` (tests pass shorter ones)."""

    client_connections: int = CONNECTION_LIMITS["client_connections"]
    connections: int = CONNECTION_LIMITS["connections"]
    header_seconds: float = CONNECTION_LIMITS["header_seconds"]
    body_seconds: float = CONNECTION_LIMITS["body_seconds"]
    keep_alive_seconds: int = CONNECTION_LIMITS["keep_alive_seconds"]
    send_seconds: float = CONNECTION_LIMITS["send_seconds"]
    ws_idle_seconds: float = CONNECTION_LIMITS["ws_idle_seconds"]
    ws_message_seconds: float = CONNECTION_LIMITS["ws_message_seconds"]
    ws_message_bytes: int = CONNECTION_LIMITS["ws_message_bytes"]
    ws_buffer_bytes: int = CONNECTION_LIMITS["ws_buffer_bytes"]
    shutdown_seconds: int = CONNECTION_LIMITS["shutdown_seconds"]
    new_connections_per_second: float = CONNECTION_LIMITS["new_connections_per_second"]
    idle_after_seconds: float = IDLE_AFTER_SECONDS


#: A refused connection gets a 503 and is read (and dropped) for this long before it
#: closes, so that the client sees the 503 rather than a reset; at most
#: ``REFUSED_LINGERING`` linger at once (the others close at once).
REFUSED_LINGER_SECONDS = 1.0
REFUSED_LINGERING = 64
#: File descriptors kept free for everything but connections (pipes to the heavy
#: process, static files, numba's cache, the lingering refusals).
SPARE_FDS = 128 + REFUSED_LINGERING
#: A log line of one kind at most this often; the rest are counted into the next one.
LOG_EVERY_SECONDS = 10.0


class LessonConfig(uvicorn.Config):
    """uvicorn's Config with the :class:`Limits` its protocols read."""

    def __init__(self, app: Any, limits: Limits, **kwargs: Any) -> None:
        self.limits = limits
        super().__init__(app, **kwargs)


def lesson_config(app: Any, limits: Limits, **kwargs: Any) -> LessonConfig:
    """uvicorn's configuration for the lesson: its protocols, limits and timeouts."""
    return LessonConfig(
        app,
        limits,
        http=LessonHTTP,
        ws=LessonWebSocket,
        ws_max_size=limits.ws_message_bytes,
        ws_per_message_deflate=False,
        timeout_keep_alive=limits.keep_alive_seconds,
        timeout_graceful_shutdown=limits.shutdown_seconds,
        backlog=BACKLOG,  # asyncio listens again with it, and accepts as many a turn
        **kwargs,
    )


async def serve_socket(server: uvicorn.Server, sock: socket.socket) -> None:
    """Run ``server`` on the listening ``sock`` (the object, so asyncio sets
    TCP_NODELAY on what it accepts), its loop's error log throttled."""
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(_ThrottledErrors())
    uvicorn_log = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _ThrottledRecords) for f in uvicorn_log.filters):
        uvicorn_log.addFilter(_ThrottledRecords())
    _book(server.server_state, server.config)  # now, while the open files are few
    await server.serve(sockets=[sock])


class Throttled:
    """A log line now, then at most one per ``LOG_EVERY_SECONDS`` counting the rest."""

    def __init__(self, level: int) -> None:
        self.level = level
        self.quiet_until = 0.0
        self.held = 0
        self.latest = ""

    def __call__(self, message: str) -> None:
        now = time.monotonic()
        if now >= self.quiet_until:
            logger.log(self.level, "%s", message)
            self.quiet_until = now + LOG_EVERY_SECONDS
            return
        if self.held == 0:
            asyncio.get_running_loop().call_later(self.quiet_until - now, self.flush)
        self.held += 1
        self.latest = message

    def flush(self) -> None:
        if self.held:
            logger.log(self.level, "%s (and %d more like it)", self.latest, self.held - 1)
            self.held = 0
            self.quiet_until = time.monotonic() + LOG_EVERY_SECONDS


class _ThrottledErrors:
    """The loop's exception handler: each kind of message (asyncio's "socket.accept()
    out of system resource" when file descriptors run out, say) at most once per
    ``LOG_EVERY_SECONDS``, with its traceback, not thousands of times a second."""

    def __init__(self) -> None:
        self.last: dict[str, float] = {}
        self.held: Counter[str] = Counter()

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        kind = str(context.get("message", ""))
        now = time.monotonic()
        if now - self.last.get(kind, -LOG_EVERY_SECONDS) < LOG_EVERY_SECONDS:
            self.held[kind] += 1
            return
        self.last[kind] = now
        held = self.held.pop(kind, 0)
        if held:
            context = {**context, "message": f"{kind} (and {held} more since the last)"}
        loop.default_exception_handler(context)


class _ThrottledRecords(logging.Filter):
    """A log filter: each message (by its format string) at most once per
    ``LOG_EVERY_SECONDS``, with the count of those dropped since."""

    def __init__(self) -> None:
        super().__init__()
        self.last: dict[str, float] = {}
        self.held: Counter[str] = Counter()

    #: uvicorn's lines that the lesson's own replace (:meth:`LessonHTTP.send_400_response`
    #: logs the client and the reason instead).
    REPLACED = frozenset({"Invalid HTTP request received."})

    def filter(self, record: logging.LogRecord) -> bool:
        kind = str(record.msg)
        if kind in self.REPLACED:
            return False
        now = time.monotonic()
        if now - self.last.get(kind, -LOG_EVERY_SECONDS) < LOG_EVERY_SECONDS:
            self.held[kind] += 1
            return False
        self.last[kind] = now
        held = self.held.pop(kind, 0)
        if held:
            record.msg = f"{record.msg} (and {held} more since the last)"
        return True


def connection_room(wanted: int) -> int:
    """How many connections the file-descriptor limit leaves room for, at most
    ``wanted``; raises the soft limit toward the hard one when that is short."""
    try:
        import resource
    except ImportError:  # not Unix: no such limit to fit
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = wanted + SPARE_FDS + _open_fds()
    if soft != resource.RLIM_INFINITY and soft < needed:
        raised = needed if hard == resource.RLIM_INFINITY else min(hard, needed)
        with contextlib.suppress(OSError, ValueError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft - SPARE_FDS - _open_fds()))


def _open_fds() -> int:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return 64


def set_nodelay(transport: asyncio.BaseTransport) -> None:
    """TCP_NODELAY on ``transport``'s socket (a no-op for non-TCP sockets)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _client(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) and peer else "?"


class Newcomers:
    """New connections, read from in turn when they come faster than ``rate`` a second.

    Opening a connection costs the server its handshake (the HTTP request parsed, a
    WebSocket upgraded, the app's guard run) before any request is charged to it. A
    client that opens connection after connection (each breaking the protocol and
    closed) would take the event loop from the pages already served, on whose turns
    their frames wait. Beyond a burst of ``rate / 4``, a new connection is not read until
    its turn comes, first come first served, ``rate`` a second: it waits (within the
    header timeout), nobody is refused, and the handshakes take a bounded share of
    the loop. A page opens one connection, so only its first frame can wait, and
    only behind the connections opened just before it.
    """

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.burst = max(1.0, rate / 4.0)
        self.tokens = self.burst
        self.at = time.monotonic()
        self.queue: collections.deque[asyncio.Transport] = collections.deque()
        self.timer: asyncio.TimerHandle | None = None

    def _refill(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now

    def enter(self, transport: asyncio.Transport) -> None:
        """Read from ``transport`` now, or pause it until its turn."""
        self._refill()
        if not self.queue and self.tokens >= 1.0:
            self.tokens -= 1.0
            return
        transport.pause_reading()
        self.queue.append(transport)
        self._schedule()

    def _schedule(self) -> None:
        if self.timer is None and self.queue:
            wait = max(0.0, (1.0 - self.tokens) / self.rate)
            self.timer = asyncio.get_running_loop().call_later(wait, self._admit)

    def _admit(self) -> None:
        self.timer = None
        self._refill()
        while self.queue and self.tokens >= 1.0:
            transport = self.queue.popleft()
            if transport.is_closing():
                continue  # gone meanwhile (closed, timed out): no turn used
            self.tokens -= 1.0
            transport.resume_reading()
        self._schedule()


class Book:
    """The connections one server holds: by client address, in all, and the bytes of
    unfinished WebSocket messages."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.cap = connection_room(limits.connections)
        if self.cap < limits.connections:
            logger.warning(
                "ikchain lesson: the file-descriptor limit (ulimit -n) leaves room for "
                "%d connections, not %d; raise it for a larger class",
                self.cap,
                limits.connections,
            )
        self.held: dict[asyncio.BaseTransport, str] = {}
        self.clients: Counter[str] = Counter()
        self.lingering = 0
        self.websockets: set[LessonWebSocket] = set()
        self.ws_buffered = 0
        self.newcomers = Newcomers(limits.new_connections_per_second)
        self.refused = Throttled(logging.WARNING)
        self.closed = Throttled(logging.INFO)
        self.malformed = Throttled(logging.WARNING)

    def admit(self, transport: asyncio.BaseTransport) -> str | None:
        """Count ``transport`` in, or say (as an error message) why not. At a cap, the
        connection idle longest (:meth:`make_room`) is closed to let it in; only when
        none is idle is it refused."""
        client = _client(transport)
        if self.clients[client] >= self.limits.client_connections and not self.make_room(
            client, f"at most {self.limits.client_connections} from one address"
        ):
            return (
                f"server: {self.clients[client]} connections open from {client}, none idle; "
                f"expected at most {self.limits.client_connections} from one address"
            )
        if len(self.held) >= self.cap and not self.make_room(None, f"at most {self.cap} in all"):
            return (
                f"server: {len(self.held)} connections open, none idle; expected at most {self.cap}"
            )
        self.held[transport] = client
        self.clients[client] += 1
        return None

    def make_room(self, client: str | None, cap: str) -> bool:
        """Close the connection (of ``client``; None: of anyone) idle longest, if one has
        been idle for at least ``limits.idle_after_seconds``; whether one was."""
        now = time.monotonic()
        latest = now - self.limits.idle_after_seconds
        chosen: asyncio.BaseTransport | None = None
        since = latest
        for transport, owner in self.held.items():
            if client is not None and owner != client:
                continue
            moment = _idle_since(transport)
            if moment is not None and moment <= since:
                chosen, since = transport, moment
        if chosen is None:
            return False
        protocol = chosen.get_protocol()
        self.release(chosen)
        self.closed(
            f"ikchain lesson: closed a connection from {_client(chosen)} idle for "
            f"{now - since:.0f} s to serve a new one ({cap})"
        )
        if isinstance(protocol, LessonWebSocket):
            protocol.fail(1013, "server: full; closed this idle connection to serve another")
        else:
            chosen.close()
        return True

    def release(self, transport: asyncio.BaseTransport) -> None:
        client = self.held.pop(transport, None)
        if client is not None:
            self.clients[client] -= 1
            if self.clients[client] <= 0:
                del self.clients[client]

    def refuse(self, transport: asyncio.BaseTransport, reason: str) -> None:
        """Answer 503 with ``reason`` and close, without reading a request."""
        self.refused(f"ikchain lesson: refused a connection: {reason}")
        body = json.dumps({"ok": False, "error": reason}).encode()
        transport.write(  # type: ignore[attr-defined]
            b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
            b"retry-after: 5\r\nconnection: close\r\n"
            + b"content-length: %d\r\n\r\n" % len(body)
            + body
        )
        if self.lingering >= REFUSED_LINGERING:
            transport.close()
            return
        self.lingering += 1
        with contextlib.suppress(OSError, NotImplementedError, AttributeError):
            transport.write_eof()  # type: ignore[attr-defined]
        asyncio.get_running_loop().call_later(REFUSED_LINGER_SECONDS, transport.close)

    def over_budget(self) -> None:
        """Close the WebSockets holding the most unfinished data until the rest fit."""
        while self.ws_buffered > self.limits.ws_buffer_bytes and self.websockets:
            biggest = max(self.websockets, key=lambda ws: ws.buffered)
            if biggest.buffered == 0:
                return
            self.refused(
                f"ikchain lesson: closed a WebSocket from {_client(biggest.transport)} holding "
                f"{biggest.buffered} bytes of an unfinished message: all together held "
                f"{self.ws_buffered}, expected at most {self.limits.ws_buffer_bytes}"
            )
            biggest.fail(1009, "server: too much unfinished data; expected smaller messages")


_BOOKS: weakref.WeakKeyDictionary[ServerState, Book] = weakref.WeakKeyDictionary()


def _book(server_state: ServerState, config: Any) -> Book:
    book = _BOOKS.get(server_state)
    if book is None:
        book = _BOOKS[server_state] = Book(getattr(config, "limits", None) or Limits())
    return book


#: What a request that cannot be parsed as HTTP/1.1 is told (with a 400).
MALFORMED_REQUEST = (
    "request: expected an HTTP/1.1 request line and headers in ASCII (a percent-encoded "
    "path and query), got bytes that do not parse"
)


def _error_answer(status: int, phrase: str, message: str) -> bytes:
    body = json.dumps({"ok": False, "error": message}).encode()
    return (
        b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\n" % (status, phrase.encode())
        + b"connection: close\r\n"
        + b"content-length: %d\r\n\r\n" % len(body)
        + body
    )


def _idle_since(transport: asyncio.BaseTransport) -> float | None:
    """Since when (``time.monotonic``) the connection on ``transport`` has been idle:
    nothing asked or answered since; None while it is being answered or closing."""
    if transport.is_closing():
        return None
    protocol = transport.get_protocol()
    if isinstance(protocol, LessonHTTP | LessonWebSocket):
        return protocol.idle_since()
    return None


def _timeout_answer(message: str) -> bytes:
    return _error_answer(408, "Request Timeout", message)


class LessonHTTP(H11Protocol):
    """uvicorn's h11 protocol with the connection caps, TCP_NODELAY, and header, body
    and send timeouts."""

    def __init__(self, config: Any, server_state: ServerState, *args: Any, **kwargs: Any):
        super().__init__(config, server_state, *args, **kwargs)
        self.book = _book(server_state, config)
        self.refused = False
        self.deadline: asyncio.TimerHandle | None = None
        self.waiting_for = ""  # "the headers" or "the body" while a deadline runs
        self.send_deadline: asyncio.TimerHandle | None = None
        self.meter = Meter()  # what this connection costs beyond its requests' jobs

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        set_nodelay(transport)
        refusal = self.book.admit(transport)
        if refusal is not None:
            self.refused = True
            self.book.refuse(transport, refusal)
            return
        self.active = time.monotonic()
        super().connection_made(transport)
        self._wait_for("the headers", self.book.limits.header_seconds)
        self.book.newcomers.enter(transport)

    def idle_since(self) -> float | None:
        """When the last answer ended (or the connection opened); None while a request
        whose headers have arrived is being answered (a body still arriving is idle)."""
        cycle = self.cycle
        answering = cycle is not None and not cycle.response_complete
        if answering and self.conn.their_state is not h11.SEND_BODY:
            return None
        return self.active

    def data_received(self, data: bytes) -> None:
        if self.refused:
            return  # read and dropped until the linger ends
        started = time.thread_time()
        try:
            super().data_received(data)
        except Exception as error:  # bytes a parser let through and the server choked on
            self._malformed(f"{type(error).__name__} while reading it")
            return
        finally:
            self.meter.add(time.thread_time() - started)
        scope: dict[str, Any] | None = self.scope  # type: ignore[assignment]
        if scope is not None:  # the request parsed here, its task not yet started
            scope[METER_KEY] = self.meter
        self._check()

    def send_400_response(self, msg: str) -> None:
        """A request h11 cannot parse (bytes beyond ASCII in its request line, say):
        a JSON 400, and one log line naming the client, not uvicorn's warning."""
        self._malformed("its request line or headers do not parse as HTTP/1.1")

    def _malformed(self, why: str) -> None:
        client = _client(self.transport)
        self.book.malformed(f"ikchain lesson: refused a malformed request from {client}: {why}")
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is None or not cycle.response_started or cycle.response_complete:
            self.transport.write(_error_answer(400, "Bad Request", MALFORMED_REQUEST))
        self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.refused:
            self.book.lingering = max(0, self.book.lingering - 1)
            return
        self._disarm()
        self._stop_send_deadline()
        self.book.release(self.transport)
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        self.active = time.monotonic()
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._wait_for("the headers", self.book.limits.header_seconds)  # the next request
        else:
            self._check()

    def shutdown(self) -> None:
        # A request still arriving will not be answered: close it now, not at the bound.
        cycle = self.cycle
        if (
            cycle is not None
            and not cycle.response_started
            and self.conn.their_state is h11.SEND_BODY
        ):
            self.transport.close()
            return
        super().shutdown()

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.send_deadline is None:
            self.send_deadline = self.loop.call_later(
                self.book.limits.send_seconds, self._send_expired
            )

    def resume_writing(self) -> None:
        super().resume_writing()
        self._stop_send_deadline()

    def _stop_send_deadline(self) -> None:
        if self.send_deadline is not None:
            self.send_deadline.cancel()
            self.send_deadline = None

    def _send_expired(self) -> None:
        self.send_deadline = None
        if self.transport.get_protocol() is self and not self.transport.is_closing():
            self.book.closed(
                f"ikchain lesson: closed a connection from {_client(self.transport)}:"
                " it read no answer"
            )
            self.transport.abort()

    def _check(self) -> None:
        """Move the deadline along with the request: headers, then body, then none."""
        if self.transport.get_protocol() is not self or self.transport.is_closing():
            self._disarm()  # upgraded to a WebSocket, or closing
            return
        state = self.conn.their_state
        if state is h11.IDLE:
            return  # still waiting for the headers, under their deadline
        if state is h11.SEND_BODY:
            if self.waiting_for != "the body":
                self._wait_for("the body", self.book.limits.body_seconds)
            return
        self._disarm()

    def _wait_for(self, what: str, seconds: float) -> None:
        self._disarm()
        self.waiting_for = what
        self.deadline = self.loop.call_later(seconds, self._expired, what, seconds)

    def _disarm(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None
        self.waiting_for = ""

    def _expired(self, what: str, seconds: float) -> None:
        self.deadline = None
        self.waiting_for = ""
        if self.transport.get_protocol() is not self or self.transport.is_closing():
            return
        cycle = self.cycle
        answering = what == "the body" and cycle is not None and cycle.response_started
        if not answering:
            message = f"request: expected {what} within {seconds:g} s; closing"
            self.transport.write(_timeout_answer(message))
        self.book.closed(
            f"ikchain lesson: closed a connection from {_client(self.transport)}: "
            f"{what} not complete within {seconds:g} s"
        )
        self.transport.close()


class LessonWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol with an idle timeout, a time limit on each
    message, and every unfinished message counted against the server's budget."""

    def __init__(self, config: Any, server_state: ServerState, *args: Any, **kwargs: Any):
        super().__init__(config, server_state, *args, **kwargs)
        self.book = _book(server_state, config)
        self.buffered = 0  # bytes of the message under way (parsed or not)
        self.message_deadline: asyncio.TimerHandle | None = None
        self.idle_deadline: asyncio.TimerHandle | None = None
        self.send_deadline: asyncio.TimerHandle | None = None
        self.failed = False
        self.active = time.monotonic()  # the last message in or reply out
        self.in_hand = 0  # messages received and not yet answered
        self.meter = Meter()  # what this socket costs beyond its messages' jobs

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.book.websockets.add(self)
        self._restart_idle()

    def data_received(self, data: bytes) -> None:
        started = time.thread_time()
        super().data_received(data)
        self._count()
        self.meter.add(time.thread_time() - started)

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope: dict[str, Any] = self.scope  # type: ignore[assignment]
        scope[METER_KEY] = self.meter

    def idle_since(self) -> float | None:
        """When the last message came in or the last reply went out (or the socket
        opened); None while a message is in hand."""
        return None if self.in_hand else self.active

    async def send(self, message: Any) -> None:
        if message["type"] == "websocket.send":
            self.in_hand = max(0, self.in_hand - 1)
            self.active = time.monotonic()
        await super().send(message)

    def send_receive_event_to_app(self) -> None:
        self.in_hand += 1
        self.active = time.monotonic()
        super().send_receive_event_to_app()
        self._restart_idle()

    def connection_lost(self, exc: Exception | None) -> None:
        self._forget()
        self.book.websockets.discard(self)
        self.book.release(self.transport)
        for handle in (self.idle_deadline, self.send_deadline):
            if handle is not None:
                handle.cancel()
        self.idle_deadline = self.send_deadline = None
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.send_deadline is None:
            self.send_deadline = self.loop.call_later(
                self.book.limits.send_seconds, self._expired, 1008, "the client read no reply"
            )

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.send_deadline is not None:
            self.send_deadline.cancel()
            self.send_deadline = None

    def fail(self, code: int, reason: str) -> None:
        """Close from this side with ``code``, forgetting what the message held."""
        self._forget()
        self.failed = True
        if self.transport.is_closing():
            return
        with contextlib.suppress(Exception):
            self.conn.fail(code, reason)
            self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.transport.close()

    def _count(self) -> None:
        """The bytes of the message under way: parsed fragments and unparsed input."""
        if self.failed:
            return
        reader = getattr(self.conn, "reader", None)
        held = len(getattr(reader, "buffer", b"")) + sum(len(frame) for frame in self.frames)
        self.book.ws_buffered += held - self.buffered
        self.buffered = held
        if held and self.message_deadline is None:
            limit = self.book.limits.ws_message_seconds
            self.message_deadline = self.loop.call_later(
                limit, self._expired, 1008, f"message not complete within {limit:g} s"
            )
        elif not held and self.message_deadline is not None:
            self.message_deadline.cancel()
            self.message_deadline = None
        if self.book.ws_buffered > self.book.limits.ws_buffer_bytes:
            self.book.over_budget()

    def _forget(self) -> None:
        self.book.ws_buffered -= self.buffered
        self.buffered = 0
        self.frames = []
        if self.message_deadline is not None:
            self.message_deadline.cancel()
            self.message_deadline = None

    def _restart_idle(self) -> None:
        if self.idle_deadline is not None:
            self.idle_deadline.cancel()
        limit = self.book.limits.ws_idle_seconds
        self.idle_deadline = self.loop.call_later(
            limit, self._expired, 1001, f"no message for {limit:g} s"
        )

    def _expired(self, code: int, reason: str) -> None:
        if self.transport.is_closing():
            return
        self.book.closed(
            f"ikchain lesson: closed a WebSocket from {_client(self.transport)}: {reason}"
        )
        self.fail(code, reason)
