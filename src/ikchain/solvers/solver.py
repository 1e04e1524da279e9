""":class:`~ikchain.Solver`: a chain, a method and its options, checked once; each call goes
straight to the kernel.

A drag loop, an animation or a server solves one chain with one set of options
again and again. A Solver validates them once (:mod:`~ikchain.solvers.options`),
keeps the record the kernels read, and on each call checks only the target and the
start pose. Every Result it returns has memory of its own: the next call never
writes into an earlier answer (``out=`` hands one back on purpose, and that Result
becomes the new answer as a whole).

Pole and soft reach are steps around the plain solve: the pole's solves both bends
and picks per target (:mod:`~ikchain.solvers.pole`), soft reach solves the eased
targets and tells the answer about the true ones (:mod:`~ikchain.solvers.soft`),
each through Solvers of its own and the public :class:`~ikchain.result.Result`. An
infinite stiffness locks its joints at the start pose: a Solver of the chain with
those joints limited to their start angles solves (:mod:`~ikchain.solvers.stiffness`).
"""

from __future__ import annotations

import math
import sys
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ikchain.chain import Chain
from ikchain.checks import check_angles, check_points
from ikchain.result import Result, out_of, result_from_out, take_fields, with_memory_of
from ikchain.solvers import angle as tip_angle
from ikchain.solvers import runner
from ikchain.solvers.methods import CODE, ITERATIVE, LARGEST_ANGLE, OPTIONS, START_BEND
from ikchain.solvers.options import Options, options_from_keywords
from ikchain.solvers.records import CODE as CODE_FIELD
from ikchain.solvers.records import OPT_WEIGHT, out_width
from ikchain.solvers.stiffness import locked_chain, taken_start

_NO_REST = np.empty(0)
#: Locked chains a Solver keeps (one per distinct set of locked start angles).
_LOCKS_KEPT = 64
_FLOAT_TYPES = (float, int, np.float64)
_LARGEST = sys.float_info.max
#: numpy's float64 dtype, one object: ``is`` tests it four times faster than ``==``.
_FLOAT64 = np.dtype(np.float64)


class Solver:
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
        "_bent",
        "_code",
        "_empty",
        "_give",
        "_hand",
        "_kernel",
        "_limited",
        "_lock_alone",
        "_lock_index",
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
        self._locks: dict[tuple[float, ...], Solver] = {}
        self._lock_index = [] if self._locked is None else np.flatnonzero(self._locked).tolist()
        self._bent = None if self._locked is None else default_init(chain, options.bend).tolist()
        self._width = out_width(self._n)
        self._code = 3 * self._n + 2 + CODE_FIELD  # the status code's column of ``out``
        self._kernel = CODE.get(method, -1)  # the loop's kernel (``loop.SOLVE``); -1: analytic
        self._empty = runner.empties(self._n)  # no starts, nothing found, no trace
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
            # as the kernel takes them (writable)
            self._hand = (
                options.angle,
                tip_angle.hand_from_angle(chain.lengths, options.angle),
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
        point = _plain_point(target)
        if point is not None:
            if self._kernel < 0:  # analytic
                if init is None:
                    return self._analytic_one(point) if self._plain else self.solve(point)
            else:
                has_start = _plain_start(self._n, init)
                if has_start is not None:
                    if self._plain:
                        return self._iterate_one(point, init if has_start else None)
                    if self._lock_alone:
                        locked = self._locked_one(point, init if has_start else None)
                        if locked is not None:
                            return locked
                    # a step around the solve (a lock, the hand's angle, a blend...):
                    # one plain point and start need none of the checks below
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
        if self._lock_alone and not following and out is None:
            point = _plain_point(target)
            has_start = None if point is None else _plain_start(self._n, init)
            if point is not None and has_start is not None:
                locked = self._locked_one(point, init if has_start else None)
                if locked is not None:
                    return locked
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
        if not following and out is None and not self.options.trace:
            point = _plain_point(target)
            if point is not None:
                if self.method == "analytic":
                    return self._analytic_one(point)
                has_start = _plain_start(self._n, init)
                if has_start is not None:
                    return self._iterate_one(point, init if has_start else None)
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

    def _analytic_one(self, point: tuple[float, float]) -> Result:
        targets, out = self._analytic_out(point)
        return result_from_out(out, (), 2, targets, "analytic", None, self.chain.limits)

    def _analytic_out(
        self, point: tuple[float, float]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The closed form's ``targets`` (1, 2) and ``out`` row for one checked point."""
        _, analytic, _ = runner._kernels_cached or runner.kernels()
        targets = np.empty((1, 2))
        targets[0, 0], targets[0, 1] = point
        out = np.empty((1, self._width))
        # (fresh arrays of the compiled signature's types: the entry point may take them)
        runner.entry(analytic.solve_range)(
            self.chain._kernel_data, self._record, targets, out, 0, 1
        )
        if out[0, self._code] < 0.0:  # a target beyond floats
            runner.check_codes(self.chain, targets, (), out, None)
        return targets, out

    def _iterate_one(self, point: tuple[float, float], init: Any) -> Result:
        targets, out = self._iterate_out(point, init)
        return result_from_out(out, (), self._n, targets, self.method, None, self.chain.limits)

    def _iterate_out(
        self, point: tuple[float, float], init: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The loop's ``targets`` (1, 2) and ``out`` row for one checked point, from
        ``init`` (one plain pose, or None for the default)."""
        loop, _, limited = runner._kernels_cached or runner.kernels()
        n = self._n
        chain = self.chain
        data = chain._kernel_data
        record = self._record
        targets = np.empty((1, 2))
        targets[0, 0], targets[0, 1] = point
        starts, found, rows = self._empty
        if init is not None:
            starts = np.empty((1, n))
            starts[0] = init
        if self._limited:
            found = np.empty((1, n + 3))
            runner.entry(limited.reach_range)(data, record, targets, found, 0, 1)
        out = np.empty((1, self._width))
        kernel = runner.entry(loop.SOLVE[self._kernel])  # (arrays of the signature's types)
        kernel(data, record, targets, starts, self._rest, self._give, found, out, rows, 0, 1)
        if out[0, self._code] < 0.0:  # refused: beyond floats, or a start outside the limits
            runner.check_codes(chain, targets, (), out, starts if init is not None else None)
        return targets, out

    # -- the steps around a solve -----------------------------------------------------------

    def _toward_pole(
        self, sides: tuple[Solver, Solver], target: ArrayLike, init: Any, out: Any
    ) -> Result:
        """Both bends, then the answer on the pole's side (:mod:`ikchain.solvers.pole`)."""
        from ikchain.solvers.pole import toward_pole

        for name, value in (("init", init), ("out", out)):
            if value is not None:
                raise ValueError(
                    f"pole: chooses the bend from both bent start poses; expected {name} or "
                    "pole, got both"
                )
        up, down = sides

        def solve_with(bend: int | None = None, init: Any = None) -> Result:
            return (down if bend == -1 else up).solve(target, init)

        pole = cast("NDArray[np.float64]", self.options.pole)  # set with the sides
        return toward_pole(solve_with, pole, self.options.tolerance, self.chain.limits)

    def _weighted(
        self, plain: Solver, target: ArrayLike, init: Any, out: Any, following: bool
    ) -> Result:
        """The answer blended with the start pose by the weight
        (:mod:`ikchain.solvers.blend`); with ``analytic``, ``init`` is the pose to blend
        from (the closed form has no start pose of its own)."""

        weight = cast(float, self.options.weight)  # set with the unweighted Solver
        start = (
            default_init(self.chain, self.options.bend)
            if init is None
            else check_angles(init, self._n, "init")
        )
        if following:  # each frame from the last one's blended pose: one by one
            if self.options.trace or out is not None:
                raise ValueError(
                    "weight: a path is blended frame by frame; expected follow without "
                    f"{'trace' if self.options.trace else 'out'}, got both"
                )
            points = check_points(target, "path")
            frames = []
            for point in points:
                frames.append(self.solve(point, start))
                start = frames[-1].angles
            return stacked(frames)
        if self.method != "analytic":
            runner.check_within_limits(self.chain, start)
        answer = plain.solve(target, None if self.method == "analytic" else init, out=out)
        result = runner.blend_after(
            self.chain.lengths, answer, start, weight, self.options.tolerance
        )
        return result if out is None else take_fields(out, result)

    def _angled(
        self, wrist: Solver, target: ArrayLike, init: Any, out: Any, following: bool
    ) -> Result:
        """The wrist point solved by the first n - 1 bones, the hand turned to the angle
        (:mod:`ikchain.solvers.angle`), posed by one compiled rule (``posed_rows``)."""
        n, chain = self._n, self.chain
        angle, hand, low, lengths = self._hand
        loop, _, _ = runner._kernels_cached or runner.kernels()
        # one target, and a wrist solve with no step around it (a lock): straight on
        plain = wrist._plain and not following and out is None
        point = _plain_point(target) if plain else None
        start = None if point is None else _plain_start(n, init)
        if point is not None and start is not None:
            if start and chain.limits is not None and not low <= init[-1] <= chain.limits[-1, 1]:
                runner.check_within_limits(chain, np.array(init, dtype=np.float64))
            at = tip_angle.wrist_from_target(point[0], point[1], hand)
            if wrist._kernel < 0:
                targets, solved = wrist._analytic_out(at)
            else:  # the first n - 1 bones start where the chain's do
                targets, solved = wrist._iterate_out(at, init[:-1] if start else None)
            targets[0, 0], targets[0, 1] = point  # (the wrist's, no longer read)
            posed = np.empty((1, self._width))
            runner.entry(loop.posed_rows)(lengths, angle, low, targets, solved, posed, 0, 1)
            return result_from_out(posed, (), n, targets, self.method, None, chain.limits)
        points = check_points(target, "path" if following else "target")
        if init is not None:
            init = check_angles(init, n, "init")
            runner.check_within_limits(chain, init)
            init = init[..., :-1]
        wrists = tip_angle.wrists(chain.lengths, points, angle)
        answer = wrist.solve(wrists, init, following=following)
        shape = answer.shape
        targets = np.array(np.broadcast_to(points, (*shape, 2)).reshape(-1, 2), order="C")
        posed = runner.out_array(out, targets.shape[0], n)
        loop.posed_rows(lengths, angle, low, targets, out_of(answer), posed, 0, targets.shape[0])
        return result_from_out(posed, shape, n, targets, self.method, None, chain.limits, out)

    def _locking(
        self,
        locked: NDArray[np.bool_],
        target: ArrayLike,
        init: Any,
        out: Any,
        following: bool,
    ) -> Result:
        """The solve on the chain with the locked joints limited to their start angles
        (:mod:`ikchain.solvers.stiffness`): one locked chain per distinct set of locked
        start angles in the batch."""
        chain = self.chain
        plain = not (following or out is not None or self.options.trace)
        point = _plain_point(target) if plain else None
        has_start = None if point is None else _plain_start(self._n, init)
        if point is not None and has_start is not None:  # one target, one plain start
            result = self._locked_one(point, init if has_start else None)
            if result is not None:
                return result
        points = check_points(target, "path" if following else "target")
        if init is None:
            start = default_init(chain, self.options.bend)
            given = None
        else:
            start = taken_start(chain, check_angles(init, self._n, "init"))
            runner.check_within_limits(chain, start)
            given = start
        if following or start.ndim == 1:  # one start: one locked chain
            result = self._locked_part(locked, start).solve(
                points, given, out=out, following=following
            )
        else:
            targets, shape, starts = runner.batch_arrays(chain, points, start)
            keys = starts[:, locked]
            if (keys == keys[0]).all():  # one locked chain for all
                result = self._locked_part(locked, starts[0]).solve(
                    points, given, out=out, following=following
                )
            else:
                if self.options.trace:
                    raise ValueError(
                        "stiffness: a traced batch is solved on one locked chain; expected "
                        "the same start angle at each locked joint in every row, got "
                        "different ones"
                    )
                memory = runner.out_array(out, targets.shape[0], self._n)
                _, group = np.unique(keys, axis=0, return_inverse=True)
                for g in range(int(group.max()) + 1):
                    rows = np.flatnonzero(group.reshape(-1) == g)
                    part = self._locked_part(locked, starts[rows[0]])
                    memory[rows] = out_of(part.solve(targets[rows], starts[rows]))
                return result_from_out(
                    memory, shape, self._n, targets, self.method, None, chain.limits, out
                )
        result._limits = chain.limits  # the caller's chain's limits (at_limit)
        result._at_limit = None
        return result

    def _locked_one(self, point: tuple[float, float], init: Any) -> Result | None:
        """One checked point from one plain start (None: the default), straight to the
        locked chain's kernel; None for a start the batch path takes (an unlimited
        chain's angle beyond ``±2**20`` rad, which it first turns to (-π, π])."""
        chain = self.chain
        first = self._bent if init is None else init
        first = first.tolist() if type(first) is np.ndarray else first  # (floats: fast)
        if chain.limits is None:
            if max(map(abs, first)) > LARGEST_ANGLE:
                return None
        elif init is not None:  # a start (a lock) outside the limits: refused
            runner.check_within_limits(chain, np.array(first, dtype=np.float64))
        part = self._locks.get(tuple([float(first[i]) for i in self._lock_index]))
        if part is None:
            part = self._locked_part(self._locked, np.array(first, dtype=np.float64))
        result = part._iterate_one(point, init)
        result._limits = chain.limits  # the caller's chain's limits (at_limit)
        return result

    def _locked_part(self, locked: NDArray[np.bool_], start: NDArray[np.float64]) -> Solver:
        """A Solver of the chain with the ``locked`` joints limited to their angles in
        ``start`` (n,): its give keeps them still, its limits tell the truth about reach."""
        key = tuple(start[self._lock_index].tolist())
        part = self._locks.get(key)
        if part is None:
            chain = locked_chain(self.chain, locked, start)
            part = Solver(chain, self.method, **self.options.keywords())
            part._locked = None  # its chain holds the locks
            part._plain = not part.options.trace  # (no pole, soft or weight at this step)
            if len(self._locks) >= _LOCKS_KEPT:
                self._locks.clear()
            self._locks[key] = part
        return part

    def _softly(
        self,
        aimed: Solver,
        truth: Solver,
        target: ArrayLike,
        init: Any,
        out: Any,
        following: bool,
    ) -> Result:
        """The eased targets solved, the answer told about the true ones
        (:mod:`ikchain.solvers.soft`)."""
        from ikchain.solvers import soft as softening

        points = check_points(target, "path" if following else "target")
        answers: list[Result] = []

        def solve_eased(eased: NDArray[np.float64]) -> Result:
            answers.append(aimed.solve(eased, init, out=out, following=following))
            return answers[-1]

        result = softening.soften(
            self.chain,
            points,
            cast(float, self.options.soft),  # set with the aimed Solver
            self.options.tolerance,
            solve_eased,
            lambda true: truth.solve(true, init),
        )
        if out is not None:
            return take_fields(out, result)
        return with_memory_of(result, answers[0])  # the eased answer is dropped


def default_init(chain: Chain, bend: int = 1) -> NDArray[np.float64]:
    """The slightly bent start pose, shape (n,), kept inside any joint limits: each
    joint turned ``bend`` x ``START_BEND`` (rad), as the kernels start by default."""
    angles = np.full(chain.n_bones, bend * START_BEND)
    if chain.limits is not None:
        angles = np.clip(angles, chain.limits[:, 0], chain.limits[:, 1])
    return angles


def stacked(frames: list[Result]) -> Result:
    """A batch Result of shape (k,) from k single ones, row i being frame i."""
    fields = {
        name: np.array([getattr(frame, name) for frame in frames])
        for name in ("angles", "joints", "end", "target", "error", "min_error", "iterations")
    }
    return Result(
        fields["angles"],
        fields["joints"],
        fields["end"],
        fields["target"],
        fields["error"],
        fields["min_error"],
        np.array([frame.reachable for frame in frames], dtype=np.bool_),
        fields["iterations"],
        np.array([frame.status for frame in frames] + [None], dtype=object)[:-1],
        frames[0].method if frames else "",
        certified=np.array([frame.certified for frame in frames], dtype=np.bool_),
    )


def _plain_point(target: Any) -> tuple[float, float] | None:
    """``(tx, ty)`` as Python floats when ``target`` is plainly one finite point.

    A list or tuple of two Python numbers, or a float64 array of shape (2,). Anything
    else (including every malformed input) returns None and goes through
    :func:`~ikchain.checks.check_points`, which gives the same numbers and the error
    messages.
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
        if target.shape != (2,) or target.dtype is not _FLOAT64:
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
        if init.shape != (n,) or init.dtype is not _FLOAT64:
            return None
        for value in init.tolist():
            if not -_LARGEST <= value <= _LARGEST:
                return None
        return True
    return None
