"""Cyclic coordinate descent: one sweep from the tip's joint back to the root.

Each joint in turn, tail first, turns so that the line from it to the tip points at
the target. The turn is an ``atan2`` of the cross and dot products of the two lines,
which needs no clamping (an ``acos`` of their normalised dot product would, and
would lose the sign). A damping factor scales each turn, an optional cap bounds it,
and joint limits are applied right after each joint turns, before the next joint
looks at the tip.

Two implementations of the one sweep, operation for operation: :func:`make_step`
over a batch (numpy columns) for :func:`ikchain.solvers.loop.iterate`, and
:func:`make_step_one` for one target in Python floats for
:func:`ikchain.solvers.loop.iterate_one`, which a single solve through
:func:`ikchain.solve` runs (numpy's per-call overhead is most of a small chain's
sweep). ``tests/test_perf_twins.py`` holds the two to the same numbers. The one
``atan2`` a joint is numpy's in both (its SIMD ``arctan2`` differs from libm's
``math.atan2`` in the last bit, and a sweep's turns feed each other).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ikchain.kinematics import joints_from_angles, joints_one

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


def make_step_one(
    lengths: list[float],
    damping: float,
    max_step: float | None,
    limits: list[tuple[float, float]] | None,
):
    """:func:`make_step`'s sweep for one target in Python floats (a ``StepOne``)."""
    n = len(lengths)
    tail_first = range(n - 1, -1, -1)
    lows = highs = None
    if limits is not None:
        lows = [low for low, _ in limits]
        highs = [high for _, high in limits]
    arctan2, cos, sin = np.arctan2, math.cos, math.sin

    def step_one(
        angles: list[float], xs: list[float], ys: list[float], tx: float, ty: float
    ) -> tuple[list[float], list[float], list[float]]:
        angles = list(angles)
        x, y = xs[n], ys[n]  # the tip, carried along the sweep
        for i in tail_first:  # the pivots are the joints of the pose the sweep began at
            px, py = xs[i], ys[i]
            ux, uy = x - px, y - py  # to the tip
            vx, vy = tx - px, ty - py  # to the target
            turn = float(arctan2(ux * vy - uy * vx, ux * vx + uy * vy))
            if damping != 1.0:
                turn *= damping
            if max_step is not None:
                turn = turn if turn >= -max_step else -max_step
                turn = turn if turn <= max_step else max_step
            if lows is not None:  # np.clip with scalar bounds: the value wins a tie
                turned = angles[i] + turn
                turned = turned if turned >= lows[i] else lows[i]
                turned = turned if turned <= highs[i] else highs[i]
                turn = turned - angles[i]
                angles[i] = turned
            else:
                angles[i] += turn
            c, s = cos(turn), sin(turn)
            x = px + (c * ux - s * uy)
            y = py + (s * ux + c * uy)
        xs, ys = joints_one(lengths, angles)
        return angles, xs, ys

    return step_one
