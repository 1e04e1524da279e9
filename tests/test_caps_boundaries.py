"""The documented caps on one request, tested on both sides of each boundary.

Every expected value is the README's (its caps table and the frame protocol), spelled
out here rather than read from ``ikchain.caps``: a cap changed in the code without the
README fails here.
"""

from __future__ import annotations

import json

import pytest

from ikchain.web.protocol import RequestError, frame_reply, solve_reply

#: The README: "max_targets — solves in one batch (targets × start poses) | 256".
MAX_TARGETS = 256
#: The README: an id is "echoed when it is null, an integer or a string of at most 64
#: characters".
MAX_ID_CHARS = 64


def _frame(**changes: object) -> dict:
    body = {"id": 1, "lengths": [0.8, 0.6], "target": [1.0, 0.5], "method": "dls", **changes}
    return frame_reply(json.dumps(body))


@pytest.mark.parametrize(("count", "allowed"), [(MAX_TARGETS, True), (MAX_TARGETS + 1, False)])
def test_a_batch_of_max_targets_solves_is_served_and_one_more_refused(count, allowed) -> None:
    """256 targets in one /api/solve are solved; 257 are refused, naming the cap."""
    body = json.dumps({"lengths": [0.8, 0.6], "target": [[1.0, 0.5]] * count, "method": "analytic"})
    if allowed:
        assert len(solve_reply(body)["error"]) == count
    else:
        with pytest.raises(RequestError, match=f"at most {MAX_TARGETS} solves"):
            solve_reply(body)


@pytest.mark.parametrize(("smoothing", "allowed"), [(0.0, False), (1e-9, True), (1.0, True)])
def test_smoothing_is_a_fraction_in_the_half_open_interval(smoothing, allowed) -> None:
    """The README: ``smoothing`` in (0, 1]: 0 is refused, anything above it up to 1 served."""
    answer = _frame(smoothing=smoothing, previous_target=[0.9, 0.4])
    assert answer["ok"] is allowed
    if not allowed:
        assert "smoothing: expected a number in (0, 1]" in answer["error"]


@pytest.mark.parametrize("extra", [1.5, -0.1])
def test_smoothing_outside_the_interval_is_refused(extra) -> None:
    answer = _frame(smoothing=extra, previous_target=[0.9, 0.4])
    assert answer["ok"] is False and "smoothing" in answer["error"]


@pytest.mark.parametrize(("chars", "allowed"), [(MAX_ID_CHARS, True), (MAX_ID_CHARS + 1, False)])
def test_an_id_of_64_characters_is_echoed_and_65_refused(chars, allowed) -> None:
    ident = "x" * chars
    answer = _frame(id=ident)
    assert answer["ok"] is allowed
    if allowed:
        assert answer["id"] == ident
    else:
        assert f"at most {MAX_ID_CHARS} characters" in answer["error"]
