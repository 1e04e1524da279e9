"""The replay panel's first summary is the server's replay of the figure's default
state: once the figure leaves that state (another method, a drag) before any replay,
the summary says it no longer matches, as a replay the reader asked for does."""

from __future__ import annotations

from typing import Any

import pytest

from ikchain.lesson.words import load_text

from .test_lesson_page import open_lesson, wait_idle


def _status(page: Any, fig: str) -> str:
    return page.locator(f".replay[data-replay-for='{fig}'] .replay-status").inner_text().strip()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("fig", "other"), [("fig-s23", "fabrik"), ("fig-s25", "dls")])
def test_the_servers_summary_goes_stale_when_the_figure_leaves_its_default(
    page: Any, server_url: str, fig: str, other: str, lang: str
) -> None:
    words = load_text(lang)["replay"]
    open_lesson(page, server_url, lang)
    wait_idle(page, fig)
    first = _status(page, fig)
    assert first != words["stale"]  # the default state: the server's summary holds
    page.locator(f"#{fig} select[name='method']").select_option(other)
    wait_idle(page, fig)
    assert _status(page, fig) == words["stale"]
    panel = page.locator(f".replay[data-replay-for='{fig}']")
    assert "is-stale" in (panel.get_attribute("class") or "")
    page.locator(f"#{fig} select[name='method']").select_option("ccd")
    wait_idle(page, fig)
    # back at the default state, nothing is stale (the summary's text is the script's
    # own word for it now, or the server's; either way not the stale notice)
    assert "is-stale" not in (panel.get_attribute("class") or "")
