"""``ikchain.follow``: a path of targets solved in order, each from the last answer.

The oracle is the loop an animation would write without it: one ``solve`` a frame,
each given the previous frame's angles as ``init``. The two must agree to the bit.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ikchain
from ikchain.solvers import threads

LENGTHS = [0.6, 0.45, 0.35, 0.25]


def circle(frames: int, radius: float = 1.2) -> np.ndarray:
    """A lap of a circle around (0.2, 0.1), sampled at ``frames`` points (m)."""
    t = np.linspace(0.0, 2.0 * math.pi, frames, endpoint=False)
    return np.stack((0.2 + radius * np.cos(t), 0.1 + radius * np.sin(t)), axis=-1)


def loop_of_solves(chain, path, method, init=None, **options):
    """The frame-by-frame loop ``follow`` replaces."""
    results, pose = [], init
    for target in path:
        given = dict(options) if pose is None else {**options, "init": pose}
        result = ikchain.solve(chain, target, method, **given)
        results.append(result)
        pose = result.angles
    return results


def assert_same(batch, results) -> None:
    assert batch.shape == (len(results),)
    for i, one in enumerate(results):
        assert np.array_equal(batch.angles[i], one.angles), i
        assert np.array_equal(batch.joints[i], one.joints), i
        assert batch.error[i] == one.error and batch.min_error[i] == one.min_error, i
        assert batch.iterations[i] == one.iterations and batch.status[i] == one.status, i
        assert bool(batch.reachable[i]) == one.reachable, i


@pytest.mark.parametrize(
    ("method", "options"),
    [
        ("ccd", {"max_iterations": 8}),
        ("ccd", {"max_iterations": 30, "damping": 0.5, "max_step": 0.2}),
        ("fabrik", {"max_iterations": 6}),
        ("dls", {"max_iterations": 4}),
        ("dls", {"max_iterations": 20, "rest": [0.3, 0.2, 0.1, 0.0], "rest_weight": 0.5}),
    ],
)
def test_a_path_is_the_loop_of_warm_started_solves_to_the_bit(method, options) -> None:
    """300 targets (more than one thread's share of a batch), a circle that leaves
    the reach and comes back, on a small budget: every frame as the loop gets it."""
    chain = ikchain.Chain(LENGTHS)
    path = circle(300, radius=1.5)  # ΣL = 1.65: part of the lap is out of reach
    assert path.shape[0] > threads.PARALLEL_FROM
    batch = ikchain.follow(chain, path, method, **options)
    assert_same(batch, loop_of_solves(chain, path, method, **options))
    assert 0 < np.count_nonzero(batch.reachable) < len(path)  # in and out of reach


def test_a_limited_chain_follows_from_a_given_start_pose() -> None:
    limits = [[-0.5, 2.0], [0.0, 2.5], [0.0, 2.5], [-1.0, 1.0]]
    chain = ikchain.Chain(LENGTHS, limits=limits)
    path = circle(64, radius=0.9)
    init = [0.4, 0.3, 0.2, 0.1]
    batch = ikchain.follow(chain, path, "ccd", init=init, max_iterations=12)
    assert_same(batch, loop_of_solves(chain, path, "ccd", init=init, max_iterations=12))
    low, high = np.array(limits).T
    assert np.all((batch.angles >= low) & (batch.angles <= high))


def test_the_first_target_starts_where_solve_would() -> None:
    """Without ``init`` the first frame is ``solve``'s own default (bent by ``bend``);
    with it, that pose: either way the first row is a plain solve of the first target."""
    chain = ikchain.Chain(LENGTHS)
    path = circle(5)
    for extra in ({}, {"bend": -1}, {"init": [0.1, -0.2, 0.3, 0.0]}):
        first = ikchain.solve(chain, path[0], "fabrik", max_iterations=3, **extra)
        batch = ikchain.follow(chain, path, "fabrik", max_iterations=3, **extra)
        assert np.array_equal(batch.angles[0], first.angles)


def test_each_frame_continues_from_the_last_so_a_warm_path_converges_faster() -> None:
    """A smooth path: from the previous answer, DLS needs far fewer iterations a frame
    than from the default start pose every frame (the batch of independent solves)."""
    chain = ikchain.Chain(LENGTHS)
    path = circle(240, radius=1.0)
    warm = ikchain.follow(chain, path, "dls")
    cold = ikchain.solve(chain, path, "dls")
    assert np.all(warm.error[1:] <= 1e-9) and np.all(cold.error <= 1e-9)
    assert warm.iterations[1:].mean() < 0.5 * cold.iterations.mean()
    tips = ikchain.end_from_angles(chain.lengths, warm.angles)
    np.testing.assert_allclose(tips, path, atol=1e-9)  # FK of the answers is the path


def test_follow_records_a_trace_per_frame() -> None:
    chain = ikchain.Chain(LENGTHS)
    path = circle(10)
    batch = ikchain.follow(chain, path, "ccd", max_iterations=5, trace=True)
    loop = loop_of_solves(chain, path, "ccd", max_iterations=5, trace=True)
    for i, one in enumerate(loop):
        k = one.iterations + 1
        assert np.array_equal(batch.trace[i, :k], one.trace)
        assert np.array_equal(batch.trace_angles[i, :k], one.trace_angles)


@pytest.mark.parametrize(
    ("args", "options", "message"),
    [
        (([[1.0, 0.2]], "analytic"), {}, "method: expected one of ccd, fabrik, dls"),
        (([1.0, 0.2], "dls"), {}, "path: expected shape (k, 2), one target a row, got shape (2,)"),
        (([[[1.0, 0.2]]], "dls"), {}, "got shape (1, 1, 2)"),
        (([[1.0, 0.2]], "dls"), {"init": [[0.0] * 4] * 2}, "init: expected the first target's"),
        (([[1.0, 0.2]], "dls"), {"max_step": 0.1}, "method 'dls' takes only"),
        (([[1.0, math.nan]], "dls"), {}, "path"),
        (([[1.0, 0.2]], "dls"), {"init": [0.0] * 4, "bend": 1}, "expected init or bend"),
    ],
)
def test_a_malformed_path_or_option_is_refused(args, options, message) -> None:
    with pytest.raises(ValueError) as caught:
        ikchain.follow(ikchain.Chain(LENGTHS), *args, **options)
    assert message in str(caught.value)
