"""The lesson as data: its sections, their figures and defaults, text and tables.

This module *describes* the page; it draws nothing (that is :mod:`figures`) and
serves nothing (that is :mod:`ikchain.web.app`). :func:`page_context` is everything
the page template needs, for one language.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ikchain.caps import CAPS
from ikchain.chain import Chain
from ikchain.lesson import (
    figures,
    hand,
    limits_page,
    motion,
    precomputed,
    predict,
    replay,
    rest,
    soft_reach,
)
from ikchain.lesson.frames import (
    FRAME_ITERATIONS,
    METHOD_TAKES,
    FrameRequest,
    SolveRequest,
    frame_from_request,
)
from ikchain.lesson.labels import TABLE_NUMBERS, table_name, table_words
from ikchain.lesson.replay_bounds import JOINT_STEP_METHODS, REPLAY_METHODS
from ikchain.lesson.tables import (
    LENGTH_RANGE,
    LENGTHS_BY_BONES,
    SECTION_TABLES,
    STALL_TARGET,
    TOLERANCE,
    compute_tables,
    format_table,
    table_facts,
)
from ikchain.lesson.words import DEFAULT_LANG, LANGS, load_text
from ikchain.solvers import BONES, METHODS

__all__ = [
    "BLOCK_KINDS",
    "DEFAULT_LANG",
    "LANGS",
    "SECTIONS",
    "TABLE_NUMBERS",
    "figure_defaults",
    "forget_rendered",
    "load_text",
    "method_facts",
    "page_context",
    "pictures",
    "script_json",
    "table_view",
    "tables_for_section",
]

#: Controls every figure's strip shows, in order.
COMMON_CONTROLS = ("method", "bones", "damping", "iterations", "bend")
#: Smoothing factor offered in 2.4 (fraction of the way to the pointer per frame).
SMOOTHING = 0.25
#: Where the pole (hint) handle appears when switched on (m): left of the line to the
#: pole section's default target, so the elbow bends up (the page script reads it from
#: the figure's options). The pole is offered only in two-bone figures: there every
#: method keeps its promise (:mod:`ikchain.solvers.pole`: an answer and its mirror
#: reach equally well), while with three bones CCD, FABRIK and the Jacobian transpose
#: land on the same member from both bends and the handle would move nothing.
POLE_DEFAULT = (0.3, 0.9)
#: Most controls a figure's strip shows; the others fold under its "more".
SHOWN_MAX = 3


@dataclass(frozen=True)
class Fold:
    """Blocks ``start`` to ``end`` (exclusive) of a section, taken off the main path:
    folded in place under a "more" disclosure (``group`` names its summary line,
    ``text[section][group + "_summary"]``), or, with ``hood``, moved to the "under
    the hood" appendix under the heading ``text[section][group + "_title"]``."""

    group: str
    start: int
    end: int
    hood: bool = False


#: Every method a figure's menu may offer, in the menu's order, once the section that
#: introduces it is behind the reader (the Jacobian transpose is taught in the
#: appendix only, so no figure offers it).
INTRODUCED = ("analytic", "ccd", "fabrik", "dls")


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
    #: the figure's method menu: only methods taught by this section
    methods: tuple[str, ...] = INTRODUCED
    #: the controls the figure's strip shows (at most 3); the others are folded under
    #: its "more" disclosure
    shown: tuple[str, ...] = ()
    #: the figure's controls, when not COMMON_CONTROLS (then extra_controls follow)
    controls: tuple[str, ...] | None = None
    pole: bool = False  # the figure offers the pole handle (two bones only)
    hand: bool = False  # the figure has the hand's angle handle (2.8: angle=, 3 bones)
    folds: tuple[Fold, ...] = ()


SECTIONS: tuple[Section, ...] = (
    Section(
        "s21",
        "2.1",
        "target",
        2,
        "analytic",
        (1.0, 0.6),
        methods=("analytic",),
        controls=("bend",),
        shown=("bend",),
        blocks=(
            ("text", "intro"),
            ("figure", ""),
            ("text", "formula[:2]"),
            ("table", "table-1"),
            ("text", "formula[2:]"),
            ("text", "mirror"),
            ("predict", ""),
        ),
        folds=(Fold("check", 4, 5),),
    ),
    Section(
        "s22",
        "2.2",
        "method",
        2,
        "ccd",
        (1.0, 0.6),
        methods=("analytic", "ccd"),
        extra_controls=("cold", "stall"),
        # drawn, but shown only once "why CCD slows" is open (lesson.css), where the
        # condition number and the ellipse are explained
        extra_readings=("condition",),
        shown=("method", "iterations", "damping"),
        blocks=(
            ("text", "intro[:2]"),
            ("figure", ""),
            ("replay", ""),
            ("text", "intro[2:]"),
            ("table", "table-2"),
            ("text", "reading"),
            ("table", "table-2-damping"),
            ("text", "damping"),
            ("table", "table-2-stall"),
            ("text", "stall[:2]"),
            ("text", "stall[4:]"),
            ("table", "table-2b"),
            ("chart", "chart-2b"),
            ("text", "t2b"),
            ("text", "t2b_live"),
            ("text", "transpose"),
            ("text", "stall[2:4]"),
            ("table", "table-2-stall-starts"),
            ("predict", ""),
        ),
        folds=(
            Fold("rays", 3, 4),
            Fold("slow", 11, 15),
            Fold("transpose", 15, 16, hood=True),
            Fold("starts", 16, 18, hood=True),
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
        shown=("bones", "family", "family2"),  # family2: four bones only
        blocks=(
            ("text", "intro"),
            ("figure", ""),
            ("replay", ""),
            ("table", "table-3"),
            ("text", "reading[:1]"),
            ("text", "reading[1:2]"),
            ("text", "reading[2:]"),
            ("text", "family"),
            ("predict", ""),
        ),
        folds=(Fold("short", 5, 6),),
    ),
    Section(
        "s24",
        "2.4",
        "distance",
        2,
        "ccd",
        (1.6, 0.8),
        extra_controls=("lengths", "smoothing"),
        shown=("smoothing",),
        blocks=(
            ("text", "intro"),
            ("figure", ""),
            ("table", "table-4"),
            ("text", "formula"),
            ("text", "lengths"),
            ("text", "smoothing"),
            ("text", "soft"),
            ("soft-reach", ""),
            ("soft-reach-table", ""),
            ("predict", ""),
        ),
        folds=(Fold("lengths", 4, 5), Fold("soft", 6, 9)),
    ),
    # 2.8, after reachability (2.4), whose annulus it moves to the wrist; numbered
    # after the sections before it so that their numbers and anchors stay put. Its
    # figure and its reading fold: the main path's word budget has room for its idea
    # and its question only.
    Section(
        "s28",
        "2.8",
        "hand",
        3,
        "analytic",
        (0.7, 0.6),
        methods=("analytic",),
        controls=("bend",),
        shown=("bend",),
        hand=True,
        blocks=(
            ("text", "intro"),
            ("figure", ""),
            ("text", "reading"),
            ("predict", ""),
        ),
        folds=(Fold("turn", 1, 3),),
    ),
    Section(
        "s25",
        "2.5",
        "limits",
        3,
        "ccd",
        (0.9, 0.5),
        extra_controls=("cold",),
        shown=("cold",),
        blocks=(
            ("text", "intro[:1]"),
            ("text", "wedges"),
            ("figure", ""),
            ("choose", ""),
            ("replay", ""),
            ("text", "limits[:1]"),
            ("text", "limits[1:]"),
            ("limits-table", ""),
            ("text", "outcomes"),
            ("outcome-map", ""),
            ("text", "rest"),
            ("rest-table", ""),
            ("text", "coherence"),
            ("motion-link", "coherence"),
            ("coherence-table", "coherence"),
            ("jumps-chart", "coherence"),
            ("text", "reading"),
            ("text", "intro[1:]"),
            ("text", "reach"),
            ("reach-table", ""),
            ("predict", ""),
        ),
        folds=(
            Fold("clamp", 6, 8),
            Fold("map", 8, 10),
            Fold("pull", 10, 12),
            Fold("frames", 12, 16),
            Fold("certified", 17, 20, hood=True),
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
            ("text", "reading[:2]"),
            ("text", "reading[2:]"),
            ("predict", ""),
        ),
        folds=(Fold("jump", 4, 5),),
    ),
    Section(
        "s27",
        "2.7",
        "pole",
        2,
        "ccd",
        (1.0, 0.6),
        controls=("method", "damping", "iterations", "bend"),
        shown=("method", "pole"),
        pole=True,
        blocks=(
            ("text", "intro"),
            ("figure", ""),
            ("text", "reading"),
            ("predict", ""),
        ),
    ),
)


# -- Tables, figures, chart ---------------------------------------------------------------


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
    tables += [  # the tables of 2.5 and 2.6, built by their own modules
        BLOCKS[kind](name, section, text, None)["table"]
        for kind, name in section.blocks
        if kind in TABLE_BLOCKS
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
    """The default state of a section's figure, as the page script holds it (2.8's
    adds the hand's ``angle``, rad)."""
    defaults = {
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
    if section.hand:
        defaults["angle"] = hand.DEFAULT_ANGLE
    return defaults


def default_frame(section: Section) -> dict[str, Any]:
    """The figure's default state solved, exactly as a drag frame would be."""
    defaults = figure_defaults(section)
    if section.method == "analytic":
        options = {"bend": defaults["bend"]}
        if section.hand:
            options["angle"] = defaults["angle"]
    else:
        options = {
            "max_iterations": defaults["iterations"],
            "tolerance": defaults["tolerance"],
            "damping": defaults["damping"],
        }
    target = np.asarray(defaults["target"], dtype=np.float64)
    chain = Chain(defaults["lengths"], limits_page.limits_for(section.key, section.bones))  # 2.5
    request = SolveRequest(chain, target, section.method, options)
    return frame_from_request(FrameRequest(request, None, None, None, None))


def figure_view(section: Section, text: dict[str, Any]) -> dict[str, Any]:
    frame = default_frame(section)
    figure: dict[str, Any] = {
        "id": f"fig-{section.key}",
        "key": section.key,
        "adds": section.adds,
        "controls": [*(section.controls or COMMON_CONTROLS), *section.extra_controls],
        "shown": list(section.shown),
        "extra_readings": list(section.extra_readings),
        "defaults": figure_defaults(section),
        "frame": frame,
        "options": {
            "methods": [m for m in METHODS if m in section.methods],
            "bones": sorted(LENGTHS_BY_BONES),
            "lengths_by_bones": {str(n): list(v) for n, v in LENGTHS_BY_BONES.items()},
            "smoothing": SMOOTHING,
            "max_iterations": CAPS["max_iterations"],
            "length_range": list(LENGTH_RANGE),
            # the radius of a joint mark the script adds (m), as figures.py draws them
            "joint_r": figures.STYLE["joint_r"],
            "family_marks": table_facts()["family_marks"] if section.bones == 3 else None,
            "stall": {"target": list(STALL_TARGET), "init": [0.0, 0.0]},
            # the pole handle's start, in the figures that have one (else None)
            "pole": list(POLE_DEFAULT) if section.pole else None,
            # 2.8: the hand's handle, its knob this far from the ring (else None)
            "hand": {"knob": hand.KNOB_DISTANCE} if section.hand else None,
        },
    }
    title = text[section.key]["heading"]
    # the figure that reads the condition number draws the ellipse beside it (2.2)
    ellipse = "condition" in section.extra_readings
    svg = figures.svg_from_frame(frame, figure_id=figure["id"], title=title, ellipse=ellipse)
    limits = limits_page.limits_options(section.key)  # 2.5: joint limits, drawn under the chain
    if limits is not None:
        figure["options"]["limits"] = limits
        figure["options"]["rest"] = rest.rest_options(section.key)
        svg = limits_page.decorate_figure_svg(svg, section.key, frame, section.bones, figure["id"])
    return {**figure, "svg": svg}


# -- Blocks beyond text, figure and the source's tables --------------------------------

#: A block builder: (the block's name, the section, the page text, the section's
#: figure) → the block for the template.
BlockBuilder = Callable[[str, Any, dict[str, Any], Any], dict[str, Any]]


@dataclass(frozen=True)
class BlockKind:
    """A block kind a section may list: who builds it, and whether it is a table
    (``ikchain tables`` prints those too)."""

    kind: str
    build: BlockBuilder
    table: bool = False


#: Every such block kind, declared once; :data:`BLOCKS` and :data:`TABLE_BLOCKS` are
#: read off this list.
BLOCK_KINDS: tuple[BlockKind, ...] = (
    BlockKind("replay", replay.replay_block),
    BlockKind("motion", motion.motion_block),
    BlockKind("motion-link", motion.motion_preset_link),
    BlockKind("motion-table", motion.motion_table, table=True),
    BlockKind("coherence-table", motion.coherence_table, table=True),
    BlockKind("jumps-chart", motion.jumps_chart),
    BlockKind("choose", limits_page.choose_block),
    BlockKind("limits-table", limits_page.limits_table, table=True),
    BlockKind("reach-table", limits_page.reach_table, table=True),
    BlockKind("outcome-map", limits_page.outcome_block),
    BlockKind("rest-table", rest.rest_table, table=True),
    BlockKind("soft-reach", soft_reach.soft_reach_block),
    BlockKind("soft-reach-table", soft_reach.soft_reach_table_block, table=True),
    BlockKind("predict", predict.predict_block),
)
BLOCKS: dict[str, BlockBuilder] = {k.kind: k.build for k in BLOCK_KINDS}
TABLE_BLOCKS: tuple[str, ...] = tuple(k.kind for k in BLOCK_KINDS if k.table)


# -- The page -------------------------------------------------------------------------------


def _blocks(
    section: Section, text: dict[str, Any], figure: dict[str, Any] | None
) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for kind, name in section.blocks:
        if kind == "text":
            blocks.append({"kind": "paragraphs", "items": paragraphs(text[section.key], name)})
        elif kind == "figure":
            blocks.append({"kind": "figure", "figure": figure})
        elif kind == "table":
            blocks.append({"kind": "table", "table": table_view(name, text)})
        elif kind in BLOCKS:  # the replay, the moving targets, section 2.5
            blocks.append(BLOCKS[kind](name, section, text, figure))
        else:
            blocks.append({"kind": "chart", "chart": chart_view(text)})
    return blocks


def paragraphs(words: dict[str, Any], name: str) -> list[str]:
    """The paragraphs a text block names: ``key`` (all of them) or ``key[a:b]``, a
    slice of them (a section may show a text's first paragraphs on its main path and
    fold the rest)."""
    key, _, rest = name.partition("[")
    items = words[key]
    if not rest:
        return list(items)
    start, _, end = rest.rstrip("]").partition(":")
    return list(items[int(start) if start else None : int(end) if end else None])


def _parts(
    section: Section, text: dict[str, Any], blocks: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A section's blocks as its main path reads them: runs of blocks, each either on
    the path (``group`` None) or folded under a "more" disclosure; and the runs that
    move to the "under the hood" appendix."""
    folds = {i: fold for fold in section.folds for i in range(fold.start, fold.end)}
    parts: list[dict[str, Any]] = []
    hood: list[dict[str, Any]] = []
    words = text[section.key]
    for i, block in enumerate(blocks):
        fold = folds.get(i)
        if fold is not None and fold.hood:
            if not hood or hood[-1]["group"] != fold.group:
                hood.append(
                    {
                        "group": fold.group,
                        "id": f"hood-{section.key}-{fold.group}",
                        "section": section.key,
                        "title": words[f"{fold.group}_title"],
                        "blocks": [],
                    }
                )
            hood[-1]["blocks"].append(block)
            continue
        group = fold.group if fold is not None else None
        if not parts or parts[-1]["group"] != group:
            parts.append(
                {
                    "group": group,
                    "id": f"{section.key}-more-{group}" if group else None,
                    "summary": words[f"{group}_summary"] if group else None,
                    "blocks": [],
                }
            )
        parts[-1]["blocks"].append(block)
    return parts, hood


@functools.cache
def _page_context(lang: str) -> dict[str, Any]:
    text = load_text(lang)
    sections, figures_data, hood = [], {}, []
    for section in SECTIONS:
        figure = figure_view(section, text) if section.live_figure else None
        if figure is not None:
            figures_data[figure["id"]] = {k: v for k, v in figure.items() if k != "svg"}
        blocks = _blocks(section, text, figure)
        parts, moved = _parts(section, text, blocks)
        hood += moved
        sections.append(
            {
                "key": section.key,
                "number": section.number,
                "heading": text[section.key]["heading"],
                "adds": text[section.key]["adds"],
                "blocks": blocks,
                "parts": parts,
            }
        )
    other = LANGS[1 - LANGS.index(lang)]
    # the motion player's defaults, presets and options, for motion.js
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
            # a replayed step's status while the replay has not reached its end
            "status": {**text["status"], "running": text["replay"]["status_running"]},
            "readings": text["readings"],
            "controls": text["controls"],
            "messages": text["messages"],
            "page": {"load_row": text["page"]["load_row"]},
            "replay": text["replay"],
            "motion": text["motion"],
            "choose": text["choose"],
            "predict": text["predict"],
        },
        "methods": method_facts(),
        "ws_path": "/ws",
        "caps": CAPS,
        "motions": motions,
    }
    return {
        "lang": lang,
        "other_lang": other,
        "other_url": "/" if other == DEFAULT_LANG else f"/?lang={other}",
        "text": text,
        "sections": sections,
        "hood": hood,
        "data_json": script_json(data),
    }


def method_facts() -> dict[str, dict[str, Any]]:
    """What the page's scripts know of each method, all from the solver's tables, in
    the order the method menu lists them: the request keys it takes
    (:data:`~ikchain.lesson.frames.METHOD_TAKES`), the one bone count it needs (None:
    any), whether a replay can show it and whether that replay can step joint by
    joint (:mod:`~ikchain.lesson.replay_bounds`)."""
    return {
        method: {
            "takes": METHOD_TAKES[method],
            "bones": BONES[method],
            "replay": method in REPLAY_METHODS,
            "joint_steps": method in JOINT_STEP_METHODS,
        }
        for method in METHODS
    }


def script_json(data: Any) -> str:
    """``data`` as JSON to sit inside a ``<script>`` element: every ``<`` is written
    ``\\u003c`` (JSON.parse reads it back), so no ``</script>`` or ``<!--`` in a
    string can end or bend the element. The one place the page escapes its data."""
    return json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")


def page_context(lang: str = DEFAULT_LANG) -> dict[str, Any]:
    """Everything ``page.html`` needs for ``lang`` (computed once per language)."""
    return _page_context(lang)


def pictures() -> dict[str, Any]:
    """Render the page afresh in every language, with the kernels in use now, and return
    the pictures it solved ahead (:mod:`ikchain.lesson.precomputed`), by key."""
    forget_rendered()
    try:
        with precomputed.recording() as solved:
            for lang in LANGS:
                page_context(lang)
        return solved
    finally:
        forget_rendered()


def forget_rendered() -> None:
    """Forget the page contexts computed so far: the next ones are solved afresh (the
    server, once its compiled kernels replace the plain-Python ones and the stored
    pictures of :mod:`ikchain.lesson.precomputed`)."""
    _page_context.cache_clear()
