"""Start-up: a small solve needs no compiler, and plain Python gives the compiled answers.

``solvers.interpret()`` (and ``IKCHAIN_JIT=0``) runs the kernels' own source as plain
Python; ``ikchain solve`` does so for small solves, so that its first answer takes a
fraction of a second instead of a compile. The expected values come from the compiled
kernels in this process: the contract is that both runs of the one implementation
agree to the bit, statuses and iteration counts included.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import ikchain
from ikchain import cli

CASES = [
    # (lengths, limits or None, method, target)
    ([0.8, 0.6], None, "analytic", [1.0, 0.5]),
    ([0.8, 0.6], None, "dls", [1.0, 0.5]),
    ([0.5, 0.4, 0.3], None, "ccd", [0.2, 0.9]),
    ([0.5, 0.4, 0.3], None, "fabrik", [-0.7, 0.1]),
    ([0.5, 0.4, 0.3, 0.2], [[-1.0, 1.0]] * 4, "dls", [0.3, -0.9]),
    ([1.0, 1.0], None, "dls", [5.0, 0.0]),  # out of reach
]


def _in_subprocess(code: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
        check=True,
    )
    return done.stdout.strip()


def _solve_all() -> list[dict[str, object]]:
    rows = []
    for lengths, limits, method, target in CASES:
        chain = ikchain.Chain(lengths, limits=limits) if limits else ikchain.Chain(lengths)
        result = ikchain.solve(chain, target, method)
        batch = ikchain.solve(chain, np.array([target, [0.1, 0.2]]), method)
        rows.append(
            {
                "angles": result.angles.tolist(),
                "error": result.error,
                "status": str(result.status),
                "iterations": result.iterations,
                "batch": batch.angles.tolist(),
            }
        )
    return rows


def test_interpreted_kernels_give_the_compiled_answers_without_numba() -> None:
    """interpret() before the first solve: numba is never imported, and every answer is
    the compiled one, to the bit."""
    code = (
        "import json, sys, ikchain; ikchain.solvers.interpret(); "
        "from tests.test_startup import _solve_all; "
        "rows = _solve_all(); print(json.dumps({'numba': 'numba' in sys.modules, 'rows': rows}))"
    )
    seen = json.loads(_in_subprocess(code))
    assert seen["numba"] is False
    assert seen["rows"] == _solve_all()  # this process runs the compiled kernels


def test_the_environment_variable_interprets_too() -> None:
    code = (
        "import sys, ikchain; ikchain.solve(ikchain.Chain([1, 1]), [1, 1]); "
        "print('numba' in sys.modules)"
    )
    assert _in_subprocess(code, {"IKCHAIN_JIT": "0"}) == "False"
    assert _in_subprocess(code, {"IKCHAIN_JIT": "1"}) == "True"


def test_interpret_after_a_compiled_solve_is_refused() -> None:
    ikchain.solve(ikchain.Chain([1.0, 1.0]), [1.0, 1.0])  # the kernels, compiled
    with pytest.raises(RuntimeError, match="interpret: expected no solve yet"):
        ikchain.solvers.interpret()


@pytest.mark.parametrize(
    ("bones", "iterations", "numba"),
    [
        (2, None, False),  # the default budget, 200: plain Python
        (500, 200, False),  # 100,000 bone-iterations: the documented limit, still plain
        (500, 201, True),  # one more iteration: beyond it, compiled
    ],
)
def test_the_program_interprets_small_solves_only(
    bones: int, iterations: int | None, numba: bool
) -> None:
    """The ``ikchain solve`` program skips numba up to 100,000 bone-iterations (bones x
    budget) and uses the compiled kernels beyond; the printed answer is the library's
    either way."""
    argv = ["solve", "--lengths", ",".join(["0.01"] * bones), "--target", "1,0.5", "--json"]
    if iterations is not None:
        argv += ["--iterations", str(iterations)]
    code = (
        "import sys, atexit; from ikchain.cli import main; "
        "atexit.register(lambda: print('numba' in sys.modules)); "
        f"sys.argv = ['ikchain', *{argv!r}]; sys.exit(main())"
    )
    *printed, seen = _in_subprocess(code).splitlines()
    assert seen == str(numba)
    expected = ikchain.solve(ikchain.Chain([0.01] * bones), [1.0, 0.5], max_iterations=iterations)
    angles = json.loads("\n".join(printed))["angles"]
    assert angles == pytest.approx(expected.angles.tolist(), abs=1e-12)
    assert cli.INTERPRET_UP_TO == 100_000  # the limit these cases straddle


def test_main_called_in_process_never_interprets() -> None:
    """A caller of main([...]) keeps compiled kernels for its later solves."""
    code = (
        "import sys; from ikchain.cli import main; "
        "main(['solve', '--lengths', '1,1', '--target', '1,1']); print('numba' in sys.modules)"
    )
    assert _in_subprocess(code).splitlines()[-1] == "True"


def _gated_app(
    monkeypatch: pytest.MonkeyPatch, compile_kernels: object, *, stored: bool = False
) -> object:
    """The one-process lesson app with ``compile_kernels`` in place of the compile;
    unless ``stored``, the page's pictures are missing from the store (as after a change
    to the lesson), so requests wait for the compile."""
    from ikchain.lesson import precomputed
    from ikchain.web import app as web_app

    monkeypatch.setattr(web_app, "compile_kernels", compile_kernels)
    if not stored:

        def not_stored() -> None:
            raise precomputed.NotStoredError("a picture")

        monkeypatch.setattr(web_app, "serve_plainly", not_stored)
    return web_app.build_app(serve_while_starting=True)


def test_a_page_waiting_for_the_compile_says_how_far_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When the page cannot be served on plain Python meanwhile (its stored pictures
    out of date), ikchain lesson (one process) still listens at once: the page is a
    notice that reloads itself, in the page's language, with the compile's progress;
    the static files are served, and a frame waits for the kernels, then is answered."""
    import threading

    from starlette.testclient import TestClient

    release = threading.Event()
    noted = threading.Event()

    def compiling(progress) -> None:  # two of five kernels done, then held
        for done in range(3):
            progress(done, 5, f"kernel_{done}")
        noted.set()
        release.wait(60)

    app = _gated_app(monkeypatch, compiling)
    frame = {"id": "f", "lengths": [0.8, 0.6], "target": [1.0, 0.6], "method": "ccd"}
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        assert noted.wait(60)
        page = client.get("/")
        assert page.status_code == 503 and page.headers["retry-after"] == "2"
        assert "正在准备求解器" in page.text and 'http-equiv="refresh"' in page.text
        english = client.get("/?lang=en").text
        assert "Preparing the solvers" in english
        # real progress, from compile_kernels' own callback
        assert '<progress max="5" value="2">' in english
        assert "2 of 5 solver kernels ready; now: kernel_2" in english
        assert "已完成 2 / 5 个求解内核，正在处理：kernel_2" in page.text
        assert client.get("/static/lesson.css").status_code == 200
        answers: list[object] = []
        waiting = threading.Thread(
            target=lambda: answers.append(client.post("/api/frame", json=frame))
        )
        waiting.start()
        waiting.join(0.5)
        assert answers == []  # still waiting for the kernels
        release.set()
        waiting.join(120)
        assert answers[0].status_code == 200 and answers[0].json()["ok"] is True  # type: ignore[attr-defined]
        assert client.get("/").status_code == 200  # the lesson itself now


def test_a_failed_start_says_so_on_every_request(monkeypatch: pytest.MonkeyPatch) -> None:
    from starlette.testclient import TestClient

    def broken(progress) -> None:
        raise OSError("no room to compile")

    frame = {"id": "f", "lengths": [0.8, 0.6], "target": [1.0, 0.6]}
    with TestClient(_gated_app(monkeypatch, broken), base_url="http://127.0.0.1:8000") as client:
        import time

        deadline = time.monotonic() + 30
        while client.get("/").status_code == 503 and "refresh" in client.get("/").text:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        reply = client.post("/api/frame", json=frame)
        assert reply.status_code == 503
        assert reply.json() == {
            "ok": False,
            "error": "server: expected the solvers to start, got OSError",
        }


def test_the_startup_bench_calls_a_lesson_usable_only_when_it_solves() -> None:
    """``ikchain bench startup``'s "usable" mark: the page with its tables and a frame
    solved over HTTP and over the WebSocket, on a real server; a server that answers
    the page but refuses frames is not usable."""
    from ikchain.bench import startup
    from ikchain.web.runner import running_server

    with running_server() as url:
        startup._usable(url + "/")
        broken = dict(startup._FRAME, method="newton")
        original = startup._FRAME
        try:
            startup._FRAME = broken
            with pytest.raises(Exception, match=r"400|not solved"):
                startup._usable(url + "/")
        finally:
            startup._FRAME = original


def test_the_page_works_on_plain_python_while_the_kernels_compile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ikchain lesson (one process) serves the whole page and solves drags before the
    compile ends; a replay then gets a 503 that says why in its page's language (no
    heavy process compiles a second time beside the first); once compiled, the page is
    rendered afresh, equal to the one served meanwhile, and replays are answered."""
    import threading

    from starlette.testclient import TestClient

    from ikchain.lesson import precomputed
    from ikchain.solvers import compile_kernels
    from ikchain.web import app as web_app

    release = threading.Event()
    compiling = threading.Event()

    def compile_held(progress) -> None:
        progress(0, 6, "reach_range")
        compiling.set()
        release.wait(60)
        compile_kernels(progress)  # the real one (this process compiled them already)

    app = _gated_app(monkeypatch, compile_held, stored=True)
    frame = {"id": "f", "lengths": [0.8, 0.6], "target": [1.0, 0.6], "method": "ccd"}
    replay = {**frame, "kind": "replay", "lang": "en", "iterations": 8}
    try:
        with TestClient(app, base_url="http://127.0.0.1:8000") as client:
            assert compiling.wait(60)
            meanwhile = client.get("/?lang=en")
            assert meanwhile.status_code == 200 and "Preparing the solvers" not in meanwhile.text
            solved = client.post("/api/frame", json=frame)
            assert solved.status_code == 200 and solved.json()["ok"] is True
            with client.websocket_connect("ws://127.0.0.1:8000/ws") as socket:
                socket.send_json(frame)
                assert socket.receive_json()["ok"] is True
            refused = client.post("/api/frame", json=replay)
            assert refused.status_code == 503
            assert "still being compiled" in refused.json()["error"]
            chinese = client.post("/api/frame", json={**replay, "lang": "zh"}).json()["error"]
            assert "求解器还在编译" in chinese
            big = {**frame, "lengths": [0.3] * 4, "iterations": 400}  # > a drag's work
            unnamed = client.post("/api/frame", json=big)
            assert unnamed.status_code == 503  # no language named: both
            assert "still being compiled" in unnamed.json()["error"]
            assert "求解器还在编译" in unnamed.json()["error"]
            assert app.state.workers.heavy is None  # no second compile beside this one
            assert client.get("/api/health").json() == {"ok": True, "ready": False}
            release.set()
            deadline = time.monotonic() + 60
            while not client.get("/api/health").json()["ready"]:
                assert time.monotonic() < deadline
                time.sleep(0.05)
            assert not app.state.workers.warming and app.state.workers.heavy is not None
            after = client.get("/?lang=en")
            assert after.text == meanwhile.text
            answered = client.post("/api/frame", json=replay)
            assert answered.status_code == 200 and answered.json()["ok"] is True
    finally:
        release.set()
        precomputed.serving_ahead(False)
        web_app.render_page.cache_clear()


def test_plain_kernels_serve_the_page_then_the_compiled_ones_the_same_page() -> None:
    """In a new process: the plain-Python copies of the kernels and the stored pictures
    render the page (numba's kernels untouched, nothing solved that the store holds),
    then the compiled kernels take over; every byte of the page is the same."""
    code = """
import sys
from ikchain.solvers import runner
from ikchain.lesson import limits, outcomes
from ikchain.web import app
app.serve_plainly()
plain = runner.interpreting(), runner._kernels_cached[0].SOLVE[0]
before = {lang: app.render_page(lang) for lang in ("en", "zh")}
solved_meanwhile = limits._reach_cells.__wrapped__.cache_info().currsize + \\
    outcomes._outcome_map.__wrapped__.cache_info().currsize
print("ikchain.solvers.loop" in sys.modules, end=" ")  # the copies left no trace
from ikchain.solvers import loop  # the module itself: compiled
print(plain[0], type(plain[1]).__name__, hasattr(loop.SOLVE[0], "compile"), solved_meanwhile)
app.compile_kernels()
print(runner.interpreting(), runner._kernels_cached[0] is loop)
app.render_afresh()
print(limits._reach_cells.__wrapped__.cache_info().currsize > 0)
print(all(app.render_page(lang) == before[lang] for lang in before))
"""
    lines = _in_subprocess(code).splitlines()[-4:]
    assert lines == ["False True function True 0", "False True", "True", "True"]
