"""The caps on one request to the lesson server: one table, read by the server (which
enforces it), the page (which bounds its inputs by it) and the docs' lesson-server
guide, docs/guide/server.rst (tested equal).

A request over a cap is refused before any work, with a message naming the cap. Work
is counted over the broadcast batch: solves (targets × start poses) × bones ×
iterations (the budget asked for; 1 for the closed form). The work caps come from a
time budget: a request at the caps must finish in at most ``BUDGET_MS`` on the
machine the changelog names, measured by ``ikchain bench caps`` (through the server's
request path, on one solver thread as the server's heavy-request process runs). A
batch pays per solve for its result and its reply, so a unit of batch work costs
more than a unit of one solve: hence two work caps.
"""

from __future__ import annotations

#: The time a request at the caps may take (ms), measured by ``ikchain bench caps``.
BUDGET_MS = 50.0

#: Caps on one request, so that no request can stall the server.
CAPS: dict[str, int] = {
    "max_body_bytes": 65_536,  # request body or WebSocket message
    "max_reply_bytes": 262_144,  # reply, bounded before any work is done
    "max_bones": 32,
    "max_iterations": 5_000,
    "max_targets": 256,  # solves in one /api/solve batch: targets × start poses
    "max_work": 160_000,  # one solve: bones × iterations (= max_bones × max_iterations)
    "max_batch_work": 100_000,  # a batch: solves × bones × iterations
}

#: Start angles beyond ±MAX_ANGLE rad are refused: their sums overflow, and their
#: cosines carry no meaning.
MAX_ANGLE = 1e6

#: Limits on the connections one lesson-server process holds, so that no client can
#: hold its connections, memory or file descriptors (``ikchain/web/serve.py`` enforces
#: them; docs/guide/server.rst states them). Sized for a classroom: 50 pages
#: behind one NAT address, each with up to 2 WebSockets and a browser's 6 HTTP
#: connections while it loads, hold at most 400 connections from one address.
CONNECTION_LIMITS: dict[str, int] = {
    "client_connections": 512,  # open at once from one client address (then 503)
    "connections": 1_024,  # open at once in all (then 503; fewer when `ulimit -n` is low)
    "header_seconds": 10,  # connect (or the previous answer) to the request's blank line
    "body_seconds": 10,  # end of the headers to the body's last byte
    "keep_alive_seconds": 5,  # an HTTP connection idle between requests
    "send_seconds": 10,  # an answer waiting for a client that does not read
    "ws_idle_seconds": 300,  # a WebSocket over which the client sends no message
    "ws_message_seconds": 10,  # a WebSocket message's first byte to its last
    "ws_message_bytes": 131_072,  # the largest WebSocket message read at all (then 1009)
    "ws_buffer_bytes": 16_777_216,  # unfinished WebSocket messages, all sockets together
    "shutdown_seconds": 3,  # SIGTERM or Ctrl+C: the answers under way get this long
    "new_connections_per_second": 200,  # read from at once; beyond it, in turn (a queue)
}
