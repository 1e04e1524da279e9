import numpy as np
import pytest

import ikchain


def test_chain_keeps_lengths_and_reach():
    chain = ikchain.Chain([0.8, 0.6])
    assert chain.n_bones == 2
    assert chain.total_length == pytest.approx(1.4, abs=1e-15)
    assert chain.inner_radius == pytest.approx(0.2, abs=1e-15)
    assert chain.limits is None


def test_inner_radius_is_zero_when_no_bone_dominates():
    assert ikchain.Chain([0.5, 0.5, 0.5]).inner_radius == 0.0
    assert ikchain.Chain([1.0, 0.3, 0.2]).inner_radius == pytest.approx(0.5, abs=1e-15)


def test_chain_is_immutable():
    chain = ikchain.Chain([0.8, 0.6], limits=[[-1, 1], [-2, 2]])
    with pytest.raises(ValueError):
        chain.lengths[0] = 1.0
    with pytest.raises(ValueError):
        chain.limits[0, 0] = 0.0
    with pytest.raises(AttributeError):
        chain.lengths = np.array([1.0, 1.0])


def test_chain_copies_its_input():
    lengths = np.array([0.8, 0.6])
    chain = ikchain.Chain(lengths)
    lengths[0] = 5.0
    assert chain.lengths[0] == 0.8


def test_equal_chains_compare_and_hash_equal():
    assert ikchain.Chain([0.8, 0.6]) == ikchain.Chain((0.8, 0.6))
    assert hash(ikchain.Chain([0.8, 0.6])) == hash(ikchain.Chain((0.8, 0.6)))
    assert ikchain.Chain([0.8, 0.6]) != ikchain.Chain([0.8, 0.6], limits=[[-1, 1], [-1, 1]])


def test_a_chain_pickles_as_its_lengths_and_limits() -> None:
    """multiprocessing and dask.distributed ship a chain by pickling it."""
    import pickle

    for chain in (ikchain.Chain([0.8, 0.6]), ikchain.Chain([0.5, 0.4], [[-1.0, 1.0], [0.0, 2.0]])):
        again = pickle.loads(pickle.dumps(chain))
        assert again == chain and hash(again) == hash(chain)
        assert again is not chain
        assert (
            ikchain.solve(again, [0.6, 0.3]).angles.tolist()
            == ikchain.solve(chain, [0.6, 0.3]).angles.tolist()
        )
