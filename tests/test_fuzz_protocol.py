"""Fuzz the request path without a server (hypothesis): any body, any JSON, any
near-valid request gets a reply that is strict JSON with a 2xx or 4xx status, never
an exception; and solve() refuses bad options with ValueError, nothing else.

The socket-level fuzz of the real server is tests/test_fuzz_server.py.
"""

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ikchain
from ikchain.caps import CAPS
from ikchain.web.protocol import FRAME_KEYS, REPLAY_KEYS, Reply, reply_bytes_bound, respond

FUZZ = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
KEYS = sorted(FRAME_KEYS | REPLAY_KEYS | {"path", "budget", "frames_per_lap", "start", "x"})


def strict(text):
    def refuse(name):
        raise AssertionError(f"{name} in a reply")

    return json.loads(text, parse_constant=refuse)


def check_reply(route, body):
    reply = respond(route, body)
    assert isinstance(reply, Reply)
    assert reply.status in (200, 400, 413), reply
    data = strict(reply.text)
    assert isinstance(data, dict)
    if reply.status != 200:
        assert data["ok"] is False and isinstance(data["error"], str) and data["error"]
    if route == "frame":
        assert "id" in data and (data["id"] is None or isinstance(data["id"], int | str))
    return reply.status, data


numbers = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 1, -1, 2, 3, 64, 200, 5000, 10**9, 1e-300, 1e300, 1e308, 0.5]),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=12))
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(
            st.one_of(st.sampled_from(KEYS), st.text(max_size=6)), children, max_size=6
        ),
    ),
    max_leaves=30,
)


@FUZZ
@given(body=st.binary(max_size=300))
def test_any_bytes_get_a_json_reply(body):
    for route in ("frame", "solve"):
        check_reply(route, body)


@FUZZ
@given(value=json_values)
def test_any_json_gets_a_json_reply(value):
    body = json.dumps(value)  # NaN and Infinity included: not JSON, must be refused
    for route in ("frame", "solve"):
        check_reply(route, body)


def lengths_strategy():
    return st.lists(
        st.one_of(
            st.floats(min_value=1e-300, max_value=1e300),
            st.sampled_from([0.8, 0.6, 0.4, 1e-200, 1e200]),
        ),
        min_size=1,
        max_size=6,
    )


@st.composite
def near_valid(draw):
    """Requests with every key well typed and the values anywhere in their range."""
    lengths = draw(lengths_strategy())
    n = len(lengths)
    total = math.fsum(lengths)
    angle = draw(st.floats(-4, 4))
    radius = draw(st.floats(0, 2)) * total
    request = {
        "id": draw(st.one_of(st.none(), st.integers(-(2**53), 2**53), st.text(max_size=8))),
        "lengths": lengths,
        "target": [radius * math.cos(angle), radius * math.sin(angle)],
        "method": draw(st.sampled_from(["analytic", "ccd", "fabrik", "dls"])),
    }
    if request["method"] == "analytic":
        request["lengths"] = lengths[:2] if n >= 2 else lengths * 2
        if draw(st.booleans()):
            request["bend"] = draw(st.sampled_from([1, -1]))
    else:
        if draw(st.booleans()):
            request["init"] = draw(st.lists(st.floats(-10, 10), min_size=n, max_size=n))
        request["iterations"] = draw(st.integers(0, 300))
        if draw(st.booleans()):
            request["tolerance"] = draw(st.floats(1e-300, 1.0))
        if request["method"] != "fabrik" and draw(st.booleans()):
            request["damping"] = draw(st.floats(0.01, 1.0))
    return request


@FUZZ
@given(request=near_valid())
def test_near_valid_requests_are_answered_honestly(request):
    status, data = check_reply("frame", json.dumps(request))
    if status == 200:
        assert data["id"] == request["id"]
        result = data["frame"]["result"]
        if result["status"] == "converged":
            assert result["error"] <= request.get("tolerance", 1e-9) * (1 + 1e-9) or (
                request["method"] == "analytic"
            )
        assert result["error"] >= result["min_error"] * (1 - 1e-9)
    solve = {k: v for k, v in request.items() if k != "id"}
    status, data = check_reply("solve", json.dumps(solve))
    if status == 200:
        assert np.all(np.isfinite(data["angles"]))


@FUZZ
@given(
    lengths=lengths_strategy(),
    solves=st.integers(1, 40),
    method=st.sampled_from(["analytic", "ccd", "dls"]),
)
def test_the_reply_bound_holds(lengths, solves, method):
    if method == "analytic":
        lengths = (lengths * 2)[:2]
    targets = [[0.3 * math.fsum(lengths) * (i % 3), -0.1 * i] for i in range(solves)]
    request = {"lengths": lengths, "target": targets, "method": method}
    if method != "analytic":
        request["iterations"] = 3
    reply = respond("solve", json.dumps(request))
    assert isinstance(reply, Reply)
    if reply.status == 200:
        assert len(reply.text.encode()) <= reply_bytes_bound(len(lengths), solves)
        assert reply_bytes_bound(len(lengths), solves) <= CAPS["max_reply_bytes"]


@settings(max_examples=100, deadline=None)
@given(
    option=st.sampled_from(["max_iterations", "tolerance", "damping", "bend", "init", "max_step"]),
    value=st.one_of(scalars, st.lists(numbers, max_size=3)),
    method=st.sampled_from(["analytic", "ccd", "fabrik", "dls"]),
)
def test_solve_refuses_bad_options_with_a_value_error(option, value, method):
    chain = ikchain.Chain([0.8, 0.6])
    try:
        result = ikchain.solve(chain, [1.0, 0.5], method, **{option: value})
    except ValueError as error:
        assert str(error)
        return
    assert np.all(np.isfinite(result.angles)) and math.isfinite(result.error)


@pytest.mark.parametrize("route", ["frame", "solve"])
def test_deep_and_wide_bodies_at_the_size_cap(route):
    limit = CAPS["max_body_bytes"]
    for body in (
        "[" * limit,
        '{"a":' * (limit // 5),
        "[" + "1," * (limit // 2 - 2) + "1]",
        '"' + "\\ud800" * (limit // 7) + '"',
    ):
        assert len(body) <= limit
        assert check_reply(route, body)[0] == 400
