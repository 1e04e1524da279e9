"""Cyclic coordinate descent: one sweep from the tip's joint back to the root.

Each joint in turn, tail first, turns so that the line from it to the tip points at
the target. The turn is an ``atan2`` of the cross and dot products of the two lines,
which needs no clamping (an ``acos`` of their normalised dot product would, and
would lose the sign). A damping factor scales each turn, an optional cap bounds it,
and joint limits are applied right after each joint turns, before the next joint
looks at the tip.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ikchain.kinematics import joints_from_angles

FloatArray = NDArray[np.float64]


def make_step(
    lengths: FloatArray,
    damping: float,
    max_step: float | None,
    limits: FloatArray | None,
):
    """A CCD sweep for the shared loop (see :mod:`ikchain.solvers.loop`)."""

    def step(
        angles: FloatArray, target: FloatArray, memory: FloatArray | None
    ) -> tuple[FloatArray, FloatArray | None]:
        angles = angles.copy()
        # Joints j <= i do not move while joints >= i turn, so one forward pass per
        # sweep gives every pivot; only the tip is carried along the sweep.
        joints = joints_from_angles(lengths, angles)
        tip = joints[:, -1, :].copy()
        for i in range(lengths.size - 1, -1, -1):  # tail (nearest the tip) to head
            pivot = joints[:, i, :]
            to_tip = tip - pivot
            to_target = target - pivot
            cross = to_tip[:, 0] * to_target[:, 1] - to_tip[:, 1] * to_target[:, 0]
            dot = to_tip[:, 0] * to_target[:, 0] + to_tip[:, 1] * to_target[:, 1]
            turn = np.arctan2(cross, dot)  # 0 when either line has zero length
            if damping != 1.0:
                turn *= damping
            if max_step is not None:
                np.clip(turn, -max_step, max_step, out=turn)
            if limits is not None:
                turned = np.clip(angles[:, i] + turn, limits[i, 0], limits[i, 1])
                turn = turned - angles[:, i]
                angles[:, i] = turned
            else:
                angles[:, i] += turn
            cos, sin = np.cos(turn), np.sin(turn)
            tip = pivot + np.stack(
                (cos * to_tip[:, 0] - sin * to_tip[:, 1], sin * to_tip[:, 0] + cos * to_tip[:, 1]),
                axis=-1,
            )
        return angles, memory

    return step
