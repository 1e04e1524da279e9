"""2.4's soft-reach player in Chromium: play, the frame slider, a finger on a phone.

What is drawn is compared with the frames the page embeds (the server's solves): the
script only copies a frame's numbers into the picture.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ikchain.lesson.content import load_text
from ikchain.lesson.soft_reach import STATIC_FRAME, frame_words

from .conftest import PHONE, SCREENSHOTS, UNFOLD
from .test_lesson_page import open_lesson
from .test_lesson_phone import swipe_up
from .test_lesson_touch_and_replay import touch_drag

BLOCK = "#soft-reach"
#: Drawn coordinates are attribute text of the embedded numbers: equal, to rounding.
DRAWN_TOL = 1e-9


def embedded(page: Any) -> dict[str, Any]:
    return json.loads(page.locator(f"{BLOCK} script.sr-data").text_content())


def frame_of(page: Any) -> int:
    return int(page.locator(BLOCK).get_attribute("data-frame"))


def drawn(page: Any) -> dict[str, Any]:
    """What each panel draws (its bones, elbow, tip, ring) and the chart's cursor."""
    return page.evaluate(
        """sel => {
            const el = document.querySelector(sel);
            const out = {};
            for (const g of el.querySelectorAll('svg.sr-panel')) {
                const num = (cls, a) => parseFloat(g.querySelector(cls).getAttribute(a));
                out[g.dataset.run] = {
                    bones: g.querySelector('.bones').getAttribute('points').trim().split(/\\s+/)
                        .map(p => p.split(',').map(Number)),
                    joint: [num('.joint', 'cx'), num('.joint', 'cy')],
                    tip: [num('.tip', 'cx'), num('.tip', 'cy')],
                    ring: [num('.target-ring', 'cx'), num('.target-ring', 'cy')],
                    reading: el.querySelector(`.sr-label[data-run="${g.dataset.run}"] .sr-reading`)
                        .textContent,
                };
            }
            out.cursor = parseFloat(el.querySelector('.sr-chart .cursor').getAttribute('x1'));
            out.status = el.querySelector('.sr-status').textContent;
            out.valuetext = el.querySelector('input[name="frame"]').getAttribute('aria-valuetext');
            return out;
        }""",
        BLOCK,
    )


def close(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= DRAWN_TOL for x, y in zip(a, b, strict=True))


def assert_drawn_is_frame(page: Any, data: dict[str, Any], frame: int) -> None:
    got = drawn(page)
    target = data["targets"][frame]
    words = frame_words(data, frame)
    for run in ("hard", "soft"):
        joints = data["runs"][run]["joints"][frame]
        panel = got[run]
        assert all(close(p, q) for p, q in zip(panel["bones"], joints, strict=True)), run
        assert close(panel["joint"], joints[1]) and close(panel["tip"], joints[-1]), run
        assert close(panel["ring"], target), run
        assert panel["reading"] == words[run]
    assert abs(got["cursor"] - data["cursor"][frame]) <= DRAWN_TOL
    assert got["status"] == words["position"]
    assert got["valuetext"] == words["scrub_value"]


def show_block(page: Any) -> None:
    page.evaluate("s => document.querySelector(s).scrollIntoView({block: 'start'})", BLOCK)
    page.wait_for_timeout(100)


def test_without_scripts_the_middle_frame_is_drawn_and_the_controls_wait(
    page_no_js: Any, server_url: str
) -> None:
    page_no_js.goto(f"{server_url}/?lang=en")
    block = page_no_js.locator(BLOCK)
    assert block.locator("svg.sr-panel").count() == 2
    assert block.locator("button[name='play']").is_disabled()
    assert block.locator("input[name='frame']").is_disabled()
    assert page_no_js.locator("#table-soft-reach tbody tr").count() >= 4
    assert block.get_attribute("data-frame") == str(STATIC_FRAME)


def test_play_moves_both_panels_and_the_slider_sets_the_frame(page: Any, server_url: str) -> None:
    open_lesson(page, server_url, "en")
    show_block(page)
    data = embedded(page)
    words = load_text("en")["s24"]
    play = page.locator(f"{BLOCK} button[name='play']")
    slider = page.locator(f"{BLOCK} input[name='frame']")
    assert play.is_enabled() and slider.is_enabled()
    assert frame_of(page) == STATIC_FRAME
    assert_drawn_is_frame(page, data, STATIC_FRAME)
    before = drawn(page)
    # play: the frames advance, both panels with them
    play.click()
    assert play.text_content() == words["soft_pause"]
    assert play.get_attribute("aria-pressed") == "true"
    page.wait_for_function(
        "([s, f]) => +document.querySelector(s).dataset.frame >= f + 5", arg=[BLOCK, STATIC_FRAME]
    )
    play.click()  # pause
    assert play.text_content() == words["soft_play"]
    paused = frame_of(page)
    assert paused != STATIC_FRAME
    after = drawn(page)
    for run in ("hard", "soft"):
        assert after[run]["ring"] != before[run]["ring"]
    assert after["soft"]["bones"] != before["soft"]["bones"]
    # (the hard chain lies straight toward every target past ΣL: the same pose)
    assert_drawn_is_frame(page, data, paused)
    page.wait_for_timeout(200)
    assert frame_of(page) == paused  # paused stays paused
    # the slider, by keyboard: Home, then three steps right
    slider.focus()
    page.keyboard.press("Home")
    assert frame_of(page) == 0
    assert_drawn_is_frame(page, data, 0)
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert frame_of(page) == 3
    assert_drawn_is_frame(page, data, 3)
    start = drawn(page)
    play.click()  # from frame 3, inside the reach: the hard knee straightens as it plays
    page.wait_for_function("s => +document.querySelector(s).dataset.frame >= 8", arg=BLOCK)
    play.click()
    assert drawn(page)["hard"]["bones"] != start["hard"]["bones"]
    assert_drawn_is_frame(page, data, frame_of(page))
    # and set outright: the farthest frame, where the hard chain lies straight past ΣL
    far = data["frames"] // 2
    slider.fill(str(far))
    assert frame_of(page) == far
    assert_drawn_is_frame(page, data, far)
    # space on the focused play button plays, and the slider stops it
    play.focus()
    page.keyboard.press("Space")
    assert play.get_attribute("aria-pressed") == "true"
    slider.fill("10")
    assert play.get_attribute("aria-pressed") == "false" and frame_of(page) == 10
    assert_drawn_is_frame(page, data, 10)


def test_a_finger_drags_the_slider_on_a_phone_and_a_swipe_still_scrolls(
    phone: Any, server_url: str
) -> None:
    page = phone
    open_lesson(page, server_url, "zh")
    show_block(page)
    data = embedded(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    last = data["frames"] - 1
    box = page.locator(f"{BLOCK} input[name='frame']").bounding_box()
    assert box["width"] > 150 and box["y"] > 0 and box["y"] + box["height"] < PHONE["height"]
    y = box["y"] + box["height"] / 2

    def x_of(frame: int) -> float:  # the thumb's centre, for Chromium's 16-px thumb
        return box["x"] + 8 + (box["width"] - 16) * frame / last

    scroll = page.evaluate("window.scrollY")
    touch_drag(page, (x_of(STATIC_FRAME), y), (x_of(140), y))
    page.wait_for_timeout(100)
    got = frame_of(page)
    assert abs(got - 140) <= 3, got
    assert page.evaluate("window.scrollY") == scroll  # the drag did not pan the page
    assert_drawn_is_frame(page, data, got)
    # a vertical swipe on the picture scrolls the page, and leaves the frame
    panels = page.locator(f"{BLOCK} svg.sr-figure").bounding_box()
    assert panels["y"] > 0
    swipe_up(page, panels["x"] + panels["width"] / 2, panels["y"] + panels["height"] / 2, 250)
    page.wait_for_timeout(300)
    assert page.evaluate("window.scrollY") > scroll + 100
    assert frame_of(page) == got
    # and one that starts on the slider scrolls it too (the slider takes only sideways drags)
    show_block(page)
    box = page.locator(f"{BLOCK} input[name='frame']").bounding_box()
    scroll = page.evaluate("window.scrollY")
    swipe_up(page, box["x"] + box["width"] * 0.3, box["y"] + box["height"] / 2, 250)
    page.wait_for_timeout(300)
    assert page.evaluate("window.scrollY") > scroll + 100
    # the labels are the page's language
    words = load_text("zh")["s24"]
    assert page.locator(f"{BLOCK} button[name='play']").text_content() == words["soft_play"]


@pytest.mark.parametrize(
    ("name", "viewport", "lang"),
    [("desktop", {"width": 1280, "height": 800}, "en"), ("phone", PHONE, "zh")],
)
def test_screenshot_of_the_block(
    browser: Any, server_url: str, name: str, viewport: dict[str, int], lang: str
) -> None:
    mobile = name == "phone"
    context = browser.new_context(viewport=viewport, has_touch=mobile, is_mobile=mobile)
    context.add_init_script(UNFOLD)
    try:
        page = context.new_page()
        open_lesson(page, server_url, lang)
        show_block(page)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.locator(BLOCK).screenshot(path=str(SCREENSHOTS / f"soft-reach-{name}.png"))
    finally:
        context.close()
