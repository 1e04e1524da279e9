"""What every solve returns: a :class:`Result` with a :class:`Status` per target."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray


class Status(enum.StrEnum):
    """Why a solve stopped.

    CONVERGED
        The end error reached the tolerance.
    UNREACHABLE
        No pose reaches the target (it lies outside the annulus); the end error
        came within the tolerance of the smallest possible error, ``min_error``.
    STALLED
        An iteration changed no angle while the error was still above the goal
        (for example CCD on a collinear chain whose target lies on its line).
    MAX_ITERATIONS
        The iteration budget ran out first.
    """

    CONVERGED = "converged"
    UNREACHABLE = "unreachable"
    STALLED = "stalled"
    MAX_ITERATIONS = "max_iterations"


# Integer codes used inside the vectorised loop; index into STATUS_BY_CODE.
RUNNING = -1
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
        Smallest error any pose of the free chain can have: the target's distance to
        the reachable annulus (m). 0 when reachable.
    reachable : bool or array, shape (...)
        Whether the target lies in the annulus, so that some pose reaches it.
    iterations : int or array, shape (...)
        Iterations used (0 for the closed form).
    status : Status or object array of Status, shape (...)
        Why the solver stopped.
    method : str
        The solver that produced this result.
    trace : array, shape (..., k + 1), optional
        End error before the first iteration and after each one, when asked for;
        NaN after an element of a batch stopped.
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
        }
        if self.trace is not None:
            data["trace"] = np.where(np.isnan(self.trace), None, self.trace).tolist()
        return data


def _plain(value: Any) -> Any:
    """numpy scalar or array → Python scalar or nested list."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


_new = object.__new__


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
    trace: NDArray[np.float64] | None,
) -> Result:
    """A :class:`Result` with these fields, built without the dataclass ``__init__``.

    The frozen dataclass sets each of its eleven fields through
    ``object.__setattr__``, which costs 1.7 µs a result, as much as a whole
    single analytic solve; filling the instance dictionary directly costs 0.4 µs and
    gives the same object.
    """
    result = _new(Result)
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
    return result
