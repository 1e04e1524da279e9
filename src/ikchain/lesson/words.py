"""The page text in each language, with every ``{name}`` filled from the library.

The text (``text/zh.toml``, ``text/en.toml``) cites numbers that the tables, the
solver and the lesson's own settings give: they are filled in here, once, so that
the page, the CLI and the server's replies print the same figures.
"""

from __future__ import annotations

import copy
import functools
import tomllib
from importlib import resources
from typing import Any

from ikchain.caps import CAPS
from ikchain.formatting import format_count, format_number, format_point
from ikchain.lesson import limits, outcomes, rest
from ikchain.lesson.frames import FRAME_ITERATIONS
from ikchain.lesson.motion import JUMP_DEGREES
from ikchain.lesson.replay_bounds import MAX_REPLAY_ITERATIONS, MAX_REPLAY_STEPS
from ikchain.lesson.soft_reach import soft_reach_values
from ikchain.lesson.tables import (
    LENGTH_RANGE,
    LESSON_SIZE,
    STALL_TARGET,
    SWEEPS_2B,
    SWEEPS_SHORT,
    SWEEPS_T3,
    T3_TOLERANCE,
    TOLERANCE,
    lesson_chain,
    table_facts,
)
from ikchain.lesson.transpose_facts import transpose_values
from ikchain.solvers.methods import DEFAULT_MAX_ITERATIONS, DEFAULT_TOLERANCE

LANGS = ("zh", "en")
DEFAULT_LANG = "zh"


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
        "ccd_sweeps_mid": format_count(facts["ccd_sweeps_mid"]),
        "ccd_sweeps_edge": format_count(facts["ccd_sweeps_edge"]),
        "fabrik_sweeps_edge": format_count(facts["fabrik_sweeps_edge"]),
        "dls_sweeps_edge": format_count(facts["dls_sweeps_edge"]),
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
        "growth_sweeps_from": format_count(facts["growth_sweeps_from"]),
        "a_short_error": f"{facts['a_short_error']:.1e}",
        "b_short_error": f"{facts['b_short_error']:.1e}",
        # the replay panel (text block [replay])
        "max_replay": str(MAX_REPLAY_ITERATIONS),
        "max_replay_steps": str(MAX_REPLAY_STEPS),
        # 2.5: the finest cell of the shaded set (mm), the default budget of Table ⑤b
        "reach_cell": format_number(limits.CELL * 1000, 0),
        "default_iterations": str(DEFAULT_MAX_ITERATIONS),
        "default_tol": f"{DEFAULT_TOLERANCE:.0e}".replace("e-0", "e-"),
        # 2.5's outcome map and Table ⑤a: the figure's budget, the map's cell (cm)
        "frame_iterations": str(FRAME_ITERATIONS),
        "outcome_cell": format_number(outcomes.MAP_CELL * 100, 0),
        # 2.2's stall drawn, Table ②b's row beyond the request cap
        "stall_tip": format_point(facts["stall_tip"], 1, LESSON_SIZE),
        # 2.2's Jacobian transpose and the ellipse's drawing scale
        **transpose_values(),
        **capped_values(facts["capped"]),
        # Table ③'s tolerance and the sweeps each row took
        "t3_tol": f"{T3_TOLERANCE:.0e}".replace("e-0", "e-"),
        **{f"t3_sweeps_{k}": str(n) for k, n in zip("abc", facts["t3_sweeps"], strict=True)},
        # 2.5: Table ⑤c's budget and the weak pull's iterations; the jump threshold
        "rest_iterations": str(rest.REST_ITERATIONS),
        "rest_weak_sweeps": str(rest.rest_facts()["weak_sweeps"]),
        "jump_degrees": format_number(JUMP_DEGREES, 0),
        # 2.4: the soft-reach player (its runs of the closed form, hard and soft)
        **soft_reach_values(),
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
