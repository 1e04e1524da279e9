"""Solution families: self-motion of a three- or four-bone chain with the tip held still.

**Three bones.** With a reachable target there is a one-parameter family of poses.
We parametrise it by the root angle ``a0``: once bone 1 is fixed, the remaining two
bones form a two-bone chain from joint 1 to the target, solved in closed form. Joint 1
lies on a circle of radius L1; the root angles that work are those for which the
target is within the two-bone reach of joint 1::

    |L2 - L3| <= |t - j1(a0)| <= L2 + L3,
    |t - j1|² = L1² + d² - 2 L1 d cos(a0 - phi),   phi = atan2(ty, tx),

which gives ``beta_min <= |a0 - phi| <= beta_max``. A *family position* ``s`` in
[-1, 1] walks over these: ``a0 - phi = sign(s) (beta_min + |s| (beta_max - beta_min))``.
When ``beta_min > 0`` the two halves (s < 0 and s > 0) are separate pieces of the
family, mirror images of each other, and the position jumps between them at 0.

**Four bones.** The poses that reach a target form a two-parameter family, walked
with two positions ``(s1, s2)`` in [-1, 1]:

- ``s1`` sets the root angle, and with it joint 1, exactly as above but with the
  annulus of the three-bone chain L2, L3, L4 in place of the two-bone one;
- ``s2`` is then the three-bone family position of the last three bones, from
  joint 1 to the target, in the frame of bone 1: it moves joint 2 while joint 1 and
  the tip stay where they are.

The three-bone family does the inner work of the four-bone one; every pose is closed
form (the two-bone branch is ``solve(..., "analytic")``), so none is iterated.

>>> import ikchain
>>> chain = ikchain.Chain([0.5, 0.4, 0.3])
>>> angles = ikchain.family.angles_from_family(chain, [0.9, 0.5], 0.25)
>>> tip = ikchain.joints_from_angles(chain.lengths, angles)[-1]
>>> bool(abs(tip[0] - 0.9) < 1e-12 and abs(tip[1] - 0.5) < 1e-12)
True
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ikchain.chain import Chain
from ikchain.checks import check_angles, check_bend, check_points, check_real
from ikchain.kinematics import reach_from_lengths, wrap_angle
from ikchain.solvers import solve

#: Four bones: shrink the root-angle range by this fraction at both ends, so that
#: rounding never puts the last three bones' target a hair outside their reach.
EDGE = 1e-9


def _check_family_chain(chain: Chain, bones: int) -> None:
    if not isinstance(chain, Chain) or chain.n_bones != bones:
        given = chain.n_bones if isinstance(chain, Chain) else type(chain).__name__
        raise ValueError(f"family: expected a {bones}-bone Chain, got {given}")
    if chain.limits is not None:
        raise ValueError("family: expected a chain without joint limits, got limits")


def _root_range(chain: Chain, target: ArrayLike) -> tuple[float, float, float]:
    """``(phi, beta_min, beta_max)`` for any free chain of three bones or more: the
    root angles from which the bones after the first can still reach the target."""
    tx, ty = (float(v) for v in check_points(target, "target").reshape(2))
    d = math.hypot(tx, ty)
    if not (chain.inner_radius <= d <= chain.outer_radius) or d == 0.0:
        raise ValueError(
            f"family: expected a reachable target away from the root "
            f"({chain.inner_radius:g} <= d <= {chain.outer_radius:g}, d > 0), got d = {d!r}"
        )
    inner, outer = reach_from_lengths(chain.lengths[1:])  # of the bones after the first
    l1 = float(chain.lengths[0])
    base = l1 * l1 + d * d
    far = (base - outer**2) / (2.0 * l1 * d)  # cos(beta) >= far
    near = (base - inner**2) / (2.0 * l1 * d)  # cos(beta) <= near
    beta_max = math.acos(max(-1.0, min(1.0, far)))
    beta_min = math.acos(max(-1.0, min(1.0, near)))
    return math.atan2(ty, tx), beta_min, beta_max


def _root_angle(phi: float, beta_min: float, beta_max: float, position: float) -> float:
    """The root angle at family position ``position`` in [-1, 1]."""
    sign = -1.0 if position < 0.0 else 1.0
    return phi + sign * (beta_min + abs(position) * (beta_max - beta_min))


def _position_of_root(phi: float, beta_min: float, beta_max: float, root: float) -> float:
    """The family position whose root angle is nearest ``root`` (the inverse of
    :func:`_root_angle` on the family)."""
    beta = float(wrap_angle(root - phi))
    sign = -1.0 if beta < 0.0 else 1.0
    if beta_max <= beta_min:
        return sign
    return sign * min(1.0, max(0.0, (abs(beta) - beta_min) / (beta_max - beta_min)))


def _local_target(chain: Chain, target: ArrayLike, root: float) -> list[float]:
    """The target seen from joint 1, in the frame of bone 1."""
    l1 = float(chain.lengths[0])
    tx, ty = (float(v) for v in np.asarray(target, dtype=float).reshape(2))
    rx, ry = tx - l1 * math.cos(root), ty - l1 * math.sin(root)
    c, s = math.cos(root), math.sin(root)
    return [c * rx + s * ry, -s * rx + c * ry]


def _check_position(value: float) -> float:
    value = check_real(value, "family")
    if not -1.0 <= value <= 1.0:
        raise ValueError(f"family: expected a position in [-1, 1], got {value}")
    return value


# -- Three bones -----------------------------------------------------------------------


def root_angle_range(chain: Chain, target: ArrayLike) -> tuple[float, float, float]:
    """``(phi, beta_min, beta_max)``: root angles ``a0`` of the family satisfy
    ``beta_min <= |a0 - phi| <= beta_max`` (radians).

    Raises
    ------
    ValueError
        If the chain is not three free bones, or the target is out of reach (or at
        the root), where there is no family to move along.
    """
    _check_family_chain(chain, 3)
    return _root_range(chain, target)


def angles_from_family(
    chain: Chain, target: ArrayLike, position: float, bend: int = 1
) -> NDArray[np.float64]:
    """The pose at family position ``position`` in [-1, 1], shape (3,), radians.

    ``bend`` picks the elbow branch of the last two bones (the sign of the third
    joint's angle).
    """
    position = _check_position(position)
    bend = check_bend(bend)
    root = _root_angle(*root_angle_range(chain, target), position)
    local = _local_target(chain, target, root)
    rest = solve(Chain(chain.lengths[1:]), local, "analytic", bend=bend).angles
    return np.array([root, rest[0], rest[1]])


def family_from_angles(chain: Chain, target: ArrayLike, angles: ArrayLike) -> float:
    """Family position in [-1, 1] of the pose nearest ``angles`` by root angle.

    The inverse of :func:`angles_from_family` for poses on the family; for any other
    pose, the position whose root angle is closest to ``angles[0]``.
    """
    angles = check_angles(angles, 3, "angles").reshape(3)
    return _position_of_root(*root_angle_range(chain, target), float(angles[0]))


# -- Four bones ------------------------------------------------------------------------


def root_angle_range4(chain: Chain, target: ArrayLike) -> tuple[float, float, float]:
    """``(phi, beta_min, beta_max)`` of a four-bone chain: the root angles ``a0`` of its
    family satisfy ``beta_min <= |a0 - phi| <= beta_max`` (radians), shrunk by
    :data:`EDGE` of the span at both ends.

    Raises
    ------
    ValueError
        If the chain is not four free bones, or the target is out of reach or at
        the root.
    """
    _check_family_chain(chain, 4)
    phi, beta_min, beta_max = _root_range(chain, target)
    span = beta_max - beta_min
    return phi, beta_min + EDGE * span, beta_max - EDGE * span


def angles_from_family4(
    chain: Chain, target: ArrayLike, positions: tuple[float, float], bend: int = 1
) -> NDArray[np.float64]:
    """The four-bone pose at family positions ``(s1, s2)``, each in [-1, 1]; shape (4,),
    radians. ``bend`` picks the elbow branch of the last two bones."""
    s1, s2 = (_check_position(v) for v in positions)
    root = _root_angle(*root_angle_range4(chain, target), s1)
    rest = angles_from_family(
        Chain(chain.lengths[1:]), _local_target(chain, target, root), s2, bend
    )
    return np.array([root, *rest])


def family4_from_angles(chain: Chain, target: ArrayLike, angles: ArrayLike) -> tuple[float, float]:
    """Family positions ``(s1, s2)`` of the four-bone pose nearest ``angles``; the
    inverse of :func:`angles_from_family4` for poses on the family."""
    angles = check_angles(angles, 4, "angles").reshape(4)
    phi, beta_min, beta_max = root_angle_range4(chain, target)
    s1 = _position_of_root(phi, beta_min, beta_max, float(angles[0]))
    root = _root_angle(phi, beta_min, beta_max, s1)
    rest = Chain(chain.lengths[1:])
    s2 = family_from_angles(rest, _local_target(chain, target, root), angles[1:])
    return s1, s2
