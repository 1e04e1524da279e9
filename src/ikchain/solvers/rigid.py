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
distance is the target's gap to it, exact and certified, for any number of links. The
nearest pose, which DLS may start from, is turned back into joint angles from each
link's world heading: with two links, the two-bone law of cosines for them
(``cosines.pose``, the caller's bend); with one, or with more when the target lies
beyond the annulus or in its hole, every link along the target's direction (the
longest along it and the others against it, in the hole). A target inside the annulus
of three links or more gets no pose (it is reachable; the loop goes on its own).
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
def link(
    lengths: np.ndarray, lows: np.ndarray, highs: np.ndarray, head: int
) -> tuple[float, float, float, int]:
    """The rigid link that free joint ``head`` turns: its vector in the frame of bone
    ``head``, the fixed turn from that bone to the link's last one, and ``tail``, the
    next free joint (n after the last link)."""
    n = lengths.size
    vx = lengths[head]
    vy = 0.0
    offset = 0.0
    tail = head + 1
    while tail < n and highs[tail] - lows[tail] == 0.0:
        offset += lows[tail]
        vx += lengths[tail] * math.cos(offset)
        vy += lengths[tail] * math.sin(offset)
        tail += 1
    return vx, vy, offset, tail


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
    posing: bool,
) -> tuple[float, bool]:
    """The least distance from ``(tx, ty)`` to the reach of a free-or-fixed chain
    (:func:`free_or_fixed`), in chain units, and whether ``nearest`` (n) got the
    nearest pose (module notes); ``scratch`` holds at least 6 numbers. With
    ``posing`` False, the distance alone (the same number), and False: the pose is
    made only when a solve needs it."""
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
    # the free links: count, total, the longest, the first two lengths
    links = 0
    total = 0.0
    longest = 0.0
    longest_at = 0
    l1 = 0.0
    l2 = 0.0
    head = first
    while head < n:
        vx, vy, _, tail = link(lengths, lows, highs, head)
        length = norm(vx, vy)
        if links == 0:
            l1 = length
        elif links == 1:
            l2 = length
        if length > longest:
            longest = length
            longest_at = links
        total += length
        links += 1
        head = tail
    rx = tx - px
    ry = ty - py
    radius = norm(rx, ry)
    inner = max(0.0, 2.0 * longest - total)
    least = gap_to_annulus(radius, inner, total)
    if not posing or (links >= 3 and inner < radius < total):
        return least, False
    # each link's world heading, then the joints' angles
    toward = math.atan2(ry, rx)
    h1 = toward
    h2 = toward
    if links == 2:
        pose(l1, l2, rx, ry, bend, scratch)
        h1 = scratch[0]
        h2 = scratch[0] + scratch[1]
    for k in range(n):
        nearest[k] = lows[k]  # the fixed ones; each free one set below
    previous = heading  # the world heading of the bone before the link
    head = first
    g = 0
    while head < n:
        vx, vy, offset, tail = link(lengths, lows, highs, head)
        if links == 2:
            world = h1 if g == 0 else h2
        elif radius <= inner and g != longest_at:  # in the hole: folded back
            world = toward + math.pi
        else:
            world = toward
        start = world - math.atan2(vy, vx)  # the heading of the link's first bone
        angle = float(wrap_angle(start - previous))
        if angle < lows[head]:  # the same turn, within limits spanning a turn or more
            angle += TWO_PI * math.ceil((lows[head] - angle) / TWO_PI)
        nearest[head] = min(angle, highs[head])
        previous = start + offset
        head = tail
        g += 1
    return least, True
