"""Command-line argument helpers shared by ``ikchain`` (:mod:`ikchain.cli`) and
``ikchain bench`` (:mod:`ikchain.bench`): a parser whose errors are one line, and
argparse types that name what they expected. Their own module, so that the CLI and
the bench import it rather than each other."""

from __future__ import annotations

import argparse
from typing import Any


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports errors as one line (no usage dump) and exits 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def integer_in(low: int, high: int, what: str) -> Any:
    """An argparse type: an integer from ``low`` to ``high``, else one line naming them."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {what} from {low} to {high}, got {text!r}")
        return value

    return parse
