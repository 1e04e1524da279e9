"""``ikchain bench startup``: what a newcomer waits for, from a fresh process.

Each figure is the wall time of a new process, with the kernels' disk cache warm (as
after the first run) and empty (a fresh ``NUMBA_CACHE_DIR``, as on the very first
run, when numba compiles what it needs):

* ``ikchain solve --method M`` for each method (the program: plain Python for small
  solves, see ``cli.INTERPRET_UP_TO``);
* a library script's first ``ikchain.solve(..., method=M)`` (``import ikchain`` included);
* ``ikchain lesson``: until it prints "serving on", until its page answers, until it
  is *usable* (the page, a frame solved over HTTP and one over the WebSocket, every
  table on the page), and the longest silence on its terminal meanwhile;
* with ``--pip``: ``pip install -e '.[lesson]'`` into a new virtual environment, the
  step before all of these on a newcomer's machine.

``--against SRC`` measures another source tree (e.g. a worktree of an older commit,
``SRC`` being its ``src`` folder) in the same run, figure by figure, so the two can be
read side by side on the same machine at the same load.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ikchain.arguments import OneLineParser, integer_in

METHODS = ("analytic", "dls", "ccd", "fabrik", "jt")
#: The start-up goals (seconds): first CLI solve, cache empty and warm; the lesson
#: serving, cache empty; the longest silence on the lesson's terminal meanwhile.
GOALS = {
    "cli_cold": 3.0,
    "cli_warm": 0.4,
    "lesson_cold": 8.0,
    "lesson_warm": 4.0,
    "silence": 2.0,
}

_LIBRARY = "import sys, ikchain; ikchain.solve(ikchain.Chain([0.8, 0.6]), [1.0, 0.5], sys.argv[1])"


def _environment(tree: Path | None, cache: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    env.pop("IKCHAIN_JIT", None)
    return env


def _wall(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, env=env, capture_output=True, timeout=900, check=True)
    return time.perf_counter() - started


#: What a usable page must hold: each of the lesson's tables (their captions' marks).
_TABLE_MARKS = ("<table",)
#: The frame a usable server must solve, over HTTP and over the WebSocket.
_FRAME = {"lengths": [0.8, 0.6], "target": [1.0, 0.5], "method": "ccd"}


def _usable(url: str) -> None:
    """Raise unless the lesson at ``url`` is usable: its page with its tables, and a
    frame solved over HTTP and over the WebSocket (the page's two ways to ask)."""
    from websockets.sync.client import connect
    from websockets.typing import Origin

    with urllib.request.urlopen(url, timeout=300) as reply:
        page = reply.read().decode("utf-8")
    if not all(mark in page for mark in _TABLE_MARKS):
        raise RuntimeError("the lesson's page came without its tables")
    origin = url.rstrip("/")
    request = urllib.request.Request(
        origin + "/api/frame",
        data=json.dumps({"id": 1, **_FRAME}).encode(),
        headers={"content-type": "application/json", "origin": origin},
    )
    with urllib.request.urlopen(request, timeout=300) as reply:
        if not json.loads(reply.read())["ok"]:
            raise RuntimeError("the lesson's HTTP frame was not solved")
    ws_url = origin.replace("http://", "ws://") + "/ws"
    with connect(ws_url, origin=Origin(origin), open_timeout=300.0) as ws:
        ws.send(json.dumps({"id": 2, **_FRAME}))
        if not json.loads(ws.recv(timeout=300))["ok"]:
            raise RuntimeError("the lesson's WebSocket frame was not solved")


def _lesson(env: dict[str, str]) -> dict[str, float]:
    """Seconds until "serving on", until ``GET /`` answers with the lesson (not the
    notice shown while the solvers compile), until the lesson is usable
    (:func:`_usable`), and the longest gap between lines on stderr (or since the
    start) before serving."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "ikchain", "lesson", "--port", "0", "--no-browser"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[float] = [started]

    def read_stderr() -> None:
        assert process.stderr is not None
        for _ in process.stderr:
            lines.append(time.perf_counter())

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        assert process.stdout is not None
        url = ""
        for line in process.stdout:
            if "serving on" in line:
                url = line.split("serving on", 1)[1].split()[0]
                break
        serving = time.perf_counter()
        if not url:
            raise RuntimeError("ikchain lesson ended without serving")
        while True:  # the notice (503, "reloads itself") until the lesson is ready
            try:
                with urllib.request.urlopen(url, timeout=300) as reply:
                    reply.read()
                break
            except urllib.error.HTTPError as error:
                if error.code != 503 or time.perf_counter() - started > 600:
                    raise
                time.sleep(0.2)
        answered = time.perf_counter()
        _usable(url)
        usable = time.perf_counter()
    finally:
        process.terminate()
        process.wait(timeout=30)
    marks = [t for t in lines if t <= serving] + [serving]
    silence = max(b - a for a, b in itertools.pairwise(marks)) if len(marks) > 1 else 0
    return {
        "serving_s": serving - started,
        "page_s": answered - started,
        "usable_s": usable - started,
        "longest_silence_s": silence,
    }


def measure(tree: Path | None, repeats: int) -> dict[str, Any]:
    """Every figure for the code in ``tree`` (None: this one), cache empty and warm."""
    python = sys.executable
    data: dict[str, Any] = {"cli": {}, "library": {}, "lesson": {}}
    for method in METHODS:
        solve = [python, "-m", "ikchain", "solve", "--lengths", "0.8,0.6", "--target", "1,0.5"]
        solve += ["--method", method]
        library = [python, "-c", _LIBRARY, method]
        for name, command in (("cli", solve), ("library", library)):
            with tempfile.TemporaryDirectory() as cache:
                env = _environment(tree, cache)
                cold = _wall(command, env)
                warm = min(_wall(command, env) for _ in range(repeats))
            data[name][method] = {"cold_s": cold, "warm_s": warm}
    with tempfile.TemporaryDirectory() as cache:
        env = _environment(tree, cache)
        data["lesson"]["cold"] = _lesson(env)
        data["lesson"]["warm"] = _lesson(env)
    return data


def pip_seconds() -> float:
    """Wall seconds of ``python -m venv`` and ``pip install -e '.[lesson]'`` of this
    tree into a new environment (the README's first command, before the lesson)."""
    root = Path(__file__).resolve().parents[3]
    if not (root / "pyproject.toml").is_file():
        raise RuntimeError(f"--pip: expected a source checkout around {root}")
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "venv", folder], check=True, timeout=900)
        pip = [str(Path(folder) / "bin" / "pip"), "install", "-q", "-e", f"{root}[lesson]"]
        subprocess.run(pip, check=True, timeout=900, capture_output=True)
        return time.perf_counter() - started


def goals(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Each start-up goal, the figure it is judged on and whether it is met."""
    cli = data["cli"]
    cold = max(cli[m]["cold_s"] for m in METHODS)
    warm = max(cli[m]["warm_s"] for m in METHODS)
    lesson = data["lesson"]["cold"]
    return [
        {"goal": "first ikchain solve, any method, cache empty <= 3 s", "seconds": cold,
         "met": cold <= GOALS["cli_cold"]},
        {"goal": "ikchain solve, cache warm <= 0.4 s", "seconds": warm,
         "met": warm <= GOALS["cli_warm"]},
        {"goal": "ikchain lesson serving, cache empty <= 8 s", "seconds": lesson["serving_s"],
         "met": lesson["serving_s"] <= GOALS["lesson_cold"]},
        {"goal": "ikchain lesson usable, cache empty <= 8 s", "seconds": lesson["usable_s"],
         "met": lesson["usable_s"] <= GOALS["lesson_cold"]},
        {"goal": "ikchain lesson usable, cache warm <= 4 s",
         "seconds": data["lesson"]["warm"]["usable_s"],
         "met": data["lesson"]["warm"]["usable_s"] <= GOALS["lesson_warm"]},
        {"goal": "ikchain lesson never silent > 2 s before serving",
         "seconds": lesson["longest_silence_s"],
         "met": lesson["longest_silence_s"] <= GOALS["silence"]},
    ]  # fmt: skip


def format_report(runs: dict[str, dict[str, Any]]) -> str:
    """The figures of each tree side by side, then the goals for this one."""
    names = list(runs)
    lines = ["start-up, wall seconds (empty cache / warm cache): " + " | ".join(names)]
    for kind in ("cli", "library"):
        for method in METHODS:
            label = ("ikchain solve" if kind == "cli" else "library first solve") + f" {method}"
            cells = [
                f"{runs[n][kind][method]['cold_s']:6.2f} / {runs[n][kind][method]['warm_s']:5.2f}"
                for n in names
            ]
            lines.append(f"  {label:<32} " + " | ".join(cells))
    for what, key in (
        ("serving on", "serving_s"),
        ("page answers", "page_s"),
        ("page usable", "usable_s"),
    ):
        cells = [
            f"{runs[n]['lesson']['cold'][key]:6.2f} / {runs[n]['lesson']['warm'][key]:5.2f}"
            for n in names
        ]
        lines.append(f"  {'ikchain lesson ' + what:<32} " + " | ".join(cells))
    if "pip_s" in runs[names[0]]:
        cells = [f"{runs[n].get('pip_s', float('nan')):6.2f}" for n in names]
        lines.append(f"  {'pip install -e .[lesson]':<32} " + " | ".join(cells))
    cells = [f"{runs[n]['lesson']['cold']['longest_silence_s']:6.2f}" for n in names]
    lines.append(f"  {'lesson: longest silence (empty)':<32} " + " | ".join(cells))
    lines.append(f"goals ({names[0]}), load average {os.getloadavg()[0]:.1f}:")
    for goal in goals(runs[names[0]]):
        verdict = "met" if goal["met"] else "MISSED"
        lines.append(f"  {goal['goal']:<52} {goal['seconds']:6.2f} s  {verdict}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``ikchain bench startup [--against SRC] [--repeats N] [--json PATH]``."""
    parser = OneLineParser(prog="ikchain bench startup", description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="another source tree to measure beside")
    parser.add_argument("--repeats", type=integer_in(1, 100, "a count"), default=3)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--pip",
        action="store_true",
        help="also time pip install -e '.[lesson]' into a new virtual environment",
    )
    args = parser.parse_args(argv)
    if args.against is not None and not (args.against / "ikchain").is_dir():
        parser.error(f"--against: expected a source tree holding ikchain/, got {args.against}")
    runs = {"this tree": measure(None, args.repeats)}
    if args.pip:
        runs["this tree"]["pip_s"] = pip_seconds()
    if args.against is not None:
        runs[str(args.against)] = measure(args.against, args.repeats)
    print(format_report(runs))
    if args.json is not None:
        args.json.write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    return 0
