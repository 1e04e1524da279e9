"""Browser tests: the real lesson server on a free loopback port, Debian's Chromium.

Chromium is ``/usr/bin/chromium`` (apt-get install chromium), never a browser that
``playwright install`` downloads. Without it these tests skip, unless the environment
variable ``CI`` is set: then they fail, so CI cannot pass by skipping them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ikchain.bench.lesson import CHROMIUM as LAUNCH_PATH
from ikchain.bench.lesson import CHROMIUM_ARGS
from ikchain.web.runner import running_server

# One set of launch settings for tests and benchmarks (see ikchain.bench.lesson).
CHROMIUM = Path(LAUNCH_PATH)
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
VIEWPORT = {"width": 1280, "height": 900}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


def _need_chromium() -> None:
    if CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is missing (apt-get install chromium)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    """The lesson app under uvicorn in a background thread, on a free loopback port."""
    with running_server() as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    _need_chromium()
    from playwright import sync_api

    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        yield chromium
        chromium.close()


class PageErrors(list):
    """Console errors and uncaught exceptions seen by one page."""


@pytest.fixture
def console_errors() -> PageErrors:
    return PageErrors()


def _watch(page: Any, errors: PageErrors) -> None:
    page.on(
        "console",
        lambda m: errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None,
    )
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))


#: Opens every folded part ("more" disclosures) as the page loads, as a reader who
#: clicks each one would: the tests of a control or a table that lives under "more"
#: use it. The tests of the folding itself use ``page_as_served``.
UNFOLD = """document.addEventListener('DOMContentLoaded', () => {
    document.querySelectorAll('details').forEach(d => { d.open = true; });
});"""


@pytest.fixture
def page(browser: Any, console_errors: PageErrors) -> Iterator[Any]:
    """A fresh page with scripts on and every "more" open; the test fails if the page
    logged any error."""
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
    context.add_init_script(UNFOLD)
    tab = context.new_page()
    _watch(tab, console_errors)
    yield tab
    context.close()
    assert list(console_errors) == [], "the page logged errors"


#: A 390-px phone, the size the lesson's phone tests use.
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone(browser: Any, console_errors: PageErrors) -> Iterator[Any]:
    """A fresh phone-sized page with touch; the test fails if the page logged any error."""
    context = browser.new_context(
        viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=2
    )
    context.add_init_script(UNFOLD)
    tab = context.new_page()
    _watch(tab, console_errors)
    yield tab
    context.close()
    assert list(console_errors) == [], "the page logged errors"


@pytest.fixture
def page_no_js(browser: Any, console_errors: PageErrors) -> Iterator[Any]:
    """A fresh page with JavaScript disabled."""
    context = browser.new_context(viewport=VIEWPORT, java_script_enabled=False)
    tab = context.new_page()
    _watch(tab, console_errors)
    yield tab
    context.close()
    assert list(console_errors) == [], "the page logged errors"


@pytest.fixture
def page_as_served(browser: Any, console_errors: PageErrors) -> Iterator[Any]:
    """A fresh page with scripts on, every "more" folded as served."""
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
    tab = context.new_page()
    _watch(tab, console_errors)
    yield tab
    context.close()
    assert list(console_errors) == [], "the page logged errors"
