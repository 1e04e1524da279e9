"""The page's two costly pictures, solved ahead: what the lesson shows while numba compiles.

Section 2.5's shaded reach sets (:func:`ikchain.lesson.limits.reach_cells`) and its
outcome map (:func:`ikchain.lesson.outcomes.outcome_map`) classify tens of thousands
of targets with the certified reach search under joint limits: about a second with
the compiled kernels, but two minutes as plain Python. Everything else on the page
takes about a second as plain Python. So that ``ikchain lesson`` serves a working
page at once on a first run, while the kernels compile, these two are stored in
``precomputed.npz`` beside this module, written by the same library code
(``python tools/lesson_pictures.py``: :func:`ikchain.lesson.content.pictures` and
:func:`write`), and read only while the server runs the kernels as plain Python
(:func:`serving_ahead`). Once the compiled kernels are in
use the server renders the page afresh, the pictures solved again.

``tests/test_precomputed.py`` holds every stored picture equal to a fresh solve,
and the page rendered from them equal to the page rendered after the switch; when
a change to the solvers or the lesson moves a cell, it fails, saying to write the
file again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

#: The stored pictures: one ``.npz`` of arrays, and a JSON index of them in it.
STORE = Path(__file__).with_name("precomputed.npz")

F = TypeVar("F", bound=Callable[..., Any])
#: How to write the store again (what :class:`NotStoredError` says).
WRITE_COMMAND = "python tools/lesson_pictures.py"

_lock = threading.Lock()
_serving = False
_loaded: dict[str, Any] | None = None
#: The kind of picture each ahead-solved function returns, by the kind's name.
_KINDS: dict[str, type] = {}
#: While :func:`write` renders the page: what each ahead-solved call returned, by key.
_recording: dict[str, Any] | None = None


class NotStoredError(LookupError):
    """A picture the page asks for is not in the store (the store is older than the
    lesson: :data:`WRITE_COMMAND` writes it again)."""


def serving_ahead(on: bool) -> None:
    """Whether the page's pictures come from the store (the server sets it while its
    kernels run as plain Python, and clears it when the compiled ones take over)."""
    global _serving
    _serving = on


def _key(name: str, args: tuple[Any, ...]) -> str:
    return repr((name, args))  # floats' repr round-trips exactly


def ahead(kind: type) -> Callable[[F], F]:
    """A decorator: the function (pure, of hashable arguments, returning a ``kind``, a
    dataclass of arrays, dicts of arrays and numbers) answered from the store while
    :func:`serving_ahead` is on (:class:`NotStoredError` if the store lacks its
    arguments: solving it as plain Python would take minutes); else called."""
    _KINDS[kind.__name__] = kind

    def decorate(function: F) -> F:
        name = function.__qualname__

        @functools.wraps(function)
        def answer(*args: Any) -> Any:
            key = _key(name, args)
            if _serving:
                stored = _stored().get(key)
                if stored is None:
                    raise NotStoredError(
                        f"{key}: not in {STORE.name}; write it again ({WRITE_COMMAND})"
                    )
                return stored
            value = function(*args)
            if _recording is not None:
                _recording[key] = value
            return value

        return answer  # type: ignore[return-value]

    return decorate


@contextlib.contextmanager
def recording() -> Iterator[dict[str, Any]]:
    """A dict that gets, by key, what each ahead-solved function returns inside the
    ``with`` block (:func:`ikchain.lesson.content.pictures` renders the page in it)."""
    global _recording
    _recording = {}
    try:
        yield _recording
    finally:
        _recording = None


def _stored() -> dict[str, Any]:
    global _loaded
    with _lock:
        if _loaded is None:
            _loaded = read(STORE) if STORE.exists() else {}
        return _loaded


def read(path: Path) -> dict[str, Any]:
    """The pictures stored at ``path``, by key (their kinds' modules imported)."""
    with np.load(path, allow_pickle=False) as arrays:
        index = json.loads(str(arrays["index"]))
        return {
            key: _decode(_KINDS[entry["kind"]], entry["fields"], arrays)
            for key, entry in index.items()
        }


def _decode(kind: type, fields: dict[str, Any], arrays: Any) -> Any:
    values = {}
    for field, value in fields.items():
        if isinstance(value, dict) and "array" in value:
            values[field] = arrays[value["array"]]
        elif isinstance(value, dict):  # a dict of arrays
            values[field] = {k: arrays[v["array"]] for k, v in value.items()}
        else:
            values[field] = value
    return kind(**values)


def _encode(value: Any, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    fields: dict[str, Any] = {}

    def store(array: np.ndarray) -> dict[str, str]:
        name = f"a{len(arrays)}"
        arrays[name] = array
        return {"array": name}

    for field in dataclasses.fields(value):
        item = getattr(value, field.name)
        if isinstance(item, np.ndarray):
            fields[field.name] = store(item)
        elif isinstance(item, dict):
            fields[field.name] = {k: store(v) for k, v in item.items()}
        else:
            fields[field.name] = item
    return {"kind": type(value).__name__, "fields": fields}


def write(pictures: dict[str, Any], path: Path = STORE) -> None:
    """Store ``pictures`` (by key, as :func:`recording` gathers them) at ``path``."""
    arrays: dict[str, np.ndarray] = {}
    index = {key: _encode(value, arrays) for key, value in sorted(pictures.items())}
    arrays["index"] = np.array(json.dumps(index, sort_keys=True))
    with open(path, "wb") as file:
        np.savez_compressed(file, **arrays)  # type: ignore[arg-type]
