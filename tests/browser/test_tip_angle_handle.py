"""2.8's hand handle in Chromium: the knob turns the hand, and what the figure draws
(the wrist point, the last bone's direction, the status) is the server's solve.

The expected numbers are recomputed here from the chain's lengths (the wrist
``target - l3 (cos φ, sin φ)``, its distance to the annulus ``[|l1 - l2|, l1 + l2]``) and
by :func:`ikchain.solve` itself, never read back from the page's code.
"""

from __future__ import annotations

import math
import re
from typing import Any

import ikchain
from ikchain.lesson.content import load_text

from .test_lesson_extras import phone_lesson
from .test_lesson_page import open_lesson, screen_from_world, wait_idle
from .test_lesson_touch_and_replay import PHONE, touch_drag

FIG = "fig-s28"
LENGTHS = [0.6, 0.45, 0.35]


def to_figure(page: Any) -> None:
    page.evaluate("id => document.getElementById(id).scrollIntoView({block: 'start'})", FIG)
    page.wait_for_timeout(100)
    wait_idle(page, FIG)


def knob_centre(page: Any) -> tuple[float, float]:
    box = page.locator(f"#{FIG} .knob-handle").bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drawn(page: Any) -> dict[str, Any]:
    """The figure's state and what its SVG shows, as numbers parsed from attributes."""
    return page.evaluate(
        """id => {
            const f = window.__ikchainFigures[id];
            const q = s => document.querySelector('#' + id + ' ' + s);
            const w = q('.wrist-point'), k = q('.knob-handle');
            return {angle: f.state.angle, frame: f.state.frame,
                    bones: q('.bones').getAttribute('points'),
                    wrist: [w.getAttribute('cx'), w.getAttribute('cy')],
                    knob: [k.getAttribute('cx'), k.getAttribute('cy')],
                    status: q('[data-reading=status]').textContent,
                    scroll: window.scrollY};
        }""",
        FIG,
    )


def bone_points(points: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in (p.split(",") for p in points.split())]


def annulus_gap(point: tuple[float, float]) -> float:
    d = math.hypot(*point)
    return max(0.0, d - (LENGTHS[0] + LENGTHS[1]), abs(LENGTHS[0] - LENGTHS[1]) - d)


def check_against_the_server(got: dict[str, Any]) -> None:
    """The drawing is the frame's, and the frame is the library's solve of the angle asked."""
    frame, phi = got["frame"], got["angle"]
    target = frame["result"]["target"]
    alone = ikchain.solve(ikchain.Chain(LENGTHS), target, "analytic", angle=phi, bend=1)
    assert frame["result"]["angles"] == alone.angles.tolist()
    assert frame["hand"]["angle"] == phi
    wrist = (target[0] - LENGTHS[2] * math.cos(phi), target[1] - LENGTHS[2] * math.sin(phi))
    assert [float(v) for v in got["wrist"]] == frame["hand"]["wrist"]
    assert math.dist(frame["hand"]["wrist"], wrist) <= 1e-12
    # the last bone, as drawn, points along φ, and the drawn tip is the frame's
    points = bone_points(got["bones"])
    assert [list(p) for p in points] == frame["result"]["joints"]
    (x0, y0), (x1, y1) = points[-2], points[-1]
    assert abs(math.remainder(math.atan2(y1 - y0, x1 - x0) - phi, math.tau)) <= 1e-9
    assert [float(v) for v in got["knob"]] == frame["hand"]["knob"]
    assert abs(frame["result"]["min_error"] - annulus_gap(wrist)) <= 1e-12


def test_dragging_the_knob_turns_the_hand_and_the_figure_draws_the_solve(
    page: Any, server_url: str
) -> None:
    open_lesson(page, server_url)
    to_figure(page)
    before = drawn(page)
    assert before["frame"]["hand"]["reachable"] is True
    check_against_the_server(before)
    # the knob is drawn where the server put it, on the screen too
    kx, ky = knob_centre(page)
    sx, sy = screen_from_world(page, FIG, *before["frame"]["hand"]["knob"])
    assert abs(kx - sx) <= 1.5 and abs(ky - sy) <= 1.5
    # turn the hand to point back at the root: the wrist leaves its annulus
    target = before["frame"]["result"]["target"]
    toward_root = math.atan2(-target[1], -target[0])
    end = (target[0] + 0.3 * math.cos(toward_root), target[1] + 0.3 * math.sin(toward_root))
    page.mouse.move(kx, ky)
    page.mouse.down()
    page.mouse.move(*screen_from_world(page, FIG, *end), steps=20)
    page.mouse.up()
    wait_idle(page, FIG)
    got = drawn(page)
    assert got["frame"]["result"]["target"] == target  # the ring stayed
    assert abs(math.remainder(got["angle"] - toward_root, math.tau)) < math.radians(1.5)
    check_against_the_server(got)
    result = got["frame"]["result"]
    assert result["reachable"] is False and result["min_error"] > 0.1
    words = load_text("en")["readings"]["hand_no"]
    expected = words.replace("%hand_angle%", got["frame"]["readings"]["hand_angle"])
    assert got["status"] == expected.replace("%min_error%", f"{result['min_error']:.6f}")
    # the wrist point is drawn where the server's wrist is, on the screen
    box = page.locator(f"#{FIG} .wrist-point").bounding_box()
    wx, wy = screen_from_world(page, FIG, *got["frame"]["hand"]["wrist"])
    assert abs(box["x"] + box["width"] / 2 - wx) <= 1.5
    assert abs(box["y"] + box["height"] / 2 - wy) <= 1.5


def test_the_knob_turns_by_whole_degrees_from_the_keyboard(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    to_figure(page)
    page.locator(f"#{FIG} .knob").focus()
    page.keyboard.press("ArrowRight")  # 60° + 5°
    page.keyboard.press("Shift+ArrowDown")  # - 15°
    wait_idle(page, FIG)
    got = drawn(page)
    assert got["angle"] == 50 * math.pi / 180
    assert got["frame"]["readings"]["hand_angle"] == "50.0°"
    check_against_the_server(got)
    assert page.locator(f"#{FIG} .knob").get_attribute("aria-valuetext") == "50.0°"
    # a screen reader hears the same status the row shows
    said = page.locator(f"#{FIG} .readings-live").text_content() or ""
    assert said.endswith(load_text("en")["readings"]["hand_yes"].replace("%hand_angle%", "50.0°"))


def test_a_finger_turns_the_hand_on_a_phone_without_scrolling(
    browser: Any, server_url: str
) -> None:
    errors: list[str] = []
    with phone_lesson(browser, server_url, "en") as page:
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        to_figure(page)
        before = drawn(page)
        start = knob_centre(page)
        target = before["frame"]["result"]["target"]
        aim = -math.pi / 2  # the hand straight down
        end = screen_from_world(
            page, FIG, target[0] + 0.3 * math.cos(aim), target[1] + 0.3 * math.sin(aim)
        )
        assert 0 < end[0] < PHONE["width"] and 0 < end[1] < PHONE["height"], end
        touch_drag(page, start, end)
        wait_idle(page, FIG)
        got = drawn(page)
        assert got["scroll"] == before["scroll"]  # the page did not pan
        assert got["frame"]["result"]["target"] == target  # the finger turned the hand only
        assert abs(math.remainder(got["angle"] - aim, math.tau)) < math.radians(2)
        check_against_the_server(got)
    assert errors == []


def test_scripts_off_the_section_reads_and_draws_the_wrist(
    page_no_js: Any, server_url: str
) -> None:
    page_no_js.goto(f"{server_url}/?lang=en")
    text = load_text("en")["s28"]
    section = page_no_js.locator("#s28")
    said = re.sub(r"\s+", " ", section.text_content() or "")
    for words in (text["heading"], text["intro"][0], *text["reading"]):
        assert words in said
    svg = section.locator("svg.ik-figure")
    for part in (".bones", ".wrist-reach", ".wrist-point", ".hand-line", ".hand-arrow"):
        assert svg.locator(part).count() == 1, part
    assert section.locator(".knob").count() == 0  # only a running script moves the hand
    # the folded figure opens by hand, and shows the chain, the annulus and the wrist
    section.locator("details.more > summary").first.click()
    for part in (".bones", ".wrist-reach", ".wrist-point"):
        assert svg.locator(part).is_visible(), part
