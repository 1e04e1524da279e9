"""A solve's options: validated once from the keywords and the method table, named fields.

:class:`Options` is what :class:`~ikchain.Solver` builds from its
keywords: every value checked (expected against given), the defaults of
:mod:`~ikchain.solvers.methods` filled in, and the float64 record the kernels read
(``records.OPTION_FIELDS``) made once, for a single target and for a path.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ikchain.chain import Chain
from ikchain.checks import (
    check_angles,
    check_bend,
    check_count,
    check_fraction,
    check_points,
    check_positive,
    check_real,
)
from ikchain.solvers.methods import (
    BONES,
    DEFAULT_DAMPING,
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_REST_WEIGHT,
    DEFAULT_TOLERANCE,
    METHODS,
    OPTIONS,
)
from ikchain.solvers.records import OPT_FOLLOW, SEARCHED

#: Iteration counts beyond this are the same as infinite (and are exact in the options
#: record's float64).
ENDLESS = 2**53

#: The keywords a method may take (besides ``init``, given per call), in the order of
#: ``solve()``'s signature.
KEYWORDS = (
    "max_iterations",
    "tolerance",
    "damping",
    "bend",
    "max_step",
    "trace",
    "rest",
    "rest_weight",
    "pole",
    "soft",
    "weight",
    "stiffness",
    "angle",
)


@dataclass(frozen=True, slots=True)
class Options:
    """A method's options, checked, with the defaults filled in.

    Attributes
    ----------
    method : str
        One of :data:`~ikchain.solvers.methods.METHODS`.
    max_iterations : int
        Iteration budget per target (0 for ``analytic``).
    tolerance : float
        Goal for the end error (m).
    damping : float
        Fraction in (0, 1] of each correcting step taken.
    bend : int
        +1 or -1: the elbow branch (``analytic``), the default start's bend (iterative).
    bend_given : bool
        Whether ``bend`` was passed (``solve()`` refuses it together with ``init``).
    max_step : float
        CCD's largest turn of one joint in one sweep (rad), ``inf`` for none.
    trace : bool
        Whether the errors and poses of every iteration are recorded.
    rest : array, shape (n,), or None
        DLS's rest pose (rad).
    rest_weight : float
        Strength of the pull toward ``rest`` (0 without one).
    pole : array, shape (2,), or None
        The point (m) the chain bends toward (:mod:`ikchain.solvers.pole`).
    soft : float or None
        Soft reach (m) (:mod:`ikchain.solvers.soft`).
    weight : float or None
        The blend weight in [0, 1] (:mod:`ikchain.solvers.blend`).
    stiffness : array, shape (n,), or None
        Each joint's stiffness in [0, ∞] (:mod:`ikchain.solvers.stiffness`).
    give : array, shape (n,)
        Each joint's give ``1 / (1 + stiffness)``, what the kernels read (ones
        without stiffness).
    angle : float or None
        The tip angle (rad, world frame) of a three-bone closed-form solve
        (:mod:`ikchain.solvers.angle`).
    record : array, shape (len(OPTION_FIELDS),)
        What the kernels read for one target or a batch (never written).
    follow_record : array, shape (len(OPTION_FIELDS),)
        The same, for a path whose targets start from the answer before them.
    """

    method: str
    max_iterations: int
    tolerance: float
    damping: float
    bend: int
    bend_given: bool
    max_step: float
    trace: bool
    rest: NDArray[np.float64] | None
    rest_weight: float
    pole: NDArray[np.float64] | None
    soft: float | None
    weight: float | None
    stiffness: NDArray[np.float64] | None
    give: NDArray[np.float64]
    angle: float | None
    record: NDArray[np.float64]
    follow_record: NDArray[np.float64]

    def keywords(self, **changes: Any) -> dict[str, Any]:
        """The keywords that build these options again (those given), with ``changes``
        (None drops one): how pole and soft make the Solvers of their steps."""
        given: dict[str, Any] = {
            "max_iterations": self.max_iterations if self.method != "analytic" else None,
            "tolerance": self.tolerance if "tolerance" in OPTIONS[self.method] else None,
            "damping": self.damping if "damping" in OPTIONS[self.method] else None,
            "bend": self.bend if self.bend_given else None,
            "max_step": self.max_step if math.isfinite(self.max_step) else None,
            "trace": self.trace or None,
            "rest": self.rest,
            "rest_weight": self.rest_weight if self.rest is not None else None,
            "pole": self.pole,
            "soft": self.soft,
            "weight": self.weight,
            "stiffness": self.stiffness,
            "angle": self.angle,
        }
        given.update(changes)
        return {name: value for name, value in given.items() if value is not None}


def check_chain(chain: Any) -> Chain:
    """``chain`` itself, if it is a :class:`~ikchain.chain.Chain`."""
    if not isinstance(chain, Chain):
        raise ValueError(f"chain: expected an ikchain.Chain, got {type(chain).__name__}")
    return chain


def check_method(method: Any) -> frozenset[str]:
    """The options ``method`` takes, if it is one of the methods."""
    allowed = OPTIONS.get(method) if isinstance(method, str) else None
    if allowed is None:
        raise ValueError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    return allowed


def options_from_keywords(chain: Chain, method: str, given: dict[str, Any]) -> Options:
    """Check ``given`` (keyword → value, None for not given) for ``method`` on ``chain``.

    Raises
    ------
    ValueError
        For an option the method does not take, a value out of its range, or a chain
        the method cannot solve, naming what was expected and what was given.
    """
    check_chain(chain)
    allowed = check_method(method)
    unused = [name for name in KEYWORDS if given.get(name) is not None and name not in allowed]
    if unused:
        raise ValueError(
            f"method {method!r} takes only {', '.join(sorted(allowed))}; got {', '.join(unused)}"
        )
    bend_given = given.get("bend") is not None
    bend = check_bend(given["bend"]) if bend_given else 1
    pole = given.get("pole")
    if pole is not None:
        if bend_given:
            raise ValueError(
                "pole: chooses the bend from both bent start poses; expected bend or pole, got both"
            )
        point = check_points(pole, "pole")
        if point.shape != (2,):
            raise ValueError(f"pole: expected one point, shape (2,), got shape {point.shape}")
        pole = np.array(point, dtype=np.float64)
    soft = given.get("soft")
    if soft is not None:
        from ikchain.solvers.soft import check_soft

        soft = check_soft(chain, soft)
    blend = given.get("weight")
    if blend is not None:
        from ikchain.solvers.blend import check_weight

        blend = check_weight(blend)
    stiffness = given.get("stiffness")
    if stiffness is not None:
        from ikchain.solvers.stiffness import check_stiffness, give_of

        stiffness = check_stiffness(stiffness, chain.n_bones)
        if pole is not None and np.isinf(stiffness).any():
            raise ValueError(
                "stiffness: an infinite stiffness locks a joint at its start pose, and pole "
                "chooses the start pose; expected pole or an infinite stiffness, got both"
            )
        give = give_of(stiffness)
    else:
        give = _ones(chain.n_bones)
    angle = given.get("angle")
    bones = BONES[method]
    if angle is not None:
        from ikchain.solvers.angle import check_angle

        for other in ("pole", "soft", "trace"):
            if given.get(other) is not None:  # (trace: None when not asked for)
                raise ValueError(
                    f"angle: the hand's angle is met first, then the wrist's reach; expected "
                    f"angle or {other}, got both"
                )
        if method == "analytic":  # the two-bone closed form to the wrist, then the hand
            bones = 3
            if chain.n_bones != bones:
                raise ValueError(
                    f"angle: expected a 3-bone chain for method 'analytic' (two bones to "
                    f"the wrist, the hand), got {_bones(chain.n_bones)}"
                )
        angle = check_angle(angle, chain)
        if stiffness is not None and math.isinf(stiffness[-1]):
            raise ValueError(
                "angle: the last joint turns the hand to the angle; expected a finite "
                "stiffness for it, got inf"
            )
    if bones is not None and chain.n_bones != bones:
        raise ValueError(
            f"method {method!r}: expected a {bones}-bone chain, got {_bones(chain.n_bones)}"
        )
    budget = given.get("max_iterations")
    budget = (
        (0 if method == "analytic" else DEFAULT_MAX_ITERATIONS)
        if budget is None
        else min(check_count(budget, "max_iterations"), ENDLESS)
    )
    tolerance = given.get("tolerance")
    goal = DEFAULT_TOLERANCE if tolerance is None else check_positive(tolerance, "tolerance")
    damping = given.get("damping")
    fraction = DEFAULT_DAMPING if damping is None else check_fraction(damping, "damping")
    max_step = given.get("max_step")
    cap = math.inf if max_step is None else check_positive(max_step, "max_step")
    rest, weight = _check_rest(chain, given.get("rest"), given.get("rest_weight"))
    pull = weight / (1.0 + weight)
    record = np.array(
        (
            chain.outer_radius,
            chain.inner_radius,
            SEARCHED if chain._limited else 0.0,
            bend,
            budget,
            goal,
            fraction,
            cap,
            pull,
            0.0,
            1.0 if blend is None or not _loop_blends(method, given, stiffness) else blend,
        ),
        dtype=np.float64,
    )
    follow_record = record.copy()
    follow_record[OPT_FOLLOW] = 1.0
    return Options(
        method,
        budget,
        goal,
        fraction,
        bend,
        bend_given,
        cap,
        bool(given.get("trace")),
        rest,
        weight,
        pole,
        soft,
        blend,
        stiffness,
        give,
        angle,
        record,
        follow_record,
    )


def _loop_blends(method: str, given: dict[str, Any], stiffness: Any) -> bool:
    """Whether the iteration loop applies the weight after each target: an iterative
    method with no step around the solve (pole, soft, angle, a locked joint), whose
    answers the Solver blends afterwards (:mod:`ikchain.solvers.blend`)."""
    return (
        method != "analytic"
        and all(given.get(name) is None for name in ("pole", "soft", "angle"))
        and (stiffness is None or not np.isinf(stiffness).any())
    )


def _bones(count: int) -> str:
    """``count`` bones, in words: "1 bone", "4 bones"."""
    return f"{count} bone" if count == 1 else f"{count} bones"


_ONES: dict[int, NDArray[np.float64]] = {}


def _ones(n: int) -> NDArray[np.float64]:
    """The give of n joints without stiffness, made once per n (the kernels only read
    it; writable, as the kernels' compiled signature takes it)."""
    ones = _ONES.get(n)
    if ones is None:
        ones = _ONES.setdefault(n, np.ones(n))
    return ones


def _check_rest(
    chain: Chain, rest: Any, rest_weight: Any
) -> tuple[NDArray[np.float64] | None, float]:
    """The rest pose (None for none) and its weight (0 without one)."""
    if rest is None:
        if rest_weight is not None:
            raise ValueError("rest_weight: weighs the pull toward a rest pose; expected rest too")
        return None, 0.0
    pose = check_angles(rest, chain.n_bones, "rest")
    if pose.shape != (chain.n_bones,):
        raise ValueError(
            f"rest: expected one pose, shape ({chain.n_bones},), got shape {pose.shape}"
        )
    weight = DEFAULT_REST_WEIGHT if rest_weight is None else check_real(rest_weight, "rest_weight")
    if weight < 0.0:
        raise ValueError(f"rest_weight: expected a number >= 0, got {weight}")
    return np.array(pose, dtype=np.float64), weight
