"""The ``kernel`` decorator, and the small kernels the solvers share.

A kernel is compiled by numba (:mod:`ikchain.solvers.kernelcache`: no GIL, an
on-disk cache), or, with ``IKCHAIN_JIT=0`` (or numba's ``NUMBA_DISABLE_JIT=1``) in
the environment when the kernels are first imported, run as the plain Python it is
written in: the same code, without importing numba. Plain Python answers one small
solve in milliseconds where compiling takes seconds, and it is how the mutation
tests and the coverage run see the kernels' lines.

Only the kernel modules (``loop``, ``ccd``, ``fabrik``, ``dls``, ``analytic``,
``limited``) import this; :mod:`ikchain.solvers` imports those on the first solve,
so ``import ikchain`` stays fast.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from ikchain import kinematics
from ikchain.solvers import mode

#: Whether the kernels are compiled (see the module notes, and ``solvers.interpret``).
JIT = (
    not mode.INTERPRETED
    and os.environ.get("IKCHAIN_JIT", "1") != "0"
    and os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")
)

#: Every kernel made by :func:`kernel`, for :func:`compile_all`.
KERNELS: list[Any] = []


def kernel(signature: str | None = None) -> Callable[[Callable[..., Any]], Any]:
    """A kernel (see the module notes); ``signature`` compiles eagerly on demand.

    Kernels with a signature are compiled by :func:`compile_all` (once per process,
    from the disk cache when it is warm), so that no solve pays for compilation.
    Every kernel releases the GIL (``nogil``): a batch runs on several threads, each
    solving a range of it (:func:`ikchain.solvers.threads.run`), and so do callers'
    own threads. None is compiled with ``parallel=True``, whose compile costs seconds.
    """

    def decorate(function: Callable[..., Any]) -> Any:
        dispatcher: Any = function
        if JIT:
            from ikchain.solvers import kernelcache

            dispatcher = kernelcache.compiled(function)
        dispatcher._ikchain_signature = signature
        KERNELS.append(dispatcher)
        return dispatcher

    return decorate


def compile_all(progress: Callable[[int, int, str], None] | None = None) -> None:
    """Compile (or load from the cache) every kernel that declares its signature.

    ``progress(done, total, name)`` is called before each kernel and once at the end
    (``done == total``), so a caller can say what is happening while numba compiles.
    """
    signed = [d for d in KERNELS if d._ikchain_signature is not None and hasattr(d, "compile")]
    for done, dispatcher in enumerate(signed):
        if progress is not None:
            progress(done, len(signed), dispatcher.__name__)
        dispatcher.compile(dispatcher._ikchain_signature)
    if progress is not None:
        progress(len(signed), len(signed), "")


# -- kernels shared by the solvers ----------------------------------------------------

#: Below this, ``x² + y²`` loses digits to underflow; ``hypot`` takes over.
_TINY = 2.2250738585072014e-308

#: ``wrap_angle`` as a kernel: the one implementation, in :mod:`ikchain.kinematics`.
wrap_angle = kernel()(kinematics.wrap_angle)


@kernel()
def norm(x: float, y: float) -> float:
    """``sqrt(x² + y²)``, through ``hypot`` where the squares under- or overflow."""
    squares = x * x + y * y
    if squares >= _TINY and squares < math.inf:
        return math.sqrt(squares)
    return math.hypot(x, y)


@kernel()
def copy_into(source: np.ndarray, into: np.ndarray, at: int) -> None:
    """``into[at : at + source.size] = source``, one element at a time.

    A slice assignment between arrays compiles numba's shape-mismatch error path (its
    message formatting: about 1-2.5 s of compile per array type), which a copy whose
    sizes the caller owns never needs.
    """
    for i in range(source.size):
        into[at + i] = source[i]


@kernel()
def joints_into(lengths: np.ndarray, angles: np.ndarray, joints: np.ndarray) -> None:
    """Joints (n + 1, 2) of relative ``angles``, root to tip, bone after bone."""
    n = lengths.size
    absolute = angles[0]
    x = lengths[0] * math.cos(absolute)
    y = lengths[0] * math.sin(absolute)
    joints[0, 0] = 0.0
    joints[0, 1] = 0.0
    joints[1, 0] = x
    joints[1, 1] = y
    for i in range(1, n):
        absolute += angles[i]
        x += lengths[i] * math.cos(absolute)
        y += lengths[i] * math.sin(absolute)
        joints[i + 1, 0] = x
        joints[i + 1, 1] = y


@kernel()
def clamp_into(values: np.ndarray, lows: np.ndarray, highs: np.ndarray) -> None:
    """Each of ``values`` (n) into its joint's ``[lows, highs]``, in place; a bound
    wins a tie (the value becomes the bound itself, so ``at_limit`` sees it)."""
    for i in range(values.size):
        value = values[i]
        value = value if value > lows[i] else lows[i]
        values[i] = value if value < highs[i] else highs[i]


@kernel()
def stay(
    angles: np.ndarray, joints: np.ndarray, new_angles: np.ndarray, new_joints: np.ndarray
) -> None:
    """A step's answer when no step helped: the current pose (n) and joints (n + 1, 2)
    copied into the next ones, so the loop sees no change and reports a stall."""
    for i in range(angles.size):
        new_angles[i] = angles[i]
    for i in range(joints.shape[0]):
        new_joints[i, 0] = joints[i, 0]
        new_joints[i, 1] = joints[i, 1]
