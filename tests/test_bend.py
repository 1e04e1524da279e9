"""The bend direction a figure keeps: mirror images, net turn, every method."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ikchain.chain import Chain
from ikchain.kinematics import joints_from_angles
from ikchain.lesson.frames import (
    FrameRequest,
    SolveRequest,
    bend_of_pose,
    frame_from_request,
    mirror_pose,
    net_turn,
)

CHAINS = [(0.8, 0.6), (0.6, 0.45, 0.35), (0.5, 0.4, 0.3, 0.2)]


def frame(lengths, target, method, bend, init=None, iterations=64):
    options = {"bend": bend, "max_iterations": iterations, "tolerance": 1e-9}
    if init is not None:
        options["init"] = init
    if method == "analytic":
        options = {"bend": bend}
    request = SolveRequest(Chain(lengths), np.array(target, dtype=float), method, options)
    return frame_from_request(FrameRequest(request, 1, None, None, None))


def turn_of_drawing(joints) -> float:
    """Net turn from the drawn joints alone: the sum of the turns between bones."""
    p = np.asarray(joints)
    bones = np.diff(p, axis=0)
    heading = np.arctan2(bones[:, 1], bones[:, 0])
    return float(np.sum(np.angle(np.exp(1j * np.diff(heading)))))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-6.0, 6.0), min_size=2, max_size=5),
    st.floats(-math.pi, math.pi),
    st.floats(0.1, 2.0),
)
def test_mirror_keeps_the_distance_to_the_target_and_flips_the_turn(angles, phi, r) -> None:
    lengths = np.linspace(0.7, 0.3, len(angles))
    target = np.array([r * math.cos(phi), r * math.sin(phi)])
    tip = joints_from_angles(lengths, np.array(angles))[-1]
    mirrored = mirror_pose(angles, target)
    tip_m = joints_from_angles(lengths, mirrored)[-1]
    assert np.hypot(*(tip_m - target)) == pytest.approx(np.hypot(*(tip - target)), abs=1e-9)
    # reflected across the line through the root at angle phi: the closed form
    u = np.array([math.cos(phi), math.sin(phi)])
    assert tip_m == pytest.approx(2 * np.dot(tip, u) * u - tip, abs=1e-9)
    turn = net_turn(angles)
    if 1e-6 < abs(turn) < math.pi - 1e-6:
        assert net_turn(mirrored) == pytest.approx(-turn, abs=1e-9)


@pytest.mark.parametrize("lengths", CHAINS)
@pytest.mark.parametrize("method", ["ccd", "fabrik", "dls"])
@pytest.mark.parametrize("bend", [1, -1])
@pytest.mark.parametrize("target", [(1.0, 0.6), (-0.9, -0.3), (0.3, -0.8), (-0.2, 0.9)])
def test_every_method_keeps_the_bend_and_still_reaches(lengths, method, bend, target) -> None:
    out = frame(lengths, target, method, bend, iterations=500)
    joints = out["result"]["joints"]
    assert bend * turn_of_drawing(joints) > 0  # what is drawn bends the chosen way
    assert out["bend"] == bend
    assert out["result"]["status"] == "converged" and out["result"]["error"] <= 1e-9
    tip = joints[-1]
    assert math.dist(tip, target) == pytest.approx(out["result"]["error"], abs=1e-12)


@pytest.mark.parametrize("bend", [1, -1])
def test_analytic_branch_is_the_bend(bend) -> None:
    out = frame((0.8, 0.6), (-0.9, -0.3), "analytic", bend)
    assert bend * turn_of_drawing(out["result"]["joints"]) > 0


def test_a_warm_start_with_bend_keeps_its_side_and_counts_both_runs() -> None:
    # a warm start on the counter-clockwise side, asked to bend clockwise
    first = frame((0.8, 0.6), (1.0, 0.6), "ccd", 1)
    angles = first["result"]["angles"]
    out = frame((0.8, 0.6), (1.0, 0.6), "ccd", -1, init=angles)
    assert out["bend"] == -1
    assert out["result"]["angles"][1] == pytest.approx(-angles[1], abs=1e-8)
    assert int(out["readings"]["iterations"]) >= out["result"]["iterations"]


def test_straight_and_folded_poses_bend_neither_way() -> None:
    assert bend_of_pose([0.3, 0.0]) is None
    assert bend_of_pose([0.3, math.pi]) is None
    assert bend_of_pose([0.3, -math.pi]) is None
    assert bend_of_pose([0.3, 0.2, -0.1]) == 1
    # out of reach, the chain lies straight: any bend is kept, nothing mirrored
    out = frame((0.8, 0.6), (2.0, 0.0), "ccd", -1)
    assert out["result"]["status"] == "unreachable"
