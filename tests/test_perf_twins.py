"""The plain-float twins of the vectorised solvers give the batch path's numbers.

A single solve through ikchain.solve runs analytic.solve_one, or the scalar loop
loop.iterate_one with a solver's scalar step (plain Python floats, for speed); a
batch runs the numpy code (loop.iterate with the solver's batch step). Over many
random inputs the two must agree: angles, joints, errors within 1e-12 (in practice
to the bit), and iterations and status exactly. The two loops are also run on the
same scripted steps, so that their stop rules are held to each other directly.
"""

import math

import numpy as np
import pytest

import ikchain
from ikchain.result import RUNNING
from ikchain.solvers import dls, loop

CLOSE = 1e-12


def assert_same(single, batch, index):
    np.testing.assert_allclose(single.angles, batch.angles[index], rtol=0, atol=CLOSE)
    np.testing.assert_allclose(single.joints, batch.joints[index], rtol=0, atol=CLOSE)
    np.testing.assert_allclose(single.end, batch.end[index], rtol=0, atol=CLOSE)
    assert abs(single.error - batch.error[index]) <= CLOSE
    assert single.min_error == pytest.approx(batch.min_error[index], abs=CLOSE)
    assert single.reachable == batch.reachable[index]
    assert single.iterations == batch.iterations[index]
    assert single.status is batch.status[index]


@pytest.mark.parametrize("bend", [1, -1])
@pytest.mark.parametrize("lengths", [(0.8, 0.6), (0.6, 0.8), (0.5, 0.5), (1.0, 0.01)])
def test_analytic_twin_matches_batch(lengths, bend):
    rng = np.random.default_rng(abs(hash((lengths, bend))) % 2**32)
    chain = ikchain.Chain(lengths)
    reach = chain.total_length
    targets = np.concatenate(
        [
            rng.uniform(-1.3, 1.3, (300, 2)) * reach,  # inside, outside, near the root
            [[reach, 0.0], [0.0, -reach], [chain.inner_radius, 0.0], [0.0, 0.0], [-0.0, 0.0]],
            [[1e-300, 0.0], [1e200, -1e200], [reach * (1 - 1e-15), 0.0]],
        ]
    )
    batch = ikchain.solve(chain, targets, method="analytic", bend=bend)
    for i, target in enumerate(targets):
        assert_same(ikchain.solve(chain, target.tolist(), method="analytic", bend=bend), batch, i)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 9])
def test_dls_twin_matches_batch(n):
    rng = np.random.default_rng(100 + n)
    lengths = rng.uniform(0.2, 1.0, n)
    cases = [(ikchain.Chain(lengths), None, 1.0)]
    limits = np.stack([-rng.uniform(0.2, 3.0, n), rng.uniform(0.2, 3.0, n)], axis=-1)
    cases.append((ikchain.Chain(lengths, limits), None, 0.6))
    for chain, _, damping in cases:
        count = 120
        targets = rng.uniform(-1.2, 1.2, (count, 2)) * chain.total_length
        targets[:3] = [[0.0, 0.0], [chain.total_length, 0.0], [3 * chain.total_length, 1.0]]
        low = -np.inf if chain.limits is None else chain.limits[:, 0]
        high = np.inf if chain.limits is None else chain.limits[:, 1]
        inits = np.clip(rng.uniform(-1.0, 1.0, (count, n)), low, high)
        for budget in (0, 3, 40):
            batch = ikchain.solve(
                chain,
                targets,
                method="dls",
                init=inits,
                max_iterations=budget,
                damping=damping,
                trace=True,
            )
            for i in range(count):
                single = ikchain.solve(
                    chain,
                    targets[i].tolist(),
                    method="dls",
                    init=inits[i].tolist(),
                    max_iterations=budget,
                    damping=damping,
                    trace=True,
                )
                assert_same(single, batch, i)
                kept = batch.trace[i][~np.isnan(batch.trace[i])]
                np.testing.assert_allclose(single.trace, kept, rtol=0, atol=CLOSE)


def test_dls_twin_default_start_matches_batch():
    rng = np.random.default_rng(5)
    chain = ikchain.Chain([0.8, 0.6, 0.4])
    targets = rng.uniform(-2.0, 2.0, (200, 2))
    for bend in (1, -1):
        batch = ikchain.solve(chain, targets, method="dls", bend=bend)
        for i, target in enumerate(targets):
            assert_same(
                ikchain.solve(chain, tuple(target.tolist()), method="dls", bend=bend), batch, i
            )


def _twin_chain(rng, n, limited):
    """Random lengths, one bone sometimes longer than the rest (an inner circle)."""
    lengths = rng.uniform(0.2, 1.0, n)
    if rng.random() < 0.4:
        lengths[rng.integers(n)] = 1.5 * lengths.sum()
    if not limited:
        return ikchain.Chain(lengths)
    limits = np.stack([-rng.uniform(0.1, 3.0, n), rng.uniform(0.1, 3.0, n)], axis=-1)
    return ikchain.Chain(lengths, limits)


def _twin_targets(rng, chain, count):
    """Reachable (tips of random poses), outside the outer circle, inside the inner one."""
    angles = rng.uniform(-math.pi, math.pi, (count, chain.n_bones))
    targets = ikchain.end_from_angles(chain.lengths, angles)
    phi = rng.uniform(-math.pi, math.pi, count)
    ray = np.stack([np.cos(phi), np.sin(phi)], axis=-1)
    outside = rng.random(count) < 0.25
    far = ray * chain.total_length * rng.uniform(1.0, 2.0, (count, 1))
    targets[outside] = far[outside]
    if chain.inner_radius > 0.0:
        inside = rng.random(count) < 0.25
        radii = chain.inner_radius * rng.uniform(0.0, 1.0, (count, 1))
        targets[inside] = ray[inside] * radii[inside]
    targets[:3] = [[0.0, 0.0], [chain.total_length, 0.0], [1.0, 0.0]]
    return targets


#: Each method's options beyond the start, drawn per case.
TWIN_OPTIONS = {
    "ccd": lambda rng: {
        "damping": float(rng.choice([1.0, 0.5])),
        "max_step": [None, 0.3][int(rng.integers(2))],
    },
    "fabrik": lambda rng: {},
    "dls": lambda rng: {"damping": float(rng.choice([1.0, 0.6]))},
}


@pytest.mark.parametrize("n", range(2, 9))
@pytest.mark.parametrize("method", ["ccd", "fabrik", "dls"])
def test_iterative_twin_matches_batch(method, n):
    rng = np.random.default_rng(1000 * n + len(method))
    count = 30
    for case in range(4):
        limited = method != "fabrik" and case % 2 == 1
        chain = _twin_chain(rng, n, limited)
        options = TWIN_OPTIONS[method](rng)
        targets = _twin_targets(rng, chain, count)
        low = -np.inf if chain.limits is None else chain.limits[:, 0]
        high = np.inf if chain.limits is None else chain.limits[:, 1]
        inits = np.clip(rng.uniform(-4.0, 4.0, (count, n)), low, high)
        inits[:4] = np.clip(0.0, low, high)  # collinear starts
        for budget in (0, 2, 40):
            batch = ikchain.solve(
                chain, targets, method, init=inits, max_iterations=budget, trace=True, **options
            )
            for i in range(count):
                single = ikchain.solve(
                    chain,
                    targets[i].tolist(),
                    method,
                    init=inits[i].tolist(),
                    max_iterations=budget,
                    trace=True,
                    **options,
                )
                assert_same(single, batch, i)
                # and to the bit: a method's two steps take the same atan2 (numpy's
                # for CCD and FABRIK, libm's for DLS); the other one differs in the
                # last bit, which the 1e-12 check above would not see
                assert single.angles.tolist() == batch.angles[i].tolist()
                kept = batch.trace[i][~np.isnan(batch.trace[i])]
                np.testing.assert_allclose(single.trace, kept, rtol=0, atol=CLOSE)
        # the default (bent) start, no trace
        bend = int(rng.choice([1, -1]))
        batch = ikchain.solve(chain, targets, method, bend=bend, max_iterations=40, **options)
        for i in range(count):
            single = ikchain.solve(
                chain, targets[i], method, bend=bend, max_iterations=40, **options
            )
            assert single.trace is None
            assert_same(single, batch, i)


@pytest.mark.parametrize("method", ["ccd", "fabrik", "dls"])
def test_collinear_stall_is_the_same_either_way(method):
    chain = ikchain.Chain([0.8, 0.6])
    single = ikchain.solve(chain, [1.0, 0.0], method, init=[0.0, 0.0], trace=True)
    batch = ikchain.solve(chain, [[1.0, 0.0]], method, init=[[0.0, 0.0]], trace=True)
    assert single.status is ikchain.Status.STALLED and single.iterations == 1
    assert_same(single, batch, 0)
    np.testing.assert_array_equal(single.trace, batch.trace[0])


def test_dls_atan2_is_libm_to_the_bit():
    rng = np.random.default_rng(6)
    y = rng.normal(size=2000) * np.exp(rng.uniform(-20, 20, 2000))
    x = rng.normal(size=2000) * np.exp(rng.uniform(-20, 20, 2000))
    special = [0.0, -0.0, 1.0, -1.0, 5e-324]
    y = np.concatenate([y, np.repeat(special, len(special))])
    x = np.concatenate([x, np.tile(special, len(special))])
    ours = dls.atan2(y, x)
    for a, b, value in zip(y.tolist(), x.tolist(), ours.tolist(), strict=True):
        expected = math.atan2(a, b)
        assert value == expected and math.copysign(1, value) == math.copysign(1, expected)


def _scripts(rng, count, n, tolerance):
    """Per target: min_error, a start pose, its start error, and scripted steps.

    Errors and angle changes are drawn at and next to the stop rules' thresholds.
    """
    scripts = []
    for _ in range(count):
        min_error = float(rng.choice([0.0, 0.5, 1e-3]))
        edges = [
            tolerance,
            min_error + tolerance,
            0.0,
            0.25,
            min_error + 0.1,
        ]
        edges += [math.nextafter(e, math.inf) for e in edges[:2]]
        edges += [math.nextafter(e, -math.inf) for e in edges[:2]]
        start = [0.0, *rng.choice([0.0, 0.5, -1.0, 3.0, -7.5], n - 1).tolist()]
        steps = []
        angles = start
        for _ in range(int(rng.integers(0, 7))):
            new = []
            for was in angles:
                threshold = loop._ROUNDING * max(1.0, abs(was))
                change = float(rng.choice([0.0, threshold, -threshold, 0.3, 1e-17]))
                change *= float(rng.choice([1.0, 1.0 + 2**-50, 1.0 - 2**-50]))
                new.append(was + change)
            angles = new
            steps.append((angles, float(rng.choice(edges))))
        scripts.append((min_error, start, float(rng.choice(edges)), steps))
    return scripts


def test_the_two_loops_apply_the_same_stop_rules():
    rng = np.random.default_rng(11)
    n, count, tolerance = 3, 3000, 1e-9
    scripts = _scripts(rng, count, n, tolerance)
    for budget in (0, 1, 2, 4, 8):
        # A scripted step: the row's next pose and a tip at its scripted error from
        # the target (0, 0). The batch loop's memory carries (row, steps taken).
        def batch_step(angles, target, memory):
            new, tips = np.empty_like(angles), np.zeros((len(angles), 2))
            for k, (row, taken) in enumerate(memory.astype(int).tolist()):
                steps = scripts[row][3]
                new[k], tips[k, 0] = steps[taken] if taken < len(steps) else (angles[k], 1.0)
            return new, memory + np.array([0.0, 1.0]), tips

        # start poses: tip at (start error, 0) with lengths (start error, 0, 0)
        starts = np.array([s[1] for s in scripts])
        batch = [
            loop.iterate(
                batch_step,
                np.array([s[2], 0.0, 0.0]),
                starts[i : i + 1],
                np.zeros((1, 2)),
                np.array([s[0]]),
                max_iterations=budget,
                tolerance=tolerance,
                memory=np.array([[i, 0.0]]),
                record_trace=True,
            )
            for i, s in enumerate(scripts)
        ]
        for i, (min_error, start, start_error, steps) in enumerate(scripts):
            taken = iter(steps)

            def scalar_step(angles, xs, ys, tx, ty, taken=taken):
                new, error = next(taken, (angles, 1.0))
                return new, [0.0, 0.0, 0.0, error], [0.0, 0.0, 0.0, 0.0]

            angles, _, _, error, iterations, code, trace = loop.iterate_one(
                scalar_step,
                [start_error, 0.0, 0.0],
                start,
                0.0,
                0.0,
                min_error,
                max_iterations=budget,
                tolerance=tolerance,
                record_trace=True,
            )
            expected = batch[i]
            assert code != RUNNING
            assert (code, iterations) == (expected.codes[0], expected.iterations[0]), i
            assert angles == expected.angles[0].tolist()
            assert error == expected.error[0]
            assert trace == expected.trace[0].tolist()


@pytest.mark.parametrize("method", ["ccd", "dls"])
@pytest.mark.parametrize("bend", [1, -1])
def test_single_default_start_is_default_init_within_limits(method, bend):
    # each joint's limits either clip the bent start (below, above) or leave it
    chain = ikchain.Chain([0.8, 0.6, 0.4], limits=[[0.05, 0.1], [-0.1, -0.05], [-1.0, 1.0]])
    single = ikchain.solve(chain, [1.0, 0.5], method, bend=bend, max_iterations=0)
    assert single.angles.tolist() == ikchain.default_init(chain, bend).tolist()
