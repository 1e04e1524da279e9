"""A batch over the cores: threads, each running a kernel on a range of the targets.

Every kernel takes ``begin, end`` as its last two arguments and releases the GIL
(``compiled.kernel``), so Python threads run them side by side. This replaces numba's
``parallel=True``, whose compile took seconds per kernel, with one compiled kernel
per method for a single target and a batch alike.

The batch is cut into at most :data:`CHUNKS` ranges, which
the threads take in turn, so that a thread whose targets converge fast takes more of
them (iterative solves differ a lot in their iteration counts).
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

#: A batch is cut into at most this many ranges, which the threads take in turn.
CHUNKS = 256
#: Batches smaller than this run on the calling thread alone (handing work to other
#: threads costs tens of microseconds).
PARALLEL_FROM = 32


def cores() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


_limit: int | None = None


def set_threads(count: int | None) -> None:
    """Solve a batch on at most ``count`` threads (None: one per core)."""
    global _limit
    if count is not None and (not isinstance(count, int) or count < 1):
        raise ValueError(f"count: expected an integer >= 1 or None, got {count!r}")
    _limit = count


def batch_threads() -> int:
    """Threads a batch runs on: one per core, or fewer (:func:`set_threads`)."""
    return cores() if _limit is None else min(_limit, cores())


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _workers() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max(1, cores() - 1), thread_name_prefix="ikchain")
        return _pool


def run(kernel: Callable[..., Any], arguments: tuple[Any, ...], count: int) -> None:
    """``kernel(*arguments, begin, end)`` over ``range(count)``, on every core.

    The calling thread works too; an exception in any range is raised here.
    """
    if count < PARALLEL_FROM:
        kernel(*arguments, 0, count)
        return
    threads = batch_threads()
    if threads == 1:
        kernel(*arguments, 0, count)
        return
    chunks = min(count, CHUNKS)
    taken = itertools.count()  # next() is atomic under the GIL: each chunk goes once

    def work() -> None:
        while (chunk := next(taken)) < chunks:
            kernel(*arguments, chunk * count // chunks, (chunk + 1) * count // chunks)

    helpers = [_workers().submit(work) for _ in range(threads - 1)]
    work()
    for helper in helpers:
        helper.result()
