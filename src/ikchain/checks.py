"""Validation helpers: each ``check_*`` returns a clean value or raises ``ValueError``.

Every message says what was expected and what was given, so that a caller (or the
lesson server, which forwards the message to the page) can act on it. No helper
clamps or repairs its input.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray


def _describe(value: Any) -> str:
    """Short human-readable rendering of a given value for error messages."""
    text = repr(value)
    if isinstance(value, np.ndarray):
        text = f"array of shape {value.shape}"
    return text if len(text) <= 80 else text[:77] + "..."


def check_array(value: ArrayLike, name: str) -> NDArray[np.float64]:
    """Convert ``value`` to a float64 array that holds only finite numbers.

    Raises
    ------
    ValueError
        If ``value`` is not numeric (booleans are not numbers here), or holds NaN or
        infinity, or an integer too large for a float.
    """
    if _holds_bool(value):
        raise ValueError(f"{name}: expected numbers, got {_describe(value)} (booleans)")
    try:
        array = np.asarray(value, dtype=np.float64)
    except OverflowError:
        raise ValueError(
            f"{name}: expected finite numbers, got {_describe(value)} (too large for a float)"
        ) from None
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected numbers, got {_describe(value)}") from None
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name}: expected finite numbers, got {_describe(value)} (NaN or inf)")
    return array


def _holds_bool(value: Any) -> bool:
    """Whether ``value`` is a boolean, a boolean array, or a (nested) sequence with one."""
    if isinstance(value, bool | np.bool_):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype == np.bool_
    if isinstance(value, list | tuple):
        return any(_holds_bool(item) for item in value)
    return False


def check_lengths(lengths: ArrayLike) -> NDArray[np.float64]:
    """Bone lengths: a non-empty 1-D sequence of positive finite numbers, shape (n,), metres."""
    array = check_array(lengths, "lengths")
    if array.ndim != 1:
        raise ValueError(f"lengths: expected a 1-D sequence, got shape {array.shape}")
    if array.size == 0:
        raise ValueError("lengths: expected at least one bone, got an empty chain")
    if np.any(array <= 0.0):
        raise ValueError(f"lengths: expected every length > 0, got {array.tolist()}")
    return array


def check_limits(limits: ArrayLike | None, n_bones: int) -> NDArray[np.float64] | None:
    """Joint limits: shape (n, 2) of (min, max) relative angles in radians, min <= max."""
    if limits is None:
        return None
    array = check_array(limits, "limits")
    if array.shape != (n_bones, 2):
        raise ValueError(
            f"limits: expected shape ({n_bones}, 2) as (min, max) per joint, got {array.shape}"
        )
    from ikchain.solvers.methods import LARGEST_ANGLE

    far = np.flatnonzero(np.abs(array).max(axis=1) > LARGEST_ANGLE)
    if far.size:
        i = int(far[0])
        raise ValueError(
            f"limits: expected bounds within ±{LARGEST_ANGLE:.0f} rad (2**20; for a joint "
            f"that turns freely, give it [-π, π] or the chain no limits), got joint {i} "
            f"[{float(array[i, 0])!r}, {float(array[i, 1])!r}]"
        )
    bad = np.flatnonzero(array[:, 0] > array[:, 1])
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"limits: expected min <= max for every joint, got joint {i} "
            f"min {array[i, 0]!r} > max {array[i, 1]!r}"
        )
    return array


def check_points(value: ArrayLike, name: str) -> NDArray[np.float64]:
    """Planar points of shape (..., 2), finite."""
    array = check_array(value, name)
    if array.ndim == 0 or array.shape[-1] != 2:
        raise ValueError(f"{name}: expected shape (..., 2), got {array.shape}")
    return array


def check_angles(value: ArrayLike, n_bones: int, name: str = "init") -> NDArray[np.float64]:
    """Relative joint angles of shape (..., n), radians, finite."""
    array = check_array(value, name)
    if array.ndim == 0 or array.shape[-1] != n_bones:
        raise ValueError(
            f"{name}: expected shape (..., {n_bones}) for a {n_bones}-bone chain, got {array.shape}"
        )
    return array


def check_batch_shape(
    target_shape: tuple[int, ...], start_shape: tuple[int, ...]
) -> tuple[int, ...]:
    """The batch shape of targets (``target_shape`` + (2,)) and start poses
    (``start_shape`` + (n,)) broadcast together; ValueError when they do not."""
    try:
        return np.broadcast_shapes(target_shape, start_shape)
    except ValueError:
        raise ValueError(
            f"init: expected a batch shape that broadcasts with target's {target_shape}, "
            f"got {start_shape}"
        ) from None


def check_count(value: Any, name: str) -> int:
    """A non-negative integer count (bools are refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name}: expected a non-negative integer, got {_describe(value)}")
    if value < 0:
        raise ValueError(f"{name}: expected a non-negative integer, got {value}")
    return int(value)


def check_real(value: Any, name: str) -> float:
    """A finite real number (bools are refused)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name}: expected a number, got {_describe(value)}")
    try:
        number = float(value)
    except OverflowError:  # an integer beyond floats (10**400)
        raise ValueError(
            f"{name}: expected a finite number, got an integer of {len(str(abs(value)))} digits"
        ) from None
    if not math.isfinite(number):
        raise ValueError(f"{name}: expected a finite number, got {number}")
    return number


def check_positive(value: Any, name: str) -> float:
    """A finite number > 0."""
    number = check_real(value, name)
    if number <= 0.0:
        raise ValueError(f"{name}: expected a number > 0, got {number}")
    return number


def check_fraction(value: Any, name: str) -> float:
    """A finite number in (0, 1]."""
    number = check_real(value, name)
    if not 0.0 < number <= 1.0:
        raise ValueError(f"{name}: expected a number in (0, 1], got {number}")
    return number


def check_bend(value: Any) -> int:
    """Elbow branch: the integer +1 (counter-clockwise bend) or -1 (clockwise)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value not in (1, -1):
        raise ValueError(f"bend: expected +1 or -1, got {_describe(value)}")
    return int(value)
