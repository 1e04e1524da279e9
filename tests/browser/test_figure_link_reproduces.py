"""A figure's link reproduces the figure: opened in a second browser context, it shows
the same status and the same joints (to 1e-9 m) as the sender, not a fresh solve.

Each section's figure is first moved off its default by what a reader does there (keys
on the ring, so each frame starts warm from the one before; a method, a bend, the
family slider, smoothing, the limits and the pull, the pole), then left to rest. The
link in its "Link to this figure" is opened in another context, and the two figures'
frames are compared number by number: the receiver's is the server's answer to the
link, never a copy of the sender's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .conftest import UNFOLD
from .test_lesson_page import open_lesson

TOL = 1e-9


def rested(page: Any, fig: str) -> None:
    """Until the figure has nothing in flight, nothing pending, its target settled and no
    continuation left (a solve cut at its limit goes on while the ring rests), and its
    link stays the same over a few animation frames."""
    page.wait_for_function(
        """id => {
            const f = window.__ikchainFigures[id], s = f.state;
            return f.inflight === null && !f.pending && s.frame.settled !== false &&
                (s.resting === 0 || s.frame.result.status !== 'max_iterations');
        }""",
        arg=fig,
        timeout=20_000,
    )
    for _ in range(3):
        before = link_of(page, fig)
        page.wait_for_timeout(250)
        page.wait_for_function(
            "id => window.__ikchainFigures[id].inflight === null", arg=fig, timeout=20_000
        )
        if link_of(page, fig) == before:
            return
    raise AssertionError(f"{fig}: the link kept changing")


def link_of(page: Any, fig: str) -> str:
    return page.evaluate(
        "id => document.querySelector('#' + id + ' a.fig-link').getAttribute('href')", fig
    )


def frame_of(page: Any, fig: str) -> dict[str, Any]:
    return page.evaluate(
        """id => {
            const f = window.__ikchainFigures[id], r = f.state.frame.result;
            const q = s => document.querySelector('#' + id + ' ' + s).textContent;
            return {joints: r.joints, status: r.status, iterations: r.iterations,
                    target: r.target, method: r.method, pole: f.state.pole,
                    angle: f.state.angle,
                    shown_status: q('[data-reading=status]'),
                    shown_error: q('[data-reading=error]')};
        }""",
        fig,
    )


def keys(page: Any, fig: str, *presses: str) -> None:
    ring = page.locator(f"#{fig} .target")
    ring.focus()
    for key in presses:
        page.keyboard.press(key)
    page.keyboard.up("Shift")


def s21(page: Any) -> None:
    page.locator("#fig-s21 select[name='bend']").select_option("-1")
    keys(page, "fig-s21", "Shift+ArrowLeft", "ArrowUp", "ArrowUp")


def s22(page: Any) -> None:
    page.locator("#fig-s22 input[name='iterations']").fill("5")
    page.locator("#fig-s22 input[name='iterations']").press("Enter")
    keys(page, "fig-s22", *["ArrowRight"] * 6, "Shift+ArrowUp")


def s23(page: Any) -> None:
    page.locator("#fig-s23 select[name='method']").select_option("fabrik")
    page.locator("#fig-s23 select[name='bend']").select_option("-1")
    keys(page, "fig-s23", "ArrowRight", "ArrowRight", "ArrowDown")
    slider = page.locator("#fig-s23 input[name='family']")
    slider.focus()
    for _ in range(8):
        page.keyboard.press("ArrowRight")


def s24(page: Any) -> None:
    page.locator("#fig-s24 input[name='smoothing']").check()
    # off the default ring's ray (1.6, 0.8): a move along it, out of reach, would leave
    # the stretched chain where it was
    keys(page, "fig-s24", *["Shift+ArrowLeft"] * 4, "Shift+ArrowDown", "Shift+ArrowDown")


def s25(page: Any) -> None:
    page.locator("#fig-s25 select[name='method']").select_option("dls")
    page.locator("#fig-s25-choose select[name='rest']").select_option(index=1)
    keys(page, "fig-s25", "ArrowLeft", "ArrowUp", "ArrowUp")


def s27(page: Any) -> None:
    page.locator("#fig-s27 input[name='pole']").check()
    page.locator("#fig-s27 select[name='method']").select_option("fabrik")
    pole = page.locator("#fig-s27 .pole")
    pole.focus()
    for _ in range(6):
        page.keyboard.press("Shift+ArrowDown")
    keys(page, "fig-s27", "ArrowLeft", "ArrowUp")


def s28(page: Any) -> None:
    page.locator("#fig-s28 select[name='bend']").select_option("-1")
    knob = page.locator("#fig-s28 .knob")
    knob.focus()
    for _ in range(3):
        page.keyboard.press("Shift+ArrowLeft")  # the hand turned 45° clockwise
    keys(page, "fig-s28", "ArrowLeft", "ArrowUp")


ACTIONS: dict[str, Callable[[Any], None]] = {
    "s21": s21,
    "s22": s22,
    "s23": s23,
    "s24": s24,
    "s25": s25,
    "s27": s27,
    "s28": s28,
}


def test_every_live_figure_has_an_action_here() -> None:
    from ikchain.lesson.content import SECTIONS

    assert set(ACTIONS) == {s.key for s in SECTIONS if s.live_figure}


@pytest.mark.parametrize("key", sorted(ACTIONS))
def test_the_link_shows_the_same_figure_in_another_browser(
    page: Any, browser: Any, server_url: str, key: str
) -> None:
    fig = f"fig-{key}"
    open_lesson(page, server_url)
    page.locator(f"#{fig}").scroll_into_view_if_needed()
    rested(page, fig)
    default = frame_of(page, fig)
    ACTIONS[key](page)
    rested(page, fig)
    sent = frame_of(page, fig)
    moved = max(
        abs(a - b)
        for p, q in zip(sent["joints"], default["joints"], strict=False)
        for a, b in zip(p, q, strict=True)
    )
    assert moved > 1e-3 or len(sent["joints"]) != len(default["joints"])  # it moved
    if key == "s27":
        assert sent["pole"] is not None and sent["pole"] != default["pole"]
    if key == "s28":
        assert sent["angle"] is not None and sent["angle"] != default["angle"]
    href = link_of(page, fig)
    assert href.startswith(f"#{key}?")
    other = browser.new_context(viewport={"width": 1280, "height": 900})
    other.add_init_script(UNFOLD)
    try:
        tab = other.new_page()
        errors: list[str] = []
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        tab.goto(f"{server_url}/?lang=en{href}")
        tab.wait_for_function("document.documentElement.classList.contains('link-ready')")
        rested(tab, fig)
        got = frame_of(tab, fig)
        assert errors == []
        # no message: the link said nothing the figure refused
        assert tab.locator(f"#{fig} .ctl-link .ctl-msg").is_hidden()
    finally:
        other.close()
    assert got["method"] == sent["method"]
    assert got["status"] == sent["status"] and got["shown_status"] == sent["shown_status"]
    assert got["iterations"] == sent["iterations"]
    assert got["target"] == sent["target"]
    assert got["pole"] == sent["pole"]  # on, and where it was dragged (2.7)
    assert got["angle"] == sent["angle"]  # the hand's angle, as turned (2.8)
    assert len(got["joints"]) == len(sent["joints"])
    for a, b in zip(got["joints"], sent["joints"], strict=True):
        assert abs(a[0] - b[0]) <= TOL and abs(a[1] - b[1]) <= TOL, (a, b)
