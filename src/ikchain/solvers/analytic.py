"""Two-bone closed form: the law of cosines, both elbow branches.

The textbook route, ``dA = acos((d² - L1² - L2²) / (2 L1 L2))``, loses half its
digits where the cosine is near ±1 (full extension and full fold): acos has an
infinite slope there, so a rounding error of 1e-16 in its argument becomes 1e-8 in
the angle. We use the half-angle form instead,

    tan(dA / 2) = sqrt((L1 + L2)² - d²) / sqrt(d² - (L1 - L2)²),

with both radicands written as products of sums and differences, so that each
factor that goes to zero does so exactly: at d = L1 + L2 the angle is 0 to the
last bit, and at d = |L1 - L2| it is exactly ±pi.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ikchain.kinematics import wrap_angle

FloatArray = NDArray[np.float64]


def angles_from_target(lengths: FloatArray, target: FloatArray, bend: int) -> FloatArray:
    """Relative angles (a0, dA) of a two-bone chain whose tip reaches ``target``.

    Parameters
    ----------
    lengths : array, shape (2,)
        ``(L1, L2)`` in metres.
    target : array, shape (..., 2)
        Targets (m).
    bend : {+1, -1}
        Elbow branch: the sign of ``dA`` (+1 bends counter-clockwise).

    Returns
    -------
    angles : array, shape (..., 2)
        ``(a0, dA)`` in radians. A target beyond the outer circle gets the straight
        chain pointing at it; one inside the inner circle gets the fully folded
        chain along its direction: the poses closest to it.
    """
    l1, l2 = float(lengths[0]), float(lengths[1])
    tx, ty = target[..., 0], target[..., 1]
    longest, gap = l1 + l2, abs(l1 - l2)
    d = np.clip(np.hypot(tx, ty), gap, longest)
    # (L1 + L2)² - d² and d² - (L1 - L2)², each exactly 0 at its end of the range.
    opening = (longest - d) * (longest + d)
    closing = (d - gap) * (d + gap)
    angles = np.empty(target.shape)
    elbow = angles[..., 1]
    np.multiply(2.0 * bend, np.arctan2(np.sqrt(opening), np.sqrt(closing)), out=elbow)
    root = np.arctan2(ty, tx) - np.arctan2(l2 * np.sin(elbow), l1 + l2 * np.cos(elbow))
    # Keep the root angle in [-pi, pi]; wrap only where needed, so that in-range
    # values are not touched by the rounding of the wrap itself.
    angles[..., 0] = np.where(np.abs(root) > np.pi, wrap_angle(root), root)
    return angles
