"""Shareable states, the server's part: every live figure
is rendered with a "link to this figure" control that stays hidden until the page
script runs (with scripts off there is no state to link), and both languages carry
every message the script says about a link's values.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from ikchain.lesson.content import SECTIONS, load_text
from ikchain.web.app import build_app

#: The messages lesson.js and choose.js read for a link (LABELS.messages[...]).
LINK_MESSAGES = (
    "damping_clamped",
    "damping_refused",
    "bend_clamped",
    "bend_refused",
    "method_refused",
    "bones_refused",
    "limits_refused",
    "target_clamped",
    "target_refused",
    "link_copied",
    "link_copy_failed",
    "iterations_clamped",
    "iterations_refused",
)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(build_app(), base_url="http://127.0.0.1") as test_client:
        yield test_client


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_live_figure_has_a_hidden_link_control(client: TestClient, lang: str) -> None:
    page = client.get(f"/?lang={lang}").text
    words = load_text(lang)["controls"]
    live = [s.key for s in SECTIONS if s.live_figure]
    assert live
    for key in live:
        figure = page[page.index(f'id="fig-{key}"') :]
        figure = figure[: figure.index("</figure>")]
        span = re.search(r'<span class="ctl ctl-link"[^>]*>(.*?)</span>', figure, re.S)
        assert span is not None, key
        assert " hidden" in span.group(0)[: span.group(0).index(">")]
        anchor = re.search(
            r'<a class="fig-link" href="([^"]*)" title="([^"]*)">([^<]*)</a>', span.group(1)
        )
        assert anchor is not None, key
        assert anchor.group(1) == f"#{key}"
        assert html.unescape(anchor.group(2)) == words["link_hint"]
        assert html.unescape(anchor.group(3)) == words["link"]


def test_both_languages_say_every_link_message() -> None:
    en, zh = load_text("en")["messages"], load_text("zh")["messages"]
    for key in LINK_MESSAGES:
        assert en[key] and zh[key], key
        assert en[key] != zh[key], key
        assert "{" not in en[key] and "{" not in zh[key], key  # placeholders filled
