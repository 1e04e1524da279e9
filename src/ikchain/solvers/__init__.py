"""``solve()`` and ``follow()``: a :class:`~ikchain.Solver` called once.

The modules, one concept each:

* :mod:`~ikchain.solvers.methods`: the table of methods, their options and defaults;
* :mod:`~ikchain.solvers.options`: the keywords checked once into named
  :class:`~ikchain.solvers.options.Options`;
* :mod:`~ikchain.solvers.solver`: :class:`~ikchain.Solver`, which owns them and calls the kernels;
* :mod:`~ikchain.solvers.steps`: what a Solver does before or after its kernel for a
  weight, the hand's angle, a pole, soft reach or a locked joint, each step's rule in
  its own module (:mod:`~ikchain.solvers.blend`, :mod:`~ikchain.solvers.angle`,
  :mod:`~ikchain.solvers.pole`, :mod:`~ikchain.solvers.soft`,
  :mod:`~ikchain.solvers.stiffness`);
* ``plain``: one point, one start pose or the default start, recognised plainly;
* :mod:`~ikchain.solvers.runner`: the kernel plumbing (arrays in, a Result out);
* ``loop``, ``ccd``, ``fabrik``, ``jt``, ``dls``, ``analytic``, ``limited``: the kernels.

Each method names the options it uses (:data:`OPTIONS`); passing one it does not use
is an error rather than being silently ignored. The kernels (numba) are imported on
the first solve, not with ``import ikchain``; :func:`compile_kernels` loads or
compiles them all ahead of time (the lesson server calls it before it serves).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from numpy.typing import ArrayLike

from ikchain.chain import Chain
from ikchain.result import Result
from ikchain.solvers.methods import (
    BONES,
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_TOLERANCE,
    ITERATIVE,
    METHODS,
    OPTIONS,
    START_BEND,
    TAKES_LIMITS,
)
from ikchain.solvers.options import Options
from ikchain.solvers.plain import default_init
from ikchain.solvers.solver import Solver

__all__ = [
    "BONES",
    "DEFAULT_MAX_ITERATIONS",
    "DEFAULT_TOLERANCE",
    "ITERATIVE",
    "METHODS",
    "OPTIONS",
    "START_BEND",
    "TAKES_LIMITS",
    "Options",
    "Solver",
    "compile_kernels",
    "default_init",
    "follow",
    "interpret",
    "solve",
]


def compile_kernels(progress: Callable[[int, int, str], None] | None = None) -> None:
    """Compile every solver kernel now (from numba's disk cache when it is warm).

    Without this the first solve of each kind compiles its kernel, which takes
    seconds when the cache is cold; the lesson server calls it before it serves.
    ``progress(done, total, name)`` is called before each kernel and at the end.
    """
    from ikchain.solvers import runner

    runner.compile_kernels(progress)  # (then solves with them, after plain Python maybe)


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
    weight: float | None = None,
    stiffness: ArrayLike | None = None,
    angle: float | None = None,
    out: Result | None = None,
) -> Result:
    """Joint angles that bring the chain's tip to ``target``, or as close as possible.

    Parameters
    ----------
    chain : Chain
        The chain to pose.
    target : array_like, shape (..., 2)
        Target(s) for the tip (m). Leading dimensions form a batch.
    method : {"dls", "ccd", "fabrik", "jt", "analytic"}
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
    weight : float, optional
        Blend weight in [0, 1]: the pose returned is ``start + weight * (answer -
        start)``, joint by joint, ``start`` being ``init`` (with ``analytic``, the pose
        to blend from) or the bent start pose: 0 gives the start pose, 1 (the default)
        the answer, each bit for bit; between them the pose stays within the joint
        limits (:mod:`ikchain.solvers.blend`). A blended tip off the target gets the
        status ``blended``; ``min_error`` and ``reachable`` stay the target's.
    stiffness : array_like, shape (n,), optional
        ``dls`` and ``jt``: each joint's stiffness, >= 0, ``inf`` allowed. Each step is
        the least change in the metric ``W = diag(1 + stiffness)``: ``dls`` solves
        ``min |J Δθ - e|² + λ² Δθᵀ W Δθ``, ``jt`` steps along ``W⁻¹ Jᵀ e``, so a stiff
        joint turns less (0: as without stiffness, to the bit). ``inf`` locks the
        joint at its start angle; ``reachable``, ``min_error`` and ``certified`` are
        then those of the chain with that joint locked
        (:mod:`ikchain.solvers.stiffness`).
    angle : float, optional
        The world angle (rad) of the last bone, the hand, whose tip is to reach the
        target; a chain of two bones or more whose last joint turns freely (no limits,
        or limits spanning a turn). The angle is met first, exactly: the first n - 1
        bones reach for the wrist ``target - l_n (cos angle, sin angle)`` by the same
        method (``analytic``: a three-bone chain, the two-bone form, ``bend`` choosing
        the branch), the last joint turns the rest of the way. ``min_error``,
        ``reachable`` and ``certified`` are those of the pose task: the wrist's reach
        by the first n - 1 bones, under their limits (:mod:`ikchain.solvers.angle`).
        Not with ``pole``, ``soft`` or ``trace``.
    out : Result, optional
        A Result of an earlier solve with as many targets and bones, whose memory
        this solve reuses instead of allocating its own: a caller solving a long
        series of chunks allocates the angles, joints and errors once. That Result
        is what this solve returns, every field of it now this solve's (the earlier
        answer is gone as a whole, never left half-overwritten). Not with ``pole``.

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
    if init is not None and bend is not None:
        raise ValueError("bend: chooses the default start pose; expected init or bend, got both")
    # made before, with the same options? (arrays are not hashable: made again)
    if (
        trace is False
        and max_iterations is None
        and damping is None
        and bend is None
        and max_step is None
        and rest is None
        and rest_weight is None
        and pole is None
        and soft is None
    ):  # a drag loop's call: the method, the tolerance and the options of a pose task
        # (a key of its own length, none of its items calling a function when not given)
        key: tuple[Any, ...] = (
            id(chain),
            method,
            tolerance,
            weight,
            None if stiffness is None else _items(stiffness),
            angle,
            type(tolerance),
            type(weight),
            type(angle),
        )
    else:
        key = _key(
            chain,
            method,
            max_iterations,
            tolerance,
            damping,
            bend,
            max_step,
            trace,
            rest_weight,
            soft,
            weight,
            stiffness,
            angle,
            rest,
            pole,
        )
    solver = _find(key)
    if solver is not None:
        return solver.solve(target, init, out=out)
    solver = Solver(
        chain,
        method,
        max_iterations=max_iterations,
        tolerance=tolerance,
        damping=damping,
        bend=bend,
        max_step=max_step,
        trace=trace,
        rest=rest,
        rest_weight=rest_weight,
        pole=pole,
        soft=soft,
        weight=weight,
        stiffness=stiffness,
        angle=angle,
    )
    _keep(key, solver)
    return solver.solve(target, init, out=out)


def _key(
    chain: Chain,
    method: str,
    max_iterations: Any,
    tolerance: Any,
    damping: Any,
    bend: Any,
    max_step: Any,
    trace: Any,
    rest_weight: Any,
    soft: Any,
    weight: Any,
    stiffness: Any = None,
    angle: Any = None,
    rest: Any = None,
    pole: Any = None,
) -> tuple[Any, ...]:
    """What ``solve()`` and ``follow()`` find their Solver by: the chain (by identity:
    the cache holds it, so no other object can take its id), the method, the option
    values and their types (1 == 1.0 == True, but only some of them are valid);
    ``stiffness``, ``rest`` and ``pole``, tuples or lists, by their items and theirs
    (anything else, an array, makes a key that cannot be hashed: the caller looks
    nothing up)."""
    return (
        id(chain),
        method,
        max_iterations,
        tolerance,
        damping,
        bend,
        max_step,
        trace,
        rest_weight,
        soft,
        weight,
        _items(stiffness),
        angle,
        _items(rest),
        _items(pole),
        type(max_iterations),
        type(tolerance),
        type(damping),
        type(bend),
        type(max_step),
        type(trace),
        type(rest_weight),
        type(soft),
        type(weight),
        type(angle),
    )


def _items(value: Any) -> Any:
    """A list or tuple option as a key: its kind, its items, then their types (one
    flat tuple: k items make 2k + 1 entries, so no two options share one); None as
    itself; anything else unhashable on purpose (an array: nothing looked up)."""
    if value is None:
        return None
    kind = type(value)
    if kind is tuple or kind is list:
        return (kind, *value, *map(type, value))
    return [value]


def _find(key: tuple[Any, ...]) -> Solver | None:
    """The Solver kept for ``key``, if any (a key holding an array or a malformed
    option cannot be looked up: None, and the Solver's checks say what is wrong)."""
    try:
        return _SOLVERS.get(key)
    except TypeError:
        return None


def _keep(key: tuple[Any, ...], solver: Solver) -> None:
    """Keep ``solver`` for calls with the same options (a drag makes the same call again
    and again, and making a Solver, checking every option, costs more than the solve);
    a few hundred at most."""
    try:
        hash(key)
    except TypeError:  # not to be found again (see _find)
        return
    if len(_SOLVERS) >= _SOLVERS_KEPT:
        _SOLVERS.clear()
    _SOLVERS[key] = solver


#: The Solvers ``solve()`` and ``follow()`` made, by :func:`_key`; each holds its chain.
_SOLVERS: dict[tuple[Any, ...], Solver] = {}
_SOLVERS_KEPT = 256


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
    weight: float | None = None,
    stiffness: ArrayLike | None = None,
    angle: float | None = None,
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
    weight : float, optional
        As in :func:`solve`: each frame starts from the previous frame's blended pose
        (the loop of weighted solves; not with ``trace`` or ``out``).
    stiffness : array_like, shape (n,), optional
        As in :func:`solve`: an infinite stiffness locks its joint at the first
        target's start angle for the whole path.
    angle : float, optional
        As in :func:`solve`: the hand at this world angle (rad) at every target.

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
    if init is not None and bend is not None:
        raise ValueError("bend: chooses the default start pose; expected init or bend, got both")
    options = (max_iterations, tolerance, damping, bend, max_step, trace, rest_weight)
    key = ("follow", *_key(chain, method, *options, soft, weight, stiffness, angle, rest))
    solver = _find(key)
    if solver is not None:
        return solver.follow(path, init, out=out)
    solver = Solver(
        chain,
        method,
        max_iterations=max_iterations,
        tolerance=tolerance,
        damping=damping,
        bend=bend,
        max_step=max_step,
        trace=trace,
        rest=rest,
        rest_weight=rest_weight,
        soft=soft,
        weight=weight,
        stiffness=stiffness,
        angle=angle,
    )
    _keep(key, solver)
    return solver.follow(path, init, out=out)
