"""The pole's rule, piece by piece: which of two answers wins, and the two-bone mirror.

The end-to-end pole tests (test_pole.py) rarely meet the cases where the rule's margins
or the mirror decide: CCD and FABRIK from the two bent starts seldom both end on the
wrong side. Here each piece is checked on answers made to order, against geometry
written in the test (cross products, forward kinematics summed bone by bone).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ikchain
from ikchain.solvers import pole as pole_rule

TOLERANCE = 1e-3
TARGET = np.array([1.0, 0.0])
POLE = np.array([0.5, 1.0])  # above the root-target line (the x axis)


def _answer(elbow_y: float, error: float) -> ikchain.Result:
    """A two-bone answer whose elbow sits at height ``elbow_y``, ``error`` from the target."""
    joints = np.array([[0.0, 0.0], [0.5, elbow_y], [1.0, 0.0]])
    return ikchain.Result(
        np.zeros(2),
        joints,
        joints[-1],
        TARGET,
        error,
        0.0,
        True,
        3,
        ikchain.Status.CONVERGED,
        "ccd",
    )


def _cross(a, b) -> np.ndarray:
    a, b = np.asarray(a), np.asarray(b)
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _better(a: ikchain.Result, b: ikchain.Result) -> bool:
    return bool(pole_rule._better(a, b, TARGET, POLE, TOLERANCE))


def test_the_pole_side_wins_unless_it_ends_farther_by_more_than_the_tolerance() -> None:
    below = _answer(-0.3, 0.0)
    assert _better(_answer(0.3, 0.0), below)
    assert _better(_answer(0.3, 0.9 * TOLERANCE), below)
    assert not _better(_answer(0.3, 1.1 * TOLERANCE), below)
    assert not _better(_answer(0.3, 2.0 * TOLERANCE), below)


def test_the_other_side_wins_only_when_nearer_by_more_than_the_tolerance() -> None:
    above = _answer(0.3, 2.0 * TOLERANCE)
    assert not _better(_answer(-0.3, 1.5 * TOLERANCE), above)  # nearer by 0.5 tol: no
    assert _better(_answer(-0.3, 0.5 * TOLERANCE), above)  # nearer by 1.5 tol: yes
    assert _better(_answer(-0.3, 0.0), above)


def test_the_mirror_of_a_two_bone_pose_keeps_the_tip_and_crosses_the_line() -> None:
    rng = np.random.default_rng(7)
    lengths = np.array([0.8, 0.6])
    angles = rng.uniform(-math.pi, math.pi, (200, 2))
    angles[:, 1] = np.where(np.abs(angles[:, 1]) < 0.05, 0.5, angles[:, 1])  # bent elbows
    joints = ikchain.joints_from_angles(lengths, angles)
    mirror = pole_rule._mirrored(angles, joints)
    absolute = np.cumsum(mirror, axis=-1)
    bones = np.stack([np.cos(absolute), np.sin(absolute)], axis=-1) * lengths[:, None]
    tip, elbow = bones.sum(axis=-2), bones[..., 0, :]
    np.testing.assert_allclose(tip, joints[:, -1], rtol=0, atol=1e-12)
    side = np.sign(_cross(joints[:, -1], joints[:, 1]))
    assert np.all(np.sign(_cross(tip, elbow)) == -side)  # the elbow crossed the line


@pytest.mark.parametrize("method", ["ccd", "fabrik", "jt", "dls"])
def test_a_wrong_side_answer_is_mirrored_onto_the_pole_side(method: str) -> None:
    """Both bends answering on the wrong side: the rule re-solves from the mirror, and
    the answer then has its elbow on the pole's side with the tip on the target."""
    chain = ikchain.Chain([0.8, 0.6])
    target = [1.0, 0.3]
    below = ikchain.solve(chain, target, method, init=[-0.4, 1.2])  # elbow below the line
    assert _cross(target, below.joints[1]) < 0

    def solve_with(bend=None, init=None):
        if init is None:
            return below
        return ikchain.solve(chain, target, method, init=init)

    chosen = pole_rule.toward_pole(solve_with, np.array([0.0, 1.0]), 1e-9, None)
    assert _cross(target, chosen.joints[1]) > 0
    assert math.dist(chosen.joints[-1], target) <= 1e-9
