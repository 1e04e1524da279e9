"""Big batches: ``out=`` reuses memory across chunks, and dask runs a batch out of core.

The expected answers come from one in-memory batch solve of all the targets: a
target's answer does not depend on the batch around it (each is solved alone, to
the bit), so any chunking must give the same numbers exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

import ikchain

CHAIN = ikchain.Chain([0.5, 0.4, 0.3])
TARGETS = np.random.default_rng(13).uniform(-1.3, 1.3, (1000, 2))


def test_out_reuses_the_memory_of_an_earlier_result() -> None:
    whole = ikchain.solve(CHAIN, TARGETS)
    first = ikchain.solve(CHAIN, TARGETS[:100])
    kept = first.angles  # the memory the later chunks write into
    for start in range(0, 1000, 100):
        chunk = ikchain.solve(CHAIN, TARGETS[start : start + 100], out=first)
        assert np.shares_memory(chunk.angles, kept)
        assert np.array_equal(chunk.angles, whole.angles[start : start + 100])
        assert np.array_equal(chunk.error, whole.error[start : start + 100])
        assert list(chunk.status) == list(whole.status[start : start + 100])


def test_out_of_another_size_or_kind_is_refused() -> None:
    first = ikchain.solve(CHAIN, TARGETS[:100])
    before = first.angles.copy()
    with pytest.raises(ValueError, match="out: expected a Result of 99 targets with 3 bones"):
        ikchain.solve(CHAIN, TARGETS[:99], out=first)
    with pytest.raises(ValueError, match="with 2 bones, got one of 100 targets with 3 bones"):
        ikchain.solve(ikchain.Chain([1.0, 1.0]), TARGETS[:100], out=first)
    with pytest.raises(ValueError, match=r"out: expected a Result returned by ikchain\.solve"):
        ikchain.solve(CHAIN, TARGETS[:100], out=np.empty((100, 17)))
    assert np.array_equal(first.angles, before)  # a refused solve wrote nothing


def test_a_dask_array_solves_out_of_core(tmp_path) -> None:
    """The README's recipe: targets and angles on disk (memmaps), solved chunk by chunk
    with dask.array.map_blocks; the library stays numpy in, numpy out."""
    import dask.array as da  # a test dependency: never skipped

    n = CHAIN.n_bones
    source = np.lib.format.open_memmap(tmp_path / "targets.npy", "w+", np.float64, TARGETS.shape)
    source[:] = TARGETS
    source.flush()
    sink = np.lib.format.open_memmap(tmp_path / "angles.npy", "w+", np.float64, (len(TARGETS), n))
    targets = da.from_array(np.load(tmp_path / "targets.npy", mmap_mode="r"), chunks=(128, 2))
    angles = targets.map_blocks(
        lambda block: ikchain.solve(CHAIN, block).angles,
        chunks=(targets.chunks[0], (n,)),
        dtype=np.float64,
    )
    da.store(angles, sink)
    sink.flush()
    expected = ikchain.solve(CHAIN, TARGETS).angles
    assert np.array_equal(np.load(tmp_path / "angles.npy"), expected)


def test_a_batch_on_one_thread_or_every_core_gives_the_same_answers() -> None:
    """threads.run hands ranges of the batch to the threads; the answers do not depend
    on how many there are (each target is solved alone), nor does any target go
    missing or twice (a range boundary off by one would change an answer)."""
    from ikchain.solvers import threads

    targets = np.random.default_rng(5).uniform(-1.3, 1.3, (1013, 2))  # not a multiple
    try:
        threads.set_threads(1)
        alone = ikchain.solve(CHAIN, targets, "ccd", max_iterations=50)
        threads.set_threads(None)
        shared = ikchain.solve(CHAIN, targets, "ccd", max_iterations=50)
    finally:
        threads.set_threads(None)
    assert np.array_equal(alone.angles, shared.angles)
    assert np.array_equal(alone.iterations, shared.iterations)
    one_by_one = [ikchain.solve(CHAIN, t.tolist(), "ccd", max_iterations=50) for t in targets]
    assert np.array_equal(shared.angles, np.array([r.angles for r in one_by_one]))


@pytest.mark.parametrize("count", [0, -1, 1.5, "2"])
def test_a_thread_count_must_be_a_positive_integer(count: object) -> None:
    from ikchain.solvers import threads

    with pytest.raises(ValueError, match="count: expected an integer >= 1 or None"):
        threads.set_threads(count)  # type: ignore[arg-type]
