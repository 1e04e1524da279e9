"""The lesson's main path: short, one idea a section, and nothing lost on the way.

Counted from the page the server renders (``tests/page_words.py``): the main path is
what reads without opening a fold or the appendix. Folded and moved material must
still be on the page, readable as it is (a ``<details>`` opens without scripts).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import numpy as np
import pytest

import ikchain
from ikchain.lesson import content, predict
from ikchain.lesson.tables import LENGTHS_BY_BONES, TOLERANCE
from ikchain.web.app import render_page
from page_words import count_words, main_path_text

#: The main path's budget, English words (Chinese: the same share of its whole text).
WORDS = 5000


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return {lang: render_page(lang) for lang in ("en", "zh")}


def whole_text(html: str) -> str:
    """Every word of the body, folds and appendix included (scripts and SVG not)."""
    opened = re.sub(r"<details(?![^>]*\bopen\b)", "<details open", html)
    opened = opened.replace('id="under-the-hood"', 'id="hood-opened"')
    return main_path_text(opened)


def test_the_main_path_is_at_most_5000_english_words(pages: dict[str, str]) -> None:
    main = count_words(main_path_text(pages["en"]), "en")
    whole = count_words(whole_text(pages["en"]), "en")
    assert main <= WORDS, main
    assert whole > 1.5 * main  # the folds and the appendix hold the rest: it is there


def test_the_chinese_main_path_is_as_short_for_its_text(pages: dict[str, str]) -> None:
    en_main = count_words(main_path_text(pages["en"]), "en")
    en_whole = count_words(whole_text(pages["en"]), "en")
    zh_main = count_words(main_path_text(pages["zh"]), "zh")
    zh_whole = count_words(whole_text(pages["zh"]), "zh")
    # the same budget, scaled by how much longer the whole Chinese text counts
    assert zh_main <= WORDS * zh_whole / en_whole, (zh_main, zh_whole, en_whole)
    # and Chinese folds what English folds: the shares agree within 5 points
    assert abs(zh_main / zh_whole - en_main / en_whole) < 0.05


def test_the_counter_counts_what_it_should() -> None:
    html = (
        "<body><p>one two</p><details><summary>three</summary><p>hidden words</p></details>"
        "<svg><text>no</text></svg><script>var no;</script>"
        '<section id="under-the-hood"><p>moved words</p></section><p>four-five</p></body>'
    )
    assert count_words(main_path_text(html), "en") == 4
    assert count_words("两个字 and 词", "zh") == 5


class _Figures(HTMLParser):
    """Per figure: the form controls in its strip outside a closed ``<details>``."""

    def __init__(self) -> None:
        super().__init__()
        self.figure: str | None = None
        self.depth = 0
        self.in_controls = 0
        self.folded = 0
        self.shown: dict[str, list[str]] = {}
        self.menus: dict[str, list[str]] = {}
        self.in_menu = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "figure" and "ik-fig" in (a.get("class") or ""):
            self.figure = a["id"]
            self.shown[self.figure] = []
        if self.figure is None:
            return
        if tag == "fieldset" and "controls" in (a.get("class") or "").split():
            self.in_controls += 1
        elif tag == "details" and self.in_controls:
            self.folded += 1
        elif tag in ("select", "input", "button") and self.in_controls and not self.folded:
            self.shown[self.figure].append(a.get("name") or tag)
        if tag == "select" and a.get("name") == "method":
            self.in_menu = True
            self.menus[self.figure] = []
        if tag == "option" and self.in_menu and self.figure:
            self.menus[self.figure].append(a["value"] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self.in_menu = False
        if tag == "details" and self.folded:
            self.folded -= 1
        if tag == "fieldset" and self.in_controls and not self.folded:
            self.in_controls -= 1
        if tag == "figure":
            self.figure = None


def figures_of(html: str) -> _Figures:
    parser = _Figures()
    parser.feed(html)
    return parser


def test_each_figure_shows_at_most_three_controls(pages: dict[str, str]) -> None:
    found = figures_of(pages["en"])
    assert set(found.shown) == {f"fig-{s.key}" for s in content.SECTIONS if s.live_figure}
    for section in content.SECTIONS:
        if not section.live_figure:
            continue
        shown = found.shown[f"fig-{section.key}"]
        # the server's shown controls, plus the pole box the script adds where shown
        assert len(shown) + ("pole" in section.shown) <= content.SHOWN_MAX, shown
        assert set(shown) <= set(section.shown), (section.key, shown)
        # what is not shown is folded, not dropped: reset and the link are there
        figure = pages["en"].split(f'id="fig-{section.key}"')[1].split("</figure>")[0]
        assert 'class="ctl-more"' in figure and 'name="reset"' in figure
        assert 'data-control="link"' in figure


def test_method_menus_offer_only_methods_already_taught(pages: dict[str, str]) -> None:
    menus = figures_of(pages["en"]).menus
    assert "fig-s21" not in menus  # 2.1: the closed form only, no menu
    assert menus["fig-s22"] == ["analytic", "ccd"]  # 2.2 teaches CCD
    for fig, methods in menus.items():
        assert "jt" not in methods, fig  # the transpose is taught under the hood only
        assert set(methods) <= set(content.INTRODUCED)


def test_moved_material_is_on_the_page_and_readable(pages: dict[str, str]) -> None:
    for lang, html in pages.items():
        hood = html.split('id="under-the-hood"')[1]
        # Table ②d and Table ⑤b, the transpose and the certified set: in the appendix
        for table_id in ("table-2-stall-starts", "reach-table-s25"):
            assert html.count(f'id="{table_id}"') <= 1
        assert 'id="table-2-stall-starts"' in hood
        assert "reach" in hood
        text = content.load_text(lang)
        assert text["s22"]["transpose"][0][:30] in hood
        assert text["s22"]["transpose_title"] in hood
        assert text["s25"]["certified_title"] in hood
        # every table of every section is still on the page, once
        for section in content.SECTIONS:
            for table in content.tables_for_section(section.number, lang):
                assert html.count(f'id="{table["id"]}"') == 1, table["id"]
        # each fold has a summary line to open it by
        for summary in re.findall(r'<details class="more"[^>]*>\s*<summary>([^<]*)<', html):
            assert summary.strip()


def test_22_splits_ccd_from_why_it_slows(pages: dict[str, str]) -> None:
    html = pages["en"]
    s22 = html.split('id="s22"')[1].split('id="s23"')[0]
    slow = s22.split('id="s22-more-slow"')[1].split("</details>")[0]
    assert 'id="table-2b"' in slow and 'id="chart-2b"' in slow
    main = main_path_text(f"<body>{s22}</body>")
    assert "Table ②b" not in main or "②b" in content.load_text("en")["s22"]["slow_summary"]


def test_scrolling_table_wrappers_are_focusable_named_regions(pages: dict[str, str]) -> None:
    for html in pages.values():
        wraps = re.findall(r'<div class="table-wrap"([^>]*)>\s*<table[^>]*id="([^"]+)"', html)
        assert len(wraps) >= 10
        for attrs, table_id in wraps:
            assert 'tabindex="0"' in attrs and 'role="region"' in attrs, table_id
            label = re.search(r'aria-labelledby="([^"]+)"', attrs)
            assert label and f'id="{label.group(1)}"' in html, table_id


# -- the pole: offered only where it keeps its promise ----------------------------------


def elbow_left(joints: np.ndarray, target: np.ndarray) -> bool:
    """Whether the elbow (joint 1) lies left of the line from the root to the target."""
    ex, ey = joints[1]
    return bool(target[0] * ey - target[1] * ex > 0)


def test_the_pole_is_offered_only_in_two_bone_figures_without_a_bone_count() -> None:
    context = content.page_context("en")
    data = content.json.loads(context["data_json"])
    with_pole = [f for f in data["figures"].values() if f["options"]["pole"] is not None]
    assert [f["key"] for f in with_pole] == ["s27"]
    for fig in with_pole:
        assert fig["defaults"]["bones"] == 2 and "bones" not in fig["controls"]


@pytest.mark.parametrize("pole", [(0.3, 0.9), (0.9, -0.3), (-0.6, 0.2), (1.2, 0.2), (0.2, -0.9)])
@pytest.mark.parametrize("target", [(1.0, 0.6), (-0.7, 0.5), (0.3, -1.1), (0.5, 0.1)])
def test_every_method_the_pole_figure_offers_bends_toward_the_pole(
    pole: tuple[float, float], target: tuple[float, float]
) -> None:
    section = next(s for s in content.SECTIONS if s.pole)
    chain = ikchain.Chain(LENGTHS_BY_BONES[section.bones])
    t, p = np.array(target), np.array(pole)
    pole_left = bool(t[0] * p[1] - t[1] * p[0] > 0)
    for method in section.methods:
        options: dict[str, Any] = {}
        if method != "analytic":
            options = {"max_iterations": 64, "tolerance": TOLERANCE}
        r = ikchain.solve(chain, t, method, pole=p, **options)
        assert float(r.error) <= 1e-8, (method, r.status)
        assert elbow_left(np.asarray(r.joints), t) == pole_left, (method, target, pole)


# -- predict, then press ---------------------------------------------------------------


def test_every_main_section_asks_one_question(pages: dict[str, str]) -> None:
    for html in pages.values():
        for section in content.SECTIONS:
            block = html.split(f'id="predict-{section.key}"')
            assert len(block) == 2, section.key
            assert f'id="{section.key}"' in html.split(f'id="predict-{section.key}"')[0]
        # on the main path, its answer folded until asked
        assert re.search(r'<details class="predict-answer"><summary>', html)
    assert set(predict.QUESTIONS) == {s.key for s in content.SECTIONS}


def test_the_answers_are_the_solvers() -> None:
    """Each question's right choice, derived here without the page's code."""
    text = content.load_text("en")
    chain = ikchain.Chain(LENGTHS_BY_BONES[2])
    # 2.1: the straight arm, dA = 0 by the law of cosines: cos dA = 1
    assert predict.answer_for("s21", text)[0] == 0
    # 2.4: error = d − ΣL = 0.6 at d = 2.0
    choice, values = predict.answer_for("s24", text)
    assert choice == 1 and abs(float(values["error"]) - (2.0 - 1.4)) < 0.005
    # 2.7: a pole right of the line bends the elbow right of it: counter-clockwise
    choice, _ = predict.answer_for("s27", text)
    r = ikchain.solve(chain, np.array(predict.FIGURE_TARGET), "analytic", bend=1)
    assert not elbow_left(np.asarray(r.joints), np.array(predict.FIGURE_TARGET))  # dA>0: right
    assert choice == 0
    # 2.2: CCD's sweeps on the figure's target, re-solved here
    n = ikchain.solve(
        chain, np.array([1.0, 0.6]), "ccd", max_iterations=10_000, tolerance=TOLERANCE
    ).iterations
    choice, values = predict.answer_for("s22", text)
    assert values["sweeps"] == str(int(n)) and choice == (0 if n < 10 else 1 if n <= 100 else 2)
    s22 = next(s for s in content.SECTIONS if s.key == "s22")
    assert tuple(s22.target) == predict.FIGURE_TARGET
