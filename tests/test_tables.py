"""The lesson's tables: each number checked against a closed form or a property,
and the page's cells held against ``ikchain tables --format json``."""

import itertools
import json
import math
import re
from html.parser import HTMLParser

import numpy as np
import pytest
from starlette.testclient import TestClient

from ikchain.cli import main
from ikchain.lesson import tables
from ikchain.lesson.words import load_text, placeholder_values
from ikchain.web.app import build_app

T = tables.compute_tables()


def column(table_id, index):
    return [row[index] for row in T[table_id].values]


def test_table1_straight_arm_is_zero_to_every_digit():
    target, _, elbow, root, error, check, difference = T["table-1"].values[0]
    assert target == (1.4, 0.0)
    assert (elbow, root, error, check, difference) == (0.0, 0.0, 0.0, 0.0, 0.0)


def test_table1_rows_reach_their_targets_and_match_the_decimal_check():
    for target, d, elbow, _, error, _, difference in T["table-1"].values:
        assert d == pytest.approx(math.hypot(*target), abs=1e-15)
        assert error < 1e-15
        # Pen and paper: law of cosines in plain floats, good to about 1e-6 degrees.
        cosine = (d * d - 0.64 - 0.36) / 0.96
        assert abs(elbow) == pytest.approx(math.degrees(math.acos(min(1, cosine))), abs=1e-5)
        assert abs(difference) < 1e-12
    quadrants = {(np.sign(t[0]), np.sign(t[1])) for t, *_ in T["table-1"].values}
    assert {(1, 1), (-1, 1), (-1, -1), (1, -1)} <= quadrants
    assert min(column("table-1", 1)) < 0.2 + 0.05  # one row near the fold


def test_table2_error_falls_and_agrees_with_analytic_branch():
    errors = column("table-2", 1)
    assert all(b < a for a, b in itertools.pairwise(errors))
    assert column("table-2", 4)[-1] < 1e-9
    ratios = column("table-2", 2)
    assert ratios[0] is None and all(r < 1 for r in ratios[1:])


def test_damping_changes_the_step_not_the_answer():
    errors = column("table-2-damping", 2)
    dampings = column("table-2-damping", 0)
    assert dampings == sorted(dampings, reverse=True)
    assert all(b > a for a, b in itertools.pairwise(errors))
    finals = column("table-2-damping", 4)
    assert max(finals) - min(finals) < 1e-6


def test_stall_error_does_not_move():
    errors = column("table-2-stall", 1)
    assert errors == [pytest.approx(0.4, abs=1e-15)] * len(errors)
    assert column("table-2-stall", 2) == [0.0] * len(errors)
    assert {str(s) for s in column("table-2-stall", 3)} == {"stalled"}
    # solve() and the bare step the table iterates agree: the pose never left zero.
    chain = tables.lesson_chain(2)
    reported = tables.solve(chain, tables.STALL_TARGET, "ccd", init=[0.0, 0.0], max_iterations=5)
    assert reported.angles.tolist() == [0.0, 0.0] and reported.iterations == 1


def test_table2b_ccd_cost_explodes_near_full_extension_while_dls_does_not():
    ccd = column("table-2b", 3)
    dls = column("table-2b", 6)
    assert ccd == sorted(ccd) and ccd[-1] > 50 * ccd[0]
    assert max(dls) <= 12
    conditions = column("table-2b", 7)
    assert conditions == sorted(conditions)


def test_table3_tips_agree_while_joint1_differs():
    rows = T["table-3"].values
    tips = {tables.format_point(row[1], 6) for row in rows}
    assert len(tips) == 1  # the same to every printed digit
    assert all(row[2] < 1e-12 for row in rows)
    assert rows[1][4] > 0.1 and rows[2][4] > 0.1
    assert T["table-3"].facts["c_short_error"] > 1e-7  # row C after 32 sweeps: not there yet


def test_table4_error_equals_distance_to_annulus_to_printed_digits():
    inner, outer = 0.8 - 0.6, 1.4
    for d, reachable, error, _, root in T["table-4"].values:
        expected = max(0.0, d - outer, inner - d)  # independent closed form
        assert f"{error:.6f}" == f"{expected:.6f}"
        assert reachable == (expected == 0.0)
        if d > outer:  # straight along the target's direction, not along +x
            assert root == pytest.approx(tables.TABLE4_DIRECTION, abs=1e-4)
    far = next(row for row in T["table-4"].values if row[0] == 2.0)
    assert f"{far[2]:.2f}" == "0.60"


def test_every_placeholder_is_filled_in_both_languages():
    values = placeholder_values()
    for lang in ("zh", "en"):
        text = json.dumps(load_text(lang), ensure_ascii=False)
        assert not re.search(r"\{[a-z_0-9]+\}", text)
    assert values["far_error"] == "0.60"


class _Cells(HTMLParser):
    """Collects the text of every <td>/<th> of each <table id=...>."""

    def __init__(self):
        super().__init__()
        self.tables, self.current, self.row, self.cell = {}, None, None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and attrs.get("id", "").startswith("table-"):
            self.current = attrs["id"]
            self.tables[self.current] = []
        elif tag == "tr" and self.current:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "table":
            self.current = None
        elif tag == "tr" and self.row is not None and self.current:
            self.tables[self.current].append(self.row)
            self.row = None
        elif tag in ("td", "th") and self.cell is not None:
            self.row.append(" ".join(self.cell.split()))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_page_cells_equal_cli_json(capsys, lang):
    page = TestClient(build_app(), base_url="http://127.0.0.1").get(f"/?lang={lang}").text
    parser = _Cells()
    parser.feed(page)
    assert main(["tables", "--format", "json", "--lang", lang]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert {t["id"] for t in cli} == set(
        tables.SECTION_TABLES["2.1"]
        + tables.SECTION_TABLES["2.2"]
        + tables.SECTION_TABLES["2.3"]
        + tables.SECTION_TABLES["2.4"]
    ) | {
        "table-limits",
        "table-limits-reach",
        "table-rest",
        "table-motion-coherence",
        "table-motion-tracking",
        "table-soft-reach",
    }
    for table in cli:
        rows = parser.tables[table["id"]]
        assert rows[0] == [" ".join(c.split()) for c in table["columns"]]
        assert rows[1:] == table["cells"]


def test_cli_text_and_csv_carry_the_same_cells(capsys):
    assert main(["tables", "--section", "2.4", "--format", "csv", "--lang", "en"]) == 0
    csv_text = capsys.readouterr().out
    assert main(["tables", "--section", "2.4", "--format", "json", "--lang", "en"]) == 0
    data = json.loads(capsys.readouterr().out)
    for row in data[0]["cells"]:
        assert ",".join(["table-4", *row]) in csv_text
    assert main(["tables", "--section", "2.4", "--lang", "en"]) == 0
    text = capsys.readouterr().out
    assert all(cell in text for row in data[0]["cells"] for cell in row)


# -- seed content and linked rows ------------------------------------------------------


def test_worked_example_is_the_law_of_cosines_of_the_straight_row():
    from fractions import Fraction

    from ikchain.lesson.tables import TABLE1_TARGETS

    facts = tables.table_facts()["worked"]
    l1, l2 = (Fraction(str(v)) for v in tables.lesson_chain(2).lengths)
    tx, ty = (Fraction(str(v)) for v in TABLE1_TARGETS[0])
    d2 = tx * tx + ty * ty
    assert Fraction(facts["d2"]) == d2
    assert Fraction(facts["l1_sq"]) == l1 * l1 and Fraction(facts["l2_sq"]) == l2 * l2
    assert Fraction(facts["top"]) == d2 - l1 * l1 - l2 * l2
    assert Fraction(facts["bottom"]) == 2 * l1 * l2
    assert Fraction(facts["cos"]) == (d2 - l1 * l1 - l2 * l2) / (2 * l1 * l2) == 1


def test_growth_factor_is_the_ratio_of_two_table_2b_cells():
    facts = tables.table_facts()
    by_ratio = {row["ratio"]: row for row in facts["reach"]}
    start, end = by_ratio[facts["growth_from"]], by_ratio[facts["growth_to"]]
    assert facts["growth"] == end["iterations"]["ccd"] / start["iterations"]["ccd"]
    assert 0.03 <= facts["growth_to"] - facts["growth_from"] <= 0.05
    assert facts["growth"] > 2  # the cost explodes near the edge


def test_table3_short_column_orders_the_rows_and_matches_a_solve():
    table = tables.compute_tables()["table-3"]
    shorts = [row[5] for row in table.values]
    assert shorts[2] > 1e3 * shorts[0]  # the folded start is far behind after 32 sweeps
    from ikchain.lesson.tables import SWEEPS_SHORT, TABLE3_STARTS, TABLE3_TARGET

    again = tables.solve(
        tables.lesson_chain(3),
        TABLE3_TARGET,
        "ccd",
        init=np.radians(TABLE3_STARTS[1][1]),
        max_iterations=SWEEPS_SHORT,
        tolerance=1e-15,
    )
    assert shorts[1] == again.error


@pytest.mark.parametrize(
    "table_id", ["table-1", "table-2", "table-2-damping", "table-3", "table-4"]
)
def test_every_row_link_reproduces_its_row_in_a_frame(table_id):
    """A row loaded into its figure is solved as a frame: the same answer as the row."""
    from ikchain.chain import Chain
    from ikchain.lesson.frames import FrameRequest, SolveRequest, frame_from_request
    from ikchain.lesson.tables import LENGTHS_BY_BONES

    table = tables.compute_tables()[table_id]
    assert table.links is not None and len(table.links) == len(table.values)
    for row, link in zip(table.values, table.links, strict=True):
        options = {"bend": link["bend"]}
        if link["method"] != "analytic":
            options.update(max_iterations=link["iterations"], damping=link["damping"])
            options["tolerance"] = link.get("tolerance", 1e-9)
            if "init" in link:
                options["init"] = link["init"]
        chain = Chain(LENGTHS_BY_BONES[link["bones"]])
        request = SolveRequest(chain, np.array(link["target"]), link["method"], options)
        frame = frame_from_request(FrameRequest(request, 1, None, None, None))
        error = {"table-1": 4, "table-2": 1, "table-2-damping": 2, "table-3": 2, "table-4": 2}
        assert frame["result"]["error"] == pytest.approx(row[error[table_id]], abs=1e-12)
