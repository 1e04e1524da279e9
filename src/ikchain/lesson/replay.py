"""Replay of one solve from its start pose: iteration by iteration, and for CCD joint by joint.

The page's replay panel asks for a solve of its figure's chain and target from the
start pose (not from the drawn pose, so that damping and the iteration budget show),
and draws the poses this module returns, one after the other, beside the error trace.

Every pose comes from :func:`ikchain.solve`:

- the pose after each iteration: the solve's own angle trace (``Result.trace_angles``);
- within a CCD sweep, the pose after joint ``j`` has turned: a CCD sweep turns the
  joints tip first, and each turn writes only that joint's relative angle, so after
  joints ``n-1 … j`` have turned the pose is ``before[:j] + after[j:]`` (``before``
  and ``after`` the poses around the sweep). Nothing is recomputed here;
- each pose's joints, tip and error: ``solve(..., init=pose, max_iterations=0)``, the
  library's own forward kinematics and error for that pose;
- when the figure holds the solve to a bend and it ended bent the other way, the
  mirror image and the run from it (:func:`ikchain.lesson.frames.frame_runs`), so
  that the replay ends where the figure's frame does;
- at each CCD joint step, the picture of that joint's turn (:func:`turn_picture`):
  the ray from the joint to the tip before the turn, the ray to the target, the arc
  of the angle the joint turned (read off the two poses), and the pose before the
  turn as a ghost. The page only draws it.

The replay is described for the page as a list of *steps*, each with its pose's
joints and formatted readings, and a trace chart drawn here (server-side SVG) with the
cursor position of each step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ikchain.chain import Chain
from ikchain.formatting import format_angle, format_number
from ikchain.kinematics import wrap_angle
from ikchain.lesson import plots
from ikchain.lesson.frames import (
    METHOD_TAKES,
    FrameRequest,
    SolveRequest,
    frame_from_request,
    frame_runs,
    readings_from_result,
)
from ikchain.lesson.labels import fill
from ikchain.lesson.limits_page import limits_for
from ikchain.lesson.replay_bounds import (
    JOINT_STEP_METHODS,
    MAX_REPLAY_ITERATIONS,
    MAX_REPLAY_STEPS,
    REPLAY_METHODS,
    most_iterations,
    reply_bytes_bound,
    steps_of,
)
from ikchain.lesson.words import load_text
from ikchain.manipulability import condition_from_angles
from ikchain.result import Result
from ikchain.solvers import solve

__all__ = [
    "JOINT_STEP_METHODS",
    "MAX_REPLAY_ITERATIONS",
    "MAX_REPLAY_STEPS",
    "REPLAY_METHODS",
    "Replay",
    "ReplayStep",
    "TurnPicture",
    "most_iterations",
    "replay_block",
    "replay_default",
    "replay_from_request",
    "replay_solve",
    "replay_view",
    "reply_bytes_bound",
    "steps_of",
    "turn_picture",
]

#: Decimals of the drawn joint positions (m): a nanometre, far below a pixel.
JOINT_DECIMALS = 9
#: The arc of a CCD turn is drawn at this share of the chain's reach from the joint…
ARC_REACH_SHARE = 0.08
#: …and at most this share of the shorter of its two rays, so it stays between them.
ARC_RAY_SHARE = 0.4
#: Decimals of the turned angle's text (degrees), as the readings' joint angles.
ANGLE_DIGITS = 2


@dataclass(frozen=True)
class ReplayStep:
    """One drawn step: after ``iteration`` iterations, and within it after ``joint`` turned.

    ``joint`` is None for a whole iteration (and for the start pose, iteration 0).
    ``mirror`` marks the step where the page reflected the pose to keep the chosen
    bend (:func:`ikchain.lesson.frames.keep_bend`), after ``iteration`` iterations.
    ``result`` is the library's Result for exactly this pose (0 iterations from it).
    """

    iteration: int
    joint: int | None
    result: Result
    mirror: bool = False


@dataclass(frozen=True)
class Replay:
    """A solve replayed: its final Result, the poses along the way and the error trace."""

    final: Result
    poses: np.ndarray  # start pose first, then after each iteration (each run's)
    steps: tuple[ReplayStep, ...]
    iterations: int  # of every run together (the figure's reading)


@dataclass(frozen=True)
class TurnPicture:
    """What the figure draws at a CCD joint step: joint ``joint``'s turn, in metres.

    Attributes
    ----------
    pivot : numpy.ndarray, shape (2,)
        The turning joint's position (m); the turn does not move it.
    tip : numpy.ndarray, shape (2,)
        The tip before the turn (m): the ray pivot → tip is the one the joint turns.
    target : numpy.ndarray, shape (2,)
        The target (m): the ray pivot → target is the one CCD aims the first ray at.
    turn : float
        The angle the joint turned (rad, in [-pi, pi]): its relative angle after the
        turn minus before, wrapped. Unclamped (no damping, step cap or limit at work)
        it is the angle from the tip ray to the target ray.
    radius : float
        The arc's radius (m).
    arc_from, arc_to : numpy.ndarray, shape (2,)
        The arc's end points (m): on the tip ray, and that ray turned by ``turn``.
    """

    pivot: np.ndarray
    tip: np.ndarray
    target: np.ndarray
    turn: float
    radius: float
    arc_from: np.ndarray
    arc_to: np.ndarray


def turn_picture(
    chain: Chain, before: Result, after: Result, joint: int, target: np.ndarray
) -> TurnPicture:
    """The picture of joint ``joint``'s CCD turn from pose ``before`` to pose ``after``.

    Parameters
    ----------
    chain : Chain
        The chain (its reach sizes the arc).
    before, after : Result
        The library's Results for the poses around the turn (``joints`` shape (n+1, 2),
        m; ``angles`` shape (n,), rad).
    joint : int
        The joint that turned, 0 (the root) … n - 1.
    target : numpy.ndarray, shape (2,)
        The target (m).

    Returns
    -------
    TurnPicture
        The pivot, the tip before the turn, the target, the turned angle and its arc.
    """
    pivot = np.asarray(before.joints[joint], dtype=float)
    tip = np.asarray(before.joints[-1], dtype=float)
    aim = np.asarray(target, dtype=float)
    turn = float(wrap_angle(float(after.angles[joint]) - float(before.angles[joint])))
    to_tip, to_target = tip - pivot, aim - pivot
    shorter = min(float(np.hypot(*to_tip)), float(np.hypot(*to_target)))
    radius = min(ARC_REACH_SHARE * float(chain.total_length), ARC_RAY_SHARE * shorter)
    if radius > 0.0:
        start = float(np.arctan2(to_tip[1], to_tip[0]))
        arc_from = pivot + radius * np.array([np.cos(start), np.sin(start)])
        arc_to = pivot + radius * np.array([np.cos(start + turn), np.sin(start + turn)])
    else:  # the target (or the tip) on the joint: no angle to draw
        arc_from = arc_to = pivot
    return TurnPicture(pivot, tip, aim, turn, radius, arc_from, arc_to)


def _rounded(point: np.ndarray) -> list[float]:
    """A point (m) rounded for the page as the step joints are (:data:`JOINT_DECIMALS`)."""
    return np.round(np.asarray(point, dtype=float), JOINT_DECIMALS).tolist()


def _picture_view(picture: TurnPicture, ghost: int) -> dict[str, Any]:
    """A turn's picture as the page draws it (see :func:`replay_view`)."""
    return {
        "pivot": _rounded(picture.pivot),
        "tip": _rounded(picture.tip),
        "arc": [
            *_rounded(picture.arc_from),
            *_rounded(picture.arc_to),
            round(picture.radius, JOINT_DECIMALS),
            1 if picture.turn > 0.0 else 0,
        ],
        "angle": format_angle(picture.turn, ANGLE_DIGITS),
        "ghost": ghost,
    }


def pose_trace(
    chain: Chain, target: np.ndarray, method: str, options: dict[str, Any]
) -> tuple[Result, np.ndarray]:
    """The final Result of a solve and its poses, start first: shape (k + 1, n).

    One run of the solver with ``trace=True``: ``Result.trace_angles`` is the pose
    before the first iteration and after each one.
    """
    final = solve(chain, target, method, **options, trace=True)
    return final, np.asarray(final.trace_angles)


def traced_runs(
    chain: Chain, target: np.ndarray, method: str, options: dict[str, Any]
) -> list[Result]:
    """The runs the figure's frame takes (:func:`ikchain.lesson.frames.frame_runs`:
    the solve, and its mirror image solved on when it ended bent the other way),
    each with its trace."""
    return frame_runs(chain, target, method, {**options, "trace": True})


def _pose_result(chain: Chain, target: np.ndarray, method: str, pose: np.ndarray) -> Result:
    """The library's Result for ``pose`` itself: joints, tip, error, reachability."""
    return solve(chain, target, method, init=pose, max_iterations=0)


def replay_solve(
    chain: Chain,
    target: np.ndarray,
    method: str,
    options: dict[str, Any],
    *,
    joint_steps: bool = True,
) -> Replay:
    """Replay the figure's solve of ``method`` from its start pose: the given ``init``
    (the stall's, a table row's), else the default start bent by ``bend``; when the
    solve ends bent against ``bend``, the mirror step and the run from the mirror
    image follow, as in the figure's frame (:func:`ikchain.lesson.frames.frame_runs`).

    Parameters
    ----------
    chain, target, method, options
        As for a frame's solve (``options`` without ``trace``, ``bend`` allowed beside
        ``init``); ``method`` one of :data:`REPLAY_METHODS`.
    joint_steps : bool
        For CCD, also a step after each joint's turn within every sweep.
    """
    if method not in REPLAY_METHODS:
        raise ValueError(f"method: expected one of {', '.join(REPLAY_METHODS)}, got {method!r}")
    runs = traced_runs(chain, target, method, options)
    n = chain.n_bones
    traces = [np.asarray(run.trace_angles) for run in runs]
    steps = [ReplayStep(0, None, _pose_result(chain, target, method, traces[0][0]))]
    done = 0  # iterations of the runs before this one
    for k, poses in enumerate(traces):
        if k > 0:  # the mirror image the second run starts from
            steps.append(
                ReplayStep(done, None, _pose_result(chain, target, method, poses[0]), True)
            )
        for i in range(1, len(poses)):
            before, after = poses[i - 1], poses[i]
            at = done + i
            if method in JOINT_STEP_METHODS and joint_steps:
                for j in range(n - 1, 0, -1):  # tail first; joint 0 completes the sweep
                    partial = np.concatenate((before[:j], after[j:]))
                    steps.append(ReplayStep(at, j, _pose_result(chain, target, method, partial)))
                steps.append(ReplayStep(at, 0, _pose_result(chain, target, method, after)))
            else:
                steps.append(ReplayStep(at, None, _pose_result(chain, target, method, after)))
        done += len(poses) - 1
    final = runs[-1]
    total = sum(int(run.iterations) for run in runs)
    return Replay(final, np.concatenate(traces), tuple(steps), total)


def _step_readings(step: ReplayStep, chain: Chain, condition: float) -> dict[str, str]:
    """The readings panel for one step: the drag frame's, iterations so far."""
    readings = readings_from_result(step.result, chain, condition=condition)
    return {**readings, "iterations": str(step.iteration)}


def replay_from_request(request: SolveRequest, *, joint_steps: bool, lang: str) -> dict[str, Any]:
    """A validated replay request → its view (:func:`replay_view`) with ``lang``'s labels."""
    words = load_text(lang)["replay"]
    found = replay_solve(
        request.chain, request.target, request.method, request.options, joint_steps=joint_steps
    )
    labels = {"x": words["chart_x"], "y": words["chart_y"], "title": words["chart_title"]}
    view = replay_view(found, request.chain, {**labels, "id": f"replay-{request.method}"})
    # The figure's own frame for this solve (the same runs): the page draws it once
    # the replay is back, so that the figure and the replay's end are one solve.
    view["frame"] = frame_from_request(FrameRequest(request, None, None, None, None))
    return view


def replay_view(replay: Replay, chain: Chain, labels: dict[str, str]) -> dict[str, Any]:
    """The replay as the page draws it: steps (joints, readings, cursor) and the chart.

    ``labels`` holds the chart's ``title``, ``x``, ``y`` and ``id``. Each step's ``x``,
    ``y`` place the chart's cursor (SVG pixels); ``joint`` is the joint that just
    turned (CCD) or None. ``iterations``, ``status`` and ``error`` describe the final
    Result; ``target`` is the solved target ([x, y], m).

    A step where a joint turned carries its ``picture`` (None on every other step),
    all in metres, rounded to :data:`JOINT_DECIMALS`:

    - ``pivot``: [x, y], the turning joint; ``tip``: [x, y], the tip before the turn;
      the target is the view's ``target``;
    - ``arc``: [x0, y0, x1, y1, r, sweep], the arc of the turned angle at the pivot,
      from (x0, y0) on the tip ray to (x1, y1), radius ``r``; ``sweep`` is 1 for a
      counter-clockwise turn (world axes, y up), else 0 (never more than half a turn);
    - ``angle``: the turned angle's text (``format_angle``, degrees);
    - ``ghost``: the index of the step whose pose is the one before the turn.
    """
    n = replay.poses.shape[-1]
    positions = []
    for step in replay.steps:
        if step.joint is None:
            positions.append(float(step.iteration))
        else:  # joints n-1 … 0 of sweep i sit at i - 1 + 1/n … i on the x axis
            positions.append(step.iteration - 1 + (n - step.joint) / n)
    whole = [s for s in replay.steps if s.joint in (None, 0)]
    chart = plots.error_chart(
        [
            {
                "key": replay.final.method,
                "label": "",
                "points": [(float(s.iteration), float(s.result.error)) for s in whole],
            }
        ],
        x_label=labels["x"],
        y_label=labels["y"],
        title=labels["title"],
        chart_id=labels["id"],
    )
    # every step's condition number in one call (one compiled loop over the steps)
    poses = np.array([step.result.angles for step in replay.steps])
    conditions = condition_from_angles(chain.lengths, poses).tolist()
    target = np.asarray(replay.final.target, dtype=float)
    steps = []
    for index, (step, x, condition) in enumerate(
        zip(replay.steps, positions, conditions, strict=True)
    ):
        cx, cy = chart.place(x, float(step.result.error))
        picture = None
        if step.joint is not None:  # the step before holds the pose before the turn
            before = replay.steps[index - 1].result
            found = turn_picture(chain, before, step.result, step.joint, target)
            picture = _picture_view(found, index - 1)
        steps.append(
            {
                "iteration": step.iteration,
                "joint": step.joint,
                "mirror": step.mirror,
                "joints": np.round(step.result.joints, JOINT_DECIMALS).tolist(),
                "readings": _step_readings(step, chain, condition),
                "x": round(cx, 2),
                "y": round(cy, 2),
                "picture": picture,
            }
        )
    return {
        "method": replay.final.method,
        "iterations": replay.iterations,
        "status": str(replay.final.status),
        "error": format_number(float(replay.final.error), 6),
        "target": _rounded(target),
        "steps": steps,
        "chart": chart.svg,
    }


# -- The replay panel under a figure ---------------------------------------------------


def replay_default(figure: dict[str, Any], text: dict[str, Any]) -> dict[str, Any]:
    """The replay of a figure's default state, as :func:`replay_view` gives it."""
    d = figure["defaults"]
    method, bones = d["method"], len(d["lengths"])
    chain = Chain(d["lengths"], limits_for(figure["key"], bones))  # 2.5: limits
    options = {
        "max_iterations": most_iterations(bones, d["iterations"], method, True),
        "tolerance": d["tolerance"],
        "bend": d["bend"],
    }
    if "damping" in METHOD_TAKES[method]:
        options["damping"] = d["damping"]
    found = replay_solve(chain, np.asarray(d["target"], dtype=float), method, options)
    words = text["replay"]
    labels = {
        "x": words["chart_x"],
        "y": words["chart_y"],
        "title": words["chart_title"],
        "id": f"{figure['id']}-replay",
    }
    return replay_view(found, chain, labels)


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
            "max_iterations": MAX_REPLAY_ITERATIONS,
            # one step is kept for the mirror step (see replay.steps_of)
            "max_steps": MAX_REPLAY_STEPS - 1,
        },
    }
