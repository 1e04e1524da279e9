"""Soft reach: ease the tip's distance over the last stretch of reach, so the knee does not pop.

A two-bone leg whose target slides out past its reach ΣL straightens with a jolt:
near full stretch the elbow angle changes faster and faster with the target's distance
(its derivative grows without bound at ΣL), so a target moving at a steady speed makes
the knee snap straight in the last few frames. Game engines' usual remedy (the "soft
IK" of animation rigs) aims the chain at a target eased toward the root instead. With
a soft distance ``s`` and the hard start ``a = ΣL - s``, a target at distance ``d``
from the root is aimed at from distance

    d' = d                                  where d <= a,
    d' = a + s (1 - exp(-(d - a) / s))      beyond it,

on the same ray. ``d'`` and its slope are continuous at ``a``; ``d' < ΣL`` for every
``d``, approaching it as ``d`` grows (in floats it rounds to ΣL some 37 soft lengths
out, where ``exp`` falls below the last digit), so the chain straightens only for
targets far beyond reach, and the elbow eases into its last degrees instead of
snapping through them.

What the result says, per target (``solve(..., soft=s)``):

* ``target`` is the caller's target, ``error`` the tip's distance from *it*, and
  ``min_error``, ``reachable`` and ``certified`` are the true target's (the same as
  a solve without ``soft``, joint limits included);
* the status is ``converged`` only when the tip lies within the tolerance of the
  true target; ``softened`` when the eased target differs from the true one and the
  solve reached the eased one (or came as near it as the chain can): it stopped short
  by design, by ``error`` metres; ``stalled`` and ``max_iterations`` keep their
  meaning, for the chase of the eased target;
* a trace records the errors from the true target.

``soft=0`` eases nothing (the hard clamp).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ikchain import kinematics
from ikchain.chain import Chain
from ikchain.checks import check_real
from ikchain.result import CODE_BY_STATUS, Result, Status, result_from_out
from ikchain.solvers.records import CERTIFIED as CERTIFIED_FIELD
from ikchain.solvers.records import CODE, ERROR, MIN_ERROR, REACHABLE

_SOFTENED = float(CODE_BY_STATUS[Status.SOFTENED])
_CONVERGED = float(CODE_BY_STATUS[Status.CONVERGED])
_UNREACHABLE = float(CODE_BY_STATUS[Status.UNREACHABLE])


def check_soft(chain: Chain, soft: Any) -> float:
    """The soft distance (m): a number in [0, ΣL - inner radius], the annulus's width."""
    value = check_real(soft, "soft")
    width = chain.outer_radius - chain.inner_radius
    if not 0.0 <= value <= width:
        raise ValueError(
            f"soft: expected a distance in [0, {width:.6g}] m (the reach ΣL minus the inner "
            f"radius), got {value!r}"
        )
    return value


def eased_from_distance(distance: Any, outer: float, soft: float) -> Any:
    """The eased distance ``d'`` of root distances ``d`` (m), any shape (module notes)."""
    d = np.asarray(distance, dtype=np.float64)
    if soft == 0.0:
        return d
    start = outer - soft
    beyond = np.maximum(d - start, 0.0)
    return np.where(d > start, start + soft * -np.expm1(-beyond / soft), d)


def eased_targets(targets: NDArray[np.float64], outer: float, soft: float) -> NDArray[np.float64]:
    """Targets (..., 2) moved toward the root along their rays to the eased distance."""
    d = kinematics.norm(targets[..., 0], targets[..., 1])
    eased = eased_from_distance(d, outer, soft)
    scale = np.where(d > eased, eased / np.where(d > 0.0, d, 1.0), 1.0)
    return np.asarray(targets * scale[..., None], dtype=np.float64)


def soften(
    chain: Chain,
    targets: NDArray[np.float64],
    soft: float,
    tolerance: float,
    solve_with: Callable[[NDArray[np.float64]], Result],
    truth: Callable[[NDArray[np.float64]], Result],
) -> Result:
    """``solve_with(eased targets)``, its fields then told about the true ``targets``.

    ``truth(targets)`` is a solve of the true targets that need not iterate: it gives
    their ``min_error``, ``reachable`` and ``certified`` (and refuses what a solve
    without ``soft`` would refuse).
    """
    true = truth(targets)
    eased = eased_targets(targets, chain.outer_radius, soft)
    aimed = solve_with(eased)
    out: NDArray[np.float64] = aimed.__dict__["_out"]
    n = chain.n_bones
    shape = aimed.shape
    results = 3 * n + 2
    flat_true = targets.reshape(-1, 2)
    tips = out[:, results - 2 : results]
    error = kinematics.distance(tips, flat_true)
    moved = np.any(eased.reshape(-1, 2) != flat_true, axis=-1)
    code = out[:, results + CODE]
    reached = (code == _CONVERGED) | (code == _UNREACHABLE)
    code = np.where(error <= tolerance, _CONVERGED, np.where(moved & reached, _SOFTENED, code))
    out[:, results + ERROR] = error
    out[:, results + MIN_ERROR] = np.reshape(true.min_error, -1)
    out[:, results + REACHABLE] = np.reshape(true.reachable, -1)
    out[:, results + CERTIFIED_FIELD] = np.reshape(true.certified, -1)
    out[:, results + CODE] = code
    trace = None
    if aimed.trace is not None and aimed.trace_angles is not None:
        poses = aimed.trace_angles.reshape(-1, aimed.trace_angles.shape[-2], n)
        tip = kinematics.joints_from_angles(chain.lengths, np.nan_to_num(poses))[..., -1, :]
        errors = kinematics.distance(tip, flat_true[:, None, :])
        errors = np.where(np.isnan(poses[..., 0]), np.nan, errors)
        trace = np.concatenate((errors[..., None], poses), axis=-1)
    return result_from_out(
        out, shape, n, np.array(flat_true, order="C"), aimed.method, trace, chain.limits
    )
