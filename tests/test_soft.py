"""solve(..., soft=s): the eased reach, and results that still tell the truth.

Oracles written here, without the solver: the eased distance is checked against its
closed form at hand-derived points (at d = ΣL it is ΣL - s/e); the tip is the sum of
the bones; the least distance of a free chain is the gap to its annulus; under joint
limits it is ``limits_oracle.least_distance`` (numpy grid and Newton, no ikchain).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ikchain
from ikchain.solvers.soft import eased_from_distance
from limits_oracle import least_distance
from limits_oracle import tips as _tip

CHAIN = ikchain.Chain([0.8, 0.6])
OUTER = 1.4
SOFT = 0.2
METHODS = ("analytic", "ccd", "fabrik", "dls")
TOL = 1e-9


def _ray(d: float, heading: float = 0.5) -> list[float]:
    return [d * math.cos(heading), d * math.sin(heading)]


# -- the easing itself ---------------------------------------------------------------


def test_eased_distance_at_hand_derived_points() -> None:
    start = OUTER - SOFT
    d = np.array([0.3, start, OUTER, start + 2 * SOFT, 1e6])
    eased = eased_from_distance(d, OUTER, SOFT)
    # unchanged up to the start; ΣL - s/e at ΣL; ΣL - s/e² two soft lengths out; ΣL far out
    expected = [0.3, start, OUTER - SOFT / math.e, OUTER - SOFT / math.e**2, OUTER]
    np.testing.assert_allclose(eased, expected, rtol=0, atol=1e-15)


def test_eased_distance_is_smooth_monotone_and_short_of_the_reach() -> None:
    d = np.linspace(0.0, 4.0, 40_001)
    eased = eased_from_distance(d, OUTER, SOFT)
    assert np.all(np.diff(eased) > 0)  # strictly increasing: no two targets alias
    assert np.all(eased[d > OUTER - SOFT] < OUTER)  # never the full stretch
    slope = np.diff(eased) / np.diff(d)
    assert np.max(np.abs(np.diff(slope))) < 1e-3  # no kink: the slope is continuous
    assert np.all(slope <= 1.0 + 1e-9)


# -- the results --------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("d", [0.5, 1.1, 1.25, 1.35, 1.4, 1.6, 3.0])
def test_soft_results_tell_the_truth(method: str, d: float) -> None:
    target = np.array(_ray(d))
    options = {} if method == "analytic" else {"max_iterations": 2000}
    result = ikchain.solve(CHAIN, target, method, soft=SOFT, **options)
    tip = _tip(np.array([0.8, 0.6]), result.angles)
    error = float(np.linalg.norm(tip - target))
    assert result.error == pytest.approx(error, abs=1e-12)  # the distance from the TRUE target
    assert np.allclose(result.target, target, rtol=0, atol=0)
    gap = max(0.0, d - OUTER)
    assert result.min_error == pytest.approx(gap, abs=1e-12)
    assert result.reachable == (d <= OUTER)
    eased = float(eased_from_distance(d, OUTER, SOFT))
    if eased == d:  # nothing eased: a plain solve
        assert result.status is ikchain.Status.CONVERGED
        assert error <= TOL
    elif result.status is not ikchain.Status.SOFTENED:
        # an eased target a hair short of full stretch (d = 3: 2.5e-5 m): CCD and FABRIK
        # crawl there, and say so
        assert method in ("ccd", "fabrik") and d >= 3.0
        assert result.status is ikchain.Status.MAX_ITERATIONS
        assert error > d - eased
    else:
        # aimed at the eased point on the same ray, and honest about stopping short
        assert np.linalg.norm(tip - target * (eased / d)) <= 1e-8
        assert error == pytest.approx(d - eased, abs=1e-8)
        assert not result.converged


def test_converged_never_claimed_off_target() -> None:
    rng = np.random.default_rng(3)
    heading = rng.uniform(-math.pi, math.pi, 400)
    d = rng.uniform(0.3, 2.0, 400)
    targets = np.stack([d * np.cos(heading), d * np.sin(heading)], axis=-1)
    for method in METHODS:
        result = ikchain.solve(CHAIN, targets, method, soft=SOFT)
        tips = _tip(np.array([0.8, 0.6]), result.angles)
        errors = np.linalg.norm(tips - targets, axis=-1)
        np.testing.assert_allclose(result.error, errors, rtol=0, atol=1e-12)
        converged = result.status == ikchain.Status.CONVERGED
        assert np.all(errors[converged] <= TOL)
        softened = result.status == ikchain.Status.SOFTENED
        assert np.all(d[softened] > OUTER - SOFT)
        assert np.all(errors[softened] >= result.min_error[softened])
        np.testing.assert_allclose(result.min_error, np.maximum(0.0, d - OUTER), atol=1e-12)


def test_soft_zero_is_the_hard_clamp_to_the_bit() -> None:
    targets = np.array([_ray(d) for d in (0.5, 1.3, 1.4, 2.0)])
    for method in METHODS:
        hard = ikchain.solve(CHAIN, targets, method)
        zero = ikchain.solve(CHAIN, targets, method, soft=0.0)
        assert np.array_equal(hard.angles, zero.angles)
        assert np.array_equal(hard.error, zero.error)
        assert list(hard.status) == list(zero.status)


def test_one_target_equals_its_row_of_a_batch() -> None:
    targets = np.array([_ray(d, 0.3 * d) for d in (0.7, 1.3, 1.5)])
    batch = ikchain.solve(CHAIN, targets, "dls", soft=SOFT)
    for i, target in enumerate(targets):
        one = ikchain.solve(CHAIN, target, "dls", soft=SOFT)
        assert np.array_equal(one.angles, batch.angles[i])
        assert one.error == batch.error[i]
        assert one.status == batch.status[i]


def test_the_knee_does_not_pop() -> None:
    """A target sliding out at a steady speed: the hard elbow snaps through its last
    degrees in a few frames; the soft one changes far less from frame to frame."""
    d = np.linspace(1.0, 1.8, 321)
    targets = np.stack([d * math.cos(0.4), d * math.sin(0.4)], axis=-1)
    hard = ikchain.solve(CHAIN, targets, "analytic")
    soft = ikchain.solve(CHAIN, targets, "analytic", soft=SOFT)
    hard_jump = np.max(np.abs(np.diff(hard.angles[:, 1])))
    soft_jump = np.max(np.abs(np.diff(soft.angles[:, 1])))
    assert hard_jump > 4 * soft_jump
    # the eased knee is still bent at the far end, where the hard one is straight
    assert hard.angles[-1, 1] == 0.0 and soft.angles[-1, 1] > math.radians(1)


def test_trace_errors_are_from_the_true_target() -> None:
    target = np.array(_ray(1.35))
    result = ikchain.solve(CHAIN, target, "ccd", soft=SOFT, trace=True, max_iterations=50)
    assert result.trace is not None and result.trace_angles is not None
    tips = _tip(np.array([0.8, 0.6]), result.trace_angles)
    np.testing.assert_allclose(result.trace, np.linalg.norm(tips - target, axis=-1), atol=1e-12)
    assert result.trace[-1] == pytest.approx(result.error, abs=1e-12)


def test_with_a_pole_the_elbow_still_follows_the_pole() -> None:
    target = np.array(_ray(1.3, 0.0))
    for pole, sign in (((0.5, 1.0), 1.0), ((0.5, -1.0), -1.0)):
        result = ikchain.solve(CHAIN, target, "analytic", soft=SOFT, pole=pole)
        elbow_y = 0.8 * math.sin(result.angles[0])
        assert math.copysign(1.0, elbow_y) == sign
        assert result.status is ikchain.Status.SOFTENED


@pytest.mark.parametrize("method", ["ccd", "dls", "analytic"])
def test_joint_limits_min_error_is_the_least_distance(method: str) -> None:
    limits = [[-0.4, 0.6], [0.3, 1.8]]  # the elbow cannot straighten: reach below ΣL
    chain = ikchain.Chain([0.8, 0.6], limits)
    for d, heading in ((1.35, 0.2), (1.6, 0.1), (1.0, -1.5)):
        target = np.array(_ray(d, heading))
        result = ikchain.solve(chain, target, method, soft=SOFT)
        oracle, _ = least_distance([0.8, 0.6], limits, target)
        assert result.min_error == pytest.approx(oracle, abs=1e-9)
        assert result.reachable == (oracle <= 1e-9)
        assert result.error >= result.min_error - 1e-12
        tip = _tip(np.array([0.8, 0.6]), result.angles)
        assert result.error == pytest.approx(float(np.linalg.norm(tip - target)), abs=1e-12)
        lows, highs = np.array(limits).T
        assert np.all((result.angles >= lows) & (result.angles <= highs))
        if result.status is ikchain.Status.CONVERGED:
            assert result.error <= TOL


@pytest.mark.parametrize(
    "soft, words",
    [
        (-0.1, "expected a distance in [0,"),
        (1.5, "expected a distance in [0,"),
        (math.nan, "soft"),
        (True, "soft"),
        ("0.2", "soft"),
    ],
)
def test_bad_soft_is_refused_by_name(soft: object, words: str) -> None:
    with pytest.raises(ValueError, match="soft") as caught:
        ikchain.solve(CHAIN, [1.0, 0.5], "dls", soft=soft)  # type: ignore[arg-type]
    assert words in str(caught.value)


def test_follow_with_soft_is_the_loop_of_soft_solves_to_the_bit() -> None:
    """An animation easing a moving target: one follow call equals one soft solve a
    frame, each from the previous frame's angles; errors are from the true path."""
    d = np.linspace(1.0, 1.8, 40)
    path = np.stack([d * math.cos(0.4), d * math.sin(0.4)], axis=-1)
    for method in ("ccd", "dls", "jt"):
        followed = ikchain.follow(CHAIN, path, method, soft=SOFT, max_iterations=64)
        angles = None
        for i, target in enumerate(path):
            one = ikchain.solve(CHAIN, target, method, soft=SOFT, max_iterations=64, init=angles)
            assert np.array_equal(one.angles, followed.angles[i]), (method, i)
            assert one.status == followed.status[i] and one.error == followed.error[i]
            angles = one.angles.copy()
        tips = _tip(np.array([0.8, 0.6]), followed.angles)
        np.testing.assert_allclose(followed.error, np.linalg.norm(tips - path, axis=-1), atol=1e-12)
        np.testing.assert_allclose(followed.min_error, np.maximum(0.0, d - OUTER), atol=1e-12)


def test_the_widest_soft_distance_is_taken_and_one_step_beyond_refused() -> None:
    """``soft`` may be the whole annulus width ΣL - inner radius, no more."""
    width = CHAIN.outer_radius - CHAIN.inner_radius
    result = ikchain.solve(CHAIN, [3.0, 0.0], "analytic", soft=width)
    assert result.min_error == pytest.approx(3.0 - CHAIN.outer_radius, abs=1e-12)
    with pytest.raises(ValueError, match="soft: expected a distance in"):
        ikchain.solve(CHAIN, [3.0, 0.0], "analytic", soft=float(np.nextafter(width, 9.0)))
