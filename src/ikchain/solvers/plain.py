"""What one call of a Solver gives, read plainly: one point, one start pose, or the
default start.

A drag loop calls a Solver with one target and the last answer's angles, again and
again. :func:`plain_point` and :func:`plain_start` recognise those plain cases with a
few type tests, so that they go straight to the kernels; anything else (a batch, a
malformed value) is left to :func:`~ikchain.checks.check_points` and
:func:`~ikchain.checks.check_angles`, which read the same numbers and say what was
wrong. :func:`default_init` is the start pose the kernels take when none is given.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ikchain.chain import Chain
from ikchain.solvers.methods import START_BEND

_FLOAT_TYPES = (float, int, np.float64)
_LARGEST = sys.float_info.max
#: numpy's float64 dtype, one object: ``is`` tests it four times faster than ``==``.
_FLOAT64 = np.dtype(np.float64)


def default_init(chain: Chain, bend: int = 1) -> NDArray[np.float64]:
    """The slightly bent start pose, shape (n,), kept inside any joint limits: each
    joint turned ``bend`` x ``START_BEND`` (rad), as the kernels start by default."""
    angles = np.full(chain.n_bones, bend * START_BEND)
    if chain.limits is not None:
        angles = np.clip(angles, chain.limits[:, 0], chain.limits[:, 1])
    return angles


def plain_point(target: Any) -> tuple[float, float] | None:
    """``(tx, ty)`` as Python floats when ``target`` is plainly one finite point.

    A list or tuple of two Python numbers, or a float64 array of shape (2,). Anything
    else (including every malformed input) returns None and goes through
    :func:`~ikchain.checks.check_points`, which gives the same numbers and the error
    messages.
    """
    kind = type(target)
    if kind is list or kind is tuple:
        if len(target) != 2:
            return None
        tx, ty = target
        if type(tx) not in _FLOAT_TYPES or type(ty) not in _FLOAT_TYPES:
            return None
        try:
            tx, ty = float(tx), float(ty)
        except OverflowError:  # an int beyond floats: check_points says so
            return None
    elif kind is np.ndarray:
        if target.shape != (2,) or target.dtype is not _FLOAT64:
            return None
        tx, ty = target.tolist()
    else:
        return None
    if not (math.isfinite(tx) and math.isfinite(ty)):
        return None
    return tx, ty


def plain_start(n: int, init: Any) -> bool | None:
    """Whether ``init`` is one start pose (True), the default (False, for None), or
    neither plainly (None: the batch path checks it)."""
    if init is None:
        return False
    kind = type(init)
    if kind is list or kind is tuple:
        if len(init) != n:
            return None
        for value in init:  # finite floats and ints that fit (NaN fails the test too)
            if type(value) not in _FLOAT_TYPES or not -_LARGEST <= value <= _LARGEST:
                return None
        return True
    if kind is np.ndarray:
        if init.shape != (n,) or init.dtype is not _FLOAT64:
            return None
        for value in init.tolist():
            if not -_LARGEST <= value <= _LARGEST:
                return None
        return True
    return None
