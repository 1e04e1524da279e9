"""Scale-free solving: chains from 1e-200 m to 1e200 m get the same honest answers.

The kernels divide lengths and targets by a power of two at the chain's length
(exactly), so scaling a problem by 2**k scales its answer by exactly 2**k; at any
scale no NaN or infinity leaves solve(), and every status tells the truth.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ikchain

METHODS = ikchain.METHODS
ITERATIVE = ikchain.solvers.ITERATIVE


@st.composite
def problems(draw):
    method = draw(st.sampled_from(METHODS))
    n = 2 if method == "analytic" else draw(st.integers(1, 5))
    lengths = draw(st.lists(st.floats(0.1, 1.0), min_size=n, max_size=n))
    # (no target within 1e-6 of the root but the root itself: scaled by 2**-700 its
    # coordinates would be subnormal, and lose bits, which no solver can give back)
    ratio = draw(st.one_of(st.just(0.0), st.floats(1e-6, 2.0)))
    phi = draw(st.floats(-math.pi, math.pi))
    total = sum(lengths)
    target = [ratio * total * math.cos(phi), ratio * total * math.sin(phi)]
    # Each coordinate too: one below 2**-1022 * 2**700 (about 1e-97) would turn
    # subnormal at k = -700 and lose bits, so such a coordinate is exactly 0 instead.
    target = [0.0 if abs(value) < 1e-90 else value for value in target]
    return method, lengths, target


def _solve(method, lengths, target, tolerance):
    chain = ikchain.Chain(lengths)
    if method == "analytic":
        return ikchain.solve(chain, target, method)
    return ikchain.solve(chain, target, method, tolerance=tolerance, max_iterations=60)


def _assert_honest(result, tolerance):
    for field in (result.angles, result.joints, result.end):
        assert np.all(np.isfinite(field))
    for value in (result.error, result.min_error):
        assert math.isfinite(value) and value >= 0.0
    assert result.reachable == (result.min_error == 0.0)
    # error >= min_error, within rounding of the distances involved
    size = abs(result.min_error) + float(np.max(np.abs(result.joints)))
    assert result.error >= result.min_error - 4e-16 * size
    if result.status is ikchain.Status.CONVERGED and result.method != "analytic":
        assert result.error <= tolerance
    if result.status is ikchain.Status.UNREACHABLE:
        assert not result.reachable
        assert result.error <= result.min_error + tolerance + 4e-16 * size


@given(problems(), st.integers(-700, 700))
def test_a_power_of_two_scales_the_answer_exactly(problem, k):
    method, lengths, target = problem
    unit = _solve(method, lengths, target, 1e-9)
    scale = 2.0**k
    scaled = _solve(method, [x * scale for x in lengths], [x * scale for x in target], 1e-9 * scale)
    assert scaled.angles.tolist() == unit.angles.tolist()
    assert (scaled.status, scaled.iterations) == (unit.status, unit.iterations)
    assert scaled.joints.tolist() == (unit.joints * scale).tolist()
    assert scaled.error == unit.error * scale
    assert scaled.min_error == unit.min_error * scale


@given(problems(), st.integers(-200, 200))
def test_any_decimal_scale_is_honest_and_agrees_with_unit_scale(problem, k):
    method, lengths, target = problem
    scale = 10.0**k
    tolerance = 1e-9 * scale
    result = _solve(method, [x * scale for x in lengths], [x * scale for x in target], tolerance)
    _assert_honest(result, tolerance)
    unit = _solve(method, lengths, target, 1e-9)
    # the same problem up to rounding of the inputs: the same reachability and, where
    # the closed form or a converged solve pins the pose down, the same pose
    assert result.reachable == unit.reachable or abs(unit.min_error) < 1e-12
    if method == "analytic" or (
        unit.status is ikchain.Status.CONVERGED and result.status is ikchain.Status.CONVERGED
    ):
        np.testing.assert_allclose(result.end / scale, unit.end, rtol=0, atol=1e-8)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e-160, 8e77, 1e200, 1e300])
def test_the_reported_extreme_scales(method, scale):
    # once: 1e300 raised OverflowError (DLS), 1e-300 ZeroDivisionError (analytic),
    # 8e77 gave NaN, and below 1e-158 an out-of-reach target was reported converged
    chain = ikchain.Chain([0.8 * scale, 0.6 * scale])
    tolerance = 1e-9 * scale
    options = {} if method == "analytic" else {"tolerance": tolerance}
    reachable = ikchain.solve(chain, [1.0 * scale, 0.5 * scale], method, **options)
    assert reachable.status is ikchain.Status.CONVERGED
    _assert_honest(reachable, tolerance)
    np.testing.assert_allclose(reachable.end / scale, [1.0, 0.5], atol=1e-8)
    far = ikchain.solve(chain, [3.0 * scale, 0.0], method, **options)
    assert far.status is ikchain.Status.UNREACHABLE and not far.reachable
    assert far.min_error == pytest.approx(1.6 * scale, rel=1e-15)
    _assert_honest(far, tolerance)
    batch = ikchain.solve(
        chain, [[1.0 * scale, 0.5 * scale], [3.0 * scale, 0.0]], method, **options
    )
    assert batch.status.tolist() == [ikchain.Status.CONVERGED, ikchain.Status.UNREACHABLE]


@pytest.mark.parametrize("method", METHODS)
def test_a_target_far_beyond_a_tiny_chain(method):
    # 1e10 m from a chain of 1e-300 m: the target in chain units overflows; every
    # pose is equally far from it, to the last bit
    chain = ikchain.Chain([0.8e-300, 0.6e-300])
    result = ikchain.solve(chain, [1e10, -1e10], method)
    assert result.status is ikchain.Status.UNREACHABLE
    assert result.error == result.min_error == pytest.approx(math.hypot(1e10, 1e10), rel=1e-15)
    _assert_honest(result, 1e-9)


def test_the_tolerance_stays_in_metres_at_any_scale():
    # a chain of 1e200 m cannot bring its tip within 1e-9 m of a target (its
    # coordinates round at 1e184 m): CCD says so; a tolerance of 1 m at 1e-200 m is
    # met before the first iteration
    big = ikchain.Chain([0.8e200, 0.6e200])
    result = ikchain.solve(big, [1.0e200, 0.5e200], "ccd")
    assert result.status in (ikchain.Status.STALLED, ikchain.Status.MAX_ITERATIONS)
    assert result.error > 1e-9
    small = ikchain.Chain([0.8e-200, 0.6e-200])
    result = ikchain.solve(small, [1.0e-200, 0.5e-200], "dls", tolerance=1.0)
    assert result.status is ikchain.Status.CONVERGED and result.iterations == 0


def test_distances_beyond_the_largest_float_are_refused():
    with pytest.raises(ValueError, match=r"lengths: expected a total length below 1\.8e"):
        ikchain.Chain([1e308, 1e308])
    chain = ikchain.Chain([1e308, 1e307])
    for method in METHODS:
        with pytest.raises(ValueError, match=r"target: expected \|target\| \+ ΣL below"):
            ikchain.solve(chain, [-1e308, 0.0], method)
        with pytest.raises(ValueError, match=r"at index \(1,\)"):
            ikchain.solve(chain, [[1.0, 0.0], [-1e308, -1e308]], method)
