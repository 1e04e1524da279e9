"""The chain model: bone lengths and optional joint limits of a planar chain."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ikchain.checks import check_lengths, check_limits
from ikchain.kinematics import reach_from_lengths


class Chain:
    """A planar chain of rigid bones rooted at the origin.

    Joint ``i`` sits at the start of bone ``i``; its angle is measured from the
    direction of bone ``i - 1`` (joint 0 from +x), counter-clockwise positive.

    Parameters
    ----------
    lengths : array_like, shape (n,)
        Bone lengths in metres, each > 0.
    limits : array_like, shape (n, 2), optional
        ``(min, max)`` of each joint's relative angle in radians. ``None`` leaves
        every joint free.

    Notes
    -----
    A chain is immutable: its arrays are read-only, so a solve can never change it.

    Examples
    --------
    >>> import ikchain
    >>> arm = ikchain.Chain([0.8, 0.6], limits=[[-1.5, 1.5], [0.0, 2.5]])
    >>> arm.n_bones, arm.total_length, round(arm.inner_radius, 12)
    (2, 1.4, 0.2)
    >>> arm.lengths[0] = 1.0
    Traceback (most recent call last):
        ...
    ValueError: assignment destination is read-only
    """

    __slots__ = (
        "_hash",
        "_kernel_data",
        "_limited",
        "inner_radius",
        "lengths",
        "limits",
        "n_bones",
        "outer_radius",
    )

    lengths: NDArray[np.float64]
    limits: NDArray[np.float64] | None
    _kernel_data: NDArray[np.float64]
    _limited: bool
    _hash: int
    inner_radius: float
    outer_radius: float
    n_bones: int

    def __init__(self, lengths: ArrayLike, limits: ArrayLike | None = None) -> None:
        lengths = check_lengths(lengths).copy()
        limits = check_limits(limits, lengths.size)
        lengths.flags.writeable = False
        if limits is not None:
            limits = limits.copy()
            limits.flags.writeable = False
        with np.errstate(over="ignore"):
            inner, outer = reach_from_lengths(lengths)
        if not math.isfinite(outer):
            raise ValueError(
                f"lengths: expected a total length below {np.finfo(np.float64).max:.3g} m, "
                f"got {lengths.tolist()}"
            )
        # For the compiled solvers, one writable array (numba types read-only arrays
        # apart): the lengths, then each joint's lower and upper limit (±inf when free).
        # Private, never handed out.
        bounds = np.full((lengths.size, 2), (-np.inf, np.inf)) if limits is None else limits
        data = np.concatenate((lengths, bounds[:, 0], bounds[:, 1]))
        object.__setattr__(self, "_kernel_data", data)
        object.__setattr__(self, "_limited", limits is not None)
        object.__setattr__(self, "lengths", lengths)
        object.__setattr__(self, "limits", limits)
        object.__setattr__(self, "inner_radius", inner)
        object.__setattr__(self, "outer_radius", outer)
        object.__setattr__(self, "n_bones", int(lengths.size))  # and of joints
        # made once: ikchain.solve() looks its Solver up by the chain, on every call
        rows = None if limits is None else tuple(map(tuple, limits.tolist()))
        object.__setattr__(self, "_hash", hash((tuple(lengths.tolist()), rows)))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Chain is immutable; cannot set {name!r}")

    def __reduce__(self) -> tuple[type[Chain], tuple[Any, ...]]:
        """Pickled as its lengths and limits (so ``multiprocessing`` and
        ``dask.distributed`` can ship it), and checked again when unpickled."""
        return (Chain, (self.lengths, self.limits))

    @property
    def total_length(self) -> float:
        """Sum of the bone lengths, the outer radius of the reachable annulus (m)."""
        return self.outer_radius

    def __repr__(self) -> str:
        lengths = ", ".join(f"{x:g}" for x in self.lengths)
        if self.limits is None:
            return f"Chain(lengths=({lengths}))"
        return f"Chain(lengths=({lengths}), limits={self.limits.tolist()})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Chain):
            return NotImplemented
        same_limits = (self.limits is None and other.limits is None) or (
            self.limits is not None
            and other.limits is not None
            and np.array_equal(self.limits, other.limits)
        )
        return np.array_equal(self.lengths, other.lengths) and same_limits

    def __hash__(self) -> int:
        return self._hash
