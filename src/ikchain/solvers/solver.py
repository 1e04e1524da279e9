""":class:`~ikchain.Solver`: a chain, a method and its options, checked once; each call goes
straight to the kernel.

A drag loop, an animation or a server solves one chain with one set of options
again and again. A Solver validates them once (:mod:`~ikchain.solvers.options`),
keeps the record the kernels read, and on each call checks only the target and the
start pose. Every Result it returns has memory of its own: the next call never
writes into an earlier answer (``out=`` hands one back on purpose, and that Result
becomes the new answer as a whole).

What a Solver does before or after its kernel for a weight, the hand's angle, a
pole, soft reach or a locked joint lives in :mod:`~ikchain.solvers.steps` (its base
class); this module holds its calling convention and its straight path from one
plain target to the kernels.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ikchain.chain import Chain
from ikchain.checks import check_angles, check_points
from ikchain.result import Result, single_from_out
from ikchain.solvers import angle as tip_angle
from ikchain.solvers import runner
from ikchain.solvers.methods import CODE, ITERATIVE, OPTIONS
from ikchain.solvers.options import Options, options_from_keywords
from ikchain.solvers.plain import default_init, plain_point, plain_start
from ikchain.solvers.records import CODE as CODE_FIELD
from ikchain.solvers.records import OPT_WEIGHT, out_width
from ikchain.solvers.steps import Solving, Steps

_NO_REST = np.empty(0)


class Solver(Steps):
    """A chain, a method and its options, validated once, to solve many targets with.

    ``solver(target, init)`` solves one target, ``solver.batch(targets, init)`` many
    (leading ``...`` dimensions), ``solver.follow(path, init)`` a path in order, each
    target from the answer before it. :func:`ikchain.solve` is a Solver called once.

    Parameters
    ----------
    chain : Chain
        The chain to pose.
    method : {"dls", "ccd", "fabrik", "jt", "analytic"}
        ``analytic`` is the two-bone closed form; the others iterate.
    max_iterations, tolerance, damping, bend, max_step, trace, rest, rest_weight, pole, soft, weight
        As in :func:`ikchain.solve`. ``bend`` chooses the default start pose, used
        where a call gives no ``init``.
    stiffness : array_like, shape (n,), optional
        As in :func:`ikchain.solve` (``dls`` and ``jt``).
    angle : float, optional
        As in :func:`ikchain.solve` (``analytic``, three bones).

    Attributes
    ----------
    chain : Chain
        The chain it poses.
    method : str
        The method it runs.
    options : Options
        The checked options, defaults filled in.

    Raises
    ------
    ValueError
        For an option the method does not take or a value out of its range, naming
        what was expected and what was given.

    Examples
    --------
    >>> import ikchain
    >>> solver = ikchain.Solver(ikchain.Chain([0.8, 0.6]), "dls", tolerance=1e-9)
    >>> first = solver([1.0, 0.5])
    >>> second = solver([1.0, 0.55], init=first.angles)  # the next frame, warm
    >>> str(first.status), str(second.status), second.iterations <= first.iterations
    ('converged', 'converged', True)
    """

    __slots__ = (
        "_aimed",
        "_angle_alone",
        "_bent",
        "_code",
        "_empty",
        "_entry",
        "_give",
        "_hand",
        "_kernel",
        "_limited",
        "_lock_alone",
        "_lock_key",
        "_locked",
        "_locks",
        "_n",
        "_plain",
        "_record",
        "_rest",
        "_sides",
        "_truth",
        "_unweighted",
        "_width",
        "_wrist",
        "chain",
        "method",
        "options",
    )

    chain: Chain
    method: str
    options: Options

    def __init__(
        self,
        chain: Chain,
        method: str = "dls",
        *,
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
    ) -> None:
        options = options_from_keywords(
            chain,
            method,
            {
                "max_iterations": max_iterations,
                "tolerance": tolerance,
                "damping": damping,
                "bend": bend,
                "max_step": max_step,
                "trace": trace or None,
                "rest": rest,
                "rest_weight": rest_weight,
                "pole": pole,
                "soft": soft,
                "weight": weight,
                "stiffness": stiffness,
                "angle": angle,
            },
        )
        self.chain = chain
        self.method = method
        self.options = options
        self._n = chain.n_bones
        self._limited = chain._limited
        self._record = options.record
        self._rest = _NO_REST if options.rest is None else options.rest
        self._give = options.give
        # the joints an infinite stiffness locks (None: none), and a Solver of the chain
        # locked at each start seen (by the locked angles)
        stiff = options.stiffness
        self._locked = None if stiff is None or not np.isinf(stiff).any() else np.isinf(stiff)
        self._locks: dict[Any, Solving] = {}
        # a pose's locked angles, the key of its locked chain's Solver: the angle of one
        # locked joint, a tuple of them for more (one C call: a drag calls it each frame;
        # without a lock it is never called)
        held = [] if self._locked is None else np.flatnonzero(self._locked).tolist()
        self._lock_key: Callable[[Any], Any] = operator.itemgetter(*held) if held else tuple
        self._bent = None if self._locked is None else default_init(chain, options.bend).tolist()
        self._width = out_width(self._n)
        self._code = 3 * self._n + 2 + CODE_FIELD  # the status code's column of ``out``
        self._kernel = CODE.get(method, -1)  # the loop's kernel (``loop.SOLVE``); -1: analytic
        self._empty = runner.empties(self._n)  # no starts, nothing found, no trace
        self._entry: Any = None  # the kernel for one target, once compiled (_find_entry)
        self._sides: tuple[Solver, Solver] | None = None
        self._aimed: Solver | None = None
        self._truth: Solver | None = None
        self._unweighted: Solver | None = None
        self._wrist: Solver | None = None
        # after all: the blend, by the loop itself (the weight in the options record)
        # or here, around a closed form or a step around the solve
        if options.weight not in (None, 1.0) and options.record[OPT_WEIGHT] == 1.0:
            self._unweighted = Solver(chain, method, **options.keywords(weight=None))
        elif options.angle is not None:  # before: the first n - 1 bones to the wrist
            low = -math.inf if chain.limits is None else float(chain.limits[-1, 0])
            # the angle, the last bone (m), the last joint's lowest angle, and the lengths
            # (the bone and the lengths as the kernels take them: arrays, writable)
            self._hand = (
                options.angle,
                np.array(tip_angle.hand_from_angle(chain.lengths, options.angle)),
                low,
                np.array(chain.lengths),
            )
            stiffness, rest = options.stiffness, options.rest
            self._wrist = Solver(
                tip_angle.wrist_chain(chain),
                method,
                **options.keywords(
                    angle=None,
                    stiffness=None if stiffness is None else stiffness[:-1],
                    rest=None if rest is None else rest[:-1],
                ),
            )
        elif options.pole is not None:  # before: both bends (and a mirror), then a choice
            plain = options.keywords(pole=None)
            self._sides = (
                Solver(chain, method, **plain, bend=1),
                Solver(chain, method, **plain, bend=-1),
            )
        elif options.soft is not None:  # after: the eased targets' answer, told the truth
            self._aimed = Solver(chain, method, **options.keywords(soft=None))
            unsolved: dict[str, Any] = {"bend": options.bend} if options.bend_given else {}
            if method != "analytic":
                unsolved["max_iterations"] = 0
            if self._locked is not None:  # the truth about the locked chain's reach
                unsolved["stiffness"] = options.stiffness
            self._truth = Solver(chain, method, **unsolved)
        # one target, no step around it, no trace: straight to the kernel
        alone = (
            options.pole is None
            and options.soft is None
            and self._unweighted is None
            and self._wrist is None
            and not options.trace
        )
        self._plain = alone and self._locked is None
        # one target, a lock the only step around it, no trace: straight to the locked chain
        self._lock_alone = alone and self._locked is not None
        # one target, the hand's angle the only step (its wrist solve plain): straight on
        self._angle_alone = self._wrist is not None and self._wrist._plain

    def __repr__(self) -> str:
        given = ", ".join(f"{k}={v!r}" for k, v in self.options.keywords().items())
        return f"Solver({self.chain!r}, {self.method!r}{', ' if given else ''}{given})"

    def __call__(self, target: ArrayLike, init: ArrayLike | None = None) -> Result:
        """Solve for one target.

        Parameters
        ----------
        target : array_like, shape (2,)
            The target for the tip (m).
        init : array_like, shape (n,), optional
            The start pose (rad), for the iterative methods; default the bent pose.

        Returns
        -------
        Result
            One target's answer: scalar fields, a :class:`~ikchain.result.Status`.

        Raises
        ------
        ValueError
            For a target that is not one finite point or a start pose that is not one
            pose within the joint limits (:meth:`batch` solves many).
        """
        point = plain_point(target)
        if point is not None:
            answer = self._straight(point, init)
            if answer is not None:
                return answer
            if not (self._kernel < 0 and init is not None) and (
                init is None or plain_start(self._n, init) is not None
            ):  # another step around the solve (a blend, a pole, soft reach...): one
                # plain point and start need none of the checks below
                return self.solve(point, init)
        points = check_points(target, "target")
        if points.shape != (2,):
            raise ValueError(
                f"target: expected one point, shape (2,), got shape {points.shape} "
                "(Solver.batch solves many)"
            )
        if init is not None:
            pose = check_angles(init, self._n, "init")
            if pose.shape != (self._n,):
                raise ValueError(
                    f"init: expected one start pose, shape ({self._n},), got shape "
                    f"{pose.shape} (Solver.batch takes many)"
                )
        return self.solve(points, init)

    def batch(
        self, targets: ArrayLike, init: ArrayLike | None = None, *, out: Result | None = None
    ) -> Result:
        """Solve a batch of targets in one call.

        Parameters
        ----------
        targets : array_like, shape (..., 2)
            Targets (m); the leading dimensions form the batch.
        init : array_like, shape (..., n), optional
            Start poses (rad), broadcast against the targets' batch shape.
        out : Result, optional
            A Result of an earlier solve with as many targets and bones: this solve
            writes into its memory instead of allocating, and returns that Result,
            every field of it now this solve's (the earlier answer is gone, not left
            half-overwritten).

        Returns
        -------
        Result
            A field per target, with the batch shape in front.
        """
        return self.solve(targets, init, out=out)

    def follow(
        self, path: ArrayLike, init: ArrayLike | None = None, *, out: Result | None = None
    ) -> Result:
        """Solve a path of targets in order, each from the answer for the one before it.

        The same answers, to the bit, as a loop of single solves each given the last
        one's angles as ``init`` (:func:`ikchain.follow`).

        Parameters
        ----------
        path : array_like, shape (k, 2)
            The targets (m), in the order they are solved.
        init : array_like, shape (n,), optional
            The first target's start pose (rad).
        out : Result, optional
            As in :meth:`batch`.

        Returns
        -------
        Result
            A batch of shape (k,): row i is target i's answer.
        """
        if self.method not in ITERATIVE:
            raise ValueError(
                f"method: expected one of {', '.join(ITERATIVE)} to follow a path, "
                f"got {self.method!r}"
            )
        points = check_points(path, "path")
        if points.ndim != 2:
            raise ValueError(
                f"path: expected shape (k, 2), one target a row, got shape {points.shape}"
            )
        if init is not None:
            pose = check_angles(init, self._n, "init")
            if pose.shape != (self._n,):
                raise ValueError(
                    f"init: expected the first target's start pose, shape ({self._n},), "
                    f"got shape {pose.shape}"
                )
        return self.solve(points, init, out=out, following=True)

    def solve(
        self,
        target: ArrayLike,
        init: ArrayLike | None = None,
        *,
        out: Result | None = None,
        following: bool = False,
    ) -> Result:
        """One target or a batch, by the target's shape: what :func:`ikchain.solve`
        calls. ``following``: the targets are a path (:meth:`follow`)."""
        if (
            not following and out is None and (self._plain or self._angle_alone or self._lock_alone)
        ):  # one plain target: straight to the kernels, as a call of the Solver goes
            point = plain_point(target)
            if point is not None:
                answer = self._straight(point, init)
                if answer is not None:
                    return answer
        if self._unweighted is not None:
            return self._weighted(self._unweighted, target, init, out, following)
        if init is not None and self.method == "analytic" and self.options.weight is None:
            allowed = OPTIONS["analytic"]  # (with a weight, init is the pose blended from)
            raise ValueError(f"method 'analytic' takes only {', '.join(sorted(allowed))}; got init")
        if self._wrist is not None:
            return self._angled(self._wrist, target, init, out, following)
        if self._sides is not None:
            return self._toward_pole(self._sides, target, init, out)
        if self._aimed is not None and self._truth is not None:
            return self._softly(self._aimed, self._truth, target, init, out, following)
        if self._locked is not None:
            return self._locking(self._locked, target, init, out, following)
        points = check_points(target, "path" if following else "target")
        chain = self.chain
        if self.method == "analytic":
            shape = points.shape[:-1]
            flat = np.array(points, dtype=np.float64).reshape(-1, 2)  # a copy: Result.target
            return runner.run_analytic(chain, self._record, flat, shape, out)
        targets, shape, starts = runner.batch_arrays(chain, points, init)
        record = self.options.follow_record if following else self._record
        return runner.run_iterative(
            chain,
            self.method,
            record,
            targets,
            shape,
            starts,
            self._rest,
            self._give,
            self.options.trace,
            out,
        )

    # -- one target, straight to the kernel ---------------------------------------------

    def _straight(self, point: tuple[float, float], init: Any) -> Result | None:
        """One checked point straight to the kernels, where the Solver's steps allow it
        (none, a lock alone, the hand's angle alone); None where the general path must
        take it: a start pose that is not plainly one, a start given to the closed form
        (refused there), another step around the solve."""
        if self._kernel < 0:  # the closed form takes no start pose
            if init is not None:
                return None
            if self._plain:
                return self._analytic_one(point)
            return self._angled_one(point, None) if self._angle_alone else None
        has_start = plain_start(self._n, init)
        if has_start is None:
            return None
        start = init if has_start else None
        if self._plain:
            return self._iterate_one(point, start)
        if self._angle_alone:
            return self._angled_one(point, start)
        if self._lock_alone:  # (None for a start the batch path turns first)
            return self._locked_one(point, start)
        return None

    def _analytic_one(self, point: tuple[float, float]) -> Result:
        targets, out = self._analytic_out(point)
        result = single_from_out(out, 2, targets, "analytic", limits=self.chain.limits)
        if result is None:  # a target beyond floats
            runner.check_codes(self.chain, targets, (), out, None)
        return cast("Result", result)

    def _analytic_out(
        self, point: tuple[float, float]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The closed form's ``targets`` (1, 2) and ``out`` row for one checked point
        (its status code below 0 for a target beyond floats)."""
        targets = np.empty((1, 2))
        targets[0, 0], targets[0, 1] = point
        out = np.empty((1, self._width))
        # (fresh arrays of the compiled signature's types: the entry point may take them)
        (self._entry or self._find_entry())(
            self.chain._kernel_data, self._record, targets, out, 0, 1
        )
        return targets, out

    def _iterate_one(self, point: tuple[float, float], init: Any) -> Result:
        """One checked point's answer from ``init`` (one plain pose, or None for the
        default), straight from the loop's kernel."""
        targets, starts, found = self._loop_inputs(point, init)
        if self._limited:
            self._search(targets, found)
        out = np.empty((1, self._width))
        # (arrays of the signature's types)
        (self._entry or self._find_entry())(
            self.chain._kernel_data,
            self._record,
            targets,
            starts,
            self._rest,
            self._give,
            found,
            out,
            self._empty[2],
            0,
            1,
        )
        result = single_from_out(out, self._n, targets, self.method, limits=self.chain.limits)
        if result is None:  # refused: beyond floats, or a start outside the limits
            runner.check_codes(self.chain, targets, (), out, starts if init is not None else None)
        return cast("Result", result)

    def _find_entry(self) -> Any:
        """The kernel for one target of this Solver (the closed form's; the wrist's loop
        with the hand then posed, for the hand's angle; else the method's loop), as
        :func:`runner.entry` gives it; kept once numba has compiled it, so that a call
        looks it up once, not every time."""
        loop, analytic, _ = runner._kernels_cached or runner.kernels()
        if self._kernel < 0:
            kernel = analytic.solve_range
        elif self._wrist is not None:  # (the wrist's method is this Solver's)
            kernel = loop.POSED[self._kernel]
        else:
            kernel = loop.SOLVE[self._kernel]
        entry = runner.entry(kernel)
        if entry is not kernel:  # the compiled entry point: the same from now on
            self._entry = entry
        return entry

    def _loop_inputs(
        self, point: tuple[float, float], init: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """The loop's ``targets`` (1, 2), ``starts`` (1, n) or (0, n) for the default,
        and ``found``, (1, n + 3) on a limited chain, for what the reach search finds
        (not yet searched), or (0, n + 3), for one checked point from ``init`` (one
        plain pose, or None)."""
        targets = np.empty((1, 2))
        targets[0, 0], targets[0, 1] = point
        starts, found, _ = self._empty
        if init is not None:
            starts = np.empty((1, self._n))
            starts[0] = init
        if self._limited:
            found = np.empty((1, self._n + 3))
        return targets, starts, found

    def _search(self, targets: NDArray[np.float64], found: NDArray[np.float64]) -> None:
        """``found`` (1, n + 3) for ``targets`` (1, 2) on this limited chain: what the
        reach search finds, as the loop takes it."""
        _, _, limited = runner._kernels_cached or runner.kernels()
        search = runner.entry(limited.reach_range)
        search(self.chain._kernel_data, self._record, targets, found, 0, 1)
