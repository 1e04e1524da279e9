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
from ikchain.result import Result, Status

#: An aimed solve that ended so came as near the eased target as the chain can.
_REACHED = np.array([Status.CONVERGED, Status.UNREACHABLE], dtype=object)
# as object arrays: numpy would turn a bare Status (a str) into a string array
_CONVERGED = np.array(Status.CONVERGED, dtype=object)
_SOFTENED = np.array(Status.SOFTENED, dtype=object)


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
    """``solve_with(eased targets)``, its Result then told about the true ``targets``.

    ``truth(targets)`` is a solve of the true targets that need not iterate: it gives
    their ``min_error``, ``reachable`` and ``certified`` (and refuses what a solve
    without ``soft`` would refuse). The answer is the aimed Result with those fields,
    the errors from the true targets, their status and trace
    (:meth:`~ikchain.result.Result.replace`).
    """
    true = truth(targets)
    eased = eased_targets(targets, chain.outer_radius, soft)
    aimed = solve_with(eased)
    error = kinematics.distance(aimed.end, targets)
    moved = np.any(eased != targets, axis=-1)
    chased = np.asarray(aimed.status, dtype=object)
    reached = np.isin(chased, _REACHED)
    status = np.where(error <= tolerance, _CONVERGED, np.where(moved & reached, _SOFTENED, chased))
    trace = None
    if aimed.trace is not None and aimed.trace_angles is not None:
        poses = aimed.trace_angles
        tip = kinematics.joints_from_angles(chain.lengths, np.nan_to_num(poses))[..., -1, :]
        trace = kinematics.distance(tip, targets[..., None, :])
        trace = np.where(np.isnan(poses[..., 0]), np.nan, trace)
    told: dict[str, Any] = {
        "target": np.array(targets, dtype=np.float64),
        "error": np.asarray(error, dtype=np.float64),
        "min_error": true.min_error,
        "reachable": true.reachable,
        "certified": true.certified,
        "status": status,
        "trace": trace,
    }
    if aimed.shape == ():  # one target: a float and a Status, as every single Result
        told["error"], told["status"] = float(error), status.item()
    return aimed.replace(**told)
