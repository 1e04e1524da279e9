"""The one iteration loop that every iterative solver runs.

The loop owns the budget (``max_iterations``), the goal (``tolerance``), the stop
rules and the trace; a solver supplies only its *step*: a function that takes the
current angles of the still-running targets and returns the next angles.

Stop rules, checked per target before the first step and after each one:

1. ``error <= tolerance``: converged.
2. The target is out of reach and ``error <= min_error + tolerance``: unreachable
   (the pose is as close as any pose can be).
3. The step changed no angle beyond rounding (a few units in the last place):
   stalled, since it would change nothing next time either.
4. The budget ran out: max_iterations.

The loop comes in two shapes with the same rules: :func:`iterate` over a flat batch
(numpy columns) and :func:`iterate_one` for one target in Python floats, which a
single solve through :func:`ikchain.solve` runs because numpy's per-call overhead
(some 0.5 µs a call) is many times the arithmetic of one small chain. Each solver
supplies a step for each (``make_step`` and ``make_step_one``). The stop rules are
therefore written twice, both in this module: vectorised in :func:`_stop_codes`, and
written out in :func:`iterate_one`'s loop. ``tests/test_perf_twins.py`` runs the two
loops on the same scripted steps and holds them to the same status codes,
iterations and traces, and each solver's two steps to the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ikchain.kinematics import HUGE, distance, end_from_angles, joints_one, norm_one
from ikchain.result import CODE_BY_STATUS, RUNNING, Status

FloatArray = NDArray[np.float64]

#: ``step(angles (m, n), target (m, 2), memory (m, k) or None) -> (angles, memory)``.
#: ``memory`` is per-target state the solver carries between iterations; solvers
#: without any pass ``None`` through. A step may return a third item, the tip of the
#: new pose, shape (m, 2), when it computed it on the way (exactly as
#: :func:`end_from_angles` would); otherwise the loop computes it.
Step = Callable[[FloatArray, FloatArray, FloatArray | None], tuple]

#: ``step_one(angles, xs, ys, tx, ty) -> (angles, xs, ys)``: one iteration for one
#: target, in Python floats. ``xs``, ``ys`` are the joints of the pose (root first,
#: tip last, n + 1 each, exactly as :func:`ikchain.kinematics.joints_one` gives them);
#: every step needs them, so the loop carries them, and the step returns the joints
#: of its new pose (the loop's tip and error, and the result's joints). A step must
#: not modify the lists it is given; it returns the same ones to stay where it is.
StepOne = Callable[
    [list[float], list[float], list[float], float, float],
    tuple[list[float], list[float], list[float]],
]

_CONVERGED = CODE_BY_STATUS[Status.CONVERGED]
_UNREACHABLE = CODE_BY_STATUS[Status.UNREACHABLE]
_STALLED = CODE_BY_STATUS[Status.STALLED]
_MAX_ITERATIONS = CODE_BY_STATUS[Status.MAX_ITERATIONS]

#: A change of at most this many machine epsilons (relative) counts as no change.
#: (A Python float: a numpy scalar would make every scalar comparison with it slow.)
_ROUNDING = 8.0 * float(np.finfo(np.float64).eps)


@dataclass
class LoopOutcome:
    """Final angles, iteration counts, status codes and optional trace, batch (B, ...)."""

    angles: FloatArray
    error: FloatArray
    iterations: NDArray[np.int64]
    codes: NDArray[np.int64]
    trace: FloatArray | None


def _stop_codes(
    error: FloatArray,
    min_error: FloatArray,
    tolerance: float,
    before: FloatArray | None,
    after: FloatArray | None,
) -> NDArray[np.int64]:
    """Status code per target for the stop rules 1-3 (RUNNING where none applies).

    ``before`` and ``after`` are the angles, shape (m, n), around the step just
    taken; ``None`` before the first step. :func:`iterate_one` applies the same
    rules to one target, written out in its loop.
    """
    codes = np.full(error.shape, RUNNING, dtype=np.int64)
    if before is not None:
        unchanged = np.all(
            np.abs(after - before) <= _ROUNDING * np.maximum(1.0, np.abs(before)), axis=-1
        )
        codes[unchanged] = _STALLED
    codes[(min_error > 0.0) & (error <= min_error + tolerance)] = _UNREACHABLE
    codes[error <= tolerance] = _CONVERGED
    return codes


# -- the loop, twice ----------------------------------------------------------------


def iterate(
    step: Step,
    lengths: FloatArray,
    angles: FloatArray,
    target: FloatArray,
    min_error: FloatArray,
    *,
    max_iterations: int,
    tolerance: float,
    memory: FloatArray | None = None,
    record_trace: bool = False,
) -> LoopOutcome:
    """Run ``step`` on a flat batch until every target has stopped.

    Parameters
    ----------
    step : Step
        One iteration of a solver.
    lengths : array, shape (n,)
        Bone lengths (m).
    angles : array, shape (B, n)
        Start poses (rad); not modified.
    target : array, shape (B, 2)
        Targets (m).
    min_error : array, shape (B,)
        Distance of each target to the reachable annulus (m).
    max_iterations : int
        Budget per target.
    tolerance : float
        Goal for the end error (m), > 0.
    memory : array, shape (B, k), optional
        Initial per-target solver memory.
    record_trace : bool
        Keep the end error before the first iteration and after each one.
    """
    angles = angles.copy()
    memory = None if memory is None else memory.copy()
    error = distance(end_from_angles(lengths, angles), target)
    codes = _stop_codes(error, min_error, tolerance, None, None)
    iterations = np.zeros(error.shape, dtype=np.int64)
    trace = [error.copy()] if record_trace else None

    for _ in range(max_iterations):
        active = np.flatnonzero(codes == RUNNING)
        if active.size == 0:
            break
        before = angles[active]
        active_target = target[active]
        stepped = step(before, active_target, None if memory is None else memory[active])
        after, new_memory = stepped[0], stepped[1]
        end = stepped[2] if len(stepped) > 2 else None
        if memory is not None:
            memory[active] = new_memory
        angles[active] = after
        iterations[active] += 1
        if end is None:
            end = end_from_angles(lengths, after)
        error[active] = distance(end, active_target)
        codes[active] = _stop_codes(error[active], min_error[active], tolerance, before, after)
        if trace is not None:
            row = np.full(error.shape, np.nan)
            row[active] = error[active]
            trace.append(row)

    codes[codes == RUNNING] = _MAX_ITERATIONS
    return LoopOutcome(
        angles=angles,
        error=error,
        iterations=iterations,
        codes=codes,
        trace=None if trace is None else np.stack(trace, axis=-1),
    )


def iterate_one(
    step: StepOne,
    lengths: list[float],
    angles: list[float],
    tx: float,
    ty: float,
    min_error: float,
    *,
    max_iterations: int,
    tolerance: float,
    record_trace: bool = False,
    _sqrt=math.sqrt,
) -> tuple[list[float], list[float], list[float], float, int, int, list[float] | None]:
    """:func:`iterate` for one target in Python floats, rule for rule and to the bit.

    Parameters are :func:`iterate`'s for a batch of one, as Python floats and lists
    (``step`` is a :data:`StepOne`). ``angles`` is not modified.

    Returns
    -------
    angles, xs, ys, error, iterations, code, trace
        The final pose, its joints (root first, tip last), its end error, the
        iterations used, the status code and, when asked for, the end error before
        the first iteration and after each one.
    """
    xs, ys = joints_one(lengths, angles)
    gx, gy = xs[-1] - tx, ys[-1] - ty
    error = norm_one(gx, gy)
    trace = [error] if record_trace else None
    iterations = 0
    before = None
    while True:
        # The stop rules, in their order (rules 1-3 are _stop_codes' for one target,
        # written out here because a call per iteration would cost more than them).
        if error <= tolerance:
            return angles, xs, ys, error, iterations, _CONVERGED, trace
        if min_error > 0.0 and error <= min_error + tolerance:
            return angles, xs, ys, error, iterations, _UNREACHABLE, trace
        if before is not None:
            for i, was in enumerate(before):  # all |after - before| <= _ROUNDING max(1, |before|)?
                change = angles[i] - was
                change = change if change >= 0.0 else -change
                size = was if was >= 0.0 else -was
                if not change <= _ROUNDING * (1.0 if size <= 1.0 else size):
                    break
            else:  # no angle changed beyond rounding
                return angles, xs, ys, error, iterations, _STALLED, trace
        if iterations >= max_iterations:
            return angles, xs, ys, error, iterations, _MAX_ITERATIONS, trace
        before = angles
        angles, xs, ys = step(angles, xs, ys, tx, ty)
        iterations += 1
        gx, gy = xs[-1] - tx, ys[-1] - ty
        error = _sqrt(gx * gx + gy * gy)  # norm_one, inline
        if not error < HUGE:
            error = norm_one(gx, gy)
        if trace is not None:
            trace.append(error)
