"""The README is the front door: its two commands stay true (CI runs exactly its test
command), its example runs, and it stays short, with no dated figures (those live in
the docs' changelog and benchmarks pages, tests/test_docs.py)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def readme_commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.+?)\n```", text)


def test_readme_opens_with_two_commands():
    commands = readme_commands()
    assert len(commands) >= 2
    assert "ikchain" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert readme_commands()[1] in ci.splitlines()


def test_ci_builds_the_docs_with_the_readme_command():
    """The README's docs build command, warnings as errors, is the one .ci/run runs."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    docs = [command for command in readme_commands() if "sphinx-build" in command]
    assert len(docs) == 1 and " -W " in docs[0]
    assert docs[0] in ci.splitlines()


def test_the_readme_is_a_front_door():
    """At most 6,000 characters, and no dated measurements (no 2026-12-04, no '(load
    1.2)'): the history is the changelog's."""
    text = README.read_text(encoding="utf-8")
    assert len(text) <= 6000
    assert re.findall(r"\b20\d\d-\d\d-\d\d\b", text) == []
    assert "load average" not in text


def test_the_readme_example_runs():
    """The README's Python example runs as written."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.+?)```", text, flags=re.DOTALL)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def test_the_readme_links_resolve():
    """Every relative link and picture of the README names a file in the repository."""
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#]+)\)", text)
    assert "docs/_static/lesson.png" in targets
    missing = [t for t in targets if "://" not in t and not (ROOT / t).exists()]
    assert missing == []


def test_the_version_is_written_once_in_pyproject():
    import tomllib

    import ikchain

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert ikchain.__version__ == project["version"]
    init = (ROOT / "src" / "ikchain" / "__init__.py").read_text(encoding="utf-8")
    assert project["version"] not in init  # read from the installed metadata, not retyped
