"""Command line: ``ikchain solve | tables | lesson | bench``.

``main(argv=None)`` parses, calls the library and prints; formatting lives in
:mod:`ikchain.formatting`. Bad arguments exit with status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import math
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ikchain.arguments import OneLineParser, integer_in
from ikchain.caps import MAX_ANGLE
from ikchain.chain import Chain
from ikchain.formatting import format_result_json, format_result_text
from ikchain.solvers import DEFAULT_MAX_ITERATIONS, DEFAULT_TOLERANCE, METHODS, interpret, solve


def _floats(text: str) -> list[float]:
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        values = []
    if not values or not all(math.isfinite(value) for value in values):
        raise argparse.ArgumentTypeError(f"expected comma-separated finite numbers, got {text!r}")
    return values


def _angles(text: str) -> list[float]:
    values = _floats(text)
    if any(abs(value) > MAX_ANGLE for value in values):
        raise argparse.ArgumentTypeError(f"expected angles within ±{MAX_ANGLE:g} rad, got {text!r}")
    return values


_INFINITY = ("inf", "+inf", "infinity", "+infinity")


def _stiffness(text: str) -> list[float]:
    """Comma-separated stiffnesses, each a number >= 0 or ``inf`` (a locked joint); a
    number too large for a float (1e400) is refused, not taken for ``inf``."""
    parts = text.split(",")
    try:
        values = [float(part) for part in parts]
    except ValueError:
        values = []
    spelled = all(
        math.isfinite(value) or part.strip().lower() in _INFINITY
        for part, value in zip(parts, values, strict=False)
    )
    if not values or not spelled or not all(value >= 0.0 for value in values):  # NaN too
        raise argparse.ArgumentTypeError(
            f"expected comma-separated numbers >= 0 or inf, one a joint, got {text!r}"
        )
    return values


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="ikchain", description="Inverse kinematics of planar bone chains.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)

    solve_parser = commands.add_parser("solve", help="solve one target")
    solve_parser.add_argument("--lengths", type=_floats, required=True, help="e.g. 0.8,0.6 (m)")
    solve_parser.add_argument("--target", type=_floats, required=True, help="x,y (m)")
    solve_parser.add_argument("--method", choices=METHODS, default="dls")
    solve_parser.add_argument("--init", type=_angles, help="start angles, radians, e.g. 0.2,0.2")
    solve_parser.add_argument(
        "--iterations",
        type=integer_in(0, 10**9, "an integer"),
        help=f"iteration budget (default {DEFAULT_MAX_ITERATIONS})",
    )
    solve_parser.add_argument(
        "--tolerance", type=_number, help=f"end error goal, m (default {DEFAULT_TOLERANCE:g})"
    )
    solve_parser.add_argument("--damping", type=_number, help="fraction of each step, (0, 1]")
    solve_parser.add_argument("--bend", type=int, choices=(1, -1), help="elbow branch, +1 or -1")
    solve_parser.add_argument("--max-step", type=_number, help="ccd: largest turn per sweep, rad")
    solve_parser.add_argument("--pole", type=_floats, help="x,y (m): bend toward this point")
    solve_parser.add_argument("--soft", type=_number, help="soft reach, m: ease the last stretch")
    solve_parser.add_argument(
        "--weight", type=_number, help="blend weight in [0, 1]: how far from the start pose to go"
    )
    solve_parser.add_argument(
        "--angle",
        type=_number,
        help="the last bone's world angle, rad: the hand's angle at the target, met first",
    )
    solve_parser.add_argument(
        "--stiffness",
        type=_stiffness,
        help="dls, jt: each joint's stiffness >= 0, e.g. 0,inf,1 (inf locks the joint)",
    )
    solve_parser.add_argument("--trace", action="store_true", help="keep the error per iteration")
    solve_parser.add_argument("--json", action="store_true", help="print JSON")

    tables_parser = commands.add_parser("tables", help="print the lesson's tables")
    tables_parser.add_argument("--section", choices=SECTION_NUMBERS, help="one section only")
    tables_parser.add_argument("--format", choices=("text", "json", "csv"), default="text")
    tables_parser.add_argument("--lang", choices=LANG_CHOICES, default="zh")

    lesson_parser = commands.add_parser(
        "lesson",
        help="serve the interactive lesson",
        epilog=format_connection_limits(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    lesson_parser.add_argument("--host", default="127.0.0.1", help="address to bind")
    lesson_parser.add_argument(
        "--port",
        type=integer_in(0, 65535, "a port"),
        default=8000,
        help="default 8000; 0 picks a free one",
    )
    lesson_parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also serve requests whose Host is NAME (repeatable; '*' serves any name, "
        "which lets other web sites reach the server through DNS rebinding)",
    )
    lesson_parser.add_argument(
        "--workers",
        type=integer_in(1, 64, "a number of processes"),
        default=1,
        help="server processes sharing the port (default 1)",
    )
    lesson_parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    lesson_parser.add_argument("--lang", choices=LANG_CHOICES, default="zh")

    # Listed for --help only: main() hands everything after "bench" to the bench's own
    # parser before argparse sees it.
    commands.add_parser(
        "bench",
        help="benchmarks: 'ikchain bench [--quick] ...' (solvers and peers), "
        "'ikchain bench lesson ...' (server frame time, drag-to-redraw, --fairness, "
        "--clients N), 'ikchain bench caps' (the caps against the time budget), "
        "'ikchain bench startup' (fresh-process start-up, cache empty and warm, "
        "--against SRC); "
        "--help for each",
        add_help=False,
    )

    return parser


SECTION_NUMBERS = ("2.1", "2.2", "2.3", "2.4", "2.5", "2.6")
LANG_CHOICES = ("zh", "en")


def _run_tables(args: argparse.Namespace) -> str:
    from ikchain.formatting import format_tables_csv, format_tables_json, format_tables_text
    from ikchain.lesson.content import tables_for_section

    sections = [args.section] if args.section else list(SECTION_NUMBERS)
    tables = [table for number in sections for table in tables_for_section(number, args.lang)]
    formatter = {"text": format_tables_text, "json": format_tables_json, "csv": format_tables_csv}
    return formatter[args.format](tables)


#: Addresses that bind every interface.
WILDCARD_HOSTS = ("0.0.0.0", "::", "")


def url_host(host: str, bound: str) -> str:
    """The host part of the URL to print for ``--host host`` bound at address
    ``bound``: 127.0.0.1 where the address binds every interface (``0``, ``0.0.0.0``,
    ``::``; ``http://0:PORT/`` is no URL a browser opens), brackets around IPv6."""
    import ipaddress

    try:
        unspecified = ipaddress.ip_address(bound.split("%")[0]).is_unspecified
    except ValueError:
        unspecified = False
    if host in WILDCARD_HOSTS or unspecified:
        host = "127.0.0.1"  # a wildcard IPv6 socket takes IPv4 too (Linux's default)
    return f"[{host}]" if ":" in host else host


def allowed_hosts(host: str, extra: Sequence[str]) -> list[str]:
    """Host names the server answers: the loopback names, the bound address (unless
    it is a wildcard) and ``--allowed-host``."""
    from ikchain.web.app import LOOPBACK_HOSTS

    names = [*LOOPBACK_HOSTS]
    if host not in WILDCARD_HOSTS:
        names.append(host)
    return list(dict.fromkeys([*names, *extra]))


def format_network_warning(host: str, names: Sequence[str]) -> str:
    """The warning printed when the server binds beyond loopback."""
    return (
        f"ikchain lesson: warning: --host {host} makes the page reachable from other "
        f"machines on the network; it answers only the Host names {', '.join(names)} "
        "(add the name others use with --allowed-host)"
    )


def _bind(host: str, port: int, count: int) -> list[socket.socket]:
    """Listening sockets (:func:`ikchain.web.serve.listening_sockets`), or ValueError
    with one line saying why not."""
    from ikchain.web.serve import listening_sockets

    try:
        return listening_sockets(host, port, count)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise ValueError(
                f"--port: port {port} on {host} is in use; expected a free port "
                "(stop the other server, or choose one with --port, 0 for any)"
            ) from None
        raise ValueError(f"--host: cannot bind {host}:{port} ({error.strerror})") from None


def format_connection_limits() -> str:
    """The server's connection limits and timeouts, for ``ikchain lesson --help``."""
    from ikchain.caps import CONNECTION_LIMITS

    rows = [f"  {name} = {value:,}" for name, value in CONNECTION_LIMITS.items()]
    return (
        "connection limits (per server process; the lesson-server guide, "
        "docs/guide/server.rst, says what each one does):\n" + "\n".join(rows)
    )


def format_compile_progress(done: int, total: int, name: str, seconds: float) -> str:
    """The line shown while the solvers compile (numba, first run or after an upgrade)."""
    if done >= total:
        return f"ikchain lesson: solvers ready ({total} kernels, {seconds:.0f} s)"
    if not name:  # numba and the kernel modules are still being imported
        return f"ikchain lesson: loading the solvers (numba), {seconds:.0f} s"
    return (
        f"ikchain lesson: compiling the solvers, first run only: {done}/{total} "
        f"({name}), {seconds:.0f} s"
    )


class CompileProgress:
    """A ``progress`` callback for :func:`ikchain.solvers.compile_kernels` that says what
    is compiling, every second, once the compile has taken a second (a warm
    cache loads in less and prints nothing), on stderr: stdout keeps the URL line first.
    On a terminal one line is rewritten. The compile's last call (``done == total``)
    prints the closing line; so does :meth:`close` (or leaving a ``with`` block)."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.state: dict[str, Any] = {"done": 0, "total": 1, "name": "", "shown": False}
        self.tty = sys.stderr.isatty()
        self.stop = threading.Event()
        self.ticker = threading.Thread(target=self._tick, daemon=True)
        self.ticker.start()

    def _show(self, final: bool = False) -> None:
        state = self.state
        seconds = time.monotonic() - self.started
        line = format_compile_progress(
            state["total"] if final else state["done"], state["total"], state["name"], seconds
        )
        end = "\n" if final or not self.tty else ""
        text = ("\r" + line.ljust(78)) if self.tty else line
        print(text, end=end, file=sys.stderr, flush=True)
        state["shown"] = True

    def _tick(self) -> None:
        while not self.stop.wait(1.0):
            self._show()

    def __call__(self, done: int, total: int, name: str) -> None:
        self.state.update(done=done, total=total, name=name)
        if done >= total:
            self.close()

    def close(self) -> None:
        if self.stop.is_set():
            return
        self.stop.set()
        if threading.current_thread() is not self.ticker:
            self.ticker.join()
        if self.state["shown"]:
            self._show(final=True)

    def __enter__(self) -> CompileProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _run_lesson(args: argparse.Namespace) -> int:
    import os
    import webbrowser

    from ikchain.solvers import compile_kernels
    from ikchain.web.serve import serve

    names = allowed_hosts(args.host, [n for arg in args.allowed_host for n in arg.split(",")])
    sockets = _bind(args.host, args.port, args.workers)
    port = sockets[0].getsockname()[1]
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(format_network_warning(args.host, names), file=sys.stderr, flush=True)
    if args.workers == 1:  # this process serves, and compiles while it does: say how far
        from ikchain.web import app

        app.compile_listeners.append(CompileProgress())
    else:  # each server process loads the kernels: compile them once, first
        with CompileProgress() as progress:
            compile_kernels(progress)
    path = "/" if args.lang == "zh" else "/?lang=en"
    url = f"http://{url_host(args.host, sockets[0].getsockname()[0])}:{port}{path}"
    # Each server process builds its app from the environment (see app_from_environment).
    os.environ["IKCHAIN_ALLOWED_HOSTS"] = ",".join(names)
    if args.workers == 1:  # one process: it serves while its kernels compile
        os.environ["IKCHAIN_SERVE_WHILE_STARTING"] = "1"

    def ready() -> None:
        print(f"ikchain lesson: serving on {url}  (Ctrl+C to stop)", flush=True)
        if not args.no_browser:
            threading.Timer(1.0, webbrowser.open, args=(url,)).start()

    try:
        serve(sockets, args.workers, ready)
    except OSError as error:  # a spawned server process failed to start
        print(f"ikchain lesson: error: {error.strerror or error}", file=sys.stderr)
        return 1
    return 0


def _run_bench(argv: list[str]) -> int:
    if argv[:1] == ["lesson"]:
        from ikchain.bench.lesson import main as lesson_bench

        return lesson_bench(argv[1:])
    if argv[:1] == ["caps"]:
        from ikchain.bench.server import caps_main

        return caps_main(argv[1:])
    if argv[:1] == ["startup"]:
        from ikchain.bench.startup import main as startup_main

        return startup_main(argv[1:])
    from ikchain.bench import main as bench_main

    return bench_main(argv)


def _run_solve(args: argparse.Namespace, program: bool = False) -> str:
    with np.errstate(all="ignore"):  # the checks below say what went wrong, in one line
        return _checked_solve(args, program)


def _checked_solve(args: argparse.Namespace, program: bool) -> str:
    chain = Chain(args.lengths)
    if not math.isfinite(chain.total_length):
        raise ValueError(
            f"lengths: expected a finite total length, got {chain.total_length} "
            f"(the sum of {args.lengths})"
        )
    if not math.isfinite(math.hypot(*args.target[:2])):
        raise ValueError(f"target: expected a finite distance from the root, got {args.target}")
    try:
        result = _solve(chain, args, program)
    except ArithmeticError as error:
        raise ValueError(
            "lengths and target: expected values within the solver's range, "
            f"got {type(error).__name__} ({error})"
        ) from None
    try:
        return format_result_json(result) if args.json else format_result_text(result)
    except ValueError:
        raise ValueError(
            "lengths and target: expected values within the solver's range, "
            "got an answer that is not finite"
        ) from None


#: The ``ikchain solve`` program runs the kernels as plain Python (``solvers.interpret``)
#: up to this many bone-iterations (bones x the iteration budget), about half a second
#: at worst; beyond it, compiling (seconds, once) or loading them (half a second) pays.
INTERPRET_UP_TO = 100_000


def _solve(chain: Chain, args: argparse.Namespace, program: bool = False) -> Any:
    """The library's answer. ``program``: this process is the ``ikchain`` program, which
    ends after this one solve, so a small one may run as plain Python (never for a
    caller of :func:`main` in its own process, whose later solves it would slow)."""
    budget = DEFAULT_MAX_ITERATIONS if args.iterations is None else args.iterations
    if program and chain.n_bones * max(1, budget) <= INTERPRET_UP_TO:
        with contextlib.suppress(RuntimeError):  # kernels already compiled: use them
            interpret()
    result = solve(
        chain,
        args.target,
        args.method,
        init=args.init,
        max_iterations=args.iterations,
        tolerance=args.tolerance,
        damping=args.damping,
        bend=args.bend,
        max_step=args.max_step,
        trace=args.trace,
        pole=args.pole,
        soft=args.soft,
        weight=args.weight,
        stiffness=args.stiffness,
        angle=args.angle,
    )
    if not all(np.all(np.isfinite(value)) for value in (result.angles, result.joints)):
        raise ArithmeticError("the answer is not finite")
    return result


def exit_on_interrupt() -> None:
    """Make Ctrl+C end this process at once: one line on stderr, exit status 130.

    Python runs a SIGINT handler only between bytecodes of the main thread, so a solve
    in a compiled kernel, or numba compiling one (tens of seconds in LLVM, called
    through ctypes without the GIL), would not stop until it returned. The signal's C
    handler also writes the signal's number to a wake-up pipe, from whatever thread
    the signal reached (numpy's BLAS threads included); a thread reading that pipe
    needs only the GIL, which those calls release, to end the process.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    # the main thread carries on (no KeyboardInterrupt and its traceback half-printed)
    # until the thread below ends the process
    signal.signal(signal.SIGINT, lambda number, frame: None)

    def wait() -> None:
        while signal.SIGINT not in os.read(read_end, 64):
            pass
        sys.stderr.write("ikchain: interrupted\n")
        sys.stderr.flush()
        os._exit(130)

    threading.Thread(target=wait, name="ikchain-interrupt", daemon=True).start()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ikchain`` command; returns the exit status."""
    from_command_line = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    if from_command_line and argv[:1] in (["solve"], ["bench"], ["tables"]):
        exit_on_interrupt()  # (the lesson server stops on Ctrl+C its own way)
    if argv[:1] == ["bench"]:
        return _run_bench(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "lesson":
            return _run_lesson(args)
        if args.command == "tables":
            output = _run_tables(args)
        else:  # run as the program (argv from the command line): see _solve
            output = _run_solve(args, program=from_command_line)
    except ValueError as error:
        print(f"ikchain: error: {error}", file=sys.stderr)
        return 2
    try:
        print(output, flush=True)
    except BrokenPipeError:  # the reader left (``| head``): stop quietly, as cat does
        if from_command_line:  # (and keep the interpreter's exit flush from failing too)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, a shell's status for a writer whose reader left
    return 0


if __name__ == "__main__":
    sys.exit(main())
