"""Section 2.5's reach under joint limits, as the lesson shows it: the shaded set,
the readings, Table ⑤b and the text.

The library's ``min_error`` (a batch solve with zero iterations) is the one source of
reach facts, so the checks hold the lesson to it: the shaded cells agree with it at
their centres, fresh solves reproduce Table ⑤b. Independently of it, the tips of
random poses inside the limits (plain forward kinematics here) must land in shaded
cells, except within one cell of the shading's edge.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from starlette.testclient import TestClient

import ikchain
from ikchain.formatting import format_number
from ikchain.lesson import limits, limits_page
from ikchain.lesson.content import SECTIONS, load_text
from ikchain.lesson.tables import LENGTHS_BY_BONES
from ikchain.web.app import build_app
from ikchain.web.protocol import frame_reply

S25 = next(section for section in SECTIONS if section.key == "s25")


@pytest.fixture(scope="module")
def client():
    with TestClient(build_app(), base_url="http://127.0.0.1") as test_client:
        yield test_client


def arm(bones: int) -> ikchain.Chain:
    return ikchain.Chain(LENGTHS_BY_BONES[bones], limits.limits_from_preset("arm", bones))


def library_shaded(chain: ikchain.Chain, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """In W by the library (min_error 0), and certified, at ``points``."""
    found = ikchain.solve(chain, points, method="ccd", max_iterations=0)
    return np.asarray(found.min_error) == 0.0, np.asarray(found.certified)


def near_edge(shaded: np.ndarray) -> np.ndarray:
    """Cells within one cell of the shading's edge: their 3 × 3 block holds both values."""
    padded = np.pad(shaded, 1, mode="edge")
    rows, cols = shaded.shape
    blocks = [padded[dy : dy + rows, dx : dx + cols] for dy in range(3) for dx in range(3)]
    return np.any(blocks, axis=0) & ~np.all(blocks, axis=0)


@pytest.mark.parametrize("bones", [2, 3, 4])
def test_shaded_cells_agree_with_min_error_at_their_centres(bones):
    """Every classified cell is shaded exactly when the library puts its centre in W
    (certified ones; the few uncertified count in ``uncertified``). On a sample of all
    the finest cells, classified or inherited from a coarser one, a disagreement may
    only sit within one cell of the edge (measured: none)."""
    chain = arm(bones)
    grid = limits.reach_cells(chain)
    assert grid.cell == limits.CELL and grid.shaded.shape[0] * grid.cell == 2 * grid.half
    centres = grid.centres()
    rows, cols = np.nonzero(grid.evaluated)
    inside, certified = library_shaded(chain, centres[rows, cols])
    assert np.array_equal(grid.shaded[rows, cols][certified], inside[certified])
    assert np.sum(~certified) <= grid.uncertified
    rng = np.random.default_rng(bones)
    size = grid.shaded.shape[0]
    pick = rng.integers(0, size, size=(20_000, 2))
    inside, certified = library_shaded(chain, centres[pick[:, 0], pick[:, 1]])
    wrong = (grid.shaded[pick[:, 0], pick[:, 1]] != inside) & certified
    assert not np.any(wrong & ~near_edge(grid.shaded)[pick[:, 0], pick[:, 1]])
    assert np.sum(wrong) == 0  # measured; the rule above is what the text may promise


@pytest.mark.parametrize("bones", [2, 3, 4])
def test_shaded_set_holds_the_tips_of_random_poses_inside_the_limits(bones):
    """Tips of random poses within the limits (forward kinematics, written out here;
    a twentieth of them with every joint at a bound) lie in shaded cells, except
    within one cell of the edge: a tip in an unshaded cell must have W's edge inside
    that cell, i.e. the cell's centre no farther from W than from the tip (the tip is
    in W). The exceptions are few: thin slivers of W, such as the cusp where the
    straight arm at a bound touches the outer circle, narrower than a cell."""
    chain = arm(bones)
    lengths = np.array(LENGTHS_BY_BONES[bones])
    bounds = chain.limits
    grid = limits.reach_cells(chain)
    rng = np.random.default_rng(12 + bones)
    poses = rng.uniform(bounds[:, 0], bounds[:, 1], size=(20_000, bones))
    poses[:1000] = np.where(rng.random((1000, bones)) < 0.5, bounds[:, 0], bounds[:, 1])
    absolute = np.cumsum(poses, axis=1)
    tips = np.stack(
        [np.sum(lengths * np.cos(absolute), axis=1), np.sum(lengths * np.sin(absolute), axis=1)],
        axis=-1,
    )
    col, row = np.floor((tips + grid.half) / grid.cell).astype(int).T
    hit = grid.shaded[row, col]
    assert np.mean(hit[1000:]) > 0.95  # measured 0.984, 0.9997, 1.0 (2, 3, 4 bones)
    missed = ~hit
    centres = grid.centres()[row[missed], col[missed]]
    found = ikchain.solve(chain, centres, method="ccd", max_iterations=0)
    to_tip = np.hypot(*(tips[missed] - centres).T)
    assert np.all(to_tip <= grid.cell * np.sqrt(0.5) + 1e-12)
    assert np.all(np.asarray(found.min_error) > 0.0)  # unshaded: outside W at the centre
    assert np.all(np.asarray(found.min_error) <= to_tip + 1e-12)  # W's edge is in the cell


def _cells_from_path(path: str, size: int) -> np.ndarray:
    drawn = np.zeros((size, size), dtype=bool)
    for x, y, width, height in re.findall(r"M(\d+) (\d+)h(\d+)v(\d+)h-\d+z", path):
        x, y, width, height = int(x), int(y), int(width), int(height)
        drawn[y : y + height, x : x + width] = True
    return drawn


@pytest.mark.parametrize("bones", [2, 3, 4])
def test_the_drawn_path_is_the_shaded_cells(bones):
    chain = arm(bones)
    grid = limits.reach_cells(chain)
    path = limits.reach_path(chain)
    assert re.fullmatch(r"(M\d+ \d+h\d+v\d+h-\d+z)+", path)
    assert np.array_equal(_cells_from_path(path, grid.shaded.shape[0]), grid.shaded)
    numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", limits.reach_transform(chain))]
    assert numbers == [-grid.half, -grid.half, grid.cell]
    assert limits.reach_path(ikchain.Chain(LENGTHS_BY_BONES[bones])) == ""


def test_a_point_below_the_shoulder_is_not_shaded():
    chain = arm(3)
    grid = limits.reach_cells(chain)
    col, row = np.floor((np.array([0.2, -0.9]) + grid.half) / grid.cell).astype(int)
    assert not grid.shaded[row, col]


# ---------------------------------------------------------------------------- readings


def frame_of(target, **body):
    request = {
        "id": 1,
        "lengths": list(LENGTHS_BY_BONES[3]),
        "method": "ccd",
        "iterations": 64,
        "target": target,
        "limits": arm(3).limits.tolist(),
        **body,
    }
    answer = frame_reply(json.dumps(request))
    assert answer["ok"] is True, answer
    return answer["frame"]


def test_readings_say_no_and_how_far_for_a_target_below_the_shoulder():
    target = [0.0, -0.6]
    least = ikchain.solve(arm(3), target, method="ccd", max_iterations=0)
    assert least.certified and least.min_error > 0.3  # the library's own answer
    frame = frame_of(target)
    readings = frame["readings"]
    assert frame["result"]["reachable"] is False and readings["limits_reach"] == "no"
    assert readings["min_error"] == format_number(least.min_error, 6) == "0.315104"
    held = np.flatnonzero(frame["result"]["at_limit"])
    assert readings["held"] == ", ".join(
        f"{i}\u00a0({np.degrees(frame['result']['angles'][i]):.2f}°)" for i in held
    )
    assert frame["limits"]["at_limit"] == frame["result"]["at_limit"]
    for lang in ("zh", "en"):
        words = load_text(lang)["readings"]
        sentence = words["limited_no"].replace("%min_error%", readings["min_error"])
        assert "0.315104" in sentence and "%" not in sentence


def test_readings_say_yes_where_a_pose_within_the_limits_reaches():
    frame = frame_of([0.5, 0.0])
    assert frame["result"]["reachable"] is True and frame["readings"]["limits_reach"] == "yes"
    assert ikchain.solve(arm(3), [0.5, 0.0], method="ccd", max_iterations=0).min_error == 0.0


def test_free_frames_have_no_limit_readings():
    frame = frame_of([0.0, -0.6], limits=None)
    assert "limits_reach" not in frame["readings"] and frame["limits"] is None


def test_server_rendered_readings_of_the_default_state(client):
    """Scripts off, the 2.5 figure's default state says the reach under the limits."""
    frame = ikchain.solve(arm(3), list(S25.target), method="ccd", max_iterations=0)
    for lang in ("zh", "en"):
        words = load_text(lang)["readings"]
        html = client.get("/", params={"lang": lang}).text
        figure = html[html.index('id="fig-s25"') : html.index('id="fig-s25-choose"')]
        assert words["reachable_limited"] in figure
        expected = words["limited_yes"] if frame.reachable else words["limited_no"]
        assert f'data-reading="reachable">{expected}<' in figure
        assert 'data-reading="held"' in figure
        other = html[html.index('id="fig-s24"') : html.index('id="s25"')]
        assert words["reachable_limited"] not in other and 'data-reading="held"' not in other


# ------------------------------------------------------------------------------ ⑤b


def test_reach_table_targets_are_outside_the_limited_set_inside_the_circle():
    chain = arm(3)
    targets = np.array(limits_page.REACH_TARGETS)
    found = ikchain.solve(chain, targets, method="ccd", max_iterations=0)
    assert np.all(np.hypot(*targets.T) < chain.total_length)
    assert np.all(np.asarray(found.min_error) > 0.05) and np.all(found.certified)


def test_reach_table_reproduces_from_fresh_solves():
    chain = arm(3)
    text = load_text("en")
    table = limits_page.reach_table("", S25, text, None)["table"]
    assert table["id"] == "table-limits-reach" and table["caption"].startswith("Table ⑤b")
    assert len(table["rows"]) == len(limits_page.REACH_TARGETS)
    farther = {"ccd": False, "fabrik": False}
    for row, values, target in zip(
        table["rows"], table["values"], limits_page.REACH_TARGETS, strict=True
    ):
        least = ikchain.solve(chain, target, method="ccd", max_iterations=0)
        solved = {m: ikchain.solve(chain, target, method=m) for m in ("ccd", "fabrik", "dls")}
        assert values == [
            list(target),
            least.min_error,
            True,
            *(solved[m].error for m in ("ccd", "fabrik", "dls")),
            np.flatnonzero(solved["dls"].at_limit).tolist(),
        ]
        assert row[2] == format_number(least.min_error, 6)
        assert row[3:6] == [format_number(solved[m].error, 6) for m in ("ccd", "fabrik", "dls")]
        # the text's claims: DLS ends on the least distance; CCD and FABRIK may not
        assert abs(solved["dls"].error - least.min_error) < 1e-9
        assert solved["dls"].status == "unreachable"
        for m in farther:
            assert solved[m].error >= least.min_error - 1e-12
            farther[m] |= solved[m].error > least.min_error + 0.05
    assert all(farther.values())


def test_cli_prints_table_5b(capsys):
    from ikchain.cli import main

    assert main(["tables", "--section", "2.5", "--lang", "en"]) in (0, None)
    out = capsys.readouterr().out
    assert "table-limits-reach: Table ⑤b" in out and "table-limits: Table ⑤a" in out
    rows = limits_page.reach_table("", S25, load_text("en"), None)["table"]["rows"]
    for row in rows:
        assert all(cell in out for cell in row)


# ---------------------------------------------------------------------------- text


NEW_KEYS = {
    "readings": (
        "reachable_limited",
        "limited_yes",
        "limited_no",
        "limited_no_bound",
        "held",
        "held_none",
    ),
    "s25": ("reach", "reach_caption", "reach_columns"),
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_both_languages_have_every_new_key(lang):
    text = load_text(lang)
    for group, keys in NEW_KEYS.items():
        for key in keys:
            assert text[group][key], (lang, group, key)
    assert len(text["s25"]["reach_columns"]) == 7
    for key in ("limited_no", "limited_no_bound"):
        assert text["readings"][key].count("%min_error%") == 1
    words = " ".join(text["s25"]["intro"] + text["s25"]["reach"])
    assert "min_error" in words and f"{limits.CELL * 1000:g} mm" in words
    assert "⑤b" in words and "max(0, d − ΣL, inner − d)" in words


def test_the_limit_readings_are_all_the_page_can_be_told():
    """Every limits_reach code the frames produce has a sentence in both languages."""
    for lang in ("zh", "en"):
        words = load_text(lang)["readings"]
        for code in ("yes", "no", "no_bound"):
            assert f"limited_{code}" in words
