"""The README's two commands stay true: CI runs exactly the README's test command."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.+?)\n```", text)


def test_readme_opens_with_two_commands():
    commands = readme_commands()
    assert len(commands) >= 2
    assert "ikchain" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert readme_commands()[1] in ci.splitlines()


def test_the_caps_table_is_the_servers():
    from ikchain.caps import CAPS

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(max_\w+)`[^|]*\| ([\d,]+) \|$", text, flags=re.MULTILINE)
    assert {name: int(value.replace(",", "")) for name, value in rows} == CAPS
