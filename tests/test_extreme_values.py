"""Every field honest at any finite input: angles and limits far beyond a turn, option
values beyond floats, chains at subnormal scale, compiled and interpreted alike.

Expected values are computed here: the tip as a sum of bones whose directions are
products of unit phasors (no angle is summed, so none overflows), and geometry.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import ikchain
from ikchain.solvers.methods import LARGEST_ANGLE

ITERATIVE = ("ccd", "fabrik", "jt", "dls")


def _tip(lengths, angles) -> np.ndarray:
    """The tip, each bone's direction the product of the unit phasors of the relative
    angles before it: no sum of angles, so none overflows or loses its turns."""
    direction, tip = 1.0 + 0.0j, 0.0j
    for length, angle in zip(lengths, angles, strict=True):
        direction *= complex(math.cos(angle), math.sin(angle))
        tip += length * direction
    return np.array([tip.real, tip.imag])


@pytest.mark.parametrize("bound", [1e16, 1e308, LARGEST_ANGLE * 1.0000001])
def test_limits_beyond_the_largest_angle_are_refused_by_joint(bound: float) -> None:
    with pytest.raises(
        ValueError, match=r"limits: expected bounds within ±1048576 rad .* got joint 1"
    ):
        ikchain.Chain([0.8, 0.6], limits=[[-1.0, 1.0], [-bound, bound]])
    ikchain.Chain([0.8, 0.6], limits=[[-1.0, 1.0], [-LARGEST_ANGLE, LARGEST_ANGLE]])


@pytest.mark.parametrize("method", ("analytic", *ITERATIVE))
def test_limits_spanning_many_turns_answer_as_a_free_chain(method: str) -> None:
    """A span of 2·10⁶ rad allows every direction: the tip reaches, the angles stay
    within the limits and small (the value itself, not a far turn of it)."""
    chain = ikchain.Chain([0.8, 0.6], limits=[[-1e6, 1e6], [-1e6, 1e6]])
    for target in ([1.0, 0.5], [-0.3, -1.1], [0.1, 1.35]):
        budget = {} if method == "analytic" else {"max_iterations": 20_000}  # jt is slow
        result = ikchain.solve(chain, target, method, **budget)
        assert result.status is ikchain.Status.CONVERGED and result.certified
        assert np.all(np.abs(result.angles) <= 2 * math.pi)
        assert math.dist(_tip([0.8, 0.6], result.angles), target) <= 1e-9
        assert result.error == pytest.approx(math.dist(result.end, target), abs=1e-15)


@pytest.mark.parametrize("method", ITERATIVE)
@pytest.mark.parametrize("start", [[1e308, 1e308], [-1e308, 2.5], [1e16, -1e300]])
def test_start_angles_far_beyond_a_turn_give_the_same_pose_and_no_nan(method, start) -> None:
    chain = ikchain.Chain([0.8, 0.6])
    result = ikchain.solve(chain, [1.0, 0.5], method, init=start, trace=True)
    assert np.all(np.isfinite(result.angles)) and np.all(np.isfinite(result.joints))
    assert result.status is ikchain.Status.CONVERGED
    assert math.dist(_tip([0.8, 0.6], result.angles), [1.0, 0.5]) <= 1e-9
    # the trace starts at the start pose itself (wrapped): its tip is the start's tip
    first = result.trace_angles[0]
    np.testing.assert_allclose(_tip([0.8, 0.6], first), _tip([0.8, 0.6], start), atol=1e-12)
    batch = ikchain.solve(chain, [[1.0, 0.5]] * 3, method, init=start)
    assert not np.any(np.isnan(batch.error))


@pytest.mark.parametrize("method", ("analytic", *ITERATIVE))
def test_limits_pinned_at_the_largest_angle_tell_the_truth(method: str) -> None:
    """One pose is allowed: the answer is that pose, its error the distance from its tip
    (computed here), which is also the least error; unreachable, certified."""
    pinned = [LARGEST_ANGLE, -LARGEST_ANGLE]
    chain = ikchain.Chain([0.8, 0.6], limits=[[pinned[0]] * 2, [pinned[1]] * 2])
    result = ikchain.solve(chain, [1.0, 0.5], method)
    tip = _tip([0.8, 0.6], pinned)
    assert result.angles.tolist() == pinned
    assert result.error == pytest.approx(math.dist(tip, [1.0, 0.5]), abs=1e-9)
    assert result.min_error == pytest.approx(result.error, abs=1e-9)
    assert result.status is ikchain.Status.UNREACHABLE and result.certified


@pytest.mark.parametrize(
    ("method", "option"),
    [
        ("dls", "damping"),
        ("dls", "soft"),
        ("dls", "tolerance"),
        ("dls", "rest_weight"),
        ("ccd", "max_step"),
    ],
)
def test_an_option_beyond_floats_is_a_value_error_naming_it(method: str, option: str) -> None:
    options = {option: 10**400}
    if option == "rest_weight":
        options["rest"] = [0.0, 0.0]
    with pytest.raises(
        ValueError, match=rf"^{option}: expected a finite number, got an integer of 401 digits"
    ):
        ikchain.solve(ikchain.Chain([0.8, 0.6]), [1.0, 0.5], method, **options)


_BOTH_WAYS = """
import json, sys
import numpy as np
import ikchain
rng = np.random.default_rng(int(sys.argv[1]))
answers = []
for case in range(int(sys.argv[2])):
    scale = 10.0 ** rng.uniform(-322, 300)
    n = int(rng.integers(2, 4))
    chain = ikchain.Chain(rng.uniform(0.2, 1.0, n) * scale)
    target = (rng.uniform(-1.5, 1.5, 2) * chain.outer_radius).tolist()
    method = "analytic" if n == 2 and case % 5 == 0 else ["ccd", "fabrik", "jt", "dls"][case % 4]
    options = {} if method == "analytic" else {"max_iterations": 30}
    try:
        answer = ikchain.solve(chain, target, method, **options).as_dict()
    except ValueError as error:
        answer = {"refused": str(error)}
    answers.append(answer)
print(json.dumps(answers))
"""


def test_compiled_and_interpreted_kernels_answer_alike_at_every_scale() -> None:
    """The same random calls, from subnormal chains (1e-322 m) to huge ones, in two
    processes: the kernels compiled, and run as plain Python (IKCHAIN_JIT=0). The
    answers, every field printed by ``as_dict``, are equal to the last digit."""
    outputs = []
    for jit in ("1", "0"):
        env = dict(os.environ, IKCHAIN_JIT=jit)
        env.pop("NUMBA_DISABLE_JIT", None)
        done = subprocess.run(
            [sys.executable, "-c", _BOTH_WAYS, "25", "160"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=600,
        )
        outputs.append(json.loads(done.stdout))
    compiled, interpreted = outputs
    differ = [i for i, (a, b) in enumerate(zip(compiled, interpreted, strict=True)) if a != b]
    assert differ == [], [(compiled[i], interpreted[i]) for i in differ[:2]]
