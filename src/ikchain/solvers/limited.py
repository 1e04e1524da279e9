"""Reach under joint limits: how near any pose within the limits can bring the tip.

Let W be the set of tips the chain reaches with every joint inside its limits. A
point of W's boundary is the tip of a pose at which the chain cannot move its tip
in every direction: some joints sit at a bound and every other joint (a *free*
one) lies on one line with the tip, so that turning it moves the tip only along
one direction. Holding such a pose and sweeping its first free joint over its
range draws a circular arc; the union C of these *boundary arcs* contains the
boundary of W, and lies inside W. Hence a target's distance to W is either 0 (the
target is in W) or ``D``, its distance to C, which is exact in closed form (the
nearest point of each arc). Every joint is at its lower bound, at its upper bound,
or free; each free joint after the first points the rest of the chain along the
line or against it: at most ``4**n`` arcs, enumerated for up to
:data:`~ikchain.solvers.methods.ARC_BONES` bones.

Two bones: the target is in W when an elbow branch of the law of cosines fits the
limits (the caller's ``bend`` first), else its distance is ``D``. More bones: a
branch and bound over the first ``n - 2`` joints decides between 0 and ``D``.
``F(θ0..θ(n-3))``, the two-bone distance of the target seen from joint ``n - 2``,
changes by at most ``|t - p_k|`` per radian of joint ``k`` (a rotation of the rest
of the chain about joint ``k``), so a box of angles with centre ``c`` and half
widths ``h`` cannot hold a pose nearer than ``F(c) - Σ M_k h_k``. A centre with
``F < D`` proves the target is in W; every box's bound above 0 proves it is not.
When the box budget (:func:`~ikchain.solvers.methods.search_budget`) runs out first,
the answer is not certified, and the least distance reported is the proven lower
bound, 0.

A joint whose range spans a full turn (``high - low >= 2π``) is free everywhere:
it has no bound faces. Configurations whose collinear free joints would need a
rigid segment of zero length (two bones folded exactly onto each other between two
free joints) are skipped; they trace no arc of positive length.
"""

from __future__ import annotations

import math

import numpy as np

from ikchain.solvers import methods
from ikchain.solvers.compiled import copy_into, kernel, norm, wrap_angle
from ikchain.solvers.cosines import pose
from ikchain.solvers.methods import ARC_BONES
from ikchain.solvers.records import OPT_BEND, OPT_OUTER, OPT_TOLERANCE
from ikchain.solvers.rigid import free_or_fixed, rigid_reach
from ikchain.solvers.units import (
    chain_units,
    gap_to_annulus,
    unit_target,
    unit_tolerance,
    within_floats,
)

TWO_PI = 2.0 * math.pi
#: What the reach kernels write per target, ``found`` (n + 3): the least distance in
#: chain units (the chain divided by the power of two at ΣL), whether it is certified,
#: whether a pose was written, and that pose (n).
FOUND_MIN_ERROR, FOUND_CERTIFIED, FOUND_POSED, FOUND_POSE = 0, 1, 2, 3
#: Slack, in units of the last place, for fitting an angle into its limits.
_ULPS = 4.0 * float(np.finfo(np.float64).eps)


@kernel()
def fit_angle(value: float, low: float, high: float) -> tuple[bool, float]:
    """``value + 2πk`` inside ``[low, high]`` for some integer ``k``, if one is.

    A value a few units in the last place outside is moved onto the bound; a value
    already inside is kept as it is (no other turn of it is nearer).
    """
    if low <= value <= high:
        return True, value
    size = max(1.0, abs(low), abs(high))
    slack = _ULPS * size
    k = math.ceil((low - slack - value) / TWO_PI)
    shifted = value + k * TWO_PI
    if shifted > high + slack:
        return False, value
    if shifted < low:
        shifted = low
    if shifted > high:
        shifted = high
    return True, shifted


@kernel()
def _segment(
    lengths: np.ndarray, lows: np.ndarray, highs: np.ndarray, digits: np.ndarray, head: int
) -> tuple[float, float, int]:
    """The rigid segment from joint ``head`` to the next free joint (or the tip),
    in bone ``head``'s frame; and that joint's index (``n`` for the tip)."""
    n = lengths.size
    x = lengths[head]
    y = 0.0
    turned = 0.0
    tail = head + 1  # the first joint past the segment
    while tail < n and digits[tail] < 2:
        turned += lows[tail] if digits[tail] == 0 else highs[tail]
        x += lengths[tail] * math.cos(turned)
        y += lengths[tail] * math.sin(turned)
        tail += 1
    return x, y, tail


@kernel()
def arcs_distance(
    lengths: np.ndarray,
    lows: np.ndarray,
    highs: np.ndarray,
    tx: float,
    ty: float,
    digits: np.ndarray,
    angles: np.ndarray,
    nearest: np.ndarray,
) -> float:
    """Distance from ``(tx, ty)`` to the boundary arcs; ``nearest`` (n) gets the pose.

    ``digits`` (n, int64) and ``angles`` (n) are scratch. Each configuration gives
    every joint a digit: 0 at its lower bound, 1 at its upper, 2 free and pointing
    the rest of the chain along the line of the free joints, 3 against it.
    """
    n = lengths.size
    best = math.inf
    for code in range(4**n):
        first = -1
        rest = code
        valid = True
        for j in range(n):
            digit = rest % 4
            rest //= 4
            digits[j] = digit
            if digit >= 2:
                if first < 0:
                    first = j
                    valid = digit == 2  # the first free joint defines the line
            elif not highs[j] - lows[j] < TWO_PI:
                valid = False  # a full-turn joint has no bound to sit at
            if not valid:
                break
        if not valid or first < 0:
            continue
        # Walk the chain with the first free joint at 0; rotating it later turns the
        # rest rigidly about its position (px, py).
        absolute = 0.0
        x = 0.0
        y = 0.0
        px = 0.0
        py = 0.0
        line = 0.0  # direction of the free joints' line, with the first free at 0
        for j in range(n):
            digit = digits[j]
            if digit < 2:
                theta = lows[j] if digit == 0 else highs[j]
            else:
                sx, sy, tail = _segment(lengths, lows, highs, digits, j)
                if sx == 0.0 and sy == 0.0 and tail < n:
                    valid = False  # no line to keep (see the module notes)
                    break
                along = math.atan2(sy, sx)
                if j == first:
                    px = x
                    py = y
                    theta = 0.0
                    line = absolute + along
                else:
                    wanted = line - along - absolute + (math.pi if digit == 3 else 0.0)
                    fits, theta = fit_angle(wanted, lows[j], highs[j])
                    if not fits:
                        valid = False
                        break
            angles[j] = theta
            absolute += theta
            x += lengths[j] * math.cos(absolute)
            y += lengths[j] * math.sin(absolute)
        if not valid:
            continue
        rx = x - px  # the arm from the first free joint to the tip
        ry = y - py
        vx = tx - px  # ... and to the target
        vy = ty - py
        arm = norm(rx, ry)
        reach = norm(vx, vy)
        low = lows[first]
        high = highs[first]
        turn = math.atan2(rx * vy - ry * vx, rx * vx + ry * vy)
        fits, swing = fit_angle(turn, low, high)
        if fits:
            distance = abs(reach - arm)
        else:  # the nearer end of the arc
            distance = math.inf
            for end in (low, high):
                c = math.cos(end)
                s = math.sin(end)
                gap = norm(vx - (c * rx - s * ry), vy - (s * rx + c * ry))
                if gap < distance:
                    distance = gap
                    swing = end
        if distance < best:
            best = distance
            for j in range(n):
                nearest[j] = angles[j]
            nearest[first] = swing
    return best


@kernel()
def two_bone(
    lengths: np.ndarray,
    lows: np.ndarray,
    highs: np.ndarray,
    tx: float,
    ty: float,
    bend: int,
    digits: np.ndarray,
    scratch: np.ndarray,
    nearest: np.ndarray,
) -> float:
    """Distance of ``(tx, ty)`` to a limited two-bone chain's reach, exact.

    ``nearest`` (2) gets the nearest pose: an elbow branch of the closed form when
    one fits the limits (``bend`` first), else the nearest pose on a boundary arc.
    ``digits`` (2, int64) and ``scratch`` (6) are scratch.
    """
    l1 = lengths[0]
    l2 = lengths[1]
    for branch in (bend, -bend):
        _, radius = pose(l1, l2, tx, ty, branch, scratch)
        fits0, a0 = fit_angle(scratch[0], lows[0], highs[0])
        fits1, a1 = fit_angle(scratch[1], lows[1], highs[1])
        if fits0 and fits1:
            nearest[0] = a0
            nearest[1] = a1
            return gap_to_annulus(radius, abs(l1 - l2), l1 + l2)
    return arcs_distance(lengths, lows, highs, tx, ty, digits, scratch[:2], nearest)


# -- the branch and bound over the first n - 2 joints ----------------------------------


#: :func:`ikchain.solvers.methods.search_budget`, compiled (one implementation).
search_budget = kernel()(methods.search_budget)


@kernel()
def _push(keys: np.ndarray, ids: np.ndarray, size: int, key: float, box: int) -> int:
    """Add ``box`` with ``key`` to the binary min-heap of ``size`` entries."""
    i = size
    keys[i] = key
    ids[i] = box
    while i > 0:
        parent = (i - 1) // 2
        if keys[parent] <= keys[i]:
            break
        keys[parent], keys[i] = keys[i], keys[parent]
        ids[parent], ids[i] = ids[i], ids[parent]
        i = parent
    return size + 1


@kernel()
def _pop(keys: np.ndarray, ids: np.ndarray, size: int) -> tuple[int, int]:
    """Remove the heap's least entry; returns its box and the new size."""
    box = ids[0]
    size -= 1
    keys[0] = keys[size]
    ids[0] = ids[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        child = left
        if left + 1 < size and keys[left + 1] < keys[left]:
            child = left + 1
        if keys[i] <= keys[child]:
            break
        keys[child], keys[i] = keys[i], keys[child]
        ids[child], ids[i] = ids[i], ids[child]
        i = child
    return box, size


@kernel()
def _evaluate(
    lengths: np.ndarray,
    lows: np.ndarray,
    highs: np.ndarray,
    tx: float,
    ty: float,
    bend: int,
    centre: np.ndarray,
    half: np.ndarray,
    parts: np.ndarray,
    digits: np.ndarray,
    scratch: np.ndarray,
    tail: np.ndarray,
) -> float:
    """``F`` at the box centre (the two-bone distance seen from joint n - 2; ``tail``
    gets the last two angles) and ``parts[k]``, the most ``F`` can change by turning
    joint k within the box: ``M_k h_k``, ``M_k`` bounding ``|t - p_k|`` over the box."""
    d = centre.size
    absolute = 0.0
    x = 0.0
    y = 0.0
    for k in range(d):
        # |p_k(θ) - p_k(c)| <= Σ_{j<k} |p_k - p_j| h_j <= Σ_{j<k} (L_j + ... + L_{k-1}) h_j
        drift = 0.0
        span = 0.0
        for j in range(k - 1, -1, -1):
            span += lengths[j]
            drift += span * half[j]
        parts[k] = (norm(tx - x, ty - y) + drift) * half[k]
        absolute += centre[k]
        x += lengths[k] * math.cos(absolute)
        y += lengths[k] * math.sin(absolute)
    c = math.cos(absolute)
    s = math.sin(absolute)
    dx = tx - x
    dy = ty - y
    return two_bone(
        lengths[d:],
        lows[d:],
        highs[d:],
        c * dx + s * dy,
        c * dy - s * dx,
        bend,
        digits,
        scratch,
        tail,
    )


#: ``F`` this far (chain units) below ``D`` proves a target inside the reach.
_MARGIN = 64.0 * float(np.finfo(np.float64).eps)


@kernel()
def reach(
    lengths: np.ndarray,
    lows: np.ndarray,
    highs: np.ndarray,
    tx: float,
    ty: float,
    tolerance: float,
    bend: int,
    budget: int,
    nearest: np.ndarray,
) -> tuple[float, bool, bool]:
    """The least distance from ``(tx, ty)`` to the limited chain's reach (chain units).

    ``nearest`` (n) gets the nearest pose found: exact when certified, the search's
    best otherwise. Returns ``(min_error, certified, posed)``: ``certified`` False
    means the budget ran out and ``min_error`` is a proven lower bound; ``posed``
    False means no pose was written (a chain beyond ``ARC_BONES`` bones whose
    target lies outside the annulus).
    """
    n = lengths.size
    digits = np.empty(n, dtype=np.int64)
    scratch = np.empty(6 if n < 6 else n)
    if free_or_fixed(lows, highs):  # a locked chain: no search (solvers/rigid.py)
        least, posed = rigid_reach(lengths, lows, highs, tx, ty, bend, nearest, scratch, True)
        return least, True, posed
    outer = 0.0
    longest = 0.0
    for i in range(n):
        outer += lengths[i]
        longest = max(longest, lengths[i])
    gap = gap_to_annulus(norm(tx, ty), max(0.0, 2.0 * longest - outer), outer)
    if n == 2:
        return two_bone(lengths, lows, highs, tx, ty, bend, digits, scratch, nearest), True, True
    arc = math.inf
    if n <= ARC_BONES:
        arc = arcs_distance(lengths, lows, highs, tx, ty, digits, scratch[:n], nearest)
        if n == 1 or arc <= _MARGIN:  # one bone: the reach is its arc
            return arc if arc > _MARGIN or n == 1 else 0.0, True, True
        if gap > 0.0:  # outside the annulus: not 0, so D
            return arc, True, True
    elif gap > 0.0:
        return gap, False, False
    d = n - 2
    rows = 2 * budget + 1
    centres = np.empty((rows, d))
    halves = np.empty((rows, d))
    parts = np.empty((rows, d))
    keys = np.empty(rows)
    ids = np.empty(rows, dtype=np.int64)
    tail = np.empty(2)
    found = np.empty(n)
    for k in range(d):
        low = lows[k]
        high = highs[k]
        if not high - low < TWO_PI:
            low = -math.pi
            high = math.pi
        centres[0, k] = 0.5 * (low + high)
        halves[0, k] = 0.5 * (high - low)
    value = _evaluate(
        lengths, lows, highs, tx, ty, bend, centres[0], halves[0], parts[0], digits, scratch, tail
    )
    best = value
    copy_into(centres[0], found, 0)
    copy_into(tail, found, d)
    size = 0
    pruned = math.inf  # least lower bound of a discarded box
    lower = value - parts[0].sum()
    if lower > 0.0:
        pruned = lower
    else:
        size = _push(keys, ids, size, lower, 0)
    boxes = 1
    while size > 0 and best > tolerance and boxes + 2 <= budget:
        box, size = _pop(keys, ids, size)
        axis = int(np.argmax(parts[box]))
        for side in (-0.5, 0.5):
            child = boxes
            boxes += 1
            copy_into(centres[box], centres[child], 0)
            copy_into(halves[box], halves[child], 0)
            halves[child, axis] *= 0.5
            centres[child, axis] += side * halves[box, axis]
            value = _evaluate(
                lengths,
                lows,
                highs,
                tx,
                ty,
                bend,
                centres[child],
                halves[child],
                parts[child],
                digits,
                scratch,
                tail,
            )
            if value < best:
                best = value
                copy_into(centres[child], found, 0)
                copy_into(tail, found, d)
            lower = value - parts[child].sum()
            if lower > 0.0:
                pruned = min(pruned, lower)
            else:
                size = _push(keys, ids, size, lower, child)
    if best < arc - _MARGIN or (arc == math.inf and best <= tolerance):
        copy_into(found, nearest, 0)  # a pose nearer than every boundary arc: inside the reach
        return 0.0, True, True
    if size == 0:  # every box is farther than 0: outside
        if arc < math.inf:
            return arc, True, True
        copy_into(found, nearest, 0)
        return max(gap, pruned), False, True
    if arc == math.inf:
        copy_into(found, nearest, 0)
    return 0.0, False, True


@kernel()
def nearest_within(value: float, low: float, high: float) -> float:
    """The angle in ``[low, high]`` nearest to ``value`` around the circle: ``value``
    itself, or ``value ± 2π``, or else the bound with the smaller turn from it."""
    if low <= value <= high:
        return value
    fits, shifted = fit_angle(value, low, high)
    if fits:
        return shifted
    to_low = abs(float(wrap_angle(value - low)))
    to_high = abs(float(wrap_angle(value - high)))
    return low if to_low <= to_high else high


# -- the kernels: one target, or many -------------------------------------------------


@kernel()
def reach_target(
    data: np.ndarray,
    outer: float,
    tx: float,
    ty: float,
    tolerance: float,
    bend: int,
    unit: np.ndarray,
    found: np.ndarray,
) -> None:
    """:func:`reach` for a target in metres, on the chain in chain units, into ``found``.

    ``data`` (3n) holds the lengths, the lower and the upper limits; ``unit`` (n) is
    scratch. A target whose distances are not all finite floats gets nothing searched
    (the loop refuses it).
    """
    n = data.size // 3
    e, up, down = chain_units(data[:n], outer, unit)
    found[FOUND_MIN_ERROR] = 0.0
    found[FOUND_CERTIFIED] = 1.0
    found[FOUND_POSED] = 0.0
    if not within_floats(tx, ty, outer):
        return
    ux, uy, _ = unit_target(tx, ty, e, down)
    least, certified, posed = reach(
        unit,
        data[n : 2 * n],
        data[2 * n :],
        ux,
        uy,
        unit_tolerance(tolerance, e, down, up),
        bend,
        search_budget(n),
        found[FOUND_POSE:],
    )
    found[FOUND_MIN_ERROR] = least
    found[FOUND_CERTIFIED] = 1.0 if certified else 0.0
    found[FOUND_POSED] = 1.0 if posed else 0.0


#: What :func:`reach_range` takes (see ``compiled.kernel``).
SIGNATURE = "void(float64[::1], float64[::1], float64[:, ::1], float64[:, ::1], int64, int64)"


@kernel(SIGNATURE)
def reach_range(
    data: np.ndarray,
    options: np.ndarray,
    targets: np.ndarray,
    found: np.ndarray,
    begin: int,
    end: int,
) -> None:
    """Targets ``begin`` to ``end`` of a batch (B, 2): row b of ``found`` (B, n + 3)
    gets what the search found for target b (see ``FOUND_*``). ``options``: the
    solve's (``units.OPT_*``: ΣL, the tolerance, the bend)."""
    unit = np.empty(data.size // 3)
    outer = options[OPT_OUTER]
    tolerance = options[OPT_TOLERANCE]
    bend = int(options[OPT_BEND])
    for b in range(begin, end):
        reach_target(data, outer, targets[b, 0], targets[b, 1], tolerance, bend, unit, found[b])
