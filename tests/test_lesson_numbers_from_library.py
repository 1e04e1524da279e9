"""The lesson's numbers against the library: text items, tables and replays, no browser.

Each test failed on the main it was written against. Expected values come from the
library (``ikchain.solve``) or from geometry, never from the page's own numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import ikchain
from ikchain.lesson.frames import bend_of_pose
from ikchain.web.protocol import frame_reply

TWO = [0.8, 0.6]
THREE = [0.6, 0.45, 0.35]


def ask(**body):
    answer = frame_reply(json.dumps({"id": 5, **body}))
    assert answer["ok"] is True, answer
    return answer


# ------------------------------------------- 3: the replay is the solve the figure shows


@pytest.mark.parametrize(
    ("lengths", "method", "target", "bend"),
    [
        (TWO, "ccd", [1.0, 0.6], -1),
        (TWO, "fabrik", [-0.9, -0.3], 1),
        (THREE, "ccd", [0.9, 0.5], -1),
        (THREE, "fabrik", [0.9, 0.5], -1),
    ],
)
def test_replay_ends_on_the_figures_pose_with_the_chosen_bend(lengths, method, target, bend):
    """The figure's solve from the start pose (the cold frame, mirror step included)
    and the replay end on the same pose, bent the chosen way, after the same count."""
    body = {"lengths": lengths, "target": target, "method": method, "iterations": 64}
    frame = ask(**body, bend=bend)["frame"]
    assert bend_of_pose(frame["result"]["angles"]) == bend
    view = ask(kind="replay", **body, bend=bend)["replay"]
    np.testing.assert_allclose(
        view["steps"][-1]["joints"], frame["result"]["joints"], rtol=0, atol=1e-9
    )
    assert str(view["iterations"]) == frame["readings"]["iterations"]
    mirrors = [k for k, step in enumerate(view["steps"]) if step["mirror"]]
    assert len(mirrors) == 1  # this start ends bent the other way: one mirror step
    before, after = view["steps"][mirrors[0] - 1], view["steps"][mirrors[0]]
    # the mirror image reaches the target exactly as well, bending the other way
    assert after["readings"]["error"] == before["readings"]["error"]
    assert after["iteration"] == before["iteration"]
    # and the reply carries the figure's frame of that same solve
    np.testing.assert_allclose(
        view["frame"]["result"]["joints"], frame["result"]["joints"], rtol=0, atol=1e-12
    )


def test_replay_fits_its_step_cap_with_the_mirror_step():
    """The page asks for as many iterations as its step cap allows: with the mirror
    step the reply still fits (the panel offers one step less than the server's cap)."""
    from ikchain.lesson import replay
    from ikchain.lesson.content import page_context

    for block in (
        b for s in page_context("en")["sections"] for b in s["blocks"] if b["kind"] == "replay"
    ):
        offered = block["replay"]["max_steps"]
        for bones in (2, 3, 4):
            iterations = min(replay.MAX_REPLAY_ITERATIONS, (offered - 1) // bones)
            assert replay.steps_of(bones, iterations, "ccd", True) <= replay.MAX_REPLAY_STEPS
            ask(
                kind="replay",
                lengths=[1.4 / bones] * bones,
                target=[0.2, -0.9],
                method="ccd",
                iterations=iterations,
                bend=-1,
            )


# ----------------------------------------------- 4: the outcome map replaces one row


def test_outcome_map_is_the_librarys_status_and_reach_from_the_figures_start():
    """Each square's class is what the figure's "Solve from the start pose" gives there
    (the figure's budget, tolerance and start), and the map holds the contrast the
    text draws: squares CCD gets stuck on that DLS reaches."""
    from ikchain.lesson import limits, limits_page
    from ikchain.lesson.content import SECTIONS, figure_defaults, page_context

    found = limits_page.outcome_map_25()
    s25 = next(s for s in page_context("en")["sections"] if s["key"] == "s25")
    figure = next(b["figure"] for b in s25["blocks"] if b["kind"] == "figure")
    defaults = figure_defaults(next(s for s in SECTIONS if s.key == "s25"))
    assert found.iterations == defaults["iterations"] == figure["defaults"]["iterations"]
    assert found.tolerance == defaults["tolerance"]
    chain = ikchain.Chain(THREE, limits.limits_from_preset("arm", 3))
    rng = np.random.default_rng(15)
    size = found.codes["ccd"].shape[0]
    drawn = np.argwhere(found.codes["ccd"] >= 0)
    for row, col in drawn[rng.choice(len(drawn), 40, replace=False)]:
        target = found.centre(int(row), int(col))
        frame = ask(
            lengths=THREE,
            target=list(target),
            method="ccd",
            iterations=defaults["iterations"],
            tolerance=defaults["tolerance"],
            damping=1.0,
            limits=chain.limits.tolist(),
        )["frame"]
        least = float(ikchain.solve(chain, target, "ccd", max_iterations=0).min_error)
        expected = (
            "out"
            if least > 0
            else "reached"
            if frame["result"]["status"] == "converged"
            else "stuck"
        )
        assert found.outcome_at("ccd", target) == expected, (target, frame["result"]["status"])
    ccd, dls = found.codes["ccd"], found.codes["dls"]
    assert np.array_equal(ccd == 2, dls == 2)  # "out" is the chain's, not the method's
    assert np.sum((ccd == 1) & (dls == 0)) > 100  # CCD stuck where DLS reaches
    assert size * found.cell >= 2 * chain.outer_radius
    # drawn on the page, in both languages, with the budget in the caption
    for lang in ("en", "zh"):
        s25 = next(s for s in page_context(lang)["sections"] if s["key"] == "s25")
        chart = next(
            b["chart"]
            for b in s25["blocks"]
            if b["kind"] == "chart" and b["chart"]["id"] == "outcome-map-s25"
        )
        assert str(found.iterations) in chart["caption"]
        assert chart["svg"].count('class="outcome-stuck"') >= 1
    # Table ⑤a no longer rests a claim on the knife-edge target
    assert (1.0, -0.4) not in limits_page.LIMIT_TARGETS
    assert defaults["iterations"] == limits_page.LIMIT_ITERATIONS


# ------------------------------------------------------------ 6: the stall, drawn whole


def test_stall_frame_draws_the_line_from_tip_to_ring():
    frame = ask(lengths=TWO, target=[1.0, 0.0], method="ccd", init=[0.0, 0.0], iterations=64)[
        "frame"
    ]
    assert frame["result"]["status"] == "stalled"
    assert frame["gap"] is True
    assert frame["readings"]["tip"] == "(1.4000, 0.0000)"


def test_stall_replay_starts_from_the_stall_start():
    view = ask(
        kind="replay",
        lengths=TWO,
        target=[1.0, 0.0],
        method="ccd",
        init=[0.0, 0.0],
        iterations=64,
        bend=1,
    )["replay"]
    np.testing.assert_allclose(view["steps"][0]["joints"], [[0, 0], [0.8, 0], [1.4, 0]], atol=0)
    assert view["status"] == "stalled"


def test_stall_starts_table_is_the_librarys_and_the_text_says_what_it_shows():
    """Table ②d: from the all-zero pose all three stall; off the line CCD and FABRIK
    converge and DLS stalls; elbow bent, the other way round (as the text says)."""
    from ikchain.lesson.content import load_text, table_view
    from ikchain.lesson.tables import STALL_STARTS, STALL_TARGET, compute_tables

    table = compute_tables()["table-2-stall-starts"]
    outcomes = []
    for start, row in zip(STALL_STARTS, table.values, strict=True):
        statuses = row[1::2]
        for method, status, error in zip(
            ("ccd", "fabrik", "dls"), statuses, row[2::2], strict=True
        ):
            found = ikchain.solve(
                ikchain.Chain(TWO),
                STALL_TARGET,
                method,
                init=np.radians(start),
                max_iterations=64,
                tolerance=1e-9,
            )
            assert (status, error) == (str(found.status), found.error)
        outcomes.append(tuple(statuses))
    assert outcomes == [
        ("stalled", "stalled", "stalled"),
        ("converged", "converged", "stalled"),
        ("stalled", "stalled", "converged"),
    ]
    for lang in ("en", "zh"):
        text = load_text(lang)
        assert "②d" in table_view("table-2-stall-starts", text)["caption"]
        assert any("②d" in p for p in text["s22"]["stall"])


# ------------------------------------------------- 7: every Table ④ target is in view


def test_table_4_targets_lie_inside_the_24_figure():
    from ikchain.lesson.content import page_context
    from ikchain.lesson.figures import STYLE
    from ikchain.lesson.tables import compute_tables

    s24 = next(s for s in page_context("en")["sections"] if s["key"] == "s24")
    svg = next(b["figure"]["svg"] for b in s24["blocks"] if b["kind"] == "figure")
    extent = float(svg.split('data-extent="')[1].split('"')[0])
    for link in compute_tables()["table-4"].links:
        x, y = link["target"]
        assert max(abs(x), abs(y)) + 2 * STYLE["hit_r"] <= extent, link["target"]


# ------------------------------------- 9: every row link reproduces its row, or says why


def test_table_3_rows_converge_at_their_tolerance_and_links_carry_it():
    from ikchain.lesson.tables import compute_tables

    table = compute_tables()["table-3"]
    assert table.facts["t3_statuses"] == ["converged"] * 3
    for link, row in zip(table.links, table.values, strict=True):
        frame = ask(
            lengths=THREE,
            target=link["target"],
            method="ccd",
            init=link["init"],
            iterations=link["iterations"],
            tolerance=link["tolerance"],
            damping=1.0,
            bend=link["bend"],
        )["frame"]
        assert frame["result"]["status"] == "converged"
        assert frame["readings"]["error"] == ikchain.formatting.format_number(row[2], 6)


def test_table_2b_rows_beyond_the_cap_are_said_in_the_text():
    from ikchain.caps import CAPS
    from ikchain.lesson.content import load_text
    from ikchain.lesson.tables import compute_tables

    table = compute_tables()["table-2b"]
    capped = table.facts["capped"]
    assert len(capped) == 1 and capped[0]["sweeps"] > CAPS["max_iterations"]
    link = table.links[-1]
    frame = ask(
        lengths=TWO,
        target=link["target"],
        method="ccd",
        iterations=link["iterations"],
        tolerance=link["tolerance"],
        damping=1.0,
        bend=link["bend"],
    )["frame"]
    assert frame["result"]["status"] == "max_iterations"
    for lang in ("en", "zh"):
        said = " ".join(load_text(lang)["s22"]["t2b_live"])
        assert str(capped[0]["sweeps"]) in said and frame["readings"]["error"] in said


def test_rest_pull_budget_is_said_against_the_figures():
    from ikchain.lesson import rest
    from ikchain.lesson.content import load_text

    weak = rest.rest_facts()["weak_sweeps"]
    assert weak > 64  # the figure's budget is too small for it: the text must say so
    for lang in ("en", "zh"):
        said = " ".join(load_text(lang)["s25"]["rest"])
        assert str(weak) in said and "64" in said


# --------------------------------------------------------------- 10: the text items


def test_coordinates_within_rounding_of_the_chain_print_as_zero():
    """Table ①'s (0, 0.21) row: the closed form's tip x is rounding (-2.8e-17 m)."""
    frame = ask(lengths=TWO, target=[0.0, 0.21], method="analytic", bend=1)["frame"]
    tip = ikchain.solve(ikchain.Chain(TWO), [0.0, 0.21], "analytic").end
    assert 0 < abs(tip[0]) < 1e-15  # rounding, far below any digit the reading shows
    assert frame["readings"]["tip"] == "(0.0000, 0.2100)"
    from ikchain.lesson.content import page_context

    for lang in ("en", "zh"):
        for section in page_context(lang)["sections"]:
            for block in section["blocks"]:
                if block["kind"] == "table":
                    for row in block["table"]["rows"]:
                        for cell in row:
                            if cell.startswith("("):
                                assert "e-1" not in cell, (block["table"]["id"], cell)


def test_text_items_of_issue_15():
    from ikchain.lesson.content import load_text

    en, zh = load_text("en"), load_text("zh")
    for text in (en, zh):
        formula = text["s21"]["formula"]
        worked = next(k for k, p in enumerate(formula) if "0.96" in p)
        introduced = next(k for k, p in enumerate(formula) if "(1.4, 0)" in p)
        assert introduced < worked
        assert all("rest_weight" not in c for c in text["s25"]["rest_columns"])
    assert "as in 2.6" not in " ".join(en["s25"]["coherence"])
    assert "和 2.6 一样" not in " ".join(zh["s25"]["coherence"])
    raw = (Path(ikchain.__file__).parent / "lesson" / "text" / "zh.toml").read_text("utf-8")
    assert "初始姿态" not in raw and "起始姿态" in raw


def test_coherence_jumps_are_plotted():
    from ikchain.lesson.content import page_context

    for lang in ("en", "zh"):
        s25 = next(s for s in page_context(lang)["sections"] if s["key"] == "s25")
        ids = [b["chart"]["id"] for b in s25["blocks"] if b["kind"] == "chart"]
        assert "jumps-coherence" in ids
