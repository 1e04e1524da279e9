"""The four-bone family of the 2.3 figure: two positions, the tip held still."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ikchain import family
from ikchain.chain import Chain
from ikchain.kinematics import joints_from_angles
from ikchain.web.protocol import frame_reply

CHAIN = Chain([0.5, 0.4, 0.3, 0.2])
position = st.floats(-1.0, 1.0)


@settings(max_examples=80, deadline=None)
@given(position, position, st.floats(0.15, 1.35), st.floats(-math.pi, math.pi))
def test_every_pose_of_the_family_reaches_the_target(s1, s2, d, phi) -> None:
    target = [d * math.cos(phi), d * math.sin(phi)]
    angles = family.angles_from_family4(CHAIN, target, (s1, s2))
    tip = joints_from_angles(CHAIN.lengths, angles)[-1]
    assert math.dist(tip, target) < 1e-9
    back = family.family4_from_angles(CHAIN, target, angles)
    assert back == pytest.approx((s1, s2), abs=1e-6)


def test_the_second_position_moves_joint_2_and_holds_joint_1() -> None:
    target = [0.9, 0.5]
    a = joints_from_angles(CHAIN.lengths, family.angles_from_family4(CHAIN, target, (0.3, -0.5)))
    b = joints_from_angles(CHAIN.lengths, family.angles_from_family4(CHAIN, target, (0.3, 0.5)))
    assert a[1] == pytest.approx(b[1], abs=1e-12)  # joint 1 held
    assert math.dist(a[2], b[2]) > 0.05  # joint 2 moved
    c = joints_from_angles(CHAIN.lengths, family.angles_from_family4(CHAIN, target, (-0.3, 0.5)))
    assert math.dist(a[1], c[1]) > 0.05  # the first position moves joint 1


def test_bad_family_input_is_refused() -> None:
    with pytest.raises(ValueError, match="4-bone"):
        family.root_angle_range4(Chain([0.8, 0.6]), [0.9, 0.5])
    with pytest.raises(ValueError, match="reachable"):
        family.root_angle_range4(CHAIN, [3.0, 0.0])
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        family.angles_from_family4(CHAIN, [0.9, 0.5], (1.5, 0.0))


def frame(family) -> dict:
    body = {
        "id": 1,
        "lengths": list(CHAIN.lengths),
        "target": [0.9, 0.5],
        "method": "ccd",
        "init": [0.2, 0.2, 0.2, 0.2],
        "family": family,
    }
    return frame_reply(json.dumps(body))


def test_a_frame_with_two_positions_places_the_pose() -> None:
    reply = frame([0.4, -0.2])
    assert reply["ok"], reply
    assert reply["frame"]["family"]["positions"] == pytest.approx([0.4, -0.2], abs=1e-9)
    assert reply["frame"]["result"]["error"] < 1e-9


@pytest.mark.parametrize("family", [[0.1], [0.1, 0.2, 0.3], [0.1, "x"], [2.0, 0.0]])
def test_a_frame_with_bad_positions_gets_an_error_reply(family) -> None:
    reply = frame(family)
    assert reply["ok"] is False and "family" in reply["error"]
    assert np.isfinite(reply["id"])


@pytest.mark.parametrize(
    ("lengths", "family_value"),
    [([0.5, 0.4, 0.3], 0.3), ([0.5, 0.4, 0.3, 0.2], (0.4, -0.2))],
)
def test_a_family_frame_draws_the_closed_form_pose_and_iterates_nothing(
    monkeypatch, lengths, family_value
) -> None:
    """A family frame's pose is the family's closed form, measured by the library with
    zero iterations: no solver iterates on it (a second solve could move it off the
    family, and costs a solve a frame)."""
    from ikchain.lesson import frames

    chain = Chain(lengths)
    target = np.array([0.9, 0.5])
    calls = []
    real = frames.solve

    def spy(*args, **kwargs):
        calls.append(kwargs.get("max_iterations"))
        return real(*args, **kwargs)

    monkeypatch.setattr(frames, "solve", spy)
    request = frames.SolveRequest(chain, target, "ccd", {"max_iterations": 64})
    answer = frames.frame_from_request(frames.FrameRequest(request, 1, None, None, family_value))
    assert calls == [0]
    if len(lengths) == 3:
        expected = family.angles_from_family(chain, target, family_value)
    else:
        expected = family.angles_from_family4(chain, target, family_value)
    assert answer["result"]["angles"] == expected.tolist()
    assert answer["result"]["iterations"] == 0
    assert answer["result"]["status"] == "converged"
