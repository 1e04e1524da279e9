"""The tip angle: every method puts the last bone at the given world angle (to 1e-12)
and the tip as near the target as the first n - 1 bones bring the wrist; the three-bone
closed form does it on both elbow branches; each tells the truth about the pose task
(the wrist's distance to its reach) where it cannot.

Expected values come from elsewhere: forward kinematics written in numpy
(``limits_oracle.tips``), the law of cosines written out here for the wrist, and the
annulus gap computed here.
"""

from __future__ import annotations

import math
import os
import re

import numpy as np
import pytest

import ikchain
from limits_oracle import tips

INTERPRETED = os.environ.get("NUMBA_DISABLE_JIT") == "1" or os.environ.get("IKCHAIN_JIT") == "0"
CASES = 1_000 if INTERPRETED else 10_000


def turn_gap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| as a turn, in [0, π]."""
    return np.abs(np.angle(np.exp(1j * (np.asarray(a) - np.asarray(b)))))


def random_cases(rng: np.random.Generator, count: int):
    lengths = rng.uniform(0.2, 1.5, (count, 3))
    angle = rng.uniform(-4.0, 4.0, count)
    return lengths, angle


def test_the_tip_is_on_the_target_with_the_hand_at_the_angle_on_both_branches() -> None:
    rng = np.random.default_rng(31)
    lengths, angle = random_cases(rng, CASES)
    poses = rng.uniform(-math.pi, math.pi, (CASES, 3))
    bends = np.where(rng.uniform(size=CASES) < 0.5, 1, -1)
    checked = 0
    for k in range(CASES):
        l1, l2, l3 = lengths[k]
        # a target some pose reaches with the hand at the angle: that pose's tip
        pose = poses[k]
        pose[2] = angle[k] - pose[0] - pose[1]
        target = tips(lengths[k], pose[None, :])[0]
        got = ikchain.solve(
            ikchain.Chain(lengths[k]), target, "analytic", angle=angle[k], bend=int(bends[k])
        )
        assert str(got.status) == "converged" and got.reachable and got.min_error == 0.0
        scale = lengths[k].sum()
        tip = tips(lengths[k], np.asarray(got.angles)[None, :])[0]
        assert math.dist(tip, target) <= 1e-12 * scale
        assert turn_gap(np.sum(got.angles), angle[k]) <= 1e-12
        # the wrist by the law of cosines, written out: the elbow's angle and its sign
        wrist = target - l3 * np.array([math.cos(angle[k]), math.sin(angle[k])])
        d = math.hypot(*wrist)
        cosine = (d * d - l1 * l1 - l2 * l2) / (2 * l1 * l2)
        if abs(cosine) < 1 - 1e-6:  # away from straight and folded, where the branch is moot
            elbow = bends[k] * math.acos(cosine)
            shoulder = math.atan2(wrist[1], wrist[0]) - math.atan2(
                l2 * math.sin(elbow), l1 + l2 * math.cos(elbow)
            )
            assert abs(got.angles[1] - elbow) <= 1e-9
            assert turn_gap(got.angles[0], shoulder) <= 1e-9
            checked += 1
    assert checked >= 0.99 * CASES


def test_beyond_the_wrist_annulus_min_error_is_the_wrists_gap_and_the_angle_still_holds() -> None:
    rng = np.random.default_rng(37)
    lengths, angle = random_cases(rng, CASES)
    targets = rng.uniform(-4.0, 4.0, (CASES, 2))
    far = 0
    for k in range(CASES):
        l1, l2, l3 = lengths[k]
        got = ikchain.solve(ikchain.Chain(lengths[k]), targets[k], "analytic", angle=angle[k])
        wrist = targets[k] - l3 * np.array([math.cos(angle[k]), math.sin(angle[k])])
        d = math.hypot(*wrist)
        gap = max(abs(l1 - l2) - d, d - (l1 + l2), 0.0)
        scale = lengths[k].sum() + abs(targets[k]).sum()
        assert abs(got.min_error - gap) <= 1e-12 * scale
        assert got.reachable == (got.min_error == 0.0) and got.certified
        tip = tips(lengths[k], np.asarray(got.angles)[None, :])[0]
        assert abs(math.dist(tip, targets[k]) - gap) <= 1e-12 * scale  # as near as it can
        assert abs(got.error - math.dist(tip, targets[k])) <= 1e-12 * scale
        assert turn_gap(np.sum(got.angles), angle[k]) <= 1e-12
        if gap > 0.0:
            far += 1
            assert str(got.status) == "unreachable"
    assert far >= CASES // 4


def test_a_batch_answers_as_its_targets_do_alone() -> None:
    chain = ikchain.Chain([0.5, 0.4, 0.3])
    rng = np.random.default_rng(41)
    targets = rng.uniform(-1.3, 1.3, (4, 5, 2))
    batch = ikchain.solve(chain, targets, "analytic", angle=0.7, bend=-1)
    assert batch.angles.shape == (4, 5, 3)
    for i in range(4):
        for j in range(5):
            one = ikchain.solve(chain, targets[i, j], "analytic", angle=0.7, bend=-1)
            assert one.angles.tobytes() == batch.angles[i, j].tobytes()
            assert one.min_error == batch.min_error[i, j] and one.status == batch.status[i, j]


def test_a_weight_blends_from_init_as_for_any_closed_form_solve() -> None:
    chain = ikchain.Chain([0.5, 0.4, 0.3])
    start = [0.1, 0.2, 0.3]
    full = ikchain.solve(chain, [0.6, 0.5], "analytic", angle=0.3)
    zero = ikchain.solve(chain, [0.6, 0.5], "analytic", angle=0.3, init=start, weight=0.0)
    one = ikchain.solve(chain, [0.6, 0.5], "analytic", angle=0.3, init=start, weight=1.0)
    assert zero.angles.tolist() == start and one.angles.tobytes() == full.angles.tobytes()


@pytest.mark.parametrize(
    ("chain", "method", "options", "said"),
    [
        (ikchain.Chain([0.5, 0.4]), "analytic", {}, "angle: expected a 3-bone chain"),
        (ikchain.Chain([0.5, 0.4, 0.3, 0.2]), "analytic", {}, "got 4 bones"),
        (ikchain.Chain([0.5]), "analytic", {}, "got 1 bone$"),
        (ikchain.Chain([0.5]), "ccd", {}, r"expected a chain of 2 bones or more .*, got 1 bone"),
        (
            ikchain.Chain([0.5, 0.4, 0.3], limits=[[-1, 1]] * 3),
            "fabrik",
            {},
            r"limits spanning a turn\), got limits \[-1.0, 1.0\] on joint 2",
        ),
        (
            ikchain.Chain([0.5, 0.4, 0.3], limits=[[-4, 4], [-4, 4], [-3.1, 3.1]]),
            "analytic",
            {},
            r"got limits \[-3.1, 3.1\] on joint 2",
        ),
        (ikchain.Chain([0.5, 0.4, 0.3]), "analytic", {"pole": [0, 1]}, "angle or pole, got both"),
        (ikchain.Chain([0.5, 0.4, 0.3]), "dls", {"soft": 0.1}, "angle or soft, got both"),
        (ikchain.Chain([0.5, 0.4, 0.3]), "ccd", {"trace": True}, "angle or trace, got both"),
        (
            ikchain.Chain([0.5, 0.4, 0.3]),
            "dls",
            {"stiffness": [1, 1, math.inf]},
            "expected a finite stiffness for it, got inf",
        ),
    ],
)
def test_what_cannot_be_posed_at_an_angle_is_refused(chain, method, options, said) -> None:
    with pytest.raises(ValueError, match=said):
        ikchain.solve(chain, [0.6, 0.5], method, angle=0.3, **options)


def annulus_gap(lengths: np.ndarray, point: np.ndarray) -> float:
    """Distance from ``point`` to the set the tip of free bones ``lengths`` reaches."""
    d = math.hypot(*point)
    longest = float(np.max(lengths))
    inner = max(2.0 * longest - float(np.sum(lengths)), 0.0)
    return max(inner - d, d - float(np.sum(lengths)), 0.0)


ITERATIVE = ["ccd", "fabrik", "jt", "dls"]


@pytest.mark.parametrize("method", ITERATIVE)
def test_ten_thousand_batched_cases_agree_with_the_wrist_annulus(method: str) -> None:
    """10^4 cases a method (100 chains and angles, 100 targets each, in batches): the
    hand at the angle to 1e-12, ``min_error`` the wrist's gap to the annulus of the
    first n - 1 bones (written out here), ``reachable`` exactly where that gap is 0,
    no tip nearer than ``min_error``, a converged tip within the tolerance and an
    unreachable one never called converged; the last joint in (-π, π]."""
    rng = np.random.default_rng(67)
    draws, per = (10, 40) if INTERPRETED else (100, 100)
    disagreements = 0
    unreachable = 0
    for _ in range(draws):
        n = int(rng.integers(2, 6))
        lengths = rng.uniform(0.2, 1.5, n)
        angle = float(rng.uniform(-4.0, 4.0))
        targets = rng.uniform(-1.2, 1.2, (per, 2)) * lengths.sum()
        got = ikchain.solve(ikchain.Chain(lengths), targets, method, angle=angle, tolerance=1e-9)
        scale = lengths.sum() + np.abs(targets).sum(axis=1)
        assert np.all(turn_gap(np.sum(got.angles, axis=1), angle) <= 1e-12)
        assert np.all((-math.pi < got.angles[:, -1]) & (got.angles[:, -1] <= math.pi))
        np.testing.assert_array_equal(got.reachable, got.min_error == 0.0)
        wrists = targets - lengths[-1] * np.array([math.cos(angle), math.sin(angle)])
        gaps = np.array([annulus_gap(lengths[:-1], w) for w in wrists])
        disagreements += int(np.sum(np.abs(got.min_error - gaps) > 1e-9 * scale))
        # reachable where the wrist is inside by a margin, not where it is out by one
        inside = np.array([annulus_gap(lengths[:-1] * (1 + 1e-9), w) == 0.0 for w in wrists])
        disagreements += int(np.sum(inside & ~got.reachable))
        out_of_reach = gaps > 1e-9 * scale
        disagreements += int(np.sum(out_of_reach & got.reachable))
        unreachable += int(np.sum(out_of_reach))
        tips_now = tips(lengths, np.asarray(got.angles))
        for j in range(lengths.size):  # every joint where the angles put it
            at = tips(lengths[: j + 1], np.asarray(got.angles)[:, : j + 1])
            assert np.all(np.abs(got.joints[:, j + 1] - at) <= 1e-12 * scale[:, None])
        reached = np.hypot(*(tips_now - targets).T)
        assert np.all(np.abs(got.error - reached) <= 1e-12 * scale)
        assert np.all(got.error >= got.min_error - 1e-12 * scale)
        converged = got.status == ikchain.Status.CONVERGED
        assert np.all(got.error[converged] <= 1e-9 * (1 + 1e-9))
        assert not np.any(converged & out_of_reach)
    assert disagreements == 0
    assert unreachable >= draws * per // 10  # both sides of the ring are tried


@pytest.mark.parametrize("method", ITERATIVE)
def test_a_reachable_wrist_converges_with_the_hand_at_the_angle(method: str) -> None:
    """Targets some pose reaches with the hand at the angle: every method gets there."""
    rng = np.random.default_rng(47)
    count = 40 if INTERPRETED else 150
    converged = 0
    for _ in range(count):
        n = int(rng.integers(2, 6))
        lengths = rng.uniform(0.2, 1.5, n)
        pose = rng.uniform(-2.5, 2.5, n)
        target = tips(lengths, pose[None, :])[0]
        angle = float(np.sum(pose))
        got = ikchain.solve(
            ikchain.Chain(lengths), target, method, angle=angle, tolerance=1e-9, max_iterations=5000
        )
        # on the rim (a one-bone wrist chain's whole reach), rounding may put it outside
        assert got.min_error <= 1e-12 * lengths.sum()
        assert got.reachable == (got.min_error == 0.0)
        tip = tips(lengths, np.asarray(got.angles)[None, :])[0]
        if str(got.status) == "converged":
            converged += 1
            assert math.dist(tip, target) <= 1e-9 * (1 + 1e-9)
        assert turn_gap(np.sum(got.angles), angle) <= 1e-12
    assert converged >= 0.9 * count


def test_under_limits_min_error_is_the_least_distance_and_the_last_joint_stays_inside() -> None:
    """A limited chain whose last joint spans a turn: min_error is the first two bones'
    least distance to the wrist under their limits (the independent grid-and-Newton
    oracle), and the last joint's angle lies within its limits."""
    from limits_oracle import least_distance

    rng = np.random.default_rng(53)
    limits = [[-1.0, 1.5], [-0.5, 2.0], [0.5, 0.5 + 2 * math.pi]]
    lengths = np.array([0.6, 0.45, 0.3])
    chain = ikchain.Chain(lengths, limits=limits)
    for _ in range(6 if INTERPRETED else 15):
        angle = float(rng.uniform(-4.0, 4.0))
        target = rng.uniform(-1.4, 1.4, 2)
        got = ikchain.solve(chain, target, "dls", angle=angle)
        wrist = target - lengths[-1] * np.array([math.cos(angle), math.sin(angle)])
        bound, _ = least_distance(lengths[:-1], limits[:-1], wrist)
        assert got.min_error <= bound + 1e-9  # never claims more than a real pose shows
        assert got.min_error >= bound - 1e-6  # nor less than the oracle's pose
        assert got.reachable == (got.min_error == 0.0)
        assert limits[2][0] <= got.angles[2] <= limits[2][1]
        assert all(lo <= a <= hi for a, (lo, hi) in zip(got.angles, limits, strict=True))
        assert turn_gap(np.sum(got.angles), angle) <= 1e-12
        tip = tips(lengths, np.asarray(got.angles)[None, :])[0]
        assert abs(got.error - math.dist(tip, target)) <= 1e-12
        assert got.error >= got.min_error - 1e-12


@pytest.mark.parametrize("method", ["ccd", "fabrik", "dls"])
def test_a_batch_and_a_followed_path_answer_as_their_targets_do_alone(method: str) -> None:
    chain = ikchain.Chain([0.5, 0.4, 0.3])
    rng = np.random.default_rng(59)
    targets = rng.uniform(-1.0, 1.0, (6, 2))
    batch = ikchain.solve(chain, targets, method, angle=-0.4)
    for k in range(6):
        one = ikchain.solve(chain, targets[k], method, angle=-0.4)
        np.testing.assert_allclose(batch.angles[k], one.angles, rtol=0, atol=1e-12)
        assert one.min_error == pytest.approx(batch.min_error[k], abs=1e-12)
    path = ikchain.follow(chain, targets, method, angle=-0.4)
    start = None
    for k in range(6):
        one = ikchain.solve(chain, targets[k], method, angle=-0.4, init=start)
        np.testing.assert_allclose(path.angles[k], one.angles, rtol=0, atol=1e-12)
        start = one.angles


#: A limited chain whose last joint's limits span more than a turn (its angle lifted
#: into them when the wrapped one is below -1).
TURNING = ikchain.Chain([0.5, 0.4, 0.3], [[-2.0, 2.0], [-2.5, 2.5], [-1.0, 6.0]])


@pytest.mark.parametrize("method", ITERATIVE)
def test_one_target_is_posed_as_it_is_in_a_batch_to_the_bit(method: str) -> None:
    """A single solve goes straight to the kernels and a batch through the batch path:
    both pose the chain by the same compiled rule, so every field agrees to the bit."""
    rng = np.random.default_rng(67)
    targets = rng.uniform(-1.0, 1.0, (8, 2))
    starts = rng.uniform(-0.9, 0.9, (8, 3))
    batch = ikchain.solve(TURNING, targets, method, angle=2.5, init=starts)
    assert (batch.angles[:, -1] > math.pi).any()  # some lifted into the limits
    for k in range(8):
        one = ikchain.solve(
            TURNING, targets[k].tolist(), method, angle=2.5, init=starts[k].tolist()
        )
        np.testing.assert_array_equal(one.angles, batch.angles[k])
        np.testing.assert_array_equal(one.joints, batch.joints[k])
        assert (one.error, one.min_error) == (batch.error[k], batch.min_error[k])
        assert (one.status, one.reachable) == (batch.status[k], batch.reachable[k])
        assert (one.certified, one.iterations) == (batch.certified[k], batch.iterations[k])
        assert TURNING.limits[-1, 0] <= one.angles[-1] <= TURNING.limits[-1, 1]


@pytest.mark.parametrize("method", ITERATIVE)
def test_one_target_takes_one_kernel_call_and_a_batch_the_batch_path(monkeypatch, method) -> None:
    """One plain target (a Solver's call, ``solve()``) runs the method's one-target
    kernel once, which finds the wrist, solves it and poses the hand; a batch and a
    path go the batch's way (the wrist's solve, then ``posed_rows``), never that kernel."""
    from ikchain.solvers import runner

    loop = (runner._kernels_cached or runner.kernels())[0]
    code = ikchain.solvers.methods.CODE[method]
    calls = {"one": 0, "posed_rows": 0}

    def counted(name: str, kernel):
        def run(*args):
            calls[name] += 1
            return kernel(*args)

        return run  # (no compiled overloads: runner.entry hands it back as it is)

    monkeypatch.setitem(loop.POSED, code, counted("one", loop.POSED[code]))
    monkeypatch.setattr(loop, "posed_rows", counted("posed_rows", loop.posed_rows))
    # (a Solver keeps the kernel it found: solve()'s are made afresh, as this one is)
    monkeypatch.setattr(ikchain.solvers, "_SOLVERS", {})
    solver = ikchain.Solver(TURNING, method, angle=2.5)
    solver([0.6, 0.4], [0.1, 0.2, 0.3])
    ikchain.solve(TURNING, [0.6, 0.4], method, angle=2.5)
    assert calls == {"one": 2, "posed_rows": 0}
    solver.batch([[0.6, 0.4], [0.3, 0.5]])
    solver.follow([[0.6, 0.4], [0.3, 0.5]])
    assert calls == {"one": 2, "posed_rows": 2}


@pytest.mark.parametrize("method", [*ITERATIVE, "analytic"])
def test_a_solver_call_poses_one_target_as_solve_and_a_batch_do(method: str) -> None:
    """A Solver's call and ``solve()`` take one plain target straight to the wrist's
    kernel; the batch goes the batch's way: the same answer to the bit, from the default
    start and (iterative) from a given one; the closed form refuses a start pose."""
    rng = np.random.default_rng(71)
    targets = rng.uniform(-1.0, 1.0, (6, 2))
    solver = ikchain.Solver(TURNING, method, angle=2.5)
    starts = rng.uniform(-0.9, 0.9, (6, 3))
    given = [None] if method == "analytic" else [None, starts]
    for init in given:
        batch = solver.batch(targets, init)
        for k in range(6):
            start = None if init is None else init[k]
            ones = (
                solver(targets[k], start),
                solver(targets[k].tolist(), None if start is None else start.tolist()),
                ikchain.solve(TURNING, tuple(targets[k]), method, angle=2.5, init=start),
            )
            for one in ones:
                assert one.angles.tobytes() == batch.angles[k].tobytes()
                assert one.joints.tobytes() == batch.joints[k].tobytes()
                assert (one.error, one.min_error) == (batch.error[k], batch.min_error[k])
                assert (one.status, one.reachable) == (batch.status[k], batch.reachable[k])
                assert one.certified == batch.certified[k]
    if method == "analytic":
        with pytest.raises(ValueError, match=r"takes only .*; got init"):
            solver(targets[0], [0.1, 0.2, 0.3])
        with pytest.raises(ValueError, match=r"takes only .*; got init"):
            ikchain.solve(TURNING, targets[0].tolist(), method, angle=2.5, init=[0.1, 0.2, 0.3])


@pytest.mark.parametrize("method", ["dls", "jt"])
def test_a_lock_before_the_wrist_tells_the_locked_reach_alone_and_in_a_batch(method: str) -> None:
    """A joint locked among the first n - 1: the wrist's reach is the locked chain's,
    for one target as for a batch (to the bit), and the lock holds its start angle."""
    chain = ikchain.Chain([0.5, 0.4, 0.3, 0.2])
    stiffness = [0.0, math.inf, 0.0, 0.0]
    rng = np.random.default_rng(71)
    targets = rng.uniform(-1.0, 1.0, (12, 2))
    starts = rng.uniform(-1.0, 1.0, (12, 4))
    batch = ikchain.solve(chain, targets, method, init=starts, stiffness=stiffness, angle=0.4)
    assert (~batch.reachable).sum() >= 2  # some beyond the locked wrist's reach
    for k in range(12):
        one = ikchain.solve(
            chain,
            targets[k].tolist(),
            method,
            init=starts[k].tolist(),
            stiffness=stiffness,
            angle=0.4,
        )
        np.testing.assert_array_equal(one.angles, batch.angles[k])
        assert (one.min_error, one.reachable) == (batch.min_error[k], batch.reachable[k])
        assert (one.status, one.certified) == (batch.status[k], batch.certified[k])
        assert one.angles[1] == starts[k, 1]


@pytest.mark.parametrize("last", [6.5, -1.5])
@pytest.mark.parametrize("batch", [False, True])
def test_a_start_outside_the_last_joints_limits_is_refused(last: float, batch: bool) -> None:
    start = [0.1, 0.2, last]
    target = [[0.6, 0.5], [0.2, 0.3]] if batch else [0.6, 0.5]
    said = r"init: expected angles within the joint limits, got joint 2 outside \[-1.0, 6.0\]"
    with pytest.raises(ValueError, match=said):
        ikchain.solve(TURNING, target, "dls", angle=0.3, init=start)


@pytest.mark.parametrize("method", ITERATIVE)
def test_what_the_wrists_loop_refuses_for_one_target_is_refused_as_in_a_batch(method: str) -> None:
    """One target whose wrist the loop refuses (a start outside a wrist joint's
    limits, a target beyond floats) gets the batch's error, word for word, from a
    Solver's call and from ``solve()``: never a Result of the refused row."""
    solver = ikchain.Solver(TURNING, method, angle=0.3)
    cases = [([0.6, 0.5], [2.5, 0.2, 0.3]), ([1.5e308, -1.5e308], None)]
    for target, start in cases:
        with pytest.raises(ValueError) as in_batch:
            solver.batch(target, start)  # (a batch of shape (): no index in the message)
        said = re.escape(str(in_batch.value))
        assert "expected" in said
        with pytest.raises(ValueError, match=said):
            solver(target, start)
        with pytest.raises(ValueError, match=said):
            ikchain.solve(TURNING, target, method, angle=0.3, init=start)


@pytest.mark.parametrize(
    ("angle", "said"),
    [
        (math.nan, "angle: expected a finite number, got nan"),
        (math.inf, "angle: expected a finite number, got inf"),
        (10**400, "angle: expected a finite number, got an integer of 401 digits"),
        (True, "angle: expected a number, got True"),
        ("0.3", "angle: expected a number, got '0.3'"),
        ([0.3], "angle: expected a number"),
    ],
)
def test_a_bad_angle_is_refused_with_what_was_expected(angle, said) -> None:
    chain = ikchain.Chain([0.5, 0.4, 0.3])
    with pytest.raises(ValueError, match=said.replace("(", r"\(")):
        ikchain.solve(chain, [0.6, 0.5], "analytic", angle=angle)


@pytest.mark.parametrize("method", ITERATIVE)
def test_a_start_pose_that_already_holds_the_angle_is_kept(method: str) -> None:
    """``init`` is where the first n - 1 bones start: a pose whose tip is on the target
    with the hand at the angle is the answer at once, to rounding."""
    rng = np.random.default_rng(61)
    lengths = np.array([0.5, 0.4, 0.3, 0.25])
    for _ in range(10):
        pose = rng.uniform(-2.0, 2.0, 4)
        pose[-1] = math.remainder(pose[-1], math.tau)  # the last joint as the solver takes it
        target = tips(lengths, pose[None, :])[0]
        got = ikchain.solve(
            ikchain.Chain(lengths), target, method, angle=float(np.sum(pose)), init=pose
        )
        assert got.iterations == 0 and str(got.status) == "converged"
        np.testing.assert_allclose(got.angles, pose, rtol=0, atol=1e-12)
