"""An independent oracle for the reach of a planar chain under joint limits.

Nothing here comes from :mod:`ikchain`: forward kinematics, the search and the
refinement are written out in numpy alone, so that the library's ``min_error`` can be
checked against a pose that exists.

The answer of :func:`least_distance` is always an *upper bound* on the least distance
from the target to the reachable set W: it is the distance of a real pose inside the
limit box. A dense grid over the box finds the basin of the least distance; a projected
(modified) Newton refinement from the grid's best local minima then drives the distance
down to rounding (about 1e-15 m for a reachable target, about 1e-12 m or better for an
unreachable one, where the distance is stationary in the free angles).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]

#: Poses evaluated at once on the grid (bounds the memory of the FK arrays).
CHUNK = 1 << 16
#: Grid points per joint for chains of up to three bones.
SMALL_PER_AXIS = 40
#: Grid points in all, at most, for longer chains (25 per joint for four bones).
LARGE_GRID = 400_000
#: Grid local minima refined, best first.
SEEDS = 12
#: Newton iterations per seed, at most.
ITERATIONS = 200


def tips(lengths: FloatArray, angles: FloatArray) -> FloatArray:
    """Tip positions, shape (..., 2), of relative joint angles of shape (..., n).

    Parameters
    ----------
    lengths : array, shape (n,)
        Bone lengths (m).
    angles : array, shape (..., n)
        Relative joint angles (rad); joint 0 from +x.

    Returns
    -------
    array, shape (..., 2)
    """
    absolute = np.cumsum(angles, axis=-1)
    x = (lengths * np.cos(absolute)).sum(axis=-1)
    y = (lengths * np.sin(absolute)).sum(axis=-1)
    return np.stack((x, y), axis=-1)


def grid_per_axis(n: int) -> int:
    """Grid points per joint: 40 up to three bones, then ``LARGE_GRID ** (1/n)`` (>= 4)."""
    if n <= 3:
        return SMALL_PER_AXIS
    return max(4, math.floor(LARGE_GRID ** (1.0 / n) + 1e-9))


def grid_distances(
    lengths: FloatArray, low: FloatArray, high: FloatArray, target: FloatArray, per_axis: int
) -> tuple[FloatArray, list[FloatArray]]:
    """Distance from ``target`` to the tip at every point of a regular grid over the box.

    Parameters
    ----------
    lengths, low, high : array, shape (n,)
        Bone lengths (m) and the limit box (rad).
    target : array, shape (2,)
        The target (m).
    per_axis : int
        Grid points per joint, endpoints included.

    Returns
    -------
    distances : array, shape (per_axis,) * n
        ``distances[i0, ..., i_{n-1}]`` is the distance at ``(axes[0][i0], ...)``.
    axes : list of array, shape (per_axis,)
        The grid's coordinates per joint.
    """
    n = lengths.size
    axes = [np.linspace(lo, hi, per_axis) for lo, hi in zip(low, high, strict=True)]
    shape = (per_axis,) * n
    total = per_axis**n
    distances = np.empty(total)
    for start in range(0, total, CHUNK):
        index = np.arange(start, min(start + CHUNK, total))
        parts = np.unravel_index(index, shape)
        angles = np.stack([axes[j][parts[j]] for j in range(n)], axis=-1)
        offset = tips(lengths, angles) - target
        distances[start : start + index.size] = np.hypot(offset[:, 0], offset[:, 1])
    return distances.reshape(shape), axes


def _grid_minima(distances: FloatArray, count: int) -> list[tuple[int, ...]]:
    """Indices of the ``count`` lowest grid points that no axis neighbour beats."""
    is_min = np.ones(distances.shape, dtype=bool)
    padded = np.pad(distances, 1, constant_values=np.inf)
    centre = tuple(slice(1, -1) for _ in range(distances.ndim))
    for axis in range(distances.ndim):
        for shift in (-1, 1):
            neighbour = list(centre)
            neighbour[axis] = slice(1 + shift, padded.shape[axis] - 1 + shift)
            is_min &= distances <= padded[tuple(neighbour)]
    flat = np.flatnonzero(is_min)
    best = flat[np.argsort(distances.ravel()[flat], kind="stable")[:count]]
    return [tuple(int(i) for i in np.unravel_index(k, distances.shape)) for k in best]


def _half_squared(
    lengths: FloatArray, target: FloatArray, theta: FloatArray
) -> tuple[float, FloatArray, FloatArray, FloatArray]:
    """``f = |tip - target|² / 2`` with its gradient and Hessian in the angles.

    With ``c_k = L_k cos a_k``, ``s_k = L_k sin a_k`` and ``C_j = Σ_{k>=j} c_k`` (likewise
    ``S_j``): ``∂tip/∂θ_j = (-S_j, C_j)`` and ``∂²tip/∂θ_j∂θ_m = -(C_p, S_p)``, with
    ``p = max(j, m)``.

    Returns
    -------
    f : float
    residual : array, shape (2,)
    gradient : array, shape (n,)
    hessian : array, shape (n, n)
    """
    absolute = np.cumsum(theta)
    c = lengths * np.cos(absolute)
    s = lengths * np.sin(absolute)
    tail_c = np.cumsum(c[::-1])[::-1]
    tail_s = np.cumsum(s[::-1])[::-1]
    residual = np.array([c.sum(), s.sum()]) - target
    jacobian = np.stack((-tail_s, tail_c))  # (2, n)
    gradient = jacobian.T @ residual
    n = theta.size
    later = np.maximum.outer(np.arange(n), np.arange(n))
    curvature = -(residual[0] * tail_c[later] + residual[1] * tail_s[later])
    hessian = jacobian.T @ jacobian + curvature
    return 0.5 * float(residual @ residual), residual, gradient, hessian


def refine(
    lengths: FloatArray,
    low: FloatArray,
    high: FloatArray,
    target: FloatArray,
    theta: FloatArray,
    iterations: int = ITERATIONS,
) -> tuple[float, FloatArray]:
    """Projected Newton descent of the distance, from ``theta``, inside the box.

    Each step fixes the joints that sit on a bound with the gradient pushing outward,
    takes a Newton step in the others (the Hessian's eigenvalues replaced by their
    absolute values, floored, so that the step always descends), clips to the box and
    halves the step until the distance falls. When no Newton step helps, a projected
    gradient step is tried; when neither lowers the distance, small turns of each joint
    both ways are probed (a stationary point may be a saddle), and the descent ends
    when none of those lowers it either.

    Parameters
    ----------
    lengths, low, high : array, shape (n,)
        Bone lengths (m) and the limit box (rad).
    target : array, shape (2,)
        The target (m).
    theta : array, shape (n,)
        Start pose inside the box (rad).
    iterations : int
        Steps at most.

    Returns
    -------
    distance : float
        Distance of the final pose's tip to the target (m).
    theta : array, shape (n,)
        The final pose, inside the box.
    """
    theta = np.clip(np.array(theta, dtype=np.float64), low, high)
    scale = float(lengths.sum()) ** 2
    f, _, gradient, hessian = _half_squared(lengths, target, theta)
    for _ in range(iterations):
        if f == 0.0:
            break
        pinned = ((theta <= low) & (gradient > 0.0)) | ((theta >= high) & (gradient < 0.0))
        free = ~pinned
        if not free.any():
            break
        g = gradient[free]
        values, vectors = np.linalg.eigh(hessian[np.ix_(free, free)])
        values = np.maximum(np.abs(values), 1e-12 * scale)
        newton = np.zeros_like(theta)
        newton[free] = -(vectors @ ((vectors.T @ g) / values))
        descent = np.zeros_like(theta)
        descent[free] = -g / (scale + 1e-300)
        moved = False
        for direction in (newton, descent):
            step = 1.0
            for _ in range(60):
                trial = np.clip(theta + step * direction, low, high)
                f_trial, _, g_trial, h_trial = _half_squared(lengths, target, trial)
                if f_trial < f:
                    theta, f, gradient, hessian = trial, f_trial, g_trial, h_trial
                    moved = True
                    break
                step *= 0.5
            if moved:
                break
        if not moved:
            # A stationary point need not be a minimum (a saddle: the tip folded onto
            # the root with a joint at its bound, say): probe small turns of each joint
            # both ways, inside the box, and go on from the best that lowers f.
            best = None
            for probe in (1e-3, 1e-5):
                for k in range(theta.size):
                    for sign in (-1.0, 1.0):
                        trial = theta.copy()
                        trial[k] = np.clip(trial[k] + sign * probe, low[k], high[k])
                        found = _half_squared(lengths, target, trial)
                        if found[0] < f and (best is None or found[0] < best[0][0]):
                            best = (found, trial)
                if best is not None:
                    break
            if best is None:
                break
            (f, _, gradient, hessian), theta = best
    offset = tips(lengths, theta) - target
    return float(np.hypot(offset[0], offset[1])), theta


def least_distance(
    lengths: ArrayLike,
    limits: ArrayLike,
    target: ArrayLike,
    *,
    per_axis: int | None = None,
    seeds: int = SEEDS,
) -> tuple[float, FloatArray]:
    """Least distance from ``target`` to the tips a limited chain can reach: an upper bound.

    Parameters
    ----------
    lengths : array_like, shape (n,)
        Bone lengths (m), each > 0.
    limits : array_like, shape (n, 2)
        ``(min, max)`` of each relative joint angle (rad), min <= max.
    target : array_like, shape (2,)
        The target (m).
    per_axis : int, optional
        Grid points per joint. Default :func:`grid_per_axis` (40 up to three bones,
        25 for four).
    seeds : int
        Grid local minima refined, best first.

    Returns
    -------
    distance : float
        Distance (m) from the target to the tip of ``angles``: never below the true
        least distance, and equal to it to about 1e-12 m when the grid found its basin.
    angles : array, shape (n,)
        A pose inside the limits with that distance.
    """
    lengths = np.asarray(lengths, dtype=np.float64).reshape(-1)
    box = np.asarray(limits, dtype=np.float64).reshape(lengths.size, 2)
    low, high = box[:, 0].copy(), box[:, 1].copy()
    point = np.asarray(target, dtype=np.float64).reshape(2)
    if np.any(low > high):
        raise ValueError(f"limits: expected min <= max, got {box.tolist()}")
    count = grid_per_axis(lengths.size) if per_axis is None else per_axis
    distances, axes = grid_distances(lengths, low, high, point, count)
    best_distance, best_angles = math.inf, np.empty(0)
    for index in _grid_minima(distances, seeds):
        start = np.array([axes[j][i] for j, i in enumerate(index)])
        distance, angles = refine(lengths, low, high, point, start)
        if distance < best_distance:
            best_distance, best_angles = distance, angles
    return best_distance, best_angles
