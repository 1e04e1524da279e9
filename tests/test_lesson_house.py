"""The lesson's house rules: no import circles, the block registry built in
one place, and the page data escaped once."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
LESSON = SRC / "ikchain" / "lesson"


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Every ikchain module → the ikchain modules it imports, at any depth of the
    file (an import inside a function closes a circle as surely as one at the top)."""
    files = {module_name(p): p for p in (SRC / "ikchain").rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            found: list[str] = []
            if isinstance(node, ast.Import):
                found = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                # "from ikchain.lesson import replay" imports the module replay (and,
                # unless every name is a submodule, the package's own code)
                names = [f"{base}.{alias.name}" for alias in node.names]
                found = names if all(n in files for n in names) else [base, *names]
            graph[name].update(f for f in found if f in files and f != name)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_the_graph_reader_sees_a_circle_through_a_function_level_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_lesson_module_sits_in_an_import_circle():
    graph = import_graph()
    # the reader finds the imports the lesson is known to make
    assert "ikchain.lesson.frames" in graph["ikchain.lesson.replay"]
    assert "ikchain.lesson.words" in graph["ikchain.lesson.content"]
    lesson = [g for g in circles(graph) if any(m.startswith("ikchain.lesson") for m in g)]
    assert lesson == []


def test_no_lesson_module_edits_a_module_level_table_after_building_it():
    """A registry (or any table) is written in one statement: no ``NAME[k] = …``,
    ``NAME.update(…)`` or ``NAME = (*NAME, …)`` at a module's top level."""
    edits = []
    for path in sorted(LESSON.glob("*.py")):
        bound: set[str] = set()
        for stmt in ast.parse(path.read_text(encoding="utf-8")).body:
            targets: list[ast.expr] = []
            if isinstance(stmt, ast.Assign):
                targets = stmt.targets
            elif isinstance(stmt, ast.AnnAssign | ast.AugAssign):
                targets = [stmt.target]
            for t in targets:
                if isinstance(t, ast.Subscript) or isinstance(stmt, ast.AugAssign):
                    edits.append(f"{path.name}:{stmt.lineno}")
                elif isinstance(t, ast.Name):
                    if t.id in bound:
                        edits.append(f"{path.name}:{stmt.lineno}")
                    bound.add(t.id)
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                func = stmt.value.func
                if isinstance(func, ast.Attribute) and func.attr in ("update", "setdefault"):
                    edits.append(f"{path.name}:{stmt.lineno}")
    assert edits == []


def test_the_block_registry_is_read_off_one_declared_list():
    content = pytest.importorskip("ikchain.lesson.content")
    kinds = [k.kind for k in content.BLOCK_KINDS]
    assert len(kinds) == len(set(kinds))
    assert set(content.BLOCKS) == set(kinds)
    assert set(content.TABLE_BLOCKS) == {k.kind for k in content.BLOCK_KINDS if k.table}
    # every kind a section lists, beyond text, figure, the source's tables and chart,
    # has a builder
    listed = {kind for s in content.SECTIONS for kind, _ in s.blocks}
    assert listed - {"text", "figure", "table", "chart"} == set(kinds)


HOSTILE = {"a": "</script><script>alert(1)</script>", "b": "<!-- x", "c": "x < y"}


def test_script_json_lets_no_angle_bracket_through_and_reads_back_equal():
    content = pytest.importorskip("ikchain.lesson.content")
    text = content.script_json(HOSTILE)
    assert "<" not in text
    assert json.loads(text) == HOSTILE


def test_the_page_escapes_its_data_once():
    """The data element holds ``script_json``'s text verbatim: the template adds no
    escape of its own (the one escape is :func:`content.script_json`)."""
    testclient = pytest.importorskip("starlette.testclient")
    from ikchain.lesson.content import page_context, script_json
    from ikchain.web.app import build_app

    context = page_context("en")
    data = json.loads(context["data_json"])
    assert context["data_json"] == script_json(data)
    client = testclient.TestClient(build_app(), base_url="http://127.0.0.1:8000")
    html = client.get("/?lang=en").text
    raw = re.search(r'<script type="application/json" id="lesson-data">(.*?)</script>', html, re.S)
    assert raw is not None
    assert raw.group(1) == context["data_json"]
    template = (SRC / "ikchain" / "web" / "templates" / "page.html").read_text(encoding="utf-8")
    assert re.search(r"data_json\s*\|\s*safe\s*}}", template)


STATIC = SRC / "ikchain" / "web" / "static"


def scripts() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(STATIC.glob("*.js"))}


def test_the_page_data_says_what_each_method_takes_as_solve_does():
    """The method table the page reads is what ``solve`` itself accepts: an option the
    table omits is refused, one it lists is taken; the closed form wants two bones."""
    content = pytest.importorskip("ikchain.lesson.content")
    import ikchain

    facts = content.method_facts()
    assert list(facts) == ["analytic", "ccd", "fabrik", "jt", "dls"]  # the method menu's order
    two, three = ikchain.Chain([0.8, 0.6]), ikchain.Chain([0.5, 0.4, 0.3])
    trial = {
        "init": ("init", [0.1, 0.2]),
        "iterations": ("max_iterations", 10),
        "tolerance": ("tolerance", 1e-6),
        "damping": ("damping", 0.5),
        "bend": ("bend", 1),
        "rest": ("rest", [0.1, 0.2]),
    }
    for method, fact in facts.items():
        for key, (option, value) in trial.items():
            kwargs = {option: value}
            if option == "rest":
                kwargs["rest_weight"] = 0.5
            try:
                ikchain.solve(two, [1.0, 0.5], method, **kwargs)
                accepted = True
            except ValueError:
                accepted = False
            assert accepted == (key in fact["takes"]), (method, key)
        try:
            ikchain.solve(three, [0.9, 0.5], method)
            any_bones = True
        except ValueError:
            any_bones = False
        assert (fact["bones"] is None) == any_bones, method
    assert [m for m, f in facts.items() if f["replay"]] == ["ccd", "fabrik", "jt", "dls"]
    assert [m for m, f in facts.items() if f["joint_steps"]] == ["ccd"]  # one joint a turn


def test_no_script_decides_by_a_method_name():
    """Every method fact comes from the server's data: no script spells a method."""
    for name, text in scripts().items():
        for method in ("analytic", "ccd", "fabrik", "dls"):
            assert f'"{method}"' not in text and f"'{method}'" not in text, (name, method)


def test_no_script_retypes_a_size_or_colour_the_server_draws_with():
    """The joint radius and every other drawing size are figures.STYLE's, the limit
    colours limits_page.limits_layer's: the scripts read the server's data and SVG."""
    figures = pytest.importorskip("ikchain.lesson.figures")
    limits_page = pytest.importorskip("ikchain.lesson.limits_page")
    frame = {"reach": {"outer": 1.4}, "limits": {"arcs": [], "at_limit": []}}
    layer = limits_page.limits_layer(frame, "", "", "clip")
    colours = set(re.findall(r"#[0-9a-fA-F]{6}", layer))
    assert len(colours) >= 3
    for name, text in scripts().items():
        for key, value in figures.STYLE.items():
            assert not re.search(rf"(?<![\d.]){re.escape(str(value))}(?!\d)", text), (name, key)
        for colour in colours:
            assert colour.lower() not in text.lower(), (name, colour)


def test_the_extensions_change_only_their_own_part_of_a_figure_and_no_labels():
    """replay.js and choose.js write fig.state.replay / fig.state.choose and nothing
    else of the figure's state (the rest goes through the figure's methods), and they
    write into no shared labels."""
    for name in ("replay.js", "choose.js", "motion.js"):
        text = scripts()[name]
        writes = re.findall(r"fig\.state\.(\w+)(?:\.\w+)*\s*=[^=]", text)
        assert set(writes) <= {"replay", "choose"}, (name, writes)
        assert not re.search(r"(API\.labels|LABELS)(\.\w+|\[[^\]]+\])+\s*=[^=]", text), name
        assert "fig.replay" not in text and "fig.state.shown" not in text, name


def test_a_drag_frame_repeats_nothing_its_result_holds():
    """The frame reply carries the Result once: its target, status and reachability
    are read from ``result``, not from copies beside it."""
    from ikchain.lesson import content

    for section in content.SECTIONS:
        if not section.live_figure:
            continue
        frame = content.default_frame(section)
        assert set(frame) & set(frame["result"]) == set(), section.key
        assert {"target", "status", "reachable"} <= set(frame["result"])


def test_no_module_of_the_package_sits_in_an_import_circle():
    """The whole package, the bench and the solvers included."""
    graph = import_graph()
    assert "ikchain.bench.drags" in graph["ikchain.bench.server"]  # the reader sees it
    assert circles(graph) == []


def test_every_placeholder_the_text_may_use_is_documented():
    """en.toml's [placeholders] table names every value the server fills in, and no
    value it does not fill: a reader of the text files can look each one up."""
    import tomllib

    from ikchain.lesson import words

    path = words.__file__.replace("words.py", "text/en.toml")
    with open(path, "rb") as handle:
        documented = set(tomllib.load(handle)["placeholders"])
    assert documented == set(words.placeholder_values())
