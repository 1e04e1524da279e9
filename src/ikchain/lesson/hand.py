"""Section 2.8: the hand's angle, the wrist it fixes, and the ring the wrist can reach.

A drag frame that carries ``angle`` (the tip angle φ, rad) is solved by the closed
form with ``angle=`` (:mod:`ikchain.solvers.angle`); :func:`hand_view` adds what the
figure draws beside the chain: the wrist point ``target - l3 (cos φ, sin φ)`` (the
library's own :func:`~ikchain.solvers.angle.wrists`), the annulus the first two bones
can put it on (the library's radii of that two-bone chain), the knob of the hand's
handle, and the pose task's ``reachable`` and ``min_error`` as the solve returned them.
The page's script only draws these numbers.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ikchain.chain import Chain
from ikchain.formatting import format_degrees, format_number, format_point
from ikchain.result import Result
from ikchain.solvers.angle import wrists

#: The default hand angle of 2.8's figure (rad): 60°, the hand tilted up and right.
DEFAULT_ANGLE = math.pi / 3
#: How far from the ring the hand's knob sits, along the hand (m): clear of the ring's
#: hit area (figures.STYLE["hit_r"], 0.13 m; 0.22 m on a phone), so either can be held.
KNOB_DISTANCE = 0.32


def hand_view(chain: Chain, result: Result, angle: float) -> dict[str, Any]:
    """What 2.8's figure draws for a solve with the hand at ``angle``.

    Returns
    -------
    dict
        ``angle`` (rad, as asked); ``wrist``: [x, y], where the wrist must be for the
        tip to sit on the (solved) target with the hand at ``angle``; ``inner`` and
        ``outer``: the radii (m) of the annulus the first two bones can reach, centred
        on the root; ``knob``: [x, y], the hand handle's place, ``KNOB_DISTANCE`` from
        the target along the hand; ``reachable`` and ``min_error``: the solve's (the
        wrist's distance to that annulus, which is also the tip's least miss).
    """
    lengths = np.asarray(chain.lengths, dtype=np.float64)
    target = np.asarray(result.target, dtype=np.float64)
    wrist = wrists(lengths, target, angle)
    arm = Chain(lengths[:2])
    direction = np.array([math.cos(angle), math.sin(angle)])
    knob = target + KNOB_DISTANCE * direction
    return {
        "angle": float(angle),
        "wrist": [float(wrist[0]), float(wrist[1])],
        "inner": float(arm.inner_radius),
        "outer": float(arm.outer_radius),
        "knob": [float(knob[0]), float(knob[1])],
        "reachable": bool(result.reachable),
        "min_error": float(result.min_error),
    }


def hand_readings(view: dict[str, Any], chain: Chain) -> dict[str, str]:
    """The readings the hand adds, formatted once for page and script alike:
    ``hand_reach`` (``yes`` or ``no``: which sentence the status shows), ``min_error``
    (m), ``hand_angle`` (degrees) and ``wrist`` (the point)."""
    return {
        "hand_reach": "yes" if view["reachable"] else "no",
        "min_error": format_number(view["min_error"], 6),
        "hand_angle": format_degrees([view["angle"]], 1),
        "wrist": format_point(view["wrist"], 4, chain.total_length),
    }
