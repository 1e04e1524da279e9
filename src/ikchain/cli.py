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

    return parser


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
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "solve":
            output = _run_solve(args)
        else:  # pragma: no cover - argparse restricts the choices
            parser.error(f"unknown command {args.command!r}")
    except ValueError as error:
        print(f"ikchain: error: {error}", file=sys.stderr)
        return 2
    print(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
