"""A first run, as a newcomer meets it: ``ikchain lesson`` with an empty kernel cache
serves the working lesson while numba still compiles, and a drag is solved.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import threading
import time
from typing import Any

from .test_lesson_page import TIP_ON_RING, attrs, drag_ring, open_lesson, point, reading


def test_a_first_run_serves_a_working_page_while_the_kernels_compile(
    browser: Any, tmp_path: Any
) -> None:
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),  # empty: every kernel compiles
        "PYTHONUNBUFFERED": "1",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "ikchain", "lesson", "--no-browser", "--port", "0", "--lang", "en"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    url = threading.Event()

    def read() -> None:
        assert server.stdout is not None
        for line in server.stdout:
            lines.append(line)
            if "serving on" in line:
                url.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert url.wait(60), "".join(lines)
        said = next(line for line in lines if "serving on" in line)
        base = said.split("serving on ")[1].split()[0].removesuffix("/?lang=en").rstrip("/")
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        deadline = time.monotonic() + 60
        while True:  # the notice reloads itself for the second the page takes
            page.goto(f"{base}/?lang=en")
            if page.locator("#lesson-data").count():
                break
            assert time.monotonic() < deadline
            time.sleep(0.5)
        errors: list[str] = []  # (the notice itself is a 503)
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        open_lesson(page, base)
        assert not any("solvers ready" in line for line in lines), "compiled already"
        drag_ring(page, "fig-s21", 0.9, 0.7)
        assert not any("solvers ready" in line for line in lines), "compiled meanwhile"
        # the readings and the picture are the drag's solve: the tip on the ring
        assert float(reading(page, "fig-s21", "error")) < 1e-9
        tx, ty = point(reading(page, "fig-s21", "target"))
        assert math.hypot(tx - 0.9, ty - 0.7) < 0.02  # where the pointer let go
        tip = attrs(page, "#fig-s21 .tip", "cx", "cy")
        ring = attrs(page, "#fig-s21 .target-ring", "cx", "cy")
        assert math.dist(tip, ring) < TIP_ON_RING
        assert errors == []
        page.close()
    finally:
        server.terminate()
        server.wait(30)
