"""The lesson at 390×844 with a touch screen.

A swipe that starts on a figure (off the ring) scrolls the page; captions, every
table column and the chart's ticks are readable without sideways scrolling; a
figure and its controls are on screen together.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import PHONE
from .test_lesson_page import TABLE_IDS, open_lesson, reading, screen_from_world, wait_idle

MIN_TEXT_PX = 10.0  # smallest rendered text height we accept for chart ticks


def swipe_up(page: Any, x: float, y: float, distance: float = 300) -> None:
    """A finger put down at viewport (x, y) and moved up by ``distance`` px, lifted."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, 11):
        point = {"x": x, "y": y - distance * k / 10}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_swipe_on_the_figure_scrolls_the_page(phone: Any, server_url: str, lang: str) -> None:
    page = phone
    open_lesson(page, server_url, lang)
    fig = "fig-s21"
    page.evaluate("() => document.querySelector('#fig-s21').scrollIntoView({block: 'start'})")
    target_before = reading(page, fig, "target")
    scroll_before = page.evaluate("window.scrollY")
    # a point of the figure far from the ring: the lower left, below the root
    x, y = screen_from_world(page, fig, -1.2, -1.2)
    assert 0 < x < PHONE["width"] and 0 < y < PHONE["height"]
    swipe_up(page, x, y)
    page.wait_for_timeout(300)
    assert page.evaluate("window.scrollY") > scroll_before + 100  # the page scrolled
    wait_idle(page, fig)
    assert reading(page, fig, "target") == target_before  # and the ring stayed put
    # only the ring keeps the finger for itself
    touch = page.evaluate(
        """() => [getComputedStyle(document.querySelector('#fig-s21 svg.ik-figure')).touchAction,
                  getComputedStyle(document.querySelector('#fig-s21 g.target')).touchAction]"""
    )
    assert touch[0] != "none" and touch[1] == "none"


def test_the_ring_still_follows_a_finger(phone: Any, server_url: str) -> None:
    page = phone
    open_lesson(page, server_url)
    fig = "fig-s21"
    page.evaluate("() => document.querySelector('#fig-s21').scrollIntoView({block: 'start'})")
    box = page.locator(f"#{fig} .target-ring").bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    wait_idle(page, fig)
    assert page.evaluate("document.activeElement.classList.contains('target')")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_tables_and_captions_fit_the_phone(phone: Any, server_url: str, lang: str) -> None:
    page = phone
    open_lesson(page, server_url, lang)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for table_id in TABLE_IDS:
        boxes = page.evaluate(
            """id => [...document.querySelectorAll('#' + id + ' caption, #' + id + ' td, #'
                      + id + ' tbody th')].map(e => {
                 const r = e.getBoundingClientRect();
                 return [r.left, r.right, e.scrollWidth <= e.clientWidth + 1];
               })""",
            table_id,
        )
        assert boxes, table_id
        for left, right, fits in boxes:
            assert left >= 0 and right <= PHONE["width"], (table_id, left, right)
            assert fits, table_id
    # each value cell says which column it is
    label = page.evaluate(
        "() => getComputedStyle(document.querySelector('#table-4 td'), '::before').content"
    )
    assert label not in ("none", "normal", '""')


def test_chart_ticks_are_readable(phone: Any, server_url: str) -> None:
    page = phone
    open_lesson(page, server_url)
    heights = page.evaluate(
        "() => [...document.querySelectorAll('#chart-2b .tick')]"
        ".map(t => t.getBoundingClientRect().height)"
    )
    assert heights and min(heights) >= MIN_TEXT_PX, heights


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_figure_and_controls_are_seen_together(phone: Any, server_url: str, lang: str) -> None:
    page = phone
    open_lesson(page, server_url, lang)
    for fig in ("fig-s21", "fig-s22", "fig-s23", "fig-s24"):
        for name in ("method", "iterations", "bend"):
            if page.locator(f"#{fig} [name='{name}']").count() == 0:
                continue  # 2.1: the closed form has no method or iteration control
            page.locator(f"#{fig} [name='{name}']").scroll_into_view_if_needed()
            control = page.locator(f"#{fig} [name='{name}']").bounding_box()
            svg = page.locator(f"#{fig} svg.ik-figure").bounding_box()
            assert control["y"] >= 0 and control["y"] + control["height"] <= PHONE["height"]
            assert svg["y"] >= -1 and svg["y"] + svg["height"] <= PHONE["height"] + 1, (fig, name)
