"""The blend weight: 0 gives the start pose and 1 the plain solve, each to the bit; between
them the pose is ``start + w (answer - start)`` and never leaves the joint limits; the
result tells the truth about the blended pose.

Expected values come from elsewhere: the plain solve (for w = 1 and for the answer
being blended), the start pose itself (w = 0), forward kinematics written in numpy
here (``limits_oracle.tips``), and the limits as given.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

import ikchain
from ikchain.solvers import ITERATIVE, METHODS
from limits_oracle import tips

LIMITS = [[-2.0, 2.0], [-0.5, 2.5], [-2.5, 0.3]]
LIMITED = ikchain.Chain([0.5, 0.4, 0.3], limits=LIMITS)
FREE = ikchain.Chain([0.5, 0.4, 0.3])
#: 10^5 cases with the kernels compiled; the mutation runs (plain Python, a hundred
#: times slower) check the same properties on 2,000.
INTERPRETED = os.environ.get("NUMBA_DISABLE_JIT") == "1" or os.environ.get("IKCHAIN_JIT") == "0"
CASES = 2_000 if INTERPRETED else 100_000


@pytest.mark.parametrize("method", ITERATIVE)
def test_over_many_cases_the_ends_are_exact_and_the_middle_within_limits(
    method: str,
) -> None:
    rng = np.random.default_rng(29)
    count = CASES // len(ITERATIVE)
    low, high = np.array(LIMITS).T
    starts = rng.uniform(low, high, (count, 3))
    targets = rng.uniform(-1.3, 1.3, (count, 2))
    budget = {"max_iterations": 30}
    plain = ikchain.solve(LIMITED, targets, method, init=starts, **budget)
    zero = ikchain.solve(LIMITED, targets, method, init=starts, weight=0.0, **budget)
    one = ikchain.solve(LIMITED, targets, method, init=starts, weight=1.0, **budget)
    assert zero.angles.tobytes() == starts.tobytes()  # the start pose, bit for bit
    for field in ("angles", "joints", "error"):  # the plain solve, bit for bit
        assert getattr(one, field).tobytes() == getattr(plain, field).tobytes(), field
    assert list(one.status) == list(plain.status)
    weight = float(rng.uniform(0.05, 0.95))
    some = ikchain.solve(LIMITED, targets, method, init=starts, weight=weight, **budget)
    assert np.all((some.angles >= low) & (some.angles <= high))  # within the limits
    np.testing.assert_allclose(
        some.angles, starts + weight * (plain.angles - starts), rtol=0, atol=1e-12
    )
    error = np.hypot(*(tips(LIMITED.lengths, some.angles) - targets).T)
    np.testing.assert_allclose(some.error, error, rtol=0, atol=1e-12)  # the blended tip's
    np.testing.assert_array_equal(some.min_error, plain.min_error)  # the target's truth
    np.testing.assert_array_equal(some.reachable, plain.reachable)
    np.testing.assert_array_equal(some.iterations, plain.iterations)


@pytest.mark.parametrize("method", METHODS)
def test_the_status_says_blended_where_the_weight_moved_the_tip_off(method: str) -> None:
    chain = ikchain.Chain([0.8, 0.6])
    start = [0.1, 0.2]
    near, far = [1.0, 0.5], [3.0, 0.0]
    plain_start = {} if method == "analytic" else {"init": start}  # (no start of its own)
    for target, solved in ((near, "converged"), (far, "unreachable")):
        plain = ikchain.solve(chain, target, method, **plain_start)
        assert str(plain.status) == solved
        half = ikchain.solve(chain, target, method, init=start, weight=0.5)
        assert str(half.status) == "blended"
        tip = tips(chain.lengths, np.asarray(half.angles)[None, :])[0]
        assert half.error == pytest.approx(math.dist(tip, target), abs=1e-12)
        assert half.min_error == plain.min_error and half.reachable == plain.reachable
    # a start already on the target: every blend stays on it, and says so
    on = ikchain.solve(chain, near, "analytic").angles
    again = ikchain.solve(chain, near, method, init=on, weight=0.3)
    assert str(again.status) == "converged"


def test_follow_with_a_weight_is_the_loop_of_weighted_solves() -> None:
    path = np.column_stack((np.linspace(0.5, 1.0, 8), np.linspace(0.6, 0.1, 8)))
    followed = ikchain.follow(FREE, path, "dls", init=[0.2, 0.2, 0.2], weight=0.4)
    start = [0.2, 0.2, 0.2]
    for i, target in enumerate(path):
        one = ikchain.solve(FREE, target, "dls", init=start, weight=0.4)
        assert followed.angles[i].tolist() == one.angles.tolist()
        assert str(followed.status[i]) == str(one.status)
        start = one.angles
    # the loop blends each frame itself: a trace is the solve's, the path the same
    traced = ikchain.follow(FREE, path, "dls", init=[0.2, 0.2, 0.2], weight=0.4, trace=True)
    assert traced.angles.tolist() == followed.angles.tolist()
    assert traced.trace.shape[0] == len(path)
    # around a step (soft: the eased target), a path is blended frame by frame, untraced
    with pytest.raises(ValueError, match="weight: a path is blended frame by frame"):
        ikchain.follow(FREE, path, "dls", weight=0.4, trace=True, soft=0.05)


@pytest.mark.parametrize(
    ("weight", "message"),
    [
        (-0.1, r"weight: expected a number in \[0, 1\], got -0.1"),
        (1.5, r"weight: expected a number in \[0, 1\], got 1.5"),
        (math.nan, r"weight: expected a finite number, got nan"),
        (True, r"weight: expected a number, got True"),
        (10**400, r"weight: expected a finite number, got an integer of 401 digits"),
    ],
)
def test_a_bad_weight_is_refused_by_name(weight: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ikchain.solve(FREE, [0.5, 0.5], "dls", weight=weight)


def test_a_blend_with_the_closed_form_blends_from_init() -> None:
    """The closed form has no start pose: with a weight, ``init`` is the pose blended
    from; without one, init stays refused for it."""
    chain = ikchain.Chain([0.8, 0.6])
    start = np.array([0.3, -0.4])
    answer = ikchain.solve(chain, [1.0, 0.5], "analytic").angles
    half = ikchain.solve(chain, [1.0, 0.5], "analytic", init=start, weight=0.5)
    np.testing.assert_allclose(half.angles, start + 0.5 * (answer - start), rtol=0, atol=0)
    with pytest.raises(ValueError, match="method 'analytic' takes only"):
        ikchain.solve(chain, [1.0, 0.5], "analytic", init=start)


@pytest.mark.parametrize("method", ITERATIVE)
def test_the_loops_blend_and_the_blend_after_a_step_agree_to_the_bit(method: str) -> None:
    """An iterative solve is blended inside its loop; a closed form or a step around a
    solve is blended after it, by ``runner.blend_after``. The same rule:
    the plain batch blended afterwards is the weighted batch, field by field."""
    from ikchain.solvers.runner import blend_after

    rng = np.random.default_rng(83)
    starts = rng.uniform(-0.5, 0.3, (200, 3))
    targets = rng.uniform(-1.3, 1.3, (200, 2))
    options = {"init": starts, "tolerance": 1e-9, "max_iterations": 40}
    weighted = ikchain.solve(LIMITED, targets, method, weight=0.35, **options)
    after = blend_after(
        LIMITED.lengths, ikchain.solve(LIMITED, targets, method, **options), starts, 0.35, 1e-9
    )
    assert weighted.angles.tobytes() == after.angles.tobytes()
    assert weighted.joints.tobytes() == after.joints.tobytes()
    assert weighted.error.tobytes() == after.error.tobytes()
    assert weighted.status.tolist() == after.status.tolist()
    assert {str(s) for s in weighted.status.tolist()} >= {"blended"}
