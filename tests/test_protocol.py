"""Request parsing, caps and the frame reply, without a server."""

import json
import math

import numpy as np
import pytest

from ikchain.web import protocol
from ikchain.web.protocol import CAPS, RequestError, frame_reply, solve_reply

BASE = {"lengths": [0.8, 0.6], "target": [1.0, 0.5], "method": "ccd"}


def reply(**changes):
    return frame_reply(json.dumps({**BASE, "id": 7, **changes}))


def test_frame_carries_everything_the_page_draws():
    answer = reply(iterations=64)
    assert answer["id"] == 7 and answer["ok"] is True
    frame = answer["frame"]
    assert (
        frame["result"]["status"] == "converged"
        and frame["result"]["reachable"]
        and not frame["gap"]
    )
    assert frame["reach"] == {"inner": pytest.approx(0.2, abs=1e-15), "outer": 1.4}
    joints = np.array(frame["result"]["joints"])
    assert np.hypot(*(joints[-1] - [1.0, 0.5])) <= 1e-9
    assert frame["readings"]["d"] == f"{math.hypot(1.0, 0.5):.6f}"
    assert frame["readings"]["d_ratio"] == f"{math.hypot(1.0, 0.5) / 1.4:.4f}"


def test_out_of_reach_frame_reports_gap_and_shortfall():
    frame = reply(target=[0.0, 2.0], iterations=2000)["frame"]
    assert (
        frame["gap"]
        and not frame["result"]["reachable"]
        and frame["result"]["status"] == "unreachable"
    )
    assert frame["readings"]["error"] == f"{2.0 - 1.4:.6f}"


def test_warm_start_from_previous_pose_takes_fewer_iterations():
    cold = reply(target=[1.0, 0.52])["frame"]["result"]
    warm_from = reply(target=[1.0, 0.5])["frame"]["result"]["angles"]
    warm = reply(target=[1.0, 0.52], init=warm_from)["frame"]["result"]
    assert warm["iterations"] < cold["iterations"]


def test_smoothing_moves_a_fraction_of_the_way_and_settles():
    answer = reply(target=[1.0, 0.5], smoothing=0.25, previous_target=[0.6, 0.1])["frame"]
    np.testing.assert_allclose(answer["result"]["target"], [0.7, 0.2], atol=1e-15)
    assert answer["settled"] is False
    answer = reply(target=[1.0, 0.5], smoothing=0.25, previous_target=[1.0, 0.5])["frame"]
    assert answer["settled"] is True and answer["result"]["target"] == [1.0, 0.5]


def test_family_position_keeps_the_tip_on_the_target():
    base = {"lengths": [0.6, 0.45, 0.35], "target": [0.9, 0.5], "method": "ccd"}
    first = frame_reply(json.dumps({**base, "family": -0.5}))["frame"]
    second = frame_reply(json.dumps({**base, "family": 0.5}))["frame"]
    for frame in (first, second):
        assert frame["result"]["error"] <= 1e-12
    assert first["family"]["position"] == pytest.approx(-0.5, abs=1e-9)
    gap = np.subtract(first["result"]["joints"][1], second["result"]["joints"][1])
    assert np.hypot(*gap) > 0.1


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("not json", "expected a JSON object, got invalid JSON"),
        ("[1, 2]", "expected a JSON object, got a list"),
        ('{"target": [1, 0]}', "expected key 'lengths', got none"),
        ('{"lengths": [0.8, 0.6]}', "expected key 'target', got none"),
        ('{"lengths": [0.8, 0.6], "target": [NaN, 0]}', "expected finite numbers, got NaN"),
        ('{"lengths": [0.8, 0.6], "target": [Infinity, 0]}', "expected finite numbers"),
        (
            '{"lengths": [0.8, 0.6], "target": [1e999, 0]}',
            "target: expected finite numbers, got 1e999",
        ),
        ('{"lengths": [0.8, 0.0], "target": [1, 0]}', "expected every length > 0"),
        (
            '{"lengths": "long", "target": [1, 0]}',
            "lengths: expected a list of numbers, got the string 'long'",
        ),
        ('{"lengths": [0.8, 0.6], "target": [1, 0], "method": "magic"}', "method: expected one of"),
        ('{"lengths": [0.8, 0.6], "target": [1, 0], "colour": 1}', "got colour"),
        (
            '{"lengths": [0.8, 0.6], "target": [1, 0], "method": "ccd", "iterations": 1000000000}',
            "iterations: expected at most 5000, got 1000000000",
        ),
        (
            '{"lengths": [0.8, 0.6], "target": [1, 0], "method": "ccd", "iterations": -1}',
            "expected a non-negative integer",
        ),
        ('{"lengths": [0.8, 0.6], "target": [1, 0], "smoothing": 2}', "smoothing: expected"),
        (
            '{"lengths": [0.8, 0.6], "target": [[1, 0], [0, 1]]}',
            "target: expected one point [x, y], got shape (2, 2)",
        ),
        (
            '{"lengths": [0.8, 0.6], "target": [1, 0], "method": "analytic", "init": [0, 0]}',
            "takes only angle, bend, pole, soft, weight; got init",
        ),
    ],
)
def test_bad_messages_get_an_error_reply(message, expected):
    answer = frame_reply(message)
    assert answer["ok"] is False
    assert expected in answer["error"]


def test_a_million_bones_is_refused_before_any_work():
    answer = frame_reply(json.dumps({"lengths": [1.0] * 1000, "target": [1, 0]}))
    assert "expected at most 32 bones, got 1000" in answer["error"]
    answer = frame_reply(json.dumps({"lengths": [1.0] * 10**6, "target": [1, 0]}))
    assert f"expected at most {CAPS['max_body_bytes']} bytes" in answer["error"]


def test_work_cap_bounds_bones_times_iterations_times_targets():
    body = json.dumps(
        {"lengths": [0.1] * 32, "target": [[0.5, 0.5]] * 100, "method": "ccd", "iterations": 5000}
    )
    with pytest.raises(RequestError, match="solves × bones × iterations"):
        solve_reply(body)


def test_request_id_is_echoed_even_on_error():
    answer = frame_reply(json.dumps({"id": 12, "lengths": [], "target": [1, 0]}))
    assert answer == {"id": 12, "ok": False, "error": answer["error"]}
    assert "empty chain" in answer["error"]


def test_solve_reply_is_the_cli_json(capsys):
    from ikchain.cli import main

    assert (
        main(
            [
                "solve",
                "--lengths",
                "0.8,0.6",
                "--target",
                "1.2,0.3",
                "--method",
                "fabrik",
                "--iterations",
                "50",
                "--json",
            ]
        )
        == 0
    )
    cli = json.loads(capsys.readouterr().out)
    api = solve_reply(
        json.dumps(
            {"lengths": [0.8, 0.6], "target": [1.2, 0.3], "method": "fabrik", "iterations": 50}
        )
    )
    assert api == cli


def test_lesson_imports_nothing_from_the_server():
    """The lesson describes; the server routes: web/ may import lesson/, never the reverse."""
    import ast
    from pathlib import Path

    lesson = Path(protocol.__file__).resolve().parents[1] / "lesson"
    for path in lesson.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            for name in names:
                assert not name.startswith("ikchain.web"), f"{path.name} imports {name}"


def test_a_solve_request_takes_weight_and_stiffness_as_the_library_does():
    request = {"lengths": [0.5, 0.4, 0.3], "target": [0.6, 0.5], "init": [0.1, 0.2, 0.3]}
    api = solve_reply(json.dumps({**request, "stiffness": [0, "inf", 1.5], "weight": 0.5}))
    import ikchain

    chain = ikchain.Chain([0.5, 0.4, 0.3])
    library = ikchain.solve(
        chain, [0.6, 0.5], init=[0.1, 0.2, 0.3], stiffness=[0, math.inf, 1.5], weight=0.5
    )
    assert api == json.loads(json.dumps(library.as_dict()))
    assert api["angles"][1] == 0.2 and api["status"] == "blended"
    batch = solve_reply(
        json.dumps({**request, "target": [[0.6, 0.5], [2.0, 0.0]], "stiffness": [0, 0, 0]})
    )
    assert batch["status"] == ["converged", "unreachable"]


def test_a_lock_costs_the_reach_search_as_limits_do():
    from ikchain.solvers.methods import reach_work

    request = {"lengths": [0.5, 0.4, 0.3], "target": [0.6, 0.5], "iterations": 10}
    plain = protocol.parse_solve(request).work
    stiff = protocol.parse_solve({**request, "stiffness": [0, 1e6, 0], "weight": 0.3}).work
    locked = protocol.parse_solve({**request, "stiffness": [0, "inf", 0]}).work
    assert plain == stiff == 3 * 10 and locked == plain + reach_work(3)


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ({"weight": 1.5}, "weight: expected a number in [0, 1], got 1.5"),
        ({"weight": -0.0001}, "weight: expected a number in [0, 1]"),
        ({"weight": "0.5"}, "weight: expected a number, got the string '0.5'"),
        ({"weight": True}, "weight: expected a number, got true"),
        ({"stiffness": [0, 1]}, "stiffness: expected 3 entries, one a joint"),
        ({"stiffness": [0, -1, 1]}, "got -1 at joint 1"),
        ({"stiffness": [0, "Infinity", 1]}, "got the string 'Infinity' at joint 1"),
        ({"stiffness": [0, None, 1]}, "got null at joint 1"),
        ({"stiffness": [0, False, 1]}, "got false at joint 1"),
        ({"stiffness": "inf"}, "stiffness: expected 3 entries"),
        ({"stiffness": [[0, 1, 2]]}, "got 1 entries"),
        ({"method": "ccd", "stiffness": [0, 1, 2]}, "method 'ccd' takes only"),
        ({"method": "fabrik", "stiffness": [0, 1, 2]}, "got stiffness"),
    ],
)
def test_bad_weight_or_stiffness_gets_400_naming_the_key(extra, said):
    request = {"lengths": [0.5, 0.4, 0.3], "target": [0.6, 0.5], **extra}
    reply = protocol.respond("solve", json.dumps(request))
    assert reply.status == 400
    assert said in json.loads(reply.text)["error"]


@pytest.mark.parametrize(
    "text",
    [
        '{"lengths": [0.5, 0.4, 0.3], "target": [0.6, 0.5], "weight": NaN}',
        '{"lengths": [0.5, 0.4, 0.3], "target": [0.6, 0.5], "stiffness": [0, 1e400, 1]}',
        '{"lengths": [0.5, 0.4, 0.3], "target": [0.6, 0.5], "stiffness": [0, Infinity, 1]}',
        '{"lengths": [0.5, 0.4, 0.3], "target": [0.6, 0.5], "stiffness": [0, NaN, 1]}',
    ],
)
def test_non_finite_numbers_in_weight_or_stiffness_get_400(text):
    reply = protocol.respond("solve", text)
    assert reply.status == 400
    error = json.loads(reply.text)["error"]
    assert "expected finite numbers" in error
    # a stiffness may be infinite (a lock): the refusal says how to send one
    assert ('is the string "inf"' in error) == ("stiffness" in text)


def test_a_frame_takes_neither_weight_nor_stiffness():
    for extra in ({"weight": 0.5}, {"stiffness": [0, 1]}):
        answer = frame_reply(json.dumps({"lengths": [0.8, 0.6], "target": [1, 0], **extra}))
        assert answer["ok"] is False and "expected keys among" in answer["error"]


def test_a_solve_request_takes_the_tip_angle_as_the_library_does():
    import ikchain

    request = {"lengths": [0.5, 0.4, 0.3], "target": [[0.6, 0.5], [1.0, 0.0]], "angle": 0.3}
    api = solve_reply(json.dumps({**request, "method": "analytic", "bend": -1}))
    library = ikchain.solve(
        ikchain.Chain([0.5, 0.4, 0.3]), [[0.6, 0.5], [1.0, 0.0]], "analytic", angle=0.3, bend=-1
    )
    assert api == json.loads(json.dumps(library.as_dict()))
    # every method takes it, as the library does
    dls = solve_reply(json.dumps({**request, "method": "dls"}))
    same = ikchain.solve(ikchain.Chain([0.5, 0.4, 0.3]), request["target"], "dls", angle=0.3)
    assert dls == json.loads(json.dumps(same.as_dict()))
    for extra, said in (
        ({"method": "analytic", "angle": "0.3"}, "angle: expected a number, got the string"),
        ({"method": "analytic", "angle": None, "lengths": [0.5, 0.4]}, None),
        ({"method": "analytic", "lengths": [0.5, 0.4]}, "angle: expected a 3-bone chain"),
        ({"method": "dls", "lengths": [0.5]}, "angle: expected a chain of 2 bones or more"),
        ({"method": "analytic", "lengths": [0.5, 0.4, 0.3, 0.2]}, "got 4 bones"),
    ):
        reply = protocol.respond("solve", json.dumps({**request, **extra}))
        if said is None:
            assert reply.status == 200  # null: not given, the two-bone closed form
            continue
        assert reply.status == 400 and said in json.loads(reply.text)["error"]
    # a frame of two bones with an iterative method: the first bone to the wrist, the hand
    frame = frame_reply(json.dumps({"lengths": [0.8, 0.6], "target": [1, 0], "angle": 1}))
    assert frame["ok"] is True
    heading = sum(frame["frame"]["result"]["angles"])
    assert abs(math.remainder(heading - 1.0, math.tau)) <= 1e-12
