"""The benchmarks page's tables, as reStructuredText lines, from an ``ikchain bench
--json`` run: plain Python, no Sphinx (``bench_page.py`` places them; the tests render
every one from a fresh run of the bench, so the page and the bench's JSON agree).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ikchain.bench.suites import single_ratio

PEER = "rtb ik_LM (C++)"


def fig(figure: dict[str, float], digits: int = 1, scale: float = 1.0) -> str:
    """``median (lowest–highest)`` of a figure over repeats."""
    low, median, high = (scale * figure[key] for key in ("low", "median", "high"))
    return f"{median:,.{digits}f} ({low:,.{digits}f}–{high:,.{digits}f})"


def ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}×"


def percent(share: float) -> str:
    return f"{100 * share:.2f} %"


def table(header: list[str], rows: list[list[str]], widths: str = "auto") -> list[str]:
    """A ``list-table`` directive's lines."""
    lines = [".. list-table::", "   :header-rows: 1", f"   :widths: {widths}", ""]
    for row in [header, *rows]:
        first, *rest = row
        lines.append(f"   * - {first}")
        lines.extend(f"     - {cell}" for cell in rest)
    return [*lines, ""]


def machine(
    run: dict[str, Any], baseline: dict[str, Any] | None, info: dict[str, str]
) -> list[str]:
    m = run["machine"]
    blas = ", ".join(f"``{k}={v}``" for k, v in m["blas_environment"].items()) or "none"
    rows = [
        ["run started (UTC)", run["when"].replace("T", " ").replace("+00:00", "")],
        ["commit timed", f"``{info['commit']}`` (ikchain {m['ikchain']})"],
        ["command", f"``{info['command']}``"],
        ["machine", f"{m['cpu']}, {m['cores']} cores"],
        ["Python, numpy, numba", f"{m['python']}, {m['numpy']}, {m['numba']}"],
        ["environment", blas],
        ["repeats of each timing", str(run["repeats"])],
        ["whole run", f"{run['seconds']:.0f} s"],
        [
            "load average during the thread timings",
            f"{run['threads']['load_average']:.1f}" if "threads" in run else "—",
        ],
    ]
    if baseline is not None:
        rows.append(
            [
                "baseline",
                f"``{info['baseline_commit']}``, ``{info['baseline_command']}``, started "
                + baseline["when"].replace("T", " ").replace("+00:00", ""),
            ]
        )
    return table(["", ""], rows, "40 60")


def analytic(
    run: dict[str, Any], baseline: dict[str, Any] | None, info: dict[str, str]
) -> list[str]:
    a = run["analytic_batch"]
    rows = [
        [
            f"{a['targets']:,}",
            fig(a["whole_ns_per_target"]),
            f"{a['bare_sum_ns_per_target']:.1f} ({a['bare_passes']} passes)",
            ratio(a["ratio_to_bare"]),
            f"{a['max_error']:.1e}",
        ]
    ]
    header = ["targets", "ikchain, whole result", "bare numpy passes", "ratio", "max error (m)"]
    return table(header, rows)


def batch(run: dict[str, Any], baseline: dict[str, Any] | None, info: dict[str, str]) -> list[str]:
    old = {} if baseline is None else {(r["method"], r["bones"]): r for r in baseline["batch"]}
    rows = []
    for row in sorted(run["batch"], key=lambda r: (r["method"], r["bones"])):
        before = old.get((row["method"], row["bones"]))
        speedup = (
            None
            if before is None
            else before["ns_per_target"]["median"] / row["ns_per_target"]["median"]
        )
        rows.append(
            [
                f"``{row['method']}``",
                str(row["bones"]),
                fig(row["ns_per_target"], 0),
                "—" if before is None else f"{before['ns_per_target']['median']:,.0f}",
                ratio(speedup),
                percent(row["success"]),
                f"{row['iterations_median']:.0f} / {row['iterations_p99']:.0f} / "
                f"{row['iterations_max']}",
            ]
        )
    header = [
        "method",
        "bones",
        "ns per target",
        f"``{info.get('baseline_commit', 'baseline')}``",
        "speed-up",
        "converged",
        "iterations median / p99 / max",
    ]
    return table(header, rows)


def reach(run: dict[str, Any], baseline: dict[str, Any] | None, info: dict[str, str]) -> list[str]:
    methods = list(run["reach"][0]["iterations"])
    rows = []
    for row in run["reach"]:
        its = [
            "—" if row["iterations"][m] is None else f"{row['iterations'][m]:,}" for m in methods
        ]
        rows.append([f"{row['ratio']:.3f}", *its, f"{row['condition']['dls']:.1f}"])
    header = ["d/ΣL", *(f"``{m}``" for m in methods), "condition number at the answer"]
    return table(header, rows)


def dls_reach(
    run: dict[str, Any], baseline: dict[str, Any] | None, info: dict[str, str]
) -> list[str]:
    by_bones: dict[int, list[dict[str, Any]]] = {}
    for row in run["dls_reach"]:
        by_bones.setdefault(row["bones"], []).append(row)
    rows = []
    for bones, group in by_bones.items():
        converged = sum(r["converged"] for r in group)
        total = sum(r["directions"] for r in group)
        worst = max((r["iterations_max"] or 0) for r in group)
        top = max(r["ratio"] for r in group)
        rows.append([str(bones), f"{top:.3f}", f"{converged:,} / {total:,}", str(worst)])
    return table(["bones", "up to d/ΣL", "converged to 1e-9 m", "most iterations"], rows)


def single(run: dict[str, Any], baseline: dict[str, Any] | None, info: dict[str, str]) -> list[str]:
    peer = {(r["bones"], r["mode"]): r for r in run["single"] if r["solver"] == PEER}
    rows = []
    for row in run["single"]:
        other = peer.get((row["bones"], row["mode"]))
        share = None if other is None or row["solver"] == PEER else single_ratio(row, other)
        name = row["solver"]
        rows.append(
            [
                f"``{name}``" if " " not in name else name,
                str(row["bones"]),
                row["mode"],
                fig(row["us_per_solve"], 2),
                ratio(share),
                percent(row["success"]),
                f"{row['max_error']:.1e}",
            ]
        )
    header = [
        "solver",
        "bones",
        "start",
        "µs per solve",
        f"÷ {PEER}",
        "converged",
        "max error (m)",
    ]
    return table(header, rows)


def limits(run: dict[str, Any], baseline: dict[str, Any] | None, info: dict[str, str]) -> list[str]:
    lim = run["limits"]
    two = lim["two_bone_single_us"]
    four = lim["four_bone_single_ms"]
    rows = [
        [
            "2 bones, one solve, limited ÷ free (µs)",
            f"{fig(two['limited'], 2)} ÷ {fig(two['free'], 2)} = {ratio(lim['two_bone_ratio'])}",
        ],
        [
            f"4 bones, one limited solve, {four['targets']:,} targets (ms)",
            f"median {four['median']:.3f}, p99 {four['p99']:.3f}, max {four['max']:.3f}",
        ],
        [
            "3 bones, a batch of limited targets (µs per target)",
            fig(lim["three_bone_batch_us_per_target"], 2),
        ],
    ]
    for row in lim["dls_at_best"]:
        rows.append(
            [
                f"{row['bones']} bones, {row['cases']:,} cases: certified / DLS at the least "
                "distance",
                f"{percent(row['certified'])} / {percent(row['at_best'])}",
            ]
        )
    return table(["", ""], rows, "50 50")


def threads(
    run: dict[str, Any], baseline: dict[str, Any] | None, info: dict[str, str]
) -> list[str]:
    t = run["threads"]  # batches: the kernels release the GIL
    rows = [
        [
            f"batches of {t['batch_size']} 3-bone DLS targets",
            fig(t["targets_per_s_one_thread"], 0),
            fig(t["targets_per_s_two_threads"], 0),
            ratio(t["ratio"]),
        ]
    ]
    return table(["targets per second", "one thread", "two threads", "ratio"], rows)


def options(
    run: dict[str, Any], baseline: dict[str, Any] | None, info: dict[str, str]
) -> list[str]:
    o = run["options"]  # (every run times them: no flag skips them)
    rows = []
    for row in o["rows"]:
        plain = row["option"] == "plain"
        rows.append(
            [
                f"``{row['option']}``",
                fig(row["single_us_per_solve"], 2),
                "—" if plain else ratio(row["single_ratio"]),
                fig(row["batch_ns_per_target"], 0),
                "—" if plain else ratio(row["batch_ratio"]),
                f"{row['batch_iterations_mean']:.2f}",
            ]
        )
    header = [
        "3-bone DLS",
        f"µs per solve, drag of {o['frames']} frames",
        "÷ plain",
        f"ns per target, batch of {o['targets']:,}",
        "÷ plain",
        "iterations (batch)",
    ]
    return table(header, rows, "16 22 10 22 10 20")


def startup(
    run: dict[str, Any], baseline: dict[str, Any] | None, info: dict[str, str]
) -> list[str]:
    s = run.get("startup")
    if s is None:
        return ["This run skipped the start-up timings (``--no-startup``).", ""]
    rows = [
        ["``import ikchain``", fig(s["import_s"], 3)],
        ["``ikchain solve ... --method dls``, wall time", fig(s["cli_solve_warm_s"], 3)],
        ["``compile_kernels()``, numba cache warm", fig(s["compile_kernels_warm_s"], 3)],
    ]
    for method, figure in s["first_solve_after_compile_s"].items():
        rows.append(
            [f"first ``{method}`` solve after ``compile_kernels()`` (ms)", fig(figure, 3, 1e3)]
        )
    if "cli_solve_cold_s" in s:
        rows.append(["``ikchain solve``, numba cache empty", f"{s['cli_solve_cold_s']:.1f}"])
        rows.append(
            ["``compile_kernels()``, numba cache empty", f"{s['compile_kernels_cold_s']:.1f}"]
        )
    return table(["fresh process", "seconds, unless stated"], rows, "60 40")


def goals(run: dict[str, Any], baseline: dict[str, Any] | None, info: dict[str, str]) -> list[str]:
    verdict = {True: "met", False: "**missed**", None: "not measured"}
    rows = [[g["goal"].replace("*", r"\*"), g["measured"], verdict[g["met"]]] for g in run["goals"]]
    return table(["goal", "measured", ""], rows, "50 35 15")


PARTS: dict[str, Callable[[dict[str, Any], dict[str, Any] | None, dict[str, str]], list[str]]] = {
    "machine": machine,
    "analytic": analytic,
    "batch": batch,
    "reach": reach,
    "dls-reach": dls_reach,
    "single": single,
    "limits": limits,
    "threads": threads,
    "options": options,
    "startup": startup,
    "goals": goals,
}
