"""The picture of each CCD joint's turn in the replay.

At a CCD joint step the replay's reply carries the ray from the turning joint to the
tip before the turn, the ray to the target, the arc of the angle turned and the index
of the step holding the pose before the turn (the ghost). Expected values are derived
independently of :mod:`ikchain.lesson.replay`: forward kinematics written out here
(cumulative sums of the relative angles), and the angle between the two rays in
closed form, ``atan2(cross, dot)``.

Tolerances: angles computed from unrounded poses agree to 1e-12 rad (a few roundings
of metre-sized numbers); the reply's coordinates are rounded to 1e-9 m
(``JOINT_DECIMALS``), so anything read back from them is compared to 1e-9 m, or to
1e-7 rad for a direction seen over the arc's radius of at least a few centimetres.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ikchain.chain import Chain
from ikchain.formatting import format_angle
from ikchain.lesson import replay
from ikchain.lesson.replay_bounds import reply_bytes_bound, steps_of
from ikchain.web.protocol import frame_reply

TWO = [0.8, 0.6]
THREE = [0.6, 0.45, 0.35]
FOUR = [0.5, 0.4, 0.3, 0.2]
#: Angles from unrounded poses: a few roundings of metre-sized numbers.
TIGHT = 1e-12
#: The reply's coordinates are rounded to 1e-9 m.
ROUNDED = 1.5e-9


def replay_of(**body):
    """A replay through the page's own path: one frame-channel message, its reply."""
    answer = frame_reply(json.dumps({"id": 5, "kind": "replay", **body}))
    assert answer["ok"] is True, answer
    return answer["replay"]


def joints_of(lengths, angles):
    """Forward kinematics written out: joint positions (n + 1, 2), m, root first."""
    absolute = np.cumsum(np.asarray(angles, dtype=float))
    steps = np.asarray(lengths)[:, None] * np.column_stack((np.cos(absolute), np.sin(absolute)))
    return np.vstack(([0.0, 0.0], np.cumsum(steps, axis=0)))


def ray_angle(pivot, tip, target):
    """The angle (rad) from the ray pivot → tip to the ray pivot → target, closed form."""
    u, v = np.subtract(tip, pivot), np.subtract(target, pivot)
    return math.atan2(u[0] * v[1] - u[1] * v[0], u[0] * v[0] + u[1] * v[1])


def joint_steps(view):
    return [(i, s) for i, s in enumerate(view["steps"]) if s["joint"] is not None]


@pytest.mark.parametrize("target", [[0.9, 0.5], [-0.4, 0.7], [0.2, -0.9]])
def test_every_ccd_joint_step_carries_its_turn_as_the_reply_draws_it(target):
    view = replay_of(lengths=THREE, target=target, method="ccd", iterations=30)
    turned = joint_steps(view)
    assert {s["joint"] for _, s in turned} == {0, 1, 2}
    np.testing.assert_allclose(view["target"], target, rtol=0, atol=ROUNDED)
    for index, step in turned:
        picture = step["picture"]
        assert picture is not None, index
        j = step["joint"]
        assert picture["ghost"] == index - 1  # the pose just before this turn
        before = np.array(view["steps"][index - 1]["joints"])
        after = np.array(step["joints"])
        # the pivot is the joint that turned (it did not move) and the tip is the tip
        # before the turn, exactly as the step before draws them
        assert picture["pivot"] == before[j].tolist()
        np.testing.assert_allclose(after[j], picture["pivot"], rtol=0, atol=ROUNDED)
        assert picture["tip"] == before[-1].tolist()
        x0, y0, x1, y1, radius, sweep = picture["arc"]
        pivot = np.array(picture["pivot"])
        assert 0.0 < radius <= 0.08 * sum(THREE) + ROUNDED
        for end in ([x0, y0], [x1, y1]):
            assert np.hypot(*(np.array(end) - pivot)) == pytest.approx(radius, abs=3 * ROUNDED)
        # the arc starts on the tip ray, and turns by the angle between the two rays
        # (damping 1, no cap, no limits: CCD turns all the way)
        expected = ray_angle(before[j], before[-1], target)
        assert ray_angle(pivot, [x0, y0], picture["tip"]) == pytest.approx(0.0, abs=1e-7)
        assert ray_angle(pivot, [x0, y0], [x1, y1]) == pytest.approx(expected, abs=1e-7)
        if abs(expected) > 1e-7:  # a turn's sign, where rounding cannot flip it
            assert sweep == (1 if expected > 0 else 0)
        assert picture["angle"] == format_angle(expected, 2)
    for step in view["steps"]:
        if step["joint"] is None:  # the start pose (and any mirror step)
            assert step["picture"] is None


def test_the_turned_angle_is_read_off_the_poses_and_is_the_angle_between_the_rays():
    """From unrounded poses: joint j's angle after minus before equals atan2(cross, dot)
    of its two rays to 1e-12 rad when nothing clamps the turn; with damping 0.4 it is
    0.4 of that angle (so it is the turn the solver made, not the rays' angle)."""
    chain = Chain(THREE)
    target = np.array([0.9, 0.5])
    for damping, share in ((1.0, 1.0), (0.4, 0.4)):
        options = {"max_iterations": 12, "tolerance": 1e-12, "damping": damping}
        found = replay.replay_solve(chain, target, "ccd", options)
        checked = 0
        for before, step in zip(found.steps, found.steps[1:], strict=False):
            if step.joint is None:
                continue
            j = step.joint
            picture = replay.turn_picture(chain, before.result, step.result, j, target)
            joints = joints_of(THREE, before.result.angles)  # independent kinematics
            np.testing.assert_allclose(picture.pivot, joints[j], rtol=0, atol=TIGHT)
            np.testing.assert_allclose(picture.tip, joints[-1], rtol=0, atol=TIGHT)
            assert picture.turn == pytest.approx(
                share * ray_angle(joints[j], joints[-1], target), abs=TIGHT
            )
            checked += 1
        assert found.iterations >= 5 and checked == 3 * found.iterations


@pytest.mark.parametrize(
    ("lengths", "target"),
    [(TWO, [1.0, 0.0]), (THREE, [1.2, 0.0]), (FOUR, [1.3, 0.0])],
)
def test_at_the_collinear_stall_both_rays_coincide_and_the_angle_reads_zero(lengths, target):
    """The straight chain along +x, the target on that line beyond the last joint: from
    every joint the tip and the target lie the same way, so CCD turns nothing."""
    view = replay_of(
        lengths=lengths, target=target, method="ccd", iterations=4, init=[0.0] * len(lengths)
    )
    turned = joint_steps(view)
    assert view["iterations"] >= 1 and len(turned) == view["iterations"] * len(lengths)
    for _, step in turned:
        picture = step["picture"]
        assert picture["angle"] == "0.00°"
        pivot, tip = np.array(picture["pivot"]), np.array(picture["tip"])
        assert pivot[1] == 0.0 and tip[1] == 0.0  # all on the x axis
        assert tip[0] > pivot[0] and target[0] > pivot[0]  # both rays point along +x
        x0, y0, x1, y1, radius, _ = picture["arc"]
        assert radius > 0.0
        assert [x0, y0] == [x1, y1]  # an arc of no angle


def test_a_straight_chain_pointing_past_the_target_turns_its_last_joint_half_round():
    """The brief's example (three bones, target (1.0, 0)) is no stall: the last joint
    sits at x = 1.05, beyond the target, so its two rays point opposite ways and CCD
    turns it by 180°; the picture shows exactly that."""
    view = replay_of(lengths=THREE, target=[1.0, 0.0], method="ccd", iterations=2, init=[0, 0, 0])
    index, first = joint_steps(view)[0]
    assert first["joint"] == 2 and index == 1
    picture = first["picture"]
    assert picture["pivot"] == [1.05, 0.0] and picture["tip"] == [1.4, 0.0]
    assert picture["angle"] == "180.00°"


@pytest.mark.parametrize(
    ("method", "extra"),
    [("fabrik", {}), ("dls", {}), ("ccd", {"joint_steps": False})],
)
def test_steps_that_are_no_joints_turn_carry_no_picture(method, extra):
    view = replay_of(lengths=THREE, target=[0.9, 0.5], method=method, iterations=20, **extra)
    assert len(view["steps"]) > 2
    for step in view["steps"]:
        assert step["joint"] is None and step["picture"] is None


def test_the_mirror_step_carries_no_picture_and_the_turn_before_it_does():
    """When the figure holds the bend (THREE toward (0.9, 0.5), bend -1 ends mirrored),
    the mirror step is no joint's turn: no picture; the turns before it have theirs."""
    view = replay_of(lengths=THREE, target=[0.9, 0.5], method="ccd", iterations=64, bend=-1)
    mirrors = [i for i, s in enumerate(view["steps"]) if s["mirror"]]
    assert len(mirrors) == 1
    assert view["steps"][mirrors[0]]["picture"] is None
    before = view["steps"][mirrors[0] - 1]
    assert before["joint"] == 0 and before["picture"]["ghost"] == mirrors[0] - 2


@pytest.mark.parametrize("lengths", [TWO, THREE, FOUR])
def test_the_pictures_stay_within_the_reply_bound(lengths):
    """The largest CCD joint-by-joint replay the page asks for, every step a turn."""
    n = len(lengths)
    iterations = (replay.MAX_REPLAY_STEPS - 2) // n
    target = [-0.3 * sum(lengths), -0.6 * sum(lengths)]  # negative coordinates: longer
    body = {"kind": "replay", "lengths": lengths, "method": "ccd", "iterations": iterations}
    answer = frame_reply(json.dumps({"id": 5, **body, "target": target, "tolerance": 1e-300}))
    assert answer["ok"], answer
    assert all(s["picture"] for s in answer["replay"]["steps"][1:])
    size = len(json.dumps(answer, separators=(",", ":"), ensure_ascii=False).encode())
    assert size <= reply_bytes_bound(n, steps_of(n, iterations, "ccd", True))
