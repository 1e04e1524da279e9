"""Edges of the library a hostile or unlucky caller reaches."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ikchain


@pytest.mark.parametrize(
    ("lengths", "target"),
    [([1.0, 1e17], [1e17, 0.5]), ([1.0, 1e-17], [0.5, 0.5]), ([1e20, 1.0], [1e20, 3.0])],
)
def test_bones_of_very_different_lengths_give_finite_honest_answers(lengths, target) -> None:
    """With bones 1e17 : 1 the annulus has no width in floats; the closed form must
    still answer with finite numbers (the chain straight toward the target), and its
    error equals the tip's distance computed here from the joints."""
    result = ikchain.solve(ikchain.Chain(lengths), target, "analytic")
    for field in (result.angles, result.joints):
        assert np.all(np.isfinite(field))
    assert math.isfinite(result.error) and math.isfinite(result.min_error)
    tip = result.joints[-1]
    assert result.error == pytest.approx(math.dist(tip, target), rel=1e-12, abs=1e-300)
    assert result.error >= result.min_error - 1e-15 * sum(lengths)


def test_an_empty_batch_with_a_trace_is_an_empty_result() -> None:
    """Zero targets with trace=True: empty arrays of the documented shapes, no error."""
    result = ikchain.solve(ikchain.Chain([1.0, 1.0]), np.zeros((0, 2)), "dls", trace=True)
    assert result.angles.shape == (0, 2) and result.error.shape == (0,)
    assert result.trace is not None and result.trace.shape[0] == 0
    assert result.trace_angles is not None and result.trace_angles.shape[0] == 0


@pytest.mark.parametrize("bend", [1.0, -1.0, np.float64(1.0), True])
def test_bend_is_an_integer(bend) -> None:
    """bend is +1 or -1 as an integer: 1.0 and True are refused, naming what was given."""
    with pytest.raises(ValueError, match="bend: expected"):
        ikchain.solve(ikchain.Chain([1.0, 1.0]), [1.0, 0.5], "analytic", bend=bend)


def test_one_target_with_several_start_poses_compiles_nothing_new() -> None:
    """One target broadcast against a batch of start poses runs the kernels compiled at
    start-up; a Fortran-ordered copy of the targets made numba compile another version
    for seconds, in the middle of a request."""
    from ikchain.solvers import compile_kernels, loop

    compile_kernels()
    before = {k: len(k.signatures) for k in loop.SOLVE.values()}
    chain = ikchain.Chain([1.0, 1.0])
    starts = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])
    result = ikchain.solve(chain, np.array([1.0, 0.5]), init=starts)
    assert np.all(result.converged)
    ikchain.solve(chain, np.array([1.0, 0.5]), init=np.tile(starts, (20, 1)))  # on threads
    after = {k: len(k.signatures) for k in before}
    assert after == before


# -- Item 7: the benchmark's files are checked before the benchmark runs ---------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "--baseline: cannot read"),
        ("not json", "got invalid JSON"),
        ('{"batch": [{"method": "dls"}]}', "got another shape"),
        ("[1, 2]", "got another shape"),
    ],
)
def test_a_bad_baseline_is_one_line_before_any_benchmark(
    tmp_path, monkeypatch, capsys, content, message
):
    """``ikchain bench --baseline FILE`` read the file only after the whole benchmark,
    then died with a traceback."""
    import ikchain.bench as bench

    def never(*args: object) -> None:
        raise AssertionError("the benchmark ran")

    monkeypatch.setattr(bench, "run", never)
    path = tmp_path / "old.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    status = bench.main(["--baseline", str(path), "--json", str(tmp_path / "new.json")])
    err = capsys.readouterr().err
    assert status == 2
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_bench_caps_json_to_an_unwritable_path_is_one_line(tmp_path, monkeypatch, capsys):
    from ikchain.bench import server

    def never() -> None:
        raise AssertionError("the benchmark ran")

    monkeypatch.setattr(server, "time_caps", never)
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    status = server.caps_main(["--json", str(blocker / "caps.json")])  # parent is a file
    err = capsys.readouterr().err
    assert status == 2 and "--json: cannot create" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("host", "bound", "shown"),
    [
        ("0", "0.0.0.0", "127.0.0.1"),  # printed http://0:PORT/ before
        ("0.0.0.0", "0.0.0.0", "127.0.0.1"),
        ("::", "::", "127.0.0.1"),
        ("localhost", "127.0.0.1", "localhost"),
        ("::1", "::1", "[::1]"),
        ("192.0.2.7", "192.0.2.7", "192.0.2.7"),
    ],
)
def test_the_printed_url_is_one_a_browser_opens(host: str, bound: str, shown: str) -> None:
    from ikchain.cli import url_host

    assert url_host(host, bound) == shown
