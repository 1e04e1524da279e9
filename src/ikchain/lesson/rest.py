"""Section 2.5's preferred (rest) pose: the poses, the pull strengths the page offers,
and Table ⑤c, DLS without and with the pull toward the rest pose.

The pull itself is the library's (``solve(..., rest=, rest_weight=)``); this module
only chooses the poses and describes them for the page.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ikchain.chain import Chain
from ikchain.formatting import format_degrees, format_number, format_point
from ikchain.kinematics import joints_from_angles
from ikchain.lesson.labels import named_table
from ikchain.lesson.tables import LENGTHS_BY_BONES, TOLERANCE, _link, angle_gap_deg
from ikchain.solvers import solve

#: The preferred pose per bone count (degrees): a relaxed, gently curled chain, inside
#: the "arm" limits so that both can be on together.
REST_POSES_DEG: dict[int, tuple[float, ...]] = {
    2: (10.0, 60.0),
    3: (10.0, 60.0, 60.0),
    4: (10.0, 45.0, 45.0, 45.0),
}
#: The pull strengths the page offers (``rest_weight``; 0 sends no rest pose).
REST_WEIGHTS = (0.0, 0.1, 1.0)
#: Targets of Table ⑤c (m).
REST_TARGETS = ((0.4, 0.8), (-0.5, 0.6), (1.1, -0.2))
#: Iterations for Table ⑤c.
REST_ITERATIONS = 500
#: The damping 2.5's figure starts with (content.figure_defaults).
FIGURE_DAMPING = 1.0


def rest_options(section_key: str) -> dict[str, Any] | None:
    """For the page: each bone count's rest pose (rad) and its joints, and the weights."""
    if section_key != "s25":
        return None
    poses = {}
    for bones, degrees in REST_POSES_DEG.items():
        angles = np.radians(degrees)
        joints = joints_from_angles(np.array(LENGTHS_BY_BONES[bones]), angles[None, :])[0]
        poses[str(bones)] = {"angles": angles.tolist(), "joints": joints.tolist()}
    return {"poses": poses, "weights": list(REST_WEIGHTS)}


def _rest_solve(chain: Chain, target: Any, weight: float) -> Any:
    """One row's solve, with the options 2.5's figure sends for it (its tolerance and
    damping, the row's budget and pull), so a row loaded into the figure is this solve."""
    rest = np.radians(REST_POSES_DEG[3])
    return solve(
        chain,
        target,
        "dls",
        max_iterations=REST_ITERATIONS,
        tolerance=TOLERANCE,
        damping=FIGURE_DAMPING,
        rest=None if weight == 0.0 else rest,
        rest_weight=None if weight == 0.0 else weight,
    )


def rest_table(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """Table ⑤c: DLS from the start pose, without and with the pull toward the rest pose.

    A row clicked loads into 2.5's figure: the free chain, DLS, the row's pull and the
    table's budget, solved from the start pose, which is the row's own solve."""
    chain = Chain(LENGTHS_BY_BONES[3])
    rest = np.radians(REST_POSES_DEG[3])
    words = text["choose"]
    rows, values, links = [], [], []
    for target in REST_TARGETS:
        for weight in REST_WEIGHTS:
            result = _rest_solve(chain, target, weight)
            links.append(
                _link(
                    "fig-s25",
                    target,
                    "dls",
                    result,
                    bones=3,
                    iterations=REST_ITERATIONS,
                    damping=FIGURE_DAMPING,
                    tolerance=TOLERANCE,
                    cold=True,
                    limits="free",
                    rest=weight,
                )
            )
            gap = angle_gap_deg(result.angles, rest)
            values.append(
                [target, weight, result.angles.tolist(), gap, result.error, result.iterations]
            )
            rows.append(
                [
                    format_point(target, 2),
                    words["rest_off"] if weight == 0.0 else format_number(weight, 1),
                    format_degrees(result.angles, 1),
                    format_number(gap, 1),
                    format_number(result.error, 6),
                    str(result.iterations),
                ]
            )
    table = {
        "id": "table-rest",
        "caption": text[section.key]["rest_caption"],
        "columns": text[section.key]["rest_columns"],
        "rows": rows,
        "values": values,
        "links": links,
    }
    return {"kind": "table", "table": named_table(table, text)}


def rest_facts() -> dict[str, Any]:
    """What the text says of Table ⑤c: the most iterations the weak pull took."""
    chain = Chain(LENGTHS_BY_BONES[3])
    weak = min(w for w in REST_WEIGHTS if w > 0.0)
    runs = [_rest_solve(chain, t, weak) for t in REST_TARGETS]
    return {"weak_sweeps": max(int(r.iterations) for r in runs), "weak": weak}
