"""How well a pose moves its tip: the manipulability ellipse and the condition number.

The tip Jacobian (:func:`ikchain.kinematics.jacobian_from_angles`) maps joint speeds
to tip speeds; the image of the unit circle of joint speeds is an ellipse about the
tip, whose semi-axes are the Jacobian's singular values. Their ratio, the condition
number, says how unevenly the joints move the tip: 1 when every direction is as easy,
without bound at a straight or folded chain.

The ellipse is computed by a compiled loop over the poses, in closed form (no SVD),
through the kernels the solvers use (:mod:`ikchain.solvers.runner`): a lesson frame
needs it at every drag event. Functions take leading batch dimensions ``...`` on
angles; lengths are one chain's, shape (n,).
"""

from __future__ import annotations

import numpy as np

from ikchain.kinematics import FloatArray
from ikchain.solvers.runner import ellipses


def manipulability_from_angles(lengths: FloatArray, angles: FloatArray) -> FloatArray:
    """The manipulability ellipse of the tip for angles (..., n), shape (..., 3).

    The image of the unit circle of joint velocities under the tip Jacobian,
    ``{J q̇ : |q̇| = 1}``: an ellipse about the tip whose semi-axes are the Jacobian's
    singular values ``σ₁ ≥ σ₂`` (m/rad), along its left singular vectors (the
    eigenvectors of ``J Jᵀ``). The tip moves fastest, ``σ₁`` m per rad of combined
    joint turn, along the long axis; along the short one only ``σ₂``, which is 0 at a
    singular pose (the chain straight or folded: the ellipse is a line segment).
    ``σ₁ / σ₂`` is :func:`condition_from_angles`.

    Parameters
    ----------
    lengths : array, shape (n,)
        Bone lengths (m).
    angles : array, shape (..., n)
        Relative joint angles (rad).

    Returns
    -------
    ellipse : array, shape (..., 3)
        ``σ₁`` (m/rad), ``σ₂`` (m/rad) and the long axis's direction (rad, in
        (-π/2, π/2], from +x: an axis, so a direction and its opposite are one).

    Raises
    ------
    ValueError
        If ``angles``' last axis does not hold one angle per bone.

    Notes
    -----
    Computed without an SVD, in closed form from ``J Jᵀ`` and a Gram–Schmidt step
    on ``J``'s two rows, by a compiled loop over the poses
    (``ikchain.solvers.compiled.ellipse_into``): a microsecond for one pose,
    which a lesson frame needs at every drag event.
    """
    lengths = np.ascontiguousarray(lengths, dtype=np.float64)
    angles = np.asarray(angles, dtype=np.float64)
    if lengths.ndim != 1 or angles.shape[-1:] != lengths.shape:
        raise ValueError(
            f"angles: expected shape (..., {lengths.size}), one per bone, got {angles.shape}"
        )
    poses = np.ascontiguousarray(angles.reshape(-1, lengths.size))
    return ellipses(lengths, poses).reshape(*angles.shape[:-1], 3)


def condition_from_manipulability(ellipse: FloatArray) -> FloatArray:
    """``σ₁ / σ₂`` of :func:`manipulability_from_angles`' ellipses (..., 3), shape (...):
    inf where ``σ₂`` is 0. The one definition of the condition number, so that a caller
    holding the ellipse (a lesson frame draws it) gets the same number without
    computing the ellipse again."""
    ellipse = np.asarray(ellipse, dtype=np.float64)
    sigma2 = ellipse[..., 1]
    out = np.full(sigma2.shape, np.inf)
    return np.divide(ellipse[..., 0], sigma2, out=out, where=sigma2 > 0.0)


def condition_from_angles(lengths: FloatArray, angles: FloatArray) -> FloatArray:
    """Condition number of the tip Jacobian for angles (..., n), shape (...).

    The ratio ``σ₁/σ₂`` of the Jacobian's two singular values
    (:func:`condition_from_manipulability` of :func:`manipulability_from_angles`): near 1
    the joints move the tip equally well in every direction; it grows without bound
    as the chain straightens or folds, where no joint can move the tip along the
    line to the root (inf, or about 1e16 from rounding, when exactly straight).
    """
    return condition_from_manipulability(manipulability_from_angles(lengths, angles))
