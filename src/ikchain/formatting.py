"""Pure ``format_*`` functions: a Result (or rows of numbers) as text for people or JSON.

Nothing here prints; :mod:`ikchain.cli` does.
"""

from __future__ import annotations

import csv
import io
import json
import math
import unicodedata
from typing import Any

import numpy as np

from ikchain.kinematics import wrap_angle
from ikchain.result import Result


def format_count(value: int | None) -> str:
    """An iteration count as the text prints it: ``—`` for None (not within the budget)."""
    return "—" if value is None else str(value)


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


#: A coordinate within this many rounding units (machine epsilon) of the chain's size
#: from 0 is 0 to within the arithmetic that placed it.
ROUNDING_UNITS = 64
_EPS = float(np.finfo(np.float64).eps)


def format_point(point: Any, digits: int = 6, scale: float | None = None) -> str:
    """``(x, y)`` with :func:`format_number` coordinates.

    With ``scale`` (a length of the problem, e.g. the chain's ΣL), a coordinate within
    ``ROUNDING_UNITS · eps · scale`` of 0 prints as 0: positions computed from
    metre-sized numbers carry rounding of that size, and ``-4.4e-16`` says nothing
    about the pose. Without ``scale`` every digit the value has is shown.
    """
    x, y = (float(v) for v in point)
    if scale is not None:
        slack = ROUNDING_UNITS * _EPS * abs(float(scale))
        x = 0.0 if abs(x) <= slack else x
        y = 0.0 if abs(y) <= slack else y
    return f"({format_number(x, digits)}, {format_number(y, digits)})"


def degrees_for_people(angles: Any) -> Any:
    """Radians → degrees in (−180°, 180°], the range a person reads angles in; a float
    for a float, else an array of the same shape.

    Solvers keep continuous angles (a warm start after one lap is 2π, not 0); only
    the text a person reads is wrapped, by :func:`ikchain.kinematics.wrap_angle`
    (into (−π, π], so a half turn always reads 180°).
    """
    degrees = np.degrees(wrap_angle(angles))
    return float(degrees) if np.ndim(degrees) == 0 else degrees


def _fixed_degrees(degrees: float, digits: int) -> str:
    """Degrees already in (−180°, 180°] as fixed point: see :func:`format_angle`."""
    text = f"{degrees:.{digits}f}"
    zero = "0." + "0" * digits if digits > 0 else "0"
    if text == "-" + zero:
        text = zero
    elif text == f"{-180:.{digits}f}":
        text = f"{180:.{digits}f}"
    return text + "°"


def format_angle(angle: float, digits: int = 4) -> str:
    """One angle (radians) as fixed-point degrees in (−180°, 180°], e.g. ``"-12.30°"``.

    Always fixed point: an angle too small to show reads ``0.00°`` (an angle is a
    pose, not an error, so no scientific notation mixes into a list of angles).
    A value that rounds to −180 at this precision reads as 180.
    """
    return _fixed_degrees(degrees_for_people(float(angle)), digits)


def format_degrees(angles: Any, digits: int = 4) -> str:
    """Radians → comma-separated degrees in (−180°, 180°], e.g. ``"12.3456°, -4.0000°"``."""
    degrees = degrees_for_people(np.ravel(np.asarray(angles, dtype=np.float64)))
    return ", ".join(_fixed_degrees(value, digits) for value in degrees.tolist())


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


def _plain_value(value: Any) -> Any:
    """Table values as JSON-ready Python (tuples → lists, numpy → Python)."""
    if isinstance(value, tuple | list | np.ndarray):
        return [_plain_value(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if value is None or isinstance(value, bool | int | float) else str(value)


def format_tables_text(tables: list[dict[str, Any]]) -> str:
    """Tables as aligned plain text: caption, header, rows; numbers right-aligned."""
    blocks = []
    for table in tables:
        grid = [table["columns"], *table["rows"]]
        widths = [max(_width(row[i]) for row in grid) for i in range(len(table["columns"]))]
        lines = [f"{table['id']}: {table['caption']}"]
        for k, row in enumerate(grid):
            cells = [_pad(cell, width) for cell, width in zip(row, widths, strict=True)]
            lines.append("  ".join(cells).rstrip())
            if k == 0:
                lines.append("  ".join("-" * width for width in widths))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def format_tables_csv(tables: list[dict[str, Any]]) -> str:
    """Tables as CSV: one block per table, the first column naming the table."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for table in tables:
        writer.writerow(["table", *table["columns"]])
        for row in table["rows"]:
            writer.writerow([table["id"], *row])
    return out.getvalue().rstrip("\n")


def format_tables_json(tables: list[dict[str, Any]]) -> str:
    """Tables as JSON: captions, headers, the printed cells and the raw values."""
    data = [
        {
            "id": table["id"],
            "caption": table["caption"],
            "columns": table["columns"],
            "cells": table["rows"],
            "values": _plain_value(table["values"]),
        }
        for table in tables
    ]
    return json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False)


def _width(text: str) -> int:
    """Display width: East Asian wide characters take two columns."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return " " * (width - _width(text)) + text
