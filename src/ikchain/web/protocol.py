"""Requests and replies of the lesson server: pure functions, and the caps on work.

Two kinds of request share one parser:

- a *solve* request (``POST /api/solve``): keys mirror ``ikchain solve``'s flags
  (``lengths``, ``target``, ``method``, ``init``, ``iterations``, ``tolerance``,
  ``damping``, ``bend``); the answer is the same JSON as ``ikchain solve --json``.
- a *frame* request (WebSocket ``/ws`` and ``POST /api/frame``): one drag frame of a
  figure, the same keys plus ``id``, ``smoothing``, ``previous_target`` and
  ``family``; the answer is a FRAME (see :func:`frame_from_request`) with everything
  the page draws and prints, numbers already formatted.

The server keeps no per-client state: each request carries the chain, the options
and the pose to start from.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ikchain.caps import CAPS
from ikchain.chain import Chain
from ikchain.checks import check_points, check_real
from ikchain.lesson import motion, replay
from ikchain.lesson.content import DEFAULT_LANG, LANGS, load_text
from ikchain.lesson.frames import (
    OPTION_KEYS,
    FrameRequest,
    SolveRequest,
    frame_from_request,
)
from ikchain.result import Result
from ikchain.solvers import METHODS, solve

SOLVE_KEYS = frozenset({"lengths", "target", "method", *OPTION_KEYS})
FRAME_KEYS = SOLVE_KEYS | {"id", "smoothing", "previous_target", "family", "limits"}
#: Kinds of message on the frame channel besides a drag frame (``kind`` absent or
#: "frame"): each names the request keys it takes and its reply builder.
REPLAY_KEYS = SOLVE_KEYS | {"id", "kind", "lang", "joint_steps"}
MOTION_KEYS = frozenset(
    {"id", "kind", "lang", "lengths", "path", "frames_per_lap", "budget", "start"}
)


class RequestError(ValueError):
    """A malformed or over-budget request; the message goes back to the client."""


def decode(body: bytes | str) -> Any:
    """JSON text → Python, refusing oversized bodies, bad JSON, NaN and infinity."""
    if len(body) > CAPS["max_body_bytes"]:
        raise RequestError(
            f"request: expected at most {CAPS['max_body_bytes']} bytes, got {len(body)}"
        )

    def refuse_constant(name: str) -> Any:
        raise RequestError(f"request: expected finite numbers, got {name}")

    try:
        return json.loads(body, parse_constant=refuse_constant)
    except RequestError:
        raise
    except (ValueError, UnicodeDecodeError) as error:
        raise RequestError(f"request: expected a JSON object, got invalid JSON ({error})") from None


def _number_list(data: dict[str, Any], key: str) -> list[Any]:
    value = data[key]
    if not isinstance(value, list):
        raise RequestError(f"{key}: expected a list of numbers, got {type(value).__name__}")
    return value


def parse_solve(data: Any, *, allowed: frozenset[str] = SOLVE_KEYS) -> SolveRequest:
    """Validate a solve request (a decoded JSON object) against the caps."""
    if not isinstance(data, dict):
        raise RequestError(f"request: expected a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise RequestError(
            f"request: expected keys among {', '.join(sorted(allowed))}, got {', '.join(unknown)}"
        )
    for key in ("lengths", "target"):
        if key not in data:
            raise RequestError(f"request: expected key {key!r}, got none")
    lengths = _number_list(data, "lengths")
    if len(lengths) > CAPS["max_bones"]:
        raise RequestError(
            f"lengths: expected at most {CAPS['max_bones']} bones, got {len(lengths)}"
        )
    try:
        # joint limits (rad, (min, max) per joint): frames only (section 2.5)
        chain = Chain(lengths, data.get("limits") if "limits" in allowed else None)
        target = check_points(data["target"], "target")
    except ValueError as error:
        raise RequestError(str(error)) from None
    targets = int(np.prod(target.shape[:-1]))
    if targets > CAPS["max_targets"]:
        raise RequestError(f"target: expected at most {CAPS['max_targets']} targets, got {targets}")
    method = data.get("method", "dls")
    if method not in METHODS:
        raise RequestError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    options: dict[str, Any] = {}
    for key, name in (
        ("init", "init"),
        ("iterations", "max_iterations"),
        ("tolerance", "tolerance"),
        ("damping", "damping"),
        ("bend", "bend"),
    ):
        if data.get(key) is not None:
            options[name] = data[key]
    iterations = options.get("max_iterations", 200 if method != "analytic" else 0)
    if isinstance(iterations, int) and not isinstance(iterations, bool):
        if iterations > CAPS["max_iterations"]:
            raise RequestError(
                f"iterations: expected at most {CAPS['max_iterations']}, got {iterations}"
            )
        work = chain.n_bones * max(1, iterations) * targets
        if work > CAPS["max_work"]:
            raise RequestError(
                f"request: expected bones × iterations × targets <= {CAPS['max_work']}, "
                f"got {chain.n_bones} × {iterations} × {targets} = {work}"
            )
    return SolveRequest(chain, target, method, options)


def run_solve(request: SolveRequest) -> Result:
    """Solve a validated request; the library's ValueErrors become RequestErrors."""
    try:
        return solve(request.chain, request.target, request.method, **request.options)
    except ValueError as error:
        raise RequestError(str(error)) from None


def solve_reply(body: bytes | str) -> dict[str, Any]:
    """``POST /api/solve``: the same JSON as ``ikchain solve --json``."""
    return run_solve(parse_solve(decode(body))).as_dict()


def parse_frame(data: Any) -> FrameRequest:
    """Validate a frame request (a decoded JSON object)."""
    request = parse_solve(data, allowed=FRAME_KEYS)
    if request.target.shape != (2,):
        raise RequestError(f"target: expected one point [x, y], got shape {request.target.shape}")
    smoothing = data.get("smoothing")
    previous = data.get("previous_target")
    family = data.get("family")
    try:
        if smoothing is not None:
            smoothing = check_real(smoothing, "smoothing")
            if not 0.0 < smoothing <= 1.0:
                raise RequestError(f"smoothing: expected a number in (0, 1], got {smoothing}")
        if previous is not None:
            previous = np.asarray(previous, dtype=np.float64)
            if previous.shape != (2,) or not np.all(np.isfinite(previous)):
                given = data["previous_target"]
                raise RequestError(
                    f"previous_target: expected a finite point [x, y], got {given!r}"
                )
        if isinstance(family, list):  # four bones: two positions [s1, s2]
            if len(family) != 2:
                raise RequestError(
                    f"family: expected a number or two numbers [s1, s2], got {len(family)} items"
                )
            family = (check_real(family[0], "family"), check_real(family[1], "family"))
        elif family is not None:
            family = check_real(family, "family")
    except (TypeError, ValueError) as error:
        raise RequestError(str(error)) from None
    return FrameRequest(request, data.get("id"), smoothing, previous, family)


def _check_lang(data: dict[str, Any]) -> str:
    lang = data.get("lang", DEFAULT_LANG)
    if not isinstance(lang, str) or lang not in LANGS:
        raise RequestError(f"lang: expected one of {', '.join(LANGS)}, got {str(lang)[:20]!r}")
    return lang


def parse_replay(data: dict[str, Any]) -> tuple[SolveRequest, bool, str]:
    """Validate a replay request: a one-target solve of an iterative method.

    Returns the solve, whether CCD sweeps are split joint by joint, and the language
    of the chart's labels. Iterations are capped at :data:`replay.MAX_REPLAY_ITERATIONS`
    (every step is drawn and sent back).
    """
    request = parse_solve(data, allowed=REPLAY_KEYS)
    if request.target.shape != (2,):
        raise RequestError(f"target: expected one point [x, y], got shape {request.target.shape}")
    if request.method not in replay.REPLAY_METHODS:
        raise RequestError(
            f"method: expected one of {', '.join(replay.REPLAY_METHODS)} for a replay, "
            f"got {request.method!r}"
        )
    iterations = request.options.get("max_iterations")
    if iterations is None:
        raise RequestError("iterations: expected a whole number for a replay, got none")
    cap = replay.MAX_REPLAY_ITERATIONS
    if isinstance(iterations, int) and not isinstance(iterations, bool) and iterations > cap:
        raise RequestError(f"iterations: expected at most {cap} for a replay, got {iterations}")
    joint_steps = data.get("joint_steps", True)
    if not isinstance(joint_steps, bool):
        raise RequestError(f"joint_steps: expected true or false, got {joint_steps!r}")
    return request, joint_steps, _check_lang(data)


def replay_reply(data: dict[str, Any]) -> dict[str, Any]:
    """The reply to a valid-so-far replay request (``kind: "replay"``)."""
    request, joint_steps, lang = parse_replay(data)
    try:
        view = replay.replay_from_request(request, joint_steps=joint_steps, lang=lang)
    except ValueError as error:
        raise RequestError(str(error)) from None
    return {"id": _plain_id(data.get("id")), "ok": True, "replay": view}


def motion_reply(data: dict[str, Any]) -> dict[str, Any]:
    """A moving target's path tracked by every method (``kind: "motion"``).

    Keys: ``lengths``, ``path`` (circle, figure8, jump), ``frames_per_lap``,
    ``budget`` (iterations a frame), ``start`` (warm or cold), ``lang``. Capped by
    :data:`motion.MAX_FRAMES_PER_LAP`, :data:`motion.MAX_BUDGET` and
    :data:`motion.MAX_MOTION_WORK` as well as the bone cap.
    """
    unknown = sorted(set(data) - MOTION_KEYS)
    if unknown:
        raise RequestError(
            f"request: expected keys among {', '.join(sorted(MOTION_KEYS))}, "
            f"got {', '.join(unknown)}"
        )
    if "lengths" not in data:
        raise RequestError("request: expected key 'lengths', got none")
    lengths = _number_list(data, "lengths")
    if len(lengths) > CAPS["max_bones"]:
        raise RequestError(
            f"lengths: expected at most {CAPS['max_bones']} bones, got {len(lengths)}"
        )
    lang = _check_lang(data)
    try:
        request = motion.motion_request(
            Chain(lengths),
            data.get("path", "circle"),
            data.get("frames_per_lap", motion.FRAMES_PER_LAP[1]),
            data.get("budget", motion.BUDGETS[2]),
            data.get("start", "warm"),
        )
        view = motion.motion_view(request, _motion_words(lang))
    except ValueError as error:
        raise RequestError(str(error)) from None
    return {"id": _plain_id(data.get("id")), "ok": True, "motion": view}


def _motion_words(lang: str) -> dict[str, str]:
    text = load_text(lang)
    words = text["motion"]
    methods = {f"method_{m}": text["controls"][f"method_{m}"] for m in motion.MOTION_METHODS}
    return {"title": words["chart_title"], "x": words["chart_x"], "y": words["chart_y"], **methods}


#: ``kind`` → reply builder, for every kind of message but a drag frame.
KINDS = {"replay": replay_reply, "motion": motion_reply}


def frame_reply(message: bytes | str) -> dict[str, Any]:
    """A WebSocket message → its reply; never raises for a bad message."""
    request_id = None
    try:
        data = decode(message)
        if isinstance(data, dict):
            request_id = data.get("id")
            kind = data.get("kind", "frame")
            if kind != "frame":
                if kind not in KINDS:
                    raise RequestError(
                        f"kind: expected one of frame, {', '.join(KINDS)}, got {str(kind)[:40]!r}"
                    )
                return KINDS[kind](data)
            data = {key: value for key, value in data.items() if key != "kind"}
        request = parse_frame(data)
        try:
            frame = frame_from_request(request)
        except ValueError as error:
            raise RequestError(str(error)) from None
        return {"id": request.id, "ok": True, "frame": frame}
    except RequestError as error:
        return {"id": _plain_id(request_id), "ok": False, "error": str(error)}


def _plain_id(value: Any) -> Any:
    """Echo a request id only when it is a plain JSON scalar."""
    return value if isinstance(value, int | str) and not isinstance(value, bool) else None
