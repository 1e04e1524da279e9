"""The solution family of a three-bone chain: self-motion with the tip held still.

With three bones and a reachable target there is a one-parameter family of poses.
We parametrise it by the root angle ``a0``: once bone 1 is fixed, the remaining two
bones form a two-bone chain from joint 1 to the target, solved in closed form. Joint 1
lies on a circle of radius L1; the root angles that work are those for which the
target is within the two-bone reach of joint 1,

    |L2 - L3| <= |t - j1(a0)| <= L2 + L3,
    |t - j1|² = L1² + d² - 2 L1 d cos(a0 - phi),   phi = atan2(ty, tx),

which gives ``beta_min <= |a0 - phi| <= beta_max``. A *family position* ``s`` in
[-1, 1] walks over these: ``a0 - phi = sign(s) (beta_min + |s| (beta_max - beta_min))``.
When ``beta_min > 0`` the two halves (s < 0 and s > 0) are separate pieces of the
family, mirror images of each other, and the position jumps between them at 0.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ikchain.chain import Chain
from ikchain.checks import check_angles, check_bend, check_points, check_real
from ikchain.kinematics import wrap_angle
from ikchain.solvers import solve


def _check_family_chain(chain: Chain) -> None:
    if not isinstance(chain, Chain) or chain.n_bones != 3:
        given = chain.n_bones if isinstance(chain, Chain) else type(chain).__name__
        raise ValueError(f"family: expected a 3-bone Chain, got {given}")
    if chain.limits is not None:
        raise ValueError("family: expected a chain without joint limits, got limits")


def root_angle_range(chain: Chain, target: ArrayLike) -> tuple[float, float, float]:
    """``(phi, beta_min, beta_max)``: root angles ``a0`` of the family satisfy
    ``beta_min <= |a0 - phi| <= beta_max`` (radians).

    Raises
    ------
    ValueError
        If the chain is not three free bones, or the target is out of reach (or at
        the root), where there is no family to move along.
    """
    _check_family_chain(chain)
    tx, ty = (float(v) for v in check_points(target, "target").reshape(2))
    l1, l2, l3 = (float(v) for v in chain.lengths)
    d = math.hypot(tx, ty)
    if not (chain.inner_radius <= d <= chain.outer_radius) or d == 0.0:
        raise ValueError(
            f"family: expected a reachable target away from the root "
            f"({chain.inner_radius:g} <= d <= {chain.outer_radius:g}, d > 0), got d = {d!r}"
        )
    base = l1 * l1 + d * d
    far = (base - (l2 + l3) ** 2) / (2.0 * l1 * d)  # cos(beta) >= far
    near = (base - (l2 - l3) ** 2) / (2.0 * l1 * d)  # cos(beta) <= near
    beta_max = math.acos(max(-1.0, min(1.0, far)))
    beta_min = math.acos(max(-1.0, min(1.0, near)))
    return math.atan2(ty, tx), beta_min, beta_max


def angles_from_family(
    chain: Chain, target: ArrayLike, position: float, bend: int = 1
) -> NDArray[np.float64]:
    """The pose at family position ``position`` in [-1, 1], shape (3,), radians.

    ``bend`` picks the elbow branch of the last two bones (the sign of the third
    joint's angle).
    """
    position = check_real(position, "family")
    if not -1.0 <= position <= 1.0:
        raise ValueError(f"family: expected a position in [-1, 1], got {position}")
    bend = check_bend(bend)
    phi, beta_min, beta_max = root_angle_range(chain, target)
    sign = -1.0 if position < 0.0 else 1.0
    root = phi + sign * (beta_min + abs(position) * (beta_max - beta_min))
    l1 = float(chain.lengths[0])
    tx, ty = (float(v) for v in np.asarray(target, dtype=float).reshape(2))
    # The target seen from joint 1, in the frame of bone 1.
    rx, ry = tx - l1 * math.cos(root), ty - l1 * math.sin(root)
    c, s = math.cos(root), math.sin(root)
    local = [c * rx + s * ry, -s * rx + c * ry]
    rest = solve(Chain(chain.lengths[1:]), local, "analytic", bend=bend).angles
    return np.array([root, rest[0], rest[1]])


def family_from_angles(chain: Chain, target: ArrayLike, angles: ArrayLike) -> float:
    """Family position in [-1, 1] of the pose nearest ``angles`` by root angle.

    The inverse of :func:`angles_from_family` for poses on the family; for any other
    pose, the position whose root angle is closest to ``angles[0]``.
    """
    angles = check_angles(angles, 3, "angles").reshape(3)
    phi, beta_min, beta_max = root_angle_range(chain, target)
    beta = float(wrap_angle(float(angles[0]) - phi))
    sign = -1.0 if beta < 0.0 else 1.0
    if beta_max <= beta_min:
        return sign
    return sign * min(1.0, max(0.0, (abs(beta) - beta_min) / (beta_max - beta_min)))
