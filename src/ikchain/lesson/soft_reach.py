"""Section 2.4's soft-reach player: the knee "pop" at ΣL, and the soft clamp beside it.

A target moves at a steady speed along one ray from the root, from :data:`D_NEAR` out
past the reach ΣL to :data:`D_FAR` and back, one :data:`STEP` a frame. The section's
two-bone chain (0.8 + 0.6 m) follows it twice, with :func:`ikchain.solve` only (the
closed form, one batch call each): with the hard clamp (no ``soft``) and with the soft
reach ``soft=`` :data:`SOFT`. What the page shows is computed here, once:

* a picture of two panels side by side (hard on the left, soft on the right), each
  with the target ring, the dashed ΣL circle and the pose of one frame;
* a chart of the knee (second joint) angle against the frame, for both runs;
* a few frames as a table, every cell a solver's value formatted;
* the per-frame joints, targets and formatted readings ``soft.js`` plays back (it
  draws, it never computes a position, an angle or a chart coordinate).

Radians inside; degrees only where a number becomes text or a chart coordinate.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import numpy as np

from ikchain.chain import Chain
from ikchain.formatting import degrees_for_people, format_angle, format_number
from ikchain.lesson.figures import STYLE, _num
from ikchain.lesson.labels import fill, named_table
from ikchain.lesson.plots import SERIES_COLOURS, _text_width
from ikchain.lesson.tables import LENGTHS_BY_BONES
from ikchain.result import Result
from ikchain.solvers import solve

#: The soft distance of the right panel (m): the easing acts over the last 0.2 m of reach.
SOFT = 0.2
#: Nearest and farthest distance of the moving target from the root (m).
D_NEAR = 1.0
D_FAR = 1.8
#: Frames from D_NEAR out to D_FAR; as many again come back (a loop of 2 × 80 frames).
OUT_FRAMES = 80
FRAMES = 2 * OUT_FRAMES
#: The target's distance changes by this much every frame (m): a steady speed.
STEP = (D_FAR - D_NEAR) / OUT_FRAMES
#: Direction of the target's ray from the root (rad, counter-clockwise from +x).
HEADING = 0.6
#: Frames a second the player plays at (a loop then lasts FRAMES / FPS seconds).
FPS = 30
#: The frame drawn by the server (and shown with scripts off): the target at d = ΣL.
STATIC_FRAME = OUT_FRAMES // 2
#: The frames the table lists (d = 1.2, 1.3, 1.39, 1.4, 1.6, 1.8 m).
TABLE_FRAMES = (20, 30, 39, 40, 60, 80)
#: The runs, in the order the panels, the chart and the data list them.
RUNS = ("hard", "soft")
RUN_COLOURS = {"hard": SERIES_COLOURS[0], "soft": SERIES_COLOURS[1]}
#: Decimals of the drawn positions (m): a micrometre, far below a pixel.
POSITION_DECIMALS = 6
#: Room around the drawn chain and targets inside each panel (m).
PANEL_MARGIN = 0.12
#: Gap between the two panels (m).
PANEL_GAP = 0.08
#: Knee chart canvas (px), its plot margins (left, right, top, bottom), legend row (px).
CHART_SIZE = (420, 250)
CHART_MARGIN = (64, 14, 40, 46)
#: Where the legend row starts (px).
LEGEND_X = 20
#: The knee chart's y grid step (°).
CHART_Y_STEP = 30.0


def lesson_chain() -> Chain:
    """The two-bone chain of section 2.4 (0.8 + 0.6 m)."""
    return Chain(LENGTHS_BY_BONES[2])


def distances() -> np.ndarray:
    """The target's distance from the root on every frame, shape (FRAMES,) (m).

    A triangle wave: D_NEAR at frame 0, D_FAR at frame OUT_FRAMES, then back, STEP a
    frame both ways (the loop closes: the frame after the last is frame 0).
    """
    k = np.arange(FRAMES, dtype=np.float64)
    return D_NEAR + (D_FAR - D_NEAR) * (1.0 - np.abs(1.0 - k / OUT_FRAMES))


def moving_targets() -> np.ndarray:
    """The target on every frame, shape (FRAMES, 2) (m), on the ray at HEADING."""
    d = distances()
    return np.stack((d * math.cos(HEADING), d * math.sin(HEADING)), axis=-1)


@dataclass(frozen=True)
class SoftRuns:
    """The moving target solved hard and soft: one batch :class:`Result` each."""

    chain: Chain
    targets: np.ndarray  # (F, 2) m
    hard: Result  # batch of F
    soft: Result  # batch of F

    def run(self, name: str) -> Result:
        """The result of run ``name`` ("hard" or "soft")."""
        return self.hard if name == "hard" else self.soft

    def knee_deg(self, name: str) -> np.ndarray:
        """The knee (second joint) angle of run ``name`` on every frame, (F,) (°)."""
        return np.asarray(degrees_for_people(self.run(name).angles[:, 1]), dtype=np.float64)

    def largest_knee_step_deg(self, name: str) -> float:
        """The knee's largest change between consecutive frames of the loop (°)."""
        knee = self.knee_deg(name)
        return float(np.max(np.abs(np.diff(knee, append=knee[:1]))))


@functools.cache
def soft_runs() -> SoftRuns:
    """The two runs (computed once): ``solve(chain, targets, "analytic")`` hard, and the
    same with ``soft=SOFT``."""
    chain = lesson_chain()
    targets = moving_targets()
    hard = solve(chain, targets, "analytic")
    soft = solve(chain, targets, "analytic", soft=SOFT)
    return SoftRuns(chain, targets, hard, soft)


# -- What the text quotes ----------------------------------------------------------------


def soft_reach_values() -> dict[str, str]:
    """The ``{name}`` placeholders of the 2.4 soft-reach text, formatted from the runs."""
    runs = soft_runs()
    outer = runs.chain.outer_radius
    hard_knee = runs.knee_deg("hard")
    return {
        "soft_s": format_number(SOFT, 1),
        "soft_start": format_number(outer - SOFT, 1),
        "soft_step": format_number(STEP, 2),
        "soft_frames": str(FRAMES),
        "soft_near": format_number(D_NEAR, 1),
        "soft_far": format_number(D_FAR, 1),
        "soft_fps": str(FPS),
        "soft_hard_first": format_number(abs(hard_knee[1] - hard_knee[0]), 1),
        "soft_hard_jump": format_number(runs.largest_knee_step_deg("hard"), 1),
        "soft_soft_jump": format_number(runs.largest_knee_step_deg("soft"), 1),
        "soft_error_at_reach": format_number(float(runs.soft.error[STATIC_FRAME]), 4),
        "soft_knee_at_reach": format_angle(float(runs.soft.angles[STATIC_FRAME, 1]), 1),
        "soft_min_error_at_reach": format_number(float(runs.soft.min_error[STATIC_FRAME]), 4),
    }


# -- The picture: two panels -----------------------------------------------------------


@dataclass(frozen=True)
class PanelBox:
    """The world rectangle (m) each panel shows: x from ``left``, y down from ``top``."""

    left: float
    top: float
    width: float
    height: float

    def offset(self, index: int) -> float:
        """SVG x (m) of panel ``index``'s left edge (panels side by side, PANEL_GAP apart)."""
        return round(index * (self.width + PANEL_GAP), 6)


def panel_box(runs: SoftRuns) -> PanelBox:
    """The smallest rectangle holding every drawn joint and target of both runs, with
    :data:`PANEL_MARGIN` around it (the root included)."""
    points = np.concatenate(
        [runs.hard.joints.reshape(-1, 2), runs.soft.joints.reshape(-1, 2), runs.targets]
    )
    lo = points.min(axis=0) - PANEL_MARGIN
    hi = points.max(axis=0) + PANEL_MARGIN
    return PanelBox(
        round(float(lo[0]), 3),
        round(float(hi[1]), 3),
        round(float(hi[0] - lo[0]), 3),
        round(float(hi[1] - lo[1]), 3),
    )


def _points(points: Sequence[Sequence[float]]) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in points)


def _panel(
    run: str,
    index: int,
    joints: Sequence[Sequence[float]],
    target: Sequence[float],
    box: PanelBox,
    reach: Mapping[str, float],
    track: Sequence[Sequence[float]],
) -> str:
    """One panel's markup: its layers, in world metres (y up), at one frame."""
    s = STYLE
    colour = RUN_COLOURS[run]
    tip = joints[-1]
    bottom, right = round(box.top - box.height, 6), round(box.left + box.width, 6)
    soft_start = (
        f'<circle class="soft-start" cx="0" cy="0" r="{_num(reach["soft_start"])}" fill="none" '
        f'stroke="{colour}" stroke-opacity="0.7" stroke-width="{s["circle_width"]}" '
        'stroke-dasharray="0.012 0.024"/>'
        if run == "soft"
        else ""
    )
    return "".join(
        [
            # a nested svg per panel: it clips the reach circles at the panel's edges
            f'<svg class="sr-panel" data-run="{run}" x="{_num(box.offset(index))}" y="0" '
            f'width="{_num(box.width)}" height="{_num(box.height)}" '
            f'viewBox="{_num(box.left)} {_num(-box.top)} {_num(box.width)} {_num(box.height)}">',
            '<g class="world" transform="scale(1,-1)">',
            f'<rect class="sr-bg" x="{_num(box.left)}" y="{_num(bottom)}" '
            f'width="{_num(box.width)}" height="{_num(box.height)}" fill="#fcfcfa" '
            f'stroke="#ddd" stroke-width="{s["circle_width"]}"/>',
            f'<line class="axis" x1="{_num(box.left)}" y1="0" x2="{_num(right)}" y2="0" '
            f'stroke="#e4e4e4" stroke-width="{s["circle_width"]}"/>',
            f'<circle class="reach-outer" cx="0" cy="0" r="{_num(reach["outer"])}" fill="none" '
            f'stroke="#888" stroke-width="{s["circle_width"]}" stroke-dasharray="0.04 0.03"/>',
            soft_start,
            f'<polyline class="track" points="{_points(track)}" fill="none" stroke="#c05621" '
            f'stroke-opacity="0.35" stroke-width="{s["circle_width"]}" '
            'stroke-dasharray="0.03 0.02"/>',
            f'<polyline class="bones" points="{_points(joints)}" fill="none" stroke="{colour}" '
            f'stroke-width="{s["bone_width"]}" stroke-linecap="round" stroke-linejoin="round"/>',
            f'<line class="gap" x1="{_num(tip[0])}" y1="{_num(tip[1])}" x2="{_num(target[0])}" '
            f'y2="{_num(target[1])}" stroke="#c53030" stroke-width="{s["gap_width"]}"/>',
            '<g class="joints">'
            + "".join(
                f'<circle class="joint" data-index="{i}" cx="{_num(x)}" cy="{_num(y)}" '
                f'r="{s["joint_r"]}" fill="#fff" stroke="#2d3748" '
                f'stroke-width="{s["circle_width"] * 1.5}"/>'
                for i, (x, y) in enumerate(joints[1:-1], start=1)
            )
            + "</g>",
            f'<circle class="root" cx="0" cy="0" r="{s["root_r"]}" fill="#2d3748"/>',
            f'<circle class="tip" cx="{_num(tip[0])}" cy="{_num(tip[1])}" r="{s["tip_r"]}" '
            'fill="#c53030"/>',
            f'<circle class="target-ring" cx="{_num(target[0])}" cy="{_num(target[1])}" '
            f'r="{s["ring_r"]}" fill="none" stroke="#c05621" stroke-width="{s["ring_width"]}"/>',
            "</g></svg>",
        ]
    )


def svg_from_view(view: Mapping[str, Any], frame: int, *, svg_id: str, title: str) -> str:
    """The two panels at ``frame`` of ``view`` (:func:`soft_reach_view`'s ``data``).

    Each panel (``svg.sr-panel[data-run]``, hard then soft, side by side) holds, in
    world metres with +y up: ``reach-outer`` (ΣL, dashed), in the soft panel
    ``soft-start`` (ΣL − s, dotted), ``track`` (the target's ray), ``bones``, ``gap``
    (tip → target), ``joints``, ``root``, ``tip`` and ``target-ring``; ``soft.js``
    moves the last six.
    """
    box = PanelBox(**view["box"])
    width = 2 * box.width + PANEL_GAP
    target = view["targets"][frame]
    panels = [
        _panel(
            run,
            index,
            view["runs"][run]["joints"][frame],
            target,
            box,
            view["reach"],
            view["track"],
        )
        for index, run in enumerate(RUNS)
    ]
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" class="sr-figure" id="{escape(svg_id)}" '
            f'viewBox="0 0 {_num(width)} {_num(box.height)}" role="img" '
            f'aria-label="{escape(title, quote=True)}">',
            f"<title>{escape(title)}</title>",
            *panels,
            "</svg>",
        ]
    )


# -- The knee chart ------------------------------------------------------------------------


@dataclass(frozen=True)
class KneeChart:
    """The knee chart's SVG, and the pixel x of each frame and y of each run's point."""

    svg: str
    x: np.ndarray  # (F,) px
    y: dict[str, np.ndarray]  # run → (F,) px


def knee_chart(
    knees: Mapping[str, np.ndarray],
    out_of_reach: np.ndarray,
    *,
    labels: Mapping[str, str],
    words: Mapping[str, str],
    chart_id: str,
) -> KneeChart:
    """A linear chart of knee angle (°) against frame, one polyline per run.

    Parameters
    ----------
    knees : mapping of str to ndarray, each shape (F,)
        The knee angle of each run on every frame (°).
    out_of_reach : ndarray of bool, shape (F,)
        Frames whose target the solver found out of reach: shaded.
    labels : mapping
        The legend's name of each run.
    words : mapping
        ``title``, ``x``, ``y`` (axis labels) and ``beyond`` (the shade's label).
    chart_id : str
        The chart's ``data-chart``.
    """
    width, height = CHART_SIZE
    left, right, top, bottom = CHART_MARGIN
    plot_w, plot_h = width - left - right, height - top - bottom
    frames = len(out_of_reach)
    highest = max(float(np.max(knee)) for knee in knees.values())
    top_deg = CHART_Y_STEP * max(1.0, math.ceil(highest / CHART_Y_STEP))

    def px(frame: Any) -> Any:
        return left + np.asarray(frame, dtype=np.float64) / (frames - 1) * plot_w

    def py(deg: Any) -> Any:
        return top + (1.0 - np.asarray(deg, dtype=np.float64) / top_deg) * plot_h

    f = lambda v: f"{float(v):.2f}".rstrip("0").rstrip(".")  # noqa: E731
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="ik-chart sr-chart" '
        f'data-chart="{escape(chart_id, quote=True)}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{escape(words["title"], quote=True)}">',
        f"<title>{escape(words['title'])}</title>",
        f'<rect class="plot" x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" '
        'fill="#fcfcfa" stroke="#bbb"/>',
    ]
    # shaded runs of frames beyond reach, each frame a column one frame wide
    edges = np.flatnonzero(np.diff(np.concatenate(([0], out_of_reach.astype(int), [0]))))
    for n, (first, stop) in enumerate(zip(edges[::2], edges[1::2], strict=True)):
        x0 = max(float(left), float(px(first - 0.5)))
        x1 = min(float(left + plot_w), float(px(stop - 0.5)))
        out.append(
            f'<rect class="beyond" x="{f(x0)}" y="{top}" width="{f(x1 - x0)}" height="{plot_h}" '
            'fill="#c05621" fill-opacity="0.08"/>'
        )
        if n == 0:
            out.append(
                f'<text class="beyond-label" x="{f((x0 + x1) / 2)}" y="{top + plot_h - 8}" '
                f'text-anchor="middle">{escape(words["beyond"])}</text>'
            )
    tick = 0.0
    while tick <= top_deg + 1e-9:
        y = float(py(tick))
        out.append(
            f'<line class="grid" x1="{left}" y1="{f(y)}" x2="{left + plot_w}" y2="{f(y)}" '
            'stroke="#e4e4e4"/>'
        )
        out.append(
            f'<text class="tick" x="{left - 6}" y="{f(y + 5)}" text-anchor="end">{tick:g}°</text>'
        )
        tick += CHART_Y_STEP
    for frame in range(0, frames, 40):
        out.append(
            f'<text class="tick" x="{f(px(frame))}" y="{top + plot_h + 19}" '
            f'text-anchor="middle">{frame}</text>'
        )
    out.append(
        f'<text class="axis-label" x="{f(left + plot_w / 2)}" y="{height - 6}" '
        f'text-anchor="middle">{escape(words["x"])}</text>'
    )
    out.append(
        f'<text class="axis-label" transform="translate(18 {f(top + plot_h / 2)}) rotate(-90)" '
        f'text-anchor="middle">{escape(words["y"])}</text>'
    )
    xs = px(np.arange(frames))
    ys = {run: py(knee) for run, knee in knees.items()}
    legend_x = float(LEGEND_X)
    for run, knee_y in ys.items():
        colour = RUN_COLOURS[run]
        points = " ".join(f"{f(x)},{f(y)}" for x, y in zip(xs, knee_y, strict=True))
        out.append(
            f'<polyline class="series" data-series="{run}" points="{points}" fill="none" '
            f'stroke="{colour}" stroke-width="2" stroke-linejoin="round"/>'
        )
        out.append(
            f'<g class="legend" data-series="{run}"><line x1="{f(legend_x)}" y1="16" '
            f'x2="{f(legend_x + 22)}" y2="16" stroke="{colour}" stroke-width="3"/>'
            f'<text x="{f(legend_x + 27)}" y="21">{escape(labels[run])}</text></g>'
        )
        legend_x += 27 + _text_width(labels[run]) + 18
    out.append(
        f'<line class="cursor" x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" '
        'stroke="#c53030" stroke-width="1.5"/>'
    )
    for run in ys:
        out.append(
            f'<circle class="cursor-dot" data-series="{run}" cx="{left}" cy="{top}" r="4.5" '
            f'fill="{RUN_COLOURS[run]}"/>'
        )
    out.append("</svg>")
    return KneeChart("\n".join(out), np.round(xs, 2), {r: np.round(y, 2) for r, y in ys.items()})


def place_cursor(svg: str, chart: KneeChart, frame: int) -> str:
    """The chart with its cursor (line and one dot a run) drawn at ``frame``."""
    x = f"{float(chart.x[frame]):g}"
    left = CHART_MARGIN[0]
    svg = svg.replace(
        f'<line class="cursor" x1="{left}" y1="{CHART_MARGIN[2]}" x2="{left}"',
        f'<line class="cursor" x1="{x}" y1="{CHART_MARGIN[2]}" x2="{x}"',
    )
    for run, ys in chart.y.items():
        svg = svg.replace(
            f'<circle class="cursor-dot" data-series="{run}" cx="{left}" cy="{CHART_MARGIN[2]}"',
            f'<circle class="cursor-dot" data-series="{run}" cx="{x}" cy="{float(ys[frame]):g}"',
        )
    return svg


# -- The block ----------------------------------------------------------------------------


def _status_words(result: Result, text: Mapping[str, Any]) -> list[str]:
    return [text["status"][str(status)] for status in np.ravel(result.status)]


def soft_reach_view(text: Mapping[str, Any]) -> dict[str, Any]:
    """Everything the player needs, every number from :func:`soft_runs`, formatted.

    ``data`` is what the page embeds for ``soft.js``: per frame the target (m), each
    run's joints (m), knee (text), error (text), status (text) and chart y (px), the
    chart x (px), d (text); and the words it fills its ``%name%`` marks with.
    """
    runs = soft_runs()
    words = text["s24"]
    chain = runs.chain
    outer = chain.outer_radius
    labels = {"hard": words["soft_hard"], "soft": words["soft_soft"]}
    knees = {run: runs.knee_deg(run) for run in RUNS}
    chart = knee_chart(
        knees,
        ~np.asarray(runs.hard.reachable, dtype=bool),
        labels=labels,
        words={
            "title": words["soft_chart_title"],
            "x": words["soft_chart_x"],
            "y": words["soft_chart_y"],
            "beyond": words["soft_chart_beyond"],
        },
        chart_id="soft-reach",
    )
    track_d = np.array([D_NEAR, D_FAR])
    data: dict[str, Any] = {
        "frames": FRAMES,
        "fps": FPS,
        "static": STATIC_FRAME,
        "targets": np.round(runs.targets, POSITION_DECIMALS).tolist(),
        "d": [format_number(float(d), 2) for d in distances()],
        "cursor": chart.x.tolist(),
        "runs": {
            run: {
                "joints": np.round(runs.run(run).joints, POSITION_DECIMALS).tolist(),
                "knee": [format_angle(float(a), 1) for a in runs.run(run).angles[:, 1]],
                "error": [format_number(float(e), 4) for e in runs.run(run).error],
                "status": _status_words(runs.run(run), text),
                "y": chart.y[run].tolist(),
            }
            for run in RUNS
        },
        "reach": {"outer": outer, "soft_start": round(outer - SOFT, 12)},
        "track": np.round(
            np.stack((track_d * math.cos(HEADING), track_d * math.sin(HEADING)), axis=-1),
            POSITION_DECIMALS,
        ).tolist(),
        "box": dataclasses.asdict(panel_box(runs)),
        "words": {
            "play": words["soft_play"],
            "pause": words["soft_pause"],
            "position": words["soft_position"],
            "knee": words["soft_knee"],
            "scrub_value": words["soft_scrub_value"],
        },
    }
    return {"data": data, "chart": chart, "labels": labels}


def frame_words(data: Mapping[str, Any], frame: int) -> dict[str, str]:
    """The texts of one frame: the status line, each panel's reading, the slider's."""
    runs = data["runs"]
    words = data["words"]
    values = {
        "frame": str(frame + 1),
        "frames": str(data["frames"]),
        "d": data["d"][frame],
        **{f"{run}_{key}": runs[run][key][frame] for run in RUNS for key in ("knee", "error")},
        **{f"{run}_status": runs[run]["status"][frame] for run in RUNS},
    }
    return {
        "position": fill(words["position"], **values),
        "scrub_value": fill(words["scrub_value"], **values),
        **{
            run: fill(words["knee"], knee=runs[run]["knee"][frame], error=runs[run]["error"][frame])
            for run in RUNS
        },
    }


def soft_reach_table(text: Mapping[str, Any]) -> dict[str, Any]:
    """The table under the player: at :data:`TABLE_FRAMES`, d, both knees, and the soft
    run's error, least possible error (``min_error``) and status, from the solver."""
    runs = soft_runs()
    words = text["s24"]
    d = distances()
    rows, values = [], []
    for k in TABLE_FRAMES:
        hard_q2 = float(runs.hard.angles[k, 1])
        soft_q2 = float(runs.soft.angles[k, 1])
        error = float(runs.soft.error[k])
        least = float(runs.soft.min_error[k])
        status = str(runs.soft.status[k])
        rows.append(
            [
                format_number(float(d[k]), 2),
                format_angle(hard_q2, 2),
                format_angle(soft_q2, 2),
                format_number(error, 4),
                format_number(least, 4),
                text["status"][status],
            ]
        )
        values.append([k, float(d[k]), hard_q2, soft_q2, error, least, status])
    table = {
        "id": "table-soft-reach",
        "caption": words["soft_caption"],
        "columns": words["soft_columns"],
        "rows": rows,
        "values": values,
        "links": None,
    }
    return named_table(table, dict(text))


def soft_reach_table_block(
    name: str, section: Any, text: dict[str, Any], figure: Any
) -> dict[str, Any]:
    """The player's table, a block of its own under the player."""
    return {"kind": "table", "table": soft_reach_table(text)}


def soft_reach_block(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """The soft-reach player of 2.4: two panels at :data:`STATIC_FRAME`, the knee chart
    with its cursor there, and the per-frame data ``soft.js`` plays (the table is
    :func:`soft_reach_table_block`)."""
    view = soft_reach_view(text)
    data = view["data"]
    words = text["s24"]
    frame = STATIC_FRAME
    shown = frame_words(data, frame)
    return {
        "kind": "soft-reach",
        "soft": {
            "id": "soft-reach",
            "title": words["soft_title"],
            "svg": svg_from_view(data, frame, svg_id="soft-reach-svg", title=words["soft_title"]),
            "chart": place_cursor(view["chart"].svg, view["chart"], frame),
            "chart_caption": words["soft_chart_caption"],
            "panels": [
                {"run": run, "label": view["labels"][run], "reading": shown[run]} for run in RUNS
            ],
            "position": shown["position"],
            "scrub_value": shown["scrub_value"],
            "frame": frame,
            "frames": FRAMES,
            "play": words["soft_play"],
            "scrub": words["soft_scrub"],
            "data": data,
        },
    }
