"""Section 2.5's outcome map: where CCD and damped least squares end, over targets.

For every cell of a square raster over the 2.5 figure's view, the library solves the
cell's centre from the figure's start pose with the figure's budget (one batch solve
per method) and the cell is coloured by how that solve ended:

- ``out``: no pose within the limits reaches the centre (the library's ``min_error``
  is above 0; it is exact under limits);
- ``reached``: the solve converged;
- ``stuck``: a pose within the limits reaches it, but the solve stopped short
  (stalled, or out of iterations).

Nothing here decides an outcome: the classes are the library's ``min_error`` and
``status``. The drawing is server-side SVG, cells merged into rectangles as in
:func:`ikchain.lesson.limits.reach_path`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from html import escape
from typing import Any

import numpy as np

from ikchain.chain import Chain
from ikchain.lesson import precomputed
from ikchain.solvers import solve

#: The methods the map compares, left to right.
OUTCOME_METHODS = ("ccd", "dls")
#: Side of one cell (m).
MAP_CELL = 0.02
#: The outcomes, in legend order, and their colours.
OUTCOMES = ("reached", "stuck", "out")
COLOURS = {"reached": "#2f855a", "stuck": "#dd6b20", "out": "#cbd5e0"}
#: Pixel size of one panel in the SVG's own units, and of one legend row.
PANEL = 300
LEGEND_ROW = 30
#: The legend's text size in the SVG's units: the map is drawn about 360 px wide on a
#: 390 px phone (0.57 of its 624 units), where 20 units read as 11.5 px.
LEGEND_FONT = 20


@dataclass(frozen=True)
class OutcomeMap:
    """The outcome of every cell centre, per method: ``codes[method][row, col]`` is an
    index into :data:`OUTCOMES`, or -1 for cells outside the drawn disc."""

    half: float
    cell: float
    codes: dict[str, np.ndarray]
    iterations: int
    tolerance: float

    def counts(self, method: str) -> dict[str, int]:
        grid = self.codes[method]
        return {name: int(np.sum(grid == k)) for k, name in enumerate(OUTCOMES)}

    def outcome_at(self, method: str, target: Any) -> str:
        """The outcome of the cell holding ``target`` (m)."""
        col, row = (int((float(v) + self.half) // self.cell) for v in target)
        return OUTCOMES[int(self.codes[method][row, col])]

    def centre(self, row: int, col: int) -> tuple[float, float]:
        return (-self.half + (col + 0.5) * self.cell, -self.half + (row + 0.5) * self.cell)


def outcome_map(chain: Chain, iterations: int, tolerance: float, damping: float) -> OutcomeMap:
    """The map for ``chain`` (with limits), solved from the default start pose."""
    if chain.limits is None:
        raise ValueError("outcome_map: expected a chain with joint limits, got a free chain")
    lengths = tuple(float(v) for v in chain.lengths)
    bounds = tuple((float(lo), float(hi)) for lo, hi in chain.limits)
    return _outcome_map(lengths, bounds, int(iterations), float(tolerance), float(damping))


@precomputed.ahead(OutcomeMap)  # while the kernels compile, from the store
@functools.lru_cache(maxsize=4)
def _outcome_map(
    lengths: tuple[float, ...],
    bounds: tuple[tuple[float, float], ...],
    iterations: int,
    tolerance: float,
    damping: float,
) -> OutcomeMap:
    chain = Chain(lengths, np.array(bounds))
    outer = chain.outer_radius
    cell = MAP_CELL
    half = math.ceil(outer / cell) * cell
    size = round(2 * half / cell)
    axis = -half + (np.arange(size) + 0.5) * cell
    xs, ys = np.meshgrid(axis, axis)
    centres = np.stack([xs, ys], axis=-1).reshape(-1, 2)
    drawn = np.hypot(centres[:, 0], centres[:, 1]) <= outer
    targets = centres[drawn]
    out = np.asarray(solve(chain, targets, "ccd", max_iterations=0).min_error) > 0.0
    codes: dict[str, np.ndarray] = {}
    for method in OUTCOME_METHODS:
        options: dict[str, Any] = {"max_iterations": iterations, "tolerance": tolerance}
        if method != "fabrik":
            options["damping"] = damping
        found = solve(chain, targets, method, **options)
        reached = np.asarray(found.status).astype(str) == "converged"
        code = np.where(out, 2, np.where(reached, 0, 1))
        grid = np.full(size * size, -1, dtype=np.int8)
        grid[drawn] = code
        codes[method] = grid.reshape(size, size)
    return OutcomeMap(half, cell, codes, iterations, tolerance)


def runs_path(mask: np.ndarray) -> str:
    """SVG path data in cell units (column, row): a rectangle per run of set cells in
    a row, runs repeated in the rows above merged into one taller rectangle."""
    parts: list[str] = []
    open_runs: dict[tuple[int, int], int] = {}
    for row in range(mask.shape[0] + 1):
        runs: set[tuple[int, int]] = set()
        if row < mask.shape[0] and mask[row].any():
            padded = np.concatenate(([False], mask[row], [False]))
            edges = np.flatnonzero(padded[1:] != padded[:-1])
            runs = {(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)}
        for start, stop in sorted(set(open_runs) - runs):
            first = open_runs.pop((start, stop))
            parts.append(f"M{start} {first}h{stop - start}v{row - first}h-{stop - start}z")
        for run in sorted(runs - set(open_runs)):
            open_runs[run] = row
    return "".join(parts)


def _n(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".")


def svg_from_map(
    found: OutcomeMap,
    chain: Chain,
    labels: dict[str, str],
    *,
    map_id: str,
    target: Any = None,
) -> str:
    """The map as SVG: one panel per method (``labels["method_<m>"]``), a legend
    (``labels[<outcome>]``), the dashed outer circle, the root and, when given, the
    figure's default target as a ring. ``labels["title"]`` names the picture and
    ``labels["desc"]`` describes it in words."""
    gap, top, legend = 24, 30, 12 + LEGEND_ROW * len(OUTCOMES)
    width = 2 * PANEL + gap
    height = top + PANEL + legend
    size = found.codes[OUTCOME_METHODS[0]].shape[0]
    scale = PANEL / size  # px a cell
    px_per_m = PANEL / (2 * found.half)
    out = [
        f'<svg class="ik-chart outcome-map" id="{map_id}-svg" viewBox="0 0 {width} {height}" '
        f'role="img" aria-labelledby="{map_id}-title {map_id}-desc">',
        f'<title id="{map_id}-title">{escape(labels["title"])}</title>',
        f'<desc id="{map_id}-desc">{escape(labels["desc"])}</desc>',
    ]
    for k, method in enumerate(OUTCOME_METHODS):
        x0 = k * (PANEL + gap)
        cx, cy = x0 + PANEL / 2, top + PANEL / 2
        out.append(
            f'<text class="axis-label" x="{_n(cx)}" y="{top - 10}" text-anchor="middle">'
            f"{escape(labels[f'method_{method}'])}</text>"
        )
        out.append(
            f'<rect x="{x0}" y="{top}" width="{PANEL}" height="{PANEL}" fill="#fff" '
            'stroke="#a0aec0" stroke-width="1"/>'
        )
        # cell units, row 0 at the bottom: flip y about the panel
        out.append(
            f'<g class="outcome-cells" data-method="{method}" '
            f'transform="translate({x0} {top + PANEL}) scale({_n(scale)} {_n(-scale)})">'
        )
        grid = found.codes[method]
        for code, name in enumerate(OUTCOMES):
            path = runs_path(grid == code)
            if path:
                out.append(
                    f'<path class="outcome-{name}" d="{path}" fill="{COLOURS[name]}" '
                    'shape-rendering="crispEdges"/>'
                )
        out.append("</g>")
        radius = chain.outer_radius * px_per_m
        out.append(
            f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(radius)}" fill="none" stroke="#4a5568" '
            'stroke-width="1.2" stroke-dasharray="5 4"/>'
        )
        out.append(f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="4" fill="#1a202c"/>')
        if target is not None:
            tx, ty = cx + float(target[0]) * px_per_m, cy - float(target[1]) * px_per_m
            out.append(
                f'<circle class="outcome-target" cx="{_n(tx)}" cy="{_n(ty)}" r="6" '
                'fill="none" stroke="#1a202c" stroke-width="2"/>'
            )
    for k, name in enumerate(OUTCOMES):  # one row each: no text width to guess
        y = top + PANEL + 28 + k * LEGEND_ROW
        out.append(
            f'<rect x="0" y="{y - 17}" width="20" height="20" fill="{COLOURS[name]}" '
            'stroke="#4a5568" stroke-width="0.8"/>'
        )
        out.append(
            f'<text class="legend-text" x="28" y="{y}" font-size="{LEGEND_FONT}">'
            f"{escape(labels[name])}</text>"
        )
    out.append("</svg>")
    return "\n".join(out)
