"""Command line: ``ikchain solve | tables | lesson | bench``.

``main(argv=None)`` parses, calls the library and prints; formatting lives in
:mod:`ikchain.formatting`. Bad arguments exit with status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ikchain.chain import Chain
from ikchain.formatting import format_result_json, format_result_text
from ikchain.solvers import METHODS, solve


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line (no usage dump) and exits 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"ikchain: error: {message}\n")


def _floats(text: str) -> list[float]:
    try:
        return [float(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated numbers, got {text!r}"
        ) from None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ikchain", description="Inverse kinematics of planar bone chains.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    solve_parser = commands.add_parser("solve", help="solve one target")
    solve_parser.add_argument("--lengths", type=_floats, required=True, help="e.g. 0.8,0.6 (m)")
    solve_parser.add_argument("--target", type=_floats, required=True, help="x,y (m)")
    solve_parser.add_argument("--method", choices=METHODS, default="dls")
    solve_parser.add_argument("--init", type=_floats, help="start angles, radians, e.g. 0.2,0.2")
    solve_parser.add_argument("--iterations", type=int, help="iteration budget (default 200)")
    solve_parser.add_argument("--tolerance", type=float, help="end error goal, m (default 1e-9)")
    solve_parser.add_argument("--damping", type=float, help="fraction of each step, (0, 1]")
    solve_parser.add_argument("--bend", type=int, choices=(1, -1), help="elbow branch, +1 or -1")
    solve_parser.add_argument("--max-step", type=float, help="ccd: largest turn per sweep, rad")
    solve_parser.add_argument("--trace", action="store_true", help="keep the error per iteration")
    solve_parser.add_argument("--json", action="store_true", help="print JSON")

    tables_parser = commands.add_parser("tables", help="print the lesson's tables")
    tables_parser.add_argument("--section", choices=SECTION_NUMBERS, help="one section only")
    tables_parser.add_argument("--format", choices=("text", "json", "csv"), default="text")
    tables_parser.add_argument("--lang", choices=LANG_CHOICES, default="zh")

    lesson_parser = commands.add_parser("lesson", help="serve the interactive lesson")
    lesson_parser.add_argument("--host", default="127.0.0.1", help="default 127.0.0.1")
    lesson_parser.add_argument("--port", type=int, default=8000, help="default 8000")
    lesson_parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    lesson_parser.add_argument("--lang", choices=LANG_CHOICES, default="zh")

    # Listed for --help only: main() hands everything after "bench" to the bench's own
    # parser before argparse sees it.
    commands.add_parser(
        "bench",
        help="benchmarks: 'ikchain bench [--quick] ...' (solvers and peers), "
        "'ikchain bench lesson ...' (server frame time, drag-to-redraw); --help for each",
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


def _run_lesson(args: argparse.Namespace) -> int:
    import threading
    import webbrowser

    import uvicorn

    from ikchain.solvers import compile_kernels
    from ikchain.web.app import build_app

    compile_kernels()  # the first drag must not wait for numba
    path = "/" if args.lang == "zh" else "/?lang=en"
    shown = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{shown}:{args.port}{path}"
    print(f"ikchain lesson: serving on {url}  (Ctrl+C to stop)", flush=True)
    if not args.no_browser:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(build_app(), host=args.host, port=args.port, log_level="warning")
    return 0


def _run_bench(argv: list[str]) -> int:
    if argv[:1] == ["lesson"]:
        from ikchain.bench.lesson import main as lesson_bench

        return lesson_bench(argv[1:])
    from ikchain.bench import main as bench_main

    return bench_main(argv)


def _run_solve(args: argparse.Namespace) -> str:
    chain = Chain(args.lengths)
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
    )
    return format_result_json(result) if args.json else format_result_text(result)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ikchain`` command; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench"]:
        return _run_bench(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "lesson":
            return _run_lesson(args)
        output = _run_tables(args) if args.command == "tables" else _run_solve(args)
    except ValueError as error:
        print(f"ikchain: error: {error}", file=sys.stderr)
        return 2
    print(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
