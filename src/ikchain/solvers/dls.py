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

Two implementations of the one iteration, operation for operation: :func:`make_step`
over a batch (columns of numpy arrays), run by :func:`ikchain.solvers.loop.iterate`,
and :func:`make_step_one` for one target in plain Python floats, run by its scalar
twin :func:`ikchain.solvers.loop.iterate_one` (the loop, not the step, owns the
budget, the stop rules and the trace in both). A single solve through
:func:`ikchain.solve` uses the second: numpy's per-call overhead (some 0.5 µs a call,
about 60 calls an iteration) is a hundred times the arithmetic of a two-to-eight-bone
chain. ``tests/test_perf_twins.py`` holds the two to the same
numbers. Sums run joint by joint in both (not ``np.sum``/``einsum``, whose order
differs), ``cos``/``sin``/``sqrt`` are libm's in both, and the one ``atan2`` is
libm's in both too: :func:`atan2` reads it off numpy's complex ``log`` (libm's
``clog``), since numpy's own SIMD ``arctan2`` differs from libm's in the last bit.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

#: λ² per squared metre of end error.
ERROR_WEIGHT = 0.03
#: Constant part of λ², relative to (sum of lengths)².
BIAS = 1e-9
#: Retries with larger damping when a step would raise the error.
RETRIES = 6


def atan2(y: FloatArray, x: FloatArray) -> FloatArray:
    """libm's ``atan2`` over arrays: the argument of ``x + iy`` from libm's ``clog``.

    Equal to :func:`math.atan2` to the bit, signed zeros included (numpy's SIMD
    ``np.arctan2`` is not, in one case out of thirteen); 30 ns a value against 2.
    """
    z = np.empty(y.shape, dtype=np.complex128)
    z.real = x
    z.imag = y
    with np.errstate(divide="ignore", invalid="ignore"):  # log(0) = -inf: real part only
        return np.log(z).imag


def _fk(lengths: list[float], angles: FloatArray) -> tuple[list, list]:
    """Joint positions as columns: ``xs[i]``, ``ys[i]`` for joints 1..n (tip last)."""
    absolute = np.cumsum(angles, axis=1)
    cos, sin = np.cos(absolute), np.sin(absolute)
    xs, ys = [], []
    x = y = None
    for i, length in enumerate(lengths):
        dx, dy = length * cos[:, i], length * sin[:, i]
        x = dx if x is None else x + dx
        y = dy if y is None else y + dy
        xs.append(x)
        ys.append(y)
    return xs, ys


def make_step(lengths: FloatArray, damping: float, limits: FloatArray | None):
    """A damped least-squares iteration for the shared loop.

    ``damping`` here is the fraction of each step taken, as for CCD; the
    Levenberg-Marquardt λ is chosen by the solver itself. The step returns the tip
    of the new pose with it (the loop's error), computed on the way.
    """
    bias = BIAS * float(np.sum(lengths)) ** 2
    lengths_list = lengths.tolist()

    def clip(angles: FloatArray) -> FloatArray:
        if limits is None:
            return angles
        return np.clip(angles, limits[:, 0], limits[:, 1])

    def error2(angles: FloatArray, tx: FloatArray, ty: FloatArray):
        xs, ys = _fk(lengths_list, angles)
        gx, gy = tx - xs[-1], ty - ys[-1]
        return gx * gx + gy * gy, xs, ys

    def step(
        angles: FloatArray, target: FloatArray, memory: FloatArray | None
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        # memory: the joints of the current pose, columns x1..xn, y1..yn (start_memory)
        if memory is None:
            memory = start_memory(angles)
        tx, ty = target[:, 0], target[:, 1]
        ex, ey = memory[:, n - 1], memory[:, 2 * n - 1]
        gx, gy = tx - ex, ty - ey
        start2 = gx * gx + gy * gy
        # Turn joint 0 (times damping) so that the tip points at the target.
        turn = atan2(ex * ty - ey * tx, ex * tx + ey * ty)  # 0 when tip or target is at the root
        aimed = angles.copy()
        aimed[:, 0] += turn if damping == 1.0 else damping * turn
        aimed = clip(aimed)
        # The aimed pose's joints: the current ones turned about the root.
        turned = aimed[:, 0] - angles[:, 0]
        cos, sin = np.cos(turned), np.sin(turned)
        xs = [cos * memory[:, i] - sin * memory[:, n + i] for i in range(n)]
        ys = [sin * memory[:, i] + cos * memory[:, n + i] for i in range(n)]
        tipx, tipy = xs[-1], ys[-1]
        errx, erry = tx - tipx, ty - tipy
        damping2 = ERROR_WEIGHT * (errx * errx + erry * erry) + bias
        # Jacobian columns: joint i turns the tip perpendicular to the line joint i -> tip.
        jx = [-tipy] + [-(tipy - y) for y in ys[:-1]]
        jy = [tipx] + [tipx - x for x in xs[:-1]]
        sxx = sxy = syy = None
        for cx, cy in zip(jx, jy, strict=True):
            xx, xy, yy = cx * cx, cx * cy, cy * cy
            sxx = xx if sxx is None else sxx + xx
            sxy = xy if sxy is None else sxy + xy
            syy = yy if syy is None else syy + yy

        def candidate(rows, damping2):
            a = sxx[rows] + damping2
            b = sxy[rows]
            c = syy[rows] + damping2
            ex_, ey_ = errx[rows], erry[rows]
            det = a * c - b * b  # > 0: λ² > 0 keeps the matrix positive definite
            yx = (c * ex_ - b * ey_) / det
            yy = (a * ey_ - b * ex_) / det
            new = aimed[rows].copy()
            for i in range(n):
                turn_i = jx[i][rows] * yx + jy[i][rows] * yy
                new[:, i] += turn_i if damping == 1.0 else damping * turn_i
            return clip(new)

        every = slice(None)
        new = candidate(every, damping2)
        new2, nxs, nys = error2(new, tx, ty)
        new_memory = np.concatenate([np.stack(nxs, axis=-1), np.stack(nys, axis=-1)], axis=-1)
        worse = np.flatnonzero(new2 > start2)
        for _ in range(RETRIES):
            if worse.size == 0:
                break
            damping2[worse] *= 10.0
            retry = candidate(worse, damping2[worse])
            retry2, rxs, rys = error2(retry, tx[worse], ty[worse])
            new[worse] = retry
            new_memory[worse] = np.concatenate(
                [np.stack(rxs, axis=-1), np.stack(rys, axis=-1)], axis=-1
            )
            worse = worse[retry2 > start2[worse]]
        # no step helped: stay (the loop reports a stall)
        new[worse], new_memory[worse] = angles[worse], memory[worse]
        end = np.stack((new_memory[:, n - 1], new_memory[:, 2 * n - 1]), axis=-1)
        return new, new_memory, end

    def start_memory(angles: FloatArray) -> FloatArray:
        """The loop's starting memory: the joints of the start poses."""
        xs, ys = _fk(lengths_list, angles)
        return np.concatenate([np.stack(xs, axis=-1), np.stack(ys, axis=-1)], axis=-1)

    n = len(lengths_list)
    step.start_memory = start_memory
    return step


def make_step_one(
    lengths: list[float],
    total_length: float,
    damping: float,
    limits: list[tuple[float, float]] | None,
):
    """:func:`make_step`'s iteration for one target in Python floats, operation for operation.

    A step for :func:`ikchain.solvers.loop.iterate_one`. ``total_length`` is
    ``float(np.sum(lengths))`` as :func:`make_step` takes it (the chain's outer
    radius). The step is written flat (no helper calls inside) because each Python
    call costs what ten of its floating-point operations do.
    """
    n = len(lengths)
    moving = range(1, n + 1)
    every = range(n)
    bias = BIAS * total_length**2
    lows = highs = None
    if limits is not None:
        lows = [low for low, _ in limits]
        highs = [high for _, high in limits]
    full_step = damping == 1.0
    cos, sin, atan2 = math.cos, math.sin, math.atan2

    def step_one(
        angles: list[float], pxs: list[float], pys: list[float], tx: float, ty: float
    ) -> tuple[list[float], list[float], list[float]]:
        ex, ey = pxs[n], pys[n]
        gx, gy = tx - ex, ty - ey
        start2 = gx * gx + gy * gy
        # Turn joint 0 (times damping) so that the tip points at the target.
        turn = atan2(ex * ty - ey * tx, ex * tx + ey * ty)
        aimed = list(angles)
        aimed[0] += turn if full_step else damping * turn
        if lows is not None:  # np.clip with array bounds: a bound wins a tie
            for i in every:
                value = aimed[i]
                value = value if value > lows[i] else lows[i]
                aimed[i] = value if value < highs[i] else highs[i]
        # The aimed pose's joints 1..n: the current ones turned about the root.
        turned = aimed[0] - angles[0]
        rc, rs = cos(turned), sin(turned)
        xs = [rc * pxs[i] - rs * pys[i] for i in moving]
        ys = [rs * pxs[i] + rc * pys[i] for i in moving]
        x, y = xs[-1], ys[-1]
        errx, erry = tx - x, ty - y
        damping2 = ERROR_WEIGHT * (errx * errx + erry * erry) + bias
        # Jacobian columns: joint i turns the tip perpendicular to the line joint i -> tip.
        jx = [-y] * n
        jy = [x] * n
        for i in range(1, n):
            jx[i] = -(y - ys[i - 1])
            jy[i] = x - xs[i - 1]
        cx, cy = jx[0], jy[0]
        sxx, sxy, syy = cx * cx, cx * cy, cy * cy
        for i in range(1, n):
            cx, cy = jx[i], jy[i]
            sxx += cx * cx
            sxy += cx * cy
            syy += cy * cy
        for attempt in range(RETRIES + 1):
            if attempt:
                damping2 *= 10.0
            a = sxx + damping2
            c = syy + damping2
            det = a * c - sxy * sxy
            yx = (c * errx - sxy * erry) / det
            yy = (a * erry - sxy * errx) / det
            new = list(aimed)
            for i in every:
                turn_i = jx[i] * yx + jy[i] * yy
                new[i] += turn_i if full_step else damping * turn_i
            if lows is not None:
                for i in every:
                    value = new[i]
                    value = value if value > lows[i] else lows[i]
                    new[i] = value if value < highs[i] else highs[i]
            # the new pose's joints (joints_one, inline)
            absolute = new[0]
            nx, ny = lengths[0] * cos(absolute), lengths[0] * sin(absolute)
            nxs, nys = [0.0, nx], [0.0, ny]
            for i in range(1, n):
                absolute += new[i]
                nx += lengths[i] * cos(absolute)
                ny += lengths[i] * sin(absolute)
                nxs.append(nx)
                nys.append(ny)
            gx, gy = tx - nx, ty - ny
            if not gx * gx + gy * gy > start2:
                return new, nxs, nys
        return angles, pxs, pys  # no step helped: stay (the loop reports a stall)

    return step_one
