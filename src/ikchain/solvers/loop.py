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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ikchain.kinematics import distance, end_from_angles
from ikchain.result import CODE_BY_STATUS, RUNNING, Status

FloatArray = NDArray[np.float64]

#: ``step(angles (m, n), target (m, 2), memory (m, k) or None) -> (angles, memory)``.
#: ``memory`` is per-target state the solver carries between iterations; solvers
#: without any pass ``None`` through. A step may return a third item, the tip of the
#: new pose, shape (m, 2), when it computed it on the way (exactly as
#: :func:`end_from_angles` would); otherwise the loop computes it.
Step = Callable[[FloatArray, FloatArray, FloatArray | None], tuple]

_CONVERGED = CODE_BY_STATUS[Status.CONVERGED]
_UNREACHABLE = CODE_BY_STATUS[Status.UNREACHABLE]
_STALLED = CODE_BY_STATUS[Status.STALLED]
_MAX_ITERATIONS = CODE_BY_STATUS[Status.MAX_ITERATIONS]

#: A change of at most this many machine epsilons (relative) counts as no change.
_ROUNDING = 8.0 * np.finfo(np.float64).eps


@dataclass
class LoopOutcome:
    """Final angles, iteration counts, status codes and optional trace, batch (B, ...)."""

    angles: FloatArray
    error: FloatArray
    iterations: NDArray[np.int64]
    codes: NDArray[np.int64]
    trace: FloatArray | None


def _stop_codes(
    error: FloatArray, min_error: FloatArray, tolerance: float, unchanged: NDArray[np.bool_] | None
) -> NDArray[np.int64]:
    """Status code per target for the stop rules 1-3 (RUNNING where none applies)."""
    codes = np.full(error.shape, RUNNING, dtype=np.int64)
    if unchanged is not None:
        codes[unchanged] = _STALLED
    codes[(min_error > 0.0) & (error <= min_error + tolerance)] = _UNREACHABLE
    codes[error <= tolerance] = _CONVERGED
    return codes


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
    codes = _stop_codes(error, min_error, tolerance, None)
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
        unchanged = np.all(
            np.abs(after - before) <= _ROUNDING * np.maximum(1.0, np.abs(before)), axis=-1
        )
        codes[active] = _stop_codes(error[active], min_error[active], tolerance, unchanged)
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
