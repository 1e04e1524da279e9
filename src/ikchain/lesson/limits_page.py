"""Joint limits on the page (section 2.5): the figure's limits layer and the limits
it starts with, the panel that picks a preset and a pull, Table ⑤a (free against
limited), Table ⑤b (targets outside the limited set) and the outcome map.

The limits themselves (presets, wedges, the reachable set) are
:mod:`ikchain.lesson.limits`; every number here is the library's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ikchain.chain import Chain
from ikchain.formatting import format_degrees, format_number, format_point
from ikchain.lesson import limits, outcomes
from ikchain.lesson.frames import FRAME_ITERATIONS
from ikchain.lesson.labels import fill, named_table, table_words
from ikchain.lesson.rest import REST_WEIGHTS
from ikchain.lesson.tables import LENGTHS_BY_BONES, TOLERANCE
from ikchain.solvers import solve

#: Targets of the joint-limits table (m): in front, behind and above, close in, and
#: low in front. Whether CCD or DLS gets stuck is not read off one target (it can
#: change from one target to the next, a hair away): the outcome map shows it.
LIMIT_TARGETS = ((0.9, 0.5), (-0.6, 0.6), (0.3, 0.2), (0.2, -0.9))
#: Iterations for the joint-limits table and the outcome map: the figure's own budget
#: (every free solve of the table converges within it; a test checks).
LIMIT_ITERATIONS = FRAME_ITERATIONS
#: The preset the 2.5 figure starts with, and the one its table uses.
LIMIT_PRESET = "arm"


def limits_for(section_key: str, bones: int) -> np.ndarray | None:
    """The joint limits a section's figure starts with (2.5: the arm preset)."""
    return limits.limits_from_preset(LIMIT_PRESET, bones) if section_key == "s25" else None


def limits_options(section_key: str) -> dict[str, Any] | None:
    """For the page: each preset's limits (rad) and reachable set, per bone count."""
    if section_key != "s25":
        return None
    presets: dict[str, Any] = {}
    for preset in limits.PRESETS:
        per_bones = {}
        for bones, lengths in LENGTHS_BY_BONES.items():
            values = limits.limits_from_preset(preset, bones)
            chain = Chain(lengths, values)
            per_bones[str(bones)] = {
                "limits": None if values is None else values.tolist(),
                "reach": limits.reach_path(chain),
                "reach_transform": limits.reach_transform(chain),
            }
        presets[preset] = per_bones
    return {"default": LIMIT_PRESET, "presets": presets}


def limits_layer(frame: dict[str, Any], reach: str, transform: str, clip_id: str) -> str:
    """The SVG group of a limited figure: the reachable set (cells, in cell units
    placed by ``transform``, clipped to the outer circle: W lies inside it, a cell
    on its edge may not) and the joints' wedges, a wedge whose joint sits at a
    bound marked ``at-limit``. Its colours are written here only (the page's script
    redraws the paths in this group, never makes one); hidden while ``frame`` has
    no limits."""
    view = frame.get("limits") or {}
    held = view.get("at_limit") or []
    wedges = "".join(
        f'<path class="limit-arc{" at-limit" if i < len(held) and held[i] else ""}" d="{d}"/>'
        for i, d in enumerate(view.get("arcs", []))
    )
    outer = frame["reach"]["outer"]
    shown = "" if frame.get("limits") else ' visibility="hidden"'  # limits off: kept, hidden
    return (
        f'<g class="limits-layer"{shown}>'
        f'<clipPath id="{clip_id}"><circle class="limit-clip" cx="0" cy="0" r="{outer}"/>'
        "</clipPath>"
        f'<g class="limit-reach-clip" clip-path="url(#{clip_id})">'
        f'<path class="limit-reach" d="{reach}" transform="{transform}" fill="#2b6cb0" '
        'fill-opacity="0.16"/></g>'
        f'<g class="limit-arcs" fill="#d69e2e" fill-opacity="0.22" stroke="#b7791f" '
        f'stroke-width="0.006">{wedges}</g></g>'
    )


def decorate_figure_svg(
    svg: str, section_key: str, frame: dict[str, Any], bones: int, figure_id: str
) -> str:
    """A figure's server-drawn SVG with the limits layer under everything else (2.5):
    in every figure that offers limits, hidden while its frame has none."""
    options = limits_options(section_key)
    if options is None:
        return svg
    entry = options["presets"][options["default"]][str(bones)]
    marker = '<g class="world" transform="scale(1,-1)">'
    layer = limits_layer(frame, entry["reach"], entry["reach_transform"], f"{figure_id}-reach-clip")
    return svg.replace(marker, marker + "\n" + layer, 1)


def choose_block(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """The 2.5 panel under the figure: the joint limits and the preferred pose's pull."""
    return {
        "kind": "choose",
        "choose": {
            "figure": figure["id"],
            "presets": list(limits.PRESETS),
            "default": LIMIT_PRESET,
            "weights": list(REST_WEIGHTS),
        },
    }


def limits_table(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """Table ⑤a: the same targets solved by the free chain and the limited one."""
    free = Chain(LENGTHS_BY_BONES[3])
    bounds = limits.limits_from_preset(LIMIT_PRESET, 3)
    assert bounds is not None, f"preset {LIMIT_PRESET!r} must set limits"
    limited = Chain(LENGTHS_BY_BONES[3], bounds)
    rows, values = [], []
    words = table_words(text)
    for target in LIMIT_TARGETS:
        loose = solve(free, target, "ccd", max_iterations=LIMIT_ITERATIONS)
        held = solve(limited, target, "ccd", max_iterations=LIMIT_ITERATIONS)
        held_dls = solve(limited, target, "dls", max_iterations=LIMIT_ITERATIONS)
        inside = bool(np.all((loose.angles >= bounds[:, 0]) & (loose.angles <= bounds[:, 1])))
        values.append(
            [
                target,
                loose.angles.tolist(),
                inside,
                held.angles.tolist(),
                held.error,
                held_dls.error,
            ]
        )
        rows.append(
            [
                format_point(target, 2),
                format_degrees(loose.angles, 1),
                words["yes"] if inside else words["no"],
                format_degrees(held.angles, 1),
                format_number(held.error, 6),
                format_number(held_dls.error, 6),
            ]
        )
    return {
        "kind": "table",
        "table": named_table(
            {
                "id": "table-limits",
                "caption": text[section.key]["limits_caption"],
                "columns": text[section.key]["limits_columns"],
                "rows": rows,
                "values": values,
            },
            text,
        ),
    }


#: Targets of Table ⑤b (m), all inside ΣL and outside the limited set W of the "arm"
#: chain (a test asks the library): close in below the shoulder, straight below,
#: low in front near the edge, low behind, and behind at shoulder height.
REACH_TARGETS = ((0.0, -0.3), (0.0, -0.6), (0.9, -0.9), (-0.3, -1.0), (-1.2, -0.3))
#: The methods Table ⑤b compares, each with its default settings.
REACH_METHODS = ("ccd", "fabrik", "dls")


def reach_table(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """Table ⑤b: targets outside the limited set, the least distance to it (the
    library's ``min_error``, certified) beside what CCD, FABRIK and DLS reached with
    their default settings from the default start pose (the figure's), and the joints
    DLS holds at a bound. A ``min_error`` the search could not certify is printed as
    the lower bound it is (``≥``)."""
    bounds = limits.limits_from_preset(LIMIT_PRESET, 3)
    assert bounds is not None, f"preset {LIMIT_PRESET!r} must set limits"
    chain = Chain(LENGTHS_BY_BONES[3], bounds)
    targets = np.array(REACH_TARGETS, dtype=np.float64)
    reach = solve(chain, targets, "ccd", max_iterations=0)  # the reach only
    none = text["readings"]["held_none"]
    rows, values = [], []
    for k, target in enumerate(REACH_TARGETS):
        least = float(reach.min_error[k])
        certified = bool(reach.certified[k])
        found = {m: solve(chain, target, m) for m in REACH_METHODS}
        values.append(
            [
                list(target),
                least,
                certified,
                *(float(found[m].error) for m in REACH_METHODS),
                np.flatnonzero(found["dls"].at_limit).tolist(),
            ]
        )
        rows.append(
            [
                format_point(target, 2),
                format_number(float(np.hypot(*target)), 3),
                ("" if certified else "≥ ") + format_number(least, 6),
                *(format_number(float(found[m].error), 6) for m in REACH_METHODS),
                limits.held_joints(found["dls"], 1, " ") or none,
            ]
        )
    table = {
        "id": "table-limits-reach",
        "caption": text[section.key]["reach_caption"],
        "columns": text[section.key]["reach_columns"],
        "rows": rows,
        "values": values,
    }
    return {"kind": "table", "table": named_table(table, text)}


def outcome_block(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """2.5's outcome map: CCD and DLS from the figure's start pose, with the figure's
    budget, over every target of the view (see :mod:`ikchain.lesson.outcomes`)."""
    bounds = limits.limits_from_preset(LIMIT_PRESET, 3)
    assert bounds is not None, f"preset {LIMIT_PRESET!r} must set limits"
    chain = Chain(LENGTHS_BY_BONES[3], bounds)
    found = outcome_map_25()
    words = text[section.key]
    names = {f"method_{m}": text["controls"][f"method_{m}"] for m in outcomes.OUTCOME_METHODS}
    counts = {m: found.counts(m) for m in outcomes.OUTCOME_METHODS}
    desc = " ".join(
        fill(words["outcome_desc"], method=names[f"method_{m}"], **counts[m])
        for m in outcomes.OUTCOME_METHODS
    )
    labels = {
        **names,
        "title": words["outcome_title"],
        "desc": desc,
        **{k: words[f"outcome_{k}"] for k in outcomes.OUTCOMES},
    }
    svg = outcomes.svg_from_map(found, chain, labels, map_id="outcome-map-s25")
    return {
        "kind": "chart",
        "chart": {"id": "outcome-map-s25", "caption": words["outcome_caption"], "svg": svg},
    }


def outcome_map_25() -> outcomes.OutcomeMap:
    """The 2.5 figure's outcome map: three bones, the preset's limits, its start pose
    and budget (the figure's tolerance and damping)."""
    bounds = limits.limits_from_preset(LIMIT_PRESET, 3)
    assert bounds is not None
    chain = Chain(LENGTHS_BY_BONES[3], bounds)
    return outcomes.outcome_map(chain, LIMIT_ITERATIONS, TOLERANCE, 1.0)
