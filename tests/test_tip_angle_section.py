"""Section 2.8, the hand's angle: a drag frame takes ``angle`` as the library does, and
every number the figure draws (the wrist, its annulus, the miss) is the solve's.

The checks here recompute each number by hand from the chain's lengths (forward
kinematics, the wrist ``target - l3 (cos φ, sin φ)``, the annulus ``[|l1 - l2|, l1 + l2]``),
never through the page's code.
"""

from __future__ import annotations

import json
import math
import re
from html import unescape
from typing import Any

import numpy as np
import pytest

import ikchain
from ikchain.lesson import content, figures, hand, predict
from ikchain.web import protocol
from ikchain.web.app import render_page

LENGTHS = [0.6, 0.45, 0.35]  # the lesson's three-bone chain, written out
FRAME = {"lengths": LENGTHS, "target": [0.7, 0.6], "method": "analytic", "bend": 1}


def section() -> content.Section:
    return next(s for s in content.SECTIONS if s.hand)


def tip_and_heading(angles: Any) -> tuple[np.ndarray, float]:
    """Forward kinematics by hand: the tip and the last bone's heading."""
    heading, point = 0.0, np.zeros(2)
    for length, angle in zip(LENGTHS, angles, strict=True):
        heading += angle
        point = point + length * np.array([math.cos(heading), math.sin(heading)])
    return point, heading


def turn_gap(a: float, b: float) -> float:
    """|a - b| as a turn, up to whole turns (rad)."""
    return abs(math.remainder(a - b, math.tau))


def annulus_gap(point: Any) -> float:
    """How far ``point`` lies outside the two first bones' annulus, by hand."""
    d = math.hypot(*point)
    inner, outer = abs(LENGTHS[0] - LENGTHS[1]), LENGTHS[0] + LENGTHS[1]
    return max(0.0, d - outer, inner - d)


def frame(**changes: Any) -> dict[str, Any]:
    answer = protocol.frame_reply(json.dumps({**FRAME, "id": 1, **changes}))
    assert answer["ok"] is True, answer
    return answer["frame"]


# -- the section ------------------------------------------------------------------------


def test_the_section_follows_reachability_and_keeps_the_others_numbers() -> None:
    keys = [s.key for s in content.SECTIONS]
    numbers = {s.key: s.number for s in content.SECTIONS}
    assert keys.index("s28") == keys.index("s24") + 1  # right after reachability
    # the sections before it keep their numbers (and so their anchors and links)
    assert numbers == {
        "s21": "2.1",
        "s22": "2.2",
        "s23": "2.3",
        "s24": "2.4",
        "s28": "2.8",
        "s25": "2.5",
        "s26": "2.6",
        "s27": "2.7",
    }
    s28 = section()
    assert s28.key == "s28" and s28.bones == 3 and s28.method == "analytic"
    assert s28.controls == ("bend",) and len(s28.shown) <= content.SHOWN_MAX


def test_the_default_frame_is_the_librarys_solve_with_the_hand_at_its_angle() -> None:
    s28 = section()
    shown = content.default_frame(s28)
    phi = hand.DEFAULT_ANGLE
    target = np.array(s28.target)
    alone = ikchain.solve(ikchain.Chain(LENGTHS), target, "analytic", angle=phi, bend=1)
    assert shown["result"]["angles"] == alone.angles.tolist()
    tip, heading = tip_and_heading(shown["result"]["angles"])
    assert np.hypot(*(tip - target)) <= 1e-12
    assert turn_gap(heading, phi) <= 1e-12
    # the wrist and its annulus, by hand
    wrist = target - LENGTHS[2] * np.array([math.cos(phi), math.sin(phi)])
    view = shown["hand"]
    assert np.hypot(*(np.array(view["wrist"]) - wrist)) <= 1e-15
    assert view["inner"] == pytest.approx(abs(LENGTHS[0] - LENGTHS[1]), abs=1e-15)
    assert view["outer"] == LENGTHS[0] + LENGTHS[1]
    assert view["angle"] == phi and view["reachable"] is True and view["min_error"] == 0.0
    # the chain's wrist joint is on the wrist point
    assert np.hypot(*(np.array(shown["result"]["joints"][2]) - wrist)) <= 1e-12
    assert shown["readings"]["hand_reach"] == "yes"
    assert shown["readings"]["hand_angle"] == "60.0°"


@pytest.mark.parametrize(
    ("target", "phi"),
    [((0.9, 0.0), math.pi), ((0.35, 0.05), 0.0), ((1.2, 0.5), -2.0), ((-0.6, 0.6), -math.pi / 4)],
)
def test_beyond_the_annulus_the_frame_says_how_far_as_the_solver_does(
    target: tuple[float, float], phi: float
) -> None:
    got = frame(target=list(target), angle=phi)
    wrist = np.array(target) - LENGTHS[2] * np.array([math.cos(phi), math.sin(phi)])
    gap = annulus_gap(wrist)
    assert gap > 0.01  # each case has the wrist out of its ring
    result = got["result"]
    assert result["reachable"] is False and result["status"] == "unreachable"
    assert abs(result["min_error"] - gap) <= 1e-12
    assert got["hand"]["min_error"] == result["min_error"]
    assert got["hand"]["reachable"] is False and got["readings"]["hand_reach"] == "no"
    assert got["readings"]["min_error"] == f"{result['min_error']:.6f}"
    # the hand is still at φ, and the tip misses by the wrist's gap
    tip, heading = tip_and_heading(result["angles"])
    assert turn_gap(heading, phi) <= 1e-12
    assert abs(math.hypot(*(tip - np.array(target))) - gap) <= 1e-12


def test_the_page_says_so_in_its_status_in_both_languages() -> None:
    for lang in ("en", "zh"):
        words = content.load_text(lang)["readings"]
        html = render_page(lang)
        figure = html.split('id="fig-s28"')[1].split("</figure>")[0]
        status = re.search(r'data-reading="status">([^<]*)<', figure)
        assert status is not None
        assert status.group(1) == words["hand_yes"].replace("%hand_angle%", "60.0°")
        assert "%min_error%" in words["hand_no"] and "%hand_angle%" in words["hand_no"]


# -- the frame protocol ----------------------------------------------------------------


def test_a_frame_takes_the_angle_and_costs_what_an_analytic_frame_costs() -> None:
    with_angle = {**FRAME, "angle": 0.4}
    request, work = protocol.parse_frame(json.loads(json.dumps(with_angle)))
    assert request.solve.options["angle"] == 0.4
    _, plain = protocol.parse_frame(json.loads(json.dumps({**FRAME, "lengths": [0.8, 0.6]})))
    assert work == 3 * 1 and plain == 2 * 1  # bones × one closed-form "iteration"
    assert frame(angle=0.4)["result"]["angles"] == (
        ikchain.solve(
            ikchain.Chain(LENGTHS), [0.7, 0.6], "analytic", angle=0.4, bend=1
        ).angles.tolist()
    )
    # without an angle a frame has no hand
    two = protocol.frame_reply(json.dumps({**FRAME, "lengths": [0.8, 0.6]}))
    assert two["ok"] is True and two["frame"]["hand"] is None


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ('"angle": NaN', "angle: expected finite numbers, got NaN"),
        ('"angle": 1e400', "angle: expected finite numbers, got 1e400"),
        ('"angle": -Infinity', "angle: expected finite numbers, got -Infinity"),
        ('"angle": "0.3"', "angle: expected a number, got the string '0.3'"),
        ('"angle": [0.3]', "angle: expected a number, got a list"),
        ('"angle": {"phi": 0.3}', "angle: expected a number, got an object"),
        ('"angle": true', "angle: expected a number, got true"),
    ],
)
def test_a_bad_angle_is_a_400_that_names_it(raw: str, said: str) -> None:
    body = json.dumps(FRAME)[:-1] + ", " + raw + "}"
    reply = protocol.respond("frame", body)
    assert isinstance(reply, protocol.Reply) and reply.status == 400
    assert json.loads(reply.text)["error"].startswith(said)


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"lengths": [0.8, 0.6]}, "angle: expected a 3-bone chain"),
        ({"limits": [[-1, 1]] * 3}, "angle: expected the last joint free to turn"),
        ({"pole": [0.3, 0.9], "bend": None}, "expected angle or pole, got both"),
        ({"method": "ccd", "iterations": 8, "lengths": [0.8]}, "expected a chain of 2 bones"),
    ],
)
def test_what_the_library_refuses_with_an_angle_a_frame_refuses_too(
    changes: dict[str, Any], said: str
) -> None:
    reply = protocol.respond("frame", json.dumps({**FRAME, "angle": 0.3, **changes}))
    assert isinstance(reply, protocol.Reply) and reply.status == 400
    assert said in json.loads(reply.text)["error"]


def test_a_replay_still_takes_no_angle() -> None:
    body = {**FRAME, "method": "ccd", "iterations": 8, "kind": "replay", "angle": 0.3}
    reply = protocol.respond("frame", json.dumps(body))
    assert isinstance(reply, protocol.Reply) and reply.status == 400
    assert "expected keys among" in json.loads(reply.text)["error"]


# -- with scripts off, and the question ------------------------------------------------


def test_scripts_off_the_figure_draws_the_chain_the_annulus_and_the_wrist() -> None:
    s28 = section()
    shown = content.default_frame(s28)
    view = shown["hand"]
    for lang in ("en", "zh"):
        html = render_page(lang)
        text = content.load_text(lang)["s28"]
        part = html.split('id="s28"')[1].split("</section>")[0]
        for words in (text["heading"], text["intro"][0], *text["reading"]):
            assert words in unescape(part)
        svg = part.split('id="fig-s28-svg"')[1].split("</svg>")[0]
        path = re.search(r'class="wrist-reach" d="([^"]+)"', svg)
        assert path is not None
        assert path.group(1) == figures.annulus_path(view["inner"], view["outer"])
        wrist = re.search(r'class="wrist-point" cx="([^"]+)" cy="([^"]+)"', svg)
        assert wrist is not None
        assert [float(wrist.group(1)), float(wrist.group(2))] == view["wrist"]
        bones = re.search(r'class="bones" points="([^"]+)"', svg)
        assert bones is not None and len(bones.group(1).split()) == 4  # root, 2 joints, tip


def test_the_question_is_answered_by_the_solver() -> None:
    text = content.load_text("en")
    choice, values = predict.answer_for("s28", text)
    target, phi = np.array(predict.HAND_TARGET), predict.HAND_ANGLE
    wrist = target - LENGTHS[2] * np.array([math.cos(phi), math.sin(phi)])
    gap = annulus_gap(wrist)
    assert math.hypot(*target) < sum(LENGTHS)  # inside the dashed circle
    assert gap > 0 and choice == 1  # and still out of reach with the hand at φ
    assert values["min_error"] == f"{gap:.3f}"
    assert values["outer"] == f"{LENGTHS[0] + LENGTHS[1]:.2f}"
