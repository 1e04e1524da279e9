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
``atan2``, a rotation written with products and quotients of the same numbers. A
numpy ``sin`` or ``cos`` pass costs eight times an ``atan2`` pass here, so the whole
result (angles, joints, tip, error) takes three ``atan2`` passes and arithmetic.

Two implementations of the one formula, operation for operation:
:func:`solve_batch` over arrays of targets (in cache-sized chunks, into
preallocated outputs) and :func:`solve_one` for one target in plain Python floats,
which a single solve through :func:`ikchain.solve` uses because numpy's per-call
overhead (about 0.5 µs a call, some 40 calls) would be a hundred times the work.
``tests/test_perf_twins.py`` holds the two to the same numbers. The only
transcendental calls are ``sqrt`` (correctly rounded everywhere) and ``atan2``,
which both take from numpy (its SIMD ``arctan2`` is not libm's ``atan2`` to the
last bit).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ikchain.kinematics import HUGE, wrap_angle

FloatArray = NDArray[np.float64]

#: Targets per chunk of the batch path: a chunk's temporaries stay in the core's cache.
CHUNK = 4096

_arctan2 = np.arctan2


def angles_from_target(lengths: FloatArray, target: FloatArray, bend: int) -> FloatArray:
    """Relative angles (a0, dA) of a two-bone chain whose tip reaches ``target``.

    Parameters
    ----------
    lengths : array, shape (2,)
        ``(L1, L2)`` in metres.
    target : array, shape (..., 2)
        Targets (m).
    bend : {+1, -1}
        Elbow branch: the sign of ``dA`` (+1 bends counter-clockwise).

    Returns
    -------
    angles : array, shape (..., 2)
        ``(a0, dA)`` in radians. A target beyond the outer circle gets the straight
        chain pointing at it; one inside the inner circle gets the fully folded
        chain along its direction: the poses closest to it.
    """
    return solve_batch(lengths, target, bend)[0]


def solve_batch(
    lengths: FloatArray, target: FloatArray, bend: int
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """The closed form over targets of shape (..., 2).

    Returns
    -------
    angles (..., 2), joints (..., 3, 2), error (...), min_error (...), distance (...)
        The pose, its joints (root, elbow, tip), the tip's distance from the target,
        the target's distance from the reachable annulus, and from the root.
    """
    shape = target.shape[:-1]
    flat = np.ascontiguousarray(target, dtype=np.float64).reshape(-1, 2)
    count = flat.shape[0]
    angles = np.empty((count, 2))
    joints = np.empty((count, 3, 2))
    joints[:, 0, :] = 0.0
    error = np.empty(count)
    min_error = np.empty(count)
    radius = np.empty(count)
    work = _Workspace(min(count, CHUNK))
    for start in range(0, count, CHUNK):
        stop = min(start + CHUNK, count)
        _chunk(
            lengths,
            bend,
            flat[start:stop],
            angles[start:stop],
            joints[start:stop],
            error[start:stop],
            min_error[start:stop],
            radius[start:stop],
            work,
        )
    return (
        angles.reshape(*shape, 2),
        joints.reshape(*shape, 3, 2),
        error.reshape(shape),
        min_error.reshape(shape),
        radius.reshape(shape),
    )


class _Workspace:
    """Preallocated temporaries for one chunk."""

    def __init__(self, size: int) -> None:
        self.size = size
        names = ("tx", "ty", "d", "opening", "closing", "p", "q", "cosine", "sine")
        names += ("x", "y", "c0", "s0", "t", "u", "den")
        for name in names:
            setattr(self, name, np.empty(size))
        self.flag = np.empty(size, dtype=bool)


def _chunk(lengths, bend, target, angles, joints, error, min_error, radius, w) -> None:
    """:func:`solve_one` over one chunk, each line one numpy pass into a buffer."""
    m = target.shape[0]
    l1, l2 = float(lengths[0]), float(lengths[1])
    longest, gap = l1 + l2, abs(l1 - l2)
    twobend = 2.0 * bend
    tx, ty = w.tx[:m], w.ty[:m]
    np.copyto(tx, target[:, 0])
    np.copyto(ty, target[:, 1])
    d, opening, closing = w.d[:m], w.opening[:m], w.closing[:m]
    p, q, cosine, sine = w.p[:m], w.q[:m], w.cosine[:m], w.sine[:m]
    x, y = w.x[:m], w.y[:m]
    c0, s0, t, u, den = w.c0[:m], w.s0[:m], w.t[:m], w.u[:m], w.den[:m]
    flag = w.flag[:m]
    # |t| = sqrt(tx² + ty²)
    np.multiply(tx, tx, out=t)
    np.multiply(ty, ty, out=u)
    np.add(t, u, out=t)
    np.sqrt(t, out=radius)
    if m and not radius.max() < HUGE:  # tx² + ty² overflowed
        _fix_huge(radius, tx, ty)
    # d clipped to [gap, longest]; the two radicands, each exactly 0 at its end
    np.maximum(radius, gap, out=d)
    np.minimum(d, longest, out=d)
    np.subtract(longest, d, out=t)
    np.add(longest, d, out=u)
    np.multiply(t, u, out=opening)
    np.subtract(d, gap, out=t)
    np.add(d, gap, out=u)
    np.multiply(t, u, out=closing)
    np.sqrt(opening, out=p)
    np.sqrt(closing, out=q)
    elbow = angles[:, 1]
    _arctan2(p, q, out=t)
    np.multiply(twobend, t, out=elbow)
    # cos and sin of the elbow from the half-angle tangent p / q
    np.add(closing, opening, out=u)
    np.subtract(closing, opening, out=cosine)
    np.divide(cosine, u, out=cosine)
    np.multiply(p, q, out=sine)
    np.multiply(twobend, sine, out=sine)
    np.divide(sine, u, out=sine)
    # Root angle: the target's direction turned back by the elbow triangle's angle at
    # the root, beta = atan2(y, x). As a rotation of (tx, ty) by -beta, the turned
    # vector is (tx x + ty y, ty x - tx y), of length |t| d: one atan2 gives a0 in
    # [-pi, pi], and the same two numbers over |t| d are cos a0 and sin a0.
    np.multiply(l2, cosine, out=x)
    np.add(l1, x, out=x)
    np.multiply(l2, sine, out=y)
    np.multiply(tx, x, out=c0)
    np.multiply(ty, y, out=t)
    np.add(c0, t, out=c0)
    np.multiply(ty, x, out=s0)
    np.multiply(tx, y, out=t)
    np.subtract(s0, t, out=s0)
    root = angles[:, 0]
    _arctan2(s0, c0, out=root)
    np.multiply(radius, d, out=den)
    np.divide(c0, den, out=c0)
    np.divide(s0, den, out=s0)
    np.equal(den, 0.0, out=flag)
    if flag.any():  # target at the root: no direction to turn
        where = np.flatnonzero(flag)
        root[where] = _degenerate_root(tx[where], ty[where], x[where], y[where])
        c0[where] = np.cos(root[where])
        s0[where] = np.sin(root[where])
    elbow_x, elbow_y = joints[:, 1, 0], joints[:, 1, 1]
    np.multiply(l1, c0, out=elbow_x)
    np.multiply(l1, s0, out=elbow_y)
    # bone 1 direction: (c0, s0) turned by the elbow, (cos, sin)
    tip_x, tip_y = joints[:, 2, 0], joints[:, 2, 1]
    np.multiply(c0, cosine, out=t)
    np.multiply(s0, sine, out=u)
    np.subtract(t, u, out=t)
    np.multiply(l2, t, out=t)
    np.add(elbow_x, t, out=tip_x)
    np.multiply(s0, cosine, out=t)
    np.multiply(c0, sine, out=u)
    np.add(t, u, out=t)
    np.multiply(l2, t, out=t)
    np.add(elbow_y, t, out=tip_y)
    # error = |tip - target|
    np.subtract(tip_x, tx, out=t)
    np.subtract(tip_y, ty, out=u)
    np.multiply(t, t, out=t)
    np.multiply(u, u, out=u)
    np.add(t, u, out=t)
    np.sqrt(t, out=error)
    if m and not error.max() < HUGE:  # the differences' squares overflowed
        bad = ~(error < HUGE)
        error[bad] = np.hypot(tip_x[bad] - tx[bad], tip_y[bad] - ty[bad])
    # min error = max(0, |t| - outer, inner - |t|)
    np.subtract(radius, longest, out=t)
    np.subtract(gap, radius, out=u)
    np.maximum(t, u, out=t)
    np.maximum(0.0, t, out=min_error)


def _degenerate_root(tx, ty, x, y):
    """Root angle for a target at the root: its (signed-zero) direction less beta."""
    root = _arctan2(ty, tx) - _arctan2(y, x)
    return np.where(np.abs(root) > np.pi, wrap_angle(root), root)


def _fix_huge(radius: FloatArray, tx: FloatArray, ty: FloatArray) -> None:
    bad = ~(radius < HUGE)
    radius[bad] = np.hypot(tx[bad], ty[bad])


def solve_one(
    l1: float,
    l2: float,
    tx: float,
    ty: float,
    bend: int,
    _sqrt=math.sqrt,
) -> tuple[float, float, float, float, float, float, float, float, float]:
    """:func:`solve_batch` for one target, in Python floats, operation for operation.

    Returns ``(a0, dA, elbow_x, elbow_y, tip_x, tip_y, error, min_error, distance)``.
    Conditional expressions stand for ``np.maximum``/``np.minimum`` (the same choice
    of operand; the builtins cost 80 ns a call).
    """
    longest = l1 + l2
    gap = l1 - l2 if l1 >= l2 else l2 - l1
    twobend = 2.0 * bend
    radius = _sqrt(tx * tx + ty * ty)
    if not radius < HUGE:
        radius = float(np.hypot(tx, ty))
    d = radius if radius >= gap else gap
    d = d if d <= longest else longest
    opening = (longest - d) * (longest + d)
    closing = (d - gap) * (d + gap)
    p = _sqrt(opening)
    q = _sqrt(closing)
    total = closing + opening
    cosine = (closing - opening) / total
    sine = (twobend * (p * q)) / total
    x = l1 + l2 * cosine
    y = l2 * sine
    numerator_c = tx * x + ty * y
    numerator_s = ty * x - tx * y
    half, root = _arctan2((p, numerator_s), (q, numerator_c)).tolist()
    elbow = twobend * half
    den = radius * d
    if den == 0.0:
        root = _degenerate_root(tx, ty, x, y).item()
        c0, s0 = math.cos(root), math.sin(root)
    else:
        c0 = numerator_c / den
        s0 = numerator_s / den
    elbow_x = l1 * c0
    elbow_y = l1 * s0
    tip_x = elbow_x + l2 * (c0 * cosine - s0 * sine)
    tip_y = elbow_y + l2 * (s0 * cosine + c0 * sine)
    ex = tip_x - tx
    ey = tip_y - ty
    error = _sqrt(ex * ex + ey * ey)
    if not error < HUGE:
        error = float(np.hypot(ex, ey))
    outside = radius - longest
    inside = gap - radius
    worst = outside if outside >= inside else inside
    min_error = 0.0 if worst <= 0.0 else worst
    return root, elbow, elbow_x, elbow_y, tip_x, tip_y, error, min_error, radius
