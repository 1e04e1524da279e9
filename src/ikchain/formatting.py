"""Pure ``format_*`` functions: a Result (or rows of numbers) as text for people or JSON.

Nothing here prints; :mod:`ikchain.cli` does.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from ikchain.result import Result


def format_number(value: float, digits: int = 6) -> str:
    """Fixed-point text with ``digits`` decimals; tiny magnitudes in scientific form.

    A value that rounds to zero at this precision but is not zero is shown in
    scientific notation, so the text never claims an exact 0 it does not have.
    A true zero (or negative zero) prints as ``0``-padded fixed point.
    """
    if value == 0.0:
        return f"{0.0:.{digits}f}"
    if abs(value) < 0.5 * 10.0**-digits or abs(value) >= 1e7:
        return f"{value:.{max(1, digits - 3)}e}"
    text = f"{value:.{digits}f}"
    return "0." + "0" * digits if text == "-0." + "0" * digits else text


def format_point(point: Any, digits: int = 6) -> str:
    """``(x, y)`` with :func:`format_number` coordinates."""
    x, y = (float(v) for v in point)
    return f"({format_number(x, digits)}, {format_number(y, digits)})"


def format_degrees(angles: Any, digits: int = 4) -> str:
    """Radians → comma-separated degrees, e.g. ``"12.3456°, -4.0000°"``."""
    return ", ".join(f"{format_number(math.degrees(float(a)), digits)}°" for a in np.ravel(angles))


def format_result_text(result: Result) -> str:
    """A single-target result as aligned ``name: value`` lines, angles in degrees."""
    if result.shape != ():
        raise ValueError(f"format_result_text: expected a single target, got batch {result.shape}")
    rows = [
        ("method", result.method),
        ("target", format_point(result.target)),
        ("status", str(result.status)),
        ("reachable", "yes" if result.reachable else "no"),
        ("angles", format_degrees(result.angles)),
        ("tip", format_point(result.end)),
        ("error", f"{format_number(result.error, 12)} m"),
        ("min error", f"{format_number(result.min_error, 12)} m"),
        ("iterations", str(result.iterations)),
    ]
    rows += [(f"joint {i}", format_point(p)) for i, p in enumerate(result.joints)]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def format_result_json(result: Result) -> str:
    """A result as JSON (see :meth:`ikchain.Result.as_dict`)."""
    return json.dumps(result.as_dict(), indent=2, allow_nan=False)
