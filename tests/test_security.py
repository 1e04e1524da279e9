"""The server against a hostile client: each class of attack found, refused
with a message, and the connection still serving.

Over Starlette's TestClient; the socket-level fuzz of the real server is in
tests/test_fuzz_server.py.
"""

import html.parser
import json
import math

import pytest
from starlette.testclient import TestClient, WebSocketDenialResponse

from ikchain.caps import CAPS
from ikchain.solvers import METHODS
from ikchain.web import protocol
from ikchain.web.app import LIGHT_WORK, SECURITY_HEADERS, Workers, build_app
from ikchain.web.protocol import Heavy, RequestError, decode, encode, respond

BASE = "http://127.0.0.1:8000"
WS = "ws://127.0.0.1:8000/ws"
GOOD = {"lengths": [0.8, 0.6], "target": [1.0, 0.5], "method": "ccd"}


def strict_json(text):
    """Parse as strict JSON: NaN and infinity are not JSON."""

    def refuse(name):
        raise AssertionError(f"non-JSON constant {name} in a reply")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def client():
    with TestClient(build_app(), base_url=BASE) as test_client:
        yield test_client


def post(client, path, body, **headers):
    content = body if isinstance(body, bytes | str) else json.dumps(body)
    return client.post(
        path, content=content, headers={"content-type": "application/json", **headers}
    )


# -- 1. Work counted over the broadcast batch; init shape-checked; reply capped ----------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        # One target, 32 × 32 start poses: 1,024 solves, not one.
        (
            {"target": [1.0, 0.5], "init": [[[0.1, 0.1]] * 32] * 32},
            "got 1024 (batch shape (32, 32))",
        ),
        # 16 targets × 16 start poses broadcast to 256 solves, each 2 bones × 200 iterations.
        (
            {"target": [[[1.0, 0.5]]] * 16, "init": [[[0.1, 0.1]] * 16]},
            "got 102,400 (2 bones, batch shape (16, 16))",
        ),
        ({"target": [[1.0, 0.5]] * 3, "init": [[0.1, 0.1]] * 2}, "init: expected a batch shape"),
        ({"init": [0.1, 0.1, 0.1]}, "init: expected an array of shape (..., 2), got shape (3,)"),
        ({"init": [[0.1], [0.2]]}, "init: expected an array of shape (..., 2), got shape (2, 1)"),
        ({"init": [[0.1, 0.2], [0.3]]}, "init: expected a rectangular array"),
    ],
)
def test_start_poses_count_as_solves(client, changes, message):
    response = post(client, "/api/solve", {**GOOD, **changes})
    assert response.status_code == 400, response.text[:200]
    assert message in response.json()["error"]


def test_the_caps_admit_exactly_their_work(monkeypatch):
    monkeypatch.setitem(CAPS, "max_work", 1_000)
    monkeypatch.setitem(CAPS, "max_batch_work", 1_200)
    at_cap = {"lengths": [0.5] * 3, "target": [0.3, 0.4], "iterations": 333}
    assert protocol.parse_solve(at_cap).work == 999
    with pytest.raises(RequestError, match=r"bones × iterations <= 1,000, got 1,002"):
        protocol.parse_solve({**at_cap, "iterations": 334})
    batch = {"lengths": [0.5] * 2, "target": [[0.3, 0.4]] * 3}  # 3 × 2 × 200 (the default)
    assert protocol.parse_solve(batch).work == 1_200
    with pytest.raises(RequestError, match=r"solves × bones × iterations <= 1,200, got 1,600"):
        protocol.parse_solve({**batch, "target": [[0.3, 0.4]] * 4})


def test_one_solve_may_use_every_bone_and_iteration():
    """The README's claim: max_work = max_bones × max_iterations."""
    bones, iterations = CAPS["max_bones"], CAPS["max_iterations"]
    request = {"lengths": [0.1] * bones, "target": [1.0, 0.0], "iterations": iterations}
    assert protocol.parse_solve(request).work == bones * iterations == CAPS["max_work"]


def test_a_full_batch_reply_stays_under_its_bound(client):
    solves = CAPS["max_targets"]
    body = {"lengths": [0.8, 0.6], "target": [[1.0, -0.5 + i / solves] for i in range(solves)]}
    response = post(client, "/api/solve", {**body, "method": "analytic"})
    assert response.status_code == 200
    assert len(response.content) <= protocol.reply_bytes_bound(2, solves)
    assert protocol.reply_bytes_bound(2, solves) <= CAPS["max_reply_bytes"]


def test_encode_refuses_replies_over_the_cap(monkeypatch):
    monkeypatch.setitem(CAPS, "max_reply_bytes", 100)
    with pytest.raises(RequestError, match="reply: expected at most 100 bytes"):
        encode({"text": "x" * 200})


# -- 2. Heavy requests run apart from the drags ----------------------------------------------


def test_light_requests_are_solved_here_and_heavy_ones_handed_on():
    light = {"id": 1, **GOOD, "iterations": 64}
    assert not isinstance(respond("frame", json.dumps(light), max_work=LIGHT_WORK), Heavy)
    heavy = {**light, "iterations": LIGHT_WORK}
    assert respond("frame", json.dumps(heavy), max_work=LIGHT_WORK) == Heavy(1)
    batch = {**GOOD, "target": [[1.0, 0.5]], "iterations": 1}
    assert respond("solve", json.dumps(batch), max_work=LIGHT_WORK) == Heavy()


def run_async(coroutine):
    """Run a coroutine on a fresh loop in its own thread (a browser test's loop may run here)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def test_workers_send_heavy_requests_to_the_heavy_pool():
    from concurrent.futures import ThreadPoolExecutor

    class Recording(ThreadPoolExecutor):
        calls = 0

        def submit(self, fn, *args, **kwargs):
            Recording.calls += fn is not int  # int: the start-up probe
            return super().submit(fn, *args, **kwargs)

    workers = Workers(executor=Recording)
    heavy = json.dumps({"id": 2, **GOOD, "iterations": LIGHT_WORK})
    light = json.dumps({"id": 3, **GOOD, "iterations": 10})

    async def both():
        await workers.started()
        return [await workers.respond("frame", body) for body in (heavy, light)]

    replies = run_async(both())
    workers.close()
    assert [strict_json(r.text)["id"] for r in replies] == [2, 3]
    assert Recording.calls == 1


# -- 3. Host names, same-origin browsers, JSON bodies ----------------------------------------


def test_other_host_names_are_refused(client):
    for path in ("/", "/static/lesson.js"):
        response = client.get(path, headers={"host": "evil.example"})
        assert response.status_code == 400
        assert (
            "host: expected one of 127.0.0.1, ::1, localhost, got 'evil.example'"
            in (response.json()["error"])
        )
    response = post(client, "/api/solve", GOOD, host="evil.example:8000")
    assert response.status_code == 400
    with (
        pytest.raises(WebSocketDenialResponse) as denied,
        client.websocket_connect("ws://evil.example:8000/ws"),
    ):
        pass
    assert denied.value.status_code == 400
    for host in ("localhost:8000", "[::1]:8000", "LOCALHOST", "127.0.0.1"):
        assert client.get("/", headers={"host": host}).status_code == 200, host


@pytest.mark.parametrize(
    "host",
    [
        "localhost:evil.com",
        "127.0.0.1:8000@evil.com",
        "localhost..",
        "127.0.0.1:99999",
        "localhost:",
        "127.0.0.1:0",
        "[::1",
        "local host",
        "localhost:80:80",
    ],
)
def test_host_values_no_browser_sends_are_refused(client, host):
    """Each of these was once served as one of the loopback names."""
    response = client.get("/", headers={"host": host})
    assert response.status_code == 400
    assert response.json()["error"].startswith("host: expected a name or address")


def test_two_origin_or_host_headers_are_refused(client):
    """Of two Origin headers the last used to win: a foreign one first slipped by."""
    from ikchain.web.app import Guard

    guard = Guard(None, ["127.0.0.1"])
    host = (b"host", b"127.0.0.1:8000")
    for kind in ("websocket", "http"):
        scope = {
            "type": kind,
            "method": "POST",
            "headers": [host, (b"origin", b"http://evil.example"), (b"origin", BASE.encode())],
        }
        assert guard.refusal(scope) == (403, "origin: expected one Origin header, got several")
    scope = {"type": "http", "method": "GET", "headers": [host, host]}
    assert guard.refusal(scope) == (400, "host: expected one Host header, got several")
    response = client.post(
        "/api/solve",
        content=json.dumps(GOOD),
        headers=[("content-type", "application/json"), ("origin", BASE), ("origin", BASE)],
    )
    assert response.status_code == 403


def test_host_names_are_configurable():
    with TestClient(build_app(["lesson.example"]), base_url="http://lesson.example") as client:
        assert client.get("/").status_code == 200
        assert client.get("/", headers={"host": "127.0.0.1"}).status_code == 400
    with TestClient(build_app(["*"]), base_url="http://anything.example") as client:
        assert client.get("/").status_code == 200


def test_only_same_origin_websockets(client):
    for origin in ("http://evil.example", "null", "http://127.0.0.1:9999", "file://"):
        with (
            pytest.raises(WebSocketDenialResponse) as denied,
            client.websocket_connect(WS, headers={"origin": origin}),
        ):
            pass
        assert denied.value.status_code == 403
        assert "origin: expected this page's own origin" in denied.value.json()["error"]
    with client.websocket_connect(WS, headers={"origin": BASE}) as socket:
        socket.send_text(json.dumps({"id": 1, **GOOD}))
        assert socket.receive_json()["ok"] is True


@pytest.mark.parametrize("path", ["/api/solve", "/api/frame"])
def test_only_json_bodies_from_this_origin(client, path):
    body = json.dumps(GOOD)
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        response = client.post(path, content=body, headers={"content-type": kind})
        assert response.status_code == 415
        assert (
            f"content-type: expected application/json, got '{kind}'" in (response.json()["error"])
        )
    assert client.post(path, content=body).status_code == 415  # no content type at all
    cross = post(client, path, GOOD, origin="http://evil.example")
    assert cross.status_code == 403
    same = post(client, path, GOOD, origin=BASE)
    assert same.status_code == 200
    charset = client.post(
        path, content=body, headers={"content-type": "application/json; charset=utf-8"}
    )
    assert charset.status_code == 200


# -- 4. Reflected text escaped; security headers --------------------------------------------


def test_lang_is_never_reflected_unescaped(client):
    attack = "<svg/onload=alert(1)>"
    response = client.get("/", params={"lang": attack})
    assert response.status_code == 400
    assert "<svg" not in response.text and "&lt;svg/onload=alert(1)&gt;" in response.text
    assert "expected one of zh, en" in response.text


def test_lang_is_case_insensitive(client):
    for given, lang in (("EN", "en"), ("En", "en"), ("ZH", "zh-Hans")):
        response = client.get("/", params={"lang": given})
        assert response.status_code == 200 and f'<html lang="{lang}"' in response.text


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/"), ("GET", "/?lang=fr"), ("GET", "/static/lesson.js"), ("GET", "/nowhere")],
)
def test_every_answer_carries_the_security_headers(client, method, path):
    response = client.request(method, path)
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value
    policy = response.headers["content-security-policy"]
    assert "script-src 'self';" in policy and "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy and response.headers["x-frame-options"] == "DENY"


def test_api_answers_carry_the_security_headers(client):
    for response in (post(client, "/api/solve", GOOD), post(client, "/api/solve", b"{")):
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["content-type"] == "application/json"


class _Inline(html.parser.HTMLParser):
    """Collects what the Content-Security-Policy would block: inline script and style."""

    def __init__(self):
        super().__init__()
        self.found = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in attrs:
            if name.startswith("on") or name == "style":
                self.found.append(f"<{tag} {name}=...>")
        if tag == "style":
            self.found.append("<style>")
        if tag == "script":
            executable = attrs.get("type", "text/javascript") != "application/json"
            self._in_script = executable and "src" not in attrs

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.found.append(f"<script>{data.strip()[:40]}")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_page_has_no_inline_script_or_style(client, lang):
    parser = _Inline()
    parser.feed(client.get("/", params={"lang": lang}).text)
    assert parser.found == []


# -- 5. Malformed requests: a 4xx or an error reply, and the connection stays open ----------

DIGITS_400 = "1" + "0" * 400
MALFORMED = [
    ('{"lengths": [0.8, 0.6], "target": [1, 0], "iterations": ' + DIGITS_400 + "}", "integers"),
    ('{"lengths": [' + DIGITS_400 + ', 0.6], "target": [1, 0]}', "integers within"),
    ('{"lengths": [0.8, 0.6], "target": [1e400, 0]}', "expected finite numbers, got 1e400"),
    ('{"lengths": [0.8, 0.6], "target": [1, 0], "tolerance": -1e400}', "finite numbers"),
    ("[" * 1000, "nested at most 8 deep"),
    ('{"a": ' * 1000 + "1" + "}" * 1000, "nested at most 8 deep"),
    ('{"lengths": [0.8, 0.6], "target": [NaN, 0]}', "expected finite numbers, got NaN"),
    ('{"lengths": [0.8, 0.6], "target": [1, 0], "\\udfff": 1}', "lone surrogates"),
    ('{"lengths": [0.8, 0.6], "target": [1, 0], "method": "\\ud800"}', "lone surrogates"),
    ('{"lengths": [0.8, 0.6], "lengths": [1, 1], "target": [1, 0]}', "'lengths' twice"),
    ('{"lengths": [true, 0.6], "target": [1, 0]}', "lengths: expected numbers, got true"),
    ('{"lengths": [0.8, 0.6], "target": [1, false]}', "target: expected numbers, got false"),
    ('{"lengths": [0.8, 0.6], "target": [1, 0], "iterations": true}', "non-negative integer"),
    ('{"lengths": [0.8, 0.6], "target": [1, 0], "bend": true, "method": "analytic"}', "+1 or -1"),
    ('{"lengths": [0.8, 0.6], "target": [1, 0], "damping": "0.5"}', "damping: expected a number"),
    ('{"lengths": [0.8, 0.6], "target": [1, 0], "iterations": 2.5}', "non-negative integer"),
    ('{"lengths": [0.8, 0.6], "target": [1, 0], "method": ["dls"]}', "method: expected one of"),
    ('{"lengths": [[0.8], [0.6]], "target": [1, 0]}', "lengths: expected an array of shape (2,)"),
    ('{"lengths": [0.8, 0.6], "target": {"x": 1}}', "target: expected numbers, got an object"),
    ('{"lengths": [0.8, 0.6], "target": []}', "got shape (0,)"),
    ("", "invalid JSON"),
    ('"just a string"', "expected a JSON object, got the string"),
    ("null", "expected a JSON object, got null"),
]
FRAME_ONLY = [
    (
        '{"lengths": [0.8, 0.6], "target": [1, 0], "init": [[0.1, 0.2]]}',
        "shape (2,), got shape (1, 2)",
    ),
    (
        '{"lengths": [0.6, 0.45, 0.35], "target": [0.9, 0.5], "family": 0.5, "init": "x"}',
        "init: expected numbers, got the string 'x'",
    ),
    (
        '{"lengths": [0.6, 0.45, 0.35], "target": [0.9, 0.5], "family": 0.5, "init": [[1, 2, 3]]}',
        "init: expected an array of shape (3,)",
    ),
    ('{"lengths": [0.8, 0.6], "target": [1, 0], "family": 0.5}', "family"),
    ('{"id": "\\ud800", "lengths": [0.8, 0.6], "target": [1, 0]}', "lone surrogates"),
    ('{"id": 1e400, "lengths": [0.8, 0.6], "target": [1, 0]}', "finite numbers"),
    ('{"id": {"a": 1}, "lengths": [0.8, 0.6], "target": [1, 0]}', "id: expected null, an int"),
    ('{"id": "' + "x" * 65 + '", "lengths": [0.8, 0.6], "target": [1, 0]}', "at most 64"),
    ('{"lengths": [0.8, 0.6], "target": [1, 0], "smoothing": true}', "smoothing: expected a num"),
    ('{"lengths": [0.8, 0.6], "target": [1, 0], "previous_target": [1]}', "previous_target: exp"),
]


@pytest.mark.parametrize(("body", "message"), MALFORMED)
def test_malformed_solve_requests_get_a_400(client, body, message):
    response = post(client, "/api/solve", body.encode("utf-8", "surrogatepass"))
    assert response.status_code == 400, response.text[:200]
    assert message in strict_json(response.text)["error"]


@pytest.mark.parametrize(("body", "message"), MALFORMED + FRAME_ONLY)
def test_malformed_frames_get_an_error_reply_and_the_socket_stays_open(client, body, message):
    good = json.dumps({"id": 9, **GOOD})
    response = post(client, "/api/frame", body.encode("utf-8", "surrogatepass"))
    assert response.status_code == 400 and message in strict_json(response.text)["error"]
    with client.websocket_connect(WS) as socket:
        socket.send_text(body)
        answer = strict_json(socket.receive_text())
        assert answer["ok"] is False and message in answer["error"]
        assert answer["id"] is None or isinstance(answer["id"], int)
        socket.send_text(good)
        assert strict_json(socket.receive_text())["ok"] is True


def test_bad_bytes_on_the_websocket_get_an_error_reply(client):
    with client.websocket_connect(WS) as socket:
        socket.send_bytes(b"\xff\xfe{")
        assert "expected UTF-8 text" in socket.receive_json()["error"]
        socket.send_bytes(json.dumps({"id": 4, **GOOD}).encode())
        assert socket.receive_json()["id"] == 4


# -- 6. Replies are strict JSON ---------------------------------------------------------------


def test_encode_never_writes_nan():
    for value in (math.nan, math.inf, -math.inf):
        with pytest.raises(RequestError, match="expected finite numbers in the answer"):
            encode({"error": value})


@pytest.mark.parametrize("scale", [1e-300, 1e300, 1e308])
def test_extreme_chains_get_strict_json_answers(client, scale):
    body = {"lengths": [scale, scale], "target": [scale, scale]}
    for method in ("analytic", "ccd", "fabrik", "dls"):
        response = post(client, "/api/solve", {**body, "method": method})
        assert response.status_code in (200, 400)
        strict_json(response.text)
        with client.websocket_connect(WS) as socket:
            socket.send_text(json.dumps({"id": 5, **body, "method": method}))
            answer = strict_json(socket.receive_text())
            assert answer["id"] == 5


def test_ids_are_echoed_only_when_plain(client):
    for given in (0, -(2**53), "drag-17", None):
        assert respond_frame({"id": given, **GOOD})["id"] == given
    assert respond_frame({"id": [1], **GOOD}) == {
        "id": None,
        "ok": False,
        "error": "id: expected null, an integer or a string of at most 64 characters, got a list",
    }


def respond_frame(data):
    return strict_json(respond("frame", json.dumps(data)).text)


def test_decode_takes_large_safe_integers_and_refuses_the_rest():
    assert decode('{"id": 9007199254740992}') == {"id": 2**53}
    with pytest.raises(RequestError, match="integers within"):
        decode('{"id": 9007199254740993}')


# -- 9. A client that hangs up mid-body -------------------------------------------------------


def test_disconnect_mid_body_is_no_error():
    app = build_app()
    sent = []

    async def receive():
        if not sent:
            sent.append(1)
            return {"type": "http.request", "body": b'{"lengths": [', "more_body": True}
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/solve",
        "raw_path": b"/api/solve",
        "query_string": b"",
        "root_path": "",
        "scheme": "http",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 5000),
        "headers": [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json")],
        "http_version": "1.1",
        "app": app,
    }
    run_async(app(scope, receive, send))  # raised ClientDisconnect before the fix
    starts = [m for m in sent if isinstance(m, dict) and m["type"] == "http.response.start"]
    assert [m["status"] for m in starts] == [400]


def test_huge_start_angles_and_overflowing_chains_are_refused(client):
    for changes, message in (
        ({"init": [1e308, 1e308]}, "init: expected angles within ±1e+06 rad, got 1e+308"),
        ({"lengths": [1e308, 1e308]}, "total length"),
    ):
        response = post(client, "/api/frame", {"id": 1, **GOOD, **changes})
        assert response.status_code == 400 and message in strict_json(response.text)["error"]


def test_the_caps_benchmark_times_requests_at_the_caps():
    """``ikchain bench caps`` times requests the caps admit, each near its work cap."""
    from ikchain.bench.server import at_caps_bodies, requests_at_caps

    seen = set()
    frames = []
    for label, route, request in requests_at_caps():
        if route == "frame":  # replays and motions: checked below
            frames.append((label, request))
            continue
        checked = protocol.parse_solve(request)  # admitted
        seen.add(request["method"])
        if request["method"] != "analytic":
            single = checked.batch_shape == ()
            cap = CAPS["max_work"] if single else CAPS["max_batch_work"]
            per_iteration = checked.work // checked.request.options["max_iterations"]
            at_limit = checked.request.options["max_iterations"] == CAPS["max_iterations"]
            assert checked.work > cap - per_iteration or at_limit, label
    assert seen == set(METHODS)
    # Every replay and motion is admitted, and one step more (another iteration, or
    # another iteration a frame) is refused: each sits at its caps.
    kinds = {request["kind"] for _, request in frames}
    assert kinds == {"replay", "motion"}
    for label, request in frames:
        parse = protocol.parse_replay if request["kind"] == "replay" else protocol.parse_motion
        assert parse(request), label
        key = "iterations" if request["kind"] == "replay" else "budget"
        with pytest.raises(protocol.RequestError):
            parse({**request, key: request[key] + 1})
    for body in at_caps_bodies():
        assert protocol.parse_solve(body).work > LIGHT_WORK


def test_refusals_leave_one_access_log_line_per_class(client, caplog, monkeypatch):
    """The access log was once off, so abuse left no trace; now one
    INFO line per class of refusal or error reply, rate-limited."""
    import logging

    from ikchain.web import logs

    monkeypatch.setattr(logs, "ACCESS", logs.AccessLog())
    monkeypatch.setattr("ikchain.web.app.ACCESS", logs.ACCESS)
    with caplog.at_level(logging.INFO, logger="ikchain.web"):
        for _ in range(20):
            assert client.get("/", headers={"host": "evil.example"}).status_code == 400
        for _ in range(5):
            response = post(client, "/api/frame", {"id": 1, "lengths": "x", "target": [1, 0]})
            assert response.status_code == 400
        with client.websocket_connect(WS) as socket:
            for _ in range(5):
                socket.send_text("nope")
                assert socket.receive_json()["ok"] is False
    lines = [r.getMessage() for r in caplog.records if r.name == "ikchain.web"]
    assert all(r.levelno == logging.INFO for r in caplog.records if r.name == "ikchain.web")
    assert len(lines) == 3, lines
    assert "refused GET '/' from" in lines[0] and "400 host: expected one of" in lines[0]
    assert "POST '/api/frame'" in lines[1] and "400 lengths: expected" in lines[1]
    assert "WebSocket '/ws'" in lines[2] and "400 request: expected a JSON object" in lines[2]


def test_limits_pinned_beyond_the_largest_angle_are_refused_by_name(client):
    """Joints pinned by limits at 1e308 once gave an answer holding NaN (caught only by
    the reply's check); the chain now refuses such limits, and the page is told why."""
    body = {"id": 8, **GOOD, "limits": [[1e308, 1e308], [1e308, 1e308]]}
    response = post(client, "/api/frame", body)
    assert response.status_code == 400
    answer = response.json()
    assert answer["id"] == 8
    assert answer["error"].startswith("limits: expected bounds within ±1048576 rad")


@pytest.mark.parametrize(
    "body, key",
    [
        ('{"lengths": [0.8, 0.6], "target": [1, 0], "pole": [0.3, 1e400]}', "pole"),
        ('{"lengths": [0.8, 0.6], "target": [1e400, 0]}', "target"),
        ('{"lengths": [0.8, 0.6], "target": [1, 0], "tolerance": -1e400}', "tolerance"),
        (
            '{"lengths": [0.8, 0.6], "target": [1, 0], "iterations": ' + DIGITS_400 + "}",
            "iterations",
        ),
        ('{"lengths": [' + DIGITS_400 + ', 0.6], "target": [1, 0]}', "lengths"),
    ],
)
def test_a_number_beyond_floats_is_refused_by_its_key(body: str, key: str) -> None:
    """The JSON reader refuses 1e400 and 10**400 before any field is read; its message
    still names the key the number was given for, as every other field's does."""
    from ikchain.web.protocol import RequestError, decode

    with pytest.raises(RequestError) as caught:
        decode(body)
    assert str(caught.value).startswith(f"{key}: expected ")
    assert caught.value.status == 400


def test_a_refused_number_outside_any_object_keeps_the_request_prefix() -> None:
    from ikchain.web.protocol import RequestError, decode

    with pytest.raises(RequestError, match=r"^request: expected finite numbers, got 1e400"):
        decode("[1e400]")
