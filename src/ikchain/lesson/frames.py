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
from ikchain.family import angles_from_family, family_from_angles
from ikchain.formatting import format_degrees, format_number, format_point
from ikchain.result import Result
from ikchain.solvers import METHODS, OPTIONS, solve

#: Request keys (the CLI's flag names) → :func:`ikchain.solve` options.
OPTION_KEYS: dict[str, str] = {
    "init": "init",
    "iterations": "max_iterations",
    "tolerance": "tolerance",
    "damping": "damping",
    "bend": "bend",
}
#: Request keys each method takes, from the solver's own table (the page reads it).
METHOD_TAKES: dict[str, list[str]] = {
    method: [key for key, option in OPTION_KEYS.items() if option in OPTIONS[method]]
    for method in METHODS
}

#: A smoothed target this close to the pointer counts as arrived (m).
SETTLED = 1e-6


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
    family: float | None


def readings_from_result(result: Result, chain: Chain) -> dict[str, str]:
    """The readings panel's numbers, formatted once, here, for page and script alike."""
    d = math.hypot(*result.target)
    return {
        "target": format_point(result.target, 4),
        "d": format_number(d, 6),
        "d_ratio": format_number(d / chain.total_length, 4),
        "angles": format_degrees(result.angles, 2),
        "tip": format_point(result.end, 4),
        "error": format_number(result.error, 6),
        "iterations": str(result.iterations),
        "joint1": format_point(result.joints[1], 4),
    }


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
    if request.family is not None:
        result = family_result(solve_request, target, request.family)
    else:
        result = solve(chain, target, solve_request.method, **solve_request.options)
    family = None
    if chain.n_bones == 3 and result.reachable and math.hypot(*target) > 0.0:
        family = {"position": family_from_angles(chain, target, result.angles)}
    return {
        "result": result.as_dict(),
        "target": result.target.tolist(),
        "reach": {"inner": chain.inner_radius, "outer": chain.outer_radius},
        "readings": readings_from_result(result, chain),
        "reachable": result.reachable,
        "status": str(result.status),
        "gap": not result.reachable,
        "family": family,
        "settled": settled,
    }


def family_result(request: SolveRequest, target: np.ndarray, position: float) -> Result:
    """The family pose at ``position``, as a closed-form Result (0 iterations)."""
    init = request.options.get("init")
    bend = 1
    if init is not None:
        elbow = math.remainder(float(np.asarray(init, dtype=float).reshape(-1)[-1]), 2 * math.pi)
        bend = -1 if elbow < 0 else 1
    angles = angles_from_family(request.chain, target, position, bend)
    # Verify and package through the solver: a warm start at the family pose
    # converges in 0 iterations, so the Result reports it honestly.
    return solve(request.chain, target, "dls", init=angles, max_iterations=50)
