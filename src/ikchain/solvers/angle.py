"""The tip angle: reach a point with the last bone at a given angle.

A hand reaches for a handle at a given angle, a foot lands flat. ``solve(chain,
target, method, angle=phi)`` poses the chain so that its tip is at ``target`` and its
last bone points along ``phi`` (rad, the world frame, measured as the joints' headings
are: from the x axis, counter-clockwise). With the last bone fixed in the world, its
start is fixed too:

    wrist = target - l_n (cos phi, sin phi),

so the task is the first ``n - 1`` bones' reach for the wrist, solved by the same
method (for ``analytic``, the two-bone closed form of a three-bone chain, the branch
chosen by ``bend``), and then the last joint turns the rest of the way,
``theta_n = phi - (theta_1 + ... + theta_(n-1))``, taken to (-π, π] (or, on a chain
whose last joint has limits spanning a turn, to the turn of it within them).

The rule: the hand's angle first, always met exactly (to rounding); the position as
near as the chain then allows. That is the rule a foot placed flat or a hand on a
handle wants, and it keeps the answer honest, because the hand is a rigid translation
of the wrist:

**The pose task, honestly.** The tip misses the target by exactly the wrist's miss.
So ``min_error``, ``reachable`` and ``certified`` are those of the wrist for the first
``n - 1`` bones, with their limits (an annulus without limits; under limits, the same
certified search as any reach), and the status is the wrist solve's: no pose with the
hand at ``phi`` comes nearer than ``min_error``.

Refused, with what was expected: a chain of one bone (nothing left to reach the wrist),
a last joint with limits narrower than a turn (its angle is no longer free), an
infinite stiffness on the last joint (locked, it cannot turn to the angle), ``pole`` or
``soft`` beside ``angle``, and a ``trace``. ``init``, ``rest`` and ``stiffness`` give
the first ``n - 1`` bones theirs; ``weight`` blends from the start pose as for any
solve (:mod:`ikchain.solvers.blend`).

One implementation, compiled: :func:`ikchain.solvers.tip.posed_rows` turns the wrist
solve's rows of ``out`` into the whole chain's, for a batch or a path after the wrist's
solve, and for one target inside the same compiled call as the wrist's loop
(:func:`ikchain.solvers.tip.posed_range`: one kernel call, as a plain solve makes).
This module, which checks the angle and finds the wrist, imports no numba.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ikchain.chain import Chain
from ikchain.checks import check_real


def check_angle(angle: Any, chain: Chain) -> float:
    """The tip angle: a finite number (rad), for a chain whose last joint turns freely."""
    value = check_real(angle, "angle")
    if chain.n_bones < 2:
        raise ValueError(
            f"angle: expected a chain of 2 bones or more (bones to the wrist, then the "
            f"hand), got {chain.n_bones} bone"
        )
    if chain.limits is not None:
        low, high = (float(x) for x in chain.limits[-1])
        if not high - low >= 2.0 * math.pi:
            raise ValueError(
                "angle: expected the last joint free to turn to the hand's angle (no "
                f"limits, or limits spanning a turn), got limits [{low!r}, {high!r}] on "
                f"joint {chain.n_bones - 1}"
            )
    return value


def wrist_chain(chain: Chain) -> Chain:
    """The first ``n - 1`` bones of ``chain``, with their limits: the chain that
    reaches for the wrist."""
    limits = None if chain.limits is None else chain.limits[:-1]
    return Chain(chain.lengths[:-1], limits)


def hand_from_angle(lengths: NDArray[np.float64], angle: float) -> tuple[float, float]:
    """The last bone (m), from its start to the tip, when it points along ``angle``."""
    length = float(lengths[-1])
    return length * math.cos(angle), length * math.sin(angle)


def wrist_from_target(x: Any, y: Any, hand: Any) -> tuple[Any, Any]:
    """The start of the last bone (x, y) when its tip is at ``(x, y)`` (floats, or
    arrays of any shape) and the bone is ``hand`` (:func:`hand_from_angle`, as a tuple
    or an array of two; compiled as ``tip.wrist_from_target``)."""
    return x - hand[0], y - hand[1]


def wrists(
    lengths: NDArray[np.float64], targets: NDArray[np.float64], angle: float
) -> NDArray[np.float64]:
    """The start of the last bone (..., 2) when its tip is at ``targets`` (..., 2) along
    ``angle``."""
    targets = np.asarray(targets, dtype=np.float64)
    hand = hand_from_angle(lengths, angle)
    x, y = wrist_from_target(targets[..., 0], targets[..., 1], hand)
    return np.stack((x, y), axis=-1)
