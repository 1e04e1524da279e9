"""The fairness bench's honest pages: when each begins, and how the crowd is printed.

Times here are lower bounds that the code itself sets (a page told to wait 80 ms
cannot send before 80 ms have passed); no test asserts how fast anything is.
"""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor

from ikchain.bench import lesson as lesson_bench
from ikchain.bench import server as server_bench


def _arrivals(drag_phase: float, replay_phase: float) -> tuple[float, list[tuple[str, float]]]:
    """A page client's first messages against a stand-in server: when it connected,
    and each message's kind and arrival time (s, ``perf_counter``)."""
    from websockets.asyncio.server import serve

    arrivals: list[tuple[str, float]] = []
    connected: list[float] = []

    async def answer(ws) -> None:  # ws: websockets' server connection
        connected.append(time.perf_counter())
        async for text in ws:
            body = json.loads(text)
            arrivals.append((body.get("kind", "frame"), time.perf_counter()))
            result = {"angles": [0.0, 0.0, 0.0]}
            await ws.send(json.dumps({"id": body["id"], "ok": True, "frame": {"result": result}}))

    async def main() -> None:
        async with serve(answer, "127.0.0.1", 0) as running:
            port = running.sockets[0].getsockname()[1]
            state = server_bench.sections()[2]
            await server_bench.page_client(
                f"ws://127.0.0.1:{port}/ws",
                state,
                0.3,
                drag_phase=drag_phase,
                replay_phase=replay_phase,
            )

    # a fresh loop in its own thread: a browser test before this one may leave an
    # event loop running in the main thread (Playwright's sync API)
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, main()).result()
    return connected[0], arrivals


def test_a_page_waits_its_phases_before_its_first_frame_and_replay() -> None:
    start, arrivals = _arrivals(drag_phase=0.08, replay_phase=0.15)
    frames = [at for kind, at in arrivals if kind != "replay"]
    replays = [at for kind, at in arrivals if kind == "replay"]
    assert frames and replays
    assert frames[0] - start >= 0.08
    assert replays[0] - start >= 0.15
    # without phases both go at once
    start, arrivals = _arrivals(drag_phase=0.0, replay_phase=0.0)
    assert min(at for _, at in arrivals) - start < 0.08


def test_the_crowd_in_step_is_asked_for_by_name_and_printed_as_such(capsys) -> None:
    assert "crowd-in-step" not in server_bench.MIXES  # not run unless asked for
    assert lesson_bench.main(["--fairness", "--mixes", "crowd,crowd-off-step"]) == 2
    assert "expected some of caps,light,heavy,junk,malformed,holders,crowd,crowd-in-step" in (
        capsys.readouterr().err
    )
    row = {"drag": {"p50": 1.0, "p99": 2.0}, "replay": {"p50": 3.0, "p99": 4.0}, "errors": 0}
    alone = {**row, "load_average": 0.5}
    results = {
        "seconds": 1.0,
        "abusers": 16,
        "figure": "2.3",
        "alone": alone,
        "crowd": {**row, "abusive_requests_served": 10, "crowd_drag_p99": 2.0, "load_average": 1.0},
        "crowd-in-step": {
            **row,
            "drag": {"p50": 5.0, "p99": 8.0},
            "abusive_requests_served": 10,
            "crowd_drag_p99": 9.0,
            "load_average": 1.0,
        },
    }
    text = server_bench.format_fairness(results)
    assert "beside 40 other honest pages: drag p50 1.00 p99 2.00 (1.00 ×)" in text
    assert "beside 40 other honest pages in step: drag p50 5.00 p99 8.00 (4.00 ×)" in text
    assert text.endswith("NOT met")
