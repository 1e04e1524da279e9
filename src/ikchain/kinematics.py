"""Forward kinematics of a planar chain: joint positions, the tip Jacobian, reach
(the ellipse and condition number the Jacobian gives: :mod:`ikchain.manipulability`).

All functions take leading batch dimensions ``...`` on angles and targets; lengths
are one chain's, shape (n,). Angles are relative, in radians; positions in metres.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

#: ``sqrt(x² + y²)`` is exact to rounding below this (the squares cannot overflow);
#: beyond it, where the sum of squares is infinite, ``hypot`` takes over.
HUGE = math.inf


def joints_from_angles(lengths: FloatArray, angles: FloatArray) -> FloatArray:
    """Joint positions from relative joint angles.

    Parameters
    ----------
    lengths : array, shape (n,)
        Bone lengths (m).
    angles : array, shape (..., n)
        Relative joint angles (rad); joint 0 is measured from +x.

    Returns
    -------
    joints : array, shape (..., n + 1, 2)
        Root (always the origin), each joint, and the tip last.
    """
    absolute = np.cumsum(angles, axis=-1)
    joints = np.zeros((*absolute.shape[:-1], absolute.shape[-1] + 1, 2))
    np.cumsum(lengths * np.cos(absolute), axis=-1, out=joints[..., 1:, 0])
    np.cumsum(lengths * np.sin(absolute), axis=-1, out=joints[..., 1:, 1])
    return joints


def end_from_angles(lengths: FloatArray, angles: FloatArray) -> FloatArray:
    """Tip position, shape (..., 2), from relative angles of shape (..., n).

    The bones are summed root to tip, one after the other (the order of
    :func:`joints_from_angles`), so the tip is that function's last joint to the bit.
    """
    absolute = np.cumsum(angles, axis=-1)
    cos, sin = np.cos(absolute), np.sin(absolute)
    end = np.empty((*absolute.shape[:-1], 2))
    x, y = end[..., 0], end[..., 1]
    np.multiply(lengths[0], cos[..., 0], out=x)
    np.multiply(lengths[0], sin[..., 0], out=y)
    for i in range(1, lengths.size):
        x += lengths[i] * cos[..., i]
        y += lengths[i] * sin[..., i]
    return end


def jacobian_from_angles(lengths: FloatArray, angles: FloatArray) -> FloatArray:
    """Tip Jacobian d(end)/d(angles), shape (..., 2, n), in metres per radian.

    Turning joint ``i`` by a small angle moves the tip perpendicular to the line
    from joint ``i`` to the tip, at a speed equal to that line's length.
    """
    joints = joints_from_angles(lengths, angles)
    arm = joints[..., -1:, :] - joints[..., :-1, :]  # (..., n, 2): joint i -> tip
    jacobian = np.empty((*arm.shape[:-2], 2, arm.shape[-2]))
    jacobian[..., 0, :] = -arm[..., 1]
    jacobian[..., 1, :] = arm[..., 0]
    return jacobian


def reach_from_lengths(lengths: FloatArray) -> tuple[float, float]:
    """Inner and outer radius of the annulus a free-jointed chain can reach (m).

    The outer radius is the sum of the lengths (the chain laid straight); the inner
    one is ``max(0, 2 max(L) - sum(L))``: the longest bone folded back on all the
    others cannot come closer to the root than that.
    """
    outer = float(np.sum(lengths))
    longest = int(np.argmax(lengths))
    # Longest minus the sum of the others, one rounding step: for two bones this is
    # exactly the float |L1 - L2| that the closed form folds to.
    others = float(np.sum(np.concatenate((lengths[:longest], lengths[longest + 1 :]))))
    inner = max(0.0, float(lengths[longest]) - others)
    return inner, outer


def min_error_from_distance(distance: FloatArray | float, inner: float, outer: float) -> FloatArray:
    """Smallest end error any pose can have at root distance ``distance`` (m).

    ``max(0, d - outer, inner - d)``: zero inside the annulus, else the distance
    to the nearer of its two circles.
    """
    return np.maximum(0.0, np.maximum(distance - outer, inner - distance))


def min_error_from_target(lengths: FloatArray, target: FloatArray) -> FloatArray:
    """Distance from targets of shape (..., 2) to the reachable annulus, shape (...)."""
    inner, outer = reach_from_lengths(lengths)
    return min_error_from_distance(norm(target[..., 0], target[..., 1]), inner, outer)


def norm(x: FloatArray, y: FloatArray) -> FloatArray:
    """``sqrt(x² + y²)``: the length of vectors (x, y), shape of ``x``.

    Written out rather than ``np.hypot``, which runs libm's scalar ``hypot`` (eight
    times slower here) and which plain Python cannot repeat to the bit; the two agree
    to an ulp. Where the squares overflow, ``hypot`` is used (and numpy's overflow
    warning, which would say nothing true of the answer, is not raised).
    """
    with np.errstate(over="ignore"):
        out = np.sqrt(x * x + y * y)
    if out.size and not np.max(out) < HUGE:
        big = ~(out < HUGE)
        out = np.where(big, np.hypot(x, y), out)
    return out


def distance(a: FloatArray, b: FloatArray) -> FloatArray:
    """Euclidean distance between points of shape (..., 2), shape (...)."""
    return norm(a[..., 0] - b[..., 0], a[..., 1] - b[..., 1])


def wrap_angle(angles: FloatArray | float) -> FloatArray | float:
    """Angles wrapped to (-pi, pi] (rad), any shape; the solvers compile this one.

    ``pi - ((pi - a) mod 2 pi)``, the modulo in [0, 2 pi] (2 pi only by rounding, a
    hair above pi, which the last line turns from -pi into pi).
    """
    wrapped = np.pi - np.mod(np.pi - angles, 2.0 * np.pi)
    return wrapped + 2.0 * np.pi * (wrapped <= -np.pi)
