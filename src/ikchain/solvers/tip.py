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

from ikchain.solvers.compiled import joints_into, kernel, norm, wrap_angle
from ikchain.solvers.records import ERROR, RESULT_FIELDS


@kernel("void(float64[::1], float64, float64, float64[:, ::1], float64[:, ::1], float64[:, ::1])")
def posed_rows(
    lengths: np.ndarray,
    angle: float,
    low: float,
    targets: np.ndarray,
    wrist: np.ndarray,
    out: np.ndarray,
) -> None:
    """The whole chain's rows of ``out`` (B, 3n + 8) from ``wrist`` (B, 3n + 5), the
    rows of the first ``n - 1`` bones' solve for the wrists of ``targets``
    (B, 2) (module notes): their angles, then the last joint turned to ``angle`` (in
    (-π, π], or lifted by whole turns to ``low`` and above: a last joint's limits that
    span a turn; ``-inf`` for none), the joints, the tip's error, and the wrist's
    min_error, reachable, iterations, status code and certified."""
    n = lengths.size
    first = n - 1
    results = 3 * n + 2
    told = 3 * first + 2  # where the wrist's row holds its result fields
    for b in range(out.shape[0]):
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
        joints = row[n:results].reshape((n + 1, 2))  # (a view: the row's joints)
        joints_into(lengths, row[:n], joints)
        row[results + ERROR] = norm(joints[n, 0] - targets[b, 0], joints[n, 1] - targets[b, 1])
        for field in range(ERROR + 1, len(RESULT_FIELDS)):
            row[results + field] = solved[told + field]
