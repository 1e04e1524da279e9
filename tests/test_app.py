"""The server through Starlette's TestClient: routes, 4xx on bad input, one state per request."""

import json

import pytest
from starlette.testclient import TestClient

from ikchain.web.app import build_app

BASE = "http://127.0.0.1:8000"
WS = "ws://127.0.0.1:8000/ws"


@pytest.fixture(scope="module")
def client():
    with TestClient(build_app(), base_url=BASE) as test_client:
        yield test_client


def test_page_in_both_languages(client):
    zh = client.get("/")
    en = client.get("/?lang=en")
    assert zh.status_code == en.status_code == 200
    assert '<html lang="zh' in zh.text and '<html lang="en' in en.text
    for page in (zh.text, en.text):
        for table in ("table-1", "table-2", "table-2b", "table-3", "table-4"):
            assert f'id="{table}"' in page
        for figure in ("fig-s21", "fig-s22", "fig-s23", "fig-s24"):
            assert f'id="{figure}"' in page


def test_unknown_language_is_a_400(client):
    response = client.get("/?lang=fr")
    assert response.status_code == 400 and "expected one of zh, en" in response.text


def test_static_assets_are_served(client):
    assert client.get("/static/lesson.js").status_code == 200
    assert client.get("/static/lesson.css").status_code == 200


def test_api_solve_answers_like_the_cli(client):
    response = client.post(
        "/api/solve", json={"lengths": [0.8, 0.6], "target": [1.4, 0], "method": "analytic"}
    )
    assert response.status_code == 200
    data = response.json()
    assert data["angles"] == [0.0, 0.0] and data["status"] == "converged"


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (b"{not json", 400, "invalid JSON"),
        (b'{"lengths": [0.8, 0.6], "target": [NaN, 0]}', 400, "expected finite numbers"),
        (b'{"lengths": [-1, 0.6], "target": [1, 0]}', 400, "expected every length > 0"),
        (json.dumps({"lengths": [1.0] * 100, "target": [1, 0]}).encode(), 400, "at most 32 bones"),
        (
            b'{"lengths": [0.8, 0.6], "target": [1, 0], "method": "ccd", "iterations": 1000000000}',
            400,
            "at most 5000",
        ),
        (b"x" * 1_000_000, 413, "expected at most 65536 bytes"),
    ],
)
def test_bad_solve_requests_get_4xx_with_a_message(client, body, status, message):
    response = client.post("/api/solve", content=body, headers={"content-type": "application/json"})
    assert response.status_code == status
    assert message in response.json()["error"]
    # ... and the server keeps serving.
    assert client.post("/api/solve", json={"lengths": [1, 1], "target": [1, 1]}).status_code == 200


def test_frame_route_is_the_websocket_reply_over_http(client):
    body = {"id": 3, "lengths": [0.8, 0.6], "target": [1.0, 0.5], "method": "dls"}
    response = client.post("/api/frame", json=body)
    assert (
        response.status_code == 200 and response.json()["frame"]["result"]["status"] == "converged"
    )
    with client.websocket_connect(WS) as socket:
        socket.send_text(json.dumps(body))
        assert socket.receive_json() == response.json()
    bad = client.post("/api/frame", json={"id": 4, "lengths": [0.8], "target": "x"})
    assert bad.status_code == 400 and bad.json()["id"] == 4


def test_websocket_survives_malformed_messages(client):
    good = json.dumps({"id": 1, "lengths": [0.8, 0.6], "target": [1.0, 0.5], "method": "ccd"})
    with client.websocket_connect(WS) as socket, client.websocket_connect(WS) as other:
        for bad in (
            "nope",
            "[]",
            '{"lengths": [0.8, 0.6], "target": [NaN, 1]}',
            json.dumps({"lengths": [0.1] * 10**5, "target": [1, 0]}),
            json.dumps(
                {"lengths": [0.8, 0.6], "target": [1, 0], "method": "ccd", "iterations": 10**9}
            ),
        ):
            socket.send_text(bad)
            answer = socket.receive_json()
            assert answer["ok"] is False and answer["error"]
            other.send_text(good)
            assert other.receive_json()["ok"] is True
        socket.send_bytes(b"\xff\xfe")
        assert socket.receive_json()["ok"] is False
        socket.send_text(good)
        assert socket.receive_json()["frame"]["result"]["status"] == "converged"
