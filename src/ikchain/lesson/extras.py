"""The page blocks of issue 9's new capabilities: the replay panel (and, later, the
moving targets and section 2.5), described for the template like :mod:`content`'s.

Each block is computed from the solver for the figure's default state, so that the
page reads whole with scripts off; the page's scripts (``replay.js``) then ask the
server for new ones through the frame channel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ikchain.chain import Chain
from ikchain.lesson import motion, plots, replay
from ikchain.lesson.tables import LENGTHS_BY_BONES


def fill(template: str, **values: Any) -> str:
    """``template`` with each ``%name%`` replaced (the page's script fills the same marks)."""
    for name, value in values.items():
        template = template.replace(f"%{name}%", str(value))
    return template


def replay_default(figure: dict[str, Any], text: dict[str, Any]) -> dict[str, Any]:
    """The replay of a figure's default state, as :func:`replay.replay_view` gives it."""
    d = figure["defaults"]
    chain = Chain(d["lengths"])
    options = {
        "max_iterations": min(d["iterations"], replay.MAX_REPLAY_ITERATIONS),
        "tolerance": d["tolerance"],
        "bend": d["bend"],
    }
    if d["method"] != "fabrik":
        options["damping"] = d["damping"]
    found = replay.replay_solve(chain, np.asarray(d["target"], dtype=float), d["method"], options)
    words = text["replay"]
    labels = {
        "x": words["chart_x"],
        "y": words["chart_y"],
        "title": words["chart_title"],
        "id": f"{figure['id']}-replay",
    }
    return replay.replay_view(found, chain, labels)


def replay_block(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """The replay panel under ``figure``: its default chart and a summary sentence."""
    view = replay_default(figure, text)
    words = text["replay"]
    summary = fill(
        words["summary"],
        method=text["controls"][f"method_{view['method']}"],
        iterations=view["iterations"],
        status=text["status"].get(view["status"], view["status"]),
        error=view["error"],
    )
    return {
        "kind": "replay",
        "replay": {
            "id": f"{figure['id']}-replay",
            "figure": figure["id"],
            "chart": view["chart"],
            "summary": summary,
            "steps": len(view["steps"]),
            "max_iterations": replay.MAX_REPLAY_ITERATIONS,
        },
    }


# -- Moving targets ---------------------------------------------------------------------

#: The motion players on the page: their default state and the controls they show.
MOTION_PLAYERS: dict[str, dict[str, Any]] = {
    "tracking": {
        "bones": 3,
        "path": "circle",
        "frames_per_lap": 120,
        "budget": 4,
        "start": "warm",
        "show": "ccd",
        "controls": ("path", "speed", "budget", "show"),
    },
}


def motion_default(name: str, text: dict[str, Any]) -> dict[str, Any]:
    """The default run of motion player ``name`` (:func:`motion.motion_view`)."""
    d = MOTION_PLAYERS[name]
    chain = Chain(LENGTHS_BY_BONES[d["bones"]])
    request = motion.motion_request(chain, d["path"], d["frames_per_lap"], d["budget"], d["start"])
    return motion.motion_view(request, motion_words(text))


def motion_words(text: dict[str, Any]) -> dict[str, str]:
    """The chart's labels and the method names, for :func:`motion.motion_view`."""
    words = text["motion"]
    methods = {f"method_{m}": text["controls"][f"method_{m}"] for m in motion.MOTION_METHODS}
    return {"title": words["chart_title"], "x": words["chart_x"], "y": words["chart_y"], **methods}


def motion_block(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """A motion player: its default run drawn at the last frame, chart and controls."""
    d = MOTION_PLAYERS[name]
    view = motion_default(name, text)
    player_id = f"motion-{name}"
    last = view["frames"] - 1
    svg = plots.svg_from_motion(
        view, d["show"], last, figure_id=player_id, title=text["motion"]["title"]
    )
    summary = [
        {"method": m, "label": text["controls"][f"method_{m}"], **view["methods"][m]["summary"]}
        for m in motion.MOTION_METHODS
    ]
    return {
        "kind": "motion",
        "motion": {
            "id": player_id,
            "svg": svg,
            "chart": view["chart"],
            "defaults": {
                **{k: v for k, v in d.items() if k != "controls"},
                "lengths": list(LENGTHS_BY_BONES[d["bones"]]),
            },
            "controls": list(d["controls"]),
            "options": {
                "paths": list(motion.PATHS),
                "frames_per_lap": list(motion.FRAMES_PER_LAP),
                "budgets": list(motion.BUDGETS),
                "starts": list(motion.STARTS),
                "methods": list(motion.MOTION_METHODS),
            },
            "summary": summary,
        },
    }


def motion_table(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """The table of a motion player's default run: the last lap, per method."""
    view = motion_default(name, text)
    words = text[section.key]
    rows, values = [], []
    for m in motion.MOTION_METHODS:
        s = view["methods"][m]["summary"]
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
        values.append([m, *(s[k] for k in SUMMARY_KEYS)])
    return {
        "kind": "table",
        "table": {
            "id": f"table-motion-{name}",
            "caption": words["table_caption"],
            "columns": words["columns"],
            "rows": rows,
            "values": values,
        },
    }


SUMMARY_KEYS = ("mean_error", "worst_error", "on_target", "mean_iterations", "worst_jump")


#: Block kinds this module builds, for :func:`ikchain.lesson.content._blocks`: each
#: takes the block's name, the section, the page text and the section's figure.
BLOCKS = {"replay": replay_block, "motion": motion_block, "motion-table": motion_table}
