"""The limited reach search's bound: within a box of the first n - 2 joint angles, the
two-bone distance ``F`` never moves from its value at the box's centre by more than
the sum of the parts the search computed for the box.

The branch and bound discards a box whose ``F(centre) - Σ parts`` is above 0, so a bound
that is too small (a term dropped, a factor halved) would discard boxes that hold a
reaching pose and call a reachable target unreachable, rarely enough that the
end-to-end tests may not meet one. Here the bound is checked where it is made: ``F``
at random poses inside random boxes, and ``F`` at the centre against the independent
oracle (numpy only) for the last two bones seen from joint n - 2.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ikchain.solvers import limited
from limits_oracle import least_distance


def _frame_of_joint(lengths, angles, target):
    """The target seen from joint len(angles), in the frame of the bone before it."""
    absolute, x, y = 0.0, 0.0, 0.0
    for length, angle in zip(lengths, angles, strict=False):
        absolute += angle
        x += length * math.cos(absolute)
        y += length * math.sin(absolute)
    dx, dy = target[0] - x, target[1] - y
    c, s = math.cos(absolute), math.sin(absolute)
    return c * dx + s * dy, c * dy - s * dx


def _distance_at(lengths, lows, highs, target, angles, work):
    """``F`` at one pose of the first d joints: a box of zero size."""
    d = angles.size
    digits, scratch, tail = work
    parts = np.empty(d)
    value = limited._evaluate(
        lengths,
        lows,
        highs,
        target[0],
        target[1],
        1,
        angles,
        np.zeros(d),
        parts,
        digits,
        scratch,
        tail,
    )
    assert np.all(parts == 0.0)
    return value


@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_two_bone_distance_stays_within_the_bound_over_each_box(n: int) -> None:
    rng = np.random.default_rng(100 + n)
    d = n - 2
    work = (np.empty(n, dtype=np.int64), np.empty(max(6, n)), np.empty(2))
    worst = 0.0
    for case in range(60):
        lengths = rng.uniform(0.2, 1.0, n)
        lows = rng.uniform(-3.0, 0.0, n)
        highs = lows + rng.uniform(0.3, 3.0, n)
        target = rng.uniform(-1.0, 1.0, 2) * lengths.sum()
        centre = rng.uniform(lows[:d], highs[:d])
        half = rng.uniform(0.0, 0.6, d)
        parts = np.empty(d)
        value = limited._evaluate(
            lengths, lows, highs, target[0], target[1], 1, centre, half, parts, *work
        )
        if case < 6:  # F itself, against the oracle (two bones, seen from joint d)
            seen = _frame_of_joint(lengths[:d], centre, target)
            oracle, _ = least_distance(lengths[d:], np.column_stack((lows[d:], highs[d:])), seen)
            assert value == pytest.approx(oracle, abs=1e-9)
        bound = parts.sum()
        for _ in range(40):
            angles = centre + half * rng.uniform(-1.0, 1.0, d)
            moved = abs(_distance_at(lengths, lows, highs, target, angles, work) - value)
            assert moved <= bound + 1e-12, (case, moved, bound)
            worst = max(worst, moved / bound if bound > 0 else 0.0)
    assert worst > 0.1  # the samples came near the bound: it is not vacuously loose


@pytest.mark.parametrize("n", [4, 5])
def test_each_joints_part_bounds_its_slope_everywhere_in_the_box(n: int) -> None:
    """``parts[k] / half[k]`` bounds how fast ``F`` changes with joint k anywhere in the
    box, not only at its centre: the joints before k move joint k itself (the drift),
    which the bound must allow for. Checked by finite differences at random poses."""
    rng = np.random.default_rng(200 + n)
    d = n - 2
    work = (np.empty(n, dtype=np.int64), np.empty(max(6, n)), np.empty(2))
    step = 1e-6
    tightest = 0.0
    for _ in range(150):
        lengths = rng.uniform(0.3, 1.0, n)
        lows = np.full(n, -3.0)
        highs = np.full(n, 3.0)
        lows[d:] = rng.uniform(-2.0, 0.0, 2)
        highs[d:] = lows[d:] + rng.uniform(0.2, 1.5, 2)
        target = rng.uniform(-1.0, 1.0, 2) * lengths.sum() * 1.5
        centre = rng.uniform(-2.0, 2.0, d)
        half = rng.uniform(0.5, 1.5, d)
        parts = np.empty(d)
        limited._evaluate(lengths, lows, highs, target[0], target[1], 1, centre, half, parts, *work)
        slopes = parts / half
        for _ in range(30):
            angles = centre + half * rng.uniform(-1.0, 1.0, d)
            here = _distance_at(lengths, lows, highs, target, angles, work)
            for k in range(1, d):  # joint 0 has no joints before it
                moved = angles.copy()
                moved[k] += step
                there = _distance_at(lengths, lows, highs, target, moved, work)
                slope = abs(there - here) / step
                assert slope <= slopes[k] * (1 + 1e-6) + 1e-6, (k, slope, slopes[k])
                tightest = max(tightest, slope / slopes[k])
    assert tightest > 0.5  # some slope came near its bound
