"""Self-motion of a three-bone chain: the tip stays, joint 1 moves."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ikchain
from ikchain.family import angles_from_family, family_from_angles, root_angle_range

CHAIN = ikchain.Chain([0.6, 0.45, 0.35])


@given(st.floats(-1.0, 1.0), st.sampled_from([1, -1]), st.floats(0.3, 1.3), st.floats(-3, 3))
def test_every_family_member_reaches_the_target(position, bend, d, phi):
    target = np.array([d * math.cos(phi), d * math.sin(phi)])
    angles = angles_from_family(CHAIN, target, position, bend)
    end = ikchain.end_from_angles(CHAIN.lengths, angles)
    np.testing.assert_allclose(end, target, atol=1e-12)
    assert family_from_angles(CHAIN, target, angles) == pytest.approx(position, abs=1e-9)


def test_joint1_sweeps_a_real_arc():
    target = np.array([0.9, 0.5])
    joints = [
        ikchain.joints_from_angles(CHAIN.lengths, angles_from_family(CHAIN, target, s))
        for s in np.linspace(-1, 1, 9)
    ]
    first = np.array([j[1] for j in joints])
    tips = np.array([j[-1] for j in joints])
    np.testing.assert_allclose(tips, np.broadcast_to(target, tips.shape), atol=1e-12)
    # Joint 1 stays on the circle of radius L1 and really moves along it.
    np.testing.assert_allclose(np.hypot(*first.T), 0.6, atol=1e-14)
    assert np.ptp(np.arctan2(first[:, 1], first[:, 0])) > 0.5


def test_range_edges_stretch_the_last_two_bones():
    target = np.array([0.9, 0.5])
    phi, _, beta_max = root_angle_range(CHAIN, target)
    angles = angles_from_family(CHAIN, target, 1.0)
    assert angles[0] == pytest.approx(phi + beta_max, abs=1e-12)
    joints = ikchain.joints_from_angles(CHAIN.lengths, angles)
    assert np.hypot(*(joints[-1] - joints[1])) == pytest.approx(0.8, abs=1e-12)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: root_angle_range(ikchain.Chain([0.8, 0.6]), [1, 0]),
            "expected a 3-bone Chain, got 2",
        ),
        (lambda: root_angle_range(CHAIN, [3.0, 0.0]), "expected a reachable target"),
        (
            lambda: angles_from_family(CHAIN, [0.9, 0.5], 1.5),
            "expected a position in [-1, 1], got 1.5",
        ),
        (lambda: angles_from_family(CHAIN, [0.9, 0.5], math.nan), "expected a finite number"),
    ],
)
def test_bad_family_requests(call, message):
    with pytest.raises(ValueError) as error:
        call()
    assert message in str(error.value)
