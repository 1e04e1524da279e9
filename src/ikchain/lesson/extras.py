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
from ikchain.formatting import format_degrees, format_number, format_point
from ikchain.kinematics import joints_from_angles
from ikchain.lesson import limits, motion, outcomes, plots, replay
from ikchain.lesson.frames import FRAME_ITERATIONS
from ikchain.lesson.tables import LENGTHS_BY_BONES, angle_gap_deg
from ikchain.solvers import solve


def fill(template: str, **values: Any) -> str:
    """``template`` with each ``%name%`` replaced (the page's script fills the same marks)."""
    for name, value in values.items():
        template = template.replace(f"%{name}%", str(value))
    return template


def replay_default(figure: dict[str, Any], text: dict[str, Any]) -> dict[str, Any]:
    """The replay of a figure's default state, as :func:`replay.replay_view` gives it."""
    d = figure["defaults"]
    chain = Chain(d["lengths"], limits_for(figure["key"], len(d["lengths"])))  # 2.5: limits
    joint = d["method"] == "ccd"
    options = {
        "max_iterations": min(
            d["iterations"],
            replay.MAX_REPLAY_ITERATIONS,
            (replay.MAX_REPLAY_STEPS - 2) // (len(d["lengths"]) if joint else 1),
        ),
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
            # one step is kept for the mirror step (see replay.steps_of)
            "max_steps": replay.MAX_REPLAY_STEPS - 1,
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
    d = MOTION_PLAYERS[name]
    _, tracks = motion.tracked(
        tuple(LENGTHS_BY_BONES[d["bones"]]), d["path"], d["frames_per_lap"], d["budget"], d["start"]
    )
    words = text[section.key]
    rows, values = [], []
    for m in motion.MOTION_METHODS:
        s = view["methods"][m]["summary"]
        raw = motion.summary(tracks[m], d["frames_per_lap"])
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
    return {"kind": "table", "table": _named(table, text)}


SUMMARY_KEYS = ("mean_error", "worst_error", "on_target", "mean_iterations", "worst_jump")


#: Block kinds this module builds, for :func:`ikchain.lesson.content._blocks`: each
#: takes the block's name, the section, the page text and the section's figure.
BLOCKS = {"replay": replay_block, "motion": motion_block, "motion-table": motion_table}


# -- Section 2.5: choosing one answer from the family -----------------------------------

#: How the text names the tables of 2.5 and 2.6 (after the source's ①–④).
TABLE_NUMBERS = {
    "table-limits": "⑤a",
    "table-limits-reach": "⑤b",
    "table-rest": "⑤c",
    "table-motion-coherence": "⑤d",
    "table-motion-tracking": "⑥",
}
#: Targets of the joint-limits table (m): in front, behind and above, close in, and
#: low in front. Whether CCD or DLS gets stuck is not read off one target (it can
#: change from one target to the next, a hair away): the outcome map shows it.
LIMIT_TARGETS = ((0.9, 0.5), (-0.6, 0.6), (0.3, 0.2), (0.2, -0.9))
#: Iterations for the joint-limits table and the outcome map: the figure's own budget
#: (every free solve of the table converges within it; a test checks).
LIMIT_ITERATIONS = FRAME_ITERATIONS
#: The preset the 2.5 figure starts with, and the one its table uses.
LIMIT_PRESET = "arm"


def _named(table: dict[str, Any], text: dict[str, Any]) -> dict[str, Any]:
    """A table dict with its number in the caption, as content.table_view gives it."""
    name = text["page"]["table_name"].replace("%number%", TABLE_NUMBERS[table["id"]])
    return {
        **table,
        "name": name,
        "caption_text": table["caption"],
        "caption": f"{name}  {table['caption']}",
    }


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
    bound marked ``at-limit``."""
    view = frame.get("limits") or {}
    held = view.get("at_limit") or []
    wedges = "".join(
        f'<path class="limit-arc{" at-limit" if i < len(held) and held[i] else ""}" d="{d}"/>'
        for i, d in enumerate(view.get("arcs", []))
    )
    outer = frame["reach"]["outer"]
    return (
        '<g class="limits-layer">'
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
    """A figure's server-drawn SVG with the limits layer under everything else (2.5)."""
    options = limits_options(section_key)
    if options is None or not frame.get("limits"):
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
        "table": _named(
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


def table_words(text: dict[str, Any]) -> dict[str, str]:
    return {"yes": text["readings"]["yes"], "no": text["readings"]["no"]}


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
    return {"kind": "table", "table": _named(table, text)}


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
    from ikchain.lesson.tables import TOLERANCE

    bounds = limits.limits_from_preset(LIMIT_PRESET, 3)
    assert bounds is not None
    chain = Chain(LENGTHS_BY_BONES[3], bounds)
    return outcomes.outcome_map(chain, LIMIT_ITERATIONS, TOLERANCE, 1.0)


BLOCKS.update(
    {
        "choose": choose_block,
        "limits-table": limits_table,
        "reach-table": reach_table,
        "outcome-map": outcome_block,
    }
)


#: A joint turning more than this between two frames is a visible jump (°).
JUMP_DEGREES = 30.0


def coherence_table(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """Table ⑤c: warm against cold starts on the coherence player's default path."""
    d = MOTION_PLAYERS[name]
    lengths = tuple(LENGTHS_BY_BONES[d["bones"]])
    rows, values = [], []
    words = text["motion"]
    for method in motion.MOTION_METHODS:
        for start in motion.STARTS:
            _, tracks = motion.tracked(lengths, d["path"], d["frames_per_lap"], d["budget"], start)
            tr = tracks[method]
            lap = d["frames_per_lap"]
            jumps = motion.last_lap(tr.joint_jumps_deg(), lap)
            error = motion.last_lap(tr.error, lap)
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
    return {"kind": "table", "table": _named(table, text)}


def jumps_chart(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """The chart under Table ⑤d: per frame of the counted lap, the largest joint turn
    since the frame before (the quantity the table's columns sum up), for the method
    the player draws first, warm and cold."""
    d = MOTION_PLAYERS[name]
    lengths = tuple(LENGTHS_BY_BONES[d["bones"]])
    lap = d["frames_per_lap"]
    words, page = text[section.key], text["motion"]
    series = []
    method = d["show"]  # the chain the player draws first: one method, warm and cold
    for start in motion.STARTS:
        _, tracks = motion.tracked(lengths, d["path"], lap, d["budget"], start)
        jumps = motion.last_lap(tracks[method].joint_jumps_deg(), lap)
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


MOTION_PLAYERS["coherence"] = {
    "bones": 3,
    "path": "figure8",
    "frames_per_lap": 120,
    "budget": 16,
    "start": "cold",
    "show": "ccd",
    "controls": ("start", "path", "budget", "show"),
}
BLOCKS["coherence-table"] = coherence_table
BLOCKS["jumps-chart"] = jumps_chart

#: The block kinds that are tables (``ikchain tables`` prints them too).
TABLE_BLOCKS: tuple[str, ...] = (
    "limits-table",
    "reach-table",
    "coherence-table",
    "motion-table",
)


# -- 2.5: the preferred (rest) pose -----------------------------------------------------

#: The preferred pose per bone count (degrees): a relaxed, gently curled chain, inside
#: the "arm" limits so that both can be on together.
REST_POSES_DEG: dict[int, tuple[float, ...]] = {
    2: (10.0, 60.0),
    3: (10.0, 60.0, 60.0),
    4: (10.0, 45.0, 45.0, 45.0),
}
#: The pull strengths the page offers (``rest_weight``; 0 sends no rest pose).
REST_WEIGHTS = (0.0, 0.1, 1.0)
#: Targets of Table ⑤b (m).
REST_TARGETS = ((0.4, 0.8), (-0.5, 0.6), (1.1, -0.2))
REST_ITERATIONS = 500


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


def rest_table(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """Table ⑤b: DLS from the start pose, without and with the pull toward the rest pose."""
    chain = Chain(LENGTHS_BY_BONES[3])
    rest = np.radians(REST_POSES_DEG[3])
    words = text["choose"]
    rows, values = [], []
    for target in REST_TARGETS:
        for weight in REST_WEIGHTS:
            result = solve(
                chain,
                target,
                "dls",
                max_iterations=REST_ITERATIONS,
                rest=None if weight == 0.0 else rest,
                rest_weight=None if weight == 0.0 else weight,
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
    }
    return {"kind": "table", "table": _named(table, text)}


def rest_facts() -> dict[str, Any]:
    """What the text says of Table ⑤c: the most iterations the weak pull took."""
    chain = Chain(LENGTHS_BY_BONES[3])
    rest = np.radians(REST_POSES_DEG[3])
    weak = min(w for w in REST_WEIGHTS if w > 0.0)
    runs = [
        solve(chain, t, "dls", max_iterations=REST_ITERATIONS, rest=rest, rest_weight=weak)
        for t in REST_TARGETS
    ]
    return {"weak_sweeps": max(int(r.iterations) for r in runs), "weak": weak}


BLOCKS["rest-table"] = rest_table
TABLE_BLOCKS = (*TABLE_BLOCKS, "rest-table")
