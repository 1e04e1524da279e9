"""The tip angle: a three-bone closed form puts the tip on the target with the last bone at
the given world angle (to 1e-12), on both elbow branches, and tells the truth about the
pose task (the wrist's distance to its annulus) where it cannot.

Expected values come from elsewhere: forward kinematics written in numpy
(``limits_oracle.tips``), the law of cosines written out here for the wrist, and the
annulus gap computed here.
"""

from __future__ import annotations

import math
import os

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


@pytest.mark.parametrize("method", ["ccd", "fabrik", "jt", "dls"])
def test_iterative_methods_refuse_the_angle(method: str) -> None:
    chain = ikchain.Chain([0.5, 0.4, 0.3])
    with pytest.raises(ValueError, match=f"method '{method}' takes only .*; got angle"):
        ikchain.solve(chain, [0.6, 0.5], method, angle=0.3)


@pytest.mark.parametrize(
    ("chain", "options", "said"),
    [
        (ikchain.Chain([0.5, 0.4]), {}, "angle: expected a 3-bone chain"),
        (ikchain.Chain([0.5, 0.4, 0.3, 0.2]), {}, "got 4 bones"),
        (ikchain.Chain([0.5, 0.4, 0.3], limits=[[-1, 1]] * 3), {}, "without joint limits"),
        (ikchain.Chain([0.5, 0.4, 0.3]), {"pole": [0, 1]}, "expected angle or pole"),
        (ikchain.Chain([0.5, 0.4, 0.3]), {"soft": 0.1}, "expected angle or soft"),
    ],
)
def test_what_the_closed_form_cannot_do_with_an_angle_is_refused(chain, options, said) -> None:
    with pytest.raises(ValueError, match=said):
        ikchain.solve(chain, [0.6, 0.5], "analytic", angle=0.3, **options)


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
