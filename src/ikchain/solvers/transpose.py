"""Jacobian transpose: turn the joints along the gradient of the squared end error.

With ``e`` the tip-to-target error and ``J`` the 2 × n tip Jacobian, ``Jᵀ e`` is the
direction in which ``|e|² / 2`` falls fastest in joint space (it is minus that
function's gradient), and each joint's share of it is plain geometry: joint ``i``
turns by the cross product of its arm (joint ``i`` to the tip) with ``e``. No matrix
is inverted, which is why teaching pages show this method between CCD (one joint at
a time) and damped least squares (a 2 × 2 solve per iteration).

The step length is Buss's choice, ``α = (e · J Jᵀ e) / |J Jᵀ e|²``: the length that
would leave the least error if the tip moved exactly as the Jacobian predicts, cut
so that no joint turns by more than :data:`MAX_TURN` (the model holds for small
turns only). A step that would raise the error is halved, up to :data:`RETRIES`
times, inside the same iteration; when none helps, the pose stays and the loop
reports a stall. The damping is the
fraction of each step taken, as for CCD and DLS.

**Stiffness.** With each joint's give ``g = 1 / (1 + s)`` (``G = diag(g) = W⁻¹``,
:mod:`ikchain.solvers.stiffness`) the direction is ``G Jᵀ e``, the steepest descent
of ``|e|² / 2`` in the metric ``W``, and Buss's length is taken along it
(``α = (e · J G Jᵀ e) / |J G Jᵀ e|²``). A give of 1 multiplies by 1.0, exactly; a give
of 0 never moves its joint.

Its weakness is the lesson's point: the step follows the gradient, so where the
Jacobian is ill-conditioned (the chain nearly straight or folded, a large condition
number) the error falls by a factor of only about ``(κ² - 1) / (κ² + 1)``, nearly
``1 - 2/κ²``, per iteration in the worst case, and the method crawls; where ``J Jᵀ e``
vanishes (a straight chain whose target lies on its line) it cannot move at all,
like CCD.

:func:`step` is compiled and run by the one loop, :mod:`ikchain.solvers.loop`.
"""

from __future__ import annotations

import numpy as np

from ikchain.solvers.compiled import clamp_into, joints_into, kernel, stay
from ikchain.solvers.records import GIVE_ROW, KNOB_DAMPING, KNOB_LIMITED

#: Halvings of a step that would raise the error, before the pose stays.
RETRIES = 30
#: The largest turn of any joint in one step (rad): the linear model behind Buss's
#: length holds only for small turns, and near a singular pose (the chain folded on
#: an unreachable target) ``J Jᵀ e`` can be tiny beside ``Jᵀ e`` and the length huge.
MAX_TURN = 0.5


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
    """One iteration into ``new_angles``/``new_joints``; ``work``: scratch (>= 1, >= n).

    The signature of every step (see :func:`ikchain.solvers.ccd.step`); each
    joint's give is ``work[GIVE_ROW]``.
    """
    lengths, lows, highs = chain[0], chain[1], chain[2]
    damping = knobs[KNOB_DAMPING]
    limited = knobs[KNOB_LIMITED] != 0.0
    n = lengths.size
    gradient = work[0]  # G Jᵀ e, a turn per joint
    give = work[GIVE_ROW]
    ex = joints[n, 0]  # the tip
    ey = joints[n, 1]
    gx = tx - ex
    gy = ty - ey
    start2 = gx * gx + gy * gy
    # joint i's column of J is its arm (tip - joint i) turned a quarter: (-ay, ax)
    mx = 0.0  # J Jᵀ e
    my = 0.0
    for i in range(n):
        ax = ex - joints[i, 0]
        ay = ey - joints[i, 1]
        g = give[i] * (ax * gy - ay * gx)  # column · e: the arm crossed with the error
        gradient[i] = g
        mx -= ay * g
        my += ax * g
    moved2 = mx * mx + my * my
    # zero-length guard: where J Jᵀ e vanishes there is no direction to take
    alpha = damping * (gx * mx + gy * my) / moved2 if moved2 > 0.0 else 0.0
    largest = 0.0
    for i in range(n):
        turn = abs(alpha * gradient[i])
        largest = turn if turn > largest else largest
    if largest > MAX_TURN:  # a trust region: no joint turns by more than MAX_TURN
        alpha *= MAX_TURN / largest
    for _ in range(RETRIES + 1):
        if alpha == 0.0:
            break
        for i in range(n):
            new_angles[i] = angles[i] + alpha * gradient[i]
        if limited:
            clamp_into(new_angles, lows, highs)
        joints_into(lengths, new_angles, new_joints)
        fx = tx - new_joints[n, 0]
        fy = ty - new_joints[n, 1]
        if not fx * fx + fy * fy > start2:  # no higher than before: keep it
            return
        alpha *= 0.5
    stay(angles, joints, new_angles, new_joints)  # no step helped
