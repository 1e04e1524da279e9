"""The caps on one request to the lesson server: one table, read by the server (which
enforces it), the page (which bounds its inputs by it) and the README (tested equal).

A request over a cap is refused before any work, with a message naming the cap.
"""

from __future__ import annotations

#: Caps on one request, so that no request can stall the server.
CAPS: dict[str, int] = {
    "max_body_bytes": 65_536,  # request body or WebSocket message
    "max_bones": 32,
    "max_iterations": 5_000,
    "max_targets": 256,  # targets in one /api/solve batch
    "max_work": 400_000,  # bones × iterations × targets
}
