"""The lesson's tables as data: every number comes from :func:`ikchain.solve`.

:func:`compute_tables` runs the solver once per process (it is cached) and returns
language-independent :class:`TableData`; :func:`format_table` turns one of them into
cell strings for a language. The page, ``ikchain tables`` and the tests all read the
same objects, so a cell cannot differ between them.

The one exception to "only solve()" is the two-bone check column of Table 1, which
recomputes dA independently, in 40-digit decimal arithmetic from the law of cosines,
to check the solver rather than repeat it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from typing import Any

import numpy as np

from ikchain.caps import CAPS
from ikchain.chain import Chain
from ikchain.family import family_from_angles
from ikchain.formatting import degrees_for_people, format_number, format_point
from ikchain.kinematics import wrap_angle
from ikchain.lesson.frames import FRAME_ITERATIONS, bend_of_pose
from ikchain.reach import sweeps_to_tolerance
from ikchain.result import Result
from ikchain.solvers import solve

#: The lesson's chains: the two-bone default, and the same reach split over 3 and 4.
LENGTHS_BY_BONES: dict[int, tuple[float, ...]] = {
    2: (0.8, 0.6),
    3: (0.6, 0.45, 0.35),
    4: (0.5, 0.4, 0.3, 0.2),
}
#: The lesson chains' ΣL (m), the same for every bone count: a coordinate within
#: rounding of it from 0 prints as 0 (:func:`ikchain.formatting.format_point`).
LESSON_SIZE = sum(LENGTHS_BY_BONES[2])
#: Goal of the convergence tables (m).
TOLERANCE = 1e-9
#: A tolerance at the level of rounding, for rows that must agree "to every digit".
EXACT = 1e-15
#: Bone lengths a reader may type into 2.4's figure (m): the chain stays inside the view.
LENGTH_RANGE = (0.1, 0.9)

TABLE1_TARGETS = ((1.4, 0.0), (1.0, 0.6), (-0.6, 0.9), (-0.9, -0.7), (0.4, -1.1), (0.0, 0.21))
TABLE2_TARGET = (1.0, 0.6)
TABLE2_SWEEPS = (1, 2, 4, 8, 16, 32, 64)
DAMPING_SWEEPS = 8
DAMPINGS = (1.0, 0.5, 0.25, 0.1)
STALL_TARGET = (1.0, 0.0)
STALL_SWEEPS = 5
#: Table 2d's start poses (degrees): the all-zero pose, the straight chain turned off
#: the line, and only the elbow bent, the first bone on the line.
STALL_STARTS = ((0.0, 0.0), (3.0, 0.0), (0.0, 3.0))
#: Table 2d's budget: the figure's.
STALL_BUDGET = FRAME_ITERATIONS
SWEEPS_2B = 48
TABLE3_TARGET = (0.9, 0.5)
TABLE3_STARTS = (
    ("A", (20.0, 20.0, 20.0)),
    ("B", (-30.0, 70.0, 50.0)),
    ("C", (160.0, -150.0, -150.0)),
)
SWEEPS_T3 = 200
#: Table 3's tolerance: the smallest power of ten every row reaches (a test checks;
#: row C ends stalled at 1e-15, below what rounding lets its pose reach).
T3_TOLERANCE = 1e-14
SWEEPS_SHORT = 32
TABLE4_DIRECTION = 30.0  # degrees
#: Every target lies inside the 2.4 figure's view, ring and all (a test checks).
TABLE4_DISTANCES = (0.1, 0.15, 0.3, 0.7, 1.0, 1.3, 1.5, 2.0)
FAR_DISTANCE = 2.0


def lesson_chain(bones: int = 2) -> Chain:
    """The lesson's chain with ``bones`` bones (2, 3 or 4)."""
    return Chain(LENGTHS_BY_BONES[bones])


@dataclass(frozen=True)
class TableData:
    """One table: raw values per cell, and how to format each column.

    ``section`` and ``text_key`` locate the caption and the column headers in the
    page text (``text[section][text_key + "_caption"]`` and ``..._columns``).
    """

    id: str
    section: str
    text_key: str
    values: list[list[Any]]
    formats: tuple[str, ...]
    facts: dict[str, Any] = field(default_factory=dict)
    #: Per row, what loads it into its figure (see :func:`_link`), or None.
    links: list[dict[str, Any]] | None = None


# -- Column formats ----------------------------------------------------------------


def _cell(kind: str, value: Any, words: dict[str, str]) -> str:
    """One cell as text. ``words`` holds the language's yes/no and status names."""
    if value is None:
        return "—"
    formatters: dict[str, Callable[[Any], str]] = {
        "point2": lambda v: format_point(v, 2, LESSON_SIZE),
        "point4": lambda v: format_point(v, 4, LESSON_SIZE),
        "fixed2": lambda v: format_number(v, 2),
        "point6": lambda v: format_point(v, 6, LESSON_SIZE),
        "m": lambda v: format_number(v, 6),
        "deg": lambda v: _fixed(v, 6),  # an angle, already in (−180°, 180°]
        "deg2": lambda v: _fixed(v, 2),
        "ddeg": lambda v: format_number(v, 6),  # a difference of angles: tiny ≠ 0 shows
        "ratio": lambda v: format_number(v, 4),
        "count": lambda v: str(int(v)),
        "cond": lambda v: format_number(v, 2),
        "sci": lambda v: f"{v:.1e}",  # a column of errors spanning many decades
        "yesno": lambda v: words["yes"] if v else words["no"],
        "status": lambda v: words.get(str(v), str(v)),
        "text": str,
    }
    return formatters[kind](value)


def _fixed(value: float, digits: int) -> str:
    """Fixed-point text without a sign on zero (angles never switch to e-notation)."""
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text


def format_table(table: TableData, words: dict[str, str]) -> list[list[str]]:
    """Cell strings of ``table``, row by row."""
    return [
        [_cell(kind, v, words) for kind, v in zip(table.formats, row, strict=True)]
        for row in table.values
    ]


# -- Helpers -------------------------------------------------------------------------


def _link(
    figure: str,
    target: Any,
    method: str,
    result: Result | None = None,
    **state: Any,
) -> dict[str, Any]:
    """What clicking a row loads into its figure: the row's target, method and start.

    ``state`` holds the figure's options for that row (``bones``, ``iterations``,
    ``damping``, ``tolerance``, ``init`` in radians, ``cold`` for the default start).
    ``bend`` is the side the row's own answer bends to (from ``result``), so that
    the figure, which keeps a bend direction, shows the row's pose and not its mirror.
    """
    bend = bend_of_pose(result.angles) if result is not None else None
    link = {
        "figure": figure,
        "target": [float(v) for v in target],
        "method": method,
        "bend": bend or 1,
    }
    for key, value in state.items():
        if value is not None:
            link[key] = [float(v) for v in value] if key == "init" else value
    return link


def _deg(angle: float) -> float:
    """A solver's angle (radians, continuous) as the degrees a table prints, (−180°, 180°]."""
    return degrees_for_people(float(angle))


def _branch(angles: np.ndarray) -> int:
    """Bend direction of a two-bone pose: the sign of its wrapped second angle."""
    return 1 if wrap_angle(float(angles[1])) >= 0.0 else -1


def angle_gap_deg(a: np.ndarray, b: np.ndarray) -> float:
    """Largest joint-angle difference between two poses, degrees, wrapped."""
    return float(np.degrees(np.max(np.abs(wrap_angle(np.asarray(a) - np.asarray(b))))))


def _decimal_atan(x: Decimal) -> Decimal:
    """arctan for 0 <= x, in the current decimal context (argument halving + Taylor)."""
    halvings = 0
    while x > Decimal("0.1"):
        x = x / (1 + (1 + x * x).sqrt())
        halvings += 1
    term, total, k, x2 = x, x, 1, x * x
    while True:
        term = -term * x2
        k += 2
        step = term / k
        if abs(step) < Decimal(10) ** -45:
            break
        total += step
    return total * (2**halvings)


def elbow_check_deg(l1: float, l2: float, target: tuple[float, float]) -> float:
    """|dA| in degrees from the law of cosines, in 40-digit decimal arithmetic.

    The inputs are read as the decimals they print as (0.8, not 0.8000000000000000444),
    cos(dA) = (tx² + ty² − L1² − L2²)/(2 L1 L2) is formed exactly, and
    dA = 2·atan(sqrt((1 − cos)/(1 + cos))). Independent of the package's solver:
    a different formula, in different arithmetic.
    """
    with localcontext() as context:
        context.prec = 50
        first, second = Decimal(repr(l1)), Decimal(repr(l2))
        tx, ty = Decimal(repr(float(target[0]))), Decimal(repr(float(target[1])))
        cosine = (tx * tx + ty * ty - first * first - second * second) / (2 * first * second)
        cosine = max(Decimal(-1), min(Decimal(1), cosine))
        if cosine == -1:
            return 180.0
        angle = 2 * _decimal_atan(((1 - cosine) / (1 + cosine)).sqrt())
        pi = 4 * _decimal_atan(Decimal(1))
        return float(angle * 180 / pi)


# -- The tables -----------------------------------------------------------------------


def _table1() -> TableData:
    chain = lesson_chain(2)
    l1, l2 = (float(v) for v in chain.lengths)
    rows, links = [], []
    for target in TABLE1_TARGETS:
        result = solve(chain, target, "analytic")
        links.append(_link("fig-s21", target, "analytic", result, bones=2))
        elbow = _deg(result.angles[1])
        check = elbow_check_deg(l1, l2, target)
        rows.append(
            [
                target,
                math.hypot(*target),
                elbow,
                _deg(result.angles[0]),
                result.error,
                check,
                abs(elbow) - check,
            ]
        )
    return TableData(
        "table-1",
        "s21",
        "table",
        rows,
        ("point2", "m", "deg", "deg", "m", "deg", "ddeg"),
        facts={"worked": worked_example(l1, l2, TABLE1_TARGETS[0])},
        links=links,
    )


def worked_example(l1: float, l2: float, target: tuple[float, float]) -> dict[str, str]:
    """The hand check of cos(dA) for one target, each term as a person writes it.

    cos(dA) = (d² − L₁² − L₂²) / (2·L₁·L₂), in exact decimal arithmetic on the
    numbers as printed (0.8, not its binary neighbour), so that the page can show
    (1.96 − 0.64 − 0.36)/(2·0.8·0.6) = 0.96/0.96 = 1 without typing any of it.
    """
    first, second = Decimal(repr(l1)), Decimal(repr(l2))
    tx, ty = (Decimal(repr(float(v))) for v in target)
    d2 = tx * tx + ty * ty
    top = d2 - first * first - second * second
    bottom = 2 * first * second

    def text(value: Decimal) -> str:
        return format(value.normalize(), "f")

    return {
        "d2": text(d2),
        "l1_sq": text(first * first),
        "l2_sq": text(second * second),
        "top": text(top),
        "bottom": text(bottom),
        "cos": text(top / bottom),
    }


def _table2() -> TableData:
    chain = lesson_chain(2)
    rows, previous, links = [], None, []
    for sweeps in TABLE2_SWEEPS:
        result = solve(chain, TABLE2_TARGET, "ccd", max_iterations=sweeps, tolerance=EXACT)
        links.append(
            _link(
                "fig-s22",
                TABLE2_TARGET,
                "ccd",
                result,
                bones=2,
                iterations=sweeps,
                damping=1.0,
                tolerance=EXACT,
                cold=True,
            )
        )
        exact = solve(chain, TABLE2_TARGET, "analytic", bend=_branch(result.angles))
        ratio: float | None = None if previous in (None, 0.0) else result.error / previous
        rows.append(
            [
                result.iterations,
                result.error,
                ratio,
                _deg(result.angles[0]),
                angle_gap_deg(result.angles, exact.angles),
            ]
        )
        previous = result.error
    return TableData(
        "table-2", "s22", "table", rows, ("count", "m", "ratio", "deg", "ddeg"), links=links
    )


def _table2_damping() -> TableData:
    chain = lesson_chain(2)
    rows, links = [], []
    for damping in DAMPINGS:
        short = solve(
            chain,
            TABLE2_TARGET,
            "ccd",
            max_iterations=DAMPING_SWEEPS,
            damping=damping,
            tolerance=EXACT,
        )
        final = solve(
            chain, TABLE2_TARGET, "ccd", max_iterations=20_000, damping=damping, tolerance=1e-13
        )
        links.append(
            _link(
                "fig-s22",
                TABLE2_TARGET,
                "ccd",
                short,
                bones=2,
                iterations=DAMPING_SWEEPS,
                damping=damping,
                tolerance=EXACT,
                cold=True,
            )
        )
        rows.append(
            [
                damping,
                short.iterations,
                short.error,
                _deg(short.angles[0]),
                _deg(final.angles[0]),
            ]
        )
    return TableData(
        "table-2-damping",
        "s22",
        "damping",
        rows,
        ("fixed2", "count", "m", "deg", "deg"),
        links=links,
    )


def _table2_stall() -> TableData:
    """The collinear stall: CCD's sweeps from all zeros, each sweep's largest turn read
    from one traced solve (after the loop stops, a sweep would turn nothing: the stall
    rule stops it at the first sweep that changed no angle)."""
    chain = lesson_chain(2)
    traced = solve(
        chain,
        STALL_TARGET,
        "ccd",
        init=[0.0] * chain.n_bones,
        max_iterations=STALL_SWEEPS,
        trace=True,
    )
    assert traced.trace_angles is not None
    turns = np.degrees(np.max(np.abs(np.diff(traced.trace_angles, axis=0)), axis=1))
    rows, links = [], []
    for sweep in range(1, STALL_SWEEPS + 1):
        turn = float(turns[sweep - 1]) if sweep <= len(turns) else 0.0
        reported = solve(
            chain, STALL_TARGET, "ccd", init=[0.0] * chain.n_bones, max_iterations=sweep
        )
        rows.append([sweep, float(np.hypot(*(reported.end - STALL_TARGET))), turn, reported.status])
        links.append(
            _link(
                "fig-s22",
                STALL_TARGET,
                "ccd",
                None,
                bones=2,
                iterations=sweep,
                damping=1.0,
                init=[0.0] * chain.n_bones,
            )
        )
    return TableData(
        "table-2-stall",
        "s22",
        "stall",
        rows,
        ("count", "m", "ddeg", "status"),
        facts={"stall_error": rows[-1][1], "stall_tip": tuple(float(v) for v in traced.end)},
        links=links,
    )


def _table2_stall_starts() -> TableData:
    """Table 2d: the stall target from starts near the all-zero pose, each method with
    the figure's budget: how the solve ended and its end error."""
    chain = lesson_chain(2)
    rows = []
    for start in STALL_STARTS:
        row: list[Any] = [", ".join(f"{a:g}°" for a in start)]
        for method in ("ccd", "fabrik", "dls"):
            found = solve(
                chain,
                STALL_TARGET,
                method,
                init=np.radians(start),
                max_iterations=STALL_BUDGET,
                tolerance=TOLERANCE,
            )
            row += [str(found.status), float(found.error)]
        rows.append(row)
    return TableData(
        "table-2-stall-starts",
        "s22",
        "stall_starts",
        rows,
        ("text", "status", "m", "status", "m", "status", "m"),
    )


def _table2b() -> TableData:
    chain = lesson_chain(2)
    rows = []
    data = sweeps_to_tolerance(chain, tolerance=TOLERANCE, error_after=SWEEPS_2B)
    links = []
    for row in data:
        # The figure runs CCD from the default start for as many sweeps as the row
        # needed (within the server's cap): the same solve, so the same pose and the
        # same condition number as the row.
        sweeps = min(row.iterations["ccd"] or CAPS["max_iterations"], CAPS["max_iterations"])
        result = solve(chain, row.target, "ccd", max_iterations=sweeps, tolerance=TOLERANCE)
        links.append(
            _link(
                "fig-s22",
                row.target,
                "ccd",
                result,
                bones=2,
                iterations=sweeps,
                damping=1.0,
                tolerance=TOLERANCE,
                cold=True,
            )
        )
        rows.append(
            [
                row.target,
                row.distance,
                row.ratio,
                row.iterations["ccd"],
                row.error_after["ccd"],
                row.iterations["fabrik"],
                row.iterations["dls"],
                row.condition["ccd"],
            ]
        )
    # rows the figure cannot ask for as they are: more sweeps than a request may take
    capped = [
        (row, link)
        for row, link in zip(data, links, strict=True)
        if row.iterations["ccd"] is None or row.iterations["ccd"] > CAPS["max_iterations"]
    ]
    capped_facts = [
        {
            "ratio": row.ratio,
            "sweeps": row.iterations["ccd"],
            "error": float(
                solve(
                    chain, row.target, "ccd", max_iterations=link["iterations"], tolerance=TOLERANCE
                ).error
            ),
        }
        for row, link in capped
    ]
    by_ratio = {row.ratio: row for row in data}
    mid, edge = by_ratio[0.75], by_ratio[0.995]
    # "×N sweeps in the last few per cent of reach": from the row nearest 4 % short
    # of full reach to the edge row, the measured growth of CCD's sweeps.
    near = min(data, key=lambda row: abs(row.ratio - (edge.ratio - 0.04)))
    growth = None
    if near.iterations["ccd"] and edge.iterations["ccd"]:
        growth = edge.iterations["ccd"] / near.iterations["ccd"]
    facts = {
        "ccd_sweeps_mid": mid.iterations["ccd"],
        "ccd_sweeps_edge": edge.iterations["ccd"],
        "fabrik_sweeps_edge": edge.iterations["fabrik"],
        "dls_sweeps_edge": edge.iterations["dls"],
        "cond_mid": mid.condition["ccd"],
        "cond_edge": edge.condition["ccd"],
        "reach": [row.as_dict() for row in data],
        "growth_from": near.ratio,
        "growth_to": edge.ratio,
        "growth_sweeps_from": near.iterations["ccd"],
        "growth": growth,
        "capped": capped_facts,
    }
    return TableData(
        "table-2b",
        "s22",
        "t2b",
        rows,
        ("point4", "m", "ratio", "count", "m", "count", "count", "cond"),
        facts,
        links,
    )


def _table3() -> TableData:
    chain = lesson_chain(3)
    rows, first, links, marks, shorts, sweeps = [], None, [], [], [], []
    for label, start in TABLE3_STARTS:
        init = np.radians(start)
        result = solve(
            chain, TABLE3_TARGET, "ccd", init=init, max_iterations=SWEEPS_T3, tolerance=T3_TOLERANCE
        )
        sweeps.append(result)
        # the same start, stopped after only SWEEPS_SHORT sweeps
        short = solve(
            chain, TABLE3_TARGET, "ccd", init=init, max_iterations=SWEEPS_SHORT, tolerance=EXACT
        )
        shorts.append(short)
        joint1 = result.joints[1]
        first = joint1 if first is None else first
        rows.append(
            [
                f"{label}: " + ", ".join(f"{a:g}" for a in start),
                tuple(result.end),
                result.error,
                tuple(joint1),
                float(np.hypot(*(joint1 - first))),
                short.error,
            ]
        )
        links.append(
            _link(
                "fig-s23",
                TABLE3_TARGET,
                "ccd",
                result,
                bones=3,
                iterations=SWEEPS_T3,
                damping=1.0,
                tolerance=T3_TOLERANCE,
                init=init,
            )
        )
        marks.append(
            {"label": label, "position": family_from_angles(chain, TABLE3_TARGET, result.angles)}
        )
    facts = {
        "ab_joint1_gap": rows[1][4],
        "ac_joint1_gap": rows[2][4],
        "a_short_error": shorts[0].error,
        "b_short_error": shorts[1].error,
        "c_short_error": shorts[2].error,
        "c_short_status": shorts[2].status,
        "t3_sweeps": [int(r.iterations) for r in sweeps],
        "t3_statuses": [str(r.status) for r in sweeps],
        "family_marks": {"target": list(TABLE3_TARGET), "marks": marks},
    }
    return TableData(
        "table-3",
        "s23",
        "table",
        rows,
        ("text", "point6", "m", "point6", "m", "sci"),
        facts,
        links,
    )


def _table4() -> TableData:
    chain = lesson_chain(2)
    phi = math.radians(TABLE4_DIRECTION)
    rows, links = [], []
    for d in TABLE4_DISTANCES:
        target = (d * math.cos(phi), d * math.sin(phi))
        result = solve(chain, target, "ccd", max_iterations=20_000, tolerance=1e-13)
        links.append(
            _link(
                "fig-s24",
                target,
                "ccd",
                result,
                bones=2,
                iterations=CAPS["max_iterations"],
                damping=1.0,
                tolerance=1e-13,
                cold=True,
            )
        )
        closed = max(0.0, d - chain.outer_radius, chain.inner_radius - d)
        rows.append(
            [
                d,
                result.reachable,
                result.error,
                closed,
                _deg(result.angles[0]),
            ]
        )
    far = rows[TABLE4_DISTANCES.index(FAR_DISTANCE)]
    return TableData(
        "table-4",
        "s24",
        "table",
        rows,
        ("fixed2", "yesno", "m", "m", "deg2"),
        facts={"far_d": FAR_DISTANCE, "far_error": far[2]},
        links=links,
    )


#: Section number → its tables, in page order.
SECTION_TABLES: dict[str, tuple[str, ...]] = {
    "2.1": ("table-1",),
    "2.2": ("table-2", "table-2-damping", "table-2-stall", "table-2-stall-starts", "table-2b"),
    "2.3": ("table-3",),
    "2.4": ("table-4",),
}


@functools.cache
def compute_tables() -> dict[str, TableData]:
    """Every table of the lesson, by id, computed once per process."""
    builders = (
        _table1,
        _table2,
        _table2_damping,
        _table2_stall,
        _table2_stall_starts,
        _table2b,
        _table3,
        _table4,
    )
    return {table.id: table for table in (build() for build in builders)}


def table_facts() -> dict[str, Any]:
    """The measured numbers the page's text quotes, merged from all tables."""
    facts: dict[str, Any] = {}
    for table in compute_tables().values():
        facts.update(table.facts)
    return facts
