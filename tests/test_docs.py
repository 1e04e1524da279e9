"""The documentation site (docs/) says what the code does.

- Every ``>>>`` example on the guide pages and in the package's docstrings runs as a
  doctest here, so the numbers the docs show are the code's.
- The tables that restate the server's caps and connection limits
  (docs/guide/server.rst) equal :mod:`ikchain.caps`.
- Every dotted name the README and the guide cite resolves after a bare
  ``import ikchain``, and every public name is in the API reference.

The docs build itself (``sphinx-build -W docs docs/_build``, which also runs the
gallery's scripts) is a step of ``.ci/run``.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ikchain

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SERVER_GUIDE = DOCS / "guide" / "server.rst"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def written_pages() -> list[Path]:
    """The hand-written pages: not the build, nor what the build generates."""
    generated = (DOCS / "_build", DOCS / "auto_examples", DOCS / "api" / "generated")
    return sorted(
        page
        for page in DOCS.rglob("*.rst")
        if not any(page.is_relative_to(folder) for folder in generated)
        and page.name != "sg_execution_times.rst"  # the gallery's timing page
    )


def modules() -> list[str]:
    """Every module of the package (``__main__`` modules would run a program)."""
    names = ["ikchain"]
    for info in pkgutil.walk_packages(ikchain.__path__, "ikchain."):
        if not info.name.endswith("__main__"):
            names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("page", written_pages(), ids=lambda page: str(page.relative_to(DOCS)))
def test_the_examples_on_each_page_run(page: Path) -> None:
    failed, _ = doctest.testfile(
        str(page), module_relative=False, optionflags=FLAGS, encoding="utf-8", verbose=False
    )
    assert failed == 0, f"{page.relative_to(ROOT)}: {failed} example(s) failed (printed above)"


def test_the_guide_pages_hold_examples() -> None:
    """Most guide pages show the code at work (the ones that do not are prose about the
    server, the development process and the benchmarks)."""
    with_examples = [p.name for p in written_pages() if ">>> " in p.read_text(encoding="utf-8")]
    assert len(with_examples) >= 12


@pytest.mark.parametrize("name", modules())
def test_the_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    failed, _ = doctest.testmod(module, optionflags=FLAGS, verbose=False)
    assert failed == 0, f"{name}: {failed} docstring example(s) failed (printed above)"


def list_table_rows(text: str) -> dict[str, str]:
    """``name -> value`` of each two-column ``list-table`` row whose first cell starts
    with a literal name: ``* - ``max_bones`` — ...`` then ``- 32``."""
    rows = re.findall(r"^\s*\* - ``(\w+)``[^\n]*\n\s*- ([^\n]+)$", text, flags=re.MULTILINE)
    return dict(rows)


def number(cell: str) -> int:
    return int(cell.removesuffix(" s").replace(",", ""))


def section(text: str, title: str) -> str:
    start = text.index(title)
    rest = text[start:]
    end = re.search(r"\n[^\n]+\n=+\n", rest[len(title) + 1 :])
    return rest if end is None else rest[: len(title) + 1 + end.start()]


def test_the_caps_table_is_the_servers() -> None:
    from ikchain.caps import CAPS

    text = section(SERVER_GUIDE.read_text(encoding="utf-8"), "Caps per request")
    stated = {name: number(value) for name, value in list_table_rows(text).items()}
    assert stated == CAPS


def test_the_server_guide_states_every_connection_limit() -> None:
    from ikchain.caps import CONNECTION_LIMITS

    text = section(SERVER_GUIDE.read_text(encoding="utf-8"), "No client can hold")
    stated = {name: number(value) for name, value in list_table_rows(text).items()}
    assert {name: stated.get(name) for name in CONNECTION_LIMITS} == CONNECTION_LIMITS


def cited_names() -> list[str]:
    """Dotted ``ikchain.`` names as the README and the guide write them in prose; a
    module named to run (``-m``) or imported (``from``, ``import``) is not an attribute
    path, and the API pages' directives are checked by the docs build itself."""
    sources = [ROOT / "README.md"] + [
        page for page in written_pages() if not page.is_relative_to(DOCS / "api")
    ]
    pattern = r"(?<!-m )(?<!from )(?<!import )\bikchain(?:\.[A-Za-z_]\w*)+"
    names: set[str] = set()
    for source in sources:
        # a Sphinx cross-reference (:func:`ikchain.x`) is checked by the build instead
        # (conf.py's nitpicky: a reference to nothing fails it)
        text = re.sub(r":\w+:`[^`]*`", "", source.read_text(encoding="utf-8"))
        names.update(re.findall(pattern, text))
    return sorted(names)


def test_every_dotted_name_cited_resolves_after_import_ikchain() -> None:
    """``ikchain.family.angles_from_family`` and the like, as the README and the guide
    write them, work after a bare ``import ikchain`` (no ``import ikchain.family``
    first); and ``import ikchain`` still does not import numba."""
    names = cited_names()
    assert "ikchain.solvers.OPTIONS" in names  # the guide's prose is read
    script = (
        "import functools, sys, ikchain\n"
        "bad = []\n"
        "for name in sys.argv[1:]:\n"
        "    try:\n"
        "        functools.reduce(getattr, name.split('.')[1:], ikchain)\n"
        "    except AttributeError as error:\n"
        "        bad.append(f'{name}: {error}')\n"
        "print('\\n'.join(bad))\n"
        "print('numba' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, *names], capture_output=True, text=True, check=True
    )
    *bad, numba = done.stdout.strip().split("\n")
    assert [line for line in bad if line] == []
    assert numba == "False"


def autosummary_entries(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    blocks = re.findall(r"\.\. autosummary::\n(?:   :[^\n]*\n)*\n((?:   \S[^\n]*\n)+)", text)
    return [line.strip() for block in blocks for line in block.splitlines()]


def test_every_public_name_is_in_the_api_reference() -> None:
    top = set(autosummary_entries(DOCS / "api" / "index.rst"))
    listed_modules = set(autosummary_entries(DOCS / "api" / "modules.rst"))
    for name in ikchain.__all__:
        if name == "__version__":
            continue
        if isinstance(getattr(ikchain, name), type(ikchain)):
            assert f"ikchain.{name}" in listed_modules, name
        else:
            assert name in top, name
    assert {"ikchain.solvers", "ikchain.kinematics", "ikchain.caps"} <= listed_modules


def test_the_gallery_has_its_examples() -> None:
    scripts = sorted((ROOT / "examples").glob("plot_*.py"))
    assert len(scripts) >= 6
    for script in scripts:
        head = script.read_text(encoding="utf-8").lstrip()
        assert head.startswith('"""'), f"{script.name}: a gallery script opens with its title"
