"""numba's compiler for the kernels, with an on-disk cache that never breaks an import.

Imported by :func:`ikchain.solvers.compiled.kernel` only when the kernels are compiled
(not under ``IKCHAIN_JIT=0``), so that plain-Python runs never import numba.

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
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
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


def compiled(function: Callable[..., Any]) -> Any:
    """``function`` as a numba dispatcher: no GIL, numpy's error model, our cache, and
    compiled at :data:`OPT_LEVEL`."""
    dispatcher: Any = numba.njit(nogil=True, error_model="numpy")(function)
    # no writable folder anywhere: numba's NullCache stays, compiled in memory
    with contextlib.suppress(RuntimeError, OSError):
        dispatcher._cache = _KernelCache(function)
    dispatcher.compile = _at_opt_level(dispatcher.compile)
    return dispatcher
