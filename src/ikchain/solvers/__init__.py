"""``solve()``: validate once, pick the path (one target or a batch), run the compiled loop.

Each method names the options it uses (:data:`OPTIONS`); passing one it does not use
is an error rather than being silently ignored. The kernels (numba) are imported on
the first solve, not with ``import ikchain``; :func:`compile_kernels` loads or
compiles them all ahead of time (the lesson server calls it before it serves).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ikchain.chain import Chain
from ikchain.checks import (
    check_angles,
    check_batch_shape,
    check_bend,
    check_count,
    check_fraction,
    check_points,
    check_positive,
    check_real,
)
from ikchain.result import Result, result_from_out
from ikchain.solvers import threads
from ikchain.solvers.methods import (
    BONES,
    CODE,
    DEFAULT_DAMPING,
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_REST_WEIGHT,
    DEFAULT_TOLERANCE,
    ITERATIVE,
    METHODS,
    OPTIONS,
    START_BEND,
    TAKES_LIMITS,
)
from ikchain.solvers.records import CODE as CODE_FIELD
from ikchain.solvers.records import ITERATIONS, OPT_FOLLOW, OUTSIDE_LIMITS, out_width

__all__ = [
    "BONES",
    "DEFAULT_MAX_ITERATIONS",
    "DEFAULT_TOLERANCE",
    "ITERATIVE",
    "METHODS",
    "OPTIONS",
    "START_BEND",
    "TAKES_LIMITS",
    "compile_kernels",
    "default_init",
    "follow",
    "interpret",
    "solve",
]

#: Iteration counts beyond this are the same as infinite (and are exact in the options
#: record's float64).
_ENDLESS = 2**53
#: A single solve's trace has room for this many entries before it is run again
#: with room for all of them (the loop is deterministic).
_TRACE_ROOM = 1025
#: A batch's traces take at most this many floats before the same re-run.
_BATCH_TRACE_FLOATS = 1 << 22
_NO_REST = np.empty(0)
_NO_POINTS = np.empty((0, 2))
_EMPTY: dict[int, tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]] = {}


def _kernels() -> tuple[ModuleType, ModuleType, ModuleType]:
    """The kernel modules, imported (with numba) on first use."""
    from ikchain.solvers import analytic, limited, loop

    global _kernels_cached
    _kernels_cached = (loop, analytic, limited)
    return _kernels_cached


_kernels_cached: tuple[ModuleType, ModuleType, ModuleType] | None = None


def compile_kernels(progress: Callable[[int, int, str], None] | None = None) -> None:
    """Compile every solver kernel now (from numba's disk cache when it is warm).

    Without this the first solve of each kind compiles its kernel, which takes
    seconds when the cache is cold; the lesson server calls it before it serves.
    ``progress(done, total, name)`` is called before each kernel and at the end.
    """
    from ikchain.solvers import compiled

    _kernels()
    compiled.compile_all(progress)


def interpret() -> None:
    """Run the kernels as plain Python in this process, without importing numba.

    The same code, giving the same answers to the bit; each solve runs about a
    hundred times slower, but nothing is compiled or loaded, so a process that makes
    one small solve (``ikchain solve``) answers in a fraction of a second, where
    loading the compiled kernels takes half a second and compiling them seconds.
    Call it before the first solve; ``IKCHAIN_JIT=0`` in the environment does the same.

    Raises
    ------
    RuntimeError
        If the kernels were already imported compiled.
    """
    from ikchain.solvers import mode

    compiled = sys.modules.get("ikchain.solvers.compiled")
    if compiled is not None and compiled.JIT:
        raise RuntimeError("interpret: expected no solve yet, got kernels already compiled")
    mode.INTERPRETED = True


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
    rest: ArrayLike | None = None,
    rest_weight: float | None = None,
    pole: ArrayLike | None = None,
    soft: float | None = None,
    out: Result | None = None,
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
        Goal for the end error (m), > 0. Default 1e-9. It stays in metres whatever the
        chain's size: below about ``ΣL · 1e-16`` no pose can meet it (rounding), and
        the solve ends ``stalled`` or ``max_iterations`` instead of ``converged``.
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
        Record the end error and the pose before the first iteration and after each
        one (``Result.trace``, ``Result.trace_angles``).
    rest : array_like, shape (n,), optional
        ``dls``: a rest pose (rad). Among the poses that reach the target (a family,
        with more than two joints) the solve drifts toward the one nearest ``rest``:
        each iteration adds a pull toward it within the motions that keep the tip
        still, to first order. The pull never stops convergence to a reachable
        target; it may cost iterations. It acts while the solve iterates: a start
        pose already within the tolerance is returned as it is.
    rest_weight : float, optional
        ``dls`` with ``rest``: strength of the pull, >= 0 (0: none). Each iteration
        moves ``w / (1 + w)`` of the way toward the rest pose. Default 1.
    pole : array_like, shape (2,), optional
        A point (m) the chain should bend toward, instead of ``bend``: the solve runs
        from both bends and keeps, per target, the answer whose interior joints lie
        more on the pole's side of the root-target line, unless the other ends nearer
        the target by more than the tolerance (:mod:`ikchain.solvers.pole` says exactly
        what this guarantees: with two bones, the elbow on the pole's side whenever that
        branch reaches as near).
    soft : float, optional
        Soft reach (m), in [0, ΣL - inner radius]: targets beyond ``ΣL - soft`` from the
        root are aimed at from an eased distance that approaches ΣL without reaching
        it, so a two-bone knee eases into full stretch instead of popping
        (:mod:`ikchain.solvers.soft`). ``error``, ``min_error`` and ``reachable`` stay
        those of the true target; a tip left short of it by the easing gets the status
        ``softened``, never ``converged``.
    out : Result, optional
        A Result of an earlier solve with as many targets and bones, whose memory
        this solve reuses instead of allocating its own: a caller solving a long
        series of chunks allocates the angles, joints and errors once. That earlier
        Result's arrays then show this solve's numbers (they are the same memory).

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
    return _solve(
        chain,
        target,
        method,
        (
            init,
            max_iterations,
            tolerance,
            damping,
            bend,
            max_step,
            trace or None,
            rest,
            rest_weight,
            pole,
            soft,
        ),
        out,
        False,
    )


def follow(
    chain: Chain,
    path: ArrayLike,
    method: str = "dls",
    *,
    init: ArrayLike | None = None,
    max_iterations: int | None = None,
    tolerance: float | None = None,
    damping: float | None = None,
    bend: int | None = None,
    max_step: float | None = None,
    trace: bool = False,
    rest: ArrayLike | None = None,
    rest_weight: float | None = None,
    soft: float | None = None,
    out: Result | None = None,
) -> Result:
    """Solve a path of targets in order, each from the answer for the one before it.

    This is how an animation solves a moving target frame by frame (warm starts):
    one call for the whole path instead of one :func:`solve` a frame, with the same
    answers, to the bit, as that loop of solves each given the last one's angles as
    ``init``.

    Parameters
    ----------
    chain : Chain
        The chain to pose.
    path : array_like, shape (k, 2)
        The targets (m), in the order they are solved.
    method : {"dls", "ccd", "fabrik"}
        An iterative method (the closed form has no start pose to carry over).
    init : array_like, shape (n,), optional
        The first target's start pose (rad). Default: the bent start pose of
        :func:`solve` (``bend``).
    max_iterations, tolerance, damping, bend, max_step, trace, rest, rest_weight, soft, out
        As in :func:`solve`, each per target of the path (with ``soft``, each target is
        eased before the path is followed, and reported against the true one).

    Returns
    -------
    Result
        A batch of shape (k,): row i is target i's answer.

    Raises
    ------
    ValueError
        For a malformed path or start pose, a method without iterations, or an option
        the method does not use, naming what was expected and what was given.
    """
    if method not in ITERATIVE:
        raise ValueError(
            f"method: expected one of {', '.join(ITERATIVE)} to follow a path, got {method!r}"
        )
    points = check_points(path, "path")
    if points.ndim != 2:
        raise ValueError(f"path: expected shape (k, 2), one target a row, got shape {points.shape}")
    _check_chain(chain)
    if init is not None:
        pose = check_angles(init, chain.n_bones, "init")
        if pose.shape != (chain.n_bones,):
            raise ValueError(
                f"init: expected the first target's start pose, shape ({chain.n_bones},), "
                f"got shape {pose.shape}"
            )
    given = (
        init,
        max_iterations,
        tolerance,
        damping,
        bend,
        max_step,
        trace or None,
        rest,
        rest_weight,
        None,
        soft,
    )
    return _solve(chain, points, method, given, out, True)


def _solve(
    chain: Chain,
    target: ArrayLike,
    method: str,
    given: tuple[Any, ...],
    out: Result | None,
    following: bool,
) -> Result:
    """:func:`solve` (``following`` False) and :func:`follow`: ``given`` holds the
    options in the order of ``_OPTION_NAMES``."""
    _check_chain(chain)
    allowed = OPTIONS.get(method) if isinstance(method, str) else None
    if allowed is None:
        raise ValueError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    (
        init,
        max_iterations,
        tolerance,
        damping,
        bend,
        max_step,
        trace,
        rest,
        rest_weight,
        pole,
        soft,
    ) = given
    for i in _REFUSED[method]:  # the options this method does not take (from OPTIONS)
        if given[i] is not None:
            _refuse_options(method, allowed, given)
    if init is not None and bend is not None:
        raise ValueError("bend: chooses the default start pose; expected init or bend, got both")
    if pole is not None:
        return _toward_pole(chain, target, method, pole, given, out)
    if soft is not None:
        return _softly(chain, target, method, soft, given, out, following)
    into = None if out is None else _memory_of(out)
    point = _plain_point(target)
    points = _NO_POINTS if point is not None else check_points(target, "target")
    bend = 1 if bend is None else check_bend(bend)
    _check_chain_for(chain, method)
    n = chain.n_bones
    if method == "analytic":
        return _analytic(chain, point, points, bend, into)
    budget = (
        DEFAULT_MAX_ITERATIONS
        if max_iterations is None
        else min(check_count(max_iterations, "max_iterations"), _ENDLESS)
    )
    goal = DEFAULT_TOLERANCE if tolerance is None else check_positive(tolerance, "tolerance")
    fraction = DEFAULT_DAMPING if damping is None else check_fraction(damping, "damping")
    cap = math.inf if max_step is None else check_positive(max_step, "max_step")
    pull, toward = _check_rest(chain, rest, rest_weight)
    options = _options(chain, bend, budget, goal, fraction, cap, pull, following)
    if point is not None:
        has_start = _plain_start(chain.n_bones, init)
        if has_start is not None:  # one target, one start pose: a batch of one
            starts = np.array((init,), dtype=np.float64) if has_start else _nothing(n, "starts")
            targets = np.empty((1, 2))  # half the cost of np.array((point,))
            targets[0, 0], targets[0, 1] = point
            return _iterate(
                chain, method, targets, (), starts, options, trace, toward, budget, into
            )
        points = np.array(point)
    return _iterate_many(chain, method, points, init, options, trace, toward, budget, into)


#: Every option ``solve()`` takes, in the order of its signature; ``_REFUSED`` lists, for
#: each method, the positions of those its OPTIONS entry leaves out.
_OPTION_NAMES = (
    "init",
    "max_iterations",
    "tolerance",
    "damping",
    "bend",
    "max_step",
    "trace",
    "rest",
    "rest_weight",
    "pole",
    "soft",
)
_REFUSED: dict[str, tuple[int, ...]] = {
    method: tuple(i for i, name in enumerate(_OPTION_NAMES) if name not in allowed)
    for method, allowed in OPTIONS.items()
}


def _refuse_options(method: str, allowed: frozenset[str], given: tuple[Any, ...]) -> None:
    unused = [
        name
        for name, value in zip(_OPTION_NAMES, given, strict=True)
        if value is not None and name not in allowed
    ]
    raise ValueError(
        f"method {method!r} takes only {', '.join(sorted(allowed))}; got {', '.join(unused)}"
    )


def _toward_pole(
    chain: Chain, target: ArrayLike, method: str, pole: ArrayLike, given: tuple[Any, ...], out: Any
) -> Result:
    """``solve`` with ``pole`` (see :mod:`ikchain.solvers.pole`): both bends, then a choice."""
    from ikchain.solvers.pole import toward_pole

    named = dict(zip(_OPTION_NAMES, given, strict=True))
    for name, value in (("bend", named["bend"]), ("init", named["init"]), ("out", out)):
        if value is not None:
            raise ValueError(
                f"pole: chooses the bend from both bent start poses; expected {name} or pole, "
                "got both"
            )
    point = check_points(pole, "pole")
    if point.shape != (2,):
        raise ValueError(f"pole: expected one point, shape (2,), got shape {point.shape}")
    options = {name: value for name, value in named.items() if value is not None and name != "pole"}
    tolerance = named["tolerance"]
    goal = DEFAULT_TOLERANCE if tolerance is None else check_positive(tolerance, "tolerance")
    return toward_pole(
        lambda **start: solve(chain, target, method, **options, **start),
        np.array(point, dtype=np.float64),
        goal,
        chain.limits,
    )


def _softly(
    chain: Chain,
    target: ArrayLike,
    method: str,
    soft: Any,
    given: tuple[Any, ...],
    out: Any,
    following: bool,
) -> Result:
    """``solve`` (or ``follow``) with ``soft`` (see :mod:`ikchain.solvers.soft`): aim at
    the eased targets, then report against the true ones."""
    from ikchain.solvers import soft as softening

    distance = softening.check_soft(chain, soft)
    points = check_points(target, "target" if not following else "path")
    named = dict(zip(_OPTION_NAMES, given, strict=True))
    tolerance = named["tolerance"]
    goal = DEFAULT_TOLERANCE if tolerance is None else check_positive(tolerance, "tolerance")
    aimed = (*given[:-1], None)  # the same options without soft (the last of _OPTION_NAMES)
    # the true targets unsolved: their reach (and what a solve without soft refuses)
    plain: dict[str, Any] = {
        name: named[name] for name in ("init", "bend") if named[name] is not None
    }
    if method != "analytic":
        plain["max_iterations"] = 0
    return softening.soften(
        chain,
        points,
        distance,
        goal,
        lambda eased: _solve(chain, eased, method, aimed, out, following),
        lambda true: solve(chain, true, method, **plain),
    )


def _check_rest(
    chain: Chain, rest: ArrayLike | None, rest_weight: float | None
) -> tuple[float, NDArray[np.float64]]:
    """The rest pose's gain ``w / (1 + w)`` and the pose ((0,) for none)."""
    if rest is None:
        if rest_weight is not None:
            raise ValueError("rest_weight: weighs the pull toward a rest pose; expected rest too")
        return 0.0, _NO_REST
    pose = check_angles(rest, chain.n_bones, "rest")
    if pose.shape != (chain.n_bones,):
        raise ValueError(
            f"rest: expected one pose, shape ({chain.n_bones},), got shape {pose.shape}"
        )
    weight = DEFAULT_REST_WEIGHT if rest_weight is None else check_real(rest_weight, "rest_weight")
    if weight < 0.0:
        raise ValueError(f"rest_weight: expected a number >= 0, got {weight}")
    return weight / (1.0 + weight), np.array(pose, dtype=np.float64)


def _check_chain(chain: Any) -> None:
    if not isinstance(chain, Chain):
        raise ValueError(f"chain: expected an ikchain.Chain, got {type(chain).__name__}")


def _check_chain_for(chain: Chain, method: str) -> None:
    bones = BONES[method]
    if bones is not None and chain.n_bones != bones:
        raise ValueError(
            f"method {method!r}: expected a {bones}-bone chain, got {chain.n_bones} bones"
        )


_FLOAT_TYPES = (float, int, np.float64)
_LARGEST = sys.float_info.max


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
        try:
            tx, ty = float(tx), float(ty)
        except OverflowError:  # an int beyond floats: check_points says so
            return None
    elif kind is np.ndarray:
        if target.shape != (2,) or target.dtype != np.float64:
            return None
        tx, ty = target.tolist()
    else:
        return None
    if not (math.isfinite(tx) and math.isfinite(ty)):
        return None
    return tx, ty


def _plain_start(n: int, init: Any) -> bool | None:
    """Whether ``init`` is one start pose (True), the default (False, for None), or
    neither plainly (None: the batch path checks it)."""
    if init is None:
        return False
    kind = type(init)
    if kind is list or kind is tuple:
        if len(init) != n:
            return None
        for value in init:  # finite floats and ints that fit (NaN fails the test too)
            if type(value) not in _FLOAT_TYPES or not -_LARGEST <= value <= _LARGEST:
                return None
        return True
    if kind is np.ndarray:
        if init.shape != (n,) or init.dtype != np.float64:
            return None
        for value in init.tolist():
            if not -_LARGEST <= value <= _LARGEST:
                return None
        return True
    return None


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


def _too_far(chain: Chain, target: NDArray[np.float64], codes: NDArray[np.int64]) -> None:
    """Raise for the first target whose distances are not all representable."""
    if codes.size == 0 or codes.min() >= 0:
        return
    bad = np.argwhere(codes < 0)
    where = tuple(int(i) for i in bad[0])
    point = target[where] if target.ndim > 1 else target
    raise ValueError(
        f"target: expected |target| + ΣL below {np.finfo(np.float64).max:.3g} m (every "
        f"distance a finite float), got {point.tolist()} with ΣL = {chain.outer_radius!r}"
        + (f" at index {where}" if target.ndim > 1 else "")
    )


def _analytic(
    chain: Chain,
    point: tuple[float, float] | None,
    target: NDArray[np.float64],
    bend: int,
    into: NDArray[np.float64] | None,
) -> Result:
    _, analytic, _ = _kernels_cached or _kernels()
    options = _options(chain, bend, 0, DEFAULT_TOLERANCE, DEFAULT_DAMPING, math.inf, 0.0, False)
    if point is not None:
        shape: tuple[int, ...] = ()
        flat = np.empty((1, 2))
        flat[0, 0], flat[0, 1] = point
    else:
        shape = target.shape[:-1]
        flat = np.array(target, dtype=np.float64).reshape(-1, 2)  # a copy: Result.target
    count = flat.shape[0]
    out = _out_array(into, count, 2)
    if count < threads.PARALLEL_FROM:  # the calling thread alone, as threads.run would
        analytic.solve_range(chain._kernel_data, options, flat, out, 0, count)
    else:
        threads.run(analytic.solve_range, (chain._kernel_data, options, flat, out), count)
    _check_codes(chain, flat, shape, out, 2, None)
    return result_from_out(out, shape, 2, flat, "analytic", limits=chain.limits)


def _memory_of(out: Any) -> NDArray[np.float64]:
    """The ``out`` array behind a Result (``solve(..., out=result)``)."""
    memory = out.__dict__.get("_out") if isinstance(out, Result) else None
    if memory is None:
        raise ValueError(
            f"out: expected a Result returned by ikchain.solve, got {type(out).__name__}"
        )
    return memory


def _out_array(into: NDArray[np.float64] | None, count: int, n: int) -> NDArray[np.float64]:
    """A solve's ``out`` (count, 3n + 8): ``into`` when given (it must fit), else new."""
    if into is None:
        return np.empty((count, out_width(n)))
    shape = (count, out_width(n))
    if into.shape != shape:
        bones = (into.shape[1] - out_width(0)) // 3
        got = f"{into.shape[0]} targets with {bones} bones"
        raise ValueError(
            f"out: expected a Result of {count} targets with {n} bones, got one of {got}"
        )
    return into


def _options(
    chain: Chain,
    bend: int,
    budget: int,
    goal: float,
    fraction: float,
    cap: float,
    pull: float,
    following: bool,
) -> NDArray[np.float64]:
    """The options record every kernel reads (``records.OPTION_FIELDS``, in that order).

    The same options come again and again (a drag solves one chain with one set of
    options), so the records made are kept, a few hundred at most: a lookup costs a
    third of making one. The kernels only read them.
    """
    key = (
        chain.outer_radius,
        chain.inner_radius,
        chain._limited,
        bend,
        budget,
        goal,
        fraction,
        cap,
        pull,
        1.0 if following else 0.0,
    )
    record = _RECORDS.get(key)
    if record is None:
        if len(_RECORDS) >= _RECORDS_KEPT:
            _RECORDS.clear()
        record = _RECORDS.setdefault(key, np.array(key, dtype=np.float64))
    return record


_RECORDS: dict[tuple[Any, ...], NDArray[np.float64]] = {}
_RECORDS_KEPT = 256


def _check_codes(
    chain: Chain,
    targets: NDArray[np.float64],
    shape: tuple[int, ...],
    out: NDArray[np.float64],
    n: int,
    starts: NDArray[np.float64] | None,
) -> None:
    """Raise for a target the kernel refused (a code < 0): beyond floats, or (``starts``
    given) a start pose outside the joint limits."""
    column = 3 * n + 2 + CODE_FIELD
    if out.shape[0] == 1:  # one target: a scalar test is ten times cheaper
        if out[0, column] >= 0.0:
            return
    elif out.shape[0] == 0 or out[:, column].min() >= 0.0:
        return
    codes = out[:, column]
    if starts is not None and (codes == OUTSIDE_LIMITS).any():
        _check_within_limits(chain, starts)
    _too_far(chain, targets.reshape(*shape, 2), codes.astype(np.int64).reshape(shape))


def _iterate(
    chain: Chain,
    method: str,
    targets: NDArray[np.float64],
    shape: tuple[int, ...],
    starts: NDArray[np.float64],
    options: NDArray[np.float64],
    trace: bool,
    rest: NDArray[np.float64],
    budget: int,
    into: NDArray[np.float64] | None,
) -> Result:
    """Targets (B, 2), C-ordered, from ``starts`` ((B, n), (1, n), or (0, n) for the
    default) through the method's loop (``loop.SOLVE``), a single target being a batch
    of one (``shape`` ``()``); on a limited chain the reach search runs first, once."""
    loop, _, limited = _kernels_cached or _kernels()
    n = chain.n_bones
    count = targets.shape[0]
    data = chain._kernel_data
    _, found, rows = _empties(n)
    if chain._limited:
        found = np.empty((count, n + 3))
        threads.run(limited.reach_range, (data, options, targets, found), count)
    out = _out_array(into, count, n)
    kernel = loop.SOLVE[CODE[method]]
    checked = starts if starts.shape[0] else None
    # the calling thread alone when that is what threads.run would do, and for a path
    # (follow), whose targets run in order
    alone = count < threads.PARALLEL_FROM or options[OPT_FOLLOW] != 0.0
    if not trace:
        if alone:
            kernel(data, options, targets, starts, rest, found, out, rows, 0, count)
        else:
            threads.run(kernel, (data, options, targets, starts, rest, found, out, rows), count)
        _check_codes(chain, targets, shape, out, n, checked)
        return result_from_out(out, shape, n, targets, method, None, chain.limits)
    # the loop is deterministic: if a trace overflows, it runs again with room for all
    room = min(budget + 1, _TRACE_ROOM, max(2, _BATCH_TRACE_FLOATS // max(1, count * (n + 1))))
    while True:
        rows = np.empty((count, room, n + 1))
        if alone:
            kernel(data, options, targets, starts, rest, found, out, rows, 0, count)
        else:
            threads.run(kernel, (data, options, targets, starts, rest, found, out, rows), count)
        _check_codes(chain, targets, shape, out, n, checked)
        longest = int(out[:, 3 * n + 2 + ITERATIONS].max()) + 1 if count else 1
        if longest <= room:
            return result_from_out(out, shape, n, targets, method, rows[:, :longest], chain.limits)
        room = longest


def _nothing(n: int, what: str) -> NDArray[np.float64]:
    """The empty array a kernel gets for no starts, no trace, or nothing found."""
    return _empties(n)[_EMPTY_KINDS.index(what)]


_EMPTY_KINDS = ("starts", "found", "trace")


def _empties(n: int) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """No starts (0, n), nothing found (0, n + 3) and no trace (0, 0, n + 1): made once
    per n (a single solve takes all three: one lookup)."""
    empties = _EMPTY.get(n)
    if empties is None:
        made = (np.empty((0, n)), np.empty((0, n + 3)), np.empty((0, 0, n + 1)))
        empties = _EMPTY.setdefault(n, made)
    return empties


def _iterate_many(
    chain: Chain,
    method: str,
    target: NDArray[np.float64],
    init: ArrayLike | None,
    options: NDArray[np.float64],
    trace: bool,
    rest: NDArray[np.float64],
    budget: int,
    into: NDArray[np.float64] | None,
) -> Result:
    """A batch (or one target with a batch of start poses): broadcast, then :func:`_iterate`."""
    n = chain.n_bones
    if init is None:
        start = _nothing(n, "starts")
        start_shape: tuple[int, ...] = ()
    else:
        start = check_angles(init, n, "init")
        _check_within_limits(chain, start)
        start_shape = start.shape[:-1]
    shape = check_batch_shape(target.shape[:-1], start_shape)
    # a C-ordered copy: a broadcast one copies in Fortran order, a layout the kernels
    # were not compiled for (the first such call would compile for seconds)
    targets = np.array(np.broadcast_to(target, (*shape, 2)).reshape(-1, 2), order="C")
    if init is not None:
        if start_shape == shape:
            start = np.ascontiguousarray(start.reshape(-1, n), dtype=np.float64)
        elif math.prod(start_shape) == 1:
            start = np.ascontiguousarray(start.reshape(1, n), dtype=np.float64)
        else:
            start = np.ascontiguousarray(np.broadcast_to(start, (*shape, n)).reshape(-1, n))
    return _iterate(chain, method, targets, shape, start, options, trace, rest, budget, into)
