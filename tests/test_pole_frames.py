"""A drag frame with a pole (hint) point, ``"pole": [x, y]``.

Through the page's protocol entry (:func:`ikchain.web.protocol.frame_reply`, and
``POST /api/frame`` for the status codes). The checks are independent of the solver:
which side of the root-target line the elbow is on is the sign of a cross product
computed here, and the joints are recomputed here from the reply's angles.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from starlette.testclient import TestClient

from ikchain.web.app import build_app
from ikchain.web.protocol import frame_reply, parse_frame

TWO = [0.8, 0.6]
THREE = [0.6, 0.45, 0.35]
TIGHT = 1e-12
METHODS = ("analytic", "ccd", "fabrik", "dls")
TARGETS = ([1.0, 0.6], [0.2, 1.1], [-0.9, -0.4], [0.7, -0.2])


def ask(**body):
    return frame_reply(json.dumps({"id": 5, **body}))


def cross(a, b) -> float:
    return a[0] * b[1] - a[1] * b[0]


def sign(value: float) -> int:
    return (value > 0) - (value < 0)


def joints_of(lengths, angles):
    """Forward kinematics, written here: each bone turns by its joint's angle."""
    x = y = heading = 0.0
    points = [[0.0, 0.0]]
    for length, angle in zip(lengths, angles, strict=True):
        heading += angle
        x += length * math.cos(heading)
        y += length * math.sin(heading)
        points.append([x, y])
    return points


def normal(target, scale: float) -> list[float]:
    """A point beside the middle of the root-target line, on its left for scale > 0."""
    return [target[0] / 2 - scale * target[1], target[1] / 2 + scale * target[0]]


@pytest.fixture(scope="module")
def client():
    with TestClient(build_app(), base_url="http://127.0.0.1") as test_client:
        yield test_client


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("scale", [0.8, -0.8])
def test_two_bones_bend_toward_the_pole(method, target, scale):
    pole = normal(target, scale)
    answer = ask(lengths=TWO, target=target, method=method, pole=pole)
    assert answer["ok"] is True, answer
    result = answer["frame"]["result"]
    elbow = result["joints"][1]
    side = sign(cross(target, pole))
    assert side == (1 if scale > 0 else -1)
    assert sign(cross(target, elbow)) == side, (method, target, pole, elbow)
    assert result["error"] <= 1e-6 and result["reachable"] is True
    # the reply's bend is the one the pole chose: an elbow on the left of the line
    # (counter-clockwise from the root's view) turns clockwise to the target
    assert answer["frame"]["bend"] == -side
    # the reply's angles give the reply's joints
    for got, want in zip(joints_of(TWO, result["angles"]), result["joints"], strict=True):
        assert math.dist(got, want) <= TIGHT


@pytest.mark.parametrize("method", METHODS)
def test_the_opposite_pole_gives_the_other_side(method):
    target = [1.0, 0.6]
    up = ask(lengths=TWO, target=target, method=method, pole=[0.3, 0.9])
    down = ask(lengths=TWO, target=target, method=method, pole=[0.9, -0.3])
    assert cross(target, [0.3, 0.9]) > 0 > cross(target, [0.9, -0.3])
    assert cross(target, up["frame"]["result"]["joints"][1]) > 0
    assert cross(target, down["frame"]["result"]["joints"][1]) < 0
    assert {up["frame"]["bend"], down["frame"]["bend"]} == {1, -1}


def test_three_bones_take_a_pole_and_report_the_bend():
    for pole in ([0.2, 1.0], [0.8, -0.5]):
        answer = ask(lengths=THREE, target=[0.9, 0.5], method="ccd", pole=pole)
        assert answer["ok"] is True, answer
        result = answer["frame"]["result"]
        assert answer["frame"]["bend"] in (1, -1)
        for got, want in zip(joints_of(THREE, result["angles"]), result["joints"], strict=True):
            assert math.dist(got, want) <= TIGHT


def test_pole_with_joint_limits_passes_through_as_the_library_takes_it():
    limits = [[-3.0, 3.0], [-3.0, 3.0]]
    target = [1.0, 0.6]
    for pole in ([0.3, 0.9], [0.9, -0.3]):
        answer = ask(lengths=TWO, target=target, method="ccd", pole=pole, limits=limits)
        assert answer["ok"] is True, answer
        elbow = answer["frame"]["result"]["joints"][1]
        assert sign(cross(target, elbow)) == sign(cross(target, pole))


@pytest.mark.parametrize("key, value", [("bend", 1), ("bend", -1), ("init", [0.0, 0.5])])
def test_pole_with_bend_or_init_is_refused_as_the_library_refuses_it(key, value):
    answer = ask(lengths=TWO, target=[1.0, 0.6], method="ccd", pole=[0.3, 0.9], **{key: value})
    assert answer["ok"] is False and answer["id"] == 5
    assert answer["error"] == (
        f"pole: chooses the bend from both bent start poses; expected {key} or pole, got both"
    )


def test_a_null_pole_is_no_pole():
    with_null = ask(lengths=TWO, target=[1.0, 0.6], method="ccd", pole=None, bend=-1)
    without = ask(lengths=TWO, target=[1.0, 0.6], method="ccd", bend=-1)
    assert with_null == without and with_null["ok"] is True


@pytest.mark.parametrize(
    "raw, expected",
    [
        ('"NaN"', "pole: expected numbers, got the string 'NaN'"),
        ("[NaN, 0.5]", "pole: expected finite numbers, got NaN"),
        ("true", "pole: expected numbers, got true"),
        ("[0.3]", "pole: expected one point [x, y], got shape (1,)"),
        ("[0.3, 0.9, 0.1]", "pole: expected one point [x, y], got shape (3,)"),
        ("[[0.3, 0.9]]", "pole: expected one point [x, y], got shape (1, 2)"),
        ('[0.3, "0.9"]', "pole: expected numbers, got the string '0.9'"),
        ("[[0.3], 0.9]", "pole: expected a rectangular array of numbers, got ragged lists"),
    ],
)
def test_bad_poles_get_a_400_naming_the_pole_and_what_was_given(client, raw, expected):
    body = '{"id": 7, "lengths": [0.8, 0.6], "target": [1.0, 0.6], "method": "ccd", "pole": '
    response = client.post(
        "/api/frame", content=body + raw + "}", headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    answer = response.json()
    assert answer["ok"] is False and answer["error"] == expected


def test_a_huge_pole_reads_as_a_huge_target_does(client):
    """1e400 is refused while the JSON is read; the message names the key it was given
    for, and reads as the target's does, word for word, but for the key."""
    replies = []
    for key in ("pole", "target"):
        body = {"lengths": [0.8, 0.6], "target": [1.0, 0.6], "method": "ccd", "pole": [0.3, 0.9]}
        text = json.dumps(body).replace(json.dumps(body[key]), "[1e400, 0.9]")
        response = client.post(
            "/api/frame", content=text, headers={"content-type": "application/json"}
        )
        assert response.status_code == 400
        replies.append(response.json()["error"])
    assert replies[0] == "pole: expected finite numbers, got 1e400"
    assert replies[1] == "target: expected finite numbers, got 1e400"


def test_the_target_and_the_pole_read_the_same_for_the_same_mistake():
    for raw in ([0.3], [[0.3, 0.9]], "x"):
        pole = ask(lengths=TWO, target=[1.0, 0.6], method="ccd", pole=raw)["error"]
        target = ask(lengths=TWO, target=raw, method="ccd")["error"]
        assert pole == target.replace("target:", "pole:", 1)


@pytest.mark.parametrize("pole", [[0.3, 0.9], [1.0, -0.6]])
@pytest.mark.parametrize("method", ["ccd", "fabrik", "dls"])
def test_a_replay_with_a_pole_ends_on_the_figures_solve(method, pole):
    """The replay of a pole frame replays the run the pole chose: its last pose is the
    pose of the figure's frame for the same request (sent with it), on the pole's side."""
    body = {"lengths": TWO, "target": [1.0, 0.6], "method": method, "pole": pole}
    answer = ask(kind="replay", iterations=64, joint_steps=False, **body)
    assert answer["ok"] is True, answer
    view = answer["replay"]
    last = np.array(view["steps"][-1]["joints"])
    figure = np.array(view["frame"]["result"]["joints"])
    np.testing.assert_allclose(last, figure, atol=1e-9)  # the steps are rounded to 1e-9
    (ex, ey), (tx, ty) = figure[1], body["target"]
    assert math.copysign(1.0, tx * ey - ty * ex) == math.copysign(1.0, tx * pole[1] - ty * pole[0])


def test_a_pole_frame_costs_its_three_solves():
    body = {"lengths": TWO, "target": [1.0, 0.6], "method": "ccd", "iterations": 50}
    _, plain = parse_frame(body)
    _, poled = parse_frame({**body, "pole": [0.3, 0.9]})
    assert plain == 2 * 50 and poled == 3 * plain
