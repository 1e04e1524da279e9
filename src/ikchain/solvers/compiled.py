"""numba for the solvers: the ``kernel`` decorator, its on-disk cache, shared kernels.

Importing this module imports numba (a few hundred milliseconds), so only the kernel
modules (``loop``, ``ccd``, ``fabrik``, ``dls``, ``analytic``) import it, and
:mod:`ikchain.solvers` imports those on the first solve: ``import ikchain`` stays
fast.

Compiled code is cached on disk (numba's ``cache=True``) so that a new process loads
it in milliseconds instead of compiling for seconds. Two things numba's own cache
does not do, :class:`_KernelCache` does:

* **Never break an import.** The cache goes where numba would put it
  (``NUMBA_CACHE_DIR``, else the package's ``__pycache__``, else numba's folder
  under the user's cache directory), then under ``$XDG_CACHE_HOME/ikchain`` (or
  the system's temporary directory); when no folder is writable the kernels are
  compiled in memory, uncached, and everything still works.
* **Stale code.** numba keys a cached function on its own source file only, so a
  loop compiled with yesterday's step (another file) would survive an edit of the
  step. Our kernels' key is the hash of every kernel source file together.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import math
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numpy as np
from numba.core import caching, config

from ikchain import kinematics

_SOLVERS = Path(__file__).resolve().parent
#: Every file whose code the kernels compile: a change to any one recompiles them all.
_SOURCES = (*sorted(_SOLVERS.glob("*.py")), Path(kinematics.__file__).resolve())


def _sources_hash() -> bytes:
    digest = hashlib.sha256(numba.__version__.encode())
    for path in _SOURCES:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.digest()


_STAMP = _sources_hash()


def _fallback_dir() -> str:
    """``$XDG_CACHE_HOME/ikchain/numba`` (default ``~/.cache``), else the temporary dir."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ikchain", "numba")


class _Stamped:
    """Locator mixin: our kernels' freshness is the hash of all their sources."""

    def get_source_stamp(self) -> bytes:
        return _STAMP


class _UserProvided(_Stamped, caching.UserProvidedCacheLocator):
    pass


class _InTree(_Stamped, caching.InTreeCacheLocator):
    pass


class _UserWide(_Stamped, caching.UserWideCacheLocator):
    pass


class _OwnDir(_Stamped, caching.UserWideCacheLocator):
    """Under ``$XDG_CACHE_HOME/ikchain`` (or ~/.cache/ikchain), else the temp dir."""

    root = _fallback_dir()

    def __init__(self, py_func: Callable[..., Any], py_file: str) -> None:
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(self.root, self.get_suitable_cache_subpath(py_file))


class _TempDir(_OwnDir):
    root = os.path.join(tempfile.gettempdir(), f"ikchain-numba-{os.getuid()}")


class _Impl(caching.CompileResultCacheImpl):
    _locator_classes: list[type[object]] = [  # noqa: RUF012 (numba's own list, replaced)
        _UserProvided,
        _InTree,
        _UserWide,
        _OwnDir,
        _TempDir,
    ]


class _KernelCache(caching.FunctionCache):
    _impl_class = _Impl


#: Every kernel made by :func:`kernel`, for :func:`compile_all`.
KERNELS: list[Any] = []

#: LLVM's optimisation level for our kernels (numba's default is 3). At 1 they compile
#: in about half the time and run as fast: the loops are scalar arithmetic and libm
#: calls, which level 3's extra passes (vectorisation, more unrolling) do not speed up
#: (see the README's performance notes for the measurement).
OPT_LEVEL = 1


def _at_opt_level(compile: Callable[..., Any]) -> Callable[..., Any]:
    """``compile`` with numba's optimisation level set to :data:`OPT_LEVEL` meanwhile
    (the level is read when a module is optimised, so it applies to this kernel and to
    the kernels it calls, compiled with it; anything else compiles as before)."""

    @functools.wraps(compile)
    def at_level(signature: Any) -> Any:
        saved = config.OPT  # type: ignore[attr-defined]
        config.OPT = config._OptLevel(OPT_LEVEL)  # type: ignore[attr-defined]
        try:
            return compile(signature)
        finally:
            config.OPT = saved  # type: ignore[attr-defined]

    return at_level


def kernel(signature: str | None = None) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit`` with the guarded cache; ``signature`` compiles eagerly on demand.

    Kernels with a signature are compiled by :func:`compile_all` (once per process,
    from the disk cache when it is warm), so that no solve pays for compilation.
    Every kernel releases the GIL (``nogil``): a batch runs on several threads, each
    solving a range of it (:func:`ikchain.solvers.threads.run`), and so do callers'
    own threads. None is compiled with ``parallel=True``, whose compile costs seconds.
    """

    def decorate(function: Callable[..., Any]) -> Any:
        dispatcher = numba.njit(nogil=True, error_model="numpy")(function)
        # no writable folder anywhere: numba's NullCache stays, compiled in memory
        with contextlib.suppress(RuntimeError, OSError):
            dispatcher._cache = _KernelCache(function)  # type: ignore[attr-defined]
        if hasattr(dispatcher, "compile"):  # NUMBA_DISABLE_JIT=1: the plain function
            dispatcher.compile = _at_opt_level(dispatcher.compile)  # type: ignore[method-assign]
        dispatcher._ikchain_signature = signature  # type: ignore[attr-defined]
        KERNELS.append(dispatcher)
        return dispatcher

    return decorate


def compile_all(progress: Callable[[int, int, str], None] | None = None) -> None:
    """Compile (or load from the cache) every kernel that declares its signature.

    ``progress(done, total, name)`` is called before each kernel and once at the end
    (``done == total``), so a caller can say what is happening while numba compiles.
    """
    signed = [d for d in KERNELS if d._ikchain_signature is not None and hasattr(d, "compile")]
    for done, dispatcher in enumerate(signed):
        if progress is not None:
            progress(done, len(signed), dispatcher.__name__)
        dispatcher.compile(dispatcher._ikchain_signature)
    if progress is not None:
        progress(len(signed), len(signed), "")


# -- kernels shared by the solvers ----------------------------------------------------

#: Below this, ``x² + y²`` loses digits to underflow; ``hypot`` takes over.
_TINY = 2.2250738585072014e-308

#: ``wrap_angle`` compiled: the one implementation, in :mod:`ikchain.kinematics`.
wrap_angle = numba.njit(kinematics.wrap_angle)


@kernel()
def norm(x: float, y: float) -> float:
    """``sqrt(x² + y²)``, through ``hypot`` where the squares under- or overflow."""
    squares = x * x + y * y
    if squares >= _TINY and squares < math.inf:
        return math.sqrt(squares)
    return math.hypot(x, y)


@kernel()
def copy_into(source: np.ndarray, into: np.ndarray, at: int) -> None:
    """``into[at : at + source.size] = source``, one element at a time.

    A slice assignment between arrays compiles numba's shape-mismatch error path (its
    message formatting: about 1-2.5 s of compile per array type), which a copy whose
    sizes the caller owns never needs.
    """
    for i in range(source.size):
        into[at + i] = source[i]


@kernel()
def joints_into(lengths: np.ndarray, angles: np.ndarray, joints: np.ndarray) -> None:
    """Joints (n + 1, 2) of relative ``angles``, root to tip, bone after bone."""
    n = lengths.size
    absolute = angles[0]
    x = lengths[0] * math.cos(absolute)
    y = lengths[0] * math.sin(absolute)
    joints[0, 0] = 0.0
    joints[0, 1] = 0.0
    joints[1, 0] = x
    joints[1, 1] = y
    for i in range(1, n):
        absolute += angles[i]
        x += lengths[i] * math.cos(absolute)
        y += lengths[i] * math.sin(absolute)
        joints[i + 1, 0] = x
        joints[i + 1, 1] = y
