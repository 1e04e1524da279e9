"""Reach of a chain whose every joint is either free or fixed, in closed form.

An infinite stiffness locks a joint at its start angle
(:mod:`ikchain.solvers.stiffness`): the locked chain is solved as a limited chain
whose locked joints have limits ``[a, a]`` and whose other joints span a turn or more.
Such a chain needs no search for its reach. Bones joined by fixed joints move as one
rigid body, so the chain is:

* a fixed prefix, when joint 0 is fixed: bones whose world headings never change,
  ending at a point ``P`` (the root, when joint 0 is free);
* then one rigid *link* per free joint, from that joint to the next free one: the
  bones between them, summed with their fixed relative angles, a vector ``v_g`` of
  length ``L_g`` at the angle ``δ_g`` to its first bone.

Free links turning about each other reach the annulus about ``P`` with radii
``max(0, 2 max L - ΣL)`` and ``ΣL`` (a point, with no free joint), so the least
distance is the target's gap to it, exact and certified. With at most two links the
nearest pose is the two-bone law of cosines for the links (``cosines.pose``, the
caller's bend), turned back into joint angles. Three links or more are left to the
general search (:mod:`ikchain.solvers.limited`), for its nearest pose, which the loop
may start from.
"""

from __future__ import annotations

import math

import numpy as np

from ikchain.solvers.compiled import kernel, norm, wrap_angle
from ikchain.solvers.cosines import pose
from ikchain.solvers.units import gap_to_annulus

TWO_PI = 2.0 * math.pi


@kernel()
def free_or_fixed(lows: np.ndarray, highs: np.ndarray) -> bool:
    """Whether each joint's limits span a turn or more (free) or nothing (fixed)."""
    for i in range(lows.size):
        span = highs[i] - lows[i]
        if not (span >= TWO_PI or span == 0.0):
            return False
    return True


@kernel()
def rigid_reach(
    lengths: np.ndarray,
    lows: np.ndarray,
    highs: np.ndarray,
    tx: float,
    ty: float,
    bend: int,
    nearest: np.ndarray,
    scratch: np.ndarray,
) -> tuple[float, bool]:
    """The least distance from ``(tx, ty)`` to a free-or-fixed chain's reach (chain
    units, module notes), and whether ``nearest`` (n) got the nearest pose; -1.0 for
    three links or more (not answered here).
    ``scratch`` holds at least 6 numbers."""
    n = lengths.size
    # the fixed prefix: world headings from the root, its end P
    px = 0.0
    py = 0.0
    heading = 0.0
    first = 0
    while first < n and highs[first] - lows[first] == 0.0:
        heading += lows[first]
        px += lengths[first] * math.cos(heading)
        py += lengths[first] * math.sin(heading)
        first += 1
    # the free links: count, total, longest; the first two kept for the pose
    links = 0
    total = 0.0
    longest = 0.0
    l1 = 0.0
    l2 = 0.0
    d1 = 0.0
    d2 = 0.0
    i = first
    while i < n:
        vx = lengths[i]  # the link in the frame of its first bone
        vy = 0.0
        offset = 0.0
        i += 1
        while i < n and highs[i] - lows[i] == 0.0:
            offset += lows[i]
            vx += lengths[i] * math.cos(offset)
            vy += lengths[i] * math.sin(offset)
            i += 1
        length = norm(vx, vy)
        links += 1
        total += length
        longest = max(longest, length)
        if links == 1:
            l1 = length
            d1 = math.atan2(vy, vx)
        elif links == 2:
            l2 = length
            d2 = math.atan2(vy, vx)
    rx = tx - px
    ry = ty - py
    radius = norm(rx, ry)
    inner = max(0.0, 2.0 * longest - total)
    least = gap_to_annulus(radius, inner, total)
    if links >= 3:  # the general search, with its nearest pose
        return -1.0, False
    # the nearest pose: each link's world heading, then the joints' angles
    if links == 0:
        h1 = 0.0
        h2 = 0.0
    elif links == 1:
        h1 = math.atan2(ry, rx)
        h2 = 0.0
    else:
        pose(l1, l2, rx, ry, bend, scratch)
        h1 = scratch[0]
        h2 = scratch[0] + scratch[1]
    for k in range(n):
        nearest[k] = lows[k]  # the fixed ones; each free one set below
    previous = heading  # the world heading of the bone before the link
    k = first
    g = 0
    while k < n:
        start = (h1 - d1) if g == 0 else (h2 - d2)  # the link's first bone's heading
        angle = float(wrap_angle(start - previous))
        if angle < lows[k]:  # the same turn, within limits spanning a turn or more
            angle += TWO_PI * math.ceil((lows[k] - angle) / TWO_PI)
        nearest[k] = min(angle, highs[k])
        previous = start
        k += 1
        while k < n and highs[k] - lows[k] == 0.0:
            previous += lows[k]
            k += 1
        g += 1
    return least, True
