""" "Predict, then press": one short question per main section, answered by the solver.

The reader picks a guess among a few choices; the page then shows the solve's answer.
Each question here names its solve, runs it, and says which choice the answer falls
in, so the right choice and the numbers in the answer are the solver's, never typed.
The answer sits in a ``<details>``: with scripts off it opens by hand; with scripts on
(``predict.js``) pressing "Check" opens it and says whether the guess was the solver's.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

import ikchain
from ikchain.formatting import format_count, format_number, format_point
from ikchain.lesson.frames import FRAME_ITERATIONS
from ikchain.lesson.tables import LENGTHS_BY_BONES, TOLERANCE, lesson_chain, table_facts

#: 2.2's (and 2.7's) figure's default target, as content.SECTIONS sets it.
FIGURE_TARGET = (1.0, 0.6)
#: The pole of 2.7's question, right of the line from the root to its target.
POLE_RIGHT = (0.9, -0.3)
#: 2.5's question's target: inside the dashed circle, below the shoulder's limit.
LIMITED_TARGET = (0.3, -0.6)
#: 2.8's question: a ring well inside the dashed circle, the hand pointing back at the
#: root (its angle, rad).
HAND_TARGET = (0.9, 0.0)
HAND_ANGLE = math.pi


def _point(p: tuple[float, float]) -> str:
    return f"({format_number(p[0], 1)}, {format_number(p[1], 1)})"


def _elbow_side(joints: np.ndarray, target: np.ndarray) -> int:
    """+1 when the elbow lies left of the line from the root to the target, else -1."""
    ex, ey = joints[1]
    return 1 if float(target[0]) * ey - float(target[1]) * ex > 0 else -1


def _s21() -> tuple[int, dict[str, str]]:
    chain = lesson_chain(2)
    target = np.array([chain.total_length, 0.0])
    r = ikchain.solve(chain, target, "analytic")
    d_a = math.degrees(float(r.angles[1]))
    choice = 0 if abs(d_a) < 45 else (1 if abs(d_a) < 135 else 2)
    return choice, {"dA": format_number(d_a, 6), "x": format_number(chain.total_length, 1)}


def _s22() -> tuple[int, dict[str, str]]:
    chain = lesson_chain(2)
    r = ikchain.solve(
        chain, np.array(FIGURE_TARGET), "ccd", max_iterations=10_000, tolerance=TOLERANCE
    )
    n = int(r.iterations)
    choice = 0 if n < 10 else (1 if n <= 100 else 2)
    return choice, {"sweeps": format_count(n), "target": _point(FIGURE_TARGET)}


def _s23() -> tuple[int, dict[str, str]]:
    gap = float(table_facts()["ac_joint1_gap"])
    choice = 0 if gap < 1e-6 else (1 if gap < 0.01 else 2)
    return choice, {"gap": format_number(gap, 3)}


def _s24() -> tuple[int, dict[str, str]]:
    chain = lesson_chain(2)
    r = ikchain.solve(
        chain, np.array([2.0, 0.0]), "ccd", max_iterations=FRAME_ITERATIONS, tolerance=TOLERANCE
    )
    error = float(r.error)
    gaps = (0.0, 2.0 - chain.total_length, 2.0)
    choice = int(np.argmin([abs(error - g) for g in gaps]))
    return choice, {"error": format_number(error, 2), "d": format_number(2.0, 1)}


def _s25() -> tuple[int, dict[str, str]]:
    from ikchain.lesson import limits_page

    bones = 3
    chain = ikchain.Chain(LENGTHS_BY_BONES[bones], limits_page.limits_for("s25", bones))
    r = ikchain.solve(
        chain,
        np.array(LIMITED_TARGET),
        "ccd",
        max_iterations=FRAME_ITERATIONS,
        tolerance=TOLERANCE,
    )
    d = math.hypot(*LIMITED_TARGET)
    choice = 0 if float(r.min_error) <= TOLERANCE else 1
    return choice, {
        "target": _point(LIMITED_TARGET),
        "d": format_number(d, 2),
        "error": format_number(float(r.error), 3),
        "min_error": format_number(float(r.min_error), 3),
    }


def _s26(text: dict[str, Any]) -> tuple[int, dict[str, str]]:
    from ikchain.lesson.motion import motion_default

    view = motion_default("tracking", text)
    mean = {m: float(view["methods"][m]["summary"]["mean_error"]) for m in ("ccd", "dls")}
    choice = 0 if mean["ccd"] > mean["dls"] else 1
    return choice, {
        "ccd": view["methods"]["ccd"]["summary"]["mean_error"],
        "dls": view["methods"]["dls"]["summary"]["mean_error"],
    }


def _s27() -> tuple[int, dict[str, str]]:
    chain = lesson_chain(2)
    target = np.array(FIGURE_TARGET)
    pole = np.array(POLE_RIGHT)
    r = ikchain.solve(
        chain, target, "ccd", pole=pole, max_iterations=FRAME_ITERATIONS, tolerance=TOLERANCE
    )
    # the choices: counter-clockwise (dA > 0, elbow right of the line), clockwise
    choice = 0 if _elbow_side(np.asarray(r.joints), target) < 0 else 1
    return choice, {
        "pole": _point(POLE_RIGHT),
        "dA": format_number(math.degrees(float(r.angles[1])), 1),
        "target": _point(FIGURE_TARGET),
    }


def _s28() -> tuple[int, dict[str, str]]:
    from ikchain.lesson.hand import hand_view

    chain = lesson_chain(3)
    r = ikchain.solve(chain, np.array(HAND_TARGET), "analytic", angle=HAND_ANGLE)
    view = hand_view(chain, r, HAND_ANGLE)
    # the choices: the tip reaches the ring, or it stops short
    choice = 0 if r.reachable else 1
    return choice, {
        "target": _point(HAND_TARGET),
        "angle": format_number(math.degrees(HAND_ANGLE), 0),
        "sum_L": format_number(chain.total_length, 2),
        "wrist": format_point(view["wrist"], 2, chain.total_length),
        "wd": format_number(math.hypot(*view["wrist"]), 2),
        "outer": format_number(view["outer"], 2),
        "min_error": format_number(float(r.min_error), 3),
    }


QUESTIONS: dict[str, Callable[..., tuple[int, dict[str, str]]]] = {
    "s21": _s21,
    "s22": _s22,
    "s23": _s23,
    "s24": _s24,
    "s25": _s25,
    "s26": _s26,
    "s27": _s27,
    "s28": _s28,
}


@functools.cache
def _answer(key: str) -> tuple[int, dict[str, str]]:
    """The solver's choice and numbers for a section that needs no page text."""
    return QUESTIONS[key]()


def answer_for(key: str, text: dict[str, Any]) -> tuple[int, dict[str, str]]:
    """The solver's choice (an index into the choices) and the answer's numbers."""
    return QUESTIONS[key](text) if key == "s26" else _answer(key)


def predict_block(name: str, section: Any, text: dict[str, Any], figure: Any) -> dict[str, Any]:
    """The section's question, its choices, the solver's choice and its answer."""
    words = text[section.key]["predict"]
    choice, values = answer_for(section.key, text)

    def fill(words: str) -> str:
        for key, value in values.items():
            words = words.replace(f"%{key}%", value)
        return words

    answer = fill(words["answer"])
    return {
        "kind": "predict",
        "predict": {
            "id": f"predict-{section.key}",
            "question": fill(words["question"]),
            "choices": [fill(c) for c in words["choices"]],
            "right": choice,
            "answer": answer,
            "values": values,
            "labels": text["predict"],
        },
    }
