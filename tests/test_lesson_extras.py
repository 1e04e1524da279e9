"""The replay, motion and chooser request kinds and blocks, without a browser: replay (and, later,
moving targets and section 2.5).

Expected values are derived independently: geometric properties of each step (bone
lengths kept, CCD's aim after a joint's turn), the error trace recorded by one solve
(``trace=True``) against the replay's poses, and plain distances.
"""

from __future__ import annotations

import itertools
import json
import math
import re

import numpy as np
import pytest
from starlette.testclient import TestClient

import ikchain
from ikchain.chain import Chain
from ikchain.lesson import limits, limits_page, motion, replay, rest
from ikchain.lesson.frames import SolveRequest
from ikchain.web.app import build_app
from ikchain.web.protocol import frame_reply

TWO = [0.8, 0.6]
THREE = [0.6, 0.45, 0.35]
#: Positions are compared to rounding of a few operations on metre-sized numbers.
TIGHT = 1e-12


def ask(**body):
    return frame_reply(json.dumps({"id": 3, **body}))


def replay_of(**body):
    answer = ask(kind="replay", **body)
    assert answer["ok"] is True, answer
    assert answer["id"] == 3
    return answer["replay"]


@pytest.fixture(scope="module")
def client():
    with TestClient(build_app(), base_url="http://127.0.0.1") as test_client:
        yield test_client


# ----------------------------------------------------------------------------- replay


@pytest.mark.parametrize("method", replay.REPLAY_METHODS)
@pytest.mark.parametrize("lengths", [TWO, THREE])
def test_replay_keeps_every_bone_length_and_measures_the_error_it_prints(method, lengths):
    target = [0.7, 0.55]
    view = replay_of(lengths=lengths, target=target, method=method, iterations=64)
    assert len(view["steps"]) >= 2
    for step in view["steps"]:
        joints = np.array(step["joints"])
        np.testing.assert_allclose(joints[0], [0.0, 0.0], atol=0)
        bones = np.hypot(*np.diff(joints, axis=0).T)
        np.testing.assert_allclose(bones, lengths, rtol=0, atol=3e-9)
        error = math.hypot(joints[-1][0] - target[0], joints[-1][1] - target[1])
        # half the printed figure's last digit (6 decimals), plus the drawn tip's
        # rounding (replay.JOINT_DECIMALS): a true error on a rounding boundary prints
        # up while the one measured from the rounded tip falls just below it
        drawn = 2 * 10.0**-replay.JOINT_DECIMALS
        assert float(step["readings"]["error"]) == pytest.approx(error, abs=5e-7 + drawn)


@pytest.mark.parametrize("method", replay.REPLAY_METHODS)
def test_replay_poses_are_the_one_solves_poses(method):
    """The error after each whole iteration is the trace one run of the solve records."""
    chain = ikchain.Chain(THREE)
    target = np.array([0.9, 0.5])
    recorded = ikchain.solve(chain, target, method, max_iterations=40, trace=True)
    view = replay_of(lengths=THREE, target=target.tolist(), method=method, iterations=40)
    whole = [s for s in view["steps"] if s["joint"] in (None, 0)]
    assert [s["iteration"] for s in whole] == list(range(recorded.iterations + 1))
    errors = [math.hypot(*(np.array(s["joints"][-1]) - target)) for s in whole]
    np.testing.assert_allclose(errors, recorded.trace, rtol=0, atol=2e-9)
    drawn = 10.0**-replay.JOINT_DECIMALS  # drawn positions are rounded to this
    np.testing.assert_allclose(view["steps"][-1]["joints"], recorded.joints, rtol=0, atol=drawn)
    assert view["iterations"] == recorded.iterations
    assert view["status"] == str(recorded.status)


@pytest.mark.parametrize("method", ["ccd", "dls"])
def test_replay_honours_joint_limits_and_the_pull(method):
    """2.5's replay: the limited chain's every drawn pose keeps its joints within the
    limits (angles read back off the drawn joints), and the final pose is the one
    solve with the same limits gives; without the limits the same target breaks them."""
    bounds = limits.limits_from_preset("arm", 3)
    target = [0.2, -0.9]  # below the shoulder: the free chain bends past the limits
    view = replay_of(
        lengths=THREE, target=target, method=method, iterations=60, limits=bounds.tolist()
    )

    def angles_of(joints):
        bones = np.diff(np.array(joints), axis=0)
        absolute = np.arctan2(bones[:, 1], bones[:, 0])
        return np.concatenate(([absolute[0]], np.diff(absolute)))

    slack = 1e-6  # joints are drawn to a nanometre
    for step in view["steps"][1:]:
        relative = np.array([math.remainder(a, 2 * math.pi) for a in angles_of(step["joints"])])
        assert np.all(relative >= bounds[:, 0] - slack) and np.all(relative <= bounds[:, 1] + slack)
    held = ikchain.solve(ikchain.Chain(THREE, bounds), np.array(target), method, max_iterations=60)
    drawn = 10.0**-replay.JOINT_DECIMALS
    np.testing.assert_allclose(view["steps"][-1]["joints"], held.joints, rtol=0, atol=drawn)
    free = replay_of(lengths=THREE, target=target, method=method, iterations=60)
    outside = np.array(
        [math.remainder(a, 2 * math.pi) for a in angles_of(free["steps"][-1]["joints"])]
    )
    assert np.any((outside < bounds[:, 0] - 1e-3) | (outside > bounds[:, 1] + 1e-3))


def test_replay_with_the_pull_ends_where_the_pulled_solve_ends():
    rest = [0.3, 1.2, 0.9]
    view = replay_of(
        lengths=THREE, target=[0.4, 0.8], method="dls", iterations=60, rest=rest, rest_weight=1.0
    )
    pulled = ikchain.solve(
        ikchain.Chain(THREE),
        np.array([0.4, 0.8]),
        "dls",
        max_iterations=60,
        rest=rest,
        rest_weight=1.0,
    )
    drawn = 10.0**-replay.JOINT_DECIMALS
    np.testing.assert_allclose(view["steps"][-1]["joints"], pulled.joints, rtol=0, atol=drawn)
    plain = ikchain.solve(ikchain.Chain(THREE), np.array([0.4, 0.8]), "dls", max_iterations=60)
    assert np.max(np.abs(plain.joints - pulled.joints)) > 1e-2  # the pull made a difference


def test_replay_starts_from_the_slightly_bent_start_pose_not_the_drawn_one():
    start = ikchain.solvers.default_init(ikchain.Chain(TWO), -1)
    view = replay_of(lengths=TWO, target=[1.0, 0.6], method="ccd", iterations=64, bend=-1)
    expected = ikchain.kinematics.joints_from_angles(np.array(TWO), start[None, :])[0]
    np.testing.assert_allclose(view["steps"][0]["joints"], expected, rtol=0, atol=1e-9)
    assert view["steps"][0]["iteration"] == 0 and view["steps"][0]["joint"] is None


def test_ccd_joint_steps_aim_the_tip_at_the_target_from_the_joint_that_turned():
    """After joint j turns (damping 1, no limits), pivot j, tip and target are in line."""
    target = np.array([0.9, 0.5])
    view = replay_of(lengths=THREE, target=target.tolist(), method="ccd", iterations=30)
    turned = [s for s in view["steps"] if s["joint"] is not None]
    assert {s["joint"] for s in turned} == {0, 1, 2}
    for step in turned:
        joints = np.array(step["joints"])
        pivot, tip = joints[step["joint"]], joints[-1]
        to_tip, to_target = tip - pivot, target - pivot
        cross = to_tip[0] * to_target[1] - to_tip[1] * to_target[0]
        sine = cross / (np.hypot(*to_tip) * np.hypot(*to_target))
        assert abs(sine) <= 1e-7  # drawn joints are rounded to 1e-9 m
        assert to_tip @ to_target > 0
    # joint by joint: within sweep k, joints n-1 … 0 in that order
    for k in range(1, view["iterations"] + 1):
        assert [s["joint"] for s in turned if s["iteration"] == k] == [2, 1, 0]


def test_ccd_without_joint_steps_gives_whole_sweeps_only():
    view = replay_of(
        lengths=THREE, target=[0.9, 0.5], method="ccd", iterations=20, joint_steps=False
    )
    assert [s["iteration"] for s in view["steps"]] == list(range(view["iterations"] + 1))
    assert all(s["joint"] is None for s in view["steps"])


def test_smaller_damping_replays_more_iterations():
    body = {"lengths": TWO, "target": [1.0, 0.6], "method": "ccd", "joint_steps": False}
    full = replay_of(**body, iterations=200, damping=1.0)
    slow = replay_of(**body, iterations=200, damping=0.25)
    assert slow["iterations"] > full["iterations"]


def test_replay_cursor_moves_right_and_stays_in_the_plot():
    view = replay_of(lengths=TWO, target=[1.0, 0.6], method="ccd", iterations=64)
    xs = [s["x"] for s in view["steps"]]
    assert all(b > a for a, b in itertools.pairwise(xs))
    left, right, top, bottom = replay.plots.ERROR_CHART_MARGIN
    width, height = replay.plots.ERROR_CHART_SIZE
    for step in view["steps"]:
        assert left - 0.01 <= step["x"] <= width - right + 0.01
        assert top - 0.01 <= step["y"] <= height - bottom + 0.01
    assert view["chart"].startswith("<svg") and view["chart"].count("<polyline") == 1


def test_replay_labels_follow_the_language():
    zh = replay_of(lengths=TWO, target=[1.0, 0.6], method="dls", iterations=10, lang="zh")
    en = replay_of(lengths=TWO, target=[1.0, 0.6], method="dls", iterations=10, lang="en")
    assert "迭代" in zh["chart"] and "iteration" in en["chart"]


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"iterations": replay.MAX_REPLAY_ITERATIONS + 1}, "iterations: expected at most"),
        ({"iterations": None}, "iterations: expected a whole number"),
        ({"iterations": -1}, "max_iterations"),
        ({"iterations": 2.5}, "max_iterations"),
        ({"method": "analytic"}, f"method: expected one of {', '.join(replay.REPLAY_METHODS)} for"),
        ({"target": [[1.0, 0.5], [0.2, 0.3]]}, "target: expected one point"),
        ({"target": ["a", 0]}, "target"),
        ({"joint_steps": "yes"}, "joint_steps: expected true or false"),
        ({"lang": "fr"}, "lang: expected one of zh, en"),
        ({"lang": ["zh"]}, "lang: expected one of zh, en"),
        ({"smoothing": 0.5}, "request: expected keys among"),
        ({"lengths": [0.1] * 40}, "lengths: expected at most"),
    ],
)
def test_bad_replay_requests_get_a_message(changes, expected):
    body = {
        "kind": "replay",
        "lengths": TWO,
        "target": [1.0, 0.6],
        "method": "ccd",
        "iterations": 8,
    }
    body.update(changes)
    if body["iterations"] is None:
        del body["iterations"]
    answer = frame_reply(json.dumps({"id": 9, **body}))
    assert answer["ok"] is False and answer["id"] == 9
    assert expected in answer["error"]


def test_unknown_kind_is_refused_and_a_frame_still_works(client):
    answer = ask(kind="teleport", lengths=TWO, target=[1.0, 0.6])
    assert answer["ok"] is False and "kind: expected one of frame, replay" in answer["error"]
    assert ask(kind="frame", lengths=TWO, target=[1.0, 0.6], method="ccd")["ok"] is True
    response = client.post(
        "/api/frame", json={"kind": "replay", "lengths": TWO, "target": [1, 0.6]}
    )
    assert response.status_code == 400 and "iterations" in response.json()["error"]
    good = {"kind": "replay", "lengths": TWO, "target": [1, 0.6], "method": "dls", "iterations": 9}
    response = client.post("/api/frame", json=good)
    assert response.status_code == 200 and response.json()["replay"]["status"] == "converged"


def test_replay_over_the_websocket(client):
    with client.websocket_connect("ws://127.0.0.1/ws") as socket:
        socket.send_text(
            json.dumps({"id": 1, "kind": "replay", "lengths": TWO, "target": [1, 0.6]})
        )
        assert socket.receive_json()["ok"] is False
        body = {"id": 2, "kind": "replay", "lengths": TWO, "target": [1, 0.6], "method": "ccd"}
        socket.send_text(json.dumps({**body, "iterations": 12}))
        answer = socket.receive_json()
        assert answer["id"] == 2 and answer["ok"] and answer["replay"]["steps"]


def test_page_has_a_replay_panel_with_the_default_solves_chart(client):
    for lang in ("zh", "en"):
        html = client.get("/", params={"lang": lang}).text
        for fig in ("fig-s22", "fig-s23"):
            assert f'data-replay-for="{fig}"' in html
        assert html.count('class="ik-chart error-chart"') >= 2
        assert "/static/replay.js" in html


# ----------------------------------------------------------------------------- motion

MOTION = {"kind": "motion", "lengths": THREE, "path": "circle", "frames_per_lap": 60, "budget": 4}


def motion_of(**changes):
    answer = frame_reply(json.dumps({"id": 4, **MOTION, **changes}))
    assert answer["ok"] is True, answer
    return answer["motion"]


def test_paths_are_the_stated_shapes():
    chain = ikchain.Chain(TWO)
    circle = motion.targets_from_path("circle", 90)
    centre, radius = np.array(motion.CIRCLE["centre"]), motion.CIRCLE["radius"]
    np.testing.assert_allclose(np.hypot(*(circle - centre).T), radius, rtol=0, atol=1e-15)
    assert circle.shape == (90 * motion.LAPS, 2)
    for path in ("circle", "figure8"):
        d = np.hypot(*motion.targets_from_path(path, 120).T)
        assert np.all((d > chain.inner_radius) & (d < chain.outer_radius))
    jump = np.hypot(*motion.targets_from_path("jump", 40).T)
    outside = jump > chain.outer_radius
    assert outside.sum() == outside.size // 2
    assert np.all(jump[~outside] < chain.outer_radius)


@pytest.mark.parametrize("start", ["warm", "cold"])
def test_each_frame_is_one_budgeted_solve_from_the_stated_start(start):
    chain = ikchain.Chain(THREE)
    targets = motion.targets_from_path("figure8", 30)
    run = motion.track(chain, targets, "ccd", 3, start)
    for k in (0, 1, 17, 45):
        init = run.angles[k - 1] if (start == "warm" and k > 0) else None
        again = ikchain.solve(chain, targets[k], "ccd", init=init, max_iterations=3)
        np.testing.assert_array_equal(again.angles, run.angles[k])
        assert run.iterations[k] <= 3


def test_motion_reply_errors_are_the_drawn_tips_distance_to_the_targets():
    view = motion_of()
    targets = np.array(view["targets"])
    assert view["frames"] == len(targets) == 60 * motion.LAPS
    for m in ("ccd", "fabrik", "dls"):
        joints = np.array(view["methods"][m]["joints"])
        bones = np.hypot(*np.diff(joints, axis=1).transpose(2, 0, 1))
        drawn = 3 * 10.0**-motion.POSITION_DECIMALS  # drawn positions are rounded
        np.testing.assert_allclose(bones, np.broadcast_to(THREE, bones.shape), atol=drawn)
        error = np.hypot(*(joints[:, -1] - targets).T)
        printed = np.array([float(e) for e in view["methods"][m]["errors"]])
        np.testing.assert_allclose(printed, error, rtol=1e-3, atol=drawn)
    assert len(view["cursor"]) == view["frames"]
    assert view["chart"].count('class="series"') == 3


def test_tracking_claims_of_the_text_hold():
    """2.6 says: DLS stays on the target, CCD trails behind, more so when it is faster."""
    chain = ikchain.Chain(THREE)
    fast = motion.summary(motion.track(chain, motion.targets_from_path("circle", 60), "ccd", 4), 60)
    slow = motion.summary(
        motion.track(chain, motion.targets_from_path("circle", 240), "ccd", 4), 240
    )
    dls = motion.summary(motion.track(chain, motion.targets_from_path("circle", 60), "dls", 4), 60)
    assert fast["mean_error"] > slow["mean_error"] > dls["mean_error"]
    assert dls["on_target"] == 1.0 and dls["worst_error"] < 1e-6
    assert fast["on_target"] < 1.0


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"path": "spiral"}, "path: expected one of circle, figure8, jump"),
        ({"path": ["circle"]}, "path: expected one of"),
        ({"start": "hot"}, "start: expected one of warm, cold"),
        ({"frames_per_lap": 7}, "frames_per_lap: expected a whole number from 8 to"),
        ({"frames_per_lap": motion.MAX_FRAMES_PER_LAP + 1}, "frames_per_lap: expected"),
        ({"frames_per_lap": 60.5}, "frames_per_lap: expected"),
        ({"frames_per_lap": True}, "frames_per_lap: expected"),
        ({"budget": 0}, "budget: expected a whole number from 1 to"),
        ({"budget": 10**9}, "budget: expected"),  # 10**30: refused by decode() (no id)
        ({"lengths": [0.1] * 33}, "lengths: expected at most"),
        ({"lengths": [0.1, -1]}, "lengths"),
        ({"lengths": "long"}, "lengths: expected a list"),
        ({"lengths": [0.05] * 32, "frames_per_lap": 240, "budget": 64}, "motion: expected bones"),
        ({"target": [1, 1]}, "request: expected keys among"),
        ({"lang": "de"}, "lang: expected one of"),
    ],
)
def test_bad_motion_requests_get_a_message(changes, expected):
    answer = frame_reply(json.dumps({"id": 5, **MOTION, **changes}))
    assert answer["ok"] is False and answer["id"] == 5
    assert expected in answer["error"]


def test_motion_over_http_and_the_page_section(client):
    response = client.post("/api/frame", json={**MOTION, "path": "jump"})
    assert response.status_code == 200 and response.json()["motion"]["path"] == "jump"
    assert client.post("/api/frame", json={**MOTION, "budget": -1}).status_code == 400
    for lang in ("zh", "en"):
        html = client.get("/", params={"lang": lang}).text
        assert 'id="s26"' in html and 'id="motion-player"' in html
        assert 'id="table-motion-tracking"' in html and "/static/motion.js" in html
        # one player; 2.5 links to it with its preset
        assert html.count('class="motion"') == 1
        assert 'href="#motion-player" data-motion-preset="coherence"' in html


def test_one_motion_player_and_2_5_opens_it_with_its_own_settings():
    """Motion is shown by one player (2.6's); 2.5's fold on the frame before links to
    it with the settings its Table ⑤c and chart were computed on."""
    from ikchain.lesson.content import load_text, page_context

    for lang in ("zh", "en"):
        context = page_context(lang)
        blocks = [(s["key"], b) for s in context["sections"] for b in s["blocks"]]
        players = [b["motion"] for _, b in blocks if b["kind"] == "motion"]
        assert [p["id"] for p in players] == [motion.MOTION_PLAYER["id"]]
        links = [(key, b["link"]) for key, b in blocks if b["kind"] == "motion-link"]
        assert [(key, link["preset"]) for key, link in links] == [("s25", "coherence")]
        link = links[0][1]
        assert link["player"] == players[0]["id"]
        preset = players[0]["presets"]["coherence"]
        assert {k: preset[k] for k in motion.MOTION_PRESETS["coherence"]} == (
            motion.MOTION_PRESETS["coherence"]
        )
        assert preset["start"] == "cold" and preset["path"] == "figure8"
        words = load_text(lang)["motion"]
        assert words["start_cold"] in link["label"] and words["path_figure8"] in link["label"]
        assert str(preset["budget"]) in link["label"]
        # every setting the player offered before is still a control of the one player
        assert set(players[0]["controls"]) == {"path", "speed", "budget", "start", "show"}
        assert len(players[0]["shown"]) <= 3


# ----------------------------------------------------------------- 2.5: joint limits

ARM3 = limits.limits_from_preset("arm", 3)


def frame_of(**body):
    answer = frame_reply(json.dumps({"id": 6, "lengths": THREE, "method": "ccd", **body}))
    assert answer["ok"] is True, answer
    return answer["frame"]


def _numbers(path: str) -> list[float]:
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", path)]


def test_limited_frame_stays_inside_and_draws_a_wedge_at_every_joint():
    frame = frame_of(target=[0.9, 0.5], limits=ARM3.tolist(), iterations=64)
    angles = np.array(frame["result"]["angles"])
    assert np.all(angles >= ARM3[:, 0]) and np.all(angles <= ARM3[:, 1])
    joints = np.array(frame["result"]["joints"])
    arcs = frame["limits"]["arcs"]
    assert len(arcs) == 3
    for i, d in enumerate(arcs):
        values = _numbers(d)
        centre, start, end = values[0:2], values[2:4], values[-2:]
        np.testing.assert_allclose(centre, joints[i], atol=1e-5)
        # the bone before joint i, read off the drawn joints (+x for the root)
        before = joints[i] - joints[i - 1] if i else np.array([1.0, 0.0])
        parent = math.atan2(before[1], before[0])
        for point, bound in ((start, ARM3[i, 0]), (end, ARM3[i, 1])):
            offset = np.subtract(point, joints[i])
            assert np.hypot(*offset) == pytest.approx(limits.ARC_RADIUS, abs=2e-5)
            turn = math.remainder(math.atan2(offset[1], offset[0]) - parent - bound, 2 * math.pi)
            assert abs(turn) < 1e-3


def test_free_frame_has_no_limits_layer():
    assert frame_of(target=[0.9, 0.5])["limits"] is None


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"limits": [[0.5, -0.5], [0, 1], [0, 1]]}, "limits: expected min <= max"),
        ({"limits": [[0, 1]]}, "limits: expected shape (3, 2)"),
        ({"limits": "tight"}, "limits"),
        ({"limits": ARM3.tolist(), "init": [3.0, 0.0, 0.0]}, "init"),
    ],
)
def test_bad_limits_get_a_message(changes, expected):
    body = {"id": 8, "lengths": THREE, "target": [0.9, 0.5], "method": "ccd", **changes}
    answer = frame_reply(json.dumps(body))
    assert answer["ok"] is False and expected in answer["error"]


def test_fabrik_frames_take_the_limits():
    """A FABRIK frame on the limited chain is solved within the limits (no refusal)."""
    body = {"id": 8, "lengths": THREE, "target": [0.9, 0.5], "method": "fabrik"}
    answer = frame_reply(json.dumps({**body, "limits": ARM3.tolist()}))
    assert answer["ok"] is True
    angles = np.array(answer["frame"]["result"]["angles"])
    assert np.all(angles >= ARM3[:, 0]) and np.all(angles <= ARM3[:, 1])


def test_limits_table_matches_its_claims():
    from ikchain.lesson.content import load_text

    text = load_text("en")

    class S25:
        key = "s25"

    table = limits_page.limits_table("", S25, text, None)["table"]
    assert table["caption"].startswith("Table ⑤a")
    # which method gets stuck where is the outcome map's claim (test_lesson_numbers_from_library)
    for _target, free, inside, held, ccd_error, _dls_error in table["values"]:
        held = np.array(held)
        assert np.all(held >= ARM3[:, 0] - 1e-12) and np.all(held <= ARM3[:, 1] + 1e-12)
        free = np.array(free)
        assert inside == bool(np.all((free >= ARM3[:, 0]) & (free <= ARM3[:, 1])))
        if inside:  # the free answer is allowed: the limited chain reaches the target too
            assert ccd_error < 1e-9


def test_coherence_table_cold_starts_jump_warm_ones_do_not():
    from ikchain.lesson.content import load_text

    class S25:
        key = "s25"

    table = motion.coherence_table("coherence", S25, load_text("zh"), None)["table"]
    rows = {(m, start): (jump, big) for m, start, jump, big, _ in table["values"]}
    for method in motion.MOTION_METHODS:
        assert rows[(method, "warm")][1] == 0 and rows[(method, "warm")][0] < motion.JUMP_DEGREES
        assert rows[(method, "cold")][1] >= 1


def test_page_has_section_25(client):
    for lang in ("zh", "en"):
        html = client.get("/", params={"lang": lang}).text
        assert 'id="s25"' in html and 'id="fig-s25-choose"' in html
        assert 'class="limits-layer"' in html and html.count('<path class="limit-arc') == 3
        for table in ("table-limits", "table-limits-reach", "table-rest", "table-motion-coherence"):
            assert f'id="{table}"' in html
        assert html.index('id="s24"') < html.index('id="s25"') < html.index('id="s26"')


def test_cli_prints_the_tables_of_25_and_26(capsys):
    from ikchain.cli import main

    assert main(["tables", "--section", "2.5", "--lang", "en"]) in (0, None)
    out = capsys.readouterr().out
    assert "table-limits:" in out and "table-motion-coherence:" in out
    assert main(["tables", "--section", "2.6", "--format", "json"]) in (0, None)
    tables = json.loads(capsys.readouterr().out)
    assert [t["id"] for t in tables] == ["table-motion-tracking"]


@pytest.mark.parametrize("lengths", [TWO, THREE, [0.5, 0.4, 0.3, 0.2]])
def test_replay_and_motion_replies_stay_within_their_bound_and_the_cap(lengths):
    """The bounds checked before any work hold for the largest requests the page makes."""
    from ikchain.caps import CAPS

    n = len(lengths)
    # the page offers one step less than the cap: one is kept for the mirror step
    iterations = min(replay.MAX_REPLAY_ITERATIONS, (replay.MAX_REPLAY_STEPS - 2) // n)
    body = {"kind": "replay", "lengths": lengths, "method": "ccd", "iterations": iterations}
    answer = frame_reply(json.dumps({**body, "target": [sum(lengths) * 0.999, 0.0]}))
    assert answer["ok"], answer
    size = len(json.dumps(answer, separators=(",", ":"), ensure_ascii=False).encode())
    bound = replay.reply_bytes_bound(n, replay.steps_of(n, iterations, "ccd", True))
    assert size <= bound <= CAPS["max_reply_bytes"]
    refused = frame_reply(json.dumps({**body, "target": [1.0, 0.1], "iterations": iterations + 1}))
    assert refused["ok"] is False and "replay: expected at most" in refused["error"]
    if n <= 3:
        motion_body = {**MOTION, "lengths": lengths, "frames_per_lap": 240, "budget": 64}
        answer = frame_reply(json.dumps({**motion_body, "start": "cold", "path": "figure8"}))
        assert answer["ok"], answer
        size = len(json.dumps(answer, separators=(",", ":"), ensure_ascii=False).encode())
        assert size <= motion.reply_bytes_bound(n, 480) <= CAPS["max_reply_bytes"]


# ------------------------------------------------------------- 2.5: preferred pose

REST3 = np.radians(rest.REST_POSES_DEG[3])


def test_frame_with_a_rest_pose_reaches_the_target_nearer_the_rest_pose():
    plain = frame_of(target=[0.4, 0.8], method="dls", iterations=64)
    pulled = frame_of(
        target=[0.4, 0.8], method="dls", iterations=64, rest=REST3.tolist(), rest_weight=1.0
    )
    for frame in (plain, pulled):
        assert frame["result"]["error"] <= 1e-9

    def gap(frame):
        d = np.array(frame["result"]["angles"]) - REST3
        return np.max(np.abs((d + np.pi) % (2 * np.pi) - np.pi))

    assert gap(pulled) < gap(plain)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"method": "ccd", "rest": REST3.tolist()}, "rest"),
        ({"method": "dls", "rest": [0.1, 0.2]}, "rest"),
        ({"method": "dls", "rest": REST3.tolist(), "rest_weight": -1}, "rest_weight"),
        ({"method": "dls", "rest_weight": 1.0}, "rest_weight"),
        ({"method": "dls", "rest": "relaxed"}, "rest"),
    ],
)
def test_bad_rest_requests_get_a_message(changes, expected):
    body = {"id": 2, "lengths": THREE, "target": [0.4, 0.8], **changes}
    answer = frame_reply(json.dumps(body))
    assert answer["ok"] is False and expected in answer["error"]


def test_rest_table_matches_its_claims():
    from ikchain.lesson.content import load_text

    class S25:
        key = "s25"

    text = load_text("en")
    table = rest.rest_table("", S25, text, None)["table"]
    # the caption names the rest pose the table used
    assert ", ".join(f"{a:g}°" for a in rest.REST_POSES_DEG[3]) in table["caption"]
    by_target: dict = {}
    for target, weight, angles, gap, error, iterations in table["values"]:
        assert error <= 1e-9  # the pull never costs the target
        by_target.setdefault(tuple(target), {})[weight] = (np.array(angles), gap, iterations)
    for rows in by_target.values():
        none, weak, strong = (rows[w] for w in rest.REST_WEIGHTS)
        assert weak[1] <= none[1] + 1e-9 and strong[1] <= none[1] + 1e-9
        assert abs(weak[1] - strong[1]) < 0.5  # same pose, whatever the weight
        assert strong[2] < weak[2]  # the stronger pull gets there in fewer iterations
    assert any(rows[0.0][1] - rows[1.0][1] > 20 for rows in by_target.values())


def test_limits_in_the_text_are_the_presets():
    from ikchain.lesson.content import load_text

    arm = limits.PRESETS["arm"]
    for lang in ("zh", "en"):
        label = load_text(lang)["choose"]["limits_arm"]
        for value in (*arm["root"], *arm["joint"]):
            assert f"{value:g}°".replace("-", "−") in label


def test_25_text_names_the_buttons_as_the_page_labels_them():
    from ikchain.lesson.content import load_text

    for lang, quote in (("zh", "「{}」"), ("en", "“{}”")):
        text = load_text(lang)
        assert quote.format(text["controls"]["cold"]) in " ".join(text["s25"]["rest"])
        assert quote.format(text["choose"]["rest"]) in " ".join(text["s25"]["rest"])


# ------------------------------------------------------------------------ caps

#: The README's caps, spelled out (never read from the modules that enforce them).
README_MAX_REPLY_BYTES = 262_144
README_MOTION_WORK = 280_000


def test_a_replay_whose_reply_would_exceed_the_reply_cap_is_refused_before_work():
    """32 bones, FABRIK, 200 iterations toward (0.999, 0): run directly, the replay is
    over 262,144 bytes (the README's max_reply_bytes), so the server refuses it before
    any work; 16 bones, the same replay fits and is served within the cap."""
    base = {"kind": "replay", "method": "fabrik", "iterations": 200, "tolerance": 1e-300}
    sizes = {}
    for n in (16, 32):
        chain = Chain([1.0 / n] * n)
        request = SolveRequest(chain, np.array([0.999, 0.0]), "fabrik", base_options())
        view = replay.replay_from_request(request, joint_steps=True, lang="en")
        sizes[n] = len(json.dumps({"ok": True, "replay": view}, separators=(",", ":")).encode())
    assert sizes[32] > README_MAX_REPLY_BYTES >= sizes[16]
    for n in (16, 32):
        body = {**base, "lengths": [1.0 / n] * n, "target": [0.999, 0.0]}
        answer = frame_reply(json.dumps(body))
        if n == 32:
            assert answer["ok"] is False and "reply within 262,144 bytes" in answer["error"]
        else:
            assert answer["ok"], answer
            size = len(json.dumps(answer, separators=(",", ":"), ensure_ascii=False).encode())
            assert size <= README_MAX_REPLY_BYTES


def base_options() -> dict[str, float | int]:
    return {"max_iterations": 200, "tolerance": 1e-300, "bend": 1}


@pytest.mark.parametrize(
    ("bones", "frames_per_lap", "budget"),
    [
        (4, 182, 64),  # 4 × 364 × 64 × 3 = 279,552 <= 280,000: served
        (4, 183, 64),  # 4 × 366 × 64 × 3 = 281,088 > 280,000: refused
    ],
)
def test_the_motion_work_cap_is_the_readmes(bones, frames_per_lap, budget):
    """bones × frames × iterations × 3 methods <= 280,000 (README), frames being two
    laps of ``frames_per_lap``: both sides of the boundary."""
    work = bones * 2 * frames_per_lap * budget * 3
    lengths = [0.6, 0.45, 0.35, 0.25][:bones]
    body = {**MOTION, "lengths": lengths, "frames_per_lap": frames_per_lap, "budget": budget}
    answer = frame_reply(json.dumps(body))
    if work <= README_MOTION_WORK:
        assert answer["ok"], answer
    else:
        assert answer["ok"] is False and "bones × frames × budget × methods" in answer["error"]
