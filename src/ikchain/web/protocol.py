"""Requests and replies of the lesson server: pure functions, and the caps on work.

Two kinds of request share one parser:

- a *solve* request (``POST /api/solve``): keys mirror ``ikchain solve``'s flags
  (``lengths``, ``target``, ``method``, ``init``, ``iterations``, ``tolerance``,
  ``damping``, ``bend``, ``weight``, ``stiffness``, ``angle``); the answer is the same
  JSON as ``ikchain solve --json``. ``weight`` is a number in [0, 1]; ``stiffness`` a
  list of one entry a joint, each a number >= 0 or the string ``"inf"`` (JSON has no
  infinity), which locks the joint; ``angle`` a number (rad), the hand's world
  angle (:mod:`ikchain.solvers.angle`); a frame takes ``angle`` too (section 2.8's hand),
  a replay none of the three.
- a *frame* request (WebSocket ``/ws`` and ``POST /api/frame``): one drag frame of a
  figure, the same keys plus ``id``, ``smoothing``, ``previous_target``,
  ``family`` and ``pole`` (one point ``[x, y]``, checked as the target is: the solve
  runs with ``pole=`` and the library refuses it with ``bend`` or ``init``; a replay
  takes it too and replays the run the pole chose) and ``angle`` (checked and solved
  as for a solve request; the frame adds the wrist and its annulus, see
  :mod:`ikchain.lesson.hand`); the answer is a frame
  (:func:`ikchain.lesson.frames.frame_from_request`) with everything the page draws
  and prints, numbers already formatted, its ``bend`` the one the pole chose.

Every request goes through one strict path: :func:`decode` (size, nesting depth,
finite numbers, integers within ±2**53, each key once, no lone surrogates), then a
typed parser (numbers are JSON numbers, never booleans; every array has the shape it
must have), then the caps (:data:`ikchain.caps.CAPS`, work counted over the broadcast
batch), then the solve, then :func:`encode` (strict JSON, size-capped). Anything
malformed is a :class:`RequestError` whose message names what was expected and what
was given; :func:`respond` turns it into an error reply. The server keeps no
per-client state: each request carries the chain, the options and the pose to start
from.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from ikchain.caps import CAPS, MAX_ANGLE
from ikchain.chain import Chain
from ikchain.checks import check_batch_shape
from ikchain.lesson import motion, replay
from ikchain.lesson.content import DEFAULT_LANG, LANGS, load_text
from ikchain.lesson.frames import (
    OPTION_KEYS,
    FrameRequest,
    SolveRequest,
    frame_from_request,
)
from ikchain.result import Result
from ikchain.solvers import DEFAULT_MAX_ITERATIONS, METHODS, solve
from ikchain.solvers.methods import reach_work

#: Options of a solve request that a replay does not take: the blend weight, the
#: joints' stiffness and the tip angle (a drag frame takes the angle: 2.8's hand).
SOLVE_ONLY_KEYS = frozenset({"weight", "stiffness", "angle"})
SOLVE_KEYS = frozenset({"lengths", "target", "method", *OPTION_KEYS, *SOLVE_ONLY_KEYS})
FRAME_KEYS = (SOLVE_KEYS - SOLVE_ONLY_KEYS) | {
    "id",
    "smoothing",
    "previous_target",
    "family",
    "limits",
    "rest",
    "rest_weight",
    "pole",
    "angle",
}
#: Kinds of message on the frame channel besides a drag frame (``kind`` absent or
#: "frame"), and the keys each takes.
REPLAY_KEYS = (SOLVE_KEYS - SOLVE_ONLY_KEYS) | {
    "id",
    "kind",
    "lang",
    "joint_steps",
    "limits",
    "rest",
    "rest_weight",
    "pole",
}
MOTION_KEYS = frozenset(
    {"id", "kind", "lang", "lengths", "path", "frames_per_lap", "budget", "start"}
)
KINDS = ("frame", "replay", "motion")

#: Deepest nesting of arrays and objects a request may have (a batch of targets
#: of shape (a, b, c, 2) inside the request object is 5 deep).
MAX_DEPTH = 8
#: Integers must be exact as doubles (JavaScript's safe integers).
MAX_INT = 2**53
#: Longest string id echoed back.
MAX_ID_CHARS = 64
#: Upper bound of the characters one number takes in a reply (``-1.2345678901234567e-308``
#: plus a separator), for the reply-size estimate made before any work.
NUMBER_CHARS = 26


class RequestError(ValueError):
    """A malformed or over-budget request; the message goes back to the client.

    ``status`` is the HTTP status the request gets (400, or 413 for a body over the cap).
    """

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


# -- Strict JSON in and out ------------------------------------------------------------------

_BRACKETS_AND_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _refuse_constant(name: str) -> Any:
    raise RequestError(f"request: expected finite numbers, got {name}")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise RequestError(f"request: expected finite numbers, got {_clip(text)}")
    return value


def _safe_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > 16 or abs(value := int(text)) > MAX_INT:
        raise RequestError(
            f"request: expected integers within ±{MAX_INT}, got {_clip(text)}"
            + (f" ({digits} digits)" if digits > 16 else "")
        )
    return value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise RequestError(f"request: expected each key once, got {key!r} twice")
            seen.add(key)
    return data


def _clip(text: str, limit: int = 24) -> str:
    return text if len(text) <= limit else f"{text[:limit]}…"


def _check_depth(text: str) -> None:
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    depth = 0
    for match in _BRACKETS_AND_STRINGS.finditer(text):
        char = match.group()[0]
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise RequestError(
                    f"request: expected arrays and objects nested at most {MAX_DEPTH} deep, "
                    "got deeper"
                )
        elif char in "]}":
            depth -= 1


def _check_strings(value: Any) -> None:
    """Refuse lone surrogates (``"\\ud800"``), which no UTF-8 reply can carry."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise RequestError(
                "request: expected text without lone surrogates (\\ud800-\\udfff), got one"
            ) from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_strings(key)
            _check_strings(item)
    elif isinstance(value, list):
        for item in value:
            _check_strings(item)


_NUMBER_REFUSED = re.compile(
    r"^request: expected (?:finite numbers|integers within \S+), got (\S+)"
)
_KEY = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:')


def _named(text: str, message: str) -> str:
    """A number hook's message (``request: expected finite numbers, got 1e400``) with
    ``request`` replaced by the key the number was given for: the nearest key before
    its first appearance in ``text`` (the hooks see the number's text, not its place)."""
    match = _NUMBER_REFUSED.match(message)
    if match is None:
        return message
    number = match.group(1)
    end = "" if number.endswith("…") else r"(?![\w.])"  # a clipped number: its first digits
    token = re.search(rf"(?<![\w.+-]){re.escape(number.rstrip('…'))}{end}", text)
    if token is None:
        return message
    keys = list(_KEY.finditer(text, 0, token.start()))
    if not keys:
        return message
    key = keys[-1].group(1)[:40]
    return key + message[len("request") :] + _NON_FINITE_HINTS.get(key, "")


#: What a key takes instead of a number JSON cannot carry (told with the refusal).
_NON_FINITE_HINTS = {"stiffness": ' (an infinite stiffness, a locked joint, is the string "inf")'}


def decode(body: bytes | str) -> Any:
    """JSON text → Python, strictly.

    Refuses, with a :class:`RequestError`: a body over ``max_body_bytes``, text that is
    not UTF-8 or not JSON, nesting deeper than :data:`MAX_DEPTH`, NaN, infinity and
    numbers that overflow a double (``1e400``), integers beyond ±2**53 (``10**400``),
    a key given twice, and lone surrogates in any string or key.
    """
    size = len(body) if isinstance(body, bytes) else len(body.encode("utf-8", "surrogatepass"))
    if size > CAPS["max_body_bytes"]:
        raise RequestError(
            f"request: expected at most {CAPS['max_body_bytes']} bytes, got {size}", status=413
        )
    if isinstance(body, bytes):
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as error:
            raise RequestError(f"request: expected UTF-8 text, got {error.reason}") from None
    else:
        text = body
    if text.lstrip(" \t\n\r")[:1] in ("{", "["):
        # Only an object or array nests. Any other text is a scalar (nothing nested
        # before it ends) or not JSON: the parser stops at its first wrong character,
        # and the scan for depth (about a millisecond for 64 KB of junk) is spared.
        _check_depth(text)
    try:
        data = json.loads(
            text,
            parse_constant=_refuse_constant,
            parse_float=_finite_float,
            parse_int=_safe_int,
            object_pairs_hook=_object,
        )
    except RequestError as error:
        raise RequestError(_named(text, str(error)), status=error.status) from None
    except (ValueError, RecursionError) as error:
        raise RequestError(f"request: expected a JSON object, got invalid JSON ({error})") from None
    if _SURROGATE_ESCAPE.search(text) or not text.isascii():
        _check_strings(data)
    return data


#: The reply check's message for an answer holding NaN or infinity.
NON_FINITE_REPLY = (
    "reply: expected finite numbers in the answer, got NaN or infinity "
    "(the chain or the target is beyond the solver's range)"
)


def encode(reply: dict[str, Any]) -> str:
    """A reply → strict JSON text (no NaN, no infinity), at most ``max_reply_bytes``.

    Raises :class:`RequestError` when the answer holds a non-finite number or is too big.
    """
    try:
        text = json.dumps(reply, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    except ValueError:
        raise RequestError(NON_FINITE_REPLY) from None
    if len(text) > CAPS["max_reply_bytes"]:
        raise RequestError(
            f"reply: expected at most {CAPS['max_reply_bytes']} bytes, got {len(text)}"
        )
    return text


# -- Typed fields ----------------------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return type(value) is int or type(value) is float


def _number(data: dict[str, Any], key: str) -> float:
    value = data[key]
    if not _is_number(value):
        raise RequestError(f"{key}: expected a number, got {_describe(value)}")
    return float(value)


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"the string {_clip(value)!r}"
    if _is_number(value):
        return repr(value)
    return "an object" if isinstance(value, dict) else "a list"


def _shape(value: Any, key: str) -> tuple[int, ...]:
    """The shape of nested lists of numbers; refuses ragged lists and non-numbers."""
    if _is_number(value):
        return ()
    if not isinstance(value, list):
        raise RequestError(f"{key}: expected numbers, got {_describe(value)}")
    if not value:
        return (0,)
    inner = _shape(value[0], key)
    for item in value[1:]:
        if _shape(item, key) != inner:
            raise RequestError(f"{key}: expected a rectangular array of numbers, got ragged lists")
    return (len(value), *inner)


def _array(data: dict[str, Any], key: str, last: int, *, batch: bool) -> np.ndarray:
    """``data[key]`` as float64 of shape (last,) or, when ``batch``, (..., last)."""
    value = data[key]
    shape = _shape(value, key)
    expected = f"an array of shape (..., {last})" if batch else f"an array of shape ({last},)"
    if not batch and key in ("target", "previous_target", "pole"):
        expected = "one point [x, y]"
    if not shape or shape[-1] != last or (not batch and len(shape) != 1):
        raise RequestError(f"{key}: expected {expected}, got shape {shape}")
    return np.asarray(value, dtype=np.float64)


# -- Requests --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Checked:
    """A validated solve request and what it costs (see :func:`work_from_request`)."""

    request: SolveRequest
    batch_shape: tuple[int, ...]
    work: int


def parse_solve(data: Any, *, allowed: frozenset[str] = SOLVE_KEYS, batch: bool = True) -> Checked:
    """Validate a solve request (a decoded JSON object) against the caps.

    ``batch=False`` (frames) requires one target ``[x, y]`` and one start pose.
    """
    if not isinstance(data, dict):
        raise RequestError(f"request: expected a JSON object, got {_describe(data)}")
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise RequestError(
            f"request: expected keys among {', '.join(sorted(allowed))}, "
            f"got {', '.join(_clip(key) for key in unknown)}"
        )
    for key in ("lengths", "target"):
        if key not in data:
            raise RequestError(f"request: expected key {key!r}, got none")
    # joint limits (rad, (min, max) per joint): frames only (section 2.5)
    chain = _chain(data, limits="limits" in allowed)
    n = chain.n_bones
    method = data.get("method", "dls")
    if method is None:
        method = "dls"
    if not isinstance(method, str) or method not in METHODS:
        raise RequestError(f"method: expected one of {', '.join(METHODS)}, got {_describe(method)}")
    target = _array(data, "target", 2, batch=batch)
    options: dict[str, Any] = {}
    init_shape: tuple[int, ...] = ()
    if data.get("init") is not None:
        init = _array(data, "init", n, batch=batch)
        if init.size and np.max(np.abs(init)) > MAX_ANGLE:
            raise RequestError(
                f"init: expected angles within ±{MAX_ANGLE:g} rad, got {np.max(np.abs(init)):g}"
            )
        options["init"] = init
        init_shape = init.shape[:-1]
    if data.get("iterations") is not None:
        iterations = data["iterations"]
        if type(iterations) is not int or iterations < 0:
            raise RequestError(
                "iterations: expected a non-negative integer (the solver's max_iterations), "
                f"got {_describe(iterations)}"
            )
        if iterations > CAPS["max_iterations"]:
            raise RequestError(
                f"iterations: expected at most {CAPS['max_iterations']}, got {iterations}"
            )
        options["max_iterations"] = iterations
    for key in ("tolerance", "damping"):
        if data.get(key) is not None:
            options[key] = _number(data, key)
    if data.get("bend") is not None:
        bend = data["bend"]
        if type(bend) is not int or bend not in (1, -1):
            raise RequestError(f"bend: expected +1 or -1, got {_describe(bend)}")
        options["bend"] = bend
    if "pole" in allowed and data.get("pole") is not None:  # frames, replays: a pole (hint)
        # one point, checked as the target is; the library refuses it with bend or init
        options["pole"] = _array(data, "pole", 2, batch=False)
    if "rest" in allowed:  # frames only (section 2.5): DLS's pull toward a rest pose
        if data.get("rest") is not None:
            rest = _array(data, "rest", n, batch=False)
            if np.max(np.abs(rest)) > MAX_ANGLE:
                raise RequestError(f"rest: expected angles within ±{MAX_ANGLE:g} rad")
            options["rest"] = rest
        if data.get("rest_weight") is not None:
            options["rest_weight"] = _number(data, "rest_weight")
    if "weight" in allowed and data.get("weight") is not None:
        weight = _number(data, "weight")
        if not 0.0 <= weight <= 1.0:
            raise RequestError(f"weight: expected a number in [0, 1], got {weight!r}")
        options["weight"] = weight
    if "stiffness" in allowed and data.get("stiffness") is not None:
        options["stiffness"] = _stiffness(data, n)
    if "angle" in allowed and data.get("angle") is not None:
        options["angle"] = _number(data, "angle")  # the library checks what it fits
    try:
        batch_shape = check_batch_shape(target.shape[:-1], init_shape)
    except ValueError as error:
        raise RequestError(str(error)) from None
    request = SolveRequest(chain, target, method, options)
    checked = Checked(request, batch_shape, work_from_request(request, batch_shape))
    _check_caps(checked)
    return checked


def _stiffness(data: dict[str, Any], n: int) -> np.ndarray:
    """``data["stiffness"]``: n entries, each a number >= 0 or the string "inf"."""
    value = data["stiffness"]
    expected = f'stiffness: expected {n} entries, one a joint, each a number >= 0 or "inf"'
    if not isinstance(value, list):
        raise RequestError(f"{expected}, got {_describe(value)}")
    if len(value) != n:
        raise RequestError(f"{expected}, got {len(value)} entries")
    for i, item in enumerate(value):
        if item != "inf" and not (_is_number(item) and item >= 0):
            raise RequestError(f"{expected}, got {_describe(item)} at joint {i}")
    return np.array([math.inf if item == "inf" else float(item) for item in value])


def _chain(data: dict[str, Any], *, limits: bool = False) -> Chain:
    """``data["lengths"]`` as a Chain: 1 to ``max_bones`` numbers > 0, finite sum; with
    ``limits``, ``data["limits"]`` (when given) of shape (n, 2) as its joint limits."""
    if "lengths" not in data:
        raise RequestError("request: expected key 'lengths', got none")
    lengths = data["lengths"]
    if not isinstance(lengths, list):
        raise RequestError(f"lengths: expected a list of numbers, got {_describe(lengths)}")
    if len(lengths) > CAPS["max_bones"]:
        raise RequestError(
            f"lengths: expected at most {CAPS['max_bones']} bones, got {len(lengths)}"
        )
    lengths_array: Any = _array(data, "lengths", len(lengths), batch=False) if lengths else []
    joint_limits = None
    if limits and data.get("limits") is not None:
        joint_limits = _array(data, "limits", 2, batch=True)
        if joint_limits.shape != (len(lengths), 2):
            raise RequestError(
                f"limits: expected shape ({len(lengths)}, 2), got shape {joint_limits.shape}"
            )
    try:
        chain = _known_chain(
            tuple(np.asarray(lengths_array, dtype=np.float64).tolist()),
            None if joint_limits is None else tuple(map(tuple, joint_limits.tolist())),
        )
    except ValueError as error:
        raise RequestError(str(error)) from None
    if not math.isfinite(chain.total_length):
        raise RequestError(
            f"lengths: expected a finite total length, got {chain.total_length} "
            f"(the sum of {len(lengths)} lengths)"
        )
    return chain


@functools.lru_cache(maxsize=256)
def _known_chain(
    lengths: tuple[float, ...], limits: tuple[tuple[float, float], ...] | None
) -> Chain:
    """The Chain of these lengths and limits, built (and checked) once: a page sends
    the same chain with every frame, and a Chain is immutable, so one can serve all."""
    with np.errstate(over="ignore"):
        return Chain(lengths, limits)


def work_from_request(request: SolveRequest, batch_shape: tuple[int, ...]) -> int:
    """Units of work of a request: solves × (bones × iterations + the reach search).

    Solves are the broadcast batch of targets and start poses; iterations are the
    budget (the solver may stop sooner, never later), 1 for the closed form. A chain
    with joint limits, or a joint locked by an infinite stiffness, adds the reach
    search's worst case for each solve (:func:`ikchain.solvers.methods.reach_work`).
    A blend weight adds no iterations.
    """
    solves = math.prod(batch_shape)
    n = request.chain.n_bones
    if request.method == "analytic":
        iterations = 1
    else:
        iterations = max(1, request.options.get("max_iterations", DEFAULT_MAX_ITERATIONS))
    search = reach_work(n) if _limited(request) else 0
    # a pole (frames) solves from both bends, and may solve once more from a two-bone
    # mirror (:mod:`ikchain.solvers.pole`): at most three solves
    runs = 3 if request.options.get("pole") is not None else 1
    return runs * solves * (n * iterations + search)


def _check_caps(checked: Checked) -> None:
    n = checked.request.chain.n_bones
    shape = checked.batch_shape
    solves = math.prod(shape)
    if solves > CAPS["max_targets"]:
        raise RequestError(
            f"target: expected at most {CAPS['max_targets']} solves (targets × start poses), "
            f"got {solves} (batch shape {shape})"
        )
    cap = "max_work" if shape == () else "max_batch_work"
    if checked.work > CAPS[cap]:
        what = "bones × iterations" if shape == () else "solves × bones × iterations"
        raise RequestError(
            f"request: expected {what} <= {CAPS[cap]:,}, got {checked.work:,} "
            f"({n} bones, batch shape {shape}); ask for fewer iterations or a smaller batch"
        )
    reply = reply_bytes_bound(n, solves)
    if reply > CAPS["max_reply_bytes"]:
        raise RequestError(
            f"request: expected a reply of at most {CAPS['max_reply_bytes']:,} bytes, "
            f"this one could take {reply:,}; ask for a smaller batch"
        )


def reply_bytes_bound(bones: int, solves: int) -> int:
    """An upper bound of a solve reply's size: each of the ``5n + 11`` values per solve
    (angles and degrees, joints, target, end, error, min_error, iterations, reachable,
    certified, at_limit) at most :data:`NUMBER_CHARS` characters, a status word and
    the keys."""
    return 256 + solves * ((5 * bones + 11) * NUMBER_CHARS + 60)


def run_solve(request: SolveRequest) -> Result:
    """Solve a validated request; the library's errors become RequestErrors."""
    return library(solve, request.chain, request.target, request.method, **request.options)


def _out_of_range(error: BaseException) -> RequestError:
    return RequestError(
        "request: expected lengths and targets within the solver's range, "
        f"got {type(error).__name__} ({error})"
    )


#: How the library's errors become request errors: the first row whose class matches.
ERROR_TRANSLATIONS: tuple[tuple[type[Exception], Callable[[BaseException], RequestError]], ...] = (
    (ValueError, lambda error: RequestError(str(error))),
    (ArithmeticError, _out_of_range),
)

_R = TypeVar("_R")


def library(function: Callable[..., _R], *args: Any, **kwargs: Any) -> _R:
    """``function(*args, **kwargs)`` (a solve, a replay, a motion, a frame's readings),
    its errors translated by :data:`ERROR_TRANSLATIONS`."""
    try:
        return function(*args, **kwargs)
    except (ValueError, ArithmeticError) as error:
        for kind, translate in ERROR_TRANSLATIONS:
            if isinstance(error, kind):
                raise translate(error) from None
        raise


def solve_reply(body: bytes | str) -> dict[str, Any]:
    """``POST /api/solve``: the same JSON as ``ikchain solve --json``."""
    return run_solve(parse_solve(decode(body)).request).as_dict()


def parse_frame(data: Any) -> tuple[FrameRequest, int]:
    """Validate a frame request (a decoded JSON object); returns it and its work."""
    checked = parse_solve(data, allowed=FRAME_KEYS, batch=False)
    smoothing: float | None = None
    previous: np.ndarray | None = None
    family: float | tuple[float, float] | None = None
    if data.get("smoothing") is not None:
        smoothing = _number(data, "smoothing")
        if not 0.0 < smoothing <= 1.0:
            raise RequestError(f"smoothing: expected a number in (0, 1], got {smoothing}")
    if data.get("previous_target") is not None:
        previous = _array(data, "previous_target", 2, batch=False)
    if isinstance(data.get("family"), list):  # four bones: two positions [s1, s2]
        pair = data["family"]
        if len(pair) != 2:
            raise RequestError(
                f"family: expected a number or two numbers [s1, s2], got {len(pair)} items"
            )
        family = (_number({"family": pair[0]}, "family"), _number({"family": pair[1]}, "family"))
    elif data.get("family") is not None:
        family = _number(data, "family")
    request = FrameRequest(checked.request, data.get("id"), smoothing, previous, family)
    return request, checked.work


def _check_lang(data: dict[str, Any]) -> str:
    lang = data.get("lang", DEFAULT_LANG)
    if not isinstance(lang, str) or lang.lower() not in LANGS:
        raise RequestError(f"lang: expected one of {', '.join(LANGS)}, got {_describe(lang)}")
    return lang.lower()


def parse_replay(data: dict[str, Any]) -> tuple[SolveRequest, bool, str]:
    """Validate a replay request (``kind: "replay"``): a one-target solve of an
    iterative method.

    Returns the solve, whether CCD sweeps are split joint by joint, and the language
    of the chart's labels. Iterations are capped at :data:`replay.MAX_REPLAY_ITERATIONS`
    (every step is drawn and sent back).
    """
    request = parse_solve(data, allowed=REPLAY_KEYS, batch=False).request
    if request.method not in replay.REPLAY_METHODS:
        raise RequestError(
            f"method: expected one of {', '.join(replay.REPLAY_METHODS)} for a replay, "
            f"got {request.method!r}"
        )
    iterations = request.options.get("max_iterations")
    if iterations is None:
        raise RequestError("iterations: expected a whole number for a replay, got none")
    cap = replay.MAX_REPLAY_ITERATIONS
    if iterations > cap:
        raise RequestError(f"iterations: expected at most {cap} for a replay, got {iterations}")
    joint_steps = data.get("joint_steps", True)
    if not isinstance(joint_steps, bool):
        raise RequestError(f"joint_steps: expected true or false, got {_describe(joint_steps)}")
    bones = request.chain.n_bones
    steps = replay.steps_of(bones, iterations, request.method, joint_steps)
    pictures = request.method in replay.JOINT_STEP_METHODS and joint_steps  # CCD's turns
    if steps > replay.MAX_REPLAY_STEPS or (
        replay.reply_bytes_bound(bones, steps, pictures) > CAPS["max_reply_bytes"]
    ):
        raise RequestError(
            f"replay: expected at most {replay.MAX_REPLAY_STEPS} steps (iterations, times "
            f"the bones when CCD goes joint by joint) and a reply within "
            f"{CAPS['max_reply_bytes']:,} bytes, got {steps} steps of {bones} bones"
        )
    return request, joint_steps, _check_lang(data)


def parse_motion(data: dict[str, Any]) -> tuple[motion.MotionRequest, str]:
    """Validate a motion request (``kind: "motion"``): a moving target's path tracked
    by every method.

    Keys: ``lengths``, ``path`` (circle, figure8, jump), ``frames_per_lap``,
    ``budget`` (iterations a frame), ``start`` (warm or cold), ``lang``. Capped by
    :data:`motion.MAX_FRAMES_PER_LAP`, :data:`motion.MAX_BUDGET` and
    :data:`motion.MAX_MOTION_WORK` as well as the bone cap.
    """
    unknown = sorted(set(data) - MOTION_KEYS)
    if unknown:
        raise RequestError(
            f"request: expected keys among {', '.join(sorted(MOTION_KEYS))}, "
            f"got {', '.join(_clip(key) for key in unknown)}"
        )
    chain = _chain(data)
    lang = _check_lang(data)
    try:
        request = motion.motion_request(
            chain,
            data.get("path", "circle"),
            data.get("frames_per_lap", motion.FRAMES_PER_LAP[1]),
            data.get("budget", motion.BUDGETS[2]),
            data.get("start", "warm"),
        )
    except ValueError as error:
        raise RequestError(str(error)) from None
    return request, lang


def _motion_words(lang: str) -> dict[str, str]:
    text = load_text(lang)
    words = text["motion"]
    methods = {f"method_{m}": text["controls"][f"method_{m}"] for m in motion.MOTION_METHODS}
    return {"title": words["chart_title"], "x": words["chart_x"], "y": words["chart_y"], **methods}


def _kind(data: Any) -> str:
    kind = data.get("kind", "frame") if isinstance(data, dict) else "frame"
    if kind not in KINDS:
        raise RequestError(f"kind: expected one of {', '.join(KINDS)}, got {_describe(kind)}")
    return kind


def _frame_id(data: Any) -> Any:
    """The request's id, when it is one we echo: null, an integer or a short string."""
    value = data.get("id") if isinstance(data, dict) else None
    if value is None or type(value) is int:  # within ±2**53: decode() saw to that
        return value
    if isinstance(value, str) and len(value) <= MAX_ID_CHARS:
        return value
    raise RequestError(
        f"id: expected null, an integer or a string of at most {MAX_ID_CHARS} characters, "
        f"got {_describe(value)}"
    )


def frame_reply(message: bytes | str) -> dict[str, Any]:
    """A frame message → its reply (a dict); never raises for a bad message."""
    reply = respond("frame", message)
    assert isinstance(reply, Reply)
    return json.loads(reply.text)


# -- One entry point for the server ----------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """What the server sends back: strict JSON text and its HTTP status."""

    status: int
    text: str


@dataclass(frozen=True)
class Heavy:
    """A valid request over the ``max_work`` given to :func:`respond`: not solved.
    ``lang``: the page's language, when the request names it (replays, motions)."""

    request_id: Any = None
    lang: str | None = None


@dataclass(frozen=True)
class Cost:
    """What a valid single solve costs, for the server to decide where it runs: the
    method, the bones, whether the chain has joint limits, and its units of work."""

    method: str
    bones: int
    limited: bool
    work: int


def _cost(request: SolveRequest, work: int) -> Cost:
    return Cost(request.method, request.chain.n_bones, _limited(request), work)


def _limited(request: SolveRequest) -> bool:
    """Whether the solve is charged as on a limited chain: one with joint limits, or one
    with a joint locked by an infinite stiffness (charged the reach search's worst
    case; without limits the loop finds the locked reach in closed form, for less)."""
    stiffness = request.options.get("stiffness")
    locks = stiffness is not None and bool(np.isinf(stiffness).any())
    return request.chain.limits is not None or locks


def request_id(body: bytes | str) -> Any:
    """The id of a frame request, when it can be read and is one we echo; else None.
    Never raises (for replies about a request that was not parsed: busy, restarted)."""
    try:
        return _frame_id(decode(body))
    except (RequestError, AttributeError):
        return None


def error_reply(route: str, message: str, status: int = 400, request_id: Any = None) -> Reply:
    """The error reply of ``route``: ``{"ok": false, "error": ...}`` (frames: with the id)."""
    reply: dict[str, Any] = {"ok": False, "error": message}
    if route == "frame":
        reply = {"id": request_id, **reply}
    return Reply(status, encode(reply))


def respond(
    route: str,
    body: bytes | str,
    *,
    max_work: int | None = None,
    light: Callable[[Cost], bool] | None = None,
) -> Reply | Heavy:
    """Answer one request of ``route`` (``"solve"`` or ``"frame"``); never raises for a
    bad request.

    With ``max_work``, a valid single solve costing more (or that ``light``, given its
    :class:`Cost`, says is too slow to run here), any valid batch, replay or motion is
    not solved: the answer is :class:`Heavy`, and the caller runs it again elsewhere
    (the server's process for heavy requests). Every request is decoded and checked
    against the caps first, so only valid work is handed on.
    """
    request_id = None
    try:
        data = decode(body)
        if route == "frame" and _kind(data) == "replay":
            # A replay solves once per drawn step: always sent to the heavy pool.
            request_id = _frame_id(data)
            replay_request, steps, lang = parse_replay(data)
            if max_work is not None:
                return Heavy(request_id, lang)
            view = library(replay.replay_from_request, replay_request, joint_steps=steps, lang=lang)
            return Reply(200, encode({"id": request_id, "ok": True, "replay": view}))
        if route == "frame" and _kind(data) == "motion":
            # A motion solves a whole path with every method: always the heavy pool.
            request_id = _frame_id(data)
            motion_request, lang = parse_motion(data)
            if max_work is not None:
                return Heavy(request_id, lang)
            view = library(motion.motion_view, motion_request, _motion_words(lang))
            return Reply(200, encode({"id": request_id, "ok": True, "motion": view}))
        if route == "frame":
            request_id = _frame_id(data)
            if isinstance(data, dict):
                data.pop("kind", None)
            frame, work = parse_frame(data)
            if max_work is not None and (
                work > max_work or (light is not None and not light(_cost(frame.solve, work)))
            ):
                return Heavy(request_id)
            answer = library(frame_from_request, frame)
            return Reply(200, encode({"id": request_id, "ok": True, "frame": answer}))
        checked = parse_solve(data)
        if max_work is not None and (
            checked.work > max_work
            or checked.batch_shape != ()
            or (light is not None and not light(_cost(checked.request, checked.work)))
        ):
            return Heavy()
        return Reply(200, encode(run_solve(checked.request).as_dict()))
    except RequestError as error:
        return error_reply(route, str(error), error.status, request_id)


def warming_reply(route: str, heavy: Heavy) -> Reply:
    """The 503 for a heavy request while the server's kernels still compile, in the
    request's language (both, when it names none)."""
    langs = [heavy.lang] if heavy.lang is not None else list(LANGS)
    message = " / ".join(load_text(lang)["messages"]["warming"] for lang in langs)
    return error_reply(route, message, 503, heavy.request_id)


def warm() -> None:
    """Run each method once (a new heavy-request process does, so that its first
    request is not slow)."""
    for method in METHODS:
        request: dict[str, Any] = {"lengths": [0.8, 0.6], "target": [[1.0, 0.5]]}
        if method != "analytic":
            request["iterations"] = 20
        respond("solve", json.dumps({**request, "method": method}))
