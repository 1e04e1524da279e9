"""A reply that arrives after a newer request went out is dropped: the figure shows the
answer to the newest request only (the page's stale-reply guard), however the
transport orders the replies."""

from __future__ import annotations

import json
from typing import Any

from .test_lesson_extras import open_lesson, wait_idle

#: Keep a copy of every reply the figure is handed (and hand it on unchanged).
CAPTURE = """id => {
    const figure = window.__ikchainFigures[id];
    const receive = Object.getPrototypeOf(figure).receive;
    window.__replies = [];
    figure.receive = function (reply) {
        window.__replies.push(JSON.parse(JSON.stringify(reply)));
        return receive.call(this, reply);
    };
}"""


def _shown(page: Any, fig: str) -> str:
    return page.evaluate("id => JSON.stringify(window.__ikchainFigures[id].state.frame)", fig)


def test_a_late_reply_to_an_older_request_changes_nothing(page: Any, server_url: str) -> None:
    open_lesson(page, server_url)
    fig = "fig-s21"
    page.evaluate(CAPTURE, fig)
    ring = page.locator(f"#{fig} .target")  # the ring's keyboard handle
    ring.scroll_into_view_if_needed()
    ring.focus()
    page.keyboard.press("Shift+ArrowRight")
    wait_idle(page, fig)
    for _ in range(3):
        page.keyboard.press("Shift+ArrowUp")
    wait_idle(page, fig)
    shown = _shown(page, fig)
    replies = page.evaluate("() => window.__replies")
    assert len(replies) >= 2
    old = replies[0]
    assert old["ok"] and json.dumps(old["frame"], sort_keys=True) != json.dumps(
        json.loads(shown), sort_keys=True
    )  # the first answer is not the one on screen
    page.evaluate("([id, reply]) => window.__ikchainFigures[id].receive(reply)", [fig, old])
    assert _shown(page, fig) == shown  # the late reply was dropped
    # while one is in flight, a reply to an older request is dropped too, and the
    # newest one is drawn when it comes
    page.keyboard.press("Shift+ArrowLeft")
    page.evaluate("([id, reply]) => window.__ikchainFigures[id].receive(reply)", [fig, old])
    wait_idle(page, fig)
    newest = json.loads(_shown(page, fig))
    assert newest != old["frame"]
    latest = max(page.evaluate("() => window.__replies"), key=lambda reply: reply["id"])
    assert latest["id"] > old["id"] and newest == latest["frame"]
