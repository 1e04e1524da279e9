"""The command line: JSON for programs, text for people, exit 2 on bad arguments."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from conftest import two_bone_end
from ikchain.cli import main


def run_json(capsys, *args):
    assert main(["solve", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("method", ["analytic", "ccd", "fabrik", "dls"])
def test_json_answer_reaches_target(capsys, method):
    data = run_json(capsys, "--lengths", "0.8,0.6", "--target", "1.0,0.5", "--method", method)
    for key in (
        "angles",
        "angles_deg",
        "joints",
        "end",
        "error",
        "iterations",
        "status",
        "reachable",
        "min_error",
    ):
        assert key in data
    a0, da = data["angles"]
    np.testing.assert_allclose(two_bone_end(0.8, 0.6, a0, da), [1.0, 0.5], atol=1e-9)
    np.testing.assert_allclose(data["angles_deg"], np.degrees(data["angles"]), rtol=1e-15)
    assert data["status"] == "converged" and data["reachable"] is True
    assert data["error"] <= 1e-9 and data["min_error"] == 0.0


def test_json_straight_arm(capsys):
    data = run_json(capsys, "--lengths", "0.8,0.6", "--target", "1.4,0", "--method", "analytic")
    assert data["angles"] == [0.0, 0.0] and data["error"] == 0.0


def test_json_out_of_reach(capsys):
    data = run_json(
        capsys, "--lengths", "0.8,0.6", "--target", "0,2", "--method", "dls", "--iterations", "500"
    )
    assert data["status"] == "unreachable" and data["reachable"] is False
    assert data["min_error"] == pytest.approx(0.6, abs=1e-15)
    assert data["angles"][0] == pytest.approx(math.pi / 2, abs=1e-4)


def test_json_options_are_passed_through(capsys):
    data = run_json(
        capsys,
        "--lengths",
        "0.8,0.6",
        "--target",
        "1.0,0",
        "--method",
        "ccd",
        "--init",
        "0,0",
        "--iterations",
        "7",
        "--trace",
    )
    assert data["status"] == "stalled" and len(data["trace"]) == data["iterations"] + 1
    data = run_json(
        capsys,
        "--lengths",
        "0.8,0.6",
        "--target",
        "0.9,0.6",
        "--method",
        "ccd",
        "--iterations",
        "3",
        "--damping",
        "0.5",
        "--tolerance",
        "1e-6",
    )
    assert data["iterations"] == 3


def test_text_output_is_in_degrees(capsys):
    assert main(["solve", "--lengths", "0.8,0.6", "--target", "0,1.4", "--method", "analytic"]) == 0
    out = capsys.readouterr().out
    assert "90.0000°, 0.0000°" in out and "converged" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--lengths", "0.8,-0.6", "--target", "1,0"], "expected every length > 0"),
        (["--lengths", "0.8,x", "--target", "1,0"], "expected comma-separated numbers"),
        (["--lengths", "0.8,0.6", "--target", "1,0,0"], "target: expected shape (..., 2)"),
        (["--lengths", "0.8,0.6", "--target", "nan,0"], "target: expected finite numbers"),
        (
            ["--lengths", "0.8,0.6", "--target", "1,0", "--iterations", "-3", "--method", "ccd"],
            "max_iterations: expected a non-negative integer, got -3",
        ),
        (["--lengths", "0.8,0.6", "--target", "1,0", "--method", "newton"], "invalid choice"),
        (
            ["--lengths", "0.8,0.6,0.4", "--target", "1,0", "--method", "analytic"],
            "expected a 2-bone chain, got 3 bones",
        ),
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys, args, message):
    with pytest.raises(SystemExit) as exit_info:
        status = main(["solve", *args])
        raise SystemExit(status)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_installed_command_runs():
    done = subprocess.run(
        [sys.executable, "-m", "ikchain", "solve", "--lengths", "0.8,0.6", "--target", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_lesson_command_serves_the_page_on_loopback():
    """The README's first command: `ikchain lesson` prints its URL and serves the page."""
    import socket
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "ikchain", "lesson", "--no-browser", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = server.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/?lang=en", timeout=30) as r:
                    assert r.status == 200 and "fig-s24" in r.read().decode()
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None
                time.sleep(0.1)
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_bench_help_is_the_bench_parser(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "--help"])
    assert exit_info.value.code == 0
    assert "--quick" in capsys.readouterr().out
