"""Server-drawn SVG for the lesson page: a figure's state, and the convergence chart.

Both functions only *place* numbers the solver already produced; nothing here does
kinematics. The figure markup is the same element structure the page's script later
updates in place (``lesson.js`` writes new attribute values into these elements and
never builds a different tree), so a page read with scripts off shows exactly what a
live figure would show for its default state.

Figure structure (ids are prefixed with the figure id, e.g. ``fig-s21``)::

    svg.ik-figure#{id}-svg [viewBox in world metres, y down as SVG has it]
      title#{id}-title
      g.world [transform="scale(1,-1)": world +y up]
        g.axes            two faint axis lines through the root
        circle.reach-outer  r = reach.outer (dashed)
        circle.reach-inner  r = reach.inner (hidden when 0)
        g.ellipse           2.2 only: the manipulability ellipse at the tip (frame.ellipse)
          ellipse.ellipse-shape  radii scale·σ₁, scale·σ₂, turned to the long axis
          line.ellipse-axis      the long axis, end to end (all that is left when σ₂ = 0)
        path.wrist-reach    2.8 only: the annulus the wrist can reach (frame.hand)
        polyline.bones      root, joints..., tip
        line.gap            tip -> target (hidden unless frame.gap), over the bones
        g.joints            circle.joint per inner joint (data-index 1..n-1)
        g.hand              2.8 only: the hand's line through the wrist point
          line.hand-line      wrist point -> target (dashed): where the last bone must lie
          line.hand-arrow     target -> the knob, the hand's direction
          circle.wrist-point  target - l3 (cos φ, sin φ)
        circle.root
        circle.tip
        circle.pointer      where the pointer is while a smoothed target eases (hidden)
        g.target            the ring and its hit area (the script makes it a slider)
          circle.target-hit   large transparent hit area for fingers
          circle.target-ring  the ring itself, centred on frame.result.target
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

#: Half-width of a figure's view, as a multiple of the chain's outer reach: room to
#: drag the ring well past the dashed circle (Table 4 goes to d = 2.0 for ΣL = 1.4).
VIEW_MARGIN = 1.45

#: Radii and stroke widths of the drawing, in world metres (the view is ~2.9 ΣL wide).
STYLE = {
    "bone_width": 0.028,
    "joint_r": 0.026,
    "root_r": 0.04,
    "tip_r": 0.022,
    "ring_r": 0.062,
    "ring_width": 0.016,
    "hit_r": 0.13,
    "pointer_r": 0.045,  # the smoothing marker: 12 px across on a desktop, 7.5 on a phone
    "circle_width": 0.008,
    "gap_width": 0.012,
    "ellipse_width": 0.008,
    "wrist_r": 0.032,
}

METHOD_COLOURS = {
    "ccd": "#c2571a",
    "fabrik": "#2b6cb0",
    "jt": "#8a4baf",
    "dls": "#2f855a",
    "analytic": "#555",
}
METHOD_MARKERS = {"ccd": "circle", "fabrik": "square", "jt": "down", "dls": "diamond"}


def _num(value: Any) -> str:
    """A float as the shortest text that reads back to it (what JS's String() gives)."""
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"figure: expected finite coordinates, got {value!r}")
    if number == 0.0:
        return "0"
    text = repr(number)
    return text[:-2] if text.endswith(".0") else text


def _empty(tag: str, **attributes: Any) -> str:
    """An empty SVG element ``<tag .../>``."""
    return f"<{tag} {_attrs(**attributes)}/>"


def _attrs(**attributes: Any) -> str:
    parts = []
    for name, value in attributes.items():
        if value is None or value is False:
            continue
        key = name.rstrip("_").replace("_", "-")
        parts.append(key if value is True else f'{key}="{escape(str(value), quote=True)}"')
    return " ".join(parts)


def _points(points: Sequence[Sequence[float]]) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in points)


def view_extent(frame: Mapping[str, Any]) -> float:
    """Half-width of the square view (m) for a frame: ``VIEW_MARGIN`` times the outer reach."""
    outer = float(frame["reach"]["outer"])
    if not outer > 0:
        raise ValueError(f"figure: expected a positive outer reach, got {outer!r}")
    return round(VIEW_MARGIN * outer, 6)


def svg_from_frame(
    frame: Mapping[str, Any],
    figure_id: str = "figure",
    title: str = "",
    *,
    extent: float | None = None,
    ellipse: bool = False,
) -> str:
    """The SVG markup of one figure in the state ``frame`` (see the module docstring).

    Parameters
    ----------
    frame : mapping
        A FRAME as the server sends it: ``result`` (with ``joints``), ``target``,
        ``reach`` (``inner``, ``outer``), ``gap``, ``readings``.
    figure_id : str
        Prefix of the element ids, e.g. ``"fig-s21"``.
    title : str
        Accessible title of the picture.
    extent : float, optional
        Half-width of the view in metres; default :func:`view_extent` of the frame.
    ellipse : bool
        Draw the manipulability ellipse (``frame["ellipse"]``, see
        :func:`ikchain.lesson.frames.ellipse_view`) at the tip.
    """
    s = STYLE
    half = view_extent(frame) if extent is None else float(extent)
    joints = frame["result"]["joints"]
    tip = joints[-1]
    target = frame["result"]["target"]
    inner = float(frame["reach"]["inner"])
    outer = float(frame["reach"]["outer"])
    gap = bool(frame.get("gap"))
    fid = escape(figure_id, quote=True)
    view = f"{_num(-half)} {_num(-half)} {_num(2 * half)} {_num(2 * half)}"

    lines = [
        "<svg "
        + _attrs(
            xmlns="http://www.w3.org/2000/svg",
            class_="ik-figure",
            id=f"{figure_id}-svg",
            viewBox=view,
            role="group",
            aria_labelledby=f"{figure_id}-title",
            data_figure=figure_id,
            data_extent=_num(half),
        )
        + ">",
        f'<title id="{fid}-title">{escape(title)}</title>',
        '<g class="world" transform="scale(1,-1)">',
        '<g class="axes" aria-hidden="true">'
        f'<line x1="{_num(-half)}" y1="0" x2="{_num(half)}" y2="0" stroke="#ddd" '
        f'stroke-width="{s["circle_width"]}"/>'
        f'<line x1="0" y1="{_num(-half)}" x2="0" y2="{_num(half)}" stroke="#ddd" '
        f'stroke-width="{s["circle_width"]}"/>'
        "</g>",
        _empty(
            "circle",
            class_="reach-outer",
            cx=0,
            cy=0,
            r=_num(outer),
            fill="none",
            stroke="#888",
            stroke_width=s["circle_width"],
            stroke_dasharray="0.04 0.03",
        ),
        _empty(
            "circle",
            class_="reach-inner",
            cx=0,
            cy=0,
            r=_num(inner),
            fill="none",
            stroke="#888",
            stroke_width=s["circle_width"],
            stroke_dasharray="0.02 0.02",
            visibility=None if inner > 0 else "hidden",
        ),
        *(ellipse_svg(frame["ellipse"]) if ellipse else []),
        *(wrist_reach_svg(frame["hand"]) if frame.get("hand") else []),
        _empty(
            "polyline",
            class_="bones",
            points=_points(joints),
            fill="none",
            stroke="#2d3748",
            stroke_width=s["bone_width"],
            stroke_linecap="round",
            stroke_linejoin="round",
        ),
        _empty(
            "line",
            class_="gap",
            x1=_num(tip[0]),
            y1=_num(tip[1]),
            x2=_num(target[0]),
            y2=_num(target[1]),
            stroke="#c53030",
            stroke_width=s["gap_width"],
            stroke_dasharray="0.025 0.015",
            visibility=None if gap else "hidden",  # over the bones: a stall lies along them
        ),
        '<g class="joints">'
        + "".join(
            _empty(
                "circle",
                class_="joint",
                data_index=i,
                cx=_num(x),
                cy=_num(y),
                r=s["joint_r"],
                fill="#fff",
                stroke="#2d3748",
                stroke_width=s["circle_width"] * 1.5,
            )
            for i, (x, y) in enumerate(joints[1:-1], start=1)
        )
        + "</g>",
        *(hand_svg(frame["hand"], target) if frame.get("hand") else []),
        _empty("circle", class_="root", cx=0, cy=0, r=s["root_r"], fill="#2d3748"),
        _empty(
            "circle", class_="tip", cx=_num(tip[0]), cy=_num(tip[1]), r=s["tip_r"], fill="#c53030"
        ),
        _empty(
            "circle",
            class_="pointer",
            cx=_num(target[0]),
            cy=_num(target[1]),
            r=s["pointer_r"],
            fill="#805ad5",
            fill_opacity=0.35,
            stroke="#805ad5",
            stroke_width=s["circle_width"],
            visibility="hidden",
        ),
        # no Tab stop and no slider role here: the ring moves only with the page's
        # script, which makes it a slider (tabindex, role, keys, value text)
        "<g " + _attrs(class_="target") + ">",
        _empty(
            "circle",
            class_="target-hit",
            cx=_num(target[0]),
            cy=_num(target[1]),
            r=s["hit_r"],
            fill="transparent",
        ),
        _empty(
            "circle",
            class_="target-ring",
            cx=_num(target[0]),
            cy=_num(target[1]),
            r=s["ring_r"],
            fill="none",
            stroke="#c05621",
            stroke_width=s["ring_width"],
        ),
        "</g>",
        "</g>",
        "</svg>",
    ]
    return "\n".join(lines)


def annulus_path(inner: float, outer: float) -> str:
    """An annulus centred on the root as one SVG path (fill-rule evenodd): each circle
    as two half arcs. The page's script writes the same text (String() of each)."""
    parts = []
    for r in (outer, inner):
        a, b = _num(r), _num(-r)
        parts.append(f"M {a} 0 A {a} {a} 0 1 0 {b} 0 A {a} {a} 0 1 0 {a} 0 Z")
    return " ".join(parts)


def wrist_reach_svg(view: Mapping[str, Any]) -> list[str]:
    """2.8: the annulus the wrist can reach (``frame["hand"]``, see
    :func:`ikchain.lesson.hand.hand_view`), under the bones."""
    return [
        _empty(
            "path",
            class_="wrist-reach",
            d=annulus_path(float(view["inner"]), float(view["outer"])),
            fill="#2c7a7b",
            fill_opacity=0.1,
            fill_rule="evenodd",
            stroke="#2c7a7b",
            stroke_width=STYLE["circle_width"],
            aria_hidden="true",
        )
    ]


def hand_svg(view: Mapping[str, Any], target: Sequence[float]) -> list[str]:
    """2.8: the ``g.hand`` group (see the module docstring): where the wrist must be
    and the hand's direction, all from ``frame["hand"]``."""
    s = STYLE
    wx, wy = (_num(v) for v in view["wrist"])
    tx, ty = (_num(v) for v in target)
    kx, ky = (_num(v) for v in view["knob"])
    return [
        '<g class="hand" aria-hidden="true">',
        _empty(
            "line",
            class_="hand-line",
            x1=wx,
            y1=wy,
            x2=tx,
            y2=ty,
            stroke="#2c7a7b",
            stroke_width=s["circle_width"] * 1.5,
            stroke_dasharray="0.03 0.02",
        ),
        _empty(
            "line",
            class_="hand-arrow",
            x1=tx,
            y1=ty,
            x2=kx,
            y2=ky,
            stroke="#2c7a7b",
            stroke_width=s["circle_width"] * 2,
            stroke_linecap="round",
        ),
        _empty(
            "circle",
            class_="wrist-point",
            cx=wx,
            cy=wy,
            r=s["wrist_r"],
            fill="#fff",
            stroke="#2c7a7b",
            stroke_width=s["circle_width"] * 2,
        ),
        "</g>",
    ]


def ellipse_attributes(view: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """The attributes of the ellipse's two elements, from the frame's ``ellipse``
    (:func:`ikchain.lesson.frames.ellipse_view`): ``shape`` (cx, cy, rx, ry and the
    ``rotate(degrees cx cy)`` transform) and ``axis`` (x1, y1, x2, y2). The page's
    script writes the same numbers the same way (String() of each)."""
    cx, cy = (_num(value) for value in view["centre"])
    rx, ry = (_num(value) for value in view["radii"])
    (x1, y1), (x2, y2) = ((_num(x), _num(y)) for x, y in view["axis"])
    return {
        "shape": {
            "cx": cx,
            "cy": cy,
            "rx": rx,
            "ry": ry,
            "transform": f"rotate({_num(view['rotation'])} {cx} {cy})",
        },
        "axis": {"x1": x1, "y1": y1, "x2": x2, "y2": y2},
    }


def ellipse_svg(view: Mapping[str, Any]) -> list[str]:
    """The ``g.ellipse`` group of a figure (see the module docstring), as lines."""
    drawn = ellipse_attributes(view)
    width = STYLE["ellipse_width"]
    return [
        '<g class="ellipse" aria-hidden="true">',
        _empty(
            "ellipse",
            class_="ellipse-shape",
            **drawn["shape"],
            fill="#2c7a7b",
            fill_opacity=0.12,
            stroke="#2c7a7b",
            stroke_width=width,
        ),
        _empty(
            "line",
            class_="ellipse-axis",
            **drawn["axis"],
            stroke="#2c7a7b",
            stroke_width=width,
            stroke_linecap="round",
        ),
        "</g>",
    ]


# --------------------------------------------------------------------------- chart

#: Chart canvas in SVG pixels and its plot margins (left, right, top, bottom).
CHART_SIZE = (640, 380)
CHART_MARGIN = (64, 24, 20, 56)


def _marker(kind: str, x: float, y: float, colour: str, *, capped: bool = False) -> str:
    size = 5.0
    fill = "#fff" if capped else colour
    common = f'fill="{fill}" stroke="{colour}" stroke-width="1.6"'
    if capped:  # the budget ran out: an upward triangle pinned to the top edge
        a, b = size + 1, size + 2
        pts = f"{x:.2f},{y - b:.2f} {x - a:.2f},{y + size:.2f} {x + a:.2f},{y + size:.2f}"
        return f'<polygon class="capped" points="{pts}" {common}/>'
    if kind == "square":
        side = 2 * size
        return (
            f'<rect x="{x - size:.2f}" y="{y - size:.2f}" width="{side}" height="{side}" {common}/>'
        )
    if kind == "down":  # a downward triangle (upward ones mark a capped point)
        a = size + 1
        pts = f"{x - a:.2f},{y - size:.2f} {x + a:.2f},{y - size:.2f} {x:.2f},{y + a:.2f}"
        return f'<polygon points="{pts}" {common}/>'
    if kind == "diamond":
        d = size * 1.3
        pts = f"{x:.2f},{y - d:.2f} {x + d:.2f},{y:.2f} {x:.2f},{y + d:.2f} {x - d:.2f},{y:.2f}"
        return f'<polygon points="{pts}" {common}/>'
    return f'<circle cx="{x:.2f}" cy="{y:.2f}" r="{size}" {common}/>'


def _nice_step(span: float, target_ticks: int = 6) -> float:
    raw = span / max(1, target_ticks)
    power = 10.0 ** math.floor(math.log10(raw))
    for factor in (1.0, 2.0, 2.5, 5.0, 10.0):
        if raw <= factor * power:
            return factor * power
    return 10.0 * power  # pragma: no cover - the loop always returns


def _tick_text(value: float, step: float) -> str:
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    return f"{value:.{decimals}f}"


def _legend(series: Sequence[Mapping[str, Any]], x0: float, y0: float) -> list[str]:
    """The legend, in the plot's empty upper-left corner, on a white card."""
    longest = max((len(str(s.get("label", s.get("method", "")))) for s in series), default=4)
    width, row = 46 + 7.2 * longest, 22
    out = [
        f'<rect class="legend-card" x="{x0}" y="{y0}" width="{width:.1f}" '
        f'height="{row * len(series) + 8}" rx="4" fill="#fff" stroke="#ddd"/>'
    ]
    for index, s in enumerate(series):
        method = str(s.get("method", ""))
        colour = METHOD_COLOURS.get(method, "#444")
        kind = METHOD_MARKERS.get(method, "circle")
        lx, ly = x0 + 10, y0 + 15 + row * index
        out.append(
            f'<g class="legend" data-method="{escape(method, quote=True)}">'
            f'<line x1="{lx}" y1="{ly}" x2="{lx + 26}" y2="{ly}" stroke="{colour}" '
            'stroke-width="2"/>'
            + _marker(kind, lx + 13, ly, colour)
            + f'<text x="{lx + 34}" y="{ly + 4}">{escape(str(s.get("label", method)))}</text>'
            "</g>"
        )
    return out


def svg_from_chart(chart: Mapping[str, Any]) -> str:
    """A line chart of iterations against d/ΣL, log-scale y, one polyline per method.

    Parameters
    ----------
    chart : mapping
        ``id``, ``caption``, ``x_label``, ``y_label`` and ``series``: a list of
        ``{"method", "label", "points": [[ratio, iterations or None], ...]}``. A point
        whose iterations are ``None`` ran out of budget; it is drawn as an open
        triangle on the top edge. An optional ``budget`` (int) labels that edge.
    """
    width, height = CHART_SIZE
    left, right, top, bottom = CHART_MARGIN
    plot_w, plot_h = width - left - right, height - top - bottom
    series = list(chart.get("series") or [])
    xs = [float(p[0]) for s in series for p in s["points"]]
    ys = [float(p[1]) for s in series for p in s["points"] if p[1] is not None]
    budget = chart.get("budget")
    if not xs:
        raise ValueError("chart: expected at least one point, got none")
    x_lo, x_hi = min(xs), max(xs)
    if x_hi - x_lo < 1e-9:
        x_lo, x_hi = x_lo - 0.05, x_hi + 0.05
    pad = 0.03 * (x_hi - x_lo)
    x_lo, x_hi = x_lo - pad, x_hi + pad
    y_top_value = max([*ys, float(budget) if budget else 1.0, 1.0])
    y_lo = 0  # log10 of 1 iteration
    y_hi = max(1, math.ceil(math.log10(y_top_value) + 0.05))
    capped_any = any(p[1] is None for s in series for p in s["points"])

    def px(x: float) -> float:
        return left + (x - x_lo) / (x_hi - x_lo) * plot_w

    def py(iterations: float) -> float:
        value = math.log10(max(1.0, iterations))
        return top + (1 - (value - y_lo) / (y_hi - y_lo)) * plot_h

    cid = escape(str(chart.get("id", "chart")), quote=True)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="ik-chart" id="{cid}-svg" '
        f'viewBox="0 0 {width} {height}" role="img" aria-labelledby="{cid}-title">',
        f'<title id="{cid}-title">{escape(str(chart.get("caption", "")))}</title>',
        f'<rect class="plot" x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" '
        'fill="#fcfcfa" stroke="#bbb"/>',
    ]
    # y grid: decades, with faint 2 and 5 lines
    for power in range(y_lo, y_hi + 1):
        y = py(10.0**power)
        out.append(
            f'<line class="grid" x1="{left}" y1="{y:.2f}" x2="{left + plot_w}" y2="{y:.2f}" '
            'stroke="#ddd"/>'
        )
        label = f"{10**power:,}".replace(",", "\u2009")
        out.append(
            f'<text class="tick" x="{left - 8}" y="{y + 4:.2f}" text-anchor="end">{label}</text>'
        )
        if power < y_hi:
            for sub in (2, 5):
                ys_ = py(sub * 10.0**power)
                out.append(
                    f'<line class="grid minor" x1="{left}" y1="{ys_:.2f}" x2="{left + plot_w}" '
                    f'y2="{ys_:.2f}" stroke="#eee"/>'
                )
    step = _nice_step(x_hi - x_lo)
    tick = math.ceil(x_lo / step) * step
    while tick <= x_hi + 1e-12:
        x = px(tick)
        out.append(
            f'<line class="grid" x1="{x:.2f}" y1="{top}" x2="{x:.2f}" y2="{top + plot_h}" '
            'stroke="#eee"/>'
        )
        out.append(
            f'<text class="tick" x="{x:.2f}" y="{top + plot_h + 18}" text-anchor="middle">'
            f"{_tick_text(tick, step)}</text>"
        )
        tick += step
    out.append(
        f'<text class="axis-label" x="{left + plot_w / 2:.1f}" y="{height - 12}" '
        f'text-anchor="middle">{escape(str(chart.get("x_label", "")))}</text>'
    )
    out.append(
        f'<text class="axis-label" transform="translate(16 {top + plot_h / 2:.1f}) rotate(-90)" '
        f'text-anchor="middle">{escape(str(chart.get("y_label", "")))}</text>'
    )
    if capped_any:
        text = f"> {budget}" if budget else "\u2191"
        out.append(
            f'<text class="cap-label" x="{left + plot_w - 4}" y="{top + 12}" '
            f'text-anchor="end">{escape(text)}</text>'
        )

    for s in series:
        method = str(s.get("method", ""))
        colour = METHOD_COLOURS.get(method, "#444")
        kind = METHOD_MARKERS.get(method, "circle")
        placed: list[tuple[float, float, bool]] = []
        for ratio, iterations in s["points"]:
            x = px(float(ratio))
            if iterations is None:
                placed.append((x, top, True))
            else:
                placed.append((x, py(float(iterations)), False))
        path = " ".join(f"{x:.2f},{y:.2f}" for x, y, _ in placed)
        out.append(
            f'<g class="series" data-method="{escape(method, quote=True)}">'
            f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
            + "".join(_marker(kind, x, y, colour, capped=c) for x, y, c in placed)
            + "</g>"
        )
    out.extend(_legend(series, left + 12, top + 12))
    out.append("</svg>")
    return "\n".join(out)
