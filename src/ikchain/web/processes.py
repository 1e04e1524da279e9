"""Process lifetime: a helper process (a server worker, the heavy-request process)
ends with the process that started it. Its own module, imported by the server
(:mod:`ikchain.web.serve`) and the app (:mod:`ikchain.web.app`) alike."""

from __future__ import annotations

import contextlib
import os
import signal


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
