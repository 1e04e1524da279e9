"""The facts about the methods, one table each: the server, the page and the bench read these.

Importing this module is cheap (no numba): :mod:`ikchain.solvers` and the server
import it at start-up.
"""

from __future__ import annotations

#: In teaching order: the closed form, one joint at a time (CCD), the joints as points
#: (FABRIK), the gradient (Jacobian transpose), Gauss-Newton with damping (DLS).
METHODS: tuple[str, ...] = ("analytic", "ccd", "fabrik", "jt", "dls")

#: The iterative methods, in the order of their kernel codes (:mod:`~ikchain.solvers.loop`).
ITERATIVE: tuple[str, ...] = ("ccd", "fabrik", "dls", "jt")
#: Each iterative method's kernel code, its index in :data:`ITERATIVE`.
CODE: dict[str, int] = {method: code for code, method in enumerate(ITERATIVE)}

#: Options each method takes, beyond the chain and the target.
OPTIONS: dict[str, frozenset[str]] = {
    "analytic": frozenset({"angle", "bend", "pole", "soft", "weight"}),
    "ccd": frozenset(
        {
            "angle",
            "init",
            "bend",
            "pole",
            "soft",
            "weight",
            "max_iterations",
            "tolerance",
            "damping",
            "max_step",
            "trace",
        }
    ),
    "fabrik": frozenset(
        {"angle", "init", "bend", "pole", "soft", "weight", "max_iterations", "tolerance", "trace"}
    ),
    "jt": frozenset(
        {
            "angle",
            "init",
            "bend",
            "pole",
            "soft",
            "weight",
            "max_iterations",
            "tolerance",
            "damping",
            "trace",
            "stiffness",
        }
    ),
    "dls": frozenset(
        {
            "angle",
            "init",
            "bend",
            "pole",
            "soft",
            "weight",
            "max_iterations",
            "tolerance",
            "damping",
            "trace",
            "rest",
            "rest_weight",
            "stiffness",
        }
    ),
}

#: Methods that honour joint limits: all of them (the page and the server read this).
TAKES_LIMITS: frozenset[str] = frozenset(METHODS)
#: Bones the method solves for (None: any number).
BONES: dict[str, int | None] = {
    "analytic": 2,
    "ccd": None,
    "fabrik": None,
    "jt": None,
    "dls": None,
}

#: Reach under joint limits (:mod:`ikchain.solvers.limited`): chains of up to this
#: many bones get the exact boundary arcs (4**n configurations: 4,096 at 6 bones,
#: about 5 ms; beyond, min_error is certified only when a pose meets the tolerance).
ARC_BONES = 6


def search_budget(n: int) -> int:
    """Boxes the reach search may evaluate for an n-bone limited chain.

    Sized so that one search costs at most about 1 ms up to four bones (2,048 boxes
    certify every one of 1,200 random 3- and 4-bone cases) and about 10 ms at five or
    six (4,096: 1-6 % are left uncertified); beyond :data:`ARC_BONES` the search can
    only find a pose, not rule one out, and gets 1,024.
    """
    if n <= 4:
        return 2048
    return 4096 if n <= ARC_BONES else 1024


def reach_work(n: int) -> int:
    """The reach search's worst case in the server's units of work (bones x iterations
    of a solve): a box costs about an eighth of a bone-iteration per bone."""
    return search_budget(n) * n // 8


#: Iteration budget per target when ``max_iterations`` is not given.
DEFAULT_MAX_ITERATIONS = 200
#: Goal for the end error (m) when ``tolerance`` is not given.
DEFAULT_TOLERANCE = 1e-9
#: Fraction of each correcting step taken when ``damping`` is not given: all of it.
DEFAULT_DAMPING = 1.0
#: ``dls`` with a rest pose: each iteration pulls w / (1 + w) of the way toward it.
DEFAULT_REST_WEIGHT = 1.0
#: The largest joint angle or limit (rad) taken as it is: 2**20 rad, some 167,000
#: turns, where a turn still has 33 of the float's 53 bits. Beyond it a turn of a
#: joint is lost in the angle's rounding (at 1e16 rad one unit in the last place is
#: two radians), so a limit beyond it is refused and a start angle of a free chain
#: beyond it is first replaced by the angle in (-π, π] with the same sine and cosine:
#: the same pose, at angles a solve can turn.
LARGEST_ANGLE = 2.0**20
#: Each joint of the default start pose bends by this much (rad), times ``bend``:
#: slightly bent, never the collinear all-zero pose on which CCD stalls.
START_BEND = 0.2
