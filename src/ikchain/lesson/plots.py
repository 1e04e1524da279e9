"""Server-drawn SVG for the replay, the moving targets and section 2.5.

Like :mod:`ikchain.lesson.figures`, these functions only *place* numbers the solver
produced; nothing here does kinematics. The page's scripts never compute a chart
coordinate either: every chart comes with the pixel position of each point the
script may need to mark (:meth:`ErrorChart.place`).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import numpy as np

from ikchain.lesson.figures import METHOD_COLOURS, STYLE, _num, view_extent

#: Error chart canvas in SVG pixels, and its plot margins (left, right, top, bottom).
#: Narrow enough that its 17-px labels stay ~14 px when a phone shrinks it to ~340 px.
ERROR_CHART_SIZE = (420, 250)
ERROR_CHART_MARGIN = (80, 14, 14, 46)
#: Smallest error the log scale shows; a smaller one (an exact 0) sits on the floor.
ERROR_FLOOR = 1e-16
#: Height of the legend row above the plot, when there are two series or more (px).
LEGEND_ROW = 26

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
    floor: float = ERROR_FLOOR

    def place(self, x: float, error: float) -> tuple[float, float]:
        """Pixel position of the point (x, error)."""
        left, top, width, height = self.box
        x_lo, x_hi = self.x_range
        lo, hi = self.decades
        value = math.log10(max(float(error), self.floor, 10.0**lo))
        px = left + (float(x) - x_lo) / (x_hi - x_lo) * width
        py = top + (1.0 - (value - lo) / (hi - lo)) * height
        return px, py

    def place_all(self, xs: Any, errors: Any) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`place` over arrays of x and error (the same arithmetic, vectorised)."""
        left, top, width, height = self.box
        x_lo, x_hi = self.x_range
        lo, hi = self.decades
        floor = max(self.floor, 10.0**lo)
        value = np.log10(np.maximum(np.asarray(errors, dtype=np.float64), floor))
        px = left + (np.asarray(xs, dtype=np.float64) - x_lo) / (x_hi - x_lo) * width
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
    floor: float = ERROR_FLOOR,
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
    floor : float
        Smallest error shown, a power of ten; smaller ones sit on the bottom edge,
        which is labelled "≤ floor". A legend (two series or more) sits above the plot.
    """
    width, height = ERROR_CHART_SIZE
    left, right, top, bottom = ERROR_CHART_MARGIN
    places = _legend_layout(series, left, width - right) if len(series) > 1 else []
    rows = 1 + max((row for _, row in places), default=-1)
    top += LEGEND_ROW * rows
    height += LEGEND_ROW * rows
    legend_top = top - LEGEND_ROW * rows + 4
    plot_w, plot_h = width - left - right, height - top - bottom
    xs = [float(x) for s in series for x, _ in s["points"]]
    errors = [float(e) for s in series for _, e in s["points"] if math.isfinite(float(e))]
    if not xs:
        raise ValueError("chart: expected at least one point, got none")
    x_hi = max(1.0, max(xs) if x_max is None else float(x_max))
    bottom_power = round(math.log10(floor))
    positive = [e for e in errors if e >= floor]
    lo = math.floor(math.log10(min(positive))) if positive else bottom_power
    hi = math.ceil(math.log10(max(positive))) if positive else bottom_power + 1
    if any(e < floor for e in errors):
        lo = bottom_power
    if hi <= lo:
        hi = lo + 1
    chart = ErrorChart("", (0.0, x_hi), (lo, hi), (left, top, plot_w, plot_h), floor)

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
        if (hi - power) % every == 0 or (power == lo and (hi - lo) % every > every // 2):
            label = "1" if power == 0 else f"1e{power}"
            if power == bottom_power and any(e < floor for e in errors):
                label = f"≤{label}"
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
        kept = [(x, e) for x, e in s["points"] if e is not None and math.isfinite(float(e))]
        pxs, pys = chart.place_all([x for x, _ in kept], [e for _, e in kept])
        points = " ".join(
            f"{_f(x)},{_f(y)}" for x, y in zip(pxs.tolist(), pys.tolist(), strict=True)
        )
        out.append(
            f'<polyline class="series" data-series="{escape(key, quote=True)}" points="{points}" '
            f'fill="none" stroke="{colour}" stroke-width="2" stroke-linejoin="round"/>'
        )
    if places:
        out.extend(_legend(series, places, legend_top))
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
    return ErrorChart("\n".join(out), chart.x_range, chart.decades, chart.box, floor)


def _text_width(text: str, size: float = 15.0) -> float:
    """Generous width of ``text`` in px: wide (CJK) characters count a full em."""
    return sum(size if unicodedata.east_asian_width(ch) in "WF" else 0.64 * size for ch in text)


def _legend_layout(
    series: Sequence[Mapping[str, Any]], x0: float, right: float
) -> list[tuple[float, int]]:
    """Where each legend entry goes: (x, row), wrapping before ``right``."""
    places, x, row = [], x0, 0
    for s in series:
        width = 27 + _text_width(str(s.get("label", s.get("key", ""))))
        if x > x0 and x + width > right:
            x, row = x0, row + 1
        places.append((x, row))
        x += width + 14
    return places


def _legend(
    series: Sequence[Mapping[str, Any]], places: list[tuple[float, int]], y0: float
) -> list[str]:
    """The legend: rows of line samples and labels above the plot."""
    out = []
    for index, (s, (x, row)) in enumerate(zip(series, places, strict=True)):
        key = str(s.get("key", ""))
        label = str(s.get("label", key))
        ly = y0 + 10 + LEGEND_ROW * row
        out.append(
            f'<g class="legend" data-series="{escape(key, quote=True)}">'
            f'<line x1="{_f(x)}" y1="{ly}" x2="{_f(x + 22)}" y2="{ly}" '
            f'stroke="{_colour(key, index)}" stroke-width="3"/>'
            f'<text x="{_f(x + 27)}" y="{ly + 5}">{escape(label)}</text></g>'
        )
    return out


def _nice_step(span: float, ticks: int = 5) -> float:
    raw = span / ticks
    power = 10.0 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
    for factor in (1.0, 2.0, 5.0, 10.0):
        if raw <= factor * power:
            return max(1.0, factor * power)
    return max(1.0, 10.0 * power)


# --------------------------------------------------------------------- moving target


def _points(points: Sequence[Sequence[float]]) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in points)


def svg_from_motion(
    view: Mapping[str, Any], method: str, frame: int, *, figure_id: str, title: str
) -> str:
    """The moving-target picture at ``frame`` of ``view`` (:func:`motion.motion_view`).

    Layers (classes), which ``motion.js`` updates in place: ``reach-outer``,
    ``reach-inner``, ``path`` (one lap of targets), ``trail`` (the drawn method's tip
    over the last lap up to ``frame``), ``bones``, ``joints`` (``joint`` per inner
    joint), ``root``, ``tip``, ``target-ring``.
    """
    s = STYLE
    half = view_extent({"reach": view["reach"]})
    joints = view["methods"][method]["joints"][frame]
    tips = [pose[-1] for pose in view["methods"][method]["joints"]]
    trail = tips[max(0, frame - view["frames_per_lap"] + 1) : frame + 1]
    target = view["targets"][frame]
    inner, outer = float(view["reach"]["inner"]), float(view["reach"]["outer"])
    lap = view["lap"]
    box = f"{_num(-half)} {_num(-half)} {_num(2 * half)} {_num(2 * half)}"
    fid = escape(figure_id, quote=True)
    joint_marks = "".join(
        f'<circle class="joint" data-index="{i}" cx="{_num(x)}" cy="{_num(y)}" '
        f'r="{s["joint_r"]}" fill="#fff" stroke="#2d3748" '
        f'stroke-width="{s["circle_width"] * 1.5}"/>'
        for i, (x, y) in enumerate(joints[1:-1], start=1)
    )
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" class="ik-figure motion-figure" '
            f'id="{fid}-svg" viewBox="{box}" role="img" aria-label="{escape(title, quote=True)}" '
            f'data-extent="{_num(half)}">',
            f"<title>{escape(title)}</title>",
            '<g class="world" transform="scale(1,-1)">',
            f'<g class="axes" aria-hidden="true"><line x1="{_num(-half)}" y1="0" x2="{_num(half)}" '
            f'y2="0" stroke="#ddd" stroke-width="{s["circle_width"]}"/><line x1="0" '
            f'y1="{_num(-half)}" x2="0" y2="{_num(half)}" stroke="#ddd" '
            f'stroke-width="{s["circle_width"]}"/></g>',
            f'<circle class="reach-outer" cx="0" cy="0" r="{_num(outer)}" fill="none" '
            f'stroke="#888" stroke-width="{s["circle_width"]}" stroke-dasharray="0.04 0.03"/>',
            f'<circle class="reach-inner" cx="0" cy="0" r="{_num(inner)}" fill="none" '
            f'stroke="#888" stroke-width="{s["circle_width"]}" stroke-dasharray="0.02 0.02"'
            + ("" if inner > 0 else ' visibility="hidden"')
            + "/>",
            f'<polyline class="path" points="{_points(lap)}" '
            f'fill="none" stroke="#c05621" stroke-opacity="0.45" stroke-width="0.01" '
            'stroke-dasharray="0.03 0.02"/>',
            f'<polyline class="trail" points="{_points(trail)}" fill="none" '
            f'stroke="{METHOD_COLOURS.get(method, "#444")}" stroke-width="0.012" '
            'stroke-opacity="0.8" stroke-linejoin="round"/>',
            f'<polyline class="bones" points="{_points(joints)}" fill="none" stroke="#2d3748" '
            f'stroke-width="{s["bone_width"]}" stroke-linecap="round" stroke-linejoin="round"/>',
            f'<g class="joints">{joint_marks}</g>',
            f'<circle class="root" cx="0" cy="0" r="{s["root_r"]}" fill="#2d3748"/>',
            f'<circle class="tip" cx="{_num(joints[-1][0])}" cy="{_num(joints[-1][1])}" '
            f'r="{s["tip_r"]}" fill="#c53030"/>',
            f'<circle class="target-ring" cx="{_num(target[0])}" cy="{_num(target[1])}" '
            f'r="{s["ring_r"]}" fill="none" stroke="#c05621" stroke-width="{s["ring_width"]}"/>',
            "</g>",
            "</svg>",
        ]
    )
