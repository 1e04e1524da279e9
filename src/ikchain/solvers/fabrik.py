"""FABRIK: a backward and a forward pass over joint positions, then back to angles.

Backward (tail to head): put the tip on the target and pull each joint towards the
one after it, keeping bone lengths. Forward (head to tail): put the root back at the
origin and pull each joint towards the one before it. Where a gap to the next joint
is zero the bone keeps its previous direction. The new positions are turned back
into relative angles, each the old one plus the shortest change, so that the shared
loop and the result see angles as with every other solver (and a pose given outside
(-pi, pi] stays continuous).

Joint limits are applied in the forward pass, right after each joint is placed: its
relative angle goes to the nearest angle within its limits (around the circle), and
the bone is laid along it, so the next joint is pulled from a pose that keeps them.

:func:`step` is compiled and run by the one loop, :mod:`ikchain.solvers.loop`.
"""

from __future__ import annotations

import math

import numpy as np

from ikchain.solvers.compiled import joints_into, kernel, norm, wrap_angle
from ikchain.solvers.limited import nearest_within
from ikchain.solvers.records import KNOB_LIMITED


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
    """One backward and forward pass; ``work`` is scratch of shape (>= 2, >= n).

    The signature of every step (see :func:`ikchain.solvers.ccd.step`); ``chain`` (3,
    n) holds the lengths and the limits, which bound each joint where the chain is
    limited.
    """
    lengths, lows, highs = chain[0], chain[1], chain[2]
    limited = knobs[KNOB_LIMITED] != 0.0
    n = lengths.size
    cs = work[0]
    ss = work[1]
    # Unit direction of each bone before the passes: the fallback for zero gaps.
    absolute = 0.0
    for i in range(n):
        absolute = angles[0] if i == 0 else absolute + angles[i]
        cs[i] = math.cos(absolute)
        ss[i] = math.sin(absolute)
    p = new_joints  # positions, moved in place
    for i in range(n):
        p[i, 0] = joints[i, 0]
        p[i, 1] = joints[i, 1]
    p[n, 0] = tx
    p[n, 1] = ty
    for i in range(n - 1, -1, -1):  # backward: tail to head
        ax = p[i + 1, 0]
        ay = p[i + 1, 1]
        ox = p[i, 0] - ax
        oy = p[i, 1] - ay
        gap = norm(ox, oy)
        if gap > 0.0:
            dx = ox / gap
            dy = oy / gap
        else:
            dx = -cs[i]
            dy = -ss[i]
        p[i, 0] = ax + lengths[i] * dx
        p[i, 1] = ay + lengths[i] * dy
    p[0, 0] = 0.0
    p[0, 1] = 0.0
    previous = 0.0  # absolute angle of the bone before joint i
    for i in range(n):  # forward: head to tail
        ax = p[i, 0]
        ay = p[i, 1]
        ox = p[i + 1, 0] - ax
        oy = p[i + 1, 1] - ay
        gap = norm(ox, oy)
        if gap > 0.0:
            dx = ox / gap
            dy = oy / gap
        else:
            dx = cs[i]
            dy = ss[i]
        if limited:
            turned = math.atan2(dy, dx) - previous - angles[i]
            if abs(turned) > math.pi:
                turned = wrap_angle(turned)
            relative = nearest_within(angles[i] + turned, lows[i], highs[i])
            new_angles[i] = relative  # exactly within the limits, not re-derived
            previous += relative
            dx = math.cos(previous)
            dy = math.sin(previous)
        p[i + 1, 0] = ax + lengths[i] * dx
        p[i + 1, 1] = ay + lengths[i] * dy
    if limited:
        joints_into(lengths, new_angles, new_joints)
        return
    previous = 0.0
    for i in range(n):
        new_absolute = math.atan2(p[i + 1, 1] - p[i, 1], p[i + 1, 0] - p[i, 0])
        change = (new_absolute - previous) - angles[i]
        previous = new_absolute
        if abs(change) > math.pi:
            change = wrap_angle(change)
        new_angles[i] = angles[i] + change
    joints_into(lengths, new_angles, new_joints)
