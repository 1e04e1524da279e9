"""The lesson as data: its sections, their figures and defaults, text and tables.

This module *describes* the page; it draws nothing (that is :mod:`figures`) and
serves nothing (that is :mod:`ikchain.web.app`). :func:`page_context` is everything
the page template needs, for one language.
"""

from __future__ import annotations

import copy
import functools
import json
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np

from ikchain.caps import CAPS
from ikchain.chain import Chain
from ikchain.formatting import format_number, format_point
from ikchain.lesson import extras, figures
from ikchain.lesson.frames import (
    FRAME_ITERATIONS,
    METHOD_TAKES,
    FrameRequest,
    SolveRequest,
    frame_from_request,
)
from ikchain.lesson.tables import (
    LENGTHS_BY_BONES,
    LESSON_SIZE,
    SECTION_TABLES,
    STALL_TARGET,
    SWEEPS_2B,
    SWEEPS_SHORT,
    SWEEPS_T3,
    T3_TOLERANCE,
    TOLERANCE,
    compute_tables,
    format_table,
    lesson_chain,
    table_facts,
)
from ikchain.solvers import METHODS
from ikchain.solvers.methods import DEFAULT_MAX_ITERATIONS, DEFAULT_TOLERANCE

LANGS = ("zh", "en")
DEFAULT_LANG = "zh"

#: Controls every figure's strip shows, in order.
COMMON_CONTROLS = ("method", "bones", "damping", "iterations", "bend")
#: Smoothing factor offered in 2.4 (fraction of the way to the pointer per frame).
SMOOTHING = 0.25
#: Bone lengths a reader may type into 2.4's figure (m): the chain stays inside the view.
LENGTH_RANGE = (0.1, 0.9)


@dataclass(frozen=True)
class Section:
    """One section: its number, what it adds, the default state of its figure."""

    key: str
    number: str
    adds: str  # the one new control or quantity, by name
    bones: int
    method: str
    target: tuple[float, float]
    extra_controls: tuple[str, ...] = ()
    extra_readings: tuple[str, ...] = ()
    smoothing: float | None = None
    blocks: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    live_figure: bool = True  # False: no drag figure (2.6 plays a path instead)


SECTIONS: tuple[Section, ...] = (
    Section(
        "s21",
        "2.1",
        "target",
        2,
        "analytic",
        (1.0, 0.6),
        blocks=(
            ("text", "intro"),
            ("figure", ""),
            ("text", "formula"),
            ("table", "table-1"),
            ("text", "mirror"),
        ),
    ),
    Section(
        "s22",
        "2.2",
        "method",
        2,
        "ccd",
        (1.0, 0.6),
        extra_controls=("cold", "stall"),
        extra_readings=("condition",),
        blocks=(
            ("text", "intro"),
            ("figure", ""),
            ("replay", ""),
            ("table", "table-2"),
            ("text", "reading"),
            ("table", "table-2-damping"),
            ("text", "damping"),
            ("table", "table-2b"),
            ("chart", "chart-2b"),
            ("text", "t2b"),
            ("text", "t2b_live"),
            ("table", "table-2-stall"),
            ("text", "stall"),
            ("table", "table-2-stall-starts"),
        ),
    ),
    Section(
        "s23",
        "2.3",
        "bones",
        3,
        "ccd",
        (0.9, 0.5),
        extra_controls=("family",),
        blocks=(
            ("text", "intro"),
            ("figure", ""),
            ("replay", ""),
            ("table", "table-3"),
            ("text", "reading"),
            ("text", "family"),
        ),
    ),
    Section(
        "s24",
        "2.4",
        "distance",
        2,
        "ccd",
        (1.6, 0.8),
        extra_controls=("lengths", "smoothing"),
        blocks=(
            ("text", "intro"),
            ("figure", ""),
            ("table", "table-4"),
            ("text", "formula"),
            ("text", "lengths"),
            ("text", "smoothing"),
        ),
    ),
    # -- issue 9 (branch i9b): choosing one answer, moving targets ---------------------
    Section(
        "s25",
        "2.5",
        "limits",
        3,
        "ccd",
        (0.9, 0.5),
        extra_controls=("cold",),
        blocks=(
            ("text", "intro"),
            ("figure", ""),
            ("choose", ""),
            ("replay", ""),
            ("text", "limits"),
            ("limits-table", ""),
            ("text", "outcomes"),
            ("outcome-map", ""),
            ("text", "reach"),
            ("reach-table", ""),
            ("text", "rest"),
            ("rest-table", ""),
            ("text", "coherence"),
            ("motion", "coherence"),
            ("coherence-table", "coherence"),
            ("jumps-chart", "coherence"),
            ("text", "reading"),
        ),
    ),
    Section(
        "s26",
        "2.6",
        "time",
        3,
        "ccd",
        (0.9, 0.5),
        live_figure=False,
        blocks=(
            ("text", "intro"),
            ("motion", "tracking"),
            ("motion-table", "tracking"),
            ("text", "reading"),
        ),
    ),
)


# -- Text -------------------------------------------------------------------------


@functools.cache
def _raw_text(lang: str) -> dict[str, Any]:
    if lang not in LANGS:
        raise ValueError(f"lang: expected one of {', '.join(LANGS)}, got {lang!r}")
    source = resources.files("ikchain.lesson") / "text" / f"{lang}.toml"
    return tomllib.loads(source.read_text(encoding="utf-8"))


def placeholder_values() -> dict[str, str]:
    """Every ``{name}`` of the page text, formatted from the chain and the tables."""
    chain = lesson_chain(2)
    facts = table_facts()
    count = lambda value: "—" if value is None else str(value)  # noqa: E731
    return {
        "L1": format_number(chain.lengths[0], 1),
        "L2": format_number(chain.lengths[1], 1),
        "sum_L": format_number(chain.total_length, 1),
        "inner": format_number(chain.inner_radius, 1),
        "tol": f"{TOLERANCE:.0e}".replace("e-0", "e-"),
        "sweeps_2b": str(SWEEPS_2B),
        "sweeps_t3": str(SWEEPS_T3),
        "sweeps_short": str(SWEEPS_SHORT),
        "stall_target": f"({STALL_TARGET[0]:.1f}, {STALL_TARGET[1]:g})",
        "stall_error": format_number(facts["stall_error"], 4),
        "ccd_sweeps_mid": count(facts["ccd_sweeps_mid"]),
        "ccd_sweeps_edge": count(facts["ccd_sweeps_edge"]),
        "fabrik_sweeps_edge": count(facts["fabrik_sweeps_edge"]),
        "dls_sweeps_edge": count(facts["dls_sweeps_edge"]),
        "cond_mid": format_number(facts["cond_mid"], 1),
        "cond_edge": format_number(facts["cond_edge"], 1),
        "c_short_error": f"{facts['c_short_error']:.1e}",
        "ab_joint1_gap": format_number(facts["ab_joint1_gap"], 3),
        "ac_joint1_gap": format_number(facts["ac_joint1_gap"], 3),
        "far_d": format_number(facts["far_d"], 2),
        "far_error": format_number(facts["far_error"], 2),
        "iter_max": str(CAPS["max_iterations"]),
        "len_min": format_number(LENGTH_RANGE[0], 2),
        "len_max": format_number(LENGTH_RANGE[1], 2),
        **{f"worked_{key}": value for key, value in facts["worked"].items()},
        "growth": "—" if facts["growth"] is None else format_number(facts["growth"], 1),
        "growth_from": format_number(facts["growth_from"], 3),
        "growth_to": format_number(facts["growth_to"], 3),
        "growth_span": format_number(100 * (facts["growth_to"] - facts["growth_from"]), 1),
        "growth_sweeps_from": count(facts["growth_sweeps_from"]),
        "a_short_error": f"{facts['a_short_error']:.1e}",
        "b_short_error": f"{facts['b_short_error']:.1e}",
        # issue 9's extras (text blocks [replay] …)
        "max_replay": str(extras.replay.MAX_REPLAY_ITERATIONS),
        "max_replay_steps": str(extras.replay.MAX_REPLAY_STEPS),
        # 2.5: the finest cell of the shaded set (mm), the default budget of Table ⑤b
        "reach_cell": format_number(extras.limits.CELL * 1000, 0),
        "default_iterations": str(DEFAULT_MAX_ITERATIONS),
        "default_tol": f"{DEFAULT_TOLERANCE:.0e}".replace("e-0", "e-"),
        # 2.5's outcome map and Table ⑤a: the figure's budget, the map's cell (cm)
        "frame_iterations": str(FRAME_ITERATIONS),
        "outcome_cell": format_number(extras.outcomes.MAP_CELL * 100, 0),
        # 2.2's stall drawn, Table ②b's row beyond the request cap (issue 15)
        "stall_tip": format_point(facts["stall_tip"], 1, LESSON_SIZE),
        **capped_values(facts["capped"]),
        # Table ③'s tolerance and the sweeps each row took
        "t3_tol": f"{T3_TOLERANCE:.0e}".replace("e-0", "e-"),
        **{f"t3_sweeps_{k}": str(n) for k, n in zip("abc", facts["t3_sweeps"], strict=True)},
        # 2.5: Table ⑤c's budget and the weak pull's iterations; the jump threshold
        "rest_iterations": str(extras.REST_ITERATIONS),
        "rest_weak_sweeps": str(extras.rest_facts()["weak_sweeps"]),
        "jump_degrees": format_number(extras.JUMP_DEGREES, 0),
    }


def capped_values(capped: list[dict[str, Any]]) -> dict[str, str]:
    """Table ②b's row that needs more sweeps than a request may ask for, as the text
    cites it (the text speaks of one row; a test checks there is exactly one)."""
    row = capped[0]
    return {
        "capped_ratio": format_number(row["ratio"], 3),
        "capped_sweeps": str(row["sweeps"]),
        "capped_error": format_number(row["error"], 6),
    }


def _fill(value: Any, values: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format_map(values)
    if isinstance(value, list):
        return [_fill(item, values) for item in value]
    if isinstance(value, dict):
        return {key: _fill(item, values) for key, item in value.items()}
    return value


@functools.cache
def _text(lang: str) -> dict[str, Any]:
    raw = {key: value for key, value in _raw_text(lang).items() if key != "placeholders"}
    return _fill(raw, placeholder_values())


def load_text(lang: str) -> dict[str, Any]:
    """The page text of ``lang`` with every placeholder filled (a fresh copy)."""
    return copy.deepcopy(_text(lang))


def table_words(text: dict[str, Any]) -> dict[str, str]:
    """Words that table cells use: yes/no and the status names."""
    return {"yes": text["readings"]["yes"], "no": text["readings"]["no"], **text["status"]}


# -- Tables, figures, chart ---------------------------------------------------------------


#: The tables' numbers, as the text cites them (the source's ①–④; 2.2's side tables a–c).
TABLE_NUMBERS: dict[str, str] = {
    "table-1": "①",
    "table-2": "②",
    "table-2-damping": "②a",
    "table-2b": "②b",
    "table-2-stall": "②c",
    "table-2-stall-starts": "②d",
    "table-3": "③",
    "table-4": "④",
}


def table_name(table_id: str, text: dict[str, Any]) -> str:
    """ "Table ②b" / "表②b": how the text and the caption name a table."""
    return text["page"]["table_name"].replace("%number%", TABLE_NUMBERS[table_id])


def table_view(table_id: str, text: dict[str, Any]) -> dict[str, Any]:
    """One table for the template and the CLI: caption, headers, cells, raw values."""
    table = compute_tables()[table_id]
    section = text[table.section]
    caption_key = "table_caption" if table.text_key == "table" else f"{table.text_key}_caption"
    columns_key = "columns" if table.text_key == "table" else f"{table.text_key}_columns"
    return {
        "id": table.id,
        "name": table_name(table.id, text),
        "caption": f"{table_name(table.id, text)}  {section[caption_key]}",
        "caption_text": section[caption_key],
        "links": table.links,
        "columns": section[columns_key],
        "rows": format_table(table, table_words(text)),
        "values": table.values,
    }


def tables_for_section(number: str, lang: str) -> list[dict[str, Any]]:
    """The tables of section ``number`` ("2.1" … "2.6") in ``lang``."""
    text = load_text(lang)
    tables = [table_view(table_id, text) for table_id in SECTION_TABLES.get(number, ())]
    section = next(section for section in SECTIONS if section.number == number)
    tables += [  # issue 9's tables of 2.5 and 2.6
        extras.BLOCKS[kind](name, section, text, None)["table"]
        for kind, name in section.blocks
        if kind in extras.TABLE_BLOCKS
    ]
    return tables


def chart_view(text: dict[str, Any]) -> dict[str, Any]:
    """The convergence chart of 2.2 (the data of Table 2b), with its SVG."""
    reach = table_facts()["reach"]
    labels = {m: text["controls"][f"method_{m}"] for m in ("ccd", "fabrik", "dls")}
    chart = {
        "id": "chart-2b",
        "caption": text["s22"]["chart_caption"],
        "x_label": text["s22"]["chart_x"],
        "y_label": text["s22"]["chart_y"],
        "series": [
            {
                "method": m,
                "label": labels[m],
                "points": [[row["ratio"], row["iterations"][m]] for row in reach],
            }
            for m in ("ccd", "fabrik", "dls")
        ],
    }
    return {**chart, "svg": figures.svg_from_chart(chart)}


def figure_defaults(section: Section) -> dict[str, Any]:
    """The default state of a section's figure, as the page script holds it."""
    return {
        "lengths": list(LENGTHS_BY_BONES[section.bones]),
        "bones": section.bones,
        "method": section.method,
        "target": list(section.target),
        "bend": 1,
        "damping": 1.0,
        "iterations": FRAME_ITERATIONS,
        "tolerance": TOLERANCE,
        "smoothing": section.smoothing,
        "init": None,
    }


def default_frame(section: Section) -> dict[str, Any]:
    """The figure's default state solved, exactly as a drag frame would be."""
    defaults = figure_defaults(section)
    if section.method == "analytic":
        options = {"bend": defaults["bend"]}
    else:
        options = {
            "max_iterations": defaults["iterations"],
            "tolerance": defaults["tolerance"],
            "damping": defaults["damping"],
        }
    target = np.asarray(defaults["target"], dtype=np.float64)
    chain = Chain(defaults["lengths"], extras.limits_for(section.key, section.bones))  # 2.5
    request = SolveRequest(chain, target, section.method, options)
    return frame_from_request(FrameRequest(request, None, None, None, None))


def figure_view(section: Section, text: dict[str, Any]) -> dict[str, Any]:
    frame = default_frame(section)
    figure: dict[str, Any] = {
        "id": f"fig-{section.key}",
        "key": section.key,
        "adds": section.adds,
        "controls": [*COMMON_CONTROLS, *section.extra_controls],
        "extra_readings": list(section.extra_readings),
        "defaults": figure_defaults(section),
        "frame": frame,
        "options": {
            "methods": list(METHODS),
            "bones": sorted(LENGTHS_BY_BONES),
            "lengths_by_bones": {str(n): list(v) for n, v in LENGTHS_BY_BONES.items()},
            "smoothing": SMOOTHING,
            "max_iterations": CAPS["max_iterations"],
            "length_range": list(LENGTH_RANGE),
            "family_marks": table_facts()["family_marks"] if section.bones == 3 else None,
            "stall": {"target": list(STALL_TARGET), "init": [0.0, 0.0]},
        },
    }
    title = text[section.key]["heading"]
    svg = figures.svg_from_frame(frame, figure_id=figure["id"], title=title)
    limits = extras.limits_options(section.key)  # 2.5: joint limits, drawn under the chain
    if limits is not None:
        figure["options"]["limits"] = limits
        figure["options"]["rest"] = extras.rest_options(section.key)
        svg = extras.decorate_figure_svg(svg, section.key, frame, section.bones, figure["id"])
    return {**figure, "svg": svg}


# -- The page -------------------------------------------------------------------------------


def _blocks(
    section: Section, text: dict[str, Any], figure: dict[str, Any] | None
) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for kind, name in section.blocks:
        if kind == "text":
            blocks.append({"kind": "paragraphs", "items": text[section.key][name]})
        elif kind == "figure":
            blocks.append({"kind": "figure", "figure": figure})
        elif kind == "table":
            blocks.append({"kind": "table", "table": table_view(name, text)})
        elif kind in extras.BLOCKS:  # issue 9's replay, moving targets, section 2.5
            blocks.append(extras.BLOCKS[kind](name, section, text, figure))
        else:
            blocks.append({"kind": "chart", "chart": chart_view(text)})
    return blocks


@functools.cache
def _page_context(lang: str) -> dict[str, Any]:
    text = load_text(lang)
    sections, figures_data = [], {}
    for section in SECTIONS:
        figure = figure_view(section, text) if section.live_figure else None
        if figure is not None:
            figures_data[figure["id"]] = {k: v for k, v in figure.items() if k != "svg"}
        sections.append(
            {
                "key": section.key,
                "number": section.number,
                "heading": text[section.key]["heading"],
                "adds": text[section.key]["adds"],
                "blocks": _blocks(section, text, figure),
            }
        )
    other = LANGS[1 - LANGS.index(lang)]
    # issue 9: the motion players' defaults and options, for motion.js
    motions = {
        block["motion"]["id"]: {
            k: v for k, v in block["motion"].items() if k not in ("svg", "chart")
        }
        for section in sections
        for block in section["blocks"]
        if block["kind"] == "motion"
    }
    data = {
        "lang": lang,
        "figures": figures_data,
        "labels": {
            "status": text["status"],
            "readings": text["readings"],
            "controls": text["controls"],
            "messages": text["messages"],
            "page": {"load_row": text["page"]["load_row"]},
            "replay": text["replay"],
            "motion": text["motion"],
            "choose": text["choose"],
        },
        "method_takes": METHOD_TAKES,
        "ws_path": "/ws",
        "frame_path": "/api/frame",
        "caps": CAPS,
        "motions": motions,
    }
    return {
        "lang": lang,
        "other_lang": other,
        "other_url": "/" if other == DEFAULT_LANG else f"/?lang={other}",
        "text": text,
        "sections": sections,
        # "</" cannot end the script element early once escaped as "<\/".
        "data_json": json.dumps(data, ensure_ascii=False).replace("</", "<\\/"),
    }


def page_context(lang: str = DEFAULT_LANG) -> dict[str, Any]:
    """Everything ``page.html`` needs for ``lang`` (computed once per language)."""
    return _page_context(lang)
