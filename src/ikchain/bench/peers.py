"""The peers, when installed: roboticstoolbox-python and ikpy on the same targets.

Each adapter builds the peer's model of a planar chain (revolute joints about z, bones
along x) once, and offers ``solve(target, start) -> angles`` for one target; the
bench times it and judges the answer with our own forward kinematics. A peer that is
not installed (or fails to import) is reported as skipped, with the reason.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: |e| <= 1e-9 as roboticstoolbox's residual E = ½ eᵀ e (mask of x, y).
RTB_TOLERANCE = 0.5 * 1e-9**2


@dataclass
class Peer:
    """One peer solver: a name for the table and a one-target solve."""

    name: str
    version: str
    solve: Callable[[np.ndarray, np.ndarray], np.ndarray]


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover
        return "?"


def load_peers(lengths: Sequence[float]) -> tuple[list[Peer], list[str]]:
    """Peers available here for this chain, and one line per peer skipped (why)."""
    peers: list[Peer] = []
    skipped: list[str] = []
    try:
        peers += _rtb(lengths)
    except Exception as error:  # ImportError, or a build without its C++ extension
        skipped.append(f"roboticstoolbox-python: skipped ({type(error).__name__}: {error})")
    try:
        peers.append(_ikpy(lengths))
    except Exception as error:
        skipped.append(f"ikpy: skipped ({type(error).__name__}: {error})")
    return peers, skipped


def _rtb(lengths: Sequence[float]) -> list[Peer]:
    import roboticstoolbox as rtb

    ets = rtb.ETS()  # type: ignore[operator, unused-ignore]  # (only when rtb is installed)
    for length in lengths:
        ets = ets * rtb.ET.Rz() * rtb.ET.tx(float(length))
    mask = np.array([1.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    version = _version("roboticstoolbox-python")

    def frame(target: np.ndarray) -> np.ndarray:
        matrix = np.eye(4)
        matrix[0, 3], matrix[1, 3] = target
        return matrix

    def solve_cpp(target: np.ndarray, start: np.ndarray) -> np.ndarray:
        solution = ets.ik_LM(
            frame(target), q0=start, mask=mask, tol=RTB_TOLERANCE, joint_limits=False
        )
        return np.asarray(solution.q, dtype=np.float64)

    def solve_python(target: np.ndarray, start: np.ndarray) -> np.ndarray:
        solution = ets.ikine_LM(
            frame(target), q0=start, mask=mask, tol=RTB_TOLERANCE, joint_limits=False
        )
        return np.asarray(solution.q, dtype=np.float64)

    solve_cpp(np.array([float(sum(lengths)) * 0.5, 0.1]), np.full(len(lengths), 0.2))
    return [
        Peer("rtb ik_LM (C++)", version, solve_cpp),
        Peer("rtb ikine_LM (Python)", version, solve_python),
    ]


def _ikpy(lengths: Sequence[float]) -> Peer:
    import ikpy.chain
    import ikpy.link

    links = [ikpy.link.OriginLink()]
    offset = 0.0
    for i, length in enumerate(lengths):
        links.append(
            ikpy.link.URDFLink(
                f"joint{i}",
                origin_translation=np.array([offset, 0.0, 0.0]),
                origin_orientation=np.zeros(3),
                rotation=np.array([0.0, 0.0, 1.0]),
            )
        )
        offset = float(length)
    links.append(
        ikpy.link.URDFLink(
            "tip",
            origin_translation=np.array([offset, 0.0, 0.0]),
            origin_orientation=np.zeros(3),
            joint_type="fixed",
        )
    )
    n = len(lengths)
    chain = ikpy.chain.Chain(links, active_links_mask=[False] + [True] * n + [False])

    def solve(target: np.ndarray, start: np.ndarray) -> np.ndarray:
        initial = np.concatenate(([0.0], start, [0.0]))
        position = [float(target[0]), float(target[1]), 0.0]
        return np.asarray(chain.inverse_kinematics(position, initial_position=initial)[1:-1])

    return Peer("ikpy inverse_kinematics", _version("ikpy"), solve)
