"""The heavy-request process: a watchdog per request, replies that
keep their id, SIGINT that stays out of the server, one log line per death, and a new
process after each."""

import asyncio
import json
import logging
import os
import signal
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor

import pytest
from starlette.testclient import TestClient

from ikchain.web.app import build_app
from ikchain.web.scheduler import Workers

REPLAY = {
    "kind": "replay",
    "lengths": [0.8, 0.6],
    "target": [1.0, 0.5],
    "method": "ccd",
    "iterations": 20,
}
WS = "ws://127.0.0.1:8000/ws"


def run(coroutine):
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


class Stuck(ThreadPoolExecutor):
    """A heavy process that never answers (``kill -STOP``, or a solve that loops)."""

    made = 0

    def __init__(self, processes):
        super().__init__(processes)
        Stuck.made += 1

    def submit(self, fn, *args, **kwargs):
        if fn is int:
            return super().submit(fn)
        return Future()  # never done


def test_a_request_past_the_watchdog_gets_503_with_its_id_and_a_new_process(caplog):
    Stuck.made = 0

    async def scenario():
        workers = Workers(executor=Stuck, heavy_seconds=0.3)
        await workers.started()
        bodies = [json.dumps({**REPLAY, "id": f"r{i}"}) for i in range(3)]
        replies = await asyncio.gather(
            *(workers.respond("frame", body, f"page{i}") for i, body in enumerate(bodies))
        )
        workers.close()
        return replies

    with caplog.at_level(logging.ERROR, logger="ikchain.web"):
        replies = run(scenario())
    answers = [json.loads(reply.text) for reply in replies]
    assert [a["id"] for a in answers] == ["r0", "r1", "r2"]
    assert all(reply.status == 503 for reply in replies)
    assert "took longer than 0.3 s" in answers[0]["error"]
    # each request waited for one watchdog at most, one new process each time, a line each
    assert Stuck.made == 4
    assert len([r for r in caplog.records if "starting a new one" in r.message]) == 3


def heavy_pids(client):
    return list(getattr(client.app.state.workers.heavy, "_processes", {}))


def wait_for(predicate, seconds=120.0):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline
        time.sleep(0.05)


pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="signals")


def test_sigint_to_the_heavy_process_stays_out_of_the_server(caplog):
    """Ctrl+C's SIGINT reaching the heavy process used to come back as a
    KeyboardInterrupt in the server's log (once a 500 with an empty body)."""
    with (
        caplog.at_level(logging.INFO),
        TestClient(build_app(), base_url="http://127.0.0.1:8000") as client,
    ):
        (pid,) = heavy_pids(client)
        os.kill(pid, signal.SIGINT)
        time.sleep(0.5)
        with client.websocket_connect(WS) as socket:
            socket.send_text(json.dumps({**REPLAY, "id": 5}))
            reply = socket.receive_json()
        assert heavy_pids(client) == [pid]
    assert reply["id"] == 5 and reply["ok"] is True
    assert "KeyboardInterrupt" not in caplog.text


def test_a_killed_heavy_process_logs_one_line_and_is_replaced(caplog):
    with (
        caplog.at_level(logging.ERROR, logger="ikchain.web"),
        TestClient(build_app(), base_url="http://127.0.0.1:8000") as client,
    ):
        (pid,) = heavy_pids(client)
        with client.websocket_connect(WS) as socket:
            os.kill(pid, signal.SIGKILL)
            for i in range(5):  # sent as it dies (its share: 1 running, 4 waiting)
                socket.send_text(json.dumps({**REPLAY, "id": i}))
            replies = [socket.receive_json() for _ in range(5)]
            wait_for(lambda: client.app.state.workers.ready and heavy_pids(client) != [pid])
            socket.send_text(json.dumps({**REPLAY, "id": 99}))
            after = socket.receive_json()
    assert sorted(reply["id"] for reply in replies) == list(range(5))
    assert all(reply["ok"] or "restarted" in reply["error"] for reply in replies)
    assert after["id"] == 99 and after["ok"] is True
    lines = [r for r in caplog.records if "starting a new one" in r.message]
    assert len(lines) == 1, [r.message for r in lines]
