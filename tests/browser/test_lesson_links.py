"""Linked tables, the live condition number, lengths.

Expected values are the tables' own cells (the server's), a closed form, or the
family marks' positions; the page only draws what the server answers.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from ikchain.caps import CAPS
from ikchain.lesson.content import load_text, tables_for_section

from .test_lesson_page import attrs, open_lesson, point, reading, wait_idle


def table(section: str, table_id: str, lang: str = "en") -> dict[str, Any]:
    return next(t for t in tables_for_section(section, lang) if t["id"] == table_id)


def click_row(page: Any, table_id: str, index: int, fig: str) -> None:
    page.locator(f"#{table_id} tbody tr").nth(index).click()
    wait_idle(page, fig)


# ------------------------------------------------------------ 4: linked tables


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_table_1_rows_load_into_21(page: Any, server_url: str, lang: str) -> None:
    open_lesson(page, server_url, lang)
    t1 = table("2.1", "table-1", lang)
    for index, (values, cells) in enumerate(zip(t1["values"], t1["rows"], strict=True)):
        click_row(page, "table-1", index, "fig-s21")
        assert point(reading(page, "fig-s21", "target")) == pytest.approx(values[0], abs=1e-12)
        shown = [float(a.rstrip("°")) for a in reading(page, "fig-s21", "angles").split(",")]
        # the readings print 2 decimals, the table 6: the same angles (a0, dA)
        assert shown == pytest.approx([float(cells[3]), float(cells[2])], abs=0.006)
        assert "is-loaded" in (page.locator("#table-1 tbody tr").nth(index).get_attribute("class"))


def test_table_3_rows_load_their_start_and_sit_on_their_marks(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s23"
    t3 = table("2.3", "table-3")
    marks = page.locator(f"#{fig} .family-mark")
    assert marks.all_text_contents() == ["A", "B", "C"]
    assert page.locator(f"#{fig} .family-marks").is_visible()  # the default target is Table ③'s
    slider = page.locator(f"#{fig} input[name='family']")
    for index, cells in enumerate(t3["rows"]):
        click_row(page, "table-3", index, fig)
        # the row's tip and joint 1, to the readings' 4 decimals
        assert point(reading(page, fig, "tip")) == pytest.approx(point(cells[1]), abs=6e-5)
        assert point(reading(page, fig, "joint1")) == pytest.approx(point(cells[3]), abs=6e-5)
        assert reading(page, fig, "error") == cells[2]
        # the slider stands on the row's mark
        position = float(marks.nth(index).get_attribute("data-position"))
        assert float(slider.input_value()) == pytest.approx(position, abs=0.006)
        mark_x = marks.nth(index).bounding_box()
        drawn = drawn_joint1(page, fig)
        assert drawn == pytest.approx(point(reading(page, fig, "joint1")), abs=1e-4)
        assert mark_x["width"] > 0
    # away from Table ③'s target, the marks do not apply and are hidden
    page.locator(f"#{fig} g.target").focus()
    page.keyboard.press("ArrowLeft")
    wait_idle(page, fig)
    assert page.locator(f"#{fig} .family-marks").is_hidden()


def drawn_joint1(page: Any, fig: str) -> list[float]:
    return attrs(page, f"#{fig} .joint[data-index='1']", "cx", "cy")


def test_rows_load_by_keyboard(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    row = page.locator("#table-4 tbody tr").nth(7)  # d = 2.00
    row.focus()
    page.keyboard.press("Enter")
    wait_idle(page, "fig-s24")
    t4 = table("2.4", "table-4")
    assert reading(page, "fig-s24", "error") == t4["rows"][7][2]
    assert page.locator("#fig-s24").get_attribute("data-status") == "unreachable"


# ----------------------------------------------- 5: the live condition number


def test_condition_number_reading_matches_table_2b(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s22"
    t2b = table("2.2", "table-2b")
    label = page.locator(f"#{fig} .reading-condition dt").text_content()
    assert label == t2b["columns"][-1] == load_text("en")["readings"]["condition"]
    checked = 0
    for index, (values, cells) in enumerate(zip(t2b["values"], t2b["rows"], strict=True)):
        if values[3] is None or values[3] > CAPS["max_iterations"]:
            continue  # the figure cannot run more sweeps than the server's cap
        click_row(page, "table-2b", index, fig)
        assert reading(page, fig, "iterations") == cells[3]
        assert reading(page, fig, "condition") == cells[-1]
        checked += 1
    assert checked >= 4


def test_condition_number_climbs_toward_full_extension(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s22"
    page.locator(f"#{fig} g.target").focus()
    seen = []
    for _ in range(4):  # outward along the target's direction, toward the circle
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        wait_idle(page, fig)
        seen.append(float(reading(page, fig, "condition")))
    assert seen == sorted(seen) and seen[-1] > seen[0]


# ---------------------------------------------------- 6: editable bone lengths


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lengths_make_the_inner_circle_come_and_go(page: Any, server_url: str, lang: str) -> None:
    messages = load_text(lang)["messages"]
    open_lesson(page, server_url, lang)
    fig = "fig-s24"
    inner = page.locator(f"#{fig} .reach-inner")
    first = page.locator(f"#{fig} input[name='length1']")
    second = page.locator(f"#{fig} input[name='length2']")
    message = page.locator(f"#{fig} [data-control='lengths'] .ctl-msg")

    def set_length(box: Any, value: str) -> None:
        box.fill(value)
        box.press("Enter")
        wait_idle(page, fig)

    set_length(first, "0.6")
    set_length(second, "0.6")
    assert inner.get_attribute("visibility") == "hidden"  # equal bones: no inner circle
    assert float(page.locator(f"#{fig} .reach-outer").get_attribute("r")) == pytest.approx(1.2)

    set_length(first, "0.9")
    set_length(second, "0.3")
    assert inner.get_attribute("visibility") == "visible"
    assert float(inner.get_attribute("r")) == pytest.approx(abs(0.9 - 0.3), abs=1e-12)
    d = float(reading(page, fig, "d"))
    assert float(reading(page, fig, "d_ratio")) == pytest.approx(d / 1.2, abs=6e-5)

    set_length(first, "5")  # too long: the longest allowed, said so
    assert first.input_value() == "0.9"
    assert message.is_visible() and message.text_content() == messages["lengths_clamped"]
    set_length(second, "0.4")
    assert message.is_hidden()
    page.evaluate(
        """id => { const el = document.querySelector('#' + id + " input[name='length2']");
                   el.value = ''; el.dispatchEvent(new Event('change', {bubbles: true})); }""",
        fig,
    )
    assert second.input_value() == "0.4"
    assert message.text_content() == messages["lengths_refused"]
    assert page.locator(f"#{fig} .fig-error").is_hidden()
    # the inner circle is drawn where the tip cannot go: a ring dragged inside is refused
    assert math.isclose(float(inner.get_attribute("r")), 0.5, abs_tol=1e-12)


# ------------------------------------------------- seed: the four-bone family


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_four_bones_have_two_family_sliders(page: Any, server_url: str, lang: str) -> None:
    open_lesson(page, server_url, lang)
    fig = "fig-s23"
    page.locator(f"#{fig} select[name='bones']").select_option("4")
    wait_idle(page, fig)
    first = page.locator(f"#{fig} input[name='family']")
    second = page.locator(f"#{fig} input[name='family2']")
    assert first.is_visible() and second.is_visible() and second.is_enabled()
    assert (
        page.locator(f"#{fig} [data-control='family2'] .ctl-label").text_content()
        == (load_text(lang)["controls"]["family2"])
    )
    tip = reading(page, fig, "tip")

    def joints() -> list[list[float]]:
        return [
            [float(v) for v in p.split(",")]
            for p in page.locator(f"#{fig} .bones").get_attribute("points").split()
        ]

    before = joints()
    second.focus()
    for _ in range(30):
        page.keyboard.press("ArrowRight")
    wait_idle(page, fig)
    after = joints()
    assert reading(page, fig, "tip") == tip  # the tip stays on the target
    assert float(reading(page, fig, "error")) < 1e-9
    assert math.dist(after[1], before[1]) < 1e-9  # joint 1 held
    assert math.dist(after[2], before[2]) > 0.02  # joint 2 moved
    first.focus()
    for _ in range(30):
        page.keyboard.press("ArrowLeft")
    wait_idle(page, fig)
    moved = joints()
    assert math.dist(moved[1], after[1]) > 0.02  # the first slider moves joint 1
    assert reading(page, fig, "tip") == tip
