"""The steps around a solve: what a :class:`~ikchain.Solver` does before or after its
kernel for a blend weight, the hand's angle, a pole, soft reach or a locked joint.

Each step solves through Solvers of its own (made once, with the Solver) and the
public :class:`~ikchain.result.Result`:

* a **weight** blends the plain answer with the start pose, after it
  (:mod:`~ikchain.solvers.blend`);
* the hand's **angle** solves the wrist point with the first ``n - 1`` bones, before
  the hand is turned to the angle (:mod:`~ikchain.solvers.angle`);
* a **pole** solves both bends and picks per target (:mod:`~ikchain.solvers.pole`);
* **soft** reach solves the eased targets, then tells the answer about the true ones
  (:mod:`~ikchain.solvers.soft`);
* an infinite **stiffness** solves on the chain with the locked joints limited to
  their start angles (:mod:`~ikchain.solvers.stiffness`).

:class:`Steps` holds them as methods of the Solver (its base class), apart from the
Solver's calling convention and its straight path to the kernels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ikchain.chain import Chain
from ikchain.checks import check_angles, check_points
from ikchain.result import (
    Result,
    out_of,
    result_from_out,
    single_from_out,
    take_fields,
    with_memory_of,
)
from ikchain.solvers import angle as tip_angle
from ikchain.solvers import runner
from ikchain.solvers.options import Options
from ikchain.solvers.plain import default_init, plain_point, plain_start
from ikchain.solvers.records import FREE_OR_FIXED, OPT_LIMITED
from ikchain.solvers.stiffness import locked_chain, taken_start


class Solving(Protocol):
    """What a step reads of the Solvers it solves through (its own, and those it made:
    the wrist's, each bend's, the locked chain's...): :class:`~ikchain.Solver`'s."""

    options: Options
    _code: int
    _kernel: int
    _limited: bool
    _locked: NDArray[np.bool_] | None
    _plain: bool
    _record: NDArray[np.float64]
    _rest: NDArray[np.float64]
    _give: NDArray[np.float64]
    chain: Chain

    def solve(
        self, target: ArrayLike, init: Any = None, *, out: Any = None, following: bool = False
    ) -> Result: ...

    def _iterate_one(self, point: tuple[float, float], init: Any) -> Result: ...

    def _loop_inputs(
        self, point: tuple[float, float], init: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]: ...

    def _search(self, targets: NDArray[np.float64], found: NDArray[np.float64]) -> None: ...

    def _analytic_out(
        self, point: tuple[float, float]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...


#: Locked chains a Solver keeps (one per distinct set of locked start angles).
_LOCKS_KEPT = 64


class Steps:
    """The steps around a solve, as methods of :class:`~ikchain.Solver` (module notes)."""

    __slots__ = ()

    # what the Solver sets up for its steps (see Solver.__init__)
    chain: Chain
    method: str
    options: Options
    _n: int
    _width: int
    _code: int
    _entry: Any
    _find_entry: Callable[[], Any]
    _bent: list[float] | None
    _hand: tuple[float, NDArray[np.float64], float, NDArray[np.float64]]
    _locked: NDArray[np.bool_] | None
    _lock_key: Callable[[Any], Any]
    _locks: dict[Any, Solving]
    _plain: bool
    _wrist: Solving | None

    def _toward_pole(
        self, sides: tuple[Solving, Solving], target: ArrayLike, init: Any, out: Any
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
        self, plain: Solving, target: ArrayLike, init: Any, out: Any, following: bool
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
                frames.append(cast(Solving, self).solve(point, start))
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
        self, wrist: Solving, target: ArrayLike, init: Any, out: Any, following: bool
    ) -> Result:
        """The wrist point solved by the first n - 1 bones, the hand turned to the angle
        (:mod:`ikchain.solvers.angle`), posed by one compiled rule (``posed_rows``)."""
        n, chain = self._n, self.chain
        angle, _, low, lengths = self._hand
        loop, _, _ = runner._kernels_cached or runner.kernels()
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

    def _angled_one(self, point: tuple[float, float], init: Any) -> Result | None:
        """One checked point from one plain start (None: the default), the wrist's
        Solver plain: the wrist, its loop and the hand's posing in one compiled call
        (``loop.POSED``), or the closed form's wrist, then the posing. None where the
        wrist's loop refused the point or the start: the general path says why."""
        n, chain = self._n, self.chain
        angle, hand, low, lengths = self._hand
        wrist = cast(Solving, self._wrist)  # (the hand's angle: set)
        limits = chain.limits
        if init is not None and limits is not None and not low <= init[-1] <= limits[-1, 1]:
            runner.check_within_limits(chain, np.array(init, dtype=np.float64))
        posed = np.empty((1, self._width))
        if wrist._kernel < 0:
            at = tip_angle.wrist_from_target(point[0], point[1], hand)
            targets, solved = wrist._analytic_out(at)
            if solved[0, wrist._code] < 0.0:  # a wrist beyond floats
                runner.check_codes(wrist.chain, targets, (), solved, None)
            targets[0, 0], targets[0, 1] = point  # (the wrist's, no longer read)
            loop, _, _ = runner._kernels_cached or runner.kernels()
            runner.entry(loop.posed_rows)(lengths, angle, low, targets, solved, posed, 0, 1)
        else:  # the first n - 1 bones start where the chain's do
            targets, starts, found = wrist._loop_inputs(point, None if init is None else init[:-1])
            if wrist._limited:  # the wrist's reach, searched first (the kernel finds the
                # same wrist again)
                wrists = np.empty((1, 2))
                wrists[0, 0], wrists[0, 1] = tip_angle.wrist_from_target(*point, hand)
                wrist._search(wrists, found)
            (self._entry or self._find_entry())(  # (loop.POSED's, for the wrist's method)
                wrist.chain._kernel_data,
                wrist._record,
                targets,
                hand,
                starts,
                wrist._rest,
                wrist._give,
                found,
                lengths,
                angle,
                low,
                posed,
                0,
                1,
            )
        # None where the wrist's loop refused: beyond floats, or outside the limits
        return single_from_out(posed, n, targets, self.method, limits=limits)

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
        point = plain_point(target) if plain else None
        has_start = None if point is None else plain_start(self._n, init)
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
        locked chain's kernel; None for what the batch path takes: an unlimited chain's
        angle beyond ``±2**20`` rad (which it first turns to (-π, π]), and a target
        beyond floats (refused there, in the caller's terms)."""
        chain = self.chain
        first: Any = self._bent if init is None else init
        if init is not None and chain.limits is not None:  # a lock outside them: refused
            runner.check_within_limits(chain, np.array(first, dtype=np.float64))
        # the locked angles as they are (1 == 1.0 == np.float64(1.0): one key)
        part = self._locks.get(self._lock_key(first))
        if part is None:
            locked = cast("NDArray[np.bool_]", self._locked)  # (a lock: set)
            part = self._locked_part(locked, np.array(first, dtype=np.float64))
        try:
            result = part._iterate_one(point, init)
        except ValueError:  # the locked chain's kernel refused the start or the target:
            return None  # the batch path turns the start, or says what is wrong
        result._limits = chain.limits  # the caller's chain's limits (at_limit)
        return result

    def _locked_part(self, locked: NDArray[np.bool_], start: NDArray[np.float64]) -> Solving:
        """A Solver of the chain with the ``locked`` joints limited to their angles in
        ``start`` (n,): its give keeps them still, its limits tell the truth about reach."""
        key = self._lock_key(start.tolist())
        part = self._locks.get(key)
        if part is None:
            chain = locked_chain(self.chain, locked, start)
            solver = cast("Callable[..., Solving]", type(self))  # (a Solver makes one)
            part = solver(chain, self.method, **self.options.keywords())
            if self.chain.limits is None:  # every joint free or fixed: the loop finds
                # the reach itself, in closed form (records.FREE_OR_FIXED), not a search
                record, follow = part.options.record.copy(), part.options.follow_record.copy()
                record[OPT_LIMITED] = follow[OPT_LIMITED] = FREE_OR_FIXED
                part.options = replace(part.options, record=record, follow_record=follow)
                part._record, part._limited = record, False
            part._locked = None  # its chain holds the locks
            part._plain = not part.options.trace  # (no pole, soft or weight at this step)
            if len(self._locks) >= _LOCKS_KEPT:
                self._locks.clear()
            self._locks[key] = part
        return part

    def _softly(
        self,
        aimed: Solving,
        truth: Solving,
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
