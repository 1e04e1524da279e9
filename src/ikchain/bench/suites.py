"""The measurements of ``ikchain bench``: each returns plain data (rows of numbers).

Every timed figure is repeated; a row carries the median over the repeats and the
lowest and highest repeat, so the spread is visible, and where it has a baseline
measured in the same run, the ratio to it.
"""

from __future__ import annotations

import functools
import gc
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import ikchain
from ikchain.bench.peers import Peer
from ikchain.reach import REACH_RATIOS, sweeps_to_tolerance
from ikchain.solvers import START_BEND

#: Bone lengths of the n-bone chains (the first n of these).
LENGTHS = (0.8, 0.6, 0.4, 0.3, 0.25, 0.2, 0.15, 0.1)
GOAL = 1e-9


def chain_of(n: int) -> ikchain.Chain:
    return ikchain.Chain(LENGTHS[:n])


def random_reachable(
    chain: ikchain.Chain, count: int, seed: int, hand: float | None = None
) -> np.ndarray:
    """Targets that some pose reaches: the tips of uniformly random poses; with
    ``hand`` (rad), poses whose last bone points along it (the first angles uniform),
    so that the tip-angle task reaches them too."""
    rng = np.random.default_rng(seed)
    angles = rng.uniform(-math.pi, math.pi, (count, chain.n_bones))
    if hand is not None:
        angles[:, -1] = hand - angles[:, :-1].sum(axis=1)
    return ikchain.end_from_angles(chain.lengths, angles)


def drag_path(chain: ikchain.Chain, frames: int) -> np.ndarray:
    """A closed wavy path of targets between 0.5 and 0.9 of the reach, as a drag gives."""
    phase = np.linspace(0.0, 2.0 * math.pi, frames, endpoint=False)
    radius = chain.total_length * (0.7 + 0.2 * np.sin(3.0 * phase))
    return np.stack((radius * np.cos(phase), radius * np.sin(phase)), axis=-1)


def stats(values: Sequence[float] | np.ndarray) -> dict[str, float]:
    """Median, lowest and highest of the repeats."""
    array = np.asarray(values, dtype=np.float64)
    return {
        "median": float(np.median(array)),
        "low": float(array.min()),
        "high": float(array.max()),
    }


def timed(fn: Callable[[], Any], repeats: int) -> tuple[list[float], Any]:
    """Wall time of ``fn()`` (s) for each of ``repeats`` runs, garbage collector off."""
    times = []
    result = None
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            result = fn()
            times.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return times, result


# -- batch analytic ------------------------------------------------------------------


def bare_passes(count: int, lengths: Sequence[float]) -> list[tuple[str, Callable[[], Any]]]:
    """The elementwise numpy passes the closed form needs for the angles alone.

    One pass per operation of :func:`ikchain.solvers.analytic.solve_range` up to the
    two angles (32 of them), each on contiguous arrays of ``count`` values into a
    preallocated output: the least that numpy can do for this formula.
    """
    rng = np.random.default_rng(0)
    tx, ty = rng.uniform(-1.0, 1.0, count), rng.uniform(-1.0, 1.0, count)
    a, b, out = rng.uniform(0.1, 1.0, count), rng.uniform(0.1, 1.0, count), np.empty(count)
    l1, l2 = float(lengths[0]), float(lengths[1])
    mul, add, sub, div = np.multiply, np.add, np.subtract, np.divide
    passes = [
        ("tx*tx", lambda: mul(tx, tx, out=out)),
        ("ty*ty", lambda: mul(ty, ty, out=out)),
        ("d2 = +", lambda: add(a, b, out=out)),
        ("d = sqrt", lambda: np.sqrt(a, out=out)),
        ("clip low", lambda: np.maximum(a, 0.2, out=out)),
        ("clip high", lambda: np.minimum(a, 1.4, out=out)),
        ("L-d", lambda: sub(1.4, a, out=out)),
        ("L+d", lambda: add(1.4, a, out=out)),
        ("opening = *", lambda: mul(a, b, out=out)),
        ("d-g", lambda: sub(a, 0.2, out=out)),
        ("d+g", lambda: add(a, 0.2, out=out)),
        ("closing = *", lambda: mul(a, b, out=out)),
        ("p = sqrt", lambda: np.sqrt(a, out=out)),
        ("q = sqrt", lambda: np.sqrt(b, out=out)),
        ("atan2(p, q)", lambda: np.arctan2(a, b, out=out)),
        ("dA = 2·bend·", lambda: mul(2.0, a, out=out)),
        ("total = +", lambda: add(a, b, out=out)),
        ("closing-opening", lambda: sub(a, b, out=out)),
        ("cos = /", lambda: div(a, b, out=out)),
        ("p*q", lambda: mul(a, b, out=out)),
        ("2·bend·", lambda: mul(2.0, a, out=out)),
        ("sin = /", lambda: div(a, b, out=out)),
        ("L2·cos", lambda: mul(l2, a, out=out)),
        ("x = L1+", lambda: add(l1, a, out=out)),
        ("y = L2·sin", lambda: mul(l2, a, out=out)),
        ("tx*x", lambda: mul(tx, a, out=out)),
        ("ty*y", lambda: mul(ty, b, out=out)),
        ("C = +", lambda: add(a, b, out=out)),
        ("ty*x", lambda: mul(ty, a, out=out)),
        ("tx*y", lambda: mul(tx, b, out=out)),
        ("S = -", lambda: sub(a, b, out=out)),
        ("a0 = atan2(S, C)", lambda: np.arctan2(a, b, out=out)),
    ]
    return passes


def bench_analytic(count: int, repeats: int) -> dict[str, Any]:
    """Whole-result batch analytic solve against the bare passes of its angle formula."""
    chain = chain_of(2)
    targets = random_reachable(chain, count, seed=1)
    ikchain.solve(chain, targets[:1000], method="analytic")  # warm up
    whole, result = timed(lambda: ikchain.solve(chain, targets, method="analytic"), repeats)
    passes: list[dict[str, Any]] = []
    for name, fn in bare_passes(count, chain.lengths.tolist()):
        fn()
        times, _ = timed(fn, repeats)
        passes.append({"pass": name, "ns_per_target": stats(np.array(times) * 1e9 / count)})
    bare = sum(p["ns_per_target"]["median"] for p in passes)
    transcendental = sum(
        p["ns_per_target"]["median"] for p in passes if "sqrt" in p["pass"] or "atan" in p["pass"]
    )
    whole_ns = stats(np.array(whole) * 1e9 / count)
    return {
        "targets": count,
        "whole_ns_per_target": whole_ns,
        "bare_passes": len(passes),
        "bare_sum_ns_per_target": bare,
        "transcendental_passes_ns_per_target": transcendental,
        "ratio_to_bare": whole_ns["median"] / bare,
        "max_error": float(np.max(result.error)),
        "passes": passes,
    }


# -- batch iterative -----------------------------------------------------------------


def bench_batch(
    bones: Sequence[int], methods: Sequence[str], count: int, repeats: int
) -> list[dict[str, Any]]:
    """Batch solves to 1e-9 from the bent start (default budget): time, success, iterations."""
    rows = []
    for n in bones:
        chain = chain_of(n)
        targets = random_reachable(chain, count, seed=10 + n)
        for method in methods:
            ikchain.solve(chain, targets[:50], method=method)  # warm up
            times, result = timed(functools.partial(ikchain.solve, chain, targets, method), repeats)
            iterations = result.iterations
            rows.append(
                {
                    "method": method,
                    "bones": n,
                    "targets": count,
                    "ns_per_target": stats(np.array(times) * 1e9 / count),
                    "success": float(np.mean(result.converged)),
                    "failures": int(np.sum(~result.converged)),
                    "iterations_median": float(np.median(iterations)),
                    "iterations_p99": float(np.percentile(iterations, 99)),
                    "iterations_max": int(iterations.max()),
                }
            )
    return rows


def bench_dls_reach(bones: Sequence[int], directions: int) -> list[dict[str, Any]]:
    """DLS iterations to 1e-9 from the bent start at each d/ΣL, worst over directions."""
    angles = np.linspace(-math.pi, math.pi, directions, endpoint=False)
    rows = []
    for n in bones:
        chain = chain_of(n)
        reach_rows = sweeps_to_tolerance(
            chain, REACH_RATIOS, ("dls",), GOAL, directions=angles.tolist(), error_after=1
        )
        for ratio in REACH_RATIOS:
            mine = [r for r in reach_rows if r.ratio == ratio]
            its = [r.iterations["dls"] for r in mine]
            rows.append(
                {
                    "bones": n,
                    "ratio": ratio,
                    "directions": directions,
                    "converged": sum(i is not None for i in its),
                    "iterations_max": max((i for i in its if i is not None), default=None),
                }
            )
    return rows


# -- single solves and peers ---------------------------------------------------------


def _per_call(
    solve: Callable[[np.ndarray, np.ndarray | None], np.ndarray],
    targets: np.ndarray,
    warm: bool,
    start: np.ndarray | None,
    chain: ikchain.Chain,
) -> tuple[float, np.ndarray]:
    """Median seconds per call over the targets, and the end error of each answer."""
    times = np.empty(len(targets))
    answers = []
    previous = start
    clock = time.perf_counter
    for i, target in enumerate(targets):
        t0 = clock()
        angles = solve(target, previous)
        times[i] = clock() - t0
        answers.append(angles)
        if warm:
            previous = angles
    poses = np.array(answers)
    errors = np.hypot(*(ikchain.end_from_angles(chain.lengths, poses) - targets).T)
    return float(np.median(times)), errors


def ours(chain: ikchain.Chain, method: str):
    """``ikchain.solve`` for one target as a drag loop calls it: a list target, and
    the previous answer as ``init`` and the tolerance passed on every call."""
    solve = ikchain.solve

    if method == "analytic":

        def one(target, previous):
            return solve(chain, [target[0], target[1]], method="analytic").angles

        return one

    def iterative(target, previous):
        if previous is None:
            return solve(chain, [target[0], target[1]], method=method, tolerance=GOAL).angles
        return solve(
            chain, [target[0], target[1]], method=method, init=previous, tolerance=GOAL
        ).angles

    return iterative


def through_solver(chain: ikchain.Chain, method: str):
    """The same calls through one :class:`ikchain.Solver`, made once for the run."""
    solver = ikchain.Solver(chain, method, tolerance=None if method == "analytic" else GOAL)

    if method == "analytic":  # no start pose to carry

        def closed(target, previous):
            return solver([target[0], target[1]]).angles

        return closed

    def one(target, previous):
        return solver([target[0], target[1]], previous).angles

    return one


#: The name of a single-solve row that went through a Solver.
SOLVER_PREFIX = "Solver "


def single_ratio(mine: dict[str, Any], peer: dict[str, Any]) -> float:
    """One single-solve row's time over another's: the median of the rounds' ratios
    (each round timed both side by side, :func:`bench_single`), or, for a run recorded
    before the rounds were kept, the ratio of the medians."""
    if "rounds" in mine and "rounds" in peer and len(mine["rounds"]) == len(peer["rounds"]):
        return float(np.median(np.divide(mine["rounds"], peer["rounds"])))
    return float(mine["us_per_solve"]["median"] / peer["us_per_solve"]["median"])


def bench_single(
    bones: Sequence[int],
    methods: Sequence[str],
    count: int,
    frames: int,
    repeats: int,
    peers_for: Callable[[ikchain.Chain], tuple[list[Peer], list[str]]] | None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """µs per single solve, cold (bent start) and warm (drag path), ours and the peers'.

    The repeats run in interleaved rounds: each round times every solver once, cold
    and warm, so that a ratio between two rows can be taken round by round, from
    figures taken side by side (``"rounds"``: each round's median µs per solve), and
    a drift of the machine's speed between rows does not pass for a difference.
    """
    rows = []
    notes: list[str] = []
    for n in bones:
        chain = chain_of(n)
        cold_targets = random_reachable(chain, count, seed=20 + n)
        path = drag_path(chain, frames)
        bent = ikchain.default_init(chain)
        solvers = [(m, ours(chain, m)) for m in methods if m != "analytic" or n == 2]
        solvers += [
            (SOLVER_PREFIX + m, through_solver(chain, m))
            for m in methods
            if m in ("analytic", "dls") and (m != "analytic" or n == 2)
        ]
        if peers_for is not None:
            peers, skipped = peers_for(chain)
            notes += [f"{n} bones: {line}" for line in skipped]
            solvers += [(peer.name, peer.solve) for peer in peers]
        modes = (("cold", cold_targets, False), ("warm", path, True))
        medians: dict[tuple[str, str], list[float]] = {}
        errors: dict[tuple[str, str], np.ndarray] = {}
        for _ in range(repeats):
            for name, solve in solvers:
                # ours start from their default (the bent pose), the peers from the same pose
                start = None if name.removeprefix(SOLVER_PREFIX) in methods else bent
                for mode, targets, warm in modes:
                    gc.collect()
                    gc.disable()
                    try:
                        median, errors[name, mode] = _per_call(solve, targets, warm, start, chain)
                    finally:
                        gc.enable()
                    medians.setdefault((name, mode), []).append(median * 1e6)
        for name, _ in solvers:
            for mode, targets, _ in modes:
                rows.append(
                    {
                        "solver": name,
                        "bones": n,
                        "mode": mode,
                        "solves": len(targets),
                        "us_per_solve": stats(medians[name, mode]),
                        "rounds": medians[name, mode],
                        "success": float(np.mean(errors[name, mode] <= GOAL)),
                        "max_error": float(np.max(errors[name, mode])),
                    }
                )
    return rows, notes


# -- start-up: import, the CLI, compiling the kernels ---------------------------------

_FIRST_SOLVE = """
import json, time
t0 = time.perf_counter()
import ikchain
from ikchain.solvers import compile_kernels
t1 = time.perf_counter()
compile_kernels()
t2 = time.perf_counter()
chain = ikchain.Chain([0.8, 0.6, 0.4])
firsts = {}
for method in ("dls", "ccd", "fabrik", "jt"):
    s = time.perf_counter()
    ikchain.solve(chain, [1.0, 0.6], method, init=[0.3, 0.3, 0.3], max_iterations=64)
    firsts[method] = time.perf_counter() - s
s = time.perf_counter()
ikchain.solve(ikchain.Chain([0.8, 0.6]), [1.0, 0.5], "analytic")
firsts["analytic"] = time.perf_counter() - s
print(json.dumps({"import": t1 - t0, "compile": t2 - t1, "first": firsts}))
"""

_IMPORT = "import time; t = time.perf_counter(); import ikchain; print(time.perf_counter() - t)"


def _run(args: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(
        args, env={**os.environ, **env}, capture_output=True, text=True, timeout=900, check=True
    )
    return time.perf_counter() - start, done.stdout


def bench_startup(repeats: int, cold_cache: bool) -> dict[str, Any]:
    """Fresh processes: ``import ikchain``, ``ikchain solve``, the lesson's start-up.

    With the kernels' disk cache warm (as after the first run), and, when
    ``cold_cache``, with an empty cache folder (``NUMBA_CACHE_DIR``), as on the very
    first run: numba then compiles what it needs.
    """
    solve = [sys.executable, "-m", "ikchain", "solve", "--lengths", "0.8,0.6"]
    solve += ["--target", "1,0.5", "--method", "dls"]
    _run(solve, {})  # fills the cache when it is empty
    imports, clis, starts = [], [], []
    for _ in range(repeats):
        imports.append(float(_run([sys.executable, "-c", _IMPORT], {})[1]))
        clis.append(_run(solve, {})[0])
        starts.append(json.loads(_run([sys.executable, "-c", _FIRST_SOLVE], {})[1]))
    data: dict[str, Any] = {
        "import_s": stats(imports),
        "cli_solve_warm_s": stats(clis),
        "compile_kernels_warm_s": stats([s["compile"] for s in starts]),
        "first_solve_after_compile_s": {
            method: stats([s["first"][method] for s in starts]) for method in starts[0]["first"]
        },
    }
    if cold_cache:
        with tempfile.TemporaryDirectory() as folder:
            data["cli_solve_cold_s"] = _run(solve, {"NUMBA_CACHE_DIR": folder})[0]
        with tempfile.TemporaryDirectory() as folder:
            cold = json.loads(
                _run([sys.executable, "-c", _FIRST_SOLVE], {"NUMBA_CACHE_DIR": folder})[1]
            )
            data["compile_kernels_cold_s"] = cold["compile"]
    return data


# -- joint limits ----------------------------------------------------------------------


def random_limited_chain(rng: np.random.Generator, n: int) -> ikchain.Chain:
    """Lengths in [0.2, 1] m; each joint's range 0.3-2.5 rad wide, anywhere in [-π, π]."""
    lengths = rng.uniform(0.2, 1.0, n)
    width = rng.uniform(0.3, 2.5, n)
    low = rng.uniform(-math.pi, math.pi - width)
    return ikchain.Chain(lengths, limits=np.stack((low, low + width), axis=-1))


def limited_targets(rng: np.random.Generator, chain: ikchain.Chain, count: int) -> np.ndarray:
    """Half the tips of random poses within the limits, half uniform in the disk of ΣL."""
    assert chain.limits is not None
    half = count // 2
    poses = rng.uniform(chain.limits[:, 0], chain.limits[:, 1], (half, chain.n_bones))
    reached = ikchain.end_from_angles(chain.lengths, poses)
    radius = chain.total_length * np.sqrt(rng.uniform(0.0, 1.0, count - half))
    phase = rng.uniform(-math.pi, math.pi, count - half)
    disk = np.stack((radius * np.cos(phase), radius * np.sin(phase)), axis=-1)
    return np.concatenate((reached, disk))


def _each_call(chain: ikchain.Chain, targets: np.ndarray) -> np.ndarray:
    """Seconds of each single default solve (a list target, as user code passes it)."""
    clock = time.perf_counter
    solve = ikchain.solve
    times = np.empty(len(targets))
    for i, (tx, ty) in enumerate(targets.tolist()):
        t0 = clock()
        solve(chain, [tx, ty])
        times[i] = clock() - t0
    return times


def bench_limits(count: int, cases: int, repeats: int) -> dict[str, Any]:
    """Limited solves: single (2 and 4 bones), batch (3 bones), and whether DLS ends at
    the least distance the limits allow, over random chains, limits and targets."""
    rng = np.random.default_rng(12)
    out: dict[str, Any] = {}
    two = random_limited_chain(rng, 2)
    free = ikchain.Chain(two.lengths)
    targets = limited_targets(rng, two, min(count, 2000))
    for chain in (two, free):  # compile and warm
        ikchain.solve(chain, targets[:2].tolist()[0])
    limited_us, free_us = [], []
    gc.disable()
    try:
        for _ in range(repeats):
            limited_us.append(1e6 * float(np.median(_each_call(two, targets))))
            free_us.append(1e6 * float(np.median(_each_call(free, targets))))
        four = random_limited_chain(rng, 4)
        ikchain.solve(four, [0.1, 0.1])
        four_times = _each_call(four, limited_targets(rng, four, count))
    finally:
        gc.enable()
    out["two_bone_single_us"] = {"limited": stats(limited_us), "free": stats(free_us)}
    out["two_bone_ratio"] = float(np.median(limited_us) / np.median(free_us))
    out["four_bone_single_ms"] = {
        "median": 1e3 * float(np.median(four_times)),
        "p99": 1e3 * float(np.quantile(four_times, 0.99)),
        "max": 1e3 * float(four_times.max()),
        "targets": count,
    }
    three = random_limited_chain(rng, 3)
    batch = limited_targets(rng, three, count)
    ikchain.solve(three, batch[:64])
    seconds, _ = timed(lambda: ikchain.solve(three, batch), repeats)
    out["three_bone_batch_us_per_target"] = stats([1e6 * s / count for s in seconds])
    rows = []
    for n in range(2, 7):
        at_best = certified = total = 0
        worst = 0.0
        for _ in range(cases):
            chain = random_limited_chain(rng, n)
            result = ikchain.solve(chain, limited_targets(rng, chain, 2))
            total += 2
            certified += int(result.certified.sum())
            short = result.error - result.min_error
            at_best += int(np.sum(result.certified & (short <= GOAL)))
            worst = max(worst, float(np.max(np.where(result.certified, short, 0.0))))
        rows.append(
            {
                "bones": n,
                "cases": total,
                "certified": certified / total,
                "at_best": at_best / total,
                "worst_excess_m": worst,
            }
        )
    out["dls_at_best"] = rows
    return out


# -- threads ---------------------------------------------------------------------------


def bench_threads(count: int, repeats: int) -> dict[str, Any]:
    """Batches solved per second from one thread and from two side by side.

    Each thread solves its own batches of 3-bone DLS targets with ikchain's own batch
    threads set to one, so the figure says what two callers get from the released
    GIL: the kernels run without it, and a batch's Python (its checks and its
    Result) is paid once per batch, not per target. (Single small solves gain far
    less from a second thread: their Python, which holds the GIL, is as long as the
    kernel.)
    """
    import threading

    from ikchain.solvers import threads as batch_threads

    chain = chain_of(3)
    solver = ikchain.Solver(chain, "dls", tolerance=GOAL)
    size = 256
    batches = [random_reachable(chain, size, 30 + i) for i in range(max(2, count // size))]
    solver.batch(batches[0])

    def work(items: list[np.ndarray]) -> None:
        for targets in items:
            solver.batch(targets)

    def rate(workers_count: int) -> float:
        parts = [batches[i::workers_count] for i in range(workers_count)]
        workers = [threading.Thread(target=work, args=(part,)) for part in parts]
        started = time.perf_counter()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        return len(batches) * size / (time.perf_counter() - started)

    batch_threads.set_threads(1)
    try:
        one, two = [], []
        for _ in range(repeats):
            one.append(rate(1))
            two.append(rate(2))
    finally:
        batch_threads.set_threads(None)
    return {
        "targets_per_s_one_thread": stats(one),
        "targets_per_s_two_threads": stats(two),
        "batch_size": size,
        "ratio": float(np.median(two) / np.median(one)),
        "load_average": os.getloadavg()[0],
    }


# -- options: the blend weight, joint stiffness and tip angle against the plain DLS ------

#: The hand's angle (rad) of the "angle" variant.
HAND_ANGLE = 0.3


#: The options timed against the plain DLS, each in the same run: a blend weight, a
#: finite stiffness, a stiffness that locks the middle joint (which solves on the
#: locked chain, whose two free links reach an annulus in closed form), and the hand's angle
#: (the first two bones' solve for the wrist, then the hand turned to it, at
#: :data:`HAND_ANGLE`).
OPTION_VARIANTS: dict[str, dict[str, Any]] = {
    "plain": {},
    "weight": {"weight": 0.5},
    "stiffness": {"stiffness": [0.0, 1.0, 0.5]},
    "locked": {"stiffness": [0.0, math.inf, 0.5]},
    "angle": {"angle": HAND_ANGLE},
}


def task_path(chain: ikchain.Chain, frames: int, options: dict[str, Any]) -> np.ndarray:
    """A closed drag path (frames, 2) that the task of ``options`` reaches at every frame.

    The tips of a pose moving smoothly: the root sweeping to and fro, each other joint
    bent by a slow sine of its own; a joint that an infinite ``stiffness`` locks stays
    at the bent start's angle (``START_BEND``, where the lock holds it from the first
    frame); with ``angle``, the last joint turns the hand to it. The
    plain solve reaches every such path too, so a ratio on it measures the option, not
    targets that one task reaches and the other does not.
    """
    phase = np.linspace(0.0, 2.0 * math.pi, frames, endpoint=False)
    n = chain.n_bones
    angles = np.empty((frames, n))
    angles[:, 0] = math.pi * np.sin(phase)  # the root sweeps to and fro
    for i in range(1, n):  # the others bend by 0.4 to 1.6 rad, each at its own pace
        angles[:, i] = 1.0 + 0.6 * np.sin((i + 1) * phase + 0.5 * i)
    stiffness = options.get("stiffness")
    if stiffness is not None:
        locked = np.isinf(np.asarray(stiffness, dtype=np.float64))
        angles[:, locked] = START_BEND
    if options.get("angle") is not None:
        angles[:, -1] = options["angle"] - angles[:, :-1].sum(axis=1)
    return ikchain.end_from_angles(chain.lengths, angles)


def bench_options(frames: int, count: int, repeats: int) -> dict[str, Any]:
    """3-bone DLS with each of :data:`OPTION_VARIANTS` (through ``ikchain.solve``, as a
    drag loop and a batch call it), timed in interleaved rounds so that each ratio to
    the plain solve compares figures taken side by side.

    Single: µs per solve along a ``frames``-frame drag path that the variant's task
    reaches at every frame (:func:`task_path`), each from the previous answer, against
    the plain solve along the same path. Batch: ns per target for ``count`` targets
    that every variant's task reaches (:func:`random_reachable` with the hand at
    :data:`HAND_ANGLE`), from the bent start. Each ratio is the median over the rounds
    of that round's ratio.

    Beside them, the targets no task chose: ``"single_wavy_ratio"``, each variant along
    :func:`drag_path` (for the lock and the hand's angle, partly out of their reach)
    against the plain solve along it; and ``"angle_any_target"``, the hand's angle and
    the plain solve on ``count`` tips of uniformly random poses
    (:func:`random_reachable`), many of which no pose reaches with the hand at the
    angle. Unreachable targets cost what they cost DLS anywhere (iterations creeping to
    the nearest pose), so those ratios measure the targets, not the option.
    """
    chain = chain_of(3)
    wavy = drag_path(chain, frames)
    paths = {name: task_path(chain, frames, options) for name, options in OPTION_VARIANTS.items()}
    targets = random_reachable(chain, count, seed=29, hand=HAND_ANGLE)
    solve = ikchain.solve

    def single(options: dict[str, Any], path: np.ndarray) -> Callable[[], Any]:
        def run() -> np.ndarray:
            times = np.empty(len(path))
            previous = None
            clock = time.perf_counter
            for i, target in enumerate(path):
                t0 = clock()
                answer = solve(
                    chain, [target[0], target[1]], "dls", init=previous, tolerance=GOAL, **options
                )
                times[i] = clock() - t0
                previous = answer.angles
            return times

        return run

    def batch(options: dict[str, Any]) -> Callable[[], Any]:
        return functools.partial(solve, chain, targets, "dls", tolerance=GOAL, **options)

    def median_us(options: dict[str, Any], path: np.ndarray) -> float:
        gc.collect()
        gc.disable()
        try:
            return float(np.median(single(options, path)())) * 1e6
        finally:
            gc.enable()

    plain = OPTION_VARIANTS["plain"]
    for name, options in OPTION_VARIANTS.items():  # warm up (the locked chain's Solver too)
        single(options, paths[name])()
        single(options, wavy)()
        solve(chain, targets[:50], "dls", tolerance=GOAL, **options)
    single_us: dict[str, list[float]] = {name: [] for name in OPTION_VARIANTS}
    single_ratios: dict[str, list[float]] = {name: [] for name in OPTION_VARIANTS}
    wavy_us: dict[str, list[float]] = {name: [] for name in OPTION_VARIANTS}
    batch_ns: dict[str, list[float]] = {name: [] for name in OPTION_VARIANTS}
    iterations: dict[str, float] = {}
    for _ in range(repeats):
        for name, options in OPTION_VARIANTS.items():
            mine = median_us(options, paths[name])
            single_us[name].append(mine)
            # (the plain solve along the plain path is this very figure: not timed again)
            baseline = mine if options is plain else median_us(plain, paths[name])
            single_ratios[name].append(mine / baseline)
            wavy_us[name].append(median_us(options, wavy))
            times, result = timed(batch(options), 1)
            batch_ns[name].append(times[0] * 1e9 / count)
            iterations[name] = float(np.mean(result.iterations))
    anywhere = random_reachable(chain, count, seed=29)
    timed(functools.partial(solve, chain, anywhere, "dls", tolerance=GOAL, angle=HAND_ANGLE), 1)
    any_ns: dict[str, list[float]] = {"plain": [], "angle": []}
    unreachable = 0.0
    for _ in range(repeats):
        for name in any_ns:
            options = OPTION_VARIANTS[name]
            times, answer = timed(
                functools.partial(solve, chain, anywhere, "dls", tolerance=GOAL, **options), 1
            )
            any_ns[name].append(times[0] * 1e9 / count)
            iterations[f"any {name}"] = float(np.mean(answer.iterations))
            if name == "angle":
                unreachable = float(np.mean(~np.asarray(answer.reachable)))
    angle_any_target = {
        "batch_ratio": float(np.median(np.array(any_ns["angle"]) / np.array(any_ns["plain"]))),
        "iterations_mean": iterations["any angle"],
        "plain_iterations_mean": iterations["any plain"],
        "unreachable_share": unreachable,
    }
    rows = []
    for name in OPTION_VARIANTS:
        rows.append(
            {
                "option": name,
                "single_us_per_solve": stats(single_us[name]),
                "batch_ns_per_target": stats(batch_ns[name]),
                "single_ratio": float(np.median(single_ratios[name])),
                "single_wavy_ratio": float(
                    np.median(np.array(wavy_us[name]) / np.array(wavy_us["plain"]))
                ),
                "batch_ratio": float(
                    np.median(np.array(batch_ns[name]) / np.array(batch_ns["plain"]))
                ),
                "batch_iterations_mean": iterations[name],
            }
        )
    return {
        "frames": frames,
        "targets": count,
        "rows": rows,
        "angle_any_target": angle_any_target,
    }
