"""Table ⑤c's rows load into 2.5's figure and the figure solves exactly the row: the
same iterations, status and pose (its angles, to 1e-9 rad), with the row's pull."""

from __future__ import annotations

import math
from typing import Any

from ikchain.lesson.frames import FRAME_ITERATIONS

from .test_lesson_page import open_lesson, wait_idle

FIG = "fig-s25"


def test_every_rest_table_row_is_the_figures_solve(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    rows = page.locator("#table-rest tbody tr.row-link")
    values = page.evaluate(
        "() => Array.from(document.querySelectorAll('#table-rest tbody tr'))"
        ".map(tr => tr.lastElementChild.textContent.trim())"
    )
    count = rows.count()
    assert count == len(values) >= 6
    weak_seen = False
    for i in range(count):
        row = rows.nth(i)
        link = page.evaluate("tr => JSON.parse(tr.getAttribute('data-row'))", row.element_handle())
        row.click()
        wait_idle(page, FIG)
        got = page.evaluate(
            """id => { const f = window.__ikchainFigures[id], r = f.state.frame.result;
                       return {iterations: r.iterations, status: r.status, angles: r.angles,
                               rest: window.__ikchainChoose[id].state().rest,
                               limits: window.__ikchainChoose[id].state().limits,
                               shown: document.querySelector('#' + id +
                                   ' [data-reading=iterations]').textContent.trim()}; }""",
            FIG,
        )
        assert str(got["iterations"]) == values[i] == got["shown"], (i, got, values[i])
        assert got["status"] == "converged"
        assert got["rest"] == link["rest"] and got["limits"] == "free"
        cells = row.locator("td").all_text_contents()
        angles = [float(v.strip(" °()")) for v in cells[1].split(",")]
        drawn = [math.degrees(a) for a in got["angles"]]
        assert all(abs(a - b) <= 0.05 + 1e-9 for a, b in zip(angles, drawn, strict=True))
        if link["rest"] and got["iterations"] > FRAME_ITERATIONS:
            weak_seen = True  # a row past the figure's own drag budget, matched
    assert weak_seen
