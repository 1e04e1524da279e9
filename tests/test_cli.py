"""The command line: JSON for programs, text for people, exit 2 on bad arguments."""

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import two_bone_end
from ikchain.cli import main


def run_json(capsys, *args):
    assert main(["solve", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("method", ["analytic", "ccd", "fabrik", "jt", "dls"])
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


def test_json_soft_reach_stops_short_and_says_so(capsys):
    """At d = ΣL the eased distance is ΣL - s/e (closed form), so the tip stops s/e short."""
    data = run_json(
        capsys, "--lengths", "0.8,0.6", "--target", "1.4,0", "--method", "analytic", "--soft", "0.2"
    )
    assert data["status"] == "softened" and data["reachable"] is True
    assert data["error"] == pytest.approx(0.2 / math.e, abs=1e-12)
    assert data["min_error"] == 0.0
    assert math.hypot(*data["end"]) == pytest.approx(1.4 - 0.2 / math.e, abs=1e-12)


def test_json_pole_bends_the_elbow_toward_it(capsys):
    for pole, sign in (("0.3,-1", -1.0), ("0.3,1", 1.0)):
        data = run_json(
            capsys, "--lengths", "0.8,0.6", "--target", "1.0,0", "--method", "jt", "--pole", pole
        )
        assert data["status"] == "converged"
        assert math.copysign(1.0, data["joints"][1][1]) == sign


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
        (["--lengths", "0.8,x", "--target", "1,0"], "expected comma-separated finite numbers"),
        (["--lengths", "0.8,0.6", "--target", "1,0,0"], "target: expected shape (..., 2)"),
        (["--lengths", "0.8,0.6", "--target", "nan,0"], "expected comma-separated finite numbers"),
        (["--lengths", "0.8,0.6", "--target", "1e400,0"], "expected comma-separated finite"),
        (["--lengths", "1e308,1e308", "--target", "1,1"], "lengths: expected a"),
        (["--lengths", "1,1", "--target", "1,1", "--init", "1e308,1e308"], "within ±1e+06 rad"),
        (["--lengths", "1,1", "--target", "1,1", "--iterations", "1e3"], "expected an integer"),
        (["--lengths", "1,1", "--target", "1,1", "--tolerance", "inf"], "a finite number"),
        (["--lengths", "1,1", "--target", "1,1", "--damping", "x"], "a finite number"),
        (
            ["--lengths", "0.8,0.6", "--target", "1,0", "--soft", "2"],
            "soft: expected a distance in [0, 1.2] m",
        ),
        (["--lengths", "0.8,0.6", "--target", "1,0", "--pole", "1,2,3"], "pole: expected shape"),
        (
            ["--lengths", "0.8,0.6", "--target", "1,0", "--iterations", "-3", "--method", "ccd"],
            "--iterations: expected an integer from 0 to 1000000000, got '-3'",
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


@pytest.mark.parametrize(
    "args",
    [
        ["--lengths", "1e300,1e300", "--target", "1,1"],
        ["--lengths", "1e-300,1e-300", "--target", "1e-300,0", "--method", "analytic"],
        ["--lengths", "1e-300,1e-300", "--target", "1e-300,0", "--method", "dls"],
        ["--lengths", "1e300,1e300", "--target", "1e300,1e300", "--method", "ccd"],
    ],
)
def test_extreme_scales_answer_in_strict_json_or_one_line(capsys, args):
    try:
        status = main(["solve", *args, "--json"])
    except SystemExit as exit_info:
        status = exit_info.code
    out, err = capsys.readouterr()
    assert status in (0, 2) and "Traceback" not in err
    if status == 0:
        data = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} in the answer"))
        assert data["error"] >= data["min_error"] >= 0.0
    else:
        assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "70000"], "--port: expected a port from 0 to 65535, got '70000'"),
        (["--port", "-1"], "expected a port from 0 to 65535"),
        (["--port", "http"], "expected a port from 0 to 65535"),
        (["--workers", "0"], "--workers: expected a number of processes from 1 to 64"),
        (["--lang", "fr"], "--lang: invalid choice"),
    ],
)
def test_bad_lesson_arguments_exit_2_with_one_line(capsys, args, message):
    with pytest.raises(SystemExit) as exit_info:
        main(["lesson", "--no-browser", *args])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_busy_port_is_one_clear_line():
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "ikchain", "lesson", "--no-browser", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"ikchain: error: --port: port {port} on 127.0.0.1 is in use; expected a free port "
        "(stop the other server, or choose one with --port, 0 for any)\n"
    )


def test_binding_every_interface_warns_and_lists_the_served_names():
    from ikchain.cli import allowed_hosts, format_network_warning

    names = allowed_hosts("0.0.0.0", ["lesson.lan"])
    assert names == ["127.0.0.1", "localhost", "::1", "lesson.lan"]
    warning = format_network_warning("0.0.0.0", names)
    assert "reachable from other machines on the network" in warning and "lesson.lan" in warning
    assert allowed_hosts("192.168.1.5", []) == ["127.0.0.1", "localhost", "::1", "192.168.1.5"]


def test_installed_command_runs():
    done = subprocess.run(
        [sys.executable, "-m", "ikchain", "solve", "--lengths", "0.8,0.6", "--target", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr


def start_lesson(*args: str) -> subprocess.Popen:
    """``python -m ikchain lesson --no-browser *args`` in a child process (text pipes)."""
    return subprocess.Popen(
        [sys.executable, "-m", "ikchain", "lesson", "--no-browser", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("workers", [1, 2])
def test_lesson_command_serves_the_page_on_loopback(workers):
    """The README's first command: `ikchain lesson` prints its URL and serves the page
    (with --workers 2, from two processes sharing the port)."""
    import socket
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = start_lesson("--port", str(port), "--workers", str(workers))
    try:
        line = server.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line
        # "serving on" comes only once the port is bound: it takes connections now.
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
        deadline = time.monotonic() + 120  # workers start up and compile the kernels
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


def _connection_holders(port: int) -> dict[int, int]:
    """Process id -> how many established TCP connections on local ``port`` it holds
    (Linux: /proc/net/tcp's socket inodes, found among each process's open files)."""
    from pathlib import Path

    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "01":  # ESTABLISHED
            inodes.add(f"socket:[{fields[9]}]")
    holders: dict[int, int] = {}
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        try:
            held = sum(os.readlink(fd) in inodes for fd in fd_dir.iterdir())
        except OSError:  # a process that ended or is not ours to read
            continue
        if held:
            holders[int(fd_dir.parent.name)] = held
    return holders


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_REUSEPORT balancing")
def test_lesson_workers_share_the_connections():
    """uvicorn's shared socket gave one of two workers 95 % of 50 pages' WebSockets;
    with a socket per process (SO_REUSEPORT) the kernel spreads them over both."""
    import socket
    import time

    server = start_lesson("--port", "0", "--workers", "2")
    clients = []
    try:
        line = server.stdout.readline()
        assert "serving on" in line, line + server.stderr.read()
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        clients = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(24)]
        deadline = time.monotonic() + 30
        while True:  # until both processes have accepted what the kernel gave them
            holders = _connection_holders(port)
            if sum(holders.values()) == 24 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert sum(holders.values()) == 24, holders
        # A fair split leaves a process none of 24 with probability 2 × 2⁻²⁴.
        assert len(holders) == 2 and min(holders.values()) >= 1, holders
    finally:
        for client in clients:
            client.close()
        server.terminate()
        server.wait(timeout=20)


def _descendants(pid: int) -> set[int]:
    """Process ids of every descendant of ``pid`` (Linux /proc)."""
    from pathlib import Path

    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie waiting to be reaped has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and PR_SET_PDEATHSIG")
def test_lesson_processes_end_with_the_server_even_when_it_is_killed():
    """A server killed by SIGKILL leaves no server or heavy-request process behind."""
    import signal
    import time

    server = start_lesson("--port", "0", "--workers", "2")
    try:
        assert "serving on" in server.stdout.readline()
        deadline = time.monotonic() + 60  # the heavy-request processes start meanwhile
        while len(helpers := _descendants(server.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(helpers) >= 3, helpers  # a second server, and one heavy process each
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=10)
    deadline = time.monotonic() + 30
    while (left := {p for p in helpers if _alive(p)}) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not left, f"processes outlived the killed server: {sorted(left)}"


def test_lesson_websocket_sends_frames_uncompressed():
    """permessage-deflate cost 15 % of the server's CPU per drag frame (replies of
    ~1.5 kB, on loopback or a classroom LAN): the server declines it."""
    import base64
    import socket

    server = start_lesson("--port", "0")
    try:
        line = server.stdout.readline()
        assert "serving on" in line, line
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        key = base64.b64encode(os.urandom(16)).decode()
        handshake = (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n"
            "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
        )
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(handshake.encode())
            answer = b""
            while b"\r\n\r\n" not in answer:
                chunk = sock.recv(4096)
                assert chunk, answer
                answer += chunk
        head = answer.split(b"\r\n\r\n")[0].decode().lower()
        assert head.startswith("http/1.1 101"), head
        assert "permessage-deflate" not in head
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_lesson_warns_when_it_binds_every_interface():
    server = start_lesson("--port", "0", "--host", "0.0.0.0", "--allowed-host", "lesson.lan")
    try:
        warning = server.stderr.readline()
        assert warning.startswith("ikchain lesson: warning: --host 0.0.0.0 makes the page")
        assert "lesson.lan" in warning
        assert "serving on http://127.0.0.1:" in server.stdout.readline()
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_bench_help_is_the_bench_parser(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "--help"])
    assert exit_info.value.code == 0
    assert "--quick" in capsys.readouterr().out


def test_compile_progress_says_what_compiles_and_when_it_is_done():
    """The lesson's start-up line while numba compiles names the kernel, the count and
    the seconds, and a last line says the solvers are ready."""
    from ikchain.cli import format_compile_progress

    line = format_compile_progress(2, 8, "solve_dls", 12.4)
    assert "2/8" in line and "solve_dls" in line and "12 s" in line
    assert "ready (8 kernels, 31 s)" in format_compile_progress(8, 8, "", 31.2)
    # before the first kernel: numba itself is loading, and the line says so
    assert "loading the solvers" in format_compile_progress(0, 1, "", 1.0)


def test_lesson_help_states_every_connection_limit(capsys):
    """`ikchain lesson --help` lists each connection limit with its value (the README's
    server section states the same table; tests/test_connections.py holds it equal)."""
    from ikchain.caps import CONNECTION_LIMITS

    with pytest.raises(SystemExit):
        main(["lesson", "--help"])
    out = capsys.readouterr().out
    for name, value in CONNECTION_LIMITS.items():
        assert f"{name} = {value:,}" in out


def test_ctrl_c_ends_a_compiling_bench_at_once_with_one_line(tmp_path) -> None:
    """SIGINT while numba compiles (an empty kernel cache): exit status 130 within
    seconds and one line on stderr, where Python's own handler would wait for the
    compiler to return (tens of seconds) and print a traceback."""
    import signal
    import time

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("IKCHAIN_JIT", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    command = [sys.executable, "-m", "ikchain", "bench", "--quick", "--no-peers", "--no-startup"]
    process = subprocess.Popen(
        [*command, "--json", str(tmp_path / "b.json")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal's
    )
    time.sleep(4.0)  # importing, then compiling the first kernels
    assert process.poll() is None
    process.send_signal(signal.SIGINT)
    sent = time.perf_counter()
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert time.perf_counter() - sent < 5.0
    assert err.strip().splitlines() == ["ikchain: interrupted"]


def test_json_stiffness_locks_a_joint_and_the_weight_blends(capsys):
    common = ("--lengths", "0.5,0.4,0.3", "--target", "0.6,0.5", "--init", "0.1,0.2,0.3")
    data = run_json(capsys, *common, "--stiffness", "0,inf,1")
    assert data["angles"][1] == 0.2 and data["status"] == "converged"
    heading = np.cumsum(data["angles"])
    tip = np.array([0.5, 0.4, 0.3]) @ np.stack([np.cos(heading), np.sin(heading)], axis=1)
    np.testing.assert_allclose(tip, [0.6, 0.5], rtol=0, atol=1e-9)
    half = run_json(capsys, *common, "--stiffness", "0,inf,1", "--weight", "0.5")
    start = np.array([0.1, 0.2, 0.3])
    expected = start + 0.5 * (np.array(data["angles"]) - start)
    np.testing.assert_allclose(half["angles"], expected, rtol=0, atol=1e-15)
    assert half["status"] == "blended"
    # the start pose again, at weight 0; the same answer as no stiffness, at zeros
    zero = run_json(capsys, *common, "--stiffness", "0,inf,1", "--weight", "0")
    assert zero["angles"] == [0.1, 0.2, 0.3]
    assert run_json(capsys, *common, "--stiffness", "0,0,0") == run_json(capsys, *common)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("0,nan,1", "expected comma-separated numbers >= 0 or inf"),
        ("0,-1,1", "expected comma-separated numbers >= 0 or inf"),
        ("0,1e400,1", "expected comma-separated numbers >= 0 or inf"),
        ("0,x,1", "expected comma-separated numbers >= 0 or inf"),
        ("0,1", "stiffness: expected 3 numbers >= 0"),
    ],
)
def test_bad_stiffness_exits_2_with_one_line(capsys, given, said):
    args = ["solve", "--lengths", "0.5,0.4,0.3", "--target", "0.6,0.5", "--stiffness", given]
    try:  # the parser exits (a malformed list); the library's check returns 2
        code = main(args)
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1


def test_stiffness_refused_by_ccd_on_the_command_line(capsys):
    args = ["solve", "--lengths", "0.5,0.4", "--target", "0.6,0.5", "--method", "ccd"]
    assert main([*args, "--stiffness", "0,1"]) == 2
    assert "method 'ccd' takes only" in capsys.readouterr().err


def test_json_tip_angle_puts_the_hand_at_the_angle(capsys):
    data = run_json(
        capsys,
        "--lengths",
        "0.5,0.4,0.3",
        "--target",
        "0.6,0.5",
        "--method",
        "analytic",
        "--angle",
        "0.3",
    )
    assert data["status"] == "converged"
    heading = np.cumsum(data["angles"])
    assert math.remainder(heading[-1] - 0.3, 2 * math.pi) == pytest.approx(0.0, abs=1e-12)
    # the default method too: the hand at the angle, the tip on the reachable target
    dls = run_json(capsys, "--lengths", "0.5,0.4,0.3", "--target", "0.6,0.5", "--angle", "1")
    assert dls["method"] == "dls" and dls["status"] == "converged"
    assert math.remainder(sum(dls["angles"]) - 1.0, 2 * math.pi) == pytest.approx(0.0, abs=1e-12)
    assert main(["solve", "--lengths", "0.5", "--target", "0.6,0.5", "--angle", "1"]) == 2
    assert "angle: expected a chain of 2 bones or more" in capsys.readouterr().err


def test_a_reader_that_leaves_early_gets_no_traceback() -> None:
    """``ikchain solve ... | head -c 1``: the reader closes the pipe before the answer is
    written; the command stops with the shell's status for it (141), saying nothing,
    where Python would print a BrokenPipeError traceback."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first byte
    command = [sys.executable, "-m", "ikchain", "solve", "--lengths", "0.5,0.4"]
    done = subprocess.run(
        [*command, "--target", "0.6,0.5", "--json"],
        stdout=write_end,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
    )
    os.close(write_end)
    assert (done.returncode, done.stderr) == (141, "")
