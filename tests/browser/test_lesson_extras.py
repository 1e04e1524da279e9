"""The replay, motion and chooser panels in Chromium: the replay (and, later, moving targets and
section 2.5), on desktop and on a 390 × 844 touch phone, in both languages.

The page's scripts only draw what the server sends, so each check reads the server's
numbers back off the page (SVG attributes, readings) and holds them to properties
that could fail: the drawn pose is the replayed step's, the cursor follows the step,
the reader's input ends a replay.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ikchain.lesson import limits_page
from ikchain.lesson.content import load_text

from .conftest import UNFOLD

SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
PHONE = {"width": 390, "height": 844}


def open_lesson(page: Any, base: str, lang: str = "en") -> None:
    page.goto(f"{base}/?lang={lang}")
    page.wait_for_function("document.documentElement.classList.contains('js-ready')")


@contextlib.contextmanager
def phone_lesson(browser: Any, base: str, lang: str) -> Iterator[Any]:
    """The lesson open on a 390 × 844 touch phone; on leaving, no script error was
    raised on the page, and the phone's browser context is closed."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    context.add_init_script(UNFOLD)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        open_lesson(page, base, lang)
        yield page
        assert errors == []
    finally:
        context.close()


def wait_idle(page: Any, fig: str) -> None:
    page.wait_for_function(
        """id => {
            const f = window.__ikchainFigures[id];
            return f && f.inflight === null && !f.pending && f.state.frame.settled !== false;
        }""",
        arg=fig,
    )


def start_replay(page: Any, fig: str) -> dict[str, Any]:
    """Press "Replay from the start pose", wait for the answer, pause; the replay data."""
    page.locator(f"#{fig}-replay button[name=start]").click()
    page.wait_for_function(
        """id => { const p = window.__ikchainReplays[id]; const r = p && p.state();
                   return r && r.data && !r.waiting; }""",
        arg=fig,
    )
    page.evaluate("id => window.__ikchainReplays[id].stop()", fig)
    return page.evaluate("id => window.__ikchainReplays[id].state().data", fig)


def replay_index(page: Any, fig: str) -> int | None:
    return page.evaluate("id => window.__ikchainReplays[id].state().index", fig)


def drawn_bones(page: Any, fig: str) -> list[list[float]]:
    points = page.locator(f"#{fig} .bones").get_attribute("points").split()
    return [[float(v) for v in p.split(",")] for p in points]


def reading(page: Any, fig: str, key: str) -> str:
    return page.locator(f"#{fig} [data-reading='{key}']").text_content().strip()


# ----------------------------------------------------------------------------- replay


def test_replay_draws_each_step_the_server_sent(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s22"
    live = drawn_bones(page, fig)
    data = start_replay(page, fig)
    steps = data["steps"]
    assert steps[0]["iteration"] == 0 and data["method"] == "ccd"
    # CCD, two bones, joint by joint: two steps per sweep after the start pose
    assert len(steps) == 2 * data["iterations"] + 1

    page.locator("#fig-s22-replay input[name=scrub]").evaluate(
        "(el) => { el.value = '0'; el.dispatchEvent(new Event('input', {bubbles: true})); }"
    )
    assert replay_index(page, fig) == 0
    for index in range(0, 6):
        step = steps[index]
        assert drawn_bones(page, fig) == step["joints"]
        assert reading(page, fig, "error") == step["readings"]["error"]
        assert reading(page, fig, "iterations") == str(step["iteration"])
        cursor = page.locator("#fig-s22-replay .cursor")
        assert float(cursor.get_attribute("x1")) == pytest.approx(step["x"], abs=1e-9)
        assert cursor.get_attribute("visibility") == "visible"
        turning = page.locator("#fig-s22 .is-turning")
        assert turning.count() == (0 if step["joint"] is None else 1)
        page.locator("#fig-s22-replay button[name=forward]").click()
        assert replay_index(page, fig) == index + 1

    status = page.locator("#fig-s22-replay .replay-status").text_content()
    assert "joint" in status  # "Iteration 3 of N: joint 0 has just turned."
    page.locator("#fig-s22-replay button[name=back]").click()
    assert replay_index(page, fig) == 5

    # Back to live: the live frame is drawn again.
    page.locator("#fig-s22-replay button[name=live]").click()
    assert replay_index(page, fig) is None
    assert drawn_bones(page, fig) == live


def test_replay_plays_to_the_final_pose_and_says_why_it_stopped(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s23"
    page.locator(f"#{fig}-replay input[name=joints]").uncheck()
    data = start_replay(page, fig)
    assert all(step["joint"] is None for step in data["steps"])
    page.locator(f"#{fig}-replay button[name=play]").click()
    last = len(data["steps"]) - 1
    page.wait_for_function(
        "([id, last]) => window.__ikchainReplays[id].state().index === last",
        arg=[fig, last],
        timeout=20_000,
    )
    assert drawn_bones(page, fig) == data["steps"][-1]["joints"]
    text = load_text("en")
    status = page.locator(f"#{fig}-replay .replay-status").text_content()
    assert text["status"][data["status"]] in status and data["error"] in status
    assert page.locator(f"#{fig}").get_attribute("data-status") == data["status"]


def test_damping_and_iteration_limit_show_in_the_replay(page: Any, server_url: str) -> None:
    """Defect 5: with a warm start the figure hides them; the replay shows them."""
    open_lesson(page, server_url)
    fig = "fig-s22"
    full = start_replay(page, fig)
    page.locator(f"#{fig} input[name=damping]").fill("0.25")
    wait_idle(page, fig)
    assert page.locator(f"#{fig}-replay").get_attribute("class").split().count("is-stale") == 1
    slow = start_replay(page, fig)
    assert slow["iterations"] > full["iterations"]
    page.locator(f"#{fig} input[name=iterations]").fill("5")
    page.locator(f"#{fig} input[name=iterations]").press("Enter")
    wait_idle(page, fig)
    short = start_replay(page, fig)
    assert short["iterations"] == 5 and short["status"] == "max_iterations"
    last = [float(run["steps"][-1]["readings"]["error"]) for run in (short, slow)]
    assert last[0] > last[1]


def test_dragging_the_ring_ends_the_replay(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s22"
    start_replay(page, fig)
    assert replay_index(page, fig) is not None
    page.locator(f"#{fig} .target").focus()
    page.keyboard.press("ArrowUp")
    wait_idle(page, fig)
    assert replay_index(page, fig) is None
    frame = page.evaluate("id => window.__ikchainFigures[id].state.frame.result.joints", fig)
    assert drawn_bones(page, fig) == frame
    assert "is-stale" in page.locator(f"#{fig}-replay").get_attribute("class")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_replay_on_a_phone_with_touch(browser: Any, server_url: str, lang: str) -> None:
    with phone_lesson(browser, server_url, lang) as page:
        fig = "fig-s22"
        page.locator(f"#{fig}-replay button[name=start]").scroll_into_view_if_needed()
        page.locator(f"#{fig}-replay button[name=start]").tap()
        page.wait_for_function(
            "id => { const r = window.__ikchainReplays[id].state(); return r.data && !r.waiting; }",
            arg=fig,
        )
        page.locator(f"#{fig}-replay button[name=play]").tap()  # pause
        at = replay_index(page, fig)
        page.locator(f"#{fig}-replay button[name=forward]").tap()
        assert replay_index(page, fig) == at + 1
        panel = page.locator(f"#{fig}-replay")
        width = panel.evaluate("el => [el.scrollWidth, el.clientWidth]")
        assert width[0] <= width[1]
        box = panel.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        words = load_text(lang)["replay"]
        assert page.locator(f"#{fig}-replay .replay-title").text_content() == words["title"]
        # chart labels stay legible: the tick font is at least 11 CSS px on screen
        size = page.locator(f"#{fig}-replay svg.error-chart").evaluate(
            """svg => { const t = svg.querySelector('.tick');
                        return t.getBoundingClientRect().height; }"""
        )
        assert size >= 11
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        panel.screenshot(path=str(SCREENSHOTS / f"replay-phone-{lang}.png"))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_artifact_replay_panel_desktop_screenshot(page: Any, server_url: str, lang: str) -> None:
    """An artifact for people to look at (artifacts/screenshots), plus what it must show:
    a filled-in status line and a picture of some size."""
    open_lesson(page, server_url, lang)
    start_replay(page, "fig-s22")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#fig-s22-replay").screenshot(path=str(SCREENSHOTS / f"replay-{lang}.png"))
    assert (SCREENSHOTS / f"replay-{lang}.png").stat().st_size > 1000
    status = page.locator("#fig-s22-replay .replay-status").text_content()
    assert status and "{" not in status and "%" not in status


def test_replay_without_scripts_shows_the_default_solve(page_no_js: Any, server_url: str) -> None:
    page_no_js.goto(f"{server_url}/?lang=en")
    panel = page_no_js.locator("#fig-s22-replay")
    assert panel.locator("button[name=start]").is_disabled()
    summary = panel.locator(".replay-status").text_content()
    assert "CCD" in summary and "{" not in summary and "%" not in summary
    assert panel.locator("svg.error-chart polyline").count() == 1
    box = panel.locator("svg.error-chart").bounding_box()
    assert box["width"] > 200 and math.isfinite(box["height"])


# ----------------------------------------------------------------------------- motion


def start_motion(page: Any, player: str) -> dict[str, Any]:
    """Press Play, wait until the answer is playing; the motion data."""
    page.locator(f"#{player} button[name=play]").click()
    page.wait_for_function(
        "id => { const s = window.__ikchainMotions[id].state; return s.data && !s.waiting; }",
        arg=player,
    )
    return page.evaluate("id => window.__ikchainMotions[id].state.data", player)


def motion_frame(page: Any, player: str) -> int:
    return page.evaluate("id => window.__ikchainMotions[id].state.frame", player)


def test_motion_plays_the_servers_frames_with_a_trail(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    player = "motion-player"
    data = start_motion(page, player)
    assert set(data["methods"]) == {"ccd", "fabrik", "dls"}
    first = motion_frame(page, player)
    page.wait_for_timeout(400)
    assert motion_frame(page, player) != first  # playing: the frame advances with the clock
    status = page.locator(f"#{player} .motion-status")
    assert status.get_attribute("aria-live") == "off"  # not announced 60 times a second
    page.locator(f"#{player} button[name=play]").click()  # pause
    assert status.get_attribute("aria-live") == "polite"
    frame = motion_frame(page, player)
    page.wait_for_timeout(200)
    assert motion_frame(page, player) == frame

    bones = drawn_bones(page, player)
    assert bones == data["methods"]["ccd"]["joints"][frame]
    ring = page.locator(f"#{player} .target-ring")
    assert [float(ring.get_attribute("cx")), float(ring.get_attribute("cy"))] == data["targets"][
        frame
    ]
    trail = [
        [float(v) for v in p.split(",")]
        for p in page.locator(f"#{player} .trail").get_attribute("points").split()
    ]
    lap = data["frames_per_lap"]
    expected = [
        pose[-1] for pose in data["methods"]["ccd"]["joints"][max(0, frame - lap + 1) : frame + 1]
    ]
    assert trail == expected
    cursor = page.locator(f"#{player} .motion-chart .cursor")
    assert float(cursor.get_attribute("x1")) == pytest.approx(data["cursor"][frame], abs=1e-9)
    status = page.locator(f"#{player} .motion-status").text_content()
    assert data["methods"]["dls"]["errors"][frame] in status

    # Another method drawn: no new request, its own poses.
    page.locator(f"#{player} select[name=show]").select_option("dls")
    assert page.evaluate("id => window.__ikchainMotions[id].inflight", player) is None
    assert drawn_bones(page, player) == data["methods"]["dls"]["joints"][frame]


def test_motion_controls_ask_for_a_new_path(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    player = "motion-player"
    start_motion(page, player)
    page.locator(f"#{player} select[name=path]").select_option("jump")
    page.locator(f"#{player} select[name=budget]").select_option("16")
    page.wait_for_function(
        """id => { const s = window.__ikchainMotions[id].state;
                   return s.data && !s.waiting && s.data.path === 'jump'
                          && s.data.budget === 16; }""",
        arg=player,
    )
    data = page.evaluate("id => window.__ikchainMotions[id].state.data", player)
    outer = data["reach"]["outer"]
    outside = [math.hypot(*t) > outer for t in data["targets"]]
    assert any(outside) and not all(outside)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_motion_on_a_phone(browser: Any, server_url: str, lang: str) -> None:
    with phone_lesson(browser, server_url, lang) as page:
        player = "motion-player"
        button = page.locator(f"#{player} button[name=play]")
        button.scroll_into_view_if_needed()
        button.tap()
        page.wait_for_function(
            "id => { const s = window.__ikchainMotions[id].state; return s.data && !s.waiting; }",
            arg=player,
        )
        el = page.locator(f"#{player}")
        sizes = el.evaluate("el => [el.scrollWidth, el.clientWidth]")
        assert sizes[0] <= sizes[1]
        # not a drag target: a swipe on the picture scrolls the page
        touch = page.locator(f"#{player} svg.motion-figure").evaluate(
            "svg => getComputedStyle(svg).touchAction"
        )
        assert touch == "auto"
        assert button.text_content() == load_text(lang)["motion"]["pause"]
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        el.screenshot(path=str(SCREENSHOTS / f"motion-phone-{lang}.png"))


def test_motion_without_scripts_reads_whole(page_no_js: Any, server_url: str) -> None:
    page_no_js.goto(f"{server_url}/?lang=zh")
    player = page_no_js.locator("#motion-player")
    assert player.locator("svg.motion-figure .trail").get_attribute("points").count(",") > 10
    assert player.locator(".motion-chart polyline.series").count() == 3
    assert page_no_js.locator("#table-motion-tracking tbody tr").count() == 3
    text = load_text("zh")
    assert player.locator(".motion-status").text_content() == text["motion"]["noscript"]


# ----------------------------------------------------------------- 2.5: joint limits


def screen_from_world(page: Any, svg: str, x: float, y: float) -> tuple[float, float]:
    return tuple(
        page.evaluate(
            """([sel, x, y]) => {
                const m = document.querySelector(sel + ' g.world').getScreenCTM();
                return [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
            }""",
            [svg, x, y],
        )
    )


def move_to(page: Any, fig: str, target: list[float]) -> None:
    """Put the figure's ring at ``target`` exactly, as a keyboard move would."""
    page.evaluate("([id, t]) => window.__ikchainFigures[id].moveTo(t)", [fig, target])
    wait_idle(page, fig)


def click_world(page: Any, fig: str, x: float, y: float) -> None:
    # the drawing: a figure with its replay panel inside can be taller than the window
    page.locator(f"#{fig} svg.ik-figure").scroll_into_view_if_needed()
    sx, sy = screen_from_world(page, f"#{fig}", x, y)
    page.mouse.click(sx, sy)
    wait_idle(page, fig)


def test_limits_hold_the_chain_and_show_where_it_can_reach(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s25"
    layer = page.locator(f"#{fig} .limits-layer")
    assert layer.get_attribute("visibility") == "visible"
    assert page.locator(f"#{fig} .limit-arc").count() == 3
    assert len(page.locator(f"#{fig} .limit-reach").get_attribute("d")) > 100

    # Below the shoulder: outside the shading, the limited chain cannot reach it.
    click_world(page, fig, 0.2, -0.9)
    frame = page.evaluate("id => window.__ikchainFigures[id].state.frame", fig)
    limits = page.evaluate("id => window.__ikchainChoose[id].limits()", fig)
    # in the circle, yet out of reach under the limits: the readings say so
    assert frame["result"]["error"] > 0.1 and not frame["result"]["reachable"]
    for angle, (low, high) in zip(frame["result"]["angles"], limits, strict=True):
        assert low - 1e-12 <= angle <= high + 1e-12
    arcs = [p.get_attribute("d") for p in page.locator(f"#{fig} .limit-arc").all()]
    assert arcs == frame["limits"]["arcs"]

    # Limits off: the free chain reaches the same target, and the layer goes.
    page.locator(f"#{fig}-choose select[name=limits]").select_option("free")
    wait_idle(page, fig)
    assert float(reading(page, fig, "error")) < 1e-9
    assert layer.get_attribute("visibility") == "hidden"
    assert page.locator(f"#{fig}").get_attribute("data-limits") == "free"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_readings_say_the_reach_under_the_limits(page: Any, server_url: str, lang: str) -> None:
    """Target (0, −0.6): no pose within the limits reaches it, and the readings give
    the library's distance to the nearest tip they allow (the frame's own min_error,
    6 decimals) and the joints held at a bound, whose wedges are drawn darker.
    Target (0.5, 0): reachable under the limits, whatever CCD's error."""
    import ikchain
    from ikchain.formatting import format_number
    from ikchain.lesson import limits as lesson_limits

    words = load_text(lang)["readings"]
    open_lesson(page, server_url, lang)
    fig = "fig-s25"
    label = page.locator(f"#{fig} .reading-reachable dt")
    assert label.text_content() == words["reachable_limited"]
    bounds = lesson_limits.limits_from_preset("arm", 3)
    chain = ikchain.Chain([0.6, 0.45, 0.35], bounds)
    least = ikchain.solve(chain, [0.0, -0.6], method="ccd", max_iterations=0).min_error
    move_to(page, fig, [0.0, -0.6])
    frame = page.evaluate("id => window.__ikchainFigures[id].state.frame", fig)
    assert frame["result"]["target"] == [0.0, -0.6]
    assert format_number(least, 6) == "0.315104" == frame["readings"]["min_error"]
    expected = words["limited_no"].replace("%min_error%", "0.315104")
    assert reading(page, fig, "reachable") == expected
    held = [i for i, v in enumerate(frame["result"]["at_limit"]) if v]
    assert held and reading(page, fig, "held") == frame["readings"]["held"]
    assert page.locator(f"#{fig} .reading-held").is_visible()
    classes = [p.get_attribute("class") for p in page.locator(f"#{fig} .limit-arc").all()]
    assert [("at-limit" in c) for c in classes] == frame["result"]["at_limit"]
    page.locator(f"#{fig}").screenshot(path=str(SCREENSHOTS / f"s25-unreachable-{lang}.png"))

    move_to(page, fig, [0.5, 0.0])
    frame = page.evaluate("id => window.__ikchainFigures[id].state.frame", fig)
    assert frame["result"]["target"] == [0.5, 0.0] and frame["result"]["reachable"] is True
    assert reading(page, fig, "reachable") == words["limited_yes"]

    # limits off: the plain reading and label come back, the held joints go
    page.locator(f"#{fig}-choose select[name=limits]").select_option("free")
    wait_idle(page, fig)
    assert label.text_content() == words["reachable"]
    assert reading(page, fig, "reachable") == words["yes"]
    assert page.locator(f"#{fig} .reading-held").is_hidden()


def test_replay_in_25_solves_with_the_figures_limits(page: Any, server_url: str) -> None:
    """The replay asks for the figure's own chain: with the limits on, every replayed
    pose keeps each joint within them (read back off the drawn joints)."""
    open_lesson(page, server_url)
    fig = "fig-s25"
    click_world(page, fig, 0.2, -0.9)  # below the shoulder, where the free chain would go
    limits = page.evaluate("id => window.__ikchainChoose[id].limits()", fig)
    body = page.evaluate("id => window.__ikchainReplays[id].body()", fig)
    assert body["limits"] == limits and body["bend"] is None
    data = start_replay(page, fig)
    assert len(data["steps"]) > 2
    for step in data["steps"][1:]:
        joints = step["joints"]
        absolute = [math.atan2(b[1] - a[1], b[0] - a[0]) for a, b in itertools.pairwise(joints)]
        relative = [absolute[0]] + [
            math.remainder(b - a, 2 * math.pi) for a, b in itertools.pairwise(absolute)
        ]
        for angle, (low, high) in zip(relative, limits, strict=True):
            assert low - 1e-6 <= angle <= high + 1e-6


def test_fabrik_keeps_the_limits(page: Any, server_url: str) -> None:
    """FABRIK takes joint limits like the other methods: the limits stay drawn and on."""
    open_lesson(page, server_url, "zh")
    fig = "fig-s25"
    page.locator(f"#{fig} select[name=method]").select_option("fabrik")
    wait_idle(page, fig)
    assert page.locator(f"#{fig} .fig-error").is_hidden()
    assert page.locator(f"#{fig} .limits-layer").get_attribute("visibility") == "visible"
    note = page.locator(f"#{fig}-choose .choose-note").text_content()
    assert note == load_text("zh")["choose"]["bend_limits_note"]
    assert page.locator(f"#{fig} select[name=bend]").is_disabled()


def test_bend_control_is_off_while_limits_or_the_pull_pick_the_side(
    page: Any, server_url: str
) -> None:
    """With limits or the pull on, the request carries no bend: the page must not offer
    a control that does nothing, and says which of the two decides."""
    open_lesson(page, server_url)
    fig = "fig-s25"
    bend = page.locator(f"#{fig} select[name=bend]")
    words = load_text("en")["choose"]
    note = page.locator(f"#{fig}-choose .choose-note")
    assert bend.is_disabled() and note.text_content() == words["bend_limits_note"]
    assert page.evaluate("id => window.__ikchainFigures[id].body()", fig)["bend"] is None

    page.locator(f"#{fig}-choose select[name=limits]").select_option("free")
    wait_idle(page, fig)
    assert bend.is_enabled() and note.text_content() == ""
    assert page.evaluate("id => window.__ikchainFigures[id].body()", fig)["bend"] in (1, -1)

    page.locator(f"#{fig} select[name=method]").select_option("dls")
    page.locator(f"#{fig}-choose select[name=rest]").select_option("1.0")
    wait_idle(page, fig)
    assert bend.is_disabled() and note.text_content() == words["bend_rest_note"]
    assert page.evaluate("id => window.__ikchainFigures[id].body()", fig)["bend"] is None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_2_5_opens_the_one_motion_player_cold_then_warm(
    page_as_served: Any, server_url: str, lang: str
) -> None:
    """2.5's frame-before fold has no player of its own: its link opens 2.6's player
    with the settings of Table ⑤c (cold starts on the figure-of-eight), unfolding the
    control that shows the start; warm is then one choice away."""
    page = page_as_served
    open_lesson(page, server_url, lang)
    assert page.locator(".motion").count() == 1
    player = "motion-player"
    page.locator("#s25-more-frames > summary").click()
    link = page.locator("#s25-more-frames a[data-motion-preset=coherence]")
    words = load_text(lang)["motion"]
    assert words["start_cold"] in link.text_content()
    more = page.locator(f"#{player} details.motion-more")
    assert more.get_attribute("open") is None  # folded until a preset needs it
    link.click()
    page.wait_for_function(
        """id => { const s = window.__ikchainMotions[id].state;
                   return s.data && !s.waiting && s.playing; }""",
        arg=player,
    )
    cold = page.evaluate("id => window.__ikchainMotions[id].state.data", player)
    assert (cold["path"], cold["start"], cold["budget"]) == ("figure8", "cold", 16)
    assert more.get_attribute("open") is not None
    start = page.locator(f"#{player} select[name=start]")
    assert start.input_value() == "cold"
    assert page.locator(f"#{player} select[name=path]").input_value() == "figure8"
    assert page.locator(f"#{player} select[name=budget]").input_value() == "16"
    # the player is on screen, its Play (now Pause) focused
    assert page.evaluate("document.activeElement.name") == "play"
    top = page.locator(f"#{player}").evaluate("el => el.getBoundingClientRect().top")
    assert -1 <= top < 900  # at the top of the screen, to a pixel
    start.select_option("warm")
    page.wait_for_function(
        """id => { const s = window.__ikchainMotions[id].state;
                   return s.data && !s.waiting && s.data.start === 'warm'; }""",
        arg=player,
    )
    warm = page.evaluate("id => window.__ikchainMotions[id].state.data", player)
    assert warm["targets"] == cold["targets"]
    assert warm["methods"]["ccd"]["joints"] != cold["methods"]["ccd"]["joints"]


def test_motion_link_without_scripts_leads_to_the_player(page_no_js: Any, server_url: str) -> None:
    page_no_js.goto(f"{server_url}/?lang=en")
    link = page_no_js.locator("#s25 a[data-motion-preset=coherence]")
    assert link.get_attribute("href") == "#motion-player"
    assert page_no_js.locator("#motion-player svg.motion-figure").count() == 1


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_section_25_on_a_phone(browser: Any, server_url: str, lang: str) -> None:
    with phone_lesson(browser, server_url, lang) as page:
        panel = page.locator("#fig-s25-choose")
        panel.scroll_into_view_if_needed()
        panel.locator("select[name=limits]").select_option("free")
        wait_idle(page, "fig-s25")
        assert page.locator("#fig-s25 .limits-layer").get_attribute("visibility") == "hidden"
        for selector in ("#s25", "#fig-s25-choose", "#s25-more-frames"):
            sizes = page.locator(selector).evaluate("el => [el.scrollWidth, el.clientWidth]")
            assert sizes[0] <= sizes[1], selector
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.locator("#s25").screenshot(path=str(SCREENSHOTS / f"s25-phone-{lang}.png"))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_artifact_sections_25_26_desktop_screenshots(page: Any, server_url: str, lang: str) -> None:
    """Artifacts for people to look at; each must show its section's figure, drawn."""
    open_lesson(page, server_url, lang)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for section in ("s25", "s26"):
        assert page.locator(f"#{section} svg").first.is_visible()
        page.locator(f"#{section}").screenshot(path=str(SCREENSHOTS / f"{section}-{lang}.png"))
        assert (SCREENSHOTS / f"{section}-{lang}.png").stat().st_size > 1000


def test_section_25_without_scripts(page_no_js: Any, server_url: str) -> None:
    page_no_js.goto(f"{server_url}/?lang=en")
    assert page_no_js.locator("#fig-s25 .limit-arc").count() == 3
    assert page_no_js.locator("#table-limits tbody tr").count() == len(limits_page.LIMIT_TARGETS)
    assert page_no_js.locator("#table-limits-reach tbody tr").count() == 5
    words = load_text("en")["readings"]
    assert (
        page_no_js.locator("#fig-s25 .reading-reachable dt").text_content()
        == words["reachable_limited"]
    )
    assert page_no_js.locator("#fig-s25 .reading-held").is_visible()
    assert page_no_js.locator("#table-motion-coherence tbody tr").count() == 6
    assert page_no_js.locator("#fig-s25-choose select[name=limits]").is_disabled()


def test_preferred_pose_pulls_the_dls_chain(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s25"
    page.locator(f"#{fig}-choose select[name=limits]").select_option("free")
    page.locator(f"#{fig} select[name=method]").select_option("dls")
    wait_idle(page, fig)
    ghost = page.locator(f"#{fig} .rest-pose")
    assert ghost.get_attribute("visibility") == "hidden"
    click_world(page, fig, 0.4, 0.8)
    page.locator(f"#{fig} button[name=cold]").click()  # solve from the start pose
    wait_idle(page, fig)
    plain = page.evaluate("id => window.__ikchainFigures[id].state.frame", fig)

    page.locator(f"#{fig}-choose select[name=rest]").select_option("1.0")
    wait_idle(page, fig)
    rest = page.evaluate("id => window.__ikchainChoose[id].restPose()", fig)
    assert ghost.get_attribute("visibility") == "visible"
    drawn = [[float(v) for v in p.split(",")] for p in ghost.get_attribute("points").split()]
    assert drawn == rest["joints"]
    body = page.evaluate("id => window.__ikchainFigures[id].body()", fig)
    assert body["rest"] == rest["angles"] and body["rest_weight"] == 1.0
    page.locator(f"#{fig} button[name=cold]").click()
    wait_idle(page, fig)
    pulled = page.evaluate("id => window.__ikchainFigures[id].state.frame", fig)
    assert pulled["result"]["error"] <= 1e-9 and plain["result"]["error"] <= 1e-9

    def gap(frame):
        return max(
            abs(math.remainder(a - r, 2 * math.pi))
            for a, r in zip(frame["result"]["angles"], rest["angles"], strict=True)
        )

    assert gap(pulled) < gap(plain) - math.radians(20)
    # CCD takes no rest pose: the page says so, and sends none.
    page.locator(f"#{fig} select[name=method]").select_option("ccd")
    wait_idle(page, fig)
    note = page.locator(f"#{fig}-choose .choose-note").text_content()
    assert note == load_text("en")["choose"]["rest_note"]
    assert ghost.get_attribute("visibility") == "hidden"
    assert page.locator(f"#{fig} .fig-error").is_hidden()
