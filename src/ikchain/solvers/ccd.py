"""Cyclic coordinate descent: one sweep from the tip's joint back to the root.

Each joint in turn, tail first, turns so that the line from it to the tip points at
the target. The turn is an ``atan2`` of the cross and dot products of the two lines,
which needs no clamping (an ``acos`` of their normalised dot product would, and
would lose the sign). A damping factor scales each turn, an optional cap bounds it,
and joint limits are applied right after each joint turns, before the next joint
looks at the tip.

:func:`step` is compiled (:mod:`ikchain.solvers.compiled`) and run by the one loop,
:mod:`ikchain.solvers.loop`, for single solves and batches alike.
"""

from __future__ import annotations

import math

import numpy as np

from ikchain.solvers.compiled import joints_into, kernel
from ikchain.solvers.records import KNOB_DAMPING, KNOB_LIMITED, KNOB_MAX_STEP


@kernel()
def step(
    chain: np.ndarray,
    knobs: np.ndarray,
    tx: float,
    ty: float,
    angles: np.ndarray,
    joints: np.ndarray,
    new_angles: np.ndarray,
    new_joints: np.ndarray,
    work: np.ndarray,
) -> None:
    """One sweep from pose ``angles`` (joints ``joints``) into ``new_angles``/``new_joints``.

    The signature of every step (:mod:`ikchain.solvers.loop`): ``chain`` (3, n) holds
    the lengths, the lower and the upper limits (read where the chain is limited),
    ``knobs`` the options (``units.KNOB_*``), ``work`` scratch (unused here).
    ``max_step`` is the largest turn of one joint (rad; ``inf`` for none).
    """
    lengths, lows, highs = chain[0], chain[1], chain[2]
    damping = knobs[KNOB_DAMPING]
    max_step = knobs[KNOB_MAX_STEP]
    limited = knobs[KNOB_LIMITED] != 0.0
    n = lengths.size
    for i in range(n):
        new_angles[i] = angles[i]
    # Joints j <= i do not move while joints >= i turn, so the pivots are the joints
    # of the pose the sweep began at; only the tip is carried along the sweep.
    x = joints[n, 0]
    y = joints[n, 1]
    for i in range(n - 1, -1, -1):  # tail (nearest the tip) to head
        px = joints[i, 0]
        py = joints[i, 1]
        ux = x - px  # to the tip
        uy = y - py
        vx = tx - px  # to the target
        vy = ty - py
        turn = math.atan2(ux * vy - uy * vx, ux * vx + uy * vy)  # 0 if either is 0
        if damping != 1.0:
            turn *= damping
        turn = turn if turn >= -max_step else -max_step
        turn = turn if turn <= max_step else max_step
        if limited:  # the value wins a tie with a bound
            turned = new_angles[i] + turn
            turned = turned if turned >= lows[i] else lows[i]
            turned = turned if turned <= highs[i] else highs[i]
            turn = turned - new_angles[i]
            new_angles[i] = turned
        else:
            new_angles[i] += turn
        c = math.cos(turn)
        s = math.sin(turn)
        x = px + (c * ux - s * uy)
        y = py + (s * ux + c * uy)
    joints_into(lengths, new_angles, new_joints)
