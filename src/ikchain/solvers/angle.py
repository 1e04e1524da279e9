"""The tip angle: reach a point with the last bone at a given angle, in closed form.

A hand reaches for a handle at a given angle, a foot lands flat. ``solve(chain,
target, "analytic", angle=phi)`` poses a three-bone chain so that its tip is at
``target`` and its last bone points along ``phi`` (rad, the world frame, measured as
the joints' headings are: from the x axis, counter-clockwise). With the last bone
fixed in the world, its start is fixed too:

    wrist = target - l3 (cos phi, sin phi),

and the first two bones are the two-bone closed form for the wrist
(``ikchain.solvers.analytic``, the branch chosen by ``bend``), then the third joint
turns the rest of the way, ``theta3 = phi - theta1 - theta2`` (taken to (-π, π]).

**The pose task, honestly.** The hand's angle is always met exactly (to rounding). The
wrist reaches the annulus ``|l1 - l2| <= |wrist| <= l1 + l2``; outside it the
two-bone form brings the wrist as near as any pose can, and since the hand is
a rigid translation of the wrist, the tip misses the target by exactly the wrist's
miss. So ``min_error`` is the wrist's distance to that annulus (no pose with the hand
at ``phi`` comes nearer), ``reachable`` says whether it is 0, ``certified`` is always
True, and the status is ``converged`` or ``unreachable`` as for the two-bone form.

Only the closed form takes ``angle``, on a three-bone chain without joint limits;
every other method, a limited chain, and ``pole`` or ``soft`` beside it are refused
with what was expected. ``weight`` blends from ``init`` as for any closed-form solve
(:mod:`ikchain.solvers.blend`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ikchain import kinematics
from ikchain.chain import Chain
from ikchain.checks import check_real
from ikchain.result import Result


def check_angle(angle: Any, chain: Chain) -> float:
    """The tip angle: a finite number (rad), for a three-bone chain without limits."""
    value = check_real(angle, "angle")
    if chain.limits is not None:
        raise ValueError(
            "angle: expected a chain without joint limits (the tip angle under limits is "
            "not solved yet), got a chain with limits"
        )
    return value


def wrists(
    lengths: NDArray[np.float64], targets: NDArray[np.float64], angle: float
) -> NDArray[np.float64]:
    """The start of the last bone (..., 2) when its tip is at ``targets`` along ``angle``."""
    hand = lengths[2] * np.array([math.cos(angle), math.sin(angle)])
    return np.asarray(targets - hand, dtype=np.float64)


def posed(
    lengths: NDArray[np.float64],
    targets: NDArray[np.float64],
    angle: float,
    two_bone: Result,
) -> Result:
    """The three-bone answer from ``two_bone``, the closed form's answer for the first
    two bones and the :func:`wrists` of ``targets`` (module notes)."""
    first = np.asarray(two_bone.angles, dtype=np.float64)
    third = angle - first[..., 0] - first[..., 1]
    third = np.arctan2(np.sin(third), np.cos(third))  # the same heading, in (-π, π]
    angles = np.concatenate([first, third[..., None]], axis=-1)
    joints = kinematics.joints_from_angles(lengths, angles)
    end = joints[..., -1, :]
    distance = kinematics.distance(end, targets)
    # one target: a float, as every single Result has
    error: Any = float(distance) if two_bone.shape == () else distance
    return Result(
        angles,
        joints,
        end,
        np.array(targets, dtype=np.float64),
        error,
        two_bone.min_error,
        two_bone.reachable,
        two_bone.iterations,
        two_bone.status,
        "analytic",
        certified=two_bone.certified,
    )
