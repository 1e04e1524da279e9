"""The page's one state: a figure keeps everything that changes in
``fig.state``, the extensions change only their own part of it, and the requests the
state produces honour the server's contracts (smoothing's previous target, the
replay's step cap).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest

from .test_lesson_extras import open_lesson, start_replay, wait_idle

#: What a Figure object holds besides ``state``: handles of its DOM and the server's
#: spec, none of which changes after it is built.
FIXED_FIELDS = {
    "el",
    "id",
    "spec",
    "options",
    "defaults",
    "svg",
    "world",
    "extent",
    "layer",
    "jointTemplate",
    "readings",
    "errorEl",
    "liveEl",
    "marks",
    "marksTarget",
    "controls",
}


def own_fields(page: Any, fig: str) -> set[str]:
    return set(page.evaluate("id => Object.keys(window.__ikchainFigures[id])", fig))


def test_a_figure_keeps_what_changes_in_its_one_state(page: Any, server_url: str) -> None:
    """Drag, keys, a family slider, a replay and the limits panel: afterwards every
    figure still holds nothing beyond its fixed fields and ``state``."""
    open_lesson(page, server_url)
    figures = ["fig-s22", "fig-s23", "fig-s24", "fig-s25"]
    for fig in figures:
        assert own_fields(page, fig) == FIXED_FIELDS | {"state"}, fig
    # drag in 2.2 and replay it
    fig = "fig-s22"
    ring = page.locator(f"#{fig} .target-ring")
    ring.scroll_into_view_if_needed()
    box = ring.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + 40, box["y"] - 20, steps=8)
    page.mouse.up()
    wait_idle(page, fig)
    start_replay(page, fig)
    # keys in 2.4, the family slider in 2.3, the limits select in 2.5
    page.locator("#fig-s24 g.target").focus()
    page.keyboard.press("ArrowLeft")
    wait_idle(page, "fig-s24")
    page.locator("#fig-s23 input[name='family']").fill("0.4")
    wait_idle(page, "fig-s23")
    page.locator("#fig-s25-choose select[name='limits']").select_option("free")
    wait_idle(page, "fig-s25")
    for fig in figures:
        assert own_fields(page, fig) == FIXED_FIELDS | {"state"}, fig
    state = page.evaluate("() => Object.keys(window.__ikchainFigures['fig-s22'].state)")
    # the request bookkeeping and the drag live in the state, as update() reads them
    assert {"request", "dragging", "resting", "sliding", "shown", "given"} <= set(state)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_smoothing_sends_the_drawn_target_and_eases_toward_the_pointer(
    page: Any, server_url: str, lang: str
) -> None:
    """With smoothing on, every request carries the target drawn now as
    ``previous_target``, and the ring covers the same fraction of what is left at
    every frame, less than all of it (the README: it "eases toward the pointer")."""
    open_lesson(page, server_url, lang)
    fig = "fig-s24"
    page.locator(f"#{fig} input[name='smoothing']").check()
    wait_idle(page, fig)
    page.evaluate(
        """id => {
            const api = window.ikchainLesson, send = api.transport.send.bind(api.transport);
            window.__sent = []; window.__drawn = [];
            api.transport.send = (owner, body) => {
                if (owner === window.__ikchainFigures[id]) window.__sent.push(
                    {previous: body.previous_target, pointer: body.target,
                     drawn: owner.state.frame.result.target});
                return send(owner, body);
            };
            api.hooks.push(f => {
                if (f.id === id) window.__drawn.push(f.state.frame.result.target);
            });
        }""",
        fig,
    )
    page.locator(f"#{fig} g.target").focus()
    page.keyboard.press("Shift+ArrowLeft")
    wait_idle(page, fig)
    sent = page.evaluate("() => window.__sent")
    assert len(sent) >= 3  # a key press, then the easing frames
    for body in sent:
        assert body["previous"] is not None
        assert body["previous"] == body["drawn"]
    pointer = sent[0]["pointer"]
    start = sent[0]["previous"]
    drawn = [start] + [t for t in page.evaluate("() => window.__drawn") if t != start]
    left = [math.dist(t, pointer) for t in drawn]
    assert left[0] > 0.05
    fractions = [1 - b / a for a, b in itertools.pairwise(left) if b > 1e-6]
    assert fractions and all(0 < f < 1 for f in fractions)
    assert max(fractions) - min(fractions) < 1e-6  # one easing factor, frame after frame
    assert left[-1] == 0.0  # within 1 µm it snaps onto the pointer


def test_a_replay_is_asked_for_no_more_steps_than_the_server_sends(
    page: Any, server_url: str
) -> None:
    """Four bones, CCD joint by joint, 200 iterations: a step a bone per iteration, the
    start pose and a mirror step must fit the README's 260 drawn steps, so the page
    asks for (260 − 2) // 4 = 64 iterations and the server answers, not refuses."""
    open_lesson(page, server_url)
    fig = "fig-s23"
    page.locator(f"#{fig} select[name='bones']").select_option("4")
    wait_idle(page, fig)
    box = page.locator(f"#{fig} input[name=iterations]")
    box.fill("200")
    box.press("Enter")
    wait_idle(page, fig)
    page.evaluate(
        """id => {
            const api = window.ikchainLesson, send = api.transport.send.bind(api.transport);
            api.transport.send = (owner, body) => {
                if (body.kind === 'replay') window.__replayBody = body;
                return send(owner, body);
            };
        }""",
        fig,
    )
    page.locator(f"#{fig}-replay button[name=start]").click()
    page.wait_for_function(
        "id => { const r = window.__ikchainReplays[id].state(); return !r.waiting; }", arg=fig
    )
    replay = page.evaluate("id => window.__ikchainReplays[id].state()", fig)
    body = page.evaluate("() => window.__replayBody")
    assert replay["error"] is None and replay["data"] is not None  # not refused
    assert len(replay["data"]["steps"]) <= 260
    assert body["method"] == "ccd" and body["joint_steps"] is True
    assert body["iterations"] == (260 - 2) // 4
