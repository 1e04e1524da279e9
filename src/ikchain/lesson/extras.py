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
from ikchain.lesson import replay


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


def replay_block(figure: dict[str, Any], text: dict[str, Any]) -> dict[str, Any]:
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


#: Block kinds this module builds, for :func:`ikchain.lesson.content._blocks`.
BLOCKS = {"replay": replay_block}
