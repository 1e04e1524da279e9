"""Damped least squares (Levenberg-Marquardt) on the tip Jacobian.

Each iteration solves ``(J Jᵀ + λ² I) y = e`` and turns the joints by ``Jᵀ y``,
where ``e`` is the tip-to-target error and ``J`` the 2 × n tip Jacobian. The
2 × 2 system is solved in closed form. The damping adapts to the error, after
Sugihara's rule for solvability-unconcerned IK: ``λ² = c |e|² + bias``, so steps
are cautious while the tip is far (and stay finite at singular poses, where J Jᵀ
loses rank) and become Gauss-Newton steps, with quadratic convergence, as the error
vanishes. A step that would raise the error is retried with ten times the damping,
a few times, inside the same iteration.

Before the linearised step, the root joint turns so that the tip points straight at
the target: an exact one-joint solve (the root's CCD turn). The swing about the root
is the one motion a linear model gets badly wrong when it is large, and the tip's
distance from the root, which the other joints control, does not depend on it.
Measured on random reachable targets, this takes the worst case from over 30
iterations to 12 (``ikchain bench``).

**Rest pose.** With more joints than the two coordinates of the tip, the targets'
solutions form families (self-motion). Given a rest pose ``r`` and a gain
``g = w / (1 + w)`` for a rest weight ``w``, each step also moves the pose by
``g P (r - θ)``, where ``P = I - Jᵀ (J Jᵀ)⁻¹ J`` projects onto the motions that leave
the tip where it is (to first order; undamped, so that the pull does not push the
tip, with a regularisation of 1e-14 of J Jᵀ's size for the singular poses): the pose
drifts toward the member of the family nearest ``r`` (differences taken in
(-pi, pi]) while the tip converges as before. A step with the pull is kept only if
it cuts the error by a tenth at least (:data:`PULLED_PROGRESS`); else it is retried
without the pull (and then with the larger damping, as always), so that the pull can
slow the convergence to the target but never stop it. Two joints or fewer
have no family to move along: there the pull is nil.

**Stiffness.** With each joint's give ``g = 1 / (1 + s)`` for a stiffness ``s``
(:mod:`ikchain.solvers.stiffness`; ``G = diag(g) = W⁻¹``), the step is the weighted
damped least-squares step, the ``Δθ`` that minimises ``|J Δθ - e|² + λ² Δθᵀ W Δθ``:
``Δθ = G Jᵀ (J G Jᵀ + λ² I)⁻¹ e``; the root's aiming turn is scaled by the root's
give, and the rest pull moves within the null space in the same metric, ``G (r - θ)``
projected by ``I - G Jᵀ (J G Jᵀ)⁻¹ J``. A give of 1 (no stiffness) multiplies by 1.0,
exactly: the same step to the bit; a give of 0 (infinite stiffness) never moves its
joint.

:func:`step` is compiled and run by the one loop, :mod:`ikchain.solvers.loop`, on
lengths and targets divided by the chain's length, so ``bias`` is relative to it.
"""

from __future__ import annotations

import math

import numpy as np

from ikchain.solvers.compiled import clamp_into, joints_into, kernel, stay, wrap_angle
from ikchain.solvers.records import GIVE_ROW, KNOB_BIAS, KNOB_DAMPING, KNOB_LIMITED, KNOB_PULL

#: λ² per squared metre of end error.
ERROR_WEIGHT = 0.03
#: Constant part of λ², relative to (sum of lengths)².
BIAS = 1e-9
#: Retries with larger damping when a step would raise the error.
RETRIES = 6
#: A step with the rest pull is kept only if it leaves at most this share of the
#: squared error (0.81: the error falls by a tenth at least); else the plain step is
#: taken. Without it the pull, whose tip motion is nil only to first order, could hold
#: the error at a floor for ever (a hypothesis case: 3e-6 m after 1,000 iterations).
PULLED_PROGRESS = 0.81


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
    """One iteration into ``new_angles``/``new_joints``; ``work``: scratch (>= 7, >= n).

    The signature of every step (see :func:`ikchain.solvers.ccd.step`). The damping
    is the fraction of each step taken, as for CCD; the Levenberg-Marquardt λ is
    chosen by the solver itself, from ``bias`` up. ``pull`` is the rest pose's gain
    (0 for none; the rest pose is ``work[5]``); each joint's give is
    ``work[GIVE_ROW]``. When no step lowers the error the pose stays (the loop
    reports a stall).
    """
    lengths, lows, highs = chain[0], chain[1], chain[2]
    damping = knobs[KNOB_DAMPING]
    bias = knobs[KNOB_BIAS]
    pull = knobs[KNOB_PULL]
    limited = knobs[KNOB_LIMITED] != 0.0
    n = lengths.size
    aimed = work[0]
    xs = work[1]  # joints 1..n of the aimed pose
    ys = work[2]
    jx = work[3]  # Jacobian columns
    jy = work[4]
    give = work[GIVE_ROW]
    ex = joints[n, 0]
    ey = joints[n, 1]
    gx = tx - ex
    gy = ty - ey
    start2 = gx * gx + gy * gy
    # Turn joint 0 (times damping) so that the tip points at the target.
    # (scaled by the root's give: a stiff root turns less, a locked one not at all)
    turn = give[0] * math.atan2(ex * ty - ey * tx, ex * tx + ey * ty)
    for i in range(n):
        aimed[i] = angles[i]
    aimed[0] += turn if damping == 1.0 else damping * turn
    if limited:
        clamp_into(aimed, lows, highs)
    # The aimed pose's joints: the current ones turned about the root.
    turned = aimed[0] - angles[0]
    rc = math.cos(turned)
    rs = math.sin(turned)
    for i in range(n):
        xs[i] = rc * joints[i + 1, 0] - rs * joints[i + 1, 1]
        ys[i] = rs * joints[i + 1, 0] + rc * joints[i + 1, 1]
    x = xs[n - 1]
    y = ys[n - 1]
    errx = tx - x
    erry = ty - y
    damping2 = ERROR_WEIGHT * (errx * errx + erry * erry) + bias
    # Jacobian columns: joint i turns the tip perpendicular to the line joint i -> tip.
    jx[0] = -y
    jy[0] = x
    for i in range(1, n):
        jx[i] = -(y - ys[i - 1])
        jy[i] = x - xs[i - 1]
    # J G Jᵀ (with a give of 1, each product is the unweighted one, to the bit)
    sxx = give[0] * jx[0] * jx[0]
    sxy = give[0] * jx[0] * jy[0]
    syy = give[0] * jy[0] * jy[0]
    for i in range(1, n):
        sxx += give[i] * jx[i] * jx[i]
        sxy += give[i] * jx[i] * jy[i]
        syy += give[i] * jy[i] * jy[i]
    toward = work[6]  # the way to the rest pose, projected: P G (rest - aimed)
    if n < 3:
        pull = 0.0
    if pull > 0.0:
        rest = work[5]
        jvx = 0.0
        jvy = 0.0
        for i in range(n):
            toward[i] = give[i] * wrap_angle(rest[i] - aimed[i])
            jvx += jx[i] * toward[i]
            jvy += jy[i] * toward[i]
        tiny = 1e-14 * (sxx + syy)
        a = sxx + tiny
        c = syy + tiny
        det = a * c - sxy * sxy
        zx = (c * jvx - sxy * jvy) / det
        zy = (a * jvy - sxy * jvx) / det
        for i in range(n):
            toward[i] -= give[i] * (jx[i] * zx + jy[i] * zy)
    # with a pull: a first attempt with it, then plain DLS (the steps without rest)
    first = 0 if pull > 0.0 else 1
    for attempt in range(first, RETRIES + 2):
        if attempt == 1:
            pull = 0.0
        elif attempt > 1:
            damping2 *= 10.0
        a = sxx + damping2
        c = syy + damping2
        det = a * c - sxy * sxy  # > 0: λ² > 0 keeps the matrix positive definite
        yx = (c * errx - sxy * erry) / det
        yy = (a * erry - sxy * errx) / det
        for i in range(n):
            turn_i = give[i] * (jx[i] * yx + jy[i] * yy)
            new_angles[i] = aimed[i] + (turn_i if damping == 1.0 else damping * turn_i)
        if pull > 0.0:
            for i in range(n):
                new_angles[i] += pull * toward[i]
        if limited:
            clamp_into(new_angles, lows, highs)
        joints_into(lengths, new_angles, new_joints)
        gx = tx - new_joints[n, 0]
        gy = ty - new_joints[n, 1]
        # a step with the pull must cut the error by a tenth (see PULLED_PROGRESS); a
        # plain one must not raise it
        if not gx * gx + gy * gy > (PULLED_PROGRESS * start2 if pull > 0.0 else start2):
            return
    stay(angles, joints, new_angles, new_joints)  # no step helped
