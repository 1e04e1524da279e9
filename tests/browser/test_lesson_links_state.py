"""Shareable states: a figure's link.

The page's address carries one figure's state as a fragment,
``#s22?method=ccd&bones=2&bend=-1&target=1.2,0.7&iterations=64&damping=1`` (and the
limits preset in 2.5). Opening such a link without a start pose gives the figure that
state, solved from the start pose: the tests compare what the page shows with a frame the server's
protocol computes here, in the test, for that state (``frame_reply``), never with
typed numbers. A bad value in a link is clamped or refused with the page's own
message (the page text, ``load_text``), and changing a figure rewrites the address.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import pytest

from ikchain.caps import CAPS
from ikchain.lesson import limits_page
from ikchain.lesson.content import SECTIONS, figure_defaults, load_text
from ikchain.lesson.tables import LENGTHS_BY_BONES
from ikchain.web.protocol import frame_reply

from .conftest import UNFOLD
from .test_lesson_page import wait_idle

#: The readings a frame's server-formatted text fills (the page prints them as sent).
READINGS = ("target", "d", "d_ratio", "angles", "tip", "error", "iterations")


def open_link(page: Any, base: str, fragment: str, lang: str = "en") -> None:
    """Open the lesson at ``fragment`` and wait until the link is applied and solved."""
    page.goto(f"{base}/?lang={lang}#{fragment}")
    page.wait_for_function("document.documentElement.classList.contains('link-ready')")


def section(key: str) -> Any:
    return next(s for s in SECTIONS if s.key == key)


def expected_frame(key: str, **state: Any) -> dict[str, Any]:
    """The frame the server's protocol computes for section ``key``'s figure in this
    state, from the start pose (no warm start), as a fresh request would be."""
    defaults = figure_defaults(section(key))
    method = state.get("method", defaults["method"])
    bones = state.get("bones", defaults["bones"])
    iterative = method != "analytic"
    body: dict[str, Any] = {
        "lengths": list(LENGTHS_BY_BONES[bones]),
        "target": list(state.get("target", defaults["target"])),
        "method": method,
        "init": None,
        "iterations": state.get("iterations", defaults["iterations"]) if iterative else None,
        "tolerance": defaults["tolerance"] if iterative else None,
        "damping": state.get("damping", defaults["damping"]) if method == "dls" else None,
        "bend": state.get("bend", defaults["bend"]),
        "smoothing": None,
        "previous_target": None,
        "family": None,
    }
    options = limits_page.limits_options(key)
    if options is not None:  # 2.5: the preset's limits; with limits, no bend is sent
        preset = state.get("limits", options["default"])
        entry = options["presets"][preset].get(str(bones))
        body["limits"] = entry["limits"] if entry else None
        if body["limits"]:
            body["bend"] = None
        body["rest"] = None
        body["rest_weight"] = None
    reply = frame_reply(json.dumps(body))
    assert reply["ok"], reply
    return reply["frame"]


def shown(page: Any, fig: str) -> dict[str, Any]:
    """What the figure shows: its readings' text, status, drawn chain and controls."""
    return page.evaluate(
        """id => {
            const el = document.getElementById(id), f = window.__ikchainFigures[id];
            const text = {};
            el.querySelectorAll('[data-reading]').forEach(dd => {
                text[dd.getAttribute('data-reading')] = dd.textContent.trim(); });
            const points = el.querySelector('svg .bones').getAttribute('points')
                .split(' ').map(p => p.split(',').map(Number));
            const control = name => { const c = el.querySelector('.controls [name="' + name + '"]');
                                      return c ? c.value : null; };
            return {text, points, status: el.getAttribute('data-status'),
                    method: control('method'), bones: control('bones'), bend: control('bend'),
                    iterations: control('iterations'), damping: control('damping'),
                    state: {method: f.state.method, bones: f.state.bones, bend: f.state.bend,
                            pointer: f.state.pointer, iterations: f.state.iterations,
                            damping: f.state.damping}};
        }""",
        fig,
    )


def assert_shows(page: Any, fig: str, frame: dict[str, Any]) -> None:
    seen = shown(page, fig)
    for key in READINGS:
        assert seen["text"][key] == frame["readings"][key], key
    assert seen["status"] == frame["result"]["status"]
    assert seen["points"] == frame["result"]["joints"]


def link_message(page: Any, fig: str) -> str:
    box = page.locator(f"#{fig} .ctl-link .ctl-msg")
    return "" if box.is_hidden() else box.text_content().strip()


# ------------------------------------------------------------------ (1) a link reproduces


@pytest.mark.parametrize(
    ("key", "query", "state"),
    [
        # the example: 2.2, CCD, clockwise, (1.2, 0.7)
        ("s22", "method=ccd&bend=-1&target=1.2,0.7", {"bend": -1, "target": [1.2, 0.7]}),
        (
            "s23",
            "method=dls&bend=%E2%88%921&damping=0.5&iterations=200&target=-0.9,-0.3",
            {
                "method": "dls",
                "bend": -1,
                "damping": 0.5,
                "iterations": 200,
                "target": [-0.9, -0.3],
            },
        ),
        (
            "s23",
            "method=fabrik&bones=4&bend=-1&iterations=12&target=0.35,1.1",
            {"method": "fabrik", "bones": 4, "bend": -1, "iterations": 12, "target": [0.35, 1.1]},
        ),
        (
            "s21",
            "method=analytic&bend=-1&target=-1.1,0.25",
            {"method": "analytic", "bend": -1, "target": [-1.1, 0.25]},
        ),
        (
            "s25",
            "limits=free&bend=-1&target=0.9,-0.5",
            {"limits": "free", "bend": -1, "target": [0.9, -0.5]},
        ),
    ],
)
def test_a_link_reproduces_the_figure_the_server_computes(
    page: Any, server_url: str, key: str, query: str, state: dict[str, Any]
) -> None:
    fig = f"fig-{key}"
    open_link(page, server_url, f"{key}?{query}")
    wait_idle(page, fig)
    frame = expected_frame(key, **state)
    assert_shows(page, fig, frame)
    seen = shown(page, fig)
    defaults = figure_defaults(section(key))
    assert seen["state"]["pointer"] == state["target"]
    assert seen["state"]["bend"] == state["bend"] and seen["bend"] == str(state["bend"])
    method = state.get("method", defaults["method"])
    # (2.1 shows no method or bone-count control: its state alone says them)
    assert seen["state"]["method"] == method and seen["method"] in (method, None)
    assert seen["bones"] in (str(state.get("bones", defaults["bones"])), None)
    if "iterations" in state:
        assert seen["iterations"] == str(state["iterations"])
    if "limits" in state:
        assert page.locator(f"#{fig}-choose select[name='limits']").input_value() == state["limits"]
    assert link_message(page, fig) == ""  # nothing to say: every value was taken
    # the link's figure is in view
    assert page.locator(f"#{fig} .fig-canvas").is_visible()
    box = page.locator(f"#{fig} .fig-canvas").bounding_box()
    assert box is not None and -1 <= box["y"] < page.viewport_size["height"] / 2


# ------------------------------------------------------------------ (2) bad values


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bad_values_in_a_link_are_clamped_with_the_pages_message(
    page: Any, server_url: str, lang: str
) -> None:
    messages = load_text(lang)["messages"]
    fig = "fig-s22"
    open_link(page, server_url, "s22?iterations=99999&target=nan,0.5&bend=7", lang)
    wait_idle(page, fig)
    defaults = figure_defaults(section("s22"))
    cap = CAPS["max_iterations"]
    seen = shown(page, fig)
    # iterations: the box's own clamping and message, as when typed there
    assert seen["state"]["iterations"] == cap and seen["iterations"] == str(cap)
    box = page.locator(f"#{fig} [data-control='iterations'] .ctl-msg")
    assert box.is_visible() and box.text_content() == messages["iterations_clamped"]
    # the same number typed into another figure's box gets the same words
    typed = page.locator("#fig-s23 input[name=iterations]")
    typed.fill("99999")
    typed.press("Enter")
    wait_idle(page, "fig-s23")
    assert page.locator("#fig-s23 [data-control='iterations'] .ctl-msg").text_content() == (
        box.text_content()
    )
    # target: not a number, refused, the figure's own kept; bend 7: the nearest, ↺
    assert seen["state"]["pointer"] == defaults["target"]
    assert seen["state"]["bend"] == 1 and seen["bend"] == "1"
    said = link_message(page, fig)
    assert messages["target_refused"] in said and messages["bend_clamped"] in said
    assert_shows(page, fig, expected_frame("s22", iterations=cap, bend=1))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_more_bad_values_are_each_said_and_the_rest_taken(
    page: Any, server_url: str, lang: str
) -> None:
    messages = load_text(lang)["messages"]
    fig = "fig-s25"
    query = "method=nope&bones=9&damping=7&iterations=2.5&target=9,-9&limits=%3Cb%3E&bend=0"
    open_link(page, server_url, f"s25?{query}", lang)
    wait_idle(page, fig)
    extent = float(page.locator(f"#{fig} svg.ik-figure").get_attribute("data-extent"))
    defaults = figure_defaults(section("s25"))
    seen = shown(page, fig)
    assert seen["state"]["method"] == defaults["method"]
    assert seen["state"]["bones"] == defaults["bones"]
    assert seen["state"]["damping"] == 1.0 and seen["damping"] == "1"  # the slider's top
    assert seen["state"]["iterations"] == defaults["iterations"]  # refused: kept
    assert seen["state"]["pointer"] == [extent, -extent]  # the drawing's corner
    assert seen["state"]["bend"] == defaults["bend"]
    iterations = page.locator(f"#{fig} [data-control='iterations'] .ctl-msg")
    assert iterations.text_content() == messages["iterations_refused"]
    said = link_message(page, fig)
    for key in (
        "method_refused",
        "bones_refused",
        "damping_clamped",
        "target_clamped",
        "limits_refused",
        "bend_refused",
    ):
        assert messages[key] in said, key
    assert "<b>" not in page.locator(f"#{fig}").inner_html()
    options = limits_page.limits_options("s25")
    assert (
        page.locator(f"#{fig}-choose select[name='limits']").input_value() == (options["default"])
    )
    assert_shows(page, fig, expected_frame("s25", target=[extent, -extent]))


def test_a_link_that_cannot_be_decoded_is_refused_without_an_error(
    page: Any, server_url: str
) -> None:
    fig = "fig-s22"
    open_link(page, server_url, "s22?target=%E0%A4%A&method=%ZZ")
    wait_idle(page, fig)
    messages = load_text("en")["messages"]
    said = link_message(page, fig)
    assert messages["target_refused"] in said and messages["method_refused"] in said
    assert_shows(page, fig, expected_frame("s22"))


# ------------------------------------------------------------------ (3) the URL follows


def fragment(page: Any) -> tuple[str, dict[str, str]]:
    raw = urlsplit(page.url).fragment
    key, _, query = raw.partition("?")
    return key, dict(pair.split("=", 1) for pair in query.split("&") if pair)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_changing_the_figure_rewrites_the_address_and_the_link_opens_it_again(
    browser: Any, page: Any, server_url: str, lang: str
) -> None:
    page.goto(f"{server_url}/?lang={lang}")
    page.wait_for_function("document.documentElement.classList.contains('link-ready')")
    assert urlsplit(page.url).fragment == ""  # nothing changed yet: the address is the page's
    history = page.evaluate("history.length")
    fig = "fig-s23"
    page.locator(f"#{fig} select[name='method']").select_option("fabrik")
    page.locator(f"#{fig} select[name='bend']").select_option("-1")
    page.locator(f"#{fig} g.target").focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowUp")
    wait_idle(page, fig)
    page.wait_for_function("() => location.hash.indexOf('method=fabrik') >= 0")
    page.wait_for_function("id => location.hash === window.__ikchainFigures[id].link()", arg=fig)
    key, params = fragment(page)
    seen = shown(page, fig)
    assert key == "s23"
    assert params["method"] == "fabrik" and params["bend"] == "-1"
    target = [float(v) for v in params["target"].split(",")]
    assert target == seen["state"]["pointer"]
    # the keys moved the ring 3 × 2 cm right and 10 cm up from (0.9, 0.5)
    assert target == [0.96, 0.6]
    assert params["iterations"] == str(seen["state"]["iterations"])
    assert page.evaluate("history.length") == history  # replaced, not pushed
    # the anchor's href is the same state
    href = page.locator(f"#{fig} .ctl-link a").get_attribute("href")
    assert href == "#" + urlsplit(page.url).fragment
    # the link opened afresh shows the same state, as the server solves it
    other = browser.new_context(viewport={"width": 1280, "height": 900})
    other.add_init_script(UNFOLD)
    try:
        tab = other.new_page()
        errors: list[str] = []
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        tab.goto(page.url)
        tab.wait_for_function("document.documentElement.classList.contains('link-ready')")
        wait_idle(tab, fig)
        again = shown(tab, fig)
        assert again["state"] == seen["state"]
        # the same solve as the sender's (its start pose is in the link), not a fresh one
        assert again["text"] == seen["text"] and again["status"] == seen["status"]
        assert again["points"] == seen["points"]
        assert errors == []
    finally:
        other.close()
    # 2.5's limits select is part of its link
    page.locator("#fig-s25-choose select[name='limits']").select_option("free")
    wait_idle(page, "fig-s25")
    page.wait_for_function("() => location.hash.indexOf('#s25?') === 0")
    assert fragment(page)[1]["limits"] == "free"


def test_the_link_control_copies_the_address(page: Any, server_url: str) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    open_link(page, server_url, "s23?bones=4&target=0.5,0.9", "zh")
    fig = "fig-s23"
    wait_idle(page, fig)
    link = page.locator(f"#{fig} .ctl-link a")
    assert link.is_visible()
    assert link.text_content() == load_text("zh")["controls"]["link"]
    link.click()
    # the message follows the clipboard's promise: wait for it, not just the click
    page.locator(f"#{fig} .ctl-link .ctl-msg").wait_for(state="visible", timeout=5000)
    assert link_message(page, fig) == load_text("zh")["messages"]["link_copied"]
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.url
    assert fragment(page) == ("s23", fragment(page)[1])
    assert fragment(page)[1]["bones"] == "4" and fragment(page)[1]["target"] == "0.5,0.9"


def test_without_scripts_the_link_control_is_absent(page_no_js: Any, server_url: str) -> None:
    page_no_js.goto(f"{server_url}/?lang=en#s22?method=ccd&bend=-1&target=1.2,0.7")
    live = sum(s.live_figure for s in SECTIONS)
    assert page_no_js.locator(".ctl-link").count() == live  # one per live figure ...
    for index in range(live):
        assert page_no_js.locator(".ctl-link").nth(index).is_hidden()  # ... none shown
    # the page still reads: the figure shows its server-drawn default state
    default = expected_frame("s22")
    text = page_no_js.locator("#fig-s22 [data-reading='target']").text_content().strip()
    assert text == default["readings"]["target"]
