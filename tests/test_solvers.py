"""Iterative solvers: properties that hold whatever the implementation."""

import math

import numpy as np
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

import ikchain
import ikchain.solvers
from conftest import two_bone_end
from ikchain.family import angles_from_family

ITERATIVE = ikchain.solvers.ITERATIVE  # every iterative method, jt included


@st.composite
def chain_and_reachable_target(draw):
    n = draw(st.integers(2, 8))
    lengths = draw(st.lists(st.floats(0.2, 1.0), min_size=n, max_size=n))
    angles = draw(st.lists(st.floats(-math.pi, math.pi), min_size=n, max_size=n))
    chain = ikchain.Chain(lengths)
    target = ikchain.end_from_angles(chain.lengths, np.array(angles))
    d = float(np.hypot(*target))
    # Stay clear of the two singular circles, where every method slows to a crawl.
    margin = 0.02 * chain.total_length
    if not chain.inner_radius + margin < d < chain.total_length - margin:
        scale = (chain.inner_radius + chain.total_length) / 2 / max(d, 1e-9)
        target = target * scale if d > 1e-9 else np.array([scale * 1e-9, 0.0])
    return chain, target


@pytest.mark.parametrize("method", ITERATIVE)
@given(case=chain_and_reachable_target())
def test_fk_of_solution_reaches_target(method, case):
    chain, target = case
    # CCD can crawl where two bones end up nearly collinear (a few thousand sweeps
    # for some 4-bone chains); the budget is generous because only speed is at stake.
    result = ikchain.solve(chain, target, method=method, max_iterations=100_000, tolerance=1e-9)
    end = ikchain.end_from_angles(chain.lengths, result.angles)
    assert result.status is ikchain.Status.CONVERGED, result
    assert np.hypot(*(end - target)) <= 1e-9
    assert result.error == pytest.approx(float(np.hypot(*(end - target))), abs=1e-15)
    assert result.reachable and result.min_error == 0.0


@pytest.mark.parametrize("method", ITERATIVE)
@pytest.mark.parametrize(
    ("lengths", "target"),
    [
        ((0.8, 0.6), (2.0, 0.0)),
        ((0.8, 0.6), (-1.0, 1.5)),
        ((0.8, 0.6), (0.05, 0.1)),
        ((1.0, 0.3, 0.2), (0.1, -0.2)),
        ((0.5, 0.4, 0.3, 0.2), (1.2, 1.3)),
    ],
)
def test_unreachable_error_is_distance_to_annulus(method, lengths, target):
    chain = ikchain.Chain(lengths)
    d = math.hypot(*target)
    expected = max(0.0, d - chain.total_length, chain.inner_radius - d)  # closed form
    result = ikchain.solve(chain, target, method=method, max_iterations=20000, tolerance=1e-10)
    assert result.status is ikchain.Status.UNREACHABLE
    assert not result.reachable
    assert result.min_error == pytest.approx(expected, abs=1e-15)
    assert expected <= result.error <= expected + 1e-10


@pytest.mark.parametrize("method", ITERATIVE)
def test_outside_the_chain_lies_straight_toward_target(method):
    chain = ikchain.Chain([0.8, 0.6, 0.4])
    phi = 2.2
    result = ikchain.solve(
        chain,
        [3 * math.cos(phi), 3 * math.sin(phi)],
        method=method,
        max_iterations=20000,
        tolerance=1e-12,
    )
    bones = np.diff(result.joints, axis=0)
    directions = np.arctan2(bones[:, 1], bones[:, 0])
    np.testing.assert_allclose(directions, phi, atol=1e-5)


@given(st.floats(0.3, 1.3), st.floats(-math.pi, math.pi), st.sampled_from([1, -1]))
def test_ccd_agrees_with_analytic_solution_of_its_branch(d, phi, bend):
    # A target on the first bone's ray of the start pose makes the first sweep lay
    # the chain straight along that ray: the collinear stall, reported, not solved.
    assume(abs(phi - bend * ikchain.solvers.START_BEND) > 1e-6)
    chain = ikchain.Chain([0.8, 0.6])
    target = np.array([d * math.cos(phi), d * math.sin(phi)])
    ccd = ikchain.solve(
        chain, target, method="ccd", bend=bend, max_iterations=20000, tolerance=1e-12
    )
    assert ccd.status is ikchain.Status.CONVERGED
    elbow = (ccd.angles[1] + math.pi) % (2 * math.pi) - math.pi  # angles are not wrapped
    branch = 1 if elbow > 0 else -1
    exact = ikchain.solve(chain, target, method="analytic", bend=branch)
    difference = (ccd.angles - exact.angles + math.pi) % (2 * math.pi) - math.pi
    np.testing.assert_allclose(difference, 0.0, atol=1e-6)


@pytest.mark.parametrize("method", ITERATIVE)
def test_collinear_start_on_the_line_is_reported_as_stalled(method):
    chain = ikchain.Chain([0.8, 0.6])
    result = ikchain.solve(chain, [1.0, 0.0], method=method, init=[0.0, 0.0], trace=True)
    assert result.status is ikchain.Status.STALLED
    assert result.iterations == 1  # one fruitless iteration, not the whole budget
    assert result.error == pytest.approx(0.4, abs=1e-15)
    np.testing.assert_allclose(result.trace, 0.4, atol=1e-15)


def test_bent_default_start_avoids_the_stall():
    chain = ikchain.Chain([0.8, 0.6])
    result = ikchain.solve(chain, [1.0, 0.0], method="ccd")
    assert result.status is ikchain.Status.CONVERGED


@pytest.mark.parametrize("method", ITERATIVE)
def test_batch_equals_one_at_a_time(method):
    rng = np.random.default_rng(3)
    chain = ikchain.Chain([0.8, 0.6, 0.4])
    targets = rng.uniform(-2.0, 2.0, (3, 4, 2))
    inits = rng.uniform(-1.0, 1.0, (3, 4, 3))
    batch = ikchain.solve(chain, targets, method=method, init=inits, max_iterations=300)
    assert batch.angles.shape == (3, 4, 3)
    assert batch.joints.shape == (3, 4, 4, 2)
    assert batch.error.shape == batch.status.shape == batch.iterations.shape == (3, 4)
    for index in np.ndindex(3, 4):
        single = ikchain.solve(
            chain, targets[index], method=method, init=inits[index], max_iterations=300
        )
        np.testing.assert_array_equal(batch.angles[index], single.angles)
        assert batch.error[index] == single.error
        assert batch.iterations[index] == single.iterations
        assert batch.status[index] is single.status
        assert batch.converged[index] == single.converged
    copied = batch.replace()  # a Result stays a Result when copied field by field
    np.testing.assert_array_equal(copied.converged, batch.converged)
    assert np.all(copied.status == batch.status)


def test_analytic_batch_equals_one_at_a_time(lesson_chain):
    rng = np.random.default_rng(4)
    targets = rng.uniform(-2.0, 2.0, (50, 2))
    batch = ikchain.solve(lesson_chain, targets, method="analytic", bend=-1)
    for i, target in enumerate(targets):
        single = ikchain.solve(lesson_chain, target, method="analytic", bend=-1)
        np.testing.assert_array_equal(batch.angles[i], single.angles)
        assert batch.status[i] is single.status


def test_one_start_pose_broadcasts_over_a_batch(lesson_chain):
    targets = np.array([[1.0, 0.5], [0.3, 0.9]])
    result = ikchain.solve(lesson_chain, targets, method="ccd", init=[0.3, 0.3])
    assert result.angles.shape == (2, 2)
    assert np.all(result.status == ikchain.Status.CONVERGED)


def test_smaller_damping_goes_less_far_per_sweep_but_to_the_same_place(lesson_chain):
    target = [0.9, 0.6]
    full = ikchain.solve(lesson_chain, target, method="ccd", max_iterations=8)
    damped = ikchain.solve(lesson_chain, target, method="ccd", max_iterations=8, damping=0.3)
    assert damped.error > full.error
    converged = ikchain.solve(
        lesson_chain, target, method="ccd", damping=0.3, max_iterations=5000, tolerance=1e-12
    )
    exact = ikchain.solve(
        lesson_chain, target, method="analytic", bend=int(np.sign(converged.angles[1]))
    )
    np.testing.assert_allclose(converged.angles, exact.angles, atol=1e-6)


def test_joint_limits_are_respected_after_every_sweep():
    """Every pose the solve passes through (its trace: the start and each iteration's),
    not only the last, lies within the limits, for every iterative method."""
    limits = [[-0.3, 0.3], [0.0, 1.0], [-0.5, 0.5]]
    chain = ikchain.Chain([0.8, 0.6, 0.4], limits=limits)
    low, high = np.array(limits).T
    for method in ("ccd", "fabrik", "dls"):
        result = ikchain.solve(chain, [-0.5, 1.2], method=method, trace=True)
        poses = result.trace_angles
        assert poses.shape == (result.iterations + 1, 3) and result.iterations >= 1
        assert np.all(poses >= low) and np.all(poses <= high), method
        assert np.array_equal(poses[-1], result.angles)
        assert result.status is not ikchain.Status.CONVERGED  # behind the root: out of range


def test_max_step_caps_each_turn(lesson_chain):
    result = ikchain.solve(
        lesson_chain, [-1.0, 0.5], method="ccd", max_step=0.05, max_iterations=1, init=[0.2, 0.2]
    )
    assert np.all(np.abs(result.angles - 0.2) <= 0.05 + 1e-15)


def test_trace_starts_at_initial_error_and_ends_at_final(lesson_chain):
    result = ikchain.solve(lesson_chain, [0.5, 1.0], method="ccd", trace=True)
    start = ikchain.end_from_angles(lesson_chain.lengths, ikchain.default_init(lesson_chain))
    assert result.trace.shape == (result.iterations + 1,)
    assert result.trace[0] == pytest.approx(float(np.hypot(*(start - [0.5, 1.0]))), abs=1e-15)
    assert result.trace[-1] == result.error
    assert np.all(np.diff(result.trace) <= 1e-15)  # CCD never raises the error


def test_budget_runs_out_honestly(lesson_chain):
    result = ikchain.solve(lesson_chain, [1.39, 0.01], method="ccd", max_iterations=3)
    assert result.status is ikchain.Status.MAX_ITERATIONS
    assert result.iterations == 3
    assert result.error > 1e-9


def test_zero_budget_returns_the_start(lesson_chain):
    result = ikchain.solve(
        lesson_chain, [1.0, 0.5], method="dls", max_iterations=0, init=[0.1, 0.2]
    )
    assert result.angles.tolist() == [0.1, 0.2]
    assert result.iterations == 0
    assert result.status is ikchain.Status.MAX_ITERATIONS


def test_warm_start_at_the_answer_needs_no_iteration(lesson_chain):
    exact = ikchain.solve(lesson_chain, [1.0, 0.5], method="analytic")
    for method in ITERATIVE:
        warm = ikchain.solve(lesson_chain, [1.0, 0.5], method=method, init=exact.angles)
        assert warm.iterations == 0
        assert warm.status is ikchain.Status.CONVERGED


@pytest.mark.parametrize("n", range(2, 9))
def test_dls_reaches_tolerance_within_12_iterations_near_full_extension(n):
    rng = np.random.default_rng(n)
    chain = ikchain.Chain(rng.uniform(0.3, 1.0, n))
    phi = rng.uniform(-math.pi, math.pi, 200)
    for ratio in (0.75, 0.958, 0.995, 0.999):
        targets = ratio * chain.total_length * np.stack([np.cos(phi), np.sin(phi)], axis=-1)
        result = ikchain.solve(chain, targets, method="dls", max_iterations=12)
        assert np.all(result.status == ikchain.Status.CONVERGED), (n, ratio)
        assert np.all(result.error <= 1e-9)


def test_result_of_single_target_has_plain_scalars(lesson_chain):
    result = ikchain.solve(lesson_chain, [1.0, 0.5], method="dls")
    assert type(result.error) is float and type(result.min_error) is float
    assert type(result.iterations) is int and type(result.reachable) is bool
    assert isinstance(result.status, ikchain.Status)
    assert result.shape == ()
    np.testing.assert_array_equal(result.end, result.joints[-1])


def test_a_solve_leaves_its_inputs_alone(lesson_chain):
    target = np.array([[1.0, 0.5], [0.2, 0.9]])
    init = np.array([[0.1, 0.2], [0.3, 0.4]])
    saved = target.copy(), init.copy()
    ikchain.solve(lesson_chain, target, method="ccd", init=init)
    np.testing.assert_array_equal(target, saved[0])
    np.testing.assert_array_equal(init, saved[1])


def test_two_bone_result_matches_independent_fk(lesson_chain):
    result = ikchain.solve(lesson_chain, [0.3, -0.9], method="fabrik")
    np.testing.assert_allclose(two_bone_end(0.8, 0.6, *result.angles), result.end, atol=1e-15)


def _random_case(rng, n, limited):
    """A chain (one bone sometimes longer than the rest), targets in and out of reach."""
    lengths = rng.uniform(0.2, 1.0, n)
    if rng.random() < 0.4:
        lengths[rng.integers(n)] = 1.5 * lengths.sum()
    limits = None
    if limited:
        limits = np.stack([-rng.uniform(0.1, 3.0, n), rng.uniform(0.1, 3.0, n)], axis=-1)
    chain = ikchain.Chain(lengths, limits)
    count = 25
    targets = ikchain.end_from_angles(chain.lengths, rng.uniform(-math.pi, math.pi, (count, n)))
    phi = rng.uniform(-math.pi, math.pi, count)
    far = chain.total_length * rng.uniform(1.0, 2.0, count)
    outside = rng.random(count) < 0.3
    targets[outside] = np.stack([far * np.cos(phi), far * np.sin(phi)], axis=-1)[outside]
    targets[:3] = [[0.0, 0.0], [chain.total_length, 0.0], [1.0, 0.0]]
    low = -np.inf if limits is None else limits[:, 0]
    high = np.inf if limits is None else limits[:, 1]
    inits = np.clip(rng.uniform(-4.0, 4.0, (count, n)), low, high)
    inits[:2] = np.clip(0.0, low, high)  # collinear starts
    return chain, targets, inits


OPTION_DRAWS = {
    "ccd": lambda rng: {
        "damping": float(rng.choice([1.0, 0.5])),
        "max_step": [None, 0.3][int(rng.integers(2))],
    },
    "fabrik": lambda rng: {},
    "jt": lambda rng: {"damping": float(rng.choice([1.0, 0.7]))},
    "dls": lambda rng: {"damping": float(rng.choice([1.0, 0.6]))},
}


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("method", ITERATIVE)
def test_single_solves_equal_the_batch(method, n):
    # One target alone (the single path) and in a batch (the parallel path) run the
    # same compiled loop: the same numbers to 1e-12, statuses, iterations and traces.
    rng = np.random.default_rng(1000 * n + len(method))
    for case in range(3):
        chain, targets, inits = _random_case(rng, n, limited=method != "fabrik" and case == 1)
        options = {k: v for k, v in OPTION_DRAWS[method](rng).items() if v is not None}
        for budget in (0, 2, 60):
            batch = ikchain.solve(
                chain, targets, method, init=inits, max_iterations=budget, trace=True, **options
            )
            for i in range(len(targets)):
                single = ikchain.solve(
                    chain,
                    targets[i].tolist(),
                    method,
                    init=inits[i].tolist(),
                    max_iterations=budget,
                    trace=True,
                    **options,
                )
                np.testing.assert_allclose(single.angles, batch.angles[i], rtol=0, atol=1e-12)
                np.testing.assert_allclose(single.joints, batch.joints[i], rtol=0, atol=1e-12)
                assert abs(single.error - batch.error[i]) <= 1e-12
                assert single.min_error == batch.min_error[i]
                assert single.reachable == batch.reachable[i]
                assert (single.iterations, single.status) == (
                    batch.iterations[i],
                    batch.status[i],
                )
                k = single.iterations + 1
                np.testing.assert_allclose(single.trace, batch.trace[i, :k], rtol=0, atol=1e-12)
                assert np.all(np.isnan(batch.trace[i, k:]))
                np.testing.assert_allclose(
                    single.trace_angles, batch.trace_angles[i, :k], rtol=0, atol=1e-12
                )


@pytest.mark.parametrize("method", ITERATIVE)
def test_stop_rules_hold_on_random_cases(method):
    # Whatever the case, the status says which rule stopped the loop, and it holds.
    rng = np.random.default_rng(len(method))
    for n in (2, 4, 7):
        chain, targets, inits = _random_case(rng, n, limited=False)
        tolerance = 1e-9
        result = ikchain.solve(chain, targets, method, init=inits, max_iterations=40)
        d = np.hypot(targets[:, 0], targets[:, 1])
        np.testing.assert_allclose(
            result.min_error,
            np.maximum(0.0, np.maximum(d - chain.total_length, chain.inner_radius - d)),
            rtol=1e-15,  # d by hypot here, by sqrt(x² + y²) in the solver: an ulp or two
            atol=1e-15,
        )
        tip_error = np.hypot(*(result.end - targets).T)
        # hypot and the solver's sqrt(x² + y²) may differ by an ulp or two: 1e-15 relative
        np.testing.assert_allclose(result.error, tip_error, rtol=1e-15, atol=1e-15)
        for i, status in enumerate(result.status):
            if status is ikchain.Status.CONVERGED:
                assert result.error[i] <= tolerance
            elif status is ikchain.Status.UNREACHABLE:
                assert result.min_error[i] > 0.0 and result.error[i] <= result.min_error[i] + 1e-9
            elif status is ikchain.Status.MAX_ITERATIONS:
                assert result.iterations[i] == 40
            else:
                assert status is ikchain.Status.STALLED and result.iterations[i] >= 1
            assert result.error[i] >= result.min_error[i] - 1e-15


def test_trace_angles_start_at_the_start_and_end_at_the_answer(lesson_chain):
    result = ikchain.solve(lesson_chain, [0.5, 1.0], method="dls", init=[0.3, 0.4], trace=True)
    assert result.trace_angles.shape == (result.iterations + 1, 2)
    assert result.trace_angles[0].tolist() == [0.3, 0.4]
    assert result.trace_angles[-1].tolist() == result.angles.tolist()
    # each recorded pose's error is the recorded error (FK written out independently)
    ends = np.array([two_bone_end(0.8, 0.6, *pose) for pose in result.trace_angles])
    np.testing.assert_allclose(np.hypot(*(ends - [0.5, 1.0]).T), result.trace, atol=1e-15)


def test_long_traces_are_complete(lesson_chain):
    # more iterations than the first guess at the trace's room: the solve is rerun
    result = ikchain.solve(
        lesson_chain,
        [1.3999, 0.0001],
        method="ccd",
        max_iterations=5000,
        tolerance=1e-13,
        trace=True,
    )
    assert result.iterations > 1100
    assert result.trace.shape == (result.iterations + 1,)
    assert result.trace[-1] == result.error
    batch = ikchain.solve(
        lesson_chain,
        [[1.3999, 0.0001]] * 3,
        method="ccd",
        max_iterations=5000,
        tolerance=1e-13,
        trace=True,
    )
    np.testing.assert_array_equal(batch.trace[1], result.trace)


# -- the rest pose (DLS) -----------------------------------------------------------------

REST_CHAIN = ikchain.Chain([0.8, 0.6, 0.4])
REST_TARGET = [1.0, 0.6]


def test_two_rest_poses_give_two_members_of_the_family_each_nearer_its_own():
    # Two members of the target's solution family (closed form, ikchain.family) as
    # rest poses: both solves reach the target, with joint 1 in two different places,
    # each pose nearer its own rest pose than the other's.
    rests = [angles_from_family(REST_CHAIN, REST_TARGET, s) for s in (-0.8, -0.2)]
    results = [ikchain.solve(REST_CHAIN, REST_TARGET, "dls", rest=rest) for rest in rests]
    for result in results:
        assert result.status is ikchain.Status.CONVERGED
        np.testing.assert_allclose(result.end, REST_TARGET, atol=1e-9)
    assert np.hypot(*(results[0].joints[1] - results[1].joints[1])) > 0.1
    for mine, other in ((0, 1), (1, 0)):
        near = np.linalg.norm(results[mine].angles - rests[mine])
        assert near < np.linalg.norm(results[other].angles - rests[mine])
        assert near < 1e-3  # on this piece of the family the pull gets all the way


def test_rest_weight_zero_is_no_rest_and_weights_are_validated():
    plain = ikchain.solve(REST_CHAIN, REST_TARGET, "dls", trace=True)
    zero = ikchain.solve(REST_CHAIN, REST_TARGET, "dls", rest=[1.0, 1.0, 1.0], rest_weight=0.0)
    assert zero.angles.tolist() == plain.angles.tolist()
    assert zero.iterations == plain.iterations
    bad = [
        ({"rest": [1.0, 1.0, 1.0], "rest_weight": -0.5}, "rest_weight: expected a number >= 0"),
        ({"rest_weight": 1.0}, "rest_weight: weighs the pull toward a rest pose; expected rest"),
        ({"rest": [1.0, 1.0]}, r"rest: expected shape \(\.\.\., 3\)"),
        ({"rest": [[1.0, 1.0, 1.0]] * 2}, r"rest: expected one pose, shape \(3,\)"),
        ({"rest": [1.0, math.nan, 1.0]}, "rest"),
        ({"rest": [1.0, 1.0, 1.0], "rest_weight": math.inf}, "rest_weight"),
    ]
    for options, message in bad:
        with pytest.raises(ValueError, match=message):
            ikchain.solve(REST_CHAIN, REST_TARGET, "dls", **options)


@given(
    case=chain_and_reachable_target(),
    rest=st.lists(st.floats(-math.pi, math.pi), min_size=8, max_size=8),
    weight=st.sampled_from([0.1, 1.0, 10.0]),
)
@example(  # found by hypothesis: a pull that only kept the error from rising held it at
    # 3.1e-6 m for 1,000 iterations; a pulled step must now cut the error by a tenth
    case=(ikchain.Chain([0.640625, 0.296875, 1, 0.75, 0.328125, 1]), [-1.32623378, 1.28319058]),
    rest=[-1.2265625, 2.6875, 0.5, 1.90625, 0.0, -2.65625, 0.0, 0.0],
    weight=10.0,
)
def test_a_rest_pose_never_stops_convergence(case, rest, weight):
    chain, target = case
    result = ikchain.solve(
        chain,
        target,
        "dls",
        rest=rest[: chain.n_bones],
        rest_weight=weight,
        max_iterations=1000,
    )
    assert result.status is ikchain.Status.CONVERGED, result
    assert result.error <= 1e-9


def test_rest_in_a_batch_equals_one_at_a_time():
    rng = np.random.default_rng(8)
    targets = rng.uniform(-1.5, 1.5, (40, 2))
    rest = [0.5, -0.4, 0.9]
    batch = ikchain.solve(REST_CHAIN, targets, "dls", rest=rest, rest_weight=2.0)
    for i, target in enumerate(targets):
        single = ikchain.solve(REST_CHAIN, target, "dls", rest=rest, rest_weight=2.0)
        np.testing.assert_allclose(single.angles, batch.angles[i], rtol=0, atol=1e-12)
        assert (single.status, single.iterations) == (batch.status[i], batch.iterations[i])
