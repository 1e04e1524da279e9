"""2.4's soft-reach player: its numbers against oracles written here, and the page.

Oracles, none of them ikchain's: the hard knee from the law of cosines (0 beyond ΣL);
the soft tip's distance from the root from the easing formula
d' = a + s(1 - exp(-(d - a)/s)) beyond a = ΣL - s; the knee of a drawn pose from its
joints (the angle between the two bone vectors). The table's cells are compared
with single-target solves formatted, the page through the app's TestClient.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import numpy as np
import pytest
from starlette.testclient import TestClient

import ikchain
from ikchain.formatting import format_angle, format_number
from ikchain.lesson import soft_reach
from ikchain.lesson.content import SECTIONS, load_text
from ikchain.lesson.labels import table_name
from ikchain.web.app import build_app

L1, L2 = 0.8, 0.6
OUTER = L1 + L2
SOFT = soft_reach.SOFT
#: Angles compared to this (°), positions and distances to this (m).
DEG_TOL = 1e-7
M_TOL = 1e-12
#: A drawn coordinate is the solver's rounded to a micrometre.
DRAWN_TOL = 0.5e-6 + 1e-12


def triangle(frames: int = 160, near: float = 1.0, far: float = 1.8) -> np.ndarray:
    """The stated path's distances, written here: near → far in frames/2 steps and back."""
    half = frames // 2
    k = np.arange(frames)
    return np.where(
        k <= half, near + (far - near) * k / half, far - (far - near) * (k - half) / half
    )


def law_of_cosines_knee_deg(d: np.ndarray) -> np.ndarray:
    """The two-bone knee angle (°, >= 0) that puts the tip at distance d; 0 past ΣL."""
    c = (d**2 - L1**2 - L2**2) / (2 * L1 * L2)
    return np.degrees(np.arccos(np.clip(c, -1.0, 1.0)))


def eased(d: np.ndarray, soft: float = SOFT) -> np.ndarray:
    start = OUTER - soft
    return np.where(d > start, start + soft * (1.0 - np.exp(-(d - start) / soft)), d)


def knee_from_joints_deg(joints: np.ndarray) -> np.ndarray:
    """The signed angle (°) from the first bone to the second, per pose (…, 3, 2)."""
    a = joints[..., 1, :] - joints[..., 0, :]
    b = joints[..., 2, :] - joints[..., 1, :]
    cross = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    dot = np.sum(a * b, axis=-1)
    return np.degrees(np.arctan2(cross, dot))


@pytest.fixture(scope="module")
def runs() -> soft_reach.SoftRuns:
    return soft_reach.soft_runs()


@pytest.fixture(scope="module")
def client():
    with TestClient(build_app(), base_url="http://127.0.0.1:8000") as test_client:
        yield test_client


@pytest.fixture(scope="module")
def pages(client) -> dict[str, str]:
    return {lang: client.get("/", params={"lang": lang}).text for lang in ("en", "zh")}


def page_data(html: str) -> dict:
    raw = re.search(r'<script type="application/json" class="sr-data">(.*?)</script>', html, re.S)
    assert raw is not None
    return json.loads(raw.group(1))


# -- the target and the two runs ------------------------------------------------------------


def test_the_target_moves_at_a_steady_speed_out_past_the_reach_and_back(runs) -> None:
    d = np.hypot(runs.targets[:, 0], runs.targets[:, 1])
    assert len(d) == soft_reach.FRAMES
    assert d[0] == pytest.approx(1.0, abs=M_TOL) and d.max() == pytest.approx(1.8, abs=M_TOL)
    # one step a frame, the loop closing on itself (the last frame to the first too)
    steps = np.abs(np.diff(d, append=d[:1]))
    np.testing.assert_allclose(steps, soft_reach.STEP, rtol=0, atol=1e-12)
    # all on one ray
    heading = np.arctan2(runs.targets[:, 1], runs.targets[:, 0])
    np.testing.assert_allclose(heading, soft_reach.HEADING, rtol=0, atol=1e-12)
    assert np.any(d > OUTER) and np.any(d < OUTER - SOFT)


def assert_knee_is_the_law_of_cosines(knee_deg: np.ndarray, d: np.ndarray) -> None:
    """Cosines compared everywhere (1e-12), angles where the knee is bent by more than
    1° (1e-7°): near straight, acos turns the oracle's own rounding of 1e-16 into 1e-6°."""
    c = np.clip((d**2 - L1**2 - L2**2) / (2 * L1 * L2), -1.0, 1.0)
    np.testing.assert_allclose(np.cos(np.radians(knee_deg)), c, rtol=0, atol=1e-12)
    bent = law_of_cosines_knee_deg(d) > 1.0
    assert bent.sum() >= len(d) // 3
    np.testing.assert_allclose(
        knee_deg[bent], law_of_cosines_knee_deg(d)[bent], rtol=0, atol=DEG_TOL
    )
    assert np.all(knee_deg >= 0.0)  # the bend of the section's chain: +1


def test_the_hard_knee_is_the_law_of_cosines(runs) -> None:
    d = triangle()
    np.testing.assert_allclose(np.hypot(*runs.targets.T), d, rtol=0, atol=M_TOL)
    assert_knee_is_the_law_of_cosines(runs.knee_deg("hard"), d)
    # and its tip is on the target, or straight toward it past ΣL
    tip = runs.hard.joints[:, -1, :]
    np.testing.assert_allclose(np.hypot(tip[:, 0], tip[:, 1]), np.minimum(d, OUTER), atol=M_TOL)


def test_the_soft_tip_lies_at_the_eased_distance_on_the_ray(runs) -> None:
    d = triangle()
    tip = runs.soft.joints[:, -1, :]
    np.testing.assert_allclose(np.hypot(tip[:, 0], tip[:, 1]), eased(d), rtol=0, atol=M_TOL)
    unit = runs.targets / d[:, None]
    cross = unit[:, 0] * tip[:, 1] - unit[:, 1] * tip[:, 0]
    np.testing.assert_allclose(cross, 0.0, atol=M_TOL)
    # the knee is the one that puts the tip there (law of cosines at the eased distance)
    assert_knee_is_the_law_of_cosines(runs.knee_deg("soft"), eased(d))


def test_the_soft_result_reports_the_true_target(runs) -> None:
    d = np.hypot(runs.targets[:, 0], runs.targets[:, 1])
    tip = runs.soft.joints[:, -1, :]
    np.testing.assert_allclose(
        runs.soft.error, np.hypot(*(tip - runs.targets).T), rtol=0, atol=M_TOL
    )
    np.testing.assert_allclose(runs.soft.min_error, np.maximum(0.0, d - OUTER), atol=M_TOL)
    status = np.array([str(s) for s in runs.soft.status])
    assert set(status[d <= OUTER - SOFT]) == {"converged"}
    assert set(status[d > OUTER - SOFT + 1e-9]) == {"softened"}


def test_the_hard_knee_pops_and_the_soft_one_does_not(pages) -> None:
    """From the page's embedded joints: the largest change of the knee between two
    frames, hard against soft (the pop is ~9 times the soft one's; several is asked)."""
    data = page_data(pages["en"])
    jumps = {}
    for run in ("hard", "soft"):
        knee = knee_from_joints_deg(np.array(data["runs"][run]["joints"]))
        jumps[run] = float(np.max(np.abs(np.diff(knee))))
    assert jumps["hard"] >= 5 * jumps["soft"], jumps
    # the pop is the frame that reaches ΣL: from 1.39 m to 1.40 m, as the law says
    expected = float(np.diff(law_of_cosines_knee_deg(np.array([1.39, 1.40])))[0])
    assert jumps["hard"] == pytest.approx(abs(expected), abs=1e-3)


# -- the embedded data, the picture and the table --------------------------------------------


def test_the_embedded_frames_are_the_solves(pages, runs) -> None:
    for html in pages.values():
        data = page_data(html)
        assert data["frames"] == soft_reach.FRAMES
        np.testing.assert_allclose(data["targets"], runs.targets, atol=DRAWN_TOL)
        for run in ("hard", "soft"):
            result = runs.run(run)
            got = data["runs"][run]
            np.testing.assert_allclose(got["joints"], result.joints, atol=DRAWN_TOL)
            assert got["knee"] == [format_angle(a, 1) for a in result.angles[:, 1]]
            assert got["error"] == [format_number(e, 4) for e in result.error]
            assert len(got["y"]) == len(data["cursor"]) == soft_reach.FRAMES


def _attr(markup: str, cls: str, name: str) -> str:
    found = re.search(rf'class="{cls}"[^>]*?\b{name}="([^"]+)"', markup)
    assert found is not None, (cls, name)
    return found.group(1)


def test_the_static_picture_is_the_middle_frame(pages, runs) -> None:
    frame = soft_reach.STATIC_FRAME
    d = float(np.hypot(*runs.targets[frame]))
    assert d == pytest.approx(OUTER, abs=M_TOL)  # the frame that reaches ΣL
    for html in pages.values():
        block = html[html.index('id="soft-reach"') :]
        for run in ("hard", "soft"):
            start = block.index(f'class="sr-panel" data-run="{run}"')
            panel = block[start : block.index("</svg>", start)]
            points = [
                [float(v) for v in p.split(",")] for p in _attr(panel, "bones", "points").split()
            ]
            np.testing.assert_allclose(points, runs.run(run).joints[frame], atol=DRAWN_TOL)
            ring = [float(_attr(panel, "target-ring", k)) for k in ("cx", "cy")]
            np.testing.assert_allclose(ring, runs.targets[frame], atol=DRAWN_TOL)
            assert float(_attr(panel, "reach-outer", "r")) == pytest.approx(OUTER, abs=M_TOL)
        # the hard chain lies straight, the soft one is still bent
        assert runs.knee_deg("hard")[frame] == pytest.approx(0.0, abs=DEG_TOL)
        assert runs.knee_deg("soft")[frame] > 30


class _Table(HTMLParser):
    """The cells of <table id="table-soft-reach">, row by row."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.inside = False
        self.cell: str | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and dict(attrs).get("id") == "table-soft-reach":
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th") and self.rows:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif self.inside and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(self.cell.strip())
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_table_cells_are_the_solvers_values_formatted(pages, runs, lang) -> None:
    parser = _Table()
    parser.feed(pages[lang])
    header, *rows = parser.rows
    text = load_text(lang)
    assert header == text["s24"]["soft_columns"]
    assert len(rows) == len(soft_reach.TABLE_FRAMES) >= 4
    chain = ikchain.Chain([L1, L2])
    for row, frame in zip(rows, soft_reach.TABLE_FRAMES, strict=True):
        target = runs.targets[frame]
        hard = ikchain.solve(chain, target, "analytic")  # one target, solved afresh
        soft = ikchain.solve(chain, target, "analytic", soft=SOFT)
        d = float(np.hypot(*target))
        assert row == [
            format_number(d, 2),
            format_angle(float(hard.angles[1]), 2),
            format_angle(float(soft.angles[1]), 2),
            format_number(float(soft.error), 4),
            format_number(float(soft.min_error), 4),
            text["status"][str(soft.status)],
        ]
        # and against the oracles: the knees, and the soft error is d - d'
        assert float(row[1].rstrip("°")) == pytest.approx(
            float(law_of_cosines_knee_deg(np.array(d))), abs=0.005 + DEG_TOL
        )
        assert float(row[3]) == pytest.approx(d - float(eased(np.array(d))), abs=0.5e-4 + M_TOL)
        assert float(row[4]) == pytest.approx(max(0.0, d - OUTER), abs=0.5e-4)
    statuses = {row[-1] for row in rows}
    assert text["status"]["softened"] in statuses and text["status"]["converged"] in statuses


# -- the text and the page ------------------------------------------------------------------


def test_the_block_follows_the_smoothing_text_in_24() -> None:
    s24 = next(s for s in SECTIONS if s.key == "s24")
    blocks = list(s24.blocks)
    at = blocks.index(("soft-reach", ""))
    assert blocks[at - 1] == ("text", "soft") and blocks[at - 2] == ("text", "smoothing")
    assert blocks[at + 1] == ("soft-reach-table", "")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_text_quotes_the_solvers_numbers(pages, runs, lang) -> None:
    d = triangle()
    hard = law_of_cosines_knee_deg(d)
    soft = law_of_cosines_knee_deg(eased(d))
    loop = lambda k: np.abs(np.diff(k, append=k[:1]))  # noqa: E731
    at_reach = int(np.argmin(np.abs(d - OUTER)))
    text = " ".join(load_text(lang)["s24"]["soft"])
    for quoted in (
        f"{np.max(loop(hard)):.1f}°",
        f"{np.max(loop(soft)):.1f}°",
        f"{abs(hard[1] - hard[0]):.1f}°",
        f"{OUTER - eased(np.array(OUTER)):.4f} m",  # s/e short at d = ΣL
        f"{soft[at_reach]:.1f}°",
        "s = 0.2 m",
    ):
        assert quoted in text, quoted
    # the text names the player's table as its caption does
    assert table_name("table-soft-reach", load_text(lang)) in text
    html = pages[lang]
    for paragraph in load_text(lang)["s24"]["soft"]:
        assert paragraph in html
    # the paragraph comes before the player, the player before section 2.5
    assert html.index(load_text(lang)["s24"]["soft"][0]) < html.index('id="soft-reach"')
    assert (
        html.index('id="soft-reach"') < html.index('id="table-soft-reach"') < html.index('id="s25"')
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_block_reads_without_scripts(pages, lang) -> None:
    """Picture, chart, table and the frame's texts are server-rendered; the controls
    stay disabled until soft.js enables them; the labels are the page's language."""
    html = pages[lang]
    words = load_text(lang)["s24"]
    block = html[html.index('id="soft-reach"') : html.index('id="s25"')]
    assert block.count('class="sr-panel"') == 2 and 'class="ik-chart sr-chart"' in block
    assert '<fieldset class="sr-controls" disabled' in block
    assert f">{words['soft_play']}</button>" in block
    assert f'aria-label="{words["soft_scrub"]}"' in block
    assert words["soft_hard"] in block and words["soft_soft"] in block
    assert 'id="table-soft-reach"' in block
    assert '<script src="/static/soft.js" defer></script>' in html
    # the status line is the static frame's, filled as soft.js fills it
    data = page_data(html)
    shown = soft_reach.frame_words(data, soft_reach.STATIC_FRAME)
    assert f">{shown['position']}</p>" in block
    assert "%" not in shown["position"]
    # the chart's cursor stands at the static frame
    cursor = re.search(r'<line class="cursor" x1="([^"]+)"', block)
    assert cursor is not None
    assert float(cursor.group(1)) == pytest.approx(data["cursor"][soft_reach.STATIC_FRAME])


def test_the_static_assets_are_served(client) -> None:
    assert client.get("/static/soft.js").status_code == 200
    assert client.get("/static/soft.css").status_code == 200
