"""The pole (hint) handle in Chromium: offered only in 2.7's two-bone figure, where
every method it is offered with follows it.

The side the elbow is on is computed here from the drawn joints (a cross product with
the root-target line), not read from the server's bend.
"""

from __future__ import annotations

from typing import Any

import pytest

from ikchain.lesson.content import POLE_DEFAULT, SECTIONS, load_text

from .test_lesson_extras import phone_lesson
from .test_lesson_page import open_lesson, screen_from_world, wait_idle
from .test_lesson_touch_and_replay import PHONE, touch_drag

FIGURES = tuple(f"fig-{s.key}" for s in SECTIONS if s.pole)
FIG = "fig-s27"


def pole_on(page: Any, fig: str) -> None:
    page.locator(f"#{fig} input[name='pole']").check()
    wait_idle(page, fig)
    # the box is below the figure: bring the figure back into view for the pointer
    page.evaluate("id => document.getElementById(id).scrollIntoView({block: 'start'})", fig)
    page.wait_for_timeout(100)


def handle_centre(page: Any, fig: str) -> tuple[float, float]:
    box = page.locator(f"#{fig} .pole-handle").bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def state(page: Any, fig: str) -> dict[str, Any]:
    return page.evaluate(
        """id => {
            const s = window.__ikchainFigures[id].state;
            return {pole: s.pole, bend: s.bend, joints: s.frame.result.joints,
                    target: s.frame.result.target, frameBend: s.frame.bend};
        }""",
        fig,
    )


def elbow_side(s: dict[str, Any]) -> int:
    (tx, ty), (ex, ey) = s["target"], s["joints"][1]
    value = tx * ey - ty * ex
    return (value > 0) - (value < 0)


def test_no_pole_control_or_handle_without_scripts(page_no_js: Any, server_url: str) -> None:
    page_no_js.goto(f"{server_url}/?lang=en")
    assert page_no_js.locator("input[name='pole']").count() == 0
    assert page_no_js.locator(".pole-handle").count() == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_pole_control_is_in_the_pole_section_only(
    page: Any, server_url: str, lang: str
) -> None:
    open_lesson(page, server_url, lang)
    assert FIGURES == (FIG,)
    offered = page.evaluate(
        "() => Object.keys(window.__ikchainFigures).filter("
        "id => window.__ikchainFigures[id].options.pole)"
    )
    assert offered == [FIG]
    box = page.locator(f"#{FIG} [data-control='pole']")
    assert box.count() == 1 and box.is_visible()  # on show: the section adds it
    text = load_text(lang)["controls"]
    assert box.locator(".ctl-label").text_content() == text["pole"]
    assert box.locator(".ctl-hint").text_content() == text["pole_hint"]
    assert not page.locator(f"#{FIG} .pole").is_visible()
    assert page.locator("[data-control='pole']").count() == 1
    # the checkbox sits right before its label, not at the strip's other edge
    check = page.locator(f"#{FIG} input[name='pole']").bounding_box()
    label = box.locator(".ctl-label").bounding_box()
    assert 0 <= label["x"] - (check["x"] + check["width"]) <= 16, (check, label)
    assert abs((check["y"] + check["height"] / 2) - (label["y"] + label["height"] / 2)) < 8


@pytest.mark.parametrize("method", ["analytic", "ccd", "fabrik", "dls"])
def test_every_offered_method_follows_the_pole(page: Any, server_url: str, method: str) -> None:
    open_lesson(page, server_url)
    offered = page.evaluate("id => window.__ikchainFigures[id].options.methods", FIG)
    if method not in offered:
        pytest.fail(f"{method} not offered in 2.7: {offered}")
    page.locator(f"#{FIG} select[name='method']").select_option(method)
    wait_idle(page, FIG)
    pole_on(page, FIG)
    assert elbow_side(state(page, FIG)) == 1  # (0.3, 0.9): left of the line
    pole = page.locator(f"#{FIG} .pole")
    pole.focus()
    for _ in range(12):  # 1.2 m down, Shift: 10 cm a press, to (0.3, -0.3): right
        page.keyboard.press("Shift+ArrowDown")
    wait_idle(page, FIG)
    s = state(page, FIG)
    assert s["pole"] == [0.3, -0.3] and elbow_side(s) == -1, (method, s)


def test_dragging_the_pole_across_the_line_flips_the_elbow(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = FIG
    page.locator(f"#{fig} svg.ik-figure").scroll_into_view_if_needed()
    wait_idle(page, fig)
    bend = page.locator(f"#{fig} select[name='bend']")
    assert bend.is_enabled()
    pole_on(page, fig)
    assert bend.is_disabled()  # the pole decides
    s = state(page, fig)
    assert s["pole"] == list(POLE_DEFAULT) == [0.3, 0.9]
    assert elbow_side(s) == 1  # (0.3, 0.9) is left of the line to (1.0, 0.6)
    assert s["bend"] == s["frameBend"] == -1
    assert bend.input_value() == "-1"
    # the handle is drawn where the state's pole is
    hx, hy = handle_centre(page, fig)
    wx, wy = screen_from_world(page, fig, 0.3, 0.9)
    assert abs(hx - wx) <= 1.5 and abs(hy - wy) <= 1.5
    # mouse: from the left of the root-target line to its right
    page.mouse.move(hx, hy)
    page.mouse.down()
    tx, ty = screen_from_world(page, fig, 0.9, -0.3)
    page.mouse.move(tx, ty, steps=15)
    page.mouse.up()
    wait_idle(page, fig)
    s = state(page, fig)
    assert abs(s["pole"][0] - 0.9) < 0.02 and abs(s["pole"][1] + 0.3) < 0.02, s["pole"]
    assert s["target"] == [1.0, 0.6]  # the ring stayed
    assert elbow_side(s) == -1
    assert s["bend"] == s["frameBend"] == 1
    assert bend.input_value() == "1"
    # and back
    hx, hy = handle_centre(page, fig)
    page.mouse.move(hx, hy)
    page.mouse.down()
    tx, ty = screen_from_world(page, fig, 0.2, 1.0)
    page.mouse.move(tx, ty, steps=15)
    page.mouse.up()
    wait_idle(page, fig)
    assert elbow_side(state(page, fig)) == 1
    # off: the bend control is back, and keeps the side the pole chose
    page.locator(f"#{fig} input[name='pole']").uncheck()
    wait_idle(page, fig)
    assert bend.is_enabled() and bend.input_value() == "-1"
    s = state(page, fig)
    assert s["pole"] is None and elbow_side(s) == 1
    assert not page.locator(f"#{fig} .pole").is_visible()


def test_the_pole_moves_by_keyboard_as_the_ring_does(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = FIG
    page.locator(f"#{fig} svg.ik-figure").scroll_into_view_if_needed()
    pole_on(page, fig)
    page.locator(f"#{fig} .pole").focus()
    page.keyboard.press("ArrowRight")
    wait_idle(page, fig)
    assert state(page, fig)["pole"] == [0.32, 0.9]


def test_a_finger_drags_the_pole_on_a_phone(browser: Any, server_url: str) -> None:
    errors: list[str] = []
    with phone_lesson(browser, server_url, "en") as page:
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        fig = FIG
        page.evaluate("id => document.getElementById(id).scrollIntoView({block: 'start'})", fig)
        page.wait_for_timeout(100)
        wait_idle(page, fig)
        pole_on(page, fig)
        scroll = page.evaluate("window.scrollY")
        start = handle_centre(page, fig)
        end = screen_from_world(page, fig, 0.9, -0.3)
        assert 0 < end[0] < PHONE["width"] and 0 < end[1] < PHONE["height"], end
        touch_drag(page, start, end)
        wait_idle(page, fig)
        assert page.evaluate("window.scrollY") == scroll  # the page did not pan
        got = handle_centre(page, fig)
        assert abs(got[0] - end[0]) <= 3 and abs(got[1] - end[1]) <= 3, (start, end, got)
        s = state(page, fig)
        assert s["target"] == [1.0, 0.6] and elbow_side(s) == -1
    assert errors == []
