"""In the browser: the picture of a CCD joint's turn.

In figure 2.2's replay, joint by joint, a step where a joint turned draws, inside the
figure's world group and under the chain: the ghost of the pose before the turn, the
ray from the joint to the tip before the turn, the ray to the target and the wedge of
the turned angle, with the angle's text under the status line. Every coordinate drawn
is compared with the one the server sent (read from the replay's state), as text
(the page sets the server's numbers; it computes none), and on screen through the
world group's own transform. The page fixture fails the test on any console error.
"""

from __future__ import annotations

from typing import Any

import pytest

from ikchain.lesson.content import load_text

from .test_lesson_extras import start_replay
from .test_lesson_page import open_lesson, screen_from_world, wait_idle

FIG = "fig-s22"


def picture_drawn(page: Any, fig: str) -> dict[str, Any]:
    """What the figure's turn group shows: its visibility and its elements' attributes."""
    return page.evaluate(
        """id => {
            const g = document.querySelector('#' + id + ' g.world > g.turn-picture');
            if (!g) return null;
            const q = s => g.querySelector(s);
            const line = el => ['x1', 'y1', 'x2', 'y2'].map(a => el.getAttribute(a));
            const world = g.parentNode;
            const bones = world.querySelector('.bones');
            return {
                visibility: g.getAttribute('visibility'),
                under_bones:
                    !!(g.compareDocumentPosition(bones) & Node.DOCUMENT_POSITION_FOLLOWING),
                ghost: q('polyline.turn-ghost').getAttribute('points'),
                tip: line(q('line.turn-ray-tip')),
                target: line(q('line.turn-ray-target')),
                arc: q('path.turn-arc').getAttribute('d'),
                turn: document.querySelector('#' + id + '-replay .replay-turn').textContent,
                turn_hidden: document.querySelector('#' + id + '-replay .replay-turn').hidden,
            };
        }""",
        fig,
    )


def show(page: Any, fig: str, index: int) -> None:
    page.evaluate("([id, i]) => window.__ikchainReplays[id].show(i)", [fig, index])


def numbers(text: str) -> list[float]:
    """The numbers of an attribute (JavaScript's String() of each round-trips exactly,
    so they must equal the server's numbers, not merely be close to them)."""
    return [float(v) for v in text.replace(",", " ").split() if v not in ("M", "L", "A", "Z")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_ccd_joint_step_draws_both_rays_the_arc_and_the_ghost(
    page: Any, server_url: str, lang: str
) -> None:
    open_lesson(page, server_url, lang)
    wait_idle(page, FIG)
    page.locator(f"#{FIG}-replay").scroll_into_view_if_needed()
    data = start_replay(page, FIG)
    words = load_text(lang)["replay"]
    turns = [i for i, s in enumerate(data["steps"]) if s["picture"] is not None]
    assert turns and data["steps"][turns[0]]["joint"] == 1  # two bones: joint 1 first
    # step forward from the start pose with the panel's own button: the first turn
    show(page, FIG, 0)
    page.locator(f"#{FIG}-replay button[name=forward]").click()
    assert page.evaluate("id => window.__ikchainReplays[id].state().index", FIG) == turns[0]
    for index in turns[:4]:
        show(page, FIG, index)
        step = data["steps"][index]
        pic = step["picture"]
        drawn = picture_drawn(page, FIG)
        assert drawn is not None and drawn["visibility"] == "visible"
        assert drawn["under_bones"]  # drawn under the chain
        ghost = data["steps"][pic["ghost"]]["joints"]
        assert pic["ghost"] == index - 1
        assert numbers(drawn["ghost"]) == [v for point in ghost for v in point]
        pivot = pic["pivot"]
        assert [float(v) for v in drawn["tip"]] == pivot + pic["tip"]
        assert [float(v) for v in drawn["target"]] == pivot + data["target"]
        x0, y0, x1, y1, r, sweep = pic["arc"]
        assert drawn["arc"].split()[0] == "M" and drawn["arc"].split()[-1] == "Z"
        assert numbers(drawn["arc"]) == [*pivot, x0, y0, r, r, 0, 0, sweep, x1, y1]
        assert not drawn["turn_hidden"]
        assert drawn["turn"] == words["turn"].replace("%angle%", pic["angle"])
        # on screen: the tip ray ends at the ghost's tip, the target ray at the ring
        ray_end = page.evaluate(
            """id => { const l = document.querySelector('#' + id + ' .turn-ray-target');
                       const b = l.getBoundingClientRect(); return [b.left, b.right]; }""",
            FIG,
        )
        ring = page.evaluate(
            """id => { const b = document.querySelector('#' + id + ' .target-ring')
                       .getBoundingClientRect(); return (b.left + b.right) / 2; }""",
            FIG,
        )
        sx, _ = screen_from_world(page, FIG, *data["target"])
        assert abs(sx - ring) <= 1.0  # the server's target is where the ring is drawn
        assert min(abs(sx - ray_end[0]), abs(sx - ray_end[1])) <= 2.0
    # the start pose is no turn: nothing drawn, no angle sentence
    show(page, FIG, 0)
    drawn = picture_drawn(page, FIG)
    assert drawn["visibility"] == "hidden" and drawn["turn_hidden"] and drawn["turn"] == ""
    # back to live: nothing drawn
    page.locator(f"#{FIG}-replay button[name=live]").click()
    assert picture_drawn(page, FIG)["visibility"] == "hidden"


def test_at_the_stall_the_rays_coincide_and_the_angle_reads_zero(
    page: Any, server_url: str
) -> None:
    open_lesson(page, server_url)
    page.locator(f"#{FIG} button[name='stall']").click()
    wait_idle(page, FIG)
    data = start_replay(page, FIG)
    words = load_text("en")["replay"]
    turns = [i for i, s in enumerate(data["steps"]) if s["picture"] is not None]
    assert turns
    for index in turns:
        show(page, FIG, index)
        pic = data["steps"][index]["picture"]
        assert pic["angle"] == "0.00°"
        drawn = picture_drawn(page, FIG)
        assert drawn["visibility"] == "visible"
        assert drawn["turn"] == words["turn"].replace("%angle%", "0.00°")
        # both rays leave the joint along the x axis (y = 0): one line, no wedge
        assert float(drawn["tip"][1]) == float(drawn["tip"][3]) == float(drawn["target"][3]) == 0
        x0, y0, x1, y1 = pic["arc"][:4]
        assert [x0, y0] == [x1, y1]


def test_fabrik_replay_draws_no_turn(page: Any, server_url: str) -> None:
    fig = "fig-s23"  # a figure whose menu offers FABRIK
    open_lesson(page, server_url)
    wait_idle(page, fig)
    page.locator(f"#{fig} select[name=method]").select_option("fabrik")
    wait_idle(page, fig)
    data = start_replay(page, fig)
    assert all(s["picture"] is None for s in data["steps"])
    show(page, fig, 1)
    drawn = picture_drawn(page, fig)
    assert drawn is None or drawn["visibility"] == "hidden"
