"""FABRIK: a backward and a forward pass over joint positions, then back to angles.

Backward (tail to head): put the tip on the target and pull each joint towards the
one after it, keeping bone lengths. Forward (head to tail): put the root back at the
origin and pull each joint towards the one before it. The new positions are turned
back into relative angles, so the shared loop and the result see angles as with
every other solver.

Two implementations of the one iteration, operation for operation: :func:`make_step`
over a batch for :func:`ikchain.solvers.loop.iterate` and :func:`make_step_one` for
one target in Python floats for :func:`ikchain.solvers.loop.iterate_one` (single
solves through :func:`ikchain.solve`); ``tests/test_perf_twins.py`` holds the two to
the same numbers. The ``atan2`` is numpy's in both.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ikchain.kinematics import HUGE, joints_from_angles, joints_one, norm_one, wrap_angle
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


def make_step_one(lengths: list[float]):
    """:func:`make_step`'s iteration for one target in Python floats (a ``StepOne``).

    :func:`_place` is written out in both passes: where the gap to the next joint is
    0, the bone keeps its previous direction.
    """
    n = len(lengths)
    tail_first = range(n - 1, -1, -1)
    head_first = range(n)
    arctan2, cos, sin, sqrt = np.arctan2, math.cos, math.sin, math.sqrt
    pi, full_turn = math.pi, 2.0 * math.pi

    def step_one(
        angles: list[float], xs: list[float], ys: list[float], tx: float, ty: float
    ) -> tuple[list[float], list[float], list[float]]:
        # Unit direction of each bone before the passes: the fallback for zero gaps.
        absolute = angles[0]
        cs, ss = [cos(absolute)], [sin(absolute)]
        for i in range(1, n):
            absolute += angles[i]
            cs.append(cos(absolute))
            ss.append(sin(absolute))
        jx, jy = list(xs), list(ys)
        jx[n], jy[n] = tx, ty
        for i in tail_first:  # backward: tail to head
            ax, ay = jx[i + 1], jy[i + 1]
            ox, oy = jx[i] - ax, jy[i] - ay
            gap = sqrt(ox * ox + oy * oy)
            if not gap < HUGE:
                gap = norm_one(ox, oy)
            dx, dy = (ox / gap, oy / gap) if gap > 0.0 else (-cs[i], -ss[i])
            jx[i], jy[i] = ax + lengths[i] * dx, ay + lengths[i] * dy
        jx[0] = jy[0] = 0.0
        for i in head_first:  # forward: head to tail
            ax, ay = jx[i], jy[i]
            ox, oy = jx[i + 1] - ax, jy[i + 1] - ay
            gap = sqrt(ox * ox + oy * oy)
            if not gap < HUGE:
                gap = norm_one(ox, oy)
            dx, dy = (ox / gap, oy / gap) if gap > 0.0 else (cs[i], ss[i])
            jx[i + 1], jy[i + 1] = ax + lengths[i] * dx, ay + lengths[i] * dy
        new_absolute = arctan2(
            [jy[i + 1] - jy[i] for i in head_first], [jx[i + 1] - jx[i] for i in head_first]
        ).tolist()
        # Each new angle as the old one plus the shortest change (see make_step).
        new = []
        previous = 0.0
        for i in head_first:
            change = (new_absolute[i] - previous) - angles[i]
            previous = new_absolute[i]
            if (change if change >= 0.0 else -change) > pi:
                change = (change + pi) % full_turn - pi  # wrap_angle
            new.append(angles[i] + change)
        xs, ys = joints_one(lengths, new)
        return new, xs, ys

    return step_one
