"""The scripted drag every lesson benchmark replays, and its figures: one place for
both :mod:`ikchain.bench.lesson` (frame time, drag-to-redraw) and
:mod:`ikchain.bench.server` (fairness, load), which import it and not each other."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

#: Frames of the scripted drag, and the frames run first and not counted.
DEFAULT_FRAMES = 300
WARMUP_FRAMES = 30
#: The drag: a figure-of-eight around the section's default target.
PATH_AMPLITUDE = (0.35, 0.22)  # m, in x and y
PATH_LOOPS = 2


def drag_path(
    centre: Sequence[float], frames: int = DEFAULT_FRAMES, loops: int = PATH_LOOPS
) -> np.ndarray:
    """Targets of a scripted drag, shape (frames, 2): a figure-of-eight around ``centre``."""
    t = np.arange(frames) / frames * loops * 2.0 * math.pi
    ax, ay = PATH_AMPLITUDE
    return np.stack([centre[0] + ax * np.sin(t), centre[1] + ay * np.sin(2.0 * t)], axis=-1)


def sections() -> list[dict[str, Any]]:
    """Each section's figure defaults: id, method, lengths and the rest of the state."""
    from ikchain.lesson.content import SECTIONS, figure_defaults

    out = []
    for section in SECTIONS:
        if not section.live_figure:  # 2.6 plays a path; there is no drag to time
            continue
        defaults = figure_defaults(section)
        out.append({"key": section.key, "figure": f"fig-{section.key}", **defaults})
    return out


def frame_body(state: dict[str, Any], target: Sequence[float], init: Any) -> dict[str, Any]:
    """The request the page's script sends for this state (see lesson.js ``body()``)."""
    from ikchain.lesson.frames import METHOD_TAKES

    takes = METHOD_TAKES[state["method"]]
    warm = init if "init" in takes else None
    return {
        "id": 0,
        "lengths": state["lengths"],
        "target": [float(target[0]), float(target[1])],
        "method": state["method"],
        "init": warm,
        "iterations": state["iterations"] if "iterations" in takes else None,
        "tolerance": state["tolerance"] if "tolerance" in takes else None,
        "damping": state["damping"] if "damping" in takes else None,
        # the page sends the bend direction with every frame (frames.keep_bend)
        "bend": state["bend"] if "bend" in takes else None,
        "smoothing": None,
        "previous_target": None,
        "family": None,
        **({"angle": state["angle"]} if "angle" in state else {}),  # 2.8: the hand's angle
    }


def percentiles(samples_ms: Sequence[float]) -> dict[str, float]:
    """p50, p95, p99, max and mean of a list of milliseconds."""
    values = np.asarray(samples_ms, dtype=float)
    if values.size == 0:
        nan = math.nan
        return {"n": 0, "p50": nan, "p95": nan, "p99": nan, "max": nan, "mean": nan}
    return {
        "n": int(values.size),
        "p50": float(np.percentile(values, 50)),
        "p95": float(np.percentile(values, 95)),
        "p99": float(np.percentile(values, 99)),
        "max": float(values.max()),
        "mean": float(values.mean()),
    }
