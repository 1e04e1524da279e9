"""Smoke test of ``ikchain bench`` at tiny sizes: it runs, prints, writes JSON.

Times are printed, never asserted.
"""

import json

import numpy as np
import pytest

import ikchain
from ikchain.bench import main, suites
from ikchain.reach import REACH_RATIOS, sweeps_to_tolerance


def test_bench_runs_tiny_and_writes_json(tmp_path, capsys):
    path = tmp_path / "bench.json"
    status = main(
        [
            "--quick",
            "--no-peers",
            "--repeats",
            "1",
            "--analytic-targets",
            "2000",
            "--batch-targets",
            "20",
            "--single-targets",
            "3",
            "--json",
            str(path),
            "--no-startup",
        ]
    )
    assert status == 0
    out = capsys.readouterr().out
    for heading in (
        "Batch analytic",
        "Batch iterative",
        "Convergence against reach",
        "Joint limits",
        "Options against the plain 3-bone DLS",
        "Goals",
    ):
        assert heading in out
    assert "peers: skipped (--no-peers)" in out
    data = json.loads(path.read_text(encoding="utf-8"))
    analytic = data["analytic_batch"]  # the figures agree with the passes they sum
    assert analytic["bare_passes"] == len(analytic["passes"]) > 0
    medians = [p["ns_per_target"]["median"] for p in analytic["passes"]]
    assert analytic["bare_sum_ns_per_target"] == pytest.approx(sum(medians), rel=1e-12)
    assert analytic["ratio_to_bare"] == pytest.approx(
        analytic["whole_ns_per_target"]["median"] / sum(medians), rel=1e-12
    )
    assert {row["method"] for row in data["batch"]} == set(ikchain.solvers.ITERATIVE)
    ours = set(ikchain.METHODS) | {"Solver analytic", "Solver dls"}  # the drag-like calls
    assert {row["solver"] for row in data["single"]} == ours
    for row in data["single"]:
        assert row["us_per_solve"]["low"] <= row["us_per_solve"]["median"]
        assert len(row["rounds"]) == 1  # one round a repeat
    # single solves: 4 through a Solver, 4 through solve(); batch DLS against rtb's cold
    # single solve: 2 bone counts; options: 3 single, 3 batch
    assert len(data["goals"]) == 28
    against_rtb = [g for g in data["goals"] if g["goal"].startswith("batch DLS per target")]
    assert [g["goal"][-9:] for g in against_rtb] == ["(2 bones)", "(3 bones)"]
    assert [row["option"] for row in data["options"]["rows"]] == [
        "plain",
        "weight",
        "stiffness",
        "locked",
        "angle",
    ]
    for row in data["options"]["rows"]:  # the shared wavy path, reported beside
        assert row["single_wavy_ratio"] > 0.0
    # the angle on position-only targets: some no pose reaches with the hand at the angle
    anywhere = data["options"]["angle_any_target"]
    assert 0.0 < anywhere["unreachable_share"] < 1.0
    assert anywhere["iterations_mean"] > 0 and anywhere["batch_ratio"] > 0
    assert all(goal["met"] in (True, False, None) for goal in data["goals"])
    # the benchmarks page renders this very JSON: every table, every row
    pages = render_bench_tables(data)
    assert set(pages) == {
        "machine",
        "analytic",
        "batch",
        "reach",
        "dls-reach",
        "single",
        "limits",
        "threads",
        "options",
        "startup",
        "goals",
    }
    assert len([line for line in pages["options"] if line.startswith("   * - ")]) == 1 + len(
        data["options"]["rows"]
    )
    assert len([line for line in pages["goals"] if line.startswith("   * - ")]) == 1 + len(
        data["goals"]
    )


def render_bench_tables(run: dict) -> dict[str, list[str]]:
    """Each table of the benchmarks page (``docs/_ext/bench_tables.py``) from ``run``,
    which serves as its own baseline."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "docs" / "_ext" / "bench_tables.py"
    spec = importlib.util.spec_from_file_location("bench_tables", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    info = {
        "commit": "now",
        "command": "bench",
        "baseline_commit": "then",
        "baseline_command": "bench",
    }
    return {part: render(run, run, info) for part, render in module.PARTS.items()}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--repeats", "0"], "--repeats: expected repeats from 1 to 1000, got '0'"),
        (["--batch-targets", "many"], "--batch-targets: expected targets from 1 to"),
        (["--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys, args, message):
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "usage:" not in err


def test_a_single_solve_ratio_is_the_median_of_the_rounds_ratios():
    """Two rows timed side by side, round by round: the ratio is the median of the
    rounds' ratios, not the ratio of the medians (which a drift between the rows'
    timings would move); a row recorded without rounds falls back to the medians."""
    from ikchain.bench.suites import single_ratio, stats

    mine = {"rounds": [1.0, 4.0, 9.0], "us_per_solve": stats([1.0, 4.0, 9.0])}
    peer = {"rounds": [2.0, 2.0, 10.0], "us_per_solve": stats([2.0, 2.0, 10.0])}
    assert single_ratio(mine, peer) == pytest.approx(0.9, rel=1e-12)  # of 0.5, 2 and 0.9
    old = {"us_per_solve": peer["us_per_solve"]}  # an earlier run's row
    assert single_ratio(mine, old) == pytest.approx(4.0 / 2.0, rel=1e-12)


def test_sweeps_to_tolerance_returns_rows_per_ratio():
    rows = sweeps_to_tolerance(ikchain.Chain([0.8, 0.6]), ratios=(0.75, 0.93))
    assert [row.ratio for row in rows] == [0.75, 0.93]
    for row in rows:
        assert set(row.iterations) == {"ccd", "fabrik", "dls"}
        assert all(its is not None and its > 0 for its in row.iterations.values())
        assert row.distance == row.ratio * 1.4
        assert row.as_dict()["status"]["dls"] == "converged"
    # the closer to full extension, the more CCD sweeps (the lesson's point)
    assert rows[1].iterations["ccd"] > rows[0].iterations["ccd"]
    assert REACH_RATIOS == (0.75, 0.93, 0.958, 0.988, 0.995, 0.999)


def test_drag_percentiles_include_p95_by_numpys_linear_rule():
    from ikchain.bench.drags import percentiles

    got = percentiles([float(v) for v in range(1, 101)])  # 1 … 100 ms
    # linear interpolation: rank 0.95 · 99 = 94.05 → 95 + 0.05 · (96 − 95)
    assert got["p95"] == pytest.approx(95.05, abs=1e-12)
    assert got["p50"] == pytest.approx(50.5, abs=1e-12) and got["n"] == 100
    assert all(v != v for k, v in percentiles([]).items() if k != "n")  # NaN when empty


def test_the_lesson_bench_offers_a_real_touch_phone_run(capsys):
    from ikchain.bench import lesson

    with pytest.raises(SystemExit):
        lesson.main(["--help"])
    assert "--phone" in capsys.readouterr().out


def test_the_lesson_bench_prints_input_to_paint_for_desktop_and_phone():
    from ikchain.bench import lesson

    def spans(frame_p95):
        block = {"p50": 1.0, "p95": 2.0, "p99": 3.0, "max": 4.0, "n": 10}
        out = {name: dict(block) for name in lesson.REDRAW_SPANS}
        out["event_to_frame"] = {**block, "p95": frame_p95}
        out["event_to_local"] = {**block, "p95": frame_p95 / 2}
        return {**out, "redraws": 10, "pointer_events": 10, "in_floor_frame": frame_p95 / 100}

    results = {
        "frames": 10,
        "warmup_frames": 1,
        "goals_ms": {"server_p99": 2.0, "redraw_p99": 16.0},
        "sections": {
            key: {
                "method": "ccd",
                "bones": 2,
                "iteration_budget": 64,
                "server": {"p50": 0.1, "p99": 0.2, "max": 0.3, "n": 10, "iterations_p50": 3},
                "browser": spans(p95),
                "phone": spans(2 * p95),
            }
            for key, p95 in (("s21", 11.5), ("s22", 14.25))
        },
    }
    text = lesson.format_results(results)
    assert "browser: worst p95 14.25 ms (goal <= 16 ms); floor's worst p95 7.12 ms" in text
    assert "phone: worst p95 28.50 ms (goal <= 33 ms)" in text
    # the least share of answers painted in the floor's frame, over the sections
    assert "floor's frame >= 11.5%" in text and "floor's frame >= 23.0%" in text


def test_the_drag_benches_send_every_live_section_the_page_s_own_request():
    """A bench frame is the page's request for that section (2.8 carries the hand's
    angle): the server answers each one, and 2.8's tip keeps the hand at its angle."""
    import json
    import math

    from ikchain.bench.drags import frame_body, sections
    from ikchain.web.protocol import frame_reply

    states = sections()
    assert any("angle" in state for state in states)  # 2.8 is timed too
    for state in states:
        reply = frame_reply(json.dumps(frame_body(state, state["target"], None)))
        assert reply["ok"], (state["key"], reply.get("error"))
        if "angle" in state:
            joints = reply["frame"]["result"]["joints"]
            (wx, wy), (tx, ty) = joints[-2], joints[-1]
            hand = math.atan2(ty - wy, tx - wx)
            assert abs(math.remainder(hand - state["angle"], math.tau)) < 1e-9


def test_each_task_path_is_reached_by_its_task_and_the_plain_solve():
    """The options bench times each variant along a path its own task reaches (a
    locked joint held at its start angle, the hand at its angle): every frame's
    target is within reach for the variant and for the plain solve, by the annulus
    of the free links (checked here from the path's own numbers) and by the solves."""
    chain = suites.chain_of(3)
    lengths = chain.lengths
    for name, options in suites.OPTION_VARIANTS.items():
        path = suites.task_path(chain, 60, options)
        radius = np.hypot(path[:, 0], path[:, 1])
        assert radius.max() <= lengths.sum() * (1 + 1e-12)
        previous = None
        for target in path:
            answer = ikchain.solve(chain, target.tolist(), "dls", init=previous, **options)
            assert answer.reachable, (name, target)
            assert ikchain.solve(chain, target.tolist(), "dls").reachable
            previous = answer.angles
        if name == "angle":  # the wrist lies in the first two bones' annulus
            wrist = path - lengths[2] * np.array([np.cos(0.3), np.sin(0.3)])
            reach = np.hypot(wrist[:, 0], wrist[:, 1])
            assert np.all(reach <= lengths[0] + lengths[1] + 1e-12)
            assert np.all(reach >= abs(lengths[0] - lengths[1]) - 1e-12)
    # the plain path moves every joint: the targets sweep in and out
    plain = suites.task_path(chain, 60, {})
    radius = np.hypot(plain[:, 0], plain[:, 1]) / lengths.sum()
    assert radius.max() - radius.min() > 0.3
