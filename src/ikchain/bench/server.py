"""The lesson server under load and abuse. Benchmarks, not tests.

1. **Caps against the time budget** (``ikchain bench caps``): the slowest request the
   caps admit, for every method, number of bones and batch size, each asking for the
   most work its cap allows toward hard targets (near full reach, a tolerance of
   1e-300 so nothing stops early), timed through the server's own request path
   (:func:`ikchain.web.protocol.respond`: decode, check, solve, encode) on one thread
   as the server's heavy-request process runs it. Goal: the slowest ≤
   :data:`ikchain.caps.BUDGET_MS`.
2. **Fairness** (``ikchain bench lesson --fairness``): an honest client drags at
   60 Hz over the WebSocket (one frame in flight, like the page); its round-trip p99
   alone, then with 16 abusive clients sending requests at the caps as fast as the
   server answers them (half as ``POST /api/solve`` batches, half as WebSocket
   frames). Goal: p99 with abuse ≤ 3 × p99 alone.
3. **Classroom load** (``ikchain bench lesson --clients 50``): N clients dragging at
   60 Hz for a bounded time; frames served per second of those asked, and p99.
   Goal: p99 ≤ 16 ms.

The server runs as ``ikchain lesson`` in a child process (``--workers`` as asked);
the clients run here, on asyncio. Both share the machine: the figures include the
clients' own cost. The functions return plain data; only the ``main`` functions print.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ikchain.bench.drags import drag_path, frame_body, percentiles, sections

#: The goals under load and abuse.
FAIRNESS_GOAL = 3.0
LOAD_GOAL_MS = 16.0
DRAG_HZ = 60.0


# -- 1. The caps against the time budget ----------------------------------------------------


def requests_at_caps() -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(label, route, request): each method × bones × batch size at the most work its
    caps admit, toward targets near full reach and a tolerance nothing meets; then
    each replay and motion at the most its own caps admit."""
    from ikchain.caps import CAPS
    from ikchain.web.protocol import reply_bytes_bound

    rng = np.random.default_rng(7)
    for method in ("analytic", "ccd", "fabrik", "jt", "dls"):
        for bones in (2, 3, 8, CAPS["max_bones"]):
            if method == "analytic" and bones != 2:
                continue
            for solves in (1, 2, 8, 32, 64, CAPS["max_targets"]):
                single = solves == 1
                cap = CAPS["max_work"] if single else CAPS["max_batch_work"]
                if method == "analytic":
                    iterations = 1
                else:
                    iterations = min(CAPS["max_iterations"], cap // (bones * solves))
                if iterations < 1 or bones * solves * iterations > cap:
                    continue
                if reply_bytes_bound(bones, solves) > CAPS["max_reply_bytes"]:
                    continue  # refused before any work
                lengths = rng.uniform(0.2, 1.0, bones)
                angle = rng.uniform(-math.pi, math.pi, solves)
                reach = 0.999 * lengths.sum()
                points = np.stack([reach * np.cos(angle), reach * np.sin(angle)], axis=-1)
                request: dict[str, Any] = {
                    "lengths": lengths.tolist(),
                    "target": points[0].tolist() if single else points.tolist(),
                    "method": method,
                }
                if method != "analytic":
                    request |= {"iterations": iterations, "tolerance": 1e-300}
                label = f"{method} {bones} bones × {solves} × {iterations} it"
                yield label, "solve", request
    yield from _replays_at_caps()
    yield from _motions_at_caps()


def _replays_at_caps() -> Iterator[tuple[str, str, dict[str, Any]]]:
    from ikchain.caps import CAPS
    from ikchain.lesson import replay

    for method, bones, joint_steps, limited in itertools.product(
        replay.REPLAY_METHODS, (2, 4, 8, 16, CAPS["max_bones"]), (True, False), (False, True)
    ):
        iterations = replay.MAX_REPLAY_ITERATIONS
        steps = replay.steps_of(bones, iterations, method, joint_steps)
        if steps > replay.MAX_REPLAY_STEPS:  # the most iterations within the steps
            base = replay.steps_of(bones, 0, method, joint_steps)
            per = replay.steps_of(bones, 1, method, joint_steps) - base
            iterations = (replay.MAX_REPLAY_STEPS - base) // per
            steps = replay.steps_of(bones, iterations, method, joint_steps)
        pictures = method in replay.JOINT_STEP_METHODS and joint_steps
        if replay.reply_bytes_bound(bones, steps, pictures) > CAPS["max_reply_bytes"]:
            continue  # refused before any work
        request = {
            "kind": "replay",
            "lengths": [1.0 / bones] * bones,
            "target": [0.999, 0.001],
            "method": method,
            "iterations": iterations,
            "tolerance": 1e-300,
            "joint_steps": joint_steps,
        }
        if limited:  # every pose's reach under the limits is searched too
            request["limits"] = [[-2.5, 2.5]] * bones
        by_joint = ", joint by joint" if joint_steps and method == "ccd" else ""
        with_limits = ", with limits" if limited else ""
        label = f"replay {method} {bones} bones × {iterations} it{by_joint}{with_limits}"
        yield label, "frame", request


def _motions_at_caps() -> Iterator[tuple[str, str, dict[str, Any]]]:
    from ikchain.caps import CAPS
    from ikchain.lesson import motion

    frames = motion.MAX_FRAMES_PER_LAP
    for bones in (2, 3, 4, 8):
        if motion.reply_bytes_bound(bones, frames * motion.LAPS) > CAPS["max_reply_bytes"]:
            continue
        per = bones * frames * motion.LAPS * len(motion.MOTION_METHODS)
        budget = min(motion.MAX_BUDGET, motion.MAX_MOTION_WORK // per)
        if budget < 1:
            continue
        for path in motion.PATHS:
            for start in motion.STARTS:
                request = {
                    "kind": "motion",
                    "lengths": [1.0 / bones] * bones,
                    "path": path,
                    "frames_per_lap": frames,
                    "budget": budget,
                    "start": start,
                }
                label = f"motion {path} {start} {bones} bones × {frames} frames × {budget} it"
                yield label, "frame", request


def time_caps(repeats: int = 3) -> dict[str, Any]:
    """Each request at the caps, timed through :func:`respond` (best of ``repeats``)."""
    from ikchain.caps import BUDGET_MS, CAPS
    from ikchain.lesson import motion
    from ikchain.web.protocol import Reply, respond
    from ikchain.web.scheduler import freeze_heap, limit_solver_threads

    limit_solver_threads()  # as in the heavy-request process
    rows: list[dict[str, Any]] = []
    for label, route, request in requests_at_caps():
        body = json.dumps(request)
        respond(route, body)  # compile or load the kernel (and the page's words) first
        freeze_heap()  # as the heavy process does once started
        times = []
        for _ in range(repeats):
            motion.tracked.cache_clear()  # time the tracking, not the cache
            start = time.perf_counter()
            reply = respond(route, body)
            times.append((time.perf_counter() - start) * 1e3)
            assert isinstance(reply, Reply)
            if reply.status != 200 or '"ok":false' in reply.text:
                raise RuntimeError(f"{label}: refused at the caps: {reply.text[:200]}")
        rows.append({"request": label, "ms": min(times), "bytes": len(body)})
    rows.sort(key=lambda row: -row["ms"])
    return {"budget_ms": BUDGET_MS, "caps": dict(CAPS), "slowest": rows}


def format_caps(results: dict[str, Any], top: int = 8) -> str:
    rows = results["slowest"]
    lines = [f"The slowest requests the caps admit (of {len(rows)}; ms, best of 3):"]
    lines += [f"  {row['ms']:8.2f}  {row['request']}" for row in rows[:top]]
    worst = rows[0]["ms"]
    verdict = "met" if worst <= results["budget_ms"] else "NOT met"
    lines.append(f"goal: slowest <= {results['budget_ms']:g} ms: {worst:.2f} ms, {verdict}")
    return "\n".join(lines)


def caps_main(argv: Sequence[str] | None = None) -> int:
    from ikchain.arguments import OneLineParser

    parser = OneLineParser(
        prog="ikchain bench caps",
        description="Time the slowest requests the server's caps admit against the budget.",
    )
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    if not _writable(args.json, "ikchain bench caps"):
        return 2
    results = time_caps()
    print(format_caps(results))
    return 0 if _write(args.json, results, "ikchain bench caps") else 1


# -- The server and its clients ---------------------------------------------------------------


def cpu_seconds(root: int) -> float | None:
    """CPU time (user + system, s) used so far by process ``root`` and its descendants
    (Linux ``/proc``; None elsewhere): the server's cost, whatever else the machine runs."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    try:
        entries = [entry for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:
        return None
    for entry in entries:
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / ticks
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in tree:
                tree.add(pid)
                frontier.append(pid)
    return sum(times.get(pid, 0.0) for pid in tree)


@contextmanager
def lesson_server(workers: int = 1) -> Iterator[tuple[str, int, int]]:
    """``ikchain lesson`` in a child process on a free loopback port: (host, port, pid)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    child = subprocess.Popen(
        [
            *(sys.executable, "-m", "ikchain", "lesson", "--no-browser", "--port", "0"),
            *("--workers", str(workers)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        if "serving on" not in line:
            raise RuntimeError(f"the lesson server did not start: {line!r}")
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        asyncio.run(_wait_until_served("127.0.0.1", port))
        _wait_until_ready("127.0.0.1", port)
        yield "127.0.0.1", port, child.pid
    finally:
        child.terminate()
        child.wait(timeout=20)


def _wait_until_ready(host: str, port: int, seconds: float = 300.0) -> None:
    """Until ``GET /api/health`` says the start-up work is done: the kernels compiled
    (or loaded), the heavy process up. A page works before that, on plain-Python kernels,
    and replays wait; a measurement taken then would time the start-up, not the server."""
    import urllib.request

    deadline = time.monotonic() + seconds
    while True:
        with urllib.request.urlopen(f"http://{host}:{port}/api/health", timeout=30) as answer:
            if json.loads(answer.read())["ready"]:
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"the lesson server was not ready after {seconds:g} s")
        time.sleep(0.2)


async def _wait_until_served(host: str, port: int, seconds: float = 60.0) -> None:
    from websockets.asyncio.client import connect

    deadline = time.monotonic() + seconds
    state = sections()[1]
    while True:
        try:
            async with connect(f"ws://{host}:{port}/ws") as ws:
                await ws.send(json.dumps(frame_body(state, state["target"], None)))
                await ws.recv()
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


async def drag_client(
    url: str, state: dict[str, Any], seconds: float, phase: int, hz: float = DRAG_HZ
) -> dict[str, Any]:
    """One page dragging at ``hz`` for ``seconds``: a frame per tick, one in flight
    (a tick that comes while a frame is in flight is skipped, as the page coalesces
    pointer events), warm-started from the previous answer."""
    from websockets.asyncio.client import connect

    ticks = max(2, int(seconds * hz))
    path = drag_path(state["target"], ticks + phase)[phase:]
    samples: list[float] = []
    errors = 0
    init = None
    period = 1.0 / hz
    async with connect(url, max_size=2**22) as ws:
        begin = time.perf_counter()
        while True:
            tick = int((time.perf_counter() - begin) / period)
            if tick >= ticks:
                break
            body = frame_body(state, path[tick], init)
            body["id"] = tick
            start = time.perf_counter()
            await ws.send(json.dumps(body))
            reply = json.loads(await ws.recv())
            samples.append((time.perf_counter() - start) * 1e3)
            if reply.get("ok"):
                init = reply["frame"]["result"]["angles"]
            else:
                errors += 1
            next_at = begin + (int((time.perf_counter() - begin) / period) + 1) * period
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
    return {"samples": samples, "asked": ticks, "errors": errors}


async def abusive_ws_client(url: str, body: dict[str, Any], stop: asyncio.Event) -> int:
    """Frames at the caps over the WebSocket, as fast as they are answered."""
    from websockets.asyncio.client import connect

    sent = 0
    async with connect(url, max_size=2**22) as ws:
        while not stop.is_set():
            await ws.send(json.dumps(body))
            await ws.recv()
            sent += 1
    return sent


async def abusive_http_client(
    host: str, port: int, body: dict[str, Any], stop: asyncio.Event
) -> int:
    """``POST /api/solve`` at the caps on one keep-alive connection, back to back."""
    payload = json.dumps(body).encode()
    request = (
        f"POST /api/solve HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
    ).encode() + payload
    reader, writer = await asyncio.open_connection(host, port)
    sent = 0
    try:
        while not stop.is_set():
            writer.write(request)
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            await reader.readexactly(length)
            sent += 1
    finally:
        writer.close()
    return sent


def at_caps_bodies() -> tuple[dict[str, Any], dict[str, Any]]:
    """The abusers' requests, among the slowest ``ikchain bench caps`` finds: a CCD
    frame of 32 bones at ``max_work`` and a FABRIK batch of 256 three-bone solves at
    ``max_batch_work``, toward targets at 0.999 of full reach, where every iteration
    still moves and nothing stops early."""
    from ikchain.caps import CAPS

    bones = CAPS["max_bones"]
    frame = {
        "lengths": [1.0 / bones] * bones,
        "target": [0.999, 0.0],
        "method": "ccd",
        "iterations": min(CAPS["max_iterations"], CAPS["max_work"] // bones),
        "tolerance": 1e-300,
    }
    solves = CAPS["max_targets"]
    angles = np.linspace(-math.pi, math.pi, solves, endpoint=False)
    batch = {
        "lengths": [0.5, 0.3, 0.2],
        "target": (0.999 * np.stack([np.cos(angles), np.sin(angles)], axis=-1)).tolist(),
        "method": "fabrik",
        "iterations": min(CAPS["max_iterations"], CAPS["max_batch_work"] // (3 * solves)),
        "tolerance": 1e-300,
    }
    return frame, batch


# -- 2. Fairness ------------------------------------------------------------------------------

#: The abuser mixes of ``--fairness``: requests at the caps (half WebSocket frames,
#: half ``POST /api/solve`` batches), light frames (the most a frame may ask and still
#: be solved on the event loop: 31 bones × 64 iterations, or two bones with joint
#: limits, lengths varied so that no cache helps), replays and motions at their caps,
#: 60 KB of junk (half WebSocket messages, half ``POST /api/frame`` bodies), malformed
#: frames (half cheap bad JSON, half WebSocket frames that break the protocol, each
#: closing its socket, which the client opens again at once), connection holders (idle
#: WebSockets, as many as the per-address cap leaves room for beside the honest page),
#: and a crowd of 40 honest pages like the one measured. Every abuser keeps
#: :data:`WINDOW` requests in flight (the most a socket may have in hand).
MIXES = ("caps", "light", "heavy", "junk", "malformed", "holders", "crowd")
#: Mixes run only when asked for (``--mixes``): ``crowd-in-step``, the crowd with every
#: page's drag and replays started in the same millisecond (see :func:`_crowd`).
EXTRA_MIXES = ("crowd-in-step",)
#: Requests each abuser keeps in flight.
WINDOW = 8
#: Honest pages beside the measured one in the ``crowd`` mix.
CROWD = 40


def light_bodies(count: int = 64) -> list[dict[str, Any]]:
    """Light frames at their cap, toward targets at 0.999 of full reach."""
    from ikchain.caps import CAPS
    from ikchain.solvers.methods import reach_work
    from ikchain.web.scheduler import LIGHT_WORK

    rng = np.random.default_rng(16)
    bodies = []
    for index in range(count):
        limited = index % 2 == 1
        bones = 2 if limited else min(31, CAPS["max_bones"])
        search = reach_work(bones) if limited else 0
        lengths = rng.uniform(0.5, 1.5, bones)
        lengths = lengths / lengths.sum()
        body: dict[str, Any] = {
            "lengths": lengths.tolist(),
            "target": [0.999, 0.001],
            "method": ("ccd", "fabrik", "dls")[index % 3],
            "iterations": (LIGHT_WORK - search) // bones,
            "tolerance": 1e-300,
        }
        if limited:
            body["limits"] = [[-2.5, 2.5]] * bones
        bodies.append(body)
    return bodies


def heavy_bodies() -> list[dict[str, Any]]:
    """Replays and motions at their caps (the slowest ``ikchain bench caps`` finds)."""
    replays = [body for label, _, body in _replays_at_caps() if "4 bones × 99 it" in label]
    motions = [body for _, _, body in _motions_at_caps()][:2]
    return replays + motions


async def abusive_cycle_client(url: str, bodies: list[dict[str, Any]], stop: asyncio.Event) -> int:
    """WebSocket requests cycling through ``bodies``, each sent when the last is answered."""
    from websockets.asyncio.client import connect

    sent = 0
    async with connect(url, max_size=2**22) as ws:
        while not stop.is_set():
            await ws.send(json.dumps({**bodies[sent % len(bodies)], "id": sent}))
            await ws.recv()
            sent += 1
    return sent


async def pipelined_client(
    url: str, messages: Iterator[str | bytes], stop: asyncio.Event, window: int = WINDOW
) -> int:
    """WebSocket messages with ``window`` in flight, each answered one making room for
    the next; the socket is opened again whenever the server closes it."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import WebSocketException

    served = 0
    while not stop.is_set():
        try:
            async with connect(url, max_size=2**22) as ws:
                room = asyncio.Semaphore(window)

                async def read(ws: Any, room: asyncio.Semaphore) -> None:
                    nonlocal served
                    async for _ in ws:
                        served += 1
                        room.release()

                reader = asyncio.create_task(read(ws, room))
                try:
                    while not stop.is_set() and not reader.done():
                        await room.acquire()
                        await ws.send(next(messages))
                finally:
                    reader.cancel()
        except (OSError, WebSocketException, asyncio.CancelledError):
            await asyncio.sleep(0.01)
    return served


def _junk(size: int = 60_000) -> str:
    """``size`` characters of printable junk that is not JSON."""
    rng = np.random.default_rng(60)
    return "".join(chr(c) for c in rng.integers(33, 127, size)).replace('"', "'")


async def junk_http_client(host: str, port: int, stop: asyncio.Event) -> int:
    """``POST /api/frame`` of 60 KB of junk on one keep-alive connection, back to back."""
    payload = _junk().encode()
    request = (
        f"POST /api/frame HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
    ).encode() + payload
    served = 0
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(host, port)
            try:
                while not stop.is_set():
                    writer.write(request)
                    await writer.drain()
                    head = await reader.readuntil(b"\r\n\r\n")
                    length = 0
                    for line in head.split(b"\r\n"):
                        if line.lower().startswith(b"content-length:"):
                            length = int(line.split(b":")[1])
                    await reader.readexactly(length)
                    served += 1
            finally:
                writer.close()
        except (OSError, asyncio.IncompleteReadError):
            await asyncio.sleep(0.01)
    return served


async def broken_frame_client(host: str, port: int, stop: asyncio.Event) -> int:
    """A WebSocket frame that breaks the protocol (a text frame of invalid UTF-8), on a
    socket opened for it, again and again: each costs the server a handshake."""
    import base64

    handshake = (
        f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: "
        f"{base64.b64encode(os.urandom(16)).decode()}\r\n\r\n"
    ).encode()
    payload = b"\xc3\x28" * 8
    frame = bytes([0x81, 0x80 | len(payload)]) + b"\0\0\0\0" + payload  # zero mask
    served = 0
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(host, port)
            try:
                writer.write(handshake)
                await reader.readuntil(b"\r\n\r\n")
                writer.write(frame)
                await reader.read(4096)  # the close frame
                served += 1
            finally:
                writer.close()
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            await asyncio.sleep(0.01)
    return served


async def holder_client(url: str, sockets: int, stop: asyncio.Event) -> int:
    """``sockets`` idle WebSockets, each opened again when the server closes it."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import WebSocketException

    opened = 0

    async def hold() -> None:
        nonlocal opened
        while not stop.is_set():
            try:
                async with connect(url) as ws:
                    opened += 1
                    closed = asyncio.create_task(ws.wait_closed())
                    stopped = asyncio.create_task(stop.wait())
                    await asyncio.wait({closed, stopped}, return_when=asyncio.FIRST_COMPLETED)
                    closed.cancel()
                    stopped.cancel()
            except (OSError, WebSocketException):
                await asyncio.sleep(0.05)

    await asyncio.gather(*(hold() for _ in range(sockets)))
    return opened


def _cycle(items: Sequence[Any]) -> Iterator[Any]:
    index = 0
    while True:
        yield items[index % len(items)]
        index += 1


#: What the crowd's own pages saw: the median over them of each one's drag p99 (ms),
#: set by :func:`_crowd` in the abusers' process and sent with the requests served.
CROWD_P99: list[float] = []


async def _crowd(url: str, seconds: float, in_step: bool = False) -> int:
    """:data:`CROWD` honest pages for ``seconds``: requests served. Each page's drag
    p99 goes to :data:`CROWD_P99` (their median): when the measured page's p99 is like
    the crowd's own, the server shares fairly and the ratio to alone is its load.

    Each page starts its 60 Hz drag at a random moment of a frame and its replays at a
    random moment of a second, as pages whose readers began at different times do (a
    browser paces its frames by its own display's clock). ``in_step``: every page
    starts at once, so that the server gets the crowd's frames in one burst each
    frame, the last waiting for the other 39: the worst phase, which no classroom
    keeps."""
    states = sections()
    rng = np.random.default_rng(28)
    drag_phases = np.zeros(CROWD) if in_step else rng.uniform(0.0, 1.0 / DRAG_HZ, CROWD)
    replay_phases = np.zeros(CROWD) if in_step else rng.uniform(0.0, 1.0, CROWD)
    runs = await asyncio.gather(
        *(
            page_client(
                url,
                states[i % len(states)],
                seconds,
                drag_phase=float(drag_phases[i]),
                replay_phase=float(replay_phases[i]),
            )
            for i in range(CROWD)
        )
    )
    p99s = [percentiles(run["drag"])["p99"] for run in runs if run["drag"]]
    CROWD_P99[:] = [float(np.median(p99s))] if p99s else []
    return sum(len(run["drag"]) + len(run["replay"]) for run in runs)


async def _abuse(host: str, port: int, abusers: int, seconds: float, mix: str = "caps") -> int:
    """``abusers`` clients of ``mix`` for ``seconds``: requests served."""
    from ikchain.caps import CONNECTION_LIMITS

    url = f"ws://{host}:{port}/ws"
    stop = asyncio.Event()
    tasks: list[asyncio.Task[int]] = []
    if mix in ("crowd", "crowd-in-step"):
        return await _crowd(url, seconds, in_step=mix == "crowd-in-step")
    for i in range(abusers):
        if mix == "junk":
            junk = json.dumps(_junk())
            client = (
                junk_http_client(host, port, stop)
                if i % 2
                else pipelined_client(url, _cycle([junk]), stop)
            )
        elif mix == "malformed":
            bad = [json.dumps({"id": k, "lengths": "x"}) for k in range(8)] + ["[", "{}", "7"]
            client = (
                broken_frame_client(host, port, stop)
                if i % 2
                else pipelined_client(url, _cycle(bad), stop)
            )
        elif mix == "holders":
            room = CONNECTION_LIMITS["client_connections"] - 8  # the honest page's few
            client = holder_client(url, room // abusers, stop)
        elif mix == "caps":
            frame, batch = at_caps_bodies()
            client = (
                abusive_http_client(host, port, batch, stop)
                if i % 2
                else abusive_ws_client(url, frame, stop)
            )
        elif mix == "light":
            bodies = light_bodies()
            texts = [json.dumps({**body, "id": k}) for k, body in enumerate(bodies)]
            client = pipelined_client(url, _cycle(texts[i % 8 :] + texts[: i % 8]), stop)
        else:
            bodies = heavy_bodies()
            client = abusive_cycle_client(url, bodies[i % 2 :] + bodies[: i % 2], stop)
        tasks.append(asyncio.create_task(client))
    await asyncio.sleep(seconds)
    stop.set()
    return int(sum(await asyncio.gather(*tasks)))


#: The abusers' own process runs at this lower priority: on a 2-core machine their
#: client work (reading megabytes of replies a second) would otherwise take the CPU
#: the honest client needs to read its answer, which measures the machine, not the
#: server (abusers on other machines cost the server only what it serves them).
ABUSER_NICE = 10


def _abuse_process(
    host: str, port: int, abusers: int, seconds: float, out: Any, mix: str = "caps"
) -> None:
    with contextlib.suppress(OSError, AttributeError):
        os.nice(ABUSER_NICE)
    served = asyncio.run(_abuse(host, port, abusers, seconds, mix))
    out.put({"served": served, "crowd_drag_p99": CROWD_P99[0] if CROWD_P99 else None})


def page_replay_body(state: dict[str, Any]) -> dict[str, Any]:
    """The replay a page asks for from a figure's state (CCD, joint by joint)."""
    return {
        "kind": "replay",
        "lengths": state["lengths"],
        "target": state["target"],
        "method": "ccd",
        "iterations": state["iterations"],
        "tolerance": state.get("tolerance") or 1e-4,
        "joint_steps": True,
    }


async def page_client(
    url: str,
    state: dict[str, Any],
    seconds: float,
    *,
    replay_every: float = 1.0,
    drag_phase: float = 0.0,
    replay_phase: float = 0.0,
) -> dict[str, Any]:
    """One page on one WebSocket: a drag at 60 Hz (one frame in flight) and a replay
    every ``replay_every`` seconds (one in flight), replies matched by id as the
    page's script matches them. Round trips (ms) of each. The drag's first frame and
    the first replay wait ``drag_phase`` and ``replay_phase`` seconds."""
    from websockets.asyncio.client import connect

    loop = asyncio.get_running_loop()
    waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
    ids = iter(range(1, 10**9))
    errors = 0

    async with connect(url, max_size=2**22) as ws:

        async def read() -> None:
            async for text in ws:
                reply = json.loads(text)
                future = waiting.pop(reply.get("id"), None)
                if future is not None and not future.done():
                    future.set_result(reply)

        async def ask(body: dict[str, Any]) -> tuple[float, dict[str, Any]]:
            request_id = next(ids)
            future = loop.create_future()
            waiting[request_id] = future
            start = time.perf_counter()
            await ws.send(json.dumps({**body, "id": request_id}))
            reply = await future
            return (time.perf_counter() - start) * 1e3, reply

        async def drag() -> list[float]:
            nonlocal errors
            ticks = max(2, int(seconds * DRAG_HZ))
            path = drag_path(state["target"], ticks)
            samples, init, period = [], None, 1.0 / DRAG_HZ
            await asyncio.sleep(drag_phase)
            begin = time.perf_counter()
            while (tick := int((time.perf_counter() - begin) / period)) < ticks:
                spent, reply = await ask(frame_body(state, path[tick], init))
                samples.append(spent)
                if reply.get("ok"):
                    init = reply["frame"]["result"]["angles"]
                else:
                    errors += 1
                next_at = begin + (int((time.perf_counter() - begin) / period) + 1) * period
                await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
            return samples

        async def replays() -> list[float]:
            nonlocal errors
            samples = []
            end = time.perf_counter() + seconds
            await asyncio.sleep(replay_phase)
            while time.perf_counter() < end:
                started = time.perf_counter()
                spent, reply = await ask(page_replay_body(state))
                samples.append(spent)
                errors += not reply.get("ok")
                await asyncio.sleep(max(0.0, replay_every - (time.perf_counter() - started)))
            return samples

        reader = asyncio.create_task(read())
        drags, replayed = await asyncio.gather(drag(), replays())
        reader.cancel()
    return {"drag": drags, "replay": replayed, "errors": errors}


def _load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def run_fairness(
    seconds: float = 10.0, abusers: int = 16, mixes: Sequence[str] = MIXES
) -> dict[str, Any]:
    """An honest page (the 2.3 figure: a 60 Hz drag and a replay a second, on one
    WebSocket) alone, then beside ``abusers`` clients of each mix (in their own
    process, so that their event loop does not delay the honest client's). The page
    runs alone again before each mix (``alone_before``), so that each ratio compares
    two runs a few seconds apart on a machine whose load drifts."""
    import multiprocessing

    state = sections()[2]  # 2.3: CCD, three bones
    context = multiprocessing.get_context("spawn")
    results: dict[str, Any] = {"seconds": seconds, "abusers": abusers, "figure": state["key"]}
    with lesson_server() as (host, port, _):
        url = f"ws://{host}:{port}/ws"

        def alone_now() -> dict[str, Any]:
            alone = asyncio.run(page_client(url, state, seconds))
            return {
                "drag": percentiles(alone["drag"]),
                "replay": percentiles(alone["replay"]),
                "errors": alone["errors"],
                "load_average": _load_average(),
            }

        results["alone"] = alone_now()
        for index, mix in enumerate(mixes):
            before = results["alone"] if index == 0 else alone_now()
            out = context.Queue()
            abuse = context.Process(
                target=_abuse_process, args=(host, port, abusers, seconds + 4.0, out, mix)
            )
            abuse.start()
            time.sleep(2.0)  # let the abuse build up
            page = asyncio.run(page_client(url, state, seconds))
            load = _load_average()
            served = out.get(timeout=120)
            abuse.join(timeout=30)
            results[mix] = {
                "drag": percentiles(page["drag"]),
                "replay": percentiles(page["replay"]),
                "errors": page["errors"],
                "abusive_requests_served": served["served"],
                "crowd_drag_p99": served["crowd_drag_p99"],
                "load_average": load,
                "alone_before": before,
            }
    return results


MIX_NAMES = {
    "caps": "requests at the caps",
    "light": "light frames back to back",
    "heavy": "replays and motions at their caps",
    "junk": "60 KB of junk",
    "malformed": "malformed frames",
    "holders": "idle WebSockets held",
    "crowd": "pages (a crowd of honest ones)",
    "crowd-in-step": "pages (a crowd of honest ones, every frame in step)",
}


def format_fairness(results: dict[str, Any]) -> str:
    alone = results["alone"]
    lines = [
        f"An honest page ({results['figure']}, CCD: a 60 Hz drag and a replay a second on one "
        f"WebSocket) for {results['seconds']:g} s, round trips (ms):",
        f"  alone: drag p50 {alone['drag']['p50']:.2f} p99 {alone['drag']['p99']:.2f}; "
        f"replay p50 {alone['replay']['p50']:.2f} p99 {alone['replay']['p99']:.2f} "
        f"({alone['errors']} errors; load average {_shown_load(alone['load_average'])})",
    ]
    verdicts = []
    for mix in MIXES + EXTRA_MIXES:
        if mix not in results:
            continue
        row = results[mix]
        before = row.get("alone_before", alone)
        drag = row["drag"]["p99"] / before["drag"]["p99"]
        replay = row["replay"]["p99"] / before["replay"]["p99"]
        beside = (
            f"{CROWD} other honest pages{' in step' if mix == 'crowd-in-step' else ''}"
            if mix.startswith("crowd")
            else f"{results['abusers']} clients sending {MIX_NAMES[mix]}"
        )
        lines.append(
            f"  beside {beside}: drag p50 "
            f"{row['drag']['p50']:.2f} p99 {row['drag']['p99']:.2f} ({drag:.2f} ×); replay "
            f"p50 {row['replay']['p50']:.2f} p99 {row['replay']['p99']:.2f} ({replay:.2f} ×); "
            f"{row['errors']} errors, {row['abusive_requests_served']} of theirs served; "
            f"load average {_shown_load(row['load_average'])}"
        )
        if row.get("crowd_drag_p99") is not None:
            lines.append(
                f"    (the crowd's own pages: median drag p99 {row['crowd_drag_p99']:.2f}; "
                "where the measured page's is near it, the server shares fairly and the "
                "ratio to alone is its load)"
            )
        verdicts += [drag <= FAIRNESS_GOAL, replay <= FAIRNESS_GOAL]
    verdict = "met" if all(verdicts) else "NOT met"
    lines.append(f"goal: every p99 beside abuse <= {FAIRNESS_GOAL:g} × alone: {verdict}")
    return "\n".join(lines)


def _shown_load(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


# -- 3. Classroom load ------------------------------------------------------------------------


async def _load(host: str, port: int, clients: int, seconds: float) -> dict[str, Any]:
    url = f"ws://{host}:{port}/ws"
    states = sections()
    start = time.perf_counter()
    runs = await asyncio.gather(
        *(
            drag_client(url, states[i % len(states)], seconds, phase=(7 * i) % 60)
            for i in range(clients)
        )
    )
    elapsed = time.perf_counter() - start
    samples = [sample for run in runs for sample in run["samples"]]
    asked_rate = sum(run["asked"] for run in runs) / seconds
    return {
        "clients": clients,
        "seconds": seconds,
        "elapsed": elapsed,
        "served_per_s": len(samples) / elapsed,
        "asked_per_s": asked_rate,
        "round_trip": percentiles(samples),
        "errors": sum(run["errors"] for run in runs),
    }


def run_load(clients: int = 50, seconds: float = 20.0, workers: int = 1) -> dict[str, Any]:
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF)
    with lesson_server(workers) as (host, port, pid):
        server_before = cpu_seconds(pid)
        result = asyncio.run(_load(host, port, clients, seconds))
        server_after = cpu_seconds(pid)
    after = resource.getrusage(resource.RUSAGE_SELF)
    served = result["served_per_s"] * result["elapsed"]
    server_ms = None
    if server_before is not None and server_after is not None and served:
        server_ms = (server_after - server_before) / served * 1e3
    used = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {
        **result,
        "workers": workers,
        "cpus": os.cpu_count(),
        "client_cpu_share": used / result["elapsed"],  # cores the clients kept busy
        "server_cpu_ms_per_frame": server_ms,  # so one core serves 1000 / this frames/s
    }


def format_load(results: dict[str, Any]) -> str:
    rt = results["round_trip"]
    verdict = "met" if rt["p99"] <= LOAD_GOAL_MS else "NOT met"
    return "\n".join(
        [
            f"{results['clients']} clients dragging at {DRAG_HZ:g} Hz for "
            f"{results['seconds']:g} s, {results['workers']} server worker(s), "
            f"{results['cpus']} CPUs:",
            f"  served {results['served_per_s']:.0f} frames/s of {results['asked_per_s']:.0f} "
            f"asked; round trip p50 {rt['p50']:.2f} ms, p99 {rt['p99']:.2f} ms, "
            f"max {rt['max']:.2f} ms; {results['errors']} error replies; the clients "
            f"themselves kept {results['client_cpu_share']:.2f} of a core busy",
            f"  the server spent {_ms(results['server_cpu_ms_per_frame'])} of CPU per frame "
            f"served: one core serves about {_per_core(results['server_cpu_ms_per_frame'])} "
            "frames/s",
            f"goal: p99 <= {LOAD_GOAL_MS:g} ms: {verdict}",
        ]
    )


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f} ms"


def _per_core(value: float | None) -> str:
    return "—" if not value else f"{1000.0 / value:.0f}"


def _writable(path: Path | None, program: str) -> bool:
    """Whether ``--json`` can be written (checked before a run); says why not on stderr."""
    from ikchain.bench import unwritable

    why = None if path is None else unwritable(path)
    if why is not None:
        print(f"{program}: error: --json: {why}", file=sys.stderr)
    return why is None


def _write(path: Path | None, results: dict[str, Any], program: str = "ikchain bench") -> bool:
    """Write ``results`` to ``path`` (if given); False, said on stderr, if that fails."""
    if path is None:
        return True
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    except OSError as error:
        print(f"{program}: error: --json: cannot write {path} ({error})", file=sys.stderr)
        return False
    return True
