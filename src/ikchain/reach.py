"""Convergence against reach: iterations to a tolerance as the target nears full extension.

This is the one computation behind both the bench's convergence-against-reach figure
and the lesson's table 2b, so that the two can never disagree: part of the library,
which both import. It returns data and prints nothing; :mod:`ikchain.bench` and the
lesson format it.

Near full extension the chain is near a singular pose: every joint's turn moves the tip
almost along the same line (tangent to the reach circle), so the tip Jacobian's
condition number grows without bound as d/ΣL → 1. Each row carries that condition
number, measured at the pose each method ended on, to show why.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ikchain.chain import Chain
from ikchain.manipulability import condition_from_angles
from ikchain.solvers import solve

#: d/ΣL of the rows of the lesson's table 2b and of the bench figure.
REACH_RATIOS: tuple[float, ...] = (0.75, 0.93, 0.958, 0.988, 0.995, 0.999)
#: The solvers compared.
REACH_METHODS: tuple[str, ...] = ("ccd", "fabrik", "dls")
#: Direction of the targets from the root (rad): 30°, clear of the axes and of the
#: bent start pose's own rays.
DEFAULT_DIRECTION = math.radians(30.0)
#: Iterations after which the error is read (the table's "error after 48 sweeps").
ERROR_AFTER = 48
#: Budget for reaching the tolerance; CCD needs thousands of sweeps at 0.999.
MAX_ITERATIONS = 100_000


@dataclass(frozen=True)
class ReachRow:
    """One target at d = ratio · ΣL in one direction, and how each method fared.

    ``iterations[m]`` is the number of iterations method ``m`` used to bring the end
    error to the tolerance, or ``None`` when it did not within the budget (then
    ``status[m]`` says why). ``error_after[m]`` is the end error after exactly
    ``error_after_iterations`` iterations (or after fewer, when the pose stopped
    changing at machine precision before that). ``condition[m]`` is the condition
    number of the tip Jacobian at the final pose of method ``m``.
    """

    ratio: float
    direction: float
    target: tuple[float, float]
    distance: float
    iterations: dict[str, int | None]
    status: dict[str, str]
    error: dict[str, float]
    error_after: dict[str, float]
    error_after_iterations: int
    condition: dict[str, float]

    def as_dict(self) -> dict[str, Any]:
        """Plain-Python rendering for JSON."""
        return asdict(self)


def sweeps_to_tolerance(
    chain: Chain,
    ratios: Sequence[float] = REACH_RATIOS,
    methods: Sequence[str] = REACH_METHODS,
    tolerance: float = 1e-9,
    *,
    directions: Sequence[float] = (DEFAULT_DIRECTION,),
    error_after: int = ERROR_AFTER,
    max_iterations: int = MAX_ITERATIONS,
) -> list[ReachRow]:
    """Iterations each method needs to reach ``tolerance`` at d = ratio · ΣL.

    Every method starts from the default (slightly bent) pose, through the public
    :func:`ikchain.solve`. One row per (ratio, direction), ratios outermost.

    Parameters
    ----------
    chain : Chain
        The chain (e.g. the lesson's L = (0.8, 0.6)).
    ratios : sequence of float
        Target distances as fractions of ΣL, each in (0, 1].
    methods : sequence of str
        Iterative methods to compare ("ccd", "fabrik", "dls").
    tolerance : float
        Goal for the end error (m).
    directions : sequence of float
        Directions of the targets from the root (rad).
    error_after : int
        Read the end error after this many iterations as well.
    max_iterations : int
        Budget for reaching ``tolerance``.

    Returns
    -------
    list of ReachRow

    Examples
    --------
    >>> import ikchain
    >>> from ikchain.reach import sweeps_to_tolerance
    >>> [row] = sweeps_to_tolerance(ikchain.Chain([0.8, 0.6]), ratios=(0.988,))
    >>> row.iterations
    {'ccd': 510, 'fabrik': 165, 'dls': 4}
    """
    ratio_grid = np.repeat(np.asarray(ratios, dtype=np.float64), len(directions))
    direction_grid = np.tile(np.asarray(directions, dtype=np.float64), len(ratios))
    distances = ratio_grid * chain.total_length
    targets = np.stack(
        (distances * np.cos(direction_grid), distances * np.sin(direction_grid)), axis=-1
    )
    runs = {}
    for method in methods:
        full = solve(chain, targets, method, max_iterations=max_iterations, tolerance=tolerance)
        # A tolerance below any reachable error: the loop runs the whole short budget
        # (or stops earlier only when the pose no longer changes at all).
        short = solve(chain, targets, method, max_iterations=error_after, tolerance=1e-300)
        condition = condition_from_angles(chain.lengths, full.angles)
        runs[method] = (full, short, condition)

    rows = []
    for k in range(targets.shape[0]):
        rows.append(
            ReachRow(
                ratio=float(ratio_grid[k]),
                direction=float(direction_grid[k]),
                target=(float(targets[k, 0]), float(targets[k, 1])),
                distance=float(distances[k]),
                iterations={
                    m: int(full.iterations[k]) if full.converged[k] else None
                    for m, (full, _, _) in runs.items()
                },
                status={m: str(full.status[k]) for m, (full, _, _) in runs.items()},
                error={m: float(full.error[k]) for m, (full, _, _) in runs.items()},
                error_after={m: float(short.error[k]) for m, (_, short, _) in runs.items()},
                error_after_iterations=error_after,
                condition={m: float(cond[k]) for m, (_, _, cond) in runs.items()},
            )
        )
    return rows
