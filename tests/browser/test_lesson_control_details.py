"""Small page details of the figures' controls: each test failed on the page before its fix.

- switching Bones moved the controls;
- the smoothing marker was 4.8 px across;
- the ring was focusable with scripts off;
- the family slider flipped the bend control without a word;
- the 2.5 limits select clipped its text (en);
- the phone outcome map's legend was too small to read.
"""

from __future__ import annotations

from typing import Any

import pytest

from ikchain.lesson.content import SECTIONS, load_text

from .conftest import UNFOLD
from .test_lesson_extras import PHONE, phone_lesson
from .test_lesson_page import open_lesson, wait_idle

#: The smallest a mark the reader must see may be drawn (CSS px across): the tip's own
#: mark is about 7.5 px on a desktop.
MARK_PX = 10.0
#: The smallest legend text we accept on a phone (CSS px, the glyphs' box height).
LEGEND_PX = 11.0


def control_boxes(page: Any, fig: str) -> dict[str, tuple[float, float]]:
    """Where each visible control of the strip sits, relative to its figure (px)."""
    return page.evaluate(
        """id => {
            const fig = document.getElementById(id).getBoundingClientRect();
            const out = {};
            document.querySelectorAll('#' + id + ' .controls [data-control]').forEach(el => {
                const r = el.getBoundingClientRect();
                if (r.width > 0 && getComputedStyle(el).visibility !== 'hidden')
                    out[el.getAttribute('data-control')] = [r.x - fig.x, r.y - fig.y];
            });
            return out;
        }""",
        fig,
    )


@pytest.mark.parametrize("fig", ["fig-s22", "fig-s23"])
def test_switching_bones_leaves_every_control_where_it_was(
    page: Any, server_url: str, fig: str
) -> None:
    open_lesson(page, server_url)
    before = control_boxes(page, fig)
    assert "bones" in before and "reset" in before
    for bones in ("4", "2", "3"):
        page.locator(f"#{fig} select[name='bones']").select_option(bones)
        wait_idle(page, fig)
        after = control_boxes(page, fig)
        for name, (x, y) in before.items():
            # the select under the pointer, and all above it, stay; in 2.3 the
            # four-bone slider comes and goes below it and takes no room when absent
            # (no blank band), so what follows it may move by its height
            if name in after and (fig == "fig-s22" or y <= before["bones"][1]):
                assert after[name] == pytest.approx((x, y), abs=0.5), (bones, name)


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_smoothing_marker_is_big_enough_to_see(
    browser: Any, page: Any, server_url: str, viewport: str
) -> None:
    if viewport == "phone":
        context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
        context.add_init_script(UNFOLD)
        tab = context.new_page()
    else:
        context, tab = None, page
    try:
        open_lesson(tab, server_url)
        size = tab.evaluate(
            """() => {
                const r = document.querySelector('#fig-s24 circle.pointer').getBoundingClientRect();
                return Math.min(r.width, r.height);
            }"""
        )
        floor = MARK_PX if viewport == "desktop" else MARK_PX * 0.6
        assert size >= floor, size
    finally:
        if context is not None:
            context.close()


def test_with_scripts_off_nothing_in_a_figure_takes_the_focus(
    page_no_js: Any, server_url: str
) -> None:
    """Without the script the ring cannot move: it is no slider and takes no Tab stop."""
    page = page_no_js
    page.goto(f"{server_url}/?lang=en")
    assert page.locator("svg.ik-figure [tabindex]").count() == 0
    assert page.locator("svg.ik-figure [role='slider']").count() == 0
    assert page.locator("svg.ik-figure g.target").count() == sum(
        section.live_figure for section in SECTIONS
    )


def test_with_scripts_on_the_ring_is_a_focusable_slider(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    ring = page.locator("#fig-s21 g.target")
    assert ring.get_attribute("tabindex") == "0" and ring.get_attribute("role") == "slider"
    assert ring.get_attribute("aria-keyshortcuts")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_family_slider_says_when_it_turns_the_bend_control(
    page: Any, server_url: str, lang: str
) -> None:
    """At 2.3's target the family's members past s = 0.55 bend clockwise: moving the
    slider there changes the bend control, and the page says so in its language."""
    open_lesson(page, server_url, lang)
    fig = "fig-s23"
    bend = page.locator(f"#{fig} select[name='bend']")
    assert bend.input_value() == "1"
    note = page.locator(f"#{fig} [data-control='bend'] .ctl-msg")
    assert note.is_hidden()
    page.locator(f"#{fig} input[name='family']").fill("0.8")
    wait_idle(page, fig)
    assert bend.input_value() == "-1"
    words = load_text(lang)["messages"]
    assert note.is_visible() and note.text_content() == words["bend_follows_family_cw"]
    # choosing the bend again is the reader's own doing: the note goes
    bend.select_option("1")
    wait_idle(page, fig)
    assert note.is_hidden()


#: Room a select keeps for its drop-down arrow (CSS px; Chromium draws it about 16 px
#: wide, inside the padding box).
ARROW_PX = 20.0


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_limits_select_shows_its_whole_text(
    browser: Any, page: Any, server_url: str, viewport: str
) -> None:
    """English is the longer label ("on: shoulder −45°…135°, joints 0°…150°"): the
    select leaves room for all of it beside its arrow, on a desktop and a phone."""
    if viewport == "phone":
        context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
        context.add_init_script(UNFOLD)
        tab = context.new_page()
    else:
        context, tab = None, page
    try:
        open_lesson(tab, server_url, "en")
        select = tab.locator("#fig-s25-choose select[name='limits']")
        select.scroll_into_view_if_needed()
        for value in ("arm", "free"):
            select.select_option(value)
            room, text = tab.evaluate(
                """el => {
                    const probe = document.createElement('span');
                    const style = getComputedStyle(el);
                    probe.style.font = style.font;
                    probe.style.whiteSpace = 'pre';
                    probe.textContent = el.options[el.selectedIndex].text;
                    document.body.appendChild(probe);
                    const text = probe.getBoundingClientRect().width;
                    probe.remove();
                    const pad = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
                    return [el.clientWidth - pad, text];
                }""",
                select.element_handle(),
            )
            assert room >= text + ARROW_PX, (value, room, text)
    finally:
        if context is not None:
            context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_outcome_legend_reads_on_a_phone(browser: Any, server_url: str, lang: str) -> None:
    with phone_lesson(browser, server_url, lang) as page:
        legend = page.locator("#outcome-map-s25 .legend-text, .outcome-legend li").first
        legend.scroll_into_view_if_needed()
        sizes = page.evaluate(
            """() => [...document.querySelectorAll(
                    '[id^="outcome-map-s25"] .legend-text, .outcome-legend li')]
                .filter(el => el.getBoundingClientRect().width > 0
                              && getComputedStyle(el).display !== 'none')
                .map(el => parseFloat(getComputedStyle(el).fontSize)
                           * (el.getScreenCTM ? el.getScreenCTM().a : 1))"""
        )
        assert len(sizes) >= 3 and min(sizes) >= LEGEND_PX, sizes
