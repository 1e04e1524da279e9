"""The replay panel's numbers on the page, in Chromium:
each failed on the main it was written against.

Expected values come from the server's own solve of the same request (frame_reply).
"""

from __future__ import annotations

import json
from typing import Any

from ikchain.web.protocol import frame_reply

from .test_lesson_page import open_lesson, reading, wait_idle


def replay_done(page: Any, fig: str) -> None:
    page.locator(f"#{fig}-replay button[name='start']").click()
    page.wait_for_function(
        "id => { const r = window.__ikchainReplays[id].state();"
        " return r.data && !r.waiting && !r.playing; }",
        arg=fig,
        timeout=20_000,
    )


def test_22_replay_ends_on_the_figures_bend_and_the_figure_shows_it(
    page: Any, server_url: str
) -> None:
    """Defect 3: with ↻ the replay ends on the figure's pose (59.45°, −67.98°), not its
    mirror, and the figure then draws that same solve."""
    open_lesson(page, server_url)
    fig = "fig-s22"
    page.locator(f"#{fig} select[name='bend']").select_option("-1")
    wait_idle(page, fig)
    shown = reading(page, fig, "angles")
    replay_done(page, fig)
    data = page.evaluate("id => window.__ikchainReplays[id].state().data", fig)
    page.locator(f"#{fig}-replay button[name='live']").click()
    expected = frame_reply(
        json.dumps(
            {
                "id": 1,
                "lengths": [0.8, 0.6],
                "target": [1.0, 0.6],
                "method": "ccd",
                "iterations": 64,
                "tolerance": 1e-9,
                "damping": 1.0,
                "bend": -1,
            }
        )
    )["frame"]["readings"]
    assert data["steps"][-1]["readings"]["angles"] == expected["angles"] == shown
    assert reading(page, fig, "angles") == expected["angles"]
    status = page.locator(f"#{fig}-replay .replay-status").text_content()
    assert expected["iterations"] in status


def test_22_stall_replay_replays_the_stall_start(page: Any, server_url: str) -> None:
    """Defect 6: after "Show the stall" the replay starts from the all-zero pose and
    ends stalled at the same error, not a bent start converging in 21 iterations."""
    open_lesson(page, server_url)
    fig = "fig-s22"
    page.locator(f"#{fig} button[name='stall']").click()
    wait_idle(page, fig)
    stalled = reading(page, fig, "error")
    assert page.locator(f"#{fig} line.gap").get_attribute("visibility") != "hidden"
    replay_done(page, fig)
    data = page.evaluate("id => window.__ikchainReplays[id].state().data", fig)
    assert data["status"] == "stalled"
    assert data["steps"][0]["joints"] == [[0, 0], [0.8, 0], [1.4, 0]]
    assert data["error"] == stalled
