"""The one iteration loop that every iterative solver runs, compiled, for one target or many.

The loop owns the budget (``max_iterations``), the goal (``tolerance``), the stop
rules and the trace; a solver supplies only its *step* (``ccd.step``,
``fabrik.step``, ``dls.step``): the next pose from the current one.

Stop rules, checked before the first step and after each one:

1. ``error <= tolerance``: converged.
2. The target is out of reach and ``error <= min_error + tolerance``: unreachable
   (the pose is as close as any pose can be).
3. The step changed no angle beyond rounding (a few units in the last place):
   stalled, since it would change nothing next time either.
4. The budget ran out: max_iterations.

**Scale.** The kernels work on the chain divided by a power of two near its length
ΣL (so lengths are at most 1): every product, square and quotient stays far from
overflow and underflow for chains of any size, and the division is exact, so the
numbers are those of the same chain at unit scale, multiplied back exactly. The
tolerance is still the caller's, in metres (divided by the same power of two). A
target more than 2²⁰⁰ ΣL away is moved along its ray to 2²⁰⁰ ΣL for the
iterations (every pose is then equally far from it, to the last bit), and its
error and min_error are computed in metres.

:func:`solve_one` runs one target; :func:`solve_batch` runs many in parallel
(``prange`` over chunks of targets), each through :func:`iterate`, so a target's
answer is the same, to the bit, alone or in a batch.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ikchain.solvers import ccd, dls, fabrik
from ikchain.solvers.compiled import copy_into, joints_into, kernel, norm, renamed
from ikchain.solvers.limited import FOUND_CERTIFIED, FOUND_MIN_ERROR, FOUND_POSE, FOUND_POSED
from ikchain.solvers.methods import CODE, START_BEND
from ikchain.solvers.units import (
    CHUNKS,
    CONVERGED,
    MAX_ITERATIONS,
    OUTSIDE_LIMITS,
    STALLED,
    TOO_FAR,
    UNREACHABLE,
    chain_units,
    gap_to_annulus,
    times,
    unit_target,
    unit_tolerance,
    within_floats,
)

CCD, FABRIK, DLS = CODE["ccd"], CODE["fabrik"], CODE["dls"]

#: A change of at most this many machine epsilons (relative) counts as no change.
ROUNDING = 8.0 * float(np.finfo(np.float64).eps)
#: Scratch rows a step may use (``work``), beyond the loop's own; DLS finds the rest
#: pose in row 5. Row :data:`SEED_ROW`, after them, holds the nearest pose the reach
#: search found on a limited chain.
STEP_ROWS = 7
REST_ROW = 5
SEED_ROW = STEP_ROWS


# -- the loop ---------------------------------------------------------------------------


@kernel()
def changed(before: np.ndarray, after: np.ndarray) -> bool:
    """Whether any angle moved by more than rounding, ``ROUNDING * max(1, |before|)``."""
    for i in range(before.size):
        was = before[i]
        size = abs(was)
        if not abs(after[i] - was) <= ROUNDING * (1.0 if size <= 1.0 else size):
            return True
    return False


@kernel()
def iterate(
    method: int,
    lengths: np.ndarray,
    bias: float,
    limited: bool,
    lows: np.ndarray,
    highs: np.ndarray,
    damping: float,
    max_step: float,
    tx: float,
    ty: float,
    min_error: float,
    tolerance: float,
    max_iterations: int,
    pull: float,
    seed_error: float,
    angles: np.ndarray,
    joints: np.ndarray,
    work: np.ndarray,
    trace: np.ndarray,
) -> tuple[float, int, int]:
    """Run ``method``'s step from the pose in ``angles[0]`` until a stop rule fires.

    Parameters are in chain units. ``angles`` (2, n) and ``joints`` (2, n + 1, 2)
    hold the current and the next pose; on return the final pose and its joints are
    in ``angles[0]`` and ``joints[0]``. ``work`` (STEP_ROWS + 1, n) is the step's
    scratch (DLS reads its rest pose, pulled with gain ``pull``, from row
    ``REST_ROW``). A finite ``seed_error`` is the end error of the pose in row
    ``SEED_ROW``, the nearest the reach search found: the solve jumps there, as one
    iteration, when the target is out of reach, or when it would otherwise stop (it
    stalled, or this is its last iteration) farther from the target than the seed.
    Row k of ``trace`` (room, 1 + n) gets the end error and the pose before
    the first iteration (k = 0) and after iteration k, as far as it has room.

    Returns
    -------
    error, iterations, code
    """
    n = lengths.size
    current, following = 0, 1
    joints_into(lengths, angles[0], joints[0])
    error = norm(joints[0, n, 0] - tx, joints[0, n, 1] - ty)
    room = trace.shape[0]
    if room > 0:
        trace[0, 0] = error
        copy_into(angles[0], trace[0], 1)
    iterations = 0
    moved = True
    while True:
        if error <= tolerance:
            code = CONVERGED
            break
        if min_error > 0.0 and error <= min_error + tolerance:
            code = UNREACHABLE
            break
        before, after = angles[current], angles[following]
        if (
            seed_error < error - tolerance
            and iterations < max_iterations
            and (min_error > 0.0 or not moved or iterations + 1 >= max_iterations)
        ):
            copy_into(work[SEED_ROW], after, 0)
            joints_into(lengths, after, joints[following])
            seed_error = math.inf  # once
        elif not moved:
            code = STALLED
            break
        elif iterations >= max_iterations:
            code = MAX_ITERATIONS
            break
        elif method == CCD:
            ccd.step(
                lengths,
                before,
                joints[current],
                tx,
                ty,
                damping,
                max_step,
                limited,
                lows,
                highs,
                after,
                joints[following],
            )
        elif method == FABRIK:
            fabrik.step(
                lengths,
                before,
                joints[current],
                tx,
                ty,
                limited,
                lows,
                highs,
                after,
                joints[following],
                work,
            )
        else:
            dls.step(
                lengths,
                bias,
                before,
                joints[current],
                tx,
                ty,
                damping,
                limited,
                lows,
                highs,
                after,
                joints[following],
                work,
                pull,
            )
        moved = changed(before, after)
        current, following = following, current
        iterations += 1
        error = norm(joints[current, n, 0] - tx, joints[current, n, 1] - ty)
        if iterations < room:
            trace[iterations, 0] = error
            copy_into(angles[current], trace[iterations], 1)
    if current != 0:
        copy_into(angles[current], angles[0], 0)
        for i in range(n + 1):
            copy_into(joints[current, i], joints[0, i], 0)
    return error, iterations, code


@kernel()
def start_pose(
    has_start: bool,
    start: np.ndarray,
    bend: int,
    limited: bool,
    lows: np.ndarray,
    highs: np.ndarray,
    into: np.ndarray,
) -> bool:
    """``start`` into ``into``, or the bent default; False if ``start`` breaks a limit."""
    n = into.size
    if not has_start:  # every joint bent by START_BEND, within limits
        for i in range(n):
            value = bend * START_BEND
            if limited:
                value = value if value >= lows[i] else lows[i]
                value = value if value <= highs[i] else highs[i]
            into[i] = value
        return True
    for i in range(n):
        into[i] = start[i]
        if limited and not lows[i] <= start[i] <= highs[i]:
            return False
    return True


@kernel()
def solve_target(
    method: int,
    lengths: np.ndarray,
    outer: float,
    inner: float,
    unit_lengths: np.ndarray,
    e: int,
    up: float,
    down: float,
    limited: bool,
    lows: np.ndarray,
    highs: np.ndarray,
    damping: float,
    max_step: float,
    tolerance: float,
    max_iterations: int,
    pull: float,
    found: np.ndarray,
    tx: float,
    ty: float,
    angles: np.ndarray,
    joints: np.ndarray,
    work: np.ndarray,
    trace: np.ndarray,
) -> tuple[float, float, bool, int, int, bool]:
    """One target from the start pose in ``angles[0]``: scale in, :func:`iterate`, scale out.

    On a limited chain ``found`` holds what the reach search found
    (:func:`ikchain.solvers.limited.reach_one`): ``min_error`` under the limits, and
    for DLS the nearest pose as a seed; unlimited, it is empty. On
    return ``angles[0]`` and ``joints[0]`` (m) hold the answer, ``trace`` its errors
    (m). Returns ``(error, min_error, reachable, iterations, code, certified)`` in
    metres; ``certified`` False: ``min_error`` is a lower bound (the search's budget
    ran out).
    """
    n = lengths.size
    if not within_floats(tx, ty, outer):
        return 0.0, 0.0, False, 0, TOO_FAR, True
    outer_unit = times(outer, -e, down)
    inner_unit = times(inner, -e, down)
    bias = dls.BIAS * outer_unit**2
    unit_tol = unit_tolerance(tolerance, e, down, up)
    ux, uy, moved_in = unit_target(tx, ty, e, down)
    min_error = gap_to_annulus(norm(ux, uy), inner_unit, outer_unit)
    certified = True
    seed_error = math.inf
    if found.size > 0:
        min_error = found[FOUND_MIN_ERROR]
        certified = found[FOUND_CERTIFIED] != 0.0
        seed = work[SEED_ROW]
        copy_into(found[FOUND_POSE:], seed, 0)
        if method == DLS and found[FOUND_POSED] != 0.0:
            joints_into(unit_lengths, seed, joints[1])  # row 1 is free until the first step
            seed_error = norm(joints[1, n, 0] - ux, joints[1, n, 1] - uy)
    error, iterations, code = iterate(
        method,
        unit_lengths,
        bias,
        limited,
        lows,
        highs,
        damping,
        max_step,
        ux,
        uy,
        min_error,
        unit_tol,
        max_iterations,
        pull,
        seed_error,
        angles,
        joints,
        work,
        trace,
    )
    if error <= unit_tol and not certified and min_error == 0.0:
        # the pose itself shows the target within the tolerance of the reach; a positive
        # lower bound (outside the annulus) stays what it is: proven, not beaten
        certified = True
    final = joints[0]
    for i in range(n + 1):
        final[i, 0] = times(final[i, 0], e, up)
        final[i, 1] = times(final[i, 1], e, up)
    reachable = min_error == 0.0
    if moved_in:  # errors in metres; every pose was equally far (see the module notes)
        error = norm(final[n, 0] - tx, final[n, 1] - ty)
        min_error = gap_to_annulus(norm(tx, ty), inner, outer)
        if limited:  # every pose is as far as the nearest, to the last bit
            min_error = error
        code = CONVERGED if error <= tolerance else UNREACHABLE
        if trace.shape[0] > 0:
            trace[0, 0] = error
        return error, min_error, reachable, iterations, code, certified
    for k in range(min(iterations + 1, trace.shape[0])):
        trace[k, 0] = times(trace[k, 0], e, up)
    return (
        times(error, e, up),
        times(min_error, e, up),
        reachable,
        iterations,
        code,
        certified,
    )


@kernel()
def workspace(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One allocation for a target's scratch: unit lengths (n), angles (2, n), joints
    (2, n + 1, 2), the step's work and the seed (STEP_ROWS + 1, n)."""
    rows = STEP_ROWS + 1
    space = np.empty((3 + rows) * n + 4 * (n + 1))
    unit = space[:n]
    angles = space[n : 3 * n].reshape((2, n))
    work = space[3 * n : (3 + rows) * n].reshape((rows, n))
    joints = space[(3 + rows) * n :].reshape((2, n + 1, 2))
    return unit, angles, joints, work


_ONE = (
    "Tuple((float64, float64, boolean, int64, int64, boolean))(int64, float64[::1], boolean,"
    " float64, float64, boolean, int64, float64, float64, int64, float64, float64, float64,"
    " float64[::1], float64, float64[::1], float64[::1], float64[:, ::1])"
)


@kernel(_ONE)
def solve_one(
    method: int,
    data: np.ndarray,
    limited: bool,
    outer: float,
    inner: float,
    has_start: bool,
    bend: int,
    tx: float,
    ty: float,
    max_iterations: int,
    tolerance: float,
    damping: float,
    max_step: float,
    rest: np.ndarray,
    pull: float,
    found: np.ndarray,
    buffer: np.ndarray,
    trace: np.ndarray,
) -> tuple[float, float, bool, int, int, bool]:
    """One target.


    ``data`` (3n,) holds the lengths, then each joint's lower and upper limit (used
    where ``limited``). ``buffer`` (3n + 2) holds the start pose in its first n
    entries when ``has_start`` (else the bent default is used), and gets the answer:
    the angles (n), then the joints (n + 1, 2). ``rest`` (n) is the rest pose, pulled
    with gain ``pull`` (DLS; 0 and any array for none). ``found`` is what the reach
    search found on a limited chain (empty for a free one). ``trace``: see
    :func:`iterate`.

    Returns ``(error, min_error, reachable, iterations, code, certified)``.
    """
    n = data.size // 3
    lengths = data[:n]
    lows = data[n : 2 * n]
    highs = data[2 * n :]
    unit, angles, joints, work = workspace(n)
    e, up, down = chain_units(lengths, outer, unit)
    if pull > 0.0:
        copy_into(rest, work[REST_ROW], 0)
    if not start_pose(has_start, buffer, bend, limited, lows, highs, angles[0]):
        return 0.0, 0.0, False, 0, OUTSIDE_LIMITS, True
    result = solve_target(
        method,
        lengths,
        outer,
        inner,
        unit,
        e,
        up,
        down,
        limited,
        lows,
        highs,
        damping,
        max_step,
        tolerance,
        max_iterations,
        pull,
        found,
        tx,
        ty,
        angles,
        joints,
        work,
        trace,
    )
    for i in range(n):
        buffer[i] = angles[0, i]
    for i in range(n + 1):
        buffer[n + 2 * i] = joints[0, i, 0]
        buffer[n + 2 * i + 1] = joints[0, i, 1]
    return result


_MANY = (
    "void(int64, float64[::1], boolean, float64, float64, float64[:, ::1], int64,"
    " float64[:, ::1], int64, float64, float64, float64, float64[::1], float64,"
    " float64[:, ::1], float64[:, :, ::1], float64[::1], float64[::1], boolean[::1],"
    " int64[::1], int64[::1], boolean[::1], float64[:, ::1], float64[:, :, ::1])"
)


def _solve_many(
    method: int,
    data: np.ndarray,
    limited: bool,
    outer: float,
    inner: float,
    starts: np.ndarray,
    bend: int,
    targets: np.ndarray,
    max_iterations: int,
    tolerance: float,
    damping: float,
    max_step: float,
    rest: np.ndarray,
    pull: float,
    angles_out: np.ndarray,
    joints_out: np.ndarray,
    error: np.ndarray,
    min_error: np.ndarray,
    reachable: np.ndarray,
    iterations: np.ndarray,
    codes: np.ndarray,
    certified: np.ndarray,
    found: np.ndarray,
    trace: np.ndarray,
) -> None:
    """Many targets (B, 2), in chunks over the cores; ``starts`` (B, n), (1, n) or
    (0, n) for the bent default. ``trace`` (B, room, 1 + n) as in :func:`iterate`, or
    (0, 0, 1 + n) for none; rows after a target stopped are NaN. ``found`` (B, n + 3)
    is what the reach search found for each target on a limited chain, (0, n + 3) for
    a free one.
    """
    n = data.size // 3
    lengths = data[:n]
    lows = data[n : 2 * n]
    highs = data[2 * n :]
    count = targets.shape[0]
    recording = trace.shape[0] > 0
    chunks = min(count, CHUNKS)
    for chunk in numba.prange(chunks):
        unit, angles, joints, work = workspace(n)
        e, up, down = chain_units(lengths, outer, unit)
        if pull > 0.0:
            copy_into(rest, work[REST_ROW], 0)
        no_trace = np.empty((0, n + 1))
        none_found = np.empty(0)
        for b in range(chunk * count // chunks, (chunk + 1) * count // chunks):
            start = starts[b if starts.shape[0] > 1 else 0] if starts.shape[0] > 0 else unit
            start_pose(starts.shape[0] > 0, start, bend, limited, lows, highs, angles[0])
            rows = trace[b] if recording else no_trace
            result = solve_target(
                method,
                lengths,
                outer,
                inner,
                unit,
                e,
                up,
                down,
                limited,
                lows,
                highs,
                damping,
                max_step,
                tolerance,
                max_iterations,
                pull,
                found[b] if found.shape[0] > 0 else none_found,
                targets[b, 0],
                targets[b, 1],
                angles,
                joints,
                work,
                rows,
            )
            error[b], min_error[b], reachable[b], iterations[b], codes[b], certified[b] = result
            copy_into(angles[0], angles_out[b], 0)
            for i in range(n + 1):
                copy_into(joints[0, i], joints_out[b, i], 0)
            if recording:
                rows[iterations[b] + 1 :, :] = np.nan


#: The batch on every core, and on one (small batches, where starting threads costs more).
solve_batch = kernel(_MANY, parallel=True)(renamed(_solve_many, "solve_batch"))
solve_batch_serial = kernel(_MANY)(renamed(_solve_many, "solve_batch_serial"))
