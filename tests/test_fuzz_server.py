"""A bounded socket-level fuzz of the real server (uvicorn on a loopback port).

Raw HTTP requests (mutated valid ones, wrong methods, paths, headers, content types,
lengths that lie, bodies of random bytes) and WebSocket messages (mutated frames,
random text and bytes) from a seeded generator, for a bounded count and time. Asserts:
no answer is a 5xx, no JSON answer is anything but strict JSON, every HTTP request
that is HTTP gets an answer, every WebSocket message gets a reply and the socket
stays open, and the server logs no error or traceback.
"""

import json
import logging
import random
import socket
import time

import pytest

from ikchain.web.runner import running_server

SEED = 20261203
HTTP_REQUESTS = 250
WS_MESSAGES = 400
TIME_LIMIT = 45.0  # seconds for each half, whichever comes first

GOOD_FRAME = {"id": 1, "lengths": [0.8, 0.6], "target": [1.0, 0.5], "method": "ccd"}
VALUES = [
    None,
    True,
    False,
    0,
    -1,
    2**53,
    10**400,
    1e308,
    -1e-300,
    0.5,
    "",
    "\ud800",
    "é",
    [],
    {},
    [[[]]],
    [1, 2, 3],
    [[1, 2]] * 3,
    {"a": [1]},
]
KEYS = ["lengths", "target", "method", "init", "iterations", "tolerance", "damping", "bend"]
KEYS += ["id", "smoothing", "previous_target", "family", "limits", "kind", "lang", "x"]


def strict(text):
    def refuse(name):
        raise AssertionError(f"{name} in a reply")

    return json.loads(text, parse_constant=refuse)


def mutated_json(rng):
    """A request near a valid frame: keys dropped, replaced, added or retyped."""
    data = dict(GOOD_FRAME)
    for _ in range(rng.randint(1, 4)):
        action = rng.random()
        key = rng.choice(KEYS)
        if action < 0.5:
            data[key] = rng.choice(VALUES)
        elif action < 0.7:
            data.pop(key, None)
        elif action < 0.85:
            data[key] = rng.choice([["dls"], "ccd", "replay", "motion", 3, [0.1] * 40])
        else:
            data = rng.choice(VALUES)
            break
    text = json.dumps(data, ensure_ascii=rng.random() < 0.5)
    if rng.random() < 0.2 and len(text) > 2:  # cut it somewhere
        text = text[: rng.randrange(1, len(text))]
    if rng.random() < 0.1:
        text = "[" * rng.randint(10, 3000) + text
    return text


def random_message(rng):
    choice = rng.random()
    if choice < 0.6:
        return mutated_json(rng)
    if choice < 0.75:
        return "".join(chr(rng.randint(1, 0x2FFF)) for _ in range(rng.randint(0, 60)))
    if choice < 0.9:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 80)))
    return json.dumps({**GOOD_FRAME, "kind": rng.choice(["replay", "motion", "frame", 7])})


def http_request(rng, host):
    """Raw bytes of one HTTP/1.1 request, valid or broken in one of many ways, and
    whether its Content-Length is true (a request that lies may go unanswered)."""
    method = rng.choice(["POST"] * 6 + ["GET", "PUT", "DELETE", "OPTIONS", "HEAD", "PATCH"])
    path = rng.choice(["/api/solve", "/api/frame"] * 4 + ["/", "/?lang=EN", "/?lang=%3Csvg%3E"])
    path = rng.choice([path, "/static/lesson.js", "/static/../x", "/nowhere", path + "?x=1"])
    body = mutated_json(rng).encode("utf-8", "surrogatepass")
    if rng.random() < 0.1:
        body = bytes(rng.randrange(256) for _ in range(rng.randint(0, 200)))
    headers = {
        "Host": rng.choice([host] * 8 + ["evil.example", "localhost", "[::1]:1", ""]),
        "Content-Type": rng.choice(
            ["application/json"] * 6 + ["text/plain", "application/json; charset=utf-8", ""]
        ),
        "Content-Length": str(len(body)),
        "Connection": "close",
    }
    if rng.random() < 0.15:
        headers["Origin"] = rng.choice(["http://evil.example", "null", f"http://{host}"])
    if rng.random() < 0.05:
        headers["Content-Length"] = str(len(body) + rng.randint(1, 5))  # a lie: hangs up early
    if rng.random() < 0.05:
        headers["Content-Length"] = "99999999999"
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(
        f"{name}: {value}\r\n" for name, value in headers.items() if value != ""
    )
    honest = headers["Content-Length"] == str(len(body))
    if rng.random() < 0.03:
        head = "GARBAGE / NOT-HTTP\r\n"
    return head.encode("latin-1") + b"\r\n" + body, honest


def read_response(sock):
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


class Errors(logging.Handler):
    def __init__(self):
        super().__init__(logging.ERROR)
        self.records = []

    def emit(self, record):
        self.records.append(self.format(record))


@pytest.fixture(scope="module")
def server():
    errors = Errors()
    logging.getLogger().addHandler(errors)
    try:
        with running_server() as url:
            yield url, errors
    finally:
        logging.getLogger().removeHandler(errors)


def test_raw_http_fuzz(server):
    url, errors = server
    host = url.removeprefix("http://")
    address = (host.split(":")[0], int(host.split(":")[1]))
    rng = random.Random(SEED)
    statuses = {}
    deadline = time.monotonic() + TIME_LIMIT
    for index in range(HTTP_REQUESTS):
        if time.monotonic() > deadline:
            break
        request, honest = http_request(rng, host)
        with socket.create_connection(address, timeout=10 if honest else 2) as sock:
            sock.sendall(request)
            try:
                answer = read_response(sock)
            except TimeoutError:
                answer = b""
        if not answer:
            # Only a request whose Content-Length promised more than it sent may go
            # unanswered (the server waits for the rest, then the client is gone).
            assert not honest, f"#{index}: no answer to {request[:300]!r}"
            continue
        head, _, body = answer.partition(b"\r\n\r\n")
        status = int(head.split(b" ")[1])
        statuses[status] = statuses.get(status, 0) + 1
        assert status < 500, f"#{index}: {status} for {request[:300]!r}: {body[:300]!r}"
        if b"application/json" in head.lower() and not request.startswith(b"HEAD"):
            try:
                strict(body.decode("utf-8"))
            except ValueError as error:
                raise AssertionError(f"#{index}: {answer[:400]!r} for {request[:200]!r}") from error
    assert errors.records == []
    assert sum(statuses.values()) >= 50, statuses
    assert set(statuses) & {200} and set(statuses) & {400}, statuses


def test_websocket_fuzz(server):
    from websockets.sync.client import connect

    url, errors = server
    ws_url = url.replace("http://", "ws://") + "/ws"
    rng = random.Random(SEED + 1)
    deadline = time.monotonic() + TIME_LIMIT
    sent = 0
    with connect(ws_url, max_size=2**22) as first, connect(ws_url, max_size=2**22) as second:
        while sent < WS_MESSAGES and time.monotonic() < deadline:
            ws = first if sent % 2 else second
            message = random_message(rng)
            if isinstance(message, str) and not message.isascii():
                try:
                    message.encode("utf-8")
                except UnicodeEncodeError:  # a lone surrogate: send its bytes as they are
                    message = message.encode("utf-8", "surrogatepass")
            ws.send(message)
            reply = strict(ws.recv(timeout=30))
            assert isinstance(reply, dict) and "ok" in reply, reply
            if not reply["ok"]:
                assert isinstance(reply["error"], str) and reply["error"]
            sent += 1
        for ws in (first, second):  # both still open and serving
            ws.send(json.dumps(GOOD_FRAME))
            assert strict(ws.recv(timeout=30))["ok"] is True
    assert sent >= 100
    assert errors.records == []
