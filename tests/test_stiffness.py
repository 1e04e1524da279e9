"""Joint stiffness for dls and jt: each step is the weighted least-norm step, a stiffness of
zeros is no stiffness to the bit, an infinite one locks its joint to the bit, and the
result tells the truth about the locked chain's reach.

Expected values come from elsewhere: the weighted damped step written out here with
full matrices and ``numpy.linalg.solve`` (and the Jacobian from forward kinematics in
numpy), the plain solve, the start pose itself, and the reach of a three-bone chain
with a locked joint in closed form (a rigid pair of bones is one bone of their chord's
length; a locked root leaves the annulus of the rest about the first joint).
"""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

import ikchain
from ikchain.solvers import dls
from limits_oracle import least_distance, tips

INTERPRETED = os.environ.get("NUMBA_DISABLE_JIT") == "1" or os.environ.get("IKCHAIN_JIT") == "0"
#: 10^4 one-step cases per method with the kernels compiled; 400 as plain Python.
CHAINS, PER_CHAIN = (20, 20) if INTERPRETED else (500, 20)
#: Tolerance of a step against the closed form (rad); where the 2 x 2 system is
#: ill-conditioned, the forward error bound of a linear solve, 64 ε κ |Δθ|, if larger
#: (one case in 10^4 needs it: a two-bone chain near a fold, a step of 1.7 rad).
STEP_TOLERANCE = 1e-12
EPS = float(np.finfo(np.float64).eps)


def joint_points(lengths: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Joints 0..n (n + 1, 2) of one pose, written out."""
    heading = np.cumsum(angles)
    steps = lengths[:, None] * np.stack([np.cos(heading), np.sin(heading)], axis=1)
    return np.vstack([np.zeros(2), np.cumsum(steps, axis=0)])


def jacobian(points: np.ndarray) -> np.ndarray:
    """The 2 x n tip Jacobian: joint i moves the tip perpendicular to its arm."""
    arms = points[-1] - points[:-1]
    return np.stack([-arms[:, 1], arms[:, 0]])


def weighted_dls_step(
    lengths: np.ndarray, theta: np.ndarray, target: np.ndarray, stiffness: np.ndarray
) -> tuple[np.ndarray, float, float]:
    """One documented DLS step with W = diag(1 + stiffness), full matrices: the root's
    aiming turn times its give, then Δθ = W⁻¹ Jᵀ (J W⁻¹ Jᵀ + λ² I)⁻¹ e, λ² ten times
    larger while the error would rise. Returns the pose and the margin of the test that
    chose it (relative), so that cases on the knife's edge can be told apart, and the
    tolerance the step's linear solve allows."""
    give = np.diag(1.0 / (1.0 + stiffness))
    before = np.sum((target - joint_points(lengths, theta)[-1]) ** 2)
    tip = joint_points(lengths, theta)[-1]
    aimed = theta.copy()
    aimed[0] += give[0, 0] * math.atan2(tip[0] * target[1] - tip[1] * target[0], tip @ target)
    points = joint_points(lengths, aimed)
    e = target - points[-1]
    jac = jacobian(points)
    lam2 = dls.ERROR_WEIGHT * (e @ e) + dls.BIAS * lengths.sum() ** 2
    for _ in range(dls.RETRIES + 1):
        system = jac @ give @ jac.T + lam2 * np.eye(2)
        new = aimed + give @ jac.T @ np.linalg.solve(system, e)
        after = np.sum((target - joint_points(lengths, new)[-1]) ** 2)
        if after <= before:
            bound = 64 * EPS * np.linalg.cond(system) * np.abs(new - theta).max()
            return new, (before - after) / before, max(STEP_TOLERANCE, bound)
        lam2 *= 10.0
    return theta, 1.0, STEP_TOLERANCE


def weighted_jt_step(
    lengths: np.ndarray, theta: np.ndarray, target: np.ndarray, stiffness: np.ndarray
) -> tuple[np.ndarray, float, float]:
    """One documented Jacobian-transpose step along W⁻¹ Jᵀ e with Buss's length
    (capped at 0.5 rad for the largest turn, halved while the error would rise)."""
    give = np.diag(1.0 / (1.0 + stiffness))
    points = joint_points(lengths, theta)
    e = target - points[-1]
    before = e @ e
    direction = give @ jacobian(points).T @ e
    moved = jacobian(points) @ direction
    alpha = (e @ moved) / (moved @ moved) if moved @ moved > 0 else 0.0
    largest = np.abs(alpha * direction).max()
    if largest > 0.5:
        alpha *= 0.5 / largest
    for _ in range(31):
        if alpha == 0.0:
            break
        new = theta + alpha * direction
        after = np.sum((target - joint_points(lengths, new)[-1]) ** 2)
        if after <= before:
            return new, (before - after) / before, STEP_TOLERANCE
        alpha *= 0.5
    return theta, 1.0, STEP_TOLERANCE


def random_stiffness(rng: np.random.Generator, n: int) -> np.ndarray:
    """Zeros, moderate values and huge ones (finite), mixed."""
    kind = rng.integers(0, 3, n)
    return np.where(
        kind == 0, 0.0, np.where(kind == 1, rng.uniform(0.0, 10.0, n), 10 ** rng.uniform(1, 8, n))
    )


@pytest.mark.parametrize(
    ("method", "oracle"), [("dls", weighted_dls_step), ("jt", weighted_jt_step)]
)
def test_one_step_is_the_weighted_least_norm_step_of_the_closed_form(method, oracle) -> None:
    rng = np.random.default_rng(7)
    checked = edges = 0
    for _ in range(CHAINS):
        n = int(rng.integers(2, 8))
        lengths = rng.uniform(0.2, 1.5, n) * 10 ** rng.uniform(-2, 2)
        chain = ikchain.Chain(lengths)
        stiffness = random_stiffness(rng, n)
        starts = rng.uniform(-math.pi, math.pi, (PER_CHAIN, n))
        targets = tips(lengths, rng.uniform(-math.pi, math.pi, (PER_CHAIN, n)))
        far = np.hypot(*(targets - tips(lengths, starts)).T) > 0.05 * lengths.sum()
        starts, targets = starts[far], targets[far]
        got = ikchain.solve(
            chain, targets, method, init=starts, stiffness=stiffness, max_iterations=1
        )
        for k in range(targets.shape[0]):
            expected, margin, tolerance = oracle(lengths, starts[k], targets[k], stiffness)
            if margin < 1e-9:  # the kept step's test too close to call in floats
                edges += 1
                continue
            np.testing.assert_allclose(got.angles[k], expected, rtol=0, atol=tolerance)
            checked += 1
    assert checked >= 0.9 * CHAINS * PER_CHAIN * 0.8 and edges <= checked // 100


def weighted_pull_step(
    lengths: np.ndarray,
    theta: np.ndarray,
    target: np.ndarray,
    stiffness: np.ndarray,
    rest: np.ndarray,
    rest_weight: float,
) -> tuple[np.ndarray, float] | None:
    """The first attempt of a DLS step with a rest pull, full matrices: the damped step
    plus ``w/(1+w) P G (r - θ)``, ``P = I - G Jᵀ (J G Jᵀ)⁻¹ J`` (the null-space motion
    nearest the rest pose in the metric W); None where that attempt is not kept (it
    must cut the squared error to 0.81 of what it was)."""
    give = np.diag(1.0 / (1.0 + stiffness))
    tip = joint_points(lengths, theta)[-1]
    before = np.sum((target - tip) ** 2)
    aimed = theta.copy()
    aimed[0] += give[0, 0] * math.atan2(tip[0] * target[1] - tip[1] * target[0], tip @ target)
    points = joint_points(lengths, aimed)
    e = target - points[-1]
    jac = jacobian(points)
    lam2 = dls.ERROR_WEIGHT * (e @ e) + dls.BIAS * lengths.sum() ** 2
    way = give @ np.angle(np.exp(1j * (rest - aimed)))  # differences in (-π, π]
    within = jac @ give @ jac.T
    within += 1e-14 * np.trace(within) * np.eye(2)  # the documented regularisation
    toward = way - give @ jac.T @ np.linalg.solve(within, jac @ way)
    new = aimed + give @ jac.T @ np.linalg.solve(jac @ give @ jac.T + lam2 * np.eye(2), e)
    new += rest_weight / (1.0 + rest_weight) * toward
    after = np.sum((target - joint_points(lengths, new)[-1]) ** 2)
    if after > 0.81 * before * (1.0 - 1e-9):  # not kept, or too close to call
        return None
    return new, 64 * EPS * np.linalg.cond(within) * (np.abs(toward).max() + 1.0)


def test_the_rest_pull_moves_in_the_null_space_of_the_weighted_metric() -> None:
    rng = np.random.default_rng(13)
    checked = 0
    for _ in range(CHAINS):
        n = int(rng.integers(3, 8))
        lengths = rng.uniform(0.2, 1.5, n)
        chain = ikchain.Chain(lengths)
        stiffness = random_stiffness(rng, n)
        rest = rng.uniform(-math.pi, math.pi, n)
        starts = rng.uniform(-math.pi, math.pi, (PER_CHAIN, n))
        targets = tips(lengths, starts + rng.uniform(-0.2, 0.2, (PER_CHAIN, n)))
        got = ikchain.solve(
            chain,
            targets,
            "dls",
            init=starts,
            stiffness=stiffness,
            rest=rest,
            rest_weight=3.0,
            max_iterations=1,
            tolerance=1e-300,
        )
        for k in range(PER_CHAIN):
            expected = weighted_pull_step(lengths, starts[k], targets[k], stiffness, rest, 3.0)
            if expected is None:
                continue
            pose, tolerance = expected
            np.testing.assert_allclose(
                got.angles[k], pose, rtol=0, atol=max(STEP_TOLERANCE, tolerance)
            )
            checked += 1
    assert checked >= CHAINS * PER_CHAIN // 4


@pytest.mark.parametrize("method", ["dls", "jt"])
def test_a_stiffness_of_zeros_solves_as_none_to_the_bit(method: str) -> None:
    rng = np.random.default_rng(11)
    for n in (2, 3, 5):
        chain = ikchain.Chain(rng.uniform(0.3, 1.0, n))
        limited = ikchain.Chain(chain.lengths, limits=np.tile([-2.0, 2.5], (n, 1)))
        starts = rng.uniform(-1.5, 1.5, (300, n))
        targets = rng.uniform(-1.2, 1.2, (300, 2)) * chain.lengths.sum()
        for c in (chain, limited):
            extra = {"rest": np.zeros(n), "rest_weight": 2.0} if method == "dls" else {}
            plain = ikchain.solve(c, targets, method, init=starts, **extra)
            zero = ikchain.solve(c, targets, method, init=starts, stiffness=[0.0] * n, **extra)
            for field in ("angles", "joints", "error", "min_error", "iterations"):
                assert getattr(zero, field).tobytes() == getattr(plain, field).tobytes(), field
            assert list(zero.status) == list(plain.status)
        path = targets[:40]
        plain_path = ikchain.follow(chain, path, method)
        zero_path = ikchain.follow(chain, path, method, stiffness=np.zeros(n))
        assert zero_path.angles.tobytes() == plain_path.angles.tobytes()


@pytest.mark.parametrize(("method", "share"), [("dls", 0.95), ("jt", 0.5)])
def test_a_stiff_joint_turns_less_and_the_target_is_still_reached(method, share) -> None:
    """(jt crawls where the chain is ill-conditioned, stiff or not: about two in three
    plain jt solves here converge within 500 iterations.)"""
    chain = ikchain.Chain([0.5, 0.4, 0.3])
    rng = np.random.default_rng(3)
    starts = rng.uniform(-1.0, 1.0, (400, 3))
    targets = tips(chain.lengths, starts + rng.uniform(-0.3, 0.3, (400, 3)))
    plain = ikchain.solve(chain, targets, method, init=starts, max_iterations=500)
    stiff = ikchain.solve(
        chain, targets, method, init=starts, stiffness=[0.0, 50.0, 0.0], max_iterations=500
    )
    done = (np.asarray(stiff.status) == "converged") & (np.asarray(plain.status) == "converged")
    assert done.mean() > share
    error = np.hypot(*(tips(chain.lengths, stiff.angles) - targets).T)
    assert np.all(error[done] <= 1e-9 + 1e-12)  # FK(IK(t)) = t
    turned = np.abs(stiff.angles - starts)[done, 1]
    turned_plain = np.abs(plain.angles - starts)[done, 1]
    assert np.median(turned) < 0.2 * np.median(turned_plain)


# -- an infinite stiffness locks its joint ---------------------------------------------


def chord(a: float, b: float, angle: float) -> float:
    """Length of two rigid bones a, b meeting at the relative angle ``angle``."""
    return math.hypot(a + b * math.cos(angle), b * math.sin(angle))


def annulus_gap(distance: float, inner: float, outer: float) -> float:
    return max(inner - distance, distance - outer, 0.0)


def locked_reach(lengths: np.ndarray, locked: tuple[bool, ...], start: np.ndarray, t) -> float:
    """A three-bone chain's least distance to ``t`` with the ``locked`` joints held at
    ``start``, in closed form."""
    l0, l1, l2 = lengths
    r = math.hypot(*t)
    if locked == (True, True, True):
        return math.dist(tips(lengths, start[None, :])[0], t)
    if locked == (False, True, False):  # bones 0 and 1 are one: two links, a free root
        c = chord(l0, l1, start[1])
        return annulus_gap(r, abs(c - l2), c + l2)
    if locked == (False, False, True):
        c = chord(l1, l2, start[2])
        return annulus_gap(r, abs(l0 - c), l0 + c)
    if locked == (False, True, True):  # one rigid body about the root
        c = math.dist((0.0, 0.0), tips(lengths, np.array([[0.0, start[1], start[2]]]))[0])
        return abs(r - c)
    elbow = l0 * np.array([math.cos(start[0]), math.sin(start[0])])
    d = math.dist(elbow, t)  # a locked root: the rest about joint 1
    if locked == (True, False, False):
        return annulus_gap(d, abs(l1 - l2), l1 + l2)
    if locked == (True, True, False):  # joint 2 alone: a circle about it
        heading = start[0] + start[1]
        wrist = elbow + l1 * np.array([math.cos(heading), math.sin(heading)])
        return abs(math.dist(wrist, t) - l2)
    assert locked == (True, False, True)
    return abs(d - chord(l1, l2, start[2]))


LOCKS = [
    (True, False, False),
    (False, True, False),
    (False, False, True),
    (True, True, False),
    (True, False, True),
    (False, True, True),
    (True, True, True),
]


@pytest.mark.parametrize("method", ["dls", "jt"])
@pytest.mark.parametrize("locked", LOCKS, ids=lambda lock: "".join("L" if x else "f" for x in lock))
def test_a_locked_joint_keeps_its_start_angle_and_the_reach_is_the_locked_chains(
    method: str, locked: tuple[bool, ...]
) -> None:
    rng = np.random.default_rng(sum(2**i for i, x in enumerate(locked)))
    lengths = np.array([0.5, 0.4, 0.3])
    chain = ikchain.Chain(lengths)
    count = 40 if INTERPRETED else 400
    starts = rng.uniform(-3.0, 3.0, (count, 3))
    targets = rng.uniform(-1.4, 1.4, (count, 2))
    stiffness = np.where(locked, math.inf, rng.uniform(0.0, 3.0, 3))
    got = ikchain.solve(chain, targets, method, init=starts, stiffness=stiffness)
    mask = np.array(locked)
    assert got.angles[:, mask].tobytes() == starts[:, mask].tobytes()  # bit for bit
    assert got.certified.all()
    expected = np.array(
        [locked_reach(lengths, locked, s, t) for s, t in zip(starts, targets, strict=True)]
    )
    np.testing.assert_allclose(got.min_error, expected, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(got.reachable, got.min_error == 0.0)
    assert np.all(expected[got.reachable] <= 1e-9)
    status = np.asarray(got.status)
    assert set(status) <= {"converged", "unreachable", "max_iterations", "stalled"}
    # wherever it says so, the claim holds: converged within the tolerance, unreachable
    # as near as the locked chain comes
    error = np.hypot(*(tips(lengths, got.angles) - targets).T)
    assert np.all(error[status == "converged"] <= 1e-9 + 1e-12)
    unreachable = status == "unreachable"
    assert np.all(np.abs(error - expected)[unreachable] <= 2e-9)
    if method == "dls":  # DLS reaches what the locked chain reaches
        assert (status == "converged").sum() + unreachable.sum() >= 0.97 * count


@pytest.mark.parametrize("locked", LOCKS, ids=lambda lock: "".join("L" if x else "f" for x in lock))
def test_the_locked_chains_nearest_pose_is_as_near_as_its_min_error(
    locked: tuple[bool, ...],
) -> None:
    """The closed-form reach of a free-or-fixed chain (``solvers.rigid``) also writes
    the nearest pose, which DLS may start from: its tip (forward kinematics written in
    numpy) is min_error from the target, its locked joints at their angles, every
    angle within the limits; min_error is the closed form written out here."""
    from ikchain.solvers.rigid import free_or_fixed, rigid_reach

    rng = np.random.default_rng(7 + sum(2**i for i, x in enumerate(locked)))
    lengths = np.array([0.5, 0.4, 0.3])
    free = 2.0**20
    for _ in range(200):
        start = rng.uniform(-3.0, 3.0, 3)
        target = rng.uniform(-1.4, 1.4, 2)
        lows = np.where(locked, start, -free)
        highs = np.where(locked, start, free)
        assert free_or_fixed(lows, highs)
        nearest = np.empty(3)
        least, posed = rigid_reach(
            lengths, lows, highs, target[0], target[1], 1, nearest, np.empty(6), True
        )
        assert least == pytest.approx(locked_reach(lengths, locked, start, target), abs=1e-12)
        assert posed  # two free links at most: always a pose
        unposed = np.empty(3)  # the distance without the pose: the same number
        alone = rigid_reach(lengths, lows, highs, *target, 1, unposed, np.empty(6), False)
        assert alone == (least, False)
        assert np.all((lows <= nearest) & (nearest <= highs))
        assert nearest[np.array(locked)].tolist() == start[np.array(locked)].tolist()
        tip = tips(lengths, nearest[None, :])[0]
        assert math.dist(tip, target) == pytest.approx(least, abs=1e-12)


@pytest.mark.parametrize(
    "lengths", [(0.5, 0.4, 0.3, 0.45), (1.2, 0.3, 0.2, 0.25)], ids=["even", "long-root"]
)
def test_three_free_links_have_the_links_annulus_and_its_nearest_pose(lengths) -> None:
    """Four bones, joint 2 locked: three free links. min_error is the links' annulus
    gap (written out here), certified; DLS ends every target beyond it or in its hole
    (the long root link's) unreachable, within 1e-9 m of it (from the nearest pose,
    straight or folded back), and converges on nearly every target inside it."""
    lengths = np.array(lengths)
    chain = ikchain.Chain(lengths)
    rng = np.random.default_rng(11)
    count = 30 if INTERPRETED else 200
    starts = rng.uniform(-3.0, 3.0, (count, 4))
    targets = rng.uniform(-1.8, 1.8, (count, 2))
    got = ikchain.solve(chain, targets, "dls", init=starts, stiffness=[0, 0, math.inf, 0])
    links = [
        np.array([lengths[0], chord(lengths[1], lengths[2], s[2]), lengths[3]]) for s in starts
    ]
    expected = np.array(
        [
            annulus_gap(math.hypot(*t), max(0.0, 2 * k.max() - k.sum()), k.sum())
            for k, t in zip(links, targets, strict=True)
        ]
    )
    np.testing.assert_allclose(got.min_error, expected, rtol=0, atol=1e-9)
    assert got.certified.all()
    error = np.hypot(*(tips(lengths, got.angles) - targets).T)
    out = expected > 1e-9
    assert out.sum() >= count // 10
    assert np.all(np.asarray(got.status)[out] == "unreachable")
    assert np.all(np.abs(error - expected)[out] <= 2e-9)
    inside = expected == 0.0
    assert (np.asarray(got.status)[inside] == "converged").sum() >= 0.97 * inside.sum()


def test_a_locked_joint_on_a_limited_chain_matches_the_limits_oracle() -> None:
    limits = np.array([[-2.0, 2.0], [-0.5, 2.5], [-2.5, 0.3], [-1.0, 1.0]])
    lengths = np.array([0.5, 0.4, 0.3, 0.2])
    chain = ikchain.Chain(lengths, limits=limits)
    rng = np.random.default_rng(5)
    count = 4 if INTERPRETED else 60
    agreed = 0
    for k in range(count):
        start = rng.uniform(limits[:, 0], limits[:, 1])
        target = rng.uniform(-1.5, 1.5, 2)
        got = ikchain.solve(chain, target, "dls", init=start, stiffness=[0, math.inf, 1, 0])
        assert got.angles[1] == start[1]
        box = limits.copy()
        box[1] = start[1]
        upper, _ = least_distance(lengths, box, target)  # a real pose's distance
        assert got.certified
        assert got.min_error <= upper + 1e-12, k  # never worse than a pose that exists
        # the answer is a pose of the locked chain, no nearer than min_error says
        assert np.all((got.angles >= box[:, 0]) & (got.angles <= box[:, 1]))
        tip = tips(lengths, np.asarray(got.angles)[None, :])[0]
        assert math.dist(tip, target) >= got.min_error - 1e-12
        if got.reachable:
            assert math.dist(tip, target) <= 1e-9 + 1e-12
        agreed += abs(got.min_error - upper) <= 1e-9
    # the oracle's grid wastes an axis on the locked joint and sometimes misses a
    # narrow basin (then the library's own pose proves it nearer, as checked above)
    assert agreed >= 0.9 * count


def test_locks_hold_through_batches_of_starts_follow_weight_and_soft() -> None:
    chain = ikchain.Chain([0.5, 0.4, 0.3])
    rng = np.random.default_rng(9)
    starts = rng.uniform(-2.0, 2.0, (50, 3))
    targets = rng.uniform(-1.0, 1.0, (50, 2))
    stiffness = (0.0, math.inf, 2.0)
    for method in ("dls", "jt"):
        for extra in ({}, {"weight": 0.5}, {"soft": 0.1}):
            batch = ikchain.solve(chain, targets, method, init=starts, stiffness=stiffness, **extra)
            assert batch.angles[:, 1].tobytes() == starts[:, 1].tobytes()
            one = ikchain.solve(
                chain, targets[7], method, init=starts[7], stiffness=stiffness, **extra
            )
            assert one.angles.tobytes() == batch.angles[7].tobytes()
            assert one.min_error == batch.min_error[7]
        path = ikchain.follow(chain, targets, method, init=starts[0], stiffness=stiffness)
        assert np.all(path.angles[:, 1] == starts[0, 1])
        default = ikchain.solve(chain, targets, method, stiffness=stiffness)
        assert np.all(default.angles[:, 1] == ikchain.default_init(chain)[1])


# -- what is refused --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ([0.0, math.nan, 1.0], "got joint 1 nan"),
        ([0.0, -1.0, 1.0], "got joint 1 -1.0"),
        ([0.0, -math.inf, 1.0], "got joint 1 -inf"),
        ([0.0, 1.0], "shape (3,), got shape (2,)"),
        ([[0.0, 1.0, 2.0]], "shape (3,), got shape (1, 3)"),
        (1.0, "shape (3,), got shape ()"),
        ([0, 10**400, 1], "too large for a float"),
        ([True, False, True], "(booleans)"),
        (["a", "b", "c"], "got ['a', 'b', 'c']"),
    ],
)
def test_bad_stiffness_is_refused_with_what_was_expected(given, said) -> None:
    chain = ikchain.Chain([0.5, 0.4, 0.3])
    for method in ("dls", "jt"):
        with pytest.raises(ValueError, match="stiffness: expected 3 numbers >= 0") as caught:
            ikchain.solve(chain, [0.5, 0.5], method, stiffness=given)
        assert said in str(caught.value)


@pytest.mark.parametrize("method", ["analytic", "ccd", "fabrik"])
def test_methods_without_stiffness_refuse_it(method: str) -> None:
    chain = ikchain.Chain([0.5, 0.4])
    with pytest.raises(ValueError, match=f"method '{method}' takes only .*; got stiffness"):
        ikchain.solve(chain, [0.5, 0.5], method, stiffness=[0.0, 1.0])


def test_a_lock_and_a_pole_are_refused_together() -> None:
    chain = ikchain.Chain([0.5, 0.4, 0.3])
    with pytest.raises(ValueError, match="expected pole or an infinite stiffness, got both"):
        ikchain.solve(chain, [0.5, 0.5], "dls", pole=[0.0, 1.0], stiffness=[0, math.inf, 0])
    ikchain.solve(chain, [0.5, 0.5], "dls", pole=[0.0, 1.0], stiffness=[0, 5.0, 0])  # finite


# -- the Solver, batches, paths ---------------------------------------------------------


@pytest.mark.parametrize("method", ["dls", "jt"])
@pytest.mark.parametrize("stiffness", [(0.0, 4.0, 0.5), (0.0, math.inf, 0.5)])
def test_a_solver_answers_alike_alone_in_a_batch_and_along_a_path(method, stiffness) -> None:
    chain = ikchain.Chain([0.5, 0.4, 0.3])
    solver = ikchain.Solver(chain, method, stiffness=stiffness, max_iterations=60)
    rng = np.random.default_rng(17)
    starts = rng.uniform(-2.0, 2.0, (30, 3))
    targets = rng.uniform(-1.0, 1.0, (30, 2))
    batch = solver.batch(targets, starts)
    for k in range(30):
        one = solver(targets[k], starts[k])
        assert one.angles.tobytes() == batch.angles[k].tobytes()
        assert (one.min_error, one.reachable, one.status) == (
            batch.min_error[k],
            batch.reachable[k],
            batch.status[k],
        )
        assert not one.at_limit.any()  # the chain's (no) limits, not the locked chain's
    default = solver.batch(targets)  # the bent default start, alone and in a batch
    far = solver.batch(targets, starts + 2.0**21)  # an unlimited start beyond 2**20 rad
    for k in range(3):
        assert solver(targets[k]).angles.tobytes() == default.angles[k].tobytes()
        beyond = solver(targets[k].tolist(), (starts[k] + 2.0**21).tolist())
        assert beyond.angles.tobytes() == far.angles[k].tobytes()
    path = solver.follow(targets, starts[0])
    pose = starts[0]
    for k in range(30):  # follow: the loop of single solves, each from the last answer
        one = solver(targets[k], pose)
        assert one.angles.tobytes() == path.angles[k].tobytes()
        pose = one.angles
    blended = ikchain.follow(
        chain, targets, method, init=starts[0], stiffness=stiffness, weight=0.5
    )
    if math.isinf(stiffness[1]):  # blended frame by frame: still the start's angle
        assert np.all(blended.angles[:, 1] == starts[0, 1])


def _answers(result: ikchain.Result) -> tuple[object, ...]:
    """Every field of a result but ``at_limit`` (the caller's chain's limits), as bytes."""
    return (
        np.asarray(result.angles).tobytes(),
        np.asarray(result.joints).tobytes(),
        np.asarray(result.error).tobytes(),
        np.asarray(result.min_error).tobytes(),
        np.asarray(result.reachable).tobytes(),
        np.asarray(result.certified).tobytes(),
        np.asarray(result.iterations).tobytes(),
        str(np.asarray(result.status, dtype=object).tolist()),
        None if result.trace is None else np.nan_to_num(result.trace, nan=-1.0).tobytes(),
    )


@pytest.mark.parametrize("method", ["dls", "jt"])
def test_a_lock_without_limits_finds_its_reach_in_the_loop_as_the_search_does(
    method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a chain without limits every joint of the locked chain is free or fixed: its
    loop finds the reach itself, in closed form, and runs no reach search. Each answer
    (single, batch, path, trace) is the one, to the bit, of the same locked chain given
    as a limited chain, whose reach the search finds before the loop."""
    from ikchain.solvers import runner
    from ikchain.solvers.stiffness import locked_chain

    chain = ikchain.Chain([0.5, 0.4, 0.3, 0.2])
    rng = np.random.default_rng(43)
    cases = []
    for k in range(24):
        stiffness = rng.choice([0.0, 2.0, math.inf], 4)
        stiffness[k % 4] = math.inf  # at least one lock
        if k % 6 == 5:
            stiffness[:] = math.inf  # every joint: no free link
        start = rng.uniform(-3.0, 3.0, 4)
        targets = np.vstack(  # within reach, beyond it, in the hole, beyond 2**200 ΣL
            [rng.uniform(-1.0, 1.0, (3, 2)), [[1.6, -0.4], [0.02, 0.01], [3e70, -1e70]]]
        )
        searched = locked_chain(chain, np.isinf(stiffness), start)  # limits [a, a] and ±2**20
        cases.append((stiffness, start, targets, searched))

    def calls(solver_chain: ikchain.Chain, stiffness, start, targets) -> list[tuple]:
        solver = ikchain.Solver(solver_chain, method, stiffness=stiffness, max_iterations=50)
        answers = [solver(point.tolist(), start.tolist()) for point in targets]
        answers.append(solver.batch(targets, np.broadcast_to(start, (6, 4))))
        answers.append(solver.follow(targets, start))
        answers.append(
            ikchain.solve(
                solver_chain,
                targets[1],
                method,
                init=start,
                stiffness=stiffness,
                max_iterations=50,
                trace=True,
            )
        )
        return [_answers(answer) for answer in answers]

    expected = [
        calls(searched, stiffness, start, targets) for stiffness, start, targets, searched in cases
    ]
    _, _, limited = runner._kernels_cached or runner.kernels()
    searches = []
    search = limited.reach_range

    def counted(*arguments):
        searches.append(arguments)
        return search(*arguments)

    monkeypatch.setattr(limited, "reach_range", counted)
    calls(cases[0][3], *cases[0][:3])
    assert searches, "the counter sees the searches of the limited chain's lock"
    searches.clear()
    for (stiffness, start, targets, _), want in zip(cases, expected, strict=True):
        assert calls(chain, stiffness, start, targets) == want
    assert searches == []


@pytest.mark.parametrize("budget", [1, 2])
def test_a_locked_chains_answer_in_a_batch_is_its_answer_alone_whatever_came_before(
    budget: int,
) -> None:
    """DLS on a locked chain makes its nearest pose only when the loop would start
    from it (out of reach, stalled, or at the last iteration), and only where there is
    one: with three free links a target inside their annulus has none. A target there,
    solved on its last iteration, gets the same answer alone and after targets out of
    reach (whose nearest poses differ), never a pose left from the one before."""
    chain = ikchain.Chain([0.5, 0.4, 0.3, 0.45])
    stiffness = [0.0, 0.0, math.inf, 0.0]  # joints 1 and 2 one link: three free links
    solver = ikchain.Solver(chain, "dls", stiffness=stiffness, max_iterations=budget)
    inside = [1.2, 0.1]  # inside the links' annulus [0, ΣL]: reachable, no nearest pose
    alone = solver(inside)
    assert alone.reachable and alone.iterations == budget
    for before in ([2.0, 0.0], [-0.3, 1.9], [0.0, -2.5]):  # out of reach, each its pose
        after = solver.batch([before, inside])
        assert not after.reachable[0]
        assert after.angles[1].tobytes() == alone.angles.tobytes()
        assert (after.error[1], after.iterations[1]) == (alone.error, alone.iterations)


@pytest.mark.parametrize("batch", [False, True])
@pytest.mark.parametrize("start", [[0.1, 1.5, 0.2], [0.1, 0.2, -2.5]])
def test_a_start_outside_the_limits_is_refused_at_a_locked_joint_or_a_free_one(
    batch: bool, start: list[float]
) -> None:
    """A lock keeps the start angle: one outside the joint's limits is refused, as any
    start outside them is, alone and in a batch."""
    chain = ikchain.Chain([0.5, 0.4, 0.3], [[-2.0, 2.0], [-1.0, 1.0], [-2.0, 2.0]])
    joint = 1 if start[1] > 1.0 else 2
    low, high = chain.limits[joint]
    said = rf"expected angles within the joint limits, got joint {joint} outside \[{low}, {high}\]"
    target = [[0.6, 0.5], [0.2, 0.3]] if batch else [0.6, 0.5]
    with pytest.raises(ValueError, match=said):
        ikchain.solve(chain, target, "dls", init=start, stiffness=[0.0, math.inf, 0.0])


def test_a_batch_of_locks_at_different_angles_writes_into_out_and_refuses_a_trace() -> None:
    chain = ikchain.Chain([0.5, 0.4, 0.3])
    rng = np.random.default_rng(19)
    starts = rng.uniform(-2.0, 2.0, (12, 3))
    targets = rng.uniform(-1.0, 1.0, (12, 2))
    lock = [0.0, math.inf, 0.0]
    first = ikchain.solve(chain, targets, init=starts, stiffness=lock)
    into = ikchain.solve(chain, targets[::-1], init=starts[::-1], stiffness=lock)
    again = ikchain.solve(chain, targets, init=starts, stiffness=lock, out=into)
    assert again is into and again.angles.tobytes() == first.angles.tobytes()
    assert not again.at_limit.any()  # the caller's chain has no limits
    with pytest.raises(ValueError, match="expected the same start angle at each locked joint"):
        ikchain.solve(chain, targets, init=starts, stiffness=lock, trace=True)
    same = np.array(starts)
    same[:, 1] = 0.3
    traced = ikchain.solve(chain, targets, init=same, stiffness=lock, trace=True)
    assert traced.trace is not None and np.all(
        traced.trace_angles[..., 1][~np.isnan(traced.trace_angles[..., 1])] == 0.3
    )


@pytest.mark.parametrize("init", [None, [0.2, 0.3, 0.1]])
def test_a_locked_single_solve_keeps_its_trace(init) -> None:
    # one target with a trace goes the way of a batch of one, trace and all (the
    # single target's straight path to the locked chain's kernel records none)
    chain = ikchain.Chain([0.5, 0.4, 0.3])
    lock = [0.0, math.inf, 0.0]
    one = ikchain.solve(chain, [0.6, 0.5], init=init, stiffness=lock, trace=True)
    starts = None if init is None else [init]
    batch = ikchain.solve(chain, [[0.6, 0.5]], init=starts, stiffness=lock, trace=True)
    assert one.trace is not None and one.trace_angles is not None
    assert one.trace.size == one.iterations + 1 > 1  # the start and every iteration
    assert one.trace.tobytes() == batch.trace[0].tobytes()
    assert one.trace_angles.tobytes() == batch.trace_angles[0].tobytes()
    held = one.trace_angles[:, 1]
    assert np.all(held == held[0])  # the locked joint never turns
    assert one.trace[-1] == one.error


def test_solve_keeps_one_solver_for_a_list_or_tuple_of_stiffness() -> None:
    from ikchain import solvers

    chain = ikchain.Chain([0.5, 0.4, 0.3])
    solvers._SOLVERS.clear()
    ikchain.solve(chain, [0.6, 0.5], stiffness=[0, 1, 2])
    ikchain.solve(chain, [0.6, 0.5], stiffness=[0, 1, 2])
    ikchain.solve(chain, [0.6, 0.5], stiffness=(0, 1, 2))
    ikchain.solve(chain, [0.6, 0.5], stiffness=np.array([0.0, 1.0, 2.0]))  # no key
    assert len(solvers._SOLVERS) == 2
    with pytest.raises(ValueError, match="booleans"):  # True == 1, but not a stiffness
        ikchain.solve(chain, [0.6, 0.5], stiffness=[0, True, 2])


#: Solves with stiffness whose answers plain Python and the compiled kernels must agree
#: on, to the bit (run in this process compiled, and in a fresh one interpreted).
AGREEMENT = """
import json, math, ikchain
chain = ikchain.Chain([0.5, 0.4, 0.3, 0.2])
targets = [[0.6, 0.5], [-0.3, 0.8], [2.0, 0.1], [0.05, 0.0]]
rows = []
for method in ("dls", "jt"):
    for stiffness in ([0.0, 3.0, 0.5, 1e6], [0.0, math.inf, 0.5, 0.0]):
        extra = {"rest": [0.0, 0.5, 0.5, 0.5]} if method == "dls" else {}
        r = ikchain.solve(chain, targets, method, init=[0.2, 0.3, 0.1, 0.4],
                          stiffness=stiffness, max_iterations=40, **extra)
        rows.append([r.angles.tolist(), r.error.tolist(), r.min_error.tolist(),
                     [str(s) for s in r.status], r.iterations.tolist()])
print(json.dumps(rows))
"""


def test_plain_python_and_the_compiled_kernels_agree_to_the_bit() -> None:
    import subprocess
    import sys

    env = {**os.environ, "IKCHAIN_JIT": "0"}
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run(
        [sys.executable, "-c", AGREEMENT], capture_output=True, text=True, env=env, check=True
    )
    here: dict[str, object] = {}
    exec(AGREEMENT.replace("print(json.dumps(rows))", "result = rows"), here)
    assert json.loads(done.stdout) == here["result"]
