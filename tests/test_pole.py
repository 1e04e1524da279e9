"""solve(..., pole=p): the chain bends toward a pole, with the guarantee the docs state.

The oracle is plain geometry, written here: the elbow of a two-bone pose lies on the
pole's side of the line from the root to the target when the two cross products
(target x elbow, target x pole) have the same sign; the tip is computed by summing
the bones. Neither uses the solver.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ikchain

METHODS = ("analytic", "ccd", "fabrik", "dls")
CHAIN = ikchain.Chain([0.8, 0.6])


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _tip_and_elbow(lengths: list[float], angles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    absolute = np.cumsum(angles, axis=-1)
    bones = np.stack([np.cos(absolute), np.sin(absolute)], axis=-1) * np.array(lengths)[:, None]
    return bones.sum(axis=-2), bones[..., 0, :]


def _cases(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Targets well inside the annulus (0.3 to 1.3 m from the root) and poles well off
    the root-target line, on either side."""
    rng = np.random.default_rng(seed)
    radius = rng.uniform(0.3, 1.3, count)
    heading = rng.uniform(-math.pi, math.pi, count)
    targets = np.stack([radius * np.cos(heading), radius * np.sin(heading)], axis=-1)
    off = heading + rng.choice([-1.0, 1.0], count) * rng.uniform(0.3, 2.8, count)
    poles = np.stack([np.cos(off), np.sin(off)], axis=-1) * rng.uniform(0.5, 2.0, count)[:, None]
    return targets, poles


@pytest.mark.parametrize("method", METHODS)
def test_two_bones_bend_toward_the_pole_and_reach(method: str) -> None:
    targets, poles = _cases(60, 1)
    for target, pole in zip(targets, poles, strict=True):
        result = ikchain.solve(CHAIN, target.tolist(), method, pole=pole.tolist())
        tip, elbow = _tip_and_elbow([0.8, 0.6], result.angles)
        assert np.linalg.norm(tip - target) <= 1e-9, (method, target, pole)
        assert result.status is ikchain.Status.CONVERGED
        assert np.sign(_cross(target, elbow)) == np.sign(_cross(target, pole)), (target, pole)


@pytest.mark.parametrize("method", METHODS)
def test_a_batch_with_a_pole_answers_as_each_target_alone(method: str) -> None:
    targets, _ = _cases(40, 2)
    pole = [0.3, -1.0]
    batch = ikchain.solve(CHAIN, targets, method, pole=pole)
    for k, target in enumerate(targets):
        alone = ikchain.solve(CHAIN, target.tolist(), method, pole=pole)
        assert np.array_equal(batch.angles[k], alone.angles)
        assert batch.status[k] is alone.status
        assert batch.iterations[k] == alone.iterations


def test_out_of_reach_with_a_pole_is_still_honest() -> None:
    """A pole changes which way the chain bends, never what is reachable: 2.0 m away
    with ΣL = 1.4 m, the least error is 0.6 m (the annulus), for every method."""
    for method in METHODS:
        result = ikchain.solve(CHAIN, [2.0, 0.0], method, pole=[0.0, 1.0])
        assert result.reachable is False
        assert result.min_error == pytest.approx(0.6, abs=1e-12)
        assert result.error == pytest.approx(0.6, abs=1e-6)
        assert result.status is ikchain.Status.UNREACHABLE


def test_more_bones_keep_one_of_the_two_bent_solves() -> None:
    """With more bones the answer is one of the two solves from the bent start poses
    (bend=+1 or -1), the one with more interior joints on the pole's side when both
    reach the target."""
    chain = ikchain.Chain([0.5, 0.4, 0.3, 0.2])
    targets, poles = _cases(30, 3)
    targets = targets * 1.1
    for target, pole in zip(targets, poles, strict=True):
        result = ikchain.solve(chain, target.tolist(), "dls", pole=pole.tolist())
        up = ikchain.solve(chain, target.tolist(), "dls", bend=1)
        down = ikchain.solve(chain, target.tolist(), "dls", bend=-1)
        assert result.angles.tolist() in (up.angles.tolist(), down.angles.tolist())
        side = np.sign(_cross(target, pole))
        counts = [
            int(np.sum(np.sign(_cross(target, r.joints[1:-1])) == side)) for r in (result, up, down)
        ]
        if up.converged and down.converged:
            assert counts[0] == max(counts[1:])


def test_joint_limits_are_kept_with_a_pole() -> None:
    """A mirror that would break a limit is not taken: the answer stays within them."""
    limited = ikchain.Chain([0.8, 0.6], limits=[[-3.0, 3.0], [0.0, 2.5]])
    targets, poles = _cases(40, 4)
    for method in METHODS:
        for target, pole in zip(targets, poles, strict=True):
            result = ikchain.solve(limited, target.tolist(), method, pole=pole.tolist())
            assert np.all(result.angles >= limited.limits[:, 0])
            assert np.all(result.angles <= limited.limits[:, 1])
            assert result.error >= result.min_error - 1e-12


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"bend": 1}, "pole: chooses the bend from both bent start poses; expected bend or pole"),
        ({"init": [0.1, 0.2]}, "expected init or pole, got both"),
        ({"pole": [1.0, 2.0, 3.0]}, r"pole: expected shape \(\.\.\., 2\), got \(3,\)"),
        ({"pole": [[1.0, 2.0]]}, r"pole: expected one point, shape \(2,\), got shape \(1, 2\)"),
        ({"pole": [math.nan, 1.0]}, "pole"),
    ],
)
def test_bad_poles_are_refused(options: dict[str, object], message: str) -> None:
    arguments = {"pole": [0.0, 1.0], **options}
    with pytest.raises(ValueError, match=message):
        ikchain.solve(CHAIN, [1.0, 0.3], "ccd", **arguments)  # type: ignore[arg-type]
