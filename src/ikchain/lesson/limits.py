"""Joint limits in the lesson (section 2.5): the presets, the arcs drawn at each joint,
and the set W of tip positions a limited chain can reach, as cells.

Only the library places anything: :func:`ikchain.kinematics.joints_from_angles` the
arcs, centred on the joints of the solved pose and spanning the allowed directions
of each bone (its parent bone's direction plus the joint's min … max); and
:func:`ikchain.solve`'s ``min_error`` (a batch with zero iterations: the reach under
the limits, exact where certified) the shaded set, a cell being shaded when its
centre lies in W. Nothing here re-derives the reach. Output is SVG path data (the
figure's ``g.world`` flips y): the arcs in metres, the cells in cell units placed by
:func:`reach_transform`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ikchain.chain import Chain
from ikchain.formatting import format_degrees
from ikchain.kinematics import joints_from_angles
from ikchain.lesson import precomputed
from ikchain.solvers import solve

#: Limit presets, in degrees: ``root`` for joint 0, ``joint`` for every later joint.
#: "arm": a shoulder that swings from a little below the horizontal to over the top,
#: and elbows/knees that bend one way only.
PRESETS: dict[str, dict[str, tuple[float, float]] | None] = {
    "free": None,
    "arm": {"root": (-45.0, 135.0), "joint": (0.0, 150.0)},
}
#: Radius of the arcs drawn at the joints (m).
ARC_RADIUS = 0.12
#: Side of the reachable-set raster's finest cells (m): under a pixel at the page's
#: desktop width (the 4.06 m wide view drawn about 700 px wide: 0.86 px a cell).
CELL = 0.005
#: Halvings from the coarsest cells (``CELL · 2**LEVELS``) down to ``CELL``.
LEVELS = 3


def limits_from_preset(preset: str, bones: int) -> np.ndarray | None:
    """The preset's limits for a chain of ``bones`` bones, shape (n, 2) in radians."""
    if preset not in PRESETS:
        raise ValueError(f"limits: expected one of {', '.join(PRESETS)}, got {preset!r}")
    spec = PRESETS[preset]
    if spec is None:
        return None
    rows = [spec["root"]] + [spec["joint"]] * (bones - 1)
    return np.radians(np.array(rows, dtype=np.float64))


def _f(value: float) -> str:
    return f"{value:.5f}".rstrip("0").rstrip(".")


def arcs_from_pose(chain: Chain, angles: Any) -> list[str]:
    """One wedge per joint (SVG path data): the directions its bone may point in.

    Joint i sits at ``joints[i]``; its bone may point from ``parent + min`` to
    ``parent + max``, where ``parent`` is the direction of bone i − 1 (+x for the
    root). The wedge spans that range at :data:`ARC_RADIUS`.
    """
    if chain.limits is None:
        return []
    angles = np.asarray(angles, dtype=np.float64)
    joints = joints_from_angles(chain.lengths, angles[None, :])[0]
    parents = np.concatenate(([0.0], np.cumsum(angles)[:-1]))
    out = []
    for (x, y), parent, (low, high) in zip(joints[:-1], parents, chain.limits, strict=True):
        a, b = parent + low, parent + min(high, low + 2 * math.pi - 1e-6)
        large = 1 if b - a > math.pi else 0
        x0, y0 = x + ARC_RADIUS * math.cos(a), y + ARC_RADIUS * math.sin(a)
        x1, y1 = x + ARC_RADIUS * math.cos(b), y + ARC_RADIUS * math.sin(b)
        out.append(
            f"M{_f(x)} {_f(y)} L{_f(x0)} {_f(y0)} "
            f"A{_f(ARC_RADIUS)} {_f(ARC_RADIUS)} 0 {large} 1 {_f(x1)} {_f(y1)} Z"
        )
    return out


@dataclass(frozen=True)
class ReachCells:
    """The reachable set of a limited chain on a square raster of cells.

    ``shaded[row, col]`` covers the cell whose lower-left corner is
    ``(-half + col·cell, -half + row·cell)`` (m); :meth:`centres` gives each cell's
    centre. ``evaluated`` marks the cells whose centre the library classified;
    ``solves`` counts the targets asked and ``uncertified`` those whose reach the
    search could not prove.
    """

    shaded: np.ndarray
    evaluated: np.ndarray
    half: float
    cell: float
    solves: int
    uncertified: int

    def centres(self) -> np.ndarray:
        """Centres of every cell, shape (rows, cols, 2) (m)."""
        return _centres(self.half, self.cell, self.shaded.shape[0])


def _centres(half: float, cell: float, size: int) -> np.ndarray:
    axis = -half + (np.arange(size) + 0.5) * cell
    xs, ys = np.meshgrid(axis, axis)
    return np.stack([xs, ys], axis=-1)


def _neighbours_differ(grid: np.ndarray) -> np.ndarray:
    """Cells with a neighbour (of 8) whose value differs from their own."""
    padded = np.pad(grid, 1, mode="edge")
    rows, cols = grid.shape
    out = np.zeros_like(grid)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            out |= padded[dy : dy + rows, dx : dx + cols] != grid
    return out


def _classify(chain: Chain, targets: np.ndarray, cell: float) -> tuple[np.ndarray, ...]:
    """Shaded (in W), the distance to W (a lower bound where not certified) and the
    certified flags at ``targets``, from the library (zero iterations: reach only).

    Where the search is not certified (its budget ran out, a few targets within a
    hair of the boundary), ``min_error`` is only a lower bound: such a centre is
    shaded when a default DLS solve, which ends at the search's best pose, puts the
    tip within half a cell of it (so W meets the cell).
    """
    result = solve(chain, targets, "ccd", max_iterations=0)
    distance = np.asarray(result.min_error, dtype=np.float64)
    certified = np.asarray(result.certified, dtype=bool)
    shaded = certified & (distance == 0.0)
    if not certified.all():
        doubt = np.flatnonzero(~certified)
        near = solve(chain, targets[doubt], "dls")
        shaded[doubt] = np.asarray(near.error) <= 0.5 * cell
    return shaded, distance, certified


def reach_cells(chain: Chain) -> ReachCells:
    """The shaded reachable set of a limited chain (cached per lengths and limits)."""
    if chain.limits is None:
        raise ValueError("reach_cells: expected a chain with joint limits, got a free chain")
    lengths = tuple(float(v) for v in chain.lengths)
    bounds = tuple((float(lo), float(hi)) for lo, hi in chain.limits)
    return _reach_cells(lengths, bounds)


@precomputed.ahead(ReachCells)  # while the kernels compile, from the store
@functools.lru_cache(maxsize=16)
def _reach_cells(lengths: tuple[float, ...], bounds: tuple[tuple[float, float], ...]) -> ReachCells:
    """Classify cells by the library's ``min_error`` at their centres, coarse to fine.

    Level 0 classifies every cell of side ``CELL · 2**LEVELS``. Each later level
    halves the cells and classifies the children of the cells still in doubt: a
    shaded cell with an unshaded neighbour, or an unshaded one whose centre lies
    nearer to W than its half-diagonal (W may enter it). A cell whose centre is
    at least a half-diagonal from W holds no point of W, nor do its children; an
    inherited shaded cell next to a classified unshaded one is classified too,
    until none is left. The finest cells that were never classified lie deep inside
    W (or provably outside it).
    """
    chain = Chain(lengths, np.array(bounds))
    coarse = CELL * 2**LEVELS
    half = math.ceil((sum(lengths) + CELL) / coarse) * coarse
    size = round(2 * half / coarse)
    cell = coarse
    shaded, distance, certified = _classify(chain, _centres(half, cell, size).reshape(-1, 2), cell)
    shaded = shaded.reshape(size, size)
    evaluated = np.ones((size, size), dtype=bool)
    away = ~shaded & (distance.reshape(size, size) >= cell * math.sqrt(0.5))
    solves, doubtful = size * size, int(np.sum(~certified))
    for _ in range(LEVELS):
        doubt = (shaded & _neighbours_differ(shaded)) | (~shaded & ~away)
        up = lambda grid: np.repeat(np.repeat(grid, 2, axis=0), 2, axis=1)  # noqa: E731
        shaded, away, doubt = up(shaded), up(away), up(doubt)
        size, cell = 2 * size, 0.5 * cell
        evaluated = np.zeros((size, size), dtype=bool)
        centres = _centres(half, cell, size)
        todo = doubt
        while todo.any():
            rows, cols = np.nonzero(todo)
            inside, gap, sure = _classify(chain, centres[rows, cols], cell)
            shaded[rows, cols] = inside
            away[rows, cols] = ~inside & (gap >= cell * math.sqrt(0.5))
            evaluated[rows, cols] = True
            solves += rows.size
            doubtful += int(np.sum(~sure))
            # an inherited shaded cell beside a classified unshaded one is in doubt too
            outside = evaluated & ~shaded
            todo = ~evaluated & shaded & _shift_any(outside)
    return ReachCells(shaded, evaluated, half, cell, solves, doubtful)


def _shift_any(grid: np.ndarray) -> np.ndarray:
    """Cells with a set cell among their 8 neighbours or themselves."""
    padded = np.pad(grid, 1)
    out = np.zeros_like(grid)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            out |= padded[dy : dy + grid.shape[0], dx : dx + grid.shape[1]]
    return out


def reach_transform(chain: Chain) -> str:
    """The SVG transform that places :func:`reach_path`'s cell units in metres."""
    if chain.limits is None:
        return ""
    grid = reach_cells(chain)
    return f"translate({_f(-grid.half)} {_f(-grid.half)}) scale({_f(grid.cell)})"


def reach_path(chain: Chain) -> str:
    """The reachable set of a limited chain as SVG path data in cell units (place it
    with :func:`reach_transform`): one rectangle per run of shaded cells in a row,
    runs repeated in the rows above merged into one taller rectangle. Empty when free.
    """
    if chain.limits is None:
        return ""
    shaded = reach_cells(chain).shaded
    parts: list[str] = []
    open_runs: dict[tuple[int, int], int] = {}  # (start, stop) -> first row

    def close(run: tuple[int, int], first: int, row: int) -> None:
        start, stop = run
        parts.append(f"M{start} {first}h{stop - start}v{row - first}h-{stop - start}z")

    for row in range(shaded.shape[0] + 1):
        runs: set[tuple[int, int]] = set()
        if row < shaded.shape[0] and shaded[row].any():
            padded = np.concatenate(([False], shaded[row], [False]))
            edges = np.flatnonzero(padded[1:] != padded[:-1])
            runs = {(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)}
        for run in sorted(set(open_runs) - runs):
            close(run, open_runs.pop(run), row)
        for run in sorted(runs - set(open_runs)):
            open_runs[run] = row
    return "".join(parts)


def held_joints(result: Any, digits: int = 2, space: str = "\u00a0") -> str:
    """The joints a result holds at a bound (its ``at_limit``) with their angles, e.g.
    ``"0 (-45.00°), 2 (0.00°)"`` (joint 0 is the root), or ``""`` when none. A
    no-break space (``space``) keeps each joint's number with its angle when the
    readings wrap; tables, whose cells are compared as text, pass a plain one."""
    held = np.flatnonzero(np.asarray(result.at_limit, dtype=bool))
    angles = np.asarray(result.angles, dtype=np.float64)
    return ", ".join(f"{i}{space}({format_degrees(angles[i], digits)})" for i in held)


def limits_view(chain: Chain, angles: Any, at_limit: Any = None) -> dict[str, Any] | None:
    """What a frame of a limited chain adds for the page: the arcs at its joints, and
    which joints sit at a bound (the result's ``at_limit``; none when not given)."""
    if chain.limits is None:
        return None
    held = [False] * chain.n_bones if at_limit is None else [bool(v) for v in at_limit]
    return {"arcs": arcs_from_pose(chain, angles), "at_limit": held}
