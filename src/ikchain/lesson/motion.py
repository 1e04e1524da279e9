"""Moving targets: a preset path played frame by frame, each frame solved on a budget.

A path (circle, figure-of-eight, or a jump across the reach boundary and back) is
sampled at ``frames_per_lap`` frames a lap, for :data:`LAPS` laps. Each frame every
method (CCD, FABRIK, damped least squares) gets at most ``budget`` iterations, starting
either from its own previous frame's pose (*warm*, as engines do) or from the default
start pose every frame (*cold*). What the page plays back is computed here, with
:func:`ikchain.solve` (cold) and :func:`ikchain.follow` (warm: the path in one call)
only: each method's pose, tip and tracking error per frame.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ikchain.caps import CAPS
from ikchain.chain import Chain
from ikchain.formatting import format_number
from ikchain.kinematics import wrap_angle
from ikchain.lesson import plots
from ikchain.lesson.figures import STYLE
from ikchain.lesson.labels import fill, named_table
from ikchain.lesson.tables import LENGTHS_BY_BONES
from ikchain.solvers import follow, solve

#: Methods tracked side by side.
MOTION_METHODS = ("ccd", "fabrik", "dls")
PATHS = ("circle", "figure8", "jump")
STARTS = ("warm", "cold")
#: Laps computed: the first starts from the start pose, the second shows steady tracking.
LAPS = 2
#: Frames per lap the page offers (at 60 frames a second: 1, 2 and 4 s a lap).
FRAMES_PER_LAP = (60, 120, 240)
#: Iteration budgets per frame the page offers.
BUDGETS = (1, 2, 4, 8, 16, 64)
#: Caps on one request: frames per lap, and bones × iterations × frames × methods. The
#: work cap keeps a motion at the caps within the 50 ms budget at load average 2
#: (``ikchain bench caps``); the page's player (3 bones, at most 480 frames × 64
#: iterations × 3 methods = 276,480) stay within it.
MAX_FRAMES_PER_LAP = 240
MAX_BUDGET = 64
MAX_MOTION_WORK = 280_000
#: A frame counts as "on target" when its error is within this of the best possible.
ON_TARGET = 1e-6
#: The tracking chart's floor: smaller errors are rounding, drawn on its bottom edge.
CHART_FLOOR = 1e-12
#: Decimals of the drawn positions (m): a micrometre, far below a pixel (the printed
#: errors are formatted from the unrounded solve).
POSITION_DECIMALS = 6


def reply_bytes_bound(bones: int, frames: int) -> int:
    """An upper bound of a motion reply's size (bytes), before any work: per frame and
    method the joints (11 characters a coordinate), the error text and the cursor; per
    frame the target and the cursor; the chart (14 characters a point, 8 kB besides)."""
    methods = len(MOTION_METHODS)
    per_frame = methods * (22 * (bones + 1) + 16 + 10 + 14) + 22 + 10 + 22
    return 12_000 + frames * per_frame


#: Path geometry (m) for the lesson's chains (ΣL = 1.4, inner radius ≤ 0.2): every
#: point of the circle and the figure-of-eight lies inside the reachable annulus; the
#: jump goes from a point inside it to one outside and back.
CIRCLE: dict[str, Any] = {"centre": (0.7, 0.2), "radius": 0.45}
FIGURE8: dict[str, Any] = {"centre": (0.75, 0.15), "width": 0.45, "height": 0.45}
JUMP: dict[str, Any] = {"inside": (0.8, 0.5), "outside": (1.5, 0.75)}


def targets_from_path(path: str, frames_per_lap: int, laps: int = LAPS) -> np.ndarray:
    """Targets of ``path``, shape (frames_per_lap · laps, 2) (m)."""
    if path not in PATHS:
        raise ValueError(f"path: expected one of {', '.join(PATHS)}, got {path!r}")
    t = 2.0 * math.pi * np.arange(frames_per_lap * laps) / frames_per_lap
    if path == "circle":
        (cx, cy), r = CIRCLE["centre"], CIRCLE["radius"]
        return np.stack((cx + r * np.cos(t), cy + r * np.sin(t)), axis=-1)
    if path == "figure8":
        (cx, cy), a, b = FIGURE8["centre"], FIGURE8["width"], FIGURE8["height"]
        return np.stack((cx + a * np.sin(t), cy + b * np.sin(t) * np.cos(t)), axis=-1)
    phase = np.arange(frames_per_lap * laps) % frames_per_lap
    outside = phase >= frames_per_lap // 2
    return np.where(outside[:, None], JUMP["outside"], JUMP["inside"]).astype(np.float64)


@dataclass(frozen=True)
class Track:
    """One method's run along a path: per frame its pose, joints, error and iterations."""

    method: str
    angles: np.ndarray  # (F, n)
    joints: np.ndarray  # (F, n + 1, 2)
    error: np.ndarray  # (F,)
    min_error: np.ndarray  # (F,)
    iterations: np.ndarray  # (F,)

    def joint_jumps_deg(self) -> np.ndarray:
        """Largest joint-angle change from each frame to the next (°, wrapped), (F - 1,)."""
        change = wrap_angle(np.diff(self.angles, axis=0))
        return np.degrees(np.max(np.abs(change), axis=-1))


def track(
    chain: Chain, targets: np.ndarray, method: str, budget: int, start: str = "warm"
) -> Track:
    """Follow ``targets`` frame by frame with ``method``, ``budget`` iterations a frame."""
    if start not in STARTS:
        raise ValueError(f"start: expected one of {', '.join(STARTS)}, got {start!r}")
    if start == "cold":  # the frames are independent: one batch
        every = solve(chain, targets, method, max_iterations=budget)
    else:  # each frame from this method's previous pose: the path in order, one call
        every = follow(chain, targets, method, max_iterations=budget)
    return Track(method, every.angles, every.joints, every.error, every.min_error, every.iterations)


@functools.lru_cache(maxsize=32)
def tracked(
    lengths: tuple[float, ...], path: str, frames_per_lap: int, budget: int, start: str
) -> tuple[np.ndarray, dict[str, Track]]:
    """The path's targets and every method's :class:`Track` (recent requests cached)."""
    chain = Chain(lengths)
    targets = targets_from_path(path, frames_per_lap)
    return targets, {m: track(chain, targets, m, budget, start) for m in MOTION_METHODS}


def check_work(bones: int, frames: int, budget: int) -> None:
    """Refuse a motion request whose worst case exceeds :data:`MAX_MOTION_WORK`."""
    work = bones * frames * max(1, budget) * len(MOTION_METHODS)
    if work > MAX_MOTION_WORK:
        raise ValueError(
            f"motion: expected bones × frames × budget × methods <= {MAX_MOTION_WORK}, "
            f"got {bones} × {frames} × {budget} × {len(MOTION_METHODS)} = {work}"
        )


def last_lap(values: np.ndarray, frames_per_lap: int) -> np.ndarray:
    """The last lap's part of a per-frame series."""
    return values[-frames_per_lap:]


def summary(tr: Track, frames_per_lap: int) -> dict[str, float]:
    """Tracking over the last lap: mean and worst error, share on target, iterations."""
    error = last_lap(tr.error, frames_per_lap)
    best = last_lap(tr.min_error, frames_per_lap)
    jumps = last_lap(tr.joint_jumps_deg(), frames_per_lap)
    return {
        "mean_error": float(np.mean(error)),
        "worst_error": float(np.max(error)),
        "on_target": float(np.mean(error <= best + ON_TARGET)),
        "mean_iterations": float(np.mean(last_lap(tr.iterations, frames_per_lap))),
        "worst_jump": float(np.max(jumps)),
    }


# -- The page's view ------------------------------------------------------------------


@dataclass(frozen=True)
class MotionRequest:
    """A validated request for a tracked path."""

    chain: Chain
    path: str
    frames_per_lap: int
    budget: int
    start: str


def motion_request(
    chain: Chain, path: Any, frames_per_lap: Any, budget: Any, start: Any
) -> MotionRequest:
    """Validate the parts of a motion request beyond the chain; ValueError with a message."""
    if not isinstance(path, str) or path not in PATHS:
        raise ValueError(f"path: expected one of {', '.join(PATHS)}, got {str(path)[:40]!r}")
    if not isinstance(start, str) or start not in STARTS:
        raise ValueError(f"start: expected one of {', '.join(STARTS)}, got {str(start)[:40]!r}")
    for name, value, low, high in (
        ("frames_per_lap", frames_per_lap, 8, MAX_FRAMES_PER_LAP),
        ("budget", budget, 1, MAX_BUDGET),
    ):
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise ValueError(
                f"{name}: expected a whole number from {low} to {high}, got {str(value)[:40]}"
            )
    check_work(chain.n_bones, frames_per_lap * LAPS, budget)
    bound = reply_bytes_bound(chain.n_bones, frames_per_lap * LAPS)
    if bound > CAPS["max_reply_bytes"]:
        raise ValueError(
            f"motion: expected a reply within {CAPS['max_reply_bytes']:,} bytes, this one "
            f"could take {bound:,} ({chain.n_bones} bones, {frames_per_lap * LAPS} frames); "
            "ask for fewer frames per lap"
        )
    return MotionRequest(chain, path, frames_per_lap, budget, start)


def motion_view(request: MotionRequest, words: dict[str, str]) -> dict[str, Any]:
    """Every method's run along the path, as the page plays it back.

    ``words`` holds the chart's ``title``, ``x`` and ``y`` labels and the method
    names (``method_ccd`` …). Per method: the joints of every frame, the error of
    every frame formatted, and the last lap's summary (formatted). ``cursor`` is the
    chart's x pixel of each frame; ``path`` is one lap of targets (the drawn path).
    """
    chain = request.chain
    targets, tracks = tracked(
        tuple(chain.lengths.tolist()),
        request.path,
        request.frames_per_lap,
        request.budget,
        request.start,
    )
    frames = len(targets)
    chart = plots.error_chart(
        [
            {
                "key": m,
                "label": words[f"method_{m}"],
                "points": [(float(i), float(e)) for i, e in enumerate(tracks[m].error)],
            }
            for m in MOTION_METHODS
        ],
        x_label=words["x"],
        y_label=words["y"],
        title=words["title"],
        chart_id="motion",
        x_max=frames - 1,
        floor=CHART_FLOOR,
    )
    methods = {}
    for m, tr in tracks.items():
        s = summary(tr, request.frames_per_lap)
        methods[m] = {
            "joints": np.round(tr.joints, POSITION_DECIMALS).tolist(),
            "errors": [format_number(float(e), 6) for e in tr.error],
            "summary": format_summary(s),
            "y": np.round(chart.place_all(np.arange(frames), tr.error)[1], 2).tolist(),
        }
    return {
        "path": request.path,
        "start": request.start,
        "budget": request.budget,
        "frames": frames,
        "frames_per_lap": request.frames_per_lap,
        "targets": np.round(targets, POSITION_DECIMALS).tolist(),
        # one lap of targets, closed where the path is a loop
        "lap": np.round(
            targets[: request.frames_per_lap + (request.path != "jump")], POSITION_DECIMALS
        ).tolist(),
        "reach": {"inner": chain.inner_radius, "outer": chain.outer_radius},
        "methods": methods,
        "chart": chart.svg,
        "cursor": np.round(chart.place_all(np.arange(frames), np.ones(frames))[0], 2).tolist(),
    }


def format_summary(s: dict[str, float]) -> dict[str, str]:
    """A summary's numbers as the table and the page print them."""
    return {
        "mean_error": format_number(s["mean_error"], 6),
        "worst_error": format_number(s["worst_error"], 6),
        "on_target": f"{100.0 * s['on_target']:.0f} %",
        "mean_iterations": format_number(s["mean_iterations"], 1),
        "worst_jump": format_number(s["worst_jump"], 1),
    }


# -- The page's one motion player, and the settings other sections open it with -----

#: The settings a learner can open the player with: ``tracking`` is the player's own
#: default (2.6: how fast each method keeps up), ``coherence`` the frame-before
#: chooser of 2.5 (a figure-of-eight with cold starts, where the pose can jump). The
#: tables and the chart of 2.5 are computed on the ``coherence`` settings.
MOTION_PRESETS: dict[str, dict[str, Any]] = {
    "tracking": {
        "bones": 3,
        "path": "circle",
        "frames_per_lap": 120,
        "budget": 4,
        "start": "warm",
        "show": "ccd",
    },
    "coherence": {
        "bones": 3,
        "path": "figure8",
        "frames_per_lap": 120,
        "budget": 16,
        "start": "cold",
        "show": "ccd",
    },
}
#: The one player: its id, the controls it offers (every
#: setting a preset may change), and the ones shown beside Play (the rest fold under
#: its "more" disclosure, which a preset opens when it changes one of them).
MOTION_PLAYER: dict[str, Any] = {
    "id": "motion-player",
    "controls": ("path", "budget", "show", "speed", "start"),
    "shown": ("path", "budget", "show"),
}


def motion_default(name: str, text: dict[str, Any]) -> dict[str, Any]:
    """The run of preset ``name`` (:func:`motion_view`)."""
    d = MOTION_PRESETS[name]
    chain = Chain(LENGTHS_BY_BONES[d["bones"]])
    request = motion_request(chain, d["path"], d["frames_per_lap"], d["budget"], d["start"])
    return motion_view(request, motion_words(text))


def motion_words(text: dict[str, Any]) -> dict[str, str]:
    """The chart's labels and the method names, for :func:`motion_view`."""
    words = text["motion"]
    methods = {f"method_{m}": text["controls"][f"method_{m}"] for m in MOTION_METHODS}
    return {"title": words["chart_title"], "x": words["chart_x"], "y": words["chart_y"], **methods}


def motion_block(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """The motion player: its default run drawn at the last frame, chart and controls
    (``name`` is the preset it opens with); every preset's settings ride along, for the
    links that open the player with them (:func:`motion_preset_link`)."""
    d = MOTION_PRESETS[name]
    view = motion_default(name, text)
    player_id = MOTION_PLAYER["id"]
    last = view["frames"] - 1
    svg = plots.svg_from_motion(
        view, d["show"], last, figure_id=player_id, title=text["motion"]["title"]
    )
    summary = [
        {"method": m, "label": text["controls"][f"method_{m}"], **view["methods"][m]["summary"]}
        for m in MOTION_METHODS
    ]
    return {
        "kind": "motion",
        "motion": {
            "id": player_id,
            "svg": svg,
            "chart": view["chart"],
            "defaults": preset_state(name),
            "presets": {key: preset_state(key) for key in MOTION_PRESETS},
            "controls": list(MOTION_PLAYER["controls"]),
            "shown": list(MOTION_PLAYER["shown"]),
            # the radius of a joint mark the script adds (m), as the server draws them
            "joint_r": STYLE["joint_r"],
            "options": {
                "paths": list(PATHS),
                "frames_per_lap": list(FRAMES_PER_LAP),
                "budgets": list(BUDGETS),
                "starts": list(STARTS),
                "methods": list(MOTION_METHODS),
            },
            "summary": summary,
        },
    }


def preset_state(name: str) -> dict[str, Any]:
    """Preset ``name`` as the player's state holds it (the chain's lengths included)."""
    d = MOTION_PRESETS[name]
    return {**d, "lengths": list(LENGTHS_BY_BONES[d["bones"]])}


def motion_preset_link(
    name: str, section: Any, text: dict[str, Any], figure: Any
) -> dict[str, Any]:
    """A link that opens the one motion player with preset ``name``: with scripts on it
    sets the player to those settings and plays them; with scripts off it leads to the
    player (the tables beside the link hold that preset's numbers)."""
    d = MOTION_PRESETS[name]
    words = text["motion"]
    label = fill(
        words[f"preset_{name}"],
        path=words[f"path_{d['path']}"],
        budget=d["budget"],
        start=words[f"start_{d['start']}"],
    )
    return {
        "kind": "motion-link",
        "link": {"player": MOTION_PLAYER["id"], "preset": name, "label": label},
    }


def motion_table(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """The table of a motion player's default run: the last lap, per method."""
    view = motion_default(name, text)
    d = MOTION_PRESETS[name]
    _, tracks = tracked(
        tuple(LENGTHS_BY_BONES[d["bones"]]), d["path"], d["frames_per_lap"], d["budget"], d["start"]
    )
    words = text[section.key]
    rows, values = [], []
    for m in MOTION_METHODS:
        s = view["methods"][m]["summary"]
        raw = summary(tracks[m], d["frames_per_lap"])
        label = text["controls"][f"method_{m}"]
        rows.append(
            [
                label,
                s["mean_error"],
                s["worst_error"],
                s["on_target"],
                s["mean_iterations"],
                s["worst_jump"],
            ]
        )
        values.append([m, *(raw[k] for k in SUMMARY_KEYS)])
    table = {
        "id": f"table-motion-{name}",
        "caption": words[f"{name}_caption"],
        "columns": words[f"{name}_columns"],
        "rows": rows,
        "values": values,
    }
    return {"kind": "table", "table": named_table(table, text)}


SUMMARY_KEYS = ("mean_error", "worst_error", "on_target", "mean_iterations", "worst_jump")


#: A joint turning more than this between two frames is a visible jump (°).
JUMP_DEGREES = 30.0


def coherence_table(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """Table ⑤c: warm against cold starts on the coherence preset's path."""
    d = MOTION_PRESETS[name]
    lengths = tuple(LENGTHS_BY_BONES[d["bones"]])
    rows, values = [], []
    words = text["motion"]
    for method in MOTION_METHODS:
        for start in STARTS:
            _, tracks = tracked(lengths, d["path"], d["frames_per_lap"], d["budget"], start)
            tr = tracks[method]
            lap = d["frames_per_lap"]
            jumps = last_lap(tr.joint_jumps_deg(), lap)
            error = last_lap(tr.error, lap)
            big = int(np.sum(jumps > JUMP_DEGREES))
            values.append([method, start, float(np.max(jumps)), big, float(np.mean(error))])
            rows.append(
                [
                    text["controls"][f"method_{method}"],
                    words[f"start_{start}"],
                    format_number(float(np.max(jumps)), 1),
                    str(big),
                    format_number(float(np.mean(error)), 6),
                ]
            )
    table = {
        "id": f"table-motion-{name}",
        "caption": text[section.key][f"{name}_caption"],
        "columns": text[section.key][f"{name}_columns"],
        "rows": rows,
        "values": values,
    }
    return {"kind": "table", "table": named_table(table, text)}


def jumps_chart(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """The chart under Table ⑤d: per frame of the counted lap, the largest joint turn
    since the frame before (the quantity the table's columns sum up), for the method
    the preset draws, warm and cold."""
    d = MOTION_PRESETS[name]
    lengths = tuple(LENGTHS_BY_BONES[d["bones"]])
    lap = d["frames_per_lap"]
    words, page = text[section.key], text["motion"]
    series = []
    method = d["show"]  # the chain the preset draws: one method, warm and cold
    for start in STARTS:
        _, tracks = tracked(lengths, d["path"], lap, d["budget"], start)
        jumps = last_lap(tracks[method].joint_jumps_deg(), lap)
        series.append(
            {
                "key": start,
                "label": fill(words["jumps_series"], start=page[f"start_{start}"]),
                "points": [(float(k + 1), float(v)) for k, v in enumerate(jumps)],
            }
        )
    chart = plots.error_chart(
        series,
        x_label=words["jumps_x"],
        y_label=words["jumps_y"],
        title=words["jumps_title"],
        chart_id=f"jumps-{name}",
        floor=1e-3,
    )
    return {
        "kind": "chart",
        "chart": {"id": f"jumps-{name}", "caption": words["jumps_caption"], "svg": chart.svg},
    }
