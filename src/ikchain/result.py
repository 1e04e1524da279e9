"""What every solve returns: a :class:`Result` with a :class:`Status` per target."""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray


class Status(enum.StrEnum):
    """Why a solve stopped.

    CONVERGED
        The end error reached the tolerance.
    UNREACHABLE
        No pose reaches the target (it lies outside the annulus, or outside the set
        the joint limits allow); the end error came within the tolerance of the
        smallest possible error, ``min_error``.
    STALLED
        An iteration changed no angle while the error was still above the goal
        (for example CCD on a collinear chain whose target lies on its line).
    MAX_ITERATIONS
        The iteration budget ran out first.
    SOFTENED
        With ``soft`` (:mod:`ikchain.solvers.soft`): the solve aimed at the target
        eased toward the root, reached it (or came as near it as any pose can), and so
        stopped short of the true target by design; ``error`` is the distance from the
        true target.
    """

    CONVERGED = "converged"
    UNREACHABLE = "unreachable"
    STALLED = "stalled"
    MAX_ITERATIONS = "max_iterations"
    SOFTENED = "softened"


# Integer codes used inside the vectorised loop; index into STATUS_BY_CODE.
STATUS_BY_CODE: tuple[Status, ...] = tuple(Status)
CODE_BY_STATUS = {status: code for code, status in enumerate(STATUS_BY_CODE)}


@dataclass(frozen=True, eq=False)
class Result:
    """The outcome of :func:`ikchain.solve` for one target or a batch of them.

    For a batch of targets with leading shape ``...`` every field carries that
    shape in front; for a single target (shape (2,)) the per-target fields are plain
    Python scalars and ``status`` is a :class:`Status`.

    Attributes
    ----------
    angles : array, shape (..., n)
        Relative joint angles of the final pose (rad).
    joints : array, shape (..., n + 1, 2)
        Root, joints and tip of the final pose (m).
    end : array, shape (..., 2)
        Tip position, ``joints[..., -1, :]`` (m).
    target : array, shape (..., 2)
        The target that was solved for (m).
    error : float or array, shape (...)
        Distance from tip to target (m).
    min_error : float or array, shape (...)
        Smallest error any pose can have (m): the target's distance to the set of
        tips the chain reaches, the annulus for a free chain, the smaller set its
        joint limits allow for a limited one. 0 when reachable. Where ``certified``
        is False it is a proven lower bound instead.
    reachable : bool or array, shape (...)
        Whether some pose (within the joint limits) reaches the target:
        ``min_error == 0``. False is always proven; True is proven where
        ``certified``.
    iterations : int or array, shape (...)
        Iterations used (0 for the closed form).
    status : Status or object array of Status, shape (...)
        Why the solver stopped.
    method : str
        The solver that produced this result.
    trace : array, shape (..., k + 1), optional
        End error before the first iteration and after each one (m), when asked
        for; NaN after an element of a batch stopped.
    trace_angles : array, shape (..., k + 1, n), optional
        The pose before the first iteration and after each one (rad), with
        ``trace``; NaN after an element of a batch stopped.
    certified : bool or array, shape (...)
        Whether ``min_error`` is exact (always, without joint limits). Under
        limits a search decides it; when its budget runs out first, ``min_error``
        is a proven lower bound and this is False.
    at_limit : array of bool, shape (..., n)
        Which joints of the final pose sit exactly at one of their bounds (all
        False without limits).
    """

    angles: NDArray[np.float64]
    joints: NDArray[np.float64]
    end: NDArray[np.float64]
    target: NDArray[np.float64]
    error: Any
    min_error: Any
    reachable: Any
    iterations: Any
    status: Any
    method: str
    trace: NDArray[np.float64] | None = None
    trace_angles: NDArray[np.float64] | None = None
    certified: Any = True
    at_limit: Any = None

    @property
    def shape(self) -> tuple[int, ...]:
        """Leading batch shape; ``()`` for a single target."""
        return self.target.shape[:-1]

    @property
    def converged(self) -> Any:
        """True where the tip reached the target within the tolerance."""
        if self.shape == ():
            return self.status is Status.CONVERGED
        return self.status == Status.CONVERGED

    def as_dict(self) -> dict[str, Any]:
        """Plain-Python rendering (lists, floats, strings) for JSON.

        Angles in radians under ``angles`` and in degrees under ``angles_deg``.
        """
        status = self.status
        if self.shape != ():
            status = np.vectorize(str, otypes=[object])(status).tolist()
        else:
            status = str(status)
        data: dict[str, Any] = {
            "method": self.method,
            "target": self.target.tolist(),
            "angles": self.angles.tolist(),
            "angles_deg": np.degrees(self.angles).tolist(),
            "joints": self.joints.tolist(),
            "end": self.end.tolist(),
            "error": _plain(self.error),
            "min_error": _plain(self.min_error),
            "reachable": _plain(self.reachable),
            "iterations": _plain(self.iterations),
            "status": status,
            "certified": _plain(self.certified),
            "at_limit": _plain(self.at_limit),
        }
        if self.trace is not None:
            data["trace"] = _nan_as_none(self.trace)
        if self.trace_angles is not None:
            data["trace_angles"] = _nan_as_none(self.trace_angles)
        return data


def _nan_as_none(array: NDArray[np.float64]) -> Any:
    """Nested lists with None where ``array`` holds NaN (a batch's stopped entries)."""
    values = array.astype(object)
    values[np.isnan(array)] = None
    return values.tolist()


def _plain(value: Any) -> Any:
    """numpy scalar or array → Python scalar or nested list."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


_new = object.__new__
_STATUS_OBJECTS = np.array(STATUS_BY_CODE, dtype=object)


def make_result(
    angles: NDArray[np.float64],
    joints: NDArray[np.float64],
    end: NDArray[np.float64],
    target: NDArray[np.float64],
    error: Any,
    min_error: Any,
    reachable: Any,
    iterations: Any,
    status: Any,
    method: str,
    trace: NDArray[np.float64] | None = None,
    trace_angles: NDArray[np.float64] | None = None,
    cls: type[Result] = Result,
    certified: Any = True,
    at_limit: Any = None,
) -> Result:
    """A :class:`Result` (or ``cls``) with these fields, built without the dataclass
    ``__init__``.

    The frozen dataclass sets each of its fields through ``object.__setattr__``,
    which costs 1.7 µs a result, as much as a whole single analytic solve; filling
    the instance dictionary directly costs 0.4 µs and gives the same object.
    """
    result = _new(cls)
    fields = result.__dict__
    fields["angles"] = angles
    fields["joints"] = joints
    fields["end"] = end
    fields["target"] = target
    fields["error"] = error
    fields["min_error"] = min_error
    fields["reachable"] = reachable
    fields["iterations"] = iterations
    fields["status"] = status
    fields["method"] = method
    fields["trace"] = trace
    fields["trace_angles"] = trace_angles
    fields["certified"] = certified
    if at_limit is not None:
        fields["at_limit"] = at_limit
    return result


def at_limit_from_angles(
    angles: NDArray[np.float64], limits: NDArray[np.float64] | None
) -> NDArray[np.bool_]:
    """Which angles (..., n) equal a bound of ``limits`` (n, 2) exactly (None: none)."""
    if limits is None:
        return np.zeros(angles.shape, dtype=np.bool_)
    return (angles == limits[:, 0]) | (angles == limits[:, 1])


class _OneResult(Result):
    """A single target's :class:`Result` whose arrays are views of its row of ``out``
    (and of the targets (1, 2) it was solved for).

    The kernel writes the angles (n) and the joints ((n + 1) × 2) into one row; each
    array field is made from it on first use (a numpy view costs about 0.2 µs, as
    much as a small solve's iteration), so a caller that reads only the angles pays
    for those alone.
    """

    @functools.cached_property
    def angles(self) -> NDArray[np.float64]:
        return self.__dict__["_out"][0, : self.__dict__["_n"]]

    @functools.cached_property
    def joints(self) -> NDArray[np.float64]:
        n = self.__dict__["_n"]
        joints = self.__dict__["_out"][0, n : 3 * n + 2]
        joints.shape = (n + 1, 2)
        return joints

    @functools.cached_property
    def end(self) -> NDArray[np.float64]:
        return self.joints[-1]

    @functools.cached_property
    def target(self) -> NDArray[np.float64]:
        return self.__dict__["_point"][0]

    @functools.cached_property
    def at_limit(self) -> NDArray[np.bool_]:
        return at_limit_from_angles(self.angles, self.__dict__["_limits"])

    @property
    def shape(self) -> tuple[int, ...]:
        return ()


def result_from_out(
    out: NDArray[np.float64],
    shape: tuple[int, ...],
    n: int,
    targets: NDArray[np.float64],
    method: str,
    trace: NDArray[np.float64] | None = None,
    limits: NDArray[np.float64] | None = None,
) -> Result:
    """The Result of a solve from the ``out`` array its kernel filled.

    ``out`` (B, 3n + 8) holds a row per target: the angles (n), the joints ((n + 1) ×
    2), then the error, min_error, reachable, iterations, status code and certified
    (``ikchain.solvers.units.RESULT_FIELDS``). ``targets`` (B, 2) were solved for, in
    the batch ``shape`` (``()``: one target, whose fields are Python scalars and a
    :class:`Status`). ``trace`` (B, k + 1, 1 + n): the errors and poses, if recorded.
    The array fields are views of ``out``.
    """
    results = 3 * n + 2
    if shape == ():
        row = out.tolist()[0]  # one call for the six numbers (a view would cost as much)
        error, min_error, reachable, iterations, code, certified = row[results:]
        one = _new(_OneResult)
        fields = one.__dict__  # filled key by key: assigning __dict__ goes through the
        fields["_out"] = out  # frozen dataclass's __setattr__, twice the cost
        fields["_n"] = n
        fields["_point"] = targets
        fields["error"] = error
        fields["min_error"] = min_error
        fields["reachable"] = reachable != 0.0
        fields["iterations"] = int(iterations)
        fields["status"] = STATUS_BY_CODE[int(code)]
        fields["method"] = method
        fields["trace"] = None if trace is None else trace[0, :, 0]
        fields["trace_angles"] = None if trace is None else trace[0, :, 1:]
        fields["certified"] = certified != 0.0
        fields["_limits"] = limits
        return one
    columns = out[:, results:]
    poses = out[:, :n].reshape(*shape, n)
    joints = out[:, n:results].reshape(*shape, n + 1, 2)
    result = make_result(
        poses,
        joints,
        joints[..., n, :],
        targets.reshape(*shape, 2),
        columns[:, 0].reshape(shape),
        columns[:, 1].reshape(shape),
        (columns[:, 2] != 0.0).reshape(shape),
        columns[:, 3].astype(np.int64).reshape(shape),
        None,
        method,
        None if trace is None else trace[:, :, 0].reshape(*shape, trace.shape[1]),
        None if trace is None else trace[:, :, 1:].reshape(*shape, trace.shape[1], n),
        cls=_BatchResult,
        certified=(columns[:, 5] != 0.0).reshape(shape),
    )
    del result.__dict__["status"]  # the cached property below fills it when read
    result.__dict__["_out"] = out  # solve(..., out=result) reuses it
    result.__dict__["_codes"] = columns[:, 4].astype(np.int64).reshape(shape)
    result.__dict__["_limits"] = limits
    return result


class _BatchResult(Result):
    """A batch :class:`Result` whose ``status`` array is made on first use.

    An object array of :class:`Status` costs 30 ns a target to fill (a reference per
    element), a third of a whole batch analytic solve; most callers read the errors
    or ``converged`` instead, so the status codes wait until ``status`` is read.
    """

    @functools.cached_property
    def status(self) -> Any:
        return np.take(_STATUS_OBJECTS, self.__dict__["_codes"])

    @functools.cached_property
    def at_limit(self) -> NDArray[np.bool_]:
        return at_limit_from_angles(self.angles, self.__dict__.get("_limits"))

    @property
    def converged(self) -> Any:
        codes = self.__dict__.get("_codes")  # absent in a copy made by dataclasses.replace
        if codes is None:
            return self.status == Status.CONVERGED
        return codes == CODE_BY_STATUS[Status.CONVERGED]
