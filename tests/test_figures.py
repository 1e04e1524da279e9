"""Server-drawn SVG: well-formed, the frame's numbers placed exactly, the structure the
page script updates, and the convergence chart."""

from __future__ import annotations

import itertools
import math
import re
import xml.etree.ElementTree as ET
from importlib import resources
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ikchain.lesson import figures

NS = {"svg": "http://www.w3.org/2000/svg"}


def parse(markup: str) -> ET.Element:
    return ET.fromstring(markup)


def by_class(root: ET.Element, name: str) -> list[ET.Element]:
    return [el for el in root.iter() if name in (el.get("class") or "").split()]


def one(root: ET.Element, name: str) -> ET.Element:
    found = by_class(root, name)
    assert len(found) == 1, f"expected one .{name}, got {len(found)}"
    return found[0]


def frame(joints: list[list[float]], target: list[float], *, inner: float = 0.2) -> dict[str, Any]:
    outer = sum(math.dist(a, b) for a, b in itertools.pairwise(joints))
    reachable = inner <= math.hypot(*target) <= outer
    return {
        "result": {
            "joints": joints,
            "end": joints[-1],
            "target": target,
            "reachable": reachable,
            "status": "converged" if reachable else "unreachable",
        },
        "reach": {"inner": inner, "outer": outer},
        "readings": {"target": f"({target[0]:.4f}, {target[1]:.4f})"},
        "gap": not reachable,
        "family": None,
        "settled": True,
    }


TWO_BONES = frame([[0.0, 0.0], [0.8, 0.0], [0.8, 0.6]], [0.8, 0.6])
#: An ellipse view as frames.ellipse_view gives it (numbers only placed here).
ELLIPSE = {
    "centre": [0.8, 0.6],
    "radii": [0.25, 0.1],
    "rotation": 30.0,
    "axis": [
        [0.8 - 0.25 * math.cos(math.pi / 6), 0.6 - 0.125],
        [0.8 + 0.25 * math.cos(math.pi / 6), 0.725],
    ],
    "sigma": [1.25, 0.5],
    "scale": 0.2,
}


def test_figure_is_well_formed_svg_with_its_ids() -> None:
    root = parse(figures.svg_from_frame(TWO_BONES, figure_id="fig-s21", title="2.1 <a & b>"))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("id") == "fig-s21-svg"
    assert root.get("data-figure") == "fig-s21"
    title = root.find("svg:title", NS)
    assert title is not None and title.text == "2.1 <a & b>"
    assert title.get("id") == "fig-s21-title"
    world = one(root, "world")
    assert world.get("transform") == "scale(1,-1)"


def test_every_layer_the_script_updates_is_there_once() -> None:
    root = parse(figures.svg_from_frame(TWO_BONES, figure_id="f"))
    for name in (
        "reach-outer",
        "reach-inner",
        "gap",
        "bones",
        "joints",
        "root",
        "tip",
        "pointer",
        "target",
        "target-hit",
        "target-ring",
    ):
        one(root, name)
    # Without the script nothing moves the ring: no Tab stop, no slider role (the
    # script adds them, with the value text, when it runs).
    target = one(root, "target")
    for name in ("tabindex", "role", "aria-valuetext", "aria-keyshortcuts"):
        assert target.get(name) is None, name


def test_script_selectors_exist_in_server_markup() -> None:
    """lesson.js updates the server's elements; every class it looks up is drawn here."""
    script = (resources.files("ikchain.web") / "static" / "lesson.js").read_text("utf-8")
    wanted = set(re.findall(r'q\("(?:[a-z]+)?\.([a-z-]+)"\)', script))
    assert {"bones", "tip", "target-ring", "gap"} <= wanted
    root = parse(figures.svg_from_frame(TWO_BONES, figure_id="f"))
    classes = {c for el in root.iter() for c in (el.get("class") or "").split()}
    # 2.2's manipulability ellipse is drawn only in the figure that asks for it (the
    # script updates it where it is there): every other class is in every figure
    ellipse = {"ellipse", "ellipse-shape", "ellipse-axis"}
    # and 2.8's wrist and hand only in the figure whose frame has a hand
    hand = {"wrist-reach", "hand", "hand-line", "hand-arrow", "wrist-point"}
    assert ellipse <= wanted and hand <= wanted
    assert wanted - ellipse - hand <= classes and not (ellipse | hand) & classes
    with_ellipse = {**TWO_BONES, "ellipse": ELLIPSE}
    root = parse(figures.svg_from_frame(with_ellipse, figure_id="f", ellipse=True))
    classes = {c for el in root.iter() for c in (el.get("class") or "").split()}
    assert wanted - hand <= classes
    hand_view = {"wrist": [0.5, 0.3], "inner": 0.15, "outer": 1.05, "knob": [0.9, 0.9]}
    root = parse(figures.svg_from_frame({**TWO_BONES, "hand": hand_view}, figure_id="f"))
    classes = {c for el in root.iter() for c in (el.get("class") or "").split()}
    assert wanted - ellipse <= classes


def test_numbers_are_placed_exactly() -> None:
    joints = [[0.0, 0.0], [0.1 + 0.2, -1 / 3], [math.pi / 3, 2**-30], [1.1, 1e-17]]
    target = [1.1 + 1e-12, -0.0]
    root = parse(figures.svg_from_frame(frame(joints, target), figure_id="f"))
    points = [[float(v) for v in p.split(",")] for p in one(root, "bones").get("points").split()]
    assert points == joints
    tip = one(root, "tip")
    assert [float(tip.get("cx")), float(tip.get("cy"))] == joints[-1]
    for name in ("target-ring", "target-hit"):
        ring = one(root, name)
        assert [float(ring.get("cx")), float(ring.get("cy"))] == target
    inner = [(float(c.get("cx")), float(c.get("cy"))) for c in by_class(root, "joint")]
    assert inner == [tuple(p) for p in joints[1:-1]]
    assert [c.get("data-index") for c in by_class(root, "joint")] == ["1", "2"]


@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
def test_number_text_reads_back_to_the_same_float(value: float) -> None:
    assert float(figures._num(value)) == value or value == 0.0


def test_view_leaves_room_beyond_reach() -> None:
    root = parse(figures.svg_from_frame(TWO_BONES, figure_id="f"))
    x, y, w, h = (float(v) for v in root.get("viewBox").split())
    half = figures.VIEW_MARGIN * TWO_BONES["reach"]["outer"]
    assert (x, y, w, h) == pytest.approx((-half, -half, 2 * half, 2 * half))
    assert float(root.get("data-extent")) == pytest.approx(half)
    assert half > 2.0  # Table 4's far row, d = 2.0, fits on the default chain's figure
    root = parse(figures.svg_from_frame(TWO_BONES, figure_id="f", extent=3.0))
    assert root.get("viewBox") == "-3 -3 6 6"


def test_gap_and_inner_circle_follow_the_frame() -> None:
    inside = parse(figures.svg_from_frame(TWO_BONES, figure_id="f"))
    assert one(inside, "gap").get("visibility") == "hidden"
    assert one(inside, "reach-inner").get("visibility") is None
    assert float(one(inside, "reach-outer").get("r")) == pytest.approx(1.4)

    far = frame([[0.0, 0.0], [0.8, 0.0], [1.4, 0.0]], [2.0, 0.0])
    outside = parse(figures.svg_from_frame(far, figure_id="f"))
    gap = one(outside, "gap")
    assert gap.get("visibility") is None
    assert [float(gap.get(k)) for k in ("x1", "y1", "x2", "y2")] == [1.4, 0.0, 2.0, 0.0]

    no_inner = frame([[0.0, 0.0], [0.7, 0.0], [1.4, 0.0]], [1.4, 0.0], inner=0.0)
    root = parse(figures.svg_from_frame(no_inner, figure_id="f"))
    assert one(root, "reach-inner").get("visibility") == "hidden"


def test_four_bones_draw_three_inner_joints() -> None:
    joints = [[0.0, 0.0], [0.4, 0.0], [0.7, 0.2], [0.9, 0.4], [1.0, 0.6]]
    root = parse(figures.svg_from_frame(frame(joints, [1.0, 0.6]), figure_id="f"))
    assert len(by_class(root, "joint")) == 3


def test_bad_frames_are_refused() -> None:
    joints = [[0.0, 0.0], [0.8, 0.0], [0.8, math.nan]]
    bad = {**TWO_BONES, "result": {**TWO_BONES["result"], "joints": joints}}
    with pytest.raises(ValueError, match="finite"):
        figures.svg_from_frame(bad, figure_id="f")
    flat = {**TWO_BONES, "reach": {"inner": 0.0, "outer": 0.0}}
    with pytest.raises(ValueError, match="positive outer reach"):
        figures.svg_from_frame(flat, figure_id="f")


# ----------------------------------------------------------------------------- chart

CHART = {
    "id": "chart-2b",
    "caption": "Iterations to 1e-9",
    "x_label": "d/ΣL",
    "y_label": "iterations (log)",
    "series": [
        {"method": "ccd", "label": "CCD", "points": [[0.75, 24], [0.95, 147], [0.999, None]]},
        {"method": "fabrik", "label": "FABRIK", "points": [[0.75, 5], [0.95, 46], [0.999, 1729]]},
        {"method": "dls", "label": "Damped <least> squares", "points": [[0.75, 6], [0.999, 4]]},
    ],
}


def series_points(root: ET.Element) -> dict[str, list[tuple[float, float]]]:
    out = {}
    for group in by_class(root, "series"):
        line = group.find("svg:polyline", NS)
        out[group.get("data-method")] = [
            tuple(float(v) for v in p.split(",")) for p in line.get("points").split()
        ]
    return out


def test_chart_has_one_line_per_series_and_a_legend() -> None:
    root = parse(figures.svg_from_chart(CHART))
    assert root.get("id") == "chart-2b-svg"
    assert root.find("svg:title", NS).text == "Iterations to 1e-9"
    lines = series_points(root)
    assert list(lines) == ["ccd", "fabrik", "dls"]
    assert [len(v) for v in lines.values()] == [3, 3, 2]
    legend = [g.find("svg:text", NS).text for g in by_class(root, "legend")]
    assert legend == ["CCD", "FABRIK", "Damped <least> squares"]
    texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "d/ΣL" in texts and "iterations (log)" in texts


def test_chart_y_axis_is_logarithmic_and_x_is_linear() -> None:
    chart = {
        **CHART,
        "series": [{"method": "ccd", "label": "c", "points": [[0.7, 1], [0.8, 10], [0.9, 100]]}],
    }
    (xy,) = series_points(parse(figures.svg_from_chart(chart))).values()
    (x1, y1), (x2, y2), (x3, y3) = xy
    assert y1 > y2 > y3  # more iterations, higher up
    assert y1 - y2 == pytest.approx(y2 - y3, abs=0.02)  # equal ratios, equal steps
    assert x2 - x1 == pytest.approx(x3 - x2, abs=0.02)


def test_chart_caps_a_point_whose_budget_ran_out() -> None:
    root = parse(figures.svg_from_chart({**CHART, "budget": 5000}))
    capped = by_class(root, "capped")
    assert len(capped) == 1
    plot = one(root, "plot")
    ccd = series_points(root)["ccd"]
    assert ccd[-1][1] == pytest.approx(float(plot.get("y")))  # pinned to the top edge
    assert "> 5000" in [t.text for t in by_class(root, "cap-label")]


def test_chart_without_points_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one point"):
        figures.svg_from_chart({**CHART, "series": []})


def test_page_figures_are_drawn_from_their_default_frames() -> None:
    """The lesson's own figures: each SVG carries its default frame's joints and target."""
    content = pytest.importorskip("ikchain.lesson.content")
    context = content.page_context("en")
    seen = 0
    for section in context["sections"]:
        for block in section["blocks"]:
            if block["kind"] == "chart":
                parse(block["chart"]["svg"])
            if block["kind"] != "figure":
                continue
            fig = block["figure"]
            root = parse(fig["svg"])
            assert root.get("id") == f"{fig['id']}-svg"
            points = [
                [float(v) for v in p.split(",")] for p in one(root, "bones").get("points").split()
            ]
            assert points == fig["frame"]["result"]["joints"]
            ring = one(root, "target-ring")
            assert [float(ring.get("cx")), float(ring.get("cy"))] == fig["frame"]["result"][
                "target"
            ]
            seen += 1
    # every section with a drag figure (2.6 plays a path instead)
    assert seen == sum(s.live_figure for s in content.SECTIONS) == 7
