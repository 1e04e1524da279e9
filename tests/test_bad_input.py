"""Every malformed input raises ValueError naming what was expected and what was given."""

import math

import numpy as np
import pytest

import ikchain

CHAIN = ikchain.Chain([0.8, 0.6])


@pytest.mark.parametrize(
    ("lengths", "limits", "message"),
    [
        ([], None, "expected at least one bone, got an empty chain"),
        ([0.8, 0.0], None, "expected every length > 0, got [0.8, 0.0]"),
        ([0.8, -1.0], None, "expected every length > 0, got [0.8, -1.0]"),
        ([0.8, math.nan], None, "expected finite numbers"),
        ([0.8, math.inf], None, "expected finite numbers"),
        ([[0.8, 0.6]], None, "expected a 1-D sequence, got shape (1, 2)"),
        (["a", "b"], None, "lengths: expected numbers"),
        ([0.8, 0.6], [[0, 1]], "limits: expected shape (2, 2) as (min, max) per joint, got (1, 2)"),
        ([0.8, 0.6], [[0, 1], [1, -1]], "expected min <= max for every joint, got joint 1"),
        ([0.8, 0.6], [[0, 1], [0, math.nan]], "limits: expected finite numbers"),
        ([0.8, 10**400], None, "lengths: expected finite numbers, got [0.8, 1000"),
        ([True, 0.6], None, "lengths: expected numbers, got [True, 0.6] (booleans)"),
        (np.array([True, True]), None, "lengths: expected numbers"),
        ([1e308, 1e308], None, "lengths: expected a total length below 1.8e+308 m"),
    ],
)
def test_bad_chain(lengths, limits, message):
    with pytest.raises(ValueError) as error:
        ikchain.Chain(lengths, limits)
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"target": [math.nan, 0.0]}, "target: expected finite numbers"),
        ({"target": [math.inf, 0.0]}, "target: expected finite numbers"),
        ({"target": [1.0, 0.0, 0.0]}, "target: expected shape (..., 2), got (3,)"),
        ({"target": 1.0}, "target: expected shape (..., 2), got ()"),
        ({"target": "far"}, "target: expected numbers, got 'far'"),
        ({"target": [10**400, 0.0]}, "target: expected finite numbers"),
        ({"target": [1.0, False]}, "target: expected numbers, got [1.0, False] (booleans)"),
        ({"method": "dls", "init": [0.1, True]}, "init: expected numbers"),
        ({"method": "dls", "init": [0.1, -(10**400)]}, "init: expected finite numbers"),
        (
            {"method": "newton"},
            "method: expected one of analytic, ccd, fabrik, jt, dls, got 'newton'",
        ),
        ({"method": "ccd", "init": [0.1]}, "init: expected shape (..., 2) for a 2-bone chain"),
        ({"method": "ccd", "init": [0.1, math.nan]}, "init: expected finite numbers"),
        (
            {"method": "ccd", "max_iterations": -1},
            "max_iterations: expected a non-negative integer, got -1",
        ),
        (
            {"method": "ccd", "max_iterations": 2.5},
            "max_iterations: expected a non-negative integer, got 2.5",
        ),
        ({"method": "ccd", "tolerance": 0.0}, "tolerance: expected a number > 0, got 0.0"),
        ({"method": "ccd", "tolerance": -1e-9}, "tolerance: expected a number > 0"),
        ({"method": "ccd", "tolerance": math.nan}, "tolerance: expected a finite number, got nan"),
        ({"method": "ccd", "damping": 0.0}, "damping: expected a number in (0, 1], got 0.0"),
        ({"method": "ccd", "damping": 1.5}, "damping: expected a number in (0, 1], got 1.5"),
        ({"method": "ccd", "max_step": -0.1}, "max_step: expected a number > 0, got -0.1"),
        ({"method": "analytic", "bend": 0}, "bend: expected +1 or -1, got 0"),
        ({"method": "ccd", "bend": 1, "init": [0.1, 0.1]}, "expected init or bend, got both"),
        (
            {"method": "analytic", "damping": 0.5},
            "method 'analytic' takes only angle, bend, pole, soft, weight; got damping",
        ),
        ({"method": "fabrik", "damping": 0.5}, "method 'fabrik' takes only"),
        ({"method": "dls", "max_step": 0.5}, "got max_step"),
        ({"method": "ccd", "rest": [0.0, 0.0]}, "method 'ccd' takes only"),
        ({"method": "analytic", "rest_weight": 1.0}, "got rest_weight"),
        ({"method": "dls", "rest_weight": 1.0}, "rest_weight: weighs the pull toward a rest"),
        ({"method": "dls", "rest": [0.0]}, "rest: expected shape (..., 2) for a 2-bone chain"),
        ({"method": "dls", "rest": [[0.0, 0.0]]}, "rest: expected one pose, shape (2,), got"),
        ({"method": "dls", "rest": [0.0, math.nan]}, "rest: expected finite numbers"),
        (
            {"method": "dls", "rest": [0.0, 0.0], "rest_weight": -1.0},
            "rest_weight: expected a number >= 0, got -1.0",
        ),
        (
            {"method": "dls", "rest": [0.0, 0.0], "rest_weight": math.inf},
            "rest_weight: expected a finite number",
        ),
        (
            {"method": "ccd", "target": np.zeros((3, 2)), "init": np.zeros((4, 2))},
            "init: expected a batch shape that broadcasts with target's (3,), got (4,)",
        ),
    ],
)
def test_bad_solve_arguments(kwargs, message):
    kwargs = {"target": [1.0, 0.5], **kwargs}
    with pytest.raises(ValueError) as error:
        ikchain.solve(CHAIN, **kwargs)
    assert message in str(error.value)


def test_analytic_needs_two_bones():
    with pytest.raises(ValueError, match=r"expected a 2-bone chain, got 3 bones"):
        ikchain.solve(ikchain.Chain([1, 1, 1]), [1, 1], method="analytic")


def test_every_method_takes_limits_and_keeps_within_them():
    """Every method accepts a limited chain and ends inside its limits (none refuses)."""
    limited = ikchain.Chain([0.8, 0.6], limits=[[-1, 1], [0.2, 1]])
    for method in ikchain.METHODS:
        result = ikchain.solve(limited, [0.3, 1.2], method=method)
        assert np.all(result.angles >= limited.limits[:, 0]), method
        assert np.all(result.angles <= limited.limits[:, 1]), method


def test_start_pose_outside_limits_is_refused():
    limited = ikchain.Chain([0.8, 0.6], limits=[[-1, 1], [-1, 1]])
    with pytest.raises(
        ValueError, match="init: expected angles within the joint limits, got joint 1"
    ):
        ikchain.solve(limited, [1, 0.5], method="ccd", init=[0.0, 2.0])


def test_not_a_chain():
    with pytest.raises(ValueError, match=r"chain: expected an ikchain\.Chain, got list"):
        ikchain.solve([0.8, 0.6], [1, 0])
