"""How a drag's pointer events reach the server: each is answered from the event that
arrives first (pointerrawupdate, not the frame-aligned pointermove), by mouse and by a
real finger (CDP touch events), and the figure reads where it sits on screen once per
drag, not once per event, yet afresh after the page has scrolled."""

from __future__ import annotations

from typing import Any

from .test_lesson_page import open_lesson, screen_from_world, wait_idle

#: Records, for every frame request a figure sends, the type of the event being
#: handled when it was sent; and counts getScreenCTM calls on a figure's world group.
SPY = """() => {
  window.__sentFrom = [];
  const t = window.ikchainLesson.transport;
  const send = t.send.bind(t);
  t.send = (owner, body) => {
    if (owner && owner.id && owner.id.startsWith('fig-'))
      window.__sentFrom.push(window.event ? window.event.type : null);
    return send(owner, body);
  };
  window.__ctmReads = 0;
  const read = SVGGraphicsElement.prototype.getScreenCTM;
  SVGGraphicsElement.prototype.getScreenCTM = function () {
    if (this.classList && this.classList.contains('world')) window.__ctmReads += 1;
    return read.call(this);
  };
}"""

FIG = "fig-s22"


def _ring_centre(page: Any) -> tuple[float, float]:
    box = page.locator(f"#{FIG} .target-ring").bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def _moves(start: tuple[float, float], n: int) -> list[tuple[float, float]]:
    return [(start[0] - 2.0 * k, start[1] - 1.5 * k) for k in range(1, n + 1)]


def test_a_mouse_drag_is_answered_from_the_first_event(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    page.locator(f"#{FIG} svg.ik-figure").scroll_into_view_if_needed()
    wait_idle(page, FIG)
    page.evaluate(SPY)
    x, y = _ring_centre(page)
    page.mouse.move(x, y)
    page.mouse.down()
    for mx, my in _moves((x, y), 20):
        page.mouse.move(mx, my)
        page.wait_for_timeout(16)
    sent = page.evaluate("window.__sentFrom")
    page.mouse.up()
    wait_idle(page, FIG)
    # a move that came while a request was in flight is sent when its answer arrives
    # ("message"); every other one from the first event of the move
    moves = [kind for kind in sent if kind not in ("pointerdown", "message")]
    assert moves.count("pointerrawupdate") >= 5, sent
    assert set(moves) == {"pointerrawupdate"}, sent
    # one read of the figure's place for the whole drag (at the press)
    assert page.evaluate("window.__ctmReads") == 1


def test_a_finger_drag_is_answered_from_the_first_event(phone: Any, server_url: str) -> None:
    page = phone
    open_lesson(page, server_url)
    page.evaluate(f"() => document.querySelector('#{FIG}').scrollIntoView({{block: 'start'}})")
    wait_idle(page, FIG)
    page.evaluate(SPY)
    cdp = page.context.new_cdp_session(page)
    x, y = _ring_centre(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for mx, my in _moves((x, y), 20):
        point = {"x": mx, "y": my}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
        page.wait_for_timeout(16)
    sent = page.evaluate("window.__sentFrom")
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    wait_idle(page, FIG)
    # a move that came while a request was in flight is sent when its answer arrives
    # ("message"); every other one from the first event of the move
    moves = [kind for kind in sent if kind not in ("pointerdown", "message")]
    assert moves.count("pointerrawupdate") >= 5, sent
    assert set(moves) == {"pointerrawupdate"}, sent


def test_after_a_scroll_the_drag_still_lands_under_the_pointer(page: Any, server_url: str) -> None:
    """The figure's place is read once per drag: a scroll between drags, or during
    one, must not leave the ring off the pointer."""
    open_lesson(page, server_url)
    page.locator(f"#{FIG} svg.ik-figure").scroll_into_view_if_needed()
    wait_idle(page, FIG)
    x, y = _ring_centre(page)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 10, y - 10)
    page.mouse.wheel(0, 60)  # the page scrolls under the held button
    page.wait_for_function("() => window.scrollY > 0")
    page.wait_for_timeout(100)
    sx, sy = screen_from_world(page, FIG, 0.7, 0.4)
    page.mouse.move(sx, sy)
    page.mouse.up()
    wait_idle(page, FIG)
    pointer = page.evaluate(f"window.__ikchainFigures['{FIG}'].state.pointer")
    # a pixel is about 0.005 m here: the pointer is where the test put it
    assert abs(pointer[0] - 0.7) < 0.01 and abs(pointer[1] - 0.4) < 0.01, pointer
