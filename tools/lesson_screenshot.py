"""Take the lesson's picture for the README and the docs: docs/_static/lesson.png.

Starts ``ikchain lesson`` on a free loopback port, opens ``/?lang=en`` in Debian's
headless Chromium (through Playwright, which the test extra installs), scrolls to
section 2.1's figure and its readings, saves a 1280 × 860 screenshot and stops the
server. Run it after a change to the page's look: ``python tools/lesson_screenshot.py``.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "_static" / "lesson.png"
CHROMIUM = "/usr/bin/chromium"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_page(url: str, server: subprocess.Popen[str], seconds: float = 180.0) -> None:
    """Until the lesson itself answers (not the notice shown while the solvers compile)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError("ikchain lesson stopped before serving the page")
        try:
            with urllib.request.urlopen(url, timeout=10) as reply:
                if "fig-s21" in reply.read().decode():
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"no lesson page at {url} within {seconds:.0f} s")


def main() -> int:
    from playwright.sync_api import sync_playwright

    port = free_port()
    url = f"http://127.0.0.1:{port}/?lang=en"
    server = subprocess.Popen(
        [sys.executable, "-m", "ikchain", "lesson", "--no-browser", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        wait_for_page(url, server)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 860})
            page.goto(url, wait_until="networkidle")
            page.evaluate("document.getElementById('s21').scrollIntoView()")
            page.wait_for_timeout(800)  # the script's first frame
            page.screenshot(path=str(OUT))
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
