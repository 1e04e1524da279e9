"""The law of cosines for two bones, in half-angle form: :func:`pose`, both elbow branches.

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
"""

from __future__ import annotations

import math

import numpy as np

from ikchain.solvers.compiled import kernel, norm, wrap_angle


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
    if total == 0.0:  # bones so unequal (1e17 : 1) that the annulus has no width in
        total = 1.0  # floats: the chain is straight, to rounding of the longer bone
        closing = 1.0
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
