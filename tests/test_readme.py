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


def test_every_dotted_name_the_readme_cites_resolves_after_import_ikchain():
    """``ikchain.family.angles_from_family`` and the like, as the README writes them,
    work after a bare ``import ikchain`` (no ``import ikchain.family`` first); a
    module named to run with ``python -m`` or imported with ``from`` is not an
    attribute path."""
    import subprocess
    import sys

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    names = sorted(set(re.findall(r"(?<!-m )(?<!from )\bikchain(?:\.[A-Za-z_]\w*)+", text)))
    assert "ikchain.family" in names  # the README's family sentence is read
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
    assert numba == "False"  # import ikchain still does not import numba


def test_the_version_is_written_once_in_pyproject():
    import tomllib

    import ikchain

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert ikchain.__version__ == project["version"]
    init = (ROOT / "src" / "ikchain" / "__init__.py").read_text(encoding="utf-8")
    assert project["version"] not in init  # read from the installed metadata, not retyped
