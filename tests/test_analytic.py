"""The two-bone closed form, checked against pen-and-paper values and FK."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ikchain
from conftest import two_bone_end


def test_full_extension_is_exactly_straight(lesson_chain):
    result = ikchain.solve(lesson_chain, [1.4, 0.0], method="analytic")
    # cos(dA) = (1.96 - 0.64 - 0.36) / 0.96 = 1: every digit must be 0, not 1e-8.
    assert result.angles.tolist() == [0.0, 0.0]
    assert result.error == 0.0
    assert result.status is ikchain.Status.CONVERGED
    assert result.reachable


def test_full_fold_is_exactly_pi(lesson_chain):
    # The fold distance is the float |L1 - L2| (0.2 + 6.7e-17): the literal 0.2
    # lies inside it, which would be an honest "unreachable by 5.6e-17".
    fold = lesson_chain.lengths[0] - lesson_chain.lengths[1]
    result = ikchain.solve(lesson_chain, [fold, 0.0], method="analytic")
    assert abs(result.angles[1]) == math.pi
    assert result.error == pytest.approx(0.0, abs=1e-15)
    assert result.reachable


def test_acos_form_would_lose_digits_here(lesson_chain):
    # A target 1e-12 inside full extension: the textbook acos gives an angle with
    # only about half its digits; the half-angle form agrees with a series expansion.
    d = 1.4 - 1e-12
    exact = math.sqrt(2 * 1.4 * 1e-12 / (0.8 * 0.6))  # dA² ≈ 2·ΣL·δ/(L1·L2) for small δ
    result = ikchain.solve(lesson_chain, [d, 0.0], method="analytic")
    assert result.angles[1] == pytest.approx(exact, rel=1e-3)


reachable_polar = st.tuples(st.floats(0.2 + 1e-9, 1.4 - 1e-9), st.floats(-math.pi, math.pi))


@given(reachable_polar, st.sampled_from([1, -1]))
def test_both_branches_reach_the_target(polar, bend):
    d, phi = polar
    target = np.array([d * math.cos(phi), d * math.sin(phi)])
    chain = ikchain.Chain([0.8, 0.6])
    result = ikchain.solve(chain, target, method="analytic", bend=bend)
    a0, da = result.angles
    assert np.sign(da) in (bend, 0.0)
    np.testing.assert_allclose(two_bone_end(0.8, 0.6, a0, da), target, atol=1e-12)
    assert result.error < 1e-12
    # Independent check of the elbow angle through the law of cosines (acos form).
    cosine = (d * d - 0.8**2 - 0.6**2) / (2 * 0.8 * 0.6)
    assert abs(da) == pytest.approx(math.acos(max(-1.0, min(1.0, cosine))), abs=2e-7)


def test_branches_are_mirror_images(lesson_chain):
    target = np.array([0.9, 0.4])
    up = ikchain.solve(lesson_chain, target, method="analytic", bend=1)
    down = ikchain.solve(lesson_chain, target, method="analytic", bend=-1)
    assert up.angles[1] == pytest.approx(-down.angles[1], abs=1e-15)
    # The elbows are reflections of each other across the root-target line.
    direction = target / np.linalg.norm(target)
    mirror = 2 * np.outer(direction, direction) - np.eye(2)
    np.testing.assert_allclose(mirror @ up.joints[1], down.joints[1], atol=1e-14)


@pytest.mark.parametrize("phi", [0.0, 0.7, 2.0, -2.5])
@pytest.mark.parametrize("d", [1.5, 2.0, 10.0])
def test_outside_lies_straight_along_target_direction(lesson_chain, d, phi):
    target = d * np.array([math.cos(phi), math.sin(phi)])
    result = ikchain.solve(lesson_chain, target, method="analytic")
    assert result.status is ikchain.Status.UNREACHABLE
    assert not result.reachable
    assert result.angles[1] == 0.0
    assert result.angles[0] == pytest.approx(phi, abs=1e-15)
    assert result.error == pytest.approx(d - 1.4, abs=1e-14)
    assert result.min_error == pytest.approx(d - 1.4, abs=1e-14)


@pytest.mark.parametrize("d", [0.0, 0.05, 0.19])
def test_inside_inner_circle_folds(lesson_chain, d):
    target = np.array([0.0, d])
    result = ikchain.solve(lesson_chain, target, method="analytic")
    assert result.status is ikchain.Status.UNREACHABLE
    assert abs(result.angles[1]) == math.pi
    assert result.error == pytest.approx(0.2 - d, abs=1e-14)
    if d > 0:  # folded along the target's direction, the tip on the near side
        np.testing.assert_allclose(result.end, [0.0, 0.2], atol=1e-15)
