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


@kernel("void(float64[::1], float64[:, ::1], float64[:, ::1])")
def ellipse_into(lengths: np.ndarray, angles: np.ndarray, out: np.ndarray) -> None:
    """The manipulability ellipse of each pose (m, n) into ``out`` (m, 3): ``σ₁``,
    ``σ₂`` and the long axis (see :func:`ikchain.manipulability.manipulability_from_angles`,
    which calls this; one pose of a drag frame costs a microsecond, not an SVD's 20).

    The tip Jacobian's rows are ``u = -arm_y`` and ``w = arm_x`` (arm ``i``: joint ``i``
    to the tip, summed tip-first from the bones). ``σ₁²`` is the larger eigenvalue of
    ``J Jᵀ = [[u·u, u·w], [u·w, w·w]]`` (no cancellation: a sum plus a hypot), and
    ``σ₁σ₂ = |det|`` is the longer row's length times the length of the other row's
    part across it (Gram–Schmidt on the two rows: an absolute error of a few ulps of
    ``σ₁``, as an SVD's; ``u·u · w·w - (u·w)²`` would lose half the digits near a
    straight chain). The axis is the first eigenvector's angle, ``atan2(2 u·w,
    u·u - w·w) / 2``, in (-π/2, π/2]. Lengths are taken in units of the chain's total
    length (and σ's scaled back), so that no square over- or underflows for any chain
    with a finite total.
    """
    n = lengths.size
    total = 0.0
    for i in range(n):
        total += lengths[i]
    arm = np.empty((n, 2))
    for k in range(angles.shape[0]):
        absolute = 0.0
        for i in range(n):  # each bone's vector, in the arm array for now
            absolute += angles[k, i]
            unit = lengths[i] / total
            arm[i, 0] = unit * math.cos(absolute)
            arm[i, 1] = unit * math.sin(absolute)
        for i in range(n - 2, -1, -1):  # tail first: arm i = bone i + arm i + 1
            arm[i, 0] += arm[i + 1, 0]
            arm[i, 1] += arm[i + 1, 1]
        uu = 0.0
        ww = 0.0
        uw = 0.0
        for i in range(n):
            uu += arm[i, 1] * arm[i, 1]
            ww += arm[i, 0] * arm[i, 0]
            uw -= arm[i, 0] * arm[i, 1]
        sigma1 = math.sqrt(0.5 * (uu + ww) + math.hypot(0.5 * (uu - ww), uw))
        # the longer row p, the other s less its part along p; column (x, y) of J is
        # (-arm_y, arm_x). p·p >= (u·u + w·w) / 2 >= 1 / (8 n²): some arm is at least
        # half the longest bone, which is at least 1/n of the total
        longer_u = uu >= ww
        pp = uu if longer_u else ww
        along = uw / pp
        across = 0.0
        for i in range(n):
            p = -arm[i, 1] if longer_u else arm[i, 0]
            s = arm[i, 0] if longer_u else -arm[i, 1]
            rest = s - along * p
            across += rest * rest
        sigma2 = math.sqrt(pp) * math.sqrt(across) / sigma1
        axis = 0.5 * math.atan2(2.0 * uw, uu - ww)
        if axis <= -0.5 * math.pi:  # atan2(-0.0, negative) is -π: the same axis
            axis += math.pi
        out[k, 0] = sigma1 * total
        out[k, 1] = (sigma2 if sigma2 < sigma1 else sigma1) * total
        out[k, 2] = axis
