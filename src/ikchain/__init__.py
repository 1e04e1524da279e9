"""ikchain: inverse kinematics of planar bone chains.

>>> import ikchain
>>> chain = ikchain.Chain([0.8, 0.6])
>>> result = ikchain.solve(chain, [1.0, 0.5], method="analytic")
>>> result.status, round(result.error, 12)
(<Status.CONVERGED: 'converged'>, 0.0)
"""

from importlib.metadata import PackageNotFoundError, version

from ikchain import family, reach
from ikchain.chain import Chain
from ikchain.kinematics import (
    end_from_angles,
    jacobian_from_angles,
    joints_from_angles,
    min_error_from_target,
    reach_from_lengths,
)
from ikchain.manipulability import condition_from_angles
from ikchain.result import Result, Status
from ikchain.solvers import METHODS, Solver, default_init, follow, solve

try:  # one source: pyproject.toml's [project] version, as installed
    __version__ = version("ikchain")
except PackageNotFoundError:  # a source tree on sys.path that was never installed
    __version__ = "0+unknown"

__all__ = [
    "METHODS",
    "Chain",
    "Result",
    "Solver",
    "Status",
    "__version__",
    "condition_from_angles",
    "default_init",
    "end_from_angles",
    "family",
    "follow",
    "jacobian_from_angles",
    "joints_from_angles",
    "min_error_from_target",
    "reach",
    "reach_from_lengths",
    "solve",
]
