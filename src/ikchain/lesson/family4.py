"""The solution family of a four-bone chain: two sliders, the tip held still.

With four bones and a reachable target the poses that reach it form a
two-parameter family. The lesson walks it with two positions in [-1, 1]:

- ``s1`` sets the root angle, and with it joint 1. Joint 1 lies on a circle of
  radius L1; the root angles that work are those from which the last three bones
  can still reach the target, ``inner3 <= |t - j1(a0)| <= outer3`` (the annulus of
  the three-bone chain L2, L3, L4), walked exactly as :mod:`ikchain.family` walks
  the three-bone case.
- ``s2`` is then the three-bone family position (:func:`ikchain.family.
  angles_from_family`) of the last three bones, from joint 1 to the target, in the
  frame of bone 1: it moves joint 2 while joint 1 and the tip stay where they are.

The one three-bone family implementation does the inner work; this module only
adds the outer root angle. Used by :mod:`ikchain.lesson.frames` for the 2.3 figure.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ikchain.chain import Chain
from ikchain.checks import check_angles, check_points, check_real
from ikchain.family import angles_from_family, family_from_angles
from ikchain.kinematics import wrap_angle

#: Shrink the root-angle range by this fraction at both ends, so that rounding never
#: puts the last three bones' target a hair outside their reach.
EDGE = 1e-9


def _check_chain(chain: Chain) -> None:
    if not isinstance(chain, Chain) or chain.n_bones != 4:
        given = chain.n_bones if isinstance(chain, Chain) else type(chain).__name__
        raise ValueError(f"family: expected a 4-bone Chain, got {given}")
    if chain.limits is not None:
        raise ValueError("family: expected a chain without joint limits, got limits")


def root_range(chain: Chain, target: ArrayLike) -> tuple[float, float, float]:
    """``(phi, beta_min, beta_max)``: the root angles ``a0`` of the family satisfy
    ``beta_min <= |a0 - phi| <= beta_max`` (radians).

    Raises
    ------
    ValueError
        If the chain is not four free bones, or the target is out of reach or at
        the root.
    """
    _check_chain(chain)
    tx, ty = (float(v) for v in check_points(target, "target").reshape(2))
    d = math.hypot(tx, ty)
    if not (chain.inner_radius <= d <= chain.outer_radius) or d == 0.0:
        raise ValueError(
            f"family: expected a reachable target away from the root "
            f"({chain.inner_radius:g} <= d <= {chain.outer_radius:g}, d > 0), got d = {d!r}"
        )
    rest = Chain(chain.lengths[1:])
    l1 = float(chain.lengths[0])
    base = l1 * l1 + d * d
    far = (base - rest.outer_radius**2) / (2.0 * l1 * d)  # cos(beta) >= far
    near = (base - rest.inner_radius**2) / (2.0 * l1 * d)  # cos(beta) <= near
    beta_max = math.acos(max(-1.0, min(1.0, far)))
    beta_min = math.acos(max(-1.0, min(1.0, near)))
    span = beta_max - beta_min
    return math.atan2(ty, tx), beta_min + EDGE * span, beta_max - EDGE * span


def _rest_target(chain: Chain, target: ArrayLike, root: float) -> list[float]:
    """The target seen from joint 1, in the frame of bone 1."""
    l1 = float(chain.lengths[0])
    tx, ty = (float(v) for v in np.asarray(target, dtype=float).reshape(2))
    rx, ry = tx - l1 * math.cos(root), ty - l1 * math.sin(root)
    c, s = math.cos(root), math.sin(root)
    return [c * rx + s * ry, -s * rx + c * ry]


def angles_from_positions(
    chain: Chain, target: ArrayLike, positions: tuple[float, float], bend: int = 1
) -> NDArray[np.float64]:
    """The pose at family positions ``(s1, s2)``, each in [-1, 1]; shape (4,), radians.

    ``bend`` picks the elbow branch of the last two bones.
    """
    s1, s2 = (check_real(v, "family") for v in positions)
    for value in (s1, s2):
        if not -1.0 <= value <= 1.0:
            raise ValueError(f"family: expected positions in [-1, 1], got {value}")
    phi, beta_min, beta_max = root_range(chain, target)
    sign = -1.0 if s1 < 0.0 else 1.0
    root = phi + sign * (beta_min + abs(s1) * (beta_max - beta_min))
    rest = angles_from_family(Chain(chain.lengths[1:]), _rest_target(chain, target, root), s2, bend)
    return np.array([root, *rest])


def positions_from_angles(
    chain: Chain, target: ArrayLike, angles: ArrayLike
) -> tuple[float, float]:
    """Family positions ``(s1, s2)`` of the pose nearest ``angles``; the inverse of
    :func:`angles_from_positions` for poses on the family."""
    angles = check_angles(angles, 4, "angles").reshape(4)
    phi, beta_min, beta_max = root_range(chain, target)
    beta = float(wrap_angle(float(angles[0]) - phi))
    sign = -1.0 if beta < 0.0 else 1.0
    if beta_max <= beta_min:
        s1 = sign
    else:
        s1 = sign * min(1.0, max(0.0, (abs(beta) - beta_min) / (beta_max - beta_min)))
    root = phi + sign * (beta_min + abs(s1) * (beta_max - beta_min))
    rest = Chain(chain.lengths[1:])
    s2 = family_from_angles(rest, _rest_target(chain, target, root), angles[1:])
    return s1, s2
