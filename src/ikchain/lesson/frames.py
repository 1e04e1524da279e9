"""One drag frame of a lesson figure: what the page asks, and everything it draws.

A frame request is a solve request (chain, target, method, options) plus the page's
extras (smoothing toward the pointer, a position along the three-bone family); the
answer (:func:`frame_from_request`) carries the solved pose and every number the page
prints, already formatted. The server (:mod:`ikchain.web.protocol`) parses and caps
requests and calls in here; the page's default figures are solved here too, so that a
figure looks the same before and after its first drag.

Errors are the library's ``ValueError``, with the message for the reader.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ikchain.chain import Chain
from ikchain.checks import check_bend
from ikchain.family import (
    angles_from_family,
    angles_from_family4,
    family4_from_angles,
    family_from_angles,
)
from ikchain.formatting import format_degrees, format_number, format_point
from ikchain.kinematics import wrap_angle
from ikchain.lesson.hand import hand_readings, hand_view
from ikchain.lesson.limits import held_joints, limits_view
from ikchain.manipulability import (
    condition_from_angles,
    condition_from_manipulability,
    manipulability_from_angles,
)
from ikchain.result import Result
from ikchain.solvers import DEFAULT_MAX_ITERATIONS, METHODS, OPTIONS, solve

#: Request keys (the CLI's flag names) → :func:`ikchain.solve` options.
OPTION_KEYS: dict[str, str] = {
    "init": "init",
    "iterations": "max_iterations",
    "tolerance": "tolerance",
    "damping": "damping",
    "bend": "bend",
}
#: The page's request keys beyond them (section 2.5's pull toward a rest pose), named
#: as :func:`ikchain.solve` names them.
PAGE_KEYS: dict[str, str] = {"rest": "rest", "rest_weight": "rest_weight"}
#: Request keys each method takes, from the solver's own table (the page reads it).
METHOD_TAKES: dict[str, list[str]] = {
    method: [
        key for key, option in {**OPTION_KEYS, **PAGE_KEYS}.items() if option in OPTIONS[method]
    ]
    for method in METHODS
}

#: Iterations per drag frame: warm-started frames need few; the cap keeps a frame cheap.
FRAME_ITERATIONS = 64
#: A smoothed target this close to the pointer counts as arrived (m).
SETTLED = 1e-6
#: A net turn this close to 0 or to a half turn (rad) is on both sides at once:
#: the straight and the fully folded chain keep any bend direction.
BEND_SLACK = 1e-9
#: The manipulability ellipse is drawn at this many metres per m/rad of tip speed
#: (the page's text states it): at 0.2 the lesson chain's widest, about 1.5 m/rad,
#: spans 0.3 m around the tip.
ELLIPSE_SCALE = 0.2


@dataclass(frozen=True)
class SolveRequest:
    """A validated request: the chain, the target(s), the method and its options."""

    chain: Chain
    target: np.ndarray
    method: str
    options: dict[str, Any]


@dataclass(frozen=True)
class FrameRequest:
    """A validated drag frame: a solve request plus the page's extras."""

    solve: SolveRequest
    id: Any
    smoothing: float | None
    previous_target: np.ndarray | None
    family: float | tuple[float, float] | None  # 3 bones: one position; 4 bones: two


def readings_from_result(
    result: Result, chain: Chain, iterations: int | None = None, condition: float | None = None
) -> dict[str, str]:
    """The readings panel's numbers, formatted once, here, for page and script alike.

    ``iterations`` overrides the result's count when a frame took two solves (see
    :func:`keep_bend`). ``condition`` is the Jacobian's condition number at the
    result's angles when the caller computed it already (a replay does, for all its
    steps in one call); by default it is computed here.
    """
    if condition is None:
        condition = float(condition_from_angles(chain.lengths, result.angles))
    d = math.hypot(*result.target)
    size = chain.total_length  # positions within rounding of it from 0 print as 0
    readings = {
        "target": format_point(result.target, 4, size),
        "d": format_number(d, 6),
        "d_ratio": format_number(d / chain.total_length, 4),
        "angles": format_degrees(result.angles, 2),
        "tip": format_point(result.end, 4, size),
        "error": format_number(result.error, 6),
        "iterations": str(result.iterations if iterations is None else iterations),
        "joint1": format_point(result.joints[1], 4, size),
        "condition": format_condition(condition),
    }
    if chain.limits is not None:  # 2.5: reach under the limits, and the joints they hold
        readings.update(limits_readings(result))
    return readings


def limits_readings(result: Result) -> dict[str, str]:
    """The readings a limited chain adds, from the Result alone.

    ``limits_reach`` names the sentence the page shows for "reachable under these
    limits": ``yes``; ``no`` with ``min_error``, the distance to the nearest tip
    the limits allow (exact where certified); ``no_bound`` when the search was not
    certified and ``min_error`` is a proven lower bound. ``held`` lists the joints
    sitting at a bound (``at_limit``) with their angle, e.g. ``"1 (0.00°), 2
    (150.00°)"`` (joint 0 is the root), or ``""`` when none.
    """
    reach = "yes" if result.reachable else "no" if result.certified else "no_bound"
    return {
        "limits_reach": reach,
        "min_error": format_number(result.min_error, 6),
        "held": held_joints(result),
    }


def format_condition(value: float) -> str:
    """A condition number as the page prints it (as Table ②b does); ∞ when singular."""
    return "∞" if not math.isfinite(value) or value > 1e15 else format_number(value, 2)


def frame_from_request(request: FrameRequest) -> dict[str, Any]:
    """Solve one drag frame and describe it for the page.

    Smoothing moves the solved target a fraction ``smoothing`` of the way from
    ``previous_target`` to the pointer's target; ``settled`` says whether it has
    arrived. ``family`` (3 bones) places the pose at that family position instead of
    iterating; otherwise the request's method runs from ``init``.

    Raises
    ------
    ValueError
        When the solver refuses the request (the message says why).
    """
    solve_request = request.solve
    chain = solve_request.chain
    pointer = solve_request.target
    target = pointer
    if request.smoothing is not None and request.previous_target is not None:
        target = request.previous_target + request.smoothing * (pointer - request.previous_target)
    settled = bool(math.hypot(*(pointer - target)) <= SETTLED)
    if settled:
        target = pointer
    iterations = None
    if isinstance(request.family, tuple):
        result = family4_result(solve_request, target, request.family)
    elif request.family is not None:
        result = family_result(solve_request, target, request.family)
    else:
        runs = frame_runs(chain, target, solve_request.method, solve_request.options)
        result = runs[-1]
        if len(runs) > 1:
            iterations = sum(int(run.iterations) for run in runs)
    family: dict[str, Any] | None = None
    if chain.n_bones == 3 and chain.limits is None and result.reachable and any(target):
        family = {"position": family_from_angles(chain, target, result.angles)}
    elif chain.n_bones == 4 and chain.limits is None and result.reachable and any(target):
        family = {"positions": list(family4_from_angles(chain, target, result.angles))}
    # the ellipse, and the condition number it shows from it
    manipulability = manipulability_from_angles(chain.lengths, result.angles)
    condition = float(condition_from_manipulability(manipulability))
    readings = readings_from_result(result, chain, iterations, condition)
    # 2.8: the hand's angle (angle=), its wrist and the ring the wrist can reach
    angle = solve_request.options.get("angle")
    hand = None if angle is None else hand_view(chain, result, float(angle))
    if hand is not None:
        readings.update(hand_readings(hand, chain))
    return {
        # the solved target, reachable and status are the result's (result.target is
        # the smoothed target when smoothing is on: where the ring is drawn)
        "result": result.as_dict(),
        "reach": {"inner": chain.inner_radius, "outer": chain.outer_radius},
        "readings": readings,
        # the line from the tip to the target: whenever the solve stopped short of it
        # (out of reach, stalled, or at the iteration limit), not only out of reach
        "gap": not result.reachable or str(result.status) != "converged",
        "family": family,
        "bend": bend_of_pose(result.angles),
        "settled": settled,
        # 2.5: arcs at the joints and which sit at a bound, or None
        "limits": limits_view(chain, result.angles, result.at_limit),
        # 2.2: the manipulability ellipse at the tip, as drawn
        "ellipse": ellipse_view(chain, result, manipulability=manipulability),
        "hand": hand,
    }


def ellipse_view(
    chain: Chain,
    result: Result,
    scale: float = ELLIPSE_SCALE,
    manipulability: np.ndarray | None = None,
) -> dict[str, Any]:
    """The manipulability ellipse of ``result``'s pose as the figure draws it.

    :func:`ikchain.manipulability.manipulability_from_angles` at the result's angles,
    placed at its tip and scaled by ``scale`` (m per m/rad); ``manipulability`` is
    that function's (3,) answer when the caller has it already.

    Returns
    -------
    dict
        ``centre``: [x, y], the tip (m); ``radii``: [rx, ry], the drawn semi-axes
        ``scale · σ₁ ≥ scale · σ₂ ≥ 0`` (m; ry is 0 at a singular pose, where the
        ellipse is its long axis alone); ``rotation``: the long axis's direction from
        +x (degrees, in (-90, 90], counter-clockwise in world axes: SVG's ``rotate``
        in the figure's y-up group); ``axis``: [[x, y], [x, y]], the long axis's two
        ends (m), the line segment a singular pose degenerates to; ``sigma``:
        [σ₁, σ₂] (m/rad); ``scale`` (m per m/rad).
    """
    if manipulability is None:
        manipulability = manipulability_from_angles(chain.lengths, result.angles)
    sigma1, sigma2, axis = (float(value) for value in manipulability)
    cx, cy = (float(value) for value in result.joints[-1])
    rx, ry = scale * sigma1, scale * sigma2
    ux, uy = rx * math.cos(axis), rx * math.sin(axis)
    return {
        "centre": [cx, cy],
        "radii": [rx, ry],
        "rotation": math.degrees(axis),
        "axis": [[cx - ux, cy - uy], [cx + ux, cy + uy]],
        "sigma": [sigma1, sigma2],
        "scale": scale,
    }


def net_turn(angles: Any) -> float:
    """How far the chain turns from its first bone to its last (rad, in (−π, π]).

    The sum of the joint angles after the root: positive when the chain bends
    counter-clockwise on the whole. For two bones it is ``dA``, the elbow branch.
    """
    turn = float(wrap_angle(float(np.sum(np.asarray(angles, dtype=float)[1:]))))
    return math.pi if turn <= -math.pi else turn


def bend_of_pose(angles: Any) -> int | None:
    """+1 (counter-clockwise) or −1 (clockwise) by :func:`net_turn`; None when the
    chain is straight or fully folded, which bends neither way."""
    turn = net_turn(angles)
    if abs(turn) <= BEND_SLACK or abs(turn) >= math.pi - BEND_SLACK:
        return None
    return 1 if turn > 0 else -1


def mirror_pose(angles: Any, target: Any) -> np.ndarray:
    """The pose reflected across the line from the root through ``target`` (rad).

    A bone at world angle θ goes to 2φ − θ (φ the target's direction), so the root
    angle becomes 2φ − a₀ and every later joint angle changes sign. The reflection
    fixes every point of that line, the target among them, so the mirrored tip is
    exactly as far from the target as the original: the same quality of answer,
    bending the other way.
    """
    mirrored = -np.asarray(angles, dtype=float)
    phi = math.atan2(float(target[1]), float(target[0]))
    mirrored[0] = 2.0 * phi + mirrored[0]
    return mirrored


def keep_bend(
    chain: Chain,
    target: np.ndarray,
    method: str,
    options: dict[str, Any],
    result: Result,
    bend: int,
) -> tuple[Result, int | None]:
    """Hold an iterative solve to the bend direction the reader chose.

    CCD, FABRIK and DLS go wherever their iterations lead, and from a start bent one
    way they can finish bent the other (CCD's first turn at the last joint often
    flips a two-bone elbow). When ``result``'s net turn (:func:`net_turn`) has the
    wrong sign, its mirror image (:func:`mirror_pose`) reaches the target exactly as
    well and bends the chosen way; the same solver is run again from it, with the
    iterations left, to check and report it. Returns the result to show and the
    iterations both runs used (None when one run sufficed).
    """
    second = mirror_run(chain, target, method, options, result, bend)
    if second is None:
        return result, None
    return second, int(result.iterations) + int(second.iterations)


def frame_options(options: dict[str, Any]) -> tuple[dict[str, Any], int | None]:
    """A frame's solve options and the bend it keeps.

    Without a start pose, ``bend`` goes to the solver (the default start bends that
    way) and is kept; with one (a warm start, a table row's or the stall's start) it
    only says which side to keep (:func:`keep_bend`).
    """
    options = dict(options)
    bend = options.get("bend")
    if bend is not None:
        bend = check_bend(bend)
        if "init" in options:
            del options["bend"]
    return options, bend


def frame_runs(
    chain: Chain, target: np.ndarray, method: str, options: dict[str, Any]
) -> list[Result]:
    """The solve a frame shows, as the runs it took: one, or two when the first
    finished bent against the chosen bend and its mirror image was solved on
    (:func:`keep_bend`). The replay (:mod:`ikchain.lesson.replay`) shows the same runs,
    with ``trace=True`` in ``options``.
    """
    options, bend = frame_options(options)
    first = solve(chain, target, method, **options)
    # With joint limits (2.5) the limits choose the side; a mirror could break them.
    if bend is None or method == "analytic" or chain.limits is not None:
        return [first]
    second = mirror_run(chain, target, method, options, first, bend)
    return [first] if second is None else [first, second]


def mirror_run(
    chain: Chain,
    target: np.ndarray,
    method: str,
    options: dict[str, Any],
    result: Result,
    bend: int,
) -> Result | None:
    """The second run of :func:`keep_bend`, or None when ``result`` already bends the
    chosen way (or is straight, folded, or the target is the root)."""
    turn = net_turn(result.angles)
    folded = abs(turn) >= math.pi - BEND_SLACK
    if bend * turn >= -BEND_SLACK or folded or not np.any(target):
        return None
    again = {key: value for key, value in options.items() if key not in ("init", "bend")}
    budget = int(options.get("max_iterations", DEFAULT_MAX_ITERATIONS))
    again["max_iterations"] = max(0, budget - int(result.iterations))
    return solve(chain, target, method, init=mirror_pose(result.angles, target), **again)


def _family_bend(init: Any) -> int:
    """The family's bend: the side the start pose's last joint bends to (+1 if no start)."""
    if init is None:
        return 1
    return -1 if wrap_angle(float(np.asarray(init, dtype=float).reshape(-1)[-1])) < 0 else 1


def family4_result(
    request: SolveRequest, target: np.ndarray, positions: tuple[float, float]
) -> Result:
    """The four-bone family pose at ``positions`` (:func:`ikchain.family.
    angles_from_family4`), as a closed-form Result like :func:`family_result`."""
    bend = _family_bend(request.options.get("init"))
    angles = angles_from_family4(request.chain, target, positions, bend)
    return pose_result(request.chain, target, angles)


def family_result(request: SolveRequest, target: np.ndarray, position: float) -> Result:
    """The family pose at ``position``, as a closed-form Result (0 iterations)."""
    bend = _family_bend(request.options.get("init"))
    angles = angles_from_family(request.chain, target, position, bend)
    return pose_result(request.chain, target, angles)


def pose_result(chain: Chain, target: np.ndarray, angles: np.ndarray) -> Result:
    """The library's Result for ``angles`` itself: its joints, tip, error, status and
    reach, from a solve of zero iterations. A family pose is closed form: it is
    measured, never iterated on (so the frame draws exactly the family's pose)."""
    return solve(chain, target, "dls", init=angles, max_iterations=0)
