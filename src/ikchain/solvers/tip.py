"""The tip angle's compiled step: the whole chain posed from the wrist's solve.

:mod:`ikchain.solvers.angle` has the rule: the first ``n - 1`` bones reach the wrist,
``target - l_n (cos phi, sin phi)``, then the last joint turns the hand to ``phi``.
:func:`posed_rows` is that last step, one implementation for one target and for a
batch: from the wrist solve's rows of ``out`` it writes the whole chain's, the tip's
error measured afresh, every honest field (min_error, reachable, certified, the
status) the wrist's, since the hand is a rigid translation of the wrist.

:func:`posed_loop` makes, for one method, the kernel that a single target takes
straight (:func:`posed_range`): the wrists of the targets, the method's loop for
them, then :func:`posed_rows`, in one compiled call, so that the hand's angle costs
one kernel call as a plain solve does, not two and the arrays between them.
"""

from __future__ import annotations

import math
import types
from typing import Any

import numpy as np

from ikchain.solvers import angle as tip_angle
from ikchain.solvers.compiled import kernel, norm, wrap_angle
from ikchain.solvers.records import ERROR, RESULT_FIELDS

#: ``angle.wrist_from_target`` as a kernel: the one implementation, in
#: :mod:`ikchain.solvers.angle`.
wrist_from_target = kernel()(tip_angle.wrist_from_target)


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


def wrist_loop(*arguments: Any) -> None:
    """Stands for a method's loop (``loop.SOLVE``, whose arguments it takes): each
    copy of :func:`posed_range` names its own (:func:`posed_loop`)."""
    raise NotImplementedError


def posed_range(
    data: np.ndarray,
    options: np.ndarray,
    targets: np.ndarray,
    hand: np.ndarray,
    starts: np.ndarray,
    rest: np.ndarray,
    give: np.ndarray,
    found: np.ndarray,
    lengths: np.ndarray,
    angle: float,
    low: float,
    out: np.ndarray,
    begin: int,
    end: int,
) -> None:
    """Rows ``begin`` to ``end`` of ``out`` (B, 3n + 8), the whole chain's, for
    ``targets`` (B, 2) with the last bone ``hand`` (2,) (``angle.hand_from_angle``):
    the first ``n - 1`` bones' loop for the wrists, on the wrist chain's ``data``,
    ``options``, ``starts``, ``rest``, ``give`` and ``found`` as ``loop.solve_range``
    takes them (``found``: what the reach search found for the wrists, on a limited
    wrist chain), then :func:`posed_rows` with ``lengths`` (the whole chain's),
    ``angle`` and ``low``. (The reach search stays outside: compiled into each
    method's copy, it would cost seconds of compiling for a few limited chains.)"""
    wrists = np.empty((end, 2))
    for b in range(begin, end):
        wrists[b, 0], wrists[b, 1] = wrist_from_target(targets[b, 0], targets[b, 1], hand)
    solved = np.empty((end, out.shape[1] - 3))  # the wrist chain's rows (3 columns fewer)
    no_trace = np.empty((0, 0, lengths.size))  # (0, 0, n - 1 + 1)
    wrist_loop(data, options, wrists, starts, rest, give, found, solved, no_trace, begin, end)
    posed_rows(lengths, angle, low, targets, solved, out, begin, end)


#: What :func:`posed_range` takes (see ``compiled.kernel``).
POSED_SIGNATURE = (
    "void(float64[::1], float64[::1], float64[:, ::1], float64[::1], float64[:, ::1],"
    " float64[::1], float64[::1], float64[:, ::1], float64[::1], float64, float64,"
    " float64[:, ::1], int64, int64)"
)


def posed_loop(name: str, method_loop: Any) -> Any:
    """:func:`posed_range` with ``wrist_loop`` bound to ``method_loop``, compiled under
    the name ``posed_<name>`` (as ``loop._method_loop`` binds a method's step)."""
    namespace = dict(globals())
    namespace["wrist_loop"] = method_loop
    entry = types.FunctionType(posed_range.__code__, namespace, f"posed_{name}")
    entry.__qualname__ = entry.__name__
    entry.__doc__ = posed_range.__doc__
    return kernel(POSED_SIGNATURE)(entry)
