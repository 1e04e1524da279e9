"""The benchmark suite behind ``ikchain bench``: our solvers and the peers, same run.

``main(argv)`` runs the measurements of :mod:`ikchain.bench.suites`, prints one table
per figure (median over repeats, the lowest and highest repeat, and ratios to
baselines timed in the same run), checks the goals of the performance issue, and
writes everything as JSON. Nothing here is a unit test and nothing asserts a time.

:func:`ikchain.reach.sweeps_to_tolerance` is the convergence-against-reach
computation shared with the lesson's table 2b.

Run it single-threaded and on a quiet machine; with ``--quick`` it takes seconds
(tiny sizes, fewer repeats: for smoke tests, not for quoting).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import ikchain
from ikchain.bench import suites
from ikchain.bench.peers import load_peers
from ikchain.reach import sweeps_to_tolerance

DEFAULT_JSON = Path("bench-results") / "latest.json"


def build_parser() -> argparse.ArgumentParser:
    from ikchain.arguments import OneLineParser, integer_in

    parser = OneLineParser(
        prog="ikchain bench",
        description="Time ikchain's solvers and, when installed, ikpy and roboticstoolbox-python.",
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes, 2 repeats (smoke test)")
    parser.add_argument(
        "--repeats",
        type=integer_in(1, 1000, "repeats"),
        help="repeats of each timing (default 5; quick 2)",
    )
    parser.add_argument(
        "--json",
        type=Path,
        default=DEFAULT_JSON,
        help=f"where to write the results (default {DEFAULT_JSON})",
    )
    parser.add_argument("--no-peers", action="store_true", help="skip ikpy and roboticstoolbox")
    parser.add_argument(
        "--analytic-targets",
        type=integer_in(1, 10**8, "targets"),
        help="batch analytic size (default 10^6; quick 10^5)",
    )
    parser.add_argument(
        "--batch-targets",
        type=integer_in(1, 10**7, "targets"),
        help="batch CCD/FABRIK/DLS size (default 10^4; quick 500)",
    )
    parser.add_argument(
        "--single-targets",
        type=integer_in(1, 10**6, "targets"),
        help="single solves per mode (default 200; quick 20)",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="JSON of an earlier 'ikchain bench' (e.g. of an older commit, run in the same "
        "session) to compare the batch figures with",
    )
    parser.add_argument(
        "--no-startup", action="store_true", help="skip the fresh-process start-up timings"
    )
    parser.add_argument(
        "--cold-cache",
        action="store_true",
        help="also time start-up with an empty numba cache (compiles every kernel: a minute)",
    )
    return parser


def machine() -> dict[str, Any]:
    """What the figures ran on."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    blas = {
        k: v for k, v in os.environ.items() if k.startswith(("OPENBLAS", "OMP_", "MKL_", "NUMBA_"))
    }
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": importlib.metadata.version("numba"),
        "ikchain": ikchain.__version__,
        "platform": platform.platform(),
        "blas_environment": blas,
    }


def run(args: argparse.Namespace, out=None) -> dict[str, Any]:
    """Run every measurement, printing as it goes; return the data written as JSON."""
    out = sys.stdout if out is None else out
    quick = args.quick
    repeats = args.repeats or (2 if quick else 5)
    analytic_n = args.analytic_targets or (100_000 if quick else 1_000_000)
    batch_n = args.batch_targets or (500 if quick else 10_000)
    single_n = args.single_targets or (20 if quick else 200)
    frames = 40 if quick else 300
    started = time.perf_counter()

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    info = machine()
    say(f"ikchain bench{' --quick' if quick else ''}: {info['cpu']}, {info['cores']} cores, ")
    say(f"  Python {info['python']}, numpy {info['numpy']}, numba {info['numba']}, ")
    say(f"  repeats {repeats}; batches run a thread per core, single solves on one;")
    say("  figures are the median over repeats [lowest-highest repeat]")
    data: dict[str, Any] = {
        "command": "ikchain bench" + (" --quick" if quick else ""),
        "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": info,
        "repeats": repeats,
    }

    # 1. batch analytic against the bare passes of its formula
    analytic = suites.bench_analytic(analytic_n, repeats)
    data["analytic_batch"] = analytic
    whole = analytic["whole_ns_per_target"]
    say()
    say(f"Batch analytic two-bone, {analytic_n} targets, whole result (ns/target)")
    say(f"  ikchain.solve(..., 'analytic')   {_fig(whole)}")
    say(
        f"  bare sum of the {analytic['bare_passes']} numpy passes of the angle formula  "
        f"{analytic['bare_sum_ns_per_target']:.1f}"
        f"   (sqrt and atan2 passes alone {analytic['transcendental_passes_ns_per_target']:.1f})"
    )
    say(f"  ratio whole / bare               {analytic['ratio_to_bare']:.2f}x")

    # 2. batch iterative
    bones = (2, 3, 4, 8)
    batch = suites.bench_batch(bones, ("ccd", "fabrik", "jt", "dls"), batch_n, repeats)
    dls_more = suites.bench_batch(
        (5, 6, 7), ("dls",), batch_n, max(1, repeats // 2) if not quick else 1
    )
    data["batch"] = batch + dls_more
    say()
    say(f"Batch iterative solves to 1e-9 from the bent start, {batch_n} random reachable targets")
    say(
        f"  {'method':7} {'bones':>5} {'ns/target':>28} {'success':>8} "
        f"{'iterations med/p99/max':>24}"
    )
    for row in batch + dls_more:
        counts = (
            f"{row['iterations_median']:.0f}/{row['iterations_p99']:.0f}/{row['iterations_max']}"
        )
        say(
            f"  {row['method']:7} {row['bones']:>5} {_fig(row['ns_per_target'], 0):>28} "
            f"{100 * row['success']:7.2f}% {counts:>24}"
        )

    # 3. convergence against reach
    reach_rows = sweeps_to_tolerance(suites.chain_of(2))
    data["reach"] = [row.as_dict() for row in reach_rows]
    say()
    say("Convergence against reach, L = (0.8, 0.6), bent start: iterations to 1e-9")
    say(f"  {'d/ΣL':>6} {'ccd':>7} {'fabrik':>7} {'dls':>5} {'cond(J)':>9}")
    for reach_row in reach_rows:
        its: list[int | None] = [reach_row.iterations[m] for m in ("ccd", "fabrik", "dls")]
        cells = " ".join(f"{'-' if i is None else i:>7}" for i in its[:2])
        say(
            f"  {reach_row.ratio:6.3f} {cells} {its[2] if its[2] is not None else '-':>5} "
            f"{reach_row.condition['dls']:9.1f}"
        )
    dls_reach = suites.bench_dls_reach(range(2, 9), 16 if quick else 64)
    data["dls_reach"] = dls_reach
    worst = max((r["iterations_max"] or 10**9) for r in dls_reach)
    said = sum(r["converged"] for r in dls_reach), sum(r["directions"] for r in dls_reach)
    say(
        f"  DLS, 2-8 bones, {dls_reach[0]['directions']} directions per d/ΣL: "
        f"{said[0]}/{said[1]} converged, at most {worst} iterations"
    )

    # 4. single solves, ours and the peers'
    peers_for = None if args.no_peers else (lambda chain: load_peers(chain.lengths.tolist()))
    single, notes = suites.bench_single(
        (2, 3), ("analytic", "ccd", "fabrik", "jt", "dls"), single_n, frames, repeats, peers_for
    )
    data["single"] = single
    data["peer_notes"] = notes
    say()
    say(
        f"Single solves through the public API (µs per solve): cold = {single_n} random "
        f"targets from the bent start; warm = {frames}-frame drag path from the previous pose"
    )
    for note in notes:
        say(f"  {note}")
    if args.no_peers:
        say("  peers: skipped (--no-peers)")
    say(
        f"  {'solver':24} {'bones':>5} {'mode':>5} {'µs/solve':>26} {'success':>8} "
        f"{'max error':>10}"
    )
    for row in single:
        say(
            f"  {row['solver']:24} {row['bones']:>5} {row['mode']:>5} "
            f"{_fig(row['us_per_solve'], 2):>26} {100 * row['success']:7.1f}% "
            f"{row['max_error']:10.1e}"
        )

    # 5. joint limits: reach search and solve
    limits = suites.bench_limits(500 if quick else 10_000, 10 if quick else 250, repeats)
    data["limits"] = limits
    say()
    say("Joint limits (random chains and limits; half the targets reachable)")
    two = limits["two_bone_single_us"]
    say(
        f"  2 bones, single default solve (µs): limited {_fig(two['limited'], 2)}, "
        f"free {_fig(two['free'], 2)}, ratio {limits['two_bone_ratio']:.2f}x"
    )
    four = limits["four_bone_single_ms"]
    say(
        f"  4 bones, single limited solve over {four['targets']} targets (ms): median "
        f"{four['median']:.3f}, p99 {four['p99']:.3f}, max {four['max']:.3f}"
    )
    batch_us = _fig(limits["three_bone_batch_us_per_target"], 2)
    say(f"  3 bones, batch of {500 if quick else 10_000} limited targets (µs/target): {batch_us}")
    say(f"  {'bones':>5} {'cases':>6} {'certified':>10} {'DLS at the least distance':>26}")
    for row in limits["dls_at_best"]:
        say(
            f"  {row['bones']:>5} {row['cases']:>6} {100 * row['certified']:9.2f}% "
            f"{100 * row['at_best']:25.2f}%"
        )

    threads = suites.bench_threads(2_000 if quick else 40_000, repeats)
    data["threads"] = threads
    say(
        f"  batches of {threads['batch_size']} 3-bone DLS targets, targets/s: one thread "
        f"{_fig(threads['targets_per_s_one_thread'], 0)}, two threads "
        f"{_fig(threads['targets_per_s_two_threads'], 0)}, ratio "
        f"{threads['ratio']:.2f}x (load average {threads['load_average']:.1f})"
    )

    # 5b. options against the plain DLS, in the same run
    options = suites.bench_options(frames, batch_n, repeats)
    data["options"] = options
    say()
    say(
        f"Options against the plain 3-bone DLS (through ikchain.solve, interleaved rounds): "
        f"single = a {options['frames']}-frame drag path each task reaches (the plain "
        f"solve along the same), batch = {options['targets']} targets"
    )
    say(
        f"  {'option':10} {'µs/solve':>24} {'ratio':>6} {'ns/target (batch)':>26} "
        f"{'ratio':>6} {'iterations':>10}"
    )
    for row in options["rows"]:
        say(
            f"  {row['option']:10} {_fig(row['single_us_per_solve'], 2):>24} "
            f"{row['single_ratio']:5.2f}x {_fig(row['batch_ns_per_target'], 0):>26} "
            f"{row['batch_ratio']:5.2f}x {row['batch_iterations_mean']:10.2f}"
        )
    wavy = ", ".join(
        f"{row['option']} {row['single_wavy_ratio']:.2f}x"
        for row in options["rows"]
        if row["option"] != "plain"
    )
    say("  (single along one wavy path at 0.5-0.9 of the reach, partly beyond the lock's and")
    say(f"  the angle's: {wavy} the plain solve along it)")
    anywhere = options["angle_any_target"]
    say(
        f"  (angle on tips of random poses, {100 * anywhere['unreachable_share']:.0f}% not "
        f"reachable with the hand at the angle: batch {anywhere['batch_ratio']:.2f}x the "
        f"plain solve of the same targets, {anywhere['iterations_mean']:.2f} iterations "
        f"against {anywhere['plain_iterations_mean']:.2f})"
    )

    # 6. start-up, in fresh processes
    if not args.no_startup:
        startup = suites.bench_startup(1 if quick else 3, args.cold_cache)
        data["startup"] = startup
        say()
        say("Start-up in fresh processes (s): median [lowest-highest]")
        say(f"  import ikchain                          {_fig(startup['import_s'], 3)}")
        say(f"  ikchain solve ... --method dls (wall)    {_fig(startup['cli_solve_warm_s'], 3)}")
        warm = _fig(startup["compile_kernels_warm_s"], 3)
        say(f"  compile_kernels(), cache warm           {warm}")
        for method, figure in startup["first_solve_after_compile_s"].items():
            say(f"  first {method:8} solve after compile_kernels  {_fig(figure, 4)}")
        if "cli_solve_cold_s" in startup:
            say(f"  ikchain solve, numba cache empty         {startup['cli_solve_cold_s']:.1f}")
            cold = startup["compile_kernels_cold_s"]
            say(f"  compile_kernels(), numba cache empty     {cold:.1f}")

    # 7. goals
    baseline = getattr(args, "baseline_data", None)
    if baseline is None and args.baseline is not None:
        baseline = read_baseline(args.baseline)
    if baseline is not None:
        data["baseline"] = {"path": str(args.baseline), "when": baseline.get("when")}
    goals = evaluate_goals(data, baseline)
    data["goals"] = goals
    say()
    say("Goals")
    for goal in goals:
        verdict = {True: "met   ", False: "MISSED", None: "n/a   "}[goal["met"]]
        say(f"  {verdict} {goal['goal']}: {goal['measured']}")
    data["seconds"] = time.perf_counter() - started
    say()
    say(f"{data['seconds']:.0f} s")
    return data


def _fig(figure: dict[str, float], digits: int = 1) -> str:
    return f"{figure['median']:.{digits}f} [{figure['low']:.{digits}f}-{figure['high']:.{digits}f}]"


def _single(data, solver, bones, mode):
    for row in data["single"]:
        if row["solver"] == solver and row["bones"] == bones and row["mode"] == mode:
            return row
    return None


def _ratio_goal(text: str, mine: Any, peer: Any, limit: float) -> dict[str, Any]:
    if mine is None or peer is None:
        return {"goal": text, "ratio": None, "met": None, "measured": "peer absent"}
    ours, theirs = mine["us_per_solve"]["median"], peer["us_per_solve"]["median"]
    ratio = suites.single_ratio(mine, peer)
    return {
        "goal": text,
        "ratio": ratio,
        "met": ratio <= limit,
        "measured": (
            f"{ours:.2f} µs vs {theirs:.2f} µs (medians); {ratio:.2f}x, the median "
            "of the rounds' ratios"
        ),
    }


def evaluate_goals(
    data: dict[str, Any], baseline: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Each goal of the performance issues, met or missed, with its measured ratio."""
    goals = []
    ratio = data["analytic_batch"]["ratio_to_bare"]
    goals.append(
        {
            "goal": "batch analytic 10^6, whole result <= 1.5x the bare numpy angle passes",
            "ratio": ratio,
            "met": ratio <= 1.5,
            "measured": f"{ratio:.2f}x",
        }
    )
    cpp = "rtb ik_LM (C++)"
    # (goal, our row's solver name, its mode, the peer's mode, the ratio allowed)
    for prefix, warm, cold, closed in (
        (suites.SOLVER_PREFIX, 0.4, 0.25, 0.2),
        ("", 0.6, 0.3, 0.3),
    ):
        through = "a Solver" if prefix else "solve()"
        for bones in (2, 3):
            goals.append(
                _ratio_goal(
                    f"single DLS warm through {through} <= {warm}x rtb ik_LM warm ({bones} bones)",
                    _single(data, prefix + "dls", bones, "warm"),
                    _single(data, cpp, bones, "warm"),
                    warm,
                )
            )
        goals.append(
            _ratio_goal(
                f"single DLS cold through {through} <= {cold}x rtb ik_LM cold (2 bones)",
                _single(data, prefix + "dls", 2, "cold"),
                _single(data, cpp, 2, "cold"),
                cold,
            )
        )
        goals.append(
            _ratio_goal(
                f"single analytic through {through} <= {closed}x rtb ik_LM warm (2 bones)",
                _single(data, prefix + "analytic", 2, "cold"),
                _single(data, cpp, 2, "warm"),
                closed,
            )
        )
    for bones in (2, 3):  # a batch's wall time per target against one cold peer solve
        text = f"batch DLS per target <= 0.05x rtb ik_LM cold ({bones} bones)"
        peer = _single(data, cpp, bones, "cold")
        rows = [r for r in data["batch"] if r["method"] == "dls" and r["bones"] == bones]
        if peer is None or not rows:
            goals.append({"goal": text, "ratio": None, "met": None, "measured": "peer absent"})
            continue
        ours, theirs = rows[0]["ns_per_target"]["median"] / 1e3, peer["us_per_solve"]["median"]
        goals.append(
            {
                "goal": text,
                "ratio": ours / theirs,
                "met": ours / theirs <= 0.05,
                "measured": f"{ours:.2f} µs vs {theirs:.2f} µs = {ours / theirs:.3f}x",
            }
        )
    for method in ("dls", "ccd", "fabrik"):
        text = f"batch {method} per target >= 3x faster than the baseline (every bone count)"
        old = [] if baseline is None else [r for r in baseline["batch"] if r["method"] == method]
        if not old:
            goals.append({"goal": text, "ratio": None, "met": None, "measured": "no --baseline"})
            continue
        speedups = []
        for row in data["batch"]:
            match = [r for r in old if r["bones"] == row["bones"]]
            if row["method"] == method and match:
                before = match[0]["ns_per_target"]["median"]
                speedups.append((before / row["ns_per_target"]["median"], row["bones"]))
        worst = min(speedups)
        goals.append(
            {
                "goal": text,
                "ratio": worst[0],
                "met": worst[0] >= 3.0,
                "measured": ", ".join(f"{b} bones {x:.1f}x" for x, b in speedups),
            }
        )
    dls_rows = [r for r in data["batch"] if r["method"] == "dls"]
    failures = sum(r["failures"] for r in dls_rows)
    total = sum(r["targets"] for r in dls_rows)
    goals.append(
        {
            "goal": f"DLS 100% success to 1e-9 on {dls_rows[0]['targets']} targets, 2-8 bones",
            "ratio": 1 - failures / total,
            "met": failures == 0,
            "measured": f"{total - failures}/{total}",
        }
    )
    worst_its = [r["iterations_max"] for r in data["dls_reach"]]
    unconverged = sum(r["directions"] - r["converged"] for r in data["dls_reach"])
    top = max((w for w in worst_its if w is not None), default=None)
    goals.append(
        {
            "goal": "DLS <= 12 iterations at d/ΣL <= 0.999 from the bent start (2-8 bones)",
            "ratio": top,
            "met": unconverged == 0 and top is not None and top <= 12,
            "measured": f"max {top} iterations, {unconverged} not converged",
        }
    )
    limits = data.get("limits")
    if limits is not None:
        ratio = limits["two_bone_ratio"]
        goals.append(
            {
                "goal": "limited single solve, 2 bones <= 1.5x the free single DLS",
                "ratio": ratio,
                "met": ratio <= 1.5,
                "measured": f"{ratio:.2f}x",
            }
        )
        p99 = limits["four_bone_single_ms"]["p99"]
        goals.append(
            {
                "goal": "limited single solve, 4 bones, p99 <= 1 ms",
                "ratio": p99,
                "met": p99 <= 1.0,
                "measured": f"{p99:.3f} ms",
            }
        )
        per = limits["three_bone_batch_us_per_target"]["median"]
        goals.append(
            {
                "goal": "batch of 10^4 limited targets, 3 bones <= 20 µs per target",
                "ratio": per,
                "met": per <= 20.0,
                "measured": f"{per:.2f} µs",
            }
        )
        rows = limits["dls_at_best"]
        share = sum(r["at_best"] * r["cases"] for r in rows) / sum(r["cases"] for r in rows)
        goals.append(
            {
                "goal": "DLS ends within 1e-9 m of the least distance on >= 99.9% (2-6 bones)",
                "ratio": share,
                "met": share >= 0.999,
                "measured": f"{100 * share:.2f}%",
            }
        )
    options = data.get("options")
    if options is not None:
        by_name = {row["option"]: row for row in options["rows"]}
        for name in ("weight", "stiffness", "angle"):
            for kind in ("single", "batch"):
                ratio = by_name[name][f"{kind}_ratio"]
                goals.append(
                    {
                        "goal": f"{kind} DLS with {name} <= 1.2x the plain {kind} DLS (3 bones)",
                        "ratio": ratio,
                        "met": ratio <= 1.2,
                        "measured": f"{ratio:.2f}x",
                    }
                )
    threads = data.get("threads")
    if threads is not None:
        goals.append(
            {
                "goal": "two threads solving batches >= 1.8x the targets/s of one",
                "ratio": threads["ratio"],
                "met": threads["ratio"] >= 1.8,
                "measured": (
                    f"{threads['ratio']:.2f}x at load average {threads['load_average']:.1f}"
                ),
            }
        )
    startup = data.get("startup")
    text = "first solve after the lesson's start-up (compile_kernels) <= 16 ms"
    if startup is None:
        goals.append({"goal": text, "ratio": None, "met": None, "measured": "--no-startup"})
    else:
        firsts = startup["first_solve_after_compile_s"]
        slowest = max(figure["median"] for figure in firsts.values())
        goals.append(
            {
                "goal": text,
                "ratio": slowest * 1e3,
                "met": slowest <= 0.016,
                "measured": ", ".join(
                    f"{m} {1e3 * figure['median']:.2f} ms" for m, figure in firsts.items()
                ),
            }
        )
    return goals


def read_baseline(path: Path) -> dict[str, Any]:
    """An earlier run's JSON (``--baseline``), checked to hold what the goals compare:
    ``batch``, a list of rows with ``method``, ``bones`` and ``ns_per_target.median``.

    Raises
    ------
    ValueError
        With one line saying what was expected and what the file holds.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ValueError(f"--baseline: cannot read {path} ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise ValueError(f"--baseline: expected JSON text in {path}, got binary data") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ValueError(
            f"--baseline: expected the JSON of an earlier 'ikchain bench' in {path}, "
            f"got invalid JSON ({error})"
        ) from None
    rows = data.get("batch") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not all(
        isinstance(row, dict)
        and isinstance(row.get("method"), str)
        and isinstance(row.get("bones"), int)
        and isinstance(row.get("ns_per_target"), dict)
        and isinstance(row["ns_per_target"].get("median"), int | float)
        for row in rows
    ):
        raise ValueError(
            f"--baseline: expected an earlier 'ikchain bench' JSON in {path} (an object whose "
            "'batch' lists rows with method, bones and ns_per_target.median), got another shape"
        )
    return data


def unwritable(path: Path) -> str | None:
    """Why results cannot be written to ``path`` (checked before a long run), or None."""
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return f"cannot create {parent} ({error.strerror or error})"
    if path.is_dir():
        return f"{path} is a directory"
    target = path if path.exists() else parent
    if not os.access(target, os.W_OK):
        return f"cannot write {path} (permission denied)"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """``ikchain bench [--quick] [--repeats N] [--json PATH] [--no-peers] ...``; exit status.

    The ``--baseline`` file and the ``--json`` path are checked before the benchmark
    runs: a bad one is one line on stderr and exit status 2, not a traceback after it."""
    args = build_parser().parse_args(argv)  # a bad argument: one line, exit 2
    path: Path = args.json
    try:
        if args.baseline is not None:
            args.baseline_data = read_baseline(args.baseline)
        why = unwritable(path)
        if why is not None:
            raise ValueError(f"--json: {why}")
    except ValueError as error:
        print(f"ikchain bench: error: {error}", file=sys.stderr)
        return 2
    data = run(args)
    try:
        path.write_text(json.dumps(data, indent=1, default=_plain) + "\n", encoding="utf-8")
    except OSError as error:
        print(f"ikchain bench: error: --json: cannot write {path} ({error})", file=sys.stderr)
        return 1
    print(f"wrote {path}")
    return 0


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(type(value).__name__)
