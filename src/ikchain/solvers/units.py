"""Chain units and status codes, shared by the closed form, the reach search and the loop.

The kernels work on the chain divided by a power of two near its length ΣL (see
:mod:`ikchain.solvers.loop`); these helpers do the exact scaling in and out, and hold
the integer status codes (from :mod:`ikchain.solvers.records`).
"""

from __future__ import annotations

import math

import numpy as np

from ikchain.solvers.compiled import kernel, norm
from ikchain.solvers.records import (  # noqa: F401 (the kernels' codes, named here too)
    CONVERGED,
    MAX_ITERATIONS,
    OUTSIDE_LIMITS,
    STALLED,
    TOO_FAR,
    UNREACHABLE,
)

#: Targets beyond this many chain lengths are moved in along their ray (see ``loop``).
FAR = 2.0**200
#: The tolerance, in chain lengths, is capped here (beyond, every pose converges).
TOLERANCE_CAP = 2.0**300
# -- scale ----------------------------------------------------------------------------


@kernel()
def power_of_two(e: int) -> float:
    """``2**e`` when it is a normal float (then ``x * 2**e`` is exact), else 0."""
    return math.ldexp(1.0, e) if -1000 < e < 1000 else 0.0


@kernel()
def times(x: float, e: int, factor: float) -> float:
    """``x * 2**e`` rounded once, ``factor`` being :func:`power_of_two` ``(e)``; ±inf
    where that overflows (compiled and interpreted alike: Python's ``ldexp`` raises)."""
    if factor != 0.0:
        return x * factor
    if x != 0.0 and math.frexp(x)[1] + e > 1024:  # |x| * 2**e >= 2**1024
        return math.inf if x > 0.0 else -math.inf
    return math.ldexp(x, e)


@kernel()
def unit_tolerance(tolerance: float, e: int, down: float, up: float) -> float:
    """``tolerance / 2**e``, capped, never rounded up (converged must mean error <= it)."""
    scaled = times(tolerance, -e, down)
    if not scaled <= TOLERANCE_CAP:
        return TOLERANCE_CAP
    if times(scaled, e, up) > tolerance:
        scaled = np.nextafter(scaled, 0.0)
    return scaled


@kernel()
def unit_target(tx: float, ty: float, e: int, down: float) -> tuple[float, float, bool]:
    """The target in chain units, and whether it was moved in from beyond :data:`FAR`."""
    ux = times(tx, -e, down)
    uy = times(ty, -e, down)
    if norm(ux, uy) <= FAR:
        return ux, uy, False
    k = 200 - math.frexp(max(abs(tx), abs(ty)))[1]
    return math.ldexp(tx, k), math.ldexp(ty, k), True


@kernel()
def within_floats(tx: float, ty: float, outer: float) -> bool:
    """Whether ``|t| + outer`` is a finite float (every distance of the solve is then)."""
    if abs(tx) < 1e300 and abs(ty) < 1e300 and outer < 1e300:
        return True
    return norm(tx, ty) + outer < math.inf


@kernel()
def gap_to_annulus(radius: float, inner: float, outer: float) -> float:
    """``max(0, radius - outer, inner - radius)``: the smallest error of any pose."""
    outside = radius - outer
    inside = inner - radius
    worst = outside if outside >= inside else inside
    return 0.0 if worst <= 0.0 else worst


@kernel()
def chain_units(lengths: np.ndarray, outer: float, unit: np.ndarray) -> tuple[int, float, float]:
    """Lengths divided by ``2**e`` (the power of two at ΣL) into ``unit``; ``e`` and the
    factors ``2**e``, ``2**-e`` (:func:`power_of_two`)."""
    e = math.frexp(outer)[1]
    up = power_of_two(e)
    down = power_of_two(-e)
    for i in range(lengths.size):
        unit[i] = times(lengths[i], -e, down)
    return e, up, down
