"""The replay panel's controls: three in sight (play/pause, one step, and a "more"
disclosure holding the rest), reachable and usable by keyboard alone, labelled in the
page's language on desktop and on a phone."""

from __future__ import annotations

from typing import Any

import pytest

from ikchain.lesson.content import SECTIONS
from ikchain.lesson.words import load_text

from .test_lesson_page import open_lesson, wait_idle

#: Every figure with a replay panel.
REPLAY_FIGURES = [f"fig-{s.key}" for s in SECTIONS if any(kind == "replay" for kind, _ in s.blocks)]
#: What the panel offered before its controls were folded: all of it stays there.
EVERY_CONTROL = {"play", "forward", "back", "start", "live", "scrub", "joints"}

#: The interactive elements of a panel's control group a reader sees now (not one
#: inside a closed disclosure, nor a hidden one).
VISIBLE_CONTROLS = """panel => Array.from(panel.querySelectorAll(
    '.replay-controls button, .replay-controls input, .replay-controls select,'
    + ' .replay-controls summary'))
  .filter(el => el.checkVisibility({visibilityProperty: true})
                && el.getClientRects().length > 0)
  .map(el => el.name || el.tagName.toLowerCase())"""


def _visible(page: Any, fig: str) -> list[str]:
    return page.locator(f"#{fig}-replay").evaluate(VISIBLE_CONTROLS)


def _check_three_in_sight(page: Any, lang: str) -> None:
    words = load_text(lang)["replay"]
    assert len(REPLAY_FIGURES) >= 3
    for fig in REPLAY_FIGURES:
        panel = page.locator(f"#{fig}-replay")
        panel.scroll_into_view_if_needed()
        assert _visible(page, fig) == ["play", "forward", "summary"], fig
        # the three are labelled in the page's language
        assert panel.locator("button[name=play]").inner_text().strip() == words["play"]
        assert panel.locator("button[name=forward]").inner_text().strip() == words["forward"]
        assert panel.locator(".rp-more > summary").inner_text().strip() == words["more"]
        # nothing was dropped: opening "more" shows the rest
        panel.locator(".rp-more > summary").click()
        shown = set(_visible(page, fig))
        names = panel.locator(".replay-controls [name]").evaluate_all(
            "els => els.map(el => el.name)"
        )
        assert set(names) == EVERY_CONTROL
        assert shown >= EVERY_CONTROL - {"joints"}, fig  # joints: CCD's only (hidden else)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_replay_shows_three_controls_on_desktop(
    page_as_served: Any, server_url: str, lang: str
) -> None:
    open_lesson(page_as_served, server_url, lang)
    _check_three_in_sight(page_as_served, lang)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_replay_shows_three_controls_on_a_phone(browser: Any, server_url: str, lang: str) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    try:
        page = context.new_page()
        open_lesson(page, server_url, lang)
        _check_three_in_sight(page, lang)
    finally:
        context.close()


def test_replay_labels_differ_by_language() -> None:
    en, zh = load_text("en")["replay"], load_text("zh")["replay"]
    for key in ("play", "pause", "forward", "more", "back", "start", "live", "scrub"):
        assert en[key].strip() and zh[key].strip() and en[key] != zh[key], key


def _focused(page: Any) -> str:
    return page.evaluate(
        "(() => { const el = document.activeElement;"
        " return el.name || el.tagName.toLowerCase(); })()"
    )


def test_replay_by_keyboard_alone(page_as_served: Any, server_url: str) -> None:
    """Tab reaches Play, the step and "more"; Enter opens "more" and Tab goes on to
    the restart; Space and Enter press them; the replay answers each."""
    page = page_as_served
    fig = "fig-s22"
    open_lesson(page, server_url, "en")
    wait_idle(page, fig)
    panel = page.locator(f"#{fig}-replay")
    panel.scroll_into_view_if_needed()
    # from the control just before the panel's own, Tab by Tab
    panel.locator("button[name=play]").focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    assert _focused(page) == "play"
    page.keyboard.press("Tab")
    assert _focused(page) == "forward"
    page.keyboard.press("Enter")  # one step: asks for the replay, shows its first step
    page.wait_for_function(
        "id => { const r = window.__ikchainReplays[id].state();"
        " return r.data && !r.waiting && r.index === 0; }",
        arg=fig,
    )
    page.keyboard.press("Enter")
    assert panel.get_attribute("data-index") == "1"
    page.keyboard.press("Tab")
    assert _focused(page) == "summary"
    assert panel.locator(".rp-more").get_attribute("open") is None
    page.keyboard.press("Enter")
    assert panel.locator(".rp-more").get_attribute("open") is not None
    page.keyboard.press("Tab")
    assert _focused(page) == "back"
    page.keyboard.press("Space")
    assert panel.get_attribute("data-index") == "0"
    page.keyboard.press("Tab")
    assert _focused(page) == "start"
    back = []  # Shift+Tab walks back the same way (the step back is disabled at 0)
    for _ in range(3):
        page.keyboard.press("Shift+Tab")
        back.append(_focused(page))
    assert back == ["summary", "forward", "play"]
    page.keyboard.press("Space")  # play from here
    page.wait_for_function("id => window.__ikchainReplays[id].state().playing === true", arg=fig)
    words = load_text("en")["replay"]
    assert panel.locator("button[name=play]").inner_text().strip() == words["pause"]
    page.keyboard.press("Space")  # and pause
    assert panel.locator("button[name=play]").inner_text().strip() == words["play"]
