"""numba's costs: a lazy import, and a disk cache that can never break an import or a solve."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import ikchain

PACKAGE = Path(ikchain.__file__).resolve().parent


def _python(code: str, env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_import_ikchain_does_not_import_numba(tmp_path):
    code = (
        "import sys, ikchain; print('numba' in sys.modules, 'ikchain.solvers.loop' in sys.modules)"
    )
    assert _python(code, {}, tmp_path) == "False False"


def _unwritable_copy(tmp_path: Path) -> tuple[Path, Path]:
    """The package copied where no __pycache__ can be made, and a file to point folders at."""
    site = tmp_path / "site"
    shutil.copytree(PACKAGE, site / "ikchain", ignore=shutil.ignore_patterns("__pycache__"))
    for folder in [site / "ikchain", *(p for p in (site / "ikchain").rglob("*") if p.is_dir())]:
        (folder / "__pycache__").write_text("a file where numba wants a folder")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    return site, blocker


def test_cache_falls_back_to_the_user_cache_folder(tmp_path):
    site, blocker = _unwritable_copy(tmp_path)
    env = {
        "PYTHONPATH": str(site),
        "PYTHONDONTWRITEBYTECODE": "1",
        "HOME": str(blocker),
        "NUMBA_CACHE_DIR": str(blocker / "numba"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    code = (
        "from ikchain.solvers import analytic, loop; "
        "print(loop.SOLVE[0]._cache._cache_path); print(analytic.__file__)"
    )
    path, source = _python(code, env, tmp_path).splitlines()
    assert source.startswith(str(site))  # the copy, not the installed package
    assert path.startswith(str(tmp_path / "cache" / ""))  # numba's or ours, under it


def test_no_writable_folder_anywhere_still_solves(tmp_path):
    site, blocker = _unwritable_copy(tmp_path)
    env = {
        "PYTHONPATH": str(site),
        "PYTHONDONTWRITEBYTECODE": "1",
        "HOME": str(blocker),
        "NUMBA_CACHE_DIR": str(blocker / "numba"),
        "XDG_CACHE_HOME": str(blocker),
    }
    # The system's temporary folder is the last resort; block it too (we run as any
    # user, possibly root, so a file in the way is the sure way to refuse a folder).
    code = (
        "from ikchain.solvers import kernelcache; "
        f"kernelcache._TempDir.root = {str(blocker / 'tmp')!r}; "
        "import ikchain; from ikchain.solvers import analytic; "
        "r = ikchain.solve(ikchain.Chain([0.8, 0.6]), [1.4, 0.0], 'analytic'); "
        "print(type(analytic.solve_range._cache).__name__, r.status, r.angles.tolist())"
    )
    assert _python(code, env, tmp_path) == "NullCache converged [0.0, 0.0]"


def test_kernels_compile_at_their_level_and_leave_numba_as_it_was(tmp_path):
    """Our kernels compile at kernelcache.OPT_LEVEL (1); numba's own level, which any other
    code compiles at, is the same before and after (here set to 2 by the environment),
    and compile_kernels reports progress, ending with done == total."""
    code = (
        "from numba.core import config; before = int(config.OPT); "
        "from ikchain.solvers import compile_kernels; seen = []; "
        "compile_kernels(lambda done, total, name: seen.append((done, total))); "
        "print(before, int(config.OPT), seen[-1][0] == seen[-1][1] == len(seen) - 1)"
    )
    out = _python(code, {"NUMBA_OPT": "2", "NUMBA_CACHE_DIR": str(tmp_path)}, tmp_path)
    assert out.split()[-3:] == ["2", "2", "True"]
