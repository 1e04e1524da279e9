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


#: Holds the replies a figure is handed, and the bodies it sends, until
#: window.__release() hands the replies on (the answer is late, by hand).
HOLD = """id => {
  const figure = window.__ikchainFigures[id];
  const receive = Object.getPrototypeOf(figure).receive;
  window.__held = []; window.__bodies = [];
  figure.receive = function (reply) { window.__held.push(reply); };
  const t = window.ikchainLesson.transport, send = t.send.bind(t);
  t.send = (owner, body) => {
    if (owner === figure) window.__bodies.push(JSON.parse(JSON.stringify(body)));
    return send(owner, body);
  };
  window.__release = () => {
    delete figure.receive; // the prototype's again
    window.__held.splice(0).forEach(reply => figure.receive(reply));
  };
}"""

#: What the figure shows: the ring's centre and the bones, as numbers from the SVG.
SHOWN = """id => {
  const q = s => document.querySelector('#' + id + ' ' + s);
  const ring = q('.target-ring');
  return {ring: [+ring.getAttribute('cx'), +ring.getAttribute('cy')],
          bones: q('.bones').getAttribute('points'),
          target: window.__ikchainFigures[id].state.frame.result.target};
}"""


def test_the_ring_follows_the_pointer_at_once_and_the_chain_the_answer(
    page: Any, server_url: str
) -> None:
    """The ring is the reader's input: drawn where the pointer put it in the very
    handler, before any answer; the chain (and the ring's place once the answer is
    in) is the server's."""
    open_lesson(page, server_url)
    page.locator(f"#{FIG} svg.ik-figure").scroll_into_view_if_needed()
    wait_idle(page, FIG)
    before = page.evaluate(SHOWN, FIG)
    page.evaluate(HOLD, FIG)
    x, y = _ring_centre(page)
    page.mouse.move(x, y)
    page.mouse.down()
    wanted = (before["target"][0] - 0.2, before["target"][1] + 0.15)
    page.mouse.move(*screen_from_world(page, FIG, *wanted))
    page.wait_for_function("() => window.__held.length >= 1")  # an answer came, held
    held = page.evaluate(SHOWN, FIG)
    # (the move waits for the first answer; the pointer's world point is the state's)
    asked = page.evaluate("id => window.__ikchainFigures[id].state.pointer", FIG)
    assert held["ring"] == asked  # the ring is where the reader asked, at once
    assert max(abs(a - w) for a, w in zip(asked, wanted, strict=True)) < 0.01  # ~1 px
    assert held["bones"] == before["bones"] and held["target"] == before["target"]
    page.evaluate("window.__release()")
    page.mouse.up()
    wait_idle(page, FIG)
    after = page.evaluate(SHOWN, FIG)
    assert after["target"] == asked and after["ring"] == after["target"]
    assert after["bones"] != before["bones"]  # the answer moved the chain


def test_with_smoothing_the_ring_waits_for_the_server_s_eased_target(
    page: Any, server_url: str
) -> None:
    """With smoothing the ring is where the server eased it to, not the pointer."""
    open_lesson(page, server_url)
    fig = "fig-s24"
    page.locator(f"#{fig} input[name='smoothing']").check()
    wait_idle(page, fig)
    before = page.evaluate(SHOWN, fig)
    page.evaluate(HOLD, fig)
    page.locator(f"#{fig} g.target").focus()
    page.keyboard.press("Shift+ArrowLeft")
    page.wait_for_function("() => window.__held.length >= 1")
    held = page.evaluate(SHOWN, fig)
    assert page.evaluate("() => window.__bodies")[0]["target"] != before["ring"]
    assert held["ring"] == before["ring"] == before["target"]
    page.evaluate("window.__release()")
    wait_idle(page, fig)
