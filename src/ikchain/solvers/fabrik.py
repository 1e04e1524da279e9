"""FABRIK: a backward and a forward pass over joint positions, then back to angles.

Backward (tail to head): put the tip on the target and pull each joint towards the
one after it, keeping bone lengths. Forward (head to tail): put the root back at the
origin and pull each joint towards the one before it. The new positions are turned
back into relative angles, so the shared loop and the result see angles as with
every other solver.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ikchain.kinematics import joints_from_angles, wrap_angle
from ikchain.kinematics import norm as _norm

FloatArray = NDArray[np.float64]


def _place(
    anchor: FloatArray, toward: FloatArray, fallback: FloatArray, length: float
) -> FloatArray:
    """Point at ``length`` from ``anchor`` in the direction of ``toward``.

    Where ``toward`` coincides with ``anchor`` the direction is undefined; the
    bone's previous direction ``fallback`` (a unit vector) is used instead.
    """
    offset = toward - anchor
    norm = _norm(offset[:, 0], offset[:, 1])
    safe = norm > 0.0
    direction = np.where(safe[:, None], offset / np.where(safe, norm, 1.0)[:, None], fallback)
    return anchor + length * direction


def make_step(lengths: FloatArray):
    """A FABRIK iteration (backward + forward pass) for the shared loop."""
    n = lengths.size

    def step(
        angles: FloatArray, target: FloatArray, memory: FloatArray | None
    ) -> tuple[FloatArray, FloatArray | None]:
        joints = joints_from_angles(lengths, angles)
        absolute = np.cumsum(angles, axis=-1)
        # Unit direction of each bone before the passes: the fallback for zero gaps.
        bones = np.stack((np.cos(absolute), np.sin(absolute)), axis=-1)  # (m, n, 2)
        joints[:, n, :] = target
        for i in range(n - 1, -1, -1):  # backward: tail to head
            joints[:, i, :] = _place(
                joints[:, i + 1, :], joints[:, i, :], -bones[:, i, :], lengths[i]
            )
        joints[:, 0, :] = 0.0
        for i in range(n):  # forward: head to tail
            joints[:, i + 1, :] = _place(
                joints[:, i, :], joints[:, i + 1, :], bones[:, i, :], lengths[i]
            )
        steps = np.diff(joints, axis=1)
        new_absolute = np.arctan2(steps[..., 1], steps[..., 0])
        relative = np.diff(new_absolute, axis=-1, prepend=0.0)
        # Express each new angle as the old one plus the shortest change, so that a
        # pose given outside [-pi, pi) stays continuous (and an unchanged pose
        # stays unchanged).
        change = relative - angles
        change = np.where(np.abs(change) > np.pi, wrap_angle(change), change)
        return angles + change, memory

    return step
