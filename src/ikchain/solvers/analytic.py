"""The ``analytic`` method: the two-bone closed form, for one target or many.

:func:`ikchain.solvers.cosines.pose` is the formula (the law of cosines in
half-angle form, exact at full extension and full fold); :func:`solve_range` runs
it, for one target or a range of a batch, on the chain scaled to unit length, as
the iterative solvers do (:mod:`ikchain.solvers.loop`), so any scale gives the same
honest answer. On a chain with joint limits it gives the elbow
branch that fits the limits (``bend`` first), else the nearest pose the limits
allow, from :func:`ikchain.solvers.limited.two_bone`.
"""

from __future__ import annotations

import math

import numpy as np

from ikchain.solvers.compiled import kernel, norm
from ikchain.solvers.cosines import pose
from ikchain.solvers.limited import two_bone
from ikchain.solvers.records import (
    CERTIFIED,
    CODE,
    CONVERGED,
    ERROR,
    ITERATIONS,
    MIN_ERROR,
    OPT_BEND,
    OPT_INNER,
    OPT_LIMITED,
    OPT_OUTER,
    REACHABLE,
    TOO_FAR,
    UNREACHABLE,
)
from ikchain.solvers.units import gap_to_annulus, power_of_two, times, unit_target, within_floats

#: Scratch floats per target: the closed form's six numbers, then (limited) the unit
#: lengths, the nearest pose, the two-bone search's six, and two int64 digits.
SCRATCH = 18
#: What :func:`solve_range` takes (see ``compiled.kernel``).
SIGNATURE = "void(float64[::1], float64[::1], float64[:, ::1], float64[:, ::1], int64, int64)"


@kernel()
def solve_target(
    l1: float,
    l2: float,
    outer: float,
    inner: float,
    e: int,
    up: float,
    down: float,
    bend: int,
    limited: bool,
    data: np.ndarray,
    tx: float,
    ty: float,
    out: np.ndarray,
    digits: np.ndarray,
) -> tuple[float, float, bool, int]:
    """:func:`pose` for a target in metres: ``out`` gets (a0, dA, joints x, y...) in metres.

    ``l1``, ``l2`` are in chain units (lengths / 2**e). ``data`` is the chain's
    kernel data (lengths, lows, highs), read where ``limited``; ``out`` (16) and
    ``digits`` (2) are scratch beyond the first six entries. Returns ``(error,
    min_error, reachable, code)`` in metres.
    """
    if not within_floats(tx, ty, outer):
        return 0.0, 0.0, False, TOO_FAR
    ux, uy, moved_in = unit_target(tx, ty, e, down)
    if limited:  # the branch that fits, else the nearest pose the limits allow
        unit = out[6:8]
        unit[0] = l1
        unit[1] = l2
        nearest = out[8:10]
        min_error = two_bone(unit, data[2:4], data[4:6], ux, uy, bend, digits, out[10:16], nearest)
        root = nearest[0]
        elbow = nearest[1]
        out[0] = root
        out[1] = elbow
        out[2] = l1 * math.cos(root)
        out[3] = l1 * math.sin(root)
        out[4] = out[2] + l2 * math.cos(root + elbow)
        out[5] = out[3] + l2 * math.sin(root + elbow)
        error = norm(out[4] - ux, out[5] - uy)
    else:
        error, radius = pose(l1, l2, ux, uy, bend, out)
        min_error = gap_to_annulus(radius, times(inner, -e, down), times(outer, -e, down))
    reachable = min_error == 0.0
    for i in range(2, 6):
        out[i] = times(out[i], e, up)
    if moved_in:
        error = norm(out[4] - tx, out[5] - ty)
        # limited: every pose is as far as the nearest, to the last bit
        least = error if limited else gap_to_annulus(norm(tx, ty), inner, outer)
        return error, least, False, UNREACHABLE
    code = CONVERGED if reachable else UNREACHABLE
    return times(error, e, up), times(min_error, e, up), reachable, code


@kernel()
def chain_scale(lengths: np.ndarray, outer: float) -> tuple[float, float, int, float, float]:
    e = math.frexp(outer)[1]
    up = power_of_two(e)
    down = power_of_two(-e)
    return times(lengths[0], -e, down), times(lengths[1], -e, down), e, up, down


@kernel(SIGNATURE)
def solve_range(
    data: np.ndarray,
    options: np.ndarray,
    targets: np.ndarray,
    out: np.ndarray,
    begin: int,
    end: int,
) -> None:
    """Targets ``begin`` to ``end`` of a batch (B, 2); a single target is a batch of one.

    ``data`` holds the lengths, the lower and the upper limits (read where the chain
    is limited), ``options`` the solve's (``units.OPT_*``: the radii, whether limited,
    the bend). Row b of ``out`` (B, 14) gets target b's angles (2), joints (3 x 2),
    and ``units.RESULT_FIELDS``, as the iterative methods' rows do.
    """
    outer = options[OPT_OUTER]
    inner = options[OPT_INNER]
    limited = options[OPT_LIMITED] != 0.0
    bend = int(options[OPT_BEND])
    l1, l2, e, up, down = chain_scale(data, outer)
    scratch = np.empty(SCRATCH)
    digits = scratch[SCRATCH - 2 :].view(np.int64)  # one allocation, as without limits
    results = 8  # where a row's results begin, after the angles and joints
    for b in range(begin, end):
        error, min_error, reachable, code = solve_target(
            l1,
            l2,
            outer,
            inner,
            e,
            up,
            down,
            bend,
            limited,
            data,
            targets[b, 0],
            targets[b, 1],
            scratch,
            digits,
        )
        row = out[b]
        row[0] = scratch[0]
        row[1] = scratch[1]
        row[2] = 0.0
        row[3] = 0.0
        for k in range(2, 6):
            row[k + 2] = scratch[k]
        row[results + ERROR] = error
        row[results + MIN_ERROR] = min_error
        row[results + REACHABLE] = 1.0 if reachable else 0.0
        row[results + ITERATIONS] = 0.0
        row[results + CODE] = code
        row[results + CERTIFIED] = 1.0
