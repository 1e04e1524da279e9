"""A pole (hint) target: which way the chain bends, chosen by a point it should bend toward.

Engines call it a hint (Unity), a joint target (Unreal) or a pole (Godot, Blender).
Here the rule is simple and stated exactly: ``solve(..., pole=p)`` solves twice, once
from each bend (``bend=+1`` and ``bend=-1``: for ``analytic`` the two elbow branches,
for the iterative methods the two bent start poses), and returns for each target the
answer whose interior joints (every joint but the root and the tip) lie more on the
pole's side of the line from the root to the target, unless the other answer ends
nearer the target by more than the tolerance. Ties (a pole on that line, or both
answers as much on its side) keep ``bend=+1``.

With two bones an iterative answer whose elbow still lies on the other side (CCD and
FABRIK may cross over from either start) is mirrored across the root-target line, an
exact pose with the same tip, and handed back to the solver as its start pose, which
confirms it (0 iterations when the tip is within the tolerance), as long as the mirror
is within the joint limits.

What that guarantees: with two bones, whenever an answer on the pole's side reaches
as near as the other (always for a free chain: the closed form's two branches, or
the mirror), the elbow lies on the pole's side. With more bones, no pose is moved
toward the pole: of the two solves, the one that bends more toward it is kept.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from ikchain import kinematics
from ikchain.result import Result


def side_counts(
    joints: NDArray[np.float64], target: NDArray[np.float64], pole: NDArray[np.float64]
) -> NDArray[np.int64]:
    """How many interior joints (..., n + 1, 2) lie strictly on the pole's side of the
    line from the root to each target (..., 2); 0 when the pole is on that line."""
    interior = joints[..., 1:-1, :]
    crosses = target[..., None, 0] * interior[..., 1] - target[..., None, 1] * interior[..., 0]
    return np.sum(np.sign(crosses) * _side(target, pole)[..., None] > 0, axis=-1)


def toward_pole(
    solve_with: Callable[..., Result],
    pole: NDArray[np.float64],
    tolerance: float,
    limits: NDArray[np.float64] | None,
) -> Result:
    """The answer per target, of ``solve_with(bend=+1)`` and ``(bend=-1)``, by the
    module's rule; ``solve_with(init=...)`` re-solves from a two-bone mirror."""
    up = solve_with(bend=1)
    down = solve_with(bend=-1)
    target = np.asarray(up.target)
    prefer_down = _better(down, up, target, pole, tolerance)
    if up.shape == ():
        chosen = down if bool(prefer_down) else up
    else:
        chosen = _where(prefer_down, down, up)
    if chosen.angles.shape[-1] != 2 or chosen.method == "analytic":
        return chosen
    wrong = (side_counts(chosen.joints, target, pole) == 0) & (_side(target, pole) != 0)
    mirror = _mirrored(chosen.angles, chosen.joints)
    if limits is not None:
        wrong &= np.all((mirror >= limits[:, 0]) & (mirror <= limits[:, 1]), axis=-1)
    if not np.any(wrong):
        return chosen
    if limits is not None:  # a start outside the limits is refused: keep those as they are
        mirror = np.where(wrong[..., None], mirror, chosen.angles)
    again = solve_with(init=mirror)
    keep = wrong & _better(again, chosen, target, pole, tolerance)
    if chosen.shape == ():
        return again if bool(keep) else chosen
    return _where(keep, again, chosen)


def _side(target: NDArray[np.float64], pole: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.sign(target[..., 0] * pole[1] - target[..., 1] * pole[0])


def _better(
    a: Result, b: Result, target: NDArray[np.float64], pole: NDArray[np.float64], tolerance: float
) -> NDArray[np.bool_]:
    """Where ``a`` wins over ``b``: more joints on the pole's side without ending farther
    by more than the tolerance, or nearer by more than it."""
    a_error, b_error = np.asarray(a.error), np.asarray(b.error)
    more = side_counts(a.joints, target, pole) > side_counts(b.joints, target, pole)
    return (more & (a_error <= b_error + tolerance)) | (a_error < b_error - tolerance)


def _mirrored(angles: NDArray[np.float64], joints: NDArray[np.float64]) -> NDArray[np.float64]:
    """Two-bone poses (..., 2) mirrored across the line from the root to their tip."""
    tip = joints[..., -1, :]
    direction = np.arctan2(tip[..., 1], tip[..., 0])
    mirror = np.empty_like(angles)
    mirror[..., 0] = kinematics.wrap_angle(2.0 * direction - angles[..., 0])
    mirror[..., 1] = -angles[..., 1]
    return mirror


def _where(mask: NDArray[np.bool_], chosen: Result, other: Result) -> Result:
    """A batch Result holding ``chosen``'s answer where ``mask`` and ``other``'s elsewhere,
    field by field (:meth:`~ikchain.result.Result.replace`)."""
    per_joint = mask[..., None]
    trace = trace_angles = None
    if chosen.trace is not None and other.trace is not None:
        rows = max(chosen.trace.shape[-1], other.trace.shape[-1])
        errors = [_padded(result.trace, rows, -1) for result in (chosen, other)]
        poses = [_padded(result.trace_angles, rows, -2) for result in (chosen, other)]
        trace = np.where(per_joint, errors[0], errors[1])
        trace_angles = np.where(mask[..., None, None], poses[0], poses[1])
    angles = np.where(per_joint, chosen.angles, other.angles)
    joints = np.where(mask[..., None, None], chosen.joints, other.joints)
    return chosen.replace(
        angles=angles,
        joints=joints,
        end=joints[..., -1, :],
        error=np.where(mask, chosen.error, other.error),
        min_error=np.where(mask, chosen.min_error, other.min_error),
        reachable=np.where(mask, chosen.reachable, other.reachable),
        iterations=np.where(mask, chosen.iterations, other.iterations),
        status=np.where(mask, chosen.status, other.status),
        certified=np.where(mask, chosen.certified, other.certified),
        trace=trace,
        trace_angles=trace_angles,
    )


def _padded(values: NDArray[np.float64] | None, rows: int, axis: int) -> NDArray[np.float64]:
    """A trace's entries along ``axis`` NaN-padded to ``rows`` (the longer of two)."""
    if values is None:
        raise ValueError("pole: expected both solves traced, got one without a trace")
    widths = [(0, 0)] * values.ndim
    widths[axis] = (0, rows - values.shape[axis])
    return np.pad(values, widths, constant_values=np.nan)
