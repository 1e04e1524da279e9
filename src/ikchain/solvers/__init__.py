"""``solve()``: validate once, dispatch by method name, wrap the answer in a Result.

Each method names the options it uses; passing one it does not use is an error
rather than being silently ignored.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ikchain.chain import Chain
from ikchain.checks import (
    check_angles,
    check_bend,
    check_count,
    check_fraction,
    check_points,
    check_positive,
)
from ikchain.kinematics import (
    distance,
    joints_from_angles,
    min_error_from_target,
    norm_one,
)
from ikchain.result import CODE_BY_STATUS, STATUS_BY_CODE, Result, Status, make_result
from ikchain.solvers import analytic, ccd, dls, fabrik
from ikchain.solvers.loop import iterate, iterate_one

METHODS = ("analytic", "ccd", "fabrik", "dls")

#: Options each method uses, beyond the chain and the target.
OPTIONS: dict[str, frozenset[str]] = {
    "analytic": frozenset({"bend"}),
    "ccd": frozenset(
        {"init", "bend", "max_iterations", "tolerance", "damping", "max_step", "trace"}
    ),
    "fabrik": frozenset({"init", "bend", "max_iterations", "tolerance", "trace"}),
    "dls": frozenset({"init", "bend", "max_iterations", "tolerance", "damping", "trace"}),
}

DEFAULT_MAX_ITERATIONS = 200
DEFAULT_TOLERANCE = 1e-9
#: Each joint of the default start pose bends by this much (rad), times ``bend``:
#: slightly bent, never the collinear all-zero pose on which CCD stalls.
START_BEND = 0.2


def default_init(chain: Chain, bend: int = 1) -> NDArray[np.float64]:
    """The slightly bent start pose, shape (n,), kept inside any joint limits."""
    angles = np.full(chain.n_bones, bend * START_BEND)
    if chain.limits is not None:
        angles = np.clip(angles, chain.limits[:, 0], chain.limits[:, 1])
    return angles


def solve(
    chain: Chain,
    target: ArrayLike,
    method: str = "dls",
    *,
    init: ArrayLike | None = None,
    max_iterations: int | None = None,
    tolerance: float | None = None,
    damping: float | None = None,
    bend: int | None = None,
    max_step: float | None = None,
    trace: bool = False,
) -> Result:
    """Joint angles that bring the chain's tip to ``target``, or as close as possible.

    Parameters
    ----------
    chain : Chain
        The chain to pose.
    target : array_like, shape (..., 2)
        Target(s) for the tip (m). Leading dimensions form a batch.
    method : {"dls", "ccd", "fabrik", "analytic"}
        ``analytic`` is the two-bone closed form; the others iterate.
    init : array_like, shape (..., n), optional
        Start pose(s) (rad), broadcast against the targets' batch shape. Default: each
        joint bent by 0.2 rad in the direction of ``bend`` (iterative methods only).
    max_iterations : int, optional
        Iteration budget per target, >= 0. Default 200.
    tolerance : float, optional
        Goal for the end error (m), > 0. Default 1e-9.
    damping : float, optional
        Fraction in (0, 1] of each correcting step actually taken (``ccd`` and
        ``dls``). Default 1.
    bend : {+1, -1}, optional
        ``analytic``: the elbow branch (sign of the second joint's angle). Iterative
        methods: the direction in which the default start pose bends. Default +1.
        Cannot be combined with ``init``.
    max_step : float, optional
        ``ccd``: largest turn of one joint in one sweep (rad), > 0.
    trace : bool
        Record the end error before the first iteration and after each one.

    Returns
    -------
    Result
        Angles, joints, tip, error, reachability, iterations and status.

    Raises
    ------
    ValueError
        For any malformed input, naming what was expected and what was given, or an
        option the chosen method does not use.
    """
    if not isinstance(chain, Chain):
        raise ValueError(f"chain: expected an ikchain.Chain, got {type(chain).__name__}")
    allowed = OPTIONS.get(method) if isinstance(method, str) else None
    if allowed is None:
        raise ValueError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    if (
        (init is not None and "init" not in allowed)
        or (max_iterations is not None and "max_iterations" not in allowed)
        or (tolerance is not None and "tolerance" not in allowed)
        or (damping is not None and "damping" not in allowed)
        or (bend is not None and "bend" not in allowed)
        or (max_step is not None and "max_step" not in allowed)
        or (trace and "trace" not in allowed)
    ):
        _refuse_unused(method, init, max_iterations, tolerance, damping, bend, max_step, trace)
    if init is not None and bend is not None:
        raise ValueError("bend: chooses the default start pose; expected init or bend, got both")

    n = chain.n_bones
    lengths = chain.lengths
    point = _plain_point(target)
    if point is None:
        target = check_points(target, "target")
    bend = 1 if bend is None else check_bend(bend)

    if method == "analytic":
        if n != 2:
            raise ValueError(f"method 'analytic': expected a 2-bone chain, got {n} bones")
        if chain.limits is not None:
            raise ValueError("method 'analytic': expected a chain without joint limits, got limits")
        if point is not None:
            return _analytic_one(chain, point[0], point[1], bend)
        return _analytic_batch(chain, target, bend)

    if method == "fabrik" and chain.limits is not None:
        raise ValueError("method 'fabrik': expected a chain without joint limits, got limits")
    max_iterations = (
        DEFAULT_MAX_ITERATIONS
        if max_iterations is None
        else check_count(max_iterations, "max_iterations")
    )
    tolerance = DEFAULT_TOLERANCE if tolerance is None else check_positive(tolerance, "tolerance")
    damping = 1.0 if damping is None else check_fraction(damping, "damping")
    if max_step is not None:
        max_step = check_positive(max_step, "max_step")
    if point is not None:
        single = _iterative_one(
            chain, method, point, init, bend, max_iterations, tolerance, damping, max_step, trace
        )
        if single is not None:
            return single
        target = np.array(point)
    if init is None:
        start = default_init(chain, bend)
    else:
        start = check_angles(init, n, "init")
        _check_within_limits(chain, start)

    try:
        shape = np.broadcast_shapes(target.shape[:-1], start.shape[:-1])
    except ValueError:
        raise ValueError(
            f"init: expected a batch shape that broadcasts with target's {target.shape[:-1]}, "
            f"got {start.shape[:-1]}"
        ) from None
    flat_target = np.broadcast_to(target, (*shape, 2)).reshape(-1, 2)
    flat_start = np.broadcast_to(start, (*shape, n)).reshape(-1, n)

    if method == "ccd":
        step = ccd.make_step(lengths, damping, max_step, chain.limits)
    elif method == "fabrik":
        step = fabrik.make_step(lengths)
    else:
        step = dls.make_step(lengths, damping, chain.limits)
    start_memory = getattr(step, "start_memory", None)
    outcome = iterate(
        step,
        lengths,
        flat_start,
        flat_target,
        min_error_from_target(lengths, flat_target),
        max_iterations=max_iterations,
        tolerance=tolerance,
        memory=None if start_memory is None else start_memory(flat_start),
        record_trace=trace,
    )
    return _result(
        chain,
        np.broadcast_to(target, (*shape, 2)),
        outcome.angles.reshape(*shape, n),
        method,
        iterations=outcome.iterations.reshape(shape),
        codes=outcome.codes.reshape(shape),
        trace=None if outcome.trace is None else outcome.trace.reshape(*shape, -1),
    )


def _refuse_unused(method, init, max_iterations, tolerance, damping, bend, max_step, trace):
    given = {
        name
        for name, value in (
            ("init", init),
            ("max_iterations", max_iterations),
            ("tolerance", tolerance),
            ("damping", damping),
            ("bend", bend),
            ("max_step", max_step),
            ("trace", trace or None),
        )
        if value is not None
    }
    unused = sorted(given - OPTIONS[method])
    raise ValueError(
        f"method {method!r} takes only {', '.join(sorted(OPTIONS[method]))}; "
        f"got {', '.join(unused)}"
    )


_FLOAT_TYPES = (float, int, np.float64)


def _plain_point(target: Any) -> tuple[float, float] | None:
    """``(tx, ty)`` as Python floats when ``target`` is plainly one finite point.

    A list or tuple of two Python numbers, or a float64 array of shape (2,). Anything
    else (including every malformed input) returns None and goes through
    :func:`check_points`, which gives the same numbers and the error messages.
    """
    kind = type(target)
    if kind is list or kind is tuple:
        if len(target) != 2:
            return None
        tx, ty = target
        if type(tx) not in _FLOAT_TYPES or type(ty) not in _FLOAT_TYPES:
            return None
        tx, ty = float(tx), float(ty)
    elif kind is np.ndarray:
        if target.shape != (2,) or target.dtype != np.float64:
            return None
        tx, ty = target.tolist()
    else:
        return None
    if not (math.isfinite(tx) and math.isfinite(ty)):
        return None
    return tx, ty


_STATUS_OBJECTS = np.array(STATUS_BY_CODE, dtype=object)
_CONVERGED = Status.CONVERGED
_UNREACHABLE = Status.UNREACHABLE
_CONVERGED_CODE = CODE_BY_STATUS[Status.CONVERGED]
_UNREACHABLE_CODE = CODE_BY_STATUS[Status.UNREACHABLE]


def _analytic_one(chain: Chain, tx: float, ty: float, bend: int) -> Result:
    """One analytic solve in Python floats (:func:`analytic.solve_one`)."""
    l1, l2 = chain.lengths.tolist()
    a0, da, ex, ey, px, py, error, min_error, _ = analytic.solve_one(l1, l2, tx, ty, bend)
    # For two bones the chain's radii are the closed form's own |L1 - L2| and L1 + L2,
    # so min_error is min_error_from_target's to the bit (tests/test_perf_twins.py).
    reachable = min_error == 0.0
    buffer = np.array((a0, da, 0.0, 0.0, ex, ey, px, py, tx, ty))
    joints = buffer[2:8]
    joints.shape = (3, 2)
    return make_result(
        buffer[0:2],
        joints,
        joints[2],
        buffer[8:10],
        error,
        min_error,
        reachable,
        0,
        _CONVERGED if reachable else _UNREACHABLE,
        "analytic",
        None,
    )


def _analytic_batch(chain: Chain, target: NDArray[np.float64], bend: int) -> Result:
    """The closed form over a batch (:func:`analytic.solve_batch`)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # min_error is min_error_from_target's to the bit: for two bones the chain's
        # radii are the closed form's own |L1 - L2| and L1 + L2 (test_perf_twins.py).
        angles, joints, error, min_error, _ = analytic.solve_batch(chain.lengths, target, bend)
    reachable = min_error == 0.0
    codes = np.where(reachable, _CONVERGED_CODE, _UNREACHABLE_CODE)
    status = np.take(_STATUS_OBJECTS, codes)
    fields = (error, min_error, reachable, np.zeros(error.shape, dtype=np.int64), status)
    if target.ndim == 1:
        fields = tuple(_scalar(value) for value in fields)
    return make_result(
        angles, joints, joints[..., -1, :], np.array(target), *fields, "analytic", None
    )


def _plain_angles(init: Any, n: int) -> list[float] | None:
    """``init`` as a list of ``n`` finite Python floats when it plainly is one pose."""
    kind = type(init)
    if kind is list or kind is tuple:
        if len(init) != n:
            return None
        for value in init:
            if type(value) not in _FLOAT_TYPES:
                return None
        angles = [float(value) for value in init]
    elif kind is np.ndarray:
        if init.shape != (n,) or init.dtype != np.float64:
            return None
        angles = init.tolist()
    else:
        return None
    for value in angles:
        if not math.isfinite(value):
            return None
    return angles


def _step_one(method, lengths, total_length, damping, max_step, limits):
    """The scalar step of ``method`` (a :data:`loop.StepOne`) for these options."""
    if method == "ccd":
        return ccd.make_step_one(lengths, damping, max_step, limits)
    if method == "fabrik":
        return fabrik.make_step_one(lengths)
    return dls.make_step_one(lengths, total_length, damping, limits)


#: :func:`_step_one` for chains without joint limits, built once for each set of
#: options: building a step costs as much as a few iterations' overhead, and a drag
#: asks for the same chain and options every frame. A step holds only the numbers it
#: was built with, all immutable, so sharing one is safe. (Chains with limits are
#: not cached: equal keys would merge limits of 0.0 and -0.0, which clip to
#: differently signed zeros.)
_cached_step_one = functools.lru_cache(maxsize=128)(_step_one)


def _iterative_one(
    chain, method, point, init, bend, max_iterations, tolerance, damping, max_step, trace
):
    """One CCD, FABRIK or DLS solve in Python floats, or None to go the batch way.

    :func:`iterate_one` running the method's scalar step (``make_step_one``), the
    batch path's loop and step for one target. Validation is the batch path's, in
    the same order, so the same input raises the same error either way; the options
    arrive validated by :func:`solve`.
    """
    n = chain.n_bones
    if init is None:
        start = None
    else:
        start = _plain_angles(init, n)
        if start is None:
            return None
    limits = None if chain.limits is None else [tuple(row) for row in chain.limits.tolist()]
    if start is None:  # default_init, in Python floats
        bent = bend * START_BEND
        if limits is None:
            start = [bent] * n
        else:
            start = [min(max(bent, low), high) for low, high in limits]
    elif limits is not None:
        _check_within_limits(chain, np.array(start))
    tx, ty = point
    lengths = chain.lengths.tolist()
    radius = norm_one(tx, ty)
    outside, inside = radius - chain.outer_radius, chain.inner_radius - radius
    worst = outside if outside >= inside else inside
    min_error = 0.0 if worst <= 0.0 else worst
    if limits is None:
        step = _cached_step_one(method, tuple(lengths), chain.outer_radius, damping, max_step, None)
    else:
        step = _step_one(method, lengths, chain.outer_radius, damping, max_step, limits)
    angles, xs, ys, error, iterations, code, record = iterate_one(
        step,
        lengths,
        start,
        tx,
        ty,
        min_error,
        max_iterations=max_iterations,
        tolerance=tolerance,
        record_trace=trace,
    )
    # angles, joints (x, y interleaved, as joints_from_angles lays them out), target
    size = 3 * n + 4
    flat = [0.0] * size
    flat[:n] = angles
    flat[n : size - 2 : 2] = xs
    flat[n + 1 : size - 2 : 2] = ys
    flat[size - 2 :] = point
    buffer = np.array(flat)
    joints = buffer[n : size - 2]
    joints.shape = (n + 1, 2)
    return make_result(
        buffer[:n],
        joints,
        joints[n],
        buffer[size - 2 :],
        error,
        min_error,
        min_error == 0.0,
        iterations,
        STATUS_BY_CODE[code],
        method,
        None if record is None else np.array(record),
    )


def _check_within_limits(chain: Chain, angles: NDArray[np.float64]) -> None:
    if chain.limits is None:
        return
    low, high = chain.limits[:, 0], chain.limits[:, 1]
    outside = (angles < low) | (angles > high)
    if np.any(outside):
        joint = int(np.argwhere(outside)[0][-1])
        raise ValueError(
            f"init: expected angles within the joint limits, got joint {joint} outside "
            f"[{low[joint]!r}, {high[joint]!r}]"
        )


def _result(
    chain: Chain,
    target: NDArray[np.float64],
    angles: NDArray[np.float64],
    method: str,
    *,
    iterations: NDArray[np.int64] | None,
    codes: NDArray[np.int64] | None,
    trace: NDArray[np.float64] | None,
) -> Result:
    """Assemble a Result; error and reachability come from the final pose itself."""
    joints = joints_from_angles(chain.lengths, angles)
    end = joints[..., -1, :]
    error = distance(end, target)
    min_error = min_error_from_target(chain.lengths, target)
    reachable = min_error == 0.0
    if codes is None:  # closed form: exact where reachable, the nearest pose elsewhere
        codes = np.where(
            reachable, CODE_BY_STATUS[Status.CONVERGED], CODE_BY_STATUS[Status.UNREACHABLE]
        )
        iterations = np.zeros(error.shape, dtype=np.int64)
    status = np.array(STATUS_BY_CODE, dtype=object)[codes]
    fields: dict[str, Any] = {
        "error": error,
        "min_error": min_error,
        "reachable": reachable,
        "iterations": iterations,
        "status": status,
    }
    if target.ndim == 1:  # a single target: plain Python scalars, a Status
        fields = {name: _scalar(value) for name, value in fields.items()}
    return make_result(
        angles,
        joints,
        end,
        np.array(target),
        fields["error"],
        fields["min_error"],
        fields["reachable"],
        fields["iterations"],
        fields["status"],
        method,
        trace,
    )


def _scalar(value: Any) -> Any:
    """A 0-d array or numpy scalar as the Python scalar it holds (a Status stays)."""
    if isinstance(value, np.ndarray):
        value = value[()]
    return value.item() if isinstance(value, np.generic) else value
