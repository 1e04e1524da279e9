"""The Jacobian transpose method ("jt"), against oracles written here.

The oracle of one step is numpy alone: the tip by summing bones, the Jacobian by
central differences of that sum (not the solver's arm-crossed-with-error formula),
and Buss's step length ``α = e·JJᵀe / |JJᵀe|²``. Convergence is checked by FK of the
answer; reach under limits by ``limits_oracle``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ikchain
from limits_oracle import least_distance
from limits_oracle import tips as _tip

TOL = 1e-9


def _numeric_jacobian(lengths: list[float], angles: np.ndarray, h: float = 1e-6) -> np.ndarray:
    columns = []
    for i in range(angles.size):
        step = np.zeros(angles.size)
        step[i] = h
        columns.append(
            (_tip(np.array(lengths), angles + step) - _tip(np.array(lengths), angles - step))
            / (2 * h)
        )
    return np.stack(columns, axis=-1)


def _expected_step(
    lengths: list[float], angles: np.ndarray, target: np.ndarray, damping: float = 1.0
) -> np.ndarray:
    e = target - _tip(np.array(lengths), angles)
    jac = _numeric_jacobian(lengths, angles)
    g = jac.T @ e
    moved = jac @ g
    alpha = float(e @ moved / (moved @ moved))
    return angles + damping * alpha * g


@pytest.mark.parametrize(
    "lengths, start, target, damping",
    [
        ([0.8, 0.6], [0.2, 0.2], [1.0, 0.6], 1.0),
        ([0.8, 0.6], [0.2, 0.2], [1.0, 0.6], 0.5),
        ([0.5, 0.5, 0.4], [0.3, -0.4, 0.9], [-0.2, 0.9], 1.0),
        ([0.4, 0.3, 0.3, 0.2], [0.1, 0.5, -0.2, 0.4], [0.5, -0.6], 0.8),
    ],
)
def test_one_iteration_is_buss_gradient_step(
    lengths: list[float], start: list[float], target: list[float], damping: float
) -> None:
    chain = ikchain.Chain(lengths)
    pose = np.array(start)
    expected = _expected_step(lengths, pose, np.array(target), damping)
    before = np.linalg.norm(_tip(np.array(lengths), pose) - target)
    after = np.linalg.norm(_tip(np.array(lengths), expected) - target)
    assert after < before  # the full step is kept (no halving) in these cases
    result = ikchain.solve(chain, target, "jt", init=start, max_iterations=1, damping=damping)
    np.testing.assert_allclose(result.angles, expected, rtol=0, atol=1e-8)


@pytest.mark.parametrize("bones", [2, 3, 4, 6])
def test_fk_of_the_answer_is_the_target(bones: int) -> None:
    rng = np.random.default_rng(bones)
    lengths = list(rng.uniform(0.3, 0.8, bones))
    chain = ikchain.Chain(lengths)
    outer = sum(lengths)
    heading = rng.uniform(-math.pi, math.pi, 60)
    d = rng.uniform(max(chain.inner_radius, 0.05) + 0.05 * outer, 0.9 * outer, 60)
    targets = np.stack([d * np.cos(heading), d * np.sin(heading)], axis=-1)
    result = ikchain.solve(chain, targets, "jt", max_iterations=20_000)
    done = result.status == ikchain.Status.CONVERGED
    assert done.mean() >= 0.95  # the gradient crawls, but gets there
    tips = _tip(np.array(lengths), result.angles)
    np.testing.assert_array_less(np.linalg.norm(tips - targets, axis=-1)[done], TOL * 1.0001)
    np.testing.assert_allclose(result.error, np.linalg.norm(tips - targets, axis=-1), atol=1e-12)
    assert np.all(result.reachable)


def test_error_never_rises() -> None:
    chain = ikchain.Chain([0.5, 0.5, 0.4])
    result = ikchain.solve(chain, [-0.3, 0.8], "jt", trace=True, max_iterations=300)
    assert result.trace is not None
    assert np.all(np.diff(result.trace) <= 0.0)


def test_straight_chain_on_its_line_stalls_like_ccd() -> None:
    chain = ikchain.Chain([0.8, 0.6])
    result = ikchain.solve(chain, [1.0, 0.0], "jt", init=[0.0, 0.0])
    assert result.status is ikchain.Status.STALLED
    assert result.error == pytest.approx(0.4, abs=1e-12)
    assert result.reachable and result.min_error == 0.0


def test_out_of_reach_ends_as_close_as_possible() -> None:
    chain = ikchain.Chain([0.8, 0.6])
    target = np.array([2.0, 1.0])
    result = ikchain.solve(chain, target, "jt", max_iterations=2000)
    gap = float(np.linalg.norm(target)) - 1.4
    assert result.status is ikchain.Status.UNREACHABLE
    assert result.min_error == pytest.approx(gap, abs=1e-12)
    assert result.error <= gap + TOL
    assert not result.reachable


def test_under_limits_the_reach_is_the_least_distance() -> None:
    limits = [[-0.5, 1.2], [0.2, 1.5], [-0.3, 0.9]]
    lengths = [0.5, 0.5, 0.4]
    chain = ikchain.Chain(lengths, limits)
    for target in ([0.2, 1.3], [1.3, 0.1], [-1.0, -0.5]):
        result = ikchain.solve(chain, target, "jt", max_iterations=3000)
        oracle, _ = least_distance(lengths, limits, target)
        lows, highs = np.array(limits).T
        assert np.all((result.angles >= lows) & (result.angles <= highs))
        assert result.min_error == pytest.approx(oracle, abs=1e-9)
        assert result.error >= result.min_error - 1e-12
        if result.status is ikchain.Status.CONVERGED:
            assert result.error <= TOL


def test_a_batch_row_equals_its_single_solve() -> None:
    chain = ikchain.Chain([0.5, 0.5, 0.4])
    targets = np.array([[0.9, 0.5], [-0.4, 0.7], [1.6, 0.2]])
    batch = ikchain.solve(chain, targets, "jt")
    for i, target in enumerate(targets):
        one = ikchain.solve(chain, target, "jt")
        assert np.array_equal(one.angles, batch.angles[i])
        assert one.status == batch.status[i] and one.iterations == batch.iterations[i]


def test_jt_refuses_what_it_does_not_take() -> None:
    chain = ikchain.Chain([0.8, 0.6])
    with pytest.raises(ValueError, match="method 'jt' takes only"):
        ikchain.solve(chain, [1.0, 0.5], "jt", max_step=0.1)


def test_folded_on_a_target_inside_the_inner_circle_it_still_gets_there() -> None:
    """Near the fold J Jᵀe is tiny beside Jᵀe and Buss's length explodes; the trust
    region (no joint turns more than MAX_TURN a step) and the halvings keep the
    gradient going to the least distance instead of stalling short of it."""
    chain = ikchain.Chain([1.0, 0.3, 0.2])  # inner radius 0.5
    rng = np.random.default_rng(11)
    heading = rng.uniform(-math.pi, math.pi, 300)
    d = rng.uniform(0.0, 0.5, 300)
    targets = np.stack([d * np.cos(heading), d * np.sin(heading)], axis=-1)
    result = ikchain.solve(chain, targets, "jt", max_iterations=20_000, tolerance=1e-10)
    assert np.all(result.status == ikchain.Status.UNREACHABLE)
    np.testing.assert_allclose(result.min_error, 0.5 - d, atol=1e-12)
    assert np.all(result.error - result.min_error <= 1e-10)


def test_no_joint_turns_more_than_the_trust_region_in_one_step() -> None:
    """One Jacobian-transpose step turns no joint by more than ``MAX_TURN`` (0.5 rad),
    however long Buss's step length would make it (a folded chain, a far target)."""
    rng = np.random.default_rng(31)
    chain = ikchain.Chain([0.5, 0.4, 0.3])
    largest = 0.0
    for _ in range(300):
        start = rng.uniform(-3.0, 3.0, 3)
        target = rng.uniform(-1.5, 1.5, 2)
        after = ikchain.solve(chain, target, "jt", init=start, max_iterations=1).angles
        turn = np.abs((after - start + np.pi) % (2 * np.pi) - np.pi)
        largest = max(largest, float(turn.max()))
        assert np.all(turn <= 0.5 + 1e-12), (start, target, turn)
    assert largest > 0.4  # some step met the region's edge: the check is not vacuous
