"""The kernel plumbing: arrays in, the compiled (or interpreted) kernels run, a Result out.

Everything here works on checked arrays: targets (B, 2) and start poses (B, n),
(1, n) or (0, n) for the bent default, all C-ordered float64. The kernels themselves
(numba) are imported on the first solve, not with ``import ikchain``.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ikchain.chain import Chain
from ikchain.checks import check_angles, check_batch_shape
from ikchain.result import _STATUS_OBJECTS, CODE_BY_STATUS, Result, result_from_out
from ikchain.solvers import threads
from ikchain.solvers.records import CODE as CODE_FIELD
from ikchain.solvers.records import ERROR, ITERATIONS, OUTSIDE_LIMITS, out_width

#: A single solve's trace has room for this many entries before it is run again
#: with room for all of them (the loop is deterministic).
TRACE_ROOM = 1025
#: A batch's traces take at most this many floats before the same re-run.
BATCH_TRACE_FLOATS = 1 << 22

#: The kernel modules the solves use now: :func:`kernels`' own (compiled, unless this
#: process runs the kernels as plain Python), or, while they compile, the plain-Python
#: copies of :func:`interpret_while_compiling`.
_kernels_cached: tuple[ModuleType, ModuleType, ModuleType] | None = None
_imported: tuple[ModuleType, ModuleType, ModuleType] | None = None
#: Whether :func:`use_compiled` was called (the plain copies are then never used).
_compiled_in_use = False
#: Held while the kernel modules are imported, as themselves or as plain copies: the
#: copies borrow their names in ``sys.modules`` for a moment.
_importing = threading.Lock()
#: ``ikchain.solvers.compiled`` as :func:`kernels` imported it (not a plain copy's).
_compiler: ModuleType | None = None

#: Every module whose functions are kernels or call them: what a plain-Python copy
#: of the kernels imports again.
KERNEL_MODULES = (
    "compiled",
    "units",
    "cosines",
    "ccd",
    "fabrik",
    "dls",
    "transpose",
    "analytic",
    "rigid",
    "limited",
    "blend",
    "tip",
    "loop",
)


def kernels() -> tuple[ModuleType, ModuleType, ModuleType]:
    """The kernel modules ``loop``, ``analytic`` and ``limited``, imported (with numba)
    on first use; the solves use them from then on, unless they run on the plain-Python
    copies of :func:`interpret_while_compiling` (until :func:`use_compiled`)."""
    global _kernels_cached, _imported, _compiler
    if _imported is None:
        with _importing:
            from ikchain.solvers import analytic, compiled, limited, loop

            _compiler = compiled
            _imported = (loop, analytic, limited)
    if _kernels_cached is None:
        _kernels_cached = _imported
    return _imported


def interpret_while_compiling() -> None:
    """Solve with the kernels as plain Python until :func:`use_compiled`.

    The same source imported a second time with the JIT off (its modules live only
    here, not in ``sys.modules``): every answer is the same to the bit, a hundred times
    slower, with nothing to compile. The lesson server answers with these while numba
    compiles the real kernels (a minute on a first run), then switches. A no-op once
    the compiled kernels are in use.
    """
    global _kernels_cached
    if not _compiled_in_use and not interpreting():
        copies = _plain_copies()
        if not _compiled_in_use:  # (they may have come meanwhile)
            _kernels_cached = copies


def compile_kernels(progress: Callable[[int, int, str], None] | None = None) -> None:
    """Compile :func:`kernels` (``compiled.compile_all``), then solve with them."""
    kernels()
    assert _compiler is not None
    _compiler.compile_all(progress)
    use_compiled()


def use_compiled() -> None:
    """Solve with :func:`kernels`' modules from now on (each a single assignment: a
    solve under way finishes on the kernels it started with)."""
    global _kernels_cached, _compiled_in_use
    _compiled_in_use = True
    _kernels_cached = kernels()


def interpreting() -> bool:
    """Whether the solves run on the plain-Python copies of the kernels."""
    return _kernels_cached is not None and _kernels_cached is not _imported


def _plain_copies() -> tuple[ModuleType, ModuleType, ModuleType]:
    """``loop``, ``analytic`` and ``limited`` imported again as plain Python, under
    the same names, then taken out of ``sys.modules`` (which gets back what it held)."""
    with _importing:
        return _import_plainly([f"ikchain.solvers.{name}" for name in KERNEL_MODULES])


def _import_plainly(names: list[str]) -> tuple[ModuleType, ModuleType, ModuleType]:
    import importlib
    import sys

    from ikchain.solvers import mode

    solvers = sys.modules["ikchain.solvers"]  # (the package: its attributes restored)
    held = {name: sys.modules.pop(name) for name in names if name in sys.modules}
    attributes = {name: getattr(solvers, name) for name in KERNEL_MODULES if hasattr(solvers, name)}
    was, mode.INTERPRETED = mode.INTERPRETED, True
    try:
        loop, analytic, limited = (
            importlib.import_module(f"ikchain.solvers.{name}")
            for name in ("loop", "analytic", "limited")
        )
    finally:
        mode.INTERPRETED = was
        for name in names:
            sys.modules.pop(name, None)
        sys.modules.update(held)
        for name in KERNEL_MODULES:
            if name in attributes:
                setattr(solvers, name, attributes[name])
            elif hasattr(solvers, name):
                delattr(solvers, name)
    return loop, analytic, limited


def entry(kernel: Any) -> Any:
    """``kernel`` to call with arrays whose types are its one compiled signature's: the
    compiled code's own entry point, which skips the dispatcher's look-up of the
    arguments' types (a quarter of a single small solve's kernel call), once numba has
    compiled it; else the kernel itself (interpreted, or not compiled yet)."""
    fast = _ENTRIES.get(kernel)
    if fast is None:
        overloads = getattr(kernel, "overloads", None)
        if not overloads or len(overloads) != 1:
            return kernel
        fast = _ENTRIES.setdefault(kernel, next(iter(overloads.values())).entry_point)
    return fast


_ENTRIES: dict[Any, Any] = {}
_EMPTY: dict[int, tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]] = {}


def empties(n: int) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """No starts (0, n), nothing found (0, n + 3) and no trace (0, 0, n + 1), made once
    per n; the kernels only read their (empty) shapes."""
    made = _EMPTY.get(n)
    if made is None:
        made = _EMPTY.setdefault(
            n, (np.empty((0, n)), np.empty((0, n + 3)), np.empty((0, 0, n + 1)))
        )
    return made


def out_array(into: Result | None, count: int, n: int) -> NDArray[np.float64]:
    """A solve's ``out`` (count, 3n + 8): the memory of ``into`` when given (it must
    fit), else new."""
    if into is None:
        return np.empty((count, out_width(n)))
    from ikchain.result import out_of

    memory = out_of(into)
    shape = (count, out_width(n))
    if memory.shape != shape:
        bones = (memory.shape[1] - out_width(0)) // 3
        got = f"{memory.shape[0]} targets with {bones} bones"
        raise ValueError(
            f"out: expected a Result of {count} targets with {n} bones, got one of {got}"
        )
    return memory


def check_within_limits(chain: Chain, angles: NDArray[np.float64]) -> None:
    """Raise for the first start angle outside its joint's limits."""
    if chain.limits is None:
        return
    low, high = chain.limits[:, 0], chain.limits[:, 1]
    outside = (angles < low) | (angles > high)
    if np.any(outside):
        joint = int(np.argwhere(outside)[0][-1])
        raise ValueError(
            f"init: expected angles within the joint limits, got joint {joint} outside "
            f"[{float(low[joint])!r}, {float(high[joint])!r}]"
        )


def check_codes(
    chain: Chain,
    targets: NDArray[np.float64],
    shape: tuple[int, ...],
    out: NDArray[np.float64],
    starts: NDArray[np.float64] | None,
) -> None:
    """Raise for a target the kernel refused (a code < 0): beyond floats, or (``starts``
    given) a start pose outside the joint limits."""
    column = 3 * chain.n_bones + 2 + CODE_FIELD
    if out.shape[0] == 0 or out[:, column].min() >= 0.0:
        return
    codes = out[:, column]
    if starts is not None and (codes == OUTSIDE_LIMITS).any():
        check_within_limits(chain, starts)
    bad = np.argwhere(codes.reshape(shape) < 0)
    where = tuple(int(i) for i in bad[0])
    point = targets.reshape(*shape, 2)[where]
    raise ValueError(
        f"target: expected |target| + ΣL below {np.finfo(np.float64).max:.3g} m (every "
        f"distance a finite float), got {point.tolist()} with ΣL = {chain.outer_radius!r}"
        + (f" at index {where}" if shape else "")
    )


def run_analytic(
    chain: Chain,
    record: NDArray[np.float64],
    flat: NDArray[np.float64],
    shape: tuple[int, ...],
    into: Result | None,
) -> Result:
    """The closed form for targets ``flat`` (B, 2) of the batch ``shape``."""
    _, analytic, _ = _kernels_cached or kernels()
    count = flat.shape[0]
    out = out_array(into, count, 2)
    if count < threads.PARALLEL_FROM:  # the calling thread alone, as threads.run would
        analytic.solve_range(chain._kernel_data, record, flat, out, 0, count)
    else:
        threads.run(analytic.solve_range, (chain._kernel_data, record, flat, out), count)
    check_codes(chain, flat, shape, out, None)
    return result_from_out(out, shape, 2, flat, "analytic", None, chain.limits, into)


def run_iterative(
    chain: Chain,
    method: str,
    record: NDArray[np.float64],
    targets: NDArray[np.float64],
    shape: tuple[int, ...],
    starts: NDArray[np.float64],
    rest: NDArray[np.float64],
    give: NDArray[np.float64],
    trace: bool,
    into: Result | None,
) -> Result:
    """Targets (B, 2) from ``starts`` ((B, n), (1, n), or (0, n) for the default)
    through the method's loop (``loop.SOLVE``), ``rest`` the rest pose and ``give`` each
    joint's give (see ``loop.solve_range``); on a limited chain the reach search
    runs first, once (unless the loop finds the reach itself:
    ``records.FREE_OR_FIXED``). A path (``record`` with ``follow``) runs in order, on
    one thread."""
    from ikchain.solvers.methods import CODE
    from ikchain.solvers.records import OPT_FOLLOW, OPT_LIMITED, OPT_MAX_ITERATIONS, SEARCHED

    loop, _, limited = _kernels_cached or kernels()
    n = chain.n_bones
    count = targets.shape[0]
    data = chain._kernel_data
    _, found, rows = empties(n)
    if record[OPT_LIMITED] == SEARCHED:  # (a locked chain's loop finds its reach itself)
        found = np.empty((count, n + 3))
        threads.run(limited.reach_range, (data, record, targets, found), count)
    out = out_array(into, count, n)
    kernel = loop.SOLVE[CODE[method]]
    checked = starts if starts.shape[0] else None
    alone = count < threads.PARALLEL_FROM or record[OPT_FOLLOW] != 0.0
    room = 0
    if trace:
        budget = int(record[OPT_MAX_ITERATIONS])
        room = min(budget + 1, TRACE_ROOM, max(2, BATCH_TRACE_FLOATS // max(1, count * (n + 1))))
    while True:  # the loop is deterministic: a trace that overflows runs again with room
        if trace:
            rows = np.empty((count, room, n + 1))
        if alone:
            kernel(data, record, targets, starts, rest, give, found, out, rows, 0, count)
        else:
            threads.run(
                kernel, (data, record, targets, starts, rest, give, found, out, rows), count
            )
        check_codes(chain, targets, shape, out, checked)
        if not trace:
            return result_from_out(out, shape, n, targets, method, None, chain.limits, into)
        longest = int(out[:, 3 * n + 2 + ITERATIONS].max()) + 1 if count else 1
        if longest <= room:
            return result_from_out(
                out, shape, n, targets, method, rows[:, :longest], chain.limits, into
            )
        room = longest


def batch_arrays(
    chain: Chain, target: NDArray[np.float64], init: object
) -> tuple[NDArray[np.float64], tuple[int, ...], NDArray[np.float64]]:
    """Targets (..., 2) and start poses (..., n) (None: the default) broadcast: the
    targets (B, 2), the batch shape, and the starts ((B, n), (1, n) or (0, n))."""
    n = chain.n_bones
    if init is None:
        start = empties(n)[0]
        start_shape: tuple[int, ...] = ()
    else:
        start = check_angles(init, n, "init")  # type: ignore[arg-type]
        check_within_limits(chain, start)
        start_shape = start.shape[:-1]
    shape = check_batch_shape(target.shape[:-1], start_shape)
    # a C-ordered copy: a broadcast one copies in Fortran order, a layout the kernels
    # were not compiled for (the first such call would compile for seconds)
    targets = np.array(np.broadcast_to(target, (*shape, 2)).reshape(-1, 2), order="C")
    if init is not None:
        if start_shape == shape:
            start = np.ascontiguousarray(start.reshape(-1, n), dtype=np.float64)
        elif math.prod(start_shape) == 1:
            start = np.ascontiguousarray(start.reshape(1, n), dtype=np.float64)
        else:
            start = np.ascontiguousarray(np.broadcast_to(start, (*shape, n)).reshape(-1, n))
    return targets, shape, start


def blend_after(
    lengths: NDArray[np.float64],
    answer: Result,
    start: NDArray[np.float64],
    weight: float,
    tolerance: float,
) -> Result:
    """``answer``, a solve from ``start`` ((..., n), broadcast against it), moved back
    toward ``start`` by the weight and told what its pose now does, by the loop's own
    compiled rule (``loop.blend_rows``; :mod:`ikchain.solvers.blend`): for the answers
    no loop blends, the closed form's and those of a step around a solve."""
    if weight == 1.0:
        return answer
    n = lengths.size
    shape = answer.shape
    angles = np.asarray(answer.angles, dtype=np.float64).reshape(-1, n)
    count = angles.shape[0]
    out = np.empty((count, out_width(n)))
    out[:, :n] = angles
    if shape == ():
        codes: Any = CODE_BY_STATUS[answer.status]
    else:
        codes = np.frompyfunc(CODE_BY_STATUS.__getitem__, 1, 1)(answer.status)
    out[:, 3 * n + 2 + CODE_FIELD] = np.asarray(codes, dtype=np.float64).reshape(-1)
    starts = np.array(np.broadcast_to(start, (*shape, n)).reshape(-1, n), dtype=np.float64)
    targets = np.array(np.asarray(answer.target, dtype=np.float64).reshape(-1, 2))
    # the kernels in use: compiled, or their plain-Python copies while numba compiles
    loop, _, _ = _kernels_cached or kernels()
    lengths = np.ascontiguousarray(lengths, dtype=np.float64)
    loop.blend_rows(lengths, starts, weight, tolerance, targets, out)
    joints = out[:, n : 3 * n + 2].reshape(*shape, n + 1, 2)
    error = out[:, 3 * n + 2 + ERROR].reshape(shape)
    status = _STATUS_OBJECTS[out[:, 3 * n + 2 + CODE_FIELD].astype(np.intp)].reshape(shape)
    told: dict[str, Any] = {
        "angles": out[:, :n].reshape(*shape, n),
        "joints": joints,
        "end": joints[..., -1, :],
        "error": error,
        "status": status,
    }
    if shape == ():  # one target: a float and a Status, as every single Result
        told["error"], told["status"] = float(error), status.item()
    return answer.replace(**told)


def ellipses(lengths: NDArray[np.float64], poses: NDArray[np.float64]) -> NDArray[np.float64]:
    """The manipulability ellipses (m, 3) of ``poses`` (m, n), C-ordered float64, by
    the kernels in use (:func:`ikchain.manipulability.manipulability_from_angles` checks
    and shapes; while numba compiles, the plain-Python copy answers, so that a drag
    frame never waits for a compile)."""
    loop, _, _ = _kernels_cached or kernels()
    out = np.empty((poses.shape[0], 3))
    loop.ellipse_into(lengths, poses, out)
    return out
