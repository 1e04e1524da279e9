"""Joint limits in the lesson (section 2.5): the presets, the arcs drawn at each joint,
and the set of tip positions a limited chain can reach, sampled by forward kinematics.

Only the library's own :func:`ikchain.kinematics.joints_from_angles` places anything:
the arcs are centred on the joints of the solved pose and span the allowed directions
of each bone (its parent bone's direction plus the joint's min … max); the reachable
set is the tips of a dense grid of poses inside the limits, marked on a grid of
cells. Output is SVG path data in world metres (the figure's ``g.world`` flips y).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ikchain.chain import Chain
from ikchain.kinematics import end_from_angles, joints_from_angles

#: Limit presets, in degrees: ``root`` for joint 0, ``joint`` for every later joint.
#: "arm": a shoulder that swings from a little below the horizontal to over the top,
#: and elbows/knees that bend one way only.
PRESETS: dict[str, dict[str, tuple[float, float]] | None] = {
    "free": None,
    "arm": {"root": (-45.0, 135.0), "joint": (0.0, 150.0)},
}
#: Radius of the arcs drawn at the joints (m).
ARC_RADIUS = 0.12
#: Poses sampled for the reachable set, at most (split evenly over the joints).
SAMPLES = 1_000_000
#: Cell size of the reachable-set raster (m).
CELL = 0.025
#: Cells up to this many wide, between sampled tips, are filled (a morphological
#: closing): the samples are a grid, and a tip moves up to a few cells per grid step.
CLOSING = 2


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


@functools.lru_cache(maxsize=16)
def _reach_cells(
    lengths: tuple[float, ...], limits: tuple[tuple[float, float], ...]
) -> tuple[np.ndarray, float]:
    """Occupied cells of the reachable set: a boolean grid and its half-width (m)."""
    n = len(lengths)
    per_joint = max(8, int(SAMPLES ** (1.0 / n)))
    axes = [np.linspace(low, high, per_joint) for low, high in limits]
    grids = np.meshgrid(*axes, indexing="ij")
    poses = np.stack([g.ravel() for g in grids], axis=-1)
    half = math.ceil(sum(lengths) / CELL + 1) * CELL
    size = round(2 * half / CELL)
    occupied = np.zeros((size, size), dtype=bool)
    for chunk in np.array_split(poses, max(1, len(poses) // 200_000)):
        tips = end_from_angles(np.array(lengths), chunk)
        cells = np.floor((tips + half) / CELL).astype(int)
        cells = np.clip(cells, 0, size - 1)
        occupied[cells[:, 1], cells[:, 0]] = True
    return _close(occupied, CLOSING), half


def _shift_any(grid: np.ndarray) -> np.ndarray:
    """Cells with an occupied cell among their 8 neighbours or themselves."""
    padded = np.pad(grid, 1)
    out = np.zeros_like(grid)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            out |= padded[dy : dy + grid.shape[0], dx : dx + grid.shape[1]]
    return out


def _close(grid: np.ndarray, steps: int) -> np.ndarray:
    """Morphological closing: ``steps`` dilations, then as many erosions."""
    for _ in range(steps):
        grid = _shift_any(grid)
    for _ in range(steps):
        grid = ~_shift_any(~grid)
    return grid


def reach_path(chain: Chain) -> str:
    """The reachable set of a limited chain as SVG path data: one rectangle per run of
    occupied cells in each row (sampled; see the module docstring). Empty when free.
    """
    if chain.limits is None:
        return ""
    lengths = tuple(float(v) for v in chain.lengths)
    limits = tuple((float(lo), float(hi)) for lo, hi in chain.limits)
    occupied, half = _reach_cells(lengths, limits)
    parts = []
    for row in range(occupied.shape[0]):
        line = occupied[row]
        if not line.any():
            continue
        padded = np.concatenate(([False], line, [False]))
        edges = np.flatnonzero(padded[1:] != padded[:-1])
        y = row * CELL - half
        for start, stop in zip(edges[::2], edges[1::2], strict=True):
            x = start * CELL - half
            width = _f((stop - start) * CELL)
            parts.append(f"M{_f(x)} {_f(y)}h{width}v{_f(CELL)}h-{width}z")
    return "".join(parts)


def limits_view(chain: Chain, angles: Any) -> dict[str, Any] | None:
    """What a frame of a limited chain adds for the page: the arcs at its joints."""
    if chain.limits is None:
        return None
    return {"arcs": arcs_from_pose(chain, angles)}
