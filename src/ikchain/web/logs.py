"""The server's access log: one INFO line per class of refused or
failed request (its status and what was refused), at most one line per class every
:data:`EVERY_SECONDS`, the rest counted into the next one, so abuse leaves a trace
but never a flood. Connection refusals are logged the same way by
:mod:`ikchain.web.serve`.
"""

from __future__ import annotations

import logging
import time
from collections import Counter

logger = logging.getLogger("ikchain.web")

#: A line of one class at most this often (s).
EVERY_SECONDS = 10.0


class AccessLog:
    """Lines by class: the first at once, then one per :data:`EVERY_SECONDS` with the
    number of the others since (said when the next line of that class is due)."""

    def __init__(self, every: float = EVERY_SECONDS) -> None:
        self.every = every
        self.last: dict[str, float] = {}
        self.held: Counter[str] = Counter()

    def note(self, kind: str, message: str) -> None:
        """Log ``message`` (at INFO) unless a line of ``kind`` went out within the period."""
        now = time.monotonic()
        if now - self.last.get(kind, -self.every) < self.every:
            self.held[kind] += 1
            return
        self.last[kind] = now
        held = self.held.pop(kind, 0)
        more = f" (and {held} more like it since the last)" if held else ""
        logger.info("ikchain lesson: %s%s", message, more)


#: The server process's access log.
ACCESS = AccessLog()


def log_to_stderr() -> None:
    """Show the server's INFO lines (the access log) on stderr, once per process."""
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
    if logger.level == logging.NOTSET or logger.level > logging.INFO:
        logger.setLevel(logging.INFO)
