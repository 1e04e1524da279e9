"""The pictures the page shows while its kernels compile (``ikchain.lesson.precomputed``)
are the library's: each equal to a fresh solve, and every one the page asks for stored.

When one of these fails after a change to the solvers or the lesson, write the store
again: ``python tools/lesson_pictures.py``.
"""

from __future__ import annotations

import ast
import dataclasses

import numpy as np
import pytest

from ikchain.lesson import limits, outcomes, precomputed

SOLVERS = {
    "_reach_cells": limits._reach_cells,
    "_outcome_map": outcomes._outcome_map,
}


def _same(stored: object, fresh: object) -> list[str]:
    """The names of the fields in which two pictures differ."""
    differ = []
    for field in dataclasses.fields(stored):  # type: ignore[arg-type]
        a, b = getattr(stored, field.name), getattr(fresh, field.name)
        if isinstance(a, dict):
            same = a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
        elif isinstance(a, np.ndarray):
            same = a.dtype == b.dtype and np.array_equal(a, b)
        else:
            same = type(a) is type(b) and a == b
        if not same:
            differ.append(field.name)
    return differ


@pytest.fixture(scope="module")
def stored() -> dict[str, object]:
    return precomputed.read(precomputed.STORE)


def test_every_stored_picture_is_a_fresh_solve(stored: dict[str, object]) -> None:
    assert stored, "the store is empty"
    for key, picture in stored.items():
        name, args = ast.literal_eval(key)
        fresh = SOLVERS[name].__wrapped__.__wrapped__(*args)  # past both caches
        assert _same(picture, fresh) == [], f"{key} differs; write the store again"


def test_the_store_holds_every_picture_the_page_asks_for(stored: dict[str, object]) -> None:
    from ikchain.lesson import content

    asked = content.pictures()
    assert sorted(asked) == sorted(stored)


def test_serving_ahead_answers_from_the_store_and_refuses_what_it_lacks(
    stored: dict[str, object],
) -> None:
    key = next(iter(stored))
    name, args = ast.literal_eval(key)
    precomputed.serving_ahead(True)
    try:
        assert SOLVERS[name](*args) is precomputed._stored()[key]
        lengths, bounds = (0.5, 0.4, 0.3), ((-1.0, 1.0),) * 3  # no page shows this chain
        with pytest.raises(precomputed.NotStoredError, match="write it again"):
            limits._reach_cells(lengths, bounds)
    finally:
        precomputed.serving_ahead(False)
    assert SOLVERS[name](*args) is not precomputed._stored()[key]  # solved again


def test_a_stored_picture_reads_back_equal(tmp_path: object, stored: dict[str, object]) -> None:
    """What :func:`precomputed.write`'s encoding stores, :func:`precomputed.read` gives
    back field for field (kinds, dtypes and all)."""
    arrays: dict[str, np.ndarray] = {}
    import json

    index = {key: precomputed._encode(value, arrays) for key, value in stored.items()}
    path = tmp_path / "pictures.npz"  # type: ignore[operator]
    np.savez(path, index=np.array(json.dumps(index)), **arrays)
    again = precomputed.read(path)
    for key, picture in stored.items():
        assert type(again[key]) is type(picture) and _same(again[key], picture) == []
