"""Joint stiffness: how reluctantly each joint turns, for ``dls`` and ``jt``.

Animation rigs and motion planners weigh joints: a spine should bend less than a
wrist, a shoulder turn as little as it can. ``solve(..., stiffness=s)`` gives each
joint ``i`` a stiffness ``s[i]`` in [0, ∞] and the metric ``W = diag(1 + s)`` on the
joint changes; the kernels read each joint's *give* ``g = 1 / (1 + s)``, the diagonal
of ``W⁻¹``:

* ``dls`` takes the weighted damped least-squares step, the ``Δθ`` that minimises
  ``|J Δθ - e|² + λ² Δθᵀ W Δθ``: ``Δθ = W⁻¹ Jᵀ (J W⁻¹ Jᵀ + λ² I)⁻¹ e``; its aiming
  turn of the root is scaled by the root's give (``ikchain.solvers.dls``);
* ``jt`` steps along ``W⁻¹ Jᵀ e``, the steepest descent in the metric ``W``
  (``ikchain.solvers.transpose``).

A stiffness of 0 gives 1, a product by 1.0 that changes no bit: a stiffness of all
zeros solves exactly as none. Among the poses that reach a target, each step prefers
the motion that is cheap in ``W``: a joint of stiffness 9 turns about a tenth as far
as a free one where both would do.

**Infinite stiffness locks a joint** at its start angle (``init``, or the bent start
pose): its give is 0, so no step turns it, and the solve runs on the chain with the
joint limited to ``[start, start]`` (the other joints keep their limits, or get
``±2**20`` rad, free, on a chain without). The reach under limits
(:mod:`ikchain.solvers.limited`) then tells the truth about what the locked chain can
reach: ``reachable``, ``min_error`` and ``certified`` are those of the locked chain,
and ``unreachable`` means as near as the locked chain comes. Targets of a batch with
different start angles at their locked joints are solved in groups, one locked chain
per group. A locked joint's angle in the answer is its start angle, bit for bit
(a start angle beyond ``±2**20`` rad on a chain without limits is first taken to the
same direction in (-π, π], as every solve does).

The stiffness changes the path of the iterations, not the target's reach (unless it
locks a joint): a stiff chain may need more iterations.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ikchain.chain import Chain
from ikchain.checks import _describe, _holds_bool
from ikchain.solvers.methods import LARGEST_ANGLE


def check_stiffness(value: Any, n: int) -> NDArray[np.float64]:
    """Each joint's stiffness: shape (n,), every one a number >= 0 or ``inf``.

    Raises
    ------
    ValueError
        For anything else, naming what was expected and what was given.
    """
    expected = f"stiffness: expected {n} numbers >= 0 (inf locks a joint), one a joint"
    if _holds_bool(value):
        raise ValueError(f"{expected}, got {_describe(value)} (booleans)")
    try:
        array = np.array(value, dtype=np.float64)
    except OverflowError:
        raise ValueError(
            f"{expected}, got {_describe(value)} (too large for a float; inf locks)"
        ) from None
    except (TypeError, ValueError):
        raise ValueError(f"{expected}, got {_describe(value)}") from None
    if array.shape != (n,):
        raise ValueError(f"{expected}, shape ({n},), got shape {array.shape}")
    bad = np.flatnonzero(~(array >= 0.0))  # NaN fails the comparison too
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{expected}, got joint {i} {float(array[i])!r}")
    array.flags.writeable = False
    return array


def give_of(stiffness: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each joint's give ``1 / (1 + s)``: 1 for s = 0 (exactly), 0 for s = ∞."""
    return 1.0 / (1.0 + stiffness)


def locked_value(chain: Chain, angle: float) -> float:
    """The angle a locked joint keeps: the start angle, taken to (-π, π] beyond
    ``±2**20`` rad on a chain without limits, as the kernels take every start."""
    if chain.limits is None and not -LARGEST_ANGLE <= angle <= LARGEST_ANGLE:
        return math.atan2(math.sin(angle), math.cos(angle))
    return angle


def locked_chain(chain: Chain, locked: NDArray[np.bool_], start: NDArray[np.float64]) -> Chain:
    """``chain`` with each locked joint limited to its angle in ``start`` (n,), the
    others to their limits (``±2**20`` rad without)."""
    if chain.limits is None:
        limits = np.full((chain.n_bones, 2), (-LARGEST_ANGLE, LARGEST_ANGLE))
    else:
        limits = np.array(chain.limits)
    for i in np.flatnonzero(locked):
        value = locked_value(chain, float(start[i]))
        limits[i] = (value, value)
    return Chain(chain.lengths, limits=limits)


def taken_start(chain: Chain, start: NDArray[np.float64]) -> NDArray[np.float64]:
    """Start poses (..., n) as the kernels take them on ``chain``: on a chain without
    limits, angles beyond ``±2**20`` rad turned to (-π, π] (the same pose), so that
    they lie within :func:`locked_chain`'s limits."""
    if chain.limits is not None or np.all(np.abs(start) <= LARGEST_ANGLE):
        return start
    taken = np.array(start, dtype=np.float64)
    flat = taken.reshape(-1)
    for k in np.flatnonzero(np.abs(flat) > LARGEST_ANGLE):
        flat[k] = locked_value(chain, float(flat[k]))
    return taken
