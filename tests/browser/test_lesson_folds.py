"""The folded page in Chromium: "more" disclosures as served, predict-then-press, the
control column without blank bands, tables a keyboard can scroll, and the whole with
scripts off."""

from __future__ import annotations

from typing import Any

import pytest

from ikchain.lesson import content, predict
from ikchain.lesson.words import load_text

from .test_lesson_page import open_lesson, wait_idle


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_predict_then_press_answers_with_the_solvers_choice(
    page_as_served: Any, server_url: str, lang: str
) -> None:
    page = page_as_served
    open_lesson(page, server_url, lang)
    words = load_text(lang)["predict"]
    text = load_text(lang)
    for section in content.SECTIONS:
        box = page.locator(f"#predict-{section.key}")
        right, _ = predict.answer_for(section.key, text)
        answer = box.locator("details.predict-answer")
        assert not answer.evaluate("d => d.open")  # folded until asked
        box.locator(".predict-check").scroll_into_view_if_needed()
        box.locator(".predict-check").click()  # nothing picked yet
        assert box.locator(".predict-verdict").text_content() == words["none"]
        assert not answer.evaluate("d => d.open")
        wrong = (right + 1) % box.locator("input[type=radio]").count()
        box.locator("input[type=radio]").nth(wrong).check()
        box.locator(".predict-check").click()
        assert answer.evaluate("d => d.open")
        assert box.locator(".predict-verdict").text_content() == words["wrong"]
        box.locator("input[type=radio]").nth(right).check()
        box.locator(".predict-check").click()
        assert box.locator(".predict-verdict").text_content() == words["right"]
        assert answer.locator("p").is_visible()


def test_without_scripts_folds_and_answers_open_by_hand(page_no_js: Any, server_url: str) -> None:
    page = page_no_js
    page.goto(f"{server_url}/?lang=en")
    # the appendix reads as it is: Table ②d and Table ⑤b are there
    assert page.locator("#under-the-hood #table-2-stall-starts").is_visible()
    # a fold: closed, then opened by a click on its summary
    slow = page.locator("#s22-more-slow")
    assert not page.locator("#table-2b").is_visible()
    slow.locator("summary").click()
    assert page.locator("#table-2b").is_visible()
    # an answer: no "Check" without scripts, but the answer opens
    box = page.locator("#predict-s24")
    assert box.locator(".predict-check").is_hidden()
    box.locator("summary").click()
    assert box.locator("details.predict-answer p").is_visible()
    # the figure's folded controls open too
    more = page.locator("#fig-s22 .ctl-more")
    more.locator("summary").click()
    assert page.locator("#fig-s22 select[name='bend']").is_visible()


def test_23s_control_column_has_no_blank_band(page_as_served: Any, server_url: str) -> None:
    """With three bones the four-bone slider takes no room: the controls after it follow
    the family slider directly, and with four bones it shows."""
    page = page_as_served
    open_lesson(page, server_url)
    fig = "fig-s23"
    wait_idle(page, fig)
    page.locator(f"#{fig} .ctl-more > summary").click()

    def gaps() -> list[float]:
        return page.evaluate(
            """id => {
                const items = Array.from(document.querySelectorAll(
                    '#' + id + ' fieldset.controls > .ctl, #' + id + ' .ctl-more > .ctl, #' +
                    id + ' .ctl-more > summary'))
                    .filter(el => el.getClientRects().length > 0 &&
                            getComputedStyle(el).visibility !== 'hidden')
                    .map(el => el.getBoundingClientRect());
                const out = [];
                for (let i = 1; i < items.length; i++) out.push(items[i].top - items[i - 1].bottom);
                return out;
            }""",
            fig,
        )

    assert max(gaps()) < 24, gaps()
    assert page.locator(f"#{fig} [data-control='family2']").is_hidden()
    page.locator(f"#{fig} select[name='bones']").select_option("4")
    wait_idle(page, fig)
    assert page.locator(f"#{fig} [data-control='family2']").is_visible()
    assert max(gaps()) < 24, gaps()


def test_a_keyboard_reaches_and_scrolls_a_wide_table(browser: Any, server_url: str) -> None:
    """On a screen where Table ②d scrolls sideways, Tab reaches its wrapper, which names
    itself by the table's caption, and the arrow keys scroll it to its last column."""
    context = browser.new_context(viewport={"width": 700, "height": 900})
    try:
        page = context.new_page()
        open_lesson(page, server_url)
        wrap = page.locator("#under-the-hood .table-wrap:has(#table-2-stall-starts)")
        widths = wrap.evaluate("w => [w.scrollWidth, w.clientWidth]")
        assert widths[0] > widths[1], widths  # it does scroll at this width
        assert wrap.get_attribute("tabindex") == "0" and wrap.get_attribute("role") == "region"
        name = page.locator(f"#{wrap.get_attribute('aria-labelledby')}").text_content()
        assert "②d" in name
        # Tab from the element just before it lands on it
        wrap.evaluate(
            "w => { const b = document.createElement('button'); b.id = 'before-2d';"
            " w.parentNode.insertBefore(b, w); }"
        )
        page.locator("#before-2d").focus()
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.classList.contains('table-wrap')")
        for _ in range(40):
            page.keyboard.press("ArrowRight")
        # the keys' scrolling may animate: wait (a bounded time) for its last column
        wrap.evaluate("w => { w.id = 'wrap-2d'; }")
        page.wait_for_function(
            "() => { const w = document.getElementById('wrap-2d');"
            " return w.scrollLeft > 0 && w.scrollLeft + w.clientWidth >= w.scrollWidth - 1; }",
            timeout=5_000,
        )
    finally:
        context.close()
