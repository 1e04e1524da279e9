"""Contracts of the solvers' small rules, each checked against its documented statement.

Each test here guards one rule that a deliberate mistake once broke unnoticed (the
mutation list's first entries): the sign of CCD's capped turn, the rest pull's wrapping, FABRIK's
zero-gap fallbacks and continuous angles, the relative stall rule, the clipped
default start pose and ``wrap_angle``'s half-open range. Expected values come from the
rule (README, docstrings), worked out here by hand or by an independent computation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ikchain
from ikchain.kinematics import wrap_angle


@pytest.mark.parametrize("side", [-1.0, 1.0])
def test_ccd_caps_a_large_turn_at_max_step_keeping_its_sign(side: float) -> None:
    """A one-bone chain turns toward the target by at most ``max_step``, in the turn's
    own direction: from 0 toward a target at ±1 rad with max_step 0.1, exactly ±0.1."""
    chain = ikchain.Chain([1.0])
    target = [math.cos(side), math.sin(side)]
    result = ikchain.solve(
        chain, target, "ccd", init=[0.0], max_iterations=1, max_step=0.1, trace=True
    )
    assert result.trace_angles is not None
    assert result.trace_angles[1, 0] == pytest.approx(side * 0.1, abs=1e-15)


def test_rest_pull_takes_the_short_way_across_pi() -> None:
    """The rest pull moves a joint toward its rest angle the short way round: from
    -3.0 rad, a rest of +3.0 rad lies 0.283 rad away across ±π (below -3.0), so the
    pull turns the joint further negative than the solve without a rest does, and a
    rest of -2.8 rad turns it the other way."""
    chain = ikchain.Chain([0.5, 0.4, 0.3])
    start = np.array([0.4, 0.6, -3.0])
    target = ikchain.end_from_angles(chain.lengths, start) + np.array([1e-3, 0.0])
    plain = ikchain.solve(chain, target, "dls", init=start)
    ends = {}
    for rest in (3.0, -2.8):
        pose = np.array([0.4, 0.6, rest])
        result = ikchain.solve(chain, target, "dls", init=start, rest=pose, rest_weight=4.0)
        assert result.converged and plain.converged
        ends[rest] = result.angles[2]
    assert ends[3.0] < plain.angles[2] - 1e-3 < plain.angles[2] + 1e-3 < ends[-2.8]


def _fabrik_pass(lengths: list[float], angles: list[float], target: tuple[float, float]):
    """One FABRIK iteration by the paper's rule, with the documented fallback: where a
    gap to the next joint is zero the bone keeps its previous direction."""
    n = len(lengths)
    absolute = np.cumsum(angles)
    dirs = [(math.cos(a), math.sin(a)) for a in absolute]
    p = [(0.0, 0.0)]
    for i in range(n):
        p.append((p[-1][0] + lengths[i] * dirs[i][0], p[-1][1] + lengths[i] * dirs[i][1]))
    p[n] = target
    for i in range(n - 1, -1, -1):
        ox, oy = p[i][0] - p[i + 1][0], p[i][1] - p[i + 1][1]
        gap = math.hypot(ox, oy)
        ux, uy = (ox / gap, oy / gap) if gap > 0 else (-dirs[i][0], -dirs[i][1])
        p[i] = (p[i + 1][0] + lengths[i] * ux, p[i + 1][1] + lengths[i] * uy)
    p[0] = (0.0, 0.0)
    for i in range(n):
        ox, oy = p[i + 1][0] - p[i][0], p[i + 1][1] - p[i][1]
        gap = math.hypot(ox, oy)
        ux, uy = (ox / gap, oy / gap) if gap > 0 else dirs[i]
        p[i + 1] = (p[i][0] + lengths[i] * ux, p[i][1] + lengths[i] * uy)
    return np.array(p)


@pytest.mark.parametrize(
    ("lengths", "start", "target", "which"),
    [
        # the target sits on joint 1: the backward pass meets a zero gap at the tip bone
        ([1.0, 0.7], [0.3, 0.8], None, "backward"),
        # after the backward pass joint 1 lands on the root: the forward pass meets one
        ([1.0, 1.0], [0.0, 0.3], (-1.0, 0.0), "forward"),
    ],
)
def test_fabrik_zero_gaps_keep_the_previous_direction(lengths, start, target, which) -> None:
    """Both zero-gap fallbacks give the joints of the rule worked out independently."""
    if target is None:
        target = tuple(ikchain.joints_from_angles(np.array(lengths), np.array(start))[1])
    expected = _fabrik_pass(lengths, start, target)
    result = ikchain.solve(
        ikchain.Chain(lengths), list(target), "fabrik", init=start, max_iterations=1
    )
    assert result.iterations == 1, which
    np.testing.assert_allclose(result.joints, expected, atol=1e-12)


def test_fabrik_angles_stay_continuous() -> None:
    """Each FABRIK iteration changes every angle by its shortest turn (at most π), so a
    pose given near or beyond ±π never jumps by a turn."""
    rng = np.random.default_rng(4)
    chain = ikchain.Chain([0.6, 0.5, 0.4])
    for _ in range(40):
        start = rng.uniform(-math.pi, math.pi, 3)
        start[rng.integers(0, 3)] = rng.choice([-1.0, 1.0]) * rng.uniform(2.9, 3.3)
        target = rng.uniform(-1.2, 1.2, 2)
        result = ikchain.solve(chain, target, "fabrik", init=start, max_iterations=12, trace=True)
        assert result.trace_angles is not None
        steps = np.diff(result.trace_angles, axis=0)
        assert np.all(np.abs(steps) <= math.pi + 1e-12)


def test_stall_rule_is_relative_to_the_angle() -> None:
    """ "An iteration that changes no angle beyond rounding stops with stalled": rounding
    is 8 eps · max(1, |angle|) (loop's docstring). A change of 1e-13 rad is rounding
    for a joint wound to 1000 rad (8 eps · 1000 = 1.8e-12) but not for one at 0.5 rad
    (8 eps = 1.8e-15)."""
    from ikchain.solvers import loop

    eps = float(np.finfo(np.float64).eps)
    for angle, moved in ((1000.0, False), (-1000.0, False), (0.5, True), (-0.5, True)):
        before = np.array([0.1, angle])
        after = np.array([0.1, angle + 1e-13])
        assert loop.changed(before, after) is moved, angle
    # just beyond the relative bound at 1000 rad: a change
    assert loop.changed(np.array([1000.0]), np.array([1000.0 + 16 * eps * 1000.0]))
    chain = ikchain.Chain([0.6, 0.5, 0.4])
    start = np.array([1000.0 * 2 * math.pi + 0.3, 0.5, 0.7])
    result = ikchain.solve(
        chain, [0.7, 0.8], "dls", init=start, tolerance=1e-300, max_iterations=500
    )
    assert result.status is ikchain.Status.STALLED
    assert result.iterations < 500
    assert result.error < 1e-12  # it stalled at the target, to rounding


@pytest.mark.parametrize(
    ("direction", "expected"),
    [(-0.3, 0.0), (1.5, 1.0), (math.pi - 0.1, 1.0), (-2.0, 0.0)],
)
def test_fabrik_turns_a_limited_joint_to_its_nearer_bound(direction, expected) -> None:
    """FABRIK with limits turns each joint to the allowed angle nearest the one it
    wants, around the circle (README): a one-bone chain limited to [0, 1] rad aiming at
    a target in direction -0.3 stops at 0, at 1.5 at 1, at π - 0.1 (2.04 from 1, 3.04
    from 0) at 1, at -2 (2 from 0, 3 from 1) at 0."""
    chain = ikchain.Chain([1.0], limits=[[0.0, 1.0]])
    target = [2.0 * math.cos(direction), 2.0 * math.sin(direction)]
    result = ikchain.solve(chain, target, "fabrik", init=[0.5], max_iterations=1)
    assert result.angles[0] == expected


def test_reach_counts_a_chain_folded_back_along_the_line() -> None:
    """A boundary arc may come from free joints that point the chain back along their
    line. Two rigid bones of 0.5 + 0.5 m on a free root, and a last bone of 0.45 m whose
    joint turns within [2.5, 3.5] rad: the tips fill radii 0.55 (folded back, θ2 = π,
    inside the range) to sqrt(1.2025 + 0.9 cos 2.5); a target 0.3 m out is 0.25 m away."""
    chain = ikchain.Chain([0.5, 0.5, 0.45], limits=[[-math.pi, math.pi], [0, 0], [2.5, 3.5]])
    result = ikchain.solve(chain, [0.3, 0.0])
    assert result.certified and not result.reachable
    assert result.min_error == pytest.approx(0.25, abs=1e-12)
    assert result.status is ikchain.Status.UNREACHABLE
    assert result.error == pytest.approx(0.25, abs=1e-9)


@pytest.mark.parametrize(
    ("limits", "bend", "expected"),
    [
        ([[0.5, 1.0], [-1.0, -0.4]], 1, [0.5, -0.4]),  # 0.2 below the lower, above the upper
        ([[-1.0, -0.3], [0.25, 0.9]], 1, [-0.3, 0.25]),
        ([[-1.0, 1.0], [-0.1, 0.1]], -1, [-0.2, -0.1]),
    ],
)
def test_default_start_pose_is_bent_and_clipped_into_the_limits(limits, bend, expected) -> None:
    """The default start pose is 0.2 rad per joint in the direction of ``bend``, clipped
    to each joint's [min, max] (README): trace_angles[0] is that pose."""
    chain = ikchain.Chain([0.8, 0.6], limits=limits)
    for method in ikchain.solvers.ITERATIVE:
        result = ikchain.solve(chain, [0.3, 0.9], method, bend=bend, max_iterations=0, trace=True)
        assert result.trace_angles is not None
        np.testing.assert_array_equal(result.trace_angles[0], expected)


def test_wrap_angle_is_half_open_at_minus_pi() -> None:
    """wrap_angle maps to (-π, π]: -π itself, 3π and -3π all give +π, never -π."""
    for angle in (-math.pi, math.pi, 3 * math.pi, -3 * math.pi):
        assert wrap_angle(angle) == math.pi
    # a hair above π: the modulo rounds to 2π and the last line must give +π, not -π
    assert wrap_angle(np.nextafter(math.pi, 4.0)) == math.pi
    values = wrap_angle(np.array([-math.pi, -math.pi + 1e-15, 0.0, 7.0]))
    assert values[0] == math.pi and values[1] == -math.pi + 1e-15
    assert values[3] == pytest.approx(7.0 - 2 * math.pi, abs=1e-15)


def test_keep_bend_gives_the_mirrored_run_only_what_is_left_of_the_default_budget() -> None:
    """A frame that mirrors a solve onto the asked bend runs at most the default budget
    (200 iterations, README) in all: the mirrored run gets only what the first left.
    At (1.2, 0.7) with ↺ asked, CCD's first run uses all 200 and ends on ↻."""
    from ikchain.lesson import frames

    chain = ikchain.Chain([0.8, 0.6])
    runs = frames.frame_runs(chain, np.array([1.2, 0.7]), "ccd", {"bend": -1})
    assert len(runs) == 2  # it was mirrored
    assert int(runs[0].iterations) == 200
    assert sum(int(run.iterations) for run in runs) <= 200


@pytest.mark.parametrize("bones", [3, 7])
def test_a_pose_within_the_tolerance_never_hides_a_proven_gap(bones) -> None:
    """A target 5e-10 m beyond ΣL, solved to a loose tolerance (1e-6): the pose meets
    the tolerance, yet no pose reaches the target, so min_error stays the gap and
    reachable False, as for the same chain without limits (full-turn limits; at 7
    bones, beyond the boundary arcs, the gap is the only bound there is)."""
    lengths = [0.3] * bones
    target = [0.3 * bones + 5e-10, 0.0]
    free = ikchain.solve(ikchain.Chain(lengths), target, tolerance=1e-6)
    chain = ikchain.Chain(lengths, limits=[[-math.pi, math.pi]] * bones)
    result = ikchain.solve(chain, target, tolerance=1e-6)
    assert result.converged
    assert not result.reachable
    assert result.min_error == free.min_error > 0.0
