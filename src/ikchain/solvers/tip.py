"""The tip angle's compiled step: the whole chain posed from the wrist's solve.

:mod:`ikchain.solvers.angle` has the rule: the first ``n - 1`` bones reach the wrist,
``target - l_n (cos phi, sin phi)``, then the last joint turns the hand to ``phi``.
:func:`posed_rows` is that last step, one implementation for one target and for a
batch: from the wrist solve's rows of ``out`` it writes the whole chain's, the tip's
error measured afresh, every honest field (min_error, reachable, certified, the
status) the wrist's, since the hand is a rigid translation of the wrist.
"""

from __future__ import annotations

import math

import numpy as np

from ikchain.solvers.compiled import kernel, norm, wrap_angle
from ikchain.solvers.records import ERROR, RESULT_FIELDS


@kernel(
    "void(float64[::1], float64, float64, float64[:, ::1], float64[:, ::1], float64[:, ::1], "
    "int64, int64)"
)
def posed_rows(
    lengths: np.ndarray,
    angle: float,
    low: float,
    targets: np.ndarray,
    wrist: np.ndarray,
    out: np.ndarray,
    begin: int,
    end: int,
) -> None:
    """The whole chain's rows of ``out`` (B, 3n + 8) from ``wrist`` (B, 3n + 5), the
    rows of the first ``n - 1`` bones' solve for the wrists of ``targets``
    (B, 2) (module notes): their angles, then the last joint turned to ``angle`` (in
    (-π, π], or lifted by whole turns to ``low`` and above: a last joint's limits that
    span a turn; ``-inf`` for none), the joints, the tip's error, and the wrist's
    min_error, reachable, iterations, status code and certified; rows ``begin`` to
    ``end`` (a range, as every batch kernel takes, so threads can share a batch)."""
    n = lengths.size
    first = n - 1
    results = 3 * n + 2
    told = 3 * first + 2  # where the wrist's row holds its result fields
    for b in range(begin, end):
        row = out[b]
        solved = wrist[b]
        total = 0.0
        for i in range(first):
            row[i] = solved[i]
            total += solved[i]
        last = wrap_angle(angle - total)  # the same heading, in (-π, π]
        if last < low:  # the turn of it within limits spanning a turn
            last += np.ceil((low - last) / (2.0 * math.pi)) * (2.0 * math.pi)
        row[first] = last
        # the joints root to wrist are the wrist solve's (its forward kinematics, the
        # same sums); the hand adds the last, as compiled.joints_into would
        for i in range(2 * n):
            row[n + i] = solved[first + i]
        heading = total + last
        x = solved[3 * first] + lengths[first] * math.cos(heading)
        y = solved[3 * first + 1] + lengths[first] * math.sin(heading)
        row[3 * n] = x
        row[3 * n + 1] = y
        row[results + ERROR] = norm(x - targets[b, 0], y - targets[b, 1])
        for field in range(ERROR + 1, len(RESULT_FIELDS)):
            row[results + field] = solved[told + field]
