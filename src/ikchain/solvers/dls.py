"""Damped least squares (Levenberg-Marquardt) on the tip Jacobian.

Each iteration solves ``(J Jᵀ + λ² I) y = e`` and turns the joints by ``Jᵀ y``,
where ``e`` is the tip-to-target error and ``J`` the 2 × n tip Jacobian. The
2 × 2 system is solved in closed form. The damping adapts to the error, after
Sugihara's rule for solvability-unconcerned IK: ``λ² = c |e|² + bias``, so steps
are cautious while the tip is far (and stay finite at singular poses, where J Jᵀ
loses rank) and become Gauss-Newton steps, with quadratic convergence, as the error
vanishes. A step that would raise the error is retried with ten times the damping,
a few times, inside the same iteration.

Before the linearised step, the root joint turns so that the tip points straight at
the target: an exact one-joint solve (the root's CCD turn). The swing about the root
is the one motion a linear model gets badly wrong when it is large, and the tip's
distance from the root, which the other joints control, does not depend on it.
Measured on random reachable targets, this takes the worst case from over 30
iterations to 12 (``ikchain bench``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ikchain.kinematics import end_from_angles, jacobian_from_angles

FloatArray = NDArray[np.float64]

#: λ² per squared metre of end error.
ERROR_WEIGHT = 0.03
#: Constant part of λ², relative to (sum of lengths)².
BIAS = 1e-9
#: Retries with larger damping when a step would raise the error.
RETRIES = 6


def _damped_step(jacobian: FloatArray, error: FloatArray, damping2: FloatArray) -> FloatArray:
    """``Jᵀ (J Jᵀ + λ² I)⁻¹ e`` for J (m, 2, n), e (m, 2), λ² (m,) → (m, n)."""
    jx, jy = jacobian[:, 0, :], jacobian[:, 1, :]
    a = np.einsum("ij,ij->i", jx, jx) + damping2
    b = np.einsum("ij,ij->i", jx, jy)
    c = np.einsum("ij,ij->i", jy, jy) + damping2
    det = a * c - b * b  # > 0: λ² > 0 keeps the matrix positive definite
    yx = (c * error[:, 0] - b * error[:, 1]) / det
    yy = (a * error[:, 1] - b * error[:, 0]) / det
    return jx * yx[:, None] + jy * yy[:, None]


def make_step(lengths: FloatArray, damping: float, limits: FloatArray | None):
    """A damped least-squares iteration for the shared loop.

    ``damping`` here is the fraction of each step taken, as for CCD; the
    Levenberg-Marquardt λ is chosen by the solver itself.
    """
    bias = BIAS * float(np.sum(lengths)) ** 2

    def clip(angles: FloatArray) -> FloatArray:
        if limits is None:
            return angles
        return np.clip(angles, limits[:, 0], limits[:, 1])

    def step(
        angles: FloatArray, target: FloatArray, memory: FloatArray | None
    ) -> tuple[FloatArray, FloatArray | None]:
        start2 = _error2(lengths, angles, target)
        aimed = clip(_aim_root(lengths, angles, target, damping))
        error = target - end_from_angles(lengths, aimed)
        error2 = np.einsum("ij,ij->i", error, error)
        jacobian = jacobian_from_angles(lengths, aimed)
        damping2 = ERROR_WEIGHT * error2 + bias
        new = clip(aimed + damping * _damped_step(jacobian, error, damping2))
        worse = np.flatnonzero(_error2(lengths, new, target) > start2)
        for _ in range(RETRIES):
            if worse.size == 0:
                break
            damping2[worse] *= 10.0
            candidate = clip(
                aimed[worse]
                + damping * _damped_step(jacobian[worse], error[worse], damping2[worse])
            )
            new[worse] = candidate
            still = _error2(lengths, candidate, target[worse]) > start2[worse]
            worse = worse[still]
        new[worse] = angles[worse]  # no step helped: stay (the loop reports a stall)
        return new, memory

    return step


def _aim_root(
    lengths: FloatArray, angles: FloatArray, target: FloatArray, damping: float
) -> FloatArray:
    """Turn joint 0 (times ``damping``) so that the tip points at the target."""
    end = end_from_angles(lengths, angles)
    cross = end[:, 0] * target[:, 1] - end[:, 1] * target[:, 0]
    dot = end[:, 0] * target[:, 0] + end[:, 1] * target[:, 1]
    aimed = angles.copy()
    aimed[:, 0] += damping * np.arctan2(cross, dot)  # 0 when tip or target is at the root
    return aimed


def _error2(lengths: FloatArray, angles: FloatArray, target: FloatArray) -> FloatArray:
    """Squared end error, shape (m,)."""
    gap = target - end_from_angles(lengths, angles)
    return np.einsum("ij,ij->i", gap, gap)
