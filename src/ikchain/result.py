"""What every solve returns: a :class:`Result` with a :class:`Status` per target."""

from __future__ import annotations

import enum
from typing import Any, cast

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
    BLENDED
        With ``weight`` below 1 (:mod:`ikchain.solvers.blend`): the solve reached the
        target (or came as near it as any pose can), and the weight moved the pose
        back toward the start pose, by design; ``error`` is the blended tip's distance.
    """

    CONVERGED = "converged"
    UNREACHABLE = "unreachable"
    STALLED = "stalled"
    MAX_ITERATIONS = "max_iterations"
    SOFTENED = "softened"
    BLENDED = "blended"


# Integer codes used inside the vectorised loop; index into STATUS_BY_CODE.
STATUS_BY_CODE: tuple[Status, ...] = tuple(Status)
CODE_BY_STATUS = {status: code for code, status in enumerate(STATUS_BY_CODE)}
_STATUS_OBJECTS = np.array(STATUS_BY_CODE, dtype=object)
_CONVERGED = CODE_BY_STATUS[Status.CONVERGED]

#: The fields a Result is made of, in the order of its constructor.
FIELDS: tuple[str, ...] = (
    "angles",
    "joints",
    "end",
    "target",
    "error",
    "min_error",
    "reachable",
    "iterations",
    "status",
    "method",
    "trace",
    "trace_angles",
    "certified",
    "at_limit",
)


class Result:
    """The outcome of :func:`ikchain.solve` for one target or a batch of them.

    For a batch of targets with leading shape ``...`` every field carries that
    shape in front; for a single target (shape (2,)) the per-target fields are plain
    Python scalars and ``status`` is a :class:`Status`.

    A Result is a record of one solve: its arrays are its own (a later solve never
    writes into them, except the one a caller hands back as ``out=``, which then
    becomes that later solve's Result as a whole). Treat its fields as read-only;
    :meth:`replace` makes a changed copy.

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

    __slots__ = (
        "_at_limit",
        "_codes",
        "_end",
        "_joints",
        "_limits",
        "_out",
        "_point",
        "_status",
        "_target",
        "angles",
        "certified",
        "error",
        "iterations",
        "method",
        "min_error",
        "reachable",
        "trace",
        "trace_angles",
    )

    angles: NDArray[np.float64]
    _joints: NDArray[np.float64] | None
    _end: NDArray[np.float64] | None
    _target: NDArray[np.float64] | None
    _point: NDArray[np.float64] | None  # a single solve's targets (1, 2)
    _out: NDArray[np.float64] | None  # the kernel's rows, reused by ``out=``
    _codes: NDArray[np.int64] | None  # a batch's status codes, until status is read
    _status: Any
    _at_limit: Any
    _limits: NDArray[np.float64] | None
    error: Any
    min_error: Any
    reachable: Any
    iterations: Any
    method: str
    trace: NDArray[np.float64] | None
    trace_angles: NDArray[np.float64] | None
    certified: Any

    def __init__(
        self,
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
        certified: Any = True,
        at_limit: Any = None,
    ) -> None:
        self.angles = angles
        self._joints = joints
        self._end = end
        self._target = target
        self.error = error
        self.min_error = min_error
        self.reachable = reachable
        self.iterations = iterations
        self._status = status
        self._codes = None
        self.method = method
        self.trace = trace
        self.trace_angles = trace_angles
        self.certified = certified
        self._at_limit = at_limit
        self._limits = None
        self._out = None
        self._point = None

    # A single solve's joints, tip and target are views of the row the kernel wrote
    # (and of the target it was given), made when first read: a numpy view costs about
    # 0.2 µs, as much as a small solve's iteration, and a drag loop reads the angles.

    @property
    def joints(self) -> NDArray[np.float64]:
        """Root, joints and tip of the final pose (m), shape (..., n + 1, 2)."""
        joints = self._joints
        if joints is None:
            n = self.angles.shape[-1]
            row = cast("NDArray[np.float64]", self._out)[0]  # a single solve's row
            joints = row[n : 3 * n + 2]
            joints.shape = (n + 1, 2)
            self._joints = joints
        return joints

    @property
    def end(self) -> NDArray[np.float64]:
        """Tip position, ``joints[..., -1, :]`` (m)."""
        end = self._end
        if end is None:
            end = self._end = self.joints[-1]
        return end

    @property
    def target(self) -> NDArray[np.float64]:
        """The target that was solved for (m), shape (..., 2)."""
        target = self._target
        if target is None:
            point = cast("NDArray[np.float64]", self._point)  # a single solve's (1, 2)
            target = self._target = point[0]
        return target

    @property
    def status(self) -> Any:
        """Why the solver stopped: a :class:`Status`, or an object array of them."""
        status = self._status
        if status is None:  # a batch's codes, turned into Status objects when first read
            status = self._status = _STATUS_OBJECTS[cast("NDArray[np.int64]", self._codes)]
        return status

    @property
    def at_limit(self) -> Any:
        """Which joints (..., n) sit exactly at one of their bounds."""
        at_limit = self._at_limit
        if at_limit is None:
            at_limit = self._at_limit = at_limit_from_angles(self.angles, self._limits)
        return at_limit

    @property
    def shape(self) -> tuple[int, ...]:
        """Leading batch shape; ``()`` for a single target."""
        return self.target.shape[:-1]

    @property
    def converged(self) -> Any:
        """True where the tip reached the target within the tolerance."""
        if self._codes is not None:
            return self._codes == _CONVERGED
        if self.shape == ():
            return self.status is Status.CONVERGED
        return self.status == Status.CONVERGED

    def replace(self, **changes: Any) -> Result:
        """A copy of this Result with the named fields changed (the others shared).

        Parameters
        ----------
        **changes
            New values by field name (those of the class's attributes).

        Raises
        ------
        ValueError
            For a name that is not a field of a Result.
        """
        unknown = sorted(set(changes) - set(FIELDS))
        if unknown:
            raise ValueError(
                f"replace: expected fields among {', '.join(FIELDS)}, got {', '.join(unknown)}"
            )
        copy = Result(
            *(changes[name] if name in changes else getattr(self, name) for name in FIELDS)
        )
        copy._limits = self._limits
        if "status" not in changes and self._status is None:
            copy._status, copy._codes = None, self._codes
        if "angles" in changes and "at_limit" not in changes:
            copy._at_limit = None
        return copy

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

    def __repr__(self) -> str:
        if self.shape == ():
            return (
                f"Result(method={self.method!r}, status={str(self.status)!r}, "
                f"error={self.error!r}, iterations={self.iterations!r}, "
                f"angles={self.angles.tolist()!r})"
            )
        return f"Result(method={self.method!r}, shape={self.shape!r})"


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


def at_limit_from_angles(
    angles: NDArray[np.float64], limits: NDArray[np.float64] | None
) -> NDArray[np.bool_]:
    """Which angles (..., n) equal a bound of ``limits`` (n, 2) exactly (None: none)."""
    if limits is None:
        return np.zeros(angles.shape, dtype=np.bool_)
    return (angles == limits[:, 0]) | (angles == limits[:, 1])


_new = object.__new__


def result_from_out(
    out: NDArray[np.float64],
    shape: tuple[int, ...],
    n: int,
    targets: NDArray[np.float64],
    method: str,
    trace: NDArray[np.float64] | None = None,
    limits: NDArray[np.float64] | None = None,
    into: Result | None = None,
) -> Result:
    """The Result of a solve from the ``out`` array its kernel filled.

    ``out`` (B, 3n + 8) holds a row per target: the angles (n), the joints ((n + 1) ×
    2), then the error, min_error, reachable, iterations, status code and certified
    (``ikchain.solvers.records.RESULT_FIELDS``). ``targets`` (B, 2) were solved for, in
    the batch ``shape`` (``()``: one target, whose fields are Python scalars and a
    :class:`Status`). ``trace`` (B, k + 1, 1 + n): the errors and poses, if recorded.
    The array fields are views of ``out``, which the Result keeps (``out=``).
    ``into``: the Result whose ``out`` this was (``solve(..., out=into)``); every one
    of its fields is set anew, and it is returned.
    """
    if shape == ():  # (a row the kernel refused was refused before: check_codes)
        return cast("Result", single_from_out(out, n, targets, method, trace, limits, into))
    results = 3 * n + 2
    result = _new(Result) if into is None else into
    result._out = out
    result._limits = limits
    result._at_limit = None
    result.method = method
    columns = out[:, results:]
    joints = out[:, n:results].reshape(*shape, n + 1, 2)
    result.angles = out[:, :n].reshape(*shape, n)
    result._joints = joints
    result._end = joints[..., n, :]
    result._target = targets.reshape(*shape, 2)
    result._point = None
    result.error = columns[:, 0].reshape(shape)
    result.min_error = columns[:, 1].reshape(shape)
    result.reachable = (columns[:, 2] != 0.0).reshape(shape)
    result.iterations = columns[:, 3].astype(np.int64).reshape(shape)
    result._status = None  # made from the codes when first read (30 ns a target)
    result._codes = columns[:, 4].astype(np.int64).reshape(shape)
    result.certified = (columns[:, 5] != 0.0).reshape(shape)
    result.trace = None if trace is None else trace[:, :, 0].reshape(*shape, trace.shape[1])
    result.trace_angles = (
        None if trace is None else trace[:, :, 1:].reshape(*shape, trace.shape[1], n)
    )
    return result


def single_from_out(
    out: NDArray[np.float64],
    n: int,
    targets: NDArray[np.float64],
    method: str,
    trace: NDArray[np.float64] | None = None,
    limits: NDArray[np.float64] | None = None,
    into: Result | None = None,
) -> Result | None:
    """One target's Result from the row ``out`` (1, 3n + 8) its kernel filled, as
    :func:`result_from_out` makes it (from its arguments but the batch shape); None
    for a row the kernel refused (a status code below 0: a target beyond floats, a
    start outside the limits), for the caller to say why. The fields are Python
    scalars and a :class:`Status`; ``angles`` is a view of ``out``, and ``targets``
    (1, 2) gives ``target`` when it is first read."""
    error, min_error, reachable, iterations, code, certified = out.tolist()[0][3 * n + 2 :]
    if code < 0.0:
        return None
    result = _new(Result) if into is None else into
    result._out = out
    result._limits = limits
    result._at_limit = None
    result.method = method
    result.angles = out[0, :n]
    result._joints = None  # joints, end and target: views made when first read
    result._end = None
    result._target = None
    result._point = targets
    result.error = error
    result.min_error = min_error
    result.reachable = reachable != 0.0
    result.iterations = int(iterations)
    result._status = STATUS_BY_CODE[int(code)]
    result._codes = None
    result.certified = certified != 0.0
    result.trace = None if trace is None else trace[0, :, 0]
    result.trace_angles = None if trace is None else trace[0, :, 1:]
    return result


def out_of(result: Any) -> NDArray[np.float64]:
    """The memory behind a Result (``solve(..., out=result)`` reuses it).

    Raises
    ------
    ValueError
        If ``result`` is not a Result that a solve made.
    """
    memory = result._out if isinstance(result, Result) else None
    if memory is None:
        raise ValueError(
            f"out: expected a Result returned by ikchain.solve, got {type(result).__name__}"
        )
    return memory


def with_memory_of(result: Result, source: Result) -> Result:
    """``result``, made the owner of ``source``'s memory (which ``out=`` reuses): how
    a solve hands back the changed copy an after-step (soft reach) made of an answer
    that is then discarded."""
    result._out = source._out
    return result


def take_fields(into: Result, source: Result) -> Result:
    """Every field of ``source`` set on ``into`` (which keeps its memory), and ``into``
    returned: how a solve with ``out=`` hands back its Result after an after-step
    (soft reach) made a changed copy."""
    for name in Result.__slots__:
        if name != "_out":
            setattr(into, name, getattr(source, name))
    return into
