"""Server-drawn SVG for the replay, the moving targets and section 2.5.

Like :mod:`ikchain.lesson.figures`, these functions only *place* numbers the solver
produced; nothing here does kinematics. The page's scripts never compute a chart
coordinate either: every chart comes with the pixel position of each point the
script may need to mark (:meth:`ErrorChart.place`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from ikchain.lesson.figures import METHOD_COLOURS

#: Error chart canvas in SVG pixels, and its plot margins (left, right, top, bottom).
#: Narrow enough that its 15-px labels stay legible when a phone shrinks it to ~360 px.
ERROR_CHART_SIZE = (480, 250)
ERROR_CHART_MARGIN = (80, 14, 14, 46)
#: Smallest error the log scale shows; a smaller one (an exact 0) sits on the floor.
ERROR_FLOOR = 1e-16

#: Colours of series that are not methods (warm / cold start, rest weights, …).
SERIES_COLOURS = ("#c2571a", "#2b6cb0", "#2f855a", "#805ad5", "#555")


def _f(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _colour(key: str, index: int) -> str:
    return METHOD_COLOURS.get(key) or SERIES_COLOURS[index % len(SERIES_COLOURS)]


@dataclass(frozen=True)
class ErrorChart:
    """An error-against-step chart: its SVG and the map from data to pixels."""

    svg: str
    x_range: tuple[float, float]
    decades: tuple[int, int]
    box: tuple[float, float, float, float]  # left, top, width, height (px)

    def place(self, x: float, error: float) -> tuple[float, float]:
        """Pixel position of the point (x, error)."""
        left, top, width, height = self.box
        x_lo, x_hi = self.x_range
        lo, hi = self.decades
        value = math.log10(max(float(error), ERROR_FLOOR, 10.0**lo))
        px = left + (float(x) - x_lo) / (x_hi - x_lo) * width
        py = top + (1.0 - (value - lo) / (hi - lo)) * height
        return px, py


def error_chart(
    series: Sequence[Mapping[str, Any]],
    *,
    x_label: str,
    y_label: str,
    title: str,
    chart_id: str,
    x_max: float | None = None,
) -> ErrorChart:
    """A log-scale chart of error (m) against a step count, one polyline per series.

    Parameters
    ----------
    series : sequence of mappings
        ``key`` (a method name picks its colour), ``label`` and ``points``, a list of
        ``(x, error)``. Errors below :data:`ERROR_FLOOR` (exact zeros) sit on it.
    x_label, y_label, title, chart_id : str
        Axis labels, accessible title, id prefix.
    x_max : float, optional
        Right end of the x axis; default the largest x (at least 1).
    """
    width, height = ERROR_CHART_SIZE
    left, right, top, bottom = ERROR_CHART_MARGIN
    plot_w, plot_h = width - left - right, height - top - bottom
    xs = [float(x) for s in series for x, _ in s["points"]]
    errors = [float(e) for s in series for _, e in s["points"] if math.isfinite(float(e))]
    if not xs:
        raise ValueError("chart: expected at least one point, got none")
    x_hi = max(1.0, max(xs) if x_max is None else float(x_max))
    positive = [e for e in errors if e >= ERROR_FLOOR]
    lo = math.floor(math.log10(min(positive))) if positive else -16
    hi = math.ceil(math.log10(max(positive))) if positive else 0
    if hi <= lo:
        hi = lo + 1
    if any(e < ERROR_FLOOR for e in errors):
        lo = min(lo, -16)
    chart = ErrorChart("", (0.0, x_hi), (lo, hi), (left, top, plot_w, plot_h))

    cid = escape(chart_id, quote=True)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="ik-chart error-chart" '
        f'data-chart="{cid}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title, quote=True)}">',
        f"<title>{escape(title)}</title>",
        f'<rect class="plot" x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" '
        'fill="#fcfcfa" stroke="#bbb"/>',
    ]
    span = hi - lo
    every = 1 if span <= 5 else 2 if span <= 10 else 4
    for power in range(lo, hi + 1):
        _, y = chart.place(0.0, 10.0**power)
        out.append(
            f'<line class="grid" x1="{left}" y1="{_f(y)}" x2="{left + plot_w}" y2="{_f(y)}" '
            'stroke="#e4e4e4"/>'
        )
        if (hi - power) % every == 0:
            label = "1" if power == 0 else f"1e{power}"
            out.append(
                f'<text class="tick" x="{left - 6}" y="{_f(y + 5)}" '
                f'text-anchor="end">{label}</text>'
            )
    step = _nice_step(x_hi)
    tick = 0.0
    while tick <= x_hi + 1e-9:
        x, _ = chart.place(tick, 1.0)
        out.append(
            f'<text class="tick" x="{_f(x)}" y="{top + plot_h + 19}" text-anchor="middle">'
            f"{tick:g}</text>"
        )
        tick += step
    out.append(
        f'<text class="axis-label" x="{_f(left + plot_w / 2)}" y="{height - 6}" '
        f'text-anchor="middle">{escape(x_label)}</text>'
    )
    out.append(
        f'<text class="axis-label" transform="translate(18 {_f(top + plot_h / 2)}) rotate(-90)" '
        f'text-anchor="middle">{escape(y_label)}</text>'
    )
    for index, s in enumerate(series):
        key = str(s.get("key", ""))
        colour = _colour(key, index)
        placed = [
            chart.place(x, e) for x, e in s["points"] if e is not None and math.isfinite(float(e))
        ]
        points = " ".join(f"{_f(x)},{_f(y)}" for x, y in placed)
        out.append(
            f'<polyline class="series" data-series="{escape(key, quote=True)}" points="{points}" '
            f'fill="none" stroke="{colour}" stroke-width="2" stroke-linejoin="round"/>'
        )
    if len(series) > 1:
        out.extend(_legend(series, left + plot_w - 8, top + 8))
    # The cursor the page's script moves to the step it shows (hidden without it).
    out.append(
        f'<line class="cursor" x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" '
        'stroke="#c53030" stroke-width="1.5" visibility="hidden"/>'
    )
    out.append(
        f'<circle class="cursor-dot" cx="{left}" cy="{top}" r="4.5" fill="#c53030" '
        'visibility="hidden"/>'
    )
    out.append("</svg>")
    return ErrorChart("\n".join(out), chart.x_range, chart.decades, chart.box)


def _legend(series: Sequence[Mapping[str, Any]], right: float, y0: float) -> list[str]:
    """A legend card in the plot's upper-right corner."""
    longest = max(len(str(s.get("label", ""))) for s in series)
    width, row = 40 + 8.4 * longest, 20
    x0 = right - width
    out = [
        f'<rect class="legend-card" x="{_f(x0)}" y="{y0}" width="{_f(width)}" '
        f'height="{row * len(series) + 6}" rx="4" fill="#fff" fill-opacity="0.9" stroke="#ddd"/>'
    ]
    for index, s in enumerate(series):
        key = str(s.get("key", ""))
        ly = y0 + 14 + row * index
        out.append(
            f'<g class="legend" data-series="{escape(key, quote=True)}">'
            f'<line x1="{_f(x0 + 8)}" y1="{ly}" x2="{_f(x0 + 28)}" y2="{ly}" '
            f'stroke="{_colour(key, index)}" stroke-width="3"/>'
            f'<text x="{_f(x0 + 34)}" y="{ly + 5}">{escape(str(s.get("label", key)))}</text></g>'
        )
    return out


def _nice_step(span: float, ticks: int = 5) -> float:
    raw = span / ticks
    power = 10.0 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
    for factor in (1.0, 2.0, 5.0, 10.0):
        if raw <= factor * power:
            return max(1.0, factor * power)
    return max(1.0, 10.0 * power)
