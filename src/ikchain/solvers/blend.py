"""The blend weight: how much of the way from the start pose to the solve's answer to go.

Game engines blend an IK pose with the animated pose under it by a weight, so that a
foot or a hand can be faded in and out of its target. ``solve(..., weight=w)`` solves
as usual, from the start pose ``s`` (``init``, or the bent default), to the answer
``a``, and returns the pose

    s + w (a - s),    joint by joint, on the raw angles (no wrap),

so ``w = 0`` gives the start pose itself, bit for bit, and ``w = 1`` the plain solve's
answer, bit for bit (the blend is skipped). The raw angles are interpolated, not the
shortest turns: each joint's limits are an interval, which holds every point between
two of its points, so a blend of two poses within the limits stays within them.

What the result says, per target:

* ``angles``, ``joints``, ``end`` and ``error`` are the blended pose's;
* ``min_error``, ``reachable`` and ``certified`` are the target's, as without a weight;
* the status is ``converged`` where the blended tip lies within the tolerance of the
  target, and otherwise ``blended`` where the weight took it away from an answer that
  reached the target (or came as near it as any pose can); ``stalled`` and
  ``max_iterations`` keep their meaning, for the solve before the blend;
* ``iterations`` and a trace are the solve's, before the blend.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ikchain import kinematics
from ikchain.checks import check_real
from ikchain.result import Result, Status

#: An answer that reached its target, or came as near it as the chain can.
_REACHED = np.array([Status.CONVERGED, Status.UNREACHABLE], dtype=object)
# as object arrays: numpy would turn a bare Status (a str) into a string array
_CONVERGED = np.array(Status.CONVERGED, dtype=object)
_BLENDED = np.array(Status.BLENDED, dtype=object)


def check_weight(weight: Any) -> float:
    """The blend weight: a number in [0, 1]."""
    value = check_real(weight, "weight")
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"weight: expected a number in [0, 1], got {value!r}")
    return value


def blended_angles(
    start: NDArray[np.float64], answer: NDArray[np.float64], weight: float
) -> NDArray[np.float64]:
    """``start + weight * (answer - start)``, the start itself at weight 0 (..., n)."""
    if weight == 0.0:
        return np.array(np.broadcast_to(start, answer.shape), dtype=np.float64)
    return start + weight * (answer - start)


def blend(
    lengths: NDArray[np.float64],
    answer: Result,
    start: NDArray[np.float64],
    weight: float,
    tolerance: float,
) -> Result:
    """``answer``, a solve from ``start`` ((..., n), broadcast against it), moved back
    toward ``start`` by the weight and told what its pose now does (module notes)."""
    if weight == 1.0:
        return answer
    angles = blended_angles(start, answer.angles, weight)
    joints = kinematics.joints_from_angles(lengths, angles)
    end = joints[..., -1, :]
    error = kinematics.distance(end, answer.target)
    solved = np.asarray(answer.status, dtype=object)
    status = np.where(
        error <= tolerance,
        _CONVERGED,
        np.where(np.isin(solved, _REACHED), _BLENDED, solved),
    )
    told: dict[str, Any] = {
        "angles": angles,
        "joints": joints,
        "end": end,
        "error": np.asarray(error, dtype=np.float64),
        "status": status,
    }
    if answer.shape == ():  # one target: a float and a Status, as every single Result
        told["error"], told["status"] = float(error), status.item()
    return answer.replace(**told)
