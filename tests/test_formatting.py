"""Angles for people: wrapped to (−180°, 180°] at the edge, continuous inside."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ikchain
from ikchain.formatting import degrees_for_people, format_angle, format_degrees, format_result_text


@given(st.floats(min_value=-1e4, max_value=1e4, allow_nan=False))
def test_degrees_for_people_is_in_half_open_range_and_the_same_direction(angle: float) -> None:
    degrees = degrees_for_people(angle)
    assert -180.0 < degrees <= 180.0
    # the same direction: cos and sin agree with the unwrapped angle
    assert math.cos(math.radians(degrees)) == pytest.approx(math.cos(angle), abs=1e-9)
    assert math.sin(math.radians(degrees)) == pytest.approx(math.sin(angle), abs=1e-9)


@pytest.mark.parametrize(
    ("angle", "text"),
    [
        (2 * math.pi, "0.00°"),  # one lap reads 0, not 360
        (4 * math.pi + math.radians(30), "30.00°"),
        (-math.pi, "180.00°"),  # a half turn reads +180 from either side
        (math.pi, "180.00°"),
        (math.radians(-179.999), "180.00°"),  # rounds to ±180: the + end
        (math.radians(281), "-79.00°"),
        (math.radians(0.0035), "0.00°"),  # never e-notation for an angle
        (-1e-9, "0.00°"),  # no minus sign on a zero
    ],
)
def test_format_angle_examples(angle: float, text: str) -> None:
    assert format_angle(angle, 2) == text


def test_cli_text_prints_wrapped_angles_while_the_result_keeps_its_own() -> None:
    chain = ikchain.Chain([0.8, 0.6])
    start = np.array([2 * math.pi + 0.3, 0.4])  # a warm start one lap round
    result = ikchain.solve(chain, [1.0, 0.6], method="ccd", init=start)
    assert result.angles[0] > math.pi  # the solver keeps the continuous value
    line = next(s for s in format_result_text(result).splitlines() if s.startswith("angles"))
    printed = [float(v.strip().rstrip("°")) for v in line.split(None, 1)[1].split(",")]
    assert all(-180.0 < v <= 180.0 for v in printed)
    expected = [math.degrees(math.remainder(a, 2 * math.pi)) for a in result.angles]
    assert printed == pytest.approx(expected, abs=1e-4)
    assert format_degrees(result.angles) in line


def test_format_count_prints_a_count_or_a_dash_for_none():
    from ikchain.formatting import format_count

    assert format_count(3096) == "3096"
    assert format_count(0) == "0"
    assert format_count(None) == "—"
