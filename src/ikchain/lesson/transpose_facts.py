"""The numbers 2.2's text quotes for the Jacobian transpose and the ellipse, solved here.

Section 2.2 introduces the Jacobian transpose (method ``"jt"``) between CCD and
damped least squares, and the manipulability ellipse its figure draws. What the text
says of them in numbers is measured by the solver, from the figure's default start,
with the figure's budget and Table ②b's tolerance: nothing is typed into the text.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ikchain.formatting import format_count, format_number
from ikchain.lesson.frames import ELLIPSE_SCALE, FRAME_ITERATIONS
from ikchain.lesson.tables import TABLE2_TARGET, TOLERANCE, lesson_chain, table_facts
from ikchain.solvers import solve

#: A budget no request may ask for, to count the iterations the transpose needs near
#: full extension (it converges there, slowly; ``None`` if it ever did not).
EDGE_BUDGET = 100_000


@functools.cache
def transpose_facts() -> dict[str, Any]:
    """What 2.2's Jacobian-transpose paragraphs cite, as numbers.

    ``{method}_default``: iterations CCD, the Jacobian transpose and DLS take on the
    figure's default target (Table ② 's, :data:`~ikchain.lesson.tables.TABLE2_TARGET`)
    from the default start, within the figure's budget (``None``: not within it);
    ``jt_edge``: the transpose's iterations on Table ②b's edge row, within
    :data:`EDGE_BUDGET`; ``edge_ratio``: that row's d/ΣL; ``ellipse_scale``: the
    ellipse's drawing scale (m per m/rad).
    """
    chain = lesson_chain(2)
    target = np.asarray(TABLE2_TARGET, dtype=np.float64)
    facts: dict[str, Any] = {}
    for method in ("ccd", "jt", "dls"):
        result = solve(chain, target, method, max_iterations=FRAME_ITERATIONS, tolerance=TOLERANCE)
        facts[f"{method}_default"] = int(result.iterations) if result.converged else None
    table = table_facts()
    edge = next(row for row in table["reach"] if row["ratio"] == table["growth_to"])
    result = solve(
        chain, np.asarray(edge["target"]), "jt", max_iterations=EDGE_BUDGET, tolerance=TOLERANCE
    )
    facts["jt_edge"] = int(result.iterations) if result.converged else None
    facts["edge_ratio"] = float(edge["ratio"])
    facts["ellipse_scale"] = ELLIPSE_SCALE
    return facts


def transpose_values() -> dict[str, str]:
    """:func:`transpose_facts` as the text prints them (``jt_*`` placeholders)."""
    facts = transpose_facts()
    return {
        "jt_ccd_default": format_count(facts["ccd_default"]),
        "jt_default": format_count(facts["jt_default"]),
        "jt_dls_default": format_count(facts["dls_default"]),
        "jt_edge": format_count(facts["jt_edge"]),
        "jt_edge_ratio": format_number(facts["edge_ratio"], 3),
        "ellipse_scale": format_number(facts["ellipse_scale"], 1),
    }
