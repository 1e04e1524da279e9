"""The lesson page's two latency benchmarks. Benchmarks, not tests.

1. **Server time per drag frame**, for each section's default chain and method: a
   scripted drag path of a few hundred frames, each frame warm-started from the
   previous answer exactly as the page's script does it, timed (a) calling the
   protocol's frame function directly (decode, validate, solve, format, encode the
   reply) and (b) as a round trip through the real server's WebSocket.
2. **Drag-to-redraw latency in Chromium**: the real page, a scripted mouse drag of
   the same length paced at 60 Hz, from each pointer event's time stamp to the moment
   ``update()`` has written that event's answer into the figure (and to the next
   animation frame after it), read from the page's ``window.__ikchainRedraws`` hook.

Goals: server p99 <= 2 ms per frame, drag-to-redraw p99 <= 16 ms.

Run::

    python -m ikchain.bench.lesson [--frames 300] [--no-browser] [--no-websocket]
                                   [--json PATH]

``--fairness`` and ``--clients N`` run the server's load benchmarks instead (see
:mod:`ikchain.bench.server`).

The functions return plain data; only :func:`main` prints.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ikchain.bench.drags import (
    DEFAULT_FRAMES,
    PATH_AMPLITUDE,
    PATH_LOOPS,
    WARMUP_FRAMES,
    drag_path,
    frame_body,
    percentiles,
    sections,
)

#: The latency goals, milliseconds.
SERVER_GOAL_MS = 2.0
REDRAW_GOAL_MS = 16.0
#: Pointer events per second in the browser drag.
POINTER_HZ = 60.0
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

#: Spans of one drag frame in the page, from window.__ikchainRedraws stamps (ms):
#: ``redraw`` is the goal's drag-to-redraw (pointer handler → after update()).
REDRAW_SPANS = {
    "redraw": ("handled", "drawn"),  # handler → answer drawn: request, server, update()
    "event_to_drawn": ("input", "drawn"),  # the event's own time stamp → answer drawn
    "event_to_handler": ("input", "handled"),  # Chromium's frame-aligned input delivery
    "round_trip": ("handled", "received"),  # WebSocket out, solve, back
    "update": ("received", "drawn"),  # update() itself
    "event_to_frame": ("input", "painted"),  # → the next animation frame after drawing
    # → the first frame after the handler: where a page drawing in its handler, with no
    # server, would paint (the frame clock's floor), and where the dragged ring paints
    "event_to_local": ("input", "local"),
}
#: The page's frame interval at 60 Hz (ms): answers painted within half of it of the
#: floor's frame are counted as painted in that very frame.
FRAME_MS = 1000.0 / 60.0
# ----------------------------------------------------------------- (1a) in process


def server_frame_times(state: dict[str, Any], frames: int = DEFAULT_FRAMES) -> dict[str, Any]:
    """Time the protocol's frame function over the scripted drag, warm-started.

    Each sample covers what the server does for one WebSocket message: decode and
    validate the JSON, solve, format the readings, encode the reply.
    """
    from ikchain.web.protocol import frame_reply

    path = drag_path(state["target"], frames + WARMUP_FRAMES)
    init = None
    samples, iterations = [], []
    for index, target in enumerate(path):
        message = json.dumps(frame_body(state, target, init))
        start = time.perf_counter_ns()
        reply = frame_reply(message)
        json.dumps(reply)
        elapsed = (time.perf_counter_ns() - start) / 1e6
        if not reply["ok"]:
            raise RuntimeError(f"{state['key']}: the server refused a frame: {reply['error']}")
        init = reply["frame"]["result"]["angles"]
        if index >= WARMUP_FRAMES:
            samples.append(elapsed)
            iterations.append(reply["frame"]["result"]["iterations"])
    return {
        **percentiles(samples),
        "iterations_p50": float(np.percentile(iterations, 50)),
        "iterations_max": int(max(iterations)),
    }


# ------------------------------------------------------------------- the real server


# --------------------------------------------------------------- (1b) WebSocket


def websocket_frame_times(
    base_url: str, state: dict[str, Any], frames: int = DEFAULT_FRAMES
) -> dict[str, Any]:
    """Round trip of each drag frame through the server's WebSocket, one at a time."""
    from websockets.sync.client import connect

    url = base_url.replace("http://", "ws://") + "/ws"
    path = drag_path(state["target"], frames + WARMUP_FRAMES)
    init = None
    samples = []
    with connect(url, max_size=2**20) as ws:
        for index, target in enumerate(path):
            body = frame_body(state, target, init)
            body["id"] = index
            message = json.dumps(body)
            start = time.perf_counter_ns()
            ws.send(message)
            reply = json.loads(ws.recv())
            elapsed = (time.perf_counter_ns() - start) / 1e6
            if not reply["ok"] or reply["id"] != index:
                raise RuntimeError(f"{state['key']}: bad WebSocket reply {reply!r:.200}")
            init = reply["frame"]["result"]["angles"]
            if index >= WARMUP_FRAMES:
                samples.append(elapsed)
    return percentiles(samples)


# ------------------------------------------------------------------ (2) Chromium


#: The phone the ``--phone`` runs use: the lesson's phone tests' size, with touch.
PHONE_SIZE = (390, 844)


def _touch(cdp: Any, kind: str, x: float | None = None, y: float | None = None) -> None:
    """One real touch event (CDP Input.dispatchTouchEvent), as a finger sends it."""
    points = [] if x is None else [{"x": x, "y": y}]
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def browser_redraw_times(
    base_url: str,
    states: Sequence[dict[str, Any]],
    frames: int = DEFAULT_FRAMES,
    *,
    phone: bool = False,
) -> dict[str, dict[str, Any]]:
    """Drag-to-redraw latency of each figure in Chromium, over a 60 Hz scripted drag
    (with ``phone``: a 390-px phone with touch, dragged by a real finger, CDP touch
    events, not synthetic pointer events).

    Returns, per section key, percentiles of each span of :data:`REDRAW_SPANS`, plus
    how many pointer events were sent and how many redraws answered them (fewer when
    events were coalesced while a request was in flight).
    """
    from playwright.sync_api import sync_playwright

    results: dict[str, dict[str, Any]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        if phone:
            context = browser.new_context(
                viewport={"width": PHONE_SIZE[0], "height": PHONE_SIZE[1]},
                has_touch=True,
                is_mobile=True,
                device_scale_factor=2,
            )
            page = context.new_page()
            cdp = context.new_cdp_session(page)
        else:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{base_url}/?lang=en")
        page.wait_for_function("document.documentElement.classList.contains('js-ready')")
        page.wait_for_function(
            "Object.values(window.__ikchainFigures).length > 0"
            " && window.__ikchainFigures[Object.keys(window.__ikchainFigures)[0]] !== undefined"
        )
        for state in states:
            fig = state["figure"]
            # a figure folded under a 'more' (2.8's) is unfolded, as a reader does
            page.evaluate(
                """id => { for (let e = document.getElementById(id); e; e = e.parentElement)
                    if (e.tagName === 'DETAILS') e.open = true; }""",
                fig,
            )
            page.locator(f"#{fig} svg.ik-figure").scroll_into_view_if_needed()
            page.evaluate("window.__ikchainRedraws.length = 0")
            matrix = page.evaluate(
                """id => { const m = document.querySelector('#' + id + ' g.world')
                    .getScreenCTM(); return [m.a, m.b, m.c, m.d, m.e, m.f]; }""",
                fig,
            )
            a, b, c, d, e, f = matrix
            path = drag_path(state["target"], frames + WARMUP_FRAMES)
            pixels = [(a * x + c * y + e, b * x + d * y + f) for x, y in path]
            if phone:
                _touch(cdp, "touchStart", *pixels[0])
            else:
                page.mouse.move(*pixels[0])
                page.mouse.down()
            # Events 1/60 s apart plus 1/frames of that: over the drag their phase
            # against the page's 60 Hz frame clock sweeps one whole frame, as a real
            # pointer's events fall at every phase. Paced at exactly the frame rate,
            # every event would keep the phase the drag began with, and the figures
            # would measure that one phase (luck: 7 to 20 ms p95 on a quiet machine).
            period = (1.0 + 1.0 / frames) / POINTER_HZ
            next_at = time.perf_counter()
            for index, (sx, sy) in enumerate(pixels[1:], start=1):
                if index == WARMUP_FRAMES:
                    page.evaluate("window.__ikchainRedraws.length = 0")
                next_at += period
                if phone:
                    _touch(cdp, "touchMove", sx, sy)
                else:
                    page.mouse.move(sx, sy)
                pause = next_at - time.perf_counter()
                if pause > 0:
                    time.sleep(pause)
            if phone:
                _touch(cdp, "touchEnd")
            else:
                page.mouse.up()
            idle = (
                "id => { const f = window.__ikchainFigures[id];"
                " return f.inflight === null && !f.pending; }"
            )
            try:
                page.wait_for_function(idle, arg=fig, timeout=10_000)
            except Exception as error:
                state_now = page.evaluate(
                    "id => { const f = window.__ikchainFigures[id]; return {inflight:"
                    " f.inflight, pending: f.pending} }",
                    fig,
                )
                raise RuntimeError(f"{fig}: no answer after the drag: {state_now}") from error
            page.wait_for_timeout(50)  # let the last 'painted' stamp land
            log = page.evaluate("id => window.__ikchainRedraws.filter(r => r.figure === id)", fig)
            if not log:
                raise RuntimeError(f"{fig}: the drag drew nothing ({frames} pointer events)")
            floor = [r for r in log if r["painted"] is not None and r["local"] is not None]
            same = sum(r["painted"] - r["local"] < FRAME_MS / 2 for r in floor)
            results[state["key"]] = {
                "pointer_events": frames,
                "redraws": len(log),
                # answers painted in the frame a page drawing in its handler would paint
                "in_floor_frame": same / len(floor) if floor else math.nan,
                **{
                    name: percentiles([r[end] - r[start] for r in log if r[end] is not None])
                    for name, (start, end) in REDRAW_SPANS.items()
                },
            }
        browser.close()
        if errors:
            raise RuntimeError(f"the page raised errors: {errors}")
    return results


# ---------------------------------------------------------------------- all of it


def run(
    frames: int = DEFAULT_FRAMES,
    *,
    websocket: bool = True,
    browser: bool = True,
    phone: bool = False,
) -> dict[str, Any]:
    """Every measurement, as one JSON-ready dict."""
    states = sections()
    out: dict[str, Any] = {
        "frames": frames,
        "warmup_frames": WARMUP_FRAMES,
        "path": {"shape": "figure-of-eight", "amplitude_m": PATH_AMPLITUDE, "loops": PATH_LOOPS},
        "pointer_hz": POINTER_HZ,
        "goals_ms": {"server_p99": SERVER_GOAL_MS, "redraw_p99": REDRAW_GOAL_MS},
        "sections": {},
    }
    for state in states:
        out["sections"][state["key"]] = {
            "method": state["method"],
            "bones": len(state["lengths"]),
            "iteration_budget": state["iterations"],
            "server": server_frame_times(state, frames),
        }
    if websocket or browser:
        from ikchain.web.runner import running_server

        with running_server() as url:
            if websocket:
                for state in states:
                    out["sections"][state["key"]]["websocket"] = websocket_frame_times(
                        url, state, frames
                    )
            if browser:
                for key, value in browser_redraw_times(url, states, frames).items():
                    out["sections"][key]["browser"] = value
            if browser and phone:
                for key, value in browser_redraw_times(url, states, frames, phone=True).items():
                    out["sections"][key]["phone"] = value
    return out


def format_results(results: dict[str, Any]) -> str:
    """The results as an aligned text table (milliseconds)."""

    def cell(block: dict[str, Any] | None, name: str) -> str:
        if not block or block.get("n", 0) == 0:
            return "—"
        return f"{block[name]:.2f}"

    header = (
        f"{'section':<8}{'method':<9}{'bones':>5}{'budget':>7}  "
        f"{'server p50':>10}{'p99':>7}{'max':>7}{'iter p50':>9}  "
        f"{'ws p50':>7}{'p99':>7}  "
        f"{'redraw p50':>10}{'p99':>7}{'event→drawn p50':>16}{'p99':>7}"
        f"{'update p99':>11}{'→frame p99':>11}{'redraws':>9}"
    )
    lines = [
        f"Lesson latency, {results['frames']} frames per section after "
        f"{results['warmup_frames']} warm-up frames (ms)",
        header,
        "-" * len(header),
    ]
    for key, row in results["sections"].items():
        server = row["server"]
        ws = row.get("websocket")
        browser = row.get("browser") or {}
        redraws = f"{browser['redraws']}/{browser['pointer_events']}" if browser else "—"
        lines.append(
            f"{key:<8}{row['method']:<9}{row['bones']:>5}{row['iteration_budget']:>7}  "
            f"{cell(server, 'p50'):>10}{cell(server, 'p99'):>7}{cell(server, 'max'):>7}"
            f"{server['iterations_p50']:>9.0f}  "
            f"{cell(ws, 'p50'):>7}{cell(ws, 'p99'):>7}  "
            f"{cell(browser.get('redraw'), 'p50'):>10}{cell(browser.get('redraw'), 'p99'):>7}"
            f"{cell(browser.get('event_to_drawn'), 'p50'):>16}"
            f"{cell(browser.get('event_to_drawn'), 'p99'):>7}"
            f"{cell(browser.get('update'), 'p99'):>11}"
            f"{cell(browser.get('event_to_frame'), 'p99'):>11}{redraws:>9}"
        )
    lines.append(
        "redraw = pointer handler → answer drawn by update(); event→drawn starts at the "
        "event's own time stamp (adds Chromium's frame-aligned input delivery); "
        "→frame = event → next animation frame"
    )
    goals = results["goals_ms"]
    lines.append(
        f"goals: server p99 <= {goals['server_p99']:g} ms, "
        f"drag-to-redraw p99 <= {goals['redraw_p99']:g} ms"
    )
    lines += format_input_to_paint(results)
    return "\n".join(lines)


#: Input-to-paint goals (event → next animation frame, p95), milliseconds.
PAINT_GOALS_MS = {"browser": 16.0, "phone": 33.0}


def format_input_to_paint(results: dict[str, Any]) -> list[str]:
    """Event → next animation frame per section, desktop and phone (p50 / p95), beside
    the floor measured in the same drag (event → the first frame after the handler:
    where a page drawing in its handler would paint, and where the dragged ring
    paints), the share of answers painted in that very frame, and where the time went
    (event → handler, round trip, update()): lines to print."""
    runs = [kind for kind in PAINT_GOALS_MS if any(kind in r for r in results["sections"].values())]
    if not runs:
        return []
    lines = [
        "",
        "Input to paint (event → next animation frame), p50 / p95 (ms); floor = event → "
        "the first frame after the handler (a page drawing there, no server; the ring)",
    ]
    for kind in runs:
        worst, worst_floor, least_same = 0.0, 0.0, 1.0
        for key, row in results["sections"].items():
            spans = row.get(kind)
            if not spans:
                continue
            frame, floor = spans["event_to_frame"], spans["event_to_local"]
            handler, trip = spans["event_to_handler"], spans["round_trip"]
            same = spans["in_floor_frame"]
            worst, worst_floor = max(worst, frame["p95"]), max(worst_floor, floor["p95"])
            least_same = min(least_same, same)
            lines.append(
                f"{kind:<8}{key:<6}{frame['p50']:7.2f} /{frame['p95']:6.2f}   "
                f"floor {floor['p50']:5.2f} /{floor['p95']:6.2f}   "
                f"in the floor's frame {same:6.1%}   "
                f"event→handler {handler['p50']:5.2f} /{handler['p95']:6.2f}   "
                f"round trip {trip['p50']:5.2f} /{trip['p95']:6.2f}   "
                f"update {spans['update']['p95']:5.2f} p95"
            )
        lines.append(
            f"{kind}: worst p95 {worst:.2f} ms (goal <= {PAINT_GOALS_MS[kind]:g} ms); "
            f"floor's worst p95 {worst_floor:.2f} ms; answers in the floor's frame "
            f">= {least_same:.1%}"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    from ikchain.arguments import OneLineParser, integer_in
    from ikchain.bench.server import MIXES

    parser = OneLineParser(
        prog="ikchain bench lesson",
        description="Lesson latency: server time per drag frame and drag-to-redraw in Chromium.",
    )
    parser.add_argument("--frames", type=int, default=DEFAULT_FRAMES, help="frames per section")
    parser.add_argument("--no-websocket", action="store_true", help="skip the WebSocket runs")
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium runs")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    parser.add_argument(
        "--phone",
        action="store_true",
        help="also drag each figure on a 390-px phone with a real finger (CDP touch events)",
    )
    parser.add_argument(
        "--clients",
        type=integer_in(1, 1000, "a number of clients"),
        help="instead: N WebSocket clients dragging at 60 Hz (classroom load)",
    )
    parser.add_argument(
        "--fairness",
        action="store_true",
        help="instead: an honest drag's p99 alone and beside --abusers clients at the caps",
    )
    parser.add_argument(
        "--abusers",
        type=integer_in(0, 256, "a number of clients"),
        default=16,
        help="with --fairness (default 16)",
    )
    parser.add_argument(
        "--mixes",
        default=",".join(MIXES),
        help=(
            f"with --fairness: the abusers' kinds, comma-separated (default {','.join(MIXES)}; "
            "also crowd-in-step: the crowd's pages all sending in the same millisecond)"
        ),
    )
    parser.add_argument(
        "--seconds", type=float, default=20.0, help="with --clients / --fairness (default 20)"
    )
    parser.add_argument(
        "--workers",
        type=integer_in(1, 64, "a number of processes"),
        default=1,
        help="with --clients: server processes",
    )
    args = parser.parse_args(argv)
    if args.frames < 10:
        parser.error(f"--frames: expected at least 10, got {args.frames}")
    if args.clients is not None or args.fairness:
        return _server_main(args)
    browser = not args.no_browser
    if browser and not Path(CHROMIUM).exists():
        print(f"{CHROMIUM} is missing: skipping the browser runs", file=sys.stderr)
        browser = False
    results = run(args.frames, websocket=not args.no_websocket, browser=browser, phone=args.phone)
    print(format_results(results))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


def _server_main(args: argparse.Namespace) -> int:
    """``--clients N`` and ``--fairness``: see :mod:`ikchain.bench.server`."""
    from ikchain.bench import server

    if not 1 <= args.seconds <= 600:
        print(f"--seconds: expected 1 to 600, got {args.seconds:g}", file=sys.stderr)
        return 2
    results: dict[str, Any] = {}
    mixes = [mix.strip() for mix in args.mixes.split(",") if mix.strip()]
    unknown = [mix for mix in mixes if mix not in server.MIXES + server.EXTRA_MIXES]
    if unknown or not mixes:
        print(
            f"--mixes: expected some of {','.join(server.MIXES + server.EXTRA_MIXES)}, "
            f"got {args.mixes!r}",
            file=sys.stderr,
        )
        return 2
    if args.fairness:
        results["fairness"] = server.run_fairness(args.seconds, args.abusers, mixes)
        print(server.format_fairness(results["fairness"]))
    if args.clients is not None:
        results["load"] = server.run_load(args.clients, args.seconds, args.workers)
        print(server.format_load(results["load"]))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
