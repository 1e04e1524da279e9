"""The one iteration loop that every iterative solver runs, compiled, for one target or many.

The loop owns the budget (``max_iterations``), the goal (``tolerance``), the stop
rules and the trace; a solver supplies only its *step* (``ccd.step``,
``fabrik.step``, ``dls.step``, ``transpose.step``): the next pose from the current
one. Every step has the same signature, ``step(chain, knobs, tx, ty, angles, joints, new_angles,
new_joints, work)``, and the loop calls whichever it was compiled with: each
method's loop is compiled apart (:data:`SOLVE`), so a first solve compiles only its
own method.

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

``SOLVE[method]`` is the one entry for a single target and for a batch alike: it
solves targets ``begin`` to ``end`` of a batch (a single target is a batch of one),
so a caller spreads a large batch over threads by handing each a range (the kernels
release the GIL), and a target's answer is the same, to the bit, alone or in a
batch.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from ikchain.solvers import ccd, dls, fabrik, transpose
from ikchain.solvers.blend import blend_row, blend_rows  # noqa: F401 (runner.blend_after's)
from ikchain.solvers.compiled import (
    copy_into,
    ellipse_into,  # noqa: F401 (runner.ellipses')
    joints_into,
    kernel,
    norm,
)
from ikchain.solvers.limited import FOUND_CERTIFIED, FOUND_MIN_ERROR, FOUND_POSE, FOUND_POSED
from ikchain.solvers.methods import CODE, LARGEST_ANGLE, START_BEND
from ikchain.solvers.records import (
    CERTIFIED,
    CONVERGED,
    ERROR,
    FREE_OR_FIXED,
    GIVE_ROW,
    ITERATIONS,
    KNOB_BIAS,
    KNOB_DAMPING,
    KNOB_FIELDS,
    KNOB_LIMITED,
    KNOB_MAX_STEP,
    KNOB_PULL,
    MAX_ITERATIONS,
    MIN_ERROR,
    OPT_BEND,
    OPT_DAMPING,
    OPT_FOLLOW,
    OPT_INNER,
    OPT_LIMITED,
    OPT_MAX_ITERATIONS,
    OPT_MAX_STEP,
    OPT_OUTER,
    OPT_PULL,
    OPT_TOLERANCE,
    OPT_WEIGHT,
    OUTSIDE_LIMITS,
    REACHABLE,
    STALLED,
    TOO_FAR,
    UNREACHABLE,
)
from ikchain.solvers.records import CODE as CODE_FIELD
from ikchain.solvers.rigid import rigid_reach
from ikchain.solvers.tip import posed_loop, posed_rows  # noqa: F401 (Solver's tip angle)
from ikchain.solvers.units import (
    chain_units,
    gap_to_annulus,
    times,
    unit_target,
    unit_tolerance,
    within_floats,
)

CCD, FABRIK, DLS, JT = CODE["ccd"], CODE["fabrik"], CODE["dls"], CODE["jt"]

#: A change of at most this many machine epsilons (relative) counts as no change.
ROUNDING = 8.0 * float(np.finfo(np.float64).eps)
#: Scratch rows a step may use (``work``), beyond the loop's own; DLS finds the rest
#: pose in row 5. Row :data:`GIVE_ROW`, after them, holds each joint's give
#: ``1 / (1 + stiffness)`` (all ones without stiffness; DLS and jt read it), and row
#: :data:`SEED_ROW` the nearest pose the reach search found on a limited chain.
STEP_ROWS = 7
REST_ROW = 5
SEED_ROW = GIVE_ROW + 1
START_ROW = SEED_ROW + 1  # the start pose, kept for the blend


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


def step(
    chain: np.ndarray,
    knobs: np.ndarray,
    tx: float,
    ty: float,
    angles: np.ndarray,
    joints: np.ndarray,
    new_angles: np.ndarray,
    new_joints: np.ndarray,
    work: np.ndarray,
) -> None:
    """Stands for the method's step: each method's copy of the loop names its own."""
    raise NotImplementedError


def iterate(
    chain: np.ndarray,
    knobs: np.ndarray,
    tx: float,
    ty: float,
    min_error: float,
    tolerance: float,
    max_iterations: int,
    seed_error: float,
    seed_bend: int,
    angles: np.ndarray,
    joints: np.ndarray,
    work: np.ndarray,
    spare: np.ndarray,
    trace: np.ndarray,
) -> tuple[float, int, int]:
    """Run :func:`step` from the pose in ``angles[0]`` until a stop rule fires.

    Parameters are in chain units: ``chain`` (3, n) the lengths and limits, ``knobs``
    the step's options (``units.KNOB_*``). ``angles`` (2, n) and ``joints`` (2, n +
    1, 2) hold the current and the next pose; on return the final pose and its
    joints are in ``angles[0]`` and ``joints[0]``. ``work`` (STEP_ROWS + 1, n) is the
    step's scratch (DLS reads its rest pose from row ``REST_ROW``, DLS and jt each
    joint's give from row ``GIVE_ROW``). A finite
    ``seed_error`` is the end error of the pose in row ``SEED_ROW``, the nearest the
    reach search found: the solve jumps there, as one iteration, when the target is
    out of reach, or when it would otherwise stop (it stalled, or this is its last
    iteration) farther from the target than the seed. A ``seed_bend`` of +1 or -1
    says that the seed is a locked chain's nearest pose (``rigid.rigid_reach``, with
    that bend; ``spare`` its scratch), made only when the loop first asks for it,
    which a drag almost never does; 0, that ``seed_error`` says all. Row k of
    ``trace`` (room, 1 + n) gets the end error and the pose before the first
    iteration (k = 0) and after iteration k, as far as it has room.

    Returns
    -------
    error, iterations, code
    """
    n = chain.shape[1]
    lengths = chain[0]
    current, following = 0, 1  # the pose rows: this iteration's and the next one's
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
        wants_seed = iterations < max_iterations and (
            min_error > 0.0 or not moved or iterations + 1 >= max_iterations
        )
        if LOCKS and seed_bend != 0 and wants_seed:  # the locked chain's nearest pose, now
            posed = rigid_reach(
                lengths, chain[1], chain[2], tx, ty, seed_bend, work[SEED_ROW], spare, True
            )[1]
            if posed:  # (joints[following] is free until the step below)
                joints_into(lengths, work[SEED_ROW], joints[following])
                seed_error = norm(joints[following, n, 0] - tx, joints[following, n, 1] - ty)
            seed_bend = 0  # once
        if seed_error < error - tolerance and wants_seed:
            copy_into(work[SEED_ROW], after, 0)
            joints_into(lengths, after, joints[following])
            seed_error = math.inf  # once
        elif not moved:
            code = STALLED
            break
        elif iterations >= max_iterations:
            code = MAX_ITERATIONS
            break
        else:
            step(chain, knobs, tx, ty, before, joints[current], after, joints[following], work)
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
        value = start[i]
        if limited:
            if not lows[i] <= value <= highs[i]:
                return False
        elif not -LARGEST_ANGLE <= value <= LARGEST_ANGLE:
            # the same direction (sin and cos reduce exactly), at an angle a turn changes
            value = math.atan2(math.sin(value), math.cos(value))
        into[i] = value
    return True


def solve_target(
    options: np.ndarray,
    chain: np.ndarray,
    e: int,
    up: float,
    down: float,
    knobs: np.ndarray,
    found: np.ndarray,
    tx: float,
    ty: float,
    angles: np.ndarray,
    joints: np.ndarray,
    work: np.ndarray,
    spare: np.ndarray,
    trace: np.ndarray,
) -> tuple[float, float, bool, int, int, bool]:
    """One target from the start pose in ``angles[0]``: scale in, :func:`iterate`, scale out.

    ``chain`` (3, n) holds the lengths in chain units (``2**-e`` of the chain's) and
    the limits; ``knobs`` gets the step's options for this chain. On a limited chain
    ``found`` holds what the reach search found
    (:func:`ikchain.solvers.limited.reach_range`): ``min_error`` under the limits,
    and for DLS the nearest pose as a seed; unlimited, it is empty, and on a chain
    whose joints are free or fixed (``options[OPT_LIMITED]`` is ``FREE_OR_FIXED``:
    a lock) the same is found here, with ``spare`` (6) as scratch. On return
    ``angles[0]`` and ``joints[0]`` (m) hold the answer, ``trace`` its errors (m).
    Returns ``(error, min_error, reachable, iterations, code, certified)`` in metres;
    ``certified`` False: ``min_error`` is a lower bound (the search's budget ran out).
    """
    n = chain.shape[1]
    outer = options[OPT_OUTER]
    tolerance = options[OPT_TOLERANCE]
    if not within_floats(tx, ty, outer):
        return 0.0, 0.0, False, 0, TOO_FAR, True
    outer_unit = times(outer, -e, down)
    inner_unit = times(options[OPT_INNER], -e, down)
    knobs[KNOB_BIAS] = dls.BIAS * outer_unit**2
    unit_tol = unit_tolerance(tolerance, e, down, up)
    ux, uy, moved_in = unit_target(tx, ty, e, down)
    min_error = gap_to_annulus(norm(ux, uy), inner_unit, outer_unit)
    certified = True
    seed_error = math.inf
    seed_bend = 0  # a locked chain's nearest pose: the bend to make it with, when needed
    posed = False  # whether row SEED_ROW holds the nearest pose
    if found.size > 0:
        min_error = found[FOUND_MIN_ERROR]
        certified = found[FOUND_CERTIFIED] != 0.0
        copy_into(found[FOUND_POSE:], work[SEED_ROW], 0)
        posed = found[FOUND_POSED] != 0.0
    elif LOCKS and options[OPT_LIMITED] == FREE_OR_FIXED:  # what the search would find
        min_error = rigid_reach(
            chain[0], chain[1], chain[2], ux, uy, 0, work[SEED_ROW], spare, False
        )[0]
        if SEEDS:  # its nearest pose: made by the loop if it ever starts from it
            seed_bend = int(options[OPT_BEND])
    if SEEDS and posed:
        joints_into(chain[0], work[SEED_ROW], joints[1])  # row 1 is free until a step
        seed_error = norm(joints[1, n, 0] - ux, joints[1, n, 1] - uy)
    error, iterations, code = iterate(
        chain,
        knobs,
        ux,
        uy,
        min_error,
        unit_tol,
        int(options[OPT_MAX_ITERATIONS]),
        seed_error,
        seed_bend,
        angles,
        joints,
        work,
        spare,
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
        min_error = gap_to_annulus(norm(tx, ty), options[OPT_INNER], outer)
        if options[OPT_LIMITED] != 0.0:  # every pose is as far as the nearest, to the bit
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
def workspace(
    n: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One allocation for a range of targets' scratch: the chain in chain units and
    its limits (3, n), angles (2, n), joints (2, n + 1, 2), the step's work, the
    give, the seed and the start pose (STEP_ROWS + 3, n), the knobs, and 6 spare
    numbers (a locked chain's reach, :func:`solve_target`)."""
    rows = STEP_ROWS + 3
    knobs = len(KNOB_FIELDS)
    space = np.empty((5 + rows) * n + 4 * (n + 1) + knobs + 6)
    chain = space[: 3 * n].reshape((3, n))
    angles = space[3 * n : 5 * n].reshape((2, n))
    work = space[5 * n : (5 + rows) * n].reshape((rows, n))
    head = (5 + rows) * n + 4 * (n + 1)  # the end of the joints
    joints = space[(5 + rows) * n : head].reshape((2, n + 1, 2))
    return chain, angles, joints, work, space[head : head + knobs], space[head + knobs :]


def solve_range(
    data: np.ndarray,
    options: np.ndarray,
    targets: np.ndarray,
    starts: np.ndarray,
    rest: np.ndarray,
    give: np.ndarray,
    found: np.ndarray,
    out: np.ndarray,
    trace: np.ndarray,
    begin: int,
    end: int,
) -> None:
    """Targets ``begin`` to ``end`` of a batch (B, 2); a single target is a batch of one.

    ``data`` (3n) holds the lengths, then each joint's lower and upper limit (read
    where the chain is limited); ``options`` the solve's options (``units.OPT_*``).
    ``starts`` (B, n), (1, n), or (0, n) for the bent default; ``rest`` (n) the rest
    pose (DLS with a pull; any array without). ``give`` (n) each joint's give
    ``1 / (1 + stiffness)`` in [0, 1] (DLS and jt; ones for none). ``found``
    (B, n + 3) is what the reach search found for each target on a limited chain,
    (0, n + 3) for a free one.
    Row b of ``out`` (B, :func:`~ikchain.solvers.units.out_width` (n)) gets target
    b's angles, joints and ``units.RESULT_FIELDS``. ``trace`` (B, room, 1 + n) as in
    :func:`iterate`, or (0, 0, 1 + n) for none; rows after a target stopped are NaN.
    With ``options[OPT_FOLLOW]`` set, each target after ``begin`` starts from the
    answer written for the one before it, so a path runs in order on one thread.
    """
    n = data.size // 3
    chain, angles, joints, work, knobs, spare = workspace(n)
    e, up, down = chain_units(data[:n], options[OPT_OUTER], chain[0])
    copy_into(data[n : 2 * n], chain[1], 0)
    copy_into(data[2 * n :], chain[2], 0)
    lows, highs = chain[1], chain[2]
    limited = options[OPT_LIMITED] != 0.0
    knobs[KNOB_DAMPING] = options[OPT_DAMPING]
    knobs[KNOB_MAX_STEP] = options[OPT_MAX_STEP]
    knobs[KNOB_PULL] = options[OPT_PULL]
    knobs[KNOB_LIMITED] = options[OPT_LIMITED]
    if options[OPT_PULL] > 0.0:
        copy_into(rest, work[REST_ROW], 0)
    copy_into(give, work[GIVE_ROW], 0)
    bend = int(options[OPT_BEND])
    recording = trace.shape[0] > 0
    no_trace = np.empty((0, n + 1))
    none_found = np.empty(0)
    results = 3 * n + 2  # where a row's results begin, after the angles and joints
    following = options[OPT_FOLLOW] != 0.0  # each target from the last one's answer
    weight = options[OPT_WEIGHT]  # 1.0: no blend (ikchain.solvers.blend)
    blending = weight != 1.0
    for b in range(begin, end):
        row = out[b]
        has_start = starts.shape[0] > 0
        start = starts[b if starts.shape[0] > 1 else 0] if has_start else lows
        if following and b > begin:  # row b - 1 begins with its answer's angles
            has_start = True
            start = out[b - 1]
        if not start_pose(has_start, start, bend, limited, lows, highs, angles[0]):
            for k in range(row.size):
                row[k] = 0.0
            row[results + CODE_FIELD] = OUTSIDE_LIMITS
            continue
        if blending:
            copy_into(angles[0], work[START_ROW], 0)
        rows = trace[b] if recording else no_trace
        error, min_error, reachable, iterations, code, certified = solve_target(
            options,
            chain,
            e,
            up,
            down,
            knobs,
            found[b] if found.shape[0] > 0 else none_found,
            targets[b, 0],
            targets[b, 1],
            angles,
            joints,
            work,
            spare,
            rows,
        )
        copy_into(angles[0], row, 0)
        for i in range(n + 1):
            row[n + 2 * i] = joints[0, i, 0]
            row[n + 2 * i + 1] = joints[0, i, 1]
        row[results + ERROR] = error
        row[results + MIN_ERROR] = min_error
        row[results + REACHABLE] = 1.0 if reachable else 0.0
        row[results + ITERATIONS] = iterations
        row[results + CODE_FIELD] = code
        row[results + CERTIFIED] = 1.0 if certified else 0.0
        if blending:  # after all: the pose moved back toward the start by the weight
            blend_row(
                data[:n],
                work[START_ROW],
                weight,
                options[OPT_TOLERANCE],
                targets[b, 0],
                targets[b, 1],
                row,
                joints[1],
            )
        if recording:
            for k in range(iterations + 1, rows.shape[0]):
                for j in range(n + 1):
                    rows[k, j] = np.nan


#: What :func:`solve_range` takes (see ``compiled.kernel``).
SIGNATURE = (
    "void(float64[::1], float64[::1], float64[:, ::1], float64[:, ::1], float64[::1],"
    " float64[::1], float64[:, ::1], float64[:, ::1], float64[:, :, ::1], int64, int64)"
)
#: Whether a method starts from the reach search's nearest pose when it would stop
#: short of it (DLS); read by each method's copy of :func:`solve_target`.
SEEDS = False
#: Whether a method's loop finds a locked chain's reach itself (DLS and jt, the methods
#: that take a stiffness); the others' copies do not compile ``rigid.rigid_reach``.
LOCKS = False


def _method_loop(name: str, method_step: Callable[..., Any], seeds: bool, locks: bool) -> Any:
    """:func:`solve_range` for one method: the loop's functions, copied with ``step``
    (and ``SEEDS``, ``LOCKS``) bound to the method's, each compiled under the method's name.

    numba compiles a called function from the globals it was defined with, so each
    copy gets its own namespace, in which ``iterate`` and ``solve_target`` are the
    method's copies too.
    """
    namespace = dict(globals())
    namespace["step"] = method_step
    namespace["SEEDS"] = seeds
    namespace["LOCKS"] = locks
    for function in (iterate, solve_target):
        copy = types.FunctionType(function.__code__, namespace, f"{function.__name__}_{name}")
        copy.__qualname__ = copy.__name__
        namespace[function.__name__] = kernel()(copy)
    entry = types.FunctionType(solve_range.__code__, namespace, f"solve_{name}")
    entry.__qualname__ = entry.__name__
    entry.__doc__ = solve_range.__doc__
    return kernel(SIGNATURE)(entry)


#: Each iterative method's compiled loop, by its code (``methods.CODE``).
SOLVE: dict[int, Any] = {
    CCD: _method_loop("ccd", ccd.step, seeds=False, locks=False),
    FABRIK: _method_loop("fabrik", fabrik.step, seeds=False, locks=False),
    DLS: _method_loop("dls", dls.step, seeds=True, locks=True),
    JT: _method_loop("jt", transpose.step, seeds=False, locks=True),
}

#: Each iterative method's loop for one target's wrist with the hand then posed, in one
#: call (:func:`ikchain.solvers.tip.posed_range`), by the method's code.
POSED: dict[int, Any] = {code: posed_loop(name, SOLVE[code]) for name, code in CODE.items()}
