"""The Jacobian transpose in the lesson's figures, and 2.2's manipulability ellipse,
in Chromium.

The ellipse's drawn attributes are checked against the server's frame the figure was
sent (recorded as it arrives, before the script touches it) and against the ellipse
computed here, in Python, from the frame's angles; the centre against the drawn tip.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import ikchain
from ikchain.lesson.content import load_text
from ikchain.lesson.frames import ELLIPSE_SCALE
from ikchain.manipulability import manipulability_from_angles

from .conftest import SCREENSHOTS, UNFOLD
from .test_lesson_extras import phone_lesson
from .test_lesson_page import drag_ring, open_lesson, screen_from_world, wait_idle
from .test_lesson_touch_and_replay import PHONE, ring_centre, touch_drag

FIG = "fig-s22"
#: Attributes are the server's numbers written by String(): equal to the bit; the
#: Python recomputation from the frame's angles agrees to rounding.
RECOMPUTED = 1e-12

# Every reply the transport delivers, as the server sent it, before any script uses it.
RECORD = """() => {
    const t = window.ikchainLesson.transport;
    window.__replies = [];
    const deliver = t.deliver.bind(t);
    t.deliver = reply => {
        window.__replies.push(JSON.parse(JSON.stringify(reply)));
        deliver(reply);
    };
}"""


def last_frame(page: Any) -> dict[str, Any]:
    """The newest frame reply the server sent (replays and errors left out)."""
    return page.evaluate(
        """() => { const r = window.__replies.filter(x => x.ok && x.frame);
                   return r.length ? r[r.length - 1].frame : null; }"""
    )


DRAWN = """id => {
    const svg = document.querySelector('#' + id + ' svg.ik-figure');
    const e = svg.querySelector('.ellipse-shape'), a = svg.querySelector('.ellipse-axis');
    const tip = svg.querySelector('.tip');
    const get = (el, names) => names.map(n => el.getAttribute(n));
    const replies = (window.__replies || []).filter(x => x.ok && x.frame);
    return {shape: get(e, ['cx', 'cy', 'rx', 'ry', 'transform']),
            axis: get(a, ['x1', 'y1', 'x2', 'y2']),
            tip: get(tip, ['cx', 'cy']),
            visibility: svg.querySelector('g.ellipse').getAttribute('visibility'),
            lengths: window.__ikchainFigures[id].state.lengths,
            reply: replies.length ? replies[replies.length - 1].frame : null};
}"""


def drawn(page: Any, fig: str = FIG) -> dict[str, Any]:
    """The drawn ellipse and tip, and the newest frame the server sent, read at once
    (no reply can arrive in between)."""
    return page.evaluate(DRAWN, fig)


def assert_drawn_is(frame: dict[str, Any], got: dict[str, Any]) -> None:
    """The drawn ellipse is the frame's, at the drawn tip, and is the ellipse of the
    frame's angles (computed here)."""
    ellipse = frame["ellipse"]
    for text in [*got["shape"], *got["axis"]]:
        assert text is not None and "nan" not in text.lower() and "inf" not in text.lower(), got
    cx, cy, rx, ry = (float(v) for v in got["shape"][:4])
    assert [cx, cy] == ellipse["centre"] == [float(v) for v in got["tip"]]
    assert [rx, ry] == ellipse["radii"]
    transform = got["shape"][4]
    assert transform.startswith("rotate(") and transform.endswith(")")
    assert [float(v) for v in transform[7:-1].split()] == [ellipse["rotation"], cx, cy]
    assert [float(v) for v in got["axis"]] == [*ellipse["axis"][0], *ellipse["axis"][1]]
    s1, s2, axis = manipulability_from_angles(
        np.asarray(got["lengths"], dtype=float), np.asarray(frame["result"]["angles"])
    )
    assert rx == pytest.approx(ELLIPSE_SCALE * s1, rel=RECOMPUTED)
    assert ry == pytest.approx(ELLIPSE_SCALE * s2, rel=RECOMPUTED, abs=1e-15)
    assert ellipse["rotation"] == pytest.approx(math.degrees(axis), abs=1e-9)


def test_the_ellipse_follows_every_drag_frame(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    page.evaluate(RECORD)
    page.locator(f"#{FIG} svg.ik-figure").scroll_into_view_if_needed()
    wait_idle(page, FIG)
    got = drawn(page)
    assert got["visibility"] != "hidden"
    assert_drawn_is(page.evaluate("id => window.__ikchainFigures[id].state.frame", FIG), got)
    seen = set()
    # held: after each move the drawn ellipse is the newest frame's
    box = page.locator(f"#{FIG} .target-ring").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    for x, y in ((0.9, 0.9), (0.2, 1.1), (-0.7, 0.5), (1.2, 0.3), (1.39, 0.02)):
        page.mouse.move(*screen_from_world(page, FIG, x, y), steps=4)
        wait_idle(page, FIG)
        got = drawn(page)
        assert_drawn_is(got["reply"], got)
        seen.add(tuple(got["shape"]))
    page.mouse.up()
    wait_idle(page, FIG)
    assert len(seen) == 5  # it moved with the chain
    # straight out to full reach: the ellipse flattens toward a segment
    drag_ring(page, FIG, 1.4, 0.0)
    got = drawn(page)
    assert_drawn_is(got["reply"], got)
    assert float(got["shape"][3]) < 0.05 * float(got["shape"][2])


def test_a_singular_pose_draws_a_segment_without_nan(page: Any, server_url: str) -> None:
    """The stall (straight chain on its line): ry 0, the long axis across the arm."""
    open_lesson(page, server_url)
    page.evaluate(RECORD)
    page.locator(f"#{FIG} button[name='stall']").click()
    wait_idle(page, FIG)
    frame = last_frame(page)
    assert frame["result"]["status"] == "stalled"
    got = drawn(page)
    assert_drawn_is(frame, got)
    assert float(got["shape"][3]) == pytest.approx(0.0, abs=1e-15)
    x1, y1, x2, y2 = (float(v) for v in got["axis"])
    assert x1 == pytest.approx(x2, abs=1e-12) and abs(y2 - y1) > 0.1
    line = page.locator(f"#{FIG} .ellipse-axis").bounding_box()
    assert line["height"] > 20  # the segment is drawn (a visible line, not nothing)


@pytest.mark.parametrize("fig", ["fig-s22", "fig-s23", "fig-s25"])
def test_the_menu_offers_the_methods_taught_so_far(page: Any, server_url: str, fig: str) -> None:
    """The menu lists the page data's methods for this figure, with their page labels,
    in the library's order; the Jacobian transpose, taught under the hood, is in none.
    With the last one chosen, a drag's status and readings are the server's reply's."""
    text = load_text("en")
    open_lesson(page, server_url)
    page.evaluate(RECORD)
    menu = page.locator(f"#{fig} select[name='method']")
    offered = page.evaluate("id => window.__ikchainFigures[id].options.methods", fig)
    values = menu.evaluate("m => Array.from(m.options).map(o => o.value)")
    assert values == offered == [m for m in ikchain.METHODS if m in offered]
    assert "jt" not in values
    labels = menu.evaluate("m => Array.from(m.options).map(o => o.textContent.trim())")
    assert labels == [text["controls"][f"method_{m}"] for m in values]
    menu.select_option(values[-1])
    wait_idle(page, fig)
    assert last_frame(page)["result"]["method"] == values[-1]
    for x, y in ((0.5, 0.8), (-0.4, 0.7)):
        drag_ring(page, fig, x, y, steps=10)
        now = page.evaluate(
            """id => {
                const r = window.__replies.filter(x => x.ok && x.frame);
                const shown = {};
                document.querySelectorAll('#' + id + ' [data-reading]').forEach(
                    dd => { shown[dd.getAttribute('data-reading')] = dd.textContent.trim(); });
                return {reply: r[r.length - 1].frame, shown: shown,
                        joints: window.__ikchainFigures[id].state.frame.result.joints};
            }""",
            fig,
        )
        frame, shown = now["reply"], now["shown"]
        assert frame["result"]["method"] == values[-1]
        assert shown["status"] == text["status"][frame["result"]["status"]]
        for key in ("error", "iterations", "tip", "angles", "target"):
            assert shown[key] == frame["readings"][key], key
        assert now["joints"] == frame["result"]["joints"]


def test_without_scripts_the_ellipse_is_drawn(page_no_js: Any, server_url: str) -> None:
    """Drawn by the server; shown, with the condition number, once the optional "why
    CCD slows" part that explains them is open (no script needed)."""
    page_no_js.goto(f"{server_url}/?lang=en")
    shape = page_no_js.locator(f"#{FIG} .ellipse-shape")
    condition = page_no_js.locator(f"#{FIG} .reading-condition")
    assert shape.count() == 1 and not shape.is_visible() and not condition.is_visible()
    page_no_js.locator("#s22-more-slow > summary").click()
    assert shape.is_visible() and condition.is_visible()
    assert page_no_js.locator("#fig-s21 .ellipse-shape").count() == 0
    box = shape.bounding_box()
    assert box["width"] > 10 and box["height"] > 10


def test_phone_zh_a_finger_moves_the_ellipse(browser: Any, server_url: str) -> None:
    with phone_lesson(browser, server_url, "zh") as page:
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.evaluate(RECORD)
        page.evaluate("id => document.getElementById(id).scrollIntoView({block: 'start'})", FIG)
        page.wait_for_timeout(100)
        wait_idle(page, FIG)
        before = drawn(page)
        for x, y in ((0.3, 1.1), (-0.8, -0.6), (1.3, 0.1)):
            end = screen_from_world(page, FIG, x, y)
            assert 0 < end[0] < PHONE["width"] and 0 < end[1] < PHONE["height"], end
            touch_drag(page, ring_centre(page, FIG), end)
            wait_idle(page, FIG)
            got = drawn(page)
            assert_drawn_is(got["reply"], got)
            assert got["shape"] != before["shape"]
            before = got
        assert errors == []


def test_artifact_screenshots_of_the_22_figure(browser: Any, server_url: str) -> None:
    """For people to look at: 2.2's figure with its ellipse, desktop en and phone zh."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for lang, viewport, name in (
        ("en", {"width": 1280, "height": 800}, "jt-ellipse-en-1280.png"),
        ("zh", PHONE, "jt-ellipse-zh-390.png"),
    ):
        context = browser.new_context(viewport=viewport, device_scale_factor=1)
        context.add_init_script(UNFOLD)
        try:
            page = context.new_page()
            open_lesson(page, server_url, lang)
            wait_idle(page, FIG)
            drag_ring(page, FIG, 1.1, 0.5)
            page.locator(f"#{FIG}").screenshot(path=str(SCREENSHOTS / name))
            assert (SCREENSHOTS / name).stat().st_size > 1000
        finally:
            context.close()


def test_a_link_naming_the_transpose_is_refused_in_22(page: Any, server_url: str) -> None:
    """#s22?method=jt names a method 2.2 does not teach: the figure keeps its own and
    says so in the page's words."""
    page.goto(f"{server_url}/?lang=en#s22?method=jt&bones=2&bend=1&target=1.1,0.4")
    page.wait_for_function("document.documentElement.classList.contains('link-ready')")
    wait_idle(page, FIG)
    state = page.evaluate("id => window.__ikchainFigures[id].state", FIG)
    assert state["method"] == "ccd" and state["frame"]["result"]["method"] == "ccd"
    message = page.locator(f"#{FIG} .ctl-link .ctl-msg")
    assert message.is_visible()
    assert load_text("en")["messages"]["method_refused"] in message.text_content()
