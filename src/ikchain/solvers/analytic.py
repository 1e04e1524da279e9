"""Two-bone closed form: the law of cosines, both elbow branches.

The textbook route, ``dA = acos((d² - L1² - L2²) / (2 L1 L2))``, loses half its
digits where the cosine is near ±1 (full extension and full fold): acos has an
infinite slope there, so a rounding error of 1e-16 in its argument becomes 1e-8 in
the angle. We use the half-angle form instead,

    tan(dA / 2) = p / q,   p = sqrt((L1 + L2)² - d²),   q = sqrt(d² - (L1 - L2)²),

with both radicands written as products of sums and differences, so that each
factor that goes to zero does so exactly: at d = L1 + L2 the angle is 0 to the
last bit, and at d = |L1 - L2| it is exactly ±pi.

The same p and q give the elbow's cosine and sine without a trigonometric call,
``cos dA = (q² - p²) / (q² + p²)`` and ``sin dA = ±2 p q / (q² + p²)``, and so the
root angle ``a0 = atan2(ty, tx) - atan2(L2 sin dA, L1 + L2 cos dA)`` and the joint
positions: bone 0 points along the target's direction turned back by that second
``atan2``, a rotation written with products and quotients of the same numbers. The
whole result (angles, joints, tip, error) takes two ``atan2`` and three ``sqrt``.

:func:`pose` is the formula for one target, compiled; :func:`solve_one` and
:func:`solve_batch` (in parallel over the cores) run it on the chain scaled to unit
length, as the iterative solvers do (:mod:`ikchain.solvers.loop`), so any scale
gives the same honest answer.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ikchain.solvers.compiled import kernel, norm, wrap_angle
from ikchain.solvers.units import (
    CHUNKS,
    CONVERGED,
    TOO_FAR,
    UNREACHABLE,
    gap_to_annulus,
    power_of_two,
    times,
    unit_target,
    within_floats,
)


@kernel()
def pose(
    l1: float, l2: float, tx: float, ty: float, bend: int, out: np.ndarray
) -> tuple[float, float]:
    """The closed form in chain units: ``out`` gets (a0, dA, elbow x, y, tip x, y).

    A target beyond the outer circle gets the straight chain pointing at it; one
    inside the inner circle gets the fully folded chain along its direction: the
    poses closest to it. Returns ``(error, radius)``: the tip's distance from the
    target, and the target's from the root.
    """
    longest = l1 + l2
    gap = l1 - l2 if l1 >= l2 else l2 - l1
    twobend = 2.0 * bend
    radius = norm(tx, ty)
    d = radius if radius >= gap else gap
    d = d if d <= longest else longest
    opening = (longest - d) * (longest + d)
    closing = (d - gap) * (d + gap)
    p = math.sqrt(opening)
    q = math.sqrt(closing)
    total = closing + opening
    cosine = (closing - opening) / total
    sine = (twobend * (p * q)) / total
    x = l1 + l2 * cosine
    y = l2 * sine
    # Root angle: the target's direction turned back by the elbow triangle's angle at
    # the root, beta = atan2(y, x). As a rotation of (tx, ty) by -beta, the turned
    # vector is (tx x + ty y, ty x - tx y), of length |t| d: one atan2 gives a0, and
    # the same two numbers over |t| d are cos a0 and sin a0.
    numerator_c = tx * x + ty * y
    numerator_s = ty * x - tx * y
    elbow = twobend * math.atan2(p, q)
    root = math.atan2(numerator_s, numerator_c)
    den = radius * d
    if den == 0.0:  # target at the root: its (signed-zero) direction less beta
        root = math.atan2(ty, tx) - math.atan2(y, x)
        if abs(root) > math.pi:
            root = float(wrap_angle(root))
        c0 = math.cos(root)
        s0 = math.sin(root)
    else:
        c0 = numerator_c / den
        s0 = numerator_s / den
    elbow_x = l1 * c0
    elbow_y = l1 * s0
    tip_x = elbow_x + l2 * (c0 * cosine - s0 * sine)
    tip_y = elbow_y + l2 * (s0 * cosine + c0 * sine)
    out[0] = root
    out[1] = elbow
    out[2] = elbow_x
    out[3] = elbow_y
    out[4] = tip_x
    out[5] = tip_y
    return norm(tip_x - tx, tip_y - ty), radius


@kernel()
def solve_target(
    l1: float,
    l2: float,
    outer: float,
    inner: float,
    e: int,
    up: float,
    down: float,
    bend: int,
    tx: float,
    ty: float,
    out: np.ndarray,
) -> tuple[float, float, bool, int]:
    """:func:`pose` for a target in metres: ``out`` gets (a0, dA, joints x, y...) in metres.

    ``l1``, ``l2`` are in chain units (lengths / 2**e). Returns ``(error,
    min_error, reachable, code)`` in metres.
    """
    if not within_floats(tx, ty, outer):
        return 0.0, 0.0, False, TOO_FAR
    ux, uy, moved_in = unit_target(tx, ty, e, down)
    error, radius = pose(l1, l2, ux, uy, bend, out)
    min_error = gap_to_annulus(radius, times(inner, -e, down), times(outer, -e, down))
    reachable = min_error == 0.0
    for i in range(2, 6):
        out[i] = times(out[i], e, up)
    if moved_in:
        error = norm(out[4] - tx, out[5] - ty)
        return error, gap_to_annulus(norm(tx, ty), inner, outer), False, UNREACHABLE
    code = CONVERGED if reachable else UNREACHABLE
    return times(error, e, up), times(min_error, e, up), reachable, code


@kernel()
def chain_scale(lengths: np.ndarray, outer: float) -> tuple[float, float, int, float, float]:
    e = math.frexp(outer)[1]
    up = power_of_two(e)
    down = power_of_two(-e)
    return times(lengths[0], -e, down), times(lengths[1], -e, down), e, up, down


_ONE = (
    "Tuple((float64, float64, boolean, int64))(float64[::1], float64, float64, int64,"
    " float64, float64, float64[::1])"
)


@kernel(_ONE)
def solve_one(
    lengths: np.ndarray,
    outer: float,
    inner: float,
    bend: int,
    tx: float,
    ty: float,
    out: np.ndarray,
) -> tuple[float, float, bool, int]:
    """One target: ``out`` (8,) gets (a0, dA, root x, y, elbow x, y, tip x, y)."""
    l1, l2, e, up, down = chain_scale(lengths, outer)
    out[2] = 0.0
    out[3] = 0.0
    scratch = np.empty(6)
    result = solve_target(l1, l2, outer, inner, e, up, down, bend, tx, ty, scratch)
    out[0] = scratch[0]
    out[1] = scratch[1]
    for i in range(2, 6):
        out[i + 2] = scratch[i]
    return result


_MANY = (
    "void(float64[::1], float64, float64, int64, float64[:, ::1], float64[:, ::1],"
    " float64[:, :, ::1], float64[::1], float64[::1], boolean[::1], int64[::1])"
)


@kernel(_MANY, parallel=True)
def solve_batch(
    lengths: np.ndarray,
    outer: float,
    inner: float,
    bend: int,
    targets: np.ndarray,
    angles: np.ndarray,
    joints: np.ndarray,
    error: np.ndarray,
    min_error: np.ndarray,
    reachable: np.ndarray,
    codes: np.ndarray,
) -> None:
    """Targets (B, 2) in parallel; angles (B, 2), joints (B, 3, 2), then per target."""
    l1, l2, e, up, down = chain_scale(lengths, outer)
    count = targets.shape[0]
    chunks = min(count, CHUNKS)
    for chunk in numba.prange(chunks):
        scratch = np.empty(6)
        for b in range(chunk * count // chunks, (chunk + 1) * count // chunks):
            result = solve_target(
                l1, l2, outer, inner, e, up, down, bend, targets[b, 0], targets[b, 1], scratch
            )
            error[b], min_error[b], reachable[b], codes[b] = result
            angles[b, 0] = scratch[0]
            angles[b, 1] = scratch[1]
            joints[b, 0, 0] = 0.0
            joints[b, 0, 1] = 0.0
            joints[b, 1, 0] = scratch[2]
            joints[b, 1, 1] = scratch[3]
            joints[b, 2, 0] = scratch[4]
            joints[b, 2, 1] = scratch[5]
