"""2.2's page with the Jacobian transpose and the manipulability ellipse: which figure
draws the ellipse, and the numbers the text quotes."""

from __future__ import annotations

import numpy as np

from ikchain import Chain, solve
from ikchain.lesson.frames import ELLIPSE_SCALE


def test_only_the_condition_figure_draws_it() -> None:
    from ikchain.lesson.content import SECTIONS, page_context

    for lang in ("en", "zh"):
        context = page_context(lang)
        for section in context["sections"]:
            figure = next((b["figure"] for b in section["blocks"] if b["kind"] == "figure"), None)
            if figure is None:
                continue
            spec = next(s for s in SECTIONS if s.key == section["key"])
            drawn = 'class="ellipse-shape"' in figure["svg"]
            assert drawn == ("condition" in spec.extra_readings), section["key"]


# -- 2.2's text ----------------------------------------------------------------------


def test_the_transpose_text_quotes_the_solver() -> None:
    """The iterations the text cites are the solver's, from the figure's default state."""
    from ikchain.lesson.content import SECTIONS, figure_defaults, load_text
    from ikchain.lesson.tables import TABLE2_TARGET, table_facts
    from ikchain.lesson.transpose_facts import EDGE_BUDGET

    s22 = next(s for s in SECTIONS if s.key == "s22")
    defaults = figure_defaults(s22)
    assert tuple(defaults["target"]) == TABLE2_TARGET  # the text's target is the figure's
    chain = Chain(defaults["lengths"])
    counts = {}
    for method in ("ccd", "jt", "dls"):
        result = solve(
            chain,
            np.array(defaults["target"]),
            method,
            max_iterations=defaults["iterations"],
            tolerance=defaults["tolerance"],
        )
        assert result.converged
        counts[method] = int(result.iterations)
    assert counts["jt"] > counts["dls"]  # what the paragraph is about
    facts = table_facts()
    edge = next(r for r in facts["reach"] if r["ratio"] == facts["growth_to"])
    slow = solve(chain, np.array(edge["target"]), "jt", max_iterations=EDGE_BUDGET, tolerance=1e-9)
    assert slow.converged and int(slow.iterations) > 10 * facts["dls_sweeps_edge"]
    for lang in ("en", "zh"):
        text = " ".join(load_text(lang)["s22"]["transpose"])
        for count in (counts["jt"], counts["ccd"], counts["dls"], int(slow.iterations)):
            assert f" {count} " in text or f"{count} " in text, (lang, count)
        assert "{" not in text
        live = " ".join(load_text(lang)["s22"]["t2b_live"])
        assert f"{ELLIPSE_SCALE:g} m" in live
