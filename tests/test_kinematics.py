import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ikchain
from conftest import two_bone_end

angle = st.floats(-np.pi, np.pi)


@given(angle, angle)
def test_two_bone_fk_matches_closed_form(a0, da):
    lengths = np.array([0.8, 0.6])
    joints = ikchain.joints_from_angles(lengths, np.array([a0, da]))
    assert joints.shape == (3, 2)
    np.testing.assert_array_equal(joints[0], [0.0, 0.0])
    np.testing.assert_allclose(joints[1], [0.8 * np.cos(a0), 0.8 * np.sin(a0)], atol=1e-15)
    np.testing.assert_allclose(joints[2], two_bone_end(0.8, 0.6, a0, da), atol=1e-15)


def test_fk_keeps_batch_dimensions_and_bone_lengths():
    rng = np.random.default_rng(1)
    lengths = rng.uniform(0.1, 1.0, 5)
    angles = rng.uniform(-np.pi, np.pi, (3, 4, 5))
    joints = ikchain.joints_from_angles(lengths, angles)
    assert joints.shape == (3, 4, 6, 2)
    bone = np.linalg.norm(np.diff(joints, axis=-2), axis=-1)
    np.testing.assert_allclose(bone, np.broadcast_to(lengths, (3, 4, 5)), rtol=1e-13)
    np.testing.assert_allclose(
        ikchain.end_from_angles(lengths, angles), joints[..., -1, :], atol=1e-14
    )


def test_jacobian_matches_central_differences():
    rng = np.random.default_rng(2)
    lengths = rng.uniform(0.1, 1.0, 4)
    angles = rng.uniform(-np.pi, np.pi, (7, 4))
    jacobian = ikchain.jacobian_from_angles(lengths, angles)
    assert jacobian.shape == (7, 2, 4)
    h = 1e-6
    for i in range(4):
        step = np.zeros(4)
        step[i] = h
        numeric = (
            ikchain.end_from_angles(lengths, angles + step)
            - ikchain.end_from_angles(lengths, angles - step)
        ) / (2 * h)
        np.testing.assert_allclose(jacobian[..., i], numeric, atol=1e-8)


def closed_form_condition(lengths, angles):
    """σ₁/σ₂ of the 2 × n tip Jacobian without an SVD: with J Jᵀ = [[a, b], [b, c]],
    σ₁² = (a + c)/2 + hypot((a - c)/2, b), and σ₁σ₂ = sqrt(Σ_{i<j} minor²) by
    Cauchy-Binet, each minor the cross product of two columns, i.e. of two lines
    from joints to the tip (computed here from the joints, not from the Jacobian)."""
    joints = ikchain.joints_from_angles(lengths, angles)
    arms = joints[..., -1:, :] - joints[..., :-1, :]  # joint i -> tip, (..., n, 2)
    # Column i of J is the arm turned by 90°: the same lengths and cross products.
    a = np.sum(arms[..., 1] ** 2, axis=-1)
    c = np.sum(arms[..., 0] ** 2, axis=-1)
    b = -np.sum(arms[..., 0] * arms[..., 1], axis=-1)
    cross = (
        arms[..., :, None, 0] * arms[..., None, :, 1]
        - arms[..., None, :, 0] * arms[..., :, None, 1]
    )
    product = np.sqrt(0.5 * np.sum(cross * cross, axis=(-2, -1)))
    return (0.5 * (a + c) + np.hypot(0.5 * (a - c), b)) / product


@pytest.mark.parametrize("bones", [2, 3, 5, 8])
def test_condition_number_matches_a_closed_form(bones):
    """On random poses (a batch) and on poses a hair from straight."""
    rng = np.random.default_rng(bones)
    lengths = rng.uniform(0.1, 1.0, bones)
    angles = rng.uniform(-np.pi, np.pi, (50, bones))
    got = ikchain.condition_from_angles(lengths, angles)
    assert got.shape == (50,)
    np.testing.assert_allclose(got, closed_form_condition(lengths, angles), rtol=1e-10)
    for bend in (1e-3, 1e-5, 1e-7):
        pose = np.full(bones, bend)
        pose[0] = 0.4
        expected = closed_form_condition(lengths, pose)
        # Both lose about eps × κ relative to the pose's exact value.
        assert float(ikchain.condition_from_angles(lengths, pose)) == pytest.approx(
            expected, rel=8 * np.finfo(float).eps * expected
        )


def test_condition_number_is_infinite_when_straight():
    lengths = np.array([0.8, 0.6])
    assert ikchain.condition_from_angles(lengths, np.array([0.0, 0.0])) == np.inf
    # Along another direction rounding leaves the columns a hair from parallel.
    assert ikchain.condition_from_angles(lengths, np.array([0.3, 0.0])) > 1e15


@pytest.mark.parametrize(
    ("target", "expected"),
    [((2.0, 0.0), 0.6), ((0.0, 1.4), 0.0), ((0.5, 0.0), 0.0), ((0.05, 0.0), 0.15), ((0, 0), 0.2)],
)
def test_min_error_is_distance_to_annulus(target, expected):
    lengths = np.array([0.8, 0.6])
    assert ikchain.min_error_from_target(lengths, np.array(target)) == pytest.approx(
        expected, abs=1e-15
    )


def test_wrap_angle_lands_in_minus_pi_exclusive_to_pi_inclusive():
    angles = np.array([np.pi, -np.pi, 3 * np.pi, -3 * np.pi, 0.0, 1.0, -1.0, 7.0, -7.0, 1e-300])
    wrapped = ikchain.kinematics.wrap_angle(angles)
    assert wrapped[0] == np.pi and wrapped[1] == np.pi  # pi stays, -pi becomes pi
    assert np.all((wrapped > -np.pi) & (wrapped <= np.pi))
    # the same direction: cos and sin unchanged (an independent check)
    np.testing.assert_allclose(np.cos(wrapped), np.cos(angles), atol=1e-15)
    np.testing.assert_allclose(np.sin(wrapped), np.sin(angles), atol=1e-14)
    np.testing.assert_array_equal(wrapped[4:7], angles[4:7])  # already inside: unchanged
    assert ikchain.kinematics.wrap_angle(np.nextafter(np.pi, 4.0)) <= np.pi  # a hair above pi


def test_norm_of_huge_vectors_is_hypot_without_a_warning() -> None:
    """Squares beyond floats fall back to hypot, silently: the answer is finite and right."""
    import warnings

    from ikchain.kinematics import norm

    x = np.array([3e300, 1.0])
    y = np.array([4e300, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = norm(x, y)
    np.testing.assert_allclose(out, [5e300, np.sqrt(2.0)], rtol=1e-15)
