"""Render a committed ``ikchain bench --json`` run into the benchmarks page.

``conf.py``'s ``bench_run`` names the run's JSON (under ``docs/``), its commit, and the
JSON of the baseline commit timed beside it; the page then writes
``.. bench-table:: PART`` wherever a table goes, for PART one of
``bench_tables.PARTS``. Every number on the page comes from those files: nothing is
typed into the page.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from bench_tables import PARTS
from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective


class BenchTable(SphinxDirective):
    """``.. bench-table:: PART``: one table of the configured run."""

    required_arguments = 1
    option_spec: ClassVar[dict[str, Any]] = {"class": directives.class_option}

    def run(self) -> list[nodes.Node]:
        part = self.arguments[0]
        if part not in PARTS:
            raise self.error(f"bench-table: expected one of {', '.join(PARTS)}, got {part!r}")
        info = dict(self.config.bench_run)
        srcdir = Path(self.env.srcdir)
        run = self._load(srcdir / info["json"])
        baseline = self._load(srcdir / info["baseline_json"]) if info.get("baseline_json") else None
        lines = PARTS[part](run, baseline, info)
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source=f"bench-table {part}"), 0, container)
        return list(container.children)

    def _load(self, path: Path) -> dict[str, Any]:
        self.env.note_dependency(str(path))
        return json.loads(path.read_text(encoding="utf-8"))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("bench_run", {}, "env")
    app.add_directive("bench-table", BenchTable)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
