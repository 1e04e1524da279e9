"""The blend weight: how much of the way from the start pose to the solve's answer to go.

Game engines blend an IK pose with the animated pose under it by a weight, so that a
foot or a hand can be faded in and out of its target. ``solve(..., weight=w)`` solves
as usual, from the start pose ``s`` (``init``, or the bent default), to the answer
``a``, and returns the pose

    s + w (a - s),    joint by joint, on the raw angles (no wrap),

so ``w = 0`` gives the start pose itself, bit for bit, and ``w = 1`` the plain solve's
answer, bit for bit (the blend is skipped). The raw angles are interpolated, not the
shortest turns: each joint's limits are an interval, which holds every point between
two of its points, so a blend of two poses within the limits stays within them.

What the result says, per target:

* ``angles``, ``joints``, ``end`` and ``error`` are the blended pose's;
* ``min_error``, ``reachable`` and ``certified`` are the target's, as without a weight;
* the status is ``converged`` where the blended tip lies within the tolerance of the
  target, and otherwise ``blended`` where the weight took it away from an answer that
  reached the target (or came as near it as any pose can); ``stalled`` and
  ``max_iterations`` keep their meaning, for the solve before the blend;
* ``iterations`` and a trace are the solve's, before the blend.

One implementation, compiled: :func:`blend_row` blends one target's row of a solve's
``out`` array (``records.RESULT_FIELDS``). The iteration loop calls it right after each
target's solve (``loop.solve_range``, when the options record carries a weight), so a
weighted iterative solve costs what a plain one does; ``runner.blend_after`` runs the
same rule through :func:`blend_rows` for the answers no loop blends (the closed form, and the
pole, soft, tip-angle and locked-joint steps around a solve).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ikchain.checks import check_real
from ikchain.solvers.compiled import joints_into, kernel, norm
from ikchain.solvers.records import BLENDED, CODE, CONVERGED, ERROR, UNREACHABLE


def check_weight(weight: Any) -> float:
    """The blend weight: a number in [0, 1]."""
    value = check_real(weight, "weight")
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"weight: expected a number in [0, 1], got {value!r}")
    return value


@kernel()
def blend_row(
    lengths: np.ndarray,
    start: np.ndarray,
    weight: float,
    tolerance: float,
    tx: float,
    ty: float,
    row: np.ndarray,
    joints: np.ndarray,
) -> None:
    """Blend one target's row of ``out`` (its angles, joints and result fields, in
    metres) toward ``start`` (n) by ``weight``, in place (module notes); ``joints``
    (n + 1, 2) is scratch. A refused target (a negative code) stays as it is."""
    n = lengths.size
    results = 3 * n + 2
    code = row[results + CODE]
    if code < 0.0:
        return
    for i in range(n):  # the start itself at weight 0, bit for bit
        row[i] = start[i] if weight == 0.0 else start[i] + weight * (row[i] - start[i])
    joints_into(lengths, row[:n], joints)
    for i in range(n + 1):
        row[n + 2 * i] = joints[i, 0]
        row[n + 2 * i + 1] = joints[i, 1]
    error = norm(joints[n, 0] - tx, joints[n, 1] - ty)
    row[results + ERROR] = error
    if error <= tolerance:
        row[results + CODE] = CONVERGED
    elif code == CONVERGED or code == UNREACHABLE:  # noqa: SIM109 (the weight moved it)
        row[results + CODE] = BLENDED


@kernel("void(float64[::1], float64[:, ::1], float64, float64, float64[:, ::1], float64[:, ::1])")
def blend_rows(
    lengths: np.ndarray,
    starts: np.ndarray,
    weight: float,
    tolerance: float,
    targets: np.ndarray,
    out: np.ndarray,
) -> None:
    """:func:`blend_row` for each row of ``out`` (B, width), target b of ``targets``
    (B, 2), from ``starts`` (B, n), or (1, n) for all."""
    n = lengths.size
    joints = np.empty((n + 1, 2))
    for b in range(out.shape[0]):
        start = starts[b if starts.shape[0] > 1 else 0]
        blend_row(lengths, start, weight, tolerance, targets[b, 0], targets[b, 1], out[b], joints)
