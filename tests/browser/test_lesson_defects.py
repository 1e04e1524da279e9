"""Browser tests for the page's defects found by a review: each failed on the page before its fix.

As in test_lesson_page, every number checked is the server's, read back off the page;
the expected values come from the page text, the server's tables or a closed form.
"""

from __future__ import annotations

import itertools
import math
import re
from typing import Any

import pytest

from ikchain.lesson.content import SECTIONS, TABLE_NUMBERS, load_text, tables_for_section
from ikchain.solvers.methods import METHODS, OPTIONS

from .conftest import UNFOLD
from .test_lesson_page import (
    drag_ring,
    lesson_data,
    open_lesson,
    point,
    reading,
    screen_from_world,
    wait_idle,
)

ANGLE_TEXT = re.compile(r"^-?\d+\.\d+°$")


def angles_of(page: Any, fig: str) -> list[str]:
    return [a.strip() for a in reading(page, fig, "angles").split(",")]


def degrees(texts: list[str]) -> list[float]:
    return [float(t.rstrip("°")) for t in texts]


def press(page: Any, key: str, times: int) -> None:
    for _ in range(times):
        page.keyboard.press(key)


def set_control(page: Any, fig: str, name: str, value: str) -> None:
    """Type a value into a control and commit it (Enter), as a reader does."""
    box = page.locator(f"#{fig} [name='{name}']")
    box.fill(value)
    box.press("Enter")
    wait_idle(page, fig)


def contrast(rgb_a: str, rgb_b: str) -> float:
    """WCAG contrast ratio of two CSS rgb() colours (the test's own formula)."""

    def luminance(css: str) -> float:
        channels = [int(v) / 255 for v in re.findall(r"\d+", css)[:3]]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(rgb_a), luminance(rgb_b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


# ----------------------------------------------------------------- 2: wrapped angles


def test_angles_read_within_a_half_turn_after_a_lap(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s22"  # CCD, warm-started frame after frame: angles accumulate
    before = degrees(angles_of(page, fig))
    page.locator(f"#{fig} svg.ik-figure").scroll_into_view_if_needed()
    box = page.locator(f"#{fig} .target-ring").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    start = math.atan2(0.6, 1.0)
    for k in range(1, 25):  # one full lap, counter-clockwise, radius ~1.17
        phi = start + 2 * math.pi * k / 24
        page.mouse.move(
            *screen_from_world(page, fig, 1.166 * math.cos(phi), 1.166 * math.sin(phi)), steps=3
        )
    page.mouse.up()
    wait_idle(page, fig)
    raw = page.evaluate("id => window.__ikchainFigures[id].state.frame.result.angles", fig)
    assert raw[0] > math.pi  # the pose went round once and the solver kept counting
    texts = angles_of(page, fig)
    assert all(ANGLE_TEXT.match(t) for t in texts), texts
    after = degrees(texts)
    assert all(-180.0 < a <= 180.0 for a in after)
    assert after == pytest.approx(before, abs=2.0)  # back where it started, as read


def test_a_cold_four_bone_solve_reads_within_a_half_turn(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s23"
    page.locator(f"#{fig} g.target").focus()
    press(page, "Shift+ArrowLeft", 21)
    press(page, "Shift+ArrowDown", 5)  # (0.9, 0.5) → (−1.2, 0): behind the root
    wait_idle(page, fig)
    page.locator(f"#{fig} select[name='bones']").select_option("4")  # a cold solve there
    wait_idle(page, fig)
    raw = page.evaluate("id => window.__ikchainFigures[id].state.frame.result.angles", fig)
    shown = degrees(angles_of(page, fig))
    assert len(shown) == 4 and all(-180.0 < a <= 180.0 for a in shown)
    for r, s in zip(raw, shown, strict=True):  # the same direction as the solver's angle
        assert math.cos(r) == pytest.approx(math.cos(math.radians(s)), abs=1e-3)
        assert math.sin(r) == pytest.approx(math.sin(math.radians(s)), abs=1e-3)


# ------------------------------------------------------- 4: bad values in a control


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_max_iterations_is_clamped_or_refused_in_the_page_language(
    page: Any, server_url: str, lang: str
) -> None:
    text = load_text(lang)
    messages = text["messages"]
    data_max = 5000
    open_lesson(page, server_url, lang)
    fig = "fig-s22"
    box = page.locator(f"#{fig} input[name='iterations']")
    message = page.locator(f"#{fig} [data-control='iterations'] .ctl-msg")

    set_control(page, fig, "iterations", "99999")
    assert box.input_value() == str(data_max)
    assert message.is_visible() and message.text_content() == messages["iterations_clamped"]
    assert page.locator(f"#{fig} .fig-error").is_hidden()  # the figure still answers
    assert page.evaluate("id => window.__ikchainFigures[id].state.iterations", fig) == data_max

    set_control(page, fig, "iterations", "12")
    assert message.is_hidden()  # never a stale message

    set_control(page, fig, "iterations", "-3")
    assert box.input_value() == "0"
    assert message.text_content() == messages["iterations_clamped"]

    set_control(page, fig, "iterations", "12")
    set_control(page, fig, "iterations", "2.5")  # not a whole number: refused, 12 kept
    assert box.input_value() == "12"
    assert message.is_visible() and message.text_content() == messages["iterations_refused"]
    assert page.evaluate("id => window.__ikchainFigures[id].state.iterations", fig) == 12

    # letters cannot be typed into a number field; the browser gives an empty value
    page.evaluate(
        """id => { const el = document.querySelector('#' + id + " input[name='iterations']");
                   el.value = 'abc'; el.dispatchEvent(new Event('change', {bubbles: true})); }""",
        fig,
    )
    assert box.input_value() == "12"
    assert message.text_content() == messages["iterations_refused"]
    assert page.locator(f"#{fig} .fig-error").is_hidden()


def test_a_server_refusal_is_told_in_the_page_language(page: Any, server_url: str) -> None:
    open_lesson(page, server_url, "zh")
    fig = "fig-s22"
    # a request the server refuses (over its cap), sent the way the script sends frames
    page.evaluate(
        "id => { const f = window.__ikchainFigures[id];"
        " f.state.iterations = 10 ** 6; f.request(null); }",
        fig,
    )
    wait_idle(page, fig)
    error = page.locator(f"#{fig} .fig-error")
    assert error.is_visible()
    assert error.text_content() == load_text("zh")["messages"]["server_error"]
    set_control(page, fig, "iterations", "64")
    assert error.is_hidden()  # the next answer clears it


# --------------------------------------------- 5: damping and iterations made visible


def test_solve_from_the_start_pose_shows_table_2a(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s22"
    table = next(t for t in tables_for_section("2.2", "en") if t["id"] == "table-2-damping")
    set_control(page, fig, "iterations", str(table["values"][0][1]))
    errors = []
    for row, cells in zip(table["values"], table["rows"], strict=True):
        page.evaluate(
            """([id, v]) => {
                 const el = document.querySelector('#' + id + " input[name='damping']");
                 el.value = String(v); el.dispatchEvent(new Event('input', {bubbles: true})); }""",
            [fig, row[0]],
        )
        wait_idle(page, fig)
        page.locator(f"#{fig} button[name='cold']").click()
        wait_idle(page, fig)
        assert reading(page, fig, "iterations") == cells[1]
        assert reading(page, fig, "error") == cells[2]  # the table's cell, to every digit
        errors.append(float(reading(page, fig, "error")))
    assert errors == sorted(errors)  # less damping value, further from the target


# ------------------------------------------------------ 6: keyboard moves on a grid


def test_arrow_keys_reach_the_straight_arm_row_exactly(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s21"  # default target (1.0, 0.6); Table ①'s first row is (1.4, 0)
    page.locator(f"#{fig} g.target").focus()
    press(page, "ArrowRight", 20)
    press(page, "ArrowDown", 30)
    wait_idle(page, fig)
    assert page.evaluate("id => window.__ikchainFigures[id].state.pointer", fig) == [1.4, 0.0]
    assert reading(page, fig, "target") == "(1.4000, 0.0000)"
    assert reading(page, fig, "d") == "1.400000"
    assert reading(page, fig, "reachable") == load_text("en")["readings"]["yes"]
    assert reading(page, fig, "error") == "0.000000"
    assert angles_of(page, fig) == ["0.00°", "0.00°"]


# ----------------------------------------------------- 7: CCD at the edge of reach


def test_unconverged_at_the_edge_is_said_and_resting_solves_on(page: Any, server_url: str) -> None:
    text = load_text("en")
    open_lesson(page, server_url)
    fig = "fig-s22"
    page.locator(f"#{fig} g.target").focus()
    press(page, "ArrowRight", 20)
    press(page, "ArrowDown", 30)  # (1.4, 0): d/ΣL = 1, where CCD crawls
    wait_idle(page, fig)
    assert reading(page, fig, "d_ratio") == "1.0000"
    error = float(reading(page, fig, "error"))
    status = reading(page, fig, "status")
    if error > 1e-9:  # the reading says it did not converge, in words
        assert status == text["status"]["max_iterations"]
        assert status != text["status"]["converged"]
    # one step back inside, the ring resting: the solve goes on until it converges
    press(page, "ArrowLeft", 1)
    wait_idle(page, fig)
    page.wait_for_function(
        "id => window.__ikchainFigures[id].state.frame.result.status !== 'max_iterations' || "
        "window.__ikchainFigures[id].state.resting === 0",
        arg=fig,
    )
    assert reading(page, fig, "status") == text["status"]["converged"]
    assert float(reading(page, fig, "error")) <= 1e-9


# --------------------------------------------------------------------- 8: small ones


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_tables_are_numbered_as_the_text_cites_them(page: Any, server_url: str, lang: str) -> None:
    text = load_text(lang)
    open_lesson(page, server_url, lang)
    for table_id, number in TABLE_NUMBERS.items():
        name = text["page"]["table_name"].replace("%number%", number)
        caption = page.locator(f"table#{table_id} caption").text_content().strip()
        assert caption.startswith(name), (table_id, caption)
    first = text["page"]["table_name"].replace("%number%", "①")
    assert first in page.locator("#s21").text_content()


def test_readings_are_announced_politely(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s21"
    live = page.locator(f"#{fig} .readings [aria-live='polite']")
    assert live.count() == 1
    page.locator(f"#{fig} g.target").focus()
    page.keyboard.press("ArrowLeft")
    wait_idle(page, fig)
    said = live.text_content()
    assert reading(page, fig, "target") in said and reading(page, fig, "error") in said


def test_script_that_fails_to_load_is_reported(browser: Any, server_url: str) -> None:
    context = browser.new_context()
    context.add_init_script(UNFOLD)
    page = context.new_page()
    page.route("**/static/lesson.js", lambda route: route.abort())
    page.goto(f"{server_url}/?lang=zh", wait_until="load")
    page.wait_for_function("document.documentElement.classList.contains('js-failed')")
    failed = page.locator("#fig-s21 .script-failed")
    assert failed.is_visible()
    assert failed.text_content() == load_text("zh")["page"]["script_failed"]
    assert page.locator("#fig-s21 .script-starting").is_hidden()
    context.close()


def test_circles_have_enough_contrast(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    background = page.evaluate(
        "getComputedStyle(document.querySelector('#fig-s21 svg.ik-figure')).backgroundColor"
    )
    for layer in ("reach-inner", "reach-outer"):
        stroke = page.evaluate(
            f"getComputedStyle(document.querySelector('#fig-s21 .{layer}')).stroke"
        )
        assert contrast(stroke, background) >= 4.5, (layer, stroke, background)


@pytest.mark.parametrize(("lang", "word"), [("zh", "卡住"), ("en", "stall")])
def test_stall_button_and_status_use_one_word(
    page: Any, server_url: str, lang: str, word: str
) -> None:
    open_lesson(page, server_url, lang)
    fig = "fig-s22"
    button = page.locator(f"#{fig} button[name='stall']")
    assert word in button.text_content().lower()
    button.click()
    wait_idle(page, fig)
    assert word in reading(page, fig, "status").lower()


def test_english_24_does_not_jump_as_the_ring_crosses_the_circle(
    page: Any, server_url: str
) -> None:
    open_lesson(page, server_url, "en")
    fig = "fig-s24"
    below = page.locator("#s24 .table-wrap").first

    def layout() -> tuple[float, float]:
        wait_idle(page, fig)
        return below.bounding_box()["y"] - page.locator(f"#{fig}").bounding_box()[
            "y"
        ], page.locator(f"#{fig}").bounding_box()["height"]

    page.locator(f"#{fig} g.target").focus()
    seen = {page.locator(f"#{fig}").get_attribute("data-status"): layout()}
    for _ in range(14):  # from (1.6, 0.8) outside, in across the circle, towards the root
        page.keyboard.press("Shift+ArrowLeft")
        page.keyboard.press("ArrowDown")
        seen.setdefault(page.locator(f"#{fig}").get_attribute("data-status"), layout())
        seen[f"step-{_}"] = layout()
    assert {"unreachable", "converged"} <= set(seen)
    assert len({v for v in seen.values()}) == 1, seen


def test_reading_angles_never_switch_to_e_notation(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s22"
    data = lesson_data(page)
    assert data["figures"][fig]["defaults"]["method"] == "ccd"
    page.locator(f"#{fig} g.target").focus()
    press(page, "ArrowRight", 18)
    press(page, "ArrowDown", 30)  # (1.36, 0): CCD leaves tiny, non-zero angles
    wait_idle(page, fig)
    assert all(ANGLE_TEXT.match(t) for t in angles_of(page, fig)), angles_of(page, fig)
    assert point(reading(page, fig, "target")) == (1.36, 0.0)


# ------------------------------------------- 1: bend direction, kept by every method


def drawn_turn(page: Any, fig: str) -> float:
    """Net turn of the drawn chain, from the SVG polyline alone (rad)."""
    pts = [
        [float(v) for v in p.split(",")]
        for p in page.locator(f"#{fig} .bones").get_attribute("points").split()
    ]
    heading = [math.atan2(b[1] - a[1], b[0] - a[0]) for a, b in itertools.pairwise(pts)]
    turns = [math.remainder(h2 - h1, 2 * math.pi) for h1, h2 in itertools.pairwise(heading)]
    return sum(turns)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bend_direction_is_named_by_the_turn(page: Any, server_url: str, lang: str) -> None:
    controls = load_text(lang)["controls"]
    open_lesson(page, server_url, lang)
    options = page.locator("#fig-s21 select[name='bend'] option").all_text_contents()
    assert options == [controls["bend_ccw"], controls["bend_cw"]]
    assert ("逆时针" in options[0]) if lang == "zh" else ("counter-clockwise" in options[0].lower())


def test_21_target_left_below_bends_as_chosen(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s21"
    page.locator(f"#{fig} g.target").focus()
    press(page, "Shift+ArrowLeft", 19)
    press(page, "Shift+ArrowDown", 9)  # (1.0, 0.6) → (−0.9, −0.3), the case
    wait_idle(page, fig)
    assert point(reading(page, fig, "target")) == (-0.9, -0.3)
    select = page.locator(f"#{fig} select[name='bend']")
    chosen = "option => option.selectedOptions[0].textContent"
    assert drawn_turn(page, fig) > 0  # what is drawn …
    assert "counter-clockwise" in select.evaluate(chosen).lower()  # … is what the control says
    select.select_option("-1")
    wait_idle(page, fig)
    assert drawn_turn(page, fig) < 0
    assert select.evaluate(chosen).lower().startswith("clockwise")
    assert float(reading(page, fig, "error")) < 1e-9


@pytest.mark.parametrize(
    "method",
    [
        m
        for m in METHODS
        if "max_iterations" in OPTIONS[m] and m in next(s for s in SECTIONS if s.pole).methods
    ],
)
def test_every_method_keeps_the_chosen_bend_while_dragging(
    page: Any, server_url: str, method: str
) -> None:
    """In the two-bone figure that offers every taught method (2.7)."""
    open_lesson(page, server_url)
    fig = "fig-s27"
    page.locator(f"#{fig} select[name='method']").select_option(method)
    wait_idle(page, fig)
    for bend, sign in (("-1", -1), ("1", 1)):
        page.locator(f"#{fig} select[name='bend']").select_option(bend)
        wait_idle(page, fig)
        assert sign * drawn_turn(page, fig) > 0, (method, bend)
        for x, y in ((0.3, 0.9), (-0.8, 0.4), (0.5, -0.7)):
            drag_ring(page, fig, x, y, steps=12)
            assert sign * drawn_turn(page, fig) > 0, (method, bend, x, y)
            assert float(reading(page, fig, "error")) < 1e-6


def test_23_four_bones_curl_the_chosen_way(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s23"
    page.locator(f"#{fig} select[name='bones']").select_option("4")
    wait_idle(page, fig)
    page.locator(f"#{fig} select[name='bend']").select_option("-1")
    wait_idle(page, fig)
    assert drawn_turn(page, fig) < 0
    drag_ring(page, fig, -0.6, -0.5, steps=12)
    assert drawn_turn(page, fig) < 0


def test_lang_parameter_is_case_insensitive(page: Any, server_url: str) -> None:
    response = page.goto(f"{server_url}/?lang=EN")
    assert response.status == 200
    assert page.locator("h1").text_content() == load_text("en")["page"]["title"]
