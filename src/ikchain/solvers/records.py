"""The records the kernels read and write, laid out once: importing this costs nothing.

``solve()`` (no numba at import) and the kernels both index these arrays:

* ``options``: a solve's options, one float64 array from ``solve()`` to the loop;
* ``knobs``: what the loop hands each step, in chain units;
* ``out``: a row per target, its angles, joints and :data:`RESULT_FIELDS`.
"""

from __future__ import annotations

# Status codes (the order of ikchain.result.STATUS_BY_CODE), and refused targets.
CONVERGED, UNREACHABLE, STALLED, MAX_ITERATIONS, SOFTENED, BLENDED = 0, 1, 2, 3, 4, 5
TOO_FAR = -2
OUTSIDE_LIMITS = -3

#: Fields of ``options``: the chain's ΣL and inner radius (m), whether it is limited
#: (0.0 free; :data:`SEARCHED` or :data:`FREE_OR_FIXED`), the bend (±1), the
#: iteration budget, the tolerance (m), the damping, CCD's largest turn (rad, ``inf``
#: for none), DLS's rest-pose gain (0: none), whether each target starts from the
#: answer for the one before it (1.0: ``follow``), and the blend weight the loop
#: applies after each target (1.0: none; ``blend``).
OPTION_FIELDS = (
    "outer",
    "inner",
    "limited",
    "bend",
    "max_iterations",
    "tolerance",
    "damping",
    "max_step",
    "pull",
    "follow",
    "weight",
)
(
    OPT_OUTER,
    OPT_INNER,
    OPT_LIMITED,
    OPT_BEND,
    OPT_MAX_ITERATIONS,
    OPT_TOLERANCE,
    OPT_DAMPING,
    OPT_MAX_STEP,
    OPT_PULL,
    OPT_FOLLOW,
    OPT_WEIGHT,
) = range(len(OPTION_FIELDS))

#: ``options[OPT_LIMITED]`` of a limited chain whose reach the search finds
#: (``limited.reach_range``, before the loop) ...
SEARCHED = 1.0
#: ... and of a chain whose every joint is free or fixed by construction (a lock on a
#: chain without limits, ``steps._locked_part``): the loop finds its reach itself, in
#: closed form (``rigid.rigid_reach``), with the same numbers the search would.
FREE_OR_FIXED = 2.0

#: Fields of ``knobs``, what a step reads besides the pose and the target: the damping,
#: CCD's largest turn, DLS's λ² floor (in squared chain units) and rest-pose gain, and
#: whether the chain is limited (``options[OPT_LIMITED]``; 0.0: free).
KNOB_FIELDS = ("damping", "max_step", "bias", "pull", "limited")
KNOB_DAMPING, KNOB_MAX_STEP, KNOB_BIAS, KNOB_PULL, KNOB_LIMITED = range(len(KNOB_FIELDS))

#: The row of a step's ``work`` that holds each joint's give, ``1 / (1 + stiffness)``
#: (:mod:`ikchain.solvers.stiffness`; all ones without stiffness): after the seven
#: scratch rows a step may use (``loop.STEP_ROWS``).
GIVE_ROW = 7

#: After a target's angles (n) and joints ((n + 1) x 2), its row of ``out`` holds these.
RESULT_FIELDS = ("error", "min_error", "reachable", "iterations", "code", "certified")
ERROR, MIN_ERROR, REACHABLE, ITERATIONS, CODE, CERTIFIED = range(len(RESULT_FIELDS))


def out_width(n: int) -> int:
    """Columns of a solve's ``out`` array for an n-bone chain: a row per target."""
    return 3 * n + 2 + len(RESULT_FIELDS)
